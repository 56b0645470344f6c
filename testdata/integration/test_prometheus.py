# SPDX-License-Identifier: BSD-3-Clause
"""The Prometheus endpoint (remote-control: prometheus-enable, -interface,
-port; not in Unbound): scraped with urllib and http.client after a known
number of queries, the values add up (per thread, total, queries sent,
cache hits and misses, types, rcodes, the recursion histogram); the
exposition parses with a strict parser; counters never go back, not even
after `unbound-control stats`; off by default; 404/405/400; idle, slow
and endless clients are cut off without blocking a scrape; bind errors,
config checks and reload."""
import http.client
import math
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import dns.rcode
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)
from testnet.fixture import testnet_net  # noqa: E402,F401

from conftest import (BUILDDIR, CHECKCONF_BIN, SLOW,  # noqa: E402
                      START_TIMEOUT, free_port, needs_ipv6, ours_only,
                      rss_kib, sockets_on_port)

pytestmark = ours_only

OUR_CTL = os.path.join(BUILDDIR, "unbound-control")
PROM_TIMEOUT = 5      # PROM_TIMEOUT_SECS in daemon/prometheus.h
PROM_MAX_CONNS = 16   # PROM_MAX_CONNS
PROM_REQ_MAX = 8192   # PROM_REQ_MAX in daemon/prom_http.h
CTYPE = "text/plain; version=0.0.4"


# -- a strict parser of the text exposition format 0.0.4 -----------------

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LVALUE = r'(?:[^"\\\n]|\\\\|\\"|\\n)*'
LABEL = r'([a-zA-Z_][a-zA-Z0-9_]*)="(%s)"' % LVALUE
LABEL_NC = r'[a-zA-Z_][a-zA-Z0-9_]*="%s"' % LVALUE
SAMPLE = re.compile(r"^(%s)(?:\{(%s(?:,%s)*)?\})? (\S+)$" %
                    (NAME, LABEL_NC, LABEL_NC))
TYPES = ("counter", "gauge", "histogram", "summary", "untyped")


def parse_value(v):
    if v in ("+Inf", "-Inf", "NaN"):
        return float(v.replace("Inf", "inf").replace("NaN", "nan"))
    assert re.fullmatch(r"-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?", v), v
    return float(v)


def parse_exposition(text):
    """{(name, frozenset(labels.items())): value}, {family: type}.
    Every line is a HELP, a TYPE or a sample `name{labels} value`; every
    sample belongs to a family whose TYPE came before it; no family is
    declared twice, no series appears twice; counters end in _total;
    histogram buckets are cumulative and +Inf equals _count."""
    assert text.endswith("\n"), "exposition must end with a newline"
    types, helps, samples = {}, set(), {}
    for n, line in enumerate(text.split("\n")[:-1], 1):
        assert line, "empty line %d" % n
        if line.startswith("#"):
            m = re.fullmatch(r"# (HELP|TYPE) (%s) (.+)" % NAME, line)
            assert m, "bad comment line %d: %r" % (n, line)
            kind, fam, rest = m.groups()
            if kind == "TYPE":
                assert fam not in types, "TYPE twice for " + fam
                assert rest in TYPES, line
                types[fam] = rest
            else:
                assert fam not in helps, "HELP twice for " + fam
                helps.add(fam)
            continue
        m = SAMPLE.match(line)
        assert m, "bad sample line %d: %r" % (n, line)
        name, labeltext, value = m.group(1), m.group(2), m.group(3)
        labels = dict(re.findall(LABEL, labeltext or ""))
        fam = name
        if fam not in types:
            for suffix in ("_bucket", "_sum", "_count"):
                if name.endswith(suffix) and \
                        types.get(name[:-len(suffix)]) == "histogram":
                    fam = name[:-len(suffix)]
        assert fam in types, "sample before its TYPE: %r" % line
        key = (name, frozenset(labels.items()))
        assert key not in samples, "series twice: %r" % line
        samples[key] = parse_value(value)
    for fam, t in types.items():
        assert fam in helps, "no HELP for " + fam
        # unbound_exporter's one counter without the suffix, kept by name
        if t == "counter" and fam != "unbound_answers_bogus":
            assert fam.endswith("_total"), "counter %s lacks _total" % fam
        if t == "histogram":
            buckets = sorted((parse_value(dict(k[1])["le"]), v)
                             for k, v in samples.items()
                             if k[0] == fam + "_bucket")
            assert buckets and math.isinf(buckets[-1][0]), fam
            counts = [v for _, v in buckets]
            assert counts == sorted(counts), "%s not cumulative" % fam
            assert counts[-1] == samples[(fam + "_count", frozenset())]
            assert (fam + "_sum", frozenset()) in samples
    return samples, types


class Metrics:
    def __init__(self, text):
        self.text = text
        self.samples, self.types = parse_exposition(text)

    def get(self, name, **labels):
        return self.samples[(name, frozenset(labels.items()))]

    def threads(self, name):
        return {dict(k[1])["thread"]: v for k, v in self.samples.items()
                if k[0] == name}

    def labelled(self, name, label):
        return {dict(k[1])[label]: v for k, v in self.samples.items()
                if k[0] == name}


# -- helpers --------------------------------------------------------------

def prom_clause(port, iface=None, enable=True, extra=""):
    lines = ["remote-control:",
             "\tprometheus-enable: %s" % ("yes" if enable else "no"),
             "\tprometheus-port: %d" % port]
    if iface:
        lines.append("\tprometheus-interface: %s" % iface)
    return "\n".join(lines) + "\n" + extra


def scrape(port, host="127.0.0.1", timeout=10):
    """GET /metrics with urllib; the parsed Metrics."""
    url = "http://%s:%d/metrics" % ("[%s]" % host if ":" in host else host,
                                    port)
    with urllib.request.urlopen(url, timeout=timeout) as r:
        assert r.status == 200
        assert r.headers["Content-Type"].startswith(CTYPE)
        body = r.read()
        assert int(r.headers["Content-Length"]) == len(body)
    return Metrics(body.decode("utf-8"))


def request(port, method="GET", path="/metrics", body=None, headers=None,
            host="127.0.0.1"):
    """One request with http.client: (status, headers, body)."""
    c = http.client.HTTPConnection(host, port, timeout=10)
    try:
        c.request(method, path, body=body, headers=headers or {})
        r = c.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        c.close()


def raw(port, data, timeout=10):
    """Send raw bytes, read until the server closes; the bytes read."""
    with socket.create_connection(("127.0.0.1", port), timeout) as s:
        s.sendall(data)
        out = b""
        while True:
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            out += chunk
        return out


def ctl(conf, *args):
    return subprocess.run([OUR_CTL, "-c", conf] + list(args),
                          capture_output=True, text=True, timeout=20)


def wait_for(pred, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if pred():
            return True
        time.sleep(0.1)
    return pred()


def refused(port, host="127.0.0.1"):
    try:
        socket.create_connection((host, port), 2).close()
        return False
    except ConnectionRefusedError:
        return True


def listen_inode(port, pid):
    out = subprocess.run(["ss", "-ltnpeH", "sport = :%d" % port],
                         capture_output=True, text=True, check=True).stdout
    inos = re.findall(r"ino:(\d+)", "\n".join(
        l for l in out.splitlines() if "pid=%d," % pid in l))
    assert len(inos) == 1, out
    return inos[0]


def tcp_listen_ports(pid):
    out = subprocess.run(["ss", "-ltnpH"], capture_output=True, text=True,
                         check=True).stdout
    return {int(re.search(r":(\d+)\s", l.split()[3] + " ").group(1))
            for l in out.splitlines() if "pid=%d," % pid in l}


# -- tests ----------------------------------------------------------------

def test_disabled_by_default(unbound):
    """No option: nothing listens but the DNS port, not even 9167."""
    unbound.start()
    assert tcp_listen_ports(unbound.pid) == {unbound.port}
    assert not sockets_on_port(9167, "tcp", unbound.pid)
    out = subprocess.run([CHECKCONF_BIN, "-o", "prometheus-enable",
                          unbound.conf], capture_output=True, text=True)
    assert out.stdout == "no\n"
    # enable: no with a port set listens nowhere either
    unbound.stop()
    port = free_port()
    unbound.start(extra=prom_clause(port, enable=False))
    assert tcp_listen_ports(unbound.pid) == {unbound.port}
    assert refused(port)


def test_local_data_counts_add_up(unbound):
    port = free_port()
    unbound.start('extended-statistics: yes\n'
                  'local-data: "a.example. A 192.0.2.1"', threads=3,
                  extra=prom_clause(port))
    before = scrape(port)
    n = 60
    for i in range(n):
        # a new source port each time spreads them over the threads
        unbound.query("a.example.", "A" if i % 3 else "AAAA",
                      tcp=(i % 10 == 0))
    m = scrape(port)
    q = m.threads("unbound_queries_total")
    q0 = before.threads("unbound_queries_total")
    assert set(q) == {"0", "1", "2"}
    total = m.get("unbound_total_queries_total")
    assert sum(q.values()) == total
    assert total - before.get("unbound_total_queries_total") == n
    assert sum(q.values()) - sum(q0.values()) == n

    def delta(name, **labels):
        old = before.samples.get((name, frozenset(labels.items())), 0)
        return m.get(name, **labels) - old

    hits = m.threads("unbound_cache_hits_total")
    assert sum(hits.values()) == m.get("unbound_total_cache_hits_total")
    assert delta("unbound_total_cache_hits_total") == n
    assert delta("unbound_total_cache_misses_total") == 0
    assert delta("unbound_query_types_total", type="A") == n - n // 3
    assert delta("unbound_query_types_total", type="AAAA") == n // 3
    assert delta("unbound_query_classes_total", **{"class": "IN"}) == n
    assert delta("unbound_query_opcodes_total", opcode="QUERY") == n
    assert delta("unbound_query_flags_total", flag="RD") == n
    assert delta("unbound_query_tcp_total") == n // 10
    assert delta("unbound_answer_rcodes_total", rcode="NOERROR") == n
    assert delta("unbound_answer_rcodes_total", rcode="nodata") == n // 3
    rcodes = m.labelled("unbound_answer_rcodes_total", "rcode")
    assert {"NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMPL",
            "REFUSED"} <= set(rcodes)
    # types and kinds
    assert m.types["unbound_queries_total"] == "counter"
    assert m.types["unbound_request_list_current_all"] == "gauge"
    assert m.types["unbound_memory_caches_bytes"] == "gauge"
    assert m.types["unbound_response_time_seconds"] == "histogram"
    assert m.types["unbound_time_up_seconds_total"] == "counter"
    assert set(m.labelled("unbound_memory_caches_bytes", "cache")) == {
        "rrset", "message"}
    assert m.get("unbound_memory_caches_bytes", cache="rrset") > 0
    assert m.get("unbound_time_up_seconds_total") >= \
        before.get("unbound_time_up_seconds_total")
    assert abs(m.get("unbound_time_now_seconds") - time.time()) < 600
    # every counter (and histogram series) only went up
    for key, v in before.samples.items():
        name = key[0]
        base = re.sub(r"_(bucket|sum|count)$", "", name)
        if m.types.get(name) == "counter" or \
                m.types.get(base) == "histogram":
            assert m.samples[key] >= v, key


def test_counters_survive_control_reset(unbound, tmp_path):
    """`unbound-control stats` resets its own view, never the
    Prometheus counters."""
    port = free_port()
    sock = os.path.join(str(tmp_path), "ctl.sock")
    unbound.start('local-data: "a.example. A 192.0.2.1"',
                  extra=prom_clause(port) +
                  "\tcontrol-enable: yes\n\tcontrol-interface: %s\n"
                  "\tcontrol-use-cert: no\n" % sock)
    for _ in range(5):
        unbound.query("a.example.")
    a = scrape(port).get("unbound_total_queries_total")
    r = ctl(unbound.conf, "stats")
    assert r.returncode == 0, r.stdout + r.stderr
    r = ctl(unbound.conf, "stats")
    assert "total.num.queries=0\n" in r.stdout
    b = scrape(port).get("unbound_total_queries_total")
    assert b == a
    unbound.query("a.example.")
    assert scrape(port).get("unbound_total_queries_total") == a + 1
    # and the control channel's numbers add up with ours
    s = ctl(unbound.conf, "stats_noreset").stdout
    assert "total.num.queries=1\n" in s


def test_recursive_counts_and_histogram(unbound, testnet_net):
    net = testnet_net
    if not net.iterable:
        pytest.skip("test internet not on port 53 (needs root)")
    port = free_port()
    unbound.start("extended-statistics: yes", threads=2,
                  root_hints=net.root_hints, extra=prom_clause(port))
    before = scrape(port)
    assert unbound.query("www.example.tld1.", timeout=8).answer
    assert unbound.query("www.example.tld1.", timeout=8).answer
    r = unbound.query("nonexistent.example.tld1.", timeout=8)
    assert r.rcode() == dns.rcode.NXDOMAIN
    m = scrape(port)

    def delta(name, **labels):
        old = before.samples.get((name, frozenset(labels.items())), 0)
        return m.get(name, **labels) - old

    assert delta("unbound_total_queries_total") == 3
    assert delta("unbound_total_cache_misses_total") == 2
    assert delta("unbound_total_cache_hits_total") == 1
    assert delta("unbound_total_recursive_replies_total") == 2
    assert sum(m.threads("unbound_cache_misses_total").values()) - \
        sum(before.threads("unbound_cache_misses_total").values()) == 2
    assert delta("unbound_response_time_seconds_count") == 2
    assert delta("unbound_response_time_seconds_bucket", le="+Inf") == 2
    assert delta("unbound_response_time_seconds_sum") > 0
    assert m.get("unbound_recursion_time_seconds_avg") > 0
    assert delta("unbound_answer_rcodes_total", rcode="NXDOMAIN") == 1
    assert delta("unbound_answer_rcodes_total", rcode="NOERROR") == 2
    assert m.get("unbound_msg_cache_count") >= 2
    assert m.get("unbound_rrset_cache_count") >= 2
    assert m.get("unbound_infra_cache_count") >= 1
    assert m.get("unbound_total_request_list_current_all") == 0


def test_http_errors(unbound):
    port = free_port()
    unbound.start(extra=prom_clause(port))
    for path in ("/", "/metricsx", "/metrics/", "/favicon.ico"):
        st, _, body = request(port, path=path)
        assert st == 404, path
        assert b"/metrics" in body
    for method in ("POST", "PUT", "DELETE", "OPTIONS"):
        st, hdr, _ = request(port, method=method, body=b"x=1")
        assert st == 405, method
        assert hdr["allow"] == "GET, HEAD"
    # HEAD: the head of the 200, no body
    st, hdr, body = request(port, method="HEAD")
    assert st == 200 and body == b""
    assert hdr["content-type"].startswith(CTYPE)
    assert int(hdr["content-length"]) > 1000
    # a query string is fine
    assert request(port, path="/metrics?name[]=x")[0] == 200
    for bad in (b"GARBAGE\r\n\r\n", b"GET /metrics HTTP/9.9\r\n\r\n",
                b"GET /metrics HTTP/1.1\r\nno-colon\r\n\r\n",
                b"GET /metrics HTTP/1.1\r\nA: b\r\n folded\r\n\r\n",
                b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03" * 4,
                b"GET /metrics HTTP/1.1\r\nX: \x00\r\n\r\n"):
        out = raw(port, bad)
        assert out.startswith(b"HTTP/1.1 400 Bad Request\r\n"), (bad, out)
        assert b"Connection: close\r\n" in out
    # a request head just over the limit, all at once: 400
    big = b"GET /metrics HTTP/1.1\r\nX-Big: " + b"a" * PROM_REQ_MAX + \
        b"\r\n\r\n"
    assert raw(port, big).startswith(b"HTTP/1.1 400 ")
    # just under it: answered
    pad = PROM_REQ_MAX - len("GET /metrics HTTP/1.1\r\nX-Pad: \r\n\r\n")
    ok = b"GET /metrics HTTP/1.1\r\nX-Pad: " + b"p" * pad + b"\r\n\r\n"
    assert len(ok) == PROM_REQ_MAX
    assert raw(port, ok).startswith(b"HTTP/1.1 200 OK\r\n")
    # HTTP/1.0 with LF line ends
    out = raw(port, b"GET /metrics HTTP/1.0\n\n")
    assert out.startswith(b"HTTP/1.1 200 OK\r\n")
    Metrics(out.split(b"\r\n\r\n", 1)[1].decode())
    # the daemon still serves DNS and metrics
    assert unbound.query("version.server.", "TXT", "CH").answer
    scrape(port)


def test_idle_client_does_not_block_scrape(unbound):
    port = free_port()
    unbound.start(extra=prom_clause(port))
    idle = socket.create_connection(("127.0.0.1", port), 5)
    slow = socket.create_connection(("127.0.0.1", port), 5)
    slow.sendall(b"GET /metr")
    try:
        # answered before the idle clients' timeout frees anything
        m = scrape(port, timeout=PROM_TIMEOUT - 1)
        assert m.get("unbound_up") == 1
        assert unbound.query("version.server.", "TXT", "CH").answer
        # the idle ones are closed by the daemon after its timeout
        for s in (idle, slow):
            s.settimeout(PROM_TIMEOUT * 3 * SLOW)
            try:
                assert s.recv(100) == b""
            except ConnectionResetError:
                pass
    finally:
        idle.close()
        slow.close()


def test_many_idle_clients_do_not_lock_out_scrapes(unbound):
    """More idle connections than the limit: the oldest idle ones make
    room, a scrape still gets through at once."""
    port = free_port()
    unbound.start(extra=prom_clause(port))
    socks = []
    try:
        for _ in range(PROM_MAX_CONNS * 3):
            socks.append(socket.create_connection(("127.0.0.1", port), 5))
        m = scrape(port, timeout=PROM_TIMEOUT - 1)
        assert m.get("unbound_up") == 1
        # the first ones were closed to make room
        socks[0].settimeout(5)
        try:
            assert socks[0].recv(10) == b""
        except ConnectionResetError:
            pass
    finally:
        for s in socks:
            s.close()
    assert unbound.query("version.server.", "TXT", "CH").answer


def test_endless_header_is_cut_off(unbound):
    port = free_port()
    unbound.start(extra=prom_clause(port))
    rss0 = rss_kib(unbound.pid)
    sent, cut = 0, False
    with socket.create_connection(("127.0.0.1", port), 10) as s:
        s.sendall(b"GET /metrics HTTP/1.1\r\nX-Endless: ")
        chunk = b"a" * 65536
        try:
            # kernel buffers take a few MB at most; then the daemon must
            # have closed the connection
            while sent < 256 * 1024 * 1024:
                s.sendall(chunk)
                sent += len(chunk)
        except (BrokenPipeError, ConnectionResetError, socket.timeout):
            cut = True
        assert cut, "sent %d bytes without being cut off" % sent
        try:
            out = s.recv(65536)
        except (ConnectionResetError, socket.timeout):
            out = b""
        assert out == b"" or out.startswith(b"HTTP/1.1 400 "), out[:100]
    assert rss_kib(unbound.pid) - rss0 < 16 * 1024
    scrape(port)
    assert unbound.query("version.server.", "TXT", "CH").answer


def test_interface_forms(unbound):
    port = free_port()
    unbound.start(extra=prom_clause(9, iface="127.0.0.1@%d" % port))
    assert scrape(port).get("unbound_up") == 1
    assert refused(9)


@needs_ipv6
def test_ipv6_interface(unbound):
    port = free_port(ipv6=True)
    unbound.start(extra=prom_clause(port, iface="::1"))
    m = scrape(port, host="::1")
    assert m.get("unbound_up") == 1
    st, _, _ = request(port, host="::1", path="/x")
    assert st == 404
    assert refused(port, "127.0.0.1")


def test_bind_failure_is_fatal(unbound):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        unbound.start(extra=prom_clause(port), wait=False)
        assert unbound.proc.wait(START_TIMEOUT) != 0
    out = unbound.output()
    assert "can't bind prometheus-interface 127.0.0.1 port %d" % port \
        in out, out


@pytest.mark.parametrize("line,msg", [
    ("prometheus-port: 0", "prometheus-port"),
    ("prometheus-port: 65536", "prometheus-port"),
    ("prometheus-port: http", "prometheus-port"),
    ("prometheus-enable: maybe", "prometheus-enable"),
    ("prometheus-interface: localhost", "localhost"),
    ("prometheus-interface: 127.0.0.1@0", "127.0.0.1@0"),
    ("prometheus-interface: 300.1.1.1", "300.1.1.1"),
])
def test_bad_config_values(unbound, line, msg):
    unbound.write_config(extra="remote-control:\n\t%s\n" % line)
    r = subprocess.run([CHECKCONF_BIN, unbound.conf], capture_output=True,
                       text=True)
    assert r.returncode != 0
    assert msg in r.stdout + r.stderr, r.stdout + r.stderr
    assert "%s:%d:" % (unbound.conf, unbound.config_line(line)) in \
        r.stdout + r.stderr
    rc, out = unbound.start_expecting_exit(
        extra="remote-control:\n\t%s\n" % line)
    assert rc not in (0, None), out[-2000:]


def test_checkconf_prints_options(unbound):
    unbound.write_config(extra=prom_clause(9100, iface="::1"))
    for opt, want in (("prometheus-enable", "yes"),
                      ("prometheus-port", "9100"),
                      ("prometheus-interface", "::1")):
        r = subprocess.run([CHECKCONF_BIN, "-o", opt, unbound.conf],
                           capture_output=True, text=True)
        assert r.returncode == 0 and r.stdout == want + "\n", (opt, r)
    unbound.write_config()
    for opt, want in (("prometheus-port", "9167"),
                      ("prometheus-interface", "127.0.0.1")):
        r = subprocess.run([CHECKCONF_BIN, "-o", opt, unbound.conf],
                           capture_output=True, text=True)
        assert r.stdout == want + "\n", (opt, r)


def test_reload(unbound):
    a, b = free_port(), free_port()
    body = 'local-data: "a.example. A 192.0.2.1"'
    unbound.start(body, extra=prom_clause(a))
    unbound.query("a.example.")
    n0 = scrape(a).get("unbound_total_queries_total")

    def reload_with(extra):
        count = unbound.log().count("service reloaded")
        unbound.write_config(body, extra=extra)
        unbound.send_signal(signal.SIGHUP)
        assert wait_for(lambda: unbound.log().count("service reloaded") >
                        count, START_TIMEOUT), unbound.output()

    # unchanged: the same socket keeps serving, the counters go on
    inode = listen_inode(a, unbound.pid)
    reload_with(prom_clause(a))
    assert listen_inode(a, unbound.pid) == inode
    assert scrape(a).get("unbound_total_queries_total") >= n0
    # a new port: moved there
    reload_with(prom_clause(b))
    assert scrape(b).get("unbound_total_queries_total") >= n0
    assert refused(a)
    # a port that cannot be bound: logged, the old one keeps serving
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        c = busy.getsockname()[1]
        reload_with(prom_clause(c))
        assert "can't bind prometheus-interface 127.0.0.1 port %d" % c in \
            unbound.log()
        scrape(b)
    # disabled: closed
    reload_with(prom_clause(b, enable=False))
    assert wait_for(lambda: refused(b), 5)
    # enabled again
    reload_with(prom_clause(a))
    assert scrape(a).get("unbound_up") == 1
    assert unbound.alive()


@pytest.mark.parametrize("text", [
    "unbound_x_total 1\n",                                   # no TYPE
    "# TYPE unbound_x_total counter\nunbound_x_total 1\n",  # no HELP
    "# HELP unbound_x h\n# TYPE unbound_x counter\nunbound_x 1\n",
    "# HELP unbound_x h\n# TYPE unbound_x gauge\nunbound_x{a=b} 1\n",
    "# HELP unbound_x h\n# TYPE unbound_x gauge\nunbound_x 1 2 3\n",
    "# HELP unbound_x h\n# TYPE unbound_x gauge\nunbound_x one\n",
    "# HELP unbound_x h\n# TYPE unbound_x gauge\nunbound_x 1\nunbound_x 2\n",
    "# HELP unbound_x h\n# TYPE unbound_x gauge\nunbound_x 1",
    "# HELP unbound_h h\n# TYPE unbound_h histogram\n"
    'unbound_h_bucket{le="1"} 2\nunbound_h_bucket{le="+Inf"} 1\n'
    "unbound_h_sum 1\nunbound_h_count 1\n",
])
def test_parser_rejects_bad_exposition(text):
    """The strict parser the other tests rely on does catch errors."""
    with pytest.raises(AssertionError):
        parse_exposition(text)
