# SPDX-License-Identifier: BSD-3-Clause
"""Worker sockets: with so-reuseport each of num-threads workers has its own
UDP and TCP socket; when setsockopt(SO_REUSEPORT) fails (forced with
testdata/reuseport_shim.so) the daemon falls back to one shared socket;
so-reuseport: no gives one socket too."""
import os
import re
import socket

import pytest

from conftest import (REFERENCE, SHIM, answer_texts, asan_env, make_query,
                      sockets_on_port)

LOCAL = 'local-data: "www.rp.test. A 192.0.2.1"'
QUERY_LOG = re.compile(
    r"unbound\[(\d+):(\d+)\] info: 127\.0\.0\.1 www\.rp\.test\. A IN")


def ask(s, srv, wire):
    """One query on socket s; None on timeout, else whether the answer
    is right (same ID, the local-data address)."""
    s.sendto(wire, ("127.0.0.1", srv.port))
    try:
        reply = s.recv(4096)
    except socket.timeout:
        return None
    return reply[:2] == wire[:2] and b"\xc0\x00\x02\x01" in reply


def udp_socket(timeout):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(timeout)
    s.bind(("127.0.0.1", 0))
    return s


def many_source_ports(srv, n=200, timeout=2.0):
    """n queries, each from a new socket (a new source port); returns how
    many were answered correctly."""
    wire = make_query("www.rp.test.", "A").to_wire()
    ok = 0
    for i in range(n):
        for attempt in range(3):
            with udp_socket(timeout) as s:
                r = ask(s, srv, wire)
            if r is not None:
                ok += r
                break
    return ok


def queries_per_thread(srv):
    """{thread number: queries it logged} from srv's log-queries lines."""
    counts = {}
    for m in QUERY_LOG.finditer(srv.log()):
        if int(m.group(1)) == srv.pid:
            t = int(m.group(2))
            counts[t] = counts.get(t, 0) + 1
    return counts


def threads_in_log(srv):
    return set(queries_per_thread(srv))


def test_reuseport_two_threads_two_sockets(unbound):
    unbound.start(LOCAL + "\nso-reuseport: yes\nlog-queries: yes",
                  threads=2)
    assert len(sockets_on_port(unbound.port, "udp", unbound.pid)) == 2
    assert len(sockets_on_port(unbound.port, "tcp", unbound.pid)) == 2
    assert many_source_ports(unbound, 200) == 200
    # queries from many source ports spread over both workers' sockets
    assert threads_in_log(unbound) == {0, 1}


def one_source_port(srv, n=200, timeout=2.0):
    """n queries from one socket (one source port), one at a time; returns
    how many were answered correctly."""
    wire = bytearray(make_query("www.rp.test.", "A").to_wire())
    ok = 0
    with udp_socket(timeout) as s:
        for i in range(n):
            wire[0:2] = i.to_bytes(2, "big")
            ok += bool(ask(s, srv, bytes(wire)))
    return ok


def test_reuseport_one_client_socket_spread(unbound):
    """The kernel's SO_REUSEPORT hash sends one client socket to one
    worker; ours picks a worker at random per datagram (a reuseport BPF
    program), so even one busy client loads both. Unbound 1.17 does not."""
    if REFERENCE:
        pytest.skip("Unbound keeps the kernel's per-client hash")
    unbound.start(LOCAL + "\nso-reuseport: yes\nlog-queries: yes\n"
                  "verbosity: 1", threads=2)
    refused = [l for l in unbound.output().splitlines()
               if "SO_ATTACH_REUSEPORT_CBPF" in l]
    if refused:
        # logged where the kernel refuses the program: the hash stays
        pytest.skip("this kernel refuses reuseport BPF: " + refused[0])
    assert one_source_port(unbound, 400) == 400
    counts = queries_per_thread(unbound)
    assert sorted(counts) == [0, 1], counts
    # random per datagram: 200 +- 10 each; 120 is 8 standard deviations
    assert min(counts.values()) >= 120, counts


def test_reuseport_tcp_both_workers(unbound):
    unbound.start(LOCAL + "\nso-reuseport: yes", threads=2)
    for _ in range(40):
        r = unbound.query("www.rp.test.", "A", tcp=True)
        assert answer_texts(r) == ["www.rp.test. A 192.0.2.1"]


@pytest.mark.skipif(not os.path.exists(SHIM),
                    reason="%s not built (run make)" % SHIM)
def test_reuseport_fallback_one_socket(unbound):
    unbound.start(LOCAL + "\nso-reuseport: yes\nlog-queries: yes",
                  threads=2,
                  # LD_PRELOAD under AddressSanitizer: link order check off
                  env=asan_env({"LD_PRELOAD": SHIM},
                               verify_asan_link_order=0))
    assert len(sockets_on_port(unbound.port, "udp", unbound.pid)) == 1
    assert len(sockets_on_port(unbound.port, "tcp", unbound.pid)) == 1
    assert many_source_ports(unbound, 200) == 200
    r = unbound.query("www.rp.test.", "A", tcp=True)
    assert answer_texts(r) == ["www.rp.test. A 192.0.2.1"]
    if not REFERENCE:
        # real Unbound 1.17 falls back silently below verbosity 3
        out = unbound.output()
        warnings = [l for l in out.splitlines() if "SO_REUSEPORT" in l and
                    re.search(r"fall(ing )?back", l, re.I)]
        assert len(warnings) == 1, out


def test_no_reuseport_one_socket(unbound):
    unbound.start(LOCAL + "\nso-reuseport: no\nlog-queries: yes", threads=2)
    assert len(sockets_on_port(unbound.port, "udp", unbound.pid)) == 1
    assert len(sockets_on_port(unbound.port, "tcp", unbound.pid)) == 1
    assert many_source_ports(unbound, 100) == 100


def test_one_thread_one_socket(unbound):
    unbound.start(LOCAL + "\nso-reuseport: yes", threads=1)
    assert len(sockets_on_port(unbound.port, "udp", unbound.pid)) == 1
    assert len(sockets_on_port(unbound.port, "tcp", unbound.pid)) == 1


def test_log_queries_format(unbound):
    unbound.start(LOCAL + "\nlog-queries: yes")
    unbound.query("www.rp.test.", "A")
    unbound.query("www.rp.test.", "A", tcp=True)
    log = unbound.log()
    lines = [l for l in log.splitlines() if QUERY_LOG.search(l)]
    assert len(lines) == 2, log
    assert re.match(r"^\[\d+\] unbound\[%d:0\] info: 127\.0\.0\.1 "
                    r"www\.rp\.test\. A IN$" % unbound.pid, lines[0]), lines
