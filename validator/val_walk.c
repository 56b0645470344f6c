/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_walk.c - compat: unbound-1.17: the chain of trust for one zone
 * of an answer: from the closest trust anchor down, a label at a time, each
 * step a DS or DNSKEY sub-query through the mesh, each result kept in the key
 * cache (good keys, a proven-insecure zone, or bad keys for val-bogus-ttl) so
 * the next query finds it there. As Unbound's validator walks
 * (processFindKey), without its DS cache shortcuts. */
#include "config.h"
#include "validator/val_signal.h"
#include "validator/val_module.h"
#include "validator/val_anchor.h"
#include "validator/val_kcache.h"
#include "validator/val_nsec.h"
#include "validator/val_nsec3.h"
#include "services/cache/neg_cache.h"
#include "services/cache/neg_nsec3.h"
#include "services/mesh.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/module.h"
#include "util/msgencode.h"
#include "util/msgparse.h"
#include "util/rrlist_pack.h"
#include <stdlib.h>
#include <string.h>

#define WALK_MAX_STEPS 40     /* DS/DNSKEY lookups for one target */
#define NULL_KEY_TTL 900      /* proven insecure, when no TTL says */

int val_name_under(const uint8_t* name, const uint8_t* zone)
{
	return dname_subdomain_c(name, zone);
}

int val_rr_owner(const ldns_rr* rr, uint8_t* out)
{
	const ldns_rdf* o = ldns_rr_owner(rr);
	if(!o || ldns_rdf_size(o) > LDNS_MAX_DOMAINLEN + 1)
		return 0;
	memcpy(out, ldns_rdf_data(o), ldns_rdf_size(o));
	dname_tolower(out);
	return 1;
}

static void name_copy(uint8_t* to, const uint8_t* from)
{
	memcpy(to, from, dname_valid(from, LDNS_MAX_DOMAINLEN));
	dname_tolower(to);
}

struct val_zone* val_zone_get(struct val_qstate* vq, const uint8_t* target,
	int signer)
{
	struct val_zone* z;
	int i;
	for(i = 0; i < vq->num_zones; i++)
		if(vq->zones[i]->signer == signer &&
			query_dname_compare(vq->zones[i]->target, target) == 0)
			return vq->zones[i];
	if(vq->num_zones >= VAL_MAX_ZONES ||
		!(z = calloc(1, sizeof(*z))))
		return NULL;
	vq->zones[vq->num_zones++] = z;
	name_copy(z->target, target);
	z->signer = signer;
	z->status = SEC_UNCHECKED;
	z->why.ede = VAL_EDE_NONE;
	return z;
}

void val_walk_clear(struct val_walk* w)
{
	if(!w)
		return;
	val_keyset_delete(w->keys);
	ldns_rr_list_deep_free(w->dnskeys);
	ldns_rr_list_deep_free(w->ds);
	ldns_rr_list_deep_free(w->sub_answer);
	ldns_rr_list_deep_free(w->sub_authority);
	memset(w, 0, sizeof(*w));
}

void val_zones_clear(struct val_qstate* vq)
{
	int i;
	for(i = 0; i < vq->num_zones; i++) {
		val_keyset_delete(vq->zones[i]->keys);
		ldns_rr_list_deep_free(vq->zones[i]->dnskeys);
		free(vq->zones[i]);
		vq->zones[i] = NULL;
	}
	vq->num_zones = 0;
}

/* The walk ends for z with status (keys handed over when secure). */
static int walk_done(struct val_walk* w, struct val_zone* z,
	enum sec_status status, const char* text, enum val_ede ede)
{
	z->status = status;
	if(verbosity >= VERB_ALGO) {
		char n[LDNS_MAX_DOMAINLEN * 4 + 8];
		dname_to_str(z->target, n, sizeof(n));
		verbose(VERB_ALGO, "validator: keys for %s%s: status %d%s%s",
			n, z->signer ? " (signer)" : "", (int)status,
			text ? ": " : "", text ? text : "");
	}
	if(status == SEC_SECURE) {
		name_copy(z->zone, w->cur);
		z->keys = w->keys;
		z->dnskeys = w->dnskeys;
		w->keys = NULL;
		w->dnskeys = NULL;
	} else if(status == SEC_BOGUS) {
		z->why.text = text;
		z->why.ede = ede;
	}
	val_walk_clear(w);
	return 1;
}

static int walk_bogus(struct val_walk* w, struct val_zone* z,
	const struct val_reason* why)
{
	return walk_done(w, z, SEC_BOGUS, why->text, why->ede);
}

/* The RRs of list of one type (and with owner, when not NULL), and
 * the RRSIGs covering that type: shallow lists, NULL when none. */
static ldns_rr_list* rrs_of(const ldns_rr_list* list, ldns_rr_type t,
	const uint8_t* owner, int sigs)
{
	ldns_rr_list* out = NULL;
	uint8_t o[LDNS_MAX_DOMAINLEN + 1];
	size_t i;
	for(i = 0; list && i < ldns_rr_list_rr_count(list); i++) {
		ldns_rr* rr = ldns_rr_list_rr(list, i);
		ldns_rr_type rt = ldns_rr_get_type(rr);
		if(sigs) {
			if(rt != LDNS_RR_TYPE_RRSIG ||
				!ldns_rr_rrsig_typecovered(rr) ||
				ldns_rdf2rr_type(ldns_rr_rrsig_typecovered(rr))
				!= t)
				continue;
		} else if(rt != t)
			continue;
		if(owner && (!val_rr_owner(rr, o) ||
			query_dname_compare(o, owner) != 0))
			continue;
		if(!out && !(out = ldns_rr_list_new()))
			return NULL;
		ldns_rr_list_push_rr(out, rr);
	}
	return out;
}

/* A GOOD key cache entry as DNSKEY RRs. NULL on out of memory. */
static ldns_rr_list* kentry_rrs(const struct val_kentry* e, time_t now)
{
	struct packed_rrset v;
	ldns_rr_list* out = ldns_rr_list_new();
	size_t i;
	val_kentry_view(e, now, &v);
	for(i = 0; out && i < v.count; i++) {
		ldns_rr* rr = ldns_rr_new();   /* no rdata fields yet */
		ldns_rdf* owner = ldns_rdf_new_frm_data(LDNS_RDF_TYPE_DNAME,
			v.owner_len, v.owner);
		size_t pos = 0;
		ldns_buffer* b;
		if(!rr || !owner) {
			ldns_rr_free(rr);
			ldns_rdf_deep_free(owner);
			ldns_rr_list_deep_free(out);
			return NULL;
		}
		ldns_rr_set_owner(rr, owner);
		ldns_rr_set_type(rr, LDNS_RR_TYPE_DNSKEY);
		ldns_rr_set_class(rr, (ldns_rr_class)v.rclass);
		ldns_rr_set_ttl(rr, v.ttl);
		/* the rdata fields, as ldns reads them from the wire */
		b = ldns_buffer_new(v.rdlen[i] + 2);
		if(!b) {
			ldns_rr_free(rr);
			ldns_rr_list_deep_free(out);
			return NULL;
		}
		ldns_buffer_write_u16(b, v.rdlen[i]);
		ldns_buffer_write(b, v.rdata[i], v.rdlen[i]);
		ldns_buffer_flip(b);
		pos = 0;
		if(ldns_wire2rdf(rr, ldns_buffer_begin(b),
			ldns_buffer_limit(b), &pos) != LDNS_STATUS_OK ||
			!ldns_rr_list_push_rr(out, rr)) {
			ldns_rr_free(rr);
			ldns_buffer_free(b);
			ldns_rr_list_deep_free(out);
			return NULL;
		}
		ldns_buffer_free(b);
	}
	return out;
}

struct kstore_arg {
	struct val_kcache* kc;
	time_t now;
};

static int kstore(void* arg, const struct packed_rrset* set)
{
	struct kstore_arg* a = arg;
	if(set->type == TYPE_DNSKEY)
		(void)val_kcache_store_good(a->kc, set, a->now);
	return 1;
}

static void store_good(struct val_kcache* kc, const ldns_rr_list* keys,
	time_t now)
{
	struct kstore_arg a;
	if(!kc)
		return;
	a.kc = kc;
	a.now = now;
	(void)rrlist_for_each_rrset(keys, kstore, &a);
}

/* Smallest TTL in list, def when empty. */
static uint32_t min_ttl(const ldns_rr_list* list, uint32_t def)
{
	uint32_t t = def;
	size_t i;
	for(i = 0; list && i < ldns_rr_list_rr_count(list); i++)
		if(i == 0 || ldns_rr_ttl(ldns_rr_list_rr(list, i)) < t)
			t = ldns_rr_ttl(ldns_rr_list_rr(list, i));
	return t;
}

/* The zone at name is insecure (no DS): kept, and the walk ends. */
static int walk_insecure(struct module_qstate* qs, struct val_walk* w,
	struct val_zone* z, const uint8_t* name, uint32_t ttl)
{
	if(w->kc)
		(void)val_kcache_store_null(w->kc, name,
			qs->qclass, ttl, time(NULL));
	return walk_done(w, z, SEC_INSECURE, NULL, VAL_EDE_NONE);
}

/* Send (w->next, type) to the mesh; the walk waits for it. again: a
 * retry, without the servers of w->avoid and past the caches. 0 when the
 * mesh will not (a cycle, a bound). */
static int send_sub(struct module_qstate* qs, struct val_walk* w,
	int id, uint16_t type, int again)
{
	struct module_qstate* sub;
	enum mesh_attach r;
	w->wait = type == TYPE_DS ? WALK_WAIT_DS : WALK_WAIT_DNSKEY;
	w->sub_done = 0;
	ldns_rr_list_deep_free(w->sub_answer);
	ldns_rr_list_deep_free(w->sub_authority);
	w->sub_answer = w->sub_authority = NULL;
	if(++w->steps > WALK_MAX_STEPS)
		return 0;
	r = mesh_attach_sub(qs->env->mesh, qs->ms, w->next, type,
		qs->qclass, MODQ_NOVAL, &sub);
	if(again && r == MESH_ATTACH_NEW)
		(void)val_sub_avoid(sub, id, w->avoid, w->num_avoid);
	if(verbosity >= VERB_ALGO) {
		char n[LDNS_MAX_DOMAINLEN * 4 + 8];
		dname_to_str(w->next, n, sizeof(n));
		verbose(VERB_ALGO, "validator: fetch %s %s (%d)%s", n,
			type == TYPE_DS ? "DS" : "DNSKEY", (int)r,
			again ? " again" : "");
	}
	return r == MESH_ATTACH_NEW || r == MESH_ATTACH_JOINED;
}

/* Ask (name, type) of the mesh, a new step of the walk. */
static int ask(struct module_qstate* qs, struct val_qstate* vq,
	const uint8_t* name, uint16_t type)
{
	struct val_walk* w = vq->walk;
	if(name != w->next)
		name_copy(w->next, name);
	w->num_avoid = 0;
	w->refetched = 0;
	return send_sub(qs, w, vq->id, type, 0);
}

/* compat: unbound-1.17: val-max-restart holds for the chain of trust too
 * (Unbound's chain_blacklist): a DS or DNSKEY answer that fails (missing,
 * not signed, a bad signature or proof) is asked again without the
 * servers that gave it, or past the caches when it came from them, before
 * the zone is called bad. The restarts count with the answer's. Returns
 * 1 when asked again (the walk waits). When no other server answered,
 * *why and the servers named in the reason are the first failure's, as
 * Unbound's (it asks the same servers again, last). */
static int walk_retry(struct module_qstate* qs, struct val_qstate* vq,
	struct val_reason* why)
{
	struct val_env* ve = qs->env->modinfo[vq->id];
	struct val_walk* w = vq->walk;
	int i, j, added = 0;
	uint16_t type = w->wait == WALK_WAIT_DS ? TYPE_DS : TYPE_DNSKEY;
	int first = w->num_avoid == 0 && !w->refetched;
	struct val_lookup* last = vq->last;   /* made with the walk */
	if(!first && last->num_from == 0) {
		*why = w->first_why;
		memcpy(last->from, w->first_from, sizeof(last->from));
		last->num_from = w->first_num_from;
		return 0;
	}
	if(!ve || vq->restarts >= ve->max_restart)
		return 0;
	if(first) {
		w->first_why = *why;
		memcpy(w->first_from, last->from, sizeof(w->first_from));
		w->first_num_from = last->num_from;
	}
	for(i = 0; i < last->num_from && w->num_avoid < VAL_MAX_AVOID;
		i++) {
		const struct module_from* f = &last->from[i];
		for(j = 0; j < w->num_avoid; j++)
			if(w->avoid[j].len == f->len && memcmp(
				&w->avoid[j].addr, &f->addr, f->len) == 0)
				break;
		if(j == w->num_avoid) {
			w->avoid[w->num_avoid++] = *f;
			added++;
		}
	}
	if(!added) {
		/* from the caches: asked of the servers once */
		if(last->num_from > 0 || w->refetched)
			return 0;
		w->refetched = 1;
	}
	vq->restarts++;
	last->num_from = 0;
	ldns_rr_list_deep_free(w->sub_answer);
	ldns_rr_list_deep_free(w->sub_authority);
	w->sub_answer = w->sub_authority = NULL;
	w->sub_done = 0;
	verbose(VERB_ALGO, "validator: restart %d of the chain of trust "
		"without %d server(s)", vq->restarts, w->num_avoid);
	return send_sub(qs, w, vq->id, type, 1);
}

/* name's keys are bad: kept in the key cache (val-bogus-ttl), so the
 * failure sticks (no restart helps). Used where name is known to be a
 * zone (its DS or DNSKEY set failed); a failed proof that a name has no
 * DS (it may be no zone cut at all) is this query's alone. */
static int walk_bad(struct module_qstate* qs, struct val_qstate* vq,
	struct val_zone* z, const uint8_t* name, const struct val_reason* why)
{
	struct val_walk* w = vq->walk;
	struct val_reason r = *why;
	if(walk_retry(qs, vq, &r))
		return 0;
	if(w->kc)
		(void)val_kcache_store_bad(w->kc, name,
			qs->qclass, &r, time(NULL));
	z->sticky = 1;
	return walk_bogus(w, z, &r);
}

/* The proof that name has no DS failed: asked again (walk_retry), else
 * bogus for this query alone (it may be no zone cut at all). */
static int walk_bad_proof(struct module_qstate* qs, struct val_qstate* vq,
	struct val_zone* z, const struct val_reason* why)
{
	struct val_reason r = *why;
	if(walk_retry(qs, vq, &r))
		return 0;
	return walk_bogus(vq->walk, z, &r);
}

/* Begin: the anchor, and what the key cache knows below it. Returns 1
 * when z is decided, 0 when the walk goes on (asking or stepping). */
static int walk_start(struct module_qstate* qs, struct val_qstate* vq,
	struct val_env* ve, struct val_zone* z)
{
	struct val_walk* w = vq->walk;
	const struct val_anchor* a = qs->env->anchors ? val_anchor_find(
		qs->env->anchors, z->target, qs->qclass) : NULL;
	const struct val_kentry* e = NULL;
	time_t now = time(NULL);
	val_walk_clear(w);
	w->active = 1;
	w->z = z;
	w->kc = ve->kc;
	if(!a)
		return walk_done(w, z, SEC_INDETERMINATE, NULL, VAL_EDE_NONE);
	if(a->kind != VAL_ANCHOR_KEYS)
		return walk_done(w, z, SEC_INSECURE, NULL, VAL_EDE_NONE);
	if(w->kc)
		e = val_kcache_lookup_closest(w->kc, z->target,
			qs->qclass, now);
	if(e && !val_name_under(e->name, a->name)) {
		/* cached above the anchor: not this chain's */
		val_kcache_release(w->kc, e);
		e = NULL;
	}
	if(e) {
		enum val_key_status st = e->status;
		struct val_reason why;
		why.text = e->reason ? "key cache: bad keys" : NULL;
		why.ede = e->ede;
		if(st == VAL_KEY_GOOD) {
			name_copy(w->cur, e->name);
			w->dnskeys = kentry_rrs(e, now);
		}
		val_kcache_release(w->kc, e);
		if(st == VAL_KEY_BAD) {
			if(!why.text)
				why.text = "key for validation is bad";
			if(why.ede == VAL_EDE_NONE)
				why.ede = VAL_EDE_DNSSEC_BOGUS;
			z->sticky = 1;
			return walk_bogus(w, z, &why);
		}
		if(st == VAL_KEY_NULL)
			return walk_done(w, z, SEC_INSECURE, NULL,
				VAL_EDE_NONE);
		if(!w->dnskeys || !(w->keys = val_sig_ctx_keyset(
			ve->sigctx, w->dnskeys))) {
			why.text = "out of memory";
			why.ede = VAL_EDE_OTHER;
			return walk_bogus(w, z, &why);
		}
		return 0;
	}
	/* the anchor's own DNSKEY set first */
	w->anchor_ds = val_anchor_ds(a);
	w->anchor_keys = val_anchor_dnskey(a);
	if(!w->anchor_ds && !w->anchor_keys)   /* revoked since the find */
		return walk_done(w, z, SEC_INDETERMINATE, NULL, VAL_EDE_NONE);
	if(!ask(qs, vq, a->name, TYPE_DNSKEY)) {
		struct val_reason why = { "could not fetch the anchor's "
			"DNSKEY", VAL_EDE_DNSKEY_MISSING };
		return walk_bogus(w, z, &why);
	}
	/* compat: unbound-1.17: priming the anchor: tell its zone which keys
	 * we trust (RFC 8145 section 5), as Unbound does with each priming
	 * query */
	if(ve->ta_signaling)
		val_ta_signal(qs, a);
	return 0;
}

/* The DNSKEY answer for w->next came: trust it from the anchor or from
 * the DS set of the step before. 1: decided, -1: keys taken, walk on
 * from w->cur. */
static int take_dnskey(struct module_qstate* qs, struct val_qstate* vq,
	struct val_env* ve, struct val_zone* z)
{
	struct val_walk* w = vq->walk;
	ldns_rr_list* keys = rrs_of(w->sub_answer, LDNS_RR_TYPE_DNSKEY,
		w->next, 0);
	ldns_rr_list* sigs = rrs_of(w->sub_answer, LDNS_RR_TYPE_DNSKEY,
		w->next, 1);
	struct val_budget b;
	struct val_verify_result res;
	struct val_keyset* ks = NULL;
	enum sec_status st;
	time_t now = time(NULL);
	memset(&res, 0, sizeof(res));
	val_budget_init(&b);
	if(w->sub_rcode != RCODE_NOERROR || !keys) {
		struct val_reason why = { "no DNSKEY record for the zone",
			VAL_EDE_DNSKEY_MISSING };
		ldns_rr_list_free(keys);
		ldns_rr_list_free(sigs);
		return walk_bad(qs, vq, z, w->next, &why);
	}
	if(w->ds)
		st = val_verify_dnskey_with_ds(ve->sigctx, keys, sigs, w->ds,
			&ve->sig, now, &b, &res, &ks);
	else if(w->anchor_ds)
		st = val_verify_dnskey_with_ds(ve->sigctx, keys, sigs,
			w->anchor_ds, &ve->sig, now, &b, &res, &ks);
	else
		st = val_verify_dnskey_with_keys(ve->sigctx, keys, sigs,
			w->anchor_keys, &ve->sig, now, &b, &res, &ks);
	if(verbosity >= VERB_ALGO) {
		/* the KeyTrap bounds at work, for the log (and its tests) */
		char n[LDNS_MAX_DOMAINLEN * 4 + 8];
		dname_to_str(w->next, n, sizeof(n));
		verbose(VERB_ALGO, "validator: DNSKEY of %s: %d signature "
			"checks (bound %d), %d failed DS digest matches "
			"(bound %d)", n, b.total, b.rrset_max, b.ds_fails,
			b.ds_fail_max);
	}
	if(st == SEC_SECURE && ks) {
		ldns_rr_list* copy = ldns_rr_list_clone(keys);
		/* what the keys were checked with: kept until now for a
		 * retry (walk_retry) */
		w->anchor_ds = w->anchor_keys = NULL;
		ldns_rr_list_deep_free(w->ds);
		w->ds = NULL;
		store_good(w->kc, keys, now);
		name_copy(w->cur, w->next);
		val_keyset_delete(w->keys);
		ldns_rr_list_deep_free(w->dnskeys);
		w->keys = ks;
		w->dnskeys = copy;
		ldns_rr_list_free(keys);
		ldns_rr_list_free(sigs);
		if(!copy) {
			struct val_reason why = { "out of memory",
				VAL_EDE_OTHER };
			return walk_bogus(w, z, &why);
		}
		if(query_dname_compare(w->cur, z->target) == 0)
			return walk_done(w, z, SEC_SECURE, NULL,
				VAL_EDE_NONE);
		return -1;    /* walk on from cur */
	}
	val_keyset_delete(ks);
	{
		uint32_t ttl = min_ttl(keys, NULL_KEY_TTL);
		ldns_rr_list_free(keys);
		ldns_rr_list_free(sigs);
		if(st == SEC_INSECURE)
			return walk_insecure(qs, w, z, w->next, ttl);
	}
	if(!res.reason.text) {
		res.reason.text = "DNSKEY set does not verify";
		res.reason.ede = VAL_EDE_DNSSEC_BOGUS;
	}
	return walk_bad(qs, vq, z, w->next, &res.reason);
}

/* Check each RRset (owner, type) of the NSEC or NSEC3 records in
 * list with the walk's keys. 1 when all are secure. */
static int denial_secure(struct val_walk* w, struct val_env* ve,
	const ldns_rr_list* list, ldns_rr_type t, struct val_reason* why)
{
	size_t i;
	time_t now = time(NULL);
	for(i = 0; list && i < ldns_rr_list_rr_count(list); i++) {
		uint8_t o[LDNS_MAX_DOMAINLEN + 1];
		ldns_rr_list* set, *sigs;
		struct val_verify_result res;
		struct val_budget b;
		enum sec_status st;
		if(!val_rr_owner(ldns_rr_list_rr(list, i), o))
			return 0;
		set = rrs_of(list, t, o, 0);
		sigs = rrs_of(w->sub_authority, t, o, 1);
		memset(&res, 0, sizeof(res));
		val_budget_init(&b);
		st = set ? val_verify_rrset(ve->sigctx, set, sigs, w->keys,
			&ve->sig, now, &b, &res) : SEC_BOGUS;
		ldns_rr_list_free(set);
		ldns_rr_list_free(sigs);
		if(st != SEC_SECURE) {
			*why = res.reason;
			if(!why->text) {
				why->text = "denial of DS does not verify";
				why->ede = VAL_EDE_DNSSEC_BOGUS;
			}
			return 0;
		}
	}
	return 1;
}

/* No DS came for w->next: a proof that there is none (an insecure
 * delegation), or that w->next is no zone cut (walk on). Returns 1
 * when z is decided, 0 to go on. */
static int take_no_ds(struct module_qstate* qs, struct val_qstate* vq,
	struct val_env* ve, struct val_zone* z)
{
	struct val_walk* w = vq->walk;
	ldns_rr_list* nsec = rrs_of(w->sub_authority, LDNS_RR_TYPE_NSEC,
		NULL, 0);
	ldns_rr_list* nsec3 = rrs_of(w->sub_authority, LDNS_RR_TYPE_NSEC3,
		NULL, 0);
	struct val_reason why = { NULL, VAL_EDE_NONE };
	enum sec_status st;
	uint32_t ttl = min_ttl(nsec ? nsec : nsec3, NULL_KEY_TTL);
	if(!nsec && !nsec3) {
		ldns_rr_list* cname = rrs_of(w->sub_answer,
			LDNS_RR_TYPE_CNAME, w->next, 0);
		ldns_rr_list_free(cname);
		if(cname)   /* an alias in the zone: no cut here */
			return -1;
		if(!ve->harden_stripped)
			return walk_insecure(qs, w, z, w->next, ttl);
		why.text = "no DS and no proof of its absence";
		why.ede = VAL_EDE_NSEC_MISSING;
		return walk_bad_proof(qs, vq, z, &why);
	}
	if(!denial_secure(w, ve, nsec ? nsec : nsec3, nsec ?
		LDNS_RR_TYPE_NSEC : LDNS_RR_TYPE_NSEC3, &why)) {
		/* a kept referral's: not for the next try */
		neg_nsec3_forget(neg_nsec3_of(qs->env->neg_cache),
			nsec ? nsec : nsec3);
		ldns_rr_list_free(nsec);
		ldns_rr_list_free(nsec3);
		return walk_bad_proof(qs, vq, z, &why);
	}
	if(nsec)
		st = val_nsec_prove_nods(nsec, w->next, &why);
	else {
		struct nsec3_budget b = { NSEC3_HASH_BUDGET, 0 };
		struct val_nsec3_env e;
		e.max_iterations = val_nsec3_iter_max(&ve->nsec3_iter,
			val_nsec3_zone_keysize(w->dnskeys));
		e.cache = &vq->nsec3_cache;
		e.budget = &b;
		st = val_nsec3_prove_nods(nsec3, w->next, &e, &why);
		if(st == VAL_NSEC3_SUSPEND) {
			/* the hashes made are kept; the rest next turn */
			ldns_rr_list_free(nsec);
			ldns_rr_list_free(nsec3);
			return -2;
		}
		if(st == SEC_SECURE)
			/* verified: a client's DS question may use it now */
			neg_nsec3_add(neg_nsec3_of(qs->env->neg_cache),
				w->sub_authority, NULL, NEG_NSEC3_VERIFIED,
				time(NULL));
	}
	ldns_rr_list_free(nsec);
	ldns_rr_list_free(nsec3);
	if(w->sub_rcode == RCODE_NXDOMAIN) {
		/* compat: unbound-1.17: a signed NXDOMAIN whose records prove
		 * what a NODATA would (an empty non-terminal, as some servers
		 * answer for one) is taken as that NODATA, as Unbound's
		 * ds_response_to_ke; only a real name error means nothing
		 * exists below (walk on, the step decides) */
		if(st != SEC_SECURE && st != SEC_INSECURE &&
			st != SEC_INDETERMINATE)
			return -1;
		verbose(VERB_ALGO, "validator: NXDOMAIN for a DS proves "
			"no name error: taken as NODATA");
		w->sub_rcode = RCODE_NOERROR;
	}
	switch(st) {
	case SEC_SECURE:      /* a delegation without DS */
	case SEC_INSECURE:    /* opt-out, or iterations over the limit */
		return walk_insecure(qs, w, z, w->next, ttl);
	case SEC_INDETERMINATE:
		return -1;    /* no delegation at next: walk on */
	default:
		if(!why.text) {
			why.text = "no DS and no proof of its absence";
			why.ede = VAL_EDE_NSEC_MISSING;
		}
		return walk_bad_proof(qs, vq, z, &why);
	}
}

/* The DS answer for w->next came. 1: decided, 0: asked the DNSKEY,
 * -1: no zone cut at next (walk on), -2: resume later. */
static int take_ds(struct module_qstate* qs, struct val_qstate* vq,
	struct val_env* ve, struct val_zone* z)
{
	struct val_walk* w = vq->walk;
	ldns_rr_list* ds, *sigs;
	struct val_verify_result res;
	struct val_budget b;
	enum sec_status st;
	if(w->sub_rcode != RCODE_NOERROR && w->sub_rcode != RCODE_NXDOMAIN) {
		struct val_reason why = { "no DS: the lookup failed",
			VAL_EDE_DNSSEC_BOGUS };
		return walk_bogus(w, z, &why);
	}
	ds = rrs_of(w->sub_answer, LDNS_RR_TYPE_DS, w->next, 0);
	if(!ds)
		return take_no_ds(qs, vq, ve, z);
	sigs = rrs_of(w->sub_answer, LDNS_RR_TYPE_DS, w->next, 1);
	memset(&res, 0, sizeof(res));
	val_budget_init(&b);
	st = val_verify_rrset(ve->sigctx, ds, sigs, w->keys, &ve->sig,
		time(NULL), &b, &res);
	if(st != SEC_SECURE) {
		ldns_rr_list_free(ds);
		if(!sigs && !ve->harden_stripped)
			return walk_insecure(qs, w, z, w->next, NULL_KEY_TTL);
		ldns_rr_list_free(sigs);
		if(!res.reason.text) {
			res.reason.text = "DS does not verify";
			res.reason.ede = VAL_EDE_DNSSEC_BOGUS;
		}
		return walk_bad(qs, vq, z, w->next, &res.reason);
	}
	ldns_rr_list_free(sigs);
	if(!val_dsset_usable(ds)) {
		/* unsupported algorithms or digests only: insecure
		 * (RFC 4035 5.2) */
		uint32_t ttl = min_ttl(ds, NULL_KEY_TTL);
		ldns_rr_list_free(ds);
		return walk_insecure(qs, w, z, w->next, ttl);
	}
	ldns_rr_list_deep_free(w->ds);
	w->ds = ldns_rr_list_clone(ds);
	ldns_rr_list_free(ds);
	if(!w->ds || !ask(qs, vq, w->next, TYPE_DNSKEY)) {
		struct val_reason why = { "could not fetch the DNSKEY",
			VAL_EDE_DNSKEY_MISSING };
		return walk_bogus(w, z, &why);
	}
	return 0;
}

/* The name one label below pos on the way to target. */
static const uint8_t* one_below(const uint8_t* target, const uint8_t* pos)
{
	const uint8_t* n = target;
	int strip = dname_count_labels(target) - dname_count_labels(pos) - 1;
	while(strip-- > 0)
		n = dname_remove_label(n);
	return n;
}

int val_walk_step(struct module_qstate* qs, struct val_qstate* vq,
	struct val_env* ve, struct val_zone* z)
{
	struct val_walk* w;
	uint8_t pos[LDNS_MAX_DOMAINLEN + 1];
	if(z->status != SEC_UNCHECKED)
		return 1;
	if((!vq->walk && !(vq->walk = calloc(1, sizeof(*vq->walk)))) ||
		(!vq->last && !(vq->last = calloc(1, sizeof(*vq->last))))) {
		z->status = SEC_BOGUS;
		z->why.text = "out of memory";
		z->why.ede = VAL_EDE_DNSSEC_BOGUS;
		return 1;
	}
	w = vq->walk;
	if(!w->active || w->z != z) {
		if(walk_start(qs, vq, ve, z))
			return 1;
		if(w->wait != WALK_IDLE)
			return 0;     /* asked the anchor's DNSKEY */
	}
	/* where the walk stands: the secure zone, or a name below it that
	 * was shown to be no zone cut */
	name_copy(pos, w->wait == WALK_WAIT_DS ? w->next : w->cur);
	if(w->wait != WALK_IDLE) {
		int r;
		if(!w->sub_done)
			return 0;
		r = w->wait == WALK_WAIT_DNSKEY ? take_dnskey(qs, vq, ve, z) :
			take_ds(qs, vq, ve, z);
		if(r == 1)
			return 1;
		if(r == -2) {
			if(++vq->budget.suspends > VAL_MAX_SUSPENDS) {
				struct val_reason why = val_budget_reason();
				return walk_bogus(w, z, &why);
			}
			ve->stats.suspends++;
			mesh_resume_later(qs->ms);
			return 0;
		}
		if(r == 0)
			return 0;     /* the DNSKEY was asked */
		if(w->wait == WALK_WAIT_DNSKEY)
			name_copy(pos, w->cur);   /* keys taken: from cur */
		w->wait = WALK_IDLE;
		if(r == -1 && query_dname_compare(pos, z->target) == 0) {
			/* reached the target and it is no zone cut */
			if(z->signer) {
				struct val_reason why = { "signer is not a "
					"zone apex", VAL_EDE_DNSSEC_BOGUS };
				return walk_bogus(w, z, &why);
			}
			return walk_done(w, z, SEC_SECURE, NULL,
				VAL_EDE_NONE);
		}
		if(r == -1 && w->sub_rcode == RCODE_NXDOMAIN)
			return walk_done(w, z, z->signer ? SEC_BOGUS :
				SEC_SECURE, "signer name does not exist",
				VAL_EDE_DNSSEC_BOGUS);
	}
	if(query_dname_compare(pos, z->target) == 0 ||
		!val_name_under(z->target, pos))
		return walk_done(w, z, SEC_SECURE, NULL, VAL_EDE_NONE);
	if(!ask(qs, vq, one_below(z->target, pos), TYPE_DS)) {
		struct val_reason why = { "could not fetch the DS",
			VAL_EDE_DNSSEC_BOGUS };
		return walk_bogus(w, z, &why);
	}
	return 0;
}
