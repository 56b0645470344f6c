/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/iter_edns_strings_test.c - edns-client-string: the
 * table read from a config file, the longest-netblock lookup (IPv4,
 * IPv6, port ignored), the option bytes appended after another
 * option, the opcode, and the configs the parser refuses. */
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
#include "iterator/iter_edns_strings.h"
#include "util/config_file.h"
#include "util/net_help.h"
#include "testdata/unit/conf_text.h"

/* The string looked up for ip (port 5353), or NULL. */
static const char* lookup(const struct edns_strings* es, const char* ip,
	char* buf)
{
	struct sockaddr_storage a;
	socklen_t len;
	const struct edns_string* e;
	assert_true(ipstrtoaddr(ip, 5353, &a, &len));
	if(!(e = edns_strings_lookup(es, &a, len)))
		return NULL;
	memcpy(buf, e->data, e->len);
	buf[e->len] = 0;
	return buf;
}

static void test_longest_match(void** state)
{
	struct config_file* cfg = conf("server:\n"
		"\tedns-client-string: 192.0.2.0/24 \"wide\"\n"
		"\tedns-client-string: 192.0.2.128/25 narrow\n"
		"\tedns-client-string: 192.0.2.7 host\n"
		"\tedns-client-string: 2001:db8::/32 \"six\"\n");
	struct edns_strings* es;
	char buf[EDNS_STRING_MAX + 1];
	(void)state;
	assert_non_null(cfg);
	assert_int_equal(edns_strings_create(cfg, &es), EDNS_STRINGS_OK);
	assert_non_null(es);
	assert_int_equal(es->opcode, 65001);
	assert_string_equal(lookup(es, "192.0.2.1", buf), "wide");
	assert_string_equal(lookup(es, "192.0.2.200", buf), "narrow");
	assert_string_equal(lookup(es, "192.0.2.7", buf), "host");
	assert_string_equal(lookup(es, "2001:db8::53", buf), "six");
	assert_null(lookup(es, "192.0.3.1", buf));
	assert_null(lookup(es, "2001:db9::1", buf));
	edns_strings_delete(es);
	config_delete(cfg);
}

static void test_append_and_opcode(void** state)
{
	struct config_file* cfg = conf("server:\n"
		"\tedns-client-string: 10.0.0.0/8 ab\n"
		"\tedns-client-string-opcode: 258\n");
	struct edns_strings* es;
	struct sockaddr_storage a;
	socklen_t alen;
	uint8_t buf[16] = { 0, 8, 0, 0 };   /* an option already there */
	size_t len = 4;
	const uint8_t want[] = { 0, 8, 0, 0, 1, 2, 0, 2, 'a', 'b' };
	(void)state;
	assert_non_null(cfg);
	assert_int_equal(edns_strings_create(cfg, &es), EDNS_STRINGS_OK);
	assert_true(ipstrtoaddr("10.1.2.3", 53, &a, &alen));
	edns_strings_append(es, &a, alen, buf, &len, sizeof(buf));
	assert_int_equal((int)len, (int)sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
	/* no room: left out, the buffer as it was */
	len = 4;
	edns_strings_append(es, &a, alen, buf, &len, 9);
	assert_int_equal((int)len, 4);
	/* not in the netblock: nothing */
	assert_true(ipstrtoaddr("11.1.2.3", 53, &a, &alen));
	edns_strings_append(es, &a, alen, buf, &len, sizeof(buf));
	assert_int_equal((int)len, 4);
	edns_strings_delete(es);
	config_delete(cfg);
}

static void test_none_and_refused(void** state)
{
	struct config_file* cfg = conf("server:\n\tverbosity: 1\n");
	struct edns_strings* es = (struct edns_strings*)&es;
	char text[EDNS_STRING_MAX + 100];
	(void)state;
	assert_non_null(cfg);
	assert_int_equal(edns_strings_create(cfg, &es), EDNS_STRINGS_OK);
	assert_null(es);
	config_delete(cfg);
	/* the parser refuses a bad netblock and a too long string */
	assert_null(conf("server:\n\tedns-client-string: 10.0.0.0/33 x\n"));
	assert_null(conf("server:\n\tedns-client-string: 10.0.0 x\n"));
	snprintf(text, sizeof(text), "server:\n\tedns-client-string: "
		"10.0.0.0/8 %0*d\n", EDNS_STRING_MAX + 1, 0);
	assert_null(conf(text));
	snprintf(text, sizeof(text), "server:\n\tedns-client-string: "
		"10.0.0.0/8 %0*d\n", EDNS_STRING_MAX, 0);
	cfg = conf(text);
	assert_non_null(cfg);
	assert_int_equal(edns_strings_create(cfg, &es), EDNS_STRINGS_OK);
	assert_int_equal((int)es->list[0].len, EDNS_STRING_MAX);
	edns_strings_delete(es);
	config_delete(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_longest_match),
		cmocka_unit_test(test_append_and_opcode),
		cmocka_unit_test(test_none_and_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
