# SPDX-License-Identifier: BSD-3-Clause
"""interface: given as an interface name ("lo", "lo@PORT"): the daemon
listens on every address the interface has, as Unbound does; side by
side with Debian's Unbound 1.17, which has the same."""
import dns.query
import pytest

from conftest import (HAVE_IPV6, RefServer, Server, answer_texts, free_port,
                      make_query, sockets_on_port)

LOCAL = 'local-data: "www.ifname.test. A 192.0.2.7"'
WANT = ["www.ifname.test. A 192.0.2.7"]


class NamedIfServer(Server):
    """A Server whose interfaces are given by name only: the harness's
    fixed "interface: 127.0.0.1" line is left out."""

    def config_text(self, body="", **kw):
        return super().config_text(body, **kw).replace(
            "\tinterface: 127.0.0.1\n", "")


def make(cls, tmpdir, other):
    class S(NamedIfServer, cls):
        pass
    srv = S(tmpdir)
    srv.start(LOCAL + "\ninterface: lo\ninterface: lo@%d" % other)
    return srv


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    """(ours, Debian's Unbound, the @port each listens on besides)."""
    servers = []
    try:
        for cls in (Server, RefServer):
            other = free_port()
            servers.append((make(cls, tmp_path_factory.mktemp("ifn"),
                                 other), other))
        yield servers
    finally:
        for srv, _ in servers:
            srv.stop()


def ask(addr, port, tcp=False):
    q = make_query("www.ifname.test.")
    if tcp:
        return dns.query.tcp(q, addr, port=port, timeout=2)
    return dns.query.udp(q, addr, port=port, timeout=2)


@pytest.mark.parametrize("tcp", [False, True])
def test_interface_name_binds_its_ipv4_address(pair, tcp):
    for srv, other in pair:
        for port in (srv.port, other):
            assert answer_texts(ask("127.0.0.1", port, tcp)) == WANT, \
                srv.binary


@pytest.mark.skipif(not HAVE_IPV6, reason="::1 not available")
@pytest.mark.parametrize("tcp", [False, True])
def test_interface_name_binds_its_ipv6_address(pair, tcp):
    for srv, other in pair:
        for port in (srv.port, other):
            assert answer_texts(ask("::1", port, tcp)) == WANT, srv.binary


def test_interface_name_sockets_as_unbound(pair):
    """lo has 127.0.0.1 (and ::1): one UDP socket per address on each
    port, as Debian's Unbound opens."""
    counts = []
    for srv, other in pair:
        counts.append([len(sockets_on_port(p, "udp", srv.pid))
                       for p in (srv.port, other)])
    assert counts[0] == counts[1]
    assert counts[0][0] == (2 if HAVE_IPV6 else 1)


def test_unknown_interface_name_refused(tmp_path):
    """A name no interface has is refused at start with Unbound's
    message."""
    srv = NamedIfServer(tmp_path)
    rc, out = srv.start_expecting_exit("interface: nosuch-if0")
    assert rc not in (0, None), out[-2000:]
    assert "cannot parse interface specified as 'nosuch-if0'" in out
