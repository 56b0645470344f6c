/* SPDX-License-Identifier: BSD-3-Clause */
/* smallapp/anchor/anchor_probe.c - compat: unbound-1.17: the DNS side of
 * unbound-anchor, with ldns' stub resolver (UDP, TCP on truncation, short
 * timeouts). Unbound's unbound-anchor runs a whole libunbound validator here;
 * this asks the configured servers for ". DNSKEY" and checks its RRSIGs
 * against the anchor file's keys, which is what decides "the anchor is ok". */
#include "config.h"
#include "smallapp/anchor/anchor_probe.h"
#include "smallapp/anchor/anchor_file.h"
#include "iterator/delegpt.h"
#include "iterator/iter_hints.h"
#include "util/config_file.h"
#include "util/net_help.h"
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int push_addr(ldns_resolver* res, const struct sockaddr_storage* ss)
{
	uint16_t port = 53;
	ldns_rdf* a = ldns_sockaddr_storage2rdf(ss, &port);
	if(!a)
		return 0;
	if(ldns_resolver_push_nameserver(res, a) != LDNS_STATUS_OK) {
		ldns_rdf_deep_free(a);
		return 0;
	}
	ldns_rdf_deep_free(a);
	/* ldns has one port for all servers: the last one given */
	ldns_resolver_set_port(res, port);
	return 1;
}

static int push_delegpt(ldns_resolver* res, struct delegpt* dp)
{
	int n = 0;
	for(struct delegpt_addr* a = dp->addrs; a; a = a->next)
		n += push_addr(res, &a->addr);
	delegpt_delete(dp);
	return n;
}

/* forward-zone "." of a config, or its root-hints: file; else 0 */
static int push_from_conf(ldns_resolver* res, const char* file, int* rd)
{
	struct config_file* cfg = config_create();
	int n = 0;
	if(!cfg)
		return -1;
	if(!config_read(cfg, file, NULL)) {
		fprintf(stderr, "error: %s: cannot read the config\n", file);
		config_delete(cfg);
		return -1;
	}
	for(struct config_stub* f = cfg->forwards; f && !n; f = f->next) {
		if(!f->name || strcmp(f->name, ".") != 0)
			continue;
		for(struct config_strlist* s = f->addrs; s; s = s->next) {
			struct sockaddr_storage ss;
			socklen_t len;
			if(extstrtoaddr(s->str, 53, &ss, &len))
				n += push_addr(res, &ss);
		}
		*rd = 1;
	}
	if(!n && cfg->root_hints) {
		struct delegpt* dp = iter_hints_read_file(cfg->root_hints->str);
		if(!dp) {
			fprintf(stderr, "error: %s: cannot read root hints "
				"%s\n", file, cfg->root_hints->str);
			n = -1;
		} else {
			n = push_delegpt(res, dp);
		}
	}
	config_delete(cfg);
	return n;
}

ldns_resolver* anchor_resolver(const struct anchor_dns_opts* o,
	int use_resolv_conf)
{
	ldns_resolver* res = NULL;
	int rd = 0, n = 0;
	if(o->resolv_conf && use_resolv_conf) {
		if(ldns_resolver_new_frm_file(&res, o->resolv_conf) !=
			LDNS_STATUS_OK) {
			fprintf(stderr, "error: %s: cannot read it\n",
				o->resolv_conf);
			return NULL;
		}
		rd = 1;
		n = (int)ldns_resolver_nameserver_count(res);
	} else {
		if(!(res = ldns_resolver_new()))
			return NULL;
		if(o->root_hints) {
			struct delegpt* dp =
				iter_hints_read_file(o->root_hints);
			if(!dp) {
				fprintf(stderr, "error: %s: cannot read root "
					"hints\n", o->root_hints);
				ldns_resolver_deep_free(res);
				return NULL;
			}
			n = push_delegpt(res, dp);
		} else if(o->conf) {
			n = push_from_conf(res, o->conf, &rd);
			if(n < 0) {
				ldns_resolver_deep_free(res);
				return NULL;
			}
		}
		if(n == 0)
			n = push_delegpt(res,
				iter_hints_builtin_root(!o->ip6only,
				!o->ip4only));
	}
	if(n == 0) {
		fprintf(stderr, "error: no servers to ask\n");
		ldns_resolver_deep_free(res);
		return NULL;
	}
	if(anchor_verb >= 2) {
		for(size_t i = 0; i < ldns_resolver_nameserver_count(res); i++) {
			char* a = ldns_rdf2str(ldns_resolver_nameservers(res)[i]);
			printf("server %s port %d%s\n", a ? a : "?",
				(int)ldns_resolver_port(res), rd ? " (RD)" : "");
			free(a);
		}
	}
	ldns_resolver_set_recursive(res, rd);
	ldns_resolver_set_dnssec(res, 1);
	ldns_resolver_set_edns_udp_size(res, 1232);
	ldns_resolver_set_fallback(res, 1);       /* TCP when truncated */
	ldns_resolver_set_random(res, 1);
	ldns_resolver_set_retry(res, 1);
	ldns_resolver_set_retrans(res, 1);
	ldns_resolver_set_timeout(res, (struct timeval){ 2, 0 });
	ldns_resolver_set_fail(res, 0);           /* try the next one */
	if(o->ip4only)
		ldns_resolver_set_ip6(res, LDNS_RESOLV_INET);
	else if(o->ip6only)
		ldns_resolver_set_ip6(res, LDNS_RESOLV_INET6);
	if(o->source) {
		ldns_rdf* s = NULL;
		struct in6_addr a6;
		struct in_addr a4;
		if(inet_pton(AF_INET, o->source, &a4) == 1)
			s = ldns_rdf_new_frm_data(LDNS_RDF_TYPE_A, 4, &a4);
		else if(inet_pton(AF_INET6, o->source, &a6) == 1)
			s = ldns_rdf_new_frm_data(LDNS_RDF_TYPE_AAAA, 16, &a6);
		if(!s) {
			fprintf(stderr, "error: -b %s: not an address\n",
				o->source);
			ldns_resolver_deep_free(res);
			return NULL;
		}
		ldns_resolver_set_source(res, s);
	}
	return res;
}

/* The keys of the answer that the anchors vouch for: DNSKEY anchors as
 * they are, DS anchors by the DNSKEYs whose digest they hold. */
static ldns_rr_list* trusted_keys(const ldns_rr_list* keys,
	const ldns_rr_list* anchors)
{
	ldns_rr_list* t = ldns_rr_list_new();
	for(size_t i = 0; t && i < ldns_rr_list_rr_count(anchors); i++) {
		ldns_rr* a = ldns_rr_list_rr(anchors, i);
		if(ldns_rr_get_type(a) == LDNS_RR_TYPE_DNSKEY) {
			ldns_rr_list_push_rr(t, ldns_rr_clone(a));
			continue;
		}
		for(size_t k = 0; k < ldns_rr_list_rr_count(keys); k++)
			if(ldns_rr_compare_ds(a, ldns_rr_list_rr(keys, k)))
				ldns_rr_list_push_rr(t, ldns_rr_clone(
					ldns_rr_list_rr(keys, k)));
	}
	return t;
}

static int dnskey_secure(ldns_pkt* pkt, const ldns_rr_list* anchors)
{
	ldns_rr_list* keys = ldns_pkt_rr_list_by_type(pkt,
		LDNS_RR_TYPE_DNSKEY, LDNS_SECTION_ANSWER);
	ldns_rr_list* sigs = ldns_pkt_rr_list_by_type(pkt,
		LDNS_RR_TYPE_RRSIG, LDNS_SECTION_ANSWER);
	ldns_rr_list* trusted = NULL;
	int secure = 0;
	if(keys && sigs && anchors) {
		trusted = trusted_keys(keys, anchors);
		if(trusted && ldns_rr_list_rr_count(trusted) > 0 &&
			ldns_verify(keys, sigs, trusted, NULL) ==
			LDNS_STATUS_OK)
			secure = 1;
	}
	ldns_rr_list_deep_free(keys);
	ldns_rr_list_deep_free(sigs);
	ldns_rr_list_deep_free(trusted);
	return secure;
}

struct anchor_probe anchor_probe_root(ldns_resolver* res,
	const ldns_rr_list* anchors)
{
	struct anchor_probe p = { 0, LDNS_RCODE_SERVFAIL, 0 };
	ldns_rdf* root = ldns_dname_new_frm_str(".");
	ldns_pkt* pkt = NULL;
	ldns_status st = LDNS_STATUS_MEM_ERR;
	if(root)
		st = ldns_resolver_send(&pkt, res, root, LDNS_RR_TYPE_DNSKEY,
			LDNS_RR_CLASS_IN, ldns_resolver_recursive(res) ?
			LDNS_RD : 0);
	if(st == LDNS_STATUS_OK && pkt) {
		p.answered = 1;
		p.rcode = ldns_pkt_get_rcode(pkt);
		p.secure = p.rcode == LDNS_RCODE_NOERROR &&
			dnskey_secure(pkt, anchors);
		if(anchor_verb)
			printf("the root DNSKEY: rcode %d, %s\n", p.rcode,
				p.secure ? "secure" : "not secure");
	} else if(anchor_verb) {
		printf("resolve DNSKEY: %s\n", ldns_get_errorstr_by_id(st));
	}
	ldns_pkt_free(pkt);
	ldns_rdf_deep_free(root);
	return p;
}

static int literal_addr(const char* name, int port, struct anchor_addr* a)
{
	memset(a, 0, sizeof(*a));
	return ipstrtoaddr(name, port, &a->addr, &a->len);
}

struct anchor_addr* anchor_resolve_name(ldns_resolver* res,
	const char* name, int port, int ip4only, int ip6only, int* n)
{
	struct anchor_addr* out = calloc(1, sizeof(*out));
	ldns_rdf* dname;
	*n = 0;
	if(!out)
		return NULL;
	if(literal_addr(name, port, out)) {
		*n = 1;
		return out;
	}
	if(!res || !(dname = ldns_dname_new_frm_str(name))) {
		fprintf(stderr, "error: cannot resolve %s\n", name);
		free(out);
		return NULL;
	}
	for(int pass = 0; pass < 2; pass++) {
		ldns_rr_type t = pass ? LDNS_RR_TYPE_AAAA : LDNS_RR_TYPE_A;
		ldns_pkt* pkt = NULL;
		ldns_rr_list* rrs;
		if((t == LDNS_RR_TYPE_A && ip6only) ||
			(t == LDNS_RR_TYPE_AAAA && ip4only))
			continue;
		if(ldns_resolver_send(&pkt, res, dname, t, LDNS_RR_CLASS_IN,
			LDNS_RD) != LDNS_STATUS_OK || !pkt)
			continue;
		rrs = ldns_pkt_rr_list_by_type(pkt, t, LDNS_SECTION_ANSWER);
		for(size_t i = 0; rrs && i < ldns_rr_list_rr_count(rrs); i++) {
			char* txt = ldns_rdf2str(ldns_rr_rdf(
				ldns_rr_list_rr(rrs, i), 0));
			struct anchor_addr* bigger = realloc(out,
				sizeof(*out) * (size_t)(*n + 1));
			if(txt && bigger) {
				out = bigger;
				if(literal_addr(txt, port, &out[*n]))
					(*n)++;
			}
			free(txt);
		}
		ldns_rr_list_deep_free(rrs);
		ldns_pkt_free(pkt);
	}
	ldns_rdf_deep_free(dname);
	if(*n == 0) {
		fprintf(stderr, "error: cannot resolve %s: no address\n",
			name);
		free(out);
		return NULL;
	}
	return out;
}
