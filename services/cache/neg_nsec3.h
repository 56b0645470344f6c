/* SPDX-License-Identifier: BSD-3-Clause */
/* services/cache/neg_nsec3.h - compat: unbound-1.17: NSEC3 records kept to
 * prove that a delegation has no DS (RFC 8198 for DS only, as Unbound 1.17's
 * negative cache: neg_nsec3_proof_ds, exact match only).
 *
 * Kept: the NSEC3 RRsets (with their RRSIGs) that can prove a DS absent
 * (NS, neither DS nor SOA) of referrals, which nobody has checked yet,
 * and of answers the validator found secure (checked); per zone the NSEC3
 * parameters (hash, iterations, salt) of the last NSEC3 seen with at most
 * max_iter iterations (the last pair of val-nsec3-keysize-iterations, as
 * Unbound's neg cache), and the zone's SOA from a secure answer. Used
 * also with aggressive-nsec: no, as Unbound.
 *
 * A DS question for qname is answered NODATA when, in the closest zone
 * at or above qname's parent that has parameters, the NSEC3 whose owner
 * is qname's hash with them is kept, fresh, of those parameters, with
 * the NS bit and neither DS (in none of the RRs at that owner) nor SOA.
 * No covering or opt-out proof is made (Unbound's code has one for its
 * validator only, never for a client; Debian's Unbound asks that DS
 * upstream on the test net all the same).
 *
 * A referral's NSEC at the delegation name (NS, neither DS nor SOA) is
 * kept too, unchecked, and answers the walk's DS question for exactly
 * that name (Unbound's val_neg_addreferral keeps NSECs as well).
 *
 * Unchecked records answer only a caller that verifies the signatures
 * itself (the validator's walk); a client answer (marked secure without
 * another check) uses checked records only, and needs the SOA. Not
 * counted in num.query.aggressive.*: Unbound counts only its NSEC
 * answers there.
 *
 * Own lock; records are copies. Bounded by maxmem bytes (LRU); each
 * record and the SOA go when their TTL ends. */
#ifndef SERVICES_CACHE_NEG_NSEC3_H
#define SERVICES_CACHE_NEG_NSEC3_H
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <ldns/ldns.h>

struct neg_nsec3;

/* NULL on no memory. max_iter: NSEC3 with more iterations set no zone
 * parameters (so never answer). */
struct neg_nsec3* neg_nsec3_create(size_t maxmem, size_t max_iter);
void neg_nsec3_delete(struct neg_nsec3* c);

/* How far what neg_nsec3_add is given was checked. */
enum neg_nsec3_from {
	NEG_NSEC3_REFERRAL = 0,  /* nothing checked (a referral's) */
	NEG_NSEC3_VERIFIED,      /* the NSEC3 signatures verified */
	NEG_NSEC3_SECURE         /* a secure message: its SOA too */
};

/* Keep the NSEC3 RRsets of authority that carry RRSIGs, each in the
 * zone of its signer (which must be at or below bailiwick when that is
 * not NULL, as a referral's must be under the zone that gave it), and
 * with NEG_NSEC3_SECURE the zone's SOA when authority has it with
 * its RRSIGs. A store of an owner replaces what was kept there, but a
 * referral's does not replace a checked record of the same RRs. */
void neg_nsec3_add(struct neg_nsec3* c, const ldns_rr_list* authority,
	const uint8_t* bailiwick, enum neg_nsec3_from from, time_t now);

/* NODATA for (qname, DS): 1 with *authority a new list (the caller frees
 * it deep): the SOA (when known; required when checked_only), the
 * NSEC3, and with dnssec their RRSIGs, every TTL the least time left
 * of them (at most max_neg_ttl). 0 when nothing proves it. */
int neg_nsec3_ds(struct neg_nsec3* c, const uint8_t* qname,
	time_t now, int checked_only, int dnssec, uint32_t max_neg_ttl,
	ldns_rr_list** authority);

/* Drop what is kept at the owners of the NSEC3 RRs of list (a proof
 * the walk found bogus: its next try asks upstream). */
void neg_nsec3_forget(struct neg_nsec3* c, const ldns_rr_list* list);
void neg_nsec3_flush_all(struct neg_nsec3* c);
/* A new bound (neg-cache-size at a reload): the least recently used
 * over it go now. */
void neg_nsec3_set_max_mem(struct neg_nsec3* c, size_t maxmem);
/* Drop what is at or below zone (records, and zones' SOA); returns the
 * records dropped. */
size_t neg_nsec3_flush_zone(struct neg_nsec3* c, const uint8_t* zone);
size_t neg_nsec3_count(struct neg_nsec3* c);
size_t neg_nsec3_get_mem(struct neg_nsec3* c);

#endif
