# SPDX-License-Identifier: BSD-3-Clause
"""Questions of type ANY answered from the cache, as Unbound 1.17: when
the message cache has no entry for the ANY question, the answer is made
from the RRsets cached at the name (A, AAAA, MX, SOA, NS, DNAME that
came from an answer section; a cached CNAME alone), anew for each ask;
with none of them cached, ANY goes upstream. Through the daemon on the
loopback test internet, so it runs against Debian's Unbound too
(UNBOUND_BIN=/usr/sbin/unbound)."""
import os
import sys

import dns.flags
import dns.rcode
import dns.rdatatype
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from testnet import have_nsd  # noqa: E402
from testnet.fixture import testnet_net, net  # noqa: E402,F401

pytestmark = [pytest.mark.skipif(not have_nsd(),
                                 reason="nsd is not installed")]


def rrsets(reply):
    """The answer as {(owner, type): sorted rdata texts}."""
    return {(str(rr.name), dns.rdatatype.to_text(rr.rdtype)):
            sorted(rd.to_text() for rd in rr) for rr in reply.answer}


def ask(srv, name, rdtype):
    r = srv.query(name, rdtype, timeout=8.0)
    assert dns.rcode.to_text(r.rcode()) == "NOERROR", (name, rdtype)
    return r


def test_any_from_rrset_cache(unbound, net):
    """A and TXT cached: ANY gives the A only (TXT is not one of the
    types); AAAA cached after: the next ANY has both (not kept as a
    message). The zone's server is asked for ANY by neither."""
    srv = unbound.start(root_hints=net.root_hints)
    www = "www.example.tld1."
    ask(srv, www, "A")
    ask(srv, www, "TXT")
    r = ask(srv, www, "ANY")
    assert rrsets(r) == {(www, "A"): ["192.0.2.10"]}
    assert not r.flags & dns.flags.AA
    ask(srv, www, "AAAA")
    r = ask(srv, www, "ANY")
    assert rrsets(r) == {(www, "A"): ["192.0.2.10"],
                         (www, "AAAA"): ["2001:db8::10"]}


def test_any_upstream_when_nothing_cached(unbound, net):
    """Nothing cached at the name: ANY goes to the server (the scripted
    one answers it with NODATA); with the A cached, from the cache."""
    bad = net.responder("bad")
    bad.clear_log()
    srv = unbound.start(root_hints=net.root_hints)
    r = ask(srv, "slow.bad.tld2.", "ANY")
    assert not r.answer
    assert bad.queries("slow.bad.tld2.", "ANY")
    ask(srv, "www.bad.tld2.", "A")
    r = ask(srv, "www.bad.tld2.", "ANY")
    assert rrsets(r) == {("www.bad.tld2.", "A"): ["192.0.2.100"]}
    assert not bad.queries("www.bad.tld2.", "ANY")


def test_any_cached_cname_alone(unbound, net):
    """A cached CNAME at the name is the whole ANY answer (not
    followed), as Unbound answers it from its cache."""
    srv = unbound.start(root_hints=net.root_hints)
    r = ask(srv, "chain.example.tld1.", "A")
    assert r.answer
    r = ask(srv, "chain.example.tld1.", "ANY")
    assert rrsets(r) == {("chain.example.tld1.", "CNAME"):
                         ["chain2.example.tld1."]}


def test_any_apex_soa_ns_mx(unbound, net):
    """At a zone apex: SOA, NS, MX and A answers cached; ANY gives
    them in one answer. An NS set learned from a referral is not used
    for ANY."""
    srv = unbound.start(root_hints=net.root_hints)
    apex = "example.tld1."
    for t in ("SOA", "NS", "MX", "A"):
        ask(srv, apex, t)
    r = ask(srv, apex, "ANY")
    got = rrsets(r)
    assert set(got) == {(apex, "A"), (apex, "MX"), (apex, "SOA"),
                        (apex, "NS")}
    assert got[(apex, "MX")] == ["10 mail.example.tld1."]
    # a referral's NS set (authority) is not an answer: ANY for the
    # zone goes to its server
    bad = net.responder("bad")
    ask(srv, "www.bad.tld2.", "A")
    bad.clear_log()
    ask(srv, "bad.tld2.", "ANY")
    assert bad.queries("bad.tld2.", "ANY")
