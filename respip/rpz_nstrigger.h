/* SPDX-License-Identifier: BSD-3-Clause */
/* respip/rpz_nstrigger.h - compat: unbound-1.14: RPZ's NSDNAME
 * (.rpz-nsdname) and NSIP (.rpz-nsip) triggers: matched against the
 * delegation the iterator is about to use (module_env.deleg_hook), and
 * the answer they give in place of resolution. As Unbound's
 * rpz_callback_from_iterator_module: the zones in config order; in each,
 * an NS name (exact or "*." wildcard) before an NS address; the first
 * match decides. */
#ifndef RESPIP_RPZ_NSTRIGGER_H
#define RESPIP_RPZ_NSTRIGGER_H
#include <stddef.h>
#include <stdint.h>
#include "respip/rpz.h"

struct module_deleg;
struct module_qstate;
struct respip_rule;

struct rpz_ns_match {
	size_t zone;                    /* its place in the policy */
	enum rpz_action action;         /* the zone's override applied */
	const uint8_t* nsname;          /* NSDNAME: the NS name, else NULL */
	const struct respip_rule* rule; /* NSIP: the netblock, else NULL */
	const uint8_t* data;            /* local data records */
	size_t count;
};

/* Does any enabled zone of p hold an NSDNAME or NSIP trigger for d?
 * 1 and *m when one does. */
int rpz_policy_ns_match(const struct rpz_policy* p,
	const struct module_deleg* d, struct rpz_ns_match* m);

/* compat: unbound-1.17: The answer m gives qs, in qs->res (res.policy
 * set): NXDOMAIN, NODATA, local data of the question's type (NODATA when
 * none), the cname override; DROP as NODATA with res.drop. 0: the
 * action leaves resolution to go on (passthru, tcp-only, disabled), or
 * out of memory (logged). */
int rpz_ns_answer(const struct rpz_policy* p, const struct rpz_ns_match* m,
	struct module_qstate* qs);

/* compat: unbound-1.17: rpz-log's line for m: "rpz: applied [name]
 * nsdname ns.example. rpz-nxdomain www.example. A IN" (no client: the
 * delegation is the state's, as Unbound's line without a reply). */
void rpz_ns_log(const struct rpz_policy* p, const struct rpz_ns_match* m,
	const struct module_qstate* qs);

#endif
