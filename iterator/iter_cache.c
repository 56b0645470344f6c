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
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

static int same_set(const ldns_rr* a, const ldns_rr* b)
{
	return ldns_rr_get_type(a) == ldns_rr_get_type(b) &&
		ldns_rr_get_class(a) == ldns_rr_get_class(b) &&
		ldns_dname_compare(ldns_rr_owner(a), ldns_rr_owner(b)) == 0;
}

int iter_for_each_rrset(const ldns_rr_list* list,
	int (*fn)(void* arg, const struct packed_rrset* set), void* arg)
{
	size_t n = ldns_rr_list_rr_count(list), i, j, k;
	uint8_t* used = NULL;
	const uint8_t** rd = NULL;
	uint16_t* rl = NULL;
	ldns_buffer* tmp = NULL;
	int ok = 0;
	if(n == 0)
		return 1;
	used = calloc(n, 1);
	rd = calloc(n, sizeof(*rd));
	rl = calloc(n, sizeof(*rl));
	tmp = ldns_buffer_new(1024);
	if(!used || !rd || !rl || !tmp)
		goto done;
	for(i = 0; i < n; i++) {
		ldns_rr* first = ldns_rr_list_rr(list, i);
		struct packed_rrset set;
		size_t off = 0;
		if(used[i])
			continue;
		memset(&set, 0, sizeof(set));
		set.owner = ldns_rdf_data(ldns_rr_owner(first));
		set.owner_len = ldns_rdf_size(ldns_rr_owner(first));
		set.type = (uint16_t)ldns_rr_get_type(first);
		set.rclass = (uint16_t)ldns_rr_get_class(first);
		set.ttl = ldns_rr_ttl(first);
		ldns_buffer_clear(tmp);
		for(j = i; j < n; j++) {
			ldns_rr* rr = ldns_rr_list_rr(list, j);
			size_t start = ldns_buffer_position(tmp);
			if(used[j] || !same_set(first, rr))
				continue;
			used[j] = 1;
			if(ldns_rr_rdata2buffer_wire(tmp, rr) != LDNS_STATUS_OK
				|| ldns_buffer_position(tmp) - start > 65535)
				goto done;
			rl[set.count++] = (uint16_t)(ldns_buffer_position(tmp)
				- start);
			if(ldns_rr_ttl(rr) < set.ttl)
				set.ttl = ldns_rr_ttl(rr);
		}
		for(k = 0; k < set.count; k++) {
			rd[k] = ldns_buffer_begin(tmp) + off;
			off += rl[k];
		}
		set.rdata = rd;
		set.rdlen = rl;
		if(!fn(arg, &set))
			goto done;
	}
	ok = 1;
done:
	free(used);
	free(rd);
	free(rl);
	ldns_buffer_free(tmp);
	return ok;
}

struct store_arg {
	struct rrset_cache* c;
	enum rrset_trust trust;
	int refresh;
	time_t now;
	const ldns_rr_list* dnames;   /* answer DNAMEs: skip synthesized */
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

static int store_one(void* arg, const struct packed_rrset* set)
{
	struct store_arg* a = arg;
	if(set->type == TYPE_RRSIG || set->type == TYPE_OPT)
		return 1;
	if(a->dnames && set->type == TYPE_CNAME &&
		under_dname(a->dnames, set->owner))
		return 1;
	if(rrset_cache_store(a->c, set, NULL, 0, a->trust, a->refresh,
		a->now) == RRSET_STORED)
		a->stored++;
	return 1;
}

/* Only the types that section may give. */
static ldns_rr_list* only_types(const ldns_rr_list* l, ldns_rr_type t1,
	ldns_rr_type t2)
{
	ldns_rr_list* out = ldns_rr_list_new();
	size_t i;
	if(!out)
		return NULL;
	for(i = 0; l && i < ldns_rr_list_rr_count(l); i++) {
		ldns_rr* rr = ldns_rr_list_rr(l, i);
		if(ldns_rr_get_type(rr) == t1 || ldns_rr_get_type(rr) == t2)
			ldns_rr_list_push_rr(out, rr);   /* shallow */
	}
	return out;
}

int iter_store_reply(struct rrset_cache* c, const ldns_pkt* pkt, time_t now)
{
	struct store_arg a;
	ldns_rr_list* l;
	if(!c)
		return 0;
	memset(&a, 0, sizeof(a));
	a.c = c;
	a.now = now;
	a.trust = ldns_pkt_aa(pkt) ? RRSET_TRUST_AUTH_ANSWER :
		RRSET_TRUST_ANSWER;
	a.refresh = ldns_pkt_aa(pkt);
	a.dnames = ldns_pkt_answer(pkt);
	(void)iter_for_each_rrset(ldns_pkt_answer(pkt), store_one, &a);
	a.dnames = NULL;
	a.refresh = 0;
	a.trust = RRSET_TRUST_AUTHORITY;
	if((l = only_types(ldns_pkt_authority(pkt), LDNS_RR_TYPE_NS,
		LDNS_RR_TYPE_NS)) != NULL) {
		(void)iter_for_each_rrset(l, store_one, &a);
		ldns_rr_list_free(l);
	}
	a.trust = RRSET_TRUST_GLUE;
	if((l = only_types(ldns_pkt_additional(pkt), LDNS_RR_TYPE_A,
		LDNS_RR_TYPE_AAAA)) != NULL) {
		(void)iter_for_each_rrset(l, store_one, &a);
		ldns_rr_list_free(l);
	}
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
	e = rrset_cache_closest_ns(c, qname, qclass, now);
	if(!e)
		return NULL;
	rrset_entry_view(e, now, &v, NULL);
	if(dname_count_labels(v.owner) <= min_labels ||
		!(dp = delegpt_create(v.owner))) {
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
			delegpt_free(dp);
			rrset_cache_release(c, e);
			return NULL;
		}
	}
	rrset_cache_release(c, e);
	for(ns = dp->nslist; ns; ns = ns->next)
		cached_addrs(c, dp, ns, qclass, now);
	if(dp->num_ns == 0) {
		delegpt_free(dp);
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
	return cache_rrs(c, name, type, qclass, now, list,
		RRSET_TRUST_ANSWER);
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
			!rdf_to_wire(ldns_rr_rdf(rr, 0), t))
			continue;
		(void)cache_rrs(c, t, TYPE_A, qclass, now, list,
			RRSET_TRUST_NONE);
		(void)cache_rrs(c, t, TYPE_AAAA, qclass, now, list,
			RRSET_TRUST_NONE);
	}
}

static int cache_rrs(struct rrset_cache* c, const uint8_t* name,
	uint16_t type, uint16_t qclass, time_t now, ldns_rr_list* list,
	int min_trust)
{
	struct rrset_entry* e;
	struct packed_rrset v;
	uint8_t* wire;
	size_t i;
	int ok = 1;
	if(!c)
		return 0;
	e = rrset_cache_lookup(c, name, type, qclass, 0, now);
	if(!e)
		return 0;
	if(e->trust < min_trust ||
		!(wire = malloc(LDNS_MAX_DOMAINLEN + 1 + 10 + 65535))) {
		rrset_cache_release(c, e);
		return 0;
	}
	rrset_entry_view(e, now, &v, NULL);
	for(i = 0; i < v.count && ok; i++) {
		ldns_rr* rr = NULL;
		size_t pos = 0, len = v.owner_len;
		memcpy(wire, v.owner, v.owner_len);
		wire[len++] = (uint8_t)(v.type >> 8);
		wire[len++] = (uint8_t)v.type;
		wire[len++] = (uint8_t)(v.rclass >> 8);
		wire[len++] = (uint8_t)v.rclass;
		wire[len++] = (uint8_t)(v.ttl >> 24);
		wire[len++] = (uint8_t)(v.ttl >> 16);
		wire[len++] = (uint8_t)(v.ttl >> 8);
		wire[len++] = (uint8_t)v.ttl;
		wire[len++] = (uint8_t)(v.rdlen[i] >> 8);
		wire[len++] = (uint8_t)v.rdlen[i];
		memcpy(wire + len, v.rdata[i], v.rdlen[i]);
		len += v.rdlen[i];
		if(ldns_wire2rr(&rr, wire, len, &pos, LDNS_SECTION_ANSWER)
			!= LDNS_STATUS_OK || !ldns_rr_list_push_rr(list, rr)) {
			ldns_rr_free(rr);
			ok = 0;
		}
	}
	free(wire);
	rrset_cache_release(c, e);
	return ok;
}

/* A cached message as records: *rcode, its answer section appended to
 * answer, its authority section (only the SOA when soa_only) as a new
 * list in *authority (NULL if none). Returns 0 when unreadable. */
static int entry_lists(const struct msg_entry* m, int soa_only, int* rcode,
	ldns_rr_list* answer, ldns_rr_list** authority)
{
	ldns_pkt* p = NULL;
	size_t i;
	int ok = 1;
	if(ldns_wire2pkt(&p, m->tmpl, m->len) != LDNS_STATUS_OK)
		return 0;
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

static struct msg_entry* msg_find(struct msg_cache* c, const uint8_t* qname,
	size_t qname_len, uint16_t qtype, uint16_t qclass, time_t now)
{
	struct query_info qi;
	if(!c || qname_len == 0 || qname_len > LDNS_MAX_DOMAINLEN)
		return NULL;
	memset(&qi, 0, sizeof(qi));
	memcpy(qi.qname, qname, qname_len);
	qi.qname_len = qname_len;
	qi.qtype = qtype;
	qi.qclass = qclass;
	return msg_cache_lookup(c, &qi, msg_cache_hash(c, &qi), now);
}

int iter_msg_cached(struct msg_cache* c, const uint8_t* qname,
	size_t qname_len, uint16_t qtype, uint16_t qclass, time_t now,
	int* rcode, ldns_rr_list* answer, ldns_rr_list** authority)
{
	struct msg_entry* m = msg_find(c, qname, qname_len, qtype, qclass,
		now);
	int ok;
	if(!m)
		return 0;
	ok = entry_lists(m, 1, rcode, answer, authority);
	msg_cache_release(c, m);
	return ok;
}

int iter_below_secure_nx(struct msg_cache* c, const uint8_t* sname,
	uint16_t qtype, uint16_t qclass, int qmin, time_t now,
	ldns_rr_list** authority)
{
	const uint8_t* n = sname;
	*authority = NULL;
	while(c && n[0] != 0) {
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
			m->security == MSG_SEC_SECURE) {
			ldns_rr_list* an = ldns_rr_list_new();
			int rcode = 0, ok = an && entry_lists(m, 0, &rcode, an,
				authority);
			ldns_rr_list_deep_free(an);
			msg_cache_release(c, m);
			return ok;
		}
		msg_cache_release(c, m);
	}
	return 0;
}
