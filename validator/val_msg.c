/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_msg.c - compat: unbound-1.17: checking one message once the
 * keys of its zones are known: every RRset's signatures (or the proof that its
 * zone is unsigned), then the wildcard and denial proofs, as Unbound's
 * validate_msg_signatures and validate_*_response do. The message is as secure
 * as its least secure RRset (bogus < indeterminate < insecure < secure, the
 * order of enum sec_status). */
#include "config.h"
#include "validator/val_module.h"
#include "validator/val_nsec.h"
#include "validator/val_nsec3.h"
#include "services/mesh.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/module.h"
#include "util/msgparse.h"
#include <stdlib.h>
#include <string.h>

/* One RRset of the message: shallow lists into the result's. */
struct msg_set {
	uint8_t owner[LDNS_MAX_DOMAINLEN + 1];
	uint16_t type;
	int section;               /* 0 answer, 1 authority, 2 additional */
	ldns_rr_list* rrs;
	ldns_rr_list* sigs;
	uint8_t signer[LDNS_MAX_DOMAINLEN + 1];
	int signed_;
};

#define MSG_MAX_SETS VAL_MAX_SETS

struct msg_sets {
	struct msg_set s[MSG_MAX_SETS];
	int n;
	int overflow;
};

/* The table of one message's RRsets, one per thread: 70 KiB that a
 * malloc per call made glibc's allocator sort its free chunks for (at
 * full load of validated misses, _int_malloc was 19% of the samples).
 * Neither user below calls the other, so one is enough. */
static _Thread_local struct msg_sets thread_sets;

static void sets_free(struct msg_sets* m)
{
	int i;
	for(i = 0; i < m->n; i++) {
		ldns_rr_list_free(m->s[i].rrs);
		ldns_rr_list_free(m->s[i].sigs);
	}
	m->n = 0;
}

static ldns_rr_type covered(const ldns_rr* rr)
{
	const ldns_rdf* tc = ldns_rr_rrsig_typecovered(rr);
	return tc ? ldns_rdf2rr_type(tc) : 0;
}

/* Add the RRs of list (a section) to m, one msg_set per (owner, type). */
static void sets_add(struct msg_sets* m, const ldns_rr_list* list,
	int section)
{
	size_t i;
	int j;
	for(i = 0; list && i < ldns_rr_list_rr_count(list); i++) {
		ldns_rr* rr = ldns_rr_list_rr(list, i);
		int sig = ldns_rr_get_type(rr) == LDNS_RR_TYPE_RRSIG;
		uint16_t t = (uint16_t)(sig ? covered(rr) :
			ldns_rr_get_type(rr));
		uint8_t o[LDNS_MAX_DOMAINLEN + 1];
		struct msg_set* s = NULL;
		if(!val_rr_owner(rr, o))
			continue;
		for(j = 0; j < m->n; j++)
			if(m->s[j].section == section && m->s[j].type == t &&
				query_dname_compare(m->s[j].owner, o) == 0) {
				s = &m->s[j];
				break;
			}
		if(!s) {
			if(m->n >= MSG_MAX_SETS) {
				m->overflow = 1;
				return;
			}
			s = &m->s[m->n++];
			memset(s, 0, sizeof(*s));
			memcpy(s->owner, o, sizeof(o));
			s->type = t;
			s->section = section;
		}
		if(sig) {
			if(!s->sigs)
				s->sigs = ldns_rr_list_new();
			if(s->sigs)
				ldns_rr_list_push_rr(s->sigs, rr);
			if(!s->signed_ && ldns_rr_rrsig_signame(rr) &&
				ldns_rdf_size(ldns_rr_rrsig_signame(rr)) <=
				LDNS_MAX_DOMAINLEN + 1) {
				memcpy(s->signer, ldns_rdf_data(
					ldns_rr_rrsig_signame(rr)), ldns_rdf_size(
					ldns_rr_rrsig_signame(rr)));
				dname_tolower(s->signer);
				s->signed_ = 1;
			}
		} else {
			if(!s->rrs)
				s->rrs = ldns_rr_list_new();
			if(s->rrs)
				ldns_rr_list_push_rr(s->rrs, rr);
		}
	}
}

static void sets_make(struct msg_sets* m, const struct module_result* res)
{
	/* not the whole struct (70 KiB, 150,000 instructions a message):
	 * sets_add clears each entry it takes */
	m->n = 0;
	m->overflow = 0;
	sets_add(m, res->answer, 0);
	sets_add(m, res->authority, 1);
	sets_add(m, res->additional, 2);
}

/* Is s a CNAME made from a DNAME of the answer (it has no RRSIG of
 * its own; the DNAME's signature covers it, RFC 6672 5.3.1)? */
static int dname_synth(const struct msg_sets* m, const struct msg_set* s)
{
	int i;
	if(s->type != TYPE_CNAME || s->section != 0)
		return 0;
	for(i = 0; i < m->n; i++)
		if(m->s[i].type == TYPE_DNAME && m->s[i].section == 0 &&
			m->s[i].rrs && val_name_under(s->owner, m->s[i].owner)
			&& query_dname_compare(s->owner, m->s[i].owner) != 0)
			return 1;
	return 0;
}

/* The name the CNAME chain of the answer ends at (qname when none). */
static void chain_end(const struct msg_sets* m, const uint8_t* qname,
	uint16_t qtype, uint8_t* out)
{
	int i, hops;
	memcpy(out, qname, dname_valid(qname, LDNS_MAX_DOMAINLEN));
	if(qtype == TYPE_CNAME)
		return;
	for(hops = 0; hops < 16; hops++) {
		int moved = 0;
		for(i = 0; i < m->n; i++) {
			const struct msg_set* s = &m->s[i];
			ldns_rr* c;
			if(s->section != 0 || s->type != TYPE_CNAME || !s->rrs ||
				query_dname_compare(s->owner, out) != 0)
				continue;
			c = ldns_rr_list_rr(s->rrs, 0);
			if(ldns_rr_rd_count(c) == 1 && ldns_rdf_size(
				ldns_rr_rdf(c, 0)) <= LDNS_MAX_DOMAINLEN + 1) {
				memcpy(out, ldns_rdf_data(ldns_rr_rdf(c, 0)),
					ldns_rdf_size(ldns_rr_rdf(c, 0)));
				dname_tolower(out);
				moved = 1;
			}
			break;
		}
		if(!moved)
			return;
	}
}

/* compat: unbound-1.17: Is there a signed answer RRset for the end of the
 * CNAME chain (the question's type, or any type for ANY)? Its signer's keys
 * are walked to, and they are the keys that decide (as Unbound's
 * val_find_signer takes the answer's signer), so the name itself needs no
 * walk. */
static int signed_answer(const struct msg_sets* m, const uint8_t* end,
	uint16_t qtype)
{
	int i;
	for(i = 0; i < m->n; i++) {
		const struct msg_set* s = &m->s[i];
		if(s->section == 0 && s->rrs && s->signed_ &&
			(s->type == qtype || qtype == LDNS_RR_TYPE_ANY) &&
			query_dname_compare(s->owner, end) == 0)
			return 1;
	}
	return 0;
}

int val_msg_list_zones(struct module_qstate* qs, struct val_qstate* vq)
{
	struct msg_sets* m = &thread_sets;
	uint8_t end[LDNS_MAX_DOMAINLEN + 1];
	int i, ok = 1, auth_signed = 0;
	sets_make(m, &qs->res);
	if(m->overflow)
		ok = 0;
	for(i = 0; ok && i < m->n; i++) {
		const struct msg_set* s = &m->s[i];
		if(!s->rrs)
			continue;   /* RRSIGs alone: nothing to check */
		if(s->signed_) {
			if(s->section == 1)
				auth_signed = 1;
			ok = val_zone_get(vq, s->signer, 1) != NULL;
		} else if(s->section != 2 && !dname_synth(m, s))
			ok = val_zone_get(vq, s->owner, 0) != NULL;
	}
	/* a negative answer without signatures: is its zone unsigned? */
	chain_end(m, qs->qname, qs->qtype, end);
	if(ok && !auth_signed && !signed_answer(m, end, qs->qtype))
		ok = val_zone_get(vq, end, 0) != NULL;
	sets_free(m);
	return ok;
}

static enum sec_status worst(enum sec_status a, enum sec_status b)
{
	return a < b ? a : b;
}

/* Wildcard expansions the answer's RRsets came from: each needs its
 * no-closer-match proof. */
struct wild {
	uint8_t owner[LDNS_MAX_DOMAINLEN + 1];
	uint8_t ce[LDNS_MAX_DOMAINLEN + 1];
};
#define MAX_WILD VAL_MAX_WILD

/* A secure RRset lives no longer than its signature allows (the
 * RRSIG's original TTL and expiration, as val_verify_rrset computed):
 * its RRs and RRSIGs in the result get at most ttl. */
static void cap_ttls(const struct msg_set* s, uint32_t ttl)
{
	const ldns_rr_list* l[2];
	size_t i, j;
	l[0] = s->rrs;
	l[1] = s->sigs;
	for(i = 0; i < 2; i++)
		for(j = 0; l[i] && j < ldns_rr_list_rr_count(l[i]); j++) {
			ldns_rr* rr = ldns_rr_list_rr(l[i], j);
			if(ldns_rr_ttl(rr) > ttl)
				ldns_rr_set_ttl(rr, ttl);
		}
}

/* The status of one RRset; *w filled when it verified through a
 * wildcard. BOGUS sets why. UNCHECKED: the budget is spent. */
static enum sec_status check_set(struct val_qstate* vq, struct val_env* ve,
	const struct msg_sets* m, const struct msg_set* s, struct wild* w,
	int* wild_found, struct val_reason* why)
{
	struct val_zone* z;
	struct val_verify_result res;
	enum sec_status st;
	*wild_found = 0;
	if(!s->signed_) {
		if(s->section == 2 || dname_synth(m, s))
			return SEC_SECURE;   /* judged with what made it */
		z = val_zone_get(vq, s->owner, 0);
		if(!z)
			return SEC_BOGUS;
		if(z->status == SEC_SECURE) {
			why->text = "no signatures";
			why->ede = VAL_EDE_RRSIGS_MISSING;
			return SEC_BOGUS;
		}
		if(z->status == SEC_BOGUS)
			*why = z->why;
		return z->status;
	}
	z = val_zone_get(vq, s->signer, 1);
	if(!z || !val_name_under(s->owner, s->signer)) {
		why->text = "signer name is not above the owner";
		why->ede = VAL_EDE_DNSSEC_BOGUS;
		return SEC_BOGUS;
	}
	if(z->status != SEC_SECURE) {
		if(z->status == SEC_BOGUS)
			*why = z->why;
		return z->status;
	}
	memset(&res, 0, sizeof(res));
	st = val_verify_rrset(ve->sigctx, s->rrs, s->sigs, z->keys, &ve->sig,
		time(NULL), &vq->budget, &res);
	if(st == SEC_UNCHECKED && res.budget_exhausted)
		return SEC_UNCHECKED;
	if(st == SEC_SECURE)
		cap_ttls(s, res.ttl);
	if(st == SEC_SECURE && res.wildcard_len > 0 && s->section == 0) {
		memcpy(w->owner, s->owner, sizeof(w->owner));
		/* the closest encloser: the wildcard without its "*" */
		memcpy(w->ce, res.wildcard + 2, res.wildcard_len - 2);
		*wild_found = 1;
	}
	if(st == SEC_BOGUS) {
		*why = res.reason;
		ve->stats.rrset_bogus++;
	}
	return st;
}

/* NSEC or NSEC3 records of the authority section (shallow). */
static ldns_rr_list* denial_rrs(const struct module_result* res,
	ldns_rr_type t)
{
	ldns_rr_list* out = NULL;
	size_t i;
	for(i = 0; res->authority && i < ldns_rr_list_rr_count(
		res->authority); i++) {
		ldns_rr* rr = ldns_rr_list_rr(res->authority, i);
		if(ldns_rr_get_type(rr) != t)
			continue;
		if(!out && !(out = ldns_rr_list_new()))
			return NULL;
		ldns_rr_list_push_rr(out, rr);
	}
	return out;
}

/* The zone keys of the NSEC3 signer, for the iteration limit. */
static const ldns_rr_list* denial_keys(struct val_qstate* vq,
	const struct msg_sets* m)
{
	int i;
	for(i = 0; i < m->n; i++)
		if(m->s[i].section == 1 && m->s[i].type == TYPE_NSEC3 &&
			m->s[i].signed_) {
			struct val_zone* z = val_zone_get(vq, m->s[i].signer,
				1);
			return z ? z->dnskeys : NULL;
		}
	return NULL;
}

/* The denial or wildcard proofs; SEC_UNCHECKED: suspend (NSEC3). */
static enum sec_status proofs(struct module_qstate* qs,
	struct val_qstate* vq, struct val_env* ve, const struct msg_sets* m,
	const struct wild* w, int nw, struct val_reason* why)
{
	uint8_t end[LDNS_MAX_DOMAINLEN + 1];
	ldns_rr_list* nsec = denial_rrs(&qs->res, LDNS_RR_TYPE_NSEC);
	ldns_rr_list* nsec3 = denial_rrs(&qs->res, LDNS_RR_TYPE_NSEC3);
	struct nsec3_budget b = { NSEC3_HASH_BUDGET, 0 };
	struct val_nsec3_env e;
	enum sec_status st = SEC_SECURE;
	int positive = 0, i;
	e.max_iterations = val_nsec3_iter_max(&ve->nsec3_iter,
		val_nsec3_zone_keysize(denial_keys(vq, m)));
	e.cache = &vq->nsec3_cache;
	e.budget = &b;
	chain_end(m, qs->qname, qs->qtype, end);
	for(i = 0; i < m->n; i++)
		if(m->s[i].section == 0 && m->s[i].rrs &&
			query_dname_compare(m->s[i].owner, end) == 0 &&
			(m->s[i].type == qs->qtype || qs->qtype == TYPE_ANY))
			positive = 1;
	if(qs->res.rcode == RCODE_NOERROR && positive) {
		for(i = 0; i < nw && st == SEC_SECURE; i++) {
			if(nsec)
				st = val_nsec_prove_wildcard_answer(nsec,
					w[i].owner, w[i].ce, why);
			else if(nsec3)
				st = val_nsec3_prove_wildcard_answer(nsec3,
					w[i].owner, w[i].ce, &e, why);
			else {
				why->text = "wildcard answer without proof "
					"of no closer match";
				why->ede = VAL_EDE_NSEC_MISSING;
				st = SEC_BOGUS;
			}
		}
	} else {
		/* negative for end: proven by the authority's records, or
		 * its zone is unsigned (then list_zones has its status) */
		struct val_zone* z = val_zone_get(vq, end, 0);
		if(!nsec && !nsec3) {
			if(z && z->status != SEC_UNCHECKED &&
				z->status != SEC_SECURE)
				st = z->status;
			else {
				why->text = "no NSEC records for the denial";
				why->ede = VAL_EDE_NSEC_MISSING;
				st = SEC_BOGUS;
			}
		} else if(qs->res.rcode == RCODE_NXDOMAIN) {
			st = nsec ? val_nsec_prove_nxdomain(nsec, end, why) :
				val_nsec3_prove_nxdomain(nsec3, end, &e, why);
		} else {
			st = nsec ? val_nsec_prove_nodata(nsec, end,
				qs->qtype, why) : val_nsec3_prove_nodata(nsec3,
				end, qs->qtype, &e, why);
		}
	}
	ldns_rr_list_free(nsec);
	ldns_rr_list_free(nsec3);
	if(st == SEC_BOGUS && !why->text) {
		why->text = "denial of existence not proven";
		why->ede = VAL_EDE_NSEC_MISSING;
	}
	return st;
}

/* val-clean-additional: the additional RRsets that are not secure
 * leave the result. */
static void clean_additional(struct module_qstate* qs, struct val_qstate* vq,
	struct val_env* ve, const struct msg_sets* m)
{
	ldns_rr_list* keep = ldns_rr_list_new();
	int i;
	if(!keep)
		return;
	for(i = 0; i < m->n; i++) {
		const struct msg_set* s = &m->s[i];
		struct val_zone* z;
		struct val_verify_result res;
		size_t j;
		if(s->section != 2 || !s->rrs || !s->signed_)
			continue;
		z = val_zone_get(vq, s->signer, 1);
		memset(&res, 0, sizeof(res));
		if(!z || z->status != SEC_SECURE || val_verify_rrset(
			ve->sigctx, s->rrs, s->sigs, z->keys, &ve->sig,
			time(NULL), NULL, &res) != SEC_SECURE)
			continue;
		for(j = 0; j < ldns_rr_list_rr_count(s->rrs); j++)
			ldns_rr_list_push_rr(keep, ldns_rr_clone(
				ldns_rr_list_rr(s->rrs, j)));
		for(j = 0; s->sigs && j < ldns_rr_list_rr_count(s->sigs); j++)
			ldns_rr_list_push_rr(keep, ldns_rr_clone(
				ldns_rr_list_rr(s->sigs, j)));
	}
	ldns_rr_list_deep_free(qs->res.additional);
	qs->res.additional = ldns_rr_list_rr_count(keep) ? keep : NULL;
	if(!qs->res.additional)
		ldns_rr_list_free(keep);
}

enum sec_status val_msg_check(struct module_qstate* qs,
	struct val_qstate* vq, struct val_env* ve, struct val_reason* why)
{
	struct msg_sets* m = &thread_sets;
	struct wild w[MAX_WILD];
	int nw = 0, i;
	enum sec_status st = SEC_SECURE;
	sets_make(m, &qs->res);
	/* the answer and authority RRsets, from where a suspended run
	 * stopped; the wildcards are found again (no signature work: the
	 * verified ones before verify_from are not redone) */
	for(i = 0; i < m->n && st != SEC_BOGUS; i++) {
		const struct msg_set* s = &m->s[i];
		enum sec_status r;
		int wf = 0;
		if(!s->rrs || s->section == 2)
			continue;
		if(i < vq->verify_from) {
			r = (enum sec_status)vq->verified[i];
			if(vq->wild[i] >= 0 && nw < MAX_WILD) {
				memcpy(w[nw].owner, s->owner,
					sizeof(w[nw].owner));
				memcpy(w[nw].ce, vq->wild_ce[vq->wild[i]],
					sizeof(w[nw].ce));
				nw++;
			}
		} else {
			struct wild tmp;
			r = check_set(vq, ve, m, s, &tmp, &wf, why);
			if(r == SEC_UNCHECKED) {
				vq->verify_from = i;
				sets_free(m);
				return SEC_UNCHECKED;
			}
			vq->verified[i] = (uint8_t)r;
			qs->env->counters.rrset_bogus += (r == SEC_BOGUS);
			vq->wild[i] = -1;
			if(wf && nw < MAX_WILD && vq->num_wild < MAX_WILD &&
				(vq->wild_ce || (vq->wild_ce = calloc(
				VAL_MAX_WILD, sizeof(*vq->wild_ce))))) {
				vq->wild[i] = (int8_t)vq->num_wild;
				memcpy(vq->wild_ce[vq->num_wild++], tmp.ce,
					sizeof(tmp.ce));
				w[nw++] = tmp;
			} else if(wf) {
				why->text = "too many wildcard expansions";
				why->ede = VAL_EDE_DNSSEC_BOGUS;
				r = SEC_BOGUS;
			}
		}
		st = worst(st, r);
	}
	vq->verify_from = m->n;
	if(st == SEC_SECURE) {
		enum sec_status p = proofs(qs, vq, ve, m, w, nw, why);
		if(p == VAL_NSEC3_SUSPEND) {
			/* the hashes so far are kept in vq->nsec3_cache */
			vq->verify_from = m->n;
			sets_free(m);
			return SEC_UNCHECKED;
		}
		st = worst(st, p);
	}
	if(ve->clean_additional && qs->res.additional)
		clean_additional(qs, vq, ve, m);
	sets_free(m);
	return st;
}
