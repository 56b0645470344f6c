# SPDX-License-Identifier: BSD-3-Clause
"""Outgoing UDP ports drawn by the kernel (services/kernel_ports.h): a
port the pool draws from the permitted set that falls in
net.ipv4.ip_local_port_range is left to the kernel's draw at connect on
an idle socket; the others are bound as before. The upstream sees one
uniform draw over the permitted set either way: ports inside and
outside the kernel's range, all permitted, none avoided. Where the
kernel's range is not wholly permitted (an outgoing-port-avoid in it),
the path is off, also when that comes with a reload."""
import random

import dns.rcode
import pytest

from conftest import REFERENCE
from test_outgoing_reload import (Upstream, forward, reloaded, resolve,
                                  upstream)  # noqa: F401 - the fixture
from test_control import rc_clause

pytestmark = pytest.mark.skipif(
    REFERENCE, reason="checks behaviour particular to this implementation")


def kernel_range():
    """The kernel's ephemeral range, or skip where the path cannot be on
    (no /proc, reserved ports)."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            lo, hi = (int(x) for x in f.read().split())
        with open("/proc/sys/net/ipv4/ip_local_reserved_ports") as f:
            reserved = f.read().strip()
    except OSError:
        pytest.skip("no /proc/sys/net/ipv4")
    if reserved or lo < 1024:
        pytest.skip("ip_local_reserved_ports set or the range below 1024")
    return lo, hi


def start(srv, up, body="", verbosity=1):
    sock = srv.dir + "/ctl.sock"
    extra = forward(up) + rc_clause(None, iface=sock, use_cert=False)
    srv.start("module-config: \"iterator\"\nqname-minimisation: no\n" +
              body, extra=extra, threads=2, verbosity=verbosity)
    return extra


def kernel_drawn(srv):
    """The ports the log says the kernel drew (verbosity 4)."""
    return [int(line.split("port ")[1].split()[0])
            for line in srv.log().splitlines()
            if "outgoing udp: port " in line and "drawn by the kernel"
            in line]


def many_ports(srv, up, tag, n=300):
    assert resolve(srv, tag, n) == [dns.rcode.NOERROR] * n
    ports = up.take_ports()
    assert len(ports) >= n, len(ports)
    return ports


def test_kernel_and_bound_ports(unbound, upstream):  # noqa: F811
    lo, hi = kernel_range()
    srv = unbound
    start(srv, upstream, verbosity=4)
    assert ("outgoing udp: ports in %d-%d drawn by the kernel at connect"
            % (lo, hi)) in srv.log()
    ports = many_ports(srv, upstream, "k")
    inside = [p for p in ports if lo <= p <= hi]
    # each port in the kernel's range came from the kernel's draw (the
    # pool's port in use is never the kernel's choice), none outside
    drawn = kernel_drawn(srv)
    assert sorted(drawn) == sorted(inside), (len(drawn), len(inside))
    assert all(1024 <= p <= 65535 for p in ports), ports
    # the kernel's range is its share of 1024-65535 (43.8% for Debian's
    # 32768-60999); far outside that would be a skewed draw
    share = (hi - lo + 1) / (65536 - 1024)
    assert abs(len(inside) / len(ports) - share) < 0.15, \
        (len(inside), len(ports), share)
    assert inside and len(inside) < len(ports)
    # many distinct ports on both sides: no small set reused
    assert len(set(inside)) >= 0.9 * len(inside)
    outside = [p for p in ports if not lo <= p <= hi]
    assert len(set(outside)) >= 0.9 * len(outside)
    assert srv.alive()


def test_whole_set_in_kernel_range(unbound, upstream):  # noqa: F811
    """outgoing-port-permit is the kernel's range exactly (as with the
    range set to 1024-65535 and the default permit): every query takes
    the kernel's draw, the pool draws nothing, and the ports spread over
    the whole range."""
    lo, hi = kernel_range()
    srv = unbound
    avoid = "".join("outgoing-port-avoid: %d-%d\n" % r for r in
                    ((1024, lo - 1), (hi + 1, 65535)) if r[0] <= r[1])
    start(srv, upstream, avoid, verbosity=4)
    assert ("outgoing udp: ports in %d-%d drawn by the kernel at connect"
            % (lo, hi)) in srv.log()
    ports = many_ports(srv, upstream, "all")
    assert all(lo <= p <= hi for p in ports), ports
    assert sorted(kernel_drawn(srv)) == sorted(ports)
    assert len(set(ports)) >= 0.9 * len(ports)
    # spread: both halves of the range used
    mid = (lo + hi) // 2
    low = len([p for p in ports if p <= mid])
    assert 0.3 < low / len(ports) < 0.7, (low, len(ports))
    assert srv.alive()


def avoid_in(lo, hi):
    """A stretch of the kernel's range to avoid."""
    a = random.randint(lo, max(lo, hi - 2000))
    return a, min(hi, a + 1999)


def test_avoid_in_kernel_range_turns_it_off(unbound, upstream):  # noqa: F811
    lo, hi = kernel_range()
    a, b = avoid_in(lo, hi)
    srv = unbound
    start(srv, upstream, "outgoing-port-avoid: %d-%d\n" % (a, b),
          verbosity=4)
    assert "outgoing udp: every port bound by us (the kernel's port " \
        "range is not all in outgoing-port-permit minus " \
        "outgoing-port-avoid)" in srv.log()
    assert "drawn by the kernel" not in srv.log()
    ports = many_ports(srv, upstream, "a", 200)
    assert all(1024 <= p <= 65535 for p in ports), ports
    assert not [p for p in ports if a <= p <= b], (a, b)
    assert [p for p in ports if lo <= p <= hi], "none in the kernel's range"
    assert kernel_drawn(srv) == []


def test_reload_turns_it_off_and_on(unbound, upstream):  # noqa: F811
    lo, hi = kernel_range()
    a, b = avoid_in(lo, hi)
    srv = unbound
    extra = start(srv, upstream, verbosity=4)
    on = "drawn by the kernel at connect"
    off = "outgoing udp: every port bound by us"
    assert srv.log().count(on) == 1 and off not in srv.log()
    body = "module-config: \"iterator\"\nqname-minimisation: no\n"
    srv.write_config(body + "outgoing-port-avoid: %d-%d\n" % (a, b),
                     extra=extra, threads=2, verbosity=4)
    reloaded(srv, "sighup")
    assert srv.log().count(off) == 1
    upstream.take_ports()
    ports = many_ports(srv, upstream, "r", 150)
    assert not [p for p in ports if a <= p <= b], (a, b)
    assert kernel_drawn(srv) == []
    srv.write_config(body, extra=extra, threads=2, verbosity=4)
    reloaded(srv, "control")
    assert srv.log().count(on) == 2
    ports = many_ports(srv, upstream, "w", 150)
    assert sorted(kernel_drawn(srv)) == sorted(
        p for p in ports if lo <= p <= hi)
    assert all(1024 <= p <= 65535 for p in ports), ports
    assert srv.alive()


def test_udp_connect_off(unbound, upstream):  # noqa: F811
    kernel_range()
    srv = unbound
    start(srv, upstream, "udp-connect: no\n", verbosity=4)
    assert "outgoing udp: every port bound by us (udp-connect is off)" \
        in srv.log()
    ports = many_ports(srv, upstream, "c", 50)
    assert all(1024 <= p <= 65535 for p in ports), ports
    assert kernel_drawn(srv) == []
