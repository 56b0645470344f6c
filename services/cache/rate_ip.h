/* SPDX-License-Identifier: BSD-3-Clause */
/* services/cache/rate_ip.h - ip-ratelimit: queries per second per client
 * address, counted before the cache lookup (daemon/query.c), so cache
 * hits are limited too, as Unbound's.
 *
 * Design: one table shared by all workers, a fixed array of 64-byte
 * buckets (one cache line each) of two entries, each bucket with its own
 * spin flag; sized from ip-ratelimit-size (rounded down to a power of
 * two of buckets), allocated at start and never grown, so a flood of
 * spoofed sources cannot make it grow (a reload with a new
 * ip-ratelimit-size builds a new table aside for its serve_env). A source that is not in its
 * bucket takes an entry that is unused or idle for RATE_WINDOW seconds,
 * else the one with the lower rate: a source over the limit keeps its
 * entry while spoofed one-query sources replace each other.
 *
 * Why shared and not per worker: the listening sockets spread UDP
 * datagrams over the workers at random (listen_dnsport.c's reuseport
 * program), so a client's queries reach every worker; per-worker
 * counts would each see 1/n of its rate, and a limit divided by n
 * would be wrong for a TCP client (one connection, one worker) and
 * where the kernel hashes by 4-tuple instead. A shared count is exact.
 * Its cost is the one write to the client's cache line that counting
 * needs (one atomic exchange and a store for the flag, no syscall, no
 * allocation, never a sleep), paid only when ip-ratelimit is set; the
 * flag is held for a few loads and stores. A bucket is contended only
 * when two workers count clients of the same bucket at the same
 * moment. With ip-ratelimit: 0 the query path does not call in here
 * (one predictable branch on the config). ip-ratelimit-slabs is read
 * and has nothing to split: every bucket is its own lock. */
#ifndef SERVICES_CACHE_RATE_IP_H
#define SERVICES_CACHE_RATE_IP_H
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>

struct rate_ip_table;

/* A table of about bytes (at least one bucket). NULL: no memory. */
struct rate_ip_table* rate_ip_create(size_t bytes);
/* One more holder (a serve_env that keeps the table of the one before
 * it: the counts go on); t may be NULL. Any thread. */
struct rate_ip_table* rate_ip_share(struct rate_ip_table* t);
/* Drop a holder; the last frees it. */
void rate_ip_delete(struct rate_ip_table* t);
/* Bytes it holds (its fixed array). */
size_t rate_ip_mem(const struct rate_ip_table* t);

/* Count one query of the client. Returns 1 when its rate is at or
 * under limit, 0 when over; *crossed is 1 when this query took it
 * over. Any thread; an address that is neither IPv4 nor IPv6 is not
 * counted (1). */
int rate_ip_inc(struct rate_ip_table* t, const struct sockaddr_storage* addr,
	socklen_t addrlen, time_t now, int backoff, uint32_t limit,
	int* crossed);

/* Call fn for every client in the table with its rate now (see
 * rate_window_max); addr is "1.2.3.4" or "::1" text. */
typedef void (*rate_ip_walk_fn)(const char* addr, uint32_t rate, void* arg);
void rate_ip_walk(struct rate_ip_table* t, time_t now, int backoff,
	rate_ip_walk_fn fn, void* arg);

#endif
