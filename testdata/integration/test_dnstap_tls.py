# SPDX-License-Identifier: BSD-3-Clause
"""dnstap to a TCP or TLS collector (dnstap-ip, dnstap-tls,
dnstap-tls-server-name, dnstap-tls-cert-bundle, the client certificate
and key), dnstap-bidirectional, and the dnstap clause on reload.

The collector is a small Frame Streams server here (unix socket, TCP,
or TLS with a certificate for tap.test from a test CA, asking for a
client certificate): it records the control frames it gets (READY and
START: bidirectional; START alone: not), answers READY with ACCEPT and
STOP with FINISH, and decodes the data frames with test_dnstap's
protobuf reader. Checked: client queries and responses arrive over TLS
with the exact wire bytes; a server name the certificate does not have
gives no stream and an error line, and answers are still served;
dnstap-bidirectional: no starts with START; a reload that changes the
socket path and identity moves the stream to the new collector (SIGHUP
and unbound-control reload).
Side by side: Debian's Unbound 1.17 against the same TLS collector."""
import os
import signal
import socket
import ssl
import struct
import subprocess
import sys
import threading
import time

import dns.message
import pytest

from conftest import (BUILDDIR, DEB_UNBOUND, REFERENCE, SLOW, RefServer,
                      Server, _finish, control_clause, ours_only)
from test_dnstap import (BUILT, CONTENT_TYPE, decode_dnstap, udp_exchange,
                         CLIENT)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
from testnet.tls_pki import CA  # noqa: E402

OUR_CTL = os.path.join(BUILDDIR, "unbound-control")

pytestmark = pytest.mark.skipif(
    not BUILT, reason="built without dnstap (configure --disable-dnstap)")

ACCEPT, START, STOP, READY, FINISH = 1, 2, 3, 4, 5
CTRL = {ACCEPT: "ACCEPT", START: "START", STOP: "STOP", READY: "READY",
        FINISH: "FINISH"}


def _control(ctype, with_content_type=True):
    body = struct.pack(">I", ctype)
    if with_content_type:
        ct = CONTENT_TYPE.encode()
        body += struct.pack(">II", 1, len(ct)) + ct
    return struct.pack(">II", 0, len(body)) + body


def _recv_exact(conn, n):
    buf = b""
    while len(buf) < n:
        chunk = conn.recv(n - len(buf))
        if not chunk:
            raise EOFError
        buf += chunk
    return buf


class Collector:
    """A Frame Streams collector on a unix socket (path), or TCP on
    127.0.0.1 (tls: a server context), in a thread of its own; every
    connection's control frames and decoded data frames are kept."""

    def __init__(self, path=None, tls=None):
        self.lock = threading.Lock()
        self.streams = []        # [{"control": [...], "msgs": [...]}]
        self.tls_failures = 0
        self.stopping = False
        if path:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.bind(path)
            self.where = path
        else:
            self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            self.sock.bind(("127.0.0.1", 0))
            self.port = self.sock.getsockname()[1]
            self.where = "127.0.0.1@%d" % self.port
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.tls = tls
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stopping:
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,),
                             daemon=True).start()

    def _serve(self, conn):
        conn.settimeout(30 * SLOW)
        if self.tls:
            try:
                conn = self.tls.wrap_socket(conn, server_side=True)
            except (ssl.SSLError, OSError):
                with self.lock:
                    self.tls_failures += 1
                conn.close()
                return
        stream = {"control": [], "msgs": [],
                  "client_cert": conn.getpeercert() if self.tls else None}
        with self.lock:
            self.streams.append(stream)
        try:
            while True:
                n = struct.unpack(">I", _recv_exact(conn, 4))[0]
                if n:
                    d = decode_dnstap(_recv_exact(conn, n))
                    with self.lock:
                        stream["msgs"].append(d)
                    continue
                clen = struct.unpack(">I", _recv_exact(conn, 4))[0]
                ctrl = _recv_exact(conn, clen)
                ctype = struct.unpack(">I", ctrl[:4])[0]
                with self.lock:
                    stream["control"].append(CTRL.get(ctype, ctype))
                if ctype == READY:
                    conn.sendall(_control(ACCEPT))
                elif ctype == STOP:
                    conn.sendall(_control(FINISH, False))
                    break
        except (EOFError, OSError, ssl.SSLError):
            pass
        finally:
            conn.close()

    def messages(self):
        with self.lock:
            return [m for s in self.streams for m in s["msgs"]]

    def client_certs(self):
        with self.lock:
            return [s["client_cert"] for s in self.streams]

    def controls(self):
        with self.lock:
            return [list(s["control"]) for s in self.streams]

    def stop(self):
        self.stopping = True
        self.sock.close()
        self.thread.join(5)


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("pki"))
    ca = CA(d)
    cert, key = ca.server("collector", ["tap.test"])
    client = ca.server("client", ["client.test"])
    srv = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    srv.load_cert_chain(cert, key)
    # the client certificate is asked for, and checked when sent
    srv.verify_mode = ssl.CERT_OPTIONAL
    srv.load_verify_locations(ca.cert_file)
    return {"ca": ca.cert_file, "client": client, "ctx": srv}


def tap_clause(where_line, extra=""):
    return ("dnstap:\n\tdnstap-enable: yes\n" + where_line +
            "\tdnstap-send-identity: yes\n"
            "\tdnstap-log-client-query-messages: yes\n"
            "\tdnstap-log-client-response-messages: yes\n" + extra)


def tls_clause(col, pki, name="tap.test", extra=""):
    cert, key = pki["client"]
    return tap_clause('\tdnstap-ip: "%s"\n\tdnstap-tls: yes\n' % col.where,
                      '\tdnstap-tls-server-name: "%s"\n' % name +
                      '\tdnstap-tls-cert-bundle: "%s"\n' % pki["ca"] +
                      '\tdnstap-tls-client-cert-file: "%s"\n' % cert +
                      '\tdnstap-tls-client-key-file: "%s"\n' % key + extra)


LOCAL = ('local-zone: "tap.example." static\n'
         'local-data: "x.tap.example. A 192.0.2.1"\n')


def start(cls, d, clause, threads=1):
    srv = cls(d)
    os.makedirs(srv.dir, exist_ok=True)
    srv.start(LOCAL, extra=clause, threads=threads)
    return srv


def query_until(srv, col, qid, pred=None, timeout=15):
    """Send x.tap.example. (ID qid) from CLIENT until the collector has
    its CLIENT_QUERY and CLIENT_RESPONSE (pred, when given, holds for
    them); a collector still connecting gets it on a later try.
    Returns (query wire, reply wire, messages)."""
    deadline = time.time() + timeout * SLOW
    q = dns.message.make_query("x.tap.example.", "A")
    q.id = qid
    wire = q.to_wire()
    while True:
        reply, _ = udp_exchange(srv.port, wire)
        t = time.time() + 1
        while time.time() < t:
            msgs = [m for m in col.messages()
                    if m.get("query_message") == wire or
                    m.get("response_message") == reply]
            types = {m["type"] for m in msgs}
            if {"CLIENT_QUERY", "CLIENT_RESPONSE"} <= types and \
                    (pred is None or all(pred(m) for m in msgs)):
                return wire, reply, msgs
            time.sleep(0.05)
        assert srv.alive(), srv.output()[-2000:]
        assert time.time() < deadline, "collector got %s; log:\n%s" % (
            col.messages(), srv.output()[-2000:])


@pytest.fixture(scope="module")
def tls_world(pki, tmp_path_factory):
    """One collector over TLS, our daemon tapping to it (default:
    bidirectional)."""
    col = Collector(tls=pki["ctx"])
    srv = start(Server, str(tmp_path_factory.mktemp("tls")),
                tls_clause(col, pki))
    yield col, srv
    _finish(srv)
    col.stop()


def test_tls_client_messages(tls_world):
    """Client queries and responses reach the TLS collector with the
    exact wire bytes, from the client's address."""
    col, srv = tls_world
    wire, reply, msgs = query_until(srv, col, 0x5151)
    cq = [m for m in msgs if m["type"] == "CLIENT_QUERY"]
    cr = [m for m in msgs if m["type"] == "CLIENT_RESPONSE"]
    assert [m["query_message"] for m in cq] == [wire]
    assert [m["response_message"] for m in cr] == [reply]
    assert cq[0]["query_address"] == socket.inet_aton(CLIENT)
    assert cq[0]["socket_protocol"] == 1     # UDP


def test_tls_bidirectional_handshake(tls_world):
    """dnstap-bidirectional defaults to yes: READY (answered with
    ACCEPT), then START; the client certificate was sent and
    verified."""
    col, srv = tls_world
    query_until(srv, col, 0x5152)
    ctl = col.controls()
    assert ctl and ctl[-1][:2] == ["READY", "START"], ctl
    subject = dict(x[0] for x in col.client_certs()[-1]["subject"])
    assert subject["commonName"] == "client.test"


SIDE = [Server] + ([RefServer] if os.access(DEB_UNBOUND, os.X_OK) and
                   not REFERENCE else [])


@pytest.mark.parametrize("cls", SIDE, ids=lambda c: c.__name__)
def test_wrong_server_name(pki, tmp_path, cls):
    """A dnstap-tls-server-name the collector's certificate does not
    have: the handshake is refused (counted by the collector), no
    stream, an error in the log (Unbound's words); answers are still
    served at once. Side by side with Debian's Unbound."""
    col = Collector(tls=pki["ctx"])
    srv = start(cls, str(tmp_path), tls_clause(col, pki, name="other.test"))
    try:
        deadline = time.time() + 10 * SLOW
        while "dnstap io, ssl handshake failed" not in srv.output():
            assert time.time() < deadline, srv.output()[-2000:]
            time.sleep(0.05)
        q = dns.message.make_query("x.tap.example.", "A")
        t = time.time()
        for i in range(20):
            reply, _ = udp_exchange(srv.port, q.to_wire(), timeout=1.0)
            assert dns.message.from_wire(reply).answer
        assert time.time() - t < 5 * SLOW
        assert col.tls_failures >= 1
        assert col.streams == [] and col.messages() == []
        if cls is Server and not REFERENCE:
            assert "hostname mismatch" in srv.output()
    finally:
        _finish(srv)
        col.stop()


@pytest.mark.parametrize("cls", SIDE, ids=lambda c: c.__name__)
@pytest.mark.parametrize("bidir", ["yes", "no"])
def test_tcp_bidirectional_option(tmp_path, bidir, cls):
    """Plain TCP (dnstap-tls: no): bidirectional yes sends READY and
    waits for ACCEPT; no sends START at once. Side by side with
    Debian's Unbound."""
    col = Collector()
    srv = start(cls, str(tmp_path), tap_clause(
        '\tdnstap-ip: "%s"\n\tdnstap-tls: no\n' % col.where,
        "\tdnstap-bidirectional: %s\n" % bidir))
    try:
        query_until(srv, col, 0x6161)
        first = col.controls()[-1]
        want = ["READY", "START"] if bidir == "yes" else ["START"]
        assert first[:len(want)] == want, first
        if bidir == "no":
            assert "READY" not in first
    finally:
        _finish(srv)
        col.stop()


@ours_only
def test_stuck_collector_never_stalls(pki, tmp_path):
    """A collector that takes the TCP connection and then says nothing
    (no TLS handshake, no ACCEPT): answers go on at once, and the daemon
    stops cleanly and in time (each connect, read and write to the
    collector gives up after 2 s)."""
    stuck = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    stuck.bind(("127.0.0.1", 0))
    stuck.listen(64)     # the kernel accepts; nobody reads
    where = "127.0.0.1@%d" % stuck.getsockname()[1]
    srv = start(Server, str(tmp_path), tap_clause(
        '\tdnstap-ip: "%s"\n\tdnstap-tls: yes\n' % where,
        '\tdnstap-tls-cert-bundle: "%s"\n' % pki["ca"]))
    try:
        q = dns.message.make_query("x.tap.example.", "A")
        t = time.time()
        for i in range(200):
            reply, _ = udp_exchange(srv.port, q.to_wire(), timeout=1.0)
            assert dns.message.from_wire(reply).answer
        assert time.time() - t < 5 * SLOW
        t = time.time()
        status = srv.stop()
        assert status == 0, srv.output()[-2000:]
        assert time.time() - t < 6 * SLOW
    finally:
        _finish(srv)
        stuck.close()


def test_unreadable_cert_bundle_refused(pki, tmp_path):
    """A dnstap-tls-cert-bundle that cannot be read stops the start
    with Unbound's line, rather than tapping unverified."""
    srv = Server(str(tmp_path))
    clause = tap_clause('\tdnstap-ip: "127.0.0.1@9"\n\tdnstap-tls: yes\n',
                        '\tdnstap-tls-cert-bundle: "%s"\n' %
                        os.path.join(str(tmp_path), "missing.pem"))
    rc, _ = srv.start_expecting_exit("", extra=clause)
    assert rc not in (0, None)
    assert "could not setup SSL CTX" in srv.output()


def _rewrite(srv, clause):
    srv.write_config(LOCAL, extra=clause, threads=2)


@ours_only   # Unbound 1.17 reloads dnstap too; one daemon is enough here
@pytest.mark.parametrize("how", ["sighup", "control"])
def test_reload_changes_socket_path_and_identity(tmp_path, how):
    """A reload with a new dnstap-socket-path and dnstap-identity: the
    frames go to the new collector with the new identity, none to the
    old one, whose stream is closed (STOP) once the threads left it.
    A control command (local_data) before it keeps the one stream."""
    d = str(tmp_path)
    a = Collector(path=os.path.join(d, "a.sock"))
    b = Collector(path=os.path.join(d, "b.sock"))
    ctl = os.path.join(d, "ctl.sock")
    rc = control_clause(ctl)

    def clause(col, ident):
        return tap_clause('\tdnstap-socket-path: "%s"\n' % col.where,
                          '\tdnstap-identity: "%s"\n' % ident) + rc
    # two threads: the old stream closes when both have left it
    srv = start(Server, d, clause(a, "one"), threads=2)
    try:
        query_until(srv, a, 0x7171,
                    lambda m: m.get("identity") == b"one")
        # a control command's new config keeps the stream as it is
        out = subprocess.run([OUR_CTL, "-c", srv.conf, "local_data",
                              "y.tap.example. A 192.0.2.2"],
                             capture_output=True, text=True,
                             timeout=20 * SLOW)
        assert out.stdout.strip() == "ok", out
        query_until(srv, a, 0x7173,
                    lambda m: m.get("identity") == b"one")
        assert len(a.controls()) == 1, a.controls()
        _rewrite(srv, clause(b, "two"))
        if how == "sighup":
            srv.send_signal(signal.SIGHUP)
        else:
            out = subprocess.run([OUR_CTL, "-c", srv.conf, "reload"],
                                 capture_output=True, text=True,
                                 timeout=20 * SLOW)
            assert out.stdout.strip() == "ok", out
        query_until(srv, b, 0x7272,
                    lambda m: m.get("identity") == b"two")
        # the old stream is closed (STOP) once every thread left it,
        # and got nothing of the new config
        deadline = time.time() + 10 * SLOW
        while "STOP" not in a.controls()[0]:
            assert time.time() < deadline, a.controls()
            time.sleep(0.05)
        assert not [m for m in a.messages()
                    if m.get("identity") == b"two"]
    finally:
        _finish(srv)
        a.stop()
        b.stop()


@ours_only
@pytest.mark.skipif(not os.access(DEB_UNBOUND, os.X_OK),
                    reason="needs Debian's Unbound beside this daemon")
def test_same_as_unbound_over_tls(pki, tmp_path, tls_world):
    """Debian's Unbound 1.17 on the same TLS clause and collector: it
    also handshakes READY, START and logs the same client messages."""
    col = Collector(tls=pki["ctx"])
    ref = start(RefServer, str(tmp_path), tls_clause(col, pki))
    try:
        _, _, ref_msgs = query_until(ref, col, 0x8181)
        ref_ctl = col.controls()[-1][:2]
    finally:
        _finish(ref)
        col.stop()
    ours_col, ours = tls_world
    _, _, our_msgs = query_until(ours, ours_col, 0x8181)
    assert ref_ctl == ours_col.controls()[-1][:2] == ["READY", "START"]
    # (a query sent again while a collector connects is logged again)
    assert {m["type"] for m in ref_msgs} == {m["type"] for m in our_msgs} \
        == {"CLIENT_QUERY", "CLIENT_RESPONSE"}
