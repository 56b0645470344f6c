# SPDX-License-Identifier: BSD-3-Clause
"""auth-zone with primary: (Unbound 1.17-1.26): the zone transferred
from its primary at start (AXFR over TCP), the zone file written back,
NOTIFY from the primary (NSD's notify:) starting a check at once and from
an address not listed answered REFUSED, IXFR applied (and AXFR when the
primary refuses IXFR), failover to a second primary, a broken and an
oversized transfer leaving the old version serving with a log line, and
a primary that goes away: the zone is served until the SOA's expire, then
not (SERVFAIL). Side by side with Debian's Unbound 1.17 on the same
config where it has the option.

The primary is NSD on loopback for AXFR and NOTIFY. NSD 4.6.1 (Debian
12) does not serve IXFR from zone file changes (store-ixfr/create-ixfr
came with NSD 4.7), so IXFR, the broken and the oversized transfers come
from XfrPrimary below, a scripted primary in the test's own thread.
Every wait polls for the state (the new serial answered), with a
deadline; the SOA timers of the test zones are a few seconds."""
import os
import socket
import struct
import subprocess
import sys
import threading
import time

import dns.flags
import dns.message
import dns.opcode
import dns.rcode
import dns.rdatatype
import dns.rrset
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from conftest import (DEB_UNBOUND, REFERENCE, RefServer, Server,  # noqa
                      _finish, answer_texts, free_port)
from testnet import nsd as nsd_mod  # noqa: E402
from test_control import OUR_CTL, ctl, rc_clause  # noqa: E402

REF_CTL = "/usr/sbin/unbound-control"

ORIGIN = "example.com."
DEADLINE = 15.0


def zone_text(serial, refresh=3600, retry=1, expire=600, extra=()):
    lines = ["$ORIGIN example.com.", "$TTL 300",
             "@ IN SOA ns1.example.com. host.example.com. %d %d %d %d 300"
             % (serial, refresh, retry, expire),
             "@ IN NS ns1.example.com.",
             "ns1 IN A 127.0.0.1",
             "www IN A 192.0.2.%d" % (serial % 250 + 1),
             "serial%d IN TXT \"v%d\"" % (serial, serial)]
    return "\n".join(lines + list(extra)) + "\n"


def records(serial, **kw):
    """The zone as (name, ttl, type, rdata) tuples, SOA first."""
    out = []
    for line in zone_text(serial, **kw).splitlines():
        if line.startswith("$"):
            continue
        name, cls, typ, rdata = line.split(None, 3)
        assert cls == "IN"
        fq = ORIGIN if name == "@" else name + "." + ORIGIN
        out.append((fq, 300, typ, rdata))
    return out


def rrset(rec):
    name, ttl, typ, rdata = rec
    return dns.rrset.from_text(name, ttl, "IN", typ, rdata)


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


def txt_answered(srv, serial):
    """Does srv answer serialN.example.com TXT authoritatively?"""
    try:
        r = srv.query("serial%d.example.com." % serial, "TXT", timeout=0.5)
    except Exception:
        return False
    return r.rcode() == dns.rcode.NOERROR and ('"v%d"' % serial) in \
        " ".join(answer_texts(r))


class XfrPrimary:
    """A primary in a thread of the test: SOA over UDP, AXFR and IXFR
    over TCP (one RR a message when split is set) from versions of the
    zone, with scripted misbehaviour (mode): "ok", "refuse_ixfr" (IXFR
    answered REFUSED), "broken" (AXFR without its closing SOA, then
    close), "bad_ixfr" (IXFR deleting a record the zone lacks)."""

    def __init__(self, serial, **zkw):
        self.zkw = zkw
        self.versions = {serial: records(serial, **zkw)}
        self.serial = serial
        self.mode = "ok"
        self.extra = []     # more records for the current version
        self.log = []       # (proto, qtype text, serial asked or None)
        self.lock = threading.Lock()
        self.tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        for _ in range(20):
            self.port = free_port()
            try:
                self.tcp.bind(("127.0.0.1", self.port))
                self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                self.udp.bind(("127.0.0.1", self.port))
                break
            except OSError:
                continue
        self.tcp.listen(8)
        self.tcp.settimeout(0.2)
        self.udp.settimeout(0.2)
        self.done = threading.Event()
        self.threads = [threading.Thread(target=f, daemon=True)
                        for f in (self._serve_udp, self._serve_tcp)]
        for t in self.threads:
            t.start()

    def new_version(self, serial, extra=()):
        with self.lock:
            self.versions[serial] = records(serial, extra=extra, **self.zkw)
            self.serial = serial

    def asked(self, qtype):
        with self.lock:
            return [e for e in self.log if e[1] == qtype]

    def close(self):
        self.done.set()
        for t in self.threads:
            t.join(5)
        self.tcp.close()
        self.udp.close()

    def _soa(self, serial):
        return rrset(self.versions[serial][0])

    def _serve_udp(self):
        while not self.done.is_set():
            try:
                wire, src = self.udp.recvfrom(65535)
                q = dns.message.from_wire(wire)
            except (socket.timeout, OSError):
                continue
            except Exception:
                continue
            with self.lock:
                self.log.append(("udp", dns.rdatatype.to_text(
                    q.question[0].rdtype), None))
                r = dns.message.make_response(q)
                r.flags |= dns.flags.AA
                if q.question[0].rdtype == dns.rdatatype.SOA:
                    r.answer.append(self._soa(self.serial))
            try:
                self.udp.sendto(r.to_wire(), src)
            except OSError:
                pass

    def _serve_tcp(self):
        while not self.done.is_set():
            try:
                c, _ = self.tcp.accept()
            except (socket.timeout, OSError):
                continue
            try:
                self._one_tcp(c)
            except Exception:
                pass
            finally:
                c.close()

    def _send(self, c, q, rrsets, rcode=dns.rcode.NOERROR, first=True):
        r = dns.message.make_response(q)
        r.flags |= dns.flags.AA
        r.set_rcode(rcode)
        if not first:
            r.question = []
        for s in rrsets:
            r.answer.append(s)
        w = r.to_wire()
        c.sendall(struct.pack("!H", len(w)) + w)

    def _one_tcp(self, c):
        c.settimeout(2)
        hdr = c.recv(2)
        ln = struct.unpack("!H", hdr)[0]
        wire = b""
        while len(wire) < ln:
            wire += c.recv(ln - len(wire))
        q = dns.message.from_wire(wire)
        qt = q.question[0].rdtype
        asked = None
        if qt == dns.rdatatype.IXFR and q.authority:
            asked = q.authority[0][0].serial
        with self.lock:
            self.log.append(("tcp", dns.rdatatype.to_text(qt), asked))
            mode, cur = self.mode, self.serial
            vers = dict(self.versions)
        if qt == dns.rdatatype.SOA:
            self._send(c, q, [self._soa(cur)])
            return
        if qt == dns.rdatatype.IXFR and "refuse_ixfr" in mode:
            self._send(c, q, [], rcode=dns.rcode.REFUSED)
            return
        if qt == dns.rdatatype.IXFR and asked in vers:
            if asked == cur:
                self._send(c, q, [self._soa(cur)])
                return
            old = set(vers[asked][1:])
            new = set(vers[cur][1:])
            dels = sorted(old - new)
            adds = sorted(new - old)
            if "bad_ixfr" in mode:
                dels.append((("nothere." + ORIGIN), 300, "A",
                             "192.0.2.99"))
            seq = ([self._soa(cur), self._soa(asked)] +
                   [rrset(x) for x in dels] + [self._soa(cur)] +
                   [rrset(x) for x in adds] + [self._soa(cur)])
            for i, s in enumerate(seq):
                self._send(c, q, [s], first=(i == 0))
            return
        # AXFR (or IXFR from an unknown serial: the whole zone)
        seq = [rrset(x) for x in vers[cur]] + [self._soa(cur)]
        if "broken" in mode:
            seq = seq[:-2]
        for i, s in enumerate(seq):
            if "slow" in mode and i:
                time.sleep(0.4)   # each gap well inside the idle wait
            self._send(c, q, [s], first=(i == 0))


def auth_conf(primaries, zonefile=None, allow_notify=None, extra=()):
    lines = ["auth-zone:", '\tname: "example.com"']
    for p in primaries:
        lines.append("\tprimary: %s" % p)
    if zonefile:
        lines.append('\tzonefile: "%s"' % zonefile)
    for a in allow_notify or ():
        lines.append("\tallow-notify: %s" % a)
    lines += ["\tfor-downstream: yes", "\tfor-upstream: no"]
    lines += ["\t" + e for e in extra]
    return "\n".join(lines) + "\n"


def start(srv, extra):
    srv.start("", extra=extra, verbosity=2)
    return srv


def log_has(srv, text):
    return text in srv.log()


# -- NSD as the primary ----------------------------------------------------

class Nsd:
    """NSD on loopback serving example.com with provide-xfr to 127.0.0.1
    and notify: to the given ports."""

    def __init__(self, d, serial, notify_ports):
        self.dir = d
        self.port = free_port()
        self.zonefile = os.path.join(d, "example.com.zone")
        self.write_zone(serial)
        # zonefiles-check: SIGHUP reloads a changed zone file
        conf = nsd_mod.config_text(d, "127.0.0.1", self.port, []).replace(
            "zonefiles-check: no", "zonefiles-check: yes")
        conf += "zone:\n  name: \"example.com\"\n  zonefile: \"%s\"\n" % \
            self.zonefile
        conf += "  provide-xfr: 127.0.0.1 NOKEY\n"
        for p in notify_ports:
            conf += "  notify: 127.0.0.1@%d NOKEY\n" % p
        self.conf = os.path.join(d, "nsd.conf")
        with open(self.conf, "w") as f:
            f.write(conf)
        self.proc = subprocess.Popen([nsd_mod.NSD_BIN, "-d", "-c",
                                      self.conf], cwd=d,
                                     stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        q = dns.message.make_query(ORIGIN, "SOA")

        def up():
            try:
                return dns.query.udp(q, "127.0.0.1", port=self.port,
                                     timeout=0.2).answer
            except Exception:
                return None
        poll("NSD to answer", up)

    def write_zone(self, serial):
        with open(self.zonefile, "w") as f:
            f.write(zone_text(serial))

    def serial(self):
        return soa_serial(self.port, ORIGIN)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)


import dns.query  # noqa: E402


def soa_serial(port, zone):
    """The SOA serial of zone from the server on 127.0.0.1@port; None
    while it does not answer with one."""
    q = dns.message.make_query(zone, "SOA")
    try:
        r = dns.query.udp(q, "127.0.0.1", port=port, timeout=0.3)
        return r.answer[0][0].serial
    except Exception:
        return None


@pytest.fixture(scope="module")
def nsd_setup(tmp_path_factory):
    """NSD serving serial 1, notifying our daemon and Debian's Unbound,
    both transferring from it (zone file written back)."""
    if not nsd_mod.have_nsd():
        pytest.skip("nsd is not installed")
    d = str(tmp_path_factory.mktemp("nsd"))
    ours = Server(tmp_path_factory.mktemp("ours"))
    ref = None
    if os.access(DEB_UNBOUND, os.X_OK) and not REFERENCE:
        ref = RefServer(tmp_path_factory.mktemp("ref"))
    ports = [ours.port] + ([ref.port] if ref else [])
    nsd = Nsd(d, 1, ports)
    servers = {}
    try:
        for name, srv in (("ours", ours), ("ref", ref)):
            if srv is None:
                continue
            zf = os.path.join(srv.dir, "example.zone")
            start(srv, auth_conf(["127.0.0.1@%d" % nsd.port], zonefile=zf,
                                 allow_notify=["127.0.0.1"]))
            servers[name] = srv
        yield nsd, servers
    finally:
        for srv in servers.values():
            _finish(srv)
        nsd.stop()


def test_axfr_from_nsd_and_zonefile_written(nsd_setup):
    nsd, servers = nsd_setup
    for name, srv in servers.items():
        poll("%s to serve serial 1" % name, lambda: txt_answered(srv, 1))
        r = srv.query("www.example.com.", "A")
        assert r.flags & dns.flags.AA
        assert answer_texts(r) == ["192.0.2.2"] or \
            "192.0.2.2" in " ".join(answer_texts(r))
    zf = os.path.join(servers["ours"].dir, "example.zone")
    poll("the zone file to be written",
         lambda: os.path.exists(zf) and "serial1" in open(zf).read())
    assert "SOA" in open(zf).read().splitlines()[0]


def test_notify_from_nsd_starts_a_transfer(nsd_setup):
    nsd, servers = nsd_setup
    for srv in servers.values():
        poll("serial 1", lambda: txt_answered(srv, 1))
    nsd.write_zone(2)
    nsd.proc.send_signal(1)   # SIGHUP: NSD reloads and sends NOTIFY
    poll("NSD to serve serial 2", lambda: nsd.serial() == 2)
    # refresh is 3600: only the NOTIFY explains a transfer this soon
    for name, srv in servers.items():
        poll("%s to serve serial 2 after NOTIFY" % name,
             lambda: txt_answered(srv, 2))
    assert not txt_answered(servers["ours"], 1)


def notify_wire(zone, qid=4242):
    m = dns.message.make_query(zone, "SOA")
    m.set_opcode(dns.opcode.NOTIFY)
    m.flags = dns.flags.AA | (dns.opcode.NOTIFY << 11)
    m.id = qid
    return m.to_wire()


def send_notify(srv, zone, source):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.bind((source, 0))
        s.settimeout(2)
        s.sendto(notify_wire(zone), ("127.0.0.1", srv.port))
        return dns.message.from_wire(s.recv(65535))
    finally:
        s.close()


def test_notify_refused_from_unlisted_address(nsd_setup):
    _, servers = nsd_setup
    got = {}
    for name, srv in servers.items():
        allowed = send_notify(srv, ORIGIN, "127.0.0.1")
        other = send_notify(srv, ORIGIN, "127.0.0.2")
        nozone = send_notify(srv, "example.net.", "127.0.0.1")
        got[name] = [(r.rcode(), r.opcode(), dns.flags.to_text(r.flags),
                      len(r.question))
                     for r in (allowed, other, nozone)]
    assert got["ours"][0][:2] == (dns.rcode.NOERROR, dns.opcode.NOTIFY)
    assert got["ours"][1][0] == dns.rcode.REFUSED
    assert got["ours"][2][0] == dns.rcode.REFUSED
    if "ref" in got:
        assert got["ours"] == got["ref"], got


# -- the scripted primary ----------------------------------------------------

@pytest.fixture
def primary():
    p = XfrPrimary(10, refresh=1, retry=1, expire=600)
    yield p
    p.close()


@pytest.fixture
def ours(tmp_path):
    srv = Server(tmp_path)
    yield srv
    _finish(srv)


def test_ixfr_applied(primary, ours):
    start(ours, auth_conf(["127.0.0.1@%d" % primary.port]))
    poll("serial 10", lambda: txt_answered(ours, 10))
    assert primary.asked("AXFR")
    primary.new_version(11, extra=["added IN A 192.0.2.11"])
    poll("serial 11 by IXFR", lambda: txt_answered(ours, 11))
    assert [e for e in primary.asked("IXFR") if e[2] == 10]
    assert not txt_answered(ours, 10)      # deleted by the difference
    r = ours.query("added.example.com.", "A")
    assert answer_texts(r) == ["192.0.2.11"] or \
        "192.0.2.11" in " ".join(answer_texts(r))
    # two versions in one go: the sequences applied in order
    primary.new_version(12)
    primary.new_version(13)
    poll("serial 13", lambda: txt_answered(ours, 13))


def test_ixfr_refused_falls_back_to_axfr(primary, ours):
    start(ours, auth_conf(["127.0.0.1@%d" % primary.port]))
    poll("serial 10", lambda: txt_answered(ours, 10))
    n_axfr = len(primary.asked("AXFR"))
    primary.mode = "refuse_ixfr"
    primary.new_version(11)
    poll("serial 11 by AXFR", lambda: txt_answered(ours, 11))
    assert primary.asked("IXFR")
    assert len(primary.asked("AXFR")) > n_axfr


def test_bad_transfers_keep_the_old_zone(primary, ours):
    start(ours, auth_conf(["127.0.0.1@%d" % primary.port]))
    poll("serial 10", lambda: txt_answered(ours, 10))
    # an IXFR that deletes what the zone lacks, and the AXFR the daemon
    # falls back to cut short: both refused, serial 10 serves on
    primary.mode = "bad_ixfr broken"
    primary.new_version(11)
    poll("the bad IXFR logged", lambda: log_has(
        ours, "IXFR deletes an RR the zone does not have"))
    poll("the broken AXFR logged", lambda: log_has(
        ours, "closed the connection in the middle of the transfer"))
    assert "serial 10 keeps serving" in ours.log()
    assert txt_answered(ours, 10)
    assert not txt_answered(ours, 11)
    primary.mode = "ok"
    poll("serial 11 once the primary is good", lambda: txt_answered(ours, 11))


def test_oversized_transfer_refused(primary, ours):
    start(ours, auth_conf(["127.0.0.1@%d" % primary.port],
                          extra=["max-transfer-size: 2k"]))
    poll("serial 10", lambda: txt_answered(ours, 10))
    primary.mode = "refuse_ixfr"
    primary.new_version(11, extra=["big%d IN TXT \"%s\"" % (i, "x" * 200)
                                   for i in range(20)])
    poll("the size limit logged", lambda: log_has(
        ours, "larger than max-transfer-size"))
    assert txt_answered(ours, 10)
    assert not txt_answered(ours, 11)


def test_slow_transfer_cut_at_max_transfer_time(primary, ours):
    """max-transfer-time: 1: an AXFR whose messages come 0.4 s apart
    (1 RR each, so it would take longer) is given up and logged; the
    old serial serves on."""
    start(ours, auth_conf(["127.0.0.1@%d" % primary.port],
                          extra=["max-transfer-time: 1"]))
    poll("serial 10", lambda: txt_answered(ours, 10))
    primary.mode = "refuse_ixfr slow"
    primary.new_version(11, extra=["slow%d IN TXT \"s\"" % i
                                   for i in range(4)])
    poll("the time limit logged", lambda: log_has(
        ours, "transfer took longer than max-transfer-time"))
    assert txt_answered(ours, 10)
    assert not txt_answered(ours, 11)


def test_failover_to_second_primary(primary, ours):
    dead = free_port()
    start(ours, auth_conf(["127.0.0.1@%d" % dead,
                           "127.0.0.1@%d" % primary.port]))
    poll("serial 10 from the second primary",
         lambda: txt_answered(ours, 10))


def test_primary_by_host_name(primary, ours):
    """primary: NAME, as OpenWrt's root zone copy (master:
    lax.xfr.dns.icann.org) and installers naming the root servers write
    it: the name is looked up (here "localhost", from /etc/hosts: no
    query leaves the machine) and each of its addresses tried (the
    primary listens on 127.0.0.1 only; localhost may be ::1 first).
    NAME@PORT, which this test needs (Unbound 1.17 takes a host name on
    port 53 only), is this daemon's. It once refused to start on a
    host name."""
    start(ours, auth_conf(["localhost@%d" % primary.port]))
    poll("serial 10 from localhost", lambda: txt_answered(ours, 10))
    assert primary.asked("AXFR")


def test_primary_host_name_malformed(ours):
    """Neither an address nor a host name: refused at start, as
    before."""
    rc, out = ours.start_expecting_exit(
        "", extra=auth_conf(["bad!name@53"]))
    assert rc == 1, out
    assert "not an IP address or host name" in out


def test_primary_gone_serves_until_expire(ours):
    p = XfrPrimary(20, refresh=1, retry=1, expire=3)
    try:
        start(ours, auth_conf(["127.0.0.1@%d" % p.port]))
        poll("serial 20", lambda: txt_answered(ours, 20))
    finally:
        p.close()
    gone = time.time()
    # still served right after the primary went away
    assert txt_answered(ours, 20)

    def servfail():
        r = ours.query("serial20.example.com.", "TXT", timeout=0.5)
        return r.rcode() == dns.rcode.SERVFAIL
    poll("the zone to expire", servfail)
    assert time.time() - gone >= 1.5
    assert log_has(ours, "expired")


def test_control_auth_zone_transfer_and_reload(tmp_path):
    """unbound-control auth_zone_transfer (a SOA check now: refresh is
    an hour) and auth_zone_reload (the zone file read again), with
    Unbound's replies, beside Debian's Unbound."""
    outs = {}
    primary = XfrPrimary(10, refresh=3600, retry=3600, expire=7200)
    servers = [("ours", Server(tmp_path / "ours"), OUR_CTL)]
    if os.access(DEB_UNBOUND, os.X_OK) and not REFERENCE:
        servers.append(("ref", RefServer(tmp_path / "ref"), REF_CTL))
    try:
        for name, srv, binary in servers:
            os.makedirs(srv.dir, exist_ok=True)
            srv.ctl_port = free_port()
            zf = os.path.join(srv.dir, "example.zone")
            start(srv, auth_conf(["127.0.0.1@%d" % primary.port],
                                 zonefile=zf) +
                  rc_clause(None, srv.ctl_port, use_cert=False))
            poll("%s: serial 10" % name, lambda: txt_answered(srv, 10))
            poll("%s: the zone file" % name, lambda: os.path.exists(zf))
            primary.new_version(11)
            out = [ctl(srv.conf, "auth_zone_transfer", "example.com",
                       binary=binary).stdout]
            poll("%s: serial 11 after auth_zone_transfer" % name,
                 lambda: txt_answered(srv, 11))
            poll("%s: serial 11 in the zone file" % name,
                 lambda: "serial11" in open(zf).read())
            out.append(ctl(srv.conf, "auth_zone_transfer", "example.net",
                           binary=binary).stdout)
            # the file edited: a reload serves what it says
            text = open(zf).read().replace("192.0.2.12", "192.0.2.77")
            with open(zf, "w") as f:
                f.write(text)
            out.append(ctl(srv.conf, "auth_zone_reload", "example.com",
                           binary=binary).stdout)
            poll("%s: the reloaded file served" % name,
                 lambda: "192.0.2.77" in " ".join(answer_texts(
                     srv.query("www.example.com.", "A"))))
            out.append(ctl(srv.conf, "auth_zone_reload", "example.net",
                           binary=binary).stdout)
            outs[name] = out
            with primary.lock:
                primary.serial = 10
    finally:
        primary.close()
        for _, srv, _ in servers:
            _finish(srv)
    assert outs["ours"][0] == "ok\n"
    assert outs["ours"][1] == "error zone xfr task not found example.net\n"
    assert outs["ours"][2] == "ok\n"
    assert outs["ours"][3] == "error no auth-zone example.net\n"
    if "ref" in outs:
        assert outs["ours"] == outs["ref"]
