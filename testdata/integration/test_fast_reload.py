# SPDX-License-Identifier: BSD-3-Clause
"""unbound-control fast_reload (Unbound 1.23) and the reload built in a
thread: a changed local-data answer while a client keeps querying (every
query answered), a broken or incompatible new config refused while the
old one keeps serving, the +v, +vv, +p and +d outputs, and the caches and
statistics kept. One daemon for the file (2 threads, control over a unix
socket); each test writes the config it needs."""
import os
import re
import subprocess
import threading
import time

import dns.exception
import dns.message
import dns.query
import dns.rcode
import pytest

from conftest import SLOW, ControlServer, _finish, ours_only

pytestmark = ours_only


class Daemon(ControlServer):
    """The daemon and a control config of its own (the client must not
    read the server's config: some tests make it broken)."""

    def configure(self, body, extra=""):
        self.write_config(body, threads=2, extra=self.rc_clause() + extra)


@pytest.fixture(scope="module")
def daemon(tmp_path_factory):
    d = Daemon(tmp_path_factory.mktemp("fastreload"))
    d.start('local-data: "fr.example. A 192.0.2.1"', threads=2,
            extra=d.rc_clause())
    yield d
    _finish(d)


def address(d, name):
    r = d.query(name, timeout=2)
    assert r.rcode() == dns.rcode.NOERROR, r
    return r.answer[0][0].address if r.answer else None


def serving(d, addr):
    """The answer for fr.example. is addr (polled: a reload's publish and
    the workers' switch come just after the control answer)."""
    deadline = time.time() + 5 * SLOW
    while time.time() < deadline:
        if address(d, "fr.example.") == addr:
            return True
        time.sleep(0.02)
    return False


def set_addr(d, addr, body=""):
    d.configure('local-data: "fr.example. A %s"\n%s' % (addr, body))


class Querier(threading.Thread):
    """Queries fr.example. back to back, one at a time, and keeps every
    outcome: an answer's address, or "lost" when none came in 2 s."""

    def __init__(self, d):
        super().__init__(daemon=True)
        self.d = d
        self.stop = threading.Event()
        self.seen = []

    def run(self):
        q = dns.message.make_query("fr.example.", "A")
        while not self.stop.is_set():
            try:
                r = dns.query.udp(q, "127.0.0.1", port=self.d.port,
                                  timeout=2, ignore_unexpected=True)
                self.seen.append(r.answer[0][0].address if r.answer and
                                 r.rcode() == dns.rcode.NOERROR else
                                 "bad %s" % dns.rcode.to_text(r.rcode()))
            except dns.exception.Timeout:
                self.seen.append("lost")

    def finish(self):
        self.stop.set()
        self.join(10)
        return self.seen


def test_fast_reload_changes_answer_under_load(daemon):
    set_addr(daemon, "192.0.2.1")
    assert daemon.ctl("fast_reload").stdout == "ok\n"
    assert serving(daemon, "192.0.2.1")
    q = Querier(daemon)
    q.start()
    try:
        for i, addr in enumerate(("192.0.2.2", "192.0.2.3", "192.0.2.4")):
            set_addr(daemon, addr)
            r = daemon.ctl("fast_reload", "+p" if i == 1 else "+d"
                           if i == 2 else "+v")
            assert r.returncode == 0 and r.stdout.endswith("ok\n"), \
                r.stdout + r.stderr
            assert serving(daemon, addr)
    finally:
        seen = q.finish()
    assert len(seen) > 20, seen
    assert "lost" not in seen and not [s for s in seen if "bad" in s], \
        [s for s in seen if not s.startswith("192.")]
    # the answers went from one config to the next, never back
    order = [a for i, a in enumerate(seen) if i == 0 or seen[i - 1] != a]
    assert order == sorted(order), order


def test_fast_reload_keeps_statistics_reload_resets(daemon):
    set_addr(daemon, "192.0.2.5")
    for _ in range(5):
        daemon.query("fr.example.")

    def total():
        s = daemon.ctl("stats_noreset").stdout
        return int(re.search(r"^total\.num\.queries=(\d+)$", s, re.M)
                   .group(1))
    before = total()
    assert before >= 5
    assert daemon.ctl("fast_reload").stdout == "ok\n"
    assert total() >= before
    # reload, built in its thread as well, starts them from zero
    assert daemon.ctl("reload").stdout == "ok\n"
    assert total() < before


def stat(d, name):
    s = d.ctl("stats_noreset").stdout
    return int(re.search(r"^%s=(\d+)$" % re.escape(name), s, re.M).group(1))


def load_names(d, first, count):
    """count cached A answers (RRset and message) through load_cache:
    c<N>.cache.example. for N from first."""
    rr, msg = [], []
    for i in range(first, first + count):
        n = "c%d.cache.example." % i
        rr.append(";rrset 3600 1 0 8 0\n%s\t3600\tIN\tA\t192.0.2.%d\n"
                  % (n, i % 250 + 1))
        msg.append("msg %s IN A 32896 1 3600 0 1 0 0\n%s IN A 0\n"
                   % (n, n))
    text = ("START_RRSET_CACHE\n" + "".join(rr) + "END_RRSET_CACHE\n"
            "START_MSG_CACHE\n" + "".join(msg) + "END_MSG_CACHE\nEOF\n")
    r = d.ctl("load_cache", input=text)
    assert r.stdout == "ok\n", r.stdout + r.stderr


def test_fast_reload_resizes_caches_in_place(daemon):
    """compat: unbound-1.26: fast_reload applies new msg-cache-size and
    rrset-cache-size to the caches it keeps: a smaller bound evicts the
    least recently used entries at once, the recent ones stay and are
    answered from the cache, and a larger one lets them grow again."""
    big, small = 8 << 20, 64 << 10
    sizes = ("extended-statistics: yes\nmsg-cache-size: %d\n"
             "rrset-cache-size: %d\n")
    set_addr(daemon, "192.0.2.9", sizes % (big, big))
    assert daemon.ctl("fast_reload").stdout == "ok\n"
    load_names(daemon, 0, 1000)
    assert stat(daemon, "mem.cache.rrset") > 2 * small
    assert stat(daemon, "mem.cache.message") > 2 * small
    set_addr(daemon, "192.0.2.9", sizes % (small, small))
    assert daemon.ctl("fast_reload").stdout == "ok\n"
    assert daemon.ctl("get_option", "rrset-cache-size").stdout == \
        "%d\n" % small
    assert daemon.ctl("get_option", "msg-cache-size").stdout == \
        "%d\n" % small
    for cache in ("rrset", "message"):
        used = stat(daemon, "mem.cache." + cache)
        assert 0 < used <= small, (cache, used)
    # the last loaded, most recently used, are still answered from it
    r = daemon.query("c999.cache.example.", timeout=2)
    assert r.rcode() == dns.rcode.NOERROR and r.answer, r
    assert r.answer[0][0].address == "192.0.2.%d" % (999 % 250 + 1), r
    assert serving(daemon, "192.0.2.9")
    # larger again: the caches fill past the small bound
    set_addr(daemon, "192.0.2.9", sizes % (big, big))
    assert daemon.ctl("fast_reload").stdout == "ok\n"
    load_names(daemon, 10000, 1000)
    assert stat(daemon, "mem.cache.rrset") > 2 * small
    assert stat(daemon, "mem.cache.message") > 2 * small
    set_addr(daemon, "192.0.2.9")
    assert daemon.ctl("fast_reload").stdout == "ok\n"


def test_fast_reload_verbose_output(daemon):
    set_addr(daemon, "192.0.2.6")
    r = daemon.ctl("fast_reload", "+v")
    lines = r.stdout.splitlines()
    assert lines[:3] == ["start fast_reload", "thread started",
                         "done read config file %s" % daemon.conf], lines
    timed = lines[3:8]
    for line, what in zip(timed, ("read disk ", "construct ", "reload    ",
                                  "deletes   ", "total time")):
        assert re.fullmatch(r"%s +\d+\.\d{6}s" % what, line), (line, lines)
    assert lines[8:] == ["ok"], lines
    r = daemon.ctl("fast_reload", "+vv")
    mem = [l for l in r.stdout.splitlines() if l.startswith("memory use")]
    assert len(mem) == 1 and re.fullmatch(r"memory use \d+ bytes", mem[0])
    assert r.stdout.endswith("ok\n")
    for opts in (["+p"], ["+d"], ["+pd"], ["+p", "+d"]):
        assert daemon.ctl("fast_reload", *opts).stdout == "ok\n", opts
    r = daemon.ctl("fast_reload", "+x")
    assert r.stdout + r.stderr == "error: unknown option '+x'\n"
    assert r.returncode == 1
    assert serving(daemon, "192.0.2.6")


def test_fast_reload_drops_queries_on_tag_change(daemon):
    daemon.configure('local-data: "fr.example. A 192.0.2.7"\n'
                     'define-tag: "one two"')
    assert daemon.ctl("fast_reload").stdout == "ok\n"
    # names added at the end: the queries' tag numbers stay right
    daemon.configure('local-data: "fr.example. A 192.0.2.7"\n'
                     'define-tag: "one two three"')
    assert daemon.ctl("fast_reload").stdout == "ok\n"
    daemon.configure('local-data: "fr.example. A 192.0.2.7"\n'
                     'define-tag: "two one three"')
    assert daemon.ctl("fast_reload").stdout == (
        "tags have changed, with 'define-tag', and the queries have to be "
        "dropped for consistency, setting '+d'\nok\n")
    assert serving(daemon, "192.0.2.7")
    # tags removed: a change as well (the other tests have none)
    set_addr(daemon, "192.0.2.7")
    r = daemon.ctl("fast_reload")
    assert r.stdout.startswith("tags have changed") and \
        r.stdout.endswith("\nok\n"), r.stdout


@pytest.mark.parametrize("bad,says", [
    ("no-such-option: 1", "config_read %s failed"),
    ('local-data: "fr.example. A 999.0.2.1"', "Could not construct from "
     "the config, check for errors with unbound-checkconf, or out of "
     "memory. The parse errors are printed in the log.\n"),
    ("port: 1", "The config changes items that are not compatible with "
     "fast_reload, perhaps do reload or restart: port\n"),
])
def test_fast_reload_refuses_broken_config(daemon, bad, says):
    set_addr(daemon, "192.0.2.8")
    assert daemon.ctl("fast_reload").stdout == "ok\n"
    assert serving(daemon, "192.0.2.8")
    daemon.configure('local-data: "fr.example. A 192.0.2.9"\n' + bad)
    r = daemon.ctl("fast_reload")
    if "%s" in says:
        says = says % daemon.conf
    assert says in r.stdout and "ok" not in r.stdout.splitlines(), r.stdout
    assert daemon.alive()
    assert address(daemon, "fr.example.") == "192.0.2.8"
    # reload refuses it as well (an incompatible option aside)
    r = daemon.ctl("reload")
    if "port" in bad:
        assert r.stdout == "ok\n"
        set_addr(daemon, "192.0.2.8")
        assert daemon.ctl("reload").stdout == "ok\n"
    else:
        assert r.stdout.startswith("error reload failed"), r.stdout
    assert address(daemon, "fr.example.") == "192.0.2.8"


def test_fast_reload_incompatible_names_in_order(daemon):
    set_addr(daemon, "192.0.2.10")
    daemon.configure('local-data: "fr.example. A 192.0.2.10"\n'
                     "num-threads: 3\nso-reuseport: no\n"
                     "tcp-idle-timeout: 1234")
    r = daemon.ctl("fast_reload")
    assert r.stdout.endswith(
        "perhaps do reload or restart: num-threads so-reuseport "
        "tcp-idle-timeout\n"), r.stdout
    set_addr(daemon, "192.0.2.10")
    assert daemon.ctl("fast_reload").stdout == "ok\n"


def test_sighup_and_reload_while_querying(daemon):
    set_addr(daemon, "192.0.2.11")
    assert daemon.ctl("reload").stdout == "ok\n"
    q = Querier(daemon)
    q.start()
    try:
        set_addr(daemon, "192.0.2.12")
        n = daemon.log().count("service reloaded")
        daemon.send_signal(1)
        assert serving(daemon, "192.0.2.12")
        deadline = time.time() + 5 * SLOW
        while daemon.log().count("service reloaded") == n and \
                time.time() < deadline:
            time.sleep(0.02)
        set_addr(daemon, "192.0.2.13")
        assert daemon.ctl("reload_keep_cache").stdout == "ok\n"
        assert serving(daemon, "192.0.2.13")
    finally:
        seen = q.finish()
    assert len(seen) > 5 and "lost" not in seen, seen


def write_big(d, names=50000):
    """A local zone of `names` names in big.conf; returns its path."""
    big = os.path.join(d.dir, "big.conf")
    with open(big, "w") as f:
        f.write("server:\n\tlocal-zone: \"big.test.\" static\n")
        for i in range(names):
            f.write('\tlocal-data: "n%d.big.test. A 10.0.%d.%d"\n' %
                    (i, (i >> 8) & 255, i & 255))
    return big


def threads(pid):
    """{tid: (name, nice, policy)} of the daemon's threads, from
    /proc/PID/task/TID/stat (nice: field 19, policy: field 41)."""
    out = {}
    base = "/proc/%d/task" % pid
    for tid in os.listdir(base):
        try:
            with open(os.path.join(base, tid, "stat")) as f:
                st = f.read()
        except OSError:   # the thread ended meanwhile
            continue
        name = st[st.index("(") + 1:st.rindex(")")]
        fields = st[st.rindex(")") + 2:].split()
        out[int(tid)] = (name, int(fields[16]), int(fields[38]))
    return out


SCHED_OTHER = 0


def test_reload_and_reaper_threads_run_below_the_workers(daemon):
    """The reload thread (seen in /proc while a fast_reload of 50,000
    names builds) and the thread that frees old configs run 10 nice
    levels below the main thread (to at most 19), so a worker woken by a
    query is ahead of them for the CPU; the main thread and the workers
    keep their nice value and class."""
    set_addr(daemon, "192.0.2.15")
    assert daemon.ctl("fast_reload").stdout == "ok\n"
    before = threads(daemon.pid)
    names = sorted(n for n, _, _ in before.values())
    assert "env-reaper" in names, names
    main_nice = before[daemon.pid][1]
    low = min(19, main_nice + 10)
    assert low > main_nice, "run the test below nice 19"
    for name, nice, policy in before.values():
        if name == "env-reaper":
            assert (nice, policy) == (low, SCHED_OTHER)
        else:   # the main thread, the workers: as started
            assert (nice, policy) == (main_nice, SCHED_OTHER), before
    big = write_big(daemon)
    daemon.configure('local-data: "fr.example. A 192.0.2.15"',
                     extra='include: "%s"\n' % big)
    seen = None
    for _ in range(5):   # a fast machine may build it between two polls
        reload = subprocess.Popen(daemon.ctl_args("fast_reload"),
                                  stdout=subprocess.PIPE, text=True)
        try:
            while reload.poll() is None and seen is None:
                seen = next((t for t in threads(daemon.pid).values()
                             if t[0] == "reload"), None)
            assert reload.communicate(timeout=60 * SLOW)[0] == "ok\n"
        finally:
            if reload.poll() is None:
                reload.kill()
                reload.wait()
        if seen:
            break
    assert seen, "no thread named reload seen while 5 reloads ran"
    assert seen[1:] == (low, SCHED_OTHER), seen
    assert address(daemon, "n49999.big.test.") == "10.0.195.79"
    set_addr(daemon, "192.0.2.15")
    assert daemon.ctl("fast_reload").stdout == "ok\n"


def test_control_and_dns_served_while_a_big_config_builds(daemon):
    """The reload thread builds 50,000 local-data names while the main
    thread answers other control commands and the workers answer
    queries; then the new names answer."""
    big = write_big(daemon)
    set_addr(daemon, "192.0.2.14")
    assert daemon.ctl("fast_reload").stdout == "ok\n"
    daemon.configure('local-data: "fr.example. A 192.0.2.14"',
                     extra='include: "%s"\n' % big)
    reload = subprocess.Popen(daemon.ctl_args("reload"),
                              stdout=subprocess.PIPE, text=True)
    during = 0
    try:
        while reload.poll() is None:
            r = daemon.ctl("status")
            assert r.returncode == 0 and "is running" in r.stdout, r.stdout
            assert address(daemon, "fr.example.") == "192.0.2.14"
            if reload.poll() is None:
                during += 1
        assert reload.communicate(timeout=60 * SLOW)[0] == "ok\n"
    finally:
        if reload.poll() is None:
            reload.kill()
            reload.wait()
    # a main thread held up by the build answers one status, the one
    # that waited, as the reload ends
    assert during >= 3, "%d status answers while the reload ran" % during
    assert address(daemon, "n49999.big.test.") == "10.0.195.79"
    set_addr(daemon, "192.0.2.14")
    assert daemon.ctl("fast_reload").stdout == "ok\n"
