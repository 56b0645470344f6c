/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/val_nsec3_test.c - NSEC3 denial of existence: the hash
 * (against ldns_nsec3_hash_name and RFC 5155's appendix), base32hex,
 * the closest encloser, NXDOMAIN, NODATA, ENT, wildcard, DS absence,
 * opt-out, parent-side misuse, the iteration limit and its option, the
 * hash budget with suspend and resume, and malformed NSEC3s. The chain
 * is made here for the zone (owners hashed by ldns, not by the code
 * under test):
 *
 *   example.         SOA NS DNSKEY NSEC3PARAM   (apex)
 *   a.example.       A
 *   c.example.       (empty non-terminal)
 *   b.c.example.     A
 *   sec.example.     NS DS                     (signed child)
 *   unsec.example.   NS                        (unsigned child; left out
 *                                               of the opt-out chain)
 *   w.example.       A
 *   *.w.example.     A                         (wildcard)
 *   z.example.       A
 */
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
#include "validator/val_nsec3.h"
#include "validator/val_nsec3_iter.h"
#include "validator/val_nsec.h"
#include "util/dname.h"

#define T_A 1
#define T_NS 2
#define T_TXT 16
#define T_DS 43

struct zrec {
	const char* name;
	const char* types;
};

static const struct zrec zone[] = {
	{ "example.", "NS SOA RRSIG DNSKEY NSEC3PARAM" },
	{ "a.example.", "A RRSIG" },
	{ "c.example.", "" },
	{ "b.c.example.", "A RRSIG" },
	{ "sec.example.", "NS DS RRSIG" },
	{ "unsec.example.", "NS" },
	{ "w.example.", "A RRSIG" },
	{ "*.w.example.", "A RRSIG" },
	{ "z.example.", "A RRSIG" },
	{ NULL, NULL }
};

#define MAXN 16
struct chain {
	size_t n;
	int flags, iter;
	char salt[64];           /* hex, "-" for none */
	char label[MAXN][64];    /* sorted hashed owner labels */
	char text[MAXN][600];    /* the NSEC3 RRs */
};

static void salt_bytes(const char* hex, uint8_t* out, uint8_t* len)
{
	size_t i, n = strcmp(hex, "-") == 0 ? 0 : strlen(hex) / 2;
	for(i = 0; i < n; i++) {
		unsigned int v;
		assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
	*len = (uint8_t)n;
}

/* The reference hash: ldns's, as lowercase base32hex. */
static void ref_label(const char* name, int iter, const char* salthex,
	char* out)
{
	uint8_t salt[255], sl;
	ldns_rdf* nm = ldns_dname_new_frm_str(name);
	ldns_rdf* h;
	char* s;
	size_t i;
	salt_bytes(salthex, salt, &sl);
	h = ldns_nsec3_hash_name(nm, 1, (uint16_t)iter, sl, salt);
	assert_non_null(h);
	s = ldns_rdf2str(h);
	for(i = 0; s[i] && s[i] != '.'; i++)
		out[i] = (char)((s[i] >= 'A' && s[i] <= 'Z') ? s[i] + 32 : s[i]);
	out[i] = 0;
	free(s);
	ldns_rdf_deep_free(h);
	ldns_rdf_deep_free(nm);
}

static int cmp_label(const void* a, const void* b)
{
	return strcmp(*(char* const*)a, *(char* const*)b);
}

/* The zone's NSEC3 chain; omit names a chain leaves out (opt-out). */
static void make_chain(struct chain* c, int flags, int iter,
	const char* salthex, const char* omit)
{
	char lab[MAXN][64], *order[MAXN];
	const char* types[MAXN];
	size_t i, j, n = 0;
	memset(c, 0, sizeof(*c));
	c->flags = flags;
	c->iter = iter;
	snprintf(c->salt, sizeof(c->salt), "%s", salthex);
	for(i = 0; zone[i].name; i++) {
		if(omit && strcmp(omit, zone[i].name) == 0)
			continue;
		ref_label(zone[i].name, iter, salthex, lab[n]);
		order[n] = lab[n];
		n++;
	}
	qsort(order, n, sizeof(order[0]), cmp_label);
	for(i = 0; i < n; i++) {
		size_t k = (size_t)(order[i] - lab[0]) / sizeof(lab[0]);
		/* the zone[] entry of label k, skipping the omitted one */
		for(j = 0; zone[j].name; j++) {
			if(omit && strcmp(omit, zone[j].name) == 0)
				continue;
			if(k-- == 0)
				break;
		}
		types[i] = zone[j].types;
		snprintf(c->label[i], sizeof(c->label[i]), "%s", order[i]);
	}
	c->n = n;
	for(i = 0; i < n; i++)
		snprintf(c->text[i], sizeof(c->text[i]), "%s.example. 3600 IN "
			"NSEC3 1 %d %d %s %s %s", c->label[i], flags, iter,
			salthex, c->label[(i + 1) % n], types[i]);
}

static ldns_rr* rr(const char* s)
{
	ldns_rr* r = NULL;
	ldns_status st = ldns_rr_new_frm_str(&r, s, 3600, NULL, NULL);
	if(st != LDNS_STATUS_OK)
		fail_msg("cannot parse '%s': %s", s, ldns_get_errorstr_by_id(st));
	return r;
}

/* The chain's NSEC3 that matches name. */
static ldns_rr* match(const struct chain* c, const char* name)
{
	char h[64];
	size_t i;
	ref_label(name, c->iter, c->salt, h);
	for(i = 0; i < c->n; i++)
		if(strcmp(c->label[i], h) == 0)
			return rr(c->text[i]);
	fail_msg("no NSEC3 matches %s", name);
	return NULL;
}

/* The chain's NSEC3 that covers name (by the reference hash order). */
static ldns_rr* cover(const struct chain* c, const char* name)
{
	char h[64];
	size_t i;
	ref_label(name, c->iter, c->salt, h);
	for(i = 0; i < c->n; i++) {
		int lo = strcmp(c->label[i], h);
		int hi = strcmp(h, c->label[(i + 1) % c->n]);
		if(lo == 0)
			fail_msg("%s exists in the chain", name);
		if(i + 1 < c->n ? (lo < 0 && hi < 0) : (lo < 0 || hi < 0))
			return rr(c->text[i]);
	}
	fail_msg("nothing covers %s", name);
	return NULL;
}

/* Lists made by a test, freed by its teardown. */
static ldns_rr_list* made[64];
static int nmade;

/* A list from "m:name" (matching), "c:name" (covering) and "r:text". */
static ldns_rr_list* L(const struct chain* c, const char* first, ...)
{
	ldns_rr_list* l = ldns_rr_list_new();
	va_list ap;
	const char* s;
	va_start(ap, first);
	for(s = first; s; s = va_arg(ap, const char*)) {
		if(s[0] == 'm')
			ldns_rr_list_push_rr(l, match(c, s + 2));
		else if(s[0] == 'c')
			ldns_rr_list_push_rr(l, cover(c, s + 2));
		else
			ldns_rr_list_push_rr(l, rr(s + 2));
	}
	va_end(ap);
	assert_true(nmade < 64);
	made[nmade++] = l;
	return l;
}

static struct nsec3_hash_cache cache;
static struct nsec3_budget budget;
static struct val_nsec3_env env;

/* A fresh query: empty cache, full budget, this iteration limit. */
static const struct val_nsec3_env* Q(size_t max_iter)
{
	val_nsec3_cache_clear(&cache);
	budget.left = NSEC3_HASH_BUDGET;
	budget.exhausted = 0;
	env.max_iterations = max_iter;
	env.cache = &cache;
	env.budget = &budget;
	return &env;
}
#define E Q(150)

static int teardown(void** st)
{
	(void)st;
	while(nmade > 0)
		ldns_rr_list_deep_free(made[--nmade]);
	val_nsec3_cache_clear(&cache);
	return 0;
}

static const uint8_t* W(const char* s)
{
	static uint8_t buf[8][256];
	static int at;
	uint8_t* b = buf[at++ % 8];
	assert_true(dname_from_str(s, b) > 0);
	return b;
}

static struct val_reason r;

#define expect(got, want) do { \
	r.text = NULL; r.ede = VAL_EDE_NONE; \
	assert_int_equal((got), (want)); \
	if((want) == SEC_BOGUS) { \
		assert_non_null(r.text); \
		assert_int_equal(r.ede, VAL_EDE_NSEC_MISSING); \
	} \
	if((want) == SEC_INSECURE) \
		assert_non_null(r.text); \
} while(0)

static void test_hash(void** st)
{
	static const char* const names[] = { "example.", "a.example.",
		"A.EXAMPLE.", "*.w.example.", "x.y.z.example.", ".",
		"\\000.example.", NULL };
	static const char* const salts[] = { "-", "aabbccdd", "00",
		"0123456789abcdef0123456789abcdef", NULL };
	static const int iters[] = { 0, 1, 12, 150 };
	int i, j, k;
	char ref[64], b32[64];
	uint8_t out[NSEC3_SHA1_LEN], salt[255], sl;
	(void)st;
	for(i = 0; names[i]; i++)
		for(j = 0; salts[j]; j++)
			for(k = 0; k < 4; k++) {
				ref_label(names[i], iters[k], salts[j], ref);
				salt_bytes(salts[j], salt, &sl);
				assert_int_equal(val_nsec3_hash_compute(
					W(names[i]), 1, (uint16_t)iters[k],
					salt, sl, out),
					NSEC3_SHA1_LEN);
				assert_int_equal(val_nsec3_b32hex_encode(out,
					20, b32),
					32);
				assert_string_equal(b32, ref);
			}
	/* RFC 5155 appendix A: salt aabbccdd, 12 iterations */
	salt_bytes("aabbccdd", salt, &sl);
	val_nsec3_hash_compute(W("example."), 1, 12, salt, sl, out);
	val_nsec3_b32hex_encode(out, 20, b32);
	assert_string_equal(b32, "0p9mhaveqvm6t7vbl5lop2u3t2rp3tom");
	val_nsec3_hash_compute(W("a.example."), 1, 12, salt, sl, out);
	val_nsec3_b32hex_encode(out, 20, b32);
	assert_string_equal(b32, "35mthgpgcu1qg68fab165klnsnk3dpvl");
	/* unknown algorithm */
	assert_int_equal(val_nsec3_hash_compute(W("example."), 2, 0, salt, sl,
		out), 0);
}

static void test_b32hex(void** st)
{
	uint8_t in[20], back[40];
	char txt[64];
	int i;
	(void)st;
	for(i = 0; i < 20; i++)
		in[i] = (uint8_t)(i * 37 + 11);
	assert_int_equal(val_nsec3_b32hex_encode(in, 20, txt), 32);
	assert_int_equal(val_nsec3_b32hex_decode((uint8_t*)txt, 32, back,
		sizeof(back)), 20);
	assert_memory_equal(in, back, 20);
	/* upper case decodes the same */
	for(i = 0; txt[i]; i++)
		if(txt[i] >= 'a' && txt[i] <= 'z')
			txt[i] = (char)(txt[i] - 32);
	assert_int_equal(val_nsec3_b32hex_decode((uint8_t*)txt, 32, back,
		sizeof(back)), 20);
	assert_memory_equal(in, back, 20);
	/* bad characters, bad trailing bits, no room */
	assert_int_equal(val_nsec3_b32hex_decode((const uint8_t*)"0w", 2, back,
		sizeof(back)), -1);
	assert_int_equal(val_nsec3_b32hex_decode((const uint8_t*)"0-", 2, back,
		sizeof(back)), -1);
	assert_int_equal(val_nsec3_b32hex_decode((const uint8_t*)"01", 2, back,
		sizeof(back)), -1);
	assert_int_equal(val_nsec3_b32hex_decode((const uint8_t*)"0", 1, back,
		sizeof(back)), -1);
	assert_int_equal(val_nsec3_b32hex_decode((uint8_t*)txt, 32, back, 19),
		-1);
}

static void test_nodata(void** st)
{
	struct chain c;
	(void)st;
	make_chain(&c, 0, 1, "aabbccdd", NULL);
	/* existing name, other type */
	expect(val_nsec3_prove_nodata(L(&c, "m:a.example.", NULL),
		W("a.example."), T_TXT, E, &r), SEC_SECURE);
	/* the type exists */
	expect(val_nsec3_prove_nodata(L(&c, "m:a.example.", NULL),
		W("a.example."), T_A, E, &r), SEC_BOGUS);
	/* case does not matter */
	expect(val_nsec3_prove_nodata(L(&c, "m:a.example.", NULL),
		W("A.Example."), T_TXT, E, &r), SEC_SECURE);
	/* empty non-terminal: its own NSEC3 without types */
	expect(val_nsec3_prove_nodata(L(&c, "m:c.example.", NULL),
		W("c.example."), T_A, E, &r), SEC_SECURE);
	/* the apex */
	expect(val_nsec3_prove_nodata(L(&c, "m:example.", NULL),
		W("example."), T_TXT, E, &r), SEC_SECURE);
	/* an NSEC3 of another name proves nothing */
	expect(val_nsec3_prove_nodata(L(&c, "m:z.example.", NULL),
		W("a.example."), T_TXT, E, &r), SEC_BOGUS);
	/* no records */
	expect(val_nsec3_prove_nodata(L(&c, NULL), W("a.example."), T_TXT,
		E, &r), SEC_BOGUS);
	expect(val_nsec3_prove_nodata(NULL, W("a.example."), T_TXT, E, &r),
		SEC_BOGUS);
	/* nxornodata finds the NODATA */
	{
		int nodata = 0;
		expect(val_nsec3_prove_nxornodata(L(&c, "m:a.example.", NULL),
			W("a.example."), T_TXT, E, &r, &nodata), SEC_SECURE);
		assert_int_equal(nodata, 1);
	}
}

/* RFC 9276's parameters (no salt, no extra iterations), and records
 * that went through wire format as they come from a packet. */
static void test_rfc9276_and_wire(void** st)
{
	struct chain c;
	ldns_rr_list* l, *w;
	size_t i;
	(void)st;
	make_chain(&c, 0, 0, "-", NULL);
	l = L(&c, "m:example.", "c:q.example.", "c:*.example.", NULL);
	expect(val_nsec3_prove_nxdomain(l, W("q.example."), E, &r),
		SEC_SECURE);
	w = ldns_rr_list_new();
	made[nmade++] = w;
	for(i = 0; i < ldns_rr_list_rr_count(l); i++) {
		uint8_t* wire = NULL;
		size_t len = 0, pos = 0;
		ldns_rr* back = NULL;
		assert_int_equal(ldns_rr2wire(&wire, ldns_rr_list_rr(l, i),
			LDNS_SECTION_AUTHORITY, &len), LDNS_STATUS_OK);
		assert_int_equal(ldns_wire2rr(&back, wire, len, &pos,
			LDNS_SECTION_AUTHORITY), LDNS_STATUS_OK);
		free(wire);
		ldns_rr_list_push_rr(w, back);
	}
	expect(val_nsec3_prove_nxdomain(w, W("q.example."), E, &r),
		SEC_SECURE);
	expect(val_nsec3_prove_nxdomain(w, W("a.example."), E, &r),
		SEC_BOGUS);
}

static void test_nxdomain(void** st)
{
	struct chain c;
	int nodata = 1;
	(void)st;
	make_chain(&c, 0, 1, "aabbccdd", NULL);
	/* q.example.: ce the apex, next closer q.example. covered, and
	 * *.example. covered */
	expect(val_nsec3_prove_nxdomain(L(&c, "m:example.", "c:q.example.",
		"c:*.example.", NULL), W("q.example."), E, &r), SEC_SECURE);
	expect(val_nsec3_prove_nxornodata(L(&c, "m:example.",
		"c:q.example.", "c:*.example.", NULL), W("q.example."), T_A, E,
		&r, &nodata), SEC_SECURE);
	assert_int_equal(nodata, 0);
	/* deeper: p.q.example., the next closer is still q.example. */
	expect(val_nsec3_prove_nxdomain(L(&c, "m:example.", "c:q.example.",
		"c:*.example.", NULL), W("p.q.example."), E, &r), SEC_SECURE);
	/* below the ENT: ce c.example., wildcard *.c.example. */
	expect(val_nsec3_prove_nxdomain(L(&c, "m:c.example.",
		"c:q.c.example.", "c:*.c.example.", NULL), W("q.c.example."),
		E, &r), SEC_SECURE);
	/* missing: the wildcard proof */
	expect(val_nsec3_prove_nxdomain(L(&c, "m:example.", "c:q.example.",
		NULL), W("q.example."), E, &r), SEC_BOGUS);
	/* missing: the next closer proof */
	expect(val_nsec3_prove_nxdomain(L(&c, "m:example.", "c:*.example.",
		NULL), W("q.example."), E, &r), SEC_BOGUS);
	/* missing: the closest encloser */
	expect(val_nsec3_prove_nxdomain(L(&c, "c:q.example.",
		"c:*.example.", NULL), W("q.example."), E, &r), SEC_BOGUS);
	/* an existing name */
	expect(val_nsec3_prove_nxdomain(L(&c, "m:a.example.",
		"m:example.", "c:*.example.", NULL), W("a.example."), E, &r),
		SEC_BOGUS);
	/* the wildcard exists: y.w.example. has ce w.example. and
	 * *.w.example. has an NSEC3 of its own, nothing covers it */
	expect(val_nsec3_prove_nxdomain(L(&c, "m:w.example.",
		"c:y.w.example.", "m:*.w.example.", NULL), W("y.w.example."), E,
		&r), SEC_BOGUS);
}

static void test_wildcard(void** st)
{
	struct chain c;
	(void)st;
	make_chain(&c, 0, 1, "aabbccdd", NULL);
	/* positive answer from *.w.example.: next closer x.w.example. */
	expect(val_nsec3_prove_wildcard_answer(L(&c, "c:x.w.example.",
		NULL), W("x.w.example."), W("w.example."), E, &r), SEC_SECURE);
	/* deeper name from the same wildcard: next closer x.w.example. */
	expect(val_nsec3_prove_wildcard_answer(L(&c, "c:x.w.example.",
		NULL), W("p.x.w.example."), W("w.example."), E, &r), SEC_SECURE);
	/* without the no-closer-match proof */
	expect(val_nsec3_prove_wildcard_answer(L(&c, "m:w.example.", NULL),
		W("x.w.example."), W("w.example."), E, &r), SEC_BOGUS);
	/* the wildcard is not above the name */
	expect(val_nsec3_prove_wildcard_answer(L(&c, "c:x.w.example.",
		NULL), W("x.w.example."), W("a.example."), E, &r), SEC_BOGUS);
	expect(val_nsec3_prove_wildcard_answer(L(&c, "c:x.w.example.",
		NULL), W("w.example."), W("w.example."), E, &r), SEC_BOGUS);
	/* wildcard NODATA: x.w.example. TXT */
	expect(val_nsec3_prove_nodata(L(&c, "m:w.example.",
		"c:x.w.example.", "m:*.w.example.", NULL), W("x.w.example."),
		T_TXT, E, &r), SEC_SECURE);
	/* ... the wildcard has A */
	expect(val_nsec3_prove_nodata(L(&c, "m:w.example.",
		"c:x.w.example.", "m:*.w.example.", NULL), W("x.w.example."),
		T_A, E, &r), SEC_BOGUS);
	/* ... missing the NSEC3 of the wildcard */
	expect(val_nsec3_prove_nodata(L(&c, "m:w.example.",
		"c:x.w.example.", NULL), W("x.w.example."), T_TXT, E, &r),
		SEC_BOGUS);
}

static void test_nods(void** st)
{
	struct chain c;
	char apex_soa[600];
	(void)st;
	make_chain(&c, 0, 1, "aabbccdd", NULL);
	/* unsigned child: NS, no DS */
	expect(val_nsec3_prove_nods(L(&c, "m:unsec.example.", NULL),
		W("unsec.example."), E, &r), SEC_SECURE);
	/* NODATA for DS with the same NSEC3 */
	expect(val_nsec3_prove_nodata(L(&c, "m:unsec.example.", NULL),
		W("unsec.example."), T_DS, E, &r), SEC_SECURE);
	/* signed child: DS bit */
	expect(val_nsec3_prove_nods(L(&c, "m:sec.example.", NULL),
		W("sec.example."), E, &r), SEC_BOGUS);
	/* no delegation: a name, an ENT */
	expect(val_nsec3_prove_nods(L(&c, "m:a.example.", NULL),
		W("a.example."), E, &r), SEC_INDETERMINATE);
	expect(val_nsec3_prove_nods(L(&c, "m:c.example.", NULL),
		W("c.example."), E, &r), SEC_INDETERMINATE);
	/* no proof about the name */
	expect(val_nsec3_prove_nods(L(&c, "m:a.example.", NULL),
		W("unsec.example."), E, &r), SEC_BOGUS);
	/* a matching NSEC3 with the SOA bit is the child's apex one */
	{
		char h[64];
		ref_label("unsec.example.", 1, "aabbccdd", h);
		snprintf(apex_soa, sizeof(apex_soa), "r:%s.example. NSEC3 1 0 "
			"1 aabbccdd %s NS SOA RRSIG DNSKEY NSEC3PARAM", h,
			c.label[0]);
	}
	expect(val_nsec3_prove_nods(L(&c, apex_soa, NULL),
		W("unsec.example."), E, &r), SEC_BOGUS);
	expect(val_nsec3_prove_nodata(L(&c, apex_soa, NULL),
		W("unsec.example."), T_DS, E, &r), SEC_BOGUS);
	/* NSEC3s of the child zone itself do not count for its DS */
	{
		char h[64], line[600];
		ref_label("unsec.example.", 1, "aabbccdd", h);
		snprintf(line, sizeof(line), "r:%s.unsec.example. NSEC3 1 0 1 "
			"aabbccdd %s NS SOA RRSIG DNSKEY NSEC3PARAM", h, h);
		expect(val_nsec3_prove_nods(L(&c, line, NULL),
			W("unsec.example."), E, &r), SEC_BOGUS);
	}
}

static void test_optout(void** st)
{
	struct chain c, nc;
	(void)st;
	/* unsec.example. left out of an opt-out chain */
	make_chain(&c, 1, 1, "aabbccdd", "unsec.example.");
	expect(val_nsec3_prove_nods(L(&c, "m:example.", "c:unsec.example.",
		NULL), W("unsec.example."), E, &r), SEC_INSECURE);
	/* NODATA below the unsigned delegation: insecure, not secure */
	expect(val_nsec3_prove_nodata(L(&c, "m:example.", "c:unsec.example.",
		NULL), W("x.unsec.example."), T_A, E, &r), SEC_INSECURE);
	expect(val_nsec3_prove_nodata(L(&c, "m:example.", "c:unsec.example.",
		NULL), W("unsec.example."), T_DS, E, &r), SEC_INSECURE);
	/* NXDOMAIN whose next closer is in an opt-out span */
	expect(val_nsec3_prove_nxdomain(L(&c, "m:example.", "c:q.example.",
		"c:*.example.", NULL), W("q.example."), E, &r), SEC_INSECURE);
	/* the same hole without opt-out: bogus */
	make_chain(&nc, 0, 1, "aabbccdd", "unsec.example.");
	expect(val_nsec3_prove_nods(L(&nc, "m:example.", "c:unsec.example.",
		NULL), W("unsec.example."), E, &r), SEC_BOGUS);
	expect(val_nsec3_prove_nodata(L(&nc, "m:example.",
		"c:unsec.example.", NULL), W("x.unsec.example."), T_A, E, &r),
		SEC_BOGUS);
	/* opt-out does not turn an existing name into a denial */
	expect(val_nsec3_prove_nods(L(&c, "m:sec.example.", NULL),
		W("sec.example."), E, &r), SEC_BOGUS);
}

static void test_parent_side(void** st)
{
	struct chain c;
	(void)st;
	make_chain(&c, 0, 1, "aabbccdd", NULL);
	/* sec.example. is a signed delegation: its parent-side NSEC3
	 * cannot be the closest encloser of names below it */
	expect(val_nsec3_prove_nxdomain(L(&c, "m:sec.example.",
		"c:x.sec.example.", "c:*.sec.example.", NULL),
		W("x.sec.example."), E, &r), SEC_BOGUS);
	expect(val_nsec3_prove_nodata(L(&c, "m:sec.example.",
		"c:x.sec.example.", "c:*.sec.example.", NULL),
		W("x.sec.example."), T_A, E, &r), SEC_BOGUS);
	/* NODATA at the delegation itself: a referral was due */
	expect(val_nsec3_prove_nodata(L(&c, "m:sec.example.", NULL),
		W("sec.example."), T_A, E, &r), SEC_BOGUS);
	/* a DNAME at the closest encloser: a DNAME answer was due */
	{
		char h[64], line[600];
		ref_label("d.example.", 1, "aabbccdd", h);
		snprintf(line, sizeof(line), "r:%s.example. NSEC3 1 0 1 "
			"aabbccdd %s DNAME RRSIG", h, c.label[0]);
		expect(val_nsec3_prove_nxdomain(L(&c, line, "c:x.d.example.",
			"c:*.d.example.", NULL), W("x.d.example."), E, &r),
			SEC_BOGUS);
		/* the same with an A record instead proves NXDOMAIN */
		snprintf(line, sizeof(line), "r:%s.example. NSEC3 1 0 1 "
			"aabbccdd %s A RRSIG", h, c.label[0]);
		expect(val_nsec3_prove_nxdomain(L(&c, line, "c:x.d.example.",
			"c:*.d.example.", NULL), W("x.d.example."), E, &r),
			SEC_SECURE);
	}
	/* the signed child's own NSEC3s (a one-name zone here) prove about
	 * its names; the parent's NSEC3 next to them is not used, in
	 * either order */
	{
		char h[64], line[600];
		ref_label("sec.example.", 1, "aabbccdd", h);
		snprintf(line, sizeof(line), "r:%s.sec.example. NSEC3 1 0 1 "
			"aabbccdd %s NS SOA RRSIG DNSKEY NSEC3PARAM", h, h);
		expect(val_nsec3_prove_nxdomain(L(&c, line, "m:example.",
			NULL), W("x.sec.example."), E, &r), SEC_SECURE);
		expect(val_nsec3_prove_nxdomain(L(&c, "m:example.", line,
			NULL), W("x.sec.example."), E, &r), SEC_SECURE);
		/* and for the child's DS the parent's NSEC3 is used */
		expect(val_nsec3_prove_nods(L(&c, line, "m:sec.example.",
			NULL), W("sec.example."), E, &r), SEC_BOGUS);
		assert_string_equal(r.text, "NSEC3 has DS in bitmap");
	}
	/* below an unsigned delegation: insecure */
	expect(val_nsec3_prove_nxdomain(L(&c, "m:unsec.example.",
		"c:x.unsec.example.", "c:*.unsec.example.", NULL),
		W("x.unsec.example."), E, &r), SEC_INSECURE);
}

static void test_iterations(void** st)
{
	struct chain c;
	(void)st;
	make_chain(&c, 0, 151, "aabbccdd", NULL);
	/* over the limit: insecure, and nothing hashed */
	expect(val_nsec3_prove_nxdomain(L(&c, "m:example.", "c:q.example.",
		"c:*.example.", NULL), W("q.example."), Q(150), &r),
		SEC_INSECURE);
	assert_int_equal(cache.computed, 0);
	expect(val_nsec3_prove_nodata(L(&c, "m:a.example.", NULL),
		W("a.example."), T_TXT, Q(150), &r), SEC_INSECURE);
	expect(val_nsec3_prove_nods(L(&c, "m:unsec.example.", NULL),
		W("unsec.example."), Q(150), &r), SEC_INSECURE);
	expect(val_nsec3_prove_wildcard_answer(L(&c, "c:x.w.example.",
		NULL), W("x.w.example."), W("w.example."), Q(150), &r),
		SEC_INSECURE);
	/* at or under the limit: proven */
	expect(val_nsec3_prove_nxdomain(L(&c, "m:example.", "c:q.example.",
		"c:*.example.", NULL), W("q.example."), Q(151), &r),
		SEC_SECURE);
	/* even a bogus-looking answer is insecure when over the limit (as
	 * Unbound: the count is checked first) */
	expect(val_nsec3_prove_nodata(L(&c, "m:a.example.", NULL),
		W("a.example."), T_A, Q(150), &r), SEC_INSECURE);
}

static void test_iter_option(void** st)
{
	struct nsec3_iter_table t, keep;
	char err[256];
	char many[1024];
	int i;
	(void)st;
	assert_true(val_nsec3_iter_parse(NSEC3_ITER_DEFAULT, &t, err,
		sizeof(err)));
	assert_int_equal(t.count, 3);
	assert_int_equal(val_nsec3_iter_max(&t, 256), 150);
	assert_int_equal(val_nsec3_iter_max(&t, 1024), 150);
	assert_int_equal(val_nsec3_iter_max(&t, 8192), 150);
	assert_true(val_nsec3_iter_parse(" 1024 150\t2048 500 4096 2500 ", &t,
		err, sizeof(err)));
	assert_int_equal(val_nsec3_iter_max(&t, 0), 150);
	assert_int_equal(val_nsec3_iter_max(&t, 1025), 500);
	assert_int_equal(val_nsec3_iter_max(&t, 2048), 500);
	assert_int_equal(val_nsec3_iter_max(&t, 3000), 2500);
	assert_int_equal(val_nsec3_iter_max(&t, 9000), 2500);
	keep = t;
	/* malformed: the table is left as it was, with a message */
#define BAD(s) do { err[0] = 0; \
		assert_false(val_nsec3_iter_parse((s), &t, err, sizeof(err))); \
		assert_true(strstr(err, "val-nsec3-keysize-iterations") \
			!= NULL); \
		assert_memory_equal(&t, &keep, sizeof(t)); } while(0)
	BAD("");
	BAD("   ");
	BAD("1024");
	BAD("1024 150 2048");
	BAD("2048 150 1024 150");
	BAD("1024 150 1024 100");
	BAD("1024 x");
	BAD("-1024 150");
	BAD("1024 150abc");
	BAD("1024 70000");
	BAD("99999999999999999999999 1");
	BAD("1024,150");
	many[0] = 0;
	for(i = 0; i < NSEC3_ITER_MAX_PAIRS + 1; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many),
			"%d 10 ", 100 + i);
	BAD(many);
#undef BAD
	assert_true(val_nsec3_iter_parse(NULL, &t, err, sizeof(err)) == 0);
}

static void test_keysize(void** st)
{
	ldns_key* rsa = ldns_key_new_frm_algorithm(LDNS_SIGN_RSASHA256, 1024);
	ldns_key* ec = ldns_key_new_frm_algorithm(LDNS_SIGN_ECDSAP256SHA256, 256);
	ldns_rr_list* l = ldns_rr_list_new();
	ldns_rr* k1, *k2;
	(void)st;
	assert_non_null(rsa);
	assert_non_null(ec);
	ldns_key_set_flags(rsa, 256);
	ldns_key_set_flags(ec, 256);
	k1 = ldns_key2rr(rsa);
	k2 = ldns_key2rr(ec);
	ldns_rr_list_push_rr(l, k1);
	assert_int_equal(val_nsec3_zone_keysize(l), 1024);
	ldns_rr_list_push_rr(l, k2);
	assert_int_equal(val_nsec3_zone_keysize(l), 256);
	/* a key without the zone flag does not count */
	ldns_rr_list_pop_rr(l);
	ldns_rr_free(k2);
	ldns_key_set_flags(ec, 0);
	k2 = ldns_key2rr(ec);
	ldns_rr_list_push_rr(l, k2);
	assert_int_equal(val_nsec3_zone_keysize(l), 1024);
	ldns_rr_list_deep_free(l);
	assert_int_equal(val_nsec3_zone_keysize(NULL), 0);
	ldns_key_deep_free(rsa);
	ldns_key_deep_free(ec);
}

/* A name 9 labels below q.example.: the closest encloser search hashes
 * 11 names and the wildcard one more, past the budget of 8. */
#define DEEP "l1.l2.l3.l4.l5.l6.l7.l8.l9.q.example."

static void test_budget(void** st)
{
	struct chain c;
	ldns_rr_list* l;
	(void)st;
	make_chain(&c, 0, 1, "aabbccdd", NULL);
	l = L(&c, "m:example.", "c:q.example.", "c:*.example.", NULL);
	/* all at once with a big budget: 12 hashes */
	Q(150);
	budget.left = 100;
	expect(val_nsec3_prove_nxdomain(l, W(DEEP), &env, &r), SEC_SECURE);
	assert_int_equal(cache.computed, 12);
	/* with Unbound's 8: suspends, not bogus */
	Q(150);
	expect(val_nsec3_prove_nxdomain(l, W(DEEP), &env, &r),
		VAL_NSEC3_SUSPEND);
	assert_int_equal(budget.exhausted, 1);
	assert_int_equal(budget.left, 0);
	assert_int_equal(cache.computed, 8);
	/* resumed with the same cache and a new budget: done, the 8 hashes
	 * not made again */
	budget.left = NSEC3_HASH_BUDGET;
	budget.exhausted = 0;
	expect(val_nsec3_prove_nxdomain(l, W(DEEP), &env, &r), SEC_SECURE);
	assert_int_equal(cache.computed, 12);
	assert_int_equal(budget.left, NSEC3_HASH_BUDGET - 4);
	/* a third run costs nothing */
	expect(val_nsec3_prove_nxdomain(l, W(DEEP), &env, &r), SEC_SECURE);
	assert_int_equal(cache.computed, 12);
	/* the cache key has the parameters: another salt hashes anew */
	{
		const uint8_t* h;
		size_t hl;
		uint8_t scratch[20];
		budget.left = 1;
		assert_int_equal(val_nsec3_hash_lookup(&cache, &budget,
			W("Q.EXAMPLE."), 1, 1, (const uint8_t*)"\xaa\xbb\xcc\xdd",
			4, scratch, &h, &hl), 1);
		assert_int_equal(cache.computed, 12);
		assert_int_equal(val_nsec3_hash_lookup(&cache, &budget,
			W("q.example."), 1, 1, (const uint8_t*)"\xaa\xbb", 2,
			scratch, &h, &hl), 1);
		assert_int_equal(cache.computed, 13);
		assert_int_equal(val_nsec3_hash_lookup(&cache, &budget,
			W("q.example."), 1, 2, (const uint8_t*)"\xaa\xbb", 2,
			scratch, &h, &hl), -1);
	}
	/* many NSEC3s with distinct parameters cost a hash each: bounded
	 * by the budget too */
	{
		ldns_rr_list* m = ldns_rr_list_new();
		char line[300];
		int i;
		for(i = 0; i < 40; i++) {
			snprintf(line, sizeof(line), "%s.example. NSEC3 1 0 %d "
				"aabbccdd %s A", c.label[0], i, c.label[1]);
			ldns_rr_list_push_rr(m, rr(line));
		}
		made[nmade++] = m;
		expect(val_nsec3_prove_nodata(m, W("zz.example."), T_A,
			Q(150), &r), VAL_NSEC3_SUSPEND);
		assert_int_equal(cache.computed, 8);
	}
}

/* An NSEC3 made rdf by rdf, to get what the text parser refuses. */
static ldns_rr* raw_nsec3(const char* owner, uint8_t algo, uint8_t flags,
	const uint8_t* salt, size_t saltsz, const uint8_t* next,
	size_t nextsz, int rdfs)
{
	ldns_rr* n = ldns_rr_new();
	ldns_rr_type types[] = { LDNS_RR_TYPE_A, LDNS_RR_TYPE_RRSIG };
	uint8_t it[2] = { 0, 1 };
	ldns_rr_set_type(n, LDNS_RR_TYPE_NSEC3);
	ldns_rr_set_owner(n, ldns_dname_new_frm_str(owner));
	ldns_rr_push_rdf(n, ldns_rdf_new_frm_data(LDNS_RDF_TYPE_INT8, 1,
		&algo));
	ldns_rr_push_rdf(n, ldns_rdf_new_frm_data(LDNS_RDF_TYPE_INT8, 1,
		&flags));
	ldns_rr_push_rdf(n, ldns_rdf_new_frm_data(LDNS_RDF_TYPE_INT16, 2,
		it));
	if(rdfs > 3)
		ldns_rr_push_rdf(n, ldns_rdf_new_frm_data(
			LDNS_RDF_TYPE_NSEC3_SALT, saltsz, salt));
	if(rdfs > 4)
		ldns_rr_push_rdf(n, ldns_rdf_new_frm_data(
			LDNS_RDF_TYPE_NSEC3_NEXT_OWNER, nextsz, next));
	if(rdfs > 5)
		ldns_rr_push_rdf(n, ldns_dnssec_create_nsec_bitmap(types, 2,
			LDNS_RR_TYPE_NSEC3));
	return n;
}

static void test_malformed(void** st)
{
	struct chain c;
	char owner[128], h[64];
	static const uint8_t salt_ok[] = { 4, 0xaa, 0xbb, 0xcc, 0xdd };
	static const uint8_t salt_long[] = { 40, 0xaa, 0xbb };
	uint8_t next_ok[21], next_zero[1] = { 0 };
	static const uint8_t next_long[] = { 30, 1, 2, 3 };
	ldns_rr_list* l;
	struct val_nsec3_rr p;
	(void)st;
	make_chain(&c, 0, 1, "aabbccdd", NULL);
	ref_label("a.example.", 1, "aabbccdd", h);
	snprintf(owner, sizeof(owner), "%s.example.", h);
	next_ok[0] = 20;
	assert_int_equal(val_nsec3_b32hex_decode((const uint8_t*)c.label[0], 32,
		next_ok + 1, 20), 20);

	/* the reference record parses */
	l = ldns_rr_list_new();
	made[nmade++] = l;
	ldns_rr_list_push_rr(l, raw_nsec3(owner, 1, 0, salt_ok, 5, next_ok,
		21, 6));
	assert_true(val_nsec3_parse(ldns_rr_list_rr(l, 0), &p));
	assert_int_equal(p.saltlen, 4);
	assert_int_equal(p.nextlen, 20);
	assert_int_equal(p.owner_hashlen, 20);
	expect(val_nsec3_prove_nodata(l, W("a.example."), T_TXT, E, &r),
		SEC_SECURE);

	/* each broken one alone: no usable NSEC3, bogus, no crash */
#define ALONE(rec) do { \
		ldns_rr_list* x = ldns_rr_list_new(); \
		made[nmade++] = x; \
		ldns_rr_list_push_rr(x, (rec)); \
		assert_false(val_nsec3_parse(ldns_rr_list_rr(x, 0), &p)); \
		expect(val_nsec3_prove_nodata(x, W("a.example."), T_TXT, E, \
			&r), SEC_BOGUS); \
		expect(val_nsec3_prove_nxdomain(x, W("q.example."), E, &r), \
			SEC_BOGUS); \
		expect(val_nsec3_prove_nods(x, W("a.example."), E, &r), \
			SEC_BOGUS); \
	} while(0)
	/* salt length past the rdata */
	ALONE(raw_nsec3(owner, 1, 0, salt_long, 3, next_ok, 21, 6));
	/* empty salt rdf (no length byte) */
	ALONE(raw_nsec3(owner, 1, 0, salt_ok, 0, next_ok, 21, 6));
	/* next hash length past the rdata */
	ALONE(raw_nsec3(owner, 1, 0, salt_ok, 5, next_long, 4, 6));
	/* too few rdfs */
	ALONE(raw_nsec3(owner, 1, 0, salt_ok, 5, next_ok, 21, 3));
	ALONE(raw_nsec3(owner, 1, 0, salt_ok, 5, next_ok, 21, 4));

	/* zero-length next hash: it still matches (as Unbound), and covers
	 * nothing */
	l = ldns_rr_list_new();
	made[nmade++] = l;
	ldns_rr_list_push_rr(l, raw_nsec3(owner, 1, 0, salt_ok, 5, next_zero,
		1, 6));
	assert_true(val_nsec3_parse(ldns_rr_list_rr(l, 0), &p));
	assert_int_equal(p.nextlen, 0);
	expect(val_nsec3_prove_nodata(l, W("a.example."), T_TXT, E, &r),
		SEC_SECURE);
	expect(val_nsec3_prove_nxdomain(l, W("b.a.example."), E, &r),
		SEC_BOGUS);
	{
		uint8_t any[20];
		memset(any, 0x55, sizeof(any));
		assert_false(val_nsec3_covers_hash(&p, any, 20));
	}
	/* no bitmap rdf: no types, still matches */
	l = ldns_rr_list_new();
	made[nmade++] = l;
	ldns_rr_list_push_rr(l, raw_nsec3(owner, 1, 0, salt_ok, 5, next_ok,
		21, 5));
	expect(val_nsec3_prove_nodata(l, W("a.example."), T_A, E, &r),
		SEC_SECURE);

	/* unknown hash algorithm, unknown flags: ignored (Unbound) */
	{
		ldns_rr_list* x = ldns_rr_list_new();
		made[nmade++] = x;
		ldns_rr_list_push_rr(x, raw_nsec3(owner, 2, 0, salt_ok, 5,
			next_ok, 21, 6));
		ldns_rr_list_push_rr(x, raw_nsec3(owner, 1, 0x02, salt_ok, 5,
			next_ok, 21, 6));
		ldns_rr_list_push_rr(x, raw_nsec3(owner, 1, 0x81, salt_ok, 5,
			next_ok, 21, 6));
		expect(val_nsec3_prove_nodata(x, W("a.example."), T_TXT, E,
			&r), SEC_BOGUS);
		assert_string_equal(r.text, "no NSEC3 records");
		/* with a good one next to them, the good one is used */
		ldns_rr_list_push_rr(x, raw_nsec3(owner, 1, 1, salt_ok, 5,
			next_ok, 21, 6));
		expect(val_nsec3_prove_nodata(x, W("a.example."), T_TXT, E,
			&r), SEC_SECURE);
	}
	/* an owner label that is not base32hex matches nothing */
	l = L(&c, "r:not-base32.example. NSEC3 1 0 1 aabbccdd "
		"0p9mhaveqvm6t7vbl5lop2u3t2rp3tom A", NULL);
	expect(val_nsec3_prove_nodata(l, W("a.example."), T_TXT, E, &r),
		SEC_BOGUS);
	/* a salt of 255 bytes and a very long name hash fine */
	{
		char line[1200], salt[600];
		int i;
		for(i = 0; i < 255; i++)
			snprintf(salt + 2 * i, 3, "%02x", i);
		snprintf(line, sizeof(line), "r:%s.example. NSEC3 1 0 1 %s %s A",
			c.label[0], salt, c.label[1]);
		l = L(&c, line, NULL);
		expect(val_nsec3_prove_nodata(l, W("a.b.c.d.e.f.g.h.i.j.k.l.m."
			"n.o.p.q.r.s.t.u.v.w.x.y.z.example."), T_A, E, &r),
			VAL_NSEC3_SUSPEND);
	}
	/* NULL environment */
	expect(val_nsec3_prove_nodata(l, W("a.example."), T_A, NULL, &r),
		SEC_BOGUS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_hash, teardown),
		cmocka_unit_test_teardown(test_b32hex, teardown),
		cmocka_unit_test_teardown(test_nodata, teardown),
		cmocka_unit_test_teardown(test_rfc9276_and_wire, teardown),
		cmocka_unit_test_teardown(test_nxdomain, teardown),
		cmocka_unit_test_teardown(test_wildcard, teardown),
		cmocka_unit_test_teardown(test_nods, teardown),
		cmocka_unit_test_teardown(test_optout, teardown),
		cmocka_unit_test_teardown(test_parent_side, teardown),
		cmocka_unit_test_teardown(test_iterations, teardown),
		cmocka_unit_test_teardown(test_iter_option, teardown),
		cmocka_unit_test_teardown(test_keysize, teardown),
		cmocka_unit_test_teardown(test_budget, teardown),
		cmocka_unit_test_teardown(test_malformed, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
