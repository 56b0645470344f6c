# SPDX-License-Identifier: BSD-3-Clause
"""Integration test harness: runs the unbound daemon on loopback.

The binary is taken from env UNBOUND_BIN, else $UNBOUND_BUILDDIR/unbound
(`make check` sets UNBOUND_BUILDDIR to the build directory), else ./unbound
at the top of the source tree. unbound-checkconf is looked up next to it
(or env UNBOUND_CHECKCONF_BIN).

With UNBOUND_BIN=/usr/sbin/unbound the suite runs against Debian's real
Unbound 1.17, the reference for behaviour; tests of things the reference
does differently on purpose are marked with `ours_only`.

Every daemon is stopped by its PID (SIGTERM, then SIGKILL after a timeout)
in a fixture finalizer; a clean SIGTERM must give exit status 0. Nothing is
ever sent outside 127.0.0.0/8 and ::1: the reference gets a root-hints
file that names only 127.0.0.254, never the real root servers. Without
root-hints: the daemon (like Unbound) would use its built-in root hints,
the real root servers, so Server refuses to start any daemon whose config
has neither a loopback root-hints file nor a forward-zone for "." to
loopback (testdata/testnet/loopback_guard.py). The built-in hints are
tested in a network namespace that has only lo (test_builtin_hints.py).
"""
import os
import random
import re
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

import dns.edns
import dns.exception
import dns.flags
import dns.message
import dns.name
import dns.query
import dns.rcode
import dns.rdataclass
import dns.rdatatype
import dns.rrset
import pytest

SRCDIR = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
BUILDDIR = os.environ.get("UNBOUND_BUILDDIR", SRCDIR)
TESTDATA = os.path.join(SRCDIR, "testdata")
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)
from testnet import loopback_guard  # noqa: E402
UNBOUND_BIN = os.environ.get("UNBOUND_BIN",
                             os.path.join(BUILDDIR, "unbound"))
CHECKCONF_BIN = os.environ.get(
    "UNBOUND_CHECKCONF_BIN",
    os.path.join(os.path.dirname(os.path.abspath(UNBOUND_BIN)),
                 "unbound-checkconf"))
# our unbound-control: reads every option this daemon reads
OUR_CONTROL = os.path.join(BUILDDIR, "unbound-control")
SHIM = os.environ.get("UNBOUND_SHIM",
                      os.path.join(BUILDDIR, "testdata", "reuseport_shim.so"))

# Debian's installed Unbound: the reference implementation.
REFERENCE = (os.environ.get("UNBOUND_REFERENCE") == "1" or
             os.path.realpath(UNBOUND_BIN).startswith("/usr/"))

# Sanitizer builds are slower to start and to answer.
SLOW = 3 if os.environ.get("ASAN_OPTIONS") else 1
START_TIMEOUT = 15 * SLOW
STOP_TIMEOUT = 10 * SLOW

ROOT_HINTS = (". 3600000 IN NS a.root.test.\n"
              "a.root.test. 3600000 IN A 127.0.0.254\n")

ours_only = pytest.mark.skipif(
    REFERENCE, reason="checks behaviour particular to this implementation")


def reference_differs(why):
    """Skip a test for the reference binary, saying why."""
    return pytest.mark.skipif(REFERENCE, reason="real Unbound 1.17: " + why)


def have_ipv6():
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_DGRAM) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


HAVE_IPV6 = have_ipv6()
needs_ipv6 = pytest.mark.skipif(not HAVE_IPV6, reason="::1 not available")


def _ephemeral_low():
    """The lowest port the kernel hands out for bind(0) and connect()."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_port(ipv6=False):
    """A port free for both UDP and TCP on 127.0.0.1 (and ::1), picked at
    random below the kernel's ephemeral range: a port from bind(0) can be
    taken by any outgoing connection between this check and the daemon's
    bind (seen once as "Address already in use" in a sanitizer run)."""
    high = min(_ephemeral_low(), 65536) - 1
    low = 10000 if high > 12000 else 1024
    for _ in range(200):
        port = random.randint(low, high)
        ok = True
        families = [(socket.AF_INET, "127.0.0.1")]
        if ipv6:
            families.append((socket.AF_INET6, "::1"))
        for fam, addr in families:
            for typ in (socket.SOCK_DGRAM, socket.SOCK_STREAM):
                try:
                    with socket.socket(fam, typ) as s:
                        s.bind((addr, port))
                except OSError:
                    ok = False
        if ok:
            return port
    raise RuntimeError("no free port found")


def sockets_on_port(port, proto, pid=None):
    """Listening sockets on port from `ss` (proto 'udp' or 'tcp'); when pid
    is given, only those the process owns."""
    flag = "-lunpH" if proto == "udp" else "-ltnpH"
    out = subprocess.run(["ss", flag, "sport = :%d" % port],
                         capture_output=True, text=True, check=True).stdout
    lines = [l for l in out.splitlines() if l.strip()]
    if pid is not None:
        lines = [l for l in lines if re.search(r"pid=%d," % pid, l)]
    return lines


def proc_status(pid):
    """/proc/PID/status as a dict (empty when the process is gone)."""
    try:
        with open("/proc/%d/status" % pid) as f:
            return dict(l.split(":", 1) for l in f.read().splitlines()
                        if ":" in l)
    except OSError:
        return {}


def rss_kib(pid):
    return int(proc_status(pid).get("VmRSS", "0 kB").split()[0])


def pid_alive(pid):
    """True while pid runs (a zombie counts as gone)."""
    st = proc_status(pid)
    return bool(st) and not st.get("State", "").strip().startswith("Z")


def make_query(name, rdtype="A", rdclass="IN", rd=True, edns=None,
               payload=None, want_dnssec=False, qid=None):
    """A dns.message query; edns=None means no OPT record."""
    use_edns = edns if edns is not None else (
        0 if (payload is not None or want_dnssec) else False)
    if use_edns is False:
        use_edns = -1
    q = dns.message.make_query(name, rdtype, rdclass, use_edns=use_edns,
                               payload=payload or 1232,
                               want_dnssec=want_dnssec)
    if not rd:
        q.flags &= ~dns.flags.RD
    if qid is not None:
        q.id = qid
    return q


def tcp_frame(wire):
    return struct.pack("!H", len(wire)) + wire


def recv_exact(sock, n):
    """n bytes from sock, or None if it closes first."""
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def recv_tcp_msg(sock):
    """One length-framed DNS message from sock, None on close."""
    hdr = recv_exact(sock, 2)
    if hdr is None:
        return None
    (length,) = struct.unpack("!H", hdr)
    return recv_exact(sock, length)


class Server:
    """One daemon under test: config in a temporary directory, started
    with `-d -c FILE`, stopped by PID."""

    # the binary this Server runs (a subclass may run another one)
    binary = UNBOUND_BIN

    def __init__(self, tmpdir, ipv6=False):
        self.dir = str(tmpdir)
        self.ipv6 = ipv6
        self.port = free_port(ipv6)
        self.conf = os.path.join(self.dir, "unbound.conf")
        self.logfile = os.path.join(self.dir, "unbound.log")
        self.pidfile = os.path.join(self.dir, "unbound.pid")
        self.stdout = os.path.join(self.dir, "stdout.txt")
        self.stderr = os.path.join(self.dir, "stderr.txt")
        self.proc = None
        self.pid = None
        self.exit_status = None

    # -- configuration --------------------------------------------------
    def config_text(self, body="", extra="", threads=1, verbosity=1,
                    logfile=True, daemonize=False, username="",
                    root_hints=None):
        """The full unbound.conf: the harness's fixed lines, then body
        (lines of the server: clause), then extra (further clauses)."""
        lines = ["server:",
                 "verbosity: %d" % verbosity,
                 "num-threads: %d" % threads,
                 "interface: 127.0.0.1"]
        if self.ipv6:
            lines.append("interface: ::1")
        lines += ["port: %d" % self.port,
                  "do-daemonize: %s" % ("yes" if daemonize else "no"),
                  "use-syslog: no",
                  'chroot: ""',
                  'username: "%s"' % username,
                  'directory: "%s"' % self.dir,
                  'pidfile: "%s"' % self.pidfile]
        if logfile:
            lines.append('logfile: "%s"' % self.logfile)
        # Every server knows only a loopback root (by default a dead one;
        # root_hints= names the test internet's): nothing a test does can
        # reach the real root servers. root_hints=False leaves the line
        # out (the built-in hints): run_args refuses that config unless
        # body forbids every address (loopback_guard).
        hints = root_hints
        if hints is None:
            hints = os.path.join(self.dir, "root.hints")
            with open(hints, "w") as f:
                f.write(ROOT_HINTS)
        if hints is not False:
            lines.append('root-hints: "%s"' % hints)
        lines.append("do-not-query-localhost: no")
        if REFERENCE:
            lines.append('module-config: "iterator"')
        elif SLOW > 1 and self.binary == UNBOUND_BIN:
            # discard-timeout (default 1900 ms, as Unbound 1.21+) drops a
            # UDP reply that took longer: scaled like every other time
            # bound for a sanitizer build, which answers about SLOW times
            # slower (a test's own discard-timeout line comes later and
            # wins)
            lines.append("discard-timeout: %d" % (1900 * SLOW))
        text = lines[0] + "\n" + "".join("\t%s\n" % l for l in lines[1:])
        for l in body.strip("\n").splitlines():
            text += "\t%s\n" % l.strip()
        if extra:
            text += extra.strip("\n") + "\n"
        return text

    def write_config(self, body="", **kw):
        text = self.config_text(body, **kw)
        with open(self.conf, "w") as f:
            f.write(text)
        return self.conf

    def config_line(self, needle):
        """1-based line number of the first config line containing
        needle."""
        with open(self.conf) as f:
            for i, l in enumerate(f, 1):
                if needle in l:
                    return i
        raise KeyError(needle)

    # -- process life ---------------------------------------------------
    def run_args(self, args):
        """The command line that starts the daemon with self.conf. Every
        start goes through here, so this is where a config that could
        reach the real root servers is refused (raises UnsafeConfig)."""
        loopback_guard.check(self.conf)
        return [self.binary] + list(args) + ["-c", self.conf]

    def start(self, body="", args=("-d",), wait=True, env=None,
              ready_source="127.0.0.1", **kw):
        """Write the config, start the daemon in the foreground, wait
        until it answers a query from ready_source. free_port's port can
        be taken by another program between the pick and the daemon's
        bind: then, when nothing in the test names that port, a new one
        is picked and the start repeated (at most 3 times)."""
        penv = dict(os.environ)
        if env:
            penv.update(env)
        for attempt in range(4):
            self.write_config(body, **kw)
            with open(self.stdout, "wb") as out, \
                    open(self.stderr, "wb") as err:
                self.proc = subprocess.Popen(
                    self.run_args(args), stdout=out, stderr=err,
                    stdin=subprocess.DEVNULL, env=penv, cwd=self.dir)
            self.pid = self.proc.pid
            if not wait:
                return self
            try:
                self.wait_ready(source=ready_source)
                return self
            except AssertionError:
                if attempt == 3 or not self._port_was_taken(body, kw):
                    raise
            self.proc.wait()
            self.pid = None
            self.port = free_port(self.ipv6)
        return self

    def start_expecting_exit(self, body="", timeout=START_TIMEOUT, **kw):
        """Start a config that should stop the daemon at start; returns
        (exit status, output), or (None, output) when it was still running
        after timeout (then it is stopped). The daemon binds its ports
        before it reads zones and primaries, so another program taking
        free_port's port between the pick and the bind would hide the
        error under test: then the start is repeated on a new port, as
        start() does (at most 3 times)."""
        for attempt in range(4):
            self.start(body, wait=False, **kw)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.stop()
                return None, self.output()
            rc = self.exit_status = self.proc.returncode
            self.pid = None
            own = "port %d: Address already in use" % self.port
            if attempt == 3 or own not in self.output() or \
                    not self._port_was_taken(body, kw):
                return rc, self.output()
            self.port = free_port(self.ipv6)
        return rc, self.output()

    def _port_was_taken(self, body, kw):
        """The daemon exited at start because its port was in use, and
        neither the body nor another argument names that port."""
        if self.proc.poll() is None:
            return False
        if "Address already in use" not in self.output():
            return False
        named = str(self.port)
        return named not in body and all(named not in str(v)
                                         for v in kw.values())

    def wait_ready(self, timeout=START_TIMEOUT, source="127.0.0.1"):
        """Poll with a CHAOS query until any reply comes back."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                raise AssertionError(
                    "daemon exited with %s during start:\n%s" %
                    (self.proc.returncode, self.output()))
            try:
                self.query("version.server.", "TXT", "CH", timeout=0.3,
                           source=source)
                return
            except (dns.exception.Timeout, OSError):
                time.sleep(0.1)
        raise AssertionError("daemon did not answer within %ds:\n%s" %
                             (timeout, self.output()))

    def alive(self):
        if self.proc is not None:
            return self.proc.poll() is None
        return self.pid is not None and pid_alive(self.pid)

    def send_signal(self, sig):
        os.kill(self.pid, sig)

    def stop(self, sig=signal.SIGTERM, timeout=STOP_TIMEOUT):
        """Stop by PID: sig, then SIGKILL after timeout. Returns the exit
        status (None when the process is not our child)."""
        if self.pid is None:
            return self.exit_status
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.send_signal(sig)
                try:
                    self.proc.wait(timeout)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
                    self.exit_status = "killed after %ds" % timeout
                    return self.exit_status
            self.exit_status = self.proc.returncode
        else:
            if pid_alive(self.pid):
                os.kill(self.pid, sig)
                deadline = time.time() + timeout
                while pid_alive(self.pid) and time.time() < deadline:
                    time.sleep(0.05)
                if pid_alive(self.pid):
                    os.kill(self.pid, signal.SIGKILL)
                    self.exit_status = "killed after %ds" % timeout
        self.pid = None
        return self.exit_status

    def output(self):
        """stderr, stdout and logfile together, for messages and
        assertions."""
        parts = []
        for p in (self.stderr, self.stdout, self.logfile):
            try:
                with open(p, errors="replace") as f:
                    parts.append(f.read())
            except OSError:
                pass
        return "\n".join(parts)

    def log(self):
        try:
            with open(self.logfile, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    # -- queries --------------------------------------------------------
    def addr(self, v6=False):
        return "::1" if v6 else "127.0.0.1"

    def query(self, name, rdtype="A", rdclass="IN", tcp=False, v6=False,
              source=None, timeout=2.0, retries=1, **kw):
        """Send a query (dnspython), return the reply message. Raises
        dns.exception.Timeout when no reply comes after all tries."""
        q = name if isinstance(name, dns.message.Message) else \
            make_query(name, rdtype, rdclass, **kw)
        last = None
        for _ in range(retries):
            try:
                if tcp:
                    return dns.query.tcp(q, self.addr(v6), port=self.port,
                                         timeout=timeout, source=source)
                # ignore_unexpected: a late reply to one of the daemon's
                # upstream queries, sent after the daemon closed that
                # socket, reaches this client when the kernel gave it the
                # same ephemeral port (seen in CI under load)
                return dns.query.udp(q, self.addr(v6), port=self.port,
                                     timeout=timeout, source=source,
                                     ignore_trailing=True,
                                     ignore_unexpected=True)
            except dns.exception.Timeout as e:
                last = e
        raise last

    def udp_raw(self, wire, timeout=1.0, source="127.0.0.1"):
        """Send raw bytes over UDP; the reply bytes or None (dropped)."""
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.bind((source, 0))
            s.settimeout(timeout)
            s.sendto(wire, ("127.0.0.1", self.port))
            try:
                return s.recv(65535)
            except socket.timeout:
                return None

    def tcp_connect(self, timeout=2.0, source=None):
        s = socket.create_connection(("127.0.0.1", self.port), timeout,
                                     source_address=(source, 0)
                                     if source else None)
        s.settimeout(timeout)
        return s

    def tcp_raw(self, wire, timeout=2.0):
        """Send raw bytes (framing included by the caller) over a new TCP
        connection; the first framed reply or None."""
        with self.tcp_connect(timeout) as s:
            s.sendall(wire)
            try:
                return recv_tcp_msg(s)
            except (socket.timeout, ConnectionResetError):
                return None


DEB_UNBOUND = "/usr/sbin/unbound"


class RefServer(Server):
    """Debian's Unbound, run beside this daemon by the side-by-side
    tests (the same start and stop, its binary)."""
    binary = DEB_UNBOUND


def control_clause(sock):
    """A remote-control clause on the unix socket sock, no certificates:
    what unbound-control needs to reach a test's daemon."""
    return ("remote-control:\n\tcontrol-enable: yes\n"
            "\tcontrol-interface: %s\n\tcontrol-use-cert: no\n" % sock)


def stats_dict(text):
    """stats_noreset's name=value lines as {name: value text}."""
    return dict(l.split("=", 1) for l in text.splitlines() if "=" in l)


def control_stats(client, conf):
    """The counters of the daemon that conf's remote-control clause
    names, read with client (an unbound-control) stats_noreset; a failed
    read fails the test."""
    r = subprocess.run([client, "-c", conf, "stats_noreset"],
                       capture_output=True, text=True, timeout=10 * SLOW)
    assert r.returncode == 0, r.stdout + r.stderr
    return stats_dict(r.stdout)


class ControlServer(Server):
    """A Server with remote-control on a unix socket in its directory (no
    certificates) and a control config of its own beside it (ctl.conf,
    that clause alone), so the client reaches the daemon even while a
    test has made unbound.conf broken. A test puts rc_clause() in the
    daemon's config (extra=) and asks with ctl()."""

    # the client ctl() runs
    control = OUR_CONTROL

    def __init__(self, tmpdir, ipv6=False):
        super().__init__(tmpdir, ipv6)
        self.sock = os.path.join(self.dir, "ctl.sock")
        self.ctl_conf = os.path.join(self.dir, "ctl.conf")
        with open(self.ctl_conf, "w") as f:
            f.write(self.rc_clause())

    def rc_clause(self):
        return control_clause(self.sock)

    def ctl_args(self, *args):
        return [self.control, "-c", self.ctl_conf] + list(args)

    def ctl(self, *args, timeout=30, input=None):
        """The client run with args (and input on its stdin), timeout
        seconds at most (times SLOW): its CompletedProcess."""
        return subprocess.run(self.ctl_args(*args), capture_output=True,
                              text=True, input=input,
                              timeout=timeout * SLOW)


class FastReloadDaemon(ControlServer):
    """A ControlServer that stubs `zones` to an Upstream `up` and is
    reloaded with a changed config (fast_reload(more)): the daemon of the
    fast_reload tests. A subclass gives zones and body()."""

    zones = ()

    def __init__(self, tmpdir, up):
        super().__init__(tmpdir)
        self.up = up

    def body(self, more=""):
        return more

    def kw(self):
        return dict(threads=2, extra=self.rc_clause() +
                    self.up.stub_zone(*self.zones))

    def configure(self, more=""):
        self.write_config(self.body(more), **self.kw())

    def ctl(self, *args):
        """The client's stdout and stderr, as one text."""
        r = super().ctl(*args)
        return r.stdout + r.stderr

    def fast_reload(self, more=""):
        self.configure(more)
        out = self.ctl("fast_reload")
        assert out == "ok\n", out

    def stat(self, name):
        s = self.ctl("stats_noreset")
        return int(re.search(r"^%s=(\d+)$" % re.escape(name), s,
                             re.M).group(1))


@pytest.fixture
def unbound(tmp_path):
    """A Server, not started yet; stopped by PID when the test ends, and a
    clean SIGTERM exit is checked."""
    srv = Server(tmp_path)
    yield srv
    _finish(srv)


@pytest.fixture
def unbound6(tmp_path):
    """Like `unbound`, also listening on ::1."""
    if not HAVE_IPV6:
        pytest.skip("::1 not available")
    srv = Server(tmp_path, ipv6=True)
    yield srv
    _finish(srv)


def _finish(srv):
    if srv.pid is None:
        return
    was_running = srv.alive()
    status = srv.stop()
    if was_running and srv.proc is not None:
        assert status == 0, "daemon exit status on SIGTERM: %s\n%s" % (
            status, srv.output()[-3000:])


@pytest.fixture
def world_tmpdir():
    """A directory under /tmp that an unprivileged user can use (pytest's
    tmp_path sits in a 0700 directory of root)."""
    d = tempfile.mkdtemp(prefix="unbound-itest-", dir="/tmp")
    os.chmod(d, 0o777)
    yield d
    subprocess.run(["rm", "-rf", d], check=False)


def asan_env(extra=None, **asan_opts):
    """os.environ plus extra, with ASAN_OPTIONS given asan_opts too (they
    are ignored by binaries built without sanitizers)."""
    env = dict(os.environ)
    env.update(extra or {})
    opts = os.environ.get("ASAN_OPTIONS", "")
    more = ":".join("%s=%s" % kv for kv in sorted(asan_opts.items()))
    if more:
        env["ASAN_OPTIONS"] = (opts + ":" if opts else "") + more
    return env


def rcode_of(reply):
    return dns.rcode.to_text(reply.rcode())


def answer_texts(reply):
    """Answer section RRs as sorted 'name type rdata' strings (no TTL)."""
    out = []
    for rrset in reply.answer:
        for rd in rrset:
            out.append("%s %s %s" % (rrset.name, dns.rdatatype.to_text(
                rrset.rdtype), rd.to_text()))
    return sorted(out)


class Upstream:
    """An authoritative server (UDP on address, 127.0.0.1 by default; a
    thread of the test) that logs every query it gets and answers each
    authoritatively with a recognisable "recursed" answer: A
    192.0.2.253, AAAA 2001:db8::fd, PTR recursed.upstream.test., any
    other type NODATA (so qname minimisation goes on down to the name).
    A daemon whose config has `stub_zone(ZONE...)` shows that a query
    under ZONE went to recursion by this log and by that answer. Other
    answers: a subclass sets RDATA and FLAGS, or overrides respond()."""

    RDATA = {"A": "192.0.2.253", "AAAA": "2001:db8::fd",
             "PTR": "recursed.upstream.test."}
    FLAGS = dns.flags.AA | dns.flags.RA

    def __init__(self, address="127.0.0.1"):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind((address, 0))
        self.addr = address
        self.port = self.sock.getsockname()[1]
        # (source address, qname lowercased, qtype text, the query)
        self.received = []
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def stub_zone(self, *zones):
        """stub-zone clauses that make this the server of each zone. A
        stub, not a forward-zone: Unbound does not forward RD=0 queries
        (allow_snoop) but asks a stub's servers. Not a stub for ".":
        that is primed, and the priming answer's addresses are on port
        53; with a root-hints file Unbound 1.17 even ignores it ("second
        hints for zone .")."""
        return "".join('stub-zone:\n\tname: "%s"\n'
                       "\tstub-addr: %s@%d\n" % (z, self.addr, self.port)
                       for z in zones)

    def respond(self, q, qname, qtype):
        """The reply to the query q (qname, qtype text); None: no
        reply."""
        r = dns.message.make_response(q)
        r.flags |= self.FLAGS
        if qtype in self.RDATA:
            r.answer.append(dns.rrset.from_text(
                qname, 300, "IN", qtype, self.RDATA[qtype]))
        return r

    def _serve(self):
        self.sock.settimeout(0.2)
        while not self.done.is_set():
            try:
                wire, src = self.sock.recvfrom(65535)
            except socket.timeout:
                continue
            except OSError:
                return
            try:
                q = dns.message.from_wire(wire)
                qname = q.question[0].name
                qtype = dns.rdatatype.to_text(q.question[0].rdtype)
            except Exception:   # not a query: ignore it
                continue
            with self.lock:
                self.received.append((src[0], qname.to_text().lower(),
                                      qtype, q))
            r = self.respond(q, qname, qtype)
            if r is None:       # a silent server
                continue
            try:
                self.sock.sendto(r.to_wire(), src)
            except OSError:
                pass

    def queries(self, name=None, rdtype=None):
        """(qname, qtype) of the queries received, for name and rdtype
        (None: any)."""
        with self.lock:
            return [(n, t) for _, n, t, _ in self.received
                    if (name is None or n == name.lower()) and
                    (rdtype is None or t == rdtype)]

    def close(self):
        self.done.set()
        self.thread.join(5)
        self.sock.close()


@pytest.fixture
def upstream():
    """An Upstream, closed when the test ends."""
    up = Upstream()
    yield up
    up.close()


def assert_recursion(srv, up, name, rdtype="A", **kw):
    """The query is not answered locally but goes to recursion: srv
    asks up (an Upstream; srv's config has up.stub_zone(a zone of name)),
    which must have been asked this very question, and the reply must
    be up's answer. No reply, SERVFAIL or a local answer all fail."""
    before = len(up.queries(name, rdtype))
    r = srv.query(name, rdtype, timeout=3.0 * SLOW, **kw)
    assert len(up.queries(name, rdtype)) > before, (
        "%s %s: the upstream was not asked (it saw %s); reply:\n%s" %
        (name, rdtype, up.queries(), r))
    assert rcode_of(r) == "NOERROR", "%s %s: %s" % (name, rdtype, r)
    want = ["%s %s %s" % (dns.name.from_text(name), rdtype,
                          Upstream.RDATA[rdtype])]
    assert answer_texts(r) == want, "%s %s: %s" % (name, rdtype, r)
    return r


def assert_dropped(srv, name, rdtype="A", timeout=1.0, **kw):
    """No reply at all (the query was dropped)."""
    with pytest.raises(dns.exception.Timeout):
        srv.query(name, rdtype, timeout=timeout, **kw)


# -- the sanitizer build does not run Debian's Unbound again -------------
# A test parametrized over the daemon runs once for ours and once for
# Debian's Unbound (param ids "unbound...", "debian...", "reference...").
# The second checks the test's expectation against Unbound, which no
# build of ours changes: the plain build's `make check` runs it, the
# sanitizer build (configure --enable-sanitizers) deselects it, shown in
# the summary. UNBOUND_ALL_TESTS=1 keeps it.
REFERENCE_PARAMS = ("unbound", "debian", "reference")


def _sanitizer_build():
    try:
        with open(os.path.join(BUILDDIR, "Makefile")) as f:
            return "-fsanitize=" in f.read()
    except OSError:
        return False


SANITIZER_BUILD = _sanitizer_build()
_deselected_reference = []


def runs_reference_only(item):
    """Whether item is the Debian's-Unbound half of a test parametrized
    over the daemon."""
    cs = getattr(item, "callspec", None)
    return cs is not None and cs.id.split("-")[0] in REFERENCE_PARAMS


def pytest_collection_modifyitems(config, items):
    if (not SANITIZER_BUILD or REFERENCE or
            os.environ.get("UNBOUND_ALL_TESTS") == "1"):
        return
    drop = [it for it in items if runs_reference_only(it)]
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = [it for it in items if not runs_reference_only(it)]
        _deselected_reference.extend(it.nodeid for it in drop)


# -- skips that show ----------------------------------------------------
# `make check` runs pytest with -rs, so every skip is listed with its
# reason. On the CI machine (Debian 12 as root, everything
# contrib/run-tests.sh installs; CI=true) nothing should skip but the
# tests listed here, each with the reason it skips there on purpose; any
# other skip fails the run (also with UNBOUND_STRICT_SKIPS=1, to check
# a machine by hand).
EXPECTED_SKIPS = {
    "test_builtin_hints.py::test_builtin_hints_listed_without_traffic":
        "the fallback for machines where unshare fails; where it works "
        "(CI runs as root) test_builtin_hints_in_isolated_namespace "
        "covers the same and more",
    "test_cachedb.py::test_shared_with_unbound_both_ways":
        "needs an Unbound built with cachedb and libhiredis "
        "(UNBOUND_CACHEDB_BIN; Debian's 1.17 has no cachedb module and CI "
        "keeps to Debian's packages); run by hand with a 1.26 build",
    "test_dnstap.py::test_refused_when_built_without":
        "runs in a build without dnstap (configure --disable-dnstap); CI "
        "builds with libfstrm and protobuf-c",
}
# Against the reference (UNBOUND_BIN=/usr/sbin/unbound), the skips that
# ours_only / reference_differs declare, with their reason, are on
# purpose too.
REFERENCE_SKIP_REASONS = ("checks behaviour particular to this "
                          "implementation", "real Unbound 1.17: ")
STRICT_SKIPS = (os.environ.get("CI") == "true" or
                os.environ.get("UNBOUND_STRICT_SKIPS") == "1")
_unlisted_skips = []


def _skip_reason(report):
    lr = report.longrepr
    reason = lr[2] if isinstance(lr, tuple) and len(lr) == 3 else str(lr)
    return reason[len("Skipped: "):] if reason.startswith("Skipped: ") \
        else reason


def skip_is_listed(nodeid, reason):
    """Whether a skip is one the CI machine is meant to have."""
    if any(nodeid.split("[")[0].endswith(k) for k in EXPECTED_SKIPS):
        return True
    return REFERENCE and reason.startswith(REFERENCE_SKIP_REASONS)


def pytest_runtest_logreport(report):
    if report.skipped and not hasattr(report, "wasxfail"):
        reason = _skip_reason(report)
        if not skip_is_listed(report.nodeid, reason):
            _unlisted_skips.append((report.nodeid, reason))


def pytest_sessionfinish(session, exitstatus):
    if STRICT_SKIPS and _unlisted_skips and exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter):
    if _deselected_reference:
        terminalreporter.write_line(
            "sanitizer build: %d tests that run only Debian's Unbound "
            "deselected (the plain build's make check runs them; "
            "UNBOUND_ALL_TESTS=1 keeps them)" % len(_deselected_reference))
    if STRICT_SKIPS and _unlisted_skips:
        terminalreporter.section("skips not in conftest.EXPECTED_SKIPS")
        for nodeid, reason in _unlisted_skips:
            terminalreporter.write_line("UNEXPECTED SKIP %s: %s" %
                                        (nodeid, reason))
        terminalreporter.write_line(
            "CI=true (or UNBOUND_STRICT_SKIPS=1): a skip on the CI machine "
            "fails the run unless listed with its reason")
