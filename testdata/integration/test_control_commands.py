# SPDX-License-Identifier: BSD-3-Clause
"""Every unbound-control command of the remote-control issue, each over
mutual TLS and over the unix socket, with our client and Debian's: the
answer in Unbound's words and format, and its effect on the running
daemon where it has one. No test internet needed: the cache is filled
with load_cache."""
import re
import subprocess

import pytest

from conftest import SLOW, ours_only
from test_control import (CLIENTS, OUR_CTL, STATUS_RE, keys,  # noqa: F401
                          stats_dict)
from test_control_runtime import CLIENT_IDS, addrs, rcode, start

pytestmark = ours_only

DUMP = ("START_RRSET_CACHE\n;rrset 300 1 0 8 0\n"
        "loaded.example.tld1.\t300\tIN\tA\t192.0.2.77\n"
        ";rrset 300 1 0 8 0\n"
        "other.example.tld1.\t300\tIN\tA\t192.0.2.78\n"
        "END_RRSET_CACHE\nSTART_MSG_CACHE\n"
        "msg loaded.example.tld1. IN A 32896 1 300 0 1 0 0\n"
        "loaded.example.tld1. IN A 0\n"
        "msg other.example.tld1. IN A 32896 1 300 0 1 0 0\n"
        "other.example.tld1. IN A 0\nEND_MSG_CACHE\nEOF\n")
REMOVED_RE = re.compile(r"ok removed (\d+) rrsets, (\d+) messages and 0 key "
                        r"entries\n")


@pytest.mark.parametrize("how", ["tls", "unix"])
@pytest.mark.parametrize("binary", CLIENTS, ids=CLIENT_IDS)
def test_every_command(unbound, keys, how, binary):  # noqa: F811
    start(unbound, how, keys, threads=2,
          body='extended-statistics: yes\n'
               'local-data: "www.sweep.test. A 192.0.2.1"')

    def run(*args, stdin=None):
        return subprocess.run([binary, "-c", unbound.conf] + list(args),
                              input=stdin, capture_output=True, text=True,
                              timeout=20 * SLOW)

    def ok(*args, stdin=None):
        r = run(*args, stdin=stdin)
        assert r.returncode == 0, (args, r.stdout, r.stderr)
        return r.stdout

    # status, verbosity, log_reopen, get_option, set_option
    m = STATUS_RE.fullmatch(ok("status"))
    assert m and int(m.group(1)) == unbound.pid
    assert ok("verbosity", "3") == "ok\n"
    assert "\nverbosity: 3\n" in ok("status")
    assert ok("verbosity", "1") == "ok\n"
    assert ok("log_reopen") == "ok\n"
    assert ok("get_option", "num-threads") == "2\n"
    assert ok("set_option", "cache-max-ttl:", "1234") == "ok\n"
    assert ok("get_option", "cache-max-ttl") == "1234\n"
    # stats, stats_noreset, flush_stats: the queries sent, then zero
    ok("stats")
    for _ in range(5):
        assert addrs(unbound.query("www.sweep.test.")) == ["192.0.2.1"]
    s = stats_dict(ok("stats_noreset"))
    assert s["total.num.queries"] == "5"
    assert int(s["thread0.num.queries"]) + \
        int(s["thread1.num.queries"]) == 5
    assert stats_dict(ok("stats"))["total.num.queries"] == "5"
    assert stats_dict(ok("stats_noreset"))["total.num.queries"] == "0"
    unbound.query("www.sweep.test.")
    assert ok("flush_stats") == "ok\n"
    assert stats_dict(ok("stats_noreset"))["total.num.queries"] == "0"
    # load_cache, dump_cache: the loaded answer comes from the cache
    assert ok("load_cache", stdin=DUMP) == "ok\n"
    assert addrs(unbound.query("loaded.example.tld1.")) == ["192.0.2.77"]
    out = ok("dump_cache")
    assert out.startswith("START_RRSET_CACHE\n") and out.endswith(
        "END_MSG_CACHE\nEOF\n")
    assert "\nmsg loaded.example.tld1. IN A " in out
    # lookup
    assert ok("lookup", "loaded.example.tld1").startswith(
        "The following name servers are used for lookup of "
        "loaded.example.tld1.\n")
    # flush, flush_type, flush_zone, flush_bogus, flush_negative: gone
    # from the cache dump
    assert ok("flush_type", "loaded.example.tld1", "AAAA") == "ok\n"
    assert "msg loaded.example.tld1." in ok("dump_cache")
    assert ok("flush_type", "loaded.example.tld1", "A") == "ok\n"
    assert "msg loaded.example.tld1." not in ok("dump_cache")
    assert ok("load_cache", stdin=DUMP) == "ok\n"
    assert ok("flush", "loaded.example.tld1") == "ok\n"
    out = ok("dump_cache")
    assert "loaded.example.tld1." not in out and \
        "msg other.example.tld1." in out
    assert ok("flush_bogus") == ("ok removed 0 rrsets, 0 messages and 0 "
                                 "key entries\n")
    assert REMOVED_RE.fullmatch(ok("flush_negative"))
    m = REMOVED_RE.fullmatch(ok("flush_zone", "example.tld1"))
    assert m and m.groups() == ("1", "1"), m
    assert "example.tld1." not in ok("dump_cache")
    # flush_infra, dump_infra, flush_requestlist, dump_requestlist
    assert ok("flush_infra", "all") == "ok\n"
    assert ok("flush_infra", "127.0.0.1") == "ok\n"
    assert ok("dump_infra") == ""
    assert ok("flush_requestlist") == "ok\n"
    assert ok("dump_requestlist").startswith(
        "thread #0\n#   type cl name    seconds    module status\n")
    # local_zone, local_data, their removal and the lists
    assert ok("local_zone", "z.sweep.test.", "static") == "ok\n"
    assert rcode(unbound.query("x.z.sweep.test.")) == "NXDOMAIN"
    assert ok("local_data", "a.z.sweep.test. 60 IN A 192.0.2.5") == "ok\n"
    assert addrs(unbound.query("a.z.sweep.test.")) == ["192.0.2.5"]
    assert "z.sweep.test. static\n" in ok("list_local_zones")
    assert "a.z.sweep.test.\t60\tIN\tA\t192.0.2.5\n" in \
        ok("list_local_data")
    assert ok("local_data_remove", "a.z.sweep.test.") == "ok\n"
    assert rcode(unbound.query("a.z.sweep.test.")) == "NXDOMAIN"
    assert ok("local_zone_remove", "z.sweep.test.") == "ok\n"
    assert "z.sweep.test." not in ok("list_local_zones")
    # the bulk forms, lines on stdin
    assert ok("local_zones", stdin="b.sweep.test. redirect\n") == \
        "added 1 zones\n"
    assert ok("local_datas", stdin="b.sweep.test. A 192.0.2.6\n") == \
        "added 1 datas\n"
    assert addrs(unbound.query("any.b.sweep.test.")) == ["192.0.2.6"]
    assert ok("local_datas_remove", stdin="b.sweep.test.\n") == \
        "removed 1 datas\n"
    assert ok("local_zones_remove", stdin="b.sweep.test.\n") == \
        "removed 1 zones\n"
    assert "b.sweep.test." not in ok("list_local_zones")
    # forward_add/remove, stub_add/remove, the lists, forward
    assert ok("forward_add", "fw.example.", "127.0.0.7") == "ok\n"
    assert "fw.example. IN forward 127.0.0.7\n" in ok("list_forwards")
    assert ok("forward_remove", "fw.example.") == "ok\n"
    assert "fw.example." not in ok("list_forwards")
    assert ok("stub_add", "st.example.", "127.0.0.8") == "ok\n"
    assert "st.example. IN stub noprime 127.0.0.8\n" in ok("list_stubs")
    assert ok("stub_remove", "st.example.") == "ok\n"
    assert "st.example." not in ok("list_stubs")
    assert ok("forward") == "off (using root hints)\n"
    assert ok("forward", "127.0.0.9") == "ok\n"
    assert ok("forward") == "127.0.0.9\n"
    assert ok("forward", "off") == "ok\n"
    assert ok("forward") == "off (using root hints)\n"
    # insecure_add/remove
    assert ok("insecure_add", "ins.example.") == "ok\n"
    assert "ins.example.\n" in ok("list_insecure")
    assert ok("insecure_remove", "ins.example.") == "ok\n"
    assert "ins.example." not in ok("list_insecure")
    # errors: an unknown command, a malformed argument
    r = run("nosuchcommand", "x")
    assert (r.returncode, r.stdout) == (
        1, "error unknown command 'nosuchcommand x'\n")
    r = run("flush_zone", "a..b")
    assert (r.returncode, r.stdout) == (
        1, "error cannot parse name a..b at 3: Empty label\n")
    # reload, reload_keep_cache, reload +keep-cache: the cache goes or
    # stays
    assert ok("load_cache", stdin=DUMP) == "ok\n"
    assert ok("reload_keep_cache") == "ok\n"
    assert "msg loaded.example.tld1." in ok("dump_cache")
    assert ok("reload", "+keep-cache") == "ok\n"
    assert "msg loaded.example.tld1." in ok("dump_cache")
    assert ok("reload") == "ok\n"
    assert "loaded.example.tld1." not in ok("dump_cache")
    assert addrs(unbound.query("www.sweep.test.")) == ["192.0.2.1"]
    # stop
    assert ok("stop") == "ok\n"
    assert unbound.proc.wait(10 * SLOW) == 0
