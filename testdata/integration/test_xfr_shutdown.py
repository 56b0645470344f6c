# SPDX-License-Identifier: BSD-3-Clause
"""A daemon stopped while a zone transfer is in flight exits cleanly:
status 0, and (in the sanitizer build, where make check runs with
detect_leaks=1) no LeakSanitizer or AddressSanitizer report.

The primary is test_auth_xfr's scripted primary, changed to stall in the
middle of its AXFR: it sends the first half of the zone and waits. Two
cases for an auth-zone: and for an rpz: zone each:
- "stalled": SIGTERM while the primary holds the rest; the transfer
  thread is stopped mid-stream.
- "completes_at_stop": SIGTERM, then at once the rest of the zone, so
  the transfer ends while the daemon shuts down and its new version is
  handed to a main loop that has stopped turning (the version was
  leaked until 844718a: event_base_free frees a pending once-event, not
  its argument)."""
import os
import signal
import sys
import threading

import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from conftest import SLOW, Server, ours_only  # noqa: E402
from test_auth_xfr import XfrPrimary, poll  # noqa: E402

pytestmark = ours_only

# zone lines beyond the test_auth_xfr default, so there is a rest to hold
EXTRA = ["n%d IN A 192.0.2.%d" % (i, i % 250 + 1) for i in range(40)]


class StallingPrimary(XfrPrimary):
    """AXFR: half the zone, then wait for release (or 60 s)."""

    def __init__(self, serial):
        super().__init__(serial, extra=EXTRA)
        self.stalled = threading.Event()
        self.release = threading.Event()

    def _send(self, c, q, rrsets, rcode=None, first=True):
        kw = {} if rcode is None else {"rcode": rcode}
        if not first and not self.stalled.is_set() and \
                self._sent >= self._half:
            self.stalled.set()
            self.release.wait(60)
        super()._send(c, q, rrsets, first=first, **kw)
        self._sent += 1

    def _one_tcp(self, c):
        with self.lock:
            self._total = len(self.versions[self.serial]) + 1
        self._half = self._total // 2
        self._sent = 0
        super()._one_tcp(c)


def zone_conf(kind, port):
    if kind == "auth":
        return ('auth-zone:\n\tname: "example.com"\n\tprimary: '
                "127.0.0.1@%d\n\tfor-downstream: yes\n"
                "\tfor-upstream: no\n" % port)
    return 'rpz:\n\tname: "example.com"\n\tprimary: 127.0.0.1@%d\n' % port


def sanitizer_reports(text):
    return [l for l in text.splitlines() if "LeakSanitizer" in l or
            "ERROR: AddressSanitizer" in l or "runtime error:" in l]


@pytest.mark.parametrize("kind", ["auth", "rpz"])
@pytest.mark.parametrize("when", ["stalled", "completes_at_stop"])
def test_stop_during_transfer_is_clean(tmp_path, kind, when):
    primary = StallingPrimary(1)
    srv = Server(str(tmp_path))
    try:
        body = 'module-config: "respip iterator"' if kind == "rpz" else ""
        srv.start(body, extra=zone_conf(kind, primary.port), verbosity=2)
        poll("the AXFR to stall halfway", primary.stalled.is_set,
             timeout=15 * SLOW)
        srv.proc.send_signal(signal.SIGTERM)
        if when == "completes_at_stop":
            primary.release.set()
        try:
            status = srv.proc.wait(30 * SLOW)
        except Exception:
            srv.proc.kill()
            srv.proc.wait()
            raise
        srv.pid = None
        out = srv.output()
        assert status == 0, "exit status %s\n%s" % (status, out[-3000:])
        assert not sanitizer_reports(out), out[-6000:]
        assert "service stopped" in out, out[-2000:]
    finally:
        primary.release.set()
        if srv.pid is not None:
            srv.stop()
        primary.close()
