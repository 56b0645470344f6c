# SPDX-License-Identifier: BSD-3-Clause
"""The local-zone types block_a, block_aaaa, block_a_wdata and
block_aaaa_wdata of Unbound 1.26 (Debian's Unbound 1.17 has none of
them, so this daemon alone, checked against Unbound 1.26's source and
documentation): NODATA without SOA for the blocked type (with DO too),
the other types resolved; block_a/block_aaaa ignore local data, the
_wdata types answer it first. In a view, block_a and block_aaaa pass
every question on (Unbound's local_zone_does_not_cover): without
view-first it is resolved, with view-first the global zones answer.
Clients from 127.0.0.x choose the view."""
import dns.flags
import dns.message
import dns.rcode
import dns.rdatatype
import pytest

from conftest import SLOW, Server, Upstream, _finish, ours_only

pytestmark = ours_only

RECURSED = {"A": "192.0.2.253", "AAAA": "2001:db8::fd"}

BODY = """access-control: 127.0.0.0/8 allow
access-control-view: 127.0.0.2/32 plain
access-control-view: 127.0.0.3/32 first
local-zone: "ba.upv." block_a
local-data: "x.ba.upv. A 10.0.0.1"
local-zone: "b6.upv." block_aaaa
local-data: "x.b6.upv. AAAA 2001:db8::1"
local-zone: "baw.upv." block_a_wdata
local-data: "x.baw.upv. A 10.0.0.2"
local-zone: "b6w.upv." block_aaaa_wdata
local-data: "x.b6w.upv. AAAA 2001:db8::2"
local-zone: "g.upv." static
local-data: "x.g.upv. A 10.0.0.9"
"""

VIEWS = """view:
	name: "plain"
	local-zone: "g.upv." block_a
view:
	name: "first"
	view-first: yes
	local-zone: "g.upv." block_a
"""


@pytest.fixture(scope="module")
def srv(tmp_path_factory):
    up = Upstream()
    s = Server(tmp_path_factory.mktemp("block"))
    s.start(BODY, extra=VIEWS + up.stub_zone("upv."))
    yield s
    _finish(s)
    up.close()


def ask(srv, name, qtype, do=False, source="127.0.0.1"):
    q = dns.message.make_query(name, qtype, want_dnssec=do)
    r = srv.query(q, source=source, timeout=3.0 * SLOW)
    return (dns.rcode.to_text(r.rcode()), bool(r.flags & dns.flags.AA),
            [rd.to_text() for rs in r.answer for rd in rs],
            len(r.authority))


NODATA = ("NOERROR", True, [], 0)


def resolved(qtype):
    return ("NOERROR", False, [RECURSED[qtype]], 0)


@pytest.mark.parametrize("do", [False, True])
def test_block_a_and_aaaa(srv, do):
    # the blocked type: NODATA without SOA, local data or not, DO or not
    assert ask(srv, "x.ba.upv.", "A", do) == NODATA
    assert ask(srv, "y.ba.upv.", "A", do) == NODATA
    assert ask(srv, "x.b6.upv.", "AAAA", do) == NODATA
    # the other type is resolved; the local data is ignored
    assert ask(srv, "x.ba.upv.", "AAAA", do) == resolved("AAAA")
    assert ask(srv, "x.b6.upv.", "A", do) == resolved("A")


def test_block_wdata(srv):
    # local data answers first
    assert ask(srv, "x.baw.upv.", "A") == ("NOERROR", True, ["10.0.0.2"], 0)
    assert ask(srv, "x.b6w.upv.", "AAAA") == \
        ("NOERROR", True, ["2001:db8::2"], 0)
    # then the block
    assert ask(srv, "y.baw.upv.", "A") == NODATA
    assert ask(srv, "y.b6w.upv.", "AAAA") == NODATA
    # other types resolved, even for a name with local data
    assert ask(srv, "x.baw.upv.", "AAAA") == resolved("AAAA")
    assert ask(srv, "y.b6w.upv.", "A") == resolved("A")


def test_block_in_view_passes_on(srv):
    # no view: the global static zone
    assert ask(srv, "x.g.upv.", "A") == ("NOERROR", True, ["10.0.0.9"], 0)
    # a view's block_a zone passes the question on: resolved ...
    assert ask(srv, "x.g.upv.", "A", source="127.0.0.2") == resolved("A")
    # ... or, with view-first, the global zone answers
    assert ask(srv, "x.g.upv.", "A", source="127.0.0.3") == \
        ("NOERROR", True, ["10.0.0.9"], 0)
