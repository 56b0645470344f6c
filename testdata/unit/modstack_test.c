/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/modstack_test.c - module-config parsing (services/modstack.h):
 * Unbound's limit of 16 modules and its texts, the iterator last; and the
 * stack's start-up: each module's global state made once, its flags. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "services/modstack.h"
#include "util/config_file.h"

static int parse(const char* conf, int* n, char* err, size_t len)
{
	const struct module_func_block* mods[MODULE_MAX];
	err[0] = 0;
	return modstack_parse(conf, mods, n, err, len);
}

/* "validator " k times, then "iterator": k + 1 modules */
static void stack_of(char* buf, size_t len, int k)
{
	size_t l = 0;
	int i;
	buf[0] = 0;
	for(i = 0; i < k; i++)
		l += (size_t)snprintf(buf + l, len - l, "validator ");
	snprintf(buf + l, len - l, "iterator");
}

static void test_parse_counts(void** state)
{
	char conf[512], err[256];
	int n;
	(void)state;
	assert_int_equal(MODULE_MAX, 16);
	assert_true(parse(NULL, &n, err, sizeof(err)));   /* the default */
	assert_int_equal(n, 2);
	assert_true(parse("  iterator\t", &n, err, sizeof(err)));
	assert_int_equal(n, 1);
	stack_of(conf, sizeof(conf), 15);
	assert_true(parse(conf, &n, err, sizeof(err)));
	assert_int_equal(n, 16);
	stack_of(conf, sizeof(conf), 16);
	assert_false(parse(conf, &n, err, sizeof(err)));
	assert_string_equal(err, "too many modules (17 max 16)");
	assert_false(parse("", &n, err, sizeof(err)));
	assert_string_equal(err, "no modules specified");
	assert_false(parse(" \t", &n, err, sizeof(err)));
	assert_string_equal(err, "no modules specified");
}

static void test_parse_unknown(void** state)
{
	static const char* absent[] = { "python", "dynlib", "ipsecmod",
		"ipset", "dnscrypt", "iteratorx" };
	char conf[128], err[256], want[256];
	size_t i;
	int n;
	(void)state;
	for(i = 0; i < sizeof(absent) / sizeof(absent[0]); i++) {
		snprintf(conf, sizeof(conf), "validator %s iterator",
			absent[i]);
		assert_false(parse(conf, &n, err, sizeof(err)));
		snprintf(want, sizeof(want), "Unknown value in module-config, "
			"module: '%s'. This module is not present (not "
			"compiled in), See the list of linked modules with "
			"unbound -V", absent[i]);
		assert_string_equal(err, want);
	}
	assert_non_null(modstack_find("validator"));
	assert_non_null(modstack_find("iterator"));
	assert_non_null(modstack_find("dns64"));
	assert_non_null(modstack_find("subnetcache"));
	assert_non_null(modstack_find("respip"));
}

static void test_parse_iterator_last(void** state)
{
	char err[256];
	int n;
	(void)state;
	assert_false(parse("iterator validator", &n, err, sizeof(err)));
	assert_string_equal(err, "the iterator must be the last module");
	assert_false(parse("validator", &n, err, sizeof(err)));
	assert_true(parse("validator iterator", &n, err, sizeof(err)));
	/* compat: unbound-1.17: dns64's two stacks */
	assert_true(parse("dns64 validator iterator", &n, err, sizeof(err)));
	assert_int_equal(n, 3);
	assert_true(parse("dns64 iterator", &n, err, sizeof(err)));
	assert_int_equal(n, 2);
}

/* The stack's start-up: the validator's global state (its key cache),
 * its flag; a worker's env gets both; flush and statistics reach it. */
static void test_startup(void** state)
{
	struct config_file* cfg = config_create();
	struct modstack st;
	struct module_cache_info ci;
	(void)state;
	assert_non_null(cfg);
	assert_true(modstack_startup(&st, cfg));   /* validator iterator */
	assert_int_equal(st.num, 2);
	assert_int_equal(st.started, 2);
	assert_true(st.validates);
	assert_false(st.query_before_cache);
	assert_non_null(st.global[0]);             /* the key cache */
	assert_null(st.global[1]);                 /* the iterator: none */
	assert_true(modstack_get_mem(&st, "validator") > 0);
	assert_int_equal(modstack_get_mem(&st, "iterator"), 0);
	assert_int_equal(modstack_get_mem(&st, "respip"), 0);
	modstack_cache_info(&st, &ci);
	assert_int_equal(ci.key_count, 0);
	assert_int_equal(modstack_flush(&st, (const uint8_t*)"",
		MODULE_FLUSH_ZONE), 0);
	modstack_destartup(&st);
	assert_int_equal(st.started, 0);
	assert_null(st.global[0]);

	free(cfg->module_conf);
	cfg->module_conf = strdup("iterator");
	assert_true(modstack_startup(&st, cfg));
	assert_false(st.validates);
	assert_int_equal(modstack_get_mem(&st, "validator"), 0);
	modstack_destartup(&st);

	/* respip in the stack: the hit path's one flag */
	free(cfg->module_conf);
	cfg->module_conf = strdup("respip validator iterator");
	assert_true(modstack_startup(&st, cfg));
	assert_true(st.query_before_cache);
	modstack_destartup(&st);

	/* cachedb: its startup fails on an unknown backend */
	free(cfg->module_conf);
	cfg->module_conf = strdup("cachedb iterator");
	free(cfg->cachedb_backend);
	cfg->cachedb_backend = strdup("nosuch");
	assert_false(modstack_startup(&st, cfg));
	assert_int_equal(st.started, 0);
	free(cfg->cachedb_backend);
	cfg->cachedb_backend = strdup("testframe");
	assert_true(modstack_startup(&st, cfg));
	assert_non_null(st.global[0]);
	assert_true(modstack_get_mem(&st, "cachedb") > 0);
	modstack_destartup(&st);
	config_delete(cfg);
}

/* compat: unbound-1.17: response-ip needs the respip module */
static void test_needs_respip(void** state)
{
	struct config_file* cfg = config_create();
	const struct module_func_block* mods[MODULE_MAX];
	char err[256];
	int n;
	(void)state;
	assert_non_null(cfg);
	cfg->respip_actions = calloc(1, sizeof(*cfg->respip_actions));
	assert_non_null(cfg->respip_actions);
	cfg->respip_actions->str = strdup("192.0.2.1/32");
	cfg->respip_actions->str2 = strdup("deny");
	assert_true(modstack_parse("validator iterator", mods, &n, err,
		sizeof(err)));
	assert_false(modstack_check_needs(cfg, mods, n, err, sizeof(err)));
	assert_string_equal(err, "response-ip options require respip module");
	assert_true(modstack_parse("respip validator iterator", mods, &n, err,
		sizeof(err)));
	assert_true(modstack_check_needs(cfg, mods, n, err, sizeof(err)));
	config_delete(cfg);
}

/* compat: unbound-1.17: a view's response-ip needs it too */
static void test_view_needs_respip(void** state)
{
	struct config_file* cfg = config_create();
	const struct module_func_block* mods[MODULE_MAX];
	char err[256];
	int n;
	(void)state;
	assert_non_null(cfg);
	cfg->views = calloc(1, sizeof(*cfg->views));
	assert_non_null(cfg->views);
	cfg->views->name = strdup("v");
	cfg->views->respip_actions = calloc(1,
		sizeof(*cfg->views->respip_actions));
	assert_non_null(cfg->views->respip_actions);
	cfg->views->respip_actions->str = strdup("192.0.2.1/32");
	cfg->views->respip_actions->str2 = strdup("deny");
	assert_true(modstack_parse("validator iterator", mods, &n, err,
		sizeof(err)));
	assert_false(modstack_check_needs(cfg, mods, n, err, sizeof(err)));
	assert_string_equal(err, "response-ip options require respip module");
	assert_true(modstack_parse("respip iterator", mods, &n, err,
		sizeof(err)));
	assert_true(modstack_check_needs(cfg, mods, n, err, sizeof(err)));
	config_delete(cfg);
}

/* answer_query stubs: each counts its calls; "keep" passes, "answer"
 * writes one byte */
static int keep_calls, answer_calls;

static enum module_reply_verdict keep_query(struct module_env* env, int id,
	const struct module_reply_client* client, uint8_t* pkt, size_t* len,
	size_t cap)
{
	(void)env; (void)id; (void)client; (void)pkt; (void)len; (void)cap;
	keep_calls++;
	return MODULE_REPLY_KEEP;
}

static enum module_reply_verdict answer_stub(struct module_env* env, int id,
	const struct module_reply_client* client, uint8_t* pkt, size_t* len,
	size_t cap)
{
	(void)env; (void)id; (void)client; (void)cap;
	answer_calls++;
	pkt[0] = 0xaa;
	*len = 1;
	return MODULE_REPLY_CHANGED;
}

/* The hook tests' modules: plain has no hooks, keep's hook passes, stub's
 * is the test's; env and client zeroed, the call counts at 0. The tests
 * put them in env.mods in the order they need. */
struct hook_mods {
	struct module_func_block plain, keep, stub;
	struct module_env env;
	struct module_reply_client cl;
};

typedef enum module_reply_verdict reply_hook(struct module_env* env, int id,
	const struct module_reply_client* client, uint8_t* pkt, size_t* len,
	size_t cap);

/* answer: the hooks are answer_query; else filter_reply */
static void hook_mods_init(struct hook_mods* m, int answer, reply_hook* stub)
{
	memset(m, 0, sizeof(*m));
	if(answer) {
		m->keep.answer_query = keep_query;
		m->stub.answer_query = stub;
	} else {
		m->keep.filter_reply = keep_query;
		m->stub.filter_reply = stub;
	}
	keep_calls = answer_calls = 0;
}

/* modstack_answer_query: top first, the first module that answers (or
 * drops) decides, those below are not asked; none: KEEP, pkt as it was */
static void test_answer_query(void** state)
{
	struct hook_mods m;
	uint8_t pkt[4] = { 1, 2, 3, 4 };
	size_t len = sizeof(pkt);
	(void)state;
	hook_mods_init(&m, 1, answer_stub);
	m.env.mods[0] = &m.plain;
	m.env.mods[1] = &m.keep;
	m.env.num_modules = 2;
	assert_int_equal(modstack_answer_query(&m.env, &m.cl, pkt, &len,
		sizeof(pkt)), MODULE_REPLY_KEEP);
	assert_int_equal(len, sizeof(pkt));
	assert_int_equal(pkt[0], 1);
	assert_int_equal(keep_calls, 1);
	m.env.mods[0] = &m.stub;
	m.env.mods[2] = &m.keep;
	m.env.num_modules = 3;
	assert_int_equal(modstack_answer_query(&m.env, &m.cl, pkt, &len,
		sizeof(pkt)), MODULE_REPLY_CHANGED);
	assert_int_equal(len, 1);
	assert_int_equal(pkt[0], 0xaa);
	assert_int_equal(answer_calls, 1);
	assert_int_equal(keep_calls, 1);   /* not asked after the answer */
	/* respip has the hook (RPZ triggers before the cache) */
	assert_non_null(modstack_find("respip")->answer_query);
	assert_null(modstack_find("iterator")->answer_query);
}

static enum module_reply_verdict match_stub(struct module_env* env, int id,
	const struct module_reply_client* client, uint8_t* pkt, size_t* len,
	size_t cap)
{
	(void)env; (void)id; (void)pkt; (void)len; (void)cap;
	answer_calls++;
	return client->search_only ? MODULE_REPLY_MATCHED : MODULE_REPLY_KEEP;
}

/* modstack_filter_reply on a search_only reply: the first module that
 * matches decides (the merged CNAME target is stripped), those below
 * are not asked; without search_only the stub keeps it and all are */
static void test_filter_search_only(void** state)
{
	struct hook_mods m;
	uint8_t pkt[4] = { 1, 2, 3, 4 };
	size_t len = sizeof(pkt);
	(void)state;
	hook_mods_init(&m, 0, match_stub);
	m.env.mods[0] = &m.stub;
	m.env.mods[1] = &m.keep;
	m.env.num_modules = 2;
	assert_int_equal(modstack_filter_reply(&m.env, &m.cl, pkt, &len,
		sizeof(pkt)), MODULE_REPLY_KEEP);
	assert_int_equal(keep_calls, 1);
	m.cl.search_only = 1;
	assert_int_equal(modstack_filter_reply(&m.env, &m.cl, pkt, &len,
		sizeof(pkt)), MODULE_REPLY_MATCHED);
	assert_int_equal(answer_calls, 2);
	assert_int_equal(keep_calls, 1);   /* not asked after the match */
	assert_int_equal(len, sizeof(pkt));
	assert_int_equal(pkt[0], 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_counts),
		cmocka_unit_test(test_parse_unknown),
		cmocka_unit_test(test_parse_iterator_last),
		cmocka_unit_test(test_startup),
		cmocka_unit_test(test_needs_respip),
		cmocka_unit_test(test_view_needs_respip),
		cmocka_unit_test(test_answer_query),
		cmocka_unit_test(test_filter_search_only),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
