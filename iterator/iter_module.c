/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/iter_module.c - the iterator as a module of the stack
 * (util/module.h): its per-worker data, the per-query state in the
 * query's minfo slot, and the hand-over of its result. */
#include "config.h"
#include "iterator/iterator.h"
#include "iterator/iter_harden.h"
#include "iterator/iter_edns_strings.h"
#include "iterator/delegpt.h"
#include "services/mesh.h"
#include "services/outside_network.h"
#include "util/error_report.h"
#include "util/config_file.h"
#include "util/log.h"
#include "util/module.h"
#include "util/spare_list.h"
#include "validator/val_anchor.h"
#include "util/msgparse.h"
#include "util/net_help.h"
#include "services/cache/infra.h"
#include "services/cache/rate_zone.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The shared parts of the module env the iterator works with. 0 when
 * the edns-client-string: entries cannot be used (logged; the old ones
 * are kept). */
static int take_env(struct iter_env* ie, const struct module_env* env)
{
	struct infra_settings is;
	struct edns_strings* es;
	ie->cfg = env->cfg;
	ie->hints = env->hints;
	ie->auth = env->auth;
	ie->outnet = env->outnet;
	ie->infra = env->infra;
	ie->msg_cache = env->msg_cache;
	ie->rrset_cache = env->rrset_cache;
	ie->rnd = env->rnd;
	ie->mesh = env->mesh;
	/* compat: unbound-1.19: with do-nat64 IPv4 servers are reached
	 * over IPv6 (select_addr rewrites their addresses): their A
	 * records are looked up and used as with do-ip4 */
	ie->do_ip4 = env->cfg->do_ip4 || (env->cfg->do_nat64 &&
		env->cfg->do_ip6);
	ie->do_ip6 = env->cfg->do_ip6;
	ie->validating = env->validating;
	/* compat: unbound-1.18: disable-edns-do is off while a validator
	 * has a trust anchor (it could not validate) */
	ie->no_edns_do = env->cfg->disable_edns_do && !(env->validating &&
		val_anchors_any_keys(env->anchors));
	infra_settings_from_cfg(env->cfg, &is);
	ie->unknown_rtt = is.unknown_rtt;
	ie->max_attempts = env->cfg->outbound_msg_retry > 0 ?
		env->cfg->outbound_msg_retry : ITER_MAX_ATTEMPTS;
	rate_domains_delete(ie->rate_domains);
	ie->rate_domains = NULL;
	if(env->cfg->ratelimit_for_domain || env->cfg->ratelimit_below_domain)
		ie->rate_domains = rate_domains_create(env->cfg);
	if(edns_strings_create(env->cfg, &es) != EDNS_STRINGS_OK)
		return 0;
	edns_strings_delete(ie->edns_strings);
	ie->edns_strings = es;
	return 1;
}

static int iter_mod_init(struct module_env* env, int id)
{
	struct iter_env* ie = calloc(1, sizeof(*ie));
	if(!ie)
		return 0;
	ie->id = id;
	spare_list_init(&ie->iq_spare, 512);
	spare_list_init(&ie->budget_spare, 512);
	env->modinfo[id] = ie;
	if(!take_env(ie, env)) {
		env->modinfo[id] = NULL;
		rate_domains_delete(ie->rate_domains);
		free(ie);
		return 0;
	}
	return 1;
}

static void iter_mod_deinit(struct module_env* env, int id)
{
	struct iter_env* ie = env->modinfo[id];
	if(!ie)
		return;
	iter_env_clear(ie);
	free(ie->auth_buf);
	rate_domains_delete(ie->rate_domains);
	edns_strings_delete(ie->edns_strings);
	spare_list_clear(&ie->iq_spare);
	spare_list_clear(&ie->budget_spare);
	free(ie);
}

static void iter_mod_reconfigure(struct module_env* env, int id)
{
	struct iter_env* ie = env->modinfo[id];
	(void)take_env(ie, env);
	/* the root may be another one now */
	iter_env_clear(ie);
}

/* Free iq (its memory kept for the next state when ie has room). */
static void state_free(struct iter_env* ie, struct iter_qstate* iq)
{
	if(!ie) {
		iter_qstate_clear(iq);
		free(iq);
		return;
	}
	if(iq->budget && iq->budget->refs == 1) {
		/* the last one on it */
		spare_free(&ie->budget_spare, iq->budget);
		iq->budget = NULL;
	}
	iter_qstate_clear(iq);
	spare_free(&ie->iq_spare, iq);
}

static void iter_mod_clear(struct module_qstate* qs, int id)
{
	struct iter_qstate* iq = qs->minfo[id];
	if(!iq)
		return;
	state_free(qs->env->modinfo[id], iq);
	qs->minfo[id] = NULL;
}

/* A new iterator state for qs at depth, sharing budget (NULL: its
 * own). NULL on out of memory. */
static struct iter_qstate* state_new(struct iter_env* ie,
	struct module_qstate* qs, int depth, struct iter_budget* budget)
{
	struct iter_qstate* iq = spare_alloc(&ie->iq_spare, sizeof(*iq));
	if(!iq)
		return NULL;
	if(!budget) {
		/* a query of its own */
		if(!(budget = spare_alloc(&ie->budget_spare,
			sizeof(*budget)))) {
			spare_free(&ie->iq_spare, iq);
			return NULL;
		}
		iter_budget_init(budget);
	}
	/* the mesh's question is valid and lowercased */
	if(!iter_qstate_init_lower(iq, qs->ms, qs->qname, qs->qname_len,
		qs->qtype, qs->qclass, (qs->flags & MODQ_PRIME) != 0, depth,
		budget)) {
		state_free(ie, iq);
		return NULL;
	}
	iq->qs = qs;
	/* a restart without some servers: not the caches' copy either */
	iq->refresh = (qs->flags & (MODQ_PREFETCH | MODQ_REFETCH)) != 0 ||
		qs->num_avoid > 0;
	return iq;
}

int iter_attach_sub(struct iter_env* env, struct iter_qstate* iq,
	const uint8_t* name, uint16_t qtype, uint16_t qclass, int is_priming)
{
	struct module_qstate* sub;
	enum mesh_attach r = mesh_attach_sub(env->mesh, iq->ms, name, qtype,
		qclass, MODQ_NOVAL | MODQ_BELOW_ONLY |
		(is_priming ? MODQ_PRIME : 0), &sub);
	if(r == MESH_ATTACH_NEW && !sub->minfo[env->id])
		/* one level deeper, on the asker's budget; on out of
		 * memory it starts as a query of its own instead */
		sub->minfo[env->id] = state_new(env, sub, iq->depth + 1,
			iq->budget);
	return r == MESH_ATTACH_NEW || r == MESH_ATTACH_JOINED;
}

int iter_new_detached(struct iter_env* env, const uint8_t* name,
	uint16_t qtype, uint16_t qclass, int depth, const struct delegpt* dp)
{
	struct module_qstate* sub = mesh_new_detached(env->mesh, name, qtype,
		qclass, depth);
	struct iter_qstate* iq;
	if(!sub)
		return 0;
	sub->flags |= MODQ_BELOW_ONLY;   /* queued: set before it runs */
	iq = state_new(env, sub, depth, NULL);
	if(iq && !iter_qstate_preset_dp(iq, dp)) {
		state_free(env, iq);
		iq = NULL;
	}
	sub->minfo[env->id] = iq;
	return 1;
}

int iter_new_probe(struct iter_env* env, const struct iter_qstate* iq)
{
	struct module_qstate* sub = mesh_new_detached(env->mesh, iq->sname,
		iq->qtype, iq->qclass, iq->depth);
	struct iter_qstate* p;
	if(!sub)
		return 0;
	sub->flags |= MODQ_BELOW_ONLY;
	p = state_new(env, sub, iq->depth, NULL);
	if(p && !iter_qstate_preset_dp(p, iq->dp)) {
		state_free(env, p);
		p = NULL;
	}
	if(p) {
		p->dp_forward = iq->dp_forward;
		p->probe = 1;
	}
	sub->minfo[env->id] = p;
	return 1;
}

/* Free the records of list that equal an earlier one (owner, type,
 * class, rdata; not the TTL). An answer made of several replies (CNAME
 * and DNAME restarts) can carry the same RRset twice: a chain through
 * one DNAME twice brings the DNAME and its RRSIG with each reply. */
static void drop_repeats(ldns_rr_list* list)
{
	size_t n = list ? ldns_rr_list_rr_count(list) : 0, i, j, k = 0;
	for(i = 0; i < n; i++) {
		ldns_rr* rr = ldns_rr_list_rr(list, i);
		for(j = 0; j < k; j++)
			if(ldns_rr_compare(ldns_rr_list_rr(list, j), rr) == 0)
				break;
		if(j < k) {
			ldns_rr_free(rr);
			continue;
		}
		(void)ldns_rr_list_set_rr(list, rr, k++);
	}
	if(list)
		ldns_rr_list_set_rr_count(list, k);
}

/* The state is done: priming kept, the result handed up. */
static enum module_state finish(struct iter_env* ie, struct module_qstate* qs,
	struct iter_qstate* iq)
{
	struct module_result* res = &qs->res;
	if(iq->is_priming) {
		iter_store_prime(ie, iq);
		iter_prime_checks(ie, iq);
	}
	if(iq->restarts > 0) {
		/* compat: unbound-1.17: each RRset once (RFC 2181 5), as
		 * Unbound's prepend_is_duplicate; one reply has no repeats
		 * after the scrub, so a plain answer pays nothing */
		drop_repeats(iq->answer);
		drop_repeats(iq->authority);
	}
	if(iq->policy_done) {
		/* compat: unbound-1.14: a policy answer (deleg_hook) in
		 * res, after the CNAME chain so far (Unbound's
		 * iter_prepend); never stored */
		if(iq->answer && ldns_rr_list_rr_count(iq->answer) > 0) {
			if(res->answer && !ldns_rr_list_cat(iq->answer,
				res->answer)) {
				module_result_servfail(res);
				return MODULE_FINISHED;
			}
			ldns_rr_list_free(res->answer);
			res->answer = iq->answer;
			iq->answer = NULL;
		}
		res->no_store = 1;
		return MODULE_FINISHED;
	}
	module_result_clear_keep_from(res);
	res->rcode = iq->rcode;
	res->answer = iq->answer;
	res->authority = iq->authority;
	res->additional = iq->additional;
	iq->answer = iq->authority = iq->additional = NULL;
	res->no_store = iq->no_cache || iq->cache_made;
	return MODULE_FINISHED;
}

static size_t rr_count(const ldns_rr_list* l)
{
	return l ? ldns_rr_list_rr_count(l) : 0;
}

/* compat: unbound-1.17: A reply from addr added to the answer: remember the
 * server, newest first, once (Unbound's reply_origin, for the validator's
 * messages). */
static void note_origin(struct module_result* res,
	const struct sockaddr_storage* addr, socklen_t len)
{
	int i;
	for(i = 0; i < res->num_from; i++)
		if(res->from[i].len == len &&
			memcmp(&res->from[i].addr, addr, len) == 0)
			return;
	if(res->num_from < MODULE_MAX_FROM)
		res->num_from++;
	memmove(&res->from[1], &res->from[0],
		(size_t)(res->num_from - 1) * sizeof(res->from[0]));
	memcpy(&res->from[0].addr, addr, len);
	res->from[0].len = len;
}

/* compat: unbound-1.23: dns-error-reporting: the agent of the last
 * reply, as Unbound keeps each reply's options in place of the last's
 * (edns_opts_back_in). The state gets its buffer when a reply first
 * names an agent (the mesh frees it); without memory, no report. */
static void note_report_agent(struct module_qstate* qs,
	const struct outnet_reply* reply)
{
	uint8_t agent[LDNS_MAX_DOMAINLEN];
	size_t n = error_report_agent(reply->pkt, reply->len, agent);
	if(n && !qs->report_agent &&
		!(qs->report_agent = malloc(LDNS_MAX_DOMAINLEN))) {
		log_err("iterator: out of memory for a report agent");
		n = 0;
	}
	if(n)
		memcpy(qs->report_agent, agent, n);
	qs->report_agent_len = n;
}

static enum module_state iter_operate(struct module_qstate* qs,
	enum module_event ev, int id, const struct outnet_reply* reply)
{
	struct iter_env* ie = qs->env->modinfo[id];
	struct iter_qstate* iq = qs->minfo[id];
	if(ev == MODULE_EVENT_NEW && iq && iq->state == ITER_DONE)
		iter_mod_clear(qs, id);   /* asked again by a module above */
	iq = qs->minfo[id];
	if(!iq) {
		/* compat: unbound-1.17: a client's question, or a module's own
		 * lookup: a query of its own, depth 0 for the iterator's
		 * limits (as Unbound) */
		iq = qs->minfo[id] = state_new(ie, qs, 0, NULL);
		if(!iq) {
			log_err("iterator: out of memory");
			module_result_servfail(&qs->res);
			return MODULE_FINISHED;
		}
	}
	if(ev == MODULE_EVENT_REPLY) {
		struct sockaddr_storage addr;
		socklen_t alen = 0;
		size_t an = rr_count(iq->answer), ns = rr_count(iq->authority);
		if(iq->sent_to && reply && reply->result == OUTNET_REPLY) {
			alen = iq->sent_to->addrlen;
			memcpy(&addr, &iq->sent_to->addr, alen);
		}
		if(reply && reply->result == OUTNET_REPLY && ie->cfg &&
			ie->cfg->dns_error_reporting)
			note_report_agent(qs, reply);
		iter_handle_reply(ie, iq, reply);
		if(alen && (rr_count(iq->answer) > an ||
			rr_count(iq->authority) > ns))
			note_origin(&qs->res, &addr, alen);
	}
	iter_run(ie, iq);
	if(iq->state == ITER_DONE)
		return finish(ie, qs, iq);
	return iq->outq ? MODULE_WAIT_REPLY : MODULE_WAIT_SUBQUERY;
}

static void iter_mod_inform_super(struct module_qstate* sub, int id,
	struct module_qstate* super)
{
	struct iter_qstate* iq = super->minfo[id];
	if(iq)
		iter_inform_super(super->env->modinfo[id], iq, sub);
}

static void iter_describe(const struct module_qstate* qs, int id,
	char* buf, size_t len)
{
	const struct iter_qstate* iq = qs->minfo[id];
	size_t l;
	if(!iq || !iq->outq || !iq->sent_to)
		return;
	snprintf(buf, len, "iterator wait for ");
	l = strlen(buf);
	addr_to_str(&iq->sent_to->addr, iq->sent_to->addrlen, buf + l,
		len - l);
}

const struct module_func_block iter_module_block = {
	.name = "iterator",
	.init = iter_mod_init,
	.deinit = iter_mod_deinit,
	.reconfigure = iter_mod_reconfigure,
	.operate = iter_operate,
	.inform_super = iter_mod_inform_super,
	.clear = iter_mod_clear,
	.describe = iter_describe,
};
