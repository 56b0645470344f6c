# SPDX-License-Identifier: BSD-3-Clause
"""The CNAME target chase (services/reply_chase.c, daemon/worker.c
worker_chase): a policy that answers with a CNAME gets the target
resolved and appended, side by side with Debian's Unbound 1.17 on the
same config over the signed test internet. response-ip-data CNAMEs and
RPZ Response IP CNAMEs are merged as Unbound's respip_merge_cname (the
target's answer records, its rcode; a target that a rule would change
too leaves the CNAME alone: two rules pointing at each other end there);
RPZ QNAME CNAMEs are local aliases (the target's whole reply after the
CNAME, AA). Targets: names of the test internet, a chain, a bogus name
(SERVFAIL), a name that does not exist, a name only local-data holds.
Each question asked twice (the second from the message cache).

Compared per question: rcode, the header flags, the three sections
(records as text without TTLs; OPT left out). Needs nsd, Debian's
unbound and root (port 53); skips otherwise."""
import os
import sys

import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from signednet_pair import (SKIP_MARKS, running_pair,  # noqa: E402,F401
                            signednet_net, write_zones)
from test_control import ctl, stats_dict  # noqa: E402
from test_respip import both, answer_of  # noqa: E402


pytestmark = SKIP_MARKS

BODY = """module-config: "respip validator iterator"
trust-anchor-file: "%s"
do-ip6: no
access-control: 127.0.0.0/8 allow
minimal-responses: yes
extended-statistics: yes
local-zone: "lz." static
local-data: "t.lz. A 10.5.5.5"
response-ip: 192.0.2.100/32 redirect
response-ip-data: 192.0.2.100/32 "CNAME www.insec."
response-ip: 192.0.2.101/32 redirect
response-ip-data: 192.0.2.101/32 "CNAME example3.sec1."
response-ip: 192.0.2.103/32 redirect
response-ip-data: 192.0.2.103/32 "CNAME www.example.sec1."
response-ip: 192.0.2.110/32 redirect
response-ip-data: 192.0.2.110/32 "CNAME www.insec."
response-ip: 192.0.2.131/32 redirect
response-ip-data: 192.0.2.131/32 "CNAME www.badsig.sec1."
response-ip: 192.0.2.142/32 redirect
response-ip-data: 192.0.2.142/32 "CNAME www.rsasha512.sec1."
response-ip: 192.0.2.14/32 inform
response-ip: 192.0.2.152/32 redirect
response-ip-data: 192.0.2.152/32 "CNAME www.ecdsap384sha384.sec1."
response-ip: 192.0.2.16/32 always_transparent
response-ip: 192.0.2.154/32 redirect
response-ip-data: 192.0.2.154/32 "CNAME www.ecdsap256sha256.sec1."
response-ip: 192.0.2.2/32 redirect
response-ip-data: 192.0.2.2/32 "CNAME nosuch.sec1."
rpz:
\tname: rpz.chase.
\tzonefile: "%s"
\trpz-log: yes
\trpz-log-name: chase
"""

ZONE = """$ORIGIN rpz.chase.
$TTL 60
@ SOA ns.rpz.chase. admin.rpz.chase. 1 3600 600 86400 60
@ NS ns.rpz.chase.
www.sec1 CNAME www.insec.
loopa.sec1 CNAME loopb.sec1.
loopb.sec1 CNAME loopa.sec1.
fail.sec1 CNAME www.badsig.sec1.
localt.sec1 CNAME t.lz.
chain.sec1 CNAME long.example.sec1.
32.132.2.0.192.rpz-ip CNAME www.insec.
32.15.2.0.192.rpz-ip CNAME rpz-passthru.
"""


@pytest.fixture(scope="module")
def pair(signednet_net, tmp_path_factory):
    zone, = write_zones(tmp_path_factory, ("chase.zone", ZONE))
    with running_pair(signednet_net, tmp_path_factory,
                      BODY % (signednet_net.anchor, zone),
                      control=True) as p:
        yield p


def test_respip_cname_to_internet_name(pair):
    for do in (False, True):
        v = both(pair, "example.sec1.", "A", do=do)
        assert v[0] == "NOERROR" and "AD" not in v[1], v
        assert answer_of(v) == ["example.sec1. CNAME www.insec.",
                                "www.insec. A 192.0.2.9"], v


def test_respip_cname_at_chain_end(pair):
    v = both(pair, "long.example.sec1.", "A")
    a = answer_of(v)
    assert "l10.example.sec1. CNAME www.insec." in a, v
    assert "www.insec. A 192.0.2.9" in a, v


def test_respip_rules_pointing_at_each_other(pair):
    # the target's address meets the other rule: the CNAME alone
    for name, target in (("www.example.sec1.", "example3.sec1."),
                         ("example3.sec1.", "www.example.sec1.")):
        v = both(pair, name, "A")
        assert answer_of(v) == [name + " CNAME " + target], v


def rpz_seen(srv):
    """num.rpz.action.* (those not zero) and the rpz-log lines."""
    out = ctl(srv.conf, "stats_noreset", binary=srv.ctl_bin)
    assert out.returncode == 0, (srv.binary, out.stderr)
    return ({k: v for k, v in stats_dict(out.stdout).items()
             if k.startswith("num.rpz.action.")},
            [x for x in srv.log().splitlines() if "rpz: applied" in x])


def test_respip_target_meets_inform_or_transparent(pair):
    # compat: unbound-1.17: respip_merge_cname leaves the CNAME alone
    # when any rule meets the target's address: one that only informs,
    # always_transparent, an RPZ passthru; the target's inform rule
    # logs nothing (only the question's rules log), and its RPZ
    # passthru is neither counted (num.rpz.action.*) nor logged (rpz-log)
    before = [rpz_seen(srv) for srv in pair]
    for name, target in (("www.ok.sec2.", "www.rsasha512.sec1."),
                         ("a.ent.example.sec1.",
                          "www.ecdsap384sha384.sec1."),
                         ("a.ent.example3.sec1.",
                          "www.ecdsap256sha256.sec1.")):
        v = both(pair, name, "A")
        assert v[0] == "NOERROR", v
        assert answer_of(v) == [name + " CNAME " + target], v
    for srv in pair:
        assert " inform " not in srv.log(), srv.binary
    # the replies came after the policy ran: its counts and lines, had
    # there been any, are there now
    after = [rpz_seen(srv) for srv in pair]
    for srv, b, a in zip(pair, before, after):
        assert a[0] == b[0], (srv.binary, b[0], a[0])
        assert a[1] == b[1], (srv.binary, a[1][len(b[1]):])


def test_respip_target_fails(pair):
    v = both(pair, "www.example3.sec1.", "A", cached=False)
    assert v[0] == "SERVFAIL", v


def test_respip_target_nxdomain(pair):
    v = both(pair, "www.sec2.", "A")
    assert v[0] == "NXDOMAIN", v
    assert answer_of(v) == ["www.sec2. CNAME nosuch.sec1."], v


def test_rpz_qname_cname(pair):
    for do in (False, True):
        v = both(pair, "www.sec1.", "A", do=do, cached=False)
        assert v[0] == "NOERROR" and "AA" in v[1], v
        assert answer_of(v) == sorted(["www.sec1. CNAME www.insec.",
                                       "www.insec. A 192.0.2.9"]), v


def test_rpz_qname_cname_to_chain(pair):
    v = both(pair, "chain.sec1.", "A", cached=False)
    a = answer_of(v)
    assert "chain.sec1. CNAME long.example.sec1." in a, v
    assert any(" A " in x for x in a), v


def test_rpz_qname_cname_loop(pair):
    v = both(pair, "loopa.sec1.", "A", cached=False)
    assert "loopa.sec1. CNAME loopb.sec1." in answer_of(v), v


def test_rpz_qname_target_fails(pair):
    v = both(pair, "fail.sec1.", "A", cached=False)
    assert v[0] == "SERVFAIL", v


def test_rpz_qname_local_target(pair):
    v = both(pair, "localt.sec1.", "A", cached=False)
    assert "localt.sec1. CNAME t.lz." in answer_of(v), v


def test_rpz_response_ip_cname(pair):
    v = both(pair, "d2.example3.sec1.", "A")
    assert answer_of(v) == sorted(["d2.example3.sec1. CNAME www.insec.",
                                   "www.insec. A 192.0.2.9"]), v
