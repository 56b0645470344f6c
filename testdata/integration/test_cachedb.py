# SPDX-License-Identifier: BSD-3-Clause
"""The cachedb module with the redis backend (module-config: "validator
cachedb iterator"), against a real redis-server on loopback (a port
chosen free, stopped by PID): two resolvers share one Redis, and the
second answers what the first resolved without asking upstream; Redis
stopped mid-run (answers keep coming from upstream, at once) and started
again (used again); a wrong password (answers from upstream, one log
line); values in Unbound's format written by another program are read;
a truncated, garbage or other question's value under a key is refused,
counted, logged once and never served (and replaced by the fresh
answer). Needs redis-server; skips otherwise."""
import hashlib
import os
import shutil
import socket
import struct
import subprocess
import sys
import time

import dns.edns
import dns.flags
import dns.message
import dns.name
import dns.rcode
import dns.rdatatype
import dns.rrset
import pytest

from conftest import REFERENCE, SLOW, Server, Upstream, _finish, free_port  # noqa
from test_control import ctl, rc_clause, stats_dict

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)
from testnet.fixture import signednet_net  # noqa: E402,F401

REDIS = shutil.which("redis-server") or "/usr/bin/redis-server"

pytestmark = [
    pytest.mark.skipif(not os.access(REDIS, os.X_OK),
                       reason="redis-server is not installed"),
    pytest.mark.skipif(REFERENCE, reason="Debian's Unbound 1.17 has no "
                       "cachedb module"),
]

ZONE = "cdb.example.com."


def resp(*args):
    """A Redis command in RESP."""
    out = b"*%d\r\n" % len(args)
    for a in args:
        if isinstance(a, str):
            a = a.encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out


def read_reply(f):
    line = f.readline()
    if not line:
        raise ConnectionError("redis closed the connection")
    kind, rest = line[:1], line[1:-2]
    if kind == b"+":
        return rest.decode()
    if kind == b"-":
        return RuntimeError(rest.decode())
    if kind == b":":
        return int(rest)
    if kind == b"$":
        n = int(rest)
        if n < 0:
            return None
        data = f.read(n + 2)
        return data[:-2]
    if kind == b"*":
        return [read_reply(f) for _ in range(int(rest))]
    raise ValueError(line)


class Redis:
    """redis-server on 127.0.0.1, no persistence, stopped by PID; start()
    again on the same port after stop()."""

    def __init__(self, tmpdir, password=None):
        self.dir = str(tmpdir)
        self.port = free_port()
        self.password = password
        self.proc = None

    def start(self):
        args = [REDIS, "--port", str(self.port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", self.dir,
                "--daemonize", "no", "--logfile",
                os.path.join(self.dir, "redis.log")]
        if self.password:
            args += ["--requirepass", self.password]
        self.unixsocket = os.path.join(self.dir, "redis.sock")
        args += ["--unixsocket", self.unixsocket]
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        deadline = time.time() + 10
        while time.time() < deadline:
            assert self.proc.poll() is None, "redis-server exited"
            try:
                if self.cmd("PING") == "PONG":
                    return self
            except OSError:
                pass
            time.sleep(0.05)
        raise AssertionError("redis-server did not answer")

    def cmd(self, *args):
        with socket.create_connection(("127.0.0.1", self.port), 2) as s:
            f = s.makefile("rb")
            pre = b""
            if self.password:
                pre = resp("AUTH", self.password)
            s.sendall(pre + resp(*args))
            if self.password:
                read_reply(f)
            r = read_reply(f)
            if isinstance(r, RuntimeError) and "NOAUTH" in str(r):
                raise OSError(str(r))
            return r

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


@pytest.fixture
def redis(tmp_path):
    r = Redis(tmp_path).start()
    yield r
    r.stop()


def key_of(name, rdtype="A", secret="default"):
    """compat: unbound-1.17: cachedb's key: SHA-256 of the lowercased
    wire name, type, class IN and the secret, uppercase hex."""
    wire = dns.name.from_text(name).canonicalize().to_wire()
    clear = wire + struct.pack("!HH", dns.rdatatype.from_text(rdtype), 1)
    return hashlib.sha256(clear + secret.encode()).hexdigest().upper()


def unbound_value(name, rdtype, rdata, ttl, stored, qname=None):
    """A value as Unbound's cachedb stores it: the answer (ID 0, an OPT
    record with DO) then the stored and expiry times, 8 bytes each."""
    q = dns.message.make_query(qname or name, rdtype, use_edns=0,
                               want_dnssec=True)
    r = dns.message.make_response(q)
    r.id = 0
    r.flags |= dns.flags.RA
    r.answer.append(dns.rrset.from_text(name, ttl, "IN", rdtype, rdata))
    return r.to_wire() + struct.pack("!QQ", stored, stored + ttl)


def cachedb_clause(redis, **opts):
    lines = ["cachedb:", "\tbackend: redis",
             "\tredis-server-host: 127.0.0.1",
             "\tredis-server-port: %d" % redis.port,
             # generous: the tests run beside others, and under ASan
             "\tredis-timeout: 1000"]
    for k, v in opts.items():
        lines.append("\t%s: %s" % (k.replace("_", "-"), v))
    return "\n".join(lines) + "\n"


def start_resolver(tmp_path, sub, up, redis, **opts):
    d = tmp_path / sub
    d.mkdir()
    srv = Server(d)
    srv.ctl_port = free_port()
    srv.start('module-config: "validator cachedb iterator"\n'
              "qname-minimisation: no\n"
              "extended-statistics: yes\n",
              extra=up.stub_zone(ZONE) + cachedb_clause(redis, **opts) +
              rc_clause(None, srv.ctl_port, use_cert=False))
    return srv


def stat(srv, name):
    r = ctl(srv.conf, "stats_noreset")
    assert r.returncode == 0, r.stderr
    return int(stats_dict(r.stdout).get(name, 0))


def answer_of(reply):
    return [(rr.name.to_text(), rd.to_text(), rr.ttl)
            for rr in reply.answer for rd in rr]


def poll(cond, timeout=5.0, what="condition"):
    deadline = time.time() + timeout
    while time.time() < deadline:
        v = cond()
        if v:
            return v
        time.sleep(0.05)
    raise AssertionError("timed out waiting for " + what)


def test_two_resolvers_share_one_redis(tmp_path, upstream, redis):
    a = start_resolver(tmp_path, "a", upstream, redis)
    b = start_resolver(tmp_path, "b", upstream, redis)
    try:
        name = "www." + ZONE
        r = a.query(name, "A")
        assert r.rcode() == dns.rcode.NOERROR
        assert [x[1] for x in answer_of(r)] == ["192.0.2.253"]
        # the store is not awaited: poll Redis for the key
        poll(lambda: redis.cmd("EXISTS", key_of(name)) == 1,
             what="the answer in Redis")
        assert len(upstream.queries(name, "A")) == 1
        r2 = b.query(name, "A")
        assert r2.rcode() == dns.rcode.NOERROR
        assert [x[1] for x in answer_of(r2)] == ["192.0.2.253"]
        # b answered from Redis: upstream saw no second query
        assert len(upstream.queries(name, "A")) == 1
        assert 0 < answer_of(r2)[0][2] <= 300
        assert stat(b, "num.query.cachedb") == 1
        assert stat(a, "num.query.cachedb") == 0
        assert "error" not in b.log().lower(), b.log()
    finally:
        _finish(a)
        _finish(b)


def test_value_in_unbounds_format_is_read(tmp_path, upstream, redis):
    """What an Unbound resolver wrote (the format made here by hand) is
    answered from, with the TTL aged by the time since it was stored."""
    srv = start_resolver(tmp_path, "a", upstream, redis)
    try:
        name = "written-by-unbound." + ZONE
        now = int(time.time())
        redis.cmd("SET", key_of(name), unbound_value(
            name, "A", "198.51.100.7", 3600, now - 100))
        r = srv.query(name, "A")
        ans = answer_of(r)
        assert [x[1] for x in ans] == ["198.51.100.7"]
        assert 3400 <= ans[0][2] <= 3500
        assert upstream.queries(name) == []
        # expired: not served, asked upstream, and replaced
        old = "expired." + ZONE
        redis.cmd("SET", key_of(old), unbound_value(
            old, "A", "198.51.100.8", 60, now - 120))
        r = srv.query(old, "A")
        assert [x[1] for x in answer_of(r)] == ["192.0.2.253"]
        assert len(upstream.queries(old, "A")) == 1
    finally:
        _finish(srv)


def stored_value_is_fresh(redis, name):
    v = redis.cmd("GET", key_of(name))
    if not v or len(v) < 28:
        return False
    try:
        m = dns.message.from_wire(v[:-16])
    except Exception:
        return False
    return [rd.to_text() for rr in m.answer for rd in rr] == \
        ["192.0.2.253"]


@pytest.mark.parametrize("kind", ["garbage", "truncated", "other-question",
                                  "empty"])
def test_bad_value_is_refused(tmp_path, upstream, redis, kind):
    srv = start_resolver(tmp_path, "a", upstream, redis)
    try:
        name = "bad-%s.%s" % (kind, ZONE)
        now = int(time.time())
        good = unbound_value(name, "A", "198.51.100.9", 3600, now)
        value = {
            "garbage": os.urandom(200),
            "truncated": good[:len(good) - 30] + good[-16:],
            "other-question": unbound_value(
                "other." + ZONE, "A", "198.51.100.9", 3600, now),
            "empty": b"",
        }[kind]
        redis.cmd("SET", key_of(name), value)
        r = srv.query(name, "A")
        # never served: the answer is upstream's
        assert [x[1] for x in answer_of(r)] == ["192.0.2.253"]
        assert len(upstream.queries(name, "A")) == 1
        words = "another question" if kind == "other-question" else \
            "malformed"
        assert poll(lambda: words in srv.log(), what="the log line")
        # the fresh answer replaced the bad value
        poll(lambda: stored_value_is_fresh(redis, name),
             what="the fresh value in Redis")
        # logged once: a second bad value is not logged again
        name2 = "bad2-%s.%s" % (kind, ZONE)
        redis.cmd("SET", key_of(name2), value if kind != "other-question"
                  else unbound_value("other." + ZONE, "A", "198.51.100.9",
                                     3600, now))
        r = srv.query(name2, "A")
        assert [x[1] for x in answer_of(r)] == ["192.0.2.253"]
        assert srv.log().count(words) == 1, srv.log()
        assert stat(srv, "num.query.cachedb.refused") == 2
        assert stat(srv, "num.query.cachedb") == 0
    finally:
        _finish(srv)


def test_redis_down_then_back(tmp_path, upstream, redis):
    srv = start_resolver(tmp_path, "a", upstream, redis)
    try:
        r = srv.query("before." + ZONE, "A")
        poll(lambda: redis.cmd("EXISTS", key_of("before." + ZONE)) == 1,
             what="the first answer in Redis")
        redis.stop()
        # answers keep coming, from upstream, without waiting on Redis
        for i in range(5):
            t0 = time.time()
            r = srv.query("down%d.%s" % (i, ZONE), "A", timeout=1.5)
            assert [x[1] for x in answer_of(r)] == ["192.0.2.253"]
            # no wait for a command timeout (1 s) on a dead server
            assert time.time() - t0 < 0.9
        assert poll(lambda: "redis server" in srv.log(),
                    what="the outage logged")
        redis.start()
        # used again: a new answer reaches Redis (reconnects within a
        # second of the next query)
        n = [0]

        def stored_again():
            n[0] += 1
            name = "back%d.%s" % (n[0], ZONE)
            srv.query(name, "A")
            time.sleep(0.05)
            return redis.cmd("EXISTS", key_of(name)) == 1
        poll(stored_again, timeout=8, what="Redis used again")
        assert "answers again" in srv.log()
    finally:
        _finish(srv)


def test_redis_slow_never_stalls(tmp_path, upstream, redis):
    """A Redis that takes connections but never answers (stopped with
    SIGSTOP): each miss waits at most the command timeout, then goes
    upstream; a cache hit meanwhile does not wait for it."""
    srv = start_resolver(tmp_path, "a", upstream, redis,
                         redis_command_timeout=1000)
    try:
        srv.query("hit." + ZONE, "A")
        poll(lambda: redis.cmd("EXISTS", key_of("hit." + ZONE)) == 1,
             what="stored")
        redis.proc.send_signal(19)  # SIGSTOP
        try:
            # the miss waits on Redis; meanwhile the thread answers the
            # hit (with a blocking client it would wait its turn)
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.settimeout(3)
                t0 = time.time()
                s.sendto(dns.message.make_query("slow." + ZONE,
                                                "A").to_wire(),
                         ("127.0.0.1", srv.port))
                time.sleep(0.02)   # the miss is in before the hit
                t1 = time.time()
                r = srv.query("hit." + ZONE, "A", timeout=3)
                hit_took = time.time() - t1
                assert [x[1] for x in answer_of(r)] == ["192.0.2.253"]
                slow = dns.message.from_wire(s.recv(65535))
                took = time.time() - t0
            assert [x[1] for x in answer_of(slow)] == ["192.0.2.253"]
            assert hit_took < 0.5, hit_took
            # the miss went on after the command timeout (1 s)
            assert 0.99 < took < 2.5, took
            assert "timed out" in srv.log()
        finally:
            redis.proc.send_signal(18)  # SIGCONT
    finally:
        _finish(srv)


def test_wrong_password(tmp_path, upstream):
    red = Redis(tmp_path, password="right-one").start()
    srv = good = None
    try:
        srv = start_resolver(tmp_path, "a", upstream, red,
                             redis_server_password='"wrong-one"')
        for i in range(3):
            r = srv.query("pw%d.%s" % (i, ZONE), "A")
            assert [x[1] for x in answer_of(r)] == ["192.0.2.253"]
        assert poll(lambda: "AUTH refused" in srv.log(),
                    what="the refusal logged")
        assert srv.log().count("AUTH refused") == 1, srv.log()
        assert red.cmd("DBSIZE") == 0
        # the right password: the answer is stored
        good = start_resolver(tmp_path, "b", upstream, red,
                              redis_server_password='"right-one"')
        good.query("pwok." + ZONE, "A")
        poll(lambda: red.cmd("EXISTS", key_of("pwok." + ZONE)) == 1,
             what="stored with the right password")
    finally:
        for s in (srv, good):
            if s:
                _finish(s)
        red.stop()


def test_no_store_and_logical_db_and_secret(tmp_path, upstream, redis):
    srv = start_resolver(tmp_path, "a", upstream, redis,
                         redis_logical_db=3, secret_seed='"s3cret"',
                         redis_expire_records="yes")
    ns = None
    try:
        name = "db3." + ZONE
        srv.query(name, "A")
        poll(lambda: redis.cmd("SELECT", "3") and
             _in_db(redis, 3, key_of(name, secret="s3cret")),
             what="stored in db 3 under the secret's key")
        ttl = _in_db(redis, 3, key_of(name, secret="s3cret"), "TTL")
        assert 0 < ttl <= 300
        ns = start_resolver(tmp_path, "b", upstream, redis,
                            cachedb_no_store="yes")
        ns.query("nostore." + ZONE, "A")
        # the same name through a resolver that stores, into db 0 too:
        # once its value is there, one from ns would have been as well
        plain = start_resolver(tmp_path, "c", upstream, redis)
        try:
            plain.query("stored." + ZONE, "A")
            poll(lambda: redis.cmd("EXISTS", key_of("stored." + ZONE)) == 1,
                 what="the storing resolver's value")
        finally:
            _finish(plain)
        assert redis.cmd("EXISTS", key_of("nostore." + ZONE)) == 0
        # and ns still reads: the stored name is answered from Redis
        n = len(upstream.queries("stored." + ZONE, "A"))
        ns.query("stored." + ZONE, "A")
        assert len(upstream.queries("stored." + ZONE, "A")) == n
    finally:
        _finish(srv)
        if ns:
            _finish(ns)


def _in_db(redis, db, key, what="EXISTS"):
    with socket.create_connection(("127.0.0.1", redis.port), 2) as s:
        f = s.makefile("rb")
        s.sendall(resp("SELECT", str(db)) + resp(what, key))
        read_reply(f)
        return read_reply(f)


def _in_db_auth(r, db, *args):
    """One command in logical database db of Redis r (with its AUTH)."""
    with socket.create_connection(("127.0.0.1", r.port), 2) as s:
        f = s.makefile("rb")
        s.sendall(resp("AUTH", r.password) + resp("SELECT", str(db)) +
                  resp(*args))
        read_reply(f)
        read_reply(f)
        return read_reply(f)


@pytest.mark.parametrize("via", ["tcp", "unix", "timeout-only"])
def test_replica_takes_the_reads(tmp_path, upstream, redis, via):
    """redis-replica-server-host/-port (or -path), -password and
    -logical-db: reads go to the replica, in that database, with that
    password; writes to the primary. redis-replica-command-timeout: a
    replica that takes connections and never answers (SIGSTOP) holds a
    miss that long, not redis-replica-timeout's 5 s; without it,
    redis-replica-timeout (0.5 s, not the default 0.1 s) does."""
    rdir = tmp_path / "replica"
    rdir.mkdir()
    rep = Redis(rdir, password="rep-pw").start()
    if via == "unix":
        where = {"redis_replica_server_path": '"%s"' % rep.unixsocket}
    else:
        where = {"redis_replica_server_host": "127.0.0.1",
                 "redis_replica_server_port": rep.port}
    if via == "timeout-only":
        where["redis_replica_timeout"] = 500
    else:
        where["redis_replica_timeout"] = 5000
        where["redis_replica_command_timeout"] = 500
    srv = start_resolver(tmp_path, "a", upstream, redis,
                         redis_replica_server_password='"rep-pw"',
                         redis_replica_logical_db=2, **where)
    try:
        name = "from-replica." + ZONE
        _in_db_auth(rep, 2, "SET", key_of(name), unbound_value(
            name, "A", "198.51.100.9", 3600, int(time.time())))
        r = srv.query(name, "A")
        assert [x[1] for x in answer_of(r)] == ["198.51.100.9"]
        assert upstream.queries(name) == []
        # a miss: asked upstream, stored in the primary (db 0) only
        miss = "to-primary." + ZONE
        assert [x[1] for x in answer_of(srv.query(miss, "A"))] == \
            ["192.0.2.253"]
        poll(lambda: redis.cmd("EXISTS", key_of(miss)) == 1,
             what="stored in the primary")
        assert _in_db_auth(rep, 2, "EXISTS", key_of(miss)) == 0
        rep.proc.send_signal(19)  # SIGSTOP
        try:
            t0 = time.time()
            r = srv.query("stalled." + ZONE, "A", timeout=8)
            took = time.time() - t0
            assert [x[1] for x in answer_of(r)] == ["192.0.2.253"]
            assert 0.45 < took < 2.5, took
        finally:
            rep.proc.send_signal(18)  # SIGCONT
    finally:
        _finish(srv)
        rep.stop()


@pytest.mark.parametrize("role", ["primary", "replica"])
def test_connect_timeout(tmp_path, upstream, redis, role):
    """redis-connect-timeout (redis-replica-connect-timeout): a server
    whose TCP connect never completes (a listener with its accept queue
    full: the kernel drops the SYNs) is given up after that long, not
    after redis-timeout (5 s); the miss then goes upstream."""
    hole = socket.socket()
    fill = []
    try:
        hole.bind(("127.0.0.1", 0))
        hole.listen(0)
        for _ in range(2):
            c = socket.socket()
            c.setblocking(False)
            try:
                c.connect(hole.getsockname())
            except BlockingIOError:
                pass
            fill.append(c)
        port = hole.getsockname()[1]
        if role == "primary":
            opts = {"redis_server_port": port, "redis_timeout": 5000,
                    "redis_connect_timeout": 300}
        else:
            opts = {"redis_replica_server_host": "127.0.0.1",
                    "redis_replica_server_port": port,
                    "redis_replica_timeout": 5000,
                    "redis_replica_connect_timeout": 300}
        d = tmp_path / "a"
        d.mkdir()
        srv = Server(d)
        srv.ctl_port = free_port()
        lines = cachedb_clause(redis).replace(
            "\tredis-server-port: %d\n" % redis.port, "").replace(
            "\tredis-timeout: 1000\n", "")
        lines += "".join("\t%s: %s\n" % (k.replace("_", "-"), v)
                         for k, v in opts.items())
        srv.start('module-config: "validator cachedb iterator"\n'
                  "qname-minimisation: no\n",
                  extra=upstream.stub_zone(ZONE) + lines)
        try:
            t0 = time.time()
            r = srv.query("hole-%s.%s" % (role, ZONE), "A", timeout=8)
            took = time.time() - t0
            assert [x[1] for x in answer_of(r)] == ["192.0.2.253"]
            assert took < 2.5 * SLOW, took
            assert poll(lambda: "connect timed out" in srv.log(),
                        what="the timeout logged")
        finally:
            _finish(srv)
    finally:
        for c in fill:
            c.close()
        hole.close()


# An Unbound built with cachedb and libhiredis (Debian's has no cachedb):
# e.g. ./configure --enable-cachedb --with-libhiredis of Unbound 1.26.
UNBOUND_CACHEDB = os.environ.get("UNBOUND_CACHEDB_BIN", "")


@pytest.mark.skipif(not os.access(UNBOUND_CACHEDB or "/nonexistent",
                                  os.X_OK),
                    reason="UNBOUND_CACHEDB_BIN (an Unbound built with "
                    "cachedb and libhiredis) is not set")
def test_shared_with_unbound_both_ways(tmp_path, upstream, redis):
    class UnboundCachedb(Server):
        binary = UNBOUND_CACHEDB

    def start(sub, cls):
        d = tmp_path / sub
        d.mkdir()
        srv = cls(d)
        srv.start('module-config: "validator cachedb iterator"\n'
                  "qname-minimisation: no\n",
                  extra=upstream.stub_zone(ZONE) + cachedb_clause(redis))
        return srv
    theirs = start("unbound", UnboundCachedb)
    ours = start("ours", Server)
    try:
        for first, second, name in ((theirs, ours, "from-unbound." + ZONE),
                                    (ours, theirs, "from-ours." + ZONE)):
            r = first.query(name, "A")
            assert [x[1] for x in answer_of(r)] == ["192.0.2.253"]
            poll(lambda: redis.cmd("EXISTS", key_of(name)) == 1,
                 what="%s stored by the first" % name)
            r = second.query(name, "A")
            assert [x[1] for x in answer_of(r)] == ["192.0.2.253"]
            assert 0 < answer_of(r)[0][2] <= 300
            # the second answered from Redis
            assert len(upstream.queries(name, "A")) == 1, name
    finally:
        _finish(theirs)
        _finish(ours)


def test_replica_reads_primary_writes(tmp_path, upstream, redis):
    """compat: unbound-1.23: with redis-replica-server-*, lookups go to
    the replica and stores to the primary (two independent servers
    here, so each side shows where a command went)."""
    (tmp_path / "replica").mkdir()
    replica = Redis(tmp_path / "replica").start()
    srv = None
    try:
        srv = start_resolver(tmp_path, "a", upstream, redis,
                             redis_replica_server_host="127.0.0.1",
                             redis_replica_server_port=replica.port)
        name = "on-replica." + ZONE
        replica.cmd("SET", key_of(name), unbound_value(
            name, "A", "198.51.100.11", 3600, int(time.time())))
        r = srv.query(name, "A")
        assert [x[1] for x in answer_of(r)] == ["198.51.100.11"]
        assert upstream.queries(name) == []
        name2 = "to-primary." + ZONE
        r = srv.query(name2, "A")
        assert [x[1] for x in answer_of(r)] == ["192.0.2.253"]
        poll(lambda: redis.cmd("EXISTS", key_of(name2)) == 1,
             what="stored on the primary")
        assert replica.cmd("EXISTS", key_of(name2)) == 0
    finally:
        if srv:
            _finish(srv)
        replica.stop()


def test_unix_socket_path(tmp_path, upstream, redis):
    """redis-server-path: the server's unix socket instead of TCP (the
    port in the clause is a closed one)."""
    d = tmp_path / "a"
    d.mkdir()
    srv = Server(d)
    srv.start('module-config: "validator cachedb iterator"\n'
              "qname-minimisation: no\n",
              extra=upstream.stub_zone(ZONE) +
              "cachedb:\n\tbackend: redis\n\tredis-server-port: %d\n"
              '\tredis-server-path: "%s"\n' % (free_port(), redis.unixsocket))
    try:
        name = "via-unix." + ZONE
        srv.query(name, "A")
        poll(lambda: redis.cmd("EXISTS", key_of(name)) == 1,
             what="stored through the unix socket")
    finally:
        _finish(srv)


def test_testframe_backend(tmp_path, upstream):
    """backend: testframe (the default): an in-memory store of the last
    answer: after the local cache lost it (flush), the answer comes from
    there, not upstream."""
    d = tmp_path / "a"
    d.mkdir()
    srv = Server(d)
    srv.ctl_port = free_port()
    srv.start('module-config: "validator cachedb iterator"\n'
              "qname-minimisation: no\n",
              extra=upstream.stub_zone(ZONE) + "cachedb:\n" +
              rc_clause(None, srv.ctl_port, use_cert=False))
    try:
        name = "tf." + ZONE
        r = srv.query(name, "A")
        assert [x[1] for x in answer_of(r)] == ["192.0.2.253"]
        assert ctl(srv.conf, "flush", name).returncode == 0
        r = srv.query(name, "A")
        assert [x[1] for x in answer_of(r)] == ["192.0.2.253"]
        assert len(upstream.queries(name, "A")) == 1
    finally:
        _finish(srv)


def start_serve_expired(tmp_path, sub, up, redis, check):
    d = tmp_path / sub
    d.mkdir()
    srv = Server(d)
    srv.ctl_port = free_port()
    srv.start('module-config: "validator cachedb iterator"\n'
              "qname-minimisation: no\nextended-statistics: yes\n"
              # local entries expire after 1 s; Redis keeps its own
              "serve-expired: yes\ncache-max-ttl: 1\n",
              extra=up.stub_zone(ZONE) + cachedb_clause(
                  redis, cachedb_check_when_serve_expired=check) +
              rc_clause(None, srv.ctl_port, use_cert=False))
    return srv


@pytest.mark.parametrize("check", ["yes", "no"])
def test_check_when_serve_expired(tmp_path, upstream, redis, check):
    """compat: unbound-1.24: cachedb-check-when-serve-expired: an
    expired local answer waits for the backend's: a fresh value there
    is the answer; without one the expired answer comes, and upstream
    refreshes. With no: the expired answer at once."""
    srv = start_serve_expired(tmp_path, check, upstream, redis, check)
    try:
        name = "stale-%s.%s" % (check, ZONE)
        r = srv.query(name, "A")
        assert [x[1] for x in answer_of(r)] == ["192.0.2.253"]
        t0 = time.time()
        poll(lambda: redis.cmd("EXISTS", key_of(name)) == 1,
             what="the answer in Redis")
        # another resolver stored a newer answer meanwhile
        redis.cmd("SET", key_of(name), unbound_value(
            name, "A", "198.51.100.9", 3600, int(time.time())))
        # the local entry (TTL 1, whole seconds) expires: a state in
        # time, not a sleep
        poll(lambda: time.time() > t0 + 2.1, what="expiry")
        mine = redis.cmd("GET", key_of(name))
        assert b"\xc6\x33\x64\x09" in mine, "overwritten"
        r = srv.query(name, "A")
        if check == "no":
            assert [x[1] for x in answer_of(r)] == ["192.0.2.253"]
            assert stat(srv, "num.query.cachedb") == 0
            return
        assert [x[1] for x in answer_of(r)] == ["198.51.100.9"]
        assert stat(srv, "num.query.cachedb") == 1
        assert len(upstream.queries(name, "A")) == 1
        # nothing fresh in Redis: the expired answer, then a refresh
        redis.cmd("DEL", key_of(name))
        t0 = time.time()
        poll(lambda: time.time() > t0 + 2.1, what="expiry")
        start = time.time()
        r = srv.query(name, "A")
        took = time.time() - start
        assert [x[1] for x in answer_of(r)] == ["198.51.100.9"]
        # not after the 1.8 s fallback: when Redis said it has none
        assert took < 1.5, took
        poll(lambda: len(upstream.queries(name, "A")) == 2,
             what="the refresh upstream")
    finally:
        _finish(srv)


def start_validating(tmp_path, sub, net, redis):
    d = tmp_path / sub
    d.mkdir()
    srv = Server(d)
    srv.ctl_port = free_port()
    srv.start('module-config: "validator cachedb iterator"\n'
              'trust-anchor-file: "%s"\n'
              "qname-minimisation: no\ndo-ip6: no\n"
              "extended-statistics: yes\n" % net.anchor,
              extra=cachedb_clause(redis) +
              rc_clause(None, srv.ctl_port, use_cert=False),
              root_hints=net.root_hints)
    return srv


def sent_upstream(srv):
    return stat(srv, "num.query.udpout") + stat(srv, "num.query.tcpout")


def ask_secure(srv, name):
    q = dns.message.make_query(name, "A", want_dnssec=True)
    r = srv.query(q, timeout=10.0 * SLOW)
    assert r.rcode() == dns.rcode.NOERROR
    assert r.flags & dns.flags.AD, "not validated as secure"
    return [x[1] for x in answer_of(r) if x[0] == name]


# compat: unbound-1.17: the validator's fetches on the way from the root
# anchor down to the answer's zone, each through the whole module stack
KEY_FETCHES = [(".", "DNSKEY"), ("sec1.", "DS"), ("sec1.", "DNSKEY"),
               ("ed25519.sec1.", "DS"), ("ed25519.sec1.", "DNSKEY")]


def test_validator_fetches_shared(signednet_net, tmp_path, redis):
    """compat: unbound-1.17: the validator's DS and DNSKEY fetches go
    through cachedb as Unbound's do: the first resolver stores them
    beside the answer; a second one, fresh, answers the question and
    validates it from Redis alone, sending no query upstream. The
    iterator's own lookups (priming) are not stored."""
    name = "www.ed25519.sec1."
    a = start_validating(tmp_path, "a", signednet_net, redis)
    try:
        want = ask_secure(a, name)
        assert want
        # the answer, the five fetches and the key tag query (RFC 8145,
        # detached: stored when its answer comes)
        poll(lambda: redis.cmd("DBSIZE") >= 7, what="7 values in Redis")
        for n, t in [(name, "A")] + KEY_FETCHES:
            assert redis.cmd("EXISTS", key_of(n, t)) == 1, (n, t)
    finally:
        _finish(a)
    # nothing else: not the iterator's own lookups (priming)
    assert redis.cmd("DBSIZE") == 7
    b = start_validating(tmp_path, "b", signednet_net, redis)
    try:
        assert ask_secure(b, name) == want
        assert sent_upstream(b) == 0
        # clients' answers only, as Unbound counts them
        assert stat(b, "num.query.cachedb") == 1
    finally:
        _finish(b)


class LoopbackNS(Upstream):
    """Addresses on loopback only: the NS name the iterator looks up
    must not send it off the machine (nothing answers on 127.0.0.1:53:
    the question itself fails, which this test does not need)."""
    RDATA = dict(Upstream.RDATA, A="127.0.0.1")


def test_iterator_lookups_not_stored(tmp_path, redis):
    """compat: unbound-1.17: the iterator's own lookups (here the address
    of a stub-host) are neither looked up in nor stored to Redis: Unbound
    starts them at the iterator, below cachedb. A client's question to
    the same server afterwards is stored: one thread, one connection,
    so its SET follows any the lookup would have made."""
    up = LoopbackNS()
    d = tmp_path / "r"
    d.mkdir()
    srv = Server(d)
    try:
        srv.start('module-config: "validator cachedb iterator"\n'
                  "qname-minimisation: no\n",
                  extra='stub-zone:\n\tname: "nsl.example.com."\n'
                  "\tstub-host: ns1.cdb-host.example.com.\n" +
                  up.stub_zone("cdb-host.example.com.") +
                  cachedb_clause(redis))
        # its reply does not matter (nothing on 127.0.0.1:53): sent only
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.sendto(dns.message.make_query("www.nsl.example.com.",
                                            "A").to_wire(),
                     ("127.0.0.1", srv.port))
        poll(lambda: up.queries("ns1.cdb-host.example.com.", "A"),
             what="the stub-host's address asked")
        marker = "marker.cdb-host.example.com."
        assert answer_of(srv.query(marker, "A"))
        poll(lambda: redis.cmd("EXISTS", key_of(marker)) == 1,
             what="the client's answer in Redis")
        assert redis.cmd("EXISTS", key_of("ns1.cdb-host.example.com.")) \
            == 0
    finally:
        _finish(srv)
        up.close()
