/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_kcache.h - the key cache: what the validator learned
 * about the DNSKEYs of a zone, shared by all worker threads.
 *
 * Key: the zone name lowercased and the class. An entry is immutable
 * once stored and says one of:
 *   GOOD  the zone's DNSKEY RRset, validated (kept as wire RDATA; a
 *         struct packed_rrset view gives it to the signature checker
 *         without copying);
 *   NULL  the zone is proven insecure (no DS at a secure parent, or
 *         only unsupported algorithms): everything below is insecure;
 *   BAD   the keys could not be validated: the reason text and EDE
 *         code, kept for val-bogus-ttl seconds.
 * It lives on util/storage/lruhash: slabbed (key-cache-slabs), bounded
 * to key-cache-size bytes with LRU eviction, and reference counted: a
 * lookup returns a referenced entry that is read without any lock and
 * given back with val_kcache_release(). */
#ifndef VALIDATOR_VAL_KCACHE_H
#define VALIDATOR_VAL_KCACHE_H
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "util/storage/lruhash.h"
#include "util/sec_status.h"

struct config_file;
struct packed_rrset;

enum val_key_status {
	VAL_KEY_GOOD = 0,   /* a validated DNSKEY RRset */
	VAL_KEY_NULL,       /* proven insecure */
	VAL_KEY_BAD         /* failed: bogus below this zone */
};

struct val_kentry {
	struct lruhash_entry lh;
	time_t expire;          /* fresh while now < expire */
	enum val_key_status status;
	uint16_t kclass;
	uint32_t ttl;           /* the TTL it was stored with */
	const uint8_t* name;    /* lowercased wire name (the key's start) */
	size_t namelen;
	/* GOOD: the DNSKEY RRs (RDATA without the length field) */
	size_t count;
	const uint8_t* const* rdata;
	const uint16_t* rdlen;
	/* BAD: why (NULL text when none was given) */
	const char* reason;
	enum val_ede ede;
	/* key, arrays, rdata and reason text follow */
};

struct val_kcache {
	struct lruhash* table;
	uint32_t seed;
	uint32_t bogus_ttl;     /* val-bogus-ttl: life of BAD entries */
};

/* Create with a byte bound, a slab count (a power of two) and the
 * seconds a BAD entry lasts. NULL on bad slabs or no memory. */
struct val_kcache* val_kcache_create(size_t maxmem, size_t slabs,
	uint32_t bogus_ttl);
/* From key-cache-size, key-cache-slabs and val-bogus-ttl. */
struct val_kcache* val_kcache_create_cfg(const struct config_file* cfg);
void val_kcache_delete(struct val_kcache* kc);
/* A new key-cache-size (a reload): the keys over it, least recently
 * used first, go now. Any thread. */
void val_kcache_set_max_mem(struct val_kcache* kc, size_t maxmem);

/* Store (replacing any entry for the zone). dnskey: its owner is the
 * zone, its class the entry's; kept until now + dnskey->ttl. Returns
 * 1 stored, 0 not (malformed, larger than a slab's share, no memory).
 * The data is copied. */
int val_kcache_store_good(struct val_kcache* kc,
	const struct packed_rrset* dnskey, time_t now);
/* The zone (name, dclass) is insecure, for ttl seconds. */
int val_kcache_store_null(struct val_kcache* kc, const uint8_t* name,
	uint16_t dclass, uint32_t ttl, time_t now);
/* The zone's keys are bad, for bogus_ttl seconds; why may be NULL
 * (text NULL: no reason; the text is copied). */
int val_kcache_store_bad(struct val_kcache* kc, const uint8_t* name,
	uint16_t dclass, const struct val_reason* why, time_t now);

/* The fresh entry for exactly this zone (any case), referenced; NULL
 * if none or expired. */
const struct val_kentry* val_kcache_lookup(struct val_kcache* kc,
	const uint8_t* name, uint16_t dclass, time_t now);
/* The fresh entry of the closest zone at or above name (the name, then
 * its parents up to the root), referenced; NULL if none. */
const struct val_kentry* val_kcache_lookup_closest(struct val_kcache* kc,
	const uint8_t* name, uint16_t dclass, time_t now);
void val_kcache_release(struct val_kcache* kc, const struct val_kentry* e);

/* A GOOD entry's DNSKEY RRset as a struct packed_rrset (util/msgencode.h)
 * pointing into e (valid while the reference is held); ttl is the time
 * left at now. count is 0 for other entries. */
void val_kentry_view(const struct val_kentry* e, time_t now,
	struct packed_rrset* out);

/* The flushes and statistics below take kc NULL (no key cache: the
 * daemon without the validator) as empty. */
/* compat: unbound-1.17: unbound-control flush_zone: remove the entries at or
 * below zone; returns how many of them were still fresh at now (Unbound's
 * count). */
size_t val_kcache_flush_zone(struct val_kcache* kc, const uint8_t* zone,
	time_t now);
/* compat: unbound-1.17: flush_bogus and flush_negative (both, as in Unbound,
 * drop the BAD entries): returns how many were removed. */
size_t val_kcache_flush_bad(struct val_kcache* kc);
/* flush all (reload). */
void val_kcache_flush_all(struct val_kcache* kc);

/* Statistics: key.cache.count and mem.mod.validator's share. */
size_t val_kcache_count(struct val_kcache* kc);
size_t val_kcache_get_mem(struct val_kcache* kc);

#endif
