# SPDX-License-Identifier: BSD-3-Clause
"""The iterator and the mesh, through the test driver smallapp/resolve-test
(one worker's resolver without the daemon around it; test_recursion.py
does the same through the daemon), resolving through
the loopback test internet (testdata/testnet). Every config points
root-hints: at the test internet's loopback root; nothing leaves
127.0.0.0/8.

Needs nsd and root (the test internet on port 53); skips cleanly
otherwise, and when the driver is not built (e.g. UNBOUND_BIN points at
the reference Unbound)."""
import os
import re
import subprocess
import sys
import time

import dns.message
import dns.rcode
import dns.rdatatype
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from testnet import have_nsd, loopback_guard  # noqa: E402
from testnet.fixture import testnet_net, testnet_reference, net  # noqa: E402,F401

SRCDIR = os.path.dirname(TESTDATA)
BUILDDIR = os.environ.get("UNBOUND_BUILDDIR", SRCDIR)
DRIVER = os.path.join(BUILDDIR, "smallapp", "resolve-test")
SLOW = 3 if os.environ.get("ASAN_OPTIONS") else 1

pytestmark = [
    pytest.mark.skipif(not have_nsd(), reason="nsd is not installed"),
    pytest.mark.skipif(not os.access(DRIVER, os.X_OK),
                       reason="smallapp/resolve-test is not built"),
]


DEAD_ROOT = (". 3600000 IN NS a.root.test.\n"
             "a.root.test. 3600000 IN A 127.0.0.254\n")


def write_conf(tmp_path, net, extra="", hints=True):
    """hints=False: root-hints name a dead loopback root (127.0.0.254)
    instead of the test internet's, never the built-in real root."""
    lines = ["server:", "verbosity: 1", "do-ip6: no",
             "do-not-query-localhost: no", 'module-config: "iterator"']
    if hints:
        lines.append('root-hints: "%s"' % net.root_hints)
    else:
        dead = tmp_path / "dead-root.hints"
        dead.write_text(DEAD_ROOT)
        lines.append('root-hints: "%s"' % dead)
    lines += [l.strip() for l in extra.splitlines() if l.strip()]
    path = tmp_path / "iter.conf"
    path.write_text(lines[0] + "\n" + "".join("\t%s\n" % l
                                                for l in lines[1:]))
    return str(path)


class Run:
    """One driver run: replies (dns.message, in question order), the
    counters it printed, its stderr and how long it took."""

    def __init__(self, conf, questions, timeout=30, opts=()):
        loopback_guard.check(conf)
        t0 = time.time()
        p = subprocess.run([DRIVER, "-c", conf, "-x", "-s",
                            "-t", str(timeout * SLOW)] + list(opts) +
                           list(questions),
                           capture_output=True, text=True,
                           timeout=timeout * SLOW + 30)
        self.elapsed = time.time() - t0
        self.rc = p.returncode
        self.stderr = p.stderr
        self.replies = {}
        self.stats = {}
        for line in p.stdout.splitlines():
            if line.startswith("REPLY "):
                _, idx, hexwire = line.split(" ", 2)
                self.replies[int(idx)] = dns.message.from_wire(
                    bytes.fromhex(hexwire))
            elif line.startswith("STATS "):
                for k, v in re.findall(r"(\w+)=(\d+)", line):
                    self.stats[line.split()[1] + "." + k] = int(v)
        assert p.returncode in (0, 2), p.stderr
        assert not re.search(r"ERROR: (Address|Leak)Sanitizer", p.stderr), \
            p.stderr

    def reply(self, i=0):
        assert i in self.replies, "no reply for question %d:\n%s" % (
            i, self.stderr)
        return self.replies[i]


def rcode(reply):
    return dns.rcode.to_text(reply.rcode())


def all_rdata(reply):
    return [rd.to_text() for sec in (reply.answer, reply.authority,
                                     reply.additional)
            for rr in sec for rd in rr]


@pytest.mark.parametrize("ip6", ["no", "yes"])
def test_expected_cases(net, tmp_path, ip6):
    """Every answer a correct resolver gives through the test internet
    (delegations with glue, out-of-bailiwick NS, the CNAME chain across
    zones, DNAME, wildcards, NXDOMAIN, NODATA with SOA, large answers
    over TCP after TC=1, EDNS fallback, a slow server), all in one run;
    with do-ip6: yes the NS names get AAAA lookups too (none exist)."""
    conf = write_conf(tmp_path, net)
    if ip6 == "yes":
        with open(conf) as f:
            text = f.read().replace("do-ip6: no", "do-ip6: yes")
        with open(conf, "w") as f:
            f.write(text)
    cases = net.expected
    run = Run(conf, ["%s/%s" % (c.qname, c.qtype) for c in cases])
    assert run.rc == 0
    bad = [c.mismatch(run.reply(i)) for i, c in enumerate(cases)]
    assert [b for b in bad if b] == []
    # negative answers carry the zone's SOA
    for i, c in enumerate(cases):
        if not c.answer or c.rcode == "NXDOMAIN":
            r = run.reply(i)
            assert [rr for rr in r.authority
                    if rr.rdtype == dns.rdatatype.SOA], c.qname
    assert run.stats["outnet.tcp"] >= 3     # big, many, tc
    assert run.stats["outnet.edns_fallback"] >= 1


def test_each_case_alone(net, tmp_path):
    """The same cases one run each: no case relies on another's state."""
    conf = write_conf(tmp_path, net)
    for c in net.expected[:8] + [x for x in net.expected
                                 if "CNAME" in x.why or "DNAME" in x.why]:
        run = Run(conf, ["%s/%s" % (c.qname, c.qtype)])
        assert c.mismatch(run.reply()) is None


def test_caches_used_by_later_questions(net, tmp_path):
    """One question after the other (-S): the second name of a zone
    needs one upstream query (delegation from the RRset cache), the
    repeat comes from the message cache, a name under a cached CNAME
    chain is followed from the cache."""
    conf = write_conf(tmp_path, net)
    first = Run(conf, ["www.example.tld1./A"])
    run = Run(conf, ["www.example.tld1./A", "mail.example.tld1./A",
                     "www.example.tld1./A"], opts=["-S"])
    assert all_rdata(run.reply(0)) == ["192.0.2.10"]
    assert all_rdata(run.reply(1)) == ["192.0.2.25"]
    assert all_rdata(run.reply(2)) == ["192.0.2.10"]
    assert run.stats["iter.msg_hits"] == 1
    assert run.stats["iter.cache_delegations"] >= 1
    assert run.stats["iter.sent"] == first.stats["iter.sent"] + 1
    chain = [c for c in net.expected if c.qname == "chain.example.tld1."][0]
    run = Run(conf, ["chain.example.tld1./A", "chain2.example.tld1./A"],
              opts=["-S"])
    assert chain.mismatch(run.reply(0)) is None
    assert run.stats["iter.cache_answers"] >= 2
    sent_first = Run(conf, ["chain.example.tld1./A"]).stats["iter.sent"]
    assert run.stats["iter.sent"] == sent_first


def test_cname_loop_servfail(net, tmp_path):
    conf = write_conf(tmp_path, net)
    run = Run(conf, ["loop1.example.tld1./A"])
    assert rcode(run.reply()) == "SERVFAIL"
    assert run.elapsed < 5 * SLOW
    assert run.stats["iter.sent"] <= 64


def test_ns_cycle_servfail_bounded(net, tmp_path):
    """cyc1.tld2. and cyc2.tld2. are glueless and each one's NS is in
    the other: the lookups would wait for each other forever."""
    conf = write_conf(tmp_path, net)
    run = Run(conf, ["www.cyc1.tld2./A", "www.cyc2.tld2./A"])
    assert rcode(run.reply(0)) == "SERVFAIL"
    assert rcode(run.reply(1)) == "SERVFAIL"
    assert run.elapsed < 5 * SLOW
    assert run.stats["mesh.cycles"] >= 1
    assert run.stats["iter.sent"] <= 2 * 64


def test_poison_not_accepted(net, tmp_path):
    """The responder adds www.example.tld1. and ns1.example.tld1. A
    192.0.2.66 to its answer: out of its bailiwick, scrubbed."""
    conf = write_conf(tmp_path, net)
    # one after the other: had the poison been cached, the later
    # questions would get it
    run = Run(conf, ["poison.bad.tld2./A", "www.example.tld1./A",
                     "ns1.example.tld1./A"], opts=["-S"])
    assert run.stats["iter.scrubbed"] >= 2
    p = run.reply(0)
    assert rcode(p) == "NOERROR"
    assert "192.0.2.66" not in all_rdata(p)
    assert [rd for rd in all_rdata(run.reply(1))] == ["192.0.2.10"]
    assert "192.0.2.66" not in all_rdata(run.reply(2))


def test_unresponsive_servfail_bounded(net, tmp_path):
    """A delegation whose servers never answer, and a server that drops
    one name: SERVFAIL after a bounded number of tries."""
    conf = write_conf(tmp_path, net)
    run = Run(conf, ["x.deadref.bad.tld2./A", "drop.bad.tld2./A",
                     "www.dead.tld2./A"])
    for i in range(3):
        assert rcode(run.reply(i)) == "SERVFAIL"
    assert run.elapsed < 10 * SLOW
    assert run.stats["iter.timeouts"] >= 2


def test_mesh_shares_identical_questions(net, tmp_path):
    """Three identical questions at once: one resolution, one upstream
    query to the server (the responder logs what it gets)."""
    bad = net.responder("bad")
    bad.clear_log()
    conf = write_conf(tmp_path, net)
    run = Run(conf, ["www.bad.tld2./A", "WWW.bad.tld2./A",
                     "www.bad.tld2./A", "www.bad.tld2./AAAA"])
    for i in range(3):
        assert [rr.to_text().lower() for rr in run.reply(i).answer] == [
            rr.to_text().lower() for rr in run.reply(0).answer]
        assert "192.0.2.100" in all_rdata(run.reply(i))
    # the 0x20 case of each question is echoed
    assert run.reply(1).question[0].name.to_text() == "WWW.bad.tld2."
    assert run.stats["mesh.client"] == 4
    assert run.stats["mesh.joined"] == 2
    assert len(bad.queries("www.bad.tld2.", "A")) == 1
    assert len(bad.queries("www.bad.tld2.", "AAAA")) == 1


def test_nxns_lookups_bounded(net, tmp_path):
    """A referral to 20 glueless NS names (that do not exist): only a
    few are looked up (NXNS)."""
    bad = net.responder("bad")
    bad.clear_log()
    conf = write_conf(tmp_path, net)
    run = Run(conf, ["x.nxns.bad.tld2./A"])
    assert rcode(run.reply()) == "SERVFAIL"
    victim = [q for q in bad.queries()
              if q["qname"].lower().endswith("victim.bad.tld2.")]
    assert 1 <= len(victim) <= 6
    assert run.stats["iter.sent"] <= 64
    # again, for another name under it: the failed names' NXDOMAINs are
    # in the message cache, the victim gets nothing more
    bad.clear_log()
    run = Run(conf, ["x.nxns.bad.tld2./A", "y.nxns.bad.tld2./A"],
              opts=["-S"])
    victim = [q for q in bad.queries()
              if q["qname"].lower().endswith("victim.bad.tld2.")]
    assert 1 <= len(victim) <= 6
    assert run.stats["iter.msg_subs"] >= 3


def test_referral_loop_bounded(net, tmp_path):
    """loop.bad.tld2. refers to itself: no progress, SERVFAIL."""
    conf = write_conf(tmp_path, net)
    run = Run(conf, ["a.loop.bad.tld2./A"])
    assert rcode(run.reply()) == "SERVFAIL"
    assert run.elapsed < 5 * SLOW
    assert run.stats["iter.sent"] <= 64


def test_dead_root_servfail(net, tmp_path):
    """A root that does not answer (hints=False: 127.0.0.254, where
    nothing listens): SERVFAIL after trying it, nothing else asked."""
    conf = write_conf(tmp_path, net, hints=False)
    run = Run(conf, ["www.example.tld1./A"], timeout=10)
    assert rcode(run.reply()) == "SERVFAIL"
    assert run.stats["outnet.udp"] + run.stats["outnet.tcp"] > 0


def test_do_not_query_localhost_refuses(net, tmp_path):
    """With do-not-query-localhost: yes (the default) the loopback root
    may not be asked: SERVFAIL, nothing sent."""
    conf = write_conf(tmp_path, net)
    with open(conf) as f:
        text = f.read().replace("do-not-query-localhost: no",
                                "do-not-query-localhost: yes")
    with open(conf, "w") as f:
        f.write(text)
    run = Run(conf, ["www.example.tld1./A"])
    assert rcode(run.reply()) == "SERVFAIL"
    assert run.stats["outnet.udp"] == 0


def test_stub_zone(net, tmp_path):
    """A stub-zone: pointing at example.tld1.'s server is used without
    the root."""
    conf = write_conf(tmp_path, net, hints=False, extra="""
        stub-zone:
        name: "example.tld1."
        stub-addr: %s
    """ % net.address("example1"))
    run = Run(conf, ["www.example.tld1./A"])
    assert [rd for rd in all_rdata(run.reply())] == ["192.0.2.10"]
    assert run.stats["iter.prime"] == 0


def test_forward_zone(net, tmp_path):
    """A forward-zone: sends RD=1 queries to its address and takes the
    answer (here an authoritative server, which answers for its zone)."""
    conf = write_conf(tmp_path, net, hints=False, extra="""
        forward-zone:
        name: "example.tld1."
        forward-addr: %s
    """ % net.address("example1"))
    run = Run(conf, ["www.example.tld1./A", "nonexistent.example.tld1./A",
                     "txtonly.example.tld1./A"])
    assert all_rdata(run.reply(0)) == ["192.0.2.10"]
    assert rcode(run.reply(1)) == "NXDOMAIN"
    assert rcode(run.reply(2)) == "NOERROR" and not run.reply(2).answer
    assert run.stats["iter.sent"] == 3


def test_ds_asked_on_parent_side(net, tmp_path):
    """DS lives in the parent zone: even with the child's delegation in
    the cache, the parent's servers are asked (NODATA with its SOA)."""
    conf = write_conf(tmp_path, net)
    run = Run(conf, ["www.example.tld1./A", "example.tld1./DS",
                     "www.sub.example.tld1./A", "sub.example.tld1./DS"],
              opts=["-S"])
    for i, parent in ((1, "tld1."), (3, "example.tld1.")):
        r = run.reply(i)
        assert rcode(r) == "NOERROR" and not r.answer
        assert [rr.name.to_text() for rr in r.authority] == [parent]


def summary(m):
    """rcode, answer records (no TTLs), authority and additional owner
    and type: what must agree with the reference Unbound."""
    def rrs(sec):
        return sorted("%s %s %s" % (rr.name.to_text().lower(),
                                    dns.rdatatype.to_text(rr.rdtype),
                                    rd.to_text().lower())
                      for rr in sec for rd in rr)

    def names(sec):
        return sorted("%s %s" % (rr.name.to_text().lower(),
                                 dns.rdatatype.to_text(rr.rdtype))
                      for rr in sec)
    return (rcode(m), rrs(m.answer), names(m.authority), names(m.additional))


REFERENCE_QUESTIONS = [
    ("example.tld1.", "NS"), ("tld1.", "NS"), ("example.tld1.", "DS"),
    ("example.tld1.", "SOA"), ("www.dname.example.tld1.", "CNAME"),
    ("chain.example.tld1.", "CNAME"), ("dname.example.tld1.", "DNAME"),
    ("x.ent.example.tld1.", "A"), ("ns1.example.tld1.", "A"),
    ("servfail.bad.tld2.", "A"), ("formerr.bad.tld2.", "A"),
    ("wrongq.bad.tld2.", "A"), ("poison.bad.tld2.", "A"),
    ("loop1.example.tld1.", "A"), ("www.cyc1.tld2.", "A"),
    ("mx.example.tld2.", "MX"), ("cname-nx.example.tld1.", "A"),
    ("nonexistent-tld.", "A"), ("www.dname.example.tld1.", "A"),
]


def test_matches_reference_unbound(net, testnet_reference, tmp_path):
    """Questions beyond the expected cases: the same rcode, answer, and
    section layout as Debian's Unbound 1.17 through the same net."""
    conf = write_conf(tmp_path, net)
    run = Run(conf, ["%s/%s" % q for q in REFERENCE_QUESTIONS])
    diffs = []
    for i, (name, qtype) in enumerate(REFERENCE_QUESTIONS):
        ref = summary(testnet_reference.resolve(name, qtype))
        ours = summary(run.reply(i))
        if ref != ours:
            diffs.append("%s %s: reference %s, ours %s" % (name, qtype,
                                                            ref, ours))
    assert diffs == []


@pytest.mark.parametrize("qmin", ["yes", "no", "strict"])
def test_qname_minimisation(net, tmp_path, qmin):
    """qname-minimisation: yes (the default) asks each server one label
    below its zone with type A, then the full name; NXDOMAIN for a
    minimised name makes it ask the full name (relaxed). The responder
    for bad.tld2. logs what it is asked."""
    bad = net.responder("bad")
    bad.clear_log()
    conf = write_conf(tmp_path, net, extra="qname-minimisation: %s\n%s" % (
        "no" if qmin == "no" else "yes",
        "qname-minimisation-strict: yes" if qmin == "strict" else ""))
    run = Run(conf, ["x.y.www.bad.tld2./TXT"])
    assert rcode(run.reply()) == "NXDOMAIN"
    got = [(q["qname"].lower(), q["qtype"]) for q in bad.queries()]
    if qmin == "strict":
        # nothing below an NXDOMAIN: the full name is never asked
        assert got == [("www.bad.tld2.", "A"), ("y.www.bad.tld2.", "A")]
        assert [rr.rdtype for rr in run.reply().authority] == [
            dns.rdatatype.SOA]
    elif qmin == "yes":
        assert got == [("www.bad.tld2.", "A"), ("y.www.bad.tld2.", "A"),
                       ("x.y.www.bad.tld2.", "TXT")]
        assert run.stats["iter.qmin"] >= 3
    else:
        assert got == [("x.y.www.bad.tld2.", "TXT")]
        assert run.stats["iter.qmin"] == 0


def test_many_concurrent_and_bound(net, tmp_path):
    """100 distinct questions at once: all answered; with
    num-queries-per-thread: 30 the first 30 are, the rest refused. (Kept
    under NSD's default response rate limit of 200 per second, which
    the test internet's servers apply.)"""
    conf = write_conf(tmp_path, net)
    names = ["n%d.wild.example.tld1./A" % i for i in range(100)]
    run = Run(conf, names, timeout=60)
    assert run.rc == 0
    for i in range(100):
        assert all_rdata(run.reply(i)) == ["192.0.2.50"], \
            run.reply(i).to_text()
    assert run.elapsed < 20 * SLOW
    conf = write_conf(tmp_path, net, extra="num-queries-per-thread: 30")
    names = ["m%d.wild.example.tld1./TXT" % i for i in range(100)]
    run = Run(conf, names, timeout=60)
    assert run.stats["mesh.full"] == 70
    assert sorted(run.replies) == list(range(30))
    for i in range(30):
        assert all_rdata(run.reply(i)) == ['"wildcard"'], \
            run.reply(i).to_text()


@pytest.mark.parametrize("first", ["yes", "no"])
def test_forward_first_falls_back(net, tmp_path, first):
    """A forward-zone whose address never answers: with forward-first
    the query goes on from the root, without it SERVFAIL."""
    conf = write_conf(tmp_path, net, extra="""
        forward-zone:
        name: "example.tld1."
        forward-addr: %s
        forward-first: %s
    """ % (net.address("dead"), first))
    run = Run(conf, ["www.example.tld1./A"])
    if first == "yes":
        assert all_rdata(run.reply()) == ["192.0.2.10"]
    else:
        assert rcode(run.reply()) == "SERVFAIL"
    assert run.elapsed < 10 * SLOW


def test_private_address(net, tmp_path):
    """private-address: drops the A/AAAA records in its netblocks from
    answers (the rest of the RRset stays; an RRset with none left is an
    empty NOERROR), except under a private-domain: as Unbound 1.17 does
    through this net."""
    conf = write_conf(tmp_path, net, extra="""
        private-address: 192.0.2.0/25
        private-domain: sub.example.tld1
    """)
    run = Run(conf, ["www.example.tld1./A", "www.example.tld1./AAAA",
                     "many.example.tld1./A", "www.sub.example.tld1./A",
                     "chain.example.tld1./A"])
    r = run.reply(0)
    assert rcode(r) == "NOERROR" and not r.answer and not r.authority
    assert all_rdata(run.reply(1)) == ["2001:db8::10"]
    many = all_rdata(run.reply(2))
    assert sorted(many) == sorted("192.0.2.%d" % i for i in range(128, 200))
    assert all_rdata(run.reply(3)) == ["192.0.2.90"]
    assert [rr.rdtype for rr in run.reply(4).answer] == [
        dns.rdatatype.CNAME] * 3
