/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/val_neg_test.c - the aggressive NSEC cache: the
 * canonical-order treap (find, find_le and remove against a sorted
 * array, its depth with names inserted in order), and the cache built
 * on it: NXDOMAIN, NODATA, empty non-terminal, wildcard answer and
 * wildcard NODATA made from stored NSECs; TTLs capped by the records,
 * the SOA and cache-max-negative-ttl; expiry; what is never stored (no
 * RRSIG, an owner outside the signer's zone); the byte bound with LRU
 * eviction; flush_zone. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "validator/val_neg.h"
#include "validator/val_negtree.h"
#include "util/dname.h"

#define T0 1000000

/* ---- the tree ------------------------------------------------------- */

#define NAMES 2000

struct tnode {
	struct negtree_node n;
	uint8_t name[LDNS_MAX_DOMAINLEN + 1];
	uint8_t ck[NEGTREE_CKEY_MAX];
};

static int cmp_names(const void* a, const void* b)
{
	return dname_canonical_compare(((const struct tnode*)a)->name,
		((const struct tnode*)b)->name);
}

static void make_names(struct tnode* t, size_t n)
{
	size_t i;
	for(i = 0; i < n; i++) {
		char s[64];
		/* two levels, so the order is not the byte order */
		snprintf(s, sizeof(s), "h%zu.n%zu.example.", i % 37, i);
		assert_true(dname_from_str(s, t[i].name) > 0);
		t[i].n.key = t[i].name;
		t[i].n.ckey = t[i].ck;
		t[i].n.cklen = (uint16_t)val_negtree_ckey(t[i].name, t[i].ck);
	}
}

/* The canonical key orders as dname_canonical_compare, also for names
 * with upper case, 0x00 and 0x01 bytes and labels that are prefixes. */
static void test_ckey_order(void** state)
{
	static const char* names[] = { "example.", "a.example.",
		"yljkjljk.a.example.", "Z.a.example.", "zABC.a.EXAMPLE.",
		"z.example.", "\\001.z.example.", "*.z.example.",
		"\\200.z.example.", "\\000.z.example.", "\\001\\000.z.example.",
		"ab.example.", "a-.example.", "aa.example.", "org.", "." };
	size_t n = sizeof(names) / sizeof(names[0]), i, j;
	(void)state;
	for(i = 0; i < n; i++)
		for(j = 0; j < n; j++) {
			uint8_t a[LDNS_MAX_DOMAINLEN + 1], b[LDNS_MAX_DOMAINLEN + 1];
			uint8_t ka[NEGTREE_CKEY_MAX], kb[NEGTREE_CKEY_MAX];
			size_t la, lb;
			int want, got;
			ldns_rdf* ra = ldns_dname_new_frm_str(names[i]);
			ldns_rdf* rb = ldns_dname_new_frm_str(names[j]);
			assert_non_null(ra);
			assert_non_null(rb);
			memcpy(a, ldns_rdf_data(ra), ldns_rdf_size(ra));
			memcpy(b, ldns_rdf_data(rb), ldns_rdf_size(rb));
			ldns_rdf_deep_free(ra);
			ldns_rdf_deep_free(rb);
			la = val_negtree_ckey(a, ka);
			lb = val_negtree_ckey(b, kb);
			want = dname_canonical_compare(a, b);
			got = memcmp(ka, kb, la < lb ? la : lb);
			if(got == 0)
				got = la < lb ? -1 : la > lb ? 1 : 0;
			assert_int_equal(want < 0, got < 0);
			assert_int_equal(want > 0, got > 0);
		}
}

static void test_tree_against_sorted(void** state)
{
	static struct tnode nodes[NAMES], sorted[NAMES];
	struct negtree t;
	size_t i;
	(void)state;
	make_names(nodes, NAMES);
	memcpy(sorted, nodes, sizeof(sorted));
	qsort(sorted, NAMES, sizeof(sorted[0]), cmp_names);
	val_negtree_init(&t, 12345);
	/* inserted in canonical order: the NSEC chain's order */
	for(i = 0; i < NAMES; i++) {
		struct tnode* x = &nodes[0];
		size_t j;
		for(j = 0; j < NAMES; j++)
			if(query_dname_compare(nodes[j].name,
				sorted[i].name) == 0)
				x = &nodes[j];
		assert_ptr_equal(val_negtree_insert(&t, &x->n), &x->n);
	}
	assert_int_equal(t.count, NAMES);
	/* a duplicate key is not inserted */
	{
		struct tnode dup = nodes[7];
		dup.n.key = dup.name;
		dup.n.ckey = dup.ck;
		assert_ptr_equal(val_negtree_insert(&t, &dup.n), &nodes[7].n);
		assert_int_equal(t.count, NAMES);
	}
	/* a treap stays shallow whatever the insertion order */
	assert_true(val_negtree_depth(&t) < 50);
	for(i = 0; i < NAMES; i++) {
		struct negtree_node* f = val_negtree_find(&t, sorted[i].name);
		assert_non_null(f);
		assert_int_equal(query_dname_compare(f->key, sorted[i].name), 0);
	}
	/* find_le: a name just after sorted[i] ("zzz" below it sorts after
	 * it and before sorted[i+1] unless that is below it too) */
	for(i = 0; i < NAMES; i++) {
		uint8_t q[LDNS_MAX_DOMAINLEN + 1];
		struct negtree_node* f;
		q[0] = 3;
		memcpy(q + 1, "zzz", 3);
		memcpy(q + 4, sorted[i].name, dname_valid(sorted[i].name,
			LDNS_MAX_DOMAINLEN + 1));
		f = val_negtree_find_le(&t, q);
		assert_non_null(f);
		assert_int_equal(query_dname_compare(f->key, sorted[i].name), 0);
	}
	assert_null(val_negtree_find_le(&t, (const uint8_t*)"\7example\0"));
	assert_int_equal(query_dname_compare(val_negtree_first(&t)->key,
		sorted[0].name), 0);
	/* remove every other one; the rest are still found */
	for(i = 0; i < NAMES; i += 2)
		val_negtree_remove(&t, val_negtree_find(&t, sorted[i].name));
	assert_int_equal(t.count, NAMES / 2);
	for(i = 0; i < NAMES; i++) {
		struct negtree_node* f = val_negtree_find_le(&t,
			sorted[i].name);
		if(i % 2) {
			assert_int_equal(query_dname_compare(f->key,
				sorted[i].name), 0);
		} else if(i == 0) {
			assert_null(f);
		} else {
			assert_int_equal(query_dname_compare(f->key,
				sorted[i - 1].name), 0);
		}
	}
}

/* ---- the cache ------------------------------------------------------ */

static ldns_rr* rr(const char* text)
{
	ldns_rr* r = NULL;
	assert_int_equal(ldns_rr_new_frm_str(&r, text, 3600, NULL, NULL),
		LDNS_STATUS_OK);
	return r;
}

static ldns_rr_list* list(const char* first, ...)
{
	ldns_rr_list* l = ldns_rr_list_new();
	va_list ap;
	const char* s;
	va_start(ap, first);
	for(s = first; s; s = va_arg(ap, const char*))
		ldns_rr_list_push_rr(l, rr(s));
	va_end(ap);
	return l;
}

#define SIG(owner, type, labels, ttl) owner " " ttl " IN RRSIG " type \
	" 13 " labels " 3600 20301231000000 20200101000000 4711 example. " \
	"AAAA"
#define SOA "example. 900 IN SOA ns.example. h.example. 1 3600 600 " \
	"86400 300"

/* example.: apex -> a -> a.b (b an empty non-terminal) -> *.w -> (x.w,
 * whose NSEC is not here) ... www -> apex */
static ldns_rr_list* zone_denial(void)
{
	return list(SOA, SIG("example.", "SOA", "1", "900"),
		"www.example. 600 IN NSEC example. A RRSIG NSEC",
		SIG("www.example.", "NSEC", "2", "600"),
		"example. 600 IN NSEC a.example. SOA NS RRSIG NSEC DNSKEY",
		SIG("example.", "NSEC", "1", "600"),
		"a.example. 600 IN NSEC a.b.example. A RRSIG NSEC",
		SIG("a.example.", "NSEC", "2", "600"),
		"a.b.example. 600 IN NSEC *.w.example. A RRSIG NSEC",
		SIG("a.b.example.", "NSEC", "3", "600"),
		"*.w.example. 600 IN NSEC x.w.example. A RRSIG NSEC",
		SIG("*.w.example.", "NSEC", "3", "600"), (char*)NULL);
}

static enum val_neg_answer synth(struct val_neg_cache* c, const char* name,
	uint16_t type, time_t now, uint32_t max_neg, ldns_rr_list** ans,
	ldns_rr_list** auth)
{
	uint8_t q[LDNS_MAX_DOMAINLEN + 1];
	assert_true(dname_from_str(name, q) > 0);
	return val_neg_synth(c, q, type, now, max_neg, 1, ans, auth);
}

static size_t count_type(const ldns_rr_list* l, ldns_rr_type t)
{
	size_t i, n = 0;
	for(i = 0; l && i < ldns_rr_list_rr_count(l); i++)
		n += ldns_rr_get_type(ldns_rr_list_rr(l, i)) == t;
	return n;
}

static uint32_t max_ttl(const ldns_rr_list* l)
{
	size_t i;
	uint32_t m = 0;
	for(i = 0; l && i < ldns_rr_list_rr_count(l); i++)
		if(ldns_rr_ttl(ldns_rr_list_rr(l, i)) > m)
			m = ldns_rr_ttl(ldns_rr_list_rr(l, i));
	return m;
}

static void done(ldns_rr_list* a, ldns_rr_list* b)
{
	ldns_rr_list_deep_free(a);
	ldns_rr_list_deep_free(b);
}

static void test_nxdomain_nodata(void** state)
{
	struct val_neg_cache* c = val_neg_create(1024 * 1024);
	ldns_rr_list* auth = zone_denial(), *a, *n;
	(void)state;
	val_neg_add(c, NULL, auth, T0);
	assert_int_equal(val_neg_count(c), 5);
	/* after www: the last NSEC; the wildcard *.example. by the apex */
	assert_int_equal(synth(c, "zz.example.", LDNS_RR_TYPE_A, T0 + 10, 3600,
		&a, &n), VAL_NEG_NXDOMAIN);
	assert_null(a);
	assert_int_equal(count_type(n, LDNS_RR_TYPE_NSEC), 2);
	assert_int_equal(count_type(n, LDNS_RR_TYPE_SOA), 1);
	assert_int_equal(count_type(n, LDNS_RR_TYPE_RRSIG), 3);
	/* the SOA's MINIMUM (300) bounds every TTL, less the 10 s passed */
	assert_int_equal(max_ttl(n), 290);
	done(a, n);
	/* cache-max-negative-ttl lower still */
	assert_int_equal(synth(c, "zz.example.", LDNS_RR_TYPE_A, T0, 60,
		&a, &n), VAL_NEG_NXDOMAIN);
	assert_int_equal(max_ttl(n), 60);
	done(a, n);
	/* NODATA: the NSEC at www lacks AAAA; it has A: not answered */
	assert_int_equal(synth(c, "www.example.", LDNS_RR_TYPE_AAAA, T0, 3600,
		&a, &n), VAL_NEG_NODATA);
	assert_int_equal(count_type(n, LDNS_RR_TYPE_NSEC), 1);
	done(a, n);
	assert_int_equal(synth(c, "www.example.", LDNS_RR_TYPE_A, T0, 3600,
		&a, &n), VAL_NEG_NONE);
	assert_null(a);
	assert_null(n);
	/* b.example. is an empty non-terminal (a.b.example. exists) */
	assert_int_equal(synth(c, "b.example.", LDNS_RR_TYPE_A, T0, 3600,
		&a, &n), VAL_NEG_NODATA);
	done(a, n);
	/* c.example. is between a.b.example. and *.w.example.; *.example.
	 * between the apex and a.example. */
	assert_int_equal(synth(c, "c.example.", LDNS_RR_TYPE_A, T0, 3600,
		&a, &n), VAL_NEG_NXDOMAIN);
	done(a, n);
	/* after x.w.example. nothing is known */
	assert_int_equal(synth(c, "y.w.example.", LDNS_RR_TYPE_A, T0, 3600,
		&a, &n), VAL_NEG_NONE);
	/* DS at www: the parent side says no DS (no NS there either) */
	assert_int_equal(synth(c, "www.example.", LDNS_RR_TYPE_DS, T0, 3600,
		&a, &n), VAL_NEG_NODATA);
	done(a, n);
	/* another zone: nothing */
	assert_int_equal(synth(c, "zz.other.", LDNS_RR_TYPE_A, T0, 3600,
		&a, &n), VAL_NEG_NONE);
	/* past the NSEC TTL (600) but within the SOA's: expired, dropped */
	assert_int_equal(synth(c, "zz.example.", LDNS_RR_TYPE_A, T0 + 601,
		3600, &a, &n), VAL_NEG_NONE);
	/* the SOA (300) ends first for negative answers */
	val_neg_flush_all(c);
	assert_int_equal(val_neg_count(c), 0);
	val_neg_add(c, NULL, auth, T0);
	assert_int_equal(synth(c, "zz.example.", LDNS_RR_TYPE_A, T0 + 300,
		3600, &a, &n), VAL_NEG_NONE);
	ldns_rr_list_deep_free(auth);
	val_neg_delete(c);
}

static void test_wildcard(void** state)
{
	struct val_neg_cache* c = val_neg_create(1024 * 1024);
	ldns_rr_list* auth = zone_denial(), *a, *n;
	/* a wildcard answer: a.w.example. A signed with 2 labels */
	ldns_rr_list* ans = list("a.w.example. 500 IN A 192.0.2.1",
		SIG("a.w.example.", "A", "2", "500"), (char*)NULL);
	(void)state;
	val_neg_add(c, ans, auth, T0);
	assert_int_equal(val_neg_count(c), 6);
	assert_int_equal(synth(c, "b.w.example.", LDNS_RR_TYPE_A, T0 + 1, 3600,
		&a, &n), VAL_NEG_WILDCARD);
	assert_int_equal(ldns_rr_list_rr_count(a), 2);
	{
		char* s = ldns_rdf2str(ldns_rr_owner(ldns_rr_list_rr(a, 0)));
		assert_string_equal(s, "b.w.example.");
		free(s);
	}
	assert_int_equal(count_type(n, LDNS_RR_TYPE_NSEC), 1);
	assert_int_equal(max_ttl(a), 499);
	done(a, n);
	/* for a client without DO: no RRSIG, no NSEC */
	{
		uint8_t q[LDNS_MAX_DOMAINLEN + 1];
		assert_true(dname_from_str("b.w.example.", q) > 0);
		assert_int_equal(val_neg_synth(c, q, LDNS_RR_TYPE_A, T0, 3600,
			0, &a, &n), VAL_NEG_WILDCARD);
		assert_int_equal(ldns_rr_list_rr_count(a), 1);
		assert_null(n);
		done(a, n);
		assert_true(dname_from_str("zz.example.", q) > 0);
		assert_int_equal(val_neg_synth(c, q, LDNS_RR_TYPE_A, T0, 3600,
			0, &a, &n), VAL_NEG_NXDOMAIN);
		assert_null(a);
		assert_int_equal(ldns_rr_list_rr_count(n), 1);
		assert_int_equal(count_type(n, LDNS_RR_TYPE_SOA), 1);
		done(a, n);
	}
	/* a type the wildcard's NSEC lacks: wildcard NODATA */
	assert_int_equal(synth(c, "b.w.example.", LDNS_RR_TYPE_MX, T0, 3600,
		&a, &n), VAL_NEG_NODATA);
	done(a, n);
	/* z.w.example. sorts after x.w.example.: not covered */
	assert_int_equal(synth(c, "z.w.example.", LDNS_RR_TYPE_A, T0, 3600,
		&a, &n), VAL_NEG_NONE);
	ldns_rr_list_deep_free(ans);
	ldns_rr_list_deep_free(auth);
	val_neg_delete(c);
}

static void test_not_stored(void** state)
{
	struct val_neg_cache* c = val_neg_create(1024 * 1024);
	/* no RRSIG; an NSEC signed by a zone it is not in */
	ldns_rr_list* auth = list(SOA, SIG("example.", "SOA", "1", "900"),
		"www.example. 600 IN NSEC example. A RRSIG NSEC",
		"www.other. 600 IN NSEC other. A RRSIG NSEC",
		SIG("www.other.", "NSEC", "2", "600"), (char*)NULL);
	(void)state;
	val_neg_add(c, NULL, auth, T0);
	assert_int_equal(val_neg_count(c), 0);
	ldns_rr_list_deep_free(auth);
	/* aggressive-nsec with neg-cache-size 0: nothing kept */
	val_neg_delete(c);
	c = val_neg_create(0);
	auth = zone_denial();
	val_neg_add(c, NULL, auth, T0);
	assert_int_equal(val_neg_count(c), 0);
	ldns_rr_list_deep_free(auth);
	val_neg_delete(c);
}

/* Many zones' NSECs into a small cache: the bound holds, the newest
 * stay, flush_zone removes one zone. */
static void test_bound_and_flush(void** state)
{
	size_t max = 64 * 1024;
	struct val_neg_cache* c = val_neg_create(max);
	int z, i;
	ldns_rr_list* a, *n;
	(void)state;
	for(z = 0; z < 40; z++)
		for(i = 0; i < 20; i++) {
			char t1[256], t2[256], t3[256], t4[256];
			ldns_rr_list* auth;
			snprintf(t1, sizeof(t1), "n%02d.z%d. 600 IN NSEC n%02d.z%d."
				" A RRSIG NSEC", i, z, i + 1, z);
			snprintf(t2, sizeof(t2), "n%02d.z%d. 600 IN RRSIG NSEC 13 "
				"2 600 20301231000000 20200101000000 1 z%d. AAAA",
				i, z, z);
			snprintf(t3, sizeof(t3), "z%d. 900 IN SOA ns.z%d. h.z%d. "
				"1 3600 600 86400 300", z, z, z);
			snprintf(t4, sizeof(t4), "z%d. 900 IN RRSIG SOA 13 1 900 "
				"20301231000000 20200101000000 1 z%d. AAAA", z, z);
			auth = list(t1, t2, t3, t4, (char*)NULL);
			val_neg_add(c, NULL, auth, T0);
			ldns_rr_list_deep_free(auth);
			assert_true(val_neg_get_mem(c) <= max + 4096);
		}
	/* stored as wire: about 300 bytes a record with a short RSA-less
	 * RRSIG, its zone's SOA included */
	assert_true(val_neg_count(c) < 800);
	assert_true(val_neg_count(c) > 150);
	/* the last zone is there whole: x.n05.z39. and *.n05.z39. both
	 * lie between n05 and n06 */
	assert_int_equal(synth(c, "x.n05.z39.", LDNS_RR_TYPE_A, T0, 3600, &a,
		&n), VAL_NEG_NXDOMAIN);
	done(a, n);
	assert_int_equal(synth(c, "n05.z39.", LDNS_RR_TYPE_AAAA, T0, 3600, &a,
		&n), VAL_NEG_NODATA);
	done(a, n);
	/* the first zone was evicted */
	assert_int_equal(synth(c, "n05.z0.", LDNS_RR_TYPE_AAAA, T0, 3600, &a,
		&n), VAL_NEG_NONE);
	assert_int_equal(val_neg_flush_zone(c, (const uint8_t*)"\3z39\0"),
		20);
	assert_int_equal(synth(c, "n05.z39.", LDNS_RR_TYPE_AAAA, T0, 3600, &a,
		&n), VAL_NEG_NONE);
	val_neg_flush_all(c);
	assert_int_equal(val_neg_count(c), 0);
	val_neg_delete(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ckey_order),
		cmocka_unit_test(test_tree_against_sorted),
		cmocka_unit_test(test_nxdomain_nodata),
		cmocka_unit_test(test_wildcard),
		cmocka_unit_test(test_not_stored),
		cmocka_unit_test(test_bound_and_flush),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
