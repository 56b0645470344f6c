/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/iter_harden.c - compat: unbound-1.17: harden-referral-path (Unbound
 * 1.17's generate_ns_check and generate_a_aaaa_check): a referral's NS set is
 * what the parent says, so it is not kept as the cache's delegation unless it
 * was the question; instead the zone's NS set is asked for, starting at the
 * parent (whose referral then is the question's, and kept), then at the zone's
 * own servers, and the addresses of the name servers are looked up, in
 * detached queries (services/mesh.h) whose answers go to the caches with
 * answer trust. Their number is bounded by the mesh (MESH_MAX_DETACHED at a
 * time) and by the dependency depth. */
#include "config.h"
#include "iterator/iter_harden.h"
#include "iterator/iterator.h"
#include "iterator/iter_hints.h"
#include "iterator/iter_util.h"
#include "iterator/delegpt.h"
#include "services/mesh.h"
#include "services/cache/rrset.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/msgparse.h"
#include "util/net_help.h"
#include <time.h>

static int harden(const struct iter_env* env)
{
	return env->cfg && env->cfg->harden_referral_path && env->mesh;
}

/* compat: unbound-1.17: Unbound's max_dependency_depth: the last depth of
 * target-fetch-policy. */
static int max_depth(const struct iter_env* env)
{
	return env->hints ? env->hints->tfp_num - 1 : ITER_MAX_DEPTH;
}

/* compat: unbound-1.17: Unbound's can_have_last_resort: not under a stub or
 * forward zone whose servers are the only way (no stub-first / forward-first).
 */
static int last_resort(const struct iter_env* env, const uint8_t* name)
{
	const struct iter_hint* h = env->hints ?
		iter_hints_lookup(env->hints, name) : NULL;
	return !h || h->is_root || h->first;
}

int iter_referral_store(const struct iter_env* env,
	const struct iter_qstate* iq, const uint8_t* zone)
{
	if(!env->cfg || !env->cfg->harden_referral_path)
		return 1;
	/* the parent's NS set is kept only when it is the question */
	return iq->qtype == TYPE_NS &&
		query_dname_compare(iq->sname, zone) == 0;
}

/* A detached lookup of every A and AAAA RRset in list (the glue that
 * came with a referral or priming), but the question itself. */
static void addr_checks(struct iter_env* env, const struct iter_qstate* iq,
	const ldns_rr_list* list)
{
	uint8_t name[LDNS_MAX_DOMAINLEN + 1];
	size_t i;
	for(i = 0; list && i < ldns_rr_list_rr_count(list); i++) {
		ldns_rr* rr = ldns_rr_list_rr(list, i);
		uint16_t t = (uint16_t)ldns_rr_get_type(rr);
		if((t != TYPE_A && t != TYPE_AAAA) ||
			!delegpt_rdf_to_wire(ldns_rr_owner(rr), name))
			continue;
		if(t == iq->qtype && query_dname_compare(name, iq->qname) == 0)
			continue;
		/* one lookup per RRset: the mesh refuses one in flight */
		if(iter_new_detached(env, name, t,
			(uint16_t)ldns_rr_get_class(rr), iq->depth + 1, NULL))
			iter_log_name(VERB_ALGO, "schedule addr fetch", name, t);
	}
}

/* Is the NS set of iq->dp's zone in the RRset cache with answer trust
 * (an earlier check, or a question for it)? */
static int child_ns_cached(const struct iter_env* env,
	const struct iter_qstate* iq)
{
	struct rrset_entry* e;
	int ok;
	if(!env->rrset_cache)
		return 0;
	e = rrset_cache_lookup(env->rrset_cache, iq->dp->name, TYPE_NS,
		iq->qclass, 0, time(NULL));
	if(!e)
		return 0;
	ok = e->trust >= RRSET_TRUST_ANSWER;
	rrset_cache_release(env->rrset_cache, e);
	return ok;
}

void iter_referral_checks(struct iter_env* env, struct iter_qstate* iq,
	const ldns_pkt* pkt, const struct delegpt* parent)
{
	if(!harden(env) || !iq->dp || iq->depth >= max_depth(env) ||
		!last_resort(env, iq->dp->name))
		return;
	if(iq->qtype == TYPE_NS &&
		query_dname_compare(iq->dp->name, iq->qname) == 0) {
		/* the question is this NS set: check its glue instead */
		addr_checks(env, iq, ldns_pkt_additional(pkt));
		return;
	}
	if(iq->qtype == TYPE_DS)
		return;   /* DS is above the zone cut */
	if(child_ns_cached(env, iq))
		return;   /* checked already: the zone's own NS set is kept */
	/* the zone's NS set, asked at the parent first: its referral
	 * (the question's NS set) is kept, so a child that does not
	 * answer NS queries is still reached through the cache */
	if(iter_new_detached(env, iq->dp->name, TYPE_NS, iq->qclass,
		iq->depth + 1, parent ? parent : iq->dp))
		iter_log_name(VERB_ALGO, "schedule ns fetch", iq->dp->name,
			TYPE_NS);
}

void iter_prime_checks(struct iter_env* env, const struct iter_qstate* iq)
{
	if(!harden(env) || iq->rcode != RCODE_NOERROR)
		return;
	/* the primed NS set asked again as a normal question (answer
	 * trust in the cache), and the addresses of its servers */
	if(iter_new_detached(env, iq->qname, iq->qtype, iq->qclass,
		iq->depth + 1, NULL))
		iter_log_name(VERB_ALGO, "schedule prime validation",
			iq->qname, iq->qtype);
	addr_checks(env, iq, iq->additional);
}
