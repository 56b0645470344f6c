# SPDX-License-Identifier: BSD-3-Clause
"""dnsperf: the query mix, the calibration, the main run, its figures;
and the query burst past num-queries-per-thread."""
import random
import re
import select
import socket
import subprocess
import time

import dns.message

# Misbehaving names: each gets a suffix rule at the responder (bad.tld2.)
MISBEHAVING = {
    "sdrop": [{"type": "drop"}],
    "late": [{"type": "delay", "ms": 1500}],
    "garbage": [{"type": "garbage"}],
    "tcforever": [{"type": "tc_always"}],
    "otherid": [{"type": "wrong_id"}],
    "flood": [{"type": "drop"}],       # the hostile flood's names
}

# share of the mix in per mille
MIX = (("hit", 600), ("bench", 200), ("nx", 100), ("nxtld", 70),
       ("bad", 30))

DNSPERF_TIMEOUT = 20    # s; the slowest SERVFAIL (a dropping server) ~10 s


def responder_rules(spec_rules):
    """The bad.tld2. responder's rules plus the soak's suffix rules."""
    extra = [{"name": "%s.bad.tld2." % n, "suffix": True, "actions": a}
             for n, a in MISBEHAVING.items()]
    return extra + list(spec_rules)


def hit_names(net):
    return [(c.qname, c.qtype) for c in net.expected
            if "bad.tld2" not in c.qname and "noedns" not in c.qname
            and "needs TCP" not in c.why]


def write_mix(path, net, lines=300000, seed=1):
    """The dnsperf query file: cache hits, bench names (a miss, then
    hits), nonexistent names under the test internet and under a TLD
    that does not exist, names under the misbehaving responder."""
    rnd = random.Random(seed)
    hits = hit_names(net)
    bench = net.bench_queries
    kinds = [k for k, n in MIX for _ in range(n)]
    bad = [n for n in MISBEHAVING if n != "flood"]
    counts = {}
    with open(path, "w") as f:
        for i in range(lines):
            k = rnd.choice(kinds)
            counts[k] = counts.get(k, 0) + 1
            if k == "hit":
                name, t = rnd.choice(hits)
            elif k == "bench" and bench:
                name, t = bench[i % len(bench)]
            elif k == "nx":
                name, t = "nx%d.example.tld%d." % (i, 1 + i % 2), "A"
            elif k == "nxtld":
                name, t = "nx%d.nosuchtld%d." % (i, i % 50), "A"
            else:
                name, t = "q%d.%s.bad.tld2." % (i, bad[i % len(bad)]), "A"
            f.write("%s %s\n" % (name, t))
    return counts


def write_flood(path, lines=1000000):
    """Distinct names nobody can answer with data: half under a server
    that drops every query (the resolver soon answers SERVFAIL from its
    infrastructure cache), half under TLDs that do not exist (an
    NXDOMAIN from the root, cached: the message cache's bound)."""
    with open(path, "w") as f:
        for i in range(lines):
            if i % 2:
                f.write("h%d.flood.bad.tld2. A\n" % i)
            else:
                f.write("h%d.nosuch%d. A\n" % (i, i % 1000))


def dnsperf(port, qfile, seconds, out, rate=None, clients=4, outstanding=
            2000, timeout=DNSPERF_TIMEOUT, wait=True, threads=1):
    cmd = ["dnsperf", "-s", "127.0.0.1", "-p", str(port), "-d", qfile,
           "-l", str(seconds), "-c", str(clients), "-q", str(outstanding),
           "-t", str(timeout), "-T", str(threads)]
    if rate:
        cmd += ["-Q", str(int(rate))]
    f = open(out, "w")
    p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL)
    f.close()
    if wait:
        p.wait()
        return parse(out)
    return p


def parse(path):
    """dnsperf's summary: sent, completed, lost, qps, rcodes."""
    with open(path, errors="replace") as f:
        text = f.read()
    r = {"text": text}
    for key, pat in (("sent", r"Queries sent:\s+(\d+)"),
                     ("completed", r"Queries completed:\s+(\d+)"),
                     ("lost", r"Queries lost:\s+(\d+)"),
                     ("qps", r"Queries per second:\s+([\d.]+)"),
                     ("latency", r"Average Latency \(s\):\s+([\d.]+)")):
        m = re.search(pat, text)
        r[key] = float(m.group(1)) if m else None
    m = re.search(r"Response codes:\s+(.*)", text)
    r["rcodes"] = m.group(1).strip() if m else ""
    return r


def burst(port, count, wait_s, tag):
    """count distinct unanswerable queries as fast as one UDP socket
    sends them, then wait_s for answers. Returns (sent, answered)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.connect(("127.0.0.1", port))
    s.setblocking(False)
    sent = 0
    ids = set()
    for i in range(count):
        q = dns.message.make_query("b%s%d.sdrop.bad.tld2." % (tag, i), "A")
        q.id = i & 0xFFFF
        try:
            s.send(q.to_wire())
            sent += 1
            ids.add(i & 0xFFFF)
        except BlockingIOError:
            select.select([], [s], [], 0.1)
    answered = 0
    end = time.time() + wait_s
    while time.time() < end:
        rd, _, _ = select.select([s], [], [], 0.5)
        if not rd:
            continue
        try:
            while True:
                s.recv(65535)
                answered += 1
        except BlockingIOError:
            pass
    s.close()
    return sent, answered
