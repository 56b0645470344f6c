# SPDX-License-Identifier: BSD-3-Clause
"""do-nat64 and nat64-prefix (Unbound 1.19+): with do-ip4: no the
iterator reaches an IPv4-only name server through the NAT64 prefix.

On loopback the prefix is ::ffff:0:0/96 (Unbound takes it: an IPv6
/96): the address synthesised for 127.0.0.1 is ::ffff:127.0.0.1, which
the kernel delivers from the daemon's IPv6 socket to a server listening
on an IPv4 socket only, as a NAT64 gateway would. The daemon never
holds an IPv4 address for it (do-ip4: no refuses those), so an answer
means the synthesised address was used; the log line names it.

Three daemons (listening on ::1 only: do-ip4: no), each with a stub
zone whose only server is 127.0.0.1 (an IPv4 socket of the test):
do-nat64: no fails, do-nat64: yes with nat64-prefix answers, and
do-nat64: yes with only dns64-prefix set answers too (the default)."""

import dns.flags
import dns.message
import dns.rcode
import dns.rdatatype
import dns.rrset
import pytest

from conftest import HAVE_IPV6, REFERENCE, Server, Upstream, _finish

pytestmark = [
    pytest.mark.skipif(REFERENCE, reason="Debian's Unbound 1.17 has no "
                       "do-nat64 (1.19)"),
    pytest.mark.skipif(not HAVE_IPV6, reason="::1 not available"),
]

ZONE = "nat.test."
MAPPED = "::ffff:0:0/96"


class V4Responder(Upstream):
    """The zone's only server: UDP on 127.0.0.1 (an IPv4 socket, so only
    IPv4 or IPv4-mapped destinations reach it), A 192.0.2.7 for any
    name; asked(name) lists the source addresses of the queries."""

    RDATA = {"A": "192.0.2.7"}
    FLAGS = dns.flags.AA

    def asked(self, name):
        with self.lock:
            return [src for src, n, _, _ in self.received if n == name]


class V6Server(Server):
    """A daemon with do-ip4: no: it listens on ::1 only."""

    def addr(self, v6=False):
        return "::1"


def start(tmp_path_factory, tag, body):
    up = V4Responder()
    srv = V6Server(tmp_path_factory.mktemp(tag), ipv6=True)
    srv.up = up
    extra = up.stub_zone(ZONE)
    srv.start("do-ip4: no\nqname-minimisation: no\n"
              'access-control: ::1 allow\nlocal-zone: "test." nodefault\n'
              + body, extra=extra, ready_source="::1", verbosity=3)
    return srv


@pytest.fixture(scope="module", params=[
    "off", "prefix", "dns64-prefix"])
def srv(request, tmp_path_factory):
    body = {"off": "do-nat64: no\nnat64-prefix: %s\n" % MAPPED,
            "prefix": "do-nat64: yes\nnat64-prefix: %s\n" % MAPPED,
            "dns64-prefix": "do-nat64: yes\ndns64-prefix: %s\n" % MAPPED,
            }[request.param]
    s = start(tmp_path_factory, "nat64-" + request.param, body)
    s.mode = request.param
    yield s
    _finish(s)
    s.up.close()


def test_ipv4_only_server_through_nat64(srv):
    name = "www.%s" % ZONE
    r = srv.query(name, "A", timeout=4.0)
    if srv.mode == "off":
        # no IPv4, no NAT64: the only server cannot be asked
        assert r.rcode() == dns.rcode.SERVFAIL
        assert srv.up.asked(name) == []
        return
    assert r.rcode() == dns.rcode.NOERROR
    assert [rd.to_text() for rr in r.answer for rd in rr] == ["192.0.2.7"]
    # the query arrived at the IPv4 server, sent to the synthesised
    # address ::ffff:127.0.0.1 (an IPv6 socket: the daemon has no other)
    assert srv.up.asked(name) == ["127.0.0.1"]
    log = srv.output()
    assert "NAT64 apply:   to: <nat.test.> ::ffff:127.0.0.1" in log, log
