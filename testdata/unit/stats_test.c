/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/stats_test.c - the statistics sums: baseline subtraction
 * (a reset never writes the workers' counters), totals, the recursion
 * time histogram and median on Unbound's bucket bounds, rcode and
 * nodata counting, and the printed names; the shared memory statistics
 * (shm-enable) converted to Unbound's layout and printed back as
 * stats_noreset prints them. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "daemon/stats.h"
#include "daemon/stats_shm.h"
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

/* Every counter the 1.17 layout has a place for, a distinct value. */
static void fill_distinct(struct worker_stats* s)
{
	int i;
	s->num_queries = 1000;
	s->num_ip_ratelimited = 3;
	s->num_cachemiss = 40;
	s->num_prefetch = 5;
	s->num_expired = 6;
	s->num_recursive_replies = 3;
	s->req_sum = 90;
	s->req_samples = 45;   /* misses + prefetches, as Unbound divides */
	s->req_max = 9;
	s->req_overwritten = 10;
	s->req_exceeded = 11;
	s->req_cur_all = 12;
	s->req_cur_user = 13;
	s->rec_time_us = 3000007;
	s->rec_count = 3;
	s->tcpusage = 14;
	for(i = 0; i < STATS_HIST_BUCKETS; i++)
		s->rec_hist[i] = (uint64_t)(i % 3);
	for(i = 0; i < 256; i++) {
		s->qtype[i] = (uint64_t)(i % 5);
		s->qclass[i] = (uint64_t)(i % 7);
	}
	s->qtype_other = 15;
	s->qclass_other = 16;
	for(i = 0; i < 16; i++) {
		s->opcode[i] = (uint64_t)(i % 2);
		s->rcode[i] = (uint64_t)(i % 4);
	}
	s->num_tcp = 17;
	s->qtcp_out = 18;
	s->qudp_out = 19;
	s->num_tls = 20;
	s->num_tls_resume = 21;
	s->qipv6 = 22;
	s->num_https = 23;
	for(i = 0; i < 8; i++)
		s->qflags[i] = (uint64_t)(30 + i);
	s->edns_present = 24;
	s->edns_do = 25;
	s->ans_nodata = 26;
	s->queries_ratelimited = 27;
	s->ans_secure = 28;
	s->ans_bogus = 29;
	s->rrset_bogus = 40;
	s->aggr_noerror = 41;
	s->aggr_nxdomain = 42;
	s->unwanted_queries = 43;
	s->unwanted_replies = 44;
	for(i = 0; i < 10; i++)
		s->rpz_action[i] = (uint64_t)(50 + i);
	s->auth_up = 45;
	s->num_auth_down = 46;
	s->subnet_answers = 47;
	s->subnet_cache_answers = 48;
}

static void test_shm_round_trip(void** state)
{
	struct worker_stats* s = new_stats();
	struct ub_stats_info* arr = calloc(2, sizeof(*arr));
	struct ub_shm_stat_info info;
	struct strbuf want = { NULL, 0, 0, 0 }, got = { NULL, 0, 0, 0 };
	struct stats_cache_info ci = { .mem_rrset = 100, .mem_msg = 200,
		.rrset_count = 1, .msg_count = 2, .infra_count = 3,
		.key_count = 7, .mem_mod = { 11, 12, 13, 14 },
		.mem_http_query = 15, .mem_http_response = 16,
		.mem_stream_wait = 17, .show_zero = 0 };
	struct timespec now = { 1000, 500000000 }, start = { 990, 0 },
		last = { 995, 250000000 };
	char* p;
	(void)state;
	assert_non_null(arr);
	fill_distinct(s);
	stats_print_thread(&want, "thread0", s, 0);
	stats_print_thread(&want, "total", s, 0);
	stats_print_time(&want, &now, &start, &last);
	stats_print_extended(&want, s, &ci);
	assert_false(want.oom);
	/* compat: unbound-1.17: the one name stats_shm prints otherwise */
	p = strstr(want.s, "num.query.tls.resume=");
	assert_non_null(p);
	p[13] = '_';

	stats_shm_from_worker(&arr[1], s, &ci, 1);
	stats_shm_from_worker(&arr[0], s, &ci, 1);
	assert_int_equal(arr[0].svr.extended, 1);
	assert_int_equal(arr[0].svr.num_queries_missed_cache, 40);
	assert_int_equal(arr[0].svr.qtls_resume, 21);
	assert_int_equal(arr[0].mesh_replies_sum_wait_sec, 3);
	assert_int_equal(arr[0].mesh_replies_sum_wait_usec, 7);
	memset(&info, 0, sizeof(info));
	info.num_threads = 1;
	info.time.now_sec = 1000;
	info.time.now_usec = 500000;
	info.time.up_sec = 10;
	info.time.up_usec = 500000;
	info.time.elapsed_sec = 5;
	info.time.elapsed_usec = 250000;
	info.mem.msg = 200;
	info.mem.rrset = 100;
	info.mem.iter = 11;
	info.mem.val = 12;
	info.mem.respip = 13;
	info.mem.subnet = 14;
	stats_shm_print(&got, &info, arr, 1, 1, 1);
	assert_false(got.oom);
	assert_string_equal(got.s, want.s);
	strbuf_clear(&want);
	strbuf_clear(&got);

	/* Unbound's averages: a sum over the denominators it divides by,
	 * whatever this daemon counted its samples with */
	s->req_samples = 90;
	s->req_sum = 90;   /* average 1 */
	s->rec_count = 6;
	s->rec_time_us = 6000000;  /* average 1 s */
	stats_shm_from_worker(&arr[0], s, &ci, 0);
	assert_int_equal(arr[0].svr.sum_query_list_size, 45);
	assert_int_equal(arr[0].mesh_replies_sum_wait_sec, 3);
	assert_int_equal(arr[0].svr.extended, 0);
	free(arr);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_subtract_and_add),
		cmocka_unit_test(test_histogram_median),
		cmocka_unit_test(test_note_query_reply),
		cmocka_unit_test(test_print),
		cmocka_unit_test(test_shm_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
