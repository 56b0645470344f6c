# SPDX-License-Identifier: BSD-3-Clause
"""EDNS0 and truncation: OPT echoed, advertised size, DO echoed, BADVERS
(in test_malformed), TC=1 when the answer does not fit, full over TCP."""
import dns.flags
import pytest

from conftest import answer_texts, make_query, rcode_of

# 40 TXT records of ~95 bytes: about 4 KB, over every UDP limit here.
BIG = "\n".join('local-data: "big.test. TXT %s%02d"' % ("x" * 90, i)
                for i in range(40))
# 8 of them: about 870 bytes, over 512 and under 1232.
MID = "\n".join('local-data: "mid.test. TXT %s%02d"' % ("y" * 90, i)
                for i in range(8))
# 25 of them: about 2600 bytes.
LARGE = "\n".join('local-data: "large.test. TXT %s%02d"' % ("z" * 90, i)
                  for i in range(25))
DATA = BIG + "\n" + MID + "\n" + LARGE + \
    '\nlocal-data: "small.test. A 192.0.2.1"'


@pytest.fixture
def edns(unbound):
    return unbound.start(DATA)


def tc(reply):
    return bool(reply.flags & 0x0200)


def count(reply):
    return sum(len(rrset) for rrset in reply.answer)


def test_no_opt_in_query_no_opt_in_reply(edns):
    r = edns.query("small.test.", "A")
    assert r.edns == -1
    assert answer_texts(r) == ["small.test. A 192.0.2.1"]


def test_opt_echoed_with_size(edns):
    r = edns.query("small.test.", "A", payload=4096)
    assert r.edns == 0
    # the server advertises its edns-buffer-size (default 1232)
    assert r.payload == 1232
    assert not (r.ednsflags & 0x8000)


def test_do_bit_echoed(edns):
    r = edns.query("small.test.", "A", payload=1232, want_dnssec=True)
    assert r.edns == 0
    assert r.ednsflags & 0x8000
    r = edns.query("localhost.", "A", payload=1232, want_dnssec=True)
    assert r.ednsflags & 0x8000


def test_opt_over_tcp(edns):
    r = edns.query("small.test.", "A", payload=4096, tcp=True)
    assert r.edns == 0
    assert answer_texts(r) == ["small.test. A 192.0.2.1"]


def test_big_truncated_over_udp(edns):
    for kw in ({}, {"payload": 512}, {"payload": 1232}, {"payload": 4096},
               {"payload": 65000}):
        r = edns.query("big.test.", "TXT", **kw)
        assert tc(r), kw
        assert rcode_of(r) == "NOERROR", kw
        assert len(r.to_wire()) <= max(512, min(kw.get("payload", 512),
                                                1232)), kw


def test_big_full_over_tcp(edns):
    r = edns.query("big.test.", "TXT", tcp=True)
    assert not tc(r)
    assert count(r) == 40
    r = edns.query("big.test.", "TXT", tcp=True, payload=1232)
    assert not tc(r) and count(r) == 40


def test_mid_needs_edns(edns):
    # no EDNS: 512 limit
    r = edns.query("mid.test.", "TXT")
    assert tc(r)
    # EDNS 1232 (or more, capped at 1232): fits
    for size in (1232, 4096):
        r = edns.query("mid.test.", "TXT", payload=size)
        assert not tc(r), size
        assert count(r) == 8
    # a client size under 512 is taken as 512
    r = edns.query("mid.test.", "TXT", payload=100)
    assert tc(r)


def test_tc_answer_over_udp_is_resolvable_over_tcp(edns):
    """What a stub resolver does: UDP, TC=1, retry over TCP."""
    q = make_query("big.test.", "TXT", payload=1232)
    import dns.query
    r, used_tcp = dns.query.udp_with_fallback(q, "127.0.0.1", port=edns.port,
                                              timeout=2)
    assert used_tcp
    assert count(r) == 40


def test_max_udp_size_lower_than_client(unbound):
    unbound.start(DATA + "\nmax-udp-size: 600")
    r = unbound.query("mid.test.", "TXT", payload=1232)
    assert tc(r)
    assert len(r.to_wire()) <= 600
    r = unbound.query("small.test.", "A", payload=1232)
    assert not tc(r) and count(r) == 1


def test_larger_buffers(unbound):
    unbound.start(DATA + "\nedns-buffer-size: 4096\nmax-udp-size: 4096")
    r = unbound.query("large.test.", "TXT", payload=4096)
    assert not tc(r)
    assert count(r) == 25
    assert r.payload == 4096
    # the client's smaller size still limits
    r = unbound.query("large.test.", "TXT", payload=1232)
    assert tc(r)


def test_edns_buffer_size_smaller(unbound):
    unbound.start(DATA + "\nedns-buffer-size: 512")
    # it is the size advertised; replies are limited by max-udp-size
    r = unbound.query("mid.test.", "TXT", payload=4096)
    assert r.payload == 512
    assert not tc(r) and count(r) == 8


def big_query(name):
    """A query over 512 bytes: an unknown EDNS option of 600 bytes."""
    import dns.edns
    import dns.message
    q = dns.message.make_query(name, "A")
    q.use_edns(0, payload=1232,
               options=[dns.edns.GenericOption(65001, b"x" * 600)])
    return q.to_wire()


@pytest.mark.parametrize("harden", ["yes", "no", None])
def test_harden_large_queries(unbound, harden):
    """harden-large-queries: yes drops queries over 512 bytes (UDP and
    TCP), smaller ones are answered; no (the default) answers both."""
    import struct
    conf = DATA
    if harden:
        conf += "\nharden-large-queries: %s" % harden
    unbound.start(conf)
    wire = big_query("small.test.")
    assert len(wire) > 512
    r = unbound.udp_raw(wire)
    t = unbound.tcp_raw(struct.pack("!H", len(wire)) + wire)
    if harden == "yes":
        assert r is None and t is None
    else:
        assert r is not None and (r[3] & 0xf) == 0     # NOERROR
        assert t is not None and (t[3] & 0xf) == 0
    assert count(unbound.query("small.test.", "A")) == 1


# 4 TXT records of ~95 bytes: a 458-byte answer, under 512, over 400.
FOUR = "\n".join('local-data: "four.test. TXT %s%02d"' % ("f" * 90, i)
                 for i in range(4))


def raw_reply(srv, name, rdtype, payload, flags=dns.flags.RD):
    """The reply bytes to an EDNS query with this payload size (raw:
    dnspython refuses replies without the question)."""
    q = make_query(name, rdtype, payload=payload)
    q.flags = flags
    return srv.udp_raw(q.to_wire())


def header(wire):
    """(flags, qdcount, ancount, nscount, arcount) of a reply."""
    import struct
    return struct.unpack("!HHHHH", wire[2:12])


@pytest.mark.parametrize("harden", ["yes", "no", None])
def test_harden_short_bufsize(unbound, harden):
    """harden-short-bufsize (Unbound 1.17 default yes): a client EDNS
    size under 512 is taken as 512; with no it is honoured, as Debian's
    Unbound does: the answer that does not fit is left out with TC=1,
    then the question, then the OPT record; under 12 bytes the reply is
    the query's header with QR, TC and SERVFAIL."""
    conf = DATA + "\n" + FOUR
    if harden:
        conf += "\nharden-short-bufsize: %s" % harden
    srv = unbound.start(conf)
    QR, TC, AA, RA = 0x8000, 0x0200, 0x0400, 0x0080
    for size in (100, 300, 400, 450):
        w = raw_reply(srv, "four.test.", "TXT", size)
        flags, qd, an, ns, ar = header(w)
        if harden == "no":
            assert len(w) == 38 and len(w) <= size, size
            assert flags == QR | AA | TC | 0x0100 | RA, size
            assert (qd, an, ns, ar) == (1, 0, 0, 1), size
        else:
            assert len(w) == 458 and not flags & TC, size
            assert (qd, an, ar) == (1, 4, 1), size
    # a 55-byte answer fits 100 bytes either way
    r = srv.query("small.test.", "A", payload=100)
    assert not tc(r) and count(r) == 1
    # sizes too small for the question, for the OPT record, for a header
    for size, length, counts in ((30, 23, (0, 0, 0, 1)),
                                 (20, 12, (0, 0, 0, 0))):
        w = raw_reply(srv, "four.test.", "TXT", size)
        if harden == "no":
            assert len(w) == length, size
            assert header(w)[0] == QR | AA | TC | 0x0100 | RA, size
            assert header(w)[1:] == counts, size
        else:
            assert len(w) == 458, size
    w = raw_reply(srv, "four.test.", "TXT", 5, flags=dns.flags.RD |
                  dns.flags.CD)
    if harden == "no":
        assert len(w) == 12
        assert header(w) == (QR | TC | 0x0100 | 0x0010 | 2, 0, 0, 0, 0)
    else:
        assert len(w) == 458
