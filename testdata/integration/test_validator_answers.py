# SPDX-License-Identifier: BSD-3-Clause
"""Answers where resolvers disagree, on the signed test internet: each
question asked of this daemon and of Debian's Unbound 1.17
(/usr/sbin/unbound) with the same options; each must give the answer
the RFCs call for (and, where Unbound 1.17 gets it right, the same).

- qtype RRSIG (RFC 4035 3.1.5, 5): the RRSIG records, NOERROR, no AD
  (nothing signs signatures), also without DO; a negative answer is
  validated as any other.
- the root key sentinel labels (RFC 8509 3) act on A and AAAA only: a
  TXT question under one is an ordinary question.
- an answer that rests on an opt-out NSEC3 span (RFC 5155 9.2): a
  wildcard answer or wildcard NODATA whose next closer name is covered
  by an opt-out NSEC3 is insecure, no AD (sec2.'s *.wild).
- each RRset once in a section (RFC 2181 5): a chain through the same
  DNAME twice has it, and its RRSIG, once.
- a wildcard CNAME in an NSEC3 zone, two or more labels above the
  name, into another signed zone: the NSEC3 proof that the exact name
  does not exist stays with the answer (secure; with CD=1 the client
  gets the proof).

Needs nsd, ldnsutils, Debian's unbound and root (port 53); skips
otherwise. Each question is a few milliseconds; the two resolvers are
started once for the module.
"""
import os
import sys

import dns.flags
import dns.query
import dns.message
import dns.rcode
import dns.rdatatype
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from testnet import have_nsd  # noqa: E402
from testnet.fixture import signednet_net  # noqa: E402,F401
from conftest import (DEB_UNBOUND, REFERENCE, SLOW, RefServer, Server,  # noqa: E402
                      _finish)


pytestmark = [
    pytest.mark.skipif(not have_nsd(), reason="nsd is not installed"),
    pytest.mark.skipif(not os.access(DEB_UNBOUND, os.X_OK),
                       reason="Debian's unbound is not installed"),
    pytest.mark.skipif(REFERENCE, reason="compares this build with "
                       "the reference; UNBOUND_BIN is the reference"),
]

BODY = """module-config: "validator iterator"
trust-anchor-file: "%s"
val-log-level: 2
do-ip6: no
access-control: 127.0.0.0/8 allow
minimal-responses: yes"""


@pytest.fixture(scope="module", params=["ours", "unbound"])
def resolver(request, signednet_net, tmp_path_factory):
    """This daemon, then Debian's Unbound, validating through the
    signed net."""
    cls = Server if request.param == "ours" else RefServer
    srv = cls(tmp_path_factory.mktemp(request.param))
    srv.kind = request.param
    try:
        srv.start(BODY % signednet_net.anchor,
                  root_hints=signednet_net.root_hints)
        yield srv
    finally:
        _finish(srv)


def ask(srv, qname, qtype="A", do=True, cd=False):
    q = dns.message.make_query(qname, qtype, use_edns=0, payload=1232,
                               want_dnssec=do)
    if cd:
        q.flags |= dns.flags.CD
    r = srv.query(q, timeout=10.0 * SLOW)
    if r.flags & dns.flags.TC:
        r = srv.query(q, tcp=True, timeout=10.0 * SLOW)
    return r


def rcode(r):
    return dns.rcode.to_text(r.rcode())


def ad(r):
    return bool(r.flags & dns.flags.AD)


def rrsets(section):
    """Owner and type of each RRset, an RRSIG as RRSIG(covered)."""
    out = []
    for rr in section:
        t = dns.rdatatype.to_text(rr.rdtype)
        if rr.rdtype == dns.rdatatype.RRSIG:
            t += "(%s)" % dns.rdatatype.to_text(rr.covers)
        out.append("%s %s" % (rr.name.to_text().lower(), t))
    return sorted(out)


# -- qtype RRSIG ---------------------------------------------------------

@pytest.mark.parametrize("do", [True, False], ids=["do", "nodo"])
def test_rrsig_question_gets_the_rrsigs(resolver, do):
    """www.example.sec1. has A, AAAA and NSEC, each signed: the answer
    is their three RRSIGs, unvalidated (no AD), with DO and without,
    from the servers and again from the cache."""
    want = ["www.example.sec1. RRSIG(%s)" % t for t in
            ("A", "AAAA", "NSEC")]
    for _ in range(2):
        r = ask(resolver, "www.example.sec1.", "RRSIG", do=do)
        assert rcode(r) == "NOERROR", r
        assert rrsets(r.answer) == want, r
        assert not ad(r), r


def test_rrsig_question_negative_is_validated(resolver):
    """No such name: a validated NXDOMAIN (AD), as for any type."""
    r = ask(resolver, "nx-rrsig.example.sec1.", "RRSIG")
    assert rcode(r) == "NXDOMAIN" and ad(r), r
    assert r.answer == []


# -- root key sentinel on other types --------------------------------------

def anchor_tag(net):
    with open(net.anchor) as f:
        for line in f:
            parts = line.split()
            if "DS" in parts:
                return int(parts[parts.index("DS") + 1])
    raise AssertionError("no DS in %s" % net.anchor)


@pytest.mark.parametrize("label", ["is-ta-other", "not-ta-anchor"])
def test_sentinel_ignores_txt(resolver, signednet_net, label):
    """A sentinel label that fails for A (SERVFAIL, RFC 8509) leaves a
    TXT question alone: the wildcard's TXT, secure. The same name's A
    question still fails, so the label is one the resolver knows."""
    tag = anchor_tag(signednet_net)
    other = 11111 if tag != 11111 else 22222
    first = ("root-key-sentinel-is-ta-%05d" % other if label ==
             "is-ta-other" else "root-key-sentinel-not-ta-%05d" % tag)
    qname = first + ".wild.example.sec1."
    r = ask(resolver, qname, "TXT")
    assert rcode(r) == "NOERROR" and ad(r), r
    assert rrsets(r.answer) == [qname + " RRSIG(TXT)", qname + " TXT"], r
    assert rcode(ask(resolver, qname, "A")) == "SERVFAIL"


# -- opt-out NSEC3 and AD -------------------------------------------------

@pytest.mark.parametrize("qname,qtype,rc,secure,answer", [
    # the next closer name (x.wild.sec2.) lies in an opt-out span: it
    # may be an unsigned delegation, so the wildcard proves nothing
    ("x.wild.sec2.", "A", "NOERROR", False, ["x.wild.sec2. A"]),
    ("x.wild.sec2.", "TXT", "NOERROR", False, []),
    ("a.b.wild.sec2.", "TXT", "NOERROR", False, []),
    # a name with an NSEC3 of its own (the flag is about the span after
    # it): secure, empty non-terminal or not
    ("wild.sec2.", "TXT", "NOERROR", True, []),
    ("www.sec2.", "TXT", "NOERROR", True, []),
    # the same wildcard answer without opt-out stays secure
    ("x.wild.example3.sec1.", "A", "NOERROR", True,
     ["x.wild.example3.sec1. A"]),
], ids=["wildcard", "wildcard-nodata", "wildcard-nodata-deeper",
        "ent-nodata", "nodata", "wildcard-no-optout"])
def test_optout_span_is_not_secure(resolver, qname, qtype, rc, secure,
                                   answer):
    for do in (True, False):
        r = ask(resolver, qname, qtype, do=do)
        assert rcode(r) == rc, r
        assert ad(r) == (secure and do), r   # AD only for DO
        assert [x for x in rrsets(r.answer) if "RRSIG" not in x] == \
            answer, r


# -- each RRset once ---------------------------------------------------------

def test_dname_twice_in_chain_once_in_answer(resolver):
    """d1.dname.example.sec1. -> (DNAME) d1.example3.sec1. -> (CNAME)
    d2.dname.example.sec1. -> (DNAME) d2.example3.sec1. A: the DNAME
    and its RRSIG once each, secure. Read record by record (dnspython
    would merge repeats into one RRset)."""
    q = dns.message.make_query("d1.dname.example.sec1.", "A", use_edns=0,
                               payload=1232, want_dnssec=True)
    r = dns.query.tcp(q, "127.0.0.1", port=resolver.port,
                      timeout=10.0 * SLOW, one_rr_per_rrset=True)
    if resolver.kind == "unbound" and rcode(r) == "SERVFAIL":
        # compat: unbound-1.17: Debian's Unbound asks DS for
        # d2.dname.example.sec1. and takes the DNAME answer for bogus
        # ("DS got DNAME answer"); ours answers the chain
        return
    assert rcode(r) == "NOERROR" and ad(r), r
    for section in (r.answer, r.authority):
        seen = [(rr.name, rr.rdtype, rr.covers, rr[0].to_text())
                for rr in section]
        assert len(seen) == len(set(seen)), r
    assert rrsets(r.answer).count("dname.example.sec1. DNAME") == 1, r
    assert "d2.example3.sec1. A" in rrsets(r.answer), r


# -- a wildcard CNAME in an NSEC3 zone, into another zone ----------------------

@pytest.mark.parametrize("qname", ["a.b.cdn.example3.sec1.",
                                   "c.d.e.cdn.example3.sec1."],
                         ids=["two-labels", "three-labels"])
def test_nsec3_wildcard_cname_into_other_zone(resolver, qname):
    """*.cdn.example3.sec1. (NSEC3) is a CNAME to www.example.sec1.: the
    NSEC3 that covers the next closer name proves qname absent; it
    comes from the first zone's reply and must stay with the answer
    the chain ends in (RFC 5155 8.8). Secure, and with CD=1 the proof
    is there for the client; then AAAA of the same name, the CNAME
    now cached."""
    for cd in (False, True):
        r = ask(resolver, qname, "A", cd=cd)
        assert rcode(r) == "NOERROR" and ad(r), r
        assert rrsets(r.answer) == sorted([
            qname + " CNAME", qname + " RRSIG(CNAME)",
            "www.example.sec1. A", "www.example.sec1. RRSIG(A)"]), r
        auth = rrsets(r.authority)
        assert len(auth) == 2 and auth[0].endswith(
            ".example3.sec1. NSEC3"), r
    r = ask(resolver, qname, "AAAA")
    assert rcode(r) == "NOERROR" and ad(r), r
    assert "www.example.sec1. AAAA" in rrsets(r.answer), r


# -- an unsigned delegation whose DS question goes unanswered -----------------

@pytest.mark.parametrize("qname,addr", [
    ("www.child.nsdrop.sec1.", "192.0.2.165"),
    ("www.child.n3drop.sec1.", "192.0.2.164")], ids=["nsec", "nsec3"])
def test_referral_proof_of_no_ds(resolver, qname, addr):
    """The parent (NSEC, NSEC3) is behind the MITM, which never answers
    the DS question of its unsigned child: the referral's signed proof
    that there is no DS (an NSEC or NSEC3 at the delegation name with NS,
    neither DS nor SOA) has to show the child insecure, as Unbound's
    val_neg_addreferral does. Insecure: the address, no AD."""
    r = ask(resolver, qname, "A")
    assert rcode(r) == "NOERROR" and not ad(r), r
    assert [rd.to_text() for rr in r.answer for rd in rr] == [addr], r


@pytest.mark.parametrize("qname,addr", [
    ("www.sgn.nsdrop.sec1.", "192.0.2.167"),
    ("www.sgn.n3drop.sec1.", "192.0.2.166")], ids=["nsec", "nsec3"])
def test_referral_ds_set_used(resolver, qname, addr):
    """The same parents, a signed child: the MITM never answers its DS
    question, so the chain of trust has to use the signed DS set the
    referral carried (Unbound 1.26, and 1.17, take it from the referral
    into the cache). Secure: the address with AD."""
    r = ask(resolver, qname, "A")
    assert rcode(r) == "NOERROR" and ad(r), r
    assert [rd.to_text() for rr in r.answer for rd in rr
            if rr.rdtype == dns.rdatatype.A] == [addr], r
