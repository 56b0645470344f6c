/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/cachedump_test.c - the cache text format (dump_cache /
 * load_cache): load counts TTLs from its time, a dump loads back to the
 * same dump, a reply's RRsets missing from the RRset cache are written
 * from the reply, references to missing RRsets skip the message,
 * expired entries are left out, and malformed text stores nothing. */
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
#include "daemon/cachedump.h"
#include "daemon/stats.h"
#include "services/cache/msgcache.h"
#include "services/cache/rrset.h"
#include "util/dname.h"

#define T0 ((time_t)1700000000)

struct caches {
	struct rrset_cache* r;
	struct msg_cache* m;
};

static struct caches mk(void)
{
	struct caches c;
	c.r = rrset_cache_create(1 << 20, 4, 0, 86400);
	c.m = msg_cache_create(1 << 20, 4, 0, 86400, 3600);
	assert_non_null(c.r);
	assert_non_null(c.m);
	return c;
}

static void rm(struct caches* c)
{
	rrset_cache_delete(c->r);
	msg_cache_delete(c->m);
}

static int load(struct caches* c, const char* text, time_t now,
	size_t* nr, size_t* nm, char* err)
{
	return cache_load(c->r, c->m, text, strlen(text), now, nr, nm, err,
		256);
}

/* The dump as text (caller frees). */
static char* dump(struct caches* c, time_t now)
{
	struct strbuf b = { NULL, 0, 0, 0 };
	cache_dump(c->r, c->m, now, &b);
	assert_false(b.oom);
	assert_non_null(b.s);
	return b.s;
}

static const char* const DUMP =
	"START_RRSET_CACHE\n"
	";rrset 100 2 0 8 0\n"
	"www.example.\t100\tIN\tA\t192.0.2.1\n"
	"www.example.\t100\tIN\tA\t192.0.2.2\n"
	";rrset 200 1 0 2 0\n"
	"example.\t200\tIN\tNS\tns.example.\n"
	";rrset nsec_apex 50 1 0 8 0\n"
	"example.\t50\tIN\tNSEC\twww.example. A NS SOA RRSIG NSEC\n"
	"END_RRSET_CACHE\n"
	"START_MSG_CACHE\n"
	"msg www.example. IN A 32896 1 100 0 1 1 0\n"
	"www.example. IN A 0\n"
	"example. IN NS 0\n"
	"END_MSG_CACHE\n"
	"EOF\n";

/* Ask the message cache; returns the parsed reply or NULL on a miss. */
static ldns_pkt* ask(struct caches* c, const char* name, uint16_t type,
	time_t now)
{
	struct query_info qi;
	uint8_t out[4096];
	size_t n;
	ldns_pkt* p = NULL;
	memset(&qi, 0, sizeof(qi));
	qi.qname_len = dname_from_str(name, qi.qname);
	qi.qtype = type;
	qi.qclass = 1;
	qi.flags = 0x0100;
	n = msg_cache_answer(c->m, &qi, msg_cache_hash(c->m, &qi), now, out,
		sizeof(out), 0);
	if(n == 0)
		return NULL;
	assert_int_equal(ldns_wire2pkt(&p, out, n), LDNS_STATUS_OK);
	return p;
}

static void test_load_and_answer(void** state)
{
	struct caches c = mk();
	size_t nr, nm;
	char err[256];
	ldns_pkt* p;
	struct rrset_entry* e;
	(void)state;
	assert_int_equal(load(&c, DUMP, T0, &nr, &nm, err), 1);
	assert_int_equal(nr, 3);
	assert_int_equal(nm, 1);
	/* the reply, 30 s later: TTLs counted from the load */
	p = ask(&c, "www.example.", LDNS_RR_TYPE_A, T0 + 30);
	assert_non_null(p);
	assert_int_equal(ldns_rr_list_rr_count(ldns_pkt_answer(p)), 2);
	assert_int_equal(ldns_rr_list_rr_count(ldns_pkt_authority(p)), 1);
	assert_int_equal(ldns_rr_ttl(ldns_rr_list_rr(ldns_pkt_answer(p), 0)),
		70);
	assert_true(ldns_pkt_qr(p) && ldns_pkt_ra(p));
	ldns_pkt_free(p);
	/* expired with its TTL */
	assert_null(ask(&c, "www.example.", LDNS_RR_TYPE_A, T0 + 100));
	/* the NSEC kept its apex flag and trust */
	{
		uint8_t nm2[256];
		dname_from_str("example.", nm2);
		e = rrset_cache_lookup(c.r, nm2, LDNS_RR_TYPE_NSEC, 1,
			RRSET_FLAG_NSEC_APEX, T0);
		assert_non_null(e);
		assert_int_equal(e->trust, RRSET_TRUST_AUTH_ANSWER);
		rrset_cache_release(c.r, e);
		e = rrset_cache_lookup(c.r, nm2, LDNS_RR_TYPE_NS, 1, 0, T0);
		assert_non_null(e);
		assert_int_equal(e->trust, RRSET_TRUST_AUTHORITY);
		rrset_cache_release(c.r, e);
	}
	rm(&c);
}

static int cmpstr(const void* a, const void* b)
{
	return strcmp(*(char* const*)a, *(char* const*)b);
}

/* The lines of text, sorted, as one string (walk order is the hash's). */
static char* sorted_lines(const char* text)
{
	char* copy = strdup(text), *save = NULL, *l, **v = NULL, *out;
	size_t n = 0, i, len = strlen(text) + 2;
	for(l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n",
		&save)) {
		v = realloc(v, (n + 1) * sizeof(*v));
		v[n++] = l;
	}
	qsort(v, n, sizeof(*v), cmpstr);
	out = calloc(1, len);
	for(i = 0; i < n; i++) {
		strcat(out, v[i]);
		strcat(out, "\n");
	}
	free(v);
	free(copy);
	return out;
}

static void test_dump_loads_back_to_itself(void** state)
{
	struct caches a = mk(), b = mk();
	size_t nr, nm;
	char err[256], *d1, *d2, *s1, *s2;
	(void)state;
	assert_int_equal(load(&a, DUMP, T0, &nr, &nm, err), 1);
	d1 = dump(&a, T0 + 10);
	/* structure and the aged TTLs */
	assert_true(strncmp(d1, "START_RRSET_CACHE\n", 18) == 0);
	assert_non_null(strstr(d1, "\nEND_RRSET_CACHE\nSTART_MSG_CACHE\n"));
	assert_non_null(strstr(d1, ";rrset 90 2 0 8 0\nwww.example.\t90\tIN\t"
		"A\t192.0.2."));
	assert_non_null(strstr(d1, ";rrset nsec_apex 40 1 0 8 0\n"));
	assert_non_null(strstr(d1, "msg www.example. IN A 32896 1 90 0 1 1 0"
		"\nwww.example. IN A 0\nexample. IN NS 0\n"));
	assert_true(strcmp(d1 + strlen(d1) - 18, "END_MSG_CACHE\nEOF\n") == 0);
	assert_int_equal(load(&b, d1, T0 + 10, &nr, &nm, err), 1);
	assert_int_equal(nr, 3);
	assert_int_equal(nm, 1);
	d2 = dump(&b, T0 + 10);
	s1 = sorted_lines(d1);
	s2 = sorted_lines(d2);
	assert_string_equal(s1, s2);
	free(s1);
	free(s2);
	free(d1);
	free(d2);
	/* nothing fresh: an empty dump, which loads */
	d1 = dump(&a, T0 + 1000);
	assert_string_equal(d1, "START_RRSET_CACHE\nEND_RRSET_CACHE\n"
		"START_MSG_CACHE\nEND_MSG_CACHE\nEOF\n");
	assert_int_equal(load(&b, d1, T0, &nr, &nm, err), 1);
	free(d1);
	rm(&a);
	rm(&b);
}

/* A negative reply stored from the wire (its SOA is in no RRset
 * cache): the dump writes the SOA as an RRset, and it loads back. */
static void test_reply_sets_written(void** state)
{
	struct caches a = mk(), b = mk();
	ldns_pkt* p = ldns_pkt_new(), *got;
	ldns_rr* q = NULL, *soa = NULL;
	uint8_t* wire = NULL;
	size_t wlen, nr, nm;
	struct query_info qi;
	char err[256], *d;
	(void)state;
	assert_int_equal(ldns_rr_new_question_frm_str(&q, "nx.example. IN A",
		NULL, NULL), LDNS_STATUS_OK);
	assert_int_equal(ldns_rr_new_frm_str(&soa, "example. 300 IN SOA "
		"ns.example. host.example. 1 3600 900 604800 60", 0, NULL,
		NULL), LDNS_STATUS_OK);
	ldns_pkt_push_rr(p, LDNS_SECTION_QUESTION, q);
	ldns_pkt_push_rr(p, LDNS_SECTION_AUTHORITY, soa);
	ldns_pkt_set_qr(p, 1);
	ldns_pkt_set_ra(p, 1);
	ldns_pkt_set_rcode(p, LDNS_RCODE_NXDOMAIN);
	assert_int_equal(ldns_pkt2wire(&wire, p, &wlen), LDNS_STATUS_OK);
	memset(&qi, 0, sizeof(qi));
	qi.qname_len = dname_from_str("nx.example.", qi.qname);
	qi.qtype = 1;
	qi.qclass = 1;
	assert_int_equal(msg_cache_store(a.m, &qi, msg_cache_hash(a.m, &qi),
		wire, wlen, T0), 1);
	d = dump(&a, T0 + 5);
	/* the SOA's TTL is its MINIMUM (RFC 2308), aged */
	assert_non_null(strstr(d, ";rrset 55 1 0 2 0\nexample.\t55\tIN\tSOA\t"));
	assert_non_null(strstr(d, "msg nx.example. IN A 32899 1 55 0 0 1 0\n"
		"example. IN SOA 0\n"));
	assert_int_equal(load(&b, d, T0 + 5, &nr, &nm, err), 1);
	assert_int_equal(nr, 1);
	assert_int_equal(nm, 1);
	got = ask(&b, "nx.example.", 1, T0 + 6);
	assert_non_null(got);
	assert_int_equal(ldns_pkt_get_rcode(got), LDNS_RCODE_NXDOMAIN);
	assert_int_equal(ldns_rr_list_rr_count(ldns_pkt_authority(got)), 1);
	ldns_pkt_free(got);
	free(d);
	free(wire);
	ldns_pkt_free(p);
	rm(&a);
	rm(&b);
}

static void test_missing_reference_skips_message(void** state)
{
	struct caches c = mk();
	size_t nr, nm;
	char err[256];
	(void)state;
	assert_int_equal(load(&c, "START_RRSET_CACHE\nEND_RRSET_CACHE\n"
		"START_MSG_CACHE\nmsg a.example. IN A 32896 1 60 0 1 0 0\n"
		"a.example. IN A 0\nmsg b.example. IN A 32896 1 60 0 1 0 0\n"
		"BADREF\nEND_MSG_CACHE\nEOF\n", T0, &nr, &nm, err), 1);
	assert_int_equal(nm, 0);
	assert_int_equal(lruhash_count(c.m->table), 0);
	/* a BADRR line skips its RRset, not the load */
	assert_int_equal(load(&c, "START_RRSET_CACHE\n;rrset 60 1 0 8 0\n"
		"BADRR\n;rrset 60 1 0 8 0\nok.example.\t60\tIN\tA\t192.0.2.9\n"
		"END_RRSET_CACHE\nSTART_MSG_CACHE\nEND_MSG_CACHE\nEOF\n", T0,
		&nr, &nm, err), 1);
	assert_int_equal(nr, 1);
	rm(&c);
}

static void test_malformed_stores_nothing(void** state)
{
	static const char* const bad[] = {
		"",
		"EOF\n",
		"START_RRSET_CACHE\n;rrset 60 1 0 8 0\nok.example.\t60\tIN\tA\t"
		"192.0.2.1\n;rrset 60 1 0 8\nx.\t60\tIN\tA\t192.0.2.1\n",
		"START_RRSET_CACHE\n;rrset 60 1 0 8 0\nok.example.\t60\tIN\tA\t"
		"192.0.2.1\n;rrset 60 2 0 8 0\nx.\t60\tIN\tA\t192.0.2.1\n"
		"y.\t60\tIN\tA\t192.0.2.1\nEND_RRSET_CACHE\nSTART_MSG_CACHE\n"
		"END_MSG_CACHE\nEOF\n",
		"START_RRSET_CACHE\n;rrset 60 65535 65535 8 0\nEOF\n",
		"START_RRSET_CACHE\n;rrset 60 1 0 13 0\nx.\t60\tIN\tA\t1.2.3.4\n"
		"END_RRSET_CACHE\nSTART_MSG_CACHE\nEND_MSG_CACHE\nEOF\n",
		"START_RRSET_CACHE\n;rrset 60 1 0 8 9\nx.\t60\tIN\tA\t1.2.3.4\n"
		"END_RRSET_CACHE\nSTART_MSG_CACHE\nEND_MSG_CACHE\nEOF\n",
		"START_RRSET_CACHE\n;rrset 60 1 0 8 0\nx.\t60\tIN\tA\t1.2.3.4\n"
		"END_RRSET_CACHE\nSTART_MSG_CACHE\nmsg x. IN A 1 1 60 0 1 0\n"
		"END_MSG_CACHE\nEOF\n",
		"START_RRSET_CACHE\n;rrset 60 1 0 8 0\nx.\t60\tIN\tA\t1.2.3.4\n"
		"END_RRSET_CACHE\nSTART_MSG_CACHE\nmsg x. IN A 1 1 60 0 1 0 0\n"
		"x. IN A notanumber\nEND_MSG_CACHE\nEOF\n",
		"START_RRSET_CACHE\n;rrset 60 1 0 8 0\nx.\t60\tIN\tA\t1.2.3.4\n"
		"END_RRSET_CACHE\nSTART_MSG_CACHE\nEND_MSG_CACHE\n",
	};
	size_t i;
	(void)state;
	for(i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct caches c = mk();
		size_t nr = 9, nm = 9;
		char err[256] = "";
		assert_int_equal(load(&c, bad[i], T0, &nr, &nm, err), 0);
		assert_true(strncmp(err, "line ", 5) == 0);
		assert_int_equal(nr, 0);
		assert_int_equal(nm, 0);
		assert_int_equal(lruhash_count(c.r->table), 0);
		assert_int_equal(lruhash_count(c.m->table), 0);
		rm(&c);
	}
	/* a NUL inside a line (the length is given, not the NUL) */
	{
		static const char t[] = "START_RRSET_CACHE\n;rrset 60\0 1 0 8 0"
			"\nEND_RRSET_CACHE\nSTART_MSG_CACHE\nEND_MSG_CACHE\nEOF\n";
		struct caches c = mk();
		size_t nr, nm;
		char err[256];
		assert_int_equal(cache_load(c.r, c.m, t, sizeof(t) - 1, T0,
			&nr, &nm, err, sizeof(err)), 0);
		rm(&c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_and_answer),
		cmocka_unit_test(test_dump_loads_back_to_itself),
		cmocka_unit_test(test_reply_sets_written),
		cmocka_unit_test(test_missing_reference_skips_message),
		cmocka_unit_test(test_malformed_stores_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
