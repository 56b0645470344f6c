/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/iter_priv.h - compat: unbound-1.17: private-address: and
 * private-domain: (DNS rebinding protection, as Unbound's iter_priv): A and
 * AAAA records in the listed netblocks are removed from upstream answers,
 * unless their owner is at or under a private-domain. Built once per config
 * snapshot, immutable, shared by all workers. */
#ifndef ITERATOR_ITER_PRIV_H
#define ITERATOR_ITER_PRIV_H
#include <ldns/ldns.h>

struct config_file;
struct iter_priv;

/* Parse the options; *out is NULL when none are set. Returns 0 (logged)
 * on a bad netblock or name, or out of memory. */
int iter_priv_create(const struct config_file* cfg, struct iter_priv** out);
void iter_priv_delete(struct iter_priv* p);
/* Remove the private records from list (in place); returns how many. */
int iter_priv_filter(const struct iter_priv* p, ldns_rr_list* list);

#endif
