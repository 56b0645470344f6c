# SPDX-License-Identifier: BSD-3-Clause
"""Signing zones at test time with the real tools: ldns-keygen for keys,
ldns-signzone for the signed zone (NSEC or NSEC3), dnspython only for DS
digests and key tags (arithmetic, no signing).

Keys are made fresh for every run (nothing secret or stale is kept in
the tree); small RSA sizes keep key generation quick.
"""
import os
import subprocess
import time

import dns.dnssec
import dns.name
import dns.rdata
import dns.rdataclass
import dns.rdatatype

KEYGEN = os.environ.get("TESTNET_LDNS_KEYGEN", "/usr/bin/ldns-keygen")
SIGNZONE = os.environ.get("TESTNET_LDNS_SIGNZONE", "/usr/bin/ldns-signzone")

# RSA key sizes: the smallest each algorithm's users accept, for speed.
RSA_BITS = {"RSAMD5": 1024, "RSASHA1": 1024, "RSASHA1-NSEC3-SHA1": 1024,
            "RSASHA256": 1024, "RSASHA512": 1024}
DAY = 86400


def have_ldns():
    return os.access(KEYGEN, os.X_OK) and os.access(SIGNZONE, os.X_OK)


def run(args, cwd):
    """Run a tool; a failure raises with its output."""
    p = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s failed (%d): %s%s" % (
            " ".join(args), p.returncode, p.stdout, p.stderr))
    return p.stdout


class Key:
    """A key made by ldns-keygen: `base` is the path without .key or
    .private (what ldns-signzone takes)."""

    def __init__(self, base, origin):
        self.base = base
        self.origin = origin
        with open(base + ".key") as f:
            line = next(l for l in f if "DNSKEY" in l and
                        not l.lstrip().startswith(";"))
        self.rdata_text = line.split("DNSKEY", 1)[1].split(";")[0].strip()

    @property
    def dnskey(self):
        return dns.rdata.from_text(dns.rdataclass.IN, dns.rdatatype.DNSKEY,
                                   self.rdata_text)

    @property
    def keytag(self):
        return dns.dnssec.key_id(self.dnskey)

    @property
    def algorithm(self):
        return int(self.dnskey.algorithm)

    def dnskey_line(self):
        return "%s 3600 IN DNSKEY %s" % (self.origin, self.rdata_text)

    def ds_line(self, digest="SHA256"):
        """The DS record for this key, as the parent publishes it."""
        ds = dns.dnssec.make_ds(dns.name.from_text(self.origin), self.dnskey,
                                digest)
        return "%s 3600 IN DS %s" % (self.origin, ds.to_text())


def keygen(workdir, origin, algorithm, ksk=True, bits=None):
    """A new key for origin (KSK: flags 257, else 256) in workdir."""
    os.makedirs(workdir, exist_ok=True)
    args = [KEYGEN, "-a", algorithm]
    bits = bits or RSA_BITS.get(algorithm)
    if bits:
        args += ["-b", str(bits)]
    if ksk:
        args.append("-k")
    base = run(args + [origin], workdir).strip().splitlines()[-1]
    return Key(os.path.join(workdir, base), origin)


def stamp(t):
    return time.strftime("%Y%m%d%H%M%S", time.gmtime(t))


def sign(zone_text, origin, keys, workdir, nsec3=None, inception=None,
         expiration=None):
    """The signed zone text of zone_text (which should not hold the keys'
    DNSKEYs: ldns-signzone adds them from the .key files). nsec3: None
    for NSEC, else {"iterations": N, "salt": hex or "", "optout": bool}.
    inception/expiration: Unix times (default: an hour ago, 30 days on),
    so that clocks a little apart do not matter."""
    os.makedirs(workdir, exist_ok=True)
    name = "root" if origin == "." else origin.rstrip(".")
    src = os.path.join(workdir, name + ".unsigned")
    out = os.path.join(workdir, name + ".signed")
    with open(src, "w") as f:
        f.write(zone_text)
    now = time.time()
    inception = now - 3600 if inception is None else inception
    expiration = now + 30 * DAY if expiration is None else expiration
    args = [SIGNZONE, "-f", out, "-o", origin, "-i", stamp(inception),
            "-e", stamp(expiration)]
    if nsec3 is not None:
        args += ["-n", "-a", "1", "-t", str(nsec3.get("iterations", 0))]
        if nsec3.get("salt"):
            args += ["-s", nsec3["salt"]]
        if nsec3.get("optout"):
            args.append("-p")
    run(args + [src] + [k.base for k in keys], workdir)
    with open(out) as f:
        return f.read()
