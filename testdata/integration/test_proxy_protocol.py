# SPDX-License-Identifier: BSD-3-Clause
"""proxy-protocol-port: a PROXY protocol v2 header in front of every UDP
datagram and every TCP and DNS-over-TLS connection (inside TLS, as
Unbound reads it) on the listed ports.

The headers are crafted here (socket + dnspython, from loopback) and,
for TCP, written by a real HAProxy (send-proxy-v2) started and stopped by
PID. Side by side with Debian's Unbound 1.17 (its proxy-protocol-port)
where the two behave the same: the client the header names is the one
access control, views and log-queries see; the proxy's own address is
judged by access control first (denied or refused there, the query is
dropped or refused whatever the header says); LOCAL and the unspecified
family stand for the proxy itself. A datagram without a whole, supported
header is dropped, and such a connection is closed: each kind is sent
and the drop is shown by the next good datagram's reply arriving first,
the close by end-of-file with no reply."""
import os
import shutil
import socket
import ssl
import struct
import subprocess
import time

import dns.edns
import dns.flags
import dns.message
import dns.rcode
import dns.rdatatype
import dns.rrset
import pytest

from conftest import (DEB_UNBOUND, SLOW, RefServer, Server, Upstream,
                      _finish, answer_texts, free_port, make_query,
                      ours_only, rcode_of, recv_tcp_msg, tcp_frame)

SIG = b"\r\n\r\n\x00\r\nQUIT\n"
NAME = "www.proxy.test."
WANT = ["www.proxy.test. A 192.0.2.1"]
# access-control as the tests use it; 127.0.0.1 (the harness, most
# proxies here) is allowed by the default 127.0.0.0/8 rule
ACL = """
access-control: 10.1.2.3/32 allow
access-control: 10.9.9.9/32 refuse
access-control: 10.8.8.8/32 deny
access-control: 127.0.0.5/32 refuse
access-control: 127.0.0.6/32 deny
access-control: 127.0.0.7/32 refuse
access-control: 2001:db8::1/128 allow
access-control-view: 10.1.2.3/32 pv
local-zone: "proxy.test." static
local-data: "www.proxy.test. A 192.0.2.1"
local-zone: "view.test." static
local-data: "www.view.test. A 192.0.2.1"
log-queries: yes
"""
VIEW = """
view:
\tname: "pv"
\tview-first: yes
\tlocal-zone: "view.test." static
\tlocal-data: "www.view.test. A 192.0.2.7"
"""
TIMEOUT = 2.0 * SLOW


def pp2(client="10.1.2.3", port=4242, cmd=1, fam=None, proto=2,
        body=None, tlv=b"", version=2):
    """A PROXY v2 header naming client (IPv4 or IPv6); fam, body
    override the family nibble and the address block."""
    if fam is None:
        fam = 2 if ":" in client else 1
    if body is None:
        if fam == 2:
            body = (socket.inet_pton(socket.AF_INET6, client) +
                    socket.inet_pton(socket.AF_INET6, "::1") +
                    struct.pack("!HH", port, 53))
        elif fam == 1:
            body = (socket.inet_aton(client) +
                    socket.inet_aton("127.0.0.1") +
                    struct.pack("!HH", port, 53))
        else:
            body = b""
    body += tlv
    return (SIG + bytes([version << 4 | cmd, fam << 4 | proto]) +
            struct.pack("!H", len(body)) + body)


def query_wire(name=NAME, qid=None, rdtype="A"):
    q = make_query(name, rdtype)
    if qid is not None:
        q.id = qid
    return q.to_wire(), q.id


def openssl_cert(d):
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                    "dot.key", "-out", "dot.pem", "-subj", "/CN=dot.test",
                    "-days", "2"], cwd=d, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return os.path.join(d, "dot.key"), os.path.join(d, "dot.pem")


class Proxied:
    """A daemon (ours or Debian's Unbound) with a plain port (the
    harness's readiness polls) and two proxy-protocol-ports: UDP and TCP
    on .pport, DNS over TLS on .tport."""

    def __init__(self, srv, pport, tport):
        self.srv, self.pport, self.tport = srv, pport, tport

    def udp(self, data, source="127.0.0.1", timeout=TIMEOUT):
        """Send data, return the reply message or None (no reply)."""
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.bind((source, 0))
            s.settimeout(timeout)
            s.sendto(data, ("127.0.0.1", self.pport))
            try:
                return dns.message.from_wire(s.recv(65535))
            except socket.timeout:
                return None

    def udp_dropped(self, bad, source="127.0.0.1"):
        """bad is sent, then a good datagram from the same socket: the
        first reply that comes must be the good one's (so bad had none,
        and the daemon still serves)."""
        wire, _ = query_wire(qid=1111)
        good, gid = query_wire(qid=2222)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.bind((source, 0))
            s.settimeout(TIMEOUT)
            s.sendto(bad, ("127.0.0.1", self.pport))
            s.sendto(pp2() + good, ("127.0.0.1", self.pport))
            r = dns.message.from_wire(s.recv(65535))
        assert r.id == gid, "a reply to the bad datagram came: %s" % r
        assert answer_texts(r) == WANT

    def tcp(self, data, source="127.0.0.1", port=None):
        """data on a new connection; the first framed reply."""
        with socket.create_connection(
                ("127.0.0.1", port or self.pport), TIMEOUT,
                source_address=(source, 0)) as s:
            s.settimeout(TIMEOUT)
            s.sendall(data)
            return dns.message.from_wire(recv_tcp_msg(s))

    def tcp_closed(self, data, half_close=False):
        """data on a new connection: the daemon closes it without a
        reply (end of file or reset; a timeout fails)."""
        with socket.create_connection(("127.0.0.1", self.pport),
                                      TIMEOUT) as s:
            s.settimeout(TIMEOUT)
            s.sendall(data)
            if half_close:
                s.shutdown(socket.SHUT_WR)
            try:
                got = s.recv(65535)
            except ConnectionResetError:
                got = b""
            except socket.timeout:
                pytest.fail("the connection was neither answered nor "
                            "closed")
            assert got == b"", "a reply came: %r" % got

    def tls(self, *inner, outer=b""):
        """outer bytes in cleartext, then TLS, then each of inner inside
        it (a TLS record each); the first framed reply, or None when the
        daemon closed."""
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        with socket.create_connection(("127.0.0.1", self.tport),
                                      TIMEOUT) as raw:
            raw.settimeout(TIMEOUT)
            if outer:
                raw.sendall(outer)
            try:
                with ctx.wrap_socket(raw, server_hostname="dot.test") as s:
                    for part in inner:
                        s.sendall(part)
                    wire = recv_tcp_msg(s)
                    return dns.message.from_wire(wire) if wire else None
            except (ssl.SSLError, ConnectionError, EOFError, OSError):
                return None


def start_proxied(cls, d):
    os.makedirs(d, exist_ok=True)
    key, pem = openssl_cert(d)
    srv = cls(d)
    pport, tport = free_port(), free_port()
    body = ACL + ("interface: 127.0.0.1@%d\ninterface: 127.0.0.1@%d\n"
                  "proxy-protocol-port: %d\nproxy-protocol-port: %d\n"
                  "tls-port: %d\ntls-service-key: \"%s\"\n"
                  "tls-service-pem: \"%s\"\n" %
                  (pport, tport, pport, tport, tport, key, pem))
    srv.start(body, extra=VIEW)
    return Proxied(srv, pport, tport)


IMPLS = ["ours"]
if os.path.exists(DEB_UNBOUND):
    IMPLS.append("unbound-1.17")


@pytest.fixture(scope="module", params=IMPLS)
def px(request, tmp_path_factory):
    """Each implementation once for the module."""
    cls = Server if request.param == "ours" else RefServer
    p = start_proxied(cls, str(tmp_path_factory.mktemp(request.param)))
    yield p
    _finish(p.srv)


@pytest.fixture(scope="module")
def ours(tmp_path_factory):
    p = start_proxied(Server, str(tmp_path_factory.mktemp("ours1")))
    yield p
    _finish(p.srv)


def wait_log(srv, text, timeout=5.0 * SLOW):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if text in srv.log():
            return
        time.sleep(0.05)
    pytest.fail("not in the log: %r\n%s" % (text, srv.log()[-2000:]))


# -- UDP -----------------------------------------------------------------

def test_udp_proxied_client_answered(px):
    wire, _ = query_wire()
    r = px.udp(pp2("10.1.2.3") + wire)
    assert r is not None and answer_texts(r) == WANT


def test_udp_access_control_sees_proxied_client(px):
    wire, _ = query_wire()
    # the proxy (127.0.0.1) is allowed; the client it names is refused
    assert rcode_of(px.udp(pp2("10.9.9.9") + wire)) == "REFUSED"
    # a client the header names that no rule allows: the default refuse
    assert rcode_of(px.udp(pp2("10.4.4.4") + wire)) == "REFUSED"
    # denied: dropped
    px.udp_dropped(pp2("10.8.8.8") + wire)


def test_udp_proxy_itself_judged_first(px):
    """compat: unbound-1.17: the proxy refused (127.0.0.5) or denied
    (127.0.0.6): the query is refused or dropped, though the client it
    names (10.1.2.3) is allowed."""
    wire, _ = query_wire()
    r = px.udp(pp2("10.1.2.3") + wire, source="127.0.0.5")
    assert rcode_of(r) == "REFUSED"
    assert px.udp(pp2("10.1.2.3") + wire, source="127.0.0.6",
                  timeout=0.5 * SLOW) is None
    # the same proxy addresses naming an allowed client are still
    # refused; an allowed proxy naming it is answered
    assert answer_texts(px.udp(pp2("10.1.2.3") + wire,
                               source="127.0.0.2")) == WANT


def test_udp_ipv6_client_in_header(px):
    wire, _ = query_wire()
    r = px.udp(pp2("2001:db8::1") + wire)
    assert answer_texts(r) == WANT
    assert rcode_of(px.udp(pp2("2001:db8::2") + wire)) == "REFUSED"


def test_udp_view_of_proxied_client(px):
    wire, _ = query_wire("www.view.test.")
    r = px.udp(pp2("10.1.2.3") + wire)
    assert answer_texts(r) == ["www.view.test. A 192.0.2.7"]
    # the proxy itself, directly on the plain port: no view
    r = px.srv.query("www.view.test.", "A")
    assert answer_texts(r) == ["www.view.test. A 192.0.2.1"]


def test_udp_local_and_unspec_stand_for_the_proxy(px):
    wire, _ = query_wire()
    local = pp2(cmd=0, fam=0, proto=0)
    unspec = pp2(fam=0, proto=0, body=b"")
    for h in (local, unspec, pp2(cmd=0)):
        assert answer_texts(px.udp(h + wire)) == WANT
        assert rcode_of(px.udp(h + wire, source="127.0.0.5")) == \
            "REFUSED"
    # LOCAL with 10.9.9.9 in the address block: the proxy's own
    # address counts, not the refused one in the block
    assert answer_texts(px.udp(pp2("10.9.9.9", cmd=0) + wire)) == WANT


def test_udp_tlvs_skipped(px):
    wire, _ = query_wire()
    tlv = b"\x04\x00\x04abcd" + b"\x05\x00\x03xyz"
    assert answer_texts(px.udp(pp2("10.1.2.3", tlv=tlv) + wire)) == WANT


@pytest.mark.parametrize("bad", [
    "missing", "v1-text", "truncated", "unix", "command-2", "version-1",
    "signature-only"])
def test_udp_bad_header_dropped(px, bad):
    wire, _ = query_wire(qid=1111)
    v4 = pp2("10.1.2.3")
    data = {
        "missing": wire,
        "v1-text": b"PROXY UDP4 10.1.2.3 127.0.0.1 4242 53\r\n" + wire,
        "truncated": v4[:20],
        "unix": pp2(fam=3, proto=2, body=bytes(216)) + wire,
        "command-2": pp2(cmd=2) + wire,
        "version-1": pp2(version=1) + wire,
        "signature-only": SIG,
    }[bad]
    px.udp_dropped(data)


def test_log_queries_names_proxied_client(px):
    wire, _ = query_wire("log.proxy.test.")
    r = px.udp(pp2("10.1.2.3") + wire)
    assert r is not None
    wait_log(px.srv, "10.1.2.3 log.proxy.test. A IN")
    assert "127.0.0.1 log.proxy.test. A IN" not in px.srv.log()


# -- TCP -----------------------------------------------------------------

def test_tcp_proxied_client(px):
    wire, _ = query_wire()
    assert answer_texts(px.tcp(pp2("10.1.2.3", proto=1) +
                               tcp_frame(wire))) == WANT
    assert rcode_of(px.tcp(pp2("10.9.9.9", proto=1) +
                           tcp_frame(wire))) == "REFUSED"
    r = px.tcp(pp2("10.1.2.3", proto=1) + tcp_frame(wire),
               source="127.0.0.5")
    assert rcode_of(r) == "REFUSED"


def test_tcp_header_in_pieces_then_queries(px):
    """The header may come in several segments; two queries follow on
    the same connection, both for the proxied client (its view)."""
    w1, _ = query_wire("www.view.test.")
    w2, _ = query_wire()
    h = pp2("10.1.2.3", proto=1)
    with socket.create_connection(("127.0.0.1", px.pport), TIMEOUT) as s:
        s.settimeout(TIMEOUT)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for part in (h[:5], h[5:17], h[17:]):
            s.sendall(part)
            time.sleep(0.02)   # separate segments, not an assertion
        s.sendall(tcp_frame(w1) + tcp_frame(w2))
        r1 = dns.message.from_wire(recv_tcp_msg(s))
        r2 = dns.message.from_wire(recv_tcp_msg(s))
    assert answer_texts(r1) == ["www.view.test. A 192.0.2.7"]
    assert answer_texts(r2) == WANT


@pytest.mark.parametrize("bad", [
    "missing", "v1-text", "unix", "command-2", "version-1"])
def test_tcp_bad_header_closed(px, bad):
    wire, _ = query_wire()
    data = {
        "missing": tcp_frame(wire),
        "v1-text": b"PROXY TCP4 10.1.2.3 127.0.0.1 4242 53\r\n",
        "unix": pp2(fam=3, proto=1, body=bytes(216)),
        "command-2": pp2(cmd=2, proto=1),
        "version-1": pp2(version=1, proto=1),
    }[bad]
    px.tcp_closed(data + tcp_frame(wire))


@ours_only
def test_address_block_short_for_family(ours):
    """compat: unbound-1.19: a length too short for the family's
    addresses (8 bytes for IPv4) is a bad header: the datagram dropped,
    the connection closed. Unbound 1.17 read the address past the
    block (fixed in later releases)."""
    wire, _ = query_wire()
    ours.udp_dropped(pp2(body=bytes(8)) + wire)
    ours.tcp_closed(pp2(proto=1, body=bytes(8)) + tcp_frame(wire))
    ours.udp_dropped(pp2("2001:db8::1", body=bytes(20)) + wire)


def test_tcp_truncated_header_closed(px):
    """Part of a header and the client's end of sending: closed."""
    px.tcp_closed(pp2("10.1.2.3", proto=1)[:20], half_close=True)


# -- DNS over TLS --------------------------------------------------------

def test_tls_header_inside_tls(px):
    """compat: unbound-1.17: on a TLS port the header is the first thing
    inside TLS (as dnsdist sends it); here in a TLS record of its own."""
    wire, _ = query_wire("www.view.test.")
    r = px.tls(pp2("10.1.2.3", proto=1), tcp_frame(wire))
    assert r is not None and answer_texts(r) == [
        "www.view.test. A 192.0.2.7"]
    r = px.tls(pp2("10.9.9.9", proto=1), tcp_frame(wire))
    assert r is not None and rcode_of(r) == "REFUSED"


@ours_only
def test_tls_header_and_query_in_one_record(ours):
    """compat: unbound-1.17: unlike Unbound 1.17, which reads the header
    and leaves the query that came in the same TLS record unread until
    more bytes arrive (the client waits), it is answered at once."""
    wire, _ = query_wire()
    r = ours.tls(pp2("10.1.2.3", proto=1) + tcp_frame(wire))
    assert r is not None and answer_texts(r) == WANT


def test_tls_without_header_closed(px):
    wire, _ = query_wire()
    assert px.tls(tcp_frame(wire) + tcp_frame(wire)) is None
    # in cleartext before TLS: the handshake fails
    assert px.tls(tcp_frame(wire),
                  outer=pp2("10.1.2.3", proto=1)) is None


# -- ours: the reply after recursion, rate limits ------------------------

@ours_only
def test_udp_deferred_reply_goes_to_proxy(tmp_path, upstream):
    """A query that waits for recursion: its later reply goes to the
    proxy that sent the datagram, not to the client in the header."""
    srv = Server(str(tmp_path))
    pport = free_port()
    try:
        srv.start(ACL + "interface: 127.0.0.1@%d\n"
                  "proxy-protocol-port: %d\n" % (pport, pport),
                  extra=VIEW + upstream.stub_zone("example.com."))
        p = Proxied(srv, pport, None)
        wire, _ = query_wire("www.example.com.")
        r = p.udp(pp2("10.1.2.3") + wire, timeout=3.0 * SLOW)
        assert r is not None and answer_texts(r) == [
            "www.example.com. A 192.0.2.253"]
        assert upstream.queries("www.example.com.", "A")
        wait_log(srv, "10.1.2.3 www.example.com. A IN")
    finally:
        _finish(srv)


@ours_only
def test_ip_ratelimit_counts_proxied_clients(tmp_path):
    """ip-ratelimit: 10, factor 0: a flood naming 10.1.2.3 is limited,
    while 2001:db8::1 behind the same proxy is still answered."""
    srv = Server(str(tmp_path))
    pport = free_port()
    try:
        srv.start(ACL + "interface: 127.0.0.1@%d\n"
                  "proxy-protocol-port: %d\nip-ratelimit: 10\n"
                  "ip-ratelimit-factor: 0\n" % (pport, pport),
                  extra=VIEW)
        p = Proxied(srv, pport, None)
        wire, _ = query_wire()
        answered = 0
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.settimeout(0.3 * SLOW)
            for _ in range(40):
                s.sendto(pp2("10.1.2.3") + wire, ("127.0.0.1", pport))
            try:
                while True:
                    s.recv(65535)
                    answered += 1
            except socket.timeout:
                pass
        assert 0 < answered < 40, answered
        assert answer_texts(p.udp(pp2("2001:db8::1") + wire)) == WANT
    finally:
        _finish(srv)


class EcsUpstream(Upstream):
    """An Upstream that also keeps the client subnet (address/source)
    of every query that has one."""

    def __init__(self):
        self.subnets = []
        super().__init__()

    def _serve(self):
        self.sock.settimeout(0.2)
        while not self.done.is_set():
            try:
                wire, src = self.sock.recvfrom(65535)
                q = dns.message.from_wire(wire)
            except socket.timeout:
                continue
            except OSError:
                return
            except Exception:
                continue
            for o in q.options:
                if isinstance(o, dns.edns.ECSOption):
                    with self.lock:
                        self.subnets.append("%s/%d" % (o.address,
                                                       o.srclen))
            r = dns.message.make_response(q)
            r.flags |= dns.flags.AA
            if q.question[0].rdtype == dns.rdatatype.A:
                r.answer.append(dns.rrset.from_text(
                    q.question[0].name, 300, "IN", "A", "192.0.2.253"))
            try:
                self.sock.sendto(r.to_wire(), src)
            except OSError:
                pass


@ours_only
def test_client_subnet_is_proxied_client(tmp_path):
    """subnetcache: the ECS option sent upstream carries the client the
    header names (10.1.2.3 -> 10.1.2.0/24), not the proxy's address."""
    up = EcsUpstream()
    srv = Server(str(tmp_path))
    pport = free_port()
    try:
        srv.start(ACL + "interface: 127.0.0.1@%d\n"
                  "proxy-protocol-port: %d\n"
                  'module-config: "subnetcache iterator"\n'
                  "send-client-subnet: 127.0.0.1\n" % (pport, pport),
                  extra=VIEW + up.stub_zone("example.net."))
        p = Proxied(srv, pport, None)
        wire, _ = query_wire("www.example.net.")
        r = p.udp(pp2("10.1.2.3") + wire, timeout=3.0 * SLOW)
        assert r is not None and answer_texts(r) == [
            "www.example.net. A 192.0.2.253"], (rcode_of(r), up.subnets)
        with up.lock:
            seen = list(up.subnets)
        assert "10.1.2.0/24" in seen, seen
        assert not any(x.startswith("127.") for x in seen), seen
    finally:
        _finish(srv)
        up.close()


# -- a real HAProxy in front (TCP, send-proxy-v2) ------------------------

HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"


@pytest.mark.skipif(not os.path.exists(HAPROXY), reason="needs haproxy")
def test_haproxy_send_proxy_v2(px, tmp_path):
    """HAProxy in TCP mode on loopback passes the client's address in a
    PROXY v2 header: a client from 127.0.0.7 (refused) is refused though
    HAProxy's own address is allowed; one from 127.0.0.8 is answered."""
    hport = free_port()
    cfg = tmp_path / "haproxy.cfg"
    cfg.write_text(
        "global\n\tmaxconn 64\n"
        "defaults\n\tmode tcp\n\ttimeout connect 2s\n"
        "\ttimeout client 10s\n\ttimeout server 10s\n"
        "frontend dns\n\tbind 127.0.0.1:%d\n\tdefault_backend ub\n"
        "backend ub\n\tserver ub 127.0.0.1:%d send-proxy-v2\n" %
        (hport, px.pport))
    with open(tmp_path / "haproxy.out", "wb") as out:
        proc = subprocess.Popen([HAPROXY, "-db", "-f", str(cfg)],
                                stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
    try:
        deadline = time.time() + 10 * SLOW
        while True:
            try:
                socket.create_connection(("127.0.0.1", hport), 1).close()
                break
            except OSError:
                assert proc.poll() is None, (
                    tmp_path / "haproxy.out").read_text()
                assert time.time() < deadline, "haproxy did not listen"
                time.sleep(0.05)
        wire, _ = query_wire("hap.proxy.test.")
        r = px.tcp(tcp_frame(wire), source="127.0.0.8", port=hport)
        assert rcode_of(r) == "NXDOMAIN"
        wait_log(px.srv, "127.0.0.8 hap.proxy.test. A IN")
        wire, _ = query_wire()
        r = px.tcp(tcp_frame(wire), source="127.0.0.7", port=hport)
        assert rcode_of(r) == "REFUSED"
        r = px.tcp(tcp_frame(wire), source="127.0.0.8", port=hport)
        assert answer_texts(r) == WANT
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
