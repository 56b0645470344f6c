# SPDX-License-Identifier: BSD-3-Clause
"""The daemon under soak: its config, start and stop by PID, the control
channel, the Prometheus scrape and the RSS / open-fd samples."""
import os
import re
import signal
import socket
import subprocess
import time
import urllib.request

import dns.message
import dns.query

# Drop reasons the daemon counts (Prometheus counters: never reset by a
# reload or by `stats`, unlike the control channel's statistics).
DROP_COUNTERS = ("request_list_exceeded_total",
                 "request_list_overwritten_total")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Daemon:
    def __init__(self, builddir, workdir, root_hints, shim):
        self.bin = os.path.join(builddir, "unbound")
        self.control_bin = os.path.join(builddir, "unbound-control")
        self.shim = shim
        self.dir = workdir
        self.root_hints = root_hints
        self.port = free_port()
        self.prom_port = free_port()
        self.conf = os.path.join(workdir, "unbound.conf")
        self.log = os.path.join(workdir, "unbound.log")
        self.ctl = os.path.join(workdir, "failalloc.ctl")
        self.asan_prefix = os.path.join(workdir, "asan")
        self.proc = None
        self.outgoing_range = 4096
        self.port_permit = None     # "N-M": only those outgoing ports

    def write_config(self, outgoing_range=None, port_permit=False):
        """port_permit: "N-M" to allow only those outgoing ports, None
        for all (the default), False to keep the current setting."""
        if outgoing_range is not None:
            self.outgoing_range = outgoing_range
        if port_permit is not False:
            self.port_permit = port_permit
        ports = ""
        if self.port_permit:
            ports = ("\toutgoing-port-avoid: 0-65535\n"
                     "\toutgoing-port-permit: %s\n" % self.port_permit)
        text = """server:
	verbosity: 1
	num-threads: 2
	so-reuseport: yes
	interface: 127.0.0.1
	port: %(port)d
	do-daemonize: no
	use-syslog: no
	chroot: ""
	username: ""
	directory: "%(dir)s"
	logfile: "%(log)s"
	pidfile: "%(dir)s/unbound.pid"
	root-hints: "%(hints)s"
	do-not-query-localhost: no
	do-ip6: no
	module-config: "iterator"
	extended-statistics: yes
	num-queries-per-thread: 512
	wait-limit: 0
	outgoing-range: %(orange)d
%(ports)s	incoming-num-tcp: 64
	tcp-idle-timeout: 3000
	msg-cache-size: 8m
	rrset-cache-size: 16m
remote-control:
	control-enable: yes
	control-interface: "%(dir)s/control.sock"
	control-use-cert: no
	prometheus-enable: yes
	prometheus-port: %(pport)d
""" % {"port": self.port, "dir": self.dir, "log": self.log,
       "hints": self.root_hints, "pport": self.prom_port,
       "orange": self.outgoing_range, "ports": ports}
        with open(self.conf + ".tmp", "w") as f:
            f.write(text)
        os.rename(self.conf + ".tmp", self.conf)

    def start(self):
        self.write_config()
        env = dict(os.environ)
        # log_path: every sanitizer report in a file, checked at the end;
        # a small quarantine so RSS settles within the warm-up
        env["ASAN_OPTIONS"] = ("log_path=%s:detect_leaks=1:"
                               "quarantine_size_mb=16:"
                               "verify_asan_link_order=0" % self.asan_prefix)
        env["UBSAN_OPTIONS"] = "log_path=%s:print_stacktrace=1" % \
            self.asan_prefix
        env["LD_PRELOAD"] = self.shim
        env["FAILALLOC_CTL"] = self.ctl
        with open(os.path.join(self.dir, "stderr.txt"), "wb") as err:
            self.proc = subprocess.Popen([self.bin, "-d", "-c", self.conf],
                                         stdin=subprocess.DEVNULL,
                                         stdout=err, stderr=err,
                                         cwd=self.dir, env=env)
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("daemon exited at start: %s" %
                                   self.proc.returncode)
            try:
                self.query("version.server.", "TXT", "CH", timeout=0.3)
                return
            except Exception:
                time.sleep(0.2)
        raise RuntimeError("daemon did not answer within 60 s")

    @property
    def pid(self):
        return self.proc.pid if self.proc else None

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self):
        """SIGTERM by PID, SIGKILL after 30 s; the exit status."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                return "killed"
        return self.proc.returncode

    def sighup(self):
        os.kill(self.pid, signal.SIGHUP)

    def inject(self, text):
        """Arm the failure shim (failalloc_shim.c); "" disarms."""
        with open(self.ctl + ".tmp", "w") as f:
            f.write(text + "\n")
        os.rename(self.ctl + ".tmp", self.ctl)

    def query(self, name, rdtype="A", rdclass="IN", tcp=False, timeout=3.0):
        q = dns.message.make_query(name, rdtype, rdclass)
        if tcp:
            return dns.query.tcp(q, "127.0.0.1", port=self.port,
                                 timeout=timeout)
        return dns.query.udp(q, "127.0.0.1", port=self.port,
                             timeout=timeout)

    def control(self, *args, stdin=None, timeout=30):
        """unbound-control ARGS: (exit status, output)."""
        r = subprocess.run([self.control_bin, "-c", self.conf] + list(args),
                           input=stdin, capture_output=True, text=True,
                           timeout=timeout)
        return r.returncode, r.stdout + r.stderr

    def prometheus(self):
        """The scrape as {name: summed value} (labels summed over)."""
        url = "http://127.0.0.1:%d/metrics" % self.prom_port
        with urllib.request.urlopen(url, timeout=10) as r:
            text = r.read().decode()
        out = {}
        for line in text.splitlines():
            if not line or line[0] == "#":
                continue
            m = re.match(r"unbound_(\w+)(\{[^}]*\})? (\S+)$", line)
            if m:
                out[m.group(1)] = out.get(m.group(1), 0) + float(m.group(3))
        return out

    def drops(self):
        p = self.prometheus()
        return {k: int(p.get(k, 0)) for k in DROP_COUNTERS}

    def rss_kib(self):
        with open("/proc/%d/status" % self.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def heap_kib(self):
        """(allocator, live KiB, mapped KiB) of the daemon's heap: the
        bytes it holds allocated now, and what its allocator has mapped
        (freed chunks it keeps included). Under ASan from ASan's
        interface; else from glibc's malloc_stats(), which prints every
        arena to the daemon's stderr (stderr.txt). Read by gdb calling
        into the daemon (it stops for about half a second); None without
        gdb or when neither answers."""
        h = self._gdb_calls(
            ["call (long)__sanitizer_get_current_allocated_bytes()",
             "call (long)__sanitizer_get_heap_size()"])
        if h and len(h) == 2:
            return "asan", h[0] // 1024, h[1] // 1024
        if self._gdb_calls(["call (void)malloc_stats()"]) is None:
            return None
        try:
            with open(os.path.join(self.dir, "stderr.txt"),
                      errors="replace") as f:
                text = f.read()
        except OSError:
            return None
        # the last "Total (incl. mmap):" block is this call's
        m = re.findall(r"Total \(incl\. mmap\):\s*system bytes\s*=\s*(\d+)"
                       r"\s*in use bytes\s*=\s*(\d+)", text)
        if not m:
            return None
        return "glibc", int(m[-1][1]) // 1024, int(m[-1][0]) // 1024

    def _gdb_calls(self, calls):
        """The integer results of gdb 'call' commands in the daemon; []
        when none printed one, None when gdb could not run."""
        cmd = ["gdb", "-p", str(self.pid), "-batch", "-nx"]
        for c in calls:
            cmd += ["-ex", c]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return [int(v) for v in re.findall(r"^\$\d+ = (\d+)$", p.stdout,
                                           re.M)]

    def fds(self):
        return len(os.listdir("/proc/%d/fd" % self.pid))

    def cpu_seconds(self):
        with open("/proc/%d/stat" % self.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf(
            "SC_CLK_TCK")

    def sanitizer_reports(self):
        d = os.path.dirname(self.asan_prefix)
        base = os.path.basename(self.asan_prefix)
        return [os.path.join(d, n) for n in os.listdir(d)
                if n.startswith(base + ".")]
