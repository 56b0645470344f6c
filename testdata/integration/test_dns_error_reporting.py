# SPDX-License-Identifier: BSD-3-Clause
"""dns-error-reporting (RFC 9567, Unbound 1.23): an authoritative server
that puts the Report-Channel EDNS option (code 18) with an agent domain
in its replies, for a zone whose answers fail validation (a trust anchor
for the zone, and the zone unsigned: the validator's extended error),
gets the report query TXT _er.<qtype>.<qname>.<code>._er.<agent> from
the resolver, resolved as any question (here the agent's zone is served
by the same test server); with the option off, none comes, and an answer
that fails without an extended error, or a reply without the option,
makes none. Side by side with Unbound 1.26 when UNBOUND_126 names its
binary (optional: CI has Debian's 1.17, which has no such option)."""
import os
import time

import dns.edns
import dns.message
import dns.rcode
import dns.name
import pytest

from conftest import SLOW, RefServer, Server, Upstream

AGENT = "agent.errep.lab."
ZONE = "bad.errep.lab."
# a DS for a key the zone does not have: every answer in it is bogus
ANCHOR = ('trust-anchor: "bad.errep.lab. DS 12345 8 2 '
          '0A5F1B6F5E7B2C5C1D9F2A1C6F1B7E3D2A9C8B7E6F5D4C3B2A1908F7E6D5C4B3"')
UB126 = os.environ.get("UNBOUND_126")


class ReportingUpstream(Upstream):
    """Answers as Upstream, each reply to a query with EDNS carrying the
    Report-Channel option naming AGENT (but not for names under
    quiet.bad.errep.lab.)."""

    def respond(self, q, qname, qtype):
        r = super().respond(q, qname, qtype)
        if qname.labels[0].startswith(b"refused-"):
            r = dns.message.make_response(q)
            r.set_rcode(dns.rcode.REFUSED)
        if q.edns >= 0:
            opts = []
            if not qname.is_subdomain(dns.name.from_text("quiet." + ZONE)):
                opts.append(dns.edns.GenericOption(
                    18, dns.name.from_text(AGENT).to_wire()))
            r.use_edns(0, 0, 1232, options=opts)
        return r


class Ub126(RefServer):
    binary = UB126 or "/nonexistent"


def report_name(qname, qtype, code):
    return "_er.%d.%s%d._er.%s" % (qtype, qname, code, AGENT)


@pytest.fixture(scope="module")
def up():
    u = ReportingUpstream()
    yield u
    u.close()


def body(on):
    return (ANCHOR + "\n" +
            "dns-error-reporting: %s\n" % ("yes" if on else "no") +
            'module-config: "validator iterator"\n'
            "qname-minimisation: no\n")


def start(cls, tmp_path_factory, up, on):
    srv = cls(tmp_path_factory.mktemp("er"))
    srv.start(body(on), extra=up.stub_zone(ZONE, AGENT), verbosity=4)
    return srv


# Unbound 1.26's side only where UNBOUND_126 names a build (CI keeps to
# Debian's packages, whose 1.17 has no dns-error-reporting): no param
# then, rather than a skip the CI machine would have to list.
@pytest.fixture(scope="module",
                params=["ours"] + (["unbound-1.26"] if UB126 else []))
def on(request, tmp_path_factory, up):
    srv = start(Server if request.param == "ours" else Ub126,
                tmp_path_factory, up, True)
    srv.label = request.param
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def off(tmp_path_factory, up):
    srv = start(Server, tmp_path_factory, up, False)
    yield srv
    srv.stop()


def wait_for(pred, timeout=5 * SLOW):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if pred():
            return True
        time.sleep(0.05)
    return False


def reports(up):
    return [n for n, t in up.queries() if n.startswith("_er.")]


def about(up, name):
    """The report queries up got about a question for name."""
    return [n for n in reports(up) if n.split(".", 2)[2].startswith(name)]


def settle(srv, up, tag):
    """Let a report the last query would start reach up: another
    question that goes to up, asked after it, has been answered (one
    thread: its report query was sent at the end of the first)."""
    name = "sync-%s-%s.%s" % (tag, srv.port, AGENT)
    r = srv.query(name, "A", timeout=5 * SLOW)
    assert r.rcode() == 0
    assert up.queries(name, "A")


def bogus(srv, name):
    r = srv.query(name, "A", timeout=5 * SLOW)
    assert r.rcode() == 2   # SERVFAIL: no DNSKEY for the anchor's DS


def test_report_sent(on, up):
    """The validator's error (9, DNSKEY missing: the zone has none)
    for A www.<zone> is reported to the agent."""
    name = "www-%s.%s" % (on.label, ZONE)
    bogus(on, name)
    want = report_name(name, 1, 9)
    assert wait_for(lambda: up.queries(want, "TXT")), reports(up)


def test_report_for_aaaa_names_the_type(on, up):
    name = "v6-%s.%s" % (on.label, ZONE)
    r = on.query(name, "AAAA", timeout=5 * SLOW)
    assert r.rcode() == 2
    want = report_name(name, 28, 9)
    assert wait_for(lambda: up.queries(want, "TXT")), reports(up)


def test_no_report_when_off(off, up):
    name = "www-off.%s" % ZONE
    bogus(off, name)
    settle(off, up, "off")
    assert about(up, name) == []
    assert "not implemented" not in off.output()


def test_no_report_without_the_option(on, up):
    """The upstream's reply had no Report-Channel option: no agent."""
    name = "www-%s.quiet.%s" % (on.label, ZONE)
    bogus(on, name)
    settle(on, up, "quiet")
    assert about(up, name) == []


def test_indeterminate_reported(on, up):
    """compat: unbound-1.26: an answer under no trust anchor
    (indeterminate) is reported with code 5, as Unbound does."""
    name = "fine-%s.%s" % (on.label, AGENT)
    r = on.query(name, "A", timeout=5 * SLOW)
    assert r.rcode() == 0
    want = report_name(name, 1, 5)
    assert wait_for(lambda: up.queries(want, "TXT")), reports(up)


def test_no_report_without_an_error(on, up):
    """A failure with no extended error (the server refuses), the
    option in its reply: nothing to report."""
    name = "refused-%s.%s" % (on.label, AGENT)
    r = on.query(name, "A", timeout=5 * SLOW)
    assert r.rcode() == 2
    settle(on, up, "refused")
    assert about(up, name) == []
