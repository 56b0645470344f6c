# SPDX-License-Identifier: BSD-3-Clause
"""What a validating resolver answers for every question of the signed
test internet (signed_zones.py), with DO and without, CD and without.

A case gives the reply's rcode, its security ("secure", "insecure",
"bogus") and its answer and authority sections as the RRsets a DO=1
query gets: "owner TYPE" strings, "owner RRSIG TYPE" for the signatures
over owner/TYPE. The four views follow from that (`SCase.expect`):
  - bogus and CD=0: SERVFAIL, nothing in any section;
  - otherwise the rcode, AD = DO and secure (no query here sets AD);
    bogus with CD=1 gives the data as it came, AD=0;
  - DO=0: no RRSIG, and no NSEC/NSEC3 unless asked for (RFC 4035 3.2.1).
Authority sections assume minimal-responses: yes (no NS in positive
answers). NSEC/NSEC3 owners are written as what they prove, resolved
against the signed zone at run time (the hashes change with the salt):
  {match:NAME@ZONE}  the NSEC/NSEC3 of ZONE whose owner is (hashes) NAME
  {cover:NAME@ZONE}  the one whose interval covers NAME (its hash).
The expectations are the RFCs' (4033-4035, 5155, 6672, 6840, 8624,
9276); where Debian's Unbound 1.17 is the reference for a choice the
RFCs leave open, `why` says so.
"""
import base64
from dataclasses import dataclass, field

import dns.dnssec
import dns.flags
import dns.name
import dns.rcode
import dns.rdatatype

from . import breakage
from .signed_zones import ALGORITHMS, alg_label

# base32 to base32hex (RFC 4648), lowercase as NSEC3 owners are written
B32HEX = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
                       "0123456789abcdefghijklmnopqrstuv")


@dataclass
class SCase:
    qname: str
    qtype: str
    rcode: str                  # the rcode of the data (CD=1 for bogus)
    status: str                 # secure / insecure / bogus
    answer: list = field(default_factory=list)
    authority: list = field(default_factory=list)
    why: str = ""

    @property
    def id(self):
        return "%s/%s" % (self.qname, self.qtype)

    def expect(self, do, cd):
        """(rcode, AD, answer, authority) for a query with DO/CD; the
        sections as sorted lists of unresolved entries."""
        if self.status == "bogus" and not cd:
            return "SERVFAIL", False, [], []
        ad = bool(do) and self.status == "secure"

        def view(entries):
            if do:
                return sorted(entries)
            keep = {self.qtype}
            return sorted(e for e in entries
                          if " RRSIG " not in e and
                          (e.split()[1] not in ("NSEC", "NSEC3") or
                           e.split()[1] in keep))
        return self.rcode, ad, view(self.answer), view(self.authority)


# -- building blocks -----------------------------------------------------------

def sig(*rrsets):
    """RRsets with their RRSIG."""
    out = []
    for rr in rrsets:
        owner, typ = rr.split()
        out += [rr, "%s RRSIG %s" % (owner, typ)]
    return out


def soa(zone):
    return sig(zone + " SOA")


def nsec(kind, name, zone):
    return sig("{%s:%s@%s} NSEC" % (kind, name, zone))


def nsec3(kind, name, zone):
    return sig("{%s:%s@%s} NSEC3" % (kind, name, zone))


def next_closer(qname, ce):
    """The name one label longer than the closest encloser ce."""
    labels = qname.split(".")
    n = len(ce.strip(".").split(".")) if ce != "." else 0
    return ".".join(labels[-(n + 2):])


def nx_nsec(qname, zone, ce=None):
    """NXDOMAIN by NSEC: qname covered, no wildcard at the closest
    encloser (RFC 4035 3.1.3.2)."""
    ce = ce or zone
    return soa(zone) + nsec("cover", qname, zone) + \
        nsec("cover", "*." + ce if ce != "." else "*.", zone)


def nx_nsec3(qname, zone, ce=None):
    """NXDOMAIN by NSEC3: closest encloser proof and no wildcard
    (RFC 5155 7.2.2)."""
    ce = ce or zone
    return soa(zone) + nsec3("match", ce, zone) + \
        nsec3("cover", next_closer(qname, ce), zone) + \
        nsec3("cover", "*." + ce, zone)


def case(qname, qtype, rcode, status, answer=(), authority=(), why=""):
    return SCase(qname, qtype, rcode, status, list(answer), list(authority),
                 why)


def secure_a(qname, why):
    return case(qname, "A", "NOERROR", "secure", sig(qname + " A"), [], why)


def bogus_a(qname, why, rrsigs=True):
    """Bogus www A: SERVFAIL; with CD=1 the A (and its RRSIGs)."""
    ans = sig(qname + " A") if rrsigs else [qname + " A"]
    return case(qname, "A", "NOERROR", "bogus", ans, [], why)


# -- the cases -----------------------------------------------------------------

def cases():
    out = [
        case(".", "DNSKEY", "NOERROR", "secure", sig(". DNSKEY"), [],
             "root KSK (the trust anchor's DS) and ZSK"),
        case("sec1.", "SOA", "NOERROR", "secure", sig("sec1. SOA"), [],
             "signed TLD"),
        secure_a("www.sec1.", "RSASHA256 TLD, chain from the anchor"),
        case("nx.sec1.", "A", "NXDOMAIN", "secure", [],
             nx_nsec("nx.sec1.", "sec1."), "NXDOMAIN by NSEC in a TLD"),
        case("nx-tld.", "A", "NXDOMAIN", "secure", [],
             nx_nsec("nx-tld.", "."), "NXDOMAIN by NSEC from the root"),
        case("insec.", "DS", "NOERROR", "secure", [],
             soa(".") + nsec("match", "insec.", "."),
             "no DS for insec.: the root's NSEC proves it"),
        case("www.insec.", "A", "NOERROR", "insecure", ["www.insec. A"], [],
             "unsigned TLD: insecure"),
        case("sec2.", "DS", "NOERROR", "secure", sig("sec2. DS"), [],
             "DS from the root"),
        secure_a("www.sec2.", "NSEC3 opt-out TLD, positive answer"),
        case("nx.sec2.", "A", "NXDOMAIN", "insecure", [],
             soa("sec2.") + nsec3("match", "sec2.", "sec2.") +
             nsec3("cover", "nx.sec2.", "sec2.") +
             nsec3("cover", "*.sec2.", "sec2."),
             "NXDOMAIN whose next closer name is covered by an opt-out "
             "NSEC3: an unsigned delegation could exist there, so the "
             "proof is insecure, not secure (RFC 5155 9.2; Unbound 1.17)"),
        secure_a("www.ok.sec2.", "signed child of an opt-out TLD"),
        secure_a("www.flaky.sec1.", "two servers, both serve www intact"),
        secure_a("www.child.ent.entnx.sec1.", "the parent says NXDOMAIN "
                 "to the DS question of the empty non-terminal above the "
                 "signed child, with the NSEC proof of a NODATA: no zone "
                 "cut there, the chain goes on (Unbound's "
                 "ds_response_to_ke)"),
        secure_a("www.child.ent.entnx3.sec1.", "the same in an NSEC3 "
                 "zone: the empty non-terminal's own NSEC3 (no NS)"),
        secure_a("www.sgn.nsdrop.sec1.", "the parent's server never "
                 "answers the child's DS question: the signed DS set of "
                 "the referral has to do"),
        secure_a("www.sgn.n3drop.sec1.", "the same below an NSEC3 parent"),
        case("unsigned.sec2.", "DS", "NOERROR", "insecure", [],
             soa("sec2.") + nsec3("match", "sec2.", "sec2.") +
             nsec3("cover", "unsigned.sec2.", "sec2."),
             "no DS proven by an opt-out NSEC3 covering the delegation: "
             "insecure (RFC 5155 8.6, 9.2)"),
        case("www.unsigned.sec2.", "A", "NOERROR", "insecure",
             ["www.unsigned.sec2. A"], [],
             "insecure delegation proven by NSEC3 opt-out"),
        case("unsigned.sec1.", "DS", "NOERROR", "secure", [],
             soa("sec1.") + nsec("match", "unsigned.sec1.", "sec1."),
             "no DS: NSEC at the delegation has NS, no DS"),
        case("www.unsigned.sec1.", "A", "NOERROR", "insecure",
             ["www.unsigned.sec1. A"], [],
             "insecure delegation proven by NSEC"),
    ]
    for alg in ALGORITHMS:
        zone = alg_label(alg) + ".sec1."
        out.append(secure_a("www." + zone, alg))
        nx = nx_nsec3 if "NSEC3" in alg else nx_nsec
        out.append(case("nx." + zone, "A", "NXDOMAIN", "secure", [],
                        nx("nx." + zone, zone), alg + " NXDOMAIN"))
    out += [
        case("ed448.sec1.", "DNSKEY", "NOERROR", "secure",
             sig("ed448.sec1. DNSKEY"), [], "ED448 DNSKEY"),
        case("txt.rsasha1.sec1.", "TXT", "NOERROR", "secure",
             sig("txt.rsasha1.sec1. TXT"), [], "RSASHA1 TXT"),
    ]
    out += example_cases() + example3_cases() + iter500_cases() + \
        broken_cases()
    return out


def example_cases():
    z = "example.sec1."
    return [
        secure_a("www." + z, "NSEC zone"),
        case("www." + z, "AAAA", "NOERROR", "secure", sig("www.%s AAAA" % z),
             [], "AAAA"),
        case("txtonly." + z, "A", "NOERROR", "secure", [],
             soa(z) + nsec("match", "txtonly." + z, z),
             "NODATA: the name's NSEC lacks A"),
        case("nx." + z, "A", "NXDOMAIN", "secure", [], nx_nsec("nx." + z, z),
             "NXDOMAIN: name and wildcard covered"),
        case("ent." + z, "A", "NOERROR", "secure", [],
             soa(z) + nsec("cover", "ent." + z, z),
             "empty non-terminal: NSEC covers it, next name is below it"),
        case("foo.wild." + z, "A", "NOERROR", "secure",
             sig("foo.wild.%s A" % z), nsec("cover", "foo.wild." + z, z),
             "wildcard expansion: RRSIG labels < owner's, NSEC proves no "
             "closer match"),
        case("a.b.wild." + z, "TXT", "NOERROR", "secure",
             sig("a.b.wild.%s TXT" % z), nsec("cover", "a.b.wild." + z, z),
             "wildcard two labels down"),
        case("foo.wild." + z, "AAAA", "NOERROR", "secure", [],
             soa(z) + nsec("cover", "foo.wild." + z, z) +
             nsec("match", "*.wild." + z, z), "wildcard NODATA"),
        secure_a("exact.wild." + z, "existing name beside a wildcard"),
        case("long." + z, "A", "NOERROR", "secure",
             sig(*(["long.%s CNAME" % z] + ["l%d.%s CNAME" % (i, z)
                                             for i in range(1, 10)] +
                   ["l10.%s A" % z])), [],
             "11 signed RRsets: a validator with KeyTrap bounds suspends "
             "after 8 checks and resumes: secure"),
        case("chain." + z, "A", "NOERROR", "secure",
             sig("chain.%s CNAME" % z, "to-secure.%s CNAME" % z,
                 "www.ed25519.sec1. A"), [],
             "CNAME chain into another secure zone"),
        case("to-insecure." + z, "A", "NOERROR", "insecure",
             sig("to-insecure.%s CNAME" % z) + ["www.unsigned.sec1. A"], [],
             "secure CNAME to an insecure zone: the answer is insecure"),
        case("to-insecure-tld." + z, "A", "NOERROR", "insecure",
             sig("to-insecure-tld.%s CNAME" % z) + ["www.insec. A"], [],
             "secure CNAME into an unsigned TLD"),
        case("to-bogus." + z, "A", "NOERROR", "bogus",
             sig("to-bogus.%s CNAME" % z, "www.badsig.sec1. A"), [],
             "secure CNAME to a bogus RRset: SERVFAIL"),
        case("www.dname." + z, "A", "NOERROR", "secure",
             sig("dname.%s DNAME" % z) + ["www.dname.%s CNAME" % z] +
             sig("www.example3.sec1. A"), [],
             "DNAME to an NSEC3 zone: the synthesized CNAME is unsigned "
             "(RFC 6672 5.3.1), validated from the DNAME"),
        case("www.dname-insecure." + z, "A", "NOERROR", "insecure",
             sig("dname-insecure.%s DNAME" % z) +
             ["www.dname-insecure.%s CNAME" % z, "www.unsigned.sec2. A"], [],
             "secure DNAME into an opt-out insecure delegation"),
    ]


def example3_cases():
    z = "example3.sec1."
    return [
        secure_a("www." + z, "NSEC3 zone, no opt-out"),
        case("nx." + z, "A", "NXDOMAIN", "secure", [],
             nx_nsec3("nx." + z, z), "NSEC3 NXDOMAIN: closest encloser "
             "proof and no wildcard"),
        case("txtonly." + z, "A", "NOERROR", "secure", [],
             soa(z) + nsec3("match", "txtonly." + z, z), "NSEC3 NODATA"),
        case("ent." + z, "A", "NOERROR", "secure", [],
             soa(z) + nsec3("match", "ent." + z, z),
             "empty non-terminal: it has its own NSEC3 (RFC 5155 7.1)"),
        case("foo.wild." + z, "A", "NOERROR", "secure",
             sig("foo.wild.%s A" % z),
             nsec3("cover", "foo.wild." + z, z),
             "NSEC3 wildcard: the next closer name is covered"),
        case("foo.wild." + z, "AAAA", "NOERROR", "secure", [],
             soa(z) + nsec3("match", "wild." + z, z) +
             nsec3("cover", "foo.wild." + z, z) +
             nsec3("match", "*.wild." + z, z), "NSEC3 wildcard NODATA"),
        case("back." + z, "A", "NOERROR", "secure",
             sig("back.%s CNAME" % z, "www.example.sec1. A"), [],
             "CNAME from an NSEC3 zone to an NSEC zone"),
        case("a.b.cdn." + z, "A", "NOERROR", "secure",
             sig("a.b.cdn.%s CNAME" % z, "www.example.sec1. A"),
             nsec3("cover", "b.cdn." + z, z),
             "wildcard CNAME two labels up, into another signed zone: "
             "the NSEC3 covering the next closer name (b.cdn) proves the "
             "exact name absent, kept in the answer (as Unbound's "
             "prepended authority)"),
    ]


def iter500_cases():
    z = "iter500.sec1."
    why = ("500 NSEC3 iterations, above Unbound 1.17's limit of 150 for "
           "every key size (val-nsec3-keysize-iterations; RFC 9276 3.2 "
           "lets a validator treat such a zone as insecure): ")
    return [
        secure_a("www." + z, why + "a positive answer needs no NSEC3, "
                 "secure"),
        case("nx." + z, "A", "NXDOMAIN", "insecure", [],
             nx_nsec3("nx." + z, z), why + "NXDOMAIN insecure"),
        case("foo.wild." + z, "A", "NOERROR", "insecure",
             sig("foo.wild.%s A" % z), nsec3("cover", "foo.wild." + z, z),
             why + "a wildcard answer needs the NSEC3, insecure"),
    ]


def broken_cases():
    out = []
    for defect, why in [
            ("expired", "RRSIGs expired: bogus"),
            ("notyet", "RRSIGs not yet valid: bogus"),
            ("badsig", "signature bytes altered: bogus"),
            ("badkeytag", "RRSIG key tag matches no DNSKEY: bogus"),
            ("dsmismatch", "DS digest mismatch: bogus"),
            ("dsmissingkey", "DS of a key not in the DNSKEY set: bogus"),
            ("nozoneflag", "DNSKEY without the zone flag must not verify "
             "(RFC 4034 2.1.1): bogus"),
            ("keytrap", "KeyTrap: colliding key tags, many bad RRSIGs: "
             "bogus, answered quickly")]:
        out.append(bogus_a("www.%s.sec1." % defect, why))
    out += [
        secure_a("ok.badsig.sec1.", "the other RRsets of the zone are fine"),
        secure_a("ok.badkeytag.sec1.", "the other RRsets are fine"),
        bogus_a("ok.dsmismatch.sec1.", "the whole zone is bogus"),
        case("keytrap.sec1.", "DNSKEY", "NOERROR", "bogus",
             sig("keytrap.sec1. DNSKEY"), [],
             "the real KSK (which the DS names and whose RRSIG is valid) "
             "is served after 20 keys with its key tag: by the RFCs it is "
             "secure, but Debian's Unbound 1.17.1 (deb12u4, KeyTrap fix "
             "for CVE-2023-50387) gives up after MAX_DS_MATCH_FAILURES (4) "
             "digest mismatches and calls it bogus"),
        case("www.unsupported.sec1.", "A", "NOERROR", "insecure",
             sig("www.unsupported.sec1. A"), [],
             "signed only with RSAMD5, which Unbound 1.17 does not "
             "validate (RFC 8624 3.1 MUST NOT): insecure (RFC 4035 5.2)"),
        case("unsupported.sec1.", "DS", "NOERROR", "secure",
             sig("unsupported.sec1. DS"), [],
             "the DS itself is signed by sec1.: secure"),
        bogus_a("www.stripped.sec1.", "RRSIGs stripped on the way: bogus",
                rrsigs=False),
        secure_a("www.nonsec.sec1.", "positive answers need no NSEC"),
        case("nx.nonsec.sec1.", "A", "NXDOMAIN", "bogus", [],
             soa("nonsec.sec1."), "NXDOMAIN without its NSEC proof: bogus"),
    ]
    return out


# -- resolving {match:..} / {cover:..} against the signed zones ----------------

class Chain:
    """The NSEC or NSEC3 chain of one signed zone's text."""

    def __init__(self, origin, text):
        self.origin = dns.name.from_text(origin)
        self.nsec = []          # (owner, next) Names
        self.nsec3 = []         # (owner hash label, next hash), lowercase
        self.params = None
        for line in text.splitlines():
            rec = breakage.parse_line(line)
            if rec is None:
                continue
            owner, _, typ, rd = rec
            if typ == "NSEC":
                self.nsec.append((dns.name.from_text(owner), rd.next))
            elif typ == "NSEC3":
                label = owner.split(".", 1)[0].lower()
                nxt = base64.b32encode(rd.next).decode().translate(B32HEX)
                self.nsec3.append((label, nxt))
                self.params = (rd.salt, rd.iterations)

    def hash(self, name):
        salt, iterations = self.params
        return dns.dnssec.nsec3_hash(name, salt.hex() if salt else None,
                                     iterations, 1).lower()

    def owner(self, kind, name):
        """The owner name of the record that matches/covers name."""
        if self.nsec3:
            h = self.hash(name)
            for label, nxt in self.nsec3:
                if (kind == "match" and label == h) or (
                        kind == "cover" and between(label, h, nxt,
                                                    nxt <= label)):
                    return "%s.%s" % (label, self.origin)
        else:
            n = dns.name.from_text(name)
            for owner, nxt in self.nsec:
                if (kind == "match" and owner == n) or (
                        kind == "cover" and between(owner, n, nxt,
                                                    nxt == self.origin)):
                    return owner.to_text()
        raise KeyError("no NSEC/NSEC3 in %s %ses %s" % (self.origin, kind,
                                                        name))


def between(low, x, high, wraps):
    """x lies in the interval low..high of a chain; the last record's
    interval wraps around to the start."""
    if wraps:
        return x > low or x < high
    return low < x < high


def resolve(entries, chains):
    """entries with {kind:NAME@ZONE} replaced by owner names, lowercase,
    each once (one NSEC3 may prove two things, the reply has it once)."""
    out = []
    for e in entries:
        if e.startswith("{"):
            ref, rest = e[1:].split("}", 1)
            kind, target = ref.split(":", 1)
            name, zone = target.rsplit("@", 1)
            e = chains[zone].owner(kind, name) + rest
        out.append(e.lower())
    return sorted(set(out))


# -- comparing a reply with a case ---------------------------------------------

def entries(section):
    """A message section as sorted "owner TYPE" / "owner RRSIG TYPE"."""
    out = []
    for rr in section:
        typ = dns.rdatatype.to_text(rr.rdtype)
        if rr.rdtype == dns.rdatatype.RRSIG:
            typ += " " + dns.rdatatype.to_text(rr.covers)
        out.append(("%s %s" % (rr.name, typ)).lower())
    return sorted(out)


def summary(reply):
    """(rcode, AD, answer, authority) of a reply, as expect() gives."""
    return (dns.rcode.to_text(reply.rcode()), bool(reply.flags & dns.flags.AD),
            entries(reply.answer), entries(reply.authority))


def mismatch(c, reply, do, cd, chains):
    """None when reply is what case c expects for DO/CD, else a line
    saying what differs."""
    rcode, ad, ans, auth = c.expect(do, cd)
    want = (rcode, ad, resolve(ans, chains), resolve(auth, chains))
    got = summary(reply)
    if got == want:
        return None
    names = ("rcode", "AD", "answer", "authority")
    diff = ["%s: want %s, got %s" % (n, w, g)
            for n, w, g in zip(names, want, got) if w != g]
    return "%s %s DO=%d CD=%d (%s): %s" % (c.qname, c.qtype, do, cd,
                                            c.why, "; ".join(diff))
