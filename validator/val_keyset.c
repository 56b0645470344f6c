/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_keyset.c - a DNSKEY set in the form the verifier uses:
 * flags, algorithm and key tag read once, the public key parsed into an
 * EVP_PKEY on first use and kept, so the key cache's sets are not parsed
 * again for every RRset. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "validator/val_sig_int.h"

char val_pkey_bad_marker;

uint16_t val_keytag(const uint8_t* rdata, size_t len)
{
	uint32_t ac = 0;
	size_t i;
	if(len < 4)
		return 0;
	if(rdata[3] == LDNS_RSAMD5) {
		/* RFC 4034 B.1: the modulus' least significant 16 bits */
		if(len < 5)
			return 0;
		return (uint16_t)((rdata[len-3] << 8) | rdata[len-2]);
	}
	for(i = 0; i < len; i++)
		ac += (i & 1) ? rdata[i] : ((uint32_t)rdata[i] << 8);
	ac += (ac >> 16) & 0xffff;
	return (uint16_t)(ac & 0xffff);
}

/* total rdata length of an RR, 0 if over 65535 */
static size_t rr_rdata_len(const ldns_rr* rr)
{
	size_t i, n = 0;
	for(i = 0; i < ldns_rr_rd_count(rr); i++)
		n += ldns_rdf_size(ldns_rr_rdf(rr, i));
	return n > 65535 ? 0 : n;
}

struct val_keyset* val_keyset_create(const ldns_rr_list* dnskeys)
{
	size_t i, j, n, total = 0, off;
	struct val_keyset* ks;
	const ldns_rdf* owner;
	uint8_t* rd;
	if(!dnskeys || (n = ldns_rr_list_rr_count(dnskeys)) == 0)
		return NULL;
	owner = ldns_rr_owner(ldns_rr_list_rr(dnskeys, 0));
	if(!owner || ldns_rdf_size(owner) > LDNS_MAX_DOMAINLEN + 1)
		return NULL;
	for(i = 0; i < n; i++) {
		const ldns_rr* rr = ldns_rr_list_rr(dnskeys, i);
		if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_DNSKEY ||
			ldns_rr_get_class(rr) != ldns_rr_get_class(
			ldns_rr_list_rr(dnskeys, 0)) ||
			ldns_dname_compare(ldns_rr_owner(rr), owner) != 0)
			return NULL;
		total += rr_rdata_len(rr);
	}
	ks = calloc(1, sizeof(*ks) + n*sizeof(struct val_key) + total);
	if(!ks)
		return NULL;
	ks->owner_len = ldns_rdf_size(owner);
	memcpy(ks->owner, ldns_rdf_data(owner), ks->owner_len);
	val_dname_tolower(ks->owner, ks->owner_len);
	ks->klass = (uint16_t)ldns_rr_get_class(ldns_rr_list_rr(dnskeys, 0));
	ks->keys = (struct val_key*)(ks + 1);
	ks->count = n;
	ks->ttl = UINT32_MAX;
	rd = (uint8_t*)(ks->keys + n);
	off = 0;
	for(i = 0; i < n; i++) {
		const ldns_rr* rr = ldns_rr_list_rr(dnskeys, i);
		struct val_key* k = &ks->keys[i];
		size_t len = rr_rdata_len(rr);
		k->rdata = rd + off;
		for(j = 0; j < ldns_rr_rd_count(rr) && len; j++) {
			const ldns_rdf* f = ldns_rr_rdf(rr, j);
			memcpy(rd + off, ldns_rdf_data(f), ldns_rdf_size(f));
			off += ldns_rdf_size(f);
		}
		k->rdlen = (uint16_t)len;
		if(len >= 4) {
			k->flags = (uint16_t)((k->rdata[0] << 8) | k->rdata[1]);
			k->proto = k->rdata[2];
			k->alg = k->rdata[3];
			k->tag = val_keytag(k->rdata, len);
		}
		if(ldns_rr_ttl(rr) < ks->ttl)
			ks->ttl = ldns_rr_ttl(rr);
	}
	return ks;
}

void val_keyset_delete(struct val_keyset* ks)
{
	size_t i;
	if(!ks)
		return;
	if(ks->refs > 0) {
		ks->refs--;
		return;
	}
	for(i = 0; i < ks->count; i++) {
		EVP_PKEY* p = ks->keys[i].pkey;
		if(p && p != VAL_PKEY_BAD)
			EVP_PKEY_free(p);
	}
	free(ks);
}

/* Does ks hold exactly the DNSKEY RRs of dnskeys (owner, class, RDATA
 * and order)? */
static int keyset_is(const struct val_keyset* ks, const ldns_rr_list* dnskeys)
{
	size_t i, j, n = ldns_rr_list_rr_count(dnskeys);
	const ldns_rdf* owner;
	uint8_t lower[LDNS_MAX_DOMAINLEN + 1];
	if(n != ks->count || n == 0)
		return 0;
	owner = ldns_rr_owner(ldns_rr_list_rr(dnskeys, 0));
	if(!owner || ldns_rdf_size(owner) != ks->owner_len)
		return 0;
	memcpy(lower, ldns_rdf_data(owner), ks->owner_len);
	val_dname_tolower(lower, ks->owner_len);
	if(memcmp(lower, ks->owner, ks->owner_len) != 0)
		return 0;
	for(i = 0; i < n; i++) {
		const ldns_rr* rr = ldns_rr_list_rr(dnskeys, i);
		const struct val_key* k = &ks->keys[i];
		size_t off = 0;
		if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_DNSKEY ||
			(uint16_t)ldns_rr_get_class(rr) != ks->klass ||
			ldns_dname_compare(ldns_rr_owner(rr), owner) != 0 ||
			rr_rdata_len(rr) != k->rdlen)
			return 0;
		for(j = 0; j < ldns_rr_rd_count(rr); j++) {
			const ldns_rdf* f = ldns_rr_rdf(rr, j);
			if(memcmp(k->rdata + off, ldns_rdf_data(f),
				ldns_rdf_size(f)) != 0)
				return 0;
			off += ldns_rdf_size(f);
		}
	}
	return 1;
}

struct val_keyset* val_sig_ctx_keyset(struct val_sig_ctx* ctx,
	const ldns_rr_list* dnskeys)
{
	size_t i;
	struct val_keyset* ks;
	unsigned slot;
	if(!dnskeys || ldns_rr_list_rr_count(dnskeys) == 0)
		return NULL;
	for(i = 0; i < VAL_KSCACHE_SLOTS; i++) {
		ks = ctx->kscache[i];
		if(ks && keyset_is(ks, dnskeys)) {
			ks->refs++;
			return ks;
		}
	}
	if(!(ks = val_keyset_create(dnskeys)))
		return NULL;
	slot = ctx->kscache_next++ % VAL_KSCACHE_SLOTS;
	val_keyset_delete(ctx->kscache[slot]);   /* the cache's reference */
	ctx->kscache[slot] = ks;
	ks->refs++;                             /* and the caller's */
	return ks;
}

void val_sig_ctx_keysets_clear(struct val_sig_ctx* ctx)
{
	size_t i;
	for(i = 0; i < VAL_KSCACHE_SLOTS; i++) {
		val_keyset_delete(ctx->kscache[i]);
		ctx->kscache[i] = NULL;
	}
}

size_t val_keyset_count(const struct val_keyset* ks)
{
	return ks ? ks->count : 0;
}

const uint8_t* val_keyset_owner(const struct val_keyset* ks, size_t* len)
{
	*len = ks->owner_len;
	return ks->owner;
}

const uint8_t* val_keyset_needed_algos(const struct val_keyset* ks)
{
	return ks->needed;
}

EVP_PKEY* val_key_pkey(const struct val_key* k)
{
	/* the key set is shared read-only; only this slot is written,
	 * once, by whichever thread parses the key first */
	EVP_PKEY** slot = (EVP_PKEY**)&k->pkey;
	EVP_PKEY* p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	EVP_PKEY* expected = NULL;
	EVP_PKEY* store;
	if(p)
		return p == VAL_PKEY_BAD ? NULL : p;
	p = NULL;
	if(val_algo_supported(k->alg) && k->rdlen > 4)
		p = val_pkey_from_dnskey(k->alg, k->rdata + 4,
			(size_t)k->rdlen - 4);
	store = p ? p : VAL_PKEY_BAD;
	if(!__atomic_compare_exchange_n(slot, &expected, store, 0,
		__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		/* another thread was first: use its result */
		EVP_PKEY_free(p);
		return expected == VAL_PKEY_BAD ? NULL : expected;
	}
	return p;
}
