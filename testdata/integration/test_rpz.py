# SPDX-License-Identifier: BSD-3-Clause
"""RPZ (rpz: clauses, respip/rpz*.c) side by side with Debian's Unbound
1.17 on the same config over the signed test internet: QNAME triggers
(exact and "*." wildcard) with every action (NXDOMAIN, NODATA, PASSTHRU,
DROP, TCP-ONLY, local data), Response IP triggers (.rpz-ip: local data
for the address at the end of a CNAME chain, NXDOMAIN), Client IP
triggers (.rpz-client-ip, asked from 127.0.0.5), two zones in config
order (the first match wins), rpz-action-override and
rpz-signal-nxdomain-ra, the rpz-log lines with rpz-log-name, the
num.rpz.action statistics, rpz_disable/rpz_enable; an rpz: clause
without the respip module is refused. Each answer is asked twice: ours
answers the second from the message cache (the hit counter says so), the
policy applies there too; except the client-ip and QNAME triggers whose
answer needs no resolution (NXDOMAIN, NODATA, DROP, TCP-ONLY over UDP,
local data without a CNAME): as Unbound, those answer before the cache
and resolution (both count each as num.cachehits, Unbound's "queries
not missed": no cache miss), and the test internet never sees the name
(names under blk.up., a stub zone on a logging Upstream).

Compared per question: rcode, the header flags, the three sections
(records as text without TTLs; OPT left out). Needs nsd, Debian's unbound
and root (port 53); skips otherwise."""
import re
import time

import dns.exception
import dns.flags
import dns.message
import pytest

from conftest import SLOW, RefServer, Server, Upstream
from signednet_pair import (SKIP_MARKS, running_pair,  # noqa: F401
                            signednet_net, write_zones)
from test_control import ctl, stats_dict
from test_respip import hits, view

pytestmark = SKIP_MARKS

BODY = """module-config: "respip validator iterator"
trust-anchor-file: "%s"
do-ip6: no
access-control: 127.0.0.0/8 allow
minimal-responses: yes
extended-statistics: yes
domain-insecure: "blk.up."
"""

ZONE_ONE = """$ORIGIN rpz.one.
$TTL 60
@ SOA ns.rpz.one. admin.rpz.one. 1 3600 600 86400 60
@ NS ns.rpz.one.
www.example.sec1 CNAME .
example3.sec1 CNAME *.
www.insec CNAME rpz-passthru.
www.sec1 CNAME rpz-drop.
www.sec2 CNAME rpz-tcp-only.
*.unsigned.sec1 A 10.1.2.3
*.unsigned.sec1 TXT "blocked"
32.5.0.0.127.rpz-client-ip CNAME .
32.110.2.0.192.rpz-ip A 10.7.7.7
32.100.2.0.192.rpz-ip CNAME .
nx.blk.up CNAME .
nodata.blk.up CNAME *.
data.blk.up A 10.9.9.9
drop.blk.up CNAME rpz-drop.
tcp.blk.up CNAME rpz-tcp-only.
"""

ZONE_TWO = """$ORIGIN rpz.two.
$TTL 60
@ SOA ns.rpz.two. admin.rpz.two. 1 3600 600 86400 60
@ NS ns.rpz.two.
www.insec CNAME .
d2.example3.sec1 A 10.0.0.9
"""

CLAUSES = """rpz:
\tname: rpz.one.
\tzonefile: "%s"
\trpz-log: yes
\trpz-log-name: one
rpz:
\tname: rpz.two.
\tzonefile: "%s"
\trpz-action-override: nxdomain
\trpz-signal-nxdomain-ra: yes
"""


@pytest.fixture(scope="module")
def pair(signednet_net, tmp_path_factory):
    zones = write_zones(tmp_path_factory, ("one.zone", ZONE_ONE),
                        ("two.zone", ZONE_TWO))
    up = Upstream()
    try:
        with running_pair(signednet_net, tmp_path_factory,
                          BODY % signednet_net.anchor,
                          extra=CLAUSES % tuple(zones) +
                          up.stub_zone("blk.up"), control=True) as both:
            for s in both:
                s.upstream = up
            yield both
    finally:
        up.close()


def ask(srv, qname, qtype, do=False, tcp=False, source="127.0.0.1"):
    q = dns.message.make_query(qname, qtype, use_edns=0, payload=1232,
                               want_dnssec=do)
    return srv.query(q, timeout=5.0 * SLOW, tcp=tcp, source=source)


def both(pair, qname, qtype, do=False, tcp=False, source="127.0.0.1",
         pre=False):
    """Ours and the reference's views, each asked twice (ours answers
    the second from its message cache); all four agree. pre: a trigger
    answers before resolution, both times: no cache miss (both count
    the two as hits, num.cachehits being queries not missed)."""
    seen = []
    for srv in pair:
        before = hits(srv)
        first = view(ask(srv, qname, qtype, do, tcp, source))
        second = view(ask(srv, qname, qtype, do, tcp, source))
        if pre:
            assert hits(srv) == before + 2, (srv.binary, "a cache miss")
        elif srv is pair[0]:
            assert hits(srv) >= before + 1, "no cache hit"
        assert first == second, "%s: first %s\nsecond %s" % (
            srv.binary, first, second)
        seen.append(first)
    assert seen[0] == seen[1], "ours %s\nreference %s" % tuple(seen)
    return seen[0]


def test_qname_nxdomain_not_ad(pair):
    v = both(pair, "www.example.sec1.", "A", do=True, pre=True)
    assert v[0] == "NXDOMAIN" and "AA" in v[1] and "AD" not in v[1], v
    assert v[4] == [] and v[5] == [], v


def test_qname_nodata(pair):
    v = both(pair, "example3.sec1.", "A", pre=True)
    assert v[0] == "NOERROR" and v[4] == [] and "AA" in v[1], v


def test_wildcard_local_data(pair):
    name = "www.unsigned.sec1."
    v = both(pair, name, "A", pre=True)
    assert v[4] == [name + " A 10.1.2.3"] and "AA" in v[1], v
    v = both(pair, name, "TXT", pre=True)
    assert v[4] == [name + ' TXT "blocked"'], v
    # no record of the type: NODATA
    v = both(pair, name, "AAAA", pre=True)
    assert v[0] == "NOERROR" and v[4] == [], v
    # "*.unsigned.sec1" covers the names below it, not itself
    v = both(pair, "unsigned.sec1.", "SOA")
    assert v[0] == "NOERROR" and v[4] and "10.1.2.3" not in str(v), v


def test_passthru_first_zone_wins(pair):
    # zone one says passthru, zone two NXDOMAIN: the first zone decides
    v = both(pair, "www.insec.", "A")
    assert v[0] == "NOERROR" and v[4] == ["www.insec. A 192.0.2.9"], v


def test_drop(pair):
    q = dns.message.make_query("www.sec1.", "A", use_edns=0, payload=1232)
    for srv in pair:
        for _ in range(2):
            with pytest.raises(dns.exception.Timeout):
                srv.query(q, timeout=0.5 * SLOW)
        with pytest.raises((dns.exception.Timeout, EOFError,
                            ConnectionError)):
            srv.query(q, timeout=0.5 * SLOW, tcp=True)
    # a name beside it is answered
    v = both(pair, "www.example3.sec1.", "A")
    assert v[0] == "NOERROR" and v[4], v


def test_tcp_only(pair):
    v = both(pair, "www.sec2.", "A", pre=True)
    assert "TC" in v[1] and v[0] == "NOERROR" and v[4] == [], v
    v = both(pair, "www.sec2.", "A", tcp=True)
    assert "TC" not in v[1] and v[4] == ["www.sec2. A 192.0.2.2"], v


def test_client_ip(pair):
    # 127.0.0.5 gets NXDOMAIN for any name, 127.0.0.1 the real answer
    v = both(pair, "www.example3.sec1.", "A", source="127.0.0.5",
             pre=True)
    assert v[0] == "NXDOMAIN", v
    v = both(pair, "www.example3.sec1.", "A")
    assert v[4] == ["www.example3.sec1. A 192.0.2.131"], v


def test_response_ip_local_data_in_chain(pair):
    v = both(pair, "long.example.sec1.", "A")
    a = [x for x in v[4] if " RRSIG " not in x]
    assert "l10.example.sec1. A 10.7.7.7" in a, v
    assert sum(1 for x in a if " CNAME " in x) == 10, v
    assert "AD" not in v[1], v


def test_response_ip_nxdomain(pair):
    v = both(pair, "example.sec1.", "A", do=True)
    assert v[0] == "NXDOMAIN" and "AD" not in v[1], v


def test_action_override_and_signal_ra(pair):
    # zone two's local data made NXDOMAIN by its override, RA cleared
    v = both(pair, "d2.example3.sec1.", "A", pre=True)
    assert v[0] == "NXDOMAIN" and "RA" not in v[1], v


def not_asked_upstream(pair, name):
    """Neither server sent name to the test internet (the Upstream
    serving blk.up. logs every query it gets)."""
    up = pair[0].upstream
    assert up.queries(name) == [], (name, up.queries())


@pytest.mark.parametrize("name,qtype,want", [
    ("nx.blk.up.", "A", "NXDOMAIN"),
    ("nodata.blk.up.", "A", "NOERROR"),
    ("data.blk.up.", "A", "NOERROR"),
    ("data.blk.up.", "AAAA", "NOERROR"),
    ("tcp.blk.up.", "A", "NOERROR"),
])
def test_answered_before_resolution(pair, name, qtype, want):
    # compat: unbound-1.17: no upstream query for a blocked name
    v = both(pair, name, qtype, pre=True)
    assert v[0] == want and "AA" in v[1], v
    if name.startswith("data.") and qtype == "A":
        assert v[4] == [name + " A 10.9.9.9"], v
    if name.startswith("tcp."):
        assert "TC" in v[1], v
    not_asked_upstream(pair, name)


def test_drop_before_resolution(pair):
    name = "drop.blk.up."
    q = dns.message.make_query(name, "A", use_edns=0, payload=1232)
    for srv in pair:
        before = hits(srv)
        with pytest.raises(dns.exception.Timeout):
            srv.query(q, timeout=0.5 * SLOW)
        assert hits(srv) == before + 1, (srv.binary, "a cache miss")
    not_asked_upstream(pair, name)


def test_client_ip_before_resolution(pair):
    name = "cip.blk.up."
    v = both(pair, name, "A", source="127.0.0.5", pre=True)
    assert v[0] == "NXDOMAIN", v
    not_asked_upstream(pair, name)


def test_unblocked_name_is_resolved(pair):
    # the Upstream's log does see a name no trigger holds (the check
    # above can fail), and tcp-only over TCP resolves it then
    name = "open.blk.up."
    v = both(pair, name, "A")
    assert v[4] == [name + " A 192.0.2.253"], v
    assert pair[0].upstream.queries(name), pair[0].upstream.queries()
    v = both(pair, "tcp.blk.up.", "A", tcp=True)
    assert "TC" not in v[1] and v[4] == ["tcp.blk.up. A 192.0.2.253"], v


def applied_lines(srv, qname):
    """The rpz-log lines for qname, the client port made 0."""
    out = []
    for line in srv.log().splitlines():
        m = re.search(r"info: (rpz: applied .*@)\d+ (%s .*)$" %
                      re.escape(qname), line)
        if m:
            out.append(m.group(1) + "0 " + m.group(2))
    return out


def test_log_lines(pair):
    name = "www.example.sec1."
    both(pair, name, "A")
    want = "rpz: applied [one] %s rpz-nxdomain 127.0.0.1@0 %s A IN" % (
        name, name)
    for srv in pair:
        deadline = time.time() + 5 * SLOW
        while want not in applied_lines(srv, name) and \
                time.time() < deadline:
            time.sleep(0.05)
        assert want in applied_lines(srv, name), (srv.binary, srv.log())


def start_fails(srv, body, extra):
    rc, out = srv.start_expecting_exit(body, timeout=10 * SLOW, extra=extra)
    if rc is None:
        raise AssertionError("%s started" % srv.binary)
    return rc, out


def test_rpz_needs_respip(tmp_path):
    zone = tmp_path / "z.zone"
    zone.write_text(ZONE_TWO)
    extra = 'rpz:\n\tname: rpz.two.\n\tzonefile: "%s"\n' % zone
    for cls, sub in ((Server, "ours"), (RefServer, "ref")):
        d = tmp_path / sub
        d.mkdir()
        rc, out = start_fails(cls(d), 'module-config: "iterator"\n',
                              extra)
        assert rc != 0, out
        assert "RPZ requires the respip module" in out, out


def rpz_stats(srv):
    out = ctl(srv.conf, "stats_noreset", binary=srv.ctl_bin)
    assert out.returncode == 0, out.stderr
    return {k: v for k, v in stats_dict(out.stdout).items()
            if k.startswith("num.rpz.")}


def test_statistics(pair):
    # each action counted as Unbound counts it: the names, the rule for
    # which appear (those not zero); passthru, drop and tcp-only counted
    before = [rpz_stats(s) for s in pair]
    both(pair, "www.example.sec1.", "A")
    after = [rpz_stats(s) for s in pair]
    for b, a in zip(before, after):
        assert int(a["num.rpz.action.rpz-nxdomain"]) == \
            int(b.get("num.rpz.action.rpz-nxdomain", 0)) + 2, (b, a)
    for srv in pair:
        s = rpz_stats(srv)
        for k in ("num.rpz.action.rpz-nodata",
                  "num.rpz.action.rpz-local-data"):
            assert k in s, (srv.binary, s)
        assert "num.rpz.action.rpz-no-override" not in s, s


def test_rpz_disable_enable(pair):
    name = "www.example.sec1."
    for srv in pair:
        r = ctl(srv.conf, "rpz_disable", "rpz.one.", binary=srv.ctl_bin)
        assert r.stdout == "ok\n", (srv.binary, r.stdout, r.stderr)
    try:
        v = both(pair, name, "A")
        assert v[0] == "NOERROR" and v[4] == [name + " A 192.0.2.101"], v
    finally:
        for srv in pair:
            r = ctl(srv.conf, "rpz_enable", "rpz.one.", binary=srv.ctl_bin)
            assert r.stdout == "ok\n", (srv.binary, r.stdout, r.stderr)
    v = both(pair, name, "A", pre=True)
    assert v[0] == "NXDOMAIN", v
    for srv in pair:
        r = ctl(srv.conf, "rpz_disable", "rpz.none.", binary=srv.ctl_bin)
        assert r.stdout == "error no auth-zone rpz.none.\n", r.stdout


def test_bad_zone_file_refused(tmp_path):
    # a zone file that does not parse stops the start, named in the log
    zone = tmp_path / "bad.zone"
    zone.write_text(ZONE_TWO + "www.bad A 10.0.0.300\n")
    extra = 'rpz:\n\tname: rpz.two.\n\tzonefile: "%s"\n' % zone
    d = tmp_path / "ours"
    d.mkdir()
    rc, out = start_fails(Server(d), 'module-config: "respip iterator"\n',
                          extra)
    assert rc != 0, out
    assert "parse error %s " % zone in out, out
    assert "error parsing zonefile %s for rpz.two." % zone in out, out
