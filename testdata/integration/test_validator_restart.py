# SPDX-License-Identifier: BSD-3-Clause
"""val-max-restart: a bogus answer is asked again of the zone's other
servers before it is final, as Unbound 1.17 does.

flaky.sec1. (testdata/testnet/signed_zones.py) has two name servers:
the signed net's hidden NSD, and the MITM responder, which relays the
NSD's answers but strips the RRSIGs of names under w.flaky.sec1. (a
wildcard, so every name asked is a new question). Which server a
resolver asks first is its choice; with restarts every answer ends
secure, without them (val-max-restart: 0) the answers the MITM gave
are bogus. Both this daemon and Debian's Unbound are asked, configured
the same way.

Needs nsd, ldnsutils, Debian's unbound and root (port 53); skips
otherwise.
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

DEB_UNBOUND = "/usr/sbin/unbound"

pytestmark = [
    pytest.mark.skipif(not have_nsd(), reason="nsd is not installed"),
    pytest.mark.skipif(not os.access(DEB_UNBOUND, os.X_OK),
                       reason="Debian's unbound is not installed"),
    pytest.mark.skipif(REFERENCE, reason="compares this build with "
                       "the reference; UNBOUND_BIN is the reference"),
]

# aggressive-nsec: no, or the first secure wildcard answer (with its
# NSEC) answers the later names from the cache and none reaches the MITM
BODY = """module-config: "validator iterator"
trust-anchor-file: "%s"
val-max-restart: %d
aggressive-nsec: no
do-ip6: no
access-control: 127.0.0.0/8 allow"""

NAMES = 24      # each a new question under the MITM'd wildcard


class RefServer(Server):
    binary = DEB_UNBOUND


def answers(srv, tag):
    """(secure, bogus) counts over NAMES new names, asked with DO."""
    secure = bogus = 0
    for i in range(NAMES):
        q = dns.message.make_query("n%d-%s.w.flaky.sec1." % (i, tag), "A",
                                   want_dnssec=True)
        r = srv.query(q, timeout=15.0 * SLOW)
        if r.rcode() == dns.rcode.SERVFAIL:
            bogus += 1
        elif r.rcode() == dns.rcode.NOERROR and r.flags & dns.flags.AD:
            secure += 1
    return secure, bogus


@pytest.mark.parametrize("binary", ["ours", "debian"])
def test_bogus_answer_retried_at_the_other_server(signednet_net, tmp_path,
                                                  binary):
    os.makedirs(tmp_path / binary, exist_ok=True)
    srv = (Server if binary == "ours" else RefServer)(tmp_path / binary)
    try:
        srv.start(BODY % (signednet_net.anchor, 5),
                  root_hints=signednet_net.root_hints)
        secure, bogus = answers(srv, "r")
        assert (secure, bogus) == (NAMES, 0), (secure, bogus)
    finally:
        _finish(srv)


def test_no_restart_leaves_the_mitm_answers_bogus(signednet_net, tmp_path):
    """Ours with val-max-restart: 0: the names first asked of the MITM
    are bogus (SERVFAIL), so the test above does exercise the restarts
    (24 names: a chance of 2^-24 that a server chosen at random is never
    the MITM). Debian's Unbound is left out here: it kept asking the
    NSD (faster than the relaying responder) in every run tried."""
    srv = Server(tmp_path)
    try:
        srv.start(BODY % (signednet_net.anchor, 0),
                  root_hints=signednet_net.root_hints)
        secure, bogus = answers(srv, "z")
        assert bogus > 0 and secure + bogus == NAMES, (secure, bogus)
    finally:
        _finish(srv)
