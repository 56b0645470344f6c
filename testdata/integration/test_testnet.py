# SPDX-License-Identifier: BSD-3-Clause
"""Tests of the test internet harness itself (testdata/testnet/).

The NSD servers and the scripted responders are queried directly with
dnspython, not through our resolver, to show the harness serves what
zones.py says; then Debian's real Unbound resolves every expected case
through it, which proves the test internet works for a real resolver.
Everything runs on 127.x.y.z and is stopped by PID.
"""
import os
import socket
import struct
import subprocess
import sys
import time

import dns.exception
import dns.flags
import dns.message
import dns.name
import dns.query
import dns.rcode
import dns.rdatatype
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from testnet import TestNet, have_nsd, pick_prefix  # noqa: E402
from testnet import procs, zones  # noqa: E402
from testnet.fixture import testnet_net, testnet_reference  # noqa: E402,F401

pytestmark = pytest.mark.skipif(not have_nsd(),
                                reason="nsd is not installed (/usr/sbin/nsd)")


@pytest.fixture
def net(testnet_net):
    """The session's test internet; the responders' scripted behaviour
    is reset after each test."""
    yield testnet_net
    for r in testnet_net.responders.values():
        r.reset_behaviour()


def rrs(section, rdtype=None):
    """'owner TYPE rdata' strings of a message section."""
    return sorted("%s %s %s" % (rr.name, dns.rdatatype.to_text(rr.rdtype),
                                rd.to_text())
                  for rr in section for rd in rr
                  if rdtype is None or rr.rdtype == dns.rdatatype.from_text(
                      rdtype))


def processes_in(directory):
    """PIDs of live processes whose working directory is under directory
    (every server of the harness runs in its own directory)."""
    directory = os.path.realpath(str(directory))
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            cwd = os.readlink("/proc/%s/cwd" % d)
        except OSError:
            continue
        if cwd.startswith(directory + os.sep) and procs.pid_alive(int(d)):
            out.append(int(d))
    return out


def raw_udp(addr, port, wire, timeout=1.0, count=1):
    """Send wire over UDP; the first `count` replies (fewer on timeout)."""
    out = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(timeout)
        s.sendto(wire, (addr, port))
        try:
            while len(out) < count:
                out.append(s.recv(65535))
        except socket.timeout:
            pass
    return out


# -- the NSD servers ------------------------------------------------------

def test_root_delegates_to_tlds_with_glue(net):
    for tld, ns in (("tld1.", ["ns1.nic.tld1.", "ns2.nic.tld1."]),
                    ("tld2.", ["ns1.nic.tld2."]),
                    ("tld3.", ["ns1.nic.tld3."])):
        r = net.query("root", "www.example." + tld)
        assert r.rcode() == dns.rcode.NOERROR
        assert not r.flags & dns.flags.AA and not r.answer
        assert rrs(r.authority) == sorted("%s NS %s" % (tld, n) for n in ns)
        glue = {rr.name.to_text() for rr in r.additional}
        assert glue == set(ns)
    r = net.query("root", "a.root.test.")
    assert rrs(r.answer) == ["a.root.test. A %s" % net.address("root")]
    assert r.flags & dns.flags.AA


def test_root_hints_point_at_loopback_root_only(net):
    with open(net.root_hints) as f:
        text = f.read()
    addrs = [l.split()[-1] for l in text.splitlines() if "\tA\t" in l]
    assert addrs == [net.address("root")]
    assert "AAAA" not in text


def test_tld_referrals_in_and_out_of_bailiwick(net):
    # in bailiwick: glue comes along
    r = net.query("tld1", "www.example.tld1.")
    assert rrs(r.authority) == ["example.tld1. NS ns1.example.tld1.",
                                "example.tld1. NS ns2.example.tld1."]
    assert rrs(r.additional, "A") == [
        "ns1.example.tld1. A %s" % net.address("example1"),
        "ns2.example.tld1. A %s" % net.address("example1")]
    # tld1. has a second server
    r2 = net.query("tld3", "www.example.tld1.")
    assert rrs(r2.authority) == rrs(r.authority)
    # out of bailiwick: no glue, the address is in dns-host.tld3.
    r = net.query("tld2", "www.example.tld2.")
    assert rrs(r.authority) == ["example.tld2. NS ns.dns-host.tld3."]
    assert not r.additional
    r = net.query("dnshost", "ns.dns-host.tld3.")
    assert rrs(r.answer) == ["ns.dns-host.tld3. A %s" %
                             net.address("example2")]
    r = net.query("example2", "www.example.tld2.")
    assert r.flags & dns.flags.AA
    assert rrs(r.answer) == ["www.example.tld2. A 192.0.2.20"]


def test_second_level_delegation(net):
    r = net.query("example1", "www.sub.example.tld1.")
    assert rrs(r.authority) == ["sub.example.tld1. NS ns.sub.example.tld1."]
    assert rrs(r.additional) == ["ns.sub.example.tld1. A %s" %
                                 net.address("sub")]
    r = net.query("sub", "www.sub.example.tld1.")
    assert rrs(r.answer) == ["www.sub.example.tld1. A 192.0.2.90"]


def test_record_mix_nodata_nxdomain(net):
    for qtype, want in (("A", "192.0.2.10"), ("AAAA", "2001:db8::10"),
                        ("TXT", '"v=test www"')):
        r = net.query("example1", "www.example.tld1.", qtype)
        assert rrs(r.answer) == ["www.example.tld1. %s %s" % (qtype, want)]
    r = net.query("example1", "example.tld1.", "MX")
    assert rrs(r.answer) == ["example.tld1. MX 10 mail.example.tld1."]
    assert "mail.example.tld1. A 192.0.2.25" in rrs(r.additional)
    for name in ("txtonly.example.tld1.", "ent.example.tld1."):
        r = net.query("example1", name)
        assert r.rcode() == dns.rcode.NOERROR and not r.answer
        assert rrs(r.authority, "SOA")
    r = net.query("example1", "nonexistent.example.tld1.")
    assert r.rcode() == dns.rcode.NXDOMAIN and rrs(r.authority, "SOA")
    r = net.query("root", "nonexistent-tld.")
    assert r.rcode() == dns.rcode.NXDOMAIN


def test_wildcard(net):
    r = net.query("example1", "a.b.wild.example.tld1.", "TXT")
    assert rrs(r.answer) == ['a.b.wild.example.tld1. TXT "wildcard"']
    r = net.query("example1", "foo.wild.example.tld1.", "AAAA")
    assert r.rcode() == dns.rcode.NOERROR and not r.answer
    r = net.query("example1", "exact.wild.example.tld1.", "TXT")
    assert r.rcode() == dns.rcode.NOERROR and not r.answer


def test_dname_and_cnames(net):
    r = net.query("example1", "www.dname.example.tld1.")
    assert rrs(r.answer) == [
        "dname.example.tld1. DNAME example.tld2.",
        "www.dname.example.tld1. CNAME www.example.tld2."]
    r = net.query("example1", "chain.example.tld1.")
    assert rrs(r.answer) == [
        "chain.example.tld1. CNAME chain2.example.tld1.",
        "chain2.example.tld1. CNAME alias.example.tld2."]
    r = net.query("example2", "alias.example.tld2.")
    assert rrs(r.answer) == ["alias.example.tld2. CNAME www.dns-host.tld3."]


@pytest.mark.parametrize("name,qtype", [("big.example.tld1.", "TXT"),
                                        ("many.example.tld1.", "A")])
def test_large_answer_truncated_over_udp_full_over_tcp(net, name, qtype):
    for edns in (0, -1):
        r = net.query("example1", name, qtype, edns=edns)
        assert r.flags & dns.flags.TC
    r = net.query("example1", name, qtype, tcp=True)
    assert not r.flags & dns.flags.TC
    assert len(r.to_wire()) > 1232
    want = [c for c in net.expected if c.qname == name][0]
    assert rrs(r.answer) == sorted(want.answer)


def test_nsd_has_no_transfer_or_notify_config(net):
    for inst in net.nsd.values():
        with open(inst.conf) as f:
            conf = f.read()
        for word in ("notify", "request-xfr", "provide-xfr", "allow-axfr"):
            assert word not in conf
        assert "do-ip6: no" in conf and '@%d' % net.port in conf


# -- the scripted responder ------------------------------------------------

def test_responder_answers_and_logs(net):
    bad = net.responder("bad")
    bad.clear_log()
    for _ in range(3):
        r = net.query("bad", "www.bad.tld2.")
        assert rrs(r.answer) == ["www.bad.tld2. A 192.0.2.100"]
        assert r.flags & dns.flags.AA
    r = net.query("bad", "nothere.bad.tld2.")
    assert r.rcode() == dns.rcode.NXDOMAIN
    logged = bad.queries("www.bad.tld2")
    assert len(logged) == 3 and logged[0]["qtype"] == "A"
    assert logged[0]["proto"] == "udp" and logged[0]["edns"] == 0
    assert len(bad.queries()) == 4


def test_responder_drop(net):
    bad = net.responder("bad")
    bad.clear_log()
    with pytest.raises(dns.exception.Timeout):
        net.query("bad", "drop.bad.tld2.", timeout=0.3)
    with pytest.raises(dns.exception.Timeout):
        net.query("bad", "drop.bad.tld2.", tcp=True, timeout=0.3)
    assert len(bad.queries("drop.bad.tld2.")) == 2


def test_responder_delay(net):
    t = time.time()
    r = net.query("bad", "slow.bad.tld2.")
    assert time.time() - t >= 0.24
    assert rrs(r.answer) == ["slow.bad.tld2. A 192.0.2.102"]


def test_responder_tc_then_tcp(net):
    r = net.query("bad", "tc.bad.tld2.")
    assert r.flags & dns.flags.TC and not r.answer
    r = net.query("bad", "tc.bad.tld2.", tcp=True)
    assert not r.flags & dns.flags.TC
    assert rrs(r.answer) == ["tc.bad.tld2. A 192.0.2.103"]
    assert net.responder("bad").queries("tc.bad.tld2.")[-1]["proto"] == "tcp"


def test_responder_formerr_to_edns_only(net):
    r = net.query("bad", "formerr.bad.tld2.")
    assert r.rcode() == dns.rcode.FORMERR and r.edns < 0
    r = net.query("bad", "formerr.bad.tld2.", edns=-1)
    assert rrs(r.answer) == ["formerr.bad.tld2. A 192.0.2.104"]
    # per instance: noedns.tld2.'s server does it for every name
    r = net.query("noedns", "www.noedns.tld2.")
    assert r.rcode() == dns.rcode.FORMERR
    r = net.query("noedns", "www.noedns.tld2.", edns=-1)
    assert rrs(r.answer) == ["www.noedns.tld2. A 192.0.2.120"]


def test_responder_wrong_id(net):
    q = dns.message.make_query("wrongid.bad.tld2.", "A")
    replies = raw_udp(net.address("bad"), net.port, q.to_wire(), 0.5, 2)
    assert len(replies) == 1
    assert struct.unpack("!H", replies[0][:2])[0] != q.id
    q = dns.message.make_query("wrongid-then-right.bad.tld2.", "A")
    replies = raw_udp(net.address("bad"), net.port, q.to_wire(), 0.5, 2)
    ids = [struct.unpack("!H", w[:2])[0] for w in replies]
    assert len(ids) == 2 and ids[0] != q.id and ids[1] == q.id


def test_responder_wrong_question(net):
    q = dns.message.make_query("wrongq.bad.tld2.", "A")
    (wire,) = raw_udp(net.address("bad"), net.port, q.to_wire())
    r = dns.message.from_wire(wire)
    assert r.id == q.id
    assert r.question[0].name != q.question[0].name


def test_responder_poison_in_additional(net):
    r = net.query("bad", "poison.bad.tld2.")
    assert rrs(r.answer) == ["poison.bad.tld2. A 192.0.2.108"]
    assert "www.example.tld1. A 192.0.2.66" in rrs(r.additional)


def test_responder_referral_loop(net):
    r = net.query("bad", "x.loop.bad.tld2.")
    assert not r.flags & dns.flags.AA and not r.answer
    assert rrs(r.authority) == ["loop.bad.tld2. NS ns.bad.tld2."]
    assert rrs(r.additional) == ["ns.bad.tld2. A %s" % net.address("bad")]
    # asking the 'child' server (the same one) again gives the same
    assert rrs(net.query("bad", "x.loop.bad.tld2.").authority) == \
        rrs(r.authority)


def test_glueless_ns_cycle(net):
    a = net.query("tld2", "www.cyc1.tld2.")
    b = net.query("tld2", "ns.cyc2.tld2.")
    assert rrs(a.authority) == ["cyc1.tld2. NS ns.cyc2.tld2."]
    assert rrs(b.authority) == ["cyc2.tld2. NS ns.cyc1.tld2."]
    assert not a.additional and not b.additional


def test_responder_many_ns(net):
    r = net.query("bad", "www.nxns.bad.tld2.")
    ns = rrs(r.authority, "NS")
    assert len(ns) == 20 and not r.additional
    assert all(n.endswith(".victim.bad.tld2.") for n in ns)
    # the NS names resolve to NXDOMAIN at this same server (and are logged)
    r = net.query("bad", "ns1.victim.bad.tld2.")
    assert r.rcode() == dns.rcode.NXDOMAIN
    assert net.responder("bad").queries("ns1.victim.bad.tld2.")


def test_referrals_to_unresponsive_servers(net):
    r = net.query("bad", "www.deadref.bad.tld2.")
    assert rrs(r.additional, "A")[0].endswith(net.address("dead"))
    r = net.query("tld2", "www.dead.tld2.")
    assert rrs(r.additional) == ["ns.dead.tld2. A %s" % net.address("dead")]
    with pytest.raises((dns.exception.Timeout, ConnectionError, OSError)):
        net.query("dead", "www.dead.tld2.", timeout=0.3)


def test_responder_servfail(net):
    assert net.query("bad", "servfail.bad.tld2.").rcode() == \
        dns.rcode.SERVFAIL


def test_responder_behaviour_changed_at_run_time(net):
    bad = net.responder("bad")
    bad.set_behaviour(default=[{"type": "rcode", "rcode": "REFUSED"}],
                      rules=[])
    assert net.query("bad", "www.bad.tld2.").rcode() == dns.rcode.REFUSED
    assert net.query("bad", "drop.bad.tld2.").rcode() == dns.rcode.REFUSED
    bad.reset_behaviour()
    assert net.query("bad", "www.bad.tld2.").rcode() == dns.rcode.NOERROR


# -- the real resolver ----------------------------------------------------

def test_real_unbound_resolves_through_the_test_internet(testnet_reference,
                                                         net):
    """Every case of zones.cases(): delegations with glue, the
    out-of-bailiwick NS, CNAME chain, DNAME, wildcards, NXDOMAIN, NODATA,
    large answers over TCP, the TC and late responders. A case that fails
    here is wrong in zones.py, not in our resolver."""
    bad = []
    for c in net.expected:
        r = testnet_reference.resolve(c.qname, c.qtype)
        if c.mismatch(r):
            bad.append(c.mismatch(r))
    assert not bad, "\n".join(bad)
    # poison from the responder is not believed
    testnet_reference.query("poison.bad.tld2.")
    r = testnet_reference.query("www.example.tld1.")
    assert rrs(r.answer) == ["www.example.tld1. A 192.0.2.10"]


# -- the command line and the bench zone --------------------------------------

def test_cli_start_stop_with_bench_zone(tmp_path):
    """Start by hand (detached), query the bench zone, stop by PID: no
    process is left."""
    port = 10053 if os.geteuid() != 0 else 53
    prefix = pick_prefix(port)
    cli = os.path.join(TESTDATA, "testnet", "testnet.py")
    d = str(tmp_path / "net")
    out = subprocess.run([sys.executable, cli, "start", d, "--prefix", prefix,
                          "--port", str(port), "--bench", "10000"],
                         capture_output=True, text=True, timeout=60)
    pids = []
    try:
        assert out.returncode == 0, out.stderr
        assert "root hints" in out.stdout
        net = TestNet.from_dir(d)
        for inst in list(net.nsd.values()) + list(net.responders.values()):
            pid = procs.read_pid(inst.pidfile)
            assert pid and procs.pid_alive(pid)
            pids.append(pid)
        with open(os.path.join(d, "bench-queries.txt")) as f:
            queries = [l.split() for l in f]
        assert len(queries) == 10000
        types = {t for _, t in queries}
        assert types == {"A", "AAAA", "TXT"}
        r = net.query("tld1", "h1.bench.tld1.")
        assert rrs(r.authority) == ["bench.tld1. NS ns.bench.tld1."]
        for name, qtype in (queries[0], queries[9999], queries[5555]):
            r = net.query("bench", name, qtype)
            assert r.rcode() == dns.rcode.NOERROR and r.answer, name
        r = net.query("bench", "h9.bench.tld1.")
        assert "h9.bench.tld1. CNAME h0.bench.tld1." in rrs(r.answer)
    finally:
        subprocess.run([sys.executable, cli, "stop", d], timeout=60)
    for pid in pids:
        assert not procs.pid_alive(pid)
        assert not procs.group_members(pid)
    assert not processes_in(d)


def test_start_failure_stops_what_was_started(tmp_path):
    """A server that cannot start (its address is taken) makes start()
    fail, and the servers already started are stopped."""
    port = 10053 if os.geteuid() != 0 else 53
    prefix = pick_prefix(port)
    blocker = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    blocker.bind((zones.addr(prefix, zones.SUB), port))
    net = TestNet(str(tmp_path / "net"), prefix=prefix, port=port)
    try:
        with pytest.raises(RuntimeError) as excinfo:
            net.start()
    finally:
        blocker.close()
        net.stop()
    assert not processes_in(tmp_path)
    assert "sub" in str(excinfo.value)


def test_servers_die_with_a_killed_test_run(tmp_path):
    """A test process killed hard (no finalizer runs) takes its servers
    with it (SIGTERM on parent death)."""
    port = 10053 if os.geteuid() != 0 else 53
    d = str(tmp_path / "net")
    code = ("import sys, time; sys.path.insert(0, %r)\n"
            "from testnet import TestNet\n"
            "TestNet(%r, prefix=%r, port=%d).start()\n"
            "print('up', flush=True); time.sleep(60)\n" %
            (TESTDATA, d, pick_prefix(port), port))
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                         text=True)
    try:
        assert p.stdout.readline().strip() == "up"
        assert processes_in(d)
    finally:
        p.kill()
        p.wait()
    deadline = time.time() + 10
    while processes_in(d) and time.time() < deadline:
        time.sleep(0.05)
    assert not processes_in(d)
