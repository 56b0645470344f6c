# SPDX-License-Identifier: BSD-3-Clause
"""val-max-restart: a bogus answer is asked again of the zone's other
servers before it is final, as Unbound 1.17 does.

flaky.sec1. (testdata/testnet/signed_zones.py) has two name servers:
the signed net's hidden NSD, and the MITM responder, which relays the
NSD's answers but strips the RRSIGs of names under w.flaky.sec1. (a
wildcard, so every name asked is a new question). Which server a
resolver asks first is its choice; with restarts every answer ends
secure, without them (val-max-restart: 0) the answers the MITM gave
are bogus. Both this daemon and Debian's Unbound are asked, configured
the same way.

The same holds for the chain of trust: keyretry.sec1. has the same two
servers, and the MITM strips the RRSIGs of its DNSKEY answer. The key
is asked again of the other server before the zone is called bad
(Unbound's chain_blacklist); each round forgets the zone's keys, its
cached answers and the servers' round-trip times (unbound-control), so
each picks a server anew.

Needs nsd, ldnsutils, Debian's unbound and root (port 53); skips
otherwise.
"""
import dns.flags
import dns.message
import dns.rcode
import pytest

from conftest import SLOW, Server, _finish
from signednet_pair import SKIP_MARKS, signednet_net, start_one  # noqa: F401
from test_control import ctl, rc_clause

pytestmark = SKIP_MARKS

# aggressive-nsec: no, or the first secure wildcard answer (with its
# NSEC) answers the later names from the cache and none reaches the MITM;
# disable-dnssec-lame-check: yes, or the iterator itself passes the
# stripped replies over (test_dnssec_lame.py) and the validator never
# sees one to restart for
BODY = """module-config: "validator iterator"
trust-anchor-file: "%s"
val-max-restart: %d
aggressive-nsec: no
disable-dnssec-lame-check: yes
do-ip6: no
access-control: 127.0.0.0/8 allow"""

NAMES = 24      # each a new question under the MITM'd wildcard


def answers(srv, tag):
    """(secure, bogus) counts over NAMES new names, asked with DO."""
    secure = bogus = 0
    for i in range(NAMES):
        q = dns.message.make_query("n%d-%s.w.flaky.sec1." % (i, tag), "A",
                                   want_dnssec=True)
        r = srv.query(q, timeout=15.0 * SLOW)
        if r.rcode() == dns.rcode.SERVFAIL:
            bogus += 1
        elif r.rcode() == dns.rcode.NOERROR and r.flags & dns.flags.AD:
            secure += 1
    return secure, bogus


@pytest.mark.parametrize("binary", ["ours", "debian"])
def test_bogus_answer_retried_at_the_other_server(signednet_net, tmp_path,
                                                  binary):
    srv = start_one(binary, tmp_path, signednet_net,
                    BODY % (signednet_net.anchor, 5))
    try:
        secure, bogus = answers(srv, "r")
        assert (secure, bogus) == (NAMES, 0), (secure, bogus)
    finally:
        _finish(srv)


def test_no_restart_leaves_the_mitm_answers_bogus(signednet_net, tmp_path):
    """Ours with val-max-restart: 0: the names first asked of the MITM
    are bogus (SERVFAIL), so the test above does exercise the restarts
    (24 names: a chance of 2^-24 that a server chosen at random is never
    the MITM). Debian's Unbound is left out here: it kept asking the
    NSD (faster than the relaying responder) in every run tried."""
    srv = Server(tmp_path)
    try:
        srv.start(BODY % (signednet_net.anchor, 0),
                  root_hints=signednet_net.root_hints)
        secure, bogus = answers(srv, "z")
        assert bogus > 0 and secure + bogus == NAMES, (secure, bogus)
    finally:
        _finish(srv)


KEY_ROUNDS = 12     # each a fresh choice between the two servers


def key_rounds(srv):
    """(secure, bogus) over KEY_ROUNDS rounds of www.keyretry.sec1. A,
    each after the zone's keys, answers and server RTTs are forgotten."""
    secure = bogus = 0
    for _ in range(KEY_ROUNDS):
        for args in (("flush_zone", "keyretry.sec1."), ("flush_bogus",),
                     ("flush_infra", "all")):
            r = ctl(srv.conf, *args, binary=srv.ctl_bin)
            assert r.returncode == 0, (args, r.stdout, r.stderr)
        q = dns.message.make_query("www.keyretry.sec1.", "A",
                                   want_dnssec=True)
        r = srv.query(q, timeout=15.0 * SLOW)
        if r.rcode() == dns.rcode.SERVFAIL:
            bogus += 1
        elif r.rcode() == dns.rcode.NOERROR and r.flags & dns.flags.AD:
            secure += 1
    return secure, bogus


def start_with_control(binary, tmp_path, net, restarts):
    return start_one(binary, tmp_path, net, BODY % (net.anchor, restarts),
                     extra=rc_clause(None,
                                     iface=str(tmp_path / binary / "c.sock"),
                                     use_cert=False))


@pytest.mark.parametrize("binary", ["ours", "debian"])
def test_bad_dnskey_retried_at_the_other_server(signednet_net, tmp_path,
                                                binary):
    srv = start_with_control(binary, tmp_path, signednet_net, 5)
    try:
        secure, bogus = key_rounds(srv)
        assert (secure, bogus) == (KEY_ROUNDS, 0), (secure, bogus)
    finally:
        _finish(srv)


def test_no_restart_leaves_the_mitm_key_bad(signednet_net, tmp_path):
    """Ours with val-max-restart: 0: the rounds whose DNSKEY came from
    the MITM are bogus, so the test above does exercise the key's
    retry (a chance of 2^-12 that the MITM is never chosen)."""
    srv = start_with_control("ours", tmp_path, signednet_net, 0)
    try:
        secure, bogus = key_rounds(srv)
        assert bogus > 0 and secure + bogus == KEY_ROUNDS, (secure, bogus)
    finally:
        _finish(srv)
