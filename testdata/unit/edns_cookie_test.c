/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/edns_cookie_test.c - RFC 9018 server cookies and cookie
 * secrets (util/edns_cookie.c): the RFC's appendix A examples, the time
 * window, versions and lengths, staging secrets, the secrets file's
 * parser (bad input named by line), writing it back, and the rotation of
 * unbound-control's commands. */
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
#include "util/edns_cookie.h"

/* RFC 9018 appendix A: the secret of every example */
static const uint8_t secret_a[16] = {
	0xe5, 0xe9, 0x73, 0xe5, 0xa6, 0xb2, 0xa4, 0x3f,
	0x48, 0xe7, 0xdc, 0x84, 0x9e, 0x37, 0xbf, 0xcf };
static const uint8_t ip_a1[4] = { 198, 51, 100, 100 };
static const uint8_t ip_a3[4] = { 203, 0, 113, 203 };
static const uint8_t cookie_a1[24] = {
	0x24, 0x64, 0xc4, 0xab, 0xcf, 0x10, 0xc9, 0x57,
	0x01, 0x00, 0x00, 0x00, 0x5c, 0xf7, 0x9f, 0x11,
	0x1f, 0x81, 0x30, 0xc3, 0xee, 0xe2, 0x94, 0x80 };

/* A.1: a client cookie only gets a server cookie */
static void test_rfc9018_a1(void** state)
{
	uint8_t c[24];
	(void)state;
	memcpy(c, cookie_a1, 8);
	assert_int_equal(edns_cookie_check(c, 8, secret_a, ip_a1, 4,
		1559731985), COOKIE_CLIENT_ONLY);
	edns_cookie_make(c, secret_a, ip_a1, 4, 1559731985);
	assert_memory_equal(c, cookie_a1, 24);
	assert_int_equal(edns_cookie_check(c, 24, secret_a, ip_a1, 4,
		1559731985), COOKIE_VALID);
}

/* A.2: the same cookie 40 minutes later: valid, and renewed */
static void test_rfc9018_a2(void** state)
{
	static const uint8_t want[24] = {
		0x24, 0x64, 0xc4, 0xab, 0xcf, 0x10, 0xc9, 0x57,
		0x01, 0x00, 0x00, 0x00, 0x5c, 0xf7, 0xa8, 0x71,
		0xd4, 0xa5, 0x64, 0xa1, 0x44, 0x2a, 0xca, 0x77 };
	uint8_t c[24];
	(void)state;
	assert_int_equal(edns_cookie_check(cookie_a1, 24, secret_a, ip_a1, 4,
		1559734385), COOKIE_VALID_RENEW);
	memcpy(c, cookie_a1, 24);
	edns_cookie_make(c, secret_a, ip_a1, 4, 1559734385);
	assert_memory_equal(c, want, 24);
}

/* A.3: another client, a cookie from another server (reserved bits set)
 * that is too old: a new one */
static void test_rfc9018_a3(void** state)
{
	static const uint8_t in[24] = {
		0xfc, 0x93, 0xfc, 0x62, 0x80, 0x7d, 0xdb, 0x86,
		0x01, 0xab, 0xcd, 0xef, 0x5c, 0xf7, 0x8f, 0x71,
		0xa3, 0x14, 0x22, 0x7b, 0x66, 0x79, 0xeb, 0xf5 };
	static const uint8_t want[24] = {
		0xfc, 0x93, 0xfc, 0x62, 0x80, 0x7d, 0xdb, 0x86,
		0x01, 0x00, 0x00, 0x00, 0x5c, 0xf7, 0xa9, 0xac,
		0xf7, 0x3a, 0x78, 0x10, 0xac, 0xa2, 0x38, 0x1e };
	uint8_t c[24];
	(void)state;
	assert_int_equal(edns_cookie_check(in, 24, secret_a, ip_a3, 4,
		1559734700), COOKIE_EXPIRED);
	memcpy(c, in, 24);
	edns_cookie_make(c, secret_a, ip_a3, 4, 1559734700);
	assert_memory_equal(c, want, 24);
}

/* IPv6: 16 address bytes hashed; another address does not validate */
static void test_ipv6(void** state)
{
	uint8_t ip6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x02, 0x20, 0, 1,
		0x59, 0xde, 0xd0, 0xf4, 0x87, 0x69, 0x82, 0xb8 };
	uint8_t c[24] = { 0x22, 0x68, 0x1a, 0xb9, 0x7d, 0x52, 0xc2, 0x98 };
	(void)state;
	edns_cookie_make(c, secret_a, ip6, 16, 1559741817);
	assert_int_equal(edns_cookie_check(c, 24, secret_a, ip6, 16,
		1559741817), COOKIE_VALID);
	ip6[15] ^= 1;
	assert_int_equal(edns_cookie_check(c, 24, secret_a, ip6, 16,
		1559741817), COOKIE_INVALID);
}

/* the window: an hour back (renew after half an hour), 5 minutes ahead;
 * across the 2^32 wrap too */
static void test_times(void** state)
{
	uint32_t t0[] = { 1559731985u, 0xfffffff0u, 5u };
	size_t i;
	(void)state;
	for(i = 0; i < sizeof(t0) / sizeof(t0[0]); i++) {
		uint8_t c[24];
		uint32_t t = t0[i];
		memcpy(c, cookie_a1, 8);
		edns_cookie_make(c, secret_a, ip_a1, 4, t);
		assert_int_equal(edns_cookie_check(c, 24, secret_a, ip_a1, 4,
			t + 1800), COOKIE_VALID);
		assert_int_equal(edns_cookie_check(c, 24, secret_a, ip_a1, 4,
			t + 1801), COOKIE_VALID_RENEW);
		assert_int_equal(edns_cookie_check(c, 24, secret_a, ip_a1, 4,
			t + 3600), COOKIE_VALID_RENEW);
		assert_int_equal(edns_cookie_check(c, 24, secret_a, ip_a1, 4,
			t + 3601), COOKIE_EXPIRED);
		assert_int_equal(edns_cookie_check(c, 24, secret_a, ip_a1, 4,
			t - 300), COOKIE_VALID);
		assert_int_equal(edns_cookie_check(c, 24, secret_a, ip_a1, 4,
			t - 301), COOKIE_FUTURE);
	}
}

/* lengths other than 24 are a client cookie only; version not 1, a
 * changed byte or another secret: invalid */
static void test_versions_lengths_secrets(void** state)
{
	uint8_t c[40], other[16];
	size_t i;
	(void)state;
	memcpy(c, cookie_a1, 24);
	memset(c + 24, 0x55, 16);
	for(i = 8; i <= 40; i++)
		if(i != 24)
			assert_int_equal(edns_cookie_check(c, i, secret_a,
				ip_a1, 4, 1559731985), COOKIE_CLIENT_ONLY);
	c[8] = 2;
	assert_int_equal(edns_cookie_check(c, 24, secret_a, ip_a1, 4,
		1559731985), COOKIE_INVALID);
	c[8] = 1;
	for(i = 0; i < 24; i++) {
		if(i >= 12 && i < 16)
			continue; /* the time: judged by the window first */
		c[i] ^= 0x40;
		assert_int_equal(edns_cookie_check(c, 24, secret_a, ip_a1, 4,
			1559731985), COOKIE_INVALID);
		c[i] ^= 0x40;
	}
	memcpy(other, secret_a, 16);
	other[0] ^= 1;
	assert_int_equal(edns_cookie_check(c, 24, other, ip_a1, 4,
		1559731985), COOKIE_INVALID);
}

/* a cookie of the staging secret is valid but renewed; none: invalid */
static void test_check_all(void** state)
{
	struct cookie_secrets s;
	(void)state;
	memset(&s, 0, sizeof(s));
	assert_int_equal(edns_cookie_check_all(cookie_a1, 24, &s, ip_a1, 4,
		1559731985), COOKIE_INVALID);
	assert_int_equal(edns_cookie_check_all(cookie_a1, 8, &s, ip_a1, 4,
		1559731985), COOKIE_CLIENT_ONLY);
	s.count = 2;
	memset(s.secret[0], 7, 16);
	memcpy(s.secret[1], secret_a, 16);
	assert_int_equal(edns_cookie_check_all(cookie_a1, 24, &s, ip_a1, 4,
		1559731985), COOKIE_VALID_RENEW);
	memcpy(s.secret[0], secret_a, 16);
	assert_int_equal(edns_cookie_check_all(cookie_a1, 24, &s, ip_a1, 4,
		1559731985), COOKIE_VALID);
	s.count = 1;
	memset(s.secret[0], 7, 16);
	assert_int_equal(edns_cookie_check_all(cookie_a1, 24, &s, ip_a1, 4,
		1559731985), COOKIE_INVALID);
	assert_int_equal(edns_cookie_check_all(cookie_a1, 24, &s, ip_a1, 4,
		1559731985 + 4000), COOKIE_EXPIRED);
}

#define HEX1 "000102030405060708090a0b0c0d0e0f"
#define HEX2 "F0E0D0C0B0A090807060504030201000"

static const char* parse(const char* text, struct cookie_secrets* s,
	int* line)
{
	return cookie_secrets_parse(text, strlen(text), s, line);
}

static void test_file_parse(void** state)
{
	struct cookie_secrets s;
	int line;
	(void)state;
	assert_null(parse("", &s, &line));
	assert_int_equal(s.count, 0);
	assert_null(parse(HEX1 "\n", &s, &line));
	assert_int_equal(s.count, 1);
	assert_int_equal(s.secret[0][15], 0x0f);
	assert_null(parse(HEX1, &s, &line));   /* no newline at the end */
	assert_int_equal(s.count, 1);
	assert_null(parse(HEX1 "\n" HEX2 "\n", &s, &line));
	assert_int_equal(s.count, 2);
	assert_int_equal(s.secret[1][0], 0xf0);
	/* compat: unbound-1.21: lines after the second are not read */
	assert_null(parse(HEX1 "\n" HEX2 "\nnonsense\n", &s, &line));
	assert_int_equal(s.count, 2);
	/* bad input: named by line */
	assert_non_null(parse(HEX1 "\n" "00010203\n", &s, &line));
	assert_int_equal(line, 2);
	assert_int_equal(s.count, 0);
	assert_non_null(parse("x00102030405060708090a0b0c0d0e0f\n", &s,
		&line));
	assert_int_equal(line, 1);
	assert_non_null(parse(HEX1 "\r\n", &s, &line));
	assert_non_null(parse(HEX1 "00\n", &s, &line));
	assert_non_null(parse("\n" HEX1 "\n", &s, &line));
	assert_int_equal(line, 1);
	assert_non_null(parse(" " HEX1 "\n", &s, &line));
}

static void test_file_roundtrip(void** state)
{
	char name[] = "/tmp/edns_cookie_testXXXXXX";
	char err[256];
	struct cookie_secrets s, r;
	FILE* f;
	int fd;
	(void)state;
	fd = mkstemp(name);
	assert_true(fd >= 0);
	close(fd);
	memset(&s, 0, sizeof(s));
	s.count = 2;
	memcpy(s.secret[0], secret_a, 16);
	memset(s.secret[1], 0xab, 16);
	assert_int_equal(cookie_secrets_write_file(name, &s, err,
		sizeof(err)), 1);
	memset(&r, 0, sizeof(r));
	assert_int_equal(cookie_secrets_read_file(name, &r), 1);
	assert_int_equal(r.count, 2);
	assert_memory_equal(r.secret, s.secret, sizeof(s.secret));
	/* Unbound's format: lowercase hex, one a line */
	f = fopen(name, "r");
	assert_non_null(f);
	assert_non_null(fgets(err, sizeof(err), f));
	assert_string_equal(err, "e5e973e5a6b2a43f48e7dc849e37bfcf\n");
	fclose(f);
	/* a bad file, and a missing one, are errors */
	f = fopen(name, "w");
	assert_non_null(f);
	fputs("e5e973e5a6b2a43f48e7dc849e37bfc\n", f);
	fclose(f);
	assert_int_equal(cookie_secrets_read_file(name, &r), 0);
	unlink(name);
	assert_int_equal(cookie_secrets_read_file(name, &r), 0);
	assert_int_equal(cookie_secrets_write_file("/nonexistent/dir/f", &s,
		err, sizeof(err)), 0);
	assert_non_null(strstr(err, "/nonexistent/dir/f"));
}

static void test_rotation(void** state)
{
	struct cookie_secrets s;
	uint8_t a[16], b[16], c[16];
	(void)state;
	memset(&s, 0, sizeof(s));
	memset(a, 0xaa, 16);
	memset(b, 0xbb, 16);
	memset(c, 0xcc, 16);
	assert_int_equal(cookie_secrets_activate(&s), 0);
	assert_int_equal(cookie_secrets_drop(&s), 0);
	cookie_secrets_add(&s, a);          /* none yet: active */
	assert_int_equal(s.count, 1);
	assert_int_equal(cookie_secrets_activate(&s), 0);
	assert_int_equal(cookie_secrets_drop(&s), 0);
	cookie_secrets_add(&s, b);          /* staging */
	assert_int_equal(s.count, 2);
	assert_memory_equal(s.secret[0], a, 16);
	assert_memory_equal(s.secret[1], b, 16);
	cookie_secrets_add(&s, c);          /* replaces staging */
	assert_int_equal(s.count, 2);
	assert_memory_equal(s.secret[1], c, 16);
	assert_int_equal(cookie_secrets_activate(&s), 1);
	assert_memory_equal(s.secret[0], c, 16);
	assert_memory_equal(s.secret[1], a, 16);
	assert_int_equal(cookie_secrets_drop(&s), 1);
	assert_int_equal(s.count, 1);
	assert_memory_equal(s.secret[0], c, 16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc9018_a1),
		cmocka_unit_test(test_rfc9018_a2),
		cmocka_unit_test(test_rfc9018_a3),
		cmocka_unit_test(test_ipv6),
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_versions_lengths_secrets),
		cmocka_unit_test(test_check_all),
		cmocka_unit_test(test_file_parse),
		cmocka_unit_test(test_file_roundtrip),
		cmocka_unit_test(test_rotation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
