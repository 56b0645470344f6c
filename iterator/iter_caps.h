/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/iter_caps.h - compat: unbound-1.17: use-caps-for-id (draft
 * dns-0x20) in the iterator, as Unbound does it:
 *
 * - every upstream query gets a random case for the qname's letters
 *   (services/outside_network.h), unless the qname is at or under a
 *   caps-exempt: (caps-whitelist:) domain (forwarders get it too, as
 *   in Unbound);
 * - a reply whose question does not echo that case exactly is a possible
 *   spoof (OUTNET_CAPSFAIL). Unbound 1.17's fallback follows: that reply
 *   is kept as the reference and the same question goes without 0x20
 *   to the delegation point's servers (chosen as usual, attempts reset)
 *   until, counting the reference, three answers per usable address are
 *   in; each (SERVFAIL, REFUSED and timeouts aside) must equal the
 *   reference (rcode, answer, and for a negative answer or referral the
 *   authority section), else the query ends in SERVFAIL. When they agree
 *   the reference is used. So a server that does not echo the case still
 *   works, and a forged reply that the servers contradict is never used.
 *   Stricter than Unbound: when no server answers in the fallback, the
 *   reference is not used (SERVFAIL). */
#ifndef ITERATOR_ITER_CAPS_H
#define ITERATOR_ITER_CAPS_H
#include <stddef.h>
#include <stdint.h>
#include <ldns/ldns.h>

struct config_file;
struct iter_env;
struct iter_qstate;
struct outnet_reply;

#define CAPS_NAME_SIZE (LDNS_MAX_DOMAINLEN + 1)

/* The caps-exempt: and caps-whitelist: domains of cfg: lowercased wire
 * names, CAPS_NAME_SIZE bytes apart, in one array (*out, NULL when none;
 * *num of them). 0 (logged) on a bad name or out of memory. */
int iter_caps_exempt_create(const struct config_file* cfg, uint8_t** out,
	size_t* num);
/* Is name (wire) at or under one of the n names? */
int iter_caps_exempt_match(const uint8_t* names, size_t n, const uint8_t* name);

/* Send the state's next query with 0x20? */
int iter_caps_use(const struct iter_env* env, const struct iter_qstate* iq);
/* A reply (or timeout/error) while in fallback, or a capsfail that
 * starts it. Leaves iq in ITER_TARGETS (next fallback server) or done. */
void iter_caps_reply(struct iter_env* env, struct iter_qstate* iq,
	const struct outnet_reply* r);
/* Enough answers in the fallback? */
int iter_caps_done(const struct iter_qstate* iq);
/* The fallback is over (done, or no server left): use the reference
 * (all agreed), or fail. */
void iter_caps_finish(struct iter_env* env, struct iter_qstate* iq);
/* Forget the fallback state (kept reply freed). */
void iter_caps_clear(struct iter_qstate* iq);

/* Do two scrubbed replies say the same (rcode; answer; for negative
 * answers and referrals the authority; TTLs and order aside)? */
int iter_caps_replies_equal(const ldns_pkt* a, const ldns_pkt* b);

#endif
