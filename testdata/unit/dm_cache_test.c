/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/dm_cache_test.c - the direct-mapped byte-string cache:
 * a hit only for the same bytes (a colliding hash is a miss), the pieces
 * compared as their concatenation, case folded only with nocase, a slot
 * taken over by a later key (also a shorter one in a larger buffer),
 * keys over the limit not kept, clear empties it. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "util/dm_cache.h"

static struct dm_part part(const char* s)
{
	struct dm_part p = { (const uint8_t*)s, strlen(s) };
	return p;
}

static void test_exact_bytes(void** state)
{
	struct dm_cache c;
	struct dm_part k[2] = { part("key"), part("data") };
	struct dm_part other[2] = { part("kex"), part("data") };
	struct dm_part upper[2] = { part("KEY"), part("data") };
	struct dm_entry* e;
	(void)state;
	dm_cache_init(&c, 8, 64, 0);
	assert_null(dm_cache_find(&c, 5, k, 2));
	assert_int_equal(dm_cache_put(&c, 5, k, 2, 77), 1);
	e = dm_cache_find(&c, 5, k, 2);
	assert_non_null(e);
	assert_int_equal(e->stamp, 77);
	/* same slot, same hash, other bytes: a miss, never a wrong hit */
	assert_null(dm_cache_find(&c, 5, other, 2));
	assert_null(dm_cache_find(&c, 5, upper, 2));
	/* same bytes, other hash: another slot, a miss */
	assert_null(dm_cache_find(&c, 6, k, 2));
	dm_cache_clear(&c);
	assert_null(dm_cache_find(&c, 5, k, 2));
}

static void test_pieces_are_concatenated(void** state)
{
	struct dm_cache c;
	struct dm_part ab_c[2] = { part("ab"), part("c") };
	struct dm_part a_bc[2] = { part("a"), part("bc") };
	struct dm_part abc[1] = { part("abcd") };
	(void)state;
	dm_cache_init(&c, 4, 64, 0);
	assert_int_equal(dm_cache_put(&c, 1, ab_c, 2, 0), 1);
	/* the caller puts lengths in the key where boundaries matter */
	assert_non_null(dm_cache_find(&c, 1, a_bc, 2));
	assert_null(dm_cache_find(&c, 1, abc, 1));
	dm_cache_clear(&c);
}

static void test_nocase(void** state)
{
	struct dm_cache c;
	struct dm_part lower[1] = { part("\003www\007example") };
	struct dm_part upper[1] = { part("\003WWW\007Example") };
	struct dm_part near[1] = { part("\003wwx\007example") };
	(void)state;
	dm_cache_init(&c, 4, 64, 1);
	assert_int_equal(dm_cache_put(&c, 3, upper, 1, 1), 1);
	assert_non_null(dm_cache_find(&c, 3, lower, 1));
	assert_null(dm_cache_find(&c, 3, near, 1));
	dm_cache_clear(&c);
}

static void test_replace_and_limit(void** state)
{
	struct dm_cache c;
	struct dm_part longk[1] = { part("a-longer-key") };
	struct dm_part shortk[1] = { part("short") };
	struct dm_part toolong[1] = { part("0123456789abcdefX") };
	(void)state;
	dm_cache_init(&c, 2, 16, 0);
	assert_int_equal(dm_cache_put(&c, 0, longk, 1, 1), 1);
	/* hash 2 maps to slot 0 too: it takes the slot over */
	assert_int_equal(dm_cache_put(&c, 2, shortk, 1, 2), 1);
	assert_null(dm_cache_find(&c, 0, longk, 1));
	assert_non_null(dm_cache_find(&c, 2, shortk, 1));
	/* over max_bytes: not kept, the slot's entry stays */
	assert_int_equal(dm_cache_put(&c, 0, toolong, 1, 3), 0);
	assert_null(dm_cache_find(&c, 0, toolong, 1));
	assert_non_null(dm_cache_find(&c, 2, shortk, 1));
	dm_cache_clear(&c);
	/* usable again after a clear */
	assert_int_equal(dm_cache_put(&c, 1, shortk, 1, 4), 1);
	assert_non_null(dm_cache_find(&c, 1, shortk, 1));
	dm_cache_clear(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_bytes),
		cmocka_unit_test(test_pieces_are_concatenated),
		cmocka_unit_test(test_nocase),
		cmocka_unit_test(test_replace_and_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
