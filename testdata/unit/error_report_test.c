/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/error_report_test.c - RFC 9567 error reports
 * (util/error_report.c): the report query's name, the length bound, and
 * the agent read from a reply's Report-Channel option (good, the root,
 * bytes after the name, a bad name, none). */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "util/error_report.h"

static const uint8_t WWW[] = "\3www\7example\3com";       /* + root */
static const uint8_t AGENT[] = "\5agent\7example";        /* + root */

static void test_qname(void** st)
{
	static const uint8_t want[] = "\3_er\0011\3www\7example\3com\0019"
		"\3_er\5agent\7example";
	uint8_t out[255];
	size_t n;
	(void)st;
	n = error_report_qname(out, WWW, sizeof(WWW), 1, 9, AGENT,
		sizeof(AGENT));
	assert_int_equal(n, sizeof(want));
	assert_memory_equal(out, want, sizeof(want));
}

static void test_too_long(void** st)
{
	uint8_t name[250], out[255];
	size_t i, n = 0;
	(void)st;
	/* 4 labels of 60: a 245-byte name; the report cannot hold it */
	for(i = 0; i < 4; i++) {
		name[n++] = 60;
		memset(name + n, 'a', 60);
		n += 60;
	}
	name[n++] = 0;
	assert_int_equal(error_report_qname(out, name, n, 1, 9, AGENT,
		sizeof(AGENT)), 0);
}

/* a reply: header, question a. A, an OPT with option 18 holding data */
static size_t reply(uint8_t* m, const uint8_t* data, size_t dlen)
{
	static const uint8_t q[] = { 1, 'a', 0, 0, 1, 0, 1 };
	size_t n = 12;
	memset(m, 0, 12);
	m[2] = 0x80;
	m[5] = 1;
	m[11] = 1;
	memcpy(m + n, q, sizeof(q));
	n += sizeof(q);
	m[n++] = 0;
	m[n++] = 0; m[n++] = 41;
	m[n++] = 0x04; m[n++] = 0xd0;
	m[n++] = 0; m[n++] = 0; m[n++] = 0; m[n++] = 0;
	m[n++] = 0; m[n++] = (uint8_t)(4 + dlen);
	m[n++] = 0; m[n++] = 18;
	m[n++] = 0; m[n++] = (uint8_t)dlen;
	memcpy(m + n, data, dlen);
	return n + dlen;
}

static void test_agent(void** st)
{
	static const uint8_t upper[] = "\5AGENT\7Example";
	static const uint8_t trailing[] = "\5agent\7example\0\1";
	static const uint8_t bad[] = "\77agent";
	uint8_t m[512], out[255];
	size_t n;
	(void)st;
	n = reply(m, upper, sizeof(upper));
	assert_int_equal(error_report_agent(m, n, out), sizeof(AGENT));
	assert_memory_equal(out, AGENT, sizeof(AGENT));   /* lowercased */
	n = reply(m, (const uint8_t*)"", 1);           /* the root */
	assert_int_equal(error_report_agent(m, n, out), 0);
	n = reply(m, trailing, sizeof(trailing) - 1);
	assert_int_equal(error_report_agent(m, n, out), 0);
	n = reply(m, bad, sizeof(bad) - 1);
	assert_int_equal(error_report_agent(m, n, out), 0);
	m[11] = 0;   /* no OPT record */
	assert_int_equal(error_report_agent(m, 19, out), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qname),
		cmocka_unit_test(test_too_long),
		cmocka_unit_test(test_agent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
