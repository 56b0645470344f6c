# SPDX-License-Identifier: BSD-3-Clause
"""access-control actions.

Every client is on loopback, so the tests send from 127.0.0.2 (the whole
of 127.0.0.0/8 is local on Linux) with an access-control line for
127.0.0.2/32, while the harness itself polls from 127.0.0.1, which the
built-in default (127.0.0.0/8 allow) keeps allowed."""
import socket

import pytest

from conftest import (answer_texts, assert_dropped, assert_recursion,
                      make_query, needs_ipv6, rcode_of, recv_tcp_msg,
                      tcp_frame)

CLIENT = "127.0.0.2"
LOCAL = """
local-zone: "acl.test." static
local-data: "www.acl.test. A 192.0.2.1"
"""


def start(srv, action, extra="", up=None):
    """up: an Upstream, the daemon's root server (for assert_recursion)."""
    return srv.start(LOCAL + "access-control: %s/32 %s\n%s" %
                     (CLIENT, action, extra),
                     extra=up.stub_zone("example.com.") if up else "")


def ask(srv, name="www.acl.test.", rdtype="A", **kw):
    return srv.query(name, rdtype, source=CLIENT, **kw)


def test_default_allows_localhost(unbound):
    unbound.start(LOCAL)
    for src in ("127.0.0.1", CLIENT):
        r = unbound.query("www.acl.test.", "A", source=src)
        assert answer_texts(r) == ["www.acl.test. A 192.0.2.1"]
        r = unbound.query("www.acl.test.", "A", source=src, tcp=True)
        assert answer_texts(r) == ["www.acl.test. A 192.0.2.1"]


@needs_ipv6
def test_default_allows_ipv6_localhost(unbound6):
    unbound6.start(LOCAL)
    r = unbound6.query("www.acl.test.", "A", v6=True)
    assert answer_texts(r) == ["www.acl.test. A 192.0.2.1"]
    r = unbound6.query("www.acl.test.", "A", v6=True, tcp=True)
    assert answer_texts(r) == ["www.acl.test. A 192.0.2.1"]


def test_allow(unbound, upstream):
    start(unbound, "allow", up=upstream)
    assert answer_texts(ask(unbound)) == ["www.acl.test. A 192.0.2.1"]
    assert rcode_of(ask(unbound, "x.acl.test.")) == "NXDOMAIN"
    # local data is served to RD=0 queries too
    assert answer_texts(ask(unbound, rd=False)) == [
        "www.acl.test. A 192.0.2.1"]
    # a non-local RD=0 query is not recursed for: REFUSED
    r = ask(unbound, "www.example.com.", rd=False)
    assert rcode_of(r) == "REFUSED"
    assert_recursion(unbound, upstream, "www.example.com.", source=CLIENT)


def test_deny_drops_udp(unbound):
    start(unbound, "deny")
    assert_dropped(unbound, "www.acl.test.", source=CLIENT)
    assert_dropped(unbound, "version.bind.", "TXT", rdclass="CH",
                   source=CLIENT)
    # others are still served
    r = unbound.query("www.acl.test.", "A")
    assert answer_texts(r) == ["www.acl.test. A 192.0.2.1"]


def test_deny_tcp_gets_no_answer(unbound):
    start(unbound, "deny")
    try:
        s = unbound.tcp_connect(timeout=1.5, source=CLIENT)
    except OSError:
        return  # refusing the connection is fine too
    with s:
        s.sendall(tcp_frame(make_query("www.acl.test.").to_wire()))
        try:
            assert recv_tcp_msg(s) is None
        except (socket.timeout, ConnectionResetError):
            pass


def test_refuse(unbound):
    start(unbound, "refuse")
    r = ask(unbound)
    assert rcode_of(r) == "REFUSED" and not r.answer
    assert rcode_of(ask(unbound, tcp=True)) == "REFUSED"
    r = ask(unbound, "version.bind.", "TXT", rdclass="CH")
    assert rcode_of(r) == "REFUSED"
    assert answer_texts(unbound.query("www.acl.test.", "A")) == [
        "www.acl.test. A 192.0.2.1"]


def test_allow_snoop(unbound, upstream):
    start(unbound, "allow_snoop", up=upstream)
    assert answer_texts(ask(unbound, rd=False)) == [
        "www.acl.test. A 192.0.2.1"]
    # RD=0 for a non-local name is looked up (cache snooping), not REFUSED
    assert_recursion(unbound, upstream, "www.example.com.", rd=False,
                     source=CLIENT)


def test_allow_setrd(unbound, upstream):
    start(unbound, "allow_setrd", up=upstream)
    r = ask(unbound, rd=False)
    assert answer_texts(r) == ["www.acl.test. A 192.0.2.1"]
    # RD=0 is treated as RD=1: resolved, not REFUSED
    assert_recursion(unbound, upstream, "www.example.com.", rd=False,
                     source=CLIENT)


def test_deny_non_local(unbound):
    start(unbound, "deny_non_local")
    assert answer_texts(ask(unbound)) == ["www.acl.test. A 192.0.2.1"]
    # inside the local zone: the local answer (NXDOMAIN) is given
    assert rcode_of(ask(unbound, "x.acl.test.")) == "NXDOMAIN"
    assert_dropped(unbound, "www.example.com.", source=CLIENT)


def test_refuse_non_local(unbound):
    start(unbound, "refuse_non_local")
    assert answer_texts(ask(unbound)) == ["www.acl.test. A 192.0.2.1"]
    assert answer_texts(ask(unbound, tcp=True)) == [
        "www.acl.test. A 192.0.2.1"]
    r = ask(unbound, "www.example.com.")
    assert rcode_of(r) == "REFUSED"


def test_most_specific_netblock_wins(unbound):
    unbound.start(LOCAL + "access-control: 127.0.0.0/8 refuse\n"
                  "access-control: 127.0.0.1/32 allow\n"
                  "access-control: 127.0.0.3/32 deny\n")
    assert answer_texts(unbound.query("www.acl.test.", "A")) == [
        "www.acl.test. A 192.0.2.1"]
    assert rcode_of(ask(unbound)) == "REFUSED"
    assert_dropped(unbound, "www.acl.test.", source="127.0.0.3")


def test_acl_blocks_everything_else(unbound):
    # a netblock that does not include the client: default for 127/8 is
    # still allow, other clients are refused; the client here is local
    unbound.start(LOCAL + "access-control: 10.0.0.0/8 allow")
    assert answer_texts(ask(unbound)) == ["www.acl.test. A 192.0.2.1"]


@pytest.mark.parametrize("action", ["allow", "refuse"])
def test_acl_over_tcp(unbound, action):
    start(unbound, action)
    r = ask(unbound, tcp=True)
    if action == "allow":
        assert answer_texts(r) == ["www.acl.test. A 192.0.2.1"]
    else:
        assert rcode_of(r) == "REFUSED"
