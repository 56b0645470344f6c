/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/val_signal_test.c - validator/val_signal.c: the key tags
 * of an anchor (sorted, duplicates kept), the RFC 8145 "_ta-XXXX" name
 * (and its 12-tag bound), and the RFC 8509 sentinel label rules. */
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
#include "validator/val_anchor.h"
#include "validator/val_signal.h"
#include "util/config_file.h"
#include "util/config_options.h"
#include "util/dname.h"

#define DS20326 ". IN DS 20326 8 2 E06D44B80B8F1D39A95C0B0D7C65D08458E8" \
	"80409BBC683457104237C7F8EC8D"
#define DS38696 ". IN DS 38696 8 2 683D2D0ACB8C9B712A1948B27F741219298D" \
	"0A450D612C483AF444A4C0FB2B16"

static struct val_anchors* anchors_of(const char** rrs, size_t n)
{
	struct config_file* cfg = config_create();
	struct val_anchors* a;
	assert_non_null(cfg);
	for(size_t i = 0; i < n; i++)
		assert_true(cfg_strlist_append(&cfg->trust_anchor_list,
			rrs[i]));
	a = val_anchors_create(cfg, VAL_PATHS_OUTSIDE, 1);
	assert_non_null(a);
	config_delete(cfg);
	return a;
}

static const struct val_anchor* find(struct val_anchors* a, const char* n)
{
	ldns_rdf* d = ldns_dname_new_frm_str(n);
	const struct val_anchor* r;
	assert_non_null(d);
	r = val_anchor_find(a, ldns_rdf_data(d), LDNS_RR_CLASS_IN);
	ldns_rdf_deep_free(d);
	assert_non_null(r);
	return r;
}

static void name_is(const uint8_t* wire, size_t len, const char* want)
{
	char s[LDNS_MAX_DOMAINLEN * 4 + 8];
	assert_true(len > 0);
	dname_to_str(wire, s, sizeof(s));
	assert_string_equal(s, want);
}

static void test_keytags_and_ta_name(void** st)
{
	const char* rrs[] = { DS38696, DS20326,
		"example. IN DS 10 8 2 " "AB" "AB" "AB" "AB" "AB" "AB" "AB" "AB"
		"AB" "AB" "AB" "AB" "AB" "AB" "AB" "AB" "AB" "AB" "AB" "AB"
		"AB" "AB" "AB" "AB" "AB" "AB" "AB" "AB" "AB" "AB" "AB" "AB" };
	struct val_anchors* a = anchors_of(rrs, 3);
	uint16_t tags[8];
	uint8_t name[LDNS_MAX_DOMAINLEN + 1];
	(void)st;
	assert_int_equal(val_anchor_keytags(find(a, "."), tags, 8), 2);
	assert_int_equal(tags[0], 20326);
	assert_int_equal(tags[1], 38696);
	name_is(name, val_ta_signal_name(find(a, "."), name),
		"_ta-4f66-9728.");
	/* hex with leading zeros, under the anchor's own name */
	name_is(name, val_ta_signal_name(find(a, "example."), name),
		"_ta-000a.example.");
	val_anchors_delete(a);
}

static void test_ta_name_bound(void** st)
{
	/* 14 DS: one label holds 12 tags ("_ta" + 12 * "-XXXX" = 63) */
	char text[14][200];
	const char* rrs[14];
	struct val_anchors* a;
	uint8_t name[LDNS_MAX_DOMAINLEN + 1];
	size_t len;
	(void)st;
	for(int i = 0; i < 14; i++) {
		snprintf(text[i], sizeof(text[i]), ". IN DS %d 8 2 %064d",
			100 + i, i);
		rrs[i] = text[i];
	}
	a = anchors_of(rrs, 14);
	len = val_ta_signal_name(find(a, "."), name);
	assert_int_equal(name[0], 63);
	assert_int_equal(len, 1 + 63 + 1);
	assert_memory_equal(name + 1, "_ta-0064-0065", 13);
	val_anchors_delete(a);
}

static int fails_type(struct val_anchors* a, const char* qname,
	uint16_t qtype)
{
	ldns_rdf* d = ldns_dname_new_frm_str(qname);
	int r;
	assert_non_null(d);
	r = val_sentinel_fails(a, ldns_rdf_data(d), qtype, LDNS_RR_CLASS_IN);
	ldns_rdf_deep_free(d);
	return r;
}

static int fails(struct val_anchors* a, const char* qname)
{
	return fails_type(a, qname, LDNS_RR_TYPE_A);
}

static void test_sentinel(void** st)
{
	const char* rrs[] = { DS20326 };
	struct val_anchors* a = anchors_of(rrs, 1);
	(void)st;
	assert_false(fails(a, "root-key-sentinel-is-ta-20326.example."));
	assert_true(fails(a, "root-key-sentinel-is-ta-38696.example."));
	assert_true(fails(a, "root-key-sentinel-not-ta-20326.example."));
	assert_false(fails(a, "root-key-sentinel-not-ta-38696.example."));
	/* case does not matter; the tag is decimal, five digits */
	assert_true(fails(a, "Root-Key-Sentinel-Is-TA-00001.example."));
	assert_true(fails(a, "root-key-sentinel-is-ta-00000."));
	assert_false(fails(a, "root-key-sentinel-is-ta-2032.example."));
	assert_false(fails(a, "root-key-sentinel-is-ta-203260.example."));
	assert_false(fails(a, "root-key-sentinel-is-ta-2032a.example."));
	assert_false(fails(a, "root-key-sentinel-is-ta-+2032.example."));
	assert_false(fails(a, "root-key-sentinel-is-ta-99999.example."));
	/* A and AAAA only (RFC 8509 section 3): other types are ordinary */
	assert_true(fails_type(a, "root-key-sentinel-is-ta-38696.example.",
		LDNS_RR_TYPE_AAAA));
	assert_false(fails_type(a, "root-key-sentinel-is-ta-38696.example.",
		LDNS_RR_TYPE_TXT));
	assert_false(fails_type(a, "root-key-sentinel-not-ta-20326.example.",
		LDNS_RR_TYPE_DS));
	/* only the first label counts */
	assert_false(fails(a, "www.root-key-sentinel-is-ta-38696.example."));
	assert_false(fails(a, "example."));
	assert_false(fails(a, "."));
	val_anchors_delete(a);
	/* no root anchor: is-ta always fails, not-ta never */
	{
		const char* sub[] = { "example. IN DS 10 8 2 "
			"ABABABABABABABABABABABABABABABABABABABABABABABABABAB"
			"ABABABABABAB" };
		a = anchors_of(sub, 1);
		assert_true(fails(a, "root-key-sentinel-is-ta-00010.example."));
		assert_false(fails(a,
			"root-key-sentinel-not-ta-00010.example."));
		val_anchors_delete(a);
	}
	assert_true(val_sentinel_fails(NULL, (const uint8_t*)
		"\035root-key-sentinel-is-ta-00001\000", LDNS_RR_TYPE_A,
		LDNS_RR_CLASS_IN));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keytags_and_ta_name),
		cmocka_unit_test(test_ta_name_bound),
		cmocka_unit_test(test_sentinel),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
