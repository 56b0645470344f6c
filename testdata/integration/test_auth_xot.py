# SPDX-License-Identifier: BSD-3-Clause
"""auth-zone primaries over TLS (XoT, RFC 9103), written as Unbound 1.17
writes them: `primary: ADDR@PORT#name`. The transfer goes over TLS and the
primary's certificate is verified with tls-cert-bundle against the name
after '#'. A name the certificate does not carry, or no bundle, fails the
transfer with a log line naming why, and the zone is not served.

The primary is NSD 4.6 on loopback, plain DNS on one port and TLS
(tls-service-key/-pem, tls-port) on another, with a certificate made at
test time (testnet.tls_pki) for xfr.test. Side by side with Debian's
Unbound 1.17 on the same configs, where it behaves alike; without a
bundle it transfers anyway (no verification: doc/compat.md). An rpz:
clause takes the same primary forms (ADDR@PORT#name over TLS): its zone
arrives over TLS and its triggers apply. Every wait polls for a state
with a deadline."""
import os
import subprocess
import sys
import time

import dns.message
import dns.query
import dns.rcode
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from conftest import (DEB_UNBOUND, REFERENCE, RefServer, Server,  # noqa
                      _finish, answer_texts, free_port)
from testnet import nsd as nsd_mod  # noqa: E402
from testnet import tls_pki  # noqa: E402
from test_auth_xfr import soa_serial  # noqa: E402

DEADLINE = 15.0
TLS_NAME = "xfr.test"


def zone_text(origin, serial):
    return "\n".join([
        "$ORIGIN %s" % origin, "$TTL 300",
        "@ IN SOA ns1 host %d 3600 1 600 300" % serial,
        "@ IN NS ns1", "ns1 IN A 127.0.0.1",
        "serial%d IN TXT \"v%d\"" % (serial, serial)]) + "\n"


def poll(what, fn, timeout=DEADLINE):
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(0.05)
    raise AssertionError("timed out waiting for %s (last: %r)" % (what,
                                                                   last))


def answer(srv, zone, serial):
    """The reply to serialN.ZONE TXT (a reply must come)."""
    return srv.query("serial%d.%s" % (serial, zone), "TXT", timeout=2.0,
                     retries=3)


def served(srv, zone, serial):
    try:
        r = answer(srv, zone, serial)
    except Exception:
        return False
    return r.rcode() == dns.rcode.NOERROR and ('"v%d"' % serial) in \
        " ".join(answer_texts(r))


class TlsNsd:
    """NSD serving example.com and example.net: plain DNS on port, DNS
    over TLS (and so AXFR over TLS) on tls_port with a certificate for
    TLS_NAME signed by ca; NOTIFY for example.com to notify_ports."""

    ZONES = ("example.com.", "example.net.", "rpz.test.")

    def __init__(self, d, ca, notify_ports):
        self.dir = d
        self.port = free_port()
        self.tls_port = free_port()
        cert, key = ca.server("primary", [TLS_NAME])
        conf = nsd_mod.config_text(d, "127.0.0.1", self.port, [])
        conf = conf.replace(
            "  port: %d\n" % self.port,
            "  port: %d\n  ip-address: 127.0.0.1@%d\n  tls-port: %d\n"
            "  tls-service-key: \"%s\"\n  tls-service-pem: \"%s\"\n"
            % (self.port, self.tls_port, self.tls_port, key, cert))
        conf = conf.replace("zonefiles-check: no", "zonefiles-check: yes")
        for z in self.ZONES:
            self.write_zone(z, 1)
            conf += "zone:\n  name: \"%s\"\n  zonefile: \"%s\"\n" % (
                z, self.zonefile(z))
            conf += "  provide-xfr: 127.0.0.1 NOKEY\n"
            if z == "example.com.":
                for p in notify_ports:
                    conf += "  notify: 127.0.0.1@%d NOKEY\n" % p
        self.conf = os.path.join(d, "nsd.conf")
        with open(self.conf, "w") as f:
            f.write(conf)
        self.proc = subprocess.Popen([nsd_mod.NSD_BIN, "-d", "-c",
                                      self.conf], cwd=d,
                                     stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        poll("NSD to answer", lambda: self.serial("example.com.") == 1)

    def zonefile(self, z):
        return os.path.join(self.dir, z + "zone")

    def write_zone(self, z, serial):
        with open(self.zonefile(z), "w") as f:
            f.write(zone_text(z, serial))

    def serial(self, z):
        return soa_serial(self.port, z)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)


def auth_conf(zone, primary):
    return ("auth-zone:\n\tname: \"%s\"\n\tprimary: %s\n"
            "\tfor-downstream: yes\n\tfor-upstream: no\n" % (zone, primary))


@pytest.fixture(scope="module")
def xot(tmp_path_factory):
    """NSD with TLS; per daemon kind (ours, Debian's Unbound when there):
    one with tls-cert-bundle (example.com from the right name,
    example.net from a wrong one) and one without a bundle
    (example.com)."""
    if not nsd_mod.have_nsd():
        pytest.skip("nsd is not installed")
    d = str(tmp_path_factory.mktemp("nsd"))
    ca = tls_pki.CA(d)
    kinds = [("ours", Server)]
    if os.access(DEB_UNBOUND, os.X_OK) and not REFERENCE:
        kinds.append(("ref", RefServer))
    servers = {}
    for kind, cls in kinds:
        servers[kind] = cls(tmp_path_factory.mktemp(kind))
        servers[kind + "-nobundle"] = cls(tmp_path_factory.mktemp(
            kind + "-nobundle"))
    nsd = TlsNsd(d, ca, [servers[k].port for k, _ in kinds])
    nsd.ca = ca
    started = []
    try:
        good = "127.0.0.1@%d#%s" % (nsd.tls_port, TLS_NAME)
        wrong = "127.0.0.1@%d#wrong.test" % nsd.tls_port
        for kind, _ in kinds:
            srv = servers[kind]
            srv.start('tls-cert-bundle: "%s"' % ca.cert_file,
                      extra=auth_conf("example.com", good) +
                      auth_conf("example.net", wrong), verbosity=2)
            started.append(srv)
            srv = servers[kind + "-nobundle"]
            srv.start("", extra=auth_conf("example.com", good),
                      verbosity=2)
            started.append(srv)
        yield nsd, servers
    finally:
        for srv in started:
            _finish(srv)
        nsd.stop()


def test_zone_arrives_over_tls(xot):
    nsd, servers = xot
    for kind in ("ours", "ref"):
        if kind in servers:
            poll("%s to serve example.com over TLS" % kind,
                 lambda: served(servers[kind], "example.com.", 1))
    # NSD answers AXFR on its TLS port only over TLS: the zone came that
    # way (a plain TCP AXFR to that port gets no DNS reply)
    log = servers["ours"].log()
    assert "auth zone example.com.: AXFR from 127.0.0.1@%d#%s: serial 1" \
        % (nsd.tls_port, TLS_NAME) in log, log[-2000:]


def test_notify_then_transfer_over_tls(xot):
    nsd, servers = xot
    kinds = [k for k in ("ours", "ref") if k in servers]
    for kind in kinds:
        poll("serial 1", lambda: served(servers[kind], "example.com.", 1))
    nsd.write_zone("example.com.", 2)
    nsd.proc.send_signal(1)    # SIGHUP: NSD reloads and sends NOTIFY
    poll("NSD to serve serial 2", lambda: nsd.serial("example.com.") == 2)
    # refresh is 3600: only the NOTIFY explains a transfer this soon
    for kind in kinds:
        poll("%s to serve serial 2 after NOTIFY" % kind,
             lambda: served(servers[kind], "example.com.", 2))


def not_served(srv, zone):
    """A reply comes, and it is not the zone's data."""
    r = answer(srv, zone, 1)
    return r.rcode() != dns.rcode.NOERROR or \
        '"v1"' not in " ".join(answer_texts(r))


def test_wrong_name_fails_with_log_line(xot):
    nsd, servers = xot
    ours = servers["ours"]
    poll("the failed handshake in the log",
         lambda: "auth zone example.net.: AXFR from 127.0.0.1@%d#wrong.test"
         " failed: TLS handshake failed (the certificate must be for "
         "wrong.test): hostname mismatch" % nsd.tls_port in ours.log())
    assert not_served(ours, "example.net.")
    # the right name in the same daemon did transfer
    poll("example.com served", lambda: served(ours, "example.com.", 1) or
         served(ours, "example.com.", 2))
    if "ref" in servers:
        assert not_served(servers["ref"], "example.net.")


def test_no_bundle_fails_with_log_line(xot):
    nsd, servers = xot
    ours = servers["ours-nobundle"]
    poll("the failed verification in the log",
         lambda: "auth zone example.com.: AXFR from 127.0.0.1@%d#%s failed:"
         " TLS handshake failed (the certificate must be for %s): unable "
         "to get local issuer certificate" % (nsd.tls_port, TLS_NAME,
                                              TLS_NAME) in ours.log())
    assert not_served(ours, "example.com.")
    if "ref-nobundle" in servers:
        # compat: unbound-1.17 without a bundle verifies nothing and
        # takes the zone (doc/compat.md)
        ref = servers["ref-nobundle"]
        poll("Debian's Unbound to take the zone unverified",
             lambda: served(ref, "example.com.", 1) or
             served(ref, "example.com.", 2))


def test_no_name_after_hash_is_a_start_error(tmp_path):
    """`master:` (the old name) with '#' and nothing after it: an error
    at start naming the primary, not a transfer without a name."""
    srv = Server(tmp_path)
    bad = "127.0.0.1@%d#" % free_port()
    status, out = srv.start_expecting_exit(
        "", extra="auth-zone:\n\tname: \"example.org\"\n"
        "\tmaster: %s\n" % bad)
    assert status not in (0, None), out[-2000:]
    assert "auth zone primary %s: no name after '#'" % bad in out, \
        out[-2000:]


@pytest.fixture(scope="module")
def rpz_xot(xot, tmp_path_factory):
    """An rpz: zone (rpz.test: "serialN" is a QNAME trigger for serialN.
    with TXT "vN") from the same NSD over TLS, ours and Debian's Unbound
    beside it."""
    nsd, _ = xot
    kinds = [("ours", Server)]
    if os.access(DEB_UNBOUND, os.X_OK) and not REFERENCE:
        kinds.append(("ref", RefServer))
    started = {}
    try:
        for kind, cls in kinds:
            srv = cls(tmp_path_factory.mktemp("rpz-" + kind))
            srv.start('module-config: "respip iterator"\n'
                      'tls-cert-bundle: "%s"' % nsd.ca.cert_file,
                      extra="rpz:\n\tname: \"rpz.test\"\n"
                      "\tprimary: 127.0.0.1@%d#%s\n" % (nsd.tls_port,
                                                         TLS_NAME),
                      verbosity=2)
            started[kind] = srv
        yield nsd, started
    finally:
        for srv in started.values():
            _finish(srv)


def rpz_applies(srv, serial):
    try:
        r = srv.query("serial%d." % serial, "TXT", timeout=2.0, retries=3)
    except Exception:
        return False
    return ('"v%d"' % serial) in " ".join(answer_texts(r))


def test_rpz_primary_over_tls(rpz_xot):
    nsd, servers = rpz_xot
    for kind, srv in servers.items():
        poll("%s to apply the RPZ zone from TLS" % kind,
             lambda: rpz_applies(srv, 1))
    log = servers["ours"].log()
    assert "rpz.test.: AXFR from 127.0.0.1@%d#%s: serial 1" % (
        nsd.tls_port, TLS_NAME) in log, log[-2000:]
