#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""A scriptable misbehaving DNS server, for what NSD will not do.

Run as `/usr/bin/python3 responder.py CONFIG.json`; it serves UDP and TCP
on one address, answers its zone authoritatively from a list of records,
and applies scripted misbehaviour per query name (`rules`, first match
wins) or to every query (`default`). Every query received is logged as a
JSON line, so tests can count what a resolver sent upstream. SIGHUP
re-reads the config (the log is kept); SIGTERM exits.

Config (JSON object):
  address, port       where to listen (UDP and TCP)
  origin              the zone this server is authoritative for
  records             zone-file lines with absolute names, TTL and class
  rules               [{"name": N, "suffix": bool, "qtype": T,
                        "actions": [A...]}]
                      suffix: also match names below N; qtype (optional):
                      only queries of that type
  default             [A...] for queries no rule matches
  log                 path of the query log (JSON lines)
  ready               path written (with the PID) once the sockets are bound

Actions ({"type": T, ...}); several combine, e.g. delay + poison:
  drop                 never answer (UDP and TCP)
  delay {ms}           answer after ms milliseconds
  tc                   over UDP answer TC=1 with no records; TCP answers
  tc_always            TC=1 with no records over UDP and TCP (a server
                       that truncates forever)
  rrl_slip {slip}      response rate limiting as NSD's over its limit:
                       of the UDP queries for one name and type, every
                       slip-th (default 2) gets TC=1 with no records,
                       the others no reply; TCP answers
  garbage {len}        the query's ID then len random bytes (default 40)
  formerr_edns         FORMERR (without OPT) to queries with EDNS
  wrong_id {then_correct, count}   reply with another ID, count times
                       (default 1; IDs query+1, +2, ...), then the right
                       reply if then_correct
  wrong_question {qname}    reply with another question name
  poison {records}     add records (e.g. out of the zone) to additional
  rcode {rcode}        answer with this rcode and no records
  referral {zone, ns, glue}  delegate zone to ns names ({name: [addrs]}
                       glue); pointing back here makes a referral loop
  nodata_noaa          NOERROR without AA and without any record (a
                       non-authoritative NODATA without SOA)
  wrong_type {rrtype}  the zone's records of rrtype at the name as the
                       answer, without AA (an AAAA question, A answer)
  answer {records, authority, aa}  these records (zone-file lines) as
                       the answer instead of the zone's, authority's in
                       the authority section; AA unless aa is false
  self_ns              without AA, no answer, the zone's own NS set in
                       authority (a lame server answering from cache)
  many_ns {zone, count, ns_zone}  referral to count glueless NS names
                       nsI.<ns_zone> (NXNS-style amplification)
  lower_question       reply with the question name lowercased (a server
                       that does not echo the 0x20 case)
  spoof_case {records, always}  when the query's name has capitals
                       (0x20), or always: first a forged reply (right ID,
                       lowercase name, records as the answer), then the
                       real one 50 ms later; an off-path attacker who
                       guessed ID and port, but not the case
  tsig_records {count} append count TSIG records (hmac-sha256, empty
                       MAC) to the additional section: RFC 8945 allows
                       one, the last; libldns leaks all but one
  proxy {address, port, strip}  forward the query (same flags, EDNS and
                       DO) to address:port over the same transport and
                       relay the reply without the RRsets of the types
                       in strip (and the RRSIGs over them; "RRSIG"
                       strips every signature): an on-path attacker
                       removing DNSSEC data from a signed zone;
                       with rcode: relayed with that rcode instead (a
                       server that says NXDOMAIN for an empty
                       non-terminal)
"""
import json
import os
import signal
import socket
import struct
import sys
import threading
import time

import dns.exception
import dns.flags
import dns.message
import dns.name
import dns.query
import dns.rcode
import dns.rdataclass
import dns.rdatatype
import dns.rrset


class Zone:
    """The records, indexed by name then type, and the rules."""

    def __init__(self, cfg):
        self.origin = dns.name.from_text(cfg["origin"])
        self.nodes = {}
        self.soa = None
        for line in cfg.get("records", []):
            rr = dns.rrset.from_text(*self._split(line))
            node = self.nodes.setdefault(rr.name, {})
            if rr.rdtype in node:
                node[rr.rdtype].union_update(rr)
            else:
                node[rr.rdtype] = rr
            if rr.rdtype == dns.rdatatype.SOA and rr.name == self.origin:
                self.soa = rr
        self.rules = [(dns.name.from_text(r["name"]), bool(r.get("suffix")),
                       dns.rdatatype.from_text(r["qtype"]) if r.get("qtype")
                       else None, r.get("actions", []))
                      for r in cfg.get("rules", [])]
        self.default = cfg.get("default", [])
        # rrl_slip: UDP queries so far per (name, type), until a reload
        self.slip_count = {}

    @staticmethod
    def _split(line):
        """'name ttl class type rdata...' to rrset.from_text arguments."""
        name, ttl, cls, typ, rdata = line.split(None, 4)
        return name, int(ttl), cls, typ, rdata

    def actions(self, qname, qtype=None):
        for name, suffix, rtype, acts in self.rules:
            if rtype is not None and rtype != qtype:
                continue
            if qname == name or (suffix and qname.is_subdomain(name)):
                return acts
        return self.default

    def answer(self, q, r):
        """Fill r with the authoritative answer to q from the records."""
        qname = q.question[0].name
        qtype = q.question[0].rdtype
        if not qname.is_subdomain(self.origin):
            r.set_rcode(dns.rcode.REFUSED)
            return
        r.flags |= dns.flags.AA
        name = qname
        for _ in range(8):         # follow CNAMEs inside the zone
            node = self.nodes.get(name)
            if node is None:
                break
            if qtype in node:
                r.answer.append(node[qtype])
                return
            cname = node.get(dns.rdatatype.CNAME)
            if cname is None or qtype == dns.rdatatype.CNAME:
                break
            r.answer.append(cname)
            name = cname[0].target
            if not name.is_subdomain(self.origin):
                return
        if name not in self.nodes and not any(
                n.is_subdomain(name) for n in self.nodes):
            r.set_rcode(dns.rcode.NXDOMAIN)
        if self.soa is not None:
            r.authority.append(self.soa)


def referral(r, zone, ns_names, glue):
    zone = dns.name.from_text(zone)
    r.flags &= ~dns.flags.AA
    r.authority.append(dns.rrset.from_text_list(zone, 3600, "IN", "NS",
                                                list(ns_names)))
    for name, addrs in glue.items():
        r.additional.append(dns.rrset.from_text_list(name, 3600, "IN", "A",
                                                     list(addrs)))


def proxy(q, proto, a):
    """The upstream reply to q with a["strip"] types removed; None when
    upstream does not answer."""
    try:
        if proto == "tcp":
            r = dns.query.tcp(q, a["address"], port=a["port"], timeout=2.0)
        else:
            r = dns.query.udp(q, a["address"], port=a["port"], timeout=2.0,
                              ignore_trailing=True)
    except (dns.exception.DNSException, OSError):
        return None
    strip = {dns.rdatatype.from_text(t) for t in a.get("strip", [])}
    for section in (r.answer, r.authority, r.additional):
        section[:] = [rr for rr in section if rr.rdtype not in strip and
                      not (rr.rdtype == dns.rdatatype.RRSIG and
                           rr.covers in strip)]
    if a.get("rcode"):
        r.set_rcode(dns.rcode.from_text(a["rcode"]))
    return r


def build_replies(zone, q, proto):
    """The replies to query q: a list of (delay seconds, wire); empty to
    drop. Also returns a short label of what was done, for the log."""
    acts = {a["type"]: a for a in zone.actions(q.question[0].name,
                                               q.question[0].rdtype)}
    if "drop" in acts:
        return [], "drop"
    if "rrl_slip" in acts and proto == "udp":
        key = (q.question[0].name, q.question[0].rdtype)
        n = zone.slip_count[key] = zone.slip_count.get(key, 0) + 1
        if n % acts["rrl_slip"].get("slip", 2):
            return [], "rrl-drop"
        t = dns.message.make_response(q, our_payload=1232)
        t.flags &= ~dns.flags.AA
        t.flags |= dns.flags.TC
        return [(0, to_wire(q, t, proto))], "rrl-tc"
    if "garbage" in acts:
        n = acts["garbage"].get("len", 40)
        return [(0, struct.pack("!H", q.id) + os.urandom(n))], "garbage"
    delay = acts.get("delay", {}).get("ms", 0) / 1000.0
    r = dns.message.make_response(q, our_payload=1232)
    r.flags &= ~dns.flags.AA
    done = "answer"
    if "formerr_edns" in acts and q.edns >= 0:
        r.use_edns(False)
        r.set_rcode(dns.rcode.FORMERR)
        done = "formerr"
    elif ("tc" in acts and proto == "udp") or "tc_always" in acts:
        r.flags |= dns.flags.TC
        done = "tc"
    elif "rcode" in acts:
        r.set_rcode(dns.rcode.from_text(acts["rcode"]["rcode"]))
        done = "rcode"
    elif "referral" in acts:
        a = acts["referral"]
        referral(r, a["zone"], a["ns"], a.get("glue", {}))
        done = "referral"
    elif "proxy" in acts:
        r = proxy(q, proto, acts["proxy"])
        if r is None:
            return [], "proxy-timeout"
        done = "proxy"
    elif "nodata_noaa" in acts:
        done = "nodata_noaa"
    elif "wrong_type" in acts:
        node = zone.nodes.get(q.question[0].name, {})
        rr = node.get(dns.rdatatype.from_text(acts["wrong_type"]["rrtype"]))
        if rr is not None:
            r.answer.append(rr)
        done = "wrong_type"
    elif "answer" in acts:
        if acts["answer"].get("aa", True):
            r.flags |= dns.flags.AA
        for line in acts["answer"]["records"]:
            r.answer.append(dns.rrset.from_text(*Zone._split(line)))
        for line in acts["answer"].get("authority", []):
            r.authority.append(dns.rrset.from_text(*Zone._split(line)))
        done = "answer-rule"
    elif "self_ns" in acts:
        ns = zone.nodes.get(zone.origin, {}).get(dns.rdatatype.NS)
        if ns is not None:
            r.authority.append(ns)
        done = "self_ns"
    elif "many_ns" in acts:
        a = acts["many_ns"]
        names = ["ns%d.%s" % (i, a["ns_zone"])
                 for i in range(1, a.get("count", 20) + 1)]
        referral(r, a["zone"], names, {})
        done = "many_ns"
    else:
        zone.answer(q, r)
    if "poison" in acts and done != "formerr":
        for line in acts["poison"]["records"]:
            r.additional.append(dns.rrset.from_text(*Zone._split(line)))
        done += "+poison"
    if "lower_question" in acts:
        qn = dns.name.from_text(q.question[0].name.to_text().lower())
        r.question = [dns.rrset.RRset(qn, q.question[0].rdclass,
                                      q.question[0].rdtype)]
        done += "+lower"
    if "wrong_question" in acts:
        other = acts["wrong_question"].get("qname")
        qn = dns.name.from_text(other) if other else \
            dns.name.Name((b"wrong",) + q.question[0].name.labels)
        r.question = [dns.rrset.RRset(qn, q.question[0].rdclass,
                                      q.question[0].rdtype)]
        done += "+wrongq"
    wire = to_wire(q, r, proto)
    if "tsig_records" in acts:
        wire = with_tsigs(wire, acts["tsig_records"].get("count", 2), q.id)
        done += "+tsig"
    qtext = q.question[0].name.to_text()
    if "spoof_case" in acts and (qtext != qtext.lower() or
                                 acts["spoof_case"].get("always")):
        f = dns.message.make_response(q, our_payload=1232)
        f.flags |= dns.flags.AA
        f.question = [dns.rrset.RRset(dns.name.from_text(qtext.lower()),
                                      q.question[0].rdclass,
                                      q.question[0].rdtype)]
        for line in acts["spoof_case"]["records"]:
            f.answer.append(dns.rrset.from_text(*Zone._split(line)))
        return [(delay, to_wire(q, f, proto)),
                (delay + 0.05, wire)], done + "+spoofcase"
    if "wrong_id" in acts:
        n = int(acts["wrong_id"].get("count", 1))
        replies = [(delay, struct.pack("!H", (q.id + i) & 0xFFFF) +
                    wire[2:]) for i in range(1, n + 1)]
        if acts["wrong_id"].get("then_correct"):
            replies.append((delay + 0.02, wire))
        return replies, done + "+wrongid"
    return [(delay, wire)], done + ("+delay" if delay else "")


def with_tsigs(wire, count, qid):
    """wire with count TSIG records (owner "key.", hmac-sha256, no MAC)
    appended to the additional section."""
    alg = dns.name.from_text("hmac-sha256.").to_wire()
    rdata = (alg + struct.pack("!HIH", 0, int(time.time()), 300) +
             struct.pack("!HHHH", 0, qid, 0, 0))
    rr = (dns.name.from_text("key.").to_wire() +
          struct.pack("!HHIH", 250, 255, 0, len(rdata)) + rdata)
    arcount = struct.unpack("!H", wire[10:12])[0] + count
    return wire[:10] + struct.pack("!H", arcount) + wire[12:] + rr * count


def to_wire(q, r, proto):
    """r in wire format, truncated (TC=1, no records) when over the UDP
    limit: 512 without EDNS, else the client's payload size."""
    limit = 65535
    if proto == "udp":
        limit = max(512, q.payload) if q.edns >= 0 else 512
    try:
        return r.to_wire(max_size=limit)
    except dns.exception.TooBig:
        t = dns.message.make_response(q, our_payload=1232)
        t.flags = r.flags | dns.flags.TC
        return t.to_wire(max_size=limit)


class Server:
    def __init__(self, cfg_path):
        self.cfg_path = cfg_path
        self.cfg = self.load()
        self.zone = Zone(self.cfg)
        self.log_lock = threading.Lock()
        self.logf = open(self.cfg["log"], "a", buffering=1)

    def load(self):
        with open(self.cfg_path) as f:
            return json.load(f)

    def reload(self, *_):
        try:
            self.zone = Zone(self.load())
        except Exception as e:      # keep serving the old config
            sys.stderr.write("responder: reload failed: %s\n" % e)
        self.mark_ready()

    def mark_ready(self):
        """Write the ready file (atomically): after start and after each
        reload, so a client knows when the new config is in force."""
        ready = self.cfg.get("ready")
        if ready:
            with open(ready + ".tmp", "w") as f:
                f.write("%d\n" % os.getpid())
            os.rename(ready + ".tmp", ready)

    def log(self, proto, src, q, done):
        entry = {"t": round(time.time(), 3), "proto": proto,
                 "src": "%s:%d" % src[:2], "id": q.id,
                 "qname": q.question[0].name.to_text(),
                 "qtype": dns.rdatatype.to_text(q.question[0].rdtype),
                 "edns": q.edns, "do": bool(q.ednsflags & dns.flags.DO),
                 "rd": bool(q.flags & dns.flags.RD), "did": done}
        with self.log_lock:
            self.logf.write(json.dumps(entry) + "\n")

    def handle(self, wire, proto, src):
        """Parse and answer one query; unparseable input is dropped."""
        try:
            q = dns.message.from_wire(wire)
        except Exception:
            return []
        if len(q.question) != 1 or q.flags & dns.flags.QR:
            return []
        replies, done = build_replies(self.zone, q, proto)
        self.log(proto, src, q, done)
        return replies

    def serve_udp(self, sock):
        while True:
            wire, src = sock.recvfrom(65535)
            for delay, out in self.handle(wire, "udp", src):
                if delay:
                    t = threading.Timer(delay, sock.sendto, (out, src))
                    t.daemon = True
                    t.start()
                else:
                    sock.sendto(out, src)

    def serve_tcp(self, lsock):
        while True:
            conn, src = lsock.accept()
            threading.Thread(target=self.tcp_conn, args=(conn, src),
                             daemon=True).start()

    def tcp_conn(self, conn, src):
        conn.settimeout(10)
        try:
            while True:
                hdr = recv_exact(conn, 2)
                if hdr is None:
                    return
                wire = recv_exact(conn, struct.unpack("!H", hdr)[0])
                if wire is None:
                    return
                for delay, out in self.handle(wire, "tcp", src):
                    if delay:
                        time.sleep(delay)
                    conn.sendall(struct.pack("!H", len(out)) + out)
        except OSError:
            pass
        finally:
            conn.close()


def recv_exact(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: responder.py CONFIG.json\n")
        return 2
    srv = Server(argv[1])
    addr = (srv.cfg["address"], srv.cfg["port"])
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(addr)
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    tcp.bind(addr)
    tcp.listen(64)
    signal.signal(signal.SIGHUP, srv.reload)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    threading.Thread(target=srv.serve_tcp, args=(tcp,), daemon=True).start()
    srv.mark_ready()
    try:
        srv.serve_udp(udp)
    except (SystemExit, KeyboardInterrupt):
        return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
