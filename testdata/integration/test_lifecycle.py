# SPDX-License-Identifier: BSD-3-Clause
"""Signals, pidfile, daemonizing, logfile, privilege drop, SIGHUP reload."""
import os
import pwd
import re
import signal
import subprocess
import threading
import time

import dns.exception
import pytest

from conftest import (REFERENCE, START_TIMEOUT, STOP_TIMEOUT, Server,
                      _finish, answer_texts, make_query, pid_alive,
                      proc_status, rcode_of, reference_differs, sockets_on_port)

LOCAL = 'local-data: "www.life.test. A 192.0.2.1"'


def read_pid(path):
    with open(path) as f:
        return int(f.read().split()[0])


def wait_for(cond, timeout, step=0.05):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if cond():
            return True
        time.sleep(step)
    return cond()


def answer_of(srv, name="www.life.test.", **kw):
    try:
        return answer_texts(srv.query(name, "A", timeout=1, **kw))
    except dns.exception.Timeout:
        return None


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT],
                         ids=["SIGTERM", "SIGINT"])
def test_signal_exits_zero_and_removes_pidfile(unbound, sig):
    unbound.start(LOCAL)
    assert read_pid(unbound.pidfile) == unbound.pid
    assert unbound.stop(sig) == 0, unbound.output()
    assert not os.path.exists(unbound.pidfile)
    assert sockets_on_port(unbound.port, "udp") == []


def test_sigterm_with_threads_and_open_tcp(unbound):
    unbound.start(LOCAL, threads=4)
    conns = [unbound.tcp_connect() for _ in range(3)]
    try:
        assert unbound.stop() == 0, unbound.output()
    finally:
        for c in conns:
            c.close()


def test_logfile_written(unbound):
    unbound.start(LOCAL + "\nlog-queries: yes")
    unbound.query("www.life.test.", "A")
    assert wait_for(lambda: "www.life.test. A IN" in unbound.log(), 5)
    # -d without -dd: the log goes to the logfile, not stderr
    with open(unbound.stderr) as f:
        assert "www.life.test." not in f.read()


def test_dd_logs_to_stderr(unbound):
    unbound.start(LOCAL + "\nlog-queries: yes", args=("-d", "-d"))
    unbound.query("www.life.test.", "A")

    def in_stderr():
        with open(unbound.stderr) as f:
            return "www.life.test. A IN" in f.read()
    assert wait_for(in_stderr, 5), unbound.output()


def test_daemonize(unbound):
    unbound.write_config(LOCAL, daemonize=True)
    res = subprocess.run(unbound.run_args([]), capture_output=True,
                         text=True, timeout=START_TIMEOUT,
                         stdin=subprocess.DEVNULL, cwd=unbound.dir)
    assert res.returncode == 0, res.stderr + unbound.log()
    assert wait_for(lambda: os.path.exists(unbound.pidfile) and
                    os.path.getsize(unbound.pidfile) > 0, START_TIMEOUT)
    pid = read_pid(unbound.pidfile)
    # stopped by that PID from here on (the fixture's finalizer too)
    unbound.pid = pid
    assert pid_alive(pid)
    unbound.wait_ready()
    assert answer_texts(unbound.query("www.life.test.", "A")) == [
        "www.life.test. A 192.0.2.1"]
    assert sockets_on_port(unbound.port, "udp", pid)
    # detached: a new session, not our child
    assert os.getsid(pid) != os.getsid(0)
    unbound.stop()
    assert not pid_alive(pid)
    assert wait_for(lambda: not os.path.exists(unbound.pidfile), 5)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root")
def test_username_drops_privileges(world_tmpdir):
    nobody = pwd.getpwnam("nobody")
    srv = Server(world_tmpdir)
    try:
        srv.start(LOCAL, username="nobody")
        st = proc_status(srv.pid)
        uids = st["Uid"].split()
        assert all(int(u) == nobody.pw_uid for u in uids), st["Uid"]
        gids = st["Gid"].split()
        assert all(int(g) == nobody.pw_gid for g in gids), st["Gid"]
        assert answer_texts(srv.query("www.life.test.", "A")) == [
            "www.life.test. A 192.0.2.1"]
        assert answer_texts(srv.query("www.life.test.", "A", tcp=True)) == [
            "www.life.test. A 192.0.2.1"]
    finally:
        _finish(srv)


# -- SIGHUP reload ---------------------------------------------------------

def test_reload_new_local_data(unbound):
    unbound.start(LOCAL)
    assert answer_of(unbound) == ["www.life.test. A 192.0.2.1"]
    unbound.write_config('local-data: "www.life.test. A 192.0.2.2"\n'
                         'local-data: "new.life.test. A 192.0.2.3"')
    pid = unbound.pid
    unbound.send_signal(signal.SIGHUP)
    assert wait_for(lambda: answer_of(unbound) ==
                    ["www.life.test. A 192.0.2.2"], START_TIMEOUT), \
        unbound.output()
    assert answer_of(unbound, "new.life.test.") == [
        "new.life.test. A 192.0.2.3"]
    r = unbound.query("www.life.test.", "A", tcp=True)
    assert answer_texts(r) == ["www.life.test. A 192.0.2.2"]
    assert unbound.pid == pid and unbound.alive()
    assert read_pid(unbound.pidfile) == pid


def test_reload_access_control(unbound):
    unbound.start(LOCAL + "\naccess-control: 127.0.0.2/32 refuse")
    r = unbound.query("www.life.test.", "A", source="127.0.0.2")
    assert rcode_of(r) == "REFUSED"
    unbound.write_config(LOCAL + "\naccess-control: 127.0.0.2/32 allow")
    unbound.send_signal(signal.SIGHUP)
    assert wait_for(lambda: answer_of(unbound, source="127.0.0.2") ==
                    ["www.life.test. A 192.0.2.1"], START_TIMEOUT)


@reference_differs("a broken config at reload is fatal to the daemon")
def test_reload_broken_config_keeps_old(unbound):
    unbound.start(LOCAL)
    unbound.write_config(LOCAL + "\nnum-threads: many\nno-such-option: 1")
    unbound.send_signal(signal.SIGHUP)
    time.sleep(1)
    assert unbound.alive(), unbound.output()
    assert answer_of(unbound) == ["www.life.test. A 192.0.2.1"]
    assert answer_texts(unbound.query("www.life.test.", "A", tcp=True)) == [
        "www.life.test. A 192.0.2.1"]
    # the error was reported, naming the file
    assert wait_for(lambda: unbound.conf in unbound.output(), 5)
    # a fixed config is taken on the next HUP
    unbound.write_config('local-data: "www.life.test. A 192.0.2.7"')
    unbound.send_signal(signal.SIGHUP)
    assert wait_for(lambda: answer_of(unbound) ==
                    ["www.life.test. A 192.0.2.7"], START_TIMEOUT)


@reference_differs("a broken config at reload is fatal to the daemon")
def test_reload_bad_module_config_keeps_old(unbound):
    """A module-config this build cannot run, at reload: refused, naming
    file and line, and the old config (all of it) keeps serving."""
    unbound.start(LOCAL)
    bad = 'module-config: "python validator iterator"'
    unbound.write_config('local-data: "www.life.test. A 192.0.2.8"\n' + bad)
    where = "%s:%d" % (unbound.conf, unbound.config_line("python"))
    unbound.send_signal(signal.SIGHUP)
    assert wait_for(lambda: where in unbound.output(), 5), unbound.output()
    assert "module: 'python'. This module is not present" in \
        unbound.output()
    assert wait_for(lambda: "still serving the previous configuration" in
                    unbound.output(), 5), unbound.output()
    assert unbound.alive(), unbound.output()
    assert answer_of(unbound) == ["www.life.test. A 192.0.2.1"]
    # fixed, the next HUP takes it
    unbound.write_config('local-data: "www.life.test. A 192.0.2.9"')
    unbound.send_signal(signal.SIGHUP)
    assert wait_for(lambda: answer_of(unbound) ==
                    ["www.life.test. A 192.0.2.9"], START_TIMEOUT)


def listen_inodes(port, pid):
    """The inodes of the sockets pid listens on at port, UDP and TCP."""
    out = set()
    for flag in ("-lunpeH", "-ltnpeH"):
        text = subprocess.run(["ss", flag, "sport = :%d" % port],
                              capture_output=True, text=True,
                              check=True).stdout
        for line in text.splitlines():
            if "pid=%d," % pid in line:
                out.add(re.search(r"ino:(\d+)", line).group(1))
    return out


def test_no_query_lost_across_reloads(unbound):
    unbound.start(LOCAL + "\nso-reuseport: yes", threads=2)
    inodes = listen_inodes(unbound.port, unbound.pid)
    assert len(inodes) == 4, inodes   # UDP and TCP for each thread
    stop = threading.Event()
    stats = {"sent": 0, "answered": 0, "lost": []}

    def load():
        # one try per query, no retry: a query the reload loses would
        # show as a timeout (the sockets stay open, so none may)
        import dns.query
        n = 0
        while not stop.is_set():
            q = make_query("www.life.test.", "A")
            try:
                r = dns.query.udp(q, "127.0.0.1", port=unbound.port,
                                  timeout=3.0)
                if r.answer:
                    stats["answered"] += 1
            except dns.exception.Timeout:
                stats["lost"].append(n)
            n += 1
            stats["sent"] = n

    tcp = {"sent": 0, "lost": []}

    def load_tcp():
        # a new connection each time: the listening socket stays open
        import dns.query
        while not stop.is_set():
            q = make_query("www.life.test.", "A")
            try:
                r = dns.query.tcp(q, "127.0.0.1", port=unbound.port,
                                  timeout=3.0)
                if not r.answer:
                    tcp["lost"].append(r.to_text())
            except (dns.exception.Timeout, OSError, EOFError) as e:
                tcp["lost"].append(repr(e))
            tcp["sent"] += 1

    t = threading.Thread(target=load)
    t.start()
    t2 = threading.Thread(target=load_tcp)
    t2.start()
    try:
        for i in range(5):
            time.sleep(0.3)
            unbound.write_config(LOCAL + '\nlocal-data: "r%d.life.test. A '
                                 '192.0.2.%d"\nso-reuseport: yes' % (i, 10 + i),
                                 threads=2)
            unbound.send_signal(signal.SIGHUP)
            assert wait_for(lambda: answer_of(unbound, "r%d.life.test." % i)
                            == ["r%d.life.test. A 192.0.2.%d" % (i, 10 + i)],
                            START_TIMEOUT), unbound.output()
        time.sleep(0.5)
    finally:
        stop.set()
        t.join(STOP_TIMEOUT * 3)
        t2.join(STOP_TIMEOUT * 3)
    assert stats["lost"] == [], stats
    # the very sockets of the start
    assert listen_inodes(unbound.port, unbound.pid) == inodes
    assert tcp["sent"] > 20, tcp
    # Unbound 1.17 closes the TCP connections it is serving at a reload
    # (the client sees EOF); this daemon keeps them
    if not REFERENCE:
        assert tcp["lost"] == [], tcp
    assert stats["sent"] > 20 and stats["answered"] == stats["sent"], stats
    assert unbound.alive()
