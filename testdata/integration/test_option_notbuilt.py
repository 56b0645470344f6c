# SPDX-License-Identifier: BSD-3-Clause
"""Options of features this daemon does not have (python, dynlib, ipset,
ipsecmod, dnscrypt, DNS over QUIC) and Unbound's obsolete options: taken
as an Unbound built without the feature takes them, side by side with
Debian's Unbound 1.17 (built without dynlib, ipset, ipsecmod, dnscrypt).

- a module-config: naming a module not built is refused by
  unbound-checkconf and at start;
- dnscrypt-enable: yes is refused at start, with Unbound's message
  (unbound-checkconf accepts it, as Unbound's);
- the other options start the daemon, have no effect and are not logged
  as "not implemented";
- the obsolete ones log what Unbound logs (dlv-anchor), or nothing."""
import os
import subprocess

import pytest

from conftest import (CHECKCONF_BIN, DEB_UNBOUND, REFERENCE, RefServer,
                      answer_texts, ours_only)

DEB_CHECKCONF = "/usr/sbin/unbound-checkconf"
have_debian = pytest.mark.skipif(
    not (os.access(DEB_UNBOUND, os.X_OK) and
         os.access(DEB_CHECKCONF, os.X_OK)),
    reason="Debian's unbound is not installed")

BASE = ('server:\n\tdirectory: ""\n\tchroot: ""\n\tusername: ""\n'
        '\tpidfile: ""\n')
DNSCRYPT_MSG = ("dnscrypt enabled in config but unbound was not built "
                "with dnscrypt support")

# not built here nor in Debian's Unbound; every one set off its default
NOT_BUILT_SERVER = (
    "\tipsecmod-enabled: no\n\tipsecmod-hook: /bin/true\n"
    "\tipsecmod-strict: yes\n\tipsecmod-max-ttl: 60\n"
    "\tipsecmod-ignore-bogus: yes\n\tipsecmod-allow: a.example.\n"
    "\tipsecmod-whitelist: b.example.\n")
NOT_BUILT_CLAUSES = (
    "dynlib:\n\tdynlib-file: /nonexistent/lib.so\n"
    "ipset:\n\tname-v4: set4\n\tname-v6: set6\n"
    "dnscrypt:\n\tdnscrypt-enable: no\n\tdnscrypt-port: 5443\n"
    "\tdnscrypt-provider: 2.dnscrypt-cert.example.\n"
    "\tdnscrypt-secret-key: /nonexistent/key\n"
    "\tdnscrypt-provider-cert: /nonexistent/cert\n"
    "\tdnscrypt-provider-cert-rotated: /nonexistent/old\n"
    "\tdnscrypt-shared-secret-cache-size: 1m\n"
    "\tdnscrypt-shared-secret-cache-slabs: 2\n"
    "\tdnscrypt-nonce-cache-size: 1m\n\tdnscrypt-nonce-cache-slabs: 2\n")
# names Unbound 1.17 does not know (1.22: DNS over QUIC); python: is
# built into Debian's
OURS_NOT_BUILT_SERVER = "\tquic-port: 8853\n\tquic-size: 16m\n"
OURS_NOT_BUILT_CLAUSES = "python:\n\tpython-script: /nonexistent/x.py\n"
NOT_BUILT = (NOT_BUILT_SERVER + OURS_NOT_BUILT_SERVER + NOT_BUILT_CLAUSES +
             OURS_NOT_BUILT_CLAUSES)


def checkconf(binary, tmp_path, text):
    conf = tmp_path / "c.conf"
    conf.write_text(text)
    r = subprocess.run([binary, str(conf)], capture_output=True, text=True,
                       timeout=30, stdin=subprocess.DEVNULL)
    return r.returncode, r.stdout + r.stderr


def refused_start(srv, body, extra=""):
    """Start srv with body (and extra clauses); it must exit non-zero by
    itself. Its output."""
    rc, out = srv.start_expecting_exit(body, extra=extra)
    assert rc not in (None, 0), "started:\n" + out
    return out


@pytest.mark.parametrize("module", ["dynlib", "ipset", "ipsecmod"])
def test_module_not_built_refused(unbound, tmp_path, module):
    """compat: unbound-1.17: a module-config naming a module not built
    is refused by unbound-checkconf and by the daemon at start (Unbound
    1.17's checkconf: "module_conf lists module 'X' but that module is
    not available"; its daemon and 1.26: "This module is not present")."""
    body = 'module-config: "%s validator iterator"' % module
    rc, out = checkconf(CHECKCONF_BIN, tmp_path, BASE + "\t" + body + "\n")
    assert rc != 0 and "'%s'" % module in out, out
    out = refused_start(unbound, body)
    assert "'%s'" % module in out, out
    if not REFERENCE:
        assert "This module is not present (not compiled in)" in out, out


@ours_only
def test_python_module_not_built_refused(unbound, tmp_path):
    """python is a module Debian builds; here it is not: refused."""
    body = 'module-config: "python validator iterator"'
    rc, out = checkconf(CHECKCONF_BIN, tmp_path, BASE + "\t" + body + "\n")
    assert rc != 0 and "module: 'python'. This module is not present" \
        in out, out
    out = refused_start(unbound, body)
    assert "module: 'python'. This module is not present" in out, out


@have_debian
def test_dnscrypt_enable_refused_as_debian(unbound, tmp_path):
    """compat: unbound-1.17: dnscrypt-enable: yes without dnscrypt stops
    the start with Unbound's message, as Debian's (built without)."""
    body = "dnscrypt:\n\tdnscrypt-enable: yes\n\tdnscrypt-port: 5443\n"
    out = refused_start(unbound, "", body)
    assert DNSCRYPT_MSG in out, out
    (tmp_path / "ref").mkdir()
    ref = RefServer(tmp_path / "ref")
    try:
        out = refused_start(ref, "", body)
    finally:
        ref.stop()
    assert DNSCRYPT_MSG in out, out


@have_debian
def test_checkconf_accepts_dnscrypt_enable(tmp_path):
    """compat: unbound-1.17: unbound-checkconf accepts it, as Debian's
    (only the daemon refuses)."""
    text = BASE + "dnscrypt:\n\tdnscrypt-enable: yes\n"
    for binary in (CHECKCONF_BIN, DEB_CHECKCONF):
        rc, out = checkconf(binary, tmp_path, text)
        assert rc == 0, out


def test_not_built_options_start_silently(unbound):
    """The options of the features not built start the daemon, which
    answers, and none is logged as not implemented."""
    body, extra = NOT_BUILT_SERVER, NOT_BUILT_CLAUSES
    if not REFERENCE:
        body += OURS_NOT_BUILT_SERVER
        extra += OURS_NOT_BUILT_CLAUSES
    unbound.start('local-data: "nb.test. A 192.0.2.7"\n' + body,
                  extra=extra)
    assert answer_texts(unbound.query("nb.test.", "A")) == [
        "nb.test. A 192.0.2.7"]
    out = unbound.output()
    assert "not implemented" not in out, out


@ours_only
def test_not_built_values_printed(tmp_path):
    """unbound-checkconf -o prints a not-built option's value (as
    Unbound's does for the options it stores without the feature)."""
    conf = tmp_path / "c.conf"
    conf.write_text(BASE + NOT_BUILT)
    for opt, want in (("quic-port", "8853"), ("name-v4", "set4"),
                      ("python-script", "/nonexistent/x.py"),
                      ("dnscrypt-port", "5443"), ("ipsecmod-strict", "yes"),
                      ("dnscrypt-enable", "no")):
        r = subprocess.run([CHECKCONF_BIN, "-o", opt, str(conf)],
                           capture_output=True, text=True, timeout=30,
                           stdin=subprocess.DEVNULL)
        assert r.returncode == 0 and r.stdout == want + "\n", (opt, r)


OBSOLETE = ("\tinfra-lame-ttl: 900\n\tinfra-cache-lame-size: 10k\n"
            "\tlow-rtt: 45\n\tdlv-anchor-file: /nonexistent/dlv.key\n"
            '\tdlv-anchor: "dlv.isc.org. DNSKEY 257 3 5 AQ=="\n')


def obsolete_notes(text):
    return sorted(l.split("warning: ", 1)[1] for l in text.splitlines()
                  if "warning:" in l)


@have_debian
def test_obsolete_options_say_what_unbound_says(tmp_path):
    """compat: unbound-1.17: accepted with any value; dlv-anchor and
    dlv-anchor-file logged as DLV decommissioned, the others silent (at
    the default verbosity), the same lines as Debian's checkconf."""
    rc, ours = checkconf(CHECKCONF_BIN, tmp_path, BASE + OBSOLETE)
    assert rc == 0, ours
    rc, deb = checkconf(DEB_CHECKCONF, tmp_path, BASE + OBSOLETE)
    assert rc == 0, deb
    want = ["option dlv-anchor ignored: DLV is decommissioned",
            "option dlv-anchor-file ignored: DLV is decommissioned"]
    assert obsolete_notes(deb) == want, deb
    assert obsolete_notes(ours) == want, ours
    assert "not implemented" not in ours, ours


@have_debian
def test_fake_sha1_warns_as_debian(tmp_path):
    """compat: unbound-1.17: the test options say they are on."""
    for opt in ("fake-sha1", "fake-dsa"):
        text = BASE + "\t%s: yes\n" % opt
        rc, ours = checkconf(CHECKCONF_BIN, tmp_path, text)
        assert rc == 0, ours
        rc, deb = checkconf(DEB_CHECKCONF, tmp_path, text)
        assert rc == 0, deb
        want = ["test option %s is enabled" % opt.replace("-", "_")]
        assert obsolete_notes(ours) == want, ours
        assert obsolete_notes(deb) == want, deb
