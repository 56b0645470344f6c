/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/iter_tail.h - the authority NS records and glue of an answer
 * kept in wire form (util/reply_tail.h): the scrubber's rules for them
 * (iter_scrub.c's scrub_authority and scrub_additional, for a reply whose
 * answer chain ended in records of qtype) and their RRset store
 * (iter_cache.c's iter_store_reply for those two sections). */
#ifndef ITERATOR_ITER_TAIL_H
#define ITERATOR_ITER_TAIL_H
#include <time.h>
#include <ldns/ldns.h>

struct reply_tail;
struct rrset_cache;
struct scrub_result;
struct scrub_opts;

/* iter_scrub_message for pkt and t (reply_parse_tail) together, when
 * the answer chain ends in records of qtype (not a synthesized name
 * too long): then everything after the scrub reads t only through
 * iter_tail_store, and pkt, res and t's kept marks are what the scrub
 * of the whole reply leaves (its removed count, its section counts).
 * 0 for any other reply (pkt scrubbed: the caller frees it and parses
 * the reply whole). */
int iter_tail_scrub_answer(ldns_pkt* pkt, struct reply_tail* t,
	const uint8_t* qname, uint16_t qtype, uint16_t qclass,
	const uint8_t* zone, struct scrub_result* res,
	const struct scrub_opts* o);

/* Mark the records of t the scrubber keeps: NS records in qclass under
 * zone at sname (the answer chain's end, lowercased) or above, of the
 * first such owner; A and AAAA records in qclass under zone (under the
 * root with o->harden_glue 0) that a kept NS record or a record of ans
 * (the scrubbed answer) names; at most o->max_ns NS records (their glue
 * goes with the others). Returns the number kept. */
size_t iter_tail_scrub(struct reply_tail* t, const ldns_rr_list* ans,
	uint16_t qclass, const uint8_t* zone, const uint8_t* sname,
	const struct scrub_opts* o);

/* Store the kept records of t as iter_store_reply stores those
 * sections: the NS sets (trust authority), then the A and AAAA sets
 * (trust glue), each set in the order of its first record. Returns the
 * number of RRsets stored (not kept old). */
int iter_tail_store(struct rrset_cache* c, const struct reply_tail* t,
	time_t now);

#endif
