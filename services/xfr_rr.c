/* SPDX-License-Identifier: BSD-3-Clause */
/* services/xfr_rr.c - zone content as RR lists; serial arithmetic and the
 * application of IXFR differences (RFC 1982, RFC 1995). */
#include "config.h"
#include "services/xfr_rr.h"
#include "util/dname.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TYPE_SOA_ 6

void xfr_rrs_init(struct xfr_rrs* l)
{
	memset(l, 0, sizeof(*l));
}

void xfr_rrs_clear(struct xfr_rrs* l)
{
	size_t i;
	for(i = 0; i < l->n; i++)
		free(l->v[i].owner);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

int xfr_rrs_add(struct xfr_rrs* l, const uint8_t* owner, size_t owner_len,
	uint16_t type, uint16_t rclass, uint32_t ttl, const uint8_t* rdata,
	uint16_t rdlen)
{
	struct xfr_rr* r;
	uint8_t* mem;
	if(l->n == l->cap) {
		size_t c = l->cap ? l->cap * 2 : 64;
		struct xfr_rr* nv = realloc(l->v, c * sizeof(*nv));
		if(!nv)
			return 0;
		l->v = nv;
		l->cap = c;
	}
	if(!(mem = malloc(owner_len + rdlen + 1)))
		return 0;
	r = &l->v[l->n++];
	memcpy(mem, owner, owner_len);
	dname_tolower(mem);
	memcpy(mem + owner_len, rdata, rdlen);
	r->owner = mem;
	r->owner_len = owner_len;
	r->type = type;
	r->rclass = rclass;
	r->ttl = ttl;
	r->rdata = mem + owner_len;
	r->rdlen = rdlen;
	l->bytes += owner_len + 10 + rdlen;
	return 1;
}

int xfr_rrs_copy(struct xfr_rrs* out, const struct xfr_rrs* in)
{
	size_t i;
	xfr_rrs_init(out);
	for(i = 0; i < in->n; i++) {
		const struct xfr_rr* r = &in->v[i];
		if(!xfr_rrs_add(out, r->owner, r->owner_len, r->type,
			r->rclass, r->ttl, r->rdata, r->rdlen)) {
			xfr_rrs_clear(out);
			return 0;
		}
	}
	return 1;
}

static uint32_t get32(const uint8_t* p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
		((uint32_t)p[2] << 8) | p[3];
}

int xfr_soa_parse(const uint8_t* rdata, size_t rdlen, struct xfr_soa* soa)
{
	size_t a = dname_valid(rdata, rdlen), b;
	if(!a)
		return 0;
	b = dname_valid(rdata + a, rdlen - a);
	if(!b || rdlen - a - b != 20)
		return 0;
	rdata += a + b;
	soa->serial = get32(rdata);
	soa->refresh = get32(rdata + 4);
	soa->retry = get32(rdata + 8);
	soa->expire = get32(rdata + 12);
	soa->minimum = get32(rdata + 16);
	return 1;
}

int xfr_rrs_soa(const struct xfr_rrs* l, const uint8_t* zone,
	struct xfr_soa* soa)
{
	size_t i;
	for(i = 0; i < l->n; i++)
		if(l->v[i].type == TYPE_SOA_ &&
			query_dname_compare(l->v[i].owner, zone) == 0)
			return xfr_soa_parse(l->v[i].rdata, l->v[i].rdlen, soa);
	return 0;
}

int xfr_serial_newer(uint32_t a, uint32_t b)
{
	/* RFC 1982 3.2 with SERIAL_BITS 32: a > b when the difference is
	 * in (0, 2^31); exactly 2^31 apart is undefined: not newer */
	uint32_t d = a - b;
	return d != 0 && d < 0x80000000u;
}

/* order for finding an RR: owner, type, class, rdata (bytes) */
static int rr_cmp(const void* x, const void* y)
{
	const struct xfr_rr* a = x, *b = y;
	int c = dname_canonical_compare(a->owner, b->owner);
	if(c)
		return c;
	if(a->type != b->type)
		return a->type < b->type ? -1 : 1;
	if(a->rclass != b->rclass)
		return a->rclass < b->rclass ? -1 : 1;
	if(a->rdlen != b->rdlen)
		return a->rdlen < b->rdlen ? -1 : 1;
	return memcmp(a->rdata, b->rdata, a->rdlen);
}

/* Is a the RR b (owner, type, class and rdata equal)? Owners are
 * lowercased when added, so equal names are equal bytes. */
static int rr_same(const struct xfr_rr* a, const struct xfr_rr* b)
{
	return a->type == b->type && a->rclass == b->rclass &&
		a->rdlen == b->rdlen && a->owner_len == b->owner_len &&
		memcmp(a->owner, b->owner, a->owner_len) == 0 &&
		memcmp(a->rdata, b->rdata, a->rdlen) == 0;
}

/* Up to this many deleted RRs are each found by a scan of the zone;
 * more, by a sort and binary searches. An IXFR of a few changes to a
 * zone of a million RRs then costs a few scans, not a sort of the
 * whole zone (0.4 s of CPU at 1,000,000 RRs), and keeps its order. */
#define XFR_DEL_SCAN 32

/* The zone's index of an RR equal to d not marked gone, or zone->n. */
static size_t find_del(struct xfr_rrs* zone, const uint8_t* gone,
	const struct xfr_rr* d, int sorted)
{
	size_t at;
	if(!sorted) {
		for(at = 0; at < zone->n; at++)
			if(!gone[at] && rr_same(&zone->v[at], d))
				return at;
		return zone->n;
	} else {
		struct xfr_rr* f = bsearch(d, zone->v, zone->n,
			sizeof(zone->v[0]), rr_cmp);
		if(!f)
			return zone->n;
		/* the first equal one not deleted yet */
		at = (size_t)(f - zone->v);
		while(at > 0 && rr_cmp(&zone->v[at-1], d) == 0)
			at--;
		while(at < zone->n && gone[at] && rr_cmp(&zone->v[at], d) == 0)
			at++;
		if(at < zone->n && !gone[at] && rr_cmp(&zone->v[at], d) == 0)
			return at;
		return zone->n;
	}
}

int xfr_rrs_apply(struct xfr_rrs* zone, const struct xfr_rrs* del,
	const struct xfr_rrs* add, char* err, size_t errlen)
{
	uint8_t* gone;
	size_t i, k, bytes;
	if(del->n) {
		int sorted = del->n > XFR_DEL_SCAN;
		if(!(gone = calloc(zone->n + 1, 1))) {
			snprintf(err, errlen, "out of memory");
			return 0;
		}
		if(sorted)
			qsort(zone->v, zone->n, sizeof(zone->v[0]), rr_cmp);
		for(i = 0; i < del->n; i++) {
			size_t at = find_del(zone, gone, &del->v[i], sorted);
			char nm[256 * 4 + 8];
			if(at < zone->n) {
				gone[at] = 1;
				continue;
			}
			dname_to_str(del->v[i].owner, nm, sizeof(nm));
			snprintf(err, errlen, "IXFR deletes an RR the zone "
				"does not have: %s type %u", nm,
				(unsigned)del->v[i].type);
			free(gone);
			return 0;
		}
		for(i = 0, k = 0, bytes = 0; i < zone->n; i++) {
			if(gone[i]) {
				free(zone->v[i].owner);
				continue;
			}
			bytes += zone->v[i].owner_len + 10 + zone->v[i].rdlen;
			zone->v[k++] = zone->v[i];
		}
		zone->n = k;
		zone->bytes = bytes;
		free(gone);
	}
	for(i = 0; i < add->n; i++) {
		const struct xfr_rr* r = &add->v[i];
		if(!xfr_rrs_add(zone, r->owner, r->owner_len, r->type,
			r->rclass, r->ttl, r->rdata, r->rdlen)) {
			snprintf(err, errlen, "out of memory");
			return 0;
		}
	}
	return 1;
}
