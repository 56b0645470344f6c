# SPDX-License-Identifier: BSD-3-Clause
"""The topology and zone data of the signed test internet (DNSSEC).

A signed root with its own trust anchor, signed TLDs sec1. (NSEC) and
sec2. (NSEC3 opt-out), an unsigned TLD insec., and children: one per
signing algorithm, NSEC and NSEC3 zones with wildcards, CNAME/DNAME
chains and an empty non-terminal, insecure delegations, and one broken
child per validation failure (`defect`, applied by signed_net.py with
breakage.py). Expected answers are in signed_cases.py.

Addresses: prefix.host, host numbers below; every zone's NS is
ns.<zone> with glue, so delegations follow from the zone list.
"""
from dataclasses import dataclass, field

ROOT = 2        # "."
TLDS = 3        # sec1., sec2., insec.
CHILDREN = 4    # the correctly signed children
BROKEN = 5      # the children broken in their zone data or DS
UNSIGNED = 6    # unsigned.sec1., unsigned.sec2. (insecure delegations)
MITM = 7        # responder: stripped.sec1. and nonsec.sec1., proxied
HIDDEN = 8      # NSD with the real stripped/nonsec zones, only MITM asks it
HOSTS = range(2, 9)

SOA_TIMERS = "1 3600 900 604800 300"

ALGORITHMS = ["RSASHA1", "RSASHA1-NSEC3-SHA1", "RSASHA256", "RSASHA512",
              "ECDSAP256SHA256", "ECDSAP384SHA384", "ED25519", "ED448"]
# RFC 5155: algorithm 7 is the alias of RSASHA1 for NSEC3 zones
NSEC3_ALGORITHMS = {"RSASHA1-NSEC3-SHA1"}

KEYTRAP_KEYS = 20       # DNSKEYs sharing the real key's tag
KEYTRAP_SIGS = 20       # bad RRSIGs over www.keytrap.sec1. A


@dataclass
class SZone:
    """One zone of the signed net. algorithm None: unsigned. nsec3:
    None for NSEC, else signer.sign's dict. split_keys: KSK + ZSK (else
    one key, flags 257, signs all). ds: the parent publishes a DS.
    defect: how it is broken (see DEFECTS). host: where its delegation
    points; hidden: the NSD that really serves it when host is MITM."""
    origin: str
    host: int
    lines: list = field(default_factory=list)
    algorithm: str = "ECDSAP256SHA256"
    nsec3: dict = None
    split_keys: bool = False
    ds: bool = True
    defect: str = None
    hidden: int = None
    # more name servers, "ns2.<origin>" on: each host here (the zone is
    # served there too; MITM: through the responder's rules)
    extra_hosts: list = field(default_factory=list)
    # the parent zone when it is more than one label up (an empty
    # non-terminal between)
    cut_parent: str = None

    @property
    def parent(self):
        if self.origin == ".":
            return None
        if self.cut_parent:
            return self.cut_parent
        rest = self.origin.split(".", 1)[1]
        return rest or "."

    @property
    def signed(self):
        return self.algorithm is not None

    @property
    def ns(self):
        return "a.root.test." if self.origin == "." else "ns." + self.origin

    @property
    def ns_hosts(self):
        """(NS name, host) for each of its name servers."""
        out = [(self.ns, self.host)]
        for i, h in enumerate(self.extra_hosts):
            out.append(("ns%d.%s" % (i + 2, self.origin), h))
        return out


# defect -> what is wrong (for README and test ids)
DEFECTS = {
    "expired": "every RRSIG expired a day ago",
    "notyet": "every RRSIG's inception is 10 days ahead",
    "badsig": "www A: RRSIG signature bytes flipped",
    "badkeytag": "www A: RRSIG names a key tag no DNSKEY has",
    "dsmismatch": "the parent's DS digest does not match the DNSKEY",
    "dsmissingkey": "the parent's DS is of a key the zone does not publish",
    "nozoneflag": "the DNSKEY has flags 1 (SEP, no zone bit); every "
                  "signature made by it is otherwise valid",
    "keytrap": "%d DNSKEYs sharing the KSK's key tag, served before the "
               "KSK; www A has %d RRSIGs with that tag, none valid" % (
                   KEYTRAP_KEYS, KEYTRAP_SIGS),
    "stripped": "the MITM responder drops every RRSIG",
    "nonsec": "the MITM responder drops every NSEC/NSEC3 (and its RRSIG)",
}


def alg_label(alg):
    return alg.lower().replace("-sha1", "")


def zones():
    """Every zone of the signed net, parents before children."""
    z = [
        SZone(".", ROOT, ["a.root.test. A {ROOT}"], "RSASHA256",
              split_keys=True),
        SZone("sec1.", TLDS, ["www A 192.0.2.1"], "RSASHA256"),
        # the wildcard is in an opt-out span: answers from it are
        # insecure (RFC 5155 9.2; test_validator_answers.py)
        SZone("sec2.", TLDS, ["www A 192.0.2.2", "*.wild A 192.0.2.3"],
              nsec3={"iterations": 1, "salt": "cafe", "optout": True}),
        SZone("insec.", TLDS, ["www A 192.0.2.9"], None, ds=False),
    ]
    for i, alg in enumerate(ALGORITHMS):
        z.append(SZone(
            alg_label(alg) + ".sec1.", CHILDREN,
            ["www A 192.0.2.%d" % (11 + i), 'txt TXT "%s"' % alg], alg,
            nsec3={"iterations": 0} if alg in NSEC3_ALGORITHMS else None))
    z += [
        SZone("example.sec1.", CHILDREN, [
            "@ A 192.0.2.100",
            "www A 192.0.2.101",
            "www AAAA 2001:db8::101",
            'txtonly TXT "only a TXT here"',
            "*.wild A 192.0.2.150",
            '*.wild TXT "wildcard"',
            "exact.wild A 192.0.2.151",
            "a.ent A 192.0.2.152",
            "chain CNAME to-secure",
            # eleven signed RRsets in one answer: more signature checks
            # than one message may make before it is suspended (8)
            "long CNAME l1", "l1 CNAME l2", "l2 CNAME l3", "l3 CNAME l4",
            "l4 CNAME l5", "l5 CNAME l6", "l6 CNAME l7", "l7 CNAME l8",
            "l8 CNAME l9", "l9 CNAME l10", "l10 A 192.0.2.110",
            "to-secure CNAME www.ed25519.sec1.",
            "to-insecure CNAME www.unsigned.sec1.",
            "to-insecure-tld CNAME www.insec.",
            "to-bogus CNAME www.badsig.sec1.",
            "dname DNAME example3.sec1.",
            "dname-insecure DNAME unsigned.sec2."]),
        SZone("example3.sec1.", CHILDREN, [
            "@ A 192.0.2.103",
            "www A 192.0.2.131",
            'txtonly TXT "only a TXT here"',
            "*.wild A 192.0.2.153",
            "a.ent A 192.0.2.154",
            "back CNAME www.example.sec1.",
            # a wildcard CNAME into another signed zone, answering names
            # two labels below it: the NSEC3 proof that the exact name
            # does not exist must travel with the chain
            "*.cdn CNAME www.example.sec1.",
            # through dname.example.sec1.'s DNAME twice: the DNAME
            # once in the answer (test_validator_answers.py)
            "d1 CNAME d2.dname.example.sec1.",
            "d2 A 192.0.2.132"],
            "RSASHA256", nsec3={"iterations": 0}),
        SZone("iter500.sec1.", CHILDREN, [
            "www A 192.0.2.140",
            "*.wild A 192.0.2.141"],
            nsec3={"iterations": 500, "salt": "ab"}),
        SZone("ok.sec2.", CHILDREN, ["www A 192.0.2.142"], "ED25519"),
        # NSEC3 without opt-out (ECDSAP256) above an insecure delegation,
        # whose referral's NSEC3 proves the child has no DS (the
        # aggressive cache's DS proof, neg_nsec3.h); the same below
        # iter500 (too many iterations: not used)
        SZone("n3.sec1.", CHILDREN, ["www A 192.0.2.145"],
              nsec3={"iterations": 0}),
        SZone("child.n3.sec1.", UNSIGNED, ["www A 192.0.2.162"], None,
              ds=False),
        SZone("child.iter500.sec1.", UNSIGNED, ["www A 192.0.2.163"], None,
              ds=False),
        # two servers: the hidden NSD and the MITM, which strips the
        # RRSIGs of names under w.flaky.sec1. (val-max-restart: a bogus
        # answer is asked again of the other server)
        SZone("flaky.sec1.", HIDDEN, ["www A 192.0.2.143",
                                      "*.w A 192.0.2.144"],
              "ED25519", extra_hosts=[MITM]),
        # two servers: the hidden NSD, and the MITM, which strips every
        # RRSIG of the zone: DNSSEC-lame (disable-dnssec-lame-check,
        # test_dnssec_lame.py)
        SZone("lame.sec1.", HIDDEN, ["www A 192.0.2.158",
                                     "*.w A 192.0.2.159"],
              "ED25519", extra_hosts=[MITM]),
        # two servers again: the MITM strips the RRSIGs of the DNSKEY
        # answer (val-max-restart for the chain of trust: the key is
        # asked again of the other server before it is called bad)
        SZone("keyretry.sec1.", HIDDEN, ["www A 192.0.2.155"],
              "ED25519", extra_hosts=[MITM]),
        # behind the MITM, which says NXDOMAIN (signed, the NODATA's
        # proof) to the DS question of the empty non-terminal
        # ent.<zone> above the signed child.ent.<zone>: the proof shows
        # an empty non-terminal, the chain of trust goes on below it
        SZone("entnx.sec1.", MITM, ["www A 192.0.2.146"], hidden=HIDDEN),
        SZone("child.ent.entnx.sec1.", CHILDREN, ["www A 192.0.2.147"],
              cut_parent="entnx.sec1."),
        SZone("entnx3.sec1.", MITM, ["www A 192.0.2.148"], hidden=HIDDEN,
              nsec3={"iterations": 0}),
        SZone("child.ent.entnx3.sec1.", CHILDREN, ["www A 192.0.2.149"],
              cut_parent="entnx3.sec1."),
        # behind the MITM, which never answers the DS question of the
        # unsigned child: the referral's signed proof that there is no
        # DS (NSEC3, NSEC) has to do
        SZone("n3drop.sec1.", MITM, ["www A 192.0.2.156"], hidden=HIDDEN,
              nsec3={"iterations": 0}),
        SZone("child.n3drop.sec1.", UNSIGNED, ["www A 192.0.2.164"], None,
              ds=False),
        SZone("nsdrop.sec1.", MITM, ["www A 192.0.2.157"], hidden=HIDDEN),
        SZone("child.nsdrop.sec1.", UNSIGNED, ["www A 192.0.2.165"], None,
              ds=False),
        # signed children of both: the referral carries the signed DS
        # set, which has to do when the DS question goes unanswered
        SZone("sgn.n3drop.sec1.", CHILDREN, ["www A 192.0.2.166"]),
        SZone("sgn.nsdrop.sec1.", CHILDREN, ["www A 192.0.2.167"]),
        SZone("unsigned.sec1.", UNSIGNED, ["www A 192.0.2.160"], None,
              ds=False),
        SZone("unsigned.sec2.", UNSIGNED, ["www A 192.0.2.161"], None,
              ds=False),
        # reverse names for dns64's PTR (test_dns64.py): an unsigned
        # arpa. with the PTR of 192.0.2.1 (www.sec1., IPv4 only) and an
        # RFC 2317 CNAME for 192.0.2.160
        SZone("arpa.", UNSIGNED, [
            "1.2.0.192.in-addr PTR www.sec1.",
            "160.2.0.192.in-addr CNAME 160.128/25.2.0.192.in-addr",
            "160.128/25.2.0.192.in-addr PTR www.unsigned.sec1."], None,
              ds=False),
        # signed only with RSAMD5, which Unbound 1.17 does not validate
        # (RFC 8624: MUST NOT): the DS has no usable algorithm, insecure
        SZone("unsupported.sec1.", BROKEN, ["www A 192.0.2.170"], "RSAMD5"),
    ]
    for i, defect in enumerate(DEFECTS):
        lines = ["www A 192.0.2.%d" % (180 + i),
                 "ok A 192.0.2.%d" % (200 + i)]
        alg = "ED25519" if defect == "nozoneflag" else "ECDSAP256SHA256"
        if defect in ("stripped", "nonsec"):
            z.append(SZone(defect + ".sec1.", MITM, lines, alg,
                           defect=defect, hidden=HIDDEN))
        else:
            z.append(SZone(defect + ".sec1.", BROKEN, lines, alg,
                           defect=defect))
    return z


def servers():
    """NSD instance name -> host number (MITM is the responder)."""
    return {"root": ROOT, "tlds": TLDS, "children": CHILDREN,
            "broken": BROKEN, "unsigned": UNSIGNED, "hidden": HIDDEN}


def mitm_rules(prefix, port):
    """The MITM responder's rules: proxy to HIDDEN, strip what the
    defect says."""
    up = {"address": "%s.%d" % (prefix, HIDDEN), "port": port}
    return [
        {"name": "stripped.sec1.", "suffix": True,
         "actions": [dict(up, type="proxy", strip=["RRSIG"])]},
        {"name": "nonsec.sec1.", "suffix": True,
         "actions": [dict(up, type="proxy", strip=["NSEC", "NSEC3"])]},
        {"name": "lame.sec1.", "suffix": True,
         "actions": [dict(up, type="proxy", strip=["RRSIG"])]},
        {"name": "w.flaky.sec1.", "suffix": True,
         "actions": [dict(up, type="proxy", strip=["RRSIG"])]},
        {"name": "flaky.sec1.", "suffix": True,
         "actions": [dict(up, type="proxy")]},
        {"name": "child.n3drop.sec1.", "qtype": "DS",
         "actions": [{"type": "drop"}]},
        {"name": "sgn.n3drop.sec1.", "qtype": "DS",
         "actions": [{"type": "drop"}]},
        {"name": "sgn.nsdrop.sec1.", "qtype": "DS",
         "actions": [{"type": "drop"}]},
        {"name": "n3drop.sec1.", "suffix": True,
         "actions": [dict(up, type="proxy")]},
        {"name": "child.nsdrop.sec1.", "qtype": "DS",
         "actions": [{"type": "drop"}]},
        {"name": "nsdrop.sec1.", "suffix": True,
         "actions": [dict(up, type="proxy")]},
        {"name": "keyretry.sec1.", "qtype": "DNSKEY",
         "actions": [dict(up, type="proxy", strip=["RRSIG"])]},
        {"name": "keyretry.sec1.", "suffix": True,
         "actions": [dict(up, type="proxy")]},
        {"name": "ent.entnx.sec1.", "qtype": "DS",
         "actions": [dict(up, type="proxy", rcode="NXDOMAIN")]},
        {"name": "entnx.sec1.", "suffix": True,
         "actions": [dict(up, type="proxy")]},
        {"name": "ent.entnx3.sec1.", "qtype": "DS",
         "actions": [dict(up, type="proxy", rcode="NXDOMAIN")]},
        {"name": "entnx3.sec1.", "suffix": True,
         "actions": [dict(up, type="proxy")]},
    ]


def soa_line(zone):
    mbox = "hostmaster.root.test." if zone.origin == "." else \
        "hostmaster." + zone.origin
    return "%s 3600 IN SOA %s %s %s" % (zone.origin, zone.ns, mbox,
                                        SOA_TIMERS)
