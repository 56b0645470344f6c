/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/edns_pad_test.c - EDNS padding (util/edns_pad.c): the
 * query's option found, replies padded to the block, compressed names
 * and records after the OPT, and what is left alone. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "util/edns_pad.h"

/* header (id 1, QD 1, AN an, AR 1), question a.test. A, then an answer
 * with a compressed owner, then an OPT with opt (optlen bytes) */
static size_t make_msg(uint8_t* m, int an, const uint8_t* opt, size_t optlen,
	int extra_after_opt)
{
	static const uint8_t q[] = { 1, 'a', 4, 't', 'e', 's', 't', 0, 0, 1,
		0, 1 };
	static const uint8_t ans[] = { 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0,
		4, 192, 0, 2, 1 };
	size_t n = 12;
	memset(m, 0, 12);
	m[1] = 1;
	m[5] = 1;
	m[7] = (uint8_t)an;
	m[11] = (uint8_t)(1 + extra_after_opt);
	memcpy(m + n, q, sizeof(q));
	n += sizeof(q);
	if(an) {
		memcpy(m + n, ans, sizeof(ans));
		n += sizeof(ans);
	}
	m[n++] = 0;                     /* root */
	m[n++] = 0; m[n++] = 41;        /* OPT */
	m[n++] = 0x04; m[n++] = 0xd0;   /* 1232 */
	m[n++] = 0; m[n++] = 0; m[n++] = 0; m[n++] = 0;
	m[n++] = (uint8_t)(optlen >> 8); m[n++] = (uint8_t)optlen;
	if(optlen)
		memcpy(m + n, opt, optlen);
	n += optlen;
	if(extra_after_opt) {
		memcpy(m + n, ans, sizeof(ans));
		n += sizeof(ans);
	}
	return n;
}

static void test_query_option(void** state)
{
	uint8_t m[512];
	static const uint8_t pad[] = { 0, 12, 0, 2, 0, 0 };
	static const uint8_t cookie[] = { 0, 10, 0, 8, 1, 2, 3, 4, 5, 6, 7,
		8 };
	(void)state;
	assert_true(edns_query_has_padding(m, make_msg(m, 0, pad, 6, 0)));
	assert_false(edns_query_has_padding(m, make_msg(m, 0, cookie, 12,
		0)));
	assert_false(edns_query_has_padding(m, make_msg(m, 0, NULL, 0, 0)));
	/* truncated: no crash, no */
	assert_false(edns_query_has_padding(m, 20));
	assert_false(edns_query_has_padding(m, 3));
}

static void test_pad_reply(void** state)
{
	uint8_t m[1024];
	size_t n, len;
	int blocks[] = { 468, 128, 2, 7 };
	unsigned i;
	(void)state;
	for(i = 0; i < sizeof(blocks) / sizeof(blocks[0]); i++) {
		n = make_msg(m, 1, NULL, 0, 0);
		len = edns_pad_reply(m, n, sizeof(m), (size_t)blocks[i]);
		assert_int_equal(len % (size_t)blocks[i], 0);
		assert_true(len >= n + 4);
		assert_true(edns_query_has_padding(m, len));
		/* the padding bytes are zero */
		assert_int_equal(m[n + 4 <= len - 1 ? len - 1 : n], 0);
	}
	/* a record after the OPT moves up intact */
	n = make_msg(m, 1, NULL, 0, 1);
	len = edns_pad_reply(m, n, sizeof(m), 128);
	assert_int_equal(len % 128, 0);
	assert_int_equal(m[len - 1], 1);       /* 192.0.2.1's last byte */
	assert_int_equal(m[len - 16], 0xc0);   /* its compressed owner */
	/* no room: unchanged */
	n = make_msg(m, 1, NULL, 0, 0);
	assert_int_equal(edns_pad_reply(m, n, n + 10, 468), n);
	/* no OPT: unchanged */
	m[11] = 0;
	assert_int_equal(edns_pad_reply(m, n - 11, sizeof(m), 468), n - 11);
	/* block < 2: unchanged */
	n = make_msg(m, 1, NULL, 0, 0);
	assert_int_equal(edns_pad_reply(m, n, sizeof(m), 1), n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_query_option),
		cmocka_unit_test(test_pad_reply),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
