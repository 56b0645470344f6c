/* SPDX-License-Identifier: BSD-3-Clause */
/* respip/rpz_nstrigger.c - RPZ's NSDNAME and NSIP triggers (see the
 * header). Cold: only on cache misses, when the iterator picks a server,
 * and only with rpz: clauses. */
#include "config.h"
#include "respip/rpz_nstrigger.h"
#include "respip/respip_set.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/module.h"
#include "util/net_help.h"
#include "util/wire_int.h"
#include <stdio.h>
#include <string.h>
#include <ldns/ldns.h>

#define T_CNAME 5
#define T_ANY 255

/* The NSDNAME key of the NS name ns: ns with the rpz-nsdname label
 * before its root ("ns.example.rpz-nsdname."), as rpz_zone keeps it;
 * 0 when too long. */
static size_t nsdname_key(const uint8_t* ns, uint8_t* key)
{
	static const uint8_t lab[] = "\013rpz-nsdname";
	size_t n = dname_valid(ns, LDNS_MAX_DOMAINLEN + 1);
	if(n == 0 || n - 1 + sizeof(lab) > LDNS_MAX_DOMAINLEN + 1)
		return 0;
	memcpy(key, ns, n - 1);
	memcpy(key + n - 1, lab, sizeof(lab));  /* with the root's 0 */
	return n - 1 + sizeof(lab);
}

static void set_match(const struct rpz_policy_zone* z, size_t i,
	enum rpz_action a, const uint8_t* data, size_t count,
	struct rpz_ns_match* m)
{
	m->zone = i;
	m->action = z->override != RPZ_NO_OVERRIDE ? z->override : a;
	m->data = data;
	m->count = count;
}

int rpz_policy_ns_match(const struct rpz_policy* p,
	const struct module_deleg* d, struct rpz_ns_match* m)
{
	size_t i, k;
	for(i = 0; i < p->num; i++) {
		const struct rpz_policy_zone* z = &p->zones[i];
		const struct rpz_zone* zz = z->zone;
		/* compat: unbound-1.17: a zone with tags: applies to the
		 * clients with one of them; the state here may serve several
		 * clients, so such a zone's NS triggers apply to none */
		if(z->disabled || z->tags)
			continue;
		/* compat: unbound-1.17: the NS names first, in the
		 * delegation's order, then its addresses */
		for(k = 0; zz->num_names && k < d->num_ns; k++) {
			uint8_t key[LDNS_MAX_DOMAINLEN + 1];
			size_t kl = nsdname_key(d->ns[k], key);
			const struct rpz_name* n;
			if(!kl || !(n = rpz_zone_lookup_qname(zz, key, kl)))
				continue;
			m->nsname = d->ns[k];
			m->rule = NULL;
			set_match(z, i, (enum rpz_action)n->action,
				zz->blob + n->data_off, n->data_count, m);
			return 1;
		}
		if(respip_set_empty(zz->nsip))
			continue;
		for(k = 0; k < d->num_addr; k++) {
			int nb;
			const uint8_t* ab = addr_bytes(d->addr[k],
				d->addrlen[k], &nb);
			const struct respip_rule* r;
			if(!ab || !(r = respip_set_lookup(zz->nsip, ab,
				(size_t)nb)))
				continue;
			m->nsname = NULL;
			m->rule = r;
			set_match(z, i, rpz_action_from_respip(r->action),
				zz->blob + r->data_off, r->data_count, m);
			return 1;
		}
	}
	return 0;
}

/* One record (type, class, TTL, rdlength, rdata as the zone keeps it)
 * owned by qname, added to list. 0: out of memory or bad data. */
static int add_rec(ldns_rr_list* list, const uint8_t* qname, size_t qlen,
	const uint8_t* rec)
{
	uint8_t w[LDNS_MAX_DOMAINLEN + 1 + 10 + 65535];
	size_t rl = 10 + (size_t)wire_rd16(rec + 8), pos = 0;
	ldns_rr* rr = NULL;
	memcpy(w, qname, qlen);
	memcpy(w + qlen, rec, rl);
	if(ldns_wire2rr(&rr, w, qlen + rl, &pos, LDNS_SECTION_ANSWER) !=
		LDNS_STATUS_OK)
		return 0;
	if(!ldns_rr_list_push_rr(list, rr)) {
		ldns_rr_free(rr);
		return 0;
	}
	return 1;
}

/* compat: unbound-1.17: local data answers with the records of the
 * question's type, or the trigger's CNAME for any type (not chased
 * here); none of them: NODATA. */
static int add_local_data(ldns_rr_list* list, const struct rpz_ns_match* m,
	const struct module_qstate* qs)
{
	size_t i, d;
	const uint8_t* cname = NULL;
	for(i = 0, d = 0; i < m->count; i++) {
		const uint8_t* rec = m->data + d;
		d += 10 + (size_t)wire_rd16(rec + 8);
		if(wire_rd16(rec) == T_CNAME)
			cname = rec;
	}
	if(cname && qs->qtype != T_CNAME)
		return add_rec(list, qs->qname, qs->qname_len, cname);
	for(i = 0, d = 0; i < m->count; i++) {
		const uint8_t* rec = m->data + d;
		d += 10 + (size_t)wire_rd16(rec + 8);
		if((wire_rd16(rec) == qs->qtype || qs->qtype == T_ANY) &&
			!add_rec(list, qs->qname, qs->qname_len, rec))
			return 0;
	}
	return 1;
}

static int add_cname_override(ldns_rr_list* list,
	const struct rpz_policy_zone* z, const struct module_qstate* qs)
{
	uint8_t rec[10 + LDNS_MAX_DOMAINLEN + 1];
	memset(rec, 0, 10);
	rec[1] = T_CNAME;
	rec[3] = 1;
	/* compat: unbound-1.17: as the QNAME trigger's override here */
	rec[6] = 0x0e;
	rec[7] = 0x10;
	rec[8] = (uint8_t)(z->cname_len >> 8);
	rec[9] = (uint8_t)z->cname_len;
	memcpy(rec + 10, z->cname, z->cname_len);
	return add_rec(list, qs->qname, qs->qname_len, rec);
}

int rpz_ns_answer(const struct rpz_policy* p, const struct rpz_ns_match* m,
	struct module_qstate* qs)
{
	const struct rpz_policy_zone* z = &p->zones[m->zone];
	struct module_result* res = &qs->res;
	int rcode = 0, ok = 1, drop = 0;
	ldns_rr_list* an;
	switch(m->action) {
	case RPZ_NXDOMAIN:
		rcode = 3;
		break;
	case RPZ_NODATA:
	case RPZ_LOCAL_DATA:
	case RPZ_CNAME_OVERRIDE:
		break;
	case RPZ_DROP:
		drop = 1;
		break;
	default:
		/* passthru; tcp-only and disabled: resolution goes on */
		return 0;
	}
	if(!(an = ldns_rr_list_new())) {
		log_err("rpz: out of memory");
		return 0;
	}
	if(m->action == RPZ_LOCAL_DATA)
		ok = add_local_data(an, m, qs);
	else if(m->action == RPZ_CNAME_OVERRIDE)
		ok = add_cname_override(an, z, qs);
	if(!ok) {
		ldns_rr_list_deep_free(an);
		log_err("rpz: out of memory");
		return 0;
	}
	module_result_clear_keep_from(res);
	res->rcode = rcode;
	res->answer = an;
	res->policy = 1;
	res->drop = drop;
	res->no_store = 1;
	return 1;
}

static const char* type_str(uint16_t t, char* buf, size_t len)
{
	switch(t) {
	case 1: return "A";
	case 2: return "NS";
	case 5: return "CNAME";
	case 6: return "SOA";
	case 15: return "MX";
	case 16: return "TXT";
	case 28: return "AAAA";
	case 255: return "ANY";
	default:
		snprintf(buf, len, "TYPE%d", (int)t);
		return buf;
	}
}

void rpz_ns_log(const struct rpz_policy* p, const struct rpz_ns_match* m,
	const struct module_qstate* qs)
{
	const struct rpz_policy_zone* z = &p->zones[m->zone];
	char what[LDNS_MAX_DOMAINLEN * 4 + 80], name[LDNS_MAX_DOMAINLEN * 4 + 1];
	char tb[16], cb[16];
	if(m->nsname)
		dname_to_str(m->nsname, what, sizeof(what));
	else {
		struct sockaddr_storage ss;
		socklen_t sl;
		char a[64];
		memset(&ss, 0, sizeof(ss));
		if(m->rule->is_ip6) {
			struct sockaddr_in6* s6 = (struct sockaddr_in6*)&ss;
			s6->sin6_family = AF_INET6;
			memcpy(&s6->sin6_addr, m->rule->addr, 16);
			sl = sizeof(*s6);
		} else {
			struct sockaddr_in* s4 = (struct sockaddr_in*)&ss;
			s4->sin_family = AF_INET;
			memcpy(&s4->sin_addr, m->rule->addr, 4);
			sl = sizeof(*s4);
		}
		addr_to_str(&ss, sl, a, sizeof(a));
		snprintf(what, sizeof(what), "%s/%d", a, (int)m->rule->net);
	}
	dname_to_str(qs->qname, name, sizeof(name));
	if(qs->qclass != 1)
		snprintf(cb, sizeof(cb), "CLASS%d", (int)qs->qclass);
	/* compat: unbound-1.17: no client address when none is known
	 * here (the state may serve several) */
	log_info("rpz: applied %s%s%s%s %s %s  %s %s %s",
		z->log_name ? "[" : "", z->log_name ? z->log_name : "",
		z->log_name ? "] " : "", m->nsname ? "nsdname" : "nsip",
		what, rpz_action_name(m->action), name,
		type_str(qs->qtype, tb, sizeof(tb)),
		qs->qclass == 1 ? "IN" : cb);
}
