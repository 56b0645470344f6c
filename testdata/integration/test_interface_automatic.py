# SPDX-License-Identifier: BSD-3-Clause
"""interface-automatic: one wildcard UDP socket (0.0.0.0, ::) per worker
serves every address of the host, and each UDP reply leaves from the
address its query was sent to (IP_PKTINFO / IPV6_RECVPKTINFO), for a
cache hit and for an answer sent after recursion; with num-threads: 2
and so-reuseport each worker has its own socket. interface-automatic-
ports lists the ports; a bad list stops the start. Each runs side by
side with Debian's Unbound 1.17."""
import re
import socket

import dns.message
import dns.query
import pytest

from conftest import (HAVE_IPV6, RefServer, SLOW, Server, Upstream,
                      answer_texts, free_port, make_query, needs_ipv6,
                      sockets_on_port)

ZONE = "auto.example."
# loopback addresses other than the one the client sends from
TARGETS = ["127.0.0.%d" % i for i in range(2, 8)]
QUERY_LOG = re.compile(r"unbound\[(\d+):(\d+)\] info: 127\.0\.0\.1 ")


def ask(target, port, name, rdtype="A", source="127.0.0.1", rdclass="IN"):
    """One UDP query to target:port from a new socket bound to source;
    (the reply's source address, the reply). No reply fails."""
    fam = socket.AF_INET6 if ":" in target else socket.AF_INET
    q = make_query(name, rdtype, rdclass)
    with socket.socket(fam, socket.SOCK_DGRAM) as s:
        s.bind((source, 0))
        s.settimeout(3.0 * SLOW)
        s.sendto(q.to_wire(), (target, port))
        try:
            wire, src = s.recvfrom(65535)
        except socket.timeout:
            pytest.fail("no reply from %s port %d to %s" % (target, port,
                                                             name))
    r = dns.message.from_wire(wire, ignore_trailing=True)
    assert r.id == q.id
    return src[0], r


def want(name):
    return ["%s A %s" % (name, Upstream.RDATA["A"])]


@pytest.fixture(scope="module")
def upstream_mod():
    up = Upstream()
    yield up
    up.close()


@pytest.fixture(scope="module",
                params=["unbound-1", "unbound-2", "debian-2"])
def auto(request, tmp_path_factory, upstream_mod):
    """A daemon with interface-automatic (ours with 1 and with 2 threads,
    Debian's Unbound with 2), so-reuseport on, log-queries on."""
    cls = RefServer if request.param.startswith("debian") else Server
    threads = int(request.param.split("-")[1])
    srv = cls(tmp_path_factory.mktemp(request.param), ipv6=HAVE_IPV6)
    srv.threads = threads
    srv.start("interface-automatic: yes\nso-reuseport: yes\n"
              "log-queries: yes\n", threads=threads,
              extra=upstream_mod.stub_zone(ZONE))
    yield srv
    assert srv.stop() == 0, srv.output()[-3000:]


def test_udp_reply_from_queried_address(auto, upstream_mod):
    """Each 127.0.0.x queried on the wildcard socket answers from
    127.0.0.x: after recursion (the upstream asked), then from the
    cache (not asked again)."""
    for i, target in enumerate(TARGETS):
        name = "r%d-%d.%s" % (i, auto.port, ZONE)
        src, r = ask(target, auto.port, name)
        assert src == target, "recursion answer to %s came from %s" % (
            target, src)
        assert answer_texts(r) == want(name), r.to_text()
        assert len(upstream_mod.queries(name, "A")) == 1
        src, r = ask(target, auto.port, name)
        assert src == target, "cache hit to %s came from %s" % (target,
                                                                 src)
        assert answer_texts(r) == want(name), r.to_text()
        assert len(upstream_mod.queries(name, "A")) == 1, \
            "the second query was not answered from the cache"


def test_each_worker_own_socket(auto):
    """so-reuseport: a wildcard UDP socket per worker and family, and
    with 2 threads both answer (queries from new source ports go to
    either; log-queries names the thread)."""
    lines = sockets_on_port(auto.port, "udp", auto.pid)
    v4 = [l for l in lines if "0.0.0.0:%d" % auto.port in l]
    assert len(v4) == auto.threads, lines
    if HAVE_IPV6:
        v6 = [l for l in lines if "[::]:%d" % auto.port in l]
        assert len(v6) == auto.threads, lines
    if auto.threads < 2:
        return
    for i in range(24):
        src, r = ask(TARGETS[i % len(TARGETS)], auto.port,
                     "version.server.", "TXT", rdclass="CH")
        assert src == TARGETS[i % len(TARGETS)]
    threads = set()
    for m in QUERY_LOG.finditer(auto.log()):
        if int(m.group(1)) == auto.pid:
            threads.add(int(m.group(2)))
    assert len(threads) == 2, "threads that answered: %s" % threads


def test_tcp_to_other_address(auto):
    """TCP needs no control message: a connection to 127.0.0.5 is
    answered."""
    q = make_query("version.server.", "TXT", "CH")
    r = dns.query.tcp(q, "127.0.0.5", port=auto.port, timeout=3.0 * SLOW,
                      source="127.0.0.1")
    assert r.answer, r


@needs_ipv6
def test_ipv6_reply_from_queried_address(auto, upstream_mod):
    name = "v6-%d.%s" % (auto.port, ZONE)
    for _ in range(2):   # recursion, then the cache
        src, r = ask("::1", auto.port, name, source="::1")
        assert src == "::1"
        assert answer_texts(r) == want(name), r.to_text()


@pytest.mark.parametrize("cls", [Server, RefServer],
                         ids=["unbound", "debian"])
def test_automatic_ports(cls, tmp_path):
    """interface-automatic-ports "P1 P2": both ports served from the
    queried address."""
    srv = cls(tmp_path)
    other = free_port()
    try:
        srv.start('interface-automatic: yes\n'
                  'interface-automatic-ports: "%d  %d"\n'
                  'local-data: "x.auto.test. A 192.0.2.9"\n' %
                  (srv.port, other))
        for port in (srv.port, other):
            src, r = ask("127.0.0.9", port, "x.auto.test.")
            assert src == "127.0.0.9"
            assert answer_texts(r) == ["x.auto.test. A 192.0.2.9"], r
    finally:
        assert srv.stop() == 0, srv.output()[-3000:]


@pytest.mark.parametrize("cls", [Server, RefServer],
                         ids=["unbound", "debian"])
@pytest.mark.parametrize("ports,message", [
    ("%d x", "interface-automatic-ports could not be parsed, at "
     "position 7 of"),
    ("%d 70000", "interface-automatic-ports port number out of range, "
     "at position 7 of"),
], ids=["text", "range"])
def test_bad_ports(cls, ports, message, tmp_path):
    """A bad port list is an error at start, with Unbound's message."""
    srv = cls(tmp_path)
    # free_port picks from 10000 up: the bad item is at position 7
    assert 10000 <= srv.port <= 65535
    srv.start('interface-automatic: yes\n'
              'interface-automatic-ports: "%s"\n' % (ports % srv.port),
              wait=False)
    try:
        srv.proc.wait(15 * SLOW)
    finally:
        status = srv.stop()
    assert status != 0, srv.output()[-2000:]
    assert message in srv.output(), srv.output()[-2000:]
