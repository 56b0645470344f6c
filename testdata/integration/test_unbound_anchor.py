# SPDX-License-Identifier: BSD-3-Clause
"""unbound-anchor against a loopback HTTPS server and the signed test
internet: the built-in anchors, the RFC 7958 update with its S/MIME
check, every failure leaving the old file as it was, the "anchor is ok"
probe, and the same runs with Debian's /usr/sbin/unbound-anchor.

Nothing leaves loopback: DNS goes to -r root hints naming a 127.x
address where nothing listens (or the signed test internet's root), and
HTTPS to a server this test starts on 127.0.0.1 (-u 127.0.0.1)."""
import datetime
import http.server
import os
import shutil
import ssl
import subprocess
import threading
import time

import pytest

from conftest import BUILDDIR, CHECKCONF_BIN
from testnet.net import pick_prefix
from testnet.fixture import signednet_net  # noqa: E402,F401

crypto = pytest.importorskip("cryptography")
from cryptography import x509  # noqa: E402
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import rsa  # noqa: E402
from cryptography.x509.oid import NameOID  # noqa: E402

OURS = os.path.join(BUILDDIR, "unbound-anchor")
HTTPS_NAME = "anchors.test."
DEBIAN = "/usr/sbin/unbound-anchor"
SIGNER = "dnssec@test.example"
NOW = datetime.datetime.now(datetime.timezone.utc)
DAY = datetime.timedelta(days=1)

BUILTIN = [
    ". IN DS 20326 8 2 E06D44B80B8F1D39A95C0B0D7C65D08458E880409BBC68345"
    "7104237C7F8EC8D",
    ". IN DS 38696 8 2 683D2D0ACB8C9B712A1948B27F741219298D0A450D612C483"
    "AF444A4C0FB2B16"]
NEW_DS = ". IN DS 4242 8 2 " + "AB" * 32
OLD_DS = ". IN DS 1111 8 2 " + "CD" * 32
LATER_DS = ". IN DS 3333 8 2 " + "EF" * 32


def xml_doc(keys):
    """root-anchors.xml (RFC 7958) with keys [(tag, digest, from, until)]."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<TrustAnchor id="test" source="https://127.0.0.1/">',
           '<Zone>.</Zone>']
    for tag, digest, vfrom, until in keys:
        attrs = ' id="k%d" validFrom="%s"' % (tag, vfrom.strftime(
            "%Y-%m-%dT%H:%M:%S+00:00"))
        if until:
            attrs += ' validUntil="%s"' % until.strftime(
                "%Y-%m-%dT%H:%M:%S+00:00")
        out += ['<KeyDigest%s>' % attrs, '<KeyTag>%d</KeyTag>' % tag,
                '<Algorithm>8</Algorithm>', '<DigestType>2</DigestType>',
                '<Digest>%s</Digest>' % digest, '</KeyDigest>']
    out.append('</TrustAnchor>')
    return ("\n".join(out) + "\n").encode()


GOOD_XML = xml_doc([
    (1111, "CD" * 32, NOW - 900 * DAY, NOW - 10 * DAY),   # expired
    (4242, "AB" * 32, NOW - 30 * DAY, None),              # valid
    (3333, "EF" * 32, NOW + 30 * DAY, None)])             # not yet


def _key():
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _cert(subject, key, issuer, issuer_key, ca, not_before, not_after,
          email=None):
    attrs = [x509.NameAttribute(NameOID.COMMON_NAME, subject)]
    if email:
        attrs.append(x509.NameAttribute(NameOID.EMAIL_ADDRESS, email))
    name = x509.Name(attrs)
    b = (x509.CertificateBuilder().subject_name(name)
         .issuer_name(issuer or name).public_key(key.public_key())
         .serial_number(x509.random_serial_number())
         .not_valid_before(not_before).not_valid_after(not_after)
         .add_extension(x509.BasicConstraints(ca=ca, path_length=None),
                        critical=True)
         .add_extension(x509.KeyUsage(
             digital_signature=not ca, content_commitment=False,
             key_encipherment=False, data_encipherment=False,
             key_agreement=False, key_cert_sign=ca, crl_sign=ca,
             encipher_only=False, decipher_only=False), critical=True))
    return b.sign(issuer_key or key, hashes.SHA256())


def _write_pem(path, cert=None, key=None):
    with open(path, "wb") as f:
        if cert is not None:
            f.write(cert.public_bytes(serialization.Encoding.PEM))
        if key is not None:
            f.write(key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.TraditionalOpenSSL,
                serialization.NoEncryption()))


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    """A test CA (the -c certificate), a signer it issued, an expired
    signer, a second CA nobody trusts and its signer, a TLS server key."""
    d = tmp_path_factory.mktemp("anchor_pki")
    ca_key, other_key = _key(), _key()
    ca = _cert("Test Root CA", ca_key, None, None, True, NOW - 10 * DAY,
               NOW + 3650 * DAY)
    other = _cert("Other CA", other_key, None, None, True, NOW - 10 * DAY,
                  NOW + 3650 * DAY)
    files = {"ca": str(d / "ca.pem")}
    _write_pem(files["ca"], ca)
    for name, issuer, ikey, nb, na in (
            ("signer", ca, ca_key, NOW - DAY, NOW + 365 * DAY),
            ("expired", ca, ca_key, NOW - 400 * DAY, NOW - 30 * DAY),
            ("stranger", other, other_key, NOW - DAY, NOW + 365 * DAY)):
        k = _key()
        c = _cert(name, k, issuer.subject, ikey, False, nb, na, SIGNER)
        files[name] = str(d / (name + ".pem"))
        _write_pem(files[name], c, k)
    tls_key = _key()
    tls = _cert("127.0.0.1", tls_key, None, None, False, NOW - DAY,
                NOW + 30 * DAY)
    files["tls"] = str(d / "tls.pem")
    _write_pem(files["tls"], tls, tls_key)
    files["dir"] = str(d)
    return files


def smime_sign(pki, data, signer="signer"):
    """A detached PKCS#7 signature (DER) over data, by openssl smime."""
    d = pki["dir"]
    src = os.path.join(d, "tosign.xml")
    out = os.path.join(d, "sig.p7s")
    with open(src, "wb") as f:
        f.write(data)
    subprocess.run(["openssl", "smime", "-sign", "-binary", "-in", src,
                    "-signer", pki[signer], "-outform", "DER", "-out", out],
                   check=True, capture_output=True)
    with open(out, "rb") as f:
        return f.read()


class _Handler(http.server.BaseHTTPRequestHandler):
    files = {}

    def do_GET(self):
        body = self.files.get(self.path)
        mode = "length"
        if isinstance(body, tuple):
            mode, body = body
        if body is None:
            self.send_error(404)
            return
        self.send_response(200)
        if mode == "chunked":
            # HTTP/1.1 chunks of 100 bytes
            self.protocol_version = "HTTP/1.1"
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Connection", "close")
            self.end_headers()
            for i in range(0, len(body), 100):
                part = body[i:i + 100]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            self.wfile.write(b"0\r\n\r\n")
        elif mode == "badchunk":
            # a chunk that claims more than comes, then the close
            self.protocol_version = "HTTP/1.1"
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b"%x\r\n%s" % (len(body) + 4096, body))
        elif mode == "short":
            # promises more than it sends, then closes
            self.send_header("Content-Length", str(len(body) + 100))
            self.end_headers()
            self.wfile.write(body)
        elif mode == "close":
            # no length at all: the body ends when the connection does
            self.end_headers()
            self.wfile.write(body)
        else:
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def https(pki):
    """A loopback HTTPS server; set https.files[path] = bytes per test."""
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(pki["tls"])
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    srv.files = _Handler.files
    yield srv
    srv.shutdown()
    srv.server_close()


@pytest.fixture
def request_cleanup():
    """Directories to remove after the test."""
    dirs = []
    yield dirs
    for d in dirs:
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="module")
def dead_hints(tmp_path_factory):
    """Root hints naming a loopback address where nothing listens."""
    d = tmp_path_factory.mktemp("anchor_hints")
    addr = pick_prefix(53, hosts=[1]) + ".1"
    path = str(d / "root.hints")
    with open(path, "w") as f:
        f.write(". 3600 IN NS a.root.test.\n"
                "a.root.test. 3600 IN A %s\n" % addr)
    return path


@pytest.fixture(scope="module")
def refusing_hints(tmp_path_factory):
    """Root hints naming a loopback server that answers every query
    REFUSED at once (the probe fails fast; a dead address costs the
    probe its 2 s timeout), except the A record of HTTPS_NAME:
    127.0.0.1, for -u with a name."""
    import socket
    d = tmp_path_factory.mktemp("anchor_refusing")
    addr = pick_prefix(53, hosts=[1]) + ".1"
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind((addr, 53))
    sock.settimeout(0.2)
    running = [True]

    def serve_refused():
        import dns.message
        import dns.rcode
        import dns.rrset
        while running[0]:
            try:
                data, peer = sock.recvfrom(4096)
            except socket.timeout:
                continue
            except OSError:
                return
            try:
                q = dns.message.from_wire(data)
            except Exception:
                continue
            r = dns.message.make_response(q)
            name = q.question[0].name.to_text().lower() if q.question \
                else ""
            if name == HTTPS_NAME and q.question[0].rdtype == 1:
                # the one name it knows: the HTTPS server's
                r.answer.append(dns.rrset.from_text(
                    HTTPS_NAME, 60, "IN", "A", "127.0.0.1"))
            elif name != HTTPS_NAME:
                r.set_rcode(dns.rcode.REFUSED)
            sock.sendto(r.to_wire(), peer)

    t = threading.Thread(target=serve_refused, daemon=True)
    t.start()
    path = str(d / "root.hints")
    with open(path, "w") as f:
        f.write(". 3600 IN NS a.root.test.\n"
                "a.root.test. 3600 IN A %s\n" % addr)
    yield path
    running[0] = False
    t.join(2)
    sock.close()


def refusing_hints_addr(path):
    with open(path) as f:
        return [l.split()[-1] for l in f if l.split()[-2:-1] == ["A"]][0]


def run(binary, anchor, hints, pki=None, https=None, extra=(),
        timeout=120):
    args = [binary, "-a", anchor, "-r", hints, "-4"]
    if https is not None:
        args += ["-u", "127.0.0.1", "-P", str(https.server_address[1]),
                 "-x", "/root-anchors.xml", "-s", "/root-anchors.p7s",
                 "-c", pki["ca"], "-n", SIGNER]
    r = subprocess.run(args + list(extra), capture_output=True,
                       text=True, timeout=timeout)
    assert "Sanitizer" not in r.stderr, r.stderr
    return r


def records(path):
    with open(path) as f:
        return sorted(line.strip() for line in f
                      if line.strip() and not line.startswith(";"))


def serve(https, pki, xml, p7s=None):
    https.files.clear()
    https.files["/root-anchors.xml"] = xml
    https.files["/root-anchors.p7s"] = (p7s if p7s is not None
                                        else smime_sign(pki, xml))


def test_list_builtin():
    r = subprocess.run([OURS, "-l"], capture_output=True, text=True)
    assert r.returncode == 0
    for ds in BUILTIN:
        assert ds in r.stdout
    assert "-----BEGIN CERTIFICATE-----" in r.stdout


def test_builtin_written_when_missing(tmp_path, dead_hints):
    anchor = str(tmp_path / "root.key")
    r = run(OURS, anchor, dead_hints)
    assert r.returncode == 1, r
    assert records(anchor) == sorted(BUILTIN)
    # now present: nothing reachable, nothing written, exit 0
    before = open(anchor).read()
    r = run(OURS, anchor, dead_hints)
    assert r.returncode == 0, r
    assert open(anchor).read() == before


def test_builtin_written_when_empty_or_garbage(tmp_path, refusing_hints):
    anchor = tmp_path / "root.key"
    anchor.write_text("; only a comment\n\n")
    assert run(OURS, str(anchor), refusing_hints).returncode == 1
    assert records(str(anchor)) == sorted(BUILTIN)
    anchor.write_text("this is not a record\n")
    assert run(OURS, str(anchor), refusing_hints).returncode == 1
    assert records(str(anchor)) == sorted(BUILTIN)


def test_revoked_left_alone(tmp_path, refusing_hints):
    anchor = tmp_path / "root.key"
    text = "; autotrust trust anchor file\n;;REVOKED\n;;id: . 1\n"
    anchor.write_text(text)
    assert run(OURS, str(anchor), refusing_hints).returncode == 0
    assert anchor.read_text() == text


def test_good_update(tmp_path, pki, https, refusing_hints):
    serve(https, pki, GOOD_XML)
    anchor = tmp_path / "root.key"
    anchor.write_text(BUILTIN[0] + "\n")
    r = run(OURS, str(anchor), refusing_hints, pki, https, ["-F"])
    assert r.returncode == 1, r
    assert records(str(anchor)) == [NEW_DS]
    assert anchor.read_text().startswith("; created by unbound-anchor on ")
    # no temporary files left next to it
    assert os.listdir(str(tmp_path)) == ["root.key"]


def test_update_keeps_owner_and_mode(tmp_path, pki, https,
                                    refusing_hints):
    """The file is replaced by rename: the new one gets the old one's
    mode and, when run as root, its owner (the daemon's user must still
    be able to write its RFC 5011 updates)."""
    serve(https, pki, GOOD_XML)
    anchor = tmp_path / "root.key"
    anchor.write_text(BUILTIN[0] + "\n")
    os.chmod(str(anchor), 0o640)
    owner = (65534, 65534) if os.geteuid() == 0 else (os.geteuid(),
                                                      os.getegid())
    os.chown(str(anchor), *owner)
    r = run(OURS, str(anchor), refusing_hints, pki, https, ["-F"])
    assert r.returncode == 1, r
    st = os.stat(str(anchor))
    assert (st.st_uid, st.st_gid, st.st_mode & 0o7777) == owner + (0o640,)
    assert records(str(anchor)) == [NEW_DS]


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"),
                    reason="needs root and setpriv to run as nobody")
def test_update_in_place_when_dir_not_writable(pki, https, refusing_hints,
                                               request_cleanup):
    """A user who may write the file but not its directory (nobody's
    file under a root-owned directory): rewritten in place, as Unbound
    does, instead of failing for want of a temporary file."""
    import tempfile
    serve(https, pki, GOOD_XML)
    # outside pytest's 0700 tree, so nobody can reach it
    top = tempfile.mkdtemp(prefix="anchor-inplace-", dir="/tmp")
    request_cleanup.append(top)
    os.chmod(top, 0o755)
    d = os.path.join(top, "root_owned")
    os.mkdir(d, 0o755)
    anchor = os.path.join(d, "root.key")
    with open(anchor, "w") as f:
        f.write(BUILTIN[0] + "\n")
    os.chown(anchor, 65534, 65534)
    ca = shutil.copy(pki["ca"], top)
    hints = shutil.copy(refusing_hints, top)
    for p in (ca, hints):
        os.chmod(p, 0o644)
    args = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
            OURS, "-a", anchor, "-r", hints, "-4", "-F",
            "-u", "127.0.0.1", "-P", str(https.server_address[1]),
            "-x", "/root-anchors.xml", "-s", "/root-anchors.p7s",
            "-c", ca, "-n", SIGNER]
    r = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, r
    assert records(anchor) == [NEW_DS]
    assert os.listdir(d) == ["root.key"]


@pytest.mark.parametrize("checkconf", [CHECKCONF_BIN,
                                       "/usr/sbin/unbound-checkconf"],
                         ids=["ours", "debian"])
def test_written_files_load(tmp_path, pki, https, refusing_hints,
                            checkconf):
    """What unbound-anchor writes (the built-in anchors, the XML's DS)
    is a good auto-trust-anchor-file for this daemon and Debian's
    Unbound: their unbound-checkconf reads the anchors."""
    if not os.access(checkconf, os.X_OK):
        pytest.skip("%s is not installed" % checkconf)
    builtin = tmp_path / "builtin.key"
    assert run(OURS, str(builtin), refusing_hints).returncode == 1
    serve(https, pki, GOOD_XML)
    updated = tmp_path / "updated.key"
    updated.write_text(BUILTIN[0] + "\n")
    assert run(OURS, str(updated), refusing_hints, pki, https,
               ["-F"]).returncode == 1
    for key in (builtin, updated):
        conf = tmp_path / "check.conf"
        conf.write_text('server:\n\tauto-trust-anchor-file: "%s"\n'
                        '\troot-hints: "%s"\n\tchroot: ""\n'
                        '\tusername: ""\n' % (key, refusing_hints))
        r = subprocess.run([checkconf, str(conf)], capture_output=True,
                           text=True, timeout=30)
        assert r.returncode == 0, (key.read_text(), r)


def test_zero_valid_keys_writes_revoked(tmp_path, pki, https,
                                       refusing_hints):
    serve(https, pki, xml_doc([(1111, "CD" * 32, NOW - 900 * DAY,
                                NOW - DAY)]))
    anchor = tmp_path / "root.key"
    anchor.write_text(BUILTIN[0] + "\n")
    r = run(OURS, str(anchor), refusing_hints, pki, https, ["-F"])
    assert r.returncode == 1, r
    assert ";;REVOKED" in anchor.read_text()


FAILURES = {
    # name: (xml served, signature maker, words the error must have)
    "bad_signature": (GOOD_XML, lambda pki: smime_sign(
        pki, GOOD_XML.replace(b"4242", b"4243")), "signature failed"),
    "untrusted_signer": (GOOD_XML, lambda pki: smime_sign(
        pki, GOOD_XML, "stranger"), "signature failed"),
    "expired_certificate": (GOOD_XML, lambda pki: smime_sign(
        pki, GOOD_XML, "expired"), "expired"),
    "truncated_xml_signed": (GOOD_XML[:len(GOOD_XML) // 2], None,
                             "root-anchors.xml"),
    "truncated_xml_unsigned": (GOOD_XML[:len(GOOD_XML) // 2],
                               lambda pki: smime_sign(pki, GOOD_XML),
                               "signature failed"),
    "garbage_p7s": (GOOD_XML, lambda pki: b"\x30\x03abc", "PKCS7"),
}


@pytest.mark.parametrize("case", sorted(FAILURES))
def test_failure_leaves_file(tmp_path, pki, https, refusing_hints, case):
    xml, sig, words = FAILURES[case]
    serve(https, pki, xml, sig(pki) if sig else None)
    anchor = tmp_path / "root.key"
    text = "; the old anchor\n" + BUILTIN[1] + "\n"
    anchor.write_text(text)
    r = run(OURS, str(anchor), refusing_hints, pki, https, ["-F"])
    assert r.returncode == 0, r
    assert anchor.read_text() == text
    assert words in r.stderr, r.stderr
    assert "left unchanged" in r.stderr
    assert os.listdir(str(tmp_path)) == ["root.key"]


@pytest.mark.parametrize("mode", ["chunked", "close"])
def test_http_framings(tmp_path, pki, https, refusing_hints, mode):
    """The body by chunks, or up to the close, is read whole."""
    sig = smime_sign(pki, GOOD_XML)
    https.files.clear()
    https.files["/root-anchors.xml"] = (mode, GOOD_XML)
    https.files["/root-anchors.p7s"] = (mode, sig)
    anchor = tmp_path / "root.key"
    anchor.write_text(BUILTIN[0] + "\n")
    r = run(OURS, str(anchor), refusing_hints, pki, https, ["-F"])
    assert r.returncode == 1, r
    assert records(str(anchor)) == [NEW_DS]


def test_https_failures(tmp_path, pki, https, refusing_hints):
    anchor = tmp_path / "root.key"
    anchor.write_text(BUILTIN[0] + "\n")
    https.files.clear()                       # 404 for both
    r = run(OURS, str(anchor), refusing_hints, pki, https, ["-F"])
    assert r.returncode == 0 and "HTTP status 404" in r.stderr, r
    # a body cut short of its Content-Length
    https.files["/root-anchors.xml"] = ("short", GOOD_XML)
    https.files["/root-anchors.p7s"] = smime_sign(pki, GOOD_XML)
    r = run(OURS, str(anchor), refusing_hints, pki, https, ["-F"])
    assert r.returncode == 0 and "cut short" in r.stderr, r
    https.files["/root-anchors.xml"] = ("badchunk", GOOD_XML)
    r = run(OURS, str(anchor), refusing_hints, pki, https, ["-F"])
    assert r.returncode == 0 and "chunked body cut short" in r.stderr, r
    # nothing listening on the port
    r = subprocess.run(
        [OURS, "-a", str(anchor), "-r", refusing_hints, "-4", "-F",
         "-u", "127.0.0.1", "-P", "1", "-c", pki["ca"]],
        capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "could not connect" in r.stderr, r
    assert records(str(anchor)) == [BUILTIN[0]]


def test_server_name_resolved(tmp_path, pki, https, refusing_hints):
    """-u with a name: its A record asked of the -f servers (here a
    loopback responder that knows only that name)."""
    serve(https, pki, GOOD_XML)
    rc = tmp_path / "resolv.conf"
    rc.write_text("nameserver %s\n" % refusing_hints_addr(refusing_hints))
    anchor = tmp_path / "root.key"
    for name, code, words in (("anchors.test", 1, ""),
                              ("unknown.test", 0, "cannot resolve")):
        anchor.write_text(BUILTIN[0] + "\n")
        r = subprocess.run(
            [OURS, "-a", str(anchor), "-f", str(rc), "-r", refusing_hints,
             "-4", "-F", "-u", name, "-P", str(https.server_address[1]),
             "-x", "/root-anchors.xml", "-s", "/root-anchors.p7s",
             "-c", pki["ca"], "-n", SIGNER], capture_output=True,
            text=True, timeout=60)
        assert r.returncode == code and words in r.stderr, (name, r)
        assert records(str(anchor)) == ([NEW_DS] if code else
                                        [BUILTIN[0]])


def test_signer_name_checked(tmp_path, pki, https, refusing_hints):
    serve(https, pki, GOOD_XML)
    anchor = tmp_path / "root.key"
    anchor.write_text(BUILTIN[0] + "\n")
    r = run(OURS, str(anchor), refusing_hints, pki, https,
            ["-F", "-n", "someone@else.example"])
    assert r.returncode == 0 and "emailAddress" in r.stderr, r
    assert records(str(anchor)) == [BUILTIN[0]]
    # -n "": any signer name will do
    r = run(OURS, str(anchor), refusing_hints, pki, https,
            ["-F", "-n", ""])
    assert r.returncode == 1, r
    assert records(str(anchor)) == [NEW_DS]


def test_anchor_ok_against_signed_root(tmp_path, signednet_net):
    """The anchor file's DS signs the signed test root's DNSKEY set: the
    anchor is ok (exit 0, file untouched); a DS of another key is not,
    and with no 30-day-old probe and no reachable HTTPS server it stays
    as it is (exit 0)."""
    anchor = tmp_path / "root.key"
    shutil.copy(signednet_net.anchor, str(anchor))
    before = anchor.read_text()
    r = run(OURS, str(anchor), signednet_net.root_hints, extra=["-v"])
    assert r.returncode == 0, r
    assert "success: the anchor is ok" in r.stdout, r.stdout
    assert anchor.read_text() == before
    anchor.write_text(BUILTIN[0] + "\n")
    r = run(OURS, str(anchor), signednet_net.root_hints,
            extra=["-v", "-u", "127.0.0.1", "-P", "1"])
    assert r.returncode == 0, r
    assert "not secure" in r.stdout
    assert records(str(anchor)) == [BUILTIN[0]]


def root_ksk(net):
    """The signed test root's KSK (the key of net.anchor's DS) as text."""
    import dns.dnssec
    import dns.rdatatype
    r = net.query("root", ".", "DNSKEY")
    keys = [rr for rrset in r.answer if rrset.rdtype ==
            dns.rdatatype.DNSKEY for rr in rrset]
    tag = int(open(net.anchor).read().split()[4])
    ksk = [k for k in keys if dns.dnssec.key_id(k) == tag]
    assert ksk, "no key with the anchor's tag %d" % tag
    return ". 3600 IN DNSKEY %s" % ksk[0].to_text()


@pytest.mark.parametrize("state,ok", [
    ("2 [  VALID  ]", True), ("3 [ MISSING ]", True),
    ("1 [ ADDPEND ]", False), ("4 [ REVOKED ]", False),
    ("5 [ REMOVED ]", False)])
def test_autotrust_state_file(tmp_path, signednet_net, state, ok):
    """An RFC 5011 state file as Unbound writes it: only VALID and
    MISSING keys count as the anchor."""
    anchor = tmp_path / "root.key"
    anchor.write_text(
        "; autotrust trust anchor file\n;;id: . 1\n"
        ";;last_queried: 1700000000 ;;Tue Nov 14 22:13:20 2023\n"
        ";;last_success: %d ;;recent\n;;next_probe_time: 1700003600\n"
        "%s ;{id = 1 (ksk), size = 2048b} ;;state=%s ;;count=0 "
        ";;lastchange=1700000000 ;;Tue Nov 14 22:13:20 2023\n"
        % (int(time.time()), root_ksk(signednet_net), state))
    before = anchor.read_text()
    r = run(OURS, str(anchor), signednet_net.root_hints, extra=["-v"])
    assert r.returncode == 0, r
    assert ("success: the anchor is ok" in r.stdout) == ok, r.stdout
    assert anchor.read_text() == before


def test_30_day_rule(tmp_path, signednet_net, pki, https):
    """The root answers (NOERROR) but the file's keys do not sign its
    DNSKEY set: the XML is fetched only when the last successful RFC 5011
    probe is 30 days old or more (or absent), as Unbound."""
    serve(https, pki, GOOD_XML)
    anchor = tmp_path / "root.key"
    now = int(time.time())
    for last, updated in ((None, True), (now - 3600, False),
                          (now - 31 * 86400, True)):
        text = BUILTIN[0] + "\n"
        if last is not None:
            text = ";;last_success: %d ;;x\n" % last + text
        anchor.write_text(text)
        r = run(OURS, str(anchor), signednet_net.root_hints, pki, https,
                ["-v"])
        assert r.returncode == (1 if updated else 0), (last, r)
        assert (records(str(anchor)) == [NEW_DS]) == updated, last
        if not updated:
            assert "the last successful probe is recent" in r.stdout
            assert anchor.read_text() == text


def test_servers_from_resolv_conf_and_config(tmp_path, signednet_net,
                                             refusing_hints):
    """-f: the servers of a resolv.conf (here the signed root itself,
    which answers its DNSKEY set with RD set too); -R: when those fail,
    the root hints; -C: a config's forward-zone for "." or its
    root-hints:."""
    net = signednet_net
    root = [l.split()[-1] for l in open(net.root_hints)
            if l.split()[-2:-1] == ["A"]][0]
    anchor = tmp_path / "root.key"
    shutil.copy(net.anchor, str(anchor))
    good_rc = tmp_path / "good.resolv.conf"
    good_rc.write_text("nameserver %s\n" % root)
    dead = [l.split()[-1] for l in open(refusing_hints)
            if l.split()[-2:-1] == ["A"]][0]
    dead_rc = tmp_path / "dead.resolv.conf"
    dead_rc.write_text("nameserver %s\n" % dead)

    def go(*args):
        r = subprocess.run([OURS, "-a", str(anchor), "-4", "-vv"] +
                           list(args), capture_output=True, text=True,
                           timeout=60)
        assert r.returncode == 0, r
        assert "Sanitizer" not in r.stderr, r.stderr
        return r.stdout

    assert "anchor is ok" in go("-f", str(good_rc), "-r", refusing_hints)
    assert "anchor is ok" not in go("-f", str(dead_rc), "-r",
                                    refusing_hints)
    out = go("-f", str(dead_rc), "-R", "-r", net.root_hints)
    assert "retrying direct" in out and "anchor is ok" in out
    fwd = tmp_path / "fwd.conf"
    fwd.write_text('server:\n\troot-hints: "%s"\nforward-zone:\n'
                   '\tname: "."\n\tforward-addr: %s\n' % (refusing_hints,
                                                           root))
    assert "anchor is ok" in go("-C", str(fwd))
    hints = tmp_path / "hints.conf"
    hints.write_text('server:\n\troot-hints: "%s"\n' % net.root_hints)
    assert "anchor is ok" in go("-C", str(hints))
    bad = tmp_path / "bad.conf"
    bad.write_text("server:\n\tno-such-option: 1\n")
    r = subprocess.run([OURS, "-a", str(anchor), "-C", str(bad)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "cannot read the config" in r.stderr, r


@pytest.mark.skipif(not os.path.exists(DEBIAN),
                    reason="Debian's unbound-anchor is not installed "
                    "(apt-get install unbound-anchor)")
def test_same_as_debian(tmp_path, pki, https, refusing_hints):
    """Debian's unbound-anchor and ours, same arguments, same server:
    the same exit codes and the same records in the file (the comment
    line has the time). The runs go in parallel."""
    serve(https, pki, GOOD_XML)
    cases = {"missing": None, "update": "-F"}
    procs = {}
    for name, flag in cases.items():
        for who, binary in (("ours", OURS), ("debian", DEBIAN)):
            d = tmp_path / ("%s_%s" % (name, who))
            d.mkdir()
            anchor = d / "root.key"
            if flag:
                anchor.write_text(BUILTIN[0] + "\n")
            args = [binary, "-a", str(anchor), "-r", refusing_hints, "-4",
                    "-u", "127.0.0.1", "-P", str(https.server_address[1]),
                    "-x", "/root-anchors.xml", "-s", "/root-anchors.p7s",
                    "-c", pki["ca"], "-n", SIGNER] + ([flag] if flag else [])
            procs[(name, who)] = (subprocess.Popen(
                args, stdout=subprocess.PIPE, stderr=subprocess.PIPE),
                anchor)
    results = {}
    for key, (p, anchor) in procs.items():
        p.communicate(timeout=120)
        results[key] = (p.returncode, records(str(anchor)))
    assert results[("update", "ours")] == (1, [NEW_DS])
    assert results[("update", "ours")] == results[("update", "debian")]
    # Debian 1.17.1 has only KSK-2017 built in; ours also KSK-2024
    assert results[("missing", "ours")] == (1, sorted(BUILTIN))
    assert results[("missing", "debian")] == (1, [BUILTIN[0]])
    with open(procs[("update", "ours")][1]) as f:
        first = f.readline()
    with open(procs[("update", "debian")][1]) as f:
        assert f.readline().split(" on ")[0] == first.split(" on ")[0]
