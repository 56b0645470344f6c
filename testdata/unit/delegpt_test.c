/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/delegpt_test.c - delegation points (names, addresses,
 * caps, glue bailiwick, copies, counts) and the hints that make them
 * (root-hints file, stub/forward zones, lookup). */
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
#include <arpa/inet.h>
#include <ldns/ldns.h>
#include "iterator/delegpt.h"
#include "iterator/iter_hints.h"
#include "iterator/iter_priv.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/net_help.h"
#include "testdata/unit/wire_name.h"

static ldns_rr* RR(const char* s)
{
	ldns_rr* rr = NULL;
	assert_int_equal(ldns_rr_new_frm_str(&rr, s, 3600, NULL, NULL),
		LDNS_STATUS_OK);
	return rr;
}

static ldns_rr_list* LIST(const char* const* s)
{
	ldns_rr_list* l = ldns_rr_list_new();
	for(; *s; s++)
		ldns_rr_list_push_rr(l, RR(*s));
	return l;
}

static void addr_text(const struct delegpt_addr* a, char* buf, size_t len)
{
	char ip[64];
	addr_to_str(&a->addr, a->addrlen, ip, sizeof(ip));
	snprintf(buf, len, "%s@%d", ip, addr_port(&a->addr));
}

static void test_names_dedup_and_cap(void** state)
{
	struct delegpt* dp = delegpt_create(W("Example.TLD1."));
	char name[64];
	int i;
	(void)state;
	assert_non_null(dp);
	assert_int_equal(query_dname_compare(dp->name, W("example.tld1.")), 0);
	assert_int_equal(dp->name[1], 'e');    /* lowercased */
	assert_int_equal(delegpt_add_ns(dp, W("ns1.example.tld1.")), 1);
	assert_int_equal(delegpt_add_ns(dp, W("NS1.example.tld1.")), 1);
	assert_int_equal((int)dp->num_ns, 1);
	for(i = 0; i < DELEGPT_MAX_NS + 5; i++) {
		snprintf(name, sizeof(name), "ns%d.other.tld2.", i + 10);
		(void)delegpt_add_ns(dp, W(name));
	}
	assert_int_equal((int)dp->num_ns, DELEGPT_MAX_NS);
	assert_int_equal(delegpt_add_ns(dp, W("one-more.tld2.")), 0);
	assert_non_null(delegpt_find_ns(dp, W("ns10.OTHER.tld2.")));
	assert_null(delegpt_find_ns(dp, W("one-more.tld2.")));
	delegpt_delete(dp);
}

static void test_addresses(void** state)
{
	struct delegpt* dp = delegpt_create(W("tld1."));
	struct sockaddr_storage a;
	socklen_t len;
	ldns_rr* rr;
	char buf[80];
	(void)state;
	assert_int_equal(delegpt_add_ns(dp, W("ns1.nic.tld1.")), 1);
	rr = RR("ns1.nic.tld1. A 192.0.2.1");
	assert_int_equal(delegpt_add_rr_addr(dp, rr, 0), 1);
	assert_int_equal(delegpt_add_rr_addr(dp, rr, 0), 1);  /* dup */
	ldns_rr_free(rr);
	rr = RR("NS1.nic.tld1. AAAA 2001:db8::1");
	assert_int_equal(delegpt_add_rr_addr(dp, rr, 5353), 1);
	ldns_rr_free(rr);
	/* the owner must be one of the NS names */
	rr = RR("www.nic.tld1. A 192.0.2.2");
	assert_int_equal(delegpt_add_rr_addr(dp, rr, 0), 0);
	ldns_rr_free(rr);
	assert_int_equal((int)dp->num_addr, 2);
	assert_true(delegpt_find_ns(dp, W("ns1.nic.tld1."))->got4);
	assert_true(delegpt_find_ns(dp, W("ns1.nic.tld1."))->got6);
	addr_text(dp->addrs, buf, sizeof(buf));
	assert_string_equal(buf, "192.0.2.1@53");
	addr_text(dp->addrs->next, buf, sizeof(buf));
	assert_string_equal(buf, "2001:db8::1@5353");
	assert_true(extstrtoaddr("192.0.2.1", 53, &a, &len));
	assert_int_equal(delegpt_add_addr(dp, &a, len), 1);
	assert_int_equal((int)dp->num_addr, 2);
	delegpt_delete(dp);
}

static void test_from_rrs_bailiwick(void** state)
{
	static const char* ns[] = {
		"example.tld1. 300 NS ns1.example.tld1.",
		"example.tld1. 100 NS ns.other.tld2.",
		"other.tld1. NS ns.other.tld1.",       /* other owner */
		NULL };
	static const char* glue[] = {
		"ns1.example.tld1. A 192.0.2.1",
		"ns.other.tld2. A 192.0.2.66",         /* out of bailiwick */
		"ns.other.tld1. A 192.0.2.67",         /* not an NS name */
		NULL };
	ldns_rr_list* n = LIST(ns), *g = LIST(glue);
	struct delegpt* dp = delegpt_from_rrs(W("example.tld1."), n, g,
		W("tld1."), 0);
	(void)state;
	assert_non_null(dp);
	assert_int_equal((int)dp->num_ns, 2);
	assert_int_equal((int)dp->num_addr, 1);
	assert_int_equal((int)dp->ttl, 100);
	assert_false(delegpt_find_ns(dp, W("ns.other.tld2."))->got4);
	assert_int_equal((int)delegpt_count_missing(dp, 1, 0), 1);
	assert_int_equal((int)delegpt_count_usable(dp, 2), 1);
	delegpt_delete(dp);
	/* no NS for the zone: no delegation point */
	assert_null(delegpt_from_rrs(W("nothere.tld1."), n, g, NULL, 0));
	ldns_rr_list_deep_free(n);
	ldns_rr_list_deep_free(g);
}

static void test_copy_resets_bookkeeping(void** state)
{
	static const char* ns[] = { "tld1. NS a.tld1.", "tld1. NS b.x.", NULL };
	static const char* glue[] = { "a.tld1. A 192.0.2.1", NULL };
	ldns_rr_list* n = LIST(ns), *g = LIST(glue);
	struct delegpt* dp = delegpt_from_rrs(W("tld1."), n, g, NULL, 0), *c;
	(void)state;
	dp->addrs->attempts = 2;
	dp->addrs->dead = 1;
	delegpt_find_ns(dp, W("b.x."))->lookup4 = 1;
	assert_int_equal((int)delegpt_count_usable(dp, 2), 0);
	assert_int_equal((int)delegpt_count_missing(dp, 1, 0), 0);
	c = delegpt_copy(dp);
	assert_non_null(c);
	assert_int_equal((int)c->num_ns, 2);
	assert_int_equal((int)delegpt_count_usable(c, 2), 1);
	assert_int_equal((int)delegpt_count_missing(c, 1, 0), 1);
	assert_true(delegpt_find_ns(c, W("a.tld1."))->got4);
	delegpt_delete(dp);
	delegpt_delete(c);
	ldns_rr_list_deep_free(n);
	ldns_rr_list_deep_free(g);
}

/* The copy has the zone, TTL, TLS flag, the names (case kept) and the
 * addresses (with their TLS names) in the same order. */
static void test_copy_same_order(void** state)
{
	struct delegpt* dp = delegpt_create(W("Zone.TEST.")), *c;
	struct delegpt_ns* ns, *cn;
	struct delegpt_addr* a, *ca;
	struct sockaddr_storage ss;
	struct sockaddr_in* s4 = (struct sockaddr_in*)&ss;
	int i;
	(void)state;
	assert_non_null(dp);
	dp->ttl = 77;
	dp->tls = 1;
	assert_int_equal(delegpt_add_ns(dp, W("NS2.zone.test.")), 1);
	assert_int_equal(delegpt_add_ns(dp, W("ns1.zone.test.")), 1);
	dp->nslist->got6 = 1;
	for(i = 3; i > 0; i--) {
		memset(&ss, 0, sizeof(ss));
		s4->sin_family = AF_INET;
		s4->sin_port = htons(853);
		s4->sin_addr.s_addr = htonl(0xc0000200 + (uint32_t)i);
		assert_int_equal(delegpt_add_addr_tls(dp, &ss, sizeof(*s4),
			i == 2 ? "auth.test" : NULL), 1);
	}
	c = delegpt_copy(dp);
	assert_non_null(c);
	assert_int_equal((int)c->namelen, (int)dp->namelen);
	assert_memory_equal(c->name, W("zone.test."), c->namelen);
	assert_int_equal(c->ttl, 77);
	assert_int_equal(c->tls, 1);
	assert_int_equal((int)c->num_ns, 2);
	assert_int_equal((int)c->num_addr, 3);
	for(ns = dp->nslist, cn = c->nslist; ns; ns = ns->next, cn = cn->next) {
		assert_non_null(cn);
		assert_int_equal((int)cn->namelen, (int)ns->namelen);
		assert_memory_equal(cn->name, ns->name, ns->namelen);
		assert_int_equal(cn->got6, ns->got6);
	}
	assert_null(cn);
	assert_memory_equal(c->nslist->name, W("NS2.zone.test."), 15);
	for(a = dp->addrs, ca = c->addrs; a; a = a->next, ca = ca->next) {
		assert_non_null(ca);
		assert_int_equal(ca->addrlen, a->addrlen);
		assert_memory_equal(&ca->addr, &a->addr, a->addrlen);
		if(a->tls_name) {
			assert_non_null(ca->tls_name);
			assert_ptr_not_equal(ca->tls_name, a->tls_name);
			assert_string_equal(ca->tls_name, a->tls_name);
		} else
			assert_null(ca->tls_name);
	}
	assert_null(ca);
	assert_string_equal(c->addrs->next->tls_name, "auth.test");
	/* a copy is a delegation point like any: additions still check */
	assert_int_equal(delegpt_add_ns(c, W("ns1.zone.test.")), 1);
	assert_int_equal((int)c->num_ns, 2);
	delegpt_delete(dp);
	delegpt_delete(c);
}

static char* write_tmp(const char* text)
{
	static char path[64];
	int fd;
	snprintf(path, sizeof(path), "/tmp/delegpt_test.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (int)strlen(text));
	close(fd);
	return path;
}

static void test_hints_file(void** state)
{
	char* f = write_tmp("; comment\n$TTL 3600\n"
		".\t3600000\tIN\tNS\ta.root.test.\n"
		".\t3600000\tIN\tNS\tb.root.test.\n"
		"a.root.test.\t3600000\tIN\tA\t127.0.0.2\n"
		"b.root.test. 3600000 IN AAAA ::1\n"
		"c.root.test. 3600000 IN A 127.0.0.9\n");
	struct delegpt* dp = iter_hints_read_file(f);
	(void)state;
	assert_non_null(dp);
	assert_int_equal((int)dp->namelen, 1);
	assert_int_equal((int)dp->num_ns, 2);
	assert_int_equal((int)dp->num_addr, 2);
	delegpt_delete(dp);
	unlink(f);
	/* a syntax error, no NS, no addresses, no file: errors */
	f = write_tmp(". NS a.root.test.\nbogus line here\n");
	assert_null(iter_hints_read_file(f));
	unlink(f);
	f = write_tmp("a.root.test. A 127.0.0.2\n");
	assert_null(iter_hints_read_file(f));
	unlink(f);
	f = write_tmp(". NS a.root.test.\n");
	assert_null(iter_hints_read_file(f));
	unlink(f);
	assert_null(iter_hints_read_file("/nonexistent/root.hints"));
}

static void test_hints_config(void** state)
{
	char* f = write_tmp(". NS a.root.test.\na.root.test. A 127.0.0.2\n");
	struct config_file* cfg = config_create();
	struct config_stub* stub = calloc(1, sizeof(*stub));
	struct config_stub* fwd = calloc(1, sizeof(*fwd));
	struct config_strlist* rh = calloc(1, sizeof(*rh));
	struct config_strlist* sa = calloc(1, sizeof(*sa));
	struct config_strlist* fa = calloc(1, sizeof(*fa));
	struct iter_hints* h;
	const struct iter_hint* x;
	(void)state;
	/* no root-hints: the built-in root servers are the root */
	h = iter_hints_create(cfg);
	assert_non_null(h);
	assert_non_null(h->root);
	assert_true(h->root->is_root && h->root->prime);
	assert_int_equal((int)h->root->dp->num_ns, 13);
	assert_non_null(delegpt_find_ns(h->root->dp,
		W("a.root-servers.net.")));
	assert_ptr_equal(iter_hints_lookup(h, W("www.example.tld1.")), h->root);
	iter_hints_delete(h);
	/* an empty root-hints: "" is the same as none */
	rh->str = strdup("");
	cfg->root_hints = rh;
	h = iter_hints_create(cfg);
	assert_non_null(h);
	assert_int_equal((int)h->root->dp->num_ns, 13);
	iter_hints_delete(h);
	free(rh->str);
	rh->str = strdup(f);
	cfg->root_hints = rh;
	stub->name = strdup("example.tld1");
	sa->str = strdup("127.0.0.6@5353");
	stub->addrs = sa;
	cfg->stubs = stub;
	fwd->name = strdup("fwd.tld2.");
	fa->str = strdup("127.0.0.7#tls.name");
	fwd->addrs = fa;
	cfg->forwards = fwd;
	h = iter_hints_create(cfg);
	assert_non_null(h);
	assert_non_null(h->root);
	x = iter_hints_lookup(h, W("www.example.tld1."));
	assert_non_null(x);
	assert_false(x->is_forward);
	assert_int_equal(query_dname_compare(x->dp->name, W("example.tld1.")),
		0);
	assert_int_equal(addr_port(&x->dp->addrs->addr), 5353);
	x = iter_hints_lookup(h, W("a.b.FWD.tld2."));
	assert_non_null(x);
	assert_true(x->is_forward);
	x = iter_hints_lookup(h, W("www.tld1."));
	assert_ptr_equal(x, h->root);
	iter_hints_delete(h);
	/* a bad stub address fails the whole set */
	free(sa->str);
	sa->str = strdup("not-an-address");
	assert_null(iter_hints_create(cfg));
	config_delete(cfg);
	unlink(f);
}

/* The compiled-in root hints: 13 servers, each with an IPv4 and an IPv6
 * address on port 53, names and addresses in Unbound's listing order
 * (M first, IPv6 before IPv4), every name marked as having both. */
static void test_builtin_root(void** state)
{
	static const char* const ip4[] = { "198.41.0.4", "170.247.170.2",
		"192.33.4.12", "199.7.91.13", "192.203.230.10", "192.5.5.241",
		"192.112.36.4", "198.97.190.53", "192.36.148.17",
		"192.58.128.30", "193.0.14.129", "199.7.83.42",
		"202.12.27.33" };
	struct delegpt* dp = iter_hints_builtin_root(1, 1);
	const struct delegpt_ns* ns;
	const struct delegpt_addr* a;
	char buf[300];
	int i, n4 = 0, n6 = 0;
	(void)state;
	assert_non_null(dp);
	assert_int_equal(dp->name[0], 0);
	assert_int_equal((int)dp->num_ns, 13);
	assert_int_equal((int)dp->num_addr, 26);
	for(ns = dp->nslist, i = 12; ns; ns = ns->next, i--) {
		char want[32];
		snprintf(want, sizeof(want), "%c.ROOT-SERVERS.NET.", 'A' + i);
		dname_to_str(ns->name, buf, sizeof(buf));
		assert_string_equal(buf, want);
		assert_true(ns->got4 && ns->got6);
	}
	assert_int_equal(delegpt_count_missing(dp, 1, 1), 0);
	for(a = dp->addrs, i = 0; a; a = a->next, i++) {
		assert_int_equal(addr_port(&a->addr), 53);
		if(a->addr.ss_family == AF_INET6) {
			assert_int_equal(n4, 0);   /* IPv6 first */
			n6++;
		} else {
			addr_to_str(&a->addr, a->addrlen, buf, sizeof(buf));
			assert_string_equal(buf, ip4[12 - n4]);
			n4++;
		}
	}
	assert_int_equal(n4, 13);
	assert_int_equal(n6, 13);
	addr_to_str(&dp->addrs->addr, dp->addrs->addrlen, buf, sizeof(buf));
	assert_string_equal(buf, "2001:dc3::35");
	delegpt_delete(dp);
	/* do-ip6: no (and do-ip4: no): only the other family's addresses,
	 * all 13 names still */
	dp = iter_hints_builtin_root(1, 0);
	assert_int_equal((int)dp->num_ns, 13);
	assert_int_equal((int)dp->num_addr, 13);
	assert_int_equal(dp->addrs->addr.ss_family, AF_INET);
	delegpt_delete(dp);
	dp = iter_hints_builtin_root(0, 1);
	assert_int_equal((int)dp->num_addr, 13);
	assert_int_equal(dp->addrs->addr.ss_family, AF_INET6);
	delegpt_delete(dp);
}

static void test_private_address(void** state)
{
	static const char* rrs[] = {
		"a.tld1. A 10.1.2.3",
		"a.tld1. A 192.0.2.1",
		"b.ok.tld1. A 10.9.9.9",          /* under private-domain */
		"c.tld1. AAAA fd00::1",
		"c.tld1. AAAA 2001:db8::1",
		"c.tld1. TXT \"10.1.2.3\"",
		NULL };
	struct config_file* cfg = config_create();
	struct config_strlist* a1 = calloc(1, sizeof(*a1));
	struct config_strlist* a2 = calloc(1, sizeof(*a2));
	struct config_strlist* d1 = calloc(1, sizeof(*d1));
	struct iter_priv* p = NULL;
	ldns_rr_list* l = LIST(rrs);
	(void)state;
	/* not configured: nothing to build */
	assert_int_equal(iter_priv_create(cfg, &p), 1);
	assert_null(p);
	a1->str = strdup("10.0.0.0/8");
	a2->str = strdup("fd00::/8");
	a1->next = a2;
	d1->str = strdup("ok.tld1.");
	cfg->private_address = a1;
	cfg->private_domain = d1;
	assert_int_equal(iter_priv_create(cfg, &p), 1);
	assert_non_null(p);
	assert_int_equal(iter_priv_filter(p, l), 2);
	assert_int_equal((int)ldns_rr_list_rr_count(l), 4);
	iter_priv_delete(p);
	ldns_rr_list_deep_free(l);
	free(a2->str);
	a2->str = strdup("fd00::/200");
	assert_int_equal(iter_priv_create(cfg, &p), 0);
	config_delete(cfg);
}

/* delegpt_rdf_name: the rdf's own bytes, case kept, for dname rdfs
 * holding a valid name; delegpt_rdf_to_wire: a lowercased copy. */
static void test_rdf_name(void** state)
{
	static const uint8_t mixed[] = "\003Abc\004TLD1";
	static const uint8_t bad[] = { 5, 'a', 'b', 0 };
	ldns_rdf* d = ldns_rdf_new_frm_data(LDNS_RDF_TYPE_DNAME,
		sizeof(mixed), mixed);
	ldns_rdf* b = ldns_rdf_new_frm_data(LDNS_RDF_TYPE_DNAME,
		sizeof(bad), bad);
	ldns_rdf* s = ldns_rdf_new_frm_data(LDNS_RDF_TYPE_STR,
		sizeof(mixed), mixed);
	uint8_t buf[LDNS_MAX_DOMAINLEN + 1];
	(void)state;
	assert_non_null(d);
	assert_non_null(b);
	assert_non_null(s);
	assert_ptr_equal(delegpt_rdf_name(d), ldns_rdf_data(d));
	assert_memory_equal(delegpt_rdf_name(d), mixed, sizeof(mixed));
	assert_int_equal(delegpt_rdf_to_wire(d, buf), sizeof(mixed));
	assert_memory_equal(buf, "\003abc\004tld1", sizeof(mixed));
	assert_null(delegpt_rdf_name(b));
	assert_int_equal(delegpt_rdf_to_wire(b, buf), 0);
	assert_null(delegpt_rdf_name(s));
	assert_null(delegpt_rdf_name(NULL));
	ldns_rdf_deep_free(d);
	ldns_rdf_deep_free(b);
	ldns_rdf_deep_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_dedup_and_cap),
		cmocka_unit_test(test_rdf_name),
		cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_from_rrs_bailiwick),
		cmocka_unit_test(test_copy_resets_bookkeeping),
		cmocka_unit_test(test_copy_same_order),
		cmocka_unit_test(test_hints_file),
		cmocka_unit_test(test_hints_config),
		cmocka_unit_test(test_builtin_root),
		cmocka_unit_test(test_private_address),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
