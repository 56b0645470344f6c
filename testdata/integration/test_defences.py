# SPDX-License-Identifier: BSD-3-Clause
"""The flood and poisoning defences a config turns on, each under the
attack it exists for, on the loopback test internet (testdata/testnet):

- unwanted-reply-threshold: replies with a wrong ID (the shape of a
  spoofing attempt on an upstream query) are counted; at the threshold
  the daemon logs Unbound's warning and empties the RRset and message
  caches (a name cached before is asked upstream again).
- deny-any: a question of type ANY is answered NOTIMP with no records
  and never sent upstream (ANY amplification).
- harden-unknown-additional: records of unexpected types in the
  authority and additional sections of an upstream reply do not reach
  the client.
- tcp-connection-limit: a netblock's clients hold at most the limit's
  TCP connections; one more is closed at accept without an answer
  (side by side with Debian's Unbound 1.17 in the same run), and after
  one closes a new one is served (this daemon only: see doc/compat.md).

Runs against Debian's Unbound too (UNBOUND_BIN=/usr/sbin/unbound, its
unbound-control): the same attacks, the same assertions. Nothing is
asserted after a fixed sleep: the responder logs a query before it
answers, so once the daemon's reply is here an upstream query it made
is in the log."""
import os
import signal
import sys
import time


import dns.message
import dns.rcode
import dns.rdatatype
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from testnet import have_nsd  # noqa: E402
from testnet.fixture import testnet_net, net  # noqa: E402,F401
from conftest import REFERENCE, SLOW, ours_only  # noqa: E402
from conftest import (DEB_UNBOUND, RefServer, Server, _finish,  # noqa: E402
                      make_query, recv_tcp_msg, tcp_frame)

pytestmark = pytest.mark.skipif(not have_nsd(), reason="nsd is not installed")

# the control helpers of the rate-limit tests
from test_ratelimit import control_clause, stats  # noqa: E402

WARN = "unwanted reply total reached threshold"


def rcode(reply):
    return dns.rcode.to_text(reply.rcode())


def poll(check, secs=5.0 * SLOW):
    deadline = time.monotonic() + secs
    while True:
        got = check()
        if got or time.monotonic() > deadline:
            return got
        time.sleep(0.05)


def spoofed_lookup(srv, bad, name, count):
    """Ask name; bad.tld2.'s server first sends count replies with wrong
    IDs (from its own address and port, as a spoofer who guessed the
    port would), then the real one."""
    bad.set_behaviour(rules=[{"name": name, "actions": [
        {"type": "wrong_id", "count": count, "then_correct": True}]}])
    r = srv.query(name, "A", timeout=8.0)
    assert rcode(r) in ("NOERROR", "NXDOMAIN"), r


@pytest.mark.parametrize("threshold,flushed", [(5, True), (6, False),
                                               (0, False)])
def test_unwanted_reply_threshold(unbound, net, tmp_path, threshold,
                                  flushed):
    """unwanted-reply-threshold: 5 and five wrong-ID replies to one
    upstream query: the warning is logged, unwanted.replies is 5, and
    www.bad.tld2., cached before, is asked upstream again. 6 (one short)
    and 0 (off): no warning and the second ask is a cache hit."""
    unbound.start("unwanted-reply-threshold: %d\nextended-statistics: yes"
                  % threshold,
                  extra=control_clause(tmp_path / "ctl.sock"),
                  root_hints=net.root_hints)
    bad = net.responder("bad")
    assert rcode(unbound.query("www.bad.tld2.", "A", timeout=8.0)) == \
        "NOERROR"
    bad.clear_log()
    spoofed_lookup(unbound, bad, "wid.bad.tld2.", 5)
    assert poll(lambda: stats(unbound)["unwanted.replies"] == "5"), \
        stats(unbound)
    if flushed:
        assert poll(lambda: WARN in unbound.output()), unbound.output()
        assert "(%d) you may be under attack. defensive action: clearing "\
            "the cache" % threshold in unbound.output()
    else:
        assert WARN not in unbound.output()
    r = unbound.query("www.bad.tld2.", "A", timeout=8.0)
    assert [rd.to_text() for rr in r.answer for rd in rr] == \
        ["192.0.2.100"]
    asked = bad.queries("www.bad.tld2.", "A")
    assert bool(asked) == flushed, asked


def test_unwanted_reply_threshold_counts_across_queries(unbound, net,
                                                        tmp_path):
    """The count goes on from one upstream query to the next and starts
    again after the defence: threshold 8, 5 unwanted (nothing), 5 more
    (flushed once at 8), 5 more (total 7 since: nothing)."""
    unbound.start("unwanted-reply-threshold: 8\nextended-statistics: yes",
                  extra=control_clause(tmp_path / "ctl.sock"),
                  root_hints=net.root_hints)
    bad = net.responder("bad")
    spoofed_lookup(unbound, bad, "wid1.bad.tld2.", 5)
    assert WARN not in unbound.output()
    spoofed_lookup(unbound, bad, "wid2.bad.tld2.", 5)
    assert poll(lambda: WARN in unbound.output()), unbound.output()
    spoofed_lookup(unbound, bad, "wid3.bad.tld2.", 5)
    assert poll(lambda: stats(unbound)["unwanted.replies"] == "15")
    assert unbound.output().count(WARN) == 1, unbound.output()


EXTRA = ["anyname.bad.tld2. 300 IN A 192.0.2.77",
         'anyname.bad.tld2. 300 IN TXT "any"']


@pytest.mark.parametrize("deny", [True, False])
def test_deny_any(unbound, net, tmp_path, deny):
    """deny-any: yes: ANY gets NOTIMP with no records, for a name whose
    A is cached and for one never seen, and bad.tld2.'s server gets no
    ANY query; other types are answered. deny-any: no: ANY is answered
    (NOERROR, the cached A) and the unseen name's ANY goes upstream."""
    unbound.start("deny-any: %s" % ("yes" if deny else "no"),
                  extra=control_clause(tmp_path / "ctl.sock"),
                  root_hints=net.root_hints)
    bad = net.responder("bad")
    bad.set_behaviour(records=EXTRA)
    assert rcode(unbound.query("www.bad.tld2.", "A", timeout=8.0)) == \
        "NOERROR"
    bad.clear_log()
    for name in ("www.bad.tld2.", "anyname.bad.tld2."):
        for tcp in (False, True):
            r = unbound.query(name, "ANY", timeout=8.0, tcp=tcp)
            if deny:
                assert rcode(r) == "NOTIMP", r
                assert not r.answer and not r.authority, r
                assert [str(q.name) for q in r.question] == [name]
            else:
                assert rcode(r) == "NOERROR", r
                # the cached A (the responder has no ANY answer of its
                # own: anyname's is empty)
                assert r.answer or name != "www.bad.tld2.", r
    anys = [q for q in bad.queries() if q["qtype"] in ("ANY", 255)]
    if deny:
        assert anys == [], anys
    else:
        assert anys, bad.queries()
    # other types are not touched
    r = unbound.query("anyname.bad.tld2.", "TXT", timeout=8.0)
    assert rcode(r) == "NOERROR" and r.answer, r


def unknown_rule(net):
    """unk.bad.tld2. A answered with a TXT in the authority section and
    a TXT and an unknown type in the additional one; its AAAA a NODATA
    whose authority has the SOA and a TXT (record types a resolver has
    no use for there: what harden-unknown-additional is about)."""
    bad = net.responder("bad")
    poison = {"type": "poison", "records": [
        'unk.bad.tld2. 300 IN TXT "addl-unknown"',
        "unk.bad.tld2. 300 IN TYPE65280 \\# 2 0102"]}
    bad.set_behaviour(rules=[
        {"name": "unk.bad.tld2.", "qtype": "A", "actions": [
            {"type": "answer", "records": [
                "unk.bad.tld2. 300 IN A 192.0.2.66"],
             "authority": ['bad.tld2. 300 IN TXT "auth-unknown"']},
            poison]},
        {"name": "unk.bad.tld2.", "qtype": "AAAA", "actions": [
            {"type": "answer", "records": [], "authority": [
                "bad.tld2. 300 IN SOA ns.bad.tld2. h.bad.tld2. 1 3600 "
                "900 604800 300",
                'bad.tld2. 300 IN TXT "auth-unknown"']}, poison]}])
    return bad


def section_types(reply):
    return sorted(dns.rdatatype.to_text(rr.rdtype)
                  for rr in reply.authority + reply.additional
                  if rr.rdtype != dns.rdatatype.OPT)


@pytest.mark.parametrize("harden", ["yes", "no"])
def test_harden_unknown_additional(unbound, net, tmp_path, harden):
    """Records of other types than SOA, NS, DS, NSEC, NSEC3 (authority)
    and A, AAAA (additional) never reach the client, in an answer and
    in a NODATA (whose SOA does): here with harden-unknown-additional
    yes (Unbound 1.18's hardening) and, as a documented difference, no
    as well. Debian's Unbound 1.17 (no such option: as no) passes the
    TXT on, which this checks when run against it."""
    body = "minimal-responses: no\n" + (
        "" if REFERENCE else "harden-unknown-additional: %s" % harden)
    if REFERENCE and harden == "yes":
        pytest.skip("Unbound 1.17 has no harden-unknown-additional")
    unbound.start(body, extra=control_clause(tmp_path / "ctl.sock"),
                  root_hints=net.root_hints)
    unknown_rule(net)
    for _ in range(2):      # upstream, then from the cache
        r = unbound.query("unk.bad.tld2.", "A", timeout=8.0)
        assert [rd.to_text() for rr in r.answer for rd in rr] == \
            ["192.0.2.66"], r
        n = unbound.query("unk.bad.tld2.", "AAAA", timeout=8.0)
        assert rcode(n) == "NOERROR" and not n.answer, n
        assert "SOA" in section_types(n), n
        types = section_types(r) + section_types(n)
        if REFERENCE:
            assert "TXT" in types, (r, n)
        else:
            assert "TXT" not in types and "TYPE65280" not in types, (r, n)


ANCHOR = ('trust-anchor: "nothere.test. DS 12345 8 2 '
          '0000000000000000000000000000000000000000000000000000000000000000"')


@ours_only
@pytest.mark.parametrize("case", ["on", "off", "anchored"])
def test_disable_edns_do(unbound, net, tmp_path, case):
    """disable-edns-do: yes (Unbound 1.18; 1.17 has no such option):
    upstream queries go without DO, and a client asking with DO gets
    its answer (from recursion, then from the cache) without an OPT
    record; a client with EDNS but no DO keeps its OPT. off: DO
    upstream, OPT back. With a trust anchor for the validator the option
    is not in effect (it would break validation), as Unbound."""
    body = {"on": "disable-edns-do: yes", "off": "",
            "anchored": "disable-edns-do: yes\n" + ANCHOR}[case]
    unbound.start(body, extra=control_clause(tmp_path / "ctl.sock"),
                  root_hints=net.root_hints)
    bad = net.responder("bad")
    bad.clear_log()
    off = case == "on"
    for _ in range(2):      # recursion, then the cache
        r = unbound.query("www.bad.tld2.", "A", timeout=8.0,
                          want_dnssec=True)
        assert [rd.to_text() for rr in r.answer for rd in rr] == \
            ["192.0.2.100"], r
        assert (r.edns < 0) == off, r
    r = unbound.query("www.bad.tld2.", "A", timeout=8.0, edns=0)
    assert r.edns == 0, r
    asked = bad.queries("www.bad.tld2.")
    assert asked and all(q["do"] != off for q in asked), asked


# -- tcp-connection-limit ------------------------------------------------

LIMITED = "127.0.0.5"
LIMIT_BODY = """
tcp-connection-limit: %s/32 2
local-zone: "limit.test." static
local-data: "a.limit.test. A 192.0.2.1"
""" % LIMITED


@pytest.fixture(params=["ours", "ours-4-threads", "unbound-1.17"])
def limited(request, tmp_path):
    """This daemon (also with 4 threads: with so-reuseport each accepts
    on its own socket, and the count is still one per netblock), then
    Debian's Unbound, with LIMIT_BODY."""
    threads = 4 if request.param == "ours-4-threads" else 1
    if request.param.startswith("ours"):
        srv = Server(tmp_path)
    else:
        if REFERENCE or not os.access(DEB_UNBOUND, os.X_OK):
            pytest.skip("no second binary to compare with")
        srv = RefServer(tmp_path)
    srv.start(LIMIT_BODY + "so-reuseport: yes\n", threads=threads)
    yield srv
    _finish(srv)


def tcp_ask(sock):
    """Ask a.limit.test over an open connection: the answer's address,
    or "closed" when the daemon closes (EOF or reset) without one. A
    timeout is neither, and fails the test."""
    try:
        sock.sendall(tcp_frame(make_query("a.limit.test.").to_wire()))
        wire = recv_tcp_msg(sock)
    except (ConnectionResetError, BrokenPipeError):
        return "closed"
    if wire is None:
        return "closed"
    return dns.message.from_wire(wire).answer[0][0].to_text()


def test_tcp_connection_limit(limited):
    srv = limited
    held = [srv.tcp_connect(source=LIMITED) for _ in range(2)]
    try:
        for s in held:
            assert tcp_ask(s) == "192.0.2.1"
        # more from the netblock: closed at accept, no answer (four, so
        # that with threads they land on several of them)
        for _ in range(4):
            with srv.tcp_connect(source=LIMITED) as s:
                assert tcp_ask(s) == "closed"
        # other clients are not limited
        with srv.tcp_connect(source="127.0.0.1") as s:
            assert tcp_ask(s) == "192.0.2.1"
        if REFERENCE or isinstance(srv, RefServer):
            # compat: unbound-1.17: its count did not go down when a
            # connection closed (45 s tried): no room again (doc/compat.md)
            return
        # one closes: once the daemon has seen that, there is room again
        held.pop(0).close()

        def served():
            with srv.tcp_connect(source=LIMITED) as s:
                return tcp_ask(s) == "192.0.2.1"
        assert poll(served), "no room after a connection closed"
        # the one still held was served all along
        assert tcp_ask(held[0]) == "192.0.2.1"
    finally:
        for s in held:
            s.close()


@ours_only
def test_tcp_connection_limit_reload(unbound):
    """A reload swaps the table: connections open before it count in
    the old one (freed when the last of them closes; the ASan run
    checks), new ones in the new one from zero."""
    srv = unbound
    srv.start(LIMIT_BODY)
    held = [srv.tcp_connect(source=LIMITED) for _ in range(2)]
    new = []
    try:
        for s in held:
            assert tcp_ask(s) == "192.0.2.1"
        with srv.tcp_connect(source=LIMITED) as s:
            assert tcp_ask(s) == "closed"
        srv.write_config(LIMIT_BODY.replace(" 2\n", " 3\n"))
        srv.send_signal(signal.SIGHUP)

        def served():
            s = srv.tcp_connect(source=LIMITED)
            if tcp_ask(s) == "192.0.2.1":
                new.append(s)
                return True
            s.close()
            return False
        assert poll(served), "the reloaded table is not in use"
        for s in held:
            s.close()
        held = []
        for _ in range(2):
            assert served()
        with srv.tcp_connect(source=LIMITED) as s:
            assert tcp_ask(s) == "closed"
    finally:
        for s in held + new:
            s.close()
