#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Instructions per UDP cache hit in udp_read_cb (the whole wake-up of one
query: the answer and the socket calls' wrappers; query_answer itself is
inlined into it), with and without DNS cookies.

Runs BUILDDIR/unbound under callgrind (--toggle-collect=udp_read_cb), loads
one answer into its cache with unbound-control load_cache, and for each kind
of query (no cookie; a client cookie only; a valid server cookie) sends
--warm queries, zeroes the counters, sends -n more one at a time and divides
the dump's Ir by n. --cookies no measures answer-cookie: no; --cookies
none leaves the options out (a build without cookies, to compare).

    contrib/bench/cookie_callgrind.py BUILDDIR [-n 2000] [--cookies no]
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
from test_cookies import SECRET, server_cookie  # noqa: E402

from callgrind_common import DUMP, free_port, query, send, total  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("builddir")
    ap.add_argument("-n", type=int, default=2000)
    ap.add_argument("--warm", type=int, default=200)
    ap.add_argument("--cookies", default="yes")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="cookie_cg.")
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
                    port, work, "" if a.cookies == "none" else
                    '\tanswer-cookie: %s\n\tcookie-secret: "%s"\n' % (
                        a.cookies, SECRET.hex()), sock))
    out = os.path.join(work, "cg.out")
    p = subprocess.Popen(["valgrind", "--tool=callgrind",
                          # *: an LTO build names it .lto_priv.0
                          "--toggle-collect=udp_read_cb*",
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
        kinds = [("no cookie", None),
                 ("client cookie only", bytes.fromhex("0102030405060708")),
                 ("valid server cookie",
                  server_cookie(bytes.fromhex("0102030405060708"), SECRET,
                                int(time.time())))]
        for label, opt in kinds:
            wire = query(opt)
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
            tot = sum(total(f) for f in new)
            for f in new:
                os.rename(f, f + ".done")
            print("answer-cookie: %s, %-20s %7.0f Ir per hit in "
                  "udp_read_cb" % (a.cookies, label + ":", tot / a.n))
    finally:
        p.terminate()
        p.wait()


if __name__ == "__main__":
    main()
