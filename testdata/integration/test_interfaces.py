# SPDX-License-Identifier: BSD-3-Clause
"""Interfaces, IPv6, do-udp/do-tcp, concurrency across workers, chroot and
the log line for options that are not implemented yet."""
import os
import threading

import pytest

from conftest import (Server, _finish, answer_texts, asan_env, free_port,
                      ours_only, sockets_on_port)

LOCAL = 'local-data: "www.if.test. A 192.0.2.1"\n' \
        'local-data: "www.if.test. AAAA 2001:db8::1"'
WANT = ["www.if.test. A 192.0.2.1"]


def test_ipv6_udp_and_tcp(unbound6):
    unbound6.start(LOCAL)
    assert answer_texts(unbound6.query("www.if.test.", "A", v6=True)) == WANT
    assert answer_texts(unbound6.query("www.if.test.", "A", v6=True,
                                       tcp=True)) == WANT
    assert answer_texts(unbound6.query("www.if.test.", "AAAA", v6=True)) == [
        "www.if.test. AAAA 2001:db8::1"]
    # and IPv4 on the same daemon
    assert answer_texts(unbound6.query("www.if.test.", "A")) == WANT


def test_ipv6_reuseport_sockets_per_interface(unbound6):
    unbound6.start(LOCAL + "\nso-reuseport: yes", threads=2)
    # two interfaces, two workers: 4 UDP and 4 TCP sockets
    assert len(sockets_on_port(unbound6.port, "udp", unbound6.pid)) == 4
    assert len(sockets_on_port(unbound6.port, "tcp", unbound6.pid)) == 4
    for v6 in (False, True):
        for tcp in (False, True):
            r = unbound6.query("www.if.test.", "A", v6=v6, tcp=tcp)
            assert answer_texts(r) == WANT


def test_interface_with_port(unbound):
    other = free_port()
    unbound.start(LOCAL + "\ninterface: 127.0.0.1@%d" % other)
    assert answer_texts(unbound.query("www.if.test.", "A")) == WANT
    import dns.query
    from conftest import make_query
    r = dns.query.udp(make_query("www.if.test."), "127.0.0.1", port=other,
                      timeout=2)
    assert answer_texts(r) == WANT
    r = dns.query.tcp(make_query("www.if.test."), "127.0.0.1", port=other,
                      timeout=2)
    assert answer_texts(r) == WANT


def test_do_tcp_no(unbound):
    unbound.start(LOCAL + "\ndo-tcp: no")
    assert sockets_on_port(unbound.port, "tcp", unbound.pid) == []
    assert len(sockets_on_port(unbound.port, "udp", unbound.pid)) == 1
    assert answer_texts(unbound.query("www.if.test.", "A")) == WANT


def test_concurrent_clients_many_threads(unbound):
    """Eight clients at once, UDP and TCP, against four workers: every
    answer is right (no mix-ups between workers or connections)."""
    unbound.start(LOCAL + "\n" + "\n".join(
        'local-data: "n%d.if.test. A 10.0.%d.%d"' % (i, i // 256, i % 256)
        for i in range(200)), threads=4)
    errors = []

    def client(k):
        try:
            for i in range(k, 200, 8):
                r = unbound.query("n%d.if.test." % i, "A", tcp=(i % 3 == 0),
                                  retries=3)
                want = ["n%d.if.test. A 10.0.%d.%d" % (i, i // 256, i % 256)]
                if answer_texts(r) != want:
                    errors.append((i, answer_texts(r)))
        except Exception as e:
            errors.append((k, repr(e)))

    threads = [threading.Thread(target=client, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []


@pytest.mark.skipif(os.geteuid() != 0, reason="chroot needs root")
def test_chroot(world_tmpdir):
    srv = Server(world_tmpdir)
    try:
        srv.write_config(LOCAL)
        with open(srv.conf) as f:
            text = f.read().replace('chroot: ""', 'chroot: "%s"' % srv.dir)
        with open(srv.conf, "w") as f:
            f.write(text)
        # start() rewrites the config: start by hand with this one
        import subprocess
        with open(srv.stderr, "wb") as err:
            srv.proc = subprocess.Popen(srv.run_args(["-d"]), stderr=err,
                                        stdout=subprocess.DEVNULL,
                                        stdin=subprocess.DEVNULL,
                                        cwd=srv.dir,
                                        # LeakSanitizer needs /proc, which
                                        # the chroot hides
                                        env=asan_env(detect_leaks=0))
        srv.pid = srv.proc.pid
        srv.wait_ready()
        assert os.readlink("/proc/%d/root" % srv.pid) == \
            os.path.realpath(srv.dir)
        assert answer_texts(srv.query("www.if.test.", "A")) == WANT
        assert answer_texts(srv.query("www.if.test.", "A", tcp=True)) == WANT
    finally:
        _finish(srv)


@ours_only
def test_no_option_logged_as_not_implemented(unbound):
    unbound.start(LOCAL + "\ndisable-dnssec-lame-check: yes\n"
                  "dns-error-reporting: yes\n"
                  "quic-size: 16m")
    assert answer_texts(unbound.query("www.if.test.", "A")) == WANT
    log = unbound.output()
    lines = [l for l in log.splitlines() if "not implemented" in l]
    assert lines == [], log
    # DNS over QUIC is not built: no effect, as Unbound without
    # libngtcp2, and not listed as not implemented
    assert [l for l in lines if "quic-size" in l] == [], log
