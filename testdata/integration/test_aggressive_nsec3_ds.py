# SPDX-License-Identifier: BSD-3-Clause
"""NSEC3 used to prove DS absence (RFC 8198 for DS, as Unbound 1.17's
negative cache, services/cache/neg_nsec3.h), on the signed test internet
side by side with Debian's Unbound 1.17 with the same options.

n3.sec1. is signed with NSEC3 (no opt-out) and delegates, without DS,
to child.n3.sec1.; the referral to the child carries the NSEC3 that
matches the child's hashed name (NS bit, no DS, no SOA). Unbound keeps a
referral's NSEC3 (val_neg_addreferral) and then:
- its validator takes the child's DS absence from it (val_find_DS), so
  resolving a name in the child sends no DS query upstream;
- a client's DS question for the child is answered NODATA from it and
  the zone's SOA (from an earlier negative answer of the zone), with
  AD, without an upstream query, and not counted in
  num.query.aggressive.* (only its NSEC answers are).
Not answered from a kept NSEC3: a zone above the iteration bound
(iter500.sec1., 500 > 150: the last pair of
val-nsec3-keysize-iterations), and an opt-out NSEC3 that only covers
the name (unsigned.sec2.). As Unbound, also with aggressive-nsec: no.
Every answer is compared with the reference's (rcode, AD, answer and
authority RRsets) and ours may not send more upstream queries than it
(without the referral's NSEC3, ours sends 3 for www.child.n3.sec1. A
where Unbound sends 2).

Needs nsd, ldnsutils, Debian's unbound and root (port 53); skips
otherwise."""
import os
import sys

import dns.flags
import dns.rcode
import dns.rdatatype
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from testnet import have_nsd  # noqa: E402
from testnet.fixture import signednet_net  # noqa: E402,F401
from conftest import REFERENCE  # noqa: E402
from test_control import DEB_CTL, DEB_UNBOUND, OUR_CTL, ctl  # noqa: E402
from test_control import setup_keys, stats_dict  # noqa: E402
from test_validator_control import start_pair, stop  # noqa: E402
from test_aggressive_nsec import ask_both, counters  # noqa: E402

pytestmark = [
    pytest.mark.skipif(not have_nsd(), reason="nsd is not installed"),
    pytest.mark.skipif(not os.access(DEB_UNBOUND, os.X_OK),
                       reason="Debian's unbound is not installed"),
    pytest.mark.skipif(REFERENCE, reason="compares this build with "
                       "the reference; UNBOUND_BIN is the reference"),
]


@pytest.fixture(scope="module")
def pair(signednet_net, tmp_path_factory):
    keys = setup_keys(str(tmp_path_factory.mktemp("keys")))
    ours, ref = start_pair(signednet_net, keys,
                           tmp_path_factory.mktemp("n3ds"))
    try:
        yield ours, ref
    finally:
        stop(ours)
        stop(ref)


def aggr(srv, binary):
    s = stats_dict(ctl(srv.conf, "stats_noreset", binary=binary).stdout)
    return (int(s["num.query.aggressive.NXDOMAIN"]),
            int(s["num.query.aggressive.NOERROR"]))


def both_ctl(pair, *args):
    for srv, binary in ((pair[0], OUR_CTL), (pair[1], DEB_CTL)):
        r = ctl(srv.conf, *args, binary=binary)
        assert r.returncode == 0, r.stdout + r.stderr


def ask_both_ups(pair, name, qtype, do=True, fewer=True):
    """ask_both, and the upstream queries of (ours, the reference)."""
    ours, ref = pair
    before = counters(ref, DEB_CTL)
    a, up, agg = ask_both(pair, name, qtype, do=do, fewer=fewer)
    after = counters(ref, DEB_CTL)
    return a, up, after["up"] - before["up"], agg


def types(section):
    return sorted(dns.rdatatype.to_text(r.rdtype) + (
        " " + dns.rdatatype.to_text(r.covers) if r.rdtype ==
        dns.rdatatype.RRSIG else "") for r in section)


def test_referral_nsec3_proves_no_ds(pair):
    # the zone's keys, and its SOA from a negative answer (Unbound adds
    # the SOA to a client's answer from its RRset cache, where only a
    # negative answer puts it)
    ask_both(pair, "www.n3.sec1.", "A", fewer=False)
    a, up, agg = ask_both(pair, "nx.n3.sec1.", "A", fewer=False)
    assert a.rcode() == dns.rcode.NXDOMAIN and a.flags & dns.flags.AD
    # the walk takes the child's DS absence from the referral's NSEC3:
    # no DS query upstream, so no more queries than Unbound (which
    # sends none either)
    a, up, ref_up, agg = ask_both_ups(pair, "www.child.n3.sec1.", "A")
    print("www.child.n3.sec1. A: upstream queries", up, ref_up)
    assert a.answer and not a.flags & dns.flags.AD, a
    assert up <= ref_up, (up, ref_up)
    # a client's DS question: NODATA, AD, from the kept NSEC3 and SOA,
    # no upstream query, by both; not an aggressive-NSEC statistic
    before = aggr(pair[0], OUR_CTL), aggr(pair[1], DEB_CTL)
    a, up, ref_up, agg = ask_both_ups(pair, "child.n3.sec1.", "DS")
    after = aggr(pair[0], OUR_CTL), aggr(pair[1], DEB_CTL)
    assert a.rcode() == dns.rcode.NOERROR and not a.answer, a
    assert a.flags & dns.flags.AD, a
    assert (up, ref_up) == (0, 0), (up, ref_up)
    assert types(a.authority) == ["NSEC3", "RRSIG NSEC3", "RRSIG SOA",
                                  "SOA"], a
    assert before == after, (before, after)
    # without DO: the SOA only, AD only when asked for (RFC 6840)
    a, up, ref_up, agg = ask_both_ups(pair, "child.n3.sec1.", "DS",
                                      do=False)
    assert types(a.authority) == ["SOA"] and (up, ref_up) == (0, 0), a
    # flush_zone takes the NSEC3 and the SOA: asked upstream again
    both_ctl(pair, "flush_zone", "n3.sec1.")
    a, up, ref_up, agg = ask_both_ups(pair, "child.n3.sec1.", "DS",
                                      fewer=False)
    assert a.rcode() == dns.rcode.NOERROR and a.flags & dns.flags.AD
    assert up > 0 and ref_up > 0, (up, ref_up)


def test_too_many_iterations_not_used(pair):
    # iter500.sec1.: 500 iterations, above the bound (150): the
    # referral's NSEC3 proves nothing kept, both ask the DS upstream
    # (the zone's own keys first: a cold lookup may differ by the
    # iterator's choices, which are not this test's)
    ask_both(pair, "www.iter500.sec1.", "A", fewer=False)
    a, up, ref_up, agg = ask_both_ups(pair, "www.child.iter500.sec1.",
                                      "A")
    print("www.child.iter500.sec1. A: upstream queries", up, ref_up)
    assert a.answer and not a.flags & dns.flags.AD
    ask_both(pair, "nx.iter500.sec1.", "A", fewer=False)
    both_ctl(pair, "flush_type", "child.iter500.sec1.", "DS")
    a, up, ref_up, agg = ask_both_ups(pair, "child.iter500.sec1.", "DS")
    assert a.rcode() == dns.rcode.NOERROR and not a.flags & dns.flags.AD
    assert up > 0 and ref_up > 0, (up, ref_up)


def test_optout_cover_not_used(pair):
    # unsigned.sec2.: no NSEC3 of its own, covered by an opt-out NSEC3
    # of sec2. (the referral carries it and the apex's): not a proof
    # kept for the walk (Debian's Unbound asks that DS upstream too),
    # nor for a client's DS question, though the zone's SOA is known
    # from a secure NODATA answer of sec2.
    ask_both(pair, "www.sec2.", "A", fewer=False)
    a, up, agg = ask_both(pair, "www.sec2.", "TXT", fewer=False)
    assert a.rcode() == dns.rcode.NOERROR and a.flags & dns.flags.AD
    a, up, ref_up, agg = ask_both_ups(pair, "www.unsigned.sec2.", "A")
    print("www.unsigned.sec2. A: upstream queries", up, ref_up)
    both_ctl(pair, "flush_type", "unsigned.sec2.", "DS")
    a, up, ref_up, agg = ask_both_ups(pair, "unsigned.sec2.", "DS")
    assert a.rcode() == dns.rcode.NOERROR and not a.answer
    assert not a.flags & dns.flags.AD, a
    assert up > 0 and ref_up > 0, (up, ref_up)


def test_aggressive_nsec_no_still_proves_ds(signednet_net, tmp_path):
    # as Unbound, a kept NSEC3 proves DS absence also with
    # aggressive-nsec: no: the walk asks no DS upstream (Debian's
    # Unbound neither), and a client's DS question is answered alike
    keys = setup_keys(str(tmp_path / "keys"))
    ours, ref = start_pair(signednet_net, keys, tmp_path / "off",
                           extra_body="aggressive-nsec: no\n")
    p = (ours, ref)
    try:
        ask_both(p, "www.n3.sec1.", "A", fewer=False)
        ask_both(p, "nx.n3.sec1.", "A", fewer=False)
        a, up, ref_up, agg = ask_both_ups(p, "www.child.n3.sec1.", "A")
        assert a.answer and up <= ref_up, (up, ref_up)
        a, up, ref_up, agg = ask_both_ups(p, "child.n3.sec1.", "DS")
        assert a.flags & dns.flags.AD and (up, ref_up) == (0, 0), a
    finally:
        stop(ours)
        stop(ref)


def test_iteration_bound_from_the_option(signednet_net, tmp_path):
    # val-nsec3-keysize-iterations raised above iter500.sec1.'s 500:
    # its NSEC3s are used now, as by Unbound (the bound is the last
    # pair's; the proof then checks the one for the zone's key size)
    keys = setup_keys(str(tmp_path / "keys"))
    ours, ref = start_pair(signednet_net, keys, tmp_path / "it",
                           extra_body='val-nsec3-keysize-iterations: '
                           '"1024 1000 4096 1000"\n')
    p = (ours, ref)
    try:
        ask_both(p, "www.iter500.sec1.", "A", fewer=False)
        a, up, agg = ask_both(p, "nx.iter500.sec1.", "A", fewer=False)
        assert a.rcode() == dns.rcode.NXDOMAIN and a.flags & dns.flags.AD
        a, up, ref_up, agg = ask_both_ups(p, "www.child.iter500.sec1.",
                                          "A")
        print("www.child.iter500.sec1. A (bound 1000): upstream queries",
              up, ref_up)
        assert a.answer and up <= ref_up
        a, up, ref_up, agg = ask_both_ups(p, "child.iter500.sec1.", "DS")
        assert a.flags & dns.flags.AD and (up, ref_up) == (0, 0), a
    finally:
        stop(ours)
        stop(ref)
