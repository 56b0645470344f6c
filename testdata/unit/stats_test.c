/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/stats_test.c - the statistics sums: baseline subtraction
 * (a reset never writes the workers' counters), totals, the recursion
 * time histogram and median on Unbound's bucket bounds, rcode and
 * nodata counting, and the printed names. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "daemon/stats.h"
#include "util/msgparse.h"

static struct worker_stats* new_stats(void)
{
	struct worker_stats* s = calloc(1, sizeof(*s));
	assert_non_null(s);
	return s;
}

static void test_subtract_and_add(void** state)
{
	struct worker_stats* a = new_stats(), *base = new_stats();
	struct worker_stats* tot = new_stats(), *snap = new_stats();
	(void)state;
	a->num_queries = 10;
	a->qtype[1] = 7;
	a->req_max = 5;
	a->req_cur_all = 3;
	base->num_queries = 4;
	base->qtype[1] = 2;
	base->req_max = 9;  /* gauges are not subtracted */
	stats_snapshot(a, snap);
	assert_memory_equal(a, snap, sizeof(*a));
	stats_subtract(snap, base);
	assert_int_equal(snap->num_queries, 6);
	assert_int_equal(snap->qtype[1], 5);
	assert_int_equal(snap->req_max, 5);
	assert_int_equal(snap->req_cur_all, 3);
	/* a baseline newer than the counter (cannot happen) gives 0 */
	base->num_queries = 100;
	stats_snapshot(a, snap);
	stats_subtract(snap, base);
	assert_int_equal(snap->num_queries, 0);
	/* totals: counters and current gauges summed, max is the largest */
	stats_add(tot, a);
	a->req_max = 2;
	stats_add(tot, a);
	assert_int_equal(tot->num_queries, 20);
	assert_int_equal(tot->req_cur_all, 6);
	assert_int_equal(tot->req_max, 5);
	free(a);
	free(base);
	free(tot);
	free(snap);
}

static void test_histogram_median(void** state)
{
	struct worker_stats* s = new_stats();
	double m;
	int i;
	(void)state;
	assert_true(stats_hist_median(s) == 0.0);
	stats_note_rectime(s, 0);          /* bucket 0: [0, 1us) */
	assert_int_equal(s->rec_hist[0], 1);
	stats_note_rectime(s, 1);          /* [1, 2us) */
	assert_int_equal(s->rec_hist[1], 1);
	stats_note_rectime(s, 600000);     /* [524288us, 1s) */
	assert_int_equal(s->rec_hist[20], 1);
	stats_note_rectime(s, 1500000);    /* [1s, 2s) */
	assert_int_equal(s->rec_hist[21], 1);
	stats_note_rectime(s, UINT64_MAX / 2);  /* the last bucket */
	assert_int_equal(s->rec_hist[STATS_HIST_BUCKETS - 1], 1);
	/* every bucket's edges: the bucket is the first whose top is
	 * above the time */
	for(i = 0; i < STATS_HIST_BUCKETS - 1; i++) {
		uint64_t hi = stats_hist_bucket_hi_us(i), v[3];
		int j, k;
		v[0] = hi - 1;
		v[1] = hi;
		v[2] = hi + 1;
		for(j = 0; j < 3; j++) {
			int want = 0;
			while(want < STATS_HIST_BUCKETS - 1 &&
				v[j] >= stats_hist_bucket_hi_us(want))
				want++;
			memset(s, 0, sizeof(*s));
			stats_note_rectime(s, v[j]);
			for(k = 0; k < STATS_HIST_BUCKETS; k++)
				assert_int_equal(s->rec_hist[k], k == want);
		}
	}
	memset(s, 0, sizeof(*s));
	for(i = 0; i < 100; i++)
		stats_note_rectime(s, 3000);   /* [2048, 4096) us */
	m = stats_hist_median(s);
	assert_true(m >= 0.002048 && m <= 0.004096);
	assert_int_equal(s->rec_count, 100);
	assert_int_equal(s->rec_time_us, 300000);
	free(s);
}

static void test_note_query_reply(void** state)
{
	struct worker_stats* s = new_stats();
	struct query_info qi;
	uint8_t reply[12] = { 0, 1, 0x81, 0x83, 0, 1, 0, 0, 0, 0, 0, 0 };
	(void)state;
	memset(&qi, 0, sizeof(qi));
	qi.qtype = 28;
	qi.qclass = 1;
	qi.flags = 0x0110;   /* RD, CD */
	qi.has_edns = 1;
	qi.edns_do = 1;
	stats_note_query(s, &qi, NULL);
	qi.qtype = 65280;
	stats_note_query(s, &qi, NULL);
	assert_int_equal(s->qtype[28], 1);
	assert_int_equal(s->qtype_other, 1);
	assert_int_equal(s->qclass[1], 2);
	assert_int_equal(s->opcode[0], 2);
	assert_int_equal(s->qflags[3], 2);   /* RD */
	assert_int_equal(s->qflags[7], 2);   /* CD */
	assert_int_equal(s->qflags[0], 0);   /* QR */
	assert_int_equal(s->edns_do, 2);
	stats_note_reply(s, reply, sizeof(reply));   /* NXDOMAIN */
	reply[3] = 0x80;                             /* NOERROR, no answer */
	stats_note_reply(s, reply, sizeof(reply));
	stats_note_reply(s, reply, 5);               /* too short: ignored */
	assert_int_equal(s->rcode[3], 1);
	assert_int_equal(s->rcode[0], 1);
	assert_int_equal(s->ans_nodata, 1);
	free(s);
}

static void test_print(void** state)
{
	struct worker_stats* s = new_stats();
	struct strbuf b = { NULL, 0, 0, 0 };
	struct stats_cache_info ci = { .mem_rrset = 100, .mem_msg = 200,
		.rrset_count = 1, .msg_count = 2, .infra_count = 3,
		.key_count = 7, .mem_mod[STATS_MOD_VALIDATOR] = 4096 };
	struct timespec now = { 1000, 500000000 }, start = { 990, 0 };
	(void)state;
	s->num_queries = 5;
	s->num_cachemiss = 2;
	s->qtype[1] = 5;
	s->qudp_out = 7;
	s->qtcp_out = 2;
	s->unwanted_queries = 4;
	s->unwanted_replies = 1;
	s->ans_secure = 11;
	s->ans_bogus = 3;
	s->rrset_bogus = 4;
	stats_print_thread(&b, "thread0", s, 0);
	stats_print_time(&b, &now, &start, &start);
	stats_print_extended(&b, s, &ci);
	assert_false(b.oom);
	assert_non_null(strstr(b.s, "thread0.num.queries=5\n"));
	assert_non_null(strstr(b.s, "thread0.num.cachehits=3\n"));
	assert_non_null(strstr(b.s, "thread0.num.cachemiss=2\n"));
	assert_non_null(strstr(b.s, "time.up=10.500000\n"));
	assert_non_null(strstr(b.s, "mem.cache.message=200\n"));
	assert_non_null(strstr(b.s, "num.query.type.A=5\n"));
	assert_null(strstr(b.s, "num.query.type.AAAA"));
	assert_non_null(strstr(b.s, "num.answer.rcode.REFUSED=0\n"));
	assert_non_null(strstr(b.s, "histogram.000000.524288.to.000001."
		"000000=0\n"));
	assert_non_null(strstr(b.s, "infra.cache.count=3\n"
		"key.cache.count=7\n"));
	assert_non_null(strstr(b.s, "mem.mod.validator=4096\n"));
	assert_non_null(strstr(b.s, "num.answer.secure=11\n"
		"num.answer.bogus=3\nnum.rrset.bogus=4\n"));
	assert_non_null(strstr(b.s, "num.query.tcpout=2\n"
		"num.query.udpout=7\n"));
	assert_non_null(strstr(b.s, "unwanted.queries=4\n"
		"unwanted.replies=1\n"));
	strbuf_clear(&b);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_subtract_and_add),
		cmocka_unit_test(test_histogram_median),
		cmocka_unit_test(test_note_query_reply),
		cmocka_unit_test(test_print),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
