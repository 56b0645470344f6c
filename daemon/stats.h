/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/stats.h - compat: unbound-1.17: statistics for the remote control:
 * the per-thread counters of struct worker_stats (below) summed and printed in
 * Unbound's name=value format.
 *
 * Workers only ever increment their own counters, with plain stores (no
 * atomic read-modify-write on the query path). The main thread reads
 * them with relaxed atomic loads of each aligned 64-bit field: a value
 * can be a few queries old but never torn (x86_64 and aarch64 load an
 * aligned 64-bit word at once). A reset ("stats" without
 * statistics-cumulative) never writes the workers' counters: the main
 * thread keeps a baseline snapshot per thread and prints the
 * difference. The gauge requestlist.max is reset by the worker itself,
 * in its own thread, on an event the main thread queues on its base. */
#ifndef DAEMON_STATS_H
#define DAEMON_STATS_H
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>

/* recursion time histogram: bucket i counts [2^(i-1), 2^i) us, 0: < 1 */
#define STATS_HIST_BUCKETS 40

/* Per-thread counters, summed on demand; never shared while counting. */
struct worker_stats {
	uint64_t num_queries;     /* queries received (answered or not) */
	uint64_t num_dropped;     /* queries deliberately not answered */
	uint64_t num_tcp;         /* queries over TCP (also TLS, HTTPS) */
	uint64_t num_tls;         /* of those, over TLS (num.query.tls) */
	uint64_t num_tls_resume;  /* over a resumed TLS session */
	uint64_t num_https;       /* over HTTPS with TLS (num.query.https) */
	uint64_t num_local;       /* answered from local zones/chaos */
	uint64_t num_cachehits;   /* answered from the message cache */
	uint64_t num_cachemiss;   /* handed to recursion */
	uint64_t num_recursive_replies; /* replies recursion sent */
	uint64_t num_wait_limited;  /* dropped: too many replies waiting */
	uint64_t num_discard_timeout; /* replies dropped: discard-timeout */
	uint64_t num_sock_timed_out;  /* dropped: sock-queue-timeout */
	uint64_t num_expired;       /* answered with expired data */
	uint64_t num_prefetch;      /* cache refreshes started by a hit */
	uint64_t num_ip_ratelimited; /* dropped: over ip-ratelimit */
	/* compat: unbound-1.18: queries with a cookie option (answer-cookie
	 * on): a valid server cookie, a client cookie only, an invalid one */
	uint64_t num_cookie_valid, num_cookie_client, num_cookie_invalid;
	/* remote control statistics (daemon/stats.h). Every field is a
	 * uint64_t written only by this worker; the main thread reads them
	 * with relaxed atomic loads (stats_snapshot). */
	uint64_t req_sum;         /* mesh states summed at each new client */
	uint64_t req_samples;     /* how many were summed */
	uint64_t req_exceeded;    /* the mesh refused a client (full) */
	uint64_t req_overwritten; /* clients whose query was jostled out */
	uint64_t rec_time_us;     /* summed recursion time of replies */
	uint64_t rec_count;       /* replies that time was measured for */
	uint64_t rec_hist[STATS_HIST_BUCKETS];  /* log2 microseconds */
	uint64_t qtype[256];      /* num.query.type.*, type >= 256: other */
	uint64_t qtype_other;
	uint64_t qclass[256];
	uint64_t qclass_other;
	uint64_t opcode[16];
	uint64_t rcode[16];       /* num.answer.rcode.* of replies sent */
	uint64_t ans_nodata;      /* NOERROR without answer records */
	uint64_t qipv6;
	uint64_t qflags[8];       /* QR AA TC RD RA Z AD CD */
	uint64_t edns_present, edns_do;
	uint64_t unwanted_queries; /* refused or dropped by access-control */
	/* compat: unbound-1.17: DNSSEC, as Unbound counts them: replies with
	 * secure data (cache hits and mesh replies), SERVFAILs for bogus data
	 */
	uint64_t ans_secure, ans_bogus;
	/* upstream, copied from the worker's outside network when read
	 * (worker_stats_snapshot); the worker never writes these here */
	uint64_t qudp_out, qtcp_out, unwanted_replies;
	uint64_t rrset_bogus;     /* from the modules' counters */
	uint64_t queries_ratelimited; /* the same: over ratelimit */
	uint64_t aggr_noerror, aggr_nxdomain; /* the same: aggressive NSEC */
	uint64_t auth_up;         /* the same: iterator answers from an
	                           * auth zone (num.query.authzone.up) */
	uint64_t num_auth_down;   /* answered from an auth zone
	                           * (num.query.authzone.down) */
	/* the same: answers from the cachedb module's database
	 * (num.query.cachedb) and values it refused there */
	uint64_t cachedb_answers, cachedb_refused;
	uint64_t rpz_action[10];  /* the same: num.rpz.action.<action> */
	/* the same: the subnetcache module's answers (module.h) */
	uint64_t subnet_answers, subnet_cache_answers;
	uint64_t dns_error_reports; /* the same: RFC 9567 reports sent */
	/* gauges (not summed over a reset): keep them last */
	uint64_t req_max;         /* most mesh states seen */
	uint64_t req_cur_all;     /* mesh states now */
	uint64_t req_cur_user;    /* client waiters now */
	uint64_t tcpusage;        /* TCP connections open now (filled in by
	                           * worker_stats_snapshot) */
};

struct query_info;
struct config_file;

/* A growing text buffer for command output. */
struct strbuf {
	char* s;
	size_t len, cap;
	int oom;
};
void strbuf_printf(struct strbuf* b, const char* fmt, ...)
	__attribute__((format(printf, 2, 3)));
void strbuf_clear(struct strbuf* b);

/* Worker side, cheap: count one parsed query (qtype, class, opcode,
 * flags, EDNS, IPv6). */
void stats_note_query(struct worker_stats* st, const struct query_info* qi,
	const struct sockaddr_storage* addr);
/* Count the rcode of a reply sent (reply: the wire packet). */
void stats_note_reply(struct worker_stats* st, const uint8_t* reply,
	size_t len);
/* compat: unbound-1.17: A query for the mesh (a cache miss or a prefetch)
 * found n states in the request list: requestlist.avg and .max, as Unbound
 * samples them (the list before the query's own state is added). */
void stats_note_reqlist(struct worker_stats* st, uint64_t n);
/* Count one recursion time in microseconds. */
void stats_note_rectime(struct worker_stats* st, uint64_t us);

/* Main thread: a torn-free copy of a worker's live counters. */
void stats_snapshot(const struct worker_stats* live,
	struct worker_stats* out);
/* a -= base, counters only (gauges keep a's value). */
void stats_subtract(struct worker_stats* a, const struct worker_stats* base);
/* tot += a: counters summed, gauges summed too (max: the largest). */
void stats_add(struct worker_stats* tot, const struct worker_stats* a);

/* What stats_print_thread prints beyond Unbound 1.17's lines: */
#define STATS_COOKIES 1  /* num.queries_cookie_* (answer-cookie on) */
#define STATS_DROPS 2    /* 1.21's num.queries_discard_timeout,
                          * _wait_limit and _timed_out */
#define STATS_ERROR_REPORTS 4 /* 1.23's num.dns_error_reports
                          * (dns-error-reporting on) */
struct config_file;
/* compat: unbound-1.17: the flags for cfg: a config that uses none of
 * the later options gets 1.17's names (test_control's side by side) */
int stats_print_flags(const struct config_file* cfg);
/* Print one thread's (prefix "thread0") or the total's lines; flags:
 * STATS_COOKIES, STATS_DROPS. */
void stats_print_thread(struct strbuf* b, const char* prefix,
	const struct worker_stats* s, int flags);
/* The same with recursion.time.median given (stats_shm: the median
 * Unbound stored, in seconds) instead of taken from s's histogram. */
void stats_print_thread_median(struct strbuf* b, const char* prefix,
	const struct worker_stats* s, int flags, double median);
/* The time.* lines; now, start and last are absolute times. */
void stats_print_time(struct strbuf* b, const struct timespec* now,
	const struct timespec* start, const struct timespec* last);
/* compat: unbound-1.17: the mem.mod.<name> lines Unbound prints, in its
 * order, whether the module is in the stack or not (then 0):
 * stats_mem_mod_names[i] is the name in the line, stats_mem_mod_modules[i]
 * the module-config name of the module it is (mem.mod.subnet is
 * subnetcache's). */
enum { STATS_MOD_ITERATOR, STATS_MOD_VALIDATOR, STATS_MOD_RESPIP,
	STATS_MOD_SUBNET, STATS_MEM_MODS };
extern const char* const stats_mem_mod_names[STATS_MEM_MODS];
extern const char* const stats_mem_mod_modules[STATS_MEM_MODS];
/* What the shared caches hold, for the extended statistics. */
struct stats_cache_info {
	size_t mem_rrset, mem_msg;   /* bytes */
	size_t rrset_count, msg_count, infra_count;
	size_t key_count;            /* key.cache.count: the modules' */
	size_t mem_mod[STATS_MEM_MODS];  /* mem.mod.<name>, in the order of
	                                  * stats_mem_mod_names */
	/* compat: unbound-1.26: statistics-inhibit-zero: no: the extended
	 * counters printed when zero too (0: left out, the default) */
	int show_zero;
	size_t mem_http_query, mem_http_response;  /* mem.http.* */
	size_t mem_stream_wait;      /* mem.streamwait */
	/* compat: unbound-1.17: Unbound's unbound-control stats_shm prints
	 * num.query.tls_resume where its stats prints num.query.tls.resume;
	 * 1: print the stats_shm name */
	int shm_names;
};
struct daemon;
/* Fill c from the daemon's caches (daemon/stats_cache.c); the remote
 * control's stats and the Prometheus endpoint both use it. */
void stats_cache_info_fill(const struct daemon* d, struct stats_cache_info* c);
/* The extended-statistics lines of the total. */
void stats_print_extended(struct strbuf* b, const struct worker_stats* s,
	const struct stats_cache_info* c);
/* The upper bound of histogram bucket i, in microseconds. */
uint64_t stats_hist_bucket_hi_us(int i);
/* The median of the recursion time histogram, in seconds. */
double stats_hist_median(const struct worker_stats* s);

#endif
