/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/iter_keyprefetch.h - prefetch-key: (see iter_keyprefetch.c).
 * Internal to the iterator. */
#ifndef ITERATOR_ITER_KEYPREFETCH_H
#define ITERATOR_ITER_KEYPREFETCH_H
#include <ldns/ldns.h>

struct iter_env;
struct iter_qstate;

/* iq->dp is the delegation about to be queried: after a referral
 * (referral_auth: the reply's authority section, for its DS) or taken
 * from the cache (referral_auth NULL: the DS looked up in the RRset
 * cache). With prefetch-key and a validator, a detached query for the
 * zone's DNSKEY set at its servers. */
void iter_key_prefetch(struct iter_env* env, struct iter_qstate* iq,
	const ldns_rr_list* referral_auth);

#endif
