# SPDX-License-Identifier: BSD-3-Clause
"""disable-dnssec-lame-check: DNSSEC-lame servers, side by side with
Debian's Unbound 1.17.

lame.sec1. (testdata/testnet/signed_zones.py) is a signed zone with two
name servers: the signed net's hidden NSD, and the MITM responder,
which relays the NSD's answers with every RRSIG stripped. The zone is
expected signed (the DS is in sec1.), so a reply without signatures
marks its server DNSSEC-lame (iterator/iter_dnsseclame.c) and the
other server is asked; once the infra cache knows it, the stripped
server is not asked again. val-max-restart: 0 keeps the validator from
asking again itself, so every answer secure is the iterator's doing.
With disable-dnssec-lame-check: yes the stripped answers reach the
validator and are bogus (SERVFAIL). stripped.sec1. has only the MITM:
every server is DNSSEC-lame, it is asked anyway and the answer is
bogus, as Unbound's.

Needs nsd, ldnsutils, Debian's unbound and root (port 53); skips
otherwise.
"""
import dns.flags
import dns.message
import dns.rcode
import pytest

from conftest import SLOW, _finish
from signednet_pair import SKIP_MARKS, signednet_net, start_one  # noqa: F401

pytestmark = SKIP_MARKS

# aggressive-nsec: no, or the wildcard's NSEC answers later names from
# the cache and they reach no server
BODY = """module-config: "validator iterator"
trust-anchor-file: "%s"
val-max-restart: 0
aggressive-nsec: no
do-ip6: no
disable-dnssec-lame-check: %s
access-control: 127.0.0.0/8 allow"""

FIND = 40       # names asked at most until the MITM has been asked
NAMES = 12      # names asked after that


def ask(srv, name, cd=False, rdtype="A"):
    q = dns.message.make_query(name, rdtype, want_dnssec=True)
    if cd:
        q.flags |= dns.flags.CD
    return srv.query(q, timeout=15.0 * SLOW)


def secure(r):
    return r.rcode() == dns.rcode.NOERROR and bool(r.flags & dns.flags.AD)


def mitm_lame(mitm, since=0):
    """Queries the MITM got for lame.sec1. and names below it, after
    the first since of its log (the names are new to every run, the
    minimised and DNSKEY questions are not)."""
    return [e for e in mitm.queries()[since:]
            if e["qname"].lower().endswith("lame.sec1.")]


def start(binary, tmp_path, net, check):
    return start_one(binary, tmp_path, net,
                     BODY % (net.anchor, "no" if check else "yes"))


def run(srv, mitm, tag):
    """Ask TXT of new names under the MITM'd wildcard (NODATA: the
    zone's SOA shows the reply is the zone's, so a stripped one marks
    the server in the infra cache, as the DNSKEY answer does; a
    positive answer, its NS set scrubbed, would mark it for that query
    only, in Unbound too) until the MITM has been asked something of
    the zone (the server choice is random), then the A of NAMES more.
    Returns (answers before, answers after: secure or not, queries of
    the zone the MITM got while the names after were asked)."""
    start_at = len(mitm.queries())
    before = []
    for i in range(FIND):
        before.append(secure(ask(srv, "f%d-%s.w.lame.sec1." % (i, tag),
                                 rdtype="TXT")))
        if mitm_lame(mitm, start_at):
            break
    assert mitm_lame(mitm, start_at), "the MITM was never asked"
    after_at = len(mitm.queries())
    after = [secure(ask(srv, "n%d-%s.w.lame.sec1." % (i, tag)))
             for i in range(NAMES)]
    return before, after, len(mitm_lame(mitm, after_at))


@pytest.mark.parametrize("binary", ["ours", "debian"])
def test_stripped_server_passed_over(signednet_net, tmp_path, binary):
    mitm = signednet_net.responders["mitm"]
    srv = start(binary, tmp_path, signednet_net, True)
    try:
        before, after, later = run(srv, mitm, "c" + binary[0])
        # every answer secure: the stripped reply went no further
        assert all(before) and all(after), (before, after)
        # and once marked in the infra cache the MITM is not asked
        assert later == 0, later
    finally:
        _finish(srv)


@pytest.mark.parametrize("binary", ["ours", "debian"])
def test_check_disabled_takes_stripped_answers(signednet_net, tmp_path,
                                               binary):
    """disable-dnssec-lame-check: yes: the MITM stays in the choice and
    its stripped answers are bogus (no validator restart here)."""
    mitm = signednet_net.responders["mitm"]
    srv = start(binary, tmp_path, signednet_net, False)
    try:
        before, after, later = run(srv, mitm, "d" + binary[0])
        # the MITM is still asked (both servers are chosen at
        # random: a chance of 2^-12 that it is not)
        assert later > 0 and not all(after), (later, after)
    finally:
        _finish(srv)


def all_stripped(srv, tag):
    """tag.stripped.sec1. (the MITM its only server): the rcode, and
    with CD the rcode, AD and the answer, unchecked."""
    name = "%s.stripped.sec1." % tag
    r = ask(srv, name)
    rcd = ask(srv, name, cd=True)
    return (r.rcode(), rcd.rcode(), bool(rcd.flags & dns.flags.AD),
            [str(rr) for rrset in rcd.answer for rr in rrset])


def test_all_servers_stripped_bogus_as_unbound(signednet_net, tmp_path):
    got = {}
    for binary in ("ours", "debian"):
        srv = start(binary, tmp_path, signednet_net, True)
        try:
            got[binary] = all_stripped(srv, "www")
        finally:
            _finish(srv)
    assert got["ours"] == got["debian"], got
    assert got["ours"][0] == dns.rcode.SERVFAIL, got
    # with CD the stripped data itself, unchecked
    assert got["ours"][1] == dns.rcode.NOERROR and not got["ours"][2], got
    assert got["ours"][3], got
