# SPDX-License-Identifier: BSD-3-Clause
"""auth-zone's zonemd-check, zonemd-reject-absence and
zonemd-permissive-mode (RFC 8976, Unbound 1.17): zones built at test
time with ldns-signzone (-z adds the ZONEMD; -Z without signing), and
copies with a wrong digest, a wrong serial and none; signed ones with a
trust anchor at the apex, where the SOA and ZONEMD signatures (or the
NSEC proof of absence) are checked too. A zone that fails is not used
(SERVFAIL), with Unbound's log line; side by side with Debian's Unbound
1.17 on the same config. After a transfer, a version with a wrong
digest is not taken and the version served stays (compat.md: Unbound
expires the zone instead)."""
import os
import re
import shutil
import subprocess
import sys

import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from conftest import (DEB_UNBOUND, REFERENCE, RefServer, Server,  # noqa
                      _finish, rcode_of)
from test_auth_xfr import (XfrPrimary, log_has, poll, txt_answered,  # noqa
                           zone_text)

pytestmark = pytest.mark.skipif(
    not (shutil.which("ldns-signzone") and shutil.which("ldns-keygen")),
    reason="ldns-signzone is not installed (ldnsutils)")


def zone(origin, serial=2024010101, extra=""):
    return ("$ORIGIN %s.\n$TTL 3600\n"
            "@ IN SOA ns1 host %d 3600 900 604800 300\n"
            "@ IN NS ns1\n@ IN MX 10 mail\nns1 IN A 127.0.0.1\n"
            "mail IN A 192.0.2.25\nwww IN A 192.0.2.80\n"
            "www IN A 192.0.2.81\nalias IN CNAME www\n"
            "*.wild IN TXT \"wildcard\"\nsub IN NS ns.sub\n"
            "ns.sub IN A 192.0.2.53\nsrv IN SRV 0 0 53 NS1\n" % (
                origin, serial)) + extra


def signzone(d, origin, text, out, args=(), keys=()):
    src = os.path.join(d, origin + ".in")
    with open(src, "w") as f:
        f.write(text)
    path = os.path.join(d, out)
    subprocess.run(["ldns-signzone", "-o", origin, "-f", path] + list(args)
                   + [src] + list(keys), cwd=d, check=True,
                   capture_output=True)
    return path


def write(d, name, text):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def flip_digest(text, count=1):
    """The first ZONEMD's digest (count 0: every one) with its first hex
    digit changed."""
    def one(m):
        dig = m.group(2)
        return m.group(1) + ("0" if dig[0] != "0" else "1") + dig[1:]
    return re.sub(r"(ZONEMD\s+\d+\s+\d+\s+\d+\s+)([0-9a-fA-F]+)", one, text,
                  count=count)


def keys_for(d, origin):
    keys = []
    for ksk in (True, False):
        out = subprocess.run(["ldns-keygen", "-a", "ECDSAP256SHA256"] +
                             (["-k"] if ksk else []) + [origin], cwd=d,
                             check=True, capture_output=True, text=True)
        keys.append(os.path.join(d, out.stdout.strip()))
    with open(keys[0] + ".ds") as f:
        ds = f.read()
    return keys, ds


# zone name: (expected rcode at load, reject-absence, Unbound's reason)
CASES = {
    "good.zonemd": ("NOERROR", False, None),
    "bad.zonemd": ("SERVFAIL", False, "incorrect digest"),
    "serial.zonemd": ("SERVFAIL", False, "ZONEMD serial is wrong"),
    "absent.zonemd": ("SERVFAIL", True,
                    "ZONEMD absent and that is not allowed by config"),
    "absentok.zonemd": ("NOERROR", False, None),
    "sgood.zonemd": ("NOERROR", False, None),
    "sbaddigest.zonemd": ("SERVFAIL", False, "incorrect digest"),
    "sbadsig.zonemd": ("SERVFAIL", False,
                     "DNSSEC verify failed for ZONEMD RRset"),
    "sabsent.zonemd": ("NOERROR", False, None),
    "sabsentrej.zonemd": ("SERVFAIL", True,
                        "ZONEMD absent and that is not allowed by config"),
}


@pytest.fixture(scope="module")
def zones(tmp_path_factory):
    """Each case's zone file, and the trust-anchor-file of the signed
    ones (their KSKs' DS)."""
    d = str(tmp_path_factory.mktemp("zonemd"))
    files, anchors = {}, []
    good = signzone(d, "good.zonemd", zone("good.zonemd"), "good.zone",
                    ["-Z", "-z", "1", "-z", "2"])
    files["good.zonemd"] = good
    one = open(signzone(d, "bad.zonemd", zone("bad.zonemd"), "bad.tmp",
                        ["-Z", "-z", "1"])).read()
    files["bad.zonemd"] = write(d, "bad.zone", flip_digest(one))
    ser = open(signzone(d, "serial.zonemd", zone("serial.zonemd"), "ser.tmp",
                        ["-Z", "-z", "1"])).read()
    files["serial.zonemd"] = write(d, "serial.zone", re.sub(
        r"ZONEMD\s+2024010101", "ZONEMD 2024010100", ser))
    files["absent.zonemd"] = write(d, "absent.zone", zone("absent.zonemd"))
    files["absentok.zonemd"] = write(d, "absentok.zone", zone("absentok.zonemd"))
    for name in ("sgood", "sbaddigest", "sbadsig", "sabsent", "sabsentrej"):
        origin = name + ".zonemd"
        keys, ds = keys_for(d, origin)
        anchors.append(ds)
        if name == "sbaddigest":
            # a wrong digest, validly signed: the digest check fails
            text = zone(origin, extra="@ IN ZONEMD 2024010101 1 1 " +
                        "ab" * 48 + "\n")
            path = signzone(d, origin, text, name + ".zone", keys=keys)
        elif name in ("sabsent", "sabsentrej"):
            path = signzone(d, origin, zone(origin), name + ".zone",
                            keys=keys)
        else:
            path = signzone(d, origin, zone(origin), name + ".zone",
                            ["-z", "1"], keys)
            if name == "sbadsig":
                # the digest changed after signing: the RRSIG fails
                with open(path) as f:
                    text = f.read()
                with open(path, "w") as f:
                    f.write(flip_digest(text))
        files[origin] = path
    ta = write(d, "anchors.ds", "".join(anchors))
    return files, ta


def conf(files, ta, permissive=False):
    body = 'module-config: "validator iterator"\n' \
        'access-control: 127.0.0.0/8 allow\n' \
        'trust-anchor-file: "%s"\n' % ta
    if permissive:
        body += "zonemd-permissive-mode: yes\n"
    extra = ""
    for name, (_, reject, _) in CASES.items():
        extra += ("auth-zone:\n\tname: \"%s\"\n\tzonefile: \"%s\"\n"
                  "\tzonemd-check: yes\n\tzonemd-reject-absence: %s\n"
                  "\tfor-downstream: yes\n\tfor-upstream: no\n" % (
                      name, files[name], "yes" if reject else "no"))
    return body, extra


def soa_rcodes(srv):
    out = {}
    for name in CASES:
        r = srv.query(name + ".", "SOA", timeout=3.0)
        out[name] = rcode_of(r)
    return out


@pytest.fixture(scope="module")
def servers(zones, tmp_path_factory):
    """Ours, ours with zonemd-permissive-mode, and Debian's Unbound."""
    files, ta = zones
    body, extra = conf(files, ta)
    pbody, _ = conf(files, ta, permissive=True)
    out = {"ours": Server(tmp_path_factory.mktemp("ours")),
           "permissive": Server(tmp_path_factory.mktemp("perm"))}
    if os.access(DEB_UNBOUND, os.X_OK) and not REFERENCE:
        out["ref"] = RefServer(tmp_path_factory.mktemp("ref"))
    try:
        for name, srv in out.items():
            srv.start(pbody if name == "permissive" else body, extra=extra,
                      verbosity=1)
        yield out
    finally:
        for srv in out.values():
            _finish(srv)


def test_zones_used_or_not(servers):
    """Each zone served (NOERROR) or not (SERVFAIL) as its ZONEMD says,
    and each failure logged with Unbound's line and reason."""
    got = soa_rcodes(servers["ours"])
    want = {n: c[0] for n, c in CASES.items()}
    assert got == want
    log = servers["ours"].output()
    for name, (_, _, reason) in CASES.items():
        line = "auth zone %s.: ZONEMD verification failed: " % name
        if reason:
            assert line + reason in log, (name, log)
        else:
            assert line not in log, (name, log)


def test_permissive_mode_logs_only(servers):
    """zonemd-permissive-mode: every zone served, the failures logged."""
    got = soa_rcodes(servers["permissive"])
    assert set(got.values()) == {"NOERROR"}, got
    assert "auth zone bad.zonemd.: ZONEMD verification failed: incorrect " \
        "digest" in servers["permissive"].output()


def test_side_by_side(servers):
    """Debian's Unbound 1.17 serves and refuses the same zones, with the
    same log lines."""
    if "ref" not in servers:
        pytest.skip("Debian's unbound is not installed")
    assert soa_rcodes(servers["ours"]) == soa_rcodes(servers["ref"])
    ours, ref = servers["ours"].output(), servers["ref"].log()
    pat = re.compile(r"auth zone \S+: ZONEMD verification failed: .*")
    assert sorted(pat.findall(ours)) == sorted(pat.findall(ref))


# -- after a transfer ------------------------------------------------------

def zonemd_line(tmp, serial, extra=(), bad=False):
    """The ZONEMD (SHA-384) of test_auth_xfr's zone at serial, as an
    extra record line for XfrPrimary."""
    text = zone_text(serial, refresh=1, retry=1, expire=600, extra=extra)
    path = signzone(tmp, "example.com", text, "x%d.zone" % serial,
                    ["-Z", "-z", "1"])
    with open(path) as f:
        m = re.search(r"\sZONEMD\s+(.*)", f.read())
    rdata = m.group(1).strip()
    if bad:
        rdata = flip_digest("ZONEMD " + rdata)[len("ZONEMD "):]
    return "@ IN ZONEMD " + rdata


def test_transfer_with_wrong_digest_not_taken(tmp_path):
    """A transferred version with a wrong digest is refused with a log
    line; the version served stays; the next good one is taken."""
    d = str(tmp_path)
    p = XfrPrimary(10, refresh=1, retry=1, expire=600)
    p.new_version(10, extra=[zonemd_line(d, 10)])
    (tmp_path / "ours").mkdir()
    srv = Server(tmp_path / "ours")
    try:
        srv.start("", extra="auth-zone:\n\tname: \"example.com\"\n"
                  "\tprimary: 127.0.0.1@%d\n\tzonemd-check: yes\n"
                  "\tfor-downstream: yes\n\tfor-upstream: no\n" % p.port,
                  verbosity=2)
        poll("serial 10", lambda: txt_answered(srv, 10))
        p.new_version(11, extra=[zonemd_line(d, 11, bad=True)])
        poll("the refusal logged", lambda: log_has(
            srv, "serial 11 refused, the version served stays"))
        assert "auth zone example.com.: ZONEMD verification failed: " \
            "incorrect digest" in srv.log()
        assert txt_answered(srv, 10) and not txt_answered(srv, 11)
        p.new_version(12, extra=[zonemd_line(d, 12)])
        poll("serial 12", lambda: txt_answered(srv, 12))
    finally:
        _finish(srv)
        p.close()


def test_auth_zone_reload_checks(zones, tmp_path):
    """unbound-control auth_zone_reload checks the ZONEMD of the file
    read again: a wrong digest, the zone is not used; the good file
    back, served again."""
    from conftest import free_port
    from test_control import ctl, rc_clause
    files, ta = zones
    zf = str(tmp_path / "good.zone")
    good = open(files["good.zonemd"]).read()
    with open(zf, "w") as f:
        f.write(good)
    (tmp_path / "o").mkdir()
    srv = Server(tmp_path / "o")
    port = free_port()
    try:
        srv.start('access-control: 127.0.0.0/8 allow\n',
                  extra="auth-zone:\n\tname: \"good.zonemd\"\n"
                  "\tzonefile: \"%s\"\n\tzonemd-check: yes\n" % zf +
                  rc_clause(None, port, use_cert=False), verbosity=1)
        assert rcode_of(srv.query("good.zonemd.", "SOA")) == "NOERROR"
        with open(zf, "w") as f:
            f.write(flip_digest(good, count=0))   # SHA-384 and SHA-512
        out = ctl(srv.conf, "auth_zone_reload", "good.zonemd")
        assert out.stdout == "ok\n", out
        assert rcode_of(srv.query("good.zonemd.", "SOA")) == "SERVFAIL"
        with open(zf, "w") as f:
            f.write(good)
        assert ctl(srv.conf, "auth_zone_reload", "good.zonemd").stdout \
            == "ok\n"
        assert rcode_of(srv.query("good.zonemd.", "SOA")) == "NOERROR"
    finally:
        _finish(srv)
