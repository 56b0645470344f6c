# SPDX-License-Identifier: BSD-3-Clause
"""wait-limit-cookie (Unbound 1.20) and wait-limit(-cookie)-netblock
(1.22): a client that sends a valid DNS
server cookie has proved its address, so it gets this limit of replies
waiting for recursion instead of wait-limit (0: no limit). Under the
DNSBomb pattern (20 queries from one address, all waiting for a slow
server): 5 answered without a cookie (wait-limit: 5), 10 with a valid
cookie and wait-limit-cookie: 10, all 20 with wait-limit-cookie: 0.

This daemon's only: Debian's Unbound 1.17 has no cookies. The count of
replies ends when none came for a while: the dropped queries get none
(the answers come within 250 ms of the slow server's delay)."""
import os
import socket
import sys

import dns.edns
import dns.message
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from testnet import have_nsd  # noqa: E402
from testnet.fixture import testnet_net, net  # noqa: E402,F401
from conftest import SLOW, make_query, ours_only  # noqa: E402

pytestmark = [pytest.mark.skipif(not have_nsd(),
                                 reason="nsd is not installed"), ours_only]

CLIENT = bytes(range(1, 9))


def with_cookie(name, data, qid):
    q = make_query(name, edns=0)
    q.use_edns(0, options=[dns.edns.GenericOption(10, data)])
    q.id = qid
    return q


def server_cookie(unbound):
    """The full cookie (client and server part) the daemon gives."""
    r = unbound.query(with_cookie("www.bad.tld2.", CLIENT, 7), timeout=8.0)
    opts = [o.data for o in r.options if o.otype == 10]
    assert len(opts) == 1 and len(opts[0]) > 8, r
    return opts[0]


def replies_to_flood(unbound, cookie):
    """20 queries from one socket for a name that waits for the slow
    server; the number of replies."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    # the first answer comes after the slow server's delay plus the
    # resolver's work: under ASan on a loaded machine that passed 1.5 s
    # once and the count read 0 (nothing dropped is ever answered, so a
    # longer wait changes no count)
    s.settimeout(1.5 * SLOW)
    for i in range(20):
        q = with_cookie("slow.bad.tld2.", cookie, 1000 + i) if cookie \
            else make_query("slow.bad.tld2.", "A")
        q.id = 1000 + i
        s.sendto(q.to_wire(), ("127.0.0.1", unbound.port))
    got = set()
    try:
        while True:
            data, _ = s.recvfrom(65535)
            m = dns.message.from_wire(data)
            assert m.answer, m
            got.add(m.id)
    except socket.timeout:
        pass
    s.close()
    return len(got)


# compat: unbound-1.22: the loopback is not wait-limited unless a
# wait-limit(-cookie)-netblock line says so (its default is -1), so the
# limits here are given for 127.0.0.0/8: the plain wait-limit of an
# address outside every netblock is in wait_limit_test (unit).
BLOCK5 = "wait-limit-netblock: 127.0.0.0/8 5\n"
COOKIE10 = "wait-limit-cookie-netblock: 127.0.0.0/8 10\n"


@pytest.mark.parametrize("body,use_cookie,want", [
    # the loopback default: wait-limit: 5 does not apply to it
    ("", False, 20),
    (BLOCK5 + COOKIE10, False, 5),
    (BLOCK5 + COOKIE10, True, 10),
    # wait-limit-cookie: 0 lifts the limit for a valid cookie
    (BLOCK5 + COOKIE10 + "wait-limit-cookie: 0", True, 20),
    # the longest netblock counts
    (BLOCK5 + "wait-limit-netblock: 127.0.0.1/32 -1", False, 20)])
def test_wait_limit_netblocks(unbound, net, body, use_cookie, want):
    unbound.start("wait-limit: 5\nwait-limit-cookie: 10\n"
                  "answer-cookie: yes\n" + body, root_hints=net.root_hints)
    cookie = server_cookie(unbound) if use_cookie else None
    assert replies_to_flood(unbound, cookie) == want
