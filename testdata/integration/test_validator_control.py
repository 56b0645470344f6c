# SPDX-License-Identifier: BSD-3-Clause
"""DNSSEC statistics and cache control, side by side with Debian's
Unbound 1.17 (/usr/sbin/unbound, /usr/sbin/unbound-control) on the
signed test internet: both validate with the same options
(test_validator_diff.BODY) and extended-statistics, are asked the same
questions, and must print the same num.answer.secure and
num.answer.bogus; the flush_* commands must print the same counts where
both caches hold the same things (what differs by design is listed at
each test). Needs nsd, ldnsutils, Debian's unbound and root (port 53);
skips otherwise."""
import os
import re
import signal
import sys

import dns.flags
import dns.message
import dns.rcode
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from testnet import have_nsd  # noqa: E402
from testnet.fixture import signednet_net  # noqa: E402,F401
from conftest import REFERENCE, SLOW, DEB_UNBOUND, RefServer, Server  # noqa: E402
from test_control import (DEB_CTL, OUR_CTL, ctl,  # noqa: E402
                          keys, start_tls, stats_dict)
from test_validator_diff import BODY  # noqa: E402

pytestmark = [
    pytest.mark.skipif(not have_nsd(), reason="nsd is not installed"),
    pytest.mark.skipif(not os.access(DEB_UNBOUND, os.X_OK),
                       reason="Debian's unbound is not installed"),
    pytest.mark.skipif(REFERENCE, reason="compares this build with "
                       "the reference; UNBOUND_BIN is the reference"),
]

SECURE = [("www.sec1.", "A"), ("nx.sec1.", "A"), ("www.example.sec1.", "A"),
          ("www.sec2.", "A")]
INSECURE = [("www.unsigned.sec1.", "A"), ("www.insec.", "A")]
BOGUS = [("www.badsig.sec1.", "A"), ("www.expired.sec1.", "A")]
BADKEY = [("www.dsmismatch.sec1.", "A")]   # a bad key cache entry


def start_pair(net, keys, tmp_path, extra_body=""):
    ours = Server(tmp_path / "ours")
    ref = RefServer(tmp_path / "ref")
    body = BODY % net.anchor + "\nextended-statistics: yes\n" + extra_body
    for s in (ours, ref):
        os.makedirs(s.dir, exist_ok=True)
        start_tls(s, keys, body=body, root_hints=net.root_hints)
    return ours, ref


def stop(srv):
    if srv.proc and srv.proc.poll() is None:
        srv.proc.send_signal(signal.SIGTERM)
        srv.proc.wait(10)


def ask(srv, name, qtype, do=True, cd=False, ad=False):
    q = dns.message.make_query(name, qtype, use_edns=0, payload=1232,
                               want_dnssec=do)
    if cd:
        q.flags |= dns.flags.CD
    if ad:
        q.flags |= dns.flags.AD
    r = srv.query(q, timeout=10.0 * SLOW)
    if r.flags & dns.flags.TC:
        r = srv.query(q, tcp=True, timeout=10.0 * SLOW)
    return r


def both_ctl(ours, ref, *args):
    a = ctl(ours.conf, *args, binary=OUR_CTL)
    b = ctl(ref.conf, *args, binary=DEB_CTL)
    assert a.returncode == 0, a.stdout + a.stderr
    assert b.returncode == 0, b.stdout + b.stderr
    return a.stdout, b.stdout


def dnssec_stats(srv, binary):
    s = stats_dict(ctl(srv.conf, "stats_noreset", binary=binary).stdout)
    return {k: int(s[k]) for k in ("num.answer.secure", "num.answer.bogus",
                                   "num.rrset.bogus", "key.cache.count",
                                   "mem.mod.validator")}


@pytest.fixture
def pair(signednet_net, keys, tmp_path):
    ours, ref = start_pair(signednet_net, keys, tmp_path)
    try:
        yield ours, ref
    finally:
        stop(ours)
        stop(ref)


def ask_both(ours, ref, names, **kw):
    for name, qtype in names:
        a = ask(ours, name, qtype, **kw)
        b = ask(ref, name, qtype, **kw)
        assert a.rcode() == b.rcode(), (name, a, b)
        assert bool(a.flags & dns.flags.AD) == bool(b.flags & dns.flags.AD)


def test_answer_counters_as_unbound(pair):
    """num.answer.secure / num.answer.bogus count replies as Unbound's
    do: secure data answered (from the mesh, then from the cache: the
    fast path counts too), SERVFAILs for bogus data, CD replies not as
    bogus; the same numbers as Debian's Unbound after the same
    questions."""
    ours, ref = pair
    for rnd in range(2):       # the second round is from the caches
        ask_both(ours, ref, SECURE + INSECURE + BOGUS)
        a = dnssec_stats(ours, OUR_CTL)
        b = dnssec_stats(ref, DEB_CTL)
        n = rnd + 1
        assert a["num.answer.secure"] == b["num.answer.secure"] == \
            n * len(SECURE), (a, b)
        assert a["num.answer.bogus"] == b["num.answer.bogus"] == \
            n * len(BOGUS), (a, b)
    # a CD client gets bogus data: not a bogus answer (Unbound neither)
    ask_both(ours, ref, BOGUS, cd=True)
    a = dnssec_stats(ours, OUR_CTL)
    b = dnssec_stats(ref, DEB_CTL)
    assert a["num.answer.bogus"] == b["num.answer.bogus"] == 2 * len(BOGUS)
    # RRsets found bogus (Unbound counts an RRset once while its bogus
    # status is cached; ours each time one is checked): some in both
    print("num.rrset.bogus ours %d, Unbound %d" % (a["num.rrset.bogus"],
                                                   b["num.rrset.bogus"]))
    assert a["num.rrset.bogus"] >= 1, a
    assert b["num.rrset.bogus"] >= 1, b
    # the key cache holds the zones' keys: ., sec1., sec2., example.sec1.
    # and more; mem.mod.validator is what it uses
    assert a["key.cache.count"] >= 4, a
    assert a["mem.mod.validator"] > 0, a
    # Prometheus-style reset: stats (with reset) zeroes them
    ctl(ours.conf, "stats")
    a = dnssec_stats(ours, OUR_CTL)
    assert a["num.answer.secure"] == a["num.answer.bogus"] == \
        a["num.rrset.bogus"] == 0, a


REMOVED_RE = re.compile(r"ok removed (\d+) rrsets, (\d+) messages and "
                        r"(\d+) key entries\n")


def removed(text):
    m = REMOVED_RE.fullmatch(text)
    assert m, text
    return tuple(int(x) for x in m.groups())


def test_flush_commands_as_unbound(pair):
    """flush_negative, flush_bogus, flush_zone print Unbound's line;
    the key entries removed agree with Debian's Unbound. Differences by
    design: the RRset cache keeps no security status (flush_bogus
    removes no RRsets; Unbound's marks the bogus RRset), bogus answers
    to non-CD questions are not kept in the message cache (Unbound
    keeps them for val-bogus-ttl), and our validator's own DS lookups
    below a signer add NODATA messages Unbound does not have. Unbound
    does not remove a flushed entry, it expires it, so a second flush
    counts it again; ours removes it."""
    ours, ref = pair
    ask_both(ours, ref, SECURE + INSECURE + BOGUS + BADKEY)
    ask_both(ours, ref, BOGUS, cd=True)
    # flush_negative: NXDOMAIN and NODATA messages, and the bad keys
    a, b = (removed(x) for x in both_ctl(ours, ref, "flush_negative"))
    assert a[0] == b[0] == 0
    assert a[1] >= b[1] >= 1, (a, b)      # nx.sec1. A in both
    assert a[2] == b[2] >= 1, (a, b)      # dsmismatch.sec1. (and more)
    # flush_bogus: the bogus messages kept for CD askers; the bad keys
    # went with flush_negative already
    a, b = (removed(x) for x in both_ctl(ours, ref, "flush_bogus"))
    assert a == (0, len(BOGUS), 0), a
    assert b[1] >= len(BOGUS), b
    a = removed(ctl(ours.conf, "flush_bogus").stdout)
    assert a == (0, 0, 0), a
    # flush_zone: the zone's RRsets, messages and keys at and below it
    a, b = (removed(x) for x in both_ctl(ours, ref, "flush_zone", "sec2."))
    assert a[0] == b[0] and a[2] == b[2] == 1, (a, b)
    assert a[1] >= b[1] >= 1, (a, b)
    # flush (a name) drops no key entry, in both ("ok" only)
    assert both_ctl(ours, ref, "flush", "sec1.") == ("ok\n", "ok\n")
    # everything is fetched and validated again, with the same result
    ask_both(ours, ref, SECURE + BOGUS + BADKEY)
    a = dnssec_stats(ours, OUR_CTL)
    b = dnssec_stats(ref, DEB_CTL)
    assert a["num.answer.secure"] == b["num.answer.secure"], (a, b)
    assert a["num.answer.bogus"] == b["num.answer.bogus"], (a, b)


def test_insecure_add_remove_as_unbound(pair):
    """insecure_add / list_insecure / insecure_remove: the same output as
    Debian's, and the same effect on the AD bit."""
    ours, ref = pair
    ask_both(ours, ref, [("www.sec2.", "A")])
    assert both_ctl(ours, ref, "insecure_add", "sec2.") == ("ok\n", "ok\n")
    assert both_ctl(ours, ref, "list_insecure") == ("sec2.\n", "sec2.\n")
    both_ctl(ours, ref, "flush_zone", "sec2.")
    for srv in (ours, ref):
        r = ask(srv, "www.sec2.", "A")
        assert r.rcode() == 0 and not r.flags & dns.flags.AD, r
    assert both_ctl(ours, ref, "insecure_remove", "sec2.") == \
        ("ok\n", "ok\n")
    assert both_ctl(ours, ref, "list_insecure") == ("", "")
    both_ctl(ours, ref, "flush_zone", "sec2.")
    for srv in (ours, ref):
        r = ask(srv, "www.sec2.", "A")
        assert r.flags & dns.flags.AD, r


def msg_security(dump):
    """{(name, class, type): security} of a dump's msg lines."""
    out = {}
    for line in dump.splitlines():
        w = line.split()
        if w and w[0] == "msg":
            out[(w[1].lower(), w[2], w[3])] = int(w[7])
    return out


def rrset_status(dump):
    """{(owner, type): (trust, security)} of a dump's ;rrset lines (the
    first RR after each line names the set)."""
    out = {}
    lines = dump.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(";rrset") and i + 1 < len(lines):
            w = line.split()
            rr = lines[i + 1].split()
            out[(rr[0].lower(), rr[3])] = (int(w[-2]), int(w[-1]))
    return out


def test_dump_load_keeps_security_both_ways(pair):
    """A validating Debian Unbound's dump loads into ours with every
    message's security status, and ours into Debian's: the statuses read
    back by dump_cache are those loaded."""
    ours, ref = pair
    ask_both(ours, ref, SECURE + INSECURE)
    theirs = both_ctl(ours, ref, "dump_cache")[1]
    want = {k: v for k, v in msg_security(theirs).items()
            if (k[0], k[2]) in {(n, t) for n, t in SECURE + INSECURE}}
    assert sorted(set(want.values())) == [3, 5], want
    # into ours, emptied first
    ctl(ours.conf, "flush_zone", ".")
    r = load_cache(ours, theirs, OUR_CTL)
    assert r.stdout == "ok\n", r.stdout + r.stderr
    mine = ctl(ours.conf, "dump_cache").stdout
    got = msg_security(mine)
    for k, v in want.items():
        assert got.get(k) == v, (k, got.get(k), v)
    # a validated RRset keeps Unbound's trust 11 (validated) and status 5
    # (secure); the others are not validated in this cache (status 0)
    theirs_sets = rrset_status(theirs)
    mine_sets = rrset_status(mine)
    for key in (("www.sec1.", "A"), ("www.sec2.", "A")):
        assert theirs_sets[key] == (11, 5), theirs_sets[key]
        assert mine_sets.get(key) == (11, 5), (key, mine_sets.get(key))
    # ours into Debian's, emptied first
    ctl(ref.conf, "flush_zone", ".", binary=DEB_CTL)
    r = load_cache(ref, mine, DEB_CTL)
    assert r.stdout == "ok\n", r.stdout + r.stderr
    got = msg_security(ctl(ref.conf, "dump_cache", binary=DEB_CTL).stdout)
    for k, v in want.items():
        assert got.get(k) == v, (k, got.get(k), v)
    # and answered from it as secure (AD, asked for with AD: RFC 6840)
    # and counted so, from the cache
    for srv, binary in ((ours, OUR_CTL), (ref, DEB_CTL)):
        before = dnssec_stats(srv, binary)
        r = ask(srv, "www.sec1.", "A", do=False, ad=True)
        assert r.flags & dns.flags.AD, (srv.binary, r)
        after = dnssec_stats(srv, binary)
        assert after["num.answer.secure"] == \
            before["num.answer.secure"] + 1, (srv.binary, before, after)
    # a DO asker of a loaded name: the dump has no DO copy of ours (and
    # the loaded message may lack its RRSIGs): answered secure all the
    # same, asked of the servers again (val-max-restart's refetch)
    for srv in (ours, ref):
        r = ask(srv, "www.sec2.", "A", do=True)
        assert r.rcode() == dns.rcode.NOERROR, (srv.binary, r)
        assert r.flags & dns.flags.AD, (srv.binary, r)


def load_cache(srv, text, binary):
    import subprocess
    return subprocess.run([binary, "-c", srv.conf, "load_cache"],
                          input=text, capture_output=True, text=True,
                          timeout=20)


def test_our_dump_into_debian_answers_secure(pair):
    """Ours, warmed by resolution (not by a load), dumps messages with
    their security; Debian's Unbound loads it and answers the secure
    names with AD and the insecure ones without. Known difference: this
    RRset cache does not record that the validator checked an RRset, so
    our RRset lines say trust 8 (ans_AA), status 0 where Unbound's say
    11 (validated), 5 (secure); Unbound then checks those again before
    answering from them."""
    ours, ref = pair
    ask_both(ours, ref, SECURE + INSECURE)
    mine = ctl(ours.conf, "dump_cache").stdout
    got = msg_security(mine)
    for name, qtype in SECURE:
        assert got.get((name, "IN", qtype)) == 5, (name, got)
    for name, qtype in INSECURE:
        assert got.get((name, "IN", qtype)) == 3, (name, got)
    ctl(ref.conf, "flush_zone", ".", binary=DEB_CTL)
    r = load_cache(ref, mine, DEB_CTL)
    assert r.stdout == "ok\n", r.stdout + r.stderr
    assert msg_security(ctl(ref.conf, "dump_cache",
                            binary=DEB_CTL).stdout) == got
    for name, qtype in SECURE:
        r = ask(ref, name, qtype, do=False, ad=True)
        assert r.flags & dns.flags.AD, (name, r)
    for name, qtype in INSECURE:
        r = ask(ref, name, qtype, do=False, ad=True)
        assert r.rcode() == 0 and not r.flags & dns.flags.AD, (name, r)


def test_loaded_bogus_message_is_not_served(pair):
    """Debian's dump holds bogus messages (kept for val-bogus-ttl);
    loaded into ours, a client without CD still gets SERVFAIL (counted
    in num.answer.bogus, as Unbound's cache answer counts it), never the
    bogus data; a CD client gets the data."""
    ours, ref = pair
    ask_both(ours, ref, SECURE + BOGUS)
    theirs = ctl(ref.conf, "dump_cache", binary=DEB_CTL).stdout
    sec = msg_security(theirs)
    assert sec.get(("www.badsig.sec1.", "IN", "A")) == 1, sec
    ctl(ours.conf, "flush_zone", ".")
    r = load_cache(ours, theirs, OUR_CTL)
    assert r.stdout == "ok\n", r.stdout + r.stderr
    before = dnssec_stats(ours, OUR_CTL)
    r = ask(ours, "www.badsig.sec1.", "A", do=False)
    assert r.rcode() == 2 and not r.answer, r
    after = dnssec_stats(ours, OUR_CTL)
    assert after["num.answer.bogus"] == before["num.answer.bogus"] + 1
    r = ask(ours, "www.badsig.sec1.", "A", do=False, cd=True)
    assert r.rcode() == 0 and r.answer, r
