/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/iter_parentside.h - compat: unbound-1.17: the parent side of
 * a delegation, kept once the last resort needed it. When the servers a
 * zone names itself (its NS set and addresses, cached from its own
 * answers) all failed, the iterator asked the zone's parent again ("try
 * to grab parent NS") and the parent's referral brought NS and glue that
 * worked. Unbound keeps that parent-side NS set and glue in its cache,
 * so that the next query whose child-side servers fail goes to them at
 * once; here the addresses are kept per worker, for the NS set's TTL,
 * and the next query for the zone adds them to its cached delegation
 * when its own addresses are spent, instead of asking the parent again.
 *
 * compat: unbound-1.17: kept apart from the caches, so flush_zone and
 * flush do not remove it (a reload does); it is used only when the
 * child-side addresses failed, and lives no longer than the NS set's TTL.
 *
 * Bounded: ITER_PARENTSIDE_SLOTS zones, direct mapped by name, at most
 * ITER_PARENTSIDE_ADDRS addresses each, allocated on the first put. */
#ifndef ITERATOR_ITER_PARENTSIDE_H
#define ITERATOR_ITER_PARENTSIDE_H
#include <stdint.h>
#include <time.h>
#include <ldns/ldns.h>

#define ITER_PARENTSIDE_SLOTS 64
#define ITER_PARENTSIDE_ADDRS 8

struct delegpt;
struct iter_parentside_slot;

/* All zero is an empty store. */
struct iter_parentside {
	struct iter_parentside_slot* slot;
};

/* Keep dp's addresses (from the parent's referral for dp->name) for ttl
 * seconds. Out of memory or no address: nothing kept (it only costs the
 * next query a parent query). */
void iter_parentside_put(struct iter_parentside* ps, const struct delegpt* dp,
	uint32_t ttl, time_t now);

/* Add the kept parent-side addresses of dp->name that dp lacks; the
 * number added (0: none kept, expired, or all there already). */
int iter_parentside_add_to(const struct iter_parentside* ps,
	struct delegpt* dp, time_t now);

/* compat: unbound-1.21: harden-unverified-glue. The glue the scrub set
 * aside (iter_scrub.h: A and AAAA records a referral or NS answer
 * brought for NS names not below the zone they serve) is parent-side
 * data too; it is kept in a store of its own of this kind, by the
 * record's owner (the NS name) instead of the zone, and used only when
 * a delegation's own addresses all failed (Unbound keeps it in its
 * RRset cache under a flag of its own and takes it at its last resort,
 * "try unverified glue from cache"). */

/* Keep the addresses of the A and AAAA records of glue (others
 * ignored) for their TTL, at most max_ttl (0: no cap). */
void iter_parentside_put_glue(struct iter_parentside* ps,
	const ldns_rr_list* glue, uint32_t max_ttl, time_t now);

/* Add to dp the kept glue addresses of its NS names that dp lacks
 * (marking those names got4/got6); the number added. */
int iter_parentside_add_glue(const struct iter_parentside* ps,
	struct delegpt* dp, time_t now);

/* Forget everything (reload, cache flush, shutdown). */
void iter_parentside_clear(struct iter_parentside* ps);

#endif
