# SPDX-License-Identifier: BSD-3-Clause
"""The dns64 module (RFC 6147) with module-config "dns64 validator
iterator", side by side with Debian's Unbound 1.17 (same options), over
the signed test internet: an IPv4-only name's AAAA synthesised (and the
second ask a cache hit), a name with AAAA records untouched, synthall
(with a /64 prefix: the u octet skipped), ignore-aaaa, a CNAME chain
kept, PTR under the prefix, no AD on synthesised data, CD+DO not
synthesised.

Compared per question: rcode, AD, and the answer section without TTLs.
Where ours differs on purpose, the test says so and checks ours.
Needs nsd, ldnsutils, Debian's unbound and root (port 53); skips
otherwise."""
import dns.flags
import dns.message
import dns.rcode
import dns.rdatatype
import pytest

from conftest import SLOW
from signednet_pair import (SKIP_MARKS, running_pair,  # noqa: F401
                            signednet_net)
from test_control import ctl, stats_dict

pytestmark = SKIP_MARKS

BODY = """module-config: "dns64 validator iterator"
trust-anchor-file: "%s"
do-ip6: no
access-control: 127.0.0.0/8 allow
minimal-responses: yes
"""

V4ONLY = "www.sec1."              # signed, A 192.0.2.1 only
BOTH = "www.example.sec1."        # signed, A and AAAA 2001:db8::101
CHAIN = "chain.example.sec1."     # CNAME to-secure, CNAME www.ed25519.sec1.
UNSIGNED = "www.unsigned.sec1."   # insecure, A 192.0.2.160
PTR6 = ("1.0.2.0.0.0.0.c.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0."
        "b.9.f.f.4.6.0.0.ip6.arpa.")        # 64:ff9b::192.0.2.1
PTR6_2317 = ("0.a.2.0.0.0.0.c.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0."
             "b.9.f.f.4.6.0.0.ip6.arpa.")   # 64:ff9b::192.0.2.160
PTR6_OUTSIDE = ("1.0.2.0.0.0.0.c.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0."
                "8.b.d.0.1.0.0.2.ip6.arpa.")  # 2001:db8::c000:201


def running(net, tmp_path_factory, options):
    """Ours and the reference on BODY and options, with control."""
    return running_pair(net, tmp_path_factory, BODY % net.anchor + options,
                        control=True)


@pytest.fixture(scope="module")
def plain(signednet_net, tmp_path_factory):
    with running(signednet_net, tmp_path_factory, "") as pair:
        yield pair


def ask(srv, qname, qtype, do=False, cd=False):
    q = dns.message.make_query(qname, qtype, use_edns=0, payload=1232,
                               want_dnssec=do)
    if cd:
        q.flags |= dns.flags.CD
    r = srv.query(q, timeout=10.0 * SLOW)
    if r.flags & dns.flags.TC:
        r = srv.query(q, tcp=True, timeout=10.0 * SLOW)
    return r


def view(r):
    """rcode, AD, the answer records as text without TTLs (sorted)."""
    rrs = sorted("%s %s %s" % (rs.name, dns.rdatatype.to_text(rs.rdtype),
                               rd.to_text())
                 for rs in r.answer for rd in rs)
    return (dns.rcode.to_text(r.rcode()), bool(r.flags & dns.flags.AD),
            rrs)


def both(pair, qname, qtype, do=False, cd=False, synth_ad=False):
    """Ours and the reference's views; they must agree. synth_ad: a
    synthesised answer from signed A records, to a DO query: Unbound
    1.17 keeps the A's status and sets AD; ours never does (RFC 6147
    5.5: nothing signed the made records), the rest the same."""
    a = view(ask(pair[0], qname, qtype, do, cd))
    b = view(ask(pair[1], qname, qtype, do, cd))
    if synth_ad:
        assert not a[1] and b[1], "ours %s\nreference %s" % (a, b)
        b = (b[0], a[1], b[2])
    assert a == b, "ours %s\nreference %s" % (a, b)
    return a


def aaaas(v):
    return [x.split()[2] for x in v[2] if x.split()[1] == "AAAA"]


def hits(srv):
    return int(stats_dict(ctl(srv.conf, "stats_noreset",
                              binary=srv.ctl_bin).stdout)
               .get("total.num.cachehits", "0"))


def test_v4only_synthesised_then_cached(plain):
    for do in (False, True):
        v = both(plain, V4ONLY, "AAAA", do=do, synth_ad=do)
        assert v[0] == "NOERROR" and aaaas(v) == ["64:ff9b::c000:201"], v
        # synthesised data is not secure, though the A is
        assert not v[1], v
    # the second ask is answered from the message cache, the same
    for srv in plain:
        before = hits(srv)
        again = view(ask(srv, V4ONLY, "AAAA"))
        assert aaaas(again) == ["64:ff9b::c000:201"], again
        assert hits(srv) == before + 1, srv.binary
    # the A answer itself is still secure
    v = both(plain, V4ONLY, "A", do=True)
    assert v[1], v


def test_name_with_aaaa_untouched(plain):
    v = both(plain, BOTH, "AAAA", do=True)
    assert aaaas(v) == ["2001:db8::101"] and v[1], v


def test_cname_chain_kept(plain):
    v = both(plain, CHAIN, "AAAA")
    types = [x.split()[1] for x in v[2]]
    assert types.count("CNAME") == 2 and len(aaaas(v)) == 1, v
    assert aaaas(v)[0].startswith("64:ff9b::"), v
    v = both(plain, UNSIGNED, "AAAA")
    assert aaaas(v) == ["64:ff9b::c000:2a0"] and not v[1], v


def test_cd_do_not_synthesised(plain):
    # RFC 6147 5.5: CD and DO set: the real (empty) answer
    v = both(plain, V4ONLY, "AAAA", do=True, cd=True)
    assert v[0] == "NOERROR" and aaaas(v) == [], v
    # Unbound 1.17 looks at CD only
    v = both(plain, UNSIGNED, "AAAA", cd=True)
    assert aaaas(v) == [], v


def test_ptr_under_prefix(plain):
    v = both(plain, PTR6, "PTR")
    assert v[0] == "NOERROR" and v[2] == [PTR6 + " PTR www.sec1."], v
    # RFC 2317: the CNAME kept, the PTR renamed
    v = both(plain, PTR6_2317, "PTR")
    assert PTR6_2317 + " PTR www.unsigned.sec1." in v[2], v
    # an ip6.arpa name outside the prefix is not rewritten
    v = both(plain, PTR6_OUTSIDE, "PTR")
    assert v[0] == "NXDOMAIN" and v[2] == [], v


@pytest.fixture(scope="module")
def options(signednet_net, tmp_path_factory):
    with running(signednet_net, tmp_path_factory,
                 "dns64-prefix: 2001:db8:122:344::/64\n"
                 "dns64-ignore-aaaa: example.sec1.\n") as pair:
        yield pair


def test_ignore_aaaa_and_prefix64(options):
    # the AAAA records of names under example.sec1. are ignored; the /64
    # prefix skips the u octet (RFC 6052 2.2)
    v = both(options, BOTH, "AAAA")
    assert aaaas(v) == ["2001:db8:122:344:c0:2:6500:0"], v
    v = both(options, V4ONLY, "AAAA")
    assert aaaas(v) == ["2001:db8:122:344:c0:2:100:0"], v
    # not for CD
    v = both(options, BOTH, "AAAA", cd=True)
    assert aaaas(v) == ["2001:db8::101"], v


@pytest.fixture(scope="module")
def synthall(signednet_net, tmp_path_factory):
    with running(signednet_net, tmp_path_factory,
                 "dns64-synthall: yes\n") as pair:
        yield pair


def test_synthall(synthall):
    v = both(synthall, BOTH, "AAAA")
    assert aaaas(v) == ["64:ff9b::c000:265"] and not v[1], v
    v = both(synthall, V4ONLY, "AAAA")
    assert aaaas(v) == ["64:ff9b::c000:201"], v
