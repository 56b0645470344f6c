# SPDX-License-Identifier: BSD-3-Clause
"""Rate limits on the loopback test internet (testdata/testnet), as Unbound
1.17 has them: ratelimit (queries per second to one zone's servers) under a
random-subdomain attack on bad.tld2. (the scripted responder, which logs
every query it receives with its time), ratelimit-for-domain and
ratelimit-below-domain, and ip-ratelimit under a flood from one source
address while another source is served. unbound-control ratelimit_list
and ip_ratelimit_list show the limited zone and address.

Runs against Debian's Unbound too (UNBOUND_BIN=/usr/sbin/unbound, its
unbound-control): the same attacks, the same assertions.

Rates are measured on the test's own clock: the responder's receive
times (per second) and the attack's own start and end. Nothing is
asserted after a fixed sleep: states are polled for."""
import math
import os
import random
import select
import socket
import string
import subprocess
import sys
import threading
import time

import dns.exception
import dns.message
import dns.rcode
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from testnet import have_nsd  # noqa: E402
from testnet.fixture import testnet_net, net  # noqa: E402,F401
from conftest import (BUILDDIR, REFERENCE, SLOW, control_clause,  # noqa: E402
                      stats_dict)

pytestmark = pytest.mark.skipif(not have_nsd(), reason="nsd is not installed")

CTL = "/usr/sbin/unbound-control" if REFERENCE else \
    os.path.join(BUILDDIR, "unbound-control")
ATTACK_SECS = 3.0


def ctl(srv, *args):
    r = subprocess.run([CTL, "-c", srv.conf] + list(args),
                       capture_output=True, text=True, timeout=10)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def stats(srv):
    return stats_dict(ctl(srv, "stats_noreset"))


def rand_label():
    return "rs" + "".join(random.choice(string.ascii_lowercase +
                                        string.digits) for _ in range(12))


class Flood:
    """UDP queries at rate per second for secs from source to the
    daemon, names from make_name(); replies read as they come. Runs in a
    thread; .sent, .replies (rcode text -> count), .ede (SERVFAILs that
    carried an EDE option), .start and .end (the test's clock)."""

    def __init__(self, srv, make_name, rate, secs, source="127.0.0.1",
                 edns=True):
        self.srv, self.make_name, self.rate, self.secs = \
            srv, make_name, rate, secs
        self.source, self.edns = source, edns
        self.sent = 0
        self.replies = {}
        self.ede = 0
        self.answered = 0
        self.start = self.end = None
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind((self.source, 0))
        s.setblocking(False)
        self.start = time.monotonic()
        stop = self.start + self.secs
        nxt = self.start
        while True:
            now = time.monotonic()
            if now >= stop:
                break
            if now >= nxt:
                q = dns.message.make_query(self.make_name(), "A",
                                           use_edns=0 if self.edns else
                                           False)
                s.sendto(q.to_wire(), ("127.0.0.1", self.srv.port))
                self.sent += 1
                nxt += 1.0 / self.rate
            self.read(s, max(0.0, min(nxt, stop) - time.monotonic()))
        self.end = time.monotonic()
        # the replies still on their way (recursion within its time)
        drain = time.monotonic() + 2.0 * SLOW
        while time.monotonic() < drain:
            self.read(s, 0.1)
        s.close()

    def read(self, s, wait):
        r, _, _ = select.select([s], [], [], wait)
        while r:
            try:
                wire = s.recv(65535)
            except BlockingIOError:
                return
            m = dns.message.from_wire(wire)
            rc = dns.rcode.to_text(m.rcode())
            self.replies[rc] = self.replies.get(rc, 0) + 1
            self.answered += 1
            if rc == "SERVFAIL" and any(o.otype == 15 for o in m.options):
                self.ede += 1

    def __enter__(self):
        self.thread.start()
        while self.start is None:
            time.sleep(0.01)
        return self

    def __exit__(self, *exc):
        self.thread.join()

    def running(self):
        return self.thread.is_alive() and time.monotonic() < \
            self.start + self.secs


def poll_during(flood, check):
    """check() until it returns true while the flood runs; its value."""
    got = None
    while flood.running():
        got = check()
        if got:
            return got
        time.sleep(0.1)
    return got


def upstream_per_second(responder, suffix, prefix="rs"):
    """Queries the responder got for names prefix*.suffix, by second of
    its receive time."""
    per = {}
    for q in responder.queries():
        if q["qname"].lower().endswith(suffix) and \
                q["qname"].lower().startswith(prefix):
            sec = int(math.floor(q["t"]))
            per[sec] = per.get(sec, 0) + 1
    return per


def attack(srv, net, rate=300, secs=ATTACK_SECS, during=None):
    """A random-subdomain attack on bad.tld2.: new names at rate for
    secs. during(flood) runs while it goes on. Returns the flood and
    the responder's per-second counts of the attack's names."""
    bad = net.responder("bad")
    # the delegation is known before the attack: its names go straight
    # to bad.tld2.'s server
    assert dns.rcode.to_text(srv.query("www.bad.tld2.", "A",
                                       timeout=8.0).rcode()) == "NOERROR"
    bad.clear_log()
    with Flood(srv, lambda: rand_label() + ".bad.tld2.", rate, secs) as f:
        extra = during(f) if during else None
    return f, upstream_per_second(bad, ".bad.tld2."), extra


def assert_limited(f, per, limit, slack):
    """At most limit per second in every second of the responder's clock
    (slack: queries counted in one second of the daemon's clock that
    arrive in the next), at most limit per second over the attack's
    seconds in all, and the limit was what bound: a second near it."""
    seconds = math.ceil(f.end - f.start) + 1
    total = sum(per.values())
    assert f.sent > 3 * limit * (f.end - f.start), f.sent
    assert per, "no upstream queries at all"
    assert max(per.values()) <= limit + slack, per
    assert total <= limit * seconds + slack, (total, per)
    assert max(per.values()) >= limit * 0.6, per


def test_ratelimit_random_subdomain_attack(unbound, net, tmp_path):
    """ratelimit: 20, factor 0: upstream queries to bad.tld2.'s server
    stay at 20 a second while the client sends 300 new names a second;
    the rest get SERVFAIL without an EDE (ede: yes; as Unbound); another
    zone still resolves meanwhile; ratelimit_list names bad.tld2.;
    num.query.ratelimited counts the SERVFAILs."""
    unbound.start("ratelimit: 20\nratelimit-factor: 0\nede: yes\n"
                  "extended-statistics: yes",
                  extra=control_clause(tmp_path / "ctl.sock"),
                  root_hints=net.root_hints)

    def during(f):
        listed = poll_during(f, lambda: [
            l for l in ctl(unbound, "ratelimit_list").splitlines()
            if l.startswith("bad.tld2. ")])
        other = unbound.query("www.example.tld1.", "A", timeout=5.0,
                              source="127.0.0.2")
        return listed, other

    f, per, (listed, other) = attack(unbound, net, during=during)
    assert_limited(f, per, 20, 6)
    assert f.replies.get("SERVFAIL", 0) > f.sent / 2, f.replies
    assert f.ede == 0
    assert f.replies.get("NXDOMAIN", 0) >= 20, f.replies
    assert dns.rcode.to_text(other.rcode()) == "NOERROR"
    assert [rd.to_text() for rr in other.answer for rd in rr] == \
        ["192.0.2.10"]
    # "bad.tld2. 300 limit 20", as Unbound prints it
    assert listed, "bad.tld2. never listed"
    name, rate, word, lim = listed[0].split()
    assert word == "limit" and lim == "20" and int(rate) >= 20, listed
    # +a lists zones under the limit too (the root, tld2.)
    assert "tld2. " in ctl(unbound, "ratelimit_list", "+a")
    st = stats(unbound)
    assert int(st["num.query.ratelimited"]) >= f.replies["SERVFAIL"] - 2
    assert int(st["num.query.ratelimited"]) <= f.sent


def test_ratelimit_below_domain(unbound, net, tmp_path):
    """ratelimit-below-domain: tld2. 10 limits bad.tld2. (below it) to
    10 while ratelimit: 1000 is the default."""
    unbound.start("ratelimit: 1000\nratelimit-factor: 0\n"
                  "ratelimit-below-domain: tld2. 10",
                  extra=control_clause(tmp_path / "ctl.sock"),
                  root_hints=net.root_hints)
    f, per, _ = attack(unbound, net, rate=200)
    assert_limited(f, per, 10, 4)


def test_ratelimit_for_domain_overrides(unbound, net, tmp_path):
    """ratelimit: 5 with ratelimit-for-domain: bad.tld2. 30: the zone
    gets its own, higher limit (over 5 a second goes through), and
    ratelimit_list shows that limit."""
    unbound.start("ratelimit: 5\nratelimit-factor: 0\n"
                  "ratelimit-for-domain: bad.tld2. 30",
                  extra=control_clause(tmp_path / "ctl.sock"),
                  root_hints=net.root_hints)

    def during(f):
        return poll_during(f, lambda: [
            l for l in ctl(unbound, "ratelimit_list").splitlines()
            if l.startswith("bad.tld2. ")])

    f, per, listed = attack(unbound, net, rate=300, during=during)
    assert_limited(f, per, 30, 8)
    assert listed and listed[0].endswith(" limit 30"), listed


def test_ip_ratelimit_flood_one_source(unbound, net, tmp_path):
    """ip-ratelimit: 10, factor 0: a flood of cache hits from 127.0.0.1
    is cut to 10 answers a second (the rest dropped, counted in
    num.queries_ip_ratelimited), while 127.0.0.2 is answered at once;
    ip_ratelimit_list names 127.0.0.1 only, +a both."""
    unbound.start("ip-ratelimit: 10\nip-ratelimit-factor: 0",
                  extra=control_clause(tmp_path / "ctl.sock"),
                  root_hints=net.root_hints)
    # in the cache, asked from the other source
    r = unbound.query("www.bad.tld2.", "A", timeout=8.0, source="127.0.0.2")
    assert dns.rcode.to_text(r.rcode()) == "NOERROR"
    before = int(stats(unbound)["total.num.queries_ip_ratelimited"])

    def during(f):
        listed = poll_during(f, lambda: [
            l for l in ctl(unbound, "ip_ratelimit_list").splitlines()
            if l.startswith("127.0.0.1 ")])
        other = unbound.query("www.bad.tld2.", "A", timeout=1.0,
                              source="127.0.0.2")
        full = ctl(unbound, "ip_ratelimit_list")
        return listed, other, full

    with Flood(unbound, lambda: "www.bad.tld2.", 200, 2.0) as f:
        listed, other, full = during(f)
    secs = math.ceil(f.end - f.start) + 1
    assert f.sent > 300
    assert 10 <= f.answered <= 10 * secs, (f.answered, f.sent)
    assert f.replies == {"NOERROR": f.answered}
    assert dns.rcode.to_text(other.rcode()) == "NOERROR"
    assert listed, "127.0.0.1 never listed"
    addr, rate, word, lim = listed[0].split()
    # listed once its rate reaches the limit (as Unbound: max >= limit)
    assert word == "limit" and lim == "10" and int(rate) >= 10, listed
    assert "127.0.0.2 " not in full
    assert "127.0.0.2 " in ctl(unbound, "ip_ratelimit_list", "+a")
    dropped = int(stats(unbound)["total.num.queries_ip_ratelimited"]) - \
        before
    assert dropped == f.sent - f.answered, (dropped, f.sent, f.answered)


def test_ip_ratelimit_off_lists_nothing(unbound, net, tmp_path):
    """ip-ratelimit: 0 (the default): no query is dropped and the lists
    are empty (Unbound prints nothing)."""
    unbound.start("", extra=control_clause(tmp_path / "ctl.sock"),
                  root_hints=net.root_hints)
    unbound.query("www.bad.tld2.", "A", timeout=8.0)
    with Flood(unbound, lambda: "www.bad.tld2.", 200, 1.0) as f:
        pass
    assert f.answered == f.sent
    assert ctl(unbound, "ip_ratelimit_list") == ""
    assert ctl(unbound, "ratelimit_list") == ""


def test_ratelimit_backoff(unbound, net, tmp_path):
    """ratelimit: 20, factor 0, ratelimit-backoff: yes: under the attack
    the rate is the larger count of this second and the one before, and
    the queries held back count too, so once bad.tld2. went over the
    limit it stays limited while the attack lasts: at most about two
    seconds' worth of upstream queries in 4 s (without backoff 20 a
    second get through: about 100). After the attack it is asked again
    once its count dropped (polled for)."""
    unbound.start("ratelimit: 20\nratelimit-factor: 0\n"
                  "ratelimit-backoff: yes", extra=control_clause(tmp_path / "ctl.sock"),
                  root_hints=net.root_hints)
    f, per, _ = attack(unbound, net, rate=300, secs=4.0)
    total = sum(per.values())
    assert f.sent > 600, f.sent
    assert 10 <= total <= 2 * 20 + 6, (total, per)
    deadline = time.monotonic() + 6.0 * SLOW
    while True:
        r = unbound.query(rand_label() + ".bad.tld2.", "A", timeout=2.0)
        if dns.rcode.to_text(r.rcode()) == "NXDOMAIN":
            break
        assert time.monotonic() < deadline, "bad.tld2. still limited"
        time.sleep(0.2)


def test_ip_ratelimit_backoff(unbound, net, tmp_path):
    """ip-ratelimit: 10, factor 0, ip-ratelimit-backoff: yes: a flood
    from 127.0.0.1 is cut off once over the limit and stays cut off
    while it lasts (the dropped queries count: at most about two
    seconds' worth answered in 3 s; without backoff 10 a second); after
    it stops the address is answered again (polled for)."""
    unbound.start("ip-ratelimit: 10\nip-ratelimit-factor: 0\n"
                  "ip-ratelimit-backoff: yes",
                  extra=control_clause(tmp_path / "ctl.sock"),
                  root_hints=net.root_hints)
    r = unbound.query("www.bad.tld2.", "A", timeout=8.0, source="127.0.0.2")
    assert dns.rcode.to_text(r.rcode()) == "NOERROR"
    with Flood(unbound, lambda: "www.bad.tld2.", 200, 3.0) as f:
        pass
    assert f.sent > 400, f.sent
    assert 5 <= f.answered <= 2 * 10 + 2, (f.answered, f.sent)
    deadline = time.monotonic() + 6.0 * SLOW
    while True:
        try:
            r = unbound.query("www.bad.tld2.", "A", timeout=0.5)
            break
        except dns.exception.Timeout:
            assert time.monotonic() < deadline, "127.0.0.1 still limited"
    assert dns.rcode.to_text(r.rcode()) == "NOERROR"


def test_ratelimit_factor_lets_some_through(unbound, net, tmp_path):
    """ratelimit: 20, ratelimit-factor: 5: of the attack's queries over
    the limit about one in 5 still goes upstream (so the zone keeps some
    answers coming), where factor 0 (the tests above) lets none: at
    300 new names a second, about 20 + 280 / 5 = 76 a second."""
    unbound.start("ratelimit: 20\nratelimit-factor: 5",
                  extra=control_clause(tmp_path / "ctl.sock"),
                  root_hints=net.root_hints)
    f, per, _ = attack(unbound, net, rate=300)
    secs = f.end - f.start
    over = max(0.0, f.sent - 20 * secs)
    total = sum(per.values())
    # one in 5 of those over the limit (random in Unbound: wide bounds)
    assert 20 * (secs - 1) + over / 5 * 0.5 <= total, (total, f.sent, per)
    assert total <= 20 * (secs + 1) + over / 5 * 1.6, (total, f.sent, per)


def test_ip_ratelimit_factor_answers_some(unbound, net, tmp_path):
    """ip-ratelimit: 10, ip-ratelimit-factor: 4: a flood from one
    address gets its 10 a second and about one in 4 of the rest."""
    unbound.start("ip-ratelimit: 10\nip-ratelimit-factor: 4",
                  extra=control_clause(tmp_path / "ctl.sock"),
                  root_hints=net.root_hints)
    r = unbound.query("www.bad.tld2.", "A", timeout=8.0, source="127.0.0.2")
    assert dns.rcode.to_text(r.rcode()) == "NOERROR"
    with Flood(unbound, lambda: "www.bad.tld2.", 200, 2.0) as f:
        pass
    secs = f.end - f.start
    over = max(0.0, f.sent - 10 * secs)
    assert 10 * (secs - 1) + over / 4 * 0.5 <= f.answered, (f.answered,
                                                             f.sent)
    assert f.answered <= 10 * (secs + 1) + over / 4 * 1.6, (f.answered,
                                                            f.sent)
