# SPDX-License-Identifier: BSD-3-Clause
"""RFC 5011 automated trust anchor updates (auto-trust-anchor-file:).

A signed test root of its own (one NSD on a free 127.N.M.2, port 53)
rolls its KSK while the daemon runs: the new key is published (ADDPEND,
then VALID once add-holddown passed), the old one revoked (REVOKED) and
then removed (gone from the file after del-holddown). Hold-downs are
seconds (permit-small-holddown) and the DNSKEY TTL 2 s, so the daemon
probes about every second. Checked on the way: the file on disk shows
each state in Unbound's format; validation keeps working across the
roll without a restart; a daemon restarted in the middle continues from
the file; Debian's Unbound takes the file over and hands it back; a
new key in a DNSKEY set that no trusted key signs is never added; a
file the daemon cannot write is an error at start-up.

Needs nsd, ldnsutils and root (port 53); the hand-over needs Debian's
Unbound (/usr/sbin/unbound).
"""
import os
import re
import shutil
import signal
import sys
import time

import dns.flags
import dns.message
import dns.rcode
import pytest

TESTDATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTDATA not in sys.path:
    sys.path.insert(0, TESTDATA)

from testnet import have_nsd, pick_prefix, default_port  # noqa: E402
from testnet import nsd as nsdmod  # noqa: E402
from testnet import signer  # noqa: E402
from testnet.signed_net import ZoneText  # noqa: E402
from conftest import REFERENCE, SLOW, DEB_UNBOUND, RefServer, Server, _finish  # noqa: E402

ALG = "ECDSAP256SHA256"

pytestmark = [
    pytest.mark.skipif(not have_nsd(), reason="nsd is not installed"),
    pytest.mark.skipif(not signer.have_ldns(), reason="ldnsutils missing"),
    pytest.mark.skipif(REFERENCE, reason="tests this build's RFC 5011"),
]

BODY = """module-config: "validator iterator"
auto-trust-anchor-file: "%s"
add-holddown: 3
del-holddown: 3
keep-missing: 60
permit-small-holddown: yes
do-ip6: no
access-control: 127.0.0.0/8 allow"""

STATE_NAMES = {1: "ADDPEND", 2: "VALID", 3: "MISSING", 4: "REVOKED"}


class Key:
    """A root key made by ldns-keygen, its .key file rewritten with TTL 2
    (the DNSKEY TTL sets the probe interval) and, once revoked, the
    REVOKE flag (ldns-revoke)."""

    def __init__(self, workdir, ksk):
        self.k = signer.keygen(workdir, ".", ALG, ksk=ksk)
        with open(self.k.base + ".key") as f:
            text = f.read()
        with open(self.k.base + ".key", "w") as f:
            f.write(re.sub(r"^\.\s+IN", ".\t2\tIN", text, flags=re.M))
        self.material = self.k.rdata_text.split()[3:]

    def revoke(self):
        signer.run(["ldns-revoke", self.k.base + ".key"],
                   os.path.dirname(self.k.base))

    def dnskey_line(self):
        with open(self.k.base + ".key") as f:
            line = next(l for l in f if "DNSKEY" in l and
                        not l.lstrip().startswith(";"))
        return line.split(";")[0].strip()


class RollRoot:
    """The test root: one NSD, a zone signed by the keys given, the
    DNSKEY set as given (ldns-signzone -d: keys published and keys
    signing are chosen apart)."""

    def __init__(self, workdir, prefix):
        self.dir = workdir
        self.addr = prefix + ".2"
        self.serial = 1
        self.nsd = None
        self.hints = os.path.join(workdir, "root.hints")
        os.makedirs(workdir, exist_ok=True)
        with open(self.hints, "w") as f:
            f.write(". 3600 IN NS a.root.test.\n"
                    "a.root.test. 3600 IN A %s\n" % self.addr)

    def publish(self, published, signing):
        self.serial += 1
        text = ("$TTL 60\n"
                ". 60 IN SOA a.root.test. h.test. %d 3600 600 86400 60\n"
                ". 60 IN NS a.root.test.\n"
                "a.root.test. 60 IN A %s\n"
                "www.example. 60 IN A 192.0.2.1\n"
                "other.example. 60 IN A 192.0.2.2\n" % (self.serial,
                                                      self.addr))
        text += "".join(k.dnskey_line() + "\n" for k in published)
        src = os.path.join(self.dir, "root.unsigned")
        out = os.path.join(self.dir, "root.signed")
        with open(src, "w") as f:
            f.write(text)
        now = time.time()
        signer.run([signer.SIGNZONE, "-d", "-f", out, "-o", ".",
                    "-i", signer.stamp(now - 3600),
                    "-e", signer.stamp(now + 30 * 86400), src] +
                   [k.k.base for k in signing], self.dir)
        with open(out) as f:
            zone = ZoneText(".", f.read())
        if self.nsd:
            self.nsd.stop()
        self.nsd = nsdmod.NsdInstance("root", os.path.join(self.dir, "nsd"),
                                      self.addr, 53, [zone])
        self.nsd.write()
        self.nsd.start()
        self.nsd.wait_ready()

    def stop(self):
        if self.nsd:
            self.nsd.stop()


def file_states(path):
    """{key material: (state, lastchange)} from an autotrust file."""
    out = {}
    try:
        with open(path) as f:
            lines = f.readlines()
    except OSError:
        return out
    for l in lines:
        if "DNSKEY" not in l or l.startswith(";"):
            continue
        rr = l.split(";")[0].split()
        i = rr.index("DNSKEY")
        m = re.search(r";;state=(\d) \[ *(\w+) *\] ;;count=(\d+) "
                      r";;lastchange=(\d+)", l)
        if m:
            out["".join(rr[i + 4:])] = (int(m.group(1)), int(m.group(4)))
    return out


def state_of(path, key):
    s = file_states(path).get("".join(key.material))
    return s[0] if s else None


def wait_state(path, key, want, timeout, srv=None):
    deadline = time.time() + timeout * SLOW
    while time.time() < deadline:
        if state_of(path, key) == want:
            return
        time.sleep(0.2)
    with open(path) as f:
        text = f.read()
    raise AssertionError("key never reached state %s in %ss:\n%s\n%s" % (
        want, timeout, text, srv.output()[-3000:] if srv else ""))


def secure(srv):
    q = dns.message.make_query("www.example.", "A", want_dnssec=True)
    r = srv.query(q, timeout=4.0 * SLOW)
    return r.rcode() == dns.rcode.NOERROR and bool(r.flags & dns.flags.AD)


@pytest.fixture
def root(tmp_path):
    if default_port() != 53:
        pytest.skip("the test root needs port 53 (root)")
    r = RollRoot(str(tmp_path / "root"),
                 pick_prefix(53, hosts=range(2, 3)))
    yield r
    r.stop()


def start(cls, d, anchor, root):
    os.makedirs(d, exist_ok=True)
    srv = cls(d)
    srv.start(BODY % anchor, root_hints=root.hints, verbosity=1)
    return srv


def test_ksk_roll(root, tmp_path):
    kd = str(tmp_path / "keys")
    ksk1, zsk = Key(kd, True), Key(kd, False)
    ksk2 = Key(kd, True)
    root.publish([ksk1, zsk], [ksk1, zsk])
    anchor = str(tmp_path / "root.key")
    with open(anchor, "w") as f:        # as Debian ships it: no state
        f.write(ksk1.dnskey_line() + "\n")
    srv = start(Server, tmp_path / "ours", anchor, root)
    try:
        assert secure(srv)
        # the first probe rewrites the file in Unbound's format
        wait_state(anchor, ksk1, 2, 5, srv)
        text = open(anchor).read()
        for h in (";;id: . 1", ";;last_queried: ", ";;last_success: ",
                  ";;next_probe_time: ", ";;query_failed: 0",
                  ";;query_interval: ", ";;retry_time: "):
            assert h in text, text

        # publish KSK2: ADDPEND, then (a restart in between) VALID
        root.publish([ksk1, ksk2, zsk], [ksk1, zsk])
        wait_state(anchor, ksk2, 1, 5, srv)
        since = file_states(anchor)["".join(ksk2.material)][1]
        _finish(srv)
        assert state_of(anchor, ksk2) == 1
        srv = start(Server, tmp_path / "ours2", anchor, root)
        assert secure(srv)
        # the restarted daemon goes on from the file: the pending key
        # keeps the time of its first sighting
        st = file_states(anchor)["".join(ksk2.material)]
        assert st[0] == 2 or st[1] == since, (st, since)
        wait_state(anchor, ksk2, 2, 10, srv)
        # VALID once add-holddown (3 s) passed since that first sighting
        assert file_states(anchor)["".join(ksk2.material)][1] >= since + 3
        assert secure(srv)
        # a reload reads the file again and goes on from it
        srv.send_signal(signal.SIGHUP)
        time.sleep(0.5)
        assert secure(srv)
        assert state_of(anchor, ksk1) == 2 and state_of(anchor, ksk2) == 2

        # revoke KSK1 (it signs the set with the REVOKE bit): REVOKED
        ksk1.revoke()
        root.publish([ksk1, ksk2, zsk], [ksk1, ksk2, zsk])
        wait_state(anchor, ksk1, 4, 5, srv)
        assert secure(srv)
        # KSK1 is no longer trusted: a set signed by it alone is bogus
        # for the daemon (and KSK2 is then missing its signature)

        # remove it: after del-holddown it leaves the file
        root.publish([ksk2, zsk], [ksk2, zsk])
        deadline = time.time() + 10 * SLOW
        while state_of(anchor, ksk1) is not None and time.time() < deadline:
            time.sleep(0.2)
        assert state_of(anchor, ksk1) is None, open(anchor).read()
        assert state_of(anchor, ksk2) == 2
        assert secure(srv)
        assert srv.alive()
    finally:
        _finish(srv)


def test_unsigned_new_key_never_trusted(root, tmp_path):
    """A DNSKEY set that holds a new key but is signed only by that key
    (an attacker's, the real KSK left unsigned) does not verify: the new
    key is never added, the failures are counted, and validation fails
    rather than trusting it."""
    kd = str(tmp_path / "keys")
    ksk1, zsk, evil = Key(kd, True), Key(kd, False), Key(kd, True)
    root.publish([ksk1, zsk], [ksk1, zsk])
    anchor = str(tmp_path / "root.key")
    with open(anchor, "w") as f:
        f.write(ksk1.dnskey_line() + "\n")
    srv = start(Server, tmp_path / "ours", anchor, root)
    try:
        wait_state(anchor, ksk1, 2, 5, srv)
        root.publish([ksk1, evil, zsk], [evil, zsk])
        deadline = time.time() + 6 * SLOW
        failed = 0
        while time.time() < deadline:
            assert state_of(anchor, evil) is None, open(anchor).read()
            m = re.search(r";;query_failed: (\d+)", open(anchor).read())
            failed = int(m.group(1)) if m else 0
            time.sleep(0.3)
        assert failed >= 2, open(anchor).read()
        assert not secure(srv)
        assert state_of(anchor, ksk1) == 2
        # back to the real signer: validation works again
        root.publish([ksk1, zsk], [ksk1, zsk])
        deadline = time.time() + 8 * SLOW
        while not secure(srv) and time.time() < deadline:
            time.sleep(0.3)
        assert secure(srv)
        assert state_of(anchor, evil) is None
    finally:
        _finish(srv)


@pytest.mark.skipif(not os.access(DEB_UNBOUND, os.X_OK),
                    reason="Debian's unbound is not installed")
def test_debian_unbound_takes_turns(root, tmp_path):
    """Ours writes the file with a key ADDPEND, Debian's Unbound takes it
    over (validates, keeps the states, makes the key VALID), ours takes
    it back and validates with both keys VALID."""
    kd = str(tmp_path / "keys")
    ksk1, zsk, ksk2 = Key(kd, True), Key(kd, False), Key(kd, True)
    root.publish([ksk1, ksk2, zsk], [ksk1, zsk])
    anchor = str(tmp_path / "root.key")
    with open(anchor, "w") as f:
        f.write(ksk1.dnskey_line() + "\n")
    srv = start(Server, tmp_path / "ours", anchor, root)
    try:
        wait_state(anchor, ksk2, 1, 5, srv)
        assert state_of(anchor, ksk1) == 2
    finally:
        _finish(srv)
    ref = start(RefServer, tmp_path / "debian", anchor, root)
    try:
        assert secure(ref)
        wait_state(anchor, ksk2, 2, 12, ref)
        assert state_of(anchor, ksk1) == 2
    finally:
        _finish(ref)
    srv = start(Server, tmp_path / "ours2", anchor, root)
    try:
        assert secure(srv)
        time.sleep(1.5)
        assert state_of(anchor, ksk1) == 2 and state_of(anchor, ksk2) == 2
    finally:
        _finish(srv)


def test_unwritable_file_is_a_start_error(root, tmp_path, world_tmpdir):
    """The daemon drops to username: nobody; the anchor's directory
    belongs to root (0755): a start-up error naming the file."""
    kd = str(tmp_path / "keys")
    ksk1 = Key(kd, True)
    adir = os.path.join(world_tmpdir, "anchors")
    os.makedirs(adir)
    os.chmod(adir, 0o755)
    anchor = os.path.join(adir, "root.key")
    with open(anchor, "w") as f:
        f.write(ksk1.dnskey_line() + "\n")
    os.chmod(anchor, 0o644)
    wd = os.path.join(world_tmpdir, "run")
    os.makedirs(wd)
    os.chmod(wd, 0o777)
    srv = Server(wd)
    srv.write_config(BODY % anchor, root_hints=root.hints,
                     username="nobody")
    import subprocess
    p = subprocess.run(srv.run_args(["-d"]), capture_output=True,
                       text=True, timeout=20)
    out = p.stdout + p.stderr + srv.log()
    assert p.returncode != 0, out
    assert "auto-trust-anchor-file %s" % anchor in out, out
    assert "cannot write" in out, out


@pytest.mark.skipif(os.geteuid() != 0, reason="chroot needs root")
def test_written_inside_chroot_as_user(root, tmp_path, world_tmpdir):
    """chroot: and username: nobody: the file (named relative to
    directory:) is written from inside the chroot by the unprivileged
    user, atomically (a new file, owned by nobody, replaces it)."""
    import pwd
    import subprocess
    from conftest import asan_env
    nobody = pwd.getpwnam("nobody")
    kd = str(tmp_path / "keys")
    ksk1, zsk = Key(kd, True), Key(kd, False)
    root.publish([ksk1, zsk], [ksk1, zsk])
    wd = os.path.join(world_tmpdir, "run")
    os.makedirs(wd)
    os.chmod(wd, 0o777)
    anchor = os.path.join(wd, "root.key")
    with open(anchor, "w") as f:
        f.write(ksk1.dnskey_line() + "\n")
    shutil.copy(root.hints, os.path.join(wd, "root.hints"))
    srv = Server(wd)
    srv.write_config(BODY % "root.key", root_hints=os.path.join(
        wd, "root.hints"), username="nobody")
    with open(srv.conf) as f:
        text = f.read().replace('chroot: ""', 'chroot: "%s"' % wd)
    text = text.replace(os.path.join(wd, "root.hints"), "root.hints")
    with open(srv.conf, "w") as f:
        f.write(text)
    try:
        with open(srv.stderr, "wb") as err:
            srv.proc = subprocess.Popen(srv.run_args(["-d"]), stderr=err,
                                        stdout=subprocess.DEVNULL,
                                        stdin=subprocess.DEVNULL, cwd=wd,
                                        env=asan_env(detect_leaks=0))
        srv.pid = srv.proc.pid
        srv.wait_ready()
        wait_state(anchor, ksk1, 2, 5, srv)
        assert os.stat(anchor).st_uid == nobody.pw_uid
        assert ";;id: . 1" in open(anchor).read()
        assert secure(srv)
        assert [n for n in os.listdir(wd) if "root.key." in n] == []
    finally:
        _finish(srv)


def test_all_keys_revoked(root, tmp_path):
    """The only trusted key revokes itself: the point is revoked, the
    file says ;;REVOKED (as Unbound writes it) and the root is no anchor
    any more: answers come without AD, not SERVFAIL. A restart on that
    file keeps it so."""
    kd = str(tmp_path / "keys")
    ksk1, zsk = Key(kd, True), Key(kd, False)
    root.publish([ksk1, zsk], [ksk1, zsk])
    anchor = str(tmp_path / "root.key")
    with open(anchor, "w") as f:
        f.write(ksk1.dnskey_line() + "\n")
    srv = start(Server, tmp_path / "ours", anchor, root)
    try:
        wait_state(anchor, ksk1, 2, 5, srv)
        assert secure(srv)
        ksk1.revoke()
        root.publish([ksk1, zsk], [ksk1, zsk])
        deadline = time.time() + 6 * SLOW
        while ";;REVOKED" not in open(anchor).read() and \
                time.time() < deadline:
            time.sleep(0.2)
        assert ";;REVOKED" in open(anchor).read(), open(anchor).read()
        # a name not cached yet (cached answers keep their status)
        q = dns.message.make_query("other.example.", "A", want_dnssec=True)
        r = srv.query(q, timeout=4.0 * SLOW)
        assert r.rcode() == dns.rcode.NOERROR
        assert not r.flags & dns.flags.AD
    finally:
        _finish(srv)
    srv = start(Server, tmp_path / "ours2", anchor, root)
    try:
        assert "revoked" in srv.output()
        r = srv.query(q, timeout=4.0 * SLOW)
        assert r.rcode() == dns.rcode.NOERROR
        assert not r.flags & dns.flags.AD
    finally:
        _finish(srv)


def test_file_starting_with_ds(root, tmp_path):
    """A file holding only the KSK's DS (as a first root.key may): the
    first probe finds the DNSKEY the DS matches, trusts it (VALID at
    once, as Unbound) and writes the file with the key, not the DS."""
    kd = str(tmp_path / "keys")
    ksk1, zsk = Key(kd, True), Key(kd, False)
    root.publish([ksk1, zsk], [ksk1, zsk])
    anchor = str(tmp_path / "root.key")
    with open(anchor, "w") as f:
        f.write(ksk1.k.ds_line() + "\n")
    srv = start(Server, tmp_path / "ours", anchor, root)
    try:
        assert secure(srv)
        wait_state(anchor, ksk1, 2, 5, srv)
        text = open(anchor).read()
        assert " DS " not in text and "\tDS\t" not in text, text
        assert secure(srv)
    finally:
        _finish(srv)
