/* SPDX-License-Identifier: BSD-3-Clause */
/* services/localzone_list.c - compat: unbound-1.17: list_local_zones and
 * list_local_data of unbound-control, in Unbound's order: its zones are kept
 * in a tree in its own name order (dname_tree_compare), the names of a zone in
 * canonical order (RFC 4034 6.1); ours are in hash tables, so the listing
 * sorts. RR text comes from ldns, as Unbound's from sldns. */
#include "config.h"
#include "services/localzone_internal.h"
#include "util/dname.h"
#include "util/log.h"
#include <ldns/ldns.h>
#include <stdlib.h>
#include <string.h>

static int zone_cmp(const void* x, const void* y)
{
	const struct lz_zone* a = *(const struct lz_zone* const*)x;
	const struct lz_zone* b = *(const struct lz_zone* const*)y;
	if(a->dclass != b->dclass)
		return a->dclass < b->dclass ? -1 : 1;
	return dname_tree_compare(a->name, b->name);
}

static int node_cmp(const void* x, const void* y)
{
	const struct lz_node* a = *(const struct lz_node* const*)x;
	const struct lz_node* b = *(const struct lz_node* const*)y;
	int r = zone_cmp(&a->zone, &b->zone);
	return r ? r : dname_canonical_compare(a->name, b->name);
}

static int rrset_cmp(const void* x, const void* y)
{
	const struct lz_rrset* a = *(const struct lz_rrset* const*)x;
	const struct lz_rrset* b = *(const struct lz_rrset* const*)y;
	return a->list_key < b->list_key ? -1 : a->list_key > b->list_key;
}

/* compat: unbound-1.17: One RR as text, as ldns prints it; Unbound's own text
 * ends in a newline and it adds one, so every RR is followed by an empty line.
 */
static void print_rr(const struct lz_rrset* r, size_t i,
	void (*out)(void*, const char*), void* arg)
{
	uint8_t wire[LDNS_MAX_DOMAINLEN + 1 + 10 + 65535];
	const struct packed_rrset* p = &r->rr;
	size_t len = p->owner_len, pos = 0;
	uint32_t ttl = r->ttls[i];
	ldns_rr* rr = NULL;
	char* s;
	memcpy(wire, p->owner, len);
	wire[len++] = (uint8_t)(p->type >> 8);
	wire[len++] = (uint8_t)p->type;
	wire[len++] = (uint8_t)(p->rclass >> 8);
	wire[len++] = (uint8_t)p->rclass;
	wire[len++] = (uint8_t)(ttl >> 24);
	wire[len++] = (uint8_t)(ttl >> 16);
	wire[len++] = (uint8_t)(ttl >> 8);
	wire[len++] = (uint8_t)ttl;
	wire[len++] = (uint8_t)(p->rdlen[i] >> 8);
	wire[len++] = (uint8_t)p->rdlen[i];
	memcpy(wire + len, p->rdata[i], p->rdlen[i]);
	len += p->rdlen[i];
	if(ldns_wire2rr(&rr, wire, len, &pos, LDNS_SECTION_ANSWER) !=
		LDNS_STATUS_OK || !(s = ldns_rr2str(rr))) {
		out(arg, "BADRR\n");
		ldns_rr_free(rr);
		return;
	}
	out(arg, s);
	out(arg, "\n");
	free(s);
	ldns_rr_free(rr);
}

int local_zones_list(const struct local_zones* lz, int data,
	void (*out)(void* arg, const char* line), void* arg)
{
	const struct ihash* t = data ? &lz->names : &lz->zones;
	size_t n = t->count, k = 0, i = 0;
	struct ihash_node* hn = NULL;
	const void** v = calloc(n + 1, sizeof(*v));
	if(!v)
		return 0;
	while(k < n && (hn = ihash_next(t, &i, hn)) != NULL) {
		if(data) {
			const struct lz_node* d = IHASH_ITEM(hn,
				struct lz_node, hn);
			/* nodes of removed zones wait for the copy */
			if(lz_zone_find(lz, d->zone->name,
				d->zone->dclass) == d->zone)
				v[k++] = d;
		} else
			v[k++] = IHASH_ITEM(hn, struct lz_zone, hn);
	}
	qsort(v, k, sizeof(*v), data ? node_cmp : zone_cmp);
	for(i = 0; i < k; i++) {
		char name[1100], line[1200];
		if(!data) {
			const struct lz_zone* z = v[i];
			dname_to_str(z->name, name, sizeof(name));
			snprintf(line, sizeof(line), "%s %s\n", name,
				local_zone_type2str(z->type));
			out(arg, line);
		} else {
			const struct lz_node* d = v[i];
			const struct lz_rrset* r, **rs;
			size_t j, m = 0, x;
			for(r = d->rrsets; r; r = r->next)
				m++;
			if(!(rs = calloc(m + 1, sizeof(*rs)))) {
				free(v);
				return 0;
			}
			for(m = 0, r = d->rrsets; r; r = r->next)
				rs[m++] = r;
			qsort(rs, m, sizeof(*rs), rrset_cmp);
			for(x = 0; x < m; x++)
				for(r = rs[x], j = 0; j < r->rr.count; j++)
					print_rr(r, j, out, arg);
			free(rs);
		}
	}
	free(v);
	return 1;
}
