# SPDX-License-Identifier: BSD-3-Clause
"""Views (view:, access-control-view:), side by side with Debian's
Unbound 1.17 on the same config: real clients from chosen source
addresses (127.0.0.x) get their view's local zones (split horizon);
without view-first what the view leaves is resolved (asked upstream),
with view-first the global local zones answer it; a view without local
zones leaves everything to the global ones; noview and a transparent
view zone without data pass the question on; a view without view-first
has Unbound's default zones (localhost). The view_* unbound-control
commands, their texts compared with Unbound's. A reload with a broken
view is refused and the old config keeps serving (ours only: Unbound
exits).

Compared per question: rcode, AA and the answer records without TTLs.
Needs Debian's unbound for the side-by-side part."""
import os
import signal
import subprocess
import time

import dns.flags
import dns.message
import dns.rcode
import dns.rdatatype
import pytest

from conftest import (DEB_UNBOUND, REFERENCE, SLOW, RefServer, Server,
                      Upstream, _finish, free_port)
from test_control import DEB_CTL, OUR_CTL, rc_clause

pytestmark = [
    pytest.mark.skipif(not os.access(DEB_UNBOUND, os.X_OK),
                       reason="Debian's unbound is not installed"),
    pytest.mark.skipif(REFERENCE, reason="compares this build with "
                       "the reference; UNBOUND_BIN is the reference"),
]

NOVIEW, RED, BLUE, EMPTY = ("127.0.0.1", "127.0.0.2", "127.0.0.3",
                            "127.0.0.4")
RECURSED = "192.0.2.253"   # the Upstream's answer: resolved, not local

BODY = """access-control: 127.0.0.0/8 allow
access-control-view: 127.0.0.2/32 red
access-control-view: 127.0.0.3/32 blue
access-control-view: 127.0.0.4/32 empty
local-zone: "global.upv." static
local-data: "www.global.upv. A 10.0.0.1"
local-zone: "split.upv." static
local-data: "host.split.upv. A 10.0.0.10"
local-data: "nv.split.upv. A 10.0.0.20"
local-zone: "tr.upv." static
local-data: "b.tr.upv. A 10.0.0.31"
"""

VIEWS = """view:
	name: "red"
	local-zone: "split.upv." static
	local-data: "host.split.upv. A 10.2.0.10"
	local-zone: "nv.split.upv." noview
	local-zone: "tr.upv." transparent
	local-data: "a.tr.upv. A 10.2.0.30"
	local-data-ptr: "10.2.0.10 host.split.upv."
view:
	name: "blue"
	view-first: yes
	local-zone: "split.upv." static
	local-data: "host.split.upv. A 10.3.0.10"
	local-zone: "nv.split.upv." noview
	local-zone: "tr.upv." transparent
	local-data: "a.tr.upv. A 10.3.0.30"
view:
	name: "empty"
view:
	name: "spare"
"""


def start_pair(tmp_path_factory, up, body=BODY, views=VIEWS):
    ours = Server(tmp_path_factory.mktemp("ours"))
    ref = RefServer(tmp_path_factory.mktemp("reference"))
    ours.ctl_bin, ref.ctl_bin = OUR_CTL, DEB_CTL
    for s in (ours, ref):
        s.start(body, extra=views + up.stub_zone("upv.") +
                rc_clause(None, free_port(), use_cert=False))
    return ours, ref


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    up = Upstream()
    pair = start_pair(tmp_path_factory, up)
    yield pair
    for s in pair:
        _finish(s)
    up.close()


def seen(srv, qname, qtype, source):
    """rcode, AA, the answer records as text without TTLs (sorted)."""
    q = dns.message.make_query(qname, qtype)
    r = srv.query(q, source=source, timeout=3.0 * SLOW)
    rrs = sorted("%s %s %s" % (rs.name, dns.rdatatype.to_text(rs.rdtype),
                               rd.to_text())
                 for rs in r.answer for rd in rs)
    return (dns.rcode.to_text(r.rcode()), bool(r.flags & dns.flags.AA),
            rrs)


def both(pair, qname, qtype, source):
    a = seen(pair[0], qname, qtype, source)
    b = seen(pair[1], qname, qtype, source)
    assert a == b, "%s %s from %s:\nours %s\nreference %s" % (
        qname, qtype, source, a, b)
    return a


def addrs(v):
    return [x.split()[2] for x in v[2]]


def test_split_horizon_per_client(world):
    name = "host.split.upv."
    assert addrs(both(world, name, "A", NOVIEW)) == ["10.0.0.10"]
    assert addrs(both(world, name, "A", RED)) == ["10.2.0.10"]
    assert addrs(both(world, name, "A", BLUE)) == ["10.3.0.10"]
    # a view without local zones: the global ones answer
    assert addrs(both(world, name, "A", EMPTY)) == ["10.0.0.10"]
    # local-data-ptr in a view
    v = both(world, "10.0.2.10.in-addr.arpa.", "PTR", RED)
    assert addrs(v) == ["host.split.upv."], v


def test_view_first(world):
    name = "www.global.upv."
    assert addrs(both(world, name, "A", NOVIEW)) == ["10.0.0.1"]
    # red (no view-first): the view has no zone for it, resolved
    v = both(world, name, "A", RED)
    assert addrs(v) == [RECURSED] and not v[1], v
    # blue (view-first): the global zone answers
    assert addrs(both(world, name, "A", BLUE)) == ["10.0.0.1"]
    assert addrs(both(world, name, "A", EMPTY)) == ["10.0.0.1"]
    # the view's static zone: NXDOMAIN there, not the global data
    v = both(world, "other.split.upv.", "A", BLUE)
    assert v[0] == "NXDOMAIN", v


def test_noview_and_transparent_pass_on(world):
    # noview: red resolves it, blue (view-first) gets the global data
    v = both(world, "nv.split.upv.", "A", RED)
    assert addrs(v) == [RECURSED], v
    v = both(world, "nv.split.upv.", "A", BLUE)
    assert addrs(v) == ["10.0.0.20"], v
    # a transparent view zone answers its own data ...
    assert addrs(both(world, "a.tr.upv.", "A", RED)) == ["10.2.0.30"]
    assert addrs(both(world, "a.tr.upv.", "A", BLUE)) == ["10.3.0.30"]
    # ... and passes on a name it has nothing for
    v = both(world, "b.tr.upv.", "A", RED)
    assert addrs(v) == [RECURSED], v
    v = both(world, "b.tr.upv.", "A", BLUE)
    assert addrs(v) == ["10.0.0.31"], v


def test_view_default_zones(world):
    # red has Unbound's default zones of its own, blue uses the global
    for src in (RED, BLUE, EMPTY, NOVIEW):
        v = both(world, "localhost.", "A", src)
        assert addrs(v) == ["127.0.0.1"], (src, v)
        v = both(world, "1.0.0.10.in-addr.arpa.", "PTR", src)
        assert v[0] == "NXDOMAIN", (src, v)   # RFC 6303 zone 10.in-addr


def test_cache_does_not_leak_between_views(world):
    # a resolved answer cached for red is not served to blue, whose
    # view-first gets the global local data
    for _ in range(2):
        assert addrs(both(world, "www.global.upv.", "A", RED)) == \
            [RECURSED]
        assert addrs(both(world, "www.global.upv.", "A", BLUE)) == \
            ["10.0.0.1"]


# -- unbound-control -----------------------------------------------------

def ctl(srv, *args, stdin=None):
    r = subprocess.run([srv.ctl_bin, "-c", srv.conf] + list(args),
                       capture_output=True, text=True, timeout=10,
                       input=stdin)
    return r.stdout + r.stderr


def ctl_both(pair, *args, stdin=None):
    a = ctl(pair[0], *args, stdin=stdin)
    b = ctl(pair[1], *args, stdin=stdin)
    assert a == b, "%s:\nours %r\nreference %r" % (args, a, b)
    return a


@pytest.fixture
def ctlworld(tmp_path_factory):
    up = Upstream()
    pair = start_pair(tmp_path_factory, up)
    yield pair
    for s in pair:
        _finish(s)
    up.close()


def test_control_view_local_data(ctlworld):
    w = ctlworld
    assert ctl_both(w, "view_local_zone", "red", "ctl.upv.",
                    "static") == "ok\n"
    assert ctl_both(w, "view_local_data", "red",
                    "x.ctl.upv. A 10.9.9.9") == "ok\n"
    assert addrs(both(w, "x.ctl.upv.", "A", RED)) == ["10.9.9.9"]
    # a change of the global zones keeps the view's changes
    assert ctl_both(w, "local_data", "g.glob.upv. A 10.1.1.1") == "ok\n"
    assert addrs(both(w, "g.glob.upv.", "A", NOVIEW)) == ["10.1.1.1"]
    assert addrs(both(w, "x.ctl.upv.", "A", RED)) == ["10.9.9.9"]
    # other clients: not theirs
    assert addrs(both(w, "x.ctl.upv.", "A", NOVIEW)) == [RECURSED]
    v = both(w, "x.ctl.upv.", "A", BLUE)
    assert addrs(v) == [RECURSED], v
    zones = ctl_both(w, "view_list_local_zones", "red")
    assert "ctl.upv. static\n" in zones
    assert "localhost. redirect\n" in zones    # red's own defaults
    data = ctl_both(w, "view_list_local_data", "red")
    assert "x.ctl.upv.\t3600\tIN\tA\t10.9.9.9\n" in data, data
    assert ctl_both(w, "view_local_data_remove", "red",
                    "x.ctl.upv.") == "ok\n"
    assert both(w, "x.ctl.upv.", "A", RED)[0] == "NXDOMAIN"
    assert ctl_both(w, "view_local_zone_remove", "red",
                    "ctl.upv.") == "ok\n"
    assert addrs(both(w, "x.ctl.upv.", "A", RED)) == [RECURSED]
    # the global zones are untouched
    assert "ctl.upv." not in ctl_both(w, "list_local_zones")


def test_control_view_bulk_and_errors(ctlworld):
    w = ctlworld
    out = ctl_both(w, "view_local_datas", "blue",
                   stdin="p.bulk.upv. A 10.8.0.1\n"
                   "q.bulk.upv. A 10.8.0.2\nbad bad\n")
    assert out.endswith("added 2 datas\n"), out
    assert addrs(both(w, "p.bulk.upv.", "A", BLUE)) == ["10.8.0.1"]
    assert addrs(both(w, "p.bulk.upv.", "A", RED)) == [RECURSED]
    out = ctl_both(w, "view_local_datas_remove", "blue",
                   stdin="p.bulk.upv.\n")
    assert out == "removed 1 datas\n", out
    # gone: its (transparent) zone passes it on, blue is view-first
    v = both(w, "p.bulk.upv.", "A", BLUE)
    assert addrs(v) == [RECURSED], v
    assert addrs(both(w, "q.bulk.upv.", "A", BLUE)) == ["10.8.0.2"]
    ctl_both(w, "view_list_local_data", "blue")
    # an empty view: local data makes its local zones (no defaults)
    assert ctl_both(w, "view_local_data", "empty",
                    "e.upv. A 10.7.0.1") == "ok\n"
    assert addrs(both(w, "e.upv.", "A", EMPTY)) == ["10.7.0.1"]
    # now the empty view has zones, and no view-first: the global zone
    # no longer answers its clients
    v = both(w, "www.global.upv.", "A", EMPTY)
    assert addrs(v) == [RECURSED], v
    zones = ctl_both(w, "view_list_local_zones", "empty")
    assert "localhost." not in zones, zones
    ctl_both(w, "view_list_local_data", "empty")
    # a view without zones gets the built-in ones with view_local_zone
    assert ctl_both(w, "view_local_zone", "spare", "s.upv.",
                    "static") == "ok\n"
    zones = ctl_both(w, "view_list_local_zones", "spare")
    assert "localhost. redirect\n" in zones, zones
    for args in (("view_local_zone", "nope", "a.test.", "static"),
                 ("view_local_data", "nope", "a.test. A 1.2.3.4"),
                 ("view_list_local_zones", "nope"),
                 ("view_list_local_data", "nope"),
                 ("view_local_zone", "red"),
                 ("view_local_zone", "red", "z.test.", "bogus"),
                 ("view_local_data", "red", "z.test. BOGUS 1")):
        out = ctl_both(w, *args)
        assert out, args
    assert ctl_both(w, "view_list_local_zones", "nope") == \
        "no view with name: nope\n"


# -- config errors and reload (ours) --------------------------------------

def test_unknown_view_refused_at_start(tmp_path):
    for cls in (Server, RefServer):
        s = cls(tmp_path / cls.__name__)
        os.makedirs(s.dir, exist_ok=True)
        rc, out = s.start_expecting_exit("access-control-view: 127.0.0.2/32 nosuch\n", timeout=20 * SLOW)
        assert rc not in (None, 0), (cls.__name__, rc, out)
        assert "no view with name: nosuch" in out, (cls.__name__, out)


def test_reload_with_broken_view_keeps_serving(tmp_path):
    up = Upstream()
    s = Server(tmp_path)
    try:
        s.start(BODY, extra=VIEWS + up.stub_zone("upv."))
        assert addrs(seen(s, "host.split.upv.", "A", RED)) == \
            ["10.2.0.10"]
        broken = VIEWS.replace('"host.split.upv. A 10.2.0.10"',
                               '"host.split.upv. A 10.2.0"')
        s.write_config(BODY, extra=broken + up.stub_zone("upv."))
        s.send_signal(signal.SIGHUP)
        deadline = time.time() + 10 * SLOW
        while "reload of" not in s.log() and time.time() < deadline:
            time.sleep(0.05)
        assert "still serving the previous configuration" in s.log(), \
            s.log()
        assert s.alive()
        assert addrs(seen(s, "host.split.upv.", "A", RED)) == \
            ["10.2.0.10"]
        # a good config after it is taken
        fixed = VIEWS.replace("10.2.0.10", "10.2.0.11")
        s.write_config(BODY, extra=fixed + up.stub_zone("upv."))
        s.send_signal(signal.SIGHUP)
        deadline = time.time() + 10 * SLOW
        while time.time() < deadline and addrs(seen(
                s, "host.split.upv.", "A", RED)) != ["10.2.0.11"]:
            time.sleep(0.05)
        assert addrs(seen(s, "host.split.upv.", "A", RED)) == \
            ["10.2.0.11"]
    finally:
        _finish(s)
        up.close()
