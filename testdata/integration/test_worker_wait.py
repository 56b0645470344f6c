# SPDX-License-Identifier: BSD-3-Clause
"""The worker's wait (daemon/worker_wait.c): on io_uring where the system
has it, in epoll as before when it has not or when UNBOUND_NO_IO_URING is
set (the fallback, with its one log line). Both ways: UDP cache hits in
batches, a miss answered through the upstream (its reply comes through
libevent), a retransmission after an upstream dropped the first query
(a timer the UDP path set while the worker waited on the ring), TCP,
and a clean stop."""
import os
import socket
import time

import dns.message
import pytest

from conftest import SLOW, Upstream, assert_recursion, make_query

LOCAL = 'local-data: "hit.wait.test. A 192.0.2.7"'
FALLBACK_LINE = "workers wait in epoll, not io_uring: "


class _NoReply:
    """A reply that is never sent (Upstream's sendto sees OSError)."""

    def to_wire(self):
        raise OSError("dropped on purpose")


class DropFirst(Upstream):
    """Drops the first query for each name, answers the ones after."""

    def __init__(self):
        self.seen = set()
        super().__init__()

    def respond(self, q, qname, qtype):
        key = (qname.to_text().lower(), qtype)
        if key not in self.seen:
            self.seen.add(key)
            return _NoReply()
        return super().respond(q, qname, qtype)


def ring_fds(pid):
    """The io_uring file descriptors of process pid."""
    d = "/proc/%d/fd" % pid
    n = 0
    for fd in os.listdir(d):
        try:
            if os.readlink(os.path.join(d, fd)) == "anon_inode:[io_uring]":
                n += 1
        except OSError:
            pass
    return n


@pytest.fixture(scope="module", params=["io_uring", "epoll"])
def served(request, tmp_path_factory):
    """One daemon per way of waiting (2 threads, a socket each), with
    local data and a stub zone to an upstream that drops first
    queries."""
    from conftest import Server, _finish
    up = DropFirst()
    srv = Server(tmp_path_factory.mktemp("wait_" + request.param))
    env = {"UNBOUND_NO_IO_URING": "1"} if request.param == "epoll" else {}
    srv.start(LOCAL + "\nso-reuseport: yes\n", threads=2, env=env,
              extra=up.stub_zone("up.wait.example."))
    mode = request.param
    if mode == "io_uring" and FALLBACK_LINE in srv.log():
        # the system refuses io_uring (a seccomp filter, an old kernel):
        # this daemon is then the probe's own fallback, tested as such
        mode = "refused"
    yield mode, srv, up
    _finish(srv)
    up.close()


def test_the_way_it_waits(served):
    mode, srv, up = served
    if mode == "io_uring":
        assert ring_fds(srv.pid) == 2   # one ring per worker
        assert FALLBACK_LINE not in srv.log()
    else:
        assert ring_fds(srv.pid) == 0
        log = srv.log()
        assert log.count(FALLBACK_LINE) == 1, log
        assert ("UNBOUND_NO_IO_URING is set" in log) == (mode == "epoll"), log


def test_hits_in_batches(served):
    """200 queries sent at once from one socket, then 200 from 20 sockets:
    every one answered, each with its ID."""
    _, srv, _ = served
    wire = bytearray(make_query("hit.wait.test.", "A").to_wire())
    socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
             for _ in range(20)]
    try:
        for n_socks in (1, 20):
            want = {}
            for i in range(200):
                s = socks[i % n_socks]
                wire[0:2] = i.to_bytes(2, "big")
                s.sendto(bytes(wire), ("127.0.0.1", srv.port))
                want.setdefault(s, set()).add(i)
            for s, ids in want.items():
                s.settimeout(3.0 * SLOW)
                while ids:
                    r = dns.message.from_wire(s.recv(4096))
                    assert r.answer[0].to_text().endswith(
                        "A 192.0.2.7"), r
                    ids.discard(r.id)
    finally:
        for s in socks:
            s.close()


def test_miss_through_upstream(served):
    """A miss: the query goes up, the upstream's reply (libevent's event)
    comes back, the answer goes out; after the first query was dropped,
    the retransmission timer (set by the UDP path) sent it again."""
    _, srv, up = served
    t0 = time.monotonic()
    assert_recursion(srv, up, "www.up.wait.example.", "A")
    assert len(up.queries("www.up.wait.example.", "A")) >= 2
    # the retransmission came after a timeout, not a stall: well under
    # the client's patience
    assert time.monotonic() - t0 < 3.0 * SLOW
    # and again for a name the mesh did not see yet, over TCP
    r = srv.query("tcp.up.wait.example.", "A", tcp=True, timeout=3.0 * SLOW)
    assert r.answer and r.answer[0].to_text().endswith(
        "A " + Upstream.RDATA["A"]), r


def test_stop_right_after_start(tmp_path):
    """A start error found after the workers started (an auth-zone primary
    that names no TLS host) stops them at once: each of 30 starts exits
    by itself. A stop posted before a worker's first turn on the ring
    used to be lost (its break cleared by the next loop run; the CI run
    saw the daemon wait for ever, about one start in six here)."""
    from conftest import Server, free_port
    bad = "127.0.0.1@%d#" % free_port()
    for i in range(30):
        srv = Server(tmp_path / str(i))
        os.makedirs(srv.dir, exist_ok=True)
        rc, out = srv.start_expecting_exit(
            "so-reuseport: yes\n", threads=2,
            extra='auth-zone:\n\tname: "example.org"\n\tmaster: %s\n' % bad)
        assert rc is not None, "start %d: still running\n%s" % (
            i, out[-2000:])
        assert rc != 0 and "no name after '#'" in out, out[-2000:]
