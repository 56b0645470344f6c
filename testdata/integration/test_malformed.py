# SPDX-License-Identifier: BSD-3-Clause
"""Malformed and unusual packets: each must give a deliberate drop or an
error reply, never a crash; the daemon answers normally afterwards.

The expected rcodes were checked against real Unbound 1.17. A FORMERR
reply may carry the question or echo the packet, so only the header is
checked: same ID, QR=1, the rcode."""
import socket
import struct
import time

import pytest

from conftest import (REFERENCE, answer_texts, make_query, recv_tcp_msg,
                      tcp_frame)

LOCAL = 'local-data: "www.example.com. A 192.0.2.1"'
QID = 0x4d2f
NOERROR, FORMERR, NOTIMP, REFUSED = 0, 1, 4, 5


def hdr(flags=0x0100, qd=1, an=0, ns=0, ar=0, qid=QID):
    return struct.pack("!HHHHHH", qid, flags, qd, an, ns, ar)


QUESTION = b"\x03www\x07example\x03com\x00" + struct.pack("!HH", 1, 1)


def opt(version=0, payload=1232, rdlen=0):
    return b"\x00" + struct.pack("!HHIH", 41, payload, version << 16, rdlen)


# name, packet, expected rcode (None: dropped) for this implementation,
# and for the reference where it differs
CASES = [
    ("short-6-bytes", b"\x4d\x2f\x01\x00\x00\x01", None),
    ("short-11-bytes", hdr()[:11], None),
    ("empty", b"", None),
    ("qr-set", hdr(flags=0x8100) + QUESTION, None),
    ("qdcount-0", hdr(qd=0), FORMERR),
    ("qdcount-0-with-opt", hdr(qd=0, ar=1) + opt(), FORMERR),
    ("qdcount-2", hdr(qd=2) + QUESTION + QUESTION, FORMERR),
    ("qdcount-1-no-question", hdr(), FORMERR),
    ("label-64", hdr() + b"\x40" + b"a" * 64 + b"\x00" +
     struct.pack("!HH", 1, 1), FORMERR),
    ("name-over-255", hdr() + (b"\x3f" + b"a" * 63) * 4 + b"\x00" +
     struct.pack("!HH", 1, 1), FORMERR),
    ("pointer-loop", hdr() + b"\xc0\x0c" + struct.pack("!HH", 1, 1),
     FORMERR),
    ("pointer-past-end", hdr() + b"\xc0\xff" + struct.pack("!HH", 1, 1),
     FORMERR),
    ("truncated-name", hdr() + b"\x03www\x07exa", FORMERR),
    ("truncated-type-class", hdr() + QUESTION[:-2], FORMERR),
    ("ancount-without-answer", hdr(an=1) + QUESTION, FORMERR),
    ("two-opt-rrs", hdr(ar=2) + QUESTION + opt() + opt(), FORMERR),
    ("opt-not-root-owner", hdr(ar=1) + QUESTION + b"\x01a\x00" +
     opt()[1:], FORMERR),
    ("opt-rdlen-past-end", hdr(ar=1) + QUESTION + opt(rdlen=10) + b"\x00",
     FORMERR),
    ("opcode-iquery", hdr(flags=0x0800) + QUESTION, NOTIMP),
    ("opcode-status", hdr(flags=0x1000) + QUESTION, NOTIMP),
    ("opcode-3", hdr(flags=0x1800) + QUESTION, NOTIMP),
    ("opcode-update", hdr(flags=0x2800) + QUESTION, NOTIMP),
    # NOTIFY is an opcode Unbound implements (for auth zones); with none
    # configured it answers REFUSED, and so do we (deliberately not NOTIMP)
    ("opcode-notify", hdr(flags=0x2000) + QUESTION, REFUSED),
    ("trailing-garbage", hdr() + QUESTION + b"garbage", NOERROR),
    ("rcode-bits-in-query", hdr(flags=0x0105) + QUESTION, NOERROR),
    ("z-bit-in-query", hdr(flags=0x0140) + QUESTION, NOERROR),
]


def expected(case):
    if REFERENCE and len(case) > 3:
        return case[3]
    return case[2]


def check_reply(reply, want, packet):
    if want is None:
        assert reply is None, "expected a drop, got %r" % reply
        return
    assert reply is not None, "no reply"
    assert len(reply) >= 12
    qid, flags = struct.unpack("!HH", reply[:4])
    assert qid == QID
    assert flags & 0x8000, "QR not set"
    assert flags & 0x000f == want, "rcode %d, want %d" % (flags & 0xf, want)
    if len(packet) >= 4:
        # the opcode is echoed
        assert (flags >> 11) & 0xf == (struct.unpack("!H", packet[2:4])[0]
                                       >> 11) & 0xf


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """One daemon for the whole table (module scope: the table is long)."""
    from conftest import Server, _finish
    srv = Server(tmp_path_factory.mktemp("malformed"))
    srv.start(LOCAL)
    yield srv
    _finish(srv)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_udp_table(shared, case):
    packet = case[1]
    want = expected(case)
    reply = shared.udp_raw(packet, timeout=0.7 if want is None else 2.0)
    check_reply(reply, want, packet)
    assert shared.alive()


def test_edns_badvers(shared):
    packet = hdr(ar=1) + QUESTION + opt(version=1)
    reply = shared.udp_raw(packet)
    import dns.message
    m = dns.message.from_wire(reply)
    assert m.rcode() == 16  # BADVERS: extended rcode in the OPT
    assert m.edns == 0  # the reply's OPT is version 0
    assert not m.answer


TCP_CASES = [c for c in CASES if c[0] in (
    "qdcount-0", "qdcount-2", "label-64", "pointer-loop",
    "truncated-name", "opcode-update", "two-opt-rrs")]


@pytest.mark.parametrize("case", TCP_CASES, ids=[c[0] for c in TCP_CASES])
def test_tcp_table(shared, case):
    packet = case[1]
    reply = shared.tcp_raw(tcp_frame(packet))
    check_reply(reply, expected(case), packet)


def test_tcp_qr_set_not_answered(shared):
    with shared.tcp_connect(timeout=1.0) as s:
        s.sendall(tcp_frame(hdr(flags=0x8100) + QUESTION))
        try:
            assert recv_tcp_msg(s) is None
        except (socket.timeout, ConnectionResetError):
            pass


def test_tcp_zero_length_prefix(shared):
    with shared.tcp_connect(timeout=1.0) as s:
        s.sendall(b"\x00\x00")
        try:
            recv_tcp_msg(s)
        except (socket.timeout, ConnectionResetError):
            pass
    assert shared.alive()
    r = shared.query("www.example.com.", "A", tcp=True)
    assert answer_texts(r) == ["www.example.com. A 192.0.2.1"]


def test_tcp_close_mid_message(shared):
    wire = make_query("www.example.com.").to_wire()
    for cut in (1, 2, 5, len(wire)):
        with shared.tcp_connect() as s:
            s.sendall(struct.pack("!H", len(wire) + 10) + wire[:cut])
        with shared.tcp_connect() as s:
            # length byte only
            s.sendall(b"\x00")
    # reset instead of close
    s = shared.tcp_connect()
    s.sendall(struct.pack("!H", 100) + wire)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                 struct.pack("ii", 1, 0))
    s.close()
    time.sleep(0.2)
    assert shared.alive()
    r = shared.query("www.example.com.", "A", tcp=True)
    assert answer_texts(r) == ["www.example.com. A 192.0.2.1"]


def test_tcp_short_message(shared):
    # a framed message under 12 bytes: dropped (connection may close)
    reply = shared.tcp_raw(tcp_frame(b"\x4d\x2f\x01\x00"), timeout=1.0)
    assert reply is None
    assert shared.alive()


def test_still_answers_after_table(shared):
    """Runs last in this module: the daemon survived all of the above."""
    assert shared.alive()
    r = shared.query("www.example.com.", "A")
    assert answer_texts(r) == ["www.example.com. A 192.0.2.1"]
    r = shared.query("www.example.com.", "A", tcp=True)
    assert answer_texts(r) == ["www.example.com. A 192.0.2.1"]
