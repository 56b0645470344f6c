/* SPDX-License-Identifier: BSD-3-Clause */
/* util/rrlist_pack.h - the RRsets of an ldns record list (records of
 * one owner, type and class) as struct packed_rrset (util/msgencode.h),
 * the form the encoder and the caches take. */
#ifndef UTIL_RRLIST_PACK_H
#define UTIL_RRLIST_PACK_H
#include <ldns/ldns.h>

struct packed_rrset;

/* Call fn for every RRset in list (records of one owner, type and class
 * grouped, in the order of their first record; RRSIGs are RRsets of
 * their own). The packed form is valid during the call. Returns 0 on
 * OOM or when fn returns 0. */
int rrlist_for_each_rrset(const ldns_rr_list* list,
	int (*fn)(void* arg, const struct packed_rrset* set), void* arg);

/* The same for the records of type t1 or t2 only (t1 nonzero). */
int rrlist_for_each_rrset_of(const ldns_rr_list* list, uint16_t t1,
	uint16_t t2, int (*fn)(void* arg, const struct packed_rrset* set),
	void* arg);

/* The other way: the records of v appended to list as ldns RRs (built
 * from wire form in a per-thread scratch buffer). 0 on out of memory;
 * the records appended before stay in list. */
int packed_rrset_to_rrlist(const struct packed_rrset* v, ldns_rr_list* list);

#endif
