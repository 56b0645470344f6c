/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/acl_test.c - access-control longest-prefix matching. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "daemon/acl_list.h"
#include "services/view.h"
#include "util/config_file.h"
#include "util/net_help.h"

/* A config with only the access-control lines given (NULL ended pairs). */
static void
cfg_init(struct config_file* cfg, struct config_str2list* items,
	const char* const* lines)
{
	size_t i;
	memset(cfg, 0, sizeof(*cfg));
	cfg->do_ip6 = 1;
	for(i = 0; lines[2*i]; i++) {
		items[i].str = (char*)lines[2*i];
		items[i].str2 = (char*)lines[2*i+1];
		items[i].next = lines[2*i+2] ? &items[i+1] : NULL;
	}
	cfg->acls = i ? &items[0] : NULL;
}

static enum acl_access
look(const struct acl_list* acl, const char* ip)
{
	struct sockaddr_storage a;
	socklen_t len;
	if(!ipstrtoaddr(ip, 12345, &a, &len))
		fail_msg("bad test address %s", ip);
	return acl_list_lookup(acl, &a, len);
}

static void
test_defaults(void** state)
{
	struct config_file cfg;
	struct config_str2list items[1];
	const char* lines[] = { NULL, NULL };
	struct acl_list* acl;
	(void)state;
	cfg_init(&cfg, items, lines);
	acl = acl_list_create(&cfg);
	assert_non_null(acl);
	assert_int_equal(look(acl, "127.0.0.1"), acl_allow);
	assert_int_equal(look(acl, "127.255.0.9"), acl_allow);
	assert_int_equal(look(acl, "192.0.2.1"), acl_refuse);
	assert_int_equal(look(acl, "::1"), acl_allow);
	assert_int_equal(look(acl, "::ffff:127.0.0.1"), acl_allow);
	assert_int_equal(look(acl, "::ffff:127.0.0.2"), acl_refuse);
	assert_int_equal(look(acl, "2001:db8::1"), acl_refuse);
	acl_list_delete(acl);

	/* without IPv6, Unbound has no IPv6 defaults: no match drops */
	cfg.do_ip6 = 0;
	acl = acl_list_create(&cfg);
	assert_non_null(acl);
	assert_int_equal(look(acl, "::1"), acl_deny);
	assert_int_equal(look(acl, "127.0.0.1"), acl_allow);
	acl_list_delete(acl);
}

static void
test_longest_prefix(void** state)
{
	struct config_file cfg;
	struct config_str2list items[16];
	const char* lines[] = {
		"10.0.0.0/8", "allow",
		"10.1.0.0/16", "deny",
		"10.1.2.0/24", "allow_snoop",
		"10.1.2.3", "refuse_non_local",
		"10.1.2.128/25", "deny_non_local",
		"0.0.0.0/0", "deny",
		"2001:db8::/32", "allow_setrd",
		"2001:db8:1::/48", "refuse",
		"2001:db8:1:2::/63", "allow",
		"::/0", "deny",
		"127.0.0.0/8", "refuse",
		NULL, NULL
	};
	struct acl_list* acl;
	(void)state;
	cfg_init(&cfg, items, lines);
	acl = acl_list_create(&cfg);
	assert_non_null(acl);
	assert_int_equal(look(acl, "10.9.9.9"), acl_allow);
	assert_int_equal(look(acl, "10.1.9.9"), acl_deny);
	assert_int_equal(look(acl, "10.1.2.9"), acl_allow_snoop);
	assert_int_equal(look(acl, "10.1.2.3"), acl_refuse_non_local);
	assert_int_equal(look(acl, "10.1.2.200"), acl_deny_non_local);
	assert_int_equal(look(acl, "11.0.0.1"), acl_deny);
	/* a config line replaces the default for the same netblock */
	assert_int_equal(look(acl, "127.0.0.1"), acl_refuse);
	assert_int_equal(look(acl, "2001:db8:5::1"), acl_allow_setrd);
	assert_int_equal(look(acl, "2001:db8:1:5::1"), acl_refuse);
	assert_int_equal(look(acl, "2001:db8:1:3::1"), acl_allow);
	assert_int_equal(look(acl, "2001:db8:1:2::1"), acl_allow);
	assert_int_equal(look(acl, "2001:db9::1"), acl_deny);
	/* ::1 default still applies (longer than ::/0) */
	assert_int_equal(look(acl, "::1"), acl_allow);
	acl_list_delete(acl);
}

static void
test_later_overrides(void** state)
{
	struct config_file cfg;
	struct config_str2list items[4];
	const char* lines[] = {
		"192.0.2.0/24", "allow",
		"192.0.2.0/24", "refuse",
		"192.0.2.77/24", "allow_snoop", /* host bits are masked */
		NULL, NULL
	};
	struct acl_list* acl;
	(void)state;
	cfg_init(&cfg, items, lines);
	acl = acl_list_create(&cfg);
	assert_non_null(acl);
	assert_int_equal(look(acl, "192.0.2.1"), acl_allow_snoop);
	acl_list_delete(acl);
}

static void
test_many(void** state)
{
	/* enough entries of one length to make the hash table grow */
	static struct config_str2list items[600];
	static char names[600][32];
	struct config_file cfg;
	struct acl_list* acl;
	int i;
	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	cfg.do_ip6 = 1;
	for(i = 0; i < 600; i++) {
		snprintf(names[i], sizeof(names[i]), "10.%d.%d.0/24",
			i / 256, i % 256);
		items[i].str = names[i];
		items[i].str2 = (char*)(i % 2 ? "allow" : "deny");
		items[i].next = i < 599 ? &items[i+1] : NULL;
	}
	cfg.acls = &items[0];
	acl = acl_list_create(&cfg);
	assert_non_null(acl);
	for(i = 0; i < 600; i++) {
		char ip[32];
		snprintf(ip, sizeof(ip), "10.%d.%d.7", i / 256, i % 256);
		assert_int_equal(look(acl, ip), i % 2 ? acl_allow : acl_deny);
	}
	assert_int_equal(look(acl, "10.3.0.1"), acl_refuse);
	acl_list_delete(acl);
}

static void
test_errors(void** state)
{
	struct config_file cfg;
	struct config_str2list items[2];
	const char* bad_action[] = { "10.0.0.0/8", "allow_all", NULL, NULL };
	const char* bad_block[] = { "10.0.0.0/33", "allow", NULL, NULL };
	const char* bad_addr[] = { "10.0.0.x", "allow", NULL, NULL };
	(void)state;
	cfg_init(&cfg, items, bad_action);
	assert_null(acl_list_create(&cfg));
	cfg_init(&cfg, items, bad_block);
	assert_null(acl_list_create(&cfg));
	cfg_init(&cfg, items, bad_addr);
	assert_null(acl_list_create(&cfg));
	assert_int_equal(acl_parse_action("allow_snoop"), acl_allow_snoop);
	assert_int_equal(acl_parse_action("allow_cookie"), acl_allow_cookie);
	assert_string_equal(acl_action_str(acl_allow_cookie), "allow_cookie");
	assert_int_equal(acl_parse_action("refuse_non_local"),
		acl_refuse_non_local);
	assert_int_equal(acl_parse_action("Allow"), -1);
	assert_string_equal(acl_action_str(acl_deny_non_local),
		"deny_non_local");
}

static void
test_bad_lookup(void** state)
{
	struct acl_list* acl;
	struct config_file cfg;
	struct config_str2list items[1];
	const char* lines[] = { NULL, NULL };
	struct sockaddr_storage a;
	(void)state;
	cfg_init(&cfg, items, lines);
	acl = acl_list_create(&cfg);
	memset(&a, 0, sizeof(a));
	a.ss_family = AF_UNIX;
	assert_int_equal(acl_list_lookup(acl, &a, sizeof(a)), acl_deny);
	acl_list_delete(acl);
}

/* access-control-view and -tag: the policy comes with the match of
 * exactly that netblock (allow when it has no access-control line), not
 * with a wider or narrower one. */
static void
test_view_and_tags(void** state)
{
	struct config_file cfg;
	struct config_str2list items[2], av[2], at[1];
	struct config_strlist tagdef;
	struct config_view cv;
	const char* lines[] = { "10.0.0.0/8", "refuse", "10.1.0.0/16",
		"deny", NULL, NULL };
	struct views* vs;
	struct acl_list* acl;
	struct sockaddr_storage a;
	socklen_t len;
	struct acl_match m;
	(void)state;
	cfg_init(&cfg, items, lines);
	memset(&cv, 0, sizeof(cv));
	cv.name = "v1";
	cfg.views = &cv;
	av[0].str = "10.1.0.0/16"; av[0].str2 = "v1"; av[0].next = &av[1];
	av[1].str = "10.2.0.0/16"; av[1].str2 = "v1"; av[1].next = NULL;
	cfg.acl_view = av;
	tagdef.str = "t0 t1"; tagdef.next = NULL;
	cfg.define_tags = &tagdef;
	at[0].str = "10.2.0.0/16"; at[0].str2 = "t1"; at[0].next = NULL;
	cfg.acl_tags = at;
	assert_non_null(vs = views_create(&cfg));
	assert_non_null(acl = acl_list_create_views(&cfg, vs));
	/* the access-control line's action stays, the view is added */
	assert_true(ipstrtoaddr("10.1.2.3", 53, &a, &len));
	m = acl_list_match(acl, &a, len);
	assert_int_equal(m.action, acl_deny);
	assert_non_null(m.policy);
	assert_ptr_equal(m.policy->view, views_find(vs, "v1"));
	assert_true(m.policy->tags == 0);
	/* no access-control line: allow, view and tag t1 (bit 1) */
	assert_true(ipstrtoaddr("10.2.0.1", 53, &a, &len));
	m = acl_list_match(acl, &a, len);
	assert_int_equal(m.action, acl_allow);
	assert_non_null(m.policy);
	assert_true(m.policy->tags == 2);
	/* the wider netblock has none */
	assert_true(ipstrtoaddr("10.3.0.1", 53, &a, &len));
	m = acl_list_match(acl, &a, len);
	assert_int_equal(m.action, acl_refuse);
	assert_null(m.policy);
	acl_list_delete(acl);
	/* an unknown view name, an unknown tag: errors */
	av[1].str2 = "nosuch";
	assert_null(acl_list_create_views(&cfg, vs));
	av[1].str2 = "v1";
	at[0].str2 = "t9";
	assert_null(acl_list_create_views(&cfg, vs));
	views_delete(vs);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_longest_prefix),
		cmocka_unit_test(test_later_overrides),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_bad_lookup),
		cmocka_unit_test(test_view_and_tags),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
