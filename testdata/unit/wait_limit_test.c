/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/wait_limit_test.c - wait-limit counts per address and
 * the wait-limit(-cookie)-netblock limits: loopback default, longest
 * netblock, a line over the default, the cookie list, bad lines. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "daemon/wait_limit.h"
#include "util/config_file.h"
#include "util/net_help.h"

static struct sockaddr_storage A;
static socklen_t ALEN;

static const struct sockaddr_storage* ip(const char* s)
{
	if(!ipstrtoaddr(s, 12345, &A, &ALEN))
		fail_msg("bad test address %s", s);
	return &A;
}

static int limit_of(struct wait_blocks* wb, const char* s, int cookie,
	int dflt)
{
	const struct sockaddr_storage* a = ip(s);
	return wait_blocks_limit(wb, a, ALEN, cookie, dflt);
}

static void test_netblocks(void** state)
{
	struct config_file cfg;
	struct config_str2list l[3], c[1];
	struct wait_blocks* wb;
	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	memset(l, 0, sizeof(l));
	memset(c, 0, sizeof(c));
	l[0].str = "10.0.0.0/8"; l[0].str2 = "7"; l[0].next = &l[1];
	l[1].str = "10.1.0.0/16"; l[1].str2 = "-1"; l[1].next = &l[2];
	l[2].str = "::1"; l[2].str2 = "3";
	c[0].str = "10.0.0.0/8"; c[0].str2 = "70";
	cfg.wait_limit_netblocks = &l[0];
	cfg.wait_limit_cookie_netblocks = &c[0];
	wb = wait_blocks_create(&cfg);
	assert_non_null(wb);
	/* outside every netblock: wait-limit (the default given) */
	assert_int_equal(limit_of(wb, "192.0.2.1", 0, 1000), 1000);
	assert_int_equal(limit_of(wb, "192.0.2.1", 1, 10000), 10000);
	/* the loopback's default -1 */
	assert_int_equal(limit_of(wb, "127.0.0.1", 0, 1000), -1);
	assert_int_equal(limit_of(wb, "127.9.9.9", 1, 10000), -1);
	/* a line over the default */
	assert_int_equal(limit_of(wb, "::1", 0, 1000), 3);
	assert_int_equal(limit_of(wb, "::1", 1, 10000), -1);
	/* longest netblock */
	assert_int_equal(limit_of(wb, "10.2.3.4", 0, 1000), 7);
	assert_int_equal(limit_of(wb, "10.1.3.4", 0, 1000), -1);
	assert_int_equal(limit_of(wb, "10.1.3.4", 1, 10000), 70);
	wait_blocks_delete(wb);
	/* a bad netblock: no table */
	l[2].str = "not-an-address";
	assert_null(wait_blocks_create(&cfg));
}

static void test_counts(void** state)
{
	struct wait_limit* wl = wait_limit_create();
	struct sockaddr_storage a, b;
	socklen_t alen, blen;
	(void)state;
	assert_true(ipstrtoaddr("192.0.2.1", 1, &a, &alen));
	assert_true(ipstrtoaddr("192.0.2.2", 1, &b, &blen));
	assert_true(wait_limit_take(wl, &a, alen, 2));
	assert_true(wait_limit_take(wl, &a, alen, 2));
	assert_false(wait_limit_take(wl, &a, alen, 2));
	assert_true(wait_limit_take(wl, &b, blen, 2));
	wait_limit_give(wl, &a, alen);
	assert_true(wait_limit_take(wl, &a, alen, 2));
	assert_int_equal(wait_limit_count(wl), 2);
	wait_limit_delete(wl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_netblocks),
		cmocka_unit_test(test_counts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
