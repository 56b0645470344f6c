# SPDX-License-Identifier: BSD-3-Clause
"""Unbound 1.18-1.22's drops of stale work, this daemon's only (Debian's
Unbound 1.17 has none of these options):

- discard-timeout: a UDP reply that waited for recursion longer than
  this many ms is dropped (num.queries_discard_timeout); the recursion
  goes on and fills the cache; a TCP client still gets its reply;
- sock-queue-timeout: a UDP query that sat in the socket buffer longer
  than this many seconds (the daemon stopped with SIGSTOP) is dropped
  unanswered and uncounted as a query (num.queries_timed_out); one that
  waited less is answered.

States are polled for: the counters, not a missing reply, say what was
dropped."""
import os
import signal
import socket
import sys
import time

import dns.message
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from testnet import have_nsd  # noqa: E402
from testnet.fixture import testnet_net, net  # noqa: E402,F401
from conftest import (BUILDDIR, control_clause, control_stats,  # noqa: E402
                      make_query, ours_only)

pytestmark = [ours_only]

CTL = os.path.join(BUILDDIR, "unbound-control")


def stats(srv):
    return control_stats(CTL, srv.conf)


def poll_stat(srv, key, want, secs=5.0):
    end = time.monotonic() + secs
    while True:
        got = int(stats(srv).get(key, "-1"))
        if got == want or time.monotonic() > end:
            return got
        time.sleep(0.05)


@pytest.mark.skipif(not have_nsd(), reason="nsd is not installed")
def test_discard_timeout(unbound, net, tmp_path):
    # slow.bad.tld2. answers after 250 ms: past a 100 ms discard-timeout
    unbound.start("discard-timeout: 100\nqname-minimisation: no",
                  root_hints=net.root_hints,
                  extra=control_clause(tmp_path / "ctl.sock"))
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.sendto(make_query("slow.bad.tld2.", "A").to_wire(),
             ("127.0.0.1", unbound.port))
    s.close()
    assert poll_stat(unbound, "total.num.queries_discard_timeout", 1) == 1
    # the recursion went on: the answer is in the cache now
    r = unbound.query("slow.bad.tld2.", "A", timeout=2.0)
    assert "192.0.2.102" in str(r.answer), r
    # over TCP the late reply is still sent (the peer waits for it)
    t0 = time.monotonic()
    r = unbound.query("slow.bad.tld2.", "AAAA", tcp=True, timeout=4.0)
    assert time.monotonic() - t0 > 0.1   # the premise: it was late
    assert r.rcode() == 0, r
    st = stats(unbound)
    assert int(st["total.num.queries_discard_timeout"]) == 1, st
    assert int(st["total.num.queries_wait_limit"]) == 0, st


def send_burst(port, n, name="a.example."):
    """n UDP queries from one socket; the socket, to read replies."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    for i in range(n):
        q = make_query(name, "A")
        q.id = 100 + i
        s.sendto(q.to_wire(), ("127.0.0.1", port))
    return s


def replies(s, n, secs=3.0):
    got = set()
    s.settimeout(0.2)
    end = time.monotonic() + secs
    while len(got) < n and time.monotonic() < end:
        try:
            got.add(dns.message.from_wire(s.recv(65535)).id)
        except socket.timeout:
            pass
    return got


def stop_process(pid, secs=10.0):
    """SIGSTOP pid and wait until every thread of it is stopped: the
    signal takes effect some time later, and a datagram sent before that
    is read and answered at once (seen under ASan: 4 of 5 answered)."""
    os.kill(pid, signal.SIGSTOP)
    deadline = time.monotonic() + secs
    task = "/proc/%d/task" % pid
    while True:
        states = []
        for t in os.listdir(task):
            try:
                with open(os.path.join(task, t, "stat")) as f:
                    states.append(f.read().rsplit(")", 1)[1].split()[0])
            except FileNotFoundError:
                pass
        if states and all(st in ("T", "t") for st in states):
            return
        assert time.monotonic() < deadline, states
        time.sleep(0.005)


def test_sock_queue_timeout(unbound, tmp_path):
    unbound.start('sock-queue-timeout: 1\nlocal-data: "a.example. A '
                  '192.0.2.1"', extra=control_clause(tmp_path / "ctl.sock"))
    pid = unbound.pid
    # waited 0.2 s in the buffer: under the limit, answered
    stop_process(pid)
    try:
        s = send_burst(unbound.port, 3)
        time.sleep(0.2)
    finally:
        os.kill(pid, signal.SIGCONT)
    assert len(replies(s, 3)) == 3
    s.close()
    assert poll_stat(unbound, "total.num.queries_timed_out", 0) == 0
    q0 = int(stats(unbound)["total.num.queries"])
    # waited 1.5 s: over it, dropped before they count as queries
    stop_process(pid)
    try:
        s = send_burst(unbound.port, 5)
        # the premise is time passing with the daemon stopped
        time.sleep(1.5)
    finally:
        os.kill(pid, signal.SIGCONT)
    assert poll_stat(unbound, "total.num.queries_timed_out", 5) == 5
    s.close()
    # alive, and the dropped ones were not counted as queries
    assert unbound.query("a.example.", "A").answer
    assert int(stats(unbound)["total.num.queries"]) == q0 + 1
