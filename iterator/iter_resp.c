/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/iter_resp.c - what the iterator does with an upstream reply
 * (scrub, then: answer, CNAME restart, referral, NODATA, NXDOMAIN,
 * lame), with sub-query results, and the encoding of its result. */
#include "config.h"
#include "iterator/iterator.h"
#include "util/module.h"
#include "iterator/iter_util.h"
#include "iterator/delegpt.h"
#include "iterator/iter_cache.h"
#include "iterator/iter_harden.h"
#include "iterator/iter_keyprefetch.h"
#include "iterator/iter_scrub.h"
#include "iterator/iter_tail.h"
#include "iterator/iter_caps.h"
#include "iterator/iter_dnsseclame.h"
#include "iterator/iter_hints.h"
#include "iterator/iter_priv.h"
#include "services/outside_network.h"
#include "services/cache/infra.h"
#include "services/cache/rate_zone.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/msgencode.h"
#include "util/msgparse.h"
#include "util/reply_parse.h"
#include "util/reply_tail.h"
#include "services/cache/neg_cache.h"
#include "services/cache/neg_nsec3.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Append clones of every record in from to to. */
int iter_append_rrs(ldns_rr_list* to, const ldns_rr_list* from)
{
	size_t i;
	for(i = 0; from && i < ldns_rr_list_rr_count(from); i++) {
		ldns_rr* c = ldns_rr_clone(ldns_rr_list_rr(from, i));
		if(!c || !ldns_rr_list_push_rr(to, c)) {
			ldns_rr_free(c);
			return 0;
		}
	}
	return 1;
}

/* Move the records of from to the end of to (no copies: from is a
 * scrubbed reply's section that is freed next); 0 when out of memory,
 * then the records not moved stay in from. */
static int move_rrs(ldns_rr_list* to, ldns_rr_list* from)
{
	size_t n = ldns_rr_list_rr_count(from), i, j;
	for(i = 0; i < n; i++)
		if(!ldns_rr_list_push_rr(to, ldns_rr_list_rr(from, i)))
			break;
	for(j = i; j < n; j++)   /* those not moved: to the front */
		(void)ldns_rr_list_set_rr(from, ldns_rr_list_rr(from, j),
			j - i);
	ldns_rr_list_set_rr_count(from, n - i);
	return i == n;
}

/* The scrubbed answer records of pkt to the end of iq->answer. When
 * iq->answer has none yet (no cached CNAME before: nearly every
 * answer), the two lists change places instead, and the packet frees
 * the empty one: no list grows and shrinks for it (a reallocation and
 * a free per miss). 0 when out of memory, as move_rrs. */
static int take_answer(struct iter_qstate* iq, ldns_pkt* pkt)
{
	ldns_rr_list* a = ldns_pkt_answer(pkt);
	if(iq->answer && a && ldns_rr_list_rr_count(iq->answer) == 0) {
		ldns_pkt_set_answer(pkt, iq->answer);
		ldns_pkt_set_ancount(pkt, 0);
		iq->answer = a;
		return 1;
	}
	return move_rrs(iq->answer, a);
}

/* Clones of the records of list that keep(rr, arg) says to keep; NULL
 * when none or out of memory. */
static ldns_rr_list* clone_if(const ldns_rr_list* list,
	int (*keep)(const ldns_rr* rr, int arg), int arg)
{
	ldns_rr_list* out = NULL;
	size_t i;
	for(i = 0; list && i < ldns_rr_list_rr_count(list); i++) {
		ldns_rr* rr = ldns_rr_list_rr(list, i), *c;
		if(!keep(rr, arg))
			continue;
		if(!out && !(out = ldns_rr_list_new()))
			return NULL;
		c = ldns_rr_clone(rr);
		if(!c || !ldns_rr_list_push_rr(out, c)) {
			ldns_rr_free(c);
			ldns_rr_list_deep_free(out);
			return NULL;
		}
	}
	return out;
}

static int of_type(const ldns_rr* rr, int t)
{
	return ldns_rr_get_type(rr) == (ldns_rr_type)t;
}

/* Records of type in list (clones), NULL when none or OOM. */
ldns_rr_list* iter_rrs_of_type(const ldns_rr_list* list, ldns_rr_type t)
{
	return clone_if(list, of_type, (int)t);
}

/* Is rr one the validator needs from an authority section: an SOA
 * (when soa), NSEC or NSEC3, or an RRSIG over one of those? (The
 * encoder leaves DNSSEC types out for clients without DO.) */
static int denial_rr(const ldns_rr* rr, int soa)
{
	ldns_rr_type t = ldns_rr_get_type(rr);
	if(t == LDNS_RR_TYPE_RRSIG && ldns_rr_rrsig_typecovered(rr))
		t = ldns_rdf2rr_type(ldns_rr_rrsig_typecovered(rr));
	return (soa && t == LDNS_RR_TYPE_SOA) || t == LDNS_RR_TYPE_NSEC ||
		t == LDNS_RR_TYPE_NSEC3;
}

/* The authority records a final answer keeps: the SOA (when soa),
 * NSEC, NSEC3 (denial and wildcard proofs) and their RRSIGs, for the
 * validator and DO clients. A copy, NULL when there are none or out of
 * memory. */
static ldns_rr_list* final_authority(const ldns_rr_list* auth, int soa)
{
	return clone_if(auth, denial_rr, soa);
}

/* Add the authority records of auth a final answer keeps (as
 * final_authority) to iq->authority, after those there. 0 when out of
 * memory. */
static int keep_authority(struct iter_qstate* iq, const ldns_rr_list* auth,
	int soa)
{
	ldns_rr_list* add = final_authority(auth, soa);
	size_t i, n;
	if(!add)
		return 1;
	if(!iq->authority) {
		iq->authority = add;
		return 1;
	}
	n = ldns_rr_list_rr_count(add);
	for(i = 0; i < n; i++)
		if(!ldns_rr_list_push_rr(iq->authority,
			ldns_rr_list_rr(add, i)))
			break;
	for(; i < n; i++)
		ldns_rr_free(ldns_rr_list_rr(add, i));
	ldns_rr_list_free(add);
	return i == n;
}

int iter_has_type(const ldns_rr_list* list, ldns_rr_type t)
{
	size_t i;
	for(i = 0; list && i < ldns_rr_list_rr_count(list); i++)
		if(ldns_rr_get_type(ldns_rr_list_rr(list, i)) == t)
			return 1;
	return 0;
}

/* The owner of the first NS record in the authority list, 0 if none. */
static size_t auth_ns_owner(const ldns_rr_list* auth, uint8_t* out)
{
	size_t i;
	for(i = 0; auth && i < ldns_rr_list_rr_count(auth); i++) {
		ldns_rr* rr = ldns_rr_list_rr(auth, i);
		if(ldns_rr_get_type(rr) == LDNS_RR_TYPE_NS)
			return delegpt_rdf_to_wire(ldns_rr_owner(rr), out);
	}
	return 0;
}

/* The smallest TTL of the NS records of owner in auth (0 if none),
 * capped at cache-max-ttl as the cache would. */
static uint32_t ns_ttl(const struct iter_env* env, const ldns_rr_list* auth,
	const uint8_t* owner)
{
	uint8_t o[LDNS_MAX_DOMAINLEN + 1];
	uint32_t ttl = 0;
	int found = 0;
	size_t i;
	for(i = 0; auth && i < ldns_rr_list_rr_count(auth); i++) {
		ldns_rr* rr = ldns_rr_list_rr(auth, i);
		if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_NS ||
			!delegpt_rdf_to_wire(ldns_rr_owner(rr), o) ||
			query_dname_compare(o, owner) != 0)
			continue;
		if(!found || ldns_rr_ttl(rr) < ttl)
			ttl = ldns_rr_ttl(rr);
		found = 1;
	}
	if(env->cfg && env->cfg->max_ttl > 0 && ttl > (uint32_t)env->cfg->max_ttl)
		ttl = (uint32_t)env->cfg->max_ttl;
	return ttl;
}

/* This server cannot help with this query: do not ask it again. */
static void server_unusable(struct iter_env* env, struct iter_qstate* iq,
	int lame)
{
	if(iq->sent_to) {
		iq->sent_to->dead = 1;
		if(lame && env->infra)
			(void)infra_set_lame(env->infra, &iq->sent_to->addr,
				iq->sent_to->addrlen, iq->dp->name,
				iq->dp->namelen, time(NULL), 0, 0, iq->qtype);
	}
	iq->state = ITER_TARGETS;
}

/* A referral above or beside the zone asked (the scrubber took its NS
 * set out): the server does not serve the zone, RFC 4697 2.3; as
 * Unbound, it is marked lame for it and the next server is tried (none
 * left: SERVFAIL). Before, the emptied reply was taken for NODATA. */
static void lame_referral(struct iter_env* env, struct iter_qstate* iq)
{
	verbose(VERB_ALGO, "referral out of the zone: lame, next server");
	env->stats.lame++;
	server_unusable(env, iq, 1);
}

/* Keep the RRsets of a scrubbed reply that was used. */
static void store(struct iter_env* env, const struct iter_qstate* iq,
	const ldns_pkt* pkt)
{
	if(env->rrset_cache && !iq->no_cache) {
		time_t now = time(NULL);
		env->stats.stored_rrsets += (uint64_t)iter_store_reply(
			env->rrset_cache, pkt, now);
		/* the sections left in wire form come after the packet's
		 * (empty) ones, as iter_store_reply orders them */
		if(iq->tail && iter_authority_ns_credible(pkt))
			env->stats.stored_rrsets += (uint64_t)iter_tail_store(
				env->rrset_cache, iq->tail, now);
	}
}

/* compat: unbound-1.17: a referral's NSEC3 (unchecked) may later prove its DS
 * absent to the validator's walk, which then asks no DS upstream, as
 * Unbound's val_neg_addreferral (also with aggressive-nsec: no). */
static void referral_nsec3(const struct iter_env* env,
	const struct iter_qstate* iq, const ldns_pkt* pkt)
{
	if(env->validating && !iq->no_cache && iq->qs && iq->qs->env)
		neg_nsec3_add(neg_nsec3_of(iq->qs->env->neg_cache),
			ldns_pkt_authority(pkt), iq->dp->name,
			NEG_NSEC3_REFERRAL, time(NULL));
}

/* Is name a domain name in the RDATA of a record in list? */
static int named_in_rdata(const ldns_rr_list* list, const ldns_rdf* name)
{
	size_t i, j;
	for(i = 0; i < ldns_rr_list_rr_count(list); i++) {
		ldns_rr* rr = ldns_rr_list_rr(list, i);
		for(j = 0; j < ldns_rr_rd_count(rr); j++) {
			ldns_rdf* f = ldns_rr_rdf(rr, j);
			if(f && ldns_rdf_get_type(f) == LDNS_RDF_TYPE_DNAME &&
				ldns_dname_compare(f, name) == 0)
				return 1;
		}
	}
	return 0;
}

/* Clones of the A and AAAA records in add whose owner a record of the
 * answer names; NULL when none (or out of memory: then left out). */
static ldns_rr_list* addresses_of_targets(const ldns_rr_list* answer,
	const ldns_rr_list* add)
{
	ldns_rr_list* out = NULL;
	size_t i;
	for(i = 0; i < ldns_rr_list_rr_count(add); i++) {
		ldns_rr* rr = ldns_rr_list_rr(add, i), *c;
		if((ldns_rr_get_type(rr) != LDNS_RR_TYPE_A &&
			ldns_rr_get_type(rr) != LDNS_RR_TYPE_AAAA) ||
			!named_in_rdata(answer, ldns_rr_owner(rr)))
			continue;
		if((!out && !(out = ldns_rr_list_new())) ||
			!(c = ldns_rr_clone(rr)))
			break;
		if(!ldns_rr_list_push_rr(out, c)) {
			ldns_rr_free(c);
			break;
		}
	}
	return out;
}

/* A negative or positive final answer from pkt (scrubbed). */
static void final_answer(struct iter_env* env, struct iter_qstate* iq,
	ldns_pkt* pkt, int rcode)
{
	/* compat: unbound-1.17: minimal-responses (Unbound's default): a
	 * positive answer carries no authority or additional records it does
	 * not need */
	int minimal = !env->cfg || env->cfg->minimal_responses;
	int positive = rcode == RCODE_NOERROR && !iq->is_priming &&
		ldns_rr_list_rr_count(ldns_pkt_answer(pkt)) > 0;
	store(env, iq, pkt);
	/* after the NSEC/NSEC3 the CNAME chain's replies brought */
	if((rcode == RCODE_NXDOMAIN || ldns_rr_list_rr_count(
		ldns_pkt_answer(pkt)) == 0 || !iq->is_priming) &&
		!keep_authority(iq, ldns_pkt_authority(pkt), 1)) {
		iter_fail(iq, "out of memory for");
		return;
	}
	/* compat: unbound-1.17: the addresses of the names of an NS answer go
	 * along (as Unbound; the scrubber kept only those) */
	if(iq->is_priming || (iq->qtype == TYPE_NS && rcode == RCODE_NOERROR
		&& ldns_rr_list_rr_count(ldns_pkt_additional(pkt)) > 0)) {
		ldns_rr_list_deep_free(iq->additional);
		iq->additional = ldns_rr_list_clone(ldns_pkt_additional(pkt));
	} else if(!minimal && positive) {
		/* compat: unbound-1.17: minimal-responses: no: also the
		 * addresses of the names in other answers (MX, SRV targets);
		 * the authority NS set is left out of positive answers either
		 * way, as Unbound */
		ldns_rr_list_deep_free(iq->additional);
		iq->additional = addresses_of_targets(ldns_pkt_answer(pkt),
			ldns_pkt_additional(pkt));
	}
	/* last: the packet's answer section is empty after this */
	if(!take_answer(iq, pkt)) {
		iter_fail(iq, "out of memory for");
		return;
	}
	iter_done(iq, rcode);
}

/* Process a scrubbed reply. */
static void process_reply(struct iter_env* env, struct iter_qstate* iq,
	ldns_pkt* pkt, const struct scrub_result* sr)
{
	int rcode = (int)ldns_pkt_get_rcode(pkt);
	uint8_t nsowner[LDNS_MAX_DOMAINLEN + 1];
	size_t nl;
	if(rcode != RCODE_NOERROR && rcode != RCODE_NXDOMAIN) {
		verbose(VERB_ALGO, "upstream rcode %d: next server", rcode);
		server_unusable(env, iq, 0);
		return;
	}
	if(sr->dname_too_long) {
		(void)iter_append_rrs(iq->answer, ldns_pkt_answer(pkt));
		iter_done(iq, 6 /* YXDOMAIN */);
		return;
	}
	/* an NXDOMAIN for the end of a CNAME chain that left this server's
	 * zone is not this server's to give: follow the chain instead */
	if(rcode == RCODE_NXDOMAIN && sr->chain_len > 0 && !iq->dp_forward &&
		!dname_subdomain_c(sr->sname, iq->dp->name))
		rcode = RCODE_NOERROR;
	if(rcode == RCODE_NXDOMAIN || sr->final_found) {
		final_answer(env, iq, pkt, rcode);
		return;
	}
	if(sr->lame_referral && !iq->dp_forward) {
		lame_referral(env, iq);
		return;
	}
	nl = auth_ns_owner(ldns_pkt_authority(pkt), nsowner);
	if(sr->chain_len > 0) {
		/* CNAME/DNAME to a name this reply has nothing for: NODATA
		 * for the target when its SOA came along, else restart */
		ldns_rr_list* soa = iter_rrs_of_type(ldns_pkt_authority(pkt),
			LDNS_RR_TYPE_SOA);
		if(soa) {
			ldns_rr_list_deep_free(soa);
			final_answer(env, iq, pkt, RCODE_NOERROR);
			return;
		}
		/* compat: unbound-1.17: the NSEC/NSEC3 of the reply go along
		 * with the chain (Unbound's prepended authority): a wildcard
		 * CNAME's proof that the exact name does not exist, which
		 * the validator needs at the end */
		if(!iter_append_rrs(iq->answer, ldns_pkt_answer(pkt)) ||
			!keep_authority(iq, ldns_pkt_authority(pkt), 0)) {
			iter_fail(iq, "out of memory for");
			return;
		}
		store(env, iq, pkt);
		(void)iter_restart_at(env, iq, sr->sname, sr->snamelen);
		return;
	}
	if(nl && !iq->dp_forward && dname_subdomain_c(nsowner, iq->dp->name)
		&& query_dname_compare(nsowner, iq->dp->name) != 0 &&
		!iter_has_type(ldns_pkt_authority(pkt), LDNS_RR_TYPE_SOA)) {
		/* a referral to a child zone */
		struct delegpt* dp, *parent;
		if(++iq->referrals > ITER_MAX_REFERRALS) {
			iter_fail(iq, "too many referrals for");
			return;
		}
		/* harden-glue: no: the scrubber kept glue from outside
		 * the zone too, and it is used */
		dp = delegpt_from_rrs(nsowner, ldns_pkt_authority(pkt),
			ldns_pkt_additional(pkt), (!env->cfg ||
			env->cfg->harden_glue) ? iq->dp->name : NULL, 0);
		if(!dp) {
			server_unusable(env, iq, 0);
			return;
		}
		env->stats.referrals++;
		if(iq->parent_retry && query_dname_compare(nsowner,
			iq->parent_retry->name) == 0)
			/* the last resort's referral: its glue is kept for
			 * the next query whose child-side servers fail */
			iter_parentside_put(&env->parentside, dp, ns_ttl(env,
				ldns_pkt_authority(pkt), nsowner), time(NULL));
		iq->sent_count = 0;   /* max-sent-count: per step down */
		/* compat: unbound-1.26: a referral is a step down, not load
		 * on the parent's servers: its ratelimit count is taken back
		 * (Unbound 1.17 keeps it) */
		if(iq->rate_counted && env->infra) {
			rate_zone_dec(infra_zone_rates(env->infra),
				iq->dp->name, iq->dp->namelen, time(NULL));
			iq->rate_counted = 0;
		}
		if(iter_referral_store(env, iq, nsowner)) {
			store(env, iq, pkt);
			referral_nsec3(env, iq, pkt);
		}
		delegpt_log(VERB_ALGO, dp);
		parent = iq->dp;   /* kept for the checks, which start there */
		iq->dp = NULL;
		iter_set_dp(iq, dp, 0);
		iq->dp_ds = iter_has_type(ldns_pkt_authority(pkt),
			LDNS_RR_TYPE_DS);
		iq->state = ITER_TARGETS;
		iter_referral_checks(env, iq, pkt, parent);
		delegpt_delete(parent);
		iter_key_prefetch(env, iq, ldns_pkt_authority(pkt));
		return;
	}
	if(ldns_pkt_aa(pkt) || iq->dp_forward || !nl ||
		iter_has_type(ldns_pkt_authority(pkt), LDNS_RR_TYPE_SOA)) {
		/* NODATA: an SOA, AA, a forwarder's answer, or no NS set
		 * at all (a non-authoritative empty answer, or records of
		 * another type, which the scrubber took out) */
		final_answer(env, iq, pkt, RCODE_NOERROR);
		return;
	}
	if(query_dname_compare(nsowner, iq->dp->name) == 0) {
		/* no AA, nothing but the zone's own NS set: a server
		 * answering from a cache; another server may know, and one
		 * such reply does not make it lame for the zone */
		verbose(VERB_ALGO, "non-authoritative NS of the zone: next "
			"server");
		server_unusable(env, iq, 0);
		return;
	}
	if(!dname_subdomain_c(iq->dp->name, nsowner)) {
		/* an NS set beside the zone says nothing: NODATA */
		final_answer(env, iq, pkt, RCODE_NOERROR);
		return;
	}
	/* a referral upward: the server is lame for this zone */
	verbose(VERB_ALGO, "lame reply: next server");
	env->stats.lame++;
	server_unusable(env, iq, 1);
}

/* A NOERROR reply without records to the minimised (name, A), with the
 * SOA of the zone asked: name is no zone cut, for the negative TTL
 * (RFC 2308: the least of the SOA's TTL and MINIMUM, at most
 * cache-max-negative-ttl). Anything else is not remembered. */
static void remember_noncut(struct iter_env* env, struct iter_qstate* iq,
	ldns_pkt* pkt)
{
	ldns_rr_list* auth = ldns_pkt_authority(pkt);
	uint8_t owner[LDNS_MAX_DOMAINLEN + 1];
	size_t i;
	if(ldns_pkt_ancount(pkt) != 0 ||
		ldns_rr_list_rr_count(ldns_pkt_answer(pkt)) != 0)
		return;
	for(i = 0; auth && i < ldns_rr_list_rr_count(auth); i++) {
		ldns_rr* rr = ldns_rr_list_rr(auth, i);
		uint32_t ttl;
		if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_SOA ||
			ldns_rr_rd_count(rr) != 7 ||
			!delegpt_rdf_to_wire(ldns_rr_owner(rr), owner) ||
			query_dname_compare(owner, iq->dp->name) != 0)
			continue;
		ttl = ldns_rr_ttl(rr);
		if(ldns_rdf2native_int32(ldns_rr_rdf(rr, 6)) < ttl)
			ttl = ldns_rdf2native_int32(ldns_rr_rdf(rr, 6));
		if(env->cfg && env->cfg->max_negative_ttl > 0 &&
			ttl > (uint32_t)env->cfg->max_negative_ttl)
			ttl = (uint32_t)env->cfg->max_negative_ttl;
		iter_noncut_add(&env->noncut, iq->ask, iq->dp->name, ttl,
			time(NULL));
		return;
	}
}

/* A reply to a minimised question: a referral moves down as usual;
 * NXDOMAIN: ask the full name (relaxed; an empty non-terminal may be
 * misreported), or with qname-minimisation-strict answer NXDOMAIN; any
 * other answer: the name is no zone cut here, ask one label more. */
static void process_minimised(struct iter_env* env, struct iter_qstate* iq,
	ldns_pkt* pkt, const struct scrub_result* sr)
{
	int rcode = (int)ldns_pkt_get_rcode(pkt);
	uint8_t nsowner[LDNS_MAX_DOMAINLEN + 1];
	size_t nl;
	int strict = env->cfg && env->cfg->qname_minimisation_strict;
	iq->state = ITER_TARGETS;
	if(rcode != RCODE_NOERROR && rcode != RCODE_NXDOMAIN) {
		/* compat: unbound-1.17: SERVFAIL, REFUSED, ...: relaxed, the
		 * full name is asked of the same servers (a server or
		 * middlebox that breaks on the minimised question); strict,
		 * one label more, as Unbound */
		verbose(VERB_ALGO, "minimised question got rcode %d: %s",
			rcode, strict ? "one label more" : "the full name");
		if(strict)
			iq->qmin_labels++;
		else
			iq->qmin = 0;
		iter_reset_attempts(iq);
		return;
	}
	if(rcode == RCODE_NXDOMAIN) {
		if(strict) {
			/* strict: nothing exists below an NXDOMAIN (RFC
			 * 8020); the SOA is the one for the name asked */
			final_answer(env, iq, pkt, RCODE_NXDOMAIN);
			return;
		}
		iq->qmin = 0;
		iter_reset_attempts(iq);
		return;
	}
	if(sr->lame_referral && !iq->dp_forward) {
		lame_referral(env, iq);
		return;
	}
	nl = auth_ns_owner(ldns_pkt_authority(pkt), nsowner);
	if(nl && dname_subdomain_c(nsowner, iq->dp->name) &&
		query_dname_compare(nsowner, iq->dp->name) != 0 &&
		!iter_has_type(ldns_pkt_authority(pkt), LDNS_RR_TYPE_SOA) &&
		!sr->final_found && sr->chain_len == 0) {
		process_reply(env, iq, pkt, sr);   /* the referral */
		return;
	}
	remember_noncut(env, iq, pkt);
	iq->qmin_labels++;
	iter_reset_attempts(iq);
}

/* Called by the mesh for the state's upstream query. */
void iter_handle_reply(struct iter_env* env, struct iter_qstate* iq,
	const struct outnet_reply* r)
{
	iq->outq = NULL;
	if(iq->state != ITER_TARGETS)
		return;
	if(r->result == OUTNET_CAPSFAIL || iq->caps_fallback) {
		if(r->result == OUTNET_REPLY || r->result == OUTNET_CAPSFAIL)
			env->stats.replies++;
		iter_caps_reply(env, iq, r);
		return;
	}
	if(r->result != OUTNET_REPLY) {
		if(r->result == OUTNET_TIMEOUT)
			env->stats.timeouts++;
		else
			env->stats.errors++;
		if(iq->sent_to && r->result == OUTNET_ERROR)
			iq->sent_to->dead = 1;
		if(r->result == OUTNET_TIMEOUT && iter_minimised(iq) &&
			++iq->qmin_timeouts >= ITER_QMIN_MAX_TIMEOUTS &&
			!(env->cfg && env->cfg->qname_minimisation_strict)) {
			/* compat: unbound-1.17: the minimised question may be
			 * what is dropped (Unbound's
			 * MAX_MINIMISE_TIMEOUT_COUNT): the full name, of the
			 * same servers */
			verbose(VERB_ALGO, "minimised questions time out: "
				"the full name");
			iq->qmin = 0;
			iter_reset_attempts(iq);
		}
		return;   /* ITER_TARGETS picks the next server */
	}
	env->stats.replies++;
	if(iq->qs && iq->qs->env && iq->qs->env->edns_hook &&
		iq->qs->env->edns_hook->reply(iq->qs, iq->qs->env->edns_hook_id,
		r->pkt, r->len))
		/* compat: unbound-1.17: an answer for the subnet sent (ECS):
		 * the module caches it, the shared caches do not */
		iq->no_cache = 1;
	iter_process_wire(env, iq, r->pkt, r->len);
}

/* Could this state's reply be processed with its authority and
 * additional sections in wire form? Only an answer's may (checked after
 * the scrub), and only where nothing but the RRset store reads them:
 * not for priming or an NS query (their additional records go into the
 * result), minimal-responses: no (the answer's targets' addresses go
 * along), or private-address (which filters the glue). */
static int tail_wanted(const struct iter_env* env,
	const struct iter_qstate* iq)
{
	return !iq->is_priming && iq->qtype != TYPE_NS &&
		(!env->cfg || env->cfg->minimal_responses) &&
		!(env->hints && env->hints->priv);
}

/* The scrub's options from the config (Unbound's defaults without). */
static void scrub_opts_of(const struct iter_env* env, struct scrub_opts* o)
{
	const struct config_file* c = env->cfg;
	scrub_opts_default(o, !c || c->harden_glue);
	if(!c)
		return;
	o->max_ns = c->iter_scrub_ns;
	o->max_chain = c->iter_scrub_cname;
	o->max_sigs = c->iter_scrub_rrsig;
	o->promiscuous = c->iter_scrub_promiscuous;
	o->unverified_glue = c->harden_unverified_glue;
}

/* The reply parsed and scrubbed with its authority and additional
 * sections in t, when it is an answer (iter_tail_scrub_answer); NULL
 * otherwise, nothing kept: the reply is then parsed whole. */
static ldns_pkt* parse_answer_tail(struct iter_env* env,
	struct iter_qstate* iq, const uint8_t* wire, size_t len,
	struct reply_tail* t, struct scrub_result* sr,
	const struct scrub_opts* so)
{
	ldns_pkt* pkt = NULL;
	if(!tail_wanted(env, iq) || !reply_parse_tail(&pkt, wire, len, t))
		return NULL;
	if(!iter_tail_scrub_answer(pkt, t, iq->ask, iq->asktype, iq->qclass,
		iq->dp_forward ? (const uint8_t*)"" : iq->dp->name, sr, so)) {
		ldns_pkt_free(pkt);
		return NULL;
	}
	return pkt;
}

void iter_process_wire(struct iter_env* env, struct iter_qstate* iq,
	const uint8_t* wire, size_t len)
{
	ldns_pkt* pkt = NULL;
	struct scrub_result sr;
	enum scrub_status ss = SCRUB_OK;
	struct reply_tail tail;
	struct scrub_opts so;
	int in_tail;
	scrub_opts_of(env, &so);
	in_tail = (pkt = parse_answer_tail(env, iq, wire, len, &tail,
		&sr, &so)) != NULL;
	if(!in_tail) {
		if(reply_wire2pkt(&pkt, wire, len) != LDNS_STATUS_OK) {
			env->stats.bad_replies++;
			server_unusable(env, iq, 0);
			return;
		}
		/* compat: unbound-1.21: harden-unverified-glue's glue is
		 * kept for the last resort (a referral's and an NS answer's
		 * come this way, not through the answer tail) */
		so.unverified_aside = so.unverified_glue;
		ss = iter_scrub_message_opts(pkt, iq->ask, iq->asktype,
			iq->qclass, iq->dp_forward ? (const uint8_t*)"" :
			iq->dp->name, &sr, &so);
		if(__builtin_expect(sr.unverified != NULL, 0)) {
			if(ss == SCRUB_OK)
				iter_parentside_put_glue(&env->unverified_glue,
					sr.unverified, env->cfg ?
					(uint32_t)env->cfg->max_ttl : 0,
					time(NULL));
			ldns_rr_list_deep_free(sr.unverified);
			sr.unverified = NULL;
		}
	}
	if(ss != SCRUB_OK) {
		env->stats.bad_replies++;
		ldns_pkt_free(pkt);
		if(ss == SCRUB_NOMEM)
			iter_fail(iq, "out of memory for");
		else
			server_unusable(env, iq, 0);
		return;
	}
	env->stats.scrub_removed += (uint64_t)sr.removed;
	if(sr.clipped > 0)
		verbose(VERB_QUERY, "scrub: %d records over the limits of "
			"iter-scrub-ns, -cname, -rrsig removed", sr.clipped);
	if(env->hints && env->hints->priv) {
		/* compat: unbound-1.17: private-address: such records are
		 * dropped, the rest of the reply is used (as Unbound: no
		 * SERVFAIL) */
		int n = iter_priv_filter(env->hints->priv,
			ldns_pkt_answer(pkt)) +
			iter_priv_filter(env->hints->priv,
				ldns_pkt_additional(pkt));
		ldns_pkt_set_ancount(pkt, (uint16_t)ldns_rr_list_rr_count(
			ldns_pkt_answer(pkt)));
		ldns_pkt_set_arcount(pkt, (uint16_t)ldns_rr_list_rr_count(
			ldns_pkt_additional(pkt)));
		env->stats.scrub_removed += (uint64_t)n;
	}
	if(__builtin_expect(iter_dnsseclame_reply(env, iq, pkt, &sr), 0)) {
		ldns_pkt_free(pkt);
		return;
	}
	iq->tail = in_tail ? &tail : NULL;
	if(iter_minimised(iq))
		process_minimised(env, iq, pkt, &sr);
	else
		process_reply(env, iq, pkt, &sr);
	iq->tail = NULL;
	ldns_pkt_free(pkt);
}

void iter_inform_super(struct iter_env* env, struct iter_qstate* iq,
	const struct module_qstate* sub)
{
	const struct module_result* res = &sub->res;
	struct delegpt_ns* ns;
	size_t i;
	int got = 0;
	(void)env;
	if(iq->outstanding_subs > 0)
		iq->outstanding_subs--;
	if(sub->flags & MODQ_PRIME) {
		/* a stub's priming: its NS set and their addresses */
		if(sub->qname_len > 1 && iq->stub_prime_wait &&
			res->rcode == RCODE_NOERROR && !iq->stub_primed) {
			struct delegpt* dp = delegpt_from_rrs(sub->qname,
				res->answer, res->additional, sub->qname, 0);
			if(dp && dp->num_addr == 0) {
				/* no glue: the configured addresses */
				delegpt_delete(dp);
				dp = NULL;
			}
			iq->stub_primed = dp;
			if(dp)
				delegpt_log(VERB_ALGO, dp);
		}
		return;
	}
	if(!iq->dp)
		return;
	ns = delegpt_find_ns(iq->dp, sub->qname);
	if(!ns)
		return;   /* the delegation moved on meanwhile */
	if(res->rcode == RCODE_NOERROR) {
		for(i = 0; i < ldns_rr_list_rr_count(res->answer); i++) {
			ldns_rr* rr = ldns_rr_list_rr(res->answer, i);
			if((uint16_t)ldns_rr_get_type(rr) == sub->qtype &&
				delegpt_add_rr_addr_ns(iq->dp, ns, rr, 0))
				got = 1;
		}
	} else if(res->rcode == RCODE_NXDOMAIN)
		iq->dp_nx++;
	if(!got && !ns->got4 && !ns->got6 &&
		(!env->do_ip4 || ns->lookup4) && (!env->do_ip6 || ns->lookup6))
		ns->failed = 1;
}

void iter_store_prime(struct iter_env* env, const struct iter_qstate* iq)
{
	struct delegpt* dp;
	time_t now = time(NULL);
	env->stats.prime++;
	if(iq->rcode != RCODE_NOERROR || iq->qname_len != 1)
		return;   /* a stub's priming is its asker's (inform_super) */
	dp = delegpt_from_rrs((const uint8_t*)"", iq->answer, iq->additional,
		NULL, 0);
	if(!dp)
		return;
	if(dp->num_addr == 0) {
		/* compat: unbound-1.17: no glue: the root is asked at the
		 * hints' addresses (as Unbound's safety belt), and the primed
		 * names are looked up there when more servers are wanted
		 */
		const struct delegpt_addr* a;
		for(a = env->hints && env->hints->root ?
			env->hints->root->dp->addrs : NULL; a; a = a->next)
			(void)delegpt_add_addr(dp, &a->addr, a->addrlen);
		verbose(VERB_ALGO, "priming answer without addresses: "
			"the root hints' addresses");
		if(dp->num_addr == 0) {
			delegpt_delete(dp);
			return;
		}
	}
	delegpt_delete(env->primed_root);
	env->primed_root = dp;
	env->primed_until = now + (dp->ttl < ITER_PRIME_MAX_TTL ?
		(time_t)dp->ttl : ITER_PRIME_MAX_TTL);
	delegpt_log(VERB_ALGO, dp);
}
