/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/net_help_test.c - address text parsing and formatting. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include <arpa/inet.h>
#include "util/net_help.h"

struct ext_case {
	const char* str;
	int ok;
	const char* addr;  /* expected text form */
	int port;
};

static void
test_extstrtoaddr(void** state)
{
	static const struct ext_case cases[] = {
		{"1.2.3.4", 1, "1.2.3.4", 53},
		{"1.2.3.4@5353", 1, "1.2.3.4", 5353},
		{"::1", 1, "::1", 53},
		{"::1@5353", 1, "::1", 5353},
		{"fe80::1%1", 1, "fe80::1", 53},
		{"2001:db8::a:b@0", 1, "2001:db8::a:b", 0},
		{"1.2.3.4@65536", 0, NULL, 0},
		{"1.2.3.4@", 0, NULL, 0},
		{"1.2.3.4@x", 0, NULL, 0},
		{"1.2.3.4@-1", 0, NULL, 0},
		{"1.2.3", 0, NULL, 0},
		{"1.2.3.256", 0, NULL, 0},
		{"", 0, NULL, 0},
		{"foo", 0, NULL, 0},
		{"::g", 0, NULL, 0},
		{"1.2.3.4/8", 0, NULL, 0},
	};
	size_t i;
	(void)state;
	for(i = 0; i < sizeof(cases)/sizeof(cases[0]); i++) {
		struct sockaddr_storage a;
		socklen_t len = 0;
		char buf[128];
		int r = extstrtoaddr(cases[i].str, 53, &a, &len);
		if(r != cases[i].ok)
			fail_msg("extstrtoaddr(%s) = %d", cases[i].str, r);
		if(!r)
			continue;
		addr_to_str(&a, len, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].addr);
		assert_int_equal(addr_port(&a), cases[i].port);
		assert_int_equal(addr_is_ip6(&a, len),
			strchr(cases[i].addr, ':') != NULL);
	}
}

struct nb_case {
	const char* str;
	int ok;
	const char* addr;
	int net;
};

static void
test_netblock(void** state)
{
	static const struct nb_case cases[] = {
		{"10.0.0.0/8", 1, "10.0.0.0", 8},
		{"10.1.2.3/8", 1, "10.0.0.0", 8},
		{"10.1.2.3/0", 1, "0.0.0.0", 0},
		{"10.1.2.3/31", 1, "10.1.2.2", 31},
		{"10.1.2.3", 1, "10.1.2.3", 32},
		{"10.1.2.3/32", 1, "10.1.2.3", 32},
		{"10.1.2.3/33", 0, NULL, 0},
		{"10.1.2.3/-1", 0, NULL, 0},
		{"10.1.2.3/", 0, NULL, 0},
		{"10.1.2.3/a", 0, NULL, 0},
		{"::1", 1, "::1", 128},
		{"::0/0", 1, "::", 0},
		{"2001:db8:ffff::1/33", 1, "2001:db8:8000::", 33},
		{"fe80::/10", 1, "fe80::", 10},
		{"::ffff:127.0.0.1", 1, "::ffff:127.0.0.1", 128},
		{"::1/129", 0, NULL, 0},
		{"::1/128", 1, "::1", 128},
		{"bogus/8", 0, NULL, 0},
	};
	size_t i;
	(void)state;
	for(i = 0; i < sizeof(cases)/sizeof(cases[0]); i++) {
		struct sockaddr_storage a;
		socklen_t len = 0;
		int net = -1;
		char buf[128];
		int r = netblockstrtoaddr(cases[i].str, 53, &a, &len, &net);
		if(r != cases[i].ok)
			fail_msg("netblockstrtoaddr(%s) = %d", cases[i].str, r);
		if(!r)
			continue;
		addr_to_str(&a, len, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].addr);
		assert_int_equal(net, cases[i].net);
	}
}

static void
test_cmp_and_netblock(void** state)
{
	struct sockaddr_storage a, b, blk;
	socklen_t al, bl, kl;
	int net;
	(void)state;
	assert_true(ipstrtoaddr("192.0.2.1", 53, &a, &al));
	assert_true(ipstrtoaddr("192.0.2.1", 53, &b, &bl));
	assert_int_equal(sockaddr_cmp(&a, al, &b, bl), 0);
	assert_true(ipstrtoaddr("192.0.2.1", 54, &b, &bl));
	assert_true(sockaddr_cmp(&a, al, &b, bl) < 0);
	assert_true(ipstrtoaddr("192.0.2.2", 53, &b, &bl));
	assert_true(sockaddr_cmp(&a, al, &b, bl) < 0);
	assert_true(ipstrtoaddr("::1", 53, &b, &bl));
	assert_true(sockaddr_cmp(&a, al, &b, bl) != 0);

	assert_true(netblockstrtoaddr("192.0.2.0/24", 53, &blk, &kl, &net));
	assert_true(addr_in_netblock(&a, al, &blk, kl, net));
	assert_true(netblockstrtoaddr("192.0.3.0/24", 53, &blk, &kl, &net));
	assert_false(addr_in_netblock(&a, al, &blk, kl, net));
	assert_true(netblockstrtoaddr("192.0.0.0/22", 53, &blk, &kl, &net));
	assert_true(addr_in_netblock(&a, al, &blk, kl, net));
	/* families never match each other */
	assert_true(netblockstrtoaddr("::/0", 53, &blk, &kl, &net));
	assert_false(addr_in_netblock(&a, al, &blk, kl, net));

	assert_true(ipstrtoaddr("2001:db8::1", 53, &a, &al));
	assert_true(netblockstrtoaddr("2001:db8::/32", 53, &blk, &kl, &net));
	assert_true(addr_in_netblock(&a, al, &blk, kl, net));
	addr_mask(&a, al, 16);
	{
		char buf[64];
		addr_to_str(&a, al, buf, sizeof(buf));
		assert_string_equal(buf, "2001::");
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_extstrtoaddr),
		cmocka_unit_test(test_netblock),
		cmocka_unit_test(test_cmp_and_netblock),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
