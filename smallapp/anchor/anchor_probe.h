/* SPDX-License-Identifier: BSD-3-Clause */
/* smallapp/anchor/anchor_probe.h - the DNS side of unbound-anchor: which
 * servers to ask (-f, -r, -C or the built-in root hints), the probe of
 * the root DNSKEY against the anchor, and the -u name's addresses. */
#ifndef ANCHOR_PROBE_H
#define ANCHOR_PROBE_H
#include <ldns/ldns.h>
#include "smallapp/anchor/anchor_https.h"

struct anchor_dns_opts {
	const char* resolv_conf;   /* -f: recursive servers */
	const char* root_hints;    /* -r */
	const char* conf;          /* -C: root-hints: and forward-zone "." */
	const char* source;        /* -b */
	int ip4only, ip6only;      /* -4, -6 */
};

/* A resolver for the servers the options name (the first of -f, -r,
 * a forward-zone for "." in -C, root-hints: in -C, the built-in root
 * hints); with -f and when use_resolv_conf is 0, the root servers.
 * NULL with a message when a file cannot be read. */
ldns_resolver* anchor_resolver(const struct anchor_dns_opts* o,
	int use_resolv_conf);

struct anchor_probe {
	int answered;   /* some server answered */
	int rcode;      /* its rcode (LDNS_RCODE_SERVFAIL when none did) */
	int secure;     /* the DNSKEY set is signed by a key of the anchor */
};

/* Ask for the root DNSKEY set with DO and check its signatures against
 * anchors (DS and DNSKEY records of the anchor file). */
struct anchor_probe anchor_probe_root(ldns_resolver* res,
	const ldns_rr_list* anchors);

/* The addresses of name (an IPv4 or IPv6 address itself, or looked up
 * as A and AAAA through res with RD set), with port. The number of them
 * in *n; NULL with a message when there are none. */
struct anchor_addr* anchor_resolve_name(ldns_resolver* res,
	const char* name, int port, int ip4only, int ip6only, int* n);

#endif
