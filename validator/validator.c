/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/validator.c - compat: unbound-1.17: the validator module
 * (util/module.h): DNSSEC validation of what the module below (the iterator)
 * found, as Unbound 1.17's validator. The steps are in val_module.h; the chain
 * of trust is val_walk.c, the message check val_msg.c, signatures val_sig.h,
 * denial proofs val_nsec.h and val_nsec3.h, anchors val_anchor.h, the key
 * cache val_kcache.h. */
#include "config.h"
#include "validator/val_module.h"
#include "validator/val_anchor.h"
#include "validator/val_autotrust.h"
#include "validator/val_kcache.h"
#include "validator/val_signal.h"
#include "services/cache/neg_cache.h"
#include "services/cache/neg_nsec3.h"
#include "services/mesh.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/module.h"
#include "util/msgparse.h"
#include "util/net_help.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <event2/event.h>

static void settings_from_cfg(struct val_env* ve, const struct config_file* c)
{
	char err[128];
	val_sig_settings_init(&ve->sig);
	ve->sig.skew_min = (uint32_t)c->val_sig_skew_min;
	ve->sig.skew_max = (uint32_t)c->val_sig_skew_max;
	ve->sig.date_override = c->val_date_override;
	ve->sig.harden_algo_downgrade = c->harden_algo_downgrade;
	ve->sig.min_ttl = c->min_ttl > 0 ? (uint32_t)c->min_ttl : 0;
	if(!val_nsec3_iter_parse(c->val_nsec3_key_iterations ?
		c->val_nsec3_key_iterations : NSEC3_ITER_DEFAULT,
		&ve->nsec3_iter, err, sizeof(err)))
		(void)val_nsec3_iter_parse(NSEC3_ITER_DEFAULT, &ve->nsec3_iter,
			err, sizeof(err));   /* config_read refused it */
	ve->bogus_ttl = c->bogus_ttl > 0 ? (uint32_t)c->bogus_ttl : 0;
	ve->permissive = c->val_permissive_mode;
	ve->ignore_cd = c->ignore_cd;
	ve->clean_additional = c->val_clean_additional;
	ve->log_level = c->val_log_level;
	ve->harden_stripped = c->harden_dnssec_stripped;
	ve->max_restart = c->val_max_restart > 0 ? c->val_max_restart : 0;
	ve->ede = c->ede;
	ve->ta_signaling = c->trust_anchor_signaling;
	ve->root_key_sentinel = c->root_key_sentinel;
	ve->aggressive = c->aggressive_nsec;
	ve->max_neg_ttl = c->max_negative_ttl > 0 ?
		(uint32_t)c->max_negative_ttl : 0;
}

static int val_init(struct module_env* env, int id)
{
	struct val_env* ve = calloc(1, sizeof(*ve));
	if(!ve || !(ve->sigctx = val_sig_ctx_create())) {
		free(ve);
		return 0;
	}
	settings_from_cfg(ve, env->cfg);
	spare_list_init(&ve->state_spare, VAL_STATE_SPARE_MAX);
	ve->kc = env->modglobal[id];
	env->modinfo[id] = ve;
	ve->prober = val_autotrust_prober_start(env, ve);
	return 1;
}

static void val_deinit(struct module_env* env, int id)
{
	struct val_env* ve = env->modinfo[id];
	if(!ve)
		return;
	val_autotrust_prober_stop(ve->prober);
	val_sig_ctx_delete(ve->sigctx);
	spare_list_clear(&ve->state_spare);
	free(ve);
}

static void val_reconfigure(struct module_env* env, int id)
{
	struct val_env* ve = env->modinfo[id];
	settings_from_cfg(ve, env->cfg);
	val_autotrust_prober_reconfigure(ve->prober);
}

static void val_clear(struct module_qstate* qs, int id)
{
	struct val_env* ve = qs->env->modinfo[id];
	struct val_qstate* vq = qs->minfo[id];
	if(!vq)
		return;
	if(vq->deadline)
		event_free(vq->deadline);
	val_walk_clear(vq->walk);
	free(vq->walk);
	free(vq->last);
	val_zones_clear(vq);
	val_nsec3_cache_clear(&vq->nsec3_cache);
	if(vq->first) {
		module_result_clear(vq->first);
		free(vq->first);
	}
	if(vq->avoid && qs->avoid == vq->avoid) {
		qs->avoid = NULL;
		qs->num_avoid = 0;
	}
	free(vq->avoid);
	free(vq->wild_ce);
	if(ve)
		spare_free(&ve->state_spare, vq);
	else	free(vq);
	qs->minfo[id] = NULL;
}

/* The question's time bound, the iterator's (util/module.h); a build
 * may set it lower to see the bound work. */
#ifndef VAL_MAX_TIME_MS
#define VAL_MAX_TIME_MS MODULE_MAX_QUERY_MS
#endif

static uint64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* glibc 2.36 serves a request over 1 KiB past its per-thread cache and
 * consolidates its free lists for it: about 1,000 instructions a miss
 * more (issue 32) */
_Static_assert(sizeof(struct val_qstate) <= 1024,
	"struct val_qstate over 1 KiB: keep rarely used parts apart");

static struct val_qstate* state_new(struct module_qstate* qs, int id)
{
	struct val_env* ve = qs->env->modinfo[id];
	struct val_qstate* vq = ve ? spare_zalloc(&ve->state_spare,
		sizeof(*vq)) : zalloc(sizeof(*vq));
	if(!vq)
		return NULL;
	vq->id = id;
	vq->start_ms = mono_ms();
	val_budget_init(&vq->budget);
	val_nsec3_cache_init(&vq->nsec3_cache);
	qs->minfo[id] = vq;
	return vq;
}

/* snprintf for the reason texts, which are cut to their buffer on
 * purpose (a long name, many servers). */
static void textf(char* buf, size_t len, const char* fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	(void)vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* compat: unbound-1.17: "name type class" as Unbound writes a question in its
 * messages. */
static void question_str(const struct module_qstate* qs, char* buf,
	size_t len)
{
	char n[LDNS_MAX_DOMAINLEN * 4 + 8];
	char* t = ldns_rr_type2str((ldns_rr_type)qs->qtype);
	char* c = ldns_rr_class2str((ldns_rr_class)qs->qclass);
	dname_to_str(qs->qname, n, sizeof(n));
	textf(buf, len, "%s %s %s", n, t ? t : "TYPE?", c ? c : "CLASS?");
	free(t);
	free(c);
}

/* compat: unbound-1.17: " from 127.0.0.5 and 127.0.0.4" (Unbound's
 * errinf_origin). */
static void append_from(char* buf, size_t len, const struct module_from* f,
	int num)
{
	int i;
	for(i = 0; i < num; i++) {
		char a[64];
		size_t l = strlen(buf);
		addr_to_str(&f[i].addr, f[i].len, a, sizeof(a));
		/* compat: unbound-1.17: addr_to_str writes 127.0.0.5 port 53
		 * as Unbound's sockaddr text; Unbound's origin text is the
		 * address */
		a[strcspn(a, " #@")] = 0;
		textf(buf + l, len - l, "%s%s", i ? " and " : " from ", a);
	}
}

/* The zone of the walk that failed with why, or NULL when the failure
 * is the message's own. */
static const struct val_zone* failed_zone(const struct val_qstate* vq,
	const struct val_reason* why)
{
	int i;
	for(i = 0; i < vq->num_zones; i++)
		if(vq->zones[i]->status == SEC_BOGUS &&
			vq->zones[i]->why.text == why->text)
			return vq->zones[i];
	return NULL;
}

/* compat: unbound-1.17: Why the message is bogus, in Unbound's words, into
 * qs->res.ede_text (as "validation failure <q>: reason from server [for key
 * zone. while building chain of trust]"); returns the EDE code Unbound gives
 * at this val-log-level. A fresh key failure is kept in the key cache with
 * this text, so later queries say "marked as invalid because of" it, as
 * Unbound. */
static int explain(struct module_qstate* qs, struct val_qstate* vq,
	struct val_env* ve, const struct val_reason* why)
{
	char q[LDNS_MAX_DOMAINLEN * 4 + 40], d[MODULE_REASON_LEN];
	char* out = qs->res.ede_text;
	const struct val_zone* z = failed_zone(vq, why);
	int code = why->ede;
	question_str(qs, q, sizeof(q));
	d[0] = 0;
	if(z && (strcmp(why->text, "key cache: bad keys") == 0 ||
		strcmp(why->text, "key for validation is bad") == 0)) {
		/* a key failure seen before */
		const struct val_kentry* e = ve->kc ?
			val_kcache_lookup_closest(ve->kc,
			z->target, qs->qclass, time(NULL)) : NULL;
		char n[LDNS_MAX_DOMAINLEN * 4 + 8];
		const char* prev = e && e->reason ? e->reason : "";
		dname_to_str(e ? e->name : z->target, n, sizeof(n));
		if(e && qs->qtype == TYPE_DNSKEY &&
			query_dname_compare(e->name, qs->qname) == 0) {
			/* compat: unbound-1.17: Unbound checks a zone's own
			 * DNSKEY from the parent's DS again: the key failure,
			 * anew */
			const char* p = strstr(prev, ">: ");
			textf(d, sizeof(d), "%s", p ? p + 3 : prev);
			code = ve->log_level < 2 ? VAL_EDE_DNSKEY_MISSING :
				(int)e->ede;
		} else {
			textf(d, sizeof(d), "key for validation %s is marked "
				"as invalid because of a previous validation "
				"failure %s", n, prev);
			code = VAL_EDE_DNSSEC_BOGUS;
		}
		if(e)
			val_kcache_release(ve->kc, e);
	} else if(z && vq->last && vq->last->qtype) {
		const struct val_lookup* last = vq->last;
		char n[LDNS_MAX_DOMAINLEN * 4 + 8];
		struct val_reason kept;
		size_t l;
		dname_to_str(last->name, n, sizeof(n));
		textf(d, sizeof(d), "%s", why->text);
		append_from(d, sizeof(d), last->from, last->num_from);
		l = strlen(d);
		textf(d + l, sizeof(d) - l, " for %s %s while building "
			"chain of trust", last->qtype == TYPE_DS ? "DS" :
			"key", n);
		/* what the key cache keeps: the question and this */
		textf(out, MODULE_REASON_LEN, "<%s>: %s", q, d);
		kept.text = out;
		kept.ede = why->ede;
		if(ve->kc) {
			const struct val_kentry* e = val_kcache_lookup(
				ve->kc, last->name, qs->qclass,
				time(NULL));
			int bad = e && e->status == VAL_KEY_BAD;
			if(e)
				val_kcache_release(ve->kc, e);
			if(bad)
				(void)val_kcache_store_bad(ve->kc,
					last->name, qs->qclass, &kept,
					time(NULL));
		}
		/* compat: unbound-1.17: Unbound 1.17 keeps the key failure's
		 * own code only with val-log-level 2; else "DNSKEY missing"
		 */
		if(ve->log_level < 2)
			code = VAL_EDE_DNSKEY_MISSING;
	} else {
		textf(d, sizeof(d), "%s", why->text);
		append_from(d, sizeof(d), qs->res.from, qs->res.num_from);
	}
	textf(out, MODULE_REASON_LEN, "validation failure <%s>: %s", q, d);
	if(ve->log_level >= 2)
		log_info("%s", out);
	else if(ve->log_level >= 1)
		log_info("validation failure %s", q);
	return code;
}

/* The message's status is known: set it, and turn bogus into SERVFAIL
 * unless the client may see it (CD, val-permissive-mode). */
/* compat: unbound-1.17: val-max-restart, as Unbound: bogus data in the answer
 * itself (the keys were fine) is asked again, without the servers that gave it
 * and without the caches' copy. Returns 1 when the question goes down again.
 * Failures of the chain of trust are not retried here: the key cache keeps
 * them (val-bogus-ttl). */
static int restart(struct module_qstate* qs, struct val_qstate* vq,
	struct val_env* ve, const struct val_reason* why)
{
	int i, j, added = 0;
	if(vq->cd || vq->restarts >= ve->max_restart)
		return 0;
	for(i = 0; i < vq->num_zones; i++)
		if(vq->zones[i]->status == SEC_BOGUS && vq->zones[i]->sticky)
			return 0;
	if(!vq->avoid && !(vq->avoid = calloc(VAL_MAX_AVOID,
		sizeof(*vq->avoid))))
		return 0;
	if(!vq->first && !(vq->first = calloc(1, sizeof(*vq->first))))
		return 0;
	for(i = 0; i < qs->res.num_from && vq->num_avoid < VAL_MAX_AVOID;
		i++) {
		const struct module_from* f = &qs->res.from[i];
		for(j = 0; j < vq->num_avoid; j++)
			if(vq->avoid[j].len == f->len && memcmp(
				&vq->avoid[j].addr, &f->addr, f->len) == 0)
				break;
		if(j == vq->num_avoid) {
			vq->avoid[vq->num_avoid++] = *f;
			added++;
		}
	}
	if(!added) {
		/* compat: unbound-1.17: an answer made from the caches (no
		 * server in it): asked of the servers once, as Unbound does
		 * with bogus data it had cached (a dump loaded without its
		 * signatures) */
		if(qs->res.num_from > 0 || (qs->flags & MODQ_REFETCH))
			return 0;   /* the same servers again: no gain */
		qs->flags |= MODQ_REFETCH;
	}
	vq->restarts++;
	if(verbosity >= VERB_ALGO) {
		char n[LDNS_MAX_DOMAINLEN * 4 + 8];
		dname_to_str(qs->qname, n, sizeof(n));
		verbose(VERB_ALGO, "validator: %s type %d bogus, restart %d "
			"without %d server(s)", n, (int)qs->qtype,
			vq->restarts, vq->num_avoid);
	}
	/* the zones stay as found (keys of secure ones, the verdict on
	 * unsigned data); the new answer is checked from the start */
	val_walk_clear(vq->walk);
	val_nsec3_cache_clear(&vq->nsec3_cache);
	val_nsec3_cache_init(&vq->nsec3_cache);
	val_budget_init(&vq->budget);
	vq->verify_from = 0;
	vq->num_wild = 0;
	vq->phase = VP_INIT;
	module_result_clear(vq->first);
	*vq->first = qs->res;    /* the lists move */
	vq->first_why = *why;
	vq->have_first = 1;
	memset(&qs->res, 0, sizeof(qs->res));
	module_result_clear(&qs->res);
	qs->avoid = vq->avoid;
	qs->num_avoid = vq->num_avoid;
	return 1;
}

/* No RR of list lives longer than ttl. */
static void cap_list_ttls(ldns_rr_list* list, uint32_t ttl)
{
	size_t i;
	for(i = 0; list && i < ldns_rr_list_rr_count(list); i++)
		if(ldns_rr_ttl(ldns_rr_list_rr(list, i)) > ttl)
			ldns_rr_set_ttl(ldns_rr_list_rr(list, i), ttl);
}

static enum module_state finish(struct module_qstate* qs,
	struct val_qstate* vq, struct val_env* ve, enum sec_status st,
	const struct val_reason* why)
{
	int code;
	if(st == SEC_BOGUS && restart(qs, vq, ve, why))
		return MODULE_WAIT_MODULE;
	if(st == SEC_SECURE && ve->root_key_sentinel &&
		val_sentinel_fails(qs->env->anchors, qs->qname, qs->qtype,
		qs->qclass)) {
		/* compat: unbound-1.17: RFC 8509: the answer is good, the key
		 * tag is not (or is) the resolver's: SERVFAIL (not cached, no
		 * EDE), as Unbound; a CD asker gets the data, without AD
		 */
		verbose(VERB_ALGO, "validator: root key sentinel fails");
		ve->stats.secure++;
		qs->res.security = SEC_SECURE_SENTINEL_FAIL;
		vq->phase = VP_DONE;
		if(!vq->cd)
			module_result_servfail(&qs->res);
		return MODULE_FINISHED;
	}
	qs->res.security = st;
	vq->phase = VP_DONE;
	if(verbosity >= VERB_ALGO) {
		char n[LDNS_MAX_DOMAINLEN * 4 + 8];
		dname_to_str(qs->qname, n, sizeof(n));
		verbose(VERB_ALGO, "validator: %s type %d is %s%s%s", n,
			(int)qs->qtype, st == SEC_SECURE ? "secure" :
			st == SEC_INSECURE ? "insecure" : st == SEC_BOGUS ?
			"bogus" : "indeterminate", why->text ? ": " : "",
			why->text ? why->text : "");
	}
	if(st == SEC_SECURE && ve->aggressive && qs->env->neg_cache)
		/* what it proves answers later questions (RFC 8198) */
		neg_cache_add(qs->env->neg_cache, qs->res.answer,
			qs->res.authority, time(NULL));
	else if(st == SEC_SECURE && qs->env->neg_cache)
		/* compat: unbound-1.17: DS absence even so (neg_nsec3.h) */
		neg_nsec3_add(neg_nsec3_of(qs->env->neg_cache),
			qs->res.authority, NULL, NEG_NSEC3_SECURE,
			time(NULL));
	switch(st) {
	case SEC_SECURE: ve->stats.secure++; break;
	case SEC_INSECURE: ve->stats.insecure++; break;
	case SEC_INDETERMINATE: ve->stats.indeterminate++; break;
	default: break;
	}
	if(st != SEC_BOGUS)
		return MODULE_FINISHED;
	ve->stats.bogus++;
	qs->res.why_bogus = *why;
	if(!qs->res.why_bogus.text)
		qs->res.why_bogus.text = "validation failed";
	if(qs->res.why_bogus.ede == VAL_EDE_NONE)
		qs->res.why_bogus.ede = VAL_EDE_DNSSEC_BOGUS;
	/* the texts only when a log line or an EDE option wants them */
	code = ve->log_level >= 1 || ve->ede ?
		explain(qs, vq, ve, &qs->res.why_bogus) : VAL_EDE_NONE;
	if(!vq->cd && !ve->permissive) {
		char text[MODULE_REASON_LEN];
		memcpy(text, qs->res.ede_text, sizeof(text));
		module_result_servfail(&qs->res);
		memcpy(qs->res.ede_text, text, sizeof(text));
		if(ve->ede) {
			/* compat: unbound-1.17: RFC 8914 on the SERVFAIL; the
			 * text (Unbound's errinf) only with val-log-level 2
			 */
			qs->res.has_ede = 1;
			qs->res.ede_code = (uint16_t)code;
			if(ve->log_level < 2)
				qs->res.ede_text[0] = 0;
			return MODULE_FINISHED;
		}
	}
	qs->res.ede_text[0] = 0;
	/* compat: unbound-1.17: bogus data answered (CD, val-permissive-mode)
	 * is kept no longer than val-bogus-ttl, as Unbound keeps its bogus
	 * messages */
	cap_list_ttls(qs->res.answer, ve->bogus_ttl);
	cap_list_ttls(qs->res.authority, ve->bogus_ttl);
	cap_list_ttls(qs->res.additional, ve->bogus_ttl);
	return MODULE_FINISHED;
}

/* Is there anything to validate: an anchor at or above the name? */
/* Is the question under a trust anchor with keys (not at or below a
 * domain-insecure point, which is an anchor of its own kind)? */
static int under_anchor(const struct module_qstate* qs)
{
	const struct val_anchor* a = qs->env->anchors ? val_anchor_find(
		qs->env->anchors, qs->qname, qs->qclass) : NULL;
	return a && a->kind == VAL_ANCHOR_KEYS;
}

static void deadline_cb(evutil_socket_t fd, short ev, void* arg)
{
	struct module_qstate* qs = arg;
	(void)fd;
	(void)ev;
	mesh_resume_later(qs->ms);
}

/* A timer for the end of the question's time, so a lookup that never
 * ends does not keep the state (and its client) waiting. */
static void arm_deadline(struct module_qstate* qs, struct val_qstate* vq)
{
	uint64_t left, el = mono_ms() - vq->start_ms;
	struct timeval tv;
	if(!qs->env->base || (vq->deadline &&
		evtimer_pending(vq->deadline, NULL)))
		return;
	left = el < VAL_MAX_TIME_MS ? VAL_MAX_TIME_MS - el : 0;
	left += 5;   /* past it when the timer runs */
	tv.tv_sec = (time_t)(left / 1000);
	tv.tv_usec = (suseconds_t)((left % 1000) * 1000);
	if(!vq->deadline)
		vq->deadline = evtimer_new(qs->env->base, deadline_cb, qs);
	if(vq->deadline)
		(void)evtimer_add(vq->deadline, &tv);
}

/* Find the keys of every zone involved, then check. */
static enum module_state run(struct module_qstate* qs, struct val_qstate* vq,
	struct val_env* ve)
{
	struct val_reason why = { NULL, VAL_EDE_NONE };
	int i;
	if(vq->phase == VP_KEYS) {
		/* Each lookup ends by its own bound, but a walk asks one
		 * after the other: the question's time bound ends it, the
		 * lookup still out left to the mesh (SERVFAIL, or the
		 * unchecked data for CD). */
		if(mono_ms() - vq->start_ms >= VAL_MAX_TIME_MS) {
			why.text = "validation took too long: the DS and "
				"DNSKEY lookups did not end in time";
			why.ede = VAL_EDE_NETWORK_ERROR;
			return finish(qs, vq, ve, SEC_BOGUS, &why);
		}
		for(i = 0; i < vq->num_zones; i++)
			if(!val_walk_step(qs, vq, ve, vq->zones[i])) {
				arm_deadline(qs, vq);
				return MODULE_WAIT_SUBQUERY;
			}
		vq->phase = VP_CHECK;
	}
	if(vq->phase == VP_CHECK) {
		enum sec_status st;
		if(val_budget_exhausted(&vq->budget) &&
			!val_budget_resume(&vq->budget)) {
			why = val_budget_reason();
			return finish(qs, vq, ve, SEC_BOGUS, &why);
		}
		st = val_msg_check(qs, vq, ve, &why);
		if(st == SEC_UNCHECKED) {
			/* KeyTrap bound: other queries go first */
			ve->stats.suspends++;
			verbose(VERB_ALGO, "validator: suspended after %d "
				"signature checks (%d so far)",
				vq->budget.msg_used, vq->budget.total);
			if(++vq->budget.suspends > VAL_MAX_SUSPENDS) {
				why = val_budget_reason();
				return finish(qs, vq, ve, SEC_BOGUS, &why);
			}
			vq->budget.msg_used = vq->budget.msg_max;
			mesh_resume_later(qs->ms);
			return MODULE_WAIT_SUBQUERY;
		}
		return finish(qs, vq, ve, st, &why);
	}
	return MODULE_FINISHED;
}

/* The state of a client's question (or a module's lookup, passed
 * through unchecked), or NULL when out of memory. */
static struct val_qstate* question_state_new(struct module_qstate* qs,
	int id, const struct val_env* ve)
{
	struct val_qstate* vq = state_new(qs, id);
	if(!vq)
		return NULL;
	/* a module's own lookup (DS, DNSKEY, NS addresses) is checked
	 * where it is used */
	vq->passthrough = (qs->flags & MODQ_NOVAL) != 0;
	vq->cd = (qs->flags & MODQ_CD) && !ve->ignore_cd;
	return vq;
}

/* The module below answered: what must be checked? vq is NULL when the
 * question came while no trust anchor had keys (val_operate). */
static enum module_state start_check(struct module_qstate* qs,
	struct val_qstate* vq, struct val_env* ve, int id)
{
	struct val_reason why = { "answer spans too many zones",
		VAL_EDE_DNSSEC_BOGUS };
	int passthrough = vq ? vq->passthrough :
		(qs->flags & MODQ_NOVAL) != 0;
	if(vq && !vq->passthrough && vq->have_first &&
		qs->res.rcode != RCODE_NOERROR && qs->res.rcode != RCODE_NXDOMAIN) {
		/* restarted, and no other server answered: the bogus
		 * answer of before is the verdict */
		module_result_clear(&qs->res);
		qs->res = *vq->first;
		memset(vq->first, 0, sizeof(*vq->first));
		vq->have_first = 0;
		return finish(qs, vq, ve, SEC_BOGUS, &vq->first_why);
	}
	if(passthrough || (qs->res.rcode != RCODE_NOERROR &&
		qs->res.rcode != RCODE_NXDOMAIN))
		return MODULE_FINISHED;   /* unchecked, or a failure */
	/* compat: unbound-1.17: RFC 4035 3.1.5 and 5: the answer to an RRSIG
	 * question is signatures, which nothing signs: handed on unchecked,
	 * without AD (Unbound: "cannot validate RRSIG, no sigs on sigs"); a
	 * negative answer is checked as any other */
	if(!under_anchor(qs) || (qs->qtype == TYPE_RRSIG &&
		qs->res.rcode == RCODE_NOERROR &&
		ldns_rr_list_rr_count(qs->res.answer) > 0)) {
		qs->res.security = SEC_INDETERMINATE;
		ve->stats.indeterminate++;
		return MODULE_FINISHED;
	}
	if(!vq && !(vq = question_state_new(qs, id, ve))) {
		/* an anchor with keys came with a reload meanwhile */
		log_err("validator: out of memory");
		module_result_servfail(&qs->res);
		return MODULE_FINISHED;
	}
	if(!val_msg_list_zones(qs, vq))
		return finish(qs, vq, ve, SEC_BOGUS, &why);
	vq->phase = VP_KEYS;
	return run(qs, vq, ve);
}

/* compat: unbound-1.17: a DS question a kept NSEC3 of the parent zone answers
 * (NODATA: no DS at the delegation; neg_nsec3.h). The walk's own DS lookup
 * may use a referral's unchecked NSEC3, as Unbound's validator does, since the
 * walk verifies the proof itself; a client gets checked records only. Not
 * counted in num.query.aggressive.*: Unbound counts only its NSEC answers. */
static int nsec3_ds_answer(struct module_qstate* qs, struct val_env* ve)
{
	ldns_rr_list* auth;
	int walk = (qs->flags & MODQ_NOVAL) != 0;
	if(!neg_nsec3_ds(neg_nsec3_of(qs->env->neg_cache), qs->qname,
		time(NULL), !walk, walk || (qs->flags & MODQ_DO),
		ve->max_neg_ttl, &auth))
		return 0;
	module_result_clear(&qs->res);
	qs->res.rcode = RCODE_NOERROR;
	qs->res.authority = auth;
	qs->res.security = walk ? SEC_UNCHECKED : SEC_SECURE;
	qs->res.no_store = 1;
	if(verbosity >= VERB_ALGO) {
		char n[LDNS_MAX_DOMAINLEN * 4 + 8];
		dname_to_str(qs->qname, n, sizeof(n));
		verbose(VERB_ALGO, "validator: %s DS answered from a kept "
			"NSEC3 (NODATA%s)", n, walk ? ", for the walk" : "");
	}
	return 1;
}

/* compat: unbound-1.17: RFC 8198: a question the validated NSECs of the cache
 * answer, as secure, before anything goes upstream. Not for refreshes (they
 * must ask), nor for a module's own lookups other than DS (the walk's DS
 * lookups: NSEC proves DS absence, as Unbound's negative cache). */
static int aggressive_answer(struct module_qstate* qs, struct val_env* ve)
{
	enum neg_answer a;
	ldns_rr_list* answer, *authority;
	if(!qs->env->neg_cache || (!ve->aggressive && qs->qtype != TYPE_DS) ||
		(qs->flags & (MODQ_PREFETCH | MODQ_REFETCH | MODQ_PRIME |
		MODQ_DETACHED)) || ((qs->flags & MODQ_NOVAL) &&
		qs->qtype != TYPE_DS) || qs->qclass != CLASS_IN ||
		!under_anchor(qs))
		return 0;
	/* an RFC 8509 sentinel question that fails goes the normal way,
	 * where finish() turns its secure answer into SERVFAIL */
	if(ve->root_key_sentinel && val_sentinel_fails(qs->env->anchors,
		qs->qname, qs->qtype, qs->qclass))
		return 0;
	/* compat: unbound-1.17: with aggressive-nsec: no, Unbound still proves
	 * DS absence from its negative cache */
	if(!ve->aggressive)
		return qs->qtype == TYPE_DS && nsec3_ds_answer(qs, ve);
	/* the RRSIGs and NSECs only for a DO client, or the walk (which
	 * checks the DS proof's signatures itself) */
	a = neg_cache_synth(qs->env->neg_cache, qs->qname, qs->qtype,
		time(NULL), ve->max_neg_ttl, (qs->flags & (MODQ_DO |
		MODQ_NOVAL)) != 0, &answer, &authority);
	if(a == NEG_NONE)
		return qs->qtype == TYPE_DS && nsec3_ds_answer(qs, ve);
	module_result_clear(&qs->res);
	qs->res.rcode = a == NEG_NXDOMAIN ? RCODE_NXDOMAIN :
		RCODE_NOERROR;
	qs->res.answer = answer;
	qs->res.authority = authority;
	qs->res.security = SEC_SECURE;
	/* one answer per random name of a flood: not into the message
	 * cache, whose useful entries it would push out */
	qs->res.no_store = 1;
	if(a == NEG_NXDOMAIN)
		qs->env->counters.aggressive_nxdomain++;
	else	qs->env->counters.aggressive_noerror++;
	if(verbosity >= VERB_ALGO) {
		char n[LDNS_MAX_DOMAINLEN * 4 + 8];
		dname_to_str(qs->qname, n, sizeof(n));
		verbose(VERB_ALGO, "validator: %s type %d answered from the "
			"aggressive NSEC cache (%s)", n, (int)qs->qtype,
			a == NEG_NXDOMAIN ? "NXDOMAIN" : a == NEG_NODATA
			? "NODATA" : "wildcard");
	}
	return 1;
}

static enum module_state val_operate(struct module_qstate* qs,
	enum module_event ev, int id, const struct outnet_reply* reply)
{
	struct val_env* ve = qs->env->modinfo[id];
	struct val_qstate* vq = qs->minfo[id];
	(void)reply;
	if(ev == MODULE_EVENT_NEW) {
		int again = vq != NULL;   /* the state asked anew */
		if(vq && vq->preset) {
			/* a walk's lookup asked again: the servers to
			 * leave out are set (val_sub_avoid) */
			vq->preset = 0;
			vq->passthrough = (qs->flags & MODQ_NOVAL) != 0;
			return MODULE_WAIT_MODULE;
		}
		if(again)
			val_clear(qs, id);
		/* without an anchor with keys nothing is validated, no
		 * walk starts and no answer is bogus: the question needs no
		 * state (start_check marks the result); a miss spares its
		 * making and clearing */
		if(!val_anchors_any_keys(qs->env->anchors))
			return MODULE_WAIT_MODULE;
		if(!again && aggressive_answer(qs, ve))
			return MODULE_FINISHED;
		if(!(vq = question_state_new(qs, id, ve))) {
			log_err("validator: out of memory");
			module_result_servfail(&qs->res);
			return MODULE_FINISHED;
		}
		return MODULE_WAIT_MODULE;
	}
	if(ev == MODULE_EVENT_MODDONE && qs->res.policy) {
		/* compat: unbound-1.17: "rpz applied, mark it as insecure" */
		qs->res.security = SEC_INSECURE;
		return MODULE_FINISHED;
	}
	if(ev == MODULE_EVENT_MODDONE)
		return start_check(qs, vq, ve, id);
	if(!vq) {
		module_result_servfail(&qs->res);
		return MODULE_FINISHED;
	}
	return run(qs, vq, ve);
}

int val_sub_avoid(struct module_qstate* sub, int id,
	const struct module_from* avoid, int num_avoid)
{
	struct val_qstate* vq;
	sub->flags |= MODQ_REFETCH;   /* not the caches' copy */
	if(num_avoid <= 0 || sub->minfo[id])
		return 1;
	if(!(vq = state_new(sub, id)))
		return 0;
	if(num_avoid > VAL_MAX_AVOID)
		num_avoid = VAL_MAX_AVOID;
	if(!(vq->avoid = calloc(VAL_MAX_AVOID, sizeof(*vq->avoid))))
		return 0;
	memcpy(vq->avoid, avoid, sizeof(*avoid) * (size_t)num_avoid);
	vq->num_avoid = num_avoid;
	vq->preset = 1;
	sub->avoid = vq->avoid;
	sub->num_avoid = num_avoid;
	return 1;
}

/* A DS or DNSKEY lookup of the walk ended: keep what it found. */
static void val_inform_super(struct module_qstate* sub, int id,
	struct module_qstate* super)
{
	struct val_qstate* vq = super->minfo[id];
	struct val_walk* w;
	if(!vq)
		return;
	w = vq->walk;
	if(!w || !w->active || w->wait == WALK_IDLE || w->sub_done ||
		sub->qtype != (w->wait == WALK_WAIT_DS ? TYPE_DS : TYPE_DNSKEY)
		|| query_dname_compare(sub->qname, w->next) != 0)
		return;
	w->sub_rcode = sub->res.rcode;
	w->sub_answer = sub->res.answer ? ldns_rr_list_clone(
		sub->res.answer) : NULL;
	w->sub_authority = sub->res.authority ? ldns_rr_list_clone(
		sub->res.authority) : NULL;
	if((sub->res.answer && !w->sub_answer) ||
		(sub->res.authority && !w->sub_authority))
		w->sub_rcode = RCODE_SERVFAIL;   /* out of memory */
	w->sub_done = 1;
	/* made with the walk (val_walk_step) */
	vq->last->qtype = sub->qtype;
	memcpy(vq->last->name, sub->qname, sub->qname_len);
	memcpy(vq->last->from, sub->res.from, sizeof(vq->last->from));
	vq->last->num_from = sub->res.num_from;
}

static void val_describe(const struct module_qstate* qs, int id, char* buf,
	size_t len)
{
	const struct val_qstate* vq = qs->minfo[id];
	char n[LDNS_MAX_DOMAINLEN * 4 + 8];
	if(!vq || !vq->walk || !vq->walk->active ||
		vq->walk->wait == WALK_IDLE)
		return;
	dname_to_str(vq->walk->next, n, sizeof(n));
	snprintf(buf, len, "validator wants %s IN %s",
		vq->walk->wait == WALK_WAIT_DS ? "DS" : "DNSKEY", n);
}

/* The key cache: one for the daemon, made from the config of the
 * start (key-cache-size, -slabs, val-bogus-ttl). */
static void* val_startup(const struct config_file* cfg)
{
	struct val_kcache* kc = val_kcache_create_cfg(cfg);
	val_crypto_set_fake(cfg->fake_dsa, cfg->fake_sha1);
	if(!kc)
		log_err("validator: could not create the key cache");
	return kc;
}

/* compat: unbound-1.26: a reload's new key-cache-size applies to the
 * cache in place (its fast_reload adjusts it; its reload made a new
 * one): keys over it go, least recently used first; the slab count
 * stays until a restart. fake-dsa and fake-sha1 too (Unbound's parser
 * sets them at each read of the file). */
static int val_reload_global(void* global, const struct config_file* cfg,
	void* prepared)
{
	(void)prepared;
	val_crypto_set_fake(cfg->fake_dsa, cfg->fake_sha1);
	if(global)
		val_kcache_set_max_mem(global, cfg->key_cache_size);
	return 1;
}

static void val_destartup(void* global)
{
	val_kcache_delete(global);
}

/* compat: unbound-1.17: as Unbound: the key cache is the validator's
 * memory (mem.mod.validator), its entries key.cache.count */
static size_t val_get_mem(void* global)
{
	return val_kcache_get_mem(global);
}

static void val_cache_info(void* global, struct module_cache_info* info)
{
	info->key_count += val_kcache_count(global);
}

/* compat: unbound-1.17: flush_zone drops the zone's keys and those below
 * it; flush_bogus and flush_negative the bad ones (a failed DS/DNSKEY
 * lookup or validation), as Unbound. */
static size_t val_flush(void* global, const uint8_t* zone,
	enum module_flush kind)
{
	switch(kind) {
	case MODULE_FLUSH_ZONE:
		return val_kcache_flush_zone(global, zone, time(NULL));
	case MODULE_FLUSH_BOGUS:
		return val_kcache_flush_bad(global);
	case MODULE_FLUSH_ALL:
		val_kcache_flush_all(global);
		return 0;
	}
	return 0;
}

const struct module_func_block val_module_block = {
	.name = "validator",
	.validates = 1,
	.startup = val_startup,
	.destartup = val_destartup,
	.reload_global = val_reload_global,
	.get_mem = val_get_mem,
	.cache_info = val_cache_info,
	.flush = val_flush,
	.init = val_init,
	.deinit = val_deinit,
	.reconfigure = val_reconfigure,
	.operate = val_operate,
	.inform_super = val_inform_super,
	.clear = val_clear,
	.describe = val_describe,
};
