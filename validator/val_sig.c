/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_sig.c - compat: unbound-1.17: verify an RRset's RRSIGs with a
 * trusted key set: which signatures and keys may be tried, their dates with
 * clock skew, the KeyTrap budget, the TTL of a verified RRset and the reason
 * (Unbound's wording, RFC 8914 code) when none verifies. */
#include "config.h"
#include <string.h>
#include "validator/val_sig_int.h"

void val_sig_settings_init(struct val_sig_settings* s)
{
	memset(s, 0, sizeof(*s));
	s->skew_min = 3600;
	s->skew_max = 86400;
}

void val_budget_init(struct val_budget* b)
{
	memset(b, 0, sizeof(*b));
	b->rrset_max = VAL_MAX_VERIFY_PER_RRSET;
	b->msg_max = VAL_MAX_VERIFY_PER_MSG;
	b->ds_fail_max = VAL_MAX_DS_MATCH_FAILURES;
	b->suspend_max = VAL_MAX_SUSPENDS;
}

int val_budget_exhausted(const struct val_budget* b)
{
	return b->msg_used >= b->msg_max;
}

int val_budget_resume(struct val_budget* b)
{
	b->msg_used = 0;
	b->suspends++;
	return b->suspends <= b->suspend_max;
}

struct val_reason val_budget_reason(void)
{
	struct val_reason r = { "max validation suspends reached, too many "
		"RRSIG validations", VAL_EDE_DNSSEC_BOGUS };
	return r;
}

static void set_reason(struct val_verify_result* res, const char* text,
	enum val_ede ede)
{
	res->reason.text = text;
	res->reason.ede = ede;
}

/* compat: unbound-1.17: "<prefix> with algorithm <name>" as static strings
 * (Unbound builds them with snprintf; the needed lists only hold supported
 * algorithms). */
#define ALGO_REASONS(p) { p " with algorithm RSASHA1", \
	p " with algorithm RSASHA1-NSEC3-SHA1", \
	p " with algorithm RSASHA256", p " with algorithm RSASHA512", \
	p " with algorithm ECDSAP256SHA256", \
	p " with algorithm ECDSAP384SHA384", \
	p " with algorithm ED25519", p " with algorithm ED448", p }
static const char* const algo_reasons[3][9] = {
	ALGO_REASONS("no signatures"),
	ALGO_REASONS("no keys have a DS"),
	ALGO_REASONS("missing verification of DNSKEY signature")
};

const char* val_algo_reason(int which, int alg)
{
	int i;
	switch(alg) {
	case LDNS_RSASHA1: i = 0; break;
	case LDNS_RSASHA1_NSEC3: i = 1; break;
	case LDNS_RSASHA256: i = 2; break;
	case LDNS_RSASHA512: i = 3; break;
	case LDNS_ECDSAP256SHA256: i = 4; break;
	case LDNS_ECDSAP384SHA384: i = 5; break;
	case LDNS_ED25519: i = 6; break;
	case LDNS_ED448: i = 7; break;
	default: i = 8; break;
	}
	return algo_reasons[which][i];
}

/* RFC 1982 serial number comparison of 32-bit times */
static int serial_cmp(uint32_t a, uint32_t b)
{
	if(a == b)
		return 0;
	return (int32_t)(a - b) > 0 ? 1 : -1;
}

/* compat: unbound-1.17: The inception and expiration against now, with
 * Unbound's skew: 10% of the validity period clamped to [skew_min, skew_max],
 * allowed on both ends. */
static int check_dates(const struct val_sig_settings* set, time_t now,
	const struct val_rrsig* s, struct val_verify_result* res)
{
	uint32_t n, skew;
	if(set->date_override == -1)
		return 1;
	n = set->date_override ? (uint32_t)set->date_override : (uint32_t)now;
	if(serial_cmp(s->inception, s->expiration) > 0) {
		set_reason(res, "signature inception after expiration",
			VAL_EDE_DNSSEC_BOGUS);
		return 0;
	}
	skew = (s->expiration - s->inception) / 10;
	if(skew < set->skew_min)
		skew = set->skew_min;
	if(skew > set->skew_max)
		skew = set->skew_max;
	if(serial_cmp(s->inception, n) > 0 && s->inception - n > skew) {
		set_reason(res, "signature before inception date",
			VAL_EDE_SIGNATURE_NOT_YET_VALID);
		return 0;
	}
	if(serial_cmp(n, s->expiration) > 0 && n - s->expiration > skew) {
		set_reason(res, "signature expired", VAL_EDE_SIGNATURE_EXPIRED);
		return 0;
	}
	return 1;
}

/* compat: unbound-1.17: RFC 4035 5.3.3 as Unbound's adjust_ttl: not above the
 * original TTL (unless that is below cache-min-ttl), nor past the expiration.
 */
static uint32_t secure_ttl(const struct val_sig_ctx* ctx,
	const struct val_rrsig* s, const struct val_sig_settings* set,
	time_t now)
{
	uint32_t ttl = ctx->ttl < s->ttl ? ctx->ttl : s->ttl;
	uint32_t n = set->date_override > 0 ? (uint32_t)set->date_override :
		(uint32_t)now;
	int32_t left = (int32_t)(s->expiration - n);
	if(set->min_ttl > s->origttl) {
		if(ttl > set->min_ttl)
			ttl = set->min_ttl;
	} else if(ttl > s->origttl)
		ttl = s->origttl;
	if(left > 0 && ttl > (uint32_t)left)
		ttl = (uint32_t)left;
	return ttl;
}

/* compat: unbound-1.17: algorithm bookkeeping for harden-algo-downgrade
 * (Unbound algo_needs) */
struct needs {
	uint8_t state[256];  /* 0 not needed, 1 needed, 2 needed and bogus */
	int missing;
};

static void needs_init(struct needs* nd, const uint8_t* list)
{
	memset(nd, 0, sizeof(*nd));
	for(; list && *list; list++) {
		if(nd->state[*list] == 0) {
			nd->state[*list] = 1;
			nd->missing++;
		}
	}
}

/* 1 when that was the last needed algorithm */
static int needs_secure(struct needs* nd, uint8_t alg)
{
	if(nd->state[alg] == 0 || nd->state[alg] == 3)
		return 0;
	nd->state[alg] = 3; /* done */
	return --nd->missing == 0;
}

static void needs_bogus(struct needs* nd, uint8_t alg)
{
	if(nd->state[alg] == 1)
		nd->state[alg] = 2;
}

/* the first needed algorithm without a signature, 0 when a needed one
 * was bogus (then the bogus reason stands) or none is missing */
static int needs_missing(const struct needs* nd)
{
	int i;
	for(i = 0; i < 256; i++)
		if(nd->state[i] == 2)
			return 0;
	for(i = 0; i < 256; i++)
		if(nd->state[i] == 1)
			return i;
	return 0;
}

/* is name (lowercase wire) equal to or below zone (lowercase wire) */
static int dname_under(const uint8_t* name, size_t nlen, const uint8_t* zone,
	size_t zlen)
{
	size_t pos = 0;
	while(nlen - pos > zlen && name[pos] != 0)
		pos += (size_t)name[pos] + 1;
	return nlen - pos == zlen && memcmp(name + pos, zone, zlen) == 0;
}

/* the RRSIG's type covered without parsing it all */
static int rrsig_covers(const ldns_rr* rr, uint16_t type)
{
	const ldns_rdf* f;
	if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_RRSIG ||
		ldns_rr_rd_count(rr) < 1)
		return 0;
	f = ldns_rr_rdf(rr, 0);
	return ldns_rdf_size(f) == 2 && ldns_read_uint16(ldns_rdf_data(f))
		== type;
}

/* Try one RRSIG with the candidate keys. Returns 1 verified, 0 not,
 * -1 the verification budget ran out. */
static int verify_one_sig(struct val_sig_ctx* ctx, const struct val_rrsig* s,
	const struct val_keyset* ks, int only_key, int self_signed,
	const struct val_sig_settings* set, time_t now, int max_checks,
	int* checks, struct val_verify_result* res)
{
	size_t i, from = 0, to = ks->count, datalen = 0;
	int candidates = 0;
	if(only_key >= 0) {
		from = (size_t)only_key;
		to = from + 1;
	}
	for(i = from; i < to; i++) {
		const struct val_key* k = &ks->keys[i];
		EVP_PKEY* pkey;
		if(k->alg != s->alg || k->tag != s->tag || k->rdlen < 4)
			continue;
		/* RFC 5011 2.1: a revoked key only signs its own revocation */
		if((k->flags & VAL_DNSKEY_REVOKE) && !self_signed)
			continue;
		candidates++;
		if(s->signer_len != ks->owner_len ||
			memcmp(s->signer, ks->owner, ks->owner_len) != 0) {
			set_reason(res, "signer name mismatches key name",
				VAL_EDE_DNSSEC_BOGUS);
			return 0;
		}
		if(!(k->flags & VAL_DNSKEY_ZONE)) {
			set_reason(res, "dnskey without ZSK flag",
				VAL_EDE_NO_ZONE_KEY_BIT_SET);
			continue;
		}
		if(k->proto != LDNS_DNSSEC_KEYPROTO) {
			set_reason(res, "dnskey has wrong protocolnumber",
				VAL_EDE_DNSSEC_BOGUS);
			continue;
		}
		if(!val_algo_supported(k->alg)) {
			set_reason(res, "unsupported DNSKEY algorithm",
				VAL_EDE_UNSUPPORTED_DNSKEY_ALG);
			continue;
		}
		/* dates before the crypto: an out of date signature costs
		 * no public key operation */
		if(!check_dates(set, now, s, res))
			return 0;
		/* fake-dsa, fake-sha1: no crypto, no budget spent */
		if(val_crypto_faked(s->alg))
			return 1;
		if(!datalen && !(datalen = val_canon_signed_data(ctx, s))) {
			set_reason(res, "out of memory", VAL_EDE_OTHER);
			return 0;
		}
		/* the same key, signature and data verified before: no
		 * public key operation, so no KeyTrap budget spent */
		if(val_vcache_hit(&ctx->vc, k->rdata, k->rdlen, s->sig,
			s->siglen, ctx->buf, datalen))
			return 1;
		pkey = val_key_pkey(k);
		if(!pkey) {
			set_reason(res, "signature crypto failed",
				VAL_EDE_DNSSEC_BOGUS);
			continue;
		}
		if(*checks >= max_checks)
			return -1;
		(*checks)++;
		if(val_crypto_verify(ctx, s->alg, pkey, s->sig, s->siglen,
			ctx->buf, datalen)) {
			val_vcache_add(&ctx->vc, k->rdata, k->rdlen, s->sig,
				s->siglen, ctx->buf, datalen);
			return 1;
		}
		set_reason(res, "signature crypto failed", VAL_EDE_DNSSEC_BOGUS);
	}
	if(candidates == 0)
		set_reason(res, "signatures from unknown keys",
			VAL_EDE_DNSKEY_MISSING);
	return 0;
}

enum sec_status val_verify_canon(struct val_sig_ctx* ctx,
	const ldns_rr_list* rrsigs, const struct val_keyset* ks,
	int only_key, const uint8_t* needed, int self_signed,
	const struct val_sig_settings* set, time_t now, int max_checks,
	int* checks, struct val_verify_result* res)
{
	size_t i, n = rrsigs ? ldns_rr_list_rr_count(rrsigs) : 0;
	int covering = 0, matching = 0, verified = 0, alg, r;
	int harden = needed && needed[0];
	uint32_t ttl = UINT32_MAX;
	struct needs nd;
	struct val_rrsig s;
	if(harden)
		needs_init(&nd, needed);
	for(i = 0; i < n; i++) {
		const ldns_rr* rr = ldns_rr_list_rr(rrsigs, i);
		if(!rrsig_covers(rr, ctx->type))
			continue;
		covering++;
		if(!val_rrsig_parse(rr, &s)) {
			set_reason(res, "signature too short",
				VAL_EDE_DNSSEC_BOGUS);
			continue;
		}
		/* compat: unbound-1.17: one key (DS match, anchor): its
		 * signatures only, the others are no failure (Unbound's
		 * dnskey_verify_rrset) */
		if(only_key >= 0) {
			const struct val_key* k = &ks->keys[only_key];
			if(s.alg != k->alg || s.tag != k->tag)
				continue;
			matching++;
		}
		if(!dname_under(ctx->owner, ctx->owner_len, s.signer,
			s.signer_len)) {
			set_reason(res, "signer name off-tree",
				VAL_EDE_DNSSEC_BOGUS);
			continue;
		}
		if(s.labels > ctx->owner_labels) {
			set_reason(res, "signature labelcount out of range",
				VAL_EDE_DNSSEC_BOGUS);
			continue;
		}
		r = verify_one_sig(ctx, &s, ks, only_key, self_signed, set,
			now, max_checks, checks, res);
		if(r < 0) {
			set_reason(res, "too many RRSIG validations",
				VAL_EDE_DNSSEC_BOGUS);
			return SEC_BOGUS;
		}
		if(r == 0) {
			if(harden)
				needs_bogus(&nd, s.alg);
			continue;
		}
		{
			uint32_t t = secure_ttl(ctx, &s, set, now);
			if(t < ttl)
				ttl = t;
		}
		if(!verified) {
			res->wildcard_len = val_wildcard_of(ctx, s.labels,
				res->wildcard);
			verified = 1;
		}
		if(!harden || needs_secure(&nd, s.alg)) {
			res->ttl = ttl;
			set_reason(res, NULL, VAL_EDE_NONE);
			return SEC_SECURE;
		}
	}
	res->wildcard_len = 0;
	if(covering == 0) {
		set_reason(res, "no signatures", VAL_EDE_RRSIGS_MISSING);
		return SEC_BOGUS;
	}
	if(only_key >= 0 && matching == 0) {
		set_reason(res, "signature missing", VAL_EDE_RRSIGS_MISSING);
		return SEC_BOGUS;
	}
	if(harden && (alg = needs_missing(&nd)) != 0)
		set_reason(res, val_algo_reason(VAL_AR_NO_SIGS, alg),
			VAL_EDE_RRSIGS_MISSING);
	if(!res->reason.text)
		set_reason(res, "signature crypto failed",
			VAL_EDE_DNSSEC_BOGUS);
	return SEC_BOGUS;
}

static void result_init(struct val_verify_result* res)
{
	res->reason.text = NULL;
	res->reason.ede = VAL_EDE_NONE;
	res->ttl = 0;
	res->verifications = 0;
	res->budget_exhausted = 0;
	res->wildcard_len = 0;
}

enum sec_status val_verify_rrset(struct val_sig_ctx* ctx,
	const ldns_rr_list* rrset, const ldns_rr_list* rrsigs,
	const struct val_keyset* keys, const struct val_sig_settings* set,
	time_t now, struct val_budget* budget, struct val_verify_result* res)
{
	int checks = 0, r, self;
	enum sec_status sec;
	result_init(res);
	if(budget && val_budget_exhausted(budget)) {
		res->budget_exhausted = 1;
		return SEC_UNCHECKED;
	}
	if(!keys || keys->count == 0) {
		set_reason(res, "no keys", VAL_EDE_DNSKEY_MISSING);
		return SEC_BOGUS;
	}
	if((r = val_canon_rrset(ctx, rrset)) != 1) {
		set_reason(res, r < 0 ? "out of memory" : "malformed RRset",
			r < 0 ? VAL_EDE_OTHER : VAL_EDE_DNSSEC_BOGUS);
		return SEC_BOGUS;
	}
	/* the key set's own DNSKEY RRset may be checked with a revoked key */
	self = ctx->type == LDNS_RR_TYPE_DNSKEY &&
		ctx->owner_len == keys->owner_len &&
		memcmp(ctx->owner, keys->owner, keys->owner_len) == 0;
	sec = val_verify_canon(ctx, rrsigs, keys, -1,
		set->harden_algo_downgrade ? keys->needed : NULL, self, set,
		now, budget ? budget->rrset_max : VAL_MAX_VERIFY_PER_RRSET,
		&checks, res);
	res->verifications = checks;
	if(budget) {
		budget->msg_used += checks;
		budget->total += checks;
	}
	return sec;
}
