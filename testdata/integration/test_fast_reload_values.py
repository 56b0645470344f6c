# SPDX-License-Identifier: BSD-3-Clause
"""The values a worker reads per query or copied at start, each seen
changing in behaviour after fast_reload: Unbound 1.26 sets them at its
swap (config_apply's globals, the new config in place, its workers'
pickup of the outside network and the mesh). Ours, and side by side
Unbound 1.26 when UNBOUND_126 names its binary. One daemon, one upstream
serving the stub zones below. The audit's table: doc/compat.md,
"Reload"."""
import os
import re
import socket
import time

import dns.exception
import dns.flags
import dns.message
import dns.rcode
import dns.rdatatype
import dns.rrset
import pytest

from conftest import (SLOW, FastReloadDaemon, Upstream, _finish,
                      ours_only)

UB126 = os.environ.get("UNBOUND_126")
# v: answers; f: SERVFAIL; ta: a trust anchor its DNSKEY does not match
ZONES = ["v.frlab.", "f.frlab.", "ta.frlab."]
LOCAL = ('local-zone: "ll.frlab." static\n'
         'local-data: "ll.frlab. A 192.0.2.9"\n')
BIG = "".join('local-data: "big.ll.frlab. A 192.0.2.%d"\n' % i
              for i in range(1, 11))
BOGUS_TA = ('trust-anchor: "ta.frlab. DS 12345 8 2 %s"\n' % ("ab" * 32))

pytestmark = ours_only


class ValuesUpstream(Upstream):
    """Per name, by its first label's prefix: cn* a CNAME to another name
    of the zone; se* a 3 s A whose address counts the asks; pf* a 10 s A;
    slow* no answer; in f.frlab. SERVFAIL; an MX with its target's
    address; else a 300 s A with the zone's NS in authority and its
    address in additional."""

    def __init__(self):
        super().__init__()
        self.asks = {}

    def respond(self, q, qname, qtype):
        label = qname.labels[0].decode().lower()
        zone = qname.parent()
        r = dns.message.make_response(q)
        r.flags |= self.FLAGS
        if label.startswith("slow"):
            return None
        if zone.to_text() == "f.frlab.":
            r.set_rcode(dns.rcode.SERVFAIL)
            return r
        if qtype == "MX" and zone.to_text() == "v.frlab.":
            r.answer.append(dns.rrset.from_text(qname, 300, "IN", "MX",
                                                "10 mx.v.frlab."))
            r.additional.append(dns.rrset.from_text(
                "mx.v.frlab.", 300, "IN", "A", "192.0.2.25"))
            return r
        if qtype != "A" or zone.to_text() == "ta.frlab.":
            return r        # NODATA (ANY, the DNSKEY: no signatures)
        if label.startswith("cn"):
            r.answer.append(dns.rrset.from_text(
                qname, 300, "IN", "CNAME", "t-%s.%s" % (label, zone)))
            return r
        ttl, addr = 300, "192.0.2.253"
        if label.startswith("se"):
            n = self.asks[label] = self.asks.get(label, 0) + 1
            ttl, addr = 3, "192.0.2.%d" % n
        elif label.startswith("pf"):
            ttl = 10
        r.answer.append(dns.rrset.from_text(qname, ttl, "IN", "A", addr))
        if ttl == 300:
            ns = "ns.%s" % zone
            r.authority.append(dns.rrset.from_text(zone, 300, "IN", "NS",
                                                   ns))
            r.additional.append(dns.rrset.from_text(ns, 300, "IN", "A",
                                                    self.addr))
        return r

    def payloads(self, name):
        with self.lock:
            return [q.payload for _, n, _, q in self.received
                    if n == name.lower()]


class Daemon(FastReloadDaemon):
    """The daemon, with a control config of its own."""

    zones = ZONES

    def body(self, more=""):
        return ("extended-statistics: yes\nqname-minimisation: no\n" +
                LOCAL + more)


class Ub126Daemon(Daemon):
    binary = UB126 or "/nonexistent"


def start(cls, tmp_path_factory):
    up = ValuesUpstream()
    d = cls(tmp_path_factory.mktemp("frvalues"), up)
    d.start(d.body(), **d.kw())
    return d


# Unbound 1.26's side only where UNBOUND_126 names a build (CI keeps to
# Debian's packages): no param then, rather than a skip.
@pytest.fixture(scope="module",
                params=["ours"] + (["unbound-1.26"] if UB126 else []))
def d(request, tmp_path_factory):
    dm = start(Daemon if request.param == "ours" else Ub126Daemon,
               tmp_path_factory)
    yield dm
    _finish(dm)
    dm.up.close()


COUNTER = [0]


def fresh(prefix="n", zone="v.frlab."):
    """A name not asked before."""
    COUNTER[0] += 1
    return "%s%d.%s" % (prefix, COUNTER[0], zone)


def until(what, cond, limit=10):
    deadline = time.time() + limit * SLOW
    while True:
        v = cond()
        if v:
            return v
        assert time.time() < deadline, what
        time.sleep(0.02)


def test_minimal_responses(d):
    """compat: unbound-1.26: minimal-responses: an MX answer with its
    target's address in additional, or without."""
    for minimal in ("no", "yes", "no"):
        d.fast_reload("minimal-responses: %s\n" % minimal)
        r = d.query(fresh(), "MX", timeout=2 * SLOW)
        assert r.answer, r
        assert bool(r.additional) == (minimal == "no"), r
    d.fast_reload()


def line_of(d, pattern):
    return re.search(pattern, d.log(), re.M)


def logged_only_when_on(d, on, pattern_of, ask=None, base=""):
    """After a fast_reload with `on` a query's line (pattern_of(name))
    is logged; after one without it (base only), not. A line seen for a
    later query shows the log caught up."""
    ask = ask or (lambda n: d.query(n, timeout=2 * SLOW))
    d.fast_reload(base + on)
    a = fresh()
    ask(a)
    until("no line for %s" % a, lambda: line_of(d, pattern_of(a)))
    d.fast_reload(base)
    b = fresh()
    ask(b)
    d.fast_reload(base + on)
    c = fresh()
    ask(c)
    until("no line for %s" % c, lambda: line_of(d, pattern_of(c)))
    assert not line_of(d, pattern_of(b)), b
    d.fast_reload()


def q(name):
    return re.escape(name)


def test_log_queries_and_tag(d):
    """compat: unbound-1.26: log-queries, and log-tag-queryreply's tag
    ("query:" for "info:")."""
    logged_only_when_on(d, "log-queries: yes\n",
                        lambda n: r" info: 127\.0\.0\.1 %s A IN$" % q(n))
    logged_only_when_on(d, "log-queries: yes\nlog-tag-queryreply: yes\n",
                        lambda n: r" query: 127\.0\.0\.1 %s A IN$" % q(n))


def test_log_replies(d):
    """compat: unbound-1.26: log-replies (and its tag)."""
    logged_only_when_on(d, "log-replies: yes\n",
                        lambda n: r" info: 127\.0\.0\.1 %s A IN NOERROR "
                        % q(n))
    logged_only_when_on(d, "log-replies: yes\nlog-tag-queryreply: yes\n",
                        lambda n: r" reply: 127\.0\.0\.1 %s A IN NOERROR "
                        % q(n))


def test_log_servfail(d):
    """compat: unbound-1.26: log-servfail."""
    def ask(n):
        r = d.query(n.replace("v.frlab.", "f.frlab."), timeout=5 * SLOW)
        assert r.rcode() == dns.rcode.SERVFAIL, r
    logged_only_when_on(d, "log-servfail: yes\n",
                        lambda n: r"SERVFAIL <%s A IN>" %
                        q(n.replace("v.frlab.", "f.frlab.")), ask)


def test_log_local_actions(d):
    """compat: unbound-1.26: log-local-actions: a local zone's answer
    logged with the zone's type."""
    def ask(n):
        r = d.query(n.replace("v.frlab.", "ll.frlab."), timeout=2 * SLOW)
        assert r.rcode() == dns.rcode.NXDOMAIN, r
    logged_only_when_on(d, "log-local-actions: yes\n",
                        lambda n: r"ll\.frlab\. static 127\.0\.0\.1@\d+ %s "
                        "A IN" % q(n.replace("v.frlab.", "ll.frlab.")), ask)


def test_val_log_level(d):
    """compat: unbound-1.26: val-log-level 1: a validation failure is
    logged at verbosity 1."""
    def ask(n):
        r = d.query(n.replace("v.frlab.", "ta.frlab."), timeout=5 * SLOW)
        assert r.rcode() == dns.rcode.SERVFAIL, r
    d.fast_reload(BOGUS_TA)   # the anchor's own reload first
    logged_only_when_on(
        d, "val-log-level: 1\n",
        lambda n: r"validation failure %s A IN" %
        q(n.replace("v.frlab.", "ta.frlab.")), ask, BOGUS_TA)


def test_log_time_formats(d):
    """compat: unbound-1.26: log-time-ascii and log-time-iso change the
    stamp of the lines after the reload."""
    def stamp(more):
        d.fast_reload("log-queries: yes\n" + more)
        n = fresh()
        d.query(n, timeout=2 * SLOW)
        return until(n, lambda: line_of(
            d, r"^(.*) unbound\[\d+:\d+\] info: 127\.0\.0\.1 %s A IN$" %
            q(n))).group(1)
    assert re.fullmatch(r"\[\d+\]", stamp(""))
    assert re.fullmatch(r"[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d",
                        stamp("log-time-ascii: yes\n"))
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[-+Z].*",
                        stamp("log-time-ascii: yes\nlog-time-iso: yes\n"))
    assert re.fullmatch(r"\[\d+\]", stamp(""))
    d.fast_reload()


def test_deny_any(d):
    """compat: unbound-1.26: deny-any: NOTIMPL for ANY, or asked."""
    d.fast_reload("deny-any: yes\n")
    assert d.query(fresh(), "ANY").rcode() == dns.rcode.NOTIMP
    d.fast_reload()
    assert d.query(fresh(), "ANY").rcode() == dns.rcode.NOERROR


def test_harden_short_bufsize(d):
    """compat: unbound-1.26: harden-short-bufsize (a spot check of the
    harden-* options): a 100 byte EDNS size is used (a truncated answer)
    or raised to 512."""
    def tc(more):
        d.fast_reload(BIG + more)
        m = dns.message.make_query("big.ll.frlab.", "A", use_edns=0,
                                   payload=100)
        r = d.query(m, timeout=2 * SLOW)
        return bool(r.flags & dns.flags.TC)
    assert tc("harden-short-bufsize: no\n")
    assert not tc("")
    assert tc("harden-short-bufsize: no\n")
    d.fast_reload()


def test_max_global_quota(d):
    """compat: unbound-1.26: max-global-quota: a CNAME's target is a
    second upstream query, over a quota of 1."""
    d.fast_reload("max-global-quota: 1\n")
    assert d.query(fresh("cn"), timeout=5 * SLOW).rcode() == \
        dns.rcode.SERVFAIL
    d.fast_reload()
    r = d.query(fresh("cn"), timeout=5 * SLOW)
    assert r.rcode() == dns.rcode.NOERROR and len(r.answer) == 2, r


def test_edns_buffer_size_upstream(d):
    """compat: unbound-1.26: edns-buffer-size in the upstream queries too
    (its EDNS_ADVERTISED_SIZE; here each worker's outside network)."""
    for size in (1232, 1400):
        d.fast_reload("edns-buffer-size: %d\n" % size)
        for _ in range(4):   # both workers, most likely
            n = fresh()
            d.query(n, timeout=2 * SLOW)
            # the first ask (a retry under load may fall back)
            assert d.up.payloads(n)[0] == size, (size, d.up.payloads(n))
    # reload too (Unbound's builds its outside network anew; its "ok"
    # comes before the reload, which pauses answering: polled; ours
    # answers once the new config is in use)
    d.configure("edns-buffer-size: 1300\n")
    assert d.ctl("reload") == "ok\n"

    def first_payload():
        n = fresh()
        d.query(n, timeout=2 * SLOW)
        return d.up.payloads(n)[0]

    def reloaded():
        try:
            return first_payload() == 1300
        except dns.exception.Timeout:
            return False
    if isinstance(d, Ub126Daemon):
        until("reload: no 1300", reloaded)
    for _ in range(4):
        assert first_payload() == 1300
    d.fast_reload()


def test_do_not_query_address(d):
    """compat: unbound-1.26: do-not-query-address: the upstream's address
    on it, no server is left to ask (its fast_reload swaps the
    iterator's list in; here each worker's outside network takes it)."""
    for _ in range(2):
        d.fast_reload("do-not-query-address: 127.0.0.1\n")
        n = fresh()
        assert d.query(n, timeout=5 * SLOW).rcode() == dns.rcode.SERVFAIL
        assert not d.up.queries(n)
        d.fast_reload()
        assert d.query(fresh(), timeout=5 * SLOW).rcode() == \
            dns.rcode.NOERROR


def test_serve_expired(d):
    """compat: unbound-1.26: serve-expired and serve-expired-reply-ttl:
    an expired answer (its first address), with the reply TTL, then
    with the new one, then (off) the new answer. Unbound 1.26 gives an
    expired answer at most its original TTL (3 s here)."""
    conf = ("serve-expired: yes\nserve-expired-client-timeout: 0\n"
            "serve-expired-reply-ttl: %d\n")
    d.fast_reload(conf % 1)
    names = [fresh("se") for _ in range(3)]
    for n in names:
        r = d.query(n, timeout=2 * SLOW)
        assert r.answer[0][0].to_text() == "192.0.2.1", r
    until("still cached", lambda: not any(
        n in d.ctl("dump_cache") for n in names))

    def answer(n):
        r = d.query(n, timeout=2 * SLOW)
        return r.answer[0].ttl, r.answer[0][0].to_text()
    assert answer(names[0]) == (1, "192.0.2.1")
    d.fast_reload(conf % 2)
    assert answer(names[1]) == (2, "192.0.2.1")
    d.fast_reload()
    assert answer(names[2]) == (3, "192.0.2.2")


def test_prefetch(d):
    """compat: unbound-1.26: prefetch: a hit in the last tenth of a
    10 s TTL asks again in the background, only with prefetch on."""
    d.fast_reload("prefetch: no\n")
    a, b = fresh("pf"), fresh("pf")
    d.query(a, timeout=2 * SLOW)
    d.query(b, timeout=2 * SLOW)
    # a's TTL in its last tenth, asked with prefetch off
    until("%s not in its last second" % a,
          lambda: d.query(a, timeout=2 * SLOW).answer[0].ttl <= 1, 15)
    n0 = d.stat("total.num.prefetch")
    d.fast_reload("prefetch: yes\n")
    r = d.query(b, timeout=2 * SLOW)
    assert r.answer[0].ttl <= 1, r
    until("no prefetch of %s" % b,
          lambda: len(d.up.queries(b)) == 2)
    assert d.stat("total.num.prefetch") == n0 + 1
    assert len(d.up.queries(a)) == 1
    d.fast_reload()


def burst(d, n):
    """n queries nobody answers, sent without waiting."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for _ in range(n):
            s.sendto(dns.message.make_query(fresh("slow"), "A").to_wire(),
                     ("127.0.0.1", d.port))


def test_num_queries_per_thread(d):
    """compat: unbound-1.26: num-queries-per-thread bounds each worker's
    queries in progress (its fast_reload sets the mesh's bounds)."""
    d.fast_reload("num-queries-per-thread: 1\n")
    n0 = d.stat("total.num.queries")
    x0 = d.stat("total.requestlist.exceeded")
    burst(d, 8)
    until("8 queries not counted",
          lambda: d.stat("total.num.queries") >= n0 + 8)
    until("none exceeded",
          lambda: d.stat("total.requestlist.exceeded") > x0)
    d.fast_reload("num-queries-per-thread: 64\n")
    x1 = d.stat("total.requestlist.exceeded")
    n1 = d.stat("total.num.queries")
    burst(d, 8)
    until("8 queries not counted",
          lambda: d.stat("total.num.queries") >= n1 + 8)
    assert d.stat("total.requestlist.exceeded") == x1
    d.fast_reload()


def test_refused_as_unbound(d):
    """compat: unbound-1.26: http-max-streams and harden-large-queries
    are in fast_reload's refusal list (DoH's streams and the listeners'
    buffers take them at start)."""
    d.configure("http-max-streams: 50\nharden-large-queries: yes\n")
    out = d.ctl("fast_reload")
    assert out.endswith("perhaps do reload or restart: "
                        "harden-large-queries http-max-streams\n"), out
    d.fast_reload()
