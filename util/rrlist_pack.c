/* SPDX-License-Identifier: BSD-3-Clause */
/* util/rrlist_pack.c - the RRsets of an ldns record list in the packed
 * form the encoder and the caches take (see the header). */
#include "config.h"
#include "util/rrlist_pack.h"
#include "util/msgencode.h"
#include <stdlib.h>
#include <string.h>

static uint8_t ascii_lower(uint8_t c)
{
	return c >= 'A' && c <= 'Z' ? (uint8_t)(c + 32) : c;
}

/* Equal owner names: same length, bytes equal ignoring ASCII case
 * (label lengths are below 64, which lowercasing leaves alone). */
static int same_owner(const ldns_rdf* a, const ldns_rdf* b)
{
	size_t n = ldns_rdf_size(a), i;
	const uint8_t* x = ldns_rdf_data(a), *y = ldns_rdf_data(b);
	if(n != ldns_rdf_size(b))
		return 0;
	if(memcmp(x, y, n) == 0)
		return 1;
	for(i = 0; i < n; i++)
		if(x[i] != y[i] && ascii_lower(x[i]) != ascii_lower(y[i]))
			return 0;
	return 1;
}

static int same_set(const ldns_rr* a, const ldns_rr* b)
{
	return ldns_rr_get_type(a) == ldns_rr_get_type(b) &&
		ldns_rr_get_class(a) == ldns_rr_get_class(b) &&
		same_owner(ldns_rr_owner(a), ldns_rr_owner(b));
}

/* The rdata of rr in wire form (its rdfs one after the other, as
 * ldns_rr_rdata2buffer_wire writes them) at out; its length. */
static size_t rdata_wire(const ldns_rr* rr, uint8_t* out)
{
	size_t i, len = 0;
	for(i = 0; i < ldns_rr_rd_count(rr); i++) {
		const ldns_rdf* f = ldns_rr_rdf(rr, i);
		if(!f)
			continue;
		memcpy(out + len, ldns_rdf_data(f), ldns_rdf_size(f));
		len += ldns_rdf_size(f);
	}
	return len;
}

static size_t rdata_wire_len(const ldns_rr* rr)
{
	size_t i, len = 0;
	for(i = 0; i < ldns_rr_rd_count(rr); i++)
		if(ldns_rr_rdf(rr, i))
			len += ldns_rdf_size(ldns_rr_rdf(rr, i));
	return len;
}

static int wanted(const ldns_rr* rr, uint16_t t1, uint16_t t2)
{
	uint16_t t = (uint16_t)ldns_rr_get_type(rr);
	return t1 == 0 || t == t1 || t == t2;
}

/* A list this small (records, rdata bytes) is grouped without a heap
 * allocation: an upstream reply's sections nearly always are, and four
 * allocations per list were a tenth of a cache miss's instructions. */
#define PACK_STACK_RRS 32
#define PACK_STACK_BYTES 2048

/* t1 == 0: every record; else only records of type t1 or t2 */
static int for_each_set(const ldns_rr_list* list, uint16_t t1, uint16_t t2,
	int (*fn)(void* arg, const struct packed_rrset* set), void* arg)
{
	size_t n = ldns_rr_list_rr_count(list), i, j, total = 0;
	uint8_t s_used[PACK_STACK_RRS];
	const uint8_t* s_rd[PACK_STACK_RRS];
	uint16_t s_rl[PACK_STACK_RRS];
	uint8_t s_data[PACK_STACK_BYTES];
	uint8_t* used = s_used, *data = s_data, *heap = NULL;
	const uint8_t** rd = s_rd;
	uint16_t* rl = s_rl;
	int ok = 0;
	if(n == 0)
		return 1;
	for(i = 0; i < n; i++)
		if(wanted(ldns_rr_list_rr(list, i), t1, t2))
			total += rdata_wire_len(ldns_rr_list_rr(list, i));
	if(n > PACK_STACK_RRS || total > PACK_STACK_BYTES) {
		/* one block: pointers, lengths, flags, rdata */
		heap = malloc(n * (sizeof(*rd) + sizeof(*rl) + 1) + total);
		if(!heap)
			return 0;
		rd = (const uint8_t**)heap;
		rl = (uint16_t*)(heap + n * sizeof(*rd));
		used = heap + n * (sizeof(*rd) + sizeof(*rl));
		data = used + n;
	}
	for(i = 0; i < n; i++)
		used[i] = !wanted(ldns_rr_list_rr(list, i), t1, t2);
	for(i = 0; i < n; i++) {
		ldns_rr* first = ldns_rr_list_rr(list, i);
		struct packed_rrset set;
		size_t setlen = 0;
		if(used[i])
			continue;
		memset(&set, 0, sizeof(set));
		set.owner = ldns_rdf_data(ldns_rr_owner(first));
		set.owner_len = ldns_rdf_size(ldns_rr_owner(first));
		set.type = (uint16_t)ldns_rr_get_type(first);
		set.rclass = (uint16_t)ldns_rr_get_class(first);
		set.ttl = ldns_rr_ttl(first);
		for(j = i; j < n; j++) {
			ldns_rr* rr = ldns_rr_list_rr(list, j);
			size_t len;
			if(used[j] || !same_set(first, rr))
				continue;
			used[j] = 1;
			/* every record's rdata fits: total counted them all */
			len = rdata_wire(rr, data + setlen);
			if(len > 65535)
				goto done;
			rd[set.count] = data + setlen;
			rl[set.count++] = (uint16_t)len;
			setlen += len;
			if(ldns_rr_ttl(rr) < set.ttl)
				set.ttl = ldns_rr_ttl(rr);
		}
		set.rdata = rd;
		set.rdlen = rl;
		if(!fn(arg, &set))
			goto done;
	}
	ok = 1;
done:
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
