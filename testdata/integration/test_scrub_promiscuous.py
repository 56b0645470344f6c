# SPDX-License-Identifier: BSD-3-Clause
"""iter-scrub-promiscuous (Unbound 1.22, on by default): an upstream
answer's authority NS set is dropped unless the reply is a referral.
The attack: the server of promisc.tld9. answers www.sub.promisc.tld9. A
and adds "sub.promisc.tld9. NS ns.rogue.promisc.tld9." with glue to a
rogue server (as a spoofed or rogue reply would). With the option off
the resolver may take that NS set as the delegation of sub.promisc.tld9.,
and the next name under it is asked of the rogue; with it on (the
default) the next name is asked of the real server. Side by side with
Debian's Unbound 1.17 (UNBOUND_BIN=/usr/sbin/unbound): its package has
the option as a backport (CVE-2025-11411), on by default as here, and
passes both cases.

The rogue server listens on port 53 of a random 127/8 address (as root,
as the test internet does)."""
import os
import random
import socket
import threading

import dns.message
import dns.rrset
import pytest

from conftest import Upstream

pytestmark = [pytest.mark.skipif(
    os.geteuid() != 0, reason="the rogue server needs port 53 (root)")]


class Port53(Upstream):
    """An Upstream on port 53 of address (glue carries no port)."""

    def __init__(self, address):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind((address, 53))
        self.addr, self.port = address, 53
        self.received = []
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()


class Rogue(Port53):
    RDATA = {"A": "192.0.2.66"}


class Promiscuous(Upstream):
    """The zone's server: each A answer carries the rogue NS set."""

    def __init__(self, rogue_addr):
        self.rogue_addr = rogue_addr
        super().__init__()

    def respond(self, q, qname, qtype):
        r = super().respond(q, qname, qtype)
        if qtype == "A" and "rogue" not in str(qname):
            r.authority.append(dns.rrset.from_text(
                "sub.promisc.tld9.", 3600, "IN", "NS",
                "ns.rogue.promisc.tld9."))
            r.additional.append(dns.rrset.from_text(
                "ns.rogue.promisc.tld9.", 3600, "IN", "A",
                self.rogue_addr))
        return r


@pytest.fixture(scope="module")
def servers():
    for _ in range(5):
        addr = "127.77.%d.%d" % (random.randint(0, 255),
                                 random.randint(1, 254))
        try:
            rogue = Rogue(addr)
            break
        except OSError:
            continue
    else:
        pytest.skip("no free 127/8 address with port 53")
    good = Promiscuous(rogue.addr)
    yield good, rogue
    good.close()
    rogue.close()


@pytest.mark.parametrize("setting,poisoned", [("", False), ("no", True)])
def test_promiscuous_ns_set(unbound, servers, setting, poisoned):
    good, rogue = servers
    body = "qname-minimisation: no\n"
    if setting:
        body += "iter-scrub-promiscuous: %s\n" % setting
    unbound.start(body + good.stub_zone("promisc.tld9."))
    r = unbound.query("www.sub.promisc.tld9.", "A", timeout=3.0)
    assert "192.0.2.253" in str(r.answer), (r, good.queries(),
                                            unbound.output()[-2000:])
    before = len(rogue.queries())
    r = unbound.query("next.sub.promisc.tld9.", "A", timeout=3.0)
    asked_rogue = len(rogue.queries()) > before
    assert asked_rogue == poisoned, (setting, r, rogue.queries())
    want = "192.0.2.66" if poisoned else "192.0.2.253"
    assert want in str(r.answer), r
