/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/val_nsec_test.c - NSEC denial of existence: canonical
 * order and "covers" (with the wrap at the apex), type bitmaps, and the
 * NXDOMAIN, NODATA, empty non-terminal, wildcard, DS-absence and
 * parent-side misuse proofs over the NSEC chain of a small zone:
 *
 *   example.         SOA NS DNSKEY       (apex)
 *   a.example.       A
 *   b.c.example.     A                   (c.example. is an ENT)
 *   sec.example.     NS DS               (signed child)
 *   unsec.example.   NS                  (unsigned child)
 *   w.example.       A
 *   *.w.example.     A                   (wildcard)
 *   z.example.       A
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <ldns/ldns.h>
#include "validator/val_nsec.h"
#include "util/dname.h"

#define T_A 1
#define T_NS 2
#define T_CNAME 5
#define T_SOA 6
#define T_TXT 16
#define T_DS 43

/* The zone's NSEC chain in canonical order. */
static const char* const chain[] = {
	"example. 3600 IN NSEC a.example. NS SOA RRSIG NSEC DNSKEY",
	"a.example. 3600 IN NSEC b.c.example. A RRSIG NSEC",
	"b.c.example. 3600 IN NSEC sec.example. A RRSIG NSEC",
	"sec.example. 3600 IN NSEC unsec.example. NS DS RRSIG NSEC",
	"unsec.example. 3600 IN NSEC w.example. NS RRSIG NSEC",
	"w.example. 3600 IN NSEC *.w.example. A RRSIG NSEC",
	"*.w.example. 3600 IN NSEC z.example. A RRSIG NSEC",
	"z.example. 3600 IN NSEC example. A RRSIG NSEC",
	NULL
};

static ldns_rr* rr(const char* s)
{
	ldns_rr* r = NULL;
	assert_int_equal(ldns_rr_new_frm_str(&r, s, 3600, NULL, NULL),
		LDNS_STATUS_OK);
	return r;
}

/* The chain's NSEC whose owner is name. */
static ldns_rr* nsec_at(const char* name)
{
	size_t n = strlen(name), i;
	for(i = 0; chain[i]; i++)
		if(strncmp(chain[i], name, n) == 0 && chain[i][n] == ' ')
			return rr(chain[i]);
	fail_msg("no NSEC at %s", name);
	return NULL;
}

/* A list of the chain's NSECs at the given owners (NULL-terminated). */
static ldns_rr_list* nsecs(const char* first, ...)
{
	ldns_rr_list* l = ldns_rr_list_new();
	va_list ap;
	const char* n;
	va_start(ap, first);
	for(n = first; n; n = va_arg(ap, const char*))
		ldns_rr_list_push_rr(l, nsec_at(n));
	va_end(ap);
	return l;
}

/* A list of RRs from text lines. */
static ldns_rr_list* rrs(const char* first, ...)
{
	ldns_rr_list* l = ldns_rr_list_new();
	va_list ap;
	const char* n;
	va_start(ap, first);
	for(n = first; n; n = va_arg(ap, const char*))
		ldns_rr_list_push_rr(l, rr(n));
	va_end(ap);
	return l;
}

/* Wire names from text; a few live at once. */
static const uint8_t* W(const char* s)
{
	static uint8_t buf[8][256];
	static int at;
	uint8_t* b = buf[at++ % 8];
	assert_true(dname_from_str(s, b) > 0);
	return b;
}

static void name_is(const uint8_t* got, const char* want)
{
	char b[1024];
	assert_non_null(got);
	dname_to_str(got, b, sizeof(b));
	assert_string_equal(b, want);
}

static void test_canonical_order(void** st)
{
	/* RFC 4034 6.1's example, in order */
	static const char* const names[] = { "example.", "a.example.",
		"yljkjljk.a.example.", "Z.a.example.", "zABC.a.EXAMPLE.",
		"z.example.", "\\001.z.example.", "*.z.example.",
		"\\200.z.example.", NULL };
	uint8_t a[256], b[256];
	int i, j;
	(void)st;
	for(i = 0; names[i]; i++)
		for(j = 0; names[j]; j++) {
			int c;
			assert_true(dname_from_str(names[i], a) > 0);
			assert_true(dname_from_str(names[j], b) > 0);
			c = dname_canonical_compare(a, b);
			if(i < j)
				assert_true(c < 0);
			else if(i > j)
				assert_true(c > 0);
			else
				assert_int_equal(c, 0);
		}
}

static void test_covers(void** st)
{
	(void)st;
	/* the ordinary interval */
	assert_true(val_nsec_covers(W("a.example."), W("c.example."),
		W("b.example.")));
	assert_true(val_nsec_covers(W("a.example."), W("c.example."),
		W("x.a.example.")));
	assert_false(val_nsec_covers(W("a.example."), W("c.example."),
		W("a.example.")));
	assert_false(val_nsec_covers(W("a.example."), W("c.example."),
		W("c.example.")));
	assert_false(val_nsec_covers(W("a.example."), W("c.example."),
		W("d.example.")));
	assert_false(val_nsec_covers(W("a.example."), W("c.example."),
		W("example.")));
	/* case does not matter */
	assert_true(val_nsec_covers(W("A.example."), W("C.EXAMPLE."),
		W("B.example.")));
	/* the last NSEC wraps to the apex: names after it, in the zone */
	assert_true(val_nsec_covers(W("z.example."), W("example."),
		W("zz.example.")));
	assert_true(val_nsec_covers(W("z.example."), W("example."),
		W("a.z.example.")));
	assert_false(val_nsec_covers(W("z.example."), W("example."),
		W("a.example.")));
	assert_false(val_nsec_covers(W("z.example."), W("example."),
		W("example.")));
	assert_false(val_nsec_covers(W("z.example."), W("example."),
		W("zz.other.")));
	/* a single-NSEC zone covers every name below the apex */
	assert_true(val_nsec_covers(W("example."), W("example."),
		W("q.example.")));
	assert_false(val_nsec_covers(W("example."), W("example."),
		W("example.")));
}

static void test_name_helpers(void** st)
{
	uint8_t wc[256];
	(void)st;
	name_is(val_dname_shared_suffix(W("a.b.example."), W("c.b.example.")),
		"b.example.");
	name_is(val_dname_shared_suffix(W("x.y.example."), W("EXAMPLE.")),
		"example.");
	name_is(val_dname_shared_suffix(W("a.example."), W("a.other.")), ".");
	name_is(val_dname_shared_suffix(W("b.a.example."), W("a.example.")),
		"a.example.");
	/* a label that differs below an equal one does not join the run */
	name_is(val_dname_shared_suffix(W("x.b.ex."), W("x.c.ex.")), "ex.");
	assert_true(val_dname_strict_subdomain(W("a.example."),
		W("example.")));
	assert_false(val_dname_strict_subdomain(W("example."),
		W("example.")));
	assert_true(val_dname_is_wild(W("*.w.example.")));
	assert_false(val_dname_is_wild(W("w.example.")));
	assert_true(val_dname_wildcard(W("w.example."), wc) > 0);
	name_is(wc, "*.w.example.");
}

static void test_bitmap(void** st)
{
	ldns_rr* n = rr("x.example. NSEC y.example. A MX RRSIG NSEC CAA "
		"TYPE65534");
	/* window 0 with A(1) only; window 1 CAA(257); malformed blocks */
	static const uint8_t ok[] = { 0, 1, 0x40, 1, 1, 0x40 };
	static const uint8_t zero_len[] = { 0, 0 };
	static const uint8_t long_len[] = { 0, 33 };
	static const uint8_t past_end[] = { 0, 4, 0x40 };
	static const uint8_t descending[] = { 1, 1, 0x40, 0, 1, 0x40 };
	static const uint8_t repeated[] = { 0, 1, 0x40, 0, 1, 0x40, 1, 1,
		0x40 };
	(void)st;
	assert_true(val_nsec_has_type(n, T_A));
	assert_true(val_nsec_has_type(n, 15));
	assert_true(val_nsec_has_type(n, 46));
	assert_true(val_nsec_has_type(n, 47));
	assert_true(val_nsec_has_type(n, 257));
	assert_true(val_nsec_has_type(n, 65534));
	assert_false(val_nsec_has_type(n, T_NS));
	assert_false(val_nsec_has_type(n, T_TXT));
	assert_false(val_nsec_has_type(n, 258));
	assert_false(val_nsec_has_type(n, 65535));
	assert_false(val_nsec_has_type(n, 1000));
	ldns_rr_free(n);
	assert_true(val_nsec_bitmap_has_type(ok, sizeof(ok), 1));
	assert_true(val_nsec_bitmap_has_type(ok, sizeof(ok), 257));
	assert_false(val_nsec_bitmap_has_type(ok, sizeof(ok), 2));
	assert_false(val_nsec_bitmap_has_type(ok, 5, 257));
	assert_false(val_nsec_bitmap_has_type(zero_len, 2, 1));
	assert_false(val_nsec_bitmap_has_type(long_len, 2, 1));
	assert_false(val_nsec_bitmap_has_type(past_end, 3, 1));
	assert_false(val_nsec_bitmap_has_type(descending, 6, 1));
	assert_true(val_nsec_bitmap_has_type(repeated, 3, 1));
	assert_false(val_nsec_bitmap_has_type(repeated, 9, 257));
	assert_false(val_nsec_bitmap_has_type(NULL, 0, 1));
}

static void test_closest_encloser(void** st)
{
	ldns_rr* n;
	(void)st;
	/* b.example. between a.example. and b.c.example.: ce the apex */
	n = nsec_at("a.example.");
	assert_true(val_nsec_proves_name_error(n, W("b.example.")));
	name_is(val_nsec_closest_encloser(n, W("b.example.")), "example.");
	/* a name below an existing one: the owner is the ce */
	name_is(val_nsec_closest_encloser(n, W("x.a.example.")),
		"a.example.");
	/* a name below the ENT: the next name shares c.example. */
	name_is(val_nsec_closest_encloser(n, W("q.c.example.")),
		"c.example.");
	/* the ENT itself is not a name error */
	assert_false(val_nsec_proves_name_error(n, W("c.example.")));
	/* the owner is not a name error */
	assert_false(val_nsec_proves_name_error(n, W("a.example.")));
	ldns_rr_free(n);
}

/* A proof's result, and for bogus its reason; a macro so a failure
 * names the line of the check. */
#define expect(got, want, r, want_ede) do { \
	assert_int_equal((got), (want)); \
	if((want) == SEC_BOGUS) { \
		assert_non_null((r)->text); \
		assert_int_equal((r)->ede, (want_ede)); \
	} \
} while(0)

static void test_nodata(void** st)
{
	struct val_reason r;
	ldns_rr_list* l = nsecs("a.example.", NULL);
	(void)st;
	/* existing name, other type */
	expect(val_nsec_prove_nodata(l, W("a.example."), T_TXT, &r),
		SEC_SECURE, &r, 0);
	/* the type exists: not NODATA */
	expect(val_nsec_prove_nodata(l, W("a.example."), T_A, &r),
		SEC_BOGUS, &r, VAL_EDE_NSEC_MISSING);
	/* no NSEC for the name */
	expect(val_nsec_prove_nodata(l, W("z.example."), T_TXT, &r),
		SEC_BOGUS, &r, VAL_EDE_NSEC_MISSING);
	/* empty non-terminal c.example.: next name b.c.example. below */
	expect(val_nsec_prove_nodata(l, W("c.example."), T_A, &r),
		SEC_SECURE, &r, 0);
	/* ... that NSEC is no proof for a name below the ENT */
	expect(val_nsec_prove_nodata(l, W("q.c.example."), T_A, &r),
		SEC_BOGUS, &r, VAL_EDE_NSEC_MISSING);
	ldns_rr_list_deep_free(l);
	/* a CNAME at the name: we should have had it */
	l = rrs("cn.example. NSEC d.example. CNAME RRSIG NSEC", NULL);
	expect(val_nsec_prove_nodata(l, W("cn.example."), T_A, &r),
		SEC_BOGUS, &r, VAL_EDE_NSEC_MISSING);
	ldns_rr_list_deep_free(l);
	/* empty and NULL lists */
	l = ldns_rr_list_new();
	expect(val_nsec_prove_nodata(l, W("a.example."), T_TXT, &r),
		SEC_BOGUS, &r, VAL_EDE_NSEC_MISSING);
	ldns_rr_list_free(l);
	expect(val_nsec_prove_nodata(NULL, W("a.example."), T_TXT, &r),
		SEC_BOGUS, &r, VAL_EDE_NSEC_MISSING);
	/* the apex NSEC proves NODATA at the apex */
	l = nsecs("example.", NULL);
	expect(val_nsec_prove_nodata(l, W("example."), T_TXT, &r),
		SEC_SECURE, &r, 0);
	ldns_rr_list_deep_free(l);
}

static void test_nxdomain(void** st)
{
	struct val_reason r;
	ldns_rr_list* l;
	(void)st;
	/* b.example.: covered by a.example.'s NSEC, ce example., and
	 * *.example. covered by the apex NSEC */
	l = nsecs("a.example.", "example.", NULL);
	expect(val_nsec_prove_nxdomain(l, W("b.example."), &r), SEC_SECURE,
		&r, 0);
	ldns_rr_list_deep_free(l);
	/* missing the NSEC for the wildcard */
	l = nsecs("a.example.", NULL);
	expect(val_nsec_prove_nxdomain(l, W("b.example."), &r), SEC_BOGUS,
		&r, VAL_EDE_NSEC_MISSING);
	ldns_rr_list_deep_free(l);
	/* only the wildcard proof */
	l = nsecs("example.", NULL);
	expect(val_nsec_prove_nxdomain(l, W("b.example."), &r), SEC_BOGUS,
		&r, VAL_EDE_NSEC_MISSING);
	ldns_rr_list_deep_free(l);
	/* the wrap: zz.example. after the last NSEC */
	l = nsecs("z.example.", "example.", NULL);
	expect(val_nsec_prove_nxdomain(l, W("zz.example."), &r), SEC_SECURE,
		&r, 0);
	ldns_rr_list_deep_free(l);
	/* q.c.example. below the ENT: covered by b.c.example.'s NSEC, ce
	 * c.example. (from its owner), so *.c.example. must be disproven:
	 * a.example.'s NSEC covers it */
	l = nsecs("b.c.example.", NULL);
	expect(val_nsec_prove_nxdomain(l, W("q.c.example."), &r), SEC_BOGUS,
		&r, VAL_EDE_NSEC_MISSING);
	ldns_rr_list_deep_free(l);
	l = nsecs("b.c.example.", "a.example.", NULL);
	expect(val_nsec_prove_nxdomain(l, W("q.c.example."), &r), SEC_SECURE,
		&r, 0);
	/* the ENT itself is no name error */
	expect(val_nsec_prove_nxdomain(l, W("c.example."), &r), SEC_BOGUS,
		&r, VAL_EDE_NSEC_MISSING);
	ldns_rr_list_deep_free(l);
	/* an existing name */
	l = nsecs("a.example.", "example.", NULL);
	expect(val_nsec_prove_nxdomain(l, W("a.example."), &r), SEC_BOGUS,
		&r, VAL_EDE_NSEC_MISSING);
	ldns_rr_list_deep_free(l);
}

static void test_nxdomain_wildcard_exists(void** st)
{
	struct val_reason r;
	ldns_rr_list* l;
	(void)st;
	/* y.w.example. is covered by *.w.example.'s NSEC (ce w.example.)
	 * but *.w.example. exists: no NSEC can cover it */
	l = nsecs("*.w.example.", "w.example.", "example.", "z.example.",
		NULL);
	expect(val_nsec_prove_nxdomain(l, W("y.w.example."), &r), SEC_BOGUS,
		&r, VAL_EDE_NSEC_MISSING);
	ldns_rr_list_deep_free(l);
	/* and a forged "ce" from an NSEC further away does not help: the ce
	 * comes from the NSEC that covers the name */
	l = nsecs("*.w.example.", "example.", NULL);
	expect(val_nsec_prove_nxdomain(l, W("y.w.example."), &r), SEC_BOGUS,
		&r, VAL_EDE_NSEC_MISSING);
	ldns_rr_list_deep_free(l);
}

static void test_wildcard_answer(void** st)
{
	struct val_reason r;
	ldns_rr_list* l;
	(void)st;
	/* x.w.example. A from *.w.example.: the wildcard's NSEC covers
	 * x.w.example. with closest encloser w.example. */
	l = nsecs("*.w.example.", NULL);
	expect(val_nsec_prove_wildcard_answer(l, W("x.w.example."),
		W("w.example."), &r), SEC_SECURE, &r, 0);
	/* a deeper name from the same wildcard */
	expect(val_nsec_prove_wildcard_answer(l, W("p.x.w.example."),
		W("w.example."), &r), SEC_SECURE, &r, 0);
	/* the RRSIG claims another wildcard: the ce does not match */
	expect(val_nsec_prove_wildcard_answer(l, W("x.w.example."),
		W("example."), &r), SEC_BOGUS, &r, VAL_EDE_NSEC_MISSING);
	/* the wildcard is not above the name */
	expect(val_nsec_prove_wildcard_answer(l, W("x.w.example."),
		W("a.example."), &r), SEC_BOGUS, &r, VAL_EDE_NSEC_MISSING);
	ldns_rr_list_deep_free(l);
	/* without the no-closer-match NSEC */
	l = nsecs("w.example.", NULL);
	expect(val_nsec_prove_wildcard_answer(l, W("x.w.example."),
		W("w.example."), &r), SEC_BOGUS, &r, VAL_EDE_NSEC_MISSING);
	ldns_rr_list_deep_free(l);
	/* a closer name exists: b.c.example. is not from *.example. */
	l = nsecs("a.example.", "b.c.example.", NULL);
	expect(val_nsec_prove_wildcard_answer(l, W("b.c.example."),
		W("example."), &r), SEC_BOGUS, &r, VAL_EDE_NSEC_MISSING);
	ldns_rr_list_deep_free(l);
}

static void test_wildcard_nodata(void** st)
{
	struct val_reason r;
	ldns_rr_list* l;
	(void)st;
	/* x.w.example. TXT: *.w.example. has no TXT, and its NSEC also
	 * proves x.w.example. does not exist with ce w.example. */
	l = nsecs("*.w.example.", NULL);
	expect(val_nsec_prove_nodata(l, W("x.w.example."), T_TXT, &r),
		SEC_SECURE, &r, 0);
	/* the wildcard has the type */
	expect(val_nsec_prove_nodata(l, W("x.w.example."), T_A, &r),
		SEC_BOGUS, &r, VAL_EDE_NSEC_MISSING);
	ldns_rr_list_deep_free(l);
	/* the wildcard NSEC without the proof that the name does not
	 * exist: a.z.example. is not below w.example. */
	l = nsecs("*.w.example.", NULL);
	expect(val_nsec_prove_nodata(l, W("a.z.example."), T_TXT, &r),
		SEC_BOGUS, &r, VAL_EDE_NSEC_MISSING);
	ldns_rr_list_deep_free(l);
	/* name error NSEC with another ce than the wildcard's */
	l = rrs("*.w.example. NSEC z.example. A RRSIG NSEC",
		"a.example. NSEC b.c.example. A RRSIG NSEC", NULL);
	expect(val_nsec_prove_nodata(l, W("b.example."), T_TXT, &r),
		SEC_BOGUS, &r, VAL_EDE_NSEC_MISSING);
	ldns_rr_list_deep_free(l);
	/* an empty non-terminal wildcard: *.e.example. has no data but
	 * x.*.e.example. exists; the NSEC before it shows the wildcard,
	 * but alone, without an NSEC that proves q.e.example. does not
	 * exist, it is no proof */
	l = rrs("e.example. NSEC x.*.e.example. A RRSIG NSEC", NULL);
	expect(val_nsec_prove_nodata(l, W("q.e.example."), T_A, &r),
		SEC_BOGUS, &r, VAL_EDE_NSEC_MISSING);
	ldns_rr_list_deep_free(l);
	l = rrs("e.example. NSEC x.*.e.example. A RRSIG NSEC",
		"d.example. NSEC e.example. A RRSIG NSEC", NULL);
	/* q.e.example. > x.*.e.example. canonically, so this chain does not
	 * cover it: still no proof */
	expect(val_nsec_prove_nodata(l, W("q.e.example."), T_A, &r),
		SEC_BOGUS, &r, VAL_EDE_NSEC_MISSING);
	ldns_rr_list_deep_free(l);
	l = rrs("e.example. NSEC x.*.e.example. A RRSIG NSEC",
		"x.*.e.example. NSEC z.example. A RRSIG NSEC", NULL);
	expect(val_nsec_prove_nodata(l, W("q.e.example."), T_A, &r),
		SEC_SECURE, &r, 0);
	ldns_rr_list_deep_free(l);
}

static void test_nods(void** st)
{
	struct val_reason r;
	ldns_rr_list* l;
	(void)st;
	/* unsigned child: NS, no DS, no SOA */
	l = nsecs("unsec.example.", NULL);
	expect(val_nsec_prove_nods(l, W("unsec.example."), &r), SEC_SECURE,
		&r, 0);
	ldns_rr_list_deep_free(l);
	/* signed child: DS in the bitmap */
	l = nsecs("sec.example.", NULL);
	expect(val_nsec_prove_nods(l, W("sec.example."), &r), SEC_BOGUS,
		&r, VAL_EDE_NSEC_MISSING);
	ldns_rr_list_deep_free(l);
	/* not a delegation */
	l = nsecs("a.example.", NULL);
	expect(val_nsec_prove_nods(l, W("a.example."), &r),
		SEC_INDETERMINATE, &r, 0);
	/* an empty non-terminal */
	expect(val_nsec_prove_nods(l, W("c.example."), &r),
		SEC_INDETERMINATE, &r, 0);
	/* no NSEC about the name */
	expect(val_nsec_prove_nods(l, W("unsec.example."), &r), SEC_BOGUS,
		&r, VAL_EDE_NSEC_MISSING);
	ldns_rr_list_deep_free(l);
	/* the child's apex NSEC cannot prove the parent has no DS */
	l = rrs("unsec.example. NSEC www.unsec.example. NS SOA RRSIG NSEC "
		"DNSKEY", NULL);
	expect(val_nsec_prove_nods(l, W("unsec.example."), &r), SEC_BOGUS,
		&r, VAL_EDE_NSEC_MISSING);
	ldns_rr_list_deep_free(l);
	/* ... except at the root, which has no parent (as Unbound) */
	l = rrs(". NSEC aaa. NS SOA RRSIG NSEC DNSKEY", NULL);
	expect(val_nsec_prove_nods(l, W("."), &r), SEC_SECURE, &r, 0);
	ldns_rr_list_deep_free(l);
	/* the child's apex NSEC cannot prove NODATA for DS either */
	l = rrs("unsec.example. NSEC www.unsec.example. NS SOA RRSIG NSEC "
		"DNSKEY", NULL);
	expect(val_nsec_prove_nodata(l, W("unsec.example."), T_DS, &r),
		SEC_BOGUS, &r, VAL_EDE_NSEC_MISSING);
	ldns_rr_list_deep_free(l);
	/* the parent's NSEC does prove NODATA for DS */
	l = nsecs("unsec.example.", NULL);
	expect(val_nsec_prove_nodata(l, W("unsec.example."), T_DS, &r),
		SEC_SECURE, &r, 0);
	ldns_rr_list_deep_free(l);
}

static void test_parent_side_misuse(void** st)
{
	struct val_reason r;
	ldns_rr_list* l;
	(void)st;
	/* sec.example.'s NSEC (NS DS, no SOA) covers x.sec.example. in the
	 * parent's order, but says nothing about the child's names */
	l = nsecs("sec.example.", "example.", NULL);
	assert_false(val_nsec_proves_name_error(ldns_rr_list_rr(l, 0),
		W("x.sec.example.")));
	expect(val_nsec_prove_nxdomain(l, W("x.sec.example."), &r), SEC_BOGUS,
		&r, VAL_EDE_NSEC_MISSING);
	expect(val_nsec_prove_nodata(l, W("x.sec.example."), T_A, &r),
		SEC_BOGUS, &r, VAL_EDE_NSEC_MISSING);
	/* NODATA at the delegation from the parent side: a referral was
	 * due, not NODATA */
	expect(val_nsec_prove_nodata(l, W("sec.example."), T_A, &r),
		SEC_BOGUS, &r, VAL_EDE_NSEC_MISSING);
	ldns_rr_list_deep_free(l);
	/* nor be an empty non-terminal proof for a name below the cut
	 * (its next name is below the cut: glue-like, not the child's) */
	l = rrs("sec.example. NSEC ns.y.sec.example. NS DS RRSIG NSEC",
		NULL);
	expect(val_nsec_prove_nodata(l, W("y.sec.example."), T_A, &r),
		SEC_BOGUS, &r, VAL_EDE_NSEC_MISSING);
	ldns_rr_list_deep_free(l);
	/* a DNAME owner above the name cannot deny names below it */
	l = rrs("d.example. NSEC e.example. DNAME RRSIG NSEC",
		"example. NSEC a.example. NS SOA RRSIG NSEC DNSKEY", NULL);
	expect(val_nsec_prove_nxdomain(l, W("x.d.example."), &r), SEC_BOGUS,
		&r, VAL_EDE_NSEC_MISSING);
	ldns_rr_list_deep_free(l);
	/* the parent's NSEC of an unsigned delegation makes answers below
	 * it insecure, not bogus */
	l = nsecs("unsec.example.", NULL);
	assert_true(val_nsec_proves_insecure_delegation(
		ldns_rr_list_rr(l, 0), W("x.unsec.example."), T_A));
	expect(val_nsec_prove_nxdomain(l, W("x.unsec.example."), &r),
		SEC_INSECURE, &r, 0);
	expect(val_nsec_prove_nodata(l, W("x.unsec.example."), T_A, &r),
		SEC_INSECURE, &r, 0);
	/* ... but for qtype DS at the cut that NSEC is the DS proof */
	assert_false(val_nsec_proves_insecure_delegation(
		ldns_rr_list_rr(l, 0), W("unsec.example."), T_DS));
	ldns_rr_list_deep_free(l);
}

/* NSECs as they come from a packet: through wire format (lowercase
 * and upper case names alike). */
static void test_wire(void** st)
{
	struct val_reason r;
	ldns_rr_list* l = rrs("A.Example. NSEC B.C.Example. A RRSIG NSEC",
		"EXAMPLE. NSEC a.example. NS SOA RRSIG NSEC DNSKEY", NULL);
	ldns_rr_list* w = ldns_rr_list_new();
	size_t i;
	(void)st;
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
	expect(val_nsec_prove_nxdomain(w, W("b.example."), &r), SEC_SECURE,
		&r, 0);
	expect(val_nsec_prove_nodata(w, W("a.EXAMPLE."), T_TXT, &r),
		SEC_SECURE, &r, 0);
	expect(val_nsec_prove_nodata(w, W("c.example."), T_TXT, &r),
		SEC_SECURE, &r, 0);
	ldns_rr_list_deep_free(l);
	ldns_rr_list_deep_free(w);
}

static void test_malformed(void** st)
{
	struct val_reason r;
	ldns_rr_list* l = ldns_rr_list_new();
	ldns_rr* n = ldns_rr_new();
	ldns_rr* o = ldns_rr_new();
	(void)st;
	/* an NSEC without rdata, and one whose next name rdf is not a
	 * name: neither proves anything nor crashes */
	ldns_rr_set_type(n, LDNS_RR_TYPE_NSEC);
	ldns_rr_set_owner(n, ldns_dname_new_frm_str("a.example."));
	ldns_rr_list_push_rr(l, n);
	ldns_rr_set_type(o, LDNS_RR_TYPE_NSEC);
	ldns_rr_set_owner(o, ldns_dname_new_frm_str("a.example."));
	ldns_rr_push_rdf(o, ldns_native2rdf_int16(LDNS_RDF_TYPE_INT16, 7));
	ldns_rr_list_push_rr(l, o);
	/* and other types in the list are skipped */
	ldns_rr_list_push_rr(l, rr("a.example. A 192.0.2.1"));
	expect(val_nsec_prove_nodata(l, W("a.example."), T_TXT, &r),
		SEC_BOGUS, &r, VAL_EDE_NSEC_MISSING);
	expect(val_nsec_prove_nxdomain(l, W("b.example."), &r), SEC_BOGUS,
		&r, VAL_EDE_NSEC_MISSING);
	expect(val_nsec_prove_nods(l, W("a.example."), &r), SEC_BOGUS,
		&r, VAL_EDE_NSEC_MISSING);
	assert_false(val_nsec_has_type(n, T_A));
	assert_null(val_nsec_closest_encloser(n, W("b.example.")));
	ldns_rr_list_deep_free(l);
	/* an NSEC without a bitmap has no types */
	n = rr("a.example. NSEC b.example.");
	assert_false(val_nsec_has_type(n, T_A));
	ldns_rr_free(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_canonical_order),
		cmocka_unit_test(test_covers),
		cmocka_unit_test(test_name_helpers),
		cmocka_unit_test(test_bitmap),
		cmocka_unit_test(test_closest_encloser),
		cmocka_unit_test(test_nodata),
		cmocka_unit_test(test_nxdomain),
		cmocka_unit_test(test_nxdomain_wildcard_exists),
		cmocka_unit_test(test_wildcard_answer),
		cmocka_unit_test(test_wildcard_nodata),
		cmocka_unit_test(test_nods),
		cmocka_unit_test(test_parent_side_misuse),
		cmocka_unit_test(test_wire),
		cmocka_unit_test(test_malformed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
