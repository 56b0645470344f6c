/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/anchor_xml_test.c - unbound-anchor's root-anchors.xml
 * reader (smallapp/anchor/anchor_xml.c): validity windows, dates with
 * offsets, white space in fields, and every malformed input it must
 * refuse (entities, another zone, missing or non-hex fields, bad dates,
 * over-long text, cut-off documents). */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "smallapp/anchor/anchor_xml.h"

#define NOW 1700000000   /* 2023-11-14T22:13:20Z */

#define HEAD "<?xml version=\"1.0\"?><TrustAnchor><Zone>.</Zone>"
#define KEY(attrs, tag, dig) "<KeyDigest " attrs "><KeyTag>" tag \
	"</KeyTag><Algorithm>8</Algorithm><DigestType>2</DigestType>" \
	"<Digest>" dig "</Digest></KeyDigest>"
#define TAIL "</TrustAnchor>"
#define D64 "E06D44B80B8F1D39A95C0B0D7C65D08458E880409BBC683457104237C7F8EC8D"

/* the DS lines of xml (the comment line dropped), or NULL on error */
static char* ds_of(const char* xml, int* n)
{
	char* out = anchor_xml_to_ds(xml, strlen(xml), NOW, n);
	char* nl;
	if(!out)
		return NULL;
	assert_true(strncmp(out, "; created by unbound-anchor on ", 31) == 0);
	nl = strchr(out, '\n');
	assert_non_null(nl);
	memmove(out, nl + 1, strlen(nl + 1) + 1);
	return out;
}

static void test_dates(void** st)
{
	(void)st;
	assert_int_equal(anchor_xml_date("2010-07-15T00:00:00Z"), 1279152000);
	assert_int_equal(anchor_xml_date("2010-07-15T00:00:00"), 1279152000);
	assert_int_equal(anchor_xml_date("2010-07-15T02:00:00+02:00"),
		1279152000);
	assert_int_equal(anchor_xml_date("2010-07-14T23:00:00.123-01:00"),
		1279152000);
	assert_int_equal(anchor_xml_date(" 2010-07-15T00:00:00Z "),
		1279152000);
	assert_int_equal(anchor_xml_date("2010-07-15"), 0);
	assert_int_equal(anchor_xml_date("2010-13-15T00:00:00Z"), 0);
	assert_int_equal(anchor_xml_date("2010-07-15T00:00:00Zjunk"), 0);
	assert_int_equal(anchor_xml_date("yesterday"), 0);
	assert_int_equal(anchor_xml_date(""), 0);
}

static void test_windows(void** st)
{
	int n = -1;
	char* ds = ds_of(HEAD
		KEY("validFrom=\"2010-07-15T00:00:00+00:00\" "
		    "validUntil=\"2019-01-11T00:00:00+00:00\"", "19036", "AA")
		KEY("validFrom=\"2017-02-02T00:00:00+00:00\"", " 20326 ",
		    "\n" D64 "\n")
		KEY("validFrom=\"2030-01-01T00:00:00Z\"", "1", "BB")
		KEY("", "38696", "CC")
		TAIL, &n);
	(void)st;
	assert_non_null(ds);
	assert_int_equal(n, 2);
	assert_string_equal(ds, ". IN DS 20326 8 2 " D64 "\n"
		". IN DS 38696 8 2 CC\n");
	free(ds);
	ds = ds_of(HEAD KEY("", "65535", "00") TAIL, &n);
	assert_non_null(ds);
	assert_string_equal(ds, ". IN DS 65535 8 2 00\n");
	free(ds);
	/* no key valid now: zero keys, no error (the root went unsigned) */
	ds = ds_of(HEAD KEY("validUntil=\"2011-01-01T00:00:00Z\"", "5", "AA")
		TAIL, &n);
	assert_non_null(ds);
	assert_int_equal(n, 0);
	assert_string_equal(ds, "");
	free(ds);
}

static void refused(const char* xml)
{
	int n = 0;
	char* ds = anchor_xml_to_ds(xml, strlen(xml), NOW, &n);
	if(ds)
		fail_msg("accepted: %s", xml);
}

static void test_refused(void** st)
{
	static char big[8192];
	(void)st;
	refused("");
	refused(HEAD);                                  /* cut off */
	refused(HEAD KEY("", "1", "AA"));               /* cut off */
	refused(HEAD KEY("", "1", "AA") "</TrustAnch");
	refused("<?xml version=\"1.0\"?><TrustAnchor><Zone>com.</Zone>"
		KEY("", "1", "AA") TAIL);                 /* another zone */
	refused(HEAD KEY("", "", "AA") TAIL);           /* empty tag */
	refused(HEAD KEY("", "12a", "AA") TAIL);        /* not a number */
	refused(HEAD KEY("", "1", "XYZ") TAIL);         /* not hex */
	/* what ldns would read as another DS (wrapped, padded) */
	refused(HEAD KEY("", "65536", "AA") TAIL);      /* tag over 16 bits */
	refused(HEAD KEY("", "99999999999999999999999", "AA") TAIL);
	refused(HEAD KEY("", "1", "ABC") TAIL);         /* half a byte */
	refused(HEAD "<KeyDigest><KeyTag>1</KeyTag><Algorithm>256</Algorithm>"
		"<DigestType>2</DigestType><Digest>AA</Digest></KeyDigest>"
		TAIL);
	refused(HEAD "<KeyDigest><KeyTag>1</KeyTag><Algorithm>8</Algorithm>"
		"<DigestType>256</DigestType><Digest>AA</Digest></KeyDigest>"
		TAIL);
	refused(HEAD "<KeyDigest><KeyTag>1</KeyTag></KeyDigest>" TAIL);
	refused(HEAD KEY("validFrom=\"soon\"", "1", "AA") TAIL);
	refused(HEAD KEY("validUntil=\"2011-02-30\"", "1", "AA") TAIL);
	/* entity declarations (billion laughs) stop the parse */
	refused("<?xml version=\"1.0\"?><!DOCTYPE t [<!ENTITY a \"aaaa\">"
		"<!ENTITY b \"&a;&a;&a;&a;\">]><TrustAnchor><Zone>.</Zone>"
		KEY("", "1", "&b;") TAIL);
	/* an element's text over the bound */
	snprintf(big, sizeof(big), HEAD KEY("", "1", "%s") TAIL, "");
	{
		char* p = strstr(big, "<Digest>") + 8;
		size_t tail = strlen(p);
		memmove(p + 4000, p, tail + 1);
		memset(p, 'A', 4000);
	}
	refused(big);
	refused("not xml at all");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dates),
		cmocka_unit_test(test_windows),
		cmocka_unit_test(test_refused),
	};
	setenv("TZ", "UTC", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
