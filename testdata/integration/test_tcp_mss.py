# SPDX-License-Identifier: BSD-3-Clause
"""tcp-mss and outgoing-tcp-mss (TCP_MAXSEG), side by side with Debian's
Unbound 1.17, on loopback (MTU 65536: without the options the MSS a
peer reads is over 10000). Read back from the peer of each connection: a client of
the TCP and TLS ports reads the segment size it may send (the MSS the
daemon's SYN-ACK advertised, less the timestamp option), and a TCP
upstream (tcp-upstream: yes) the size of the daemon's SYN. A value the
kernel refuses is an error in the log and the port still serves."""
import os
import signal
import socket
import subprocess
import threading
import time

import dns.flags
import dns.message
import dns.rdatatype
import dns.rrset
import pytest

from conftest import (CHECKCONF_BIN, SLOW, RefServer, Server, _finish,
                      free_port, make_query, recv_tcp_msg, tcp_frame)

LISTEN_MSS = 1000
OUT_MSS = 800
ZONE = "mss.test."


def in_range(mss, wanted):
    """The MSS the peer reads: the advertised one, less TCP options
    (12 bytes of timestamps on Linux) when wanted is set; the loopback
    MTU's otherwise."""
    if wanted:
        return wanted - 40 <= mss <= wanted
    return mss > 10000


class TcpUpstream:
    """The server of ZONE over TCP: notes the MSS of each connection
    the daemon opens, answers one A query on it and closes it (so the
    next query opens a new one)."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.mss = []
        self.done = False
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        while not self.done:
            try:
                c, _ = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            self.mss.append(c.getsockopt(socket.IPPROTO_TCP,
                                         socket.TCP_MAXSEG))
            threading.Thread(target=self._serve, args=(c,),
                             daemon=True).start()

    def _serve(self, c):
        c.settimeout(5)
        try:
            if not self.done:
                q = dns.message.from_wire(recv_tcp_msg(c))
                r = dns.message.make_response(q)
                r.flags |= dns.flags.AA
                if q.question[0].rdtype == dns.rdatatype.A:
                    r.answer.append(dns.rrset.from_text(
                        q.question[0].name, 300, "IN", "A", "192.0.2.7"))
                c.sendall(tcp_frame(r.to_wire()))
        except Exception:
            pass
        finally:
            c.close()

    def close(self):
        self.done = True
        self.thread.join(5)
        self.sock.close()


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("mss-pki"))
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec",
                    "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-keyout", "k.key", "-out", "c.pem", "-days", "2",
                    "-subj", "/CN=mss.test"], cwd=d, check=True,
                   capture_output=True)
    return os.path.join(d, "k.key"), os.path.join(d, "c.pem")


@pytest.fixture(scope="module",
                params=["ours", "reference", "ours-unset"])
def srv(request, tmp_path_factory, tls_files):
    cls = RefServer if request.param == "reference" else Server
    unset = request.param.endswith("unset")
    up = TcpUpstream()
    s = cls(tmp_path_factory.mktemp(request.param))
    s.tls_port = free_port()
    s.listen_mss = 0 if unset else LISTEN_MSS
    s.out_mss = 0 if unset else OUT_MSS
    s.up = up
    body = ('local-zone: "test." nodefault\ndomain-insecure: "test."\n'
            "qname-minimisation: no\ntcp-upstream: yes\n"
            "interface: 127.0.0.1@%d\ntls-port: %d\n"
            'tls-service-key: "%s"\ntls-service-pem: "%s"\n'
            % ((s.tls_port, s.tls_port) + tls_files))
    if not unset:
        body += "tcp-mss: %d\noutgoing-tcp-mss: %d\n" % (LISTEN_MSS,
                                                         OUT_MSS)
    try:
        s.start(body, extra='stub-zone:\n\tname: "%s"\n'
                '\tstub-addr: 127.0.0.1@%d\n' % (ZONE, up.port))
        yield s
    finally:
        _finish(s)
        up.close()


def connected_mss(port):
    c = socket.create_connection(("127.0.0.1", port), timeout=5)
    return c, c.getsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG)


def test_tcp_port_and_upstream_connection(srv):
    """A client of the TCP port gets the listener's MSS; the query it
    sends goes upstream over a TCP connection with the outgoing one."""
    c, mss = connected_mss(srv.port)
    try:
        assert in_range(mss, srv.listen_mss), mss
        c.sendall(tcp_frame(make_query("www." + ZONE, "A").to_wire()))
        r = dns.message.from_wire(recv_tcp_msg(c))
    finally:
        c.close()
    assert [rd.to_text() for rr in r.answer for rd in rr] == ["192.0.2.7"]
    assert srv.up.mss, "no TCP connection upstream"
    assert all(in_range(m, srv.out_mss) for m in srv.up.mss), srv.up.mss


def test_tls_port(srv):
    c, mss = connected_mss(srv.tls_port)
    c.close()
    assert in_range(mss, srv.listen_mss), mss


@pytest.mark.parametrize("cls", [Server, RefServer],
                         ids=["ours", "reference"])
def test_refused_value_logged_port_serves(cls, tmp_path):
    """Linux refuses an MSS under 88: an error in the log, the TCP port
    still answers (with the system's MSS)."""
    s = cls(tmp_path)
    try:
        s.start('local-data: "mss.test. A 192.0.2.1"\ntcp-mss: 10\n')
        c, mss = connected_mss(s.port)
        c.close()
        assert in_range(mss, 0), mss
        r = s.query("mss.test.", "A", tcp=True)
        assert [rd.to_text() for rr in r.answer for rd in rr] == \
            ["192.0.2.1"], r
        assert "setsockopt(.. TCP_MAXSEG ..) failed: Invalid argument" \
            in s.output(), s.output()[-2000:]
    finally:
        _finish(s)


@pytest.mark.parametrize("cls", [Server, RefServer],
                         ids=["ours", "reference"])
def test_outgoing_mss_taken_at_reload(cls, tmp_path):
    """outgoing-tcp-mss added by a reload (SIGHUP): connections opened
    after it carry it."""
    up = TcpUpstream()
    s = cls(tmp_path)
    body = ('local-zone: "test." nodefault\ndomain-insecure: "test."\n'
            "qname-minimisation: no\ntcp-upstream: yes\n")
    extra = ('stub-zone:\n\tname: "%s"\n\tstub-addr: 127.0.0.1@%d\n'
             % (ZONE, up.port))
    try:
        s.start(body, extra=extra)
        s.query("a." + ZONE, timeout=3 * SLOW)
        assert up.mss and in_range(up.mss[-1], 0), up.mss
        s.write_config(body + "outgoing-tcp-mss: %d\n" % OUT_MSS,
                       extra=extra)
        s.send_signal(signal.SIGHUP)
        deadline = time.time() + 5 * SLOW
        i = 0
        while not in_range(up.mss[-1], OUT_MSS):
            assert time.time() < deadline, up.mss
            i += 1
            try:
                s.query("b%d.%s" % (i, ZONE), timeout=0.5)
            except Exception:   # the reload is under way
                time.sleep(0.05)
    finally:
        _finish(s)
        up.close()


@pytest.mark.parametrize("cls,mss", [(Server, OUT_MSS), (Server, 0)],
                         ids=["ours", "ours-unset"])
def test_outgoing_mss_on_zone_transfer(cls, mss, tmp_path):
    """An auth-zone's transfer connection to its primary carries
    outgoing-tcp-mss, as Unbound sets it on every outgoing TCP socket
    (its outnet_comm_point_for_tcp, which auth-zone transfers use; the
    primary answers no UDP probe, so ours tries the transfer over TCP
    at once). Debian's Unbound is not run: with no probe answered it
    opened no transfer connection within 30 s."""
    up = TcpUpstream()
    s = cls(tmp_path)
    body = "outgoing-tcp-mss: %d\n" % mss if mss else ""
    try:
        s.start(body, extra='auth-zone:\n\tname: "xfr.%s"\n'
                '\tprimary: 127.0.0.1@%d\n' % (ZONE, up.port))
        deadline = time.time() + 10 * SLOW
        while not up.mss:
            assert time.time() < deadline, "no transfer connection"
            time.sleep(0.05)
        assert in_range(up.mss[0], mss), up.mss
    finally:
        _finish(s)
        up.close()


@pytest.mark.parametrize("checkconf", [CHECKCONF_BIN,
                                       "/usr/sbin/unbound-checkconf"],
                         ids=["ours", "reference"])
def test_checkconf_values(tmp_path, checkconf):
    """Any integer, as Unbound's parser (atoi, 0 only as "0")."""
    for name in ("tcp-mss", "outgoing-tcp-mss"):
        for value, ok in (("0", True), ("1220", True), ("-1", True),
                          ("x", False)):
            conf = tmp_path / "u.conf"
            conf.write_text("server:\n\t%s: %s\n" % (name, value))
            p = subprocess.run([checkconf, str(conf)], capture_output=True,
                               text=True, timeout=10)
            assert (p.returncode == 0) == ok, (name, value,
                                               p.stdout + p.stderr)
