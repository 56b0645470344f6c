/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/iter_hints.h - compat: unbound-1.17: where iteration starts: the
 * root hints read from the root-hints: file (without it, the compiled-in IANA
 * root servers, as Unbound), and the stub-zone: and forward-zone: clauses.
 * Built once per config snapshot, immutable after, so all workers may share
 * it. */
#ifndef ITERATOR_ITER_HINTS_H
#define ITERATOR_ITER_HINTS_H
#include <stddef.h>
#include <stdint.h>

struct config_file;
struct delegpt;

#define HINTS_MAX_TFP 16   /* target-fetch-policy numbers kept */

/* One configured starting point. */
struct iter_hint {
	struct iter_hint* next;
	struct delegpt* dp;     /* zone, NS names, addresses (with port) */
	int is_forward;         /* forward-zone: send RD=1, take the answer */
	int is_root;            /* from root-hints: (prime before use) */
	int prime;              /* stub-prime: yes */
	int first;              /* stub-first / forward-first */
	int no_cache;           /* stub-no-cache / forward-no-cache */
};

struct iter_hints {
	struct iter_hint* list; /* deepest first is not guaranteed: lookup
	                         * picks the longest match */
	struct iter_hint* root; /* the root-hints file or the built-in
	                         * hints, or a stub/forward zone for "." */
	/* private-address / private-domain (iterator/iter_priv.h), NULL
	 * when not configured; kept here to be built and swapped with the
	 * rest of the iterator's config */
	struct iter_priv* priv;
	/* target-fetch-policy: per dependency depth (0: a client's query,
	 * 1: a lookup of its NS names, ...) how many NS names without an
	 * address get looked up while the known servers are asked already
	 * (-1: all, 0: only when no server is left); names are not looked
	 * up at all from depth tfp_num - 1 on */
	int tfp[HINTS_MAX_TFP];
	int tfp_num;
	/* DNS over TLS to upstreams: the client context (with this
	 * config's CAs), NULL when no zone and no tls-upstream wants TLS */
	struct ssl_ctx_st* tls_ctx;
	/* caps-exempt / caps-whitelist (iterator/iter_caps.h) */
	uint8_t* caps_exempt;
	size_t num_caps_exempt;
};

/* compat: unbound-1.17: Read the hints from cfg: root-hints: files (the last
 * one given wins, as Unbound), stub-zone: and forward-zone: clauses (stub-addr
 * / forward-addr "IP[@port]", stub-host / forward-host names to look up). Logs
 * and returns NULL on an unreadable file or bad entry. Without root-hints: (or
 * with an empty name) the root is the built-in hints. */
struct iter_hints* iter_hints_create(const struct config_file* cfg);
void iter_hints_delete(struct iter_hints* h);

/* Parse a target-fetch-policy ("3 2 1 0 0": integers >= -1, at least
 * one) into tfp (at most max, more are an error). Returns the count, 0
 * on bad text. */
int iter_hints_parse_tfp(const char* str, int* tfp, int max);

/* Read a root hints file: NS records for "." and A/AAAA for their
 * names (other records ignored). NULL (logged) on error or no NS. */
struct delegpt* iter_hints_read_file(const char* fname);

/* compat: unbound-1.17: The compiled-in root hints
 * (iterator/iter_hints_builtin.c): the 13 IANA root servers with their IPv4
 * (when do4) and IPv6 (when do6) addresses, in the order Unbound lists them.
 * NULL (logged) when out of memory. */
struct delegpt* iter_hints_builtin_root(int do4, int do6);

/* The configured starting point closest to qname (longest zone that
 * qname is at or under), or NULL when none (no root hints). */
const struct iter_hint* iter_hints_lookup(const struct iter_hints* h,
	const uint8_t* qname);

#endif
