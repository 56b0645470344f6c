# SPDX-License-Identifier: BSD-3-Clause
"""Differential test of DNSSEC validation: this daemon and Debian's
Unbound 1.17 (/usr/sbin/unbound), started here with the same
unbound.conf options (module-config "validator iterator", the signed
test internet's trust anchor and root hints; only port and paths
differ), asked every question of the signed test internet
(testdata/testnet/signed_cases.py) with DO and without, CD and without.

Compared per question and DO/CD: the rcode, the AD flag, and the answer
and authority sections as RRsets (owner and type; an RRSIG by the type
it covers, so RRSIGs must appear exactly when DO is set). Beyond
agreeing with the reference, ours must give the expected answer of the
case (test_signednet.py proves the reference gives it), so two equal
wrong answers do not pass. Deliberate differences are listed in
DIFFERENCES with the reason.

Needs nsd, ldnsutils, Debian's unbound and root (port 53); skips
otherwise. Every config names only the signed net's loopback root.
"""
import os
import sys

import dns.exception
import dns.flags
import dns.message
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from testnet import have_nsd, signed_cases  # noqa: E402
from testnet.fixture import signednet_net  # noqa: E402,F401
from conftest import REFERENCE, SLOW, Server, _finish  # noqa: E402

DEB_UNBOUND = "/usr/sbin/unbound"

pytestmark = [
    pytest.mark.skipif(not have_nsd(), reason="nsd is not installed"),
    pytest.mark.skipif(not os.access(DEB_UNBOUND, os.X_OK),
                       reason="Debian's unbound is not installed"),
    pytest.mark.skipif(REFERENCE, reason="compares this build with "
                       "the reference; UNBOUND_BIN is the reference"),
]

# The options both resolvers get, besides the harness's port, paths and
# the signed net's root hints.
BODY = """module-config: "validator iterator"
trust-anchor-file: "%s"
val-log-level: 2
do-ip6: no
access-control: 127.0.0.0/8 allow
minimal-responses: yes"""

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


class RefServer(Server):
    binary = DEB_UNBOUND


@pytest.fixture(scope="module")
def pair(signednet_net, tmp_path_factory):
    """(ours, reference), both validating through the signed net."""
    ours = Server(tmp_path_factory.mktemp("ours"))
    ref = RefServer(tmp_path_factory.mktemp("reference"))
    try:
        for s in (ours, ref):
            s.start(BODY % signednet_net.anchor,
                    root_hints=signednet_net.root_hints)
        yield ours, ref
    finally:
        for s in (ours, ref):
            _finish(s)


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


def differences(a, b, may_drop=False):
    """What differs between two replies (a ours, b reference); two
    missing replies agree only when may_drop (listed in MUST_DROP)."""
    if a is None or b is None:
        if a is None and b is None:
            return [] if may_drop else ["reply: none from either"]
        return ["reply: ours %s, reference %s" % (
            "none" if a is None else "one", "none" if b is None else "one")]
    names = ("rcode", "AD", "answer", "authority")
    return ["%s: ours %s, reference %s" % (n, x, y) for n, x, y in
            zip(names, signed_cases.summary(a), signed_cases.summary(b))
            if x != y]


CASES = signed_cases.cases()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_same_validation_as_unbound(pair, signednet_net, case):
    ours, ref = pair
    chains = signednet_net.chains()
    listed = DIFFERENCES.get(case.id)
    problems = []
    for do, cd in COMBOS:
        a = ask(ours, case.qname, case.qtype, do, cd)
        b = ask(ref, case.qname, case.qtype, do, cd)
        diff = differences(a, b, case.id in MUST_DROP)
        view = "DO=%d CD=%d" % (do, cd)
        if case.id in MUST_DROP and a is not None:
            problems.append("%s: must be dropped (%s)" %
                            (view, MUST_DROP[case.id]))
        if listed is None:
            if diff:
                problems.append("%s: %s" % (view, diff))
            elif a is not None:
                # equal, and both what the case expects
                m = signed_cases.mismatch(case, a, do, cd, chains)
                if m:
                    problems.append("both wrong: " + m)
        elif diff == [] and not listed[1]:
            problems.append("%s: listed difference (%s) does not show" %
                            (view, listed[0]))
        elif diff:
            m = signed_cases.mismatch(listed[2], a, do, cd, chains) \
                if a is not None else "no reply"
            if m:
                problems.append("listed difference, but ours is not the "
                                "answer named there: %s" % m)
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
