# SPDX-License-Identifier: BSD-3-Clause
"""rpz: with primary: (Unbound 1.17): the response policy zone
transferred from its primary at start (AXFR over TCP) and its triggers
applied, the zone file written back, NOTIFY from the primary (NSD's
notify:) starting a check at once so the new triggers apply well before
the SOA's refresh, NOTIFY from an address not listed answered REFUSED,
IXFR applied, failover from a primary that is down to the second one,
and the transfer engine's unbound-control commands on an RPZ zone. Side
by side with Debian's Unbound 1.17 on the same config.

The policy is one snapshot all workers share (respip/rpz_store.c): ours
runs with several threads and every query after a transfer, whatever
worker reads it, answers from the new version.

The primary is NSD on loopback for AXFR and NOTIFY; IXFR comes from
test_auth_xfr's scripted primary (NSD 4.6 serves no IXFR from zone file
changes). The RPZ zone is named example.com, so its records are
triggers: "www" (A 192.0.2.N, N the serial plus one) is a QNAME trigger
for www. with local data, "serialN" one for serialN. (TXT "vN"). Every
wait polls for the state with a deadline."""
import os
import sys

import dns.flags
import dns.message
import dns.opcode
import dns.rcode
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from conftest import (DEB_UNBOUND, REFERENCE, RefServer, Server,  # noqa
                      Upstream, _finish, answer_texts, free_port)
from testnet import nsd as nsd_mod  # noqa: E402
from test_auth_xfr import Nsd, XfrPrimary, poll, send_notify  # noqa: E402
from test_control import DEB_CTL, OUR_CTL, ctl, rc_clause  # noqa: E402

pytestmark = [
    pytest.mark.skipif(REFERENCE, reason="compares this build with "
                       "Debian's Unbound itself"),
]

BODY = 'module-config: "respip iterator"\n'
# the trigger names, each a stub zone on an Upstream: a name no trigger
# covers gets its real answer at once ("www. A 192.0.2.253", a TXT
# NODATA), not a wait on the dead root
NAMES = ["www", "added"] + ["serial%d" % i for i in
                            list(range(1, 6)) + list(range(10, 13))]
RECURSED = "www. A 192.0.2.253"


def rpz_conf(primaries, zonefile=None, allow_notify=(), extra=()):
    lines = ["rpz:", '\tname: "example.com"']
    lines += ["\tprimary: %s" % p for p in primaries]
    if zonefile:
        lines.append('\tzonefile: "%s"' % zonefile)
    lines += ["\tallow-notify: %s" % a for a in allow_notify]
    lines += ["\t" + e for e in extra]
    return "\n".join(lines) + "\n"


def ask(srv, name, rdtype):
    """The answer texts for name."""
    return " ".join(answer_texts(srv.query(name, rdtype, timeout=2)))


def applies(srv, serial):
    """Do serial's triggers answer (www. and serialN.)?"""
    www = ask(srv, "www.", "A")
    if ("192.0.2.%d" % (serial % 250 + 1)) not in www:
        return False
    return ('"v%d"' % serial) in ask(srv, "serial%d." % serial, "TXT")


def all_workers_apply(srv, serial, n=24):
    """n queries, each from its own socket (so the kernel spreads them
    over the workers' sockets): all answer serial's trigger."""
    want = "192.0.2.%d" % (serial % 250 + 1)
    got = [ask(srv, "www.", "A") for _ in range(n)]
    return all(want in g for g in got), got


def servers_for(tmp_path_factory, prefix):
    out = [("ours", Server(tmp_path_factory.mktemp(prefix + "ours")),
            OUR_CTL)]
    if os.access(DEB_UNBOUND, os.X_OK):
        out.append(("ref", RefServer(tmp_path_factory.mktemp(
            prefix + "ref")), DEB_CTL))
    return out


def start(srv, up, extra, threads=1):
    srv.ctl_port = free_port()
    srv.start(BODY, extra=extra + up.stub_zone(*NAMES) +
              rc_clause(None, srv.ctl_port, use_cert=False),
              verbosity=2, threads=threads)
    return srv


# -- NSD as the primary ----------------------------------------------------

@pytest.fixture(scope="module")
def nsd_setup(tmp_path_factory):
    """NSD serving serial 1 and notifying both daemons, which transfer
    the RPZ zone from it (zone file written back); ours with 4 threads."""
    if not nsd_mod.have_nsd():
        pytest.skip("nsd is not installed")
    d = str(tmp_path_factory.mktemp("nsd"))
    servers = servers_for(tmp_path_factory, "n")
    nsd = Nsd(d, 1, [srv.port for _, srv, _ in servers])
    up = Upstream()
    started = {}
    try:
        for name, srv, binary in servers:
            os.makedirs(srv.dir, exist_ok=True)
            zf = os.path.join(srv.dir, "rpz.zone")
            conf = rpz_conf(["127.0.0.1@%d" % nsd.port], zonefile=zf,
                            allow_notify=["127.0.0.1"])
            start(srv, up, conf, threads=4 if name == "ours" else 1)
            srv.ctl_bin = binary
            started[name] = srv
        yield nsd, started
    finally:
        for srv in started.values():
            _finish(srv)
        nsd.stop()
        up.close()


def test_axfr_at_start_and_zonefile_written(nsd_setup):
    nsd, servers = nsd_setup
    for name, srv in servers.items():
        poll("%s to apply serial 1's triggers" % name,
             lambda: applies(srv, 1))
        r = srv.query("www.", "A")
        assert r.rcode() == dns.rcode.NOERROR
        assert r.flags & dns.flags.AA
        assert not r.flags & dns.flags.AD
    zf = os.path.join(servers["ours"].dir, "rpz.zone")
    poll("the zone file to be written",
         lambda: os.path.exists(zf) and "serial1" in open(zf).read())
    assert "SOA" in open(zf).read().splitlines()[0]


def test_notify_from_nsd_applies_new_triggers(nsd_setup):
    nsd, servers = nsd_setup
    for srv in servers.values():
        poll("serial 1", lambda: applies(srv, 1))
    nsd.write_zone(2)
    nsd.proc.send_signal(1)   # SIGHUP: NSD reloads and sends NOTIFY
    poll("NSD to serve serial 2", lambda: nsd.serial() == 2)
    # refresh is 3600: only the NOTIFY explains a transfer this soon
    for name, srv in servers.items():
        poll("%s to apply serial 2 after NOTIFY" % name,
             lambda: applies(srv, 2))
    # one snapshot for all of ours' 4 workers: none answers serial 1
    ok, got = all_workers_apply(servers["ours"], 2)
    assert ok, got
    zf = os.path.join(servers["ours"].dir, "rpz.zone")
    poll("serial 2 in the zone file", lambda: "serial2" in open(zf).read())


def test_notify_refused_from_unlisted_address(nsd_setup):
    _, servers = nsd_setup
    got = {}
    for name, srv in servers.items():
        allowed = send_notify(srv, "example.com.", "127.0.0.1")
        other = send_notify(srv, "example.com.", "127.0.0.2")
        nozone = send_notify(srv, "example.net.", "127.0.0.1")
        got[name] = [(r.rcode(), r.opcode(), dns.flags.to_text(r.flags),
                      len(r.question))
                     for r in (allowed, other, nozone)]
    assert got["ours"][0][:2] == (dns.rcode.NOERROR, dns.opcode.NOTIFY)
    assert got["ours"][1][0] == dns.rcode.REFUSED
    assert got["ours"][2][0] == dns.rcode.REFUSED
    if "ref" in got:
        assert got["ours"] == got["ref"], got


def test_control_on_the_rpz_zone(nsd_setup):
    """list_auth_zones lists the RPZ zone with its serial and
    auth_zone_transfer names it, as Unbound's; rpz_disable holds across a
    transferred version."""
    nsd, servers = nsd_setup
    outs = {}
    serial = nsd.serial()
    for name, srv in servers.items():
        poll("%s: serial %d" % (name, serial),
             lambda: applies(srv, serial))
        outs[name] = [ctl(srv.conf, "list_auth_zones",
                          binary=srv.ctl_bin).stdout,
                      ctl(srv.conf, "auth_zone_transfer", "example.com",
                          binary=srv.ctl_bin).stdout,
                      ctl(srv.conf, "auth_zone_transfer", "example.net",
                          binary=srv.ctl_bin).stdout]
    assert outs["ours"][0] == "example.com.\tserial %d\n" % serial
    assert outs["ours"][1] == "ok\n"
    if "ref" in outs:
        assert outs["ours"] == outs["ref"], outs
    ours = servers["ours"]
    assert ctl(ours.conf, "rpz_disable", "example.com").stdout == "ok\n"
    poll("the zone disabled", lambda: ask(ours, "www.", "A") == RECURSED)
    nsd.write_zone(serial + 1)
    nsd.proc.send_signal(1)
    poll("NSD's new serial", lambda: nsd.serial() == serial + 1)
    zf = os.path.join(ours.dir, "rpz.zone")
    poll("the new version transferred",
         lambda: "serial%d" % (serial + 1) in open(zf).read())
    assert ask(ours, "www.", "A") == RECURSED
    assert ask(ours, "serial%d." % (serial + 1), "TXT") == ""
    assert ctl(ours.conf, "rpz_enable", "example.com").stdout == "ok\n"
    poll("the new version applied once enabled",
         lambda: applies(ours, serial + 1))


# -- the scripted primary: IXFR and failover ----------------------------------

@pytest.fixture
def pair(tmp_path_factory):
    servers = servers_for(tmp_path_factory, "p")
    up = Upstream()
    yield servers, up
    for _, srv, _ in servers:
        _finish(srv)
    up.close()


def test_ixfr_applied(pair):
    pair, up = pair
    primary = XfrPrimary(10, refresh=1, retry=1, expire=600)
    try:
        for name, srv, _ in pair:
            start(srv, up, rpz_conf(["127.0.0.1@%d" % primary.port]))
        for name, srv, _ in pair:
            poll("%s: serial 10" % name, lambda: applies(srv, 10))
        assert primary.asked("AXFR")
        primary.new_version(11, extra=["added IN A 192.0.2.111"])
        for name, srv, _ in pair:
            poll("%s: serial 11 by IXFR" % name, lambda: applies(srv, 11))
            assert ask(srv, "added.", "A") == "added. A 192.0.2.111"
            assert ask(srv, "serial10.", "TXT") == ""
        assert [e for e in primary.asked("IXFR") if e[2] == 10]
    finally:
        primary.close()


def test_failover_to_second_primary(pair):
    pair, up = pair
    primary = XfrPrimary(10, refresh=1, retry=1, expire=600)
    dead = free_port()
    try:
        for name, srv, _ in pair:
            start(srv, up, rpz_conf(["127.0.0.1@%d" % dead,
                                 "127.0.0.1@%d" % primary.port]))
        for name, srv, _ in pair:
            poll("%s: serial 10 from the second primary" % name,
                 lambda: applies(srv, 10))
    finally:
        primary.close()
