/* SPDX-License-Identifier: BSD-3-Clause */
/* util/dm_cache.h - a small direct-mapped cache of byte strings, one per
 * thread: the hash the caller gives picks the one slot a key can live in,
 * a new key replaces what was there. For per-thread memories where a miss
 * only costs redoing some work (verified signatures, names found to be no
 * zone cut): bounded, no eviction policy, no lock.
 *
 * A key is given as pieces (struct dm_part) and kept as their
 * concatenation; a lookup compares every byte (the hash only picks the
 * slot), so a collision costs a miss, never a wrong hit. Pieces whose
 * boundaries could shift (ab|c against a|bc) need their lengths in the
 * key too; self-delimiting pieces (wire-format names) do not. With
 * nocase, ASCII letters compare without case (domain names); the caller's
 * hash must then ignore case too.
 *
 * Each entry carries a stamp for the caller (an expiry time, say). The
 * slots are allocated on the first put. */
#ifndef UTIL_DM_CACHE_H
#define UTIL_DM_CACHE_H
#include <stddef.h>
#include <stdint.h>

struct dm_part {
	const uint8_t* p;
	size_t len;
};

struct dm_entry {
	uint64_t hash;
	uint8_t* blob;     /* the key's bytes; NULL: empty slot */
	size_t len, cap;
	int64_t stamp;
};

struct dm_cache {
	struct dm_entry* slot;   /* NULL until the first put */
	size_t nslots;
	size_t max_bytes;        /* longer keys are not kept */
	int nocase;
};

/* An empty cache of nslots slots (allocates nothing yet). */
void dm_cache_init(struct dm_cache* c, size_t nslots, size_t max_bytes,
	int nocase);

/* The entry holding exactly this key, or NULL. */
struct dm_entry* dm_cache_find(const struct dm_cache* c, uint64_t hash,
	const struct dm_part* part, size_t nparts);

/* Keep the key (replacing its slot's entry) with stamp; 0 when it was
 * not kept (too long, out of memory), which only costs a later miss. */
int dm_cache_put(struct dm_cache* c, uint64_t hash,
	const struct dm_part* part, size_t nparts, int64_t stamp);

/* Free every entry and the slots; the cache stays usable (empty). */
void dm_cache_clear(struct dm_cache* c);

#endif
