# SPDX-License-Identifier: BSD-3-Clause
"""TestNet: the whole loopback test internet as one object.

It writes every server's files under one directory (a subdirectory per
server, plus root.hints and testnet.json describing the run), starts all
servers in parallel, and stops them all by PID. The topology is in
zones.py; `expected` holds the answers a correct resolver must give.

Port 53 is the default when running as root (a recursive resolver can
only reach servers on the port NS records imply); otherwise a high port
is used, which is enough to query the servers directly but not for a
real resolver to iterate (`net.iterable` says which).
"""
import atexit
import json
import os
import random
import socket

import dns.flags
import dns.message
import dns.query

from . import nsd, zones
from .responder_ctl import ResponderInstance

STATE_FILE = "testnet.json"


def default_port():
    return 53 if os.geteuid() == 0 else 10053


def addresses_free(prefix, port, hosts):
    """True when UDP and TCP port on every prefix.host can be bound."""
    for h in hosts:
        for typ in (socket.SOCK_DGRAM, socket.SOCK_STREAM):
            with socket.socket(socket.AF_INET, typ) as s:
                try:
                    s.bind((zones.addr(prefix, h), port))
                except OSError:
                    return False
    return True


def pick_prefix(port, hosts=range(2, 14), tries=50):
    """A random 127.N.M prefix whose servers' addresses are all free, so
    parallel test runs (or a test internet started by hand on 127.0.0)
    do not collide."""
    rnd = random.Random()
    for _ in range(tries):
        prefix = "127.%d.%d" % (rnd.randint(100, 250), rnd.randint(0, 255))
        if addresses_free(prefix, port, hosts):
            return prefix
    raise RuntimeError("no free 127.N.M.0/24 block for port %d" % port)


class TestNet:
    """The test internet under workdir. prefix: the /24 ("127.0.0"),
    port: for all servers (default 53 as root, else 10053), bench_names:
    add bench.tld1. with that many names (0: none)."""

    __test__ = False    # not a pytest test class

    def __init__(self, workdir, prefix="127.0.0", port=None, bench_names=0):
        self.dir = os.path.abspath(workdir)
        self.prefix = prefix
        self.port = default_port() if port is None else port
        self.bench_names = bench_names
        self.root_hints = os.path.join(self.dir, "root.hints")
        self.expected = zones.cases()
        self.bench_queries = []
        self.nsd = {}
        self.responders = {}
        for spec in zones.nsd_servers(prefix, bench_names):
            self.nsd[spec.name] = nsd.NsdInstance(
                spec.name, os.path.join(self.dir, spec.name),
                zones.addr(prefix, spec.host), self.port, spec.zones)
        for spec in zones.responder_servers(prefix):
            self.responders[spec.name] = ResponderInstance(
                spec, os.path.join(self.dir, spec.name),
                zones.addr(prefix, spec.host), self.port)
        self._atexit = False

    @classmethod
    def from_dir(cls, workdir):
        """The TestNet described by workdir/testnet.json (for `stop`)."""
        with open(os.path.join(workdir, STATE_FILE)) as f:
            st = json.load(f)
        return cls(workdir, st["prefix"], st["port"], st["bench_names"])

    # -- addresses --------------------------------------------------------
    @property
    def iterable(self):
        """True when a real resolver can iterate through this net: the
        servers are on port 53."""
        return self.port == 53

    def address(self, name):
        """The address of a server by name: an NSD instance (root, tld1,
        tld2, tld3, example1, example2, dnshost, sub, bench), a responder
        (bad, noedns) or 'dead' (where nothing listens)."""
        if name in self.nsd:
            return self.nsd[name].address
        if name in self.responders:
            return self.responders[name].address
        if name == "dead":
            return zones.addr(self.prefix, zones.DEAD)
        raise KeyError(name)

    def responder(self, name="bad"):
        return self.responders[name]

    # -- files and processes ---------------------------------------------
    def generate(self):
        """Write all configs, zone files, root.hints and testnet.json
        (and the bench query list when there is a bench zone)."""
        os.makedirs(self.dir, exist_ok=True)
        for inst in list(self.nsd.values()) + list(self.responders.values()):
            inst.write()
        with open(self.root_hints, "w") as f:
            f.write(zones.root_hints(self.prefix))
        if self.bench_names:
            _, self.bench_queries = zones.bench_zone(self.bench_names)
            with open(os.path.join(self.dir, "bench-queries.txt"), "w") as f:
                f.writelines("%s %s\n" % q for q in self.bench_queries)
        state = {"prefix": self.prefix, "port": self.port,
                 "bench_names": self.bench_names,
                 "root_hints": self.root_hints,
                 "servers": {n: self.address(n) for n in
                             list(self.nsd) + list(self.responders)}}
        with open(os.path.join(self.dir, STATE_FILE), "w") as f:
            json.dump(state, f, indent=1)

    def start(self, detach=False):
        """Generate, start every server and wait until all answer. On any
        failure everything started is stopped before the error goes up.
        Unless detach (the command line), stop() also runs at exit."""
        self.generate()
        if not detach and not self._atexit:
            atexit.register(self.stop)
            self._atexit = True
        insts = list(self.nsd.values()) + list(self.responders.values())
        try:
            for inst in insts:
                inst.start(detach)
            for inst in insts:
                inst.wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self):
        """Stop every server by PID (from its pid file); idempotent."""
        for inst in list(self.responders.values()) + list(self.nsd.values()):
            inst.stop()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # -- direct queries (not through a resolver) ---------------------------
    def query(self, server, qname, qtype="A", tcp=False, timeout=2.0,
              edns=0, payload=1232, rd=False, **kw):
        """Query a server of the net directly with dnspython; edns=-1 for
        no EDNS. Returns the reply (raises dns.exception.Timeout)."""
        q = dns.message.make_query(qname, qtype, use_edns=edns,
                                   payload=payload)
        if not rd:
            q.flags &= ~dns.flags.RD
        where = self.address(server)
        if tcp:
            return dns.query.tcp(q, where, port=self.port, timeout=timeout,
                                 **kw)
        return dns.query.udp(q, where, port=self.port, timeout=timeout,
                             ignore_trailing=True, **kw)
