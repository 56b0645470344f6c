# SPDX-License-Identifier: BSD-3-Clause
"""systemd's notifications without libsystemd: with $NOTIFY_SOCKET set
(a path, or an abstract name written '@name') the daemon sends READY=1
once it answers, RELOADING=1 then READY=1 around a SIGHUP reload and
STOPPING=1 at SIGTERM, as Debian's Unbound 1.17 (built with systemd)
does, whatever use-systemd: says (in Unbound that option is socket
activation). A socket that cannot be reached stops the start, with
Unbound's message. Side by side with Debian's Unbound."""
import os
import signal
import socket
import time

import pytest

from conftest import STOP_TIMEOUT, RefServer, Server

BODY = 'local-data: "www.notify.example. A 192.0.2.7"\n'


class Listener:
    """The manager's end: a unix datagram socket the daemon writes to."""

    def __init__(self, path=None, abstract=None):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        if abstract:
            self.sock.bind("\0" + abstract)
            self.env = "@" + abstract
        else:
            self.sock.bind(path)
            self.env = path
        self.got = []

    def wait_for(self, state, timeout=15):
        """The messages up to the first with the line state; fails when
        none comes in time."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            self.sock.settimeout(max(0.01, deadline - time.time()))
            try:
                msg = self.sock.recv(4096).decode()
            except socket.timeout:
                break
            self.got.append(msg)
            if state in msg.split("\n"):
                return msg
        raise AssertionError("no %s within %ds; got %r" %
                             (state, timeout, self.got))

    def close(self):
        self.sock.close()


def run(cls, tmp_path, listener, systemd="no"):
    srv = cls(tmp_path)
    srv.start(BODY + "use-systemd: %s\n" % systemd, wait=False,
              env={"NOTIFY_SOCKET": listener.env})
    return srv


@pytest.mark.parametrize("cls", [Server, RefServer],
                         ids=["ours", "unbound-1.17"])
def test_ready_reload_stopping(tmp_path, cls):
    lis = Listener(path=str(tmp_path / "notify.sock"))
    srv = run(cls, tmp_path, lis)
    try:
        lis.wait_for("READY=1")
        # ready means answering: the first query right after it
        r = srv.query("www.notify.example.", timeout=2)
        assert str(r.answer[0][0]) == "192.0.2.7"
        srv.send_signal(signal.SIGHUP)
        lis.wait_for("RELOADING=1")
        lis.wait_for("READY=1")
        srv.query("www.notify.example.", timeout=2)
        srv.send_signal(signal.SIGTERM)
        lis.wait_for("STOPPING=1")
        # the one SIGTERM: the daemon may still be stopping (ASan)
        assert srv.proc.wait(STOP_TIMEOUT) == 0
    finally:
        srv.stop()
        lis.close()


def test_abstract_socket_and_use_systemd_yes(tmp_path):
    lis = Listener(abstract="unbound-test-%d-%d" % (os.getpid(),
                                                   time.monotonic_ns()))
    srv = run(Server, tmp_path, lis, systemd="yes")
    try:
        assert lis.wait_for("READY=1") == "READY=1"
        srv.query("www.notify.example.", timeout=2)
        assert srv.stop() == 0
        lis.wait_for("STOPPING=1")
    finally:
        srv.stop()
        lis.close()


def test_without_notify_socket_nothing(unbound, monkeypatch):
    """No $NOTIFY_SOCKET: the daemon starts and stops as ever (nothing
    to send to)."""
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    unbound.start(BODY + "use-systemd: yes\n", verbosity=4)
    assert "sd_notify" not in unbound.output()


@pytest.mark.parametrize("cls", [Server, RefServer],
                         ids=["ours", "unbound-1.17"])
def test_unreachable_socket_stops_the_start(tmp_path, cls):
    srv = cls(tmp_path)
    missing = str(tmp_path / "no-such.sock")
    rc, out = srv.start_expecting_exit(BODY, env={"NOTIFY_SOCKET": missing})
    assert rc not in (0, None), out[-2000:]
    assert "sd_notify failed %s: No such file or directory. Make " \
        "sure that unbound has access/permission to use the socket " \
        "presented by systemd." % missing in out
