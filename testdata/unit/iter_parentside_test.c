/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/iter_parentside_test.c - the parent-side addresses kept
 * after a last resort: added to a later delegation of the same zone only
 * (names without case), only what it lacks, at most
 * ITER_PARENTSIDE_ADDRS, not after the TTL, not after a clear. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "iterator/iter_parentside.h"
#include "iterator/delegpt.h"
#include "util/net_help.h"

#define NOW ((time_t)1700000000)

static const uint8_t ZONE[] = "\003bad\004tld2";
static const uint8_t ZONE_UPPER[] = "\003BAD\004tld2";
static const uint8_t OTHER[] = "\004good\004tld2";

static void add(struct delegpt* dp, const char* ip)
{
	struct sockaddr_storage a;
	socklen_t len = 0;
	assert_true(ipstrtoaddr(ip, 53, &a, &len));
	assert_true(delegpt_add_addr(dp, &a, len));
}

static void test_kept_for_the_zone(void** state)
{
	struct iter_parentside ps = { 0 };
	struct delegpt* parent = delegpt_create(ZONE);
	struct delegpt* later = delegpt_create(ZONE_UPPER);
	struct delegpt* other = delegpt_create(OTHER);
	(void)state;
	assert_int_equal(iter_parentside_add_to(&ps, later, NOW), 0);
	add(parent, "127.0.0.10");
	add(parent, "127.0.0.12");
	iter_parentside_put(&ps, parent, 300, NOW);
	/* the later delegation has the dead child-side address only */
	add(later, "127.0.0.11");
	assert_int_equal(iter_parentside_add_to(&ps, other, NOW), 0);
	assert_int_equal(iter_parentside_add_to(&ps, later, NOW), 2);
	assert_int_equal((int)later->num_addr, 3);
	/* what it has already is not added twice */
	assert_int_equal(iter_parentside_add_to(&ps, later, NOW), 0);
	delegpt_delete(later);
	/* past the TTL: nothing */
	later = delegpt_create(ZONE);
	assert_int_equal(iter_parentside_add_to(&ps, later, NOW + 300), 0);
	assert_int_equal(iter_parentside_add_to(&ps, later, NOW + 299), 2);
	delegpt_delete(later);
	/* cleared: nothing */
	iter_parentside_clear(&ps);
	later = delegpt_create(ZONE);
	assert_int_equal(iter_parentside_add_to(&ps, later, NOW), 0);
	delegpt_delete(later);
	delegpt_delete(parent);
	delegpt_delete(other);
}

static void test_bounded(void** state)
{
	struct iter_parentside ps = { 0 };
	struct delegpt* parent = delegpt_create(ZONE);
	struct delegpt* later = delegpt_create(ZONE);
	char ip[32];
	int i;
	(void)state;
	for(i = 0; i < ITER_PARENTSIDE_ADDRS + 4; i++) {
		snprintf(ip, sizeof(ip), "127.0.1.%d", i + 1);
		add(parent, ip);
	}
	/* no address or no TTL: nothing kept */
	iter_parentside_put(&ps, later, 300, NOW);
	iter_parentside_put(&ps, parent, 0, NOW);
	assert_int_equal(iter_parentside_add_to(&ps, later, NOW), 0);
	iter_parentside_put(&ps, parent, 300, NOW);
	assert_int_equal(iter_parentside_add_to(&ps, later, NOW),
		ITER_PARENTSIDE_ADDRS);
	iter_parentside_clear(&ps);
	delegpt_delete(parent);
	delegpt_delete(later);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kept_for_the_zone),
		cmocka_unit_test(test_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
