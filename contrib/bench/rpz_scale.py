#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""contrib/bench/rpz_scale.py - an RPZ of N QNAME triggers (1,000,000 by
default) loaded from a zone file: this resolver (build/unbound) beside
Debian's Unbound 1.17 (/usr/sbin/unbound), on loopback, one thread each.

    contrib/bench/rpz_scale.py                      # 1M names
    contrib/bench/rpz_scale.py --names 5000000 --servers ours
    contrib/bench/rpz_scale.py --names 200000 --seconds 5

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
the whole toggle (one second before, one after). Everything started is
stopped by PID.
Numbers are from one run: on a shared machine read them against the
other server's in the same run.
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
import struct
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

from reload_bench import (Responder, answer_addr, free_port,  # noqa: E402
                          query_wire)

PASSED = "pass.bench."
# a trigger under the forward zone: resolved while the zone is disabled
TOGGLE = "toggle.bench."


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
    def __init__(self, kind, binary, control, tmp, zone, upstream, rpz):
        self.kind = kind
        self.binary = binary
        self.control = control
        self.dir = os.path.join(tmp, "%s-%s" % (kind, "rpz" if rpz else
                                                "plain"))
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
            if rpz:
                f.write("rpz:\n\tname: \"rpz.bench.\"\n"
                        "\tzonefile: \"%s\"\n" % zone)
            f.write("forward-zone:\n\tname: \"bench.\"\n"
                    "\tforward-addr: 127.0.0.1@%d\n" % upstream)
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
        self.proc = subprocess.Popen([self.binary, "-d", "-c", self.conf],
                                     stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        while time.time() < t0 + timeout:
            if self.proc.poll() is not None:
                sys.exit("%s exited at start, see %s/unbound.log" %
                         (self.kind, self.dir))
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
    """PASSED asked at rate q/s (open loop, one socket): each answer's
    latency, the rest lost."""

    def __init__(self, port, rate):
        super().__init__(daemon=True)
        self.port = port
        self.rate = rate
        self.stopping = False
        self.sent = 0
        self.lat = []

    def run(self):
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
        sock.connect(("127.0.0.1", self.port))
        sock.setblocking(False)
        sel = selectors.DefaultSelector()
        sel.register(sock, selectors.EVENT_READ)
        queries = [query_wire(i, PASSED) for i in range(65536)]
        sent_at = {}
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
                qid = self.sent & 0xffff
                sent_at[qid] = now
                try:
                    sock.send(queries[qid])
                except BlockingIOError:
                    pass
                self.sent += 1
                next_send += interval
                continue
            wait = (end if end is not None else next_send) - now
            for _ in sel.select(max(wait, 0)):
                while True:
                    try:
                        wire = sock.recv(4096)
                    except BlockingIOError:
                        break
                    at = sent_at.pop(struct.unpack("!H", wire[:2])[0],
                                     None)
                    if at is not None and \
                            answer_addr(wire) == "192.0.2.53":
                        self.lat.append(time.perf_counter() - at)
        sock.close()

    def figures(self):
        lat = sorted(self.lat)
        if not lat:
            return self.sent, self.sent, float("nan"), float("nan")
        return (self.sent, self.sent - len(lat),
                lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000,
                lat[-1] * 1000)


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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--names", type=int, default=1000000)
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--servers", default="ours,unbound")
    ap.add_argument("--build", default=os.path.join(SRC, "build"))
    ap.add_argument("--unbound", default="/usr/sbin/unbound")
    ap.add_argument("--max-wait", type=float, default=900.0)
    ap.add_argument("--rate", type=int, default=2000,
                    help="cache hits per second during rpz_disable/_enable")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="rpz_scale.")
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
    up = Responder()
    up.start()
    binaries = {"ours": (os.path.join(a.build, "unbound"),
                         os.path.join(a.build, "unbound-control")),
                "unbound": (a.unbound, "/usr/sbin/unbound-control")}
    blocked = ("b%d.blocked." % (a.names - 2),
               lambda r: rcode_of(r) == 3)
    passed = (PASSED, lambda r: answer_addr(r) == "192.0.2.53")
    try:
        for kind in a.servers.split(","):
            binary, control = binaries[kind]
            plain = Server(kind, binary, control, tmp, zone, up.port, False)
            try:
                plain.start(passed, 60)
                rss0 = plain.rss_mb()
                hit0 = dnsperf(plain, passed_q, a.seconds)
            finally:
                plain.stop()
            srv = Server(kind, binary, control, tmp, zone, up.port, True)
            try:
                load = srv.start(blocked, a.max_wait)
                rss = srv.rss_mb()
                srv.ask(PASSED, 2)   # into the cache
                blk = dnsperf(srv, blocked_q, a.seconds)
                hit = dnsperf(srv, passed_q, a.seconds)
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
                  "%5.1f us/q (no-RPZ %8.0f q/s %5.1f us/q)  %s" %
                  (kind, load, rss, rss0, blk[0], blk[1], hit[0], hit[1],
                   hit0[0], hit0[1], "; ".join(reloads)), flush=True)
    finally:
        up.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
