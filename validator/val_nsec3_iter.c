/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_nsec3_iter.c - val-nsec3-keysize-iterations. */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include "validator/val_nsec3_iter.h"

#define MAX_KEYSIZE 1000000
#define MAX_ITER 65535
#define DNSKEY_ZONE_FLAG 0x0100

/* One decimal number at *p (after spaces); 1 and *p past it, 0 if there
 * is none, -1 if it is malformed or over max. */
static int read_number(const char** p, size_t max, size_t* v)
{
	const char* s = *p;
	size_t n = 0;
	while(*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	if(*s == 0) {
		*p = s;
		return 0;
	}
	if(*s < '0' || *s > '9')
		return -1;
	while(*s >= '0' && *s <= '9') {
		n = n * 10 + (size_t)(*s - '0');
		if(n > max)
			return -1;
		s++;
	}
	if(*s != 0 && *s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
		return -1;
	*v = n;
	*p = s;
	return 1;
}

int val_nsec3_iter_parse(const char* text, struct nsec3_iter_table* t,
	char* err, size_t errlen)
{
	struct nsec3_iter_table n;
	const char* p = text ? text : "";
	memset(&n, 0, sizeof(n));
	for(;;) {
		size_t ks, it;
		int r = read_number(&p, MAX_KEYSIZE, &ks);
		if(r == 0)
			break;
		if(r < 0) {
			snprintf(err, errlen, "val-nsec3-keysize-iterations: "
				"bad key size at '%s' (want a number of bits "
				"up to %d)", p, MAX_KEYSIZE);
			return 0;
		}
		r = read_number(&p, MAX_ITER, &it);
		if(r == 0) {
			snprintf(err, errlen, "val-nsec3-keysize-iterations: "
				"key size %u has no iteration count (must be "
				"pairs of numbers)", (unsigned)ks);
			return 0;
		}
		if(r < 0) {
			snprintf(err, errlen, "val-nsec3-keysize-iterations: "
				"bad iteration count at '%s' (want a number up "
				"to %d)", p, MAX_ITER);
			return 0;
		}
		if(n.count == NSEC3_ITER_MAX_PAIRS) {
			snprintf(err, errlen, "val-nsec3-keysize-iterations: "
				"more than %d pairs", NSEC3_ITER_MAX_PAIRS);
			return 0;
		}
		if(n.count > 0 && n.keysize[n.count - 1] >= ks) {
			snprintf(err, errlen, "val-nsec3-keysize-iterations: "
				"key sizes not ascending: %u %u",
				(unsigned)n.keysize[n.count - 1], (unsigned)ks);
			return 0;
		}
		n.keysize[n.count] = ks;
		n.maxiter[n.count] = it;
		n.count++;
	}
	if(n.count == 0) {
		snprintf(err, errlen, "val-nsec3-keysize-iterations: empty, "
			"need pairs of key size and iteration count");
		return 0;
	}
	*t = n;
	return 1;
}

size_t val_nsec3_iter_max(const struct nsec3_iter_table* t, size_t bits)
{
	size_t i;
	if(!t || t->count == 0)
		return 0;
	for(i = 0; i < t->count; i++)
		if(bits <= t->keysize[i])
			return t->maxiter[i];
	return t->maxiter[t->count - 1];
}

size_t val_nsec3_zone_keysize(const ldns_rr_list* dnskeys)
{
	size_t i, best = 0;
	int have = 0;
	for(i = 0; dnskeys && i < ldns_rr_list_rr_count(dnskeys); i++) {
		const ldns_rr* k = ldns_rr_list_rr(dnskeys, i);
		size_t bits;
		if(ldns_rr_get_type(k) != LDNS_RR_TYPE_DNSKEY ||
			ldns_rr_rd_count(k) < 4 || !ldns_rr_rdf(k, 0) ||
			ldns_rdf_size(ldns_rr_rdf(k, 0)) != 2)
			continue;
		if(!(ldns_rdf2native_int16(ldns_rr_rdf(k, 0)) &
			DNSKEY_ZONE_FLAG))
			continue;
		bits = ldns_rr_dnskey_key_size(k);
		if(!have || bits < best)
			best = bits;
		have = 1;
	}
	return best;
}
