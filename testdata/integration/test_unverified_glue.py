# SPDX-License-Identifier: BSD-3-Clause
"""harden-unverified-glue (Unbound 1.21) and its last resort, this
daemon's only (Debian's Unbound 1.17 has no such option).

uvg.bad.tld2. is delegated by the scripted responder of bad.tld2. to one
server, ns.sib.bad.tld2., with glue: the name is in bad.tld2. but not
below uvg.bad.tld2., so with the option on that glue is not believed.
The resolver asks for ns.sib.bad.tld2.'s address itself (the verified
route): bad.tld2.'s server REFUSES it. The glue is the only way to the
zone's server, a responder of its own: with the option on, the name
still resolves, through the glue kept aside ("try unverified glue from
cache"), and only after the verified route failed (the query logs of
both servers, in time order); with it off the glue is used at once and
ns.sib.bad.tld2. is never asked."""
import os
import sys

import dns.rcode
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from testnet import have_nsd, zones  # noqa: E402
from testnet.fixture import testnet_net, net  # noqa: E402,F401
from testnet.net import addresses_free  # noqa: E402
from testnet.responder_ctl import ResponderInstance  # noqa: E402
from conftest import SLOW, ours_only  # noqa: E402

pytestmark = [ours_only,
              pytest.mark.skipif(not have_nsd(),
                                 reason="nsd is not installed")]

CHILD_HOST = 17     # beside test_iter_resolution's hosts (14 to 16)
ZONE = "uvg.bad.tld2."
NS = "ns.sib.bad.tld2."
BODY = """module-config: "iterator"
do-ip6: no
qname-minimisation: no
"""


@pytest.fixture(scope="module")
def child(testnet_net, tmp_path_factory):
    """The zone's own server (a responder on CHILD_HOST) and the rules
    that make bad.tld2.'s server delegate to it with sibling glue and
    refuse the NS name's address. Yields (child instance, rules)."""
    net = testnet_net
    if not net.iterable:
        pytest.skip("test internet not on port 53 (needs root)")
    if not addresses_free(net.prefix, net.port, [CHILD_HOST]):
        pytest.skip("no free address for the child zone's server")
    address = zones.addr(net.prefix, CHILD_HOST)
    records = ["%s 300 IN SOA %s hostmaster.%s 1 3600 900 604800 300"
               % (ZONE, NS, ZONE),
               "%s 300 IN NS %s" % (ZONE, NS)]
    records += ["w%d.%s 300 IN A 192.0.2.%d" % (i, ZONE, 80 + i)
                for i in range(3)]
    spec = zones.ResponderServer("uvg-child", CHILD_HOST, ZONE, records)
    inst = ResponderInstance(spec, str(tmp_path_factory.mktemp("uvg")),
                             address, net.port)
    inst.write()
    inst.start()
    try:
        inst.wait_ready()
        rules = [{"name": ZONE, "suffix": True, "actions": [{
                     "type": "referral", "zone": ZONE, "ns": [NS],
                     "glue": {NS: [address]}}]},
                 {"name": NS, "actions": [{"type": "rcode",
                                           "rcode": "REFUSED"}]}]
        yield inst, rules
    finally:
        inst.stop()


def resolve(unbound, name):
    # over TCP: discard-timeout does not drop a slow reply there
    return unbound.query(name, "A", tcp=True, timeout=8.0 * SLOW)


def rdata(r):
    return sorted(rd.to_text() for rr in r.answer for rd in rr)


def test_unverified_glue_last_resort(unbound, net, child):
    """On: the name resolves through the glue set aside, asked only
    after bad.tld2.'s server refused the NS name's address; a second
    name of the zone (its delegation now cached) goes the same way."""
    inst, rules = child
    bad = net.responder("bad")
    bad.set_behaviour(rules=rules)
    bad.clear_log()
    inst.clear_log()
    unbound.start(BODY + "harden-unverified-glue: yes", verbosity=4,
                  root_hints=net.root_hints)
    r = resolve(unbound, "w0." + ZONE)
    assert dns.rcode.to_text(r.rcode()) == "NOERROR", r
    assert rdata(r) == ["192.0.2.80"]
    # the verified route was tried, and failed, before the glue was used
    refused = bad.queries(NS, "A")
    asked = inst.queries("w0." + ZONE, "A")
    assert refused and all(q["did"] == "rcode" for q in refused), refused
    assert asked, "the zone's server was never asked"
    assert max(q["t"] for q in refused) <= min(q["t"] for q in asked), \
        (refused, asked)
    assert "try unverified glue from cache" in unbound.log()
    r = resolve(unbound, "w1." + ZONE)
    assert rdata(r) == ["192.0.2.81"], r


def test_unverified_glue_off_uses_glue(unbound, net, child):
    """Off (the default): the glue is believed, the zone's server asked
    at once, the NS name's address never looked up."""
    inst, rules = child
    bad = net.responder("bad")
    bad.set_behaviour(rules=rules)
    bad.clear_log()
    inst.clear_log()
    unbound.start(BODY, root_hints=net.root_hints)
    r = resolve(unbound, "w2." + ZONE)
    assert rdata(r) == ["192.0.2.82"], r
    assert inst.queries("w2." + ZONE, "A")
    assert bad.queries(NS) == []
