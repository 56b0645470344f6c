# SPDX-License-Identifier: BSD-3-Clause
"""Iterator hardening options through the test driver (as
test_iterator.py: one worker's resolver, root-hints at the loopback test
internet, nothing leaves 127.0.0.0/8): use-caps-for-id with its fallback
and caps-exempt, harden-glue. The scripted responder (bad.tld2.) plays
the server that does not echo the 0x20 case and the off-path spoofer."""
import os
import subprocess
import sys
import time

import dns.flags
import dns.rcode
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_iterator import (Run, write_conf, net, rcode, all_rdata,  # noqa
                           pytestmark, DRIVER, SLOW)
from testnet.fixture import testnet_net, testnet_reference  # noqa: F401,E402

LONG = "thisisaratherlongnamewithmanyletters"


def logged(responder, qname, wait=1.0):
    """The responder's log entries for qname, waiting up to wait seconds
    for a first one (it writes as it receives)."""
    deadline = time.time() + wait * SLOW
    while True:
        got = responder.queries(qname)
        if got or time.time() >= deadline:
            return got
        time.sleep(0.05)


def mixed(qname):
    return qname != qname.lower()


def test_caps_for_id_perturbs_case(net, tmp_path):
    """use-caps-for-id: yes: the name sent upstream has random case (50
    letters: all lowercase by chance is 2^-50); the answer is normal."""
    bad = net.responder("bad")
    bad.clear_log()
    conf = write_conf(tmp_path, net, "use-caps-for-id: yes")
    run = Run(conf, ["%s.bad.tld2./A" % LONG, "www.bad.tld2./A"])
    assert rcode(run.reply(0)) == "NXDOMAIN"
    assert all_rdata(run.reply(1)) == ["192.0.2.100"]
    assert str(run.reply(1).question[0].name) == "www.bad.tld2."
    qs = bad.queries("%s.bad.tld2." % LONG)
    assert qs and all(mixed(q["qname"]) for q in qs)
    assert run.stats["outnet.capsfail"] == 0
    assert run.stats["iter.caps_fallbacks"] == 0


def test_caps_off_sends_lowercase(net, tmp_path):
    bad = net.responder("bad")
    bad.clear_log()
    conf = write_conf(tmp_path, net)
    run = Run(conf, ["%s.bad.tld2./A" % LONG])
    assert rcode(run.reply(0)) == "NXDOMAIN"
    qs = bad.queries("%s.bad.tld2." % LONG)
    assert qs and not any(mixed(q["qname"]) for q in qs)


def test_caps_fallback_for_server_not_echoing_case(net, tmp_path):
    """A server that lowercases the question: the capsfail starts the
    fallback, the same question goes again without 0x20, the replies
    agree, and the answer is used."""
    bad = net.responder("bad")
    bad.set_behaviour(rules=[{"name": "www.bad.tld2.",
                              "actions": [{"type": "lower_question"}]}])
    bad.clear_log()
    conf = write_conf(tmp_path, net, "use-caps-for-id: yes")
    run = Run(conf, ["www.bad.tld2./A"])
    assert rcode(run.reply(0)) == "NOERROR"
    assert all_rdata(run.reply(0)) == ["192.0.2.100"]
    assert run.stats["outnet.capsfail"] >= 1
    assert run.stats["iter.caps_fallbacks"] >= 1
    names = [q["qname"] for q in bad.queries("www.bad.tld2.")]
    assert any(mixed(n) for n in names)
    assert "www.bad.tld2." in names      # the fallback, no 0x20


def test_caps_spoof_rejected(net, tmp_path):
    """A forged reply with the right ID but the name in lowercase comes
    before the real one. Without 0x20 it is taken (the poison shows:
    the attack works); with use-caps-for-id it fails the check, the
    fallback's answers (without 0x20) contradict it, and the query gets
    SERVFAIL rather than the poison (as Unbound 1.17)."""
    bad = net.responder("bad")
    forged = ["www.bad.tld2. 3600 IN A 192.0.2.66"]
    # without 0x20 the forgery (which guessed everything there is to
    # guess) is taken: what the option protects against
    bad.set_behaviour(rules=[{"name": "www.bad.tld2.", "actions": [{
        "type": "spoof_case", "records": forged, "always": True}]}])
    off = write_conf(tmp_path, net, "use-caps-for-id: no")
    run = Run(off, ["www.bad.tld2./A"])
    assert all_rdata(run.reply(0)) == ["192.0.2.66"]
    # with 0x20 the attacker cannot guess the case
    bad.set_behaviour(rules=[{"name": "www.bad.tld2.", "actions": [{
        "type": "spoof_case", "records": forged}]}])
    on = write_conf(tmp_path, net, "use-caps-for-id: yes")
    run = Run(on, ["www.bad.tld2./A"])
    assert rcode(run.reply(0)) == "SERVFAIL"
    assert "192.0.2.66" not in all_rdata(run.reply(0))
    assert run.stats["outnet.capsfail"] >= 1
    assert run.stats["iter.caps_fallbacks"] >= 1


def test_caps_exempt(net, tmp_path):
    """caps-exempt (and its alias caps-whitelist): names at or under it
    are sent as they are, so a server that does not echo the case needs
    no fallback."""
    bad = net.responder("bad")
    bad.set_behaviour(rules=[{"name": "www.bad.tld2.",
                              "actions": [{"type": "lower_question"}]}])
    for opt in ("caps-exempt", "caps-whitelist"):
        bad.clear_log()
        conf = write_conf(tmp_path, net, "use-caps-for-id: yes\n"
                          "%s: bad.tld2" % opt)
        run = Run(conf, ["www.bad.tld2./A", "%s.bad.tld2./A" % LONG,
                         "www.example.tld1./A"])
        assert all_rdata(run.reply(0)) == ["192.0.2.100"]
        assert run.stats["outnet.capsfail"] == 0
        assert run.stats["iter.caps_fallbacks"] == 0
        qs = bad.queries("%s.bad.tld2." % LONG)
        assert qs and not any(mixed(q["qname"]) for q in qs)
        assert all_rdata(run.reply(2)) == ["192.0.2.10"]


def test_caps_exempt_bad_name(net, tmp_path):
    """A caps-exempt: that is no domain name: a clear error at start."""
    conf = write_conf(tmp_path, net, "use-caps-for-id: yes\n"
                      "caps-exempt: bad..name")
    p = subprocess.run([DRIVER, "-c", conf, "www.bad.tld2./A"],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode not in (0, 2)
    assert "caps-exempt: bad domain name 'bad..name'" in p.stderr


def test_harden_glue(net, tmp_path):
    """A referral for oog.bad.tld2. to ns1.example.tld1. with glue from
    outside the zone pointing at another server (the noedns responder).
    harden-glue: yes (the default) drops that glue and looks the name
    up (the real server, not the responder, gets asked); harden-glue: no
    uses it (the glue's address gets the query)."""
    bad = net.responder("bad")
    other = net.responder("noedns")
    bad.set_behaviour(rules=[{"name": "oog.bad.tld2.", "suffix": True,
                              "actions": [{
                                  "type": "referral",
                                  "zone": "oog.bad.tld2.",
                                  "ns": ["ns1.example.tld1."],
                                  "glue": {"ns1.example.tld1.":
                                           [other.address]}}]}])
    for harden, used in (("yes", False), ("no", True), (None, False)):
        other.clear_log()
        extra = "harden-glue: %s" % harden if harden else ""
        conf = write_conf(tmp_path, net, extra)
        run = Run(conf, ["www.oog.bad.tld2./A"])
        assert rcode(run.reply(0)) == "SERVFAIL"   # nobody serves it
        asked = other.queries("www.oog.bad.tld2.")
        assert bool(asked) == used, (harden, asked)


def test_harden_unverified_glue(net, tmp_path):
    """A referral for uvg.bad.tld2. to ns.bad.tld2. with glue pointing at
    another server (the noedns responder): the name is in the sending
    server's zone (harden-glue keeps it) but not below the zone
    delegated to. harden-unverified-glue: no (the default) uses the glue
    (its address gets the query); yes does not believe it and takes
    ns.bad.tld2.'s own address first (the responder itself gets the
    query); the glue is only the last resort once that failed (as
    Unbound 1.21: the other server, if asked at all, after it)."""
    bad = net.responder("bad")
    other = net.responder("noedns")
    bad.set_behaviour(rules=[{"name": "uvg.bad.tld2.", "suffix": True,
                              "actions": [{
                                  "type": "referral",
                                  "zone": "uvg.bad.tld2.",
                                  "ns": ["ns.bad.tld2."],
                                  "glue": {"ns.bad.tld2.":
                                           [other.address]}}]}])
    for harden, used in (("yes", False), ("no", True), (None, True)):
        other.clear_log()
        bad.clear_log()
        extra = "harden-unverified-glue: %s" % harden if harden else ""
        conf = write_conf(tmp_path, net, extra)
        run = Run(conf, ["www.uvg.bad.tld2./A"])
        assert rcode(run.reply(0)) == "SERVFAIL"   # nobody serves it
        # the one with the delegation's address was asked, the other not
        asked_bad = logged(bad, "www.uvg.bad.tld2.", wait=0 if used else 1)
        assert bool(asked_bad) != used, (harden, asked_bad)
        asked_other = other.queries("www.uvg.bad.tld2.")
        if used:
            assert asked_other, (harden, asked_other)
        else:
            # the verified route first, the kept glue after it
            assert not asked_other or min(q["t"] for q in asked_bad) <= \
                min(q["t"] for q in asked_other), (asked_bad, asked_other)


def test_target_fetch_policy(net, tmp_path):
    """The responder delegates tfp.bad.tld2. to ns.bad.tld2. (with glue:
    itself) and ns-glueless.bad.tld2. (no address). The default policy
    "3 2 1 0 0" looks the glueless name up while the glued server is
    asked already; "0 0 0 0 0" only asks for it when no server is left
    (here never: the glued one answers)."""
    bad = net.responder("bad")
    bad.set_behaviour(rules=[{"name": "tfp.bad.tld2.", "actions": [{
        "type": "referral", "zone": "tfp.bad.tld2.",
        "ns": ["ns.bad.tld2.", "ns-glueless.bad.tld2."],
        "glue": {"ns.bad.tld2.": [bad.address]}}]}])
    for policy, lookups in ((None, True), ('"3 2 1 0 0"', True),
                            ('"0 0 0 0 0"', False),
                            ('"-1 -1 -1 -1 -1"', True)):
        bad.clear_log()
        extra = "target-fetch-policy: %s" % policy if policy else ""
        conf = write_conf(tmp_path, net, extra)
        run = Run(conf, ["www.tfp.bad.tld2./A"])
        assert rcode(run.reply(0)) in ("NXDOMAIN", "NOERROR")
        assert bad.queries("www.tfp.bad.tld2.")
        # the lookup leaves with or just after the query it goes along
        # with: the responder may log it a moment after the answer
        got = logged(bad, "ns-glueless.bad.tld2.")
        assert bool(got) == lookups, (policy, got)


def test_target_fetch_policy_depth(net, tmp_path):
    """One number: dependency depth 0 only, so NS names are never looked
    up: example.tld2. (its NS ns.dns-host.tld3. has no glue) fails, and
    the default resolves it."""
    conf = write_conf(tmp_path, net, 'target-fetch-policy: "0"')
    run = Run(conf, ["www.example.tld2./A"])
    assert rcode(run.reply(0)) == "SERVFAIL"
    conf = write_conf(tmp_path, net)
    run = Run(conf, ["www.example.tld2./A"])
    assert rcode(run.reply(0)) == "NOERROR"


@pytest.mark.parametrize("bad_policy", ['"3 x 1"', '"-2"', '""'])
def test_target_fetch_policy_bad(net, tmp_path, bad_policy):
    conf = write_conf(tmp_path, net, "target-fetch-policy: %s" % bad_policy)
    p = subprocess.run([DRIVER, "-c", conf, "www.bad.tld2./A"],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode not in (0, 2)
    assert "cannot parse target-fetch-policy" in p.stderr


@pytest.mark.parametrize("kind", ["stub", "forward"])
@pytest.mark.parametrize("no_cache", ["yes", "no", None])
def test_no_cache(net, tmp_path, kind, no_cache):
    """stub-no-cache / forward-no-cache: yes: the answers of that zone
    are not cached, so asking twice (one after the other) asks the
    server twice; no (the default): the second one is a cache hit.
    Names outside the zone are cached as ever."""
    bad = net.responder("bad")
    bad.clear_log()
    lines = ["%s-zone:" % kind, 'name: "bad.tld2."',
             "%s-addr: %s" % (kind, bad.address)]
    if no_cache:
        lines.append("%s-no-cache: %s" % (kind, no_cache))
    conf = write_conf(tmp_path, net, "\n".join(lines))
    run = Run(conf, ["www.bad.tld2./A", "www.bad.tld2./A",
                     "www.example.tld1./A", "www.example.tld1./A"],
              opts=["-S"])
    assert all_rdata(run.reply(0)) == ["192.0.2.100"]
    assert all_rdata(run.reply(1)) == ["192.0.2.100"]
    assert all_rdata(run.reply(3)) == ["192.0.2.10"]
    sent = len(bad.queries("www.bad.tld2."))
    if no_cache == "yes":
        assert sent == 2
        assert run.stats["iter.msg_hits"] == 1     # example.tld1 only
    else:
        assert sent == 1
        assert run.stats["iter.msg_hits"] == 2


def test_outgoing_port_permit_avoid(net, tmp_path):
    """outgoing-port-avoid / -permit, applied in file order as Unbound:
    everything avoided, then ten ports permitted, then one of them
    avoided again: every upstream query (the responder logs the source
    port) comes from the nine left."""
    bad = net.responder("bad")
    bad.clear_log()
    conf = write_conf(tmp_path, net, "outgoing-port-avoid: 0-65535\n"
                      "outgoing-port-permit: 40100-40109\n"
                      "outgoing-port-avoid: 40105\n"
                      "outgoing-range: 8")
    names = ["www.bad.tld2./A", "%s.bad.tld2./A" % LONG,
             "drop.bad.tld2./A"] + ["n%d.bad.tld2./A" % i for i in range(6)]
    run = Run(conf, names)
    assert all_rdata(run.reply(0)) == ["192.0.2.100"]
    ports = {int(q["src"].rsplit(":", 1)[1]) for q in bad.queries()
             if q["proto"] == "udp"}
    assert len(ports) >= 2
    assert ports <= set(range(40100, 40110)) - {40105}, ports


def test_outgoing_port_bad_range(net, tmp_path):
    conf = write_conf(tmp_path, net, "outgoing-port-permit: 70000")
    p = subprocess.run([DRIVER, "-c", conf, "www.bad.tld2./A"],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode not in (0, 2)
    assert "bad port range '70000'" in p.stderr


def stub_conf(tmp_path, net, addr, prime):
    lines = ["stub-zone:", 'name: "bad.tld2."', "stub-addr: %s" % addr]
    if prime is not None:
        lines.append("stub-prime: %s" % prime)
    return write_conf(tmp_path, net, "\n".join(lines))


@pytest.mark.parametrize("prime", ["yes", "no", None])
def test_stub_prime(net, tmp_path, prime):
    """stub-prime: yes asks the stub's address for the zone's NS set
    once ("bad.tld2. NS", with glue) and uses it, later questions take
    it from the cache; no (the default) never asks for it."""
    bad = net.responder("bad")
    bad.set_behaviour(rules=[{"name": "bad.tld2.", "actions": [{
        "type": "poison",
        "records": ["ns.bad.tld2. 3600 IN A %s" % bad.address]}]}])
    bad.clear_log()
    conf = stub_conf(tmp_path, net, bad.address, prime)
    run = Run(conf, ["www.bad.tld2./A", "%s.bad.tld2./A" % LONG],
              opts=["-S"])
    assert all_rdata(run.reply(0)) == ["192.0.2.100"]
    assert rcode(run.reply(1)) == "NXDOMAIN"
    primes = bad.queries("bad.tld2.", "NS")
    assert len(primes) == (1 if prime == "yes" else 0)


def test_stub_prime_uses_published_ns(net, tmp_path):
    """The zone's published NS set wins over the configured address: its
    glue points at the other responder, which then gets the question
    (it is not authoritative for bad.tld2.: SERVFAIL); without priming
    it never hears of it."""
    bad = net.responder("bad")
    other = net.responder("noedns")
    bad.set_behaviour(rules=[{"name": "bad.tld2.", "actions": [{
        "type": "poison",
        "records": ["ns.bad.tld2. 3600 IN A %s" % other.address]}]}])
    for prime, used in (("yes", True), ("no", False)):
        other.clear_log()
        conf = stub_conf(tmp_path, net, bad.address, prime)
        run = Run(conf, ["www.bad.tld2./A"])
        asked = other.queries("www.bad.tld2.")
        assert bool(asked) == used, (prime, asked)
        if not used:
            assert all_rdata(run.reply(0)) == ["192.0.2.100"]


def test_stub_prime_fails_uses_hints(net, tmp_path):
    """When priming gets nothing usable (here SERVFAIL to the NS query),
    the stub's configured address is used."""
    bad = net.responder("bad")
    bad.set_behaviour(rules=[{"name": "bad.tld2.", "actions": [{
        "type": "rcode", "rcode": "SERVFAIL"}]}])
    bad.clear_log()
    conf = stub_conf(tmp_path, net, bad.address, "yes")
    run = Run(conf, ["www.bad.tld2./A"])
    assert all_rdata(run.reply(0)) == ["192.0.2.100"]
    assert bad.queries("bad.tld2.", "NS")


def test_caps_expected_cases(net, tmp_path):
    """With use-caps-for-id every expected answer of the test internet
    is the same (UDP, TCP after TC=1, EDNS fallback, CNAME and DNAME
    chains, glueless delegations, priming): NSD echoes the case, so no
    reply fails the check."""
    conf = write_conf(tmp_path, net, "use-caps-for-id: yes")
    cases = net.expected
    run = Run(conf, ["%s/%s" % (c.qname, c.qtype) for c in cases])
    bad = [c.mismatch(run.reply(i)) for i, c in enumerate(cases)]
    assert [b for b in bad if b] == []
    assert run.stats["outnet.capsfail"] == 0
    assert run.stats["outnet.tcp"] >= 1


def test_caps_forwarder_not_echoing(net, tmp_path):
    """0x20 goes to forwarders too; one that lowercases the question gets
    the fallback and its answer is used."""
    bad = net.responder("bad")
    bad.set_behaviour(default=[{"type": "lower_question"}])
    conf = write_conf(tmp_path, net, "use-caps-for-id: yes\n"
                      "forward-zone:\nname: \"bad.tld2.\"\n"
                      "forward-addr: %s" % bad.address)
    run = Run(conf, ["www.bad.tld2./A", "%s.bad.tld2./A" % LONG])
    assert all_rdata(run.reply(0)) == ["192.0.2.100"]
    assert rcode(run.reply(1)) == "NXDOMAIN"
    assert run.stats["iter.caps_fallbacks"] >= 2


def test_caps_fallback_servers_disagree(net, tmp_path):
    """Two addresses for the zone (a stub with both): one lowercases the
    question and answers 192.0.2.100, the other forges a lowercase reply
    with 192.0.2.77 to every query. Whichever is asked first fails the
    0x20 check; in the fallback the two disagree: SERVFAIL, neither
    answer is used."""
    bad = net.responder("bad")
    other = net.responder("noedns")
    bad.set_behaviour(default=[{"type": "lower_question"}])
    other.set_behaviour(default=[{"type": "spoof_case", "always": True,
                                  "records": [
                                      "www.bad.tld2. 300 IN A 192.0.2.77"]}])
    conf = write_conf(tmp_path, net, "use-caps-for-id: yes\n"
                      "stub-zone:\nname: \"bad.tld2.\"\n"
                      "stub-addr: %s\nstub-addr: %s" % (bad.address,
                                                        other.address))
    for _ in range(3):      # either server may be picked first
        run = Run(conf, ["www.bad.tld2./A"])
        assert rcode(run.reply(0)) == "SERVFAIL"
        assert run.stats["iter.caps_fallbacks"] >= 1


def test_below_nxdomain_needs_dnssec(net, testnet_reference, tmp_path):
    """harden-below-nxdomain (default yes) only uses DNSSEC-secure
    NXDOMAINs in Unbound 1.17 (old servers send NXDOMAIN for empty
    non-terminals); there is no validator yet, so an NXDOMAIN from an
    unsigned zone does not stop the question below it: the server is
    asked, by this resolver as by Debian's Unbound through the same
    net."""
    bad = net.responder("bad")
    below = "x.nxp.bad.tld2."
    bad.clear_log()
    conf = write_conf(tmp_path, net, "harden-below-nxdomain: yes")
    run = Run(conf, ["nxp.bad.tld2./A", below + "/A"], opts=["-S"])
    assert rcode(run.reply(0)) == "NXDOMAIN"
    assert rcode(run.reply(1)) == "NXDOMAIN"
    assert bad.queries(below)
    bad.clear_log()
    assert testnet_reference.resolve("nxp.bad.tld2.", "A").rcode() == 3
    assert testnet_reference.resolve(below, "A").rcode() == 3
    assert bad.queries(below)


def test_daemon_caps(unbound, net):
    """Through the daemon (2 threads): use-caps-for-id with a server that
    lowercases the question: fallback, the right answer, cached."""
    bad = net.responder("bad")
    bad.set_behaviour(rules=[{"name": "www.bad.tld2.",
                              "actions": [{"type": "lower_question"}]}])
    bad.clear_log()
    unbound.start("use-caps-for-id: yes", threads=2,
                  root_hints=net.root_hints)
    for _ in range(2):
        r = unbound.query("www.bad.tld2.", "A", timeout=8.0)
        assert [rd.to_text() for rr in r.answer for rd in rr] == \
            ["192.0.2.100"]
        assert str(r.question[0].name) == "www.bad.tld2."
    names = [q["qname"] for q in bad.queries("www.bad.tld2.")]
    # the one that failed the check (the reference), then two more
    # answers without 0x20 for the one address (as Unbound); the second
    # ask is a cache hit
    assert len(names) == 3, names
    assert mixed(names[0]) and names[1:] == ["www.bad.tld2."] * 2


@pytest.mark.parametrize("no_cache", ["yes", "no"])
def test_daemon_stub_no_cache(unbound, net, no_cache):
    """Through the daemon: stub-no-cache: yes sends every ask to the
    stub's server, no answers the repeat from the message cache."""
    bad = net.responder("bad")
    bad.clear_log()
    unbound.start("stub-zone:\n\tname: \"bad.tld2.\"\n"
                  "\tstub-addr: %s\n\tstub-no-cache: %s\n" %
                  (bad.address, no_cache), root_hints=net.root_hints)
    for _ in range(3):
        r = unbound.query("www.bad.tld2.", "A", timeout=8.0)
        assert [rd.to_text() for rr in r.answer for rd in rr] == \
            ["192.0.2.100"]
    sent = len(bad.queries("www.bad.tld2."))
    assert sent == (3 if no_cache == "yes" else 1)


def test_daemon_caps_spoof(unbound, net):
    """Through the daemon: the forged lowercase reply to a 0x20 query
    is contradicted by the answers without 0x20: SERVFAIL, never the
    poison (as Debian's Unbound)."""
    bad = net.responder("bad")
    bad.set_behaviour(rules=[{"name": "www.bad.tld2.", "actions": [{
        "type": "spoof_case",
        "records": ["www.bad.tld2. 3600 IN A 192.0.2.66"]}]}])
    unbound.start("use-caps-for-id: yes", root_hints=net.root_hints)
    r = unbound.query("www.bad.tld2.", "A", timeout=8.0)
    assert dns.rcode.to_text(r.rcode()) == "SERVFAIL"
    assert not r.answer


@pytest.mark.parametrize("harden", ["yes", "no"])
def test_daemon_harden_glue(unbound, net, harden):
    """Through the daemon (and so against Debian's Unbound too): the
    out-of-zone glue of a referral is used only with harden-glue: no."""
    bad = net.responder("bad")
    other = net.responder("noedns")
    bad.set_behaviour(rules=[{"name": "oog.bad.tld2.", "suffix": True,
                              "actions": [{
                                  "type": "referral",
                                  "zone": "oog.bad.tld2.",
                                  "ns": ["ns1.example.tld1."],
                                  "glue": {"ns1.example.tld1.":
                                           [other.address]}}]}])
    other.clear_log()
    unbound.start("harden-glue: %s" % harden, root_hints=net.root_hints)
    r = unbound.query("www.oog.bad.tld2.", "A", timeout=8.0)
    assert dns.rcode.to_text(r.rcode()) == "SERVFAIL"
    assert bool(other.queries("www.oog.bad.tld2.")) == (harden == "no")


@pytest.mark.parametrize("policy", ['"3 2 1 0 0"', '"0 0 0 0 0"'])
def test_daemon_target_fetch_policy(unbound, net, policy):
    bad = net.responder("bad")
    bad.set_behaviour(rules=[{"name": "tfp.bad.tld2.", "actions": [{
        "type": "referral", "zone": "tfp.bad.tld2.",
        "ns": ["ns.bad.tld2.", "ns-glueless.bad.tld2."],
        "glue": {"ns.bad.tld2.": [bad.address]}}]}])
    bad.clear_log()
    unbound.start("target-fetch-policy: %s" % policy,
                  root_hints=net.root_hints)
    unbound.query("www.tfp.bad.tld2.", "A", timeout=8.0)
    got = logged(bad, "ns-glueless.bad.tld2.")
    assert bool(got) == (policy.startswith('"3'))


@pytest.mark.parametrize("prime", ["yes", "no"])
def test_daemon_stub_prime(unbound, net, prime):
    bad = net.responder("bad")
    other = net.responder("noedns")
    bad.set_behaviour(rules=[{"name": "bad.tld2.", "actions": [{
        "type": "poison",
        "records": ["ns.bad.tld2. 3600 IN A %s" % other.address]}]}])
    bad.clear_log()
    other.clear_log()
    unbound.start("stub-zone:\n\tname: \"bad.tld2.\"\n"
                  "\tstub-addr: %s\n\tstub-prime: %s\n" %
                  (bad.address, prime), root_hints=net.root_hints)
    unbound.query("www.bad.tld2.", "A", timeout=8.0)
    assert bool(bad.queries("bad.tld2.", "NS")) == (prime == "yes")
    assert bool(other.queries("www.bad.tld2.")) == (prime == "yes")


def test_daemon_outgoing_ports(unbound, net):
    bad = net.responder("bad")
    bad.clear_log()
    unbound.start("outgoing-port-avoid: 0-65535\n"
                  "outgoing-port-permit: 40200-40204\n"
                  "outgoing-range: 4", root_hints=net.root_hints)
    for n in ("www", "n1", "n2", "n3"):
        unbound.query("%s.bad.tld2." % n, "A", timeout=8.0)
    ports = {int(q["src"].rsplit(":", 1)[1]) for q in bad.queries()
             if q["proto"] == "udp"}
    assert ports and ports <= set(range(40200, 40205)), ports


@pytest.mark.parametrize("harden", ["yes", "no"])
def test_daemon_short_bufsize_recursion(unbound, net, harden):
    """harden-short-bufsize on recursive answers (the first, from the
    mesh, and the cached ones): a 200-byte TXT answer to a client with
    EDNS size 100 is whole with yes, left out with TC=1 with no (the
    question and OPT stay), as Debian's Unbound."""
    unbound.start("harden-short-bufsize: %s" % harden,
                  root_hints=net.root_hints)
    for _ in range(2):
        r = unbound.query("tc.bad.tld2.", "TXT", payload=100, timeout=8.0)
        assert dns.rcode.to_text(r.rcode()) == "NOERROR"
        if harden == "yes":
            assert not (r.flags & dns.flags.TC)
            assert len(r.answer) == 1 and len(r.to_wire()) > 200
        else:
            assert r.flags & dns.flags.TC
            assert not r.answer and len(r.to_wire()) <= 100
            assert len(r.question) == 1 and r.edns == 0
    r = unbound.query("tc.bad.tld2.", "TXT", payload=1232)
    assert not (r.flags & dns.flags.TC) and len(r.answer) == 1
