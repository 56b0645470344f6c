# SPDX-License-Identifier: BSD-3-Clause
"""The subnetcache module (EDNS Client Subnet, RFC 7871) with
module-config "subnetcache validator iterator", side by side with
Debian's Unbound 1.17 (built with --enable-subnet), each against its own
pair of scriptable servers:

- ecs.test. on 127.0.0.1 (in send-client-subnet) answers per subnet:
  geo.ecs.test. A 10.a.b.c for the subnet a.b.c.0/24 it is told, with
  scope 24; flat.ecs.test. A 192.0.2.50 with scope 0; plain.ecs.test.
  A 192.0.2.60 without an ECS option (a server that ignores it);
- noecs.test. on 127.0.0.2 (not listed) answers the same way.

Checked on both: two clients in different subnets (by their address,
and by their ECS option) get their own answers, each cached for its
subnet; a scope 0 answer is shared (one upstream query for two
subnets); no option goes to a server not in send-client-subnet; the
client's option is echoed with the answer's scope; an option with bad
lengths is FORMERR. Needs Debian's unbound; skips otherwise."""
import os
import struct

import dns.edns
import dns.flags
import dns.message
import dns.rcode
import dns.rdatatype
import dns.rrset
import pytest

from conftest import (DEB_UNBOUND, REFERENCE, RefServer, Server,  # noqa
                      Upstream, _finish, free_port)
from test_control import DEB_CTL, OUR_CTL, ctl, rc_clause, stats_dict

pytestmark = [
    pytest.mark.skipif(not os.access(DEB_UNBOUND, os.X_OK),
                       reason="Debian's unbound is not installed"),
    pytest.mark.skipif(REFERENCE, reason="compares this build with "
                       "the reference; UNBOUND_BIN is the reference"),
]

ECS = 8


def ecs_option(q):
    """The ECS option of the message q, or None."""
    for o in q.options:
        if o.otype == ECS:
            return o
    return None


class EcsResponder(Upstream):
    """An authoritative server (a thread of the test) that answers per
    client subnet; asked() lists the ECS option of each query:
    (address, source) or None."""

    FLAGS = dns.flags.AA

    def respond(self, q, qname, qtype):
        ecs = ecs_option(q)
        r = dns.message.make_response(q)
        r.flags |= dns.flags.AA
        name = qname.to_text().lower()
        scope = None
        if qtype == "A" and name.startswith("geo."):
            if ecs and ecs.srclen > 0:
                a, b, c = ecs.address.split(".")[:3]
                rdata, scope = "10.%s.%s.%s" % (a, b, c), 24
            else:
                rdata, scope = "192.0.2.1", 0
        elif qtype == "A" and name.startswith("geo6."):
            # any subnet, one answer, scope as asked (IPv6 clients)
            rdata = "192.0.2.6"
            scope = ecs.srclen if ecs and ecs.srclen > 0 else 0
        elif qtype == "A" and name.startswith("flat."):
            rdata, scope = "192.0.2.50", 0
        elif qtype == "A" and name.startswith("plain."):
            rdata, scope = "192.0.2.60", None
        else:
            rdata = None
        if rdata:
            r.answer.append(dns.rrset.from_text(qname, 300, "IN", "A",
                                                rdata))
        if ecs is not None and scope is not None:
            r.use_edns(0, 0, 1232, options=[dns.edns.ECSOption(
                ecs.address, ecs.srclen, min(scope, 24 if
                                             ":" not in ecs.address
                                             else 128))])
        return r

    def asked(self, name, qtype="A"):
        with self.lock:
            out = []
            for _, n, t, q in self.received:
                if n == name and t == qtype:
                    e = ecs_option(q)
                    out.append((e.address, e.srclen) if e else None)
            return out


BODY = """module-config: "subnetcache validator iterator"
access-control: 127.0.0.0/8 allow
qname-minimisation: no
send-client-subnet: 127.0.0.1
max-client-subnet-ipv4: 24
local-zone: "test." nodefault
extended-statistics: yes
"""


def start(cls, tmp_path_factory, tag, body=BODY):
    ecs_up = EcsResponder("127.0.0.1")
    other_up = EcsResponder("127.0.0.2")
    srv = cls(tmp_path_factory.mktemp(tag))
    extra = ('stub-zone:\n\tname: "ecs.test."\n\tstub-addr: 127.0.0.1@%d\n'
             'stub-zone:\n\tname: "noecs.test."\n'
             '\tstub-addr: 127.0.0.2@%d\n' % (ecs_up.port, other_up.port))
    srv.ctl_port = free_port()
    srv.ctl = OUR_CTL if cls is Server else DEB_CTL
    extra += rc_clause(None, srv.ctl_port, use_cert=False)
    srv.start(body + 'domain-insecure: "test."\n', extra=extra)
    srv.ecs_up, srv.other_up = ecs_up, other_up
    return srv


@pytest.fixture(scope="module", params=["ours", "reference"])
def srv(request, tmp_path_factory):
    cls = Server if request.param == "ours" else RefServer
    s = start(cls, tmp_path_factory, request.param)
    yield s
    _finish(s)
    s.ecs_up.close()
    s.other_up.close()


def ask(srv, name, source="127.0.0.1", ecs=None, rdtype="A"):
    q = dns.message.make_query(name, rdtype, use_edns=0, payload=1232,
                               options=[ecs] if ecs else [])
    return dns.message.from_wire(
        srv.udp_raw(q.to_wire(), timeout=3.0, source=source),
        ignore_trailing=True)


def addresses(r):
    return sorted(rd.to_text() for rr in r.answer for rd in rr
                  if rr.rdtype == dns.rdatatype.A)


def ecs_of(r):
    for o in r.options:
        if o.otype == ECS:
            return (o.address, o.srclen, o.scopelen)
    return None


def test_clients_in_two_subnets_get_their_own_answers(srv):
    name = "geo.addr.ecs.test."
    a = ask(srv, name, source="127.0.0.1")
    b = ask(srv, name, source="127.1.0.1")
    assert addresses(a) == ["10.127.0.0"]
    assert addresses(b) == ["10.127.1.0"]
    # the client's address cut to max-client-subnet-ipv4 went upstream
    assert srv.ecs_up.asked(name) == [("127.0.0.0", 24),
                                      ("127.1.0.0", 24)]
    # no option in the reply: the client sent none
    assert ecs_of(a) is None
    # each subnet's answer is cached: asked again, from both, no query
    assert addresses(ask(srv, name, source="127.0.0.9")) == ["10.127.0.0"]
    assert addresses(ask(srv, name, source="127.1.0.9")) == ["10.127.1.0"]
    assert len(srv.ecs_up.asked(name)) == 2


def test_client_option_goes_upstream_and_is_echoed(srv):
    name = "geo.opt.ecs.test."
    a = ask(srv, name, ecs=dns.edns.ECSOption("198.51.100.0", 24))
    b = ask(srv, name, ecs=dns.edns.ECSOption("203.0.113.0", 24))
    assert addresses(a) == ["10.198.51.100"]
    assert addresses(b) == ["10.203.0.113"]
    # echoed: the client's subnet, the answer's scope
    assert ecs_of(a) == ("198.51.100.0", 24, 24)
    assert ecs_of(b) == ("203.0.113.0", 24, 24)
    assert srv.ecs_up.asked(name) == [("198.51.100.0", 24),
                                      ("203.0.113.0", 24)]
    # from the subnet cache, still echoed with the scope
    c = ask(srv, name, ecs=dns.edns.ECSOption("198.51.100.0", 24))
    assert addresses(c) == ["10.198.51.100"]
    assert ecs_of(c) == ("198.51.100.0", 24, 24)
    assert len(srv.ecs_up.asked(name)) == 2


def test_longer_client_source_is_cut_to_the_maximum(srv):
    name = "geo.long.ecs.test."
    a = ask(srv, name, ecs=dns.edns.ECSOption("198.51.100.77", 32))
    assert addresses(a) == ["10.198.51.100"]
    assert srv.ecs_up.asked(name) == [("198.51.100.0", 24)]
    # echoed as sent, the scope no longer than what was asked
    assert ecs_of(a) == ("198.51.100.77", 32, 24)


def test_scope_zero_answer_is_shared(srv):
    name = "flat.ecs.test."
    a = ask(srv, name, source="127.0.0.1")
    b = ask(srv, name, source="127.1.0.1")
    c = ask(srv, name, ecs=dns.edns.ECSOption("198.51.100.0", 24))
    assert addresses(a) == addresses(b) == addresses(c) == ["192.0.2.50"]
    assert ecs_of(c) == ("198.51.100.0", 24, 0)
    assert len(srv.ecs_up.asked(name)) == 1


def test_server_without_ecs_support(srv):
    # compat: unbound-1.17: a client's option sent on, none came back:
    # none goes back to the client either
    first = "plain.first.ecs.test."
    r = ask(srv, first, ecs=dns.edns.ECSOption("198.51.100.0", 24))
    assert addresses(r) == ["192.0.2.60"]
    assert srv.ecs_up.asked(first) == [("198.51.100.0", 24)]
    assert ecs_of(r) is None
    name = "plain.ecs.test."
    a = ask(srv, name, source="127.0.0.1")
    b = ask(srv, name, source="127.1.0.1")
    assert addresses(a) == addresses(b) == ["192.0.2.60"]
    # it got the option once; its answer is for everyone
    assert srv.ecs_up.asked(name) == [("127.0.0.0", 24)]
    c = ask(srv, name, ecs=dns.edns.ECSOption("198.51.100.0", 24))
    assert addresses(c) == ["192.0.2.60"]
    assert len(srv.ecs_up.asked(name)) == 1


def test_no_option_to_a_server_not_listed(srv):
    name = "geo.noecs.test."
    # a client with the option first: echoed with scope 0 (the answer
    # is not subnet specific)
    a = ask(srv, name, ecs=dns.edns.ECSOption("198.51.100.0", 24),
            source="127.1.0.1")
    assert ecs_of(a) == ("198.51.100.0", 24, 0)
    b = ask(srv, name, source="127.0.0.1")
    assert addresses(a) == addresses(b) == ["192.0.2.1"]
    asked = srv.other_up.asked(name)
    assert asked and all(e is None for e in asked), asked
    # compat: unbound-1.17: that answer is in the message cache, which
    # answers a client's option without an echo
    c = ask(srv, name, ecs=dns.edns.ECSOption("203.0.113.0", 24))
    assert addresses(c) == ["192.0.2.1"]
    assert ecs_of(c) is None
    assert len(srv.other_up.asked(name)) == 1


def raw_ecs_query(name, data, qid=0x4242):
    """A query whose OPT record holds an ECS option with data as is."""
    q = dns.message.make_query(name, "A", use_edns=0, payload=1232)
    q.id = qid
    wire = bytearray(q.to_wire())
    opt = struct.pack("!HH", ECS, len(data)) + data
    # the OPT RR is last: its RDLENGTH is the last two bytes
    assert wire[-2:] == b"\x00\x00"
    wire[-2:] = struct.pack("!H", len(opt))
    return bytes(wire + opt)


@pytest.mark.parametrize("data", [
    b"\x00\x01\x18\x00\xc6\x33",            # /24 with 2 address bytes
    b"\x00\x01\x18\x00\xc6\x33\x64\x00",    # /24 with 4 address bytes
    b"\x00\x01\x21\x00\x01\x02\x03\x04\x05",  # IPv4 /33
    b"\x00\x03\x08\x00\x01",                # family 3
    b"\x00\x01\x18",                        # shorter than the header
], ids=["short-addr", "long-addr", "v4-33", "family3", "truncated"])
def test_bad_option_is_formerr(srv, data):
    r = srv.udp_raw(raw_ecs_query("geo.bad.ecs.test.", data), timeout=3.0)
    assert r is not None, "no reply"
    m = dns.message.from_wire(r, ignore_trailing=True)
    assert m.rcode() == dns.rcode.FORMERR
    assert m.id == 0x4242
    assert not srv.ecs_up.asked("geo.bad.ecs.test.")


ZONED = """module-config: "subnetcache validator iterator"
access-control: 127.0.0.0/8 allow
qname-minimisation: no
local-zone: "test." nodefault
client-subnet-zone: "zoned.noecs.test."
client-subnet-always-forward: yes
"""


@pytest.fixture(scope="module", params=["ours", "reference"])
def zoned(request, tmp_path_factory):
    cls = Server if request.param == "ours" else RefServer
    s = start(cls, tmp_path_factory, "zoned-" + request.param, ZONED)
    yield s
    _finish(s)
    s.ecs_up.close()
    s.other_up.close()


def test_client_subnet_zone(zoned):
    """No send-client-subnet: only the names under client-subnet-zone
    get the option (any server)."""
    inside, outside = "geo.zoned.noecs.test.", "geo.else.noecs.test."
    assert addresses(ask(zoned, inside)) == ["10.127.0.0"]
    assert addresses(ask(zoned, outside)) == ["192.0.2.1"]
    assert zoned.other_up.asked(inside) == [("127.0.0.0", 24)]
    assert zoned.other_up.asked(outside) == [None]


def test_always_forward(zoned):
    """client-subnet-always-forward: a client's option goes to any
    server, and its queries skip the message cache."""
    name = "plain.af.noecs.test."
    a = ask(zoned, name)                  # no option: none sent
    assert addresses(a) == ["192.0.2.60"]
    assert zoned.other_up.asked(name) == [None]
    b = ask(zoned, name, ecs=dns.edns.ECSOption("198.51.100.0", 24))
    assert addresses(b) == ["192.0.2.60"]
    # not from the message cache: asked again, with the option
    assert zoned.other_up.asked(name) == [None, ("198.51.100.0", 24)]
    # compat: unbound-1.17: the server ignored it: no option back
    assert ecs_of(b) is None


def subnet_stats(srv):
    r = ctl(srv.conf, "stats_noreset", binary=srv.ctl)
    assert r.returncode == 0, r.stderr
    d = stats_dict(r.stdout)
    return (int(d["num.query.subnet"]), int(d["num.query.subnet_cache"]))


def test_subnet_statistics(srv):
    """num.query.subnet counts the answers with subnet data, from
    upstream and from the module's cache; num.query.subnet_cache the
    second. Not counted: an answer from a server that ignores the
    option, or from one that is not sent it."""
    name = "geo.stats.ecs.test."
    sub, cached = subnet_stats(srv)
    assert addresses(ask(srv, name, source="127.0.0.1")) == ["10.127.0.0"]
    assert subnet_stats(srv) == (sub + 1, cached)
    # the same /24: from the subnet cache
    assert addresses(ask(srv, name, source="127.0.0.9")) == ["10.127.0.0"]
    assert subnet_stats(srv) == (sub + 2, cached + 1)
    # a client's own option, another subnet: upstream again
    ask(srv, name, ecs=dns.edns.ECSOption("198.51.100.0", 24))
    assert subnet_stats(srv) == (sub + 3, cached + 1)
    # no ECS in the server's answer, and a server not listed
    ask(srv, "plain.stats.ecs.test.", source="127.0.0.1")
    ask(srv, "geo.stats.noecs.test.", source="127.0.0.1")
    assert subnet_stats(srv) == (sub + 3, cached + 1)


# -- the prefix bounds and the option code (issue 29) --------------------

BOUNDS = BODY + """max-client-subnet-ipv6: 48
min-client-subnet-ipv4: 20
min-client-subnet-ipv6: 40
max-ecs-tree-size-ipv4: 1
max-ecs-tree-size-ipv6: 1
"""


@pytest.fixture(scope="module", params=["ours", "reference"])
def bounded(request, tmp_path_factory):
    cls = Server if request.param == "ours" else RefServer
    s = start(cls, tmp_path_factory, "bounds-" + request.param, BOUNDS)
    yield s
    _finish(s)
    s.ecs_up.close()
    s.other_up.close()


def test_max_client_subnet_ipv6(bounded):
    """A client's IPv6 /64 goes upstream cut to max-client-subnet-ipv6."""
    name = "flat.v6max.ecs.test."
    r = ask(bounded, name, ecs=dns.edns.ECSOption("2001:db8:1:2::", 64))
    assert addresses(r) == ["192.0.2.50"]
    assert bounded.ecs_up.asked(name) == [("2001:db8:1::", 48)]


@pytest.mark.parametrize("addr,srclen,refused", [
    ("198.51.0.0", 16, True), ("198.51.96.0", 20, False),
    ("0.0.0.0", 0, False),
    ("2001:db8::", 32, True), ("2001:db8::", 40, False)],
    ids=["v4-16", "v4-20", "v4-0", "v6-32", "v6-40"])
def test_min_client_subnet(bounded, addr, srclen, refused):
    """A client's source prefix shorter than min-client-subnet-ipv4/6
    (and not 0) is REFUSED, never asked upstream."""
    name = "flat.min%s-%d.ecs.test." % ("6" if ":" in addr else "4",
                                        srclen)
    r = ask(bounded, name, ecs=dns.edns.ECSOption(addr, srclen))
    if refused:
        assert r.rcode() == dns.rcode.REFUSED, r
        assert not bounded.ecs_up.asked(name)
    else:
        assert r.rcode() == dns.rcode.NOERROR, r
        assert addresses(r) == ["192.0.2.50"]


OPCODE = 65001


@pytest.fixture(scope="module", params=["ours", "reference"])
def opcoded(request, tmp_path_factory):
    cls = Server if request.param == "ours" else RefServer
    s = start(cls, tmp_path_factory, "opcode-" + request.param,
              BODY + "client-subnet-opcode: %d\n" % OPCODE)
    yield s
    _finish(s)
    s.ecs_up.close()
    s.other_up.close()


def test_client_subnet_opcode_is_ignored(opcoded):
    """compat: unbound-1.17: client-subnet-opcode is deprecated and
    ignored: the option goes upstream under code 8 (the client's
    address, cut to /24), never under the configured code."""
    name = "flat.opcode.ecs.test."
    r = ask(opcoded, name, source="127.3.4.5")
    assert r.rcode() == dns.rcode.NOERROR, r
    with opcoded.ecs_up.lock:
        queries = [q for _, n, _, q in opcoded.ecs_up.received
                   if n == name]
    assert queries
    for q in queries:
        codes = [o.otype for o in q.options]
        assert OPCODE not in codes, codes
        assert opcoded.ecs_up.asked(name) == [("127.3.4.0", 24)]


@pytest.mark.parametrize("v6", [False, True], ids=["ipv4", "ipv6"])
def test_max_ecs_tree_size(bounded, v6):
    """max-ecs-tree-size-ipv4/6 1: one subnet's answer kept per
    question; a second subnet's answer pushes the first out, so the
    first subnet is asked upstream again (with the default 100 it is
    not: test_clients_in_two_subnets_get_their_own_answers)."""
    if v6:
        name = "geo6.tree.ecs.test."
        one, two = (dns.edns.ECSOption("2001:db8:1::", 48),
                    dns.edns.ECSOption("2001:db8:2::", 48))
    else:
        name = "geo.tree.ecs.test."
        one, two = (dns.edns.ECSOption("198.51.100.0", 24),
                    dns.edns.ECSOption("203.0.113.0", 24))
    for ecs in (one, two, one):
        assert ask(bounded, name, ecs=ecs).rcode() == dns.rcode.NOERROR
    assert len(bounded.ecs_up.asked(name)) == 3
