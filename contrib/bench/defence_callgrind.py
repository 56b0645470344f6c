#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""What each defence costs a UDP cache hit: user-space instructions per
query in udp_read_cb (the whole wake-up: recvmmsg's wrapper, the answer,
sendmmsg's; one query per wake-up), under callgrind, with all defences
at their defaults and then with one turned on (or off) at a time.

Runs BUILDDIR/unbound under callgrind (--toggle-collect=udp_read_cb and
the stamped copy), loads one answer into its cache with unbound-control
load_cache, sends --warm queries, zeroes the counters, sends -n more one
at a time and divides the dump's Ir by n. A benchmark, not a test.

    contrib/bench/defence_callgrind.py BUILDDIR [-n 2000] [--only NAME]
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "testdata", "integration"))

from callgrind_common import DUMP, free_port, query, send, total  # noqa: E402


# (label, server: lines); the first is the base all are compared to
CONFIGS = [
    ("defaults (base)", []),
    ("ratelimit: 1000", ["ratelimit: 1000"]),
    ("ip-ratelimit: 1000000", ["ip-ratelimit: 1000000"]),
    ("answer-cookie: yes (query without cookie)", ["answer-cookie: yes"]),
    ("deny-any: yes", ["deny-any: yes"]),
    ("wait-limit: 0 (off)", ["wait-limit: 0"]),
    ("wait-limit-netblock: 10.0.0.0/8 5",
     ["wait-limit-netblock: 10.0.0.0/8 5"]),
    ("discard-timeout: 0 (off)", ["discard-timeout: 0"]),
    ("sock-queue-timeout: 3", ["sock-queue-timeout: 3"]),
    ("unwanted-reply-threshold: 10000000",
     ["unwanted-reply-threshold: 10000000"]),
    ("iter-scrub-promiscuous: no", ["iter-scrub-promiscuous: no"]),
]


def measure(a, lines):
    work = tempfile.mkdtemp(prefix="defence_cg.")
    port = free_port()
    sock = os.path.join(work, "ctl.sock")
    conf = os.path.join(work, "unbound.conf")
    with open(conf, "w") as f:
        f.write('server:\n\tinterface: 127.0.0.1\n\tport: %d\n'
                '\tdo-daemonize: no\n\tuse-syslog: no\n\tchroot: ""\n'
                '\tusername: ""\n\tdirectory: "%s"\n\tpidfile: ""\n'
                '\tnum-threads: 1\n%s'
                'remote-control:\n\tcontrol-enable: yes\n'
                '\tcontrol-interface: %s\n\tcontrol-use-cert: no\n' % (
                    port, work, "".join("\t%s\n" % l for l in lines),
                    sock))
    out = os.path.join(work, "cg.out")
    p = subprocess.Popen(["valgrind", "--tool=callgrind",
                          # *: an LTO build names them .lto_priv.0
                          "--toggle-collect=udp_read_cb*",
                          "--toggle-collect=udp_stamped_read_cb*",
                          "--callgrind-out-file=" + out,
                          os.path.join(a.builddir, "unbound"), "-d", "-c",
                          conf], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    try:
        ctl = [os.path.join(a.builddir, "unbound-control"), "-c", conf]
        for _ in range(120):
            r = subprocess.run(ctl + ["load_cache"], input=DUMP,
                               capture_output=True, text=True)
            if r.stdout == "ok\n":
                break
            time.sleep(1)
        else:
            sys.exit("daemon did not come up")
        wire = query(None)
        send(port, wire, a.warm)
        subprocess.run(["callgrind_control", "-z", str(p.pid)],
                       capture_output=True)
        send(port, wire, a.n)
        before = set(glob.glob(out + "*"))
        subprocess.run(["callgrind_control", "-d", str(p.pid)],
                       capture_output=True)
        for _ in range(60):
            new = set(glob.glob(out + "*")) - before
            if new:
                break
            time.sleep(0.5)
        time.sleep(1)
        return sum(total(f) for f in new) / a.n
    finally:
        p.terminate()
        p.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("builddir")
    ap.add_argument("-n", type=int, default=2000)
    ap.add_argument("--warm", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=1,
                    help="runs of each config; the median is printed")
    ap.add_argument("--only", action="append", default=[],
                    help="only the configs whose label starts so")
    a = ap.parse_args()
    base = None
    print("| defence | Ir per UDP hit in udp_read_cb | vs base |")
    print("|---|---|---|")
    for label, lines in CONFIGS:
        if a.only and base is not None and \
                not any(label.startswith(o) for o in a.only):
            continue
        runs = sorted(measure(a, lines) for _ in range(a.rounds))
        ir = runs[len(runs) // 2]
        if base is None:
            base = ir
        print("| %s | %.0f | %+.0f |" % (label, ir, ir - base), flush=True)


if __name__ == "__main__":
    main()
