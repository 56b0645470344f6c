#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Cache-hit benchmark: this resolver against Debian's Unbound 1.17 and a
trivial responder (the floor), all on loopback. Started by run.sh, which
installs packages and builds first; see doc/performance.md.

One NSD on 127.0.0.1 serves bench.tld1. (testdata/testnet's bench zone:
A, AAAA, TXT, CNAME). Both resolvers get the same unbound.conf (a
stub-zone to that NSD, a root-hints file naming only 127.0.0.254, where
nothing is asked), each on its own port, the server pinned to
--server-cpus and the client to --client-cpus. After a warm-up pass
through the query file, dnsperf runs against each server in turn,
interleaved, for --rounds rounds; the table gives medians over rounds.
CPU time per query comes from /proc/PID/stat (utime+stime) deltas.
Every process started here is stopped by PID on exit (also on a signal).
"""
import argparse
import glob
import os
import re
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SRC, "testdata"))
sys.path.insert(0, HERE)

import dns.flags  # noqa: E402
import dns.message  # noqa: E402
import dns.query  # noqa: E402
import dns.rcode  # noqa: E402

from testnet import loopback_guard, nsd as tn_nsd, procs, signer, zones  # noqa: E402
import bench_dot  # noqa: E402
from stats_reader import DEBIAN_CONTROL, control_stats, nsd_stats  # noqa: E402

CLK = os.sysconf("SC_CLK_TCK")
BENCH_ZONE = "bench.tld1."
NOWHERE = "127.0.0.254"      # the only root server in the root hints
STARTED = []                 # (pidfile, Popen) of everything we started
CLIENTS = []                 # the client (dnsperf, connrate) running now
OURS_CONTROL = [None]    # ours, next to --ours: reads every option


def run_client(cmd, stdout):
    """Run a client to its end; a signal meanwhile stops it (stop_all)."""
    p = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.STDOUT,
                         universal_newlines=True)
    CLIENTS.append(p)
    try:
        out, _ = p.communicate()
    finally:
        CLIENTS.remove(p)
    return out or ""


def stop_all():
    # no wait() here: in a signal handler the interrupted wait() holds
    # the Popen's lock; the client dies and is reaped when we exit
    for p in CLIENTS:
        p.terminate()
    while STARTED:
        pidfile, proc = STARTED.pop()
        procs.stop(pidfile, proc)


def on_signal(signum, _frame):
    stop_all()
    sys.exit(128 + signum)


def free_port(start):
    """The first port >= start free on 127.0.0.1 for UDP and TCP."""
    for port in range(start, start + 1000):
        if _free(port):
            return port
    raise RuntimeError("no free port")


def _free(port):
    for typ in (socket.SOCK_DGRAM, socket.SOCK_STREAM):
        with socket.socket(socket.AF_INET, typ) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                return False
    return True


# -- /proc -------------------------------------------------------------
def _stat_ticks(path):
    with open(path) as f:
        s = f.read()
    rest = s[s.rindex(")") + 2:].split()
    return int(rest[11]), int(rest[12])     # utime, stime


def cpu_ticks(pid):
    return _stat_ticks("/proc/%d/stat" % pid)


def minor_faults(pid):
    """Page faults so far (minflt): a growing heap's first touches are
    sys time too."""
    with open("/proc/%d/stat" % pid) as f:
        s = f.read()
    return int(s[s.rindex(")") + 2:].split()[7])


def thread_ticks(pid):
    """{tid: (name, utime, stime)} for every thread of pid."""
    out = {}
    for d in glob.glob("/proc/%d/task/*" % pid):
        try:
            with open(d + "/comm") as f:
                name = f.read().strip()
            u, s = _stat_ticks(d + "/stat")
        except OSError:
            continue
        out[int(os.path.basename(d))] = (name, u, s)
    return out


def client_cpu_s():
    """CPU seconds of our reaped children: the clients (dnsperf)."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def group_ticks(pgid):
    """utime+stime of the live processes of group pgid (NSD and its
    server children); 0 without one."""
    if not pgid:
        return 0
    total = 0
    for pid in procs.group_members(pgid):
        try:
            total += sum(cpu_ticks(pid))
        except (OSError, ValueError, IndexError):
            pass
    return total


# -- servers -------------------------------------------------------------
def doh_conf(a, port):
    """--mode doh: an https-port with the bench's self-signed key (the
    TLS port of --mode dot, as an https-port)."""
    return ("  interface: 127.0.0.1@%d\n  https-port: %d\n"
            '  tls-service-key: "%s"\n  tls-service-pem: "%s"\n' % (
                port, port, a.tls_key, a.tls_pem))


def resolver_conf(path, port, a, nsd_port, hints, workdir, tls_port=0,
                  variant=()):
    text = """server:
  interface: 127.0.0.1@{port}
{tls}  port: {port}
  do-ip4: yes
  do-ip6: no
  do-udp: yes
  do-tcp: yes
  num-threads: {threads}
  so-reuseport: {reuseport}
  msg-cache-size: {msg_cache}
  rrset-cache-size: {rrset_cache}
  incoming-num-tcp: {num_tcp}
  do-daemonize: no
  use-syslog: no
  logfile: ""
  chroot: ""
  username: ""
  pidfile: ""
  directory: "{workdir}"
  verbosity: 0
  module-config: "{modules}"
  root-hints: "{hints}"
  do-not-query-localhost: no
  access-control: 127.0.0.0/8 allow
{dnssec}{extra}stub-zone:
  name: "{zone}"
  stub-addr: 127.0.0.1@{nsd_port}
remote-control:
  control-enable: yes
  control-interface: "{ctl}"
""".format(port=port, threads=a.threads, reuseport=a.reuseport,
           tls=doh_conf(a, tls_port) if a.mode == "doh" else
           bench_dot.tls_conf(a, tls_port),
           ctl=path + ".ctl", num_tcp=a.num_tcp,
           workdir=workdir, hints=hints, zone=BENCH_ZONE, nsd_port=nsd_port,
           msg_cache=a.msg_cache, rrset_cache=a.rrset_cache,
           modules=modules(a),
           dnssec=dnssec_conf(a),
           extra="".join("  %s\n" % line for line in a.conf_line))
    text = apply_variant(text, variant)
    with open(path, "w") as f:
        f.write(text)
    # --conf-line must not open a way to the real root servers
    loopback_guard.check(path)


def modules(a):
    """The module-config of both resolvers (a variant may change it)."""
    return "validator iterator" if a.validator else "iterator"


def apply_variant(text, lines):
    """--ours-variant: each line replaces the server: line that sets the
    same option (module-config, num-threads, ...), or is added to
    server: when the template has none."""
    m = re.search(r"\n[^ \n]", text)     # the clause after server:
    server, rest = (text[:m.start() + 1], text[m.start() + 1:]) if m \
        else (text, "")
    for line in lines:
        name = line.split(":", 1)[0].strip()
        pat = re.compile(r"^  %s:.*$" % re.escape(name), re.M)
        if pat.search(server):
            server = pat.sub(lambda _m: "  " + line, server)
        else:
            server += "  %s\n" % line
    return server + rest


def parse_variants(specs):
    """--ours-variant LABEL='OPTION: VALUE; OPTION: VALUE' -> [(label,
    [lines])]; an empty list of lines is the base config again (an A/A
    column: the noise of the ratios)."""
    out = []
    for spec in specs:
        label, sep, lines = spec.partition("=")
        label = label.strip()
        if not sep or not label or label in ("ours", "unbound", "trivial") \
                or label in [v[0] for v in out] or \
                not re.match(r"^[A-Za-z0-9_.+-]+$", label):
            sys.exit("--ours-variant %r: LABEL='OPTION: VALUE; ...' with a "
                     "label of its own (letters, digits, _.+-)" % spec)
        out.append((label, [l.strip() for l in lines.split(";")
                            if l.strip()]))
    return out


def load_avg():
    """The 1, 5 and 15 minute load averages, as text."""
    return "%.1f %.1f %.1f" % os.getloadavg()


def dnssec_conf(a):
    """--dnssec: the bench zone's DS as the only trust anchor (no root
    anchor: the root is never asked). aggressive-nsec off for both: a
    wildcard answer's NSEC must not answer the next name from cache in
    either resolver (Unbound 1.17 does not synthesise positive wildcard
    answers from expanded ones; ours does), so both do the same work.
    --nxflood: on for both (their default), what it measures."""
    if not a.anchor:
        return ""
    return '  trust-anchor: "%s"\n  aggressive-nsec: %s\n%s' % (
        a.anchor, "yes" if a.nxflood else "no",
        # Unbound prints num.query.udpout and .aggressive only then
        "  extended-statistics: yes\n" if a.nxflood else "")


def daemon_stats(conf):
    """The counters of the daemon whose unix control socket conf names
    ({} when unread): Debian's client first (it talks to both); ours
    (OURS_CONTROL) when that one fails, as it does on a config with an
    option 1.17 does not know (answer-cookie, ...)."""
    return control_stats(conf, (DEBIAN_CONTROL, OURS_CONTROL[0]))


def thread_queries(conf):
    """thread N -> num.queries, from the daemon's own statistics; {}
    when they cannot be read."""
    out = {}
    for k, v in daemon_stats(conf).items():
        m = re.match(r"thread(\d+)\.num\.queries$", k)
        if m:
            out[int(m.group(1))] = v
    return out


class Server:
    conf = None     # the resolvers' unbound.conf (not the trivial one)

    def __init__(self, label, args, port, workdir):
        self.label = label
        self.args = args
        self.port = port
        self.dir = os.path.join(workdir, label)
        os.makedirs(self.dir, exist_ok=True)
        self.pidfile = os.path.join(self.dir, "pid")
        self.proc = None

    @property
    def pid(self):
        return self.proc.pid

    def start(self, timeout=15.0):
        self.proc = procs.start(self.args, self.dir, self.pidfile)
        STARTED.append((self.pidfile, self.proc))
        q = dns.message.make_query("h0." + BENCH_ZONE, "A")
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                break
            try:
                dns.query.udp(q, "127.0.0.1", port=self.port, timeout=0.5)
                # an answer from some other process on the port is no
                # proof: ours must still be running (bind failed?)
                time.sleep(0.2)
                if self.proc.poll() is None:
                    return
                break
            except Exception:
                time.sleep(0.1)
        raise RuntimeError("%s did not start; its log:\n%s" % (
            self.label, self.log()))

    def log(self):
        try:
            with open(os.path.join(self.dir, "output.log"),
                      errors="replace") as f:
                return f.read()[-3000:]
        except OSError:
            return ""

    def stop(self):
        procs.stop(self.pidfile, self.proc)
        STARTED[:] = [s for s in STARTED if s[1] is not self.proc]
        self.proc = None


# -- dnsperf -------------------------------------------------------------
def dnsperf(a, port, qfile, outfile, seconds=None, runs=None, rate=None,
            verbose=True, clients=None):
    cmd = ["taskset", "-c", a.client_cpus, "dnsperf", "-s", "127.0.0.1",
           "-p", str(port), "-d", qfile,
           "-m", "udp" if a.mode == "tcstorm" else a.mode,
           "-c", str(clients or a.clients), "-q", str(a.outstanding),
           "-t", str(a.timeout)]
    if a.mode == "doh" and a.doh_client == "dohload" and seconds and \
            not rate and not verbose:
        # the timed rounds: a client light enough to load the server
        cmd = ["taskset", "-c", a.client_cpus, a.dohload, "127.0.0.1",
               str(port), qfile, str(seconds), str(clients or a.clients),
               str(max(1, a.outstanding // (clients or a.clients))),
               a.doh_method]
        with open(outfile, "w") as out:
            run_client(cmd, out)
        return parse_dnsperf(outfile, verbose)
    if seconds:
        cmd += ["-l", str(seconds)]
    if runs:
        cmd += ["-n", str(runs)]
    if rate:
        cmd += ["-Q", str(rate)]
    if verbose:
        cmd += ["-v"]
    if a.mode == "doh":
        cmd += ["-O", "doh-method=%s" % a.doh_method]
    if a.do:
        cmd += ["-D"]
    cmd += a.dnsperf_arg
    with open(outfile, "w") as out:
        run_client(cmd, out)
    return parse_dnsperf(outfile, verbose)


def parse_dnsperf(path, verbose):
    r = {"sent": 0, "completed": 0, "lost_pct": float("nan"),
         "qps": 0.0, "avg_ms": float("nan"), "p99_ms": float("nan"),
         "p50_ms": float("nan"), "noerror_pct": 0.0, "nxdomain_pct": 0.0, "servfail_pct": 0.0}
    lat = []
    with open(path, errors="replace") as f:
        for line in f:
            if verbose and line.startswith("> "):
                try:
                    lat.append(float(line.rsplit(None, 1)[1]))
                except (ValueError, IndexError):
                    pass
                continue
            m = re.match(r"\s*Queries (sent|completed):\s+(\d+)", line)
            if m:
                r[m.group(1)] = int(m.group(2))
            m = re.match(r"\s*Queries lost:\s+\d+ \(([\d.]+)%\)", line)
            if m:
                r["lost_pct"] = float(m.group(1))
            m = re.match(r"\s*Queries per second:\s+([\d.]+)", line)
            if m:
                r["qps"] = float(m.group(1))
            # the first one is the queries'; in TCP mode dnsperf prints
            # a second, its connections' set-up time
            m = re.match(r"\s*Average Latency \(s\):\s+([\d.]+)", line)
            if m and r["avg_ms"] != r["avg_ms"]:
                r["avg_ms"] = float(m.group(1)) * 1000
            m = re.search(r"NOERROR \d+ \(([\d.]+)%\)", line)
            if m:
                r["noerror_pct"] = float(m.group(1))
            m = re.search(r"NXDOMAIN \d+ \(([\d.]+)%\)", line)
            if m:
                r["nxdomain_pct"] = float(m.group(1))
            m = re.search(r"SERVFAIL \d+ \(([\d.]+)%\)", line)
            if m:
                r["servfail_pct"] = float(m.group(1))
    if lat:
        lat.sort()
        r["p99_ms"] = lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000
        r["p50_ms"] = lat[len(lat) // 2] * 1000
    return r


def measure(a, srv, qfile, outfile, once=False):
    """One dnsperf run against srv with its CPU time deltas (once: the
    query file once through, not --seconds)."""
    t0, th0 = cpu_ticks(srv.pid), thread_ticks(srv.pid)
    c0, n0 = client_cpu_s(), group_ticks(getattr(a, "nsd_pgid", None))
    f0 = minor_faults(srv.pid)
    r = dnsperf(a, srv.tls_port if a.mode in ("dot", "doh") else srv.port,
                qfile, outfile,
                seconds=None if once else a.seconds,
                runs=1 if once else None, rate=a.rate, verbose=False)
    t1, th1 = cpu_ticks(srv.pid), thread_ticks(srv.pid)
    c1, n1 = client_cpu_s(), group_ticks(getattr(a, "nsd_pgid", None))
    n = max(r["completed"], 1)
    us = 1e6 / CLK / n
    # the other side of the loopback (--misses: NSD and dnsperf share
    # --client-cpus; when they fill it, q/s says nothing of the server)
    r["client_us"] = (c1 - c0) * 1e6 / n
    r["nsd_us"] = (n1 - n0) * us
    r["faults"] = (minor_faults(srv.pid) - f0) / n
    r["user_us"] = (t1[0] - t0[0]) * us
    r["sys_us"] = (t1[1] - t0[1]) * us
    r["cpu_us"] = r["user_us"] + r["sys_us"]
    r["threads"] = {tid: (v[0], v[1] + v[2] - sum(th0.get(tid, ("", 0, 0))[1:]))
                    for tid, v in th1.items()}
    return r


# -- output --------------------------------------------------------------
def fmt(v, nd=1):
    if v is None or v != v:
        return "n/a"
    if abs(v) >= 1000:
        return "%.0f" % v
    return "%.*f" % (nd, v)


def ratio(x, y):
    if x is None or y is None or x != x or y != y or y == 0:
        return "n/a"
    return "%.2f" % (x / y)


def table(title, cols, rows, ratios):
    """rows: [(metric, [values per col], digits)]; ratios: [(i, j)] pairs
    of column indexes printed as cols[i]/cols[j]."""
    heads = ["metric"] + cols + ["%s/%s" % (cols[i], cols[j])
                                 for i, j in ratios]
    lines = []
    for name, vals, nd in rows:
        lines.append([name] + [fmt(v, nd) for v in vals] +
                     [ratio(vals[i], vals[j]) for i, j in ratios])
    w = [max(len(x) for x in col) for col in zip(heads, *lines)]
    print("\n" + title)
    print("| " + " | ".join(h.ljust(w[k]) for k, h in enumerate(heads)) + " |")
    print("|" + "|".join("-" * (x + 2) for x in w) + "|")
    for ln in lines:
        print("| " + " | ".join(c.ljust(w[k]) for k, c in enumerate(ln)) +
              " |")
    sys.stdout.flush()


def med(results, key):
    vals = [r[key] for r in results if r.get(key) == r.get(key)]
    return statistics.median(vals) if vals else float("nan")


# -- the modes -------------------------------------------------------------
def setup(a, work):
    """Start NSD with the bench zone; write the query file and hints."""
    zone, queries = zones.bench_zone(a.names)
    nsd_port = free_port(a.port_base)
    zone.lines = [l.replace("BENCH_ADDR", "127.0.0.1") for l in zone.lines]
    # any number of distinct names for --memory: <anything>.w.bench.tld1.
    zone.lines.append("*.w A 10.255.0.1")
    if a.misses and a.miss_zone == "names":
        # a name of its own (its own RRSIG) for every validated miss
        zone.lines += ["n%d.m A 10.%d.%d.%d" % (i, 128 + (i >> 16 & 127),
                                                 i >> 8 & 255, i & 255)
                       for i in range(a.miss_pool)]
    a.anchor = None
    if a.dnssec:
        zone, a.anchor = sign_bench_zone(a, zone, work)
    inst = tn_nsd.NsdInstance("nsd", os.path.join(work, "nsd"),
                              "127.0.0.1", nsd_port, [zone])
    inst.write()
    if a.mode == "tcstorm":
        nsd_rrl_default(inst.conf)
    a.nsd_conf = inst.conf
    inst.proc = procs.start(["taskset", "-c", a.client_cpus,
                             tn_nsd.NSD_BIN, "-d", "-c", inst.conf],
                            inst.dir, inst.pidfile)
    STARTED.append((inst.pidfile, inst.proc))
    a.nsd_pgid = inst.proc.pid      # started in a session of its own
    inst.wait_ready()
    qfile = os.path.join(work, "queries.txt")
    with open(qfile, "w") as f:
        f.writelines("%s %s\n" % q for q in queries)
    hints = os.path.join(work, "root.hints")
    with open(hints, "w") as f:
        f.write(".\t3600000\tIN\tNS\tnowhere.test.\n"
                "nowhere.test.\t3600000\tIN\tA\t%s\n" % NOWHERE)
    print("bench zone %s: %d names on NSD 127.0.0.1@%d; queries %s" % (
        BENCH_ZONE, a.names, nsd_port, qfile))
    return nsd_port, qfile, hints


def nsd_rrl_default(conf):
    """The testnet's nsd.conf turns RRL off; tcstorm wants NSD's
    defaults back (rrl-ratelimit 200, rrl-slip 2: of the queries over the
    limit, every other one gets an empty TC=1 reply, the rest none)."""
    with open(conf) as f:
        text = f.read()
    text = text.replace("  rrl-ratelimit: 0\n", "  rrl-ratelimit: 200\n")
    text = text.replace("  rrl-whitelist-ratelimit: 0\n", "")
    # its statistics (nsd_stats) over a unix socket: no keys needed
    text = text.replace("  control-enable: no\n",
                        "  control-enable: yes\n  control-interface: %s\n"
                        % nsd_control_socket(conf))
    with open(conf, "w") as f:
        f.write(text)


def nsd_control_socket(conf):
    return os.path.join(os.path.dirname(conf), "nsd.ctl")


def sign_bench_zone(a, zone, work):
    """The bench zone signed with a fresh KSK and ZSK of --alg (NSEC),
    as testdata/testnet signs (ldns-keygen, ldns-signzone); returns the
    signed zone and the KSK's DS record (the trust anchor)."""
    kdir = os.path.join(work, "keys")
    t0 = time.time()
    ksk = signer.keygen(kdir, BENCH_ZONE, a.alg, ksk=True)
    zsk = signer.keygen(kdir, BENCH_ZONE, a.alg, ksk=False)
    text = signer.sign(zone.text(), BENCH_ZONE, [ksk, zsk], kdir)
    signed = zones.Zone(BENCH_ZONE, [l for l in text.splitlines()
                                     if l.strip()])
    print("signed %s with %s (KSK %d, ZSK %d, NSEC) in %.1f s" % (
        BENCH_ZONE, a.alg, ksk.keytag, zsk.keytag, time.time() - t0))
    return signed, ksk.ds_line()


def check_secure(a, srv, qname, qtype="A"):
    """--dnssec: one query with DO must come back NOERROR with AD (the
    server validated), else the figures would measure something else."""
    if not a.dnssec:
        return True
    q = dns.message.make_query(qname, qtype, want_dnssec=True)
    try:
        r = dns.query.udp(q, "127.0.0.1", port=srv.port, timeout=5)
    except Exception as e:     # noqa: BLE001 - reported, not fatal
        print("check %-8s %s: no answer (%s)  <-- NOT SECURE" % (
            srv.label, qname, e))
        return False
    ad = bool(r.flags & dns.flags.AD)
    ok = ad and r.rcode() == dns.rcode.NOERROR
    print("check %-8s %s %s: %s, AD %s%s" % (
        srv.label, qname, qtype, dns.rcode.to_text(r.rcode()),
        "set" if ad else "clear", "" if ok else "  <-- NOT SECURE"))
    return ok


def make_servers(a, work, nsd_port, hints, trivial=True, wrap=()):
    """ours, Debian's Unbound (unless --no-ref), one server of our binary
    per --ours-variant (the same config with that variant's lines), and
    the trivial responder (trivial, unless --no-trivial)."""
    servers = []
    port = nsd_port + 1
    resolvers = [("ours", a.ours, [])]
    if not a.no_ref:
        resolvers.append(("unbound", a.ref, []))
    resolvers += [(label, a.ours, lines) for label, lines in a.variants]
    for label, binary, lines in resolvers:
        port = free_port(port + 1)
        tls_port = free_port(port + 1) if a.tls else 0
        conf = os.path.join(work, "%s-%s.conf" % (label, a.reuseport))
        resolver_conf(conf, port, a, nsd_port, hints, work, tls_port,
                      variant=lines)
        args = ["taskset", "-c", a.server_cpus] + list(wrap(label)
                                                        if wrap else []) + \
            [binary, "-d", "-c", conf]
        servers.append(Server(label, args, port, work))
        servers[-1].conf = conf
        servers[-1].tls_port = tls_port
        port = max(port, tls_port)
    if trivial and not a.tls and not a.no_trivial:
        port = free_port(port + 1)
        servers.append(Server("trivial", ["taskset", "-c", a.server_cpus,
                                          a.trivial, "127.0.0.1", str(port)],
                              port, work))
    return servers


def warm(a, srv, qfile, work, rate=None):
    out = os.path.join(work, "warm-%s.txt" % srv.label)
    r = dnsperf(a, srv.tls_port if a.mode in ("dot", "doh") else srv.port,
                qfile,
                out, runs=1, verbose=False, rate=rate or a.warm_rate)
    with open(qfile) as f:
        n = sum(1 for _ in f)
    # --nxflood warms with nonexistent names: NXDOMAIN is the answer
    key, what = ("nxdomain_pct", "NXDOMAIN") if a.nxflood else \
        ("noerror_pct", "NOERROR")
    ok = r["completed"] >= 0.99 * n and r[key] >= 99.0
    print("warm-up %-8s %d/%d answered, %.2f%% %s%s" % (
        srv.label, r["completed"], r["sent"], r[key], what,
        "" if ok else "  <-- NOT WARM"))
    return ok


def run_qps(a, work, nsd_port, qfile, hints):
    servers = make_servers(a, work, nsd_port, hints)
    for s in servers:
        s.start()
        print("started %-8s pid %d port %d: %s" % (
            s.label, s.pid, s.port, " ".join(s.args)))
    resolvers = [s for s in servers if s.conf]
    for s in resolvers:
        warm(a, s, qfile, work)
        check_secure(a, s, "h0." + BENCH_ZONE)
    before = {s.label: thread_queries(s.conf) for s in resolvers}
    res = {s.label: [] for s in servers}
    loads = [load_avg()]
    for rnd in range(a.rounds):
        for s in round_order(a, servers, rnd):
            out = os.path.join(work, "perf-%s-%d.txt" % (s.label, rnd))
            r = measure(a, s, qfile, out)
            res[s.label].append(r)
            print("round %d %-8s %8.0f q/s lost %.2f%% avg %s ms "
                  "cpu %.2f us/q (user %.2f sys %.2f) load %s" % (
                      rnd + 1, s.label, r["qps"], r["lost_pct"],
                      fmt(r["avg_ms"], 3), r["cpu_us"],
                      r["user_us"], r["sys_us"], load_avg()))
            sys.stdout.flush()
    loads.append(load_avg())
    # latency: dnsperf -v prints every query's time, which costs the
    # client about half its speed, so it gets its own runs at a fixed
    # rate, interleaved like the rounds; the median over them (one run's
    # p99 swings with whatever else the machine does for a moment)
    lat = {}
    for s in servers:
        lat[s.label] = {"avg_ms": float("nan"), "p99_ms": float("nan")}
    lat_res = {s.label: [] for s in servers}
    for rnd in range(0 if a.no_p99 else a.lat_rounds):
        for s in servers:
            out = os.path.join(work, "lat-%s-%d.txt" % (s.label, rnd))
            r = dnsperf(a, s.tls_port if a.mode in ("dot", "doh") else s.port,
                        qfile, out, seconds=a.lat_seconds,
                        rate=a.lat_rate, verbose=True)
            lat_res[s.label].append(r)
            print("latency %d %-8s at -Q %d: avg %s ms p99 %s ms lost "
                  "%.2f%%" % (rnd + 1, s.label, a.lat_rate,
                              fmt(r["avg_ms"], 3), fmt(r["p99_ms"], 3),
                              r["lost_pct"]))
            sys.stdout.flush()
    for s in servers:
        if lat_res[s.label]:
            lat[s.label] = {"avg_ms": med(lat_res[s.label], "avg_ms"),
                            "p99_ms": med(lat_res[s.label], "p99_ms")}
    cols = [s.label for s in servers]
    rows = [("queries/s (median)", [med(res[c], "qps") for c in cols], 0),
            ("lost %", [med(res[c], "lost_pct") for c in cols], 2),
            ("avg latency ms, full load", [med(res[c], "avg_ms")
                                           for c in cols], 3),
            ("avg latency ms at -Q %d (median)" % a.lat_rate,
             [lat[c]["avg_ms"] for c in cols], 3),
            ("p99 latency ms at -Q %d (median)" % a.lat_rate,
             [lat[c]["p99_ms"] for c in cols], 3),
            ("server CPU us/query", [med(res[c], "cpu_us") for c in cols], 2),
            ("  user us/query", [med(res[c], "user_us") for c in cols], 2),
            ("  sys us/query", [med(res[c], "sys_us") for c in cols], 2)]
    pairs = ratio_pairs(a, cols)
    table("mode %s, threads %d, so-reuseport %s, %d x %ds, dnsperf -c %d "
          "-q %d%s (medians over rounds)%s%s" % (
              a.mode, a.threads, a.reuseport, a.rounds, a.seconds,
              a.clients, a.outstanding, " -Q %d" % a.rate if a.rate else "",
              variants_text(a), "; load average (1, 5, 15 min) %s at the "
              "start, %s at the end" % tuple(loads)),
          cols, rows, pairs)
    # the same round's runs saw the same machine: their ratios are the
    # figure least moved by other load
    for i, j in pairs:
        per_round_ratios(res, cols[i], cols[j])
    for s in resolvers:
        tot = {}
        for r in res[s.label]:
            for tid, (name, t) in r["threads"].items():
                k = "%s/%d" % (name, tid)
                tot[k] = tot.get(k, 0) + t
        all_t = sum(tot.values()) or 1
        print("per-thread CPU, %s (all rounds, /proc/PID/task/*/stat): %s" % (
            s.label, ", ".join("%s %.1fs (%.0f%%)" % (k, v / CLK,
                                                      100.0 * v / all_t)
                               for k, v in sorted(tot.items()) if v)))
        after = thread_queries(s.conf)
        got = {t: n - before[s.label].get(t, 0) for t, n in after.items()}
        total = sum(got.values()) or 1
        print("per-thread queries, %s (rounds only, its stats_noreset): %s" % (
            s.label, ", ".join("thread%d %d (%.0f%%)" % (t, n, 100.0 * n /
                                                       total)
                               for t, n in sorted(got.items()))
            if got else "statistics not readable"))
    for s in servers:
        s.stop()


def round_order(a, servers, rnd):
    """The servers of round rnd: in their order, except with
    --ours-variant columns, where each round starts one further along
    (no column always runs first, or always right after another)."""
    if not a.variants:
        return servers
    k = rnd % len(servers)
    return servers[k:] + servers[:k]


def ratio_pairs(a, cols):
    """Index pairs (i, j) of the columns printed as cols[i]/cols[j]:
    ours/unbound, each variant/ours, ours/trivial."""
    pairs = []
    if "unbound" in cols:
        pairs.append((cols.index("ours"), cols.index("unbound")))
    for label, _ in a.variants:
        if label in cols:
            pairs.append((cols.index(label), cols.index("ours")))
    if "trivial" in cols:
        pairs.append((cols.index("ours"), cols.index("trivial")))
    return pairs


def variants_text(a):
    """The --ours-variant columns for a table's title."""
    if not a.variants:
        return ""
    return "; variants of ours: %s" % "; ".join(
        "%s = %s" % (label, ", ".join(lines) or "the same config (A/A)")
        for label, lines in a.variants)


def run_connrate(a, work, nsd_port, qfile, hints):
    res = {}
    for reuse in ("yes", "no"):
        a.reuseport = reuse
        servers = make_servers(a, work, nsd_port, hints)
        for s in servers:
            s.start()
        res[reuse] = {s.label: [] for s in servers}
        for rnd in range(a.rounds):
            for s in servers:
                t0 = cpu_ticks(s.pid)
                out = run_client(
                    ["taskset", "-c", a.client_cpus, a.connrate,
                     "127.0.0.1", str(s.port), str(a.seconds),
                     str(a.conn_clients), "h0." + BENCH_ZONE],
                    subprocess.PIPE)
                t1 = cpu_ticks(s.pid)
                m = dict(kv.split("=", 1) for kv in out.split()
                         if "=" in kv)
                n = max(int(m.get("conns", 0)), 1)
                r = {"cps": float(m.get("conns_per_s", 0)),
                     "failed": int(m.get("failed", 0)),
                     "cpu_us": (sum(t1) - sum(t0)) * 1e6 / CLK / n}
                res[reuse][s.label].append(r)
                print("so-reuseport %-3s round %d %-8s %7.0f conn/s "
                      "failed %d cpu %.1f us/conn" % (
                          reuse, rnd + 1, s.label, r["cps"], r["failed"],
                          r["cpu_us"]))
                sys.stdout.flush()
        for s in servers:
            s.stop()
    cols = [s.label for s in servers]
    rows = []
    for reuse in ("yes", "no"):
        rows.append(("conn/s, reuseport %s" % reuse,
                     [med(res[reuse][c], "cps") for c in cols], 0))
        rows.append(("CPU us/conn, reuseport %s" % reuse,
                     [med(res[reuse][c], "cpu_us") for c in cols], 1))
        rows.append(("failed, reuseport %s" % reuse,
                     [med(res[reuse][c], "failed") for c in cols], 0))
    table("connection rate: one query per TCP connection, %d client "
          "threads, threads %d, %d x %ds (medians)" % (
              a.conn_clients, a.threads, a.rounds, a.seconds),
          cols, rows, ratio_pairs(a, cols))


def stat_counter(conf, name):
    """One counter of unbound-control stats_noreset (None if unread)."""
    stats = daemon_stats(conf)
    return stats.get(name, stats.get("total." + name))


def tcp_active_opens():
    """TCP connects of the whole network namespace (/proc/net/snmp)."""
    with open("/proc/net/snmp") as f:
        rows = [l.split() for l in f if l.startswith("Tcp:")]
    return int(rows[1][rows[0].index("ActiveOpens")])


def time_wait_count(port):
    """TCP sockets in TIME_WAIT to or from 127.0.0.1:port now."""
    try:
        r = subprocess.run(["ss", "-Htan", "state", "time-wait"],
                           capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return float("nan")
    key = "127.0.0.1:%d" % port
    return sum(1 for line in r.stdout.splitlines() if key in line.split())


def run_tcstorm(a, work, nsd_port, hints, nsd_conf=None):
    """Unique names (NSD's wildcard) against NSD with its default RRL:
    over 200 q/s half the UDP replies are TC=1, so the resolvers fall
    back to TCP for many of them. Every run gets names of its own, so
    nothing comes from a cache."""
    # num.query.tcpout is an extended statistic (in Unbound too)
    a.conf_line = a.conf_line + ["extended-statistics: yes"]
    servers = make_servers(a, work, nsd_port, hints, trivial=False)
    for s in servers:
        s.start()
        print("started %-8s pid %d port %d: %s" % (
            s.label, s.pid, s.port, " ".join(s.args)))
    res = {s.label: [] for s in servers}
    for rnd in range(a.rounds):
        for s in servers:
            qfile = os.path.join(work, "storm-%s-%d.txt" % (s.label, rnd))
            with open(qfile, "w") as f:
                for i in range(a.storm_names):
                    f.write("s%d%s%d.w.%s A\n" % (rnd, s.label[0], i,
                                                  BENCH_ZONE))
            # the TIME_WAITs of the run before (the other server's) must
            # not count for this one: NSD's side holds them too
            tw0 = time_wait_count(nsd_port)
            tcp0 = stat_counter(s.conf, "num.query.tcpout")
            udp0 = stat_counter(s.conf, "num.query.udpout")
            opens0 = tcp_active_opens()
            n0 = nsd_stats(nsd_conf) if nsd_conf else {}
            out = os.path.join(work, "storm-%s-%d.out" % (s.label, rnd))
            r = measure(a, s, qfile, out)
            n1 = nsd_stats(nsd_conf) if nsd_conf else {}

            def nsd_ps(*keys):
                if not n0 or not n1:
                    return float("nan")
                return sum((n1.get(k, 0) - n0.get(k, 0)) * sign
                           for k, sign in keys) / a.seconds
            # NSD counts every query in num.queries, UDP ones in num.udp
            r["nsd_tcp_ps"] = nsd_ps(("num.queries", 1), ("num.udp", -1))
            r["nsd_udp_ps"] = nsd_ps(("num.udp", 1))
            r["nsd_tc_ps"] = nsd_ps(("num.truncated", 1))
            r["nsd_drop_ps"] = nsd_ps(("num.dropped", 1))
            tcp1 = stat_counter(s.conf, "num.query.tcpout")
            udp1 = stat_counter(s.conf, "num.query.udpout")
            r["udp_ps"] = ((udp1 - udp0) / a.seconds
                           if udp0 is not None and udp1 is not None
                           else float("nan"))
            r["conn_ps"] = (tcp_active_opens() - opens0) / a.seconds
            r["tw"] = time_wait_count(nsd_port)
            r["tw0"] = tw0
            ok = r["completed"] * r["noerror_pct"] / 100.0
            r["answered_pct"] = 100.0 * ok / max(r["sent"], 1)
            r["servfail_sent_pct"] = (r["completed"] * r["servfail_pct"] /
                                      max(r["sent"], 1))
            r["lost_sent_pct"] = (100.0 * (r["sent"] - r["completed"]) /
                                  max(r["sent"], 1))
            r["ok_qps"] = r["qps"] * r["noerror_pct"] / 100.0
            r["cpu_ok_ms"] = r["cpu_us"] * r["completed"] / max(ok, 1) / 1e3
            r["user_ok_ms"] = r["user_us"] * r["completed"] / max(ok, 1) / 1e3
            r["sys_ok_ms"] = r["sys_us"] * r["completed"] / max(ok, 1) / 1e3
            r["tcp_ps"] = ((tcp1 - tcp0) / a.seconds
                           if tcp0 is not None and tcp1 is not None
                           else float("nan"))
            res[s.label].append(r)
            print("round %d %-8s %7.0f q/s, %.1f%% answered NOERROR, "
                  "cpu %.3f ms per answer (user %.3f sys %.3f), "
                  "%.0f UDP and %.0f TCP queries/s upstream (at NSD: "
                  "%.0f UDP, %.0f TCP, %.0f TC=1, %.0f dropped), "
                  "%.0f connects/s, "
                  "TIME_WAIT at NSD's port %s before, %s after" % (
                      rnd + 1, s.label, r["qps"], r["answered_pct"],
                      r["cpu_ok_ms"], r["user_ok_ms"], r["sys_ok_ms"],
                      r["udp_ps"], r["tcp_ps"], r["nsd_udp_ps"],
                      r["nsd_tcp_ps"], r["nsd_tc_ps"], r["nsd_drop_ps"],
                      r["conn_ps"], r["tw0"],
                      r["tw"]))
            sys.stdout.flush()
            os.unlink(qfile)
    cols = [s.label for s in servers]
    rows = [("queries/s (dnsperf)", [med(res[c], "qps") for c in cols], 0),
            ("NOERROR answers/s", [med(res[c], "ok_qps") for c in cols], 0),
            ("answered NOERROR, % of sent",
             [med(res[c], "answered_pct") for c in cols], 1),
            ("SERVFAIL, % of sent",
             [med(res[c], "servfail_sent_pct") for c in cols], 1),
            ("no reply within dnsperf -t, % of sent",
             [med(res[c], "lost_sent_pct") for c in cols], 1),
            ("server CPU ms per answer", [med(res[c], "cpu_ok_ms")
                                          for c in cols], 3),
            ("  user ms per answer", [med(res[c], "user_ok_ms")
                                      for c in cols], 3),
            ("  sys ms per answer", [med(res[c], "sys_ok_ms")
                                     for c in cols], 3),
            ("UDP queries upstream /s (num.query.udpout)",
             [med(res[c], "udp_ps") for c in cols], 0),
            # Unbound 1.17 counts TCP connections opened in
            # num.query.tcpout (outnet_tcp_take_into_use), ours queries
            ("num.query.tcpout /s (Unbound: connections opened)",
             [med(res[c], "tcp_ps") for c in cols], 0),
            ("TCP queries /s at NSD (num.queries - num.udp)",
             [med(res[c], "nsd_tcp_ps") for c in cols], 0),
            ("UDP queries /s at NSD (num.udp)",
             [med(res[c], "nsd_udp_ps") for c in cols], 0),
            ("  of those TC=1 (num.truncated)",
             [med(res[c], "nsd_tc_ps") for c in cols], 0),
            ("  of those dropped (num.dropped)",
             [med(res[c], "nsd_drop_ps") for c in cols], 0),
            ("TCP connects/s (namespace's ActiveOpens)",
             [med(res[c], "conn_ps") for c in cols], 0)]
    table("tcstorm: unique names, NSD rrl-ratelimit 200 (default), "
          "threads %d, %d x %ds, dnsperf -c %d -q %d (medians over rounds)"
          % (a.threads, a.rounds, a.seconds, a.clients, a.outstanding),
          cols, rows, [(0, 1)])


MISS_NEXT = [0]     # --miss-zone names: the next unused n<i>.m name


def miss_queries(work, tag, n, a=None):
    """n new names, each a cache miss validated with the keys already
    cached. --miss-zone wildcard: under the signed wildcard
    *.w.bench.tld1., answered by NSD from the wildcard with its NSEC
    proof. --miss-zone names: n<i>.m.bench.tld1., names of the zone not
    asked before (each its own RRSIG, no proof needed)."""
    path = os.path.join(work, "miss-%s.txt" % tag)
    with open(path, "w") as f:
        if a is not None and a.miss_zone == "names":
            first = MISS_NEXT[0]
            n = min(n, a.miss_pool - first)
            MISS_NEXT[0] += n
            for i in range(first, first + n):
                f.write("n%d.m.%s A\n" % (i, BENCH_ZONE))
        else:
            for i in range(n):
                f.write("%s-%d.w.%s A\n" % (tag, i, BENCH_ZONE))
    return path


def miss_latency(a, work, servers):
    """p50 and p99 of misses at a moderate rate (--miss-lat-rate, below
    either server's saturation: the time a miss takes, not the queueing
    of a full load): dnsperf -v with new names, --lat-rounds runs per
    server interleaved, medians. --no-p99 skips it."""
    lat = {s.label: {"p50_ms": float("nan"), "p99_ms": float("nan")}
           for s in servers}
    runs = {s.label: [] for s in servers}
    for rnd in range(0 if a.no_p99 else a.lat_rounds):
        qfile = miss_queries(work, "lat%d" % rnd,
                             a.miss_lat_rate * (a.lat_seconds + 2), a)
        order = servers if rnd % 2 == 0 else servers[::-1]
        for s in order:
            out = os.path.join(work, "misslat-%s-%d.txt" % (s.label, rnd))
            r = dnsperf(a, s.port, qfile, out, seconds=a.lat_seconds,
                        rate=a.miss_lat_rate, verbose=True)
            runs[s.label].append(r)
            print("miss latency %d %-8s at -Q %d: p50 %s ms p99 %s ms "
                  "lost %.2f%%" % (rnd + 1, s.label, a.miss_lat_rate,
                                   fmt(r["p50_ms"], 3), fmt(r["p99_ms"], 3),
                                   r["lost_pct"]))
            sys.stdout.flush()
        os.unlink(qfile)
    for s in servers:
        if runs[s.label]:
            lat[s.label] = {"p50_ms": med(runs[s.label], "p50_ms"),
                            "p99_ms": med(runs[s.label], "p99_ms")}
    return lat


def run_misses(a, work, nsd_port, hints):
    """Validated misses: dnsperf at full load with a new name in every
    query, both resolvers interleaved over rounds; each round has its own
    names (the same file for both servers: their caches are their own).
    Extended statistics on for both: Unbound prints num.query.udpout,
    the upstream queries per client query, only then."""
    a.conf_line = a.conf_line + ["extended-statistics: yes"]
    servers = make_servers(a, work, nsd_port, hints, trivial=False)
    servers += floor_servers(a, work, nsd_port, servers[-1].port)
    wfile = miss_queries(work, "warm", 1000, a)
    for s in servers:
        s.start()
        print("started %-8s pid %d port %d: %s" % (
            s.label, s.pid, s.port, " ".join(s.args)))
        r = dnsperf(a, s.port, wfile, os.path.join(
            work, "warm-%s.txt" % s.label), runs=1, verbose=False, rate=2000)
        print("warm-up %-8s %d/%d answered, %.2f%% NOERROR" % (
            s.label, r["completed"], r["sent"], r["noerror_pct"]))
        check_secure(a, s, "check-0.w." + BENCH_ZONE)
    res = {s.label: [] for s in servers}
    loads = [load_avg()]
    for rnd in range(a.rounds):
        n = a.miss_names
        if a.miss_zone == "names":
            n = (a.miss_pool - MISS_NEXT[0]) // (a.rounds - rnd)
        qfile = miss_queries(work, "r%d" % rnd, n, a)
        order = round_order(a, servers, rnd) if a.variants else \
            servers if rnd % 2 == 0 else servers[::-1]
        for s in order:
            out = os.path.join(work, "miss-%s-%d.txt" % (s.label, rnd))
            # the floor has no statistics: one upstream query per
            # client query by construction (its log counts timeouts)
            up0 = upstream_and_aggr(s.conf)[0] if s.conf else 0
            r = measure(a, s, qfile, out)
            r["up_per_q"] = ((upstream_and_aggr(s.conf)[0] - up0) /
                             r["completed"] if r["completed"] and s.conf
                             else float("nan"))
            res[s.label].append(r)
            print("round %d %-8s %8.0f q/s lost %.2f%% NOERROR %.2f%% "
                  "avg %s ms cpu %.2f us/q (user %.2f sys %.2f) upstream "
                  "%.3f/q load %s%s" % (
                      rnd + 1, s.label, r["qps"], r["lost_pct"],
                      r["noerror_pct"], fmt(r["avg_ms"], 3), r["cpu_us"],
                      r["user_us"], r["sys_us"], r["up_per_q"], load_avg(),
                      "  <-- names ran out: hits counted"
                      if r["sent"] > n else ""))
            sys.stdout.flush()
        os.unlink(qfile)
    loads.append(load_avg())
    lat = miss_latency(a, work, servers)
    for s in servers:
        check_secure(a, s, "check-1.w." + BENCH_ZONE)
    cols = [s.label for s in servers]
    rows = [("misses/s (median)",
             [med(res[c], "qps") for c in cols], 0),
            ("lost %", [med(res[c], "lost_pct") for c in cols], 2),
            ("NOERROR %", [med(res[c], "noerror_pct") for c in cols], 2),
            ("avg latency ms, full load", [med(res[c], "avg_ms")
                                           for c in cols], 3),
            ("server CPU us/query", [med(res[c], "cpu_us") for c in cols], 2),
            ("  user us/query", [med(res[c], "user_us") for c in cols], 2),
            ("  sys us/query", [med(res[c], "sys_us") for c in cols], 2),
            ("  page faults/query", [med(res[c], "faults") for c in cols],
             3),
            ("NSD CPU us/query", [med(res[c], "nsd_us") for c in cols], 2),
            ("dnsperf CPU us/query", [med(res[c], "client_us")
                                      for c in cols], 2),
            ("upstream queries per client query",
             [med(res[c], "up_per_q") for c in cols], 3),
            ("p50 latency ms at -Q %d (median)" % a.miss_lat_rate,
             [lat[c]["p50_ms"] for c in cols], 3),
            ("p99 latency ms at -Q %d (median)" % a.miss_lat_rate,
             [lat[c]["p99_ms"] for c in cols], 3)]
    kind = ("misses, unsigned zone, module-config %s" % modules(a)
            if a.unsigned else "validated misses (%s)" % a.alg)
    # the floors (missfloor.c) against Unbound, and ours against each
    pairs = ratio_pairs(a, cols)
    floors = [k for k, c in enumerate(cols) if c not in ("ours", "unbound")
              and c not in [v[0] for v in a.variants]]
    if "unbound" in cols:
        pairs += [(k, cols.index("unbound")) for k in floors]
    table("%s: a new name %s in every query, threads "
          "%d, %d x %ds interleaved, dnsperf -c %d -q %d%s%s (medians over "
          "rounds)%s; load average (1, 5, 15 min) %s at the start, %s at "
          "the end" % (
              kind, "under the wildcard" if a.miss_zone == "wildcard"
              else "of the zone", a.threads, a.rounds, a.seconds, a.clients,
              a.outstanding, " -Q %d" % a.rate if a.rate else "",
              " -D" if a.do else "", variants_text(a), loads[0], loads[1]),
          cols, rows, pairs)
    # the same round's runs saw the same machine: their ratios are the
    # figure least moved by other load
    for i, j in pairs + [(cols.index("ours"), k) for k in floors]:
        per_round_ratios(res, cols[i], cols[j])
    for s in servers:
        s.stop()
        if not s.conf:
            print("%s: %s" % (s.label, " | ".join(
                s.log().strip().splitlines()[-4:])))


def per_round_ratios(res, x_label, y_label):
    """x/y of q/s and of CPU, sys and user time per query, round by
    round (the two runs of a round saw the same machine), with medians."""
    parts = []
    for key, name in (("qps", "q/s"), ("cpu_us", "CPU/query"),
                      ("sys_us", "sys/query"), ("user_us", "user/query")):
        v = [x[key] / y[key] for x, y in zip(res[x_label], res[y_label])
             if y[key]]
        parts.append("%s %s (median %s, range %s-%s)" % (
            name, " ".join("%.2f" % r for r in v),
            fmt(statistics.median(v) if v else None, 2),
            fmt(min(v) if v else None, 2), fmt(max(v) if v else None, 2)))
    print("per-round %s/%s: %s" % (x_label, y_label, ", ".join(parts)))


def floor_servers(a, work, nsd_port, after_port):
    """--misses: contrib/bench/missfloor.c, the floor of a miss (a new
    random-port socket per upstream query and nothing else), forwarding
    to the same NSD, pinned like the resolvers; one server per
    --floor-variant LABEL=FLAGS (default: floor= , the plain floor).
    --no-floor: none."""
    if not a.unsigned:
        return []       # a forwarder validates nothing: unsigned only
    if a.no_floor or not os.path.exists(a.floor):
        if not a.no_floor:
            print("no %s: the miss floor is left out" % a.floor)
        return []
    out = []
    port = after_port
    for v in a.floor_variant or ["floor="]:
        label, _, flags = v.partition("=")
        port = free_port(port + 1)
        srv = Server(label, ["taskset", "-c", a.server_cpus, a.floor] +
                     flags.split() + ["127.0.0.1", str(port), "127.0.0.1",
                                      str(nsd_port)], port, work)
        out.append(srv)
    return out


def flood_queries(work, tag, n, zone_names, seed):
    """n unique nonexistent names under the signed bench zone, spread
    over the whole NSEC chain: h<k>-<i> sorts just after h<k> (k random
    in the zone's names), so every NSEC interval of the zone is hit, the
    worst case for an aggressive NSEC cache (a flood of random labels
    mostly falls into the few gaps between label ranges)."""
    import random
    rnd = random.Random(seed)
    path = os.path.join(work, "flood-%s.txt" % tag)
    with open(path, "w") as f:
        for i in range(n):
            f.write("h%d-%s%d.%s A\n" % (rnd.randrange(zone_names), tag, i,
                                         BENCH_ZONE))
    return path


def split_lines(path, k):
    """path cut into k files of consecutive lines (path itself when k is
    1): the flood's slices, each sent to both resolvers in turn, so a
    change in the shared machine's load falls on both alike."""
    if k <= 1:
        return [path]
    with open(path) as f:
        lines = f.readlines()
    n = (len(lines) + k - 1) // k
    parts = []
    for j in range(0, len(lines), n):
        part = "%s.%d" % (path, len(parts))
        with open(part, "w") as f:
            f.writelines(lines[j:j + n])
        parts.append(part)
    return parts


def merge_slices(rs):
    """One round's figures from its slices: q/s over the summed wall
    time, CPU per query and upstream queries per query over the summed
    counts; busy: the server's CPU time over the wall time (well under
    100%: it waited, for the client, upstream, or the CPU)."""
    done = sum(r["completed"] for r in rs)
    sent = sum(r["sent"] for r in rs)
    n = max(done, 1)
    wall = sum(r["completed"] / r["qps"] for r in rs if r["qps"])
    cpu = sum(r["cpu_us"] * r["completed"] for r in rs)
    return {"completed": done, "sent": sent,
            "qps": done / wall if wall else 0.0,
            "lost_pct": 100.0 * (sent - done) / max(sent, 1),
            "nxdomain_pct": sum(r["nxdomain_pct"] * r["completed"]
                                for r in rs) / n,
            "cpu_us": cpu / n,
            "busy_pct": 100.0 * cpu / 1e6 / wall if wall else 0.0,
            "up_per_q": sum(r["up"] for r in rs) / n,
            "aggr_pct": 100.0 * sum(r["aggr"] for r in rs) / n}


def upstream_and_aggr(conf):
    """(queries sent upstream, aggressive NXDOMAIN answers) so far, from
    unbound-control stats_noreset (both daemons print Unbound's names)."""
    up = sum(stat_counter(conf, k) or 0 for k in ("num.query.udpout",
                                                 "num.query.tcpout"))
    return up, stat_counter(conf, "num.query.aggressive.NXDOMAIN") or 0


def run_nxflood(a, work, nsd_port, hints):
    """Random-subdomain flood (RFC 8198's case): a unique nonexistent
    name under the signed zone in every query, both resolvers with
    aggressive-nsec: yes (their default), interleaved over rounds on
    the same name files, each file once through (--flood-queries
    names), so both see the same questions; per round q/s, upstream
    queries per client query and the share answered from the aggressive
    NSEC cache. The caches are kept from round to round (a flood goes
    on): round 1 learns the zone's NSECs, the later ones show the
    steady state."""
    servers = make_servers(a, work, nsd_port, hints, trivial=False)
    for s in servers:
        s.start()
        print("started %-8s pid %d port %d: %s" % (
            s.label, s.pid, s.port, " ".join(s.args)))
        check_secure(a, s, "h0." + BENCH_ZONE)
    res = {s.label: [] for s in servers}
    for rnd in range(a.rounds):
        qfile = flood_queries(work, "r%d" % rnd, a.flood_queries, a.names,
                              rnd)
        parts = split_lines(qfile, a.flood_slices)
        acc = {s.label: [] for s in servers}
        for j, part in enumerate(parts):
            order = servers if (rnd + j) % 2 == 0 else servers[::-1]
            for s in order:
                out = os.path.join(work, "flood-%s-%d-%d.txt" % (
                    s.label, rnd, j))
                up0, ag0 = upstream_and_aggr(s.conf)
                r = measure(a, s, part, out, once=True)
                up1, ag1 = upstream_and_aggr(s.conf)
                r["up"], r["aggr"] = up1 - up0, ag1 - ag0
                acc[s.label].append(r)
        for s in servers:
            r = merge_slices(acc[s.label])
            res[s.label].append(r)
            print("round %d %-8s %8.0f q/s lost %.2f%% NXDOMAIN %.2f%% "
                  "upstream/query %.4f aggressive %.1f%% cpu %.2f us/q "
                  "busy %.0f%%" % (
                      rnd + 1, s.label, r["qps"], r["lost_pct"],
                      r["nxdomain_pct"], r["up_per_q"], r["aggr_pct"],
                      r["cpu_us"], r["busy_pct"]))
            sys.stdout.flush()
        for part in set(parts + [qfile]):
            os.unlink(part)
    for s in servers:
        check_secure(a, s, "h1." + BENCH_ZONE)
    cols = [s.label for s in servers]
    rows = []
    for rnd in range(a.rounds):
        rows.append(("round %d q/s" % (rnd + 1),
                     [res[c][rnd]["qps"] for c in cols], 0))
        rows.append(("round %d upstream queries per query" % (rnd + 1),
                     [res[c][rnd]["up_per_q"] for c in cols], 4))
        rows.append(("round %d aggressive answers %%" % (rnd + 1),
                     [res[c][rnd]["aggr_pct"] for c in cols], 1))
    rows += [("q/s (median)", [med(res[c], "qps") for c in cols], 0),
             ("lost %", [med(res[c], "lost_pct") for c in cols], 2),
             ("NXDOMAIN %", [med(res[c], "nxdomain_pct") for c in cols], 2),
             ("server CPU us/query", [med(res[c], "cpu_us") for c in cols],
              2)]
    for rnd in range(a.rounds):
        rows.append(("round %d server busy %% of wall time" % (rnd + 1),
                     [res[c][rnd]["busy_pct"] for c in cols], 0))
    table("random-subdomain flood: a new nonexistent name in every query, "
          "spread over the %d NSECs of the signed zone (%s), "
          "aggressive-nsec: yes, neg-cache-size default, threads %d, "
          "%d rounds of %d names interleaved in %d slices, "
          "dnsperf -c %d -q %d%s%s" % (
              a.names, a.alg, a.threads, a.rounds, a.flood_queries,
              a.flood_slices, a.clients,
              a.outstanding, " -Q %d" % a.rate if a.rate else "",
              " -D" if a.do else ""),
          cols, rows, [(0, 1)])
    for s in servers:
        s.stop()


def callgrind_total(path):
    """Total Ir of a callgrind dump ('totals:' or 'summary:' line)."""
    tot = None
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith(("totals:", "summary:")):
                tot = int(line.split()[1])
    return tot


def run_callgrind(a, work, nsd_port, qfile, hints):
    def wrap(label):
        return ["valgrind", "--tool=callgrind", "--vgdb=yes",
                "--compress-strings=no", "--compress-pos=no",
                "--callgrind-out-file=%s/cg-%s.out" % (work, label)]
    servers = make_servers(a, work, nsd_port, hints, trivial=False,
                           wrap=wrap)
    servers = [s for s in servers if not a.only or s.label in a.only]
    rows = []
    wqfile = qfile
    if a.misses:
        # warm with other wildcard names (keys and the NS into the
        # caches), then a fixed number of new names, each a validated miss
        wqfile = miss_queries(work, "cgwarm", a.cg_warm, a)
        qfile = miss_queries(work, "cg", a.cg_misses, a)
        a.cg_runs = 1
    if a.nxflood:
        # warm with one name in every NSEC interval of the zone (each
        # NSEC into the caches), then new names: aggressive answers
        # (--cg-cold: one name only, the keys into the caches; the
        # measured names then mostly fall into gaps not seen yet, each
        # an upstream query and a validation, as in round 1)
        wqfile = os.path.join(work, "cgwarm.txt")
        with open(wqfile, "w") as f:
            for k in range(1 if a.cg_cold else a.names):
                f.write("h%d-warm.%s A\n" % (k, BENCH_ZONE))
        qfile = flood_queries(work, "cg", a.cg_misses, a.names, 99)
        a.cg_runs = 1
    for s in servers:
        s.start(timeout=120)
        warm(a, s, wqfile, work, rate=a.cg_rate)
        check_secure(a, s, "h0." + BENCH_ZONE)
        # zero the counters after start-up and warm-up: the dump then
        # holds only the measured queries (and the idle loop between)
        subprocess.run(["callgrind_control", "-z", str(s.pid)],
                       capture_output=True, check=False)
        up0 = upstream_and_aggr(s.conf)[0] if a.nxflood else 0
        r = dnsperf(a, s.tls_port if a.mode in ("dot", "doh") else s.port,
                    qfile, os.path.join(work, "cg-%s.txt" % s.label),
                    runs=a.cg_runs, rate=a.cg_rate, verbose=False)
        if a.nxflood:
            print("callgrind %-8s %d upstream queries for %d names, "
                  "%.2f%% NXDOMAIN" % (
                      s.label, upstream_and_aggr(s.conf)[0] - up0,
                      r["completed"], r["nxdomain_pct"]))
        for f in glob.glob("%s/cg-%s.out*" % (work, s.label)):
            os.unlink(f)
        subprocess.run(["callgrind_control", "-d", str(s.pid)],
                       capture_output=True, check=False)
        for _ in range(30):     # a loaded machine may take a while
            time.sleep(1)
            dumps = sorted(glob.glob("%s/cg-%s.out*" % (work, s.label)))
            if dumps:
                break
        tot = sum(callgrind_total(f) or 0 for f in dumps)
        n = r["completed"]
        if a.keep:
            subprocess.run(["cp", dumps[-1], os.path.join(
                work, "cg-%s.keep" % s.label)], check=False)
        print("callgrind %-8s %d queries answered (%d sent), %d Ir in "
              "the dump (%s): %.0f Ir/query" % (
                  s.label, n, r["sent"], tot, ", ".join(
                      os.path.basename(f) for f in dumps),
                  tot / max(n, 1)))
        rows.append(tot / max(n, 1))
        s.stop()
    table("callgrind: user-space instructions per %s "
          "(counters zeroed after warm-up; %d pass(es) of %d queries at "
          "-Q %d%s%s)" % (
              "validated miss" if a.misses else "cold flood query "
              "(a new nonexistent name, mostly in an unseen NSEC gap)"
              if a.nxflood and a.cg_cold else "aggressive NSEC answer "
              "(a new nonexistent name)" if a.nxflood else
              "cache-hit query",
              a.cg_runs, a.cg_misses if a.misses or a.nxflood else a.names,
              a.cg_rate,
              ", signed zone (%s)" % a.alg if a.dnssec else "",
              ", DO" if a.do else ""),
          [s.label for s in servers], [("Ir/query", rows, 0)],
          [(0, 1)] if len(servers) == 2 else [])


# -- memory ----------------------------------------------------------------
def vm_rss_kb(pid):
    """VmRSS of pid in KiB (0 if it is gone)."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def run_memory(a, work, nsd_port, hints):
    """N distinct names (the bench zone's wildcard) through each resolver
    with the configured cache sizes; VmRSS sampled over the run."""
    qfile = os.path.join(work, "memory-queries.txt")
    with open(qfile, "w") as f:
        for i in range(a.memory):
            f.write("m%d.w.%s A\n" % (i, BENCH_ZONE))
    servers = [s for s in make_servers(a, work, nsd_port, hints,
                                       trivial=False)
               if not a.only or s.label in a.only]
    rows = {}
    for s in servers:
        s.start()
        time.sleep(0.5)
        base = vm_rss_kb(s.pid)
        out = os.path.join(work, "memory-%s.txt" % s.label)
        cmd = ["taskset", "-c", a.client_cpus, "dnsperf", "-s", "127.0.0.1",
               "-p", str(s.port), "-d", qfile, "-n", "1", "-c", "8",
               "-q", str(a.outstanding), "-t", "5", "-Q", str(a.mem_rate)]
        p = subprocess.Popen(cmd, stdout=open(out, "w"),
                             stderr=subprocess.STDOUT)
        CLIENTS.append(p)
        peak, samples, t0 = base, [], time.time()
        try:
            while p.poll() is None:
                rss = vm_rss_kb(s.pid)
                peak = max(peak, rss)
                samples.append((time.time() - t0, rss))
                time.sleep(a.mem_interval)
        finally:
            CLIENTS.remove(p)
        p.wait()
        time.sleep(1)
        end = vm_rss_kb(s.pid)
        peak = max(peak, end)
        r = parse_dnsperf(out, False)
        rows[s.label] = (base, peak, end, r)
        print("memory %-8s %d names: %d answered (%.2f%% NOERROR, lost "
              "%.2f%%) in %.0f s; VmRSS start %d KiB, peak %d KiB, end %d "
              "KiB" % (s.label, a.memory, r["completed"], r["noerror_pct"],
                       r["lost_pct"], time.time() - t0, base, peak, end))
        for k in range(0, len(samples), max(1, len(samples) // 10)):
            print("   t=%5.1fs VmRSS %d KiB" % samples[k])
        sys.stdout.flush()
        s.stop()
    cols = [s.label for s in servers]
    mib = 1024.0
    table("memory: %d distinct names, msg-cache-size %s, rrset-cache-size "
          "%s, dnsperf -Q %d (VmRSS from /proc/PID/status every %.1f s)" % (
              a.memory, a.msg_cache, a.rrset_cache, a.mem_rate,
              a.mem_interval),
          cols, [
              ("queries answered", [rows[c][3]["completed"] for c in cols],
               0),
              ("VmRSS at start, MiB", [rows[c][0] / mib for c in cols], 1),
              ("VmRSS peak, MiB", [rows[c][1] / mib for c in cols], 1),
              ("VmRSS at end, MiB", [rows[c][2] / mib for c in cols], 1),
              ("peak - start, MiB", [(rows[c][1] - rows[c][0]) / mib
                                     for c in cols], 1),
              ("configured caches, MiB", [cache_mib(a) for c in cols], 1)],
          [(0, 1)] if len(cols) == 2 else [])


def size_bytes(v):
    """unbound.conf memory size: 4m, 512k, 1g or bytes."""
    v = v.strip().lower()
    mult = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}.get(v[-1:], 1)
    return int(v.rstrip("kmgb") or 0) * mult


def cache_mib(a):
    return (size_bytes(a.msg_cache) + size_bytes(a.rrset_cache)) / 1048576.0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reuseport", choices=["yes", "no"], default="no")
    ap.add_argument("--mode", choices=["udp", "tcp", "tcstorm", "dot", "doh"],
                    default="udp",
                    help="tcstorm: unique names against NSD with its "
                    "default response rate limiting (TC=1 replies), "
                    "dnsperf over UDP; doh: dnsperf -m doh (TLS, ALPN h2) "
                    "to an https-port of each resolver, cache hits")
    ap.add_argument("--doh-method", choices=["GET", "POST"], default="GET",
                    help="dnsperf -O doh-method= (--mode doh)")
    ap.add_argument("--doh-client", choices=["dnsperf", "dohload"],
                    default="dnsperf",
                    help="--mode doh: the timed rounds' client; dohload "
                    "(contrib/bench/dohload.c) writes the requests of a "
                    "loop turn in one TLS record, light enough to load "
                    "the server's core where dnsperf is the limit")
    ap.add_argument("--storm-names", type=int, default=200000,
                    help="tcstorm: distinct names per run")
    ap.add_argument("--rate", type=int, default=0, help="dnsperf -Q")
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--names", type=int, default=None,
                    help="names in the bench zone (default 10000; "
                    "--nxflood 2000)")
    ap.add_argument("--clients", type=int, default=None,
                    help="dnsperf -c (default: 32 for UDP, 16 for TCP)")
    ap.add_argument("--outstanding", type=int, default=200,
                    help="dnsperf -q")
    ap.add_argument("--conn-rate", action="store_true")
    ap.add_argument("--dnssec", action="store_true",
                    help="sign the bench zone; its DS is both resolvers' "
                    "trust anchor; module-config validator iterator")
    ap.add_argument("--validator", action="store_true",
                    help="module-config validator iterator (implied by "
                    "--dnssec; without it, the zone is unsigned: no anchor)")
    ap.add_argument("--alg", default="ECDSAP256SHA256",
                    help="--dnssec: ldns-keygen algorithm")
    ap.add_argument("--do", action="store_true",
                    help="clients set the DO bit (dnsperf -D)")
    ap.add_argument("--misses", action="store_true",
                    help="validated misses (implies --dnssec): a new name "
                    "under the signed wildcard in every query")
    ap.add_argument("--unsigned", action="store_true",
                    help="--misses without DNSSEC: the zone unsigned, "
                    "module-config iterator (the iterator's miss path)")
    ap.add_argument("--nxflood", action="store_true",
                    help="random-subdomain flood (implies --dnssec): a new "
                    "nonexistent name under the signed zone in every "
                    "query, aggressive-nsec: yes for both; the zone has "
                    "--names names (default 2000 in this mode)")
    ap.add_argument("--flood-queries", type=int, default=100000,
                    help="--nxflood: names per round")
    ap.add_argument("--flood-slices", type=int, default=10,
                    help="--nxflood: each round cut into this many "
                    "slices, sent to the two resolvers in turn")
    ap.add_argument("--miss-names", type=int, default=None,
                    help="--misses: names per round (more than a round "
                    "answers; default 80,000 a second of --seconds, at "
                    "least 400,000)")
    ap.add_argument("--timeout", type=int, default=2,
                    help="dnsperf -t (seconds before a query counts as "
                    "lost)")
    ap.add_argument("--miss-zone", choices=["wildcard", "names"],
                    default="wildcard",
                    help="--misses: new names under a signed wildcard "
                    "(the same RRSIG and NSEC for every name) or names "
                    "of the zone each with its own RRSIG")
    ap.add_argument("--miss-lat-rate", type=int, default=2000,
                    help="--misses: dnsperf -Q of the miss latency runs "
                    "(p50/p99 of new names, --lat-seconds, --lat-rounds)")
    ap.add_argument("--miss-pool", type=int, default=150000,
                    help="--miss-zone names: names in the zone (each "
                    "round, the warm-up and --callgrind take new ones)")
    ap.add_argument("--cg-misses", type=int, default=2000,
                    help="--callgrind --misses: validated misses measured")
    ap.add_argument("--cg-cold", action="store_true",
                    help="--nxflood --callgrind: warm with one name only, "
                    "so the measured names are cold misses (round 1)")
    ap.add_argument("--cg-warm", type=int, default=200,
                    help="--callgrind --misses: warm-up misses")
    ap.add_argument("--conn-clients", type=int, default=8)
    ap.add_argument("--tls-cert", choices=("p256", "rsa2048"),
                    default="p256", help="the DoT/DoH servers' key type")
    bench_dot.add_args(ap)
    ap.add_argument("--callgrind", action="store_true")
    ap.add_argument("--cg-runs", type=int, default=2)
    ap.add_argument("--cg-rate", type=int, default=2000)
    ap.add_argument("--only", action="append", default=[],
                    choices=["ours", "unbound"],
                    help="--callgrind, --memory: only this server "
                    "(repeatable)")
    ap.add_argument("--memory", type=int, nargs="?", const=1000000,
                    default=0, metavar="N",
                    help="query N distinct names (default 1000000) and "
                    "report VmRSS against the cache sizes")
    ap.add_argument("--msg-cache", default=None,
                    help="msg-cache-size (default 256m; 4m with --memory)")
    ap.add_argument("--rrset-cache", default=None,
                    help="rrset-cache-size (default 256m; 8m with "
                    "--memory)")
    ap.add_argument("--mem-rate", type=int, default=5000,
                    help="--memory: dnsperf -Q")
    ap.add_argument("--mem-interval", type=float, default=0.2,
                    help="--memory: seconds between VmRSS samples")
    ap.add_argument("--warm-rate", type=int, default=20000)
    ap.add_argument("--no-p99", action="store_true",
                    help="skip the latency run (p99 then n/a)")
    ap.add_argument("--lat-rate", type=int, default=20000,
                    help="dnsperf -Q of the latency run (with -v)")
    ap.add_argument("--lat-seconds", type=int, default=5)
    ap.add_argument("--lat-rounds", type=int, default=3,
                    help="latency runs per server (median reported)")
    ap.add_argument("--conf-line", action="append", default=[],
                    metavar="'OPTION: VALUE'",
                    help="add to server: of both resolvers (repeatable)")
    ap.add_argument("--ours-variant", action="append", default=[],
                    metavar="LABEL='OPTION: VALUE; ...'",
                    help="one more column: this resolver's binary again "
                    "with these server: lines (each replaces the line "
                    "that sets the same option, e.g. module-config, or is "
                    "added); measured in the same rounds as the others, "
                    "each round starting one column further along; "
                    "per-round LABEL/ours ratios printed (repeatable; "
                    "LABEL= alone: the same config, the ratios' noise)")
    ap.add_argument("--dnsperf-arg", action="append", default=[],
                    metavar="ARG",
                    help="one more argument to every dnsperf run "
                    "(repeatable), e.g. --dnsperf-arg=-E "
                    "--dnsperf-arg=10:0102030405060708: a client cookie "
                    "in every query")
    ap.add_argument("--no-ref", action="store_true",
                    help="leave Debian's Unbound out (unbound column)")
    ap.add_argument("--no-trivial", action="store_true",
                    help="leave the trivial responder out")
    ap.add_argument("--server-cpus", default="0")
    ap.add_argument("--client-cpus", default="1")
    ap.add_argument("--port-base", type=int, default=25353)
    ap.add_argument("--ours", default=os.path.join(SRC, "build", "unbound"))
    ap.add_argument("--ref", default="/usr/sbin/unbound")
    ap.add_argument("--trivial", default=os.path.join(SRC, "build", "bench",
                                                      "trivial_responder"))
    ap.add_argument("--floor", default=os.path.join(SRC, "build", "bench",
                                                    "missfloor"),
                    help="--misses: contrib/bench/missfloor.c's binary")
    ap.add_argument("--floor-variant", action="append", default=[],
                    metavar="LABEL=FLAGS",
                    help="--misses: a missfloor server with these flags "
                    "(repeatable; default one, floor=, no flags)")
    ap.add_argument("--no-floor", action="store_true",
                    help="--misses: leave the floor out")
    ap.add_argument("--connrate", default=os.path.join(SRC, "build", "bench",
                                                       "connrate"))
    ap.add_argument("--dohload", default=os.path.join(SRC, "build", "bench",
                                                      "dohload"))
    ap.add_argument("--keep", action="store_true",
                    help="keep the work directory")
    ap.add_argument("--port-range", metavar="LO-HI",
                    help="set net.ipv4.ip_local_port_range to LO-HI for "
                    "the run and put the old value back at the end (root "
                    "only; it is the whole machine's): 1024-65535 puts "
                    "every port of the default outgoing-port-permit in "
                    "the kernel's range, so that every upstream UDP query "
                    "of ours takes the kernel's draw at connect")
    a = ap.parse_args(argv)
    a.variants = parse_variants(a.ours_variant)
    ctl = os.path.join(os.path.dirname(os.path.abspath(a.ours)),
                       "unbound-control")
    OURS_CONTROL[0] = ctl if os.access(ctl, os.X_OK) else None
    if a.clients is None:
        # UDP: many client sockets, so SO_REUSEPORT's hash spreads them.
        # TCP: each connection carries -q/-c queries in flight (12 with
        # 16): several queries per connection, as a pipelining client
        # sends them; at -c 32 (6 each) the server reads 1.7 queries per
        # wake-up and the kernel's per-segment work dominates (doc/performance.md).
        # tcstorm: -c 16 as the measurement in issue 13
        a.clients = 16 if a.mode in ("tcp", "tcstorm", "dot", "doh") else 32
    if a.msg_cache is None:
        a.msg_cache = "4m" if a.memory else "256m"
    if a.rrset_cache is None:
        a.rrset_cache = "8m" if a.memory else "256m"
    if a.names is None:
        a.names = 2000 if a.nxflood else 10000
    if a.miss_names is None:
        a.miss_names = int(max(400000, 80000 * a.seconds))
    if (a.misses and not a.unsigned) or a.nxflood:
        a.dnssec = True
    if a.dnssec:
        a.validator = True
    a.tls = a.mode in ("dot", "doh") or a.dot_conn or bool(a.dot_idle)
    a.num_tcp = max(256, a.dot_idle + 100)
    for k in ("ours", "ref", "trivial", "connrate", "dohload", "floor"):
        setattr(a, k, os.path.abspath(getattr(a, k)))
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    old_range = set_port_range(a.port_range) if a.port_range else None
    work = tempfile.mkdtemp(prefix="unbound-bench.")
    print("%s; %d CPUs (%s); server on CPU %s, client on CPU %s; work %s" % (
        time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        os.cpu_count(), cpu_model(), a.server_cpus, a.client_cpus, work))
    print("net.ipv4.ip_local_port_range: %s%s" % (
        read_port_range(), " (set for this run; was %s)" % old_range
        if old_range else ""))
    try:
        nsd_port, qfile, hints = setup(a, work)
        if a.tls:
            bench_dot.make_cert(a, work)
        if a.dot_conn:
            bench_dot.run_dot_conn(sys.modules[__name__], a, work, nsd_port,
                                   hints)
        elif a.dot_idle:
            bench_dot.run_dot_idle(sys.modules[__name__], a, work, nsd_port,
                                   hints)
        elif a.memory:
            run_memory(a, work, nsd_port, hints)
        elif a.mode == "tcstorm":
            run_tcstorm(a, work, nsd_port, hints, a.nsd_conf)
        elif a.callgrind:
            run_callgrind(a, work, nsd_port, qfile, hints)
        elif a.misses:
            run_misses(a, work, nsd_port, hints)
        elif a.nxflood:
            run_nxflood(a, work, nsd_port, hints)
        elif a.conn_rate:
            run_connrate(a, work, nsd_port, qfile, hints)
        else:
            run_qps(a, work, nsd_port, qfile, hints)
    finally:
        stop_all()
        if old_range:
            set_port_range(old_range)
        if not a.keep:
            subprocess.run(["rm", "-rf", work], check=False)
    return 0


PORT_RANGE = "/proc/sys/net/ipv4/ip_local_port_range"


def read_port_range():
    with open(PORT_RANGE) as f:
        return "-".join(f.read().split())


def set_port_range(lo_hi):
    """Write LO-HI to the kernel's ephemeral port range; returns the
    value it had."""
    lo, hi = (int(x) for x in lo_hi.split("-"))
    if not 1024 <= lo <= hi <= 65535:
        sys.exit("--port-range: LO-HI within 1024-65535")
    old = read_port_range()
    with open(PORT_RANGE, "w") as f:
        f.write("%d %d\n" % (lo, hi))
    return old


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"


if __name__ == "__main__":
    sys.exit(main())
