/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/iter_parentside.c - the parent-side addresses of delegations
 * the last resort needed (see iter_parentside.h). */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "iterator/iter_parentside.h"
#include "iterator/delegpt.h"
#include "util/dname.h"
#include "util/fnv.h"
#include "util/net_help.h"

struct iter_parentside_slot {
	time_t expire;            /* 0: empty */
	size_t namelen;
	uint8_t name[LDNS_MAX_DOMAINLEN + 1];
	int naddr;
	struct sockaddr_storage addr[ITER_PARENTSIDE_ADDRS];
	socklen_t addrlen[ITER_PARENTSIDE_ADDRS];
};

/* FNV-1a over the lowercased name: it only picks the slot */
static struct iter_parentside_slot* slot_of(
	const struct iter_parentside* ps, const uint8_t* name, size_t len)
{
	return &ps->slot[fnv1a32_lower(FNV32_START, name, len) %
		ITER_PARENTSIDE_SLOTS];
}

void iter_parentside_put(struct iter_parentside* ps, const struct delegpt* dp,
	uint32_t ttl, time_t now)
{
	struct iter_parentside_slot* s;
	const struct delegpt_addr* a;
	if(!dp || !dp->addrs || ttl == 0 || dp->namelen > LDNS_MAX_DOMAINLEN + 1)
		return;
	if(!ps->slot && !(ps->slot = calloc(ITER_PARENTSIDE_SLOTS,
		sizeof(*ps->slot))))
		return;
	s = slot_of(ps, dp->name, dp->namelen);
	memcpy(s->name, dp->name, dp->namelen);
	s->namelen = dp->namelen;
	s->naddr = 0;
	for(a = dp->addrs; a && s->naddr < ITER_PARENTSIDE_ADDRS; a = a->next) {
		memcpy(&s->addr[s->naddr], &a->addr, sizeof(a->addr));
		s->addrlen[s->naddr] = a->addrlen;
		s->naddr++;
	}
	s->expire = now + (time_t)ttl;
}

static int has_addr(const struct delegpt* dp,
	const struct sockaddr_storage* addr, socklen_t len)
{
	const struct delegpt_addr* a;
	for(a = dp->addrs; a; a = a->next)
		if(sockaddr_cmp(&a->addr, a->addrlen, addr, len) == 0)
			return 1;
	return 0;
}

int iter_parentside_add_to(const struct iter_parentside* ps,
	struct delegpt* dp, time_t now)
{
	const struct iter_parentside_slot* s;
	int i, added = 0;
	if(!ps->slot || !dp)
		return 0;
	s = slot_of(ps, dp->name, dp->namelen);
	if(s->expire <= now || s->namelen != dp->namelen ||
		!dname_same(s->name, dp->name, dp->namelen))
		return 0;
	for(i = 0; i < s->naddr; i++) {
		if(has_addr(dp, &s->addr[i], s->addrlen[i]))
			continue;
		if(delegpt_add_addr(dp, &s->addr[i], s->addrlen[i]))
			added++;
	}
	return added;
}

/* The slot for name, emptied for it when it holds another name or has
 * expired; NULL when out of memory. */
static struct iter_parentside_slot* slot_for(struct iter_parentside* ps,
	const uint8_t* name, size_t len, time_t now)
{
	struct iter_parentside_slot* s;
	if(!ps->slot && !(ps->slot = calloc(ITER_PARENTSIDE_SLOTS,
		sizeof(*ps->slot))))
		return NULL;
	s = slot_of(ps, name, len);
	if(s->expire <= now || s->namelen != len ||
		!dname_same(s->name, name, len)) {
		memcpy(s->name, name, len);
		s->namelen = len;
		s->naddr = 0;
		s->expire = 0;
	}
	return s;
}

void iter_parentside_put_glue(struct iter_parentside* ps,
	const ldns_rr_list* glue, uint32_t max_ttl, time_t now)
{
	size_t i, n = ldns_rr_list_rr_count(glue);
	for(i = 0; i < n; i++) {
		const ldns_rr* rr = ldns_rr_list_rr(glue, i);
		uint8_t owner[LDNS_MAX_DOMAINLEN + 1];
		struct sockaddr_storage addr;
		socklen_t alen;
		struct iter_parentside_slot* s;
		uint32_t ttl = ldns_rr_ttl(rr);
		size_t len;
		int j;
		if(max_ttl > 0 && ttl > max_ttl)
			ttl = max_ttl;
		if(ttl == 0 || !delegpt_rr_sockaddr(rr, 0, &addr, &alen) ||
			!(len = delegpt_rdf_to_wire(ldns_rr_owner(rr), owner)) ||
			!(s = slot_for(ps, owner, len, now)))
			continue;
		/* the set lives as long as its shortest record */
		if(s->expire == 0 || s->expire > now + (time_t)ttl)
			s->expire = now + (time_t)ttl;
		for(j = 0; j < s->naddr; j++)
			if(sockaddr_cmp(&s->addr[j], s->addrlen[j], &addr,
				alen) == 0)
				break;
		if(j < s->naddr || s->naddr >= ITER_PARENTSIDE_ADDRS)
			continue;
		memcpy(&s->addr[s->naddr], &addr, sizeof(addr));
		s->addrlen[s->naddr++] = alen;
	}
}

int iter_parentside_add_glue(const struct iter_parentside* ps,
	struct delegpt* dp, time_t now)
{
	struct delegpt_ns* ns;
	int i, added = 0;
	if(!ps->slot || !dp)
		return 0;
	for(ns = dp->nslist; ns; ns = ns->next) {
		const struct iter_parentside_slot* s = slot_of(ps, ns->name,
			ns->namelen);
		if(s->expire <= now || s->namelen != ns->namelen ||
			!dname_same(s->name, ns->name, ns->namelen))
			continue;
		for(i = 0; i < s->naddr; i++) {
			if(s->addr[i].ss_family == AF_INET6)
				ns->got6 = 1;
			else
				ns->got4 = 1;
			if(has_addr(dp, &s->addr[i], s->addrlen[i]))
				continue;
			if(delegpt_add_addr(dp, &s->addr[i], s->addrlen[i]))
				added++;
		}
	}
	return added;
}

void iter_parentside_clear(struct iter_parentside* ps)
{
	free(ps->slot);
	ps->slot = NULL;
}
