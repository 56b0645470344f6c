/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/val_kcache_test.c - the key cache: store and lookup of
 * the three kinds of entry, expiry, the val-bogus-ttl of bad entries,
 * the byte bound (eviction), flush_zone / flush_bogus, the closest
 * lookup, and readers in two threads while entries are replaced and
 * evicted (run it under ASan/TSan builds too). */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "validator/val_kcache.h"
#include "util/dname.h"
#include "util/msgencode.h"

#define T0 1000000
#define CLASS_IN 1

static const uint8_t* wire(const char* s)
{
	static uint8_t buf[8][LDNS_MAX_DOMAINLEN + 1];
	static int i;
	i = (i + 1) % 8;
	assert_true(dname_from_str(s, buf[i]) > 0);
	return buf[i];
}

/* A DNSKEY RRset for zone with n keys of size bytes, key i filled with
 * the byte seed + i. */
struct keyset {
	struct packed_rrset rr;
	const uint8_t* rdata[8];
	uint16_t rdlen[8];
	uint8_t data[8][300];
};

static void keyset_make(struct keyset* k, const char* zone, size_t n,
	size_t size, uint8_t seed, uint32_t ttl)
{
	size_t i;
	memset(k, 0, sizeof(*k));
	k->rr.owner = wire(zone);
	k->rr.owner_len = dname_valid(k->rr.owner, LDNS_MAX_DOMAINLEN + 1);
	k->rr.type = 48;
	k->rr.rclass = CLASS_IN;
	k->rr.ttl = ttl;
	k->rr.count = n;
	for(i = 0; i < n; i++) {
		memset(k->data[i], seed + (int)i, size);
		k->data[i][0] = 1;   /* flags 257, protocol 3, alg 8 */
		k->data[i][1] = 1;
		k->data[i][2] = 3;
		k->data[i][3] = 8;
		k->rdata[i] = k->data[i];
		k->rdlen[i] = (uint16_t)size;
	}
	k->rr.rdata = k->rdata;
	k->rr.rdlen = k->rdlen;
}

static void test_store_lookup(void** state)
{
	struct val_kcache* kc = val_kcache_create(1 << 20, 4, 60);
	struct keyset k;
	const struct val_kentry* e;
	struct packed_rrset v;
	struct val_reason why = { "no DNSKEY for the DS", VAL_EDE_DNSKEY_MISSING };
	(void)state;
	assert_non_null(kc);
	keyset_make(&k, "Example.COM.", 2, 100, 7, 3600);
	assert_true(val_kcache_store_good(kc, &k.rr, T0));
	e = val_kcache_lookup(kc, wire("example.com."), CLASS_IN, T0 + 10);
	assert_non_null(e);
	assert_int_equal(e->status, VAL_KEY_GOOD);
	assert_int_equal(e->count, 2);
	assert_memory_equal(e->name, wire("example.com."), 13); /* lowered */
	assert_memory_equal(e->rdata[1], k.data[1], 100);
	assert_int_equal(e->rdlen[0], 100);
	val_kentry_view(e, T0 + 10, &v);
	assert_int_equal(v.count, 2);
	assert_int_equal(v.ttl, 3590);
	assert_int_equal(v.type, 48);
	assert_int_equal(v.rclass, CLASS_IN);
	assert_ptr_equal(v.rdata, e->rdata);
	/* any case, not another class */
	val_kcache_release(kc, e);
	e = val_kcache_lookup(kc, wire("EXAMPLE.com."), CLASS_IN, T0);
	assert_non_null(e);
	val_kcache_release(kc, e);
	assert_null(val_kcache_lookup(kc, wire("example.com."), 3, T0));
	assert_null(val_kcache_lookup(kc, wire("www.example.com."), CLASS_IN,
		T0));
	/* the caller's data may go: the entry holds a copy */
	memset(&k, 0, sizeof(k));

	/* a null key (insecure) and a bad key with its reason */
	assert_true(val_kcache_store_null(kc, wire("insecure.example."),
		CLASS_IN, 300, T0));
	e = val_kcache_lookup(kc, wire("insecure.example."), CLASS_IN, T0);
	assert_int_equal(e->status, VAL_KEY_NULL);
	assert_int_equal(e->count, 0);
	val_kentry_view(e, T0, &v);
	assert_int_equal(v.count, 0);
	val_kcache_release(kc, e);
	assert_true(val_kcache_store_bad(kc, wire("bogus.example."), CLASS_IN,
		&why, T0));
	e = val_kcache_lookup(kc, wire("bogus.example."), CLASS_IN, T0);
	assert_int_equal(e->status, VAL_KEY_BAD);
	assert_string_equal(e->reason, "no DNSKEY for the DS");
	assert_int_equal(e->ede, VAL_EDE_DNSKEY_MISSING);
	assert_int_equal(e->ttl, 60);
	val_kcache_release(kc, e);
	assert_true(val_kcache_store_bad(kc, wire("noreason.example."),
		CLASS_IN, NULL, T0));
	e = val_kcache_lookup(kc, wire("noreason.example."), CLASS_IN, T0);
	assert_null(e->reason);
	assert_int_equal(e->ede, VAL_EDE_NONE);
	val_kcache_release(kc, e);
	/* a store replaces: bad after good */
	assert_true(val_kcache_store_bad(kc, wire("example.com."), CLASS_IN,
		&why, T0));
	e = val_kcache_lookup(kc, wire("example.com."), CLASS_IN, T0);
	assert_int_equal(e->status, VAL_KEY_BAD);
	val_kcache_release(kc, e);
	assert_int_equal(val_kcache_count(kc), 4);
	assert_true(val_kcache_get_mem(kc) > 0);
	/* malformed input is refused */
	keyset_make(&k, "example.org.", 1, 50, 1, 10);
	k.rr.count = 0;
	assert_false(val_kcache_store_good(kc, &k.rr, T0));
	assert_false(val_kcache_store_null(kc, (const uint8_t*)"\077abc",
		CLASS_IN, 10, T0));
	val_kcache_delete(kc);
}

static void test_expiry(void** state)
{
	struct val_kcache* kc = val_kcache_create(1 << 20, 1, 5);
	struct keyset k;
	const struct val_kentry* e;
	(void)state;
	keyset_make(&k, "example.", 1, 60, 3, 100);
	assert_true(val_kcache_store_good(kc, &k.rr, T0));
	assert_true(val_kcache_store_bad(kc, wire("bad.example."), CLASS_IN,
		NULL, T0));
	assert_true(val_kcache_store_null(kc, wire("null.example."),
		CLASS_IN, 0x80000001U, T0));  /* top bit: as zero */
	e = val_kcache_lookup(kc, wire("example."), CLASS_IN, T0 + 99);
	assert_non_null(e);
	val_kcache_release(kc, e);
	assert_null(val_kcache_lookup(kc, wire("example."), CLASS_IN,
		T0 + 100));
	/* val-bogus-ttl (5 here) for bad entries */
	e = val_kcache_lookup(kc, wire("bad.example."), CLASS_IN, T0 + 4);
	assert_non_null(e);
	val_kcache_release(kc, e);
	assert_null(val_kcache_lookup(kc, wire("bad.example."), CLASS_IN,
		T0 + 5));
	assert_null(val_kcache_lookup(kc, wire("null.example."), CLASS_IN,
		T0));
	/* expired entries are not the closest either */
	assert_null(val_kcache_lookup_closest(kc, wire("a.bad.example."),
		CLASS_IN, T0 + 200));
	val_kcache_delete(kc);
}

static void test_closest(void** state)
{
	struct val_kcache* kc = val_kcache_create(1 << 20, 2, 60);
	struct keyset k;
	const struct val_kentry* e;
	(void)state;
	keyset_make(&k, ".", 1, 100, 1, 1000);
	assert_true(val_kcache_store_good(kc, &k.rr, T0));
	keyset_make(&k, "example.com.", 1, 100, 2, 1000);
	assert_true(val_kcache_store_good(kc, &k.rr, T0));
	assert_true(val_kcache_store_null(kc, wire("corp.example.com."),
		CLASS_IN, 1000, T0));
	e = val_kcache_lookup_closest(kc, wire("a.b.example.com."), CLASS_IN,
		T0);
	assert_memory_equal(e->name, wire("example.com."), 13);
	val_kcache_release(kc, e);
	e = val_kcache_lookup_closest(kc, wire("x.Corp.example.com."),
		CLASS_IN, T0);
	assert_int_equal(e->status, VAL_KEY_NULL);
	val_kcache_release(kc, e);
	e = val_kcache_lookup_closest(kc, wire("example.org."), CLASS_IN, T0);
	assert_int_equal(e->namelen, 1);   /* the root */
	val_kcache_release(kc, e);
	e = val_kcache_lookup_closest(kc, wire("example.com."), CLASS_IN, T0);
	assert_memory_equal(e->name, wire("example.com."), 13);
	val_kcache_release(kc, e);
	assert_null(val_kcache_lookup_closest(kc, wire("example.com."), 3,
		T0));
	val_kcache_delete(kc);
}

static void test_size_bound(void** state)
{
	/* 64 KiB, one slab: ~300-byte entries, far more stored than fit */
	struct val_kcache* kc = val_kcache_create(65536, 1, 60);
	struct keyset k;
	const struct val_kentry* e;
	char name[64];
	int i, found = 0;
	(void)state;
	for(i = 0; i < 2000; i++) {
		snprintf(name, sizeof(name), "z%d.example.", i);
		keyset_make(&k, name, 1, 260, (uint8_t)i, 3600);
		assert_true(val_kcache_store_good(kc, &k.rr, T0));
		assert_true(val_kcache_get_mem(kc) <= 65536 + 4096);
	}
	assert_true(val_kcache_count(kc) < 2000);
	assert_true(val_kcache_count(kc) > 50);
	/* the last stored are there, the first were evicted */
	e = val_kcache_lookup(kc, wire("z1999.example."), CLASS_IN, T0);
	assert_non_null(e);
	val_kcache_release(kc, e);
	assert_null(val_kcache_lookup(kc, wire("z0.example."), CLASS_IN, T0));
	for(i = 0; i < 2000; i++) {
		snprintf(name, sizeof(name), "z%d.example.", i);
		if((e = val_kcache_lookup(kc, wire(name), CLASS_IN, T0))) {
			found++;
			val_kcache_release(kc, e);
		}
	}
	assert_int_equal((size_t)found, val_kcache_count(kc));
	/* an entry larger than a slab's share is not stored */
	{
		struct val_kcache* small = val_kcache_create(1024, 1, 60);
		keyset_make(&k, "big.example.", 8, 300, 1, 60);
		assert_false(val_kcache_store_good(small, &k.rr, T0));
		assert_int_equal(val_kcache_count(small), 0);
		val_kcache_delete(small);
	}
	val_kcache_delete(kc);
}

static void test_flush(void** state)
{
	struct val_kcache* kc = val_kcache_create(1 << 20, 4, 60);
	struct keyset k;
	struct val_reason why = { "bogus", VAL_EDE_DNSSEC_BOGUS };
	const struct val_kentry* held;
	(void)state;
	keyset_make(&k, "example.com.", 1, 100, 1, 1000);
	assert_true(val_kcache_store_good(kc, &k.rr, T0));
	keyset_make(&k, "sub.example.com.", 1, 100, 2, 10);
	assert_true(val_kcache_store_good(kc, &k.rr, T0));
	keyset_make(&k, "example.net.", 1, 100, 3, 1000);
	assert_true(val_kcache_store_good(kc, &k.rr, T0));
	assert_true(val_kcache_store_bad(kc, wire("bad.example.net."),
		CLASS_IN, &why, T0));
	assert_true(val_kcache_store_bad(kc, wire("bad2.example.org."),
		CLASS_IN, &why, T0));
	assert_true(val_kcache_store_null(kc, wire("null.example.org."),
		CLASS_IN, 1000, T0));
	assert_int_equal(val_kcache_count(kc), 6);
	/* a reader holding an entry keeps it readable across a flush */
	held = val_kcache_lookup(kc, wire("example.com."), CLASS_IN, T0);
	assert_non_null(held);
	/* flush_zone example.com at T0+20: both removed, one was fresh */
	assert_int_equal(val_kcache_flush_zone(kc, wire("Example.com."),
		T0 + 20), 1);
	assert_int_equal(val_kcache_count(kc), 4);
	assert_null(val_kcache_lookup(kc, wire("example.com."), CLASS_IN,
		T0));
	assert_int_equal(held->count, 1);
	assert_int_equal(held->rdata[0][4], 1 + 0);
	val_kcache_release(kc, held);
	/* flush_bogus / flush_negative: the bad entries */
	assert_int_equal(val_kcache_flush_bad(kc), 2);
	assert_int_equal(val_kcache_count(kc), 2);
	assert_null(val_kcache_lookup(kc, wire("bad.example.net."), CLASS_IN,
		T0));
	assert_non_null(held = val_kcache_lookup(kc, wire("null.example.org."),
		CLASS_IN, T0));
	val_kcache_release(kc, held);
	assert_int_equal(val_kcache_flush_zone(kc, wire("."), T0), 2);
	assert_int_equal(val_kcache_count(kc), 0);
	assert_true(val_kcache_store_null(kc, wire("a."), CLASS_IN, 1, T0));
	val_kcache_flush_all(kc);
	assert_int_equal(val_kcache_count(kc), 0);
	val_kcache_delete(kc);
	/* no cache: empty */
	assert_int_equal(val_kcache_flush_zone(NULL, wire("."), T0), 0);
	assert_int_equal(val_kcache_flush_bad(NULL), 0);
	assert_int_equal(val_kcache_count(NULL), 0);
	assert_int_equal(val_kcache_get_mem(NULL), 0);
	val_kcache_flush_all(NULL);
	val_kcache_delete(NULL);
}

/* Two readers look up (exact and closest) and read the whole entry
 * while the main thread replaces and evicts entries. */
struct reader_arg {
	struct val_kcache* kc;
	atomic_int* stop;
	size_t hits;
};

static void* reader(void* p)
{
	struct reader_arg* a = p;
	char name[64];
	unsigned i = 0;
	while(!atomic_load(a->stop)) {
		uint8_t nm[LDNS_MAX_DOMAINLEN + 1];
		const struct val_kentry* e;
		snprintf(name, sizeof(name), "www.z%u.example.", i++ % 300);
		dname_from_str(name, nm);
		e = (i & 1) ? val_kcache_lookup_closest(a->kc, nm, CLASS_IN,
			T0) : val_kcache_lookup(a->kc,
			dname_remove_label(nm), CLASS_IN, T0);
		if(e) {
			size_t k, j, sum = 0;
			for(k = 0; k < e->count; k++)
				for(j = 0; j < e->rdlen[k]; j++)
					sum += e->rdata[k][j];
			if(sum && e->namelen > 1)
				a->hits++;
			val_kcache_release(a->kc, e);
		}
	}
	return NULL;
}

static void test_concurrent_readers(void** state)
{
	struct val_kcache* kc = val_kcache_create(32768, 2, 60);
	struct reader_arg ra[2];
	pthread_t th[2];
	atomic_int stop;
	struct keyset k;
	char name[64];
	int i;
	(void)state;
	atomic_init(&stop, 0);
	for(i = 0; i < 2; i++) {
		ra[i].kc = kc;
		ra[i].stop = &stop;
		ra[i].hits = 0;
		assert_int_equal(pthread_create(&th[i], NULL, reader, &ra[i]),
			0);
	}
	for(i = 0; i < 30000; i++) {
		snprintf(name, sizeof(name), "z%d.example.", i % 300);
		keyset_make(&k, name, 1 + (size_t)(i % 3), 200, (uint8_t)i,
			3600);
		(void)val_kcache_store_good(kc, &k.rr, T0);
		if(i % 1000 == 999)
			(void)val_kcache_flush_zone(kc, wire("example."), T0);
	}
	atomic_store(&stop, 1);
	for(i = 0; i < 2; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	assert_true(ra[0].hits + ra[1].hits > 0);
	assert_true(val_kcache_get_mem(kc) <= 32768 + 4096);
	val_kcache_delete(kc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_store_lookup),
		cmocka_unit_test(test_expiry),
		cmocka_unit_test(test_closest),
		cmocka_unit_test(test_size_bound),
		cmocka_unit_test(test_flush),
		cmocka_unit_test(test_concurrent_readers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
