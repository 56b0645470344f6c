# SPDX-License-Identifier: BSD-3-Clause
"""prefetch-key: as Unbound 1.17: when a referral to a signed zone (its
DS came along) is followed, the zone's DNSKEY set is asked at once, in
parallel with the question, not after the answer came. On the signed
test internet: with prefetch-key the log (verbosity 4) names each
signed zone on the way down as prefetched and the answers stay secure;
without it nothing is prefetched; CD queries prefetch nothing.

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
    pytest.mark.skipif(REFERENCE, reason="tests this build's iterator"),
]

BODY = """module-config: "validator iterator"
trust-anchor-file: "%s"
prefetch-key: %s
qname-minimisation: no
do-ip6: no
access-control: 127.0.0.0/8 allow"""


def ask(srv, name, cd=False):
    q = dns.message.make_query(name, "A", want_dnssec=True)
    if cd:
        q.flags |= dns.flags.CD
    return srv.query(q, timeout=10.0 * SLOW)


@pytest.mark.parametrize("on", ["yes", "no"])
def test_prefetch_key(signednet_net, tmp_path, on):
    srv = Server(tmp_path)
    try:
        srv.start(BODY % (signednet_net.anchor, on), verbosity=4,
                  root_hints=signednet_net.root_hints)
        # CD: nothing is validated, nothing prefetched
        r = ask(srv, "www.ed25519.sec1.", cd=True)
        assert r.rcode() == dns.rcode.NOERROR
        assert "prefetch-key:" not in srv.log()
        r = ask(srv, "www.ecdsap256sha256.sec1.")
        assert r.rcode() == dns.rcode.NOERROR and r.flags & dns.flags.AD
        log = srv.log()
        if on == "yes":
            assert "prefetch-key: DNSKEY of ecdsap256sha256.sec1." in log
        else:
            assert "prefetch-key:" not in log
    finally:
        _finish(srv)
