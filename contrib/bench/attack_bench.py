#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Rate limits under the attacks they exist for, on loopback (a
benchmark, not a test; figures for doc/performance.md). As root:

    contrib/bench/attack_bench.py BUILDDIR [--seconds 10] [--rate 50000]
        [--runs 3] [--server ours] [--server unbound]

The attack traffic comes from contrib/bench/udpflood.c (--sender
udpflood, the default; BUILDDIR/bench/udpflood as run.sh builds it, or
compiled here into the work directory): it sends at the rate asked
without waiting for replies, from 64 source ports, and counts the
replies, so a daemon that drops (the limits do) still gets the rate.
--sender dnsperf is the closed-loop client of before: it keeps each
query in flight until its reply or its 1 s timeout, which caps what it
sends at a dropping server (at most 10,900 q/s were sent of 50,000).

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

The probes ask the daemon at 127.0.0.1, the address (the socket) the
attack fills, unless --probe-to 127.0.0.2: the daemon's other
interface, a socket of its own.

Everything started is stopped by PID."""
import argparse
import os
import random
import resource
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
from stats_reader import control_stats, nsd_stats  # noqa: E402

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
                '\tqname-minimisation: no\n'
                # num.query.ratelimited is an extended statistic
                '\textended-statistics: yes\n%s'
                'stub-zone:\n\tname: attack.tld9.\n\tstub-addr: 127.0.0.1@%d\n'
                'stub-zone:\n\tname: other.tld9.\n\tstub-addr: 127.0.0.1@%d\n'
                # its counters (num.queries, the ratelimited ones) over a
                # unix socket: no keys
                'remote-control:\n\tcontrol-enable: yes\n'
                '\tcontrol-interface: "%s"\n'
                % (port, work, hints, "".join("\t%s\n" % l for l in lines),
                   a_nsd.port, o_nsd.port, conf + ".ctl"))
    a.conf = conf
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


def stat_delta(s0, s1, *names):
    """The first of names both snapshots have: its growth; nan if none."""
    for n in names:
        if n in s0 and n in s1:
            return s1[n] - s0[n]
    return float("nan")


def cpu_s(pid):
    """utime+stime of pid in seconds (/proc/PID/stat)."""
    with open("/proc/%d/stat" % pid) as f:
        rest = f.read().rsplit(")", 1)[1].split()
    return (int(rest[11]) + int(rest[12])) / os.sysconf("SC_CLK_TCK")


def children_cpu_s():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def udp_rcvbuf_errors():
    """UDP datagrams the kernel dropped for a full receive buffer, the
    whole network namespace (/proc/net/snmp)."""
    with open("/proc/net/snmp") as f:
        rows = [l.split() for l in f if l.startswith("Udp:")]
    return int(rows[1][rows[0].index("RcvbufErrors")])


class Window:
    """What the daemon, the sender and the kernel did while an attack
    ran: the daemon's CPU, the sender's CPU (reaped children), the UDP
    receive-buffer drops, the load average; the daemon's counters."""

    def __init__(self, a, pid):
        self.a, self.pid = a, pid
        self.cpu0, self.kid0 = cpu_s(pid), children_cpu_s()
        self.drop0 = udp_rcvbuf_errors()
        self.stats0 = control_stats(a.conf)

    def close(self):
        # rates over the attack's --seconds: what the window holds
        # besides (the sender's wait for late replies, the daemon's
        # backlog) is work the attack caused
        secs = self.a.seconds
        s1 = control_stats(self.a.conf)
        self.values = [
            ("daemon CPU %", 100.0 * (cpu_s(self.pid) - self.cpu0) / secs),
            ("sender CPU %", 100.0 * (children_cpu_s() - self.kid0) / secs),
            ("rcvbuf drops/s", (udp_rcvbuf_errors() - self.drop0) / secs),
            ("daemon queries/s", stat_delta(
                self.stats0, s1, "total.num.queries") / secs),
            ("ratelimited/s", stat_delta(
                self.stats0, s1, "total.num.query.ratelimited",
                "num.query.ratelimited") / secs),
            ("ip-ratelimited/s", stat_delta(
                self.stats0, s1, "total.num.queries_ip_ratelimited")
             / secs),
            ("load 1 min", os.getloadavg()[0])]
        return self.values

    def text(self):
        v = dict(self.values)
        return ("  daemon read %.0f q/s (its num.queries), ratelimited "
                "%.0f/s, ip-ratelimited %.0f/s; daemon CPU %.0f%% of a "
                "core, sender %.0f%%; kernel UDP receive-buffer drops "
                "%.0f/s; load average %.1f" % (
                    v["daemon queries/s"], v["ratelimited/s"],
                    v["ip-ratelimited/s"], v["daemon CPU %"],
                    v["sender CPU %"], v["rcvbuf drops/s"],
                    v["load 1 min"]))


def sender(a, port, qname, qfile, source=None):
    """Start the attack: udpflood (open loop) or dnsperf (closed)."""
    if a.sender == "udpflood":
        cmd = [a.udpflood, "-r", str(a.rate), "-t", str(a.seconds),
               "-n", str(a.sockets)]
        if source:
            cmd += ["-b", source]
        return subprocess.Popen(cmd + ["127.0.0.1", str(port), qname],
                                stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
    return dnsperf(port, qfile, a.rate, a.seconds)


def sender_done(a, p):
    """(queries sent, replies, replies per second, rcode text)."""
    if a.sender != "udpflood":
        sent, done, qps = dnsperf_done(p)
        return sent, done, qps, ""
    out = p.communicate()[0]
    kv = dict(w.split("=", 1) for w in out.split() if "=" in w)
    if "sent" not in kv:
        sys.exit("udpflood failed: %s" % out)
    rcodes = " ".join("%s %s" % (k, kv[k]) for k in (
        "noerror", "nxdomain", "servfail", "refused", "other_rcode",
        "truncated") if kv.get(k, "0") != "0")
    return (float(kv["sent"]), float(kv["replies"]),
            float(kv["replies_per_s"]), "%s; send errors %s" % (
                rcodes or "none", kv["send_errors"]))


def build_udpflood(a, work):
    """BUILDDIR/bench/udpflood (run.sh builds it), or a fresh build of
    contrib/bench/udpflood.c in the work directory."""
    built = os.path.join(a.builddir, "bench", "udpflood")
    src = os.path.join(HERE, "udpflood.c")
    if os.access(built, os.X_OK) and \
            os.path.getmtime(built) >= os.path.getmtime(src):
        return built
    out = os.path.join(work, "udpflood")
    subprocess.run(["cc", "-O2", "-Wall", "-Wextra", "-o", out, src],
                   check=True)
    return out


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


PROBE_TO = ["127.0.0.1"]     # --probe-to


def probe(port, secs, source, make_name, per_s=20):
    """Queries at per_s from source for secs, to --probe-to: (latencies
    ms, sent)."""
    lat, sent = [], 0
    end = time.monotonic() + secs
    while time.monotonic() < end:
        t0 = time.monotonic()
        sent += 1
        try:
            dns.query.udp(dns.message.make_query(make_name(), "A"),
                          PROBE_TO[0], port=port, timeout=1.0,
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
        if a.sender == "dnsperf":
            with open(qfile, "w") as f:
                for _ in range(min(a.rate * a.seconds, 2000000)):
                    f.write("%s.attack.tld9. A\n" % rand_label())
        n0 = nsd_stats(a_nsd.conf).get("num.queries", 0)
        t0 = time.monotonic()
        win = Window(a, p.pid)
        dp = sender(a, port, "*.attack.tld9.", qfile)
        lat, sent = probe(port, a.seconds, "127.0.0.1", other)
        qsent, done, qps, rcodes = sender_done(a, dp)
        secs = time.monotonic() - t0
        up = (nsd_stats(a_nsd.conf).get("num.queries", 0) - n0) / secs
        extra = win.close()
        print("%s: random-subdomain attack, ratelimit: %d, "
              "ratelimit-factor: %d" % (a.label, a.ratelimit, factor))
        print("  attack offered %d q/s for %d s: %s sent %.0f/s, "
              "replies %.0f/s (%s)" % (a.rate, a.seconds, a.sender,
                                       qsent / a.seconds, qps, rcodes))
        print(win.text())
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
            ("base p99 ms", pct(base, .99))] + extra)
    finally:
        stop(p)


def flood(a, work, a_nsd, o_nsd):
    p, port = start_daemon(a, work, ["ip-ratelimit: %d" % a.ip_ratelimit],
                           a_nsd, o_nsd)
    try:
        qfile = os.path.join(work, "flood.txt")
        with open(qfile, "w") as f:
            f.write("ns.other.tld9. A\n")
        win = Window(a, p.pid)
        dp = sender(a, port, "ns.other.tld9.", qfile, source="127.0.0.1")
        lat, sent = probe(port, a.seconds, "127.0.0.2",
                          lambda: "ns.other.tld9.", per_s=50)
        qsent, done, qps, rcodes = sender_done(a, dp)
        extra = win.close()
        print("%s: flood from 127.0.0.1, ip-ratelimit: %d"
              % (a.label, a.ip_ratelimit))
        print("  flooding client: %.0f replies/s (%s); offered %d q/s, "
              "%s sent %.0f/s" % (qps, rcodes, a.rate, a.sender,
                                  qsent / a.seconds))
        print(win.text())
        print("  other client (127.0.0.2): %d/%d answered, p50 %.2f ms"
              % (len(lat), sent, pct(lat, .5)))
        record(a, "flood", [("sent/s", qsent / a.seconds),
                            ("replies/s", qps), ("answered", len(lat)),
                            ("probes", sent), ("p50 ms", pct(lat, .5))]
               + extra)
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
    ap.add_argument("--sender", choices=["udpflood", "dnsperf"],
                    default="udpflood",
                    help="the attack's client: udpflood sends --rate "
                    "without waiting for replies (default); dnsperf "
                    "waits (capped by its in-flight queries)")
    ap.add_argument("--sockets", type=int, default=64,
                    help="udpflood: source ports (sockets)")
    ap.add_argument("--probe-to", choices=["127.0.0.1", "127.0.0.2"],
                    default="127.0.0.1",
                    help="the daemon address the probes ask: 127.0.0.1, "
                    "the socket the attack fills (default), or "
                    "127.0.0.2, its other interface, a socket of its "
                    "own (what the worker does, not its socket buffer)")
    a = ap.parse_args()
    PROBE_TO[0] = a.probe_to
    a.builddir = os.path.abspath(a.builddir)
    a.factor = a.factor or [0, 10]
    binaries = {"ours": os.path.join(a.builddir, "unbound"),
                "unbound": a.reference}
    servers = a.server or [s for s in ("ours", "unbound")
                           if os.access(binaries[s], os.X_OK)]
    work = tempfile.mkdtemp(prefix="attack_bench.")
    try:
        if a.sender == "udpflood":
            a.udpflood = build_udpflood(a, work)
        print("%s; load average %.1f %.1f %.1f; sender %s at %d q/s; "
              "probes to %s" % (
                  time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
                  *os.getloadavg(), a.sender, a.rate, a.probe_to))
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
