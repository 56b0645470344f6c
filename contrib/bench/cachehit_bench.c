/* SPDX-License-Identifier: BSD-3-Clause */
/* contrib/bench/cachehit_bench.c - microbenchmark of the message cache
 * hit path. Fills a cache with -e entries (a typical answer: 2 A
 * records, 2 NS, 2 glue; ~150 bytes), then answers -n queries in a
 * random order from pre-built query packets, and prints ns per query:
 *   lookup: msg_cache_hash + msg_cache_answer from a pre-parsed
 *           query_info (the cache's own cost)
 *   parse+lookup: query_parse of the packet as well (all of the
 *           user-space work of a hit but the recvmmsg/sendmmsg calls)
 *   answer_q: the daemon's work (msg_cache_answer_q: msg_cache_qkey
 *           then msg_cache_answer_k, which daemon/query.c calls apart
 *           so the bucket loads meanwhile), without and with
 *           the security out-parameter (num.answer.secure):
 *           --toggle-collect=bench_q_nosec / bench_q_sec
 * Instructions per hit, with callgrind (counts only one timed loop):
 *   valgrind --tool=callgrind --toggle-collect=bench_lookup \
 *     ./cachehit_bench -n 100000   then divide the Ir total by -n
 *   (--toggle-collect=bench_parse_lookup for the parse included)
 * Build: make bench-cache (in the build directory). */
#include "config.h"
#include "services/cache/msgcache.h"
#include "util/dname.h"
#include "util/msgencode.h"
#include "util/msgparse.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define QMAX 64

struct query {
	uint8_t pkt[QMAX];
	size_t len;
	struct query_info qi;
};

static void wr16(uint8_t* p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* A query packet for name/A with EDNS (DO clear), 0x20 mixed case. */
static size_t mk_query_pkt(uint8_t* pkt, const char* name, unsigned id)
{
	size_t n = dname_from_str(name, pkt + 12), i;
	memset(pkt, 0, 12);
	wr16(pkt, (uint16_t)id);
	wr16(pkt + 2, FLAG_RD);
	wr16(pkt + 4, 1);
	wr16(pkt + 10, 1);
	for(i = 0; i < n; i++)
		if(pkt[12 + i] >= 'a' && pkt[12 + i] <= 'z' && (id >> (i % 16)) & 1)
			pkt[12 + i] ^= 0x20;
	wr16(pkt + 12 + n, TYPE_A);
	wr16(pkt + 14 + n, CLASS_IN);
	n += 16;
	pkt[n] = 0;                 /* OPT: root owner */
	wr16(pkt + n + 1, TYPE_OPT);
	wr16(pkt + n + 3, 1232);
	memset(pkt + n + 5, 0, 6);
	return n + 11;
}

static size_t mk_reply(uint8_t* out, const struct query_info* qi)
{
	static const uint8_t a1[4] = { 192, 0, 2, 1 }, a2[4] = { 192, 0, 2, 2 };
	static const uint8_t ns1[] = "\003ns1\007example\003com";
	static const uint8_t ns2[] = "\003ns2\007example\003com";
	static const uint8_t zone[] = "\007example\003com";
	const uint8_t* ard[2] = { a1, a2 };
	const uint8_t* nsrd[2] = { ns1, ns2 };
	const uint8_t* g1[1] = { a1 }, *g2[1] = { a2 };
	uint16_t al[2] = { 4, 4 }, nsl[2] = { sizeof(ns1), sizeof(ns2) };
	struct packed_rrset r;
	struct msg_builder b;
	msg_begin(&b, out, 4096, qi, FLAG_RA, 0);
	r.owner = qi->qname;
	r.owner_len = qi->qname_len;
	r.type = TYPE_A;
	r.rclass = CLASS_IN;
	r.ttl = 3600;
	r.count = 2;
	r.rdata = ard;
	r.rdlen = al;
	msg_add_rrset(&b, SEC_ANSWER, &r);
	r.owner = zone;
	r.owner_len = sizeof(zone);
	r.type = TYPE_NS;
	r.rdata = nsrd;
	r.rdlen = nsl;
	msg_add_rrset(&b, SEC_AUTHORITY, &r);
	r.count = 1;
	r.type = TYPE_A;
	r.owner = ns1;
	r.owner_len = sizeof(ns1);
	r.rdata = g1;
	r.rdlen = al;
	msg_add_rrset(&b, SEC_ADDITIONAL, &r);
	r.owner = ns2;
	r.owner_len = sizeof(ns2);
	r.rdata = g2;
	msg_add_rrset(&b, SEC_ADDITIONAL, &r);
	return msg_finish(&b, qi, 1232, 0);
}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The timed loops; noinline so callgrind can count each alone. */
__attribute__((noinline)) size_t bench_lookup(struct msg_cache* c,
	const struct query* q, const uint32_t* order, size_t n, time_t t,
	uint8_t* out)
{
	size_t i, total = 0;
	for(i = 0; i < n; i++) {
		const struct query_info* p = &q[order[i]].qi;
		total += msg_cache_answer(c, p, msg_cache_hash(c, p), t, out,
			1232, 1232);
	}
	return total;
}

__attribute__((noinline)) size_t bench_parse_lookup(struct msg_cache* c,
	const struct query* q, const uint32_t* order, size_t n, time_t t,
	uint8_t* out)
{
	size_t i, total = 0;
	for(i = 0; i < n; i++) {
		const struct query* x = &q[order[i]];
		struct query_info qi;
		if(query_parse(x->pkt, x->len, &qi) != PARSE_OK)
			abort();
		total += msg_cache_answer(c, &qi, msg_cache_hash(c, &qi), t,
			out, 1232, 1232);
	}
	return total;
}

/* The daemon's hit path (daemon/query.c calls msg_cache_qkey and
 * msg_cache_answer_k apart; msg_cache_answer_q is the two in one), which
 * hashes from the key it makes, and the entry's security status for
 * num.answer.secure; sec NULL shows what that out-parameter costs. */
__attribute__((noinline)) size_t bench_q_nosec(struct msg_cache* c,
	const struct query* q, const uint32_t* order, size_t n, time_t t,
	uint8_t* out)
{
	size_t i, total = 0;
	for(i = 0; i < n; i++)
		total += msg_cache_answer_q(c, &q[order[i]].qi, t, out, 1232,
			1232, NULL, NULL, NULL);
	return total;
}

__attribute__((noinline)) size_t bench_q_sec(struct msg_cache* c,
	const struct query* q, const uint32_t* order, size_t n, time_t t,
	uint8_t* out, uint64_t* secure)
{
	size_t i, total = 0;
	for(i = 0; i < n; i++) {
		uint8_t sec = SEC_UNCHECKED;
		total += msg_cache_answer_q(c, &q[order[i]].qi, t, out, 1232,
			1232, NULL, NULL, &sec);
		*secure += (sec == SEC_SECURE);
	}
	return total;
}

int main(int argc, char** argv)
{
	size_t entries = 10000, n = 5000000, i;
	int opt;
	struct msg_cache* c;
	struct query* q;
	uint32_t* order;
	uint8_t out[65535], reply[4096];
	time_t t0 = time(NULL);
	double t;
	unsigned s = 12345;
	while((opt = getopt(argc, argv, "e:n:")) != -1) {
		if(opt == 'e')
			entries = strtoul(optarg, NULL, 10);
		else if(opt == 'n')
			n = strtoul(optarg, NULL, 10);
		else {
			fprintf(stderr, "usage: %s [-e entries] [-n lookups]\n",
				argv[0]);
			return 1;
		}
	}
	if(entries == 0 || n == 0)
		return 1;
	c = msg_cache_create(64 << 20, 4, 0, 86400, 3600);
	q = calloc(entries, sizeof(*q));
	order = malloc(n * sizeof(*order));
	if(!c || !q || !order)
		return 1;
	for(i = 0; i < entries; i++) {
		char name[64];
		snprintf(name, sizeof(name), "www%zu.example.com.", i);
		q[i].len = mk_query_pkt(q[i].pkt, name, (unsigned)i * 2654435761u);
		if(query_parse(q[i].pkt, q[i].len, &q[i].qi) != PARSE_OK)
			return 1;
		if(!msg_cache_store(c, &q[i].qi, msg_cache_hash(c, &q[i].qi),
			reply, mk_reply(reply, &q[i].qi), t0 - 10))
			return 1;
	}
	for(i = 0; i < n; i++) {
		s = s * 1103515245u + 12345u;
		order[i] = (s >> 8) % (uint32_t)entries;
	}
	printf("%zu entries, %zu lookups, reply %zu bytes\n", entries, n,
		msg_cache_answer(c, &q[0].qi, msg_cache_hash(c, &q[0].qi), t0,
		out, 1232, 1232));
	/* warm up (not in the counted functions) */
	for(i = 0; i < entries; i++)
		if(msg_cache_answer(c, &q[i].qi, msg_cache_hash(c, &q[i].qi), t0,
			out, 1232, 1232) == 0)
			return 1;
	t = now_ns();
	if(bench_lookup(c, q, order, n, t0, out) == 0)
		return 1;
	printf("lookup:       %6.1f ns per hit\n", (now_ns() - t) / (double)n);
	t = now_ns();
	if(bench_parse_lookup(c, q, order, n, t0, out) == 0)
		return 1;
	printf("parse+lookup: %6.1f ns per hit\n", (now_ns() - t) / (double)n);
	{
		uint64_t secure = 0;
		t = now_ns();
		if(bench_q_nosec(c, q, order, n, t0, out) == 0)
			return 1;
		printf("answer_q:     %6.1f ns per hit\n",
			(now_ns() - t) / (double)n);
		t = now_ns();
		if(bench_q_sec(c, q, order, n, t0, out, &secure) == 0)
			return 1;
		printf("answer_q+sec: %6.1f ns per hit (%llu secure)\n",
			(now_ns() - t) / (double)n, (unsigned long long)secure);
	}
	printf("instructions per hit: valgrind --tool=callgrind "
		"--toggle-collect=bench_lookup %s -n 100000 (or "
		"--toggle-collect=bench_parse_lookup), then the Ir total in "
		"callgrind_annotate / 100000\n", argv[0]);
	msg_cache_delete(c);
	free(q);
	free(order);
	return 0;
}
