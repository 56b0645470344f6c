/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/respip_test.c - the respip module's own logic: a rule set
 * from config lists (respip/respip_set.h: longest-prefix match, Unbound's
 * checks of response-ip-data) and each action on a wire reply
 * (respip/respip_rewrite.h: CNAMEs before the address kept, the rest
 * replaced, OPT kept, AD cleared). */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "respip/respip_set.h"
#include "respip/respip_rewrite.h"
#include "util/config_file.h"

static struct config_str2list* add(struct config_str2list** l,
	const char* a, const char* b)
{
	struct config_str2list* n = calloc(1, sizeof(*n)), **p = l;
	assert_non_null(n);
	n->str = strdup(a);
	n->str2 = strdup(b);
	while(*p)
		p = &(*p)->next;
	*p = n;
	return n;
}

static void free_list(struct config_str2list* l)
{
	while(l) {
		struct config_str2list* n = l->next;
		free(l->str);
		free(l->str2);
		free(l);
		l = n;
	}
}

static uint8_t v4(int a, int b, int c, int d, uint8_t* o)
{
	o[0] = (uint8_t)a; o[1] = (uint8_t)b; o[2] = (uint8_t)c;
	o[3] = (uint8_t)d;
	return 0;
}

static void test_longest_match(void** state)
{
	struct config_str2list* act = NULL;
	struct respip_set* s;
	const struct respip_rule* r;
	uint8_t a[16];
	(void)state;
	add(&act, "10.0.0.0/8", "always_refuse");
	add(&act, "10.1.0.0/16", "always_nxdomain");
	add(&act, "10.1.2.3", "deny");
	add(&act, "2001:db8::/32", "always_refuse");
	add(&act, "2001:db8:1::/48", "redirect");
	s = respip_set_create(act, NULL);
	assert_non_null(s);
	v4(10, 1, 2, 3, a);
	assert_int_equal(respip_set_lookup(s, a, 4)->action, RESPIP_DENY);
	v4(10, 1, 2, 4, a);
	assert_int_equal(respip_set_lookup(s, a, 4)->action,
		RESPIP_ALWAYS_NXDOMAIN);
	v4(10, 200, 0, 1, a);
	r = respip_set_lookup(s, a, 4);
	assert_int_equal(r->action, RESPIP_ALWAYS_REFUSE);
	assert_int_equal(r->net, 8);
	v4(11, 0, 0, 1, a);
	assert_null(respip_set_lookup(s, a, 4));
	memset(a, 0, 16);
	a[0] = 0x20; a[1] = 0x01; a[2] = 0x0d; a[3] = 0xb8; a[5] = 1;
	assert_int_equal(respip_set_lookup(s, a, 16)->action,
		RESPIP_REDIRECT);
	a[5] = 2;
	assert_int_equal(respip_set_lookup(s, a, 16)->action,
		RESPIP_ALWAYS_REFUSE);
	/* an IPv4 address is not looked up among IPv6 rules */
	v4(0x20, 0x01, 0x0d, 0xb8, a);
	assert_null(respip_set_lookup(s, a, 4));
	respip_set_delete(s);
	free_list(act);
}

/* compat: unbound-1.17: the data checks (logged; the set refused) */
static void test_data_checks(void** state)
{
	struct config_str2list* act = NULL, *data = NULL;
	struct respip_set* s;
	(void)state;
	add(&act, "192.0.2.1", "redirect");
	add(&act, "192.0.2.2", "deny");
	add(&data, "192.0.2.1", "A 10.0.0.1");
	add(&data, "192.0.2.1", "A 10.0.0.2");
	s = respip_set_create(act, data);
	assert_non_null(s);
	assert_int_equal(s->v4.rules[0].data_count, 2);
	respip_set_delete(s);
	free_list(data);
	data = NULL;
	/* not redirect; no node; wrong family; CNAME beside A; bad text */
	add(&data, "192.0.2.2", "A 10.0.0.1");
	assert_null(respip_set_create(act, data));
	free_list(data);
	data = NULL;
	add(&data, "192.0.2.3", "A 10.0.0.1");
	assert_null(respip_set_create(act, data));
	free_list(data);
	data = NULL;
	add(&data, "192.0.2.1", "AAAA ::1");
	assert_null(respip_set_create(act, data));
	free_list(data);
	data = NULL;
	add(&data, "192.0.2.1", "A 10.0.0.1");
	add(&data, "192.0.2.1", "CNAME x.example.");
	assert_null(respip_set_create(act, data));
	free_list(data);
	data = NULL;
	add(&data, "192.0.2.1", "A not-an-address");
	assert_null(respip_set_create(act, data));
	free_list(data);
	free_list(act);
	act = NULL;
	add(&act, "192.0.2.300", "deny");
	assert_null(respip_set_create(act, NULL));
	free_list(act);
	act = NULL;
	add(&act, "192.0.2.1", "always_null");
	assert_null(respip_set_create(act, NULL));
	free_list(act);
	assert_true(respip_action_configurable("inform_deny"));
	assert_false(respip_action_configurable("always_null"));
	assert_false(respip_action_configurable("always_nodata"));
}

/* www.example. A: CNAME t.example., t.example. A 192.0.2.1 and
 * 192.0.2.5, an SOA in authority, OPT in additional; AD set. */
static size_t reply(uint8_t* p, uint16_t qtype)
{
	static const uint8_t head[] = {
		0x12, 0x34, 0x81, 0xa0, 0, 1, 0, 3, 0, 1, 0, 1,
		3, 'w', 'w', 'w', 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 0,
		0, 1, 0, 1,
		/* CNAME: owner a pointer to the question */
		0xc0, 12, 0, 5, 0, 1, 0, 0, 0, 60, 0, 4,
		1, 't', 0xc0, 16,
		/* t.example. A 192.0.2.1 */
		1, 't', 0xc0, 16, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4,
		192, 0, 2, 1,
		/* A 192.0.2.5, owner a pointer to the first */
		0xc0, 41, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 192, 0, 2, 5,
		/* SOA-ish record in authority (rdata opaque here) */
		0xc0, 16, 0, 6, 0, 1, 0, 0, 0, 60, 0, 2, 0, 0,
		/* OPT */
		0, 0, 41, 0x04, 0xd0, 0, 0, 0x80, 0, 0, 0 };
	memcpy(p, head, sizeof(head));
	p[26] = (uint8_t)qtype;
	return sizeof(head);
}

static struct respip_set* one_rule(const char* block, const char* action,
	const char* data)
{
	struct config_str2list* act = NULL, *dl = NULL;
	struct respip_set* s;
	add(&act, block, action);
	if(data)
		add(&dl, block, data);
	s = respip_set_create(act, dl);
	free_list(act);
	free_list(dl);
	assert_non_null(s);
	return s;
}

static void test_rewrite_actions(void** state)
{
	uint8_t in[512], out[512];
	size_t len = reply(in, 1), n = 0;
	const struct respip_rule* r;
	struct respip_set* s;
	(void)state;
	/* no match: passes */
	s = one_rule("192.0.2.9", "deny", NULL);
	assert_int_equal(respip_rewrite(s, in, len, out, sizeof(out), &n, &r),
		RESPIP_PASS);
	assert_null(r);
	respip_set_delete(s);
	/* the second address of the set matches: deny drops */
	s = one_rule("192.0.2.5", "deny", NULL);
	assert_int_equal(respip_rewrite(s, in, len, out, sizeof(out), &n, &r),
		RESPIP_DROPPED);
	assert_non_null(r);
	respip_set_delete(s);
	s = one_rule("192.0.2.0/24", "inform", NULL);
	assert_int_equal(respip_rewrite(s, in, len, out, sizeof(out), &n, &r),
		RESPIP_PASS);
	assert_int_equal(r->action, RESPIP_INFORM);
	respip_set_delete(s);
	/* only A, AAAA and ANY questions */
	s = one_rule("192.0.2.1", "always_refuse", NULL);
	len = reply(in, 16);
	assert_int_equal(respip_rewrite(s, in, len, out, sizeof(out), &n, &r),
		RESPIP_PASS);
	len = reply(in, 1);
	assert_int_equal(respip_rewrite(s, in, len, out, sizeof(out), &n, &r),
		RESPIP_CHANGED);
	/* REFUSED, no records but the OPT, no AD */
	assert_int_equal(out[3] & 0xf, 5);
	assert_int_equal(out[3] & 0x20, 0);
	assert_int_equal(out[7], 0);
	assert_int_equal(out[9], 0);
	assert_int_equal(out[11], 1);
	assert_int_equal(n, 29 + 11);
	respip_set_delete(s);
	/* NXDOMAIN with the CNAME kept */
	s = one_rule("192.0.2.1", "always_nxdomain", NULL);
	assert_int_equal(respip_rewrite(s, in, len, out, sizeof(out), &n, &r),
		RESPIP_CHANGED);
	assert_int_equal(out[3] & 0xf, 3);
	assert_int_equal(out[7], 1);
	assert_int_equal(n, 29 + 16 + 11);
	assert_memory_equal(out + 12, in + 12, 29 + 16 - 12);
	assert_int_equal(out[n - 9], 41);
	respip_set_delete(s);
	/* redirect with data: the CNAME, then the data under t.example. */
	s = one_rule("192.0.2.1", "redirect", "A 10.0.0.1");
	assert_int_equal(respip_rewrite(s, in, len, out, sizeof(out), &n, &r),
		RESPIP_CHANGED);
	assert_int_equal(out[3] & 0xf, 0);
	assert_int_equal(out[3] & 0x20, 0);
	assert_int_equal(out[7], 2);
	assert_memory_equal(out + 45, "\001t\300\020\000\001\000\001", 8);
	/* TTL 3600 as Unbound's default, then 10.0.0.1 */
	assert_memory_equal(out + 53, "\000\000\016\020\000\004\012\000\000\001",
		10);
	respip_set_delete(s);
	/* redirect without data: NODATA, CNAME kept */
	s = one_rule("192.0.2.1", "redirect", NULL);
	assert_int_equal(respip_rewrite(s, in, len, out, sizeof(out), &n, &r),
		RESPIP_CHANGED);
	assert_int_equal(out[3] & 0xf, 0);
	assert_int_equal(out[7], 1);
	respip_set_delete(s);
	/* too little room: sent as it is */
	s = one_rule("192.0.2.1", "redirect", "A 10.0.0.1");
	assert_int_equal(respip_rewrite(s, in, len, out, 50, &n, &r),
		RESPIP_PASS);
	respip_set_delete(s);
	/* a malformed reply passes (truncated in the answer) */
	s = one_rule("192.0.2.1", "deny", NULL);
	assert_int_equal(respip_rewrite(s, in, 50, out, sizeof(out), &n, &r),
		RESPIP_PASS);
	respip_set_delete(s);
}

/* A client for test_rewrite_tags: tag 2's action and an A record. */
static enum respip_action tag2_action;

static enum respip_action client_action(void* arg, int tag)
{
	(void)arg;
	return tag == 2 ? tag2_action : RESPIP_NONE;
}

static size_t client_data(void* arg, int tag, uint16_t type, uint16_t rclass,
	uint8_t* buf, size_t cap, size_t* len)
{
	static const uint8_t a[] = { 0, 1, 0, 1, 0, 0, 0, 7, 0, 4,
		10, 9, 9, 9 };
	(void)arg;
	(void)rclass;
	if(tag != 2 || type != 1 || cap < sizeof(a))
		return 0;
	memcpy(buf, a, sizeof(a));
	*len = sizeof(a);
	return 1;
}

/* Give the set's one IPv4 rule these tags. */
static void tag_rule(struct respip_set* s, uint64_t bits)
{
	s->tag_sets = malloc(sizeof(uint64_t));
	assert_non_null(s->tag_sets);
	s->tag_sets[0] = bits;
	s->num_tag_sets = 1;
	s->v4.rules[0].tag_idx = 1;
}

/* compat: unbound-1.17: response-ip-tag's rules */
static void test_rewrite_tags(void** state)
{
	uint8_t in[512], out[512];
	size_t len = reply(in, 1), n = 0;
	const struct respip_rule* r;
	enum respip_action a;
	struct respip_tag_client tc = { 0, client_action, client_data, NULL };
	struct respip_set* s;
	(void)state;
	/* a tagged redirect rule with data */
	s = one_rule("192.0.2.1", "redirect", "A 10.0.0.1");
	tag_rule(s, (uint64_t)1 << 2 | (uint64_t)1 << 5);
	/* no tag in common: the rule's data */
	tc.tags = (uint64_t)1 << 3;
	tag2_action = RESPIP_DENY;
	assert_int_equal(respip_rewrite_client(s, &tc, in, len, out,
		sizeof(out), &n, &r, &a), RESPIP_CHANGED);
	assert_int_equal(a, RESPIP_REDIRECT);
	assert_int_equal(out[62], 1);   /* 10.0.0.1 */
	/* tag 2 in common, its action deny: the rule's data still
	 * replaces the address (not dropped), the action is deny */
	tc.tags = (uint64_t)1 << 2;
	assert_int_equal(respip_rewrite_client(s, &tc, in, len, out,
		sizeof(out), &n, &r, &a), RESPIP_CHANGED);
	assert_int_equal(a, RESPIP_DENY);
	/* tag action redirect: the tag's data, TTL 7 */
	tag2_action = RESPIP_REDIRECT;
	assert_int_equal(respip_rewrite_client(s, &tc, in, len, out,
		sizeof(out), &n, &r, &a), RESPIP_CHANGED);
	assert_memory_equal(out + 53, "\000\000\000\007\000\004\012\011\011\011",
		10);
	/* always_nxdomain: the data is not used */
	tag2_action = RESPIP_ALWAYS_NXDOMAIN;
	assert_int_equal(respip_rewrite_client(s, &tc, in, len, out,
		sizeof(out), &n, &r, &a), RESPIP_CHANGED);
	assert_int_equal(out[3] & 0xf, 3);
	respip_set_delete(s);
	/* a rule with tags and no action: passes, unless a tag acts */
	s = one_rule("192.0.2.1", "deny", NULL);
	s->v4.rules[0].action = RESPIP_NONE;
	tag_rule(s, (uint64_t)1 << 2);
	assert_int_equal(respip_rewrite_client(s, NULL, in, len, out,
		sizeof(out), &n, &r, &a), RESPIP_PASS);
	assert_non_null(r);
	tag2_action = RESPIP_REFUSE;
	assert_int_equal(respip_rewrite_client(s, &tc, in, len, out,
		sizeof(out), &n, &r, &a), RESPIP_CHANGED);
	assert_int_equal(out[3] & 0xf, 5);
	tag2_action = RESPIP_STATIC;
	assert_int_equal(respip_rewrite_client(s, &tc, in, len, out,
		sizeof(out), &n, &r, &a), RESPIP_CHANGED);
	assert_int_equal(out[3] & 0xf, 0);
	assert_int_equal(out[7], 1);   /* the CNAME kept */
	tag2_action = RESPIP_TRANSPARENT;
	assert_int_equal(respip_rewrite_client(s, &tc, in, len, out,
		sizeof(out), &n, &r, &a), RESPIP_PASS);
	respip_set_delete(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_longest_match),
		cmocka_unit_test(test_data_checks),
		cmocka_unit_test(test_rewrite_actions),
		cmocka_unit_test(test_rewrite_tags),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
