/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/rrset_test.c - the RRset cache: copies and views, TTL
 * and expiry, trust order, no TTL extension without refresh (ghost
 * domains), key flags, RRSIGs, closest NS, flushes, the memory bound
 * and 4 threads. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "services/cache/rrset.h"
#include "util/dname.h"

#define T0 ((time_t)1700000000)

/* An A RRset of n addresses 10.0.x.y at name. */
struct t_set {
	uint8_t owner[256];
	uint8_t rd[8][4];
	const uint8_t* rdp[8];
	uint16_t rdl[8];
	struct packed_rrset r;
};

static void mk_a(struct t_set* s, const char* name, uint32_t ttl, size_t n,
	uint8_t base)
{
	size_t i;
	memset(s, 0, sizeof(*s));
	s->r.owner_len = dname_from_str(name, s->owner);
	assert_true(s->r.owner_len > 0);
	s->r.owner = s->owner;
	s->r.type = TYPE_A;
	s->r.rclass = CLASS_IN;
	s->r.ttl = ttl;
	s->r.count = n;
	for(i = 0; i < n; i++) {
		s->rd[i][0] = 10;
		s->rd[i][1] = 0;
		s->rd[i][2] = base;
		s->rd[i][3] = (uint8_t)i;
		s->rdp[i] = s->rd[i];
		s->rdl[i] = 4;
	}
	s->r.rdata = s->rdp;
	s->r.rdlen = s->rdl;
}

/* NS RRset with one name server ("ns" + tag). */
struct t_ns {
	uint8_t owner[256], nsname[256];
	const uint8_t* rdp[1];
	uint16_t rdl[1];
	struct packed_rrset r;
};

static void mk_ns(struct t_ns* s, const char* zone, const char* ns,
	uint32_t ttl)
{
	memset(s, 0, sizeof(*s));
	s->r.owner_len = dname_from_str(zone, s->owner);
	s->r.owner = s->owner;
	s->rdl[0] = (uint16_t)dname_from_str(ns, s->nsname);
	s->rdp[0] = s->nsname;
	s->r.type = TYPE_NS;
	s->r.rclass = CLASS_IN;
	s->r.ttl = ttl;
	s->r.count = 1;
	s->r.rdata = s->rdp;
	s->r.rdlen = s->rdl;
}

static uint32_t ttl_left(struct rrset_cache* c, const char* name,
	uint16_t type, time_t now)
{
	uint8_t n[256];
	struct rrset_entry* e;
	struct packed_rrset v;
	dname_from_str(name, n);
	e = rrset_cache_lookup(c, n, type, CLASS_IN, 0, now);
	if(!e)
		return 0;
	rrset_entry_view(e, now, &v, NULL);
	rrset_cache_release(c, e);
	return v.ttl;
}

static void test_store_lookup(void** state)
{
	struct rrset_cache* c = rrset_cache_create(1 << 20, 4, 0, 86400);
	struct t_set s;
	struct rrset_entry* e;
	struct packed_rrset v, sv;
	uint8_t q[256];
	char buf[1024];
	(void)state;
	mk_a(&s, "WWW.Example.COM.", 300, 3, 1);
	assert_int_equal(rrset_cache_store(c, &s.r, NULL, 0,
		RRSET_TRUST_ANSWER, 0, T0), RRSET_STORED);
	memset(s.rd, 0xee, sizeof(s.rd));  /* the cache has its own copy */
	dname_from_str("www.EXAMPLE.com.", q);
	e = rrset_cache_lookup(c, q, TYPE_A, CLASS_IN, 0, T0 + 100);
	assert_non_null(e);
	rrset_entry_view(e, T0 + 100, &v, &sv);
	dname_to_str(v.owner, buf, sizeof(buf));
	assert_string_equal(buf, "www.example.com.");
	assert_int_equal(v.ttl, 200);
	assert_int_equal(v.count, 3);
	assert_int_equal(v.type, TYPE_A);
	assert_int_equal(v.rdlen[2], 4);
	assert_int_equal(v.rdata[2][2], 1);
	assert_int_equal(v.rdata[2][3], 2);
	assert_int_equal(sv.count, 0);
	assert_int_equal(e->trust, RRSET_TRUST_ANSWER);
	rrset_cache_release(c, e);
	/* other type, class, flags: misses */
	assert_null(rrset_cache_lookup(c, q, TYPE_AAAA, CLASS_IN, 0, T0));
	assert_null(rrset_cache_lookup(c, q, TYPE_A, CLASS_CH, 0, T0));
	assert_null(rrset_cache_lookup(c, q, TYPE_A, CLASS_IN,
		RRSET_FLAG_NSEC_APEX, T0));
	/* expiry */
	assert_int_equal(ttl_left(c, "www.example.com.", TYPE_A, T0 + 299), 1);
	assert_null(rrset_cache_lookup(c, q, TYPE_A, CLASS_IN, 0, T0 + 300));
	rrset_cache_delete(c);
}

static void test_ttl_rules(void** state)
{
	struct rrset_cache* c = rrset_cache_create(1 << 20, 4, 60, 3600);
	struct t_set s;
	(void)state;
	mk_a(&s, "low.example.", 10, 1, 1);
	assert_int_equal(rrset_cache_store(c, &s.r, NULL, 0,
		RRSET_TRUST_ANSWER, 0, T0), RRSET_STORED);
	assert_int_equal(ttl_left(c, "low.example.", TYPE_A, T0), 60);
	mk_a(&s, "high.example.", 86400, 1, 1);
	rrset_cache_store(c, &s.r, NULL, 0, RRSET_TRUST_ANSWER, 0, T0);
	assert_int_equal(ttl_left(c, "high.example.", TYPE_A, T0), 3600);
	/* top bit set: as 0, then raised to the minimum */
	mk_a(&s, "neg.example.", 0x80000001U, 1, 1);
	rrset_cache_store(c, &s.r, NULL, 0, RRSET_TRUST_ANSWER, 0, T0);
	assert_int_equal(ttl_left(c, "neg.example.", TYPE_A, T0), 60);
	rrset_cache_delete(c);
	/* TTL 0 without a minimum: not stored */
	c = rrset_cache_create(1 << 20, 4, 0, 3600);
	mk_a(&s, "zero.example.", 0, 1, 1);
	assert_int_equal(rrset_cache_store(c, &s.r, NULL, 0,
		RRSET_TRUST_ANSWER, 0, T0), RRSET_NOT_STORED);
	/* malformed: no RRs, bad owner */
	mk_a(&s, "x.example.", 10, 0, 1);
	assert_int_equal(rrset_cache_store(c, &s.r, NULL, 0,
		RRSET_TRUST_ANSWER, 0, T0), RRSET_NOT_STORED);
	mk_a(&s, "x.example.", 10, 1, 1);
	s.r.owner_len--;
	assert_int_equal(rrset_cache_store(c, &s.r, NULL, 0,
		RRSET_TRUST_ANSWER, 0, T0), RRSET_NOT_STORED);
	rrset_cache_delete(c);
}

static void test_trust(void** state)
{
	struct rrset_cache* c = rrset_cache_create(1 << 20, 4, 0, 86400);
	struct t_set glue, ans;
	uint8_t q[256];
	struct rrset_entry* e;
	(void)state;
	dname_from_str("ns1.example.", q);
	mk_a(&glue, "ns1.example.", 1000, 1, 1);
	mk_a(&ans, "ns1.example.", 300, 1, 2);
	assert_int_equal(rrset_cache_store(c, &glue.r, NULL, 0,
		RRSET_TRUST_GLUE, 0, T0), RRSET_STORED);
	/* the answer replaces glue */
	assert_int_equal(rrset_cache_store(c, &ans.r, NULL, 0,
		RRSET_TRUST_AUTH_ANSWER, 0, T0), RRSET_STORED);
	/* glue does not replace the answer, even with refresh */
	assert_int_equal(rrset_cache_store(c, &glue.r, NULL, 0,
		RRSET_TRUST_GLUE, 1, T0 + 10), RRSET_KEPT_OLD);
	e = rrset_cache_lookup(c, q, TYPE_A, CLASS_IN, 0, T0 + 10);
	assert_int_equal(e->rdata[0][2], 2);
	assert_int_equal(e->trust, RRSET_TRUST_AUTH_ANSWER);
	rrset_cache_release(c, e);
	/* ... until the answer expired */
	assert_int_equal(rrset_cache_store(c, &glue.r, NULL, 0,
		RRSET_TRUST_GLUE, 0, T0 + 300), RRSET_STORED);
	e = rrset_cache_lookup(c, q, TYPE_A, CLASS_IN, 0, T0 + 300);
	assert_int_equal(e->rdata[0][2], 1);
	rrset_cache_release(c, e);
	rrset_cache_delete(c);
}

/* The same delegation again does not live longer without refresh. */
static void test_no_ttl_extension(void** state)
{
	struct rrset_cache* c = rrset_cache_create(1 << 20, 4, 0, 86400);
	struct t_ns ns, ns2;
	struct rrset_entry* e;
	uint8_t q[256];
	(void)state;
	dname_from_str("ghost.example.", q);
	mk_ns(&ns, "ghost.example.", "ns.ghost.example.", 100);
	mk_ns(&ns2, "ghost.example.", "ns2.ghost.example.", 100);
	assert_int_equal(rrset_cache_store(c, &ns.r, NULL, 0,
		RRSET_TRUST_AUTHORITY, 0, T0), RRSET_STORED);
	/* same data, same trust: kept, TTL runs on */
	assert_int_equal(rrset_cache_store(c, &ns.r, NULL, 0,
		RRSET_TRUST_AUTHORITY, 0, T0 + 50), RRSET_KEPT_OLD);
	assert_int_equal(ttl_left(c, "ghost.example.", TYPE_NS, T0 + 50), 50);
	/* changed data: stored, but no later than the old expiry */
	assert_int_equal(rrset_cache_store(c, &ns2.r, NULL, 0,
		RRSET_TRUST_AUTHORITY, 0, T0 + 60), RRSET_STORED);
	assert_int_equal(ttl_left(c, "ghost.example.", TYPE_NS, T0 + 60), 40);
	/* higher trust, same data: trust goes up, expiry does not */
	assert_int_equal(rrset_cache_store(c, &ns2.r, NULL, 0,
		RRSET_TRUST_AUTH_ANSWER, 0, T0 + 70), RRSET_STORED);
	assert_int_equal(ttl_left(c, "ghost.example.", TYPE_NS, T0 + 70), 30);
	e = rrset_cache_lookup(c, q, TYPE_NS, CLASS_IN, 0, T0 + 70);
	assert_int_equal(e->trust, RRSET_TRUST_AUTH_ANSWER);
	rrset_cache_release(c, e);
	/* with refresh allowed: a new TTL */
	assert_int_equal(rrset_cache_store(c, &ns2.r, NULL, 0,
		RRSET_TRUST_AUTH_ANSWER, 1, T0 + 80), RRSET_STORED);
	assert_int_equal(ttl_left(c, "ghost.example.", TYPE_NS, T0 + 80), 100);
	/* expired: anything goes in again */
	assert_int_equal(rrset_cache_store(c, &ns.r, NULL, 0,
		RRSET_TRUST_GLUE, 0, T0 + 180), RRSET_STORED);
	assert_int_equal(ttl_left(c, "ghost.example.", TYPE_NS, T0 + 180),
		100);
	rrset_cache_delete(c);
}

static void test_sigs(void** state)
{
	struct rrset_cache* c = rrset_cache_create(1 << 20, 4, 0, 86400);
	struct t_set s, sig;
	struct rrset_entry* e;
	struct packed_rrset v, sv;
	(void)state;
	mk_a(&s, "signed.example.", 300, 2, 1);
	mk_a(&sig, "signed.example.", 200, 1, 9);  /* stand-in RRSIG rdata */
	sig.r.type = TYPE_RRSIG;
	assert_int_equal(rrset_cache_store(c, &s.r, &sig.r, 0,
		RRSET_TRUST_VALIDATED, 0, T0), RRSET_STORED);
	e = rrset_cache_lookup(c, s.owner, TYPE_A, CLASS_IN, 0, T0);
	rrset_entry_view(e, T0, &v, &sv);
	assert_int_equal(v.ttl, 200);   /* the least of RRs and RRSIGs */
	assert_int_equal(v.count, 2);
	assert_int_equal(sv.count, 1);
	assert_int_equal(sv.type, TYPE_RRSIG);
	assert_int_equal(sv.rdata[0][2], 9);
	rrset_cache_release(c, e);
	/* a flags word keeps a second entry apart */
	assert_int_equal(rrset_cache_store(c, &s.r, NULL, RRSET_FLAG_NSEC_APEX,
		RRSET_TRUST_ANSWER, 0, T0), RRSET_STORED);
	assert_int_equal(lruhash_count(c->table), 2);
	rrset_cache_delete(c);
}

/* A referenced entry stays valid when replaced or flushed. */
static void test_refs(void** state)
{
	struct rrset_cache* c = rrset_cache_create(1 << 20, 4, 0, 86400);
	struct t_set a, b;
	struct rrset_entry* e;
	(void)state;
	mk_a(&a, "r.example.", 300, 1, 1);
	mk_a(&b, "r.example.", 300, 1, 2);
	rrset_cache_store(c, &a.r, NULL, 0, RRSET_TRUST_ANSWER, 0, T0);
	e = rrset_cache_lookup(c, a.owner, TYPE_A, CLASS_IN, 0, T0);
	assert_int_equal(rrset_cache_store(c, &b.r, NULL, 0,
		RRSET_TRUST_ANSWER, 1, T0), RRSET_STORED);
	rrset_cache_flush_all(c);
	assert_int_equal(e->rdata[0][2], 1);
	rrset_cache_release(c, e);
	rrset_cache_delete(c);
}

static void test_closest_ns_and_flush(void** state)
{
	struct rrset_cache* c = rrset_cache_create(1 << 20, 4, 0, 86400);
	struct t_ns root, com, ex;
	struct t_set a;
	struct rrset_entry* e;
	uint8_t q[256];
	char buf[1024];
	(void)state;
	mk_ns(&root, ".", "a.root-servers.net.", 1000);
	mk_ns(&com, "com.", "a.gtld-servers.net.", 1000);
	mk_ns(&ex, "example.com.", "ns1.example.com.", 1000);
	mk_a(&a, "www.example.com.", 1000, 1, 1);
	rrset_cache_store(c, &root.r, NULL, 0, RRSET_TRUST_AUTHORITY, 0, T0);
	rrset_cache_store(c, &com.r, NULL, 0, RRSET_TRUST_AUTHORITY, 0, T0);
	rrset_cache_store(c, &ex.r, NULL, 0, RRSET_TRUST_AUTHORITY, 0, T0);
	rrset_cache_store(c, &a.r, NULL, 0, RRSET_TRUST_ANSWER, 0, T0);
	dname_from_str("a.b.WWW.example.com.", q);
	e = rrset_cache_closest_ns(c, q, CLASS_IN, T0);
	dname_to_str(e->owner, buf, sizeof(buf));
	assert_string_equal(buf, "example.com.");
	rrset_cache_release(c, e);
	dname_from_str("example.net.", q);
	e = rrset_cache_closest_ns(c, q, CLASS_IN, T0);
	assert_int_equal(e->owner_len, 1);
	rrset_cache_release(c, e);
	/* below a depth: example.com. (3 labels) only when more than 2 */
	dname_from_str("a.b.WWW.example.com.", q);
	e = rrset_cache_closest_ns_below(c, q, CLASS_IN, 2, T0);
	assert_non_null(e);
	dname_to_str(e->owner, buf, sizeof(buf));
	assert_string_equal(buf, "example.com.");
	rrset_cache_release(c, e);
	assert_null(rrset_cache_closest_ns_below(c, q, CLASS_IN, 3, T0));
	assert_null(rrset_cache_closest_ns_below(c, q, CLASS_IN, 6, T0));
	dname_from_str("example.net.", q);
	assert_null(rrset_cache_closest_ns_below(c, q, CLASS_IN, 1, T0));
	e = rrset_cache_closest_ns_below(c, q, CLASS_IN, 0, T0);
	assert_non_null(e);
	assert_int_equal(e->owner_len, 1);
	rrset_cache_release(c, e);
	/* remove one; flush a zone */
	dname_from_str("Example.com.", q);
	assert_int_equal(rrset_cache_remove(c, q, TYPE_NS, CLASS_IN, 0), 1);
	assert_int_equal(rrset_cache_remove(c, q, TYPE_NS, CLASS_IN, 0), 0);
	dname_from_str("com.", q);
	assert_int_equal(rrset_cache_flush_zone(c, q), 2);
	assert_int_equal(lruhash_count(c->table), 1);
	dname_from_str("www.example.com.", q);
	e = rrset_cache_closest_ns(c, q, CLASS_IN, T0);
	assert_int_equal(e->owner_len, 1);
	rrset_cache_release(c, e);
	assert_null(rrset_cache_closest_ns(c, q, CLASS_IN, T0 + 1000));
	rrset_cache_delete(c);
}

static void test_memory_bound(void** state)
{
	const size_t max = 1 << 20;
	struct rrset_cache* c = rrset_cache_create(max, 4, 0, 86400);
	struct t_set s;
	size_t i, m, peak = 0;
	char name[64];
	(void)state;
	for(i = 0; i < 100000; i++) {
		snprintf(name, sizeof(name), "h%zu.example.", i);
		mk_a(&s, name, 300, 2, (uint8_t)i);
		assert_int_equal(rrset_cache_store(c, &s.r, NULL, 0,
			RRSET_TRUST_ANSWER, 0, T0), RRSET_STORED);
		m = lruhash_get_mem(c->table);
		assert_true(m <= max);
		if(m > peak)
			peak = m;
		/* h0 stays hot */
		assert_int_equal(ttl_left(c, "h0.example.", TYPE_A, T0), 300);
	}
	assert_true(peak > max / 2);
	assert_int_equal(ttl_left(c, "h1.example.", TYPE_A, T0), 0);
	assert_int_equal(ttl_left(c, "h99999.example.", TYPE_A, T0), 300);
	printf("%zu entries in %zu bytes\n", lruhash_count(c->table),
		lruhash_get_mem(c->table));
	rrset_cache_delete(c);
}

struct thr {
	struct rrset_cache* c;
	unsigned seed;
	long hits;
	atomic_int* stop;
};

/* Entries hold 10.0.k.i for name hk: a reader checks that. */
static void* worker(void* arg)
{
	struct thr* t = arg;
	unsigned s = t->seed;
	while(!atomic_load_explicit(t->stop, memory_order_relaxed)) {
		struct t_set set;
		struct rrset_entry* e;
		unsigned k;
		char name[64];
		s = s * 1103515245u + 12345u;
		k = (s >> 8) % 3000;
		snprintf(name, sizeof(name), "h%u.Example.", k);
		mk_a(&set, name, 300, 1 + (s >> 4) % 4, (uint8_t)k);
		e = rrset_cache_lookup(t->c, set.owner, TYPE_A, CLASS_IN, 0, T0);
		if(e) {
			size_t i;
			for(i = 0; i < e->count; i++)
				if(e->rdlen[i] != 4 || e->rdata[i][2] != (uint8_t)k
					|| e->rdata[i][3] != i)
					abort();
			rrset_cache_release(t->c, e);
			t->hits++;
		}
		if(!e || ((s >> 20) & 7) == 0)
			rrset_cache_store(t->c, &set.r, NULL, 0,
				RRSET_TRUST_ANSWER, (s >> 24) & 1, T0);
	}
	return NULL;
}

static void test_threads(void** state)
{
	struct rrset_cache* c = rrset_cache_create(150000, 4, 0, 86400);
	pthread_t th[4];
	struct thr t[4];
	atomic_int stop = 0;
	long hits = 0;
	int i;
	(void)state;
	for(i = 0; i < 4; i++) {
		t[i].c = c;
		t[i].seed = (unsigned)i * 4099u + 3;
		t[i].hits = 0;
		t[i].stop = &stop;
		assert_int_equal(pthread_create(&th[i], NULL, worker, &t[i]), 0);
	}
	sleep(2);
	atomic_store(&stop, 1);
	for(i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		hits += t[i].hits;
	}
	printf("threads: %ld hits, %zu entries, %zu bytes\n", hits,
		lruhash_count(c->table), lruhash_get_mem(c->table));
	assert_true(hits > 0);
	assert_true(lruhash_get_mem(c->table) <= 150000);
	rrset_cache_delete(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_store_lookup),
		cmocka_unit_test(test_ttl_rules),
		cmocka_unit_test(test_trust),
		cmocka_unit_test(test_no_ttl_extension),
		cmocka_unit_test(test_sigs),
		cmocka_unit_test(test_refs),
		cmocka_unit_test(test_closest_ns_and_flush),
		cmocka_unit_test(test_memory_bound),
		cmocka_unit_test(test_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
