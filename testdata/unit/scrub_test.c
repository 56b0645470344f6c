/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/scrub_test.c - scrubbing of upstream replies: question
 * checks, bailiwick, the answer chain (CNAME, DNAME synthesis, loops),
 * authority and additional (glue, poison). */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include <ldns/ldns.h>
#include "iterator/iter_scrub.h"
#include "util/dname.h"
#include "util/msgparse.h"
#include "testdata/unit/wire_name.h"

/* A reply to (qname, qtype) with records given as "A|N|D text" lines
 * (answer, authority, additional). */
static ldns_pkt* make_reply(const char* qname, ldns_rr_type qtype,
	int rcode, const char* const* rrs)
{
	ldns_pkt* p = ldns_pkt_new();
	ldns_rr* q = NULL;
	char buf[600];
	assert_non_null(p);
	ldns_pkt_set_qr(p, 1);
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
	return p;
}

/* The records of a section as "owner TYPE rdata" texts joined by "|". */
static char* sect(ldns_rr_list* l)
{
	static char out[4096];
	size_t i;
	out[0] = 0;
	for(i = 0; i < ldns_rr_list_rr_count(l); i++) {
		ldns_rr* rr = ldns_rr_list_rr(l, i);
		char* o = ldns_rdf2str(ldns_rr_owner(rr));
		char* t = ldns_rr_type2str(ldns_rr_get_type(rr));
		char* d = ldns_rdf2str(ldns_rr_rdf(rr, 0));
		snprintf(out + strlen(out), sizeof(out) - strlen(out),
			"%s%s %s %s", i ? "|" : "", o, t, d);
		LDNS_FREE(o);
		LDNS_FREE(t);
		LDNS_FREE(d);
	}
	return out;
}

static void test_question_must_match(void** state)
{
	struct scrub_result r;
	ldns_pkt* p;
	(void)state;
	p = make_reply("www.example.tld1.", LDNS_RR_TYPE_A, 0, NULL);
	assert_int_equal(iter_scrub_message(p, W("www.example.tld1."), TYPE_A,
		CLASS_IN, W("example.tld1."), &r, 1), SCRUB_OK);
	/* case does not matter */
	assert_int_equal(iter_scrub_message(p, W("WWW.Example.tld1."), TYPE_A,
		CLASS_IN, W("example.tld1."), &r, 1), SCRUB_OK);
	assert_int_equal(iter_scrub_message(p, W("other.example.tld1."), TYPE_A,
		CLASS_IN, W("example.tld1."), &r, 1), SCRUB_BAD_QUESTION);
	assert_int_equal(iter_scrub_message(p, W("www.example.tld1."),
		TYPE_AAAA,
		CLASS_IN, W("example.tld1."), &r, 1), SCRUB_BAD_QUESTION);
	assert_int_equal(iter_scrub_message(p, W("www.example.tld1."), TYPE_A,
		CLASS_CH, W("example.tld1."), &r, 1), SCRUB_BAD_QUESTION);
	ldns_pkt_set_qr(p, 0);
	assert_int_equal(iter_scrub_message(p, W("www.example.tld1."), TYPE_A,
		CLASS_IN, W("example.tld1."), &r, 1), SCRUB_BAD_QUESTION);
	ldns_pkt_free(p);
	/* no question at all */
	p = ldns_pkt_new();
	ldns_pkt_set_qr(p, 1);
	assert_int_equal(iter_scrub_message(p, W("www.example.tld1."), TYPE_A,
		CLASS_IN, W("example.tld1."), &r, 1), SCRUB_BAD_QUESTION);
	ldns_pkt_free(p);
}

static void test_answer_out_of_zone_dropped(void** state)
{
	static const char* rrs[] = {
		"A www.example.tld1. A 192.0.2.1",
		"A www.other.tld2. A 192.0.2.66",      /* not in zone */
		"A mail.example.tld1. A 192.0.2.67",   /* not the qname */
		"A www.example.tld1. CH A 192.0.2.68", /* other class */
		NULL };
	struct scrub_result r;
	ldns_pkt* p = make_reply("www.example.tld1.", LDNS_RR_TYPE_A, 0, rrs);
	(void)state;
	assert_int_equal(iter_scrub_message(p, W("www.example.tld1."), TYPE_A,
		CLASS_IN, W("example.tld1."), &r, 1), SCRUB_OK);
	assert_string_equal(sect(ldns_pkt_answer(p)),
		"www.example.tld1. A 192.0.2.1");
	assert_int_equal(r.final_found, 1);
	assert_int_equal(r.removed, 3);
	assert_int_equal(ldns_pkt_ancount(p), 1);
	ldns_pkt_free(p);
}

static void test_cname_chain(void** state)
{
	static const char* rrs[] = {
		"A chain2.example.tld1. CNAME alias.example.tld2.",
		"A chain.example.tld1. CNAME chain2.example.tld1.",
		/* the target is out of this server's zone: its data goes */
		"A alias.example.tld2. A 192.0.2.66",
		NULL };
	struct scrub_result r;
	ldns_pkt* p = make_reply("chain.example.tld1.", LDNS_RR_TYPE_A, 0,
		rrs);
	(void)state;
	assert_int_equal(iter_scrub_message(p, W("chain.example.tld1."), TYPE_A,
		CLASS_IN, W("example.tld1."), &r, 1), SCRUB_OK);
	assert_string_equal(sect(ldns_pkt_answer(p)),
		"chain.example.tld1. CNAME chain2.example.tld1.|"
		"chain2.example.tld1. CNAME alias.example.tld2.");
	assert_int_equal(r.final_found, 0);
	assert_int_equal(r.chain_len, 2);
	assert_int_equal(query_dname_compare(r.sname,
		W("alias.example.tld2.")), 0);
	ldns_pkt_free(p);
}

static void test_cname_qtype_cname(void** state)
{
	static const char* rrs[] = {
		"A a.example.tld1. CNAME b.example.tld1.",
		"A b.example.tld1. CNAME c.example.tld1.",
		NULL };
	struct scrub_result r;
	ldns_pkt* p = make_reply("a.example.tld1.", LDNS_RR_TYPE_CNAME, 0,
		rrs);
	(void)state;
	assert_int_equal(iter_scrub_message(p, W("a.example.tld1."), TYPE_CNAME,
		CLASS_IN, W("example.tld1."), &r, 1), SCRUB_OK);
	assert_string_equal(sect(ldns_pkt_answer(p)),
		"a.example.tld1. CNAME b.example.tld1.");
	assert_int_equal(r.final_found, 1);
	ldns_pkt_free(p);
}

static void test_cname_loop_kept_once(void** state)
{
	static const char* rrs[] = {
		"A loop1.example.tld1. CNAME loop2.example.tld1.",
		"A loop2.example.tld1. CNAME loop1.example.tld1.",
		NULL };
	struct scrub_result r;
	ldns_pkt* p = make_reply("loop1.example.tld1.", LDNS_RR_TYPE_A, 0,
		rrs);
	(void)state;
	assert_int_equal(iter_scrub_message(p, W("loop1.example.tld1."), TYPE_A,
		CLASS_IN, W("example.tld1."), &r, 1), SCRUB_OK);
	assert_int_equal(ldns_rr_list_rr_count(ldns_pkt_answer(p)), 2);
	assert_int_equal(r.chain_len, 2);
	assert_int_equal(r.final_found, 0);
	ldns_pkt_free(p);
}

static void test_dname_synthesis(void** state)
{
	static const char* rrs[] = {
		"A dname.example.tld1. DNAME example.tld2.",
		/* the server's CNAME lies: replaced by the synthesized one */
		"A www.dname.example.tld1. CNAME evil.other.tld3.",
		NULL };
	struct scrub_result r;
	ldns_pkt* p = make_reply("www.dname.example.tld1.", LDNS_RR_TYPE_A, 0,
		rrs);
	(void)state;
	assert_int_equal(iter_scrub_message(p, W("www.dname.example.tld1."),
		TYPE_A, CLASS_IN, W("example.tld1."), &r, 1), SCRUB_OK);
	assert_string_equal(sect(ldns_pkt_answer(p)),
		"dname.example.tld1. DNAME example.tld2.|"
		"www.dname.example.tld1. CNAME www.example.tld2.");
	assert_int_equal(query_dname_compare(r.sname, W("www.example.tld2.")),
		0);
	assert_int_equal(r.chain_len, 1);
	ldns_pkt_free(p);
}

/* Two DNAMEs of one owner (hostile: a DNAME set has one record) make
 * two chain steps that both keep the owner's RRSIG: the scrubber moves
 * a kept record the first time and clones it the second, so the packet
 * owns each object once (ASan: no double free) */
static void test_record_kept_twice(void** state)
{
	static const char* rrs[] = {
		"A a.example.tld1. DNAME b.a.example.tld1.",
		"A a.example.tld1. DNAME c.a.example.tld1.",
		"A a.example.tld1. RRSIG DNAME 8 3 3600 20300101000000 "
			"20200101000000 1 example.tld1. AAAA",
		NULL };
	struct scrub_result r;
	ldns_pkt* p = make_reply("x.a.example.tld1.", LDNS_RR_TYPE_A, 0, rrs);
	ldns_rr_list* an;
	(void)state;
	assert_int_equal(iter_scrub_message(p, W("x.a.example.tld1."),
		TYPE_A, CLASS_IN, W("example.tld1."), &r, 1), SCRUB_OK);
	an = ldns_pkt_answer(p);
	assert_string_equal(sect(an),
		"a.example.tld1. DNAME b.a.example.tld1.|"
		"a.example.tld1. RRSIG DNAME|"
		"x.a.example.tld1. CNAME x.b.a.example.tld1.|"
		"a.example.tld1. DNAME c.a.example.tld1.|"
		"a.example.tld1. RRSIG DNAME|"
		"x.b.a.example.tld1. CNAME x.b.c.a.example.tld1.");
	assert_ptr_not_equal(ldns_rr_list_rr(an, 1), ldns_rr_list_rr(an, 4));
	assert_int_equal(ldns_rr_compare(ldns_rr_list_rr(an, 1),
		ldns_rr_list_rr(an, 4)), 0);
	assert_int_equal(r.chain_len, 2);
	ldns_pkt_free(p);
}

static void test_dname_too_long(void** state)
{
	/* 4 labels of 63 under a DNAME whose target is longer than its
	 * owner: the synthesized name would pass 255 bytes */
	char q[400], dn[200], rr1[600];
	const char* rrs[] = { rr1, NULL };
	struct scrub_result r;
	ldns_pkt* p;
	char l63[64];
	(void)state;
	memset(l63, 'a', 63);
	l63[63] = 0;
	snprintf(q, sizeof(q), "%s.%s.%s.x.tld1.", l63, l63, l63);
	snprintf(dn, sizeof(dn), "%s.tld2.", l63);
	snprintf(rr1, sizeof(rr1), "A x.tld1. DNAME %s", dn);
	p = make_reply(q, LDNS_RR_TYPE_A, 0, rrs);
	assert_int_equal(iter_scrub_message(p, W(q), TYPE_A, CLASS_IN,
		W("tld1."),
		&r, 1), SCRUB_OK);
	assert_int_equal(r.dname_too_long, 1);
	ldns_pkt_free(p);
}

static void test_referral_glue(void** state)
{
	static const char* rrs[] = {
		"N example.tld1. NS ns1.example.tld1.",
		"N example.tld1. NS ns.other.tld2.",
		"N unrelated.tld1. NS ns.unrelated.tld1.",  /* not above qname */
		"N other.tld2. NS ns.evil.tld2.",           /* out of zone */
		"D ns1.example.tld1. A 192.0.2.53",
		"D ns.other.tld2. A 192.0.2.66",            /* out of zone */
		"D ns.unrelated.tld1. A 192.0.2.67",        /* not an NS kept */
		"D www.example.tld1. A 192.0.2.68",         /* poison */
		NULL };
	struct scrub_result r;
	ldns_pkt* p = make_reply("www.example.tld1.", LDNS_RR_TYPE_A, 0, rrs);
	(void)state;
	assert_int_equal(iter_scrub_message(p, W("www.example.tld1."), TYPE_A,
		CLASS_IN, W("tld1."), &r, 1), SCRUB_OK);
	assert_string_equal(sect(ldns_pkt_authority(p)),
		"example.tld1. NS ns1.example.tld1.|"
		"example.tld1. NS ns.other.tld2.");
	assert_string_equal(sect(ldns_pkt_additional(p)),
		"ns1.example.tld1. A 192.0.2.53");
	/* the header counts follow the sections; what went is counted */
	assert_int_equal(ldns_pkt_nscount(p), 2);
	assert_int_equal(ldns_pkt_arcount(p), 1);
	assert_int_equal(r.removed, 5);
	assert_int_equal(r.final_found, 0);
	ldns_pkt_free(p);
	/* harden-glue: no keeps the out-of-zone glue of a kept NS name,
	 * still not the address of a name no NS record names */
	p = make_reply("www.example.tld1.", LDNS_RR_TYPE_A, 0, rrs);
	assert_int_equal(iter_scrub_message(p, W("www.example.tld1."), TYPE_A,
		CLASS_IN, W("tld1."), &r, 0), SCRUB_OK);
	assert_string_equal(sect(ldns_pkt_additional(p)),
		"ns1.example.tld1. A 192.0.2.53|ns.other.tld2. A 192.0.2.66");
	ldns_pkt_free(p);
}

/* harden-unverified-glue (1.21): glue only strictly below the owner of
 * the reply's NS set; glue elsewhere in the sending zone goes, glue
 * outside it follows harden-glue; off (the default) keeps it. */
static void test_unverified_glue(void** state)
{
	static const char* rrs[] = {
		"N example.tld1. NS ns1.example.tld1.",
		"N example.tld1. NS ns.other.tld1.",
		"N example.tld1. NS example.tld1.",
		"N example.tld1. NS ns.far.tld2.",
		"D ns1.example.tld1. A 192.0.2.53",
		"D ns.other.tld1. A 192.0.2.54",
		"D ns.other.tld1. AAAA 2001:db8::54",
		"D example.tld1. A 192.0.2.55",     /* the zone's apex */
		"D ns.far.tld2. A 192.0.2.66",
		NULL };
	static const char* nsq[] = {
		"A example.tld1. NS ns1.example.tld1.",
		"A example.tld1. NS ns.other.tld1.",
		"D ns1.example.tld1. A 192.0.2.53",
		"D ns.other.tld1. A 192.0.2.54",
		NULL };
	struct scrub_result r;
	struct scrub_opts o;
	ldns_pkt* p;
	(void)state;
	/* off: the glue under tld1. is used */
	p = make_reply("www.example.tld1.", LDNS_RR_TYPE_A, 0, rrs);
	scrub_opts_default(&o, 1);
	assert_int_equal(o.unverified_glue, 0);
	assert_int_equal(iter_scrub_message_opts(p, W("www.example.tld1."),
		TYPE_A, CLASS_IN, W("tld1."), &r, &o), SCRUB_OK);
	assert_string_equal(sect(ldns_pkt_additional(p)),
		"ns1.example.tld1. A 192.0.2.53|ns.other.tld1. A 192.0.2.54|"
		"ns.other.tld1. AAAA 2001:db8::54|example.tld1. A 192.0.2.55");
	ldns_pkt_free(p);
	/* on: only the glue below example.tld1. (not its apex) stays */
	p = make_reply("www.example.tld1.", LDNS_RR_TYPE_A, 0, rrs);
	o.unverified_glue = 1;
	assert_int_equal(iter_scrub_message_opts(p, W("www.example.tld1."),
		TYPE_A, CLASS_IN, W("tld1."), &r, &o), SCRUB_OK);
	assert_string_equal(sect(ldns_pkt_authority(p)),
		"example.tld1. NS ns1.example.tld1.|"
		"example.tld1. NS ns.other.tld1.|"
		"example.tld1. NS example.tld1.|"
		"example.tld1. NS ns.far.tld2.");
	assert_string_equal(sect(ldns_pkt_additional(p)),
		"ns1.example.tld1. A 192.0.2.53");
	assert_int_equal(ldns_pkt_arcount(p), 1);
	assert_int_equal(r.removed, 4);
	assert_null(r.unverified);
	ldns_pkt_free(p);
	/* on, set aside: the same reply, and the glue that went (under the
	 * zone asked, not below example.tld1.) comes back apart for the
	 * last resort; the address outside tld1. is harden-glue's */
	p = make_reply("www.example.tld1.", LDNS_RR_TYPE_A, 0, rrs);
	o.unverified_aside = 1;
	assert_int_equal(iter_scrub_message_opts(p, W("www.example.tld1."),
		TYPE_A, CLASS_IN, W("tld1."), &r, &o), SCRUB_OK);
	assert_string_equal(sect(ldns_pkt_additional(p)),
		"ns1.example.tld1. A 192.0.2.53");
	assert_int_equal(r.removed, 4);
	assert_non_null(r.unverified);
	assert_string_equal(sect(r.unverified),
		"ns.other.tld1. A 192.0.2.54|ns.other.tld1. AAAA 2001:db8::54|"
		"example.tld1. A 192.0.2.55");
	ldns_rr_list_deep_free(r.unverified);
	ldns_pkt_free(p);
	o.unverified_aside = 0;
	/* on, with harden-glue: no: glue outside tld1. is harden-glue's
	 * (Unbound takes it from its cache), still kept */
	p = make_reply("www.example.tld1.", LDNS_RR_TYPE_A, 0, rrs);
	o.harden_glue = 0;
	assert_int_equal(iter_scrub_message_opts(p, W("www.example.tld1."),
		TYPE_A, CLASS_IN, W("tld1."), &r, &o), SCRUB_OK);
	assert_string_equal(sect(ldns_pkt_additional(p)),
		"ns1.example.tld1. A 192.0.2.53|ns.far.tld2. A 192.0.2.66");
	ldns_pkt_free(p);
	/* the answer to an NS query: checked against the answer's owner */
	p = make_reply("example.tld1.", LDNS_RR_TYPE_NS, 0, nsq);
	o.harden_glue = 1;
	assert_int_equal(iter_scrub_message_opts(p, W("example.tld1."),
		TYPE_NS, CLASS_IN, W("example.tld1."), &r, &o), SCRUB_OK);
	assert_string_equal(sect(ldns_pkt_additional(p)),
		"ns1.example.tld1. A 192.0.2.53");
	ldns_pkt_free(p);
	/* the rule itself: strictly below; no NS set, no check */
	assert_true(iter_scrub_glue_verified(W("a.b."), W("b.")));
	assert_false(iter_scrub_glue_verified(W("b."), W("b.")));
	assert_false(iter_scrub_glue_verified(W("a.c."), W("b.")));
	assert_true(iter_scrub_glue_verified(W("a.c."), NULL));
}

static void test_authority_soa(void** state)
{
	static const char* neg[] = {
		"N example.tld1. SOA ns1.example.tld1. h.example.tld1. "
			"1 3600 900 604800 300",
		"N other.example.tld1. SOA ns1.example.tld1. h.example.tld1. "
			"1 3600 900 604800 300",      /* not above the qname */
		"N example.tld1. TXT \"junk\"",
		NULL };
	static const char* pos[] = {
		"A www.example.tld1. A 192.0.2.1",
		"N example.tld1. SOA ns1.example.tld1. h.example.tld1. "
			"1 3600 900 604800 300",
		"N example.tld1. NS ns1.example.tld1.",
		NULL };
	struct scrub_result r;
	struct scrub_opts o;
	ldns_pkt* p = make_reply("www.example.tld1.", LDNS_RR_TYPE_A, 3, neg);
	(void)state;
	assert_int_equal(iter_scrub_message(p, W("www.example.tld1."), TYPE_A,
		CLASS_IN, W("example.tld1."), &r, 1), SCRUB_OK);
	assert_string_equal(sect(ldns_pkt_authority(p)),
		"example.tld1. SOA ns1.example.tld1.");
	ldns_pkt_free(p);
	/* iter-scrub-promiscuous: no (1.17): the answer's NS set stays */
	p = make_reply("www.example.tld1.", LDNS_RR_TYPE_A, 0, pos);
	scrub_opts_default(&o, 1);
	o.promiscuous = 0;
	assert_int_equal(iter_scrub_message_opts(p, W("www.example.tld1."),
		TYPE_A, CLASS_IN, W("example.tld1."), &r, &o), SCRUB_OK);
	assert_string_equal(sect(ldns_pkt_authority(p)),
		"example.tld1. NS ns1.example.tld1.");
	ldns_pkt_free(p);
}

/* iter-scrub-promiscuous: an authority NS set stays only in a referral
 * (yes, the default); with no, an answer's stays; an NXDOMAIN's goes
 * either way. */
static void test_scrub_promiscuous(void** state)
{
	static const char* ans[] = {
		"A www.example.tld1. A 192.0.2.1",
		"N example.tld1. NS ns.elsewhere.example.tld1.",
		"D ns.elsewhere.example.tld1. A 192.0.2.66",
		NULL };
	static const char* nx[] = {
		"N example.tld1. SOA ns1.example.tld1. h.example.tld1. "
			"1 3600 900 604800 300",
		"N example.tld1. NS ns1.example.tld1.",
		NULL };
	static const char* ref[] = {
		"N sub.example.tld1. NS ns.sub.example.tld1.",
		"D ns.sub.example.tld1. A 192.0.2.7",
		NULL };
	static const char* self[] = {
		"N example.tld1. NS ns1.example.tld1.",
		NULL };
	struct {
		const char* const* rrs;
		const char* qname;
		int rcode, promiscuous;
		const char* auth;
		size_t addl;
	} cases[] = {
		{ ans, "www.example.tld1.", 0, 1, "", 0 },
		{ ans, "www.example.tld1.", 0, 0,
			"example.tld1. NS ns.elsewhere.example.tld1.", 1 },
		{ nx, "www.example.tld1.", 3, 0,
			"example.tld1. SOA ns1.example.tld1.", 0 },
		{ ref, "www.sub.example.tld1.", 0, 1,
			"sub.example.tld1. NS ns.sub.example.tld1.", 1 },
		{ self, "www.example.tld1.", 0, 1,
			"example.tld1. NS ns1.example.tld1.", 0 },
		{ self, "www.example.tld1.", 0, 0,
			"example.tld1. NS ns1.example.tld1.", 0 },
	};
	size_t i;
	(void)state;
	for(i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct scrub_result r;
		struct scrub_opts o;
		ldns_pkt* p = make_reply(cases[i].qname, LDNS_RR_TYPE_A,
			cases[i].rcode, cases[i].rrs);
		scrub_opts_default(&o, 1);
		o.promiscuous = cases[i].promiscuous;
		assert_int_equal(iter_scrub_message_opts(p, W(cases[i].qname),
			TYPE_A, CLASS_IN, W("example.tld1."), &r, &o),
			SCRUB_OK);
		assert_string_equal(sect(ldns_pkt_authority(p)),
			cases[i].auth);
		assert_int_equal(ldns_rr_list_rr_count(
			ldns_pkt_additional(p)), cases[i].addl);
		ldns_pkt_free(p);
	}
}

static void test_ns_query_answer_glue(void** state)
{
	static const char* rrs[] = {
		"A . NS a.root.test.",
		"D a.root.test. A 127.0.0.2",
		"D b.root.test. A 127.0.0.66",    /* no NS names it */
		NULL };
	struct scrub_result r;
	ldns_pkt* p = make_reply(".", LDNS_RR_TYPE_NS, 0, rrs);
	(void)state;
	assert_int_equal(iter_scrub_message(p, W("."), TYPE_NS, CLASS_IN,
		W("."),
		&r, 1), SCRUB_OK);
	assert_int_equal(r.final_found, 1);
	assert_string_equal(sect(ldns_pkt_additional(p)),
		"a.root.test. A 127.0.0.2");
	ldns_pkt_free(p);
}

#define SIGS(sec, owner, covered) sec " " owner " RRSIG " covered \
	" 8 2 3600 20300101000000 20200101000000 1 example.tld1. AAAA"
#define SIG(owner, covered) SIGS("N", owner, covered)

/* iter-scrub-ns: a referral's NS set is cut to the limit and the glue
 * of the names cut goes with them; an answer's signed NS set that is
 * too large goes whole (it would be bogus). */
static void test_limit_ns(void** state)
{
	static const char* ref[] = {
		"N example.tld1. NS ns1.example.tld1.",
		"N example.tld1. NS ns2.example.tld1.",
		"N example.tld1. NS ns3.example.tld1.",
		"D ns1.example.tld1. A 192.0.2.1",
		"D ns2.example.tld1. A 192.0.2.2",
		"D ns3.example.tld1. A 192.0.2.3",
		NULL };
	static const char* pos[] = {
		"A www.example.tld1. A 192.0.2.9",
		"N example.tld1. NS ns1.example.tld1.",
		"N example.tld1. NS ns2.example.tld1.",
		"N example.tld1. NS ns3.example.tld1.",
		SIG("example.tld1.", "NS"),
		NULL };
	struct scrub_result r;
	struct scrub_opts o;
	ldns_pkt* p = make_reply("www.example.tld1.", LDNS_RR_TYPE_A, 0, ref);
	(void)state;
	scrub_opts_default(&o, 1);
	o.max_ns = 2;
	assert_int_equal(iter_scrub_message_opts(p, W("www.example.tld1."),
		TYPE_A, CLASS_IN, W("tld1."), &r, &o), SCRUB_OK);
	assert_string_equal(sect(ldns_pkt_authority(p)),
		"example.tld1. NS ns1.example.tld1.|"
		"example.tld1. NS ns2.example.tld1.");
	assert_string_equal(sect(ldns_pkt_additional(p)),
		"ns1.example.tld1. A 192.0.2.1|ns2.example.tld1. A 192.0.2.2");
	assert_int_equal(r.clipped, 1);
	ldns_pkt_free(p);
	/* 0: no limit */
	o.max_ns = 0;
	p = make_reply("www.example.tld1.", LDNS_RR_TYPE_A, 0, ref);
	assert_int_equal(iter_scrub_message_opts(p, W("www.example.tld1."),
		TYPE_A, CLASS_IN, W("tld1."), &r, &o), SCRUB_OK);
	assert_int_equal(ldns_rr_list_rr_count(ldns_pkt_authority(p)), 3);
	ldns_pkt_free(p);
	o.max_ns = 2;
	p = make_reply("www.example.tld1.", LDNS_RR_TYPE_A, 0, pos);
	assert_int_equal(iter_scrub_message_opts(p, W("www.example.tld1."),
		TYPE_A, CLASS_IN, W("example.tld1."), &r, &o), SCRUB_OK);
	assert_string_equal(sect(ldns_pkt_answer(p)),
		"www.example.tld1. A 192.0.2.9");
	assert_string_equal(sect(ldns_pkt_authority(p)), "");
	ldns_pkt_free(p);
}

/* iter-scrub-rrsig: at most the limit of RRSIGs per RRset, in the
 * answer and in the authority section. */
static void test_limit_rrsig(void** state)
{
	static const char* rrs[] = {
		"A www.example.tld1. A 192.0.2.9",
		SIGS("A", "www.example.tld1.", "A"),
		SIGS("A", "www.example.tld1.", "A"),
		SIGS("A", "www.example.tld1.", "A"),
		"N example.tld1. NS ns1.example.tld1.",
		SIG("example.tld1.", "NS"),
		SIG("example.tld1.", "NS"),
		SIG("example.tld1.", "NS"),
		NULL };
	struct scrub_result r;
	struct scrub_opts o;
	ldns_pkt* p = make_reply("www.example.tld1.", LDNS_RR_TYPE_A, 0, rrs);
	(void)state;
	scrub_opts_default(&o, 1);
	o.max_sigs = 2;
	o.promiscuous = 0;   /* the NS set of an answer stays */
	assert_int_equal(iter_scrub_message_opts(p, W("www.example.tld1."),
		TYPE_A, CLASS_IN, W("example.tld1."), &r, &o), SCRUB_OK);
	assert_int_equal(ldns_rr_list_rr_count(ldns_pkt_answer(p)), 3);
	assert_int_equal(ldns_rr_list_rr_count(ldns_pkt_authority(p)), 3);
	assert_int_equal(r.clipped, 2);
	ldns_pkt_free(p);
}

/* iter-scrub-cname: the chain is clipped after limit + 1 hops (as
 * Unbound: a CNAME is dropped when more than the limit came before);
 * the result's name is where the iterator goes on. */
static void test_limit_cname(void** state)
{
	static const char* rrs[] = {
		"A c0.example.tld1. CNAME c1.example.tld1.",
		"A c1.example.tld1. CNAME c2.example.tld1.",
		"A c2.example.tld1. CNAME c3.example.tld1.",
		"A c3.example.tld1. CNAME c4.example.tld1.",
		"A c4.example.tld1. A 192.0.2.4",
		NULL };
	struct scrub_result r;
	struct scrub_opts o;
	ldns_pkt* p = make_reply("c0.example.tld1.", LDNS_RR_TYPE_A, 0, rrs);
	(void)state;
	scrub_opts_default(&o, 1);
	o.max_chain = 1;
	assert_int_equal(iter_scrub_message_opts(p, W("c0.example.tld1."),
		TYPE_A, CLASS_IN, W("example.tld1."), &r, &o), SCRUB_OK);
	assert_int_equal(r.chain_len, 2);
	assert_int_equal(r.final_found, 0);
	assert_memory_equal(r.sname, W("c2.example.tld1."), r.snamelen);
	ldns_pkt_free(p);
	o.max_chain = 4;
	p = make_reply("c0.example.tld1.", LDNS_RR_TYPE_A, 0, rrs);
	assert_int_equal(iter_scrub_message_opts(p, W("c0.example.tld1."),
		TYPE_A, CLASS_IN, W("example.tld1."), &r, &o), SCRUB_OK);
	assert_int_equal(r.final_found, 1);
	ldns_pkt_free(p);
}

/* Mutated replies (random bytes flipped, cut short): whatever ldns
 * parses, the scrubber handles without crashing, and what it keeps is
 * always in the zone. */
static void test_mutated_replies(void** state)
{
	static const char* rrs[] = {
		"A chain.example.tld1. CNAME www.example.tld1.",
		"A www.example.tld1. A 192.0.2.1",
		"A dname.example.tld1. DNAME example.tld2.",
		"N example.tld1. NS ns1.example.tld1.",
		"N example.tld1. SOA ns1.example.tld1. h.example.tld1. "
			"1 3600 900 604800 300",
		"D ns1.example.tld1. A 192.0.2.53",
		"D ns1.example.tld1. AAAA 2001:db8::53",
		NULL };
	ldns_pkt* base = make_reply("chain.example.tld1.", LDNS_RR_TYPE_A, 0,
		rrs);
	uint8_t* wire = NULL;
	size_t len = 0, i;
	unsigned seed = 12345;
	int parsed = 0;
	(void)state;
	assert_int_equal(ldns_pkt2wire(&wire, base, &len), LDNS_STATUS_OK);
	for(i = 0; i < 5000; i++) {
		uint8_t buf[1024];
		size_t n = len < sizeof(buf) ? len : sizeof(buf), k, flips;
		ldns_pkt* p = NULL;
		struct scrub_result r;
		memcpy(buf, wire, n);
		seed = seed * 1103515245 + 12345;
		flips = 1 + (seed >> 16) % 4;
		for(k = 0; k < flips; k++) {
			seed = seed * 1103515245 + 12345;
			buf[12 + (seed >> 8) % (n - 12)] ^=
				(uint8_t)(1 + ((seed >> 20) & 0xfe));
		}
		if(i % 7 == 0) {
			seed = seed * 1103515245 + 12345;
			n = 12 + (seed >> 8) % (n - 12);
		}
		if(ldns_wire2pkt(&p, buf, n) != LDNS_STATUS_OK)
			continue;
		parsed++;
		if(iter_scrub_message(p, W("chain.example.tld1."), TYPE_A,
			CLASS_IN, W("example.tld1."), &r, 1) == SCRUB_OK) {
			ldns_rr_list* secs[3] = { ldns_pkt_answer(p),
				ldns_pkt_authority(p), ldns_pkt_additional(p) };
			int s2;
			for(s2 = 0; s2 < 3; s2++) {
				size_t j;
				for(j = 0; j < ldns_rr_list_rr_count(secs[s2]);
					j++) {
					ldns_rr* rr = ldns_rr_list_rr(secs[s2],
						j);
					uint8_t o[256];
					size_t ol = ldns_rdf_size(
						ldns_rr_owner(rr));
					assert_true(ol <= 255);
					memcpy(o, ldns_rdf_data(ldns_rr_owner(rr)),
						ol);
					/* synthesized CNAMEs are under the
					 * DNAME, also in the zone */
					assert_true(dname_subdomain_c(o,
						W("example.tld1.")));
				}
			}
		}
		ldns_pkt_free(p);
	}
	assert_true(parsed > 100);
	LDNS_FREE(wire);
	ldns_pkt_free(base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_question_must_match),
		cmocka_unit_test(test_answer_out_of_zone_dropped),
		cmocka_unit_test(test_cname_chain),
		cmocka_unit_test(test_cname_qtype_cname),
		cmocka_unit_test(test_cname_loop_kept_once),
		cmocka_unit_test(test_dname_synthesis),
		cmocka_unit_test(test_record_kept_twice),
		cmocka_unit_test(test_dname_too_long),
		cmocka_unit_test(test_referral_glue),
		cmocka_unit_test(test_unverified_glue),
		cmocka_unit_test(test_authority_soa),
		cmocka_unit_test(test_ns_query_answer_glue),
		cmocka_unit_test(test_limit_ns),
		cmocka_unit_test(test_limit_rrsig),
		cmocka_unit_test(test_scrub_promiscuous),
		cmocka_unit_test(test_limit_cname),
		cmocka_unit_test(test_mutated_replies),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
