/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/remote_lookup.c - compat: unbound-1.17: unbound-control lookup NAME:
 * the closest delegation the RRset cache holds for a name, the cached
 * addresses of its name servers, and the infrastructure cache's view of each
 * address (RTT, timeouts, EDNS), worded as Unbound's. Main thread; the caches
 * lock inside. */
#include "config.h"
#include "daemon/remote_cmd.h"
#include "daemon/daemon.h"
#include "services/cache/rrset.h"
#include "services/cache/infra.h"
#include "iterator/iter_hints.h"
#include "iterator/delegpt.h"
#include "util/dname.h"
#include "util/net_help.h"
#include "util/msgparse.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#define LOOKUP_MAX_ADDRS 64

struct lookup_addrs {
	struct sockaddr_storage addr[LOOKUP_MAX_ADDRS];
	socklen_t len[LOOKUP_MAX_ADDRS];
	int num;
};

/* compat: unbound-1.17: Is the address just parsed into slot num already
 * listed? (Two name servers can share one address: it is one target, as
 * Unbound's.) */
static int addr_seen(const struct lookup_addrs* a)
{
	int i;
	for(i = 0; i < a->num; i++)
		if(sockaddr_cmp(&a->addr[i], a->len[i], &a->addr[a->num],
			a->len[a->num]) == 0)
			return 1;
	return 0;
}

static void print_rrset_head(struct strbuf* b, const struct rrset_entry* e,
	const struct packed_rrset* rr)
{
	strbuf_printf(b, ";rrset %u %u %u %d 0\n", (unsigned)rr->ttl,
		(unsigned)rr->count, (unsigned)e->rrsig_count, (int)e->trust);
}

/* The cached A or AAAA RRset of ns: printed, addresses collected.
 * Returns how many it has. */
static int print_addrs(struct daemon_remote* rc, const uint8_t* ns,
	uint16_t type, time_t now, struct strbuf* b, struct lookup_addrs* a)
{
	struct rrset_entry* e = rrset_cache_lookup(rc->d->rrset_cache, ns,
		type, CLASS_IN, 0, now);
	struct packed_rrset rr, sigs;
	char name[1100], ip[INET6_ADDRSTRLEN];
	size_t i;
	int n;
	if(!e)
		return 0;
	rrset_entry_view(e, now, &rr, &sigs);
	n = (int)rr.count;
	dname_to_str(rr.owner, name, sizeof(name));
	print_rrset_head(b, e, &rr);
	for(i = 0; i < rr.count; i++) {
		size_t want = type == TYPE_A ? 4 : 16;
		if(rr.rdlen[i] != want)
			continue;
		inet_ntop(type == TYPE_A ? AF_INET : AF_INET6, rr.rdata[i], ip,
			sizeof(ip));
		strbuf_printf(b, "%s\t%u\tIN\t%s\t%s\n", name,
			(unsigned)rr.ttl, type == TYPE_A ? "A" : "AAAA", ip);
		if(a->num < LOOKUP_MAX_ADDRS &&
			ipstrtoaddr(ip, 53, &a->addr[a->num], &a->len[a->num]) &&
			!addr_seen(a))
			a->num++;
	}
	rrset_cache_release(rc->d->rrset_cache, e);
	return n;
}

static void print_infra(struct daemon_remote* rc, const uint8_t* zone,
	const struct lookup_addrs* a, struct strbuf* b)
{
	size_t zlen = 0;
	int i;
	time_t now = time(NULL);
	while(zone[zlen])
		zlen += zone[zlen] + 1;
	zlen++;
	for(i = 0; i < a->num; i++) {
		struct infra_info inf;
		char ip[64];
		addr_to_str(&a->addr[i], a->len[i], ip, sizeof(ip));
		strbuf_printf(b, "%-16s\t", ip);
		if(!infra_get_info(rc->d->infra, &a->addr[i], a->len[i], zone,
			zlen, &inf)) {
			strbuf_printf(b, "not in infra cache.\n");
			continue;
		}
		if(inf.ttl < now) {
			strbuf_printf(b, "expired, rto %d msec, tA %d tAAAA %d "
				"tother %d.\n", inf.rtt.rto, inf.timeout_A,
				inf.timeout_AAAA, inf.timeout_other);
			continue;
		}
		strbuf_printf(b, "%s%s%srto %d msec, ttl %lld, ping %d var %d "
			"rtt %d, tA %d, tAAAA %d, tother %d, EDNS %d%s.\n",
			inf.lame_type_A || inf.lame_other ? "LAME " : "",
			inf.isdnsseclame ? "NoDNSSEC " : "",
			inf.rec_lame ? "NoAuthButRecursive " : "", inf.rtt.rto,
			(long long)(inf.ttl - now), inf.rtt.srtt,
			inf.rtt.rttvar, inf.rtt.rto, inf.timeout_A,
			inf.timeout_AAAA, inf.timeout_other, inf.edns_version,
			inf.edns_lame_known ? " probed" : " assumed");
	}
}

void rc_do_lookup(struct daemon_remote* rc, char* arg, struct strbuf* b)
{
	uint8_t nm[LDNS_MAX_DOMAINLEN + 1];
	struct rrset_entry* e;
	struct packed_rrset rr, sigs;
	struct lookup_addrs addrs;
	char zone[1100], ns[1100];
	size_t i;
	int with_addr = 0;
	time_t now = time(NULL);
	if(!rc_parse_name(arg, nm, b))
		return;
	dname_to_str(nm, zone, sizeof(zone));
	strbuf_printf(b, "The following name servers are used for lookup "
		"of %s\n", zone);
	e = rrset_cache_closest_ns(rc->d->rrset_cache, nm, CLASS_IN, now);
	if(!e) {
		strbuf_printf(b, "no delegation from cache; goes to configured "
			"roots\n");
		return;
	}
	memset(&addrs, 0, sizeof(addrs));
	rrset_entry_view(e, now, &rr, &sigs);
	dname_to_str(rr.owner, zone, sizeof(zone));
	print_rrset_head(b, e, &rr);
	for(i = 0; i < rr.count; i++) {
		if(rr.rdlen[i] < 1 || !dname_valid(rr.rdata[i], rr.rdlen[i]))
			continue;
		dname_to_str(rr.rdata[i], ns, sizeof(ns));
		strbuf_printf(b, "%s\t%u\tIN\tNS\t%s\n", zone,
			(unsigned)rr.ttl, ns);
	}
	for(i = 0; i < rr.count; i++) {
		int n;
		if(rr.rdlen[i] < 1 || !dname_valid(rr.rdata[i], rr.rdlen[i]))
			continue;
		n = print_addrs(rc, rr.rdata[i], TYPE_A, now, b, &addrs);
		n += print_addrs(rc, rr.rdata[i], TYPE_AAAA, now, b, &addrs);
		if(n > 0)
			with_addr++;
	}
	strbuf_printf(b, "Delegation with %d names, of which %d can be "
		"examined to query further addresses.\n", (int)rr.count,
		(int)rr.count - with_addr);
	strbuf_printf(b, "It provides %d IP addresses.\n", addrs.num);
	print_infra(rc, rr.owner, &addrs, b);
	rrset_cache_release(rc->d->rrset_cache, e);
}

/* compat: unbound-1.17: One delegation point as Unbound's
 * list_stubs/list_forwards print it: the NS names, then the addresses (without
 * port). */
static void print_hint(const struct iter_hint* h, struct strbuf* b)
{
	const struct delegpt_ns* ns;
	const struct delegpt_addr* a;
	char name[1100], ip[64];
	dname_to_str(h->dp->name, name, sizeof(name));
	strbuf_printf(b, "%s IN %s", name, h->is_forward ? "forward" :
		(h->prime || h->is_root ? "stub prime" : "stub noprime"));
	for(ns = h->dp->nslist; ns; ns = ns->next) {
		dname_to_str(ns->name, name, sizeof(name));
		strbuf_printf(b, " %s", name);
	}
	for(a = h->dp->addrs; a; a = a->next) {
		addr_to_str(&a->addr, a->addrlen, ip, sizeof(ip));
		strbuf_printf(b, " %s", ip);
	}
	strbuf_printf(b, "\n");
}

static int hint_cmp(const void* x, const void* y)
{
	const struct iter_hint* a = *(const struct iter_hint* const*)x;
	const struct iter_hint* b = *(const struct iter_hint* const*)y;
	return dname_tree_compare(a->dp->name, b->dp->name);
}

void rc_do_list_hints(struct daemon_remote* rc, int forwards,
	struct strbuf* b)
{
	const struct iter_hints* hs = rc->d->env->hints;
	const struct iter_hint* h, **v;
	size_t n = 0, i;
	int root_listed = 0;
	if(!hs)
		return;
	for(h = hs->list; h; h = h->next) {
		n++;
		if(h == hs->root)
			root_listed = 1;
	}
	if(!(v = calloc(n + 1, sizeof(*v)))) {
		strbuf_printf(b, "error out of memory\n");
		return;
	}
	n = 0;
	for(h = hs->list; h; h = h->next)
		if(h->dp && !h->is_forward == !forwards)
			v[n++] = h;
	/* the root hints may be kept apart from the stub list */
	if(hs->root && !root_listed && hs->root->dp &&
		!hs->root->is_forward == !forwards)
		v[n++] = hs->root;
	/* compat: unbound-1.17: in the order of Unbound's name tree, which it
	 * walks to list */
	qsort(v, n, sizeof(*v), hint_cmp);
	for(i = 0; i < n; i++)
		print_hint(v[i], b);
	free(v);
}
