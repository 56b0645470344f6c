# SPDX-License-Identifier: BSD-3-Clause
"""Tag actions and data (access-control-tag-action, access-control-tag-data)
and local-zone-override, side by side with Debian's Unbound 1.17 on the
same config, clients from chosen source addresses (127.0.0.x).

Unbound's rules: a tagged local zone serves only clients with a tag in
common; for such a client the zone's type is, in this order, a
local-zone-override for its address (the longest netblock), else the
action of the first tag (lowest id) it has in common with the zone, else
the zone's own; a redirect type answers with that tag's data when it has
some for the question's type, else with the zone's. The always_* actions
ignore the zone's data; inform logs the query.

Compared per question: rcode, header flags and every section, records
without TTLs (as test_respip.py). Errors at start are compared too."""
import os
import re
import time

import dns.flags
import dns.message
import dns.rcode
import dns.rdatatype
import pytest

from conftest import (DEB_UNBOUND, REFERENCE, SLOW, RefServer, Server,
                      Upstream, _finish)
from test_tags import both_refuse_at_start
from test_views import RECURSED

pytestmark = [
    pytest.mark.skipif(not os.access(DEB_UNBOUND, os.X_OK),
                       reason="Debian's unbound is not installed"),
    pytest.mark.skipif(REFERENCE, reason="compares this build with "
                       "the reference; UNBOUND_BIN is the reference"),
]

NOTAG = "127.0.0.1"
NXD = "127.0.0.11"      # ads -> always_nxdomain
REDIR = "127.0.0.12"    # ads -> redirect, with data
PLAIN = "127.0.0.13"    # ads, no action
FIRST = "127.0.0.14"    # ads and kids, each with an action
INFORM = "127.0.0.15"   # ads -> inform
TRANSP = "127.0.0.16"   # ads -> always_transparent
OVR = "127.0.0.19"      # ads -> always_nxdomain, overridden to static
WORK = "127.0.0.20"     # work, with data
WORK2 = "127.0.0.21"    # work, no data
OV_ONE = "127.0.0.25"   # local-zone-override /32: always_nxdomain
OV_NET = "127.0.0.26"   # local-zone-override /30: always_refuse

BODY = """access-control: 127.0.0.0/8 allow
define-tag: "ads kids work"
access-control-tag: 127.0.0.11/32 "ads"
access-control-tag-action: 127.0.0.11/32 ads always_nxdomain
access-control-tag: 127.0.0.12/32 "ads"
access-control-tag-action: 127.0.0.12/32 ads redirect
access-control-tag-data: 127.0.0.12/32 ads "A 10.9.9.9"
access-control-tag-data: 127.0.0.12/32 ads "A 10.9.9.8"
access-control-tag: 127.0.0.13/32 "ads"
access-control-tag: 127.0.0.14/32 "kids ads"
access-control-tag-action: 127.0.0.14/32 kids always_refuse
access-control-tag-action: 127.0.0.14/32 ads always_nodata
access-control-tag: 127.0.0.15/32 "ads"
access-control-tag-action: 127.0.0.15/32 ads inform
access-control-tag: 127.0.0.16/32 "ads"
access-control-tag-action: 127.0.0.16/32 ads always_transparent
access-control-tag: 127.0.0.19/32 "ads"
access-control-tag-action: 127.0.0.19/32 ads always_nxdomain
access-control-tag: 127.0.0.20/32 "work"
access-control-tag-data: 127.0.0.20/32 work "A 10.7.0.7"
access-control-tag-data: 127.0.0.20/32 work "TXT tagdata"
access-control-tag: 127.0.0.21/32 "work"
local-zone: "ads.upv." static
local-data: "www.ads.upv. A 10.1.0.1"
local-data: "ads.upv. SOA ns.ads.upv. h.ads.upv. 1 3600 600 86400 300"
local-zone-tag: "ads.upv." "ads"
local-zone-override: "ads.upv." 127.0.0.19/32 static
local-zone: "mix.upv." static
local-data: "www.mix.upv. A 10.1.0.2"
local-zone-tag: "mix.upv." "kids ads"
local-zone: "rd.upv." redirect
local-data: "rd.upv. A 10.2.0.1"
local-zone-tag: "rd.upv." "work"
local-zone: "ovr.upv." static
local-data: "www.ovr.upv. A 10.3.0.1"
local-zone-override: "ovr.upv." 127.0.0.24/30 always_refuse
local-zone-override: "ovr.upv." 127.0.0.25/32 always_nxdomain
"""


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    up = Upstream()
    pair = (Server(tmp_path_factory.mktemp("ours")),
            RefServer(tmp_path_factory.mktemp("reference")))
    for s in pair:
        s.start(BODY, extra=up.stub_zone("upv."))
    yield pair
    for s in pair:
        _finish(s)
    up.close()


FLAGS = (dns.flags.QR, dns.flags.AA, dns.flags.TC, dns.flags.RD,
         dns.flags.RA, dns.flags.AD, dns.flags.CD)


def seen(srv, qname, qtype, source):
    """rcode, flags and each section's records without TTLs (sorted)."""
    q = dns.message.make_query(qname, qtype)
    r = srv.query(q, source=source, timeout=3.0 * SLOW)

    def sec(rrsets):
        return sorted("%s %s %s" % (rs.name, dns.rdatatype.to_text(
            rs.rdtype), rd.to_text()) for rs in rrsets for rd in rs)
    return (dns.rcode.to_text(r.rcode()),
            dns.flags.to_text(r.flags & sum(FLAGS)),
            sec(r.answer), sec(r.authority), sec(r.additional))


def both(pair, qname, qtype, source):
    a = seen(pair[0], qname, qtype, source)
    b = seen(pair[1], qname, qtype, source)
    assert a == b, "%s %s from %s:\nours %s\nreference %s" % (
        qname, qtype, source, a, b)
    return a


def wait_log(srv, pat, timeout=10.0 * SLOW):
    """Poll srv's log for pat; True once it is there."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if pat.search(srv.output()):
            return True
        time.sleep(0.05)
    return False


def addrs(v):
    return [x.split()[2] for x in v[2]]


def test_action_replaces_the_zone_type(world):
    # always_nxdomain ignores the zone's data
    v = both(world, "www.ads.upv.", "A", NXD)
    assert v[0] == "NXDOMAIN" and v[3], v
    # no action: the zone's own type (static)
    assert addrs(both(world, "www.ads.upv.", "A", PLAIN)) == ["10.1.0.1"]
    assert both(world, "nx.ads.upv.", "A", PLAIN)[0] == "NXDOMAIN"
    # always_transparent: resolved though the zone has the data
    assert addrs(both(world, "www.ads.upv.", "A", TRANSP)) == [RECURSED]
    # a client without the tag: the zone is not there for it
    assert addrs(both(world, "www.ads.upv.", "A", NOTAG)) == [RECURSED]


def test_redirect_action_answers_with_tag_data(world):
    v = both(world, "any.thing.ads.upv.", "A", REDIR)
    assert sorted(addrs(v)) == ["10.9.9.8", "10.9.9.9"], v
    assert v[2][0].startswith("any.thing.ads.upv. A"), v
    # no tag data of that type: the zone's data at its apex (none): NODATA
    v = both(world, "www.ads.upv.", "AAAA", REDIR)
    assert v[0] == "NOERROR" and not v[2], v


def test_first_common_tag_decides(world):
    # ads (id 0) before kids (id 1): always_nodata, not always_refuse
    v = both(world, "www.mix.upv.", "A", FIRST)
    assert v[0] == "NOERROR" and not v[2], v
    # ads.upv. carries only ads: its action
    v = both(world, "www.ads.upv.", "A", FIRST)
    assert v[0] == "NOERROR" and not v[2], v


def test_inform_action_logs_and_answers(world):
    assert addrs(both(world, "www.ads.upv.", "A", INFORM)) == ["10.1.0.1"]
    for s in world:
        # "ads.upv. static 127.0.0.15@PORT www.ads.upv. A IN": the
        # zone's own type in the line, as Unbound prints it
        pat = re.compile(r"ads\.upv\. static 127\.0\.0\.15@\d+ "
                         r"www\.ads\.upv\. A IN")
        assert wait_log(s, pat), (s.binary, s.output()[-2000:])


def test_tag_data_of_a_redirect_zone(world):
    v = both(world, "host.rd.upv.", "A", WORK)
    assert addrs(v) == ["10.7.0.7"], v
    v = both(world, "host.rd.upv.", "TXT", WORK)
    assert v[2] == ['host.rd.upv. TXT "tagdata"'], v
    # no tag data for the type: the zone's own data
    v = both(world, "host.rd.upv.", "AAAA", WORK)
    assert v[0] == "NOERROR" and not v[2], v
    # the same tag without data: the zone's data
    assert addrs(both(world, "host.rd.upv.", "A", WORK2)) == ["10.2.0.1"]


def test_local_zone_override(world):
    # the longest netblock: /32 always_nxdomain, the /30 always_refuse
    assert both(world, "www.ovr.upv.", "A", OV_ONE)[0] == "NXDOMAIN"
    assert both(world, "www.ovr.upv.", "A", OV_NET)[0] == "REFUSED"
    assert addrs(both(world, "www.ovr.upv.", "A", NOTAG)) == ["10.3.0.1"]
    # before the tag's action
    assert addrs(both(world, "www.ads.upv.", "A", OVR)) == ["10.1.0.1"]


@pytest.mark.parametrize("body,text", [
    ('define-tag: "a"\naccess-control-tag-action: 127.0.0.5/32 b deny\n',
     "cannot parse tag (define-tag it)"),
    ('define-tag: "a"\naccess-control-tag-action: 127.0.0.5/32 a bogus\n',
     "cannot parse access control action type"),
    ('define-tag: "a"\naccess-control-tag-data: 127.0.0.5/32 a "A x"\n',
     "cannot parse access-control-tag data"),
    ('local-zone-override: "nozone.upv." 127.0.0.5/32 deny\n',
     "no local-zone for local-zone-override"),
    ('local-zone: "z.upv." static\n'
     'local-zone-override: "z.upv." 127.0.0.5/32 bogus\n',
     "cannot parse type in local-zone-override"),
    ('local-zone: "z.upv." static\n'
     'local-zone-override: "z.upv." 127.0.0.999/32 deny\n',
     "cannot parse netblock in local-zone-override"),
])
def test_errors_refused_at_start(tmp_path, body, text):
    both_refuse_at_start(tmp_path, body, text)
