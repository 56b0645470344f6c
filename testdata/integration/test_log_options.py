# SPDX-License-Identifier: BSD-3-Clause
"""The log line options of Unbound 1.18+ (not in Debian's 1.17, so
checked against Unbound 1.26's documented format): log-time-iso with
log-time-ascii, and log-thread-id."""
import os
import re
import time

import pytest

from conftest import RefServer, Server, answer_texts, ours_only



LOCAL = 'local-data: "www.logopt.test. A 192.0.2.9"'
# compat: unbound-1.26: local time, milliseconds, the offset as +hh:mm
ISO = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d"


def wait_log(srv, pattern, timeout=5.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        m = re.findall(pattern, srv.log(), re.M)
        if m:
            return m
        time.sleep(0.05)
    raise AssertionError("no log line matches %r:\n%s" % (pattern,
                                                          srv.log()))


@pytest.fixture(scope="module")
def iso_tid(tmp_path_factory):
    srv = Server(tmp_path_factory.mktemp("logiso"))
    srv.start(LOCAL + "\nlog-time-ascii: yes\nlog-time-iso: yes\n"
              "log-thread-id: yes\nlog-queries: yes", threads=2)
    yield srv
    srv.stop()


@ours_only
def test_log_time_iso(iso_tid):
    iso_tid.query("www.logopt.test.")
    lines = [l for l in iso_tid.log().splitlines() if l]
    assert lines
    for l in lines:
        assert re.match(ISO + r" unbound\[%d:\d+\] \w+: " % iso_tid.pid,
                        l), l
    # the offset is this machine's local one, as Unbound prints it
    stamp = re.match(ISO, lines[-1]).group(0)
    off = time.strftime("%z")
    assert stamp.endswith(off[:3] + ":" + off[3:])


@ours_only
def test_log_thread_id(iso_tid):
    """Worker lines carry the worker's Linux thread id, the main
    thread's lines the process id (its thread id)."""
    assert answer_texts(iso_tid.query("www.logopt.test.")) == [
        "www.logopt.test. A 192.0.2.9"]
    q = wait_log(iso_tid, r"unbound\[\d+:(\d+)\] info: 127\.0\.0\.1 "
                 r"www\.logopt\.test\. A IN")
    tasks = set(int(t) for t in os.listdir("/proc/%d/task" % iso_tid.pid))
    assert all(int(t) in tasks and int(t) != iso_tid.pid for t in q), q
    main = re.findall(r"unbound\[\d+:(\d+)\] info: start of service",
                      iso_tid.log())
    assert main == [str(iso_tid.pid)]


@ours_only
def test_log_time_iso_needs_ascii(unbound):
    """Without log-time-ascii, log-time-iso changes nothing: the
    [seconds] stamp and thread numbers, as Unbound."""
    unbound.start(LOCAL + "\nlog-time-iso: yes\nlog-queries: yes")
    unbound.query("www.logopt.test.")
    q = wait_log(unbound, r"^\[\d+\] unbound\[\d+:(\d+)\] info: 127\.0\.0\.1 "
                 r"www\.logopt\.test\. A IN")
    assert q == ["0"]


def query_reply_lines(srv):
    """(tag, client, name, type, class[, rcode, size]) of the query and
    reply lines; the time taken and the cached flag left out."""
    out = []
    for l in srv.log().splitlines():
        m = re.match(r"\[\d+\] unbound\[\d+:\d+\] (\w+): (127\.0\.0\.1 "
                     r"www\.logopt\.test\. .*)$", l)
        if m:
            f = m.group(2).split()
            out.append((m.group(1),) + tuple(f[:5]) + tuple(f[7:]))
    return out


@pytest.mark.parametrize("tagged", [False, True])
def test_log_tag_queryreply_as_unbound(tmp_path, tagged):
    """log-tag-queryreply: the query and reply lines tagged "query:" and
    "reply:" instead of "info:", side by side with Debian's Unbound."""
    got = []
    for i, cls in enumerate((Server, RefServer)):
        srv = cls(tmp_path / str(i))
        os.mkdir(srv.dir)
        srv.start(LOCAL + "\nlog-queries: yes\nlog-replies: yes\n"
                  "log-tag-queryreply: %s" % ("yes" if tagged else "no"))
        try:
            srv.query("www.logopt.test.")
            wait_log(srv, r"\d+ \d+$")
            got.append(query_reply_lines(srv))
        finally:
            srv.stop()
    want_tags = ["query", "reply"] if tagged else ["info", "info"]
    assert [g[0] for g in got[0]] == want_tags, got
    assert got[0] == got[1], got


@ours_only
def test_log_destaddr(unbound):
    """log-destaddr (Unbound 1.26, not in 1.17): the reply line ends in
    " on udp|tcp ADDRESS PORT", where the query came to."""
    unbound.start(LOCAL + "\nlog-replies: yes\nlog-destaddr: yes")
    unbound.query("www.logopt.test.")
    unbound.query("www.logopt.test.", tcp=True)
    for how in ("udp", "tcp"):
        wait_log(unbound, r"info: 127\.0\.0\.1 www\.logopt\.test\. A IN "
                 r"NOERROR \d+\.\d{6} \d \d+ on %s 127\.0\.0\.1 %d$" %
                 (how, unbound.port))
