/* SPDX-License-Identifier: BSD-3-Clause */
/* services/cache/neg_rrset.h - compat: unbound-1.17: the records behind the
 * aggressive NSEC cache (neg_cache.h). As in Unbound, the negative cache is an
 * index of owner names; the validated NSEC RRsets (and the wildcard RRsets a
 * wildcard answer was expanded from) live in the shared RRset cache
 * (services/cache/rrset.h) with their RRSIGs and trust RRSET_TRUST_VALIDATED,
 * bounded by rrset-cache-size, and are taken from there for each answer. An
 * RRset gone from the RRset cache, expired, or replaced by one not validated
 * proves nothing any more. */
#ifndef SERVICES_CACHE_NEG_RRSET_H
#define SERVICES_CACHE_NEG_RRSET_H
#include <stdint.h>
#include <time.h>
#include <ldns/ldns.h>

struct rrset_cache;

/* Store rrs (the RRs of one RRset) and sigs (its RRSIGs, at least one) as
 * validated, under owner (NULL: the RRs' own owner; a wildcard RRset goes
 * under its "*.<closest encloser>") and the key flags (RRSET_FLAG_NSEC_APEX
 * for an NSEC at its zone's apex), for at most ttl seconds from now. Call
 * only for RRsets the validator found secure. Returns 1 when the cache holds
 * it now (stored, or an equal or more trusted fresh copy kept). */
int neg_rrset_store(struct rrset_cache* rc, const ldns_rr_list* rrs,
	const ldns_rr_list* sigs, const uint8_t* owner, uint32_t flags,
	uint32_t ttl, time_t now);

/* The fresh, validated RRset (name, type, class IN, key flags) as new ldns
 * lists (the caller frees them deep): its RRs into *rrs and, when sigs is
 * not NULL, its RRSIGs into *sigs; *expire: when it ends. Returns 0 (and
 * NULL lists) when the cache has none fresh, only one not validated, or on
 * no memory. */
int neg_rrset_fetch(struct rrset_cache* rc, const uint8_t* name,
	uint16_t type, uint32_t flags, time_t now, ldns_rr_list** rrs,
	ldns_rr_list** sigs, time_t* expire);

#endif
