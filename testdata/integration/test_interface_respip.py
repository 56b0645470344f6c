# SPDX-License-Identifier: BSD-3-Clause
"""interface-tag, interface-tag-action, interface-tag-data and
interface-view reach the respip module as access-control-tag's do:
response-ip-tag rules and RPZ tags: for a client that no access-control
netblock holds get the tags of the address its query came to, for
answers from resolution and from the message cache alike; side by side
with Debian's Unbound 1.17 on the same config.

As test_interface_tags.py (whose helper it uses): both daemons run in a
network namespace of their own (`unshare -n`, as root) where lo also
carries 10.53.0.x; clients ask from 10.53.0.100 (no netblock) and
127.0.0.1 (the default allow: no tags), to 10.53.0.2 (allowed, no tags)
and 10.53.0.3 (allowed, tag "ads", view "blue"), each question twice
(the second from the cache). The answers come from a root zone served
for-upstream (auth-zone "."), so resolution needs no network.
Compared per question: rcode, flags and every section, records without
TTLs."""
import os

import pytest

from conftest import REFERENCE, SLOW
from test_builtin_hints import UNSHARE_PROBLEM
from test_interface_tags import (DEB_UNBOUND, assert_same_answers,
                                 run_both_in_netns)

pytestmark = [
    pytest.mark.skipif(REFERENCE or not os.access(DEB_UNBOUND, os.X_OK),
                       reason="needs this build and Debian's unbound"),
    pytest.mark.skipif(UNSHARE_PROBLEM is not None,
                       reason=UNSHARE_PROBLEM or ""),
]

ALLOWED, TAGGED = "10.53.0.2", "10.53.0.3"
NOBODY, LOOP = "10.53.0.100", "127.0.0.1"

ROOT = """$ORIGIN .
$TTL 300
@ SOA ns.root. admin.root. 1 3600 600 86400 300
@ NS ns.root.
ns.root. A 10.53.0.1
www.az. A 192.0.2.1
blocked.az. A 192.0.2.2
other.az. A 192.0.2.3
"""

RPZ = """$ORIGIN rpz.t.
$TTL 60
@ SOA ns.rpz.t. admin.rpz.t. 1 3600 600 86400 60
@ NS ns.rpz.t.
blocked.az CNAME .
"""

BODY = """define-tag: "ads kids"
interface-action: 10.53.0.2 allow
interface-action: 10.53.0.3 allow
interface-tag: 10.53.0.3 "ads"
interface-tag-action: 10.53.0.3 ads redirect
interface-tag-data: 10.53.0.3 ads "A 10.9.9.9"
interface-view: 10.53.0.3 blue
response-ip: 192.0.2.1/32 always_transparent
response-ip-tag: 192.0.2.1/32 "ads"
auth-zone:
\tname: "."
\tzonefile: "%s"
\tfor-downstream: no
\tfor-upstream: yes
rpz:
\tname: rpz.t.
\tzonefile: "%s"
\ttags: "ads"
view:
\tname: "blue"
\tview-first: yes
\tresponse-ip: 192.0.2.3/32 always_nxdomain
"""

QUESTIONS = [
    (name, "A", src, dst)
    for src in (NOBODY, LOOP)
    for dst in (ALLOWED, TAGGED)
    for name in ("www.az.", "blocked.az.", "other.az.")
    for _ in range(2)
]


@pytest.fixture(scope="module")
def answers(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("iface_respip")
    root, rpz = tmp / "root.zone", tmp / "rpz.zone"
    root.write_text(ROOT)
    rpz.write_text(RPZ)
    spec = {
        "port": 5353,
        "interfaces": ["127.0.0.1", ALLOWED, TAGGED],
        "lo_addrs": ["10.53.0.%d/24" % i for i in (1, 2, 3, 100)],
        "modules": "respip iterator",
        "body": BODY % (root, rpz),
        "questions": QUESTIONS,
        "query_timeout": 2.0 * SLOW,
        "start_timeout": 15 * SLOW,
    }
    return run_both_in_netns(tmp, spec)


def answer(answers, who, qname, src, dst, tcp=False, second=False):
    i = QUESTIONS.index((qname, "A", src, dst)) + (1 if second else 0) + \
        (len(QUESTIONS) if tcp else 0)
    return answers[who]["answers"][i]


def test_same_as_unbound(answers):
    assert_same_answers(answers, QUESTIONS)


@pytest.mark.parametrize("tcp", [False, True], ids=["udp", "tcp"])
def test_interface_tags_reach_respip(answers, tcp):
    for second in (False, True):   # from resolution, then the cache
        def a(q, src, dst):
            return answer(answers, "ours", q, src, dst, tcp, second)
        # response-ip-tag: the tagged interface's tag action and data
        assert a("www.az.", NOBODY, TAGGED)[2] == ["www.az. A 10.9.9.9"]
        assert a("www.az.", NOBODY, ALLOWED)[2] == ["www.az. A 192.0.2.1"]
        # RPZ tags: the zone applies to the tagged interface's clients
        assert a("blocked.az.", NOBODY, TAGGED)[0] == "NXDOMAIN"
        assert a("blocked.az.", NOBODY, ALLOWED)[2] == \
            ["blocked.az. A 192.0.2.2"]
        # interface-view: the view's response-ip rules
        assert a("other.az.", NOBODY, TAGGED)[0] == "NXDOMAIN"
        assert a("other.az.", NOBODY, ALLOWED)[2] == \
            ["other.az. A 192.0.2.3"]
        # a netblock's client (the default 127.0.0.0/8 allow): no tags
        assert a("www.az.", LOOP, TAGGED)[2] == ["www.az. A 192.0.2.1"]
        assert a("blocked.az.", LOOP, TAGGED)[0] == "NOERROR"
