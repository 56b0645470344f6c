# SPDX-License-Identifier: BSD-3-Clause
"""The iterator's choice among a zone's servers, side by side with
Debian's Unbound 1.17: prefer-ip6 and prefer-ip4 (a stub zone with one
server on 127.0.0.1 and one on ::1: every query goes to the preferred
family while its server is in the RTT band; without either option both
are asked), fast-server-permil and fast-server-num (permil 1000, num 1:
once the RTTs are known every query goes to one server, the fastest;
without it both servers, 80 ms apart and so in one band, are asked)."""
import socket
import threading
import time

import pytest

from conftest import (HAVE_IPV6, RefServer, Server, Upstream, _finish,
                      rcode_of)

ZONE = "choice.test."
BODY = ('local-zone: "test." nodefault\ndomain-insecure: "test."\n'
        'qname-minimisation: no\n')


class Upstream6(Upstream):
    """conftest.Upstream on ::1."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
        self.sock.bind(("::1", 0))
        self.addr = "::1"
        self.port = self.sock.getsockname()[1]
        self.received = []
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()


class SlowUpstream(Upstream):
    """Answers after 80 ms (far inside the 400 ms RTT band, also on a
    loaded machine, where a slower one may time out)."""

    def respond(self, q, qname, qtype):
        time.sleep(0.08)
        return super().respond(q, qname, qtype)


def stub(zone, *ups):
    return ('stub-zone:\n\tname: "%s"\n' % zone +
            "".join("\tstub-addr: %s@%d\n" % (u.addr, u.port) for u in ups))


def ask_names(srv, prefix, n):
    for i in range(n):
        r = srv.query("%s%d.%s" % (prefix, i, ZONE), "A", timeout=5.0)
        assert rcode_of(r) == "NOERROR" and r.answer, r


def count(up, prefix):
    return len([q for q in up.queries() if q[0].startswith(prefix)])


@pytest.mark.skipif(not HAVE_IPV6, reason="::1 not available")
# the control (no option) runs on ours only: a listed pair, not a skip
@pytest.mark.parametrize("option,impl", [
    ("prefer-ip6", "ours"), ("prefer-ip6", "reference"),
    ("prefer-ip4", "ours"), ("prefer-ip4", "reference"),
    (None, "ours")])
def test_prefer_family(tmp_path, impl, option):
    up4, up6 = Upstream(), Upstream6()
    srv = (Server if impl == "ours" else RefServer)(tmp_path)
    try:
        srv.start(BODY + ("%s: yes\n" % option if option else ""),
                  extra=stub(ZONE, up4, up6))
        ask_names(srv, "p", 20)
        n4, n6 = count(up4, "p"), count(up6, "p")
        if option == "prefer-ip6":
            assert n4 == 0 and n6 >= 20, (n4, n6)
        elif option == "prefer-ip4":
            assert n6 == 0 and n4 >= 20, (n4, n6)
        else:
            assert n4 > 0 and n6 > 0, (n4, n6)
    finally:
        _finish(srv)
        up4.close()
        up6.close()


@pytest.mark.parametrize("impl,fast", [("ours", True), ("reference", True),
                                       ("ours", False)])
def test_fast_server(tmp_path, impl, fast):
    fast_up, slow_up = Upstream(), SlowUpstream()
    srv = (Server if impl == "ours" else RefServer)(tmp_path)
    try:
        srv.start(BODY + ("fast-server-permil: 1000\nfast-server-num: 1\n"
                          if fast else ""),
                  extra=stub(ZONE, fast_up, slow_up))
        ask_names(srv, "w", 6)     # the RTTs become known
        ask_names(srv, "f", 16)
        nf, ns = count(fast_up, "f"), count(slow_up, "f")
        if fast:
            assert nf == 0 or ns == 0, (nf, ns)
        else:
            assert nf > 0 and ns > 0, (nf, ns)
    finally:
        _finish(srv)
        fast_up.close()
        slow_up.close()
