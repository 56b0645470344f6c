# SPDX-License-Identifier: BSD-3-Clause
"""response-ip-tag: (Unbound 1.17) side by side with Debian's Unbound
1.17 on one config, from clients with different access-control tags
(source addresses 127.0.0.x): a tagged netblock without a response-ip
action passes untagged clients' answers and takes the action of a
client's access-control-tag-action for the first tag they share
(always_nxdomain, redirect with access-control-tag-data, refuse,
static, inform); a tagged redirect netblock with response-ip-data gives
its own data unless the client's tag brings redirect data of its own; a
client whose tags miss the netblock's gets the netblock's own action.
Compared per question: rcode and the answer section (texts, no TTLs),
each asked twice (the second from the message cache). An unknown tag
stops the start.

The answers come from an Upstream stub: "one." is A 192.0.2.1, every
other name A 192.0.2.253."""
import os
import sys

import dns.rcode
import dns.rrset
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from conftest import (DEB_UNBOUND, REFERENCE, RefServer, Server,  # noqa
                      Upstream, _finish, answer_texts)
from test_auth_xfr import poll  # noqa: E402

pytestmark = [
    pytest.mark.skipif(REFERENCE, reason="compares this build with "
                       "Debian's Unbound itself"),
]


class TwoAddresses(Upstream):
    def respond(self, q, qname, qtype):
        r = super().respond(q, qname, qtype)
        if qtype == "A" and qname.to_text().lower().startswith("one."):
            r.answer = [dns.rrset.from_text(qname, 300, "IN", "A",
                                            "192.0.2.1")]
        return r


NAMES = ["one", "two", "three", "four"]

BODY = """module-config: "respip iterator"
define-tag: "t1 t2 t3 t4 t5"
access-control: 127.0.0.0/8 allow
access-control-tag: 127.0.0.2/32 "t1"
access-control-tag-action: 127.0.0.2/32 t1 always_nxdomain
access-control-tag: 127.0.0.3/32 "t2"
access-control-tag-action: 127.0.0.3/32 t2 redirect
access-control-tag-data: 127.0.0.3/32 t2 "A 10.9.9.9"
access-control-tag: 127.0.0.4/32 "t3"
access-control-tag-action: 127.0.0.4/32 t3 refuse
access-control-tag: 127.0.0.5/32 "t4"
access-control-tag-action: 127.0.0.5/32 t4 static
access-control-tag: 127.0.0.8/32 "t4 t1"
access-control-tag-action: 127.0.0.8/32 t4 static
access-control-tag: 127.0.0.6/32 "t5"
access-control-tag-action: 127.0.0.6/32 t5 inform
access-control-tag: 127.0.0.7/32 "t1"
response-ip-tag: 192.0.2.253/32 "t1 t2 t3 t4 t5"
response-ip: 192.0.2.1/32 redirect
response-ip-data: 192.0.2.1/32 "A 10.1.1.1"
response-ip-tag: 192.0.2.1/32 "t2 t4"
"""

# (client, name): 127.0.0.1 has no tags; .7 has t1 without an action;
# .8 shares t1 (no action) before t4 (static) with 192.0.2.253
CASES = [(c, n) for c in ("127.0.0.%d" % i for i in range(1, 9))
         for n in ("one.", "two.")]


def look(srv, name, source):
    r = srv.query(name, "A", source=source, timeout=2)
    return dns.rcode.to_text(r.rcode()), answer_texts(r)


def start(srv, up):
    srv.start(BODY, extra=up.stub_zone(*NAMES), verbosity=1)
    return srv


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    if not os.access(DEB_UNBOUND, os.X_OK):
        pytest.skip("Debian's unbound is not installed")
    up = TwoAddresses()
    ours = Server(tmp_path_factory.mktemp("ours"))
    ref = RefServer(tmp_path_factory.mktemp("ref"))
    try:
        start(ours, up)
        start(ref, up)
        yield ours, ref
    finally:
        _finish(ours)
        _finish(ref)
        up.close()


@pytest.mark.parametrize("client,name", CASES)
def test_same_as_unbound(pair, client, name):
    ours, ref = pair
    for _ in range(2):   # resolved, then from the message cache
        assert look(ours, name, client) == look(ref, name, client)


def test_tag_actions_apply(pair):
    """The expected answers themselves (a change in both daemons would
    pass the comparison)."""
    ours, _ = pair
    want = {
        ("127.0.0.1", "two."): ("NOERROR", ["two. A 192.0.2.253"]),
        ("127.0.0.2", "two."): ("NXDOMAIN", []),
        ("127.0.0.3", "two."): ("NOERROR", ["two. A 10.9.9.9"]),
        ("127.0.0.4", "two."): ("REFUSED", []),
        ("127.0.0.5", "two."): ("NOERROR", []),
        ("127.0.0.7", "two."): ("NOERROR", ["two. A 192.0.2.253"]),
        ("127.0.0.8", "two."): ("NOERROR", ["two. A 192.0.2.253"]),
        ("127.0.0.1", "one."): ("NOERROR", ["one. A 10.1.1.1"]),
        ("127.0.0.3", "one."): ("NOERROR", ["one. A 10.9.9.9"]),
        ("127.0.0.5", "one."): ("NOERROR", ["one. A 10.1.1.1"]),
    }
    for (client, name), answer in want.items():
        assert look(ours, name, client) == answer, (client, name)


def test_inform_logged(pair):
    ours, _ = pair
    assert look(ours, "three.", "127.0.0.6") == \
        ("NOERROR", ["three. A 192.0.2.253"])
    poll("the inform line", lambda: "192.0.2.253/32 inform 127.0.0.6@"
         in ours.output())


def test_unknown_tag_refused(tmp_path):
    srv = Server(tmp_path)
    try:
        rc, out = srv.start_expecting_exit(
            'module-config: "respip iterator"\n'
            'define-tag: "t1"\n'
            'response-ip-tag: 192.0.2.0/24 "nosuch"\n')
        assert rc not in (0, None), out[-2000:]
        assert "unknown tag: nosuch" in out
    finally:
        _finish(srv)
