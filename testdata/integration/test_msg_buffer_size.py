# SPDX-License-Identifier: BSD-3-Clause
"""msg-buffer-size: the largest message a TCP (TLS, HTTPS) answer may be,
as Unbound's per-connection buffer of that size makes it. An answer that
does not fit is cut as a UDP answer is: NOERROR with TC and the records
left out. Side by side with Debian's Unbound 1.17: a TXT answer of about
12 kB (local-data) over TCP with msg-buffer-size: 4096, and the same
answer whole with the default (65552)."""
import dns.flags
import dns.message
import dns.query
import dns.rcode
import pytest

from conftest import RefServer, Server

RECORDS = 60
BIG = "".join('local-data: "big.msgbuf.example. 300 IN TXT \\"%03d%s\\""\n'
              % (i, "x" * 190) for i in range(RECORDS))
SMALL = 'local-data: "small.msgbuf.example. 300 IN TXT \\"hi\\""\n'


@pytest.fixture(scope="module", params=[Server, RefServer],
                ids=["ours", "unbound-1.17"])
def servers(request, tmp_path_factory):
    """(limited to 4096, default) of one implementation."""
    out = []
    for size in ("4096", None):
        srv = request.param(tmp_path_factory.mktemp("msgbuf"))
        extra = "msg-buffer-size: %s\n" % size if size else ""
        srv.start(BIG + SMALL + extra)
        out.append(srv)
    yield out
    for srv in out:
        srv.stop()


def ask_tcp(srv, name, edns):
    q = dns.message.make_query(name, "TXT", use_edns=0 if edns else None,
                               payload=65000)
    return dns.query.tcp(q, "127.0.0.1", port=srv.port, timeout=5)


@pytest.mark.parametrize("edns", [False, True], ids=["plain", "edns"])
def test_large_answer_cut_at_the_buffer(servers, edns):
    limited, default = servers
    r = ask_tcp(limited, "big.msgbuf.example.", edns)
    assert r.rcode() == dns.rcode.NOERROR
    assert r.flags & dns.flags.TC
    assert r.answer == []
    assert "not implemented" not in limited.output()
    r = ask_tcp(default, "big.msgbuf.example.", edns)
    assert not r.flags & dns.flags.TC
    assert len(r.answer[0]) == RECORDS


def test_small_answer_whole(servers):
    r = ask_tcp(servers[0], "small.msgbuf.example.", True)
    assert not r.flags & dns.flags.TC
    assert len(r.answer[0]) == 1


def test_below_4096_refused(tmp_path):
    """compat: unbound-1.17: under 4096 is a config error, as Unbound's
    checkconf says."""
    srv = Server(tmp_path)
    rc, out = srv.start_expecting_exit(SMALL + "msg-buffer-size: 2048\n")
    assert rc not in (0, None), out[-2000:]
    assert "msg-buffer-size" in out
