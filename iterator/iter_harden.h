/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/iter_harden.h - harden-referral-path: which referrals are
 * stored, and the detached checks of a referral's NS set and of the
 * name servers' addresses (see iter_harden.c). Internal to the
 * iterator and the mesh. */
#ifndef ITERATOR_ITER_HARDEN_H
#define ITERATOR_ITER_HARDEN_H
#include <stdint.h>
#include <ldns/ldns.h>

struct iter_env;
struct iter_qstate;
struct delegpt;

/* Store the RRsets of a referral to zone? Always without
 * harden-referral-path; with it only when the question (after CNAME
 * restarts) is zone's NS set. */
int iter_referral_store(const struct iter_env* env,
	const struct iter_qstate* iq, const uint8_t* zone);

/* compat: unbound-1.17: After a referral (iq->dp is the new delegation, parent
 * the one that gave it, pkt the scrubbed reply): with harden-referral-path, a
 * detached query for the zone's NS set that starts at the parent, as Unbound's
 * (its referral, asked for, is cached first; then the zone's own servers are
 * asked), or, when that is the question, detached lookups of the glue's A and
 * AAAA RRsets. Not from the deepest dependency depth, not for DS, not under a
 * stub or forward zone without stub-first / forward-first. */
void iter_referral_checks(struct iter_env* env, struct iter_qstate* iq,
	const ldns_pkt* pkt, const struct delegpt* parent);

/* After a priming state finished (root or stub-prime): with
 * harden-referral-path, its question again as a detached normal query,
 * and detached lookups of the servers' addresses. */
void iter_prime_checks(struct iter_env* env, const struct iter_qstate* iq);

#endif
