/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/prom_metrics.h - the statistics in the Prometheus text
 * exposition format 0.0.4, names as the widely used unbound_exporter
 * (unbound_queries_total{thread="0"}, unbound_answer_rcodes_total
 * {rcode="NOERROR"}, unbound_response_time_seconds histogram, ...).
 *
 * The values are the workers' live counters, never the remote
 * control's reset baseline: Prometheus counters must only grow, so
 * `unbound-control stats` resets nothing here. Per-thread families
 * carry a thread label; their sum over all threads is a family of its
 * own, unbound_total_* (a thread="total" series in the same family
 * would be counted twice by sum()). */
#ifndef DAEMON_PROM_METRICS_H
#define DAEMON_PROM_METRICS_H
#include <stdint.h>

struct strbuf;
struct worker_stats;
struct stats_cache_info;

struct prom_input {
	const struct worker_stats* threads;  /* snapshots, one a thread */
	int num_threads;
	/* compat: unbound-1.17: the query type/class/opcode/flag/rcode
	 * counters are counted only with extended-statistics: yes (as Unbound)
	 */
	int extended;
	const struct stats_cache_info* cache;
	uint64_t up_us;    /* since start (monotonic clock) */
	uint64_t now_us;   /* wall clock, since the epoch */
};

/* Append the whole exposition: # HELP, # TYPE and samples. */
void prom_metrics_write(struct strbuf* b, const struct prom_input* in);

#endif
