/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/iter_scrub.c - scrub upstream replies (see the header). Kept
 * records move into new lists that replace the packet's sections (a
 * record kept twice is copied); the others are freed. */
#include "config.h"
#include "iterator/iter_scrub.h"
#include "iterator/delegpt.h"
#include "util/dname.h"
#include "util/msgparse.h"
#include "util/log.h"
#include <stdlib.h>
#include <string.h>

/* The owner of rr as a wire name in buf; 0 if unusable. */
static size_t owner_of(const ldns_rr* rr, uint8_t* buf)
{
	return delegpt_rdf_to_wire(ldns_rr_owner(rr), buf);
}

static int owner_is(const ldns_rr* rr, const uint8_t* name)
{
	uint8_t o[LDNS_MAX_DOMAINLEN + 1];
	return owner_of(rr, o) && query_dname_compare(o, name) == 0;
}

/* A section of the reply being scrubbed: its records, and which of them
 * moved to the new list already. Moving instead of copying saves a clone
 * and a free of every kept record (some 40k instructions a signed
 * negative answer, 4% of one with its signature check). */
struct section {
	const ldns_rr_list* list;
	uint8_t* taken;
};

/* Record i of sec onto out: the record itself the first time, a copy
 * after that. */
static int keep_rr(ldns_rr_list* out, struct section* sec, size_t i)
{
	ldns_rr* rr = ldns_rr_list_rr(sec->list, i);
	ldns_rr* c = sec->taken[i] ? ldns_rr_clone(rr) : rr;
	if(!c)
		return 0;
	if(!ldns_rr_list_push_rr(out, c)) {
		if(c != rr)
			ldns_rr_free(c);
		return 0;
	}
	sec->taken[i] = 1;
	return 1;
}

/* Is rr a record of sec that moved to a new list? */
static int was_taken(const struct section* sec, const ldns_rr* rr)
{
	size_t i;
	for(i = 0; i < ldns_rr_list_rr_count(sec->list); i++)
		if(ldns_rr_list_rr(sec->list, i) == rr)
			return sec->taken[i];
	return 0;
}

/* The new list out of sec given up (out of memory): its copies and
 * synthesized records freed, the moved ones stay the packet's. */
static void drop_new(ldns_rr_list* out, const struct section* sec)
{
	size_t i;
	for(i = 0; out && i < ldns_rr_list_rr_count(out); i++)
		if(!was_taken(sec, ldns_rr_list_rr(out, i)))
			ldns_rr_free(ldns_rr_list_rr(out, i));
	ldns_rr_list_free(out);
}

/* The packet's old list of sec, its moved records now the new list's. */
static void free_old(struct section* sec)
{
	size_t i;
	for(i = 0; i < ldns_rr_list_rr_count(sec->list); i++)
		if(!sec->taken[i])
			ldns_rr_free(ldns_rr_list_rr(sec->list, i));
	ldns_rr_list_free((ldns_rr_list*)sec->list);
}

/* Type covered by an RRSIG, 0 if not one. */
static uint16_t sig_covers(const ldns_rr* rr)
{
	if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_RRSIG ||
		ldns_rr_rd_count(rr) < 1)
		return 0;
	return (uint16_t)ldns_rdf2rr_type(ldns_rr_rdf(rr, 0));
}

/* Build "sname with the dname owner suffix replaced by target" into out;
 * 0 when the result is over 255 bytes. */
static size_t dname_synth(const uint8_t* sname, size_t snamelen,
	size_t ownerlen, const uint8_t* target, size_t targetlen,
	uint8_t* out)
{
	size_t prefix = snamelen - ownerlen;
	if(prefix + targetlen > LDNS_MAX_DOMAINLEN)
		return 0;
	memcpy(out, sname, prefix);
	memcpy(out + prefix, target, targetlen);
	return prefix + targetlen;
}

static ldns_rr* make_cname(const uint8_t* from, size_t fromlen,
	const uint8_t* to, size_t tolen, uint32_t ttl, uint16_t qclass)
{
	ldns_rr* rr = ldns_rr_new_frm_type(LDNS_RR_TYPE_CNAME);
	ldns_rdf* o, *t;
	if(!rr)
		return NULL;
	o = ldns_rdf_new_frm_data(LDNS_RDF_TYPE_DNAME, fromlen, from);
	t = ldns_rdf_new_frm_data(LDNS_RDF_TYPE_DNAME, tolen, to);
	if(!o || !t) {
		ldns_rdf_deep_free(o);
		ldns_rdf_deep_free(t);
		ldns_rr_free(rr);
		return NULL;
	}
	ldns_rr_set_owner(rr, o);
	ldns_rr_set_rdf(rr, t, 0);
	ldns_rr_set_ttl(rr, ttl);
	ldns_rr_set_class(rr, (ldns_rr_class)qclass);
	return rr;
}

/* Is the record usable at all: class, owner under zone. */
static int rr_in_zone(const ldns_rr* rr, uint16_t qclass,
	const uint8_t* zone)
{
	uint8_t o[LDNS_MAX_DOMAINLEN + 1];
	if(ldns_rr_get_class(rr) != (ldns_rr_class)qclass)
		return 0;
	return owner_of(rr, o) && dname_subdomain_c(o, zone);
}

/* Keep the RRSIGs in `from` for owner and type (those in zone). */
static int keep_sigs(ldns_rr_list* out, struct section* from,
	const uint8_t* owner, uint16_t type, uint16_t qclass,
	const uint8_t* zone)
{
	size_t i;
	for(i = 0; i < ldns_rr_list_rr_count(from->list); i++) {
		ldns_rr* rr = ldns_rr_list_rr(from->list, i);
		if(sig_covers(rr) == type && rr_in_zone(rr, qclass, zone) &&
			owner_is(rr, owner) && !keep_rr(out, from, i))
			return 0;
	}
	return 1;
}

/* The answer section: walk the chain from qname. */
static int scrub_answer(struct section* sa, ldns_rr_list* out,
	uint16_t qtype, uint16_t qclass, const uint8_t* zone,
	struct scrub_result* res)
{
	const ldns_rr_list* ans = sa->list;
	size_t n = ldns_rr_list_rr_count(ans), i, step;
	uint8_t o[LDNS_MAX_DOMAINLEN + 1], t[LDNS_MAX_DOMAINLEN + 1];
	uint8_t used[n ? n : 1]; /* a chain record is used once: loops end */
	memset(used, 0, sizeof(used));
	/* every step consumes a record, so n + 1 steps are enough */
	for(step = 0; step <= n; step++) {
		int found = 0, moved = 0;
		/* a DNAME above the current name */
		for(i = 0; i < n && !moved; i++) {
			ldns_rr* rr = ldns_rr_list_rr(ans, i);
			size_t ol, tl, nl;
			ldns_rr* c;
			if(used[i] ||
				ldns_rr_get_type(rr) != LDNS_RR_TYPE_DNAME ||
				!rr_in_zone(rr, qclass, zone) ||
				ldns_rr_rd_count(rr) != 1 ||
				!(ol = owner_of(rr, o)) ||
				query_dname_compare(o, res->sname) == 0 ||
				!dname_subdomain_c(res->sname, o) ||
				!(tl = delegpt_rdf_to_wire(ldns_rr_rdf(rr, 0),
					t)))
				continue;
			if(!keep_rr(out, sa, i) || !keep_sigs(out, sa, o,
				TYPE_DNAME, qclass, zone))
				return 0;
			{
				uint8_t nn[LDNS_MAX_DOMAINLEN + 1];
				nl = dname_synth(res->sname, res->snamelen,
					ol, t, tl, nn);
				if(nl == 0) {
					res->dname_too_long = 1;
					return 1;
				}
				/* compat: unbound-1.17: the DNAME's TTL, as
				 * Unbound 1.17 answers (test_differential.py
				 * compares it)
				 */
				c = make_cname(res->sname, res->snamelen, nn,
					nl, ldns_rr_ttl(rr), qclass);
				if(!c || !ldns_rr_list_push_rr(out, c)) {
					ldns_rr_free(c);
					return 0;
				}
				memcpy(res->sname, nn, nl);
				res->snamelen = nl;
			}
			res->chain_len++;
			used[i] = 1;
			moved = 1;
		}
		if(moved) {
			/* the synthesized CNAME answers a CNAME query */
			if(qtype == TYPE_CNAME) {
				res->final_found = 1;
				return 1;
			}
			continue;
		}
		for(i = 0; i < n; i++) {
			ldns_rr* rr = ldns_rr_list_rr(ans, i);
			uint16_t ty = (uint16_t)ldns_rr_get_type(rr);
			if(!rr_in_zone(rr, qclass, zone) ||
				!owner_is(rr, res->sname))
				continue;
			if(ty == qtype || (qtype == TYPE_ANY &&
				ty != TYPE_RRSIG)) {
				if(!keep_rr(out, sa, i))
					return 0;
				found = 1;
			}
		}
		if(found) {
			res->final_found = 1;
			return qtype == TYPE_ANY || keep_sigs(out, sa,
				res->sname, qtype, qclass, zone);
		}
		/* a CNAME at the current name (the first one only) */
		for(i = 0; i < n && !moved; i++) {
			ldns_rr* rr = ldns_rr_list_rr(ans, i);
			size_t tl;
			if(used[i] ||
				ldns_rr_get_type(rr) != LDNS_RR_TYPE_CNAME ||
				!rr_in_zone(rr, qclass, zone) ||
				ldns_rr_rd_count(rr) != 1 ||
				!owner_is(rr, res->sname) ||
				!(tl = delegpt_rdf_to_wire(ldns_rr_rdf(rr, 0),
					t)))
				continue;
			if(!keep_rr(out, sa, i) || !keep_sigs(out, sa,
				res->sname, TYPE_CNAME, qclass, zone))
				return 0;
			memcpy(res->sname, t, tl);
			res->snamelen = tl;
			res->chain_len++;
			used[i] = 1;
			moved = 1;
		}
		if(!moved)
			return 1;
	}
	return 1;
}

/* Authority: NS/SOA at sname or above (one owner each), DNSSEC records
 * in zone. */
static int scrub_authority(struct section* sa, ldns_rr_list* out,
	uint16_t qclass, const uint8_t* zone, const struct scrub_result* res)
{
	const ldns_rr_list* auth = sa->list;
	uint8_t o[LDNS_MAX_DOMAINLEN + 1];
	uint8_t nsowner[LDNS_MAX_DOMAINLEN + 1];
	size_t i, n = ldns_rr_list_rr_count(auth);
	int have_ns = 0, have_soa = 0;
	for(i = 0; i < n; i++) {
		ldns_rr* rr = ldns_rr_list_rr(auth, i);
		ldns_rr_type ty = ldns_rr_get_type(rr);
		if(!rr_in_zone(rr, qclass, zone) || !owner_of(rr, o))
			continue;
		switch(ty) {
		case LDNS_RR_TYPE_NS:
			if(!dname_subdomain_c(res->sname, o))
				continue;
			if(have_ns && query_dname_compare(o, nsowner) != 0)
				continue;
			if(!have_ns)
				memcpy(nsowner, o, sizeof(o));
			have_ns = 1;
			break;
		case LDNS_RR_TYPE_SOA:
			if(res->final_found || have_soa ||
				!dname_subdomain_c(res->sname, o))
				continue;
			have_soa = 1;
			break;
		case LDNS_RR_TYPE_DS:
		case LDNS_RR_TYPE_NSEC:
		case LDNS_RR_TYPE_NSEC3:
		case LDNS_RR_TYPE_RRSIG:
			break;
		default:
			continue;
		}
		if(!keep_rr(out, sa, i))
			return 0;
	}
	return 1;
}

/* Is name the target of an NS record in list? */
static int is_ns_target(const ldns_rr_list* list, const uint8_t* name)
{
	uint8_t t[LDNS_MAX_DOMAINLEN + 1];
	size_t i;
	for(i = 0; i < ldns_rr_list_rr_count(list); i++) {
		ldns_rr* rr = ldns_rr_list_rr(list, i);
		if(ldns_rr_get_type(rr) == LDNS_RR_TYPE_NS &&
			ldns_rr_rd_count(rr) == 1 &&
			delegpt_rdf_to_wire(ldns_rr_rdf(rr, 0), t) &&
			query_dname_compare(t, name) == 0)
			return 1;
	}
	return 0;
}

/* compat: unbound-1.17: Is name the name an answer record asks additional
 * processing for (Unbound's: NS, MX, KX, SRV targets)? */
static int is_answer_target(const ldns_rr_list* list, const uint8_t* name)
{
	uint8_t t[LDNS_MAX_DOMAINLEN + 1];
	size_t i;
	for(i = 0; i < ldns_rr_list_rr_count(list); i++) {
		ldns_rr* rr = ldns_rr_list_rr(list, i);
		size_t f;
		switch(ldns_rr_get_type(rr)) {
		case LDNS_RR_TYPE_NS: f = 0; break;
		case LDNS_RR_TYPE_MX: case LDNS_RR_TYPE_KX: f = 1; break;
		case LDNS_RR_TYPE_SRV: f = 3; break;
		default: continue;
		}
		if(ldns_rr_rd_count(rr) == f + 1 &&
			delegpt_rdf_to_wire(ldns_rr_rdf(rr, f), t) &&
			query_dname_compare(t, name) == 0)
			return 1;
	}
	return 0;
}

static int scrub_additional(struct section* sa, ldns_rr_list* out,
	const ldns_rr_list* ans, const ldns_rr_list* auth, uint16_t qclass,
	const uint8_t* zone, int harden_glue)
{
	const ldns_rr_list* addl = sa->list;
	uint8_t o[LDNS_MAX_DOMAINLEN + 1];
	size_t i, n = ldns_rr_list_rr_count(addl);
	for(i = 0; i < n; i++) {
		ldns_rr* rr = ldns_rr_list_rr(addl, i);
		ldns_rr_type ty = ldns_rr_get_type(rr);
		if(ty != LDNS_RR_TYPE_A && ty != LDNS_RR_TYPE_AAAA)
			continue;
		/* harden-glue: no takes glue from outside the zone too */
		if(!rr_in_zone(rr, qclass, harden_glue ? zone :
			(const uint8_t*)"") || !owner_of(rr, o))
			continue;
		if(!is_ns_target(auth, o) && !is_answer_target(ans, o))
			continue;
		if(!keep_rr(out, sa, i))
			return 0;
	}
	return 1;
}

static int question_ok(const ldns_pkt* pkt, const uint8_t* qname,
	uint16_t qtype, uint16_t qclass)
{
	ldns_rr_list* q = ldns_pkt_question(pkt);
	ldns_rr* rr;
	if(!ldns_pkt_qr(pkt) || ldns_pkt_get_opcode(pkt) != LDNS_PACKET_QUERY)
		return 0;
	if(!q || ldns_rr_list_rr_count(q) != 1)
		return 0;
	rr = ldns_rr_list_rr(q, 0);
	return owner_is(rr, qname) &&
		(uint16_t)ldns_rr_get_type(rr) == qtype &&
		(uint16_t)ldns_rr_get_class(rr) == qclass;
}

enum scrub_status iter_scrub_message(ldns_pkt* pkt, const uint8_t* qname,
	uint16_t qtype, uint16_t qclass, const uint8_t* zone,
	struct scrub_result* res, int harden_glue)
{
	ldns_rr_list* ans = NULL, *auth = NULL, *addl = NULL;
	size_t before, after, n_an, n_ns;
	memset(res, 0, sizeof(*res));
	res->snamelen = dname_valid(qname, LDNS_MAX_DOMAINLEN);
	if(res->snamelen == 0 || !question_ok(pkt, qname, qtype, qclass))
		return SCRUB_BAD_QUESTION;
	memcpy(res->sname, qname, res->snamelen);
	dname_tolower(res->sname);
	n_an = ldns_rr_list_rr_count(ldns_pkt_answer(pkt));
	n_ns = ldns_rr_list_rr_count(ldns_pkt_authority(pkt));
	before = n_an + n_ns + ldns_rr_list_rr_count(ldns_pkt_additional(pkt));
	{
	/* (a reply of at most 64 KiB holds some 6,000 records: the flags
	 * fit the stack, as scrub_answer's) */
	uint8_t taken[before ? before : 1];
	struct section sec[3] = {
		{ ldns_pkt_answer(pkt), taken },
		{ ldns_pkt_authority(pkt), taken + n_an },
		{ ldns_pkt_additional(pkt), taken + n_an + n_ns } };
	memset(taken, 0, sizeof(taken));
	ans = ldns_rr_list_new();
	auth = ldns_rr_list_new();
	addl = ldns_rr_list_new();
	if(!ans || !auth || !addl ||
		!scrub_answer(&sec[0], ans, qtype, qclass, zone, res) ||
		!scrub_authority(&sec[1], auth, qclass, zone, res) ||
		!scrub_additional(&sec[2], addl, ans, auth, qclass, zone,
			harden_glue)) {
		drop_new(ans, &sec[0]);
		drop_new(auth, &sec[1]);
		drop_new(addl, &sec[2]);
		return SCRUB_NOMEM;
	}
	free_old(&sec[0]);
	free_old(&sec[1]);
	free_old(&sec[2]);
	}
	ldns_pkt_set_answer(pkt, ans);
	ldns_pkt_set_authority(pkt, auth);
	ldns_pkt_set_additional(pkt, addl);
	ldns_pkt_set_ancount(pkt, (uint16_t)ldns_rr_list_rr_count(ans));
	ldns_pkt_set_nscount(pkt, (uint16_t)ldns_rr_list_rr_count(auth));
	ldns_pkt_set_arcount(pkt, (uint16_t)ldns_rr_list_rr_count(addl));
	after = ldns_rr_list_rr_count(ans) + ldns_rr_list_rr_count(auth) +
		ldns_rr_list_rr_count(addl);
	/* synthesized CNAMEs are added, so count what went */
	res->removed = before > after ? (int)(before - after) : 0;
	return SCRUB_OK;
}
