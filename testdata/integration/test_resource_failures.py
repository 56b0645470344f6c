# SPDX-License-Identifier: BSD-3-Clause
"""Resource failures injected into a running daemon (issue 14): the
shim testdata/failalloc_shim.so (LD_PRELOAD, armed through a control
file after start-up) fails one allocation in N, accept() with EMFILE,
and socket()/bind()/connect() of outgoing sockets (EMFILE, EADDRINUSE,
EADDRNOTAVAIL: a full port range). The daemon must keep serving, log
what it dropped, not spin, and answer correctly once disarmed. Under
ASan the shim sits in front of ASan's malloc (verify_asan_link_order=0).

Resolves through the loopback test internet (needs nsd and root)."""
import os
import threading
import time

import dns.exception
import dns.message
import dns.query
import dns.rcode
import pytest

from conftest import (REFERENCE, SLOW, BUILDDIR, Server, asan_env,
                      make_query, recv_tcp_msg, tcp_frame)

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
from testnet import have_nsd  # noqa: E402
from testnet.fixture import testnet_net, net  # noqa: E402,F401

SHIM = os.path.join(BUILDDIR, "testdata", "failalloc_shim.so")

pytestmark = [
    pytest.mark.skipif(REFERENCE, reason="the shim is armed in our daemon"),
    pytest.mark.skipif(not have_nsd(), reason="nsd is not installed"),
    pytest.mark.skipif(not os.path.exists(SHIM),
                       reason="%s not built (run make)" % SHIM),
]

# the cases checked after each fault: a cache hit, a CNAME chain across
# zones, an NXDOMAIN, a TCP-only answer
CHECK = ("www.example.tld1.", "chain.example.tld1.",
         "cname-nx.example.tld1.", "many.example.tld1.")


class Faulty(Server):
    """A daemon started under the shim; arm() writes its control file."""

    def __init__(self, tmpdir):
        super().__init__(tmpdir)
        self.ctl = os.path.join(self.dir, "failalloc.ctl")

    def start_under_shim(self, net, body=""):
        env = asan_env({"LD_PRELOAD": SHIM, "FAILALLOC_CTL": self.ctl},
                       verify_asan_link_order=0)
        return self.start(body + "\nmodule-config: \"iterator\"\n"
                          "num-queries-per-thread: 64\n",
                          threads=2, root_hints=net.root_hints, env=env)

    def arm(self, text):
        with open(self.ctl + ".tmp", "w") as f:
            f.write(text + "\n")
        os.rename(self.ctl + ".tmp", self.ctl)
        time.sleep(0.2)     # the shim re-reads it every 50 ms

    def disarm(self):
        self.arm("")

    def failures(self):
        """The shim's counts of failed calls, as a dict."""
        try:
            with open(self.ctl + ".count") as f:
                return {k: int(v) for k, v in
                        (w.split("=") for w in f.read().split())}
        except OSError:
            return {}

    def cpu_seconds(self):
        with open("/proc/%d/stat" % self.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf(
            "SC_CLK_TCK")


@pytest.fixture
def faulty(tmp_path, net):
    srv = Faulty(tmp_path)
    yield srv
    srv.disarm()
    alive = srv.alive()
    status = srv.stop()
    assert alive, "daemon died:\n%s" % srv.output()[-3000:]
    assert status == 0, "exit status %s:\n%s" % (status,
                                                 srv.output()[-3000:])
    assert "Sanitizer" not in srv.output(), srv.output()[-3000:]


def check_answers(srv, net):
    """Every CHECK case answers correctly, over UDP and TCP."""
    cases = {c.qname: c for c in net.expected}
    for name in CHECK:
        case = cases[name]
        for tcp in ((True,) if "needs TCP" in case.why else (False, True)):
            r = srv.query(name, case.qtype, tcp=tcp, timeout=3 * SLOW,
                          retries=2)
            assert case.mismatch(r) is None, (tcp, case.mismatch(r))


def traffic(srv, seconds, tag):
    """Queries for `seconds`: UDP and TCP, cache hits and misses (new
    names under example.tld1.: NXDOMAIN). Returns (sent, answered)."""
    sent = answered = 0
    end = time.time() + seconds
    i = 0
    while time.time() < end:
        i += 1
        name = ("www.example.tld1." if i % 2 else
                "%s%d.example.tld1." % (tag, i))
        sent += 1
        try:
            srv.query(name, tcp=(i % 3 == 0), timeout=0.5 * SLOW)
            answered += 1
        except (dns.exception.Timeout, OSError, EOFError,
                dns.exception.FormError):
            pass
    return sent, answered


def parallel_traffic(srv, seconds, clients=3):
    """traffic() from several clients at once; (sent, answered)."""
    results = []
    threads = [threading.Thread(target=lambda i=i: results.append(
        traffic(srv, seconds, "oom%d-" % i))) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return tuple(map(sum, zip(*results)))


def test_allocation_failures(faulty, net):
    faulty.start_under_shim(net)
    check_answers(faulty, net)
    faulty.arm("alloc=13")
    sent, answered = parallel_traffic(faulty, 4 * SLOW)
    faulty.disarm()
    n = faulty.failures()
    assert n.get("alloc_failed", 0) > 0, n
    assert faulty.alive(), faulty.output()[-3000:]
    assert answered > 0, (sent, answered)
    assert "out of memory" in faulty.log()
    check_answers(faulty, net)
    print("alloc=13: %d allocations failed, %d/%d queries answered" %
          (n["alloc_failed"], answered, sent))


def test_accept_emfile_backs_off(faulty, net):
    faulty.start_under_shim(net)
    check_answers(faulty, net)
    faulty.arm("accept=1")
    # connections wait in the kernel's backlog; one sends its query now
    waiting = [faulty.tcp_connect(timeout=10 * SLOW) for _ in range(4)]
    q = make_query("www.example.tld1.")
    waiting[0].sendall(tcp_frame(q.to_wire()))
    cpu0 = faulty.cpu_seconds()
    time.sleep(2)
    cpu = faulty.cpu_seconds() - cpu0
    # a listener that retries at once would burn a core (2 s here)
    assert cpu < 0.5, "%.2f s CPU in 2 s with accept failing" % cpu
    assert "not accepting for" in faulty.log()
    faulty.disarm()
    r = dns.message.from_wire(recv_tcp_msg(waiting[0]))
    assert r.id == q.id and r.rcode() == dns.rcode.NOERROR
    for s in waiting:
        s.close()
    check_answers(faulty, net)


def kernel_path_off():
    """outgoing-port-avoid of one port of the kernel's ephemeral range:
    every outgoing UDP port is then bound by the daemon (no idle socket
    connected for the kernel's draw, services/kernel_ports.h), so each
    query needs a socket() and a bind() the shim can fail."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            hi = int(f.read().split()[1])
    except (OSError, ValueError, IndexError):
        return ""           # unreadable: the path is off anyway
    return "outgoing-port-avoid: %d\n" % hi


# connect fails on the kernel's path too (then on the bind path); idle
# sockets need no socket() or bind(), so those two are with it off
@pytest.mark.parametrize("fault,kernel_path", [
    ("socket=1", False), ("bind=1", False), ("connect=1", False),
    ("connect=1", True)])
def test_outgoing_socket_failures(faulty, net, fault, kernel_path):
    faulty.start_under_shim(net, "" if kernel_path else kernel_path_off())
    if kernel_path and "drawn by the kernel at connect" not in faulty.log():
        pytest.skip("the kernel's port draw is off on this machine")
    check_answers(faulty, net)      # the delegations are cached now
    faulty.arm(fault)
    t0 = time.time()
    r = faulty.query("new1.example.tld1.", timeout=15 * SLOW)
    took = time.time() - t0
    assert r.rcode() == dns.rcode.SERVFAIL, r
    r = faulty.query("new2.example.tld1.", tcp=True, timeout=15 * SLOW)
    assert r.rcode() == dns.rcode.SERVFAIL, r
    assert faulty.failures().get("other_failed", 0) > 0
    faulty.disarm()
    r = faulty.query("new3.example.tld1.", timeout=5 * SLOW)
    assert r.rcode() == dns.rcode.NXDOMAIN, r
    check_answers(faulty, net)
    print("%s: SERVFAIL after %.2f s" % (fault, took))
