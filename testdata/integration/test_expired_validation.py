# SPDX-License-Identifier: BSD-3-Clause
"""Serve-expired, prefetch and validation together, on the signed test
internet. stripped.sec1. is served only through the MITM responder,
whose rules the test changes while the daemon runs: first it relays the
hidden NSD's answers as they are (secure), then it strips the RRSIGs of
one name (its replacement is bogus).

- prefetch refreshes go through the validator: a refresh of good data
  is stored secure (AD, no upstream query after the old TTL ended); a
  refresh that validates bogus removes the entry, and the next client
  gets SERVFAIL, not the unchecked data;
- serve-expired: the expired secure entry is served (RFC 8767) until
  its refresh is judged bogus, never after (Unbound #1504 is the way
  this goes wrong: an unvalidated copy served as expired data after a
  bogus verdict); Debian's Unbound 1.17 with the same options answers
  the same;
- serve-expired-client-timeout: a resolution that ends bogus within the
  timeout is SERVFAIL, not the expired answer.

Needs nsd, ldnsutils, Debian's unbound and root (port 53); skips
otherwise."""
import os
import sys
import threading
import time

import dns.flags
import dns.message
import dns.rcode
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from testnet import have_nsd  # noqa: E402
from testnet.fixture import signednet_net  # noqa: E402,F401
from conftest import REFERENCE, SLOW  # noqa: E402
from test_control import (DEB_UNBOUND, OUR_CTL, ctl,  # noqa: E402
                          setup_keys, stats_dict)
from test_validator_control import start_pair, stop  # noqa: E402

pytestmark = [
    pytest.mark.skipif(not have_nsd(), reason="nsd is not installed"),
    pytest.mark.skipif(not os.access(DEB_UNBOUND, os.X_OK),
                       reason="Debian's unbound is not installed"),
    pytest.mark.skipif(REFERENCE, reason="compares this build with "
                       "the reference; UNBOUND_BIN is the reference"),
]


@pytest.fixture(scope="module")
def mod_keys(tmp_path_factory):
    return setup_keys(str(tmp_path_factory.mktemp("keys")))


@pytest.fixture
def mitm(signednet_net):
    """The MITM responder with helpers to relay stripped.sec1. clean or
    to strip the RRSIGs of one name; reset afterwards."""
    m = signednet_net.responders["mitm"]
    up = [a for a in m.spec.rules[0]["actions"] if a["type"] == "proxy"][0]
    proxy = {"type": "proxy", "address": up["address"], "port": up["port"]}

    def relay(bad_name=None):
        rules = []
        if bad_name:
            rules.append({"name": bad_name, "suffix": False,
                          "actions": [dict(proxy, strip=["RRSIG"])]})
        rules.append({"name": "stripped.sec1.", "suffix": True,
                      "actions": [dict(proxy)]})
        m.set_behaviour(rules=rules + list(m.spec.rules[1:]))
    m.relay = relay
    try:
        yield m
    finally:
        m.reset_behaviour()


def ask(srv, name, qtype="A"):
    q = dns.message.make_query(name, qtype, use_edns=0, payload=1232,
                               want_dnssec=True)
    return srv.query(q, timeout=10.0 * SLOW)


def stats(srv, binary=OUR_CTL):
    return stats_dict(ctl(srv.conf, "stats_noreset", binary=binary).stdout)


def upstream(srv, binary=OUR_CTL):
    s = stats(srv, binary)
    return int(s["num.query.udpout"]) + int(s["num.query.tcpout"])


def secure(r):
    return r.rcode() == dns.rcode.NOERROR and bool(r.answer) and \
        bool(r.flags & dns.flags.AD)


def wait_prefetch(srv, name, before, limit, bogus_after=False):
    """Ask name every 0.05 s from a thread of its own until a prefetch
    starts (num.prefetch goes up; each reply meanwhile must be the secure
    cached one); then give the refresh a moment to end. The asking does
    not wait for the (slow, under load) statistics calls, so a hit lands
    in the one-second prefetch window however long those take. With
    bogus_after, the refresh's bogus verdict may land while the thread
    still asks: the replies are then secure ones followed by SERVFAILs."""
    replies, stop_asking = [], threading.Event()

    def asker():
        while not stop_asking.is_set():
            replies.append(ask(srv, name))
            stop_asking.wait(0.05)
    t = threading.Thread(target=asker, daemon=True)
    t.start()
    try:
        t_end = time.time() + limit * SLOW
        while time.time() < t_end:
            if int(stats(srv)["total.num.prefetch"]) > before:
                break
            time.sleep(0.2)
        else:
            raise AssertionError("no prefetch of %s in %.0f s"
                                 % (name, limit * SLOW))
    finally:
        stop_asking.set()
        t.join()
    bad = [i for i, r in enumerate(replies) if not secure(r)]
    if bad and bogus_after:
        assert all(r.rcode() == dns.rcode.SERVFAIL
                   for r in replies[bad[0]:]), replies[bad[0]:]
    else:
        assert not bad, replies[bad[0]]
    time.sleep(0.5 * SLOW)


def poll_servfail(srv, name, limit=10):
    """Ask until SERVFAIL (within limit s); each answer before it must be
    the secure data served expired. The last reply."""
    deadline = time.time() + limit * SLOW
    while True:
        r = ask(srv, name)
        if r.rcode() == dns.rcode.SERVFAIL or time.time() > deadline:
            return r
        assert r.rcode() == dns.rcode.NOERROR and r.answer, r
        time.sleep(0.1)


def test_prefetch_refresh_is_validated(signednet_net, mod_keys, tmp_path,
                                       mitm):
    name = "ok.stripped.sec1."
    mitm.relay()
    ours, ref = start_pair(signednet_net, mod_keys, tmp_path,
                           extra_body="prefetch: yes\ncache-max-ttl: 10\n")
    stop(ref)
    try:
        assert secure(ask(ours, name))
        t0 = time.time()
        # age 9 of 10: the hit starts a refresh of good data
        wait_prefetch(ours, name, 0, 12)
        # past the first entry's TTL: the refreshed (secure) entry
        # answers, nothing is asked upstream
        time.sleep(max(0.0, t0 + 10.5 - time.time()))
        up = upstream(ours)
        r = ask(ours, name)
        assert secure(r), r
        assert upstream(ours) == up
        # now its replacement is bogus: the next prefetch's verdict
        # removes the entry; the client after it gets SERVFAIL
        mitm.relay(bad_name=name)
        wait_prefetch(ours, name, 1, 12, bogus_after=True)
        r = ask(ours, name)
        assert r.rcode() == dns.rcode.SERVFAIL, r
        assert int(stats(ours)["num.answer.bogus"]) >= 1
    finally:
        stop(ours)


@pytest.mark.parametrize("client_timeout", [0, 1500])
def test_expired_not_served_after_bogus(signednet_net, mod_keys, tmp_path,
                                        mitm, client_timeout):
    name = "www.stripped.sec1."
    mitm.relay()
    body = ("serve-expired: yes\ncache-max-ttl: 2\n"
            "serve-expired-client-timeout: %d\n" % client_timeout)
    ours, ref = start_pair(signednet_net, mod_keys, tmp_path,
                           extra_body=body)
    try:
        for s in (ours, ref):
            assert secure(ask(s, name)), s
        mitm.relay(bad_name=name)
        time.sleep(3.2)    # both entries expired
        ra, rb = ask(ours, name), ask(ref, name)
        if client_timeout == 0:
            # RFC 8767: the expired answer at once, a refresh behind it
            for r in (ra, rb):
                assert r.rcode() == dns.rcode.NOERROR and r.answer, r
            # until the refresh behind it ends (the expired answer may
            # come again meanwhile, never anything but it or SERVFAIL)
            ra, rb = poll_servfail(ours, name), poll_servfail(ref, name)
        # the refresh (or the resolution the client waited for) found
        # the answer bogus: SERVFAIL from now on, never the old data
        assert ra.rcode() == dns.rcode.SERVFAIL, ra
        assert rb.rcode() == dns.rcode.SERVFAIL, rb
        time.sleep(0.5)
        assert ask(ours, name).rcode() == dns.rcode.SERVFAIL
        # good again: secure again
        mitm.relay()
        deadline = time.time() + 10
        while not secure(ask(ours, name)):
            assert time.time() < deadline, "no secure answer again"
            time.sleep(0.5)
    finally:
        stop(ours)
        stop(ref)
