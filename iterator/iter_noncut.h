/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/iter_noncut.h - compat: unbound-1.17: names that qname minimisation
 * found to be no zone cut, per worker: a NOERROR reply without records and
 * with the zone's SOA (an empty non-terminal, or a name without type A) to the
 * minimised question (name, A) sent to the servers of zone. Until its negative
 * TTL runs out, the next query below that name skips the minimised step, as
 * Unbound 1.17 does with the NODATA message it cached for the step (without
 * this, every new name below an empty non-terminal cost two upstream queries
 * instead of one).
 *
 * Bounded: ITER_NONCUT_SLOTS slots, direct mapped by name (a dm_cache),
 * allocated on the first add. Names compare case-insensitively, in full. */
#ifndef ITERATOR_ITER_NONCUT_H
#define ITERATOR_ITER_NONCUT_H
#include <stdint.h>
#include <time.h>
#include "util/dm_cache.h"

#define ITER_NONCUT_SLOTS 256

/* All zero is an empty record. */
struct iter_noncut {
	struct dm_cache dm;   /* key: name, zone; stamp: expiry */
};

/* name is no zone cut below zone (wire names) for ttl seconds. */
void iter_noncut_add(struct iter_noncut* c, const uint8_t* name,
	const uint8_t* zone, uint32_t ttl, time_t now);

/* 1 when name was found no zone cut below zone and that is fresh. */
int iter_noncut_known(const struct iter_noncut* c, const uint8_t* name,
	const uint8_t* zone, time_t now);
/* The same for valid names of known lengths (nl and zl bytes), not
 * measured again. */
int iter_noncut_known_len(const struct iter_noncut* c, const uint8_t* name,
	size_t nl, const uint8_t* zone, size_t zl, time_t now);

/* Forget everything (reload, shutdown). */
void iter_noncut_clear(struct iter_noncut* c);

#endif
