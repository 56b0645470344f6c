#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Seeds for fuzz_validate (see the harness for the message layout),
from the signed test internet's zone files:

    testdata/testnet/testnet.py generate /tmp/sgen --signed
    testdata/fuzz/make_validate_seeds.py /tmp/sgen testdata/fuzz/validate

then set FUZZ_NOW in fuzz_validate.c to the time it prints (the
signatures are valid around it). Kept: www A of every zone (each
algorithm, each broken child, KeyTrap), and the NSEC, NSEC3 and high
iteration zones' negative and wildcard questions."""
import glob, os, sys, time
import dns.zone, dns.message, dns.rrset, dns.rdatatype, dns.name, dns.rdataclass
src, out = sys.argv[1], sys.argv[2]
zones = {}
for f in glob.glob(os.path.join(src, "signing", "*.signed")):
    origin = os.path.basename(f)[:-len(".signed")] + "."
    if origin == "root.":
        origin = "."
    try:
        zones[origin] = dns.zone.from_file(f, origin=origin, relativize=False,
                                           check_origin=False)
    except Exception as e:
        print("skip", f, e)
def rrsets_at(z, name, rdtype, covers=dns.rdatatype.NONE):
    node = z.get_node(name)
    if node is None:
        return None
    rds = node.get_rdataset(dns.rdataclass.IN, rdtype, covers)
    if rds is None:
        return None
    return dns.rrset.from_rdata_list(name, rds.ttl, list(rds))
def parent_ds(origin):
    n = dns.name.from_text(origin)
    if n == dns.name.root:
        return []
    p = n.parent()
    pz = zones.get(p.to_text())
    if not pz:
        return []
    r = [rrsets_at(pz, n, dns.rdatatype.DS)]
    return [x for x in r if x]
count = 0
for origin, z in sorted(zones.items()):
    on = dns.name.from_text(origin)
    keys = [rrsets_at(z, on, dns.rdatatype.DNSKEY),
            rrsets_at(z, on, dns.rdatatype.RRSIG, dns.rdatatype.DNSKEY)]
    keys = [k for k in keys if k]
    denial = []
    for name, node in z.items():
        for rds in node:
            if rds.rdtype in (dns.rdatatype.NSEC, dns.rdatatype.NSEC3) or (
                    rds.rdtype == dns.rdatatype.RRSIG and rds.covers in (
                    dns.rdatatype.NSEC, dns.rdatatype.NSEC3)):
                denial.append(dns.rrset.from_rdata_list(name, rds.ttl,
                                                        list(rds)))
    for qn, qt in (("www", dns.rdatatype.A), ("nx", dns.rdatatype.A),
                   ("www", dns.rdatatype.TXT), ("a.b.wild", dns.rdatatype.A)):
        name = dns.name.from_text(qn, on)
        m = dns.message.make_response(dns.message.make_query(name, qt,
                                                             want_dnssec=True))
        for t, cov in ((qt, dns.rdatatype.NONE),
                       (dns.rdatatype.RRSIG, qt)):
            r = rrsets_at(z, name, t, cov)
            if r:
                m.answer.append(r)
        m.authority.extend(keys + denial[:8])
        m.additional.extend(parent_ds(origin))
        zn = origin.rstrip(".") or "root"
        if not (qn == "www" and qt == dns.rdatatype.A) and zn not in (
                "example.sec1", "example3.sec1") and not (
                qn == "nx" and zn in ("iter500.sec1", "sec2")):
            continue
        with open(os.path.join(out, "seed-%s-%s-%d" % (zn, qn, qt)),
                  "wb") as f:
            f.write(m.to_wire(max_size=65535))
        count += 1
print(count, "seeds; now", int(time.time()))
