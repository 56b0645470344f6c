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

# discard-timeout: 0: without prefetch-key the answer waits for the held
# reply and then the DNSKEY, which under load can pass 1.9 s (the
# default discard-timeout) and be dropped over UDP
BODY = """module-config: "validator iterator"
trust-anchor-file: "%s"
prefetch-key: %s
qname-minimisation: no
do-ip6: no
discard-timeout: 0
access-control: 127.0.0.0/8 allow"""


def ask(srv, name, cd=False):
    q = dns.message.make_query(name, "A", want_dnssec=True)
    if cd:
        q.flags |= dns.flags.CD
    return srv.query(q, timeout=10.0 * SLOW)


# The A reply for www.stripped.sec1. is held this long at the MITM
# responder: a DNSKEY query of the zone that reaches it meanwhile was
# sent in parallel with the question, not after its answer.
HOLD_MS = 600


def mitm_proxying(net, hold):
    """The MITM responder relays stripped.sec1. unchanged (a correctly
    signed zone, every query logged), holding the www A reply hold ms."""
    resp = net.responders["mitm"]
    up = [r for r in resp.spec.rules if r["name"] == "stripped.sec1."][0]
    proxy = dict(up["actions"][0])
    proxy.pop("strip", None)
    resp.set_behaviour(rules=[
        {"name": "www.stripped.sec1.", "qtype": "A",
         "actions": [proxy, {"type": "delay", "ms": hold}]},
        {"name": "stripped.sec1.", "suffix": True, "actions": [proxy]},
    ] + list(resp.spec.rules))
    resp.clear_log()
    return resp


@pytest.mark.parametrize("on", ["yes", "no"])
def test_prefetch_key(signednet_net, tmp_path, on):
    """The DNSKEY query of a signed zone reaches its server while the
    question's (held) reply is still pending with prefetch-key, only
    after it without; a CD query prefetches nothing."""
    srv = Server(tmp_path)
    resp = mitm_proxying(signednet_net, HOLD_MS)
    try:
        srv.start(BODY % (signednet_net.anchor, on), verbosity=4,
                  root_hints=signednet_net.root_hints)
        # CD: nothing is validated, nothing prefetched (the log)
        r = ask(srv, "www.ed25519.sec1.", cd=True)
        assert r.rcode() == dns.rcode.NOERROR
        assert "prefetch-key:" not in srv.log()
        r = ask(srv, "www.stripped.sec1.")
        assert r.rcode() == dns.rcode.NOERROR and r.flags & dns.flags.AD
        # the first A query (a held reply may be asked again)
        a = resp.queries("www.stripped.sec1.", "A")[0]
        keys = resp.queries("stripped.sec1.", "DNSKEY")
        assert keys, resp.queries()
        # the A query's log entry is written when it arrives; its reply
        # leaves HOLD_MS later
        gap = keys[0]["t"] - a["t"]
        log = srv.log()
        if on == "yes":
            assert gap < HOLD_MS / 2000.0, (gap, keys, a)
            assert "prefetch-key: DNSKEY of stripped.sec1." in log
        else:
            assert gap >= HOLD_MS / 1000.0, (gap, keys, a)
            assert "prefetch-key:" not in log
    finally:
        _finish(srv)
        resp.reset_behaviour()
