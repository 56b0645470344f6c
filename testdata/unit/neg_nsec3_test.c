/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/neg_nsec3_test.c - NSEC3 kept to prove DS absence
 * (services/cache/neg_nsec3.h), with real records: the zone example. was
 * signed by ldns-signzone (ECDSAP256, NSEC3 SHA-1, 5 iterations, salt
 * aabbccdd) with an insecure delegation insec. (its NSEC3 has NS only),
 * a secure one sec. (NS DS RRSIG), www. (A RRSIG) and the apex (NS SOA
 * ...); and once more with opt-out (-p), where unsigned. has an opt-out
 * NSEC3 (NS) and o1. is covered by one. The hashes are ldns-nsec3-hash's.
 * Checked: the hash-and-match answer (SOA, NSEC3, RRSIGs; TTLs the least
 * left, capped); no answer for an NSEC3 with DS, with SOA, without NS,
 * for a covered name (opt-out or not), with parameters past the
 * iteration bound or other than the zone's; unchecked records only for
 * the walk, forgotten when the walk finds them bogus; a referral outside
 * its bailiwick; expiry, flush and the byte bound; a message with 2,000
 * NSEC3s (16 owners looked at, none of more than 8 RRs kept). And held
 * by the aggressive NSEC cache (neg_cache.h, an index over the RRset cache):
 * a secure message's NSEC3 goes to this store only, never to the NSEC
 * index nor to the RRset cache, and the index's flushes reach it. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "services/cache/neg_nsec3.h"
#include "services/cache/neg_cache.h"
#include "services/cache/rrset.h"
#include "util/dname.h"

#define T0 1000000
#define BIG (1024 * 1024)

#define SIG " 300 IN RRSIG NSEC3 13 2 300 20261223222118 20261125222118 " \
	"62903 example. "
static const char* soa[] = {
	"example. 3600 IN SOA ns.example. hostmaster.example. 1 3600 900 "
	"604800 300",
	"example. 3600 IN RRSIG SOA 13 1 3600 20261223222118 20261125222118 "
	"62903 example. T1UY/BrA0+Al5NMBQblJBnVwAI0Gra+z2TLAEZByLGlR0f9Ucv5E"
	"SjqTBQjV6gD6Z1eqxC8aDMRqlxzcFlI1qA==", NULL };
/* insec.example. */
static const char* insec[] = {
	"cm0h0b1k3g9gqtg2k80gbh6tf6rps7np.example. 300 IN NSEC3 1 0 5 "
	"aabbccdd g3pjda7fr4drsoj35bhjh20k12bhe4a6 NS",
	"cm0h0b1k3g9gqtg2k80gbh6tf6rps7np.example." SIG "xmWS74JO8UD4HChFDTET"
	"0heopU+bEJKOvFDp86KS4+WSHjYnA6OAcAYpUSkqcQwM2Gb+Zv6z5hDDL2G1Uj36Ww==",
	NULL };
/* sec.example.: has a DS */
static const char* sec[] = {
	"g3pjda7fr4drsoj35bhjh20k12bhe4a6.example. 300 IN NSEC3 1 0 5 "
	"aabbccdd jpcij8uqgkvd2r9b7vbtq2tsehkfbbbj NS DS RRSIG",
	"g3pjda7fr4drsoj35bhjh20k12bhe4a6.example." SIG "wH/vQtToIsm1GvuOG1jA"
	"/cnyhG5UX78cHqLLzbIjc8vEbSq8rfdFZelaEqNw+j93PQgBNGWgkXyUxVVleHav2g==",
	NULL };
/* www.example.: no delegation */
static const char* www[] = {
	"o53kojknuasuf127o3smh83rdrgro713.example. 300 IN NSEC3 1 0 5 "
	"aabbccdd cm0h0b1k3g9gqtg2k80gbh6tf6rps7np A RRSIG",
	"o53kojknuasuf127o3smh83rdrgro713.example." SIG "m1F+XnMGASrgjQACXAvA"
	"Ayst4e9IE8zwfdccZm67gtd9eHro3O4uEmtuVWjOqhhwsFMJWRqVbEbOJg1MqwxidQ==",
	NULL };
/* the opt-out zone: unsigned.example. (its own NSEC3) and the one that
 * covers o1.example. (4ukamcos...) */
static const char* optout[] = {
	"12i1kilvj6isg6v4uflfatrk4863ojkl.example. 300 IN NSEC3 1 1 5 "
	"aabbccdd jpcij8uqgkvd2r9b7vbtq2tsehkfbbbj NS",
	"12i1kilvj6isg6v4uflfatrk4863ojkl.example." SIG "k64784g/DljvxGrofSmL"
	"nqNYtfO1XVllZXfnW+hFEjZN2r/9zCnJO9dHyaDCrUnyS1ehpBi+tomX2jPRhF3b/A==",
	NULL };

static ldns_rr_list* rrs(const char* const* a, const char* const* b)
{
	ldns_rr_list* l = ldns_rr_list_new();
	const char* const* sets[2] = { a, b };
	int s;
	assert_non_null(l);
	for(s = 0; s < 2; s++) {
		const char* const* p;
		for(p = sets[s]; p && *p; p++) {
			ldns_rr* rr = NULL;
			assert_int_equal(ldns_rr_new_frm_str(&rr, *p, 0, NULL,
				NULL), LDNS_STATUS_OK);
			assert_true(ldns_rr_list_push_rr(l, rr));
		}
	}
	return l;
}

static const uint8_t* wire(const char* s)
{
	static uint8_t buf[4][LDNS_MAX_DOMAINLEN + 1];
	static int n;
	uint8_t* b = buf[n++ % 4];
	assert_true(dname_from_str(s, b) > 0);
	return b;
}

static void add(struct neg_nsec3* c, const char* const* a,
	const char* const* b, const char* bailiwick,
	enum neg_nsec3_from from, time_t now)
{
	ldns_rr_list* l = rrs(a, b);
	neg_nsec3_add(c, l, bailiwick ? wire(bailiwick) : NULL, from, now);
	ldns_rr_list_deep_free(l);
}

/* The answer's types in order, "" when none. */
static int ds(struct neg_nsec3* c, const char* qname, time_t now,
	int checked_only, int dnssec, char* out, size_t len, uint32_t* ttl)
{
	ldns_rr_list* auth = NULL;
	size_t i;
	int r = neg_nsec3_ds(c, wire(qname), now, checked_only, dnssec,
		3600, &auth);
	out[0] = 0;
	for(i = 0; auth && i < ldns_rr_list_rr_count(auth); i++) {
		ldns_rr* rr = ldns_rr_list_rr(auth, i);
		char* t = ldns_rr_type2str(ldns_rr_get_type(rr));
		snprintf(out + strlen(out), len - strlen(out), "%s%s",
			i ? " " : "", t);
		free(t);
		if(ttl)
			*ttl = ldns_rr_ttl(rr);
	}
	ldns_rr_list_deep_free(auth);
	assert_true(r == (out[0] != 0));
	return r;
}

static void test_hash_and_match(void** state)
{
	struct neg_nsec3* c = neg_nsec3_create(BIG, 150);
	char t[256];
	uint32_t ttl = 0;
	(void)state;
	add(c, insec, soa, NULL, NEG_NSEC3_SECURE, T0);
	assert_int_equal(neg_nsec3_count(c), 1);
	/* the name's hash is the NSEC3's owner: NS, no DS, no SOA */
	assert_true(ds(c, "insec.example.", T0 + 10, 1, 1, t, sizeof(t),
		&ttl));
	assert_string_equal(t, "SOA RRSIG NSEC3 RRSIG");
	assert_int_equal(ttl, 290);    /* the NSEC3's 300, 10 s gone */
	/* any case; without DO no RRSIGs */
	assert_true(ds(c, "INSEC.Example.", T0, 1, 0, t, sizeof(t), NULL));
	assert_string_equal(t, "SOA NSEC3");
	/* below the delegation, or another name: nothing matches */
	assert_false(ds(c, "a.insec.example.", T0, 1, 1, t, sizeof(t), NULL));
	assert_false(ds(c, "o1.example.", T0, 1, 1, t, sizeof(t), NULL));
	assert_false(ds(c, "example.", T0, 1, 1, t, sizeof(t), NULL));
	/* the TTL ends: gone */
	assert_false(ds(c, "insec.example.", T0 + 300, 0, 1, t, sizeof(t),
		NULL));
	assert_int_equal(neg_nsec3_count(c), 0);
	neg_nsec3_delete(c);
}

static void test_bitmap_refuses(void** state)
{
	struct neg_nsec3* c = neg_nsec3_create(BIG, 150);
	char t[256];
	/* insec. with SOA added to its bitmap (a child apex NSEC3) */
	const char* apex[] = { "cm0h0b1k3g9gqtg2k80gbh6tf6rps7np.example. 300 "
		"IN NSEC3 1 0 5 aabbccdd g3pjda7fr4drsoj35bhjh20k12bhe4a6 NS "
		"SOA", insec[1], NULL };
	/* a second NSEC3 at insec.'s owner (a collision) that has DS */
	const char* coll[] = { insec[0], "cm0h0b1k3g9gqtg2k80gbh6tf6rps7np."
		"example. 300 IN NSEC3 1 0 5 aabbccdd "
		"g3pjda7fr4drsoj35bhjh20k12bhe4a7 NS DS", insec[1], NULL };
	(void)state;
	/* what cannot prove a DS absent is not even kept */
	add(c, sec, soa, NULL, NEG_NSEC3_SECURE, T0);
	add(c, www, NULL, NULL, NEG_NSEC3_SECURE, T0);
	assert_int_equal(neg_nsec3_count(c), 0);
	assert_false(ds(c, "sec.example.", T0, 0, 1, t, sizeof(t), NULL));
	assert_false(ds(c, "www.example.", T0, 0, 1, t, sizeof(t), NULL));
	/* the real one is kept; one with SOA or a collision with DS at
	 * its owner takes it out */
	add(c, insec, NULL, NULL, NEG_NSEC3_SECURE, T0);
	assert_true(ds(c, "insec.example.", T0, 1, 1, t, sizeof(t), NULL));
	add(c, apex, NULL, NULL, NEG_NSEC3_REFERRAL, T0);
	assert_false(ds(c, "insec.example.", T0, 0, 1, t, sizeof(t), NULL));
	add(c, insec, NULL, NULL, NEG_NSEC3_SECURE, T0);
	add(c, coll, NULL, NULL, NEG_NSEC3_SECURE, T0);
	assert_false(ds(c, "insec.example.", T0, 0, 1, t, sizeof(t), NULL));
	assert_int_equal(neg_nsec3_count(c), 0);
	neg_nsec3_delete(c);
}

static void test_optout(void** state)
{
	struct neg_nsec3* c = neg_nsec3_create(BIG, 150);
	char t[256];
	(void)state;
	add(c, optout, soa, NULL, NEG_NSEC3_SECURE, T0);
	/* o1.example. is only covered (opt-out): no answer */
	assert_false(ds(c, "o1.example.", T0, 0, 1, t, sizeof(t), NULL));
	assert_false(ds(c, "o1.example.", T0, 1, 1, t, sizeof(t), NULL));
	/* unsigned.example. has its own (opt-out) NSEC3 without DS: that
	 * proves it, as Unbound's exact match */
	assert_true(ds(c, "unsigned.example.", T0, 1, 1, t, sizeof(t), NULL));
	neg_nsec3_delete(c);
}

static void test_unchecked_only_for_the_walk(void** state)
{
	struct neg_nsec3* c = neg_nsec3_create(BIG, 150);
	char t[256];
	(void)state;
	/* a referral's, from a server of example. (or of .) */
	add(c, insec, soa, "example.", NEG_NSEC3_REFERRAL, T0);
	assert_false(ds(c, "insec.example.", T0, 1, 1, t, sizeof(t), NULL));
	assert_true(ds(c, "insec.example.", T0, 0, 1, t, sizeof(t), NULL));
	/* no SOA from a referral: the walk gets the NSEC3 alone */
	assert_string_equal(t, "NSEC3 RRSIG");
	/* the walk verified it: a client may have it, once the SOA of a
	 * secure answer is known */
	add(c, insec, NULL, NULL, NEG_NSEC3_VERIFIED, T0);
	assert_false(ds(c, "insec.example.", T0, 1, 1, t, sizeof(t), NULL));
	add(c, www, soa, NULL, NEG_NSEC3_SECURE, T0);
	assert_true(ds(c, "insec.example.", T0, 1, 1, t, sizeof(t), NULL));
	/* a referral repeating it does not take that back */
	add(c, insec, NULL, "example.", NEG_NSEC3_REFERRAL, T0 + 1);
	assert_true(ds(c, "insec.example.", T0 + 1, 1, 1, t, sizeof(t),
		NULL));
	/* a proof the walk found bogus is forgotten */
	{
		ldns_rr_list* l = rrs(insec, NULL);
		neg_nsec3_forget(c, l);
		ldns_rr_list_deep_free(l);
	}
	assert_false(ds(c, "insec.example.", T0 + 1, 0, 1, t, sizeof(t),
		NULL));
	assert_int_equal(neg_nsec3_count(c), 0);
	/* a referral from below the signer's zone is not kept */
	neg_nsec3_flush_all(c);
	add(c, insec, NULL, "sub.example.", NEG_NSEC3_REFERRAL, T0);
	assert_int_equal(neg_nsec3_count(c), 0);
	neg_nsec3_delete(c);
}

static void test_iterations_and_params(void** state)
{
	struct neg_nsec3* c = neg_nsec3_create(BIG, 4);
	char t[256];
	/* the same owner, with another salt: no longer the zone's hash */
	const char* salt[] = { "o53kojknuasuf127o3smh83rdrgro713.example. 300 "
		"IN NSEC3 1 0 5 ff cm0h0b1k3g9gqtg2k80gbh6tf6rps7np A RRSIG",
		www[1], NULL };
	(void)state;
	/* 5 iterations, the bound 4: kept, but sets no parameters */
	add(c, insec, soa, NULL, NEG_NSEC3_SECURE, T0);
	assert_int_equal(neg_nsec3_count(c), 1);
	assert_false(ds(c, "insec.example.", T0, 0, 1, t, sizeof(t), NULL));
	neg_nsec3_delete(c);
	c = neg_nsec3_create(BIG, 150);
	add(c, insec, soa, NULL, NEG_NSEC3_SECURE, T0);
	assert_true(ds(c, "insec.example.", T0, 1, 1, t, sizeof(t), NULL));
	/* the zone takes the newest parameters: salt ff hashes insec.
	 * elsewhere */
	add(c, salt, NULL, NULL, NEG_NSEC3_SECURE, T0);
	assert_false(ds(c, "insec.example.", T0, 1, 1, t, sizeof(t), NULL));
	add(c, www, NULL, NULL, NEG_NSEC3_SECURE, T0);
	assert_true(ds(c, "insec.example.", T0, 1, 1, t, sizeof(t), NULL));
	neg_nsec3_delete(c);
}

static void test_ttl_cap_flush_and_bound(void** state)
{
	struct neg_nsec3* c = neg_nsec3_create(BIG, 150);
	struct neg_nsec3* small, *small0 = neg_nsec3_create(BIG, 150);
	ldns_rr_list* auth = NULL;
	size_t one;
	char t[256];
	int i;
	(void)state;
	add(c, insec, soa, NULL, NEG_NSEC3_SECURE, T0);
	assert_true(neg_nsec3_ds(c, wire("insec.example."), T0, 1, 1, 60,
		&auth));
	assert_int_equal(ldns_rr_ttl(ldns_rr_list_rr(auth, 0)), 60);
	ldns_rr_list_deep_free(auth);
	/* the SOA is kept min(TTL, MINIMUM) = 300 s too */
	assert_true(ds(c, "insec.example.", T0 + 299, 1, 1, t, sizeof(t),
		NULL));
	assert_true(neg_nsec3_get_mem(c) > 0);
	assert_int_equal(neg_nsec3_flush_zone(c, wire("other.")), 0);
	assert_int_equal(neg_nsec3_flush_zone(c, wire("example.")), 1);
	assert_false(ds(c, "insec.example.", T0, 0, 1, t, sizeof(t), NULL));
	neg_nsec3_delete(c);
	/* a bound of one record: the older goes */
	c = neg_nsec3_create(BIG, 150);
	add(c, insec, NULL, NULL, NEG_NSEC3_SECURE, T0);
	one = neg_nsec3_get_mem(c) - neg_nsec3_get_mem(small0);
	neg_nsec3_delete(c);
	small = neg_nsec3_create(one + one / 4, 150);
	for(i = 0; i < 5; i++) {
		add(small, insec, NULL, NULL, NEG_NSEC3_SECURE, T0 + i);
		add(small, optout, NULL, NULL, NEG_NSEC3_SECURE, T0 + i);
		assert_int_equal(neg_nsec3_count(small), 1);
		assert_true(neg_nsec3_get_mem(small) <=
			neg_nsec3_get_mem(small0) + one + one / 4);
	}
	assert_true(ds(small, "unsigned.example.", T0 + 5, 0, 1, t, sizeof(t),
		NULL));
	assert_false(ds(small, "insec.example.", T0 + 5, 0, 1, t, sizeof(t),
		NULL));
	neg_nsec3_delete(small);
	neg_nsec3_delete(small0);
	/* size 0: nothing kept, nothing answered */
	c = neg_nsec3_create(0, 150);
	add(c, insec, soa, NULL, NEG_NSEC3_SECURE, T0);
	assert_int_equal(neg_nsec3_count(c), 0);
	assert_false(ds(c, "insec.example.", T0, 0, 1, t, sizeof(t), NULL));
	neg_nsec3_delete(c);
	/* the root has no parent zone to ask */
	assert_false(ds(NULL, ".", T0, 0, 1, t, sizeof(t), NULL));
}

/* One NSEC3 (NS only) at owner o with next hash k, or its RRSIG. */
static void push_nsec3(ldns_rr_list* l, int o, int k, int sig)
{
	char text[512];
	ldns_rr* rr = NULL;
	if(sig)
		snprintf(text, sizeof(text), "%029d%03d.example.%s%s", 0, o,
			SIG, "xmWS74JO8UD4HChFDTET0heopU+bEJKOvFDp86KS4+WSHjYnA6OA"
			"cAYpUSkqcQwM2Gb+Zv6z5hDDL2G1Uj36Ww==");
	else
		snprintf(text, sizeof(text), "%029d%03d.example. 300 IN NSEC3 "
			"1 0 5 aabbccdd %029d%03d NS", 0, o, 0, k);
	assert_int_equal(ldns_rr_new_frm_str(&rr, text, 0, NULL, NULL),
		LDNS_STATUS_OK);
	assert_true(ldns_rr_list_push_rr(l, rr));
}

/* A hostile message costs no more than its first 16 NSEC3 owners, and
 * an owner with more than 8 NSEC3 RRs is not kept. */
static void test_many_nsec3s(void** state)
{
	struct neg_nsec3* c = neg_nsec3_create(BIG, 150);
	ldns_rr_list* l = ldns_rr_list_new();
	int o, k;
	(void)state;
	/* 20 owners of one NSEC3 each: 16 are looked at */
	for(o = 0; o < 20; o++) {
		push_nsec3(l, o, 0, 0);
		push_nsec3(l, o, 0, 1);
	}
	neg_nsec3_add(c, l, NULL, NEG_NSEC3_SECURE, T0);
	assert_int_equal(neg_nsec3_count(c), 16);
	ldns_rr_list_deep_free(l);
	neg_nsec3_flush_all(c);
	/* 10 owners of one, then 10 of 200 RRs (2,000 NSEC3s) */
	l = ldns_rr_list_new();
	for(o = 0; o < 20; o++) {
		for(k = 0; k < (o < 10 ? 1 : 200); k++)
			push_nsec3(l, 100 + o, k, 0);
		push_nsec3(l, 100 + o, 0, 1);
	}
	neg_nsec3_add(c, l, NULL, NEG_NSEC3_SECURE, T0);
	assert_int_equal(neg_nsec3_count(c), 10);
	ldns_rr_list_deep_free(l);
	neg_nsec3_delete(c);
}

/* Through the aggressive NSEC cache (the index over the RRset cache): a
 * secure message's NSEC3 is kept in this store only, its hashed owner is
 * neither an index entry nor an RRset cache entry, the index's synth
 * proves nothing with it, and the index's flushes drop it. */
static void test_beside_the_index(void** state)
{
	struct rrset_cache* rc = rrset_cache_create(BIG, 4, 0, 86400);
	struct neg_cache* n;
	ldns_rr_list* l, *ans = NULL, *auth = NULL;
	struct rrset_entry* e;
	char t[256];
	(void)state;
	assert_non_null(rc);
	assert_non_null(n = neg_cache_create(BIG, rc));
	l = rrs(insec, soa);
	neg_cache_add(n, NULL, l, T0);
	assert_int_equal(neg_cache_count(n), 0);
	assert_int_equal(neg_nsec3_count(neg_nsec3_of(n)), 1);
	e = rrset_cache_lookup(rc,
		wire("cm0h0b1k3g9gqtg2k80gbh6tf6rps7np.example."),
		LDNS_RR_TYPE_NSEC3, LDNS_RR_CLASS_IN, 0, T0);
	assert_null(e);
	assert_int_equal(neg_cache_synth(n, wire("insec.example."),
		LDNS_RR_TYPE_DS, T0, 3600, 1, &ans, &auth), NEG_NONE);
	assert_true(ds(neg_nsec3_of(n), "insec.example.", T0, 1, 1, t,
		sizeof(t), NULL));
	assert_string_equal(t, "SOA RRSIG NSEC3 RRSIG");
	assert_true(neg_cache_get_mem(n) >
		neg_nsec3_get_mem(neg_nsec3_of(n)));
	assert_int_equal(neg_cache_flush_zone(n, wire("example.")), 1);
	assert_false(ds(neg_nsec3_of(n), "insec.example.", T0, 0, 1, t,
		sizeof(t), NULL));
	neg_cache_add(n, NULL, l, T0);
	neg_cache_flush_all(n);
	assert_int_equal(neg_nsec3_count(neg_nsec3_of(n)), 0);
	neg_cache_delete(n);
	/* neg-cache-size 0 keeps no NSEC3 either; without an RRset cache
	 * (no NSEC kept) the NSEC3 store still works */
	assert_non_null(n = neg_cache_create(0, rc));
	neg_cache_add(n, NULL, l, T0);
	assert_int_equal(neg_nsec3_count(neg_nsec3_of(n)), 0);
	neg_cache_delete(n);
	assert_non_null(n = neg_cache_create(BIG, NULL));
	neg_cache_add(n, NULL, l, T0);
	assert_int_equal(neg_cache_count(n), 0);
	assert_int_equal(neg_nsec3_count(neg_nsec3_of(n)), 1);
	neg_cache_delete(n);
	ldns_rr_list_deep_free(l);
	rrset_cache_delete(rc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hash_and_match),
		cmocka_unit_test(test_bitmap_refuses),
		cmocka_unit_test(test_optout),
		cmocka_unit_test(test_unchecked_only_for_the_walk),
		cmocka_unit_test(test_iterations_and_params),
		cmocka_unit_test(test_ttl_cap_flush_and_bound),
		cmocka_unit_test(test_many_nsec3s),
		cmocka_unit_test(test_beside_the_index),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
