# SPDX-License-Identifier: BSD-3-Clause
"""DNS over TLS modes of contrib/bench/bench.py, ours and Debian's
Unbound 1.17 side by side with the same certificate and config:

  --mode dot     dnsperf -m dot on persistent connections (cache hits):
                 q/s and server CPU per query (run_qps in bench.py)
  --dot-conn     one query per connection (contrib/bench/connrate.c):
                 full handshakes, then resumed ones (session tickets):
                 handshakes/s and server CPU per handshake
  --dot-idle N   N idle TLS connections (handshake and one query each,
                 then held open): VmRSS growth per connection

Functions take bench.py's module (b) for its helpers and process list,
so everything started here is stopped by bench.py's handlers.
"""
import os
import socket
import ssl
import struct
import subprocess
import sys
import time


def add_args(ap):
    ap.add_argument("--dot-conn", action="store_true",
                    help="DoT connection set-up: full and resumed "
                    "handshakes per second, CPU per handshake")
    ap.add_argument("--dot-idle", type=int, nargs="?", const=1000,
                    default=0, metavar="N",
                    help="VmRSS per idle DoT connection, N open (1000)")


def tls_conf(a, tls_port):
    """The server: lines of the TLS listener (none without one)."""
    if not tls_port:
        return ""
    return ("  interface: 127.0.0.1@{p}\n  tls-port: {p}\n"
            '  tls-service-key: "{k}"\n  tls-service-pem: "{c}"\n'
            .format(p=tls_port, k=a.tls_key, c=a.tls_pem))


def make_cert(a, work):
    """A self-signed certificate for both servers (the clients do not
    verify it: the cost is the same): P-256 by default, RSA 2048 with
    --tls-cert rsa2048 (the full handshake's signature is then the
    larger part of its cost, which a resumption saves)."""
    a.tls_key = os.path.join(work, "dot.key")
    a.tls_pem = os.path.join(work, "dot.pem")
    if getattr(a, "tls_cert", "p256") == "rsa2048":
        key = ["-newkey", "rsa:2048"]
    else:
        key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"]
    subprocess.run(["openssl", "req", "-x509"] + key + [
                    "-nodes", "-keyout",
                    a.tls_key, "-out", a.tls_pem, "-days", "2", "-subj",
                    "/CN=bench.test"], check=True, capture_output=True)


def run_dot_conn(b, a, work, nsd_port, hints):
    servers = b.make_servers(a, work, nsd_port, hints, trivial=False)
    for s in servers:
        s.start()
    kinds = ("tls", "tls-resume")
    res = {k: {s.label: [] for s in servers} for k in kinds}
    for rnd in range(a.rounds):
        for s in servers:
            for kind in kinds:
                t0 = b.cpu_ticks(s.pid)
                out = b.run_client(
                    ["taskset", "-c", a.client_cpus, a.connrate,
                     "127.0.0.1", str(s.tls_port), str(a.seconds),
                     str(a.conn_clients), "h0." + b.BENCH_ZONE, "1",
                     kind], subprocess.PIPE)
                t1 = b.cpu_ticks(s.pid)
                m = dict(kv.split("=", 1) for kv in out.split()
                         if "=" in kv)
                n = max(int(m.get("conns", 0)), 1)
                r = {"cps": float(m.get("conns_per_s", 0)),
                     "failed": int(m.get("failed", 0)),
                     "resumed": int(m.get("resumed", 0)),
                     "cpu_us": (sum(t1) - sum(t0)) * 1e6 / b.CLK / n}
                res[kind][s.label].append(r)
                print("round %d %-8s %-10s %7.0f conn/s failed %d resumed "
                      "%d cpu %.1f us/conn" % (
                          rnd + 1, s.label, kind, r["cps"], r["failed"],
                          r["resumed"], r["cpu_us"]))
                sys.stdout.flush()
    for s in servers:
        s.stop()
    cols = [s.label for s in servers]
    rows = []
    for kind, what in (("tls", "full handshake"),
                       ("tls-resume", "resumed (ticket)")):
        rows.append(("conn/s, %s" % what,
                     [b.med(res[kind][c], "cps") for c in cols], 0))
        rows.append(("server CPU us/conn, %s" % what,
                     [b.med(res[kind][c], "cpu_us") for c in cols], 1))
        rows.append(("failed, %s" % what,
                     [b.med(res[kind][c], "failed") for c in cols], 0))
    rows.append(("resumed/full conn/s",
                 [b.med(res["tls-resume"][c], "cps") /
                  max(b.med(res["tls"][c], "cps"), 1) for c in cols], 2))
    b.table("DoT connection set-up: one query per connection, %d client "
            "threads, threads %d, %d x %ds (medians)" % (
                a.conn_clients, a.threads, a.rounds, a.seconds),
            cols, rows, [(0, 1)])


def open_idle(port, n, qname):
    """n TLS connections, each after its handshake and one answered
    query; returned open."""
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    wire = _query(qname)
    socks = []
    for _ in range(n):
        s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port),
                                                     5))
        s.sendall(wire)
        hdr = s.recv(2)
        need = struct.unpack("!H", hdr)[0]
        got = b""
        while len(got) < need:
            got += s.recv(need - len(got))
        socks.append(s)
    return socks


def _query(qname):
    import dns.message
    w = dns.message.make_query(qname, "A").to_wire()
    return struct.pack("!H", len(w)) + w


def run_dot_idle(b, a, work, nsd_port, hints):
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE,
                       (max(soft, min(hard, a.dot_idle + 500)), hard))
    a.conf_line = list(a.conf_line) + ["tcp-idle-timeout: 600000"]
    servers = [s for s in b.make_servers(a, work, nsd_port, hints,
                                         trivial=False)
               if not a.only or s.label in a.only]
    rows = {}
    for s in servers:
        s.start()
        # a first connection: buffers and OpenSSL's tables made once
        warm = open_idle(s.tls_port, 10, "h0." + b.BENCH_ZONE)
        time.sleep(0.5)
        base = b.vm_rss_kb(s.pid)
        t0 = time.time()
        socks = open_idle(s.tls_port, a.dot_idle, "h0." + b.BENCH_ZONE)
        took = time.time() - t0
        time.sleep(1.0)
        held = b.vm_rss_kb(s.pid)
        rows[s.label] = (base, held, took)
        print("idle %-8s %d connections opened in %.1f s; VmRSS %d -> %d "
              "KiB: %.1f KiB per connection" % (
                  s.label, len(socks), took, base, held,
                  (held - base) / float(a.dot_idle)))
        sys.stdout.flush()
        for x in socks + warm:
            x.close()
        s.stop()
    cols = [s.label for s in servers]
    b.table("DoT idle connections: %d open (handshake and one query each), "
            "VmRSS from /proc/PID/status" % a.dot_idle, cols, [
                ("VmRSS before, MiB", [rows[c][0] / 1024.0 for c in cols],
                 1),
                ("VmRSS with them open, MiB", [rows[c][1] / 1024.0
                                               for c in cols], 1),
                ("KiB per connection", [(rows[c][1] - rows[c][0]) /
                                        float(a.dot_idle) for c in cols],
                 1)], [(0, 1)])
