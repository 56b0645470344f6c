/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/ihash_test.c - util/ihash.h: nodes added are found in
 * their hash's chain, removed ones are not, the count follows, growing
 * keeps every node, and the walk visits each node once (also when the
 * caller removes the node it was given). */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "util/ihash.h"

struct item {
	int key;
	struct ihash_node hn;
};

#define N 1000

/* every key lands in one of 8 hashes: long chains, many equal hashes */
static uint32_t key_hash(int key)
{
	return (uint32_t)(key % 8) * 0x9E3779B1u;
}

static struct item* find(const struct ihash* t, int key)
{
	uint32_t h = key_hash(key);
	struct ihash_node* n;
	for(n = ihash_bucket(t, h); n; n = n->next) {
		struct item* it = IHASH_ITEM(n, struct item, hn);
		if(n->hash == h && it->key == key)
			return it;
	}
	return NULL;
}

static size_t walk_count(const struct ihash* t, int* seen)
{
	size_t i = 0, k = 0;
	struct ihash_node* n = NULL;
	while((n = ihash_next(t, &i, n)) != NULL) {
		struct item* it = IHASH_ITEM(n, struct item, hn);
		assert_int_equal(seen[it->key], 0);   /* once each */
		seen[it->key] = 1;
		k++;
	}
	return k;
}

static void test_add_find_remove(void** state)
{
	static struct item items[N];
	static int seen[N];
	struct ihash t;
	int i;
	(void)state;
	assert_true(ihash_init(&t, 5));
	assert_int_equal(t.mask + 1, 8);          /* rounded up */
	assert_null(find(&t, 3));
	for(i = 0; i < N; i++) {
		items[i].key = i;
		ihash_add(&t, &items[i].hn, key_hash(i));
	}
	assert_int_equal(t.count, N);
	for(i = 0; i < N; i++)
		assert_ptr_equal(find(&t, i), &items[i]);
	memset(seen, 0, sizeof(seen));
	assert_int_equal(walk_count(&t, seen), N);
	for(i = 0; i < N; i += 2)
		assert_true(ihash_remove(&t, &items[i].hn));
	assert_false(ihash_remove(&t, &items[0].hn));   /* not in it now */
	assert_int_equal(t.count, N / 2);
	for(i = 0; i < N; i++) {
		if(i % 2)
			assert_ptr_equal(find(&t, i), &items[i]);
		else	assert_null(find(&t, i));
	}
	ihash_free(&t);
	assert_null(t.tab);
	assert_int_equal(t.count, 0);
}

static void test_grow_keeps_all(void** state)
{
	static struct item items[N];
	static int seen[N];
	struct ihash t;
	int i;
	(void)state;
	memset(&t, 0, sizeof(t));                  /* no buckets yet */
	for(i = 0; i < N; i++) {
		assert_true(ihash_reserve_one(&t));
		assert_true(t.count + 1 <= t.mask + 1);
		items[i].key = i;
		/* a spread hash here, so the growth is seen per bucket */
		ihash_add(&t, &items[i].hn, (uint32_t)i * 2654435761u);
	}
	assert_int_equal(t.mask + 1, 1024);        /* 256, 512, 1024 */
	for(i = 0; i < N; i++) {
		uint32_t h = (uint32_t)i * 2654435761u;
		struct ihash_node* n;
		int found = 0;
		for(n = ihash_bucket(&t, h); n; n = n->next)
			if(n == &items[i].hn)
				found = 1;
		assert_true(found);
	}
	memset(seen, 0, sizeof(seen));
	assert_int_equal(walk_count(&t, seen), N);
	ihash_free(&t);
}

/* ihash_resize (the mesh's table on a larger num-queries-per-thread):
 * every node found in its new bucket. */
static void test_resize_keeps_all(void** state)
{
	static struct item items[N];
	static int seen[N];
	struct ihash t;
	int i;
	(void)state;
	assert_true(ihash_init(&t, 16));
	for(i = 0; i < N; i++) {
		items[i].key = i;
		ihash_add(&t, &items[i].hn, key_hash(i));
	}
	assert_true(ihash_resize(&t, 4096));
	assert_int_equal(t.mask + 1, 4096);
	assert_int_equal(t.count, N);
	for(i = 0; i < N; i++)
		assert_ptr_equal(find(&t, i), &items[i]);
	memset(seen, 0, sizeof(seen));
	assert_int_equal(walk_count(&t, seen), N);
	ihash_free(&t);
}

/* The owners' way to empty a table: take the first node, remove it,
 * again (mesh_delete, wait_limit_delete). */
static void test_drain(void** state)
{
	static struct item items[64];
	struct ihash t;
	struct ihash_node* n;
	size_t i = 0;
	int k = 0;
	(void)state;
	assert_true(ihash_init(&t, 16));
	for(k = 0; k < 64; k++) {
		items[k].key = k;
		ihash_add(&t, &items[k].hn, key_hash(k));
	}
	k = 0;
	while((n = ihash_next(&t, &i, NULL)) != NULL) {
		assert_true(ihash_remove(&t, n));
		k++;
	}
	assert_int_equal(k, 64);
	assert_int_equal(t.count, 0);
	ihash_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_find_remove),
		cmocka_unit_test(test_grow_keeps_all),
		cmocka_unit_test(test_resize_keeps_all),
		cmocka_unit_test(test_drain),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
