/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/reply_parse_test.c - reply_wire2pkt (util/reply_parse.c):
 * one TSIG in the additional section is parsed as libldns does; with two
 * (libldns would leak the first: a finding of the upstream fuzzer) the
 * reply is parsed without the additional records from the first TSIG
 * on, as Unbound uses such a reply; refused when a broken record
 * follows them. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "util/reply_parse.h"

/* a reply (id 1, QR, question a.test. A) with an answer, then ntsig
 * root-owned TSIG records and an A record in the additional section;
 * truncate: the A record's rdata cut short (ARCOUNT still counts it) */
static size_t make_reply(uint8_t* m, int ntsig, int truncate)
{
	static const uint8_t q[] = { 1, 'a', 4, 't', 'e', 's', 't', 0, 0, 1,
		0, 1 };
	static const uint8_t ans[] = { 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0,
		4, 192, 0, 2, 1 };
	static const uint8_t tsig[] = { 0, 0, 250, 0, 255, 0, 0, 0, 0, 0,
		0 };
	size_t n = 12;
	int i;
	memset(m, 0, 12);
	m[1] = 1;
	m[2] = 0x80;
	m[5] = 1;
	m[7] = 1;
	m[11] = (uint8_t)(ntsig + 1);
	memcpy(m + n, q, sizeof(q));
	n += sizeof(q);
	memcpy(m + n, ans, sizeof(ans));
	n += sizeof(ans);
	for(i = 0; i < ntsig; i++) {
		memcpy(m + n, tsig, sizeof(tsig));
		n += sizeof(tsig);
	}
	memcpy(m + n, ans, sizeof(ans));
	n += sizeof(ans);
	return truncate ? n - 2 : n;
}

static void test_plain_and_one_tsig(void** state)
{
	uint8_t m[256];
	ldns_pkt* p = NULL;
	size_t n;
	(void)state;
	n = make_reply(m, 0, 0);
	assert_int_equal(reply_wire2pkt(&p, m, n), LDNS_STATUS_OK);
	assert_int_equal(ldns_rr_list_rr_count(ldns_pkt_answer(p)), 1);
	assert_int_equal(ldns_rr_list_rr_count(ldns_pkt_additional(p)), 1);
	ldns_pkt_free(p);
	p = NULL;
	n = make_reply(m, 1, 0);
	assert_int_equal(reply_wire2pkt(&p, m, n), LDNS_STATUS_OK);
	assert_non_null(ldns_pkt_tsig(p));
	ldns_pkt_free(p);
}

static void test_two_tsigs_cut(void** state)
{
	uint8_t m[256];
	ldns_pkt* p = NULL;
	size_t n;
	(void)state;
	n = make_reply(m, 2, 0);
	assert_int_equal(reply_wire2pkt(&p, m, n), LDNS_STATUS_OK);
	assert_int_equal(ldns_rr_list_rr_count(ldns_pkt_answer(p)), 1);
	assert_int_equal(ldns_rr_list_rr_count(ldns_pkt_additional(p)), 0);
	assert_null(ldns_pkt_tsig(p));
	ldns_pkt_free(p);
	p = (ldns_pkt*)1;
	n = make_reply(m, 3, 1);
	assert_int_equal(reply_wire2pkt(&p, m, n), LDNS_STATUS_ERR);
	assert_null(p);
	/* too short for a header, or a broken question: libldns decides */
	assert_int_not_equal(reply_wire2pkt(&p, m, 5), LDNS_STATUS_OK);
	assert_int_not_equal(reply_wire2pkt(&p, m, 14), LDNS_STATUS_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_and_one_tsig),
		cmocka_unit_test(test_two_tsigs_cut),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
