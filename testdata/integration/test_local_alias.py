# SPDX-License-Identifier: BSD-3-Clause
"""Local aliases: a local-data CNAME of a redirect (or inform_redirect)
zone, or an access-control-tag-data CNAME such a zone answers with,
answering another type has its target resolved and the target's whole
reply joined after the CNAME (AA, no AD), as Unbound 1.17's
qinfo.local_alias; side by side with Debian's Unbound 1.17 on the same
config over the signed test internet, with the plain module stack (no
respip). Targets: a name of the test internet (from recursion, then from
the message cache, counted as a cache hit), a signed one asked with DO,
a CNAME chain, one that fails validation (SERVFAIL), one that does not
exist (NXDOMAIN), a wildcard target ("*.insec." synthesised from the
question), two aliases pointing at each other (each target is resolved,
not looked up in the local zones: no loop), a view's redirect zone, the
tag data. A CNAME in a static or transparent zone, and a CNAME question,
are answered with the CNAME alone; a client that may not recurse gets no
alias. Compared per question: rcode, the header flags, the three
sections (records as text without TTLs; OPT left out). Needs nsd,
Debian's unbound and root (port 53); skips otherwise."""
import os
import sys

import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from signednet_pair import (SKIP_MARKS, running_pair,  # noqa: E402,F401
                            signednet_net, write_zones)
from test_control import ctl, stats_dict  # noqa: E402
from test_respip import both, both_from, answer_of  # noqa: E402


pytestmark = SKIP_MARKS

TAGGED = "127.0.0.7"
IN_VIEW = "127.0.0.8"
NO_RECURSION = "127.0.0.9"

BODY = """trust-anchor-file: "%s"
do-ip6: no
access-control: 127.0.0.0/8 allow
access-control: 127.0.0.9/32 refuse_non_local
minimal-responses: yes
define-tag: "t1"
access-control-tag: 127.0.0.7/32 "t1"
access-control-tag-data: 127.0.0.7/32 t1 "CNAME www.insec."
access-control-view: 127.0.0.8/32 v1
local-zone: "ra." redirect
local-data: "ra. CNAME www.insec."
local-zone: "rs." inform_redirect
local-data: "rs. CNAME example.sec1."
local-zone: "rc." redirect
local-data: "rc. CNAME long.example.sec1."
local-zone: "rf." redirect
local-data: "rf. CNAME www.badsig.sec1."
local-zone: "rn." redirect
local-data: "rn. CNAME nosuch.sec1."
local-zone: "rw." redirect
local-data: "rw. CNAME *.insec."
local-zone: "loopa." redirect
local-data: "loopa. CNAME loopb."
local-zone: "loopb." redirect
local-data: "loopb. CNAME loopa."
local-zone: "rl." redirect
local-data: "rl. CNAME t.lz."
local-zone: "lz." static
local-data: "t.lz. A 10.5.5.5"
local-zone: "st." static
local-data: "www.st. CNAME www.insec."
local-zone: "ti." transparent
local-data: "www.ti. CNAME www.insec."
local-zone: "tg." redirect
local-zone-tag: "tg." "t1"
local-data: "tg. TXT not-an-alias"
view:
\tname: "v1"
\tlocal-zone: "vw." redirect
\tlocal-data: "vw. CNAME www.insec."
"""


@pytest.fixture(scope="module")
def pair(signednet_net, tmp_path_factory):
    with running_pair(signednet_net, tmp_path_factory,
                      BODY % signednet_net.anchor, control=True) as p:
        yield p


def misses(srv):
    return int(stats_dict(ctl(srv.conf, "stats_noreset",
                              binary=srv.ctl_bin).stdout)
               .get("total.num.cachemiss", "0"))


def test_alias_to_internet_name(pair):
    # the first from recursion, the second from the cache (both() checks
    # the hit counter)
    v = both(pair, "www.ra.", "A")
    assert v[0] == "NOERROR" and "AA" in v[1], v
    assert answer_of(v) == ["www.insec. A 192.0.2.9",
                            "www.ra. CNAME www.insec."], v


def test_alias_target_in_cache_is_a_hit(pair):
    # www.insec. is cached by now: a new alias name to it misses nothing
    for srv in pair:
        before = misses(srv)
        r = srv.query("other.ra.", "A")
        assert [str(x.name) for x in r.answer] == ["other.ra.",
                                                    "www.insec."], r
        assert misses(srv) == before, srv.binary


def test_alias_signed_target(pair):
    for do in (False, True):
        v = both(pair, "rs.", "A", do=do)
        assert v[0] == "NOERROR" and "AA" in v[1], v
        assert "AD" not in v[1], v
        assert "rs. CNAME example.sec1." in answer_of(v), v
        assert "example.sec1. A 192.0.2.100" in answer_of(v), v


def test_alias_to_chain(pair):
    v = both(pair, "rc.", "A")
    a = answer_of(v)
    assert a.count("rc. CNAME long.example.sec1.") == 1, v
    assert "l10.example.sec1. A 192.0.2.110" in a, v


def test_alias_target_fails(pair):
    v = both(pair, "rf.", "A", cached=False)
    assert v[0] == "SERVFAIL" and answer_of(v) == [], v


def test_alias_target_nxdomain(pair):
    v = both(pair, "rn.", "A")
    assert v[0] == "NXDOMAIN" and "AA" in v[1], v
    assert answer_of(v) == ["rn. CNAME nosuch.sec1."], v


def test_alias_wildcard_target(pair):
    v = both(pair, "www.rw.", "A", cached=False)
    assert "www.rw. CNAME www.rw.insec." in answer_of(v), v


def test_alias_wildcard_target_too_long(pair):
    # 250 bytes on the wire: with "insec." the target would be 256
    name = ".".join(["a" * 62] * 3 + ["b" * 56]) + ".rw."
    v = both(pair, name, "A", cached=False)
    assert v[0] == "YXDOMAIN" and "AA" in v[1], v


def test_aliases_pointing_at_each_other(pair):
    # the target is resolved, not answered from the local zones
    v = both(pair, "loopa.", "A")
    assert v[0] == "NXDOMAIN", v
    assert answer_of(v) == ["loopa. CNAME loopb."], v


def test_alias_to_local_name(pair):
    # (not counted as hits: a name the root's NSEC denies may be
    # answered from the negative cache, by either)
    v = both(pair, "rl.", "A", cached=False)
    assert "rl. CNAME t.lz." in answer_of(v), v
    assert "t.lz. A 10.5.5.5" not in answer_of(v), v


def test_cname_question_not_chased(pair):
    v = both(pair, "www.ra.", "CNAME", cached=False)
    assert answer_of(v) == ["www.ra. CNAME www.insec."], v


@pytest.mark.parametrize("name", ["www.st.", "www.ti."])
def test_other_zone_types_answer_cname_alone(pair, name):
    v = both(pair, name, "A", cached=False)
    assert answer_of(v) == [name + " CNAME www.insec."], v


def test_view_alias(pair):
    v = both_from(pair, "vw.", "A", IN_VIEW)
    assert answer_of(v) == ["vw. CNAME www.insec.",
                            "www.insec. A 192.0.2.9"], v


def test_tag_data_alias(pair):
    v = both_from(pair, "x.tg.", "A", TAGGED)
    assert answer_of(v) == ["www.insec. A 192.0.2.9",
                            "x.tg. CNAME www.insec."], v
    v = both_from(pair, "x.tg.", "TXT", "127.0.0.1")
    assert v[0] == "NXDOMAIN", v


def test_no_alias_for_non_local_refused(pair):
    v = both_from(pair, "www.ra.", "A", NO_RECURSION)
    assert v[0] == "REFUSED", v


RPZ_ZONE = """$ORIGIN rpz.alias.
$TTL 60
@ SOA ns.rpz.alias. admin.rpz.alias. 1 3600 600 86400 60
@ NS ns.rpz.alias.
32.6.0.0.127.rpz-client-ip CNAME www.insec.
"""

CLIENT_IP = "127.0.0.6"


@pytest.fixture(scope="module")
def rpzpair(signednet_net, tmp_path_factory):
    """The same local zones with the respip module and an RPZ zone: its
    client-ip trigger for 127.0.0.6 is a CNAME."""
    zone, = write_zones(tmp_path_factory, ("alias.zone", RPZ_ZONE))
    with running_pair(
            signednet_net, tmp_path_factory,
            'module-config: "respip validator iterator"\n' +
            BODY % signednet_net.anchor +
            'rpz:\n\tname: rpz.alias.\n\tzonefile: "%s"\n' % zone,
            control=True) as p:
        yield p


def test_alias_with_respip(rpzpair):
    v = both(rpzpair, "www.ra.", "A")
    assert answer_of(v) == ["www.insec. A 192.0.2.9",
                            "www.ra. CNAME www.insec."], v
    v = both(rpzpair, "rf.", "A", cached=False)
    assert v[0] == "SERVFAIL" and answer_of(v) == [], v


@pytest.mark.parametrize("qtype", ["A", "CNAME", "TXT"])
def test_client_ip_cname(rpzpair, qtype):
    """A client-ip trigger's CNAME is answered alone for every type, its
    target not resolved: as Debian's 1.17 does (no local alias there,
    unlike a QNAME trigger's CNAME)."""
    v = both_from(rpzpair, "www.ra.", qtype, CLIENT_IP)
    assert v[0] == "NOERROR" and "AA" in v[1], v
    assert answer_of(v) == ["www.ra. CNAME www.insec."], v
