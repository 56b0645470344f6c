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

/* A zone-file line as an ldns record, pushed on list. */
static void push(ldns_rr_list* list, const char* line)
{
	ldns_rr* rr = NULL;
	assert_int_equal(ldns_rr_new_frm_str(&rr, line, 0, NULL, NULL),
		LDNS_STATUS_OK);
	assert_true(ldns_rr_list_push_rr(list, rr));
}

/* harden-unverified-glue's glue: kept by NS name (without case), added
 * to a delegation naming it (got4/got6 set), only what it lacks, the
 * other records ignored, not after the shortest TTL of the name's
 * records, capped by max_ttl. */
static void test_unverified_glue(void** state)
{
	struct iter_parentside ps = { 0 };
	ldns_rr_list* glue = ldns_rr_list_new();
	struct delegpt* dp = delegpt_create(OTHER);
	struct delegpt_ns* ns;
	(void)state;
	assert_non_null(glue);
	assert_true(delegpt_add_ns(dp, (const uint8_t*)"\002ns\003BAD\004tld2")
		== 1);
	assert_true(delegpt_add_ns(dp, (const uint8_t*)"\003ns2\004good\004tld2")
		== 1);
	assert_int_equal(iter_parentside_add_glue(&ps, dp, NOW), 0);
	push(glue, "ns.bad.tld2. 300 IN A 127.0.0.10");
	push(glue, "ns.bad.tld2. 200 IN AAAA ::1");
	push(glue, "ns.bad.tld2. 300 IN TXT \"not glue\"");
	push(glue, "ns.elsewhere.tld2. 300 IN A 127.0.0.30");
	iter_parentside_put_glue(&ps, glue, 0, NOW);
	assert_int_equal(iter_parentside_add_glue(&ps, dp, NOW), 2);
	ns = delegpt_find_ns(dp, (const uint8_t*)"\002ns\003bad\004tld2");
	assert_non_null(ns);
	assert_true(ns->got4 && ns->got6);
	assert_int_equal((int)dp->num_addr, 2);
	/* the same again: nothing new */
	assert_int_equal(iter_parentside_add_glue(&ps, dp, NOW), 0);
	delegpt_delete(dp);
	/* the name's set lives as long as its shortest record */
	dp = delegpt_create(OTHER);
	assert_true(delegpt_add_ns(dp, (const uint8_t*)"\002ns\003bad\004tld2")
		== 1);
	assert_int_equal(iter_parentside_add_glue(&ps, dp, NOW + 200), 0);
	iter_parentside_clear(&ps);
	/* cache-max-ttl caps it */
	iter_parentside_put_glue(&ps, glue, 10, NOW);
	assert_int_equal(iter_parentside_add_glue(&ps, dp, NOW + 10), 0);
	assert_int_equal(iter_parentside_add_glue(&ps, dp, NOW + 9), 2);
	iter_parentside_clear(&ps);
	delegpt_delete(dp);
	ldns_rr_list_deep_free(glue);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kept_for_the_zone),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_unverified_glue),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
