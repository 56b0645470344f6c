# SPDX-License-Identifier: BSD-3-Clause
"""Breaking a correctly signed zone on purpose, by editing the text
ldns-signzone wrote: one defect per function, each touching only the
records it names, so a validator that misses that one check accepts
what it should not.

The signed text is one record per line ("owner TTL IN TYPE rdata");
records are parsed and re-printed with dnspython.
"""
import base64
import random
import time

import dns.dnssec
import dns.name
import dns.rdata
import dns.rdataclass
import dns.rdatatype
import dns.rdtypes.ANY.DNSKEY
import dns.rrset
import dns.zone

RRSIG = dns.rdatatype.RRSIG


def parse_line(line):
    """(owner, ttl, type, rdata) of a record line, None for others."""
    s = line.split(";{", 1)[0].strip()    # ldns's ";{id = ...}" comments
    if not s or s.startswith("$") or s.startswith(";"):
        return None
    owner, ttl, cls, typ, rest = s.split(None, 4)
    rd = dns.rdata.from_text(dns.rdataclass.IN, typ, rest)
    return owner, int(ttl), typ, rd


def line_of(owner, ttl, rd):
    return "%s\t%d\tIN\t%s\t%s" % (owner, ttl,
                                   dns.rdatatype.to_text(rd.rdtype),
                                   rd.to_text())


def edit_rrsigs(text, owner, covered, change):
    """Apply change(rrsig rdata) -> rdata (or a list of them) to the
    RRSIGs of owner over type covered. Raises when there is none, so a
    zone cannot silently stay correct."""
    want = dns.name.from_text(owner)
    out, hits = [], 0
    for line in text.splitlines():
        rec = parse_line(line)
        if rec and rec[2] == "RRSIG" and \
                dns.name.from_text(rec[0]) == want and \
                rec[3].type_covered == dns.rdatatype.from_text(covered):
            hits += 1
            new = change(rec[3])
            for rd in (new if isinstance(new, list) else [new]):
                out.append(line_of(rec[0], rec[1], rd))
            continue
        out.append(line)
    if not hits:
        raise ValueError("no RRSIG %s over %s" % (owner, covered))
    return "\n".join(out) + "\n"


def corrupt_signature(text, owner, covered):
    """Flip bits in the middle of the signature bytes."""
    def flip(rd):
        sig = bytearray(rd.signature)
        sig[len(sig) // 2] ^= 0x5A
        return rd.replace(signature=bytes(sig))
    return edit_rrsigs(text, owner, covered, flip)


def change_keytag(text, owner, covered):
    """The RRSIG names a key tag no DNSKEY of the zone has."""
    return edit_rrsigs(text, owner, covered,
                       lambda rd: rd.replace(key_tag=(rd.key_tag + 1) & 0xFFFF))


def flip_ds_digest(ds_line):
    """A DS line whose digest no longer matches the key."""
    owner, ttl, _, rd = parse_line(ds_line)
    dig = bytearray(rd.digest)
    dig[0] ^= 0xFF
    return line_of(owner, ttl, rd.replace(digest=bytes(dig)))


# -- KeyTrap-style: colliding key tags, many signatures --------------------

def _keytag_sum(wire):
    """RFC 4034 appendix B's key tag of DNSKEY rdata wire (not RSAMD5)."""
    total = sum((wire[i] << 8) + (wire[i + 1] if i + 1 < len(wire) else 0)
                for i in range(0, len(wire), 2))
    return (total + ((total >> 16) & 0xFFFF)) & 0xFFFF


def colliding_dnskeys(key, count, seed=4711):
    """count DNSKEY rdatas with key's flags, algorithm, key length and key
    tag, but random key bytes (they verify nothing). The last 16-bit
    word of the rdata is solved for: the tag is a folded sum of words."""
    rnd = random.Random(seed)
    real = key.dnskey
    head = real.to_wire()[:4]
    if (4 + len(real.key)) % 2:
        raise ValueError("odd DNSKEY length: choose another algorithm")
    out = []
    while len(out) < count:
        body = bytearray(rnd.getrandbits(8) for _ in range(len(real.key)))
        rest = _keytag_sum(head + bytes(body[:-2]))
        for carry in range(4):
            w = (key.keytag - rest - carry) & 0xFFFF
            body[-2:] = w.to_bytes(2, "big")
            if _keytag_sum(head + bytes(body)) == key.keytag:
                break
        cand = real.replace(key=bytes(body))
        if dns.dnssec.key_id(cand) == key.keytag and cand.key != real.key \
                and cand not in out:
            out.append(cand)
    return out


def move_last(text, owner, typ, rdata):
    """The zone text with the record owner/typ/rdata moved to the end
    (ldns-signzone sorts an RRset's records; NSD serves them in file
    order, so this fixes where a validator meets that record)."""
    want = dns.name.from_text(owner)
    keep, moved = [], []
    for line in text.splitlines():
        rec = parse_line(line)
        if rec and rec[2] == typ and dns.name.from_text(rec[0]) == want \
                and rec[3] == rdata:
            moved.append(line_of(rec[0], rec[1], rec[3]))
        else:
            keep.append(line)
    if len(moved) != 1:
        raise ValueError("%s %s %s: %d records" % (owner, typ, rdata,
                                                   len(moved)))
    return "\n".join(keep + moved) + "\n"


def many_bad_rrsigs(text, owner, covered, count, seed=4712):
    """Replace the RRSIGs of owner/covered by count signatures with the
    same key tag and random bytes (none verifies)."""
    rnd = random.Random(seed)

    def multiply(rd):
        return [rd.replace(signature=bytes(rnd.getrandbits(8) for _ in
                                           range(len(rd.signature))))
                for _ in range(count)]
    return edit_rrsigs(text, owner, covered, multiply)


# -- a DNSKEY without the zone flag, every signature otherwise valid -------

class _SignAnything(dns.dnssec.Policy):
    """dnspython's default policy refuses to sign with some keys; here
    the point is a signature a careless validator would accept."""

    def ok_to_sign(self, _):
        return True


def load_private(key):
    """The cryptography private key of an ldns-keygen key (EdDSA and
    ECDSA only: the raw private value is all the .private file holds).
    Imported here: only the nozoneflag zone needs python3-cryptography."""
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, ed448
    fields = {}
    with open(key.base + ".private") as f:
        for line in f:
            if ":" in line:
                k, v = line.split(":", 1)
                fields[k.strip()] = v.strip()
    raw = base64.b64decode(fields["PrivateKey"])
    alg = key.algorithm
    if alg == 15:
        return ed25519.Ed25519PrivateKey.from_private_bytes(raw)
    if alg == 16:
        return ed448.Ed448PrivateKey.from_private_bytes(raw)
    curve = {13: ec.SECP256R1(), 14: ec.SECP384R1()}[alg]
    return ec.derive_private_key(int.from_bytes(raw, "big"), curve)


def resign_with_flags(text, origin, key, flags):
    """The zone text with key's DNSKEY given `flags` and every RRSIG made
    again (with dnspython, ldns-signzone refuses a key without the zone
    flag) by that DNSKEY: signatures that verify, from a key that must
    not be used. Returns (text, new DNSKEY rdata)."""
    zone = dns.zone.from_text(text, origin, relativize=False,
                              check_origin=False)
    priv = load_private(key)
    newkey = key.dnskey.replace(flags=flags)
    apex = zone.origin
    apex_keys = zone.find_rdataset(apex, dns.rdatatype.DNSKEY)
    ttl = apex_keys.ttl
    apex_keys.clear()
    apex_keys.add(newkey, ttl)
    now = int(time.time())
    out = []
    for name, node in zone.nodes.items():
        node.rdatasets = [rds for rds in node.rdatasets
                          if rds.rdtype != RRSIG]
        for rds in list(node.rdatasets):
            for rd in rds:
                out.append(line_of(name.to_text(), rds.ttl, rd))
            if rds.rdtype == dns.rdatatype.NS and name != apex:
                continue        # a delegation: not signed by this zone
            sig = dns.dnssec.sign((name, rds), priv, apex, newkey,
                                  inception=now - 3600,
                                  expiration=now + 30 * 86400,
                                  policy=_SignAnything())
            out.append(line_of(name.to_text(), rds.ttl, sig))
    return "\n".join(out) + "\n", newkey

