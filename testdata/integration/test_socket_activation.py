# SPDX-License-Identifier: BSD-3-Clause
"""use-systemd: systemd's socket activation. The test plays systemd: it
binds the listening sockets itself (UDP and a listening TCP socket on the
configured interface's address and port, without SO_REUSEPORT, so that
no second socket can be bound there), and starts the daemon through a
wrapper that sets LISTEN_PID to its own pid before exec'ing the daemon
with the sockets as fds 3, 4 and 5 (LISTEN_FDS=3, LISTEN_FDNAMES). The
daemon must answer on them, over UDP and TCP, and hold no socket of its
own on the port; with use-systemd: no it binds as always and fails on
the taken port. A passed socket that matches no interface is closed
with a warning. Not side by side: Debian's Unbound looks for the passed
sockets only when systemd runs (sd_booted), which it does not here."""
import os
import socket
import subprocess
import sys

import pytest

from conftest import Server, ours_only, sockets_on_port

pytestmark = ours_only

BODY = ('local-data: "www.activated.example. A 192.0.2.9"\n'
        # per-thread sockets if the daemon bound its own
        "so-reuseport: yes\n")

# plays the service manager's child: moves the passed sockets to fds 3..
# (as sd_listen_fds expects them), sets LISTEN_PID to its own pid and
# execs the daemon, which keeps that pid
WRAP = """
import os, sys
n = int(sys.argv[1])
fds = [int(a) for a in sys.argv[2:2 + n]]
high = [os.dup2(fd, 100 + i) or 100 + i for i, fd in enumerate(fds)]
for fd in fds:
    os.close(fd)
for i, fd in enumerate(high):
    os.dup2(fd, 3 + i)
    os.close(fd)
os.environ["LISTEN_PID"] = str(os.getpid())
argv = sys.argv[2 + n:]
os.execv(argv[0], argv)
"""


def passed_sockets(port, extra_port):
    """UDP and listening TCP on 127.0.0.1:port, and a UDP socket on
    extra_port that no interface names."""
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", port))
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.bind(("127.0.0.1", port))
    tcp.listen(16)
    stray = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    stray.bind(("127.0.0.1", extra_port))
    return [udp, tcp, stray]


def launch(srv, socks, systemd):
    """Start srv's daemon with socks passed; the test's copies closed."""
    srv.write_config(BODY + "use-systemd: %s\n" % systemd, threads=2)
    fds = [s.fileno() for s in socks]
    env = dict(os.environ, LISTEN_FDS=str(len(fds)),
               LISTEN_FDNAMES="dns-udp:dns-tcp:stray")
    env.pop("LISTEN_PID", None)
    with open(srv.stdout, "wb") as out, open(srv.stderr, "wb") as err:
        srv.proc = subprocess.Popen(
            [sys.executable, "-c", WRAP, str(len(fds))] +
            [str(fd) for fd in fds] + srv.run_args(["-d"]),
            stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env,
            cwd=srv.dir, pass_fds=fds)
    srv.pid = srv.proc.pid
    for s in socks:
        s.close()


def free_other_port(srv):
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port != srv.port:
            return port


@pytest.fixture(scope="module")
def activated(tmp_path_factory):
    srv = Server(tmp_path_factory.mktemp("activated"))
    extra = free_other_port(srv)
    launch(srv, passed_sockets(srv.port, extra), "yes")
    srv.extra_port = extra
    try:
        srv.wait_ready()
        yield srv
    finally:
        srv.stop()


def test_answers_on_passed_sockets(activated):
    for tcp in (False, True):
        r = activated.query("www.activated.example.", tcp=tcp, timeout=3)
        assert str(r.answer[0][0]) == "192.0.2.9"


def test_binds_nothing_of_its_own(activated):
    # the daemon holds exactly the two passed sockets on the port: with
    # two threads and so-reuseport it would have bound two of each
    pid = activated.pid
    assert len(sockets_on_port(activated.port, "udp", pid)) == 1
    assert len(sockets_on_port(activated.port, "tcp", pid)) == 1
    assert len(sockets_on_port(activated.port, "udp")) == 1
    assert len(sockets_on_port(activated.port, "tcp")) == 1


def test_unmatched_socket_closed(activated):
    assert "matches no interface: closed" in activated.output()
    assert "stray" in activated.output()
    assert sockets_on_port(activated.extra_port, "udp") == []
    assert "not implemented" not in activated.output()


def test_option_off_binds_itself(tmp_path):
    """use-systemd: no: the passed sockets are not looked at, the daemon
    binds the interface itself and fails on the port the test holds."""
    srv = Server(tmp_path)
    extra = free_other_port(srv)
    launch(srv, passed_sockets(srv.port, extra), "no")
    try:
        assert srv.proc.wait(15) != 0
        assert "Address already in use" in srv.output()
    finally:
        srv.stop()
