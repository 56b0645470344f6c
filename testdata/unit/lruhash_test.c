/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/lruhash_test.c - the slabbed LRU hash table: insert,
 * replace, remove, reference counting, LRU order, the memory bound, the
 * entry-count bound and in-place updates (the infrastructure cache's
 * use), and 4 threads hammering one table. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "util/storage/lruhash.h"

struct tent {
	struct lruhash_entry lh;
	uint32_t val;
	uint32_t check;       /* val * 7 + 1: a reader checks the data */
	uint8_t key[8];
	uint8_t data[48];
};

struct counters {
	atomic_long allocs, frees;
};

static void tdel(struct lruhash_entry* e, void* arg)
{
	struct counters* c = arg;
	struct tent* t = (struct tent*)e;
	memset(t, 0xdd, sizeof(*t));  /* a stale read sees garbage */
	free(t);
	atomic_fetch_add(&c->frees, 1);
}

/* Spread the bits: the top ones pick the slab. */
static uint32_t thash(uint32_t k)
{
	k ^= k >> 16;
	k *= 0x7feb352dU;
	k ^= k >> 15;
	k *= 0x846ca68bU;
	k ^= k >> 16;
	return k;
}

static struct tent* mk(struct counters* c, uint32_t k, uint32_t val)
{
	struct tent* t = malloc(sizeof(*t));
	assert_non_null(t);
	memcpy(t->key, &k, 4);
	memset(t->key + 4, 'k', 4);
	t->val = val;
	t->check = val * 7 + 1;
	memset(t->data, (int)(val & 0xff), sizeof(t->data));
	lruhash_entry_init(&t->lh, thash(k), t->key, sizeof(t->key),
		sizeof(*t));
	atomic_fetch_add(&c->allocs, 1);
	return t;
}

static struct tent* find(struct lruhash* h, uint32_t k)
{
	uint8_t key[8];
	memcpy(key, &k, 4);
	memset(key + 4, 'k', 4);
	return (struct tent*)lruhash_lookup(h, thash(k), key, sizeof(key));
}

static int del_key(struct lruhash* h, uint32_t k)
{
	uint8_t key[8];
	memcpy(key, &k, 4);
	memset(key + 4, 'k', 4);
	return lruhash_remove(h, thash(k), key, sizeof(key));
}

static int del_key_h(struct lruhash* h, uint32_t k, uint32_t hash)
{
	uint8_t key[8];
	memcpy(key, &k, 4);
	memset(key + 4, 'k', 4);
	return lruhash_remove(h, hash, key, sizeof(key));
}

static void test_bad_create(void** state)
{
	struct counters c = {0, 0};
	(void)state;
	assert_null(lruhash_create(0, 1000000, tdel, &c));
	assert_null(lruhash_create(3, 1000000, tdel, &c));
	assert_null(lruhash_create(4, 1000000, NULL, &c));
}

static void test_basic(void** state)
{
	struct counters c = {0, 0};
	struct lruhash* h = lruhash_create(4, 1 << 20, tdel, &c);
	struct tent* t;
	uint32_t i;
	(void)state;
	assert_non_null(h);
	for(i = 0; i < 1000; i++)
		assert_int_equal(lruhash_insert(h, &mk(&c, i, i)->lh, NULL,
			NULL), 1);
	assert_int_equal(lruhash_count(h), 1000);
	for(i = 0; i < 1000; i++) {
		t = find(h, i);
		assert_non_null(t);
		assert_int_equal(t->val, i);
		lruhash_release(h, &t->lh);
	}
	assert_null(find(h, 5000));
	/* replace: same key, new value; the old one is freed */
	assert_int_equal(lruhash_insert(h, &mk(&c, 7, 700)->lh, NULL, NULL),
		1);
	assert_int_equal(lruhash_count(h), 1000);
	t = find(h, 7);
	assert_int_equal(t->val, 700);
	lruhash_release(h, &t->lh);
	assert_int_equal(atomic_load(&c.frees), 1);
	/* remove */
	assert_int_equal(del_key(h, 8), 1);
	assert_int_equal(del_key(h, 8), 0);
	assert_null(find(h, 8));
	assert_int_equal(lruhash_count(h), 999);
	lruhash_clear(h);
	assert_int_equal(lruhash_count(h), 0);
	assert_int_equal(atomic_load(&c.frees), atomic_load(&c.allocs));
	lruhash_delete(h);
}

static int keep_old(const struct lruhash_entry* old, struct lruhash_entry* n,
	void* arg)
{
	(void)arg;
	/* keep the old one unless the new value is larger */
	return ((struct tent*)n)->val > ((const struct tent*)old)->val;
}

static void test_replace_func(void** state)
{
	struct counters c = {0, 0};
	struct lruhash* h = lruhash_create(1, 1 << 20, tdel, &c);
	struct tent* t;
	(void)state;
	assert_int_equal(lruhash_insert(h, &mk(&c, 1, 50)->lh, keep_old,
		NULL), 1);
	assert_int_equal(lruhash_insert(h, &mk(&c, 1, 40)->lh, keep_old,
		NULL), 0);
	t = find(h, 1);
	assert_int_equal(t->val, 50);
	lruhash_release(h, &t->lh);
	assert_int_equal(lruhash_insert(h, &mk(&c, 1, 60)->lh, keep_old,
		NULL), 1);
	t = find(h, 1);
	assert_int_equal(t->val, 60);
	lruhash_release(h, &t->lh);
	assert_int_equal(atomic_load(&c.frees), 2);
	lruhash_delete(h);
	assert_int_equal(atomic_load(&c.frees), 3);
}

/* keeps for lruhash_insert_keeps: the old value is at least *arg */
static int keeps_at_least(const struct lruhash_entry* o, void* arg)
{
	return ((const struct tent*)o)->val >= *(const uint32_t*)arg;
}

/* lruhash_insert_keeps asks about the entry with the key, takes no
 * reference, and says 0 without asking when there is none or the size
 * is over an insert's bound. */
static void test_insert_keeps(void** state)
{
	struct counters c = {0, 0};
	struct lruhash* h = lruhash_create(1, 1 << 20, tdel, &c);
	uint8_t key[8];
	uint32_t k = 1, v;
	(void)state;
	memcpy(key, &k, 4);
	memset(key + 4, 'k', 4);
	v = 0;
	assert_int_equal(lruhash_insert_keeps(h, thash(1), key, sizeof(key),
		64, keeps_at_least, &v), 0);
	assert_int_equal(lruhash_insert(h, &mk(&c, 1, 50)->lh, NULL, NULL),
		1);
	v = 40;
	assert_int_equal(lruhash_insert_keeps(h, thash(1), key, sizeof(key),
		64, keeps_at_least, &v), 1);
	v = 60;
	assert_int_equal(lruhash_insert_keeps(h, thash(1), key, sizeof(key),
		64, keeps_at_least, &v), 0);
	v = 0;
	assert_int_equal(lruhash_insert_keeps(h, thash(1), key, sizeof(key),
		1 << 20, keeps_at_least, &v), 0);
	/* no reference left behind: removal frees it at once */
	assert_int_equal(del_key(h, 1), 1);
	assert_int_equal(atomic_load(&c.frees), 1);
	lruhash_delete(h);
}

/* A referenced entry outlives its removal and is freed by the reader. */
static void test_refs(void** state)
{
	struct counters c = {0, 0};
	struct lruhash* h = lruhash_create(2, 1 << 20, tdel, &c);
	struct tent* t, *t2;
	size_t empty = lruhash_get_mem(h);  /* the bucket arrays */
	(void)state;
	lruhash_insert(h, &mk(&c, 3, 3)->lh, NULL, NULL);
	t = find(h, 3);
	t2 = find(h, 3);
	assert_ptr_equal(t, t2);
	assert_int_equal(del_key(h, 3), 1);
	assert_int_equal(atomic_load(&c.frees), 0);
	assert_int_equal(t->val, 3);       /* still readable */
	assert_int_equal(lruhash_get_mem(h), empty); /* not counted */
	lruhash_release(h, &t->lh);
	assert_int_equal(atomic_load(&c.frees), 0);
	lruhash_release(h, &t2->lh);
	assert_int_equal(atomic_load(&c.frees), 1);
	/* replaced while referenced */
	lruhash_insert(h, &mk(&c, 4, 4)->lh, NULL, NULL);
	t = find(h, 4);
	lruhash_insert(h, &mk(&c, 4, 5)->lh, NULL, NULL);
	assert_int_equal(t->val, 4);
	assert_int_equal(atomic_load(&c.frees), 1);
	lruhash_release(h, &t->lh);
	assert_int_equal(atomic_load(&c.frees), 2);
	lruhash_delete(h);
	assert_int_equal(atomic_load(&c.frees), atomic_load(&c.allocs));
}

/* key k with a chosen hash: entries that share a bucket */
static struct tent* mkh(struct counters* c, uint32_t k, uint32_t hash)
{
	struct tent* t = mk(c, k, k);
	t->lh.hash = hash;
	return t;
}

static struct tent* findh(struct lruhash* h, uint32_t k, uint32_t hash)
{
	uint8_t key[8];
	memcpy(key, &k, 4);
	memset(key + 4, 'k', 4);
	return (struct tent*)lruhash_lookup(h, hash, key, sizeof(key));
}

static int found(struct lruhash* h, uint32_t k, uint32_t hash)
{
	struct tent* t = findh(h, k, hash);
	if(!t)
		return 0;
	assert_int_equal(t->val, k);
	lruhash_release(h, &t->lh);
	return 1;
}

/* One bucket's chain (a bucket keeps its first entry's hash and its
 * length, so a lookup can answer without reading entries): keys with
 * the same hash, other hashes in the same bucket, removal of the first,
 * a middle and the last entry. */
static void test_bucket_chains(void** state)
{
	struct counters c = {0, 0};
	struct lruhash* h = lruhash_create(1, 1 << 20, tdel, &c);
	/* one bucket: the low bits equal, the rest differs */
	uint32_t x1 = 0x10000005, x2 = 0x20000005, x3 = 0x30000005;
	(void)state;
	assert_int_equal(lruhash_insert(h, &mkh(&c, 1, x1)->lh, NULL, NULL),
		1);
	/* a lone entry: another hash, or the same hash and another key */
	assert_int_equal(found(h, 1, x1), 1);
	assert_int_equal(found(h, 9, x2), 0);
	assert_int_equal(found(h, 9, x1), 0);
	assert_int_equal(lruhash_insert(h, &mkh(&c, 2, x2)->lh, NULL, NULL),
		1);
	assert_int_equal(lruhash_insert(h, &mkh(&c, 3, x1)->lh, NULL, NULL),
		1);
	/* chain 3 (x1), 2 (x2), 1 (x1) */
	assert_int_equal(found(h, 1, x1), 1);
	assert_int_equal(found(h, 2, x2), 1);
	assert_int_equal(found(h, 3, x1), 1);
	assert_int_equal(found(h, 9, x3), 0);
	assert_int_equal(found(h, 2, x1), 0);
	/* the first goes: the next one's hash is the bucket's */
	assert_int_equal(del_key_h(h, 3, x1), 1);
	assert_int_equal(found(h, 3, x1), 0);
	assert_int_equal(found(h, 2, x2), 1);
	assert_int_equal(found(h, 1, x1), 1);
	assert_int_equal(del_key_h(h, 1, x1), 1);   /* the last */
	assert_int_equal(found(h, 2, x2), 1);
	assert_int_equal(found(h, 1, x1), 0);
	assert_int_equal(found(h, 9, x1), 0);
	assert_int_equal(lruhash_insert(h, &mkh(&c, 4, x3)->lh, NULL, NULL),
		1);
	assert_int_equal(lruhash_insert(h, &mkh(&c, 5, x1)->lh, NULL, NULL),
		1);
	assert_int_equal(del_key_h(h, 4, x3), 1);   /* a middle one */
	assert_int_equal(found(h, 5, x1), 1);
	assert_int_equal(found(h, 2, x2), 1);
	assert_int_equal(found(h, 4, x3), 0);
	/* replaced in place keeps the chain */
	assert_int_equal(lruhash_insert(h, &mkh(&c, 2, x2)->lh, NULL, NULL),
		1);
	assert_int_equal(found(h, 2, x2), 1);
	assert_int_equal(found(h, 5, x1), 1);
	assert_int_equal(lruhash_count(h), 2);
	lruhash_delete(h);
	assert_int_equal(atomic_load(&c.frees), atomic_load(&c.allocs));
}

/* Growth to large bucket arrays: every key still found, removals and
 * a walk still work, and deleting frees all. */
static void test_large_growth(void** state)
{
	struct counters c = {0, 0};
	struct lruhash* h = lruhash_create(1, (size_t)1 << 30, tdel, &c);
	uint32_t k, n = 200000;
	(void)state;
	for(k = 0; k < n; k++)
		assert_int_equal(lruhash_insert(h, &mk(&c, k, k)->lh, NULL,
			NULL), 1);
	assert_int_equal(lruhash_count(h), n);
	/* 2^18 buckets of 16 bytes at least: 4 MiB */
	assert_true(lruhash_get_mem(h) >= (size_t)n * sizeof(struct tent) +
		((size_t)4 << 20));
	for(k = 0; k < n; k += 2)
		assert_int_equal(del_key(h, k), 1);
	for(k = 0; k < n; k++) {
		struct tent* t = find(h, k);
		if(k % 2 == 0) {
			assert_null(t);
			continue;
		}
		assert_non_null(t);
		assert_int_equal(t->val, k);
		lruhash_release(h, &t->lh);
	}
	assert_int_equal(lruhash_walk(h, NULL, NULL), 0);
	assert_int_equal(lruhash_count(h), n / 2);
	lruhash_clear(h);
	assert_int_equal(lruhash_count(h), 0);
	lruhash_delete(h);
	assert_int_equal(atomic_load(&c.frees), atomic_load(&c.allocs));
}

/* lruhash_prefetch takes no lock: another thread calls it for random
 * hashes while this one grows the table from 256 buckets to 2^18 (each
 * grow frees the old array); it must not crash (nor trip ASan), and the
 * table stays whole. */
struct prefetch_arg {
	struct lruhash* h;
	atomic_int* stop;
	long calls;
};

static void* prefetcher(void* p)
{
	struct prefetch_arg* a = p;
	uint32_t k = 0;
	while(!atomic_load_explicit(a->stop, memory_order_relaxed)) {
		lruhash_prefetch(a->h, thash(k++));
		a->calls++;
	}
	return NULL;
}

static void test_prefetch_while_growing(void** state)
{
	struct counters c = {0, 0};
	struct lruhash* h = lruhash_create(1, (size_t)1 << 30, tdel, &c);
	atomic_int stop = 0;
	struct prefetch_arg a = { h, &stop, 0 };
	pthread_t th;
	uint32_t k, n = 150000;
	(void)state;
	assert_int_equal(pthread_create(&th, NULL, prefetcher, &a), 0);
	for(k = 0; k < n; k++) {
		lruhash_prefetch(h, thash(k));
		assert_int_equal(lruhash_insert(h, &mk(&c, k, k)->lh, NULL,
			NULL), 1);
	}
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	assert_true(a.calls > 0);
	assert_int_equal(lruhash_count(h), n);
	for(k = 0; k < n; k += 997) {
		struct tent* t = find(h, k);
		assert_non_null(t);
		assert_int_equal(t->val, k);
		lruhash_release(h, &t->lh);
	}
	lruhash_delete(h);
	assert_int_equal(atomic_load(&c.frees), atomic_load(&c.allocs));
}

/* An entry over half a slab's share is refused (and freed). */
static void test_too_big(void** state)
{
	struct counters c = {0, 0};
	struct lruhash* h = lruhash_create(4, 4 * 200, tdel, &c);
	struct tent* t = mk(&c, 1, 1);
	(void)state;
	t->lh.size = 101;
	assert_int_equal(lruhash_insert(h, &t->lh, NULL, NULL), 0);
	assert_int_equal(atomic_load(&c.frees), 1);
	assert_int_equal(lruhash_count(h), 0);
	lruhash_delete(h);
}

static size_t rss_bytes(void)
{
	long pages = 0, rss = 0;
	FILE* f = fopen("/proc/self/statm", "r");
	if(!f)
		return 0;
	if(fscanf(f, "%ld %ld", &pages, &rss) != 2)
		rss = 0;
	fclose(f);
	return (size_t)rss * (size_t)sysconf(_SC_PAGESIZE);
}

/* 100,000 distinct entries into 1 MiB: the accounted bytes never pass
 * the bound, RSS stays bounded, and recently used entries survive. */
/* A new bound (a reload's new cache size): a smaller one evicts the
 * least recently used entries at once and shrinks the bucket arrays
 * with it; the recently used stay, and a larger one lets the table grow
 * past the old bound. */
static void test_set_max_mem(void** state)
{
	const size_t big = 1 << 20, small = 64 << 10;
	struct counters c = {0, 0};
	struct lruhash* h = lruhash_create(4, big, tdel, &c);
	struct tent* t;
	size_t n_big;
	uint32_t i;
	(void)state;
	for(i = 0; i < 20000; i++)
		lruhash_insert(h, &mk(&c, i, i)->lh, NULL, NULL);
	/* 19990..19999 used last */
	for(i = 19990; i < 20000; i++) {
		t = find(h, i);
		assert_non_null(t);
		lruhash_release(h, &t->lh);
	}
	n_big = lruhash_count(h);
	assert_true(lruhash_get_mem(h) > small * 4);
	lruhash_set_max_mem(h, small);
	assert_int_equal(lruhash_slab_max(h), small / 4);
	assert_true(lruhash_get_mem(h) <= small);
	assert_true(lruhash_count(h) < n_big);
	assert_true(lruhash_count(h) > 100);   /* not emptied */
	assert_int_equal((size_t)atomic_load(&c.allocs) - lruhash_count(h),
		(size_t)atomic_load(&c.frees));
	for(i = 19990; i < 20000; i++) {
		t = find(h, i);
		assert_non_null(t);
		assert_int_equal(t->check, i * 7 + 1);
		lruhash_release(h, &t->lh);
	}
	assert_null(find(h, 0));
	/* inserts keep the new bound */
	for(i = 20000; i < 30000; i++) {
		lruhash_insert(h, &mk(&c, i, i)->lh, NULL, NULL);
		assert_true(lruhash_get_mem(h) <= small);
	}
	/* larger again: it fills past the small bound */
	lruhash_set_max_mem(h, big);
	for(i = 30000; i < 50000; i++)
		lruhash_insert(h, &mk(&c, i, i)->lh, NULL, NULL);
	assert_true(lruhash_get_mem(h) > small * 4);
	assert_true(lruhash_get_mem(h) <= big);
	lruhash_delete(h);
	assert_int_equal(atomic_load(&c.allocs), atomic_load(&c.frees));
}

static void test_memory_bound(void** state)
{
	const size_t max = 1 << 20;
	struct counters c = {0, 0};
	struct lruhash* h = lruhash_create(4, max, tdel, &c);
	size_t rss0, rss1, peak = 0, m;
	uint32_t i;
	(void)state;
	rss0 = rss_bytes();
	for(i = 0; i < 100000; i++) {
		struct tent* t;
		lruhash_insert(h, &mk(&c, i, i)->lh, NULL, NULL);
		/* keep entries 0..99 hot: look one up on every insert */
		t = find(h, i % 100);
		assert_non_null(t);
		lruhash_release(h, &t->lh);
		m = lruhash_get_mem(h);
		assert_true(m <= max);
		if(m > peak)
			peak = m;
	}
	rss1 = rss_bytes();
	/* full: most of the bound is used */
	assert_true(peak > max / 2);
	assert_true(lruhash_count(h) > 5000);
	assert_int_equal((size_t)atomic_load(&c.allocs) - lruhash_count(h),
		(size_t)atomic_load(&c.frees));
	for(i = 0; i < 100; i++) {
		struct tent* t = find(h, i);
		assert_non_null(t);
		lruhash_release(h, &t->lh);
	}
	/* the oldest cold ones went first */
	assert_null(find(h, 100));
	assert_null(find(h, 50000));
	{
		struct tent* t = find(h, 99999);
		assert_non_null(t);
		lruhash_release(h, &t->lh);
	}
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
	/* sanitizers hold freed memory and add shadow: only without */
	printf("rss growth %zu KiB (bound %zu KiB)\n", (rss1 - rss0) / 1024,
		max / 1024);
	assert_true(rss1 < rss0 + 4 * max);
#else
	(void)rss1;
	(void)rss0;
#endif
	lruhash_delete(h);
	assert_int_equal(atomic_load(&c.frees), atomic_load(&c.allocs));
}

static int walk_odd(struct lruhash_entry* e, void* arg)
{
	(*(int*)arg)++;
	return ((struct tent*)e)->val & 1;
}

static void test_walk(void** state)
{
	struct counters c = {0, 0};
	struct lruhash* h = lruhash_create(4, 1 << 20, tdel, &c);
	int seen = 0;
	uint32_t i;
	(void)state;
	for(i = 0; i < 500; i++)
		lruhash_insert(h, &mk(&c, i, i)->lh, NULL, NULL);
	assert_int_equal(lruhash_walk(h, walk_odd, &seen), 250);
	assert_int_equal(seen, 500);
	assert_int_equal(lruhash_count(h), 250);
	assert_null(find(h, 3));
	lruhash_delete(h);
	assert_int_equal(atomic_load(&c.frees), atomic_load(&c.allocs));
}

/* Threads: each looks up, checks the data it got without a lock (a
 * freed entry would show 0xdd or trip ASan), stores and removes, on a
 * table small enough to evict all the time. */
struct thr_arg {
	struct lruhash* h;
	struct counters* c;
	unsigned seed;
	long lookups, hits;
	atomic_int* stop;
};

static void* hammer(void* p)
{
	struct thr_arg* a = p;
	unsigned s = a->seed;
	while(!atomic_load_explicit(a->stop, memory_order_relaxed)) {
		int n;
		for(n = 0; n < 1000; n++) {
			uint32_t k, r;
			s = s * 1103515245u + 12345u;
			r = s >> 8;
			k = (r >> 4) % 4000;
			if((r & 0xf) < 11) {
				struct tent* t = find(a->h, k);
				a->lookups++;
				if(t) {
					uint8_t d = (uint8_t)(t->val & 0xff);
					a->hits++;
					if(t->check != t->val * 7 + 1 ||
						t->data[0] != d || t->data[47] != d)
						abort();
					lruhash_release(a->h, &t->lh);
				}
			} else if((r & 0xf) < 15) {
				lruhash_insert(a->h, &mk(a->c, k, k + (r >> 20))->lh,
					NULL, NULL);
			} else
				del_key(a->h, k);
		}
	}
	return NULL;
}

/* nthreads hammering a table of nslabs slabs: lookups see only whole
 * entries, the bound holds, every entry is freed once. */
static void run_threads(size_t nslabs, int nthreads)
{
	struct counters c = {0, 0};
	/* about 1500 entries fit: constant eviction */
	struct lruhash* h = lruhash_create(nslabs, 160000, tdel, &c);
	pthread_t th[8];
	struct thr_arg a[8];
	atomic_int stop = 0;
	long lookups = 0, hits = 0;
	int i;
	for(i = 0; i < nthreads; i++) {
		a[i].h = h;
		a[i].c = &c;
		a[i].seed = (unsigned)i * 7919u + 1;
		a[i].lookups = a[i].hits = 0;
		a[i].stop = &stop;
		assert_int_equal(pthread_create(&th[i], NULL, hammer, &a[i]), 0);
	}
	sleep(2);
	atomic_store(&stop, 1);
	for(i = 0; i < nthreads; i++) {
		pthread_join(th[i], NULL);
		lookups += a[i].lookups;
		hits += a[i].hits;
	}
	printf("threads: %ld lookups, %ld hits, %zu entries, %zu bytes\n",
		lookups, hits, lruhash_count(h), lruhash_get_mem(h));
	assert_true(lruhash_get_mem(h) <= 160000);
	assert_true(hits > 0 && hits < lookups);
	lruhash_delete(h);
	assert_int_equal(atomic_load(&c.frees), atomic_load(&c.allocs));
}

/* lruhash_make_func for test_lock_entry: arg is the counters */
static struct lruhash_entry* make_tent(uint32_t hash, const uint8_t* key,
	uint16_t keylen, void* arg)
{
	struct tent* t = calloc(1, sizeof(*t));
	(void)hash;
	if(!t)
		return NULL;
	assert_int_equal(keylen, sizeof(t->key));
	memcpy(t->key, key, keylen);
	lruhash_entry_init(&t->lh, hash, t->key, keylen, sizeof(*t));
	atomic_fetch_add(&((struct counters*)arg)->allocs, 1);
	return &t->lh;
}

static struct lruhash_entry* lock_key(struct lruhash* h, uint32_t k,
	struct counters* c)
{
	uint8_t key[8];
	memcpy(key, &k, 4);
	memset(key + 4, 'k', 4);
	return lruhash_lock_entry(h, thash(k), key, sizeof(key),
		c ? make_tent : NULL, c);
}

/* Update in place under the lock, with a count bound: entries are made
 * on first use, changed where they are, the least recently used one
 * goes when the count is over the bound, and the evicted ones are freed
 * at unlock. */
static void test_lock_entry(void** state)
{
	struct counters c = { 0, 0 };
	struct lruhash* h = lruhash_create(1, 1 << 20, tdel, &c);
	struct lruhash_entry* e;
	uint32_t k;
	(void)state;
	lruhash_set_max_entries(h, 4);
	assert_null(lock_key(h, 1, NULL));   /* absent, nothing made */
	for(k = 1; k <= 4; k++) {
		e = lock_key(h, k, &c);
		assert_non_null(e);
		((struct tent*)e)->val = k * 10;
		lruhash_unlock_entry(h, e);
	}
	assert_int_equal(lruhash_count(h), 4);
	/* changed in place: the same entry, the new value */
	e = lock_key(h, 2, NULL);
	assert_non_null(e);
	assert_int_equal(((struct tent*)e)->val, 20);
	((struct tent*)e)->val = 21;
	lruhash_unlock_entry(h, e);
	e = lock_key(h, 2, NULL);
	assert_int_equal(((struct tent*)e)->val, 21);
	lruhash_unlock_entry(h, e);
	/* a fifth: the oldest unused (1) goes, freed at unlock */
	e = lock_key(h, 5, &c);
	assert_non_null(e);
	lruhash_unlock_entry(h, e);
	assert_int_equal(lruhash_count(h), 4);
	assert_int_equal(atomic_load(&c.frees), 1);
	assert_null(lock_key(h, 1, NULL));
	e = lock_key(h, 4, NULL);
	assert_non_null(e);
	lruhash_unlock_entry(h, e);
	lruhash_delete(h);
	assert_int_equal(atomic_load(&c.allocs), 5);
	assert_int_equal(atomic_load(&c.frees), 5);
}

static void test_threads(void** state)
{
	(void)state;
	run_threads(4, 4);
}

/* All threads on one slab lock, more threads than CPUs: the lock's
 * contended path (spin, then sleep in the kernel and be woken). */
static void test_threads_one_slab(void** state)
{
	(void)state;
	run_threads(1, 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_create),
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_replace_func),
		cmocka_unit_test(test_insert_keeps),
		cmocka_unit_test(test_refs),
		cmocka_unit_test(test_bucket_chains),
		cmocka_unit_test(test_large_growth),
		cmocka_unit_test(test_prefetch_while_growing),
		cmocka_unit_test(test_too_big),
		cmocka_unit_test(test_memory_bound),
		cmocka_unit_test(test_set_max_mem),
		cmocka_unit_test(test_walk),
		cmocka_unit_test(test_lock_entry),
		cmocka_unit_test(test_threads_one_slab),
		cmocka_unit_test(test_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
