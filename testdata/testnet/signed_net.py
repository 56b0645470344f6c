# SPDX-License-Identifier: BSD-3-Clause
"""SignedNet: the DNSSEC test internet (signed_zones.py) as one object.

generate() makes fresh keys with ldns-keygen and signs every zone with
ldns-signzone, children first (a parent needs its children's DS), breaks
the broken ones (breakage.py), and writes each NSD instance's files,
the MITM responder's config, root.hints and root.anchor (the root KSK's
DS, for trust-anchor-file:). start()/stop() as in TestNet: every server
started in parallel, stopped by PID.
"""
import atexit
import json
import os
import time
from concurrent.futures import ThreadPoolExecutor

import dns.dnssec
import dns.flags
import dns.message
import dns.query

from . import breakage, nsd, signer
from . import signed_zones as sz
from .net import default_port
from .responder_ctl import ResponderInstance
from .zones import ResponderServer

STATE_FILE = "signednet.json"
DAY = 86400


class ZoneText:
    """A zone as NsdInstance wants it: origin and text()."""

    def __init__(self, origin, text):
        self.origin = origin
        self._text = text

    def text(self):
        return self._text


def addr(prefix, host):
    return "%s.%d" % (prefix, host)


class SignedNet:
    """The signed test internet under workdir on prefix.2-8:port."""

    __test__ = False

    def __init__(self, workdir, prefix="127.0.1", port=None):
        self.dir = os.path.abspath(workdir)
        self.prefix = prefix
        self.port = default_port() if port is None else port
        self.root_hints = os.path.join(self.dir, "root.hints")
        self.anchor = os.path.join(self.dir, "root.anchor")
        self.zones = {z.origin: z for z in sz.zones()}
        self.keys = {}          # origin -> [signer.Key]
        self.signed = {}        # origin -> final zone text as served
        self.timings = {}
        self.nsd = {}
        for name, host in sz.servers().items():
            self.nsd[name] = nsd.NsdInstance(
                name, os.path.join(self.dir, name), addr(prefix, host),
                self.port, [])
        spec = ResponderServer("mitm", sz.MITM, "stripped.sec1.", [],
                               sz.mitm_rules(prefix, self.port))
        self.responders = {"mitm": ResponderInstance(
            spec, os.path.join(self.dir, "mitm"), addr(prefix, sz.MITM),
            self.port)}
        self._atexit = False

    @classmethod
    def from_dir(cls, workdir):
        with open(os.path.join(workdir, STATE_FILE)) as f:
            st = json.load(f)
        return cls(workdir, st["prefix"], st["port"])

    @property
    def iterable(self):
        return self.port == 53

    def address(self, name):
        if name in self.nsd:
            return self.nsd[name].address
        return self.responders[name].address

    # -- zone data ----------------------------------------------------------
    def base_lines(self, z):
        """The zone's own records (absolute), before any delegation."""
        out = [sz.soa_line(z)]
        for ns, host in z.ns_hosts:
            out.append("%s 3600 IN NS %s" % (z.origin, ns))
            if z.origin != ".":
                out.append("%s 3600 IN A %s" % (ns, addr(self.prefix, host)))
        for l in z.lines:
            l = l.replace("{ROOT}", addr(self.prefix, sz.ROOT))
            owner, rest = l.split(None, 1)
            if owner == "@":
                owner = z.origin
            elif not owner.endswith("."):
                owner = owner + "." + z.origin
            out.append("%s 3600 IN %s" % (owner, rest))
        return out

    def children(self, origin):
        return [c for c in self.zones.values() if c.parent == origin]

    def delegation(self, child, ds_lines):
        """NS, glue and DS lines a parent publishes for child."""
        out = []
        for ns, host in child.ns_hosts:
            out += ["%s 3600 IN NS %s" % (child.origin, ns),
                    "%s 3600 IN A %s" % (ns, addr(self.prefix, host))]
        return out + ds_lines

    def make_keys(self, z):
        """Fresh keys for z: one KSK (flags 257) signing everything, or
        KSK and ZSK; plus, for dsmissingkey, a key never published."""
        kdir = os.path.join(self.dir, "keys", z.origin.strip(".") or "root")
        # ldns-signzone signs nothing with a key lacking the zone bit:
        # nozoneflag signs with flags 256, breakage re-signs with flags 1
        keys = [signer.keygen(kdir, z.origin, z.algorithm,
                              ksk=z.defect != "nozoneflag",
                              bits=2048 if z.origin == "." else None)]
        if z.split_keys:
            keys.append(signer.keygen(kdir, z.origin, z.algorithm, ksk=False))
        self.keys[z.origin] = keys
        if z.defect == "dsmissingkey":
            self.unpublished[z.origin] = signer.keygen(kdir, z.origin,
                                                       z.algorithm)

    def ds_lines(self, z):
        """The DS the parent publishes for z, defects included."""
        if not z.signed or not z.ds:
            return []
        ksk = self.keys[z.origin][0]
        if z.defect == "dsmissingkey":
            return [self.unpublished[z.origin].ds_line()]
        if z.defect == "nozoneflag":
            ds = dns.dnssec.make_ds(z.origin, nozone_dnskey(ksk), "SHA256")
            return [breakage.line_of(z.origin, 3600, ds)]
        if z.defect == "dsmismatch":
            return [breakage.flip_ds_digest(ksk.ds_line())]
        return [ksk.ds_line()]

    def sign_zone(self, z):
        """The text NSD serves for z (its children's DS already known)."""
        lines = self.base_lines(z)
        optout_later = []
        for c in self.children(z.origin):
            ds = self.ds_lines(c)
            if z.nsec3 and z.nsec3.get("optout") and not ds:
                # opt-out: an insecure delegation gets no NSEC3 at all,
                # so it is added after signing
                optout_later += self.delegation(c, ds)
            else:
                lines += self.delegation(c, ds)
        if z.defect == "keytrap":
            # the real key first: ldns-signzone adds a key's DNSKEY only
            # when none with its key tag is in the zone yet
            lines.append(self.keys[z.origin][0].dnskey_line())
            lines += ["%s 3600 IN DNSKEY %s" % (z.origin, rd.to_text())
                      for rd in breakage.colliding_dnskeys(
                          self.keys[z.origin][0], sz.KEYTRAP_KEYS)]
        text = "\n".join(lines) + "\n"
        if not z.signed:
            return text
        now = time.time()
        inception, expiration = {
            "expired": (now - 30 * DAY, now - DAY),
            "notyet": (now + 10 * DAY, now + 40 * DAY)}.get(z.defect,
                                                            (None, None))
        text = signer.sign(text, z.origin, self.keys[z.origin],
                           os.path.join(self.dir, "signing"), nsec3=z.nsec3,
                           inception=inception, expiration=expiration)
        www = "www." + z.origin
        if z.defect == "badsig":
            text = breakage.corrupt_signature(text, www, "A")
        elif z.defect == "badkeytag":
            text = breakage.change_keytag(text, www, "A")
        elif z.defect == "keytrap":
            text = breakage.many_bad_rrsigs(text, www, "A", sz.KEYTRAP_SIGS)
            # the real key after all the colliding ones, every run alike
            text = breakage.move_last(text, z.origin, "DNSKEY",
                                      self.keys[z.origin][0].dnskey)
        elif z.defect == "nozoneflag":
            text, _ = breakage.resign_with_flags(text, z.origin,
                                                 self.keys[z.origin][0], 1)
        return text + "".join(l + "\n" for l in optout_later)

    def build(self):
        """Keys for every zone, then signing level by level, deepest
        first (a parent needs its children's DS); both in parallel."""
        t0 = time.time()
        self.unpublished = {}
        signed = [z for z in self.zones.values() if z.signed]
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(self.make_keys, signed))
        t1 = time.time()

        def depth(z):
            return 0 if z.origin == "." else z.origin.count(".")
        with ThreadPoolExecutor(8) as pool:
            for lv in sorted({depth(z) for z in self.zones.values()},
                             reverse=True):
                batch = [z for z in self.zones.values() if depth(z) == lv]
                for z, text in zip(batch, pool.map(self.sign_zone, batch)):
                    self.signed[z.origin] = text
        self.timings = {"keygen_s": round(t1 - t0, 2),
                        "sign_s": round(time.time() - t1, 2)}

    def chains(self):
        """origin -> signed_cases.Chain of every signed zone, to resolve
        the cases' {match:..}/{cover:..} owners."""
        from .signed_cases import Chain
        return {o: Chain(o, self.signed[o]) for o, z in self.zones.items()
                if z.signed}

    def anchor_text(self):
        """The trust anchor: the root KSK's DS."""
        return self.keys["."][0].ds_line() + "\n"

    # -- files and processes -------------------------------------------------
    def generate(self):
        """Keys, signed zones, every server's files, root.hints,
        root.anchor and signednet.json."""
        os.makedirs(self.dir, exist_ok=True)
        self.build()
        served = {}
        for z in self.zones.values():
            host = z.hidden if z.hidden else z.host
            served.setdefault(host, []).append(ZoneText(z.origin,
                                                        self.signed[z.origin]))
        for name, inst in self.nsd.items():
            inst.zones = served.get(sz.servers()[name], [])
        for inst in list(self.nsd.values()) + list(self.responders.values()):
            inst.write()
        with open(self.root_hints, "w") as f:
            f.write(".\t3600000\tIN\tNS\ta.root.test.\n"
                    "a.root.test.\t3600000\tIN\tA\t%s\n" %
                    addr(self.prefix, sz.ROOT))
        with open(self.anchor, "w") as f:
            f.write(self.anchor_text())
        state = {"prefix": self.prefix, "port": self.port,
                 "root_hints": self.root_hints, "anchor": self.anchor,
                 "servers": {n: self.address(n) for n in
                             list(self.nsd) + list(self.responders)},
                 "timings": self.timings}
        with open(os.path.join(self.dir, STATE_FILE), "w") as f:
            json.dump(state, f, indent=1)

    def start(self, detach=False):
        """Generate, start every server, wait until all answer; on failure
        stop what was started. Unless detach, stop() also runs at exit."""
        t0 = time.time()
        self.generate()
        if not detach and not self._atexit:
            atexit.register(self.stop)
            self._atexit = True
        insts = list(self.nsd.values()) + list(self.responders.values())
        t1 = time.time()
        try:
            for inst in insts:
                inst.start(detach)
            for inst in insts:
                inst.wait_ready()
        except BaseException:
            self.stop()
            raise
        self.timings["servers_s"] = round(time.time() - t1, 2)
        self.timings["total_s"] = round(time.time() - t0, 2)
        return self

    def stop(self):
        """Stop every server by PID; idempotent."""
        for inst in list(self.responders.values()) + list(self.nsd.values()):
            inst.stop()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def query(self, server, qname, qtype="A", want_dnssec=True, tcp=False,
              timeout=2.0):
        """Ask a server of the net directly (RD=0, EDNS, DO by default)."""
        q = dns.message.make_query(qname, qtype, want_dnssec=want_dnssec,
                                   payload=1232)
        q.flags &= ~dns.flags.RD
        fn = dns.query.tcp if tcp else dns.query.udp
        return fn(q, self.address(server), port=self.port, timeout=timeout)


def nozone_dnskey(key):
    """key's DNSKEY as the nozoneflag zone publishes it: flags 1."""
    return key.dnskey.replace(flags=1)
