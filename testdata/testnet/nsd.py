# SPDX-License-Identifier: BSD-3-Clause
"""One NSD instance of the test internet: its config, zone files and
process.

Each instance lives in its own directory with everything NSD would
otherwise put under /var/lib/nsd or /run (no database, zone list, xfrd
state, pid and log files), runs as the current user in the foreground
(`nsd -d`), listens on one 127.x.y.z address over IPv4 only, and has no
zone transfer, notify or remote-control configured: it never sends a
packet except replies to queries.
"""
import os
import time

import dns.exception
import dns.message
import dns.query
import dns.rcode

from . import procs

NSD_BIN = os.environ.get("TESTNET_NSD", "/usr/sbin/nsd")
START_TIMEOUT = 10.0


def have_nsd():
    return os.access(NSD_BIN, os.X_OK)


def config_text(workdir, address, port, zones):
    """nsd.conf for an instance; zones: list of (origin, zonefile)."""
    lines = ["server:",
             "  ip-address: %s@%d" % (address, port),
             "  port: %d" % port,
             "  do-ip4: yes",
             "  do-ip6: no",
             '  database: ""',
             '  zonelistfile: "%s/zone.list"' % workdir,
             '  xfrdfile: "%s/xfrd.state"' % workdir,
             '  xfrdir: "%s"' % workdir,
             '  pidfile: "%s/nsd.pid"' % workdir,
             '  logfile: "%s/nsd.log"' % workdir,
             '  cookie-secret-file: "%s/cookiesecrets.txt"' % workdir,
             '  username: ""',
             '  chroot: ""',
             "  verbosity: 0",
             # no response rate limiting: every test client is 127.x, and
             # RRL (on by default) would drop replies under test load
             "  rrl-ratelimit: 0",
             "  rrl-whitelist-ratelimit: 0",
             "  server-count: 1",
             "  zonefiles-check: no",
             "  zonefiles-write: 0",
             "  hide-version: yes",
             "  hide-identity: yes",
             "  refuse-any: no",
             "  minimal-responses: no",
             "  round-robin: no",
             "  reuseport: no",
             "  tcp-count: 100",
             "remote-control:",
             "  control-enable: no"]
    for origin, path in zones:
        # no request-xfr, allow-notify, notify or provide-xfr: no transfers
        lines += ["zone:", '  name: "%s"' % origin, '  zonefile: "%s"' % path]
    return "\n".join(lines) + "\n"


class NsdInstance:
    """An NSD process serving `zones` (list of zones.Zone) on
    address:port, with its files in workdir."""

    def __init__(self, name, workdir, address, port, zones):
        self.name = name
        self.dir = workdir
        self.address = address
        self.port = port
        self.zones = zones
        self.conf = os.path.join(workdir, "nsd.conf")
        self.pidfile = os.path.join(workdir, "testnet.pid")
        self.proc = None

    def write(self):
        """Write the zone files and nsd.conf."""
        os.makedirs(self.dir, exist_ok=True)
        entries = []
        for z in self.zones:
            fname = "root.zone" if z.origin == "." else z.origin + "zone"
            path = os.path.join(self.dir, fname)
            with open(path, "w") as f:
                f.write(z.text())
            entries.append((z.origin, path))
        with open(self.conf, "w") as f:
            f.write(config_text(self.dir, self.address, self.port, entries))

    def start(self, detach=False):
        """Start NSD; wait_ready() must follow (separate, so that many
        instances start in parallel)."""
        self.proc = procs.start([NSD_BIN, "-d", "-c", self.conf], self.dir,
                                self.pidfile, detach=detach)

    def wait_ready(self, timeout=START_TIMEOUT):
        """Poll with a SOA query for each zone until NSD answers it. NSD
        starts even when a zone file has errors (and then SERVFAILs that
        zone), so the answer matters, not just a reply."""
        deadline = time.time() + timeout
        for z in self.zones:
            q = dns.message.make_query(z.origin, "SOA")
            while True:
                if self.proc is not None and self.proc.poll() is not None:
                    raise RuntimeError("nsd %s exited with %s:\n%s" % (
                        self.name, self.proc.returncode, self.log()))
                if time.time() > deadline:
                    raise RuntimeError("nsd %s on %s@%d: no answer for %s "
                                       "within %ss:\n%s" % (
                                           self.name, self.address,
                                           self.port, z.origin, timeout,
                                           self.log()))
                try:
                    r = dns.query.udp(q, self.address, port=self.port,
                                      timeout=0.2)
                except (dns.exception.Timeout, OSError):
                    time.sleep(0.05)
                    continue
                if r.rcode() == dns.rcode.NOERROR and r.answer:
                    break
                raise RuntimeError("nsd %s does not serve %s (%s):\n%s" % (
                    self.name, z.origin, dns.rcode.to_text(r.rcode()),
                    self.log()))

    def stop(self):
        procs.stop(self.pidfile, self.proc)
        self.proc = None

    def log(self):
        out = []
        for n in ("output.log", "nsd.log"):
            try:
                with open(os.path.join(self.dir, n), errors="replace") as f:
                    out.append(f.read())
            except OSError:
                pass
        return "\n".join(out)
