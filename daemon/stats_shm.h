/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/stats_shm.h - compat: unbound-1.17: shm-enable: the statistics
 * copied to two System V shared memory segments (daemon/stats_shm_layout.h)
 * at each statistics-interval, as Unbound does, and read back by
 * unbound-control stats_shm.
 *
 * The daemon's side (stats_shm.c) runs in the main thread at the
 * statistics timer only: the workers and the cache-hit path never see it.
 * The conversions and the printing (stats_shm_text.c) are shared with
 * unbound-control. */
#ifndef DAEMON_STATS_SHM_H
#define DAEMON_STATS_SHM_H
#include "daemon/stats.h"
#include "daemon/stats_shm_layout.h"
#include <time.h>

struct config_file;
struct stats_shm;

/* compat: unbound-1.17: Make the segments shm-key and shm-key + 1 for
 * num_threads threads, zeroed (segments already at those keys are removed
 * first, as Unbound does). NULL on failure, logged with Unbound's
 * messages (the caller then says "SHM has failed" and goes on without). */
struct stats_shm* stats_shm_create(const struct config_file* cfg,
	int num_threads);
/* Remove both segments and detach; NULL is fine. */
void stats_shm_delete(struct stats_shm* s);
/* The key the segments were made with. */
int stats_shm_key(const struct stats_shm* s);
/* One round, at the statistics timer: th[0..n-1] each thread's counters
 * since the last reset (n: the threads it was made for), ci the caches,
 * now/start/last: the time, the start and the last reset (time.*). */
void stats_shm_write(struct stats_shm* s, const struct worker_stats* th,
	int n, const struct stats_cache_info* ci, int extended,
	const struct timespec* now, const struct timespec* start,
	const struct timespec* last);

/* The conversions (stats_shm_text.c, no daemon state). Fill out from one
 * thread's (or the total's) counters; ci gives the cache counts and
 * buffer sizes that Unbound copies into every entry. */
void stats_shm_from_worker(struct ub_stats_info* out,
	const struct worker_stats* s, const struct stats_cache_info* ci,
	int extended);
/* compat: unbound-1.17: print what Unbound's unbound-control stats_shm
 * prints from the segments' contents: the n_threads threads of arr
 * (arr[0]: the total) and info's time; with extended, also the memory,
 * the histogram and the extended counters (inhibit_zero:
 * statistics-inhibit-zero). The names and order are stats_noreset's. */
void stats_shm_print(struct strbuf* b, const struct ub_shm_stat_info* info,
	const struct ub_stats_info* arr, int n_threads, int extended,
	int inhibit_zero);

#endif
