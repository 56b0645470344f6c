/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/localzone_edit_test.c - the run-time changes of the
 * local zones (services/localzone_edit.c) on a private copy, their
 * listing (localzone_list.c), and config_copy (util/config_copy.c). */
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
#include "services/localzone.h"
#include "util/config_file.h"
#include "util/config_options.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/msgparse.h"
#include "util/net_help.h"

/* A config read from text (written to a temporary file). */
static struct config_file* cfg_from(const char* text)
{
	char path[] = "/tmp/lzedit_XXXXXX";
	int fd = mkstemp(path);
	struct config_file* cfg;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	cfg = config_create();
	assert_non_null(cfg);
	assert_true(config_read(cfg, path, NULL));
	unlink(path);
	return cfg;
}

static struct local_zones* lz_from(const char* text)
{
	struct config_file* cfg = cfg_from(text);
	struct local_zones* lz = local_zones_create(cfg);
	assert_non_null(lz);
	config_delete(cfg);
	return lz;
}

/* The rcode of the local answer (-1: not answered locally), and the
 * number of answer RRs in *an. */
static int ask(const struct local_zones* lz, const char* name,
	uint16_t type, int* an)
{
	struct query_info qi;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	uint8_t out[65535];
	size_t outlen = 0;
	memset(&qi, 0, sizeof(qi));
	qi.id = 7;
	qi.qname_len = dname_from_str(name, qi.qname);
	assert_true(qi.qname_len > 0);
	qi.qtype = type;
	qi.qclass = CLASS_IN;
	assert_true(ipstrtoaddr("127.0.0.1", 53, &addr, &addrlen));
	*an = 0;
	if(local_zones_answer(lz, &qi, &addr, addrlen, out, sizeof(out),
		1232, &outlen) != LZ_ANSWERED)
		return -1;
	assert_true(outlen >= 12);
	*an = out[6] << 8 | out[7];
	return out[3] & 0xf;
}

static void name(const char* s, uint8_t* out)
{
	assert_true(dname_from_str(s, out) > 0);
}

static const char* base_conf =
	"server:\n"
	"\tlocal-zone: outer.test. refuse\n"
	"\tlocal-zone: in.outer.test. static\n"
	"\tlocal-data: \"www.in.outer.test. A 192.0.2.1\"\n"
	"\tlocal-data: \"www.in.outer.test. A 192.0.2.2\"\n"
	"\tlocal-data: \"a.b.in.outer.test. TXT hello\"\n"
	"\tlocal-data: \"in.outer.test. SOA ns. h. 1 2 3 4 5\"\n";

static void test_copy_answers_the_same(void** state)
{
	struct local_zones* lz = lz_from(base_conf), *c;
	int an, an2;
	(void)state;
	c = local_zones_copy(lz);
	assert_non_null(c);
	assert_int_equal(ask(c, "www.in.outer.test.", TYPE_A, &an), 0);
	assert_int_equal(an, 2);
	assert_int_equal(ask(c, "b.in.outer.test.", TYPE_A, &an), 0);
	assert_int_equal(an, 0);   /* an empty non-terminal */
	assert_int_equal(ask(c, "x.in.outer.test.", TYPE_A, &an), 3);
	assert_int_equal(ask(c, "x.outer.test.", TYPE_A, &an), 5);
	assert_int_equal(ask(c, "localhost.", TYPE_A, &an),
		ask(lz, "localhost.", TYPE_A, &an2));
	assert_int_equal(an, an2);
	local_zones_delete(c);
	local_zones_delete(lz);
}

static void test_edits_leave_the_original(void** state)
{
	struct local_zones* lz = lz_from(base_conf), *c, *d;
	uint8_t nm[LDNS_MAX_DOMAINLEN + 1];
	int an;
	(void)state;
	c = local_zones_copy(lz);
	assert_true(local_zones_add_rr(c, "new.in.outer.test. A 192.0.2.9"));
	name("www.in.outer.test.", nm);
	local_zones_remove_data(c, nm);
	name("a.b.in.outer.test.", nm);
	local_zones_remove_data(c, nm);
	d = local_zones_copy(c);   /* compacts, as publishing does */
	local_zones_delete(c);
	assert_int_equal(ask(d, "new.in.outer.test.", TYPE_A, &an), 0);
	assert_int_equal(an, 1);
	assert_int_equal(ask(d, "www.in.outer.test.", TYPE_A, &an), 3);
	/* the ENT went with the only name under it */
	assert_int_equal(ask(d, "b.in.outer.test.", TYPE_A, &an), 3);
	/* the original is as it was */
	assert_int_equal(ask(lz, "new.in.outer.test.", TYPE_A, &an), 3);
	assert_int_equal(ask(lz, "www.in.outer.test.", TYPE_A, &an), 0);
	assert_int_equal(an, 2);
	assert_int_equal(ask(lz, "b.in.outer.test.", TYPE_A, &an), 0);
	local_zones_delete(d);
	local_zones_delete(lz);
}

static void test_zone_add_change_remove(void** state)
{
	struct local_zones* lz = lz_from(base_conf), *c, *d;
	uint8_t nm[LDNS_MAX_DOMAINLEN + 1];
	int an;
	(void)state;
	c = local_zones_copy(lz);
	name("in.outer.test.", nm);
	assert_true(local_zones_set_zone(c, nm, local_zone_refuse));
	assert_int_equal(ask(c, "x.in.outer.test.", TYPE_A, &an), 5);
	assert_int_equal(local_zones_remove_zone(c, nm), 1);
	assert_int_equal(local_zones_remove_zone(c, nm), 0);
	/* gone with its data: the enclosing zone answers */
	assert_int_equal(ask(c, "www.in.outer.test.", TYPE_A, &an), 5);
	/* added again in the same batch: the old data stays gone */
	assert_true(local_zones_set_zone(c, nm, local_zone_static));
	d = local_zones_copy(c);
	local_zones_delete(c);
	assert_int_equal(ask(d, "www.in.outer.test.", TYPE_A, &an), 3);
	/* data outside any zone: a transparent zone at its owner */
	assert_true(local_zones_add_rr(d, "solo.test. A 192.0.2.5"));
	assert_int_equal(ask(d, "solo.test.", TYPE_A, &an), 0);
	assert_int_equal(an, 1);
	/* bad text is refused, the rest unchanged */
	assert_false(local_zones_add_rr(d, "solo.test. A notanip"));
	assert_false(local_zones_add_rr(d, ""));
	assert_int_equal(ask(d, "solo.test.", TYPE_A, &an), 0);
	local_zones_delete(d);
	local_zones_delete(lz);
}

static void test_ds_removal(void** state)
{
	struct local_zones* lz = lz_from(
		"server:\n\tlocal-zone: p.test. static\n"
		"\tlocal-zone: c.p.test. static\n"
		"\tlocal-data: \"c.p.test. DS 1 8 2 "
		"AABBCCDDEEFF00112233445566778899AABBCCDDEEFF00112233445566778899\"\n"
		"\tlocal-data: \"c.p.test. A 192.0.2.7\"\n"), *c, *d;
	uint8_t nm[LDNS_MAX_DOMAINLEN + 1];
	int an;
	(void)state;
	assert_int_equal(ask(lz, "c.p.test.", TYPE_DS, &an), 0);
	assert_int_equal(an, 1);
	c = local_zones_copy(lz);
	name("c.p.test.", nm);
	local_zones_remove_data(c, nm);
	d = local_zones_copy(c);
	local_zones_delete(c);
	assert_int_equal(ask(d, "c.p.test.", TYPE_DS, &an), 3);
	assert_int_equal(ask(d, "c.p.test.", TYPE_A, &an), 0);
	assert_int_equal(an, 0);   /* apex: NODATA */
	local_zones_delete(d);
	local_zones_delete(lz);
}

struct lines {
	char buf[65536];
	size_t len;
};

static void collect(void* arg, const char* line)
{
	struct lines* l = arg;
	size_t n = strlen(line);
	assert_true(l->len + n < sizeof(l->buf));
	memcpy(l->buf + l->len, line, n + 1);
	l->len += n;
}

static void test_lists(void** state)
{
	struct local_zones* lz = lz_from(
		"server:\n\tlocal-zone: b.org. static\n"
		"\tlocal-zone: a.arpa. refuse\n"
		"\tlocal-zone: zz.org. static\n"
		"\tlocal-data: \"x.b.org. A 192.0.2.1\"\n"
		"\tlocal-data: \"y.b.org. A 192.0.2.2\"\n"
		"\tlocal-zone: localhost. nodefault\n"
		"\tunblock-lan-zones: yes\n"
		"\tlocal-zone: test. nodefault\n"
		"\tlocal-zone: onion. nodefault\n"
		"\tlocal-zone: invalid. nodefault\n"
		"\tlocal-zone: home.arpa. nodefault\n"
		"\tlocal-zone: 127.in-addr.arpa. nodefault\n"
		"\tlocal-zone: 1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0"
		".0.0.0.0.0.0.ip6.arpa. nodefault\n"
		"\tlocal-zone: 255.255.255.255.in-addr.arpa. nodefault\n"
		"\tlocal-zone: 0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0"
		".0.0.0.0.0.0.ip6.arpa. nodefault\n"
		"\tlocal-zone: 0.in-addr.arpa. nodefault\n"
		"\tlocal-zone: 2.0.192.in-addr.arpa. nodefault\n"
		"\tlocal-zone: 100.51.198.in-addr.arpa. nodefault\n"
		"\tlocal-zone: 113.0.203.in-addr.arpa. nodefault\n"
		"\tlocal-zone: 8.b.d.0.1.0.0.2.ip6.arpa. nodefault\n");
	struct lines l;
	(void)state;
	l.len = 0;
	l.buf[0] = 0;
	assert_true(local_zones_list(lz, 0, collect, &l));
	/* Unbound's tree order: a shorter label first ("org" < "arpa") */
	assert_string_equal(l.buf, "b.org. static\nzz.org. static\n"
		"a.arpa. refuse\n");
	l.len = 0;
	l.buf[0] = 0;
	assert_true(local_zones_list(lz, 1, collect, &l));
	assert_string_equal(l.buf, "x.b.org.\t3600\tIN\tA\t192.0.2.1\n\n"
		"y.b.org.\t3600\tIN\tA\t192.0.2.2\n\n");
	local_zones_delete(lz);
}

static void test_config_copy(void** state)
{
	struct config_file* cfg = cfg_from(
		"server:\n\tverbosity: 3\n\tlogfile: \"/tmp/x.log\"\n"
		"\tlocal-zone: a.test. static\n"
		"\tlocal-data: \"a.test. A 192.0.2.1\"\n"
		"\taccess-control: 10.0.0.0/8 allow\n"
		"\tdomain-insecure: ins.test\n"
		"\tprefetch-key: yes\n"
		"\tlocal-zone: test. nodefault\n"
		"stub-zone:\n\tname: s.test\n\tstub-addr: 127.0.0.1\n"
		"forward-zone:\n\tname: f.test\n\tforward-addr: 127.0.0.2\n"
		"\tforward-host: ns.f.test\n"
		"remote-control:\n\tcontrol-enable: yes\n");
	struct config_file* c = config_copy(cfg);
	char* a = NULL, *b = NULL;
	size_t al = 0, bl = 0;
	FILE* fa, *fb;
	const char* opts[] = { "verbosity", "logfile", "local-zone",
		"local-data", "access-control", "domain-insecure",
		"prefetch-key", "control-enable", NULL };
	int i;
	(void)state;
	assert_non_null(c);
	assert_ptr_not_equal(c->logfile, cfg->logfile);
	assert_string_equal(c->logfile, "/tmp/x.log");
	assert_ptr_not_equal(c->local_zones, cfg->local_zones);
	assert_string_equal(c->stubs->name, "s.test");
	assert_ptr_not_equal(c->stubs->addrs, cfg->stubs->addrs);
	assert_string_equal(c->forwards->hosts->str, "ns.f.test");
	assert_string_equal(c->local_zones_nodefault->str, "test.");
	fa = open_memstream(&a, &al);
	fb = open_memstream(&b, &bl);
	for(i = 0; opts[i]; i++) {
		assert_true(config_print_option(cfg, opts[i], fa));
		assert_true(config_print_option(c, opts[i], fb));
	}
	fclose(fa);
	fclose(fb);
	assert_string_equal(a, b);
	free(a);
	free(b);
	/* changing the copy leaves the original */
	assert_true(cfg_strlist_append(&c->domain_insecure, "x.test."));
	assert_null(cfg->domain_insecure->next);
	config_delete(c);
	config_delete(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy_answers_the_same),
		cmocka_unit_test(test_edits_leave_the_original),
		cmocka_unit_test(test_zone_add_change_remove),
		cmocka_unit_test(test_ds_removal),
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_config_copy),
	};
	log_init(NULL, 0, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
