/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/infra_test.c - the infrastructure cache: RTT estimate,
 * back-off on timeout, min/max clamps, EDNS status, lameness, keys,
 * LRU bound, TTL expiry, probing, config settings, threads. */
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
#include "services/cache/infra.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/net_help.h"

static struct sockaddr_storage addr(const char* s, socklen_t* len)
{
	struct sockaddr_storage a;
	assert_int_equal(extstrtoaddr(s, 53, &a, len), 1);
	return a;
}

static size_t zone(const char* s, uint8_t* out)
{
	size_t n = dname_from_str(s, out);
	assert_true(n > 0);
	return n;
}

static int rto_of(struct infra_cache* c, const struct sockaddr_storage* a,
	socklen_t len, const uint8_t* z, size_t zl)
{
	struct infra_info i = { 0 };  /* untouched if the lookup fails */
	assert_int_equal(infra_get_info(c, a, len, z, zl, &i), 1);
	return i.rtt.rto;
}

static void test_rtt(void** state)
{
	struct infra_settings s;
	struct infra_cache* c;
	socklen_t len;
	struct sockaddr_storage a = addr("192.0.2.1", &len);
	uint8_t z[256];
	size_t zl = zone("example.com.", z);
	int vs, to, i;
	uint8_t known;
	(void)state;
	infra_settings_default(&s);
	c = infra_create(&s);
	assert_non_null(c);
	assert_int_equal(infra_count(c), 0);
	assert_int_equal(infra_host(c, &a, len, z, zl, 1000, &vs, &known,
		&to), 1);
	assert_int_equal(to, 376);   /* unknown server: 4 * 376/4 */
	assert_int_equal(vs, 0);
	assert_int_equal(known, 0);
	assert_int_equal(infra_count(c), 1);
	/* a 20 ms reply: srtt 20/8 = 2, rttvar 94 + (20-94)/4 = 76 */
	assert_int_equal(infra_rtt_update(c, &a, len, z, zl, 1, 20, 376,
		1000), 2 + 4 * 76);
	/* timeouts double the timeout that was used */
	assert_int_equal(infra_rtt_update(c, &a, len, z, zl, 1, -1, 302,
		1000), 604);
	assert_int_equal(infra_rtt_update(c, &a, len, z, zl, 1, -1, 604,
		1000), 1208);
	/* a late timeout of a query sent with the old, smaller timeout
	 * does not back off again */
	assert_int_equal(infra_rtt_update(c, &a, len, z, zl, 1, -1, 302,
		1000), 1208);
	/* up to the cap */
	for(i = 0; i < 20; i++)
		infra_rtt_update(c, &a, len, z, zl, 1, -1,
			rto_of(c, &a, len, z, zl), 1000);
	assert_int_equal(rto_of(c, &a, len, z, zl), 120000);
	/* a reply from a server at the top clears the back-off */
	assert_int_equal(infra_rtt_update(c, &a, len, z, zl, 1, 10, 120000,
		1000), 1 + 4 * (94 + (10 - 94) / 4));
	/* fast replies clamp at infra-cache-min-rtt */
	for(i = 0; i < 100; i++)
		infra_rtt_update(c, &a, len, z, zl, 1, 1, 50, 1000);
	assert_int_equal(rto_of(c, &a, len, z, zl), 50);
	infra_delete(c);

	/* configured cap and unknown rtt */
	s.max_rtt = 1000;
	s.unknown_rtt = 40;
	s.min_rtt = 5;
	c = infra_create(&s);
	assert_int_equal(infra_host(c, &a, len, z, zl, 1000, &vs, &known,
		&to), 1);
	assert_int_equal(to, 40);
	assert_int_equal(infra_rtt_update(c, &a, len, z, zl, 28, -1, 40,
		1000), 80);
	assert_int_equal(infra_rtt_update(c, &a, len, z, zl, 28, -1, 800,
		1000), 80);   /* rto is below that timeout: not from it */
	for(i = 0; i < 3; i++)   /* 160, 320, 640 */
		infra_rtt_update(c, &a, len, z, zl, 28, -1,
			rto_of(c, &a, len, z, zl), 1000);
	assert_int_equal(infra_rtt_update(c, &a, len, z, zl, 28, -1, 640,
		1000), 1000);
	assert_int_equal(infra_max_rtt(c), 1000);
	infra_delete(c);
}

/* infra_select_info says what infra_backed_off and infra_get_lame_rtt
 * say, asked one after the other. */
static void select_info_same(struct infra_cache* c,
	const struct sockaddr_storage* a, socklen_t len, const uint8_t* z,
	size_t zl, uint16_t qtype, time_t now)
{
	int b = -1, l = 0, d = 0, r = 0, rtt = -1;
	int l2 = 0, d2 = 0, r2 = 0, rtt2 = -1;
	int k = infra_select_info(c, a, len, z, zl, qtype, now, &b, &l, &d,
		&r, &rtt);
	int k2 = infra_get_lame_rtt(c, a, len, z, zl, qtype, &l2, &d2, &r2,
		&rtt2, now);
	assert_int_equal(b, infra_backed_off(c, a, len, z, zl, qtype, now));
	assert_int_equal(k, k2);
	assert_int_equal(l, l2);
	assert_int_equal(d, d2);
	assert_int_equal(r, r2);
	assert_int_equal(rtt, rtt2);
}

static void test_edns_lame(void** state)
{
	struct infra_settings s;
	struct infra_cache* c;
	socklen_t len;
	struct sockaddr_storage a = addr("192.0.2.2", &len);
	uint8_t z[256];
	size_t zl = zone("example.org.", z);
	int vs, to, lame, dl, rl, rtt;
	uint8_t known;
	(void)state;
	infra_settings_default(&s);
	c = infra_create(&s);
	assert_int_equal(infra_get_lame_rtt(c, &a, len, z, zl, 1, &lame, &dl,
		&rl, &rtt, 1000), 0);   /* not known */
	assert_int_equal(infra_edns_update(c, &a, len, z, zl, -1, 1000), 1);
	infra_host(c, &a, len, z, zl, 1000, &vs, &known, &to);
	assert_int_equal(vs, -1);
	assert_int_equal(known, 1);
	assert_int_equal(infra_edns_update(c, &a, len, z, zl, 0, 1000), 1);
	infra_host(c, &a, len, z, zl, 1000, &vs, &known, &to);
	assert_int_equal(vs, 0);
	/* known-good EDNS is not downgraded */
	infra_edns_update(c, &a, len, z, zl, -1, 1000);
	infra_host(c, &a, len, z, zl, 1000, &vs, &known, &to);
	assert_int_equal(vs, 0);
	assert_int_equal(known, 1);

	assert_int_equal(infra_get_lame_rtt(c, &a, len, z, zl, 1, &lame, &dl,
		&rl, &rtt, 1000), 1);
	assert_int_equal(lame + dl + rl, 0);
	assert_int_equal(rtt, 376);
	infra_set_lame(c, &a, len, z, zl, 1000, 0, 0, 1);
	infra_get_lame_rtt(c, &a, len, z, zl, 1, &lame, &dl, &rl, &rtt, 1000);
	assert_int_equal(lame, 1);
	infra_get_lame_rtt(c, &a, len, z, zl, 28, &lame, &dl, &rl, &rtt,
		1000);
	assert_int_equal(lame, 0);
	infra_set_lame(c, &a, len, z, zl, 1000, 1, 0, 28);
	infra_get_lame_rtt(c, &a, len, z, zl, 28, &lame, &dl, &rl, &rtt,
		1000);
	assert_int_equal(lame, 0);
	assert_int_equal(dl, 1);
	infra_set_lame(c, &a, len, z, zl, 1000, 0, 0, 28);
	infra_get_lame_rtt(c, &a, len, z, zl, 28, &lame, &dl, &rl, &rtt,
		1000);
	assert_int_equal(lame, 1);
	select_info_same(c, &a, len, z, zl, 28, 1000);
	select_info_same(c, &a, len, z, zl, 1, 1000);
	select_info_same(c, &a, len, z, zl, 28, 1000 + 901);
	/* expired: lameness gone */
	assert_int_equal(infra_get_lame_rtt(c, &a, len, z, zl, 28, &lame,
		&dl, &rl, &rtt, 1000 + 901), 0);
	infra_delete(c);
}

static void test_keys(void** state)
{
	struct infra_settings s;
	struct infra_cache* c;
	socklen_t l1, l2, l3, l4;
	struct sockaddr_storage a = addr("192.0.2.3", &l1);
	struct sockaddr_storage b = addr("192.0.2.3@5353", &l2);
	struct sockaddr_storage v6 = addr("2001:db8::3", &l3);
	struct sockaddr_storage bad;
	uint8_t z1[256], z2[256], z3[256];
	size_t zl1 = zone("Example.COM.", z1), zl2 = zone("example.com.", z2);
	size_t zl3 = zone("example.net.", z3);
	int vs, to;
	uint8_t known;
	(void)state;
	infra_settings_default(&s);
	c = infra_create(&s);
	infra_rtt_update(c, &a, l1, z1, zl1, 1, -1, 376, 1000);
	/* zone case does not matter */
	assert_int_equal(rto_of(c, &a, l1, z2, zl2), 752);
	assert_int_equal(infra_count(c), 1);
	/* port, zone, family are part of the key */
	infra_host(c, &b, l2, z2, zl2, 1000, &vs, &known, &to);
	assert_int_equal(to, 376);
	infra_host(c, &a, l1, z3, zl3, 1000, &vs, &known, &to);
	assert_int_equal(to, 376);
	infra_host(c, &v6, l3, z3, zl3, 1000, &vs, &known, &to);
	assert_int_equal(to, 376);
	/* NULL zone is the root */
	infra_host(c, &a, l1, NULL, 0, 1000, &vs, &known, &to);
	assert_int_equal(rto_of(c, &a, l1, (const uint8_t*)"", 1), 376);
	assert_int_equal(infra_count(c), 5);
	/* bad input is refused, not crashed on */
	memset(&bad, 0, sizeof(bad));
	bad.ss_family = AF_UNIX;
	l4 = sizeof(bad);
	assert_int_equal(infra_host(c, &bad, l4, z1, zl1, 1000, &vs, &known,
		&to), 0);
	assert_int_equal(infra_host(c, &a, 3, z1, zl1, 1000, &vs, &known,
		&to), 0);
	assert_int_equal(infra_host(c, &a, l1, (const uint8_t*)"\003com",
		4, 1000, &vs, &known, &to), 0);
	assert_int_equal(infra_count(c), 5);
	infra_delete(c);
}

static void test_lru_ttl(void** state)
{
	struct infra_settings s;
	struct infra_cache* c;
	socklen_t len;
	struct sockaddr_storage a[20];
	uint8_t z[256];
	size_t zl = zone("example.", z);
	int i, vs, to;
	uint8_t known;
	struct infra_info info;
	(void)state;
	infra_settings_default(&s);
	s.numhosts = 10;
	s.slabs = 1;
	s.host_ttl = 10;
	c = infra_create(&s);
	for(i = 0; i < 20; i++) {
		char t[32];
		snprintf(t, sizeof(t), "192.0.2.%d", i + 1);
		a[i] = addr(t, &len);
		infra_host(c, &a[i], len, z, zl, 1000, &vs, &known, &to);
		/* keep the first one in use: it must survive */
		infra_host(c, &a[0], len, z, zl, 1000, &vs, &known, &to);
	}
	assert_int_equal(infra_count(c), 10);
	assert_int_equal(infra_get_info(c, &a[0], len, z, zl, &info), 1);
	assert_int_equal(infra_get_info(c, &a[1], len, z, zl, &info), 0);
	assert_int_equal(infra_get_info(c, &a[19], len, z, zl, &info), 1);
	/* expiry re-initialises */
	infra_rtt_update(c, &a[19], len, z, zl, 1, -1, 376, 1000);
	assert_int_equal(rto_of(c, &a[19], len, z, zl), 752);
	infra_host(c, &a[19], len, z, zl, 1011, &vs, &known, &to);
	assert_int_equal(to, 376);
	/* ... but a server backed off to the top stays there */
	for(i = 0; i < 20; i++)
		infra_rtt_update(c, &a[19], len, z, zl, 1, -1,
			rto_of(c, &a[19], len, z, zl), 1011);
	assert_int_equal(rto_of(c, &a[19], len, z, zl), 120000);
	infra_host(c, &a[19], len, z, zl, 1030, &vs, &known, &to);
	assert_int_equal(to, 120000);
	infra_delete(c);
}

static void test_probe(void** state)
{
	struct infra_settings s;
	struct infra_cache* c;
	socklen_t len;
	struct sockaddr_storage a = addr("192.0.2.9", &len);
	uint8_t z[256];
	size_t zl = zone("example.", z);
	int i, vs, to, lame, dl, rl, rtt;
	uint8_t known;
	struct infra_info info = { 0 };
	(void)state;
	infra_settings_default(&s);
	c = infra_create(&s);
	infra_host(c, &a, len, z, zl, 1000, &vs, &known, &to);
	for(i = 0; i < 6; i++)   /* 376 -> 24064 */
		infra_rtt_update(c, &a, len, z, zl, 1, -1,
			rto_of(c, &a, len, z, zl), 1000);
	assert_int_equal(rto_of(c, &a, len, z, zl), 24064);
	/* this query is the probe: others are held off for its timeout */
	infra_host(c, &a, len, z, zl, 1000, &vs, &known, &to);
	assert_int_equal(to, 24064);
	infra_get_info(c, &a, len, z, zl, &info);
	assert_int_equal(info.probedelay, 1000 + (24064 + 1999) / 1000);
	infra_get_lame_rtt(c, &a, len, z, zl, 1, &lame, &dl, &rl, &rtt, 1001);
	assert_int_equal(rtt, 120000);        /* A timed out 3+ times */
	infra_get_lame_rtt(c, &a, len, z, zl, 28, &lame, &dl, &rl, &rtt,
		1001);
	assert_int_equal(rtt, 120000 - 1000); /* AAAA may still go */
	infra_get_lame_rtt(c, &a, len, z, zl, 1, &lame, &dl, &rl, &rtt, 1100);
	assert_int_equal(rtt, 24064);         /* probe is over: by rto */
	infra_delete(c);
}

/* compat: unbound-1.17: infra-keep-probing: a server backed off to the
 * top (infra-cache-max-rtt) is not used until the host entry expires;
 * with keep_probing it is ranked just under the top once its probe
 * delay passed, so one probe at a time still goes to it. */
static void test_keep_probing(void** state)
{
	int keep;
	(void)state;
	for(keep = 0; keep < 2; keep++) {
		struct infra_settings s;
		struct infra_cache* c;
		socklen_t len;
		struct sockaddr_storage a = addr("192.0.2.9", &len);
		uint8_t z[256];
		size_t zl = zone("example.", z);
		int i, vs, to, lame, dl, rl, rtt;
		uint8_t known;
		infra_settings_default(&s);
		s.keep_probing = keep;
		c = infra_create(&s);
		infra_host(c, &a, len, z, zl, 1000, &vs, &known, &to);
		for(i = 0; i < 10; i++)   /* 376 doubled up to the top */
			infra_rtt_update(c, &a, len, z, zl, 1, -1,
				rto_of(c, &a, len, z, zl), 1000);
		assert_int_equal(rto_of(c, &a, len, z, zl), 120000);
		infra_host(c, &a, len, z, zl, 1000, &vs, &known, &to);
		/* the probe delay (121 s) passed */
		infra_get_lame_rtt(c, &a, len, z, zl, 1, &lame, &dl, &rl,
			&rtt, 1200);
		if(keep)
			assert_int_equal(rtt, 120000 - 1000);
		else
			assert_true(rtt >= 120000);
		infra_delete(c);
	}
}

/* Three timeouts in a row for a qtype class: backed off for it (not
 * for the others), until a reply; one background probe per rto. */
static void test_backed_off(void** state)
{
	struct infra_settings s;
	struct infra_cache* c;
	socklen_t len;
	struct sockaddr_storage a = addr("192.0.2.10", &len);
	uint8_t z[256];
	size_t zl = zone("example.", z);
	uint8_t z2[256];
	size_t zl2 = zone("other.", z2);
	int i, vs, to;
	uint8_t known;
	(void)state;
	infra_settings_default(&s);
	c = infra_create(&s);
	assert_int_equal(infra_backed_off(c, &a, len, z, zl, 1, 1000), 0);
	select_info_same(c, &a, len, z, zl, 1, 1000);
	infra_host(c, &a, len, z, zl, 1000, &vs, &known, &to);
	select_info_same(c, &a, len, z, zl, 1, 1000);
	/* three queries sent at once, each timing out at 376 ms: 752,
	 * not backed off (another zone, another entry) */
	infra_host(c, &a, len, z2, zl2, 1000, &vs, &known, &to);
	for(i = 0; i < 3; i++)
		infra_rtt_update(c, &a, len, z2, zl2, 1, -1, 376, 1000);
	assert_int_equal(rto_of(c, &a, len, z2, zl2), 752);
	assert_int_equal(infra_backed_off(c, &a, len, z2, zl2, 1, 1000), 0);
	for(i = 0; i < 2; i++)
		infra_rtt_update(c, &a, len, z, zl, 1, -1,
			rto_of(c, &a, len, z, zl), 1000);
	assert_int_equal(infra_backed_off(c, &a, len, z, zl, 1, 1000), 0);
	infra_rtt_update(c, &a, len, z, zl, 1, -1, rto_of(c, &a, len, z, zl),
		1000);
	assert_int_equal(rto_of(c, &a, len, z, zl), 3008);
	assert_int_equal(infra_backed_off(c, &a, len, z, zl, 1, 1000), 1);
	assert_int_equal(infra_backed_off(c, &a, len, z, zl, 28, 1000), 0);
	select_info_same(c, &a, len, z, zl, 1, 1000);
	select_info_same(c, &a, len, z, zl, 28, 1000);
	select_info_same(c, &a, len, z2, zl2, 1, 1000);
	select_info_same(c, &a, len, z, zl, 1, 1000 + s.host_ttl + 1);
	/* one probe, the next after the rto (3.008 s: 4 s, plus one) */
	assert_int_equal(infra_claim_probe(c, &a, len, z, zl, 1000), 1);
	assert_int_equal(infra_claim_probe(c, &a, len, z, zl, 1004), 0);
	assert_int_equal(infra_claim_probe(c, &a, len, z, zl, 1005), 1);
	/* expired entries are not backed off */
	assert_int_equal(infra_backed_off(c, &a, len, z, zl, 1,
		1000 + s.host_ttl + 1), 0);
	/* a reply: usable again */
	infra_rtt_update(c, &a, len, z, zl, 1, 20, 3008, 1005);
	assert_int_equal(infra_backed_off(c, &a, len, z, zl, 1, 1005), 0);
	infra_delete(c);
}

static void test_settings_cfg(void** state)
{
	char fname[] = "/tmp/infra_testXXXXXX";
	int fd = mkstemp(fname);
	FILE* f;
	struct config_file* cfg;
	struct infra_settings s;
	(void)state;
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fprintf(f, "server:\n  infra-cache-max-rtt: 5000\n"
		"  infra-host-ttl: 60\n  infra-cache-numhosts: 77\n"
		"  infra-cache-min-rtt: 20\n"
		"  unknown-server-time-limit: 100\n"
		"  infra-keep-probing: yes\n  infra-cache-slabs: 2\n");
	fclose(f);
	cfg = config_create();
	assert_int_equal(config_read(cfg, fname, NULL), 1);
	unlink(fname);
	infra_settings_from_cfg(cfg, &s);
	assert_int_equal(s.max_rtt, 5000);
	assert_int_equal(s.host_ttl, 60);
	assert_int_equal(s.numhosts, 77);
	assert_int_equal(s.min_rtt, 20);
	assert_int_equal(s.unknown_rtt, 100);
	assert_int_equal(cfg->infra_keep_probing, 1);
	assert_int_equal(s.keep_probing, 1);
	assert_int_equal(s.slabs, 2);
	config_delete(cfg);
	cfg = config_create();
	infra_settings_from_cfg(cfg, &s);
	assert_int_equal(s.max_rtt, 120000);
	assert_int_equal(s.numhosts, 10000);
	assert_int_equal(s.host_ttl, 900);
	assert_int_equal(s.min_rtt, 50);
	config_delete(cfg);
}

static struct infra_cache* shared;

static void* hammer(void* arg)
{
	uint8_t z[256];
	size_t zl = dname_from_str("example.", z);
	int i, vs, to;
	uint8_t known;
	unsigned seed = (unsigned)(uintptr_t)arg;
	for(i = 0; i < 20000; i++) {
		struct sockaddr_storage a;
		socklen_t len;
		char t[32];
		snprintf(t, sizeof(t), "10.0.%u.%u", rand_r(&seed) % 4,
			rand_r(&seed) % 256);
		extstrtoaddr(t, 53, &a, &len);
		if(i & 1)
			infra_host(shared, &a, len, z, zl, 1000, &vs, &known,
				&to);
		else	infra_rtt_update(shared, &a, len, z, zl, 1,
				(i & 2) ? -1 : 30, 376, 1000);
	}
	return NULL;
}

static void test_threads(void** state)
{
	struct infra_settings s;
	pthread_t t[4];
	int i;
	(void)state;
	infra_settings_default(&s);
	s.numhosts = 100;
	shared = infra_create(&s);
	for(i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, hammer, (void*)(uintptr_t)(i + 1));
	for(i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	assert_true(infra_count(shared) <= 100);
	assert_true(infra_count(shared) >= 50);
	infra_delete(shared);
}

struct walk_seen {
	int n, v4_53, v6_5353;
	char zones[8][64];
};

static void walk_cb(const struct sockaddr_storage* a, socklen_t len,
	const uint8_t* z, size_t zl, const struct infra_info* d, int min_rtt,
	int max_rtt, void* arg)
{
	struct walk_seen* w = arg;
	char ip[64];
	assert_true(zl > 0 && d->ttl > 0 && min_rtt == 50 &&
		max_rtt == 120000);
	addr_to_str(a, len, ip, sizeof(ip));
	if(strcmp(ip, "192.0.2.1") == 0 && addr_port(a) == 53)
		w->v4_53++;
	if(strcmp(ip, "2001:db8::1") == 0 && addr_port(a) == 5353)
		w->v6_5353++;
	if(w->n < 8)
		dname_to_str(z, w->zones[w->n], sizeof(w->zones[0]));
	w->n++;
}

/* dump_infra's walk sees every entry with its address, port and zone;
 * flush_infra removes one address and port (all zones), or all. */
static void test_walk_remove(void** state)
{
	struct infra_settings s;
	struct infra_cache* c;
	struct walk_seen w;
	socklen_t l1, l2, l3;
	struct sockaddr_storage a1 = addr("192.0.2.1", &l1);
	struct sockaddr_storage a2 = addr("2001:db8::1@5353", &l2);
	struct sockaddr_storage a3 = addr("192.0.2.1@5353", &l3);
	uint8_t z1[256], z2[256];
	size_t zl1 = zone("example.com.", z1), zl2 = zone("example.net.", z2);
	int vs, to;
	uint8_t known;
	(void)state;
	infra_settings_default(&s);
	c = infra_create(&s);
	assert_non_null(c);
	assert_int_equal(infra_host(c, &a1, l1, z1, zl1, 1000, &vs, &known,
		&to), 1);
	assert_int_equal(infra_host(c, &a1, l1, z2, zl2, 1000, &vs, &known,
		&to), 1);
	assert_int_equal(infra_host(c, &a2, l2, z1, zl1, 1000, &vs, &known,
		&to), 1);
	assert_int_equal(infra_host(c, &a3, l3, z1, zl1, 1000, &vs, &known,
		&to), 1);
	memset(&w, 0, sizeof(w));
	infra_walk(c, walk_cb, &w);
	assert_int_equal(w.n, 4);
	assert_int_equal(w.v4_53, 2);
	assert_int_equal(w.v6_5353, 1);
	/* 192.0.2.1 port 53: both zones, not the same address on 5353 */
	assert_int_equal(infra_remove_addr(c, &a1, l1), 2);
	assert_int_equal(infra_count(c), 2);
	memset(&w, 0, sizeof(w));
	infra_walk(c, walk_cb, &w);
	assert_int_equal(w.n, 2);
	assert_int_equal(w.v4_53, 0);
	assert_int_equal(infra_remove_addr(c, &a1, l1), 0);
	assert_int_equal(infra_remove_addr(c, NULL, 0), 2);
	assert_int_equal(infra_count(c), 0);
	/* still usable */
	assert_int_equal(infra_host(c, &a1, l1, z1, zl1, 1000, &vs, &known,
		&to), 1);
	assert_int_equal(infra_count(c), 1);
	infra_delete(c);
}

/* A reload's settings (infra_reconfigure): a smaller numhosts evicts the
 * least recently used at once, a larger one lets it grow; a new
 * host_ttl and max_rtt apply to the next use. */
static void test_reconfigure(void** state)
{
	struct infra_settings s;
	struct infra_cache* c;
	socklen_t len;
	struct sockaddr_storage a[20];
	uint8_t z[256];
	size_t zl = zone("example.", z);
	int i, vs, to;
	uint8_t known;
	struct infra_info info = { 0 };
	(void)state;
	infra_settings_default(&s);
	s.slabs = 1;
	c = infra_create(&s);
	assert_non_null(c);
	for(i = 0; i < 20; i++) {
		char t[32];
		snprintf(t, sizeof(t), "192.0.2.%d", i + 1);
		a[i] = addr(t, &len);
		infra_host(c, &a[i], len, z, zl, 1000, &vs, &known, &to);
	}
	assert_int_equal(infra_count(c), 20);
	s.numhosts = 5;
	infra_reconfigure(c, &s);
	assert_int_equal(infra_count(c), 5);
	assert_int_equal(infra_get_info(c, &a[19], len, z, zl, &info), 1);
	assert_int_equal(infra_get_info(c, &a[0], len, z, zl, &info), 0);
	s.numhosts = 100;
	s.host_ttl = 7;
	s.max_rtt = 1000;
	infra_reconfigure(c, &s);
	for(i = 0; i < 20; i++)
		infra_host(c, &a[i], len, z, zl, 1000, &vs, &known, &to);
	assert_int_equal(infra_count(c), 20);
	assert_int_equal(infra_max_rtt(c), 1000);
	assert_int_equal(infra_get_info(c, &a[0], len, z, zl, &info), 1);
	assert_int_equal(info.ttl, 1007);
	for(i = 0; i < 5; i++)
		infra_rtt_update(c, &a[0], len, z, zl, 1, -1,
			rto_of(c, &a[0], len, z, zl), 1000);
	assert_int_equal(rto_of(c, &a[0], len, z, zl), 1000);
	infra_delete(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rtt),
		cmocka_unit_test(test_edns_lame),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_lru_ttl),
		cmocka_unit_test(test_probe),
		cmocka_unit_test(test_backed_off),
		cmocka_unit_test(test_settings_cfg),
		cmocka_unit_test(test_keep_probing),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_walk_remove),
		cmocka_unit_test(test_reconfigure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
