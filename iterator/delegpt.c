/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/delegpt.c - delegation points. Small lists: a delegation has
 * a handful of names and addresses, and both are capped. */
#include "config.h"
#include "util/zalloc.h"
#include "iterator/delegpt.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/net_help.h"
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

size_t delegpt_rdf_to_wire(const ldns_rdf* rdf, uint8_t* buf)
{
	size_t n;
	if(!rdf || ldns_rdf_get_type(rdf) != LDNS_RDF_TYPE_DNAME)
		return 0;
	n = ldns_rdf_size(rdf);
	if(n == 0 || n > LDNS_MAX_DOMAINLEN)
		return 0;
	memcpy(buf, ldns_rdf_data(rdf), n);
	if(dname_valid(buf, n) != n)
		return 0;
	dname_tolower(buf);
	return n;
}

const uint8_t* delegpt_rdf_name(const ldns_rdf* rdf)
{
	size_t n;
	if(!rdf || ldns_rdf_get_type(rdf) != LDNS_RDF_TYPE_DNAME)
		return NULL;
	n = ldns_rdf_size(rdf);
	if(n == 0 || n > LDNS_MAX_DOMAINLEN ||
		dname_valid(ldns_rdf_data(rdf), n) != n)
		return NULL;
	return ldns_rdf_data(rdf);
}

struct delegpt* delegpt_create(const uint8_t* zone)
{
	struct delegpt* dp;
	size_t n = dname_valid(zone, LDNS_MAX_DOMAINLEN);
	if(n == 0)
		return NULL;
	dp = zalloc(sizeof(*dp));
	if(!dp)
		return NULL;
	memcpy(dp->name, zone, n);
	dp->namelen = n;
	dname_tolower(dp->name);
	dp->ttl = 0xffffffff;
	return dp;
}

/* A zeroed address for dp, to be appended: the first one in dp's own
 * storage. NULL when out of memory. */
static struct delegpt_addr* addr_new(struct delegpt* dp)
{
	if(!dp->addrs) {
		memset(&dp->first_addr, 0, sizeof(dp->first_addr));
		return &dp->first_addr;
	}
	return zalloc(sizeof(struct delegpt_addr));
}

void delegpt_delete(struct delegpt* dp)
{
	struct delegpt_ns* ns, *nn;
	struct delegpt_addr* a, *na;
	if(!dp)
		return;
	for(ns = dp->nslist; ns; ns = nn) {
		nn = ns->next;
		free(ns);
	}
	for(a = dp->addrs; a; a = na) {
		na = a->next;
		free(a->tls_name);
		if(a != &dp->first_addr)
			free(a);
	}
	free(dp);
}

struct delegpt_ns* delegpt_find_ns(const struct delegpt* dp,
	const uint8_t* name)
{
	struct delegpt_ns* ns;
	for(ns = dp->nslist; ns; ns = ns->next)
		if(query_dname_compare(ns->name, name) == 0)
			return ns;
	return NULL;
}

int delegpt_add_ns(struct delegpt* dp, const uint8_t* name)
{
	struct delegpt_ns* ns, **tail;
	size_t n = dname_valid(name, LDNS_MAX_DOMAINLEN);
	if(n == 0)
		return -1;
	if(delegpt_find_ns(dp, name))
		return 1;
	if(dp->num_ns >= DELEGPT_MAX_NS)
		return 0;
	ns = zalloc(sizeof(*ns));
	if(!ns)
		return -1;
	memcpy(ns->name, name, n);
	ns->namelen = n;
	/* compat: unbound-1.17: the case is kept, as Unbound does (list_stubs
	 * shows the names as written); every compare and cache key is
	 * case-insensitive */
	/* keep the order of the records (append) */
	for(tail = &dp->nslist; *tail; tail = &(*tail)->next)
		;
	*tail = ns;
	dp->num_ns++;
	return 1;
}

int delegpt_add_addr(struct delegpt* dp, const struct sockaddr_storage* a,
	socklen_t len)
{
	struct delegpt_addr* d, **tail;
	for(tail = &dp->addrs; *tail; tail = &(*tail)->next)
		if(sockaddr_cmp(&(*tail)->addr, (*tail)->addrlen, a, len) == 0)
			return 1;
	if(dp->num_addr >= DELEGPT_MAX_ADDR || len > sizeof(d->addr))
		return 0;
	d = addr_new(dp);
	if(!d)
		return 0;
	memcpy(&d->addr, a, len);
	d->addrlen = len;
	*tail = d;
	dp->num_addr++;
	return 1;
}

int delegpt_add_addr_tls(struct delegpt* dp, const struct sockaddr_storage* a,
	socklen_t len, const char* name)
{
	struct delegpt_addr* d;
	size_t before = dp->num_addr;
	if(!delegpt_add_addr(dp, a, len))
		return 0;
	if(!name || dp->num_addr == before)
		/* compat: unbound-1.17: a duplicate keeps its first name, as
		 * Unbound */
		return 1;
	for(d = dp->addrs; d->next; d = d->next)
		;
	return (d->tls_name = strdup(name)) != NULL;
}

int delegpt_add_rr_addr(struct delegpt* dp, const ldns_rr* rr, int port)
{
	uint8_t owner[LDNS_MAX_DOMAINLEN + 1];
	struct delegpt_ns* ns;
	if(!delegpt_rdf_to_wire(ldns_rr_owner(rr), owner))
		return 0;
	ns = delegpt_find_ns(dp, owner);
	if(!ns)
		return 0;
	return delegpt_add_rr_addr_ns(dp, ns, rr, port);
}

int delegpt_rr_sockaddr(const ldns_rr* rr, int port,
	struct sockaddr_storage* ss, socklen_t* len)
{
	ldns_rdf* rd;
	if(ldns_rr_rd_count(rr) != 1)
		return 0;
	rd = ldns_rr_rdf(rr, 0);
	memset(ss, 0, sizeof(*ss));
	if(port == 0)
		port = 53;
	if(ldns_rr_get_type(rr) == LDNS_RR_TYPE_A &&
		ldns_rdf_size(rd) == 4) {
		struct sockaddr_in* s4 = (struct sockaddr_in*)ss;
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		memcpy(&s4->sin_addr, ldns_rdf_data(rd), 4);
		*len = sizeof(*s4);
		return 4;
	}
	if(ldns_rr_get_type(rr) == LDNS_RR_TYPE_AAAA &&
		ldns_rdf_size(rd) == 16) {
		struct sockaddr_in6* s6 = (struct sockaddr_in6*)ss;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		memcpy(&s6->sin6_addr, ldns_rdf_data(rd), 16);
		*len = sizeof(*s6);
		return 6;
	}
	return 0;
}

int delegpt_add_rr_addr_ns(struct delegpt* dp, struct delegpt_ns* ns,
	const ldns_rr* rr, int port)
{
	struct sockaddr_storage ss;
	socklen_t len;
	switch(delegpt_rr_sockaddr(rr, port, &ss, &len)) {
	case 4: ns->got4 = 1; break;
	case 6: ns->got6 = 1; break;
	default: return 0;
	}
	return delegpt_add_addr(dp, &ss, len);
}

/* The source is a delegation point: its name valid and lowercased, no
 * duplicate names or addresses, within the caps. So the copy takes them
 * as they are, in order, without the checks and searches of
 * delegpt_create and the add functions (a copy per query from the
 * hints). */
struct delegpt* delegpt_copy(const struct delegpt* dp)
{
	struct delegpt* c = zalloc(sizeof(*c));
	struct delegpt_ns* ns, **ntail;
	struct delegpt_addr* a, **atail;
	if(!c)
		return NULL;
	memcpy(c->name, dp->name, dp->namelen);
	c->namelen = dp->namelen;
	c->ttl = dp->ttl;
	c->tls = dp->tls;
	c->tcp = dp->tcp;
	ntail = &c->nslist;
	for(ns = dp->nslist; ns; ns = ns->next) {
		struct delegpt_ns* cn = zalloc(sizeof(*cn));
		if(!cn)
			goto fail;
		memcpy(cn->name, ns->name, ns->namelen);
		cn->namelen = ns->namelen;
		cn->got4 = ns->got4;
		cn->got6 = ns->got6;
		*ntail = cn;
		ntail = &cn->next;
		c->num_ns++;
	}
	atail = &c->addrs;
	for(a = dp->addrs; a; a = a->next) {
		struct delegpt_addr* ca = addr_new(c);
		if(!ca)
			goto fail;
		memcpy(&ca->addr, &a->addr, a->addrlen);
		ca->addrlen = a->addrlen;
		*atail = ca;
		atail = &ca->next;
		c->num_addr++;
		if(a->tls_name && !(ca->tls_name = strdup(a->tls_name)))
			goto fail;
	}
	return c;
fail:
	delegpt_delete(c);
	return NULL;
}

struct delegpt* delegpt_from_rrs(const uint8_t* zone, const ldns_rr_list* ns,
	const ldns_rr_list* addl, const uint8_t* bailiwick, int port)
{
	struct delegpt* dp = delegpt_create(zone);
	uint8_t buf[LDNS_MAX_DOMAINLEN + 1];
	size_t i;
	if(!dp)
		return NULL;
	for(i = 0; ns && i < ldns_rr_list_rr_count(ns); i++) {
		ldns_rr* rr = ldns_rr_list_rr(ns, i);
		if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_NS ||
			!delegpt_rdf_to_wire(ldns_rr_owner(rr), buf) ||
			query_dname_compare(buf, dp->name) != 0)
			continue;
		if(ldns_rr_rd_count(rr) != 1 ||
			!delegpt_rdf_to_wire(ldns_rr_rdf(rr, 0), buf))
			continue;
		if(delegpt_add_ns(dp, buf) < 0) {
			delegpt_delete(dp);
			return NULL;
		}
		if(ldns_rr_ttl(rr) < dp->ttl)
			dp->ttl = ldns_rr_ttl(rr);
	}
	if(dp->num_ns == 0) {
		delegpt_delete(dp);
		return NULL;
	}
	for(i = 0; addl && i < ldns_rr_list_rr_count(addl); i++) {
		ldns_rr* rr = ldns_rr_list_rr(addl, i);
		if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_A &&
			ldns_rr_get_type(rr) != LDNS_RR_TYPE_AAAA)
			continue;
		if(!delegpt_rdf_to_wire(ldns_rr_owner(rr), buf))
			continue;
		if(bailiwick && !dname_subdomain_c(buf, bailiwick))
			continue;
		(void)delegpt_add_rr_addr(dp, rr, port);
	}
	return dp;
}

size_t delegpt_count_missing(const struct delegpt* dp, int do4, int do6)
{
	struct delegpt_ns* ns;
	size_t n = 0;
	for(ns = dp->nslist; ns; ns = ns->next) {
		if(ns->got4 || ns->got6 || ns->failed)
			continue;
		if((do4 && !ns->lookup4) || (do6 && !ns->lookup6))
			n++;
	}
	return n;
}

size_t delegpt_count_usable(const struct delegpt* dp, int max_attempts)
{
	struct delegpt_addr* a;
	size_t n = 0;
	for(a = dp->addrs; a; a = a->next)
		if(!a->dead && a->attempts < max_attempts)
			n++;
	return n;
}

void delegpt_log(int level, const struct delegpt* dp)
{
	char name[1024], buf[1100];
	struct delegpt_ns* ns;
	struct delegpt_addr* a;
	if((int)verbosity < level)
		return;
	dname_to_str(dp->name, name, sizeof(name));
	verbose(level, "delegation point %s: %d names, %d addresses", name,
		(int)dp->num_ns, (int)dp->num_addr);
	for(ns = dp->nslist; ns; ns = ns->next) {
		dname_to_str(ns->name, buf, sizeof(buf));
		verbose(level, "  ns %s%s%s%s", buf, ns->got4 ? " A" : "",
			ns->got6 ? " AAAA" : "", ns->failed ? " failed" : "");
	}
	for(a = dp->addrs; a; a = a->next) {
		addr_to_str(&a->addr, a->addrlen, buf, sizeof(buf));
		verbose(level, "  addr %s port %d%s", buf,
			addr_port(&a->addr), a->dead ? " dead" : "");
	}
}
