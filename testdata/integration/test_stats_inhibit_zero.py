# SPDX-License-Identifier: BSD-3-Clause
"""statistics-inhibit-zero: the extended counters that are zero left out
(yes, the default) or printed (no), the same names as Debian's Unbound
1.17 prints under the same config, read with unbound-control stats over
a unix socket."""
import os
import re
import subprocess

import pytest

from conftest import BUILDDIR, RefServer, Server, control_clause

OUR_CTL = os.path.join(BUILDDIR, "unbound-control")
# the counters the option governs
GOVERNED = re.compile(r"^total\.|^num\.(query\.(type|class|opcode)|"
                      r"answer\.rcode|rpz\.action)\.")


def stats_names(cls, tmpdir, inhibit):
    srv = cls(tmpdir)
    os.makedirs(srv.dir, exist_ok=True)
    sock = os.path.join(srv.dir, "ctl.sock")
    srv.start('local-data: "www.stats.example. A 192.0.2.1"\n'
              "extended-statistics: yes\nstatistics-inhibit-zero: %s" %
              inhibit, extra=control_clause(sock))
    try:
        srv.query("www.stats.example.")
        r = subprocess.run([OUR_CTL, "-c", srv.conf, "stats_noreset"],
                           capture_output=True, text=True, timeout=10)
        assert r.returncode == 0, r.stdout + r.stderr
    finally:
        srv.stop()
    return {l.split("=")[0]: int(l.split("=")[1])
            for l in r.stdout.splitlines()
            if "=" in l and GOVERNED.match(l.split("=")[0]) and
            not l.startswith("total.")}


@pytest.mark.parametrize("inhibit", ["yes", "no"])
def test_inhibit_zero_as_unbound(tmp_path, inhibit):
    ours = stats_names(Server, tmp_path / "ours", inhibit)
    ref = stats_names(RefServer, tmp_path / "ref", inhibit)
    assert ours["num.query.type.A"] == 1
    if inhibit == "yes":
        assert "num.query.type.AAAA" not in ours
        assert "num.answer.rcode.YXDOMAIN" not in ours
    else:
        assert ours["num.query.type.AAAA"] == 0
        assert ours["num.query.type.TYPE0"] == 0
        assert ours["num.query.class.CLASS0"] == 0
        assert ours["num.answer.rcode.nodata"] == 0
    # Debian's 1.17 is built without RPZ statistics in its names list
    # only when it has no RPZ; compare what both print
    ref_names = set(k for k in ref if not k.startswith("num.rpz."))
    our_names = set(k for k in ours if not k.startswith("num.rpz."))
    assert our_names == ref_names, (sorted(our_names - ref_names),
                                    sorted(ref_names - our_names))
