/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/msgcache_test.c - the message cache: store a reply built
 * with msgencode, answer from it, and read the answer back with ldns
 * (independent parser): TTL countdown, expiry, clamps, negative TTL,
 * 0x20 case echo, EDNS, truncation at RRset boundaries, malformed
 * stores, flushes, the memory bound and 4 threads. */
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
#include <ldns/ldns.h>
#include "services/cache/msgcache.h"
#include "util/dname.h"
#include "util/msgencode.h"

#define MAXRR 128
#define T0 ((time_t)1700000000)

/* RRs from zone-file text, grouped into RRsets (consecutive RRs with the
 * same owner and type) and added to a builder section. */
struct rrbuf {
	uint8_t owner[MAXRR][256];
	uint8_t rd[MAXRR][512];
	const uint8_t* rdp[MAXRR];
	uint16_t rdl[MAXRR];
	struct packed_rrset r[MAXRR];
};

static void add_rrs(struct msg_builder* b, enum msg_section sec,
	const char* const* txt, size_t n, struct rrbuf* rb)
{
	size_t i, nsets = 0;
	struct packed_rrset* cur = NULL;
	for(i = 0; i < n; i++) {
		ldns_rr* rr = NULL;
		ldns_buffer* buf = ldns_buffer_new(512);
		ldns_rdf* o;
		assert_int_equal(ldns_rr_new_frm_str(&rr, txt[i], 3600, NULL,
			NULL), LDNS_STATUS_OK);
		o = ldns_rr_owner(rr);
		memcpy(rb->owner[i], ldns_rdf_data(o), ldns_rdf_size(o));
		assert_int_equal(ldns_rr_rdata2buffer_wire(buf, rr),
			LDNS_STATUS_OK);
		memcpy(rb->rd[i], ldns_buffer_begin(buf),
			ldns_buffer_position(buf));
		rb->rdl[i] = (uint16_t)ldns_buffer_position(buf);
		rb->rdp[i] = rb->rd[i];
		if(cur && cur->type == ldns_rr_get_type(rr) &&
			query_dname_compare(cur->owner, rb->owner[i]) == 0) {
			cur->count++;
		} else {
			cur = &rb->r[nsets++];
			cur->owner = rb->owner[i];
			cur->owner_len = ldns_rdf_size(o);
			cur->type = (uint16_t)ldns_rr_get_type(rr);
			cur->rclass = (uint16_t)ldns_rr_get_class(rr);
			cur->ttl = ldns_rr_ttl(rr);
			cur->count = 1;
			cur->rdata = &rb->rdp[i];
			cur->rdlen = &rb->rdl[i];
		}
		ldns_buffer_free(buf);
		ldns_rr_free(rr);
	}
	for(i = 0; i < nsets; i++)
		msg_add_rrset(b, sec, &rb->r[i]);
}

static void mk_query(struct query_info* qi, const char* name, uint16_t type,
	uint16_t flags)
{
	memset(qi, 0, sizeof(*qi));
	qi->id = 0xbeef;
	qi->flags = flags;
	qi->qname_len = dname_from_str(name, qi->qname);
	assert_true(qi->qname_len > 0);
	qi->qtype = type;
	qi->qclass = CLASS_IN;
}

static int closed_sets;  /* mk_reply: msg_builder.closed_sets */

/* A reply to qi as the iterator would encode it. */
static size_t mk_reply(uint8_t* out, const struct query_info* qi, int rcode,
	const char* const* an, size_t nan, const char* const* ns, size_t nns,
	const char* const* ar, size_t nar)
{
	struct msg_builder b;
	struct rrbuf* rb = malloc(sizeof(*rb));
	assert_non_null(rb);
	msg_begin(&b, out, 65535, qi, FLAG_RA, rcode);
	b.closed_sets = closed_sets;
	add_rrs(&b, SEC_ANSWER, an, nan, rb);
	add_rrs(&b, SEC_AUTHORITY, ns, nns, rb);
	add_rrs(&b, SEC_ADDITIONAL, ar, nar, rb);
	free(rb);
	return msg_finish(&b, qi, 4096, rcode);
}

static ldns_pkt* read_back(const uint8_t* buf, size_t len)
{
	ldns_pkt* p = NULL;
	assert_true(len > 0);
	assert_int_equal(ldns_wire2pkt(&p, buf, len), LDNS_STATUS_OK);
	return p;
}

/* Every RR in every section has this TTL. */
static void check_ttls(ldns_pkt* p, uint32_t ttl)
{
	ldns_rr_list* l[3] = { ldns_pkt_answer(p), ldns_pkt_authority(p),
		ldns_pkt_additional(p) };
	size_t s, i;
	for(s = 0; s < 3; s++)
		for(i = 0; i < ldns_rr_list_rr_count(l[s]); i++)
			assert_int_equal(ldns_rr_ttl(ldns_rr_list_rr(l[s], i)),
				ttl);
}

static const char* const www_a[] = {
	"www.example.com. 300 IN A 192.0.2.1",
	"www.example.com. 300 IN A 192.0.2.2" };
static const char* const ex_ns[] = {
	"example.com. 300 IN NS ns1.example.com.",
	"example.com. 300 IN NS ns2.example.com." };
static const char* const ex_glue[] = {
	"ns1.example.com. 300 IN A 192.0.2.53",
	"ns2.example.com. 300 IN AAAA 2001:db8::53" };

static struct msg_cache* store_www(uint32_t min, uint32_t max,
	struct query_info* qi)
{
	struct msg_cache* c = msg_cache_create(1 << 20, 4, min, max, 3600);
	uint8_t buf[65535];
	size_t n;
	assert_non_null(c);
	mk_query(qi, "www.example.com.", TYPE_A, FLAG_RD);
	n = mk_reply(buf, qi, RCODE_NOERROR, www_a, 2, ex_ns, 2, ex_glue, 2);
	assert_int_equal(msg_cache_store(c, qi, msg_cache_hash(c, qi), buf, n,
		T0), 1);
	return c;
}

static void test_hit_and_countdown(void** state)
{
	struct query_info qi, q2;
	struct msg_cache* c = store_www(0, 86400, &qi);
	uint8_t out[4096];
	size_t n;
	ldns_pkt* p;
	char* s;
	(void)state;
	/* mixed case, other ID, RD and CD set: echoed */
	mk_query(&q2, "wWw.ExAmPlE.cOm.", TYPE_A, FLAG_RD | FLAG_CD);
	q2.id = 0x1234;
	/* CD is part of the key: a miss */
	assert_int_equal(msg_cache_answer(c, &q2, msg_cache_hash(c, &q2), T0,
		out, 512, 0), 0);
	q2.flags = FLAG_RD;
	n = msg_cache_answer(c, &q2, msg_cache_hash(c, &q2), T0 + 10, out,
		512, 0);
	p = read_back(out, n);
	assert_int_equal(ldns_pkt_id(p), 0x1234);
	assert_true(ldns_pkt_qr(p) && ldns_pkt_rd(p) && ldns_pkt_ra(p));
	assert_false(ldns_pkt_tc(p) || ldns_pkt_cd(p) || ldns_pkt_aa(p));
	assert_int_equal(ldns_pkt_ancount(p), 2);
	assert_int_equal(ldns_pkt_nscount(p), 2);
	assert_int_equal(ldns_pkt_arcount(p), 2);
	check_ttls(p, 290);
	s = ldns_rdf2str(ldns_rr_owner(ldns_rr_list_rr(ldns_pkt_question(p),
		0)));
	assert_string_equal(s, "wWw.ExAmPlE.cOm.");
	free(s);
	ldns_pkt_free(p);
	/* the same again at T0: 300; at T0+299: 1; at T0+300: gone */
	n = msg_cache_answer(c, &q2, msg_cache_hash(c, &q2), T0, out, 512, 0);
	p = read_back(out, n);
	check_ttls(p, 300);
	ldns_pkt_free(p);
	n = msg_cache_answer(c, &q2, msg_cache_hash(c, &q2), T0 + 299, out,
		512, 0);
	p = read_back(out, n);
	check_ttls(p, 1);
	ldns_pkt_free(p);
	assert_int_equal(msg_cache_answer(c, &q2, msg_cache_hash(c, &q2),
		T0 + 300, out, 512, 0), 0);
	assert_null(msg_cache_lookup(c, &q2, msg_cache_hash(c, &q2), T0 + 300));
	/* a clock that went back: TTLs as stored, not raised */
	n = msg_cache_answer(c, &q2, msg_cache_hash(c, &q2), T0 - 100, out,
		512, 0);
	p = read_back(out, n);
	check_ttls(p, 300);
	ldns_pkt_free(p);
	msg_cache_delete(c);
}

/* prefetch window and serve-expired (msg_cache_answer_ex) */
static void test_prefetch_and_expired(void** state)
{
	struct query_info qi;
	struct msg_cache* c = store_www(0, 86400, &qi);
	struct msg_serve_policy pol = { 1, 1, 100, 30, 0 };
	uint32_t h = msg_cache_hash(c, &qi);
	enum msg_hit hit;
	uint8_t out[4096];
	size_t n;
	ldns_pkt* p;
	(void)state;
	/* 300 s TTL: fresh at +269 (31 left), prefetch from +270 (Unbound:
	 * ttl - ttl/10) */
	assert_true(msg_cache_answer_ex(c, &qi, h, T0 + 269, out, 512, 0,
		&pol, &hit) > 0);
	assert_int_equal(hit, MSG_HIT_FRESH);
	assert_true(msg_cache_answer_ex(c, &qi, h, T0 + 270, out, 512, 0,
		&pol, &hit) > 0);
	assert_int_equal(hit, MSG_HIT_PREFETCH);
	/* prefetch off: a fresh hit */
	pol.prefetch = 0;
	assert_true(msg_cache_answer_ex(c, &qi, h, T0 + 271, out, 512, 0,
		&pol, &hit) > 0);
	assert_int_equal(hit, MSG_HIT_FRESH);
	pol.prefetch = 1;
	assert_true(msg_cache_answer_ex(c, &qi, h, T0 + 271, out, 512, 0,
		&pol, &hit) > 0);
	assert_int_equal(hit, MSG_HIT_PREFETCH);
	/* expired: served with every TTL 30, up to serve-expired-ttl past */
	n = msg_cache_answer_ex(c, &qi, h, T0 + 350, out, 512, 0, &pol, &hit);
	assert_int_equal(hit, MSG_HIT_EXPIRED);
	p = read_back(out, n);
	assert_int_equal(ldns_pkt_ancount(p), 2);
	check_ttls(p, 30);
	ldns_pkt_free(p);
	assert_int_equal(msg_cache_answer_ex(c, &qi, h, T0 + 400, out, 512, 0,
		&pol, &hit), 0);
	/* without serve-expired, or without a policy: a miss */
	pol.serve_expired = 0;
	assert_int_equal(msg_cache_answer_ex(c, &qi, h, T0 + 350, out, 512, 0,
		&pol, &hit), 0);
	assert_int_equal(msg_cache_answer_ex(c, &qi, h, T0 + 350, out, 512, 0,
		NULL, NULL), 0);
	/* serve-expired-ttl 0: no limit */
	pol.serve_expired = 1;
	pol.expired_ttl = 0;
	assert_true(msg_cache_answer_ex(c, &qi, h, T0 + 100000, out, 512, 0,
		&pol, &hit) > 0);
	msg_cache_delete(c);
	/* TTL 10: prefetch in its last second; TTL 9: never (ttl/10 = 0) */
	pol.serve_expired = 0;
	c = store_www(0, 10, &qi);
	h = msg_cache_hash(c, &qi);
	assert_true(msg_cache_answer_ex(c, &qi, h, T0 + 8, out, 512, 0,
		&pol, &hit) > 0);
	assert_int_equal(hit, MSG_HIT_FRESH);
	assert_true(msg_cache_answer_ex(c, &qi, h, T0 + 9, out, 512, 0,
		&pol, &hit) > 0);
	assert_int_equal(hit, MSG_HIT_PREFETCH);
	msg_cache_delete(c);
	c = store_www(0, 9, &qi);
	h = msg_cache_hash(c, &qi);
	assert_true(msg_cache_answer_ex(c, &qi, h, T0 + 8, out, 512, 0,
		&pol, &hit) > 0);
	assert_int_equal(hit, MSG_HIT_FRESH);
	msg_cache_delete(c);
}

static void test_ttl_clamps(void** state)
{
	struct query_info qi;
	struct msg_cache* c;
	uint8_t out[4096];
	size_t n;
	ldns_pkt* p;
	(void)state;
	c = store_www(1000, 86400, &qi);  /* min 1000 > 300 */
	n = msg_cache_answer(c, &qi, msg_cache_hash(c, &qi), T0 + 500, out,
		512, 0);
	p = read_back(out, n);
	check_ttls(p, 500);
	ldns_pkt_free(p);
	msg_cache_delete(c);
	c = store_www(0, 100, &qi);  /* max 100 < 300 */
	n = msg_cache_answer(c, &qi, msg_cache_hash(c, &qi), T0, out, 512, 0);
	p = read_back(out, n);
	check_ttls(p, 100);
	ldns_pkt_free(p);
	assert_int_equal(msg_cache_answer(c, &qi, msg_cache_hash(c, &qi),
		T0 + 100, out, 512, 0), 0);
	msg_cache_delete(c);
}

/* Mixed TTLs: each counts down; the entry lives as long as the least. */
static void test_mixed_ttls(void** state)
{
	static const char* const an[] = {
		"a.example. 50 IN CNAME b.example.",
		"b.example. 500 IN A 192.0.2.9" };
	struct msg_cache* c = msg_cache_create(1 << 20, 1, 0, 86400, 3600);
	struct query_info qi;
	uint8_t buf[4096], out[4096];
	size_t n;
	ldns_pkt* p;
	(void)state;
	mk_query(&qi, "a.example.", TYPE_A, FLAG_RD);
	n = mk_reply(buf, &qi, 0, an, 2, NULL, 0, NULL, 0);
	assert_int_equal(msg_cache_store(c, &qi, msg_cache_hash(c, &qi), buf,
		n, T0), 1);
	n = msg_cache_answer(c, &qi, msg_cache_hash(c, &qi), T0 + 20, out,
		512, 0);
	p = read_back(out, n);
	assert_int_equal(ldns_rr_ttl(ldns_rr_list_rr(ldns_pkt_answer(p), 0)),
		30);
	assert_int_equal(ldns_rr_ttl(ldns_rr_list_rr(ldns_pkt_answer(p), 1)),
		480);
	ldns_pkt_free(p);
	assert_int_equal(msg_cache_answer(c, &qi, msg_cache_hash(c, &qi),
		T0 + 50, out, 512, 0), 0);
	msg_cache_delete(c);
}

static void test_negative_ttl(void** state)
{
	static const char* const soa[] = { "example.com. 3600 IN SOA "
		"ns1.example.com. host.example.com. 1 7200 3600 1209600 300" };
	struct msg_cache* c = msg_cache_create(1 << 20, 4, 0, 86400, 3600);
	struct msg_cache* c2 = msg_cache_create(1 << 20, 4, 0, 86400, 60);
	struct query_info qi;
	uint8_t buf[4096], out[4096];
	size_t n, m;
	ldns_pkt* p;
	(void)state;
	mk_query(&qi, "nx.example.com.", TYPE_A, FLAG_RD);
	n = mk_reply(buf, &qi, RCODE_NXDOMAIN, NULL, 0, soa, 1, NULL, 0);
	assert_int_equal(msg_cache_store(c, &qi, msg_cache_hash(c, &qi), buf,
		n, T0), 1);
	assert_int_equal(msg_cache_store(c2, &qi, msg_cache_hash(c2, &qi), buf,
		n, T0), 1);
	m = msg_cache_answer(c, &qi, msg_cache_hash(c, &qi), T0 + 1, out, 512,
		0);
	p = read_back(out, m);
	assert_int_equal(ldns_pkt_get_rcode(p), LDNS_RCODE_NXDOMAIN);
	check_ttls(p, 299);  /* the SOA MINIMUM, not the SOA's TTL */
	ldns_pkt_free(p);
	assert_int_equal(msg_cache_answer(c, &qi, msg_cache_hash(c, &qi),
		T0 + 300, out, 512, 0), 0);
	/* cache-max-negative-ttl 60 */
	m = msg_cache_answer(c2, &qi, msg_cache_hash(c2, &qi), T0, out, 512,
		0);
	p = read_back(out, m);
	check_ttls(p, 60);
	ldns_pkt_free(p);
	assert_int_equal(msg_cache_answer(c2, &qi, msg_cache_hash(c2, &qi),
		T0 + 60, out, 512, 0), 0);
	/* no records at all: MSG_NORR_TTL */
	mk_query(&qi, "norr.example.com.", TYPE_A, FLAG_RD);
	n = mk_reply(buf, &qi, RCODE_SERVFAIL, NULL, 0, NULL, 0, NULL, 0);
	assert_int_equal(msg_cache_store(c, &qi, msg_cache_hash(c, &qi), buf,
		n, T0), 1);
	assert_true(msg_cache_answer(c, &qi, msg_cache_hash(c, &qi),
		T0 + MSG_NORR_TTL - 1, out, 512, 0) > 0);
	assert_int_equal(msg_cache_answer(c, &qi, msg_cache_hash(c, &qi),
		T0 + MSG_NORR_TTL, out, 512, 0), 0);
	msg_cache_delete(c);
	msg_cache_delete(c2);
}

/* compat: unbound-1.19: cache-min-negative-ttl raises the SOA MINIMUM of a
 * negative answer (300) to 600, above cache-max-negative-ttl's cut but
 * not past it; cache-min-ttl does not touch the SOA when it is set. */
static void test_min_negative_ttl(void** state)
{
	static const char* const soa[] = { "example.com. 3600 IN SOA "
		"ns1.example.com. host.example.com. 1 7200 3600 1209600 300" };
	static const char* const a1[] = { "www.example.com. 3600 IN A "
		"192.0.2.1" };
	struct msg_cache* c = msg_cache_create(1 << 20, 4, 1000, 86400, 3600);
	struct query_info qi;
	uint8_t buf[4096], out[4096];
	size_t n, m;
	ldns_pkt* p;
	(void)state;
	c->min_neg_ttl = 600;
	mk_query(&qi, "nx.example.com.", TYPE_A, FLAG_RD);
	n = mk_reply(buf, &qi, RCODE_NXDOMAIN, NULL, 0, soa, 1, NULL, 0);
	assert_int_equal(msg_cache_store(c, &qi, msg_cache_hash(c, &qi), buf,
		n, T0), 1);
	m = msg_cache_answer(c, &qi, msg_cache_hash(c, &qi), T0 + 1, out, 512,
		0);
	p = read_back(out, m);
	check_ttls(p, 599);  /* 600, not 300 and not cache-min-ttl's 1000 */
	ldns_pkt_free(p);
	assert_int_equal(msg_cache_answer(c, &qi, msg_cache_hash(c, &qi),
		T0 + 600, out, 512, 0), 0);
	/* a positive answer keeps cache-min-ttl */
	mk_query(&qi, "www.example.com.", TYPE_A, FLAG_RD);
	n = mk_reply(buf, &qi, RCODE_NOERROR, a1, 1, NULL, 0, NULL, 0);
	assert_int_equal(msg_cache_store(c, &qi, msg_cache_hash(c, &qi), buf,
		n, T0), 1);
	assert_true(msg_cache_answer(c, &qi, msg_cache_hash(c, &qi),
		T0 + 999, out, 512, 0) > 0);
	msg_cache_delete(c);
}

static void test_edns(void** state)
{
	struct query_info qi, q2;
	struct msg_cache* c = store_www(0, 86400, &qi);
	uint8_t out[4096], buf[4096];
	size_t n;
	ldns_pkt* p;
	(void)state;
	q2 = qi;
	q2.has_edns = 1;
	q2.edns_udp_size = 1232;
	n = msg_cache_answer(c, &q2, msg_cache_hash(c, &q2), T0, out, 1232,
		1232);
	p = read_back(out, n);
	assert_int_equal(ldns_pkt_arcount(p), 2);  /* ldns takes the OPT out */
	assert_int_equal(out[11], 3);
	assert_int_equal(ldns_pkt_edns_udp_size(p), 1232);
	assert_false(ldns_pkt_edns_do(p));
	ldns_pkt_free(p);
	/* DO is part of the key */
	q2.edns_do = 1;
	assert_int_equal(msg_cache_answer(c, &q2, msg_cache_hash(c, &q2), T0,
		out, 1232, 1232), 0);
	/* a stored reply that has an OPT: dropped from the template */
	n = mk_reply(buf, &q2, 0, www_a, 2, NULL, 0, NULL, 0);
	assert_int_equal(msg_cache_store(c, &q2, msg_cache_hash(c, &q2), buf,
		n, T0), 1);
	n = msg_cache_answer(c, &q2, msg_cache_hash(c, &q2), T0, out, 1232,
		4096);
	p = read_back(out, n);
	assert_true(ldns_pkt_edns_do(p));
	assert_int_equal(ldns_pkt_edns_udp_size(p), 4096);
	assert_int_equal(out[11], 1);   /* only our OPT */
	ldns_pkt_free(p);
	q2.has_edns = 0;  /* DO without EDNS cannot happen, but no OPT */
	n = msg_cache_answer(c, &q2, msg_cache_hash(c, &q2), T0, out, 512, 0);
	assert_int_equal(out[11], 0);
	msg_cache_delete(c);
}

/* Client EDNS sizes too small for the question (harden-short-bufsize:
 * no): the header with TC, the OPT record only when header and OPT fit,
 * as Unbound's encoder. */
static void test_tiny_limit(void** state)
{
	struct query_info qi, q2;
	struct msg_cache* c = store_www(0, 86400, &qi);
	uint8_t out[4096];
	uint32_t h;
	size_t n;
	(void)state;
	q2 = qi;
	q2.has_edns = 1;
	q2.edns_udp_size = 30;
	h = msg_cache_hash(c, &q2);
	n = msg_cache_answer(c, &q2, h, T0, out, 30, 1232);
	assert_int_equal(n, LDNS_HEADER_SIZE + 11);
	assert_true(out[2] & (FLAG_TC >> 8));
	assert_int_equal(out[5], 0);     /* no question */
	assert_int_equal(out[7], 0);
	assert_int_equal(out[11], 1);    /* the OPT */
	assert_int_equal(out[LDNS_HEADER_SIZE + 2], TYPE_OPT);
	n = msg_cache_answer(c, &q2, h, T0, out, 20, 1232);
	assert_int_equal(n, LDNS_HEADER_SIZE);
	assert_true(out[2] & (FLAG_TC >> 8));
	assert_int_equal(out[11], 0);
	/* the question and OPT fit, the answer does not */
	n = msg_cache_answer(c, &q2, h, T0, out, LDNS_HEADER_SIZE +
		qi.qname_len + 4 + 11, 1232);
	assert_int_equal(n, LDNS_HEADER_SIZE + qi.qname_len + 4 + 11);
	assert_true(out[2] & (FLAG_TC >> 8));
	assert_int_equal(out[5], 1);
	assert_int_equal(out[7], 0);
	msg_cache_delete(c);
}

/* AD is kept for a query with AD or DO only (RFC 6840 5.8). */
static void test_ad_bit(void** state)
{
	struct msg_cache* c = msg_cache_create(1 << 20, 4, 0, 86400, 3600);
	struct query_info qi;
	struct msg_builder b;
	uint8_t buf[4096], out[4096];
	size_t n;
	(void)state;
	mk_query(&qi, "www.example.com.", TYPE_A, FLAG_RD);
	msg_begin(&b, buf, 4096, &qi, FLAG_RA | FLAG_AD, 0);
	n = msg_finish(&b, &qi, 4096, 0);
	assert_int_equal(msg_cache_store(c, &qi, msg_cache_hash(c, &qi), buf,
		n, T0), 1);
	n = msg_cache_answer(c, &qi, msg_cache_hash(c, &qi), T0, out, 512, 0);
	assert_int_equal(n, 12 + 17 + 4);
	assert_int_equal(out[3] & 0x20, 0);
	qi.flags |= FLAG_AD;
	n = msg_cache_answer(c, &qi, msg_cache_hash(c, &qi), T0, out, 512, 0);
	assert_int_equal(out[3] & 0x20, 0x20);
	msg_cache_delete(c);
}

/* 30 TXT RRsets of ~100 bytes in the answer, a glue set: cut at RRset
 * boundaries with TC; additional overflow alone: no TC. */
static void test_truncation(void** state)
{
	static char txt[60][200];
	const char* an[60];
	struct msg_cache* c = msg_cache_create(1 << 20, 4, 0, 86400, 3600);
	struct query_info qi;
	uint8_t buf[8192], out[8192];
	size_t n, m, i;
	ldns_pkt* p;
	(void)state;
	for(i = 0; i < 60; i++) {
		/* two RRs per owner: RRsets of 2 */
		snprintf(txt[i], sizeof(txt[i]), "t%zu.example. 300 IN TXT "
			"\"%090zu\"", i / 2, i);
		an[i] = txt[i];
	}
	mk_query(&qi, "t.example.", TYPE_TXT, FLAG_RD);
	n = mk_reply(buf, &qi, 0, an, 60, NULL, 0, ex_glue, 2);
	assert_true(n > 6000);
	assert_int_equal(msg_cache_store(c, &qi, msg_cache_hash(c, &qi), buf,
		n, T0), 1);
	qi.has_edns = 1;
	m = msg_cache_answer(c, &qi, msg_cache_hash(c, &qi), T0 + 5, out, 512,
		1232);
	assert_true(m <= 512);
	p = read_back(out, m);
	assert_true(ldns_pkt_tc(p));
	assert_int_equal(ldns_pkt_ancount(p) % 2, 0);  /* whole RRsets */
	assert_true(ldns_pkt_ancount(p) >= 2);
	assert_int_equal(ldns_pkt_arcount(p), 0);
	assert_int_equal(out[11], 1);  /* the OPT */
	check_ttls(p, 295);
	ldns_pkt_free(p);
	/* everything fits */
	m = msg_cache_answer(c, &qi, msg_cache_hash(c, &qi), T0, out, 8192,
		1232);
	p = read_back(out, m);
	assert_false(ldns_pkt_tc(p));
	assert_int_equal(ldns_pkt_ancount(p), 60);
	assert_int_equal(ldns_pkt_arcount(p), 2);
	ldns_pkt_free(p);
	/* room for the answer and one glue RRset: no TC */
	m = msg_cache_answer(c, &qi, msg_cache_hash(c, &qi), T0, out, n + 11 -
		16, 1232);
	p = read_back(out, m);
	assert_false(ldns_pkt_tc(p));
	assert_int_equal(ldns_pkt_ancount(p), 60);
	assert_int_equal(ldns_pkt_arcount(p), 1);
	ldns_pkt_free(p);
	msg_cache_delete(c);
}

/* RRSIGs stay with the RRset they cover when truncating. */
static void test_rrsig_grouping(void** state)
{
	static const char* const an[] = {
		"s.example. 300 IN A 192.0.2.1",
		"s.example. 300 IN RRSIG A 8 2 300 20300101000000 "
		"20200101000000 1 example. AAAA",
		"s.example. 300 IN A 192.0.2.2" };
	struct msg_cache* c = msg_cache_create(1 << 20, 4, 0, 86400, 3600);
	struct query_info qi;
	uint8_t buf[4096], out[4096];
	size_t n, m;
	(void)state;
	mk_query(&qi, "s.example.", TYPE_A, FLAG_RD);
	/* order: A, RRSIG(A) one set; then A again: continues too */
	n = mk_reply(buf, &qi, 0, an, 3, NULL, 0, NULL, 0);
	assert_int_equal(msg_cache_store(c, &qi, msg_cache_hash(c, &qi), buf,
		n, T0), 1);
	/* one byte short: the whole set goes, header + question stay */
	m = msg_cache_answer(c, &qi, msg_cache_hash(c, &qi), T0, out, n - 1,
		0);
	assert_int_equal(m, 12 + 11 + 4);
	assert_int_equal(out[2] & 0x02, 0x02);
	assert_int_equal(out[7], 0);
	msg_cache_delete(c);
}

static void test_bad_stores(void** state)
{
	struct query_info qi, other;
	struct msg_cache* c = msg_cache_create(1 << 20, 4, 0, 86400, 3600);
	uint8_t buf[4096], bad[4096];
	size_t n, i;
	uint32_t h;
	(void)state;
	mk_query(&qi, "www.example.com.", TYPE_A, FLAG_RD);
	h = msg_cache_hash(c, &qi);
	n = mk_reply(buf, &qi, 0, www_a, 2, ex_ns, 2, ex_glue, 2);
	/* TC set */
	memcpy(bad, buf, n);
	bad[2] |= 0x02;
	assert_int_equal(msg_cache_store(c, &qi, h, bad, n, T0), 0);
	/* not a reply */
	memcpy(bad, buf, n);
	bad[2] &= 0x7f;
	assert_int_equal(msg_cache_store(c, &qi, h, bad, n, T0), 0);
	/* another question */
	mk_query(&other, "www.example.net.", TYPE_A, FLAG_RD);
	assert_int_equal(msg_cache_store(c, &other, msg_cache_hash(c, &other),
		buf, n, T0), 0);
	other = qi;
	other.qtype = TYPE_AAAA;
	assert_int_equal(msg_cache_store(c, &other, msg_cache_hash(c, &other),
		buf, n, T0), 0);
	/* a hash that is not the key's */
	assert_int_equal(msg_cache_store(c, &qi, h + 1, buf, n, T0), 0);
	/* counts larger than the packet can hold */
	memcpy(bad, buf, n);
	bad[6] = 0xff;
	assert_int_equal(msg_cache_store(c, &qi, h, bad, n, T0), 0);
	/* every truncation of the packet, and every single-byte change:
	 * stored or not, never a crash, and any answer parses */
	for(i = 0; i < n; i++)
		assert_int_equal(msg_cache_store(c, &qi, h, buf, i, T0), 0);
	for(i = 0; i < n; i++) {
		uint8_t out[4096];
		size_t m;
		memcpy(bad, buf, n);
		bad[i] ^= 0x5a;
		if(msg_cache_store(c, &qi, h, bad, n, T0)) {
			m = msg_cache_answer(c, &qi, h, T0, out, 512, 0);
			assert_true(m > 0 && m <= 512);
		}
	}
	/* TTL 0: not stored */
	{
		static const char* const z[] = { "www.example.com. 0 IN A "
			"192.0.2.1" };
		n = mk_reply(buf, &qi, 0, z, 1, NULL, 0, NULL, 0);
		msg_cache_flush_all(c);
		assert_int_equal(msg_cache_store(c, &qi, h, buf, n, T0), 0);
		assert_null(msg_cache_lookup(c, &qi, h, T0));
	}
	msg_cache_delete(c);
}

static void test_flush(void** state)
{
	struct msg_cache* c = msg_cache_create(1 << 20, 4, 0, 86400, 3600);
	static const char* const names[] = { "a.example.com.",
		"b.a.example.com.", "example.com.", "example.net.", "com." };
	struct query_info qi;
	struct msg_entry* m;
	uint8_t buf[4096], zone[256];
	size_t i, n;
	(void)state;
	for(i = 0; i < 5; i++) {
		mk_query(&qi, names[i], TYPE_A, FLAG_RD);
		n = mk_reply(buf, &qi, RCODE_NXDOMAIN, NULL, 0, NULL, 0, NULL,
			0);
		assert_int_equal(msg_cache_store(c, &qi, msg_cache_hash(c, &qi),
			buf, n, T0), 1);
		qi.edns_do = 1;
		assert_int_equal(msg_cache_store(c, &qi, msg_cache_hash(c, &qi),
			buf, n, T0), 1);
	}
	assert_int_equal(lruhash_count(c->table), 10);
	dname_from_str("EXAMPLE.net.", zone);
	assert_int_equal(msg_cache_remove(c, zone, TYPE_A, CLASS_IN), 2);
	assert_int_equal(msg_cache_remove(c, zone, TYPE_A, CLASS_IN), 0);
	dname_from_str("a.Example.com.", zone);
	assert_int_equal(msg_cache_flush_zone(c, zone), 4);
	assert_int_equal(lruhash_count(c->table), 4);
	mk_query(&qi, "example.com.", TYPE_A, FLAG_RD);
	m = msg_cache_lookup(c, &qi, msg_cache_hash(c, &qi), T0);
	assert_non_null(m);
	msg_cache_flush_all(c);  /* frees it once the reference goes */
	assert_int_equal(lruhash_count(c->table), 0);
	assert_int_equal(m->flags & 0xf, RCODE_NXDOMAIN);
	msg_cache_release(c, m);
	msg_cache_delete(c);
}

static void test_memory_bound(void** state)
{
	const size_t max = 1 << 20;
	struct msg_cache* c = msg_cache_create(max, 4, 0, 86400, 3600);
	struct query_info qi;
	uint8_t buf[4096], out[4096];
	size_t n, i, peak = 0;
	char name[64];
	(void)state;
	for(i = 0; i < 100000; i++) {
		size_t m;
		snprintf(name, sizeof(name), "n%zu.example.com.", i);
		mk_query(&qi, name, TYPE_A, FLAG_RD);
		n = mk_reply(buf, &qi, 0, www_a, 2, NULL, 0, NULL, 0);
		assert_int_equal(msg_cache_store(c, &qi, msg_cache_hash(c, &qi),
			buf, n, T0), 1);
		m = lruhash_get_mem(c->table);
		assert_true(m <= max);
		if(m > peak)
			peak = m;
		/* n0 stays hot */
		mk_query(&qi, "n0.example.com.", TYPE_A, FLAG_RD);
		assert_true(msg_cache_answer(c, &qi, msg_cache_hash(c, &qi),
			T0, out, 512, 0) > 0);
	}
	assert_true(peak > max / 2);
	mk_query(&qi, "n1.example.com.", TYPE_A, FLAG_RD);
	assert_int_equal(msg_cache_answer(c, &qi, msg_cache_hash(c, &qi), T0,
		out, 512, 0), 0);
	mk_query(&qi, "n99999.example.com.", TYPE_A, FLAG_RD);
	assert_true(msg_cache_answer(c, &qi, msg_cache_hash(c, &qi), T0, out,
		512, 0) > 0);
	printf("%zu entries in %zu bytes\n", lruhash_count(c->table),
		lruhash_get_mem(c->table));
	msg_cache_delete(c);
}

/* 4 threads store and answer 2000 names in a cache that holds ~1000,
 * checking each answer with ldns. */
struct thr {
	struct msg_cache* c;
	unsigned seed;
	long hits;
	atomic_int* stop;
};

static void* worker(void* arg)
{
	struct thr* t = arg;
	uint8_t buf[4096], out[4096];
	unsigned s = t->seed;
	while(!atomic_load_explicit(t->stop, memory_order_relaxed)) {
		struct query_info qi;
		char name[64];
		size_t n;
		s = s * 1103515245u + 12345u;
		snprintf(name, sizeof(name), "h%u.Example.com.", (s >> 8) % 2000);
		mk_query(&qi, name, TYPE_A, FLAG_RD);
		n = msg_cache_answer(t->c, &qi, msg_cache_hash(t->c, &qi), T0,
			out, 512, 0);
		if(n > 0) {
			ldns_pkt* p = NULL;
			if(ldns_wire2pkt(&p, out, n) != LDNS_STATUS_OK ||
				ldns_pkt_ancount(p) != 2 || ldns_pkt_id(p) !=
				0xbeef)
				abort();
			ldns_pkt_free(p);
			t->hits++;
		} else {
			struct msg_builder b;
			struct packed_rrset r;
			uint8_t a1[4] = { 192, 0, 2, 1 }, a2[4] = { 192, 0, 2, 2 };
			const uint8_t* rd[2] = { a1, a2 };
			uint16_t rl[2] = { 4, 4 };
			r.owner = qi.qname;
			r.owner_len = qi.qname_len;
			r.type = TYPE_A;
			r.rclass = CLASS_IN;
			r.ttl = 300;
			r.count = 2;
			r.rdata = rd;
			r.rdlen = rl;
			msg_begin(&b, buf, 4096, &qi, FLAG_RA, 0);
			msg_add_rrset(&b, SEC_ANSWER, &r);
			n = msg_finish(&b, &qi, 4096, 0);
			msg_cache_store(t->c, &qi, msg_cache_hash(t->c, &qi), buf,
				n, T0);
		}
		if(((s >> 4) & 0xff) == 0)
			msg_cache_flush_zone(t->c, (const uint8_t*)"\002h7\007example\003com");
	}
	return NULL;
}

static void test_threads(void** state)
{
	struct msg_cache* c = msg_cache_create(200000, 4, 0, 86400, 3600);
	pthread_t th[4];
	struct thr t[4];
	atomic_int stop = 0;
	long hits = 0;
	int i;
	(void)state;
	for(i = 0; i < 4; i++) {
		t[i].c = c;
		t[i].seed = (unsigned)i * 31337u + 7;
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
	assert_true(lruhash_get_mem(c->table) <= 200000);
	msg_cache_delete(c);
}

/* The first RDATA of section list l, as text. */
static void first_rdata(ldns_rr_list* l, char* out, size_t len)
{
	char* s = ldns_rdf2str(ldns_rr_rdf(ldns_rr_list_rr(l, 0), 0));
	snprintf(out, len, "%s", s);
	free(s);
}

/* rrset-roundrobin: the RRs of an RRset start at (ID + now) mod count,
 * as Unbound; an RRset that names point into (the NS set, when glue
 * owners were compressed against its RDATA) stays as it is, unless the
 * reply was built with closed_sets; off: the stored order. Every
 * rotated reply still parses, its glue names intact. */
static void test_roundrobin(void** state)
{
	struct query_info qi;
	struct msg_serve_policy pol = { 0, 0, 0, 30, 1 };
	struct msg_cache* c;
	uint8_t out[4096], buf[65535];
	char a[64], ns[64];
	uint32_t h;
	size_t n;
	int closed, id;
	(void)state;
	for(closed = 0; closed < 2; closed++) {
		enum msg_hit hit;
		closed_sets = closed;
		c = msg_cache_create(1 << 20, 4, 0, 86400, 3600);
		assert_non_null(c);
		mk_query(&qi, "www.example.com.", TYPE_A, FLAG_RD);
		n = mk_reply(buf, &qi, RCODE_NOERROR, www_a, 2, ex_ns, 2,
			ex_glue, 2);
		h = msg_cache_hash(c, &qi);
		assert_int_equal(msg_cache_store(c, &qi, h, buf, n, T0), 1);
		for(id = 0; id < 4; id++) {
			ldns_pkt* p;
			char* g;
			int k = (int)(((uint32_t)id + (uint32_t)(T0 + 5)) % 2);
			qi.id = (uint16_t)id;
			pol.roundrobin = id < 3;
			n = msg_cache_answer_ex(c, &qi, h, T0 + 5, out,
				sizeof(out), 0, &pol, &hit);
			p = read_back(out, n);
			if(!pol.roundrobin)
				k = 0;
			first_rdata(ldns_pkt_answer(p), a, sizeof(a));
			assert_string_equal(a, k ? "192.0.2.2" : "192.0.2.1");
			first_rdata(ldns_pkt_authority(p), ns, sizeof(ns));
			assert_string_equal(ns, closed && k ?
				"ns2.example.com." : "ns1.example.com.");
			g = ldns_rdf2str(ldns_rr_owner(ldns_rr_list_rr(
				ldns_pkt_additional(p), 1)));
			assert_string_equal(g, "ns2.example.com.");
			free(g);
			check_ttls(p, 295);
			ldns_pkt_free(p);
		}
		msg_cache_delete(c);
	}
	closed_sets = 0;
}

/* The hit path's security out-parameter (num.answer.secure), and what a
 * validating resolver's cache answers without CD: checked data only,
 * never unchecked or bogus entries (those go to the mesh). */
static void test_security_on_hit(void** state)
{
	static const int st[4] = { SEC_UNCHECKED, SEC_BOGUS,
		SEC_INSECURE, SEC_SECURE };
	struct msg_cache* c = msg_cache_create(1 << 20, 4, 0, 86400, 3600);
	struct query_info qi;
	uint8_t buf[65535], out[4096], sec;
	char name[32];
	size_t len;
	int i, checked;
	(void)state;
	assert_non_null(c);
	for(i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "www%d.example.com.", i);
		mk_query(&qi, name, TYPE_A, FLAG_RD);
		len = mk_reply(buf, &qi, RCODE_NOERROR, NULL, 0, NULL, 0,
			NULL, 0);
		assert_int_equal(msg_cache_store_sec(c, &qi,
			msg_cache_hash(c, &qi), buf, len, T0, st[i]), 1);
		/* the CD variant, for a CD asker */
		qi.flags |= FLAG_CD;
		assert_int_equal(msg_cache_store_sec(c, &qi,
			msg_cache_hash(c, &qi), buf, len, T0, st[i]), 1);
	}
	for(checked = 0; checked < 2; checked++) {
		c->need_checked = checked;
		for(i = 0; i < 4; i++) {
			size_t n;
			snprintf(name, sizeof(name), "www%d.example.com.", i);
			mk_query(&qi, name, TYPE_A, FLAG_RD);
			sec = 0xff;
			n = msg_cache_answer_q(c, &qi, T0, out, sizeof(out), 0,
				NULL, NULL, &sec);
			if(checked && st[i] <= SEC_BOGUS) {
				assert_int_equal(n, 0);
				assert_int_equal(sec, 0xff);  /* a miss: unset */
			} else {
				assert_true(n > 0);
				assert_int_equal(sec, st[i]);
			}
			/* CD: whatever is there, with its status */
			qi.flags |= FLAG_CD;
			sec = 0xff;
			assert_true(msg_cache_answer_q(c, &qi, T0, out,
				sizeof(out), 0, NULL, NULL, &sec) > 0);
			assert_int_equal(sec, st[i]);
			/* NULL: not asked for */
			assert_true(msg_cache_answer_q(c, &qi, T0, out,
				sizeof(out), 0, NULL, NULL, NULL) > 0);
		}
	}
	msg_cache_delete(c);
}

/* msg_cache_store_hashed: stored under msg_cache_hash's hash (found by
 * a lookup in any case), that hash returned, the security kept; a bad
 * reply not stored, the hash returned all the same. */
static void test_store_hashed(void** state)
{
	struct msg_cache* c = msg_cache_create(1 << 20, 4, 0, 86400, 3600);
	struct query_info qi, q2;
	uint8_t buf[65535], out[4096], sec = 0xff;
	uint32_t h = 0;
	struct msg_entry* m;
	size_t n;
	(void)state;
	assert_non_null(c);
	mk_query(&qi, "www.example.com.", TYPE_A, FLAG_RD);
	n = mk_reply(buf, &qi, RCODE_NOERROR, www_a, 2, ex_ns, 2, ex_glue, 2);
	assert_int_equal(msg_cache_store_hashed(c, &qi, buf, n, T0,
		SEC_SECURE, 0, &h), 1);
	assert_int_equal(h, msg_cache_hash(c, &qi));
	mk_query(&q2, "WWW.Example.COM.", TYPE_A, FLAG_RD);
	m = msg_cache_lookup(c, &q2, h, T0);
	assert_non_null(m);
	msg_cache_release(c, m);
	assert_true(msg_cache_answer_q(c, &q2, T0, out, sizeof(out), 0, NULL,
		NULL, &sec) > 0);
	assert_int_equal(sec, SEC_SECURE);
	/* the DO key is another entry: not there */
	q2.edns_do = 1;
	assert_null(msg_cache_lookup(c, &q2, msg_cache_hash(c, &q2), T0));
	/* TC set: not stored */
	buf[2] |= 0x02;
	h = 0;
	mk_query(&qi, "www.example.net.", TYPE_A, FLAG_RD);
	assert_int_equal(msg_cache_store_hashed(c, &qi, buf, n, T0,
		SEC_UNCHECKED, 0, &h), 0);
	assert_int_equal(h, msg_cache_hash(c, &qi));
	assert_null(msg_cache_lookup(c, &qi, h, T0));
	msg_cache_delete(c);
}

/* msg_cache_qkey: the hash is msg_cache_hash's (any case, the CD/DO
 * variant its own); msg_cache_answer_k answers as msg_cache_answer_q,
 * byte for byte; no name, no key. */
static void test_qkey(void** state)
{
	struct msg_cache* c = msg_cache_create(1 << 20, 4, 0, 86400, 3600);
	struct query_info qi, q2;
	struct msg_qkey k;
	uint8_t buf[65535], out[4096], out2[4096];
	size_t n, n2;
	(void)state;
	assert_non_null(c);
	mk_query(&qi, "www.example.com.", TYPE_A, FLAG_RD);
	n = mk_reply(buf, &qi, RCODE_NOERROR, www_a, 2, ex_ns, 2, ex_glue, 2);
	assert_int_equal(msg_cache_store(c, &qi, msg_cache_hash(c, &qi), buf,
		n, T0), 1);
	mk_query(&q2, "WWW.Example.COM.", TYPE_A, FLAG_RD);
	assert_int_equal(msg_cache_qkey(c, &q2, &k), 1);
	assert_int_equal(k.hash, msg_cache_hash(c, &q2));
	assert_int_equal(k.hash, msg_cache_hash(c, &qi));
	n = msg_cache_answer_k(c, &q2, &k, T0, out, sizeof(out), 0, NULL,
		NULL, NULL);
	n2 = msg_cache_answer_q(c, &q2, T0, out2, sizeof(out2), 0, NULL, NULL,
		NULL);
	assert_true(n > 0);
	assert_int_equal(n, n2);
	assert_memory_equal(out, out2, n);
	/* the CD variant: another key, not stored */
	q2.flags |= FLAG_CD;
	assert_int_equal(msg_cache_qkey(c, &q2, &k), 1);
	assert_int_equal(k.hash, msg_cache_hash(c, &q2));
	assert_int_equal(msg_cache_answer_k(c, &q2, &k, T0, out, sizeof(out),
		0, NULL, NULL, NULL), 0);
	q2.qname_len = 0;
	assert_int_equal(msg_cache_qkey(c, &q2, &k), 0);
	msg_cache_delete(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_store_hashed),
		cmocka_unit_test(test_qkey),
		cmocka_unit_test(test_hit_and_countdown),
		cmocka_unit_test(test_prefetch_and_expired),
		cmocka_unit_test(test_roundrobin),
		cmocka_unit_test(test_ttl_clamps),
		cmocka_unit_test(test_mixed_ttls),
		cmocka_unit_test(test_negative_ttl),
		cmocka_unit_test(test_min_negative_ttl),
		cmocka_unit_test(test_edns),
		cmocka_unit_test(test_ad_bit),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_rrsig_grouping),
		cmocka_unit_test(test_bad_stores),
		cmocka_unit_test(test_tiny_limit),
		cmocka_unit_test(test_flush),
		cmocka_unit_test(test_security_on_hit),
		cmocka_unit_test(test_memory_bound),
		cmocka_unit_test(test_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
