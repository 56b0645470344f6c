/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/stats_shm_layout.h - compat: unbound-1.17: the statistics in
 * System V shared memory (shm-enable:), laid out byte for byte as Unbound
 * 1.17 lays them out (its libunbound/unbound.h), so Unbound's own
 * unbound-control stats_shm, and anything else that maps the segments,
 * reads this daemon's, and ours reads Unbound's.
 *
 * Two segments: key shm-key holds struct ub_shm_stat_info (time and
 * memory); key shm-key + 1 holds an array of struct ub_stats_info, [0]
 * the total and [1 + i] thread i. All counters are long long, written by
 * the daemon's main thread at the statistics-interval timer. */
#ifndef DAEMON_STATS_SHM_LAYOUT_H
#define DAEMON_STATS_SHM_LAYOUT_H

/* the array sizes of the 1.17 layout */
#define UB_SHM_QTYPE_NUM 256
#define UB_SHM_QCLASS_NUM 256
#define UB_SHM_RCODE_NUM 16
#define UB_SHM_OPCODE_NUM 16
#define UB_SHM_BUCKET_NUM 40
#define UB_SHM_RPZ_ACTION_NUM 10

/* segment shm-key: what is not per thread */
struct ub_shm_stat_info {
	int num_threads;
	struct {
		long long now_sec, now_usec;
		long long up_sec, up_usec;
		long long elapsed_sec, elapsed_usec;
	} time;
	/* bytes: mem.cache.message, mem.cache.rrset, mem.mod.* */
	struct {
		long long msg, rrset, val, iter, subnet, ipsecmod, respip;
		long long dnscrypt_shared_secret, dnscrypt_nonce, dynlib;
	} mem;
};

/* one thread's (or the total's) counters; the field order is the
 * layout, not a choice */
struct ub_server_stats {
	long long num_queries;
	long long num_queries_ip_ratelimited;
	long long num_queries_missed_cache;
	long long num_queries_prefetch;
	/* requestlist.avg is sum_query_list_size / (missed + prefetch) */
	long long sum_query_list_size;
	long long max_query_list_size;
	int extended;                   /* extended-statistics: yes */
	long long qtype[UB_SHM_QTYPE_NUM];
	long long qtype_big;
	long long qclass[UB_SHM_QCLASS_NUM];
	long long qclass_big;
	long long qopcode[UB_SHM_OPCODE_NUM];
	long long qtcp, qtcp_outgoing, qudp_outgoing, qtls, qhttps, qipv6;
	/* header bits QR AA TC RD RA Z AD CD */
	long long qbit_QR, qbit_AA, qbit_TC, qbit_RD, qbit_RA, qbit_Z;
	long long qbit_AD, qbit_CD;
	long long qEDNS, qEDNS_DO;
	long long ans_rcode[UB_SHM_RCODE_NUM];
	long long ans_rcode_nodata;
	long long ans_secure, ans_bogus, rrset_bogus;
	long long queries_ratelimited;
	long long unwanted_replies, unwanted_queries;
	long long tcp_accept_usage;
	long long ans_expired;
	long long hist[UB_SHM_BUCKET_NUM];
	long long msg_cache_count, rrset_cache_count, infra_cache_count;
	long long key_cache_count;
	/* dnscrypt: not built here, always 0 */
	long long num_query_dnscrypt_crypted, num_query_dnscrypt_cert;
	long long num_query_dnscrypt_cleartext;
	long long num_query_dnscrypt_crypted_malformed;
	long long num_query_dnscrypt_secret_missed_cache;
	long long shared_secret_cache_count;
	long long num_query_dnscrypt_replay;
	long long nonce_cache_count;
	long long num_query_authzone_up, num_query_authzone_down;
	long long num_neg_cache_noerror, num_neg_cache_nxdomain;
	long long num_query_subnet, num_query_subnet_cache;
	long long mem_stream_wait;
	long long mem_http2_query_buffer, mem_http2_response_buffer;
	long long qtls_resume;
	long long rpz_action[UB_SHM_RPZ_ACTION_NUM];
};

struct ub_stats_info {
	struct ub_server_stats svr;
	long long mesh_num_states;       /* requestlist.current.all */
	long long mesh_num_reply_states; /* requestlist.current.user */
	long long mesh_jostled;          /* requestlist.overwritten */
	long long mesh_dropped;          /* requestlist.exceeded */
	long long mesh_replies_sent;     /* num.recursivereplies */
	/* recursion.time.avg is this sum / mesh_replies_sent */
	long long mesh_replies_sum_wait_sec, mesh_replies_sum_wait_usec;
	double mesh_time_median;         /* recursion.time.median, seconds */
};

/* The sizes of Unbound 1.17.1 on LP64 (x86_64, aarch64): the int
 * extended is padded to 8 bytes */
_Static_assert(sizeof(struct ub_shm_stat_info) == 8 + 6 * 8 + 10 * 8,
	"ub_shm_stat_info is Unbound 1.17's layout");
_Static_assert(sizeof(struct ub_server_stats) == 8 * (6 + 1 + 256 + 1 +
	256 + 1 + 16 + 6 + 8 + 2 + 16 + 1 + 3 + 1 + 2 + 1 + 1 + 40 + 4 + 8 +
	2 + 2 + 2 + 1 + 2 + 1 + 10), "ub_server_stats is Unbound 1.17's layout");
_Static_assert(sizeof(struct ub_stats_info) ==
	sizeof(struct ub_server_stats) + 8 * 8, "ub_stats_info layout");

#endif
