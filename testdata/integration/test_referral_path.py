# SPDX-License-Identifier: BSD-3-Clause
"""harden-referral-path (Unbound 1.17, default no), through the daemon on
the loopback test internet, so it runs against Debian's Unbound too
(UNBOUND_BIN=/usr/sbin/unbound): with yes a referral's NS set is not
taken as the cache's delegation, and detached queries check it: the
zone's NS set asked of the zone's own servers, and, when the question
is that NS set, the addresses of the name servers. The misbehaving
responder at bad.tld2. logs what it is asked; answers stay right."""
import os
import sys
import time

import dns.rcode
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from testnet import have_nsd  # noqa: E402
from testnet.fixture import testnet_net, net  # noqa: E402,F401
from testnet.zones import cases  # noqa: E402

pytestmark = pytest.mark.skipif(not have_nsd(), reason="nsd is not installed")
SLOW = 3 if os.environ.get("ASAN_OPTIONS") else 1


def rdata(reply):
    return sorted(rd.to_text() for rr in reply.answer for rd in rr)


def logged(responder, qname, qtype, wait):
    """The responder's log entries for (qname, qtype), waiting up to
    wait seconds for one (detached queries run after the answer)."""
    deadline = time.time() + wait * SLOW
    while True:
        got = responder.queries(qname, qtype)
        if got or time.time() >= deadline:
            return got
        time.sleep(0.05)


@pytest.mark.parametrize("harden", ["yes", "no"])
def test_ns_set_checked_at_the_zone(unbound, net, harden):
    """yes: after the referral to bad.tld2. the zone's own server is
    asked for bad.tld2. NS (a detached query); no: it is not. The
    answers are the same, and the next name under the zone resolves."""
    bad = net.responder("bad")
    bad.clear_log()
    srv = unbound.start("harden-referral-path: %s" % harden,
                        root_hints=net.root_hints)
    r = srv.query("www.bad.tld2.", "A", timeout=8.0)
    assert rdata(r) == ["192.0.2.100"]
    seen = logged(bad, "bad.tld2.", "NS", 2.0 if harden == "yes" else 0.5)
    assert bool(seen) == (harden == "yes")
    r = srv.query("servfail.bad.tld2.", "A", timeout=8.0)
    assert dns.rcode.to_text(r.rcode()) == "SERVFAIL"
    r = srv.query("poison.bad.tld2.", "A", timeout=8.0)
    assert rdata(r) == ["192.0.2.108"]
    r = srv.query("www.example.tld1.", "A", timeout=8.0)
    assert rdata(r) == ["192.0.2.10"]


def test_glue_checked_when_the_ns_set_is_asked(unbound, net):
    """The question is the NS set the referral gives: it is stored, and
    the glue's names are looked up (detached) at the zone's server."""
    bad = net.responder("bad")
    bad.clear_log()
    srv = unbound.start("harden-referral-path: yes",
                        root_hints=net.root_hints)
    r = srv.query("bad.tld2.", "NS", timeout=8.0)
    assert rdata(r) == ["ns.bad.tld2."]
    assert logged(bad, "ns.bad.tld2.", "A", 2.0)
    r = srv.query("www.bad.tld2.", "A", timeout=8.0)
    assert rdata(r) == ["192.0.2.100"]


def test_expected_cases_with_harden(unbound, net):
    """Every expected case of the test internet gives the right answer
    with harden-referral-path: yes (2 threads)."""
    srv = unbound.start("harden-referral-path: yes", threads=2,
                        root_hints=net.root_hints)
    for c in cases():
        r = srv.query(c.qname, c.qtype, timeout=8.0, want_dnssec=False)
        if r.flags & 0x0200:
            r = srv.query(c.qname, c.qtype, tcp=True, timeout=8.0)
        assert c.mismatch(r) is None, "%s %s (%s): %s" % (
            c.qname, c.qtype, c.why, c.mismatch(r))
