# SPDX-License-Identifier: BSD-3-Clause
"""The signed test internet (testdata/testnet/signed_*.py) proven right
with Debian's real Unbound 1.17 as the validating reference.

First the net itself: served directly by its servers, each zone is
signed and each broken child is broken the way signed_zones.DEFECTS
says (so a case fails for the intended reason, not by accident). Then
every expected case of signed_cases.py is asked of Debian's Unbound
(module-config "validator iterator", the net's trust anchor, root-hints
at the signed root) with DO and without, CD and without, and its rcode,
AD flag and answer/authority RRsets must be what the case says; the
validator's log must name the failure of each bogus case.

Needs nsd, ldnsutils, Debian's unbound and root (port 53); skips
otherwise. Everything runs on 127.x.y.z and is stopped by PID.
"""
import os
import subprocess
import sys
import threading
import time

import dns.dnssec
import dns.flags
import dns.message
import dns.rcode
import dns.rdatatype
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from testnet import have_unbound, pick_prefix, procs  # noqa: E402
from testnet import ReferenceUnbound  # noqa: E402
from testnet.signed_net import SignedNet  # noqa: E402
from testnet import signed_cases, signed_zones  # noqa: E402
from testnet.fixture import signednet_net  # noqa: E402,F401

COMBOS = [(0, 0), (1, 0), (0, 1), (1, 1)]      # (DO, CD), in asking order

# What the reference's validator log says for each broken child: the
# failure it must report, proving the zone is broken as intended.
REASONS = {
    "www.expired.sec1.": "signature expired",
    "www.notyet.sec1.": "signature before inception date",
    "www.badsig.sec1.": "signature crypto failed",
    "www.badkeytag.sec1.": "signatures from unknown keys",
    "www.dsmismatch.sec1.": "DS hash mismatches key",
    "www.dsmissingkey.sec1.": "no keys have a DS with algorithm",
    "www.nozoneflag.sec1.": "dnskey without ZSK flag",
    "www.stripped.sec1.": "no signatures",
    # the KSK is not accepted (MAX_DS_MATCH_FAILURES, at debug level)
    "www.keytrap.sec1.": "for key keytrap.sec1.",
    "nx.nonsec.sec1.": "no DNSSEC records",
}


def make_query(qname, qtype, do, cd):
    q = dns.message.make_query(qname, qtype, use_edns=0, payload=1232,
                               want_dnssec=bool(do))
    if cd:
        q.flags |= dns.flags.CD
    return q


@pytest.fixture(scope="module")
def reference(signednet_net, tmp_path_factory):
    """Debian's Unbound validating through the signed net; its cache is
    shared by the module's tests, as a resolver's would be."""
    if not have_unbound():
        pytest.skip("/usr/sbin/unbound is not installed")
    ref = ReferenceUnbound(signednet_net,
                           str(tmp_path_factory.mktemp("validating")),
                           extra="minimal-responses: yes", validating=True)
    try:
        ref.start()
        yield ref
    finally:
        ref.stop()


# -- the net, queried directly ----------------------------------------------------

def test_anchor_is_the_root_ksk(signednet_net):
    r = signednet_net.query("root", ".", "DNSKEY")
    keys = [rr for rr in r.answer if rr.rdtype == dns.rdatatype.DNSKEY][0]
    with open(signednet_net.anchor) as f:
        anchor = f.read().split()
    assert anchor[3] == "DS"
    tags = {dns.dnssec.key_id(k) for k in keys if k.flags & 1}
    assert int(anchor[4]) in tags
    assert len(keys) == 2, "root has a KSK and a ZSK"


ALGORITHM_NUMBERS = {"RSASHA1": 5, "RSASHA1-NSEC3-SHA1": 7, "RSASHA256": 8,
                     "RSASHA512": 10, "ECDSAP256SHA256": 13,
                     "ECDSAP384SHA384": 14, "ED25519": 15, "ED448": 16}


def test_every_algorithm_child_signed_with_its_algorithm(signednet_net):
    for alg in signed_zones.ALGORITHMS:
        zone = signed_zones.alg_label(alg) + ".sec1."
        r = signednet_net.query("children", "www." + zone, "A")
        sigs = [rr for rr in r.answer if rr.rdtype == dns.rdatatype.RRSIG]
        assert sigs and all(int(s.algorithm) == ALGORITHM_NUMBERS[alg]
                            for s in sigs[0]), (zone, r)


def test_opt_out_delegation_has_no_nsec3(signednet_net):
    """unsigned.sec2. has no NSEC3 of its own; the one covering it has
    the opt-out flag."""
    net = signednet_net
    chain = net.chains()["sec2."]
    h = chain.hash("unsigned.sec2.")
    assert all(label != h for label, _ in chain.nsec3)
    r = net.query("tlds", "unsigned.sec2.", "DS")
    n3 = [rr for rr in r.authority if rr.rdtype == dns.rdatatype.NSEC3]
    assert n3 and all(rd.flags & 1 for rr in n3 for rd in rr), r


def test_iter500_uses_500_iterations(signednet_net):
    r = signednet_net.query("children", "iter500.sec1.", "NSEC3PARAM")
    assert [rd.iterations for rr in r.answer for rd in rr
            if rr.rdtype == dns.rdatatype.NSEC3PARAM] == [500]


def test_broken_children_are_broken_as_described(signednet_net):
    net = signednet_net
    # nozoneflag: the only DNSKEY has flags 1 (SEP, no zone bit)
    r = net.query("broken", "nozoneflag.sec1.", "DNSKEY")
    assert [rd.flags for rr in r.answer for rd in rr
            if rr.rdtype == dns.rdatatype.DNSKEY] == [1]
    # keytrap: 21 DNSKEYs, one key tag; 20 RRSIGs over www A
    r = net.query("broken", "keytrap.sec1.", "DNSKEY", tcp=True)
    keys = [rd for rr in r.answer for rd in rr
            if rr.rdtype == dns.rdatatype.DNSKEY]
    assert len(keys) == signed_zones.KEYTRAP_KEYS + 1
    assert len({dns.dnssec.key_id(k) for k in keys}) == 1
    ds = net.query("tlds", "keytrap.sec1.", "DS")
    real = [k for k in keys if any(
        dns.dnssec.make_ds("keytrap.sec1.", k, "SHA256") == d
        for rr in ds.answer for d in rr if rr.rdtype == dns.rdatatype.DS)]
    assert real == [keys[-1]], "the DS names the last key served"
    r = net.query("broken", "www.keytrap.sec1.", "A", tcp=True)
    sigs = [rd for rr in r.answer for rd in rr
            if rr.rdtype == dns.rdatatype.RRSIG]
    assert len(sigs) == signed_zones.KEYTRAP_SIGS
    assert {s.key_tag for s in sigs} == {dns.dnssec.key_id(keys[0])}
    # unsupported: DS and DNSKEY of RSAMD5 only
    r = net.query("tlds", "unsupported.sec1.", "DS")
    assert [rd.algorithm for rr in r.answer for rd in rr
            if rr.rdtype == dns.rdatatype.DS] == [1]
    # expired / notyet: signature times
    now = time.time()
    for zone, ok in (("expired", lambda s: s.expiration < now),
                     ("notyet", lambda s: s.inception > now)):
        r = net.query("broken", "www.%s.sec1." % zone, "A")
        sigs = [rd for rr in r.answer for rd in rr
                if rr.rdtype == dns.rdatatype.RRSIG]
        assert sigs and all(ok(s) for s in sigs), r


def test_mitm_strips_what_it_says(signednet_net):
    """The responder relays the hidden server's signed data without
    RRSIGs (stripped) or without NSEC (nonsec)."""
    net = signednet_net
    hidden = net.query("hidden", "www.stripped.sec1.", "A")
    assert any(rr.rdtype == dns.rdatatype.RRSIG for rr in hidden.answer)
    r = net.query("mitm", "www.stripped.sec1.", "A")
    assert [rr.rdtype for rr in r.answer] == [dns.rdatatype.A]
    hidden = net.query("hidden", "nx.nonsec.sec1.", "A")
    assert any(rr.rdtype == dns.rdatatype.NSEC for rr in hidden.authority)
    r = net.query("mitm", "nx.nonsec.sec1.", "A")
    assert r.rcode() == dns.rcode.NXDOMAIN
    assert {dns.rdatatype.to_text(rr.rdtype) for rr in r.authority} == \
        {"SOA", "RRSIG"}
    assert all(rr.covers == dns.rdatatype.SOA for rr in r.authority
               if rr.rdtype == dns.rdatatype.RRSIG)


def test_mitm_says_nxdomain_for_the_ent_ds(signednet_net):
    """ent.entnx.sec1. / ent.entnx3.sec1. are empty non-terminals above
    a signed child: the hidden server says NODATA to their DS question,
    the responder relays it as NXDOMAIN with the same signed proof."""
    net = signednet_net
    for zone, proof in (("entnx.sec1.", "NSEC"), ("entnx3.sec1.", "NSEC3")):
        hidden = net.query("hidden", "ent." + zone, "DS")
        assert hidden.rcode() == dns.rcode.NOERROR and not hidden.answer
        r = net.query("mitm", "ent." + zone, "DS")
        assert r.rcode() == dns.rcode.NXDOMAIN, r
        assert proof in {dns.rdatatype.to_text(rr.rdtype)
                         for rr in r.authority}, r
        r = net.query("mitm", "child.ent." + zone, "DS")
        assert r.rcode() == dns.rcode.NOERROR and r.answer, r


# -- Debian's Unbound through the net --------------------------------------------

CASES = signed_cases.cases()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_reference_gives_expected_answer(reference, signednet_net, case):
    chains = signednet_net.chains()
    bad = []
    for do, cd in COMBOS:
        r = reference.send(make_query(case.qname, case.qtype, do, cd),
                           timeout=10.0)
        m = signed_cases.mismatch(case, r, do, cd, chains)
        if m:
            bad.append(m)
    assert not bad, "\n".join(bad)


def test_reference_logs_why_each_broken_child_fails(reference):
    for qname, reason in REASONS.items():
        reference.send(make_query(qname, "A", 1, 0), timeout=10.0)
    log = reference.log()
    for qname, reason in REASONS.items():
        lines = [l for l in log.splitlines()
                 if "validation failure <%s A IN>" % qname in l]
        assert lines and any(reason in l for l in lines), (qname, reason,
                                                            lines)


def test_keytrap_bogus_others_answered(signednet_net, tmp_path):
    """A fresh validator (nothing cached) answers the KeyTrap zone
    SERVFAIL and a name of another zone asked at the same time secure.
    (How fast: contrib/bench/keytrap_bench.py, not a test's bound.)"""
    ref = ReferenceUnbound(signednet_net, str(tmp_path / "keytrap"),
                           extra="minimal-responses: yes", validating=True)
    replies = {}

    def ask(name):
        replies[name] = ref.send(make_query(name, "A", 1, 0), timeout=10.0)

    try:
        ref.start()
        threads = [threading.Thread(target=ask, args=(n,)) for n in
                   ("www.keytrap.sec1.", "www.example.sec1.")]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        ref.stop()
    assert replies["www.keytrap.sec1."].rcode() == dns.rcode.SERVFAIL
    other = replies["www.example.sec1."]
    assert other.rcode() == dns.rcode.NOERROR and other.answer, other
    assert other.flags & dns.flags.AD


def test_cli_start_stop(tmp_path):
    """testnet.py start --signed (detached), a signed answer, stop by
    PID: no process is left."""
    if os.geteuid() != 0:
        pytest.skip("the signed test internet needs port 53 (root)")
    prefix = pick_prefix(53, hosts=range(2, 9))
    cli = os.path.join(TESTDATA, "testnet", "testnet.py")
    d = str(tmp_path / "net")
    out = subprocess.run([sys.executable, cli, "start", d, "--signed",
                          "--prefix", prefix], capture_output=True,
                         text=True, timeout=120)
    pids = []
    try:
        assert out.returncode == 0, out.stderr
        assert "trust anchor" in out.stdout
        net = SignedNet.from_dir(d)
        for inst in list(net.nsd.values()) + list(net.responders.values()):
            pid = procs.read_pid(inst.pidfile)
            assert pid and procs.pid_alive(pid)
            pids.append(pid)
        r = net.query("children", "www.example.sec1.", "A")
        assert {rr.rdtype for rr in r.answer} == {dns.rdatatype.A,
                                                  dns.rdatatype.RRSIG}
    finally:
        subprocess.run([sys.executable, cli, "stop", d], timeout=60)
    for pid in pids:
        assert not procs.pid_alive(pid)
        assert not procs.group_members(pid)
