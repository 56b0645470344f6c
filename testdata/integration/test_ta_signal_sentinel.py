# SPDX-License-Identifier: BSD-3-Clause
"""Key tag signalling (RFC 8145 section 5, trust-anchor-signaling:) and
the root key sentinel (RFC 8509, root-key-sentinel:) on the signed test
internet, ours and Debian's Unbound 1.17 with the same config.

The "_ta-XXXX" queries are seen as the root server sees them: a packet
socket on lo records every UDP DNS query sent to the root's address
(NSD keeps no query log). Needs nsd, ldnsutils, Debian's unbound and
root (port 53, AF_PACKET); skips otherwise."""
import ctypes
import os
import socket
import struct
import threading
import time

import dns.flags
import dns.message
import dns.rcode
import dns.rdatatype
import pytest

from testnet import have_nsd
from testnet.fixture import signednet_net  # noqa: F401
from conftest import REFERENCE, SLOW, DEB_UNBOUND, RefServer, Server, _finish


pytestmark = [
    pytest.mark.skipif(not have_nsd(), reason="nsd is not installed"),
    pytest.mark.skipif(not os.access(DEB_UNBOUND, os.X_OK),
                       reason="Debian's unbound is not installed"),
    pytest.mark.skipif(REFERENCE, reason="compares this build with "
                       "the reference; UNBOUND_BIN is the reference"),
]

BASE = """module-config: "validator iterator"
do-ip6: no
access-control: 127.0.0.0/8 allow
minimal-responses: yes
"""


def root_address(net):
    with open(net.root_hints) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 4 and parts[-2] == "A":
                return parts[-1]
    raise AssertionError("no root address in %s" % net.root_hints)


def anchor_tag(net):
    with open(net.anchor) as f:
        for line in f:
            parts = line.split()
            if "DS" in parts:
                return int(parts[parts.index("DS") + 1])
    raise AssertionError("no DS in %s" % net.anchor)


class Sniffer:
    """Records (qname, qtype) of the UDP DNS queries sent to addr:53 on
    lo, from a thread, until stop()."""

    def __init__(self, addr):
        self.dst = socket.inet_aton(addr)
        self.seen = []
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                                  socket.ntohs(0x0003))
        # lo carries every test's traffic on this machine: the kernel
        # keeps only UDP to addr:53, so nothing is dropped for want of
        # room in the socket's buffer
        self._filter(struct.unpack("!I", self.dst)[0])
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
        self.sock.bind(("lo", 0))
        self.sock.settimeout(0.2)
        self.running = True
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _filter(self, ip):
        """A classic BPF program: IPv4, UDP, to ip, port 53."""
        prog = [(0x28, 0, 0, 12),            # ldh [12]: ethertype
                (0x15, 0, 8, 0x0800),        # IPv4?
                (0x30, 0, 0, 23),            # ldb [23]: protocol
                (0x15, 0, 6, 17),            # UDP?
                (0x20, 0, 0, 30),            # ld [30]: destination
                (0x15, 0, 4, ip),
                (0xb1, 0, 0, 14),            # x = IP header length
                (0x48, 0, 0, 16),            # ldh [x + 16]: dst port
                (0x15, 0, 1, 53),
                (0x06, 0, 0, 0xffff),        # keep
                (0x06, 0, 0, 0)]             # drop
        self._prog = ctypes.create_string_buffer(
            b"".join(struct.pack("HBBI", *i) for i in prog))
        fprog = struct.pack("HL", len(prog), ctypes.addressof(self._prog))
        self.sock.setsockopt(socket.SOL_SOCKET, 26, fprog)  # ATTACH_FILTER

    def _run(self):
        while self.running:
            try:
                frame, info = self.sock.recvfrom(65535)
            except socket.timeout:
                continue
            except OSError:
                return
            if info[2] == socket.PACKET_OUTGOING:
                continue          # each packet once: as lo delivers it
            ip = frame[14:]
            if len(ip) < 28 or ip[0] >> 4 != 4 or ip[9] != 17:
                continue
            if ip[16:20] != self.dst:
                continue
            ihl = (ip[0] & 15) * 4
            dport = struct.unpack("!H", ip[ihl + 2:ihl + 4])[0]
            if dport != 53:
                continue
            try:
                m = dns.message.from_wire(ip[ihl + 8:])
            except Exception:
                continue
            if m.question:
                q = m.question[0]
                self.seen.append((q.name.to_text().lower(),
                                  dns.rdatatype.to_text(q.rdtype)))

    def stop(self):
        self.running = False
        self.thread.join(2)
        self.sock.close()
        return self.seen


def ta_queries(seen):
    return sorted({q for q in seen if q[0].startswith("_ta-")})


def ask(srv, qname, qtype="A", do=True, cd=False, timeout=10.0):
    q = dns.message.make_query(qname, qtype, payload=1232, want_dnssec=do)
    if cd:
        q.flags |= dns.flags.CD
    return srv.query(q, timeout=timeout * SLOW)


def view(r):
    return (dns.rcode.to_text(r.rcode()), bool(r.flags & dns.flags.AD),
            sorted("%s %s" % (rr.name, dns.rdatatype.to_text(rr.rdtype))
                   for rr in r.answer))


def run_and_sniff(cls, tmp_path, name, net, body, expect_ta=True):
    """Start cls with body, ask one signed name, stop; the root's
    queries seen meanwhile."""
    d = tmp_path / name
    d.mkdir()
    srv = cls(d)
    sniff = Sniffer(root_address(net))
    try:
        srv.start(BASE + body, root_hints=net.root_hints)
        r = ask(srv, "www.example.sec1.")
        assert r.rcode() == dns.rcode.NOERROR and r.flags & dns.flags.AD
        # the detached query may go after the answer: wait for it (or,
        # when none is expected, a while to see none comes)
        end = time.time() + (5 * SLOW if expect_ta else 1)
        while time.time() < end and not (expect_ta and
                                         ta_queries(sniff.seen)):
            time.sleep(0.05)
    finally:
        _finish(srv)
        seen = sniff.stop()
    return seen


@pytest.mark.parametrize("extra_tags", [0, 1], ids=["one_tag", "two_tags"])
def test_ta_query_as_unbound(signednet_net, tmp_path, extra_tags):
    net = signednet_net
    tag = anchor_tag(net)
    anchor = str(tmp_path / "root.anchor")
    with open(net.anchor) as f:
        text = f.read()
    # a second DS of a key that does not exist: its tag is signalled too
    other = (tag + 0x1111) & 0xffff
    if extra_tags:
        text += ". 3600 IN DS %d 8 2 %s\n" % (other, "ab" * 32)
    with open(anchor, "w") as f:
        f.write(text)
    body = 'trust-anchor-file: "%s"\n' % anchor
    want = "_ta-" + "-".join("%04x" % t for t in sorted(
        [tag] + ([other] if extra_tags else []))) + "."
    ours = ta_queries(run_and_sniff(Server, tmp_path, "ours", net, body))
    ref = ta_queries(run_and_sniff(RefServer, tmp_path, "ref", net, body))
    # the name is the signal; the type differs: Unbound's qname
    # minimisation asks the root "_ta-XXXX. A" (its NXDOMAIN ends the
    # lookup), ours asks the question itself, type NULL
    assert ours == [(want, "NULL")], ours
    assert [q[0] for q in ref] == [want], ref


def test_ta_signaling_off(signednet_net, tmp_path):
    net = signednet_net
    body = 'trust-anchor-file: "%s"\ntrust-anchor-signaling: no\n' % \
        net.anchor
    ours = run_and_sniff(Server, tmp_path, "ours", net, body, False)
    ref = run_and_sniff(RefServer, tmp_path, "ref", net, body, False)
    assert ours and ref, "the sniffer saw no query to the root"
    assert ta_queries(ours) == [] and ta_queries(ref) == []


def sentinel_names(tag):
    other = 11111 if tag != 11111 else 22222
    base = ".wild.example.sec1."
    return {
        # (label, expected rcode with the sentinel on)
        "is-ta-anchor": ("root-key-sentinel-is-ta-%05d" % tag + base,
                         "NOERROR"),
        "is-ta-other": ("root-key-sentinel-is-ta-%05d" % other + base,
                        "SERVFAIL"),
        "not-ta-anchor": ("root-key-sentinel-not-ta-%05d" % tag + base,
                          "SERVFAIL"),
        "not-ta-other": ("root-key-sentinel-not-ta-%05d" % other + base,
                         "NOERROR"),
        # not a sentinel label: four digits, six digits, upper case
        "four-digits": ("root-key-sentinel-is-ta-%04d" % (other % 10000) +
                        base, "NOERROR"),
        "upper-case": ("ROOT-KEY-SENTINEL-IS-TA-%05d" % other + base,
                       "SERVFAIL"),
        # an insecure answer is never changed
        "insecure": ("root-key-sentinel-is-ta-%05d.unsigned.sec1." % other,
                     "NXDOMAIN"),
        # a secure NXDOMAIN is
        "nxdomain": ("root-key-sentinel-is-ta-%05d.example.sec1." % other,
                     "SERVFAIL"),
    }


@pytest.mark.parametrize("setting", ["", "root-key-sentinel: no"],
                         ids=["on", "off"])
def test_sentinel_as_unbound(signednet_net, tmp_path, setting):
    net = signednet_net
    tag = anchor_tag(net)
    body = 'trust-anchor-file: "%s"\n%s\n' % (net.anchor, setting)
    ours = Server(tmp_path / "o")
    ref = RefServer(tmp_path / "r")
    os.mkdir(ours.dir)
    os.mkdir(ref.dir)
    problems = []
    try:
        ours.start(BASE + body, root_hints=net.root_hints)
        ref.start(BASE + body, root_hints=net.root_hints)
        for case, (qname, rcode) in sorted(sentinel_names(tag).items()):
            if setting and rcode == "SERVFAIL":
                rcode = "NXDOMAIN" if case == "nxdomain" else "NOERROR"
            for do, cd in ((True, False), (False, False), (True, True)):
                a = view(ask(ours, qname, do=do, cd=cd))
                b = view(ask(ref, qname, do=do, cd=cd))
                # CD: nothing is validated, so the sentinel never acts
                want = rcode
                if cd and rcode == "SERVFAIL":
                    want = "NXDOMAIN" if case == "nxdomain" else "NOERROR"
                if a != b or a[0] != want:
                    problems.append("%s DO=%d CD=%d: ours %s, Unbound %s, "
                                    "want %s" % (case, do, cd, a, b, want))
            # asked again: the same (a sentinel SERVFAIL is not cached
            # as a secure answer)
            a = view(ask(ours, qname))
            if a[0] != rcode:
                problems.append("%s again: %s" % (case, a))
    finally:
        _finish(ours)
        _finish(ref)
    assert not problems, "\n".join(problems)
