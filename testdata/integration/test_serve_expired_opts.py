# SPDX-License-Identifier: BSD-3-Clause
"""serve-expired's finer options, side by side with Debian's Unbound 1.17:
serve-expired-ttl-reset (a failed refresh keeps the expired answer
servable for another serve-expired-ttl), ede-serve-expired (EDE 3, "Stale
Answer", on expired answers, with ede: yes) and serve-original-ttl (TTLs
as the upstream sent them, cache-min-ttl and cache-max-ttl not applied).

The upstream (a conftest.Upstream on loopback, the stub server of
"stale.test.") answers with a short TTL; for serve-expired it stops
(REFUSED) after its first answer, so the data goes stale and every
refresh fails."""
import time

import dns.edns
import dns.message
import dns.rcode
import dns.rrset
import pytest

from conftest import RefServer, Server, Upstream, _finish, rcode_of

ZONE = "stale.test."
EDE = 15            # the option code
STALE_ANSWER = 3    # its INFO-CODE


class ShortTTL(Upstream):
    """Answers A with TTL ttl and address addr_a; once stopped, every
    query with REFUSED (a server that no longer serves the zone: the
    refresh fails at once, where a silent one makes it wait for
    timeouts)."""

    def __init__(self, ttl):
        self.ttl = ttl
        self.addr_a = "192.0.2.7"
        self.stopped = False
        super().__init__()

    def respond(self, q, qname, qtype):
        r = dns.message.make_response(q)
        if self.stopped:
            r.set_rcode(dns.rcode.REFUSED)
            return r
        r.flags |= self.FLAGS
        if qtype == "A":
            r.answer.append(dns.rrset.from_text(qname, self.ttl, "IN", "A",
                                                self.addr_a))
        return r


def start(cls, tmp_path_factory, name, body, ttl):
    up = ShortTTL(ttl)
    srv = cls(tmp_path_factory.mktemp(name))
    srv.start(body + 'local-zone: "test." nodefault\ndomain-insecure: "test."\n',
              extra=up.stub_zone(ZONE))
    srv.up = up
    return srv


def ask(srv, name, edns=True, timeout=3.0):
    q = dns.message.make_query(name, "A", use_edns=0 if edns else False,
                               payload=1232)
    return dns.message.from_wire(srv.udp_raw(q.to_wire(), timeout=timeout),
                                 ignore_trailing=True)


def addresses(r):
    return [rd.to_text() for rr in r.answer for rd in rr]


def ede_codes(r):
    return [o.code for o in r.options if o.otype == EDE]


def first_answer_then_stop(srv, name):
    """The fresh answer, then the upstream stopped; returns the time the
    answer came (the daemon stored it then or just before)."""
    r = ask(srv, name)
    got = time.time()
    assert rcode_of(r) == "NOERROR" and addresses(r) == ["192.0.2.7"], r
    assert ede_codes(r) == []
    srv.up.stopped = True
    return got


def poll_stale(srv, name, deadline):
    """Ask until the answer is the expired one (serve-expired-reply-ttl
    17); returns it."""
    while time.time() < deadline:
        r = ask(srv, name)
        if r.answer and r.answer[0].ttl == 17:
            return r
        time.sleep(0.1)
    raise AssertionError("no expired answer by the deadline: %s" % r)


@pytest.fixture(scope="module", params=["ours", "reference"])
def reset_srv(request, tmp_path_factory):
    cls = Server if request.param == "ours" else RefServer
    s = start(cls, tmp_path_factory, "reset" + request.param,
              "serve-expired: yes\nserve-expired-ttl: 2\n"
              "serve-expired-ttl-reset: yes\nserve-expired-reply-ttl: 17\n"
              "ede: yes\nede-serve-expired: yes\n", 1)
    yield s
    _finish(s)
    s.up.close()


def test_stale_answer_has_ede_3_and_failed_refresh_resets_ttl(reset_srv):
    """The expired answer carries EDE 3 when the query had EDNS (none
    without); each failed refresh moves the end of the serve-expired-ttl
    window (2 s) to 2 s from the failure, so the expired answer is
    still served 3 s past the end of the first window (without the reset
    the answer then is SERVFAIL or none)."""
    got = first_answer_then_stop(reset_srv, "www." + ZONE)
    stale = poll_stale(reset_srv, "www." + ZONE, got + 4)
    assert ede_codes(stale) == [STALE_ANSWER], stale
    assert addresses(stale) == ["192.0.2.7"]
    plain = ask(reset_srv, "www." + ZONE, edns=False)
    assert addresses(plain) == ["192.0.2.7"] and plain.edns < 0, plain
    # the first window ends 1 s (TTL) + 2 s after the store
    until = int(got) + 1 + 2 + 3
    while time.time() < until:
        r = ask(reset_srv, "www." + ZONE, timeout=5.0)
        assert rcode_of(r) == "NOERROR" and addresses(r) == ["192.0.2.7"], \
            "%.1f s after the store: %s" % (time.time() - got, r)
        assert r.answer[0].ttl == 17
        time.sleep(0.3)


@pytest.fixture(scope="module", params=["ours", "reference"])
def orig_srv(request, tmp_path_factory):
    cls = Server if request.param == "ours" else RefServer
    s = start(cls, tmp_path_factory, "orig" + request.param,
              "serve-original-ttl: yes\ncache-min-ttl: 100\n", 3)
    yield s
    _finish(s)
    s.up.close()


def test_serve_original_ttl(orig_srv):
    """The TTL stays the upstream's 3 while the answer ages (not lowered
    by the age, not raised to cache-min-ttl 100), and the entry still
    expires after 3 s: the upstream's new address is answered then
    (cache-min-ttl 100 would keep the old one)."""
    name = "www." + ZONE
    r = ask(orig_srv, name)
    got = time.time()
    assert addresses(r) == ["192.0.2.7"] and r.answer[0].ttl == 3, r
    orig_srv.up.addr_a = "192.0.2.8"
    # one second of the daemon's clock later, at least
    time.sleep(max(0.0, int(got) + 1.05 - time.time()))
    aged = ask(orig_srv, name)
    assert addresses(aged) == ["192.0.2.7"] and aged.answer[0].ttl == 3, \
        aged
    deadline = got + 6
    while time.time() < deadline:
        r = ask(orig_srv, name)
        assert r.answer[0].ttl == 3, r
        if addresses(r) == ["192.0.2.8"]:
            return
        time.sleep(0.2)
    raise AssertionError("still the first answer 6 s after it: %s" % r)
