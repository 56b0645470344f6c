# SPDX-License-Identifier: BSD-3-Clause
"""Remote control: our unbound-control and Debian's talk to our daemon
(mutual TLS on 127.0.0.1, and a unix socket), ours talks to Debian's
daemon; statistics add up; a client with a wrong certificate is refused
while the daemon keeps serving; reload under load; unknown commands."""
import os
import re
import signal
import socket
import subprocess
import threading
import time

import sys

import dns.exception
import dns.rcode
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)
from testnet.fixture import testnet_net  # noqa: E402,F401

from conftest import (BUILDDIR, DEB_UNBOUND, HAVE_IPV6, SLOW, RefServer,
                      free_port, make_query, ours_only,
                      stats_dict)  # noqa: F401 (its importers read it here)

OUR_CTL = os.path.join(BUILDDIR, "unbound-control")
OUR_SETUP = os.path.join(BUILDDIR, "unbound-control-setup")
DEB_CTL = "/usr/sbin/unbound-control"
CLIENTS = [OUR_CTL] + ([DEB_CTL] if os.path.exists(DEB_CTL) else [])

pytestmark = ours_only


def setup_keys(d):
    os.makedirs(d, exist_ok=True)
    r = subprocess.run([OUR_SETUP, "-d", d], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    for f in ("unbound_server.key", "unbound_server.pem",
              "unbound_control.key", "unbound_control.pem"):
        assert os.path.exists(os.path.join(d, f)), f
    return d


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    return setup_keys(str(tmp_path_factory.mktemp("keys")))


def rc_clause(keydir, port=None, iface="127.0.0.1", use_cert=True):
    lines = ["remote-control:", "\tcontrol-enable: yes",
             "\tcontrol-interface: %s" % iface]
    if port:
        lines.append("\tcontrol-port: %d" % port)
    lines.append("\tcontrol-use-cert: %s" % ("yes" if use_cert else "no"))
    if keydir:
        for opt, f in (("server-key-file", "unbound_server.key"),
                       ("server-cert-file", "unbound_server.pem"),
                       ("control-key-file", "unbound_control.key"),
                       ("control-cert-file", "unbound_control.pem")):
            lines.append('\t%s: "%s"' % (opt, os.path.join(keydir, f)))
    return "\n".join(lines) + "\n"


def ctl(conf, *args, binary=OUR_CTL, timeout=10):
    return subprocess.run([binary, "-c", conf] + list(args),
                          capture_output=True, text=True, timeout=timeout)


def start_tls(srv, keys, body="", threads=1, **kw):
    srv.ctl_port = free_port()
    return srv.start(body, threads=threads,
                     extra=rc_clause(keys, srv.ctl_port), **kw)


STATUS_RE = re.compile(
    r"version: \S+\nverbosity: \d+\nthreads: \d+\nmodules: \d+ \[ .* \]\n"
    r"uptime: \d+ seconds\noptions:.*\nunbound \(pid (\d+)\) is "
    r"running\.\.\.\n")


def test_status_tls_both_clients(unbound, keys):
    start_tls(unbound, keys, threads=2)
    for binary in CLIENTS:
        r = ctl(unbound.conf, "status", binary=binary)
        assert r.returncode == 0, (binary, r.stdout, r.stderr)
        m = STATUS_RE.fullmatch(r.stdout)
        assert m, (binary, r.stdout)
        assert int(m.group(1)) == unbound.pid
        assert "threads: 2\n" in r.stdout
        assert "control(ssl)" in r.stdout


def test_unix_socket_both_clients(unbound, tmp_path):
    path = str(tmp_path / "ctl.sock")
    unbound.start(extra=rc_clause(None, iface=path, use_cert=False))
    for binary in CLIENTS:
        r = ctl(unbound.conf, "status", binary=binary)
        assert r.returncode == 0, (binary, r.stdout, r.stderr)
        assert STATUS_RE.fullmatch(r.stdout), r.stdout
        r = ctl(unbound.conf, "get_option", "num-threads", binary=binary)
        assert r.stdout == "1\n", r.stdout
    assert unbound.stop() == 0
    assert not os.path.exists(path)


@pytest.mark.parametrize("iface", ["127.0.0.1", "::1"])
def test_plain_tcp_without_cert(unbound, iface):
    if iface == "::1" and not HAVE_IPV6:
        pytest.skip("::1 not available")
    port = free_port(ipv6=iface == "::1")
    unbound.start(extra=rc_clause(None, port, iface=iface, use_cert=False))
    for binary in CLIENTS:
        r = ctl(unbound.conf, "status", binary=binary)
        assert r.returncode == 0, (binary, r.stdout, r.stderr)
        assert "options: reuseport control\n" in r.stdout or \
            "options: control\n" in r.stdout, r.stdout
    # the protocol by hand: one line in, the answer, then close
    fam = socket.AF_INET6 if iface == "::1" else socket.AF_INET
    with socket.socket(fam, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        s.connect((iface, port))
        s.sendall(b"UBCT1 get_option port\n")
        data = b""
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    assert data == b"%d\n" % unbound.port


def test_wrong_certificate_refused(unbound, keys, tmp_path):
    start_tls(unbound, keys)
    other = setup_keys(str(tmp_path / "other"))
    # the right server certificate, but a control key the server never
    # signed
    bad = str(tmp_path / "bad.conf")
    with open(unbound.conf) as f:
        text = f.read()
    for f in ("unbound_control.key", "unbound_control.pem"):
        text = text.replace(os.path.join(keys, f), os.path.join(other, f))
    with open(bad, "w") as f:
        f.write(text)
    for binary in CLIENTS:
        r = ctl(bad, "status", binary=binary)
        assert r.returncode != 0, (binary, r.stdout)
        assert "is running" not in r.stdout
    # plain text on the TLS port gets nothing
    with socket.create_connection(("127.0.0.1", unbound.ctl_port), 5) as s:
        s.sendall(b"UBCT1 status\n")
        s.settimeout(5)
        try:
            data = s.recv(4096)
        except (ConnectionResetError, socket.timeout):
            data = b""
        assert b"running" not in data
    # the daemon still serves DNS and the right client
    assert unbound.query("version.server.", "TXT", "CH").rcode() == 0
    r = ctl(unbound.conf, "status")
    assert r.returncode == 0 and "is running" in r.stdout


def test_tls_client_without_certificate_refused(unbound, keys):
    """A TLS client that trusts the server but shows no certificate of
    its own fails the handshake and gets no answer; one with the right
    certificate is served right after, and so is DNS."""
    import ssl
    start_tls(unbound, keys)
    cafile = os.path.join(keys, "unbound_server.pem")
    for cert in (None, "right"):
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.load_verify_locations(cafile)
        if cert:
            ctx.load_cert_chain(os.path.join(keys, "unbound_control.pem"),
                                os.path.join(keys, "unbound_control.key"))
        data = b""
        with socket.create_connection(("127.0.0.1", unbound.ctl_port),
                                      5) as raw:
            try:
                with ctx.wrap_socket(raw) as s:
                    s.sendall(b"UBCT1 status\n")
                    while True:
                        chunk = s.recv(4096)
                        if not chunk:
                            break
                        data += chunk
            except (ssl.SSLError, ConnectionResetError, BrokenPipeError):
                pass
        if cert:
            assert b"is running" in data, data
        else:
            assert data == b"", data
        assert unbound.query("version.server.", "TXT", "CH").rcode() == 0


@ours_only   # tls-protocols is Unbound 1.26's: Debian's 1.17 refuses it
def test_tls_protocols_on_the_control_port(unbound, keys):
    """tls-protocols applies to the control port too, as Unbound: with
    "TLSv1.3" a TLS 1.2 client (with the right certificate) fails the
    handshake; unbound-control (TLS 1.3) is served."""
    import ssl
    start_tls(unbound, keys, body='tls-protocols: "TLSv1.3"\n')
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.load_verify_locations(os.path.join(keys, "unbound_server.pem"))
    ctx.load_cert_chain(os.path.join(keys, "unbound_control.pem"),
                        os.path.join(keys, "unbound_control.key"))
    ctx.maximum_version = ssl.TLSVersion.TLSv1_2
    with socket.create_connection(("127.0.0.1", unbound.ctl_port),
                                  5) as raw:
        with pytest.raises((ssl.SSLError, ConnectionError)):
            ctx.wrap_socket(raw)
    r = ctl(unbound.conf, "status")
    assert r.returncode == 0 and "is running" in r.stdout, r.stdout + \
        r.stderr


def test_slow_client_does_not_block(unbound, keys):
    start_tls(unbound, keys)
    # a client that connects and says nothing, and one that sends a
    # line without end: the daemon answers DNS and control meanwhile
    idle = socket.create_connection(("127.0.0.1", unbound.ctl_port), 5)
    long_line = socket.create_connection(("127.0.0.1", unbound.ctl_port), 5)
    long_line.sendall(b"x" * 100000)
    t0 = time.time()
    assert unbound.query("version.server.", "TXT", "CH").rcode() == 0
    r = ctl(unbound.conf, "status")
    assert r.returncode == 0, r.stdout + r.stderr
    assert time.time() - t0 < 5
    # the idle one is closed after the time bound
    idle.settimeout(15 * SLOW)
    try:
        assert idle.recv(10) == b""
    except ConnectionResetError:
        pass
    idle.close()
    long_line.close()


def control_socket(unbound, how, keys):
    """A connected control socket, plain unix or mutual TLS, with a
    small receive buffer."""
    import ssl
    if how == "unix":
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        c.connect(os.path.join(unbound.dir, "ctl.sock"))
        return c
    raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    raw.connect(("127.0.0.1", unbound.ctl_port))
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.load_verify_locations(os.path.join(keys, "unbound_server.pem"))
    ctx.load_cert_chain(os.path.join(keys, "unbound_control.pem"),
                        os.path.join(keys, "unbound_control.key"))
    return ctx.wrap_socket(raw)


@pytest.mark.parametrize("how", ["unix", "tls"])
def test_clients_that_do_not_read(unbound, keys, how):
    """A client that sends its command and never reads the (long)
    answer, and one that reads it slowly: DNS is answered all the while
    and other control clients at once; the one that does not read is
    closed once its writes make no progress for the time bound, the slow
    reader gets the whole answer even though it takes longer than that."""
    if how == "unix":
        unbound.start(threads=2, extra=rc_clause(
            None, iface=os.path.join(unbound.dir, "ctl.sock"),
            use_cert=False))
    else:
        start_tls(unbound, keys, threads=2)
    # more than the kernel buffers for a client that does not read: a
    # unix socket takes a few hundred KiB, TCP up to 4 MiB (tcp_wmem)
    n, reads = (20000, 1) if how == "unix" else (150000, 4)
    lines = "".join("h%d.many.test. A 192.0.2.%d\n" % (i, i % 250 + 1)
                    for i in range(n))
    r = subprocess.run([OUR_CTL, "-c", unbound.conf, "local_datas"],
                       input=lines, capture_output=True, text=True,
                       timeout=60 * SLOW)
    assert r.stdout == "added %d datas\n" % n, r.stdout
    full = ctl(unbound.conf, "list_local_data", timeout=30 * SLOW).stdout
    assert len(full) > 30 * n, len(full)
    stop = threading.Event()
    res = {"ok": 0, "bad": 0}

    def load():
        while not stop.is_set():
            try:
                r = unbound.query("h7.many.test.", timeout=1)
                res["ok" if r.answer else "bad"] += 1
            except Exception:  # noqa: BLE001
                res["bad"] += 1
    th = threading.Thread(target=load)
    th.start()
    stuck = slow = None
    try:
        stuck = control_socket(unbound, how, keys)
        stuck.sendall(b"UBCT1 list_local_data\n")
        slow = control_socket(unbound, how, keys)
        t0 = time.time()
        slow.sendall(b"UBCT1 list_local_data\n")
        slow.settimeout(10)
        got = b""
        first = True
        while True:
            # others are served at once meanwhile
            if len(got) < 200000:
                t1 = time.time()
                r = ctl(unbound.conf, "get_option", "port")
                assert r.stdout == "%d\n" % unbound.port, r.stdout
                # answered while the non-reader still holds its
                # connection (closed 5 to 10 s after its last write): a
                # server that served one client at a time would answer
                # only after that close. (A bound in seconds failed at
                # load 30: 2.2 s.)
                if first:
                    assert "remote control connection timed out" not in \
                        unbound.log(), time.time() - t1
                    first = False
            time.sleep(0.1)
            # 8 KiB (unix), or 4 TLS records of up to 16 KiB, a pause
            for _ in range(reads):
                chunk = slow.recv(8192 if how == "unix" else 16384)
                if not chunk:
                    break
                got += chunk
            if not chunk:
                break
        took = time.time() - t0
        assert got.decode() == full
        assert took > 6, took   # longer than the 5 s bound in all
        # the client that never read was closed without its answer. The
        # server sees its last write at the next timer (stream_conn
        # stamps lazily), so it closes 5 to 10 s after that write: wait
        # for the close before reading, or the reads would be progress
        # (a fast machine's slow reader can finish before 10 s)
        deadline = time.time() + 30 * SLOW
        while "remote control connection timed out" not in unbound.log():
            assert time.time() < deadline, "the non-reader was not closed"
            time.sleep(0.2)
        stuck.settimeout(10)
        rest = b""
        try:
            while True:
                chunk = stuck.recv(65536)
                if not chunk:
                    break
                rest += chunk
        except (ConnectionResetError, OSError):
            pass
        assert len(rest) < len(full), len(rest)
        assert "remote control connection timed out" in unbound.log()
    finally:
        stop.set()
        th.join()
        for c in (stuck, slow):
            if c:
                c.close()
    assert res["bad"] == 0 and res["ok"] > 50, res
    assert unbound.alive()


def unix_connect(s, path, timeout):
    """connect() on a unix socket with a timeout: such a socket has no
    connect in progress, a full listen backlog answers EAGAIN at once
    (seen in CI while the daemon had not yet accepted a burst of
    connections), so try again until the deadline."""
    deadline = time.time() + timeout
    while True:
        try:
            s.connect(path)
            return
        except BlockingIOError:
            if time.time() > deadline:
                raise
            time.sleep(0.01)


def unix_exchange(path, data, timeout=10):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        unix_connect(s, path, timeout)
        try:
            s.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass
        out = b""
        try:
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    break
                out += chunk
        except ConnectionResetError:
            pass
        return out


def test_garbage_and_many_connections(unbound, tmp_path):
    path = str(tmp_path / "ctl.sock")
    unbound.start(extra=rc_clause(None, iface=path, use_cert=False))
    assert unix_exchange(path, b"UBCT1 status\n").startswith(b"version: ")
    # wrong magic: closed without an answer; wrong version: an error
    assert unix_exchange(path, b"GET / HTTP/1.0\r\n\r\n") == b""
    assert unix_exchange(path, b"UBCT9 status\n") == \
        b"error version mismatch\n"
    assert unix_exchange(path, b"UBCT1 \x00\xff\xfe\n").startswith(
        b"error unknown command")
    assert unix_exchange(path, b"UBCT1 status\r\n").startswith(b"version")
    assert unix_exchange(path, b"UBCT1 " + b"a" * 10000 + b"\n") == \
        b"error command line too long\n"
    # more idle connections than the daemon takes at once: the oldest
    # idle ones make room, control works at once while they stay
    idle = []
    for _ in range(40):
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.connect(path)
        idle.append(c)
    assert unbound.query("version.server.", "TXT", "CH").rcode() == 0
    t0 = time.time()
    assert unix_exchange(path, b"UBCT1 get_option port\n") == \
        b"%d\n" % unbound.port
    assert time.time() - t0 < 2, time.time() - t0
    # the first ones were closed for it, the last ones are still open
    idle[0].settimeout(5)
    assert idle[0].recv(10) == b""
    idle[-1].setblocking(False)
    with pytest.raises(BlockingIOError):
        idle[-1].recv(10)
    for c in idle:
        c.close()
    assert unix_exchange(path, b"UBCT1 get_option port\n") == \
        b"%d\n" % unbound.port


def test_unknown_and_malformed_commands(unbound, keys):
    start_tls(unbound, keys)
    for binary in CLIENTS:
        r = ctl(unbound.conf, "frobnicate", "a", binary=binary)
        assert r.returncode == 1
        assert r.stdout == "error unknown command 'frobnicate a'\n"
        r = ctl(unbound.conf, "verbosity", "x", binary=binary)
        assert r.returncode == 1 and r.stdout.startswith("error")
        r = ctl(unbound.conf, "get_option", "no-such-option", binary=binary)
        assert r.stdout == "error unknown option\n"
        # Unbound's forms, found side by side with Debian's unbound:
        # the rest of the line is the argument of these
        for args, want in (
                (["get_option", "port", "x"], "error unknown option\n"),
                (["verbosity", "x", "y"],
                 "error in verbosity number syntax: x y\n"),
                (["verbosity", "00"],
                 "error in verbosity number syntax: 00\n"),
                (["verbosity", "1x"], "ok\n"),   # atoi, as Unbound
                (["verbosity", "1", "2"], "ok\n"),
                (["flush_type"], "error could not find next argument "
                 "after \n"),
                (["flush_type", "a..b"], "error could not find next "
                 "argument after a..b\n"),
                (["flush_type", "a..b", "A"], "error cannot parse name "
                 "a..b at 3: Empty label\n"),
                # a type it does not know is type 0: nothing to flush
                (["flush_type", "example.com", "BOGUS"], "ok\n")):
            r = ctl(unbound.conf, *args, binary=binary)
            assert r.stdout == want, (binary, args, r.stdout)
            assert r.returncode == (0 if want == "ok\n" else 1)
        assert ctl(unbound.conf, "verbosity", "1").stdout == "ok\n"


STUBS = """
stub-zone:
\tname: "stub.test."
\tstub-addr: 127.0.0.5
\tstub-addr: 127.0.0.6@5353
\tstub-host: ns.stub.test.
forward-zone:
\tname: "fwd.test."
\tforward-addr: 127.0.0.7
"""


def test_commands(unbound, keys):
    unbound.ctl_port = free_port()
    unbound.start('local-data: "www.example.com. A 192.0.2.1"',
                  extra=rc_clause(keys, unbound.ctl_port) + STUBS)
    for binary in CLIENTS:
        def ok(*args):
            r = ctl(unbound.conf, *args, binary=binary)
            assert r.returncode == 0, (binary, args, r.stdout, r.stderr)
            return r.stdout
        assert ok("verbosity", "3") == "ok\n"
        assert "verbosity: 3\n" in ok("status")
        assert ok("verbosity", "1") == "ok\n"
        assert ok("get_option", "num-threads") == "1\n"
        assert ok("get_option", "port") == "%d\n" % unbound.port
        assert ok("flush", "www.example.com") == "ok\n"
        assert ok("flush_type", "www.example.com", "AAAA") == "ok\n"
        assert re.fullmatch(r"ok removed \d+ rrsets, \d+ messages and 0 "
                            r"key entries\n", ok("flush_zone", "example.com"))
        assert ok("flush_stats") == "ok\n"
        assert ok("flush_bogus") == ("ok removed 0 rrsets, 0 messages "
                                     "and 0 key entries\n")
        assert re.fullmatch(r"ok removed 0 rrsets, \d+ messages and 0 "
                            r"key entries\n", ok("flush_negative"))
        assert ok("log_reopen") == "ok\n"
        assert ok("lookup", "www.example.com").startswith(
            "The following name servers are used for lookup of "
            "www.example.com")
        assert ok("list_forwards") == "fwd.test. IN forward 127.0.0.7\n"
        stubs = ok("list_stubs").splitlines()
        assert stubs[0] == ". IN stub prime a.root.test. 127.0.0.254"
        assert stubs[1].startswith("stub.test. IN stub noprime "
                                   "ns.stub.test. 127.0.0.")
        assert sorted(stubs[1].split()[-2:]) == ["127.0.0.5", "127.0.0.6"]
        st = stats_dict(ok("stats_noreset"))
        assert "total.num.queries" in st and "time.up" in st
        assert ok("reload") == "ok\n"
    r = ctl(unbound.conf, "flush_infra", "all")
    assert r.returncode == 0 and r.stdout == "ok\n"
    assert unbound.query("www.example.com.").answer


def test_stats_add_up(unbound, keys):
    start_tls(unbound, keys, threads=3,
              body='extended-statistics: yes\n'
                   'local-data: "a.example. A 192.0.2.1"')
    r = ctl(unbound.conf, "stats")  # reset after the start-up queries
    assert r.returncode == 0
    n = 60
    for i in range(n):
        # new source port each time: spread over the threads' sockets
        rdtype = "A" if i % 3 else "AAAA"
        unbound.query("a.example.", rdtype, tcp=(i % 10 == 0))
    s = stats_dict(ctl(unbound.conf, "stats_noreset").stdout)
    assert int(s["total.num.queries"]) == n, s
    threads = [int(s["thread%d.num.queries" % t]) for t in range(3)]
    assert sum(threads) == n
    assert int(s["num.query.type.A"]) == n - n // 3 - (0 if n % 3 else 0)
    assert int(s["num.query.type.AAAA"]) == n // 3
    assert int(s["num.query.class.IN"]) == n
    assert int(s["num.query.opcode.QUERY"]) == n
    assert int(s["num.query.tcp"]) == n // 10
    assert int(s["num.query.flags.RD"]) == n
    assert int(s["num.answer.rcode.NOERROR"]) == n
    assert int(s["num.answer.rcode.nodata"]) == n // 3
    assert "mem.cache.rrset" in s and "mem.cache.message" in s
    for k in ("num.cachehits", "num.cachemiss", "num.recursivereplies",
              "requestlist.avg", "requestlist.max", "recursion.time.avg",
              "recursion.time.median", "tcpusage"):
        assert "total." + k in s, k
    for k in ("time.now", "time.up", "time.elapsed"):
        assert re.fullmatch(r"\d+\.\d{6}", s[k]), k
    # stats resets: the next read starts from zero
    s = stats_dict(ctl(unbound.conf, "stats").stdout)
    assert int(s["total.num.queries"]) == n
    s = stats_dict(ctl(unbound.conf, "stats").stdout)
    assert int(s["total.num.queries"]) == 0
    unbound.query("a.example.")
    s = stats_dict(ctl(unbound.conf, "stats_noreset").stdout)
    assert int(s["total.num.queries"]) == 1


def test_tcpusage_counts_open_connections(unbound, tmp_path):
    """tcpusage is the TCP connections open when the stats are asked
    for, per thread and in total (as Unbound), cache hits or not."""
    path = str(tmp_path / "ctl.sock")
    unbound.start('local-data: "t.example. A 192.0.2.1"', threads=2,
                  extra=rc_clause(None, iface=path, use_cert=False))
    conns = []
    try:
        for _ in range(3):
            c = socket.create_connection(("127.0.0.1", unbound.port), 5)
            w = make_query("t.example.").to_wire()
            c.sendall(len(w).to_bytes(2, "big") + w)
            assert len(c.recv(4096)) > 12
            conns.append(c)
        s = stats_dict(ctl(unbound.conf, "stats_noreset").stdout)
        assert s["total.tcpusage"] == "3", s
        assert int(s["thread0.tcpusage"]) + int(s["thread1.tcpusage"]) == 3
    finally:
        for c in conns:
            c.close()
    deadline = time.time() + 5
    while time.time() < deadline:
        s = stats_dict(ctl(unbound.conf, "stats_noreset").stdout)
        if s["total.tcpusage"] == "0":
            break
        time.sleep(0.05)
    assert s["total.tcpusage"] == "0", s


def test_reload_starts_statistics_afresh(unbound, tmp_path):
    """As Unbound 1.17 (checked side by side): every form of reload, and
    SIGHUP, starts the counters from zero, even with
    statistics-cumulative; time.up goes on."""
    path = str(tmp_path / "ctl.sock")
    unbound.start('local-data: "r.example. A 192.0.2.1"\n'
                  'statistics-cumulative: yes', threads=2,
                  extra=rc_clause(None, iface=path, use_cert=False))
    for how in (["reload"], ["reload_keep_cache"], ["reload", "+keep-cache"],
                "SIGHUP"):
        for _ in range(3):
            assert unbound.query("r.example.").answer
        s = stats_dict(ctl(unbound.conf, "stats_noreset").stdout)
        assert int(s["total.num.queries"]) >= 3, s
        up = float(s["time.up"])
        if how == "SIGHUP":
            n = unbound.log().count("service reloaded")
            unbound.send_signal(signal.SIGHUP)
            deadline = time.time() + 10 * SLOW
            while unbound.log().count("service reloaded") == n and \
                    time.time() < deadline:
                time.sleep(0.05)
        else:
            assert ctl(unbound.conf, *how).stdout == "ok\n"
        s = stats_dict(ctl(unbound.conf, "stats_noreset").stdout)
        assert s["total.num.queries"] == "0", (how, s)
        assert s["thread0.num.queries"] == "0", (how, s)
        assert float(s["time.up"]) >= up
        assert unbound.query("r.example.").answer
        s = stats_dict(ctl(unbound.conf, "stats_noreset").stdout)
        assert s["total.num.queries"] == "1", (how, s)


def test_stats_cumulative(unbound, keys):
    start_tls(unbound, keys, body="statistics-cumulative: yes")
    ctl(unbound.conf, "stats")
    unbound.query("version.server.", "TXT", "CH")
    a = int(stats_dict(ctl(unbound.conf, "stats").stdout)
            ["total.num.queries"])
    b = int(stats_dict(ctl(unbound.conf, "stats").stdout)
            ["total.num.queries"])
    assert a >= 2 and b == a


def test_statistics_interval_logs(unbound):
    unbound.start("statistics-interval: 1")
    unbound.query("version.server.", "TXT", "CH")
    deadline = time.time() + 10 * SLOW
    while time.time() < deadline:
        if "server stats for thread 0" in unbound.log():
            break
        time.sleep(0.2)
    assert "server stats for thread 0" in unbound.log()


def test_reload_while_querying(unbound, keys):
    body = 'local-data: "r.example. A 192.0.2.1"'
    start_tls(unbound, keys, threads=2, body=body)
    stop = threading.Event()
    results = {"ok": 0, "bad": 0}

    def load():
        while not stop.is_set():
            try:
                r = unbound.query("r.example.", timeout=2)
                results["ok" if r.rcode() == dns.rcode.NOERROR and
                        r.answer else "bad"] += 1
            except Exception:
                results["bad"] += 1
    th = threading.Thread(target=load)
    th.start()
    try:
        for i in range(3):
            r = ctl(unbound.conf, "reload")
            assert r.stdout == "ok\n", r.stdout + r.stderr
            time.sleep(0.2)
        unbound.write_config(
            'local-data: "r.example. A 192.0.2.1"\n'
            'local-data: "new.example. A 192.0.2.9"', threads=2,
            extra=rc_clause(keys, unbound.ctl_port))
        assert ctl(unbound.conf, "reload").stdout == "ok\n"
    finally:
        stop.set()
        th.join()
    assert results["bad"] == 0 and results["ok"] > 10, results
    assert unbound.query("new.example.").answer[0][0].address == "192.0.2.9"
    # a broken config is refused; the old one keeps serving
    with open(unbound.conf, "a") as f:
        f.write("server:\n\tno-such-option: 1\n")
    r = ctl(unbound.conf.replace("unbound.conf", "unbound.conf"), "reload")
    assert unbound.alive()
    assert unbound.query("new.example.").answer


def test_log_reopen_after_rotation(unbound, keys):
    start_tls(unbound, keys)
    os.rename(unbound.logfile, unbound.logfile + ".1")
    assert ctl(unbound.conf, "log_reopen").stdout == "ok\n"
    assert ctl(unbound.conf, "reload").stdout == "ok\n"
    with open(unbound.logfile) as f:
        assert "service reload" in f.read()


def test_server_option_and_quiet(unbound, keys):
    start_tls(unbound, keys)
    for binary in CLIENTS:
        r = ctl(unbound.conf, "-s", "127.0.0.1@%d" % unbound.ctl_port,
                "-q", "status", binary=binary)
        assert r.returncode == 0 and r.stdout == "", (binary, r.stdout)
        r = ctl(unbound.conf, "-q", "frobnicate", binary=binary)
        assert r.returncode == 1 and r.stdout.startswith("error")
        # nobody listens there
        r = ctl(unbound.conf, "-s", "127.0.0.1@%d" % free_port(),
                "status", binary=binary)
        assert r.returncode != 0


def test_bad_key_files_refused_at_start(unbound, tmp_path):
    port = free_port()
    rc, out = unbound.start_expecting_exit(
        extra=rc_clause(str(tmp_path / "nokeys"), port))
    assert rc not in (0, None), out[-2000:]
    assert "unbound_server" in out


def test_stop(unbound, keys):
    start_tls(unbound, keys)
    r = ctl(unbound.conf, "stop")
    assert r.stdout == "ok\n"
    unbound.proc.wait(10 * SLOW)
    assert unbound.proc.returncode == 0
    r = ctl(unbound.conf, "status")
    assert r.returncode == 3 and "unbound is stopped" in r.stdout


@pytest.mark.skipif(not os.path.exists(DEB_UNBOUND),
                    reason="Debian's unbound not installed")
def test_our_client_with_real_unbound(tmp_path, keys):
    srv = RefServer(tmp_path)
    try:
        start_tls(srv, keys, body='module-config: "iterator"')
        r = ctl(srv.conf, "status")
        assert r.returncode == 0 and STATUS_RE.fullmatch(r.stdout), r.stdout
        s = stats_dict(ctl(srv.conf, "stats_noreset").stdout)
        assert "total.num.queries" in s
        r = ctl(srv.conf, "frobnicate")
        assert r.stdout == "error unknown command 'frobnicate'\n"
        assert r.returncode == 1
        r = ctl(srv.conf, "stop")
        assert r.stdout == "ok\n"
        srv.proc.wait(10)
    finally:
        if srv.proc and srv.proc.poll() is None:
            srv.proc.send_signal(signal.SIGTERM)
            srv.proc.wait(10)


@pytest.mark.skipif(not os.path.exists(DEB_UNBOUND),
                    reason="Debian's unbound not installed")
def test_stats_names_match_reference(unbound, tmp_path, keys):
    """The same queries to ours and to Debian's Unbound give the same
    stats names in the same order, and the same query/answer counts."""
    body = ('extended-statistics: yes\n'
            'local-data: "a.example. A 192.0.2.1"\n'
            'access-control: 127.0.0.2/32 refuse\n'
            'access-control: 127.0.0.3/32 deny\n'
            'access-control: 127.0.0.4/32 refuse_non_local')
    ref = RefServer(tmp_path / "ref")
    os.makedirs(ref.dir, exist_ok=True)
    got = {}
    try:
        start_tls(ref, keys, threads=2,
                  body=body + '\nmodule-config: "iterator"')
        # discard-timeout at its default (a sanitizer build's conftest
        # scales it, and a value away from the default adds its
        # counters, which 1.17 does not have)
        start_tls(unbound, keys, threads=2,
                  body=body + "\ndiscard-timeout: 1900")
        for name, srv in (("ref", ref), ("ours", unbound)):
            ctl(srv.conf, "stats")
            for i in range(6):
                srv.query("a.example.", "A" if i % 2 else "AAAA",
                          tcp=(i == 0))
            srv.query("a.example.", "A", want_dnssec=True)
            # turned away by access-control: unwanted.queries, and only
            # the non-local refusal is a query as well
            assert srv.query("a.example.", source="127.0.0.2").rcode() \
                == dns.rcode.REFUSED
            with pytest.raises(dns.exception.Timeout):
                srv.query("a.example.", source="127.0.0.3", timeout=0.3)
            assert srv.query("a.example.", source="127.0.0.4").answer
            deny_non_local(srv)
            out = ctl(srv.conf, "stats_noreset").stdout
            got[name] = [l.split("=", 1) for l in out.splitlines()]
    finally:
        if ref.proc and ref.proc.poll() is None:
            ref.proc.send_signal(signal.SIGTERM)
            ref.proc.wait(10)
    assert [k for k, _ in got["ours"]] == [k for k, _ in got["ref"]]
    ours, theirs = dict(got["ours"]), dict(got["ref"])
    for k in theirs:
        if k.startswith(("num.query.", "num.answer.", "unwanted.")) or \
                k in ("total.num.queries", "total.num.cachehits",
                      "total.num.cachemiss"):
            assert ours[k] == theirs[k], (k, ours[k], theirs[k])
    assert ours["unwanted.queries"] == "3", ours["unwanted.queries"]
    assert ours["total.num.queries"] == "9", ours["total.num.queries"]


def deny_non_local(srv):
    """A name outside the local zones from 127.0.0.4 (refuse_non_local):
    refused after the local zones were asked. Unbound 1.17 answers it
    with the header only, which dnspython does not take as a reply, so
    the exchange is by hand."""
    q = make_query("www.example.net.")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.4", 0))
        s.settimeout(3)
        s.sendto(q.to_wire(), ("127.0.0.1", srv.port))
        data = s.recv(4096)
    assert data[:2] == q.to_wire()[:2] and data[3] & 0xf == 5, data


def test_recursion_stats_and_flush(unbound, keys, testnet_net):
    """Through the test internet: misses, hits, recursion time, rcodes;
    flush makes the next ask a miss again; lookup shows the cached
    delegation."""
    net = testnet_net
    if not net.iterable:
        pytest.skip("test internet not on port 53 (needs root)")
    start_tls(unbound, keys, threads=2, root_hints=net.root_hints,
              body="extended-statistics: yes")
    ctl(unbound.conf, "stats")
    assert unbound.query("www.example.tld1.", timeout=8).answer
    assert unbound.query("www.example.tld1.", timeout=8).answer
    r = unbound.query("nonexistent.example.tld1.", timeout=8)
    assert r.rcode() == dns.rcode.NXDOMAIN
    s = stats_dict(ctl(unbound.conf, "stats").stdout)
    assert s["total.num.queries"] == "3"
    assert s["total.num.cachemiss"] == "2"
    assert s["total.num.cachehits"] == "1"
    assert s["total.num.recursivereplies"] == "2"
    assert float(s["total.recursion.time.avg"]) > 0
    assert float(s["total.recursion.time.median"]) > 0
    assert s["total.requestlist.current.all"] == "0"
    assert s["total.requestlist.current.user"] == "0"
    # one at a time: each found the request list empty (as Unbound
    # samples it, before the query's own state)
    assert s["total.requestlist.max"] == "0"
    assert s["total.requestlist.avg"] == "0"
    assert s["num.answer.rcode.NXDOMAIN"] == "1"
    assert s["num.answer.rcode.NOERROR"] == "2"
    assert int(s["msg.cache.count"]) >= 2
    hist = sum(int(v) for k, v in s.items() if k.startswith("histogram."))
    assert hist == 2
    out = ctl(unbound.conf, "lookup", "www.example.tld1").stdout
    assert "lookup of www.example.tld1." in out
    assert "\tNS\t" in out and "Delegation with" in out
    assert re.search(r"\tIN\tA\t127\.", out), out
    assert "of which 0 can be examined" in out, out
    m = re.search(r"It provides (\d+) IP addresses\.\n", out)
    assert m and int(m.group(1)) >= 1, out
    assert re.search(r"127\.\S+\s+rto \d+ msec, ttl \d+, ping", out), out
    # flushed: asked again upstream
    assert ctl(unbound.conf, "flush", "www.example.tld1").stdout == "ok\n"
    assert unbound.query("www.example.tld1.", timeout=8).answer
    s = stats_dict(ctl(unbound.conf, "stats").stdout)
    assert s["total.num.cachemiss"] == "1"
    out = ctl(unbound.conf, "flush_zone", "tld1").stdout
    m = re.fullmatch(r"ok removed (\d+) rrsets, (\d+) messages and 0 key "
                     r"entries\n", out)
    assert m and int(m.group(1)) > 0 and int(m.group(2)) > 0, out
    assert unbound.query("www.example.tld1.", timeout=8).answer
    s = stats_dict(ctl(unbound.conf, "stats").stdout)
    assert s["total.num.cachemiss"] == "1"
    # flush_negative: the NXDOMAIN goes, the positive answer stays
    assert unbound.query("nonexistent.example.tld1.",
                         timeout=8).rcode() == dns.rcode.NXDOMAIN
    ctl(unbound.conf, "stats")
    out = ctl(unbound.conf, "flush_negative").stdout
    m = re.fullmatch(r"ok removed 0 rrsets, (\d+) messages and 0 key "
                     r"entries\n", out)
    assert m and int(m.group(1)) >= 1, out
    assert unbound.query("nonexistent.example.tld1.",
                         timeout=8).rcode() == dns.rcode.NXDOMAIN
    assert unbound.query("www.example.tld1.", timeout=8).answer
    s = stats_dict(ctl(unbound.conf, "stats").stdout)
    assert s["total.num.cachemiss"] == "1", s["total.num.cachemiss"]


def test_flush_requestlist(unbound, keys, testnet_net):
    """Clients waiting for a server that does not answer are dropped:
    the request list empties, no reply is sent."""
    net = testnet_net
    if not net.iterable:
        pytest.skip("test internet not on port 53 (needs root)")
    resp = net.responder("bad")
    start_tls(unbound, keys, root_hints=net.root_hints)
    # the delegation first, so the waiting is at the silent server
    assert unbound.query("www.bad.tld2.", timeout=8).answer
    resp.set_behaviour(rules=[{"name": "slow%d.bad.tld2." % i,
                               "actions": [{"type": "drop"}]}
                              for i in range(3)])
    socks = []
    ctl(unbound.conf, "stats")
    try:
        for i in range(3):
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.sendto(make_query("slow%d.bad.tld2." % i).to_wire(),
                     ("127.0.0.1", unbound.port))
            socks.append(s)
        deadline = time.time() + 5
        while time.time() < deadline:
            st = stats_dict(ctl(unbound.conf, "stats_noreset").stdout)
            if st["total.requestlist.current.user"] == "3":
                break
            time.sleep(0.1)
        assert st["total.requestlist.current.user"] == "3", st
        # one thread: the three found 0, 1 and 2 states before them
        assert st["total.requestlist.max"] == "2", st
        assert st["total.requestlist.avg"] == "1", st
        assert int(st["total.requestlist.current.all"]) >= 3, st
        assert ctl(unbound.conf, "flush_requestlist").stdout == "ok\n"
        deadline = time.time() + 5
        while time.time() < deadline:
            st = stats_dict(ctl(unbound.conf, "stats_noreset").stdout)
            if st["total.requestlist.current.user"] == "0":
                break
            time.sleep(0.1)
        assert st["total.requestlist.current.user"] == "0", st
        assert st["total.requestlist.current.all"] == "0", st
        # a reset reaches the workers: the maximum starts from zero
        assert stats_dict(ctl(unbound.conf, "stats").stdout)[
            "total.requestlist.max"] == "2"
        deadline = time.time() + 5
        while time.time() < deadline:
            st = stats_dict(ctl(unbound.conf, "stats_noreset").stdout)
            if st["total.requestlist.max"] == "0":
                break
            time.sleep(0.1)
        assert st["total.requestlist.max"] == "0", st
        for s in socks:
            s.settimeout(0.2)
            with pytest.raises(socket.timeout):
                s.recv(4096)
        # still resolving
        assert unbound.query("www.bad.tld2.", timeout=8).answer
    finally:
        for s in socks:
            s.close()
        resp.reset_behaviour()


def test_upstream_counts(unbound, keys, testnet_net):
    """num.query.udpout and num.query.tcpout count the queries sent
    upstream (the responder logs each one it gets), unwanted.replies a
    reply with the wrong ID."""
    net = testnet_net
    if not net.iterable:
        pytest.skip("test internet not on port 53 (needs root)")
    bad = net.responder("bad")
    start_tls(unbound, keys, root_hints=net.root_hints,
              body="extended-statistics: yes")
    # the delegation to bad.tld2. first: later queries go there only
    assert unbound.query("www.bad.tld2.", timeout=8).answer
    bad.set_behaviour(rules=[
        {"name": "tc.bad.tld2.", "actions": [{"type": "tc"}]},
        {"name": "wid.bad.tld2.",
         "actions": [{"type": "wrong_id", "then_correct": True}]}])
    try:
        bad.clear_log()
        ctl(unbound.conf, "stats")
        for name in ("tc.bad.tld2.", "wid.bad.tld2."):
            assert unbound.query(name, "TXT", timeout=8).rcode() in (
                dns.rcode.NOERROR, dns.rcode.NXDOMAIN)
        s = stats_dict(ctl(unbound.conf, "stats").stdout)
        got = bad.queries()
        udp = sum(1 for q in got if q["proto"] == "udp")
        tcp = sum(1 for q in got if q["proto"] == "tcp")
        assert udp >= 2 and tcp >= 1, got
        assert int(s["num.query.udpout"]) == udp, (s, got)
        assert int(s["num.query.tcpout"]) == tcp, (s, got)
        assert s["unwanted.replies"] == "1", s
        assert s["unwanted.queries"] == "0", s
        # a reset starts them from zero again
        s = stats_dict(ctl(unbound.conf, "stats").stdout)
        assert s["num.query.udpout"] == "0" and \
            s["unwanted.replies"] == "0", s
    finally:
        bad.reset_behaviour()
