# SPDX-License-Identifier: BSD-3-Clause
"""Remote control commands that change the running daemon without a
reload: local_zone/local_data and their bulk forms (lines on stdin),
list_local_zones/list_local_data, forward/forward_add/stub_add and their
removal, insecure_*, set_option. Over TLS and the unix socket, with our
unbound-control and Debian's; each change shows in the answers, list
outputs are compared with Debian's Unbound 1.17 where it runs here, and
bad input gets Unbound's error lines while the daemon keeps serving."""
import os
import subprocess
import sys
import threading

import dns.exception
import dns.rcode
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)
from testnet.fixture import testnet_net  # noqa: E402,F401

from conftest import ours_only  # noqa: E402
from test_control import (CLIENTS, DEB_UNBOUND, OUR_CTL, RefServer,  # noqa
                          ctl, keys, rc_clause, start_tls)

pytestmark = ours_only

CLIENT_IDS = ["ours" if c == OUR_CTL else "debian" for c in CLIENTS]


def start(srv, how, keys, body="", **kw):
    """Start srv with the control channel over TLS or a unix socket."""
    if how == "tls":
        return start_tls(srv, keys, body=body, **kw)
    path = os.path.join(srv.dir, "ctl.sock")
    return srv.start(body, extra=rc_clause(None, iface=path, use_cert=False),
                     **kw)


def run(srv, binary, *args, stdin=None):
    r = subprocess.run([binary, "-c", srv.conf] + list(args), input=stdin,
                       capture_output=True, text=True, timeout=20)
    return r


def ok(srv, binary, *args, stdin=None):
    r = run(srv, binary, *args, stdin=stdin)
    assert r.returncode == 0, (args, r.stdout, r.stderr)
    return r.stdout


def addrs(reply):
    return sorted(rd.address for rr in reply.answer for rd in rr
                  if hasattr(rd, "address"))


def unresolved(srv, name):
    """name gets no address: SERVFAIL, or no answer yet (the dead root
    of the harness is being retried)."""
    try:
        r = srv.query(name, timeout=4)
    except dns.exception.Timeout:
        return True
    return not addrs(r) and rcode(r) == "SERVFAIL"


def rcode(reply):
    return dns.rcode.to_text(reply.rcode())


@pytest.mark.parametrize("how", ["tls", "unix"])
@pytest.mark.parametrize("binary", CLIENTS, ids=CLIENT_IDS)
def test_local_zone_and_data(unbound, keys, how, binary):
    start(unbound, how, keys, body="local-zone: outer.example. refuse")
    assert ok(unbound, binary, "local_zone", "rt.outer.example.",
              "static") == "ok\n"
    assert rcode(unbound.query("www.rt.outer.example.")) == "NXDOMAIN"
    assert ok(unbound, binary, "local_data",
              "www.rt.outer.example. 300 IN A 192.0.2.77") == "ok\n"
    r = unbound.query("www.rt.outer.example.")
    assert addrs(r) == ["192.0.2.77"] and r.answer[0].ttl == 300
    # a second RR joins the RRset; another type at the same name
    ok(unbound, binary, "local_data", "www.rt.outer.example. A 192.0.2.78")
    ok(unbound, binary, "local_data", 'www.rt.outer.example. TXT "hello"')
    assert addrs(unbound.query("www.rt.outer.example.")) == \
        ["192.0.2.77", "192.0.2.78"]
    assert unbound.query("www.rt.outer.example.", "TXT").answer
    # the empty non-terminal above deeper data is NODATA, not NXDOMAIN
    ok(unbound, binary, "local_data", "a.b.rt.outer.example. A 192.0.2.9")
    r = unbound.query("b.rt.outer.example.")
    assert rcode(r) == "NOERROR" and not r.answer
    zones = ok(unbound, binary, "list_local_zones")
    assert "rt.outer.example. static\n" in zones
    assert "outer.example. refuse\n" in zones
    data = ok(unbound, binary, "list_local_data")
    assert "www.rt.outer.example.\t300\tIN\tA\t192.0.2.77\n\n" in data
    # the type of an existing zone changes
    ok(unbound, binary, "local_zone", "rt.outer.example.", "refuse")
    assert rcode(unbound.query("nothere.rt.outer.example.")) == "REFUSED"
    ok(unbound, binary, "local_zone", "rt.outer.example.", "static")
    # removing a name: its RRsets go, the ENT above it too
    assert ok(unbound, binary, "local_data_remove",
              "a.b.rt.outer.example.") == "ok\n"
    assert rcode(unbound.query("b.rt.outer.example.")) == "NXDOMAIN"
    assert rcode(unbound.query("a.b.rt.outer.example.")) == "NXDOMAIN"
    ok(unbound, binary, "local_data_remove", "www.rt.outer.example.")
    assert rcode(unbound.query("www.rt.outer.example.")) == "NXDOMAIN"
    # removing the zone: the enclosing one answers again
    assert ok(unbound, binary, "local_zone_remove",
              "rt.outer.example.") == "ok\n"
    assert rcode(unbound.query("www.rt.outer.example.")) == "REFUSED"
    assert "rt.outer.example." not in ok(unbound, binary, "list_local_zones")
    # local data outside any zone makes a transparent zone, as Unbound
    ok(unbound, binary, "local_data", "solo.example. A 192.0.2.5")
    assert addrs(unbound.query("solo.example.")) == ["192.0.2.5"]
    assert "solo.example. transparent\n" in \
        ok(unbound, binary, "list_local_zones")
    # a default zone can be removed like any other
    ok(unbound, binary, "local_zone_remove", "localhost.")
    assert "localhost. redirect" not in ok(unbound, binary,
                                           "list_local_zones")


@pytest.mark.parametrize("how", ["tls", "unix"])
@pytest.mark.parametrize("binary", CLIENTS, ids=CLIENT_IDS)
def test_bulk_commands(unbound, keys, how, binary):
    start(unbound, how, keys)
    r = run(unbound, binary, "local_zones",
            stdin="z1.test. static\nz2.test. refuse\n\nz3.test. deny\n")
    # an empty line is not a zone: Unbound 1.17 says so, goes on
    assert r.stdout == "error could not find next argument after \n" \
        "error for input line: \nadded 3 zones\n", r.stdout
    assert rcode(unbound.query("x.z2.test.")) == "REFUSED"
    lines = "".join("h%d.z1.test. A 192.0.2.%d\n" % (i, i % 250 + 1)
                    for i in range(2000))
    assert ok(unbound, binary, "local_datas", stdin=lines) == \
        "added 2000 datas\n"
    assert addrs(unbound.query("h1999.z1.test.")) == ["192.0.2.250"]
    assert addrs(unbound.query("h7.z1.test.")) == ["192.0.2.8"]
    rm = "".join("h%d.z1.test.\n" % i for i in range(1000))
    assert ok(unbound, binary, "local_datas_remove", stdin=rm) == \
        "removed 1000 datas\n"
    assert rcode(unbound.query("h7.z1.test.")) == "NXDOMAIN"
    assert addrs(unbound.query("h1007.z1.test.")) == ["192.0.2.8"]
    assert ok(unbound, binary, "local_zones_remove",
              stdin="z1.test.\nz2.test.\n") == "removed 2 zones\n"
    zones = ok(unbound, binary, "list_local_zones")
    assert "z1.test." not in zones and "z3.test. deny\n" in zones
    # no input at all
    assert ok(unbound, binary, "local_datas", stdin="") == "added 0 datas\n"


@pytest.mark.parametrize("binary", CLIENTS, ids=CLIENT_IDS)
def test_bad_input(unbound, keys, binary):
    start(unbound, "tls", keys, body="local-zone: ex.test. static")
    cases = [
        (["local_zone"], "error could not find next argument after \n"),
        (["local_zone", "a.test."],
         "error could not find next argument after a.test.\n"),
        (["local_zone", "a.test.", "bogus"],
         "error not a zone type. bogus\n"),
        (["local_zone", "bad..name", "static"],
         "error cannot parse name bad..name at 5: Empty label\n"),
        (["local_zone_remove"], "error: this option requires a domain "
         "name\n"),
        (["local_data_remove", "x..y"],
         "error cannot parse name x..y at 3: Empty label\n"),
        (["local_data_remove", "a" * 70 + ".test."],
         "error cannot parse name %s.test. at 71: Label length "
         "overflow\n" % ("a" * 70)),
        (["forward_add", "fw.test."],
         "error could not find next argument after fw.test.\n"),
        (["forward_add", "fw.test.", "1.2.3.x.."],
         "error cannot parse '1.2.3.x..'\n"),
        (["forward_add", "+x", "fw.test.", "1.2.3.4"],
         "error: unknown option x\n"),
        (["stub_add", "+q", "st.test.", "1.2.3.4"],
         "error: unknown option q\n"),
        (["forward", "a..b"], "error cannot parse 'a..b'\n"),
        (["insecure_add"], "error: this option requires a domain name\n"),
        (["set_option"], "error could not find next argument after \n"),
        (["set_option", "interface:", "127.0.0.5"], "error setting option\n"),
        (["set_option", "num-threads:", "3"], "error setting option\n"),
        (["set_option", "nonsense:", "3"], "error setting option\n"),
        (["set_option", "cache-max-ttl:", "abc"], "error setting option\n"),
        (["set_option", "do-tcp:", "maybe"], "error setting option\n"),
    ]
    for args, want in cases:
        r = run(unbound, binary, *args)
        assert (r.returncode, r.stdout) == (1, want), (args, r.stdout,
                                                       r.stderr)
    # bad RR text: Unbound's words and position
    for args, want in (
            (["a.ex.test.", "A", "notanip"], "at position 13 'a.ex.test. A "
             "notanip': Conversion error, ip4 addr expected"),
            ([], "at position 0 '': Syntax error, could not parse the RR"),
            (["a.ex.test.", "BOGUS"], "at position 16 'a.ex.test. BOGUS': "
             "Syntax error, could not parse the RR's type"),
            (["a.ex.test.", "MX", "x", "m.test."], "at position 15 "
             "'a.ex.test. MX x m.test.': Conversion error, integer "
             "expected"),
            (["a..ex.test.", "A", "192.0.2.1"], "at position 4 'a..ex.test. "
             "A 192.0.2.1': Empty label"),
            (["a.ex.test."], "at position 10 'a.ex.test.': Syntax error, "
             "could not parse the RR's TTL"),
            # nothing before a comment (a fuzzer's find: no owner word)
            ([";c.ex.test.", "A", "192.0.2.1"], "at position 0 ';c.ex.test. "
             "A 192.0.2.1': Syntax error, could not parse the RR")):
        r = run(unbound, binary, "local_data", *args)
        assert (r.returncode, r.stdout) == (
            1, "error parsing local-data %s\n" % want), r.stdout
    # what ldns refuses without a position: the reason only
    r = run(unbound, binary, "local_data", "a.ex.test. SSHFP 1 1 zz")
    assert r.returncode == 1 and r.stdout.startswith(
        "error parsing local-data 'a.ex.test. SSHFP 1 1 zz': "), r.stdout
    # removing what is not there is fine, as in Unbound
    for args in (["local_zone_remove", "nothere.test."],
                 ["local_data_remove", "nothere.ex.test."],
                 ["forward_remove", "nothere.test."],
                 ["stub_remove", "nothere.test."],
                 ["insecure_remove", "nothere.test."]):
        assert ok(unbound, binary, *args) == "ok\n", args
    # bulk: bad lines are reported and counted out, the rest applies
    r = run(unbound, binary, "local_zones", stdin="z1.test. static\n"
            "bad..zone static\nz3.test. nonsense\nz4.test. static\n")
    assert r.stdout == ("error cannot parse name bad..zone at 5: Empty "
                        "label\nerror for input line: bad..zone\n"
                        "error not a zone type. nonsense\nerror for input "
                        "line: z3.test.\nadded 2 zones\n"), r.stdout
    r = run(unbound, binary, "local_datas", stdin="q.z1.test. A 1.2.3.4\n"
            "broken rr here\nz.z1.test. AAAA 1.2.3.4\n")
    assert r.stdout == (
        "error parsing local-data at line 2 position 10 'broken rr here': "
        "Syntax error, could not parse the RR's type\n"
        "error parsing local-data at line 3 position 16 'z.z1.test. AAAA "
        "1.2.3.4': Conversion error, ip6 addr expected\n"
        "added 1 datas\n"), r.stdout
    # very long lines: a command line over 4096 bytes, and one in a bulk
    long_txt = 'long.ex.test. TXT "%s"' % ("x" * 250 + '" "') * 20
    r = run(unbound, binary, "local_data", long_txt)
    assert r.returncode == 1 and r.stdout == "error command line too long\n"
    r = run(unbound, binary, "local_datas",
            stdin="ok1.ex.test. A 192.0.2.1\n" + long_txt + "\n"
            "ok2.ex.test. A 192.0.2.2\n")
    assert r.stdout.startswith("error for input line: long.ex.test. TXT")
    assert r.stdout.endswith("added 2 datas\n"), r.stdout
    assert addrs(unbound.query("ok2.ex.test.")) == ["192.0.2.2"]
    # a long line under the limit is fine
    txt = 'big.ex.test. TXT ' + " ".join('"%s"' % ("y" * 200)
                                          for _ in range(15))
    assert ok(unbound, binary, "local_data", txt) == "ok\n"
    assert unbound.query("big.ex.test.", "TXT", tcp=True).answer
    # the daemon still serves, and nothing changed that should not
    assert rcode(unbound.query("a.ex.test.")) == "NXDOMAIN"
    assert unbound.alive()


def test_bulk_by_hand(unbound, tmp_path):
    """The protocol of the bulk commands: lines after the command line,
    ended by a line "\\004"; CRLF is taken; a client that closes without
    the end marker still gets its lines applied, as in Unbound."""
    import socket
    path = str(tmp_path / "ctl.sock")
    unbound.start(extra=rc_clause(None, iface=path, use_cert=False))

    def exchange(data, shut=False):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(10)
            s.connect(path)
            s.sendall(data)
            if shut:
                s.shutdown(socket.SHUT_WR)
            out = b""
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    return out
                out += chunk
    assert exchange(b"UBCT1 local_datas\na.hand.test. A 192.0.2.1\r\n"
                    b"b.hand.test. A 192.0.2.2\n\x04\n") == \
        b"added 2 datas\n"
    assert addrs(unbound.query("b.hand.test.")) == ["192.0.2.2"]
    assert exchange(b"UBCT1 local_datas_remove\na.hand.test.\n",
                    shut=True) == b"removed 1 datas\n"
    assert not unbound.query("a.hand.test.").answer
    # the command and its lines may come in one piece or byte by byte
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(10)
        s.connect(path)
        for b in b"UBCT1 local_zones\nbyte.test. refuse\n\x04\n":
            s.sendall(bytes([b]))
        assert s.recv(4096) == b"added 1 zones\n"
    assert rcode(unbound.query("x.byte.test.")) == "REFUSED"


@pytest.mark.parametrize("binary", CLIENTS, ids=CLIENT_IDS)
def test_forward_and_stub_add(unbound, keys, binary, testnet_net):
    """Names under a forward_add/stub_add zone resolve through the test
    internet's server for it; removal undoes it."""
    net = testnet_net
    ex1 = "%s@%d" % (net.address("example1"), net.port)
    start(unbound, "tls", keys, threads=2)
    assert ok(unbound, binary, "forward_add", "example.tld1.", ex1) == "ok\n"
    assert addrs(unbound.query("www.example.tld1.", timeout=8)) == \
        ["192.0.2.10"]
    assert ok(unbound, binary, "list_forwards") == \
        "example.tld1. IN forward %s\n" % net.address("example1")
    assert ok(unbound, binary, "forward_remove", "example.tld1.") == "ok\n"
    assert ok(unbound, binary, "list_forwards") == ""
    # the delegation the forwarder's answers left in the cache would
    # still lead there (as in Unbound): flush it; the root is dead
    ok(unbound, binary, "flush_zone", "example.tld1.")
    assert unresolved(unbound, "mail.example.tld1.")
    assert ok(unbound, binary, "stub_add", "example.tld1.", ex1) == "ok\n"
    assert ok(unbound, binary, "list_stubs").endswith(
        "example.tld1. IN stub noprime %s\n" % net.address("example1"))
    assert addrs(unbound.query("mail.example.tld1.", timeout=8)) == \
        ["192.0.2.25"]
    assert ok(unbound, binary, "stub_remove", "example.tld1.") == "ok\n"
    assert "example.tld1." not in ok(unbound, binary, "list_stubs")
    ok(unbound, binary, "flush_zone", "example.tld1.")
    assert unresolved(unbound, "a.ent.example.tld1.")
    # forward: the root's forwarders
    assert ok(unbound, binary, "forward") == "off (using root hints)\n"
    assert ok(unbound, binary, "forward", ex1) == "ok\n"
    assert ok(unbound, binary, "forward") == \
        "%s\n" % net.address("example1")
    assert addrs(unbound.query("exact.wild.example.tld1.", timeout=8)) == \
        ["192.0.2.51"]
    assert ok(unbound, binary, "forward", "off") == "ok\n"
    assert ok(unbound, binary, "forward") == "off (using root hints)\n"
    # +i marks the zone insecure too (kept for a validator)
    ok(unbound, binary, "forward_add", "+i", "example.tld1.", ex1)
    assert ok(unbound, binary, "list_insecure") == "example.tld1.\n"
    ok(unbound, binary, "forward_remove", "+i", "example.tld1.")
    assert ok(unbound, binary, "list_insecure") == ""


@pytest.mark.parametrize("binary", CLIENTS, ids=CLIENT_IDS)
def test_insecure_and_set_option(unbound, keys, binary):
    start(unbound, "unix", keys, body="domain-insecure: conf.test")
    assert ok(unbound, binary, "list_insecure") == "conf.test.\n"
    assert ok(unbound, binary, "insecure_add", "b.test") == "ok\n"
    assert ok(unbound, binary, "insecure_add", "a.b.test.") == "ok\n"
    assert ok(unbound, binary, "insecure_add", "b.test.") == "ok\n"
    assert ok(unbound, binary, "list_insecure") == \
        "b.test.\na.b.test.\nconf.test.\n"
    assert ok(unbound, binary, "insecure_remove", "b.test") == "ok\n"
    assert ok(unbound, binary, "list_insecure") == "a.b.test.\nconf.test.\n"
    assert ok(unbound, binary, "get_option", "domain-insecure") == \
        "conf.test\na.b.test.\n"
    # set_option: "ok", get_option shows it, and it takes effect
    assert ok(unbound, binary, "set_option", "cache-max-ttl:", "100") == \
        "ok\n"
    assert ok(unbound, binary, "get_option", "cache-max-ttl") == "100\n"
    assert ok(unbound, binary, "set_option", "cache-max-ttl", "200") == \
        "ok\n"
    assert ok(unbound, binary, "get_option", "cache-max-ttl") == "200\n"
    assert unbound.query("version.bind.", "TXT", "CH").answer
    assert ok(unbound, binary, "set_option", "hide-version:", "yes") == \
        "ok\n"
    assert ok(unbound, binary, "get_option", "hide-version") == "yes\n"
    assert rcode(unbound.query("version.bind.", "TXT", "CH")) == "REFUSED"
    # an option that is not implemented yet is kept and shown
    assert ok(unbound, binary, "set_option", "val-bogus-ttl:", "33") == \
        "ok\n"
    assert ok(unbound, binary, "get_option", "val-bogus-ttl") == "33\n"
    # what Unbound 1.17 takes, and what it refuses
    for opt, val in (("serve-expired-ttl:", "8"), ("deny-any:", "yes"),
                     ("tls-upstream:", "yes"), ("local-zone:",
                                                "x.test. static")):
        assert ok(unbound, binary, "set_option", opt, val) == "ok\n", opt
    for opt, val in (("access-control-view:", "127.0.0.0/8 v"),
                     ("control-use-cert:", "no"),
                     ("send-client-subnet:", "127.0.0.1")):
        r = run(unbound, binary, "set_option", opt, val)
        assert r.stdout == "error setting option\n", (opt, r.stdout)
    # a value the running snapshot cannot be built from is refused
    r = run(unbound, binary, "set_option", "root-hints:", "/nonexistent")
    assert r.stdout == "error setting option\n"
    assert ok(unbound, binary, "get_option", "root-hints") != \
        "/nonexistent\n"
    # local data added at run time survives a set_option
    ok(unbound, binary, "local_data", "keep.test. A 192.0.2.3")
    ok(unbound, binary, "set_option", "verbosity:", "2")
    assert addrs(unbound.query("keep.test.")) == ["192.0.2.3"]


def test_reload_forgets_changes(unbound, keys):
    start(unbound, "tls", keys)
    ok(unbound, OUR_CTL, "local_data", "gone.test. A 192.0.2.4")
    ok(unbound, OUR_CTL, "set_option", "cache-max-ttl:", "100")
    ok(unbound, OUR_CTL, "insecure_add", "gone.test.")
    assert addrs(unbound.query("gone.test.")) == ["192.0.2.4"]
    assert ok(unbound, OUR_CTL, "reload") == "ok\n"
    assert not unbound.query("gone.test.", timeout=8).answer
    assert ok(unbound, OUR_CTL, "get_option", "cache-max-ttl") == "86400\n"
    assert ok(unbound, OUR_CTL, "list_insecure") == ""


def test_changes_while_serving(unbound, keys):
    """Workers keep answering from the snapshot they hold while changes
    are published; every answer is either the old or the new data."""
    start(unbound, "unix", keys, threads=2,
          body="local-zone: busy.test. static")
    stop = threading.Event()
    bad = []

    def query_loop():
        while not stop.is_set():
            r = unbound.query("a.busy.test.", timeout=3)
            if rcode(r) not in ("NOERROR", "NXDOMAIN"):
                bad.append(rcode(r))
    t = threading.Thread(target=query_loop)
    t.start()
    try:
        for i in range(30):
            ok(unbound, OUR_CTL, "local_data", "a.busy.test. A 192.0.2.%d"
               % (i + 1))
            ok(unbound, OUR_CTL, "local_data_remove", "a.busy.test.")
    finally:
        stop.set()
        t.join(10)
    assert not bad
    assert unbound.alive()


@pytest.mark.skipif(not os.path.exists(DEB_UNBOUND),
                    reason="Debian's unbound not installed")
def test_lists_match_reference(unbound, tmp_path):
    """The same commands to ours and to Debian's Unbound 1.17 give the
    same answers and list outputs."""
    body = ('local-zone: "example.org." static\n'
            'local-data: "www.example.org. A 192.0.2.1"\n'
            'local-data: "www.example.org. AAAA 2001:db8::1"\n'
            'local-data: "www.example.org. TXT \'a b\'"\n'
            'local-data: "mx.example.org. MX 10 www.example.org."\n'
            'local-zone: "other.test." redirect\n'
            'local-data: "other.test. A 192.0.2.9"\n')
    cmds = [["local_zone", "foo.test.", "static"],
            ["local_zone", "foo.test.", "redirect"],
            ["local_zone", "bar.test.", "typetransparent"],
            ["local_data", "a.foo.test.", "A", "192.0.2.5"],
            ["local_data", "b.bar.test. 120 IN TXT \"some text\""],
            ["local_data", "x.localhost.", "A", "192.0.2.6"],
            ["local_data", "c.bar.test.", "AAAA", "2001:db8::1"],
            ["local_data", "c.bar.test.", "A", "192.0.2.7"],
            ["local_data", "www.example.org.", "MX", "5", "mx.example.org."],
            ["local_data_remove", "1.0.0.127.in-addr.arpa."],
            ["local_zone_remove", "10.in-addr.arpa."],
            ["list_local_zones"], ["list_local_data"],
            ["forward", "192.0.2.1@5353", "127.0.0.2"], ["forward"],
            ["forward_add", "fw.test.", "127.0.0.1", "127.0.0.2",
             "n1.test", "n2.test"],
            ["stub_add", "+p", "st.test.", "127.0.0.6"],
            ["stub_add", "st2.test.", "127.0.0.6"],
            # listed in the order of Unbound's name tree, not as added
            ["stub_add", "zz.test.", "127.0.0.6"],
            ["stub_add", "b.test.", "127.0.0.6"],
            ["stub_add", "ab.test.", "127.0.0.6"],
            ["forward_add", "zf.test.", "127.0.0.1"],
            ["forward_add", "af.test.", "127.0.0.1"],
            ["forward_add", "f.test.", "127.0.0.1"],
            ["list_forwards"], ["list_stubs"],
            ["forward_remove", "fw.test."], ["stub_remove", "st.test."],
            ["forward", "off"], ["list_forwards"], ["list_stubs"],
            ["local_zone", "bad..name", "static"],
            ["local_data", "a.test.", "A", "1.2.3.4.5"],
            ["local_data", "a.test. 300 IN AAAA 1.2.3.4"],
            ["local_data", "a.test.", "SOA", "ns.", "h.", "1", "2", "3", "4",
             "x"],
            ["local_data", "a.test.", "300"],
            ["local_data_remove"], ["set_option", "cache-max-ttl:", "100"],
            ["get_option", "cache-max-ttl"], ["set_option", "port:", "x"],
            ["set_option", "interface:", "127.0.0.9"],
            # arguments as Unbound reads them
            ["flush_type"], ["flush_type", "x.test."],
            ["flush_type", "x.test.", "NOSUCHTYPE"],
            ["get_option", "port", "x"], ["verbosity", "00"],
            ["verbosity", "2x"], ["verbosity", "a", "b"],
            ["flush_infra", "127.0.0.1@53"], ["flush_infra", "::1"],
            ["flush_infra", "127.0.0.1", "x"], ["flush_bogus"],
            ["flush_negative"], ["flush_zone", "x.test."],
            ["flush", "x.test."], ["flush_requestlist"],
            ["frobnicate", "x"]]
    ref = RefServer(tmp_path / "ref")
    os.makedirs(ref.dir, exist_ok=True)
    outs = {}
    try:
        path = os.path.join(ref.dir, "ctl.sock")
        ref.start(body + 'module-config: "iterator"',
                  extra=rc_clause(None, iface=path, use_cert=False))
        start(unbound, "unix", None, body=body)
        for name, srv in (("ref", ref), ("ours", unbound)):
            outs[name] = [run(srv, OUR_CTL, *c) for c in cmds]
    finally:
        ref.stop()
    for c, a, b in zip(cmds, outs["ref"], outs["ours"]):
        assert (b.returncode, b.stdout) == (a.returncode, a.stdout), c


@pytest.mark.parametrize("server", ["ours", "debian"])
def test_list_insecure_without_validator(unbound, tmp_path, server):
    """With module-config "iterator" there are no trust anchors: as in
    Unbound 1.17, insecure_add says ok and list_insecure lists nothing,
    domain-insecure: from the config included."""
    srv = unbound
    if server == "debian":
        if not os.path.exists(DEB_UNBOUND):
            pytest.skip("Debian's unbound not installed")
        srv = RefServer(tmp_path / "ref")
        os.makedirs(srv.dir, exist_ok=True)
    try:
        path = os.path.join(srv.dir, "ctl.sock")
        srv.start('module-config: "iterator"\ndomain-insecure: "c.test."',
                  extra=rc_clause(None, iface=path, use_cert=False))
        assert ok(srv, OUR_CTL, "insecure_add", "x.test.") == "ok\n"
        assert ok(srv, OUR_CTL, "list_insecure") == ""
        assert ok(srv, OUR_CTL, "insecure_remove", "x.test.") == "ok\n"
    finally:
        if srv is not unbound:
            srv.stop()
