/* SPDX-License-Identifier: BSD-3-Clause */
/* util/rrlist_pack.c - the RRsets of an ldns record list in the packed
 * form the encoder and the caches take (see the header). */
#include "config.h"
#include "util/rrlist_pack.h"
#include "util/msgencode.h"
#include "util/dname.h"
#include <stdlib.h>
#include <string.h>

/* One record of the list with the fields grouping needs, each read
 * once: every ldns accessor is a call into the library, and asking
 * them again per comparison was a thirtieth of a cache miss. Its rdata
 * is at off in the data buffer, len bytes. */
struct pack_rec {
	const uint8_t* owner;
	size_t owner_len, off, len;
	uint32_t ttl;
	uint16_t type, rclass;
	uint8_t used;
};

static int same_set(const struct pack_rec* a, const struct pack_rec* b)
{
	return a->type == b->type && a->rclass == b->rclass &&
		a->owner_len == b->owner_len &&
		dname_same(a->owner, b->owner, a->owner_len);
}

/* A list this small (records, rdata bytes) is grouped without a heap
 * allocation: an upstream reply's sections nearly always are, and four
 * allocations per list were a tenth of a cache miss's instructions. */
#define PACK_STACK_RRS 32
#define PACK_STACK_BYTES 2048

/* The rdata buffer: on the stack until it overflows, then on the heap
 * (heap is what to free). */
struct pack_buf {
	uint8_t* data, *heap;
	size_t used, cap;
};

/* Append n bytes; 0 when out of memory. */
static int buf_add(struct pack_buf* b, const uint8_t* p, size_t n)
{
	if(b->used + n > b->cap) {
		size_t cap = b->cap * 2 > b->used + n ? b->cap * 2 :
			b->used + n;
		uint8_t* d = malloc(cap);
		if(!d)
			return 0;
		memcpy(d, b->data, b->used);
		free(b->heap);
		b->data = b->heap = d;
		b->cap = cap;
	}
	memcpy(b->data + b->used, p, n);
	b->used += n;
	return 1;
}

/* Read rr into r (t1 == 0: every record is wanted; else only those of
 * type t1 or t2), its rdata in wire form (the rdfs one after the other,
 * as ldns_rr_rdata2buffer_wire writes them) appended to b. 0 when out
 * of memory. */
static int read_rec(const ldns_rr* rr, uint16_t t1, uint16_t t2,
	struct pack_rec* r, struct pack_buf* b)
{
	const ldns_rdf* owner;
	size_t i, rdn;
	r->type = (uint16_t)ldns_rr_get_type(rr);
	r->used = t1 != 0 && r->type != t1 && r->type != t2;
	if(r->used)
		return 1;
	owner = ldns_rr_owner(rr);
	r->owner = ldns_rdf_data(owner);
	r->owner_len = ldns_rdf_size(owner);
	r->rclass = (uint16_t)ldns_rr_get_class(rr);
	r->ttl = ldns_rr_ttl(rr);
	r->off = b->used;
	rdn = ldns_rr_rd_count(rr);
	for(i = 0; i < rdn; i++) {
		const ldns_rdf* f = ldns_rr_rdf(rr, i);
		if(f && !buf_add(b, ldns_rdf_data(f), ldns_rdf_size(f)))
			return 0;
	}
	r->len = b->used - r->off;
	return 1;
}

static int for_each_set(const ldns_rr_list* list, uint16_t t1, uint16_t t2,
	int (*fn)(void* arg, const struct packed_rrset* set), void* arg)
{
	size_t n = ldns_rr_list_rr_count(list), i, j;
	struct pack_rec s_recs[PACK_STACK_RRS], *recs = s_recs;
	const uint8_t* s_rd[PACK_STACK_RRS];
	uint16_t s_rl[PACK_STACK_RRS];
	uint8_t s_data[PACK_STACK_BYTES];
	struct pack_buf b;
	const uint8_t** rd = s_rd;
	uint16_t* rl = s_rl;
	uint8_t* heap = NULL;
	int ok = 0;
	if(n == 0)
		return 1;
	if(n > PACK_STACK_RRS) {
		/* one block: records, pointers, lengths */
		heap = malloc(n * (sizeof(*recs) + sizeof(*rd) + sizeof(*rl)));
		if(!heap)
			return 0;
		recs = (struct pack_rec*)heap;
		rd = (const uint8_t**)(recs + n);
		rl = (uint16_t*)(rd + n);
	}
	b.data = s_data;
	b.heap = NULL;
	b.used = 0;
	b.cap = sizeof(s_data);
	for(i = 0; i < n; i++)
		if(!read_rec(ldns_rr_list_rr(list, i), t1, t2, &recs[i], &b))
			goto done;
	for(i = 0; i < n; i++) {
		const struct pack_rec* first = &recs[i];
		struct packed_rrset set;
		if(first->used)
			continue;
		memset(&set, 0, sizeof(set));
		set.owner = first->owner;
		set.owner_len = first->owner_len;
		set.type = first->type;
		set.rclass = first->rclass;
		set.ttl = first->ttl;
		for(j = i; j < n; j++) {
			struct pack_rec* r = &recs[j];
			if(r->used || !same_set(first, r))
				continue;
			r->used = 1;
			if(r->len > 65535)
				goto done;
			rd[set.count] = b.data + r->off;
			rl[set.count++] = (uint16_t)r->len;
			if(r->ttl < set.ttl)
				set.ttl = r->ttl;
		}
		set.rdata = rd;
		set.rdlen = rl;
		if(!fn(arg, &set))
			goto done;
	}
	ok = 1;
done:
	free(b.heap);
	free(heap);
	return ok;
}

int rrlist_for_each_rrset(const ldns_rr_list* list,
	int (*fn)(void* arg, const struct packed_rrset* set), void* arg)
{
	return for_each_set(list, 0, 0, fn, arg);
}

int rrlist_for_each_rrset_of(const ldns_rr_list* list, uint16_t t1,
	uint16_t t2, int (*fn)(void* arg, const struct packed_rrset* set),
	void* arg)
{
	return for_each_set(list, t1, t2, fn, arg);
}

int packed_rrset_to_rrlist(const struct packed_rrset* v, ldns_rr_list* list)
{
	/* one RR: owner, type, class, TTL, rdlength, rdata */
	static _Thread_local uint8_t wire[LDNS_MAX_DOMAINLEN + 1 + 10 +
		65535];
	size_t i;
	for(i = 0; i < v->count; i++) {
		ldns_rr* rr = NULL;
		size_t pos = 0, len = v->owner_len;
		memcpy(wire, v->owner, v->owner_len);
		wire[len++] = (uint8_t)(v->type >> 8);
		wire[len++] = (uint8_t)v->type;
		wire[len++] = (uint8_t)(v->rclass >> 8);
		wire[len++] = (uint8_t)v->rclass;
		wire[len++] = (uint8_t)(v->ttl >> 24);
		wire[len++] = (uint8_t)(v->ttl >> 16);
		wire[len++] = (uint8_t)(v->ttl >> 8);
		wire[len++] = (uint8_t)v->ttl;
		wire[len++] = (uint8_t)(v->rdlen[i] >> 8);
		wire[len++] = (uint8_t)v->rdlen[i];
		memcpy(wire + len, v->rdata[i], v->rdlen[i]);
		len += v->rdlen[i];
		if(ldns_wire2rr(&rr, wire, len, &pos, LDNS_SECTION_ANSWER)
			!= LDNS_STATUS_OK || !ldns_rr_list_push_rr(list, rr)) {
			ldns_rr_free(rr);
			return 0;
		}
	}
	return 1;
}
