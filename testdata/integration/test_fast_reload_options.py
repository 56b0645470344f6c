# SPDX-License-Identifier: BSD-3-Clause
"""The options Unbound 1.23's fast_reload applies to the running caches
(its fr_adjust_cache, fr_adjust_infra and config_apply's globals), here
with fast_reload and with reload and SIGHUP too: cache-max-ttl,
cache-min-ttl and cache-max-negative-ttl bound what is stored after the
reload; infra-cache-numhosts and ratelimit-size bound the kept tables in
place (a smaller bound evicts at once, a larger one lets them grow);
ip-ratelimit-size makes a new table (a same size keeps the counts). One
daemon for the file, one upstream serving 20 stub zones. The TTL bounds
side by side with Unbound 1.26 when UNBOUND_126 names its binary (Debian's
1.17 has no fast_reload)."""
import os
import time

import dns.message
import dns.rcode
import dns.rrset
import pytest

from conftest import SLOW, FastReloadDaemon, Upstream, _finish, ours_only

UB126 = os.environ.get("UNBOUND_126")
ZONES = ["z%d.frlab." % i for i in range(20)]

pytestmark = ours_only


class SoaUpstream(Upstream):
    """A 300 s A for every name; TXT: NODATA with an SOA of TTL and
    MINIMUM 3600 (a negative answer the daemon caches)."""

    def respond(self, q, qname, qtype):
        r = super().respond(q, qname, qtype)
        if qtype == "TXT":
            zone = qname.parent()
            r.authority.append(dns.rrset.from_text(
                zone, 3600, "IN", "SOA",
                "ns.%s h.%s 1 3600 600 86400 3600" % (zone, zone)))
        return r


class Daemon(FastReloadDaemon):
    """The daemon, with a control config of its own."""

    zones = ZONES

    def body(self, more=""):
        # ratelimit on (counted), far above what the tests send; slabs
        # fixed here (a slab change waits for a restart)
        return ("extended-statistics: yes\nqname-minimisation: no\n"
                "ratelimit: 100000\nratelimit-slabs: 1\n"
                "ip-ratelimit: 100000\n" + more)


class Ub126Daemon(Daemon):
    binary = UB126 or "/nonexistent"


def start(cls, tmp_path_factory):
    up = SoaUpstream()
    d = cls(tmp_path_factory.mktemp("froptions"), up)
    d.start(d.body(), **d.kw())
    return d


def finish(d):
    _finish(d)
    d.up.close()


@pytest.fixture(scope="module")
def daemon(tmp_path_factory):
    d = start(Daemon, tmp_path_factory)
    yield d
    finish(d)


# Unbound 1.26's side only where UNBOUND_126 names a build (CI keeps to
# Debian's packages): no param then, rather than a skip.
@pytest.fixture(scope="module",
                params=["ours"] + (["unbound-1.26"] if UB126 else []))
def either(request, daemon, tmp_path_factory):
    if request.param == "ours":
        yield daemon
        return
    d = start(Ub126Daemon, tmp_path_factory)
    yield d
    finish(d)


COUNTER = [0]


def fresh(zone="z0.frlab."):
    """A name not asked before (so its answer is stored now)."""
    COUNTER[0] += 1
    return "n%d.%s" % (COUNTER[0], zone)


def answer_ttl(d, rdtype="A", zone="z0.frlab."):
    """The TTL of a new answer: the A, or a NODATA's SOA (give each a
    zone of its own: a cached SOA RRset of the zone is kept by Unbound's
    RRset cache, with its TTL)."""
    r = d.query(fresh(zone), rdtype, timeout=2 * SLOW)
    assert r.rcode() == dns.rcode.NOERROR, r
    rrs = r.answer if rdtype == "A" else r.authority
    assert rrs, r
    return rrs[0].ttl


def test_cache_ttl_bounds_with_fast_reload(either):
    """compat: unbound-1.23: a new answer after the fast_reload has the
    new cache-max-ttl, cache-min-ttl and cache-max-negative-ttl."""
    daemon = either
    daemon.fast_reload()
    assert answer_ttl(daemon) == 300
    assert answer_ttl(daemon, "TXT", "z1.frlab.") == 3600
    daemon.fast_reload("cache-max-ttl: 100\n")
    assert 95 <= answer_ttl(daemon) <= 100
    daemon.fast_reload("cache-min-ttl: 1000\n")
    assert answer_ttl(daemon) >= 995
    daemon.fast_reload("cache-max-negative-ttl: 7\n")
    assert 0 < answer_ttl(daemon, "TXT", "z2.frlab.") <= 7
    assert answer_ttl(daemon) == 300
    daemon.fast_reload()
    assert answer_ttl(daemon, "TXT", "z3.frlab.") == 3600


def test_cache_ttl_bounds_with_reload_and_sighup(daemon):
    """Unbound's reload makes new caches with the new bounds; here the
    kept caches take them."""
    daemon.configure("cache-max-ttl: 50\n")
    assert daemon.ctl("reload") == "ok\n"
    assert 45 <= answer_ttl(daemon) <= 50
    daemon.configure("cache-max-ttl: 40\n")
    n = daemon.log().count("service reloaded")
    daemon.send_signal(1)
    deadline = time.time() + 10 * SLOW
    while daemon.log().count("service reloaded") == n:
        assert time.time() < deadline, "no reload after SIGHUP"
        time.sleep(0.02)
    assert 35 <= answer_ttl(daemon) <= 40
    daemon.fast_reload()
    assert answer_ttl(daemon) == 300


def ask_every_zone(d):
    for z in ZONES:
        r = d.query(fresh(z), timeout=2 * SLOW)
        assert r.rcode() == dns.rcode.NOERROR, r


def test_infra_cache_numhosts(either):
    """compat: unbound-1.23: a smaller infra-cache-numhosts evicts at
    once, a larger one lets the cache hold more servers again."""
    daemon = either
    daemon.fast_reload()
    ask_every_zone(daemon)
    assert daemon.stat("infra.cache.count") >= len(ZONES)
    daemon.fast_reload("infra-cache-numhosts: 4\n")
    assert daemon.ctl("get_option", "infra-cache-numhosts") == "4\n"
    assert daemon.stat("infra.cache.count") <= 4
    ask_every_zone(daemon)
    assert daemon.stat("infra.cache.count") <= 4
    daemon.fast_reload()
    ask_every_zone(daemon)
    assert daemon.stat("infra.cache.count") >= len(ZONES)
    # reload applies it as well
    daemon.configure("infra-cache-numhosts: 4\n")
    assert daemon.ctl("reload") == "ok\n"
    assert daemon.stat("infra.cache.count") <= 4
    daemon.fast_reload()


def zones_listed(d):
    return len([l for l in d.ctl("ratelimit_list", "+a").splitlines()
                if "frlab." in l])


def test_ratelimit_size(either):
    """compat: unbound-1.23: ratelimit-size bounds the zone rate table
    in place."""
    daemon = either
    small = "ratelimit-size: 2k\n"
    daemon.fast_reload(small)
    ask_every_zone(daemon)
    few = zones_listed(daemon)
    assert few < len(ZONES)
    daemon.fast_reload()
    ask_every_zone(daemon)
    assert zones_listed(daemon) == len(ZONES)
    daemon.fast_reload(small)
    assert zones_listed(daemon) <= few


def clients_listed(d):
    return len([l for l in d.ctl("ip_ratelimit_list", "+a").splitlines()
                if l.startswith("127.0.1.")])


def ask_from_clients(d):
    for i in range(1, 21):
        r = d.query("fr.z0.frlab.", source="127.0.1.%d" % i,
                    timeout=2 * SLOW)
        assert r.rcode() != dns.rcode.REFUSED, r


def test_ip_ratelimit_size(daemon):
    """compat: unbound-1.23: a new ip-ratelimit-size is a new table
    (built aside, the counts start over); the same size keeps it."""
    daemon.fast_reload("ip-ratelimit-size: 64\n")
    ask_from_clients(daemon)
    assert 0 < clients_listed(daemon) <= 2
    daemon.fast_reload()
    assert clients_listed(daemon) == 0
    ask_from_clients(daemon)
    assert clients_listed(daemon) == 20
    # another change, the same size: the table and its counts stay
    daemon.fast_reload("cache-max-ttl: 86401\n")
    assert clients_listed(daemon) == 20
    daemon.configure("ip-ratelimit-size: 64\n")
    assert daemon.ctl("reload") == "ok\n"
    assert clients_listed(daemon) == 0
    daemon.fast_reload()


def test_fast_reload_refuses_unbound_126_names(daemon):
    """compat: unbound-1.26: the options fr_check_compat_cfg refuses,
    in its order."""
    daemon.configure("edns-tcp-keepalive: yes\n"
                     "edns-tcp-keepalive-timeout: 1234\n"
                     "udp-upstream-without-downstream: yes\n"
                     "interface-automatic-ports: \"53\"\n")
    out = daemon.ctl("fast_reload")
    assert out.endswith(
        "perhaps do reload or restart: edns-tcp-keepalive "
        "edns-tcp-keepalive-timeout interface-automatic-ports "
        "udp-upstream-without-downstream\n"), out
    daemon.fast_reload()


RR_DATA = "".join('local-data: "rr.frlab. A 192.0.2.%d"\n' % i
                  for i in (1, 2, 3))


def rr_replies(d, n=6):
    """The EDNS payloads and the answer orders of n asks of rr.frlab."""
    payloads, orders = set(), set()
    for _ in range(n):
        q = dns.message.make_query("rr.frlab.", "A", use_edns=0,
                                   payload=4096)
        r = d.query(q, timeout=2 * SLOW)
        payloads.add(r.payload)
        orders.add(tuple(str(x) for x in r.answer[0]))
    return payloads, orders


def test_process_wide_values_with_fast_reload(either):
    """compat: unbound-1.23: fast_reload applies the values the workers
    read per query (Unbound's config_apply): edns-buffer-size in the
    reply's OPT, rrset-roundrobin in the answer's order."""
    d = either
    d.fast_reload(RR_DATA + "edns-buffer-size: 1232\n"
                  "rrset-roundrobin: no\n")
    payloads, orders = rr_replies(d)
    assert payloads == {1232}
    assert len(orders) == 1, orders
    d.fast_reload(RR_DATA + "edns-buffer-size: 1400\n"
                  "rrset-roundrobin: yes\n")
    payloads, orders = rr_replies(d)
    assert payloads == {1400}
    assert len(orders) > 1, orders
    d.fast_reload()
