/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/dns64_test.c - dns64/dns64_synth.c and the result
 * building of dns64/dns64.c: every RFC 6052 prefix length against the
 * examples of RFC 6052 2.4, the reverse names both ways, bad prefixes,
 * and an A answer (with a CNAME chain and signatures) made an AAAA
 * answer, a PTR answer renamed. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <ldns/ldns.h>
#include "dns64/dns64.h"
#include "dns64/dns64_synth.h"
#include "util/dname.h"

static struct dns64_prefix prefix(const char* s)
{
	struct dns64_prefix p;
	char err[256];
	if(!dns64_prefix_parse(s, &p, err, sizeof(err)))
		fail_msg("%s: %s", s, err);
	return p;
}

/* RFC 6052 2.4: 192.0.2.33 under each prefix length. */
static void test_rfc6052_table(void** state)
{
	static const struct { const char* prefix, *addr; } t[] = {
		{ "2001:db8::/32", "2001:db8:c000:221::" },
		{ "2001:db8:100::/40", "2001:db8:1c0:2:21::" },
		{ "2001:db8:122::/48", "2001:db8:122:c000:2:2100::" },
		{ "2001:db8:122:300::/56", "2001:db8:122:3c0:0:221::" },
		{ "2001:db8:122:344::/64", "2001:db8:122:344:c0:2:2100:0" },
		{ "2001:db8:122:344::/96", "2001:db8:122:344::192.0.2.33" },
		{ "64:ff9b::/96", "64:ff9b::192.0.2.33" },
	};
	const uint8_t v4[4] = { 192, 0, 2, 33 };
	size_t i;
	(void)state;
	for(i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct dns64_prefix p = prefix(t[i].prefix);
		uint8_t want[16], got[16], back[4];
		assert_int_equal(inet_pton(AF_INET6, t[i].addr, want), 1);
		dns64_synth_addr(&p, v4, got);
		if(memcmp(want, got, 16) != 0) {
			char s[64];
			inet_ntop(AF_INET6, got, s, sizeof(s));
			fail_msg("%s: got %s, want %s", t[i].prefix, s,
				t[i].addr);
		}
		assert_int_equal(dns64_extract_v4(&p, got, back), 1);
		assert_memory_equal(back, v4, 4);
		/* another prefix's address is not under this one */
		got[2] ^= 0x40;
		assert_int_equal(dns64_extract_v4(&p, got, back), 0);
	}
}

static void test_bad_prefixes(void** state)
{
	static const char* bad[] = { "192.0.2.0/24", "64:ff9b::/80",
		"64:ff9b::/0", "64:ff9b::/128", "64:ff9b::", "64:ff9b::1/96",
		"2001:db8::1:0:0:0/64", "2001:db8:0:100::/48", "nonsense/96",
		"64:ff9b::/96x", "64:ff9b::/", "" };
	struct dns64_prefix p;
	char err[256];
	size_t i;
	(void)state;
	for(i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if(dns64_prefix_parse(bad[i], &p, err, sizeof(err)))
			fail_msg("accepted %s", bad[i]);
	assert_int_equal(dns64_prefix_parse("192.0.2.0/24", &p, err,
		sizeof(err)), 0);
	assert_string_equal(err, "dns64_prefix is not IPv6: 192.0.2.0/24");
	assert_int_equal(dns64_prefix_parse("64:ff9b::/80", &p, err,
		sizeof(err)), 0);
	assert_string_equal(err, "dns64-prefix length is not 32, 40, 48, 56, "
		"64 or 96: 64:ff9b::/80");
}

static uint8_t* wire(const char* s)
{
	static uint8_t buf[4][LDNS_MAX_DOMAINLEN + 1];
	static int n;
	uint8_t* w = buf[n++ % 4];
	assert_true(dname_from_str(s, w) > 0);
	return w;
}

static void test_ptr_names(void** state)
{
	struct dns64_prefix p = prefix("64:ff9b::/96");
	uint8_t v6[16], back[16], name[DNS64_PTR6_LEN], v4[4];
	uint8_t n4[DNS64_PTR4_MAX];
	const char* ip6 = "1.2.2.0.0.0.0.c.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0."
		"b.9.f.f.4.6.0.0.ip6.arpa.";
	uint8_t* w6 = wire(ip6);
	size_t l4;
	(void)state;
	/* name -> address -> IPv4 -> in-addr.arpa */
	assert_int_equal(dns64_ptr6_to_addr(w6, dname_valid(w6, 255), v6), 1);
	assert_int_equal(inet_pton(AF_INET6, "64:ff9b::c000:221", back), 1);
	assert_memory_equal(v6, back, 16);
	assert_int_equal(dns64_extract_v4(&p, v6, v4), 1);
	l4 = dns64_v4_to_ptr(v4, n4);
	assert_int_equal(l4, dname_valid(wire("33.2.0.192.in-addr.arpa."),
		255));
	assert_memory_equal(n4, wire("33.2.0.192.in-addr.arpa."), l4);
	/* and back: address -> name */
	assert_int_equal(dns64_addr_to_ptr6(v6, name), DNS64_PTR6_LEN);
	assert_memory_equal(name, w6, DNS64_PTR6_LEN);
	/* upper case nibbles are the same name */
	assert_int_equal(dns64_ptr6_to_addr(wire("1.2.2.0.0.0.0.C.0.0.0.0.0."
		"0.0.0.0.0.0.0.0.0.0.0.B.9.F.F.4.6.0.0.IP6.ARPA."), 74, back),
		1);
	assert_memory_equal(v6, back, 16);
	/* the longest in-addr.arpa name fits */
	v4[0] = v4[1] = v4[2] = v4[3] = 255;
	assert_int_equal(dns64_v4_to_ptr(v4, n4), DNS64_PTR4_MAX);
	/* not a whole address, not ip6.arpa, not a nibble */
	assert_int_equal(dns64_ptr6_to_addr(wire("0.0.ip6.arpa."), 14, back),
		0);
	w6 = wire("1.2.2.0.0.0.0.c.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0."
		"b.9.f.f.4.6.0.0.ip7.arpa.");
	assert_int_equal(dns64_ptr6_to_addr(w6, 74, back), 0);
	w6 = wire("1.g.0.0.2.0.0.c.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0."
		"b.9.f.f.4.6.0.0.ip6.arpa.");
	assert_int_equal(dns64_ptr6_to_addr(w6, 74, back), 0);
	w6 = wire("12.0.0.2.0.0.c.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0."
		"b.9.f.f.4.6.0.0.ip6.arpa.");
	assert_int_equal(dns64_ptr6_to_addr(w6, 74, back), 0);
	/* under /64 the u octet is skipped both ways */
	p = prefix("2001:db8:122:344::/64");
	assert_int_equal(inet_pton(AF_INET6, "2001:db8:122:344:c0:2:2100:0",
		v6), 1);
	assert_int_equal(dns64_extract_v4(&p, v6, v4), 1);
	assert_int_equal(v4[0], 192);
	assert_int_equal(v4[3], 33);
}

static ldns_rr* rr(const char* text)
{
	ldns_rr* r = NULL;
	assert_int_equal(ldns_rr_new_frm_str(&r, text, 0, NULL, NULL),
		LDNS_STATUS_OK);
	return r;
}

static ldns_rr_list* list_of(const char** texts)
{
	ldns_rr_list* l = ldns_rr_list_new();
	for(; *texts; texts++)
		assert_true(ldns_rr_list_push_rr(l, rr(*texts)));
	return l;
}

static char* text_of(const ldns_rr_list* l)
{
	return ldns_rr_list2str(l);
}

static void test_result_from_a(void** state)
{
	static const char* an[] = {
		"alias.example. 300 IN CNAME v4.example.",
		"alias.example. 300 IN RRSIG CNAME 8 2 300 20300101000000 "
			"20200101000000 1 example. AAAA",
		"v4.example. 120 IN A 192.0.2.33",
		"v4.example. 120 IN A 198.51.100.7",
		"v4.example. 120 IN RRSIG A 8 2 120 20300101000000 "
			"20200101000000 1 example. AAAA",
		NULL };
	static const char* ns[] = { "example. 300 IN NS ns.example.", NULL };
	static const char* want[] = {
		"alias.example. 300 IN CNAME v4.example.",
		"alias.example. 300 IN RRSIG CNAME 8 2 300 20300101000000 "
			"20200101000000 1 example. AAAA",
		"v4.example. 120 IN AAAA 64:ff9b::c000:221",
		"v4.example. 120 IN AAAA 64:ff9b::c633:6407",
		NULL };
	struct module_result a, res;
	struct dns64_prefix p = prefix("64:ff9b::/96");
	ldns_rr_list* w = list_of(want);
	char* got, *exp;
	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&res, 0, sizeof(res));
	a.rcode = 0;
	a.answer = list_of(an);
	a.authority = list_of(ns);
	a.security = SEC_SECURE;
	res.rcode = 0;
	res.authority = list_of(ns);   /* the AAAA NODATA's: replaced */
	assert_int_equal(dns64_result_from_a(&res, &a, &p), 1);
	got = text_of(res.answer);
	exp = text_of(w);
	assert_string_equal(got, exp);
	free(got);
	free(exp);
	assert_int_equal(ldns_rr_list_rr_count(res.authority), 1);
	assert_null(res.additional);
	/* made here: not secure, marked for the cache */
	assert_int_equal(res.security, SEC_INSECURE);
	assert_int_equal(res.synthesized, 1);
	assert_int_equal(res.no_store, 0);
	module_result_free_lists(&res);
	module_result_free_lists(&a);
	ldns_rr_list_deep_free(w);
}

static void test_result_from_ptr(void** state)
{
	static const char* an[] = {
		"33.2.0.192.in-addr.arpa. 300 IN PTR host.example.",
		NULL };
	static const char* an_cname[] = {
		"33.2.0.192.in-addr.arpa. 300 IN CNAME 33.0/25.2.0.192.in-addr.arpa.",
		"33.0/25.2.0.192.in-addr.arpa. 300 IN PTR host.example.",
		NULL };
	const char* ip6 = "1.2.2.0.0.0.0.c.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0."
		"b.9.f.f.4.6.0.0.ip6.arpa.";
	struct module_result sub, res;
	uint8_t q[LDNS_MAX_DOMAINLEN + 1], v4n[LDNS_MAX_DOMAINLEN + 1];
	char* got;
	(void)state;
	memcpy(q, wire(ip6), 74);
	memcpy(v4n, wire("33.2.0.192.in-addr.arpa."), 25);
	memset(&sub, 0, sizeof(sub));
	memset(&res, 0, sizeof(res));
	sub.answer = list_of(an);
	assert_int_equal(dns64_result_from_ptr(&res, &sub, v4n, q, 74), 1);
	got = text_of(res.answer);
	assert_non_null(strstr(got, "1.2.2.0.0.0.0.c.0.0.0.0.0.0.0.0.0.0.0.0."
		"0.0.0.0.b.9.f.f.4.6.0.0.ip6.arpa.\t300\tIN\tPTR\thost.example."));
	free(got);
	module_result_free_lists(&res);
	module_result_free_lists(&sub);
	/* RFC 2317: the CNAME stays, its target's PTR is renamed */
	sub.answer = list_of(an_cname);
	assert_int_equal(dns64_result_from_ptr(&res, &sub, v4n, q, 74), 1);
	got = text_of(res.answer);
	assert_non_null(strstr(got, "33.2.0.192.in-addr.arpa.\t300\tIN\tCNAME"));
	assert_non_null(strstr(got, "ip6.arpa.\t300\tIN\tPTR\thost.example."));
	assert_null(strstr(got, "33.0/25.2.0.192.in-addr.arpa.\t300\tIN\tPTR"));
	free(got);
	module_result_free_lists(&res);
	module_result_free_lists(&sub);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc6052_table),
		cmocka_unit_test(test_bad_prefixes),
		cmocka_unit_test(test_ptr_names),
		cmocka_unit_test(test_result_from_a),
		cmocka_unit_test(test_result_from_ptr),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
