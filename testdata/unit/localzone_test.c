/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/localzone_test.c - local-zone and local-data answers,
 * checked by parsing the replies with ldns. Expected behaviour was taken
 * from Unbound 1.17.1 on loopback. */
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
#include "util/dname.h"
#include "util/log.h"
#include "util/msgparse.h"
#include "util/net_help.h"

#define MAXITEMS 64

/* A config_file with only the local zone options, built from arrays. */
struct testcfg {
	struct config_file cfg;
	struct config_str2list zones[MAXITEMS];
	struct config_strlist data[MAXITEMS], ptr[MAXITEMS], nodef[MAXITEMS];
};

static void
tc_init(struct testcfg* t)
{
	memset(t, 0, sizeof(*t));
	t->cfg.do_ip6 = 1;
}

static void
tc_zone(struct testcfg* t, const char* name, const char* type)
{
	struct config_str2list** pp = &t->cfg.local_zones;
	size_t i = 0;
	while(*pp) {
		pp = &(*pp)->next;
		i++;
	}
	assert_true(i < MAXITEMS);
	t->zones[i].str = (char*)name;
	t->zones[i].str2 = (char*)type;
	*pp = &t->zones[i];
}

static void
tc_str(struct config_strlist** head, struct config_strlist* arr,
	const char* s)
{
	size_t i = 0;
	while(*head) {
		head = &(*head)->next;
		i++;
	}
	assert_true(i < MAXITEMS);
	arr[i].str = (char*)s;
	*head = &arr[i];
}

#define tc_data(t, s) tc_str(&(t)->cfg.local_data, (t)->data, s)
#define tc_ptr(t, s) tc_str(&(t)->cfg.local_data_ptr, (t)->ptr, s)
#define tc_nodefault(t, s) tc_str(&(t)->cfg.local_zones_nodefault, \
	(t)->nodef, s)

/* Ask a question; on LZ_ANSWERED (or LZ_ALIAS) *pkt is the parsed
 * reply. */
static enum localzone_result
ask_full(const struct local_zones* lz, const char* name, uint16_t type,
	uint16_t dclass, int edns, int dnssec, ldns_pkt** pkt)
{
	struct query_info qi;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	uint8_t out[65535];
	size_t outlen = 0;
	enum localzone_result r;
	memset(&qi, 0, sizeof(qi));
	qi.id = 0x1234;
	qi.flags = FLAG_RD;
	qi.qname_len = dname_from_str(name, qi.qname);
	assert_true(qi.qname_len > 0);
	qi.qtype = type;
	qi.qclass = dclass;
	qi.has_edns = edns;
	qi.edns_udp_size = 4096;
	qi.edns_do = dnssec;
	assert_true(ipstrtoaddr("127.0.0.1", 5353, &addr, &addrlen));
	*pkt = NULL;
	r = local_zones_answer(lz, &qi, &addr, addrlen, out, sizeof(out),
		1232, &outlen);
	if(r == LZ_ANSWERED || r == LZ_ALIAS) {
		assert_true(outlen >= 12);
		assert_int_equal(ldns_wire2pkt(pkt, out, outlen),
			LDNS_STATUS_OK);
		/* header: id echoed, QR, AA and RA set, RD copied */
		assert_int_equal(ldns_pkt_id(*pkt), 0x1234);
		assert_true(ldns_pkt_qr(*pkt));
		assert_true(ldns_pkt_aa(*pkt));
		assert_true(ldns_pkt_ra(*pkt));
		assert_true(ldns_pkt_rd(*pkt));
		assert_int_equal(ldns_pkt_qdcount(*pkt), 1);
	}
	return r;
}

static enum localzone_result
ask(const struct local_zones* lz, const char* name, uint16_t type,
	ldns_pkt** pkt)
{
	return ask_full(lz, name, type, CLASS_IN, 0, 0, pkt);
}

/* Section RR i as text, without the trailing newline (static buffer). */
static const char*
rrtext(ldns_rr_list* l, size_t i)
{
	static char buf[1024];
	char* s;
	size_t n;
	assert_true(i < ldns_rr_list_rr_count(l));
	s = ldns_rr2str(ldns_rr_list_rr(l, i));
	snprintf(buf, sizeof(buf), "%s", s);
	free(s);
	n = strlen(buf);
	if(n && buf[n-1] == '\n')
		buf[n-1] = 0;
	return buf;
}

/* Expect an answer with rcode and counts; frees nothing. */
static void
expect(ldns_pkt* p, int rcode, size_t an, size_t ns)
{
	assert_non_null(p);
	assert_int_equal(ldns_pkt_get_rcode(p), rcode);
	assert_int_equal(ldns_pkt_ancount(p), an);
	assert_int_equal(ldns_pkt_nscount(p), ns);
}

/* Ask and expect: answered with rcode/counts; answer 0 text if given. */
static void
check(const struct local_zones* lz, const char* name, uint16_t type,
	int rcode, size_t an, size_t ns, const char* first)
{
	ldns_pkt* p;
	enum localzone_result r = ask(lz, name, type, &p);
	if(r != LZ_ANSWERED)
		fail_msg("%s type %d: result %d, expected an answer", name,
			type, (int)r);
	expect(p, rcode, an, ns);
	if(first) {
		ldns_rr_list* l = an ? ldns_pkt_answer(p) : ldns_pkt_authority(p);
		const char* got = rrtext(l, 0);
		if(strcmp(got, first) != 0)
			fail_msg("%s type %d: got '%s' expected '%s'", name,
				type, got, first);
	}
	ldns_pkt_free(p);
}

static void
check_result(const struct local_zones* lz, const char* name, uint16_t type,
	enum localzone_result want)
{
	ldns_pkt* p;
	enum localzone_result r = ask(lz, name, type, &p);
	if(r != want)
		fail_msg("%s type %d: result %d, expected %d", name, type,
			(int)r, (int)want);
	ldns_pkt_free(p);
}

#define SOA_ST "st.example.\t300\tIN\tSOA\tns.st.example. " \
	"host.st.example. 1 2 3 4 300"

static void
test_static(void** state)
{
	struct testcfg t;
	struct local_zones* lz;
	ldns_pkt* p;
	(void)state;
	tc_init(&t);
	tc_zone(&t, "st.example.", "static");
	tc_data(&t, "st.example. 3600 IN SOA ns.st.example. host.st.example. "
		"1 2 3 4 300");
	tc_data(&t, "a.st.example. A 1.1.1.1");
	tc_data(&t, "a.st.example. A 2.2.2.2");
	tc_data(&t, "a.st.example. A 1.1.1.1"); /* duplicate: ignored */
	tc_data(&t, "a.st.example. 60 TXT \"hi there\"");
	tc_data(&t, "x.y.z.st.example. A 4.4.4.4");
	tc_data(&t, "c.st.example. CNAME a.st.example.");
	tc_data(&t, "*.wild.st.example. A 10.0.0.1");
	assert_non_null(lz = local_zones_create(&t.cfg));

	check(lz, "a.st.example.", LDNS_RR_TYPE_A, 0, 2, 0, NULL);
	check(lz, "a.st.example.", LDNS_RR_TYPE_TXT, 0, 1, 0,
		"a.st.example.\t60\tIN\tTXT\t\"hi there\"");
	/* the SOA for negative answers has TTL min(TTL, MINIMUM) */
	check(lz, "nope.st.example.", LDNS_RR_TYPE_A, LDNS_RCODE_NXDOMAIN,
		0, 1, SOA_ST);
	check(lz, "a.st.example.", LDNS_RR_TYPE_AAAA, 0, 0, 1, SOA_ST);
	/* empty non-terminal: NODATA */
	check(lz, "z.st.example.", LDNS_RR_TYPE_A, 0, 0, 1, SOA_ST);
	check(lz, "y.z.st.example.", LDNS_RR_TYPE_A, 0, 0, 1, SOA_ST);
	/* ANY is not special in Unbound 1.17 local zones */
	check(lz, "a.st.example.", LDNS_RR_TYPE_ANY, 0, 0, 1, SOA_ST);
	/* CNAME answers other types, without chasing */
	check(lz, "c.st.example.", LDNS_RR_TYPE_A, 0, 1, 0,
		"c.st.example.\t3600\tIN\tCNAME\ta.st.example.");
	/* the SOA itself, with its own TTL */
	check(lz, "st.example.", LDNS_RR_TYPE_SOA, 0, 1, 0,
		"st.example.\t3600\tIN\tSOA\tns.st.example. host.st.example. "
		"1 2 3 4 300");
	/* wildcards are plain names */
	check(lz, "foo.wild.st.example.", LDNS_RR_TYPE_A, LDNS_RCODE_NXDOMAIN,
		0, 1, NULL);
	check(lz, "*.wild.st.example.", LDNS_RR_TYPE_A, 0, 1, 0, NULL);
	/* case-insensitive match; the query's case is echoed */
	assert_int_equal(ask(lz, "A.St.EXAMPLE.", LDNS_RR_TYPE_A, &p),
		LZ_ANSWERED);
	expect(p, 0, 2, 0);
	{
		char* s = ldns_rdf2str(ldns_rr_owner(ldns_rr_list_rr(
			ldns_pkt_answer(p), 0)));
		assert_string_equal(s, "A.St.EXAMPLE.");
		free(s);
	}
	ldns_pkt_free(p);
	/* another class is not covered */
	assert_int_equal(ask_full(lz, "a.st.example.", LDNS_RR_TYPE_A,
		CLASS_CH, 0, 0, &p), LZ_NO_ANSWER);
	local_zones_delete(lz);
}

/* The TLD filter: names under a TLD no zone has skip the lookup; any
 * case of a zone's TLD still matches; a zone for "." covers all. */
static void
test_tld_filter(void** state)
{
	struct testcfg t;
	struct local_zones* lz;
	(void)state;
	tc_init(&t);
	tc_zone(&t, "ExAmPle.", "static");
	tc_data(&t, "www.example. A 192.0.2.1");
	assert_non_null(lz = local_zones_create(&t.cfg));
	check(lz, "www.example.", LDNS_RR_TYPE_A, 0, 1, 0, NULL);
	check(lz, "WWW.EXAMPLE.", LDNS_RR_TYPE_A, 0, 1, 0, NULL);
	check(lz, "nope.eXample.", LDNS_RR_TYPE_A, LDNS_RCODE_NXDOMAIN, 0, 0,
		NULL);
	check_result(lz, "www.example.org.", LDNS_RR_TYPE_A, LZ_NO_ANSWER);
	check_result(lz, "example.tld1.", LDNS_RR_TYPE_A, LZ_NO_ANSWER);
	/* the defaults are in the filter too */
	check(lz, "localhost.", LDNS_RR_TYPE_A, 0, 1, 0, NULL);
	local_zones_delete(lz);

	tc_init(&t);
	tc_zone(&t, ".", "refuse");
	tc_zone(&t, "example.", "static");
	assert_non_null(lz = local_zones_create(&t.cfg));
	check(lz, "www.other.tld.", LDNS_RR_TYPE_A, LDNS_RCODE_REFUSED, 0, 0,
		NULL);
	check(lz, "www.example.", LDNS_RR_TYPE_A, LDNS_RCODE_NXDOMAIN, 0, 0,
		NULL);
	local_zones_delete(lz);
}

static void
test_transparent(void** state)
{
	struct testcfg t;
	struct local_zones* lz;
	(void)state;
	tc_init(&t);
	tc_zone(&t, "tr.example.", "transparent");
	tc_data(&t, "a.tr.example. A 1.2.3.4");
	tc_data(&t, "b.c.tr.example. A 1.2.3.4");
	tc_zone(&t, "tt.example.", "typetransparent");
	tc_data(&t, "a.tt.example. A 1.2.3.4");
	tc_zone(&t, "at.example.", "always_transparent");
	tc_data(&t, "a.at.example. A 1.2.3.4");
	tc_zone(&t, "nv.example.", "noview");
	tc_data(&t, "a.nv.example. A 1.2.3.4");
	assert_non_null(lz = local_zones_create(&t.cfg));
	check(lz, "a.tr.example.", LDNS_RR_TYPE_A, 0, 1, 0,
		"a.tr.example.\t3600\tIN\tA\t1.2.3.4");
	check(lz, "a.tr.example.", LDNS_RR_TYPE_AAAA, 0, 0, 0, NULL);
	check_result(lz, "b.tr.example.", LDNS_RR_TYPE_A, LZ_NO_ANSWER);
	check_result(lz, "tr.example.", LDNS_RR_TYPE_A, LZ_NO_ANSWER);
	/* empty non-terminal in a transparent zone: resolved normally */
	check_result(lz, "c.tr.example.", LDNS_RR_TYPE_A, LZ_NO_ANSWER);
	check(lz, "a.tt.example.", LDNS_RR_TYPE_A, 0, 1, 0, NULL);
	check_result(lz, "a.tt.example.", LDNS_RR_TYPE_AAAA, LZ_NO_ANSWER);
	check_result(lz, "b.tt.example.", LDNS_RR_TYPE_A, LZ_NO_ANSWER);
	check_result(lz, "a.at.example.", LDNS_RR_TYPE_A, LZ_NO_ANSWER);
	check(lz, "a.nv.example.", LDNS_RR_TYPE_A, 0, 1, 0, NULL);
	check(lz, "a.nv.example.", LDNS_RR_TYPE_AAAA, 0, 0, 0, NULL);
	check_result(lz, "b.nv.example.", LDNS_RR_TYPE_A, LZ_NO_ANSWER);
	local_zones_delete(lz);
}

static void
test_redirect(void** state)
{
	struct testcfg t;
	struct local_zones* lz;
	(void)state;
	tc_init(&t);
	tc_zone(&t, "rd.example.", "redirect");
	tc_data(&t, "rd.example. A 5.5.5.5");
	tc_zone(&t, "rc.example.", "redirect");
	tc_data(&t, "rc.example. CNAME target.example.");
	assert_non_null(lz = local_zones_create(&t.cfg));
	check(lz, "rd.example.", LDNS_RR_TYPE_A, 0, 1, 0,
		"rd.example.\t3600\tIN\tA\t5.5.5.5");
	check(lz, "www.foo.rd.example.", LDNS_RR_TYPE_A, 0, 1, 0,
		"www.foo.rd.example.\t3600\tIN\tA\t5.5.5.5");
	check(lz, "www.foo.rd.example.", LDNS_RR_TYPE_AAAA, 0, 0, 0, NULL);
	/* compat: unbound-1.17: a local alias for another type (the
	 * caller resolves the target); the CNAME itself answered */
	check_result(lz, "x.rc.example.", LDNS_RR_TYPE_A, LZ_ALIAS);
	check(lz, "x.rc.example.", LDNS_RR_TYPE_CNAME, 0, 1, 0,
		"x.rc.example.\t3600\tIN\tCNAME\ttarget.example.");
	local_zones_delete(lz);
}

static void
test_redirect_alias_wildcard(void** state)
{
	struct testcfg t;
	struct local_zones* lz;
	ldns_pkt* p;
	(void)state;
	tc_init(&t);
	tc_zone(&t, "rw.example.", "redirect");
	tc_data(&t, "rw.example. CNAME *.target.example.");
	tc_zone(&t, "st.example.", "static");
	tc_data(&t, "www.st.example. CNAME target.example.");
	assert_non_null(lz = local_zones_create(&t.cfg));
	/* compat: unbound-1.17: the question's name before the target's
	 * wildcard label, TTL 0 */
	assert_int_equal(ask(lz, "a.rw.example.", LDNS_RR_TYPE_A, &p),
		LZ_ALIAS);
	expect(p, 0, 1, 0);
	assert_string_equal(rrtext(ldns_pkt_answer(p), 0),
		"a.rw.example.\t0\tIN\tCNAME\ta.rw.example.target.example.");
	ldns_pkt_free(p);
	/* too long a name: YXDOMAIN (250 bytes + "target.example.") */
	assert_int_equal(ask(lz, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa."
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa."
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa."
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.rw.example.",
		LDNS_RR_TYPE_A, &p), LZ_ANSWERED);
	expect(p, LDNS_RCODE_YXDOMAIN, 0, 0);
	ldns_pkt_free(p);
	/* other zone types: the CNAME alone */
	check(lz, "www.st.example.", LDNS_RR_TYPE_A, 0, 1, 0,
		"www.st.example.\t3600\tIN\tCNAME\ttarget.example.");
	local_zones_delete(lz);
}

static void
test_deny_refuse(void** state)
{
	struct testcfg t;
	struct local_zones* lz;
	(void)state;
	tc_init(&t);
	tc_zone(&t, "deny.example.", "deny");
	tc_data(&t, "x.deny.example. A 8.8.8.8");
	tc_zone(&t, "adeny.example.", "always_deny");
	tc_data(&t, "x.adeny.example. A 8.8.8.8");
	tc_zone(&t, "ref.example.", "refuse");
	tc_data(&t, "x.ref.example. A 8.8.8.8");
	tc_zone(&t, "aref.example.", "always_refuse");
	tc_data(&t, "x.aref.example. A 8.8.8.8");
	tc_zone(&t, "nx.example.", "always_nxdomain");
	tc_data(&t, "nx.example. SOA a. b. 1 2 3 4 5");
	tc_zone(&t, "nd.example.", "always_nodata");
	tc_zone(&t, "nul.example.", "always_null");
	tc_data(&t, "x.nul.example. TXT foo");
	tc_zone(&t, "blk.example.", "block_a");
	tc_data(&t, "x.blk.example. A 7.7.7.7");
	tc_zone(&t, "blk6.example.", "block_aaaa");
	tc_data(&t, "x.blk6.example. AAAA ::7");
	tc_zone(&t, "blkw.example.", "block_a_wdata");
	tc_data(&t, "x.blkw.example. A 7.7.7.8");
	tc_zone(&t, "blkw6.example.", "block_aaaa_wdata");
	tc_data(&t, "x.blkw6.example. AAAA ::8");
	assert_non_null(lz = local_zones_create(&t.cfg));
	check(lz, "x.deny.example.", LDNS_RR_TYPE_A, 0, 1, 0, NULL);
	check_result(lz, "y.deny.example.", LDNS_RR_TYPE_A, LZ_DROP);
	check_result(lz, "x.adeny.example.", LDNS_RR_TYPE_A, LZ_DROP);
	check(lz, "x.ref.example.", LDNS_RR_TYPE_A, 0, 1, 0, NULL);
	check(lz, "y.ref.example.", LDNS_RR_TYPE_A, LDNS_RCODE_REFUSED, 0, 0,
		NULL);
	check(lz, "x.aref.example.", LDNS_RR_TYPE_A, LDNS_RCODE_REFUSED, 0, 0,
		NULL);
	check(lz, "x.nx.example.", LDNS_RR_TYPE_A, LDNS_RCODE_NXDOMAIN, 0, 1,
		"nx.example.\t5\tIN\tSOA\ta. b. 1 2 3 4 5");
	check(lz, "nx.example.", LDNS_RR_TYPE_SOA, LDNS_RCODE_NXDOMAIN, 0, 1,
		NULL);
	check(lz, "x.nd.example.", LDNS_RR_TYPE_A, 0, 0, 0, NULL);
	check(lz, "x.nul.example.", LDNS_RR_TYPE_A, 0, 1, 0,
		"x.nul.example.\t3600\tIN\tA\t0.0.0.0");
	check(lz, "y.nul.example.", LDNS_RR_TYPE_AAAA, 0, 1, 0,
		"y.nul.example.\t3600\tIN\tAAAA\t::");
	check(lz, "y.nul.example.", LDNS_RR_TYPE_MX, 0, 0, 0, NULL);
	/* Unbound 1.17 answers local data in an always_null zone */
	check(lz, "x.nul.example.", LDNS_RR_TYPE_TXT, 0, 1, 0, NULL);
	check(lz, "x.blk.example.", LDNS_RR_TYPE_A, 0, 0, 0, NULL);
	check_result(lz, "x.blk.example.", LDNS_RR_TYPE_AAAA, LZ_NO_ANSWER);
	{
		ldns_pkt* p;
		assert_int_equal(ask_full(lz, "x.blk.example.", LDNS_RR_TYPE_A,
			CLASS_IN, 1, 1, &p), LZ_ANSWERED);
		ldns_pkt_free(p);
	}
	/* compat: unbound-1.26: block_aaaa and the _wdata types */
	check(lz, "x.blk6.example.", LDNS_RR_TYPE_AAAA, 0, 0, 0, NULL);
	check_result(lz, "x.blk6.example.", LDNS_RR_TYPE_A, LZ_NO_ANSWER);
	check(lz, "x.blkw.example.", LDNS_RR_TYPE_A, 0, 1, 0,
		"x.blkw.example.\t3600\tIN\tA\t7.7.7.8");
	check(lz, "y.blkw.example.", LDNS_RR_TYPE_A, 0, 0, 0, NULL);
	check_result(lz, "x.blkw.example.", LDNS_RR_TYPE_AAAA, LZ_NO_ANSWER);
	check(lz, "x.blkw6.example.", LDNS_RR_TYPE_AAAA, 0, 1, 0,
		"x.blkw6.example.\t3600\tIN\tAAAA\t::8");
	check(lz, "y.blkw6.example.", LDNS_RR_TYPE_AAAA, 0, 0, 0, NULL);
	check_result(lz, "y.blkw6.example.", LDNS_RR_TYPE_A, LZ_NO_ANSWER);
	local_zones_delete(lz);
}

static void
test_inform(void** state)
{
	struct testcfg t;
	struct local_zones* lz;
	char path[] = "/tmp/lztestXXXXXX", buf[4096];
	int fd;
	FILE* f;
	size_t n;
	(void)state;
	tc_init(&t);
	tc_zone(&t, "inf.example.", "inform");
	tc_data(&t, "x.inf.example. A 1.2.3.4");
	tc_zone(&t, "infd.example.", "inform_deny");
	tc_zone(&t, "infr.example.", "inform_redirect");
	tc_data(&t, "infr.example. A 6.6.6.6");
	assert_non_null(lz = local_zones_create(&t.cfg));
	assert_true((fd = mkstemp(path)) >= 0);
	close(fd);
	log_init(path, 0, NULL);
	check_result(lz, "y.inf.example.", LDNS_RR_TYPE_A, LZ_NO_ANSWER);
	check(lz, "x.inf.example.", LDNS_RR_TYPE_AAAA, 0, 0, 0, NULL);
	check_result(lz, "x.infd.example.", LDNS_RR_TYPE_MX, LZ_DROP);
	check(lz, "a.infr.example.", LDNS_RR_TYPE_A, 0, 1, 0,
		"a.infr.example.\t3600\tIN\tA\t6.6.6.6");
	log_init(NULL, 0, NULL);
	assert_non_null(f = fopen(path, "r"));
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	unlink(path);
	assert_non_null(strstr(buf, " info: inf.example. inform "
		"127.0.0.1@5353 y.inf.example. A IN\n"));
	assert_non_null(strstr(buf, " info: inf.example. inform "
		"127.0.0.1@5353 x.inf.example. AAAA IN\n"));
	assert_non_null(strstr(buf, " info: infd.example. inform_deny "
		"127.0.0.1@5353 x.infd.example. MX IN\n"));
	assert_non_null(strstr(buf, " info: infr.example. inform_redirect "
		"127.0.0.1@5353 a.infr.example. A IN\n"));
	local_zones_delete(lz);
}

#define DEF_SOA "10800\tIN\tSOA\tlocalhost. nobody.invalid. " \
	"1 3600 1200 604800 10800"

static void
test_defaults(void** state)
{
	struct testcfg t;
	struct local_zones* lz;
	ldns_pkt* p;
	(void)state;
	tc_init(&t);
	assert_non_null(lz = local_zones_create(&t.cfg));
	check(lz, "localhost.", LDNS_RR_TYPE_A, 0, 1, 0,
		"localhost.\t10800\tIN\tA\t127.0.0.1");
	check(lz, "foo.localhost.", LDNS_RR_TYPE_AAAA, 0, 1, 0,
		"foo.localhost.\t10800\tIN\tAAAA\t::1");
	check(lz, "localhost.", LDNS_RR_TYPE_NS, 0, 1, 0,
		"localhost.\t10800\tIN\tNS\tlocalhost.");
	check(lz, "localhost.", LDNS_RR_TYPE_SOA, 0, 1, 0,
		"localhost.\t" DEF_SOA);
	check(lz, "1.0.0.127.in-addr.arpa.", LDNS_RR_TYPE_PTR, 0, 1, 0,
		"1.0.0.127.in-addr.arpa.\t10800\tIN\tPTR\tlocalhost.");
	check(lz, "2.0.0.127.in-addr.arpa.", LDNS_RR_TYPE_PTR,
		LDNS_RCODE_NXDOMAIN, 0, 1, "127.in-addr.arpa.\t" DEF_SOA);
	check(lz, "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0."
		"0.0.0.ip6.arpa.", LDNS_RR_TYPE_PTR, 0, 1, 0, NULL);
	check(lz, "5.10.in-addr.arpa.", LDNS_RR_TYPE_PTR, LDNS_RCODE_NXDOMAIN,
		0, 1, "10.in-addr.arpa.\t" DEF_SOA);
	check(lz, "10.in-addr.arpa.", LDNS_RR_TYPE_NS, 0, 1, 0,
		"10.in-addr.arpa.\t10800\tIN\tNS\tlocalhost.");
	check(lz, "x.onion.", LDNS_RR_TYPE_A, LDNS_RCODE_NXDOMAIN, 0, 1,
		"onion.\t" DEF_SOA);
	check(lz, "test.", LDNS_RR_TYPE_A, 0, 0, 1, NULL);
	check(lz, "invalid.", LDNS_RR_TYPE_SOA, 0, 1, 0, NULL);
	check(lz, "home.arpa.", LDNS_RR_TYPE_SOA, 0, 1, 0, NULL);
	{
		static const char* const present[] = {
			"16.172.in-addr.arpa.", "31.172.in-addr.arpa.",
			"168.192.in-addr.arpa.", "0.in-addr.arpa.",
			"64.100.in-addr.arpa.", "127.100.in-addr.arpa.",
			"254.169.in-addr.arpa.", "2.0.192.in-addr.arpa.",
			"100.51.198.in-addr.arpa.", "113.0.203.in-addr.arpa.",
			"255.255.255.255.in-addr.arpa.", "d.f.ip6.arpa.",
			"8.e.f.ip6.arpa.", "b.e.f.ip6.arpa.",
			"8.b.d.0.1.0.0.2.ip6.arpa.",
			"0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0."
			"0.0.0.0.0.ip6.arpa.", NULL };
		static const char* const absent[] = {
			"32.172.in-addr.arpa.", "128.100.in-addr.arpa.",
			"c.f.ip6.arpa.", "c.e.f.ip6.arpa.", "resolver.arpa.",
			"service.arpa.", "local.", "ipv4only.arpa.",
			"255.in-addr.arpa.", NULL };
		size_t i;
		for(i = 0; present[i]; i++)
			check(lz, present[i], LDNS_RR_TYPE_SOA, 0, 1, 0, NULL);
		for(i = 0; absent[i]; i++)
			check_result(lz, absent[i], LDNS_RR_TYPE_SOA,
				LZ_NO_ANSWER);
	}
	/* EDNS: an OPT with our size, DO echoed */
	assert_int_equal(ask_full(lz, "localhost.", LDNS_RR_TYPE_A, CLASS_IN,
		1, 1, &p), LZ_ANSWERED);
	assert_int_equal(ldns_pkt_edns_udp_size(p), 1232);
	assert_true(ldns_pkt_edns_do(p));
	ldns_pkt_free(p);
	local_zones_delete(lz);
}

static void
test_unblock_nodefault(void** state)
{
	struct testcfg t;
	struct local_zones* lz;
	(void)state;
	tc_init(&t);
	t.cfg.unblock_lan_zones = 1;
	t.cfg.insecure_lan_zones = 1;
	assert_non_null(lz = local_zones_create(&t.cfg));
	check_result(lz, "10.in-addr.arpa.", LDNS_RR_TYPE_SOA, LZ_NO_ANSWER);
	check_result(lz, "0.in-addr.arpa.", LDNS_RR_TYPE_SOA, LZ_NO_ANSWER);
	check_result(lz, "d.f.ip6.arpa.", LDNS_RR_TYPE_SOA, LZ_NO_ANSWER);
	check(lz, "localhost.", LDNS_RR_TYPE_A, 0, 1, 0, NULL);
	check(lz, "127.in-addr.arpa.", LDNS_RR_TYPE_SOA, 0, 1, 0, NULL);
	check(lz, "onion.", LDNS_RR_TYPE_SOA, 0, 1, 0, NULL);
	check(lz, "home.arpa.", LDNS_RR_TYPE_SOA, 0, 1, 0, NULL);
	local_zones_delete(lz);

	tc_init(&t);
	tc_nodefault(&t, "onion");
	tc_zone(&t, "Test.", "nodefault");
	tc_zone(&t, "16.172.in-addr.arpa.", "transparent");
	tc_zone(&t, "5.10.in-addr.arpa.", "transparent");
	tc_zone(&t, "localhost.", "static");
	assert_non_null(lz = local_zones_create(&t.cfg));
	check_result(lz, "x.onion.", LDNS_RR_TYPE_A, LZ_NO_ANSWER);
	check_result(lz, "x.test.", LDNS_RR_TYPE_A, LZ_NO_ANSWER);
	check(lz, "x.invalid.", LDNS_RR_TYPE_A, LDNS_RCODE_NXDOMAIN, 0, 1,
		NULL);
	check_result(lz, "1.16.172.in-addr.arpa.", LDNS_RR_TYPE_PTR,
		LZ_NO_ANSWER);
	check_result(lz, "1.5.10.in-addr.arpa.", LDNS_RR_TYPE_PTR,
		LZ_NO_ANSWER);
	check(lz, "1.6.10.in-addr.arpa.", LDNS_RR_TYPE_PTR,
		LDNS_RCODE_NXDOMAIN, 0, 1, NULL);
	/* a user's zone replaces the default one, contents included */
	check(lz, "localhost.", LDNS_RR_TYPE_A, LDNS_RCODE_NXDOMAIN, 0, 0,
		NULL);
	local_zones_delete(lz);
}

static void
test_ptr_implicit_class(void** state)
{
	struct testcfg t;
	struct local_zones* lz;
	ldns_pkt* p;
	(void)state;
	tc_init(&t);
	t.cfg.unblock_lan_zones = 1;
	tc_ptr(&t, "192.0.2.7 host7.example.");
	tc_ptr(&t, "  2001:db8::1   600  host6.example  ");
	tc_data(&t, "implicit.other. A 9.9.9.9");
	tc_data(&t, "two.other. A 9.9.9.8");
	tc_data(&t, "ch.example. CH TXT chaos");
	tc_zone(&t, "dsz.example.", "static");
	tc_data(&t, "dsz.example. SOA a. b. 1 2 3 4 5");
	tc_zone(&t, "sub.dsz.example.", "static");
	tc_data(&t, "sub.dsz.example. SOA c. d. 1 2 3 4 6");
	assert_non_null(lz = local_zones_create(&t.cfg));
	check(lz, "7.2.0.192.in-addr.arpa.", LDNS_RR_TYPE_PTR, 0, 1, 0,
		"7.2.0.192.in-addr.arpa.\t3600\tIN\tPTR\thost7.example.");
	check(lz, "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0."
		"0.2.ip6.arpa.", LDNS_RR_TYPE_PTR, 0, 1, 0,
		"1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0."
		"0.2.ip6.arpa.\t600\tIN\tPTR\thost6.example.");
	/* implicit transparent zone "other." */
	check(lz, "implicit.other.", LDNS_RR_TYPE_A, 0, 1, 0, NULL);
	check(lz, "implicit.other.", LDNS_RR_TYPE_AAAA, 0, 0, 0, NULL);
	check_result(lz, "other.", LDNS_RR_TYPE_A, LZ_NO_ANSWER);
	check_result(lz, "three.other.", LDNS_RR_TYPE_A, LZ_NO_ANSWER);
	/* class CH data: its own implicit zone */
	assert_int_equal(ask_full(lz, "ch.example.", LDNS_RR_TYPE_TXT,
		CLASS_CH, 0, 0, &p), LZ_ANSWERED);
	expect(p, 0, 1, 0);
	assert_string_equal(rrtext(ldns_pkt_answer(p), 0),
		"ch.example.\t3600\tCH\tTXT\t\"chaos\"");
	ldns_pkt_free(p);
	check_result(lz, "ch.example.", LDNS_RR_TYPE_TXT, LZ_NO_ANSWER);
	/* DS is looked up on the parent side of a zone cut */
	check_result(lz, "dsz.example.", LDNS_RR_TYPE_DS, LZ_NO_ANSWER);
	check(lz, "sub.dsz.example.", LDNS_RR_TYPE_DS, LDNS_RCODE_NXDOMAIN,
		0, 1, "dsz.example.\t5\tIN\tSOA\ta. b. 1 2 3 4 5");
	check(lz, "sub.dsz.example.", LDNS_RR_TYPE_A, 0, 0, 1,
		"sub.dsz.example.\t6\tIN\tSOA\tc. d. 1 2 3 4 6");
	local_zones_delete(lz);
}

static void
test_order_and_dups(void** state)
{
	struct testcfg t;
	struct local_zones* lz;
	(void)state;
	tc_init(&t);
	t.cfg.rrset_roundrobin = 1;
	tc_zone(&t, "dup.example.", "static");
	tc_zone(&t, "dup.example.", "refuse");
	tc_zone(&t, "cn.example.", "static");
	tc_data(&t, "x.cn.example. A 1.1.1.1");
	tc_data(&t, "x.cn.example. CNAME foo.");
	tc_data(&t, "y.cn.example. CNAME foo.");
	tc_data(&t, "y.cn.example. A 1.1.1.1");
	tc_data(&t, "rel.cn.example A 1.1.1.1");
	tc_data(&t, "mx.cn.example. MX 10 mail");
	tc_data(&t, "m.cn.example. 100 A 1.1.1.1");
	tc_data(&t, "m.cn.example. 200 A 2.2.2.2");
	tc_data(&t, "m.cn.example. 100 A 3.3.3.3");
	tc_zone(&t, "Case.Example.", "static");
	/* single quotes in text rdata, as Unbound's parser takes them */
	tc_data(&t, "q1.cn.example. TXT 'chaos'");
	tc_data(&t, "q2.cn.example. TXT 'hi there'");
	tc_data(&t, "q3.cn.example. TXT it's");
	tc_data(&t, "q4.cn.example. TXT 'a' 'b c' d");
	assert_non_null(lz = local_zones_create(&t.cfg));
	check(lz, "q1.cn.example.", LDNS_RR_TYPE_TXT, 0, 1, 0,
		"q1.cn.example.\t3600\tIN\tTXT\t\"chaos\"");
	check(lz, "q2.cn.example.", LDNS_RR_TYPE_TXT, 0, 1, 0,
		"q2.cn.example.\t3600\tIN\tTXT\t\"hi there'\"");
	check(lz, "q3.cn.example.", LDNS_RR_TYPE_TXT, 0, 1, 0,
		"q3.cn.example.\t3600\tIN\tTXT\t\"it's\"");
	check(lz, "q4.cn.example.", LDNS_RR_TYPE_TXT, 0, 1, 0,
		"q4.cn.example.\t3600\tIN\tTXT\t\"a\" \"b c' d\"");

	/* the later local-zone line wins */
	check(lz, "x.dup.example.", LDNS_RR_TYPE_A, LDNS_RCODE_REFUSED, 0, 0,
		NULL);
	/* A or CNAME: the one configured first (Unbound 1.17.1) */
	check(lz, "x.cn.example.", LDNS_RR_TYPE_A, 0, 1, 0,
		"x.cn.example.\t3600\tIN\tA\t1.1.1.1");
	check(lz, "y.cn.example.", LDNS_RR_TYPE_A, 0, 1, 0,
		"y.cn.example.\t3600\tIN\tCNAME\tfoo.");
	/* relative names are relative to the root */
	check(lz, "rel.cn.example.", LDNS_RR_TYPE_A, 0, 1, 0, NULL);
	check(lz, "mx.cn.example.", LDNS_RR_TYPE_MX, 0, 1, 0,
		"mx.cn.example.\t3600\tIN\tMX\t10 mail.");
	check(lz, "x.case.example.", LDNS_RR_TYPE_A, LDNS_RCODE_NXDOMAIN, 0,
		0, NULL);
	/* each RR keeps its own TTL */
	{
		ldns_pkt* p;
		size_t i, n100 = 0, n200 = 0;
		assert_int_equal(ask(lz, "m.cn.example.", LDNS_RR_TYPE_A, &p),
			LZ_ANSWERED);
		expect(p, 0, 3, 0);
		for(i = 0; i < 3; i++) {
			ldns_rr* rr = ldns_rr_list_rr(ldns_pkt_answer(p), i);
			char* a = ldns_rdf2str(ldns_rr_rdf(rr, 0));
			if(strcmp(a, "2.2.2.2") == 0) {
				assert_int_equal(ldns_rr_ttl(rr), 200);
				n200++;
			} else {
				assert_int_equal(ldns_rr_ttl(rr), 100);
				n100++;
			}
			free(a);
		}
		assert_int_equal(n100, 2);
		assert_int_equal(n200, 1);
		ldns_pkt_free(p);
	}
	local_zones_delete(lz);
}

static void
test_truncation(void** state)
{
	struct testcfg t;
	struct local_zones* lz;
	static char lines[200][64];
	struct query_info qi;
	uint8_t out[512];
	size_t outlen = 0, i;
	ldns_pkt* p;
	(void)state;
	tc_init(&t);
	tc_zone(&t, "big.example.", "static");
	/* MAXITEMS lines of many A records each would not fit; use TXT */
	for(i = 0; i < 40; i++) {
		snprintf(lines[i], sizeof(lines[i]),
			"big.example. TXT \"record number %zu, padded out\"", i);
		tc_data(&t, lines[i]);
	}
	assert_non_null(lz = local_zones_create(&t.cfg));
	memset(&qi, 0, sizeof(qi));
	qi.qname_len = dname_from_str("big.example.", qi.qname);
	qi.qtype = LDNS_RR_TYPE_TXT;
	qi.qclass = CLASS_IN;
	assert_int_equal(local_zones_answer(lz, &qi, NULL, 0, out, sizeof(out),
		1232, &outlen), LZ_ANSWERED);
	assert_true(outlen <= sizeof(out));
	assert_int_equal(ldns_wire2pkt(&p, out, outlen), LDNS_STATUS_OK);
	assert_true(ldns_pkt_tc(p));
	ldns_pkt_free(p);
	local_zones_delete(lz);
}

/* Enough zones and names to make the hash tables grow several times. */
static void
test_many(void** state)
{
	enum { N = 5000 };
	static struct config_str2list zl[N];
	static struct config_strlist dl[N];
	static char zn[N][40], dn[N][64];
	struct config_file cfg;
	struct local_zones* lz;
	int i;
	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	for(i = 0; i < N; i++) {
		snprintf(zn[i], sizeof(zn[i]), "z%d.example.", i);
		zl[i].str = zn[i];
		zl[i].str2 = (char*)(i % 2 ? "always_nxdomain" : "static");
		zl[i].next = i < N-1 ? &zl[i+1] : NULL;
		snprintf(dn[i], sizeof(dn[i]), "h%d.z%d.example. A 10.0.%d.%d",
			i, i, i / 256, i % 256);
		dl[i].str = dn[i];
		dl[i].next = i < N-1 ? &dl[i+1] : NULL;
	}
	cfg.local_zones = zl;
	cfg.local_data = dl;
	assert_non_null(lz = local_zones_create(&cfg));
	for(i = 0; i < N; i += 7) {
		char q[64], a[128];
		snprintf(q, sizeof(q), "h%d.z%d.example.", i, i);
		if(i % 2) {
			check(lz, q, LDNS_RR_TYPE_A, LDNS_RCODE_NXDOMAIN, 0, 0,
				NULL);
		} else {
			snprintf(a, sizeof(a), "%s\t3600\tIN\tA\t10.0.%d.%d", q,
				i / 256, i % 256);
			check(lz, q, LDNS_RR_TYPE_A, 0, 1, 0, a);
		}
	}
	check_result(lz, "h1.z5000.example.", LDNS_RR_TYPE_A, LZ_NO_ANSWER);
	local_zones_delete(lz);
}

static void
test_errors(void** state)
{
	struct testcfg t;
	(void)state;
	tc_init(&t);
	tc_zone(&t, "x.example.", "bogus");
	assert_null(local_zones_create(&t.cfg));
	tc_init(&t);
	tc_zone(&t, "x.example.", "ipset");
	assert_null(local_zones_create(&t.cfg));
	tc_init(&t);
	tc_zone(&t, "bad..name.", "static");
	assert_null(local_zones_create(&t.cfg));
	tc_init(&t);
	tc_data(&t, "x.example. A 1.2.3.400");
	assert_null(local_zones_create(&t.cfg));
	tc_init(&t);
	tc_data(&t, "x.example. BOGUS 1");
	assert_null(local_zones_create(&t.cfg));
	tc_init(&t);
	tc_data(&t, "x.example. A");
	assert_null(local_zones_create(&t.cfg));
	tc_init(&t);
	tc_zone(&t, "r.example.", "redirect");
	tc_data(&t, "x.r.example. A 1.2.3.4");
	assert_null(local_zones_create(&t.cfg));
	tc_init(&t);
	tc_zone(&t, "r.example.", "redirect");
	tc_data(&t, "r.example. A 1.2.3.4");
	tc_data(&t, "r.example. CNAME foo.");
	assert_null(local_zones_create(&t.cfg));
	tc_init(&t);
	tc_ptr(&t, "1.2.3 foo.");
	assert_null(local_zones_create(&t.cfg));
	tc_init(&t);
	tc_ptr(&t, "1.2.3.4");
	assert_null(local_zones_create(&t.cfg));

	assert_int_equal(local_zone_str2type("always_nodata"),
		local_zone_always_nodata);
	assert_int_equal(local_zone_str2type("Static"), local_zone_invalid);
	assert_string_equal(local_zone_type2str(local_zone_inform_redirect),
		"inform_redirect");
	assert_null(local_zones_create(NULL));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_static),
		cmocka_unit_test(test_tld_filter),
		cmocka_unit_test(test_transparent),
		cmocka_unit_test(test_redirect),
		cmocka_unit_test(test_redirect_alias_wildcard),
		cmocka_unit_test(test_deny_refuse),
		cmocka_unit_test(test_inform),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_unblock_nodefault),
		cmocka_unit_test(test_ptr_implicit_class),
		cmocka_unit_test(test_order_and_dups),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
