# SPDX-License-Identifier: BSD-3-Clause
"""Transport options of issue 29, side by side with Debian's Unbound 1.17
(which has them all): stub-tcp-upstream and forward-tcp-upstream (one
zone's upstream queries over TCP, another zone's still UDP),
udp-upstream-without-downstream (do-udp: no takes UDP from the upstream
queries too, unless it is set), delay-close (a late reply lands on an
open port: no ICMP port unreachable back to the server, the reply is
taken and the port closed) and stream-wait-size (a TCP client that does
not read its answers: the waiting bytes are mem.streamwait; over the
limit the connection is dropped)."""
import os
import socket
import subprocess
import threading
import time

import dns.flags
import dns.message
import dns.rdatatype
import dns.rrset
import pytest

from conftest import (BUILDDIR, SLOW, RefServer, Server, _finish,
                      control_clause, make_query, recv_tcp_msg, tcp_frame)

OUR_CTL = os.path.join(BUILDDIR, "unbound-control")
IMPLS = [Server, RefServer]
IDS = ["ours", "reference"]
IP_RECVERR = getattr(socket, "IP_RECVERR", 11)
MSG_ERRQUEUE = getattr(socket, "MSG_ERRQUEUE", 0x2000)


def poll(cond, what, timeout=5.0):
    deadline = time.time() + timeout * SLOW
    while True:
        v = cond()
        if v:
            return v
        assert time.time() < deadline, "timed out waiting for " + what
        time.sleep(0.02)


class TransportUpstream:
    """The server of the test zones on one port, UDP and TCP: logs each
    query (protocol, qname, source) and answers A 192.0.2.9; UDP queries
    whose qname starts with "late" are held (not answered) for the test
    to answer late. Its UDP socket reports ICMP errors (IP_RECVERR)."""

    def __init__(self):
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.setsockopt(socket.IPPROTO_IP, IP_RECVERR, 1)
        self.udp.bind(("127.0.0.1", 0))
        self.port = self.udp.getsockname()[1]
        self.tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.tcp.bind(("127.0.0.1", self.port))
        self.tcp.listen(16)
        self.log = []      # (proto, qname lowercased)
        self.held = []     # (qname, query wire, source)
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.threads = [threading.Thread(target=f, daemon=True)
                        for f in (self._udp, self._accept)]
        for t in self.threads:
            t.start()

    def stub(self, zone, tcp=None, forward=False):
        kind = "forward" if forward else "stub"
        s = '%s-zone:\n\tname: "%s"\n\t%s-addr: 127.0.0.1@%d\n' % (
            kind, zone, kind, self.port)
        if tcp is not None:
            s += "\t%s-tcp-upstream: %s\n" % (kind, tcp)
        return s

    @staticmethod
    def reply(q):
        r = dns.message.make_response(q)
        r.flags |= dns.flags.AA
        if q.question[0].rdtype == dns.rdatatype.A:
            r.answer.append(dns.rrset.from_text(
                q.question[0].name, 300, "IN", "A", "192.0.2.9"))
        return r.to_wire()

    def _note(self, proto, wire):
        q = dns.message.from_wire(wire)
        name = q.question[0].name.to_text().lower()
        with self.lock:
            self.log.append((proto, name))
        return q, name

    def _udp(self):
        self.udp.settimeout(0.2)
        while not self.done.is_set():
            try:
                wire, src = self.udp.recvfrom(65535)
            except socket.timeout:
                continue
            except ConnectionRefusedError:   # an ICMP error (RECVERR)
                continue
            except OSError:
                return
            try:
                q, name = self._note("udp", wire)
            except Exception:
                continue
            if name.startswith("late"):
                with self.lock:
                    self.held.append((name, wire, src))
                continue
            if name.startswith("slow"):
                threading.Timer(0.3, self._send, (self.reply(q), src)).start()
                continue
            self._send(self.reply(q), src)

    def _send(self, wire, dst):
        # a send reports an ICMP error queued before (IP_RECVERR) and
        # sends nothing: once more then
        for _ in range(2):
            try:
                self.udp.sendto(wire, dst)
                return
            except OSError:
                pass

    def _accept(self):
        self.tcp.settimeout(0.2)
        while not self.done.is_set():
            try:
                c, _ = self.tcp.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            threading.Thread(target=self._serve, args=(c,),
                             daemon=True).start()

    def _serve(self, c):
        c.settimeout(5)
        try:
            while not self.done.is_set():
                wire = recv_tcp_msg(c)
                if wire is None:
                    return
                q, _ = self._note("tcp", wire)
                c.sendall(tcp_frame(self.reply(q)))
        except Exception:
            pass
        finally:
            c.close()

    def protos(self, name):
        with self.lock:
            return {p for p, n in self.log if n == name.lower()}

    def held_for(self, name):
        with self.lock:
            return [h for h in self.held if h[0] == name.lower()]

    def send_late(self, held):
        """The reply to a held query, to the port it came from."""
        _, wire, src = held
        out = self.reply(dns.message.from_wire(wire))
        self.udp.sendto(out, src)
        return out[:2]

    def icmp_errors(self):
        """The IDs of our datagrams that came back as ICMP errors."""
        ids = []
        while True:
            try:
                data, _, _, _ = self.udp.recvmsg(
                    4096, 1024, MSG_ERRQUEUE | socket.MSG_DONTWAIT)
            except (BlockingIOError, InterruptedError, socket.timeout):
                return ids
            ids.append(data[:2])

    def close(self):
        self.done.set()
        for t in self.threads:
            t.join(5)
        self.udp.close()
        self.tcp.close()


@pytest.fixture(scope="module")
def up():
    u = TransportUpstream()
    yield u
    u.close()


BASE = ('local-zone: "test." nodefault\ndomain-insecure: "test."\n'
        "qname-minimisation: no\n")


def start_tcp_only(srv, body, extra=""):
    """Start a daemon with do-udp: no: ready when it answers over TCP."""
    srv.start(body, extra=extra, wait=False)
    deadline = time.time() + 15 * SLOW
    while True:
        assert srv.alive(), srv.output()[-2000:]
        try:
            srv.query("version.server.", "TXT", "CH", tcp=True,
                      timeout=0.3)
            return
        except Exception:
            assert time.time() < deadline, srv.output()[-2000:]
            time.sleep(0.1)


# -- stub-tcp-upstream, forward-tcp-upstream ------------------------------

@pytest.mark.parametrize("cls", IMPLS, ids=IDS)
def test_zone_tcp_upstream(cls, up, tmp_path):
    """stub-tcp-upstream and forward-tcp-upstream: that zone's queries go
    over TCP only; zones without them still over UDP."""
    srv = cls(tmp_path)
    extra = (up.stub("stcp.test.", "yes") + up.stub("sudp.test.", "no") +
             up.stub("ftcp.test.", "yes", forward=True) +
             up.stub("fudp.test.", forward=True))
    try:
        srv.start(BASE, extra=extra)
        for zone, want in (("stcp", "tcp"), ("sudp", "udp"),
                           ("ftcp", "tcp"), ("fudp", "udp")):
            name = "a.%s.%s.test." % (cls.__name__.lower(), zone)
            r = srv.query(name, timeout=3 * SLOW)
            assert [rd.to_text() for rr in r.answer for rd in rr] == \
                ["192.0.2.9"], r
            assert up.protos(name) == {want}, (zone, up.protos(name))
    finally:
        _finish(srv)


# -- udp-upstream-without-downstream --------------------------------------

@pytest.mark.parametrize("cls", IMPLS, ids=IDS)
@pytest.mark.parametrize("opt", ["unset", "yes"])
def test_udp_upstream_without_downstream(cls, opt, up, tmp_path):
    """do-udp: no: upstream queries over TCP as well (the UDP port is not
    served); with udp-upstream-without-downstream: yes over UDP."""
    srv = cls(tmp_path)
    body = BASE + "do-udp: no\n"
    if opt == "yes":
        body += "udp-upstream-without-downstream: yes\n"
    try:
        start_tcp_only(srv, body, extra=up.stub("uwd.test."))
        name = "%s-%s.uwd.test." % (cls.__name__.lower(), opt)
        r = srv.query(name, tcp=True, timeout=3 * SLOW)
        assert [rd.to_text() for rr in r.answer for rd in rr] == \
            ["192.0.2.9"], r
        assert up.protos(name) == {"udp" if opt == "yes" else "tcp"}, \
            up.protos(name)
    finally:
        _finish(srv)


# -- delay-close -----------------------------------------------------------

def udp_port_open(port, pid):
    """Does pid have a UDP socket on local port `port`?"""
    out = subprocess.run(["ss", "-uanpH", "sport = :%d" % port],
                         capture_output=True, text=True, check=True).stdout
    return any("pid=%d," % pid in l for l in out.splitlines())


@pytest.mark.parametrize("cls", IMPLS, ids=IDS)
@pytest.mark.parametrize("delay", [0, 4000])
def test_delay_close(cls, delay, up, tmp_path):
    """The upstream holds a query past its timeout (the resolver has
    sent it again) and then answers it. delay-close: the timed out port
    is still open, the late reply lands there (no ICMP port unreachable
    comes back) and the port closes; without it the port is closed at
    the timeout and the late reply bounces."""
    srv = cls(tmp_path)
    body = BASE + ("delay-close: %d\n" % delay if delay else "")
    name = "late-%s-%d.dc.test." % (cls.__name__.lower(), delay)
    client = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        srv.start(body, extra=up.stub("dc.test."))
        client.sendto(make_query(name).to_wire(), ("127.0.0.1", srv.port))
        # the first query timed out when the second one comes
        held = poll(lambda: len(up.held_for(name)) >= 2 and
                    up.held_for(name), "the query sent again")
        first = held[0]
        port = first[2][1]
        if delay:
            assert udp_port_open(port, srv.pid), "closed at the timeout"
        else:
            poll(lambda: not udp_port_open(port, srv.pid),
                 "the port closed at the timeout")
        qid = up.send_late(first)
        if delay:
            # taken: the port closes now, long before delay-close ends
            poll(lambda: not udp_port_open(port, srv.pid),
                 "the late reply taken and its port closed", 2.0)
            assert qid not in up.icmp_errors()
        else:
            poll(lambda: qid in up.icmp_errors(), "port unreachable")
    finally:
        client.close()
        _finish(srv)


# -- stream-wait-size ------------------------------------------------------

# answers of about 60 KB: NQ of them are more than the kernel's largest
# send buffer (tcp_wmem, 4 MB)
TXT = " ".join('"%s"' % (chr(97 + i % 26) * 250) for i in range(240))
NQ = 150
NSLOW = 20


def streamwait(srv):
    r = subprocess.run([OUR_CTL, "-c", srv.conf, "stats_noreset"],
                       capture_output=True, text=True, timeout=10)
    assert r.returncode == 0, r.stdout + r.stderr
    for l in r.stdout.splitlines():
        if l.startswith("mem.streamwait="):
            return int(l.split("=")[1])
    raise AssertionError("no mem.streamwait in:\n" + r.stdout)


def non_reader(srv, tag):
    """A client with a small receive buffer that asks NSLOW questions
    the upstream answers 0.3 s late, then NQ with big local answers, and
    reads nothing: the late answers come while the big ones wait for
    it (Unbound queues only replies that come while it writes)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", srv.port))
    qs = [make_query("slow%d-%s.sw.test." % (i, tag), qid=NQ + i)
          for i in range(NSLOW)]
    qs += [make_query("big.local.test.", "TXT", qid=i) for i in range(NQ)]
    s.sendall(b"".join(tcp_frame(q.to_wire()) for q in qs))
    return s


def tcp_conn_owned(pid, client_port):
    """Does pid still have the server side of the connection from
    client_port open (a closed one may linger in the kernel, owned by
    no process, to send what was queued)?"""
    out = subprocess.run(["ss", "-tanpH", "dport = :%d" % client_port],
                         capture_output=True, text=True, check=True).stdout
    return any("pid=%d," % pid in l for l in out.splitlines())


def read_all(s):
    """The IDs of the answers read until the server closes."""
    ids = []
    s.settimeout(10 * SLOW)
    try:
        while True:
            wire = recv_tcp_msg(s)
            if wire is None:
                return ids
            ids.append(dns.message.from_wire(wire).id)
            if len(ids) == NQ + NSLOW:
                return ids
    except ConnectionResetError:
        return ids


@pytest.mark.parametrize("cls", IMPLS, ids=IDS)
@pytest.mark.parametrize("size", ["default", "1k"])
def test_stream_wait_size(cls, size, up, tmp_path):
    """A client that does not read: its answers wait, counted in
    mem.streamwait; read later, all are there and the count is 0 again.
    With stream-wait-size: 1k the connection is dropped instead: the
    client reads what was sent before, then the end."""
    srv = cls(tmp_path)
    sock = os.path.join(str(tmp_path), "ctl.sock")
    body = BASE + ("local-data: 'big.local.test. 300 IN TXT %s'\n"
                   "extended-statistics: yes\n" % TXT)
    if size != "default":
        body += "stream-wait-size: %s\n" % size
    s = None
    try:
        srv.start(body, extra=up.stub("sw.test.") + control_clause(sock))
        assert streamwait(srv) == 0
        s = non_reader(srv, "%s-%s" % (cls.__name__.lower(), size))
        if size == "default":
            poll(lambda: streamwait(srv) > 0, "mem.streamwait > 0")
        else:
            port = s.getsockname()[1]
            poll(lambda: not tcp_conn_owned(srv.pid, port),
                 "the connection closed by the server")
        ids = read_all(s)
        if size == "default":
            assert sorted(ids) == list(range(NQ + NSLOW))
        else:
            assert len(ids) < NQ + NSLOW, "not dropped"
        poll(lambda: streamwait(srv) == 0, "mem.streamwait 0")
    finally:
        if s:
            s.close()
        _finish(srv)
