/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/port_pool_test.c - the shared outgoing port pool and the
 * random number source: parsing of permit/avoid, distinct ports, the
 * outgoing-range bound, returns, threads, and statistical sanity of the
 * random draws (loose bounds, no timing). */
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
#include <pthread.h>
#include <stdatomic.h>
#include "services/port_pool.h"
#include "util/config_file.h"
#include "util/random.h"

static uint8_t avail[PORT_SET_SIZE];

static void test_mark(void** state)
{
	(void)state;
	memset(avail, 0, sizeof(avail));
	assert_int_equal(port_set_mark(avail, "53", 1), 1);
	assert_int_equal(avail[53], 1);
	assert_int_equal(port_set_mark(avail, "1000-2000", 1), 1);
	assert_int_equal(port_set_count(avail), 1 + 1001);
	assert_int_equal(port_set_mark(avail, " 1500 - 1599 ", 0), 1);
	assert_int_equal(port_set_count(avail), 1 + 1001 - 100);
	assert_int_equal(avail[1499], 1);
	assert_int_equal(avail[1500], 0);
	assert_int_equal(avail[1599], 0);
	assert_int_equal(avail[1600], 1);
	assert_int_equal(port_set_mark(avail, "0-10", 1), 1);
	assert_int_equal(avail[0], 0);   /* never port 0 */
	assert_int_equal(avail[10], 1);
	assert_int_equal(port_set_mark(avail, "65535", 1), 1);
	assert_int_equal(avail[65535], 1);
	assert_int_equal(port_set_mark(avail, "65536", 1), 0);
	assert_int_equal(port_set_mark(avail, "x", 1), 0);
	assert_int_equal(port_set_mark(avail, "", 1), 0);
	assert_int_equal(port_set_mark(avail, "20-10", 1), 0);
	assert_int_equal(port_set_mark(avail, "-5", 1), 0);
	assert_int_equal(port_set_mark(avail, "5-", 1), 0);
	assert_int_equal(port_set_mark(avail, "1-2-3", 1), 0);
	port_set_default(avail);
	assert_int_equal(avail[1023], 0);
	assert_int_equal(avail[1024], 1);
	assert_int_equal(avail[65535], 1);
	assert_int_equal(port_set_count(avail), 65536 - 1024);
}

static void test_from_cfg(void** state)
{
	char fname[] = "/tmp/port_pool_testXXXXXX";
	int fd = mkstemp(fname);
	FILE* f;
	struct config_file* cfg;
	(void)state;
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	/* file order matters: the last line wins for 2000 */
	fprintf(f, "server:\n"
		"  outgoing-port-avoid: 1024-65535\n"
		"  outgoing-port-permit: 2000-2009\n"
		"  outgoing-port-permit: 3000\n"
		"  outgoing-port-avoid: 2000\n"
		"  outgoing-range: 5\n");
	fclose(f);
	cfg = config_create();
	assert_non_null(cfg);
	assert_int_equal(config_read(cfg, fname, NULL), 1);
	unlink(fname);
	assert_int_equal(port_set_from_cfg(avail, cfg), 1);
	assert_int_equal(port_set_count(avail), 10);
	assert_int_equal(avail[2000], 0);
	assert_int_equal(avail[2001], 1);
	assert_int_equal(avail[3000], 1);
	assert_int_equal(cfg->outgoing_num_ports, 5);
	config_delete(cfg);
	/* no lines: the default set */
	cfg = config_create();
	assert_int_equal(port_set_from_cfg(avail, cfg), 1);
	assert_int_equal(port_set_count(avail), 65536 - 1024);
	config_delete(cfg);
}

/* reload: a new set and range while ports are out; the old ports come
 * back but are not handed out again, the new range holds once they
 * did, and a bad new set leaves the pool as it was. */
static void test_reconfigure(void** state)
{
	struct ub_randstate* rnd = ub_initstate();
	struct port_pool* p;
	int old[10], got[3], i, port;
	(void)state;
	memset(avail, 0, sizeof(avail));
	port_set_mark(avail, "20000-20099", 1);
	p = port_pool_create(avail, 100);
	assert_non_null(p);
	for(i = 0; i < 10; i++)
		old[i] = port_pool_take(p, rnd);
	/* shrink to 3 ports, outgoing-range 2 */
	memset(avail, 0, sizeof(avail));
	port_set_mark(avail, "40001-40003", 1);
	assert_int_equal(port_pool_reconfigure(p, avail, 2), 1);
	/* 10 old ports still out: over the new range */
	assert_int_equal(port_pool_take(p, rnd), -1);
	for(i = 0; i < 10; i++)
		port_pool_return(p, old[i]);
	assert_int_equal(port_pool_inuse(p), 0);
	for(i = 0; i < 2; i++) {
		got[i] = port_pool_take(p, rnd);
		assert_in_range(got[i], 40001, 40003);
	}
	assert_int_equal(port_pool_take(p, rnd), -1);   /* range 2 */
	/* an empty set or range 0: refused, nothing changes */
	memset(avail, 0, sizeof(avail));
	assert_int_equal(port_pool_reconfigure(p, avail, 5), 0);
	port_set_mark(avail, "50000", 1);
	assert_int_equal(port_pool_reconfigure(p, avail, 0), 0);
	assert_int_equal(port_pool_take(p, rnd), -1);
	port_pool_return(p, got[1]);
	port = port_pool_take(p, rnd);
	assert_in_range(port, 40001, 40003);
	got[1] = port;
	/* widen again: all 100 of the first set, range 100 */
	memset(avail, 0, sizeof(avail));
	port_set_mark(avail, "20000-20099", 1);
	assert_int_equal(port_pool_reconfigure(p, avail, 100), 1);
	for(i = 0; i < 98; i++)
		assert_in_range(port_pool_take(p, rnd), 20000, 20099);
	/* the two 4000x ports still out count against the range */
	assert_int_equal(port_pool_take(p, rnd), -1);
	port_pool_return(p, got[0]);
	port = port_pool_take(p, rnd);
	assert_in_range(port, 20000, 20099);
	assert_int_equal(port_pool_take(p, rnd), -1);   /* set used up */
	port_pool_delete(p);
	ub_randfree(rnd);
}

/* Every allowed port in the kernel's range: take_path hands out
 * PORT_POOL_KERNEL and counts it against outgoing-range, marks no port
 * (a port draw without by_kernel still gets any of them), takes the
 * count back once; a range or a reload that leaves a port outside ends
 * it, and tokens out meanwhile still come back. */
static void test_kernel_all(void** state)
{
	struct ub_randstate* rnd = ub_initstate();
	struct port_pool* p;
	int i, k, port, tok[3];
	(void)state;
	memset(avail, 0, sizeof(avail));
	assert_int_equal(port_set_mark(avail, "20000-20099", 1), 1);
	p = port_pool_create(avail, 3);
	assert_non_null(p);
	port_pool_set_kernel_range(p, 20000, 20099);
	for(i = 0; i < 3; i++) {
		tok[i] = port_pool_take_path(p, rnd, &k);
		assert_int_equal(tok[i], PORT_POOL_KERNEL);
		assert_int_equal(k, 1);
	}
	assert_int_equal(port_pool_inuse(p), 3);
	/* outgoing-range holds */
	assert_int_equal(port_pool_take_path(p, rnd, &k), -1);
	assert_int_equal(k, 0);
	for(i = 20000; i < 20100; i++)
		assert_false(port_pool_is_inuse(p, i));
	port_pool_return(p, tok[0]);
	assert_int_equal(port_pool_inuse(p), 2);
	/* a port of our own, drawn as ever */
	port = port_pool_take_path(p, rnd, NULL);
	assert_in_range(port, 20000, 20099);
	assert_true(port_pool_is_inuse(p, port));
	port_pool_return(p, port);
	/* a reload allowing a port outside the range: draws again, and
	 * the tokens still out come back */
	assert_int_equal(port_set_mark(avail, "30000", 1), 1);
	assert_int_equal(port_pool_reconfigure(p, avail, 3), 1);
	port = port_pool_take_path(p, rnd, &k);
	assert_true(port == 30000 || (port >= 20000 && port <= 20099));
	assert_int_equal(k, port != 30000);
	port_pool_return(p, port);
	port_pool_return(p, tok[1]);
	port_pool_return(p, tok[2]);
	assert_int_equal(port_pool_inuse(p), 0);
	port_pool_return(p, tok[2]);   /* twice: ignored */
	assert_int_equal(port_pool_inuse(p), 0);
	/* the range narrowed: not all allowed ports in it */
	assert_int_equal(port_set_mark(avail, "30000", 0), 1);
	assert_int_equal(port_pool_reconfigure(p, avail, 3), 1);
	port = port_pool_take_path(p, rnd, &k);
	assert_int_equal(port, PORT_POOL_KERNEL);
	port_pool_return(p, port);
	port_pool_set_kernel_range(p, 20000, 20049);
	port = port_pool_take_path(p, rnd, &k);
	assert_in_range(port, 20000, 20099);
	assert_int_equal(k, port <= 20049);
	port_pool_return(p, port);
	assert_int_equal(port_pool_inuse(p), 0);
	port_pool_delete(p);
	ub_randfree(rnd);
}

/* The kernel path: take_path says when the drawn port is in the
 * kernel's range; exchange moves the pool's mark to the kernel's port
 * (refused for a port in use or not allowed); the free list stays
 * whole, so every port can still be drawn. */
static void test_kernel_exchange(void** state)
{
	struct ub_randstate* rnd = ub_initstate();
	struct port_pool* p;
	int seen[PORT_SET_SIZE], i, port, k, drawn, other, n_in = 0;
	(void)state;
	memset(avail, 0, sizeof(avail));
	assert_int_equal(port_set_mark(avail, "20000-20099", 1), 1);
	p = port_pool_create(avail, 100);
	assert_non_null(p);
	/* off by default */
	for(i = 0; i < 100; i++) {
		port = port_pool_take_path(p, rnd, &k);
		assert_int_equal(k, 0);
		port_pool_return(p, port);
	}
	port_pool_set_kernel_range(p, 20050, 20099);
	for(i = 0; i < 200; i++) {
		port = port_pool_take_path(p, rnd, &k);
		assert_int_equal(k, port >= 20050);
		n_in += k;
		port_pool_return(p, port);
	}
	assert_in_range(n_in, 50, 150);
	/* exchange: the drawn port back, the kernel's taken */
	drawn = port_pool_take(p, rnd);
	other = drawn == 20060 ? 20061 : 20060;
	assert_int_equal(port_pool_exchange(p, drawn, other), 1);
	assert_false(port_pool_is_inuse(p, drawn));
	assert_true(port_pool_is_inuse(p, other));
	assert_int_equal(port_pool_inuse(p), 1);
	/* the same port: nothing to move */
	assert_int_equal(port_pool_exchange(p, other, other), 1);
	assert_true(port_pool_is_inuse(p, other));
	/* a port in use already is refused, the drawn one stays taken */
	drawn = port_pool_take(p, rnd);
	assert_int_equal(port_pool_exchange(p, drawn, other), 0);
	assert_true(port_pool_is_inuse(p, drawn));
	/* not allowed (the kernel's range changed): refused */
	assert_int_equal(port_pool_exchange(p, drawn, 30000), 0);
	assert_false(port_pool_is_inuse(p, 30000));
	/* a drawn port not taken: refused */
	assert_int_equal(port_pool_exchange(p, 20, 20070), 0);
	assert_int_equal(port_pool_inuse(p), 2);
	port_pool_return(p, drawn);
	port_pool_return(p, other);
	/* after exchanges the free list holds each port once: all 100
	 * come out, then none */
	for(i = 0; i < 30; i++) {
		drawn = port_pool_take(p, rnd);
		port = 20000 + (int)ub_random_max(rnd, 100);
		if(port_pool_exchange(p, drawn, port))
			port_pool_return(p, port);
		else	port_pool_return(p, drawn);
	}
	assert_int_equal(port_pool_inuse(p), 0);
	memset(seen, 0, sizeof(seen));
	for(i = 0; i < 100; i++) {
		port = port_pool_take(p, rnd);
		assert_in_range(port, 20000, 20099);
		assert_int_equal(seen[port], 0);
		seen[port] = 1;
	}
	assert_int_equal(port_pool_take(p, rnd), -1);
	port_pool_set_kernel_range(p, 0, 0);
	for(i = 20000; i < 20100; i++)
		port_pool_return(p, i);
	port = port_pool_take_path(p, rnd, &k);
	assert_int_equal(k, 0);
	port_pool_delete(p);
	ub_randfree(rnd);
}

static void test_take_return(void** state)
{
	struct ub_randstate* rnd = ub_initstate();
	struct port_pool* p;
	int got[50], i, j, port;
	(void)state;
	memset(avail, 0, sizeof(avail));
	assert_int_equal(port_set_mark(avail, "20000-20099", 1), 1);
	assert_null(port_pool_create(avail, 0));
	p = port_pool_create(avail, 50);
	assert_non_null(p);
	for(i = 0; i < 50; i++) {
		got[i] = port_pool_take(p, rnd);
		assert_in_range(got[i], 20000, 20099);
		for(j = 0; j < i; j++)
			assert_int_not_equal(got[i], got[j]);
		assert_true(port_pool_is_inuse(p, got[i]));
	}
	assert_int_equal(port_pool_inuse(p), 50);
	/* outgoing-range reached */
	assert_int_equal(port_pool_take(p, rnd), -1);
	port_pool_return(p, got[7]);
	assert_false(port_pool_is_inuse(p, got[7]));
	port_pool_return(p, got[7]);   /* double return: ignored */
	port_pool_return(p, 12345);    /* never taken: ignored */
	port_pool_return(p, -1);
	assert_int_equal(port_pool_inuse(p), 49);
	port = port_pool_take(p, rnd);
	assert_in_range(port, 20000, 20099);
	for(j = 0; j < 50; j++)
		if(j != 7)
			assert_int_not_equal(port, got[j]);
	got[7] = port;
	assert_int_equal(port_pool_take(p, rnd), -1);
	for(i = 0; i < 50; i++)
		port_pool_return(p, got[i]);
	assert_int_equal(port_pool_inuse(p), 0);
	port_pool_delete(p);

	/* a set smaller than the range: the set is the bound */
	memset(avail, 0, sizeof(avail));
	port_set_mark(avail, "30000-30002", 1);
	p = port_pool_create(avail, 4096);
	for(i = 0; i < 3; i++)
		got[i] = port_pool_take(p, rnd);
	assert_int_equal(got[0] + got[1] + got[2], 30000 * 3 + 3);
	assert_int_equal(port_pool_take(p, rnd), -1);
	for(i = 0; i < 3; i++)
		port_pool_return(p, got[i]);
	port_pool_delete(p);
	/* empty set */
	memset(avail, 0, sizeof(avail));
	assert_null(port_pool_create(avail, 10));
	ub_randfree(rnd);
}

/* Draws must cover the whole allowed set: 16 equal buckets of the
 * default range each get within 20% of their share. */
static void test_port_spread(void** state)
{
	struct ub_randstate* rnd = ub_initstate();
	struct port_pool* p;
	int bucket[16] = {0}, i, n = 64000;
	(void)state;
	port_set_default(avail);
	p = port_pool_create(avail, 4096);
	for(i = 0; i < n; i++) {
		int port = port_pool_take(p, rnd);
		assert_in_range(port, 1024, 65535);
		bucket[(port - 1024) * 16 / (65536 - 1024)]++;
		port_pool_return(p, port);
	}
	for(i = 0; i < 16; i++)
		assert_in_range(bucket[i], n / 16 * 8 / 10, n / 16 * 12 / 10);
	port_pool_delete(p);
	ub_randfree(rnd);
}

/* The draw over a set of several runs (the default with avoided ports
 * in it): only allowed ports, each run in proportion to its length; and
 * with nearly every port taken (the draws among all allowed ports then
 * miss, and the exact draw among the free ones decides): every free
 * port comes out, about equally often. */
static void test_runs_and_full(void** state)
{
	struct ub_randstate* rnd = ub_initstate();
	struct port_pool* p;
	static int count[PORT_SET_SIZE];
	int i, port, got[1000], n_a = 0, n_b = 0, n_c = 0;
	(void)state;
	port_set_default(avail);
	assert_int_equal(port_set_mark(avail, "1024-9999", 0), 1);
	assert_int_equal(port_set_mark(avail, "10001-29999", 0), 1);
	assert_int_equal(port_set_mark(avail, "30400-64999", 0), 1);
	/* runs: 10000 (1), 30000-30399 (400), 65000-65535 (536) */
	p = port_pool_create(avail, 4096);
	assert_non_null(p);
	for(i = 0; i < 93700; i++) {
		port = port_pool_take(p, rnd);
		assert_true(avail[port]);
		if(port == 10000)
			n_a++;
		else if(port < 31000)
			n_b++;
		else	n_c++;
		port_pool_return(p, port);
	}
	assert_in_range(n_a, 40, 180);          /* 100 expected */
	assert_in_range(n_b, 38000, 42000);     /* 40,000 */
	assert_in_range(n_c, 51600, 55600);     /* 53,600 */
	port_pool_delete(p);

	/* 1000 allowed, 995 taken: the 5 left, each about a fifth */
	memset(avail, 0, sizeof(avail));
	assert_int_equal(port_set_mark(avail, "40000-40999", 1), 1);
	p = port_pool_create(avail, 1000);
	assert_non_null(p);
	for(i = 0; i < 1000; i++)
		got[i] = port_pool_take(p, rnd);
	assert_int_equal(port_pool_take(p, rnd), -1);
	for(i = 0; i < 5; i++)
		port_pool_return(p, 40000 + 200 * i);
	memset(count, 0, sizeof(count));
	for(i = 0; i < 5000; i++) {
		port = port_pool_take(p, rnd);
		assert_int_equal((port - 40000) % 200, 0);
		count[port]++;
		port_pool_return(p, port);
	}
	for(i = 0; i < 5; i++)
		assert_in_range(count[40000 + 200 * i], 850, 1150);
	for(i = 0; i < 1000; i++)
		if((got[i] - 40000) % 200 != 0)
			port_pool_return(p, got[i]);
	assert_int_equal(port_pool_inuse(p), 0);
	port_pool_delete(p);
	ub_randfree(rnd);
}

static void test_random(void** state)
{
	struct ub_randstate* rnd = ub_initstate();
	static uint8_t seen[65536];
	int bucket[16] = {0}, small[7] = {0}, i, distinct = 0, n = 65536;
	int bits[16] = {0};
	(void)state;
	memset(seen, 0, sizeof(seen));
	for(i = 0; i < n; i++) {
		uint16_t id = ub_random16(rnd);
		int b;
		if(!seen[id]++)
			distinct++;
		bucket[id >> 12]++;
		for(b = 0; b < 16; b++)
			bits[b] += (id >> b) & 1;
	}
	/* n draws from n values: about 1-1/e = 63% distinct */
	assert_in_range(distinct, n * 58 / 100, n * 68 / 100);
	for(i = 0; i < 16; i++) {
		assert_in_range(bucket[i], n / 16 * 85 / 100, n / 16 * 115 / 100);
		assert_in_range(bits[i], n / 2 * 95 / 100, n / 2 * 105 / 100);
	}
	for(i = 0; i < 70000; i++) {
		uint32_t v = ub_random_max(rnd, 7);
		assert_true(v < 7);
		small[v]++;
	}
	for(i = 0; i < 7; i++)
		assert_in_range(small[i], 10000 * 85 / 100, 10000 * 115 / 100);
	assert_int_equal(ub_random_max(rnd, 0), 0);
	assert_int_equal(ub_random_max(rnd, 1), 0);
	/* two states give different streams */
	{
		struct ub_randstate* r2 = ub_initstate();
		int same = 0;
		for(i = 0; i < 100; i++)
			same += ub_random(rnd) == ub_random(r2);
		assert_true(same < 3);
		ub_randfree(r2);
	}
	ub_randfree(rnd);
}

/* Several threads take and return at once: a port is never handed to
 * two holders and outgoing-range is never exceeded. */
#define NTHR 4
#define RANGE 64
static struct port_pool* shared;
static atomic_int holders[PORT_SET_SIZE];
static atomic_int inuse_now, inuse_max, errors;

static void* worker(void* arg)
{
	struct ub_randstate* rnd = ub_initstate();
	int held[16], nheld = 0, i;
	(void)arg;
	for(i = 0; i < 20000; i++) {
		if(nheld < 16 && (nheld == 0 || (ub_random(rnd) & 1))) {
			int port = port_pool_take(shared, rnd);
			int now;
			if(port < 0)
				continue;
			if(atomic_fetch_add(&holders[port], 1) != 0)
				atomic_fetch_add(&errors, 1);
			now = atomic_fetch_add(&inuse_now, 1) + 1;
			if(now > atomic_load(&inuse_max))
				atomic_store(&inuse_max, now);
			held[nheld++] = port;
		} else {
			int port = held[--nheld];
			atomic_fetch_sub(&holders[port], 1);
			atomic_fetch_sub(&inuse_now, 1);
			port_pool_return(shared, port);
		}
	}
	while(nheld > 0) {
		int port = held[--nheld];
		atomic_fetch_sub(&holders[port], 1);
		atomic_fetch_sub(&inuse_now, 1);
		port_pool_return(shared, port);
	}
	ub_randfree(rnd);
	return NULL;
}

static void test_threads(void** state)
{
	pthread_t t[NTHR];
	int i;
	(void)state;
	memset(avail, 0, sizeof(avail));
	port_set_mark(avail, "40000-40999", 1);
	shared = port_pool_create(avail, RANGE);
	assert_non_null(shared);
	for(i = 0; i < NTHR; i++)
		assert_int_equal(pthread_create(&t[i], NULL, worker, NULL), 0);
	for(i = 0; i < NTHR; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(atomic_load(&errors), 0);
	assert_true(atomic_load(&inuse_max) <= RANGE);
	assert_int_equal(port_pool_inuse(shared), 0);
	port_pool_delete(shared);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mark),
		cmocka_unit_test(test_from_cfg),
		cmocka_unit_test(test_take_return),
		cmocka_unit_test(test_reconfigure),
		cmocka_unit_test(test_kernel_exchange),
		cmocka_unit_test(test_kernel_all),
		cmocka_unit_test(test_port_spread),
		cmocka_unit_test(test_runs_and_full),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
