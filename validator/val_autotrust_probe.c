/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_autotrust_probe.c - compat: unbound-1.17: the RFC 5011 probes:
 * one worker (the first whose validator starts) keeps a timer; when a point's
 * next_probe_time comes, it asks the zone's DNSKEY set through its mesh (CD
 * and DO, with the cached DNSKEY RRset and messages removed first so the
 * servers are asked, as Unbound does), checks the answer against the keys the
 * point trusts (the signatures here, the states in val_autotrust_state.c),
 * writes the file and publishes the new trusted keys to the validator. */
#include "config.h"
#include "validator/val_autotrust.h"
#include "validator/val_anchor.h"
#include "validator/val_module.h"
#include "validator/val_sig.h"
#include "services/cache/msgcache.h"
#include "services/cache/rrset.h"
#include "services/mesh.h"
#include "util/rrlist_pack.h"
#include "validator/val_kcache.h"
#include "util/config_file.h"
#include "util/log.h"
#include "util/module.h"
#include "util/msgparse.h"
#include "util/random.h"
#include "util/reply_parse.h"
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>

/* Probes in flight at once (one per point; few files are configured). */
#define PROBE_SLOTS 8

struct probe_slot {
	struct autr_prober* pr;
	int busy;
	uint8_t name[LDNS_MAX_DOMAINLEN + 1];
	size_t namelen;
	uint16_t dclass;
};

struct autr_prober {
	struct module_env* env;
	struct val_env* ve;
	struct event* timer;
	int first;              /* the first run probes every point */
	struct probe_slot slots[PROBE_SLOTS];
};

/* One worker probes; this says whether one does already. */
static atomic_int prober_claimed;

static void params_of(const struct config_file* cfg, struct autr_params* p)
{
	p->add_holddown = (time_t)cfg->add_holddown;
	p->del_holddown = (time_t)cfg->del_holddown;
	p->keep_missing = (time_t)cfg->keep_missing;
	p->permit_small = cfg->permit_small_holddown;
}

/* The point of the current anchors for (name, class), or NULL (a reload
 * may have dropped it while the probe was out). */
static struct autr_point* point_of(struct autr_prober* pr,
	const uint8_t* name, size_t namelen, uint16_t dclass)
{
	const struct val_anchors* as = pr->env->anchors;
	size_t i, n = val_anchors_count(as);
	for(i = 0; i < n; i++) {
		const struct val_anchor* a = val_anchors_get(as, i);
		if(a->autr && a->autr->dclass == dclass &&
			a->autr->namelen == namelen &&
			memcmp(a->autr->name, name, namelen) == 0)
			return a->autr;
	}
	return NULL;
}

/* RRs of the answer owned by the zone: the DNSKEYs, or (sigs) the
 * RRSIGs that cover DNSKEY. */
static ldns_rr_list* answer_rrs(const ldns_pkt* pkt,
	const struct autr_point* p, int sigs)
{
	ldns_rr_list* ans = ldns_pkt_answer(pkt);
	ldns_rr_list* out = ldns_rr_list_new();
	size_t i;
	if(!out)
		return NULL;
	for(i = 0; i < ldns_rr_list_rr_count(ans); i++) {
		ldns_rr* rr = ldns_rr_list_rr(ans, i);
		ldns_rdf* own = ldns_rr_owner(rr);
		if(ldns_rdf_size(own) != p->namelen ||
			strncasecmp((char*)ldns_rdf_data(own),
			(char*)p->name, p->namelen) != 0 ||
			ldns_rr_get_class(rr) != p->dclass)
			continue;
		if(sigs ? (ldns_rr_get_type(rr) != LDNS_RR_TYPE_RRSIG ||
			ldns_rr_rd_count(rr) < 1 || ldns_rdf2rr_type(
			ldns_rr_rrsig_typecovered(rr)) != LDNS_RR_TYPE_DNSKEY)
			: ldns_rr_get_type(rr) != LDNS_RR_TYPE_DNSKEY)
			continue;
		if(!ldns_rr_list_push_rr(out, rr)) {
			ldns_rr_list_free(out);
			return NULL;
		}
	}
	return out;
}

/* Is key (with the REVOKE bit) the signer of an RRSIG over the set? */
static int selfsigned(struct val_env* ve, ldns_rr* key,
	const ldns_rr_list* keys, const ldns_rr_list* sigs, time_t now)
{
	ldns_rr_list* one = ldns_rr_list_new();
	struct val_keyset* ks;
	struct val_budget b;
	struct val_verify_result res;
	enum sec_status st = SEC_BOGUS;
	if(!one || !ldns_rr_list_push_rr(one, key)) {
		ldns_rr_list_free(one);
		return 0;
	}
	if((ks = val_keyset_create(one)) != NULL) {
		val_budget_init(&b);
		memset(&res, 0, sizeof(res));
		st = val_verify_rrset(ve->sigctx, keys, sigs, ks, &ve->sig,
			now, &b, &res);
		val_keyset_delete(ks);
	}
	ldns_rr_list_free(one);
	return st == SEC_SECURE;
}

/* Is the set signed by a key the point trusts (or a DS it holds)? */
static int verify_set(struct val_env* ve, const struct autr_point* p,
	const ldns_rr_list* keys, const ldns_rr_list* sigs, time_t now)
{
	const ldns_rr_list* tk = val_autotrust_trusted(p, 0);
	const ldns_rr_list* td = val_autotrust_trusted(p, 1);
	struct val_budget b;
	struct val_verify_result res;
	struct val_keyset* ks = NULL;
	enum sec_status st = SEC_BOGUS;
	if(tk) {
		val_budget_init(&b);
		memset(&res, 0, sizeof(res));
		st = val_verify_dnskey_with_keys(ve->sigctx, keys, sigs, tk,
			&ve->sig, now, &b, &res, &ks);
		val_keyset_delete(ks);
		ks = NULL;
	}
	if(st != SEC_SECURE && td) {
		val_budget_init(&b);
		memset(&res, 0, sizeof(res));
		st = val_verify_dnskey_with_ds(ve->sigctx, keys, sigs, td,
			&ve->sig, now, &b, &res, &ks);
		val_keyset_delete(ks);
	}
	return st == SEC_SECURE;
}

static int kstore(void* arg, const struct packed_rrset* set)
{
	struct val_kcache* kc = arg;
	if(set->type == LDNS_RR_TYPE_DNSKEY)
		(void)val_kcache_store_good(kc, set, time(NULL));
	return 1;
}

/* The verified set replaces what the key cache holds for the zone (a
 * bad entry from a failed validation included), as the validator's own
 * priming would. */
static void store_keys(struct val_kcache* kc, const ldns_rr_list* keys)
{
	if(kc)
		(void)rrlist_for_each_rrset(keys, kstore, kc);
}

/* Seconds to the earliest RRSIG expiry still ahead, at most 15 days. */
static time_t sig_left(const ldns_rr_list* sigs, time_t now)
{
	time_t r = 15 * 24 * 3600;
	size_t i;
	for(i = 0; i < ldns_rr_list_rr_count(sigs); i++) {
		ldns_rdf* e = ldns_rr_rrsig_expiration(
			ldns_rr_list_rr(sigs, i));
		int32_t left;
		if(!e)
			continue;
		/* serial arithmetic, as RRSIG times wrap (RFC 4034 3.1.5) */
		left = (int32_t)(ldns_rdf2native_int32(e) - (uint32_t)now);
		if(left > 0 && left < r)
			r = left;
	}
	return r;
}

/* The answer's keys through the state machine. Locked by the caller. */
static void process(struct autr_prober* pr, struct autr_point* p,
	const ldns_rr_list* keys, const ldns_rr_list* sigs, time_t now)
{
	struct autr_params par;
	struct val_env* ve = pr->ve;
	const ldns_rr_list* ds;
	char* dsm = NULL, *sup = NULL;
	size_t i, n = ldns_rr_list_rr_count(keys);
	int changed = 0;
	params_of(pr->env->cfg, &par);
	p->last_queried = now;
	val_autr_holddown_exceed(p, now, &par, &changed);
	if(n == 0) {
		verbose(VERB_ALGO, "autotrust: no DNSKEY set in the answer");
		if(changed) {
			(void)val_autr_publish(p);
			(void)val_autr_write_file(p);
		}
		return;
	}
	for(i = 0; i < n; i++) {
		ldns_rr* rr = ldns_rr_list_rr(keys, i);
		struct autr_key* k;
		if(!val_autr_rr_is_sep(rr) || !val_autr_rr_is_revoked(rr))
			continue;
		if((k = val_autr_find_key(p, rr)) != NULL &&
			selfsigned(ve, rr, keys, sigs, now))
			val_autr_key_revoked(k, now, &changed);
	}
	if(changed && !val_autr_has_trust(p)) {
		char buf[LDNS_MAX_DOMAINLEN * 4 + 8];
		ldns_rdf* d = ldns_rdf_new_frm_data(LDNS_RDF_TYPE_DNAME,
			p->namelen, p->name);
		char* s = d ? ldns_rdf2str(d) : NULL;
		snprintf(buf, sizeof(buf), "%s", s ? s : "?");
		free(s);
		ldns_rdf_deep_free(d);
		log_warn("trust point %s was revoked: every key of it is "
			"revoked; it is no longer an anchor", buf);
		p->revoked = 1;
		p->last_success = now;
		p->next_probe_time = 0;
		/* what was validated from this anchor is not any more */
		(void)val_kcache_flush_zone(pr->ve->kc, p->name, now);
		goto done;
	}
	(void)val_autr_publish(p);
	if(!verify_set(ve, p, keys, sigs, now)) {
		verbose(VERB_ALGO, "autotrust: the DNSKEY set did not verify "
			"with the trusted keys");
		if(p->last_success) {
			p->query_failed++;
			(void)val_autr_write_file(p);
		}
		return;
	}
	p->last_success = now;
	p->query_failed = 0;
	store_keys(pr->ve->kc, keys);
	ds = val_autotrust_trusted(p, 1);
	dsm = calloc(n ? n : 1, 1);
	sup = calloc(n ? n : 1, 1);
	if(!dsm || !sup) {
		log_err("autotrust: out of memory");
		free(dsm);
		free(sup);
		return;
	}
	for(i = 0; i < n; i++) {
		ldns_rr* rr = ldns_rr_list_rr(keys, i);
		size_t j;
		sup[i] = ldns_rr_rd_count(rr) >= 4 && val_algo_supported(
			ldns_rdf2native_int8(ldns_rr_rdf(rr, 2)));
		for(j = 0; ds && j < ldns_rr_list_rr_count(ds); j++)
			if(val_ds_match_dnskey(ve->sigctx,
				ldns_rr_list_rr(ds, j), rr))
				dsm[i] = 1;
	}
	if(!val_autr_update(p, keys, dsm, sup, ldns_rr_ttl(ldns_rr_list_rr(keys,
		0)), sig_left(sigs, now), now, &par, &changed))
		log_err("autotrust: out of memory; the point is unchanged");
	free(dsm);
	free(sup);
	p->next_probe_time = val_autr_next_probe(now, p->query_interval,
		par.permit_small, ub_random(pr->env->rnd));
done:
	if(!val_autr_publish(p))
		log_err("autotrust: out of memory publishing the keys");
	(void)val_autr_write_file(p);
}

static void schedule(struct autr_prober* pr);

static void probe_answer(void* arg, const uint8_t* reply, size_t len,
	int rcode, int security)
{
	struct probe_slot* sl = arg;
	struct autr_prober* pr = sl->pr;
	struct autr_point* p;
	ldns_pkt* pkt = NULL;
	(void)security;
	sl->busy = 0;
	p = point_of(pr, sl->name, sl->namelen, sl->dclass);
	if(!p || !reply || rcode == MESH_DROPPED ||
		reply_wire2pkt(&pkt, reply, len) != LDNS_STATUS_OK) {
		verbose(VERB_ALGO, "autotrust: probe got no answer");
	} else {
		ldns_rr_list* keys = answer_rrs(pkt, p, 0);
		ldns_rr_list* sigs = answer_rrs(pkt, p, 1);
		if(keys && sigs) {
			pthread_mutex_lock(&p->lock);
			process(pr, p, keys, sigs, time(NULL));
			pthread_mutex_unlock(&p->lock);
		}
		ldns_rr_list_free(keys);
		ldns_rr_list_free(sigs);
	}
	ldns_pkt_free(pkt);
	schedule(pr);
}

static void send_probe(struct autr_prober* pr, struct autr_point* p)
{
	struct module_env* env = pr->env;
	struct query_info qi;
	struct probe_slot* sl = NULL;
	size_t i;
	for(i = 0; i < PROBE_SLOTS; i++)
		if(!pr->slots[i].busy) {
			sl = &pr->slots[i];
			break;
		}
	if(!sl)
		return;   /* tried again at the retry time */
	memset(&qi, 0, sizeof(qi));
	qi.id = ub_random16(env->rnd);
	qi.flags = FLAG_RD | FLAG_CD;
	memcpy(qi.qname, p->name, p->namelen);
	qi.qname_len = p->namelen;
	qi.qtype = LDNS_RR_TYPE_DNSKEY;
	qi.qclass = p->dclass;
	qi.has_edns = 1;
	qi.edns_udp_size = 65535;
	qi.edns_do = 1;
	sl->pr = pr;
	memcpy(sl->name, p->name, p->namelen);
	sl->namelen = p->namelen;
	sl->dclass = p->dclass;
	sl->busy = 1;
	/* ask the servers, not the caches */
	rrset_cache_remove(env->rrset_cache, p->name, LDNS_RR_TYPE_DNSKEY,
		p->dclass, 0);
	msg_cache_remove(env->msg_cache, p->name, LDNS_RR_TYPE_DNSKEY,
		p->dclass);
	verbose(VERB_ALGO, "autotrust: probe %s", p->file);
	if(mesh_new_client(env->mesh, &qi, 65535, 65535, probe_answer, sl)
		!= MESH_NEW_ADDED) {
		sl->busy = 0;
		verbose(VERB_ALGO, "autotrust: mesh full, probe later");
	}
}

/* Probe what is due; arm the timer for the next one. */
static void run_due(struct autr_prober* pr)
{
	const struct val_anchors* as = pr->env->anchors;
	size_t i, n = val_anchors_count(as);
	time_t now = time(NULL);
	int small = pr->env->cfg->permit_small_holddown;
	for(i = 0; i < n; i++) {
		const struct val_anchor* a = val_anchors_get(as, i);
		struct autr_point* p = a->autr;
		int due;
		if(!p)
			continue;
		pthread_mutex_lock(&p->lock);
		due = !p->revoked && (pr->first || p->next_probe_time <= now);
		if(due)   /* the retry, unless the answer sets it anew */
			p->next_probe_time = val_autr_next_probe(now,
				p->retry_time, small, ub_random(pr->env->rnd));
		pthread_mutex_unlock(&p->lock);
		if(due)
			send_probe(pr, p);
	}
	pr->first = 0;
	schedule(pr);
}

static void probe_timer(evutil_socket_t fd, short ev, void* arg)
{
	(void)fd;
	(void)ev;
	run_due(arg);
}

static void schedule(struct autr_prober* pr)
{
	const struct val_anchors* as = pr->env->anchors;
	size_t i, n = val_anchors_count(as);
	time_t now = time(NULL), next = 0;
	struct timeval tv;
	int any = 0;
	for(i = 0; i < n; i++) {
		const struct val_anchor* a = val_anchors_get(as, i);
		time_t t;
		int revoked;
		if(!a->autr)
			continue;
		pthread_mutex_lock(&a->autr->lock);
		t = a->autr->next_probe_time;
		revoked = a->autr->revoked;
		pthread_mutex_unlock(&a->autr->lock);
		if(revoked)
			continue;
		if(!any || t < next)
			next = t;
		any = 1;
	}
	if(!any) {
		evtimer_del(pr->timer);
		return;
	}
	tv.tv_sec = next > now ? next - now : 0;
	tv.tv_usec = 0;
	evtimer_add(pr->timer, &tv);
}

struct autr_prober* val_autotrust_prober_start(struct module_env* env,
	struct val_env* ve)
{
	struct autr_prober* pr;
	int expect = 0;
	if(!atomic_compare_exchange_strong(&prober_claimed, &expect, 1))
		return NULL;   /* another worker probes */
	if(!(pr = calloc(1, sizeof(*pr))) || !(pr->timer = evtimer_new(
		env->base, probe_timer, pr))) {
		free(pr);
		atomic_store(&prober_claimed, 0);
		log_err("autotrust: out of memory, no RFC 5011 probes");
		return NULL;
	}
	pr->env = env;
	pr->ve = ve;
	pr->first = 1;
	/* compat: unbound-1.17: at once, as Unbound processes its anchors when
	 * it first primes */
	{
		struct timeval tv = { 0, 0 };
		evtimer_add(pr->timer, &tv);
	}
	return pr;
}

void val_autotrust_prober_reconfigure(struct autr_prober* pr)
{
	if(!pr)
		return;
	pr->first = 1;   /* new anchors, read from the files again */
	{
		struct timeval tv = { 0, 0 };
		evtimer_add(pr->timer, &tv);
	}
}

void val_autotrust_prober_stop(struct autr_prober* pr)
{
	if(!pr)
		return;
	event_free(pr->timer);
	free(pr);
	atomic_store(&prober_claimed, 0);
}
