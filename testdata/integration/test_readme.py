# SPDX-License-Identifier: BSD-3-Clause
"""README.md kept short and true.

- at most 250 lines (the front door: what it is, how to run it, where
  the documents are; figures and history belong in doc/);
- no issue numbers (the reader has no tracker);
- every relative link names a file that exists, and a #fragment into a
  Markdown file names one of its headings;
- every row of the feature table has a status (supported, differs,
  not yet, not built, extension) and says where it is documented (a
  "differs" row in doc/compat.md among others); a section of
  unbound.conf(5) quoted there exists in the man page;
- the "not yet" row names exactly the options unbound.conf(5) lists as
  accepted but not implemented (the list test_option_docs.py checks
  against the option table), so an option implemented later cannot stay
  "not yet" here;
- and doc/testing.md describes every fuzz harness of Makefile.in's
  FUZZ_NAMES.

Reads text files only: no build, no daemon, well under a second.
Run alone: python3 testdata/integration/test_readme.py
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_option_docs  # noqa: E402  (read_manpage, the man page's lists)

SRCDIR = test_option_docs.SRCDIR
README = os.path.join(SRCDIR, "README.md")
MAX_LINES = 250
STATUSES = ("supported", "differs", "not yet", "not built", "extension")


def anchor(heading):
    """GitHub's anchor of a Markdown heading's text."""
    a = heading.strip().lower()
    a = re.sub(r"[^\w\- ]", "", a)
    return a.replace(" ", "-")


def headings(path):
    with open(path, encoding="utf-8") as f:
        return {anchor(m.group(1)) for m in
                re.finditer(r"^#+ (.*)$", f.read(), re.M)}


def manpage_sections():
    with open(test_option_docs.MANPAGE, encoding="utf-8") as f:
        text = f.read().replace("\\-", "-")
    return {m.group(1).strip().strip('"') for m in
            re.finditer(r"^\.S[HS] (.*)$", text, re.M)}


def table_rows(text):
    """The feature table: (capability, status, documented in) per row."""
    rows = []
    for line in text.splitlines():
        if not line.startswith("| ") or line.startswith("| capability"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if len(cells) == 3:
            rows.append(tuple(cells))
    return rows


def problems(text=None):
    if text is None:
        with open(README, encoding="utf-8") as f:
            text = f.read()
    out = []
    nlines = len(text.splitlines())
    if nlines > MAX_LINES:
        out.append("README.md has %d lines, more than %d"
                   % (nlines, MAX_LINES))
    for m in re.finditer(r"\b[Ii]ssues? #?\d+", text):
        out.append("README.md names an issue: %r" % m.group(0))
    for m in re.finditer(r"\]\(([^)#\s]*)(#[^)\s]*)?\)", text):
        target, frag = m.group(1), m.group(2)
        if re.match(r"[a-z]+:", target):
            continue
        path = os.path.join(SRCDIR, target) if target else README
        if not os.path.exists(path):
            out.append("README.md links to %s, which does not exist"
                       % target)
        elif frag and path.endswith(".md") and \
                frag[1:] not in headings(path):
            out.append("README.md links to %s%s: no such heading"
                       % (target, frag))
    rows = table_rows(text)
    if len(rows) < 10:
        out.append("README.md: the feature table was not found "
                   "(%d rows)" % len(rows))
    sections = manpage_sections()
    not_yet = set()
    for cap, status, doc in rows:
        if not status.lower().startswith(STATUSES):
            out.append("feature %r: status %r is none of %s"
                       % (cap, status, ", ".join(STATUSES)))
        if not doc:
            out.append("feature %r: no 'documented in'" % cap)
        if status.lower().startswith("differs") and \
                "compat.md" not in doc:
            out.append("feature %r differs but does not point to "
                       "doc/compat.md" % cap)
        # quoted section names after unbound.conf.5 (not after another page)
        for part in doc.split(";"):
            if "unbound.conf.5" not in part:
                continue
            for sec in re.findall(r'"([^"]+)"', part):
                if sec not in sections:
                    out.append("feature %r: unbound.conf.5 has no "
                               "section %r" % (cap, sec))
        if status.lower().startswith("not yet"):
            not_yet |= set(re.findall(r"`([a-z0-9-]+)`", cap))
    _, not_impl = test_option_docs.read_manpage()
    listed = {name for clause, name in not_impl}
    if not_yet != listed:
        out.append("README.md's 'not yet' row names %s; unbound.conf.5 "
                   "lists as not implemented %s"
                   % (sorted(not_yet), sorted(listed)))
    return out


def test_readme_short_and_true():
    found = problems()
    assert not found, "\n".join(found)


def test_check_catches_a_broken_readme():
    """Break it once: each rule fails on a README that breaks it."""
    with open(README, encoding="utf-8") as f:
        text = f.read()
    assert not problems(text)
    assert problems(text + "\n" * (MAX_LINES + 1))
    assert problems(text + "\nFixed in issue 12.\n")
    assert problems(text + "\n[x](doc/no-such-file.md)\n")
    assert problems(text + "\n[x](doc/compat.md#no-such-heading)\n")
    row = next(line for line in text.splitlines()
               if line.startswith("| ") and "| supported |" in line)
    assert problems(text.replace(row, row.replace("| supported |",
                                                  "| works |", 1)))
    # an implemented option in a "not yet" row (no option is left
    # unimplemented today, so the README has no such row of its own)
    assert problems(text.replace(row, row + "\n| `verbosity` | not yet "
                                 "| unbound.conf.5 |", 1))
    drow = next(line for line in text.splitlines()
                if line.startswith("| ") and "| differs |" in line)
    assert problems(text.replace(drow, re.sub(
        r"\[compat\.md\]\([^)]*\)|compat\.md", "", drow)))
    assert problems(text.replace('"Recursion and caching"',
                                 '"No such section"'))


def fuzz_names():
    """FUZZ_NAMES of Makefile.in (the harnesses make check replays)."""
    with open(os.path.join(SRCDIR, "Makefile.in"), encoding="utf-8") as f:
        m = re.search(r"^FUZZ_NAMES = ((?:.*\\\n)*.*)$", f.read(), re.M)
    return m.group(1).replace("\\\n", " ").split()


def undescribed_harnesses(text=None):
    """The harnesses doc/testing.md does not describe (a "- `NAME`:"
    item of its Fuzzing section)."""
    if text is None:
        with open(os.path.join(SRCDIR, "doc", "testing.md"),
                  encoding="utf-8") as f:
            text = f.read()
    return [n for n in fuzz_names()
            if not re.search(r"^- `%s`:" % re.escape(n), text, re.M)]


def test_testing_md_describes_every_fuzz_harness():
    names = fuzz_names()
    assert len(names) >= 21 and "query_udp" in names
    assert not undescribed_harnesses()
    # break it once: the first one's item left out
    with open(os.path.join(SRCDIR, "doc", "testing.md"),
              encoding="utf-8") as f:
        text = f.read()
    assert undescribed_harnesses(text.replace(
        "- `%s`:" % names[0], "- %s:" % names[0])) == [names[0]]


if __name__ == "__main__":
    found = problems() + ["doc/testing.md does not describe harness "
                          + n for n in undescribed_harnesses()]
    print("\n".join(found) or "README.md, doc/testing.md: ok")
    sys.exit(1 if found else 0)
