# SPDX-License-Identifier: BSD-3-Clause
"""local-zone types, local-data, local-data-ptr and the default zones."""
import os

import pytest

from conftest import (DEB_UNBOUND, RefServer, Server, _finish,
                      answer_texts, assert_dropped,
                      assert_recursion, rcode_of)

ZONES = """
local-zone: "static.test." static
local-data: "static.test. SOA ns.static.test. admin.static.test. 1 3600 600 86400 300"
local-data: "www.static.test. A 192.0.2.1"
local-data: "www.static.test. A 192.0.2.2"
local-data: 'txt.static.test. TXT "hello world"'
local-zone: "transp.test." transparent
local-data: "www.transp.test. A 192.0.2.10"
local-zone: "typet.test." typetransparent
local-data: "www.typet.test. A 192.0.2.20"
local-zone: "redir.test." redirect
local-data: "redir.test. A 192.0.2.30"
local-zone: "refuse.test." refuse
local-data: "ok.refuse.test. A 192.0.2.40"
local-zone: "deny.test." deny
local-data: "ok.deny.test. A 192.0.2.50"
local-zone: "inform.test." inform
local-data: "ok.inform.test. A 192.0.2.60"
local-zone: "informdeny.test." inform_deny
local-zone: "alwaystransp.test." always_transparent
local-data: "www.alwaystransp.test. A 192.0.2.70"
local-zone: "alwaysrefuse.test." always_refuse
local-data: "www.alwaysrefuse.test. A 192.0.2.80"
local-zone: "alwaysnx.test." always_nxdomain
local-data: "www.alwaysnx.test. A 192.0.2.90"
local-zone: "alwaysnodata.test." always_nodata
local-data: "www.alwaysnodata.test. A 192.0.2.100"
local-zone: "alwaysnull.test." always_null
local-data: "plain.test. A 192.0.2.110"
local-data: "mx.plain.test. MX 10 mail.plain.test."
local-data-ptr: "192.0.2.123 host.ptr.test."
local-data-ptr: "2001:db8::7 host6.ptr.test."
"""


@pytest.fixture
def zones(unbound, upstream):
    """The daemon with ZONES, `upstream` as its root server."""
    unbound.start(ZONES, verbosity=1, extra=upstream.stub_zone(
        "transp.test.", "typet.test.", "inform.test.", "alwaystransp.test."))
    unbound.up = upstream
    return unbound


def test_static_answers_local_data(zones):
    r = zones.query("www.static.test.", "A")
    assert rcode_of(r) == "NOERROR"
    assert answer_texts(r) == ["www.static.test. A 192.0.2.1",
                               "www.static.test. A 192.0.2.2"]


def test_static_tcp_same_answer(zones):
    r = zones.query("www.static.test.", "A", tcp=True)
    assert answer_texts(r) == ["www.static.test. A 192.0.2.1",
                               "www.static.test. A 192.0.2.2"]


def test_static_txt(zones):
    r = zones.query("txt.static.test.", "TXT")
    assert answer_texts(r) == ['txt.static.test. TXT "hello world"']


def test_static_nxdomain_with_soa(zones):
    r = zones.query("nothere.static.test.", "A")
    assert rcode_of(r) == "NXDOMAIN"
    assert not r.answer
    assert [rr.rdtype for rr in r.authority] == [6]  # SOA


def test_static_nodata(zones):
    r = zones.query("www.static.test.", "AAAA")
    assert rcode_of(r) == "NOERROR"
    assert not r.answer
    assert [rr.rdtype for rr in r.authority] == [6]


def test_static_flags(zones):
    r = zones.query("www.static.test.", "A")
    flags = r.flags
    assert flags & 0x8000  # QR
    assert flags & 0x0400  # AA: local data is authoritative
    assert flags & 0x0100  # RD copied
    assert flags & 0x0080  # RA


def test_transparent(zones):
    r = zones.query("www.transp.test.", "A")
    assert answer_texts(r) == ["www.transp.test. A 192.0.2.10"]
    # name with local data, other type: nodata
    r = zones.query("www.transp.test.", "AAAA")
    assert rcode_of(r) == "NOERROR" and not r.answer
    # other name: resolved normally
    assert_recursion(zones, zones.up, "other.transp.test.", "A")


def test_typetransparent(zones):
    r = zones.query("www.typet.test.", "A")
    assert answer_texts(r) == ["www.typet.test. A 192.0.2.20"]
    # same name, other type: resolved normally (not nodata)
    assert_recursion(zones, zones.up, "www.typet.test.", "AAAA")
    assert_recursion(zones, zones.up, "other.typet.test.", "A")


def test_redirect(zones):
    r = zones.query("www.redir.test.", "A")
    assert answer_texts(r) == ["www.redir.test. A 192.0.2.30"]
    r = zones.query("a.b.c.redir.test.", "A")
    assert answer_texts(r) == ["a.b.c.redir.test. A 192.0.2.30"]
    r = zones.query("redir.test.", "A")
    assert answer_texts(r) == ["redir.test. A 192.0.2.30"]


def test_refuse(zones):
    r = zones.query("x.refuse.test.", "A")
    assert rcode_of(r) == "REFUSED"
    r = zones.query("ok.refuse.test.", "A")
    assert answer_texts(r) == ["ok.refuse.test. A 192.0.2.40"]


def test_deny(zones):
    assert_dropped(zones, "x.deny.test.", "A")
    r = zones.query("ok.deny.test.", "A")
    assert answer_texts(r) == ["ok.deny.test. A 192.0.2.50"]


def test_inform_logs_and_answers(zones):
    r = zones.query("ok.inform.test.", "A")
    assert answer_texts(r) == ["ok.inform.test. A 192.0.2.60"]
    assert_recursion(zones, zones.up, "x.inform.test.", "A")
    log = zones.log()
    assert "inform.test. inform 127.0.0.1@" in log, log
    assert "x.inform.test. A IN" in log, log


def test_inform_deny_logs_and_drops(zones):
    assert_dropped(zones, "x.informdeny.test.", "A")
    log = zones.log()
    assert "informdeny.test. inform_deny 127.0.0.1@" in log, log
    assert "x.informdeny.test. A IN" in log, log


def test_always_transparent_ignores_local_data(zones):
    # the local-data name resolves normally too
    assert_recursion(zones, zones.up, "www.alwaystransp.test.", "A")
    assert_recursion(zones, zones.up, "x.alwaystransp.test.", "A")


def test_always_refuse(zones):
    assert rcode_of(zones.query("www.alwaysrefuse.test.", "A")) == "REFUSED"
    assert rcode_of(zones.query("x.alwaysrefuse.test.", "A")) == "REFUSED"


def test_always_nxdomain(zones):
    for name in ("www.alwaysnx.test.", "x.alwaysnx.test.", "alwaysnx.test."):
        r = zones.query(name, "A")
        assert rcode_of(r) == "NXDOMAIN", name
        assert not r.answer


def test_always_nodata(zones):
    for name in ("www.alwaysnodata.test.", "x.alwaysnodata.test."):
        r = zones.query(name, "A")
        assert rcode_of(r) == "NOERROR", name
        assert not r.answer, name


def test_always_null(zones):
    r = zones.query("x.alwaysnull.test.", "A")
    assert answer_texts(r) == ["x.alwaysnull.test. A 0.0.0.0"]
    r = zones.query("alwaysnull.test.", "AAAA")
    assert answer_texts(r) == ["alwaysnull.test. AAAA ::"]
    r = zones.query("x.alwaysnull.test.", "MX")
    assert rcode_of(r) == "NOERROR" and not r.answer


def test_local_data_without_zone_is_transparent(zones):
    # local-data outside any local-zone makes a transparent zone
    r = zones.query("plain.test.", "A")
    assert answer_texts(r) == ["plain.test. A 192.0.2.110"]
    r = zones.query("mx.plain.test.", "MX")
    assert answer_texts(r) == ["mx.plain.test. MX 10 mail.plain.test."]
    r = zones.query("plain.test.", "AAAA")
    assert rcode_of(r) == "NOERROR" and not r.answer


def test_local_data_ptr(zones):
    r = zones.query("123.2.0.192.in-addr.arpa.", "PTR")
    assert answer_texts(r) == ["123.2.0.192.in-addr.arpa. PTR host.ptr.test."]
    name6 = ("7.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0."
             "8.b.d.0.1.0.0.2.ip6.arpa.")
    r = zones.query(name6, "PTR")
    assert answer_texts(r) == [name6 + " PTR host6.ptr.test."]


def test_case_insensitive_qname(zones):
    r = zones.query("WwW.StAtIc.TeSt.", "A")
    assert rcode_of(r) == "NOERROR"
    assert len(r.answer) == 1 and len(r.answer[0]) == 2
    # the question is echoed as sent
    assert r.question[0].name.to_text() == "WwW.StAtIc.TeSt."


# -- default zones -------------------------------------------------------

def test_default_localhost(unbound):
    unbound.start()
    r = unbound.query("localhost.", "A")
    assert answer_texts(r) == ["localhost. A 127.0.0.1"]
    r = unbound.query("localhost.", "AAAA")
    assert answer_texts(r) == ["localhost. AAAA ::1"]
    # localhost. is a redirect zone
    r = unbound.query("foo.localhost.", "A")
    assert answer_texts(r) == ["foo.localhost. A 127.0.0.1"]


def test_default_reverse_loopback(unbound):
    unbound.start()
    r = unbound.query("1.0.0.127.in-addr.arpa.", "PTR")
    assert answer_texts(r) == ["1.0.0.127.in-addr.arpa. PTR localhost."]
    name6 = "1." + "0." * 31 + "ip6.arpa."
    r = unbound.query(name6, "PTR")
    assert answer_texts(r) == [name6 + " PTR localhost."]


def test_default_rfc1918_reverse_nxdomain(unbound):
    unbound.start()
    for name in ("1.0.168.192.in-addr.arpa.", "5.4.3.10.in-addr.arpa.",
                 "1.1.16.172.in-addr.arpa."):
        r = unbound.query(name, "PTR")
        assert rcode_of(r) == "NXDOMAIN", name
        assert [rr.rdtype for rr in r.authority] == [6], name


def test_default_other_special_zones(unbound):
    unbound.start()
    for name in ("foo.onion.", "foo.test.", "foo.invalid.", "x.home.arpa."):
        r = unbound.query(name, "A")
        assert rcode_of(r) == "NXDOMAIN", name


def test_unblock_lan_zones(unbound, upstream):
    unbound.start("unblock-lan-zones: yes",
                  extra=upstream.stub_zone("168.192.in-addr.arpa."))
    # no longer answered locally: goes to recursion
    assert_recursion(unbound, upstream, "1.0.168.192.in-addr.arpa.", "PTR")


def test_nodefault(unbound, upstream):
    unbound.start('local-zone: "localhost." nodefault\n'
                  'local-zone: "10.in-addr.arpa." nodefault',
                  extra=upstream.stub_zone("localhost.", "10.in-addr.arpa."))
    assert_recursion(unbound, upstream, "localhost.", "A")
    assert_recursion(unbound, upstream, "5.4.3.10.in-addr.arpa.", "PTR")
    # others stay
    r = unbound.query("1.0.168.192.in-addr.arpa.", "PTR")
    assert rcode_of(r) == "NXDOMAIN"


def test_user_zone_overrides_default(unbound):
    unbound.start('local-zone: "10.in-addr.arpa." static\n'
                  'local-data-ptr: "10.1.2.3 box.lan."')
    r = unbound.query("3.2.1.10.in-addr.arpa.", "PTR")
    assert answer_texts(r) == ["3.2.1.10.in-addr.arpa. PTR box.lan."]


# CAA (and URI) local data as users write it: the value after the tag with or
# without double quotes (RFC 8659 allows both), the quotes escaped
# inside a double-quoted local-data (they are then part of the value,
# as Unbound's parser has it), or in single quotes around the line.
CAA_DATA = """
local-data: "caa1.test. CAA 0 issue letsencrypt.org"
local-data: "caa2.test. CAA 128 iodef mailto:hostmaster@example.org"
local-data: "caa3.test. 3600 IN CAA 0 issue \\"ca.example.net\\""
local-data: 'caa4.test. CAA 0 issue "ca.example.net"'
local-data: "_http._tcp.uri.test. URI 10 1 http://www.example.org/"
"""
CAA_WANT = {
    "caa1.test.": ['0 issue "letsencrypt.org"'],
    "caa2.test.": ['128 iodef "mailto:hostmaster@example.org"'],
    "caa3.test.": ['0 issue "\\"ca.example.net\\""'],
    "caa4.test.": ['0 issue "ca.example.net"'],
}
URI_WANT = ('_http._tcp.uri.test. URI 10 1 "http://www.example.org/"')


@pytest.mark.parametrize("daemon", ["ours", "reference"])
def test_caa_value_quoted_or_not(tmp_path, daemon):
    """A CAA value (or a URI target) without quotes once made the
    daemon refuse the config (its RR parser wants them); Unbound 1.17
    takes it."""
    if daemon == "reference" and not os.access(DEB_UNBOUND, os.X_OK):
        pytest.skip("Debian's unbound is not installed")
    srv = (Server if daemon == "ours" else RefServer)(tmp_path)
    try:
        srv.start(CAA_DATA)
        for name, want in CAA_WANT.items():
            r = srv.query(name, "CAA")
            assert rcode_of(r) == "NOERROR", r
            assert answer_texts(r) == ["%s CAA %s" % (name, w)
                                       for w in want], r
        r = srv.query("_http._tcp.uri.test.", "URI")
        assert answer_texts(r) == [URI_WANT], r
    finally:
        _finish(srv)
