# SPDX-License-Identifier: BSD-3-Clause
"""Differential test of DNSSEC validation: this daemon and Debian's
Unbound 1.17 (/usr/sbin/unbound), started here with the same
unbound.conf options (module-config "validator iterator", the signed
test internet's trust anchor and root hints; only port and paths
differ), asked every question of the signed test internet
(testdata/testnet/signed_cases.py) with DO and without, CD and without.

Compared per question and DO/CD: the rcode; the header flags QR, AA,
TC, RD, RA, AD, CD; the EDE option (code and text; both run with
ede: yes); and the answer, authority and additional sections, each as a
set of RRsets with their rdata (owner, type, the set of rdata texts; an
RRSIG RRset by the type it covers, its signatures compared byte for
byte), TTLs within the seconds that passed since both started (the two
caches fetched the same RRset from the same servers, at most that far
apart). Beyond agreeing with the reference, ours must give the expected
answer of the case (test_signednet.py proves the reference gives it),
so two equal wrong answers do not pass. Deliberate differences of a
whole case are listed in DIFFERENCES, differences in one part of the
reply in PART_DIFFERENCES, each with the reason; a listed difference
that no longer shows fails the test too, so the lists stay true.

Needs nsd, ldnsutils, Debian's unbound and root (port 53); skips
otherwise. Every config names only the signed net's loopback root.
"""
import time

import dns.edns
import dns.exception
import dns.flags
import dns.message
import dns.rcode
import dns.rdatatype
import pytest

from conftest import SLOW
from signednet_pair import (SKIP_MARKS, running_pair,  # noqa: F401
                            signednet_net)
from testnet import signed_cases

pytestmark = SKIP_MARKS

# The options both resolvers get, besides the harness's port, paths and
# the signed net's root hints.
BODY = """module-config: "validator iterator"
trust-anchor-file: "%s"
val-log-level: 2
do-ip6: no
access-control: 127.0.0.0/8 allow
minimal-responses: yes
ede: yes"""

COMBOS = [(0, 0), (1, 0), (0, 1), (1, 1)]      # (DO, CD), in asking order

# Deliberate differences, by case id: (reason, may agree, what ours must
# answer instead). "may agree": ours may also give the reference's answer
# (a limit both may share).
DIFFERENCES = {
    "keytrap.sec1./DNSKEY": (
        "the DS names the 21st of 21 keys with one key tag, and the DNSKEY "
        "RRset's RRSIG by it is valid: secure by RFC 4035. Unbound 1.17.1 "
        "stops after 4 DS digest mismatches (its KeyTrap limit) and says "
        "bogus; ours may spend its own bounded work differently (digest "
        "checks are cheap, only signature checks are KeyTrap's cost) and "
        "reach the key", True,
        signed_cases.case("keytrap.sec1.", "DNSKEY", "NOERROR", "secure",
                          signed_cases.sig("keytrap.sec1. DNSKEY"), [],
                          "secure by the RFCs")),
}


# Differences in one part of the reply: (case id, part) -> (the DO/CD
# views where it may show, why). A part is "flags", "EDE" (the code),
# "EDE text", "answer", "authority", "additional" or "ttl". The part may
# differ only in those views, must differ in at least one of them, and
# nothing else may differ.
CD1 = ("DO=0 CD=1", "DO=1 CD=1")
BOGUS_TTL_CD = (
    "CD=1 gets bogus data with its TTL capped at val-bogus-ttl (60): ours "
    "answers CD=1 from the entry validation marked bogus; Unbound 1.17 "
    "keeps CD=1 answers apart, unvalidated, with the data's own TTL "
    "(a difference to settle, not deliberate)")
WILDCARD_TTL_CD = (
    "CD=1 gets the secure wildcard expansion with TTL 300 (ours, as the "
    "CD=0 answer) where Unbound 1.17's unvalidated CD=1 entry keeps the "
    "record's 3600 (a difference to settle, not deliberate)")
CACHED_BOGUS_EDE = (
    "asked again (DO=1 after DO=0), ours validates anew and gives the "
    "reason text (doc/compat.md: bogus answers are validated anew); "
    "Unbound 1.17 answers from its cache of bogus messages, EDE 6 with "
    "no text")
CACHED_BOGUS_EDE_CODE = (
    "as the text: ours keeps the code of the failure (9, DNSKEY missing), "
    "Unbound's cached bogus message says 6 (DNSSEC bogus)")
PART_DIFFERENCES = {}
for _cid in ("to-bogus.example.sec1./A", "www.expired.sec1./A",
             "www.notyet.sec1./A", "www.dsmismatch.sec1./A",
             "www.dsmissingkey.sec1./A", "www.nozoneflag.sec1./A",
             "www.keytrap.sec1./A", "ok.dsmismatch.sec1./A",
             "www.stripped.sec1./A", "nx.nonsec.sec1./A"):
    PART_DIFFERENCES[(_cid, "ttl")] = (CD1, BOGUS_TTL_CD)
for _cid in ("foo.wild.example.sec1./A", "a.b.wild.example.sec1./TXT"):
    PART_DIFFERENCES[(_cid, "ttl")] = (CD1, WILDCARD_TTL_CD)
for _cid in ("to-bogus.example.sec1./A", "www.expired.sec1./A",
             "www.notyet.sec1./A", "www.badsig.sec1./A",
             "www.badkeytag.sec1./A", "www.dsmismatch.sec1./A",
             "www.dsmissingkey.sec1./A", "www.nozoneflag.sec1./A",
             "ok.dsmismatch.sec1./A", "www.stripped.sec1./A"):
    PART_DIFFERENCES[(_cid, "EDE text")] = (("DO=1 CD=0",),
                                            CACHED_BOGUS_EDE)
PART_DIFFERENCES[("www.badkeytag.sec1./A", "EDE")] = (
    ("DO=1 CD=0",), CACHED_BOGUS_EDE_CODE)
PART_DIFFERENCES[("www.keytrap.sec1./A", "EDE text")] = (
    ("DO=0 CD=0", "DO=1 CD=0"),
    "first asking: ours names the DS digest mismatch, Unbound gives no "
    "reason (its KeyTrap limit stops before one is set; as in "
    "test_validator_options.py TEXT_DIFFERENCES); then as "
    "CACHED_BOGUS_EDE")
PART_DIFFERENCES[("www.keytrap.sec1./A", "answer")] = (
    ("DO=1 CD=1",),
    "the 20 RRSIGs over the A RRset: ours keeps 8 of them, as Unbound "
    "1.26's iter-scrub-rrsig (default 8) does; Debian's Unbound 1.17 has "
    "no such limit and passes all 20 to a CD=1 client")
PART_DIFFERENCES[("nx.nonsec.sec1./A", "EDE text")] = (
    ("DO=0 CD=0", "DO=1 CD=0"),
    "first asking: Unbound looks up the DS of the name when the NSEC "
    "records are missing and blames that lookup, ours names the missing "
    "denial (as in test_validator_options.py); then as CACHED_BOGUS_EDE")
# keytrap.sec1./DNSKEY: only while ours agrees with Unbound's bogus (a
# "may agree" in DIFFERENCES)
PART_DIFFERENCES[("keytrap.sec1./DNSKEY", "ttl")] = (CD1, BOGUS_TTL_CD)
PART_DIFFERENCES[("keytrap.sec1./DNSKEY", "EDE text")] = (
    ("DO=0 CD=0", "DO=1 CD=0"), "as www.keytrap.sec1./A")
PART_DIFFERENCES[("keytrap.sec1./DNSKEY", "EDE")] = (
    ("DO=1 CD=0",), "as CACHED_BOGUS_EDE_CODE: ours 9, Unbound's cached "
    "bogus message 6")
PART_DIFFERENCES[("nx.nonsec.sec1./A", "EDE")] = (
    ("DO=1 CD=0",), "as CACHED_BOGUS_EDE_CODE: ours 12 (NSEC missing), "
    "Unbound's cached bogus message 6")

FLAGS = [("QR", dns.flags.QR), ("AA", dns.flags.AA), ("TC", dns.flags.TC),
         ("RD", dns.flags.RD), ("RA", dns.flags.RA), ("AD", dns.flags.AD),
         ("CD", dns.flags.CD)]


class Pair(tuple):
    """(ours, reference); .started: the clock before either started,
    which bounds how far apart their caches fetched an RRset."""
    started = 0.0


@pytest.fixture(scope="module")
def pair(signednet_net, tmp_path_factory):
    """(ours, reference), both validating through the signed net."""
    started = time.time()
    with running_pair(signednet_net, tmp_path_factory,
                      BODY % signednet_net.anchor) as both:
        p = Pair(both)
        p.started = started
        yield p


def ask(srv, qname, qtype, do, cd):
    """The reply over UDP (EDNS 1232), again over TCP when truncated;
    None when no reply comes."""
    q = dns.message.make_query(qname, qtype, use_edns=0, payload=1232,
                               want_dnssec=bool(do))
    if cd:
        q.flags |= dns.flags.CD
    try:
        r = srv.query(q, timeout=10.0 * SLOW)
        if r.flags & dns.flags.TC:
            r = srv.query(q, tcp=True, timeout=10.0 * SLOW)
    except dns.exception.Timeout:
        return None
    return r


# Questions (case ids) both must drop: no reply from either is right
# only for these; id -> why. Otherwise no reply is a failure.
MUST_DROP = {}


def flags_of(r):
    return sorted(n for n, f in FLAGS if r.flags & f)


def ede_of(r):
    """[(code, text)] of the reply's EDE options."""
    return sorted((int(o.code), o.text or "") for o in r.options
                  if o.otype == dns.edns.EDE)


def rrsets(section):
    """{(owner, type): (ttl, sorted rdata texts)}; an RRSIG RRset keyed
    by "RRSIG <covered type>". Owners lowercased (no 0x20 here, but the
    question's case is echoed)."""
    out = {}
    for rr in section:
        typ = dns.rdatatype.to_text(rr.rdtype)
        if rr.rdtype == dns.rdatatype.RRSIG:
            typ += " " + dns.rdatatype.to_text(rr.covers)
        out[(rr.name.to_text().lower(), typ)] = (
            rr.ttl, sorted(rd.to_text() for rd in rr))
    return out


def differences(a, b, may_drop=False, slack=0):
    """What differs between two replies (a ours, b reference), as
    [(part, text)]; TTLs may differ by slack seconds. Two missing
    replies agree only when may_drop (listed in MUST_DROP)."""
    if a is None or b is None:
        if a is None and b is None:
            return [] if may_drop else [("reply", "none from either")]
        return [("reply", "ours %s, reference %s" % (
            "none" if a is None else "one", "none" if b is None else "one"))]
    out = []

    def cmp(part, x, y):
        if x != y:
            out.append((part, "ours %s, reference %s" % (x, y)))
    cmp("rcode", dns.rcode.to_text(a.rcode()), dns.rcode.to_text(b.rcode()))
    cmp("flags", flags_of(a), flags_of(b))
    ea, eb = ede_of(a), ede_of(b)
    cmp("EDE", [c for c, _ in ea], [c for c, _ in eb])
    cmp("EDE text", [t for _, t in ea], [t for _, t in eb])
    for part in ("answer", "authority", "additional"):
        sa, sb = (rrsets(getattr(r, part)) for r in (a, b))
        da = {k: v[1] for k, v in sa.items()}
        db = {k: v[1] for k, v in sb.items()}
        if da != db:
            # only the RRsets that differ, each side's
            out.append((part, "ours %s, reference %s" % (
                sorted((k, v) for k, v in da.items() if db.get(k) != v),
                sorted((k, v) for k, v in db.items() if da.get(k) != v))))
            continue
        for k in sa:
            if abs(sa[k][0] - sb[k][0]) > slack:
                out.append(("ttl", "%s %s: ours %d, reference %d (slack "
                            "%d s)" % (part, k, sa[k][0], sb[k][0], slack)))
    return out


CASES = signed_cases.cases()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_same_validation_as_unbound(pair, signednet_net, case):
    ours, ref = pair
    chains = signednet_net.chains()
    listed = DIFFERENCES.get(case.id)
    parts = {part: v for (cid, part), v in PART_DIFFERENCES.items()
             if cid == case.id}
    shown = set()
    agreed = True       # ours validated as the reference in every view
    problems = []
    for do, cd in COMBOS:
        view = "DO=%d CD=%d" % (do, cd)
        a = ask(ours, case.qname, case.qtype, do, cd)
        b = ask(ref, case.qname, case.qtype, do, cd)
        # +1: whole seconds on both sides
        slack = int(time.time() - pair.started) + 1
        diff = differences(a, b, case.id in MUST_DROP, slack)
        shown |= {p for p, _ in diff if p in parts and view in parts[p][0]}
        diff = ["%s: %s" % d for d in diff
                if d[0] not in parts or view not in parts[d[0]][0]]
        if case.id in MUST_DROP and a is not None:
            problems.append("%s: must be dropped (%s)" %
                            (view, MUST_DROP[case.id]))
        same_validation = a is not None and b is not None and \
            signed_cases.summary(a) == signed_cases.summary(b)
        agreed = agreed and same_validation
        if listed is None or (listed[1] and same_validation):
            # unlisted, or a listed case where ours agrees with the
            # reference ("may agree"): all the rest must agree too
            if diff:
                problems.append("%s: %s" % (view, diff))
            if listed is None and a is not None:
                # both what the case expects (expect() looks at rcode,
                # AD and the owners and types, equal in both)
                m = signed_cases.mismatch(case, a, do, cd, chains)
                if m:
                    problems.append("ours wrong: " + m)
        elif not diff:
            problems.append("%s: listed difference (%s) does not show" %
                            (view, listed[0]))
        else:
            m = signed_cases.mismatch(listed[2], a, do, cd, chains) \
                if a is not None else "no reply"
            if m:
                problems.append("listed difference, but ours is not the "
                                "answer named there: %s" % m)
    # (a case listed in DIFFERENCES shows its parts only while it agrees)
    for part in sorted(set(parts) - shown if listed is None or agreed
                       else ()):
        problems.append("listed %s difference in %s (%s) does not show" %
                        (part, "/".join(parts[part][0]), parts[part][1]))
    assert not problems, "%s (%s):\n%s" % (case.id, case.why,
                                           "\n".join(problems))


def test_rrsigs_exactly_with_do(pair):
    """Ours: a secure answer carries RRSIGs with DO=1 and none with
    DO=0, CD or not."""
    ours, _ = pair
    for do, cd in COMBOS:
        r = ask(ours, "www.example.sec1.", "A", do, cd)
        assert r is not None
        sigs = [rr for rr in r.answer if rr.rdtype == 46]
        assert bool(sigs) == bool(do), (do, cd, r)
        assert bool(r.flags & dns.flags.AD) == bool(do), (do, cd, r)
