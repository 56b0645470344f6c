/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/remote_zones.c - compat: unbound-1.17: the unbound-control commands
 * that change where queries go and the run-time options: forward, forward_add,
 * forward_remove, stub_add, stub_remove, insecure_add, insecure_remove,
 * list_insecure (and set_option, in remote_option.c), with Unbound 1.17's
 * arguments and answers.
 *
 * Each change is made to a copy of the current config (the stub-zone:
 * and forward-zone: clauses, domain-insecure:, the option) and published
 * as a new serve_env built from it, with the current local zones copied
 * over (so local_data changes stay). Workers pick it up before their
 * next query; a reload forgets the change, as in Unbound. The trust
 * anchors of the new env are derived from the current ones
 * (val_anchors_derive): domain-insecure from the new config, the
 * anchor files not read again. */
#include "config.h"
#include "daemon/remote_cmd.h"
#include "daemon/daemon.h"
#include "services/localzone.h"
#include "respip/rpz.h"
#include "iterator/iter_hints.h"
#include "iterator/delegpt.h"
#include "validator/val_anchor.h"
#include "services/cache/neg_cache.h"
#include "util/config_file.h"
#include "util/config_options.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/net_help.h"
#include "util/strutil.h"
#include <ldns/ldns.h>
#include <stdlib.h>
#include <string.h>

static int word_is(const char* p, const char* cmd)
{
	size_t n = strlen(cmd);
	return strncmp(p, cmd, n) == 0 && (p[n] == 0 || p[n] == ' ' ||
		p[n] == '\t');
}

void rc_publish_cfg(struct daemon_remote* rc, struct config_file* cfg,
	const char* err, struct strbuf* b)
{
	struct local_zones* lz = local_zones_copy(rc->d->env->lz);
	struct serve_env* env;
	if(!lz) {
		config_delete(cfg);
		strbuf_printf(b, "error out of memory\n");
		return;
	}
	if(!(env = serve_env_derive(cfg, lz, rc->d->env))) {
		strbuf_printf(b, "%s\n", err);
		return;
	}
	daemon_env_publish(rc->d, env);
	strbuf_printf(b, "ok\n");
}

/* Does the config name text s name the zone nm? */
static int name_matches(const char* s, const uint8_t* nm)
{
	uint8_t w[LDNS_MAX_DOMAINLEN + 1];
	return s && dname_from_str(s, w) && query_dname_compare(w, nm) == 0;
}

static void stub_free(struct config_stub* s)
{
	free(s->name);
	cfg_strlist_delete(s->hosts);
	cfg_strlist_delete(s->addrs);
	free(s);
}

/* Take the clause for nm out of the list; 1 if there was one. */
static int stubs_remove(struct config_stub** list, const uint8_t* nm)
{
	int found = 0;
	while(*list) {
		if(name_matches((*list)->name, nm)) {
			struct config_stub* s = *list;
			*list = s->next;
			stub_free(s);
			found = 1;
		} else	list = &(*list)->next;
	}
	return found;
}

/* domain-insecure: add (once) or remove nm. 0 on OOM. */
static int insecure_set(struct config_file* cfg, const uint8_t* nm, int add)
{
	struct config_strlist** p = &cfg->domain_insecure;
	char text[1100];
	while(*p) {
		if(name_matches((*p)->str, nm)) {
			struct config_strlist* s = *p;
			if(add)
				return 1;
			*p = s->next;
			free(s->str);
			free(s);
		} else	p = &(*p)->next;
	}
	if(!add)
		return 1;
	dname_to_str(nm, text, sizeof(text));
	return cfg_strlist_append(&cfg->domain_insecure, text);
}

/* compat: unbound-1.17: Unbound's parse_fs_args: "+i", "+p" flags (only those
 * in allowed), the zone name, and for an add the servers. */
struct fs_args {
	int insecure, prime;
	uint8_t nm[LDNS_MAX_DOMAINLEN + 1];
	char* servers;      /* the rest of the line (adds) */
};

static int parse_fs_args(char* args, const char* allowed, int servers,
	struct fs_args* a, struct strbuf* b)
{
	char* rest, *zone;
	memset(a, 0, sizeof(*a));
	args = str_skip_blank(args);
	while(args[0] == '+') {
		if(!rc_find_arg2(args, &rest, b))
			return 0;
		while(*(++args) != 0) {
			if(!strchr(allowed, *args)) {
				strbuf_printf(b, "error: unknown option %s\n",
					args);
				return 0;
			}
			if(*args == 'i')
				a->insecure = 1;
			else	a->prime = 1;
		}
		args = rest;
	}
	zone = args;
	if(servers) {
		if(!rc_find_arg2(args, &rest, b))
			return 0;
		a->servers = rest;
	}
	return rc_parse_name(zone, a->nm, b);
}

static void strlist_reverse(struct config_strlist** list)
{
	struct config_strlist* p = *list, *r = NULL;
	while(p) {
		struct config_strlist* n = p->next;
		p->next = r;
		r = p;
		p = n;
	}
	*list = r;
}

/* The servers of an add ("IP[@port][#name]" or a host name) into a new
 * clause for nm; NULL (error in b) when one does not parse. */
static struct config_stub* servers_clause(const uint8_t* nm, char* list,
	struct strbuf* b)
{
	struct config_stub* s = calloc(1, sizeof(*s));
	char text[1100], *w;
	int n = 0;
	if(!s) {
		strbuf_printf(b, "error out of memory\n");
		return NULL;
	}
	dname_to_str(nm, text, sizeof(text));
	if(!(s->name = strdup(text)))
		goto oom;
	while(*(list = str_skip_blank(list))) {
		struct sockaddr_storage addr;
		socklen_t len;
		char ip[256], *h;
		uint8_t host[LDNS_MAX_DOMAINLEN + 1];
		w = list;
		while(*list && *list != ' ' && *list != '\t')
			list++;
		if(*list)
			*list++ = 0;
		snprintf(ip, sizeof(ip), "%s", w);
		if((h = strchr(ip, '#')) != NULL)
			*h = 0;
		if(strlen(w) < sizeof(ip) && extstrtoaddr(ip, 53, &addr,
			&len)) {
			if(!cfg_strlist_append(&s->addrs, w))
				goto oom;
		} else if(dname_from_str(w, host)) {
			if(!cfg_strlist_append(&s->hosts, w))
				goto oom;
		} else {
			strbuf_printf(b, "error cannot parse '%s'\n", w);
			stub_free(s);
			return NULL;
		}
		if(++n > 64) {
			strbuf_printf(b, "error too many servers (at most "
				"64)\n");
			stub_free(s);
			return NULL;
		}
	}
	/* compat: unbound-1.17: Unbound puts each server in front: it lists
	 * them last first */
	strlist_reverse(&s->addrs);
	strlist_reverse(&s->hosts);
	return s;
oom:
	strbuf_printf(b, "error out of memory\n");
	stub_free(s);
	return NULL;
}

/* forward_add / stub_add (stub 1), forward_remove / stub_remove (add 0) */
static void do_fs(struct daemon_remote* rc, char* args, int stub, int add,
	struct strbuf* b)
{
	struct fs_args a;
	struct config_stub* s = NULL;
	struct config_file* cfg;
	if(!parse_fs_args(args, add && stub ? "ip" : "i", add, &a, b))
		return;
	if(add && !(s = servers_clause(a.nm, a.servers, b)))
		return;
	if(!(cfg = config_copy(rc->d->env->cfg))) {
		if(s)
			stub_free(s);
		strbuf_printf(b, "error out of memory\n");
		return;
	}
	(void)stubs_remove(stub ? &cfg->stubs : &cfg->forwards, a.nm);
	if(s) {
		/* compat: unbound-1.17: Unbound: stub_add primes only with +p
		 */
		s->isprime = a.prime;
		s->next = stub ? cfg->stubs : cfg->forwards;
		if(stub)
			cfg->stubs = s;
		else	cfg->forwards = s;
	}
	if(a.insecure && !insecure_set(cfg, a.nm, add)) {
		config_delete(cfg);
		strbuf_printf(b, "error out of memory\n");
		return;
	}
	/* +i: as insecure_add below */
	if(a.insecure && add)
		(void)neg_cache_flush_zone(rc->d->neg_cache, a.nm);
	rc_publish_cfg(rc, cfg, "error out of memory", b);
}

static void print_forward_root(struct daemon_remote* rc, struct strbuf* b);

/* forward: print the root's forwarders; off; or set them. */
static void do_forward(struct daemon_remote* rc, char* args,
	struct strbuf* b)
{
	struct config_file* cfg;
	struct config_stub* s = NULL, *f;
	static const uint8_t root[1] = { 0 };
	args = str_skip_blank(args);
	if(!*args) {
		for(f = rc->d->env->cfg->forwards; f; f = f->next)
			if(name_matches(f->name, root))
				break;
		if(!f) {
			strbuf_printf(b, "off (using root hints)\n");
			return;
		}
		print_forward_root(rc, b);
		return;
	}
	if(strcmp(args, "off") != 0 && !(s = servers_clause(root, args, b)))
		return;
	if(!(cfg = config_copy(rc->d->env->cfg))) {
		if(s)
			stub_free(s);
		strbuf_printf(b, "error out of memory\n");
		return;
	}
	(void)stubs_remove(&cfg->forwards, root);
	if(s) {
		s->next = cfg->forwards;
		cfg->forwards = s;
	}
	rc_publish_cfg(rc, cfg, "error out of memory", b);
}

static void do_insecure(struct daemon_remote* rc, char* arg, int add,
	struct strbuf* b)
{
	uint8_t nm[LDNS_MAX_DOMAINLEN + 1];
	struct config_file* cfg;
	if(!rc_parse_name(str_skip_blank(arg), nm, b))
		return;
	if(!(cfg = config_copy(rc->d->env->cfg)) ||
		!insecure_set(cfg, nm, add)) {
		config_delete(cfg);
		strbuf_printf(b, "error out of memory\n");
		return;
	}
	/* the NSECs kept for aggressive answers there are not secure any
	 * more: the validator no longer uses them, and they go now */
	if(add)
		(void)neg_cache_flush_zone(rc->d->neg_cache, nm);
	rc_publish_cfg(rc, cfg, "error out of memory", b);
}

static void print_forward_root(struct daemon_remote* rc, struct strbuf* b)
{
	const struct iter_hint* h;
	const struct delegpt_ns* ns;
	const struct delegpt_addr* a;
	char text[1100];
	int first = 1;
	for(h = rc->d->env->hints ? rc->d->env->hints->list : NULL; h;
		h = h->next)
		if(h->is_forward && h->dp && h->dp->name[0] == 0)
			break;
	if(!h) {
		strbuf_printf(b, "off (using root hints)\n");
		return;
	}
	/* compat: unbound-1.17: as Unbound: the names, then the addresses,
	 * without a port */
	for(ns = h->dp->nslist; ns; ns = ns->next, first = 0) {
		dname_to_str(ns->name, text, sizeof(text));
		strbuf_printf(b, "%s%s", first ? "" : " ", text);
	}
	for(a = h->dp->addrs; a; a = a->next, first = 0) {
		addr_to_str(&a->addr, a->addrlen, text, sizeof(text));
		strbuf_printf(b, "%s%s", first ? "" : " ", text);
	}
	strbuf_printf(b, "\n");
}

/* compat: unbound-1.17: list_insecure: as Unbound, the domain-insecure points
 * in the order of its anchor tree; a name with both an anchor and
 * domain-insecure has keys and is not listed, nor is an anchor whose
 * algorithms are all unsupported (insecure too, but configured with keys). */
static void do_list_insecure(struct daemon_remote* rc, struct strbuf* b)
{
	const struct val_anchors* a = rc->d->env->anchors;
	size_t i;
	/* compat: unbound-1.17: as Unbound: without a validating module
	 * there are no trust anchors to list (the default module-config has
	 * one) */
	if(!rc->d->modules.validates)
		return;
	for(i = 0; i < val_anchors_count(a); i++) {
		const struct val_anchor* p = val_anchors_get(a, i);
		char text[1100];
		if(p->kind != VAL_ANCHOR_INSECURE)
			continue;
		dname_to_str(p->name, text, sizeof(text));
		strbuf_printf(b, "%s\n", text);
	}
}

/* compat: unbound-1.17: rpz_enable/rpz_disable NAME: "ok", or "error
 * no auth-zone NAME", "error auth-zone NAME not RPZ" as Unbound says. */
static void do_rpz_switch(struct daemon_remote* rc, char* args, int enable,
	struct strbuf* b)
{
	char* arg = str_skip_blank(args);
	uint8_t nm[LDNS_MAX_DOMAINLEN + 1];
	const struct config_auth* a;
	if(!rc_parse_name(arg, nm, b))
		return;
	for(a = rc->d->env->cfg->auths; a; a = a->next) {
		uint8_t have[LDNS_MAX_DOMAINLEN + 1];
		if(a->name && dname_from_str(a->name, have) &&
			query_dname_compare(have, nm) == 0)
			break;
	}
	if(!a) {
		strbuf_printf(b, "error no auth-zone %s\n", arg);
		return;
	}
	if(!a->isrpz) {
		strbuf_printf(b, "error auth-zone %s not RPZ\n", arg);
		return;
	}
	if(!rpz_switch_set(nm, enable)) {
		strbuf_printf(b, "error out of memory\n");
		return;
	}
	strbuf_printf(b, "ok\n");
}

int rc_zones_cmd(struct daemon_remote* rc, const char* p, char* args,
	struct strbuf* b)
{
	if(word_is(p, "forward_add"))
		do_fs(rc, args, 0, 1, b);
	else if(word_is(p, "forward_remove"))
		do_fs(rc, args, 0, 0, b);
	else if(word_is(p, "stub_add"))
		do_fs(rc, args, 1, 1, b);
	else if(word_is(p, "stub_remove"))
		do_fs(rc, args, 1, 0, b);
	else if(word_is(p, "forward"))
		do_forward(rc, args, b);
	else if(word_is(p, "insecure_add"))
		do_insecure(rc, args, 1, b);
	else if(word_is(p, "insecure_remove"))
		do_insecure(rc, args, 0, b);
	else if(word_is(p, "list_insecure"))
		do_list_insecure(rc, b);
	else if(word_is(p, "set_option"))
		rc_do_set_option(rc, args, b);
	else if(word_is(p, "rpz_enable"))
		do_rpz_switch(rc, args, 1, b);
	else if(word_is(p, "rpz_disable"))
		do_rpz_switch(rc, args, 0, b);
	else	return 0;
	return 1;
}
