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
#include "services/xfr_source.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
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
	struct auth_zones* az = auth_zones_replaced(d->env->auth, zone,
		content);
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

int daemon_xfr_start(struct daemon* d)
{
	const struct config_auth* c;
	const struct config_file* cfg = d->env->cfg;
	int any = 0, ok = 1;
	SSL_CTX* tls_ctx = NULL;
	for(c = cfg->auths; c; c = c->next)
		if(!c->isrpz && c->name && (c->masters || c->urls))
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
	 * context of TLS upstreams: tls-cert-bundle, tls-system-cert) */
	for(c = cfg->auths; c && !tls_ctx; c = c->next) {
		const struct config_strlist* m;
		if(c->isrpz || !c->name)
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
		sc.tls_ctx = tls_ctx;
		sc.tls_use_sni = cfg->tls_use_sni;
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
}
