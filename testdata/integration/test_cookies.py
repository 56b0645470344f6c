# SPDX-License-Identifier: BSD-3-Clause
"""DNS cookies to clients (RFC 7873, RFC 9018) as Unbound 1.21 configures
them: answer-cookie, cookie-secret, cookie-secret-file, access-control
allow_cookie and unbound-control's cookie secret commands.

Server cookies are checked here with an independent SipHash-2-4 (below,
checked against RFC 9018's appendix A.1), so a cookie this daemon makes
is one any RFC 9018 server with the secret accepts, and the other way.
Debian's Unbound 1.17 has no answer-cookie, so no side-by-side run."""
import os
import struct
import subprocess
import time

import dns.edns
import dns.flags
import dns.message
import dns.rcode
import pytest

from conftest import answer_texts, make_query, ours_only, rcode_of
from test_control import OUR_CTL, rc_clause, stats_dict

pytestmark = ours_only

SECRET = bytes.fromhex("000102030405060708090a0b0c0d0e0f")
OTHER = bytes.fromhex("f0e0d0c0b0a090807060504030201000")
CLIENT_COOKIE = bytes.fromhex("0102030405060708")
ALLOW_COOKIE_CLIENT = "127.0.0.2"
LOCAL = 'local-data: "www.ck.test. A 192.0.2.1"\n'
BODY = ("answer-cookie: yes\ncookie-secret: \"%s\"\n" % SECRET.hex() +
        LOCAL + "access-control: %s/32 allow_cookie\n" % ALLOW_COOKIE_CLIENT)
M64 = (1 << 64) - 1


def siphash24(key, data):
    """SipHash-2-4, 8 bytes as the reference implementation writes them."""
    def rotl(x, b):
        return ((x << b) | (x >> (64 - b))) & M64

    k0, k1 = struct.unpack("<QQ", key)
    v = [k0 ^ 0x736f6d6570736575, k1 ^ 0x646f72616e646f6d,
         k0 ^ 0x6c7967656e657261, k1 ^ 0x7465646279746573]

    def rounds(n):
        for _ in range(n):
            v[0] = (v[0] + v[1]) & M64
            v[1] = rotl(v[1], 13) ^ v[0]
            v[0] = rotl(v[0], 32)
            v[2] = (v[2] + v[3]) & M64
            v[3] = rotl(v[3], 16) ^ v[2]
            v[0] = (v[0] + v[3]) & M64
            v[3] = rotl(v[3], 21) ^ v[0]
            v[2] = (v[2] + v[1]) & M64
            v[1] = rotl(v[1], 17) ^ v[2]
            v[2] = rotl(v[2], 32)

    tail = len(data) & 7
    for i in range(0, len(data) - tail, 8):
        m = struct.unpack("<Q", data[i:i + 8])[0]
        v[3] ^= m
        rounds(2)
        v[0] ^= m
    b = (len(data) << 56) & M64
    for i, c in enumerate(data[len(data) - tail:]):
        b |= c << (8 * i)
    v[3] ^= b
    rounds(2)
    v[0] ^= b
    v[2] ^= 0xff
    rounds(4)
    return struct.pack("<Q", v[0] ^ v[1] ^ v[2] ^ v[3])


def server_cookie(client, secret, ts, ip="127.0.0.1"):
    """The RFC 9018 cookie (24 bytes) for client at ip, made at ts."""
    head = client + bytes([1, 0, 0, 0]) + struct.pack(">I", ts & 0xffffffff)
    return head + siphash24(secret, head + bytes(map(int, ip.split("."))))


def test_siphash_matches_rfc9018_a1():
    secret = bytes.fromhex("e5e973e5a6b2a43f48e7dc849e37bfcf")
    assert server_cookie(bytes.fromhex("2464c4abcf10c957"), secret,
                         1559731985, "198.51.100.100").hex() == (
        "2464c4abcf10c957010000005cf79f111f8130c3eee29480")


def cookie_query(data, name="www.ck.test."):
    q = make_query(name, edns=0)
    q.use_edns(0, options=[dns.edns.GenericOption(10, data)])
    return q


def cookie_of(reply):
    opts = [o for o in reply.options if o.otype == 10]
    assert len(opts) <= 1
    return opts[0].data if opts else None


def ask(srv, data, source=None, tcp=False, name="www.ck.test."):
    return srv.query(cookie_query(data, name), source=source, tcp=tcp)


def assert_fresh(cookie, client, secret=SECRET, ip="127.0.0.1"):
    """cookie is one we would accept: made now, for client, with secret."""
    assert cookie is not None and len(cookie) == 24
    assert cookie[:8] == client and cookie[8:12] == bytes([1, 0, 0, 0])
    ts = struct.unpack(">I", cookie[12:16])[0]
    assert abs(ts - time.time()) < 30
    assert cookie == server_cookie(client, secret, ts, ip)


def test_client_cookie_gets_server_cookie(unbound):
    unbound.start(BODY)
    r = ask(unbound, CLIENT_COOKIE)
    assert answer_texts(r) == ["www.ck.test. A 192.0.2.1"]
    assert_fresh(cookie_of(r), CLIENT_COOKIE)
    # a valid cookie is echoed as sent, over UDP and TCP
    c = cookie_of(r)
    for tcp in (False, True):
        r = ask(unbound, c, tcp=tcp)
        assert answer_texts(r) == ["www.ck.test. A 192.0.2.1"]
        assert cookie_of(r) == c
    # one made by any RFC 9018 server with our secret, a minute ago
    c = server_cookie(CLIENT_COOKIE, SECRET, int(time.time()) - 60)
    assert cookie_of(ask(unbound, c)) == c
    # without a cookie: none in the reply; without EDNS: no OPT at all
    assert cookie_of(unbound.query("www.ck.test.", edns=0)) is None
    assert unbound.query("www.ck.test.").edns < 0


def test_stale_future_renew_and_wrong_secret(unbound):
    unbound.start(BODY)
    now = int(time.time())
    cases = {
        "expired": server_cookie(CLIENT_COOKIE, SECRET, now - 3700),
        "future": server_cookie(CLIENT_COOKIE, SECRET, now + 400),
        "renew": server_cookie(CLIENT_COOKIE, SECRET, now - 2000),
        "wrong secret": server_cookie(CLIENT_COOKIE, OTHER, now),
        "version 2": server_cookie(CLIENT_COOKIE, SECRET, now)[:8] +
        b"\x02" + server_cookie(CLIENT_COOKIE, SECRET, now)[9:],
        "other address": server_cookie(CLIENT_COOKIE, SECRET, now,
                                       "127.0.0.9"),
    }
    for why, sent in cases.items():
        r = ask(unbound, sent)
        assert rcode_of(r) == "NOERROR", why
        assert answer_texts(r) == ["www.ck.test. A 192.0.2.1"], why
        got = cookie_of(r)
        assert got != sent, why
        assert_fresh(got, CLIENT_COOKIE)


@pytest.mark.parametrize("length", [0, 1, 7, 9, 15, 41, 64])
def test_malformed_cookie_formerr(unbound, length):
    unbound.start(BODY)
    r = ask(unbound, bytes(range(length)))
    assert rcode_of(r) == "FORMERR"
    assert cookie_of(r) is None


@pytest.mark.parametrize("length", [8, 16, 23, 25, 40])
def test_client_only_lengths(unbound, length):
    unbound.start(BODY)
    sent = bytes(range(1, length + 1))
    r = ask(unbound, sent)
    assert rcode_of(r) == "NOERROR"
    assert_fresh(cookie_of(r), sent[:8])


def test_cookies_off_by_default(unbound):
    unbound.start(LOCAL)
    r = ask(unbound, CLIENT_COOKIE)
    assert answer_texts(r) == ["www.ck.test. A 192.0.2.1"]
    assert cookie_of(r) is None
    # a malformed one is not looked at either
    assert rcode_of(ask(unbound, b"\x01\x02")) == "NOERROR"


def test_allow_cookie(unbound):
    unbound.start(BODY)
    src = ALLOW_COOKIE_CLIENT
    # UDP without a cookie: REFUSED, TC, EDE 0 with Unbound's text
    r = unbound.query("www.ck.test.", edns=0, source=src)
    assert rcode_of(r) == "REFUSED" and r.flags & dns.flags.TC
    ede = [o for o in r.options if o.otype == 15]
    assert ede and ede[0].code == 0
    assert ede[0].text == "DNS Cookie needed for UDP replies"
    r = unbound.query("www.ck.test.", source=src)   # no EDNS
    assert rcode_of(r) == "REFUSED" and r.flags & dns.flags.TC
    # a client cookie only: BADCOOKIE with a fresh cookie to retry with
    r = ask(unbound, CLIENT_COOKIE, source=src)
    assert r.rcode() == dns.rcode.BADCOOKIE and not r.answer
    c = cookie_of(r)
    assert_fresh(c, CLIENT_COOKIE, ip=src)
    r = ask(unbound, c, source=src)
    assert answer_texts(r) == ["www.ck.test. A 192.0.2.1"]
    assert cookie_of(r) == c
    # a cookie for another address, or a stale one: BADCOOKIE again
    now = int(time.time())
    for bad in (server_cookie(CLIENT_COOKIE, SECRET, now),
                server_cookie(CLIENT_COOKIE, SECRET, now - 4000, src)):
        r = ask(unbound, bad, source=src)
        assert r.rcode() == dns.rcode.BADCOOKIE
        assert_fresh(cookie_of(r), CLIENT_COOKIE, ip=src)
    # TCP is always fine, with or without a cookie
    r = unbound.query("www.ck.test.", source=src, tcp=True)
    assert answer_texts(r) == ["www.ck.test. A 192.0.2.1"]
    r = ask(unbound, CLIENT_COOKIE, source=src, tcp=True)
    assert answer_texts(r) == ["www.ck.test. A 192.0.2.1"]
    # other clients are not asked for cookies
    r = unbound.query("www.ck.test.", edns=0)
    assert answer_texts(r) == ["www.ck.test. A 192.0.2.1"]


def test_allow_cookie_without_answer_cookie(unbound):
    """compat: unbound-1.21: allow_cookie without answer-cookie: UDP is always
    refused with TC (no cookie is ever valid), TCP answered."""
    unbound.start(LOCAL + "access-control: %s/32 allow_cookie\n" %
                  ALLOW_COOKIE_CLIENT)
    r = ask(unbound, CLIENT_COOKIE, source=ALLOW_COOKIE_CLIENT)
    assert rcode_of(r) == "REFUSED" and r.flags & dns.flags.TC
    r = unbound.query("www.ck.test.", source=ALLOW_COOKIE_CLIENT, tcp=True)
    assert answer_texts(r) == ["www.ck.test. A 192.0.2.1"]


def test_kdig(unbound):
    """A real client: kdig +cookie learns the cookie from BADCOOKIE and
    retries with it."""
    unbound.start(BODY)
    r = subprocess.run(["kdig", "@127.0.0.1", "-p", str(unbound.port),
                        "-b", ALLOW_COOKIE_CLIENT, "+cookie=0102030405060708",
                        "+retry=2", "+timeout=2", "www.ck.test", "A"],
                       capture_output=True, text=True, timeout=30)
    assert "status: NOERROR" in r.stdout, r.stdout + r.stderr
    assert "192.0.2.1" in r.stdout
    assert "COOKIE: 0102030405060708010000" in r.stdout


DUMP = ("START_RRSET_CACHE\n;rrset 300 1 0 8 0\n"
        "cached.example.tld1.\t300\tIN\tA\t192.0.2.77\n"
        "END_RRSET_CACHE\nSTART_MSG_CACHE\n"
        "msg cached.example.tld1. IN A 32896 1 300 0 1 0 0\n"
        "cached.example.tld1. IN A 0\nEND_MSG_CACHE\nEOF\n")


def ctl(srv, *args, stdin=None):
    return subprocess.run([OUR_CTL, "-c", srv.conf] + list(args),
                          input=stdin, capture_output=True, text=True,
                          timeout=20)


def start_ctl(srv, body):
    path = os.path.join(srv.dir, "ctl.sock")
    return srv.start(body, extra=rc_clause(None, iface=path,
                                           use_cert=False))


def test_cache_hit_with_cookie(unbound):
    """The message cache's reply gets the cookie in its OPT record, and a
    small EDNS size still fits it (the answer is cut first)."""
    start_ctl(unbound, BODY)
    assert ctl(unbound, "load_cache", stdin=DUMP).stdout == "ok\n"
    for _ in range(2):
        r = ask(unbound, CLIENT_COOKIE, name="cached.example.tld1.")
        assert answer_texts(r) == ["cached.example.tld1. A 192.0.2.77"]
        c = cookie_of(r)
        assert_fresh(c, CLIENT_COOKIE)
        r = ask(unbound, c, name="cached.example.tld1.")
        assert answer_texts(r) == ["cached.example.tld1. A 192.0.2.77"]
        assert cookie_of(r) == c
    # the reply stays within 512 bytes with the cookie
    q = cookie_query(c, "cached.example.tld1.")
    q.use_edns(0, payload=512, options=q.options)
    wire = unbound.udp_raw(q.to_wire())
    assert wire is not None and len(wire) <= 512
    assert cookie_of(dns.message.from_wire(wire)) == c


def test_secret_file_and_control_commands(unbound):
    a, b = SECRET, OTHER
    fname = os.path.join(unbound.dir, "cookie_secrets.txt")
    with open(fname, "w") as f:
        f.write(a.hex() + "\n")
    start_ctl(unbound, 'answer-cookie: yes\ncookie-secret: "%s"\n'
              'cookie-secret-file: "%s"\n%s' % ("ab" * 16, fname, LOCAL))

    def out(*args):
        r = ctl(unbound, *args)
        assert r.returncode == 0, (args, r.stdout, r.stderr)
        return r.stdout

    # the file's secret wins over cookie-secret:
    assert out("print_cookie_secrets") == "active : %s\n" % a.hex()
    assert_fresh(cookie_of(ask(unbound, CLIENT_COOKIE)), CLIENT_COOKIE, a)
    old = server_cookie(CLIENT_COOKIE, a, int(time.time()) - 10)
    # add: staging; made with a still, both accepted
    assert out("add_cookie_secret", b.hex()) == "ok\n"
    assert out("print_cookie_secrets") == (
        "active : %s\nstaging: %s\n" % (a.hex(), b.hex()))
    with open(fname) as f:
        assert f.read() == a.hex() + "\n" + b.hex() + "\n"
    assert cookie_of(ask(unbound, old)) == old
    staged = server_cookie(CLIENT_COOKIE, b, int(time.time()) - 10)
    assert_fresh(cookie_of(ask(unbound, staged)), CLIENT_COOKIE, a)
    # activate: b makes them; a's are still accepted (renewed)
    assert out("activate_cookie_secret") == "ok\n"
    assert out("print_cookie_secrets") == (
        "active : %s\nstaging: %s\n" % (b.hex(), a.hex()))
    assert_fresh(cookie_of(ask(unbound, CLIENT_COOKIE)), CLIENT_COOKIE, b)
    assert_fresh(cookie_of(ask(unbound, old)), CLIENT_COOKIE, b)
    assert cookie_of(ask(unbound, staged)) == staged
    # drop: a is gone
    assert out("drop_cookie_secret") == "ok\n"
    assert out("print_cookie_secrets") == "active : %s\n" % b.hex()
    with open(fname) as f:
        assert f.read() == b.hex() + "\n"
    got = cookie_of(ask(unbound, old))
    assert got != old
    assert_fresh(got, CLIENT_COOKIE, b)
    # errors, in Unbound's words (exit 1 on "error" lines, as Unbound's)
    def err(*args):
        return ctl(unbound, *args).stdout

    assert err("drop_cookie_secret") == (
        "error: can not drop the currently active cookie secret\n")
    assert err("activate_cookie_secret") == (
        "error: no staging cookie secret to activate\n")
    assert err("add_cookie_secret") == (
        "error: missing argument (cookie_secret)\n")
    assert err("add_cookie_secret", "0011") == (
        "invalid cookie secret: invalid argument length\n"
        "please provide a 128bit hex encoded secret\n")
    assert err("add_cookie_secret", "zz" * 16) == (
        "invalid cookie secret: parse error\n"
        "please provide a 128bit hex encoded secret\n")
    # a reload reads the file again
    assert out("add_cookie_secret", a.hex()) == "ok\n"
    assert out("reload") == "ok\n"
    assert out("print_cookie_secrets") == (
        "active : %s\nstaging: %s\n" % (b.hex(), a.hex()))


def test_control_without_secret_file(unbound):
    start_ctl(unbound, BODY)
    r = ctl(unbound, "add_cookie_secret", SECRET.hex())
    assert r.stdout == "error: no cookie secret file configured\n"
    assert ctl(unbound, "print_cookie_secrets").stdout == ""


@pytest.mark.parametrize("content,msg", [
    (None, "Could not read cookie-secret-file"),
    (SECRET.hex() + "\nnot-hex\n", "line 2: a secret must be 32 hex"),
    ("zz" * 16 + "\n", "line 1: not a hex digit"),
])
def test_bad_secret_file_fails_start(unbound, content, msg):
    fname = os.path.join(unbound.dir, "cookie_secrets.txt")
    if content is not None:
        with open(fname, "w") as f:
            f.write(content)
    rc, out = unbound.start_expecting_exit(
        'answer-cookie: yes\ncookie-secret-file: "%s"\n' % fname)
    assert rc not in (0, None), out[-2000:]
    assert msg in out


def test_bad_cookie_secret_option(unbound):
    unbound.write_config('cookie-secret: "0011"\n')
    r = subprocess.run([os.path.join(os.path.dirname(OUR_CTL),
                                     "unbound-checkconf"), unbound.conf],
                       capture_output=True, text=True, timeout=20)
    assert r.returncode != 0
    assert "expected 128 bit hex string" in r.stdout + r.stderr


def test_mesh_reply_has_cookie(unbound):
    """An answer the mesh sends later (here SERVFAIL: the harness's root is
    a dead loopback address) carries the cookie too, over UDP and TCP.
    The SERVFAIL comes after the dead root's timeouts, later than
    discard-timeout (1.9 s by default), which would drop it over UDP."""
    unbound.start(BODY + "discard-timeout: 0\n")
    for tcp in (False, True):
        q = cookie_query(CLIENT_COOKIE, "mesh%d.example." % tcp)
        r = unbound.query(q, tcp=tcp, timeout=30)
        assert rcode_of(r) == "SERVFAIL"
        assert_fresh(cookie_of(r), CLIENT_COOKIE)


def flood(srv, wire, rate, secs, source):
    """wire (a query) sent at rate per second for secs from source, each
    with its own ID; (sent, replies) once the last replies are in."""
    import math
    import select
    import socket
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((source, 0))
    s.setblocking(False)
    sent = got = 0
    start = time.monotonic()
    nxt = start
    drain = None
    while True:
        now = time.monotonic()
        if drain is None and now >= start + secs:
            drain = now + 1.0
        if drain is not None and now >= drain:
            break
        if drain is None and now >= nxt:
            s.sendto(struct.pack(">H", sent & 0xffff) + wire[2:],
                     ("127.0.0.1", srv.port))
            sent += 1
            nxt += 1.0 / rate
        wait = (drain if drain is not None else nxt) - time.monotonic()
        r, _, _ = select.select([s], [], [], max(0.0, wait))
        while r:
            try:
                s.recv(65535)
                got += 1
            except BlockingIOError:
                break
    s.close()
    return sent, got, math.ceil(secs) + 1


RATE_BODY = BODY + "ip-ratelimit: 5\nip-ratelimit-factor: 0\n"


@pytest.mark.parametrize("cookie_limit", [40, 0])
def test_ip_ratelimit_cookie(unbound, cookie_limit):
    """ip-ratelimit: 5 with ip-ratelimit-cookie: 40: a client sending a
    valid server cookie at 150 q/s gets 40 answers a second, one with a
    client cookie only 5 (from another address, at the same time as
    Unbound counts per address); ip-ratelimit-cookie: 0 does not limit
    the cookie holder. num.queries_cookie_valid, _client and _invalid
    count the queries by their cookie, the dropped ones too."""
    start_ctl(unbound, RATE_BODY + (
        "ip-ratelimit-cookie: %d\n" % cookie_limit if cookie_limit else ""))
    good = server_cookie(CLIENT_COOKIE, SECRET, int(time.time()))
    assert cookie_of(ask(unbound, good)) == good
    ctl(unbound, "stats")       # from zero
    valid = cookie_query(good).to_wire()
    client = cookie_query(CLIENT_COOKIE).to_wire()
    sent, got, secs = flood(unbound, valid, 150, 2.0, "127.0.0.1")
    if cookie_limit:
        assert cookie_limit <= got <= cookie_limit * secs, (sent, got)
    else:
        assert got == sent, (sent, got)
    csent, cgot, secs = flood(unbound, client, 150, 2.0, "127.0.0.3")
    assert 5 <= cgot <= 5 * secs, (csent, cgot)
    # a server cookie that is not ours (another secret): invalid
    bad = cookie_query(server_cookie(CLIENT_COOKIE, OTHER,
                                     int(time.time()))).to_wire()
    for _ in range(3):
        unbound.udp_raw(bad, source="127.0.0.4")
    st = stats_dict(ctl(unbound, "stats_noreset").stdout)
    assert st["total.num.queries_cookie_valid"] == str(sent), st
    assert st["total.num.queries_cookie_client"] == str(csent), st
    assert st["total.num.queries_cookie_invalid"] == "3", st
    dropped = int(st["total.num.queries_ip_ratelimited"])
    assert dropped == (sent - got) + (csent - cgot), (dropped, st)


def test_ip_ratelimit_cookie_needs_answer_cookie(unbound):
    """Without answer-cookie the cookie is not read: the valid one gets
    the plain limit (5), and the cookie statistics are not printed."""
    start_ctl(unbound, LOCAL + "ip-ratelimit: 5\nip-ratelimit-factor: 0\n"
              "ip-ratelimit-cookie: 40\n")
    good = cookie_query(server_cookie(CLIENT_COOKIE, SECRET,
                                      int(time.time()))).to_wire()
    sent, got, secs = flood(unbound, good, 150, 2.0, "127.0.0.1")
    assert 5 <= got <= 5 * secs, (sent, got)
    st = stats_dict(ctl(unbound, "stats_noreset").stdout)
    # and the lines are not there (Unbound 1.17's names)
    assert "total.num.queries_cookie_valid" not in st, st
