/* SPDX-License-Identifier: BSD-3-Clause */
/* services/cache/rate_zone.h - compat: unbound-1.17: ratelimit: queries per
 * second sent upstream for one delegation point (the zone whose servers
 * are asked), as Unbound's infra domain rates: counted by the iterator
 * before it sends (iterator.c send_query), not for forwarded queries nor
 * prefetches; over the limit the query ends SERVFAIL, except 1 in
 * ratelimit-factor let through.
 *
 * The table is shared by all workers (a zone's queries come from every
 * worker): util/storage/lruhash, ratelimit-slabs slabs, bounded by
 * ratelimit-size with the least recently counted zone evicted first,
 * each entry changed under its slab's lock on the cache-miss path only.
 *
 * The limits per name (ratelimit-for-domain, ratelimit-below-domain)
 * are a sorted array built from one config snapshot (rate_domains),
 * read-only once built. */
#ifndef SERVICES_CACHE_RATE_ZONE_H
#define SERVICES_CACHE_RATE_ZONE_H
#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct config_file;
struct rate_zone_table;
struct rate_domains;

/* slabs: a power of two. NULL: no memory or bad slabs. */
struct rate_zone_table* rate_zone_create(int slabs, size_t bytes);
void rate_zone_delete(struct rate_zone_table* t);
size_t rate_zone_mem(struct rate_zone_table* t);
/* A new ratelimit-size (a reload), while others count: the least
 * recently counted zones over it go now. */
void rate_zone_set_max_mem(struct rate_zone_table* t, size_t bytes);

/* Count one query sent for zone (wire format, any case). Returns 1 when
 * the zone's rate is at or under limit, 0 when over; *crossed is 1 when
 * this query took it over. With no memory it counts nothing (1). */
int rate_zone_inc(struct rate_zone_table* t, const uint8_t* zone,
	size_t zonelen, time_t now, int backoff, uint32_t limit, int* crossed);
/* Take back one query counted this second (a referral reply). */
void rate_zone_dec(struct rate_zone_table* t, const uint8_t* zone,
	size_t zonelen, time_t now);

/* Call fn for every zone with its rate now; under the zone's slab lock:
 * fn formats text and calls nothing in here. */
typedef void (*rate_zone_walk_fn)(const uint8_t* zone, uint32_t rate,
	void* arg);
void rate_zone_walk(struct rate_zone_table* t, time_t now, int backoff,
	rate_zone_walk_fn fn, void* arg);

/* The limits of ratelimit-for-domain and ratelimit-below-domain in cfg;
 * NULL when out of memory (logged). A name that does not parse was
 * refused by the config check already and is skipped here. */
struct rate_domains* rate_domains_create(const struct config_file* cfg);
void rate_domains_delete(struct rate_domains* d);
/* compat: unbound-1.17: The limit for zone, as Unbound's
 * infra_find_ratelimit: its own ratelimit-for-domain; else the
 * ratelimit-below-domain of its closest enclosing name that has one (not
 * the name itself); else deflt. d may be NULL. */
int rate_domains_limit(const struct rate_domains* d, const uint8_t* zone,
	int deflt);

#endif
