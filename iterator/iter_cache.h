/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/iter_cache.h - between the iterator's ldns records and the
 * RRset cache (services/cache/rrset.h) and the reply encoder: RRsets of
 * a record list in packed form, storing a scrubbed reply's RRsets with
 * their trust, and reading back delegations and answers. */
#ifndef ITERATOR_ITER_CACHE_H
#define ITERATOR_ITER_CACHE_H
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <ldns/ldns.h>
#include "util/rrlist_pack.h"

struct packed_rrset;
struct rrset_cache;
struct delegpt;
struct msg_cache;

/* compat: unbound-1.17: Is the NS set in the authority section of the
 * scrubbed reply pkt worth keeping: a referral's (no AA, NOERROR, no
 * answer, no SOA) or an authoritative reply's? The one of a
 * non-authoritative answer, NXDOMAIN or NODATA is not (RFC 2181 5.4.1:
 * the least credible data): it would replace the referral's NS set
 * (same trust) and redirect the zone. Debian's 1.17.1 (CVE-2025-11411
 * fix) and Unbound 1.26 (iter-scrub-promiscuous) drop it too, and also
 * an authoritative answer's, which is kept here (doc/compat.md). */
int iter_authority_ns_credible(const ldns_pkt* pkt);

/* Store the RRsets of a scrubbed reply: answer section with answer
 * trust (authoritative when aa; a CNAME synthesized from a DNAME is not
 * stored), authority NS and DS as authority trust (when
 * iter_authority_ns_credible), additional addresses as glue. Nothing here may extend a cached entry's life (can_refresh 0)
 * except an authoritative answer from the zone's own servers. Returns
 * the number stored. */
int iter_store_reply(struct rrset_cache* c, const ldns_pkt* pkt, time_t now);

/* The closest delegation the cache has for qname (NS set and the cached
 * addresses of its names), when it is strictly below min_labels labels;
 * NULL otherwise. */
struct delegpt* iter_cache_delegation(struct rrset_cache* c,
	const uint8_t* qname, uint16_t qclass, int min_labels, time_t now);

/* Append the cached RRset (name, type, class) with at least answer
 * trust (a DS set: authority trust, a referral's) to list, as records
 * with the time left as TTL. Returns 1 when found and appended, 0 when
 * not (or OOM). */
int iter_cache_answer(struct rrset_cache* c, const uint8_t* name,
	uint16_t type, uint16_t qclass, time_t now, ldns_rr_list* list);

/* The same as a new list, NULL when not found (or OOM): no list is made
 * for a lookup that finds nothing (the CNAME lookup before every
 * upstream query). */
ldns_rr_list* iter_cache_answer_list(struct rrset_cache* c,
	const uint8_t* name, uint16_t type, uint16_t qclass, time_t now);

/* compat: unbound-1.17: A question of type ANY answered from the RRset cache,
 * as Unbound 1.17 (services/cache/dns.c): a cached CNAME at name alone; else
 * the RRsets of name of the types A, AAAA, MX, SOA, NS and DNAME that came
 * from an answer section (not glue or authority), in that order. Appended to
 * list; returns how many RRsets (0: nothing usable, ask upstream). */
int iter_cache_any(struct rrset_cache* c, const uint8_t* name,
	uint16_t qclass, time_t now, ldns_rr_list* list);

/* Is a CNAME at name cached (from an answer section, usable now)? */
int iter_cache_has_cname(struct rrset_cache* c, const uint8_t* name,
	uint16_t qclass, time_t now);

/* The message cache's entry for (qname, qtype, qclass, no CD; the DO
 * variant when there is one, and only that one when whole), as
 * records: *rcode, the answer section appended to answer, the
 * authority section (only its SOA unless whole) as a new list in
 * *authority (NULL if none), TTLs as much as is left of them. Returns
 * 1 when there was a fresh entry. */
int iter_msg_cached(struct msg_cache* c, const uint8_t* qname,
	size_t qname_len, uint16_t qtype, uint16_t qclass, time_t now,
	int whole, int* rcode, ldns_rr_list* answer, ldns_rr_list** authority);

/* compat: unbound-1.17: harden-below-nxdomain (RFC 8020, as Unbound 1.17): is
 * a name above sname (up to the root) a DNSSEC-secure NXDOMAIN in the message
 * cache, for qtype or, with qname minimisation (qmin), type A? Then 1, with
 * that answer's authority section (SOA, denial proofs) as a new list in
 * *authority: sname does not exist either. Unsigned or unchecked NXDOMAINs do
 * not count (old servers give NXDOMAIN for empty non-terminals); until there
 * is a validator, none is secure. */
int iter_below_secure_nx(struct msg_cache* c, const uint8_t* sname,
	uint16_t qtype, uint16_t qclass, int qmin, time_t now,
	ldns_rr_list** authority);

/* Append the cached A/AAAA RRsets (any trust) of the names in the NS
 * records of ns to list: the additional section of an NS answer. */
void iter_cache_ns_addrs(struct rrset_cache* c, const ldns_rr_list* ns,
	uint16_t qclass, time_t now, ldns_rr_list* list);

#endif
