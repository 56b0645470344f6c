/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/iter_caps_test.c - the local logic of the iterator
 * hardening options: caps-exempt names, the comparison of replies in the
 * 0x20 fallback, target-fetch-policy parsing, and that the options are
 * read from a config file (in file order, not logged as unimplemented). */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ldns/ldns.h>
#include "iterator/iter_caps.h"
#include "iterator/iter_hints.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "testdata/unit/wire_name.h"
#include "testdata/unit/conf_text.h"

static void test_caps_exempt(void** state)
{
	struct config_file* cfg = conf("server:\n"
		"\tcaps-exempt: Example.COM\n"
		"\tcaps-whitelist: lb.tld2.\n"
		"\tuse-caps-for-id: yes\n");
	uint8_t* names;
	size_t n;
	(void)state;
	assert_non_null(cfg);
	assert_int_equal(cfg->use_caps_for_id, 1);
	assert_int_equal(iter_caps_exempt_create(cfg, &names, &n), 1);
	assert_int_equal((int)n, 2);
	assert_true(iter_caps_exempt_match(names, n, W("example.com.")));
	assert_true(iter_caps_exempt_match(names, n, W("www.EXAMPLE.com.")));
	assert_true(iter_caps_exempt_match(names, n, W("a.b.lb.tld2.")));
	assert_false(iter_caps_exempt_match(names, n, W("com.")));
	assert_false(iter_caps_exempt_match(names, n, W("notexample.com.")));
	assert_false(iter_caps_exempt_match(names, n, W("tld2.")));
	assert_false(iter_caps_exempt_match(NULL, 0, W("example.com.")));
	free(names);
	config_delete(cfg);
	/* none configured: nothing exempt, no memory */
	cfg = conf("server:\n\tuse-caps-for-id: yes\n");
	assert_int_equal(iter_caps_exempt_create(cfg, &names, &n), 1);
	assert_null(names);
	assert_int_equal((int)n, 0);
	config_delete(cfg);
	/* a name that does not parse */
	cfg = conf("server:\n\tcaps-exempt: bad..name\n");
	assert_non_null(cfg);
	assert_int_equal(iter_caps_exempt_create(cfg, &names, &n), 0);
	assert_null(names);
	config_delete(cfg);
}

static ldns_pkt* PKT(int rcode, const char* const* ans,
	const char* const* auth)
{
	ldns_pkt* p = ldns_pkt_new();
	assert_non_null(p);
	ldns_pkt_set_rcode(p, (uint8_t)rcode);
	for(; ans && *ans; ans++) {
		ldns_rr* rr = NULL;
		assert_int_equal(ldns_rr_new_frm_str(&rr, *ans, 3600, NULL,
			NULL), LDNS_STATUS_OK);
		ldns_pkt_push_rr(p, LDNS_SECTION_ANSWER, rr);
	}
	for(; auth && *auth; auth++) {
		ldns_rr* rr = NULL;
		assert_int_equal(ldns_rr_new_frm_str(&rr, *auth, 3600, NULL,
			NULL), LDNS_STATUS_OK);
		ldns_pkt_push_rr(p, LDNS_SECTION_AUTHORITY, rr);
	}
	return p;
}

static void test_replies_equal(void** state)
{
	static const char* a1[] = { "www.t. 300 IN A 192.0.2.1",
		"www.t. 300 IN A 192.0.2.2", NULL };
	static const char* a2[] = { "www.t. 60 IN A 192.0.2.2",
		"WWW.t. 60 IN A 192.0.2.1", NULL };   /* order, TTL, case */
	static const char* a3[] = { "www.t. 300 IN A 192.0.2.1",
		"www.t. 300 IN A 192.0.2.66", NULL };
	static const char* a4[] = { "www.t. 300 IN A 192.0.2.1", NULL };
	static const char* ns1[] = { "t. 300 IN NS ns1.t.", NULL };
	static const char* ns2[] = { "t. 300 IN NS ns2.t.", NULL };
	static const char* soa1[] = { "t. 300 IN SOA ns1.t. h.t. 1 2 3 4 5",
		NULL };
	static const char* soa2[] = { "t. 300 IN SOA ns1.t. h.t. 2 2 3 4 5",
		NULL };
	ldns_pkt* x, *y;
	(void)state;
	x = PKT(0, a1, ns1);
	y = PKT(0, a2, ns2);      /* authority of an answer is not compared */
	assert_true(iter_caps_replies_equal(x, y));
	ldns_pkt_free(y);
	y = PKT(0, a3, ns1);
	assert_false(iter_caps_replies_equal(x, y));
	ldns_pkt_free(y);
	y = PKT(0, a4, ns1);
	assert_false(iter_caps_replies_equal(x, y));
	ldns_pkt_free(y);
	y = PKT(3, a1, ns1);
	assert_false(iter_caps_replies_equal(x, y));
	ldns_pkt_free(x);
	ldns_pkt_free(y);
	/* negative answers and referrals: the authority counts */
	x = PKT(3, NULL, soa1);
	y = PKT(3, NULL, soa1);
	assert_true(iter_caps_replies_equal(x, y));
	ldns_pkt_free(y);
	y = PKT(3, NULL, soa2);
	assert_false(iter_caps_replies_equal(x, y));
	ldns_pkt_free(x);
	ldns_pkt_free(y);
	x = PKT(0, NULL, ns1);
	y = PKT(0, NULL, ns2);
	assert_false(iter_caps_replies_equal(x, y));
	ldns_pkt_free(x);
	ldns_pkt_free(y);
}

static void test_parse_tfp(void** state)
{
	int t[HINTS_MAX_TFP];
	(void)state;
	assert_int_equal(iter_hints_parse_tfp("3 2 1 0 0", t, HINTS_MAX_TFP),
		5);
	assert_int_equal(t[0], 3);
	assert_int_equal(t[2], 1);
	assert_int_equal(t[4], 0);
	assert_int_equal(iter_hints_parse_tfp(" -1\t-1 ", t, HINTS_MAX_TFP), 2);
	assert_int_equal(t[1], -1);
	assert_int_equal(iter_hints_parse_tfp("0", t, HINTS_MAX_TFP), 1);
	assert_int_equal(iter_hints_parse_tfp("", t, HINTS_MAX_TFP), 0);
	assert_int_equal(iter_hints_parse_tfp("3 x 1", t, HINTS_MAX_TFP), 0);
	assert_int_equal(iter_hints_parse_tfp("3,2", t, HINTS_MAX_TFP), 0);
	assert_int_equal(iter_hints_parse_tfp("-2", t, HINTS_MAX_TFP), 0);
	assert_int_equal(iter_hints_parse_tfp("99999999999", t, HINTS_MAX_TFP),
		0);
	assert_int_equal(iter_hints_parse_tfp("1 1 1", t, 2), 0);
}

static void test_hints_from_config(void** state)
{
	struct config_file* cfg = conf("server:\n"
		"\ttarget-fetch-policy: \"2 -1\"\n"
		"\tcaps-exempt: x.tld.\n"
		"stub-zone:\n\tname: s.tld.\n\tstub-addr: 127.0.0.6\n"
		"\tstub-prime: yes\n\tstub-no-cache: yes\n");
	struct iter_hints* h;
	const struct iter_hint* x;
	(void)state;
	assert_non_null(cfg);
	h = iter_hints_create(cfg);
	assert_non_null(h);
	assert_int_equal(h->tfp_num, 2);
	assert_int_equal(h->tfp[1], -1);
	assert_int_equal((int)h->num_caps_exempt, 1);
	x = iter_hints_lookup(h, W("www.s.tld."));
	assert_non_null(x);
	assert_true(x->prime);
	assert_true(x->no_cache);
	iter_hints_delete(h);
	config_delete(cfg);
	/* the default policy */
	cfg = conf("server:\n\tverbosity: 1\n");
	h = iter_hints_create(cfg);
	assert_non_null(h);
	assert_int_equal(h->tfp_num, 5);
	assert_int_equal(h->tfp[0], 3);
	iter_hints_delete(h);
	config_delete(cfg);
	cfg = conf("server:\n\ttarget-fetch-policy: \"1 two\"\n");
	assert_non_null(cfg);
	assert_null(iter_hints_create(cfg));
	config_delete(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_caps_exempt),
		cmocka_unit_test(test_replies_equal),
		cmocka_unit_test(test_parse_tfp),
		cmocka_unit_test(test_hints_from_config),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
