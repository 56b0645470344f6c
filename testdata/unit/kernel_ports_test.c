/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/kernel_ports_test.c - may the kernel draw outgoing UDP
 * ports (services/kernel_ports.c): reading the two sysctl files, and
 * the decision against the permitted set. */
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
#include "services/kernel_ports.h"
#include "services/port_pool.h"

static uint8_t avail[PORT_SET_SIZE];

/* Debian's defaults: 32768-60999, nothing reserved. */
static const struct kernel_ports debian = { 1, 32768, 60999, 1 };

static void test_debian_default_allowed(void** state)
{
	(void)state;
	port_set_default(avail);    /* outgoing-port-permit 1024-65535 */
	assert_int_equal(kernel_ports_usable(&debian, avail), 1);
	assert_null(kernel_ports_refusal(&debian, avail));
}

static void test_avoid_inside_refused(void** state)
{
	(void)state;
	port_set_default(avail);
	assert_int_equal(port_set_mark(avail, "40000-40009", 0), 1);
	assert_int_equal(kernel_ports_usable(&debian, avail), 0);
	assert_non_null(strstr(kernel_ports_refusal(&debian, avail),
		"outgoing-port-avoid"));
	/* one port at the edge is enough */
	port_set_default(avail);
	assert_int_equal(port_set_mark(avail, "60999", 0), 1);
	assert_int_equal(kernel_ports_usable(&debian, avail), 0);
	/* an avoid outside the range changes nothing */
	port_set_default(avail);
	assert_int_equal(port_set_mark(avail, "61000-65535", 0), 1);
	assert_int_equal(port_set_mark(avail, "1024-32767", 0), 1);
	assert_int_equal(kernel_ports_usable(&debian, avail), 1);
}

static void test_permit_narrower_refused(void** state)
{
	(void)state;
	memset(avail, 0, sizeof(avail));
	assert_int_equal(port_set_mark(avail, "32768-50000", 1), 1);
	assert_int_equal(kernel_ports_usable(&debian, avail), 0);
	assert_int_equal(port_set_mark(avail, "50001-60999", 1), 1);
	assert_int_equal(kernel_ports_usable(&debian, avail), 1);
}

static void test_reserved_refused(void** state)
{
	struct kernel_ports k = debian;
	(void)state;
	port_set_default(avail);
	k.reserved_empty = 0;
	assert_int_equal(kernel_ports_usable(&k, avail), 0);
	assert_non_null(strstr(kernel_ports_refusal(&k, avail),
		"reserved"));
}

static void test_unreadable_refused(void** state)
{
	struct kernel_ports k;
	(void)state;
	port_set_default(avail);
	kernel_ports_read("/nonexistent/proc/sys/net/ipv4", &k);
	assert_int_equal(k.readable, 0);
	assert_int_equal(kernel_ports_usable(&k, avail), 0);
	assert_non_null(strstr(kernel_ports_refusal(&k, avail),
		"could not be read"));
}

/* dir/name with text (NULL: removed). */
static void put(const char* dir, const char* name, const char* text)
{
	char path[256];
	FILE* f;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if(!text) {
		unlink(path);
		return;
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_read(void** state)
{
	char dir[] = "/tmp/kernel_ports_testXXXXXX";
	struct kernel_ports k;
	(void)state;
	assert_non_null(mkdtemp(dir));
	/* as /proc writes them: tab-separated, an empty line */
	put(dir, "ip_local_port_range", "32768\t60999\n");
	put(dir, "ip_local_reserved_ports", "\n");
	kernel_ports_read(dir, &k);
	assert_int_equal(k.readable, 1);
	assert_int_equal(k.lo, 32768);
	assert_int_equal(k.hi, 60999);
	assert_int_equal(k.reserved_empty, 1);
	put(dir, "ip_local_reserved_ports", "40000-40010,50000\n");
	kernel_ports_read(dir, &k);
	assert_int_equal(k.readable, 1);
	assert_int_equal(k.reserved_empty, 0);
	/* no reserved file: not known to be empty */
	put(dir, "ip_local_reserved_ports", NULL);
	kernel_ports_read(dir, &k);
	assert_int_equal(k.readable, 0);
	/* a range that is no range */
	put(dir, "ip_local_reserved_ports", "");
	put(dir, "ip_local_port_range", "60999 32768\n");
	kernel_ports_read(dir, &k);
	assert_int_equal(k.readable, 0);
	put(dir, "ip_local_port_range", "x\n");
	kernel_ports_read(dir, &k);
	assert_int_equal(k.readable, 0);
	put(dir, "ip_local_port_range", "1024 70000\n");
	kernel_ports_read(dir, &k);
	assert_int_equal(k.readable, 0);
	put(dir, "ip_local_port_range", "1024 65535\n");
	kernel_ports_read(dir, &k);
	assert_int_equal(k.readable, 1);
	assert_int_equal(k.reserved_empty, 1);   /* an empty file */
	port_set_default(avail);
	assert_int_equal(kernel_ports_usable(&k, avail), 1);
	put(dir, "ip_local_port_range", NULL);
	put(dir, "ip_local_reserved_ports", NULL);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_debian_default_allowed),
		cmocka_unit_test(test_avoid_inside_refused),
		cmocka_unit_test(test_permit_narrower_refused),
		cmocka_unit_test(test_reserved_refused),
		cmocka_unit_test(test_unreadable_refused),
		cmocka_unit_test(test_read),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
