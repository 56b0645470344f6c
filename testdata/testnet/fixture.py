# SPDX-License-Identifier: BSD-3-Clause
"""pytest fixtures for the test internet, for integration tests.

Import them into a conftest.py or a test module (pytest finds fixtures
by name in the module namespace):

    sys.path.insert(0, <testdata dir>)
    from testnet.fixture import testnet_net, testnet_reference  # noqa

`signednet_net` is the signed (DNSSEC) test internet, also
session-scoped. `testnet_net` is session-scoped: the servers are read-only, and starting
them once keeps the suite fast. Tests that change a responder's
behaviour must call `net.responder(name).reset_behaviour()` when done.
Missing nsd means a clean skip. Without root the servers run on a high
port: tests that need a resolver to iterate must check `net.iterable`.
"""
import pytest

from .net import TestNet, default_port, pick_prefix
from .nsd import have_nsd
from .reference import ReferenceUnbound, have_unbound
from .signed_net import SignedNet
from .signer import have_ldns


@pytest.fixture(scope="session")
def testnet_net(tmp_path_factory):
    """A started TestNet on a free random 127.N.M.0/24 block; stopped by
    PID at the end of the session, whatever happens."""
    if not have_nsd():
        pytest.skip("nsd is not installed (/usr/sbin/nsd)")
    port = default_port()
    net = TestNet(str(tmp_path_factory.mktemp("testnet")),
                  prefix=pick_prefix(port), port=port)
    try:
        net.start()
        yield net
    finally:
        net.stop()


@pytest.fixture
def testnet_reference(testnet_net, tmp_path):
    """Debian's real Unbound resolving through testnet_net (skips when
    it is not installed or the net is not on port 53)."""
    if not have_unbound():
        pytest.skip("/usr/sbin/unbound is not installed")
    if not testnet_net.iterable:
        pytest.skip("test internet not on port 53 (needs root)")
    ref = ReferenceUnbound(testnet_net, str(tmp_path / "reference"))
    try:
        ref.start()
        yield ref
    finally:
        ref.stop()


@pytest.fixture
def net(testnet_net):
    """testnet_net for tests that need a resolver to iterate (skips off
    port 53); every responder's behaviour is reset afterwards."""
    if not testnet_net.iterable:
        pytest.skip("test internet not on port 53 (needs root)")
    yield testnet_net
    for r in testnet_net.responders.values():
        r.reset_behaviour()


@pytest.fixture(scope="session")
def signednet_net(tmp_path_factory):
    """A started SignedNet (fresh keys, zones signed at start) on a free
    random 127.N.M.0/24 block; stopped by PID at the end of the session.
    Needs nsd, ldns-keygen/ldns-signzone and port 53 (root)."""
    if not have_nsd():
        pytest.skip("nsd is not installed (/usr/sbin/nsd)")
    if not have_ldns():
        pytest.skip("ldnsutils (ldns-keygen, ldns-signzone) not installed")
    pytest.importorskip("cryptography", reason="python3-cryptography "
                        "(re-signs the nozoneflag zone) not installed")
    port = default_port()
    if port != 53:
        pytest.skip("the signed test internet needs port 53 (root)")
    net = SignedNet(str(tmp_path_factory.mktemp("signednet")),
                    prefix=pick_prefix(port, hosts=range(2, 9)), port=port)
    try:
        net.start()
        yield net
    finally:
        net.stop()
