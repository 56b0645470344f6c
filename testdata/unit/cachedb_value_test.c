/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/cachedb_value_test.c - cachedb/cachedb_value.c: the key
 * against values computed apart (Python's hashlib, as Unbound's
 * calc_hash), an answer encoded and decoded back with its TTLs aged,
 * and the refusals: every truncation, a byte after the message, the
 * answer to another question, an expired value, a SERVFAIL, times out
 * of order. */
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
#include "cachedb/cachedb_value.h"
#include "util/dname.h"
#include "util/module.h"
#include "util/msgparse.h"

#define NOW ((time_t)1700000000)

static size_t name(const char* s, uint8_t* out)
{
	size_t n = dname_from_str(s, out);
	assert_true(n > 0);
	return n;
}

static void test_key(void** state)
{
	uint8_t q[LDNS_MAX_DOMAINLEN + 1];
	size_t n = name("WWW.Example.com.", q);
	char key[CACHEDB_KEY_LEN];
	(void)state;
	cachedb_key(q, n, TYPE_A, CLASS_IN, "default", key);
	assert_string_equal(key, "2A96E6DD0FB58A26BCB57FF4DDFE4D16"
		"5779A9830BADDBAC20C79FFC2C3DC02B");
	cachedb_key(q, n, TYPE_AAAA, CLASS_IN, "", key);
	assert_string_equal(key, "8B32BBB057D5D016DD99CDF768D01C30"
		"AFA6923B705666C2C7245F249FF53EB6");
}

static ldns_rr_list* list_of(const char* const* rrs)
{
	ldns_rr_list* l = ldns_rr_list_new();
	for(; *rrs; rrs++) {
		ldns_rr* rr = NULL;
		assert_int_equal(ldns_rr_new_frm_str(&rr, *rrs, 0, NULL, NULL),
			LDNS_STATUS_OK);
		ldns_rr_list_push_rr(l, rr);
	}
	return l;
}

/* An answer for www.example.com. A: two A records (TTL 300 and 3600:
 * one RRset takes the smaller) and an RRSIG. */
static size_t encode_answer(uint8_t* buf, size_t cap, time_t now,
	int rcode)
{
	static const char* const an[] = {
		"www.example.com. 300 IN A 192.0.2.1",
		"www.example.com. 300 IN A 192.0.2.2",
		"www.example.com. 300 IN RRSIG A 8 3 300 20300101000000 "
		"20200101000000 12345 example.com. AAAA",
		NULL };
	static const char* const ns[] = {
		"example.com. 3600 IN NS ns.example.com.", NULL };
	struct module_result res;
	uint8_t q[LDNS_MAX_DOMAINLEN + 1];
	size_t n = name("www.example.com.", q), len;
	uint32_t ttl = 0;
	memset(&res, 0, sizeof(res));
	res.rcode = rcode;
	res.answer = list_of(an);
	res.authority = list_of(ns);
	res.additional = ldns_rr_list_new();
	len = cachedb_value_encode(&res, q, n, TYPE_A, CLASS_IN, 0, now, buf,
		cap, &ttl);
	if(len)
		assert_int_equal(ttl, 300);
	module_result_free_lists(&res);
	return len;
}

static enum cachedb_value_verdict decode(const uint8_t* v, size_t len,
	const char* qn, time_t now, struct module_result* res)
{
	uint8_t q[LDNS_MAX_DOMAINLEN + 1];
	size_t n = name(qn, q);
	memset(res, 0, sizeof(*res));
	return cachedb_value_decode(v, len, q, n, TYPE_A, CLASS_IN, now, res);
}

static void test_roundtrip_aged(void** state)
{
	static uint8_t buf[CACHEDB_VALUE_MAX];
	struct module_result res;
	size_t len = encode_answer(buf, sizeof(buf), NOW, RCODE_NOERROR);
	(void)state;
	assert_true(len > CACHEDB_TIMES_LEN);
	/* Unbound's layout: the message, then stored and expiry times */
	assert_int_equal(buf[len - 9], (uint8_t)NOW);
	assert_int_equal(buf[len - 1], (uint8_t)(NOW + 300));
	assert_int_equal(decode(buf, len, "WWW.example.COM.", NOW + 100,
		&res), CACHEDB_VALUE_OK);
	assert_int_equal(res.rcode, RCODE_NOERROR);
	assert_int_equal(res.security, SEC_UNCHECKED);
	assert_int_equal(ldns_rr_list_rr_count(res.answer), 3);
	assert_int_equal(ldns_rr_list_rr_count(res.authority), 1);
	assert_int_equal(ldns_rr_ttl(ldns_rr_list_rr(res.answer, 0)), 200);
	assert_int_equal(ldns_rr_ttl(ldns_rr_list_rr(res.authority, 0)),
		3500);
	module_result_free_lists(&res);
	/* stored in the future (clock skew): not aged */
	assert_int_equal(decode(buf, len, "www.example.com.", NOW - 50, &res),
		CACHEDB_VALUE_OK);
	assert_int_equal(ldns_rr_ttl(ldns_rr_list_rr(res.answer, 0)), 300);
	module_result_free_lists(&res);
	/* expired */
	assert_int_equal(decode(buf, len, "www.example.com.", NOW + 300,
		&res), CACHEDB_VALUE_EXPIRED);
	assert_null(res.answer);
}

static void test_refusals(void** state)
{
	static uint8_t buf[CACHEDB_VALUE_MAX], b2[CACHEDB_VALUE_MAX];
	struct module_result res;
	size_t len = encode_answer(buf, sizeof(buf), NOW, RCODE_NOERROR), i;
	(void)state;
	/* every truncation of the message (times kept at the end) */
	for(i = 0; i + CACHEDB_TIMES_LEN < len; i++) {
		memcpy(b2, buf, i);
		memcpy(b2 + i, buf + len - CACHEDB_TIMES_LEN,
			CACHEDB_TIMES_LEN);
		assert_int_equal(decode(b2, i + CACHEDB_TIMES_LEN,
			"www.example.com.", NOW, &res),
			CACHEDB_VALUE_MALFORMED);
		assert_null(res.answer);
	}
	/* and of the whole value */
	for(i = 0; i < len; i++)
		assert_int_not_equal(decode(buf, i, "www.example.com.", NOW,
			&res), CACHEDB_VALUE_OK);
	/* a byte after the message */
	memcpy(b2, buf, len - CACHEDB_TIMES_LEN);
	b2[len - CACHEDB_TIMES_LEN] = 0;
	memcpy(b2 + len - CACHEDB_TIMES_LEN + 1, buf + len - CACHEDB_TIMES_LEN,
		CACHEDB_TIMES_LEN);
	assert_int_equal(decode(b2, len + 1, "www.example.com.", NOW, &res),
		CACHEDB_VALUE_MALFORMED);
	/* another question's answer */
	assert_int_equal(decode(buf, len, "ww.example.com.", NOW, &res),
		CACHEDB_VALUE_WRONG_QUESTION);
	/* expiry before the stored time */
	memcpy(b2, buf, len);
	memset(b2 + len - 8, 0, 8);
	assert_int_equal(decode(b2, len, "www.example.com.", NOW, &res),
		CACHEDB_VALUE_MALFORMED);
	/* not a response */
	memcpy(b2, buf, len);
	b2[2] &= 0x7f;
	assert_int_equal(decode(b2, len, "www.example.com.", NOW, &res),
		CACHEDB_VALUE_MALFORMED);
	/* a SERVFAIL is not stored, nor served */
	assert_int_equal(encode_answer(b2, sizeof(b2), NOW, RCODE_SERVFAIL),
		0);
	memcpy(b2, buf, len);
	b2[3] = (uint8_t)((b2[3] & 0xf0) | RCODE_SERVFAIL);
	assert_int_equal(decode(b2, len, "www.example.com.", NOW, &res),
		CACHEDB_VALUE_UNUSABLE);
	/* too small a buffer: not stored */
	assert_int_equal(encode_answer(b2, 40, NOW, RCODE_NOERROR), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key),
		cmocka_unit_test(test_roundtrip_aged),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
