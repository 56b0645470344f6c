/* SPDX-License-Identifier: BSD-3-Clause */
/* util/storage/lruhash.c - slabbed hash table with LRU lists and byte
 * accounting; see lruhash.h for the reference counting rules. */
#include "config.h"
#include "util/storage/lruhash.h"
#include "util/dname.h"
#include <linux/futex.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The slab lock: a futex mutex (Drepper, "Futexes Are Tricky", mutex
 * 2) that spins a little before it sleeps, like glibc's adaptive
 * mutex, whose call and type dispatch cost about 55 instructions per
 * lock and unlock on the cache-hit path; this one is an inline
 * compare-and-swap and an exchange. v: 0 free, 1 locked, 2 locked and
 * maybe waited for. */
struct slab_lock {
	atomic_int v;
};

#define SLAB_SPINS 100

static void slab_lock_wait(struct slab_lock* l)
{
	int i, c;
	for(i = 0; i < SLAB_SPINS; i++) {
		c = 0;
		if(atomic_load_explicit(&l->v, memory_order_relaxed) == 0 &&
			atomic_compare_exchange_weak_explicit(&l->v, &c, 1,
			memory_order_acquire, memory_order_relaxed))
			return;
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
	}
	/* sleep: mark it waited for; whoever unlocks a 2 wakes one */
	while(atomic_exchange_explicit(&l->v, 2, memory_order_acquire) != 0)
		(void)syscall(SYS_futex, &l->v, FUTEX_WAIT_PRIVATE, 2, NULL,
			NULL, 0);
}

static inline void slab_lock(struct slab_lock* l)
{
	int c = 0;
	if(!atomic_compare_exchange_strong_explicit(&l->v, &c, 1,
		memory_order_acquire, memory_order_relaxed))
		slab_lock_wait(l);
}

static inline void slab_unlock(struct slab_lock* l)
{
	if(atomic_exchange_explicit(&l->v, 0, memory_order_release) == 2)
		(void)syscall(SYS_futex, &l->v, FUTEX_WAKE_PRIVATE, 1, NULL,
			NULL, 0);
}

/* A bucket knows its first entry's hash and its length, so looking up
 * a key that is not there (every cache miss asks for several) reads the
 * bucket and not the chain's entries, each a cold cache line: before,
 * lruhash_lookup waiting on those lines was 8.7% of a miss's CPU (perf,
 * contrib/bench --misses). */
struct lruhash_bucket {
	struct lruhash_entry* first;
	uint32_t first_hash;  /* first's hash (0 when empty) */
	uint32_t len;         /* entries in the chain */
};

/* One slab: a cache line of its own so slabs do not false-share. The
 * lock is held for a bucket walk and a few pointer writes (frees happen
 * after unlock). It sleeps after a short spin, not a spinlock: with more
 * threads than CPUs a spinner would burn its time slice while the
 * preempted holder waits for the CPU (measured: 3x the user time per
 * query with 2 threads on one CPU, contrib/bench). */
struct lruhash_slab {
	_Alignas(64) struct slab_lock lock;
	struct lruhash_bucket* buckets;
	size_t mask;          /* number of buckets - 1 (a power of two) */
	size_t count;         /* entries linked in */
	size_t used;          /* bytes: entries' sizes + the bucket array */
	size_t max;           /* this slab's share of the bound */
	size_t max_count;     /* entries at most (SIZE_MAX: no bound) */
	/* evicted by lruhash_lock_entry, released at unlock */
	struct lruhash_entry* dead;
	uint64_t tick;        /* bumped each time an entry goes to the front */
	struct lruhash_entry* lru_first;  /* most recently used */
	struct lruhash_entry* lru_last;   /* next to evict */
};

#define INIT_BUCKETS 256

static size_t bucket_bytes(size_t nbuckets)
{
	return nbuckets * sizeof(struct lruhash_bucket);
}

/* nbuckets empty buckets on a cache-line boundary, so that 4 buckets
 * whose numbers differ in the 2 lowest bits (the cache keys' flag and
 * type slots) share a line; NULL when out of memory. */
static struct lruhash_bucket* buckets_new(size_t nbuckets)
{
	size_t len = bucket_bytes(nbuckets);
	void* b;
	if(posix_memalign(&b, 64, len) != 0)
		return NULL;
	memset(b, 0, len);
	return b;
}

static struct lruhash_slab* slab_of(struct lruhash* t, uint32_t hash)
{
	/* top bits pick the slab, low bits the bucket: independent */
	return &t->slabs[(uint64_t)hash >> t->shift];
}

static int key_equal(const struct lruhash_entry* e, uint32_t hash,
	const uint8_t* key, uint16_t keylen)
{
	return e->hash == hash && e->keylen == keylen &&
		memcmp(e->key, key, keylen) == 0;
}

static inline struct lruhash_bucket* bucket_of(struct lruhash_slab* s,
	uint32_t hash)
{
	return &s->buckets[hash & s->mask];
}

/* The link that points at the entry with this key, or at the NULL that
 * ends the bucket's chain. */
static inline __attribute__((always_inline)) struct lruhash_entry**
find_link(struct lruhash_bucket* b,
	uint32_t hash, const uint8_t* key, uint16_t keylen)
{
	struct lruhash_entry** pp = &b->first;
	while(*pp && !key_equal(*pp, hash, key, keylen))
		pp = &(*pp)->bucket_next;
	return pp;
}

/* The entry with this key or NULL; a bucket of one entry with another
 * hash is answered without reading that entry. */
static inline __attribute__((always_inline)) struct lruhash_entry*
find_entry(struct lruhash_slab* s,
	uint32_t hash, const uint8_t* key, uint16_t keylen)
{
	struct lruhash_bucket* b = bucket_of(s, hash);
	if(b->len == 0 || (b->len == 1 && b->first_hash != hash))
		return NULL;
	return *find_link(b, hash, key, keylen);
}

/* e to the head of bucket b's chain */
static void bucket_push(struct lruhash_bucket* b, struct lruhash_entry* e)
{
	e->bucket_next = b->first;
	b->first = e;
	b->first_hash = e->hash;
	b->len++;
}

static void lru_unlink(struct lruhash_slab* s, struct lruhash_entry* e)
{
	if(e->lru_prev)
		e->lru_prev->lru_next = e->lru_next;
	else	s->lru_first = e->lru_next;
	if(e->lru_next)
		e->lru_next->lru_prev = e->lru_prev;
	else	s->lru_last = e->lru_prev;
}

static void lru_front(struct lruhash_slab* s, struct lruhash_entry* e)
{
	e->lru_prev = NULL;
	e->lru_next = s->lru_first;
	if(s->lru_first)
		s->lru_first->lru_prev = e;
	else	s->lru_last = e;
	s->lru_first = e;
	e->lru_tick = ++s->tick;
}

/* Unlink e from its bucket b (at link pp) and LRU, and stop counting
 * it. */
static void unlink_entry(struct lruhash_slab* s, struct lruhash_bucket* b,
	struct lruhash_entry** pp, struct lruhash_entry* e)
{
	*pp = e->bucket_next;
	if(pp == &b->first)
		b->first_hash = b->first ? b->first->hash : 0;
	b->len--;
	lru_unlink(s, e);
	s->count--;
	s->used -= e->size;
}

/* Move every entry of s into the nn buckets nb, which replace its own. */
static void rehash_into(struct lruhash_slab* s, struct lruhash_bucket* nb,
	size_t nn)
{
	size_t n = s->mask + 1, i;
	for(i = 0; i < n; i++) {
		struct lruhash_entry* e = s->buckets[i].first, *next;
		for(; e; e = next) {
			next = e->bucket_next;
			bucket_push(&nb[e->hash & (nn - 1)], e);
		}
	}
	free(s->buckets);
	/* atomic stores: lruhash_prefetch reads these without the lock */
	__atomic_store_n(&s->buckets, nb, __ATOMIC_RELAXED);
	__atomic_store_n(&s->mask, nn - 1, __ATOMIC_RELAXED);
}

/* Double the buckets when there are more entries than half of them: a
 * key that is not there (a cache miss) then mostly finds an empty
 * bucket or one entry of another hash, and reads no entry (perf,
 * contrib/bench --misses: lruhash's share of a miss's CPU 10.9% with
 * 8-byte buckets filled up to one entry each, 7.3% with these filled
 * to 0.5). Bucket arrays stay within a quarter of the slab's bound so
 * entries keep most of it. On no memory the chains just get longer. */
static void maybe_grow(struct lruhash_slab* s)
{
	size_t n = s->mask + 1, nn = n * 2;
	struct lruhash_bucket* nb;
	if(s->count <= n / 2 || bucket_bytes(nn) > s->max / 4)
		return;
	nb = buckets_new(nn);
	if(!nb)
		return;
	rehash_into(s, nb, nn);
	s->used += bucket_bytes(nn) - bucket_bytes(n);
}

/* Release a chain of unlinked entries (linked through bucket_next);
 * done after unlocking so frees do not lengthen the critical section. */
static void release_chain(struct lruhash* t, struct lruhash_entry* e)
{
	struct lruhash_entry* next;
	for(; e; e = next) {
		next = e->bucket_next;
		lruhash_release(t, e);
	}
}

/* Evict from the LRU tail (never keep, which may be NULL) until the
 * slab is within its bounds; the evicted are chained on dead (through
 * bucket_next), to release after unlocking. */
static struct lruhash_entry* evict_over(struct lruhash_slab* s,
	const struct lruhash_entry* keep, struct lruhash_entry* dead)
{
	struct lruhash_entry** pp;
	while((s->used > s->max || s->count > s->max_count) && s->lru_last &&
		s->lru_last != keep) {
		struct lruhash_entry* v = s->lru_last;
		struct lruhash_bucket* b = bucket_of(s, v->hash);
		pp = &b->first;
		while(*pp != v)
			pp = &(*pp)->bucket_next;
		unlink_entry(s, b, pp, v);
		v->bucket_next = dead;
		dead = v;
	}
	return dead;
}

/* Link e in at the LRU front, then evict from the tail (never e) until
 * the slab is within its bounds; returns dead with the evicted ones
 * chained on (through bucket_next), to release after unlocking. */
static struct lruhash_entry* link_and_evict(struct lruhash_slab* s,
	struct lruhash_entry* e, struct lruhash_entry* dead)
{
	bucket_push(bucket_of(s, e->hash), e);
	lru_front(s, e);
	s->count++;
	s->used += e->size;
	maybe_grow(s);
	return evict_over(s, e, dead);
}

/* A used entry to the LRU front, unless it went there recently: at most
 * (tick - lru_tick) entries went in front of it since, and within the
 * front half the list (and its cache lines) is left alone. An entry
 * used once per count/2 moves is still never the one evicted. */
static inline void touch(struct lruhash_slab* s, struct lruhash_entry* e)
{
	if(s->tick - e->lru_tick > (s->count >> 1)) {
		lru_unlink(s, e);
		lru_front(s, e);
	}
}

struct lruhash* lruhash_create(size_t num_slabs, size_t maxmem,
	lruhash_del_func del, void* del_arg)
{
	struct lruhash* t;
	size_t i, nb;
	unsigned bits = 0;
	if(num_slabs == 0 || (num_slabs & (num_slabs - 1)) != 0 || !del ||
		num_slabs > 65536)
		return NULL;
	while(((size_t)1 << bits) < num_slabs)
		bits++;
	t = calloc(1, sizeof(*t));
	if(!t)
		return NULL;
	t->num_slabs = num_slabs;
	t->shift = 32 - bits;
	t->del = del;
	t->del_arg = del_arg;
	t->slabs = aligned_alloc(_Alignof(struct lruhash_slab),
		num_slabs * sizeof(struct lruhash_slab));
	if(!t->slabs) {
		free(t);
		return NULL;
	}
	memset(t->slabs, 0, num_slabs * sizeof(struct lruhash_slab));
	for(i = 0; i < num_slabs; i++) {
		struct lruhash_slab* s = &t->slabs[i];
		s->max = maxmem / num_slabs;
		s->max_count = SIZE_MAX;
		for(nb = INIT_BUCKETS; nb > 1 && bucket_bytes(nb) > s->max / 4;)
			nb /= 2;
		s->buckets = buckets_new(nb);
		atomic_init(&s->lock.v, 0);
		if(!s->buckets) {
			t->num_slabs = i;
			lruhash_delete(t);
			return NULL;
		}
		s->mask = nb - 1;
		s->used = bucket_bytes(nb);
	}
	return t;
}

void lruhash_delete(struct lruhash* t)
{
	size_t i;
	if(!t)
		return;
	for(i = 0; i < t->num_slabs; i++) {
		struct lruhash_slab* s = &t->slabs[i];
		struct lruhash_entry* e, *next;
		for(e = s->lru_first; e; e = next) {
			next = e->lru_next;
			lruhash_release(t, e);
		}
		free(s->buckets);
	}
	free(t->slabs);
	free(t);
}

void lruhash_entry_init(struct lruhash_entry* e, uint32_t hash,
	const uint8_t* key, uint16_t keylen, size_t size)
{
	e->bucket_next = e->lru_prev = e->lru_next = NULL;
	e->key = key;
	e->keylen = keylen;
	e->hash = hash;
	e->size = size;
	e->lru_tick = 0;
	atomic_init(&e->refs, 1);
}

int lruhash_insert(struct lruhash* t, struct lruhash_entry* e,
	lruhash_replace_func replace, void* arg)
{
	struct lruhash_slab* s = slab_of(t, e->hash);
	struct lruhash_bucket* b;
	struct lruhash_entry** pp, *dead = NULL;
	/* Half the share at most, so the entry plus the buckets (at most a
	 * quarter) always fit and eviction below always ends under max. */
	/* unlocked read: lruhash_set_max_mem may change it */
	if(e->size > __atomic_load_n(&s->max, __ATOMIC_RELAXED) / 2) {
		lruhash_release(t, e);
		return 0;
	}
	slab_lock(&s->lock);
	b = bucket_of(s, e->hash);   /* under the lock: buckets may grow */
	pp = find_link(b, e->hash, e->key, e->keylen);
	if(*pp) {
		struct lruhash_entry* old = *pp;
		if(replace && !replace(old, e, arg)) {
			slab_unlock(&s->lock);
			lruhash_release(t, e);
			return 0;
		}
		unlink_entry(s, b, pp, old);
		old->bucket_next = dead;
		dead = old;
	}
	dead = link_and_evict(s, e, dead);
	slab_unlock(&s->lock);
	release_chain(t, dead);
	return 1;
}

int lruhash_insert_keeps(struct lruhash* t, uint32_t hash,
	const uint8_t* key, uint16_t keylen, size_t size,
	int (*keeps)(const struct lruhash_entry* old, void* arg), void* arg)
{
	struct lruhash_slab* s = slab_of(t, hash);
	struct lruhash_entry* e;
	int r = 0;
	/* as lruhash_insert: not stored at all */
	if(size > __atomic_load_n(&s->max, __ATOMIC_RELAXED) / 2)
		return 0;
	slab_lock(&s->lock);
	e = find_entry(s, hash, key, keylen);
	if(e)
		r = keeps(e, arg);
	slab_unlock(&s->lock);
	return r;
}

void lruhash_prefetch(struct lruhash* t, uint32_t hash)
{
	/* no lock: a grow may swap the array meanwhile, and the address
	 * is then stale or out of the new array's use; a prefetch does
	 * not fault, and the lookup reads under the lock */
	struct lruhash_slab* s = slab_of(t, hash);
	struct lruhash_bucket* b = __atomic_load_n(&s->buckets,
		__ATOMIC_RELAXED);
	size_t mask = __atomic_load_n(&s->mask, __ATOMIC_RELAXED);
	__builtin_prefetch(&b[hash & mask]);
}

struct lruhash_entry* lruhash_lookup(struct lruhash* t, uint32_t hash,
	const uint8_t* key, uint16_t keylen)
{
	struct lruhash_slab* s = slab_of(t, hash);
	struct lruhash_entry* e;
	slab_lock(&s->lock);
	e = find_entry(s, hash, key, keylen);
	if(e) {
		lruhash_ref(e);
		touch(s, e);
	}
	slab_unlock(&s->lock);
	return e;
}

void lruhash_set_max_entries(struct lruhash* t, size_t per_slab)
{
	size_t i;
	for(i = 0; i < t->num_slabs; i++) {
		struct lruhash_slab* s = &t->slabs[i];
		struct lruhash_entry* dead;
		slab_lock(&s->lock);
		s->max_count = per_slab;
		dead = evict_over(s, NULL, NULL);
		slab_unlock(&s->lock);
		release_chain(t, dead);
	}
}

struct lruhash_entry* lruhash_lock_entry(struct lruhash* t, uint32_t hash,
	const uint8_t* key, uint16_t keylen, lruhash_make_func make,
	void* arg)
{
	struct lruhash_slab* s = slab_of(t, hash);
	struct lruhash_entry* e;
	slab_lock(&s->lock);
	e = find_entry(s, hash, key, keylen);
	if(e) {
		touch(s, e);
		return e;
	}
	if(make && (e = make(hash, key, keylen, arg)) != NULL) {
		if(e->size > s->max / 2) {
			/* as lruhash_insert: too large to keep */
			slab_unlock(&s->lock);
			lruhash_release(t, e);
			return NULL;
		}
		s->dead = link_and_evict(s, e, s->dead);
		return e;
	}
	slab_unlock(&s->lock);
	return NULL;
}

void lruhash_unlock_entry(struct lruhash* t, struct lruhash_entry* e)
{
	struct lruhash_slab* s = slab_of(t, e->hash);
	struct lruhash_entry* dead = s->dead;
	s->dead = NULL;
	slab_unlock(&s->lock);
	release_chain(t, dead);
}

int lruhash_remove(struct lruhash* t, uint32_t hash, const uint8_t* key,
	uint16_t keylen)
{
	struct lruhash_slab* s = slab_of(t, hash);
	struct lruhash_bucket* b;
	struct lruhash_entry** pp, *e;
	slab_lock(&s->lock);
	b = bucket_of(s, hash);
	pp = find_link(b, hash, key, keylen);
	e = *pp;
	if(e)
		unlink_entry(s, b, pp, e);
	slab_unlock(&s->lock);
	if(!e)
		return 0;
	lruhash_release(t, e);
	return 1;
}

size_t lruhash_walk(struct lruhash* t, lruhash_walk_func fn, void* arg)
{
	size_t i, b, n = 0;
	for(i = 0; i < t->num_slabs; i++) {
		struct lruhash_slab* s = &t->slabs[i];
		struct lruhash_entry* dead = NULL;
		slab_lock(&s->lock);
		for(b = 0; b <= s->mask; b++) {
			struct lruhash_entry** pp = &s->buckets[b].first;
			while(*pp) {
				struct lruhash_entry* e = *pp;
				if(fn && fn(e, arg)) {
					unlink_entry(s, &s->buckets[b], pp,
						e);
					e->bucket_next = dead;
					dead = e;
					n++;
				} else	pp = &e->bucket_next;
			}
		}
		slab_unlock(&s->lock);
		release_chain(t, dead);
	}
	return n;
}

static int remove_all(struct lruhash_entry* e, void* arg)
{
	(void)e;
	(void)arg;
	return 1;
}

void lruhash_clear(struct lruhash* t)
{
	lruhash_walk(t, remove_all, NULL);
}

size_t lruhash_get_mem(struct lruhash* t)
{
	size_t i, n = 0;
	for(i = 0; i < t->num_slabs; i++) {
		slab_lock(&t->slabs[i].lock);
		n += t->slabs[i].used;
		slab_unlock(&t->slabs[i].lock);
	}
	return n;
}

size_t lruhash_count(struct lruhash* t)
{
	size_t i, n = 0;
	for(i = 0; i < t->num_slabs; i++) {
		slab_lock(&t->slabs[i].lock);
		n += t->slabs[i].count;
		slab_unlock(&t->slabs[i].lock);
	}
	return n;
}

size_t lruhash_slab_max(const struct lruhash* t)
{
	return __atomic_load_n(&t->slabs[0].max, __ATOMIC_RELAXED);
}

/* Halve the bucket array until it is within a quarter of the slab's
 * bound again (as lruhash_create sizes it), so a smaller bound is not
 * spent on empty buckets. On no memory the array stays. */
static void shrink_buckets(struct lruhash_slab* s)
{
	size_t n = s->mask + 1, nn = n;
	struct lruhash_bucket* nb;
	while(nn > 1 && bucket_bytes(nn) > s->max / 4)
		nn /= 2;
	if(nn == n || !(nb = buckets_new(nn)))
		return;
	rehash_into(s, nb, nn);
	s->used -= bucket_bytes(n) - bucket_bytes(nn);
}

void lruhash_set_max_mem(struct lruhash* t, size_t maxmem)
{
	size_t i;
	for(i = 0; i < t->num_slabs; i++) {
		struct lruhash_slab* s = &t->slabs[i];
		struct lruhash_entry* dead;
		slab_lock(&s->lock);
		__atomic_store_n(&s->max, maxmem / t->num_slabs,
			__ATOMIC_RELAXED);
		shrink_buckets(s);
		dead = evict_over(s, NULL, NULL);
		slab_unlock(&s->lock);
		release_chain(t, dead);
	}
}

static int under_zone(struct lruhash_entry* e, void* arg)
{
	return dname_subdomain_c(e->key, (const uint8_t*)arg);
}

size_t lruhash_remove_under(struct lruhash* t, const uint8_t* zone)
{
	if(dname_valid(zone, LDNS_MAX_DOMAINLEN + 1) == 0)
		return 0;
	return lruhash_walk(t, under_zone, (void*)zone);
}
