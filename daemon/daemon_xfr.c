/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/daemon_xfr.c - compat: unbound-1.17: auth-zone's primary: and
 * allow-notify: in the daemon: one transfer engine, its sources made
 * from the config at start and at each reload (a reload starts them
 * again from the zone files, as Unbound's), and the consumer that turns
 * a new version into a new serve_env in the main thread. */
#include "config.h"
#include "daemon/daemon_xfr.h"
#include "daemon/daemon.h"
#include "services/authzone.h"
#include "services/localzone.h"
#include "services/tls_client.h"
#include "services/xfr_consumer.h"
#include "services/xfr_source.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void daemon_publish_auth(struct daemon* d, struct auth_zones* az)
{
	struct serve_env* cur = d->env;
	struct config_file* cfg = config_copy(cur->cfg);
	struct local_zones* lz = local_zones_copy(cur->lz);
	struct serve_env* env;
	if(!cfg || !lz) {
		config_delete(cfg);
		local_zones_delete(lz);
		auth_zones_delete(az);
		log_err("out of memory publishing an auth zone");
		return;
	}
	if(!(env = serve_env_derive(cfg, lz, cur))) {
		auth_zones_delete(az);
		return;
	}
	/* the derived env shares cur's auth zones: swap in the new ones */
	if(env->auth_refs)
		atomic_fetch_sub(env->auth_refs, 1);   /* cur still holds it */
	if(!(env->auth_refs = malloc(sizeof(*env->auth_refs)))) {
		env->auth = NULL;
		serve_env_release(env);
		auth_zones_delete(az);
		return;
	}
	atomic_init(env->auth_refs, 1);
	env->auth = az;
	daemon_env_publish(d, env);
}

/* The consumer: the zone's new content into a new env. */
static void publish_zone(void* arg, const uint8_t* zone,
	struct xfr_rrs* content)
{
	struct daemon* d = arg;
	struct auth_zones* az;
	if(!d->xfr) {
		/* run by daemon_xfr_delete's drain at exit: dropped */
		if(content) {
			xfr_rrs_clear(content);
			free(content);
		}
		return;
	}
	az = auth_zones_replaced(d->env->auth, zone, content);
	if(content) {
		xfr_rrs_clear(content);
		free(content);
	}
	if(az)   /* else a reload removed the zone, or logged */
		daemon_publish_auth(d, az);
}

static int zonemd_accept(void* arg, const struct xfr_rrs* content)
{
	return auth_zonemd_accept(arg, content);
}

static void zonemd_free(void* arg)
{
	auth_zonemd_delete(arg);
}

/* A zone file's path as the process opens it now (inside the chroot). */
char* daemon_xfr_inside_path(const struct config_file* cfg, const char* f)
{
	const char* chr = cfg->chrootdir && cfg->chrootdir[0] ?
		cfg->chrootdir : NULL;
	if(chr && strncmp(f, chr, strlen(chr)) == 0)
		f += strlen(chr);
	return strdup(f);
}

/* What add_consumer needs besides the zone. */
struct consumer_arg {
	struct daemon* d;
	SSL_CTX* tls_ctx;   /* for primaries written ADDR#name; or NULL */
};

/* A module's zone (services/xfr_consumer.h) as a source. compat:
 * unbound-1.17: an rpz: clause's primary: takes the forms an auth-zone's
 * does (ADDR@port, ADDR#name over TLS), as both are auth zones there. */
static int add_consumer(void* arg, const struct xfr_consumer* c)
{
	struct consumer_arg* ca = arg;
	struct daemon* d = ca->d;
	const struct config_file* cfg = d->env->cfg;
	struct xfr_source_cfg sc;
	struct xfr_rrs content;
	int ok;
	if(!c->primaries && !c->urls)
		return 1;   /* listed only */
	xfr_rrs_init(&content);
	if(c->content && !c->content(c->arg, c->zone, &content)) {
		xfr_rrs_clear(&content);
		log_err("out of memory");
		return 0;
	}
	memset(&sc, 0, sizeof(sc));
	sc.zone = c->zone;
	sc.primaries = c->primaries;
	sc.allow_notify = c->allow_notify;
	sc.urls = c->urls;
	sc.cabundle = d->env->cfg->tls_cert_bundle;
	sc.zonefile = c->zonefile;
	sc.max_transfer_size = c->max_transfer_size;
	sc.max_transfer_time = c->max_transfer_time;
	sc.cabundle = cfg->tls_cert_bundle;
	sc.tls_ctx = ca->tls_ctx;
	sc.tls_use_sni = cfg->tls_use_sni;
	sc.tcp_mss = cfg->outgoing_tcp_mss;
	sc.tls_port = cfg->tls_port;
	sc.dns_port = cfg->port;
	sc.publish = c->publish;
	sc.publish_arg = c->arg;
	ok = xfr_engine_add(d->xfr, &sc, &content);
	xfr_rrs_clear(&content);
	return ok;
}

int daemon_xfr_start(struct daemon* d)
{
	const struct config_auth* c;
	const struct config_file* cfg = d->env->cfg;
	int any = 0, ok = 1;
	SSL_CTX* tls_ctx = NULL;
	for(c = cfg->auths; c; c = c->next)
		if(!c->isrpz && c->name && (c->masters || c->urls))
			any = 1;
	if(xfr_consumer_any())
		any = 1;
	if(!any)
		return 1;
	if(!d->xfr) {
		struct xfr_engine* e = xfr_engine_create(d->base,
			publish_zone, d);
		if(!e) {
			log_err("out of memory");
			return 0;
		}
		/* workers read it for NOTIFY */
		__atomic_store_n(&d->xfr, e, __ATOMIC_RELEASE);
	}
	/* one TLS client context for the primaries written ADDR#name (the
	 * context of TLS upstreams: tls-cert-bundle, tls-system-cert), of
	 * auth-zone: and rpz: clauses */
	for(c = cfg->auths; c && !tls_ctx; c = c->next) {
		const struct config_strlist* m;
		if(!c->name)
			continue;
		for(m = c->masters; m; m = m->next)
			if(strchr(m->str, '#'))
				break;
		if(m && !(tls_ctx = tls_client_ctx_create(cfg)))
			return 0;   /* logged, naming the bundle */
	}
	for(c = cfg->auths; c && ok; c = c->next) {
		struct xfr_source_cfg sc;
		struct xfr_rrs content;
		uint8_t zone[256];
		char* path = NULL;
		if(c->isrpz || !c->name || (!c->masters && !c->urls))
			continue;
		if(!dname_from_str(c->name, zone))
			continue;   /* reported when the zone was built */
		if(!auth_zone_content(d->env->auth, zone, &content)) {
			log_err("out of memory");
			tls_client_ctx_free(tls_ctx);
			return 0;
		}
		if(c->zonefile && c->zonefile[0] && !(path =
			daemon_xfr_inside_path(cfg, c->zonefile))) {
			xfr_rrs_clear(&content);
			log_err("out of memory");
			tls_client_ctx_free(tls_ctx);
			return 0;
		}
		memset(&sc, 0, sizeof(sc));
		sc.zone = zone;
		sc.primaries = c->masters;
		sc.allow_notify = c->allow_notify;
		sc.urls = c->urls;
		sc.cabundle = cfg->tls_cert_bundle;
		/* compat: unbound-1.17: PACKAGE_NAME/PACKAGE_VERSION unless
		 * http-user-agent is set (Unbound's is "unbound/1.17.1") */
		sc.user_agent = cfg->hide_http_user_agent ? NULL :
			cfg->http_user_agent && cfg->http_user_agent[0] ?
			cfg->http_user_agent : PACKAGE_NAME "/" PACKAGE_VERSION;
		sc.tls_ctx = tls_ctx;
		sc.tls_use_sni = cfg->tls_use_sni;
		sc.tcp_mss = cfg->outgoing_tcp_mss;
		sc.tls_port = cfg->tls_port;
		sc.dns_port = cfg->port;
		sc.zonefile = path;
		sc.max_transfer_size = c->max_transfer_size;
		sc.max_transfer_time = c->max_transfer_time;
		/* zonemd-check: each transferred version is checked in the
		 * transfer thread before it is taken */
		if((sc.accept_arg = auth_zonemd_create(cfg, d->env->anchors,
			zone)) != NULL) {
			sc.accept = zonemd_accept;
			sc.accept_free = zonemd_free;
		}
		ok = xfr_engine_add(d->xfr, &sc, &content);
		xfr_rrs_clear(&content);
		free(path);
	}
	if(ok) {
		struct consumer_arg ca = { d, tls_ctx };
		ok = xfr_consumer_each(add_consumer, &ca);
	}
	/* each source holds its own reference */
	tls_client_ctx_free(tls_ctx);
	if(!ok)
		return 0;
	return xfr_engine_start(d->xfr);
}

void daemon_xfr_stop(struct daemon* d)
{
	xfr_engine_stop(d->xfr);
}

void daemon_xfr_delete(struct daemon* d)
{
	/* at exit, after the workers stopped */
	xfr_engine_delete(d->xfr);
	d->xfr = NULL;
	/* A version the engine handed over (event_base_once on the main
	 * base) after the loop's last turn is still queued there, and
	 * event_base_free would free the event but not its content (a
	 * leak at shutdown under ASan): one more turn runs it, and
	 * publish_zone drops it. The signal events are gone by now. */
	if(d->base)
		(void)event_base_loop(d->base, EVLOOP_NONBLOCK);
}

/* list_auth_zones: the auth zones' lines and the modules' zones, sorted
 * together by name. */
struct zone_line {
	uint8_t name[256];
	char* line;
};

struct zone_lines {
	struct zone_line* v;
	size_t n, cap;
	int oom;
};

static void lines_add(struct zone_lines* l, const uint8_t* name,
	const char* line)
{
	if(l->oom)
		return;
	if(l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		struct zone_line* v = realloc(l->v, cap * sizeof(*v));
		if(!v) {
			l->oom = 1;
			return;
		}
		l->v = v;
		l->cap = cap;
	}
	memcpy(l->v[l->n].name, name, dname_valid(name, 256));
	if(!(l->v[l->n].line = strdup(line))) {
		l->oom = 1;
		return;
	}
	l->n++;
}

static void auth_line(void* arg, const char* line)
{
	uint8_t nm[256];
	char zn[LDNS_MAX_DOMAINLEN * 4 + 8];
	size_t k = strcspn(line, "\t");
	snprintf(zn, sizeof(zn), "%.*s", (int)k, line);
	if(dname_from_str(zn, nm))
		lines_add(arg, nm, line);
}

static int module_line(void* arg, const struct xfr_consumer* c)
{
	char zn[LDNS_MAX_DOMAINLEN * 4 + 8], line[sizeof(zn) + 64];
	uint32_t serial = 0;
	dname_to_str(c->zone, zn, sizeof(zn));
	/* compat: unbound-1.17: its rpz: zones are auth zones, listed */
	if(c->serial && c->serial(c->arg, c->zone, &serial))
		snprintf(line, sizeof(line), "%s\tserial %u\n", zn,
			(unsigned)serial);
	else	snprintf(line, sizeof(line), "%s\tno serial\n", zn);
	lines_add(arg, c->zone, line);
	return 1;
}

static int line_order(const void* a, const void* b)
{
	return dname_tree_compare(((const struct zone_line*)a)->name,
		((const struct zone_line*)b)->name);
}

int daemon_list_zones(struct daemon* d,
	void (*out)(void* arg, const char* line), void* arg)
{
	struct zone_lines l;
	size_t i;
	int ok;
	memset(&l, 0, sizeof(l));
	ok = auth_zones_list(d->env->auth, auth_line, &l);
	(void)xfr_consumer_each(module_line, &l);
	ok = ok && !l.oom;
	if(ok) {
		qsort(l.v, l.n, sizeof(*l.v), line_order);
		for(i = 0; i < l.n; i++)
			out(arg, l.v[i].line);
	}
	for(i = 0; i < l.n; i++)
		free(l.v[i].line);
	free(l.v);
	return ok;
}
