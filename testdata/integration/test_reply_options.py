# SPDX-License-Identifier: BSD-3-Clause
"""EDNS options in replies and the reply log lines, side by side with
Debian's Unbound 1.17 under the same config: nsid: (RFC 5001),
edns-tcp-keepalive: (RFC 7828), log-replies: (cache hits, local data and
answers after recursion), log-servfail:. One server of each kind for
the whole file."""
import re
import subprocess
import time

import dns.edns
import dns.message
import dns.rcode
import pytest

from conftest import (CHECKCONF_BIN, RefServer, Server, Upstream,
                      answer_texts, make_query, rcode_of)

NSID = b"ours-29"
LOCAL = 'local-data: "www.local.example. A 192.0.2.9"'


class RefusingUpstream(Upstream):
    """Answers every query REFUSED: the resolver's answer is SERVFAIL."""

    def respond(self, q, qname, qtype):
        r = dns.message.make_response(q)
        r.set_rcode(dns.rcode.REFUSED)
        return r


@pytest.fixture(scope="module")
def upstreams():
    up, bad = Upstream(), RefusingUpstream()
    yield up, bad
    up.close()
    bad.close()


@pytest.fixture(scope="module", params=["ours", "debian"])
def srv(request, tmp_path_factory, upstreams):
    up, bad = upstreams
    cls = Server if request.param == "ours" else RefServer
    s = cls(tmp_path_factory.mktemp("replyopts-" + request.param))
    s.start(LOCAL + "\nnsid: \"ascii_%s\"\n" % NSID.decode() +
            "edns-tcp-keepalive: yes\n"
            "edns-tcp-keepalive-timeout: 30000\n"
            "log-replies: yes\nlog-servfail: yes",
            extra=up.stub_zone("rec.example.") + bad.stub_zone("bad.example."))
    yield s
    s.stop()


def options(reply, code):
    return [o for o in reply.options if o.otype == code]


def opt_query(name, *opts, rdtype="A"):
    q = make_query(name, rdtype)
    q.use_edns(0, 0, 1232, options=list(opts))
    return q


NSID_OPT = dns.edns.GenericOption(dns.edns.NSID, b"")
KEEPALIVE = dns.edns.GenericOption(11, b"")


@pytest.mark.parametrize("tcp", [False, True])
def test_nsid(srv, tcp):
    """The NSID option comes back with the configured identifier when the
    query asks for it (local data and recursion, UDP and TCP), and not
    otherwise."""
    for name in ("www.local.example.", "a%d.rec.example." % tcp):
        r = srv.query(opt_query(name, NSID_OPT), tcp=tcp)
        assert rcode_of(r) == "NOERROR", r
        assert [o.data for o in options(r, dns.edns.NSID)] == [NSID], r
        # the second time from the cache
        r = srv.query(opt_query(name, NSID_OPT), tcp=tcp)
        assert [o.data for o in options(r, dns.edns.NSID)] == [NSID], r
        r = srv.query(opt_query(name), tcp=tcp)
        assert options(r, dns.edns.NSID) == [], r


def test_keepalive(srv):
    """Over TCP a query with an empty keepalive option gets the timeout in
    units of 100 ms; over UDP, or without the option, none; one with data
    is a FORMERR."""
    want = (30000 // 100).to_bytes(2, "big")
    for name in ("www.local.example.", "k.rec.example."):
        r = srv.query(opt_query(name, KEEPALIVE), tcp=True)
        assert rcode_of(r) == "NOERROR", r
        assert [o.data for o in options(r, 11)] == [want], r
        r = srv.query(opt_query(name, KEEPALIVE))
        assert options(r, 11) == [], r
        r = srv.query(opt_query(name), tcp=True)
        assert options(r, 11) == [], r
    r = srv.query(opt_query("www.local.example.",
                            dns.edns.GenericOption(11, b"\x00\x05")),
                  tcp=True)
    assert rcode_of(r) == "FORMERR", r


def test_kdig_nsid_keepalive(srv):
    """A real client: kdig +nsid, with the keepalive option (+ednsopt=11)
    over TCP, shows both."""
    out = subprocess.run(["kdig", "@127.0.0.1", "-p", str(srv.port),
                          "+tcp", "+nsid", "+ednsopt=11", "+time=3",
                          "www.local.example.", "A"], capture_output=True,
                         text=True, timeout=10).stdout
    assert ';; NSID: 6F7572732D3239 "ours-29"' in out, out
    assert ";; Option (11): 012C" in out, out


def wait_lines(srv, pattern, n=1, timeout=5.0):
    deadline = time.time() + timeout
    while True:
        found = re.findall(pattern, srv.log(), re.M)
        if len(found) >= n or time.time() > deadline:
            return found
        time.sleep(0.05)


def test_log_replies(srv):
    """log-replies: a reply after recursion is logged with the time it
    took and cached 0; the same from the cache, and local data, with
    0.000000 and cached 1; UDP and TCP alike."""
    name = "logged.rec.example."
    assert answer_texts(srv.query(name)) == [name + " A 192.0.2.253"]
    srv.query(name, tcp=True)
    srv.query("www.local.example.")
    line = r"info: 127\.0\.0\.1 %s A IN NOERROR (\d+\.\d{6}) ([01]) (\d+)$"
    rec = wait_lines(srv, line % re.escape(name), 2)
    assert len(rec) == 2, srv.log()
    assert rec[0][1] == "0" and rec[0][0] != "0.000000", rec
    assert rec[1][:2] == ("0.000000", "1"), rec
    assert rec[0][2] == rec[1][2], rec
    local = wait_lines(srv, line % r"www\.local\.example\.")
    assert local and local[-1][:2] == ("0.000000", "1"), srv.log()


def test_log_servfail(srv):
    """log-servfail: Unbound's error line names the failed question."""
    r = srv.query("x.bad.example.", timeout=8.0)
    assert rcode_of(r) == "SERVFAIL", r
    got = wait_lines(srv, r"error: SERVFAIL <x\.bad\.example\. A IN>: .+$")
    assert got, srv.log()
    # the reply itself is logged as well
    assert wait_lines(srv, r"info: 127\.0\.0\.1 x\.bad\.example\. A IN "
                      r"SERVFAIL \d+\.\d{6} 0 \d+$"), srv.log()


@pytest.mark.parametrize("binary", [CHECKCONF_BIN,
                                    "/usr/sbin/unbound-checkconf"])
@pytest.mark.parametrize("value,ok", [("ascii_x y", True),
                                      ("0a0B", True), ("abc", False),
                                      ("0x0a", False), ("zz", False)])
def test_nsid_values(tmp_path, binary, value, ok):
    """nsid: hex digits or "ascii_" and text, else an error, as Unbound."""
    conf = tmp_path / "u.conf"
    conf.write_text('server:\n\tnsid: "%s"\n\tchroot: ""\n'
                    '\tusername: ""\n' % value)
    r = subprocess.run([binary, str(conf)], capture_output=True, text=True,
                       timeout=10)
    assert (r.returncode == 0) == ok, r.stdout + r.stderr
    if not ok:
        assert "the NSID must be either a hex string" in r.stderr + \
            r.stdout, r.stderr
