# SPDX-License-Identifier: BSD-3-Clause
"""The harness's loopback guard (testdata/testnet/loopback_guard.py): a
config that could make a resolver ask the real root servers (no
root-hints and no forward-zone for ".", or non-loopback addresses) is
refused before any daemon starts; the harness's own configs pass."""
import os

import pytest

from conftest import ROOT_HINTS, SRCDIR, Server, loopback_guard

# Every unbound.conf kept in the repository (run from the source tree,
# where relative root-hints paths point): none may reach the real root.
REPO_CONFIGS = ["contrib/demo.conf", "doc/example.conf",
                "testdata/conf/example-unbound.conf",
                "testdata/conf/debian/unbound.conf"]


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return str(path)


def reason(tmp_path, text, hints=ROOT_HINTS):
    write(tmp_path / "root.hints", hints)
    return loopback_guard.unsafe_reason(
        write(tmp_path / "u.conf", text.replace("HINTS", str(
            tmp_path / "root.hints"))))


def test_harness_config_is_safe(tmp_path):
    srv = Server(tmp_path)
    assert loopback_guard.unsafe_reason(srv.write_config()) is None


@pytest.mark.parametrize("text,want", [
    # no root at all: the built-in (real) root servers would be used
    ("server:\n\tverbosity: 1\n", "neither root-hints"),
    ('server:\n\troot-hints: ""\n', "neither root-hints"),
    # a commented-out root-hints does not count
    ('server:\n\t# root-hints: "HINTS"\n', "neither root-hints"),
    # a forward for "." to a real address
    ('server:\nforward-zone:\n\tname: "."\n\tforward-addr: 192.0.2.1\n',
     "not loopback"),
    # forward-host names are looked up through the root
    ('server:\nforward-zone:\n\tname: "."\n\tforward-host: dns.example\n',
     "forward-host"),
    # forward-first falls back to the root hints
    ('server:\nforward-zone:\n\tname: "."\n\tforward-addr: 127.0.0.1\n'
     '\tforward-first: yes\n', "neither root-hints"),
    # a stub to a real address, even with loopback root hints
    ('server:\n\troot-hints: "HINTS"\nstub-zone:\n\tname: "x."\n'
     '\tstub-addr: 198.51.100.7@53\n', "not loopback"),
    ('server:\n\troot-hints: "/nonexistent/root.hints"\n', "cannot be read"),
    # only IPv4 forbidden: IPv6 root servers remain
    ("server:\n\tdo-not-query-address: 0.0.0.0/0\n", "neither root-hints"),
])
def test_unsafe_configs_refused(tmp_path, text, want):
    why = reason(tmp_path, text)
    assert why is not None and want in why, why


@pytest.mark.parametrize("hints,want", [
    (". 3600000 IN NS a.root-servers.net.\n"
     "a.root-servers.net. 3600000 IN A 198.41.0.4\n", "not loopback"),
    (". NS a.root.test.\na.root.test. AAAA 2001:503:ba3e::2:30\n",
     "not loopback"),
    # a root server without an address would be looked up
    (". NS a.root.test.\n. NS b.elsewhere.\na.root.test. A 127.0.0.9\n",
     "no address for b.elsewhere."),
    ("; only a comment\n", "no NS records"),
])
def test_unsafe_hints_files_refused(tmp_path, hints, want):
    why = reason(tmp_path, 'server:\n\troot-hints: "HINTS"\n', hints)
    assert why is not None and want in why, why


@pytest.mark.parametrize("text", [
    'server:\n\troot-hints: "HINTS"\n',
    # no root hints, but no address may be asked at all
    "server:\n\tdo-not-query-address: 0.0.0.0/0\n"
    "\tdo-not-query-address: ::/0\n",
    "server:\n\troot-hints: HINTS  # trailing comment\n",
    'server:\n\troot-hints: "/elsewhere"\n\troot-hints: "HINTS"\n',
    'server:\nforward-zone:\n\tname: "."\n\tforward-addr: 127.0.0.1@5353\n',
    'server:\nforward-zone:\n\tname: .\n\tforward-addr: ::1\n',
])
def test_safe_configs_pass(tmp_path, text):
    assert reason(tmp_path, text) is None


def test_root_hints_in_included_file(tmp_path):
    write(tmp_path / "root.hints", ROOT_HINTS)
    inc = write(tmp_path / "inc.conf",
                'server:\n\troot-hints: "%s"\n' % (tmp_path / "root.hints"))
    conf = write(tmp_path / "u.conf",
                 'server:\n\tverbosity: 1\ninclude: "%s"\n' % inc)
    assert loopback_guard.unsafe_reason(conf) is None
    # a missing include file: the daemon refuses the config and starts
    # nothing, so the guard lets it through (test_config tests that error)
    os.unlink(inc)
    assert loopback_guard.unsafe_reason(conf) is None
    # but a missing config file is not followed
    assert "cannot read the config" in loopback_guard.unsafe_reason(
        str(tmp_path / "none.conf"))


def test_server_refuses_to_start_unsafe_config(unbound):
    """The daemon fixture: a config without root-hints never reaches the
    binary (no process is started)."""
    unbound.write_config()
    with open(unbound.conf) as f:
        text = "".join(l for l in f if "root-hints" not in l)
    with open(unbound.conf, "w") as f:
        f.write(text)
    with pytest.raises(loopback_guard.UnsafeConfig):
        unbound.run_args(["-d"])
    # start() rewrites the config through config_text, which always has
    # root-hints; a body that overrides them with a real root is refused
    real = unbound.dir + "/real.hints"
    write(real, ". NS a.root-servers.net.\n"
          "a.root-servers.net. A 198.41.0.4\n")
    with pytest.raises(loopback_guard.UnsafeConfig):
        unbound.start('root-hints: "%s"' % real)
    assert unbound.proc is None and unbound.pid is None


@pytest.mark.parametrize("conf", REPO_CONFIGS)
def test_repository_configs_are_safe(conf):
    path = os.path.join(SRCDIR, conf)
    assert loopback_guard.unsafe_reason(path, base=SRCDIR) is None


def test_no_other_repository_configs():
    """A new .conf in the repository must be added to REPO_CONFIGS (so
    that it is checked) or be a fragment under testdata/conf/debian, or
    a template under testdata/conf/real (its @DIR@/@PORT@ filled in by
    test_real_configs, whose every start goes through Server.run_args
    and so through the guard)."""
    found = []
    for top in ("contrib", "doc", "testdata"):
        for d, _, files in os.walk(os.path.join(SRCDIR, top)):
            for f in files:
                if f.endswith(".conf"):
                    found.append(os.path.relpath(os.path.join(d, f),
                                                 SRCDIR))
    extra = [f for f in found if f not in REPO_CONFIGS and
             not f.startswith("testdata/conf/debian/unbound.conf.d/") and
             not f.startswith("testdata/conf/real/")]
    assert extra == []
