#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Command line for the test internet, to run it by hand:

  /usr/bin/python3 testdata/testnet/testnet.py start DIR [--prefix 127.0.0]
        [--port 53] [--bench N]
  /usr/bin/python3 testdata/testnet/testnet.py stop DIR
  /usr/bin/python3 testdata/testnet/testnet.py generate DIR [...]
  /usr/bin/python3 testdata/testnet/testnet.py start DIR --signed
        [--prefix 127.0.1]

--signed runs the DNSSEC test internet (signed_net.py) instead: fresh
keys, zones signed at start; its trust anchor is DIR/root.anchor.

`start` writes everything under DIR, starts the servers detached (their
PIDs in DIR/*/testnet.pid) and returns; `stop` stops them by those PIDs.
Point a resolver at DIR/root.hints (with do-not-query-localhost: no).
"""
import argparse
import os
import sys

# This file's directory holds testnet.py itself: import the package from
# its parent instead, so `import testnet` is the package.
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != HERE]
sys.path.insert(0, os.path.dirname(HERE))

from testnet.net import TestNet  # noqa: E402
from testnet.signed_net import SignedNet  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description="loopback test internet")
    ap.add_argument("command", choices=["start", "stop", "generate"])
    ap.add_argument("dir")
    ap.add_argument("--prefix", default=None,
                    help="the 127.x.y /24 to use (default 127.0.0, "
                         "signed: 127.0.1)")
    ap.add_argument("--port", type=int, default=None,
                    help="port of every server (default 53 as root, "
                         "else 10053)")
    ap.add_argument("--bench", type=int, default=0, metavar="N",
                    help="add bench.tld1. with N names")
    ap.add_argument("--signed", action="store_true",
                    help="the signed (DNSSEC) test internet")
    a = ap.parse_args(argv)
    if a.command == "stop":
        for cls, state in ((SignedNet, "signednet.json"),
                           (TestNet, "testnet.json")):
            if os.path.exists(os.path.join(a.dir, state)):
                cls.from_dir(a.dir).stop()
                print("stopped")
                return 0
        sys.exit("%s: no testnet.json or signednet.json, nothing to stop"
                 % a.dir)
    if a.signed:
        return signed(a)
    net = TestNet(a.dir, a.prefix or "127.0.0", a.port, a.bench)
    if a.command == "generate":
        net.generate()
    else:
        net.start(detach=True)
    print("root hints: %s (port %d)" % (net.root_hints, net.port))
    for n in list(net.nsd) + list(net.responders):
        print("  %-9s %s" % (n, net.address(n)))
    if net.bench_names:
        print("bench queries: %s" % os.path.join(net.dir,
                                                 "bench-queries.txt"))
    return 0


def signed(a):
    net = SignedNet(a.dir, a.prefix or "127.0.1", a.port)
    if a.command == "generate":
        net.generate()
    else:
        net.start(detach=True)
    print("root hints: %s (port %d)" % (net.root_hints, net.port))
    print("trust anchor: %s" % net.anchor)
    for n in list(net.nsd) + list(net.responders):
        print("  %-9s %s" % (n, net.address(n)))
    print("timings: %s" % net.timings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
