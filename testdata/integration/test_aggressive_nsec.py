# SPDX-License-Identifier: BSD-3-Clause
"""Aggressive use of the DNSSEC-validated cache (RFC 8198,
aggressive-nsec: yes, the default) on the signed test internet, side by
side with Debian's Unbound 1.17 (/usr/sbin/unbound) with the same
options: after one secure negative answer, a second nonexistent name
covered by the same NSEC records is answered NXDOMAIN with AD and no
upstream query (num.query.udpout + tcpout: test_control.py shows they
equal what the servers log); NODATA the same; wildcard answers and
wildcard NODATA from a cached wildcard and its NSEC; aggressive-nsec: no
turns it off; an NSEC from an insecure or bogus answer is never used; an
NSEC flushed from the RRset cache (flush_type) is not used any more.
Every answer is compared with the reference's (rcode, AD, answer and
authority RRsets), and ours may not send more upstream queries than it.

Needs nsd, ldnsutils, Debian's unbound and root (port 53); skips
otherwise."""
import os
import sys

import dns.flags
import dns.message
import dns.rcode
import dns.rdatatype
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from testnet import have_nsd, signed_cases  # noqa: E402
from testnet.fixture import signednet_net  # noqa: E402,F401
from conftest import REFERENCE, SLOW  # noqa: E402
from test_control import (DEB_CTL, DEB_UNBOUND, OUR_CTL, ctl,  # noqa: E402
                          setup_keys, stats_dict)
from test_validator_control import start_pair, stop  # noqa: E402

pytestmark = [
    pytest.mark.skipif(not have_nsd(), reason="nsd is not installed"),
    pytest.mark.skipif(not os.access(DEB_UNBOUND, os.X_OK),
                       reason="Debian's unbound is not installed"),
    pytest.mark.skipif(REFERENCE, reason="compares this build with "
                       "the reference; UNBOUND_BIN is the reference"),
]


@pytest.fixture(scope="module")
def mod_keys(tmp_path_factory):
    return setup_keys(str(tmp_path_factory.mktemp("keys")))


@pytest.fixture(scope="module")
def pair(signednet_net, mod_keys, tmp_path_factory):
    """(ours, reference), validating, aggressive-nsec at its default."""
    ours, ref = start_pair(signednet_net, mod_keys,
                           tmp_path_factory.mktemp("aggr"))
    try:
        yield ours, ref
    finally:
        stop(ours)
        stop(ref)


def ask(srv, name, qtype, do=True):
    q = dns.message.make_query(name, qtype, use_edns=0, payload=1232,
                               want_dnssec=do)
    r = srv.query(q, timeout=10.0 * SLOW)
    if r.flags & dns.flags.TC:
        r = srv.query(q, tcp=True, timeout=10.0 * SLOW)
    return r


def counters(srv, binary):
    s = stats_dict(ctl(srv.conf, "stats_noreset", binary=binary).stdout)
    return {"up": int(s["num.query.udpout"]) + int(s["num.query.tcpout"]),
            "nx": int(s["num.query.aggressive.NXDOMAIN"]),
            "noerror": int(s["num.query.aggressive.NOERROR"])}


def ask_both(pair, name, qtype, do=True, fewer=True):
    """Ask both; they must give the same reply (summary). Returns ours,
    the upstream queries ours sent for it (with fewer: no more than the
    reference sent; a cold lookup may differ by the iterator's own
    choices, which are not this test's) and ours' aggressive answers
    (NXDOMAIN, NOERROR)."""
    ours, ref = pair
    before = counters(ours, OUR_CTL), counters(ref, DEB_CTL)
    a = ask(ours, name, qtype, do)
    b = ask(ref, name, qtype, do)
    after = counters(ours, OUR_CTL), counters(ref, DEB_CTL)
    assert signed_cases.summary(a) == signed_cases.summary(b), (a, b)
    ups = (after[0]["up"] - before[0]["up"], after[1]["up"] - before[1]["up"])
    assert not fewer or ups[0] <= ups[1], ("more upstream queries than Unbound",
                              name, qtype, ups)
    agg = (after[0]["nx"] - before[0]["nx"],
           after[0]["noerror"] - before[0]["noerror"])
    return a, ups[0], agg


def ttls(reply):
    return [rrset.ttl for rrset in reply.answer + reply.authority]


def test_second_nxdomain_from_the_same_nsec(pair):
    # zz1 and zz2 sort after www: the zone's last NSEC (www -> apex)
    # covers both; the apex NSEC denies the wildcard
    a, up, agg = ask_both(pair, "zz1.example.sec1.", "A", fewer=False)
    assert a.rcode() == dns.rcode.NXDOMAIN and a.flags & dns.flags.AD
    for name in ("zz2.example.sec1.", "zz3.example.sec1."):
        a, up, agg = ask_both(pair, name, "A")
        assert a.rcode() == dns.rcode.NXDOMAIN, a
        assert a.flags & dns.flags.AD, a
        assert up == 0, "went upstream for %s" % name
        assert agg == (1, 0)
        # the proof comes along for a DO client: SOA, NSECs, RRSIGs
        types = sorted(dns.rdatatype.to_text(r.rdtype) for r in a.authority)
        assert types.count("NSEC") == 2 and "SOA" in types, a
        assert max(ttls(a)) <= 3600
    # without DO: no NSEC and no RRSIG, AD only when asked (RFC 6840)
    a = ask(pair[0], "zz4.example.sec1.", "A", do=False)
    assert a.rcode() == dns.rcode.NXDOMAIN
    assert all(r.rdtype == dns.rdatatype.SOA for r in a.authority), a
    # flush_zone takes the NSECs too (Unbound's are in its RRset
    # cache): the next name is asked upstream again, by both
    ours, ref = pair
    for srv, binary in ((ours, OUR_CTL), (ref, DEB_CTL)):
        r = ctl(srv.conf, "flush_zone", "example.sec1.", binary=binary)
        assert r.returncode == 0, r.stdout + r.stderr
    a, up, agg = ask_both(pair, "zz5.example.sec1.", "A", fewer=False)
    assert a.rcode() == dns.rcode.NXDOMAIN and agg == (0, 0) and up > 0


def test_nsec_flushed_from_rrset_cache_not_used(pair):
    # the NSECs are in the RRset cache (the aggressive cache indexes
    # them, as Unbound's): flush_type of the NSEC that covers the name
    # (www -> apex) sends the next name upstream again, in both; its
    # answer brings the NSEC back
    ours, ref = pair
    a, up, agg = ask_both(pair, "zz10.example.sec1.", "A", fewer=False)
    a, up, agg = ask_both(pair, "zz11.example.sec1.", "A")
    assert a.rcode() == dns.rcode.NXDOMAIN and up == 0 and agg == (1, 0)
    for srv, binary in ((ours, OUR_CTL), (ref, DEB_CTL)):
        r = ctl(srv.conf, "flush_type", "www.example.sec1.", "NSEC",
                binary=binary)
        assert r.returncode == 0, r.stdout + r.stderr
    a, up, agg = ask_both(pair, "zz12.example.sec1.", "A")
    assert a.rcode() == dns.rcode.NXDOMAIN and a.flags & dns.flags.AD
    assert agg == (0, 0) and up > 0, (up, agg)
    a, up, agg = ask_both(pair, "zz13.example.sec1.", "A")
    assert a.rcode() == dns.rcode.NXDOMAIN and up == 0 and agg == (1, 0)


def test_insecure_add_stops_aggressive_answers(pair):
    # NSECs cached for a zone that insecure_add then makes insecure
    # must not answer (with AD) any more; insecure_remove brings the
    # validation back
    ours = pair[0]
    a = ask(ours, "zz6.example.sec1.", "A")
    assert a.rcode() == dns.rcode.NXDOMAIN and a.flags & dns.flags.AD
    r = ctl(ours.conf, "insecure_add", "example.sec1.", binary=OUR_CTL)
    assert r.returncode == 0, r.stdout + r.stderr
    try:
        before = counters(ours, OUR_CTL)
        a = ask(ours, "zz7.example.sec1.", "A")
        after = counters(ours, OUR_CTL)
        assert a.rcode() == dns.rcode.NXDOMAIN, a
        assert not a.flags & dns.flags.AD, a
        assert after["nx"] == before["nx"], "answered from the NSEC cache"
    finally:
        r = ctl(ours.conf, "insecure_remove", "example.sec1.",
                binary=OUR_CTL)
        assert r.returncode == 0, r.stdout + r.stderr
    a = ask(ours, "zz8.example.sec1.", "A")
    assert a.rcode() == dns.rcode.NXDOMAIN and a.flags & dns.flags.AD


def test_nodata_from_the_matching_nsec(pair):
    a, up, agg = ask_both(pair, "txtonly.example.sec1.", "A", fewer=False)
    assert a.rcode() == dns.rcode.NOERROR and not a.answer
    a, up, agg = ask_both(pair, "txtonly.example.sec1.", "AAAA")
    assert a.rcode() == dns.rcode.NOERROR and not a.answer, a
    assert a.flags & dns.flags.AD
    assert up == 0 and agg == (0, 1), (up, agg)
    # the type the NSEC lists is asked for: not synthesized
    a, up, agg = ask_both(pair, "txtonly.example.sec1.", "TXT")
    assert a.answer and agg == (0, 0)


def test_wildcard_answer_and_nodata(pair):
    a, up, agg = ask_both(pair, "a.wild.example.sec1.", "A", fewer=False)
    assert a.answer and a.flags & dns.flags.AD
    # b.wild sorts before exact.wild: the *.wild NSEC covers it
    a, up, agg = ask_both(pair, "b.wild.example.sec1.", "A")
    assert a.answer and a.flags & dns.flags.AD
    assert str(a.answer[0].name) == "b.wild.example.sec1."
    assert up == 0 and agg == (0, 1), (up, agg)
    # a type the wildcard lacks: wildcard NODATA from the same NSEC
    a, up, agg = ask_both(pair, "c.wild.example.sec1.", "MX")
    assert a.rcode() == dns.rcode.NOERROR and not a.answer
    assert a.flags & dns.flags.AD
    assert up == 0 and agg == (0, 1), (up, agg)


def test_insecure_and_bogus_nsec_never_used(pair):
    ours, ref = pair
    # unsigned.sec1.: no NSEC at all; nonsec.sec1.: NSECs stripped
    # (bogus denial); the next name there must go upstream again
    for zone in ("unsigned.sec1.", "nonsec.sec1."):
        ask_both(pair, "nx1." + zone, "A", fewer=False)
        a, up, agg = ask_both(pair, "nx2." + zone, "A", fewer=False)
        assert agg == (0, 0), zone
        assert up > 0, zone
    # badsig.sec1.: its NXDOMAIN is secure (only www A is broken), the
    # bogus www A answer brings no NSEC into the cache
    a = ask(ours, "www.badsig.sec1.", "A")
    assert a.rcode() == dns.rcode.SERVFAIL


def test_nsec3_zone_not_synthesized(pair):
    # NSEC3 (hashed owners) is not used for aggressive answers, as
    # Unbound 1.17
    ask_both(pair, "nx1.example3.sec1.", "A", fewer=False)
    a, up, agg = ask_both(pair, "nx2.example3.sec1.", "A",
                          fewer=False)
    assert agg == (0, 0) and up > 0


def test_aggressive_nsec_no(signednet_net, mod_keys, tmp_path):
    ours, ref = start_pair(signednet_net, mod_keys, tmp_path,
                           extra_body="aggressive-nsec: no\n")
    try:
        p = (ours, ref)
        ask_both(p, "zz1.example.sec1.", "A", fewer=False)
        a, up, agg = ask_both(p, "zz2.example.sec1.", "A", fewer=False)
        assert a.rcode() == dns.rcode.NXDOMAIN
        assert agg == (0, 0) and up > 0
    finally:
        stop(ours)
        stop(ref)
