# SPDX-License-Identifier: BSD-3-Clause
"""DNS over HTTPS to clients (RFC 8484): https-port with TLS and ALPN h2
(kdig +https POST and +https-get, curl) and in cleartext
(http-notls-downstream: yes; curl --http2-prior-knowledge, Python's h2
for crafted requests); Unbound 1.17's HTTP status per stream (404 wrong
path, 501 method, 415 content type, 413 too large, 400 bad ?dns=), other
streams and connections unaffected; http-max-streams, http-endpoint,
http-query-buffer-size and http-response-buffer-size; answers from the
mesh (a slow upstream: the scripted responder) out of order, and a
connection closed while they are pending; Cache-Control max-age;
num.query.https and mem.http.* in the statistics.

Runs against the reference too (UNBOUND_BIN=/usr/sbin/unbound, Debian's
Unbound is built with libnghttp2); what it does differently is marked."""
import base64
import collections
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import time

import dns.edns
import dns.message
import dns.rcode
import h2.config
import h2.connection
import h2.events
import h2.exceptions
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from testnet.responder_ctl import ResponderInstance  # noqa: E402
from conftest import (BUILDDIR, REFERENCE, SLOW, Server, _finish,  # noqa: E402
                      control_clause, control_stats, free_port, ours_only, sockets_on_port)

CTL = "/usr/sbin/unbound-control" if REFERENCE else \
    os.path.join(BUILDDIR, "unbound-control")

LOCAL = """local-zone: "doh.test." static
local-data: "a.doh.test. 300 IN A 192.0.2.1"
local-data: "b.doh.test. 77 IN A 192.0.2.2"
local-data: "big.doh.test. 300 IN TXT \\"%s\\" \\"%s\\""
local-data: "huge.doh.test. 300 IN TXT \\"%s\\" \\"%s\\" \\"%s\\""
""" % ("x" * 200, "y" * 200, "x" * 250, "y" * 250, "z" * 250)

SLOW_MS = 600
Spec = collections.namedtuple("Spec", "name origin records rules default")


def make_cert(d):
    key, cert = os.path.join(d, "key.pem"), os.path.join(d, "cert.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:P-256", "-nodes", "-keyout", key,
                    "-out", cert, "-days", "30", "-subj", "/CN=doh.test"],
                   check=True, capture_output=True)
    return key, cert


@pytest.fixture(scope="module")
def upstream(tmp_path_factory):
    """slow.example. on a loopback responder: s.slow.example answers after
    SLOW_MS, c.slow.example is a CNAME (TTL 60) to a.slow.example (TTL 300)."""
    d = str(tmp_path_factory.mktemp("upstream"))
    spec = Spec("slow", "slow.example.", [
        "slow.example. 3600 IN SOA ns.slow.example. h.slow.example. 1 3600 600 "
        "86400 30",
        "slow.example. 3600 IN NS ns.slow.example.",
        "ns.slow.example. 3600 IN A 127.0.0.1",
        "s.slow.example. 300 IN A 192.0.2.50",
        "c.slow.example. 60 IN CNAME a.slow.example.",
        "a.slow.example. 300 IN A 192.0.2.51",
        "big.slow.example. 300 IN TXT \"%s\"" % ("z" * 250)],
        [{"name": "s.slow.example.", "suffix": False,
          "actions": [{"type": "delay", "ms": SLOW_MS}]}], [])
    r = ResponderInstance(spec, d, "127.0.0.1", free_port())
    r.write()
    r.start()
    r.wait_ready()
    yield r
    r.stop()


def start_doh(tmp, upstream, tls, extra_body=""):
    srv = Server(tmp)
    srv.https = free_port()
    body = LOCAL + "interface: 127.0.0.1@%d\nhttps-port: %d\n" % (
        srv.https, srv.https)
    if tls:
        key, cert = make_cert(str(tmp))
        body += 'tls-service-key: "%s"\ntls-service-pem: "%s"\n' % (key,
                                                                   cert)
    else:
        body += "http-notls-downstream: yes\n"
    body += "extended-statistics: yes\n" + extra_body
    extra = control_clause(os.path.join(str(tmp), "ctl.sock"))
    extra += ('forward-zone:\n\tname: "slow.example."\n'
              "\tforward-addr: 127.0.0.1@%d\n" % upstream.port)
    srv.start(body, extra=extra)
    return srv


@pytest.fixture(scope="module")
def tls_srv(tmp_path_factory, upstream):
    srv = start_doh(tmp_path_factory.mktemp("doh_tls"), upstream, True)
    yield srv
    _finish(srv)


@pytest.fixture(scope="module")
def h2c_srv(tmp_path_factory, upstream):
    srv = start_doh(tmp_path_factory.mktemp("doh_h2c"), upstream, False,
                    "http-max-streams: 4\nedns-tcp-keepalive: yes\n"
                    "edns-tcp-keepalive-timeout: 30000\n")
    yield srv
    _finish(srv)


def qwire(name, rdtype="A", qid=0):
    q = dns.message.make_query(name, rdtype)
    q.id = qid
    return q.to_wire()


def b64(wire):
    return base64.urlsafe_b64encode(wire).decode().rstrip("=")


def stats(srv):
    return control_stats(CTL, srv.conf)


def curl(srv, path, tls=False, args=()):
    """(status, headers dict, body) of one request."""
    url = "%s://127.0.0.1:%d%s" % ("https" if tls else "http", srv.https,
                                   path)
    flags = ["-k", "--http2"] if tls else ["--http2-prior-knowledge"]
    r = subprocess.run(["curl", "-s", "-D", "-", "-o", "/dev/stdout",
                        "--max-time", str(5 * SLOW)] + flags + list(args) +
                       [url], capture_output=True, timeout=10 * SLOW)
    head, _, body = r.stdout.partition(b"\r\n\r\n")
    lines = head.decode("latin1").split("\r\n")
    assert lines[0].startswith("HTTP/2 "), (r.returncode, r.stdout,
                                            r.stderr)
    hdrs = dict(l.split(": ", 1) for l in lines[1:] if ": " in l)
    return int(lines[0].split()[1]), hdrs, body


class H2Client:
    """One HTTP/2 connection for crafted requests (cleartext, prior
    knowledge, or TLS with ALPN h2)."""

    def __init__(self, port, tls=False):
        self.sock = socket.create_connection(("127.0.0.1", port),
                                             timeout=5 * SLOW)
        if tls:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
            ctx.set_alpn_protocols(["h2"])
            self.sock = ctx.wrap_socket(self.sock)
        self.conn = h2.connection.H2Connection(
            h2.config.H2Configuration(client_side=True,
                                      header_encoding="utf-8"))
        self.conn.initiate_connection()
        self.sock.sendall(self.conn.data_to_send())
        self.results = {}   # stream id: (status, headers, body) or reset
        self.order = []     # stream ids in the order they ended
        self.bodies = collections.defaultdict(bytes)
        self.heads = {}

    def request(self, method, path, body=None, headers=(), send=True):
        sid = self.conn.get_next_available_stream_id()
        hdrs = [(":method", method), (":path", path), (":scheme", "http"),
                (":authority", "doh.test")] + list(headers)
        if body is not None:
            hdrs.append(("content-length", str(len(body))))
        self.conn.send_headers(sid, hdrs, end_stream=body is None)
        if body is not None:
            self.conn.send_data(sid, body, end_stream=True)
        if send:
            self.flush()
        return sid

    def get(self, wire, path="/dns-query", send=True):
        return self.request("GET", path + "?dns=" + b64(wire), send=send)

    def post(self, wire, ctype="application/dns-message", send=True):
        return self.request("POST", "/dns-query", wire,
                            [("content-type", ctype)], send=send)

    def flush(self):
        data = self.conn.data_to_send()
        if data:
            self.sock.sendall(data)

    def wait(self, sids, timeout=5.0):
        """Read until every stream in sids ended or was reset."""
        deadline = time.time() + timeout * SLOW
        while not all(s in self.results for s in sids):
            assert time.time() < deadline, "no end for %s" % [
                s for s in sids if s not in self.results]
            data = self.sock.recv(65536)
            assert data, "connection closed"
            for ev in self.conn.receive_data(data):
                self.event(ev)
            self.flush()
        return [self.results[s] for s in sids]

    def event(self, ev):
        if isinstance(ev, h2.events.ResponseReceived):
            self.heads[ev.stream_id] = dict(ev.headers)
        elif isinstance(ev, h2.events.DataReceived):
            self.bodies[ev.stream_id] += ev.data
            self.conn.acknowledge_received_data(
                ev.flow_controlled_length, ev.stream_id)
        elif isinstance(ev, h2.events.StreamEnded):
            h = self.heads.get(ev.stream_id, {})
            self.results[ev.stream_id] = (int(h.get(":status", 0)), h,
                                          self.bodies[ev.stream_id])
            self.order.append(ev.stream_id)
        elif isinstance(ev, h2.events.StreamReset):
            self.results[ev.stream_id] = ("reset", ev.error_code)
            self.order.append(ev.stream_id)

    def close(self):
        self.sock.close()


def dns_of(result):
    status, hdrs, body = result
    assert status == 200, result
    assert hdrs["content-type"] == "application/dns-message"
    assert int(hdrs["content-length"]) == len(body)
    return dns.message.from_wire(body)


def addrs(msg):
    return sorted(rd.to_text() for rr in msg.answer for rd in rr
                  if rr.rdtype == 1)


# -- real clients over TLS ---------------------------------------------

@pytest.mark.parametrize("method", ["+https", "+https-get"])
def test_kdig(tls_srv, method):
    """kdig's POST (+https) and GET (+https-get) over TLS with ALPN h2."""
    r = subprocess.run(["kdig", "@127.0.0.1", "-p", str(tls_srv.https),
                        method, "+time=5", "+retry=0", "a.doh.test", "A"],
                       capture_output=True, text=True, timeout=20 * SLOW)
    assert r.returncode == 0, r.stdout + r.stderr
    assert re.search(r"a\.doh\.test\.\s+300\s+IN\s+A\s+192\.0\.2\.1",
                     r.stdout), r.stdout
    want = "HTTP/2-GET" if method == "+https-get" else "HTTP/2-POST"
    assert want in r.stdout and "status: 200" in r.stdout, r.stdout


def test_curl_tls_get(tls_srv):
    status, hdrs, body = curl(tls_srv, "/dns-query?dns=" +
                              b64(qwire("b.doh.test")), tls=True)
    m = dns_of((status, hdrs, body))
    assert m.id == 0 and addrs(m) == ["192.0.2.2"]


def test_h2_tls_recursion(tls_srv):
    """A mesh answer (forwarded, slow) over TLS, and one from the cache
    on the same connection that is answered first."""
    c = H2Client(tls_srv.https, tls=True)
    slow = c.post(qwire("s.slow.example", qid=0))
    fast = c.get(qwire("a.doh.test"))
    rs, rf = c.wait([slow, fast])
    assert addrs(dns_of(rs)) == ["192.0.2.50"]
    assert addrs(dns_of(rf)) == ["192.0.2.1"]
    assert c.order == [fast, slow]
    c.close()


def test_dnsperf_pipelined(tls_srv, tmp_path):
    """dnsperf -m doh with ten queries in flight on one connection: all
    answered (its client stalls when several answers share one TLS
    record, which OpenSSL's read-ahead on the server brought about)."""
    qf = tmp_path / "q.txt"
    qf.write_text("a.doh.test A\nb.doh.test A\n" * 50)
    r = subprocess.run(["dnsperf", "-m", "doh", "-s", "127.0.0.1", "-p",
                        str(tls_srv.https), "-d", str(qf), "-c", "1",
                        "-q", "10", "-n", "1", "-t", str(2 * SLOW)],
                       capture_output=True, text=True, timeout=30 * SLOW)
    assert "Queries completed:    100 (100.00%)" in r.stdout, r.stdout


@ours_only
def test_cache_control_max_age(tls_srv):
    """RFC 8484 5.1: max-age is the smallest TTL (the CNAME's 60, not
    the target's 300); Unbound 1.17 sends no Cache-Control at all."""
    status, hdrs, _ = curl(tls_srv, "/dns-query?dns=" +
                           b64(qwire("c.slow.example")), tls=True)
    assert status == 200 and hdrs.get("cache-control") == "max-age=60"
    status, hdrs, _ = curl(tls_srv, "/dns-query?dns=" +
                           b64(qwire("b.doh.test")), tls=True)
    assert hdrs.get("cache-control") == "max-age=77"


# -- errors, cleartext ----------------------------------------------------

ERRORS = [
    ("wrong path", "/other?dns=" + b64(qwire("a.doh.test")), (), 404),
    ("extra after path", "/dns-query?foo=1", (), 404),
    ("PUT", "/dns-query?dns=" + b64(qwire("a.doh.test")), ("-X", "PUT"),
     501),
    ("bad base64", "/dns-query?dns=@@@@", (), 400),
    ("GET without dns", "/dns-query", (), 400),
    ("wrong content type", "/dns-query",
     ("-H", "content-type: text/plain", "--data-binary", "x" * 30), 415),
    ("upper-case content type", "/dns-query",
     ("-H", "content-type: Application/dns-message", "--data-binary",
      "x" * 30), 415),
]


@pytest.mark.parametrize("what,path,args,status", ERRORS,
                         ids=[e[0] for e in ERRORS])
def test_curl_errors(h2c_srv, what, path, args, status):
    got, _, body = curl(h2c_srv, path, args=args)
    assert got == status, (what, got, body)


def test_too_large_post(h2c_srv, tmp_path):
    """A body over 65535 bytes: 413 (curl handles the flow control)."""
    big = tmp_path / "big.bin"
    big.write_bytes(b"x" * 70000)
    got, _, body = curl(h2c_srv, "/dns-query", args=(
        "-H", "content-type: application/dns-message", "--data-binary",
        "@%s" % big))
    assert got == 413 and body == b"Payload Too Large"


def test_malformed_dns_is_formerr(h2c_srv):
    """A header, then garbage: the DNS answer FORMERR, HTTP 200."""
    wire = b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x05abc"
    got, hdrs, body = curl(h2c_srv, "/dns-query?dns=" + b64(wire))
    assert got == 200
    assert body[:2] == b"\x12\x34" and body[2] & 0x80
    assert body[3] & 0xf == dns.rcode.FORMERR


@ours_only
def test_short_dns_is_400(h2c_srv):
    """Under 12 bytes: 400 (Unbound 1.17 drops it and leaves the stream
    open until the connection ends)."""
    got, _, body = curl(h2c_srv, "/dns-query?dns=" + b64(b"abc"))
    assert got == 400 and body == b"Bad Request"


def test_errors_affect_only_their_stream(h2c_srv):
    """One connection: good requests between bad ones all get theirs,
    the ID 0 kept; the connection serves on afterwards."""
    c = H2Client(h2c_srv.https)
    sids = [c.get(qwire("a.doh.test", qid=0), send=False),
            c.get(qwire("a.doh.test"), path="/nope", send=False),
            c.request("DELETE", "/dns-query", send=False),
            c.post(qwire("b.doh.test", qid=0x4242), send=False)]
    c.flush()
    r = c.wait(sids)
    assert addrs(dns_of(r[0])) == ["192.0.2.1"] and dns_of(r[0]).id == 0
    assert r[1][0] == 404 and r[1][2] == b"Not Found"
    assert r[2][0] == 501 and r[2][2] == b"Not Implemented"
    m = dns_of(r[3])
    assert m.id == 0x4242 and addrs(m) == ["192.0.2.2"]
    sids = [c.post(qwire("a.doh.test"), ctype="text/html", send=False),
            c.request("GET", "/dns-query?dns=!!", send=False),
            c.get(qwire("b.doh.test"), send=False)]
    c.flush()
    r = c.wait(sids)
    assert [r[0][0], r[1][0]] == [415, 400]
    assert addrs(dns_of(r[2])) == ["192.0.2.2"]
    c.close()


def test_large_queries_and_answers(h2c_srv):
    """Queries (GET and POST) and an answer larger than the 512 bytes a
    stream holds in itself, between small ones, three times on one
    connection (freed streams are reused): each gets its own answer."""
    c = H2Client(h2c_srv.https)
    big = dns.message.make_query("a.doh.test", "A", use_edns=0, options=[
        dns.edns.GenericOption(65001, b"p" * 700)]).to_wire()
    assert len(big) > 512
    for _ in range(3):
        sids = [c.get(big, send=False), c.post(big, send=False),
                c.get(qwire("huge.doh.test", "TXT"), send=False),
                c.post(qwire("b.doh.test"), send=False)]
        c.flush()
        r = c.wait(sids)
        assert addrs(dns_of(r[0])) == ["192.0.2.1"]
        assert addrs(dns_of(r[1])) == ["192.0.2.1"]
        assert r[2][0] == 200 and len(r[2][2]) > 512
        txt = b"".join(dns_of(r[2]).answer[0][0].strings)
        assert all(ch * 250 in txt for ch in (b"x", b"y", b"z"))
        assert addrs(dns_of(r[3])) == ["192.0.2.2"]
    c.close()


def test_max_streams(h2c_srv):
    """http-max-streams: 4: of six slow requests sent at once, four are
    answered and the rest reset (nghttp2's refusal); then the connection
    takes new ones."""
    c = H2Client(h2c_srv.https)
    sids = [c.get(qwire("s.slow.example", qid=i), send=False)
            for i in range(6)]
    c.flush()
    r = c.wait(sids, timeout=5)
    ok = [x for x in r if x[0] == 200]
    reset = [x for x in r if x[0] == "reset"]
    assert len(ok) == 4 and len(reset) == 2, r
    assert all(addrs(dns_of(x)) == ["192.0.2.50"] for x in ok)
    r = c.wait([c.get(qwire("a.doh.test"))])
    assert addrs(dns_of(r[0])) == ["192.0.2.1"]
    c.close()


def test_close_with_answers_pending(h2c_srv):
    """Connections closed while the mesh works on their queries: the
    answers find no stream, nothing breaks, others are served."""
    for i in range(5):
        c = H2Client(h2c_srv.https)
        for j in range(3):
            c.get(qwire("s.slow.example", qid=i * 10 + j), send=False)
        c.flush()
        c.close()
    time.sleep(SLOW_MS / 1000.0 + 0.3)
    assert h2c_srv.alive()
    c = H2Client(h2c_srv.https)
    r = c.wait([c.get(qwire("s.slow.example")), c.get(qwire("a.doh.test"))])
    assert addrs(dns_of(r[0])) == ["192.0.2.50"]
    c.close()


def test_not_http2_is_closed(h2c_srv):
    """HTTP/1.1 or garbage on the port: the connection is closed; the
    server goes on."""
    s = socket.create_connection(("127.0.0.1", h2c_srv.https), timeout=5)
    s.sendall(b"GET /dns-query HTTP/1.1\r\nHost: x\r\n\r\n")
    s.settimeout(5 * SLOW)
    got = b""
    while True:
        d = s.recv(4096)
        if not d:
            break
        got += d
    s.close()
    c = H2Client(h2c_srv.https)
    assert addrs(dns_of(c.wait([c.get(qwire("a.doh.test"))])[0])) == [
        "192.0.2.1"]
    c.close()


@pytest.mark.parametrize("tls", [True, False], ids=["tls", "cleartext"])
def test_statistics(tls_srv, h2c_srv, tls):
    srv = tls_srv if tls else h2c_srv
    before = stats(srv)
    c = H2Client(srv.https, tls=tls)
    c.wait([c.get(qwire("a.doh.test")), c.post(qwire("b.doh.test"))])
    c.close()
    after = stats(srv)
    https = int(after["num.query.https"]) - int(before["num.query.https"])
    # as Unbound 1.17: HTTPS only over TLS (not http-notls-downstream)
    assert https == (2 if tls else 0)
    assert int(after["num.query.tcp"]) - int(before["num.query.tcp"]) == 2
    # and num.query.tls, as Unbound 1.17
    assert int(after["num.query.tls"]) - int(
        before["num.query.tls"]) == (2 if tls else 0)
    assert "mem.http.query_buffer" in after
    assert "mem.http.response_buffer" in after


# -- options -----------------------------------------------------------

def test_endpoint_and_buffer_limits(tmp_path, upstream):
    """http-endpoint moves the path; http-response-buffer-size: 200
    resets a stream whose answer (about 470 bytes) does not fit, while a
    small one is answered; http-query-buffer-size: 100 refuses a POST of
    120 bytes and takes one of 40; all on one connection."""
    srv = start_doh(tmp_path, upstream, False,
                    "http-endpoint: /custom\n"
                    "http-query-buffer-size: 100\n"
                    "http-response-buffer-size: 200\n")
    try:
        c = H2Client(srv.https)
        q = dns.message.make_query("a.doh.test", "A", use_edns=0,
                                   options=[dns.edns.GenericOption(
                                       65001, b"p" * 60)])
        big_post = q.to_wire()
        assert len(big_post) > 100
        sids = [c.get(qwire("a.doh.test"), path="/custom", send=False),
                c.get(qwire("a.doh.test"), send=False),
                c.get(qwire("big.doh.test", "TXT"), path="/custom",
                      send=False),
                c.request("POST", "/custom", big_post,
                          [("content-type", "application/dns-message")],
                          send=False),
                c.request("POST", "/custom", qwire("b.doh.test"),
                          [("content-type", "application/dns-message")],
                          send=False)]
        c.flush()
        r = c.wait(sids)
        assert addrs(dns_of(r[0])) == ["192.0.2.1"]
        assert r[1][0] == 404
        assert r[2][0] == "reset", r[2]
        assert r[3][0] == "reset", r[3]
        assert addrs(dns_of(r[4])) == ["192.0.2.2"]
        c.close()
        st = stats(srv)
        assert st["mem.http.query_buffer"] == "0"
        assert st["mem.http.response_buffer"] == "0"
    finally:
        _finish(srv)


def test_per_worker_sockets_and_idle_timeout(tmp_path, upstream):
    """so-reuseport: yes with two threads: two listening sockets on the
    https-port, as for TCP; a connection idle for tcp-idle-timeout is
    closed (with a GOAWAY or not), and a busy one is not."""
    srv = Server(tmp_path)
    srv.https = free_port()
    body = LOCAL + ("interface: 127.0.0.1@%d\nhttps-port: %d\n"
                    "http-notls-downstream: yes\nso-reuseport: yes\n"
                    "tcp-idle-timeout: 400\n" % (srv.https, srv.https))
    srv.start(body, threads=2)
    try:
        assert len(sockets_on_port(srv.https, "tcp", srv.pid)) == 2
        c = H2Client(srv.https)
        assert addrs(dns_of(c.wait([c.get(qwire("a.doh.test"))])[0])) == [
            "192.0.2.1"]
        c.sock.settimeout(5 * SLOW)
        t0 = time.time()
        while True:
            d = c.sock.recv(4096)
            if not d:
                break
            c.conn.receive_data(d)
        assert 0.2 < time.time() - t0 < 3 * SLOW
        c.close()
    finally:
        _finish(srv)


def peer_cert_der(port):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    ctx.set_alpn_protocols(["h2"])
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        with ctx.wrap_socket(s) as t:
            assert t.selected_alpn_protocol() == "h2"
            return t.getpeercert(binary_form=True)


@ours_only
def test_reload_rereads_certificate(tmp_path, upstream):
    """SIGHUP: new connections get the new certificate; a broken one on
    the next reload leaves the new one serving (logged). Debian's Unbound
    1.17 kept the certificate it had read at start in the runs here."""
    srv = start_doh(tmp_path, upstream, True)
    try:
        first = peer_cert_der(srv.https)
        key, _ = make_cert(str(tmp_path))  # a new pair in the same files
        srv.send_signal(signal.SIGHUP)
        deadline = time.time() + 10 * SLOW
        while peer_cert_der(srv.https) == first:
            assert time.time() < deadline, "certificate not reloaded"
            time.sleep(0.1)
        second = peer_cert_der(srv.https)
        with open(key, "w") as f:
            f.write("not a key\n")
        srv.send_signal(signal.SIGHUP)
        time.sleep(1.0 * SLOW)
        assert srv.alive()
        assert peer_cert_der(srv.https) == second
        c = H2Client(srv.https, tls=True)
        assert addrs(dns_of(c.wait([c.get(qwire("a.doh.test"))])[0])) == [
            "192.0.2.1"]
        c.close()
    finally:
        _finish(srv)


@ours_only
def test_prometheus_names(tmp_path, upstream):
    """The Prometheus endpoint (an extension) has unbound_exporter's
    names: unbound_query_https_total and unbound_memory_doh_bytes."""
    import urllib.request
    srv = Server(tmp_path)
    srv.https = free_port()
    prom = free_port()
    key, cert = make_cert(str(tmp_path))
    body = LOCAL + ("interface: 127.0.0.1@%d\nhttps-port: %d\n"
                    'tls-service-key: "%s"\ntls-service-pem: "%s"\n' % (
                        srv.https, srv.https, key, cert))
    srv.start(body, extra="remote-control:\n\tprometheus-enable: yes\n"
              "\tprometheus-port: %d\n" % prom)
    try:
        c = H2Client(srv.https, tls=True)
        c.wait([c.get(qwire("a.doh.test")), c.get(qwire("b.doh.test"))])
        c.close()
        with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % prom,
                                    timeout=10) as r:
            text = r.read().decode()
        assert re.search(r"^unbound_query_https_total 2$", text, re.M), text
        assert re.search(r'^unbound_memory_doh_bytes\{buffer="query_buffer"'
                         r'\} 0$', text, re.M)
        assert re.search(r'^unbound_memory_doh_bytes\{buffer="response_'
                         r'buffer"\} 0$', text, re.M)
    finally:
        _finish(srv)


def test_keepalive_over_doh(h2c_srv):
    """edns-tcp-keepalive: a query with the empty keepalive option gets
    the timeout in 100 ms units over DNS over HTTPS too, as Unbound
    (which leaves only UDP out): from local data and from the mesh."""
    c = H2Client(h2c_srv.https)
    got = []
    for name in ("a.doh.test", "k.slow.example"):
        q = dns.message.make_query(name, "A", use_edns=0, options=[
            dns.edns.GenericOption(11, b"")])
        q.id = 0
        status, _, body = c.wait([c.post(q.to_wire())])[0]
        assert status == 200, status
        m = dns.message.from_wire(body)
        got.append([o.data for o in m.options if o.otype == 11])
    c.close()
    assert got == [[b"\x01\x2c"], [b"\x01\x2c"]], got
