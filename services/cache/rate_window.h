/* SPDX-License-Identifier: BSD-3-Clause */
/* services/cache/rate_window.h - compat: unbound-1.17: how a rate is
 * counted, as Unbound's infra rate data: two (second, count) slots. A
 * query in a second that has no slot takes the slot of the older second
 * (its count starts at 0). The rate is the count of the current second;
 * with backoff, the largest count of a second no more than RATE_WINDOW
 * seconds old, so a source over the limit stays limited until it has
 * kept under it for that long. Used by the zone table (rate_zone.c)
 * and the client table (rate_ip.c); no locking here: the callers hold
 * the entry. Seconds are kept in 16 bits (the clock modulo 65536): an
 * entry untouched for exactly 18.2 hours could show its old counts for
 * one second, a miscount that costs nothing but keeps the client
 * table's entries at 28 bytes. */
#ifndef SERVICES_CACHE_RATE_WINDOW_H
#define SERVICES_CACHE_RATE_WINDOW_H
#include <stdint.h>
#include <time.h>

#define RATE_WINDOW 2

struct rate_window {
	uint32_t qps[2];   /* queries counted in that second */
	uint16_t sec[2];   /* the second (clock mod 65536); qps 0: unused */
};

/* The rate now: this second's count, or with backoff the largest count
 * of the last RATE_WINDOW seconds. */
static inline uint32_t rate_window_max(const struct rate_window* w,
	time_t now, int backoff)
{
	uint16_t n = (uint16_t)now;
	uint32_t max = 0;
	int i;
	for(i = 0; i < 2; i++) {
		if(backoff) {
			if((uint16_t)(n - w->sec[i]) <= RATE_WINDOW &&
				w->qps[i] > max)
				max = w->qps[i];
		} else if(w->sec[i] == n && w->qps[i])
			return w->qps[i];
	}
	return max;
}

/* The count of the current second, the older slot taken over when
 * this second has none. */
static inline uint32_t* rate_window_second(struct rate_window* w,
	time_t now)
{
	uint16_t n = (uint16_t)now;
	int old;
	if(w->sec[0] == n)
		return &w->qps[0];
	if(w->sec[1] == n)
		return &w->qps[1];
	/* the older of the two: the one further back from now */
	old = (uint16_t)(n - w->sec[0]) >= (uint16_t)(n - w->sec[1]) ? 0 : 1;
	w->sec[old] = n;
	w->qps[old] = 0;
	return &w->qps[old];
}

/* Count one query against limit. Returns 1 when the rate is still at
 * or under the limit, 0 when over; *crossed is 1 when this query took
 * the rate over (Unbound logs that one). Counts saturate. */
static inline int rate_window_inc(struct rate_window* w, time_t now,
	int backoff, uint32_t limit, int* crossed)
{
	uint32_t before = rate_window_max(w, now, backoff), after;
	uint32_t* cur = rate_window_second(w, now);
	if(*cur != UINT32_MAX)
		(*cur)++;
	after = rate_window_max(w, now, backoff);
	*crossed = before <= limit && after > limit;
	return after <= limit;
}

/* Take back one query of this second (a referral: it was a step, not
 * a load on the zone's servers). */
static inline void rate_window_dec(struct rate_window* w, time_t now)
{
	uint16_t n = (uint16_t)now;
	int i;
	for(i = 0; i < 2; i++)
		if(w->sec[i] == n && w->qps[i] > 0) {
			w->qps[i]--;
			return;
		}
}

/* Start a new entry with one query now. */
static inline void rate_window_first(struct rate_window* w, time_t now)
{
	w->qps[0] = 1;
	w->sec[0] = (uint16_t)now;
	w->qps[1] = 0;
	w->sec[1] = (uint16_t)(now - 3);
}

#endif
