# SPDX-License-Identifier: BSD-3-Clause
"""rpz: with url: (Unbound 1.17): the response policy zone downloaded
over HTTP and HTTPS (tls-cert-bundle vouches for the server) from a
loopback server the test starts (test_auth_url's python3 http.server,
stopped by PID), its triggers applied, the zone file written, and a new
serial on the server applied after the SOA refresh timer (1 s), polled.
A download that fails (404) is logged and the zone applies no triggers.
Side by side with Debian's Unbound 1.17 on the same config.

The zones: rpz.example over HTTP ("blockedN" NXDOMAIN, "www" local data
A 192.0.2.N+1 for serial N), tls.rpz.example over HTTPS ("tlsblocked"
NODATA). A name no trigger covers is a stub zone on an Upstream, whose
answer is "192.0.2.253"."""
import os
import subprocess
import sys

import dns.rcode
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from conftest import (DEB_UNBOUND, REFERENCE, RefServer, Server,  # noqa
                      Upstream, _finish, answer_texts)
from test_auth_url import SERVER, self_signed_cert, write  # noqa: E402
from test_auth_xfr import poll  # noqa: E402

pytestmark = [
    pytest.mark.skipif(REFERENCE, reason="compares this build with "
                       "Debian's Unbound itself"),
]

BODY = 'module-config: "respip iterator"\n'
NAMES = ["www", "free", "tlsblocked", "missed"] + \
    ["blocked%d" % i for i in range(1, 4)]
RECURSED = "192.0.2.253"


def rpz_text(origin, serial):
    return ("$ORIGIN %s.\n$TTL 300\n"
            "@ IN SOA ns1 host %d 1 1 600 300\n@ IN NS ns1\n"
            "blocked%d IN CNAME .\nwww IN A 192.0.2.%d\n"
            "tlsblocked IN CNAME *.\nmissed IN CNAME .\n"
            % (origin, serial, serial, serial + 1))


@pytest.fixture(scope="module")
def web(tmp_path_factory):
    """HTTP and HTTPS on loopback serving the RPZ zones, and the CA
    bundle (a self-signed certificate for IP 127.0.0.1)."""
    d = str(tmp_path_factory.mktemp("web"))
    root = os.path.join(d, "root")
    os.mkdir(root)
    cert, key = self_signed_cert(d)
    write(root, "rpz.zone", rpz_text("rpz.example", 1))
    # the HTTPS zone has only its NODATA trigger
    write(root, "tls.zone", "$ORIGIN tls.rpz.example.\n$TTL 300\n"
          "@ IN SOA ns1 host 1 3600 600 86400 300\n@ IN NS ns1\n"
          "tlsblocked IN CNAME *.\n")
    script = os.path.join(d, "server.py")
    with open(script, "w") as f:
        f.write(SERVER)
    # (the server's fourth argument: where it logs User-Agent headers)
    proc = subprocess.Popen(["/usr/bin/python3", script, root, cert, key,
                             os.path.join(d, "user-agents.log")],
                            stdout=subprocess.PIPE, text=True)
    try:
        ports = proc.stdout.readline().split()
        assert len(ports) == 2, "the web server did not start"
        yield {"root": root, "cert": cert, "http": int(ports[0]),
               "https": int(ports[1])}
    finally:
        proc.terminate()
        proc.wait(10)


def rpz_conf(web, zonefile=None, missing=False):
    out = ""
    zones = [("rpz.example", "http://127.0.0.1:%d/rpz.zone" % web["http"]),
             ("tls.rpz.example", "https://127.0.0.1:%d/tls.zone" %
              web["https"])]
    if missing:
        zones = [("rpz.example", "http://127.0.0.1:%d/nothere.zone" %
                  web["http"])]
    for name, url in zones:
        out += 'rpz:\n\tname: "%s"\n\turl: %s\n' % (name, url)
        if zonefile and name == "rpz.example":
            out += '\tzonefile: "%s"\n' % zonefile
    return out


def start(srv, web, up, extra):
    srv.start(BODY + 'tls-cert-bundle: "%s"\n' % web["cert"],
              extra=extra + up.stub_zone(*NAMES), verbosity=1)
    return srv


def look(srv, name, rdtype="A"):
    """(rcode text, answer texts) for name, or None without a reply."""
    try:
        r = srv.query(name, rdtype, timeout=1)
    except Exception:
        return None
    return dns.rcode.to_text(r.rcode()), answer_texts(r)


def applies(srv, serial):
    """Do serial's triggers answer (blockedN NXDOMAIN, www's data)?"""
    b = look(srv, "blocked%d." % serial)
    w = look(srv, "www.")
    return b is not None and b[0] == "NXDOMAIN" and w is not None and \
        any(("192.0.2.%d" % (serial + 1)) in t for t in w[1])


@pytest.fixture(scope="module")
def setup(web, tmp_path_factory):
    up = Upstream()
    srv = Server(tmp_path_factory.mktemp("ours"))
    zf = os.path.join(srv.dir, "rpz.zone")
    try:
        start(srv, web, up, rpz_conf(web, zonefile=zf))
        yield srv, zf
    finally:
        _finish(srv)
        up.close()


def test_downloaded_triggers_apply(setup):
    """HTTP and HTTPS downloads: the triggers of both zones apply; a
    name no trigger covers is resolved."""
    srv, _ = setup
    poll("serial 1's triggers", lambda: applies(srv, 1))
    poll("the HTTPS zone's NODATA", lambda: look(srv, "tlsblocked.") ==
         ("NOERROR", []))
    assert look(srv, "free.") == ("NOERROR", ["free. A " + RECURSED])


def test_zonefile_written(setup):
    srv, zf = setup
    poll("the zone file to be written",
         lambda: os.path.exists(zf) and "blocked1" in open(zf).read())


def test_failed_download_logged(web, tmp_path):
    """A 404: logged with the zone's name; no trigger applies."""
    up = Upstream()
    (tmp_path / "o").mkdir()
    srv = Server(tmp_path / "o")
    try:
        start(srv, web, up, rpz_conf(web, missing=True))
        poll("the download error", lambda: "auth zone rpz.example.: "
             "download from" in srv.output() and "HTTP status 404" in
             srv.output())
        assert look(srv, "missed.") == ("NOERROR",
                                        ["missed. A " + RECURSED])
    finally:
        _finish(srv)
        up.close()


def test_side_by_side(web, setup, tmp_path):
    """Debian's Unbound 1.17 downloads the same zones and answers the
    same (rcode and answer section)."""
    if not os.access(DEB_UNBOUND, os.X_OK):
        pytest.skip("Debian's unbound is not installed")
    srv, _ = setup
    up = Upstream()
    (tmp_path / "r").mkdir()
    ref = RefServer(tmp_path / "r")
    try:
        start(ref, web, up, rpz_conf(web))
        poll("ref: serial 1's triggers", lambda: applies(ref, 1))
        poll("ref: the HTTPS zone", lambda: look(ref, "tlsblocked.") ==
             ("NOERROR", []))
        poll("ours: serial 1's triggers", lambda: applies(srv, 1))
        for name in ("blocked1.", "www.", "tlsblocked.", "free.",
                     "missed."):
            assert look(srv, name) == look(ref, name), name
    finally:
        _finish(ref)
        up.close()


def test_new_serial_applied_after_refresh(web, setup):
    """(Last: the server keeps serial 2.) A new version on the server: its new trigger applies after the
    SOA refresh (1 s), the old one no longer does."""
    srv, _ = setup
    poll("serial 1's triggers", lambda: applies(srv, 1))
    write(web["root"], "rpz.zone", rpz_text("rpz.example", 2))
    poll("serial 2's triggers", lambda: applies(srv, 2))
    assert look(srv, "blocked1.") == ("NOERROR",
                                      ["blocked1. A " + RECURSED])
