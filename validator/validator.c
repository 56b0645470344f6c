/* validator/validator.c - the validator module (util/module.h): DNSSEC
 * validation of what the module below (the iterator) found, as Unbound
 * 1.17's validator. The steps are in val_module.h; the chain of trust
 * is val_walk.c, the message check val_msg.c, signatures val_sig.h,
 * denial proofs val_nsec.h and val_nsec3.h, anchors val_anchor.h, the
 * key cache val_kcache.h. */
#include "config.h"
#include "validator/val_module.h"
#include "validator/val_anchor.h"
#include "services/mesh.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/module.h"
#include "util/msgparse.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void settings_from_cfg(struct val_env* ve, const struct config_file* c)
{
	char err[128];
	val_sig_settings_init(&ve->sig);
	ve->sig.skew_min = (uint32_t)c->val_sig_skew_min;
	ve->sig.skew_max = (uint32_t)c->val_sig_skew_max;
	ve->sig.date_override = c->val_date_override;
	ve->sig.harden_algo_downgrade = c->harden_algo_downgrade;
	ve->sig.min_ttl = c->min_ttl > 0 ? (uint32_t)c->min_ttl : 0;
	if(!nsec3_iter_parse(c->val_nsec3_key_iterations ?
		c->val_nsec3_key_iterations : NSEC3_ITER_DEFAULT,
		&ve->nsec3_iter, err, sizeof(err)))
		(void)nsec3_iter_parse(NSEC3_ITER_DEFAULT, &ve->nsec3_iter,
			err, sizeof(err));   /* config_read refused it */
	ve->bogus_ttl = c->bogus_ttl > 0 ? (uint32_t)c->bogus_ttl : 0;
	ve->permissive = c->val_permissive_mode;
	ve->ignore_cd = c->ignore_cd;
	ve->clean_additional = c->val_clean_additional;
	ve->log_level = c->val_log_level;
	ve->harden_stripped = c->harden_dnssec_stripped;
	ve->ede = c->ede;
}

static int val_init(struct module_env* env, int id)
{
	struct val_env* ve = calloc(1, sizeof(*ve));
	if(!ve || !(ve->sigctx = val_sig_ctx_new())) {
		free(ve);
		return 0;
	}
	settings_from_cfg(ve, env->cfg);
	env->modinfo[id] = ve;
	env->validating = 1;
	return 1;
}

static void val_deinit(struct module_env* env, int id)
{
	struct val_env* ve = env->modinfo[id];
	if(!ve)
		return;
	val_sig_ctx_free(ve->sigctx);
	free(ve);
}

static void val_reconfigure(struct module_env* env, int id)
{
	settings_from_cfg(env->modinfo[id], env->cfg);
}

static void val_clear(struct module_qstate* qs, int id)
{
	struct val_qstate* vq = qs->minfo[id];
	if(!vq)
		return;
	val_walk_clear(&vq->walk);
	val_zones_clear(vq);
	nsec3_cache_clear(&vq->nsec3_cache);
	free(vq);
	qs->minfo[id] = NULL;
}

static struct val_qstate* state_new(struct module_qstate* qs, int id)
{
	struct val_qstate* vq = calloc(1, sizeof(*vq));
	if(!vq)
		return NULL;
	vq->id = id;
	val_budget_init(&vq->budget);
	nsec3_cache_init(&vq->nsec3_cache);
	qs->minfo[id] = vq;
	return vq;
}

/* "<name type class>" as Unbound's validation failure lines. */
static void log_failure(const struct module_qstate* qs,
	const struct val_reason* why)
{
	char n[LDNS_MAX_DOMAINLEN * 4 + 8];
	char* t = ldns_rr_type2str((ldns_rr_type)qs->qtype);
	char* c = ldns_rr_class2str((ldns_rr_class)qs->qclass);
	dname_to_str(qs->qname, n, sizeof(n));
	log_info("validation failure <%s %s %s>: %s", n, t ? t : "TYPE?",
		c ? c : "CLASS?", why->text ? why->text : "bogus");
	free(t);
	free(c);
}

/* The message's status is known: set it, and turn bogus into SERVFAIL
 * unless the client may see it (CD, val-permissive-mode). */
static enum module_state finish(struct module_qstate* qs,
	struct val_qstate* vq, struct val_env* ve, enum sec_status st,
	const struct val_reason* why)
{
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
	if(ve->log_level >= 1)
		log_failure(qs, &qs->res.why_bogus);
	if(!vq->cd && !ve->permissive)
		module_result_servfail(&qs->res);
	return MODULE_FINISHED;
}

/* Is there anything to validate: an anchor at or above the name? */
static int under_anchor(const struct module_qstate* qs)
{
	return qs->env->anchors && val_anchor_find(qs->env->anchors,
		qs->qname, qs->qclass) != NULL;
}

/* Find the keys of every zone involved, then check. */
static enum module_state run(struct module_qstate* qs, struct val_qstate* vq,
	struct val_env* ve)
{
	struct val_reason why = { NULL, VAL_EDE_NONE };
	int i;
	if(vq->phase == VP_KEYS) {
		for(i = 0; i < vq->num_zones; i++)
			if(!val_walk_step(qs, vq, ve, &vq->zones[i]))
				return MODULE_WAIT_SUBQUERY;
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

/* The module below answered: what must be checked? */
static enum module_state start_check(struct module_qstate* qs,
	struct val_qstate* vq, struct val_env* ve)
{
	struct val_reason why = { "answer spans too many zones",
		VAL_EDE_DNSSEC_BOGUS };
	if(vq->passthrough || (qs->res.rcode != RCODE_NOERROR &&
		qs->res.rcode != RCODE_NXDOMAIN))
		return MODULE_FINISHED;   /* unchecked, or a failure */
	if(!under_anchor(qs)) {
		qs->res.security = SEC_INDETERMINATE;
		ve->stats.indeterminate++;
		return MODULE_FINISHED;
	}
	if(!val_msg_list_zones(qs, vq))
		return finish(qs, vq, ve, SEC_BOGUS, &why);
	vq->phase = VP_KEYS;
	return run(qs, vq, ve);
}

static enum module_state val_operate(struct module_qstate* qs,
	enum module_event ev, int id, const struct outnet_reply* reply)
{
	struct val_env* ve = qs->env->modinfo[id];
	struct val_qstate* vq = qs->minfo[id];
	(void)reply;
	if(ev == MODULE_EVENT_NEW) {
		if(vq)
			val_clear(qs, id);
		if(!(vq = state_new(qs, id))) {
			log_err("validator: out of memory");
			module_result_servfail(&qs->res);
			return MODULE_FINISHED;
		}
		/* a module's own lookup (DS, DNSKEY, NS addresses) is
		 * checked where it is used */
		vq->passthrough = (qs->flags & MODQ_NOVAL) != 0;
		vq->cd = (qs->flags & MODQ_CD) && !ve->ignore_cd;
		return MODULE_WAIT_MODULE;
	}
	if(!vq) {
		module_result_servfail(&qs->res);
		return MODULE_FINISHED;
	}
	if(ev == MODULE_EVENT_MODDONE)
		return start_check(qs, vq, ve);
	return run(qs, vq, ve);
}

/* A DS or DNSKEY lookup of the walk ended: keep what it found. */
static void val_inform_super(struct module_qstate* sub, int id,
	struct module_qstate* super)
{
	struct val_qstate* vq = super->minfo[id];
	struct val_walk* w;
	if(!vq)
		return;
	w = &vq->walk;
	if(!w->active || w->wait == WALK_IDLE || w->sub_done ||
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
}

static void val_describe(const struct module_qstate* qs, int id, char* buf,
	size_t len)
{
	const struct val_qstate* vq = qs->minfo[id];
	char n[LDNS_MAX_DOMAINLEN * 4 + 8];
	if(!vq || !vq->walk.active || vq->walk.wait == WALK_IDLE)
		return;
	dname_to_str(vq->walk.next, n, sizeof(n));
	snprintf(buf, len, "validator wants %s IN %s",
		vq->walk.wait == WALK_WAIT_DS ? "DS" : "DNSKEY", n);
}

const struct module_func_block val_module_block = {
	.name = "validator",
	.init = val_init,
	.deinit = val_deinit,
	.reconfigure = val_reconfigure,
	.operate = val_operate,
	.inform_super = val_inform_super,
	.clear = val_clear,
	.describe = val_describe,
};
