# SPDX-License-Identifier: BSD-3-Clause
"""The KeyTrap bound on one message (as Unbound 1.19.1): at most 8
signature checks, then the validation is suspended and resumed from a
timer after other queries had their turn, and it ends as it would have.

long.example.sec1. (testdata/testnet/signed_zones.py) answers with a
chain of ten signed CNAMEs and the A at its end: eleven RRsets to
check, so the message is suspended once and still secure. (Debian's
Unbound 1.17 has no such bound; test_validator_diff.py shows both
answer it the same.)

Needs nsd, ldnsutils and root (port 53); skips otherwise.
"""
import os
import sys

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


def test_long_chain_suspends_and_ends_secure(signednet_net, tmp_path):
    srv = Server(tmp_path)
    try:
        srv.start('module-config: "validator iterator"\n'
                  'trust-anchor-file: "%s"\nverbosity: 4\ndo-ip6: no'
                  % signednet_net.anchor,
                  root_hints=signednet_net.root_hints)
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
    finally:
        _finish(srv)
