# SPDX-License-Identifier: BSD-3-Clause
"""Debian's real Unbound 1.17 as a recursive resolver over the test
internet: the reference for differential tests.

Its config only ever lets it see the loopback root hints of a TestNet
(`root-hints:` the generated file, iterator only, no trust anchors, no
built-in hints reachable since root-hints replaces them; for the signed
net, `validating=True` adds the validator and the net's trust anchor
file, the one root it trusts), listens on
127.0.0.1 at a high port, and runs in the foreground; it is stopped by
PID like every other process of the harness.
"""
import os
import time

import dns.exception
import dns.flags
import dns.message
import dns.query

from . import procs

UNBOUND_BIN = os.environ.get("TESTNET_UNBOUND", "/usr/sbin/unbound")
START_TIMEOUT = 10.0


def have_unbound():
    return os.access(UNBOUND_BIN, os.X_OK)


def free_port():
    """A port free for UDP and TCP on 127.0.0.1."""
    import socket
    for _ in range(100):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as t:
            t.bind(("127.0.0.1", 0))
            port = t.getsockname()[1]
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u:
                try:
                    u.bind(("127.0.0.1", port))
                except OSError:
                    continue
            return port
    raise RuntimeError("no free port")


class ReferenceUnbound:
    """/usr/sbin/unbound resolving through net (a started TestNet or
    SignedNet), files in workdir. extra: more lines for the server:
    clause. validating: module-config "validator iterator", the net's
    trust anchor (net.anchor) and val-log-level 2 (why a reply is bogus
    goes to the log)."""

    def __init__(self, net, workdir, port=None, extra="", validating=False):
        self.net = net
        self.validating = validating
        self.dir = os.path.abspath(workdir)
        self.port = port or free_port()
        self.extra = extra
        self.conf = os.path.join(self.dir, "unbound.conf")
        self.pidfile = os.path.join(self.dir, "testnet.pid")
        self.proc = None

    def config_text(self):
        lines = ["server:",
                 "verbosity: 1",
                 "interface: 127.0.0.1",
                 "port: %d" % self.port,
                 "do-ip6: no",
                 "do-daemonize: no",
                 "use-syslog: no",
                 'logfile: "%s/unbound.log"' % self.dir,
                 'chroot: ""',
                 'username: ""',
                 'pidfile: ""',
                 'directory: "%s"' % self.dir,
                 'root-hints: "%s"' % self.net.root_hints,
                 "do-not-query-localhost: no",
                 "num-threads: 1",
                 "access-control: 127.0.0.0/8 allow"]
        if self.validating:
            lines += ['module-config: "validator iterator"',
                      'trust-anchor-file: "%s"' % self.net.anchor,
                      "val-log-level: 2"]
        else:
            lines.append('module-config: "iterator"')
        lines += [l.strip() for l in self.extra.splitlines() if l.strip()]
        return lines[0] + "\n" + "".join("\t%s\n" % l for l in lines[1:])

    def start(self):
        os.makedirs(self.dir, exist_ok=True)
        with open(self.conf, "w") as f:
            f.write(self.config_text())
        self.proc = procs.start([UNBOUND_BIN, "-d", "-c", self.conf],
                                self.dir, self.pidfile)
        deadline = time.time() + START_TIMEOUT
        q = dns.message.make_query("version.server.", "TXT", "CH")
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("unbound exited with %s:\n%s" %
                                   (self.proc.returncode, self.log()))
            try:
                dns.query.udp(q, "127.0.0.1", port=self.port, timeout=0.2)
                return self
            except (dns.exception.Timeout, OSError):
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("unbound did not answer:\n" + self.log())

    def stop(self):
        procs.stop(self.pidfile, self.proc)
        self.proc = None

    def log(self):
        out = []
        for n in ("output.log", "unbound.log"):
            try:
                with open(os.path.join(self.dir, n), errors="replace") as f:
                    out.append(f.read())
            except OSError:
                pass
        return "\n".join(out)

    def query(self, qname, qtype="A", tcp=False, timeout=5.0):
        q = dns.message.make_query(qname, qtype, use_edns=0, payload=1232)
        if tcp:
            return dns.query.tcp(q, "127.0.0.1", port=self.port,
                                 timeout=timeout)
        return dns.query.udp(q, "127.0.0.1", port=self.port, timeout=timeout)

    def send(self, q, timeout=5.0):
        """Send the query message q over UDP, again over TCP when the
        reply is truncated."""
        r = dns.query.udp(q, "127.0.0.1", port=self.port, timeout=timeout)
        if r.flags & dns.flags.TC:
            r = dns.query.tcp(q, "127.0.0.1", port=self.port,
                              timeout=timeout)
        return r

    def resolve(self, qname, qtype="A", timeout=5.0):
        """query() over UDP, again over TCP when the reply is truncated:
        the full answer as a client would get it."""
        r = self.query(qname, qtype, timeout=timeout)
        if r.flags & dns.flags.TC:
            r = self.query(qname, qtype, tcp=True, timeout=timeout)
        return r
