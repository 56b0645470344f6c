# SPDX-License-Identifier: BSD-3-Clause
"""interface-action, interface-view, interface-tag, interface-tag-action
and interface-tag-data: the policy of the local address a query came to,
side by side with Debian's Unbound 1.17 on the same config.

Unbound takes a client's access-control entry when a netblock holds it
and the interface's only when none does; its defaults always hold
127.0.0.0/8, so loopback clients never see an interface's policy. The
test therefore runs both daemons in a network namespace of its own
(`unshare -n`, as root; netns_iface_helper.py), where lo also carries
10.53.0.x: the daemons listen on 10.53.0.1-4 (and 127.0.0.1), clients
ask from 10.53.0.100 (no netblock), 10.53.0.200 (access-control deny)
and 127.0.0.1 (the default allow), over UDP and TCP. Compared per
question: rcode, flags and every section, records without TTLs; "none"
for no reply (a deliberate drop, checked against Unbound's)."""
import json
import os
import subprocess
import sys

import pytest

from conftest import BUILDDIR, REFERENCE, SLOW
from test_builtin_hints import UNSHARE_PROBLEM

HELPER = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                      "netns_iface_helper.py")
OUR_UNBOUND = os.path.join(BUILDDIR, "unbound")
DEB_UNBOUND = "/usr/sbin/unbound"

pytestmark = [
    pytest.mark.skipif(REFERENCE or not os.access(DEB_UNBOUND, os.X_OK),
                       reason="needs this build and Debian's unbound"),
    pytest.mark.skipif(UNSHARE_PROBLEM is not None,
                       reason=UNSHARE_PROBLEM or ""),
]

PLAIN, ALLOWED, VIEWED, NOACT = ("10.53.0.1", "10.53.0.2", "10.53.0.3",
                                 "10.53.0.4")
NOBODY, DENIED, LOOP = "10.53.0.100", "10.53.0.200", "127.0.0.1"

BODY = """access-control: 10.53.0.200/32 deny
define-tag: "ads kids"
interface-action: 10.53.0.2 allow
interface-action: 10.53.0.3 allow
interface-view: 10.53.0.3 blue
interface-view: 10.53.0.4 blue
interface-tag: 10.53.0.3 "ads"
interface-tag-action: 10.53.0.3 ads redirect
interface-tag-data: 10.53.0.3 ads "A 10.9.9.9"
local-zone: "www.upv." static
local-data: "a.www.upv. A 10.0.0.1"
local-zone: "ads.upv." static
local-data: "www.ads.upv. A 10.1.0.1"
local-zone-tag: "ads.upv." "ads"
view:
\tname: "blue"
\tview-first: yes
\tlocal-zone: "v.upv." static
\tlocal-data: "a.v.upv. A 10.3.0.1"
"""

QUESTIONS = [
    (name, qtype, src, dst)
    for src in (NOBODY, LOOP)
    for dst in (PLAIN, ALLOWED, VIEWED, NOACT)
    for name, qtype in (("a.www.upv.", "A"), ("a.v.upv.", "A"),
                        ("x.ads.upv.", "A"))
] + [("a.v.upv.", "A", DENIED, VIEWED)]


@pytest.fixture(scope="module")
def answers(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("iface")
    spec = {
        "port": 5353,
        "interfaces": ["127.0.0.1", PLAIN, ALLOWED, VIEWED, NOACT],
        "lo_addrs": ["10.53.0.%d/24" % i for i in (1, 2, 3, 4, 100, 200)],
        "body": BODY,
        "questions": QUESTIONS,
        "query_timeout": 0.5 * SLOW,
        "start_timeout": 15 * SLOW,
    }
    return run_both_in_netns(tmp, spec)


def run_both_in_netns(tmp, spec):
    """Ours and Debian's Unbound, each started on spec (interfaces,
    loopback addresses, body, questions) in a network namespace of
    their own by the helper; their results by name, neither in error.
    Shared with test_interface_respip.py."""
    spec = dict(spec, resolvers=[
        {"name": n, "dir": str(tmp / n), "unbound": b}
        for n, b in (("ours", OUR_UNBOUND), ("debian", DEB_UNBOUND))])
    path = tmp / "spec.json"
    path.write_text(json.dumps(spec))
    r = subprocess.run(["unshare", "-n", sys.executable, HELPER, str(path)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, (r.stdout, r.stderr)
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["isolation"] is None, out["isolation"]
    res = {x["name"]: x for x in out["results"]}
    for n in ("ours", "debian"):
        assert "error" not in res[n], res[n]
    return res


def answer(answers, who, qname, src, dst, tcp=False):
    i = QUESTIONS.index((qname, "A", src, dst)) + \
        (len(QUESTIONS) if tcp else 0)
    return answers[who]["answers"][i]


def assert_same_answers(answers, questions):
    """Ours and Debian's answered each question (UDP, then TCP) alike."""
    ours, deb = answers["ours"]["answers"], answers["debian"]["answers"]
    diff = [(questions[i % len(questions)], "tcp" if i >= len(questions)
             else "udp", ours[i], deb[i])
            for i in range(len(ours)) if ours[i] != deb[i]]
    assert not diff, "\n".join(map(str, diff))


def test_same_as_unbound(answers):
    assert_same_answers(answers, QUESTIONS)


@pytest.mark.parametrize("tcp", [False, True], ids=["udp", "tcp"])
def test_interface_policy(answers, tcp):
    def a(q, src, dst):
        return answer(answers, "ours", q, src, dst, tcp)
    # no interface line: refused
    assert a("a.www.upv.", NOBODY, PLAIN)[0] == "REFUSED"
    # interface-action allow: the global zones
    assert a("a.www.upv.", NOBODY, ALLOWED)[2] == \
        ["a.www.upv. A 10.0.0.1"]
    # no view there: a.v.upv. is not local (resolution fails here)
    assert a("a.v.upv.", NOBODY, ALLOWED)[2] == []
    # an interface's view without an interface-action: still refused
    # (an interface's entry is refuse until interface-action says else)
    assert a("a.v.upv.", NOBODY, NOACT)[0] == "REFUSED"
    # interface-view (view-first) and interface-tag with its action and
    # data: the view's zone, the tagged zone redirected to the tag's data
    assert a("a.v.upv.", NOBODY, VIEWED)[2] == ["a.v.upv. A 10.3.0.1"]
    assert a("a.www.upv.", NOBODY, VIEWED)[2] == \
        ["a.www.upv. A 10.0.0.1"]
    assert a("x.ads.upv.", NOBODY, VIEWED)[2] == \
        ["x.ads.upv. A 10.9.9.9"]
    # a client netblock wins over the interface: deny drops, the
    # default 127.0.0.0/8 allow has no view nor tags
    assert a("a.v.upv.", DENIED, VIEWED) == "none"
    assert a("a.www.upv.", LOOP, PLAIN)[2] == ["a.www.upv. A 10.0.0.1"]
    assert a("a.v.upv.", LOOP, VIEWED)[2] == []
    assert a("x.ads.upv.", LOOP, VIEWED)[2] == []
