# SPDX-License-Identifier: BSD-3-Clause
"""Operations and faults on a timetable over the main run, the RSS/fd
samples, and the hostile flood after it."""
import os
import signal
import subprocess
import threading
import time

import load
from testnet import procs


class Schedule:
    """run() ticks once a second until stop is set. Operations repeat:
    stats + Prometheus every 5 s, samples every 10 s, SIGHUP every 30 s,
    reload_keep_cache, flush_zone and dump/load_cache between them.
    Faults once, at a fraction of the run."""

    def __init__(self, d, net, work, secs, log, stop):
        self.d, self.net, self.work, self.secs = d, net, work, secs
        self.log, self.stop = log, stop
        self.counts = {}
        self.samples = []
        self.burst_result = None
        self.undo = {}              # name: (threading.Timer, fn)
        self.undo_lock = threading.Lock()
        self.no_control = False     # accept() fails: no control calls
        self.accept_faults = []     # [start, end] of each accept() fault
        self.alloc_fault = False    # failures then are allowed
        self.heap = True            # until gdb cannot read it
        self.faults = [(0.15, self.kill_auth), (0.30, self.port_range),
                       (0.45, self.burst), (0.60, self.accept_emfile),
                       (0.75, self.alloc_failures)]

    def count(self, what, ok):
        k = "%s %s" % (what, "ok" if ok else "FAILED")
        self.counts[k] = self.counts.get(k, 0) + 1

    def later(self, secs, name, fn):
        """Undo a fault after secs, in a timer thread: never held up by
        an operation, and run at once when the run stops."""
        def go():
            with self.undo_lock:
                if self.undo.pop(name, None) is None:
                    return
            fn()
        t = threading.Timer(secs, go)
        t.daemon = True
        with self.undo_lock:
            self.undo[name] = (t, fn)
        t.start()

    def undo_all(self):
        with self.undo_lock:
            items = list(self.undo.values())
            self.undo.clear()
        for t, fn in items:
            t.cancel()
            fn()

    def control(self, what, *args, stdin=None):
        if self.no_control:
            self.count(what + " (skipped: accept fault)", True)
            return ""
        if self.alloc_fault:
            what += " (during allocation failures)"
        try:
            rc, out = self.d.control(*args, stdin=stdin)
        except subprocess.TimeoutExpired:
            rc, out = -1, "timed out"
        self.count(what, rc == 0)
        if rc != 0:
            self.log("%s: rc %d: %s" % (what, rc, out.strip()[:200]))
        return out

    def run(self):
        """Tick at every whole second of the run (one that came late
        ticks once, for the second it is in); faults are never
        skipped."""
        start = time.time()
        last = -1
        try:
            while not self.stop.is_set():
                t = int(time.time() - start)
                if t != last:
                    last = t
                    try:
                        self.tick(t)
                    except Exception as e:  # reported, the run goes on
                        self.count("tick %s" % type(e).__name__, False)
                        self.log("tick %d: %s: %s" % (
                            t, type(e).__name__, e))
                self.stop.wait(max(0, start + t + 1 - time.time()))
        finally:
            self.undo_all()

    def tick(self, t):
        for frac, fn in list(self.faults):
            if t >= frac * self.secs:
                self.faults.remove((frac, fn))
                fn(t)
        if t % 10 == 0:
            self.samples.append({"t": t, "rss_kib": self.d.rss_kib(),
                                 "fds": self.d.fds(),
                                 "cpu_s": self.d.cpu_seconds()})
        if t % 60 == 0 and self.heap:
            # the allocator's own count of live heap bytes: RSS also
            # holds what the allocator keeps after a peak (ASan's free
            # lists and quarantine, glibc's arenas after a cache flush)
            h = self.d.heap_kib()
            if h is None:
                self.heap = False
            elif self.samples and self.samples[-1]["t"] == t:
                self.samples[-1]["heap"] = h[0]
                self.samples[-1]["live_kib"] = h[1]
                self.samples[-1]["mapped_kib"] = h[2]
        if t % 5 == 0:
            out = self.control("stats_noreset", "stats_noreset")
            if t % 10 == 0 and self.samples and self.samples[-1]["t"] == t:
                # what the caches and modules say they hold, beside RSS
                self.samples[-1]["mem"] = {
                    k[4:]: int(v) for k, v in (
                        l.split("=", 1) for l in out.splitlines()
                        if l.startswith("mem.") and "=" in l)
                    if v.strip().isdigit()}
            if self.no_control:
                self.count("prometheus (skipped: accept fault)", True)
            else:
                what = "prometheus" + (" (during allocation failures)"
                                       if self.alloc_fault else "")
                try:
                    self.d.prometheus()
                    self.count(what, True)
                except OSError as e:
                    self.count(what, False)
                    self.log("prometheus: %s" % e)
        if t % 30 == 29:
            self.d.sighup()
            self.count("SIGHUP", True)
        if t % 30 == 14:
            self.control("reload_keep_cache", "reload_keep_cache")
        if t % 20 == 7:
            self.control("flush_zone", "flush_zone", "example.tld1.")
        if t % 60 == 40:
            out = self.control("dump_cache", "dump_cache")
            self.control("load_cache", "load_cache", stdin=out)

    # -- faults -----------------------------------------------------------
    def kill_auth(self, t):
        inst = self.net.nsd["example1"]
        pid = procs.read_pid(inst.pidfile)
        self.log("fault: SIGKILL to NSD example1 (PID %s), back in 20 s"
                 % pid)
        os.killpg(pid, signal.SIGKILL)
        inst.stop()
        self.later(20, "auth", self.restart_auth)

    def restart_auth(self):
        inst = self.net.nsd["example1"]
        # detach: not tied to this timer thread's life (the parent-death
        # signal is per thread); net.stop() stops it by its PID file
        inst.start(detach=True)
        inst.wait_ready()
        self.log("fault over: NSD example1 restarted")
        self.count("auth restarted", True)

    def port_range(self, t):
        # reload applies the port set and outgoing-range (as Unbound):
        # 8 ports for 15 s, the first 5 s of them full (the shim fails
        # every outgoing bind, as when other programs hold the ports)
        base = 40000 + (t % 20) * 100
        self.log("fault: outgoing ports %d-%d, outgoing-range 8, SIGHUP; "
                 "outgoing bind() EADDRINUSE for 5 s" % (base, base + 7))
        self.d.write_config(outgoing_range=8,
                            port_permit="%d-%d" % (base, base + 7))
        self.d.sighup()
        self.d.inject("bind=1")
        self.later(5, "ports-free", self.port_range_free)
        self.later(15, "ports", self.port_range_end)

    def port_range_free(self):
        self.d.inject("")
        self.log("fault: the 8 ports free again")

    def port_range_end(self):
        self.d.write_config(outgoing_range=4096, port_permit=None)
        self.d.sighup()
        self.log("fault over: port range back")

    def burst(self, t):
        self.log("fault: burst of 4000 unanswerable queries "
                 "(num-queries-per-thread 512, 2 threads)")
        # in its own thread: waits 25 s for the answers
        def go():
            sent, answered = load.burst(self.d.port, 4000, 25, "t%d" % t)
            self.burst_result = {"sent": sent, "answered": answered}
            self.log("burst: %d sent, %d answered" % (sent, answered))
        threading.Thread(target=go, daemon=True).start()

    def accept_emfile(self, t):
        self.log("fault: accept() EMFILE for 10 s")
        cpu0 = self.d.cpu_seconds()
        self.no_control = True
        self.accept_faults.append([time.time(), None])
        self.d.inject("accept=1")
        self.later(10, "accept", lambda: self.accept_end(cpu0))

    def accept_end(self, cpu0):
        self.d.inject("")
        self.no_control = False
        self.accept_faults[-1][1] = time.time()
        self.log("fault over: accept() back (%.1f s CPU in those 10 s)" %
                 (self.d.cpu_seconds() - cpu0))

    def alloc_failures(self, t):
        self.log("fault: one allocation in 200 fails for 15 s")
        self.alloc_fault = True
        self.d.inject("alloc=200")
        self.later(15, "alloc", self.alloc_end)

    def alloc_end(self):
        self.d.inject("")
        self.alloc_fault = False
        self.log("fault over: allocations back")


FLOOD_RATE = 100000    # distinct names a second (issue 14)


def flood(d, work, seconds, log):
    """Distinct names under a dropping server at FLOOD_RATE a second (as
    near as dnsperf gets); RSS each second. The memory bound of issue 14.
    No answer can come within dnsperf's 0.5 s timeout (the server drops),
    so the rate is bounded by outstanding / timeout: 65,000 / 0.5 s."""
    qfile = os.path.join(work, "flood.txt")
    load.write_flood(qfile)
    before = {"rss_kib": d.rss_kib(), "fds": d.fds()}
    drops0 = d.drops()
    log("hostile flood for %d s (RSS before %d KiB)" %
        (seconds, before["rss_kib"]))
    p = load.dnsperf(d.port, qfile, seconds, os.path.join(work,
                     "dnsperf-flood.txt"), rate=FLOOD_RATE, clients=8,
                     outstanding=65000, timeout=0.5, threads=2, wait=False)
    rss = []
    while p.poll() is None:
        rss.append(d.rss_kib())
        time.sleep(1)
    r = load.parse(os.path.join(work, "dnsperf-flood.txt"))
    time.sleep(load.DNSPERF_TIMEOUT)
    after = d.drops()
    out = {"seconds": seconds, "sent": r["sent"],
           "sent_per_s": (r["sent"] or 0) / seconds,
           "answered_within_timeout": r["completed"], "rcodes": r["rcodes"],
           "rss_before_kib": before["rss_kib"],
           "rss_max_kib": max(rss) if rss else None,
           "rss_after_kib": d.rss_kib(),
           "drops": {k: after[k] - drops0[k] for k in after}}
    log("flood: %s" % out)
    return out
