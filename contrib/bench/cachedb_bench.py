#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""contrib/bench/cachedb_bench.py - answers per second and CPU per answer
of the cachedb module with a real redis-server on loopback (issue 26):

  local hit   the names in the resolver's own cache;
  Redis hit   a local miss answered from Redis (a fresh resolver reads
              what another stored: module-config "validator cachedb
              iterator", no trust anchor);
  plain miss  no cachedb (module-config "iterator"), each name new,
              resolved at contrib/bench/trivial_responder (a stub zone);
  miss via cachedb  the resolver that fills Redis: the stack above, a
              Redis miss, the upstream query, the store.

Each case is one pass of dnsperf over NAMES distinct names (-n 1, at
most -q outstanding; five passes for the local hits); a fresh resolver for each run so that nothing is
cached from before. CPU is the resolver's user+system time (from
/proc/PID/stat) over the pass, divided by the answers. Redis's own CPU
is printed beside it for the Redis hit. Medians of --runs runs.

  contrib/bench/cachedb_bench.py --build build [--names 20000]
      [--runs 3] [--outstanding 100]

Needs dnsperf, redis-server and a C compiler; runs everything on
127.0.0.1 (free ports), stops what it started by PID. Not a test."""
import argparse
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ZONE = "bench.cdb.example."  # not test.: a default local zone
TICK = os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def wait_udp(port, timeout=10.0):
    """Until a CHAOS query gets any reply."""
    q = (b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00"
         b"\x07version\x06server\x00\x00\x10\x00\x03")
    deadline = time.time() + timeout
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(0.2)
        while time.time() < deadline:
            try:
                s.sendto(q, ("127.0.0.1", port))
                s.recvfrom(512)
                return
            except OSError:
                pass
    raise RuntimeError("no reply on port %d" % port)


class Proc:
    def __init__(self, args, **kw):
        self.p = subprocess.Popen(args, stdin=subprocess.DEVNULL, **kw)

    def stop(self):
        if self.p.poll() is None:
            self.p.terminate()
            try:
                self.p.wait(10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()


def start_redis(work):
    port = free_port()
    r = Proc([shutil.which("redis-server"), "--port", str(port), "--bind",
              "127.0.0.1", "--save", "", "--appendonly", "no", "--dir",
              work, "--logfile", os.path.join(work, "redis.log")],
             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), 1) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return r, port
        except OSError:
            time.sleep(0.05)
    r.stop()
    raise RuntimeError("redis-server did not start")


def redis_cmd(port, line):
    with socket.create_connection(("127.0.0.1", port), 2) as s:
        s.sendall(line.encode() + b"\r\n")
        return s.recv(256)


def redis_hits(port):
    """keyspace_hits from INFO stats."""
    with socket.create_connection(("127.0.0.1", port), 2) as s:
        s.sendall(b"INFO stats\r\n")
        data = b""
        while b"keyspace_hits:" not in data or not data.endswith(b"\r\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    return int(re.search(rb"keyspace_hits:(\d+)", data).group(1))


def start_resolver(binary, work, name, up_port, redis_port):
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    port = free_port()
    conf = os.path.join(d, "unbound.conf")
    mods = "validator cachedb iterator" if redis_port else "iterator"
    with open(conf, "w") as f:
        f.write("server:\n\tverbosity: 0\n\tnum-threads: 1\n"
                "\tinterface: 127.0.0.1\n\tport: %d\n"
                "\tdo-daemonize: no\n\tuse-syslog: no\n\tchroot: \"\"\n"
                "\tusername: \"\"\n\tdirectory: \"%s\"\n"
                "\tpidfile: \"%s/unbound.pid\"\n"
                "\tlogfile: \"%s/unbound.log\"\n"
                "\tdo-not-query-localhost: no\n"
                "\tqname-minimisation: no\n"
                "\tmodule-config: \"%s\"\n"
                "\tmsg-cache-size: 64m\n\trrset-cache-size: 128m\n"
                "stub-zone:\n\tname: \"%s\"\n\tstub-addr: 127.0.0.1@%d\n"
                % (port, d, d, d, mods, ZONE, up_port))
        if redis_port:
            f.write("cachedb:\n\tbackend: redis\n"
                    "\tredis-server-host: 127.0.0.1\n"
                    "\tredis-server-port: %d\n\tredis-timeout: 1000\n"
                    % redis_port)
    p = Proc([binary, "-d", "-c", conf], stdout=subprocess.DEVNULL,
             stderr=open(os.path.join(d, "stderr.txt"), "w"))
    wait_udp(port)
    return p, port


def dnsperf(port, names_file, outstanding, passes=1):
    """passes over the file; (answers, seconds, NOERROR answers)."""
    out = subprocess.run(
        ["dnsperf", "-s", "127.0.0.1", "-p", str(port), "-d", names_file,
         "-n", str(passes), "-q", str(outstanding), "-t", "5"],
        capture_output=True, text=True, check=True).stdout
    done = int(re.search(r"Queries completed:\s+(\d+)", out).group(1))
    secs = float(re.search(r"Run time \(s\):\s+([\d.]+)", out).group(1))
    m = re.search(r"NOERROR (\d+)", out)
    return done, secs, int(m.group(1)) if m else 0


def measure(proc, port, names_file, outstanding, extra_pid=None,
            passes=1):
    c0 = cpu_seconds(proc.p.pid)
    e0 = cpu_seconds(extra_pid) if extra_pid else 0.0
    done, secs, ok = dnsperf(port, names_file, outstanding, passes)
    c1 = cpu_seconds(proc.p.pid)
    e1 = cpu_seconds(extra_pid) if extra_pid else 0.0
    if ok < done * 0.99:
        print("warning: %d of %d NOERROR" % (ok, done), file=sys.stderr)
    return {"qps": done / secs, "us": (c1 - c0) * 1e6 / max(done, 1),
            "redis_us": (e1 - e0) * 1e6 / max(done, 1)}


def one_run(args, work, binary, up_port, run):
    names = os.path.join(work, "names%d.txt" % run)
    with open(names, "w") as f:
        for i in range(args.names):
            f.write("n%d-%d.%s A\n" % (run, i, ZONE))
    res = {}
    redis, rport = start_redis(os.path.join(work))
    try:
        # plain miss: no cachedb
        p, port = start_resolver(binary, work, "plain%d" % run, up_port,
                                 None)
        try:
            res["plain miss"] = measure(p, port, names, args.outstanding)
        finally:
            p.stop()
        # resolver a fills Redis (its stores are not awaited: wait for
        # the count)
        a, aport = start_resolver(binary, work, "a%d" % run, up_port,
                                  rport)
        try:
            res["miss via cachedb"] = measure(a, aport, names,
                                              args.outstanding, redis.p.pid)
            deadline = time.time() + 30
            while time.time() < deadline and int(redis_cmd(
                    rport, "DBSIZE")[1:].split(b"\r")[0]) < args.names:
                time.sleep(0.1)
        finally:
            a.stop()
        # a fresh resolver b: every name a local miss and a Redis hit,
        # then the same names again: local hits
        b, bport = start_resolver(binary, work, "b%d" % run, up_port,
                                  rport)
        try:
            h0 = redis_hits(rport)
            res["Redis hit"] = measure(b, bport, names, args.outstanding,
                                       redis.p.pid)
            hits = redis_hits(rport) - h0
            if hits < args.names * 0.99:
                print("warning: %d Redis hits for %d names" % (
                    hits, args.names), file=sys.stderr)
            # several passes: a pass of hits is short for CPU ticks
            res["local hit"] = measure(b, bport, names, args.outstanding,
                                       passes=5)
        finally:
            b.stop()
    finally:
        redis.stop()
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--names", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--outstanding", type=int, default=100)
    args = ap.parse_args()
    binary = os.path.abspath(os.path.join(args.build, "unbound"))
    for tool in ("dnsperf", "redis-server", "cc"):
        if not shutil.which(tool):
            sys.exit("%s is not installed" % tool)
    work = tempfile.mkdtemp(prefix="cachedb_bench.")
    resp_bin = os.path.join(work, "trivial_responder")
    subprocess.run(["cc", "-O2", "-o", resp_bin,
                    os.path.join(HERE, "trivial_responder.c")], check=True)
    up_port = free_port()
    up = Proc([resp_bin, "127.0.0.1", str(up_port)])
    runs = []
    try:
        for run in range(args.runs):
            runs.append(one_run(args, work, binary, up_port, run))
            print("run %d: %s" % (run + 1, "; ".join(
                "%s %.0f q/s %.1f us" % (k, v["qps"], v["us"])
                for k, v in runs[-1].items())), flush=True)
    finally:
        up.stop()
    print("\nmedians of %d runs, %d names, %d outstanding:"
          % (len(runs), args.names, args.outstanding))
    print("| answered by | answers/s | CPU per answer (resolver) |"
          " Redis's CPU per answer |")
    print("|---|---|---|---|")
    for case in ("local hit", "Redis hit", "plain miss",
                 "miss via cachedb"):
        qps = statistics.median(r[case]["qps"] for r in runs)
        us = statistics.median(r[case]["us"] for r in runs)
        rus = statistics.median(r[case]["redis_us"] for r in runs)
        print("| %s | %.0f | %.1f us | %s |" % (
            case, qps, us, "%.1f us" % rus if case != "local hit" and
            case != "plain miss" else "-"))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
