/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_autotrust_state.c - compat: unbound-1.17: the RFC 5011 trust
 * point: its keys, the per-key state table (section 4) with Unbound's
 * hold-downs and pending count, the probe times, and the trusted lists
 * published to the validator. No cryptography here: the prober checks
 * signatures and passes the verdicts in, so the table can be tested on its
 * own. */
#include "config.h"
#include "validator/val_autotrust.h"
#include "util/log.h"
#include <stdlib.h>
#include <string.h>

/* compat: unbound-1.17: SEP keys are the ones RFC 5011 tracks; a ZSK
 * configured as the anchor is kept until a KSK is trusted (as Unbound). */
static uint16_t rr_flags(const ldns_rr* rr)
{
	if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_DNSKEY ||
		ldns_rr_rd_count(rr) < 1)
		return 0;
	return ldns_rdf2native_int16(ldns_rr_rdf(rr, 0));
}

int val_autr_rr_is_sep(const ldns_rr* rr)
{
	return (rr_flags(rr) & LDNS_KEY_SEP_KEY) != 0;
}

int val_autr_rr_is_revoked(const ldns_rr* rr)
{
	return (rr_flags(rr) & LDNS_KEY_REVOKE_KEY) != 0;
}

const char* val_autr_state_str(enum autr_state s)
{
	switch(s) {
	case AUTR_STATE_START: return "  START  ";
	case AUTR_STATE_ADDPEND: return " ADDPEND ";
	case AUTR_STATE_VALID: return "  VALID  ";
	case AUTR_STATE_MISSING: return " MISSING ";
	case AUTR_STATE_REVOKED: return " REVOKED ";
	case AUTR_STATE_REMOVED: return " REMOVED ";
	}
	return " UNKNOWN ";
}

struct autr_point* val_autr_point_new(const uint8_t* name, size_t namelen,
	uint16_t dclass)
{
	struct autr_point* p;
	if(namelen == 0 || namelen > sizeof(p->name))
		return NULL;
	if(!(p = calloc(1, sizeof(*p))))
		return NULL;
	memcpy(p->name, name, namelen);
	p->namelen = namelen;
	p->dclass = dclass;
	pthread_mutex_init(&p->lock, NULL);
	atomic_init(&p->trusted_ds, NULL);
	atomic_init(&p->trusted_dnskey, NULL);
	atomic_init(&p->changes, 0);
	return p;
}

void val_autr_point_delete(struct autr_point* p)
{
	size_t i;
	if(!p)
		return;
	for(i = 0; i < p->n; i++)
		ldns_rr_free(p->keys[i].rr);
	free(p->keys);
	for(i = 0; i < p->nold; i++)
		ldns_rr_list_deep_free(p->old[i]);
	free(p->old);
	ldns_rr_list_deep_free(atomic_load(&p->trusted_ds));
	ldns_rr_list_deep_free(atomic_load(&p->trusted_dnskey));
	pthread_mutex_destroy(&p->lock);
	free(p->file);
	free(p);
}

struct autr_key* val_autr_point_add(struct autr_point* p, ldns_rr* rr,
	enum autr_state s, int count, time_t last_change)
{
	struct autr_key* k;
	if(p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 4;
		struct autr_key* nk = realloc(p->keys, cap * sizeof(*nk));
		if(!nk) {
			ldns_rr_free(rr);
			return NULL;
		}
		p->keys = nk;
		p->cap = cap;
	}
	k = &p->keys[p->n++];
	memset(k, 0, sizeof(*k));
	k->rr = rr;
	k->s = s;
	k->count = count;
	k->last_change = last_change;
	return k;
}

/* RDATA in wire form; 0 when it does not fit. */
static size_t rdata_wire(const ldns_rr* rr, uint8_t* out, size_t max)
{
	size_t i, len = 0;
	for(i = 0; i < ldns_rr_rd_count(rr); i++) {
		const ldns_rdf* f = ldns_rr_rdf(rr, i);
		if(len + ldns_rdf_size(f) > max)
			return 0;
		memcpy(out + len, ldns_rdf_data(f), ldns_rdf_size(f));
		len += ldns_rdf_size(f);
	}
	return len;
}

/* Equal, a DNSKEY's REVOKE bit (the low byte of the flags) aside. */
static int same_key(const ldns_rr* a, const ldns_rr* b)
{
	uint8_t wa[4096], wb[4096];
	size_t la, lb;
	if(ldns_rr_get_type(a) != ldns_rr_get_type(b))
		return 0;
	la = rdata_wire(a, wa, sizeof(wa));
	lb = rdata_wire(b, wb, sizeof(wb));
	if(la == 0 || la != lb)
		return 0;
	if(ldns_rr_get_type(a) == LDNS_RR_TYPE_DNSKEY && la >= 2) {
		wa[1] |= LDNS_KEY_REVOKE_KEY;
		wb[1] |= LDNS_KEY_REVOKE_KEY;
	}
	return memcmp(wa, wb, la) == 0;
}

struct autr_key* val_autr_find_key(struct autr_point* p, const ldns_rr* rr)
{
	size_t i;
	for(i = 0; i < p->n; i++)
		if(same_key(p->keys[i].rr, rr))
			return &p->keys[i];
	return NULL;
}

/* --- the trusted lists --- */

static int trusted(const struct autr_key* k)
{
	if(k->s != AUTR_STATE_VALID && k->s != AUTR_STATE_MISSING)
		return 0;
	return ldns_rr_get_type(k->rr) == LDNS_RR_TYPE_DS ||
		!val_autr_rr_is_revoked(k->rr);
}

int val_autr_has_trust(const struct autr_point* p)
{
	size_t i;
	for(i = 0; i < p->n; i++)
		if(trusted(&p->keys[i]))
			return 1;
	return 0;
}

static ldns_rr_list* build_list(const struct autr_point* p,
	ldns_rr_type type, int* err)
{
	ldns_rr_list* l = NULL;
	size_t i;
	for(i = 0; i < p->n; i++) {
		ldns_rr* c;
		if(!trusted(&p->keys[i]) ||
			ldns_rr_get_type(p->keys[i].rr) != type)
			continue;
		if((!l && !(l = ldns_rr_list_new())) ||
			!(c = ldns_rr_clone(p->keys[i].rr))) {
			*err = 1;
			return l;
		}
		ldns_rr_set_ttl(c, 0);
		if(!ldns_rr_list_push_rr(l, c)) {
			ldns_rr_free(c);
			*err = 1;
			return l;
		}
	}
	return l;
}

/* Lists equal as sets (same order: built from the same key array). */
static int list_same(const ldns_rr_list* a, const ldns_rr_list* b)
{
	size_t i;
	if(!a || !b)
		return a == b;
	if(ldns_rr_list_rr_count(a) != ldns_rr_list_rr_count(b))
		return 0;
	for(i = 0; i < ldns_rr_list_rr_count(a); i++)
		if(ldns_rr_compare(ldns_rr_list_rr(a, i),
			ldns_rr_list_rr(b, i)) != 0)
			return 0;
	return 1;
}

static int retire(struct autr_point* p, ldns_rr_list* l)
{
	ldns_rr_list** o;
	if(!l)
		return 1;
	if(!(o = realloc(p->old, (p->nold + 1) * sizeof(*o))))
		return 0;
	p->old = o;
	p->old[p->nold++] = l;
	return 1;
}

/* Swap in fresh if it differs; fresh is taken over. */
static int swap_list(struct autr_point* p, _Atomic(ldns_rr_list*)* slot,
	ldns_rr_list* fresh)
{
	ldns_rr_list* cur = atomic_load(slot);
	if(list_same(cur, fresh)) {
		ldns_rr_list_deep_free(fresh);
		return 1;
	}
	if(!retire(p, cur)) {
		ldns_rr_list_deep_free(fresh);
		return 0;
	}
	atomic_store(slot, fresh);
	atomic_fetch_add(&p->changes, 1);
	return 1;
}

int val_autr_publish(struct autr_point* p)
{
	int err = 0;
	ldns_rr_list* ds = build_list(p, LDNS_RR_TYPE_DS, &err);
	ldns_rr_list* keys = build_list(p, LDNS_RR_TYPE_DNSKEY, &err);
	if(err || p->revoked) {
		ldns_rr_list_deep_free(ds);
		ldns_rr_list_deep_free(keys);
		if(!p->revoked)
			return 0;
		ds = keys = NULL;   /* no anchor at all */
	}
	return swap_list(p, &p->trusted_ds, ds) &&
		swap_list(p, &p->trusted_dnskey, keys);
}

const ldns_rr_list* val_autotrust_trusted(const struct autr_point* p,
	int ds)
{
	return atomic_load(ds ? &((struct autr_point*)p)->trusted_ds :
		&((struct autr_point*)p)->trusted_dnskey);
}

/* --- the state table --- */

static void set_state(struct autr_key* k, enum autr_state s, time_t now,
	int* changed)
{
	if(verbosity >= VERB_ALGO) {
		char* str = ldns_rr2str(k->rr);
		verbose(VERB_ALGO, "autotrust: %s -> %s for %s",
			val_autr_state_str(k->s), val_autr_state_str(s),
			str ? str : "key");
		free(str);
	}
	k->s = s;
	k->last_change = now;
	*changed = 1;
}

/* Seconds past the hold-down since the last change; 0 when not past
 * (or when the clock went back). */
static time_t past_holddown(const struct autr_key* k, time_t now,
	time_t holddown)
{
	time_t elapsed;
	if(now < k->last_change)
		return 0;
	elapsed = now - k->last_change;
	return elapsed > holddown ? elapsed - holddown : 0;
}

static void do_addtime(struct autr_key* k, time_t now,
	const struct autr_params* par, int* changed)
{
	if(k->s != AUTR_STATE_ADDPEND ||
		!past_holddown(k, now, par->add_holddown))
		return;
	if(k->count >= AUTR_MIN_PENDING) {
		set_state(k, AUTR_STATE_VALID, now, changed);
		k->count = 0;
	}
}

void val_autr_holddown_exceed(struct autr_point* p, time_t now,
	const struct autr_params* par, int* changed)
{
	size_t i;
	for(i = 0; i < p->n; i++)
		if(val_autr_rr_is_sep(p->keys[i].rr))
			do_addtime(&p->keys[i], now, par, changed);
}

/* The stored key gets the REVOKE bit, as the zone now publishes it. */
static void set_revoke_bit(ldns_rr* rr)
{
	uint16_t f = rr_flags(rr) | LDNS_KEY_REVOKE_KEY;
	ldns_rdf* nf = ldns_native2rdf_int16(LDNS_RDF_TYPE_INT16, f);
	ldns_rdf* old;
	if(!nf)
		return;
	if((old = ldns_rr_set_rdf(rr, nf, 0)) != NULL)
		ldns_rdf_deep_free(old);
	else	ldns_rdf_deep_free(nf);
}

void val_autr_key_revoked(struct autr_key* k, time_t now, int* changed)
{
	if(!k->revoked)
		*changed = 1;
	k->revoked = 1;
	if(k->s == AUTR_STATE_VALID || k->s == AUTR_STATE_MISSING) {
		set_state(k, AUTR_STATE_REVOKED, now, changed);
		set_revoke_bit(k->rr);
	}
}

/* compat: unbound-1.17: RFC 5011 section 4.2, per SEP key, with Unbound's
 * events. */
static void key_table(struct autr_key* k, time_t now,
	const struct autr_params* par, int* changed)
{
	switch(k->s) {
	case AUTR_STATE_START:
		if(k->fetched)
			set_state(k, AUTR_STATE_ADDPEND, now, changed);
		break;
	case AUTR_STATE_ADDPEND:
		if(!k->fetched) {
			set_state(k, AUTR_STATE_START, now, changed);
			k->count = 0;
		} else	do_addtime(k, now, par, changed);
		break;
	case AUTR_STATE_VALID:
		if(k->revoked)
			val_autr_key_revoked(k, now, changed);
		else if(!k->fetched)
			set_state(k, AUTR_STATE_MISSING, now, changed);
		else if(k->last_change == 0) {
			/* first seen: the hold-downs count from here */
			k->last_change = now;
			*changed = 1;
		}
		break;
	case AUTR_STATE_MISSING:
		if(k->revoked)
			val_autr_key_revoked(k, now, changed);
		else if(k->fetched)
			set_state(k, AUTR_STATE_VALID, now, changed);
		break;
	case AUTR_STATE_REVOKED:
		if(k->fetched) {
			/* still published revoked: wait longer */
			k->last_change = now;
			*changed = 1;
		} else if(past_holddown(k, now, par->del_holddown))
			set_state(k, AUTR_STATE_REMOVED, now, changed);
		break;
	case AUTR_STATE_REMOVED:
		break;
	}
}

/* No VALID KSK but a configured VALID ZSK: trust the pending KSKs at
 * once (the ZSK may not be published long enough for a hold-down). */
static int zsk_to_ksk(struct autr_point* p, time_t now, int* changed)
{
	size_t i;
	int zsk = 0, ksk = 0;
	for(i = 0; i < p->n; i++)
		if(ldns_rr_get_type(p->keys[i].rr) == LDNS_RR_TYPE_DNSKEY &&
			p->keys[i].last_change == 0 &&
			!val_autr_rr_is_sep(p->keys[i].rr) &&
			p->keys[i].s == AUTR_STATE_VALID)
			zsk++;
	if(zsk == 0)
		return 0;
	for(i = 0; i < p->n; i++)
		if(val_autr_rr_is_sep(p->keys[i].rr) &&
			p->keys[i].s == AUTR_STATE_ADDPEND) {
			set_state(&p->keys[i], AUTR_STATE_VALID, now, changed);
			ksk++;
		}
	return ksk;
}

/* ZSKs go once a KSK is VALID; MISSING KSKs after keep-missing. */
static void remove_missing(struct autr_point* p, time_t now,
	const struct autr_params* par, int* changed)
{
	size_t i;
	int valid = 0;
	for(i = 0; i < p->n; i++)
		if(val_autr_rr_is_sep(p->keys[i].rr) &&
			p->keys[i].s == AUTR_STATE_VALID)
			valid++;
	if(valid == 0 && (valid = zsk_to_ksk(p, now, changed)) == 0)
		return;
	for(i = 0; i < p->n; i++) {
		struct autr_key* k = &p->keys[i];
		if(k->s == AUTR_STATE_START)
			continue;
		if(!val_autr_rr_is_sep(k->rr)) {
			if(ldns_rr_get_type(k->rr) == LDNS_RR_TYPE_DNSKEY &&
				k->s != AUTR_STATE_REMOVED)
				set_state(k, AUTR_STATE_REMOVED, now, changed);
			continue;
		}
		if(k->s != AUTR_STATE_MISSING || par->keep_missing == 0)
			continue;
		if(past_holddown(k, now, par->keep_missing))
			set_state(k, AUTR_STATE_REMOVED, now, changed);
	}
}

/* START and REMOVED keys and DS records are not kept (nor written). */
static void cleanup(struct autr_point* p)
{
	size_t i, j = 0;
	for(i = 0; i < p->n; i++) {
		struct autr_key* k = &p->keys[i];
		if(k->s == AUTR_STATE_START || k->s == AUTR_STATE_REMOVED ||
			ldns_rr_get_type(k->rr) != LDNS_RR_TYPE_DNSKEY) {
			ldns_rr_free(k->rr);
			continue;
		}
		if(k->s != AUTR_STATE_ADDPEND)
			k->count = 0;
		p->keys[j++] = *k;
	}
	p->n = j;
}

/* query_interval = max(1h, min(15d, ttl/2, sig_left/2)), retry_time =
 * max(1h, min(1d, ttl/10, sig_left/10)); the 1 h floor goes with
 * permit-small-holddown. */
static void set_times(struct autr_point* p, uint32_t ttl, time_t sig_left,
	int permit_small, int* changed)
{
	time_t q = 15 * 24 * 3600, r = 24 * 3600;
	time_t oq = p->query_interval, orr = p->retry_time;
	if((time_t)ttl / 2 < q)
		q = (time_t)ttl / 2;
	if(sig_left / 2 < q)
		q = sig_left / 2;
	if((time_t)ttl / 10 < r)
		r = (time_t)ttl / 10;
	if(sig_left / 10 < r)
		r = sig_left / 10;
	if(!permit_small) {
		if(q < 3600)
			q = 3600;
		if(r < 3600)
			r = 3600;
	}
	p->query_interval = q;
	p->retry_time = r;
	if(oq != q || orr != r)
		*changed = 1;
}

int val_autr_update(struct autr_point* p, const ldns_rr_list* dnskeys,
	const char* ds_match, const char* supported, uint32_t ttl,
	time_t sig_left, time_t now, const struct autr_params* par,
	int* changed)
{
	size_t i;
	for(i = 0; i < p->n; i++)
		p->keys[i].fetched = 0;
	for(i = 0; i < ldns_rr_list_rr_count(dnskeys); i++) {
		const ldns_rr* rr = ldns_rr_list_rr(dnskeys, i);
		struct autr_key* k;
		if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_DNSKEY ||
			!val_autr_rr_is_sep(rr) || val_autr_rr_is_revoked(rr))
			continue;   /* revoked keys were handled before */
		if(supported && !supported[i])
			continue;   /* useless to us */
		if(!(k = val_autr_find_key(p, rr))) {
			ldns_rr* c = ldns_rr_clone(rr);
			if(!c || !(k = val_autr_point_add(p, c,
				AUTR_STATE_START,
				0, 0)))
				return 0;
			*changed = 1;
			if(ds_match && ds_match[i])
				k->s = AUTR_STATE_VALID;
		}
		k->fetched = 1;
		if(k->count < 250)
			k->count++;
	}
	set_times(p, ttl, sig_left, par->permit_small, changed);
	for(i = 0; i < p->n; i++)
		if(val_autr_rr_is_sep(p->keys[i].rr))
			key_table(&p->keys[i], now, par, changed);
	remove_missing(p, now, par, changed);
	cleanup(p);
	return 1;
}

time_t val_autr_next_probe(time_t now, time_t wait, int permit_small,
	uint32_t rnd)
{
	time_t part;
	if(!permit_small && wait < 3600)
		wait = 3600;
	if(wait <= 0)
		wait = 1;
	part = wait / 10;
	return now + wait - part + (part > 0 ? (time_t)(rnd %
		(uint32_t)(part + 1)) : 0);
}
