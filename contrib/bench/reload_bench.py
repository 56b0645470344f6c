#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""contrib/bench/reload_bench.py - cache-hit latency and lost queries
while the daemon reloads a config with a big local zone (1,000,000
local-data names by default): this resolver (build/unbound: SIGHUP,
unbound-control reload and fast_reload) beside Debian's Unbound 1.17
(/usr/sbin/unbound: SIGHUP), on loopback.

    contrib/bench/reload_bench.py                  # 1M names, 1000 q/s
    contrib/bench/reload_bench.py --names 200000 --rate 2000
    contrib/bench/reload_bench.py --runs ours:fast_reload,unbound:sighup
    contrib/bench/reload_bench.py --rpz            # a 1M-trigger rpz: zone

--rpz: the big zone is an rpz: zone file of QNAME triggers (module-config
"respip iterator") instead of local-data; one trigger is added to it
before the reload, so the reload reads it again (--rpz-same: it is left
as it is). Each run also asks the control channel for `status` every
0.2 s (a thread, unbound-control) and reports its latency by phase.

Each run: start the server on the big config (a forward zone for the
cached name, to a responder in this script), ask the cached name once,
then send it at a fixed rate (open loop, one UDP socket, one thread that
sends and reads, so its own jitter is small) and, every 20 ms, a marker
name whose address the new config changes. After --before seconds the
new config is written and the reload started; the run goes on until the
marker's new address is seen and --after seconds more, then waits 3 s
for late answers. A query is lost when no answer came by then. The
latency figures are over all the cached-name queries of the run (before,
during and after the reload); "reload s" is from the trigger to the
first answer with the new marker. "worker's wait for a CPU per wake-up"
(Linux: /proc/PID/task/TID/schedstat of the busiest thread but the main
one, the worker with --threads 1): the mean time it waited on the run
queue each time it ran, by phase; it rises during the reload when the
reload thread takes the worker's CPU. Everything started is stopped by
PID.
"""
import argparse
import os
import selectors
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))

HIT = "hit.bench."
MARKER = "marker.bench."


def qname_wire(name):
    out = b""
    for label in name.rstrip(".").split("."):
        out += bytes([len(label)]) + label.encode()
    return out + b"\0"


def query_wire(qid, name, qtype=1):
    return struct.pack("!HHHHHH", qid, 0x0100, 1, 0, 0, 0) + \
        qname_wire(name) + struct.pack("!HH", qtype, 1)


def answer_addr(wire):
    """The first A record's address of a reply, or None."""
    try:
        qd, an = struct.unpack("!HH", wire[4:8])
        p = 12
        for _ in range(qd):
            while wire[p]:
                p += wire[p] + 1
            p += 5
        for _ in range(an):
            if wire[p] & 0xc0 == 0xc0:
                p += 2
            else:
                while wire[p]:
                    p += wire[p] + 1
                p += 1
            rtype, _, _, rdlen = struct.unpack("!HHIH", wire[p:p + 10])
            p += 10
            if rtype == 1 and rdlen == 4:
                return socket.inet_ntoa(wire[p:p + 4])
            p += rdlen
    except (IndexError, struct.error):
        pass
    return None


class Responder(threading.Thread):
    """The forward zone's server: any question gets A 192.0.2.53, TTL one
    day (so the resolver answers the cached name from its cache)."""

    def __init__(self):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.sock.settimeout(0.5)
        self.stopping = False

    def run(self):
        while not self.stopping:
            try:
                q, addr = self.sock.recvfrom(4096)
            except socket.timeout:
                continue
            except OSError:
                return
            if len(q) < 12:
                continue
            p = 12
            while p < len(q) and q[p]:
                p += q[p] + 1
            question = q[12:p + 5]
            r = q[:2] + struct.pack("!HHHHH", 0x8580, 1, 1, 0, 0) + \
                question + struct.pack("!HHHIH", 0xc00c, 1, 1, 86400, 4) + \
                socket.inet_aton("192.0.2.53")
            self.sock.sendto(r, addr)

    def stop(self):
        self.stopping = True
        self.sock.close()


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_rpz(path, names):
    with open(path, "w") as f:
        f.write("$ORIGIN rpz.bench.\n$TTL 3600\n"
                "@ IN SOA ns.rpz.bench. host.rpz.bench. 1 3600 600 "
                "86400 300\n@ IN NS ns.rpz.bench.\n")
        for i in range(names):
            f.write("b%d.blocked CNAME .\n" % i)


def write_zone(path, names):
    with open(path, "w") as f:
        f.write("server:\n\tlocal-zone: \"big.bench.\" static\n")
        for i in range(names):
            f.write('\tlocal-data: "n%d.big.bench. A 10.%d.%d.%d"\n' %
                    (i, (i >> 16) & 255, (i >> 8) & 255, i & 255))


class Target:
    def __init__(self, kind, binary, control, tmp, zone, upstream, threads,
                 rpz=False):
        self.rpz = rpz
        self.kind = kind
        self.binary = binary
        self.control = control
        self.dir = os.path.join(tmp, kind)
        os.makedirs(self.dir, exist_ok=True)
        self.port = free_port()
        self.conf = os.path.join(self.dir, "unbound.conf")
        self.zone = zone
        self.upstream = upstream
        self.threads = threads
        self.proc = None

    def write(self, marker):
        d = self.dir
        with open(self.conf, "w") as f:
            f.write("server:\n"
                    "\tverbosity: 1\n\tnum-threads: %d\n"
                    "\tinterface: 127.0.0.1\n\tport: %d\n"
                    "\tdo-daemonize: no\n\tuse-syslog: no\n"
                    '\tchroot: ""\n\tusername: ""\n\tdirectory: "%s"\n'
                    '\tpidfile: "%s/unbound.pid"\n'
                    '\tlogfile: "%s/unbound.log"\n'
                    "\tdo-not-query-localhost: no\n"
                    '\troot-hints: "%s/root.hints"\n'
                    '\tmodule-config: "%s"\n'
                    '\tlocal-data: "%s A %s"\n'
                    '%s'
                    "forward-zone:\n\tname: \"bench.\"\n"
                    "\tforward-addr: 127.0.0.1@%d\n"
                    "remote-control:\n\tcontrol-enable: yes\n"
                    '\tcontrol-interface: "%s/ctl.sock"\n'
                    "\tcontrol-use-cert: no\n" %
                    (self.threads, self.port, d, d, d, d,
                     "respip iterator" if self.rpz else "iterator",
                     MARKER, marker,
                     ('rpz:\n\tname: "rpz.bench."\n\tzonefile: "%s"\n'
                      if self.rpz else 'include: "%s"\n') % self.zone,
                     self.upstream, d))
        with open(os.path.join(d, "root.hints"), "w") as f:
            f.write(". 3600000 NS a.root.bench.\n"
                    "a.root.bench. 3600000 A 127.0.0.1\n")

    def start(self, timeout):
        self.write("10.255.0.1")
        self.proc = subprocess.Popen([self.binary, "-d", "-c", self.conf],
                                     stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL,
                                     cwd=self.dir)
        deadline = time.time() + timeout
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.settimeout(0.5)
            while time.time() < deadline:
                if self.proc.poll() is not None:
                    sys.exit("%s exited at start, see %s/unbound.log" %
                             (self.kind, self.dir))
                s.sendto(query_wire(7, MARKER), ("127.0.0.1", self.port))
                try:
                    if answer_addr(s.recv(4096)) == "10.255.0.1":
                        return
                except socket.timeout:
                    pass
        sys.exit("%s did not start in %d s" % (self.kind, timeout))

    def trigger(self, how):
        if how == "none":   # the baseline: the same load, no reload
            return None
        if how == "sighup":
            self.proc.send_signal(signal.SIGHUP)
            return None
        # the control command returns when the reload is done; it runs
        # beside the load
        return subprocess.Popen([self.control, "-c", self.conf] +
                                how.split(), stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class StatusProbe(threading.Thread):
    """unbound-control status every 0.2 s: (sent, latency) pairs."""

    def __init__(self, t):
        super().__init__(daemon=True)
        self.t = t
        self.stopping = False
        self.got = []

    def run(self):
        while not self.stopping:
            at = time.perf_counter()
            try:
                subprocess.run([self.t.control, "-c", self.t.conf, "status"],
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, timeout=120)
            except subprocess.TimeoutExpired:
                pass
            self.got.append((at, time.perf_counter() - at))
            time.sleep(max(0.0, 0.2 - (time.perf_counter() - at)))


def sched_stats(pid):
    """{tid: (run ns, run-queue wait ns, times run)} of the server's
    threads, from /proc/PID/task/TID/schedstat (Linux); {} elsewhere."""
    out = {}
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return out
    for tid in tids:
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                out[int(tid)] = tuple(int(x) for x in f.read().split()[:3])
        except (OSError, ValueError):
            pass
    return out


def worker_waits(marks, pid):
    """The busiest thread other than the main one (the worker, with one
    thread): its mean wait for a CPU per time it ran, in us, between
    the marks (before, during, after the reload): how long a query that
    woke it waited for a core."""
    last = marks[-1][1]   # the reload thread has ended by then
    tids = [tid for tid in last if tid != pid]
    if not tids:
        return {}
    w = max(tids, key=lambda tid: last[tid][2])
    out = {}
    for (name, a), (_, b) in zip(marks, marks[1:]):
        if w in a and w in b and b[w][2] > a[w][2]:
            out[name] = (b[w][1] - a[w][1]) / (b[w][2] - a[w][2]) / 1000
    return out


def run_load(t, how, rate, before, after, max_wait, touch=None):
    """The open-loop load, the marker probe and the status probe;
    returns the figures. touch: called just before the reload."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    sock.connect(("127.0.0.1", t.port))
    sock.setblocking(False)
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    probe.connect(("127.0.0.1", t.port))
    probe.setblocking(False)
    sel = selectors.DefaultSelector()
    sel.register(sock, selectors.EVENT_READ, "load")
    sel.register(probe, selectors.EVENT_READ, "probe")
    # prime the cache
    sock.send(query_wire(0, HIT))
    time.sleep(0.3)
    try:
        while True:
            sock.recv(4096)
    except BlockingIOError:
        pass
    queries = [query_wire(i, HIT) for i in range(65536)]
    status = StatusProbe(t)
    status.start()
    pid = t.proc.pid
    marks = [("before", sched_stats(pid))]
    sent_at = {}
    lat = []
    phased = []   # (sent, latency): the figures per phase
    interval = 1.0 / rate
    start = time.perf_counter()
    next_send = start
    next_probe = start
    trigger_at = start + before
    triggered = None
    switched = None
    ctl = None
    seq = 0
    stop_sending = None
    end = None
    while True:
        now = time.perf_counter()
        if triggered is None and now >= trigger_at:
            marks.append(("during", sched_stats(pid)))
            if how != "none":
                t.write("10.255.0.2")
                if touch:
                    touch()
            triggered = time.perf_counter()
            ctl = t.trigger(how)
            if how == "none":
                switched = triggered
        if stop_sending is None and (
                (switched is not None and now >= switched + after) or
                (triggered is not None and now >= triggered + max_wait)):
            stop_sending = now
            end = now + 3.0
            marks.append(("end", sched_stats(pid)))
        if end is not None and now >= end:
            break
        if stop_sending is None and now >= next_send:
            qid = seq & 0xffff
            sent_at[qid] = (seq, now)
            try:
                sock.send(queries[qid])
            except BlockingIOError:
                pass
            seq += 1
            next_send += interval
            continue
        if switched is None and now >= next_probe:
            try:
                probe.send(query_wire(1, MARKER))
            except BlockingIOError:
                pass
            next_probe = now + 0.02
        due = [next_send if stop_sending is None else end]
        if switched is None:
            due.append(next_probe)
        if triggered is None:
            due.append(trigger_at)
        wait = min(due) - now
        for key, _ in sel.select(max(wait, 0)):
            while True:
                try:
                    wire = key.fileobj.recv(4096)
                except BlockingIOError:
                    break
                got = time.perf_counter()
                if key.data == "probe":
                    if switched is None and triggered is not None and \
                            answer_addr(wire) == "10.255.0.2":
                        switched = got
                        marks.append(("after", sched_stats(pid)))
                    continue
                qid = struct.unpack("!H", wire[:2])[0]
                s = sent_at.pop(qid, None)
                if s is not None and answer_addr(wire) == "192.0.2.53":
                    lat.append(got - s[1])
                    phased.append((s[1], got - s[1]))
    out = ctl.communicate(timeout=600)[0] if ctl else ""
    status.stopping = True
    status.join()
    sock.close()
    probe.close()
    lat.sort()

    def pct(p):
        return lat[min(len(lat) - 1, int(len(lat) * p))] * 1000 \
            if lat else float("nan")
    def phase_p99(lo, hi):
        v = sorted(x for at, x in phased if lo <= at < hi)
        return (v[min(len(v) - 1, int(len(v) * 0.99))] * 1000, len(v)) \
            if v else (float("nan"), 0)
    # before the trigger, while the new config is built (until its
    # answer is seen), and after: tells a stall of the reload from the
    # machine's noise
    inf = float("inf")
    phases = {"before": phase_p99(0, triggered or inf),
              "during": phase_p99(triggered or inf, switched or inf),
              "after": phase_p99(switched or inf, inf)}
    def status_phase(lo, hi):
        v = sorted(x for at, x in status.got if lo <= at < hi)
        return (v[len(v) // 2] * 1000, v[-1] * 1000, len(v)) if v else \
            (float("nan"), float("nan"), 0)
    status_phases = {
        "before": status_phase(0, triggered or inf),
        "during": status_phase(triggered or inf, switched or inf),
        "after": status_phase(switched or inf, inf)}
    if how == "none":   # no during phase: before, then after
        marks = [("after" if n == "during" else n, m) for n, m in marks]
    return {
        "phases": phases, "status": status_phases,
        "waits": worker_waits(marks, pid),
        "sent": seq, "answered": len(lat), "lost": seq - len(lat),
        "reload_s": (switched - triggered) if switched else float("nan"),
        "p50": pct(0.50), "p99": pct(0.99), "p999": pct(0.999),
        "max": lat[-1] * 1000 if lat else float("nan"),
        "control": out.strip().replace("\n", " | "),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--names", type=int, default=1000000)
    ap.add_argument("--rate", type=int, default=1000,
                    help="cached-name queries per second")
    ap.add_argument("--before", type=float, default=2.0)
    ap.add_argument("--after", type=float, default=3.0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--max-wait", type=float, default=300.0,
                    help="give up on a reload after this many seconds")
    ap.add_argument("--runs", default="ours:fast_reload,ours:sighup,"
                    "unbound:sighup",
                    help="comma separated SERVER:HOW, SERVER ours or "
                    "unbound, HOW sighup, reload, fast_reload, "
                    "'fast_reload +p' ..., or none (no reload: the "
                    "baseline)")
    ap.add_argument("--build", default=os.path.join(SRC, "build"))
    ap.add_argument("--unbound", default="/usr/sbin/unbound")
    ap.add_argument("--rpz", action="store_true",
                    help="the big zone is an rpz: zone of QNAME triggers")
    ap.add_argument("--rpz-same", action="store_true",
                    help="with --rpz: leave the zone file unchanged at "
                    "the reload")
    ap.add_argument("--keep", action="store_true",
                    help="keep the temporary directory")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="reload_bench.")
    zone = os.path.join(tmp, "rpz.zone" if a.rpz else "zone.conf")
    t0 = time.time()
    (write_rpz if a.rpz else write_zone)(zone, a.names)
    print("# %d %s, %.0f MB, written in %.1f s" %
          (a.names, "rpz: QNAME triggers" if a.rpz else "local-data names",
           os.path.getsize(zone) / 1e6, time.time() - t0))

    def touch():
        if a.rpz and not a.rpz_same:
            with open(zone, "a") as f:
                f.write("added%d.blocked CNAME .\n" % time.time_ns())
    up = Responder()
    up.start()
    binaries = {"ours": (os.path.join(a.build, "unbound"),
                         os.path.join(a.build, "unbound-control")),
                "unbound": (a.unbound, "/usr/sbin/unbound-control")}
    rows = []
    try:
        for i, run in enumerate(a.runs.split(",")):
            kind, how = run.split(":", 1)
            binary, control = binaries[kind]
            t = Target("%s%d" % (kind, i), binary, control, tmp, zone,
                       up.port, a.threads, a.rpz)
            try:
                t0 = time.time()
                t.start(a.max_wait)
                started = time.time() - t0
                r = run_load(t, how, a.rate, a.before, a.after, a.max_wait,
                             touch)
            finally:
                t.stop()
            r.update(server=kind, how=how, start_s=started)
            rows.append(r)
            print("%-8s %-18s start %5.1f s  reload %6.2f s  sent %6d  "
                  "lost %6d  p50 %6.2f ms  p99 %8.2f ms  p99.9 %8.2f ms  "
                  "max %8.2f ms%s" %
                  (kind, how, started, r["reload_s"], r["sent"], r["lost"],
                   r["p50"], r["p99"], r["p999"], r["max"],
                   ("  [" + r["control"][:120] + "]") if r["control"]
                   else ""), flush=True)
            print("         p99 by phase: " + ", ".join(
                "%s %.2f ms (%d)" % (k, v[0], v[1])
                for k, v in r["phases"].items()), flush=True)
            if r["waits"]:
                print("         worker's wait for a CPU per wake-up by "
                      "phase: " + ", ".join("%s %.1f us" % (k, v) for k, v
                                            in r["waits"].items()),
                      flush=True)
            print("         status p50/max by phase: " + ", ".join(
                "%s %.1f/%.1f ms (%d)" % (k, v[0], v[1], v[2])
                for k, v in r["status"].items()), flush=True)
    finally:
        up.stop()
        if a.keep:
            print("# kept", tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
