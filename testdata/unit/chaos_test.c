/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/chaos_test.c - CHAOS answers against replies captured
 * from the real Unbound 1.17.1 on loopback (only the ID differs). */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>
#include "util/config_file.h"
#include "util/msgparse.h"
#include "util/msgencode.h"
#include "services/chaos.h"

static size_t unhex(const char* h, uint8_t* out)
{
	size_t n = 0;
	while(h[0] && h[1]) {
		unsigned v;
		sscanf(h, "%2x", &v);
		out[n++] = (uint8_t)v;
		h += 2;
	}
	return n;
}

/* Parse the query (hex) and answer it; returns the reply length, 0 when
 * chaos_answer declined. */
static size_t ask(const struct config_file* cfg, const char* qhex,
	uint8_t* out)
{
	uint8_t q[512];
	size_t qlen = unhex(qhex, q), n = 0;
	struct query_info qi;
	assert_int_equal(query_parse(q, qlen, &qi), PARSE_OK);
	if(!chaos_answer(cfg, &qi, out, 512, 1232, &n))
		return 0;
	return n;
}

static void expect(const struct config_file* cfg, const char* qhex,
	const char* rhex)
{
	uint8_t out[512], want[512];
	size_t n = ask(cfg, qhex, out), wn = unhex(rhex, want);
	assert_int_equal(n, wn);
	assert_memory_equal(out, want, wn);
}

/* queries: id.server CH TXT, ID.SERVER CH TXT, hostname.bind CH ANY,
 * version.bind CH TXT, version.server CH A; one with RD and EDNS DO */
#define Q_ID "e98800000001000000000000026964067365727665720000100003"
#define Q_ID_UP "c53000000001000000000000024944065345525645520000100003"
#define Q_HOST_ANY "26ba0000000100000000000008686f73746e616d650462696e640000ff0003"
#define Q_VB "496a000000010000000000000776657273696f6e0462696e640000100003"
#define Q_VS_A "88fa000000010000000000000776657273696f6e067365727665720000010003"
#define Q_ID_EDNS "4b1a01000001000000000001026964067365727665720000100003" \
	"0000291000000080000000"

static void test_identity_version(void** state)
{
	struct config_file cfg;
	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	cfg.identity = "x";
	cfg.version = "myver";
	expect(&cfg, Q_ID, "e98880800001000100000000026964067365727665720000"
		"100003c00c001000030000000000020178");
	expect(&cfg, Q_ID_UP, "c53080800001000100000000024944065345525645520000"
		"100003c00c001000030000000000020178");
	expect(&cfg, Q_VB, "496a808000010001000000000776657273696f6e0462696e64"
		"0000100003c00c00100003000000000006056d79766572");
	expect(&cfg, Q_ID_EDNS, "4b1a81800001000100000001026964067365727665720000"
		"100003c00c00100003000000000002017800002904d0000080000000");
	/* other qtypes for these names: REFUSED, no AA */
	expect(&cfg, Q_VS_A, "88fa808500010000000000000776657273696f6e0673657276"
		"65720000010003");
}

static void test_defaults(void** state)
{
	struct config_file cfg;
	uint8_t out[512];
	char host[256], want[300];
	size_t n;
	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	/* identity: the hostname */
	assert_int_equal(gethostname(host, sizeof(host)), 0);
	n = ask(&cfg, Q_HOST_ANY, out);
	assert_int_equal(n, 31 + 12 + 1 + strlen(host));
	assert_int_equal(out[31 + 12], strlen(host));
	assert_memory_equal(out + 31 + 13, host, strlen(host));
	assert_memory_equal(out + 31, "\xc0\x0c\0\x10\0\3\0\0\0\0", 10);
	/* version: ours, empty string means the default too */
	cfg.version = "";
	n = ask(&cfg, Q_VB, out);
	snprintf(want, sizeof(want), "unbound 1.17.1-compatible %s",
		PACKAGE_VERSION);
	assert_int_equal(out[30 + 12], strlen(want));
	assert_memory_equal(out + 30 + 13, want, strlen(want));
	assert_int_equal(n, 30 + 13 + strlen(want));
}

static void test_hidden(void** state)
{
	struct config_file cfg;
	uint8_t out[512];
	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	cfg.hide_identity = 1;
	cfg.hide_version = 1;
	expect(&cfg, Q_ID, "e98880850001000000000000026964067365727665720000"
		"100003");
	expect(&cfg, Q_VB, "496a808500010000000000000776657273696f6e0462696e64"
		"0000100003");
	expect(&cfg, Q_ID_EDNS, "4b1a81850001000000000001026964067365727665720000"
		"10000300002904d0000080000000");
	/* trustanchor.unbound: empty NOERROR (no anchors), REFUSED hidden */
	expect(&cfg, "733b010000010000000000000b7472757374616e63686f7207756e626f756e640000100003",
		"733b818000010000000000000b7472757374616e63686f7207756e626f756e640000100003");
	cfg.hide_trustanchor = 1;
	expect(&cfg, "733b010000010000000000000b7472757374616e63686f7207756e626f756e640000100003",
		"733b818500010000000000000b7472757374616e63686f7207756e626f756e640000100003");
	/* not ours: other names, other classes */
	assert_int_equal(ask(&cfg,
		"291b0100000100000000000003666f6f036261720000100003", out), 0);
	assert_int_equal(ask(&cfg,
		"e98800000001000000000000026964067365727665720000100001", out), 0);
}

static void test_long_identity(void** state)
{
	struct config_file cfg;
	char id[400];
	uint8_t out[512];
	size_t n;
	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	memset(id, 'i', sizeof(id) - 1);
	id[sizeof(id) - 1] = 0;
	cfg.identity = id;
	n = ask(&cfg, Q_ID, out);
	assert_int_equal(out[27 + 10], 1);     /* rdlength 256 */
	assert_int_equal(out[27 + 11], 0);
	assert_int_equal(out[27 + 12], 255);
	assert_int_equal(n, 27 + 12 + 256);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identity_version),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_hidden),
		cmocka_unit_test(test_long_identity),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
