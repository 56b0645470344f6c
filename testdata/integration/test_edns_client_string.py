# SPDX-License-Identifier: BSD-3-Clause
"""edns-client-string: and edns-client-string-opcode: (Unbound 1.13),
side by side with Debian's Unbound 1.17. Three stub servers (threads of
the test) record the EDNS options of the queries they get:

- two.test. on 127.0.0.2, in 127.0.0.2/32 "two" and 127.0.0.0/30
  "block": the longest netblock's string goes;
- three.test. on 127.0.0.3, only in 127.0.0.0/30: "block";
- five.test. on 127.0.0.5, in no netblock: no option.

The option code is 65001 unless edns-client-string-opcode: says
otherwise. A new string is used after SIGHUP. A string longer than
this daemon supports, or a bad netblock, is refused by the config
parser: at start, and at SIGHUP, where the old strings stay (ours
only; doc/compat.md)."""
import os
import signal
import time

import pytest

from conftest import (DEB_UNBOUND, REFERENCE, START_TIMEOUT,  # noqa
                      RefServer, Server, Upstream, _finish)

pytestmark = [
    pytest.mark.skipif(not os.access(DEB_UNBOUND, os.X_OK),
                       reason="Debian's unbound is not installed"),
    pytest.mark.skipif(REFERENCE, reason="compares this build with "
                       "the reference; UNBOUND_BIN is the reference"),
]

BODY = """access-control: 127.0.0.0/8 allow
qname-minimisation: no
local-zone: "test." nodefault
domain-insecure: "test."
edns-client-string: 127.0.0.0/30 "block"
edns-client-string: 127.0.0.2/32 two
"""


def string_options(up, name, code):
    """The data of the option code in each query up got for name (None
    for a query without it)."""
    out = []
    with up.lock:
        for _, n, t, q in up.received:
            if n == name and t == "A":
                data = [o.data if hasattr(o, "data") else o.to_wire()
                        for o in q.options if o.otype == code]
                out.append(data[0] if data else None)
    return out


def option_codes(up, name):
    with up.lock:
        return [[o.otype for o in q.options]
                for _, n, t, q in up.received if n == name]


@pytest.fixture(scope="module", params=["ours", "reference"])
def world(request, tmp_path_factory):
    ups = {k: Upstream("127.0.0.%d" % k) for k in (2, 3, 5)}
    stubs = (ups[2].stub_zone("two.test.") + ups[3].stub_zone("three.test.")
             + ups[5].stub_zone("five.test."))
    cls = Server if request.param == "ours" else RefServer
    plain = cls(tmp_path_factory.mktemp(request.param + "-plain"))
    plain.start(BODY, extra=stubs)
    coded = cls(tmp_path_factory.mktemp(request.param + "-coded"))
    coded.start(BODY + "edns-client-string-opcode: 65050\n", extra=stubs)
    yield plain, coded, ups
    _finish(plain)
    _finish(coded)
    for u in ups.values():
        u.close()


def ask(srv, name):
    r = srv.query(name, "A", timeout=3.0)
    assert r is not None and r.answer, "no answer for %s" % name
    return r


def test_longest_netblock_string_goes(world):
    plain, _, ups = world
    ask(plain, "a.two.test.")
    assert string_options(ups[2], "a.two.test.", 65001) == [b"two"]


def test_shorter_netblock_string_for_other_address(world):
    plain, _, ups = world
    ask(plain, "a.three.test.")
    assert string_options(ups[3], "a.three.test.", 65001) == [b"block"]


def test_no_option_outside_the_netblocks(world):
    plain, _, ups = world
    ask(plain, "a.five.test.")
    codes = option_codes(ups[5], "a.five.test.")
    assert codes and all(65001 not in c for c in codes)


def test_opcode_changes_the_code(world):
    _, coded, ups = world
    ask(coded, "b.two.test.")
    assert string_options(ups[2], "b.two.test.", 65050) == [b"two"]
    assert string_options(ups[2], "b.two.test.", 65001) == [None]


def wait_for(cond, timeout, step=0.05):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(step)
    return cond()


@pytest.mark.parametrize("line,said", [
    ('127.0.0.0/8 "%s"' % ("x" * 257), "at most 256 are supported"),
    ("127.0.0.0/33 x", "cannot parse netblock 127.0.0.0/33"),
])
def test_bad_entry_refused_at_start(tmp_path, line, said):
    srv = Server(tmp_path)
    try:
        rc, out = srv.start_expecting_exit("edns-client-string: %s\n" % line)
        assert rc not in (0, None), out[-2000:]
        assert said in out
    finally:
        _finish(srv)


def test_reload_takes_new_strings_and_keeps_them_on_error(tmp_path):
    up = Upstream("127.0.0.3")
    srv = Server(tmp_path)
    stubs = up.stub_zone("three.test.")
    try:
        srv.start(BODY, extra=stubs)
        ask(srv, "r1.three.test.")
        assert string_options(up, "r1.three.test.", 65001) == [b"block"]
        srv.write_config(BODY + "edns-client-string: 127.0.0.3 later\n",
                         extra=stubs)
        srv.send_signal(signal.SIGHUP)
        n = [0]

        def later():
            n[0] += 1
            name = "r%d.later.three.test." % n[0]
            ask(srv, name)
            return string_options(up, name, 65001) == [b"later"]
        assert wait_for(later, START_TIMEOUT), srv.output()
        srv.write_config(BODY + "edns-client-string: 127.0.0.3/99 bad\n",
                         extra=stubs)
        srv.send_signal(signal.SIGHUP)
        assert wait_for(lambda: "still serving the previous configuration"
                        in srv.output(), START_TIMEOUT), srv.output()
        ask(srv, "r3.three.test.")
        assert string_options(up, "r3.three.test.", 65001) == [b"later"]
    finally:
        _finish(srv)
        up.close()
