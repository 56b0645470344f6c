#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Queries forwarded over TLS per second: this resolver and Debian's
Unbound 1.17, each forwarding "many.tlsup." (forward-tls-upstream,
ADDR@port#dns.test, tls-cert-bundle) to the same TLS upstream, Debian's
Unbound answering every name of the zone from a redirect local zone
with a certificate made for the run. dnsperf asks each forwarder names
it has never seen (no cache hits), over UDP, so every query is
forwarded over the forwarder's TLS connections. Prints q/s and the
forwarder's CPU (user+system) per query. All on loopback; every process
started is stopped by PID. As root on Debian 12, from the repository:

    /usr/bin/python3 contrib/bench/tls_forward.py [--seconds 10]
        [--rounds 3] [--outstanding 100] [--build build]
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SRC = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(SRC, "testdata"))
from testnet.tls_pki import CA  # noqa: E402

DEBIAN = "/usr/sbin/unbound"
PROCS = []


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def conf_common(work, tag, port):
    hints = os.path.join(work, "root.hints")
    with open(hints, "w") as f:
        f.write(". 3600000 IN NS a.root.test.\n"
                "a.root.test. 3600000 IN A 127.0.0.254\n")
    return ("server:\n\tverbosity: 1\n\tnum-threads: 1\n"
            "\tinterface: 127.0.0.1@%d\n\tdo-daemonize: no\n"
            "\tuse-syslog: no\n\tchroot: \"\"\n\tusername: \"\"\n"
            "\tdirectory: \"%s\"\n\tpidfile: \"%s/%s.pid\"\n"
            "\tlogfile: \"%s/%s.log\"\n\troot-hints: \"%s\"\n"
            "\tmodule-config: \"iterator\"\n"
            "\tdo-not-query-localhost: no\n"
            "\taccess-control: 127.0.0.0/8 allow\n"
            % (port, work, work, tag, work, tag, hints))


def start(binary, conf, port):
    p = subprocess.Popen([binary, "-d", "-c", conf],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    PROCS.append(p)
    deadline = time.time() + 15
    while time.time() < deadline:
        r = subprocess.run(["kdig", "@127.0.0.1", "-p", str(port),
                            "+timeout=1", "+retry=0", "version.server",
                            "CH", "TXT"], capture_output=True, text=True)
        if "status: " in r.stdout:
            return p
        time.sleep(0.2)
    raise RuntimeError("%s did not start" % binary)


def stop(p):
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def ticks(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def run_dnsperf(port, qfile, seconds, outstanding):
    r = subprocess.run(["dnsperf", "-s", "127.0.0.1", "-p", str(port),
                        "-d", qfile, "-l", str(seconds), "-c", "4",
                        "-q", str(outstanding), "-t", "3"],
                       capture_output=True, text=True)
    qps = sent = done = 0.0
    lat = 0.0
    for line in r.stdout.splitlines():
        line = line.strip()
        if line.startswith("Queries per second:"):
            qps = float(line.split()[3])
        elif line.startswith("Queries sent:"):
            sent = float(line.split()[2])
        elif line.startswith("Average Latency"):
            lat = float(line.split()[3])
        elif line.startswith("Queries completed:"):
            done = float(line.split()[2])
    return qps, sent, done, lat


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--outstanding", type=int, default=100)
    ap.add_argument("--build", default=os.path.join(SRC, "build"))
    a = ap.parse_args()
    ours = os.path.join(a.build, "unbound")
    work = tempfile.mkdtemp(prefix="tls-forward-bench-")
    try:
        ca = CA(work)
        cert, key = ca.server("up", ["dns.test"])
        up_port, tls_port = free_port(), free_port()
        up_conf = os.path.join(work, "up.conf")
        with open(up_conf, "w") as f:
            f.write(conf_common(work, "up", up_port) +
                    "\tinterface: 127.0.0.1@%d\n\ttls-port: %d\n"
                    "\ttls-service-key: \"%s\"\n\ttls-service-pem: \"%s\"\n"
                    "\tlocal-zone: \"many.tlsup.\" redirect\n"
                    "\tlocal-data: \"many.tlsup. 300 A 192.0.2.7\"\n"
                    % (tls_port, tls_port, key, cert))
        up = start(DEBIAN, up_conf, up_port)
        print("upstream: 127.0.0.1 port %d (TLS)" % tls_port, flush=True)
        servers = (("this resolver", ours), ("Debian's Unbound 1.17", DEBIAN))
        results = {label: [] for label, _ in servers}
        for rnd in range(a.rounds):
            # one of each per round: the machine's load hits both alike
            for label, binary in servers:
                port = free_port()
                conf = os.path.join(work, "fw.conf")
                with open(conf, "w") as f:
                    f.write(conf_common(work, "fw", port) +
                            "\ttls-cert-bundle: \"%s\"\n"
                            "forward-zone:\n\tname: \"many.tlsup.\"\n"
                            "\tforward-tls-upstream: yes\n"
                            "\tforward-addr: 127.0.0.1@%d#dns.test\n"
                            % (ca.cert_file, tls_port))
                qfile = os.path.join(work, "q.txt")
                tag = "o" if binary == ours else "d"
                with open(qfile, "w") as f:
                    for i in range(60000 * a.seconds):
                        f.write("%s%d-%d.many.tlsup A\n" % (tag, rnd, i))
                p = start(binary, conf, port)
                t0, u0 = ticks(p.pid), ticks(up.pid)
                qps, sent, done, lat = run_dnsperf(port, qfile, a.seconds,
                                                   a.outstanding)
                hz = os.sysconf("SC_CLK_TCK")
                cpu = (ticks(p.pid) - t0) / hz
                upcpu = (ticks(up.pid) - u0) / hz / a.seconds
                stop(p)
                PROCS.remove(p)
                us = cpu / done * 1e6 if done else 0.0
                ans = done / sent if sent else 0.0
                results[label].append((qps, us, ans))
                print("%s round %d: %.0f q/s, %.1f us CPU/query, "
                      "%.4f answered, mean latency %.2f ms, upstream CPU "
                      "%.0f%%" % (label, rnd + 1, qps, us, ans, lat * 1000,
                                  upcpu * 100), flush=True)
        rows = []
        for label, _ in servers:
            r = sorted(results[label])
            rows.append((label, r[len(r) // 2]))
        print("\nmedian of %d rounds, %d s each, dnsperf -c 4 -q %d, "
              "unique names (every query forwarded over TLS):"
              % (a.rounds, a.seconds, a.outstanding))
        for label, (qps, us, ans) in rows:
            print("  %-24s %8.0f q/s  %6.1f us CPU/query  %.4f answered"
                  % (label, qps, us, ans))
    finally:
        for p in list(PROCS):
            stop(p)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
