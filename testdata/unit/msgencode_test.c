/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/msgencode_test.c - reply encoding: exact bytes for known
 * compression cases, and ldns_wire2pkt as an independent reader for the
 * rest (truncation, OPT, error replies, RDATA compression rules). */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <ldns/ldns.h>
#include "util/dname.h"
#include "util/msgparse.h"
#include "util/msgencode.h"

#define MAXRR 64
/* An RRset made from zone-file text with ldns. */
struct t_rrset {
	uint8_t owner[256];
	uint8_t rd[MAXRR][512];
	const uint8_t* rdp[MAXRR];
	uint16_t rdl[MAXRR];
	struct packed_rrset r;
};

/* All strings must have the same owner, type, class and TTL. */
static void mk_rrset(struct t_rrset* s, const char* const* rrs, size_t n)
{
	size_t i;
	memset(&s->r, 0, sizeof(s->r));
	assert_true(n <= MAXRR);
	for(i = 0; i < n; i++) {
		ldns_rr* rr = NULL;
		ldns_buffer* b = ldns_buffer_new(512);
		assert_int_equal(ldns_rr_new_frm_str(&rr, rrs[i], 3600, NULL,
			NULL), LDNS_STATUS_OK);
		if(i == 0) {
			ldns_rdf* o = ldns_rr_owner(rr);
			memcpy(s->owner, ldns_rdf_data(o), ldns_rdf_size(o));
			s->r.owner = s->owner;
			s->r.owner_len = ldns_rdf_size(o);
			s->r.type = (uint16_t)ldns_rr_get_type(rr);
			s->r.rclass = (uint16_t)ldns_rr_get_class(rr);
			s->r.ttl = ldns_rr_ttl(rr);
		}
		assert_int_equal(ldns_rr_rdata2buffer_wire(b, rr),
			LDNS_STATUS_OK);
		memcpy(s->rd[i], ldns_buffer_begin(b), ldns_buffer_position(b));
		s->rdl[i] = (uint16_t)ldns_buffer_position(b);
		s->rdp[i] = s->rd[i];
		ldns_buffer_free(b);
		ldns_rr_free(rr);
	}
	s->r.count = n;
	s->r.rdata = s->rdp;
	s->r.rdlen = s->rdl;
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
	qi->edns_udp_size = 512;
}

/* Check one section of a parsed reply against RR texts. */
static void check_section(ldns_rr_list* l, const char* const* want, size_t n)
{
	size_t i;
	assert_int_equal(ldns_rr_list_rr_count(l), n);
	for(i = 0; i < n; i++) {
		ldns_rr* w = NULL;
		char *a, *b;
		assert_int_equal(ldns_rr_new_frm_str(&w, want[i], 3600, NULL,
			NULL), LDNS_STATUS_OK);
		a = ldns_rr2str(ldns_rr_list_rr(l, i));
		b = ldns_rr2str(w);
		if(strcmp(a, b) != 0) {
			print_error("got  %swant %s", a, b);
			fail();
		}
		free(a);
		free(b);
		ldns_rr_free(w);
	}
}

static ldns_pkt* read_back(const uint8_t* buf, size_t len)
{
	ldns_pkt* p = NULL;
	assert_int_equal(ldns_wire2pkt(&p, buf, len), LDNS_STATUS_OK);
	return p;
}

static const char* const cname_rr[] = {
	"WWW.EXAMPLE.COM. 300 IN CNAME web.example.com." };
static const char* const web_a[] = {
	"web.example.com. 300 IN A 192.0.2.1",
	"web.example.com. 300 IN A 192.0.2.2" };

static void test_compression_bytes(void** state)
{
	static const uint8_t want[] = {
		0xbe, 0xef, 0x85, 0x80, 0, 1, 0, 3, 0, 0, 0, 0,
		3, 'w', 'w', 'w', 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e',
		3, 'c', 'o', 'm', 0, 0, 1, 0, 1,
		/* 33: CNAME, owner -> question (case from the query) */
		0xc0, 12, 0, 5, 0, 1, 0, 0, 1, 0x2c, 0, 6,
		3, 'w', 'e', 'b', 0xc0, 16,
		/* 51: A, owner -> 45 ("web" in the CNAME rdata) */
		0xc0, 45, 0, 1, 0, 1, 0, 0, 1, 0x2c, 0, 4, 192, 0, 2, 1,
		0xc0, 45, 0, 1, 0, 1, 0, 0, 1, 0x2c, 0, 4, 192, 0, 2, 2 };
	struct query_info qi;
	struct msg_builder b;
	struct t_rrset c, a;
	uint8_t buf[512];
	size_t len;
	ldns_pkt* p;
	(void)state;
	mk_query(&qi, "www.example.com.", TYPE_A, FLAG_RD);
	mk_rrset(&c, cname_rr, 1);
	mk_rrset(&a, web_a, 2);
	msg_begin(&b, buf, sizeof(buf), &qi, FLAG_AA | FLAG_RA, RCODE_NOERROR);
	assert_true(msg_add_rrset(&b, SEC_ANSWER, &c.r));
	assert_true(msg_add_rrset(&b, SEC_ANSWER, &a.r));
	len = msg_finish(&b, &qi, 1232, RCODE_NOERROR);
	assert_int_equal(len, sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
	p = read_back(buf, len);
	{
		const char* const w[] = {
			"www.example.com. 300 IN CNAME web.example.com.",
			web_a[0], web_a[1] };
		check_section(ldns_pkt_answer(p), w, 3);
	}
	ldns_pkt_free(p);
}

static void test_longest_suffix(void** state)
{
	/* a.b.example.com after b.example.com and example.com are known:
	 * must point at b.example.com, not at example.com */
	static const char* const ns[] = {
		"example.com. 60 IN NS b.example.com.",
		"example.com. 60 IN NS a.b.example.com.",
		"example.com. 60 IN NS x.example.org." };
	struct query_info qi;
	struct msg_builder b;
	struct t_rrset s;
	uint8_t buf[512];
	size_t len;
	ldns_pkt* p;
	(void)state;
	mk_query(&qi, "example.com", TYPE_NS, 0);
	mk_rrset(&s, ns, 3);
	msg_begin(&b, buf, sizeof(buf), &qi, FLAG_AA, 0);
	assert_true(msg_add_rrset(&b, SEC_ANSWER, &s.r));
	len = msg_finish(&b, &qi, 1232, 0);
	/* q: 12..24 name (13 bytes), 25..28 type/class.
	 * rr1 at 29: c00c, 10 bytes, rdata at 41: "\1b" c00c (4 bytes)
	 * rr2 at 45: c00c, 10 bytes, rdata at 57: "\1a" c029 (4 bytes)
	 * rr3 at 61: c00c, 10 bytes, rdata at 73: literal, no suffix known */
	assert_int_equal(len, 88);
	assert_memory_equal(buf + 41, "\1b\xc0\x0c", 4);
	assert_memory_equal(buf + 57, "\1a\xc0\x29", 4);
	assert_memory_equal(buf + 73, "\1x\7example\3org\0", 15);
	p = read_back(buf, len);
	check_section(ldns_pkt_answer(p), ns, 3);
	ldns_pkt_free(p);
}

static void test_rdata_compression(void** state)
{
	static const char* const soa[] = { "example.com. 3600 IN SOA "
		"ns1.example.com. hostmaster.example.com. 1 7200 3600 1209600 300" };
	static const char* const mx[] = {
		"example.com. 300 IN MX 10 mail.example.com.",
		"example.com. 300 IN MX 20 ns1.example.com." };
	static const char* const srv[] = {
		"_sip._udp.example.com. 300 IN SRV 0 5 5060 mail.example.com." };
	static const char* const dn[] = {
		"d.example.com. 300 IN DNAME mail.example.com." };
	struct query_info qi;
	struct msg_builder b;
	struct t_rrset s1, s2, s3, s4;
	uint8_t buf[1024];
	size_t len, off;
	ldns_pkt* p;
	(void)state;
	mk_query(&qi, "example.com", TYPE_ANY, 0);
	mk_rrset(&s1, soa, 1);
	mk_rrset(&s2, mx, 2);
	mk_rrset(&s3, srv, 1);
	mk_rrset(&s4, dn, 1);
	msg_begin(&b, buf, sizeof(buf), &qi, FLAG_AA, 0);
	assert_true(msg_add_rrset(&b, SEC_ANSWER, &s1.r));
	assert_true(msg_add_rrset(&b, SEC_ANSWER, &s2.r));
	assert_true(msg_add_rrset(&b, SEC_AUTHORITY, &s3.r));
	assert_true(msg_add_rrset(&b, SEC_ADDITIONAL, &s4.r));
	len = msg_finish(&b, &qi, 1232, 0);
	/* SOA at 29: c00c + 10, rdata at 41: "\3ns1" c00c, "\12hostmaster"
	 * c00c, 20 bytes */
	off = 29;
	assert_memory_equal(buf + off, "\xc0\x0c\0\6", 4);
	assert_int_equal(buf[off + 10] * 256 + buf[off + 11], 19 + 20);
	assert_memory_equal(buf + off + 12,
		"\3ns1\xc0\x0c\x0ahostmaster\xc0\x0c", 19);
	off += 12 + 39;
	/* MX 1: c00c + 10; rdata 00 0a "\4mail" c00c */
	assert_memory_equal(buf + off, "\xc0\x0c\0\x0f", 4);
	assert_memory_equal(buf + off + 12, "\0\x0a\4mail\xc0\x0c", 9);
	off += 12 + 9;
	/* MX 2: owner pointer, rdata 00 14 -> ns1.example.com at 41 */
	assert_memory_equal(buf + off, "\xc0\x0c", 2);
	assert_memory_equal(buf + off + 12, "\0\x14\xc0\x29", 4);
	off += 12 + 4;
	/* SRV: owner compressed, target written in full */
	assert_memory_equal(buf + off, "\4_sip\4_udp\xc0\x0c", 12);
	assert_memory_equal(buf + off + 12 + 10 + 6,
		"\4mail\7example\3com\0", 18);
	off += 12 + 10 + 6 + 18;
	/* DNAME: owner compressed, target in full */
	assert_memory_equal(buf + off, "\1d\xc0\x0c", 4);
	assert_memory_equal(buf + off + 4 + 10, "\4mail\7example\3com\0", 18);
	off += 4 + 10 + 18;
	assert_int_equal(off, len);
	p = read_back(buf, len);
	{
		const char* const an[] = { soa[0], mx[0], mx[1] };
		check_section(ldns_pkt_answer(p), an, 3);
		check_section(ldns_pkt_authority(p), srv, 1);
		check_section(ldns_pkt_additional(p), dn, 1);
	}
	ldns_pkt_free(p);
}

static void test_truncation(void** state)
{
	/* 20 TXT records of ~40 bytes: too many for 512 */
	const char* txt[20];
	char store[20][100];
	static const char* const ns[] = { "example.com. 60 IN NS ns.example.com." };
	static const char* const glue[] = { "ns.example.com. 60 IN A 192.0.2.53" };
	struct query_info qi;
	struct msg_builder b;
	struct t_rrset big, small, n, g;
	uint8_t buf[4096];
	size_t len, i;
	ldns_pkt* p;
	(void)state;
	for(i = 0; i < 20; i++) {
		snprintf(store[i], sizeof(store[i]), "example.com. 60 IN TXT "
			"\"record %02d xxxxxxxxxxxxxxxxxxxxxxxxxx\"", (int)i);
		txt[i] = store[i];
	}
	mk_query(&qi, "example.com", TYPE_TXT, FLAG_RD);
	mk_rrset(&big, txt, 20);
	mk_rrset(&small, txt, 2);
	mk_rrset(&n, ns, 1);
	mk_rrset(&g, glue, 1);

	/* answer does not fit at all: left out whole, TC */
	msg_begin(&b, buf, 512, &qi, FLAG_RA, 0);
	assert_false(msg_add_rrset(&b, SEC_ANSWER, &big.r));
	assert_false(msg_add_rrset(&b, SEC_AUTHORITY, &n.r));
	len = msg_finish(&b, &qi, 1232, 0);
	assert_int_equal(len, 29);
	assert_true(buf[2] & (FLAG_TC >> 8));
	assert_int_equal(buf[7], 0);
	p = read_back(buf, len);
	assert_true(ldns_pkt_tc(p));
	assert_int_equal(ldns_pkt_ancount(p), 0);
	ldns_pkt_free(p);

	/* the same at a bigger limit fits */
	msg_begin(&b, buf, 4096, &qi, FLAG_RA, 0);
	assert_true(msg_add_rrset(&b, SEC_ANSWER, &big.r));
	len = msg_finish(&b, &qi, 1232, 0);
	assert_true(len > 512);
	assert_false(buf[2] & (FLAG_TC >> 8));
	p = read_back(buf, len);
	check_section(ldns_pkt_answer(p), txt, 20);
	ldns_pkt_free(p);

	/* first RRset fits, second not: first kept, TC; with EDNS the OPT
	 * still fits inside 512 */
	qi.has_edns = 1;
	msg_begin(&b, buf, 512, &qi, FLAG_RA, 0);
	assert_true(msg_add_rrset(&b, SEC_ANSWER, &small.r));
	assert_false(msg_add_rrset(&b, SEC_AUTHORITY, &big.r));
	assert_false(msg_add_rrset(&b, SEC_ADDITIONAL, &g.r));
	len = msg_finish(&b, &qi, 1232, 0);
	assert_true(len <= 512);
	p = read_back(buf, len);
	assert_true(ldns_pkt_tc(p));
	check_section(ldns_pkt_answer(p), txt, 2);
	assert_int_equal(ldns_pkt_nscount(p), 0);
	assert_int_equal(ldns_pkt_edns_udp_size(p), 1232);
	ldns_pkt_free(p);

	/* additional overflow: no TC, it just stops */
	qi.has_edns = 0;
	msg_begin(&b, buf, 512, &qi, FLAG_RA, 0);
	assert_true(msg_add_rrset(&b, SEC_AUTHORITY, &n.r));
	assert_false(msg_add_rrset(&b, SEC_ADDITIONAL, &big.r));
	assert_false(msg_add_rrset(&b, SEC_ADDITIONAL, &g.r));
	len = msg_finish(&b, &qi, 1232, 0);
	p = read_back(buf, len);
	assert_false(ldns_pkt_tc(p));
	check_section(ldns_pkt_authority(p), ns, 1);
	assert_int_equal(ldns_pkt_arcount(p), 0);
	ldns_pkt_free(p);

	/* exactly at the limit: a packet of 512 fits, 511 does not */
	msg_begin(&b, buf, 4096, &qi, FLAG_RA, 0);
	assert_true(msg_add_rrset(&b, SEC_ANSWER, &small.r));
	len = msg_finish(&b, &qi, 0, 0);
	msg_begin(&b, buf, len, &qi, FLAG_RA, 0);
	assert_true(msg_add_rrset(&b, SEC_ANSWER, &small.r));
	assert_int_equal(msg_finish(&b, &qi, 0, 0), len);
	msg_begin(&b, buf, len - 1, &qi, FLAG_RA, 0);
	assert_false(msg_add_rrset(&b, SEC_ANSWER, &small.r));

	/* sections out of order are refused */
	msg_begin(&b, buf, 4096, &qi, FLAG_RA, 0);
	assert_true(msg_add_rrset(&b, SEC_AUTHORITY, &n.r));
	assert_false(msg_add_rrset(&b, SEC_ANSWER, &small.r));
	assert_false(b.truncated);
}

static void test_opt_and_flags(void** state)
{
	static const uint8_t opt_do[] = { 0, 0, 41, 0x04, 0xd0, 0, 0, 0x80, 0,
		0, 0 };
	struct query_info qi;
	struct msg_builder b;
	uint8_t buf[512];
	size_t len;
	ldns_pkt* p;
	(void)state;
	/* opcode, RD, CD copied; AD, AA, Z of the query are not */
	mk_query(&qi, "Example.COM", TYPE_A, FLAG_RD | FLAG_CD | FLAG_AD |
		FLAG_AA | 0x0040);
	qi.has_edns = 1;
	qi.edns_do = 1;
	msg_begin(&b, buf, sizeof(buf), &qi, FLAG_RA, RCODE_NXDOMAIN);
	len = msg_finish(&b, &qi, 1232, RCODE_NXDOMAIN);
	assert_int_equal(len, 12 + 13 + 4 + 11);
	assert_int_equal(buf[2], 0x81);
	assert_int_equal(buf[3], 0x93);
	assert_int_equal(buf[11], 1);
	assert_memory_equal(buf + 29, opt_do, 11);
	p = read_back(buf, len);
	assert_int_equal(ldns_pkt_get_rcode(p), LDNS_RCODE_NXDOMAIN);
	assert_true(ldns_pkt_edns_do(p));
	assert_int_equal(ldns_pkt_edns_udp_size(p), 1232);
	assert_true(ldns_pkt_cd(p));
	assert_false(ldns_pkt_ad(p));
	ldns_pkt_free(p);
	/* no DO in the query, none in the reply */
	qi.edns_do = 0;
	msg_begin(&b, buf, sizeof(buf), &qi, 0, 0);
	len = msg_finish(&b, &qi, 4096, 0);
	assert_int_equal(buf[len - 4], 0);
	assert_int_equal(buf[len - 8], 0x10);
}

static void test_error_replies(void** state)
{
	struct query_info qi;
	uint8_t pkt[64], buf[512];
	size_t len, plen;
	ldns_pkt* p;
	(void)state;
	/* FORMERR with the question, RA set, RD copied (error_encode) */
	mk_query(&qi, "www.example.com", TYPE_A, FLAG_RD);
	len = msg_error_reply(buf, sizeof(buf), &qi, RCODE_FORMERR, 1232);
	assert_int_equal(len, 33);
	assert_memory_equal(buf, "\xbe\xef\x81\x81\0\1\0\0\0\0\0\0"
		"\3www\7example\3com\0\0\1\0\1", 33);
	/* without a question: header only, qdcount 0 */
	qi.qname_len = 0;
	len = msg_error_reply(buf, sizeof(buf), &qi, RCODE_FORMERR, 1232);
	assert_int_equal(len, 12);
	assert_memory_equal(buf, "\xbe\xef\x81\x81\0\0\0\0\0\0\0\0", 12);
	/* BADVERS: rcode 0 in the header, 1 in the OPT, DO echoed */
	mk_query(&qi, "www.example.com", TYPE_A, FLAG_RD);
	qi.has_edns = 1;
	qi.edns_do = 1;
	qi.edns_version = 1;
	len = msg_error_reply(buf, sizeof(buf), &qi, RCODE_BADVERS, 1232);
	assert_int_equal(len, 44);
	assert_memory_equal(buf, "\xbe\xef\x81\x80\0\1\0\0\0\0\0\1", 12);
	assert_memory_equal(buf + 33, "\0\0\x29\x04\xd0\1\0\x80\0\0\0", 11);
	p = read_back(buf, len);
	assert_int_equal(ldns_pkt_edns_extended_rcode(p), 1);
	ldns_pkt_free(p);

	/* echo: the whole query with QR and the rcode, TC cleared */
	plen = 12 + 21 + 11;
	memcpy(pkt, "\x12\x34\x03\x10\0\1\0\0\0\0\0\1"
		"\3www\7example\3com\0\0\1\0\1"
		"\0\0\x29\x10\0\0\0\x80\0\0\0", plen);
	assert_int_equal(query_parse(pkt, plen, &qi), PARSE_FORMERR);
	len = msg_error_reply(buf, sizeof(buf), &qi, RCODE_FORMERR, 1232);
	assert_int_equal(len, plen);
	assert_int_equal(buf[2], 0x81);
	assert_int_equal(buf[3], 0x11);
	assert_memory_equal(buf + 4, pkt + 4, plen - 4);
	/* a different rcode (access control REFUSED) does not echo */
	len = msg_error_reply(buf, sizeof(buf), &qi, RCODE_REFUSED, 1232);
	assert_int_equal(len, 33);
	/* echo in place (same buffer) works */
	memcpy(buf, pkt, plen);
	assert_int_equal(query_parse(buf, plen, &qi), PARSE_FORMERR);
	assert_int_equal(msg_error_reply(buf, sizeof(buf), &qi, RCODE_FORMERR,
		1232), plen);
	assert_int_equal(buf[2], 0x81);
	/* too big to echo within limit: the question form instead */
	assert_int_equal(msg_error_reply(buf, 40, &qi, RCODE_FORMERR, 1232),
		33);

	/* NOTIMPL echo keeps the opcode */
	pkt[2] = 0x29; /* UPDATE, RD */
	pkt[3] = 0;
	assert_int_equal(query_parse(pkt, plen, &qi), PARSE_NOTIMPL);
	len = msg_error_reply(buf, sizeof(buf), &qi, RCODE_NOTIMPL, 1232);
	assert_int_equal(len, plen);
	assert_int_equal(buf[2], 0xa9);
	assert_int_equal(buf[3], 0x04);

	/* NOTIFY: REFUSED with the question, opcode kept, OPT echoed */
	pkt[2] = 0x20;
	assert_int_equal(query_parse(pkt, plen, &qi), PARSE_REFUSED);
	len = msg_error_reply(buf, sizeof(buf), &qi, RCODE_REFUSED, 1232);
	assert_int_equal(len, 44);
	assert_memory_equal(buf, "\x12\x34\xa0\x85\0\1\0\0\0\0\0\1", 12);
	assert_int_equal(buf[40], 0x80); /* DO */

	/* access-control refuse: header only, flags kept */
	pkt[2] = 0x05; /* AA, RD */
	pkt[3] = 0x10; /* CD */
	assert_int_equal(query_parse(pkt, plen, &qi), PARSE_OK);
	assert_int_equal(msg_refuse_reply(buf, sizeof(buf), &qi), 12);
	assert_memory_equal(buf, "\x12\x34\x85\x15\0\0\0\0\0\0\0\0", 12);
}

/* RFC 8914: the EDE option in the OPT of a SERVFAIL; none without
 * EDNS; the text cut to the limit. */
static void test_error_reply_ede(void** state)
{
	struct query_info qi;
	uint8_t buf[512];
	size_t len;
	(void)state;
	mk_query(&qi, "www.example.com", TYPE_A, FLAG_RD);
	qi.has_edns = 1;
	len = msg_error_reply_ede(buf, sizeof(buf), &qi, RCODE_SERVFAIL,
		1232, 6, "bad");
	/* header, question (21+4), OPT (11), option 4+2+3 */
	assert_int_equal(len, 12 + 21 + 11 + 9);
	assert_memory_equal(buf + 2, "\x81\x82\0\1\0\0\0\0\0\1", 10);
	assert_memory_equal(buf + 33, "\0\0\x29\x04\xd0\0\0\0\0\0\x09"
		"\0\x0f\0\x05\0\x06" "bad", 20);
	/* no text */
	len = msg_error_reply_ede(buf, sizeof(buf), &qi, RCODE_SERVFAIL,
		1232, 9, "");
	assert_int_equal(len, 12 + 21 + 11 + 6);
	assert_memory_equal(buf + 42, "\0\x06\0\x0f\0\x02\0\x09", 8);
	/* cut to the limit */
	len = msg_error_reply_ede(buf, 12 + 21 + 11 + 6 + 2, &qi,
		RCODE_SERVFAIL, 1232, 6, "a long reason");
	assert_int_equal(len, 12 + 21 + 11 + 8);
	assert_memory_equal(buf + 50, "a ", 2);
	/* no EDNS in the query: no OPT, no option */
	qi.has_edns = 0;
	len = msg_error_reply_ede(buf, sizeof(buf), &qi, RCODE_SERVFAIL,
		1232, 6, "bad");
	assert_int_equal(len, 33);
	assert_int_equal(buf[11], 0);
	/* access-control refuse with ede: the query's flags (CD, no RA),
	 * the question and EDE 18; without EDNS the header only */
	mk_query(&qi, "www.example.com", TYPE_A, FLAG_RD | FLAG_CD);
	qi.has_edns = 1;
	len = msg_refuse_reply_ede(buf, sizeof(buf), &qi, 1232, 18);
	assert_int_equal(len, 12 + 21 + 11 + 6);
	assert_memory_equal(buf, "\xbe\xef\x81\x15\0\1\0\0\0\0\0\1", 12);
	assert_memory_equal(buf + 44, "\0\x0f\0\x02\0\x12", 6);
	qi.has_edns = 0;
	len = msg_refuse_reply_ede(buf, sizeof(buf), &qi, 1232, 18);
	assert_int_equal(len, 12);
	assert_memory_equal(buf, "\xbe\xef\x81\x15\0\0\0\0\0\0\0\0", 12);
}

static void test_error_reply_from_parse(void** state)
{
	/* An EDNS-stage FORMERR: question plus an OPT without DO. */
	uint8_t pkt[64], buf[512];
	struct query_info qi;
	size_t plen = 12 + 21 + 16, len;
	(void)state;
	memcpy(pkt, "\x12\x34\x01\0\0\1\0\0\0\0\0\1"
		"\3www\7example\3com\0\0\1\0\1"
		"\xc0\x0c\0\1\0\1\0\0\0\x3c\0\4\x7f\0\0\1", plen);
	assert_int_equal(query_parse(pkt, plen, &qi), PARSE_FORMERR);
	len = msg_error_reply(buf, sizeof(buf), &qi, RCODE_FORMERR, 1232);
	assert_int_equal(len, 44);
	assert_memory_equal(buf, "\x12\x34\x81\x81\0\1\0\0\0\0\0\1", 12);
	assert_memory_equal(buf + 33, "\0\0\x29\x04\xd0\0\0\0\0\0\0", 11);
	/* AXFR: REFUSED echo */
	pkt[11] = 0;
	pkt[30] = 252;
	assert_int_equal(query_parse(pkt, 33, &qi), PARSE_OK);
	assert_int_equal(msg_error_reply(buf, sizeof(buf), &qi, RCODE_REFUSED,
		1232), 33);
	assert_memory_equal(buf, "\x12\x34\x81\x05\0\1\0\0\0\0\0\0", 12);
}

/* Many records: pointers only reach 16383, later names stay literal, and
 * a second parse reads everything back. */
static void test_large_tcp(void** state)
{
	const char* rrs[MAXRR];
	char store[MAXRR][100];
	struct t_rrset* s = malloc(sizeof(*s) * 12);
	struct query_info qi;
	struct msg_builder b;
	static uint8_t buf[65535];
	size_t len, i, j, total = 0;
	ldns_pkt* p;
	(void)state;
	assert_non_null(s);
	mk_query(&qi, "big.example", TYPE_TXT, 0);
	for(j = 0; j < 12; j++) {
		for(i = 0; i < MAXRR; i++) {
			snprintf(store[i], sizeof(store[i]), "n%d.big.example. 5 IN "
				"TXT \"%060d\"", (int)j, (int)i);
			rrs[i] = store[i];
		}
		mk_rrset(&s[j], rrs, MAXRR);
	}
	msg_begin(&b, buf, 65535, &qi, 0, 0);
	for(j = 0; j < 12; j++) {
		assert_true(msg_add_rrset(&b, SEC_ANSWER, &s[j].r));
		total += MAXRR;
	}
	len = msg_finish(&b, &qi, 0, 0);
	assert_true(len > 0x4000);
	p = read_back(buf, len);
	assert_int_equal(ldns_pkt_ancount(p), total);
	for(j = 0; j < 12; j++) {
		char want[40];
		char* o = ldns_rdf2str(ldns_rr_owner(ldns_rr_list_rr(
			ldns_pkt_answer(p), j * MAXRR + MAXRR - 1)));
		snprintf(want, sizeof(want), "n%d.big.example.", (int)j);
		assert_string_equal(o, want);
		free(o);
	}
	ldns_pkt_free(p);
	free(s);
}

/* Random RRsets of names into random limits: ldns must always read the
 * result, and the counts must match what was accepted. */
static void test_random_names(void** state)
{
	static const char* labels[] = { "a", "B", "example", "com", "ns1",
		"Mail", "x", "org" };
	uint32_t x = 99;
	int round;
	(void)state;
	for(round = 0; round < 300; round++) {
		struct query_info qi;
		struct msg_builder b;
		struct t_rrset s;
		uint8_t buf[2048];
		char names[6][256];
		const char* rrs[6];
		size_t len, i, added[3] = { 0, 0, 0 };
		int sec;
		ldns_pkt* p;
		mk_query(&qi, "b.example.com", TYPE_A, 0);
		msg_begin(&b, buf, 512 + (x % 1500), &qi, 0, 0);
		for(sec = 0; sec < 3; sec++) {
			int k, nrr = 1 + (int)(x % 5);
			char owner[100] = "";
			uint16_t types[] = { TYPE_NS, TYPE_MX, TYPE_SRV, TYPE_CNAME };
			uint16_t t;
			for(k = 0; k < 1 + (int)(x % 4); k++) {
				x = x * 1103515245u + 12345u;
				strcat(owner, labels[(x >> 16) % 8]);
				strcat(owner, ".");
			}
			t = types[(x >> 20) % 4];
			if(t == TYPE_CNAME)
				nrr = 1;
			for(i = 0; i < (size_t)nrr; i++) {
				char target[100] = "";
				for(k = 0; k < 1 + (int)((x >> 8) % 4); k++) {
					x = x * 1103515245u + 12345u;
					strcat(target, labels[(x >> 16) % 8]);
					strcat(target, ".");
				}
				snprintf(names[i], sizeof(names[i]), "%s 60 IN %s %s%s",
					owner, t == TYPE_NS ? "NS" : t == TYPE_MX ? "MX" :
					t == TYPE_SRV ? "SRV" : "CNAME",
					t == TYPE_MX ? "5 " : t == TYPE_SRV ? "1 2 3 " : "",
					target);
				rrs[i] = names[i];
			}
			mk_rrset(&s, rrs, (size_t)nrr);
			if(msg_add_rrset(&b, (enum msg_section)sec, &s.r))
				added[sec] += (size_t)nrr;
			x = x * 1103515245u + 12345u;
		}
		len = msg_finish(&b, &qi, 1232, 0);
		assert_true(len <= b.limit);
		p = read_back(buf, len);
		assert_int_equal(ldns_pkt_ancount(p), added[0]);
		assert_int_equal(ldns_pkt_nscount(p), added[1]);
		assert_int_equal(ldns_pkt_arcount(p), added[2]);
		ldns_pkt_free(p);
	}
}

/* closed_sets: the NS set's names are no compression targets (glue
 * owners point before it, into the question) and its RRs point only
 * before it; rotate: RRs start at rot_off mod count, RRSIGs and single
 * records as they are. */
static void test_closed_sets_and_rotation(void** state)
{
	static const char* const ns[] = {
		"example.com. 300 IN NS ns1.example.com.",
		"example.com. 300 IN NS ns2.example.com.",
		"example.com. 300 IN NS ns3.example.com." };
	static const char* const glue[] = {
		"ns1.example.com. 300 IN A 192.0.2.53" };
	struct query_info qi;
	struct msg_builder b;
	struct t_rrset s1, s2;
	uint8_t buf[1024];
	size_t len, i, set_start, set_end, pos;
	ldns_pkt* p;
	uint32_t off;
	(void)state;
	mk_query(&qi, "example.com", TYPE_NS, 0);
	mk_rrset(&s1, ns, 3);
	mk_rrset(&s2, glue, 1);
	for(off = 0; off < 4; off++) {
		const char* const want[] = { ns[off % 3], ns[(off + 1) % 3],
			ns[(off + 2) % 3] };
		msg_begin(&b, buf, sizeof(buf), &qi, 0, 0);
		b.closed_sets = 1;
		b.rotate = off > 0;
		b.rot_off = off;
		set_start = b.len;
		assert_true(msg_add_rrset(&b, SEC_ANSWER, &s1.r));
		set_end = b.len;
		assert_true(msg_add_rrset(&b, SEC_ADDITIONAL, &s2.r));
		len = msg_finish(&b, &qi, 1232, 0);
		/* the pointers in the NS set (no TTL or length byte here
		 * looks like one) and the glue owner's point before it */
		for(pos = set_start; pos < set_end; pos++)
			if((buf[pos] & 0xc0) == 0xc0)
				assert_true((size_t)(((buf[pos] & 0x3f) << 8) |
					buf[pos + 1]) < set_start);
		assert_memory_equal(buf + set_end, "\3ns1\xc0", 5);
		assert_true(buf[set_end + 5] < set_start);
		p = read_back(buf, len);
		if(off == 0) {
			check_section(ldns_pkt_answer(p), ns, 3);
		} else
			check_section(ldns_pkt_answer(p), want, 3);
		check_section(ldns_pkt_additional(p), glue, 1);
		for(i = 0; i < 3; i++)
			assert_int_equal(ldns_rr_get_type(ldns_rr_list_rr(
				ldns_pkt_answer(p), i)), LDNS_RR_TYPE_NS);
		ldns_pkt_free(p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compression_bytes),
		cmocka_unit_test(test_error_reply_ede),
		cmocka_unit_test(test_longest_suffix),
		cmocka_unit_test(test_rdata_compression),
		cmocka_unit_test(test_closed_sets_and_rotation),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_opt_and_flags),
		cmocka_unit_test(test_error_replies),
		cmocka_unit_test(test_error_reply_from_parse),
		cmocka_unit_test(test_large_tcp),
		cmocka_unit_test(test_random_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
