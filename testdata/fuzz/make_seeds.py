#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""testdata/fuzz/make_seeds.py - writes the seed corpora of the fuzz
harnesses (testdata/fuzz/NAME/seed-*) and their dictionaries
(testdata/fuzz/*.dict) from the test suite's packets (the malformed
packets of testdata/integration/test_malformed.py, queries made as the
integration tests make them), its configs (testdata/conf/) and the
cache dump of the unit tests. Deterministic; run it again after a
change here (the files are committed). Inputs that once made a harness
fail are named crash-* and are not written by this script.

    /usr/bin/python3 testdata/fuzz/make_seeds.py
"""
import os
import re
import struct
import sys

import dns.edns
import dns.flags
import dns.message
import dns.name
import dns.rcode
import dns.rdatatype
import dns.rrset

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "testdata", "integration"))
from test_malformed import CASES  # noqa: E402  (the suite's packets)


def write(harness, name, data):
    d = os.path.join(HERE, harness)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data)


def clean(harness):
    d = os.path.join(HERE, harness)
    if os.path.isdir(d):
        for n in os.listdir(d):
            if n.startswith("seed-"):
                os.unlink(os.path.join(d, n))


def query(name, rdtype="A", rdclass="IN", qid=0x0042, edns=None,
          payload=1232, do=False, rd=True, cd=False, flags_or=0):
    use = -1 if edns is None and not do else 0
    q = dns.message.make_query(name, rdtype, rdclass, use_edns=use,
                               payload=payload, want_dnssec=do)
    q.id = qid
    if not rd:
        q.flags &= ~dns.flags.RD
    if cd:
        q.flags |= dns.flags.CD
    w = bytearray(q.to_wire())
    w[2] |= flags_or >> 8
    w[3] |= flags_or & 0xff
    return bytes(w)


def cookie_query(name, cookie, client):
    """A query with a DNS cookie option, for the second config (Z bit)."""
    q = dns.message.make_query(name, "A", use_edns=0, payload=1232,
                               options=[dns.edns.GenericOption(10, cookie)])
    q.id = cid(client)
    w = bytearray(q.to_wire())
    w[3] |= 0x40
    return bytes(w)


# the client (access-control rule) is the ID's high byte (fuzz_clients.h)
ALLOW, REFUSE, DENY, DENY_NL, REFUSE_NL, SETRD, SNOOP, V6, V6REF, NONE = \
    range(10)


def cid(client, odd=False):
    return client << 8 | (1 if odd else 2)


def udp_seeds():
    h = "query_udp"
    clean(h)
    for name, pkt, *_ in CASES:
        write(h, "malformed-" + name, pkt)
    qs = [
        ("www-a", query("www.example.", qid=cid(ALLOW))),
        ("www-aaaa-edns", query("www.example.", "AAAA", qid=cid(ALLOW),
                                edns=0)),
        ("www-a-do-cd", query("www.example.", do=True, cd=True,
                              qid=cid(ALLOW))),
        ("alias2-chain", query("alias2.example.", qid=cid(ALLOW))),
        ("nx-example", query("nx.example.", qid=cid(ALLOW))),
        ("nodata-mx", query("www.example.", "MX", qid=cid(ALLOW))),
        ("example-ns", query("example.", "NS", qid=cid(ALLOW), edns=0)),
        ("big-txt-noedns", query("big.example.", "TXT", qid=cid(ALLOW))),
        ("big-txt-1232", query("big.example.", "TXT", qid=cid(ALLOW),
                               edns=0)),
        ("big-txt-4096", query("big.example.", "TXT", qid=cid(ALLOW),
                               edns=0, payload=4096)),
        ("big-txt-edns-100", query("big.example.", "TXT", qid=cid(ALLOW),
                                   edns=0, payload=100)),
        ("big-txt-edns-5", query("big.example.", "TXT", qid=cid(ALLOW),
                                 edns=0, payload=5)),
        ("short-prefetch", query("short.example.", qid=cid(ALLOW, True))),
        ("old-expired", query("old.example.", qid=cid(ALLOW, True))),
        ("miss-servfail", query("miss.example.", qid=cid(ALLOW))),
        ("local-a", query("a.local.test.", qid=cid(ALLOW))),
        ("local-any", query("a.local.test.", "ANY", qid=cid(ALLOW))),
        ("local-txt", query("txt.local.test.", "TXT", qid=cid(ALLOW))),
        ("local-cname", query("cname.local.test.", qid=cid(ALLOW))),
        ("local-nx", query("nope.local.test.", qid=cid(ALLOW))),
        ("local-ptr", query("10.2.0.192.in-addr.arpa.", "PTR",
                            qid=cid(ALLOW))),
        ("redirect", query("deep.redirect.test.", qid=cid(ALLOW))),
        ("refuse-zone", query("refuse.test.", qid=cid(ALLOW))),
        ("deny-zone", query("x.deny.test.", qid=cid(ALLOW))),
        ("transparent", query("x.trans.test.", qid=cid(ALLOW))),
        ("typetransparent", query("typetrans.test.", "AAAA",
                                  qid=cid(ALLOW))),
        ("always-nx", query("a.nx.test.", qid=cid(ALLOW))),
        ("always-null", query("null.test.", "AAAA", qid=cid(ALLOW))),
        ("block-a", query("blocka.test.", qid=cid(ALLOW))),
        ("localhost", query("localhost.", qid=cid(ALLOW))),
        ("chaos-version", query("version.bind.", "TXT", "CH",
                                qid=cid(ALLOW))),
        ("chaos-id", query("id.server.", "TXT", "CH", qid=cid(ALLOW))),
        ("axfr", query("example.", "AXFR", qid=cid(ALLOW))),
        ("meta-type", query("example.", "TYPE200", qid=cid(ALLOW))),
        ("edns-v1", query("www.example.", qid=cid(ALLOW), edns=1)),
        ("client-refuse", query("www.example.", qid=cid(REFUSE))),
        ("client-deny", query("www.example.", qid=cid(DENY))),
        ("client-deny-nonlocal", query("a.local.test.", qid=cid(DENY_NL))),
        ("client-refuse-nonlocal", query("www.example.",
                                         qid=cid(REFUSE_NL))),
        ("client-setrd-rd0", query("www.example.", rd=False,
                                   qid=cid(SETRD))),
        ("client-snoop-rd0", query("www.example.", rd=False,
                                   qid=cid(SNOOP))),
        ("client-v6", query("www.example.", "AAAA", qid=cid(V6))),
        ("client-unlisted", query("www.example.", qid=cid(NONE))),
        ("z-bit-config-b", query("big.example.", "TXT", qid=cid(ALLOW),
                                 edns=0, payload=4096, flags_or=0x0040)),
        ("z-bit-rr-rotate", query("www.example.", qid=cid(ALLOW, True),
                                  flags_or=0x0040)),
        # config b has answer-cookie: yes, and allow_cookie for SNOOP's
        ("z-bit-cookie-client", cookie_query(
            "www.example.", bytes.fromhex("0102030405060708"), ALLOW)),
        ("z-bit-cookie-server", cookie_query(
            "www.example.", bytes.fromhex("0102030405060708010000006b0b5d34"
                                          "c7e754c97dd60dd7"), ALLOW)),
        ("z-bit-cookie-bad-length", cookie_query(
            "www.example.", bytes(range(12)), ALLOW)),
        ("z-bit-cookie-allow-cookie", cookie_query(
            "www.example.", bytes.fromhex("0102030405060708"), SNOOP)),
        ("z-bit-no-cookie-allow-cookie", query(
            "www.example.", qid=cid(SNOOP), edns=0, flags_or=0x0040)),
    ]
    for name, pkt in qs:
        write(h, name, pkt)
    return [p for _, p in qs]


def frame(w):
    return struct.pack("!H", len(w)) + w


def tcp_seeds(queries):
    h = "query_tcp"
    clean(h)
    www, nx, big = queries[0], queries[4], queries[8]
    write(h, "one-query", b"\x07" + frame(www))
    write(h, "pipelined-3", b"\x07" + frame(www) + frame(nx) + frame(big))
    write(h, "byte-at-a-time", b"\x00" + frame(www) + frame(nx))
    write(h, "big-txt", b"\x06" + frame(big))
    write(h, "refused-client", b"\x0f" + frame(www))
    write(h, "short-frame", b"\x07" + frame(b"\x4d\x2f\x01\x00"))
    write(h, "zero-frame", b"\x07\x00\x00" + frame(www))
    write(h, "partial-frame", b"\x03" + frame(www)[:9])
    write(h, "length-only", b"\x07\x00")
    write(h, "many", b"\x05" + b"".join(frame(q) for q in queries[:40]))
    write(h, "malformed-mix", b"\x04" + b"".join(
        frame(p) for _, p, *_ in CASES))


def reply(qname, rdtype, rcode=dns.rcode.NOERROR, aa=True, answer=(),
          authority=(), additional=(), qid=0x1234, qd=True, edns=False):
    q = dns.message.make_query(qname, rdtype, use_edns=edns)
    q.id = qid
    r = dns.message.make_response(q)
    r.flags &= ~dns.flags.RD
    if aa:
        r.flags |= dns.flags.AA
    r.set_rcode(rcode)
    for sec, rrs in ((r.answer, answer), (r.authority, authority),
                     (r.additional, additional)):
        for text in rrs:
            owner, ttl, cls, typ, *rd = text.split()
            sec.append(dns.rrset.from_text(owner, int(ttl), cls, typ,
                                           " ".join(rd)))
    w = r.to_wire()
    if not qd:
        w = w[:4] + b"\x00\x00" + w[6:12] + w[12 + len(
            dns.name.from_text(qname).to_wire()) + 4:]
    return w


SOA = "example.com. 300 IN SOA ns1.example.com. host.example.com. 1 3600 900 604800 60"


def upstream_seeds():
    h = "upstream"
    clean(h)
    seeds = [
        # bits: 0-1 zone labels stripped - 1, 2 forward, 3 minimised,
        # 4 config B, 5 ID mismatch
        ("answer-a", 0x00, reply("www.example.com.", "A", answer=[
            "www.example.com. 300 IN A 192.0.2.1",
            "www.example.com. 300 IN A 192.0.2.2"])),
        ("answer-aaaa", 0x00, reply("www.example.com.", "AAAA", answer=[
            "www.example.com. 300 IN AAAA 2001:db8::1"])),
        ("cname-chain", 0x00, reply("alias.example.com.", "A", answer=[
            "alias.example.com. 300 IN CNAME www.example.com.",
            "www.example.com. 300 IN A 192.0.2.1"])),
        ("cname-out-of-zone", 0x00, reply("alias.example.com.", "A",
                                          answer=[
            "alias.example.com. 300 IN CNAME www.example.net."])),
        ("dname", 0x00, reply("www.sub.example.com.", "A", answer=[
            "sub.example.com. 300 IN DNAME other.example.com.",
            "www.sub.example.com. 300 IN CNAME www.other.example.com.",
            "www.other.example.com. 300 IN A 192.0.2.3"])),
        ("referral-glue", 0x01, reply("www.example.com.", "A", aa=False,
                                      authority=[
            "example.com. 3600 IN NS ns1.example.com.",
            "example.com. 3600 IN NS ns.other.net."], additional=[
            "ns1.example.com. 3600 IN A 192.0.2.53",
            "ns1.example.com. 3600 IN AAAA 2001:db8::53",
            "ns.other.net. 3600 IN A 198.51.100.53"])),
        ("referral-glueless", 0x01, reply("www.example.com.", "A",
                                          aa=False, authority=[
            "example.com. 3600 IN NS ns.example.net."])),
        ("upward-referral-lame", 0x00, reply("www.example.com.", "A",
                                             aa=False, authority=[
            ". 3600 IN NS a.root-servers.net."])),
        ("nxdomain", 0x00, reply("nx.example.com.", "A",
                                 rcode=dns.rcode.NXDOMAIN,
                                 authority=[SOA])),
        ("nodata", 0x00, reply("www.example.com.", "MX", authority=[SOA])),
        ("nodata-no-aa", 0x00, reply("www.example.com.", "MX", aa=False)),
        ("servfail", 0x00, reply("www.example.com.", "A",
                                 rcode=dns.rcode.SERVFAIL)),
        ("formerr-no-question", 0x00, reply("www.example.com.", "A",
                                            rcode=dns.rcode.FORMERR,
                                            qd=False)),
        ("ns-answer", 0x00, reply("example.com.", "NS", answer=[
            "example.com. 3600 IN NS ns1.example.com.",
            "example.com. 3600 IN NS ns2.example.com."], additional=[
            "ns1.example.com. 3600 IN A 192.0.2.53",
            "ns2.example.com. 3600 IN A 192.0.2.54",
            "evil.example.net. 3600 IN A 203.0.113.66"])),
        ("poison-additional", 0x00, reply("www.example.com.", "A", answer=[
            "www.example.com. 300 IN A 192.0.2.1"], authority=[
            "com. 3600 IN NS ns.evil.net."], additional=[
            "ns.evil.net. 3600 IN A 203.0.113.66",
            "www.bank.net. 3600 IN A 203.0.113.66"])),
        ("out-of-bailiwick-answer", 0x00, reply("www.example.com.", "A",
                                                answer=[
            "www.example.com. 300 IN A 192.0.2.1",
            "www.other.net. 300 IN A 203.0.113.66"])),
        ("mx-with-addresses", 0x10, reply("example.com.", "MX", answer=[
            "example.com. 300 IN MX 10 mail.example.com."], additional=[
            "mail.example.com. 300 IN A 192.0.2.25"])),
        ("private-address", 0x10, reply("www.example.com.", "A", answer=[
            "www.example.com. 300 IN A 10.1.2.3",
            "www.example.com. 300 IN A 192.0.2.1"])),
        ("forwarder-answer", 0x04, reply("www.example.org.", "A", aa=False,
                                         answer=[
            "www.example.org. 300 IN A 192.0.2.7"])),
        ("minimised-referral", 0x08, reply("example.com.", "A", aa=False,
                                           authority=[
            "example.com. 3600 IN NS ns1.example.com."], additional=[
            "ns1.example.com. 3600 IN A 192.0.2.53"])),
        ("minimised-nxdomain", 0x08, reply("example.com.", "A",
                                           rcode=dns.rcode.NXDOMAIN,
                                           authority=[SOA])),
        ("minimised-nx-strict", 0x18, reply("example.com.", "A",
                                            rcode=dns.rcode.NXDOMAIN,
                                            authority=[SOA])),
        ("minimised-answer", 0x08, reply("example.com.", "A", answer=[
            "example.com. 300 IN A 192.0.2.80"])),
        ("id-mismatch", 0x20, reply("www.example.com.", "A", answer=[
            "www.example.com. 300 IN A 192.0.2.1"])),
        ("root-priming", 0x00, reply(".", "NS", answer=[
            ". 3600 IN NS a.root-servers.net."], additional=[
            "a.root-servers.net. 3600 IN A 198.41.0.4"])),
        # an answer with the zone's NS set, glue and EDNS (NSD's answer
        # to a wildcard name): those two sections kept in wire form
        # (util/reply_tail.c)
        ("answer-ns-glue-edns", 0x00, reply("x1.w.example.com.", "A",
                                            edns=True, answer=[
            "x1.w.example.com. 3600 IN A 192.0.2.1"], authority=[
            "example.com. 3600 IN NS ns1.example.com.",
            "example.com. 3600 IN NS ns.other.net."], additional=[
            "ns1.example.com. 3600 IN A 192.0.2.53",
            "ns1.example.com. 3600 IN AAAA 2001:db8::53",
            "ns.other.net. 3600 IN A 198.51.100.53"])),
        ("soa-ttl-0", 0x00, reply("nx.example.com.", "A",
                                  rcode=dns.rcode.NXDOMAIN, authority=[
            "example.com. 0 IN SOA ns1.example.com. host.example.com. "
            "1 3600 900 604800 0"])),
    ]
    for name, bits, pkt in seeds:
        write(h, name, bytes([bits]) + pkt)


def config_seeds():
    h = "config"
    clean(h)
    conf = os.path.join(TOP, "testdata", "conf")
    with open(os.path.join(conf, "debian", "unbound.conf")) as f:
        write(h, "debian", f.read())
    for n in sorted(os.listdir(os.path.join(conf, "debian",
                                            "unbound.conf.d"))):
        with open(os.path.join(conf, "debian", "unbound.conf.d", n)) as f:
            # no ".conf" name: the loopback guard test lists those
            write(h, "debian-" + n.replace(".conf", ""), f.read())
    # the example config, without its comments (the options stay)
    with open(os.path.join(conf, "example-unbound.conf")) as f:
        lines = [ln for ln in f if not re.match(r"\s*#", ln) and ln.strip()]
    write(h, "example-uncommented", "".join(lines))
    with open(os.path.join(HERE, "fuzz_env.c")) as f:
        src = f.read()
    m = re.search(r'FUZZ_SERVE_CONF =\n(.*?);\n', src, re.S)
    text = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1)))
    text = text.encode().decode("unicode_escape")
    write(h, "fuzz-serve-conf", text)
    write(h, "stub-forward", """server:
	do-not-query-localhost: no
	root-hints: ""
stub-zone:
	name: "example.com"
	stub-addr: 127.0.0.1@5353
	stub-prime: yes
	stub-first: yes
forward-zone:
	name: "example.org."
	forward-addr: 127.0.0.2
	forward-addr: ::1@53
	forward-first: no
	forward-no-cache: yes
""")
    write(h, "views-and-tags", """server:
	define-tag: "one two"
	local-zone: "v.test." static
	local-zone-tag: "v.test." "one"
	access-control-tag: 127.0.0.0/8 "two"
view:
	name: "v1"
	local-zone: "view.test." refuse
	view-first: yes
auth-zone:
	name: "auth.test."
	zonefile: "/nonexistent"
""")
    write(h, "include-refused", 'include: "/etc/unbound/*.conf"\nserver:\n'
          '\tverbosity: 2\n')
    write(h, "errors", "server:\n\tverbosity: x\n\tnum-threads: 0\n"
          "\tbogus-option: 1\n\tinterface: 300.1.1.1\n\t\"unterminated\n"
          "remote-control:\n\tcontrol-enable: maybe\n")
    write(h, "sizes-and-lists", """server:
	msg-cache-size: 4m
	rrset-cache-size: 8k
	cache-max-ttl: 86400
	target-fetch-policy: "3 2 1 0 0"
	private-address: 10.0.0.0/8
	private-domain: "example."
	do-not-query-address: 192.0.2.0/24
	prefetch: yes
	serve-expired-ttl: 86400
	local-data: 'txt.test. TXT "a\\" b" "c"'
	local-data-ptr: "2001:db8::1 x.test."
remote-control:
	control-enable: no
	prometheus-enable: yes
	prometheus-port: 9167
""")


def cacheload_seeds():
    h = "cacheload"
    clean(h)
    with open(os.path.join(HERE, "fuzz_env.c")) as f:
        src = f.read()
    m = re.search(r'FUZZ_CACHE_DUMP =\n(.*?);\n', src, re.S)
    body = m.group(1)
    big = ('big.example.\t3600\tIN\tTXT\t"%02d' + "x" * 190 + '"\n')
    body = re.sub(r"BIG_TXT\((\d+)\)",
                  lambda mm: '"%s"' % (big % int(mm.group(1))).replace(
                      '"', '\\"').replace("\t", "\\t").replace("\n", "\\n"),
                  body)
    text = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', body))
    write(h, "fuzz-cache-dump", text.encode().decode("unicode_escape"))
    with open(os.path.join(TOP, "testdata", "unit",
                           "cachedump_test.c")) as f:
        src = f.read()
    m = re.search(r'DUMP =\n(.*?);\n', src, re.S)
    text = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1)))
    write(h, "unit-dump", text.encode().decode("unicode_escape"))
    write(h, "empty", "START_RRSET_CACHE\nEND_RRSET_CACHE\n"
          "START_MSG_CACHE\nEND_MSG_CACHE\nEOF\n")
    write(h, "msg-missing-rrset", "START_RRSET_CACHE\nEND_RRSET_CACHE\n"
          "START_MSG_CACHE\nmsg a.test. IN A 32896 1 100 0 1 0 0\n"
          "a.test. IN A 0\nEND_MSG_CACHE\nEOF\n")
    write(h, "rrsig-and-counts", "START_RRSET_CACHE\n"
          ";rrset 100 1 1 8 5\n"
          "a.test.\t100\tIN\tA\t192.0.2.1\n"
          "a.test.\t100\tIN\tRRSIG\tA 8 2 100 20300101000000 "
          "20200101000000 12345 test. AAAA\n"
          ";rrset 100 3 0 8 0\na.test.\t100\tIN\tAAAA\t::1\n"
          "END_RRSET_CACHE\nSTART_MSG_CACHE\nEND_MSG_CACHE\nEOF\n")
    write(h, "crlf-and-badref", "START_RRSET_CACHE\r\n"
          ";rrset 100 1 0 8 0\r\nb.test.\t100\tIN\tA\t192.0.2.2\r\n"
          "END_RRSET_CACHE\r\nSTART_MSG_CACHE\r\n"
          "msg b.test. IN A 32899 1 100 0 1 1 0\r\n"
          "b.test. IN A 0\r\nBADREF\r\nEND_MSG_CACHE\r\nEOF\r\n")


def control_seeds():
    h = "control"
    clean(h)
    with open(os.path.join(TOP, "testdata", "unit",
                           "cachedump_test.c")) as f:
        src = f.read()
    m = re.search(r'DUMP =\n(.*?);\n', src, re.S)
    dump = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1)))
    dump = dump.encode().decode("unicode_escape")
    cmds = [
        "status", "stats_noreset", "stats", "flush_stats",
        "flush www.example.", "flush_type www.example. A",
        "flush_zone example.", "flush_negative", "flush_bogus",
        "flush_infra all", "flush_infra 192.0.2.1", "dump_infra",
        "flush_requestlist", "dump_requestlist", "dump_cache",
        "lookup www.example.", "get_option msg-cache-size",
        "get_option local-zone", "set_option prefetch: no",
        "set_option local-zone: new.test. static", "verbosity 2",
        "local_zone add.test. static", "local_data add.test. 1 IN A 1.2.3.4",
        "local_data bad..name A 1.2.3.4", "local_zone_remove local.test.",
        "local_data_remove a.local.test.", "list_local_zones",
        "list_local_data", "list_stubs", "list_forwards",
        "forward_add fwd.test. 192.0.2.5", "forward_remove fwd.test.",
        "stub_add stub.test. 192.0.2.6@5353", "insecure_add x.test.",
        "list_insecure", "forward", "forward 192.0.2.7 off",
        "reload", "reload_keep_cache", "stop", "no_such_command",
    ]
    for c in cmds:
        write(h, re.sub(r"[^a-z0-9_]+", "-", c)[:40], "UBCT1 %s\n" % c)
    write(h, "load-cache", "UBCT1 load_cache\n" + dump)
    write(h, "load-cache-unended", "UBCT1 load_cache\nSTART_RRSET_CACHE\n")
    write(h, "local-datas-bulk", "UBCT1 local_datas\n"
          "b1.test. A 192.0.2.1\nb2.test. TXT \"x\"\nbad\n\x04\n")
    write(h, "local-zones-bulk", "UBCT1 local_zones\n"
          "z1.test. static\nz2.test. nonsense\n\x04\n")
    write(h, "version-mismatch", "UBCT2 status\n")
    write(h, "bad-magic", "GET / HTTP/1.0\r\n\r\n")
    write(h, "too-long-line", "UBCT1 flush " + "a" * 5000 + "\n")


def prom_seeds():
    h = "prom_http"
    clean(h)
    write(h, "get-metrics", "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n"
          "User-Agent: Prometheus/2.0\r\nAccept: text/plain\r\n\r\n")
    write(h, "head-metrics", "HEAD /metrics HTTP/1.0\r\n\r\n")
    write(h, "get-query", "GET /metrics?x=1 HTTP/1.1\nHost: a\n\n")
    write(h, "post", "POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
    write(h, "not-found", "GET / HTTP/1.1\r\n\r\n")
    write(h, "http2", "GET /metrics HTTP/2.0\r\n\r\n")
    write(h, "folded-header", "GET /metrics HTTP/1.1\r\nA: b\r\n c\r\n\r\n")
    write(h, "ctl-char", "GET /metrics HTTP/1.1\r\nA: \x01\r\n\r\n")
    write(h, "no-colon", "GET /metrics HTTP/1.1\r\nbroken\r\n\r\n")
    write(h, "incomplete", "GET /metrics HTTP/1.1\r\nHost: a\r\n")
    write(h, "long-header", "GET /metrics HTTP/1.1\r\nX: " + "y" * 9000 +
          "\r\n\r\n")


def dicts():
    dns_tokens = [
        b"\x00\x01\x00\x01", b"\x00\x1c\x00\x01", b"\x00\x02\x00\x01",
        b"\x00\x05\x00\x01", b"\x00\x06\x00\x01", b"\x00\x27\x00\x01",
        b"\x00\x10\x00\x03", b"\x00\xff\x00\x01", b"\x00\xfc",
        b"\x00\x00\x29\x04\xd0\x00\x00\x80\x00\x00\x00",
        b"\xc0\x0c", b"\xc0\x10", b"\x07example\x03com\x00",
        b"\x07example\x00", b"\x05local\x04test\x00", b"\x00\x00\x0e\x10",
        b"\x81\x80", b"\x84\x00", b"\x81\x83", b"\x01\x00",
        b"\x00\x01\x00\x00\x00\x00\x00\x00", b"\x00\x01\x00\x01\x00\x00\x00\x00",
        b"\x07version\x04bind\x00",
    ]
    with open(os.path.join(HERE, "dns.dict"), "w") as f:
        f.write("# DNS wire tokens for the query and upstream harnesses\n")
        for t in dns_tokens:
            f.write('"%s"\n' % "".join("\\x%02x" % b for b in t))
    with open(os.path.join(TOP, "util", "config_options.c")) as f:
        names = sorted(set(re.findall(r'(?:\{ |[A-Z]+\()"([a-z0-9-]+)",',
                                      f.read())))
    with open(os.path.join(HERE, "config.dict"), "w") as f:
        f.write("# unbound.conf option names (util/config_options.c)\n")
        for n in names:
            f.write('"%s:"\n' % n)
    with open(os.path.join(TOP, "daemon", "remote_cmd.c")) as f:
        src = f.read()
    for extra in ("remote_local.c", "remote_zones.c"):
        with open(os.path.join(TOP, "daemon", extra)) as f:
            src += f.read()
    cmds = sorted(set(re.findall(r'cmd_is\([a-z]+, "([a-z_]+)"\)', src)))
    with open(os.path.join(HERE, "control.dict"), "w") as f:
        f.write("# unbound-control commands (daemon/remote_*.c)\n")
        f.write('"UBCT1 "\n"\\x0a"\n"\\x04\\x0a"\n"EOF\\x0a"\n')
        for c in cmds:
            f.write('"%s"\n' % c)


def main():
    queries = udp_seeds()
    tcp_seeds(queries)
    upstream_seeds()
    config_seeds()
    cacheload_seeds()
    control_seeds()
    prom_seeds()
    dicts()


if __name__ == "__main__":
    main()
