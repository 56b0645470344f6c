# SPDX-License-Identifier: BSD-3-Clause
"""dnstap (the dnstap: clause) with the collector Debian ships:
fstrm_capture (fstrm-bin) listens on a unix socket and writes a Frame
Streams file, started and stopped by PID. Queries come from 127.0.0.2;
the capture is decoded by a small protobuf reader here (dnstap's field
numbers, written from the public schema) and, when installed, read back
by dnstap-ldns. Checked: client queries and responses (a cache hit
too) with the client's address and port and the exact wire messages,
resolver queries and responses to a stub (RD clear) and forwarder ones
(RD set) with query_zone, the server's address and port and times,
identity and version; dnstap-sample-rate; a collector that is not there
never stalls answering. Side by side with Debian's Unbound 1.17 (built
with dnstap) on the same config: the same set of message types for the
same queries. TCP and TLS collectors, dnstap-bidirectional and the
clause on reload: test_dnstap_tls.py."""
import os
import shutil
import signal
import socket
import struct
import subprocess
import time

import dns.message
import dns.name
import dns.rdatatype
import pytest

from conftest import (BUILDDIR, DEB_UNBOUND, REFERENCE, SLOW, RefServer,
                      Server, Upstream, _finish, ours_only)

FSTRM_CAPTURE = shutil.which("fstrm_capture") or "/usr/bin/fstrm_capture"
DNSTAP_LDNS = shutil.which("dnstap-ldns") or "/usr/bin/dnstap-ldns"
CONTENT_TYPE = "protobuf:dnstap.Dnstap"
CLIENT = "127.0.0.2"



def built_with_dnstap():
    """Does the binary under test have dnstap (configure found libfstrm
    and protobuf-c)? The reference, Debian's Unbound, has."""
    if REFERENCE:
        return True
    try:
        with open(os.path.join(BUILDDIR, "config.h")) as f:
            return "#define HAVE_DNSTAP 1" in f.read()
    except OSError:
        return True


BUILT = built_with_dnstap()
needs_dnstap = pytest.mark.skipif(
    not BUILT, reason="built without dnstap (configure --disable-dnstap)")
pytestmark = pytest.mark.skipif(
    not os.access(FSTRM_CAPTURE, os.X_OK),
    reason="fstrm_capture is not installed (apt-get install fstrm-bin)")

# dnstap.Message.Type
TYPES = {1: "AUTH_QUERY", 2: "AUTH_RESPONSE", 3: "RESOLVER_QUERY",
         4: "RESOLVER_RESPONSE", 5: "CLIENT_QUERY", 6: "CLIENT_RESPONSE",
         7: "FORWARDER_QUERY", 8: "FORWARDER_RESPONSE"}
# dnstap.Message fields by number
MSG_FIELDS = {1: "type", 2: "socket_family", 3: "socket_protocol",
              4: "query_address", 5: "response_address", 6: "query_port",
              7: "response_port", 8: "query_time_sec",
              9: "query_time_nsec", 10: "query_message", 11: "query_zone",
              12: "response_time_sec", 13: "response_time_nsec",
              14: "response_message"}


# -- reading what the collector wrote ------------------------------------
def _varint(buf, i):
    v = shift = 0
    while True:
        b = buf[i]
        i += 1
        v |= (b & 0x7f) << shift
        shift += 7
        if not b & 0x80:
            return v, i


def pb_fields(buf):
    """(field number, value) of a protobuf message: varints as ints,
    length-delimited as bytes, fixed32/64 as ints."""
    i = 0
    while i < len(buf):
        key, i = _varint(buf, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = _varint(buf, i)
        elif wt == 2:
            n, i = _varint(buf, i)
            v, i = bytes(buf[i:i + n]), i + n
        elif wt == 5:
            v, i = struct.unpack_from("<I", buf, i)[0], i + 4
        elif wt == 1:
            v, i = struct.unpack_from("<Q", buf, i)[0], i + 8
        else:
            raise ValueError("protobuf wire type %d" % wt)
        yield num, v


def decode_dnstap(frame):
    """One dnstap.Dnstap frame as a dict: identity, version, type and
    the message's fields by name (type as its name)."""
    d = {}
    for num, v in pb_fields(frame):
        if num == 1:
            d["identity"] = v
        elif num == 2:
            d["version"] = v
        elif num == 15:
            d["frame_type"] = v
        elif num == 14:
            for mnum, mv in pb_fields(v):
                d[MSG_FIELDS.get(mnum, mnum)] = mv
    d["type"] = TYPES.get(d.get("type"), d.get("type"))
    return d


def read_fstrm(path):
    """The data frames of a Frame Streams file (a file still being
    written: the whole frames so far), and its content type."""
    with open(path, "rb") as f:
        data = f.read()
    frames, ctype, i = [], None, 0
    while i + 4 <= len(data):
        n = struct.unpack_from(">I", data, i)[0]
        if n:
            if i + 4 + n > len(data):
                break
            frames.append(data[i + 4:i + 4 + n])
            i += 4 + n
            continue
        if i + 8 > len(data):
            break
        clen = struct.unpack_from(">I", data, i + 4)[0]
        ctrl = data[i + 8:i + 8 + clen]
        i += 8 + clen
        j = 4
        while j + 8 <= len(ctrl):   # control fields: type, length, data
            ftype, flen = struct.unpack_from(">II", ctrl, j)
            if ftype == 1:
                ctype = ctrl[j + 8:j + 8 + flen].decode()
            j += 8 + flen
    return frames, ctype


class Capture:
    """fstrm_capture on a unix socket, writing a new file each second
    (-s 1) that data comes: a file is whole once the next one starts, so
    the test reads what arrived without stopping the collector. Stopped
    by PID (SIGTERM closes the last file whole)."""

    def __init__(self, d, name):
        self.dir = d
        self.name = name
        self.sock = os.path.join(d, name + ".sock")
        self.err = open(os.path.join(d, name + ".err"), "wb")
        self.proc = subprocess.Popen(
            [FSTRM_CAPTURE, "-t", CONTENT_TYPE, "-u", self.sock, "-s", "1",
             "--gmtime", "-w", os.path.join(d, name + ".%Y%m%d%H%M%S.fstrm")],
            stdout=self.err, stderr=self.err, stdin=subprocess.DEVNULL)
        deadline = time.time() + 10 * SLOW
        while not os.path.exists(self.sock):
            assert self.proc.poll() is None, "fstrm_capture exited"
            assert time.time() < deadline, "fstrm_capture: no socket"
            time.sleep(0.02)

    def files(self):
        return sorted(os.path.join(self.dir, f) for f in os.listdir(self.dir)
                      if f.startswith(self.name + ".") and
                      f.endswith(".fstrm"))

    def messages(self):
        """Every message written so far, decoded."""
        out = []
        for path in self.files():
            frames, ctype = read_fstrm(path)
            assert ctype in (CONTENT_TYPE, None), ctype
            out += [decode_dnstap(f) for f in frames]
        return out

    def connected(self):
        """A writer is connected: the socket's path has a connected
        entry (state 03) in /proc/net/unix besides the listener."""
        with open("/proc/net/unix") as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 8 and parts[7] == self.sock and \
                        parts[5] == "03":
                    return True
        return False

    def wait_connected(self, srv):
        deadline = time.time() + 10 * SLOW
        while not self.connected():
            assert srv.alive(), "daemon exited:\n" + srv.output()[-2000:]
            assert time.time() < deadline, \
                "the daemon did not connect to the collector:\n" + \
                srv.output()[-2000:]
            time.sleep(0.02)

    def wait_for(self, srv, done):
        """Poll until done(messages) holds: a CHAOS query from 127.0.0.1
        now and then makes data arrive, so the file turns over."""
        deadline = time.time() + 15 * SLOW
        while True:
            msgs = self.messages()
            if done(msgs):
                return msgs
            assert time.time() < deadline, "collector got only %s" % msgs
            try:
                srv.query("version.server.", "TXT", "CH", timeout=0.5)
            except Exception:
                pass
            time.sleep(0.1)

    def stop(self):
        """Stop by PID; every message decoded."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10 * SLOW)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.err.close()
        files = self.files()
        assert files, "no capture file"
        assert read_fstrm(files[0])[1] == CONTENT_TYPE
        return self.messages()


def dnstap_clause(sock, extra=""):
    return ("dnstap:\n"
            "\tdnstap-enable: yes\n"
            '\tdnstap-socket-path: "%s"\n' % sock +
            "\tdnstap-send-identity: yes\n"
            "\tdnstap-send-version: yes\n"
            '\tdnstap-identity: "tap-test"\n'
            "\tdnstap-log-client-query-messages: yes\n"
            "\tdnstap-log-client-response-messages: yes\n"
            "\tdnstap-log-resolver-query-messages: yes\n"
            "\tdnstap-log-resolver-response-messages: yes\n"
            "\tdnstap-log-forwarder-query-messages: yes\n"
            "\tdnstap-log-forwarder-response-messages: yes\n" + extra)


def server_clauses(up):
    body = ('local-zone: "loc.example.org." static\n'
            'local-data: "x.loc.example.org. A 192.0.2.1"\n'
            'domain-insecure: "tap.example.com."\n'
            'domain-insecure: "fwd.example.net."\n'
            "qname-minimisation: no\n")
    zones = (up.stub_zone("tap.example.com.") +
             'forward-zone:\n\tname: "fwd.example.net."\n'
             "\tforward-addr: 127.0.0.1@%d\n" % up.port)
    return body, zones


def udp_exchange(port, wire, timeout=3.0):
    """wire to the server from CLIENT over UDP: (reply bytes, our
    port); no reply fails."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind((CLIENT, 0))
        s.settimeout(timeout * SLOW)
        s.sendto(wire, ("127.0.0.1", port))
        return s.recv(65535), s.getsockname()[1]


def tcp_exchange(port, wire, timeout=3.0):
    with socket.create_connection(("127.0.0.1", port), timeout * SLOW,
                                  source_address=(CLIENT, 0)) as s:
        s.sendall(struct.pack(">H", len(wire)) + wire)
        n = struct.unpack(">H", s.recv(2, socket.MSG_WAITALL))[0]
        return s.recv(n, socket.MSG_WAITALL), s.getsockname()[1]


# The queries of the run: name, type, transport, query ID.
QUERIES = [("a.tap.example.com.", "A", "udp", 0x1111),    # recursion (stub)
           ("a.tap.example.com.", "A", "udp", 0x2222),    # cache hit
           ("b.fwd.example.net.", "A", "udp", 0x3333),    # forwarder
           ("x.loc.example.org.", "A", "tcp", 0x4444)]    # local data, TCP


def run_queries(srv):
    """Send QUERIES; [(name, transport, query wire, reply wire, our
    port)]."""
    out = []
    for name, rdtype, tr, qid in QUERIES:
        q = dns.message.make_query(name, rdtype)
        q.id = qid
        wire = q.to_wire()
        ex = udp_exchange if tr == "udp" else tcp_exchange
        reply, port = ex(srv.port, wire)
        out.append((name, tr, wire, reply, port))
    return out


def run_tapped(cls, d, up, name):
    """Start cls (Server or RefServer) with dnstap to a fresh capture,
    send QUERIES once connected, stop both; (exchanges, messages)."""
    cap = Capture(d, name)
    srv = cls(os.path.join(d, name))
    os.makedirs(srv.dir, exist_ok=True)
    body, zones = server_clauses(up)
    try:
        srv.start(body, extra=zones + dnstap_clause(cap.sock))
        cap.wait_connected(srv)
        t0 = time.time()
        ex = run_queries(srv)
        t1 = time.time()
        # Unbound's writer thread drops what it has not sent when the
        # daemon stops: wait until the last reply is in the capture
        cap.wait_for(srv, lambda msgs: len(msgs_of(
            of_client(msgs), "CLIENT_RESPONSE")) >= len(QUERIES))
    finally:
        _finish(srv)
        msgs = cap.stop()
    return ex, msgs, (t0, t1)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    if not BUILT:
        pytest.skip("built without dnstap (configure --disable-dnstap)")
    d = str(tmp_path_factory.mktemp("dnstap"))
    up = Upstream()
    try:
        ours = run_tapped(Server, d, up, "ours")
        ref = None
        if not REFERENCE and os.access(DEB_UNBOUND, os.X_OK):
            ref = run_tapped(RefServer, d, up, "ref")
        files = sorted(os.path.join(d, f) for f in os.listdir(d)
                       if f.startswith("ours.") and f.endswith(".fstrm"))
        yield {"ours": ours, "ref": ref, "up": up, "files": files}
    finally:
        up.close()


def qname_of(wire):
    try:
        return dns.message.from_wire(wire).question[0].name.to_text().lower()
    except Exception:
        return None


def of_client(msgs):
    """The messages about the test's queries (the start-up CHAOS probes
    come from 127.0.0.1)."""
    return [m for m in msgs if m.get("query_address") ==
            socket.inet_aton(CLIENT)]


def msgs_of(msgs, mtype, name=None):
    out = []
    for m in msgs:
        if m["type"] != mtype:
            continue
        wire = m.get("query_message") or m.get("response_message")
        if name is None or qname_of(wire) == name:
            out.append(m)
    return out


def test_client_queries_and_responses(world):
    """Every query from the client is a CLIENT_QUERY with its address,
    port, transport and exact wire; every reply a CLIENT_RESPONSE with
    the exact bytes the client got: the cache hit too."""
    ex, msgs, (t0, t1) = world["ours"]
    cl = of_client(msgs)
    for name, tr, wire, reply, port in ex:
        cq = [m for m in msgs_of(cl, "CLIENT_QUERY")
              if m.get("query_message") == wire]
        cr = [m for m in msgs_of(cl, "CLIENT_RESPONSE")
              if m.get("response_message") == reply]
        assert len(cq) == 1, "%s %s: client queries %s" % (name, tr, cl)
        assert len(cr) == 1, "%s %s: client responses %s" % (name, tr, cl)
        for m in cq + cr:
            assert m["socket_family"] == 1       # INET
            assert m["socket_protocol"] == (1 if tr == "udp" else 2)
            assert m["query_port"] == port
        assert t0 - 1 <= cq[0]["query_time_sec"] <= t1 + 1
        assert t0 - 1 <= cr[0]["response_time_sec"] <= t1 + 1
    # the second a.tap.example.com. was a cache hit: still both logged
    assert len(msgs_of(cl, "CLIENT_QUERY", "a.tap.example.com.")) == 2
    assert len(msgs_of(cl, "CLIENT_RESPONSE", "a.tap.example.com.")) == 2


def _outside(world, qtype, rtype, name, zone, rd):
    ex, msgs, (t0, t1) = world["ours"]
    up = world["up"]
    qs = msgs_of(msgs, qtype, name)
    rs = msgs_of(msgs, rtype, name)
    assert len(qs) == 1, "%s %s: %s" % (qtype, name, msgs)
    assert len(rs) == 1, "%s %s: %s" % (rtype, name, msgs)
    q, r = qs[0], rs[0]
    zwire = dns.name.from_text(zone).to_wire()
    for m in (q, r):
        assert m["query_zone"] == zwire
        assert m["response_address"] == socket.inet_aton("127.0.0.1")
        assert m["response_port"] == up.port
        assert m["socket_family"] == 1 and m["socket_protocol"] == 1
        assert t0 - 1 <= m["query_time_sec"] <= t1 + 1
    qm = dns.message.from_wire(q["query_message"])
    rm = dns.message.from_wire(r["response_message"])
    assert bool(qm.flags & 0x0100) == rd        # RD
    assert rm.id == qm.id
    assert [a.to_text() for a in rm.answer] == \
        ["%s 300 IN A %s" % (name, Upstream.RDATA["A"])]
    assert (r["response_time_sec"], r["response_time_nsec"]) >= \
        (r["query_time_sec"], r["query_time_nsec"])
    assert (r["query_time_sec"], r["query_time_nsec"]) == \
        (q["query_time_sec"], q["query_time_nsec"])


def test_resolver_messages(world):
    """The stub's question: RESOLVER_QUERY and _RESPONSE with the
    stub's zone, address and port, and the upstream's wire reply."""
    _outside(world, "RESOLVER_QUERY", "RESOLVER_RESPONSE", "a.tap.example.com.",
             "tap.example.com.", rd=False)


def test_forwarder_messages(world):
    """The forward zone's question (RD set): FORWARDER_QUERY and
    _RESPONSE."""
    _outside(world, "FORWARDER_QUERY", "FORWARDER_RESPONSE",
             "b.fwd.example.net.", "fwd.example.net.", rd=True)


def test_identity_and_version(world):
    ex, msgs, _ = world["ours"]
    assert msgs
    for m in msgs:
        assert m.get("identity") == b"tap-test"
        assert m.get("version", b"").startswith(b"unbound ")
        assert m.get("frame_type") == 1


def test_dnstap_ldns_reads_it(world):
    """Debian's reader decodes the capture (when installed)."""
    if not os.access(DNSTAP_LDNS, os.X_OK):
        pytest.skip("dnstap-ldns is not installed")
    kinds = set()
    for path in world["files"]:
        out = subprocess.run([DNSTAP_LDNS, "-r", path], capture_output=True,
                             text=True, timeout=20)
        assert out.returncode == 0, out.stderr
        kinds |= {l.split()[2] for l in out.stdout.splitlines()
                  if CLIENT in l or "127.0.0.1" in l}
    assert {"CQ", "CR", "RQ", "RR", "FQ", "FR"} <= kinds, out.stdout


@ours_only
@pytest.mark.skipif(not os.access(DEB_UNBOUND, os.X_OK),
                    reason="needs Debian's Unbound beside this daemon")
def test_same_message_types_as_unbound(world):
    """The same queries on the same config: the same (message type,
    question) set as Debian's Unbound 1.17."""
    def kinds(msgs):
        out = set()
        for m in msgs:
            wire = m.get("query_message") or m.get("response_message")
            name = qname_of(wire)
            if name and name.endswith((".example.com.", ".example.net.", ".example.org.")) and \
                    not name.startswith("version."):
                out.add((m["type"], name))
        return out
    ours = kinds(world["ours"][1])
    ref = kinds(world["ref"][1])
    assert ours == ref, "ours only %s; Unbound only %s" % (
        sorted(ours - ref), sorted(ref - ours))


def _start_plain(d, name, extra_dnstap, sock, wait=True):
    srv = Server(os.path.join(d, name))
    os.makedirs(srv.dir, exist_ok=True)
    srv.start("", extra="dnstap:\n\tdnstap-enable: yes\n"
              '\tdnstap-socket-path: "%s"\n' % sock + extra_dnstap,
              wait=wait)
    return srv


@needs_dnstap
@ours_only   # dnstap-sample-rate is Unbound 1.21's
def test_sample_rate(tmp_path):
    """dnstap-sample-rate: 3: one client query in three is logged."""
    d = str(tmp_path)
    cap = Capture(d, "sample")
    srv = _start_plain(d, "srv", "\tdnstap-sample-rate: 3\n"
                       "\tdnstap-log-client-query-messages: yes\n",
                       cap.sock)
    try:
        cap.wait_connected(srv)
        for i in range(12):
            q = dns.message.make_query("version.server.", "TXT", "CH")
            udp_exchange(srv.port, q.to_wire())
        # the file turns over with the next data: none may come (only
        # one in three is logged), so the stop closes it
    finally:
        _finish(srv)
        msgs = cap.stop()
    assert len(of_client(msgs)) == 4, of_client(msgs)
    assert all(m["type"] == "CLIENT_QUERY" for m in msgs)


@needs_dnstap
@ours_only
def test_no_collector_never_stalls(tmp_path):
    """No collector on the socket: queries are answered at once, and the
    daemon stops cleanly."""
    d = str(tmp_path)
    srv = _start_plain(d, "srv", "\tdnstap-log-client-query-messages: "
                       "yes\n\tdnstap-log-client-response-messages: yes\n",
                       os.path.join(d, "nobody.sock"))
    try:
        t = time.time()
        for i in range(50):
            q = dns.message.make_query("version.server.", "TXT", "CH")
            udp_exchange(srv.port, q.to_wire(), timeout=1.0)
        assert time.time() - t < 5 * SLOW
    finally:
        _finish(srv)


@pytest.mark.skipif(BUILT, reason="this build has dnstap")
def test_refused_when_built_without(tmp_path):
    """Built without dnstap: dnstap-enable: yes stops the start with
    Unbound's message (as Unbound built without --enable-dnstap)."""
    srv = Server(tmp_path)
    rc, _ = srv.start_expecting_exit(
        "", extra="dnstap:\n\tdnstap-enable: yes\n")
    assert rc not in (0, None)
    assert "dnstap enabled in config but not built with dnstap support" \
        in srv.output()
