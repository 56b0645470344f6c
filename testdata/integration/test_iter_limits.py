# SPDX-License-Identifier: BSD-3-Clause
"""Limits on what one upstream reply may bring and on how many queries
one client query may send, each under the reply or the server that
tests it, on the loopback test internet (testdata/testnet):

- iter-scrub-ns: an answer with 30 NS records reaches the client with
  the limit's number (default 20).
- iter-scrub-cname: a reply with a chain of 5 CNAMEs is clipped after
  limit + 1 hops; the daemon asks the server for the rest itself (the
  responder's log shows the query at the clipped name) and the client
  gets the whole chain and the address.
- iter-scrub-rrsig: an RRset with 10 RRSIGs reaches a DO client with
  the limit's number (default 8).
- max-sent-count, max-global-quota: a server that answers SERVFAIL to
  every try is asked at most max-sent-count + 1 times for one query
  state (as Unbound: it fails past the count), and max-global-quota
  times for the whole client query.

iter-scrub-* and max-global-quota are options of Unbound 1.22 and later:
those tests are this daemon's only (Debian's Unbound 1.17 does not read
them); max-sent-count is run against Debian's Unbound too
(UNBOUND_REFERENCE=1), which now sends one packet more and answers
only with discard-timeout: 0 (test_max_sent_count says why). No
assertion follows a fixed sleep: the responder logs a query before it
answers, so once the daemon's reply is here the upstream queries it
made are in the log."""
import os
import sys

import dns.rcode
import dns.rdatatype
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from testnet import have_nsd  # noqa: E402
from testnet.fixture import testnet_net, net  # noqa: E402,F401
from conftest import REFERENCE, ours_only  # noqa: E402

pytestmark = pytest.mark.skipif(not have_nsd(), reason="nsd is not installed")


def rcode(reply):
    return dns.rcode.to_text(reply.rcode())


def records(reply, rdtype):
    t = dns.rdatatype.from_text(rdtype)
    return [rd for rr in reply.answer if rr.rdtype == t for rd in rr]


NS30 = ["nsset.bad.tld2. 300 IN NS ns%d.example.tld1." % i
        for i in range(1, 31)]


@ours_only
@pytest.mark.parametrize("conf,want", [("iter-scrub-ns: 5", 5),
                                       ("iter-scrub-ns: 0", 30),
                                       ("", 20)])
def test_iter_scrub_ns(unbound, net, conf, want):
    unbound.start(conf, root_hints=net.root_hints)
    bad = net.responder("bad")
    bad.set_behaviour(rules=[{"name": "nsset.bad.tld2.", "qtype": "NS",
                              "actions": [{"type": "answer",
                                           "records": NS30}]}])
    r = unbound.query("nsset.bad.tld2.", "NS", timeout=8.0, tcp=True)
    assert rcode(r) == "NOERROR", r
    assert len(records(r, "NS")) == want, r


CHAIN = ["c%d.bad.tld2. 300 IN CNAME c%d.bad.tld2." % (i, i + 1)
         for i in range(5)] + ["c5.bad.tld2. 300 IN A 192.0.2.55"]


@ours_only
@pytest.mark.parametrize("limit", [2, None])
def test_iter_scrub_cname(unbound, net, limit):
    unbound.start("iter-scrub-cname: %d" % limit if limit is not None
                  else "", root_hints=net.root_hints)
    bad = net.responder("bad")
    bad.set_behaviour(records=CHAIN)
    bad.clear_log()
    r = unbound.query("c0.bad.tld2.", "A", timeout=8.0)
    assert rcode(r) == "NOERROR", r
    assert [rd.to_text() for rd in records(r, "A")] == ["192.0.2.55"], r
    assert len(records(r, "CNAME")) == 5, r
    # limit 2: c0, c1, c2 kept (3 hops), c3's CNAME and the rest clipped
    asked = bad.queries("c3.bad.tld2.", "A")
    assert bool(asked) == (limit is not None), bad.queries()


def sig(tag):
    return ("sigs.bad.tld2. 300 IN RRSIG A 8 3 300 20300101000000 "
            "20200101000000 %d bad.tld2. AAAA" % tag)


@ours_only
@pytest.mark.parametrize("conf,want", [("iter-scrub-rrsig: 3", 3),
                                       ("", 8)])
def test_iter_scrub_rrsig(unbound, net, conf, want):
    unbound.start(conf, root_hints=net.root_hints)
    bad = net.responder("bad")
    bad.set_behaviour(rules=[{"name": "sigs.bad.tld2.", "qtype": "A",
                              "actions": [{"type": "answer", "records": [
                                  "sigs.bad.tld2. 300 IN A 192.0.2.56"] +
                                  [sig(t) for t in range(1, 11)]}]}])
    r = unbound.query("sigs.bad.tld2.", "A", timeout=8.0, want_dnssec=True)
    assert rcode(r) == "NOERROR", r
    assert len(records(r, "A")) == 1, r
    assert len(records(r, "RRSIG")) == want, r


def sends(unbound, net, conf, name, rules):
    """The queries the daemon sends to bad.tld2.'s server (which follows
    rules, a stub zone here) for one client query of name that fails
    (SERVFAIL)."""
    bad = net.responder("bad")
    unbound.start("outbound-msg-retry: 30\n%s\nstub-zone:\n"
                  "  name: bad.tld2.\n  stub-addr: %s@%d"
                  % (conf, bad.address, bad.port),
                  root_hints=net.root_hints)
    bad.set_behaviour(rules=rules)
    bad.clear_log()
    r = unbound.query(name, "A", timeout=15.0)
    assert rcode(r) == "SERVFAIL", r
    return len(bad.queries()), bad.queries()


def test_max_sent_count(unbound, net):
    """A server that never answers is tried again (outbound-msg-retry:
    30) until max-sent-count + 1 sends: with 1, two sends, the first of
    them sent twice (UDP, once more before its timeout counts, as
    Unbound's EDNS fallback step), the second not (the timeout is
    counted by then): three packets. Debian's Unbound sends four (see
    below)."""
    name = "drop.bad.tld2."
    conf, want = "max-sent-count: 1", 3
    if REFERENCE:
        # Debian's 1.17.1-2+deb12u3 backported the CVE-2024-33655
        # (DNSBomb) fix (changelog.Debian: "Fix CVE-2024-33655"): its
        # discard-timeout (default 1900 ms) drops the reply to a client
        # query older than that, and this one fails at about 2.3 s, so
        # the client would get nothing; with it off, the SERVFAIL comes.
        # That package (deb12u4 here) sends a fourth packet, at 0, 0.38,
        # 0.76 and 1.51 s (5 runs of 5 alike)
        conf, want = conf + "\ndiscard-timeout: 0", 4
    n, log = sends(unbound, net, conf, name, [
        {"name": name, "actions": [{"type": "drop"}]}])
    assert n == want, [(q["qname"], q.get("t")) for q in log]


@ours_only
@pytest.mark.parametrize("quota", [3, 6])
def test_max_global_quota(unbound, net, quota):
    """Each minimised query gets a referral one label down, to the same
    server: the chain of referrals ends at max-global-quota sends."""
    name = "a.b.c.d.e.f.g.h.loop.bad.tld2."
    labels = name.split(".")
    rules = []
    for i in range(len(labels) - 3):
        # in-zone glue: no address lookup (a sub-query) on the way
        zone = ".".join(labels[i:])
        rules.append({"name": zone, "actions": [{
            "type": "referral", "zone": zone, "ns": ["ns." + zone],
            "glue": {"ns." + zone: [net.responder("bad").address]}}]})
    n, log = sends(unbound, net, "max-global-quota: %d" % quota, name,
                   rules)
    assert n == quota, [(q["qname"], q.get("did")) for q in log]
