# SPDX-License-Identifier: BSD-3-Clause
"""response-ip on expired answers (serve-expired-client-timeout), side by
side with Debian's Unbound 1.17 and, when the env UNBOUND_126 names its
binary, Unbound 1.26: every answer passes the rules, the expired one too
(Unbound's serve-expired callback applies respip). A name whose cached
answer (TTL 1) expired is asked again while its upstream no longer
answers it well; a response-ip rule redirects its address, and the
client must get the rule's answer, not the expired address:

- silent: the upstream drops the query; the expired answer goes when
  the client timeout (400 ms) passes;
- refused: the upstream answers REFUSED; resolution fails before the
  timeout and the expired answer replaces the SERVFAIL;
- gone: the zone's stub now points at a do-not-query-address
  (unbound-control stub_add): resolution fails without a query, in
  the mesh's first run (the daemon's answer at once).

Each case four ways: a rule with an address (A), a rule whose data is
a CNAME whose target's answer is cached (expired too, as the name's),
the same from an RPZ Response IP trigger (rpz-ip CNAME), and a rule
whose target's answer is not cached (flushed). Unbound 1.25.2 and
later join the cached target to the CNAME, its TTL serve-expired-
reply-ttl; an uncached target gives no answer from the serve-expired
path: the client waits for resolution (silent), or gets its SERVFAIL.
Debian's 1.17 sends the expired answer unchanged in the A case; a CNAME
rule there crashes it (CVE-2026-55717), so it is not asked those.

The upstream is a conftest.Upstream on loopback, the stub server of
"stale.test." and "gone.test."."""
import concurrent.futures
import os
import re
import time

import dns.exception
import dns.message
import dns.rcode
import dns.rrset
import pytest

from conftest import (DEB_UNBOUND, REFERENCE, RefServer, Server, Upstream,
                      _finish, free_port)
from test_control import DEB_CTL, OUR_CTL, ctl, rc_clause

UB126 = os.environ.get("UNBOUND_126")

pytestmark = [
    pytest.mark.skipif(not os.access(DEB_UNBOUND, os.X_OK),
                       reason="Debian's unbound is not installed"),
    pytest.mark.skipif(REFERENCE, reason="compares this build with "
                       "the reference; UNBOUND_BIN is the reference"),
]

ADDR = "192.0.2.7"         # the A rule's address
RULE_ADDR = "10.7.7.7"
CN_ADDR = "192.0.2.8"      # a CNAME rule's, target cached
CX_ADDR = "192.0.2.9"      # a CNAME rule's, target not cached
RN_ADDR = "192.0.2.10"     # an RPZ Response IP trigger's, CNAME, cached
TARGET = "tgt.stale.test."
TARGET_X = "tgt-x.stale.test."
TARGET_ADDR = "198.51.100.9"
NOWHERE = "127.0.0.99"     # a do-not-query-address
LIMITED = "127.0.0.2"      # ours: a client whose queries may not wait
# serve-expired-reply-ttl under the target's TTL: Unbound 1.25 and later
# cap it by a record's original TTL, this daemon and 1.17 do not
REPLY_TTL = 2
TARGET_TTL = 3
KEYS = ("silent", "refused", "gone")
RULES = ("a", "cn", "cx", "rn")


def name(key, rule):
    """The question of one case: silent and refused in stale.test.,
    gone in gone.test."""
    label = {"a": "www", "cn": "cn", "cx": "cx", "rn": "rn"}[rule]
    if key == "gone":
        return "%s.gone.test." % label
    return "%s-%s.stale.test." % (key, label)


BODY = """module-config: "respip iterator"
serve-expired: yes
serve-expired-client-timeout: 400
serve-expired-reply-ttl: %d
qname-minimisation: no
local-zone: "test." nodefault
domain-insecure: "test."
do-not-query-address: %s
response-ip: %s/32 redirect
response-ip-data: %s/32 "A %s"
response-ip: %s/32 redirect
response-ip-data: %s/32 "CNAME %s"
response-ip: %s/32 redirect
response-ip-data: %s/32 "CNAME %s"
""" % (REPLY_TTL, NOWHERE, ADDR, ADDR, RULE_ADDR, CN_ADDR, CN_ADDR, TARGET,
       CX_ADDR, CX_ADDR, TARGET_X)

RPZ_CLAUSE = """rpz:
	name: rpz.expired.
	zonefile: "%s"
"""

RPZ_ZONE = """$ORIGIN rpz.expired.
$TTL 3600
@ SOA ns.rpz.expired. admin.rpz.expired. 1 3600 600 86400 60
@ NS ns.rpz.expired.
32.%s.rpz-ip CNAME %s
""" % (".".join(reversed(RN_ADDR.split("."))), TARGET)


# ours only (Debian's 1.17 has no such option)
OURS_BODY = "wait-limit-netblock: %s/32 0\n" % LIMITED


class Changing(Upstream):
    """Answers A with TTL 1, a target's with TARGET_TTL (the address by
    the name's first label); a name in silent gets no reply, one in
    refused REFUSED."""

    def __init__(self):
        self.silent = set()
        self.refused = set()
        super().__init__()

    def respond(self, q, qname, qtype):
        name = qname.to_text().lower()
        if name in self.silent:
            return None
        r = dns.message.make_response(q)
        if name in self.refused:
            r.set_rcode(dns.rcode.REFUSED)
            return r
        r.flags |= self.FLAGS
        first = name.split(".")[0]
        addr = TARGET_ADDR if first.startswith("tgt") else \
            CN_ADDR if first.endswith("cn") else \
            CX_ADDR if first.endswith("cx") else \
            RN_ADDR if first.endswith("rn") else ADDR
        if qtype == "A":
            r.answer.append(dns.rrset.from_text(
                qname, TARGET_TTL if addr == TARGET_ADDR else 1, "IN",
                "A", addr))
        return r


class Ub126Server(Server):
    binary = UB126 or "/nonexistent"


def ask(srv, qname, timeout=3.0):
    return srv.query(qname, "A", timeout=timeout)


def view(r):
    """rcode and the answer records as text (TTLs in)."""
    return (dns.rcode.to_text(r.rcode()),
            sorted(rr.to_text() for rr in r.answer))


def ask_all(servers, qname, timeout=3.0):
    """view() of each server's answer, asked at once; None: no answer
    within timeout."""
    def one(srv):
        try:
            return view(ask(srv, qname, timeout))
        except dns.exception.Timeout:
            return None
    with concurrent.futures.ThreadPoolExecutor(len(servers)) as ex:
        return dict(zip(servers, ex.map(one, servers.values())))


def fresh_answer(rule, qname):
    """The answer a name gets while its upstream answers."""
    if rule == "a":
        return ["%s 3600 IN A %s" % (qname, RULE_ADDR)]
    tgt = TARGET_X if rule == "cx" else TARGET
    return ["%s 3600 IN CNAME %s" % (qname, tgt),
            "%s TTL IN A %s" % (tgt, TARGET_ADDR)]


@pytest.fixture(scope="module")
def daemons(tmp_path_factory):
    """Ours, Debian's ("reference") and, with UNBOUND_126, Unbound 1.26,
    each with its own upstream, every name answered once, the
    uncached target flushed, then the upstream changed; yields once the
    answers have expired."""
    kinds = [(Server, "ours", OUR_CTL), (RefServer, "reference", DEB_CTL)]
    if UB126:
        kinds.append((Ub126Server, "unbound-1.26",
                      os.path.join(os.path.dirname(UB126),
                                   "unbound-control")))
    servers = {}
    zone = tmp_path_factory.mktemp("rpz") / "rpz.zone"
    zone.write_text(RPZ_ZONE)
    try:
        for cls, kind, binary in kinds:
            up = Changing()
            srv = cls(tmp_path_factory.mktemp(kind))
            srv.up, srv.ctl_bin = up, binary
            servers[kind] = srv
            srv.start(BODY + (OURS_BODY if kind == "ours" else ""),
                      extra=up.stub_zone("stale.test.", "gone.test.")
                      + RPZ_CLAUSE % zone
                      + rc_clause(None, free_port(), use_cert=False))
        got = 0.0
        for srv in servers.values():
            for key in KEYS:
                for rule in RULES:
                    qname = name(key, rule)
                    rcode, answer = view(ask(srv, qname))
                    # the target's TTL, counting down
                    answer = [re.sub(r" [0-%d] IN A %s$" % (
                        TARGET_TTL, TARGET_ADDR), " TTL IN A " +
                        TARGET_ADDR, a) for a in answer]
                    assert (rcode, answer) == \
                        ("NOERROR", fresh_answer(rule, qname)), \
                        (srv.binary, qname, rcode, answer)
            got = time.time()
            r = ctl(srv.conf, "flush", TARGET_X, binary=srv.ctl_bin)
            assert r.returncode == 0 and "ok" in r.stdout, r
            for key in ("silent", "refused"):
                for rule in RULES:
                    getattr(srv.up, key).add(name(key, rule))
            r = ctl(srv.conf, "stub_add", "gone.test.", NOWHERE,
                    binary=srv.ctl_bin)
            assert r.returncode == 0 and "ok" in r.stdout, r
        # a wait for the clock (the targets' TTL), not for the daemons
        time.sleep(max(0.0, got + TARGET_TTL + 0.2 - time.time()))
        for srv in servers.values():
            srv.asked = len(srv.up.received)
        yield servers
    finally:
        for srv in servers.values():
            _finish(srv)
            srv.up.close()


def expired_unchanged(got, addr):
    """Debian's 1.17 served the expired entry (serve-expired-reply-ttl)
    unchanged: the case is the one named. compat: unbound-1.25.2: its
    serve-expired callback sends the rules' answer; 1.17 to 1.25.1
    worked it out and sent the expired answer unchanged."""
    assert got is not None and got[0] == "NOERROR" and \
        len(got[1]) == 1 and \
        got[1][0].endswith(" %d IN A %s" % (REPLY_TTL, addr)), \
        "reference %s" % (got,)


def joined(qname):
    """The expired answer of qname with its rule's CNAME joined to the
    cached target."""
    return ("NOERROR", ["%s 3600 IN CNAME %s" % (qname, TARGET),
                        "%s %d IN A %s" % (TARGET, REPLY_TTL, TARGET_ADDR)])


def resolvers(daemons):
    """The daemons but Debian's 1.17: a CNAME rule on the expired answer
    crashes it (CVE-2026-55717, fixed in 1.25.2)."""
    return {k: v for k, v in daemons.items() if k != "reference"}


@pytest.mark.parametrize("key", KEYS)
def test_expired_answer_passes_response_ip(daemons, key):
    got = ask_all(daemons, name(key, "a"))
    expired_unchanged(got.pop("reference"), ADDR)
    for kind, r in got.items():
        assert r is not None and r[0] == "NOERROR", (kind, r)
        assert len(r[1]) == 1 and r[1][0].endswith(" IN A " + RULE_ADDR), \
            (kind, r)


@pytest.mark.parametrize("rule", ("cn", "rn"))
@pytest.mark.parametrize("key", KEYS)
def test_expired_cname_joins_cached_target(daemons, key, rule):
    """compat: unbound-1.25.2: the rule's CNAME (response-ip-data, or an
    RPZ Response IP trigger's; its data's TTL) and the target's answer
    from the cache, expired as the name's: its TTL
    serve-expired-reply-ttl; the target is not asked upstream."""
    qname = name(key, rule)
    servers = resolvers(daemons)
    got = ask_all(servers, qname)
    want = joined(qname)
    for kind, r in got.items():
        assert r == want, (kind, r)
        srv = servers[kind]
        assert TARGET not in [q[1] for q in srv.up.received[srv.asked:]], \
            (kind, "target asked upstream")


@pytest.mark.parametrize("key", KEYS)
def test_expired_cname_target_not_cached(daemons, key):
    """compat: unbound-1.25.2: a CNAME whose target the cache does not
    hold: the serve-expired path sends nothing; the client waits on for
    resolution (silent: no answer well past the client timeout) or gets
    its SERVFAIL (refused, gone)."""
    qname = name(key, "cx")
    got = ask_all(resolvers(daemons), qname,
                  timeout=1.5 if key == "silent" else 3.0)
    for kind, r in got.items():
        if key == "silent":
            assert r is None or r[0] == "SERVFAIL", (kind, r)
        else:
            assert r == ("SERVFAIL", []), (kind, r)


@pytest.mark.parametrize("rule", RULES)
def test_expired_answer_the_mesh_cannot_take(daemons, rule):
    """Ours only (doc/compat.md): a query the mesh cannot take (here its
    client's wait-limit-netblock is 0) gets the expired answer at once
    through the rules, a CNAME joined to its cached target; one whose
    target is not cached is dropped, as Unbound drops every such
    query."""
    srv = daemons["ours"]
    qname = name("silent", rule)
    try:
        got = view(srv.query(qname, "A", source=LIMITED, timeout=1.0))
    except dns.exception.Timeout:
        got = None
    want = {"a": ("NOERROR", ["%s 3600 IN A %s" % (qname, RULE_ADDR)]),
            "cx": None}.get(rule, joined(qname))
    assert got == want
