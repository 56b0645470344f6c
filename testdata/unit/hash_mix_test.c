/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/hash_mix_test.c - the shared hash pieces (util/hash_mix.h,
 * util/fnv.h): FNV-1a gives the published values, its lowercasing form
 * ignores ASCII case only, and the word mixer and the fold spread keys
 * of the shapes the tables hash evenly over the low bits they index with
 * (a fold that only shifted, or a mixer without its multiply, puts the
 * keys of these tests in a few buckets). */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "util/fnv.h"
#include "util/hash_mix.h"

#define NBUCKETS 1024
#define NKEYS (64 * NBUCKETS)

static unsigned load[NBUCKETS];

/* Chi-square of the bucket loads against the even spread; for 1023
 * degrees of freedom a fair hash stays near 1023 (1200 is p < 0.0001). */
static double chi_square(void)
{
	double expect = (double)NKEYS / NBUCKETS, chi = 0;
	size_t i;
	for(i = 0; i < NBUCKETS; i++) {
		double d = load[i] - expect;
		chi += d * d / expect;
	}
	return chi;
}

static void test_fnv_vectors(void** state)
{
	const uint8_t* a = (const uint8_t*)"a";
	const uint8_t* foobar = (const uint8_t*)"foobar";
	(void)state;
	assert_int_equal(fnv1a32(FNV32_START, a, 0), FNV32_START);
	assert_int_equal(fnv1a32(FNV32_START, a, 1), 0xe40c292cu);
	assert_int_equal(fnv1a32(FNV32_START, foobar, 6), 0xbf9cf968u);
	assert_true(fnv1a64(FNV64_START, a, 1) == 0xaf63dc4c8601ec8cULL);
	assert_true(fnv1a64(FNV64_START, foobar, 6) == 0x85944171f73967e8ULL);
	/* pieces chain: hashing "foo" then "bar" is hashing "foobar" */
	assert_int_equal(fnv1a32(fnv1a32(FNV32_START, foobar, 3),
		foobar + 3, 3), 0xbf9cf968u);
}

static void test_fnv_lower(void** state)
{
	const uint8_t upper[] = "\003WWW\007EXAMPLE\003COM";
	const uint8_t lower[] = "\003www\007example\003com";
	const uint8_t at[] = "@[", grave[] = "`{";
	(void)state;
	assert_int_equal(fnv1a32_lower(FNV32_START, upper, sizeof(upper)),
		fnv1a32(FNV32_START, lower, sizeof(lower)));
	/* only A-Z: '@' and '[' beside them are not folded onto '`' '{' */
	assert_int_not_equal(fnv1a32_lower(FNV32_START, at, 2),
		fnv1a32(FNV32_START, grave, 2));
	assert_int_equal(fnv1a32_lower(FNV32_START, at, 2),
		fnv1a32(FNV32_START, at, 2));
}

/* The key cache's and the RRset cache's shape: a 32-bit name hash, a
 * class xored in above it, then the fold. */
static void test_fold_spreads_name_hashes(void** state)
{
	size_t k;
	(void)state;
	memset(load, 0, sizeof(load));
	for(k = 0; k < NKEYS; k++)
		load[hash_fold32((uint32_t)(k * 0x10001u) ^
			((uint64_t)1 << 40)) % NBUCKETS]++;
	assert_true(chi_square() < 1200);
}

/* The address tables' shape: two words through the mixer, keys that
 * differ only in the second word (IPv6 hosts of one /64). */
static void test_mix_spreads_second_word(void** state)
{
	uint64_t seed = 0x0123456789abcdefULL, prefix = 0x20010db800000000ULL;
	size_t k;
	(void)state;
	memset(load, 0, sizeof(load));
	for(k = 0; k < NKEYS; k++) {
		uint64_t h = hash_mix(hash_mix(seed, prefix), (uint64_t)k);
		load[(h ^ (h >> 32)) % NBUCKETS]++;
	}
	assert_true(chi_square() < 1200);
	/* the message-key shape: a name word through the mixer, then the
	 * fold (names that differ in their third and fourth bytes) */
	memset(load, 0, sizeof(load));
	for(k = 0; k < NKEYS; k++)
		load[hash_fold32(hash_mix(seed, (uint64_t)k << 16)) %
			NBUCKETS]++;
	assert_true(chi_square() < 1200);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fnv_vectors),
		cmocka_unit_test(test_fnv_lower),
		cmocka_unit_test(test_fold_spreads_name_hashes),
		cmocka_unit_test(test_mix_spreads_second_word),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
