/* SPDX-License-Identifier: BSD-3-Clause */
/* services/cache/rrset.h - the RRset cache, shared by all workers: what
 * the iterator learned (delegations, glue, answers), each RRset with an
 * absolute expiry and a trust level.
 *
 * Key: the owner name lowercased, type, class and a flags word (e.g.
 * RRSET_FLAG_NSEC_APEX, to keep an NSEC at a zone apex apart from the
 * one of the parent side). Entries are immutable: a store makes a new
 * entry. Lookups return a referenced entry, read without any lock and
 * given back with rrset_cache_release(); rrset_entry_view() gives a
 * struct packed_rrset (util/msgencode.h) pointing into it, so the
 * encoder can write it straight into a reply. */
#ifndef SERVICES_CACHE_RRSET_H
#define SERVICES_CACHE_RRSET_H
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "util/storage/lruhash.h"
#include "util/msgencode.h"

struct config_file;

/* compat: unbound-1.17: How much an RRset is believed, lowest first (RFC 2181
 * 5.4.1, as Unbound ranks them). A store never overwrites a more trusted entry
 * that is still fresh. */
enum rrset_trust {
	RRSET_TRUST_NONE = 0,
	RRSET_TRUST_GLUE,          /* additional section, glue */
	RRSET_TRUST_AUTHORITY,     /* authority section (referrals) */
	RRSET_TRUST_ANSWER,        /* answer section, not authoritative */
	RRSET_TRUST_AUTH_ANSWER,   /* answer section with AA set */
	RRSET_TRUST_VALIDATED      /* DNSSEC secure */
};

/* Key flags. */
#define RRSET_FLAG_NSEC_APEX 0x1   /* NSEC/NSEC3 from the zone apex side */

/* Outcome of a store. */
enum rrset_store_result {
	RRSET_NOT_STORED = 0,  /* malformed, too large, no memory */
	RRSET_STORED,          /* new entry in the cache */
	RRSET_KEPT_OLD         /* the cached one stays (more trusted, or the
	                        * same data without refresh) */
};

struct rrset_entry {
	struct lruhash_entry lh;
	time_t expire;        /* fresh while now < expire */
	uint32_t flags;       /* key flags */
	uint16_t type;
	uint16_t rclass;
	uint8_t trust;        /* enum rrset_trust */
	size_t count;         /* RRs */
	size_t rrsig_count;   /* RRSIGs, after the RRs in rdata/rdlen */
	const uint8_t* owner; /* lowercased wire name (the key's start) */
	size_t owner_len;
	const uint8_t* const* rdata;
	const uint16_t* rdlen;
	/* the arrays, the key and the rdata bytes follow */
};

struct rrset_cache {
	struct lruhash* table;
	uint32_t seed;
	uint32_t min_ttl;     /* cache-min-ttl */
	uint32_t max_ttl;     /* cache-max-ttl */
};

/* Create with a byte bound, a slab count (power of two) and the TTL
 * clamps; NULL on bad slabs or no memory. */
struct rrset_cache* rrset_cache_create(size_t maxmem, size_t slabs,
	uint32_t min_ttl, uint32_t max_ttl);
/* From rrset-cache-size, rrset-cache-slabs, cache-min-ttl, cache-max-ttl. */
struct rrset_cache* rrset_cache_create_cfg(const struct config_file* cfg);
/* The TTL clamps from cfg (cache-min-ttl, cache-max-ttl,
 * serve-original-ttl): at create, and at a reload for the RRsets stored
 * after it. Any thread, while others store. */
void rrset_cache_set_ttls(struct rrset_cache* c, const struct config_file* cfg);
void rrset_cache_delete(struct rrset_cache* c);

/* Store rrset (and its RRSIGs, sigs may be NULL) for its owner, type,
 * class and key flags. The TTL is the least of rrset->ttl and
 * sigs->ttl, clamped to [cache-min-ttl, cache-max-ttl]; the data is
 * copied. Against a fresh cached entry with the same key:
 *  - a less trusted store is refused (RRSET_KEPT_OLD);
 *  - can_refresh 1 (prefetch, or a reply the caller asked the zone's
 *    own servers for): replaces it, new expiry;
 *  - can_refresh 0: equal data at equal trust keeps the old entry, so
 *    repeating a delegation does not extend its life (ghost domains);
 *    changed data or higher trust replaces it, but never with an expiry
 *    later than the old one's.
 * An expired entry is always replaced. */
enum rrset_store_result rrset_cache_store(struct rrset_cache* c,
	const struct packed_rrset* rrset, const struct packed_rrset* sigs,
	uint32_t flags, enum rrset_trust trust, int can_refresh, time_t now);

/* Start loading the cache line of name's RRsets of class rclass (the
 * buckets of its A, AAAA, NS and CNAME sets share one line), for the
 * lookups that resolving a name new to the cache makes a little later. */
void rrset_cache_prefetch(struct rrset_cache* c, const uint8_t* name,
	size_t len, uint16_t rclass);

/* A fresh entry for name (any case), type, class and key flags, with a
 * reference the caller gives back with rrset_cache_release; NULL if
 * none or expired. */
struct rrset_entry* rrset_cache_lookup(struct rrset_cache* c,
	const uint8_t* name, uint16_t type, uint16_t rclass, uint32_t flags,
	time_t now);
void rrset_cache_release(struct rrset_cache* c, struct rrset_entry* e);

/* The nearest NS RRset at or above qname (the closest delegation the
 * cache knows), referenced as above; NULL when none, not even the root. */
struct rrset_entry* rrset_cache_closest_ns(struct rrset_cache* c,
	const uint8_t* qname, uint16_t qclass, time_t now);
/* The same, for names of more than min_labels labels (dname_count_labels)
 * only: NULL when the nearest is at or above that depth, which is then
 * not looked up at all. */
struct rrset_entry* rrset_cache_closest_ns_below(struct rrset_cache* c,
	const uint8_t* qname, uint16_t qclass, int min_labels, time_t now);

/* Views into e (valid while the reference is held), with ttl the time
 * left at now (0 once expired). sigs may be NULL; its count is 0 when
 * the entry has no RRSIGs. */
void rrset_entry_view(const struct rrset_entry* e, time_t now,
	struct packed_rrset* rr, struct packed_rrset* sigs);

/* Remote control. */
int rrset_cache_remove(struct rrset_cache* c, const uint8_t* name,
	uint16_t type, uint16_t rclass, uint32_t flags);
/* Remove every RRset owned at or below zone; returns how many. */
size_t rrset_cache_flush_zone(struct rrset_cache* c, const uint8_t* zone);
void rrset_cache_flush_all(struct rrset_cache* c);
/* A new rrset-cache-size (a reload), as msg_cache_set_max_mem. */
void rrset_cache_set_max_mem(struct rrset_cache* c, size_t maxmem);
/* Call fn for every entry, under a slab lock (see lruhash_walk_func);
 * return 1 from fn to remove the entry. */
size_t rrset_cache_walk(struct rrset_cache* c,
	int (*fn)(struct rrset_entry* e, void* arg), void* arg);

#endif
