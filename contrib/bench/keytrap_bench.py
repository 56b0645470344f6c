#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""How fast a fresh validator fails the KeyTrap zone (a benchmark, not a
test: the behaviour is tested in test_validator_suspend.py and
test_signednet.py; figures for doc/performance.md). As root (the signed
test internet needs port 53):

    contrib/bench/keytrap_bench.py BUILDDIR [--rounds 5]

The signed test internet (testdata/testnet/signed_net.py) is started on a
free 127.x.y.0/24 block. keytrap.sec1. there has 20 DNSKEYs sharing its
KSK's key tag, served before the KSK, and 20 bad RRSIGs of that tag over
www A. Each round, for this daemon (BUILDDIR/unbound, "ours") and
Debian's Unbound (/usr/sbin/unbound) one after the other, a new daemon
(validating, one thread, nothing cached) is asked www.example.sec1. A
(the root's and sec1.'s keys into its caches), then www.ed25519.sec1. A
(one more secure zone: the baseline) and www.keytrap.sec1. A (one more
zone, bogus). Printed for the last two: the wall time of the query and
the daemon's CPU time while it ran (every thread's, from
/proc/PID/task/*/schedstat); medians over the rounds at the end.

Everything started is stopped by PID."""
import argparse
import os
import signal
import sys
import tempfile
import time

import dns.message
import dns.rcode

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "testdata"))
from testnet import pick_prefix, reference  # noqa: E402
from testnet.signed_net import SignedNet  # noqa: E402

def cpu_ms(pid):
    """CPU time of every thread of pid in ms (/proc schedstat, ns)."""
    total = 0
    task = "/proc/%d/task" % pid
    for t in os.listdir(task):
        try:
            with open(os.path.join(task, t, "schedstat")) as f:
                total += int(f.read().split()[0])
        except FileNotFoundError:
            pass        # a thread that ended meanwhile
    return total / 1e6


def timed(ref, name):
    """(rcode text, wall ms, daemon CPU ms) of one query of name A."""
    q = dns.message.make_query(name, "A", want_dnssec=True)
    c0 = cpu_ms(ref.proc.pid)
    t0 = time.monotonic()
    r = ref.send(q, timeout=30.0)
    wall = (time.monotonic() - t0) * 1000
    return dns.rcode.to_text(r.rcode()), wall, cpu_ms(ref.proc.pid) - c0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("builddir")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reference", default="/usr/sbin/unbound")
    a = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("terminated"))
    if os.geteuid() != 0:
        sys.exit("the signed test internet needs port 53: run as root")
    binaries = [("ours", os.path.abspath(os.path.join(a.builddir,
                                                     "unbound")))]
    if os.access(a.reference, os.X_OK):
        binaries.append(("unbound", a.reference))
    work = tempfile.mkdtemp(prefix="keytrap_bench.")
    net = SignedNet(os.path.join(work, "net"),
                    prefix=pick_prefix(53, hosts=range(2, 9)), port=53)
    results = {}
    try:
        net.start()
        for rnd in range(a.rounds):
            for label, binary in binaries:
                # ReferenceUnbound writes the validating config; the
                # binary it starts is the module's UNBOUND_BIN
                reference.UNBOUND_BIN = binary
                ref = reference.ReferenceUnbound(
                    net, os.path.join(work, "%s-%d" % (label, rnd)),
                    validating=True)
                ref.start()
                try:
                    timed(ref, "www.example.sec1.")
                    for case, name in (("secure zone", "www.ed25519.sec1."),
                                       ("KeyTrap zone",
                                        "www.keytrap.sec1.")):
                        rc, wall, cpu = timed(ref, name)
                        print("round %d %-8s %-13s %-9s %7.1f ms wall, "
                              "%6.1f ms CPU" % (rnd, label, case, rc, wall,
                                                cpu))
                        results.setdefault((label, case, rc), []).append(
                            (wall, cpu))
                finally:
                    ref.stop()
    finally:
        net.stop()
    print("\nmedians over %d rounds (wall ms, daemon CPU ms)" % a.rounds)
    for (label, case, rc), v in results.items():
        walls = sorted(w for w, _ in v)
        cpus = sorted(c for _, c in v)
        print("  %-8s %-13s %-9s %7.1f ms wall  %6.1f ms CPU  (%d runs)"
              % (label, case, rc, walls[len(walls) // 2],
                 cpus[len(cpus) // 2], len(v)))


if __name__ == "__main__":
    main()
