/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/reply_tail_test.c - an answer's authority NS records and
 * glue in wire form (util/reply_tail.c, iterator/iter_tail.c), checked
 * against the ordinary path: whenever reply_parse_tail takes a reply,
 * reply_wire2pkt reads it to the same packet with those records in its
 * sections (also for every truncation and thousands of corrupted copies
 * of the replies here); the scrub of both ways keeps the same records
 * and counts the same removed; the RRset caches stored from both hold
 * the same entries. Names: backward pointers only, loops, bounds. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include <ldns/ldns.h>
#include "util/reply_tail.h"
#include "util/reply_parse.h"
#include "iterator/iter_tail.h"
#include "iterator/iter_scrub.h"
#include "iterator/iter_cache.h"
#include "services/cache/rrset.h"
#include "util/dname.h"
#include "util/msgparse.h"
#include "testdata/unit/wire_name.h"

/* A reply in wire form (libldns compresses the names) to (qname,
 * qtype) with records as "A|N|D text" (answer, authority, additional);
 * edns: an OPT record (2: with an option). Returns its length. */
static size_t make_wire(uint8_t* out, const char* qname, ldns_rr_type qtype,
	int rcode, int edns, const char* const* rrs)
{
	ldns_pkt* p = ldns_pkt_new();
	ldns_rr* q = NULL;
	uint8_t* w = NULL;
	size_t n = 0;
	char buf[600];
	assert_non_null(p);
	ldns_pkt_set_id(p, 4660);
	ldns_pkt_set_qr(p, 1);
	ldns_pkt_set_aa(p, 1);
	ldns_pkt_set_rcode(p, (uint8_t)rcode);
	snprintf(buf, sizeof(buf), "%s IN A", qname);
	assert_int_equal(ldns_rr_new_question_frm_str(&q, buf, NULL, NULL),
		LDNS_STATUS_OK);
	ldns_rr_set_type(q, qtype);
	ldns_pkt_push_rr(p, LDNS_SECTION_QUESTION, q);
	for(; rrs && *rrs; rrs++) {
		ldns_rr* rr = NULL;
		ldns_pkt_section sec = (*rrs)[0] == 'A' ? LDNS_SECTION_ANSWER :
			(*rrs)[0] == 'N' ? LDNS_SECTION_AUTHORITY :
			LDNS_SECTION_ADDITIONAL;
		assert_int_equal(ldns_rr_new_frm_str(&rr, *rrs + 2, 3600,
			NULL, NULL), LDNS_STATUS_OK);
		ldns_pkt_push_rr(p, sec, rr);
	}
	if(edns) {
		ldns_pkt_set_edns_udp_size(p, 1232);
		ldns_pkt_set_edns_do(p, 1);
	}
	if(edns == 2) {
		/* an option: a cookie */
		static const uint8_t cookie[] = { 0, 10, 0, 8, 1, 2, 3, 4, 5,
			6, 7, 8 };
		ldns_pkt_set_edns_data(p, ldns_rdf_new_frm_data(
			LDNS_RDF_TYPE_UNKNOWN, sizeof(cookie), cookie));
	}
	assert_int_equal(ldns_pkt2wire(&w, p, &n), LDNS_STATUS_OK);
	assert_true(n <= 4096);
	memcpy(out, w, n);
	free(w);
	ldns_pkt_free(p);
	return n;
}

static int same_rr(const ldns_rr* a, const ldns_rr* b)
{
	const ldns_rdf* oa = ldns_rr_owner(a), *ob = ldns_rr_owner(b);
	/* ldns_rr_compare ignores the owner's case: compare it too */
	return ldns_rr_compare(a, b) == 0 && ldns_rr_ttl(a) == ldns_rr_ttl(b) &&
		ldns_rdf_size(oa) == ldns_rdf_size(ob) &&
		memcmp(ldns_rdf_data(oa), ldns_rdf_data(ob),
		ldns_rdf_size(oa)) == 0;
}

static void same_list(const ldns_rr_list* a, const ldns_rr_list* b)
{
	size_t i;
	assert_int_equal(ldns_rr_list_rr_count(a), ldns_rr_list_rr_count(b));
	for(i = 0; i < ldns_rr_list_rr_count(a); i++)
		assert_true(same_rr(ldns_rr_list_rr(a, i),
			ldns_rr_list_rr(b, i)));
}

/* A tail record is the ldns record rr. */
static void same_tail_rr(const struct reply_tail_rr* r, const ldns_rr* rr)
{
	const ldns_rdf* o = ldns_rr_owner(rr), *d = ldns_rr_rdf(rr, 0);
	assert_int_equal(r->type, ldns_rr_get_type(rr));
	assert_int_equal(r->rclass, ldns_rr_get_class(rr));
	assert_int_equal(r->ttl, ldns_rr_ttl(rr));
	assert_int_equal(r->owner_len, ldns_rdf_size(o));
	assert_memory_equal(r->owner, ldns_rdf_data(o), r->owner_len);
	assert_int_equal(ldns_rr_rd_count(rr), 1);
	if(r->type == TYPE_NS) {
		assert_int_equal(r->target_len, ldns_rdf_size(d));
		assert_memory_equal(r->target, ldns_rdf_data(d), r->target_len);
	} else {
		assert_int_equal(r->rdlen, ldns_rdf_size(d));
		assert_memory_equal(r->rdata, ldns_rdf_data(d), r->rdlen);
	}
}

/* t's question is rr, the name byte for byte (case as sent). */
static void same_question(const struct reply_tail* t, const ldns_rr* rr)
{
	const ldns_rdf* o = ldns_rr_owner(rr);
	assert_int_equal(dname_valid(t->qname, sizeof(t->qname)),
		ldns_rdf_size(o));
	assert_memory_equal(t->qname, ldns_rdf_data(o), ldns_rdf_size(o));
	assert_int_equal(t->qtype, ldns_rr_get_type(rr));
	assert_int_equal(t->qclass, ldns_rr_get_class(rr));
}

/* The property: taken by reply_parse_tail means read by reply_wire2pkt
 * to the same packet, with the tail's records in its two sections.
 * Returns whether it was taken. */
static int check_same(const uint8_t* w, size_t n)
{
	struct reply_tail t;
	ldns_pkt* a = NULL, *b = NULL;
	size_t i;
	if(!reply_parse_tail(&a, w, n, &t))
		return 0;
	assert_int_equal(reply_wire2pkt(&b, w, n), LDNS_STATUS_OK);
	assert_int_equal(ldns_pkt_id(a), ldns_pkt_id(b));
	assert_int_equal(ldns_pkt_qr(a), ldns_pkt_qr(b));
	assert_int_equal(ldns_pkt_get_opcode(a), ldns_pkt_get_opcode(b));
	assert_int_equal(ldns_pkt_aa(a), ldns_pkt_aa(b));
	assert_int_equal(ldns_pkt_tc(a), ldns_pkt_tc(b));
	assert_int_equal(ldns_pkt_rd(a), ldns_pkt_rd(b));
	assert_int_equal(ldns_pkt_ra(a), ldns_pkt_ra(b));
	assert_int_equal(ldns_pkt_ad(a), ldns_pkt_ad(b));
	assert_int_equal(ldns_pkt_cd(a), ldns_pkt_cd(b));
	assert_int_equal(ldns_pkt_get_rcode(a), ldns_pkt_get_rcode(b));
	assert_int_equal(ldns_pkt_qdcount(a), ldns_pkt_qdcount(b));
	assert_int_equal(ldns_pkt_ancount(a), ldns_pkt_ancount(b));
	assert_int_equal(ldns_pkt_nscount(a), ldns_pkt_nscount(b));
	assert_int_equal(ldns_pkt_arcount(a), ldns_pkt_arcount(b));
	assert_int_equal(ldns_pkt_size(a), ldns_pkt_size(b));
	assert_int_equal(ldns_pkt_edns(a), ldns_pkt_edns(b));
	assert_int_equal(ldns_pkt_edns_udp_size(a), ldns_pkt_edns_udp_size(b));
	assert_int_equal(ldns_pkt_edns_extended_rcode(a),
		ldns_pkt_edns_extended_rcode(b));
	assert_int_equal(ldns_pkt_edns_version(a), ldns_pkt_edns_version(b));
	assert_int_equal(ldns_pkt_edns_z(a), ldns_pkt_edns_z(b));
	assert_true((ldns_pkt_edns_data(a) == NULL) ==
		(ldns_pkt_edns_data(b) == NULL));
	if(ldns_pkt_edns_data(a))
		assert_int_equal(ldns_rdf_compare(ldns_pkt_edns_data(a),
			ldns_pkt_edns_data(b)), 0);
	assert_null(ldns_pkt_tsig(b));
	/* the question: not made, read into t as libldns reads it */
	assert_int_equal(ldns_rr_list_rr_count(ldns_pkt_question(a)), 0);
	assert_int_equal(ldns_rr_list_rr_count(ldns_pkt_question(b)), 1);
	same_question(&t, ldns_rr_list_rr(ldns_pkt_question(b), 0));
	same_list(ldns_pkt_answer(a), ldns_pkt_answer(b));
	assert_int_equal(ldns_rr_list_rr_count(ldns_pkt_authority(a)), 0);
	assert_int_equal(ldns_rr_list_rr_count(ldns_pkt_additional(a)), 0);
	assert_int_equal(t.nauth, ldns_rr_list_rr_count(ldns_pkt_authority(b)));
	assert_int_equal(t.nadd, ldns_rr_list_rr_count(ldns_pkt_additional(b)));
	for(i = 0; i < t.nauth; i++)
		same_tail_rr(&t.rr[i], ldns_rr_list_rr(ldns_pkt_authority(b),
			i));
	for(i = 0; i < t.nadd; i++)
		same_tail_rr(&t.rr[t.nauth + i], ldns_rr_list_rr(
			ldns_pkt_additional(b), i));
	ldns_pkt_free(a);
	ldns_pkt_free(b);
	return 1;
}

static const char* const bench_reply[] = {
	"A x1.w.bench.tld1. 3600 IN A 10.255.0.1",
	"N bench.tld1. 3600 IN NS ns.bench.tld1.",
	"D ns.bench.tld1. 3600 IN A 127.0.0.1",
	NULL };
static const char* const wide_reply[] = {
	"A www.Example.tld1. 300 IN CNAME web.example.tld1.",
	"A web.example.tld1. 60 IN A 192.0.2.1",
	"A web.example.tld1. 70 IN A 192.0.2.2",
	"N example.tld1. 3600 IN NS ns1.example.tld1.",
	"N EXAMPLE.tld1. 3000 IN NS ns2.other.tld2.",
	"D ns1.example.tld1. 3600 IN A 192.0.2.53",
	"D ns1.example.tld1. 3600 IN AAAA 2001:db8::53",
	"D ns2.other.tld2. 3600 IN A 198.51.100.1",
	"D stray.example.tld1. 3600 IN A 192.0.2.99",
	NULL };

static void test_taken_as_libldns_reads(void** state)
{
	uint8_t w[4096];
	size_t n;
	(void)state;
	n = make_wire(w, "x1.w.bench.tld1.", LDNS_RR_TYPE_A, 0, 1,
		bench_reply);
	assert_true(check_same(w, n));
	n = make_wire(w, "x1.w.bench.tld1.", LDNS_RR_TYPE_A, 0, 0,
		bench_reply);
	assert_true(check_same(w, n));
	n = make_wire(w, "www.example.tld1.", LDNS_RR_TYPE_A, 0, 1,
		wide_reply);
	assert_true(check_same(w, n));
	/* EDNS with an option: the OPT record read by libldns */
	n = make_wire(w, "x1.w.bench.tld1.", LDNS_RR_TYPE_A, 0, 2,
		bench_reply);
	assert_true(check_same(w, n));
}

/* Replies of other shapes are left to the ordinary parse. */
static void test_other_shapes_not_taken(void** state)
{
	static const char* const soa[] = {
		"A a.example.tld1. 60 IN A 192.0.2.1",
		"N example.tld1. 60 IN SOA ns.example.tld1. h.example.tld1. "
		"1 2 3 4 5", NULL };
	static const char* const txt[] = {
		"A a.example.tld1. 60 IN A 192.0.2.1",
		"D a.example.tld1. 60 IN TXT \"x\"", NULL };
	static const char* const referral[] = {
		"N example.tld1. 60 IN NS ns.example.tld1.",
		"D ns.example.tld1. 60 IN A 192.0.2.1", NULL };
	static const char* const ns_in_additional[] = {
		"A a.example.tld1. 60 IN A 192.0.2.1",
		"D example.tld1. 60 IN NS ns.example.tld1.", NULL };
	struct reply_tail t;
	ldns_pkt* p = NULL;
	uint8_t w[4096];
	size_t n;
	(void)state;
	n = make_wire(w, "a.example.tld1.", LDNS_RR_TYPE_A, 0, 1, soa);
	assert_false(reply_parse_tail(&p, w, n, &t));
	n = make_wire(w, "a.example.tld1.", LDNS_RR_TYPE_A, 0, 1, txt);
	assert_false(reply_parse_tail(&p, w, n, &t));
	n = make_wire(w, "a.example.tld1.", LDNS_RR_TYPE_A, 0, 1, referral);
	assert_false(reply_parse_tail(&p, w, n, &t));
	n = make_wire(w, "a.example.tld1.", LDNS_RR_TYPE_A, 0, 1,
		ns_in_additional);
	assert_false(reply_parse_tail(&p, w, n, &t));
	n = make_wire(w, "x1.w.bench.tld1.", LDNS_RR_TYPE_A, 3, 1,
		bench_reply);
	assert_false(reply_parse_tail(&p, w, n, &t));
	/* the glue's RDLENGTH one more (and the reply one byte longer):
	 * libldns would read 4 bytes and go on from there */
	n = make_wire(w, "x1.w.bench.tld1.", LDNS_RR_TYPE_A, 0, 0,
		bench_reply);
	assert_true(w[n - 5] == 4);
	w[n - 5] = 5;
	w[n] = 0;
	assert_false(reply_parse_tail(&p, w, n + 1, &t));
	assert_null(p);
}

/* Every truncation, and every byte of the replies replaced by values
 * that break lengths, pointers and types: never taken where libldns
 * reads anything else. */
static void test_truncated_and_corrupted(void** state)
{
	static const uint8_t vals[] = { 0, 1, 2, 4, 5, 16, 28, 41, 63, 64,
		0xc0, 0xc1, 0xff };
	const char* const* replies[] = { bench_reply, wide_reply };
	const char* qnames[] = { "x1.w.bench.tld1.", "www.example.tld1." };
	uint8_t w[4096], m[4096];
	size_t n, i, v, r;
	int taken = 0;
	(void)state;
	for(r = 0; r < 3; r++) {
		/* the third: the first with an EDNS option */
		n = make_wire(w, qnames[r % 2], LDNS_RR_TYPE_A, 0,
			r < 2 ? 1 : 2, replies[r % 2]);
		for(i = 0; i <= n; i++)
			taken += check_same(w, i);
		for(i = 0; i < n; i++)
			for(v = 0; v < sizeof(vals); v++) {
				memcpy(m, w, n);
				m[i] = vals[v];
				taken += check_same(m, n);
				m[i] = (uint8_t)(w[i] ^ 0x20);
				taken += check_same(m, n);
			}
	}
	/* the whole replies and many corrupted ones that still read */
	assert_true(taken > 100);
}

static void test_names(void** state)
{
	/* 0: a.b. at 0; 5: c + pointer to 2 ("b."); 9: pointer to 5;
	 * 11: to itself; 13: forwards; 15: a 0x40 label; 17: to 0 */
	static const uint8_t w[] = { 1, 'a', 1, 'b', 0, 1, 'c', 0xc0, 2,
		0xc0, 5, 0xc0, 11, 0xc0, 15, 0x40, 0, 0xc0, 0 };
	uint8_t out[256], big[600];
	size_t pos, i;
	(void)state;
	pos = 0;
	assert_int_equal(reply_tail_name(w, sizeof(w), &pos, out), 5);
	assert_int_equal(pos, 5);
	assert_memory_equal(out, "\1a\1b\0", 5);
	pos = 5;
	assert_int_equal(reply_tail_name(w, sizeof(w), &pos, out), 5);
	assert_int_equal(pos, 9);
	assert_memory_equal(out, "\1c\1b\0", 5);
	pos = 9;
	assert_int_equal(reply_tail_name(w, sizeof(w), &pos, out), 5);
	assert_int_equal(pos, 11);
	/* a pointer to itself, forwards, to 0; a 0x40 label; the end */
	pos = 11;
	assert_int_equal(reply_tail_name(w, sizeof(w), &pos, out), 0);
	pos = 13;
	assert_int_equal(reply_tail_name(w, sizeof(w), &pos, out), 0);
	pos = 17;
	assert_int_equal(reply_tail_name(w, sizeof(w), &pos, out), 0);
	pos = 15;
	assert_int_equal(reply_tail_name(w, sizeof(w), &pos, out), 0);
	pos = sizeof(w);
	assert_int_equal(reply_tail_name(w, sizeof(w), &pos, out), 0);
	pos = 0;
	assert_int_equal(reply_tail_name(w, 4, &pos, out), 0);
	/* 255 bytes in all is the most: 4 labels of 63 are 257 */
	memset(big, 'x', sizeof(big));
	for(i = 0; i < 4; i++)
		big[i * 64] = 63;
	big[256] = 0;
	pos = 0;
	assert_int_equal(reply_tail_name(big, sizeof(big), &pos, out), 0);
	big[192] = 61;
	big[254] = 0;
	pos = 0;
	assert_int_equal(reply_tail_name(big, sizeof(big), &pos, out), 255);
	assert_int_equal(dname_valid(out, 255), 255);
}

/* Compare two RRset caches entry by entry. */
struct cmp_arg {
	struct rrset_cache* other;
	size_t n;
};

static int cmp_entry(struct rrset_entry* e, void* arg)
{
	struct cmp_arg* a = arg;
	struct rrset_entry* o = rrset_cache_lookup(a->other, e->owner,
		e->type, e->rclass, e->flags, 0);
	size_t i;
	assert_non_null(o);
	assert_int_equal(o->expire, e->expire);
	assert_int_equal(o->trust, e->trust);
	assert_int_equal(o->count, e->count);
	assert_int_equal(o->rrsig_count, e->rrsig_count);
	for(i = 0; i < e->count + e->rrsig_count; i++) {
		assert_int_equal(o->rdlen[i], e->rdlen[i]);
		assert_memory_equal(o->rdata[i], e->rdata[i], e->rdlen[i]);
	}
	rrset_cache_release(a->other, o);
	a->n++;
	return 0;
}

static void same_caches(struct rrset_cache* a, struct rrset_cache* b)
{
	struct cmp_arg x, y;
	x.other = b;
	x.n = 0;
	y.other = a;
	y.n = 0;
	(void)rrset_cache_walk(a, cmp_entry, &x);
	(void)rrset_cache_walk(b, cmp_entry, &y);
	assert_int_equal(x.n, y.n);
}

/* Scrub and store the reply both ways; the results must agree. pre: a
 * reply to x1.w.bench.tld1. stored into both caches first (its NS set
 * and glue already there). */
static void both_ways_opts(const char* qname, const char* const* rrs,
	const char* zone, const struct scrub_opts* so, const char* const* pre);

static void both_ways(const char* qname, const char* const* rrs,
	const char* zone, int harden_glue, const char* const* pre)
{
	struct scrub_opts so;
	scrub_opts_default(&so, harden_glue);
	both_ways_opts(qname, rrs, zone, &so, pre);
}

/* both_ways with the scrub's options so */
static void both_ways_opts(const char* qname, const char* const* rrs,
	const char* zone, const struct scrub_opts* so, const char* const* pre)
{
	int harden_glue = so->harden_glue;
	struct rrset_cache* c1 = rrset_cache_create(1 << 20, 1, 0, 86400);
	struct rrset_cache* c2 = rrset_cache_create(1 << 20, 1, 0, 86400);
	struct scrub_result r1, r2;
	struct reply_tail t;
	ldns_pkt* full = NULL, *part = NULL;
	uint8_t w[4096], q[256], z[256];
	size_t n;
	int s1, s2;
	assert_true(dname_from_str(qname, q) > 0);
	assert_true(dname_from_str(zone, z) > 0);
	if(pre) {
		n = make_wire(w, "x1.w.bench.tld1.", LDNS_RR_TYPE_A, 0, 1, pre);
		assert_int_equal(reply_wire2pkt(&full, w, n), LDNS_STATUS_OK);
		assert_int_equal(iter_scrub_message(full, W("x1.w.bench.tld1."),
			TYPE_A, CLASS_IN, z, &r1, harden_glue), SCRUB_OK);
		(void)iter_store_reply(c1, full, 1000);
		(void)iter_store_reply(c2, full, 1000);
		ldns_pkt_free(full);
	}
	n = make_wire(w, qname, LDNS_RR_TYPE_A, 0, 1, rrs);
	assert_int_equal(reply_wire2pkt(&full, w, n), LDNS_STATUS_OK);
	assert_int_equal(iter_scrub_message_opts(full, q, TYPE_A, CLASS_IN, z,
		&r1, so), SCRUB_OK);
	assert_true(reply_parse_tail(&part, w, n, &t));
	assert_true(iter_tail_scrub_answer(part, &t, q, TYPE_A, CLASS_IN, z,
		&r2, so));
	assert_int_equal(r1.removed, r2.removed);
	assert_int_equal(r1.final_found, r2.final_found);
	assert_int_equal(r1.chain_len, r2.chain_len);
	assert_int_equal(r1.snamelen, r2.snamelen);
	assert_memory_equal(r1.sname, r2.sname, r1.snamelen);
	assert_int_equal(ldns_pkt_ancount(full), ldns_pkt_ancount(part));
	assert_int_equal(ldns_pkt_nscount(full), ldns_pkt_nscount(part));
	assert_int_equal(ldns_pkt_arcount(full), ldns_pkt_arcount(part));
	same_list(ldns_pkt_answer(full), ldns_pkt_answer(part));
	s1 = iter_store_reply(c1, full, 1010);
	s2 = iter_store_reply(c2, part, 1010) + iter_tail_store(c2, &t, 1010);
	assert_int_equal(s1, s2);
	same_caches(c1, c2);
	ldns_pkt_free(full);
	ldns_pkt_free(part);
	rrset_cache_delete(c1);
	rrset_cache_delete(c2);
}

static void test_scrub_and_store_as_whole(void** state)
{
	/* NS owners: one below the answer's name (not at it or above),
	 * another class, one outside the zone */
	static const char* const odd_ns[] = {
		"A www.example.tld1. 60 IN A 192.0.2.1",
		"N deep.www.example.tld1. 60 IN NS ns.example.tld1.",
		"N example.tld1. 60 CH NS ns.example.tld1.",
		"N tld1. 60 IN NS ns.example.tld1.",
		"N example.tld1. 60 IN NS ns.example.tld1.",
		"D ns.example.tld1. 60 IN A 192.0.2.53",
		"D ns.example.tld1. 60 CH A 192.0.2.54",
		NULL };
	/* the glue named by an MX answer only */
	static const char* const mx_target[] = {
		"A www.example.tld1. 60 IN A 192.0.2.1",
		"D mail.example.tld1. 60 IN A 192.0.2.25",
		NULL };
	/* a DNAME: a synthesized CNAME counts against the removed */
	static const char* const dname[] = {
		"A sub.example.tld1. 60 IN DNAME other.example.tld1.",
		"A www.other.example.tld1. 60 IN A 192.0.2.7",
		"N example.tld1. 60 IN NS ns.out.tld3.",
		"N example.tld1. 60 IN NS ns.example.tld1.",
		"D ns.out.tld3. 60 IN A 192.0.2.8",
		"D ns.example.tld1. 60 IN A 192.0.2.9",
		NULL };
	static const char* const same_ns[] = {
		"A x2.w.bench.tld1. 3600 IN A 10.255.0.1",
		"N bench.tld1. 3600 IN NS ns.bench.tld1.",
		"D ns.bench.tld1. 3600 IN A 127.0.0.1",
		NULL };
	static const char* const changed_ns[] = {
		"A x2.w.bench.tld1. 3600 IN A 10.255.0.1",
		"N bench.tld1. 3600 IN NS ns2.bench.tld1.",
		"D ns2.bench.tld1. 3600 IN A 127.0.0.2",
		NULL };
	(void)state;
	both_ways("x1.w.bench.tld1.", bench_reply, "bench.tld1.", 1, NULL);
	/* the NS set and glue already cached: kept, not stored again */
	both_ways("x2.w.bench.tld1.", same_ns, "bench.tld1.", 1,
		bench_reply);
	both_ways("x2.w.bench.tld1.", changed_ns, "bench.tld1.", 1,
		bench_reply);
	both_ways("www.example.tld1.", wide_reply, "example.tld1.", 1, NULL);
	both_ways("www.example.tld1.", wide_reply, "example.tld1.", 0, NULL);
	both_ways("www.example.tld1.", wide_reply, "tld1.", 1, NULL);
	both_ways("www.example.tld1.", odd_ns, "example.tld1.", 1, NULL);
	both_ways("www.example.tld1.", odd_ns, ".", 0, NULL);
	both_ways("www.example.tld1.", mx_target, "example.tld1.", 1, NULL);
	both_ways("www.sub.example.tld1.", dname, "example.tld1.", 1, NULL);
	both_ways("www.sub.example.tld1.", dname, "example.tld1.", 0, NULL);
}

/* The scrubber's question check on a reply to (name, type, class)
 * asked as (qname, qtype, qclass): the wire question (iter_tail) and
 * libldns's decide the same. A qr 0 or opcode other than QUERY too. */
static void question_both_ways(const char* name, ldns_rr_type type,
	uint16_t rclass, int qr, int opcode, const char* qname,
	uint16_t qtype, uint16_t qclass, int want_ok)
{
	static const char* const rrs[] = {
		"A www.example.tld1. 60 IN A 192.0.2.1",
		"A WWW.Example.TLD1. 60 IN AAAA 2001:db8::1",
		"N example.tld1. 60 IN NS ns.example.tld1.", NULL };
	struct scrub_result r1, r2;
	struct scrub_opts so;
	struct reply_tail t;
	ldns_pkt* full = NULL, *part = NULL;
	uint8_t w[4096], q[256];
	size_t n;
	enum scrub_status s1;
	int s2;
	assert_true(dname_from_str(qname, q) > 0);
	n = make_wire(w, name, type, 0, 1, rrs);
	w[3] = 0;
	w[2] = (uint8_t)((qr ? 0x80 : 0) | (opcode << 3) | 0x04);
	/* the question's class, after its name (uncompressed, first) */
	w[12 + dname_valid(w + 12, n - 12) + 2] = (uint8_t)(rclass >> 8);
	w[12 + dname_valid(w + 12, n - 12) + 3] = (uint8_t)rclass;
	assert_int_equal(reply_wire2pkt(&full, w, n), LDNS_STATUS_OK);
	s1 = iter_scrub_message(full, q, qtype, qclass, W("example.tld1."),
		&r1, 1);
	assert_int_equal(s1, want_ok ? SCRUB_OK : SCRUB_BAD_QUESTION);
	assert_true(reply_parse_tail(&part, w, n, &t));
	scrub_opts_default(&so, 1);
	s2 = iter_tail_scrub_answer(part, &t, q, qtype, qclass,
		W("example.tld1."), &r2, &so);
	/* a failed question check fails the tail path (the caller then
	 * parses the reply whole); a passed one goes on to the same scrub */
	if(s1 == SCRUB_BAD_QUESTION)
		assert_false(s2);
	else
		assert_int_equal(s1, SCRUB_OK);
	if(s1 == SCRUB_OK)
		assert_int_equal(s2, r1.final_found && !r1.dname_too_long);
	ldns_pkt_free(full);
	ldns_pkt_free(part);
}

/* harden-unverified-glue: the tail's scrub drops the same glue (an
 * answer's NS set stays with iter-scrub-promiscuous: no) */
static void test_unverified_glue_as_whole(void** state)
{
	static const char* const rrs[] = {
		"A www.example.tld1. 60 IN A 192.0.2.1",
		"N example.tld1. 60 IN NS ns.example.tld1.",
		"N example.tld1. 60 IN NS ns.other.tld1.",
		"N example.tld1. 60 IN NS ns.far.tld2.",
		"D ns.example.tld1. 60 IN A 192.0.2.53",
		"D ns.other.tld1. 60 IN A 192.0.2.54",
		"D ns.far.tld2. 60 IN A 192.0.2.55",
		NULL };
	struct scrub_opts so;
	(void)state;
	scrub_opts_default(&so, 1);
	so.promiscuous = 0;
	so.unverified_glue = 1;
	both_ways_opts("www.example.tld1.", rrs, "tld1.", &so, NULL);
	so.harden_glue = 0;
	both_ways_opts("www.example.tld1.", rrs, "tld1.", &so, NULL);
	so.unverified_glue = 0;
	both_ways_opts("www.example.tld1.", rrs, "tld1.", &so, NULL);
}

static void test_question_check(void** state)
{
	(void)state;
	question_both_ways("www.example.tld1.", LDNS_RR_TYPE_A, CLASS_IN, 1,
		0, "www.example.tld1.", TYPE_A, CLASS_IN, 1);
	question_both_ways("www.example.tld1.", LDNS_RR_TYPE_A, CLASS_IN, 1,
		0, "WWW.EXAMPLE.tld1.", TYPE_A, CLASS_IN, 1);
	question_both_ways("www.example.tld1.", LDNS_RR_TYPE_A, CLASS_IN, 1,
		0, "ww.example.tld1.", TYPE_A, CLASS_IN, 0);
	question_both_ways("www.example.tld1.", LDNS_RR_TYPE_A, CLASS_IN, 1,
		0, "www.example.tld1.", TYPE_AAAA, CLASS_IN, 0);
	question_both_ways("www.example.tld1.", LDNS_RR_TYPE_AAAA, CLASS_IN,
		1, 0, "www.example.tld1.", TYPE_AAAA, CLASS_IN, 1);
	question_both_ways("www.example.tld1.", LDNS_RR_TYPE_A, CLASS_IN, 1,
		0, "www.example.tld1.", TYPE_A, 3, 0);
	question_both_ways("www.example.tld1.", LDNS_RR_TYPE_A, 3, 1, 0,
		"www.example.tld1.", TYPE_A, CLASS_IN, 0);
	question_both_ways("www.example.tld1.", LDNS_RR_TYPE_A, 3, 1, 0,
		"www.example.tld1.", TYPE_A, 3, 1);
	question_both_ways("www.example.tld1.", LDNS_RR_TYPE_A, CLASS_IN, 0,
		0, "www.example.tld1.", TYPE_A, CLASS_IN, 0);
	question_both_ways("www.example.tld1.", LDNS_RR_TYPE_A, CLASS_IN, 1,
		2, "www.example.tld1.", TYPE_A, CLASS_IN, 0);
}

/* Not an answer: the caller parses the reply whole. */
static void test_not_an_answer(void** state)
{
	static const char* const other_type[] = {
		"A www.example.tld1. 60 IN AAAA 2001:db8::1",
		"N example.tld1. 60 IN NS ns.example.tld1.", NULL };
	struct scrub_result r;
	struct scrub_opts so;
	struct reply_tail t;
	ldns_pkt* p = NULL;
	uint8_t w[4096];
	size_t n;
	(void)state;
	n = make_wire(w, "www.example.tld1.", LDNS_RR_TYPE_A, 0, 1,
		other_type);
	assert_true(reply_parse_tail(&p, w, n, &t));
	scrub_opts_default(&so, 1);
	assert_false(iter_tail_scrub_answer(p, &t, W("www.example.tld1."),
		TYPE_A, CLASS_IN, W("example.tld1."), &r, &so));
	ldns_pkt_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_taken_as_libldns_reads),
		cmocka_unit_test(test_other_shapes_not_taken),
		cmocka_unit_test(test_truncated_and_corrupted),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_scrub_and_store_as_whole),
		cmocka_unit_test(test_unverified_glue_as_whole),
		cmocka_unit_test(test_not_an_answer),
		cmocka_unit_test(test_question_check),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
