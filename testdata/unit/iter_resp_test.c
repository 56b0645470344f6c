/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/iter_resp_test.c - iterator/iter_resp.c without the
 * network: an upstream reply handed to iter_process_wire for a state
 * waiting at a zone's server. The final answer's records go to the
 * state's answer list, after a CNAME chain already there, in order. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <ldns/ldns.h>
#include "iterator/iterator.h"
#include "iterator/delegpt.h"
#include "iterator/iter_util.h"
#include "util/dname.h"
#include "util/msgparse.h"
#include "testdata/unit/wire_name.h"

/* A state asking (qname, A) of a server of zone, as sent. */
static void state_at(struct iter_qstate* iq, const char* qname,
	const char* zone)
{
	struct delegpt* dp = delegpt_create(W(zone));
	struct sockaddr_storage a;
	struct sockaddr_in* a4 = (struct sockaddr_in*)&a;
	assert_non_null(dp);
	assert_int_equal(iter_qstate_init(iq, NULL, W(qname), TYPE_A,
		CLASS_IN, 0, 0, NULL), 1);
	memset(&a, 0, sizeof(a));
	a4->sin_family = AF_INET;
	a4->sin_port = htons(53);
	a4->sin_addr.s_addr = htonl(0xc0000235);   /* 192.0.2.53 */
	assert_int_equal(delegpt_add_addr(dp, &a, sizeof(*a4)), 1);
	assert_int_equal(iter_qstate_preset_dp(iq, dp), 1);
	delegpt_delete(dp);
	iq->qmin = 0;
	iq->sent_to = iq->dp->addrs;
	iq->state = ITER_TARGETS;
	iq->ask = iq->sname;
	iq->asklen = iq->snamelen;
	iq->asktype = TYPE_A;
}

/* The wire reply (AA) to (qname, A) with "A|N|D rr" lines. */
static uint8_t* reply_wire(const char* qname, const char* const* rrs,
	size_t* len)
{
	ldns_pkt* p = ldns_pkt_new();
	ldns_rr* q = NULL;
	uint8_t* wire = NULL;
	char text[300];
	assert_non_null(p);
	ldns_pkt_set_qr(p, 1);
	ldns_pkt_set_aa(p, 1);
	ldns_pkt_set_id(p, 4711);
	snprintf(text, sizeof(text), "%s IN A", qname);
	assert_int_equal(ldns_rr_new_question_frm_str(&q, text, NULL, NULL),
		LDNS_STATUS_OK);
	assert_true(ldns_pkt_push_rr(p, LDNS_SECTION_QUESTION, q));
	for(; *rrs; rrs++) {
		ldns_rr* rr = NULL;
		assert_int_equal(ldns_rr_new_frm_str(&rr, *rrs + 2, 3600,
			NULL, NULL), LDNS_STATUS_OK);
		assert_true(ldns_pkt_push_rr(p, (*rrs)[0] == 'A' ?
			LDNS_SECTION_ANSWER : (*rrs)[0] == 'N' ?
			LDNS_SECTION_AUTHORITY : LDNS_SECTION_ADDITIONAL, rr));
	}
	assert_int_equal(ldns_pkt2wire(&wire, p, len), LDNS_STATUS_OK);
	ldns_pkt_free(p);
	return wire;
}

static void assert_rr(const ldns_rr_list* l, size_t i, const char* text)
{
	ldns_rr* want = NULL;
	assert_true(i < ldns_rr_list_rr_count(l));
	assert_int_equal(ldns_rr_new_frm_str(&want, text, 0, NULL, NULL),
		LDNS_STATUS_OK);
	assert_int_equal(ldns_rr_compare(ldns_rr_list_rr(l, i), want), 0);
	ldns_rr_free(want);
}

/* The answer alone: the scrubbed records (the NS set and glue are not
 * the answer's), in the reply's order. */
static void test_answer_taken(void** state)
{
	static const char* rrs[] = {
		"A www.example.tld1. 300 A 192.0.2.1",
		"A www.example.tld1. 300 A 192.0.2.2",
		"N example.tld1. 3600 NS ns.example.tld1.",
		"D ns.example.tld1. 3600 A 192.0.2.53",
		NULL };
	struct iter_env env;
	struct iter_qstate iq;
	size_t len;
	uint8_t* wire = reply_wire("www.example.tld1.", rrs, &len);
	(void)state;
	memset(&env, 0, sizeof(env));
	state_at(&iq, "www.example.tld1.", "example.tld1.");
	iter_process_wire(&env, &iq, wire, len);
	assert_int_equal(iq.state, ITER_DONE);
	assert_int_equal(iq.rcode, RCODE_NOERROR);
	assert_int_equal((int)ldns_rr_list_rr_count(iq.answer), 2);
	assert_rr(iq.answer, 0, "www.example.tld1. 300 IN A 192.0.2.1");
	assert_rr(iq.answer, 1, "www.example.tld1. 300 IN A 192.0.2.2");
	iter_qstate_clear(&iq);
	free(wire);
}

/* After a CNAME already in the state's answer (a restart at its
 * target): the new answer follows it. */
static void test_answer_after_chain(void** state)
{
	static const char* rrs[] = {
		"A target.example.tld1. 300 A 192.0.2.7",
		NULL };
	struct iter_env env;
	struct iter_qstate iq;
	ldns_rr* cname = NULL;
	size_t len;
	uint8_t* wire = reply_wire("target.example.tld1.", rrs, &len);
	(void)state;
	memset(&env, 0, sizeof(env));
	state_at(&iq, "target.example.tld1.", "example.tld1.");
	assert_int_equal(ldns_rr_new_frm_str(&cname, "alias.example.tld1. "
		"300 IN CNAME target.example.tld1.", 0, NULL, NULL),
		LDNS_STATUS_OK);
	assert_true(ldns_rr_list_push_rr(iq.answer, cname));
	iter_process_wire(&env, &iq, wire, len);
	assert_int_equal(iq.state, ITER_DONE);
	assert_int_equal(iq.rcode, RCODE_NOERROR);
	assert_int_equal((int)ldns_rr_list_rr_count(iq.answer), 2);
	assert_rr(iq.answer, 0,
		"alias.example.tld1. 300 IN CNAME target.example.tld1.");
	assert_rr(iq.answer, 1, "target.example.tld1. 300 IN A 192.0.2.7");
	iter_qstate_clear(&iq);
	free(wire);
}

/* iter_qstate_init lowercases and measures the name; the _lower one
 * takes a lowercased name and its length as they are. Both start the
 * state the same way (with its own budget and an empty answer). */
static void test_qstate_init(void** state)
{
	struct iter_qstate a, b;
	(void)state;
	assert_int_equal(iter_qstate_init(&a, NULL, W("WwW.Example.COM."),
		TYPE_AAAA, CLASS_IN, 0, 1, NULL), 1);
	assert_int_equal(iter_qstate_init_lower(&b, NULL,
		W("www.example.com."), 17, TYPE_AAAA, CLASS_IN, 0, 1, NULL), 1);
	assert_int_equal(a.qname_len, 17);
	assert_int_equal(b.qname_len, 17);
	assert_memory_equal(a.qname, W("www.example.com."), 17);
	assert_memory_equal(b.qname, a.qname, 17);
	assert_memory_equal(b.sname, a.sname, 17);
	assert_int_equal(a.snamelen, b.snamelen);
	assert_int_equal(a.qtype, b.qtype);
	assert_int_equal(a.depth, 1);
	assert_int_equal(b.depth, 1);
	assert_int_equal(a.state, ITER_INIT);
	assert_int_equal(b.state, ITER_INIT);
	assert_int_equal(b.rcode, RCODE_SERVFAIL);
	assert_true(b.qmin);
	assert_non_null(b.budget);
	assert_int_equal(b.budget->refs, 1);
	assert_non_null(b.answer);
	assert_int_equal(ldns_rr_list_rr_count(b.answer), 0);
	iter_qstate_clear(&a);
	iter_qstate_clear(&b);
	/* a bad name (a label of 64): no state (cleared, safe to clear
	 * again) */
	assert_int_equal(iter_qstate_init(&a, NULL, (const uint8_t*)"\100ab",
		TYPE_A, CLASS_IN, 0, 0, NULL), 0);
	iter_qstate_clear(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_answer_taken),
		cmocka_unit_test(test_answer_after_chain),
		cmocka_unit_test(test_qstate_init),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
