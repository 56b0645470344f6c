# SPDX-License-Identifier: BSD-3-Clause
"""ip-dscp: the DSCP in the DS field (IPv4 TOS) of the daemon's packets,
side by side with Debian's Unbound 1.17: the reply to a client over UDP
and the query to an upstream, each read back from the datagram that
came (IP_RECVTOS); without the option both are 0. Out-of-range values
are refused by unbound-checkconf."""
import socket
import subprocess
import threading

import dns.flags
import dns.message
import dns.rdatatype
import dns.rrset
import pytest

from conftest import (CHECKCONF_BIN, RefServer, Server, _finish,
                      make_query)

DSCP = 10           # AF11: TOS byte 0x28
ZONE = "dscp.test."


def recv_with_tos(sock, timeout):
    """(datagram, its TOS byte, source) from sock (IP_RECVTOS set)."""
    sock.settimeout(timeout)
    data, anc, _, src = sock.recvmsg(65535, socket.CMSG_SPACE(4))
    tos = None
    for level, kind, val in anc:
        if level == socket.IPPROTO_IP and kind == socket.IP_TOS:
            tos = val[0]
    return data, tos, src


class TosUpstream:
    """The server of ZONE: notes the TOS of each query, answers A."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.IPPROTO_IP, socket.IP_RECVTOS, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.tos = []
        self.done = False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while not self.done:
            try:
                wire, tos, src = recv_with_tos(self.sock, 0.2)
                q = dns.message.from_wire(wire)
            except socket.timeout:
                continue
            except Exception:
                if self.done:
                    return
                continue
            self.tos.append(tos)
            r = dns.message.make_response(q)
            r.flags |= dns.flags.AA
            if q.question[0].rdtype == dns.rdatatype.A:
                r.answer.append(dns.rrset.from_text(
                    q.question[0].name, 300, "IN", "A", "192.0.2.9"))
            self.sock.sendto(r.to_wire(), src)

    def close(self):
        self.done = True
        self.thread.join(5)
        self.sock.close()


def start(cls, tmp_path_factory, name, dscp):
    up = TosUpstream()
    srv = cls(tmp_path_factory.mktemp(name))
    body = ('local-zone: "test." nodefault\ndomain-insecure: "test."\n'
            'qname-minimisation: no\n')
    if dscp:
        body += "ip-dscp: %d\n" % dscp
    srv.start(body, extra='stub-zone:\n\tname: "%s"\n'
              '\tstub-addr: 127.0.0.1@%d\n' % (ZONE, up.port))
    srv.up = up
    return srv


@pytest.fixture(scope="module",
                params=["ours", "reference", "ours-unset"])
def srv(request, tmp_path_factory):
    cls = RefServer if request.param == "reference" else Server
    dscp = 0 if request.param.endswith("unset") else DSCP
    s = start(cls, tmp_path_factory, request.param, dscp)
    s.dscp = dscp
    yield s
    _finish(s)
    s.up.close()


def test_reply_and_upstream_query_carry_the_dscp(srv):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_RECVTOS, 1)
        sock.sendto(make_query("www." + ZONE, "A").to_wire(),
                    ("127.0.0.1", srv.port))
        wire, tos, _ = recv_with_tos(sock, 5.0)
    finally:
        sock.close()
    r = dns.message.from_wire(wire)
    assert [rd.to_text() for rr in r.answer for rd in rr] == ["192.0.2.9"]
    assert tos == srv.dscp << 2, "reply TOS %r" % tos
    assert srv.up.tos and set(srv.up.tos) == {srv.dscp << 2}, srv.up.tos


@pytest.mark.parametrize("checkconf", [CHECKCONF_BIN,
                                       "/usr/sbin/unbound-checkconf"],
                         ids=["ours", "reference"])
def test_range_checked(tmp_path, checkconf):
    """0-63, as Unbound's parser ("value too large (max 63)")."""
    for value, ok in (("63", True), ("64", False), ("-1", False)):
        conf = tmp_path / "u.conf"
        conf.write_text("server:\n\tip-dscp: %s\n" % value)
        p = subprocess.run([checkconf, str(conf)], capture_output=True,
                           text=True, timeout=10)
        assert (p.returncode == 0) == ok, (value, p.stdout + p.stderr)
