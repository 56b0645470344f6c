#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The soak test with faults (issue 14); run through contrib/soak.sh.

Starts the loopback test internet and the daemon (sanitizer build, under
the failure shim testdata/failalloc_shim.so), calibrates dnsperf, then
for --minutes drives the daemon with dnsperf at 80% of the calibrated
rate, TCP abuse, operations (SIGHUP, reload_keep_cache, flush_zone,
dump_cache/load_cache, stats and Prometheus scrapes) and faults (an
authoritative server killed and restarted, the outgoing port range full,
a burst past num-queries-per-thread, accept() out of fds, allocation
failures), then a hostile flood of distinct unanswerable names. Prints
the figures and the checks; exit status 1 when a check failed."""
import argparse
import json
import os
import signal
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
OUTSTANDING = 10000     # dnsperf -q of the calibration and the main run
sys.path.insert(0, os.path.join(SRC, "testdata"))
sys.path.insert(0, HERE)

from testnet.net import TestNet, pick_prefix  # noqa: E402
import abuse  # noqa: E402
import daemon as dmod  # noqa: E402
import load  # noqa: E402
import ops  # noqa: E402
import checks  # noqa: E402


def log(msg):
    print("[%7.1f] %s" % (time.time() - T0, msg), flush=True)


T0 = time.time()


def udp_rcvbuf_errors():
    with open("/proc/net/snmp") as f:
        rows = [l.split() for l in f if l.startswith("Udp:")]
    return int(dict(zip(rows[0][1:], rows[1][1:]))["RcvbufErrors"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--builddir", default=os.path.join(SRC, "build-asan"))
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--flood-seconds", type=int, default=30)
    a = ap.parse_args()
    secs = int(a.minutes * 60)
    work = a.workdir or tempfile.mkdtemp(prefix="soak-", dir="/tmp")
    os.makedirs(work, exist_ok=True)
    shim = os.path.join(a.builddir, "testdata", "failalloc_shim.so")
    report = {"minutes": a.minutes, "workdir": work,
              "load_start": os.getloadavg()}
    net = TestNet(os.path.join(work, "net"), prefix=pick_prefix(53),
                  port=53, bench_names=20000)
    d = dmod.Daemon(a.builddir, work, net.root_hints, shim)
    ab = abuse.Abuse(0)
    procs = []
    stop_ops = threading.Event()

    def on_signal(sig, frame):
        raise KeyboardInterrupt("signal %d" % sig)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    failed = True
    try:
        log("work directory %s; starting the test internet" % work)
        net.start()
        bad = net.responder("bad")
        bad.set_behaviour(rules=load.responder_rules(bad.spec.rules))
        d.start()
        ab.port = d.port
        log("daemon PID %d on 127.0.0.1@%d (Prometheus @%d), built in %s"
            % (d.pid, d.port, d.prom_port, a.builddir))
        mix = os.path.join(work, "mix.txt")
        report["mix"] = load.write_mix(mix, net)
        # the rate the daemon kept up for the 10 s: answers over the
        # 10 s, not dnsperf's q/s, whose time includes waiting out the
        # timeouts at the end; outstanding queries enough that the few
        # to silent servers (held up to the 20 s timeout) do not bound
        # it
        cal = load.dnsperf(d.port, mix, 10, os.path.join(work,
                           "calibrate.txt"), outstanding=OUTSTANDING)
        cal["qps"] = (cal["completed"] or 0) / 10.0
        rate = int(0.8 * (cal["qps"] or 1000))
        report["calibration_qps"] = cal["qps"]
        report["rate"] = rate
        log("calibration: %.0f q/s; main run at %d q/s for %d s" %
            (cal["qps"] or 0, rate, secs))
        time.sleep(load.DNSPERF_TIMEOUT + 5)   # its late answers settle
        drops0 = d.drops()
        kern0 = udp_rcvbuf_errors()
        main_run = load.dnsperf(d.port, mix, secs, os.path.join(
            work, "dnsperf-main.txt"), rate=rate, wait=False,
            outstanding=OUTSTANDING)
        procs.append(main_run)
        ab.start()
        sched = ops.Schedule(d, net, work, secs, log, stop_ops)
        sched.accept_faults = ab.accept_faults
        th = threading.Thread(target=sched.run, daemon=True)
        th.start()
        while main_run.poll() is None:
            if not d.alive():
                raise RuntimeError("the daemon died: status %s" %
                                   d.proc.returncode)
            time.sleep(1)
        stop_ops.set()
        th.join(120)
        ab.join()
        log("main run done; waiting %d s for late answers" %
            (load.DNSPERF_TIMEOUT + 5))
        time.sleep(load.DNSPERF_TIMEOUT + 5)
        report["main"] = {k: v for k, v in load.parse(os.path.join(
            work, "dnsperf-main.txt")).items() if k != "text"}
        report["drops"] = {k: v - drops0[k] for k, v in d.drops().items()}
        report["kernel_udp_rcvbuf_errors"] = udp_rcvbuf_errors() - kern0
        report["burst"] = sched.burst_result
        report["ops"] = sched.counts
        report["abuse"] = ab.counts
        report["samples"] = sched.samples
        report["flood"] = ops.flood(d, work, a.flood_seconds, log)
        time.sleep(5)
        report["final"] = checks.final_questions(d, net)
        report["after"] = {"rss_kib": d.rss_kib(), "fds": d.fds()}
        report["load_end"] = os.getloadavg()
        report["exit_status"] = d.stop()
        report["sanitizer_reports"] = d.sanitizer_reports()
        ok, lines = checks.evaluate(report, secs)
        for l in lines:
            print(l)
        failed = not ok
    except KeyboardInterrupt as e:
        log("interrupted (%s): stopping everything" % e)
    except Exception as e:
        log("FAILED: %s: %s" % (type(e).__name__, e))
    finally:
        stop_ops.set()
        ab.stop.set()
        for p in procs:
            if p.poll() is None:
                p.terminate()
                p.wait(10)
        if d.alive():
            report["exit_status"] = d.stop()
        net.stop()
        with open(os.path.join(work, "report.json"), "w") as f:
            json.dump(report, f, indent=1, default=str)
        log("report: %s/report.json; daemon log %s" % (work, d.log))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
