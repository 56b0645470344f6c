/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/iter_noncut_test.c - the record of names qname
 * minimisation found no zone cut: fresh for its TTL only, for the same
 * zone only, names compared case-insensitively and in full, a slot
 * taken over by a later name, cleared on demand. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "iterator/iter_noncut.h"

#define NOW ((time_t)1700000000)

/* "\001m\005bench\004tld1\000" and friends */
static const uint8_t M[] = "\001m\005bench\004tld1";
static const uint8_t M_UPPER[] = "\001M\005BENCH\004tld1";
static const uint8_t W[] = "\001w\005bench\004tld1";
static const uint8_t ZONE[] = "\005bench\004tld1";
static const uint8_t OTHER_ZONE[] = "\004tld1";
static const uint8_t MX[] = "\002mx\005bench\004tld1";

static void test_known_for_ttl(void** state)
{
	struct iter_noncut c = { 0 };
	(void)state;
	assert_false(iter_noncut_known(&c, M, ZONE, NOW));
	iter_noncut_add(&c, M, ZONE, 300, NOW);
	assert_true(iter_noncut_known(&c, M, ZONE, NOW));
	assert_true(iter_noncut_known(&c, M_UPPER, ZONE, NOW + 299));
	assert_false(iter_noncut_known(&c, M, ZONE, NOW + 300));
	/* the same with the lengths given (14 and 12 bytes) */
	assert_true(iter_noncut_known_len(&c, M, sizeof(M), ZONE,
		sizeof(ZONE), NOW));
	assert_true(iter_noncut_known_len(&c, M_UPPER, sizeof(M_UPPER), ZONE,
		sizeof(ZONE), NOW + 299));
	assert_false(iter_noncut_known_len(&c, M, sizeof(M), ZONE,
		sizeof(ZONE), NOW + 300));
	assert_false(iter_noncut_known_len(&c, M, sizeof(M), OTHER_ZONE,
		sizeof(OTHER_ZONE), NOW));
	assert_false(iter_noncut_known_len(&c, MX, sizeof(MX), ZONE,
		sizeof(ZONE), NOW));
	/* another zone's servers said nothing about it */
	assert_false(iter_noncut_known(&c, M, OTHER_ZONE, NOW));
	/* the zone in any case; a zone as long, but another */
	assert_true(iter_noncut_known(&c, M, (const uint8_t*)
		"\005BENCH\004Tld1", NOW));
	assert_false(iter_noncut_known(&c, M, (const uint8_t*)
		"\005bench\004tld2", NOW));
	/* a name that only starts the same */
	assert_false(iter_noncut_known(&c, MX, ZONE, NOW));
	assert_false(iter_noncut_known(&c, W, ZONE, NOW));
	/* TTL 0: not kept */
	iter_noncut_add(&c, W, ZONE, 0, NOW);
	assert_false(iter_noncut_known(&c, W, ZONE, NOW));
	iter_noncut_clear(&c);
	assert_false(iter_noncut_known(&c, M, ZONE, NOW));
	assert_false(iter_noncut_known_len(&c, M, sizeof(M), ZONE,
		sizeof(ZONE), NOW));
	iter_noncut_clear(&c);
}

static void test_bounded(void** state)
{
	struct iter_noncut c = { 0 };
	uint8_t name[32];
	int i, known = 0;
	(void)state;
	/* more names than slots: each add takes one slot, so at most
	 * ITER_NONCUT_SLOTS are known, and the last one is */
	for(i = 0; i < 4 * ITER_NONCUT_SLOTS; i++) {
		int n = snprintf((char*)name + 1, sizeof(name) - 1, "n%d", i);
		name[0] = (uint8_t)n;
		memcpy(name + 1 + n, ZONE, sizeof(ZONE));
		iter_noncut_add(&c, name, ZONE, 300, NOW);
	}
	assert_true(iter_noncut_known(&c, name, ZONE, NOW));
	for(i = 0; i < 4 * ITER_NONCUT_SLOTS; i++) {
		int n = snprintf((char*)name + 1, sizeof(name) - 1, "n%d", i);
		name[0] = (uint8_t)n;
		memcpy(name + 1 + n, ZONE, sizeof(ZONE));
		known += iter_noncut_known(&c, name, ZONE, NOW);
	}
	assert_true(known <= ITER_NONCUT_SLOTS);
	assert_true(known > 0);
	iter_noncut_clear(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_for_ttl),
		cmocka_unit_test(test_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
