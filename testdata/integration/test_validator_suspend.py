# SPDX-License-Identifier: BSD-3-Clause
"""The KeyTrap bound on one message (as Unbound 1.19.1): at most 8
signature checks, then the validation is suspended and resumed from a
timer after other queries had their turn, and it ends as it would have.
And the KeyTrap zone itself (keytrap.sec1.): bogus within the bounds
on DS digest matches and signature checks, while another zone asked at
the same time is answered. How fast it fails is a benchmark's figure,
not a test's (contrib/bench/keytrap_bench.py, doc/performance.md).

long.example.sec1. (testdata/testnet/signed_zones.py) answers with a
chain of ten signed CNAMEs and the A at its end: eleven RRsets to
check, so the message is suspended once and still secure. (Debian's
Unbound 1.17 has no such bound; test_validator_diff.py shows both
answer it the same.)

Needs nsd, ldnsutils and root (port 53); skips otherwise.
"""
import os
import re
import sys
import threading
import time

import dns.flags
import dns.message
import dns.rcode
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from testnet import have_nsd  # noqa: E402
from testnet.fixture import signednet_net  # noqa: E402,F401
from conftest import REFERENCE, SLOW, Server, _finish  # noqa: E402

pytestmark = [
    pytest.mark.skipif(not have_nsd(), reason="nsd is not installed"),
    pytest.mark.skipif(REFERENCE, reason="the bound is this daemon's "
                       "(Unbound 1.17 has none)"),
]


@pytest.fixture(scope="module")
def validator(signednet_net, tmp_path_factory):
    """One validating daemon (verbosity 4, the log is asserted) for the
    file's tests; each asks names of its own."""
    srv = Server(tmp_path_factory.mktemp("validator"))
    try:
        srv.start('module-config: "validator iterator"\n'
                  'trust-anchor-file: "%s"\nverbosity: 4\ndo-ip6: no'
                  % signednet_net.anchor,
                  root_hints=signednet_net.root_hints)
        yield srv
    finally:
        _finish(srv)


def test_long_chain_suspends_and_ends_secure(validator):
    srv = validator
    q = dns.message.make_query("long.example.sec1.", "A",
                               want_dnssec=True)
    r = srv.query(q, timeout=15.0 * SLOW)
    if r.flags & dns.flags.TC:
        r = srv.query(q, tcp=True, timeout=15.0 * SLOW)
    assert r.rcode() == dns.rcode.NOERROR
    assert r.flags & dns.flags.AD
    # the ten CNAMEs and the A, each with its RRSIG
    assert len(r.answer) == 22, r.answer
    log = srv.output()
    assert "validator: suspended after 8 signature checks" in log, log


DNSKEY_LINE = re.compile(r"validator: DNSKEY of keytrap\.sec1\.: (\d+) "
                         r"signature checks \(bound (\d+)\), (\d+) failed "
                         r"DS digest matches \(bound (\d+)\)")


def test_keytrap_zone_bogus_within_bounds(validator):
    """keytrap.sec1.: 20 DNSKEYs share the KSK's key tag and come before
    it, www A has 20 bad RRSIGs of that tag. Asked together with a name
    of another zone (nothing cached for either): the KeyTrap name is
    SERVFAIL, the other is answered secure, and the log shows the DNSKEY
    check stopped at the bound of 4 failed DS digest matches (Unbound
    1.19.1's) with at most 8 signature checks."""
    srv = validator
    names = ("www.keytrap.sec1.", "www.ed25519.sec1.")
    replies = {}

    def ask(name):
        q = dns.message.make_query(name, "A", want_dnssec=True)
        r = srv.query(q, timeout=15.0 * SLOW)
        if r.flags & dns.flags.TC:
            r = srv.query(q, tcp=True, timeout=15.0 * SLOW)
        replies[name] = r

    threads = [threading.Thread(target=ask, args=(n,)) for n in names]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert replies["www.keytrap.sec1."].rcode() == dns.rcode.SERVFAIL
    other = replies["www.ed25519.sec1."]
    assert other.rcode() == dns.rcode.NOERROR and other.answer, other
    assert other.flags & dns.flags.AD
    # the line is logged before the reply is sent; poll for the write
    deadline = time.monotonic() + 10 * SLOW
    while True:
        found = DNSKEY_LINE.findall(srv.output())
        if found or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert found, "no DNSKEY check logged for keytrap.sec1."
    for checks, check_bound, fails, fail_bound in found:
        assert (int(check_bound), int(fail_bound)) == (8, 4), found
        assert int(checks) <= 8 and int(fails) <= 4, found
    # the 20 colliding keys really ran into the digest bound
    assert any(int(fails) == 4 for _, _, fails, _ in found), found
