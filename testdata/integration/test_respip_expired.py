# SPDX-License-Identifier: BSD-3-Clause
"""response-ip on expired answers (serve-expired-client-timeout), side by
side with Debian's Unbound 1.17: every answer passes the rules, the
expired one too (Unbound's serve-expired callback applies respip). A
name whose cached answer (TTL 1) expired is asked again while its
upstream no longer answers it well; a response-ip rule redirects its
address, and the client must get the rule's answer, not the expired
address:

- silent: the upstream drops the query; the expired answer goes when
  the client timeout (400 ms) passes;
- refused: the upstream answers REFUSED; resolution fails before the
  timeout and the expired answer replaces the SERVFAIL;
- gone: the zone's stub now points at a do-not-query-address
  (unbound-control stub_add): resolution fails without a query, in
  the mesh's first run (the daemon's answer at once).

The upstream is a conftest.Upstream on loopback, the stub server of
"stale.test." and "gone.test."."""
import os
import time

import dns.message
import dns.rcode
import dns.rrset
import pytest

from conftest import (DEB_UNBOUND, REFERENCE, RefServer, Server, Upstream,
                      _finish, free_port)
from test_control import DEB_CTL, OUR_CTL, ctl, rc_clause

pytestmark = [
    pytest.mark.skipif(not os.access(DEB_UNBOUND, os.X_OK),
                       reason="Debian's unbound is not installed"),
    pytest.mark.skipif(REFERENCE, reason="compares this build with "
                       "the reference; UNBOUND_BIN is the reference"),
]

ADDR = "192.0.2.7"
RULE_ADDR = "10.7.7.7"
NOWHERE = "127.0.0.99"   # a do-not-query-address
NAMES = {"silent": "silent.stale.test.", "refused": "refused.stale.test.",
         "gone": "www.gone.test."}

BODY = """module-config: "respip iterator"
serve-expired: yes
serve-expired-client-timeout: 400
serve-expired-reply-ttl: 17
qname-minimisation: no
local-zone: "test." nodefault
domain-insecure: "test."
do-not-query-address: %s
response-ip: %s/32 redirect
response-ip-data: %s/32 "A %s"
""" % (NOWHERE, ADDR, ADDR, RULE_ADDR)


class Changing(Upstream):
    """Answers A ADDR with TTL 1; a name in silent gets no reply, one
    in refused REFUSED."""

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
        if qtype == "A":
            r.answer.append(dns.rrset.from_text(qname, 1, "IN", "A", ADDR))
        return r


def ask(srv, name, timeout=3.0):
    return srv.query(name, "A", timeout=timeout)


def view(r):
    """rcode and the answer records as text (TTLs in)."""
    return (dns.rcode.to_text(r.rcode()),
            sorted(rr.to_text() for rr in r.answer))


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    """Ours and the reference, each with its own upstream, every name
    answered once, then its upstream changed; yields once the answers
    have expired."""
    servers = []
    try:
        for cls, name, binary in ((Server, "ours", OUR_CTL),
                                  (RefServer, "reference", DEB_CTL)):
            up = Changing()
            srv = cls(tmp_path_factory.mktemp(name))
            srv.up, srv.ctl_bin = up, binary
            servers.append(srv)
            srv.start(BODY, extra=up.stub_zone("stale.test.", "gone.test.")
                      + rc_clause(None, free_port(), use_cert=False))
        got = 0.0
        for srv in servers:
            for name in NAMES.values():
                rcode, answer = view(ask(srv, name))
                assert rcode == "NOERROR" and len(answer) == 1 and \
                    answer[0].endswith(" IN A " + RULE_ADDR), answer
            got = time.time()
            srv.up.silent.add(NAMES["silent"])
            srv.up.refused.add(NAMES["refused"])
            r = ctl(srv.conf, "stub_add", "gone.test.", NOWHERE,
                    binary=srv.ctl_bin)
            assert r.returncode == 0 and "ok" in r.stdout, r
        # a wait for the clock (TTL 1 s), not for the daemons
        time.sleep(max(0.0, got + 2.2 - time.time()))
        yield servers
    finally:
        for srv in servers:
            _finish(srv)
            srv.up.close()


@pytest.mark.parametrize("key", ["silent", "refused", "gone"])
def test_expired_answer_passes_response_ip(pair, key):
    ours, ref = (view(ask(srv, NAMES[key])) for srv in pair)
    # the reference served the expired entry (serve-expired-reply-ttl):
    # the case is the one named. compat: unbound-1.25.2: its
    # serve-expired callback sends the rules' answer; 1.17 to 1.25.1
    # worked it out and sent the expired answer unchanged (Debian's
    # 1.17 here: the address, not the rule's)
    assert ref[0] == "NOERROR" and len(ref[1]) == 1 and \
        " 17 IN A " in ref[1][0], "reference %s" % (ref,)
    assert ours[0] == "NOERROR", ours
    assert len(ours[1]) == 1 and \
        ours[1][0].endswith(" IN A " + RULE_ADDR), ours
