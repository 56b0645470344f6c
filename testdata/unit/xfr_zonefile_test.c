/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/xfr_zonefile_test.c - a transferred zone written to its
 * file: the records written without ldns (the common types) read the
 * same as ldns_rr_print writes them, names with characters that need
 * escapes included, and the other types still go through ldns. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ldns/ldns.h>
#include "services/xfr_rr.h"
#include "services/xfr_zonefile.h"

/* wire names, built by hand: labels in text with '|' between them */
static size_t wire(const char* text, uint8_t* out)
{
	size_t n = 0;
	const char* p = text;
	while(*p) {
		const char* e = strchr(p, '|');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		out[n++] = (uint8_t)len;
		memcpy(out + n, p, len);
		n += len;
		p += len + (e ? 1 : 0);
	}
	out[n++] = 0;
	return n;
}

static void add(struct xfr_rrs* l, const char* owner, uint16_t type,
	uint16_t rclass, uint32_t ttl, const uint8_t* rd, size_t rdlen)
{
	uint8_t o[256];
	size_t ol = wire(owner, o);
	assert_true(xfr_rrs_add(l, o, ol, type, rclass, ttl, rd, rdlen));
}

static void add_name(struct xfr_rrs* l, const char* owner, uint16_t type,
	const char* target)
{
	uint8_t t[256];
	add(l, owner, type, 1, 3600, t, wire(target, t));
}

/* What ldns prints for r: the text the file had before this writer. */
static char* ldns_text(const struct xfr_rr* r)
{
	ldns_rr* lr = xfr_rr_to_ldns(r);
	char* s;
	assert_non_null(lr);
	s = ldns_rr2str(lr);
	ldns_rr_free(lr);
	return s;
}

static void test_same_text_as_ldns(void** state)
{
	struct xfr_rrs l;
	uint8_t soa[512], zone[64];
	uint8_t a[4] = { 192, 0, 2, 1 };
	uint8_t aaaa[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 1 };
	uint8_t txt[] = { 5, 'h', 'e', 'l', 'l', 'o' };
	uint8_t mx[64];
	char path[] = "/tmp/xfr_zonefile_test.XXXXXX";
	char line[4096];
	size_t n, i;
	int fd;
	FILE* in;
	(void)state;
	xfr_rrs_init(&l);
	wire("rpz|example", zone);
	n = wire("ns|rpz|example", soa);
	n += wire("host|rpz|example", soa + n);
	for(i = 0; i < 20; i++)   /* serial 4294967295, then 1, 2, 3, 4 */
		soa[n + i] = i < 4 ? 0xff : (uint8_t)(i % 4 == 3 ? i / 4 : 0);
	add(&l, "rpz|example", 6, 1, 86400, soa, n + 20);
	add_name(&l, "rpz|example", 2, "ns|rpz|example");
	add_name(&l, "b0|blocked|rpz|example", 5, "");
	add_name(&l, "*|b1|blocked|rpz|example", 5, "*");
	add_name(&l, "walled|rpz|example", 5, "rpz-passthru");
	add_name(&l, "24|1|2|0|192|rpz-ip|rpz|example", 12, "x|example");
	add_name(&l, "d|rpz|example", 39, "target|example");
	/* characters a zone file must escape, in the owner and the target */
	add_name(&l, "a.b|c;d|e(f)|g\\h|sp ace|rpz|example", 5,
		"q\"t|$d@|tab\t|example");
	{
		uint8_t o[64] = { 3, 0x00, 0x7f, 0xff, 3, 'r', 'p', 'z', 7,
			'e', 'x', 'a', 'm', 'p', 'l', 'e', 0 };
		assert_true(xfr_rrs_add(&l, o, 17, 1, 1, 60, a, 4));
	}
	{   /* the longest name there is: 255 octets */
		uint8_t o[255];
		size_t at = 0, lab;
		for(lab = 0; lab < 4; lab++) {
			size_t len = lab < 3 ? 63 : 61;
			o[at++] = (uint8_t)len;
			memset(o + at, 'a' + (int)lab, len);
			at += len;
		}
		o[at++] = 0;
		assert_int_equal(at, 255);
		assert_true(xfr_rrs_add(&l, o, at, 1, 1, 60, a, 4));
	}
	add(&l, "a|rpz|example", 1, 1, 0, a, 4);
	add(&l, "aaaa|rpz|example", 28, 1, 7, aaaa, 16);
	/* through ldns: other types, another class */
	add(&l, "t|rpz|example", 16, 1, 300, txt, sizeof(txt));
	mx[0] = 0;
	mx[1] = 10;
	n = wire("mail|example", mx + 2);
	add(&l, "m|rpz|example", 15, 1, 300, mx, n + 2);
	add(&l, "ch|rpz|example", 1, 3, 300, a, 4);

	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_true(xfr_zonefile_write(path, zone, &l));
	assert_non_null(in = fopen(path, "r"));
	for(i = 0; i < l.n; i++) {
		char* want = ldns_text(&l.v[i]);
		assert_non_null(fgets(line, sizeof(line), in));
		assert_string_equal(line, want);
		free(want);
	}
	assert_null(fgets(line, sizeof(line), in));
	fclose(in);
	unlink(path);
	xfr_rrs_clear(&l);
}

/* rdata of a length its type does not have goes to ldns, which fails:
 * the write fails and the old file stays */
static void test_bad_rdata_not_written(void** state)
{
	struct xfr_rrs l;
	uint8_t zone[64], bad[3] = { 1, 0, 0 };
	char path[] = "/tmp/xfr_zonefile_test.XXXXXX";
	char line[64];
	int fd;
	FILE* in;
	(void)state;
	xfr_rrs_init(&l);
	wire("rpz|example", zone);
	add(&l, "x|rpz|example", 1, 1, 60, bad, 3);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "old\n", 4), 4);
	close(fd);
	assert_false(xfr_zonefile_write(path, zone, &l));
	assert_non_null(in = fopen(path, "r"));
	assert_non_null(fgets(line, sizeof(line), in));
	assert_string_equal(line, "old\n");
	fclose(in);
	unlink(path);
	xfr_rrs_clear(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_text_as_ldns),
		cmocka_unit_test(test_bad_rdata_not_written),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
