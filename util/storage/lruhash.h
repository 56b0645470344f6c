/* SPDX-License-Identifier: BSD-3-Clause */
/* util/storage/lruhash.h - a slabbed hash table with LRU eviction and
 * byte accounting, shared by all worker threads (message and RRset
 * caches).
 *
 * The table is split into N slabs (a power of two), chosen by the top
 * bits of the hash; each slab has its own lock (a futex mutex, held
 * for a few pointer operations only), buckets, LRU list and byte count,
 * and evicts from its LRU tail on insert until it is under its share
 * (maxmem / N) of the bound. Keys are byte strings compared
 * with memcmp: callers lowercase names before building a key.
 *
 * Entries are reference counted. The table holds one reference while an
 * entry is linked in; a lookup takes another under the slab lock and
 * returns, so the caller reads the (immutable) entry without any lock
 * and gives it back with lruhash_release(). An entry that is replaced,
 * removed or evicted meanwhile is unlinked at once (its bytes stop
 * counting) and freed by whoever drops the last reference. Entries are
 * never changed after insert: an update inserts a new entry.
 *
 * The one exception is a table of small mutable records (the
 * infrastructure cache): its entries are read and changed only between
 * lruhash_lock_entry and lruhash_unlock_entry, under the slab lock, and
 * never looked up by reference. */
#ifndef UTIL_STORAGE_LRUHASH_H
#define UTIL_STORAGE_LRUHASH_H
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* Embedded at the start (or anywhere) of the owner's allocation. The
 * owner fills hash, key, keylen and size with lruhash_entry_init(); the
 * rest belongs to the table. */
struct lruhash_entry {
	struct lruhash_entry* bucket_next;  /* hash chain (under lock) */
	struct lruhash_entry* lru_prev;     /* towards most recent */
	struct lruhash_entry* lru_next;     /* towards least recent */
	const uint8_t* key;   /* immutable, usually inside the entry */
	size_t size;          /* bytes accounted: entry, key, data, overhead */
	uint64_t lru_tick;    /* slab tick when last moved to the front */
	atomic_uint refs;     /* table's reference + readers' */
	uint32_t hash;
	uint16_t keylen;
};

/* Frees an entry when its last reference goes (not called under lock). */
typedef void (*lruhash_del_func)(struct lruhash_entry* e, void* arg);

/* Decides, under the slab lock, whether a new entry replaces an old one
 * with the same key: return 1 to replace, 0 to keep the old (the new
 * one is then released). It may change fields of the new entry (it is
 * not published yet), never of the old one. */
typedef int (*lruhash_replace_func)(const struct lruhash_entry* old,
	struct lruhash_entry* new_e, void* arg);

/* Walk callback, called under the slab lock: keep it short and do not
 * call into the table. Return 1 to remove the entry, 0 to keep it. To
 * do slow work with an entry (dump to text), take a reference with
 * lruhash_ref() and release it after the walk. */
typedef int (*lruhash_walk_func)(struct lruhash_entry* e, void* arg);

struct lruhash_slab;

struct lruhash {
	struct lruhash_slab* slabs;
	size_t num_slabs;
	unsigned shift;       /* slab = hash >> shift (64-bit shift) */
	lruhash_del_func del;
	void* del_arg;
};

/* Create a table bounded to maxmem bytes in num_slabs slabs (a power of
 * two, at least 1). Returns NULL on a bad slab count or no memory. */
struct lruhash* lruhash_create(size_t num_slabs, size_t maxmem,
	lruhash_del_func del, void* del_arg);
/* Free the table and release its references to all entries. No other
 * thread may use it any more. */
void lruhash_delete(struct lruhash* t);

/* Set the fields the owner provides; refs starts at 1 (the creator's,
 * which lruhash_insert passes to the table). */
void lruhash_entry_init(struct lruhash_entry* e, uint32_t hash,
	const uint8_t* key, uint16_t keylen, size_t size);

/* Insert e, taking over the caller's reference. An entry with the same
 * key is replaced, unless replace says no (replace NULL: always).
 * Evicts from the LRU tail until the slab is under its bound. An entry
 * larger than the slab's share is not stored. Returns 1 if e is now in
 * the table, 0 if not (e has then been released: do not touch it). */
int lruhash_insert(struct lruhash* t, struct lruhash_entry* e,
	lruhash_replace_func replace, void* arg);

/* Would lruhash_insert of an entry of this key and size keep the one
 * in the table? Calls keeps(old, arg) under the slab lock when there is
 * an entry with the key and size is within the slab's share (else 0);
 * its answer is the result. No reference taken, no LRU move: what an
 * insert that keeps the old entry leaves. keeps must be short. */
int lruhash_insert_keeps(struct lruhash* t, uint32_t hash,
	const uint8_t* key, uint16_t keylen, size_t size,
	int (*keeps)(const struct lruhash_entry* old, void* arg), void* arg);

/* Start loading the bucket that a lookup of hash reads (a cache line
 * likely not in the CPU's caches: the table is large and the key new),
 * so that the lookup, some work later, finds it there. No lock, no
 * effect on the table. */
void lruhash_prefetch(struct lruhash* t, uint32_t hash);

/* Find the entry with this key and take a reference to it; NULL if
 * none. Moves the entry to the LRU front unless it is already in the
 * front half of its slab's list (so a hot entry costs no writes). */
struct lruhash_entry* lruhash_lookup(struct lruhash* t, uint32_t hash,
	const uint8_t* key, uint16_t keylen);

/* Take another reference (only while already holding one, or inside a
 * walk callback). */
static inline void lruhash_ref(struct lruhash_entry* e)
{
	atomic_fetch_add_explicit(&e->refs, 1, memory_order_relaxed);
}

/* Drop a reference; the last one frees the entry. */
static inline void lruhash_release(struct lruhash* t, struct lruhash_entry* e)
{
	if(atomic_fetch_sub_explicit(&e->refs, 1, memory_order_acq_rel) == 1)
		t->del(e, t->del_arg);
}

/* Bound each slab to per_slab entries besides its bytes (the
 * infrastructure cache is sized in hosts: infra-cache-numhosts). At
 * create, or later (a reload) while other threads use the table: the
 * least recently used entries over the new bound go now. */
void lruhash_set_max_entries(struct lruhash* t, size_t per_slab);

/* Builds the entry for a key lruhash_lock_entry did not find: allocate
 * it and lruhash_entry_init it with this hash and key (copied into the
 * entry); NULL when out of memory. Runs under the slab lock. */
typedef struct lruhash_entry* (*lruhash_make_func)(uint32_t hash,
	const uint8_t* key, uint16_t keylen, void* arg);

/* Update in place (mutable-record tables only, see above): the entry
 * with this key, moved to the LRU front, with its slab locked; when
 * there is none, make (if not NULL) builds one, which is inserted first
 * (evicting as lruhash_insert does). NULL, and nothing locked, when
 * there is no entry. Read and change the entry's data, not its key or
 * size, then lruhash_unlock_entry: a few field accesses, no calls. */
struct lruhash_entry* lruhash_lock_entry(struct lruhash* t, uint32_t hash,
	const uint8_t* key, uint16_t keylen, lruhash_make_func make,
	void* arg);
void lruhash_unlock_entry(struct lruhash* t, struct lruhash_entry* e);

/* Remove the entry with this key (if any). Returns 1 if one was. */
int lruhash_remove(struct lruhash* t, uint32_t hash, const uint8_t* key,
	uint16_t keylen);

/* Call fn for every entry, slab by slab; removes those it returns 1
 * for. Returns the number removed. */
size_t lruhash_walk(struct lruhash* t, lruhash_walk_func fn, void* arg);

/* Remove all entries. */
void lruhash_clear(struct lruhash* t);
/* For tables whose keys begin with a wire-format name (the message and
 * RRset caches): remove every entry at or below zone; returns how
 * many. 0 for a malformed zone name. */
size_t lruhash_remove_under(struct lruhash* t, const uint8_t* zone);

/* Bytes accounted now (entries and bucket arrays), and entry count. */
size_t lruhash_get_mem(struct lruhash* t);
size_t lruhash_count(struct lruhash* t);
/* The bound each slab keeps under. */
size_t lruhash_slab_max(const struct lruhash* t);
/* A new bound of maxmem bytes (a reload's new cache size), split over
 * the slabs as lruhash_create does; the slab count stays. Entries stay
 * unless over the new bound: then the least recently used are evicted
 * at once. Safe while other threads use the table. */
void lruhash_set_max_mem(struct lruhash* t, size_t maxmem);

#endif
