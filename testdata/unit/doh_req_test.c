/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/doh_req_test.c - the DNS-over-HTTPS request checks
 * (services/doh_req.c): :path against http-endpoint as Unbound judges
 * it, base64url with and without padding and its bad inputs, the
 * content type, and the smallest TTL for Cache-Control. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "services/doh_req.h"

#define S(x) (const uint8_t*)(x), strlen(x)

static void test_path(void** state)
{
	const uint8_t* p;
	size_t n;
	(void)state;
	assert_int_equal(doh_check_path("/dns-query", S("/dns-query"), &p, &n),
		DOH_PATH_PLAIN);
	assert_int_equal(doh_check_path("/dns-query", S("/dns-query?dns=AAAB"),
		&p, &n), DOH_PATH_QUERY);
	assert_int_equal(n, 4);
	assert_memory_equal(p, "AAAB", 4);
	/* an empty parameter is a query (that will not decode to DNS) */
	assert_int_equal(doh_check_path("/dns-query", S("/dns-query?dns="),
		&p, &n), DOH_PATH_QUERY);
	assert_int_equal(n, 0);
	assert_int_equal(doh_check_path("/dns-query", S("/dns-quer"), &p, &n),
		DOH_PATH_WRONG);
	assert_int_equal(doh_check_path("/dns-query", S("/dns-queryx"), &p,
		&n), DOH_PATH_WRONG);
	assert_int_equal(doh_check_path("/dns-query", S("/dns-query?foo=1"),
		&p, &n), DOH_PATH_WRONG);
	assert_int_equal(doh_check_path("/dns-query", S("/other?dns=AAAA"),
		&p, &n), DOH_PATH_WRONG);
	assert_int_equal(doh_check_path("/q", S("/q?dns=x"), &p, &n),
		DOH_PATH_QUERY);
}

static void test_b64url(void** state)
{
	uint8_t out[16];
	(void)state;
	/* RFC 4648 test vectors, url alphabet, with and without padding */
	assert_int_equal(doh_b64url_decode(S("Zm9vYmFy"), out, sizeof(out)),
		6);
	assert_memory_equal(out, "foobar", 6);
	assert_int_equal(doh_b64url_decode(S("Zm9vYg"), out, sizeof(out)), 4);
	assert_memory_equal(out, "foob", 4);
	assert_int_equal(doh_b64url_decode(S("Zm9vYg=="), out, sizeof(out)),
		4);
	assert_int_equal(doh_b64url_decode(S("Zg"), out, sizeof(out)), 1);
	assert_int_equal(doh_b64url_decode(S(""), out, sizeof(out)), 0);
	/* - and _ are 62 and 63; + and / are not base64url */
	assert_int_equal(doh_b64url_decode(S("-_8"), out, sizeof(out)), 2);
	assert_int_equal(out[0], 0xfb);
	assert_int_equal(out[1], 0xff);
	assert_int_equal(doh_b64url_decode(S("+/8"), out, sizeof(out)), -1);
	assert_int_equal(doh_b64url_decode(S("Zm9v YQ"), out, sizeof(out)),
		-1);
	/* one character past a group cannot end a byte */
	assert_int_equal(doh_b64url_decode(S("Zm9vY"), out, sizeof(out)), -1);
	/* a bad character in each place of a whole group, a byte over
	 * 127 (the table's sign), and inside the last, partial group */
	assert_int_equal(doh_b64url_decode(S("*m9vYmFy"), out, sizeof(out)),
		-1);
	assert_int_equal(doh_b64url_decode(S("Zm9vYm=y"), out, sizeof(out)),
		-1);
	assert_int_equal(doh_b64url_decode(S("Zm9vY\xff" "Fy"), out,
		sizeof(out)), -1);
	assert_int_equal(doh_b64url_decode(S("Zm9vYm.y"), out, sizeof(out)),
		-1);
	assert_int_equal(doh_b64url_decode(S("Zm9vYm."), out, sizeof(out)),
		-1);
	/* more than one group, and a group then a partial one */
	assert_int_equal(doh_b64url_decode(S("AAECA_8-"), out, sizeof(out)),
		6);
	assert_memory_equal(out, "\x00\x01\x02\x03\xff\x3e", 6);
	assert_int_equal(doh_b64url_decode(S("Zm9vYmE"), out, sizeof(out)), 5);
	assert_memory_equal(out, "fooba", 5);
	/* no room */
	assert_int_equal(doh_b64url_decode(S("Zm9vYmFy"), out, 5), -1);
	assert_int_equal(doh_b64url_decode(S("Zm9vYmFy"), out, 6), 6);
	assert_int_equal(doh_b64url_decode(S("Zm9vYmE"), out, 4), -1);
	assert_true(doh_b64url_room(8) >= 6);
}

static void test_content_type(void** state)
{
	(void)state;
	assert_true(doh_content_type_ok(S("application/dns-message")));
	assert_false(doh_content_type_ok(S("Application/dns-message")));
	assert_false(doh_content_type_ok(S("application/dns-message; x=1")));
	assert_false(doh_content_type_ok(S("text/plain")));
	assert_false(doh_content_type_ok(S("")));
}

/* a reply: question a.test A; answer CNAME (ttl 60, compressed owner)
 * and A (ttl 300); authority SOA (ttl 3600); OPT in additional (its
 * "TTL" is flags, not looked at) */
static const uint8_t reply[] = {
	0, 0, 0x81, 0x80, 0, 1, 0, 2, 0, 1, 0, 1,
	1, 'a', 4, 't', 'e', 's', 't', 0, 0, 1, 0, 1,
	0xc0, 12, 0, 5, 0, 1, 0, 0, 0, 60, 0, 4, 1, 'b', 0xc0, 14,
	1, 'b', 0xc0, 14, 0, 1, 0, 1, 0, 0, 1, 44, 0, 4, 192, 0, 2, 1,
	0xc0, 14, 0, 6, 0, 1, 0, 0, 0x0e, 0x10, 0, 2, 0xc0, 14,
	0, 0, 41, 0x10, 0, 0, 0, 0, 0, 0, 0
};

static void test_min_ttl(void** state)
{
	uint32_t ttl = 0;
	uint8_t m[sizeof(reply)];
	(void)state;
	assert_int_equal(doh_min_ttl(reply, sizeof(reply), &ttl), 1);
	assert_int_equal(ttl, 60);
	/* the smallest is in the authority section */
	memcpy(m, reply, sizeof(m));
	m[66] = 0;
	m[67] = 5;
	assert_int_equal(doh_min_ttl(m, sizeof(m), &ttl), 1);
	assert_int_equal(ttl, 5);
	/* a TTL with the top bit set counts as 0 */
	memcpy(m, reply, sizeof(m));
	m[30] = 0x80;
	assert_int_equal(doh_min_ttl(m, sizeof(m), &ttl), 1);
	assert_int_equal(ttl, 0);
	/* no records (SERVFAIL): no lifetime */
	memcpy(m, reply, 24);
	m[7] = 0;
	m[9] = 0;
	m[11] = 0;
	assert_int_equal(doh_min_ttl(m, 24, &ttl), 0);
	/* cut anywhere inside the records: never a read past the end */
	{
		size_t cut;
		for(cut = 0; cut < 72; cut++)
			assert_int_equal(doh_min_ttl(reply, cut, &ttl), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_b64url),
		cmocka_unit_test(test_content_type),
		cmocka_unit_test(test_min_ttl),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
