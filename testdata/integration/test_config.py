# SPDX-License-Identifier: BSD-3-Clause
"""Command line, config errors and unbound-checkconf."""
import os
import subprocess
import time

import pytest

from conftest import (CHECKCONF_BIN, UNBOUND_BIN, answer_texts,
                      sockets_on_port)

BAD = [
    # name, offending line (written into server:), message fragment
    ("unknown-option", "no-such-option: yes", None),
    ("bad-yes-no", "do-ip4: maybe", None),
    ("bad-number", "num-threads: abc", None),
    ("missing-include", "include: /nonexistent/unbound-itest.conf",
     "/nonexistent/unbound-itest.conf"),
    # module-config: checked by the daemon and unbound-checkconf (not
    # the parser), still naming file and line; Unbound's texts
    ("module-not-compiled-in",
     'module-config: "ipsecmod validator iterator"',
     "module-config: Unknown value in module-config, module: "
     "'ipsecmod'. "
     "This module is not present (not compiled in)"),
    ("module-unknown", 'module-config: "validator nosuch iterator"',
     "module: 'nosuch'. This module is not present"),
    ("modules-too-many", 'module-config: "%siterator"' % ("validator " * 16),
     "too many modules (17 max 16)"),
    ("iterator-not-last", 'module-config: "iterator validator"',
     "the iterator must be the last module"),
]


def run(args, timeout=30):
    return subprocess.run(args, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("case", BAD, ids=[c[0] for c in BAD])
def test_config_error_exits_nonzero(unbound, case):
    name, line, fragment = case
    unbound.write_config("local-data: \"a.test. A 192.0.2.1\"\n" + line)
    lineno = unbound.config_line(line)
    res = run(unbound.run_args(["-d"]))
    out = res.stderr + res.stdout + unbound.log()
    assert res.returncode != 0, out
    assert "%s:%d" % (unbound.conf, lineno) in out, out
    if fragment:
        assert fragment in out
    # nothing was left listening on the port
    assert sockets_on_port(unbound.port, "udp") == []
    assert sockets_on_port(unbound.port, "tcp") == []


def test_config_error_without_d(unbound):
    """Also without -d (do-daemonize: no): no fork, error, non-zero."""
    unbound.write_config("num-threads: abc")
    res = run(unbound.run_args([]))
    assert res.returncode != 0
    assert "%s:%d" % (unbound.conf, unbound.config_line("abc")) in \
        res.stderr + res.stdout + unbound.log()


def test_error_in_included_file_names_that_file(unbound, tmp_path):
    inc = tmp_path / "included.conf"
    inc.write_text("server:\n\tverbosity: 1\n\tnum-threads: lots\n")
    unbound.write_config("include: \"%s\"" % inc)
    res = run(unbound.run_args(["-d"]))
    assert res.returncode != 0
    assert "%s:3" % inc in res.stderr + res.stdout + unbound.log()


def test_include_works(unbound, tmp_path):
    inc = tmp_path / "included.conf"
    inc.write_text('server:\n\tlocal-data: "inc.test. A 192.0.2.9"\n')
    unbound.start('include: "%s"' % inc)
    assert answer_texts(unbound.query("inc.test.", "A")) == [
        "inc.test. A 192.0.2.9"]


def test_version_flag():
    res = run([UNBOUND_BIN, "-V"])
    assert res.returncode == 0
    assert "Version" in res.stdout


def test_help_flag():
    res = run([UNBOUND_BIN, "-h"])
    out = res.stdout + res.stderr
    assert "-c file" in out and "-d" in out and "-v" in out


def test_unknown_flag():
    res = run([UNBOUND_BIN, "-Z"])
    assert res.returncode != 0
    assert "usage" in (res.stdout + res.stderr).lower()


def test_verbose_flags(unbound):
    # -v raises verbosity; the daemon starts as usual
    unbound.start('local-data: "v.test. A 192.0.2.5"', args=("-d", "-v", "-v"))
    assert answer_texts(unbound.query("v.test.", "A")) == [
        "v.test. A 192.0.2.5"]


# -- unbound-checkconf -----------------------------------------------------

def test_checkconf_good(unbound):
    unbound.write_config('local-data: "a.test. A 192.0.2.1"', threads=2)
    res = run([CHECKCONF_BIN, unbound.conf])
    assert res.returncode == 0, res.stderr
    assert "no errors in %s" % unbound.conf in res.stdout


@pytest.mark.parametrize("case", BAD, ids=[c[0] for c in BAD])
def test_checkconf_bad(unbound, case):
    name, line, fragment = case
    unbound.write_config(line)
    res = run([CHECKCONF_BIN, unbound.conf])
    assert res.returncode != 0
    out = res.stdout + res.stderr
    assert "%s:%d" % (unbound.conf, unbound.config_line(line)) in out, out
    if fragment:
        assert fragment in out, out


def test_sixteen_modules_start(unbound):
    """Unbound's limit: 16 modules are accepted (15 validators and the
    iterator, silly but legal), by unbound-checkconf and the daemon."""
    body = 'module-config: "%siterator"\nlocal-data: "m.test. A 192.0.2.4"' \
        % ("validator " * 15)
    unbound.write_config(body)
    res = run([CHECKCONF_BIN, unbound.conf])
    assert res.returncode == 0, res.stderr
    unbound.start(body)
    assert answer_texts(unbound.query("m.test.", "A")) == [
        "m.test. A 192.0.2.4"]


def test_checkconf_option(unbound):
    unbound.write_config("so-reuseport: no", threads=2)
    res = run([CHECKCONF_BIN, "-o", "num-threads", unbound.conf])
    assert res.returncode == 0, res.stderr
    assert res.stdout == "2\n"
    res = run([CHECKCONF_BIN, "-o", "port", unbound.conf])
    assert res.stdout == "%d\n" % unbound.port
    res = run([CHECKCONF_BIN, "-o", "so-reuseport", unbound.conf])
    assert res.stdout == "no\n"


def test_checkconf_unknown_option_name(unbound):
    unbound.write_config("")
    res = run([CHECKCONF_BIN, "-o", "no-such-option", unbound.conf])
    assert res.returncode != 0


def test_checkconf_does_not_listen(unbound):
    unbound.write_config("")
    res = run([CHECKCONF_BIN, unbound.conf])
    assert res.returncode == 0
    time.sleep(0.1)
    assert sockets_on_port(unbound.port, "udp") == []
    assert not os.path.exists(unbound.pidfile)


# compat: unbound-1.17: the old names Unbound still takes for server
# options: each sets what its main name sets (read back with -o MAIN),
# checked on this build and on Debian's unbound-checkconf.
ALIASES = [
    ("ssl-upstream", "tls-upstream", "yes"),
    ("ssl-port", "tls-port", "8853"),
    ("ssl-service-key", "tls-service-key", "/nonexistent/alias.key"),
    ("ssl-service-pem", "tls-service-pem", "/nonexistent/alias.pem"),
    ("ssl-cert-bundle", "tls-cert-bundle", "/nonexistent/alias.ca"),
    ("additional-ssl-port", "tls-additional-port", "9953"),
    ("additional-tls-port", "tls-additional-port", "9954"),
    ("tls-additional-ports", "tls-additional-port", "9955"),
    ("low-rtt-permil", "fast-server-permil", "400"),
    ("low-rtt-pct", "fast-server-permil", "300"),
]
DEB_CHECKCONF = "/usr/sbin/unbound-checkconf"


@pytest.mark.parametrize("which", ["ours", "reference"])
@pytest.mark.parametrize("alias,main,value", ALIASES,
                         ids=[a[0] for a in ALIASES])
def test_alias_sets_the_main_option(tmp_path, which, alias, main, value):
    binary = CHECKCONF_BIN if which == "ours" else DEB_CHECKCONF
    if not os.access(binary, os.X_OK):
        pytest.skip("Debian's unbound-checkconf is not installed")
    conf = tmp_path / "alias.conf"
    conf.write_text("server:\n\t%s: %s\n" % (alias, value))
    res = run([binary, "-o", main, str(conf)])
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == [value]
