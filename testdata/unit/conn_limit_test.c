/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/conn_limit_test.c - tcp-connection-limit counts:
 * longest netblock, the limit, 0, give back, bad lines. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "services/conn_limit.h"
#include "util/config_file.h"
#include "util/net_help.h"

/* A config with only the tcp-connection-limit lines (NULL ended pairs). */
static void
cfg_init(struct config_file* cfg, struct config_str2list* items,
	const char* const* lines)
{
	size_t i;
	memset(cfg, 0, sizeof(*cfg));
	for(i = 0; lines[2*i]; i++) {
		items[i].str = (char*)lines[2*i];
		items[i].str2 = (char*)lines[2*i+1];
		items[i].next = lines[2*i+2] ? &items[i+1] : NULL;
	}
	cfg->tcp_conn_limits = i ? &items[0] : NULL;
}

static enum conn_limit_outcome
take(struct conn_limit* cl, const char* ip, struct conn_limit_entry** e)
{
	struct sockaddr_storage a;
	socklen_t len;
	if(!ipstrtoaddr(ip, 12345, &a, &len))
		fail_msg("bad test address %s", ip);
	*e = NULL;
	return conn_limit_take(cl, &a, len, e);
}

static void
test_none(void** state)
{
	struct config_file cfg;
	struct config_str2list items[1];
	const char* lines[] = { NULL, NULL };
	struct conn_limit* cl = (void*)1;
	(void)state;
	cfg_init(&cfg, items, lines);
	assert_int_equal(conn_limit_create(&cfg, &cl), 1);
	assert_null(cl);
}

static void
test_longest_match_and_limit(void** state)
{
	struct config_file cfg;
	struct config_str2list items[5];
	const char* lines[] = { "10.0.0.0/8", "1", "10.1.0.0/16", "2",
		"10.1.2.3", "0", "10.1.0.0/16", "9", "2001:db8::/32", "1",
		NULL, NULL };
	struct conn_limit* cl;
	struct conn_limit_entry *a, *b, *c, *d, *e, *x;
	(void)state;
	cfg_init(&cfg, items, lines);
	assert_int_equal(conn_limit_create(&cfg, &cl), 1);
	assert_non_null(cl);
	/* no netblock: not counted */
	assert_int_equal(take(cl, "192.0.2.1", &x), CONN_LIMIT_FREE);
	assert_null(x);
	/* /32 with 0: nothing at all */
	assert_int_equal(take(cl, "10.1.2.3", &x), CONN_LIMIT_OVER);
	/* the /16 (its first line: 2), not the /8's 1 */
	assert_int_equal(take(cl, "10.1.9.9", &a), CONN_LIMIT_COUNTED);
	assert_int_equal(take(cl, "10.1.8.8", &b), CONN_LIMIT_COUNTED);
	assert_int_equal(take(cl, "10.1.7.7", &x), CONN_LIMIT_OVER);
	/* the /8 counts on its own */
	assert_int_equal(take(cl, "10.2.0.1", &c), CONN_LIMIT_COUNTED);
	assert_int_equal(take(cl, "10.2.0.2", &x), CONN_LIMIT_OVER);
	assert_int_equal(take(cl, "2001:db8::5", &d), CONN_LIMIT_COUNTED);
	assert_int_equal(take(cl, "2001:db8::6", &x), CONN_LIMIT_OVER);
	/* the table lives while connections hold it (a reload) */
	conn_limit_release(cl);
	/* a close gives the room back */
	conn_limit_give(a);
	assert_int_equal(take(cl, "10.1.7.7", &e), CONN_LIMIT_COUNTED);
	assert_int_equal(take(cl, "10.1.7.7", &x), CONN_LIMIT_OVER);
	/* the last give frees the table (ASan builds check) */
	conn_limit_give(b);
	conn_limit_give(c);
	conn_limit_give(d);
	conn_limit_give(e);
}

static void
test_bad_lines(void** state)
{
	struct config_file cfg;
	struct config_str2list items[1];
	const char* bad_limit[] = { "10.0.0.0/8", "-1", NULL, NULL };
	const char* bad_block[] = { "10.0.0.0/99", "1", NULL, NULL };
	const char* no_number[] = { "10.0.0.0/8", "x", NULL, NULL };
	struct conn_limit* cl;
	(void)state;
	cfg_init(&cfg, items, bad_limit);
	assert_int_equal(conn_limit_create(&cfg, &cl), 0);
	cfg_init(&cfg, items, bad_block);
	assert_int_equal(conn_limit_create(&cfg, &cl), 0);
	cfg_init(&cfg, items, no_number);
	assert_int_equal(conn_limit_create(&cfg, &cl), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_longest_match_and_limit),
		cmocka_unit_test(test_bad_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
