#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Rate limits under the attacks they exist for, on loopback (a
benchmark, not a test; figures for doc/performance.md). As root:

    contrib/bench/attack_bench.py BUILDDIR [--seconds 10] [--rate 50000]
        [--runs 3] [--server ours] [--server unbound]

Each run is made with this daemon (BUILDDIR/unbound, "ours") and
Debian's Unbound (/usr/sbin/unbound, "unbound") side by side, one after
the other on the same NSD instances; --server picks some. With --runs N
the medians of the N runs are printed at the end.

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
import signal
import socket
import string
import subprocess
import sys
import tempfile
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
    log = open(os.path.join(work, "daemon-%d.log" % port), "wb")
    p = subprocess.Popen([a.binary, "-d", "-c", conf],
                         stdout=log, stderr=subprocess.STDOUT)
    STARTED.append(p)
    deadline = time.monotonic() + 120    # a loaded machine is slow
    while time.monotonic() < deadline and p.poll() is None:
        try:
            dns.query.udp(dns.message.make_query("ns.other.tld9.", "A"),
                          "127.0.0.1", port=port, timeout=0.3)
            return p, port
        except Exception:
            time.sleep(0.1)
    with open(log.name, errors="replace") as f:
        sys.exit("%s did not come up (exit %s):\n%s"
                 % (a.binary, p.poll(), f.read()[-2000:]))


def stop(p):
    if p.poll() is None:
        p.terminate()
        p.wait(20)


def rand_label():
    return "".join(random.choice(string.ascii_lowercase) for _ in range(12))


def dnsperf(port, qfile, rate, secs):
    return subprocess.Popen(["dnsperf", "-s", "127.0.0.1", "-p", str(port),
                             "-d", qfile, "-Q", str(rate), "-l", str(secs),
                             "-c", "8", "-t", "1",
                             # queries in flight: a dropped query holds
                             # its slot for the 1 s timeout, so dnsperf's
                             # 100 would cap a flood at 100/s a client
                             "-q", str(max(100, rate // 2))],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)


def dnsperf_done(p):
    """(queries sent, completed, replies per second) of a dnsperf run;
    what it sent is what this machine could offer of --rate."""
    out = p.communicate()[0]
    sent = done = qps = 0.0
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("Queries sent:"):
            sent = float(line.split()[2])
        if line.startswith("Queries completed:"):
            done = float(line.split()[2])
        if line.startswith("Queries per second:"):
            qps = float(line.split()[3])
    return sent, done, qps


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
        qsent, done, qps = dnsperf_done(dp)
        secs = time.monotonic() - t0
        up = (nsd_queries(a_nsd) - n0) / secs
        print("%s: random-subdomain attack, ratelimit: %d, "
              "ratelimit-factor: %d" % (a.label, a.ratelimit, factor))
        print("  attack offered %d q/s for %d s: dnsperf sent %.0f/s, "
              "replies %.0f/s" % (a.rate, a.seconds, qsent / a.seconds,
                                  qps))
        print("  upstream queries to attack.tld9.: %.0f/s" % up)
        print("  other.tld9. probe: p50 %.1f ms, p99 %.1f ms (%d/%d "
              "answered); without attack p50 %.1f ms, p99 %.1f ms"
              % (pct(lat, .5), pct(lat, .99), len(lat), sent,
                 pct(base, .5), pct(base, .99)))
        record(a, "attack factor %d" % factor, [
            ("sent/s", qsent / a.seconds), ("replies/s", qps),
            ("upstream/s", up), ("p50 ms", pct(lat, .5)),
            ("p99 ms", pct(lat, .99)), ("answered", len(lat)),
            ("probes", sent), ("base p50 ms", pct(base, .5)),
            ("base p99 ms", pct(base, .99))])
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
        qsent, done, qps = dnsperf_done(dp)
        print("%s: flood from 127.0.0.1, ip-ratelimit: %d"
              % (a.label, a.ip_ratelimit))
        print("  flooding client: %.0f replies/s; offered %d q/s, "
              "dnsperf sent %.0f/s" % (qps, a.rate, qsent / a.seconds))
        print("  other client (127.0.0.2): %d/%d answered, p50 %.2f ms"
              % (len(lat), sent, pct(lat, .5)))
        record(a, "flood", [("sent/s", qsent / a.seconds),
                            ("replies/s", qps), ("answered", len(lat)),
                            ("probes", sent), ("p50 ms", pct(lat, .5))])
    finally:
        stop(p)


RESULTS = {}


def record(a, case, values):
    for name, v in values:
        RESULTS.setdefault((a.label, case, name), []).append(v)


def medians():
    print("\nmedians over the runs (server, case, figure: median [runs])")
    for (label, case, name), vs in RESULTS.items():
        s = sorted(vs)
        print("  %-8s %-16s %-12s %10.1f  %s" % (
            label, case, name, s[len(s) // 2],
            " ".join("%.1f" % v for v in vs)))


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("terminated"))
    ap = argparse.ArgumentParser()
    ap.add_argument("builddir")
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--rate", type=int, default=50000)
    ap.add_argument("--ratelimit", type=int, default=100)
    ap.add_argument("--ip-ratelimit", type=int, default=1000)
    ap.add_argument("--factor", type=int, action="append",
                    help="ratelimit-factor values to run (default 0, 10)")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--server", action="append", choices=["ours", "unbound"],
                    help="which daemons (default both)")
    ap.add_argument("--reference", default="/usr/sbin/unbound",
                    help="Debian's Unbound binary")
    a = ap.parse_args()
    a.factor = a.factor or [0, 10]
    binaries = {"ours": os.path.join(a.builddir, "unbound"),
                "unbound": a.reference}
    servers = a.server or [s for s in ("ours", "unbound")
                           if os.access(binaries[s], os.X_OK)]
    work = tempfile.mkdtemp(prefix="attack_bench.")
    try:
        a_nsd = start_nsd(work, "nsd-attack", "attack.tld9.")
        o_nsd = start_nsd(work, "nsd-other", "other.tld9.")
        # factor 0: nothing over the limit goes upstream; 10 (the
        # default): one in 10 of the queries over it does
        for _ in range(a.runs):
            for a.label in servers:
                a.binary = binaries[a.label]
                for factor in a.factor:
                    attack(a, work, a_nsd, o_nsd, factor)
                flood(a, work, a_nsd, o_nsd)
        medians()
    finally:
        for p in reversed(STARTED):
            stop(p)


if __name__ == "__main__":
    main()
