/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/rrlist_pack_test.c - util/rrlist_pack.c: the RRsets of an
 * ldns record list as packed sets: grouping by owner (any case), type
 * and class in the order of first records, the least TTL, the rdata in
 * wire form, the type filter, and lists past the stack buffers (more
 * than 32 records, more than 2048 rdata bytes). */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ldns/ldns.h>
#include "util/rrlist_pack.h"
#include "util/msgencode.h"

#define MAX_SETS 8

/* What the callback saw: per set its type, count, TTL, owner (text) and
 * the rdata of its records, concatenated. */
struct seen {
	int n, stop_after;
	uint16_t type[MAX_SETS];
	size_t count[MAX_SETS];
	uint32_t ttl[MAX_SETS];
	char owner[MAX_SETS][64];
	uint8_t rdata[MAX_SETS][8192];
	size_t rdlen[MAX_SETS];
};

static int record(void* arg, const struct packed_rrset* set)
{
	struct seen* s = arg;
	ldns_rdf* o;
	char* str;
	size_t i;
	assert_true(s->n < MAX_SETS);
	s->type[s->n] = set->type;
	s->count[s->n] = set->count;
	s->ttl[s->n] = set->ttl;
	o = ldns_rdf_new_frm_data(LDNS_RDF_TYPE_DNAME, set->owner_len,
		set->owner);
	assert_non_null(o);
	str = ldns_rdf2str(o);
	snprintf(s->owner[s->n], sizeof(s->owner[0]), "%s", str);
	free(str);
	ldns_rdf_deep_free(o);
	for(i = 0; i < set->count; i++) {
		assert_true(s->rdlen[s->n] + set->rdlen[i] <=
			sizeof(s->rdata[0]));
		memcpy(s->rdata[s->n] + s->rdlen[s->n], set->rdata[i],
			set->rdlen[i]);
		s->rdlen[s->n] += set->rdlen[i];
	}
	s->n++;
	return s->stop_after == 0 || s->n < s->stop_after;
}

static ldns_rr_list* list_of(const char** rrs)
{
	ldns_rr_list* l = ldns_rr_list_new();
	size_t i;
	assert_non_null(l);
	for(i = 0; rrs[i]; i++) {
		ldns_rr* rr = NULL;
		assert_int_equal(ldns_rr_new_frm_str(&rr, rrs[i], 0, NULL,
			NULL), LDNS_STATUS_OK);
		assert_true(ldns_rr_list_push_rr(l, rr));
	}
	return l;
}

/* The rdata of rr as ldns writes it to the wire. */
static size_t wire_rdata(const ldns_rr* rr, uint8_t* out)
{
	ldns_buffer* b = ldns_buffer_new(1024);
	size_t n;
	assert_non_null(b);
	assert_int_equal(ldns_rr_rdata2buffer_wire(b, rr), LDNS_STATUS_OK);
	n = ldns_buffer_position(b);
	memcpy(out, ldns_buffer_begin(b), n);
	ldns_buffer_free(b);
	return n;
}

static void test_grouped_in_order(void** state)
{
	static const char* rrs[] = {
		"a.tld1. 300 IN A 192.0.2.1",
		"b.tld1. 300 IN A 192.0.2.2",
		"A.TLD1. 100 IN A 192.0.2.3",      /* first set, least TTL */
		"a.tld1. 300 IN AAAA 2001:db8::1",
		"a.tld1. 300 CH A 192.0.2.4",      /* another class */
		"a.Tld1. 200 IN A 192.0.2.5",
		NULL };
	ldns_rr_list* l = list_of(rrs);
	struct seen* s = calloc(1, sizeof(*s));
	uint8_t want[64];
	size_t wl = 0;
	(void)state;
	assert_non_null(s);
	assert_int_equal(rrlist_for_each_rrset(l, record, s), 1);
	assert_int_equal(s->n, 4);
	assert_int_equal(s->type[0], LDNS_RR_TYPE_A);
	assert_int_equal(s->count[0], 3);
	assert_int_equal(s->ttl[0], 100);
	assert_string_equal(s->owner[0], "a.tld1.");  /* the first's case */
	wl += wire_rdata(ldns_rr_list_rr(l, 0), want + wl);
	wl += wire_rdata(ldns_rr_list_rr(l, 2), want + wl);
	wl += wire_rdata(ldns_rr_list_rr(l, 5), want + wl);
	assert_int_equal(s->rdlen[0], wl);
	assert_memory_equal(s->rdata[0], want, wl);
	assert_string_equal(s->owner[1], "b.tld1.");
	assert_int_equal(s->count[1], 1);
	assert_int_equal(s->type[2], LDNS_RR_TYPE_AAAA);
	assert_int_equal(s->rdlen[2], 16);
	assert_int_equal(s->count[3], 1);   /* CH: a set of its own */
	ldns_rr_list_deep_free(l);
	free(s);
}

static void test_filter_and_stop(void** state)
{
	static const char* rrs[] = {
		"tld1. 300 IN NS ns.tld1.",
		"ns.tld1. 300 IN A 192.0.2.1",
		"tld1. 300 IN SOA ns.tld1. h.tld1. 1 2 3 4 5",
		"ns.tld1. 300 IN AAAA 2001:db8::1",
		"ns.tld1. 300 IN TXT \"x\"",
		NULL };
	ldns_rr_list* l = list_of(rrs);
	struct seen* s = calloc(1, sizeof(*s));
	(void)state;
	assert_non_null(s);
	assert_int_equal(rrlist_for_each_rrset_of(l, LDNS_RR_TYPE_A,
		LDNS_RR_TYPE_AAAA, record, s), 1);
	assert_int_equal(s->n, 2);
	assert_int_equal(s->type[0], LDNS_RR_TYPE_A);
	assert_int_equal(s->type[1], LDNS_RR_TYPE_AAAA);
	memset(s, 0, sizeof(*s));
	s->stop_after = 2;   /* fn's 0 ends the walk and is returned */
	assert_int_equal(rrlist_for_each_rrset(l, record, s), 0);
	assert_int_equal(s->n, 2);
	memset(s, 0, sizeof(*s));
	assert_int_equal(rrlist_for_each_rrset(NULL, record, s), 1);
	assert_int_equal(s->n, 0);
	ldns_rr_list_deep_free(l);
	free(s);
}

/* 40 TXT records of 255-byte strings (10 KB of rdata, more records than
 * the stack arrays) in two interleaved sets: grouped as a short list. */
static void test_past_the_stack_buffers(void** state)
{
	ldns_rr_list* l = ldns_rr_list_new();
	struct seen* s = calloc(1, sizeof(*s));
	uint8_t* want[2];
	size_t wl[2] = { 0, 0 }, i;
	char text[400], str[300];
	(void)state;
	assert_non_null(s);
	want[0] = malloc(8192);
	want[1] = malloc(8192);
	assert_true(l && want[0] && want[1]);
	for(i = 0; i < 40; i++) {
		ldns_rr* rr = NULL;
		memset(str, 'a' + (int)(i % 26), 100);
		str[100] = 0;
		snprintf(text, sizeof(text), "%s.tld1. %u IN TXT \"%s%03u\"",
			i % 2 ? "odd" : "EVEN", (unsigned)(1000 - i), str,
			(unsigned)i);
		assert_int_equal(ldns_rr_new_frm_str(&rr, text, 0, NULL,
			NULL), LDNS_STATUS_OK);
		assert_true(ldns_rr_list_push_rr(l, rr));
		wl[i % 2] += wire_rdata(rr, want[i % 2] + wl[i % 2]);
	}
	assert_true(wl[0] + wl[1] > 2048);
	assert_int_equal(rrlist_for_each_rrset(l, record, s), 1);
	assert_int_equal(s->n, 2);
	assert_string_equal(s->owner[0], "EVEN.tld1.");
	assert_string_equal(s->owner[1], "odd.tld1.");
	for(i = 0; i < 2; i++) {
		assert_int_equal(s->count[i], 20);
		assert_int_equal(s->rdlen[i], wl[i]);
		assert_memory_equal(s->rdata[i], want[i], wl[i]);
	}
	assert_int_equal(s->ttl[0], 1000 - 38);
	assert_int_equal(s->ttl[1], 1000 - 39);
	ldns_rr_list_deep_free(l);
	free(want[0]);
	free(want[1]);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grouped_in_order),
		cmocka_unit_test(test_filter_and_stop),
		cmocka_unit_test(test_past_the_stack_buffers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
