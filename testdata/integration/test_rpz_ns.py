# SPDX-License-Identifier: BSD-3-Clause
"""RPZ's NSDNAME (.rpz-nsdname) and NSIP (.rpz-nsip) triggers
(respip/rpz_nstrigger.c, through the iterator's module_env.deleg_hook)
side by side with Debian's Unbound 1.17 over the signed test internet:
a delegation whose NS name or NS address matches decides the client's
answer (NXDOMAIN, NODATA, local data, DROP, PASSTHRU), not AD; names
beside them resolve; num.rpz.action counts them and rpz-log logs them.
An rpz: zone with tags: applies only to clients with a shared
access-control-tag (asked from 127.0.0.7); one with for-downstream: yes
is answered to clients as an auth zone.

Compared per question: rcode, header flags, the three sections (records
as text without TTLs). Needs nsd, Debian's unbound and root (port 53);
skips otherwise."""
import re
import time

import dns.exception
import dns.message
import pytest

from conftest import SLOW
from signednet_pair import (SKIP_MARKS, running_pair,  # noqa: F401
                            signednet_net, write_zones)
from test_control import ctl, stats_dict
from test_respip import view

pytestmark = SKIP_MARKS

BODY = """module-config: "respip validator iterator"
trust-anchor-file: "%s"
do-ip6: no
access-control: 127.0.0.0/8 allow
minimal-responses: yes
extended-statistics: yes
define-tag: "kids guests"
access-control: 127.0.0.7/32 allow
access-control-tag: 127.0.0.7/32 "guests"
"""

# host 6 of the signed net serves unsigned.sec1. and unsigned.sec2.
ZONE = """$ORIGIN rpz.ns.
$TTL 60
@ SOA ns.rpz.ns. admin.rpz.ns. 1 3600 600 86400 60
@ NS ns.rpz.ns.
ns.example.sec1.rpz-nsdname CNAME .
*.ed25519.sec1.rpz-nsdname CNAME *.
ns.rsasha512.sec1.rpz-nsdname A 10.5.5.5
ns.rsasha1.sec1.rpz-nsdname CNAME rpz-drop.
32.6.%(rev)s.rpz-nsip CNAME .
"""

# a zone for tagged clients only (tags:)
TAG_ZONE = """$ORIGIN rpz.tag.
$TTL 60
@ SOA ns.rpz.tag. admin.rpz.tag. 1 3600 600 86400 60
@ NS ns.rpz.tag.
www.insec CNAME .
"""

CLAUSE = """rpz:
\tname: rpz.ns.
\tzonefile: "%s"
\trpz-log: yes
\trpz-log-name: ns
rpz:
\tname: rpz.tag.
\tzonefile: "%s"
\ttags: "kids guests"
\tfor-downstream: yes
"""


@pytest.fixture(scope="module")
def pair(signednet_net, tmp_path_factory):
    net = signednet_net
    rev = ".".join(reversed(net.prefix.split(".")))
    zones = write_zones(tmp_path_factory, ("ns.zone", ZONE % {"rev": rev}),
                        ("tag.zone", TAG_ZONE))
    with running_pair(net, tmp_path_factory, BODY % net.anchor,
                      extra=CLAUSE % tuple(zones), control=True) as both:
        yield both


def ask(srv, qname, qtype, do=False, source="127.0.0.1"):
    q = dns.message.make_query(qname, qtype, use_edns=0, payload=1232,
                               want_dnssec=do)
    return view(srv.query(q, timeout=5.0 * SLOW, source=source))


def both(pair, qname, qtype, do=False, source="127.0.0.1"):
    """Ours and the reference's answers, each asked twice (the second
    time the delegation is cached): all four agree."""
    seen = []
    for srv in pair:
        first, second = (ask(srv, qname, qtype, do, source),
                         ask(srv, qname, qtype, do, source))
        assert first == second, "%s: first %s\nsecond %s" % (
            srv.binary, first, second)
        seen.append(first)
    assert seen[0] == seen[1], "ours %s\nreference %s" % tuple(seen)
    return seen[0]


def test_nsdname_nxdomain_not_ad(pair):
    v = both(pair, "www.example.sec1.", "A", do=True)
    assert v[0] == "NXDOMAIN" and "AA" in v[1] and "AD" not in v[1], v
    assert v[4] == [] and v[5] == [], v


def test_nsdname_wildcard_nodata(pair):
    v = both(pair, "www.ed25519.sec1.", "A")
    assert v[0] == "NOERROR" and v[4] == [] and "AA" in v[1], v


def test_nsdname_local_data(pair):
    v = both(pair, "www.rsasha512.sec1.", "A")
    assert v[4] == ["www.rsasha512.sec1. A 10.5.5.5"], v
    v = both(pair, "txt.rsasha512.sec1.", "TXT")
    assert v[0] == "NOERROR" and v[4] == [], v


def test_nsip_nxdomain(pair):
    v = both(pair, "www.unsigned.sec1.", "A")
    assert v[0] == "NXDOMAIN" and "AA" in v[1], v
    v = both(pair, "www.unsigned.sec2.", "A")
    assert v[0] == "NXDOMAIN", v


def test_nsdname_drop(pair):
    q = dns.message.make_query("www.rsasha1.sec1.", "A", use_edns=0,
                               payload=1232)
    for srv in pair:
        for _ in range(2):
            with pytest.raises(dns.exception.Timeout):
                srv.query(q, timeout=1.0 * SLOW)


def test_names_beside_resolve(pair):
    # a zone on the same servers but no trigger for its NS name (the
    # NSIP trigger is for another host), and the TLD's own names
    v = both(pair, "www.rsasha256.sec1.", "A", do=True)
    assert v[4][0] == "www.rsasha256.sec1. A 192.0.2.13", v
    assert "AD" in v[1], v
    v = both(pair, "www.sec1.", "A")
    assert v[4] == ["www.sec1. A 192.0.2.1"], v


def rpz_stats(srv):
    out = ctl(srv.conf, "stats_noreset", binary=srv.ctl_bin)
    assert out.returncode == 0, out.stderr
    return {k: int(v) for k, v in stats_dict(out.stdout).items()
            if k.startswith("num.rpz.")}


def test_counted_and_logged(pair):
    before = [rpz_stats(s) for s in pair]
    both(pair, "nx.example.sec1.", "A")
    for srv, b in zip(pair, before):
        a = rpz_stats(srv)
        key = "num.rpz.action.rpz-nxdomain"
        assert a[key] == b.get(key, 0) + 2, (srv.binary, b, a)
    pat = re.compile(r"rpz: applied \[ns\] nsdname ns\.example\.sec1\. "
                     r"rpz-nxdomain .*nx\.example\.sec1\. A IN")
    for srv in pair:
        deadline = time.time() + 5 * SLOW
        while not pat.search(srv.log()) and time.time() < deadline:
            time.sleep(0.05)
        assert pat.search(srv.log()), (srv.binary, srv.log()[-3000:])


def test_rpz_tags(pair):
    # compat: unbound-1.17: a zone with tags: applies to the clients
    # whose access-control-tag shares one; others get the real answer,
    # also when it is cached (asked first from an untagged client)
    name = "www.insec."
    v = both(pair, name, "A")
    assert v[0] == "NOERROR" and v[4] == [name + " A 192.0.2.9"], v
    v = both(pair, name, "A", source="127.0.0.7")
    assert v[0] == "NXDOMAIN" and "AA" in v[1], v
    v = both(pair, name, "A")
    assert v[4] == [name + " A 192.0.2.9"], v


def test_for_downstream(pair):
    # compat: unbound-1.17: the rpz: zone with for-downstream: yes is
    # answered to clients as an auth zone (its own records, AA)
    v = both(pair, "rpz.tag.", "SOA")
    assert v[0] == "NOERROR" and "AA" in v[1], v
    assert v[4] == ["rpz.tag. SOA ns.rpz.tag. admin.rpz.tag. 1 3600 600 "
                    "86400 60"], v
    v = both(pair, "www.insec.rpz.tag.", "CNAME")
    assert v[4] == ["www.insec.rpz.tag. CNAME ."], v
    # the zone without it is not answered from its data
    v = both(pair, "rpz.ns.", "SOA")
    assert "AA" not in v[1], v
