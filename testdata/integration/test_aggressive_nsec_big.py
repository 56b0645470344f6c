# SPDX-License-Identifier: BSD-3-Clause
"""The aggressive NSEC cache (RFC 8198) with a zone of more NSECs than
neg-cache-size held when the cache kept each NSEC with its RRSIGs
(about 300 bytes an NSEC): now, as in Unbound, the cache is an index of
owner names (about 110 bytes an NSEC) and the NSEC RRsets are in the
RRset cache, so the whole chain stays, and a second pass of new
nonexistent names (one in every NSEC interval) is answered without a
single upstream query, and with no more than Debian's Unbound 1.17 sends
with the same options.

Scaled down from the benchmark (3,000 NSECs in the default 1m) so that
it runs in seconds: a zone of 600 names signed with ECDSA P-256 and NSEC,
served by its own NSD beside the signed test internet, a stub-zone and
a trust anchor for it in both resolvers, neg-cache-size 100k (600 NSECs
take about 66 KB of it now; before, about 180 KB: some 330 would
have stayed).

Needs nsd, ldnsutils, Debian's unbound and root (port 53); skips
otherwise."""
import os
import sys

import dns.flags
import dns.rcode
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from testnet import have_nsd, signer, zones  # noqa: E402
from testnet.nsd import NsdInstance  # noqa: E402
from testnet.fixture import signednet_net  # noqa: E402,F401
from conftest import REFERENCE  # noqa: E402
from test_control import DEB_CTL, DEB_UNBOUND, OUR_CTL, setup_keys  # noqa: E402
from test_validator_control import start_pair, stop  # noqa: E402
from test_aggressive_nsec import ask, counters  # noqa: E402

pytestmark = [
    pytest.mark.skipif(not have_nsd(), reason="nsd is not installed"),
    pytest.mark.skipif(not signer.have_ldns(),
                       reason="ldnsutils is not installed"),
    pytest.mark.skipif(not os.access(DEB_UNBOUND, os.X_OK),
                       reason="Debian's unbound is not installed"),
    pytest.mark.skipif(REFERENCE, reason="compares this build with "
                       "the reference; UNBOUND_BIN is the reference"),
]

ZONE = "bigneg."     # a TLD the signed root does not have (test. is a
                    # local zone of Unbound's by default)
NAMES = 600
HOST = 20          # on the signed net's prefix, beside its servers (2-8)


@pytest.fixture(scope="module")
def big_zone(signednet_net, tmp_path_factory):
    """The signed zone on its own NSD: (address, port, DS line)."""
    work = str(tmp_path_factory.mktemp("bigneg"))
    address = "%s.%d" % (signednet_net.prefix, HOST)
    kdir = os.path.join(work, "keys")
    ksk = signer.keygen(kdir, ZONE, "ECDSAP256SHA256", ksk=True)
    zsk = signer.keygen(kdir, ZONE, "ECDSAP256SHA256", ksk=False)
    lines = [zones.soa(ZONE, "ns." + ZONE), "@ NS ns." + ZONE,
             "ns A " + address]
    lines += ["h%d A 192.0.2.1" % k for k in range(NAMES)]
    text = signer.sign(zones.Zone(ZONE, lines).text(), ZONE, [ksk, zsk],
                       kdir)
    signed = zones.Zone(ZONE, [l for l in text.splitlines() if l.strip()])
    nsd = NsdInstance("bigneg", os.path.join(work, "nsd"), address,
                      signednet_net.port, [signed])
    nsd.write()
    nsd.start()
    try:
        nsd.wait_ready()
        yield address, signednet_net.port, ksk.ds_line()
    finally:
        nsd.stop()


def test_whole_chain_kept_second_pass_no_upstream(signednet_net, big_zone,
                                                  tmp_path_factory):
    address, port, ds = big_zone
    keys = setup_keys(str(tmp_path_factory.mktemp("keys")))
    extra = ("neg-cache-size: 100k\n"
             "trust-anchor: \"%s\"\n"
             "stub-zone:\n"
             "name: \"%s\"\n"
             "stub-addr: %s@%d\n" % (ds, ZONE, address, port))
    ours, ref = start_pair(signednet_net, keys,
                           tmp_path_factory.mktemp("big"), extra_body=extra)
    try:
        up = {}
        for srv, binary in ((ours, OUR_CTL), (ref, DEB_CTL)):
            # pass 1 learns the chain: a name in every NSEC interval
            # (h<k>-x sorts right after h<k>)
            for k in range(NAMES):
                r = ask(srv, "h%d-a.%s" % (k, ZONE), "A")
                assert r.rcode() == dns.rcode.NXDOMAIN, r
                assert r.flags & dns.flags.AD, r
            # pass 2: new names in the same intervals
            before = counters(srv, binary)
            for k in range(NAMES):
                r = ask(srv, "h%d-b.%s" % (k, ZONE), "A", do=k % 2 == 0)
                assert r.rcode() == dns.rcode.NXDOMAIN, r
                assert r.flags & dns.flags.AD or k % 2, r
            after = counters(srv, binary)
            up[binary] = (after["up"] - before["up"],
                          after["nx"] - before["nx"])
        print("pass 2 (upstream, aggressive NXDOMAIN):", up)
        # ours: every name of pass 2 from the cache, none upstream
        assert up[OUR_CTL] == (0, NAMES), up
        assert up[OUR_CTL][0] <= up[DEB_CTL][0], up
    finally:
        stop(ours)
        stop(ref)
