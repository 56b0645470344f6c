/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/iterator.c - iterative resolution of one query (see the
 * header for the steps and limits). */
#include "config.h"
#include "iterator/iterator.h"
#include "iterator/iter_keyprefetch.h"
#include "iterator/iter_edns_strings.h"
#include "iterator/delegpt.h"
#include "iterator/iter_hints.h"
#include "iterator/iter_util.h"
#include "iterator/iter_cache.h"
#include "iterator/iter_caps.h"
#include "services/authzone.h"
#include "services/mesh.h"
#include "services/outside_network.h"
#include "services/cache/infra.h"
#include "services/cache/rate_zone.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/msgencode.h"
#include "util/msgparse.h"
#include "util/net_help.h"
#include "util/random.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void iter_log_name(int level, const char* what, const uint8_t* name,
	uint16_t qtype)
{
	char buf[1024];
	if((int)verbosity < level)
		return;
	dname_to_str(name, buf, sizeof(buf));
	verbose(level, "%s %s type %d", what, buf, (int)qtype);
}

void iter_env_clear(struct iter_env* env)
{
	delegpt_delete(env->primed_root);
	env->primed_root = NULL;
	env->primed_until = 0;
	iter_noncut_clear(&env->noncut);
	iter_parentside_clear(&env->parentside);
	iter_parentside_clear(&env->unverified_glue);
}

void iter_budget_init(struct iter_budget* b)
{
	memset(b, 0, sizeof(*b));
	b->deadline_ms = now_ms() + ITER_MAX_TIME_MS;
}

int iter_qstate_init(struct iter_qstate* iq, struct mesh_state* ms,
	const uint8_t* qname, uint16_t qtype, uint16_t qclass,
	int is_priming, int depth, struct iter_budget* budget)
{
	uint8_t lower[LDNS_MAX_DOMAINLEN + 1];
	size_t n = dname_valid(qname, LDNS_MAX_DOMAINLEN);
	if(n == 0) {
		memset(iq, 0, sizeof(*iq));
		return 0;
	}
	memcpy(lower, qname, n);
	dname_tolower(lower);
	return iter_qstate_init_lower(iq, ms, lower, n, qtype, qclass,
		is_priming, depth, budget);
}

int iter_qstate_init_lower(struct iter_qstate* iq, struct mesh_state* ms,
	const uint8_t* qname, size_t n, uint16_t qtype, uint16_t qclass,
	int is_priming, int depth, struct iter_budget* budget)
{
	memset(iq, 0, sizeof(*iq));
	iq->ms = ms;
	memcpy(iq->qname, qname, n);
	iq->qname_len = n;
	memcpy(iq->sname, qname, n);
	iq->snamelen = n;
	iq->qtype = qtype;
	iq->qclass = qclass;
	iq->is_priming = is_priming;
	iq->depth = depth;
	iq->state = ITER_INIT;
	iq->rcode = RCODE_SERVFAIL;
	iq->qmin = 1;   /* iter_run turns it off when the config says so */
	if(!budget) {
		if(!(budget = malloc(sizeof(*budget))))
			return 0;
		iter_budget_init(budget);
	}
	budget->refs++;
	iq->budget = budget;
	iq->answer = ldns_rr_list_new();
	if(!iq->answer) {
		iter_qstate_clear(iq);
		return 0;
	}
	return 1;
}

int iter_qstate_preset_dp(struct iter_qstate* iq, const struct delegpt* dp)
{
	struct delegpt* c;
	if(!dp)
		return 1;
	if(!(c = delegpt_copy(dp)))
		return 0;
	iter_set_dp(iq, c, 0);
	iq->state = ITER_TARGETS;
	return 1;
}

void iter_qstate_clear(struct iter_qstate* iq)
{
	if(iq->outq) {
		outnet_cancel(iq->outq);
		iq->outq = NULL;
	}
	delegpt_delete(iq->dp);
	iq->dp = NULL;
	delegpt_delete(iq->stub_primed);
	iq->stub_primed = NULL;
	delegpt_delete(iq->parent_retry);
	iq->parent_retry = NULL;
	if(iq->budget && --iq->budget->refs == 0)
		free(iq->budget);
	iq->budget = NULL;
	ldns_rr_list_deep_free(iq->answer);
	ldns_rr_list_deep_free(iq->authority);
	ldns_rr_list_deep_free(iq->additional);
	iq->answer = iq->authority = iq->additional = NULL;
	iter_caps_clear(iq);
}

/* Finish with rcode (the result lists are as collected so far). */
void iter_done(struct iter_qstate* iq, int rcode)
{
	iq->rcode = rcode;
	iq->state = ITER_DONE;
	if(iq->outq) {
		outnet_cancel(iq->outq);
		iq->outq = NULL;
	}
}

void iter_fail(struct iter_qstate* iq, const char* why)
{
	iter_log_name(VERB_QUERY, why, iq->qname, iq->qtype);
	ldns_rr_list_deep_free(iq->authority);
	iq->authority = NULL;
	iter_done(iq, RCODE_SERVFAIL);
}

void iter_set_dp(struct iter_qstate* iq, struct delegpt* dp, int fwd)
{
	delegpt_delete(iq->dp);
	iq->dp = dp;
	iq->dp_forward = fwd;
	iq->dp_first = 0;
	iq->dp_cached = 0;
	iq->dp_ds = 0;
	iq->parentside_used = 0;
	iq->unverified_used = 0;
	iq->dp_targets = 0;
	iq->dp_nx = 0;
	iq->sent_to = NULL;
	iq->qmin_labels = 0;
	iter_caps_clear(iq);
}

/* The question to send to iq->dp now: the full one, or the minimised
 * one (see the header). */
static void pick_question(struct iter_env* env, struct iter_qstate* iq)
{
	int slabs, dlabs, i;
	const uint8_t* p = iq->sname;
	iq->ask = iq->sname;
	iq->asklen = iq->snamelen;
	iq->asktype = iq->qtype;
	if(!iq->qmin || iq->dp_forward || !env->cfg ||
		!env->cfg->qname_minimisation ||
		iq->qmin_steps >= ITER_MAX_QMIN_STEPS)
		return;
	slabs = dname_count_labels(iq->sname);
	dlabs = dname_count_labels(iq->dp->name);
	if(iq->qmin_labels <= dlabs)
		iq->qmin_labels = dlabs + 1;
	/* names known to be no zone cut of this zone: no question for
	 * them (iter_noncut.h); p is a suffix of sname, so its length is
	 * what is left of sname's */
	for(;;) {
		if(iq->qmin_labels >= slabs)
			return;
		p = iq->sname;
		for(i = 0; i < slabs - iq->qmin_labels; i++)
			p = dname_remove_label(p);
		if(!iter_noncut_known_len(&env->noncut, p, iq->snamelen -
			(size_t)(p - iq->sname), iq->dp->name, iq->dp->namelen,
			time(NULL)))
			break;
		iq->qmin_labels++;
	}
	iq->ask = p;
	iq->asklen = iq->snamelen - (size_t)(p - iq->sname);
	iq->asktype = TYPE_A;
}

int iter_minimised(const struct iter_qstate* iq)
{
	return iq->ask && iq->ask != iq->sname;
}

/* Progress with this delegation point: its servers may be asked again. */
void iter_reset_attempts(struct iter_qstate* iq)
{
	struct delegpt_addr* a;
	for(a = iq->dp->addrs; a; a = a->next)
		a->attempts = 0;
}

/* Is name the owner of a record in the chain so far (a CNAME loop)? */
static int chain_has_owner(const ldns_rr_list* chain, const uint8_t* name)
{
	uint8_t o[LDNS_MAX_DOMAINLEN + 1];
	size_t i;
	for(i = 0; chain && i < ldns_rr_list_rr_count(chain); i++)
		if(delegpt_rdf_to_wire(ldns_rr_owner(ldns_rr_list_rr(chain, i)),
			o) &&
			query_dname_compare(o, name) == 0)
			return 1;
	return 0;
}

/* compat: unbound-1.22: max-query-restarts (Unbound 1.17: a fixed 11) */
static int max_restarts(const struct iter_env* env)
{
	return env->cfg ? env->cfg->max_query_restarts : ITER_MAX_RESTARTS;
}

/* compat: unbound-1.22: max-global-quota: sends per client query and
 * all its sub-queries */
static int global_quota(const struct iter_env* env)
{
	return env->cfg ? env->cfg->max_global_quota : ITER_MAX_SENT;
}

/* compat: unbound-1.17: max-sent-count: sends of one query state since
 * its last referral or restart (Unbound fails past it: count > max) */
static int sent_count_over(const struct iter_env* env,
	const struct iter_qstate* iq)
{
	return iq->sent_count > (env->cfg ? env->cfg->max_sent_count :
		ITER_MAX_SENT_STATE);
}

/* Follow the chain (already appended to iq->answer) to new_sname; 0
 * (and done) on a loop or too many restarts. */
int iter_restart_at(struct iter_env* env, struct iter_qstate* iq,
	const uint8_t* new_sname, size_t len)
{
	if(chain_has_owner(iq->answer, new_sname)) {
		iter_fail(iq, "CNAME loop for");
		return 0;
	}
	if(++iq->restarts > max_restarts(env)) {
		iter_fail(iq, "too many CNAME restarts for");
		return 0;
	}
	memcpy(iq->sname, new_sname, len);
	iq->snamelen = len;
	iq->sent_count = 0;
	env->stats.restarts++;
	iter_log_name(VERB_ALGO, "CNAME restart at", iq->sname, iq->qtype);
	iq->state = ITER_INIT;
	return 1;
}

/* compat: unbound-1.17: Unbound's iter_dp_is_useless, for a delegation from
 * the cache: no address for an enabled family, and every NS name needs glue
 * (is in the zone), or the question is the address of one of them. Asking it
 * would only go round in a dependency cycle. */
static int dp_useless(const struct iter_env* env,
	const struct iter_qstate* iq, const struct delegpt* dp)
{
	const struct delegpt_addr* a;
	const struct delegpt_ns* ns;
	for(a = dp->addrs; a; a = a->next)
		if((a->addr.ss_family == AF_INET6) ? env->do_ip6 :
			env->do_ip4)
			return 0;
	if(((iq->qtype == TYPE_A && env->do_ip4) ||
		(iq->qtype == TYPE_AAAA && env->do_ip6)) &&
		dname_subdomain_c(iq->sname, dp->name) &&
		delegpt_find_ns(dp, iq->sname))
		return 1;
	for(ns = dp->nslist; ns; ns = ns->next)
		if(!dname_subdomain_c(ns->name, dp->name))
			return 0;
	return 1;
}

/* The RRset cache before going out: the answer, a CNAME to follow, or a
 * delegation closer than the hint h. Returns 1 when iq moved on (done,
 * restarted, or dp set: run on), -1 when done or failed (stop), 0 to go
 * on with the hints. */
static int cache_step(struct iter_env* env, struct iter_qstate* iq,
	const struct iter_hint* h, const uint8_t* start, time_t now)
{
	struct delegpt* dp;
	if(iq->refresh)
		goto delegation;
	if(iter_cache_answer(env->rrset_cache, iq->sname, iq->qtype,
		iq->qclass, now, iq->answer)) {
		env->stats.cache_answers++;
		if(iq->qtype == TYPE_NS && (iq->additional ||
			(iq->additional = ldns_rr_list_new()) != NULL))
			iter_cache_ns_addrs(env->rrset_cache, iq->answer,
				iq->qclass, now, iq->additional);
		iter_done(iq, RCODE_NOERROR);
		return -1;
	}
	if(iq->qtype == TYPE_ANY && env->cfg->deny_any &&
		!iter_cache_has_cname(env->rrset_cache, iq->sname, iq->qclass,
		now)) {
		/* compat: unbound-1.17: deny-any: NOTIMP with no records (RFC
		 * 8482 allows refusing ANY), never asked upstream; a cached
		 * CNAME is still followed, Unbound looks that up first */
		iq->cache_made = 1;
		iter_done(iq, RCODE_NOTIMPL);
		return -1;
	}
	if(iq->qtype == TYPE_ANY && !env->cfg->deny_any) {
		/* compat: unbound-1.17: from the RRsets cached at the name, as
		 * Unbound; such an answer is made anew each time, not kept as
		 * a message */
		if(!iter_cache_any(env->rrset_cache, iq->sname, iq->qclass,
			now, iq->answer))
			goto delegation;
		env->stats.cache_answers++;
		iq->cache_made = 1;
		iter_done(iq, RCODE_NOERROR);
		return -1;
	}
	if(iq->qtype != TYPE_CNAME) {
		ldns_rr_list* tmp = iter_cache_answer_list(env->rrset_cache,
			iq->sname, TYPE_CNAME, iq->qclass, now);
		uint8_t t[LDNS_MAX_DOMAINLEN + 1];
		size_t tl;
		if(tmp) {
			ldns_rr* c = ldns_rr_list_rr(tmp, 0);
			env->stats.cache_answers++;
			tl = ldns_rr_rd_count(c) == 1 ?
				delegpt_rdf_to_wire(ldns_rr_rdf(c, 0), t) : 0;
			if(tl == 0 || !iter_append_rrs(iq->answer, tmp)) {
				ldns_rr_list_deep_free(tmp);
				iter_fail(iq, "cached CNAME unusable for");
				return -1;
			}
			ldns_rr_list_deep_free(tmp);
			return iter_restart_at(env, iq, t, tl) ? 1 : -1;
		}
	}
delegation:
	dp = iter_cache_delegation(env->rrset_cache, start, iq->qclass,
		dname_count_labels(h->dp->name), now);
	while(dp && dp_useless(env, iq, dp)) {
		/* compat: unbound-1.17: as Unbound: go up one level, whose
		 * referral brings glue */
		uint8_t up[LDNS_MAX_DOMAINLEN + 1];
		delegpt_log(VERB_ALGO, dp);
		memcpy(up, dp->name, dp->namelen);
		delegpt_delete(dp);
		dp = iter_cache_delegation(env->rrset_cache,
			dname_remove_label(up), iq->qclass,
			dname_count_labels(h->dp->name), now);
	}
	if(!dp)
		return 0;
	env->stats.cache_delegations++;
	delegpt_log(VERB_ALGO, dp);
	iter_set_dp(iq, dp, 0);
	iq->dp_cached = 1;
	iq->state = ITER_TARGETS;
	iter_key_prefetch(env, iq, NULL);
	return 1;
}

/* compat: unbound-1.17: stub-prime: the zone's own NS set, asked of the stub's
 * addresses once (a priming sub-query) and then taken from the RRset cache;
 * when priming fails, the stub's configured addresses (as Unbound). Returns 1
 * with *dp to use, 0 when waiting for the priming or done, -1 when the state
 * was set up another way (run on). */
static int stub_prime(struct iter_env* env, struct iter_qstate* iq,
	const struct iter_hint* h, time_t now, struct delegpt** dp)
{
	*dp = NULL;
	if(iq->stub_primed) {
		*dp = iq->stub_primed;
		iq->stub_primed = NULL;
		(*dp)->tls = h->dp->tls;   /* stub-tls-upstream holds on */
		(*dp)->tcp = h->dp->tcp;   /* and stub-tcp-upstream */
		return 1;
	}
	if(env->rrset_cache && !iq->no_cache) {
		/* the NS set of the zone itself, cached by an earlier
		 * priming (or an answer from its servers) */
		*dp = iter_cache_delegation(env->rrset_cache, h->dp->name,
			iq->qclass, dname_count_labels(h->dp->name) - 1, now);
		if(*dp && query_dname_compare((*dp)->name, h->dp->name) == 0
			&& (*dp)->num_addr > 0) {
			(*dp)->tls = h->dp->tls;
			(*dp)->tcp = h->dp->tcp;
			return 1;
		}
		delegpt_delete(*dp);
		*dp = NULL;
	}
	if(!iq->stub_prime_tried) {
		iq->stub_prime_tried = 1;
		if(iter_attach_sub(env, iq, h->dp->name, TYPE_NS,
			iq->qclass, 1)) {
			iq->outstanding_subs++;
			iq->stub_prime_wait = 1;
			iq->state = ITER_PRIME_WAIT;
			return 0;
		}
	}
	iter_log_name(VERB_ALGO, "stub priming failed, its hints for",
		h->dp->name, TYPE_NS);
	*dp = delegpt_copy(h->dp);
	return 1;
}

/* compat: unbound-1.17: harden-below-nxdomain (RFC 8020): a name below a
 * DNSSEC-secure NXDOMAIN in the message cache does not exist: NXDOMAIN with
 * that answer's authority section, without asking (Unbound's
 * dns_cache_lookup). Returns 1 when done so. */
static int below_secure_nx(struct iter_env* env, struct iter_qstate* iq,
	time_t now)
{
	ldns_rr_list* auth = NULL;
	if(iq->is_priming || iq->refresh || iq->no_cache || !env->msg_cache ||
		!env->cfg || !env->cfg->harden_below_nxdomain ||
		!iter_below_secure_nx(env->msg_cache, iq->sname, iq->qtype,
		iq->qclass, env->cfg->qname_minimisation, now, &auth))
		return 0;
	iter_log_name(VERB_ALGO, "below a secure NXDOMAIN:", iq->sname,
		iq->qtype);
	ldns_rr_list_deep_free(iq->authority);
	iq->authority = auth;
	iq->cache_made = 1;
	iter_done(iq, RCODE_NXDOMAIN);
	return 1;
}

/* compat: unbound-1.17: auth_zone_delegpt: no delegation in the cache and a
 * for-upstream auth zone holds the name: it is the delegation point, no
 * root or stub priming first. 1 when iq is set up so. */
static int auth_dp(struct iter_env* env, struct iter_qstate* iq,
	const uint8_t* start)
{
	const uint8_t* zname;
	int usable;
	struct delegpt* dp;
	if(iq->auth_avoid || !auth_zones_upstream(env->auth, start,
		iq->qclass, &zname, &usable))
		return 0;
	if(!(dp = delegpt_create(zname)))
		return 0;
	dp->auth = 1;
	iter_set_dp(iq, dp, 0);
	iq->state = ITER_TARGETS;
	return 1;
}

/* ITER_INIT: the closest starting point for sname. Returns 0 when the
 * state must wait (priming) or is done. */
static int iter_init(struct iter_env* env, struct iter_qstate* iq)
{
	const struct iter_hint* h;
	const uint8_t* start;
	struct delegpt* dp;
	time_t now = time(NULL);
	if(iq->restarts > max_restarts(env)) {
		iter_fail(iq, "too many CNAME restarts for");
		return 0;
	}
	/* DS lives on the parent side of a zone cut: start from above */
	start = (iq->qtype == TYPE_DS && iq->snamelen > 1) ?
		dname_remove_label(iq->sname) : iq->sname;
	if(iq->parent_retry && iq->parent_retry->namelen > 1 &&
		dname_subdomain_c(start, iq->parent_retry->name))
		/* the last resort: from the failed zone's parent */
		start = dname_remove_label(iq->parent_retry->name);
	h = env->hints ? iter_hints_lookup(env->hints, start) : NULL;
	if(h && iq->skip_hints && !h->is_root)
		h = env->hints->root;
	/* stub-no-cache / forward-no-cache: nothing of this query is
	 * looked up in or stored to the caches (sticks across restarts) */
	if(h && h->no_cache)
		iq->no_cache = 1;
	if(iq->qs && (iq->qs->flags & MODQ_NO_CACHE))
		iq->no_cache = 1;
	/* compat: unbound-1.17: the whole answer (negative ones too: NXNS
	 * names looked up again) may be in the message cache: a sub-query's,
	 * or a client's whose entry the fast path would not serve (unchecked,
	 * from a module's own lookup: a validator checks it now, as Unbound's
	 * iterator answers from its message cache; the copy with DNSSEC
	 * records only, which a validator can check) */
	if(!iq->is_priming && !iq->refresh && iq->restarts == 0 &&
		env->msg_cache && !iq->no_cache) {
		int rcode;
		if(iter_msg_cached(env->msg_cache, iq->qname, iq->qname_len,
			iq->qtype, iq->qclass, now, iq->depth == 0, &rcode,
			iq->answer, &iq->authority)) {
			env->stats.msg_cache_subs++;
			iter_done(iq, rcode);
			return 0;
		}
	}
	if(below_secure_nx(env, iq, now))
		return 0;
	if(!h) {
		/* iter_hints_create logged "no root-hints configured" once */
		iter_fail(iq, "no root hints or stub for");
		return 0;
	}
	if(!iq->is_priming && env->rrset_cache && !h->is_forward &&
		!iq->no_cache) {
		int r = cache_step(env, iq, h, start, now);
		if(r != 0)
			return r > 0;
	}
	if(__builtin_expect(env->auth != NULL, 0) && !iq->is_priming &&
		!h->is_forward && auth_dp(env, iq, start))
		return 1;
	if(h->is_root && !iq->is_priming) {
		if(!env->primed_root || now >= env->primed_until) {
			if(iq->prime_failed) {
				iter_fail(iq, "root priming failed for");
				return 0;
			}
			if(!iter_attach_sub(env, iq,
				(const uint8_t*)"", TYPE_NS, CLASS_IN, 1)) {
				iter_fail(iq, "cannot prime the root for");
				return 0;
			}
			iq->outstanding_subs++;
			iq->state = ITER_PRIME_WAIT;
			return 0;
		}
		dp = delegpt_copy(env->primed_root);
		if(dp)   /* a stub-zone for "." with stub-tcp-upstream */
			dp->tcp = h->dp->tcp;
	} else if(h->prime && !h->is_root && !h->is_forward &&
		!iq->is_priming) {
		int r = stub_prime(env, iq, h, now, &dp);
		if(r <= 0)
			return r < 0;   /* -1: run on (the dp was set) */
	} else
		dp = delegpt_copy(h->dp);
	if(!dp) {
		iter_fail(iq, "out of memory for");
		return 0;
	}
	iter_set_dp(iq, dp, h->is_forward);
	iq->dp_first = !h->is_root && h->first;
	iq->state = ITER_TARGETS;
	return 1;
}

/* Is a among the servers the question must not go to (their data
 * failed validation: val-max-restart)? */
static int avoided(const struct iter_qstate* iq, const struct delegpt_addr* a)
{
	int i;
	for(i = 0; iq->qs && i < iq->qs->num_avoid; i++)
		if(iq->qs->avoid[i].len == a->addrlen && memcmp(
			&iq->qs->avoid[i].addr, &a->addr, a->addrlen) == 0)
			return 1;
	return 0;
}

/* Did a at this zone fail already, before the last resort? */
static int failed_before(const struct iter_qstate* iq,
	const struct delegpt_addr* a)
{
	const struct delegpt_addr* f;
	if(!iq->parent_retry || query_dname_compare(iq->parent_retry->name,
		iq->dp->name) != 0)
		return 0;
	for(f = iq->parent_retry->addrs; f; f = f->next)
		if(sockaddr_cmp(&f->addr, f->addrlen, &a->addr, a->addrlen)
			== 0)
			return 1;
	return 0;
}

/* do-nat64: a's IPv4 address becomes the NAT64 one, in the delegation
 * point (owned by this query), so RTT, lameness and the query use that.
 * 0: a may not be asked (do-not-query-address). */
static int nat64_apply(struct iter_env* env, struct iter_qstate* iq,
	struct delegpt_addr* a)
{
	char from[64], to[64], z[1024];
	if(verbosity >= VERB_QUERY)
		addr_to_str(&a->addr, a->addrlen, from, sizeof(from));
	if(outnet_nat64(env->outnet, &a->addr, &a->addrlen) != OUTNET_OK) {
		a->dead = 1;
		return 0;
	}
	if(verbosity >= VERB_QUERY && a->addr.ss_family == AF_INET6) {
		/* compat: unbound-1.19: its two lines at this level */
		addr_to_str(&a->addr, a->addrlen, to, sizeof(to));
		dname_to_str(iq->dp->name, z, sizeof(z));
		verbose(VERB_QUERY, "NAT64 apply: from: <%s> %s", z, from);
		verbose(VERB_QUERY, "NAT64 apply:   to: <%s> %s", z, to);
	}
	return 1;
}

/* compat: unbound-1.17: fast-server-permil and fast-server-num, then
 * prefer-ip6 or prefer-ip4, as Unbound's iter_filter_order: for
 * fast-server-permil of 1000 client queries (not prefetches) with more
 * than fast-server-num candidates, the band narrows to the
 * fast-server-num fastest; then, when a candidate of the preferred
 * family is in the band, the choice is among those (*family), else
 * among all. Candidates count at the fewest attempts (min_attempts). */
static void narrow_choice(struct iter_env* env, struct iter_qstate* iq,
	struct delegpt_addr* const* cand, const int* rtts, int n,
	int min_attempts, int best, int* band, int* family)
{
	const struct config_file* cfg = env->cfg;
	int i, k = 0, pref = cfg->prefer_ip6 ? AF_INET6 :
		cfg->prefer_ip4 ? AF_INET : 0;
	if(cfg->fast_server_permil > 0 && !iq->refresh &&
		ub_random_max(env->rnd, 1000) <
		(uint32_t)cfg->fast_server_permil) {
		int sorted[DELEGPT_MAX_ADDR], j, nth;
		for(i = 0; i < n; i++) {
			if(cand[i]->attempts != min_attempts)
				continue;
			/* insertion sort: a handful of addresses */
			for(j = k; j > 0 && sorted[j - 1] > rtts[i]; j--)
				sorted[j] = sorted[j - 1];
			sorted[j] = rtts[i];
			k++;
		}
		if(k > cfg->fast_server_num && cfg->fast_server_num > 0) {
			nth = sorted[cfg->fast_server_num - 1];
			if(nth - best < *band)
				*band = nth - best;
		}
	}
	if(!pref)
		return;
	for(i = 0; i < n; i++)
		if(cand[i]->attempts == min_attempts &&
			rtts[i] <= best + *band &&
			cand[i]->addr.ss_family == pref) {
			*family = pref;
			return;
		}
}

/* The usable address to send to next, by RTT: addresses not tried yet
 * first, then the fastest band, random inside the band. NULL if none. */
static struct delegpt_addr* select_addr(struct iter_env* env,
	struct iter_qstate* iq)
{
	struct delegpt_addr* a, *cand[DELEGPT_MAX_ADDR];
	int rtts[DELEGPT_MAX_ADDR], briefs[DELEGPT_MAX_ADDR];
	uint8_t dlames[DELEGPT_MAX_ADDR];
	int n = 0, i, best = -1, inband = 0, band, family, num_dlame = 0;
	int max_attempts = env->max_attempts > 0 ? env->max_attempts :
		ITER_MAX_ATTEMPTS;
	int min_attempts;
	time_t now = time(NULL);
	/* over TCP or TLS from the start a timeout is no lost datagram
	 * but a server that does not answer, each at least the TCP
	 * timeout (the rto does not grow past it): fewer tries */
	if(iq->dp->tls || iq->dp->tcp || (env->cfg &&
		(env->cfg->tls_upstream || outnet_cfg_tcp_upstream(env->cfg))))
		if(max_attempts > ITER_MAX_STREAM_ATTEMPTS)
			max_attempts = ITER_MAX_STREAM_ATTEMPTS;
	min_attempts = max_attempts;
	for(a = iq->dp->addrs; a; a = a->next) {
		int lame = 0, dlame = 0, rlame = 0, rtt = env->unknown_rtt;
		int brief = 0, backed = 0, known = 0;
		/* compat: unbound-1.17: outbound-msg-retry (5) sends to one
		 * address: a server that drops half its replies (rate
		 * limiting) still answers one of them */
		if(a->dead || a->attempts >= max_attempts ||
			avoided(iq, a) || failed_before(iq, a))
			continue;
		/* do-nat64: the IPv4 address becomes the NAT64 one here,
		 * once, so RTT, lameness and the query all use that */
		if(a->addr.ss_family == AF_INET && !nat64_apply(env, iq, a))
			continue;
		if(outnet_addr_refused(env->outnet, &a->addr, a->addrlen)
			!= OUTNET_OK) {
			a->dead = 1;
			continue;
		}
		/* infra_backed_off and infra_get_lame_rtt in one lookup */
		if(env->infra)
			known = infra_select_info(env->infra, &a->addr,
				a->addrlen, iq->dp->name, iq->dp->namelen,
				iq->qtype, now, &backed, &lame, &dlame, &rlame,
				&rtt);
		if(!iq->probe && backed) {
			/* timed out again and again: one short try (a server
			 * that dropped only some names answers it), not its
			 * backed-off timeout; a background probe waits that
			 * out (probe_backed_off) */
			if(a->attempts > 0) {
				/* backed off by this query's own timeouts:
				 * no probe from it (a probe for a name the
				 * server drops backs it off for every name) */
				a->dead = 1;
				continue;
			}
			iq->backed_off = 1;
			brief = 1;
		}
		if(known) {
			if(lame || rlame || (rtt >= infra_max_rtt(env->infra) &&
				!iq->probe)) {
				/* compat: unbound-1.17: lame, or backed off to
				 * the top: as Unbound, not used until it has
				 * been probed again
				 */
				a->dead = 1;
				continue;
			}
		} else
			rtt = env->unknown_rtt;
		if(a->attempts < min_attempts)
			min_attempts = a->attempts;
		cand[n] = a;
		rtts[n] = rtt;
		briefs[n] = brief;
		dlames[n] = (uint8_t)(dlame || a->dnsseclame);
		num_dlame += dlames[n];
		n++;
	}
	/* compat: unbound-1.17: DNSSEC-lame servers (iter_dnsseclame.h)
	 * rank after every other usable one (Unbound adds twice its top
	 * timeout to their rtt); when only they are left, one is asked and
	 * its reply taken as it is (Unbound's dnssec_lame_query) */
	iq->dnssec_lame_query = n > 0 && num_dlame == n;
	if(num_dlame > 0 && num_dlame < n) {
		int k = 0;
		min_attempts = max_attempts;
		for(i = 0; i < n; i++) {
			if(dlames[i])
				continue;
			if(cand[i]->attempts < min_attempts)
				min_attempts = cand[i]->attempts;
			cand[k] = cand[i];
			rtts[k] = rtts[i];
			briefs[k] = briefs[i];
			k++;
		}
		n = k;
	}
	if(iq->dnssec_lame_query)
		verbose(VERB_ALGO, "chase to dnssec lame server");
	for(i = 0; i < n; i++)
		if(cand[i]->attempts == min_attempts &&
			(best < 0 || rtts[i] < best))
			best = rtts[i];
	if(best < 0)
		return NULL;
	band = ITER_RTT_BAND;
	family = 0;
	if(env->cfg && (env->cfg->fast_server_permil ||
		env->cfg->prefer_ip4 || env->cfg->prefer_ip6))
		narrow_choice(env, iq, cand, rtts, n, min_attempts, best,
			&band, &family);
	for(i = 0; i < n; i++)
		if(cand[i]->attempts == min_attempts &&
			rtts[i] <= best + band && (!family ||
			cand[i]->addr.ss_family == family))
			inband++;
	inband = (int)ub_random_max(env->rnd, (uint32_t)inband);
	for(i = 0; i < n; i++)
		if(cand[i]->attempts == min_attempts &&
			rtts[i] <= best + band && (!family ||
			cand[i]->addr.ss_family == family) && inband-- == 0) {
			iq->sel_rtt = briefs[i] ? env->unknown_rtt : rtts[i];
			iq->sel_brief = briefs[i];
			return cand[i];
		}
	return NULL;
}

/* compat: unbound-1.17: ratelimit, checked where Unbound's outside network
 * checks it, for each new query to a server: not for a query to a
 * forwarder (RD) nor a prefetch. The delegation point's rate (rate_zone.h)
 * over its limit: no query, except 1 in ratelimit-factor let through.
 * Returns 1 when the query may go. */
static int rate_allows(struct iter_env* env, struct iter_qstate* iq)
{
	const struct config_file* cfg = env->cfg;
	time_t now;
	int lim, crossed;
	iq->rate_counted = 0;
	if(!cfg || cfg->ratelimit == 0 || iq->dp_forward || !env->infra ||
		(iq->qs && (iq->qs->flags & MODQ_PREFETCH)))
		return 1;
	lim = rate_domains_limit(env->rate_domains, iq->dp->name,
		cfg->ratelimit);
	if(lim <= 0)
		return 1;   /* ratelimit-for-domain: name 0 */
	now = time(NULL);
	iq->rate_counted = 1;
	if(rate_zone_inc(infra_zone_rates(env->infra), iq->dp->name,
		iq->dp->namelen, now, cfg->ratelimit_backoff, (uint32_t)lim,
		&crossed))
		return 1;
	if(crossed && verbosity >= VERB_OPS) {
		/* compat: unbound-1.17: Unbound's line, once as the rate
		 * goes over */
		char z[1024], q[1024], *t, *c;
		dname_to_str(iq->dp->name, z, sizeof(z));
		dname_to_str(iq->qname, q, sizeof(q));
		t = ldns_rr_type2str((ldns_rr_type)iq->qtype);
		c = ldns_rr_class2str((ldns_rr_class)iq->qclass);
		verbose(VERB_OPS, "ratelimit exceeded %s %d query %s %s %s",
			z, lim, q, c ? c : "?", t ? t : "?");
		free(t);
		free(c);
	}
	if(cfg->ratelimit_factor != 0 && ub_random_max(env->rnd,
		(uint32_t)cfg->ratelimit_factor) == 1) {
		iter_log_name(VERB_ALGO, "ratelimit allowed through for "
			"delegation point", iq->dp->name, LDNS_RR_TYPE_NS);
		return 1;
	}
	return 0;
}

/* 1: sent, 0: this server cannot be used, -1: out of time, -2: over the
 * zone's ratelimit (the state has failed). */
static int send_query(struct iter_env* env, struct iter_qstate* iq,
	struct delegpt_addr* a)
{
	struct outnet_request req;
	int64_t left;
	memset(&req, 0, sizeof(req));
	memcpy(&req.addr, &a->addr, a->addrlen);
	req.addrlen = a->addrlen;
	req.zone = iq->dp->name;
	req.zonelen = iq->dp->namelen;
	if(!iq->caps_fallback)   /* the fallback repeats the question */
		pick_question(env, iq);
	req.qname = iq->ask;
	req.qname_len = iq->asklen;
	req.qtype = iq->asktype;
	req.qclass = iq->qclass;
	req.flags = iq->dp_forward ? FLAG_RD : 0;
	req.edns = 1;
	/* compat: unbound-1.17: as Unbound: RRSIG, NSEC, NSEC3 for the
	 * validator; unbound-1.18: none with disable-edns-do */
	req.dnssec_ok = !env->no_edns_do;
	req.tcp = iq->dp->tcp;   /* stub-/forward-tcp-upstream */
	req.tcp_on_tc = 1;
	req.udp_resend = 1;
	req.edns_fallback = 1;
	req.caps = iter_caps_use(env, iq);
	if(iq->qs && iq->qs->env && iq->qs->env->edns_hook) {
		/* a module's option for this server (subnetcache: ECS) */
		const struct module_env* me = iq->qs->env;
		req.opt_len = me->edns_hook->query_opt(iq->qs,
			me->edns_hook_id, &a->addr, a->addrlen, iq->dp->name,
			req.opt, sizeof(req.opt));
	}
	if(env->edns_strings)
		edns_strings_append(env->edns_strings, &a->addr, a->addrlen,
			req.opt, &req.opt_len, sizeof(req.opt));
	if(iq->dp->tls || (env->cfg && env->cfg->tls_upstream)) {
		/* DNS over TLS or nothing: without a context (none was
		 * made for this config) outnet_send refuses */
		req.tls = 1;
		req.tls_ctx = env->hints ? env->hints->tls_ctx : NULL;
		req.tls_name = a->tls_name;
	}
	left = iq->budget->deadline_ms - now_ms();
	if(left < 50)
		return -1;
	if(iq->sel_brief)
		req.timeout_ms = iq->sel_rtt;   /* a backed-off server */
	if(iq->sel_rtt > left)
		req.timeout_ms = (int)left;   /* the time bound cuts it */
	if(!rate_allows(env, iq)) {
		/* compat: unbound-1.17: SERVFAIL without an EDE, counted in
		 * num.query.ratelimited, as Unbound */
		if(iq->qs)
			iq->qs->env->counters.queries_ratelimited++;
		verbose(VERB_ALGO, "query exceeded ratelimits");
		iter_fail(iq, "exceeded ratelimit for zone");
		return -2;
	}
	a->attempts++;
	iq->outq = outnet_send(env->outnet, &req, mesh_outnet_reply, iq->ms);
	if(!iq->outq) {
		a->dead = 1;
		return 0;
	}
	iq->sent_to = a;
	iq->budget->sent++;
	iq->sent_count++;
	env->stats.sent++;
	if(iter_minimised(iq)) {
		iq->qmin_steps++;
		env->stats.qmin_sent++;
	}
	if(verbosity >= VERB_ALGO) {
		char ip[64], n[1024], z[1024];
		addr_to_str(&a->addr, a->addrlen, ip, sizeof(ip));
		dname_to_str(iq->ask, n, sizeof(n));
		dname_to_str(iq->dp->name, z, sizeof(z));
		verbose(VERB_ALGO, "sending %s type %d to %s (zone %s)", n,
			(int)iq->asktype, ip, z);
	}
	return 1;
}

/* target-fetch-policy at the state's depth; 0 past the deepest */
static int tfp_at(const struct iter_env* env, const struct iter_qstate* iq)
{
	if(!env->hints)
		return 0;
	return iq->depth < env->hints->tfp_num ? env->hints->tfp[iq->depth]
		: 0;
}

/* compat: unbound-1.17: May this state look up NS names at all? Not from the
 * deepest dependency depth of target-fetch-policy on (as Unbound), nor past
 * ITER_MAX_DEPTH. */
static int may_fetch(const struct iter_env* env,
	const struct iter_qstate* iq)
{
	int maxdep = env->hints ? env->hints->tfp_num - 1 : ITER_MAX_DEPTH;
	return !iq->dp_forward && iq->depth < maxdep &&
		iq->depth + 1 <= ITER_MAX_DEPTH;
}

/* Start lookups for at most max_names NS names without addresses (-1:
 * all, within the limits). Returns how many lookups started. */
static int fetch_targets(struct iter_env* env, struct iter_qstate* iq,
	int max_names)
{
	struct delegpt_ns* ns;
	int started = 0, names = 0;
	if(!may_fetch(env, iq))
		return 0;
	for(ns = iq->dp->nslist; ns && (max_names < 0 || names < max_names);
		ns = ns->next) {
		int t, n = 0;
		if(ns->got4 || ns->got6 || ns->failed ||
			!((env->do_ip4 && !ns->lookup4) ||
			(env->do_ip6 && !ns->lookup6)))
			continue;
		if(iq->dp_targets >= ITER_MAX_TARGETS_DP ||
			iq->budget->targets >= ITER_MAX_TARGETS ||
			iq->dp_nx >= ITER_MAX_NX_TARGETS) {
			iter_log_name(VERB_ALGO, "target lookup limit reached for",
				iq->qname, iq->qtype);
			break;
		}
		for(t = 0; t < 2; t++) {
			int* flag = t == 0 ? &ns->lookup4 : &ns->lookup6;
			int fam = t == 0 ? env->do_ip4 : env->do_ip6;
			if(*flag || !fam)
				continue;
			*flag = 1;
			if(!iter_attach_sub(env, iq, ns->name,
				t == 0 ? TYPE_A : TYPE_AAAA, iq->qclass, 0))
				continue;
			iq->outstanding_subs++;
			n++;
		}
		if(n == 0) {
			/* a cycle or a limit: this name cannot be used */
			ns->failed = 1;
			continue;
		}
		started += n;
		names++;
		iq->dp_targets++;
		iq->budget->targets++;
		env->stats.target_lookups++;
	}
	return started;
}

/* compat: unbound-1.17: Unbound's last resort, "try to grab parent NS": the
 * addresses of a delegation from the cache (as the zone's own servers gave
 * them) were asked and all failed; start once more at the zone's parent, whose
 * referral brings its NS set and glue. Not under a stub or forward zone
 * without stub-first / forward-first. 1 when started. */
static int parent_side_retry(struct iter_env* env, struct iter_qstate* iq)
{
	const struct iter_hint* h;
	if(iq->parent_retry || !iq->dp_cached || iq->dp_forward ||
		iq->is_priming || iq->dp->namelen <= 1 || !env->hints)
		return 0;
	/* addresses that failed, not names without any (NXNS: the
	 * referral would only bring the same names again) */
	if(iq->dp->num_addr == 0 || iq->dp_nx > 0)
		return 0;
	h = iter_hints_lookup(env->hints, iq->dp->name);
	if(h && !h->is_root && !h->first)
		return 0;
	iter_log_name(VERB_ALGO, "try to grab parent NS, the last resort for",
		iq->dp->name, TYPE_NS);
	iq->parent_retry = iq->dp;
	iq->dp = NULL;
	iter_set_dp(iq, NULL, 0);
	iq->state = ITER_INIT;
	return 1;
}

/* compat: unbound-1.17: the cached delegation's own addresses are spent
 * and an earlier last resort kept the parent's glue for this zone
 * (iter_parentside.h): those addresses are added and tried, without
 * asking the parent again (Unbound takes its parent-side NS and glue from
 * its cache). 1 when there are new addresses to try. */
static int parentside_addrs(struct iter_env* env, struct iter_qstate* iq)
{
	int n;
	if(iq->parentside_used || iq->parent_retry || !iq->dp_cached ||
		iq->dp_forward || iq->is_priming)
		return 0;
	iq->parentside_used = 1;
	n = iter_parentside_add_to(&env->parentside, iq->dp, time(NULL));
	if(n == 0)
		return 0;
	iter_log_name(VERB_ALGO, "use the kept parent-side addresses for",
		iq->dp->name, TYPE_NS);
	iq->state = ITER_TARGETS;
	return 1;
}

/* compat: unbound-1.21: harden-unverified-glue: the delegation's
 * addresses are spent and its names' lookups failed; the glue the scrub
 * set aside for its NS names (iter_parentside.h) is added and tried,
 * before the parent side (Unbound's processLastResort: "try unverified
 * glue from cache" first). Once per delegation. 1 when there are new
 * addresses to try. */
static int unverified_glue(struct iter_env* env, struct iter_qstate* iq)
{
	if(iq->unverified_used || !env->cfg ||
		!env->cfg->harden_unverified_glue || iq->dp_forward ||
		iq->is_priming)
		return 0;
	iq->unverified_used = 1;
	if(iter_parentside_add_glue(&env->unverified_glue, iq->dp,
		time(NULL)) == 0)
		return 0;
	verbose(VERB_ALGO, "try unverified glue from cache");
	iq->state = ITER_TARGETS;
	return 1;
}

/* compat: unbound-1.17: No server left and some were backed off
 * (infra_backed_off): the client gets its SERVFAIL now, and one background
 * query at a time per server (its probedelay) asks them again, as Unbound
 * probes backed-off servers; a reply makes them usable at once. */
static void probe_backed_off(struct iter_env* env, struct iter_qstate* iq)
{
	struct delegpt_addr* a;
	time_t now = time(NULL);
	int claimed = 0;
	if(!iq->backed_off || iq->probe || !env->infra || !env->mesh)
		return;
	for(a = iq->dp->addrs; a; a = a->next)
		if(infra_backed_off(env->infra, &a->addr, a->addrlen,
			iq->dp->name, iq->dp->namelen, iq->qtype, now) &&
			infra_claim_probe(env->infra, &a->addr, a->addrlen,
			iq->dp->name, iq->dp->namelen, now))
			claimed = 1;
	if(claimed && iter_new_probe(env, iq))
		iter_log_name(VERB_ALGO, "probe backed-off servers with",
			iq->sname, iq->qtype);
}

/* The 0x20 fallback: servers chosen as usual, without 0x20, until
 * enough answers are in or none is left (iter_caps.h). */
static int caps_targets(struct iter_env* env, struct iter_qstate* iq)
{
	struct delegpt_addr* a;
	while(!iter_caps_done(iq) && (a = select_addr(env, iq)) != NULL) {
		int r = send_query(env, iq, a);
		if(r > 0)
			return 0;
		if(r < 0) {
			if(r == -1)
				iter_fail(iq, "time limit reached for");
			return 0;
		}
	}
	iter_caps_finish(env, iq);
	return iq->state != ITER_DONE;
}

/* The auth zone failed for iq: its servers (fallback-enabled), or
 * SERVFAIL. Returns what iter_targets returns. */
static int auth_failed(struct iter_qstate* iq, int fallback)
{
	if(!fallback) {
		/* compat: unbound-1.17: "auth zone lookup failed, fallback is
		 * off" */
		iter_fail(iq, "auth zone lookup failed, fallback is off, for");
		return 0;
	}
	verbose(VERB_ALGO, "auth zone lookup failed, fallback to its "
		"servers");
	iq->auth_avoid = 1;
	iter_set_dp(iq, NULL, 0);
	iq->state = ITER_INIT;
	return 1;
}

/* compat: unbound-1.17: for-upstream: when an auth zone holds the name at
 * or below the delegation point, its copy answers in place of the zone's
 * servers (Unbound's auth_zone_delegpt and auth_zones_lookup): the full
 * question (no minimisation: nothing leaves the machine), its reply
 * processed as a server's. A referral out of the zone goes on to the
 * child's servers. Returns -1 when not used (ask the servers), else what
 * iter_targets returns. */
static int auth_step(struct iter_env* env, struct iter_qstate* iq)
{
	const struct az_zone* z;
	const uint8_t* zname, *del = iq->sname;
	int usable;
	size_t len;
	if(iq->auth_avoid || iq->dp_forward)
		return -1;
	if(iq->qtype == TYPE_DS && iq->snamelen > 1)
		del = dname_remove_label(iq->sname);
	if(!(z = auth_zones_upstream(env->auth, del, iq->qclass, &zname,
		&usable)) || !dname_subdomain_c(zname, iq->dp->name))
		return -1;
	if(!usable)
		return auth_failed(iq, auth_zone_fallback(z));
	if(!iq->dp->auth) {
		struct delegpt* dp = delegpt_create(zname);
		if(!dp) {
			iter_fail(iq, "out of memory for");
			return 0;
		}
		dp->auth = 1;
		iter_set_dp(iq, dp, 0);
	} else if(iq->budget->sent >= global_quota(env)) {
		iter_fail(iq, "query budget exhausted for");
		return 0;
	}
	if(!env->auth_buf && !(env->auth_buf = malloc(65535))) {
		iter_fail(iq, "out of memory for");
		return 0;
	}
	iq->ask = iq->sname;
	iq->asklen = iq->snamelen;
	iq->asktype = iq->qtype;
	iq->qmin = 0;
	len = auth_zone_reply_wire(z, iq->ask, iq->asklen, iq->asktype,
		iq->qclass, env->auth_buf, 65535);
	if(len == 0)
		return auth_failed(iq, auth_zone_fallback(z));
	iter_log_name(VERB_ALGO, "answer from auth zone for", iq->sname,
		iq->qtype);
	if(iq->qs)
		iq->qs->env->counters.authzone_up++;
	iq->budget->sent++;   /* bounds a loop of answers as sends do */
	iq->sent_to = NULL;
	iter_process_wire(env, iq, env->auth_buf, len);
	if(iq->state == ITER_TARGETS && iq->dp && iq->dp->auth)
		/* the reply was not usable (as from a lame server) */
		return auth_failed(iq, auth_zone_fallback(z));
	return iq->state != ITER_DONE;
}

/* compat: unbound-1.14: a module's say on the delegation about to be used
 * (RPZ's NSDNAME and NSIP triggers, as Unbound's
 * rpz_callback_from_iterator_module before each target selection): 1 when
 * it decided the answer. Cold: only with a module that set the hook. */
static int deleg_policy(struct iter_qstate* iq)
{
	struct module_env* me = iq->qs->env;
	struct module_deleg d;
	const struct delegpt_ns* ns;
	const struct delegpt_addr* a;
	d.zone = iq->dp->name;
	d.num_ns = d.num_addr = 0;
	for(ns = iq->dp->nslist; ns && d.num_ns < MODULE_DELEG_MAX_NS;
		ns = ns->next)
		d.ns[d.num_ns++] = ns->name;
	for(a = iq->dp->addrs; a && d.num_addr < MODULE_DELEG_MAX_ADDR;
		a = a->next) {
		d.addr[d.num_addr] = &a->addr;
		d.addrlen[d.num_addr++] = a->addrlen;
	}
	/* the iterator runs on the mesh's state, its own while it runs */
	if(!me->deleg_hook->check((struct module_qstate*)iq->qs,
		me->deleg_hook_id, &d))
		return 0;
	iq->policy_done = 1;
	iter_done(iq, iq->qs->res.rcode);
	return 1;
}

/* ITER_TARGETS: send to a server, or wait for / start target lookups. */
static int iter_targets(struct iter_env* env, struct iter_qstate* iq)
{
	struct delegpt_addr* a;
	if(iq->outq)
		return 0;
	if(__builtin_expect(env->auth != NULL, 0)) {
		int r = auth_step(env, iq);
		if(r >= 0)
			return r;
	}
	if(__builtin_expect(iq->qs && iq->qs->env->deleg_hook != NULL, 0) &&
		!iq->dp->auth && deleg_policy(iq))
		return 0;
	if(iq->budget->sent >= global_quota(env)) {
		iter_fail(iq, "query budget exhausted (max-global-quota) for");
		return 0;
	}
	if(sent_count_over(env, iq)) {
		iter_fail(iq, "exceeded max-sent-count for");
		return 0;
	}
	if(iq->caps_fallback)
		return caps_targets(env, iq);
	while((a = select_addr(env, iq)) != NULL) {
		int r = send_query(env, iq, a);
		if(r > 0) {
			/* target-fetch-policy: look up more NS names now, so
			 * other servers are known if this one fails */
			int tf = tfp_at(env, iq);
			if(tf != 0 && iq->outstanding_subs == 0 &&
				iq->dp_nx == 0)
				(void)fetch_targets(env, iq, tf);
			return 0;
		}
		if(r < 0) {
			if(r == -1)
				iter_fail(iq, "time limit reached for");
			return 0;
		}
	}
	/* wait for the lookups in flight before starting more, so names
	 * that fail (NXNS) stop the fetching at the limit */
	if(iq->outstanding_subs > 0 ||
		fetch_targets(env, iq, ITER_TARGETS_AT_ONCE) > 0)
		return 0;   /* wait for addresses */
	delegpt_log(VERB_ALGO, iq->dp);
	if(iq->dp_first && !iq->skip_hints) {
		/* stub-first / forward-first: try the normal way */
		iter_log_name(VERB_ALGO, "stub/forward failed, from the root for",
			iq->sname, iq->qtype);
		iq->skip_hints = 1;
		iq->state = ITER_INIT;
		return 1;
	}
	probe_backed_off(env, iq);
	if(unverified_glue(env, iq))
		return 1;
	if(parentside_addrs(env, iq))
		return 1;
	if(parent_side_retry(env, iq))
		return 1;
	iter_fail(iq, "all servers failed for");
	return 0;
}

void iter_run(struct iter_env* env, struct iter_qstate* iq)
{
	for(;;) {
		switch(iq->state) {
		case ITER_INIT:
			if(!iter_init(env, iq))
				return;
			break;
		case ITER_PRIME_WAIT:
			if(iq->outstanding_subs > 0)
				return;
			if(iq->stub_prime_wait)
				iq->stub_prime_wait = 0;  /* stub_primed or not */
			else if(!env->primed_root)
				iq->prime_failed = 1;
			iq->state = ITER_INIT;
			break;
		case ITER_TARGETS:
			if(!iter_targets(env, iq))
				return;
			break;
		case ITER_DONE:
			return;
		}
	}
}
