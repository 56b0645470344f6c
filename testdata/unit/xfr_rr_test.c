/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/xfr_rr_test.c - the application of an IXFR difference
 * (RFC 1995) to a zone's RR list: a few deletions (each found by a
 * scan, the order kept) and many (a sort), the same RRs removed either
 * way; a deleted RR the zone does not have, or has fewer times than
 * deleted, fails and changes nothing. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "services/xfr_rr.h"

#define ZONE_RRS 200

/* a<i>.example. A 10.0.<i/256>.<i%256>; owner in upper case: the list
 * keeps names lowercased */
static void add_a(struct xfr_rrs* l, unsigned i, int upper)
{
	uint8_t owner[64], addr[4] = { 10, 0, 0, 0 };
	char label[16];
	size_t n;
	snprintf(label, sizeof(label), "%c%u", upper ? 'A' : 'a', i);
	n = strlen(label);
	owner[0] = (uint8_t)n;
	memcpy(owner + 1, label, n);
	memcpy(owner + 1 + n, "\007example\000", 9);
	addr[2] = (uint8_t)(i >> 8);
	addr[3] = (uint8_t)i;
	assert_true(xfr_rrs_add(l, owner, n + 10, 1, 1, 300, addr, 4));
}

static unsigned addr_of(const struct xfr_rr* r)
{
	return (unsigned)r->rdata[2] << 8 | r->rdata[3];
}

static void zone_make(struct xfr_rrs* z)
{
	unsigned i;
	xfr_rrs_init(z);
	for(i = 0; i < ZONE_RRS; i++)
		add_a(z, i, 0);
	add_a(z, 7, 0);   /* a7 twice */
}

/* the zone's RRs by address: how many times each */
static void counts(const struct xfr_rrs* z, unsigned* c)
{
	size_t i;
	memset(c, 0, ZONE_RRS * sizeof(*c));
	for(i = 0; i < z->n; i++)
		c[addr_of(&z->v[i])]++;
}

static void apply_and_check(unsigned ndel, int expect_sorted)
{
	struct xfr_rrs z, del, add;
	unsigned c[ZONE_RRS], i;
	char err[256];
	zone_make(&z);
	xfr_rrs_init(&del);
	xfr_rrs_init(&add);
	for(i = 0; i < ndel; i++)   /* every third from 1, upper case */
		add_a(&del, 1 + 3 * i, 1);
	add_a(&del, 7, 0);   /* one of the two a7 */
	add_a(&add, 0, 0);
	assert_true(xfr_rrs_apply(&z, &del, &add, err, sizeof(err)));
	assert_int_equal(z.n, ZONE_RRS + 1 - (ndel + 1) + 1);
	counts(&z, c);
	for(i = 0; i < ZONE_RRS; i++) {
		unsigned want = 1;
		if(i % 3 == 1 && (i - 1) / 3 < ndel)
			want = 0;
		if(i == 7)
			want = (7 - 1) / 3 < ndel ? 0 : 1;
		if(i == 0)
			want = 2;
		assert_int_equal(c[i], want);
	}
	if(!expect_sorted) {   /* the rest in their order, the add last */
		for(i = 1; i + 1 < z.n; i++)
			assert_true(addr_of(&z.v[i-1]) < addr_of(&z.v[i]));
		assert_int_equal(addr_of(&z.v[z.n - 1]), 0);
	}
	xfr_rrs_clear(&z);
	xfr_rrs_clear(&del);
	xfr_rrs_clear(&add);
}

static void test_few_deletes(void** state)
{
	(void)state;
	apply_and_check(3, 0);
}

static void test_many_deletes(void** state)
{
	(void)state;
	apply_and_check(60, 1);
}

static void missing(unsigned ndel, int twice)
{
	struct xfr_rrs z, del, add;
	char err[256];
	unsigned i;
	zone_make(&z);
	xfr_rrs_init(&del);
	xfr_rrs_init(&add);
	for(i = 0; i < ndel; i++)
		add_a(&del, 1 + 3 * i, 0);
	if(twice) {   /* a7 three times, the zone has it twice */
		add_a(&del, 7, 0);
		add_a(&del, 7, 0);
		add_a(&del, 7, 0);
	} else
		add_a(&del, ZONE_RRS + 5, 0);
	add_a(&add, 0, 0);
	err[0] = 0;
	assert_false(xfr_rrs_apply(&z, &del, &add, err, sizeof(err)));
	assert_non_null(strstr(err, "does not have"));
	assert_int_equal(z.n, ZONE_RRS + 1);
	xfr_rrs_clear(&z);
	xfr_rrs_clear(&del);
	xfr_rrs_clear(&add);
}

static void test_missing_delete_fails(void** state)
{
	(void)state;
	missing(1, 0);
	missing(60, 0);
}

static void test_deleted_more_times_than_held_fails(void** state)
{
	(void)state;
	missing(0, 1);
	missing(60, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_few_deletes),
		cmocka_unit_test(test_many_deletes),
		cmocka_unit_test(test_missing_delete_fails),
		cmocka_unit_test(test_deleted_more_times_than_held_fails),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
