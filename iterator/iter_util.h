/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/iter_util.h - internal to the iterator: the steps that
 * iterator.c (the state machine) and iter_resp.c (reply handling) share.
 * Not for other modules: use iterator/iterator.h. */
#ifndef ITERATOR_ITER_UTIL_H
#define ITERATOR_ITER_UTIL_H
#include <stddef.h>
#include <stdint.h>
#include <ldns/ldns.h>

struct iter_env;
struct iter_qstate;
struct delegpt;

/* "WHAT NAME type N" at level. */
void iter_log_name(int level, const char* what, const uint8_t* name,
	uint16_t qtype);
/* Done with rcode (the result lists as collected); cancels the query. */
void iter_done(struct iter_qstate* iq, int rcode);
/* Done with SERVFAIL, logged at VERB_QUERY with why. */
void iter_fail(struct iter_qstate* iq, const char* why);
/* Replace the delegation point (per-dp bookkeeping reset). */
void iter_set_dp(struct iter_qstate* iq, struct delegpt* dp, int fwd);
/* Progress with this delegation point: its servers may be asked again. */
void iter_reset_attempts(struct iter_qstate* iq);
/* Is the question in flight a minimised one? */
int iter_minimised(const struct iter_qstate* iq);
/* Follow the chain (already appended to iq->answer) to new_sname; 0
 * (and done with SERVFAIL) on a loop or too many restarts. */
int iter_restart_at(struct iter_env* env, struct iter_qstate* iq,
	const uint8_t* new_sname, size_t len);

/* An upstream reply for the question in flight (iter_resp.c): parse,
 * scrub, and act on it. */
void iter_process_wire(struct iter_env* env, struct iter_qstate* iq,
	const uint8_t* wire, size_t len);

/* Append clones of every record in from to to; 0 on OOM. */
int iter_append_rrs(ldns_rr_list* to, const ldns_rr_list* from);
/* Clones of the records of type t in list; NULL when none or OOM. */
ldns_rr_list* iter_rrs_of_type(const ldns_rr_list* list, ldns_rr_type t);
int iter_has_type(const ldns_rr_list* list, ldns_rr_type t);

#endif
