/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/iter_cache_test.c - what the iterator keeps in the RRset
 * cache and reads back: trust per section, no TTL extension by a
 * repeated referral, synthesized CNAMEs not stored, delegations with
 * cached glue, answers only at answer trust. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ldns/ldns.h>
#include "iterator/iter_cache.h"
#include "iterator/delegpt.h"
#include "services/cache/rrset.h"
#include "services/cache/msgcache.h"
#include "util/dname.h"
#include "util/msgparse.h"
#include "util/net_help.h"
#include "testdata/unit/wire_name.h"

/* A reply with "A|N|D rr" lines; aa sets the AA flag. */
static ldns_pkt* reply(int aa, const char* const* rrs)
{
	ldns_pkt* p = ldns_pkt_new();
	assert_non_null(p);
	ldns_pkt_set_qr(p, 1);
	ldns_pkt_set_aa(p, aa);
	for(; *rrs; rrs++) {
		ldns_rr* rr = NULL;
		assert_int_equal(ldns_rr_new_frm_str(&rr, *rrs + 2, 3600,
			NULL, NULL), LDNS_STATUS_OK);
		ldns_pkt_push_rr(p, (*rrs)[0] == 'A' ? LDNS_SECTION_ANSWER :
			(*rrs)[0] == 'N' ? LDNS_SECTION_AUTHORITY :
			LDNS_SECTION_ADDITIONAL, rr);
	}
	return p;
}

static struct rrset_cache* cache(void)
{
	struct rrset_cache* c = rrset_cache_create(1024 * 1024, 4, 0,
		86400);
	assert_non_null(c);
	return c;
}

static void test_referral_no_ttl_extension(void** state)
{
	static const char* rrs[] = {
		"N example.tld1. 3600 NS ns1.example.tld1.",
		"D ns1.example.tld1. 3600 A 192.0.2.1",
		NULL };
	struct rrset_cache* c = cache();
	ldns_pkt* p = reply(0, rrs);
	struct rrset_entry* e;
	time_t exp;
	(void)state;
	assert_int_equal(iter_store_reply(c, p, 1000), 2);
	e = rrset_cache_lookup(c, W("example.tld1."), TYPE_NS, CLASS_IN, 0,
		1000);
	assert_non_null(e);
	assert_int_equal(e->trust, RRSET_TRUST_AUTHORITY);
	exp = e->expire;
	rrset_cache_release(c, e);
	/* the same referral later: the delegation does not live longer */
	(void)iter_store_reply(c, p, 2000);
	e = rrset_cache_lookup(c, W("example.tld1."), TYPE_NS, CLASS_IN, 0,
		2000);
	assert_non_null(e);
	assert_true(e->expire == exp);
	rrset_cache_release(c, e);
	e = rrset_cache_lookup(c, W("ns1.example.tld1."), TYPE_A, CLASS_IN, 0,
		2000);
	assert_non_null(e);
	assert_int_equal(e->trust, RRSET_TRUST_GLUE);
	rrset_cache_release(c, e);
	ldns_pkt_free(p);
	rrset_cache_delete(c);
}

static void test_answer_trust_and_dname(void** state)
{
	static const char* rrs[] = {
		"A dname.example.tld1. DNAME example.tld2.",
		"A www.dname.example.tld1. CNAME www.example.tld2.",
		"A www.example.tld2. A 192.0.2.20",
		NULL };
	struct rrset_cache* c = cache();
	ldns_pkt* p = reply(1, rrs);
	struct rrset_entry* e;
	(void)state;
	assert_int_equal(iter_store_reply(c, p, 1000), 2);
	assert_null(rrset_cache_lookup(c, W("www.dname.example.tld1."),
		TYPE_CNAME, CLASS_IN, 0, 1000));
	e = rrset_cache_lookup(c, W("dname.example.tld1."), TYPE_DNAME,
		CLASS_IN, 0, 1000);
	assert_non_null(e);
	assert_int_equal(e->trust, RRSET_TRUST_AUTH_ANSWER);
	rrset_cache_release(c, e);
	ldns_pkt_free(p);
	rrset_cache_delete(c);
}

static void test_delegation_from_cache(void** state)
{
	static const char* rrs[] = {
		"N example.tld1. 3600 NS ns1.example.tld1.",
		"N example.tld1. 3600 NS ns.other.tld2.",
		"D ns1.example.tld1. 3600 A 192.0.2.1",
		"D ns1.example.tld1. 3600 AAAA 2001:db8::1",
		NULL };
	struct rrset_cache* c = cache();
	ldns_pkt* p = reply(0, rrs);
	struct delegpt* dp;
	(void)state;
	(void)iter_store_reply(c, p, 1000);
	/* below the hint's 1 label (the root): found */
	dp = iter_cache_delegation(c, W("www.a.example.tld1."), CLASS_IN, 1,
		1000);
	assert_non_null(dp);
	assert_int_equal(query_dname_compare(dp->name, W("example.tld1.")), 0);
	assert_int_equal((int)dp->num_ns, 2);
	assert_int_equal((int)dp->num_addr, 2);
	assert_int_equal(addr_port(&dp->addrs->addr), 53);
	assert_true(delegpt_find_ns(dp, W("ns1.example.tld1."))->got4);
	assert_false(delegpt_find_ns(dp, W("ns.other.tld2."))->got4);
	assert_true(dp->ttl <= 3600);
	delegpt_delete(dp);
	/* not deeper than a stub at example.tld1. (3 labels) */
	assert_null(iter_cache_delegation(c, W("www.example.tld1."), CLASS_IN,
		3, 1000));
	/* expired */
	assert_null(iter_cache_delegation(c, W("www.example.tld1."), CLASS_IN,
		1, 1000 + 3601));
	ldns_pkt_free(p);
	rrset_cache_delete(c);
}

/* An upstream NS record with RDLENGTH 0 is stored as sent; reading
 * the delegation back skips it (found by fuzz_upstream: a read past
 * the empty rdata; ASan builds catch a regression). */
static void test_delegation_empty_ns_rdata(void** state)
{
	static const char* rrs[] = {
		"N example.tld1. 3600 NS ns1.example.tld1.", NULL };
	struct rrset_cache* c = cache();
	ldns_pkt* p = reply(0, rrs);
	ldns_rr* empty = ldns_rr_new();
	struct delegpt* dp;
	(void)state;
	assert_non_null(empty);
	ldns_rr_set_owner(empty, ldns_dname_new_frm_str("example.tld1."));
	ldns_rr_set_type(empty, LDNS_RR_TYPE_NS);
	ldns_rr_set_class(empty, LDNS_RR_CLASS_IN);
	ldns_rr_set_ttl(empty, 3600);
	ldns_pkt_push_rr(p, LDNS_SECTION_AUTHORITY, empty);
	assert_true(iter_store_reply(c, p, 1000) >= 1);
	dp = iter_cache_delegation(c, W("www.example.tld1."), CLASS_IN, 1,
		1000);
	assert_non_null(dp);
	assert_int_equal((int)dp->num_ns, 1);
	assert_non_null(delegpt_find_ns(dp, W("ns1.example.tld1.")));
	delegpt_delete(dp);
	ldns_pkt_free(p);
	rrset_cache_delete(c);
}

static void test_answer_needs_answer_trust(void** state)
{
	static const char* rrs[] = {
		"A www.example.tld1. 300 A 192.0.2.10",
		"N example.tld1. NS ns1.example.tld1.",
		"D ns1.example.tld1. A 192.0.2.1",
		NULL };
	struct rrset_cache* c = cache();
	ldns_pkt* p = reply(1, rrs);
	ldns_rr_list* l = ldns_rr_list_new();
	(void)state;
	(void)iter_store_reply(c, p, 1000);
	assert_int_equal(iter_cache_answer(c, W("WWW.example.tld1."), TYPE_A,
		CLASS_IN, 1100, l), 1);
	assert_int_equal((int)ldns_rr_list_rr_count(l), 1);
	assert_int_equal((int)ldns_rr_ttl(ldns_rr_list_rr(l, 0)), 200);
	/* glue is not an answer */
	assert_int_equal(iter_cache_answer(c, W("ns1.example.tld1."), TYPE_A,
		CLASS_IN, 1100, l), 0);
	assert_int_equal((int)ldns_rr_list_rr_count(l), 1);
	ldns_rr_list_deep_free(l);
	ldns_pkt_free(p);
	rrset_cache_delete(c);
}

/* An answer RRset is stored with the RRSIGs that cover it (its owner
 * in any case, its type), not with those of another type or owner. */
static void test_stored_with_its_sigs(void** state)
{
	static const char* rrs[] = {
		"A www.example.tld1. 300 A 192.0.2.1",
		"A WWW.example.tld1. 300 RRSIG A 8 3 300 20300101000000 "
			"20200101000000 12345 example.tld1. AAAA",
		"A www.example.tld1. 300 RRSIG AAAA 8 3 300 20300101000000 "
			"20200101000000 12345 example.tld1. AAAB",
		"A other.example.tld1. 300 RRSIG A 8 3 300 20300101000000 "
			"20200101000000 12345 example.tld1. AAAC",
		NULL };
	struct rrset_cache* c = cache();
	ldns_pkt* p = reply(1, rrs);
	struct rrset_entry* e;
	struct packed_rrset v, sigs;
	(void)state;
	(void)iter_store_reply(c, p, 1000);
	e = rrset_cache_lookup(c, W("www.example.tld1."), TYPE_A, CLASS_IN, 0,
		1000);
	assert_non_null(e);
	memset(&sigs, 0, sizeof(sigs));
	rrset_entry_view(e, 1000, &v, &sigs);
	assert_int_equal((int)v.count, 1);
	assert_int_equal((int)sigs.count, 1);
	/* the covered type, then the signature's last bytes: "AAAA" */
	assert_int_equal(sigs.rdata[0][0] << 8 | sigs.rdata[0][1], TYPE_A);
	assert_int_equal(sigs.rdata[0][sigs.rdlen[0] - 1], 0);
	rrset_cache_release(c, e);
	ldns_pkt_free(p);
	rrset_cache_delete(c);
}

/* iter_cache_answer_list: the cached CNAME as a new list (time left as
 * TTL); NULL for nothing cached, another type, glue, expired. */
static void test_answer_list(void** state)
{
	static const char* rrs[] = {
		"A alias.example.tld1. 300 CNAME www.example.tld1.",
		"N example.tld1. NS ns1.example.tld1.",
		"D ns1.example.tld1. A 192.0.2.1",
		NULL };
	struct rrset_cache* c = cache();
	ldns_pkt* p = reply(1, rrs);
	ldns_rr_list* l;
	(void)state;
	(void)iter_store_reply(c, p, 1000);
	l = iter_cache_answer_list(c, W("ALIAS.example.tld1."), TYPE_CNAME,
		CLASS_IN, 1100);
	assert_non_null(l);
	assert_int_equal((int)ldns_rr_list_rr_count(l), 1);
	assert_int_equal(ldns_rr_get_type(ldns_rr_list_rr(l, 0)),
		LDNS_RR_TYPE_CNAME);
	assert_int_equal((int)ldns_rr_ttl(ldns_rr_list_rr(l, 0)), 200);
	ldns_rr_list_deep_free(l);
	assert_null(iter_cache_answer_list(c, W("www.example.tld1."),
		TYPE_CNAME, CLASS_IN, 1100));
	assert_null(iter_cache_answer_list(c, W("alias.example.tld1."),
		TYPE_A, CLASS_IN, 1100));
	assert_null(iter_cache_answer_list(c, W("ns1.example.tld1."),
		TYPE_A, CLASS_IN, 1100));
	assert_null(iter_cache_answer_list(c, W("alias.example.tld1."),
		TYPE_CNAME, CLASS_IN, 1300));
	assert_null(iter_cache_answer_list(NULL, W("alias.example.tld1."),
		TYPE_CNAME, CLASS_IN, 1100));
	ldns_pkt_free(p);
	rrset_cache_delete(c);
}

/* ANY from the RRset cache (Unbound's fill_any): the fixed types in
 * their order, answer trust only, TXT never, a CNAME alone. */
static void test_any_from_cache(void** state)
{
	static const char* rrs[] = {
		"A www.example.tld1. 300 TXT \"t\"",
		"A www.example.tld1. 300 AAAA 2001:db8::10",
		"A www.example.tld1. 300 A 192.0.2.10",
		"A www.example.tld1. 300 MX 10 mail.example.tld1.",
		"A alias.example.tld1. 300 CNAME www.example.tld1.",
		"A alias.example.tld1. 300 A 192.0.2.11",
		"N example.tld1. NS ns1.example.tld1.",
		"D ns1.example.tld1. A 192.0.2.1",
		NULL };
	struct rrset_cache* c = cache();
	ldns_pkt* p = reply(1, rrs);
	ldns_rr_list* l = ldns_rr_list_new();
	(void)state;
	(void)iter_store_reply(c, p, 1000);
	assert_int_equal(iter_cache_any(c, W("www.example.tld1."), CLASS_IN,
		1100, l), 3);
	assert_int_equal((int)ldns_rr_list_rr_count(l), 3);
	assert_int_equal(ldns_rr_get_type(ldns_rr_list_rr(l, 0)),
		LDNS_RR_TYPE_A);
	assert_int_equal(ldns_rr_get_type(ldns_rr_list_rr(l, 1)),
		LDNS_RR_TYPE_AAAA);
	assert_int_equal(ldns_rr_get_type(ldns_rr_list_rr(l, 2)),
		LDNS_RR_TYPE_MX);
	ldns_rr_list_deep_free(l);
	l = ldns_rr_list_new();
	assert_int_equal(iter_cache_any(c, W("alias.example.tld1."),
		CLASS_IN, 1100, l), 1);
	assert_int_equal((int)ldns_rr_list_rr_count(l), 1);
	assert_int_equal(ldns_rr_get_type(ldns_rr_list_rr(l, 0)),
		LDNS_RR_TYPE_CNAME);
	/* authority NS and glue are no answers */
	assert_int_equal(iter_cache_any(c, W("example.tld1."), CLASS_IN,
		1100, l), 0);
	assert_int_equal(iter_cache_any(c, W("ns1.example.tld1."), CLASS_IN,
		1100, l), 0);
	assert_int_equal((int)ldns_rr_list_rr_count(l), 1);
	ldns_rr_list_deep_free(l);
	ldns_pkt_free(p);
	rrset_cache_delete(c);
}

/* Store a reply to (name, type) with rcode and an SOA in the message
 * cache with a security status. */
static void store_msg(struct msg_cache* mc, const char* name, uint16_t type,
	int rcode, int security)
{
	static const char* soa[] = {
		"N example.tld1. 300 SOA ns1.example.tld1. h.example.tld1. "
		"1 3600 600 86400 300", NULL };
	ldns_pkt* p = reply(1, soa);
	ldns_rr* q = NULL;
	struct query_info qi;
	uint8_t* wire = NULL;
	size_t len = 0;
	char qs[300];
	snprintf(qs, sizeof(qs), "%s IN A", name);
	assert_int_equal(ldns_rr_new_question_frm_str(&q, qs, NULL, NULL),
		LDNS_STATUS_OK);
	ldns_rr_set_type(q, (ldns_rr_type)type);
	ldns_pkt_push_rr(p, LDNS_SECTION_QUESTION, q);
	ldns_pkt_set_rcode(p, (uint8_t)rcode);
	assert_int_equal(ldns_pkt2wire(&wire, p, &len), LDNS_STATUS_OK);
	memset(&qi, 0, sizeof(qi));
	qi.qname_len = dname_from_str(name, qi.qname);
	qi.qtype = type;
	qi.qclass = CLASS_IN;
	assert_int_equal(msg_cache_store_sec(mc, &qi, msg_cache_hash(mc, &qi),
		wire, len, 1000, security), 1);
	free(wire);
	ldns_pkt_free(p);
}

/* harden-below-nxdomain: only a secure NXDOMAIN above the name stops
 * the lookup; with qname minimisation the type A one counts too. */
static void test_below_secure_nxdomain(void** state)
{
	struct msg_cache* mc = msg_cache_create(1 << 20, 4, 0, 86400, 3600);
	ldns_rr_list* auth = NULL;
	(void)state;
	assert_non_null(mc);
	/* no secure NXDOMAIN stored yet: the walk is skipped */
	store_msg(mc, "plain.example.tld1.", TYPE_A, RCODE_NXDOMAIN,
		SEC_UNCHECKED);
	store_msg(mc, "ins.example.tld1.", TYPE_A, RCODE_NXDOMAIN,
		SEC_INSECURE);
	store_msg(mc, "yes.example.tld1.", TYPE_A, RCODE_NOERROR,
		SEC_SECURE);
	assert_int_equal(msg_cache_had_secure_nx(mc), 0);
	store_msg(mc, "nx.example.tld1.", TYPE_A, RCODE_NXDOMAIN,
		SEC_SECURE);
	assert_int_equal(msg_cache_had_secure_nx(mc), 1);
	assert_int_equal(iter_below_secure_nx(mc, W("a.b.nx.example.tld1."),
		TYPE_A, CLASS_IN, 0, 1100, &auth), 1);
	assert_non_null(auth);
	assert_int_equal((int)ldns_rr_list_rr_count(auth), 1);
	assert_int_equal(ldns_rr_get_type(ldns_rr_list_rr(auth, 0)),
		LDNS_RR_TYPE_SOA);
	ldns_rr_list_deep_free(auth);
	/* the name itself is not below it */
	assert_int_equal(iter_below_secure_nx(mc, W("nx.example.tld1."),
		TYPE_A, CLASS_IN, 0, 1100, &auth), 0);
	/* unchecked, insecure NXDOMAIN and secure NOERROR: go on */
	assert_int_equal(iter_below_secure_nx(mc, W("x.plain.example.tld1."),
		TYPE_A, CLASS_IN, 1, 1100, &auth), 0);
	assert_int_equal(iter_below_secure_nx(mc, W("x.ins.example.tld1."),
		TYPE_A, CLASS_IN, 1, 1100, &auth), 0);
	assert_int_equal(iter_below_secure_nx(mc, W("x.yes.example.tld1."),
		TYPE_A, CLASS_IN, 1, 1100, &auth), 0);
	/* another type: the type A entry counts with qname minimisation */
	assert_int_equal(iter_below_secure_nx(mc, W("x.nx.example.tld1."),
		TYPE_TXT, CLASS_IN, 0, 1100, &auth), 0);
	assert_int_equal(iter_below_secure_nx(mc, W("x.nx.example.tld1."),
		TYPE_TXT, CLASS_IN, 1, 1100, &auth), 1);
	ldns_rr_list_deep_free(auth);
	/* expired: gone */
	assert_int_equal(iter_below_secure_nx(mc, W("x.nx.example.tld1."),
		TYPE_A, CLASS_IN, 0, 1000 + 301, &auth), 0);
	msg_cache_delete(mc);
}

/* An answer a module made (dns64's synthesised AAAA) is served to
 * clients from the message cache, but the iterator's lookup never takes
 * it for the zone's data. */
static void test_synthesized_skipped(void** state)
{
	struct msg_cache* mc = msg_cache_create(1 << 20, 4, 0, 86400, 3600);
	static const char* const an[] = {
		"A v4.example. 300 IN AAAA 64:ff9b::c000:221", NULL };
	ldns_pkt* p = reply(1, an);
	ldns_rr* q = NULL;
	ldns_rr_list* answer = ldns_rr_list_new(), *auth = NULL;
	struct query_info qi;
	uint8_t* wire = NULL;
	size_t len = 0;
	uint32_t h;
	int rcode, synth;
	(void)state;
	assert_int_equal(ldns_rr_new_question_frm_str(&q, "v4.example. IN "
		"AAAA", NULL, NULL), LDNS_STATUS_OK);
	ldns_pkt_push_rr(p, LDNS_SECTION_QUESTION, q);
	assert_int_equal(ldns_pkt2wire(&wire, p, &len), LDNS_STATUS_OK);
	for(synth = 1; synth >= 0; synth--) {
		memset(&qi, 0, sizeof(qi));
		qi.qname_len = dname_from_str("v4.example.", qi.qname);
		qi.qtype = TYPE_AAAA;
		qi.qclass = CLASS_IN;
		qi.edns_do = 1;
		assert_int_equal(msg_cache_store_hashed(mc, &qi, wire, len,
			1000, SEC_INSECURE, synth, &h), 1);
		assert_int_equal(iter_msg_cached(mc, W("v4.example."),
			dname_valid(W("v4.example."), 255), TYPE_AAAA,
			CLASS_IN, 1001, 1, &rcode, answer, &auth), !synth);
	}
	ldns_rr_list_deep_free(answer);
	ldns_rr_list_deep_free(auth);
	free(wire);
	ldns_pkt_free(p);
	msg_cache_delete(mc);
}

static int count_set(void* arg, const struct packed_rrset* set)
{
	int* n = arg;
	n[0]++;
	n[1] += (int)set->count;
	return 1;
}

static void test_rrsets_grouped(void** state)
{
	static const char* rrs[] = {
		"A a.tld1. A 192.0.2.1",
		"A b.tld1. A 192.0.2.2",
		"A A.tld1. A 192.0.2.3",     /* same set as the first */
		"A a.tld1. AAAA ::1",
		NULL };
	ldns_pkt* p = reply(0, rrs);
	int n[2] = { 0, 0 };
	(void)state;
	assert_int_equal(rrlist_for_each_rrset(ldns_pkt_answer(p), count_set,
		n), 1);
	assert_int_equal(n[0], 3);
	assert_int_equal(n[1], 4);
	ldns_pkt_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_referral_no_ttl_extension),
		cmocka_unit_test(test_answer_trust_and_dname),
		cmocka_unit_test(test_answer_list),
		cmocka_unit_test(test_stored_with_its_sigs),
		cmocka_unit_test(test_delegation_from_cache),
		cmocka_unit_test(test_delegation_empty_ns_rdata),
		cmocka_unit_test(test_answer_needs_answer_trust),
		cmocka_unit_test(test_rrsets_grouped),
		cmocka_unit_test(test_any_from_cache),
		cmocka_unit_test(test_below_secure_nxdomain),
		cmocka_unit_test(test_synthesized_skipped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
