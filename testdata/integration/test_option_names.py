# SPDX-License-Identifier: BSD-3-Clause
"""Every option name of Unbound 1.26 is accepted (testdata/conf/
unbound-1.26-options.txt, one config per option, unbound-checkconf), the
options marked "not implemented" in the option table are none that the
code reads, and the obsolete names of Unbound 1.17 still start a daemon."""
import glob
import os
import re
import subprocess

import pytest

from conftest import CHECKCONF_BIN, REFERENCE, answer_texts

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", ".."))
DATA = os.path.join(SRC, "testdata", "conf", "unbound-1.26-options.txt")
NAMED = ("stub-zone", "forward-zone", "auth-zone", "view", "rpz")


def option_lines():
    with open(DATA) as f:
        return [l.strip() for l in f if l.strip() and not l.startswith("#")]


def config_for(line):
    """The config that holds the option of one data line, in its
    clause, with what the line says it needs."""
    clause, rest = line.split(" ", 1)
    entries = rest.split(" ;; ")
    opt = entries[0].split(":", 1)[0]
    text = ('server:\n\tdirectory: ""\n\tchroot: ""\n\tusername: ""\n'
            '\tpidfile: ""\n\tdefine-tag: "tag1 tag2"\n')
    text += clause + ":\n"
    if clause in NAMED and opt != "name":
        text += '\tname: "%s"\n' % ("view1" if clause == "view" else
                                     "example.test.")
    text += "".join("\t%s\n" % e for e in entries)
    if clause != "view":
        text += "view:\n\tname: view1\n"
    return opt, text


def test_data_lists_every_option_once():
    seen = set()
    for line in option_lines():
        clause, rest = line.split(" ", 1)
        key = (clause, rest.split(":", 1)[0])
        assert key not in seen, line
        seen.add(key)
    # the man page of 1.26 documents 369 options (names per clause)
    assert len(seen) == 369


def test_checkconf_accepts_every_unbound_126_option(tmp_path):
    """One unbound-checkconf run per option: the option is known in its
    clause and its value is accepted."""
    conf = tmp_path / "opt.conf"
    failed = []
    for line in option_lines():
        opt, text = config_for(line)
        conf.write_text(text)
        r = subprocess.run([CHECKCONF_BIN, str(conf)], capture_output=True,
                           text=True, timeout=30, stdin=subprocess.DEVNULL)
        if r.returncode != 0:
            failed.append("%s -> %s" % (line, (r.stderr + r.stdout)
                                        .strip().splitlines()[:1]))
    if REFERENCE:
        # Debian's Unbound 1.17 knows the older names only
        failed = [f for f in failed if "syntax error" not in f and
                  "unknown keyword" not in f]
    assert failed == [], "\n".join(failed)


def table_rows():
    """(name, implemented, field) for the rows of util/config_options.c
    that are not implemented and store into struct config_file
    (F(field)): KEEP() rows and written-out rows, read from the source
    (the implemented flag is the number after the handler)."""
    with open(os.path.join(SRC, "util", "config_options.c")) as f:
        src = f.read()
    rows = []
    for name, field in re.findall(r'\bKEEP\("([^"]+)",[^)]*?\bF\((\w+)\)',
                                  src):
        rows.append((name, 0, field))
    for name, field, impl in re.findall(
            r'\{ "([^"]+)",[^{}]*?\bF\((\w+)\),\s*(?:NULL|\w+),\s*(\d),',
            src):
        rows.append((name, int(impl), field))
    return rows


def code_files():
    out = []
    for d in ("daemon", "services", "iterator", "validator", "smallapp",
              "util"):
        for f in glob.glob(os.path.join(SRC, d, "**", "*.[ch]"),
                           recursive=True):
            if not os.path.basename(f).startswith("config_"):
                out.append(f)
    return out


def test_not_implemented_options_are_not_read_by_the_code():
    """An option the code reads is implemented: no field of a row marked
    not implemented is read outside util/config_*, and no code reads an
    option back from the list of unimplemented ones by its name."""
    texts = {f: open(f).read() for f in code_files()}
    rows = [r for r in table_rows() if r[0] != "module-config"]
    # the table parse found rows with a field (a floor, not a count;
    # not the not-implemented ones alone: they move to implemented over
    # time, and few are left)
    assert len(rows) >= 5, rows
    used = []
    for name, impl, field in rows:
        if impl:
            continue
        pat = re.compile(r"(->|\.)%s\b" % re.escape(field))
        hits = [os.path.relpath(f, SRC) for f, t in texts.items()
                if pat.search(t)]
        if hits:
            used.append("%s (%s) marked not implemented, read in %s" %
                        (name, field, hits))
    assert used == [], "\n".join(used)
    readers = [os.path.relpath(f, SRC) for f, t in texts.items()
               if "->unimplemented" in t or ".unimplemented" in t]
    assert readers == []


def test_checkconf_logs_no_option_as_not_implemented(tmp_path):
    """No option is left unimplemented: the four that were last (set away
    from their defaults here) and the implemented ones around them log
    no "not implemented" line. That the line is written for an option
    marked so is config_test's test_unimplemented_row."""
    if REFERENCE:
        pytest.skip("a message of this daemon")
    conf = tmp_path / "u.conf"
    conf.write_text('server:\n\tdirectory: ""\n\tchroot: ""\n'
                    '\tusername: ""\n\tpidfile: ""\n'
                    '\tquic-size: 16m\n'
                    '\tlog-local-actions: yes\n\tinfra-cache-slabs: 8\n'
                    '\tunknown-server-time-limit: 500\n'
                    '\tcache-min-negative-ttl: 30\n'
                    '\tdisable-dnssec-lame-check: yes\n'
                    '\tdns-error-reporting: yes\n'
                    '\tmsg-buffer-size: 8192\n')
    r = subprocess.run([CHECKCONF_BIN, str(conf)], capture_output=True,
                       text=True, timeout=30, stdin=subprocess.DEVNULL)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    # quic-size: of a feature not built (DNS over QUIC), not listed
    logged = re.findall(r"option (\S+) is not implemented", out)
    assert logged == [], out


def test_infra_lame_ttl_starts(unbound):
    """compat: unbound-1.17: an obsolete option (Unbound ignores it)
    does not stop the daemon: blocklist configs still carry it."""
    unbound.start('infra-lame-ttl: 900\ninfra-cache-lame-size: 10k\n'
                  'local-data: "lame.test. A 192.0.2.9"')
    assert answer_texts(unbound.query("lame.test.", "A")) == [
        "lame.test. A 192.0.2.9"]
