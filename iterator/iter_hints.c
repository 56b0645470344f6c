/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/iter_hints.c - root hints file and stub/forward zones. */
#include "config.h"
#include "iterator/iter_hints.h"
#include "iterator/delegpt.h"
#include "iterator/iter_priv.h"
#include "iterator/iter_caps.h"
#include "services/tls_client.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/net_help.h"
#include "util/strutil.h"
#include <ldns/ldns.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct delegpt* iter_hints_read_file(const char* fname)
{
	FILE* in = fopen(fname, "r");
	ldns_rr_list* ns, *addrs;
	ldns_rdf* origin = NULL, *prev = NULL;
	uint32_t ttl = 3600;
	int line = 1;
	struct delegpt* dp = NULL;
	static const uint8_t root[1] = { 0 };
	if(!in) {
		log_err("cannot open root-hints file %s: %s", fname,
			strerror(errno));
		return NULL;
	}
	ns = ldns_rr_list_new();
	addrs = ldns_rr_list_new();
	if(!ns || !addrs)
		goto done;
	/* a read error (a directory: EISDIR) never reaches the end of
	 * the file: without the ferror check this loop would not end */
	while(!feof(in) && !ferror(in)) {
		ldns_rr* rr = NULL;
		ldns_status s = ldns_rr_new_frm_fp_l(&rr, in, &ttl, &origin,
			&prev, &line);
		if(s == LDNS_STATUS_SYNTAX_EMPTY || s == LDNS_STATUS_SYNTAX_TTL
			|| s == LDNS_STATUS_SYNTAX_ORIGIN)
			continue;
		if(s != LDNS_STATUS_OK) {
			log_err("root-hints %s:%d: %s", fname, line,
				ldns_get_errorstr_by_id(s));
			goto done;
		}
		if(ldns_rr_get_type(rr) == LDNS_RR_TYPE_NS) {
			if(!ldns_rr_list_push_rr(ns, rr))
				ldns_rr_free(rr);
		} else if(ldns_rr_get_type(rr) == LDNS_RR_TYPE_A ||
			ldns_rr_get_type(rr) == LDNS_RR_TYPE_AAAA) {
			if(!ldns_rr_list_push_rr(addrs, rr))
				ldns_rr_free(rr);
		} else
			ldns_rr_free(rr);
	}
	if(ferror(in)) {
		log_err("cannot read root-hints file %s", fname);
		goto done;
	}
	dp = delegpt_from_rrs(root, ns, addrs, NULL, 53);
	if(!dp)
		log_err("root-hints %s: no NS records for the root", fname);
	else if(dp->num_addr == 0) {
		log_err("root-hints %s: no addresses for the root servers",
			fname);
		delegpt_delete(dp);
		dp = NULL;
	}
done:
	ldns_rr_list_deep_free(ns);
	ldns_rr_list_deep_free(addrs);
	ldns_rdf_deep_free(origin);
	ldns_rdf_deep_free(prev);
	fclose(in);
	return dp;
}

/* One stub-zone: or forward-zone: clause to a hint. */
static struct iter_hint* hint_from_stub(const struct config_stub* s,
	int is_forward)
{
	uint8_t name[LDNS_MAX_DOMAINLEN + 1];
	struct iter_hint* h;
	struct config_strlist* p;
	const char* what = is_forward ? "forward-zone" : "stub-zone";
	if(!s->name || !dname_from_str(s->name, name)) {
		log_err("%s: bad name '%s'", what, s->name ? s->name : "");
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if(!h || !(h->dp = delegpt_create(name))) {
		free(h);
		log_err("out of memory");
		return NULL;
	}
	h->is_forward = is_forward;
	h->prime = s->isprime;
	h->first = s->isfirst;
	h->no_cache = s->no_cache;
	for(p = s->hosts; p; p = p->next) {
		uint8_t host[LDNS_MAX_DOMAINLEN + 1];
		if(!dname_from_str(p->str, host) ||
			delegpt_add_ns(h->dp, host) < 0) {
			log_err("%s %s: bad host name '%s'", what, s->name,
				p->str);
			goto fail;
		}
	}
	h->dp->tls = s->ssl_upstream;
	h->dp->tcp = s->tcp_upstream;
	for(p = s->addrs; p; p = p->next) {
		struct sockaddr_storage a;
		socklen_t len;
		char ip[256], *hash, *name = NULL;
		int port = 53;
		/* compat: unbound-1.17: "IP[@port][#name]": name is what the
		 * TLS certificate must match; as Unbound, "IP#name" means port
		 * 853 */
		snprintf(ip, sizeof(ip), "%s", p->str);
		if((hash = strchr(ip, '#')) != NULL) {
			*hash = 0;
			name = hash + 1;
			if(!strchr(ip, '@'))
				port = 853;
		}
		if(!extstrtoaddr(ip, port, &a, &len) || (name && (!name[0] ||
			strlen(name) > 253)) ||
			!delegpt_add_addr_tls(h->dp, &a, len, name)) {
			log_err("%s %s: bad address '%s'", what, s->name,
				p->str);
			goto fail;
		}
	}
	if(h->dp->num_ns == 0 && h->dp->num_addr == 0) {
		log_err("%s %s: no hosts or addresses", what, s->name);
		goto fail;
	}
	return h;
fail:
	delegpt_delete(h->dp);
	free(h);
	return NULL;
}

int iter_hints_parse_tfp(const char* str, int* tfp, int max)
{
	int n = 0;
	const char* p = str;
	while(p && *p) {
		char* end;
		long v;
		p = str_skip_blank(p);
		if(!*p)
			break;
		v = strtol(p, &end, 10);
		if(end == p || (*end && *end != ' ' && *end != '\t') ||
			v < -1 || v > 1000 || n >= max)
			return 0;
		tfp[n++] = (int)v;
		p = end;
	}
	return n;
}

/* compat: unbound-1.17: Is a client TLS context wanted: an upstream gets
 * queries over TLS, or CAs are configured (a bad bundle is then a start error,
 * as in Unbound, even before a zone uses it)? */
static int wants_tls(const struct config_file* cfg)
{
	const struct config_stub* s;
	if(cfg->tls_upstream || (cfg->tls_cert_bundle &&
		cfg->tls_cert_bundle[0]) || cfg->tls_system_cert ||
		cfg->tls_win_cert)
		return 1;
	for(s = cfg->stubs; s; s = s->next)
		if(s->ssl_upstream)
			return 1;
	for(s = cfg->forwards; s; s = s->next)
		if(s->ssl_upstream)
			return 1;
	return 0;
}

struct iter_hints* iter_hints_create(const struct config_file* cfg)
{
	struct iter_hints* h = calloc(1, sizeof(*h));
	struct config_strlist* rh, *last = NULL;
	const struct config_stub* s;
	int fwd;
	if(!h) {
		log_err("out of memory");
		return NULL;
	}
	if(!iter_priv_create(cfg, &h->priv) || !iter_caps_exempt_create(cfg,
		&h->caps_exempt, &h->num_caps_exempt)) {
		iter_hints_delete(h);
		return NULL;
	}
	h->tfp_num = iter_hints_parse_tfp(cfg->target_fetch_policy ?
		cfg->target_fetch_policy : "3 2 1 0 0", h->tfp, HINTS_MAX_TFP);
	if(h->tfp_num == 0) {
		log_err("cannot parse target-fetch-policy: \"%s\"",
			cfg->target_fetch_policy);
		iter_hints_delete(h);
		return NULL;
	}
	/* compat: unbound-1.17: the last non-empty root-hints: file is the
	 * one used; each earlier one is read too (a broken one stops the
	 * start) and then dropped with Unbound's line */
	for(rh = cfg->root_hints; rh; rh = rh->next)
		if(rh->str && rh->str[0])
			last = rh;
	for(rh = cfg->root_hints; last && rh != last; rh = rh->next) {
		struct delegpt* extra;
		if(!rh->str || !rh->str[0])
			continue;
		if(!(extra = iter_hints_read_file(rh->str))) {
			iter_hints_delete(h);
			return NULL;
		}
		delegpt_delete(extra);
		log_err("second hints for zone . ignored.");
	}
	{
		struct iter_hint* r = calloc(1, sizeof(*r));
		if(!r) {
			iter_hints_delete(h);
			return NULL;
		}
		/* the file, or (none given) the compiled-in root servers */
		if(last)
			r->dp = iter_hints_read_file(last->str);
		else
			r->dp = iter_hints_builtin_root(cfg->do_ip4 ||
				(cfg->do_nat64 && cfg->do_ip6), cfg->do_ip6);
		if(!r->dp) {
			free(r);
			iter_hints_delete(h);
			return NULL;
		}
		r->is_root = 1;
		r->prime = 1;
		r->next = h->list;
		h->list = r;
		h->root = r;
	}
	if(wants_tls(cfg) && !(h->tls_ctx = tls_client_ctx_create(cfg))) {
		iter_hints_delete(h);
		return NULL;
	}
	for(fwd = 0; fwd < 2; fwd++) {
		for(s = fwd ? cfg->forwards : cfg->stubs; s; s = s->next) {
			struct iter_hint* x = hint_from_stub(s, fwd);
			if(!x) {
				iter_hints_delete(h);
				return NULL;
			}
			x->next = h->list;
			h->list = x;
			/* a stub or forward for "." replaces the root */
			if(x->dp->namelen == 1)
				h->root = x;
		}
	}
	return h;
}

void iter_hints_delete(struct iter_hints* h)
{
	struct iter_hint* x, *n;
	if(!h)
		return;
	iter_priv_delete(h->priv);
	free(h->caps_exempt);
	tls_client_ctx_free(h->tls_ctx);
	for(x = h->list; x; x = n) {
		n = x->next;
		delegpt_delete(x->dp);
		free(x);
	}
	free(h);
}

const struct iter_hint* iter_hints_lookup(const struct iter_hints* h,
	const uint8_t* qname)
{
	const struct iter_hint* x, *best = NULL;
	int bestlabs = -1;
	for(x = h->list; x; x = x->next) {
		int labs;
		if(!dname_subdomain_c(qname, x->dp->name))
			continue;
		labs = dname_count_labels(x->dp->name);
		/* on a tie, a later clause (nearer the list head) wins */
		if(labs > bestlabs) {
			best = x;
			bestlabs = labs;
		}
	}
	return best;
}
