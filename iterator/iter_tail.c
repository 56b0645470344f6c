/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/iter_tail.c - see the header. Each rule is the one the
 * scrubber and the store apply to the same records as ldns objects;
 * testdata/unit/reply_tail_test.c checks both ways give the same. */
#include "config.h"
#include "iterator/iter_tail.h"
#include "iterator/iter_scrub.h"
#include "services/cache/rrset.h"
#include "util/dname.h"
#include "util/msgencode.h"
#include "util/msgparse.h"
#include "util/reply_tail.h"
#include <string.h>

/* Is name the target of a kept NS record of t? */
static int kept_ns_target(const struct reply_tail* t, const uint8_t* name)
{
	size_t i;
	for(i = 0; i < t->nauth; i++)
		if(t->rr[i].kept && query_dname_compare(t->rr[i].target,
			name) == 0)
			return 1;
	return 0;
}

size_t iter_tail_scrub(struct reply_tail* t, const ldns_rr_list* ans,
	uint16_t qclass, const uint8_t* zone, const uint8_t* sname,
	const struct scrub_opts* o)
{
	const uint8_t* nsowner = NULL;
	int harden_glue = o->harden_glue;
	size_t i, kept = 0;
	for(i = 0; i < t->nauth; i++) {
		struct reply_tail_rr* r = &t->rr[i];
		/* an answer: iter-scrub-promiscuous takes its NS set (as
		 * scrub_authority's ns_set_stays; an NXDOMAIN's goes too) */
		r->kept = !o->promiscuous && !t->nxdomain &&
			r->rclass == qclass &&
			dname_subdomain_c(r->owner, zone) &&
			dname_subdomain_c(sname, r->owner) &&
			(!nsowner || query_dname_compare(r->owner, nsowner)
			== 0) && (o->max_ns <= 0 || kept < (size_t)o->max_ns);
		if(r->kept && !nsowner)
			nsowner = r->owner;
		kept += r->kept;
	}
	for(i = t->nauth; i < t->nauth + t->nadd; i++) {
		struct reply_tail_rr* r = &t->rr[i];
		r->kept = r->rclass == qclass &&
			dname_subdomain_c(r->owner, harden_glue ? zone :
			(const uint8_t*)"") &&
			(kept_ns_target(t, r->owner) ||
			iter_scrub_answer_target(ans, r->owner)) &&
			/* harden-unverified-glue, as scrub_additional */
			(!o->unverified_glue ||
			!dname_subdomain_c(r->owner, zone) ||
			iter_scrub_glue_verified(r->owner, nsowner));
		kept += r->kept;
	}
	return kept;
}

int iter_tail_scrub_answer(ldns_pkt* pkt, struct reply_tail* t,
	const uint8_t* qname, uint16_t qtype, uint16_t qclass,
	const uint8_t* zone, struct scrub_result* res,
	const struct scrub_opts* o)
{
	size_t before = ldns_rr_list_rr_count(ldns_pkt_answer(pkt)) +
		t->nauth + t->nadd, after, kept, i, kept_add = 0;
	struct scrub_question wq;
	wq.name = t->qname;
	wq.type = t->qtype;
	wq.rclass = t->qclass;
	if(iter_scrub_message_wireq(pkt, &wq, qname, qtype, qclass, zone, res,
		o) != SCRUB_OK || !res->final_found ||
		res->dname_too_long)
		return 0;
	t->nxdomain = ldns_pkt_get_rcode(pkt) == LDNS_RCODE_NXDOMAIN;
	kept = iter_tail_scrub(t, ldns_pkt_answer(pkt), qclass, zone,
		res->sname, o);
	for(i = t->nauth; i < t->nauth + t->nadd; i++)
		kept_add += t->rr[i].kept;
	/* synthesized CNAMEs count against the removed, as there */
	after = ldns_rr_list_rr_count(ldns_pkt_answer(pkt)) + kept;
	res->removed = before > after ? (int)(before - after) : 0;
	ldns_pkt_set_nscount(pkt, (uint16_t)(kept - kept_add));
	ldns_pkt_set_arcount(pkt, (uint16_t)kept_add);
	return 1;
}

static int same_set(const struct reply_tail_rr* a,
	const struct reply_tail_rr* b)
{
	return a->type == b->type && a->rclass == b->rclass &&
		a->owner_len == b->owner_len &&
		dname_same(a->owner, b->owner, a->owner_len);
}

/* The kept records of t->rr[from, to) grouped into RRsets (as
 * rrlist_pack.c groups), each stored with trust; the number stored. */
static int store_sets(struct rrset_cache* c, const struct reply_tail* t,
	size_t from, size_t to, enum rrset_trust trust, time_t now)
{
	uint8_t used[REPLY_TAIL_MAX];
	const uint8_t* rd[REPLY_TAIL_MAX];
	uint16_t rl[REPLY_TAIL_MAX];
	size_t i, j;
	int stored = 0;
	memset(used, 0, sizeof(used));
	for(i = from; i < to; i++) {
		const struct reply_tail_rr* first = &t->rr[i];
		struct packed_rrset set;
		if(!first->kept || used[i])
			continue;
		memset(&set, 0, sizeof(set));
		set.owner = first->owner;
		set.owner_len = first->owner_len;
		set.type = first->type;
		set.rclass = first->rclass;
		set.ttl = first->ttl;
		/* the first record is in its set: no compare with itself
		 * (a set of one, the usual, then compares nothing) */
		for(j = i; j < to; j++) {
			const struct reply_tail_rr* r = &t->rr[j];
			if(j != i && (!r->kept || used[j] ||
				!same_set(first, r)))
				continue;
			used[j] = 1;
			/* an NS record's rdata is its name, uncompressed */
			rd[set.count] = r->type == TYPE_NS ? r->target :
				r->rdata;
			rl[set.count++] = r->type == TYPE_NS ?
				(uint16_t)r->target_len : r->rdlen;
			if(r->ttl < set.ttl)
				set.ttl = r->ttl;
		}
		set.rdata = rd;
		set.rdlen = rl;
		if(rrset_cache_store(c, &set, NULL, 0, trust, 0, now) ==
			RRSET_STORED)
			stored++;
	}
	return stored;
}

int iter_tail_store(struct rrset_cache* c, const struct reply_tail* t,
	time_t now)
{
	if(!c)
		return 0;
	return store_sets(c, t, 0, t->nauth, RRSET_TRUST_AUTHORITY, now) +
		store_sets(c, t, t->nauth, t->nauth + t->nadd,
		RRSET_TRUST_GLUE, now);
}
