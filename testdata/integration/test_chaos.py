# SPDX-License-Identifier: BSD-3-Clause
"""CHAOS class queries: id.server, hostname.bind, version.server,
version.bind with hide-identity, hide-version, identity and version."""
import socket

from conftest import answer_texts, rcode_of


def txt_of(reply):
    texts = answer_texts(reply)
    assert len(texts) == 1, reply
    return texts[0].split(" TXT ", 1)[1]


def test_default_identity_is_hostname(unbound):
    unbound.start()
    host = socket.gethostname()
    for name in ("id.server.", "hostname.bind."):
        r = unbound.query(name, "TXT", "CH")
        assert rcode_of(r) == "NOERROR"
        assert txt_of(r) == '"%s"' % host
        assert r.answer[0].rdclass == 3  # CH


def test_default_version(unbound):
    unbound.start()
    for name in ("version.server.", "version.bind."):
        r = unbound.query(name, "TXT", "CH")
        assert rcode_of(r) == "NOERROR"
        assert txt_of(r).startswith('"unbound')


def test_configured_identity_and_version(unbound):
    unbound.start('identity: "my-resolver"\nversion: "9.9 test"')
    for name in ("id.server.", "hostname.bind."):
        assert txt_of(unbound.query(name, "TXT", "CH")) == '"my-resolver"'
    for name in ("version.server.", "version.bind."):
        assert txt_of(unbound.query(name, "TXT", "CH")) == '"9.9 test"'


def test_configured_over_tcp(unbound):
    unbound.start('identity: "tcp-id"')
    r = unbound.query("id.server.", "TXT", "CH", tcp=True)
    assert txt_of(r) == '"tcp-id"'


def test_hide_identity(unbound):
    unbound.start("hide-identity: yes\nidentity: \"secret\"")
    for name in ("id.server.", "hostname.bind."):
        r = unbound.query(name, "TXT", "CH")
        assert rcode_of(r) == "REFUSED" and not r.answer
    # version still shown
    assert rcode_of(unbound.query("version.bind.", "TXT", "CH")) == "NOERROR"


def test_hide_version(unbound):
    unbound.start("hide-version: yes")
    for name in ("version.server.", "version.bind."):
        r = unbound.query(name, "TXT", "CH")
        assert rcode_of(r) == "REFUSED" and not r.answer
    assert rcode_of(unbound.query("id.server.", "TXT", "CH")) == "NOERROR"


def test_chaos_other_type_or_name(unbound):
    unbound.start()
    # CH ANY is answered with the TXT, other types and names are REFUSED
    r = unbound.query("version.bind.", "ANY", "CH")
    assert txt_of(r).startswith('"unbound')
    r = unbound.query("version.bind.", "A", "CH")
    assert rcode_of(r) == "REFUSED" and not r.answer
    r = unbound.query("other.bind.", "TXT", "CH")
    assert rcode_of(r) == "REFUSED" and not r.answer
