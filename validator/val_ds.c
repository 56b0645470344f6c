/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_ds.c - trust in a DNSKEY RRset: from the parent's DS set
 * (the favourite digest only, RFC 4509 3), or from anchor DNSKEYs, with
 * harden-algo-downgrade and the KeyTrap limit on failed DS matches. */
#include "config.h"
#include <string.h>
#include "validator/val_sig_int.h"

struct ds_fields {
	uint16_t tag;
	uint8_t alg;
	uint8_t digest_type;
	const uint8_t* digest;
	size_t len;
};

static int ds_parse(const ldns_rr* rr, struct ds_fields* d)
{
	if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_DS ||
		ldns_rr_rd_count(rr) != 4 ||
		ldns_rdf_size(ldns_rr_rdf(rr, 0)) != 2 ||
		ldns_rdf_size(ldns_rr_rdf(rr, 1)) != 1 ||
		ldns_rdf_size(ldns_rr_rdf(rr, 2)) != 1)
		return 0;
	d->tag = ldns_read_uint16(ldns_rdf_data(ldns_rr_rdf(rr, 0)));
	d->alg = ldns_rdf_data(ldns_rr_rdf(rr, 1))[0];
	d->digest_type = ldns_rdf_data(ldns_rr_rdf(rr, 2))[0];
	d->digest = ldns_rdf_data(ldns_rr_rdf(rr, 3));
	d->len = ldns_rdf_size(ldns_rr_rdf(rr, 3));
	return 1;
}

static int ds_usable(const struct ds_fields* d)
{
	return val_ds_digest_supported(d->digest_type) &&
		val_algo_supported(d->alg);
}

int val_favorite_ds_digest(const ldns_rr_list* ds)
{
	size_t i, n = ds ? ldns_rr_list_rr_count(ds) : 0;
	int best = 0;
	struct ds_fields d;
	for(i = 0; i < n; i++)
		if(ds_parse(ldns_rr_list_rr(ds, i), &d) && ds_usable(&d) &&
			d.digest_type > best)
			best = d.digest_type;
	return best;
}

int val_dsset_usable(const ldns_rr_list* ds)
{
	return val_favorite_ds_digest(ds) != 0;
}

/* does the key's digest equal the DS's */
static int ds_key_digest_match(struct val_sig_ctx* ctx,
	const struct val_keyset* ks, const struct val_key* k,
	const struct ds_fields* d)
{
	uint8_t dig[EVP_MAX_MD_SIZE];
	size_t len = val_crypto_digest2(ctx, d->digest_type, ks->owner,
		ks->owner_len, k->rdata, k->rdlen, dig);
	return len != 0 && len == d->len && memcmp(dig, d->digest, len) == 0;
}

size_t val_dnskey_digest(struct val_sig_ctx* ctx, const ldns_rr* dnskey,
	int digest_type, uint8_t* out)
{
	uint8_t owner[LDNS_MAX_DOMAINLEN + 1];
	const ldns_rdf* o = ldns_rr_owner(dnskey);
	size_t i, pos = 0;
	if(!o || ldns_rdf_size(o) > sizeof(owner))
		return 0;
	memcpy(owner, ldns_rdf_data(o), ldns_rdf_size(o));
	val_dname_tolower(owner, ldns_rdf_size(o));
	for(i = 0; i < ldns_rr_rd_count(dnskey); i++) {
		const ldns_rdf* f = ldns_rr_rdf(dnskey, i);
		if(!val_ctx_reserve(&ctx->buf, &ctx->cap, pos +
			ldns_rdf_size(f)))
			return 0;
		memcpy(ctx->buf + pos, ldns_rdf_data(f), ldns_rdf_size(f));
		pos += ldns_rdf_size(f);
	}
	return val_crypto_digest2(ctx, digest_type, owner, ldns_rdf_size(o),
		ctx->buf, pos, out);
}

int val_ds_match_dnskey(struct val_sig_ctx* ctx, const ldns_rr* ds,
	const ldns_rr* dnskey)
{
	struct ds_fields d;
	uint8_t dig[EVP_MAX_MD_SIZE];
	size_t i, pos = 0, len;
	if(!ds_parse(ds, &d) || !val_ds_digest_supported(d.digest_type) ||
		ldns_rr_get_type(dnskey) != LDNS_RR_TYPE_DNSKEY ||
		ldns_dname_compare(ldns_rr_owner(ds), ldns_rr_owner(dnskey))
		!= 0)
		return 0;
	len = val_dnskey_digest(ctx, dnskey, d.digest_type, dig);
	/* the rdata is still in ctx->buf from the digest */
	for(i = 0; i < ldns_rr_rd_count(dnskey); i++)
		pos += ldns_rdf_size(ldns_rr_rdf(dnskey, i));
	if(pos < 4 || ctx->buf[3] != d.alg ||
		val_keytag(ctx->buf, pos) != d.tag)
		return 0;
	return len != 0 && len == d.len && memcmp(dig, d.digest, len) == 0;
}

static void set_reason(struct val_verify_result* res, const char* text,
	enum val_ede ede)
{
	res->reason.text = text;
	res->reason.ede = ede;
}

static void result_init(struct val_verify_result* res)
{
	memset(&res->reason, 0, sizeof(res->reason));
	res->reason.ede = VAL_EDE_NONE;
	res->ttl = 0;
	res->verifications = 0;
	res->budget_exhausted = 0;
	res->wildcard_len = 0;
}

/* what a DNSKEY check shares over its DS or anchor loop */
struct key_check {
	struct val_sig_ctx* ctx;
	const ldns_rr_list* rrsigs;
	const struct val_sig_settings* set;
	time_t now;
	int max_checks;
	int checks;
	int ds_fail_max;
	int ds_fails;
	struct val_verify_result* res;
};

/* compat: unbound-1.17: The DNSKEY RRset (ks, canonical in ctx) against one
 * DS: a key with its tag and algorithm whose digest matches must sign the
 * RRset (as Unbound's verify_dnskeys_with_ds_rr). */
static enum sec_status with_ds_rr(struct key_check* kc,
	const struct val_keyset* ks, const struct ds_fields* d)
{
	size_t i;
	int numchecked = 0, numhashok = 0;
	for(i = 0; i < ks->count; i++) {
		const struct val_key* k = &ks->keys[i];
		if(k->alg != d->alg || k->tag != d->tag || k->rdlen < 4 ||
			(k->flags & VAL_DNSKEY_REVOKE))
			continue;
		numchecked++;
		if(kc->ds_fails >= kc->ds_fail_max)
			break; /* KeyTrap: key tag collisions */
		if(!ds_key_digest_match(kc->ctx, ks, k, d)) {
			kc->ds_fails++;
			continue;
		}
		numhashok++;
		if(val_verify_canon(kc->ctx, kc->rrsigs, ks, (int)i, NULL, 1,
			kc->set, kc->now, kc->max_checks, &kc->checks,
			kc->res) == SEC_SECURE)
			return SEC_SECURE;
		if(kc->checks >= kc->max_checks)
			break;
	}
	if(numchecked == 0)
		set_reason(kc->res, val_algo_reason(VAL_AR_NO_DS, d->alg),
			VAL_EDE_DNSKEY_MISSING);
	else if(numhashok == 0)
		set_reason(kc->res, "DS hash mismatches key",
			VAL_EDE_DNSKEY_MISSING);
	else if(!kc->res->reason.text)
		set_reason(kc->res, "keyset not secured by DNSKEY that matches"
			" DS", VAL_EDE_DNSSEC_BOGUS);
	return SEC_BOGUS;
}

/* add alg to a 0-terminated list once */
static void needed_add(uint8_t* list, uint8_t alg)
{
	int i;
	for(i = 0; list[i]; i++)
		if(list[i] == alg)
			return;
	if(i < VAL_NEEDED_MAX - 1) {
		list[i] = alg;
		list[i+1] = 0;
	}
}

/* compat: unbound-1.17: algorithm bookkeeping over the needed list (Unbound's
 * algo_needs): state 0 not yet seen, 1 bogus, 2 secure. 1 when every needed
 * algorithm is secure now that alg is. */
static int needed_done(uint8_t* state, const uint8_t* list, uint8_t alg)
{
	int i;
	state[alg] = 2;
	for(i = 0; list[i]; i++)
		if(state[list[i]] != 2)
			return 0;
	return 1;
}

static void needed_bogus(uint8_t* state, uint8_t alg)
{
	if(state[alg] != 2)
		state[alg] = 1;
}

/* compat: unbound-1.17: As Unbound: when a needed algorithm failed, its reason
 * stands; else name the first algorithm that was never verified. */
static void needed_reason(const uint8_t* state, const uint8_t* list,
	struct val_verify_result* res)
{
	int i;
	for(i = 0; list[i]; i++)
		if(state[list[i]] == 1)
			return;
	for(i = 0; list[i]; i++)
		if(state[list[i]] == 0) {
			set_reason(res, val_algo_reason(VAL_AR_MISSING_DNSKEY,
				list[i]), VAL_EDE_DNSSEC_BOGUS);
			return;
		}
}

static void kc_init(struct key_check* kc, struct val_sig_ctx* ctx,
	const ldns_rr_list* rrsigs, const struct val_sig_settings* set,
	time_t now, struct val_budget* budget, struct val_verify_result* res)
{
	kc->ctx = ctx;
	kc->rrsigs = rrsigs;
	kc->set = set;
	kc->now = now;
	kc->max_checks = budget ? budget->rrset_max : VAL_MAX_VERIFY_PER_RRSET;
	kc->ds_fail_max = budget ? budget->ds_fail_max :
		VAL_MAX_DS_MATCH_FAILURES;
	kc->checks = 0;
	kc->ds_fails = 0;
	kc->res = res;
}

static void kc_done(struct key_check* kc, struct val_budget* budget)
{
	kc->res->verifications = kc->checks;
	if(budget) {
		budget->msg_used += kc->checks;
		budget->total += kc->checks;
		budget->ds_fails += kc->ds_fails;
	}
}

/* the DNSKEY RRset as a key set, canonical in ctx; NULL (reason set)
 * when it is missing or malformed */
static struct val_keyset* dnskeys_prepare(struct val_sig_ctx* ctx,
	const ldns_rr_list* dnskeys, struct val_verify_result* res)
{
	struct val_keyset* ks;
	int r;
	if(!dnskeys || ldns_rr_list_rr_count(dnskeys) == 0) {
		set_reason(res, "No DNSKEY record", VAL_EDE_DNSKEY_MISSING);
		return NULL;
	}
	if(!(ks = val_keyset_create(dnskeys))) {
		set_reason(res, "malformed DNSKEY RRset", VAL_EDE_DNSSEC_BOGUS);
		return NULL;
	}
	if((r = val_canon_rrset(ctx, dnskeys)) != 1) {
		set_reason(res, r < 0 ? "out of memory" :
			"malformed DNSKEY RRset", r < 0 ? VAL_EDE_OTHER :
			VAL_EDE_DNSSEC_BOGUS);
		val_keyset_delete(ks);
		return NULL;
	}
	return ks;
}

static enum sec_status key_secure(struct val_keyset* ks,
	const uint8_t* needed, int harden, struct val_verify_result* res,
	struct val_keyset** keys_out)
{
	if(harden)
		memcpy(ks->needed, needed, VAL_NEEDED_MAX);
	set_reason(res, NULL, VAL_EDE_NONE);
	if(keys_out)
		*keys_out = ks;
	else	val_keyset_delete(ks);
	return SEC_SECURE;
}

static int same_owner(const struct val_keyset* ks, const ldns_rr* rr)
{
	uint8_t o[LDNS_MAX_DOMAINLEN + 1];
	const ldns_rdf* f = ldns_rr_owner(rr);
	if(!f || ldns_rdf_size(f) != ks->owner_len)
		return 0;
	memcpy(o, ldns_rdf_data(f), ks->owner_len);
	val_dname_tolower(o, ks->owner_len);
	return memcmp(o, ks->owner, ks->owner_len) == 0;
}

enum sec_status val_verify_dnskey_with_ds(struct val_sig_ctx* ctx,
	const ldns_rr_list* dnskeys, const ldns_rr_list* rrsigs,
	const ldns_rr_list* ds, const struct val_sig_settings* set,
	time_t now, struct val_budget* budget, struct val_verify_result* res,
	struct val_keyset** keys_out)
{
	struct val_keyset* ks;
	struct key_check kc;
	struct ds_fields d;
	uint8_t needed[VAL_NEEDED_MAX] = {0}, state[256] = {0};
	size_t i, n = ds ? ldns_rr_list_rr_count(ds) : 0;
	int fav, harden = set->harden_algo_downgrade, any_digest = 0;
	enum sec_status sec;

	result_init(res);
	if(keys_out)
		*keys_out = NULL;
	fav = val_favorite_ds_digest(ds);
	if(fav == 0) {
		/* RFC 4035 5.2, RFC 6840 5.2: an unsupported algorithm or
		 * digest only is as if unsigned */
		for(i = 0; i < n; i++)
			if(ds_parse(ldns_rr_list_rr(ds, i), &d) &&
				val_ds_digest_supported(d.digest_type))
				any_digest = 1;
		if(any_digest || n == 0)
			set_reason(res, "no supported DNSKEY algorithm in DS",
				VAL_EDE_UNSUPPORTED_DNSKEY_ALG);
		else	set_reason(res, "no supported DS digest",
				VAL_EDE_UNSUPPORTED_DS_DIGEST);
		return SEC_INSECURE;
	}
	if(!(ks = dnskeys_prepare(ctx, dnskeys, res)))
		return SEC_BOGUS;
	if(!same_owner(ks, ldns_rr_list_rr(ds, 0))) {
		set_reason(res, "DNSKEY RRset did not match DS RRset by name",
			VAL_EDE_DNSSEC_BOGUS);
		val_keyset_delete(ks);
		return SEC_BOGUS;
	}
	for(i = 0; i < n; i++)
		if(ds_parse(ldns_rr_list_rr(ds, i), &d) && ds_usable(&d) &&
			d.digest_type == fav)
			needed_add(needed, d.alg);
	kc_init(&kc, ctx, rrsigs, set, now, budget, res);
	for(i = 0; i < n; i++) {
		if(!ds_parse(ldns_rr_list_rr(ds, i), &d) || !ds_usable(&d) ||
			d.digest_type != fav)
			continue; /* RFC 4509 3: weaker digests are ignored */
		sec = with_ds_rr(&kc, ks, &d);
		if(sec == SEC_SECURE && (!harden ||
			needed_done(state, needed, d.alg))) {
			kc_done(&kc, budget);
			return key_secure(ks, needed, harden, res, keys_out);
		}
		if(sec != SEC_SECURE)
			needed_bogus(state, d.alg);
		if(kc.checks >= kc.max_checks || kc.ds_fails >= kc.ds_fail_max)
			break;
	}
	kc_done(&kc, budget);
	val_keyset_delete(ks);
	if(kc.checks >= kc.max_checks)
		set_reason(res, "too many RRSIG validations",
			VAL_EDE_DNSSEC_BOGUS);
	else if(harden)
		needed_reason(state, needed, res);
	return SEC_BOGUS;
}

enum sec_status val_verify_dnskey_with_keys(struct val_sig_ctx* ctx,
	const ldns_rr_list* dnskeys, const ldns_rr_list* rrsigs,
	const ldns_rr_list* anchor, const struct val_sig_settings* set,
	time_t now, struct val_budget* budget, struct val_verify_result* res,
	struct val_keyset** keys_out)
{
	struct val_keyset* ks, *ta;
	struct key_check kc;
	uint8_t needed[VAL_NEEDED_MAX] = {0}, state[256] = {0};
	size_t i;
	int useful = 0, harden = set->harden_algo_downgrade;

	result_init(res);
	if(keys_out)
		*keys_out = NULL;
	if(!(ta = val_keyset_create(anchor))) {
		set_reason(res, "no usable trust anchors",
			VAL_EDE_UNSUPPORTED_DNSKEY_ALG);
		return SEC_INSECURE;
	}
	for(i = 0; i < ta->count; i++)
		if(val_algo_supported(ta->keys[i].alg))
			needed_add(needed, ta->keys[i].alg);
	if(!needed[0]) {
		val_keyset_delete(ta);
		set_reason(res, "no usable trust anchors",
			VAL_EDE_UNSUPPORTED_DNSKEY_ALG);
		return SEC_INSECURE;
	}
	if(!(ks = dnskeys_prepare(ctx, dnskeys, res))) {
		val_keyset_delete(ta);
		return SEC_BOGUS;
	}
	if(ks->owner_len != ta->owner_len ||
		memcmp(ks->owner, ta->owner, ta->owner_len) != 0) {
		set_reason(res, "DNSKEY RRset did not match anchor RRset by "
			"name", VAL_EDE_DNSSEC_BOGUS);
		val_keyset_delete(ks);
		val_keyset_delete(ta);
		return SEC_BOGUS;
	}
	kc_init(&kc, ctx, rrsigs, set, now, budget, res);
	for(i = 0; i < ta->count; i++) {
		const struct val_key* k = &ta->keys[i];
		if(!val_algo_supported(k->alg) ||
			(k->flags & VAL_DNSKEY_REVOKE))
			continue;
		useful = 1;
		/* the anchor key signs the DNSKEY RRset: canonical in ctx */
		if(val_verify_canon(ctx, rrsigs, ta, (int)i, NULL, 0, set,
			now, kc.max_checks, &kc.checks, res) == SEC_SECURE) {
			if(!harden || needed_done(state, needed, k->alg)) {
				kc_done(&kc, budget);
				val_keyset_delete(ta);
				return key_secure(ks, needed, harden, res,
					keys_out);
			}
		} else	needed_bogus(state, k->alg);
		if(kc.checks >= kc.max_checks)
			break;
	}
	kc_done(&kc, budget);
	val_keyset_delete(ta);
	val_keyset_delete(ks);
	if(!useful) {
		set_reason(res, "no usable trust anchors",
			VAL_EDE_UNSUPPORTED_DNSKEY_ALG);
		return SEC_INSECURE;
	}
	if(kc.checks >= kc.max_checks)
		set_reason(res, "too many RRSIG validations",
			VAL_EDE_DNSSEC_BOGUS);
	else if(harden)
		needed_reason(state, needed, res);
	return SEC_BOGUS;
}
