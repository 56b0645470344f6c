# SPDX-License-Identifier: BSD-3-Clause
"""The benchmarks' one reader of a daemon's own counters:
`stats_noreset` through unbound-control (this daemon and Debian's
Unbound print the same names) or nsd-control, as {name: number}."""
import subprocess

DEBIAN_CONTROL = "/usr/sbin/unbound-control"   # talks to both daemons


def parse_stats(text):
    """name=value lines as {name: int or float}; other lines skipped."""
    out = {}
    for line in text.splitlines():
        k, _, v = line.partition("=")
        for number in (int, float):
            try:
                out[k] = number(v)
                break
            except ValueError:
                pass
    return out


def read_stats(argv):
    """argv + ["stats_noreset"] run once: its counters; {} when the
    command fails or times out."""
    try:
        r = subprocess.run(argv + ["stats_noreset"], capture_output=True,
                           text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    return parse_stats(r.stdout) if r.returncode == 0 else {}


def control_stats(conf, clients=(DEBIAN_CONTROL,)):
    """The counters of the daemon whose control socket conf names,
    through the first of clients (paths; None skipped) that reads them;
    {} when none does."""
    for ctl in clients:
        if ctl:
            stats = read_stats([ctl, "-c", conf])
            if stats:
                return stats
    return {}


def nsd_stats(conf):
    """NSD's counters (nsd-control stats_noreset); {} when unread."""
    return read_stats(["nsd-control", "-c", conf])
