# SPDX-License-Identifier: BSD-3-Clause
"""Trust anchor configuration: unbound-checkconf and the daemon accept
good anchor files (Debian's /usr/share/dns/root.key from dns-root-data,
Unbound's RFC 5011 state file, BIND trusted-keys) and refuse a broken
one naming its file and line, at start and at SIGHUP (where the old
config keeps serving). unbound-checkconf -o prints the validator's
options as Debian's unbound-checkconf does."""
import os
import shutil
import signal
import subprocess
import time

import pytest

from conftest import (CHECKCONF_BIN, START_TIMEOUT, answer_texts,
                      ours_only, reference_differs, sockets_on_port)

DEBIAN_ROOT_KEY = "/usr/share/dns/root.key"
DEB_CHECKCONF = "/usr/sbin/unbound-checkconf"
LOCAL = 'local-data: "www.ta.test. A 192.0.2.1"'

KSK = ("AwEAAaz/tAm8yTn4Mfeh5eyI96WSVexTBAvkMgJzkKTOiW1vkIbzxeF3+/4RgWOq7Hrx"
       "RixHlFlExOLAJr5emLvN7SWXgnLh4+B5xQlNVz8Og8kvArMtNROxVQuCaSnIDdD5LKyW"
       "bRd2n9WGe2R8PzgCmr3EgVLrjyBxWezF0jLHwVN8efS3rCj/EWgvIWgb9tarpVUDK/b5"
       "8Da+sqqls3eNbuv7pr+eoZG+SrDK6nWeL3c6H5Apxz7LjVc1uTIdsIXxuOLYA4/ilBmS"
       "VIzuDWfdRUfhHdY6+cn8HFRm+2hM8AnXGXws9555KrUB5qihylGa8subX2Nn6UwNR1Ak"
       "UTV74bU=")
DS = ("20326 8 2 E06D44B80B8F1D39A95C0B0D7C65D08458E880409BBC683457104237C7"
      "F8EC8D")

# Unbound 1.17's auto-trust-anchor-file after a probe, as on a Debian
# system in /var/lib/unbound/root.key
AUTOTRUST = (
    "; autotrust trust anchor file\n;;id: . 1\n"
    ";;last_queried: 1700000000 ;;Tue Nov 14 22:13:20 2023\n"
    ";;last_success: 1700000000 ;;Tue Nov 14 22:13:20 2023\n"
    ";;next_probe_time: 1700040000 ;;Wed Nov 15 09:20:00 2023\n"
    ";;query_failed: 0\n;;query_interval: 43200\n;;retry_time: 8640\n"
    ".\t172800\tIN\tDNSKEY\t257 3 8 %s ;{id = 20326 (ksk), size = 2048b} "
    ";;state=2 [  VALID  ] ;;count=0 ;;lastchange=1502290617 "
    ";;Wed Aug  9 14:56:57 2017\n" % KSK)

BIND_KEYS = ('trust-anchors {\n\t. initial-ds %s;\n};\n'
             'trusted-keys {\n\t"example.net." 257 3 8 "%s";\n};\n'
             % (DS, KSK))   # (trust-anchors is ignored, as by Unbound)


def run(args, timeout=30):
    return subprocess.run(args, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return str(path)


def wait_for(cond, timeout, step=0.05):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if cond():
            return True
        time.sleep(step)
    return cond()


def good_sources(tmp_path):
    """(config line, what) for each good anchor source."""
    srcs = [
        ('auto-trust-anchor-file: "%s"' %
         write(tmp_path / "auto.key", AUTOTRUST), "autotrust state file"),
        ('trusted-keys-file: "%s"' % write(tmp_path / "bind.keys", BIND_KEYS),
         "BIND trusted-keys"),
        ('trust-anchor: ". DS %s"' % DS, "trust-anchor line"),
        ('trust-anchor-file: "%s"' %
         write(tmp_path / "zone.key", "$ORIGIN .\n@ IN DS %s\n"
               "example.com. 3600 IN DNSKEY 257 3 8 ( %s ) ; c\n" % (DS, KSK)),
         "zone file"),
    ]
    if os.path.exists(DEBIAN_ROOT_KEY):
        srcs.append(('trust-anchor-file: "%s"' % DEBIAN_ROOT_KEY,
                     "Debian root.key"))
        # Debian's unbound starts from a copy of it as its autotrust file
        shutil.copy(DEBIAN_ROOT_KEY, tmp_path / "root.key")
        srcs.append(('auto-trust-anchor-file: "%s"' % (tmp_path / "root.key"),
                     "Debian root.key as autotrust file"))
    return srcs


# (file text, line of the error, message fragment)
BROKEN = {
    "zone-syntax": ("; the root\n. IN DS %s\n\n. IN DS 1 8 2 nothex\n" % DS,
                    4, None),
    "class-mismatch": (". IN DS %s\n. CH DS %s\n" % (DS, DS), 2, "class"),
    "autotrust-bad-key": (AUTOTRUST + ". 172800 IN DNSKEY 257 3 ;;state=2\n",
                          10, None),
}


def test_checkconf_accepts_good_anchors(unbound, tmp_path):
    for line, what in good_sources(tmp_path):
        unbound.write_config(LOCAL + "\n" + line +
                             "\ndomain-insecure: corp.example.")
        res = run([CHECKCONF_BIN, unbound.conf])
        assert res.returncode == 0, (what, res.stdout, res.stderr)
        assert "no errors" in res.stdout, what


@reference_differs("it names the line after a broken record, accepts a "
                   "class mix and skips a bad autotrust line")
@pytest.mark.parametrize("case", sorted(BROKEN))
def test_checkconf_refuses_broken_anchor_file(unbound, tmp_path, case):
    text, line, fragment = BROKEN[case]
    key = write(tmp_path / "broken.key", text)
    opt = ("auto-trust-anchor-file" if case.startswith("autotrust")
           else "trust-anchor-file")
    unbound.write_config(LOCAL + '\n%s: "%s"' % (opt, key))
    res = run([CHECKCONF_BIN, unbound.conf])
    out = res.stdout + res.stderr
    assert res.returncode != 0, out
    assert "%s:%d:" % (key, line) in out, out
    if fragment:
        assert fragment in out, out
    assert "no errors" not in out


@reference_differs("its messages differ")
def test_checkconf_refuses_missing_file_and_bad_anchor(unbound, tmp_path):
    missing = str(tmp_path / "nonexistent.key")
    unbound.write_config(LOCAL + '\ntrust-anchor-file: "%s"' % missing)
    res = run([CHECKCONF_BIN, unbound.conf])
    assert res.returncode != 0
    assert missing in res.stderr + res.stdout
    unbound.write_config(LOCAL + '\ntrust-anchor: "example. IN A 192.0.2.1"')
    res = run([CHECKCONF_BIN, unbound.conf])
    assert res.returncode != 0
    assert "not a DS or DNSKEY" in res.stderr + res.stdout
    bind = write(tmp_path / "b.keys", 'trusted-keys {\n\n\texample. 257 3 8'
                 ' "%s"\n};\n' % KSK)
    unbound.write_config(LOCAL + '\ntrusted-keys-file: "%s"' % bind)
    res = run([CHECKCONF_BIN, unbound.conf])
    assert res.returncode != 0
    assert "%s:4:" % bind in res.stderr + res.stdout


def test_daemon_starts_with_good_anchors(unbound, tmp_path):
    lines = "\n".join(l for l, _ in good_sources(tmp_path)
                      if "auto-trust" not in l)
    unbound.start(LOCAL + "\n" + lines + "\ndomain-insecure: corp.example.")
    assert answer_texts(unbound.query("www.ta.test.")) == [
        "www.ta.test. A 192.0.2.1"]


@reference_differs("Unbound reads anchors in its validator, which the "
                   "harness leaves out for the reference")
@pytest.mark.parametrize("case", sorted(BROKEN))
def test_daemon_refuses_broken_anchor_file(unbound, tmp_path, case):
    text, line, fragment = BROKEN[case]
    key = write(tmp_path / "broken.key", text)
    opt = ("auto-trust-anchor-file" if case.startswith("autotrust")
           else "trust-anchor-file")
    unbound.write_config(LOCAL + '\n%s: "%s"' % (opt, key))
    res = run(unbound.run_args(["-d"]))
    out = res.stderr + res.stdout + unbound.log()
    assert res.returncode != 0, out
    assert "%s:%d:" % (key, line) in out, out
    assert sockets_on_port(unbound.port, "udp") == []
    assert sockets_on_port(unbound.port, "tcp") == []


@reference_differs("a broken config at reload is fatal to the daemon")
def test_reload_with_broken_anchor_file_keeps_old(unbound, tmp_path):
    key = write(tmp_path / "root.key", ". IN DS %s\n" % DS)
    unbound.start(LOCAL + '\ntrust-anchor-file: "%s"' % key)
    pid = unbound.pid
    # break the file; the new config also changes the answer
    write(tmp_path / "root.key", ". IN DS %s\n. IN DNSKEY 257 3 8 !!\n" % DS)
    unbound.write_config('local-data: "www.ta.test. A 192.0.2.2"\n'
                         'trust-anchor-file: "%s"' % key)
    unbound.send_signal(signal.SIGHUP)
    assert wait_for(lambda: "%s:2:" % key in unbound.output(), 10), \
        unbound.output()
    assert unbound.alive() and unbound.pid == pid
    assert answer_texts(unbound.query("www.ta.test.")) == [
        "www.ta.test. A 192.0.2.1"]
    assert "still serving the previous configuration" in unbound.output()
    # fixed: the next HUP takes the new config
    write(tmp_path / "root.key", ". IN DS %s\n" % DS)
    unbound.send_signal(signal.SIGHUP)
    assert wait_for(lambda: answer_texts(unbound.query("www.ta.test.")) ==
                    ["www.ta.test. A 192.0.2.2"], START_TIMEOUT), \
        unbound.output()


OPTIONS_CONF = """server:
\tval-override-date: 20240102030405
\tval-sig-skew-min: 100
\tval-sig-skew-max: 200
\tval-max-restart: 3
\tval-bogus-ttl: 30
\tval-clean-additional: no
\tval-permissive-mode: yes
\tignore-cd-flag: yes
\tval-log-level: 2
\tval-nsec3-keysize-iterations: "1024 100 2048 200"
\tkey-cache-size: 8m
\tkey-cache-slabs: 2
\tharden-algo-downgrade: yes
\tharden-dnssec-stripped: no
\tede: yes
\ttrust-anchor-file: "%s"
\tdomain-insecure: "corp.example."
"""

SCALARS = ["val-override-date", "val-sig-skew-min", "val-sig-skew-max",
           "val-max-restart", "val-bogus-ttl", "val-clean-additional",
           "val-permissive-mode", "ignore-cd-flag", "val-log-level",
           "val-nsec3-keysize-iterations", "key-cache-size",
           "key-cache-slabs", "harden-algo-downgrade",
           "harden-dnssec-stripped", "ede", "trust-anchor-file",
           "domain-insecure", "auto-trust-anchor-file", "trust-anchor",
           "trusted-keys-file"]


@pytest.mark.skipif(not os.path.exists(DEB_CHECKCONF),
                    reason="Debian's unbound-checkconf is not installed")
@pytest.mark.parametrize("conf", ["set", "defaults"])
def test_checkconf_o_as_debian(tmp_path, conf):
    key = write(tmp_path / "root.key", ". IN DS %s\n" % DS)
    path = write(tmp_path / "o.conf", OPTIONS_CONF % key if conf == "set"
                 else "server:\n\tverbosity: 1\n")
    for opt in SCALARS:
        ours = run([CHECKCONF_BIN, "-o", opt, path])
        ref = run([DEB_CHECKCONF, "-o", opt, path])
        assert ours.returncode == 0 and ref.returncode == 0, (opt, ours, ref)
        assert ours.stdout == ref.stdout, (opt, ours.stdout, ref.stdout)
    # a negative date as Debian's prints it
    path = write(tmp_path / "m.conf", "server:\n\tval-override-date: -1\n")
    assert run([CHECKCONF_BIN, "-o", "val-override-date", path]).stdout == \
        run([DEB_CHECKCONF, "-o", "val-override-date", path]).stdout


LIST_BODY = """module-config: "validator iterator"
trust-anchor: "both.example. DS %s"
trust-anchor: "gost.example. DS 20326 8 3 %s"
trust-anchor: "deep.corp.example. DS %s"
domain-insecure: "corp.example."
domain-insecure: "both.example."
domain-insecure: "zz.example."
domain-insecure: "a.example."
""" % (DS, DS.split()[-1], DS)


def _list_insecure(srv, ctl_bin):
    from test_control import ctl
    r = ctl(srv.conf, "list_insecure", binary=ctl_bin)
    assert r.returncode == 0, r.stderr
    return r.stdout


@ours_only
@pytest.mark.skipif(not os.path.exists("/usr/sbin/unbound"),
                    reason="Debian's unbound is not installed")
def test_list_insecure_as_debian(unbound, tmp_path):
    """list_insecure lists the trust points without keys in the order
    of Unbound's anchor tree: domain-insecure names, not one that also
    has an anchor; compared with Debian's Unbound running its
    validator on the same anchors."""
    from test_control import OUR_CTL, RefServer, rc_clause
    ref = RefServer(tmp_path / "ref")
    os.makedirs(ref.dir, exist_ok=True)
    outs = []
    try:
        for srv in (unbound, ref):
            srv.start(LIST_BODY, extra=rc_clause(
                None, iface=os.path.join(srv.dir, "ctl.sock"),
                use_cert=False))
            outs.append(_list_insecure(srv, OUR_CTL))
    finally:
        ref.stop()
    assert outs[0] == outs[1], outs
    assert "corp.example.\n" in outs[0]
    assert "both.example." not in outs[0]


@reference_differs("the harness runs it without its validator")
@pytest.mark.skipif(os.geteuid() != 0, reason="chroot needs root")
def test_anchor_files_in_chroot(world_tmpdir):
    """With chroot:, anchor file names are taken as Unbound takes them
    after its chroot: a full name inside the chroot, or relative to
    directory:. The daemon reads them at start (outside) and at SIGHUP
    (inside), and names the broken file at reload."""
    from conftest import Server, _finish, asan_env
    srv = Server(world_tmpdir)
    try:
        full = write(os.path.join(srv.dir, "full.key"), ". IN DS %s\n" % DS)
        write(os.path.join(srv.dir, "rel.key"),
              "example.com. IN DS %s\n" % DS)
        srv.write_config(LOCAL + '\ntrust-anchor-file: "%s"\n'
                         'trust-anchor-file: "rel.key"' % full)
        with open(srv.conf) as f:
            text = f.read().replace('chroot: ""', 'chroot: "%s"' % srv.dir)
        # root-hints: is opened as written, before and after the chroot
        # (not chroot-aware): a name relative to directory: works in both
        text = text.replace(os.path.join(srv.dir, "root.hints"),
                            "root.hints")
        with open(srv.conf, "w") as f:
            f.write(text)
        res = run([CHECKCONF_BIN, srv.conf])
        assert res.returncode == 0, res.stdout + res.stderr
        with open(srv.stderr, "wb") as err:
            srv.proc = subprocess.Popen(srv.run_args(["-d"]), stderr=err,
                                        stdout=subprocess.DEVNULL,
                                        stdin=subprocess.DEVNULL,
                                        cwd=srv.dir,
                                        env=asan_env(detect_leaks=0))
        srv.pid = srv.proc.pid
        srv.wait_ready()
        # a reload inside the chroot finds both files again
        before = srv.output().count("service reloaded")
        srv.send_signal(signal.SIGHUP)
        assert wait_for(lambda: srv.output().count("service reloaded") >
                        before, 10), srv.output()
        # broken relative file: refused at reload, old config serving
        write(os.path.join(srv.dir, "rel.key"), "example.com. IN DS 1 8\n")
        srv.send_signal(signal.SIGHUP)
        assert wait_for(lambda: "rel.key:1:" in srv.output(), 10), \
            srv.output()
        assert answer_texts(srv.query("www.ta.test.")) == [
            "www.ta.test. A 192.0.2.1"]
    finally:
        _finish(srv)


def test_without_validator_module_anchors_are_not_read(unbound, tmp_path):
    """As Unbound: with module-config "iterator" the daemon reads no
    anchor file (a broken one does not stop it); unbound-checkconf
    checks the validator's config all the same and refuses it."""
    key = write(tmp_path / "broken.key", BROKEN["zone-syntax"][0])
    body = (LOCAL + '\nmodule-config: "iterator"\n'
            'trust-anchor-file: "%s"' % key)
    unbound.write_config(body)
    res = run([CHECKCONF_BIN, unbound.conf])
    assert res.returncode != 0, res.stdout + res.stderr
    assert key in res.stdout + res.stderr
    unbound.start(body)
    assert answer_texts(unbound.query("www.ta.test.")) == [
        "www.ta.test. A 192.0.2.1"]
