#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Rate limits under the attacks they exist for, on loopback (a
benchmark, not a test; figures for doc/performance.md). As root:

    contrib/bench/attack_bench.py BUILDDIR [--seconds 10] [--rate 50000]

1. Random-subdomain attack: dnsperf sends new names under attack.tld9.
   (NSD on 127.0.0.1, RRL off, a wildcard) at up to --rate q/s to the
   daemon with `ratelimit: --ratelimit` (ratelimit-factor 0 and 10, the
   default, which lets one in 10 of the queries over the limit go
   upstream). Printed: the upstream queries
   per second NSD saw for attack.tld9. (its own instance, nsd-control
   stats), and the latency (p50, p99) of a probe that resolves new names
   of other.tld9. (a second NSD) meanwhile, against the same probe
   without the attack.
2. Flood from one address: dnsperf from 127.0.0.1 asks a cached name at
   up to --rate q/s of a daemon with `ip-ratelimit: --ip-ratelimit`;
   printed: the replies per second that client got, and the share of a
   probe's queries from 127.0.0.2 answered meanwhile.

Everything started is stopped by PID."""
import argparse
import os
import random
import socket
import string
import subprocess
import sys
import tempfile
import threading
import time

import dns.message
import dns.query

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "testdata"))
from testnet import nsd as tn_nsd, zones  # noqa: E402

STARTED = []


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_nsd(work, name, origin):
    port = free_port()
    z = zones.Zone(origin, ["@ SOA ns.%s h.%s 1 3600 900 604800 300"
                            % (origin, origin), "@ NS ns.%s" % origin,
                            "ns A 127.0.0.1", "* A 192.0.2.1"])
    inst = tn_nsd.NsdInstance(name, os.path.join(work, name), "127.0.0.1",
                              port, [z])
    inst.write()
    with open(inst.conf, "a") as f:
        f.write("remote-control:\n  control-enable: yes\n"
                "  control-interface: %s/nsd.ctl\n" % inst.dir)
    inst.start()
    STARTED.append(inst.proc)
    inst.wait_ready()
    return inst


def nsd_queries(inst):
    r = subprocess.run(["nsd-control", "-c", inst.conf, "stats_noreset"],
                       capture_output=True, text=True, timeout=10)
    for line in r.stdout.splitlines():
        if line.startswith("num.queries="):
            return int(line.split("=")[1])
    return 0


def start_daemon(a, work, lines, a_nsd, o_nsd):
    port = free_port()
    conf = os.path.join(work, "unbound-%d.conf" % port)
    hints = os.path.join(work, "root.hints")
    with open(hints, "w") as f:
        f.write(". 3600000 IN NS nowhere.test.\n"
                "nowhere.test. 3600000 IN A 127.0.0.254\n")
    with open(conf, "w") as f:
        f.write('server:\n\tinterface: 127.0.0.1\n\tinterface: 127.0.0.2\n'
                '\tport: %d\n\tdo-daemonize: no\n\tuse-syslog: no\n'
                '\tchroot: ""\n\tusername: ""\n\tdirectory: "%s"\n'
                '\tpidfile: ""\n\tnum-threads: 1\n'
                '\tdo-not-query-localhost: no\n\troot-hints: "%s"\n'
                '\tqname-minimisation: no\n%s'
                'stub-zone:\n\tname: attack.tld9.\n\tstub-addr: 127.0.0.1@%d\n'
                'stub-zone:\n\tname: other.tld9.\n\tstub-addr: 127.0.0.1@%d\n'
                % (port, work, hints, "".join("\t%s\n" % l for l in lines),
                   a_nsd.port, o_nsd.port))
    p = subprocess.Popen([os.path.join(a.builddir, "unbound"), "-d", "-c",
                          conf], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    STARTED.append(p)
    for _ in range(100):
        try:
            dns.query.udp(dns.message.make_query("ns.other.tld9.", "A"),
                          "127.0.0.1", port=port, timeout=0.3)
            return p, port
        except Exception:
            time.sleep(0.1)
    sys.exit("daemon did not come up")


def stop(p):
    if p.poll() is None:
        p.terminate()
        p.wait(20)


def rand_label():
    return "".join(random.choice(string.ascii_lowercase) for _ in range(12))


def dnsperf(port, qfile, rate, secs):
    return subprocess.Popen(["dnsperf", "-s", "127.0.0.1", "-p", str(port),
                             "-d", qfile, "-Q", str(rate), "-l", str(secs),
                             "-c", "8", "-t", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)


def dnsperf_done(p):
    out = p.communicate()[0]
    done = qps = 0.0
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("Queries completed:"):
            done = float(line.split()[2])
        if line.startswith("Queries per second:"):
            qps = float(line.split()[3])
    return done, qps


def probe(port, secs, source, make_name, per_s=20):
    """Queries at per_s from source for secs: (latencies ms, sent)."""
    lat, sent = [], 0
    end = time.monotonic() + secs
    while time.monotonic() < end:
        t0 = time.monotonic()
        sent += 1
        try:
            dns.query.udp(dns.message.make_query(make_name(), "A"),
                          "127.0.0.1", port=port, timeout=1.0,
                          source=source)
            lat.append((time.monotonic() - t0) * 1000)
        except Exception:
            pass
        time.sleep(max(0.0, 1.0 / per_s - (time.monotonic() - t0)))
    return sorted(lat), sent


def pct(v, p):
    return v[min(len(v) - 1, int(len(v) * p))] if v else float("nan")


def attack(a, work, a_nsd, o_nsd, factor):
    p, port = start_daemon(a, work, ["ratelimit: %d" % a.ratelimit,
                                     "ratelimit-factor: %d" % factor],
                           a_nsd, o_nsd)
    try:
        other = lambda: rand_label() + ".other.tld9."  # noqa: E731
        base, _ = probe(port, 3, "127.0.0.1", other)
        qfile = os.path.join(work, "attack.txt")
        with open(qfile, "w") as f:
            for _ in range(min(a.rate * a.seconds, 2000000)):
                f.write("%s.attack.tld9. A\n" % rand_label())
        n0 = nsd_queries(a_nsd)
        t0 = time.monotonic()
        dp = dnsperf(port, qfile, a.rate, a.seconds)
        lat, sent = probe(port, a.seconds, "127.0.0.1", other)
        done, qps = dnsperf_done(dp)
        secs = time.monotonic() - t0
        up = (nsd_queries(a_nsd) - n0) / secs
        print("random-subdomain attack, ratelimit: %d, ratelimit-factor: "
              "%d" % (a.ratelimit, factor))
        print("  attack sent at %d q/s for %d s; replies %.0f/s"
              % (a.rate, a.seconds, qps))
        print("  upstream queries to attack.tld9.: %.0f/s" % up)
        print("  other.tld9. probe: p50 %.1f ms, p99 %.1f ms (%d/%d "
              "answered); without attack p50 %.1f ms, p99 %.1f ms"
              % (pct(lat, .5), pct(lat, .99), len(lat), sent,
                 pct(base, .5), pct(base, .99)))
    finally:
        stop(p)


def flood(a, work, a_nsd, o_nsd):
    p, port = start_daemon(a, work, ["ip-ratelimit: %d" % a.ip_ratelimit],
                           a_nsd, o_nsd)
    try:
        qfile = os.path.join(work, "flood.txt")
        with open(qfile, "w") as f:
            f.write("ns.other.tld9. A\n")
        dp = dnsperf(port, qfile, a.rate, a.seconds)
        lat, sent = probe(port, a.seconds, "127.0.0.2",
                          lambda: "ns.other.tld9.", per_s=50)
        done, qps = dnsperf_done(dp)
        print("flood from 127.0.0.1, ip-ratelimit: %d" % a.ip_ratelimit)
        print("  flooding client: %.0f replies/s of %d q/s sent"
              % (qps, a.rate))
        print("  other client (127.0.0.2): %d/%d answered, p50 %.2f ms"
              % (len(lat), sent, pct(lat, .5)))
    finally:
        stop(p)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("builddir")
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--rate", type=int, default=50000)
    ap.add_argument("--ratelimit", type=int, default=100)
    ap.add_argument("--ip-ratelimit", type=int, default=1000)
    ap.add_argument("--factor", type=int, action="append",
                    help="ratelimit-factor values to run (default 0, 10)")
    a = ap.parse_args()
    a.factor = a.factor or [0, 10]
    work = tempfile.mkdtemp(prefix="attack_bench.")
    try:
        a_nsd = start_nsd(work, "nsd-attack", "attack.tld9.")
        o_nsd = start_nsd(work, "nsd-other", "other.tld9.")
        # factor 0: nothing over the limit goes upstream; 10 (the
        # default): one in 10 of the queries over it does
        for factor in a.factor:
            attack(a, work, a_nsd, o_nsd, factor)
        flood(a, work, a_nsd, o_nsd)
    finally:
        for p in reversed(STARTED):
            stop(p)


if __name__ == "__main__":
    main()
