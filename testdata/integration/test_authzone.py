# SPDX-License-Identifier: BSD-3-Clause
"""auth-zone: (Unbound 1.17): a zone read from its zonefile and served
downstream (authoritative answers: AA, referrals, CNAME/DNAME, wildcards,
NXDOMAIN/NODATA with the SOA, RRSIGs and NSEC/NSEC3 denial with DO),
side by side with Debian's Unbound on the same config and zone files
(plain, signed with NSEC and with NSEC3 by ldns-signzone at test time);
for-upstream answering in place of the zone's servers (a stub Upstream
that must not be asked), fallback-enabled both ways, and a zone file
that does not parse (an error at start; at reload the old zone keeps
serving).

Zone transfers (primary:, allow-notify:) are tested in
test_auth_xfr.py (NSD as the primary); url: in test_auth_url.py,
ZONEMD in test_auth_zonemd.py."""
import os
import shutil
import subprocess
import sys
import time

import dns.flags
import dns.message
import dns.rcode
import dns.rdatatype
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from conftest import (CHECKCONF_BIN, DEB_UNBOUND, REFERENCE, SLOW, RefServer, Server,  # noqa
                      _finish, answer_texts, free_port, rcode_of)
from test_control import ctl, rc_clause, stats_dict  # noqa

ZONE = """$TTL 3600
@ IN SOA ns1.example.com. host.example.com. 2024010101 3600 900 604800 300
@ IN NS ns1.example.com.
@ IN MX 10 mail.example.com.
ns1 IN A 127.0.0.1
mail IN A 192.0.2.25
www IN A 192.0.2.80
www IN A 192.0.2.81
alias IN CNAME www
chain IN CNAME alias
*.wild IN TXT "wildcard"
*.wildc IN CNAME www
a.b.ent IN A 192.0.2.1
sub IN NS ns.sub.example.com.
ns.sub IN A 192.0.2.53
signedsub IN NS ns.sub.example.com.
signedsub IN DS 12345 13 2 """ + "ab" * 32 + """
dn IN DNAME example.net.
srv IN SRV 0 0 53 ns1.example.com.
"""

# (qname, qtype, DO)
QUESTIONS = [
    ("www.example.com.", "A", False), ("www.example.com.", "A", True),
    ("WwW.ExAmple.COM.", "A", True),
    ("alias.example.com.", "A", False), ("chain.example.com.", "A", True),
    ("nx.example.com.", "A", False), ("nx.example.com.", "A", True),
    ("www.example.com.", "AAAA", False), ("www.example.com.", "AAAA", True),
    ("x.wild.example.com.", "TXT", False), ("x.wild.example.com.", "TXT", True),
    ("x.y.wild.example.com.", "TXT", True), ("x.wild.example.com.", "A", True),
    ("q.wildc.example.com.", "A", True),
    ("b.ent.example.com.", "A", False), ("b.ent.example.com.", "A", True),
    ("zz.b.ent.example.com.", "A", True),
    ("foo.sub.example.com.", "A", False), ("foo.sub.example.com.", "A", True),
    ("sub.example.com.", "DS", True), ("sub.example.com.", "DS", False),
    ("x.signedsub.example.com.", "A", True),
    ("signedsub.example.com.", "DS", True),
    ("x.dn.example.com.", "A", True),
    ("example.com.", "ANY", False), ("example.com.", "ANY", True),
    ("example.com.", "MX", True), ("example.com.", "NS", False),
    ("example.com.", "SOA", True), ("example.com.", "DNSKEY", True),
    ("srv.example.com.", "SRV", False), ("mail.example.com.", "MX", True),
]


def have_signer():
    return shutil.which("ldns-signzone") and shutil.which("ldns-keygen")


def write_zones(d):
    """example.zone, and when ldns-signzone is there, example.nsec.zone
    and example.nsec3.zone signed with one KSK and one ZSK."""
    plain = os.path.join(d, "example.zone")
    with open(plain, "w") as f:
        f.write(ZONE)
    zones = {"plain": plain}
    if not have_signer():
        return zones
    keys = []
    for ksk in (True, False):
        args = ["ldns-keygen", "-a", "ECDSAP256SHA256"]
        if ksk:
            args.append("-k")
        out = subprocess.run(args + ["example.com"], cwd=d, check=True,
                             capture_output=True, text=True)
        keys.append(os.path.join(d, out.stdout.strip()))
    for name, extra in (("nsec", []), ("nsec3", ["-n", "-s", "abcd", "-t",
                                                  "2"])):
        out = os.path.join(d, "example.%s.zone" % name)
        subprocess.run(["ldns-signzone", "-o", "example.com", "-f", out] +
                       extra + [plain] + keys, cwd=d, check=True,
                       capture_output=True)
        zones[name] = out
    return zones


def auth_clause(zonefile, downstream=True, upstream=False, fallback=False,
                name="example.com", primary=None):
    lines = ["auth-zone:", '\tname: "%s"' % name]
    if zonefile:
        lines.append('\tzonefile: "%s"' % zonefile)
    if primary:
        lines.append("\tprimary: %s" % primary)
    lines += ["\tfor-downstream: %s" % ("yes" if downstream else "no"),
              "\tfor-upstream: %s" % ("yes" if upstream else "no"),
              "\tfallback-enabled: %s" % ("yes" if fallback else "no")]
    return "\n".join(lines) + "\n"


BODY = """module-config: "iterator"
access-control: 127.0.0.0/8 allow
minimal-responses: yes
rrset-roundrobin: no
extended-statistics: yes
"""


def ask(srv, qname, qtype, do=False, rd=False):
    q = dns.message.make_query(qname, qtype, use_edns=0, payload=1232,
                               want_dnssec=do)
    if not rd:
        q.flags &= ~dns.flags.RD
    return srv.query(q, timeout=3.0 * SLOW)


def canon(r):
    """A reply as comparable text: flags, rcode, each section's RRs
    (TTL kept: an authoritative answer's TTLs are the zone's), sorted
    within each section (RRset order is not what is compared)."""
    lines = ["%s %s" % (dns.flags.to_text(r.flags & ~0xf), dns.rcode.to_text(
        r.rcode()))]
    for sec, rrsets in (("AN", r.answer), ("NS", r.authority),
                        ("AR", r.additional)):
        rrs = []
        for rrset in rrsets:
            for line in rrset.to_text().splitlines():
                rrs.append(sec + " " + line)
        lines += sorted(rrs)
    return "\n".join(lines)


@pytest.fixture(scope="module")
def zones(tmp_path_factory):
    return write_zones(str(tmp_path_factory.mktemp("zones")))


def start_pair(tmp_path_factory, extra, body=BODY):
    ours = Server(tmp_path_factory.mktemp("ours"))
    ref = RefServer(tmp_path_factory.mktemp("reference"))
    for s in (ours, ref):
        s.start(body, extra=extra)
    return ours, ref


needs_ref = pytest.mark.skipif(
    REFERENCE or not os.access(DEB_UNBOUND, os.X_OK),
    reason="Debian's unbound is not installed (or UNBOUND_BIN is it)")


@needs_ref
@pytest.mark.parametrize("kind", ["plain", "nsec", "nsec3"])
def test_downstream_side_by_side(zones, kind, tmp_path_factory):
    """The same answers as Unbound 1.17 for every kind of question,
    from the plain zone and the two signed ones, with and without DO."""
    if kind not in zones:
        pytest.skip("ldns-signzone is not installed")
    ours, ref = start_pair(tmp_path_factory, auth_clause(zones[kind]))
    try:
        diffs = []
        for qname, qtype, do in QUESTIONS:
            a = canon(ask(ours, qname, qtype, do))
            b = canon(ask(ref, qname, qtype, do))
            if a != b:
                diffs.append("%s %s DO=%d\nours:\n%s\nunbound:\n%s" % (
                    qname, qtype, do, a, b))
        assert not diffs, "\n\n".join(diffs)
    finally:
        for s in (ours, ref):
            _finish(s)


def test_downstream_answers(zones, unbound):
    """Checked on ours alone (also without Debian's Unbound): AA on an
    answer, AA clear on a referral with its glue, NXDOMAIN with the SOA
    at the negative TTL, the question's case echoed, RA only for RD,
    num.query.authzone.down counted, list_auth_zones."""
    unbound.ctl_port = free_port()
    unbound.start(BODY, extra=auth_clause(zones["plain"]) + rc_clause(
        None, unbound.ctl_port, use_cert=False))
    r = ask(unbound, "WwW.example.com.", "A")
    assert r.flags & dns.flags.AA and not r.flags & dns.flags.RA
    assert r.question[0].name.to_text() == "WwW.example.com."
    assert answer_texts(r) == ["WwW.example.com. A 192.0.2.80",
                               "WwW.example.com. A 192.0.2.81"]
    r = ask(unbound, "www.example.com.", "A", rd=True)
    assert r.flags & dns.flags.AA and r.flags & dns.flags.RA
    r = ask(unbound, "foo.sub.example.com.", "A")
    assert not r.flags & dns.flags.AA and rcode_of(r) == "NOERROR"
    assert [x.to_text() for x in r.authority] == [
        "sub.example.com. 3600 IN NS ns.sub.example.com."]
    assert [x.to_text() for x in r.additional] == [
        "ns.sub.example.com. 3600 IN A 192.0.2.53"]
    r = ask(unbound, "nx.example.com.", "A")
    assert rcode_of(r) == "NXDOMAIN" and r.flags & dns.flags.AA
    assert [x.to_text().split()[1] for x in r.authority] == ["300"]
    st = stats_dict(ctl(unbound.conf, "stats_noreset").stdout)
    assert st.get("num.query.authzone.down") == "4", st
    # compat: unbound-1.17: list_auth_zones
    out = ctl(unbound.conf, "list_auth_zones")
    assert out.stdout == "example.com.\tserial 2024010101\n", out


@pytest.mark.skipif(not have_signer(), reason="ldns-signzone is not installed")
def test_dnssec_records_with_do(zones, unbound):
    """With DO: RRSIGs, the NSEC denial of NXDOMAIN (the name and the
    wildcard), and of a referral's DS; without DO none of them."""
    unbound.start(BODY, extra=auth_clause(zones["nsec"]))
    r = ask(unbound, "www.example.com.", "A", do=True)
    assert [dns.rdatatype.to_text(x.rdtype) for x in r.answer] == [
        "A", "RRSIG"]
    r = ask(unbound, "nx.example.com.", "A", do=True)
    types = sorted(dns.rdatatype.to_text(x.rdtype) for x in r.authority)
    assert types == ["NSEC", "NSEC", "RRSIG", "RRSIG", "RRSIG", "SOA"], r
    r = ask(unbound, "x.sub.example.com.", "A", do=True)
    assert "NSEC" in [dns.rdatatype.to_text(x.rdtype) for x in r.authority]
    r = ask(unbound, "nx.example.com.", "A", do=False)
    assert [dns.rdatatype.to_text(x.rdtype) for x in r.authority] == ["SOA"]


def test_upstream_answers_without_asking(zones, unbound, upstream):
    """for-upstream: the iterator takes the zone's answers from the copy;
    the zone's server (a stub to the Upstream) is never asked, and
    num.query.authzone.up counts them. for-downstream: no, so the reply
    is a recursive one (RA, no AA)."""
    unbound.ctl_port = free_port()
    unbound.start(BODY, extra=auth_clause(
        zones["plain"], downstream=False, upstream=True) +
        upstream.stub_zone("example.com") +
        rc_clause(None, unbound.ctl_port, use_cert=False))
    r = ask(unbound, "www.example.com.", "A", rd=True)
    assert rcode_of(r) == "NOERROR" and not r.flags & dns.flags.AA
    assert answer_texts(r) == ["www.example.com. A 192.0.2.80",
                               "www.example.com. A 192.0.2.81"]
    r = ask(unbound, "chain.example.com.", "A", rd=True)
    assert answer_texts(r) == [
        "alias.example.com. CNAME www.example.com.",
        "chain.example.com. CNAME alias.example.com.",
        "www.example.com. A 192.0.2.80", "www.example.com. A 192.0.2.81"]
    r = ask(unbound, "nx.example.com.", "A", rd=True)
    assert rcode_of(r) == "NXDOMAIN"
    assert upstream.queries() == []
    st = stats_dict(ctl(unbound.conf, "stats_noreset").stdout)
    assert int(st.get("num.query.authzone.up", 0)) >= 3, st
    assert st.get("num.query.authzone.down") == "0", st


def test_upstream_off_asks_the_servers(zones, unbound, upstream):
    """The same with for-upstream: no: the Upstream is asked (the
    test above fails the same way when the copy is not used)."""
    unbound.start(BODY, extra=auth_clause(
        zones["plain"], downstream=False, upstream=False) +
        upstream.stub_zone("example.com"))
    r = ask(unbound, "www.example.com.", "A", rd=True)
    assert answer_texts(r) == ["www.example.com. A 192.0.2.253"]
    assert ("www.example.com.", "A") in upstream.queries()


@needs_ref
def test_upstream_side_by_side(zones, tmp_path_factory, upstream):
    """for-upstream over the stub, ours and Unbound 1.17: the same
    answers (rcode, answer section), and neither asks the stub."""
    extra = auth_clause(zones["plain"], downstream=False, upstream=True) + \
        upstream.stub_zone("example.com")
    ours, ref = start_pair(tmp_path_factory, extra)
    try:
        for qname, qtype in (("www.example.com.", "A"),
                             ("alias.example.com.", "A"),
                             ("nx.example.com.", "A"),
                             ("x.wild.example.com.", "TXT"),
                             ("b.ent.example.com.", "A"),
                             ("example.com.", "MX")):
            a, b = (ask(s, qname, qtype, rd=True) for s in (ours, ref))
            assert (rcode_of(a), answer_texts(a)) == \
                (rcode_of(b), answer_texts(b)), (qname, qtype, a, b)
        assert upstream.queries() == []
    finally:
        for s in (ours, ref):
            _finish(s)


@pytest.mark.parametrize("fallback", [False, True])
def test_zone_without_data(unbound, upstream, fallback):
    """A zone with a primary and no zone file yet has no data: with
    fallback-enabled the question goes to the zone's servers (the stub),
    downstream and upstream; without it, SERVFAIL (downstream with AA)
    and the servers are not asked."""
    dead = "127.0.0.1@%d" % free_port()
    unbound.start(BODY, extra=auth_clause(
        None, downstream=True, upstream=True, fallback=fallback,
        primary=dead) + upstream.stub_zone("example.com"))
    r = ask(unbound, "www.example.com.", "A", rd=True)
    if fallback:
        assert answer_texts(r) == ["www.example.com. A 192.0.2.253"]
    else:
        assert rcode_of(r) == "SERVFAIL" and r.flags & dns.flags.AA
        assert upstream.queries() == []


def test_bad_zonefile(tmp_path, unbound):
    """A zone file that does not parse: the start fails with Unbound's
    words; at reload the old zone keeps serving."""
    zf = str(tmp_path / "bad.zone")
    with open(zf, "w") as f:
        f.write(ZONE + "www IN A not-an-address\n")
    rc, out = unbound.start_expecting_exit(BODY, extra=auth_clause(zf))
    assert rc not in (0, None), out
    assert "error parsing zonefile %s for example.com." % zf in out, out
    # compat: unbound-1.17: unbound-checkconf reads the zone files too
    cc = subprocess.run([CHECKCONF_BIN, unbound.conf], capture_output=True,
                        text=True, timeout=30)
    assert cc.returncode != 0 and "error parsing zonefile" in (
        cc.stdout + cc.stderr), cc
    unbound.pid = None
    good = str(tmp_path / "good.zone")
    with open(good, "w") as f:
        f.write(ZONE)
    unbound.start(BODY, extra=auth_clause(good))
    assert rcode_of(ask(unbound, "www.example.com.", "A")) == "NOERROR"
    with open(good, "a") as f:
        f.write("broken IN A 999.1.2.3\n")
    unbound.send_signal(1)   # SIGHUP: the new file does not parse
    deadline = time.time() + 10 * SLOW
    want = "error parsing zonefile %s for example.com." % good
    while want not in unbound.output() and time.time() < deadline:
        time.sleep(0.05)
    assert want in unbound.output(), unbound.output()
    r = ask(unbound, "www.example.com.", "A")
    assert answer_texts(r) == ["www.example.com. A 192.0.2.80",
                               "www.example.com. A 192.0.2.81"]
    assert unbound.alive()
