/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_canon.c - the data an RRSIG signs (RFC 4034 3.1.8.1):
 * RRSIG rdata without the signature, then the RRset in canonical form
 * (6.2: lowercase owner, lowercase names in the rdata of the types RFC
 * 4034 6.2 lists as amended by RFC 6840 5.1, original TTL) and canonical
 * order (6.3), duplicates removed. The RRset's rdata is made canonical
 * and sorted once; each RRSIG then only adds its header and owner. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "validator/val_sig_int.h"

void val_dname_tolower(uint8_t* name, size_t len)
{
	size_t i;
	for(i = 0; i < len; i++)
		if(name[i] >= 'A' && name[i] <= 'Z')
			name[i] += 'a' - 'A';
}

int val_dname_signame_labels(const uint8_t* name, size_t len)
{
	size_t pos = 0;
	int n = 0;
	while(pos < len && name[pos] != 0) {
		pos += (size_t)name[pos] + 1;
		n++;
	}
	if(n > 0 && name[0] == 1 && len > 1 && name[1] == '*')
		n--;
	return n;
}

/* RFC 4034 6.2 item 3 with RFC 6840 5.1: NSEC's next name keeps its
 * case, RRSIG's signer is lowercased. */
static int type_has_canonical_names(uint16_t t)
{
	switch(t) {
	case LDNS_RR_TYPE_NS:
	case LDNS_RR_TYPE_MD:
	case LDNS_RR_TYPE_MF:
	case LDNS_RR_TYPE_CNAME:
	case LDNS_RR_TYPE_SOA:
	case LDNS_RR_TYPE_MB:
	case LDNS_RR_TYPE_MG:
	case LDNS_RR_TYPE_MR:
	case LDNS_RR_TYPE_PTR:
	case LDNS_RR_TYPE_MINFO:
	case LDNS_RR_TYPE_MX:
	case LDNS_RR_TYPE_RP:
	case LDNS_RR_TYPE_AFSDB:
	case LDNS_RR_TYPE_RT:
	case LDNS_RR_TYPE_SIG:
	case LDNS_RR_TYPE_PX:
	case LDNS_RR_TYPE_NXT:
	case LDNS_RR_TYPE_NAPTR:
	case LDNS_RR_TYPE_KX:
	case LDNS_RR_TYPE_SRV:
	case LDNS_RR_TYPE_DNAME:
	case LDNS_RR_TYPE_A6:
	case LDNS_RR_TYPE_RRSIG:
		return 1;
	default:
		return 0;
	}
}

int val_rrsig_parse(const ldns_rr* rr, struct val_rrsig* s)
{
	static const size_t sizes[7] = {2, 1, 1, 4, 4, 4, 2};
	size_t i, off = 0;
	const ldns_rdf* f;
	if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_RRSIG ||
		ldns_rr_rd_count(rr) != 9)
		return 0;
	for(i = 0; i < 7; i++) {
		f = ldns_rr_rdf(rr, i);
		if(ldns_rdf_size(f) != sizes[i])
			return 0;
		memcpy(s->prefix + off, ldns_rdf_data(f), sizes[i]);
		off += sizes[i];
	}
	s->covered = (uint16_t)((s->prefix[0] << 8) | s->prefix[1]);
	s->alg = s->prefix[2];
	s->labels = s->prefix[3];
	s->origttl = ldns_read_uint32(s->prefix + 4);
	s->expiration = ldns_read_uint32(s->prefix + 8);
	s->inception = ldns_read_uint32(s->prefix + 12);
	s->tag = ldns_read_uint16(s->prefix + 16);
	s->ttl = ldns_rr_ttl(rr);
	f = ldns_rr_rdf(rr, 7);
	if(ldns_rdf_get_type(f) != LDNS_RDF_TYPE_DNAME ||
		ldns_rdf_size(f) < 1 || ldns_rdf_size(f) > sizeof(s->signer))
		return 0;
	s->signer_len = ldns_rdf_size(f);
	memcpy(s->signer, ldns_rdf_data(f), s->signer_len);
	val_dname_tolower(s->signer, s->signer_len);
	f = ldns_rr_rdf(rr, 8);
	s->sig = ldns_rdf_data(f);
	s->siglen = ldns_rdf_size(f);
	return s->siglen > 0;
}

/* the sort compares rdata inside the context's buffer */
static _Thread_local const uint8_t* sort_base;

static int canon_cmp(const void* a, const void* b)
{
	const struct val_canon_rr* x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(sort_base + x->off, sort_base + y->off, n);
	if(c != 0)
		return c;
	return (int)x->len - (int)y->len;
}

/* append rr's canonical rdata to ctx->rd at *off; 1 ok, 0 oversize,
 * -1 no memory */
static int canon_rdata(struct val_sig_ctx* ctx, const ldns_rr* rr,
	int lower, size_t* off, uint16_t* len)
{
	size_t i, start = *off, sz;
	for(i = 0; i < ldns_rr_rd_count(rr); i++) {
		const ldns_rdf* f = ldns_rr_rdf(rr, i);
		sz = ldns_rdf_size(f);
		if(!val_ctx_reserve(&ctx->rd, &ctx->rdcap, *off + sz))
			return -1;
		memcpy(ctx->rd + *off, ldns_rdf_data(f), sz);
		if(lower && ldns_rdf_get_type(f) == LDNS_RDF_TYPE_DNAME)
			val_dname_tolower(ctx->rd + *off, sz);
		*off += sz;
	}
	if(*off - start > 65535)
		return 0;
	*len = (uint16_t)(*off - start);
	return 1;
}

int val_canon_rrset(struct val_sig_ctx* ctx, const ldns_rr_list* rrset)
{
	size_t i, n, off = 0, w;
	const ldns_rr* first;
	const ldns_rdf* owner;
	int lower, r;
	ctx->nrr = 0;
	if(!rrset || (n = ldns_rr_list_rr_count(rrset)) == 0)
		return 0;
	first = ldns_rr_list_rr(rrset, 0);
	owner = ldns_rr_owner(first);
	if(!owner || ldns_rdf_size(owner) > sizeof(ctx->owner) ||
		ldns_rdf_size(owner) < 1)
		return 0;
	ctx->owner_len = ldns_rdf_size(owner);
	memcpy(ctx->owner, ldns_rdf_data(owner), ctx->owner_len);
	val_dname_tolower(ctx->owner, ctx->owner_len);
	ctx->owner_labels = val_dname_signame_labels(ctx->owner,
		ctx->owner_len);
	ctx->type = (uint16_t)ldns_rr_get_type(first);
	ctx->klass = (uint16_t)ldns_rr_get_class(first);
	ctx->ttl = UINT32_MAX;
	lower = type_has_canonical_names(ctx->type);
	if(n > ctx->rrcap) {
		struct val_canon_rr* a = realloc(ctx->rrs, n*sizeof(*a));
		if(!a)
			return -1;
		ctx->rrs = a;
		ctx->rrcap = n;
	}
	for(i = 0; i < n; i++) {
		const ldns_rr* rr = ldns_rr_list_rr(rrset, i);
		if((uint16_t)ldns_rr_get_type(rr) != ctx->type ||
			(uint16_t)ldns_rr_get_class(rr) != ctx->klass ||
			(i > 0 && ldns_dname_compare(ldns_rr_owner(rr), owner)
			!= 0))
			return 0;
		if(ldns_rr_ttl(rr) < ctx->ttl)
			ctx->ttl = ldns_rr_ttl(rr);
		ctx->rrs[i].off = off;
		if((r = canon_rdata(ctx, rr, lower, &off, &ctx->rrs[i].len))
			!= 1)
			return r;
	}
	if(n > 1) {
		sort_base = ctx->rd;
		qsort(ctx->rrs, n, sizeof(*ctx->rrs), canon_cmp);
	}
	/* RFC 4034 6.3: duplicate RRs are not part of the signed data */
	for(i = 1, w = 1; i < n; i++) {
		const struct val_canon_rr* p = &ctx->rrs[w-1], *c = &ctx->rrs[i];
		if(p->len == c->len && memcmp(ctx->rd + p->off,
			ctx->rd + c->off, c->len) == 0)
			continue;
		ctx->rrs[w++] = *c;
	}
	ctx->nrr = w;
	return 1;
}

/* The owner the signature covers: the owner itself, or for a wildcard
 * expansion "*." and the rightmost labels labels of it (RFC 4035 5.3.2).
 * Writes into out (LDNS_MAX_DOMAINLEN+1), returns the length. */
static size_t signed_owner(const struct val_sig_ctx* ctx, int labels,
	uint8_t* out)
{
	size_t pos = 0;
	int strip;
	if(labels >= ctx->owner_labels) {
		memcpy(out, ctx->owner, ctx->owner_len);
		return ctx->owner_len;
	}
	/* the owner's labels counting a leading '*', not the root */
	strip = val_dname_signame_labels(ctx->owner, ctx->owner_len);
	if(ctx->owner[0] == 1 && ctx->owner[1] == '*')
		strip++;
	strip -= labels;
	while(strip-- > 0)
		pos += (size_t)ctx->owner[pos] + 1;
	out[0] = 1;
	out[1] = '*';
	memcpy(out + 2, ctx->owner + pos, ctx->owner_len - pos);
	return 2 + ctx->owner_len - pos;
}

size_t val_wildcard_of(const struct val_sig_ctx* ctx, int labels,
	uint8_t* out)
{
	if(labels >= ctx->owner_labels)
		return 0;
	return signed_owner(ctx, labels, out);
}

size_t val_canon_signed_data(struct val_sig_ctx* ctx,
	const struct val_rrsig* sig)
{
	uint8_t own[LDNS_MAX_DOMAINLEN + 3];
	size_t own_len = signed_owner(ctx, sig->labels, own);
	size_t i, need = 18 + sig->signer_len, pos;
	uint8_t hdr[10];
	for(i = 0; i < ctx->nrr; i++)
		need += own_len + 10 + ctx->rrs[i].len;
	if(!val_ctx_reserve(&ctx->buf, &ctx->cap, need))
		return 0;
	memcpy(ctx->buf, sig->prefix, 18);
	memcpy(ctx->buf + 18, sig->signer, sig->signer_len);
	pos = 18 + sig->signer_len;
	ldns_write_uint16(hdr, ctx->type);
	ldns_write_uint16(hdr + 2, ctx->klass);
	ldns_write_uint32(hdr + 4, sig->origttl);
	for(i = 0; i < ctx->nrr; i++) {
		memcpy(ctx->buf + pos, own, own_len);
		pos += own_len;
		ldns_write_uint16(hdr + 8, ctx->rrs[i].len);
		memcpy(ctx->buf + pos, hdr, 10);
		pos += 10;
		memcpy(ctx->buf + pos, ctx->rd + ctx->rrs[i].off,
			ctx->rrs[i].len);
		pos += ctx->rrs[i].len;
	}
	return pos;
}

int val_rrset_wildcard(const ldns_rr_list* rrset, const ldns_rr_list* rrsigs,
	uint8_t* wc, size_t* wc_len)
{
	struct val_sig_ctx tmp; /* only the owner fields are used */
	const ldns_rr* first;
	const ldns_rdf* o;
	size_t i, n = rrsigs ? ldns_rr_list_rr_count(rrsigs) : 0;
	int labels = -1;
	*wc_len = 0;
	if(!rrset || ldns_rr_list_rr_count(rrset) == 0)
		return 0;
	first = ldns_rr_list_rr(rrset, 0);
	o = ldns_rr_owner(first);
	if(!o || ldns_rdf_size(o) < 1 || ldns_rdf_size(o) > sizeof(tmp.owner))
		return 0;
	for(i = 0; i < n; i++) {
		const ldns_rr* s = ldns_rr_list_rr(rrsigs, i);
		const ldns_rdf* f;
		if(ldns_rr_get_type(s) != LDNS_RR_TYPE_RRSIG ||
			ldns_rr_rd_count(s) < 3)
			continue;
		f = ldns_rr_rdf(s, 0);
		if(ldns_rdf_size(f) != 2 || ldns_read_uint16(ldns_rdf_data(f))
			!= (uint16_t)ldns_rr_get_type(first))
			continue;
		f = ldns_rr_rdf(s, 2);
		if(ldns_rdf_size(f) != 1)
			return -1;
		if(labels >= 0 && labels != ldns_rdf_data(f)[0])
			return -1;
		labels = ldns_rdf_data(f)[0];
	}
	if(labels < 0)
		return 0;
	tmp.owner_len = ldns_rdf_size(o);
	memcpy(tmp.owner, ldns_rdf_data(o), tmp.owner_len);
	val_dname_tolower(tmp.owner, tmp.owner_len);
	tmp.owner_labels = val_dname_signame_labels(tmp.owner, tmp.owner_len);
	*wc_len = val_wildcard_of(&tmp, labels, wc);
	return *wc_len ? 1 : 0;
}
