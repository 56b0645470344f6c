# SPDX-License-Identifier: BSD-3-Clause
"""The respip module (response-ip:, response-ip-data:) with module-config
"respip validator iterator", side by side with Debian's Unbound 1.17 on
the same config over the signed test internet: every action response-ip
accepts (deny, redirect with and without data, inform, inform_deny,
always_transparent, always_refuse, always_nxdomain), IPv4 and IPv6,
longest-prefix match, the address at the end of a CNAME chain, an address
no rule holds untouched; each answer asked twice (the second from the
message cache, which must obey the rules too); "respip dns64 validator
iterator" starts and works; response-ip without respip, and a bad action,
are refused as Unbound refuses them; a view's own response-ip lines for
the clients access-control-view puts in it, with and without view-first.

Compared per question: rcode, the header flags, and the three sections
(records as text without TTLs; the OPT record left out). Needs nsd,
ldnsutils, Debian's unbound and root (port 53); skips otherwise."""
import os
import re
import subprocess
import sys
import time

import dns.exception
import dns.flags
import dns.message
import dns.rcode
import dns.rdatatype
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from testnet import have_nsd  # noqa: E402
from testnet.fixture import signednet_net  # noqa: E402,F401
from conftest import (CHECKCONF_BIN, DEB_UNBOUND, REFERENCE, SLOW,  # noqa
                      RefServer, Server, _finish, free_port)
from test_control import DEB_CTL, OUR_CTL, ctl, rc_clause, stats_dict  # noqa


pytestmark = [
    pytest.mark.skipif(not have_nsd(), reason="nsd is not installed"),
    pytest.mark.skipif(not os.access(DEB_UNBOUND, os.X_OK),
                       reason="Debian's unbound is not installed"),
    pytest.mark.skipif(REFERENCE, reason="compares this build with "
                       "the reference; UNBOUND_BIN is the reference"),
]

BODY = """module-config: "%s"
trust-anchor-file: "%s"
do-ip6: no
access-control: 127.0.0.0/8 allow
minimal-responses: yes
"""

RULES = """response-ip: 192.0.2.101/32 redirect
response-ip-data: 192.0.2.101/32 "A 10.0.0.1"
response-ip-data: 192.0.2.101/32 "A 10.0.0.2"
response-ip: 2001:db8::101/128 redirect
response-ip-data: 2001:db8::101 "AAAA 2001:db8::beef"
response-ip: 192.0.2.110 redirect
response-ip-data: 192.0.2.110 "A 10.1.1.1"
response-ip: 192.0.2.100/32 redirect
response-ip: 192.0.2.1/32 deny
response-ip: 192.0.2.2/32 always_refuse
response-ip: 192.0.2.9/32 inform
response-ip: 192.0.2.131/32 inform_deny
response-ip: 192.0.2.128/27 always_transparent
response-ip: 192.0.2.160/27 always_nxdomain
"""

WWW = "www.example.sec1."          # A 192.0.2.101, AAAA 2001:db8::101
APEX = "example.sec1."             # A 192.0.2.100
LONG = "long.example.sec1."        # ten CNAMEs, then A 192.0.2.110
TO_INSECURE = "to-insecure.example.sec1."  # CNAME www.unsigned.sec1.
#                                    A 192.0.2.160
DENIED = "www.sec1."               # A 192.0.2.1
REFUSED = "www.sec2."              # A 192.0.2.2
INFORM = "www.insec."              # A 192.0.2.9
INFORM_DENY = "www.example3.sec1."  # A 192.0.2.131 (/32 inside the /27)
TRANSPARENT = "d2.example3.sec1."  # A 192.0.2.132 (the /27)
UNTOUCHED = "example3.sec1."       # A 192.0.2.103: no rule


def start_pair(net, tmp_path_factory, modules, rules):
    ours = Server(tmp_path_factory.mktemp("ours"))
    ref = RefServer(tmp_path_factory.mktemp("reference"))
    ours.ctl_bin, ref.ctl_bin = OUR_CTL, DEB_CTL
    for s in (ours, ref):
        s.start(BODY % (modules, net.anchor) + rules,
                root_hints=net.root_hints,
                extra=rc_clause(None, free_port(), use_cert=False))
    return ours, ref


@pytest.fixture(scope="module")
def pair(signednet_net, tmp_path_factory):
    p = start_pair(signednet_net, tmp_path_factory,
                   "respip validator iterator", RULES)
    yield p
    for s in p:
        _finish(s)


def ask(srv, qname, qtype, do=False, tcp=False):
    q = dns.message.make_query(qname, qtype, use_edns=0, payload=1232,
                               want_dnssec=do)
    r = srv.query(q, timeout=5.0 * SLOW, tcp=tcp)
    if r.flags & dns.flags.TC:
        # unlike Unbound 1.17 (doc/compat.md), a UDP reply cut
        # before the address keeps AD here; the full one over TCP
        r = srv.query(q, timeout=5.0 * SLOW, tcp=True)
    return r


FLAGS = (dns.flags.QR, dns.flags.AA, dns.flags.TC, dns.flags.RD,
         dns.flags.RA, dns.flags.AD, dns.flags.CD)


def view(r):
    """rcode, header flags, and each section's records as text without
    TTLs (sorted)."""
    def sec(rrsets):
        return sorted("%s %s %s" % (rs.name, dns.rdatatype.to_text(
            rs.rdtype), rd.to_text()) for rs in rrsets for rd in rs)
    return (dns.rcode.to_text(r.rcode()),
            dns.flags.to_text(r.flags & sum(FLAGS)), r.edns, r.payload,
            sec(r.answer), sec(r.authority), sec(r.additional))


def hits(srv):
    return int(stats_dict(ctl(srv.conf, "stats_noreset",
                              binary=srv.ctl_bin).stdout)
               .get("total.num.cachehits", "0"))


def both(pair, qname, qtype, do=False, cached=True):
    """Ours and the reference's views, asked twice: the first answer
    from resolution, the second from the message cache (checked by the
    hit counter); all four must agree."""
    seen = []
    for srv in pair:
        before = hits(srv)
        first = view(ask(srv, qname, qtype, do))
        second = view(ask(srv, qname, qtype, do))
        if cached:
            assert hits(srv) >= before + 1, srv.binary
        assert first == second, "%s: first %s\nsecond %s" % (
            srv.binary, first, second)
        seen.append(first)
    assert seen[0] == seen[1], "ours %s\nreference %s" % tuple(seen)
    return seen[0]


def no_reply(pair, qname, qtype):
    """Neither answers, the first ask nor the second (from the cache),
    over UDP and TCP."""
    for srv in pair:
        for _ in range(2):
            with pytest.raises(dns.exception.Timeout):
                ask_once(srv, qname, qtype)
        with pytest.raises((dns.exception.Timeout, EOFError,
                            ConnectionError)):
            ask(srv, qname, qtype, tcp=True)


def ask_once(srv, qname, qtype):
    q = dns.message.make_query(qname, qtype, use_edns=0, payload=1232)
    return srv.query(q, timeout=1.0 * SLOW)


def answer_of(v):
    """The answer records without RRSIGs."""
    return [x for x in v[4] if " RRSIG " not in x]


def test_redirect_with_data_v4(pair):
    for do in (False, True):
        v = both(pair, WWW, "A", do=do)
        assert v[0] == "NOERROR" and "AD" not in v[1], v
        assert answer_of(v) == [WWW + " A 10.0.0.1", WWW + " A 10.0.0.2"], v
        assert v[5] == [] and v[6] == [] and v[2] == 0, v


def test_redirect_with_data_v6(pair):
    v = both(pair, WWW, "AAAA", do=True)
    assert answer_of(v) == [WWW + " AAAA 2001:db8::beef"], v
    assert "AD" not in v[1], v


def test_redirect_cname_chain(pair):
    # the address at the end of ten CNAMEs: the chain kept, the address
    # replaced under its own owner name
    v = both(pair, LONG, "A", do=True)
    a = answer_of(v)
    assert "l10.example.sec1. A 10.1.1.1" in a, v
    assert sum(1 for x in a if " CNAME " in x) == 10, v
    assert not any("192.0.2.110" in x for x in a), v


def test_redirect_without_data_is_nodata(pair):
    v = both(pair, APEX, "A")
    assert v[0] == "NOERROR" and answer_of(v) == [] and v[5] == [], v


def test_always_nxdomain_in_chain(pair):
    v = both(pair, TO_INSECURE, "A", do=True)
    assert v[0] == "NXDOMAIN", v
    assert [x for x in answer_of(v) if " CNAME " in x] == [
        TO_INSECURE + " CNAME www.unsigned.sec1."], v
    assert not any("192.0.2.160" in x for x in answer_of(v)), v


def test_always_refuse(pair):
    v = both(pair, REFUSED, "A")
    assert v[0] == "REFUSED" and answer_of(v) == [], v


def test_deny_drops(pair):
    no_reply(pair, DENIED, "A")
    # the AAAA question (NODATA, no address) is answered
    v = both(pair, DENIED, "AAAA")
    assert v[0] == "NOERROR", v


def inform_lines(srv, qname):
    """The inform log lines for qname, the client port made 0."""
    out = []
    for line in srv.log().splitlines():
        m = re.search(r"info: (\S+ inform \S+@)\d+ (%s .*)$" %
                      re.escape(qname), line)
        if m:
            out.append(m.group(1) + "0 " + m.group(2))
    return out


def test_inform_logs_and_answers(pair):
    v = both(pair, INFORM, "A")
    assert answer_of(v) == [INFORM + " A 192.0.2.9"], v
    want = ["192.0.2.9/32 inform 127.0.0.1@0 www.insec. A IN"] * 2
    for srv in pair:
        deadline = time.time() + 5 * SLOW
        while inform_lines(srv, INFORM) != want and \
                time.time() < deadline:
            time.sleep(0.05)
        assert inform_lines(srv, INFORM) == want, (srv.binary, srv.log())


def test_inform_deny_longest_match(pair):
    # 192.0.2.131/32 inform_deny inside 192.0.2.128/27 always_transparent
    no_reply(pair, INFORM_DENY, "A")
    for srv in pair:
        deadline = time.time() + 5 * SLOW
        while len(inform_lines(srv, INFORM_DENY)) < 3 and \
                time.time() < deadline:
            time.sleep(0.05)
        lines = inform_lines(srv, INFORM_DENY)
        assert len(lines) >= 3, (srv.binary, srv.log())
        assert lines[0] == ("192.0.2.131/32 inform 127.0.0.1@0 "
                            "www.example3.sec1. A IN"), lines


def test_always_transparent_and_untouched(pair):
    v = both(pair, TRANSPARENT, "A", do=True)
    assert answer_of(v) == [TRANSPARENT + " A 192.0.2.132"], v
    v = both(pair, UNTOUCHED, "A", do=True)
    assert answer_of(v) == [UNTOUCHED + " A 192.0.2.103"] and "AD" in v[1], v


def test_other_types_untouched(pair):
    # only A, AAAA and ANY questions are looked at
    v = both(pair, "txtonly.example.sec1.", "TXT")
    assert answer_of(v) == ['txtonly.example.sec1. TXT "only a TXT here"'], v


@pytest.fixture(scope="module")
def v6pair(signednet_net, tmp_path_factory):
    p = start_pair(signednet_net, tmp_path_factory,
                   "respip dns64 validator iterator",
                   "response-ip: 2001:db8::/48 always_refuse\n"
                   "response-ip: 64:ff9b::c000:200/120 always_nxdomain\n")
    yield p
    for s in p:
        _finish(s)


def test_v6_netblock_and_dns64(v6pair):
    v = both(v6pair, WWW, "AAAA")
    assert v[0] == "REFUSED" and answer_of(v) == [], v
    # the IPv4 answer is not under an IPv6 rule
    v = both(v6pair, WWW, "A")
    assert answer_of(v) == [WWW + " A 192.0.2.101"], v
    # dns64's synthesised AAAA (64:ff9b::192.0.2.1) is under a rule too
    v = both(v6pair, DENIED, "AAAA")
    assert v[0] == "NXDOMAIN" and answer_of(v) == [], v


def start_fails(srv, body):
    rc, out = srv.start_expecting_exit(body, timeout=10 * SLOW)
    if rc is None:
        raise AssertionError("%s started" % srv.binary)
    return rc, out


def test_response_ip_needs_respip(tmp_path):
    body = ('module-config: "validator iterator"\n'
            "response-ip: 192.0.2.1/32 deny\n")
    for cls, sub in ((Server, "ours"), (RefServer, "ref")):
        d = tmp_path / sub
        d.mkdir()
        rc, out = start_fails(cls(d), body)
        assert rc != 0, out
        assert "response-ip options require respip module" in out, out
    # compat: unbound-1.17: its checkconf accepts the config
    for binary in (CHECKCONF_BIN, "/usr/sbin/unbound-checkconf"):
        r = subprocess.run([binary, str(tmp_path / "ours" /
                                        "unbound.conf")],
                           capture_output=True, text=True)
        assert r.returncode == 0, (binary, r.stdout, r.stderr)


def test_bad_action_refused(tmp_path):
    body = ('module-config: "respip iterator"\n'
            "response-ip: 192.0.2.1/32 always_null\n")
    for cls, sub in ((Server, "ours"), (RefServer, "ref")):
        d = tmp_path / sub
        d.mkdir()
        rc, out = start_fails(cls(d), body)
        assert rc != 0, out
        assert ("response-ip action: expected deny, redirect, inform, "
                "inform_deny, always_transparent, always_refuse or "
                "always_nxdomain") in out, out
    r = subprocess.run([CHECKCONF_BIN, str(tmp_path / "ours" /
                                           "unbound.conf")],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "unbound.conf:" in r.stderr, r.stderr


def test_bad_data_refused(tmp_path):
    # data of the wrong family: Unbound's words
    body = ('module-config: "respip iterator"\n'
            "response-ip: 192.0.2.1/32 redirect\n"
            'response-ip-data: 192.0.2.1/32 "AAAA ::1"\n')
    for cls, sub in ((Server, "ours"), (RefServer, "ref")):
        d = tmp_path / sub
        d.mkdir()
        rc, out = start_fails(cls(d), body)
        assert rc != 0, out
        assert ("response-ip data AAAA ::1 record type does not "
                "correspond to netblock 192.0.2.1/32 address family") \
            in out, out


def test_reload_takes_new_rules(signednet_net, tmp_path_factory):
    """A reload with other response-ip lines: the new rules answer (the
    cached answer too), the old ones are gone."""
    net = signednet_net
    old = "response-ip: 192.0.2.103/32 always_refuse\n"
    new = "response-ip: 192.0.2.132/32 always_nxdomain\n"
    servers = []
    try:
        for cls, sub in ((Server, "ours"), (RefServer, "ref")):
            s = cls(tmp_path_factory.mktemp(sub))
            s.ctl_bin = OUR_CTL if cls is Server else DEB_CTL
            s.rc = rc_clause(None, free_port(), use_cert=False)
            s.start(BODY % ("respip validator iterator", net.anchor) + old,
                    root_hints=net.root_hints, extra=s.rc)
            servers.append(s)
        for s in servers:
            assert view(ask(s, UNTOUCHED, "A"))[0] == "REFUSED", s.binary
            assert answer_of(view(ask(s, TRANSPARENT, "A"))) == [
                TRANSPARENT + " A 192.0.2.132"], s.binary
            s.write_config(BODY % ("respip validator iterator",
                                   net.anchor) + new,
                           root_hints=net.root_hints, extra=s.rc)
            r = ctl(s.conf, "reload", binary=s.ctl_bin)
            assert r.stdout == "ok\n", (s.binary, r.stdout, r.stderr)
        for s in servers:
            deadline = time.time() + 10 * SLOW
            while time.time() < deadline:
                try:
                    v = view(ask(s, TRANSPARENT, "A"))
                    if v[0] == "NXDOMAIN":
                        break
                except dns.exception.Timeout:
                    pass
                time.sleep(0.1)
            assert v[0] == "NXDOMAIN", (s.binary, v)
            v = view(ask(s, UNTOUCHED, "A"))
            assert answer_of(v) == [UNTOUCHED + " A 192.0.2.103"], \
                (s.binary, v)
    finally:
        for s in servers:
            _finish(s)


# A view's own response-ip lines (compat: unbound-1.17, respip.c's
# respip_rewrite_reply): a client in a view with rules gets the view's
# rules; the global rules apply after them only with view-first: yes, and
# a view without view-first and without rules gets none at all.
NOVIEW, RED, BLUE, GREEN, GOLD = ("127.0.0.1", "127.0.0.2", "127.0.0.3",
                                  "127.0.0.4", "127.0.0.5")

VIEW_RULES = """access-control-view: 127.0.0.2/32 red
access-control-view: 127.0.0.3/32 blue
access-control-view: 127.0.0.4/32 green
access-control-view: 127.0.0.5/32 gold
response-ip: 192.0.2.132/32 always_nxdomain
"""

VIEW_CLAUSES = """view:
	name: "red"
	response-ip: 192.0.2.103/32 always_refuse
view:
	name: "blue"
view:
	name: "green"
	view-first: yes
view:
	name: "gold"
	view-first: yes
	response-ip: 192.0.2.103/32 redirect
	response-ip-data: 192.0.2.103/32 "A 10.9.9.9"
"""


@pytest.fixture(scope="module")
def viewpair(signednet_net, tmp_path_factory):
    net = signednet_net
    p = []
    try:
        for cls, sub in ((Server, "ours"), (RefServer, "reference")):
            s = cls(tmp_path_factory.mktemp(sub))
            s.ctl_bin = OUR_CTL if cls is Server else DEB_CTL
            p.append(s)
            s.start(BODY % ("respip validator iterator", net.anchor) +
                    VIEW_RULES, root_hints=net.root_hints,
                    extra=VIEW_CLAUSES + rc_clause(None, free_port(),
                                                   use_cert=False))
        yield p
    finally:
        for s in p:
            _finish(s)


def from_source(srv, qname, qtype, source):
    q = dns.message.make_query(qname, qtype, use_edns=0, payload=1232)
    return view(srv.query(q, source=source, timeout=5.0 * SLOW))


def both_from(pair, qname, qtype, source):
    seen = [from_source(s, qname, qtype, source) for s in pair]
    assert seen[0] == seen[1], "%s from %s:\nours %s\nreference %s" % (
        qname, source, seen[0], seen[1])
    return seen[0]


@pytest.mark.parametrize("order", ["view-client-first",
                                   "noview-client-first"])
def test_view_response_ip(viewpair, order):
    """Each client gets its view's rules; the cache emptied first, then
    asked first from a client in a view (the mesh's answer filtered with
    the view, the rest cache hits) or from one without."""
    for srv in viewpair:
        r = ctl(srv.conf, "flush_zone", "example3.sec1.",
                binary=srv.ctl_bin)
        assert r.returncode == 0, (srv.binary, r.stdout, r.stderr)
    sources = [RED, BLUE, GREEN, GOLD, NOVIEW]
    if order == "noview-client-first":
        sources.reverse()
    want_untouched = {
        # red's own rule
        RED: ("REFUSED", []),
        # blue: a view without rules and without view-first: no rule
        BLUE: ("NOERROR", [UNTOUCHED + " A 192.0.2.103"]),
        # green: no rules of its own, view-first: the global ones
        GREEN: ("NOERROR", [UNTOUCHED + " A 192.0.2.103"]),
        GOLD: ("NOERROR", [UNTOUCHED + " A 10.9.9.9"]),
        NOVIEW: ("NOERROR", [UNTOUCHED + " A 192.0.2.103"]),
    }
    want_transparent = {
        # red has rules, no view-first: the global rule is not its
        RED: ("NOERROR", [TRANSPARENT + " A 192.0.2.132"]),
        BLUE: ("NOERROR", [TRANSPARENT + " A 192.0.2.132"]),
        GREEN: ("NXDOMAIN", []),
        # gold's rule does not hold the address: view-first, the global
        GOLD: ("NXDOMAIN", []),
        NOVIEW: ("NXDOMAIN", []),
    }
    for qname, want in ((UNTOUCHED, want_untouched),
                        (TRANSPARENT, want_transparent)):
        for src in sources:
            v = both_from(viewpair, qname, "A", src)
            assert (v[0], answer_of(v)) == want[src], (qname, src, v)


def start_fails_with_view(srv, body, view_clause):
    rc, out = srv.start_expecting_exit(body, timeout=10 * SLOW,
                                       extra=view_clause)
    if rc is None:
        raise AssertionError("%s started" % srv.binary)
    return rc, out


@pytest.mark.parametrize("modules,view_lines,words", [
    ("validator iterator", "response-ip: 192.0.2.1/32 deny\n",
     "response-ip options require respip module"),
    ("respip iterator", "response-ip: 192.0.2.1/32 redirect\n"
     'response-ip-data: 192.0.2.1/32 "AAAA ::1"\n',
     "Error while applying respip configuration for view 'v'"),
    ("respip iterator", "response-ip: 192.0.2.1/32 always_null\n",
     "response-ip action: expected deny"),
])
def test_view_bad_response_ip_refused(tmp_path, modules, view_lines,
                                      words):
    body = 'module-config: "%s"\n' % modules
    clause = 'view:\n\tname: "v"\n' + "".join(
        "\t" + x + "\n" for x in view_lines.splitlines())
    for cls, sub in ((Server, "ours"), (RefServer, "ref")):
        d = tmp_path / sub
        d.mkdir()
        rc, out = start_fails_with_view(cls(d), body, clause)
        assert rc != 0, out
        assert words in out, (cls, out)
