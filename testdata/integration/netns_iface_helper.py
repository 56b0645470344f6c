# SPDX-License-Identifier: BSD-3-Clause
"""Run resolvers on several local addresses and ask them from chosen
source addresses that no access-control netblock holds, inside a network
namespace that has nothing but lo (its own lo, with 10.53.0.x added: the
host's network is not touched and nothing can leave).

Run as `unshare -n /usr/bin/python3 netns_iface_helper.py SPEC.json`
(root). Brings lo up, adds the spec's addresses to it, refuses (exit 3)
unless lo is the only interface, then for each resolver: writes its
config (the spec's body, the interfaces, port), starts it, asks every
question of the spec (qname, qtype, source, destination) over UDP and
TCP, stops it by PID and prints one JSON object with the answers (rcode,
flags, sections as text without TTLs; "none" for no reply). Used by
test_interface_tags.py and test_interface_respip.py (the spec's
"modules": module-config, "iterator" unless given).
"""
import json
import os
import subprocess
import sys
import time

import dns.exception
import dns.flags
import dns.message
import dns.query
import dns.rcode
import dns.rdatatype

from netns_helper import die_with_parent, enter_isolation, stop_and_collect

FLAGS = (dns.flags.QR, dns.flags.AA, dns.flags.TC, dns.flags.RD,
         dns.flags.RA, dns.flags.AD, dns.flags.CD)


def config(d, port, ifaces, body, modules="iterator"):
    return "\n".join([
        "server:",
        "\tverbosity: 1",
        "\tport: %d" % port,
        "\tdo-ip6: no",
        "\tdo-daemonize: no",
        "\tuse-syslog: no",
        '\tchroot: ""',
        '\tusername: ""',
        '\tpidfile: ""',
        '\tdirectory: "%s"' % d,
        '\tlogfile: "%s/unbound.log"' % d,
        '\tmodule-config: "%s"' % modules,
    ] + ["\tinterface: %s" % i for i in ifaces] +
        ["\t" + l for l in body.splitlines()] + [""])


def view(r):
    def sec(rrsets):
        return sorted("%s %s %s" % (rs.name, dns.rdatatype.to_text(
            rs.rdtype), rd.to_text()) for rs in rrsets for rd in rs)
    return [dns.rcode.to_text(r.rcode()),
            dns.flags.to_text(r.flags & sum(FLAGS)),
            sec(r.answer), sec(r.authority), sec(r.additional)]


def ask(port, q, tcp, timeout):
    qname, qtype, src, dst = q
    m = dns.message.make_query(qname, qtype)
    try:
        if tcp:
            r = dns.query.tcp(m, dst, port=port, source=src,
                              timeout=timeout)
        else:
            r = dns.query.udp(m, dst, port=port, source=src,
                              timeout=timeout)
        return view(r)
    except (dns.exception.Timeout, ConnectionError, EOFError, OSError):
        return "none"


def run_one(spec, common):
    d = spec["dir"]
    os.makedirs(d, exist_ok=True)
    conf = os.path.join(d, "unbound.conf")
    port = common["port"]
    with open(conf, "w") as f:
        f.write(config(d, port, common["interfaces"], common["body"],
                       common.get("modules", "iterator")))
    out = {"name": spec["name"], "answers": []}
    with open(os.path.join(d, "stderr.txt"), "wb") as err:
        proc = subprocess.Popen([spec["unbound"], "-d", "-c", conf],
                                stdin=subprocess.DEVNULL, stdout=err,
                                stderr=err, cwd=d,
                                preexec_fn=die_with_parent)
    try:
        q = dns.message.make_query("version.server.", "TXT", "CH")
        deadline = time.time() + common.get("start_timeout", 15)
        while True:
            if proc.poll() is not None:
                raise RuntimeError("exited with %s" % proc.returncode)
            try:
                dns.query.udp(q, common["interfaces"][0], port=port,
                              timeout=0.3)
                break
            except (dns.exception.Timeout, OSError):
                if time.time() > deadline:
                    raise RuntimeError("did not answer")
                time.sleep(0.1)
        for tcp in (False, True):
            for qq in common["questions"]:
                out["answers"].append(ask(port, qq, tcp,
                                          common["query_timeout"]))
    except (RuntimeError, OSError) as e:
        out["error"] = str(e)
    finally:
        stop_and_collect(proc, d, out, common.get("stop_timeout", 10))
    return out


def main():
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    problem = enter_isolation(spec["lo_addrs"])
    if problem:
        print(json.dumps({"isolation": problem}))
        return 3
    print(json.dumps({"isolation": None,
                      "results": [run_one(s, spec)
                                  for s in spec["resolvers"]]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
