# SPDX-License-Identifier: BSD-3-Clause
"""root-hints: given more than once (published configs do: a distro's
default file, then the user's): the last file is the one used, each
earlier one is read too and dropped with Unbound's line "second hints
for zone . ignored.", and an earlier file that cannot be read stops the
start. Ours and Debian's Unbound 1.17 alike, on the test internet."""
import os
import sys

import dns.rcode
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from testnet import have_nsd  # noqa: E402
from testnet.fixture import testnet_net, net  # noqa: E402,F401
from conftest import RefServer, Server, _finish  # noqa: E402

pytestmark = [pytest.mark.skipif(not have_nsd(),
                                 reason="nsd is not installed")]

SECOND = "second hints for zone . ignored."
# a root server nobody answers at: used, it would fail every query
DEAD_HINTS = (".                3600000 IN NS dead.root.\n"
              "dead.root.       3600000 IN A 127.0.0.254\n")


@pytest.fixture(params=[Server, RefServer], ids=["ours", "unbound-1.17"])
def srv(request, tmp_path):
    s = request.param(tmp_path)
    yield s
    _finish(s)


def test_last_file_used_earlier_ones_read_and_dropped(srv, net, tmp_path):
    """Two earlier files (the dead root) and the test internet's last:
    names resolve through the last, each earlier file logged once."""
    dead = tmp_path / "dead.hints"
    dead.write_text(DEAD_HINTS)
    srv.start('root-hints: "%s"\nroot-hints: "%s"\n' % (dead, net.root_hints),
              root_hints=str(dead))
    r = srv.query("www.example.tld1.", "A", timeout=8.0)
    assert dns.rcode.to_text(r.rcode()) == "NOERROR", r
    assert [rd.to_text() for rrset in r.answer for rd in rrset] == \
        ["192.0.2.10"], r
    assert srv.output().count(SECOND) == 2, srv.output()[-2000:]


def test_unreadable_earlier_file_stops_the_start(srv, net, tmp_path):
    missing = tmp_path / "no-such.hints"
    rc, out = srv.start_expecting_exit('root-hints: "%s"\n' % net.root_hints,
                                       root_hints=str(missing))
    assert rc not in (0, None), out[-2000:]
    assert str(missing) in out, out[-2000:]
