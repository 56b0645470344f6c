# SPDX-License-Identifier: BSD-3-Clause
"""doc/unbound.conf.5 against the option table (util/config_options.c).

The table is the program's own list of unbound.conf options: for each, its
clauses and whether this daemon acts on it (the `implemented` field, set by
the IMPL/USE/REC... macros). The man page documents every option in one of
two ways:

- an implemented option as the term of a `.TP` entry (`.B name:` or
  `\\fBname:\\fR` on the line after `.TP`), anywhere outside the section
  below;
- an option that is accepted but not implemented in the section
  "OPTIONS ACCEPTED, NOT IMPLEMENTED", as a comma-separated list under a
  `.TP` entry that names the clause (`.B server:`).

The test fails when an option of the table is missing from the man page,
when the man page names an option the table does not have, or when the
man page says an option is implemented and the table says it is not (or
the other way round). It reads two text files and runs in well under a
second; it needs no build. When a build is at hand (UNBOUND_BUILDDIR), the
parse of the table is checked against the binary: unbound-checkconf -o
must know a spread of the names this test read from the table.

Run alone: python3 testdata/integration/test_option_docs.py
"""
import os
import re
import subprocess
import sys
import tempfile

SRCDIR = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
TABLE = os.path.join(SRCDIR, "util", "config_options.c")
MANPAGE = os.path.join(SRCDIR, "doc", "unbound.conf.5")
NOT_IMPL_SECTION = "OPTIONS ACCEPTED, NOT IMPLEMENTED"

CLAUSES = {
    "CL_SERVER": "server", "CL_REMOTE": "remote-control",
    "CL_STUB": "stub-zone", "CL_FORWARD": "forward-zone",
    "CL_AUTH": "auth-zone", "CL_VIEW": "view", "CL_PYTHON": "python",
    "CL_DYNLIB": "dynlib", "CL_DNSCRYPT": "dnscrypt",
    "CL_CACHEDB": "cachedb", "CL_DNSTAP": "dnstap", "CL_RPZ": "rpz",
    "CL_IPSET": "ipset", "CL_NONE": "toplevel",
}

# The table's entry macros (util/config_options.c): where the clause is
# (an argument index, or a fixed clause) and whether the entry is
# implemented. An entry written with a macro not named here fails the
# test, so a new macro cannot make options vanish from the check.
MACROS = {
    "IMPL": ("server", 1),
    "IMPLR": ("server", 1),
    "REC": ("server", 1),
    "RECD": ("server", 1),
    "USE": (1, 1),
    "KEEP": (1, 0),
    "SRV": ("server", 0),
    "OTHER": (1, 0),
    "SLABS": (1, 0),
    "OBSOLETE": ("server", 1),
    "NOTBUILT": (1, 1),
}


def _strip_c_comments(text):
    return re.sub(r"/\*.*?\*/", " ", text, flags=re.S)


def _split_top(text):
    """Split text at commas outside parentheses, braces and strings."""
    parts, depth, cur, i = [], 0, [], 0
    while i < len(text):
        c = text[i]
        if c == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            cur.append(text[i:j + 1])
            i = j + 1
            continue
        if c in "({":
            depth += 1
        elif c in ")}":
            depth -= 1
        if c == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def _clauses(expr):
    names = [n.strip() for n in expr.split("|")]
    for n in names:
        if n not in CLAUSES:
            raise ValueError("unknown clause %r" % n)
    return [CLAUSES[n] for n in names]


def _string(expr):
    m = re.fullmatch(r'"([^"]*)"', expr.strip())
    if not m:
        raise ValueError("not a string literal: %r" % expr)
    return m.group(1)


def read_table(path=TABLE):
    """{(clause, name): implemented} for every option of the table."""
    with open(path, encoding="utf-8") as f:
        src = _strip_c_comments(f.read())
    m = re.search(r"const struct cfg_option cfg_options\[\]\s*=\s*\{(.*?)\n\};",
                  src, re.S)
    if not m:
        raise ValueError("cfg_options[] not found in " + path)
    options = {}
    for entry in _split_top(m.group(1)):
        em = re.fullmatch(r"([A-Z0-9_]+)\s*\((.*)\)", entry, re.S)
        if em:
            macro, args = em.group(1), _split_top(em.group(2))
            if macro == "CLAUSE":
                continue
            if macro not in MACROS:
                raise ValueError("unknown table macro %s in %r"
                                 % (macro, entry))
            where, implemented = MACROS[macro]
            clauses = [where] if isinstance(where, str) else \
                _clauses(args[where])
        elif entry.startswith("{") and entry.endswith("}"):
            args = _split_top(entry[1:-1])
            if len(args) != 10 or args[5] not in ("0", "1"):
                raise ValueError("unexpected table entry %r" % entry)
            clauses, implemented = _clauses(args[1]), int(args[5])
        else:
            raise ValueError("unexpected table entry %r" % entry)
        name = _string(args[0])
        for clause in clauses:
            key = (clause, name)
            if key in options and options[key] != implemented:
                raise ValueError("%s:%s twice with different flags"
                                 % key)
            options[key] = implemented
    return options


def _roff_text(line):
    """A man page line as plain text: no font escapes, \\- as -."""
    line = re.sub(r"\\f[BIRP]", "", line)
    line = line.replace("\\-", "-").replace("\\(em", "-")
    line = re.sub(r"^\.(B|I|BR|IR|RB|RI)\s+", "", line)
    return line


def read_manpage(path=MANPAGE):
    """(documented, not_implemented): the option names that are .TP terms
    outside the not-implemented section, and the (clause, name) pairs
    listed in it."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    documented, not_impl = set(), set()
    section, clause, after_tp = None, None, False
    for line in lines:
        if line.startswith(".SH"):
            section = line[3:].strip().strip('"')
            clause, after_tp = None, False
            continue
        if line.startswith(".TP"):
            after_tp, clause = True, None
            continue
        if section == NOT_IMPL_SECTION:
            if after_tp:
                cm = re.fullmatch(r"([a-z-]+):", _roff_text(line).strip())
                if not cm:
                    raise ValueError("%s: a .TP term must be a clause "
                                     "name with a colon: %r"
                                     % (NOT_IMPL_SECTION, line))
                clause, after_tp = cm.group(1), False
            elif line.startswith("."):
                clause = None
            elif clause:
                for word in _roff_text(line).split(","):
                    word = word.strip().rstrip(".")
                    if word:
                        not_impl.add((clause, word))
            continue
        if after_tp:
            after_tp = False
            text = _roff_text(line)
            # the term: one or more "name:" (bold) separated by commas
            for nm in re.finditer(r"(?:^|,\s*)([a-z][a-z0-9-]*):", text):
                documented.add(nm.group(1))
    return documented, not_impl


def problems(table=None, manpage=None):
    table = table if table is not None else read_table()
    documented, not_impl = manpage if manpage is not None else \
        read_manpage()
    out = []
    impl_names = {n for (c, n), i in table.items() if i}
    names = {n for (c, n) in table}
    for (clause, name), implemented in sorted(table.items(),
                                               key=lambda k: k[0]):
        if implemented and name not in documented:
            out.append("%s:%s is implemented but has no entry in "
                       "doc/unbound.conf.5" % (clause, name))
        if not implemented and (clause, name) not in not_impl:
            out.append("%s:%s is accepted but not implemented, and "
                       "missing from %s" % (clause, name, NOT_IMPL_SECTION))
    for name in sorted(documented - names):
        out.append("doc/unbound.conf.5 describes %s:, which is not in the "
                   "option table" % name)
    for name in sorted((documented & names) - impl_names):
        out.append("doc/unbound.conf.5 describes %s: as implemented; the "
                   "table says it is not" % name)
    for clause, name in sorted(not_impl):
        if (clause, name) not in table:
            out.append("doc/unbound.conf.5 lists %s:%s as not implemented; "
                       "the table has no such option in that clause"
                       % (clause, name))
        elif table[(clause, name)]:
            out.append("doc/unbound.conf.5 lists %s:%s as not implemented; "
                       "the table says it is implemented" % (clause, name))
    return out


def test_table_parse_finds_options():
    table = read_table()
    # a parse that lost the table would pass the checks below vacuously
    assert len(table) > 300
    assert table[("server", "verbosity")] == 1
    assert table[("server", "disable-dnssec-lame-check")] == 1
    assert table[("server", "dns-error-reporting")] == 1
    assert table[("stub-zone", "name")] == 1
    assert table[("view", "name")] == 1
    assert table[("view", "response-ip")] == 1
    assert table[("remote-control", "prometheus-port")] == 1


def test_manpage_matches_option_table():
    found = problems()
    assert not found, "\n".join(found)


def test_check_catches_a_missing_option():
    """Break it once: the same man page without one option's entry."""
    documented, not_impl = read_manpage()
    assert problems(manpage=(documented - {"verbosity"}, not_impl))
    # an option the table marks not implemented that the section omits
    # (the section is empty today: no option is left unimplemented)
    table = dict(read_table())
    table[("server", "verbosity")] = 0
    assert problems(table=table)
    assert problems(manpage=(documented | {"no-such-option"}, not_impl))
    assert problems(manpage=(documented, not_impl | {("server",
                                                      "verbosity")}))
    # an option listed as not implemented while the table says it is
    assert problems(manpage=(documented, not_impl | {("server",
                                                      "dns-error-reporting")}))


def test_table_names_known_to_checkconf():
    """The parse of config_options.c against the built program: the names
    read from the table are ones unbound-checkconf -o knows."""
    builddir = os.environ.get("UNBOUND_BUILDDIR")
    checkconf = os.environ.get("UNBOUND_CHECKCONF_BIN") or (
        builddir and os.path.join(builddir, "unbound-checkconf"))
    if not checkconf or not os.access(checkconf, os.X_OK):
        import pytest
        pytest.skip("no unbound-checkconf built (UNBOUND_BUILDDIR)")
    # a spread of 25 names keeps this to a second (each run reads the
    # defaults of every option); include: is not an option -o prints
    names = sorted({n for (c, n) in read_table() if c != "toplevel"})
    names = names[::max(1, len(names) // 25)]
    with tempfile.NamedTemporaryFile("w", suffix=".conf") as conf:
        conf.write("server:\n")
        conf.flush()
        unknown = []
        for name in names + ["no-such-option"]:
            r = subprocess.run([checkconf, "-o", name, conf.name],
                               capture_output=True, timeout=10)
            if r.returncode != 0:
                unknown.append(name)
    assert unknown == ["no-such-option"]


if __name__ == "__main__":
    found = problems()
    for p in found:
        print(p)
    print("%d problem(s)" % len(found))
    sys.exit(1 if found else 0)
