/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/iter_cache.c - RRsets between ldns record lists, the RRset
 * cache and the encoder. */
#include "config.h"
#include "iterator/iter_cache.h"
#include "iterator/delegpt.h"
#include "services/cache/rrset.h"
#include "services/cache/msgcache.h"
#include "util/dname.h"
#include "util/msgencode.h"
#include "util/msgparse.h"
#include "util/rrlist_pack.h"
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

struct store_arg {
	struct rrset_cache* c;
	enum rrset_trust trust;
	int refresh;
	time_t now;
	const ldns_rr_list* dnames;   /* answer DNAMEs: skip synthesized */
	const ldns_rr_list* section;  /* where the RRSIGs are */
	const struct packed_rrset* set;  /* the RRset being stored */
	int stored;
};

/* Is owner strictly below the owner of a DNAME in the list? */
static int under_dname(const ldns_rr_list* list, const uint8_t* owner)
{
	size_t i;
	for(i = 0; list && i < ldns_rr_list_rr_count(list); i++) {
		ldns_rr* rr = ldns_rr_list_rr(list, i);
		const uint8_t* d;
		if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_DNAME)
			continue;
		d = ldns_rdf_data(ldns_rr_owner(rr));
		if(dname_subdomain_c(owner, d) &&
			query_dname_compare(owner, d) != 0)
			return 1;
	}
	return 0;
}

/* Store a->set with sigs (its RRSIGs; NULL: none). */
static int store_set(void* arg, const struct packed_rrset* sigs)
{
	struct store_arg* a = arg;
	if(rrset_cache_store(a->c, a->set, sigs, 0, a->trust, a->refresh,
		a->now) == RRSET_STORED)
		a->stored++;
	return 1;
}

/* The RRSIGs in list that cover (owner, type): a shallow list, NULL
 * when none (or out of memory: stored without). */
static ldns_rr_list* covering_sigs(const ldns_rr_list* list,
	const struct packed_rrset* set)
{
	ldns_rr_list* out = NULL;
	size_t i, n = list ? ldns_rr_list_rr_count(list) : 0;
	for(i = 0; i < n; i++) {
		ldns_rr* rr = ldns_rr_list_rr(list, i);
		ldns_rdf* tc, *o;
		/* the type first: most records are no RRSIG, and their
		 * other fields need not be read */
		if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_RRSIG)
			continue;
		tc = ldns_rr_rrsig_typecovered(rr);
		o = ldns_rr_owner(rr);
		if(!tc || ldns_rdf2rr_type(tc) != set->type ||
			ldns_rdf_size(o) != set->owner_len ||
			query_dname_compare(ldns_rdf_data(o), set->owner) != 0)
			continue;
		if(!out && !(out = ldns_rr_list_new()))
			return NULL;
		ldns_rr_list_push_rr(out, rr);
	}
	return out;
}

static int store_one(void* arg, const struct packed_rrset* set)
{
	struct store_arg* a = arg;
	ldns_rr_list* sigs;
	if(set->type == TYPE_RRSIG || set->type == TYPE_OPT)
		return 1;
	if(a->dnames && set->type == TYPE_CNAME &&
		under_dname(a->dnames, set->owner))
		return 1;
	/* with its RRSIGs, so a later answer from the cache can be
	 * validated */
	a->set = set;
	sigs = covering_sigs(a->section, set);
	if(!sigs || !rrlist_for_each_rrset(sigs, store_set, a))
		(void)store_set(a, NULL);
	ldns_rr_list_free(sigs);
	return 1;
}

int iter_authority_ns_credible(const ldns_pkt* pkt)
{
	ldns_rr_list* auth = ldns_pkt_authority(pkt);
	size_t i;
	if(ldns_pkt_aa(pkt))
		return 1;
	if(ldns_pkt_get_rcode(pkt) != LDNS_RCODE_NOERROR ||
		ldns_rr_list_rr_count(ldns_pkt_answer(pkt)) != 0)
		return 0;
	for(i = 0; auth && i < ldns_rr_list_rr_count(auth); i++)
		if(ldns_rr_get_type(ldns_rr_list_rr(auth, i)) ==
			LDNS_RR_TYPE_SOA)
			return 0;
	return 1;
}

int iter_store_reply(struct rrset_cache* c, const ldns_pkt* pkt, time_t now)
{
	struct store_arg a;
	if(!c)
		return 0;
	memset(&a, 0, sizeof(a));
	a.c = c;
	a.now = now;
	a.trust = ldns_pkt_aa(pkt) ? RRSET_TRUST_AUTH_ANSWER :
		RRSET_TRUST_ANSWER;
	a.refresh = ldns_pkt_aa(pkt);
	a.dnames = ldns_pkt_answer(pkt);
	a.section = ldns_pkt_answer(pkt);
	(void)rrlist_for_each_rrset(ldns_pkt_answer(pkt), store_one, &a);
	a.dnames = NULL;
	a.refresh = 0;
	a.trust = RRSET_TRUST_AUTHORITY;
	/* only the types that section may give */
	a.section = ldns_pkt_authority(pkt);
	/* compat: unbound-1.17: a referral's DS set too, with its RRSIGs:
	 * it answers the validator's DS question later (iter_cache_answer),
	 * with no DS query to the parent's servers */
	if(iter_authority_ns_credible(pkt))
		(void)rrlist_for_each_rrset_of(ldns_pkt_authority(pkt),
			TYPE_NS, TYPE_DS, store_one, &a);
	a.trust = RRSET_TRUST_GLUE;
	a.section = ldns_pkt_additional(pkt);
	(void)rrlist_for_each_rrset_of(ldns_pkt_additional(pkt), TYPE_A,
		TYPE_AAAA, store_one, &a);
	return a.stored;
}

/* Add the cached addresses of ns (A and AAAA, any trust). */
static void cached_addrs(struct rrset_cache* c, struct delegpt* dp,
	struct delegpt_ns* ns, uint16_t qclass, time_t now)
{
	int t;
	for(t = 0; t < 2; t++) {
		uint16_t type = t == 0 ? TYPE_A : TYPE_AAAA;
		struct rrset_entry* e = rrset_cache_lookup(c, ns->name, type,
			qclass, 0, now);
		struct packed_rrset v;
		size_t i;
		if(!e)
			continue;
		rrset_entry_view(e, now, &v, NULL);
		for(i = 0; i < v.count; i++) {
			struct sockaddr_storage ss;
			socklen_t len;
			memset(&ss, 0, sizeof(ss));
			if(type == TYPE_A && v.rdlen[i] == 4) {
				struct sockaddr_in* s4 =
					(struct sockaddr_in*)&ss;
				s4->sin_family = AF_INET;
				s4->sin_port = htons(53);
				memcpy(&s4->sin_addr, v.rdata[i], 4);
				len = sizeof(*s4);
				ns->got4 = 1;
			} else if(type == TYPE_AAAA && v.rdlen[i] == 16) {
				struct sockaddr_in6* s6 =
					(struct sockaddr_in6*)&ss;
				s6->sin6_family = AF_INET6;
				s6->sin6_port = htons(53);
				memcpy(&s6->sin6_addr, v.rdata[i], 16);
				len = sizeof(*s6);
				ns->got6 = 1;
			} else
				continue;
			(void)delegpt_add_addr(dp, &ss, len);
		}
		rrset_cache_release(c, e);
	}
}

struct delegpt* iter_cache_delegation(struct rrset_cache* c,
	const uint8_t* qname, uint16_t qclass, int min_labels, time_t now)
{
	struct rrset_entry* e;
	struct packed_rrset v;
	struct delegpt* dp;
	struct delegpt_ns* ns;
	size_t i;
	if(!c)
		return NULL;
	/* no lookups at or above min_labels: such an NS set is not taken
	 * (a stub's own, found with every miss below it) */
	e = rrset_cache_closest_ns_below(c, qname, qclass, min_labels, now);
	if(!e)
		return NULL;
	rrset_entry_view(e, now, &v, NULL);
	if(!(dp = delegpt_create(v.owner))) {
		rrset_cache_release(c, e);
		return NULL;
	}
	dp->ttl = v.ttl;
	for(i = 0; i < v.count; i++) {
		/* an empty rdata too (dname_valid says 0 for both): an
		 * upstream NS record may come with RDLENGTH 0 */
		if(v.rdlen[i] == 0 ||
			dname_valid(v.rdata[i], v.rdlen[i]) != v.rdlen[i])
			continue;
		if(delegpt_add_ns(dp, v.rdata[i]) < 0) {
			delegpt_delete(dp);
			rrset_cache_release(c, e);
			return NULL;
		}
	}
	rrset_cache_release(c, e);
	for(ns = dp->nslist; ns; ns = ns->next)
		cached_addrs(c, dp, ns, qclass, now);
	if(dp->num_ns == 0) {
		delegpt_delete(dp);
		return NULL;
	}
	return dp;
}

static int cache_rrs(struct rrset_cache* c, const uint8_t* name,
	uint16_t type, uint16_t qclass, time_t now, ldns_rr_list* list,
	int min_trust);

int iter_cache_answer(struct rrset_cache* c, const uint8_t* name,
	uint16_t type, uint16_t qclass, time_t now, ldns_rr_list* list)
{
	/* compat: unbound-1.17: a DS set that came with a referral answers
	 * the DS question (dns_cache_lookup takes any but additional-section
	 * trust for DS): the validator checks it, and the parent's servers
	 * need not answer the DS question too */
	return cache_rrs(c, name, type, qclass, now, list, type == TYPE_DS ?
		RRSET_TRUST_AUTHORITY : RRSET_TRUST_ANSWER);
}

int iter_cache_any(struct rrset_cache* c, const uint8_t* name,
	uint16_t qclass, time_t now, ldns_rr_list* list)
{
	static const uint16_t types[] = { TYPE_A, TYPE_AAAA, TYPE_MX,
		TYPE_SOA, TYPE_NS, TYPE_DNAME };
	size_t i;
	int n = 0;
	if(cache_rrs(c, name, TYPE_CNAME, qclass, now, list,
		RRSET_TRUST_ANSWER))
		return 1;
	for(i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		n += cache_rrs(c, name, types[i], qclass, now, list,
			RRSET_TRUST_ANSWER);
	return n;
}

void iter_cache_ns_addrs(struct rrset_cache* c, const ldns_rr_list* ns,
	uint16_t qclass, time_t now, ldns_rr_list* list)
{
	uint8_t t[LDNS_MAX_DOMAINLEN + 1];
	size_t i;
	for(i = 0; c && ns && i < ldns_rr_list_rr_count(ns); i++) {
		ldns_rr* rr = ldns_rr_list_rr(ns, i);
		if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_NS ||
			ldns_rr_rd_count(rr) != 1 ||
			!delegpt_rdf_to_wire(ldns_rr_rdf(rr, 0), t))
			continue;
		(void)cache_rrs(c, t, TYPE_A, qclass, now, list,
			RRSET_TRUST_NONE);
		(void)cache_rrs(c, t, TYPE_AAAA, qclass, now, list,
			RRSET_TRUST_NONE);
	}
}

/* Was v made from a wildcard (an RRSIG labels field below the owner's
 * label count, RFC 4035 5.3.2)? */
static int wildcard_signed(const struct packed_rrset* v,
	const struct packed_rrset* sigs)
{
	int labs = dname_count_labels(v->owner) - 1;   /* root not counted */
	size_t i;
	for(i = 0; i < sigs->count; i++)
		if(sigs->rdlen[i] > 3 && (int)sigs->rdata[i][3] < labs)
			return 1;
	return 0;
}

/* The cached RRset (name, type, class) with at least min_trust, locked,
 * its records and signatures in *v and *sigs; NULL when there is none
 * usable. */
static struct rrset_entry* cache_view(struct rrset_cache* c,
	const uint8_t* name, uint16_t type, uint16_t qclass, time_t now,
	int min_trust, struct packed_rrset* v, struct packed_rrset* sigs)
{
	struct rrset_entry* e;
	if(!c)
		return NULL;
	memset(sigs, 0, sizeof(*sigs));
	e = rrset_cache_lookup(c, name, type, qclass, 0, now);
	if(!e)
		return NULL;
	if(e->trust < min_trust) {
		rrset_cache_release(c, e);
		return NULL;
	}
	rrset_entry_view(e, now, v, sigs);
	if(wildcard_signed(v, sigs)) {
		/* its proof of no closer match is not in the RRset cache:
		 * ask again rather than answer what cannot validate */
		rrset_cache_release(c, e);
		return NULL;
	}
	return e;
}

static int cache_rrs(struct rrset_cache* c, const uint8_t* name,
	uint16_t type, uint16_t qclass, time_t now, ldns_rr_list* list,
	int min_trust)
{
	struct packed_rrset v, sigs;
	struct rrset_entry* e = cache_view(c, name, type, qclass, now,
		min_trust, &v, &sigs);
	int ok;
	if(!e)
		return 0;
	ok = packed_rrset_to_rrlist(&v, list) &&
		packed_rrset_to_rrlist(&sigs, list);
	rrset_cache_release(c, e);
	return ok;
}

ldns_rr_list* iter_cache_answer_list(struct rrset_cache* c,
	const uint8_t* name, uint16_t type, uint16_t qclass, time_t now)
{
	struct packed_rrset v, sigs;
	struct rrset_entry* e = cache_view(c, name, type, qclass, now,
		RRSET_TRUST_ANSWER, &v, &sigs);
	ldns_rr_list* list;
	if(!e)
		return NULL;
	list = ldns_rr_list_new();
	if(list && (!packed_rrset_to_rrlist(&v, list) ||
		!packed_rrset_to_rrlist(&sigs, list))) {
		ldns_rr_list_deep_free(list);
		list = NULL;
	}
	rrset_cache_release(c, e);
	return list;
}

int iter_cache_has_cname(struct rrset_cache* c, const uint8_t* name,
	uint16_t qclass, time_t now)
{
	struct packed_rrset v, sigs;
	struct rrset_entry* e = cache_view(c, name, TYPE_CNAME, qclass, now,
		RRSET_TRUST_ANSWER, &v, &sigs);
	if(!e)
		return 0;
	rrset_cache_release(c, e);
	return 1;
}

/* A cached message as records: *rcode, its answer section appended to
 * answer, its authority section (only the SOA when soa_only) as a new
 * list in *authority (NULL if none). Returns 0 when unreadable. */
/* RR TTLs of list lowered by age (what is left of them now). */
static void age_ttls(ldns_rr_list* list, time_t age)
{
	size_t i;
	for(i = 0; age > 0 && list && i < ldns_rr_list_rr_count(list); i++) {
		ldns_rr* rr = ldns_rr_list_rr(list, i);
		uint32_t t = ldns_rr_ttl(rr);
		ldns_rr_set_ttl(rr, (time_t)t > age ? t - (uint32_t)age : 0);
	}
}

static int entry_lists(const struct msg_entry* m, int soa_only, int* rcode,
	ldns_rr_list* answer, ldns_rr_list** authority, time_t now)
{
	ldns_pkt* p = NULL;
	size_t i;
	int ok = 1;
	if(ldns_wire2pkt(&p, m->tmpl, m->len) != LDNS_STATUS_OK)
		return 0;
	/* the template's TTLs are as of its storing: what is left now, so
	 * storing the answer again never lengthens its life */
	age_ttls(ldns_pkt_answer(p), now - m->stored);
	age_ttls(ldns_pkt_authority(p), now - m->stored);
	*rcode = (int)ldns_pkt_get_rcode(p);
	for(i = 0; ok && i < ldns_rr_list_rr_count(ldns_pkt_answer(p)); i++) {
		ldns_rr* rr = ldns_rr_clone(ldns_rr_list_rr(
			ldns_pkt_answer(p), i));
		if(!rr || !ldns_rr_list_push_rr(answer, rr)) {
			ldns_rr_free(rr);
			ok = 0;
		}
	}
	*authority = NULL;
	for(i = 0; ok && i < ldns_rr_list_rr_count(ldns_pkt_authority(p));
		i++) {
		ldns_rr* rr = ldns_rr_list_rr(ldns_pkt_authority(p), i), *cl;
		if(soa_only && ldns_rr_get_type(rr) != LDNS_RR_TYPE_SOA)
			continue;
		if(!*authority && !(*authority = ldns_rr_list_new()))
			break;
		if(!(cl = ldns_rr_clone(rr)) ||
			!ldns_rr_list_push_rr(*authority, cl))
			ldns_rr_free(cl);
	}
	ldns_pkt_free(p);
	return ok;
}

/* The entry for the question, the variant with DNSSEC records when
 * dnssec (the DO key), else the plain one. */
static struct msg_entry* msg_find_do(struct msg_cache* c,
	const uint8_t* qname, size_t qname_len, uint16_t qtype,
	uint16_t qclass, time_t now, int dnssec)
{
	struct query_info qi;
	if(!c || qname_len == 0 || qname_len > LDNS_MAX_DOMAINLEN)
		return NULL;
	memset(&qi, 0, sizeof(qi));
	memcpy(qi.qname, qname, qname_len);
	qi.qname_len = qname_len;
	qi.qtype = qtype;
	qi.qclass = qclass;
	qi.edns_do = dnssec;
	return msg_cache_lookup(c, &qi, msg_cache_hash(c, &qi), now);
}

static struct msg_entry* msg_find(struct msg_cache* c, const uint8_t* qname,
	size_t qname_len, uint16_t qtype, uint16_t qclass, time_t now)
{
	return msg_find_do(c, qname, qname_len, qtype, qclass, now, 0);
}

int iter_msg_cached(struct msg_cache* c, const uint8_t* qname,
	size_t qname_len, uint16_t qtype, uint16_t qclass, time_t now,
	int whole, int* rcode, ldns_rr_list* answer, ldns_rr_list** authority)
{
	/* with its signatures and proofs when stored so, for a validator;
	 * a whole answer only so (the copy without DO lacks them) */
	struct msg_entry* m = msg_find_do(c, qname, qname_len, qtype, qclass,
		now, 1);
	int ok;
	if(!m && !whole)
		m = msg_find(c, qname, qname_len, qtype, qclass, now);
	if(m && m->synthesized) {
		/* a module made it from other data (dns64): not the zone's */
		msg_cache_release(c, m);
		return 0;
	}
	if(!m)
		return 0;
	ok = entry_lists(m, !whole, rcode, answer, authority, now);
	msg_cache_release(c, m);
	return ok;
}

int iter_below_secure_nx(struct msg_cache* c, const uint8_t* sname,
	uint16_t qtype, uint16_t qclass, int qmin, time_t now,
	ldns_rr_list** authority)
{
	const uint8_t* n = sname;
	*authority = NULL;
	if(!msg_cache_had_secure_nx(c))
		return 0;   /* no validator stored one: nothing to find */
	while(n[0] != 0) {
		struct msg_entry* m;
		n = dname_remove_label(n);
		m = msg_find(c, n, dname_valid(n, LDNS_MAX_DOMAINLEN), qtype,
			qclass, now);
		/* qname minimisation asks the names above with type A */
		if(!m && qtype != TYPE_A && qmin)
			m = msg_find(c, n, dname_valid(n, LDNS_MAX_DOMAINLEN),
				TYPE_A, qclass, now);
		if(!m)
			continue;
		if((m->flags & 0xf) == RCODE_NXDOMAIN &&
			m->security == SEC_SECURE) {
			ldns_rr_list* an = ldns_rr_list_new();
			int rcode = 0, ok = an && entry_lists(m, 0, &rcode, an,
				authority, now);
			ldns_rr_list_deep_free(an);
			msg_cache_release(c, m);
			return ok;
		}
		msg_cache_release(c, m);
	}
	return 0;
}
