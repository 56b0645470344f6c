# SPDX-License-Identifier: BSD-3-Clause
"""Cache control commands: dump_cache / load_cache (Unbound's text
format, our client and Debian's, our dump into Debian's Unbound and
Debian's dump into ours), malformed dumps, reload and reload
+keep-cache (no query lost, cache kept or dropped), dump_infra,
flush_infra, dump_requestlist. Everything on loopback, through the
test internet where recursion is needed."""
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

import dns.message
import dns.rcode
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)
from testnet.fixture import testnet_net  # noqa: E402,F401

from conftest import SLOW, free_port, make_query, ours_only, rss_kib  # noqa
from test_control import (CLIENTS, DEB_CTL, DEB_UNBOUND, OUR_CTL,  # noqa
                          RefServer, ctl, keys, rc_clause, start_tls,
                          stats_dict)

pytestmark = ours_only

# answers that fit UDP, positive and negative, CNAME and DNAME chains,
# out-of-bailiwick delegations
NAMES = [("www.example.tld1.", "A"), ("www.example.tld1.", "AAAA"),
         ("www.example.tld1.", "TXT"), ("example.tld1.", "MX"),
         ("txtonly.example.tld1.", "A"), ("nonexistent.example.tld1.", "A"),
         ("foo.wild.example.tld1.", "A"), ("www.example.tld2.", "A"),
         ("chain.example.tld1.", "A"), ("cname-nx.example.tld1.", "A"),
         ("www.dname.example.tld1.", "A"), ("www.sub.example.tld1.", "A")]
# in a dump from Debian's Unbound a negative answer's SOA is keyed with
# a flag its own load does not restore, so those are not checked there
POSITIVE = [n for n in NAMES if n[0] not in (
    "txtonly.example.tld1.", "nonexistent.example.tld1.",
    "cname-nx.example.tld1.")]


def need_net(net):
    if not net.iterable:
        pytest.skip("test internet not on port 53 (needs root)")


def case_of(net, name, qtype):
    for c in net.expected:
        if c.qname == name and c.qtype == qtype:
            return c
    raise KeyError((name, qtype))


def check_answers(srv, net, names):
    for name, qtype in names:
        r = srv.query(name, qtype, timeout=8)
        bad = case_of(net, name, qtype).mismatch(r)
        assert bad is None, bad


def dump(srv, binary=OUR_CTL):
    r = ctl(srv.conf, "dump_cache", binary=binary)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def load(srv, text, binary=OUR_CTL):
    return subprocess.run([binary, "-c", srv.conf, "load_cache"],
                          input=text, capture_output=True, text=True,
                          timeout=20)


RRSET_RE = re.compile(r";rrset( nsec_apex)? \d+ \d+ \d+ \d+ \d+")
MSG_RE = re.compile(r"msg \S+ \S+ \S+ \d+ 1 \d+ \d+ \d+ \d+ \d+")
REF_RE = re.compile(r"\S+ \S+ \S+ \d+")


def check_format(text):
    """The dump's structure, as Unbound's cachedump.c writes it."""
    lines = text.split("\n")
    assert lines[-1] == "" and lines[-2] == "EOF", lines[-3:]
    assert lines[0] == "START_RRSET_CACHE"
    end = lines.index("END_RRSET_CACHE")
    assert lines[end + 1] == "START_MSG_CACHE"
    assert lines[-3] == "END_MSG_CACHE"
    i = 1
    while i < end:
        m = RRSET_RE.fullmatch(lines[i])
        assert m, lines[i]
        n = int(lines[i].split()[-4]) + int(lines[i].split()[-3])
        for rr in lines[i + 1:i + 1 + n]:
            assert not rr.startswith(";") and len(rr.split("\t")) >= 5, rr
        i += 1 + n
    i = end + 2
    msgs = 0
    while i < len(lines) - 3:
        assert MSG_RE.fullmatch(lines[i]), lines[i]
        f = lines[i].split()
        n = int(f[-1]) + int(f[-2]) + int(f[-3])
        for ref in lines[i + 1:i + 1 + n]:
            assert REF_RE.fullmatch(ref), ref
        i += 1 + n
        msgs += 1
    return msgs


def cache_hits(srv, net, names):
    """The names answered from the cache (right answers checked)."""
    hits = set()
    ctl(srv.conf, "stats")
    for name, qtype in names:
        r = srv.query(name, qtype, timeout=8)
        bad = case_of(net, name, qtype).mismatch(r)
        assert bad is None, bad
        s = stats_dict(ctl(srv.conf, "stats").stdout)
        if s["total.num.cachehits"] == "1":
            hits.add((name, qtype))
        else:
            assert s["total.num.cachemiss"] == "1", s
    return hits


def warm(srv, net, names=NAMES):
    for name, qtype in names:
        srv.query(name, qtype, timeout=8)


def restart_empty(srv, keys, net):
    assert srv.stop() == 0
    start_tls(srv, keys, root_hints=net.root_hints,
              body="extended-statistics: yes")
    s = stats_dict(ctl(srv.conf, "stats").stdout)
    assert s["msg.cache.count"] == "0" and s["rrset.cache.count"] == "0"


def test_dump_and_load_into_a_new_daemon(unbound, keys, testnet_net):
    """Resolve, dump, stop, start a new daemon, load: the same questions
    are answered from the cache (no miss, no upstream query) with the
    same data, loaded by our client and by Debian's."""
    net = testnet_net
    need_net(net)
    start_tls(unbound, keys, root_hints=net.root_hints,
              body="extended-statistics: yes")
    warm(unbound, net)
    # a reply with a TTL of 0 (the DNAME's synthesized CNAME from NSD)
    # is not cached, by Unbound either: compare with what was a hit here
    hits = cache_hits(unbound, net, NAMES)
    assert len(hits) >= len(NAMES) - 1, hits
    text = dump(unbound)
    assert check_format(text) >= len(NAMES)
    # security 2, indeterminate: validated ("validator iterator", the
    # default) with no trust anchor for the name, as Debian's Unbound
    # writes it
    assert re.search(r"^msg www\.example\.tld1\. IN A 32896 1 \d+ 2 1 0 0$",
                     text, re.M), text
    assert re.search(r"^www\.example\.tld1\.\t\d+\tIN\tA\t192\.0\.2\.10$",
                     text, re.M), text
    for binary in CLIENTS:
        restart_empty(unbound, keys, net)
        r = load(unbound, text, binary)
        assert r.returncode == 0 and r.stdout == "ok\n", (binary, r.stdout,
                                                          r.stderr)
        assert cache_hits(unbound, net, NAMES) == hits, binary
        # what was loaded dumps the same questions again
        again = dump(unbound)
        assert sorted(l.split()[1:4] for l in again.splitlines()
                      if l.startswith("msg ")) == sorted(
            l.split()[1:4] for l in text.splitlines() if l.startswith("msg "))


def test_load_counts_ttls_from_now(unbound, keys, testnet_net):
    """A TTL in the dump is the time left when it is loaded."""
    net = testnet_net
    need_net(net)
    start_tls(unbound, keys, root_hints=net.root_hints)
    text = ("START_RRSET_CACHE\n;rrset 77 1 0 8 0\n"
            "loaded.example.tld1.\t77\tIN\tA\t192.0.2.77\n"
            "END_RRSET_CACHE\nSTART_MSG_CACHE\n"
            "msg loaded.example.tld1. IN A 32896 1 77 0 1 0 0\n"
            "loaded.example.tld1. IN A 0\nEND_MSG_CACHE\nEOF\n")
    r = load(unbound, text)
    assert r.stdout == "ok\n", r.stdout + r.stderr
    reply = unbound.query("loaded.example.tld1.", "A")
    assert reply.rcode() == dns.rcode.NOERROR
    assert reply.answer[0][0].address == "192.0.2.77"
    assert 70 <= reply.answer[0].ttl <= 77
    out = dump(unbound)
    assert re.search(r"^;rrset (7\d) 1 0 8 0\nloaded\.example\.tld1\.\t\1\t"
                     r"IN\tA\t192\.0\.2\.77$", out, re.M), out


BAD_DUMPS = [
    ("EOF\n", "nothing but EOF"),
    ("garbage\nEOF\n", "no START_RRSET_CACHE"),
    ("START_RRSET_CACHE\n;rrset 60 3 0 8 0\nbad.tld1.\t60\tIN\tA\t"
     "192.0.2.1\nEOF\n", "cut in an rrset"),
    ("START_RRSET_CACHE\n;rrset 60 2 0 8 0\nbad.tld1.\t60\tIN\tA\t"
     "192.0.2.1\nbad.tld1.\t60\tIN\tAAAA\t::1\nEND_RRSET_CACHE\n"
     "START_MSG_CACHE\nEND_MSG_CACHE\nEOF\n", "mixed types in a set"),
    ("START_RRSET_CACHE\n;rrset 60 2 0 8 0\nbad.tld1.\t60\tIN\tA\t"
     "192.0.2.1\nother.tld1.\t60\tIN\tA\t192.0.2.2\nEND_RRSET_CACHE\n"
     "START_MSG_CACHE\nEND_MSG_CACHE\nEOF\n", "mixed owners in a set"),
    ("START_RRSET_CACHE\n;rrset 60 1 1 8 0\nbad.tld1.\t60\tIN\tA\t"
     "192.0.2.1\nbad.tld1.\t60\tIN\tA\t192.0.2.2\nEND_RRSET_CACHE\n"
     "START_MSG_CACHE\nEND_MSG_CACHE\nEOF\n", "RRSIG expected"),
    ("START_RRSET_CACHE\n;rrset 60 1 0 8 0\nbad.tld1.\t60\tIN\tA\t"
     "not-an-address\nEND_RRSET_CACHE\nSTART_MSG_CACHE\nEND_MSG_CACHE\n"
     "EOF\n", "bad rdata"),
    ("START_RRSET_CACHE\n;rrset 60 4000000000 0 8 0\nEND_RRSET_CACHE\n"
     "EOF\n", "huge count"),
    ("START_RRSET_CACHE\n;rrset 60 0 0 8 0\nEND_RRSET_CACHE\n"
     "START_MSG_CACHE\nEND_MSG_CACHE\nEOF\n", "empty rrset"),
    ("START_RRSET_CACHE\n;rrset x 1 0 8 0\nbad.tld1.\t60\tIN\tA\t"
     "192.0.2.1\nEND_RRSET_CACHE\nSTART_MSG_CACHE\nEND_MSG_CACHE\nEOF\n",
     "bad ttl"),
    ("START_RRSET_CACHE\n;rrset 60 1 0 99 0\nbad.tld1.\t60\tIN\tA\t"
     "192.0.2.1\nEND_RRSET_CACHE\nSTART_MSG_CACHE\nEND_MSG_CACHE\nEOF\n",
     "bad trust"),
    ("START_RRSET_CACHE\nEND_RRSET_CACHE\nSTART_MSG_CACHE\n"
     "msg bad.tld1. IN A 32896 1 60 0 65535 65535 65535\nEND_MSG_CACHE\n"
     "EOF\n", "huge reference counts"),
    ("START_RRSET_CACHE\nEND_RRSET_CACHE\nSTART_MSG_CACHE\n"
     "msg bad..tld1. IN A 32896 1 60 0 0 0 0\nEND_MSG_CACHE\nEOF\n",
     "bad name"),
    ("START_RRSET_CACHE\nEND_RRSET_CACHE\nSTART_MSG_CACHE\n"
     "msg bad.tld1. IN NOSUCHTYPE 32896 1 60 0 0 0 0\nEND_MSG_CACHE\n"
     "EOF\n", "bad type"),
    ("START_RRSET_CACHE\nEND_RRSET_CACHE\nSTART_MSG_CACHE\n"
     "msg bad.tld1. IN A 32896 1 60 0 1 0 0\nbad.tld1. IN\nEND_MSG_CACHE\n"
     "EOF\n", "short reference"),
    ("START_RRSET_CACHE\nEND_RRSET_CACHE\nSTART_MSG_CACHE\nEND_MSG_CACHE\n"
     "trailing\nEOF\n", "junk before EOF"),
    ("START_RRSET_CACHE\n;rrset 60 1 0 8 0\n" + "x" * 70000 + "\n"
     "END_RRSET_CACHE\nSTART_MSG_CACHE\nEND_MSG_CACHE\nEOF\n",
     "line too long"),
]
GOOD_RRSET = ";rrset 300 1 0 8 0\ngood.tld1.\t300\tIN\tA\t192.0.2.1\n"


def test_malformed_dumps_change_nothing(unbound, keys):
    """Every malformed dump gets "error load failed" and stores nothing,
    not even a good entry before the error; the daemon serves on."""
    start_tls(unbound, keys, body="extended-statistics: yes")
    start = "START_RRSET_CACHE\n"
    for text, why in BAD_DUMPS:
        variants = [text]
        if text.startswith(start):
            variants.append(start + GOOD_RRSET + text[len(start):])
        for body in variants:
            r = load(unbound, body)
            assert r.returncode == 1, (why, r.stdout, r.stderr)
            assert r.stdout == "error load failed\n", (why, r.stdout)
            s = stats_dict(ctl(unbound.conf, "stats_noreset").stdout)
            assert s["rrset.cache.count"] == "0", (why, s)
            assert s["msg.cache.count"] == "0", (why, s)
    assert "load_cache: line" in unbound.log()
    assert unbound.alive()
    # the good entry alone loads
    r = load(unbound, start + GOOD_RRSET + "END_RRSET_CACHE\n"
             "START_MSG_CACHE\nEND_MSG_CACHE\nEOF\n")
    assert r.stdout == "ok\n", r.stdout
    s = stats_dict(ctl(unbound.conf, "stats_noreset").stdout)
    assert s["rrset.cache.count"] == "1", s


def test_load_without_eof_times_out(unbound):
    """A client that sends part of a dump and stops is closed after the
    control timeout; nothing is stored."""
    unbound.ctl_port = port = free_port()
    unbound.start("extended-statistics: yes",
                  extra=rc_clause(None, port, use_cert=False))
    with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
        s.sendall(b"UBCT1 load_cache\nSTART_RRSET_CACHE\n"
                  b";rrset 300 1 0 8 0\nx.tld1.\t300\tIN\tA\t192.0.2.1\n")
        assert s.recv(100) == b""
    s = stats_dict(ctl(unbound.conf, "stats_noreset").stdout)
    assert s["rrset.cache.count"] == "0"
    assert "remote control connection timed out" in unbound.log()


def test_load_cut_short_is_an_error(unbound):
    """A client that ends its input (shuts down writing) before the
    "EOF" line gets "error load failed" at once; nothing is stored."""
    path = os.path.join(unbound.dir, "ctl.sock")
    unbound.start("extended-statistics: yes",
                  extra=rc_clause(None, iface=path, use_cert=False))
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(3)
        s.connect(path)
        s.sendall(b"UBCT1 load_cache\nSTART_RRSET_CACHE\n"
                  b";rrset 300 1 0 8 0\nx.tld1.\t300\tIN\tA\t192.0.2.1\n")
        s.shutdown(socket.SHUT_WR)
        assert s.recv(100) == b"error load failed\n"
    s = stats_dict(ctl(unbound.conf, "stats_noreset").stdout)
    assert s["rrset.cache.count"] == "0"


def test_load_too_much_data_refused(unbound):
    """More data than four times the cache sizes plus 16 MiB is refused
    (the connection closes, nothing is stored); memory stays bounded."""
    unbound.ctl_port = port = free_port()
    unbound.start("extended-statistics: yes\nmsg-cache-size: 100k\n"
                  "rrset-cache-size: 100k",
                  extra=rc_clause(None, port, use_cert=False))
    line = b";rrset 300 1 0 8 0\nx.tld1.\t300\tIN\tA\t192.0.2.1\n" * 1000
    sent = 0
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b"UBCT1 load_cache\nSTART_RRSET_CACHE\n")
        try:
            while sent < (40 << 20):
                s.sendall(line)
                sent += len(line)
            s.sendall(b"END_RRSET_CACHE\nSTART_MSG_CACHE\nEND_MSG_CACHE\n"
                      b"EOF\n")
            answer = s.recv(100)
        except OSError:
            answer = b""
    assert answer in (b"", b"error load failed\n"), answer
    deadline = time.time() + 5
    while "load_cache: more data than" not in unbound.log() and \
            time.time() < deadline:
        time.sleep(0.05)
    assert "load_cache: more data than" in unbound.log()
    s = stats_dict(ctl(unbound.conf, "stats_noreset").stdout)
    assert s["rrset.cache.count"] == "0"
    assert rss_kib(unbound.pid) < 200 * 1024


@pytest.mark.skipif(not os.path.exists(DEB_UNBOUND),
                    reason="Debian's unbound not installed")
def test_dumps_between_ours_and_debian(unbound, keys, testnet_net,
                                       tmp_path):
    """Debian's dump loads into ours (positive answers served from the
    cache), and ours into Debian's Unbound."""
    net = testnet_net
    need_net(net)
    ref = RefServer(tmp_path / "ref")
    os.makedirs(ref.dir, exist_ok=True)
    try:
        start_tls(ref, keys, root_hints=net.root_hints,
                  body='module-config: "iterator"\n'
                  'extended-statistics: yes')
        warm(ref, net)
        theirs = dump(ref, DEB_CTL)
        assert check_format(theirs) >= len(POSITIVE)
        # configured as the reference: no validator (a validating
        # resolver, Unbound too, answers unchecked entries only after
        # validating them, which is not a cache hit)
        start_tls(unbound, keys, root_hints=net.root_hints,
                  body='module-config: "iterator"\n'
                  'extended-statistics: yes')
        r = load(unbound, theirs)
        assert r.stdout == "ok\n", r.stdout + r.stderr
        ctl(unbound.conf, "stats")
        check_answers(unbound, net, POSITIVE)
        s = stats_dict(ctl(unbound.conf, "stats").stdout)
        assert s["total.num.cachemiss"] == "0", s
        # ours into Debian's, after a restart of it
        warm(unbound, net)
        ours = dump(unbound)
        ref.stop()
        start_tls(ref, keys, root_hints=net.root_hints,
                  body='module-config: "iterator"\n'
                  'extended-statistics: yes')
        r = load(ref, ours, DEB_CTL)
        assert r.stdout == "ok\n", r.stdout + r.stderr
        ctl(ref.conf, "stats", binary=DEB_CTL)
        check_answers(ref, net, POSITIVE)
        s = stats_dict(ctl(ref.conf, "stats", binary=DEB_CTL).stdout)
        assert s["total.num.cachemiss"] == "0", s
    finally:
        if ref.proc and ref.proc.poll() is None:
            ref.proc.send_signal(signal.SIGTERM)
            ref.proc.wait(10)


def hit_or_miss(srv, name="www.example.tld1.", qtype="A"):
    ctl(srv.conf, "stats")
    r = srv.query(name, qtype, timeout=8)
    assert r.answer, r
    s = stats_dict(ctl(srv.conf, "stats").stdout)
    assert int(s["total.num.cachehits"]) + int(s["total.num.cachemiss"]) == 1
    return "hit" if s["total.num.cachehits"] == "1" else "miss"


def test_reload_keep_cache(unbound, keys, testnet_net):
    """reload and SIGHUP drop the caches; reload +keep-cache and
    reload_keep_cache keep them while the cache sizes stay; with another
    msg-cache-size they are dropped too."""
    net = testnet_net
    need_net(net)
    start_tls(unbound, keys, root_hints=net.root_hints)
    assert hit_or_miss(unbound) == "miss"
    assert hit_or_miss(unbound) == "hit"
    for cmd in (["reload", "+keep-cache"], ["reload_keep_cache"]):
        for binary in CLIENTS:
            r = ctl(unbound.conf, *cmd, binary=binary)
            assert r.stdout == "ok\n", (cmd, r.stdout, r.stderr)
            assert hit_or_miss(unbound) == "hit", (cmd, binary)
    assert ctl(unbound.conf, "reload").stdout == "ok\n"
    assert hit_or_miss(unbound) == "miss"
    assert hit_or_miss(unbound) == "hit"
    before = unbound.log().count("service reloaded")
    unbound.send_signal(signal.SIGHUP)
    deadline = time.time() + 5
    while unbound.log().count("service reloaded") == before and \
            time.time() < deadline:
        time.sleep(0.05)
    assert unbound.log().count("service reloaded") == before + 1
    assert hit_or_miss(unbound) == "miss"
    # a bad option is refused and changes nothing
    for bad in (["reload", "+nosuch"], ["reload_keep_cache", "+keep-cache"],
                ["reload", "+keep-cache", "x"]):
        r = ctl(unbound.conf, *bad)
        assert r.returncode == 1 and r.stdout.startswith("error"), r.stdout
    assert hit_or_miss(unbound) == "hit"
    # other cache sizes: +keep-cache drops them
    unbound.write_config("msg-cache-size: 8m", root_hints=net.root_hints,
                         extra=rc_clause(keys, unbound.ctl_port))
    assert ctl(unbound.conf, "reload", "+keep-cache").stdout == "ok\n"
    assert hit_or_miss(unbound) == "miss"
    assert "cache sizes changed" in unbound.log()


def test_no_query_lost_across_reloads(unbound, keys, testnet_net):
    """A client querying over UDP without pause (local data and a cached
    answer) gets every answer, right, across plain and keep-cache
    reloads."""
    net = testnet_net
    need_net(net)
    body = 'local-data: "r.example. A 192.0.2.1"'
    start_tls(unbound, keys, threads=2, root_hints=net.root_hints,
              body=body)
    assert unbound.query("www.example.tld1.", timeout=8).answer
    stop = threading.Event()
    res = {"ok": 0, "bad": []}

    def client():
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.settimeout(3)
        i = 0
        try:
            while not stop.is_set():
                name = ("r.example.", "www.example.tld1.")[i % 2]
                q = make_query(name)
                s.sendto(q.to_wire(), ("127.0.0.1", unbound.port))
                try:
                    r = dns.message.from_wire(s.recv(4096))
                except Exception as e:  # noqa: BLE001
                    res["bad"].append((name, repr(e)))
                    continue
                want = "192.0.2.1" if i % 2 == 0 else "192.0.2.10"
                if r.id != q.id or r.rcode() != dns.rcode.NOERROR or \
                        not r.answer or r.answer[-1][0].address != want:
                    res["bad"].append((name, r.to_text()))
                else:
                    res["ok"] += 1
                i += 1
        finally:
            s.close()
    th = threading.Thread(target=client)
    th.start()
    try:
        for cmd in (["reload"], ["reload", "+keep-cache"], ["reload"],
                    ["reload_keep_cache"], ["reload"]):
            time.sleep(0.3)
            r = ctl(unbound.conf, *cmd)
            assert r.stdout == "ok\n", r.stdout + r.stderr
        time.sleep(0.3)
    finally:
        stop.set()
        th.join()
    assert res["bad"] == [] and res["ok"] > 20, res


INFRA_RE = re.compile(
    r"(\S+) (\S+) ttl \d+ ping \d+ var \d+ rtt \d+ rto \d+ tA \d+ "
    r"tAAAA \d+ tother \d+ ednsknown [01] edns -?\d+ delay \d+ lame "
    r"dnssec [01] rec [01] A [01] other [01]")


def infra_hosts(text):
    out = set()
    for line in text.splitlines():
        m = INFRA_RE.fullmatch(line)
        assert m, line
        out.add((m.group(1), m.group(2)))
    return out


def test_dump_and_flush_infra(unbound, keys, testnet_net, tmp_path):
    """dump_infra has a line per server and zone, in Unbound's format
    (checked against Debian's Unbound on the same net); flush_infra IP
    removes that server's lines, flush_infra all the rest; a bad address
    is an error."""
    net = testnet_net
    need_net(net)
    start_tls(unbound, keys, root_hints=net.root_hints)
    assert unbound.query("www.example.tld1.", timeout=8).answer
    root, tld1, ex1 = (net.address(n) for n in ("root", "tld1", "example1"))
    hosts = infra_hosts(ctl(unbound.conf, "dump_infra").stdout)
    assert (root, ".") in hosts, hosts
    assert (ex1, "example.tld1.") in hosts, hosts
    assert any(z == "tld1." for _, z in hosts), hosts
    if os.path.exists(DEB_UNBOUND):
        ref = RefServer(tmp_path / "ref")
        os.makedirs(ref.dir, exist_ok=True)
        try:
            start_tls(ref, keys, root_hints=net.root_hints,
                      body='module-config: "iterator"')
            assert ref.query("www.example.tld1.", timeout=8).answer
            theirs = infra_hosts(ctl(ref.conf, "dump_infra",
                                     binary=DEB_CTL).stdout)
            assert (root, ".") in theirs and \
                (ex1, "example.tld1.") in theirs, theirs
        finally:
            if ref.proc and ref.proc.poll() is None:
                ref.proc.send_signal(signal.SIGTERM)
                ref.proc.wait(10)
    for binary in CLIENTS:
        r = ctl(unbound.conf, "flush_infra", root, binary=binary)
        assert r.returncode == 0 and r.stdout == "ok\n", r.stdout
    left = infra_hosts(ctl(unbound.conf, "dump_infra").stdout)
    assert not any(a == root for a, _ in left), left
    assert (ex1, "example.tld1.") in left, left
    # Unbound 1.17 takes the rest of the line, and no @port
    for bad in ("not-an-ip", "300.1.1.1", "", root + "@53",
                root + " extra"):
        r = ctl(unbound.conf, "flush_infra", *bad.split())
        assert r.returncode == 1, r.stdout
        assert r.stdout == "error parsing ip addr: '%s'\n" % bad, r.stdout
    assert ctl(unbound.conf, "flush_infra", "all").stdout == "ok\n"
    assert ctl(unbound.conf, "dump_infra").stdout == ""
    # still resolving (the infra cache fills again)
    assert unbound.query("www.example.tld2.", timeout=8).answer
    assert infra_hosts(ctl(unbound.conf, "dump_infra").stdout)


RL_HEADER = "thread #0\n#   type cl name    seconds    module status\n"


def test_dump_requestlist(unbound, keys, testnet_net):
    """Queries waiting at a silent server show in dump_requestlist with
    their age and the server waited for; an empty list is the header."""
    net = testnet_net
    need_net(net)
    resp = net.responder("bad")
    start_tls(unbound, keys, root_hints=net.root_hints)
    assert ctl(unbound.conf, "dump_requestlist").stdout == RL_HEADER
    assert unbound.query("www.bad.tld2.", timeout=8).answer
    resp.set_behaviour(rules=[{"name": "slow%d.bad.tld2." % i,
                               "actions": [{"type": "drop"}]}
                              for i in range(2)])
    socks = []
    try:
        for i in range(2):
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.sendto(make_query("slow%d.bad.tld2." % i).to_wire(),
                     ("127.0.0.1", unbound.port))
            socks.append(s)
        deadline = time.time() + 10 * SLOW
        waiting = None
        while time.time() < deadline:
            st = stats_dict(ctl(unbound.conf, "stats_noreset").stdout)
            waiting = st["total.requestlist.current.user"]
            if waiting == "2":
                break
            time.sleep(0.1)
        assert waiting == "2", "requests waiting: %s" % waiting
        for binary in CLIENTS:
            out = ctl(unbound.conf, "dump_requestlist", binary=binary)
            assert out.returncode == 0, out
            assert out.stdout.startswith(RL_HEADER), out.stdout
            lines = out.stdout[len(RL_HEADER):].splitlines()
            names = set()
            for n, line in enumerate(lines):
                m = re.fullmatch(r"\s*(\d+)\s+A IN (slow[01]\.bad\.tld2\.) "
                                 r"(\d+)\.(\d{6}) iterator wait for (\S+)",
                                 line)
                assert m, line
                assert int(m.group(1)) == n
                assert m.group(5) == net.address("bad")
                names.add(m.group(2))
            assert names == {"slow0.bad.tld2.", "slow1.bad.tld2."}, lines
        assert ctl(unbound.conf, "flush_requestlist").stdout == "ok\n"
        deadline = time.time() + 5
        while time.time() < deadline:
            out = ctl(unbound.conf, "dump_requestlist").stdout
            if out == RL_HEADER:
                break
            time.sleep(0.1)
        assert out == RL_HEADER, out
    finally:
        for s in socks:
            s.close()
        resp.reset_behaviour()


def secure_nx_dump(security):
    """A dump holding one NXDOMAIN for nxp.bad.tld2. A with the given
    security status (5: secure, as only a validator makes it)."""
    return ("START_RRSET_CACHE\n"
            ";rrset 3600 1 0 7 %d\n"
            "bad.tld2.\t3600\tIN\tSOA\tns.bad.tld2. hostmaster.bad.tld2. "
            "1 3600 600 86400 300\n"
            "END_RRSET_CACHE\n"
            "START_MSG_CACHE\n"
            "msg nxp.bad.tld2. IN A 33155 1 3600 %d 0 1 0\n"
            "bad.tld2. IN SOA 0\n"
            "END_MSG_CACHE\nEOF\n" % (security, security))


@pytest.mark.parametrize("security,harden", [(5, "yes"), (0, "yes"),
                                             (5, "no")])
def test_below_secure_nxdomain_loaded(unbound, keys, testnet_net, tmp_path,
                                      security, harden):
    """harden-below-nxdomain (RFC 8020) acts on a DNSSEC-secure
    NXDOMAIN in the message cache: put there with load_cache (no
    validator yet), a name below it is NXDOMAIN without asking, in ours
    as in Debian's Unbound; an unchecked one, or harden off, and the
    zone's server is asked."""
    net = testnet_net
    need_net(net)
    bad = net.responder("bad")
    ref = RefServer(tmp_path / "ref")
    os.makedirs(ref.dir, exist_ok=True)
    body = 'module-config: "iterator"\nharden-below-nxdomain: %s' % harden
    try:
        for srv, binary in ((unbound, OUR_CTL), (ref, DEB_CTL)):
            start_tls(srv, keys, root_hints=net.root_hints, body=body)
            r = load(srv, secure_nx_dump(security), binary)
            assert r.stdout == "ok\n", (binary, r.stdout + r.stderr)
            bad.clear_log()
            r = srv.query("x.nxp.bad.tld2.", "A", timeout=8)
            assert dns.rcode.to_text(r.rcode()) == "NXDOMAIN", binary
            asked = bool(bad.queries("x.nxp.bad.tld2."))
            assert asked == (security != 5 or harden == "no"), binary
            if not asked:
                assert [str(rr.name) for rr in r.authority] == \
                    ["bad.tld2."], binary
            # the name itself: from the message cache, either way
            r = srv.query("nxp.bad.tld2.", "A", timeout=8)
            assert dns.rcode.to_text(r.rcode()) == "NXDOMAIN", binary
    finally:
        if ref.proc and ref.proc.poll() is None:
            ref.proc.send_signal(signal.SIGTERM)
            ref.proc.wait(10)
