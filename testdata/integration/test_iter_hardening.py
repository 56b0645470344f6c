"""Iterator hardening options through the test driver (as
test_iterator.py: one worker's resolver, root-hints at the loopback test
internet, nothing leaves 127.0.0.0/8): use-caps-for-id with its fallback
and caps-exempt, harden-glue. The scripted responder (bad.tld2.) plays
the server that does not echo the 0x20 case and the off-path spoofer."""
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_iterator import (Run, write_conf, net, rcode, all_rdata,  # noqa
                           pytestmark, DRIVER)
from testnet.fixture import testnet_net  # noqa: F401,E402

LONG = "thisisaratherlongnamewithmanyletters"


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
    the attack works); with use-caps-for-id the fallback's real answer
    contradicts it and the query fails instead of being poisoned."""
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
