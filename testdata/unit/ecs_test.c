/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/ecs_test.c - subnetcache/ecs.c, the ECS option (RFC
 * 7871) in wire form: what Unbound 1.17 accepts and refuses (the
 * client's refusals are FORMERR), bits past the source cleared, the
 * option written back, the client's address cut to a prefix, and
 * edns_get_option finding it in a message. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include "subnetcache/ecs.h"
#include "util/edns_pad.h"

static void test_parse_good(void** state)
{
	static const uint8_t v4[] = { 0, 1, 24, 0, 198, 51, 100 };
	static const uint8_t v4dirty[] = { 0, 1, 20, 0, 198, 51, 0xff };
	static const uint8_t v6[] = { 0, 2, 56, 0, 0x20, 1, 0x0d, 0xb8, 0,
		0, 0x42 };
	static const uint8_t zero[] = { 0, 1, 0, 0 };
	struct ecs_data e;
	uint8_t buf[ECS_OPT_MAX];
	(void)state;
	assert_true(ecs_parse(v4, sizeof(v4), &e));
	assert_int_equal(e.family, ECS_FAMILY_IP4);
	assert_int_equal(e.source, 24);
	assert_memory_equal(e.addr, "\xc6\x33\x64\x00", 4);
	assert_int_equal(ecs_encode(&e, 8, buf), 4 + sizeof(v4));
	assert_memory_equal(buf, "\x00\x08\x00\x07", 4);
	assert_memory_equal(buf + 4, v4, sizeof(v4));
	/* compat: unbound-1.17: bits past the source are cleared */
	assert_true(ecs_parse(v4dirty, sizeof(v4dirty), &e));
	assert_int_equal(e.addr[2], 0xf0);
	assert_true(ecs_parse(v6, sizeof(v6), &e));
	assert_int_equal(e.family, ECS_FAMILY_IP6);
	assert_int_equal(e.addr[6], 0x42);
	assert_true(ecs_parse(zero, sizeof(zero), &e));
	assert_int_equal(ecs_encode(&e, 8, buf), 8);
}

static void test_parse_bad(void** state)
{
	static const struct { const char* d; size_t len; } bad[] = {
		{ "\x00\x01\x18\x00\xc6\x33", 6 },          /* 2 bytes for /24 */
		{ "\x00\x01\x18\x00\xc6\x33\x64\x00", 8 },  /* 4 bytes */
		{ "\x00\x01\x21\x00\x01\x02\x03\x04\x05", 9 },  /* /33 */
		{ "\x00\x01\x18\x21\xc6\x33\x64", 7 },      /* scope 33 */
		{ "\x00\x02\x81\x00", 4 },                  /* IPv6 /129 */
		{ "\x00\x03\x08\x00\x01", 5 },              /* family 3 */
		{ "\x00\x00\x00\x00", 4 },                  /* family 0 */
		{ "\x00\x01\x18", 3 },                      /* no header */
		{ "", 0 },
	};
	struct ecs_data e;
	size_t i;
	(void)state;
	for(i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if(ecs_parse((const uint8_t*)bad[i].d, bad[i].len, &e))
			fail_msg("case %d parsed", (int)i);
}

static void test_from_addr(void** state)
{
	struct sockaddr_storage ss;
	struct sockaddr_in* s4 = (struct sockaddr_in*)&ss;
	struct sockaddr_in6* s6 = (struct sockaddr_in6*)&ss;
	struct ecs_data e;
	(void)state;
	memset(&ss, 0, sizeof(ss));
	s4->sin_family = AF_INET;
	inet_pton(AF_INET, "192.0.2.77", &s4->sin_addr);
	assert_true(ecs_from_addr(&ss, sizeof(*s4), 24, 56, &e));
	assert_int_equal(e.source, 24);
	assert_memory_equal(e.addr, "\xc0\x00\x02\x00", 4);
	assert_true(ecs_from_addr(&ss, sizeof(*s4), 20, 56, &e));
	assert_memory_equal(e.addr, "\xc0\x00\x00\x00", 4);
	memset(&ss, 0, sizeof(ss));
	s6->sin6_family = AF_INET6;
	inet_pton(AF_INET6, "2001:db8:1:2:3::1", &s6->sin6_addr);
	assert_true(ecs_from_addr(&ss, sizeof(*s6), 24, 56, &e));
	assert_int_equal(e.family, ECS_FAMILY_IP6);
	assert_memory_equal(e.addr, "\x20\x01\x0d\xb8\x00\x01\x00\x00", 8);
	ss.ss_family = AF_UNIX;
	assert_false(ecs_from_addr(&ss, sizeof(ss), 24, 56, &e));
	assert_true(ecs_prefix_equal((const uint8_t*)"\xc0\x00\x02\x00",
		(const uint8_t*)"\xc0\x00\x03\x00", 23));
	assert_false(ecs_prefix_equal((const uint8_t*)"\xc0\x00\x02\x00",
		(const uint8_t*)"\xc0\x00\x03\x00", 24));
}

static void test_get_option(void** state)
{
	/* a query for "." A with an OPT holding a cookie and an ECS */
	static const uint8_t q[] = { 0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1,
		0, 0, 1, 0, 1,
		0, 0, 41, 4, 0xd0, 0, 0, 0, 0, 0, 23,
		0, 10, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8,
		0, 8, 0, 7, 0, 1, 24, 0, 198, 51, 100 };
	uint8_t cut[sizeof(q)];
	const uint8_t* d = NULL;
	(void)state;
	assert_int_equal(edns_get_option(q, sizeof(q), 8, &d), 7);
	assert_ptr_equal(d, q + sizeof(q) - 7);
	assert_int_equal(edns_get_option(q, sizeof(q), 12, &d), -1);
	/* the ECS option's length runs past the OPT's */
	memcpy(cut, q, sizeof(q));
	cut[sizeof(q) - 8] = 9;
	assert_int_equal(edns_get_option(cut, sizeof(q), 8, &d), -1);
	assert_int_equal(edns_get_option(q, 20, 8, &d), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_from_addr),
		cmocka_unit_test(test_get_option),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
