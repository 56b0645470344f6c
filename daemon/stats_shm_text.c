/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/stats_shm_text.c - compat: unbound-1.17: the shared memory
 * statistics (shm-enable:) converted from this daemon's counters to
 * Unbound's layout (the daemon writes them) and back to text (what
 * unbound-control stats_shm prints). Printing goes through stats.c's
 * printer, so stats_shm and stats_noreset print the same names. */
#include "config.h"
#include "daemon/stats_shm.h"
#include <limits.h>
#include <stdio.h>
#include <string.h>

_Static_assert(UB_SHM_QTYPE_NUM == 256 && UB_SHM_QCLASS_NUM == 256 &&
	UB_SHM_OPCODE_NUM == 16 && UB_SHM_RCODE_NUM == 16 &&
	UB_SHM_BUCKET_NUM == STATS_HIST_BUCKETS &&
	UB_SHM_RPZ_ACTION_NUM == 10,
	"struct worker_stats' arrays have the layout's sizes");

/* a scaled to the denominator to, from its own from: a sum whose
 * average over `to` is a's average over `from` */
static long long rescale(uint64_t a, uint64_t from, uint64_t to)
{
	if(from == to)
		return (long long)a;
	double r;
	if(from == 0)
		return 0;
	r = (double)a * (double)to / (double)from + 0.5;
	return r >= 9.2e18 ? LLONG_MAX : (long long)r;
}

/* The counters copied as they are, both ways: X(field of struct
 * ub_stats_info, field of struct worker_stats). What is scaled, summed
 * or taken from the cache sizes is done by hand below. */
#define SHM_PLAIN_FIELDS(X) \
	X(svr.num_queries, num_queries) \
	X(svr.num_queries_ip_ratelimited, num_ip_ratelimited) \
	X(svr.num_queries_missed_cache, num_cachemiss) \
	X(svr.num_queries_prefetch, num_prefetch) \
	X(svr.max_query_list_size, req_max) \
	X(svr.qtype_big, qtype_other) \
	X(svr.qclass_big, qclass_other) \
	X(svr.qtcp, num_tcp) \
	X(svr.qtcp_outgoing, qtcp_out) \
	X(svr.qudp_outgoing, qudp_out) \
	X(svr.qtls, num_tls) \
	X(svr.qtls_resume, num_tls_resume) \
	X(svr.qhttps, num_https) \
	X(svr.qipv6, qipv6) \
	X(svr.qbit_QR, qflags[0]) \
	X(svr.qbit_AA, qflags[1]) \
	X(svr.qbit_TC, qflags[2]) \
	X(svr.qbit_RD, qflags[3]) \
	X(svr.qbit_RA, qflags[4]) \
	X(svr.qbit_Z, qflags[5]) \
	X(svr.qbit_AD, qflags[6]) \
	X(svr.qbit_CD, qflags[7]) \
	X(svr.qEDNS, edns_present) \
	X(svr.qEDNS_DO, edns_do) \
	X(svr.ans_rcode_nodata, ans_nodata) \
	X(svr.ans_secure, ans_secure) \
	X(svr.ans_bogus, ans_bogus) \
	X(svr.rrset_bogus, rrset_bogus) \
	X(svr.queries_ratelimited, queries_ratelimited) \
	X(svr.unwanted_replies, unwanted_replies) \
	X(svr.unwanted_queries, unwanted_queries) \
	X(svr.tcp_accept_usage, tcpusage) \
	X(svr.ans_expired, num_expired) \
	X(svr.num_query_authzone_up, auth_up) \
	X(svr.num_query_authzone_down, num_auth_down) \
	X(svr.num_neg_cache_noerror, aggr_noerror) \
	X(svr.num_neg_cache_nxdomain, aggr_nxdomain) \
	X(mesh_num_states, req_cur_all) \
	X(mesh_num_reply_states, req_cur_user) \
	X(mesh_jostled, req_overwritten) \
	X(mesh_dropped, req_exceeded) \
	X(mesh_replies_sent, num_recursive_replies)

/* The arrays copied element by element, both ways: X(field of struct
 * ub_stats_info, field of struct worker_stats, length). */
#define SHM_ARRAY_FIELDS(X) \
	X(svr.qtype, qtype, 256) \
	X(svr.qclass, qclass, 256) \
	X(svr.qopcode, opcode, 16) \
	X(svr.ans_rcode, rcode, 16) \
	X(svr.hist, rec_hist, STATS_HIST_BUCKETS) \
	X(svr.rpz_action, rpz_action, UB_SHM_RPZ_ACTION_NUM)

void stats_shm_from_worker(struct ub_stats_info* o,
	const struct worker_stats* s, const struct stats_cache_info* ci,
	int extended)
{
	struct ub_server_stats* v = &o->svr;
	long long wait_us;
	int i;
	memset(o, 0, sizeof(*o));
#define SHM_FROM_PLAIN(shm, w) o->shm = (long long)s->w;
#define SHM_FROM_ARRAY(shm, w, n) \
	for(i = 0; i < (n); i++) \
		o->shm[i] = (long long)s->w[i];
	SHM_PLAIN_FIELDS(SHM_FROM_PLAIN)
	SHM_ARRAY_FIELDS(SHM_FROM_ARRAY)
#undef SHM_FROM_PLAIN
#undef SHM_FROM_ARRAY
	/* Unbound divides the sum by misses plus prefetches; this daemon
	 * by its samples (the same queries, counted in another place) */
	v->sum_query_list_size = rescale(s->req_sum, s->req_samples,
		s->num_cachemiss + s->num_prefetch);
	v->extended = extended;
	v->msg_cache_count = (long long)ci->msg_count;
	v->rrset_cache_count = (long long)ci->rrset_count;
	v->infra_cache_count = (long long)ci->infra_count;
	v->key_cache_count = (long long)ci->key_count;
	/* compat: unbound-1.17: num.query.subnet counts the answers from
	 * upstream and from the module's cache together (stats.c) */
	v->num_query_subnet = (long long)(s->subnet_answers +
		s->subnet_cache_answers);
	v->num_query_subnet_cache = (long long)s->subnet_cache_answers;
	v->mem_stream_wait = (long long)ci->mem_stream_wait;
	v->mem_http2_query_buffer = (long long)ci->mem_http_query;
	v->mem_http2_response_buffer = (long long)ci->mem_http_response;
	wait_us = rescale(s->rec_time_us, s->rec_count,
		s->num_recursive_replies);
	o->mesh_replies_sum_wait_sec = wait_us / 1000000;
	o->mesh_replies_sum_wait_usec = wait_us % 1000000;
	o->mesh_time_median = stats_hist_median(s);
}

/* compat: unbound-1.17: recursion.time.avg as unbound-control stats_shm
 * divides the sum (seconds and microseconds apart), in microseconds */
static uint64_t wait_avg_us(const struct ub_stats_info* in)
{
	long long d = in->mesh_replies_sent, sec, usec, left;
	uint64_t extra = 0;
	if(d <= 0)
		return 0;
	sec = in->mesh_replies_sum_wait_sec / d;
	usec = in->mesh_replies_sum_wait_usec / d;
	left = in->mesh_replies_sum_wait_sec - sec * d;
	/* unsigned from here: the segment is outside input, and whatever
	 * it holds wraps rather than overflows */
	if(left > 0)
		extra = (uint64_t)left * 1000000ULL / (uint64_t)d;
	if(sec < 0)
		sec = 0;
	if(usec < 0)
		usec = 0;
	return (uint64_t)sec * 1000000ULL + (uint64_t)usec + extra;
}

/* The counters of one entry as this daemon's printer takes them. */
static void to_worker(const struct ub_stats_info* in, struct worker_stats* s)
{
	const struct ub_server_stats* v = &in->svr;
	int i;
	memset(s, 0, sizeof(*s));
#define SHM_TO_PLAIN(shm, w) s->w = (uint64_t)in->shm;
#define SHM_TO_ARRAY(shm, w, n) \
	for(i = 0; i < (n); i++) \
		s->w[i] = (uint64_t)in->shm[i];
	SHM_PLAIN_FIELDS(SHM_TO_PLAIN)
	SHM_ARRAY_FIELDS(SHM_TO_ARRAY)
#undef SHM_TO_PLAIN
#undef SHM_TO_ARRAY
	s->req_sum = (uint64_t)v->sum_query_list_size;
	/* unsigned before the sum: the segment is outside input */
	s->req_samples = (uint64_t)v->num_queries_missed_cache +
		(uint64_t)v->num_queries_prefetch;
	s->rec_time_us = wait_avg_us(in);
	s->rec_count = 1;
	/* the printer prints the sum of these two as num.query.subnet */
	s->subnet_cache_answers = (uint64_t)v->num_query_subnet_cache;
	s->subnet_answers = (uint64_t)v->num_query_subnet -
		(uint64_t)v->num_query_subnet_cache;
}

/* seconds and microseconds as microseconds, wrapping (outside input) */
static uint64_t us_of(long long sec, long long usec)
{
	return (uint64_t)sec * 1000000ULL + (uint64_t)usec;
}

static struct timespec ts_of_us(uint64_t us)
{
	struct timespec t;
	t.tv_sec = (time_t)(us / 1000000);
	t.tv_nsec = (long)(us % 1000000 * 1000);
	return t;
}

void stats_shm_print(struct strbuf* b, const struct ub_shm_stat_info* info,
	const struct ub_stats_info* arr, int n_threads, int extended,
	int inhibit_zero)
{
	struct worker_stats s;
	struct timespec now, start, last;
	uint64_t n_us;
	int i;
	/* compat: unbound-1.17: the lines of Unbound 1.17's stats: no
	 * cookie or drop counters (the layout has no place for them) */
	for(i = 0; i < n_threads; i++) {
		char pfx[32];
		snprintf(pfx, sizeof(pfx), "thread%d", i);
		to_worker(&arr[i + 1], &s);
		stats_print_thread_median(b, pfx, &s, 0,
			arr[i + 1].mesh_time_median);
	}
	to_worker(&arr[0], &s);
	stats_print_thread_median(b, "total", &s, 0, arr[0].mesh_time_median);
	/* the printer takes absolute times and subtracts: the start and
	 * the last reset are now less up and elapsed */
	n_us = us_of(info->time.now_sec, info->time.now_usec);
	now = ts_of_us(n_us);
	start = ts_of_us(n_us - us_of(info->time.up_sec, info->time.up_usec));
	last = ts_of_us(n_us - us_of(info->time.elapsed_sec,
		info->time.elapsed_usec));
	stats_print_time(b, &now, &start, &last);
	if(extended) {
		struct stats_cache_info ci;
		memset(&ci, 0, sizeof(ci));
		ci.mem_rrset = (size_t)info->mem.rrset;
		ci.mem_msg = (size_t)info->mem.msg;
		ci.mem_mod[STATS_MOD_ITERATOR] = (size_t)info->mem.iter;
		ci.mem_mod[STATS_MOD_VALIDATOR] = (size_t)info->mem.val;
		ci.mem_mod[STATS_MOD_RESPIP] = (size_t)info->mem.respip;
		ci.mem_mod[STATS_MOD_SUBNET] = (size_t)info->mem.subnet;
		ci.mem_stream_wait = (size_t)arr[0].svr.mem_stream_wait;
		ci.mem_http_query = (size_t)arr[0].svr.mem_http2_query_buffer;
		ci.mem_http_response =
			(size_t)arr[0].svr.mem_http2_response_buffer;
		ci.msg_count = (size_t)arr[0].svr.msg_cache_count;
		ci.rrset_count = (size_t)arr[0].svr.rrset_cache_count;
		ci.infra_count = (size_t)arr[0].svr.infra_cache_count;
		ci.key_count = (size_t)arr[0].svr.key_cache_count;
		ci.show_zero = !inhibit_zero;
		ci.shm_names = 1;
		stats_print_extended(b, &s, &ci);
	}
}
