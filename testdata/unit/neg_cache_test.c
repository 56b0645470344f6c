/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/neg_cache_test.c - the aggressive NSEC cache: the
 * canonical-order treap (find, find_le and remove against a sorted
 * array, its depth with names inserted in order; names back from their
 * keys), and the cache built on it: NXDOMAIN, NODATA, empty
 * non-terminal, wildcard answer and wildcard NODATA made from stored
 * NSECs; TTLs capped by the records, the SOA and
 * cache-max-negative-ttl; expiry; what is never stored (no RRSIG, an
 * owner outside the signer's zone); the byte bound with LRU eviction;
 * flush_zone; the records taken from the RRset cache (gone or
 * unvalidated there: not used); 3,000 NSECs of a zone in 1m. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "services/cache/neg_cache.h"
#include "services/cache/negtree.h"
#include "services/cache/rrset.h"
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
		t[i].n.cklen = (uint16_t)negtree_ckey(t[i].name, t[i].ck);
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
			la = negtree_ckey(a, ka);
			lb = negtree_ckey(b, kb);
			/* the name comes back from its key (lowercased) */
			{
				uint8_t back[LDNS_MAX_DOMAINLEN + 1];
				size_t bl = negtree_ckey_name(ka, la, back);
				assert_int_equal(bl, dname_valid(a,
					LDNS_MAX_DOMAINLEN + 1));
				assert_int_equal(query_dname_compare(back, a),
					0);
			}
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
	negtree_init(&t, 12345);
	/* inserted in canonical order: the NSEC chain's order */
	for(i = 0; i < NAMES; i++) {
		struct tnode* x = &nodes[0];
		size_t j;
		for(j = 0; j < NAMES; j++)
			if(query_dname_compare(nodes[j].name,
				sorted[i].name) == 0)
				x = &nodes[j];
		assert_ptr_equal(negtree_insert(&t, &x->n), &x->n);
	}
	assert_int_equal(t.count, NAMES);
	/* a duplicate key is not inserted */
	{
		struct tnode dup = nodes[7];
		dup.n.key = dup.name;
		dup.n.ckey = dup.ck;
		assert_ptr_equal(negtree_insert(&t, &dup.n), &nodes[7].n);
		assert_int_equal(t.count, NAMES);
	}
	/* a treap stays shallow whatever the insertion order */
	assert_true(negtree_depth(&t) < 50);
	for(i = 0; i < NAMES; i++) {
		struct negtree_node* f = negtree_find(&t, sorted[i].name);
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
		f = negtree_find_le(&t, q);
		assert_non_null(f);
		assert_int_equal(query_dname_compare(f->key, sorted[i].name), 0);
	}
	assert_null(negtree_find_le(&t, (const uint8_t*)"\7example\0"));
	assert_int_equal(query_dname_compare(negtree_first(&t)->key,
		sorted[0].name), 0);
	/* remove every other one; the rest are still found */
	for(i = 0; i < NAMES; i += 2)
		negtree_remove(&t, negtree_find(&t, sorted[i].name));
	assert_int_equal(t.count, NAMES / 2);
	for(i = 0; i < NAMES; i++) {
		struct negtree_node* f = negtree_find_le(&t,
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

/* The RRset cache the NSEC and wildcard RRsets go to (4m, as
 * rrset-cache-size's default), new for each test. */
static struct rrset_cache* rc;

static int rc_setup(void** state)
{
	(void)state;
	rc = rrset_cache_create(4 * 1024 * 1024, 4, 0, 86400);
	return rc ? 0 : -1;
}

static int rc_teardown(void** state)
{
	(void)state;
	rrset_cache_delete(rc);
	rc = NULL;
	return 0;
}

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

static enum neg_answer synth(struct neg_cache* c, const char* name,
	uint16_t type, time_t now, uint32_t max_neg, ldns_rr_list** ans,
	ldns_rr_list** auth)
{
	uint8_t q[LDNS_MAX_DOMAINLEN + 1];
	assert_true(dname_from_str(name, q) > 0);
	return neg_cache_synth(c, q, type, now, max_neg, 1, ans, auth);
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
	struct neg_cache* c = neg_cache_create(1024 * 1024, rc);
	ldns_rr_list* auth = zone_denial(), *a, *n;
	(void)state;
	neg_cache_add(c, NULL, auth, T0);
	assert_int_equal(neg_cache_count(c), 5);
	/* after www: the last NSEC; the wildcard *.example. by the apex */
	assert_int_equal(synth(c, "zz.example.", LDNS_RR_TYPE_A, T0 + 10, 3600,
		&a, &n), NEG_NXDOMAIN);
	assert_null(a);
	assert_int_equal(count_type(n, LDNS_RR_TYPE_NSEC), 2);
	assert_int_equal(count_type(n, LDNS_RR_TYPE_SOA), 1);
	assert_int_equal(count_type(n, LDNS_RR_TYPE_RRSIG), 3);
	/* the SOA's MINIMUM (300) bounds every TTL, less the 10 s passed */
	assert_int_equal(max_ttl(n), 290);
	done(a, n);
	/* cache-max-negative-ttl lower still */
	assert_int_equal(synth(c, "zz.example.", LDNS_RR_TYPE_A, T0, 60,
		&a, &n), NEG_NXDOMAIN);
	assert_int_equal(max_ttl(n), 60);
	done(a, n);
	/* NODATA: the NSEC at www lacks AAAA; it has A: not answered */
	assert_int_equal(synth(c, "www.example.", LDNS_RR_TYPE_AAAA, T0, 3600,
		&a, &n), NEG_NODATA);
	assert_int_equal(count_type(n, LDNS_RR_TYPE_NSEC), 1);
	done(a, n);
	assert_int_equal(synth(c, "www.example.", LDNS_RR_TYPE_A, T0, 3600,
		&a, &n), NEG_NONE);
	assert_null(a);
	assert_null(n);
	/* b.example. is an empty non-terminal (a.b.example. exists) */
	assert_int_equal(synth(c, "b.example.", LDNS_RR_TYPE_A, T0, 3600,
		&a, &n), NEG_NODATA);
	done(a, n);
	/* c.example. is between a.b.example. and *.w.example.; *.example.
	 * between the apex and a.example. */
	assert_int_equal(synth(c, "c.example.", LDNS_RR_TYPE_A, T0, 3600,
		&a, &n), NEG_NXDOMAIN);
	done(a, n);
	/* after x.w.example. nothing is known */
	assert_int_equal(synth(c, "y.w.example.", LDNS_RR_TYPE_A, T0, 3600,
		&a, &n), NEG_NONE);
	/* DS at www: the parent side says no DS (no NS there either) */
	assert_int_equal(synth(c, "www.example.", LDNS_RR_TYPE_DS, T0, 3600,
		&a, &n), NEG_NODATA);
	done(a, n);
	/* another zone: nothing */
	assert_int_equal(synth(c, "zz.other.", LDNS_RR_TYPE_A, T0, 3600,
		&a, &n), NEG_NONE);
	/* past the NSEC TTL (600) but within the SOA's: expired, dropped */
	assert_int_equal(synth(c, "zz.example.", LDNS_RR_TYPE_A, T0 + 601,
		3600, &a, &n), NEG_NONE);
	/* the SOA (300) ends first for negative answers */
	neg_cache_flush_all(c);
	assert_int_equal(neg_cache_count(c), 0);
	neg_cache_add(c, NULL, auth, T0);
	assert_int_equal(synth(c, "zz.example.", LDNS_RR_TYPE_A, T0 + 300,
		3600, &a, &n), NEG_NONE);
	ldns_rr_list_deep_free(auth);
	neg_cache_delete(c);
}

static void test_wildcard(void** state)
{
	struct neg_cache* c = neg_cache_create(1024 * 1024, rc);
	ldns_rr_list* auth = zone_denial(), *a, *n;
	/* a wildcard answer: a.w.example. A signed with 2 labels */
	ldns_rr_list* ans = list("a.w.example. 500 IN A 192.0.2.1",
		SIG("a.w.example.", "A", "2", "500"), (char*)NULL);
	(void)state;
	neg_cache_add(c, ans, auth, T0);
	/* the index holds the 5 NSEC owners; the wildcard RRset went to
	 * the RRset cache as *.w.example., validated, with its RRSIG */
	assert_int_equal(neg_cache_count(c), 5);
	{
		uint8_t wn[LDNS_MAX_DOMAINLEN + 1];
		struct rrset_entry* e;
		assert_true(dname_from_str("*.w.example.", wn) > 0);
		e = rrset_cache_lookup(rc, wn, LDNS_RR_TYPE_A, 1, 0, T0);
		assert_non_null(e);
		assert_int_equal(e->trust, RRSET_TRUST_VALIDATED);
		assert_int_equal(e->count, 1);
		assert_int_equal(e->rrsig_count, 1);
		assert_int_equal(e->expire, T0 + 500);
		rrset_cache_release(rc, e);
	}
	assert_int_equal(synth(c, "b.w.example.", LDNS_RR_TYPE_A, T0 + 1, 3600,
		&a, &n), NEG_WILDCARD);
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
		assert_int_equal(neg_cache_synth(c, q, LDNS_RR_TYPE_A, T0, 3600,
			0, &a, &n), NEG_WILDCARD);
		assert_int_equal(ldns_rr_list_rr_count(a), 1);
		assert_null(n);
		done(a, n);
		assert_true(dname_from_str("zz.example.", q) > 0);
		assert_int_equal(neg_cache_synth(c, q, LDNS_RR_TYPE_A, T0, 3600,
			0, &a, &n), NEG_NXDOMAIN);
		assert_null(a);
		assert_int_equal(ldns_rr_list_rr_count(n), 1);
		assert_int_equal(count_type(n, LDNS_RR_TYPE_SOA), 1);
		done(a, n);
	}
	/* a type the wildcard's NSEC lacks: wildcard NODATA */
	assert_int_equal(synth(c, "b.w.example.", LDNS_RR_TYPE_MX, T0, 3600,
		&a, &n), NEG_NODATA);
	done(a, n);
	/* z.w.example. sorts after x.w.example.: not covered */
	assert_int_equal(synth(c, "z.w.example.", LDNS_RR_TYPE_A, T0, 3600,
		&a, &n), NEG_NONE);
	ldns_rr_list_deep_free(ans);
	ldns_rr_list_deep_free(auth);
	neg_cache_delete(c);
}

static void test_not_stored(void** state)
{
	struct neg_cache* c = neg_cache_create(1024 * 1024, rc);
	/* no RRSIG; an NSEC signed by a zone it is not in */
	ldns_rr_list* auth = list(SOA, SIG("example.", "SOA", "1", "900"),
		"www.example. 600 IN NSEC example. A RRSIG NSEC",
		"www.other. 600 IN NSEC other. A RRSIG NSEC",
		SIG("www.other.", "NSEC", "2", "600"), (char*)NULL);
	(void)state;
	neg_cache_add(c, NULL, auth, T0);
	assert_int_equal(neg_cache_count(c), 0);
	ldns_rr_list_deep_free(auth);
	/* aggressive-nsec with neg-cache-size 0: nothing kept */
	neg_cache_delete(c);
	c = neg_cache_create(0, rc);
	auth = zone_denial();
	neg_cache_add(c, NULL, auth, T0);
	assert_int_equal(neg_cache_count(c), 0);
	ldns_rr_list_deep_free(auth);
	neg_cache_delete(c);
}

/* Many zones' NSECs into a small cache: the bound holds, the newest
 * stay, flush_zone removes one zone. */
static void test_bound_and_flush(void** state)
{
	size_t max = 64 * 1024;
	struct neg_cache* c = neg_cache_create(max, rc);
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
			neg_cache_add(c, NULL, auth, T0);
			ldns_rr_list_deep_free(auth);
			assert_true(neg_cache_get_mem(c) <= max + 4096);
		}
	/* an index entry is about 110 bytes (the records are in the
	 * RRset cache), and each zone keeps its SOA with RRSIG as ldns
	 * objects (about 1,300 bytes with its name): 64 KiB holds some 19
	 * of the 40 zones of 20 NSECs (with the records copied here as
	 * wire, as before, it held more than 150 NSECs) */
	assert_true(neg_cache_count(c) < 800);
	assert_true(neg_cache_count(c) > 350);
	/* the last zone is there whole: x.n05.z39. and *.n05.z39. both
	 * lie between n05 and n06 */
	assert_int_equal(synth(c, "x.n05.z39.", LDNS_RR_TYPE_A, T0, 3600, &a,
		&n), NEG_NXDOMAIN);
	done(a, n);
	assert_int_equal(synth(c, "n05.z39.", LDNS_RR_TYPE_AAAA, T0, 3600, &a,
		&n), NEG_NODATA);
	done(a, n);
	/* the first zone was evicted */
	assert_int_equal(synth(c, "n05.z0.", LDNS_RR_TYPE_AAAA, T0, 3600, &a,
		&n), NEG_NONE);
	assert_int_equal(neg_cache_flush_zone(c, (const uint8_t*)"\3z39\0"),
		20);
	assert_int_equal(synth(c, "n05.z39.", LDNS_RR_TYPE_AAAA, T0, 3600, &a,
		&n), NEG_NONE);
	neg_cache_flush_all(c);
	assert_int_equal(neg_cache_count(c), 0);
	neg_cache_delete(c);
}

/* The NSECs are taken from the RRset cache at each answer: one gone from
 * there (flush_type NSEC, eviction) or not validated any more proves
 * nothing and leaves the index; the apex NSEC has its own key there. */
static void test_follows_rrset_cache(void** state)
{
	struct neg_cache* c = neg_cache_create(1024 * 1024, rc);
	ldns_rr_list* auth = zone_denial(), *a, *n;
	uint8_t www[LDNS_MAX_DOMAINLEN + 1], apex[LDNS_MAX_DOMAINLEN + 1];
	(void)state;
	assert_true(dname_from_str("www.example.", www) > 0);
	assert_true(dname_from_str("example.", apex) > 0);
	neg_cache_add(c, NULL, auth, T0);
	assert_int_equal(neg_cache_count(c), 5);
	/* the apex NSEC is under the apex key flag, the others not */
	assert_int_equal(rrset_cache_remove(rc, apex, LDNS_RR_TYPE_NSEC, 1,
		0), 0);
	assert_int_equal(synth(c, "zz.example.", LDNS_RR_TYPE_A, T0, 3600,
		&a, &n), NEG_NXDOMAIN);
	done(a, n);
	/* www -> apex covers zz: removed from the RRset cache, it is not
	 * used, and its entry leaves the index */
	assert_int_equal(rrset_cache_remove(rc, www, LDNS_RR_TYPE_NSEC, 1, 0),
		1);
	assert_int_equal(synth(c, "zz.example.", LDNS_RR_TYPE_A, T0, 3600,
		&a, &n), NEG_NONE);
	assert_null(a);
	assert_null(n);
	assert_int_equal(neg_cache_count(c), 4);
	/* c.example. needs a.b (covers it) and the apex NSEC (covers
	 * *.example.): with the apex NSEC gone, no NXDOMAIN either */
	assert_int_equal(synth(c, "c.example.", LDNS_RR_TYPE_A, T0, 3600,
		&a, &n), NEG_NXDOMAIN);
	done(a, n);
	assert_int_equal(rrset_cache_remove(rc, apex, LDNS_RR_TYPE_NSEC, 1,
		RRSET_FLAG_NSEC_APEX), 1);
	assert_int_equal(synth(c, "c.example.", LDNS_RR_TYPE_A, T0, 3600,
		&a, &n), NEG_NONE);
	assert_int_equal(neg_cache_count(c), 3);
	/* an NSEC the RRset cache holds only unvalidated (an answer to a
	 * question of type NSEC, after the validated one expired) */
	neg_cache_flush_all(c);
	rrset_cache_flush_all(rc);
	neg_cache_add(c, NULL, auth, T0);
	{
		const uint8_t* rd[1];
		uint16_t rl[1];
		uint8_t rdata[64];
		struct packed_rrset p;
		ldns_buffer* b = ldns_buffer_new(64);
		ldns_rr* r = ldns_rr_list_rr(auth, 2);  /* www NSEC */
		assert_int_equal(ldns_rr_rdata2buffer_wire(b, r),
			LDNS_STATUS_OK);
		memcpy(rdata, ldns_buffer_begin(b), ldns_buffer_position(b));
		rl[0] = (uint16_t)ldns_buffer_position(b);
		rd[0] = rdata;
		ldns_buffer_free(b);
		memset(&p, 0, sizeof(p));
		p.owner = www;
		p.owner_len = dname_valid(www, LDNS_MAX_DOMAINLEN + 1);
		p.type = LDNS_RR_TYPE_NSEC;
		p.rclass = 1;
		p.ttl = 600;
		p.count = 1;
		p.rdata = rd;
		p.rdlen = rl;
		/* a less trusted copy does not replace a fresh validated
		 * one: still answered */
		assert_int_equal(rrset_cache_store(rc, &p, NULL, 0,
			RRSET_TRUST_AUTH_ANSWER, 1, T0 + 10), RRSET_KEPT_OLD);
		assert_int_equal(synth(c, "zz.example.", LDNS_RR_TYPE_A,
			T0 + 10, 3600, &a, &n), NEG_NXDOMAIN);
		done(a, n);
		/* once it expired, the unvalidated copy takes its place */
		assert_int_equal(rrset_cache_store(rc, &p, NULL, 0,
			RRSET_TRUST_AUTH_ANSWER, 1, T0 + 600), RRSET_STORED);
		assert_int_equal(synth(c, "zz.example.", LDNS_RR_TYPE_A,
			T0 + 600, 3600, &a, &n), NEG_NONE);
	}
	ldns_rr_list_deep_free(auth);
	neg_cache_delete(c);
}

/* A zone of 3,000 NSECs at neg-cache-size 1m (its default): the index
 * holds them all (it held about 2,900 of a zone's NSECs when it kept the
 * records), each answers a name it covers, and an entry costs what an
 * index entry takes. */
#define BIG 3000
static void test_many_nsecs_fit(void** state)
{
	struct neg_cache* c = neg_cache_create(1024 * 1024, rc);
	ldns_rr_list* a, *n;
	int i;
	(void)state;
	for(i = 0; i < BIG; i++) {
		char t1[256], t2[512], t3[256], t4[256], next[32];
		ldns_rr_list* auth;
		/* owners h0000 .. h2999, the last pointing to the apex;
		 * a 64-byte signature, as ECDSA P-256's */
		if(i + 1 < BIG)
			snprintf(next, sizeof(next), "h%04d.big.", i + 1);
		else	snprintf(next, sizeof(next), "big.");
		snprintf(t1, sizeof(t1), "h%04d.big. 600 IN NSEC %s A RRSIG "
			"NSEC", i, next);
		snprintf(t2, sizeof(t2), "h%04d.big. 600 IN RRSIG NSEC 13 2 600 "
			"20301231000000 20200101000000 1 big. "
			"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
			"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", i);
		snprintf(t3, sizeof(t3), "big. 900 IN SOA ns.big. h.big. 1 3600 "
			"600 86400 300");
		snprintf(t4, sizeof(t4), "big. 900 IN RRSIG SOA 13 1 900 "
			"20301231000000 20200101000000 1 big. AAAA");
		auth = list(t1, t2, t3, t4, (char*)NULL);
		neg_cache_add(c, NULL, auth, T0);
		ldns_rr_list_deep_free(auth);
	}
	/* and the apex NSEC, which denies *.big. */
	{
		ldns_rr_list* auth = list("big. 600 IN NSEC h0000.big. SOA NS "
			"RRSIG NSEC", "big. 600 IN RRSIG NSEC 13 1 600 "
			"20301231000000 20200101000000 1 big. AAAA",
			(char*)NULL);
		neg_cache_add(c, NULL, auth, T0);
		ldns_rr_list_deep_free(auth);
	}
	assert_int_equal(neg_cache_count(c), BIG + 1);
	assert_true(neg_cache_get_mem(c) <= 1024 * 1024);
	assert_true(neg_cache_get_mem(c) / (BIG + 1) < 130);
	for(i = 0; i < BIG; i++) {
		char q[64];
		snprintf(q, sizeof(q), "h%04d-x.big.", i);
		assert_int_equal(synth(c, q, LDNS_RR_TYPE_A, T0 + 1, 3600, &a,
			&n), NEG_NXDOMAIN);
		assert_int_equal(count_type(n, LDNS_RR_TYPE_NSEC), 2);
		done(a, n);
	}
	assert_int_equal(neg_cache_count(c), BIG + 1);
	neg_cache_delete(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ckey_order),
		cmocka_unit_test(test_tree_against_sorted),
		cmocka_unit_test_setup_teardown(test_nxdomain_nodata,
			rc_setup, rc_teardown),
		cmocka_unit_test_setup_teardown(test_wildcard, rc_setup,
			rc_teardown),
		cmocka_unit_test_setup_teardown(test_not_stored, rc_setup,
			rc_teardown),
		cmocka_unit_test_setup_teardown(test_bound_and_flush,
			rc_setup, rc_teardown),
		cmocka_unit_test_setup_teardown(test_follows_rrset_cache,
			rc_setup, rc_teardown),
		cmocka_unit_test_setup_teardown(test_many_nsecs_fit,
			rc_setup, rc_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
