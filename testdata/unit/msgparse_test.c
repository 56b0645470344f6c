/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/msgparse_test.c - dname helpers and query_parse: a table
 * of malformed packets with the result Unbound 1.17 gives (checked on
 * loopback against the real daemon), and well-formed queries. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include <stdio.h>
#include "util/dname.h"
#include "util/msgparse.h"

/* ---- dname ---- */

static void test_dname_from_to_str(void** state)
{
	uint8_t w[256];
	char s[1024];
	(void)state;
	assert_int_equal(dname_from_str("www.Example.com.", w), 17);
	assert_memory_equal(w, "\3www\7Example\3com", 17);
	assert_int_equal(dname_from_str("www.example.com", w), 17);
	assert_int_equal(dname_from_str(".", w), 1);
	assert_int_equal(w[0], 0);
	assert_int_equal(dname_from_str("", w), 0);
	assert_int_equal(dname_from_str("a..b", w), 0);
	assert_int_equal(dname_from_str("..", w), 0);
	assert_int_equal(dname_from_str("a\\.b.c", w), 7);
	assert_memory_equal(w, "\3a.b\1c", 7);
	assert_int_equal(dname_from_str("\\065\\032x.", w), 5);
	assert_memory_equal(w, "\3A x", 5);
	assert_int_equal(dname_from_str("\\256.", w), 0);
	/* label of 63 is fine, 64 is not */
	{
		char lab[80];
		memset(lab, 'a', 64);
		lab[63] = 0;
		assert_int_equal(dname_from_str(lab, w), 65);
		memset(lab, 'a', 64);
		lab[64] = 0;
		assert_int_equal(dname_from_str(lab, w), 0);
	}
	/* 255 total is the maximum: 4 labels of 63 = 256 + root = 257 */
	{
		char n[300];
		int i;
		for(i = 0; i < 4; i++) {
			memset(n + i * 64, 'a', 63);
			n[i * 64 + 63] = '.';
		}
		n[255] = 0;
		assert_int_equal(dname_from_str(n, w), 0);
		n[4 * 64 - 3] = '.'; /* last label 61: total 255 */
		n[4 * 64 - 2] = 0;
		assert_int_equal(dname_from_str(n, w), 255);
	}
	dname_from_str("www.Example.com", w);
	dname_to_str(w, s, sizeof(s));
	assert_string_equal(s, "www.Example.com.");
	dname_to_str((const uint8_t*)"", s, sizeof(s));
	assert_string_equal(s, ".");
	dname_to_str((const uint8_t*)"\3a.b\2\001 \0", s, sizeof(s));
	assert_string_equal(s, "a\\.b.\\001\\032.");
	dname_to_str((const uint8_t*)"\3abc\0", s, 3);
	assert_string_equal(s, "ab");
}

static void test_dname_compare_hash(void** state)
{
	const uint8_t* a = (const uint8_t*)"\3WwW\7exAMPLE\3com";
	const uint8_t* b = (const uint8_t*)"\3www\7example\3COM";
	const uint8_t* c = (const uint8_t*)"\3www\7example\3org";
	const uint8_t* d = (const uint8_t*)"\7example\3com";
	uint8_t x[256];
	int i;
	(void)state;
	assert_int_equal(query_dname_compare(a, b), 0);
	assert_int_not_equal(query_dname_compare(a, c), 0);
	assert_int_not_equal(query_dname_compare(a, d), 0);
	assert_int_equal(query_dname_compare((const uint8_t*)"",
		(const uint8_t*)""), 0);
	/* '[' and '{' differ only in bit 0x20 but are not letters */
	assert_int_not_equal(query_dname_compare((const uint8_t*)"\1[",
		(const uint8_t*)"\1{"), 0);
	assert_int_equal(dname_hash(a, 7), dname_hash(b, 7));
	assert_int_not_equal(dname_hash(a, 7), dname_hash(c, 7));
	assert_int_not_equal(dname_hash(a, 7), dname_hash(a, 8));
	memcpy(x, a, 17);
	dname_tolower(x);
	assert_memory_equal(x, "\3www\7example\3com", 17);
	/* every byte: only A-Z change */
	for(i = 1; i < 256; i++) {
		uint8_t n[3] = { 1, (uint8_t)i, 0 };
		dname_tolower(n);
		assert_int_equal(n[1], (i >= 'A' && i <= 'Z') ? i + 32 : i);
	}
	assert_int_equal(dname_count_labels((const uint8_t*)""), 1);
	assert_int_equal(dname_count_labels(a), 4);
	assert_true(dname_subdomain_c(a, d));
	assert_true(dname_subdomain_c(a, a));
	assert_true(dname_subdomain_c(a, (const uint8_t*)""));
	assert_false(dname_subdomain_c(d, a));
	assert_false(dname_subdomain_c(c, d));
	assert_false(dname_subdomain_c((const uint8_t*)"", a));
	assert_true(dname_subdomain_c((const uint8_t*)"",
		(const uint8_t*)""));
	/* any case, names longer than a word */
	assert_true(dname_subdomain_c((const uint8_t*)
		"HostSubZone1EXAMPLECom",
		(const uint8_t*)"subzone1exampleCOM"));
	assert_false(dname_subdomain_c((const uint8_t*)
		"hostsubzone1examplecom",
		(const uint8_t*)"subzone2examplecom"));
	/* the suffix must start at a label: xa.b. is not below a.b., nor
	 * abc.b. below bc.b. (their last bytes agree) */
	assert_false(dname_subdomain_c((const uint8_t*)"xab",
		(const uint8_t*)"ab"));
	assert_false(dname_subdomain_c((const uint8_t*)"abcb",
		(const uint8_t*)"bcb"));
	/* a label length byte is no letter: \001a.b. vs A\001.b. */
	assert_false(dname_subdomain_c((const uint8_t*)"ab",
		(const uint8_t*)"ab"));
	/* dname_same: n bytes (19: two words and a tail), any case */
	assert_true(dname_same((const uint8_t*)"\4Host\10SubZone1\3com",
		(const uint8_t*)"\4host\10subzone1\3COM", 19));
	assert_false(dname_same((const uint8_t*)"\4host\10subzone1\3com",
		(const uint8_t*)"\4host\10subzone2\3com", 19));
	assert_false(dname_same((const uint8_t*)"\4host\10subzone1\3com",
		(const uint8_t*)"\4host\10subzone1\3cox", 19));
	assert_true(dname_same((const uint8_t*)"\1a", (const uint8_t*)"\1A",
		3));
	assert_false(dname_same((const uint8_t*)"\1[", (const uint8_t*)"\1{",
		3));
	assert_true(dname_same((const uint8_t*)"", (const uint8_t*)"", 1));
	assert_ptr_equal(dname_remove_label(a), a + 4);
	assert_ptr_equal(dname_remove_label((const uint8_t*)""),
		(const uint8_t*)"");
	assert_int_equal(dname_valid(a, 17), 17);
	assert_int_equal(dname_valid(a, 16), 0);
	assert_int_equal(dname_valid((const uint8_t*)"\xc0\x0c", 2), 0);
	assert_int_equal(dname_valid((const uint8_t*)"\x40", 80), 0);
}

/* The word-at-a-time paths: every byte value at every offset of a long
 * label, against a plain per-byte reference. */
/* dname_key_hash writes dname_key's key and gives dname_hash's value,
 * for names of every length class (tails of 0 to 7 bytes, whole words,
 * bytes with the top bit set, the root). */
static void test_dname_key_hash(void** state)
{
	uint8_t name[256], k1[260], k2[260];
	size_t labs, len, i, j;
	uint32_t h;
	(void)state;
	for(labs = 0; labs < 40; labs++) {
		len = 0;
		for(i = 0; i < labs && len + 1 + (i % 7) + 2 < 255; i++) {
			name[len++] = (uint8_t)(i % 7 + 1);
			for(j = 0; j < i % 7 + 1; j++)
				name[len++] = (uint8_t)("AbZ\x80q@[{Y"[
					(i + j) % 10]);
		}
		name[len++] = 0;
		assert_int_equal(dname_key_hash(k1, name, len, 28, 1, 99, &h),
			len + 4);
		assert_int_equal(dname_key(k2, name, len, 28, 1), len + 4);
		assert_memory_equal(k1, k2, len + 4);
		assert_int_equal(h, dname_hash(name, 99));
		assert_int_equal(h, dname_hash(k2, 99));
		/* every byte counts, the tail's too (read there as one word
		 * that ends with the name), and no byte after the name */
		for(i = 0; i + 1 < len; i++) {
			uint8_t keep = name[i];
			if(keep == 0 || keep > 63) {
				name[i] = keep == 'q' ? 'r' : 'q';
				assert_int_not_equal(dname_hash(name, 99), h);
				name[i] = keep;
			}
		}
		name[len] = 'x';
		assert_int_equal(dname_hash(name, 99), h);
	}
}

static void test_dname_swar(void** state)
{
	int v, pos;
	(void)state;
	for(v = 0; v < 256; v++) {
		for(pos = 0; pos < 20; pos++) {
			uint8_t a[40], b[40], c[40];
			int i, want = (v >= 'A' && v <= 'Z') ? v + 32 : v;
			a[0] = 20;
			for(i = 0; i < 20; i++)
				a[1 + i] = (uint8_t)('a' + i % 26);
			a[1 + pos] = (uint8_t)v;
			a[21] = 2;
			a[22] = 'N';
			a[23] = 'l';
			a[24] = 0;
			memcpy(b, a, 25);
			memcpy(c, a, 25);
			dname_tolower(b);
			assert_int_equal(b[1 + pos], want);
			{
				/* in words: the same bytes, the zeroes after
				 * the name up to a word's end stay zero */
				uint8_t d[32];
				memset(d, 0, sizeof(d));
				memcpy(d, a, 25);
				dname_tolower_words(d, 25);
				assert_memory_equal(d, b, 25);
				for(i = 25; i < 32; i++)
					assert_int_equal(d[i], 0);
			}
			assert_int_equal(b[22], 'n');
			assert_int_equal(query_dname_compare(a, b), 0);
			assert_int_equal(dname_hash(a, 3), dname_hash(b, 3));
			/* a different byte at pos is a different name, unless the
			 * two only differ in case */
			c[1 + pos] = (uint8_t)(v ^ 0x20);
			if((v | 0x20) >= 'a' && (v | 0x20) <= 'z')
				assert_int_equal(query_dname_compare(a, c), 0);
			else {
				assert_int_not_equal(query_dname_compare(a, c), 0);
				assert_true((query_dname_compare(a, c) < 0) ==
					(query_dname_compare(c, a) > 0));
			}
		}
	}
	/* prefix-shaped names: different lengths never compare equal */
	assert_int_not_equal(query_dname_compare((const uint8_t*)"\1a",
		(const uint8_t*)"\1a\1b"), 0);
	assert_int_not_equal(query_dname_compare(
		(const uint8_t*)"\10abcdefgh\1x", (const uint8_t*)"\10ABCDEFGH"), 0);
}

static void test_dname_read_wire(void** state)
{
	uint8_t out[256];
	size_t pos;
	/* header-like filler, then names at 12 */
	uint8_t pkt[64] = { 0 };
	(void)state;
	memcpy(pkt + 12, "\3www\7example\3com\0", 17);
	/* at 29: "\4mail" + ptr to 16 (example.com) */
	memcpy(pkt + 29, "\4mail\xc0\x10", 7);
	pos = 29;
	assert_int_equal(dname_read_wire(pkt, 36, &pos, out), 18);
	assert_memory_equal(out, "\4mail\7example\3com", 18);
	assert_int_equal(pos, 36);
	/* pointer past end */
	memcpy(pkt + 36, "\xc0\x3f", 2);
	pos = 36;
	assert_int_equal(dname_read_wire(pkt, 38, &pos, out), 0);
	/* pointer to itself */
	memcpy(pkt + 36, "\xc0\x24", 2);
	pos = 36;
	assert_int_equal(dname_read_wire(pkt, 38, &pos, out), 0);
	/* forward pointer (to 40, a valid name) */
	memcpy(pkt + 36, "\xc0\x28\0\0\0", 5);
	pos = 36;
	assert_int_equal(dname_read_wire(pkt, 41, &pos, out), 0);
	/* loop: 36 -> 12's name, whose end we make point back to 36?
	 * impossible with backward-only; a two-pointer loop: 40 -> 38,
	 * 38 -> 40 */
	memcpy(pkt + 38, "\xc0\x28\xc0\x26", 4);
	pos = 40;
	assert_int_equal(dname_read_wire(pkt, 42, &pos, out), 0);
	/* pointer into the middle of the same name, before the pointer */
	memcpy(pkt + 44, "\1a\1b\xc0\x2c", 6);
	pos = 44;
	assert_int_equal(dname_read_wire(pkt, 50, &pos, out), 0);
	/* truncated label, truncated pointer */
	pos = 12;
	assert_int_equal(dname_read_wire(pkt, 20, &pos, out), 0);
	memcpy(pkt + 36, "\xc0", 1);
	pos = 36;
	assert_int_equal(dname_read_wire(pkt, 37, &pos, out), 0);
	/* label types 01 and 10 */
	memcpy(pkt + 36, "\x41x\0", 3);
	pos = 36;
	assert_int_equal(dname_read_wire(pkt, 39, &pos, out), 0);
	memcpy(pkt + 36, "\x81x\0", 3);
	pos = 36;
	assert_int_equal(dname_read_wire(pkt, 39, &pos, out), 0);
	/* root */
	pkt[36] = 0;
	pos = 36;
	assert_int_equal(dname_read_wire(pkt, 37, &pos, out), 1);
	assert_int_equal(pos, 37);
}

static void test_dname_read_wire_long(void** state)
{
	uint8_t pkt[600], out[256];
	size_t pos, i;
	(void)state;
	/* 4 labels of 63 directly: 257 > 255 */
	for(i = 0; i < 4; i++) {
		pkt[i * 64] = 63;
		memset(pkt + i * 64 + 1, 'a', 63);
	}
	pkt[256] = 0;
	pos = 0;
	assert_int_equal(dname_read_wire(pkt, 257, &pos, out), 0);
	/* too long through a pointer: 2x63 labels at 300 pointing back at
	 * the 2-label name at 128 */
	pkt[128 + 128] = 0; /* name at 128: 2 labels of 63 = 129 bytes */
	for(i = 0; i < 2; i++)
		pkt[300 + i * 64] = 63, memset(pkt + 301 + i * 64, 'b', 63);
	pkt[428] = 0xc0;
	pkt[429] = 128;
	pos = 300;
	assert_int_equal(dname_read_wire(pkt, 430, &pos, out), 0);
	pos = 364; /* one label + 129 = 193: fine */
	assert_int_equal(dname_read_wire(pkt, 430, &pos, out), 193);
	assert_int_equal(pos, 430);
}

/* ---- query_parse ---- */

static size_t hdr(uint8_t* p, uint16_t flags, int qd, int an, int ns,
	int ar)
{
	p[0] = 0x12;
	p[1] = 0x34;
	p[2] = (uint8_t)(flags >> 8);
	p[3] = (uint8_t)flags;
	p[4] = 0; p[5] = (uint8_t)qd;
	p[6] = 0; p[7] = (uint8_t)an;
	p[8] = 0; p[9] = (uint8_t)ns;
	p[10] = 0; p[11] = (uint8_t)ar;
	return 12;
}

#define Q_WWW "\3www\7example\3com\0\0\1\0\1"
#define Q_WWW_LEN 21
/* OPT: root, type 41, class 4096, ttl ext 0 ver 0 DO, rdlen 0 */
#define OPT_DO "\0\0\x29\x10\0\0\0\x80\0\0\0"
#define RR_A "\xc0\x0c\0\1\0\1\0\0\0\x3c\0\4\x7f\0\0\1"

static size_t build(uint8_t* p, uint16_t flags, int qd, int an, int ns,
	int ar, const char* body, size_t blen)
{
	size_t n = hdr(p, flags, qd, an, ns, ar);
	memcpy(p + n, body, blen);
	return n + blen;
}

struct bad_case {
	const char* name;
	uint16_t flags;
	int qd, an, ns, ar;
	const char* body;
	size_t blen;
	enum parse_result want;
	int echo;       /* expected echo_rcode */
	int has_q;      /* expect the question to be read */
};

#define B(s) s, sizeof(s) - 1
static const struct bad_case bad_cases[] = {
	{ "QR set", 0x8100, 1, 0, 0, 0, B(Q_WWW), PARSE_DROP, 0, 0 },
	{ "TC set", 0x0300, 1, 0, 0, 0, B(Q_WWW), PARSE_FORMERR,
		RCODE_FORMERR, 1 },
	{ "qdcount 0", 0x0100, 0, 0, 0, 0, B(""), PARSE_FORMERR,
		RCODE_FORMERR, 0 },
	{ "qdcount 0 with question", 0x0100, 0, 0, 0, 0, B(Q_WWW),
		PARSE_FORMERR, RCODE_FORMERR, 0 },
	{ "qdcount 2", 0x0100, 2, 0, 0, 0, B(Q_WWW Q_WWW), PARSE_FORMERR,
		RCODE_FORMERR, 1 },
	{ "ancount 1", 0x0100, 1, 1, 0, 0, B(Q_WWW RR_A), PARSE_FORMERR,
		RCODE_FORMERR, 1 },
	{ "nscount 1", 0x0100, 1, 0, 1, 0, B(Q_WWW RR_A), PARSE_FORMERR,
		RCODE_FORMERR, 1 },
	{ "arcount 2 (two OPTs)", 0x0100, 1, 0, 0, 2, B(Q_WWW OPT_DO OPT_DO),
		PARSE_FORMERR, RCODE_FORMERR, 1 },
	{ "header only", 0x0100, 1, 0, 0, 0, B(""), PARSE_FORMERR,
		RCODE_FORMERR, 0 },
	{ "label > 63", 0x0100, 1, 0, 0, 0,
		B("\x40" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		"\0\0\1\0\1"), PARSE_FORMERR, RCODE_FORMERR, 0 },
	{ "label type 01", 0x0100, 1, 0, 0, 0, B("\x41" "abc\0\0\1\0\1"),
		PARSE_FORMERR, RCODE_FORMERR, 0 },
	{ "compressed qname", 0x0100, 1, 0, 0, 0,
		B("\3www\xc0\x04\0\1\0\1"), PARSE_FORMERR, RCODE_FORMERR, 0 },
	{ "qname pointer loop", 0x0100, 1, 0, 0, 0, B("\xc0\x0c\0\1\0\1"),
		PARSE_FORMERR, RCODE_FORMERR, 0 },
	{ "truncated qname", 0x0100, 1, 0, 0, 0, B("\3www\7exa"),
		PARSE_FORMERR, RCODE_FORMERR, 0 },
	{ "missing qtype", 0x0100, 1, 0, 0, 0, B("\3www\7example\3com\0\0"),
		PARSE_FORMERR, RCODE_FORMERR, 0 },
	{ "opcode IQUERY", 0x0800, 1, 0, 0, 0, B(Q_WWW), PARSE_NOTIMPL,
		RCODE_NOTIMPL, 1 },
	{ "opcode STATUS", 0x1000, 1, 0, 0, 0, B(Q_WWW), PARSE_NOTIMPL,
		RCODE_NOTIMPL, 1 },
	{ "opcode UPDATE", 0x2800, 1, 0, 0, 0, B(Q_WWW), PARSE_NOTIMPL,
		RCODE_NOTIMPL, 1 },
	{ "opcode 15", 0x7800, 1, 0, 0, 0, B(Q_WWW), PARSE_NOTIMPL,
		RCODE_NOTIMPL, 1 },
	{ "opcode STATUS qdcount 0", 0x1000, 0, 0, 0, 0, B(""),
		PARSE_NOTIMPL, RCODE_NOTIMPL, 0 },
	{ "opcode NOTIFY", 0x2000, 1, 0, 0, 0, B(Q_WWW), PARSE_REFUSED, 0, 1 },
	{ "opcode NOTIFY with SOA answer", 0x2000, 1, 1, 0, 0,
		B(Q_WWW RR_A), PARSE_REFUSED, 0, 1 },
	{ "NOTIFY answer truncated", 0x2000, 1, 1, 0, 0,
		B(Q_WWW "\xc0\x0c\0\1\0\1\0\0\0\x3c\0\4\x7f"), PARSE_FORMERR, 0, 1 },
	{ "NOTIFY ancount 2", 0x2000, 1, 2, 0, 0, B(Q_WWW RR_A RR_A),
		PARSE_FORMERR, RCODE_FORMERR, 1 },
	{ "additional A record", 0x0100, 1, 0, 0, 1, B(Q_WWW RR_A),
		PARSE_FORMERR, 0, 1 },
	{ "arcount 1, nothing there", 0x0100, 1, 0, 0, 1, B(Q_WWW),
		PARSE_FORMERR, 0, 1 },
	{ "truncated OPT", 0x0100, 1, 0, 0, 1, B(Q_WWW "\0\0\x29\x10\0\0"),
		PARSE_FORMERR, 0, 1 },
	{ "OPT rdata past end", 0x0100, 1, 0, 0, 1,
		B(Q_WWW "\0\0\x29\x10\0\0\0\x80\0\0\x08\0\x0a\0\x04"),
		PARSE_FORMERR, 0, 1 },
	{ "OPT non-root owner", 0x0100, 1, 0, 0, 1,
		B(Q_WWW "\1a\0\0\x29\x10\0\0\0\x80\0\0\0"), PARSE_FORMERR, 0, 1 },
	{ "OPT owner pointer to a name", 0x0100, 1, 0, 0, 1,
		B(Q_WWW "\xc0\x0c\0\x29\x10\0\0\0\x80\0\0\0"), PARSE_FORMERR, 0, 1 },
	{ "OPT owner forward pointer", 0x0100, 1, 0, 0, 1,
		B(Q_WWW "\xc0\x23\0\x29\x10\0\0\0\x80\0\0\0\0"), PARSE_FORMERR, 0, 1 },
	{ "OPT owner pointer loop (to itself)", 0x0100, 1, 0, 0, 1,
		B(Q_WWW "\xc0\x21\0\x29\x10\0\0\0\x80\0\0\0"), PARSE_FORMERR, 0, 1 },
	{ "OPT owner pointer past end", 0x0100, 1, 0, 0, 1,
		B(Q_WWW "\xc1\x00\0\x29\x10\0\0\0\x80\0\0\0"), PARSE_FORMERR, 0, 1 },
	{ "EDNS version 1", 0x0100, 1, 0, 0, 1,
		B(Q_WWW "\0\0\x29\x10\0\0\1\x80\0\0\0"), PARSE_BADVERS, 0, 1 },
	{ "EDNS version 1 NOTIFY", 0x2000, 1, 0, 0, 1,
		B(Q_WWW "\0\0\x29\x10\0\0\1\x80\0\0\0"), PARSE_BADVERS, 0, 1 },
};

static void test_bad_packets(void** state)
{
	size_t i;
	(void)state;
	for(i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case* c = &bad_cases[i];
		uint8_t pkt[600];
		struct query_info qi;
		size_t len = build(pkt, c->flags, c->qd, c->an, c->ns, c->ar,
			c->body, c->blen);
		enum parse_result r = query_parse(pkt, len, &qi);
		if(r != c->want || (r != PARSE_DROP &&
			(qi.echo_rcode != c->echo ||
			(qi.qname_len != 0) != c->has_q))) {
			print_error("case '%s': result %d want %d, echo %d want"
				" %d, qname_len %d\n", c->name, (int)r,
				(int)c->want, qi.echo_rcode, c->echo,
				(int)qi.qname_len);
			fail();
		}
		if(r != PARSE_DROP) {
			assert_int_equal(qi.id, 0x1234);
			assert_int_equal(qi.flags, c->flags);
		}
		/* every prefix of a bad packet must parse without harm */
		while(len > 0)
			(void)query_parse(pkt, --len, &qi);
	}
}

static void test_short_packets(void** state)
{
	uint8_t pkt[12] = { 0 };
	struct query_info qi;
	size_t i;
	(void)state;
	for(i = 0; i < 12; i++)
		assert_int_equal(query_parse(pkt, i, &qi), PARSE_DROP);
	assert_int_equal(query_parse(NULL, 0, &qi), PARSE_DROP);
}

static void test_name_256(void** state)
{
	uint8_t pkt[600];
	struct query_info qi;
	size_t n = hdr(pkt, 0x0100, 1, 0, 0, 0), i;
	(void)state;
	for(i = 0; i < 4; i++) {
		pkt[n++] = 63;
		memset(pkt + n, 'a', 63);
		n += 63;
	}
	memcpy(pkt + n, "\0\0\1\0\1", 5);
	n += 5;
	assert_int_equal(query_parse(pkt, n, &qi), PARSE_FORMERR);
	assert_int_equal(qi.qname_len, 0);
	/* 255 exactly: last label 61 */
	n = 12 + 3 * 64;
	pkt[n++] = 61;
	memset(pkt + n, 'a', 61);
	n += 61;
	memcpy(pkt + n, "\0\0\1\0\1", 5);
	n += 5;
	assert_int_equal(query_parse(pkt, n, &qi), PARSE_OK);
	assert_int_equal(qi.qname_len, 255);
}

static void test_good_plain(void** state)
{
	uint8_t pkt[100];
	struct query_info qi;
	size_t len = build(pkt, 0x0110, 1, 0, 0, 0,
		B("\3WwW\7example\3com\0\0\x1c\0\1"));
	(void)state;
	assert_int_equal(query_parse(pkt, len, &qi), PARSE_OK);
	assert_int_equal(qi.id, 0x1234);
	assert_int_equal(qi.flags, 0x0110);
	assert_int_equal(qi.qname_len, 17);
	assert_memory_equal(qi.qname, "\3WwW\7example\3com", 17); /* case kept */
	assert_int_equal(qi.qtype, TYPE_AAAA);
	assert_int_equal(qi.qclass, CLASS_IN);
	assert_false(qi.has_edns);
	assert_int_equal(qi.question_end, len);
	assert_int_equal(qi.echo_rcode, 0);
	assert_ptr_equal(qi.pkt, pkt);
	assert_int_equal(qi.pkt_len, len);
	/* trailing garbage is ignored */
	memcpy(pkt + len, "junk", 4);
	assert_int_equal(query_parse(pkt, len + 4, &qi), PARSE_OK);
	assert_int_equal(qi.question_end, len);
	/* root qname */
	len = build(pkt, 0, 1, 0, 0, 0, B("\0\0\2\0\1"));
	assert_int_equal(query_parse(pkt, len, &qi), PARSE_OK);
	assert_int_equal(qi.qname_len, 1);
	assert_int_equal(qi.qtype, TYPE_NS);
}

static void test_good_edns(void** state)
{
	uint8_t pkt[100];
	struct query_info qi;
	size_t len;
	(void)state;
	len = build(pkt, 0x0100, 1, 0, 0, 1, B(Q_WWW OPT_DO));
	assert_int_equal(query_parse(pkt, len, &qi), PARSE_OK);
	assert_true(qi.has_edns);
	assert_true(qi.edns_do);
	assert_int_equal(qi.edns_udp_size, 4096);
	assert_int_equal(qi.edns_version, 0);
	assert_int_equal(qi.question_end, 12 + Q_WWW_LEN);
	/* no DO, small size (kept as sent: harden-short-bufsize applies
	 * later), an option (cookie) and ext rcode bits */
	len = build(pkt, 0x0100, 1, 0, 0, 1, B(Q_WWW
		"\0\0\x29\0\x64\7\0\0\0\0\x0c\0\x0a\0\x08" "abcdefgh"));
	assert_int_equal(query_parse(pkt, len, &qi), PARSE_OK);
	assert_true(qi.has_edns);
	assert_false(qi.edns_do);
	assert_int_equal(qi.edns_udp_size, 100);
	/* partial option inside a correct rdlength: accepted */
	len = build(pkt, 0x0100, 1, 0, 0, 1, B(Q_WWW
		"\0\0\x29\x04\xd0\0\0\0\0\0\x03\0\x0a\0"));
	assert_int_equal(query_parse(pkt, len, &qi), PARSE_OK);
	/* OPT owner as pointer to the root byte of the qname: root */
	len = build(pkt, 0x0100, 1, 0, 0, 1, B(Q_WWW
		"\xc0\x1c\0\x29\x04\xd0\0\0\0\0\0\0"));
	assert_int_equal(query_parse(pkt, len, &qi), PARSE_OK);
	assert_true(qi.has_edns);
	/* BADVERS keeps DO and the question */
	len = build(pkt, 0x0100, 1, 0, 0, 1, B(Q_WWW
		"\0\0\x29\x10\0\0\1\x80\0\0\0"));
	assert_int_equal(query_parse(pkt, len, &qi), PARSE_BADVERS);
	assert_true(qi.edns_do);
	assert_int_equal(qi.edns_version, 1);
	assert_int_equal(qi.qname_len, 17);
	/* an EDNS FORMERR carries an OPT without DO */
	len = build(pkt, 0x0100, 1, 0, 0, 1, B(Q_WWW
		"\1a\0\0\x29\x10\0\0\0\x80\0\0\0"));
	assert_int_equal(query_parse(pkt, len, &qi), PARSE_FORMERR);
	assert_true(qi.has_edns);
	assert_false(qi.edns_do);
}

static void test_qtype_checks(void** state)
{
	static const uint16_t refused[] = { TYPE_AXFR, TYPE_IXFR };
	static const uint16_t meta[] = { TYPE_OPT, 249, 250, TYPE_MAILA,
		TYPE_MAILB, 128, 248 };
	uint8_t pkt[100];
	struct query_info qi;
	size_t i, len;
	(void)state;
	for(i = 0; i < 2; i++) {
		/* even with a broken OPT: Unbound checks qtype first */
		len = build(pkt, 0, 1, 0, 0, 1, B("\0\0\0\0\1\1a"));
		pkt[13] = (uint8_t)(refused[i] >> 8);
		pkt[14] = (uint8_t)refused[i];
		assert_int_equal(query_parse(pkt, len, &qi), PARSE_OK);
		assert_int_equal(qi.echo_rcode, RCODE_REFUSED);
	}
	for(i = 0; i < sizeof(meta) / sizeof(meta[0]); i++) {
		len = build(pkt, 0, 1, 0, 0, 0, B("\0\0\0\0\1"));
		pkt[13] = (uint8_t)(meta[i] >> 8);
		pkt[14] = (uint8_t)meta[i];
		assert_int_equal(query_parse(pkt, len, &qi), PARSE_OK);
		assert_int_equal(qi.echo_rcode, RCODE_FORMERR);
	}
	len = build(pkt, 0, 1, 0, 0, 0, B("\0\0\xf9\0\1")); /* 249 TKEY */
	assert_int_equal(query_parse(pkt, len, &qi), PARSE_OK);
	assert_int_equal(qi.echo_rcode, RCODE_FORMERR);
	len = build(pkt, 0, 1, 0, 0, 0, B("\0\0\xff\0\1")); /* ANY: fine */
	assert_int_equal(query_parse(pkt, len, &qi), PARSE_OK);
	assert_int_equal(qi.echo_rcode, 0);
}

/* Random packets: nothing may crash or read out of bounds (run under
 * valgrind or ASan to make this bite). */
static void test_fuzz(void** state)
{
	uint8_t pkt[64];
	struct query_info qi;
	uint32_t x = 12345;
	int i;
	size_t j;
	(void)state;
	for(i = 0; i < 200000; i++) {
		size_t len = 12 + (x % 52);
		build(pkt, 0x0100, 1, (int)(x >> 30) & 1, 0, (int)(x >> 29) & 1,
			B(Q_WWW));
		for(j = 12; j < len; j++) {
			x = x * 1103515245u + 12345u;
			if((x >> 16) % 4 == 0)
				pkt[j] = (uint8_t)(x >> 8);
		}
		(void)query_parse(pkt, len, &qi);
		x = x * 1103515245u + 12345u;
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dname_from_to_str),
		cmocka_unit_test(test_dname_compare_hash),
		cmocka_unit_test(test_dname_swar),
		cmocka_unit_test(test_dname_key_hash),
		cmocka_unit_test(test_dname_read_wire),
		cmocka_unit_test(test_dname_read_wire_long),
		cmocka_unit_test(test_bad_packets),
		cmocka_unit_test(test_short_packets),
		cmocka_unit_test(test_name_256),
		cmocka_unit_test(test_good_plain),
		cmocka_unit_test(test_good_edns),
		cmocka_unit_test(test_qtype_checks),
		cmocka_unit_test(test_fuzz),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
