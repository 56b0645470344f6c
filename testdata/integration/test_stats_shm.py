# SPDX-License-Identifier: BSD-3-Clause
"""shm-enable and shm-key: the statistics in System V shared memory, as
Unbound 1.17 lays them out, written at each statistics-interval and read
by `unbound-control stats_shm`. Side by side with Debian's Unbound 1.17
(built with shm): its unbound-control reads our segments and ours reads
its segments, each printing what the other prints; our stats_shm prints
stats_noreset's names. The segments go away when the daemon exits."""
import ctypes
import os
import random
import re
import signal
import subprocess
import time

import pytest

from conftest import BUILDDIR, REFERENCE, RefServer, Server, control_clause

OUR_CTL = os.path.join(BUILDDIR, "unbound-control")
DEB_CTL = "/usr/sbin/unbound-control"
LIBC = ctypes.CDLL(None, use_errno=True)
IPC_RMID = 0
QUERIES = 5


def shm_id(key):
    """The segment id at key, or -1 when there is none."""
    return LIBC.shmget(ctypes.c_int(key), ctypes.c_size_t(0), 0)


def remove_key(key):
    i = shm_id(key)
    if i >= 0:
        LIBC.shmctl(i, IPC_RMID, None)


def free_key():
    """A random key with no segment at it, nor at key + 1."""
    while True:
        k = random.randint(0x10000000, 0x7ffffff0)
        if shm_id(k) < 0 and shm_id(k + 1) < 0:
            return k


def body(key, interval=1, extra=""):
    return ('local-data: "www.shm.example. A 192.0.2.1"\n'
            "extended-statistics: yes\nstatistics-cumulative: yes\n"
            "statistics-interval: %d\nshm-enable: yes\nshm-key: %d\n%s" %
            (interval, key, extra))


def control(ctl, srv, cmd="stats_shm"):
    r = subprocess.run([ctl, "-c", srv.conf, cmd], capture_output=True,
                       text=True, timeout=10)
    return r


def values(text):
    return dict(l.split("=", 1) for l in text.splitlines() if "=" in l)


def without_time(text):
    return [l for l in text.splitlines() if not l.startswith("time.")]


def wait_segments(key, timeout=10):
    """The daemon answers once its workers run; the segments are made
    just after."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if shm_id(key) >= 0 and shm_id(key + 1) >= 0:
            return
        time.sleep(0.05)
    raise AssertionError("no segments at key %d" % key)


def start(cls, tmpdir, key, threads):
    srv = cls(tmpdir)
    os.makedirs(srv.dir, exist_ok=True)
    sock = os.path.join(srv.dir, "ctl.sock")
    # ours: discard-timeout at its default (a sanitizer build's conftest
    # scales it, and a value away from the default adds counters that
    # Unbound 1.17's segment layout has no room for)
    srv.start(body(key, extra="" if cls is RefServer or REFERENCE
                   else "discard-timeout: 1900\n"), threads=threads,
              extra=control_clause(sock))
    return srv


def same_reading(srv, first, second, tries=20):
    """first's and second's stats_shm of srv's segments, read while they
    did not change: the daemon rewrites them every second (and Unbound
    writes each thread's entry at its own timer, the total after the
    last), so a reading is taken between two equal readings of
    first's."""
    for _ in range(tries):
        a = control(first, srv)
        b = control(second, srv)
        c = control(first, srv)
        assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
        if without_time(a.stdout) == without_time(c.stdout):
            return a.stdout, b.stdout
    raise AssertionError("the segments changed at every reading")


def poll_queries(ctl, srv, timeout=10):
    """stats_shm's output once its total.num.queries reads what the
    daemon's stats_noreset reads (the segments are written at the next
    statistics-interval; the start's CHAOS queries count too)."""
    r = control(DEB_CTL if isinstance(srv, RefServer) else OUR_CTL, srv,
                "stats_noreset")
    assert r.returncode == 0, r.stderr
    want = int(values(r.stdout)["total.num.queries"])
    assert want >= QUERIES
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        r = control(ctl, srv)
        last = r
        if r.returncode == 0 and \
                values(r.stdout).get("total.num.queries") == str(want):
            return r.stdout
        time.sleep(0.1)
    raise AssertionError("stats_shm did not show %d queries: %s" %
                         (want, last and (last.stdout + last.stderr)))


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    """Ours (2 threads) and Debian's Unbound, each with its own free
    key, each asked QUERIES questions. Debian's runs one thread: with
    more, the total in its segment is summed in rounds across the
    threads' timers and is now and then a part of the sum (Unbound's
    shm_main_run), which no reader can help."""
    made = []
    keys = []
    try:
        for cls, name, threads in ((Server, "ours", 2),
                                   (RefServer, "ref", 1)):
            key = free_key()
            keys.append(key)
            srv = start(cls, tmp_path_factory.mktemp(name), key, threads)
            made.append(srv)
            wait_segments(key)
            for _ in range(QUERIES):
                srv.query("www.shm.example.")
        yield made
    finally:
        for srv in made:
            srv.stop()
        for key in keys:
            remove_key(key)
            remove_key(key + 1)


def test_counts_and_names(servers):
    ours = servers[0]
    shm = poll_queries(OUR_CTL, ours)
    v = values(shm)
    assert v["num.query.type.A"] == str(QUERIES)
    assert v["total.num.cachehits"] == v["total.num.queries"]
    assert int(v["thread0.num.queries"]) + \
        int(v["thread1.num.queries"]) == int(v["total.num.queries"])
    assert int(v["mem.cache.message"]) > 0
    noreset = control(OUR_CTL, ours, "stats_noreset")
    assert noreset.returncode == 0, noreset.stderr
    # compat: unbound-1.17: the one name Unbound's stats_shm spells
    # otherwise than its stats
    names = [l.split("=")[0] for l in shm.splitlines()]
    want = [l.split("=")[0].replace("tls.resume", "tls_resume")
            for l in noreset.stdout.splitlines()]
    assert names == want


def test_debian_control_reads_ours(servers):
    ours = servers[0]
    poll_queries(OUR_CTL, ours)
    mine, deb = same_reading(ours, OUR_CTL, DEB_CTL)
    assert without_time(deb) == without_time(mine)
    assert values(deb)["num.query.type.A"] == str(QUERIES)


def test_ours_reads_debian(servers):
    ref = servers[1]
    poll_queries(DEB_CTL, ref)
    deb, mine = same_reading(ref, DEB_CTL, OUR_CTL)
    assert values(deb)["num.query.type.A"] == str(QUERIES)
    assert without_time(mine) == without_time(deb)
    # the same names as Debian prints from its own segments (but for
    # the threads' lines: it runs one)
    ours_shm = control(OUR_CTL, servers[0])
    assert [l.split("=")[0] for l in without_time(ours_shm.stdout)
            if not l.startswith(("mem.", "histogram.", "thread"))] == \
        [l.split("=")[0] for l in without_time(deb)
         if not l.startswith(("mem.", "histogram.", "thread"))]


def test_no_segments_is_an_error(servers, tmp_path):
    """stats_shm with nothing at the key: Unbound's fatal error, exit 1,
    from both clients."""
    srv = Server(tmp_path)
    key = free_key()
    srv.write_config(body(key))
    for ctl in (OUR_CTL, DEB_CTL):
        r = control(ctl, srv)
        assert r.returncode == 1
        assert re.search(r"unbound-control\[\d+:0\] fatal error: "
                         r"shmget\(%d\): No such file or directory" % key,
                         r.stderr), r.stderr


@pytest.mark.parametrize("cls", [Server, RefServer],
                         ids=["ours", "unbound-1.17"])
def test_segments_replaced_and_removed(tmp_path, cls):
    """A segment already at the key (a crashed run's, too small) is
    replaced; statistics-interval 0 is warned about; a reload to another
    shm-key moves the segments; both are gone after a clean stop, as
    Unbound's."""
    key = free_key()
    keys = [key]
    old = LIBC.shmget(ctypes.c_int(key), ctypes.c_size_t(8), 0o1644)
    assert old >= 0
    srv = cls(tmp_path)
    try:
        srv.start(body(key, interval=0))
        wait_segments(key)
        # (the kernel may give the new segment the old one's id) the
        # reader refuses a segment smaller than the layout's: 8 bytes
        # would be an error
        r = control(OUR_CTL, srv)
        assert r.returncode == 0, r.stderr
        # never written with interval 0: the zeroes of the start
        assert values(r.stdout)["total.num.queries"] == "0"
        assert "shm-enable is yes but statistics-interval is 0" in \
            srv.log()
        # a reload with another key: the new pair made, the old removed
        moved = free_key()
        keys.append(moved)
        srv.write_config(body(moved, interval=0))
        srv.send_signal(signal.SIGHUP)
        deadline = time.time() + 10
        while time.time() < deadline and not (
                shm_id(moved) >= 0 and shm_id(moved + 1) >= 0 and
                shm_id(key) < 0 and shm_id(key + 1) < 0):
            time.sleep(0.05)
        assert shm_id(moved) >= 0 and shm_id(moved + 1) >= 0
        assert shm_id(key) < 0 and shm_id(key + 1) < 0
        srv.wait_ready()
        assert srv.stop() == 0
        key = moved
        assert shm_id(key) < 0 and shm_id(key + 1) < 0
    finally:
        srv.stop()
        for k in keys:
            remove_key(k)
            remove_key(k + 1)
