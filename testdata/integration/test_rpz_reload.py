# SPDX-License-Identifier: BSD-3-Clause
"""rpz: zones at a reload (respip/rpz_store.c, the module's
reload_prepare): the zone files are read in the reload thread, so the
control channel and the workers answer while a zone loads (the zone file
is a FIFO the test holds shut until it has checked both); an unchanged
zone file is kept, not read again (the log says so), and a changed one is
read again. The triggers answer before resolution (NXDOMAIN and NODATA),
so no upstream is needed. One daemon for the file."""
import os
import stat
import subprocess
import time

import dns.rcode
import pytest

from conftest import SLOW, ControlServer, _finish, ours_only

pytestmark = ours_only

ZONE = """$ORIGIN rpz.t.
$TTL 60
@ SOA ns.rpz.t. admin.rpz.t. 1 3600 600 86400 60
@ NS ns.rpz.t.
%s
"""


class Daemon(ControlServer):
    def body(self, zonefile):
        return ('module-config: "respip iterator"\n'
                'access-control: 127.0.0.0/8 allow\n'
                'rpz:\n\tname: rpz.t.\n\tzonefile: "%s"\n' % zonefile)

    def configure(self, zonefile):
        self.write_config(self.body(zonefile), verbosity=4,
                          extra=self.rc_clause())


def write_zone(path, triggers):
    with open(path, "w") as f:
        f.write(ZONE % "\n".join(triggers))


@pytest.fixture(scope="module")
def daemon(tmp_path_factory):
    d = Daemon(tmp_path_factory.mktemp("rpzreload"))
    d.zone = os.path.join(d.dir, "t.zone")
    write_zone(d.zone, ["a.blk CNAME .", "b.blk CNAME ."])
    d.start(d.body(d.zone), verbosity=4, extra=d.rc_clause())
    yield d
    _finish(d)


def rcode_of(d, name):
    r = d.query(name, timeout=2 * SLOW, retries=2)
    if r.rcode() == dns.rcode.NOERROR and not r.answer:
        return "NODATA"
    return dns.rcode.to_text(r.rcode())


def becomes(d, name, want):
    """name's answer is want (polled: the workers take a new policy
    between two queries, just after the control answer)."""
    deadline = time.time() + 5 * SLOW
    while time.time() < deadline:
        got = rcode_of(d, name)
        if got == want:
            return True
        time.sleep(0.02)
    return False


def kept_lines(d):
    return d.log().count("rpz: zone rpz.t.: %s unchanged, kept" % d.zone)


def test_unchanged_zone_kept(daemon):
    assert becomes(daemon, "a.blk.", "NXDOMAIN")
    before = kept_lines(daemon)
    r = daemon.ctl("reload")
    assert r.stdout == "ok\n", (r.stdout, r.stderr)
    assert becomes(daemon, "a.blk.", "NXDOMAIN")
    assert kept_lines(daemon) == before + 1


def test_changed_zone_read_again(daemon):
    before = kept_lines(daemon)
    write_zone(daemon.zone, ["a.blk CNAME *.", "b.blk CNAME .",
                             "c.blk CNAME ."])
    r = daemon.ctl("reload")
    assert r.stdout == "ok\n", (r.stdout, r.stderr)
    assert becomes(daemon, "a.blk.", "NODATA")
    assert becomes(daemon, "c.blk.", "NXDOMAIN")
    assert kept_lines(daemon) == before


def feed_fifo(path, text):
    """Write text to the FIFO when a reader has it open; False when
    none has."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        os.set_blocking(fd, True)
        os.write(fd, text.encode())
    finally:
        os.close(fd)
    return True


def test_answers_while_zone_reads(daemon):
    # the next zone file is a FIFO: its read waits until the test writes
    fifo = os.path.join(daemon.dir, "next.zone")
    os.mkfifo(fifo)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert becomes(daemon, "a.blk.", "NODATA")
    daemon.configure(fifo)
    reload = subprocess.Popen(daemon.ctl_args("reload"), text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    fed = False
    try:
        # the reload thread has the FIFO open: it is reading
        deadline = time.time() + 10 * SLOW
        while not fed and time.time() < deadline:
            fd = None
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                time.sleep(0.02)
                continue
            try:
                # held open: the reader waits for the text; meanwhile
                # the control channel and the workers answer, with the
                # old policy
                r = daemon.ctl("status", timeout=5)
                assert r.returncode == 0 and "is running" in r.stdout, r
                assert reload.poll() is None, reload.communicate()
                assert rcode_of(daemon, "a.blk.") == "NODATA"
            finally:
                os.set_blocking(fd, True)
                os.write(fd, (ZONE % "a.blk CNAME .\nd.blk CNAME .")
                         .encode())
                os.close(fd)
            fed = True
        assert fed, "the reload never opened the zone file"
        out, err = reload.communicate(timeout=30 * SLOW)
        assert out == "ok\n", (out, err)
        assert becomes(daemon, "a.blk.", "NXDOMAIN")
        assert becomes(daemon, "d.blk.", "NXDOMAIN")
    finally:
        if reload.poll() is None:
            feed_fifo(fifo, ZONE % "")
            reload.communicate(timeout=30 * SLOW)
