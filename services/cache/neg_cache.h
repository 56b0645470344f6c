/* SPDX-License-Identifier: BSD-3-Clause */
/* services/cache/neg_cache.h - compat: unbound-1.17: the aggressive NSEC
 * cache (RFC 8198, aggressive-nsec: as Unbound 1.17's negative cache), cache
 * code shared by the workers as the RRset cache (the daemon makes it; the
 * validator fills and asks it, the iterator adds referrals' NSEC3 with
 * neg_nsec3.h; the proofs it answers by are the validator's, val_nsec.h):
 * the NSEC records of validated, secure answers, per signed zone in
 * canonical order, so that a later question in the zone can be answered
 * without asking:
 *
 *   NXDOMAIN  an NSEC covers the name and one covers (or the wildcard
 *             NSEC is) the wildcard at its closest encloser;
 *   NODATA    the NSEC at the name lacks the type (or the name is an
 *             empty non-terminal, or the wildcard's NSEC lacks it);
 *   wildcard  a wildcard RRset of the type, kept from a secure wildcard
 *             answer, expanded for a name an NSEC proves absent with
 *             the wildcard's closest encloser.
 * Each proof is checked by the validator's own NSEC proofs
 * (val_nsec.h), so only what would validate as secure is answered.
 * Only NSEC: NSEC3 (hashed names) gives no order to search in, as in
 * Unbound 1.17, except to prove a delegation has no DS (neg_nsec3.h,
 * held beside: neg_cache_add, the flushes and neg_cache_get_mem cover it).
 * NSEC3s never enter this index: that store keeps its own copies (also a
 * referral's, unchecked), with a neg-cache-size bound of its own.
 *
 * Shared by every worker, under one mutex. compat: unbound-1.17: as
 * Unbound's, it is an index: per zone the owner names of the validated
 * NSECs, while the NSEC RRsets (with their RRSIGs) and the wildcard RRsets
 * are kept in the shared RRset cache (neg_rrset.h) and taken from
 * there for each answer; one gone from there, expired or no longer
 * validated proves nothing and leaves the index. neg-cache-size bounds
 * what the index takes (about 110 bytes an NSEC), with LRU eviction over
 * all zones; rrset-cache-size bounds the RRsets. A negative answer also
 * needs the zone's SOA (kept here, from a secure negative answer of the
 * zone) for its authority section and its TTL. */
#ifndef SERVICES_CACHE_NEG_CACHE_H
#define SERVICES_CACHE_NEG_CACHE_H
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <ldns/ldns.h>

struct config_file;
struct rrset_cache;
struct neg_cache;
struct neg_nsec3;

/* Create with a byte bound (neg-cache-size) over the RRset cache that
 * holds the records (NULL: no NSEC is kept; the NSEC3 store works
 * still). NULL on no memory. */
struct neg_cache* neg_cache_create(size_t maxmem,
	struct rrset_cache* rrsets);
struct neg_cache* neg_cache_create_cfg(const struct config_file* cfg,
	struct rrset_cache* rrsets);
void neg_cache_delete(struct neg_cache* c);

/* Keep what a secure message proves: the NSEC RRs of authority (each
 * with its RRSIGs, in the zone of its signer: the RRset to the RRset
 * cache as validated, its owner to the index), the SOA of that zone,
 * and the wildcard RRsets of answer (an RRSIG whose labels field is
 * below the owner's label count; to the RRset cache under the wildcard
 * name), and the NSEC3s of authority to the NSEC3 store (for DS
 * absence). Call only for messages the validator found secure. now: the
 * time the TTLs count from. */
void neg_cache_add(struct neg_cache* c, const ldns_rr_list* answer,
	const ldns_rr_list* authority, time_t now);

/* What neg_cache_synth made. */
enum neg_answer {
	NEG_NONE = 0,    /* nothing proven: ask upstream */
	NEG_NXDOMAIN,
	NEG_NODATA,
	NEG_WILDCARD     /* NOERROR, expanded from a wildcard */
};

/* Answer (qname, qtype) from the cache: on success *answer and
 * *authority are new lists (the caller frees them deep) with every TTL
 * at most the least remaining TTL of the records used (and of the SOA,
 * and at most max_neg_ttl for a negative answer). qname lowercased
 * wire. dnssec 0: without the RRSIGs and NSECs (nobody asked for them:
 * a third of the work of an answer). */
enum neg_answer neg_cache_synth(struct neg_cache* c,
	const uint8_t* qname, uint16_t qtype, time_t now, uint32_t max_neg_ttl,
	int dnssec, ldns_rr_list** answer, ldns_rr_list** authority);

/* The NSEC3 records kept for DS absence (neg_nsec3.h); NULL for c
 * NULL. */
struct neg_nsec3* neg_nsec3_of(struct neg_cache* c);

/* Remote control: drop the whole index and the kept NSEC3s; drop the
 * entries (and kept NSEC3s) whose owner is at or below zone (returns how
 * many went). The RRset cache is flushed on its own. */
void neg_cache_flush_all(struct neg_cache* c);
/* A new neg-cache-size (a reload): the NSEC and NSEC3 records over it,
 * least recently used first, go now; 0 stops the cache. Any thread. */
void neg_cache_set_max_mem(struct neg_cache* c, size_t maxmem);
size_t neg_cache_flush_zone(struct neg_cache* c, const uint8_t* zone);
/* NSEC owners in the index, and the bytes it uses. */
size_t neg_cache_count(struct neg_cache* c);
size_t neg_cache_get_mem(struct neg_cache* c);

#endif
