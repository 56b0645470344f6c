# SPDX-License-Identifier: BSD-3-Clause
"""outgoing-port-permit / outgoing-port-avoid and outgoing-range take
effect at reload (SIGHUP, unbound-control reload), as in Unbound 1.17,
which builds its outside network again then (issue 14: the soak test's
fault "outgoing port range shrunk to a few ports"). set_option
outgoing-range is taken and shown by get_option, as there, and changes
nothing until a reload.

An upstream of the test's own (a UDP responder in a thread, the only
forwarder) records the source port of every query. The range shrinks to
three ports at run time: queries then leave from those only; with the
three held by another program, queries fail cleanly (SERVFAIL, a log
line, the daemon keeps serving); released, they are answered again; the
range widened again, ports from the whole range come back."""
import os
import random
import signal
import socket
import threading
import time

import dns.exception
import dns.flags
import dns.message
import dns.rcode
import dns.rrset
import pytest

from conftest import REFERENCE, SLOW
from test_control import ctl, rc_clause


class Upstream:
    """A UDP DNS server on 127.0.0.1 answering every A query with
    192.0.2.1, TTL 0; ports[] holds the source port of each query."""

    def __init__(self):
        # the TCP port is taken with the UDP one: bound later, the same
        # number may by then be another process's (EADDRINUSE seen with
        # a second test run beside this one)
        while True:
            self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            self.sock.bind(("127.0.0.1", 0))
            self.port = self.sock.getsockname()[1]
            self.tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            self.tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                self.tcp.bind(("127.0.0.1", self.port))
                break
            except OSError:
                self.tcp.close()
                self.sock.close()
        self.sock.settimeout(0.2)
        self.ports = []
        self.lock = threading.Lock()
        self.running = True
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        while self.running:
            try:
                data, addr = self.sock.recvfrom(65535)
            except socket.timeout:
                continue
            except OSError:
                return
            with self.lock:
                self.ports.append(addr[1])
            r = self.answer(data)
            if r:
                self.sock.sendto(r, addr)

    def answer(self, data):
        """The reply to a query's wire form, or None."""
        try:
            q = dns.message.from_wire(data)
        except Exception:   # noqa: BLE001 - junk is not answered
            return None
        r = dns.message.make_response(q)
        r.flags |= dns.flags.AA
        if q.question and q.question[0].rdtype == 1:
            r.answer.append(dns.rrset.from_text(
                q.question[0].name, 0, "IN", "A", "192.0.2.1"))
        return r.to_wire()

    def serve_tcp(self):
        """TCP too (tcp-upstream); counts the connections."""
        self.tcp.listen(16)
        self.tcp.settimeout(0.2)
        self.tcp_conns = 0
        t = threading.Thread(target=self._accept, daemon=True)
        t.start()
        self.threads = [t]

    def _accept(self):
        while self.running:
            try:
                c, _ = self.tcp.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            self.tcp_conns += 1
            threading.Thread(target=self._conn, args=(c,),
                             daemon=True).start()

    def _conn(self, c):
        c.settimeout(5)
        with c:
            try:
                while self.running:
                    hdr = c.recv(2)
                    if len(hdr) < 2:
                        return
                    n = int.from_bytes(hdr, "big")
                    data = b""
                    while len(data) < n:
                        part = c.recv(n - len(data))
                        if not part:
                            return
                        data += part
                    r = self.answer(data)
                    if r:
                        c.sendall(len(r).to_bytes(2, "big") + r)
            except OSError:
                return

    def take_ports(self):
        with self.lock:
            p, self.ports = self.ports, []
        return p

    def stop(self):
        self.running = False
        self.thread.join(2)
        self.sock.close()
        if hasattr(self, "tcp"):
            self.tcp.close()



def few_ports():
    """Three consecutive ports that are free now (UDP, any address),
    below the kernel's ephemeral range."""
    for _ in range(200):
        base = random.randint(20000, 30000)
        try:
            for p in range(base, base + 3):
                with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                    s.bind(("0.0.0.0", p))
            return list(range(base, base + 3))
        except OSError:
            continue
    raise RuntimeError("no three free ports")


def hold(ports):
    """Bind the ports (any address) as another program would; a port
    the daemon still has open for a moment is tried again."""
    held = []
    deadline = time.time() + 5 * SLOW
    for p in ports:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        while True:
            try:
                s.bind(("0.0.0.0", p))
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.05)
        held.append(s)
    return held


@pytest.fixture
def upstream():
    u = Upstream()
    yield u
    u.stop()


def body(up, ports=None, extra=""):
    lines = ["module-config: \"iterator\"", "qname-minimisation: no",
             "outgoing-range: 64"]
    if ports:
        lines += ["outgoing-port-avoid: 0-65535",
                  "outgoing-port-permit: %d-%d" % (ports[0], ports[-1])]
    return "\n".join(lines) + "\n" + extra


def forward(up):
    return ("forward-zone:\n\tname: \".\"\n\tforward-addr: 127.0.0.1@%d\n"
            % up.port)


def start(srv, up, ports=None):
    sock = os.path.join(srv.dir, "ctl.sock")
    extra = forward(up) + rc_clause(None, iface=sock, use_cert=False)
    srv.start(body(up, ports), extra=extra, threads=2)
    return extra


def rewrite(srv, up, extra, ports=None, range_=64):
    text = body(up, ports).replace("outgoing-range: 64",
                                   "outgoing-range: %d" % range_)
    srv.write_config(text, extra=extra, threads=2)


def reloaded(srv, how):
    """Reload by SIGHUP or unbound-control reload; wait until done."""
    before = srv.log().count("service reloaded")
    if how == "sighup":
        srv.send_signal(signal.SIGHUP)
    else:
        r = ctl(srv.conf, "reload")
        assert r.returncode == 0 and "ok" in r.stdout, r
    deadline = time.time() + 10 * SLOW
    while time.time() < deadline:
        if srv.log().count("service reloaded") > before or (
                REFERENCE and how != "sighup"):
            break
        time.sleep(0.05)
    srv.wait_ready()


def resolve(srv, tag, n):
    """n distinct names (cache misses); their rcodes."""
    out = []
    for i in range(n):
        r = srv.query("%s%d-%d.example." % (tag, i, random.randint(0, 10**9)),
                      timeout=3 * SLOW, retries=2)
        out.append(r.rcode())
    return out


@pytest.mark.parametrize("how", ["sighup", "control"])
def test_shrink_full_widen(unbound, upstream, how):
    srv = unbound
    extra = start(srv, upstream)
    few = few_ports()

    # the default range: ports from all over 1024-65535
    assert resolve(srv, "wide", 12) == [dns.rcode.NOERROR] * 12
    ports = upstream.take_ports()
    assert len(ports) >= 12, ports
    assert all(1024 <= p <= 65535 for p in ports), ports
    assert len(set(ports)) >= 6, ports
    assert not set(ports) <= set(few), ports

    # shrunk to three ports at run time
    rewrite(srv, upstream, extra, few, range_=8)
    reloaded(srv, how)
    upstream.take_ports()   # the wait_ready probe asks nothing upstream
    assert resolve(srv, "few", 15) == [dns.rcode.NOERROR] * 15
    ports = upstream.take_ports()
    assert len(ports) >= 15, ports
    assert set(ports) <= set(few), (sorted(set(ports)), few)

    # the three held by another program: a clean failure, no crash
    held = hold(few)
    try:
        for i in range(3):
            r = srv.query("full%d.example." % i, timeout=6 * SLOW,
                          retries=1)
            assert r.rcode() == dns.rcode.SERVFAIL, r
        assert upstream.take_ports() == []
        if not REFERENCE:
            assert "outgoing udp: a query failed: the random source " \
                "ports tried are all in use by other programs" in srv.log()
        assert srv.alive()
    finally:
        for s in held:
            s.close()
    # released: answered again, still from the three
    assert resolve(srv, "again", 5) == [dns.rcode.NOERROR] * 5
    ports = upstream.take_ports()
    assert ports and set(ports) <= set(few), (ports, few)

    # widened again
    rewrite(srv, upstream, extra)
    reloaded(srv, how)
    assert resolve(srv, "wider", 12) == [dns.rcode.NOERROR] * 12
    ports = upstream.take_ports()
    assert len(set(ports) - set(few)) >= 6, ports
    assert srv.alive()


def test_set_option_outgoing_range(unbound, upstream):
    """set_option outgoing-range: ok and shown by get_option, as Unbound
    1.17; the ports in use follow the config file at the next reload."""
    srv = unbound
    extra = start(srv, upstream)
    r = ctl(srv.conf, "set_option", "outgoing-range:", "1")
    assert r.returncode == 0 and r.stdout.strip() == "ok", r
    r = ctl(srv.conf, "get_option", "outgoing-range")
    assert r.stdout.strip() == "1", r
    assert resolve(srv, "set", 4) == [dns.rcode.NOERROR] * 4
    few = few_ports()
    # two ports (Unbound shares them out among its 2 threads)
    rewrite(srv, upstream, extra, few[:2], range_=2)
    reloaded(srv, "control")
    upstream.take_ports()
    assert resolve(srv, "two", 6) == [dns.rcode.NOERROR] * 6
    assert set(upstream.take_ports()) <= set(few[:2])
    assert srv.alive()


def test_outgoing_num_tcp_at_reload(unbound, upstream):
    """outgoing-num-tcp 0 by reload: with tcp-upstream no query can go
    out (SERVFAIL here; Unbound keeps it waiting); 10 again by reload:
    answered over TCP."""
    srv = unbound
    upstream.serve_tcp()
    sock = os.path.join(srv.dir, "ctl.sock")
    extra = forward(upstream) + rc_clause(None, iface=sock, use_cert=False)
    base = body(upstream) + "tcp-upstream: yes\n"
    srv.start(base, extra=extra, threads=2)
    assert resolve(srv, "tcp", 3) == [dns.rcode.NOERROR] * 3
    assert upstream.tcp_conns >= 1
    assert upstream.take_ports() == []      # nothing over UDP
    srv.write_config(base + "outgoing-num-tcp: 0\n", extra=extra,
                     threads=2)
    reloaded(srv, "control")
    if REFERENCE:
        # Unbound 1.17 keeps such a query waiting for a TCP slot
        with pytest.raises(dns.exception.Timeout):
            srv.query("none.example.", timeout=3)
    else:
        r = srv.query("none.example.", timeout=8 * SLOW)
        assert r.rcode() == dns.rcode.SERVFAIL, r
    srv.write_config(base + "outgoing-num-tcp: 10\n", extra=extra,
                     threads=2)
    reloaded(srv, "sighup")
    assert resolve(srv, "tcpagain", 3) == [dns.rcode.NOERROR] * 3
    assert srv.alive()
