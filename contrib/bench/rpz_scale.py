#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""contrib/bench/rpz_scale.py - an RPZ of N QNAME triggers (1,000,000 by
default) loaded from a zone file: this resolver (build/unbound) beside
Debian's Unbound 1.17 (/usr/sbin/unbound), on loopback, one thread each.

    contrib/bench/rpz_scale.py                      # 1M names
    contrib/bench/rpz_scale.py --names 5000000 --servers ours
    contrib/bench/rpz_scale.py --names 200000 --seconds 5
    contrib/bench/rpz_scale.py --xfr --nsd /tmp/nsd412/sbin/nsd

For each server: start it on the config (module-config "respip
iterator", an rpz: clause with the zone file; a forward zone to a
responder in this script for the passed names) and time until a blocked
name answers NXDOMAIN ("load s"); resident memory then (VmRSS, and the
same server started with no rpz: clause: "RSS no-RPZ"); dnsperf for
--seconds each over blocked names (random triggers, NXDOMAIN from the
policy), over one passed name from the cache, and over the same passed
name with no rpz: clause (the policy's cost on a cache hit); then
unbound-control reload (ours also fast_reload) of the same config, timed
from the command until the command answered and a blocked name answers
NXDOMAIN again; then rpz_disable and rpz_enable of the zone while the
passed name is asked from the cache at --rate q/s (open loop): each
command timed until its effect shows (a blocked name resolved, then
NXDOMAIN again), and the hits lost, their p99 and worst latency over
the whole toggle (one second before, one after). Cache misses: dnsperf over a new name per
query under a second forward zone, answered by trivial_responder.c
(built here), with and without the rpz: clause.

--xfr: zone transfers instead, from NSD as the primary (--nsd, Debian's
4.6 by default: AXFR only; IXFR needs NSD 4.7 or later, create-ixfr).
Per server and run (--repeat, medians printed at the end): NSD serves a
one-trigger zone at serial 1; the resolver starts with it in its zone
file (rpz: with primary: and allow-notify: 127.0.0.1); NSD is restarted
on the --names zone at serial 2; while a passed name is asked from the
cache at --rate q/s (open loop), a NOTIFY is sent and the seconds until
the zone's last trigger (last.bench., resolved before) answers NXDOMAIN
are the AXFR's (NSD has no IXFR to serial 2 and answers the IXFR
request with the whole zone); then NSD reads serial 3 (one trigger
added, x3.bench., one removed, toggle.bench.), a NOTIFY again, and the
seconds until x3.bench. is NXDOMAIN are the IXFR's. The hits' lost
count, p99 and worst latency are given for the --before seconds before
the NOTIFY, during the transfer and the --after seconds after; "CPU" is
the resolver's user+system time from the NOTIFY until it answered.
Everything started is stopped by PID.
Numbers are from one run: on a shared machine read them against the
other server's in the same run. The servers inherit the script's nice
value: under `nice` on a machine shared with jobs of a lower nice
value their workers wait for the CPU (hits lost in --xfr runs were
that), so run it without `nice` for latency figures.
"""
import argparse
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import selectors
import signal
import struct
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

from reload_bench import (Responder, answer_addr,  # noqa: E402
                          query_wire)

PASSED = "pass.bench."
# a trigger under the forward zone: resolved while the zone is disabled
TOGGLE = "toggle.bench."
# cache misses: a new name under this forward zone per query, answered
# by trivial_responder.c
MISS = "miss.bench."
# --xfr: the transferred zone's last trigger, under the forward zone
LAST = "last.bench."


def free_port():
    """A port free for both UDP and TCP on 127.0.0.1 now (a server binds
    both; a port free for UDP alone was taken for TCP twice)."""
    for _ in range(100):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u:
            u.bind(("127.0.0.1", 0))
            port = u.getsockname()[1]
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as t:
                try:
                    t.bind(("127.0.0.1", port))
                except OSError:
                    continue
        return port
    sys.exit("no free port")


def write_rpz(path, names):
    with open(path, "w") as f:
        f.write("$ORIGIN rpz.bench.\n$TTL 3600\n"
                "@ IN SOA ns.rpz.bench. host.rpz.bench. 1 3600 600 "
                "86400 300\n@ IN NS ns.rpz.bench.\n")
        f.write("toggle.bench CNAME .\n")
        for i in range(names - 1):
            f.write("b%d.blocked CNAME .\n" % i)


def rcode_of(wire):
    return wire[3] & 0x0f if len(wire) >= 4 else None


class Server:
    def __init__(self, kind, binary, control, tmp, zone, upstream, rpz,
                 misses=None, xfr=None):
        """misses: the port of the miss zone's upstream; xfr: (primary
        port, the zone's initial file) for an rpz: clause transferred
        from a primary instead of read from zone."""
        self.kind = kind
        self.binary = binary
        self.control = control
        self.dir = os.path.join(tmp, "%s-%s" % (kind, "xfr" if xfr else
                                                "rpz" if rpz else "plain"))
        os.makedirs(self.dir, exist_ok=True)
        self.port = free_port()
        self.conf = os.path.join(self.dir, "unbound.conf")
        with open(self.conf, "w") as f:
            f.write("server:\n\tverbosity: 1\n\tnum-threads: 1\n"
                    "\tinterface: 127.0.0.1\n\tport: %d\n"
                    "\tdo-daemonize: no\n\tuse-syslog: no\n\tchroot: \"\"\n"
                    "\tusername: \"\"\n\tdirectory: \"%s\"\n"
                    "\tpidfile: \"%s/unbound.pid\"\n"
                    "\tlogfile: \"%s/unbound.log\"\n"
                    "\tdo-not-query-localhost: no\n"
                    "\tmodule-config: \"respip iterator\"\n"
                    "\tmsg-cache-size: 64m\n\trrset-cache-size: 64m\n"
                    % (self.port, self.dir, self.dir, self.dir))
            if xfr:
                shutil.copy(xfr[1], os.path.join(self.dir, "rpz.zone"))
                f.write("rpz:\n\tname: \"rpz.bench.\"\n"
                        "\tzonefile: \"%s/rpz.zone\"\n"
                        "\tprimary: 127.0.0.1@%d\n"
                        "\tallow-notify: 127.0.0.1\n" % (self.dir, xfr[0]))
            elif rpz:
                f.write("rpz:\n\tname: \"rpz.bench.\"\n"
                        "\tzonefile: \"%s\"\n" % zone)
            f.write("forward-zone:\n\tname: \"bench.\"\n"
                    "\tforward-addr: 127.0.0.1@%d\n" % upstream)
            if misses:
                f.write("forward-zone:\n\tname: \"%s\"\n"
                        "\tforward-addr: 127.0.0.1@%d\n" % (MISS, misses))
            f.write("remote-control:\n\tcontrol-enable: yes\n"
                    "\tcontrol-interface: \"%s/ctl.sock\"\n"
                    "\tcontrol-use-cert: no\n" % self.dir)
        self.proc = None

    def ask(self, name, timeout=0.5):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.settimeout(timeout)
            s.sendto(query_wire(9, name), ("127.0.0.1", self.port))
            try:
                return s.recv(4096)
            except socket.timeout:
                return None

    def start(self, ready, timeout):
        """Start; seconds until ready(reply to its name) holds."""
        name, check = ready
        t0 = time.time()
        with open(os.path.join(self.dir, "stderr.txt"), "w") as err:
            self.proc = subprocess.Popen([self.binary, "-d", "-c",
                                          self.conf],
                                         stdout=subprocess.DEVNULL,
                                         stderr=err)
        while time.time() < t0 + timeout:
            if self.proc.poll() is not None:
                tail = ""
                for n in ("stderr.txt", "unbound.log"):
                    try:
                        with open(os.path.join(self.dir, n)) as f:
                            tail += f.read()[-2000:]
                    except OSError:
                        pass
                sys.exit("%s exited at start (%s):\n%s" %
                         (self.kind, self.dir, tail))
            r = self.ask(name)
            if r is not None and check(r):
                return time.time() - t0
            time.sleep(0.05)
        sys.exit("%s not ready in %d s" % (self.kind, timeout))

    def rss_mb(self):
        with open("/proc/%d/status" % self.proc.pid) as f:
            m = re.search(r"^VmRSS:\s+(\d+) kB", f.read(), re.M)
        return int(m.group(1)) / 1024.0

    def cpu_s(self):
        with open("/proc/%d/stat" % self.proc.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / \
            os.sysconf("SC_CLK_TCK")

    def ctl(self, *args):
        t0 = time.time()
        r = subprocess.run([self.control, "-c", self.conf] + list(args),
                           capture_output=True, text=True, timeout=1800)
        return time.time() - t0, (r.stdout + r.stderr).strip()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(120)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class HitLoad(threading.Thread):
    """PASSED asked at rate q/s, open loop, one socket: when each query
    was sent and its latency (None: lost), for figures by phase or over
    the whole run."""

    def __init__(self, port, rate):
        super().__init__(daemon=True)
        self.port = port
        self.rate = rate
        self.stopping = False
        self.sent = []   # send time per query
        self.lat = {}    # query number: latency

    def run(self):
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
        sock.connect(("127.0.0.1", self.port))
        sock.setblocking(False)
        sel = selectors.DefaultSelector()
        sel.register(sock, selectors.EVENT_READ)
        queries = [query_wire(i, PASSED) for i in range(65536)]
        owner = {}
        interval = 1.0 / self.rate
        next_send = time.perf_counter()
        end = None
        while True:
            now = time.perf_counter()
            if self.stopping and end is None:
                end = now + 2.0   # the late answers, then the rest lost
            if end is not None and now >= end:
                break
            if end is None and now >= next_send:
                n = len(self.sent)
                owner[n & 0xffff] = n
                self.sent.append(now)
                try:
                    sock.send(queries[n & 0xffff])
                except BlockingIOError:
                    pass
                next_send += interval
                continue
            wait = (end if end is not None else next_send) - now
            for _ in sel.select(max(wait, 0)):
                while True:
                    try:
                        wire = sock.recv(4096)
                    except BlockingIOError:
                        break
                    got = time.perf_counter()
                    n = owner.pop(struct.unpack("!H", wire[:2])[0], None)
                    if n is not None and \
                            answer_addr(wire) == "192.0.2.53":
                        self.lat[n] = got - self.sent[n]
        sock.close()

    def phase(self, lo, hi):
        """(sent, lost, p99 ms, max ms) of the queries sent in [lo, hi)."""
        idx = [i for i, at in enumerate(self.sent) if lo <= at < hi]
        lat = sorted(self.lat[i] for i in idx if i in self.lat)
        if not lat:
            return len(idx), len(idx), float("nan"), float("nan")
        return (len(idx), len(idx) - len(lat),
                lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000,
                lat[-1] * 1000)

    def figures(self):
        """(sent, lost, p99 ms, max ms) of every query sent."""
        return self.phase(float("-inf"), float("inf"))


def toggle_under_load(srv, blocked, rate, max_wait):
    """rpz_disable, then rpz_enable, of rpz.bench. under HitLoad: each
    command's seconds until its effect shows, and the load's figures."""
    load = HitLoad(srv.port, rate)
    load.start()
    time.sleep(1.0)
    took = []
    for cmd, done in (("rpz_disable", lambda r: rcode_of(r) == 0 and
                       answer_addr(r) == "192.0.2.53"),
                      ("rpz_enable", blocked[1])):
        t0 = time.time()
        _, out = srv.ctl(cmd, "rpz.bench.")
        while time.time() < t0 + max_wait:
            r = srv.ask(TOGGLE)
            if r is not None and done(r):
                break
            time.sleep(0.01)
        took.append("%s %.2f s (%s)" % (cmd, time.time() - t0, out[:20]))
    time.sleep(1.0)
    load.stopping = True
    load.join()
    sent, lost, p99, worst = load.figures()
    return "%s; hits at %d q/s: %d sent, %d lost, p99 %.2f ms, max " \
        "%.1f ms" % ("; ".join(took), rate, sent, lost, p99, worst)


def dnsperf(srv, qfile, seconds):
    """(answers per second, server CPU us per answer)."""
    c0 = srv.cpu_s()
    r = subprocess.run(["dnsperf", "-s", "127.0.0.1", "-p", str(srv.port),
                        "-d", qfile, "-l", str(seconds), "-q", "100"],
                       capture_output=True, text=True, timeout=seconds + 60)
    cpu = srv.cpu_s() - c0
    m = re.search(r"Queries completed:\s+(\d+)", r.stdout)
    done = int(m.group(1)) if m else 0
    qps = re.search(r"Queries per second:\s+([\d.]+)", r.stdout)
    return (float(qps.group(1)) if qps else 0.0,
            cpu * 1e6 / done if done else float("nan"))


# --- zone transfers (--xfr) ---

def write_nsd_zone(path, names, serial, toggle=True, added=()):
    """The zone as the primary serves it: TOGGLE (unless toggle is
    False), the triggers in added (names under the forward zone),
    bN.blocked for N below names - 2 and, last, LAST (under the forward
    zone: resolved until this version answers) when names > 2."""
    with open(path, "w") as f:
        f.write("$ORIGIN rpz.bench.\n$TTL 3600\n"
                "@ IN SOA ns.rpz.bench. host.rpz.bench. %d 3600 600 "
                "86400 300\n@ IN NS ns.rpz.bench.\n" % serial)
        if toggle:
            f.write("%s CNAME .\n" % TOGGLE.rstrip("."))
        for a in added:
            f.write("%s CNAME .\n" % a.rstrip("."))
        f.write("".join("b%d.blocked CNAME .\n" % i
                        for i in range(names - 2)))
        if names > 2:
            f.write("%s CNAME .\n" % LAST.rstrip("."))


def soa_wire(qid, opcode=0):
    """A question for rpz.bench. SOA; opcode 4: a NOTIFY (AA set)."""
    flags = (opcode << 11) | (0x0400 if opcode == 4 else 0)
    return struct.pack("!HHHHHH", qid, flags, 1, 0, 0, 0) + \
        b"\x03rpz\x05bench\x00" + struct.pack("!HH", 6, 1)


def soa_serial(port, timeout=0.5):
    """The serial the primary on port serves, or None."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(timeout)
        try:
            s.sendto(soa_wire(5), ("127.0.0.1", port))
            wire = s.recv(4096)
        except OSError:
            return None
    try:
        if rcode_of(wire) != 0 or struct.unpack("!H", wire[6:8])[0] < 1:
            return None
        p = 12 + len(b"\x03rpz\x05bench\x00") + 4   # the question
        p += 2 if wire[p] & 0xc0 == 0xc0 else len(b"\x03rpz\x05bench\x00")
        p += 10   # type, class, ttl, rdlength
        for _ in range(2):   # mname, rname
            while wire[p]:
                if wire[p] & 0xc0 == 0xc0:
                    p += 1
                    break
                p += wire[p] + 1
            p += 1
        return struct.unpack("!I", wire[p:p + 4])[0]
    except (IndexError, struct.error):
        return None


def notify(port, timeout=2.0):
    """Send a NOTIFY for rpz.bench. from 127.0.0.1; True when acked."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(timeout)
        s.sendto(soa_wire(77, 4), ("127.0.0.1", port))
        try:
            wire = s.recv(4096)
        except socket.timeout:
            return False
    return rcode_of(wire) == 0


def nsd_version(binary):
    r = subprocess.run([binary, "-v"], capture_output=True, text=True)
    m = re.search(r"NSD version (\d+)\.(\d+)", r.stdout + r.stderr)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


class Nsd:
    """The primary: NSD on loopback serving rpz.bench. from a file, AXFR
    to 127.0.0.1; with ixfr (NSD 4.7 and later) it makes IXFR from the
    difference of two versions of the file (create-ixfr)."""

    def __init__(self, binary, tmp, ixfr):
        self.binary = binary
        self.ixfr = ixfr
        self.dir = os.path.join(tmp, "nsd")
        os.makedirs(self.dir, exist_ok=True)
        self.port = free_port()
        self.zone = os.path.join(self.dir, "rpz.bench.zone")
        self.conf = os.path.join(self.dir, "nsd.conf")
        d = self.dir
        with open(self.conf, "w") as f:
            f.write("server:\n  ip-address: 127.0.0.1@%d\n  port: %d\n"
                    "  do-ip4: yes\n  do-ip6: no\n  database: \"\"\n"
                    "  zonelistfile: \"%s/zone.list\"\n"
                    "  xfrdfile: \"%s/xfrd.state\"\n  xfrdir: \"%s\"\n"
                    "  pidfile: \"%s/nsd.pid\"\n  logfile: \"%s/nsd.log\"\n"
                    "  cookie-secret-file: \"%s/cookiesecrets.txt\"\n"
                    "  username: \"\"\n  chroot: \"\"\n  verbosity: 2\n"
                    "  rrl-ratelimit: 0\n  rrl-whitelist-ratelimit: 0\n"
                    "  server-count: 1\n  zonefiles-write: 0\n"
                    "  tcp-count: 100\n  reuseport: no\n"
                    "remote-control:\n  control-enable: no\n"
                    "zone:\n  name: \"rpz.bench.\"\n  zonefile: \"%s\"\n"
                    "  provide-xfr: 127.0.0.1 NOKEY\n%s" %
                    (self.port, self.port, d, d, d, d, d, d, self.zone,
                     "  store-ixfr: yes\n  create-ixfr: yes\n"
                     if ixfr else ""))
        self.proc = None

    def start(self, serial, timeout=600):
        """Start on the zone file as it is now; seconds until it serves
        serial."""
        for f in os.listdir(self.dir):   # no IXFR from an earlier run
            if ".ixfr" in f or f in ("xfrd.state", "zone.list"):
                os.unlink(os.path.join(self.dir, f))
        t0 = time.time()
        self.proc = subprocess.Popen([self.binary, "-d", "-c", self.conf],
                                     stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        return self.wait_serial(serial, t0, timeout)

    def wait_serial(self, serial, t0, timeout=600):
        while time.time() < t0 + timeout:
            if self.proc.poll() is not None:
                sys.exit("nsd exited, see %s/nsd.log" % self.dir)
            if soa_serial(self.port) == serial:
                return time.time() - t0
            time.sleep(0.05)
        sys.exit("nsd does not serve serial %d in %d s" % (serial, timeout))

    def reload(self, serial):
        """Read the changed zone file again (SIGHUP); seconds until it
        serves serial."""
        t0 = time.time()
        self.proc.send_signal(signal.SIGHUP)
        return self.wait_serial(serial, t0)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


def median(v):
    v = sorted(x for x in v if x == x)
    if not v:
        return float("nan")
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def transfer_under_load(srv, primary, done, rate, before, after,
                        max_wait):
    """A NOTIFY to srv while PASSED is asked from its cache at rate:
    seconds from the NOTIFY until done(reply to its name) holds, the
    server's CPU seconds meanwhile, and the load's figures before,
    during and after."""
    name, check = done
    srv.ask(PASSED, 2)   # into the cache
    r = srv.ask(name, 2)
    if r is None or check(r):
        print("# %s: %s %s before the NOTIFY: this run's transfer time "
              "is not the transfer's" % (srv.kind, name, "unanswered" if
                                         r is None else "already done"),
              flush=True)
    load = HitLoad(srv.port, rate)
    load.start()
    time.sleep(before)
    c0 = srv.cpu_s()
    t0 = time.perf_counter()
    if not notify(srv.port):
        print("# %s: no answer to the NOTIFY" % srv.kind, flush=True)
    took = float("nan")
    while time.perf_counter() < t0 + max_wait:
        r = srv.ask(name)
        if r is not None and check(r):
            took = time.perf_counter() - t0
            break
        time.sleep(0.01)
    t1 = time.perf_counter()
    cpu = srv.cpu_s() - c0
    time.sleep(after)
    load.stopping = True
    load.join()
    inf = float("inf")
    return {"took": took, "cpu": cpu,
            "before": load.phase(0, t0), "during": load.phase(t0, t1),
            "after": load.phase(t1, inf), "all": load.phase(0, inf)}


def xfr_runs(a, tmp, up, binaries):
    """--xfr: per server and repetition, a fresh resolver whose rpz:
    zone (a few triggers, serial 1) has NSD as its primary; NSD then
    serves the --names zone at serial 2 and the resolver is NOTIFYed
    (AXFR: NSD has no IXFR to serial 2); then, with an NSD that makes
    IXFR, serial 3 adds one trigger and drops another, and a NOTIFY
    again (IXFR)."""
    version = nsd_version(a.nsd)
    ixfr = version >= (4, 7)
    print("# primary: %s (NSD %d.%d)%s" % (
        a.nsd, version[0], version[1], "" if ixfr else
        ": no create-ixfr before NSD 4.7, the IXFR part is skipped "
        "(--nsd PATH to an NSD 4.12 for it)"), flush=True)
    small = os.path.join(tmp, "small.zone")
    write_nsd_zone(small, 1, 1)
    nsd = Nsd(a.nsd, tmp, ixfr)
    # the names asked until a version answers resolve at once before it
    blocked = (LAST, lambda r: rcode_of(r) == 3)
    toggle = (TOGGLE, lambda r: rcode_of(r) == 3)
    rows = {}
    try:
        # interleaved, so the machine's load falls on each alike
        for rep in range(a.repeat):
            for kind in a.servers.split(","):
                binary, control = binaries[kind]
                shutil.copy(small, nsd.zone)
                nsd.start(1)
                srv = Server("%s%d" % (kind, rep), binary, control, tmp,
                             None, up.port, True,
                             xfr=(nsd.port, small))
                row = {}
                try:
                    srv.start(toggle, 60)
                    nsd.stop()
                    write_nsd_zone(nsd.zone, a.names, 2)
                    row["nsd_load"] = nsd.start(2)
                    rss0 = srv.rss_mb()
                    row["axfr"] = transfer_under_load(
                        srv, nsd.port, blocked, a.rate, a.before, a.after,
                        a.max_wait)
                    row["rss"] = srv.rss_mb() - rss0
                    if ixfr:
                        added = "x3.bench."
                        srv.ask(added, 2)   # resolved and cached
                        write_nsd_zone(nsd.zone, a.names, 3,
                                       toggle=False, added=[added])
                        row["nsd_reload"] = nsd.reload(3)
                        row["ixfr"] = transfer_under_load(
                            srv, nsd.port,
                            (added, lambda r: rcode_of(r) == 3), a.rate,
                            a.before, a.after, a.max_wait)
                        r = srv.ask(TOGGLE, 2)
                        row["ixfr_removed_ok"] = r is not None and \
                            answer_addr(r) == "192.0.2.53"
                finally:
                    srv.stop()
                    nsd.stop()
                rows.setdefault(kind, []).append(row)
                print_xfr_row(kind, rep, row, flush=True)
    finally:
        nsd.stop()
    print_xfr_table(a, rows, ixfr)


def fmt_phase(p):
    return "%d/%d lost, p99 %.2f ms, max %.1f ms" % (p[1], p[0], p[2],
                                                      p[3])


def print_xfr_row(kind, rep, row, flush=True):
    out = ["%-8s run %d: NSD load %.1f s" % (kind, rep + 1,
                                             row["nsd_load"])]
    for what in ("axfr", "ixfr"):
        if what not in row:
            continue
        t = row[what]
        out.append("%s %.2f s (CPU %.2f s): before %s; during %s; after "
                   "%s" % (what.upper(), t["took"], t["cpu"],
                           fmt_phase(t["before"]), fmt_phase(t["during"]),
                           fmt_phase(t["after"])))
    out.append("RSS +%.1f MB by the AXFR" % row["rss"])
    if "ixfr" in row:
        out.append("NSD reload %.1f s; removed trigger resolved after the "
                   "IXFR: %s" % (row["nsd_reload"],
                                 "yes" if row["ixfr_removed_ok"] else
                                 "NO"))
    print("\n         ".join(out), flush=flush)


def print_xfr_table(a, rows, ixfr):
    """Medians over the repetitions, one column per server."""
    kinds = list(rows)
    print("\n# medians of %d runs, %d triggers, cache hits at %d q/s; "
          "load average now %s" % (a.repeat, a.names, a.rate,
                                   open("/proc/loadavg").read().split()[0]))
    print("| | %s |" % " | ".join(kinds))
    print("|---|%s" % ("---|" * len(kinds)))

    def line(label, fn):
        print("| %s | %s |" % (label, " | ".join(fn(rows[k]) for k in
                                                kinds)))
    for what in ("axfr", "ixfr") if ixfr else ("axfr",):
        w = what.upper()
        line("%s: NOTIFY until it answers" % w,
             lambda rs: "%.2f s" % median([r[what]["took"] for r in rs]))
        line("%s: server CPU meanwhile" % w,
             lambda rs: "%.2f s" % median([r[what]["cpu"] for r in rs]))
        for ph in ("before", "during", "after"):
            line("%s: hits %s: lost, p99, max" % (w, ph),
                 lambda rs: "%d of %d, %.2f ms, %.1f ms" % (
                     median([r[what][ph][1] for r in rs]),
                     median([r[what][ph][0] for r in rs]),
                     median([r[what][ph][2] for r in rs]),
                     median([r[what][ph][3] for r in rs])))
    line("RSS grown by the AXFR",
         lambda rs: "%.1f MB" % median([r["rss"] for r in rs]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--names", type=int, default=1000000)
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--servers", default="ours,unbound")
    ap.add_argument("--build", default=os.path.join(SRC, "build"))
    ap.add_argument("--unbound", default="/usr/sbin/unbound")
    ap.add_argument("--base", default=None,
                    help="a second build of ours (a directory with unbound "
                    "and unbound-control), server name 'base' in "
                    "--servers")
    ap.add_argument("--max-wait", type=float, default=900.0)
    ap.add_argument("--rate", type=int, default=2000,
                    help="cache hits per second during rpz_disable/_enable"
                    " and the transfers")
    ap.add_argument("--xfr", action="store_true",
                    help="only the zone transfers: AXFR and IXFR of the "
                    "zone from NSD under cache-hit load")
    ap.add_argument("--nsd", default="/usr/sbin/nsd",
                    help="with --xfr: the primary (IXFR needs NSD 4.7 or "
                    "later)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="with --xfr: runs per server (medians printed)")
    ap.add_argument("--before", type=float, default=1.0,
                    help="with --xfr: seconds of load before the NOTIFY")
    ap.add_argument("--after", type=float, default=1.0,
                    help="with --xfr: seconds of load after it answers")
    ap.add_argument("--trivial", default=None,
                    help="the cache misses' upstream, trivial_responder "
                    "(default: contrib/bench/trivial_responder.c built "
                    "here)")
    ap.add_argument("--keep", action="store_true",
                    help="keep the temporary directory (logs)")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="rpz_scale.")
    binaries = {"ours": (os.path.join(a.build, "unbound"),
                         os.path.join(a.build, "unbound-control")),
                "unbound": (a.unbound, "/usr/sbin/unbound-control")}
    if a.base:
        binaries["base"] = (os.path.join(a.base, "unbound"),
                            os.path.join(a.base, "unbound-control"))
    if a.xfr:
        up = Responder()
        up.start()
        try:
            xfr_runs(a, tmp, up, binaries)
        finally:
            up.stop()
            if a.keep:
                print("# kept", tmp)
            else:
                shutil.rmtree(tmp, ignore_errors=True)
        return 0
    zone = os.path.join(tmp, "rpz.zone")
    t0 = time.time()
    write_rpz(zone, a.names)
    print("# %d QNAME triggers, %.0f MB zone file, written in %.1f s" %
          (a.names, os.path.getsize(zone) / 1e6, time.time() - t0),
          flush=True)
    rnd = random.Random(1)
    blocked_q = os.path.join(tmp, "blocked.txt")
    with open(blocked_q, "w") as f:
        for _ in range(100000):
            f.write("b%d.blocked A\n" % rnd.randrange(a.names - 1))
    passed_q = os.path.join(tmp, "passed.txt")
    with open(passed_q, "w") as f:
        f.write("%s A\n" % PASSED)
    # a new name per query: more than dnsperf sends in --seconds
    miss_q = os.path.join(tmp, "miss.txt")
    with open(miss_q, "w") as f:
        f.write("".join("m%d.%s A\n" % (i, MISS) for i in
                        range(max(200000, 60000 * a.seconds))))
    trivial = a.trivial
    if not trivial:
        trivial = os.path.join(tmp, "trivial_responder")
        subprocess.run(["cc", "-O2", "-o", trivial,
                        os.path.join(HERE, "trivial_responder.c")],
                       check=True)
    miss_port = free_port()
    miss_up = subprocess.Popen([trivial, "127.0.0.1", str(miss_port)])
    up = Responder()
    up.start()
    blocked = ("b%d.blocked." % (a.names - 2),
               lambda r: rcode_of(r) == 3)
    passed = (PASSED, lambda r: answer_addr(r) == "192.0.2.53")
    try:
        for kind in a.servers.split(","):
            binary, control = binaries[kind]
            plain = Server(kind, binary, control, tmp, zone, up.port, False,
                           misses=miss_port)
            try:
                plain.start(passed, 60)
                rss0 = plain.rss_mb()
                hit0 = dnsperf(plain, passed_q, a.seconds)
                miss0 = dnsperf(plain, miss_q, a.seconds)
            finally:
                plain.stop()
            srv = Server(kind, binary, control, tmp, zone, up.port, True,
                         misses=miss_port)
            try:
                load = srv.start(blocked, a.max_wait)
                rss = srv.rss_mb()
                srv.ask(PASSED, 2)   # into the cache
                blk = dnsperf(srv, blocked_q, a.seconds)
                hit = dnsperf(srv, passed_q, a.seconds)
                miss = dnsperf(srv, miss_q, a.seconds)
                reloads = []
                for how in (["reload"], ["fast_reload"]) if \
                        kind == "ours" else (["reload"],):
                    t0 = time.time()
                    _, out = srv.ctl(*how)
                    # Unbound answers before it reloads: until the
                    # policy answers again
                    while time.time() < t0 + a.max_wait:
                        r = srv.ask(blocked[0])
                        if r is not None and blocked[1](r):
                            break
                        time.sleep(0.05)
                    took = time.time() - t0
                    reloads.append("%s %.1f s (%s)" % (how[0], took,
                                                       out[:40]))
                reloads.append(toggle_under_load(srv, blocked, a.rate,
                                                 a.max_wait))
            finally:
                srv.stop()
            print("%-8s load %6.1f s  RSS %7.1f MB (no-RPZ %5.1f MB)  "
                  "blocked %8.0f q/s %6.1f us/q  passed hit %8.0f q/s "
                  "%5.1f us/q (no-RPZ %8.0f q/s %5.1f us/q)  miss %8.0f "
                  "q/s %5.1f us/q (no-RPZ %8.0f q/s %5.1f us/q)  %s" %
                  (kind, load, rss, rss0, blk[0], blk[1], hit[0], hit[1],
                   hit0[0], hit0[1], miss[0], miss[1], miss0[0], miss0[1],
                   "; ".join(reloads)), flush=True)
    finally:
        up.stop()
        miss_up.terminate()
        miss_up.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
