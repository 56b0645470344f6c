# SPDX-License-Identifier: BSD-3-Clause
"""DNS over TLS to upstreams (forward-tls-upstream, ADDR@port#name,
tls-cert-bundle, tls-system-cert, pad-queries).

The upstream is Debian's Unbound serving a local zone over TLS
(tls-service-key/pem on a loopback port) with a certificate for
dns.test and alt.test made at test time by a test CA
(testnet/tls_pki.py); its statistics (num.query.tls,
num.query.tls.resume) show what it saw. For the cases it cannot play (a
certificate that must not verify while the client is watched for plain
DNS, an upstream that dies mid-answer) a small Python TLS server stands
in (testnet/tls_server.py): it counts handshakes the client refused, and
a plain listener on the same address and port (UDP, and TCP connections
that do not start with a TLS record) must see nothing.
"""
import os
import re
import signal
import subprocess
import sys
import threading
import time

import dns.message
import pytest

from conftest import (ControlServer, Server, answer_texts, control_stats,
                      rcode_of, ours_only, REFERENCE, free_port, SLOW,
                      reference_differs, RefServer, _finish)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
from testnet.tls_pki import CA  # noqa: E402
from testnet.tls_server import TlsDnsServer  # noqa: E402

DEBIAN_UNBOUND = "/usr/sbin/unbound"
DEBIAN_CONTROL = "/usr/sbin/unbound-control"
UPSTREAM_IP = "192.0.2.7"      # what the Debian upstream answers
PY_IP = "192.0.2.53"           # what the Python server answers
BIG_RRS = 60                   # TXT records at the upstream's apex: an
                               # answer of about 13 KB, many TLS records


def BIG_TXT(i):
    return "%03d-%s" % (i, "x" * 190)


class DebianUpstream(ControlServer):
    """Debian's Unbound as the TLS upstream: many.tlsup. answers every
    name with UPSTREAM_IP."""
    binary = DEBIAN_UNBOUND
    control = DEBIAN_CONTROL

    def start_tls(self, cert, key):
        self.tls_port = free_port()
        body = ("interface: 127.0.0.1@%d\n" % self.tls_port +
                "tls-port: %d\n" % self.tls_port +
                'tls-service-key: "%s"\n' % key +
                'tls-service-pem: "%s"\n' % cert +
                'module-config: "iterator"\n'
                "access-control: 127.0.0.0/8 allow\n"
                "extended-statistics: yes\n"
                "tcp-idle-timeout: 30000\n"
                'local-zone: "many.tlsup." redirect\n'
                'local-data: "many.tlsup. 300 A %s"\n' % UPSTREAM_IP +
                "".join('local-data: "many.tlsup. 300 TXT %s"\n' %
                        BIG_TXT(i) for i in range(BIG_RRS)))
        return self.start(body, extra=self.rc_clause())

    def stats(self):
        return control_stats(self.control, self.ctl_conf)

    def stat(self, name):
        return int(self.stats().get(name, "0"))


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("pki"))
    ca = CA(d)
    stranger = CA(d, "Stranger CA")
    return {
        "ca": ca.cert_file,
        "good": ca.server("good", ["dns.test", "alt.test"]),
        "expired": ca.server("expired", ["dns.test"], expired=True),
        "stranger": stranger.server("stranger", ["dns.test"]),
    }


@pytest.fixture(scope="module")
def upstream(pki, tmp_path_factory):
    srv = DebianUpstream(tmp_path_factory.mktemp("upstream"))
    srv.start_tls(*pki["good"])
    yield srv
    srv.stop()


@pytest.fixture
def pyserver():
    """A factory of Python TLS servers, all stopped at the end."""
    made = []

    def make(cert, key, **kw):
        s = TlsDnsServer(cert, key, **kw)
        made.append(s)
        return s
    yield make
    for s in made:
        s.stop()


def forward(name, addrs, first=False):
    lines = ["forward-zone:", '\tname: "%s"' % name,
             "\tforward-tls-upstream: yes"]
    lines += ["\tforward-addr: %s" % a for a in addrs]
    if first:
        lines.append("\tforward-first: yes")
    return "\n".join(lines) + "\n"


def start(unbound, pki, zones, body="", bundle=True, verbosity=2, env=None):
    if bundle:
        body = 'tls-cert-bundle: "%s"\n' % pki["ca"] + body
    return unbound.start(body, extra=zones, verbosity=verbosity, env=env)


def tls_conns(pid, port):
    """Established TCP connections of process pid to 127.0.0.1:port."""
    out = subprocess.run(["ss", "-tnpH", "state", "established",
                          "dst", "127.0.0.1:%d" % port],
                         capture_output=True, text=True).stdout
    return [l for l in out.splitlines() if "pid=%d," % pid in l]


def wait_for(cond, timeout=5.0):
    deadline = time.time() + timeout * SLOW
    while time.time() < deadline:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


def addrs_of(reply):
    return [t.split()[-1] for t in answer_texts(reply)]


# ---- the upstream answers over TLS ----

def test_right_name_answers(unbound, pki, upstream):
    before = upstream.stat("num.query.tls")
    start(unbound, pki, forward("many.tlsup.", [
        "127.0.0.1@%d#dns.test" % upstream.tls_port]))
    r = unbound.query("www.many.tlsup.", timeout=5)
    assert rcode_of(r) == "NOERROR", r
    assert addrs_of(r) == [UPSTREAM_IP]
    assert upstream.stat("num.query.tls") >= before + 1


ZONE_TLS = ["forward-tls-upstream", "forward-ssl-upstream",
            "stub-tls-upstream", "stub-ssl-upstream"]


@pytest.mark.parametrize("which", ["ours", "reference"])
@pytest.mark.parametrize("option", ZONE_TLS)
def test_zone_tls_option_and_alias(tmp_path, pki, upstream, option, which):
    """forward-/stub-tls-upstream and their old ssl names: the zone's
    queries go over TLS (the upstream counts them), on this daemon and
    on Debian's."""
    if which == "reference" and not os.access(DEBIAN_UNBOUND, os.X_OK):
        pytest.skip("Debian's unbound is not installed")
    kind = option.split("-")[0]
    addr = "127.0.0.1@%d#dns.test" % upstream.tls_port
    zone = '%s-zone:\n\tname: "alias.many.tlsup."\n\t%s: yes\n' \
        '\t%s-addr: %s\n' % (kind, option, kind, addr)
    srv = (Server if which == "ours" else RefServer)(tmp_path)
    try:
        srv.start('tls-cert-bundle: "%s"\n' % pki["ca"], extra=zone)
        before = upstream.stat("num.query.tls")
        r = srv.query("www.alias.many.tlsup.", timeout=5)
        assert rcode_of(r) == "NOERROR", r
        assert addrs_of(r) == [UPSTREAM_IP]
        assert upstream.stat("num.query.tls") >= before + 1
    finally:
        _finish(srv)


def test_many_queries_one_connection(unbound, pki, upstream):
    """40 questions at once: all answered, over one connection (kept
    open, pipelined)."""
    start(unbound, pki, forward("many.tlsup.", [
        "127.0.0.1@%d#dns.test" % upstream.tls_port]))
    results = {}

    def ask(i):
        try:
            results[i] = unbound.query("q%d.many.tlsup." % i, timeout=5)
        except Exception as e:  # noqa: BLE001 - reported below
            results[i] = e
    threads = [threading.Thread(target=ask, args=(i,)) for i in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(40):
        assert addrs_of(results[i]) == [UPSTREAM_IP], (i, results[i])
    conns = tls_conns(unbound.pid, upstream.tls_port)
    assert len(conns) == 1, conns
    # more later on the same connection
    for i in range(5):
        assert addrs_of(unbound.query("later%d.many.tlsup." % i)) == \
            [UPSTREAM_IP]
    assert tls_conns(unbound.pid, upstream.tls_port) == conns


def test_max_reuse_bounds_outstanding_queries(unbound, pki, pyserver):
    """max-reuse-tcp-queries bounds the queries outstanding on a TLS
    connection (Unbound's rule), not its life: 12 questions one after
    another with the bound at 2 go over one connection."""
    srv = pyserver(*pki["good"])
    start(unbound, pki, forward("py.tlsup.", [
        "127.0.0.1@%d#dns.test" % srv.port]),
        body="max-reuse-tcp-queries: 2\n")
    for i in range(12):
        assert addrs_of(unbound.query("m%d.py.tlsup." % i)) == [PY_IP]
    assert srv.queries == 12
    assert srv.connections == 1


@ours_only
def test_full_connection_serves_waiters(unbound, pki, pyserver):
    """One connection (outgoing-num-tcp: 1) with one query outstanding
    at a time (max-reuse-tcp-queries: 1): 10 questions at once wait
    for it and are all answered over it, none waits for its timeout.
    (Debian's Unbound 1.17 answers some of them without an answer.)"""
    srv = pyserver(*pki["good"])
    start(unbound, pki, forward("py.tlsup.", [
        "127.0.0.1@%d#dns.test" % srv.port]),
        body="outgoing-num-tcp: 1\nmax-reuse-tcp-queries: 1\n")
    results = {}

    def ask(i):
        try:
            results[i] = unbound.query("w%d.py.tlsup." % i, timeout=2.5)
        except Exception as e:  # noqa: BLE001 - reported below
            results[i] = e
    t0 = time.time()
    threads = [threading.Thread(target=ask, args=(i,)) for i in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(10):
        assert addrs_of(results[i]) == [PY_IP], (i, results[i])
    assert time.time() - t0 < 2.5 * SLOW
    assert srv.connections == 1


def test_large_answer_over_tls(unbound, pki, upstream):
    """An answer of about 13 KB comes over TLS in several records (read
    ahead, partial records) whole; the client gets it over TCP."""
    start(unbound, pki, forward("many.tlsup.", [
        "127.0.0.1@%d#dns.test" % upstream.tls_port]))
    for i in range(3):
        r = unbound.query("big%d.many.tlsup." % i, "TXT", tcp=True,
                          timeout=5)
        assert rcode_of(r) == "NOERROR", r
        texts = sorted(t.split(None, 2)[2] for t in answer_texts(r))
        assert texts == sorted('"%s"' % BIG_TXT(j) for j in
                               range(BIG_RRS))
    assert addrs_of(unbound.query("after-big.many.tlsup.")) == [UPSTREAM_IP]


@ours_only
def test_names_do_not_share_a_connection(unbound, pki, upstream):
    """Two zones to one address and port, with different authentication
    names (the certificate has both): one connection per name. Debian's
    Unbound 1.17 sends both zones' queries over the first connection."""
    port = upstream.tls_port
    start(unbound, pki, forward("a.many.tlsup.", [
        "127.0.0.1@%d#dns.test" % port]) + forward("b.many.tlsup.", [
            "127.0.0.1@%d#alt.test" % port]), verbosity=4)
    for i in range(3):
        assert addrs_of(unbound.query("x%d.a.many.tlsup." % i)) == \
            [UPSTREAM_IP]
        assert addrs_of(unbound.query("x%d.b.many.tlsup." % i)) == \
            [UPSTREAM_IP]
    assert len(tls_conns(unbound.pid, port)) == 2
    log = unbound.log()
    assert "(auth name dns.test): TLSv1" in log
    assert "(auth name alt.test): TLSv1" in log


@ours_only
def test_session_resumed_on_reconnect(unbound, pki, upstream):
    """The connection closes when idle (tcp-reuse-timeout); the next one
    resumes the TLS session (the upstream counts it as resumed)."""
    port = upstream.tls_port
    start(unbound, pki, forward("many.tlsup.", [
        "127.0.0.1@%d#dns.test" % port]), body="tcp-reuse-timeout: 200\n",
        verbosity=4)
    before = upstream.stat("num.query.tls.resume")
    assert addrs_of(unbound.query("r1.many.tlsup.")) == [UPSTREAM_IP]
    assert wait_for(lambda: not tls_conns(unbound.pid, port))
    assert addrs_of(unbound.query("r2.many.tlsup.")) == [UPSTREAM_IP]
    assert upstream.stat("num.query.tls.resume") >= before + 1
    log = unbound.log()
    assert re.search(r"outgoing tls to 127\.0\.0\.1 port %d \(auth name "
                     r"dns\.test\): TLSv1\.[23], session new" % port, log)
    assert re.search(r"port %d \(auth name dns\.test\): TLSv1\.[23], "
                     r"session resumed" % port, log)


def test_no_name_verifies_chain_only(unbound, pki, upstream, pyserver):
    """Without #name and with a bundle (as Unbound): the chain must
    verify, any name is taken; a certificate from an unknown CA fails."""
    bad = pyserver(*pki["stranger"])
    start(unbound, pki, forward("many.tlsup.", [
        "127.0.0.1@%d" % upstream.tls_port]) + forward("bad.tlsup.", [
            "127.0.0.1@%d" % bad.port]))
    assert addrs_of(unbound.query("n.many.tlsup.")) == [UPSTREAM_IP]
    assert rcode_of(unbound.query("n.bad.tlsup.", timeout=5)) == "SERVFAIL"
    assert wait_for(lambda: bad.handshake_failures >= 1)
    assert bad.queries == 0
    assert bad.plain_udp == 0 and bad.plain_tcp == 0


def test_no_name_no_bundle_is_unauthenticated(unbound, pki, pyserver):
    """No CA configured and no name: encrypted but not authenticated, as
    Unbound (any certificate)."""
    srv = pyserver(*pki["stranger"])
    start(unbound, pki, forward("py.tlsup.", ["127.0.0.1@%d" % srv.port]),
          bundle=False)
    assert addrs_of(unbound.query("u.py.tlsup.")) == [PY_IP]
    assert srv.plain_udp == 0 and srv.plain_tcp == 0
    assert srv.queries >= 1


# ---- certificates that do not verify: a failed server ----

FAILURES = [
    ("wrong_name", "good", "wrong.test", "hostname mismatch"),
    ("expired", "expired", "dns.test", "certificate has expired"),
    ("unknown_ca", "stranger", "dns.test",
     "unable to get local issuer certificate"),
]


@pytest.mark.parametrize("case,cert,name,why", FAILURES,
                         ids=[f[0] for f in FAILURES])
def test_bad_certificate_servfail(unbound, pki, pyserver, case, cert, name,
                                  why):
    """SERVFAIL, a log line with the reason, and never plain DNS to the
    server (UDP or TCP)."""
    srv = pyserver(*pki[cert])
    start(unbound, pki, forward("py.tlsup.", [
        "127.0.0.1@%d#%s" % (srv.port, name)]))
    r = unbound.query("b.py.tlsup.", timeout=6)
    assert rcode_of(r) == "SERVFAIL", r
    assert wait_for(lambda: srv.handshake_failures >= 1)
    assert srv.queries == 0
    assert srv.plain_udp == 0 and srv.plain_tcp == 0
    time.sleep(0.2)
    log = unbound.log()
    assert "ssl handshake failed" in log, log[-2000:]
    if not REFERENCE:
        assert re.search(r"error: ssl handshake failed: %s, upstream "
                         r"127\.0\.0\.1 port %d \(auth name %s\)" %
                         (re.escape(why), srv.port, re.escape(name)),
                         log), log[-2000:]
    assert unbound.alive()


def test_bad_server_then_good_one(unbound, pki, upstream, pyserver):
    """A zone with a server whose certificate fails and a good one: the
    question is answered by the good one."""
    bad = pyserver(*pki["expired"])
    start(unbound, pki, forward("many.tlsup.", [
        "127.0.0.1@%d#dns.test" % bad.port,
        "127.0.0.1@%d#dns.test" % upstream.tls_port]))
    for i in range(4):
        r = unbound.query("g%d.many.tlsup." % i, timeout=6)
        assert addrs_of(r) == [UPSTREAM_IP], r
    assert bad.queries == 0 and bad.plain_udp == 0 and bad.plain_tcp == 0


def test_sni_is_the_auth_name(unbound, pki, pyserver):
    srv = pyserver(*pki["good"])
    start(unbound, pki, forward("py.tlsup.", [
        "127.0.0.1@%d#alt.test" % srv.port]))
    assert addrs_of(unbound.query("s.py.tlsup.")) == [PY_IP]
    assert srv.sni == ["alt.test"]
    assert srv.plain_udp == 0 and srv.plain_tcp == 0


def test_system_store(unbound, pki, pyserver):
    """tls-system-cert: OpenSSL's default store (here SSL_CERT_FILE names
    the test CA, so no real system CA is needed)."""
    srv = pyserver(*pki["good"])
    start(unbound, pki, forward("py.tlsup.", [
        "127.0.0.1@%d#dns.test" % srv.port]), body="tls-system-cert: yes\n",
        bundle=False, env={"SSL_CERT_FILE": pki["ca"]})
    assert addrs_of(unbound.query("y.py.tlsup.")) == [PY_IP]


# ---- pad-queries (RFC 8467) ----

LONG_NAME = "%s.%s.py.tlsup." % ("a" * 60, "b" * 60)


def padding(wire):
    """The query's EDNS padding option data, or None without one."""
    m = dns.message.from_wire(wire)
    assert m.edns >= 0, "a query without EDNS says nothing of padding"
    pads = [o for o in m.options if o.otype == 12]
    return pads[0].to_wire() if pads else None


@pytest.mark.parametrize("body,block", [
    ("", 128),
    ("pad-queries-block-size: 64\n", 64),
    ("pad-queries: no\n", None),
])
def test_pad_queries(unbound, pki, pyserver, body, block):
    """Queries over TLS carry the padding option, of zero bytes, that
    makes each a multiple of the block (128 by default, as Unbound), a
    short name and one of 120 characters alike; pad-queries: no sends
    none."""
    srv = pyserver(*pki["good"])
    start(unbound, pki, forward("py.tlsup.", [
        "127.0.0.1@%d#dns.test" % srv.port]), body=body)
    for name in ("p.py.tlsup.", LONG_NAME):
        assert addrs_of(unbound.query(name)) == [PY_IP]
    assert len(srv.wires) >= 2
    for w in srv.wires:
        pad = padding(w)
        if block is None:
            assert pad is None
        else:
            assert pad is not None and pad == bytes(len(pad))
            assert len(w) % block == 0, (len(w), block)
    if block == 64:   # the long name's query is longer than one block
        assert max(len(w) for w in srv.wires) > 64


def test_pad_queries_reload(unbound, pki, pyserver):
    """A reload (SIGHUP) takes pad-queries: from off to on, the queries
    after it are padded (Unbound builds everything again)."""
    srv = pyserver(*pki["good"])
    zones = forward("py.tlsup.", ["127.0.0.1@%d#dns.test" % srv.port])
    start(unbound, pki, zones, body="pad-queries: no\n")
    assert addrs_of(unbound.query("r0.py.tlsup.")) == [PY_IP]
    assert padding(srv.wires[-1]) is None
    unbound.write_config('tls-cert-bundle: "%s"\npad-queries: yes\n'
                         % pki["ca"], extra=zones, verbosity=2)
    unbound.send_signal(signal.SIGHUP)
    asked = []

    def padded_now():
        name = "r%d.py.tlsup." % (len(asked) + 1)
        asked.append(name)
        try:
            unbound.query(name, timeout=1)
        except Exception:  # noqa: BLE001 - reloading: ask again
            return False
        return padding(srv.wires[-1]) is not None and \
            len(srv.wires[-1]) % 128 == 0
    assert wait_for(padded_now)


@pytest.mark.parametrize("body", ["", "tcp-upstream: yes\n"])
def test_plain_upstream_not_padded(unbound, pki, pyserver, body):
    """A forward-zone without TLS (UDP, or TCP with tcp-upstream): the
    query has EDNS but no padding option (pad-queries is for TLS). The
    server only listens, so the query is not answered."""
    srv = pyserver(*pki["good"])
    start(unbound, pki, "forward-zone:\n\tname: \"py.tlsup.\"\n"
          "\tforward-addr: 127.0.0.1@%d\n" % srv.port, body=body)
    try:
        unbound.query(LONG_NAME, timeout=0.3)
    except Exception:  # noqa: BLE001 - unanswered by design
        pass
    assert wait_for(lambda: srv.plain_wires)
    for w in srv.plain_wires:
        assert padding(w) is None


# ---- the upstream dies mid-answer ----

def test_upstream_closes_mid_answer(unbound, pki, upstream, pyserver):
    """One server sends half an answer and closes: the other server
    answers; alone, SERVFAIL; the daemon lives on."""
    half = pyserver(*pki["good"], mode="half")
    start(unbound, pki, forward("many.tlsup.", [
        "127.0.0.1@%d#dns.test" % half.port,
        "127.0.0.1@%d#dns.test" % upstream.tls_port]) +
        forward("half.tlsup.", ["127.0.0.1@%d#dns.test" % half.port]))
    for i in range(4):
        r = unbound.query("h%d.many.tlsup." % i, timeout=6)
        assert addrs_of(r) == [UPSTREAM_IP], r
    r = unbound.query("x.half.tlsup.", timeout=8)
    assert rcode_of(r) == "SERVFAIL"
    assert half.queries >= 1
    assert half.plain_udp == 0 and half.plain_tcp == 0
    assert unbound.alive()
    assert addrs_of(unbound.query("after.many.tlsup.")) == [UPSTREAM_IP]


@pytest.mark.parametrize("mode", ["garbage", pytest.param(
    "mute", marks=reference_differs("a handshake never answered: no "
                                    "answer within the test's 8 s"))])
def test_upstream_misbehaves(unbound, pki, upstream, pyserver, mode):
    """A server that answers a frame too short for DNS (the connection
    is dropped) or never answers the handshake (the query times out):
    the other server answers; alone, SERVFAIL; the daemon lives on."""
    bad = pyserver(*pki["good"], mode=mode)
    start(unbound, pki, forward("many.tlsup.", [
        "127.0.0.1@%d#dns.test" % bad.port,
        "127.0.0.1@%d#dns.test" % upstream.tls_port]) +
        forward("bad.tlsup.", ["127.0.0.1@%d#dns.test" % bad.port]))
    # over TCP: after a mute server's handshake timeout the answer is
    # later than discard-timeout (1.9 s), which drops it over UDP
    for i in range(3):
        r = unbound.query("%s%d.many.tlsup." % (mode, i), tcp=True,
                          timeout=8)
        assert addrs_of(r) == [UPSTREAM_IP], r
    r = unbound.query("x.bad.tlsup.", tcp=True, timeout=15)
    assert rcode_of(r) == "SERVFAIL"
    assert bad.plain_udp == 0 and bad.plain_tcp == 0
    assert unbound.alive()


# ---- configuration errors ----

@ours_only
def test_reload_with_bad_bundle_keeps_serving(unbound, pki, upstream):
    """SIGHUP with an unreadable bundle: the error is logged, the old
    configuration (and its TLS context) keeps serving."""
    zones = forward("many.tlsup.", ["127.0.0.1@%d#dns.test" %
                                    upstream.tls_port])
    start(unbound, pki, zones)
    assert addrs_of(unbound.query("before.many.tlsup.")) == [UPSTREAM_IP]
    unbound.write_config('tls-cert-bundle: "/nonexistent/ca.pem"\n',
                         extra=zones, verbosity=2)
    unbound.send_signal(signal.SIGHUP)
    assert wait_for(lambda: "error in tls-cert-bundle /nonexistent/ca.pem"
                    in unbound.log())
    assert unbound.alive()
    assert addrs_of(unbound.query("after.many.tlsup.")) == [UPSTREAM_IP]


@pytest.mark.parametrize("zones", [True, False], ids=["used", "unused"])
def test_unreadable_bundle_is_a_start_error(unbound, zones):
    """As Unbound, also when no zone uses TLS; ours names the file."""
    unbound.write_config('tls-cert-bundle: "/nonexistent/ca.pem"\n',
                         extra=forward("many.tlsup.", ["127.0.0.1@853"])
                         if zones else "")
    r = subprocess.run(unbound.run_args(["-d"]), capture_output=True,
                       text=True, timeout=20 * SLOW)
    assert r.returncode != 0
    out = r.stderr + r.stdout + unbound.log()
    assert "SSL_CTX" in out or "tls-cert-bundle" in out, out
    if not REFERENCE:
        assert "error in tls-cert-bundle /nonexistent/ca.pem" in out, out
