# SPDX-License-Identifier: BSD-3-Clause
"""Upstream TCP under a truncation storm, through the test driver (as
test_iterator.py: one worker's resolver, root-hints at the loopback test
internet). The scripted responder (bad.tld2.) answers every UDP query
with TC=1, so every answer from it comes over TCP; the resolver must
carry them over few connections (reused and pipelined), not one
connection per query. The responder logs each query with its source
address and port: one TCP source port is one connection."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_iterator import (Run, write_conf, net, rcode, all_rdata,  # noqa
                           pytestmark)
from testnet.fixture import testnet_net, testnet_reference  # noqa: F401,E402

NAMES = 60


def tcp_connections(responder):
    """(TCP queries logged, distinct TCP source address:port pairs)."""
    tcp = [q for q in responder.queries() if q["proto"] == "tcp"]
    return len(tcp), len({q["src"] for q in tcp})


@pytest.fixture
def tc_storm(net):
    bad = net.responder("bad")
    bad.set_behaviour(default=[{"type": "tc"}])
    bad.clear_log()
    try:
        yield bad
    finally:
        bad.reset_behaviour()


def test_tc_storm_few_connections(net, tc_storm, tmp_path):
    """60 names at once, every UDP reply TC=1: all answered (over TCP),
    over at most 2 connections (60 queries, max-reuse-tcp-queries 200;
    one more if the first one's server side closes)."""
    conf = write_conf(tmp_path, net)
    names = ["n%d.bad.tld2./A" % i for i in range(NAMES)] + \
        ["www.bad.tld2./A"]
    run = Run(conf, names)
    for i in range(NAMES):
        assert rcode(run.reply(i)) == "NXDOMAIN", i
    assert all_rdata(run.reply(NAMES)) == ["192.0.2.100"]
    queries, conns = tcp_connections(tc_storm)
    assert queries >= NAMES + 1
    assert 1 <= conns <= 2, (queries, conns)
    assert run.stats["outnet.tc"] >= NAMES + 1
    assert run.stats["outnet.tcp_conns"] == conns
    assert run.stats["outnet.tcp_reused"] >= queries - conns


def test_tc_storm_max_reuse(net, tc_storm, tmp_path):
    """max-reuse-tcp-queries: 10: a connection carries at most 10
    queries, so 61 take at least 7 connections (and no query fails)."""
    conf = write_conf(tmp_path, net, "max-reuse-tcp-queries: 10")
    names = ["m%d.bad.tld2./A" % i for i in range(NAMES)] + \
        ["www.bad.tld2./A"]
    run = Run(conf, names)
    for i in range(NAMES):
        assert rcode(run.reply(i)) == "NXDOMAIN", i
    queries, conns = tcp_connections(tc_storm)
    per_conn = {}
    for q in tc_storm.queries():
        if q["proto"] == "tcp":
            per_conn[q["src"]] = per_conn.get(q["src"], 0) + 1
    assert max(per_conn.values()) <= 10, per_conn
    assert conns >= (queries + 9) // 10, (queries, conns)


def test_tc_storm_one_query_per_connection(net, tc_storm, tmp_path):
    """outgoing-num-tcp: 1: one connection at a time, the others wait
    for it (pipelined on it), and all are answered."""
    conf = write_conf(tmp_path, net, "outgoing-num-tcp: 1")
    names = ["k%d.bad.tld2./A" % i for i in range(20)]
    run = Run(conf, names)
    for i in range(20):
        assert rcode(run.reply(i)) == "NXDOMAIN", i
    queries, conns = tcp_connections(tc_storm)
    assert queries >= 20
    assert conns == 1, (queries, conns)


def test_rrl_slip_resend(net, tmp_path):
    """Response rate limiting as NSD's (slip 2, per name: the first UDP
    query dropped, the second an empty TC=1): every name is answered
    after 2 UDP queries and 1 TCP query, the lost one sent again in the
    same try (udp_resends) while the server had answered its last query;
    test_rrl_slip.py has the daemon beside Debian's Unbound."""
    bad = net.responder("bad")
    bad.set_behaviour(default=[{"type": "rrl_slip", "slip": 2}])
    bad.clear_log()
    conf = write_conf(tmp_path, net)
    names = ["r%d.bad.tld2./A" % i for i in range(10)]
    run = Run(conf, names)
    for i in range(10):
        assert rcode(run.reply(i)) == "NXDOMAIN", i
        qs = bad.queries("r%d.bad.tld2." % i, "A")
        assert [q["proto"] for q in qs] == ["udp", "udp", "tcp"], qs
    assert 1 <= run.stats["outnet.udp_resends"] <= 10, run.stats
