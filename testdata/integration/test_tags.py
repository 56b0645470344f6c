# SPDX-License-Identifier: BSD-3-Clause
"""Tags (define-tag, access-control-tag, local-zone-tag), side by side
with Debian's Unbound 1.17 on the same config, clients from chosen
source addresses (127.0.0.x): a tagged local zone serves only clients
with a tag in common; for the others the closest enclosing zone above it
does, or nothing local (the question is resolved, asked upstream).
Errors at start: a local-zone-tag for no zone, a tag no define-tag
names.

Compared per question: rcode, AA and the answer records without TTLs."""
import os

import pytest

from conftest import (DEB_UNBOUND, REFERENCE, SLOW, RefServer, Server,
                      Upstream, _finish)
from test_views import RECURSED, addrs, both

pytestmark = [
    pytest.mark.skipif(not os.access(DEB_UNBOUND, os.X_OK),
                       reason="Debian's unbound is not installed"),
    pytest.mark.skipif(REFERENCE, reason="compares this build with "
                       "the reference; UNBOUND_BIN is the reference"),
]

NONE, KIDS, OFFICE, BOTH = ("127.0.0.1", "127.0.0.5", "127.0.0.6",
                            "127.0.0.7")

BODY = """access-control: 127.0.0.0/8 allow
define-tag: "kids office"
define-tag: "guest kids"
access-control-tag: 127.0.0.5/32 "kids"
access-control-tag: 127.0.0.6/32 "office"
access-control-tag: 127.0.0.7/32 "office kids"
local-zone: "games.upv." static
local-data: "www.games.upv. A 10.5.0.1"
local-zone-tag: "games.upv." "kids"
local-zone: "work.upv." static
local-data: "www.work.upv. A 10.6.0.1"
local-zone-tag: "work.upv." "office"
local-zone: "x.work.upv." static
local-data: "www.x.work.upv. A 10.5.0.2"
local-zone-tag: "x.work.upv." "kids guest"
local-zone: "all.upv." static
local-data: "www.all.upv. A 10.0.0.1"
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


def test_tagged_zone_only_for_its_clients(world):
    name = "www.games.upv."
    assert addrs(both(world, name, "A", KIDS)) == ["10.5.0.1"]
    assert addrs(both(world, name, "A", BOTH)) == ["10.5.0.1"]
    v = both(world, "nx.games.upv.", "A", KIDS)
    assert v[0] == "NXDOMAIN", v
    # no tag in common, or no tags: not local, resolved
    assert addrs(both(world, name, "A", OFFICE)) == [RECURSED]
    assert addrs(both(world, name, "A", NONE)) == [RECURSED]
    # an untagged zone serves everyone
    for src in (NONE, KIDS, OFFICE, BOTH):
        assert addrs(both(world, "www.all.upv.", "A", src)) == \
            ["10.0.0.1"], src


def test_nested_tagged_zones(world):
    name = "www.x.work.upv."
    # kids: the inner zone; office: passed over to work.upv. (static,
    # no data for the name: NXDOMAIN); no tags: neither, resolved
    assert addrs(both(world, name, "A", KIDS)) == ["10.5.0.2"]
    assert addrs(both(world, name, "A", BOTH)) == ["10.5.0.2"]
    v = both(world, name, "A", OFFICE)
    assert v[0] == "NXDOMAIN" and v[1], v
    assert addrs(both(world, name, "A", NONE)) == [RECURSED]
    assert addrs(both(world, "www.work.upv.", "A", OFFICE)) == \
        ["10.6.0.1"]
    assert addrs(both(world, "www.work.upv.", "A", KIDS)) == [RECURSED]


@pytest.mark.parametrize("body,text", [
    ('define-tag: "a"\nlocal-zone-tag: "nozone.upv." "a"\n',
     "no local-zone for tag"),
    ('define-tag: "a"\naccess-control-tag: 127.0.0.5/32 "b"\n',
     "unknown tag: b"),
])
def test_tag_errors_refused_at_start(tmp_path, body, text):
    both_refuse_at_start(tmp_path, body, text)


def both_refuse_at_start(tmp_path, body, text):
    """Ours and Debian's Unbound both exit non-zero at start on body,
    each saying text."""
    for cls in (Server, RefServer):
        s = cls(tmp_path / cls.__name__)
        os.makedirs(s.dir, exist_ok=True)
        rc, out = s.start_expecting_exit(body, timeout=20 * SLOW)
        assert rc not in (None, 0), (cls.__name__, rc, out)
        assert text in out, (cls.__name__, out)
