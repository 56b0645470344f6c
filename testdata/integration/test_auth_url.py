# SPDX-License-Identifier: BSD-3-Clause
"""auth-zone url: (Unbound 1.17): the zone file downloaded over HTTP and
HTTPS (the server's certificate verified with tls-cert-bundle) from a
loopback server the test starts (python3's http.server, with ssl for
HTTPS; stopped by PID), served, and downloaded again on the SOA refresh
timer when it changes. Bad responses (404, a body cut short, one larger
than max-transfer-size, a certificate the bundle does not vouch for)
get a clear log line and the zone is not served. Side by side with
Debian's Unbound 1.17 for the good downloads. The User-Agent header
(http-user-agent, hide-http-user-agent) as the server saw it."""
import os
import re
import subprocess
import sys

import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from conftest import (DEB_UNBOUND, REFERENCE, UNBOUND_BIN,  # noqa
                      RefServer, Server, _finish, answer_texts, rcode_of)
from test_auth_xfr import poll  # noqa: E402

SERVER = r'''
import http.server, os, socketserver, ssl, sys
root, cert, key, ualog = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
os.chdir(root)

class H(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_GET(self):
        with open(ualog, "a") as f:
            f.write("%s\t%s\n" % (self.path,
                                   self.headers.get("User-Agent", "(none)")))
        if self.path == "/truncated":
            self.send_response(200)
            self.send_header("Content-Length", "5000")
            self.end_headers()
            self.wfile.write(b"$TTL 300\n@ IN SOA ns1 host 1 1 1 600 300\n")
            self.wfile.flush()
            self.close_connection = True
            return
        return super().do_GET()

class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True

plain = S(("127.0.0.1", 0), H)
tls = S(("127.0.0.1", 0), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
tls.socket = ctx.wrap_socket(tls.socket, server_side=True)
print(plain.server_address[1], tls.server_address[1], flush=True)
import threading
threading.Thread(target=tls.serve_forever, daemon=True).start()
plain.serve_forever()
'''


def zone_text(origin, serial, big=False):
    text = ("$ORIGIN %s.\n$TTL 300\n"
            "@ IN SOA ns1 host %d 1 1 600 300\n@ IN NS ns1\n"
            "ns1 IN A 127.0.0.1\nwww IN A 192.0.2.%d\n"
            "serial IN TXT \"v%d\"\n" % (origin, serial, serial % 250 + 1,
                                         serial))
    if big:
        text += "".join("big%d IN TXT \"%s\"\n" % (i, "x" * 200)
                        for i in range(20))
    return text


def write(d, name, text):
    tmp = os.path.join(d, name + ".tmp")
    with open(tmp, "w") as f:
        f.write(text)
    os.rename(tmp, os.path.join(d, name))


def self_signed_cert(d):
    """A certificate and key in folder d for IP 127.0.0.1 (the web
    servers' TLS; the certificate is also the resolver's CA bundle)."""
    cert, key = os.path.join(d, "cert.pem"), os.path.join(d, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec",
                    "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-keyout", key, "-out", cert, "-days", "2",
                    "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    return cert, key


@pytest.fixture(scope="module")
def web(tmp_path_factory):
    """The loopback HTTP and HTTPS servers, their files and the CA
    bundle (a self-signed certificate for IP 127.0.0.1)."""
    d = str(tmp_path_factory.mktemp("web"))
    root = os.path.join(d, "root")
    os.mkdir(root)
    cert, key = self_signed_cert(d)
    for name in ("plain.urlzone", "tls.urlzone", "ua-default.urlzone",
                 "ua-set.urlzone", "ua-hidden.urlzone", "ua-ref.urlzone"):
        write(root, name, zone_text(name, 1))
    write(root, "big.urlzone", zone_text("big.urlzone", 1, big=True))
    script = os.path.join(d, "server.py")
    with open(script, "w") as f:
        f.write(SERVER)
    ualog = os.path.join(d, "user-agents.log")
    proc = subprocess.Popen(["/usr/bin/python3", script, root, cert, key,
                             ualog], stdout=subprocess.PIPE, text=True)
    try:
        ports = proc.stdout.readline().split()
        assert len(ports) == 2, "the web server did not start"
        yield {"root": root, "cert": cert, "http": int(ports[0]),
               "https": int(ports[1]), "ualog": ualog}
    finally:
        proc.terminate()
        proc.wait(10)


def auth(name, url, extra=()):
    lines = ["auth-zone:", '\tname: "%s"' % name, "\turl: %s" % url,
             "\tfor-downstream: yes", "\tfor-upstream: no"]
    return "\n".join(lines + ["\t" + e for e in extra]) + "\n"


def good_zones(web):
    return (auth("plain.urlzone", "http://127.0.0.1:%d/plain.urlzone" %
                 web["http"]) +
            auth("tls.urlzone", "https://127.0.0.1:%d/tls.urlzone" %
                 web["https"]))


def bad_zones(web):
    return (auth("missing.urlzone", "http://127.0.0.1:%d/nothere.zone" %
                 web["http"]) +
            auth("cut.urlzone", "http://127.0.0.1:%d/truncated" %
                 web["http"]) +
            auth("big.urlzone", "http://127.0.0.1:%d/big.urlzone" %
                 web["http"], ["max-transfer-size: 1k"]))


def ua_zone(web, name):
    """A zone downloaded over HTTPS from a path of its own, so the
    User-Agent the server saw for that path is one daemon's."""
    return auth(name + ".urlzone", "https://127.0.0.1:%d/%s.urlzone" %
                (web["https"], name))


def user_agents(web, name):
    """The User-Agent headers of the requests for NAME.urlzone so far
    ("(none)": no header)."""
    try:
        with open(web["ualog"]) as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    return [l.split("\t", 1)[1] for l in lines
            if l.split("\t", 1)[0] == "/%s.urlzone" % name]


def served(srv, name, serial):
    try:
        r = srv.query("serial.%s." % name, "TXT", timeout=0.5)
    except Exception:
        return False
    return rcode_of(r) == "NOERROR" and '"v%d"' % serial in \
        " ".join(answer_texts(r))


@pytest.fixture(scope="module")
def ours(web, tmp_path_factory):
    srv = Server(tmp_path_factory.mktemp("ours"))
    srv.start('tls-cert-bundle: "%s"\n' % web["cert"],
              extra=good_zones(web) + bad_zones(web) +
              ua_zone(web, "ua-default"), verbosity=1)
    yield srv
    _finish(srv)


def test_http_and_https_downloads(web, ours):
    """Both zones downloaded and served; a new version on the server
    is downloaded on the SOA refresh timer (1 s)."""
    poll("plain.urlzone", lambda: served(ours, "plain.urlzone", 1))
    poll("tls.urlzone", lambda: served(ours, "tls.urlzone", 1))
    write(web["root"], "plain.urlzone", zone_text("plain.urlzone", 2))
    poll("plain.urlzone serial 2", lambda: served(ours, "plain.urlzone", 2))


@pytest.mark.parametrize("name,why", [
    ("missing.urlzone", "HTTP status 404"),
    ("cut.urlzone", "truncated: "),
    ("big.urlzone", "larger than the limit of 1024 bytes"),
])
def test_bad_responses(ours, name, why):
    """Each bad response logged with its reason; the zone not served."""
    poll("the %s error" % name, lambda: ("auth zone %s.: download from"
                                          % name) in ours.output() and
         why in ours.output())
    r = ours.query("serial.%s." % name, "TXT", timeout=2)
    assert rcode_of(r) == "SERVFAIL"


def test_certificate_not_in_bundle(web, tmp_path):
    """Without the bundle that vouches for the server, HTTPS fails the
    certificate check; the zone is not served."""
    (tmp_path / "o").mkdir()
    srv = Server(tmp_path / "o")
    try:
        srv.start("", extra=auth("tls.urlzone",
                                 "https://127.0.0.1:%d/tls.urlzone" %
                                 web["https"]), verbosity=1)
        poll("the certificate error", lambda: "certificate verify failed"
             in srv.output())
        assert not served(srv, "tls.urlzone", 1)
    finally:
        _finish(srv)


def test_user_agent(web, ours, tmp_path):
    """compat: unbound-1.17: the package's NAME/VERSION by default,
    http-user-agent's text when set, no header with
    hide-http-user-agent: yes (which wins over http-user-agent)."""
    version = subprocess.run([UNBOUND_BIN, "-V"], capture_output=True,
                             text=True).stdout.split()[1]
    poll("ua-default.urlzone", lambda: served(ours, "ua-default.urlzone", 1))
    agents = user_agents(web, "ua-default")
    assert agents and all(re.fullmatch(r"[\w.-]+/" + re.escape(version), a)
                          for a in agents), agents
    for name, body, want in (
            ("ua-set", 'http-user-agent: "resolver-test/2.5 (ops)"',
             "resolver-test/2.5 (ops)"),
            ("ua-hidden", 'hide-http-user-agent: yes\n'
             'http-user-agent: "not-sent"', "(none)")):
        (tmp_path / name).mkdir()
        srv = Server(tmp_path / name)
        try:
            srv.start('tls-cert-bundle: "%s"\n%s\n' % (web["cert"], body),
                      extra=ua_zone(web, name), verbosity=1)
            poll(name, lambda: served(srv, name + ".urlzone", 1))
            assert set(user_agents(web, name)) == {want}
        finally:
            _finish(srv)


def test_side_by_side(web, ours, tmp_path):
    """Debian's Unbound 1.17 downloads the same zones (HTTP and HTTPS
    with the bundle) and answers the same."""
    if REFERENCE or not os.access(DEB_UNBOUND, os.X_OK):
        pytest.skip("Debian's unbound is not installed")
    (tmp_path / "r").mkdir()
    ref = RefServer(tmp_path / "r")
    try:
        ref.start('tls-cert-bundle: "%s"\n' % web["cert"],
                  extra=good_zones(web) + ua_zone(web, "ua-ref"),
                  verbosity=1)
        for name in ("plain.urlzone", "tls.urlzone"):
            poll("ref " + name, lambda: answer_texts(ref.query(
                "www.%s." % name, "A", timeout=1)) != [])
            a = ours.query("www.%s." % name, "A")
            b = ref.query("www.%s." % name, "A")
            assert (rcode_of(a), answer_texts(a)) == \
                (rcode_of(b), answer_texts(b))
        # Unbound's default User-Agent is its package name and version
        poll("ref ua-ref.urlzone", lambda: user_agents(web, "ua-ref"))
        assert all(re.fullmatch(r"unbound/1\.\d+\.\d+", a)
                   for a in user_agents(web, "ua-ref"))
    finally:
        _finish(ref)
