/* SPDX-License-Identifier: BSD-3-Clause */
/* services/cache/neg_rrset.c - validated RRsets of the aggressive NSEC cache
 * in the RRset cache; see the header. */
#include "config.h"
#include "services/cache/neg_rrset.h"
#include "services/cache/rrset.h"
#include "util/dname.h"
#include "util/msgencode.h"
#include "util/msgparse.h"
#include "util/rrlist_pack.h"
#include <stdlib.h>
#include <string.h>

/* The RDATA of every RR of l as wire into buf, the packed view of it in
 * set (rd and rl: room for count entries). 0 when one does not encode. */
static int pack(const ldns_rr_list* l, ldns_buffer* buf, const uint8_t** rd,
	uint16_t* rl, struct packed_rrset* set)
{
	size_t i, n = ldns_rr_list_rr_count(l), off = 0;
	for(i = 0; i < n; i++) {
		size_t start = ldns_buffer_position(buf);
		if(ldns_rr_rdata2buffer_wire(buf, ldns_rr_list_rr(l, i)) !=
			LDNS_STATUS_OK || ldns_buffer_position(buf) - start >
			65535)
			return 0;
		rl[i] = (uint16_t)(ldns_buffer_position(buf) - start);
	}
	/* after the writes: the buffer moves while it grows */
	for(i = 0; i < n; i++) {
		rd[i] = ldns_buffer_begin(buf) + off;
		off += rl[i];
	}
	set->count = n;
	set->rdata = rd;
	set->rdlen = rl;
	return 1;
}

int neg_rrset_store(struct rrset_cache* rc, const ldns_rr_list* rrs,
	const ldns_rr_list* sigs, const uint8_t* owner, uint32_t flags,
	uint32_t ttl, time_t now)
{
	size_t n = rrs ? ldns_rr_list_rr_count(rrs) : 0;
	size_t ns = sigs ? ldns_rr_list_rr_count(sigs) : 0;
	struct packed_rrset set, sg;
	const uint8_t** rd;
	uint16_t* rl;
	ldns_buffer* b1, *b2;
	const ldns_rr* first;
	enum rrset_store_result r = RRSET_NOT_STORED;
	if(!rc || n == 0 || ns == 0 || n + ns > 65535 || ttl == 0)
		return 0;
	first = ldns_rr_list_rr(rrs, 0);
	memset(&set, 0, sizeof(set));
	set.owner = owner ? owner : ldns_rdf_data(ldns_rr_owner(first));
	set.owner_len = dname_valid(set.owner, LDNS_MAX_DOMAINLEN + 1);
	set.type = (uint16_t)ldns_rr_get_type(first);
	set.rclass = (uint16_t)ldns_rr_get_class(first);
	set.ttl = ttl;
	sg = set;
	sg.type = TYPE_RRSIG;
	rd = malloc((n + ns) * sizeof(*rd));
	rl = malloc((n + ns) * sizeof(*rl));
	b1 = ldns_buffer_new(256);
	b2 = ldns_buffer_new(256);
	if(set.owner_len && rd && rl && b1 && b2 &&
		pack(rrs, b1, rd, rl, &set) &&
		pack(sigs, b2, rd + n, rl + n, &sg))
		r = rrset_cache_store(rc, &set, &sg, flags,
			RRSET_TRUST_VALIDATED, 1, now);
	free(rd);
	free(rl);
	ldns_buffer_free(b1);
	ldns_buffer_free(b2);
	return r != RRSET_NOT_STORED;
}

/* The RRs of v in a new list *l. 0 on no memory. */
static int unpack(const struct packed_rrset* v, ldns_rr_list** l)
{
	return (*l = ldns_rr_list_new()) != NULL &&
		packed_rrset_to_rrlist(v, *l);
}

int neg_rrset_fetch(struct rrset_cache* rc, const uint8_t* name,
	uint16_t type, uint32_t flags, time_t now, ldns_rr_list** rrs,
	ldns_rr_list** sigs, time_t* expire)
{
	struct rrset_entry* e;
	struct packed_rrset v, sg;
	int ok;
	*rrs = NULL;
	if(sigs)
		*sigs = NULL;
	if(!rc || !(e = rrset_cache_lookup(rc, name, type, CLASS_IN, flags,
		now)))
		return 0;
	/* only what the validator stored: an answer of lower trust may
	 * have replaced it once it expired */
	if(e->trust != RRSET_TRUST_VALIDATED || e->count == 0 ||
		e->rrsig_count == 0) {
		rrset_cache_release(rc, e);
		return 0;
	}
	rrset_entry_view(e, now, &v, &sg);
	*expire = e->expire;
	ok = unpack(&v, rrs) && (!sigs || unpack(&sg, sigs));
	rrset_cache_release(rc, e);
	if(!ok) {
		ldns_rr_list_deep_free(*rrs);
		*rrs = NULL;
		if(sigs) {
			ldns_rr_list_deep_free(*sigs);
			*sigs = NULL;
		}
	}
	return ok;
}
