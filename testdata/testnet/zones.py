# SPDX-License-Identifier: BSD-3-Clause
"""The topology and zone data of the loopback test internet.

Everything a resolver meets is defined here, as plain data, so the tests
and a later differential run against real Unbound agree on one source of
truth: which server runs on which 127.x.y.z address, which zones it
serves (as zone-file text for NSD, or as records plus scripted
misbehaviour for the responder), and `CASES`, the answers a correct
recursive resolver must give.

Addresses are built from a prefix ("127.0.0" by default) and a host
number, so several test internets can run side by side on distinct
127.N.M.0/24 blocks, all on port 53 as real resolvers expect (root hints
and NS glue carry no port).

Invented TLDs only (tld1., tld2., tld3., and the root server name under
the special-use test.): nothing here resembles a real zone, and nothing
ever leaves 127.0.0.0/8.
"""
from dataclasses import dataclass, field

import dns.rcode
import dns.rdatatype

# Host numbers (last octet) of each server of the test internet.
ROOT = 2            # the root, a.root.test.
TLD1 = 3            # tld1. (primary)
TLD2 = 4            # tld2.
TLD3 = 5            # tld3., and second server of tld1.
EXAMPLE1 = 6        # example.tld1. (in-bailiwick NS with glue)
EXAMPLE2 = 7        # example.tld2. (NS ns.dns-host.tld3.: out of bailiwick)
DNSHOST = 8         # dns-host.tld3. (holds the address of example.tld2's NS)
SUB = 9             # sub.example.tld1. (a second level of delegation)
RESPONDER = 10      # bad.tld2.: the scripted misbehaving responder
DEAD = 11           # nothing listens here: dead.tld2. and deadref.bad.tld2.
BENCH = 12          # bench.tld1., only when a bench zone is asked for
NOEDNS = 13         # noedns.tld2.: a responder that FORMERRs every EDNS query

SOA_TIMERS = "1 3600 900 604800 300"   # negative TTL 300
BIG_TXT_STRINGS = 6                    # 6 x 250 bytes: > 1232, needs TCP
MANY_A = 100                           # 100 A records: > 1232 bytes too


def addr(prefix, host):
    """The IPv4 address of host number `host` in the /24 `prefix`."""
    return "%s.%d" % (prefix, host)


@dataclass
class Zone:
    """One zone: its origin and its records as zone-file lines (relative
    names allowed, $ORIGIN is the zone)."""
    origin: str
    lines: list = field(default_factory=list)

    def text(self):
        return "$ORIGIN %s\n$TTL 3600\n%s\n" % (self.origin,
                                                "\n".join(self.lines))


@dataclass
class NsdServer:
    """An NSD instance: a name (its directory), host number, zones."""
    name: str
    host: int
    zones: list


@dataclass
class ResponderServer:
    """A responder instance: its zone (origin and record lines, absolute
    names), per-name rules and per-instance default actions; see
    responder.py for the action vocabulary."""
    name: str
    host: int
    origin: str
    records: list
    rules: list = field(default_factory=list)
    default: list = field(default_factory=list)


@dataclass
class Case:
    """What a correct recursive resolver answers for (qname, qtype):
    the rcode and the answer section as a sorted list of
    "owner TYPE rdata" strings (TTLs left out: they decay in caches).
    `why` names the feature the case exercises."""
    qname: str
    qtype: str
    rcode: str
    answer: list
    why: str

    def mismatch(self, reply):
        """None when reply (a dns.message) gives this case's rcode and
        answer section, else a line saying what came instead."""
        got = (dns.rcode.to_text(reply.rcode()), answer_texts(reply))
        if got == (self.rcode, sorted(self.answer)):
            return None
        return "%s %s (%s): want %s %s, got %s %s" % (
            self.qname, self.qtype, self.why, self.rcode,
            sorted(self.answer), got[0], got[1])


def answer_texts(reply):
    """The answer section of a dns.message as sorted "owner TYPE rdata"
    strings, the form of Case.answer."""
    return sorted("%s %s %s" % (rr.name, dns.rdatatype.to_text(rr.rdtype),
                                rd.to_text())
                  for rr in reply.answer for rd in rr)


def soa(origin, ns):
    mbox = "hostmaster.root.test." if origin == "." else "hostmaster." + origin
    return "@ SOA %s %s %s" % (ns, mbox, SOA_TIMERS)


def big_txt_rdata():
    """A TXT rdata of BIG_TXT_STRINGS strings of 250 bytes each."""
    return " ".join('"%s"' % (chr(ord("a") + i) * 250)
                    for i in range(BIG_TXT_STRINGS))


def root_zone(p, bench):
    z = Zone(".", [soa(".", "a.root.test."),
                   "@ NS a.root.test.",
                   "a.root.test. A %s" % addr(p, ROOT),
                   # tld1. has two servers; the second also serves tld3.
                   "tld1. NS ns1.nic.tld1.",
                   "tld1. NS ns2.nic.tld1.",
                   "ns1.nic.tld1. A %s" % addr(p, TLD1),
                   "ns2.nic.tld1. A %s" % addr(p, TLD3),
                   "tld2. NS ns1.nic.tld2.",
                   "ns1.nic.tld2. A %s" % addr(p, TLD2),
                   "tld3. NS ns1.nic.tld3.",
                   "ns1.nic.tld3. A %s" % addr(p, TLD3)])
    return z


def tld1_zone(p, bench):
    z = Zone("tld1.", [soa("tld1.", "ns1.nic.tld1."),
                       "@ NS ns1.nic.tld1.",
                       "@ NS ns2.nic.tld1.",
                       "ns1.nic A %s" % addr(p, TLD1),
                       "ns2.nic A %s" % addr(p, TLD3),
                       # in-bailiwick delegation with glue
                       "example NS ns1.example.tld1.",
                       "example NS ns2.example.tld1.",
                       "ns1.example A %s" % addr(p, EXAMPLE1),
                       "ns2.example A %s" % addr(p, EXAMPLE1)])
    if bench:
        z.lines += ["bench NS ns.bench.tld1.",
                    "ns.bench A %s" % addr(p, BENCH)]
    return z


def tld2_zone(p, bench):
    return Zone("tld2.", [
        soa("tld2.", "ns1.nic.tld2."),
        "@ NS ns1.nic.tld2.",
        "ns1.nic A %s" % addr(p, TLD2),
        # out-of-bailiwick NS: its address lives in dns-host.tld3.
        "example NS ns.dns-host.tld3.",
        # the scripted responders
        "bad NS ns.bad.tld2.",
        "ns.bad A %s" % addr(p, RESPONDER),
        "noedns NS ns.noedns.tld2.",
        "ns.noedns A %s" % addr(p, NOEDNS),
        # a delegation to an address where nothing listens
        "dead NS ns.dead.tld2.",
        "ns.dead A %s" % addr(p, DEAD),
        # glueless NS dependency cycle: each zone's NS is in the other
        "cyc1 NS ns.cyc2.tld2.",
        "cyc2 NS ns.cyc1.tld2.",
    ])


def tld3_zone(p, bench):
    return Zone("tld3.", [soa("tld3.", "ns1.nic.tld3."),
                          "@ NS ns1.nic.tld3.",
                          "ns1.nic A %s" % addr(p, TLD3),
                          "dns-host NS ns1.dns-host.tld3.",
                          "ns1.dns-host A %s" % addr(p, DNSHOST)])


def example1_zone(p, bench):
    lines = [soa("example.tld1.", "ns1.example.tld1."),
             "@ NS ns1.example.tld1.",
             "@ NS ns2.example.tld1.",
             "ns1 A %s" % addr(p, EXAMPLE1),
             "ns2 A %s" % addr(p, EXAMPLE1),
             "@ A 192.0.2.1",
             "@ MX 10 mail.example.tld1.",
             "mail A 192.0.2.25",
             "mail AAAA 2001:db8::25",
             "www A 192.0.2.10",
             "www AAAA 2001:db8::10",
             'www TXT "v=test www"',
             'txtonly TXT "only a TXT here"',
             "big TXT " + big_txt_rdata(),
             "*.wild A 192.0.2.50",
             '*.wild TXT "wildcard"',
             # about 1 KB per name, for a cache bound to show in RSS
             # (test_recursion.py's small-cache test)
             "*.bigwild TXT " + " ".join('"%s"' % (c * 240)
                                         for c in "wxyz"),
             "exact.wild A 192.0.2.51",
             "a.ent A 192.0.2.52",             # ent.example.tld1: empty
             "chain CNAME chain2",
             "chain2 CNAME alias.example.tld2.",
             "cname-nx CNAME nothere.example.tld2.",
             "loop1 CNAME loop2",
             "loop2 CNAME loop1",
             "dname DNAME example.tld2.",
             "short-ttl 5 A 192.0.2.5",
             "sub NS ns.sub.example.tld1.",
             "ns.sub A %s" % addr(p, SUB)]
    lines += ["many A 192.0.2.%d" % (100 + i) for i in range(MANY_A)]
    return Zone("example.tld1.", lines)


def example2_zone(p, bench):
    return Zone("example.tld2.", [soa("example.tld2.", "ns.dns-host.tld3."),
                                  "@ NS ns.dns-host.tld3.",
                                  "www A 192.0.2.20",
                                  "alias CNAME www.dns-host.tld3.",
                                  "mx MX 10 mail.example.tld1."])


def dnshost_zone(p, bench):
    return Zone("dns-host.tld3.", [soa("dns-host.tld3.", "ns1.dns-host.tld3."),
                                   "@ NS ns1.dns-host.tld3.",
                                   "ns1 A %s" % addr(p, DNSHOST),
                                   "ns A %s" % addr(p, EXAMPLE2),
                                   "www A 192.0.2.80"])


def sub_zone(p, bench):
    return Zone("sub.example.tld1.", [
        soa("sub.example.tld1.", "ns.sub.example.tld1."),
        "@ NS ns.sub.example.tld1.",
        "ns A %s" % addr(p, SUB),
        "www A 192.0.2.90",
        "www AAAA 2001:db8::90"])


def bench_zone(names):
    """bench.tld1. with `names` names: per 10 names, 4 A, 2 AAAA, 2 TXT
    and 2 CNAME (to an A name of the same zone), so a benchmark sees a
    realistic mix. Returns (zone, list of (qname, qtype) to query)."""
    lines = [soa("bench.tld1.", "ns.bench.tld1."), "@ NS ns.bench.tld1.",
             "ns A BENCH_ADDR"]
    queries = []
    for i in range(names):
        k = i % 10
        name = "h%d" % i
        if k < 4:
            lines.append("%s A 10.%d.%d.%d" % (name, (i >> 16) & 255,
                                               (i >> 8) & 255, i & 255))
            queries.append((name + ".bench.tld1.", "A"))
        elif k < 6:
            lines.append("%s AAAA 2001:db8::%x" % (name, i))
            queries.append((name + ".bench.tld1.", "AAAA"))
        elif k < 8:
            lines.append('%s TXT "bench record %d"' % (name, i))
            queries.append((name + ".bench.tld1.", "TXT"))
        else:
            lines.append("%s CNAME h%d" % (name, i - k))
            queries.append((name + ".bench.tld1.", "A"))
    return Zone("bench.tld1.", lines), queries


def responder_servers(p):
    """The scripted responders. Each behaviour name also has an A record,
    the 'proper' answer it gives when the misbehaviour lets it."""
    origin = "bad.tld2."
    names = ["drop", "slow", "tc", "formerr", "wrongid", "wrongid-then-right",
             "wrongq", "poison", "servfail"]
    records = ["bad.tld2. 3600 IN SOA ns.bad.tld2. hostmaster.bad.tld2. " +
               SOA_TIMERS,
               "bad.tld2. 3600 IN NS ns.bad.tld2.",
               "ns.bad.tld2. 3600 IN A %s" % addr(p, RESPONDER),
               "www.bad.tld2. 300 IN A 192.0.2.100"]
    records += ["%s.bad.tld2. 300 IN A 192.0.2.%d" % (n, 101 + i)
                for i, n in enumerate(names)]
    records += ['tc.bad.tld2. 300 IN TXT "%s"' % ("t" * 200)]
    rules = [
        {"name": "drop.bad.tld2.", "actions": [{"type": "drop"}]},
        {"name": "slow.bad.tld2.", "actions": [{"type": "delay", "ms": 250}]},
        {"name": "tc.bad.tld2.", "actions": [{"type": "tc"}]},
        {"name": "formerr.bad.tld2.", "actions": [{"type": "formerr_edns"}]},
        {"name": "wrongid.bad.tld2.", "actions": [{"type": "wrong_id"}]},
        {"name": "wrongid-then-right.bad.tld2.",
         "actions": [{"type": "wrong_id", "then_correct": True}]},
        {"name": "wrongq.bad.tld2.", "actions": [{"type": "wrong_question"}]},
        {"name": "poison.bad.tld2.", "actions": [{
            "type": "poison",
            "records": ["www.example.tld1. 3600 IN A 192.0.2.66",
                        "ns1.example.tld1. 3600 IN A 192.0.2.66"]}]},
        {"name": "servfail.bad.tld2.",
         "actions": [{"type": "rcode", "rcode": "SERVFAIL"}]},
        # loop.bad.tld2. and below: a referral back to this same server
        {"name": "loop.bad.tld2.", "suffix": True, "actions": [{
            "type": "referral", "zone": "loop.bad.tld2.",
            "ns": ["ns.bad.tld2."],
            "glue": {"ns.bad.tld2.": [addr(p, RESPONDER)]}}]},
        # NXNS: a referral to 20 glueless NS names whose lookups come back
        # here (under victim.bad.tld2.), so the log counts them
        {"name": "nxns.bad.tld2.", "suffix": True, "actions": [{
            "type": "many_ns", "zone": "nxns.bad.tld2.", "count": 20,
            "ns_zone": "victim.bad.tld2."}]},
        # a referral to servers that never answer
        {"name": "deadref.bad.tld2.", "suffix": True, "actions": [{
            "type": "referral", "zone": "deadref.bad.tld2.",
            "ns": ["ns1.deadref.bad.tld2.", "ns2.deadref.bad.tld2."],
            "glue": {"ns1.deadref.bad.tld2.": [addr(p, DEAD)],
                     "ns2.deadref.bad.tld2.": [addr(p, DEAD)]}}]},
    ]
    bad = ResponderServer("bad", RESPONDER, origin, records, rules)
    noedns = ResponderServer(
        "noedns", NOEDNS, "noedns.tld2.",
        ["noedns.tld2. 3600 IN SOA ns.noedns.tld2. hostmaster.noedns.tld2. " +
         SOA_TIMERS,
         "noedns.tld2. 3600 IN NS ns.noedns.tld2.",
         "ns.noedns.tld2. 3600 IN A %s" % addr(p, NOEDNS),
         "www.noedns.tld2. 300 IN A 192.0.2.120"],
        default=[{"type": "formerr_edns"}])
    return [bad, noedns]


def nsd_servers(p, bench_names=0):
    """The NSD instances and their zones."""
    b = bench_names > 0
    servers = [
        NsdServer("root", ROOT, [root_zone(p, b)]),
        NsdServer("tld1", TLD1, [tld1_zone(p, b)]),
        NsdServer("tld2", TLD2, [tld2_zone(p, b)]),
        NsdServer("tld3", TLD3, [tld3_zone(p, b), tld1_zone(p, b)]),
        NsdServer("example1", EXAMPLE1, [example1_zone(p, b)]),
        NsdServer("example2", EXAMPLE2, [example2_zone(p, b)]),
        NsdServer("dnshost", DNSHOST, [dnshost_zone(p, b)]),
        NsdServer("sub", SUB, [sub_zone(p, b)]),
    ]
    if b:
        z, _ = bench_zone(bench_names)
        z.lines = [l.replace("BENCH_ADDR", addr(p, BENCH)) for l in z.lines]
        servers.append(NsdServer("bench", BENCH, [z]))
    return servers


def root_hints(p):
    """root.hints text: the loopback root server only."""
    return (".\t3600000\tIN\tNS\ta.root.test.\n"
            "a.root.test.\t3600000\tIN\tA\t%s\n" % addr(p, ROOT))


def cases():
    """What a correct recursive resolver answers (addresses in answers
    are documentation ranges, so cases do not depend on the prefix)."""
    big = "big.example.tld1. TXT " + big_txt_rdata()
    many = sorted("many.example.tld1. A " +
                  ("192.0.2.%d" % (100 + i)) for i in range(MANY_A))
    return [
        Case("www.example.tld1.", "A", "NOERROR",
             ["www.example.tld1. A 192.0.2.10"], "delegation with glue"),
        Case("www.example.tld1.", "AAAA", "NOERROR",
             ["www.example.tld1. AAAA 2001:db8::10"], "AAAA"),
        Case("www.example.tld1.", "TXT", "NOERROR",
             ['www.example.tld1. TXT "v=test www"'], "TXT"),
        Case("example.tld1.", "MX", "NOERROR",
             ["example.tld1. MX 10 mail.example.tld1."], "MX"),
        Case("txtonly.example.tld1.", "A", "NOERROR", [], "NODATA"),
        Case("ent.example.tld1.", "A", "NOERROR", [],
             "NODATA at an empty non-terminal"),
        Case("nonexistent.example.tld1.", "A", "NXDOMAIN", [], "NXDOMAIN"),
        Case("nonexistent.tld1.", "A", "NXDOMAIN", [], "NXDOMAIN in a TLD"),
        Case("nonexistent-tld.", "A", "NXDOMAIN", [],
             "NXDOMAIN from the root"),
        Case("foo.wild.example.tld1.", "A", "NOERROR",
             ["foo.wild.example.tld1. A 192.0.2.50"], "wildcard"),
        Case("a.b.wild.example.tld1.", "TXT", "NOERROR",
             ['a.b.wild.example.tld1. TXT "wildcard"'], "deep wildcard"),
        Case("foo.wild.example.tld1.", "AAAA", "NOERROR", [],
             "wildcard NODATA"),
        Case("exact.wild.example.tld1.", "A", "NOERROR",
             ["exact.wild.example.tld1. A 192.0.2.51"],
             "existing name under a wildcard"),
        Case("www.example.tld2.", "A", "NOERROR",
             ["www.example.tld2. A 192.0.2.20"],
             "out-of-bailiwick NS (address in dns-host.tld3.)"),
        Case("chain.example.tld1.", "A", "NOERROR",
             ["alias.example.tld2. CNAME www.dns-host.tld3.",
              "chain.example.tld1. CNAME chain2.example.tld1.",
              "chain2.example.tld1. CNAME alias.example.tld2.",
              "www.dns-host.tld3. A 192.0.2.80"],
             "CNAME chain across three zones"),
        Case("cname-nx.example.tld1.", "A", "NXDOMAIN",
             ["cname-nx.example.tld1. CNAME nothere.example.tld2."],
             "CNAME to a name that does not exist"),
        Case("www.dname.example.tld1.", "A", "NOERROR",
             ["dname.example.tld1. DNAME example.tld2.",
              "www.dname.example.tld1. CNAME www.example.tld2.",
              "www.example.tld2. A 192.0.2.20"], "DNAME"),
        Case("www.sub.example.tld1.", "A", "NOERROR",
             ["www.sub.example.tld1. A 192.0.2.90"],
             "second level delegation"),
        Case("mx.example.tld2.", "MX", "NOERROR",
             ["mx.example.tld2. MX 10 mail.example.tld1."], "MX"),
        Case("big.example.tld1.", "TXT", "NOERROR", [big],
             "large answer: needs TCP"),
        Case("many.example.tld1.", "A", "NOERROR", many,
             "100 A records: needs TCP"),
        Case("www.bad.tld2.", "A", "NOERROR",
             ["www.bad.tld2. A 192.0.2.100"], "responder, normal answer"),
        Case("tc.bad.tld2.", "A", "NOERROR",
             ["tc.bad.tld2. A 192.0.2.103"], "TC=1 over UDP, then TCP"),
        Case("slow.bad.tld2.", "A", "NOERROR",
             ["slow.bad.tld2. A 192.0.2.102"], "late answer"),
        Case("www.noedns.tld2.", "A", "NOERROR",
             ["www.noedns.tld2. A 192.0.2.120"],
             "FORMERR to EDNS, answers without"),
    ]
