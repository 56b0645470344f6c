# SPDX-License-Identifier: BSD-3-Clause
"""What the tests that run this daemon and Debian's Unbound 1.17 side
by side over the signed test internet (testdata/testnet/signed_net.py)
share: their skip marks, the signed net's fixture, and starting one
daemon or both on the same config with the net's root hints. A test
module takes it as

    from signednet_pair import SKIP_MARKS, signednet_net  # noqa: F401
    pytestmark = SKIP_MARKS

(pytest finds the fixture by name in the test module's namespace)."""
import contextlib
import os
import sys

import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from testnet import have_nsd  # noqa: E402
from testnet.fixture import signednet_net  # noqa: E402,F401
from conftest import (DEB_UNBOUND, REFERENCE, RefServer, Server,  # noqa: E402
                      _finish, free_port)
from test_control import DEB_CTL, OUR_CTL, rc_clause  # noqa: E402

SKIP_MARKS = [
    pytest.mark.skipif(not have_nsd(), reason="nsd is not installed"),
    pytest.mark.skipif(not os.access(DEB_UNBOUND, os.X_OK),
                       reason="Debian's unbound is not installed"),
    pytest.mark.skipif(REFERENCE, reason="compares this build with "
                       "the reference; UNBOUND_BIN is the reference"),
]


def start_one(binary, tmp_path, net, body, extra=""):
    """"ours" or "debian" started in tmp_path/binary on body (server:
    lines) and extra (clauses after them) with net's root hints; its
    unbound-control in ctl_bin. Stopped again when its start fails."""
    os.makedirs(tmp_path / binary, exist_ok=True)
    ours = binary == "ours"
    srv = (Server if ours else RefServer)(tmp_path / binary)
    srv.ctl_bin = OUR_CTL if ours else DEB_CTL
    try:
        srv.start(body, root_hints=net.root_hints, extra=extra)
    except BaseException:
        _finish(srv)
        raise
    return srv


@contextlib.contextmanager
def running_pair(net, tmp_path_factory, body, extra="", control=False):
    """(ours, Debian's), both started on body and extra with net's root
    hints (with control: remote-control on a free port too, each
    server's unbound-control in ctl_bin), stopped by PID on leaving."""
    ours = Server(tmp_path_factory.mktemp("ours"))
    ref = RefServer(tmp_path_factory.mktemp("reference"))
    ours.ctl_bin, ref.ctl_bin = OUR_CTL, DEB_CTL
    try:
        for s in (ours, ref):
            s.start(body, root_hints=net.root_hints,
                    extra=extra + (rc_clause(None, free_port(),
                                             use_cert=False)
                                   if control else ""))
        yield ours, ref
    finally:
        for s in (ours, ref):
            _finish(s)


def write_zones(tmp_path_factory, *files):
    """Each (file name, text) written into one new directory; their
    paths, in order."""
    zdir = tmp_path_factory.mktemp("zones")
    paths = []
    for name, text in files:
        path = str(zdir / name)
        with open(path, "w") as f:
            f.write(text)
        paths.append(path)
    return paths
