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

void stats_shm_from_worker(struct ub_stats_info* o,
	const struct worker_stats* s, const struct stats_cache_info* ci,
	int extended)
{
	struct ub_server_stats* v = &o->svr;
	long long wait_us;
	int i;
	memset(o, 0, sizeof(*o));
	v->num_queries = (long long)s->num_queries;
	v->num_queries_ip_ratelimited = (long long)s->num_ip_ratelimited;
	v->num_queries_missed_cache = (long long)s->num_cachemiss;
	v->num_queries_prefetch = (long long)s->num_prefetch;
	/* Unbound divides the sum by misses plus prefetches; this daemon
	 * by its samples (the same queries, counted in another place) */
	v->sum_query_list_size = rescale(s->req_sum, s->req_samples,
		s->num_cachemiss + s->num_prefetch);
	v->max_query_list_size = (long long)s->req_max;
	v->extended = extended;
	for(i = 0; i < 256; i++) {
		v->qtype[i] = (long long)s->qtype[i];
		v->qclass[i] = (long long)s->qclass[i];
	}
	v->qtype_big = (long long)s->qtype_other;
	v->qclass_big = (long long)s->qclass_other;
	for(i = 0; i < 16; i++) {
		v->qopcode[i] = (long long)s->opcode[i];
		v->ans_rcode[i] = (long long)s->rcode[i];
	}
	v->qtcp = (long long)s->num_tcp;
	v->qtcp_outgoing = (long long)s->qtcp_out;
	v->qudp_outgoing = (long long)s->qudp_out;
	v->qtls = (long long)s->num_tls;
	v->qhttps = (long long)s->num_https;
	v->qipv6 = (long long)s->qipv6;
	v->qbit_QR = (long long)s->qflags[0];
	v->qbit_AA = (long long)s->qflags[1];
	v->qbit_TC = (long long)s->qflags[2];
	v->qbit_RD = (long long)s->qflags[3];
	v->qbit_RA = (long long)s->qflags[4];
	v->qbit_Z = (long long)s->qflags[5];
	v->qbit_AD = (long long)s->qflags[6];
	v->qbit_CD = (long long)s->qflags[7];
	v->qEDNS = (long long)s->edns_present;
	v->qEDNS_DO = (long long)s->edns_do;
	v->ans_rcode_nodata = (long long)s->ans_nodata;
	v->ans_secure = (long long)s->ans_secure;
	v->ans_bogus = (long long)s->ans_bogus;
	v->rrset_bogus = (long long)s->rrset_bogus;
	v->queries_ratelimited = (long long)s->queries_ratelimited;
	v->unwanted_replies = (long long)s->unwanted_replies;
	v->unwanted_queries = (long long)s->unwanted_queries;
	v->tcp_accept_usage = (long long)s->tcpusage;
	v->ans_expired = (long long)s->num_expired;
	for(i = 0; i < STATS_HIST_BUCKETS; i++)
		v->hist[i] = (long long)s->rec_hist[i];
	v->msg_cache_count = (long long)ci->msg_count;
	v->rrset_cache_count = (long long)ci->rrset_count;
	v->infra_cache_count = (long long)ci->infra_count;
	v->key_cache_count = (long long)ci->key_count;
	v->num_query_authzone_up = (long long)s->auth_up;
	v->num_query_authzone_down = (long long)s->num_auth_down;
	v->num_neg_cache_noerror = (long long)s->aggr_noerror;
	v->num_neg_cache_nxdomain = (long long)s->aggr_nxdomain;
	/* compat: unbound-1.17: num.query.subnet counts the answers from
	 * upstream and from the module's cache together (stats.c) */
	v->num_query_subnet = (long long)(s->subnet_answers +
		s->subnet_cache_answers);
	v->num_query_subnet_cache = (long long)s->subnet_cache_answers;
	v->mem_stream_wait = (long long)ci->mem_stream_wait;
	v->mem_http2_query_buffer = (long long)ci->mem_http_query;
	v->mem_http2_response_buffer = (long long)ci->mem_http_response;
	v->qtls_resume = (long long)s->num_tls_resume;
	for(i = 0; i < UB_SHM_RPZ_ACTION_NUM; i++)
		v->rpz_action[i] = (long long)s->rpz_action[i];
	o->mesh_num_states = (long long)s->req_cur_all;
	o->mesh_num_reply_states = (long long)s->req_cur_user;
	o->mesh_jostled = (long long)s->req_overwritten;
	o->mesh_dropped = (long long)s->req_exceeded;
	o->mesh_replies_sent = (long long)s->num_recursive_replies;
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
	s->num_queries = (uint64_t)v->num_queries;
	s->num_ip_ratelimited = (uint64_t)v->num_queries_ip_ratelimited;
	s->num_cachemiss = (uint64_t)v->num_queries_missed_cache;
	s->num_prefetch = (uint64_t)v->num_queries_prefetch;
	s->num_expired = (uint64_t)v->ans_expired;
	s->num_recursive_replies = (uint64_t)in->mesh_replies_sent;
	s->req_sum = (uint64_t)v->sum_query_list_size;
	/* unsigned before the sum: the segment is outside input */
	s->req_samples = (uint64_t)v->num_queries_missed_cache +
		(uint64_t)v->num_queries_prefetch;
	s->req_max = (uint64_t)v->max_query_list_size;
	s->req_overwritten = (uint64_t)in->mesh_jostled;
	s->req_exceeded = (uint64_t)in->mesh_dropped;
	s->req_cur_all = (uint64_t)in->mesh_num_states;
	s->req_cur_user = (uint64_t)in->mesh_num_reply_states;
	s->rec_time_us = wait_avg_us(in);
	s->rec_count = 1;
	s->tcpusage = (uint64_t)v->tcp_accept_usage;
	for(i = 0; i < STATS_HIST_BUCKETS; i++)
		s->rec_hist[i] = (uint64_t)v->hist[i];
	for(i = 0; i < 256; i++) {
		s->qtype[i] = (uint64_t)v->qtype[i];
		s->qclass[i] = (uint64_t)v->qclass[i];
	}
	s->qtype_other = (uint64_t)v->qtype_big;
	s->qclass_other = (uint64_t)v->qclass_big;
	for(i = 0; i < 16; i++) {
		s->opcode[i] = (uint64_t)v->qopcode[i];
		s->rcode[i] = (uint64_t)v->ans_rcode[i];
	}
	s->num_tcp = (uint64_t)v->qtcp;
	s->qtcp_out = (uint64_t)v->qtcp_outgoing;
	s->qudp_out = (uint64_t)v->qudp_outgoing;
	s->num_tls = (uint64_t)v->qtls;
	s->num_tls_resume = (uint64_t)v->qtls_resume;
	s->qipv6 = (uint64_t)v->qipv6;
	s->num_https = (uint64_t)v->qhttps;
	s->qflags[0] = (uint64_t)v->qbit_QR;
	s->qflags[1] = (uint64_t)v->qbit_AA;
	s->qflags[2] = (uint64_t)v->qbit_TC;
	s->qflags[3] = (uint64_t)v->qbit_RD;
	s->qflags[4] = (uint64_t)v->qbit_RA;
	s->qflags[5] = (uint64_t)v->qbit_Z;
	s->qflags[6] = (uint64_t)v->qbit_AD;
	s->qflags[7] = (uint64_t)v->qbit_CD;
	s->edns_present = (uint64_t)v->qEDNS;
	s->edns_do = (uint64_t)v->qEDNS_DO;
	s->ans_nodata = (uint64_t)v->ans_rcode_nodata;
	s->queries_ratelimited = (uint64_t)v->queries_ratelimited;
	s->ans_secure = (uint64_t)v->ans_secure;
	s->ans_bogus = (uint64_t)v->ans_bogus;
	s->rrset_bogus = (uint64_t)v->rrset_bogus;
	s->aggr_noerror = (uint64_t)v->num_neg_cache_noerror;
	s->aggr_nxdomain = (uint64_t)v->num_neg_cache_nxdomain;
	s->unwanted_queries = (uint64_t)v->unwanted_queries;
	s->unwanted_replies = (uint64_t)v->unwanted_replies;
	for(i = 0; i < UB_SHM_RPZ_ACTION_NUM; i++)
		s->rpz_action[i] = (uint64_t)v->rpz_action[i];
	s->auth_up = (uint64_t)v->num_query_authzone_up;
	s->num_auth_down = (uint64_t)v->num_query_authzone_down;
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
