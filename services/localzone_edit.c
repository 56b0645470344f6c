/* SPDX-License-Identifier: BSD-3-Clause */
/* services/localzone_edit.c - the runtime changes of unbound-control
 * (local_zone, local_zone_remove, local_data, local_data_remove). They
 * are made on a private copy that is then published as a new snapshot:
 * workers read the old one without locks until they pick up the new.
 *
 * The structure is an arena with hash chains, so a removal unlinks a
 * zone or empties a node in place and local_zones_copy() leaves the
 * remains behind: the copy holds only the linked zones, the nodes with
 * data (and zone apexes), and the empty non-terminals those need. */
#include "config.h"
#include "services/localzone_internal.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include <ldns/ldns.h>
#include <stdlib.h>
#include <string.h>

/* Is z (from a node) still linked in lz? */
static int zone_linked(const struct local_zones* lz, const struct lz_zone* z)
{
	return lz_zone_find(lz, z->name, z->dclass) == z;
}

/* Copy node d's RRsets into zone z of dst, in their order, as they are
 * (no redirect checks: the zone's type may have changed since). */
static int copy_node(struct local_zones* dst, struct lz_zone* z,
	const struct lz_node* d)
{
	const struct lz_rrset* r;
	struct lz_node* n = lz_node_find_create(dst, z, d->name);
	struct lz_rrset** tail;
	if(!n)
		return 0;
	tail = &n->rrsets;
	while(*tail)
		tail = &(*tail)->next;
	for(r = d->rrsets; r; r = r->next) {
		struct lz_rrset* c = lz_arena_alloc(dst, sizeof(*c));
		struct lz_rr rr;
		size_t i;
		if(!c)
			return 0;
		c->rr.owner = n->name;
		c->rr.owner_len = n->namelen;
		c->rr.type = r->rr.type;
		c->rr.rclass = r->rr.rclass;
		c->rr.ttl = r->rr.ttl;
		c->list_key = r->list_key;
		*tail = c;
		tail = &c->next;
		memset(&rr, 0, sizeof(rr));
		rr.text = "";
		rr.type = r->rr.type;
		rr.dclass = r->rr.rclass;
		for(i = 0; i < r->rr.count; i++) {
			rr.ttl = r->ttls[i];
			rr.rdata = r->rdata[i];
			rr.rdlen = r->rdlen[i];
			if(!lz_rrset_add_rr(dst, c, &rr))
				return 0;
		}
		if(c->rr.type == TYPE_SOA && c->rr.count &&
			query_dname_compare(n->name, z->name) == 0)
			lz_zone_set_soa(z, c);
	}
	return 1;
}

struct local_zones* local_zones_copy(const struct local_zones* lz)
{
	struct local_zones* c = calloc(1, sizeof(*c));
	struct ihash_node* hn = NULL;
	size_t i;
	if(!c) {
		log_err("out of memory");
		return NULL;
	}
	c->log_local_actions = lz->log_local_actions;
	c->roundrobin = lz->roundrobin;
	c->list_seq = lz->list_seq;
	i = 0;
	while((hn = ihash_next(&lz->zones, &i, hn)) != NULL) {
		const struct lz_zone* z = IHASH_ITEM(hn, struct lz_zone, hn);
		struct lz_zone* n = lz_zone_enter(c, z->name, z->dclass,
			z->type, 0);
		if(!n)
			goto fail;
		n->lan = z->lan;
		n->tags = z->tags;
		if(!lz_copy_overrides(c, n, z))
			goto fail;
		n->insecure = z->insecure;
	}
	i = 0;
	while((hn = ihash_next(&lz->names, &i, hn)) != NULL) {
		const struct lz_node* d = IHASH_ITEM(hn, struct lz_node, hn);
		struct lz_zone* z;
		/* compat: unbound-1.17: an emptied apex stays, as in
		 * Unbound: NODATA */
		if(!zone_linked(lz, d->zone) || (!d->rrsets &&
			query_dname_compare(d->name, d->zone->name)))
			continue;
		z = lz_zone_find(c, d->zone->name, d->zone->dclass);
		if(!z || !copy_node(c, z, d))
			goto fail;
	}
	return c;
fail:
	local_zones_delete(c);
	return NULL;
}

int local_zones_set_zone(struct local_zones* lz, const uint8_t* name,
	enum localzone_type t)
{
	return lz_zone_enter(lz, name, CLASS_IN, t, 0) != NULL;
}

int local_zones_remove_zone(struct local_zones* lz, const uint8_t* name)
{
	struct lz_zone* z = lz_zone_find(lz, name, CLASS_IN);
	if(!z)
		return 0;
	ihash_remove(&lz->zones, &z->hn);
	/* its nodes stay in the names table, unreachable (their zone is gone), until
	 * the next local_zones_copy; the TLD filter may keep a bit: it
	 * only says where to look */
	return 1;
}

int local_zones_add_rr(struct local_zones* lz, const char* text)
{
	struct lz_rr rr;
	struct lz_zone* z;
	if(!lz_rr_parse(lz, text, &rr))
		return 0;
	/* compat: unbound-1.17: as Unbound: outside any zone, a transparent
	 * zone at its owner */
	if(!(z = lz_zone_lookup(lz, rr.wire, rr.dclass, rr.type)) &&
		!(z = lz_zone_enter(lz, rr.wire, rr.dclass,
			local_zone_transparent,
		0)))
		return 0;
	return lz_zone_enter_rr(lz, z, &rr);
}

/* Drop the RRsets of node nm in the zone that holds type (all types,
 * or only DS when ds). */
static void remove_node_data(struct local_zones* lz, const uint8_t* nm,
	int ds)
{
	struct lz_zone* z = lz_zone_lookup(lz, nm, CLASS_IN,
		ds ? TYPE_DS : 0);
	struct lz_node* d;
	struct lz_rrset** pp;
	if(!z || !(d = lz_node_find(lz, z, nm)))
		return;
	for(pp = &d->rrsets; *pp; ) {
		if(!ds || (*pp)->rr.type == TYPE_DS)
			*pp = (*pp)->next;
		else	pp = &(*pp)->next;
	}
	if(!ds && query_dname_compare(d->name, z->name) == 0)
		z->soa = NULL;
}

void local_zones_remove_data(struct local_zones* lz, const uint8_t* name)
{
	remove_node_data(lz, name, 1);
	remove_node_data(lz, name, 0);
}

void local_zones_set_flags(struct local_zones* lz,
	const struct config_file* cfg)
{
	lz->log_local_actions = cfg->log_local_actions;
	lz->roundrobin = cfg->rrset_roundrobin;
}
