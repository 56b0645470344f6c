/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/alloc_policy_test.c - util/alloc_policy.c: glibc's
 * dynamic mmap threshold (the soak's RSS growth) and the fixed one. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "util/alloc_policy.h"
#ifdef __GLIBC__
#include <malloc.h>

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* ASan's allocator replaces glibc's: mallinfo2 does not see its
 * blocks, its mallopt sets nothing (returns 0), and what these tests
 * check is glibc's behaviour. */
#ifdef UNDER_ASAN
#define MALLOPT_SETS 0
#else
#define MALLOPT_SETS 1
#endif
static void skip_under_asan(void)
{
#ifdef UNDER_ASAN
	skip();
#endif
}

/* Bytes in blocks with their own mapping. */
static size_t mapped_blocks(void)
{
	return mallinfo2().hblkhd;
}

#define BIG (1024 * 1024)

/* A block above glibc's initial threshold, written so the compiler
 * keeps it. */
static void* big(void)
{
	char* p = malloc(BIG);
	assert_non_null(p);
	memset(p, 1, BIG);
	return p;
}

/* glibc maps a block of its own only when the arena's top cannot hold
 * it; the threshold decides between a mapping and growing the arena.
 * Runs in this order (cmocka keeps it): glibc's own behaviour first,
 * then the policy, which cannot be undone in this process. */
static void test_glibc_moves_threshold_up(void** state)
{
	size_t before = mapped_blocks();
	void* p;
	(void)state;
	skip_under_asan();
	if(getenv("GLIBC_TUNABLES") || getenv("MALLOC_MMAP_THRESHOLD_"))
		skip();   /* the environment fixed a threshold */
	p = big();
	assert_true(mapped_blocks() >= before + BIG);
	free(p);
	/* freeing it raised the threshold: the next one grows the arena,
	 * and stays there when freed (the trim threshold rose too); with
	 * small blocks around such holes the soak's heap fragmented */
	p = big();
	assert_true(mapped_blocks() < before + BIG);
	free(p);
}

static void test_policy_keeps_big_blocks_mapped(void** state)
{
	size_t before;
	void* p;
	int i;
	(void)state;
	skip_under_asan();
	assert_int_equal(alloc_policy_init(), 1);
	alloc_policy_trim();   /* the arena's top from the test before */
	for(i = 0; i < 3; i++) {
		before = mapped_blocks();
		p = big();
		assert_true(mapped_blocks() >= before + BIG);
		free(p);
		/* unmapped at once, and the threshold did not move */
		assert_true(mapped_blocks() == before);
	}
	/* below the threshold: arena memory as before, such as ldns's
	 * 64 KiB scratch buffers for each RR parsed from text */
	before = mapped_blocks();
	p = malloc(65535);
	assert_non_null(p);
	assert_true(mapped_blocks() == before);
	free(p);
}

static void test_environment_wins(void** state)
{
	(void)state;
	assert_int_equal(setenv("GLIBC_TUNABLES",
		"glibc.malloc.mmap_threshold=1048576", 1), 0);
	assert_int_equal(alloc_policy_init(), 0);
	assert_int_equal(unsetenv("GLIBC_TUNABLES"), 0);
	assert_int_equal(setenv("MALLOC_MMAP_THRESHOLD_", "1048576", 1), 0);
	assert_int_equal(alloc_policy_init(), 0);
	assert_int_equal(unsetenv("MALLOC_MMAP_THRESHOLD_"), 0);
	/* other tunables do not count */
	assert_int_equal(setenv("GLIBC_TUNABLES",
		"glibc.malloc.arena_max=2", 1), 0);
	assert_int_equal(alloc_policy_init(), MALLOPT_SETS);
	assert_int_equal(unsetenv("GLIBC_TUNABLES"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_glibc_moves_threshold_up),
		cmocka_unit_test(test_policy_keeps_big_blocks_mapped),
		cmocka_unit_test(test_environment_wins),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
static void test_not_glibc(void** state)
{
	(void)state;
	assert_int_equal(alloc_policy_init(), 0);
	alloc_policy_trim();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_glibc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
