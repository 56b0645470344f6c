# SPDX-License-Identifier: BSD-3-Clause
"""Control of one responder process (responder.py) from a test: writing
its JSON config, starting and stopping it by PID, changing its scripted
behaviour at run time, and reading its query log (to count the queries a
resolver sent upstream)."""
import json
import os
import signal
import sys
import time

from . import procs

RESPONDER_PY = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            "responder.py")
PYTHON = os.environ.get("TESTNET_PYTHON", "/usr/bin/python3")
START_TIMEOUT = 10.0


class ResponderInstance:
    """A responder serving spec (a zones.ResponderServer) on
    address:port, files in workdir."""

    def __init__(self, spec, workdir, address, port):
        self.name = spec.name
        self.spec = spec
        self.dir = workdir
        self.address = address
        self.port = port
        self.conf = os.path.join(workdir, "responder.json")
        self.logfile = os.path.join(workdir, "queries.log")
        self.ready = os.path.join(workdir, "ready")
        self.pidfile = os.path.join(workdir, "testnet.pid")
        self.proc = None
        self.rules = list(spec.rules)
        self.default = list(spec.default)
        self.records = list(spec.records)

    @property
    def origin(self):
        return self.spec.origin

    def config(self):
        return {"address": self.address, "port": self.port,
                "origin": self.spec.origin, "records": self.records,
                "rules": self.rules, "default": self.default,
                "log": self.logfile, "ready": self.ready}

    def write(self):
        os.makedirs(self.dir, exist_ok=True)
        tmp = self.conf + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.config(), f, indent=1)
        os.rename(tmp, self.conf)

    def start(self, detach=False):
        self.clear_ready()
        self.proc = procs.start([PYTHON, RESPONDER_PY, self.conf], self.dir,
                                self.pidfile, detach=detach)

    def clear_ready(self):
        try:
            os.unlink(self.ready)
        except OSError:
            pass

    def wait_ready(self, timeout=START_TIMEOUT):
        """Wait for the ready file (not a probe query: it would show up in
        the query log)."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError("responder %s exited with %s:\n%s" % (
                    self.name, self.proc.returncode, self.output()))
            if os.path.exists(self.ready):
                return
            time.sleep(0.02)
        raise RuntimeError("responder %s not ready within %ss:\n%s" %
                           (self.name, timeout, self.output()))

    def stop(self):
        procs.stop(self.pidfile, self.proc)
        self.proc = None

    def output(self):
        try:
            with open(os.path.join(self.dir, "output.log"),
                      errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    # -- at run time ------------------------------------------------------
    def set_behaviour(self, rules=None, default=None, records=None):
        """Replace the rules and/or the default actions (None: keep),
        serve records besides the topology's (None: keep), and wait
        until the running responder has reloaded them."""
        if rules is not None:
            self.rules = list(rules)
        if default is not None:
            self.default = list(default)
        if records is not None:
            self.records = list(self.spec.records) + list(records)
        self.write()
        pid = procs.read_pid(self.pidfile)
        if pid is None:
            return
        self.clear_ready()
        os.kill(pid, signal.SIGHUP)
        self.wait_ready()

    def reset_behaviour(self):
        """Back to the behaviour of the topology (zones.py)."""
        self.set_behaviour(list(self.spec.rules), list(self.spec.default),
                           [])

    def queries(self, qname=None, qtype=None):
        """The logged queries (dicts, see responder.py), optionally only
        those for qname (case-insensitive, trailing dot optional) and
        qtype."""
        out = []
        want = None
        if qname is not None:
            want = qname.lower().rstrip(".") + "."
        try:
            with open(self.logfile) as f:
                lines = f.readlines()
        except OSError:
            return out
        for line in lines:
            try:
                e = json.loads(line)
            except ValueError:
                continue        # a line being written right now
            if want is not None and e["qname"].lower() != want:
                continue
            if qtype is not None and e["qtype"] != qtype:
                continue
            out.append(e)
        return out

    def clear_log(self):
        """Forget the queries logged so far (the responder appends)."""
        with open(self.logfile, "w"):
            pass


if __name__ == "__main__":
    sys.exit("import this module; run responder.py to serve")
