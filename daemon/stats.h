/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/stats.h - statistics for the remote control: the per-thread
 * counters of struct worker_stats (daemon/worker.h) summed and printed
 * in Unbound's name=value format.
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

struct worker_stats;
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
void strbuf_free(struct strbuf* b);

/* Worker side, cheap: count one parsed query (qtype, class, opcode,
 * flags, EDNS, IPv6). */
void stats_note_query(struct worker_stats* st, const struct query_info* qi,
	const struct sockaddr_storage* addr);
/* Count the rcode of a reply sent (reply: the wire packet). */
void stats_note_reply(struct worker_stats* st, const uint8_t* reply,
	size_t len);
/* A query for the mesh (a cache miss or a prefetch) found n states in
 * the request list: requestlist.avg and .max, as Unbound samples them
 * (the list before the query's own state is added). */
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

/* Print one thread's (prefix "thread0") or the total's lines. */
void stats_print_thread(struct strbuf* b, const char* prefix,
	const struct worker_stats* s);
/* The time.* lines; now, start and last are absolute times. */
void stats_print_time(struct strbuf* b, const struct timespec* now,
	const struct timespec* start, const struct timespec* last);
/* What the shared caches hold, for the extended statistics. */
struct stats_cache_info {
	size_t mem_rrset, mem_msg;   /* bytes */
	size_t rrset_count, msg_count, infra_count;
	size_t key_count;            /* key.cache.count */
	size_t mem_validator;        /* mem.mod.validator: the key cache */
	size_t mem_http_query, mem_http_response;  /* mem.http.* */
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
