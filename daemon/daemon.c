/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/daemon.c - compat: unbound-1.17: start-up order as Unbound's: config
 * is read and checked, sockets are bound, then the process daemonizes, writes
 * its pidfile, chroots and drops privileges, and only then starts the worker
 * threads. The main thread keeps only signals: HUP reloads, TERM/INT stop. */
#include "config.h"
#include "dnstap/dnstap.h"
#include "daemon/daemon.h"
#include "daemon/worker.h"
#include "daemon/worker_wait.h"
#include "daemon/acl_list.h"
#include "services/conn_limit.h"
#include "daemon/wait_limit.h"
#include "daemon/remote.h"
#include "daemon/prometheus.h"
#include "services/listen_dnsport.h"
#include "services/doh.h"
#include "services/tls_server.h"
#include <openssl/ssl.h>
#include "services/authzone.h"
#include "daemon/daemon_xfr.h"
#include "daemon/env_reaper.h"
#include "daemon/reload.h"
#include "daemon/stats_shm.h"
#include "daemon/notify.h"
#include "daemon/stats.h"
#include "services/localzone.h"
#include "services/port_pool.h"
#include "services/kernel_ports.h"
#include "services/modstack.h"
#include "services/cache/infra.h"
#include "services/cache/msgcache.h"
#include "services/cache/rrset.h"
#include "services/cache/rate_ip.h"
#include "iterator/iter_hints.h"
#include "validator/val_anchor.h"
#include "services/cache/neg_cache.h"
#include "util/alloc_policy.h"
#include "util/config_file.h"
#include "util/edns_cookie.h"
#include <openssl/rand.h>
#include "util/log.h"
#include "services/view.h"
#include <event2/event.h>
#include <event2/thread.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* compat: unbound-1.17: Anchor files are opened as Unbound opens them, from
 * inside the chroot and directory:; the process is there once privileges are
 * dropped. */
static enum val_anchor_paths anchor_paths = VAL_PATHS_OUTSIDE;

/* The EDNS options replies may carry, from env's config. */
static void env_reply_options(struct serve_env* env)
{
	const struct config_file* cfg = env->cfg;
	int n = cfg->nsid ? cfg_nsid_parse(cfg->nsid, env->nsid_opt + 4,
		CFG_NSID_MAX) : 0;
	env->nsid_opt_len = 0;
	if(n > 0) {
		env->nsid_opt[0] = 0;
		env->nsid_opt[1] = 3;   /* NSID, RFC 5001 */
		env->nsid_opt[2] = (uint8_t)(n >> 8);
		env->nsid_opt[3] = (uint8_t)n;
		env->nsid_opt_len = 4 + n;
	}
	env->reply_options = cfg->do_answer_cookie || env->nsid_opt_len > 0 ||
		cfg->do_tcp_keepalive;
}

/* The rest of a serve_env from its config; lz is built from cfg when
 * NULL, the anchors read from their files when NULL. Takes both over
 * (freed with env on error). */
static struct serve_env* env_complete(struct serve_env* env)
{
	if(!env->anchors && !(env->anchors = val_anchors_create(env->cfg,
		anchor_paths, val_anchors_in_use(env->cfg))))
		goto fail;
	if(!env->views && !(env->views = views_create(env->cfg)))
		goto fail;
	if(!(env->acl = acl_list_create_views(env->cfg, env->views)))
		goto fail;
	if(!conn_limit_create(env->cfg, &env->conn_limit))
		goto fail;
	if(!(env->wait_blocks = wait_blocks_create(env->cfg)))
		goto fail;
	if(!env->lz && !(env->lz = local_zones_create(env->cfg)))
		goto fail;
	if(!(env->hints = iter_hints_create(env->cfg)))
		goto fail;
	if(!env->auth_refs) {
		if(!auth_zones_create(env->cfg, anchor_paths ==
			VAL_PATHS_INSIDE, &env->auth))
			goto fail;
		/* zonemd-check: a zone that fails is not used */
		auth_zones_zonemd_check(env->auth, env->cfg, env->anchors,
			NULL);
		if(env->auth && !(env->auth_refs = malloc(
			sizeof(*env->auth_refs)))) {
			auth_zones_delete(env->auth);
			env->auth = NULL;
			goto fail;
		}
		if(env->auth_refs)
			atomic_init(env->auth_refs, 1);
	}
	/* a hit in the last 10% of its TTL starts a refresh through the
	 * worker's mesh that bypasses the caches (mesh_new_prefetch) */
	env->serve_policy.prefetch = env->cfg->prefetch;
	env->serve_policy.serve_expired = env->cfg->serve_expired;
	env->serve_policy.roundrobin = env->cfg->rrset_roundrobin;
	env->serve_policy.expired_ttl = (uint32_t)env->cfg->serve_expired_ttl;
	env->serve_policy.expired_reply_ttl =
		(uint32_t)env->cfg->serve_expired_reply_ttl;
	env_reply_options(env);
	return env;
fail:
	serve_env_release(env);
	return NULL;
}

/* compat: unbound-1.21: The cookie secrets: a cookie-secret-file's (read
 * again at each reload; unreadable or malformed: an error), else
 * cookie-secret, else (answer-cookie on) a random one made now and kept in
 * the config, so a derived env keeps it and a reload makes a new one, as
 * Unbound. A derived env (from) keeps from's: the control commands change
 * the file and set them themselves. 0 on error, logged. */
static int env_cookies(struct serve_env* env, const struct serve_env* from)
{
	struct config_file* cfg = env->cfg;
	struct cookie_secrets* s = &env->cookies;
	memset(s, 0, sizeof(*s));
	if(from && (from->cookies.count > 0 ||
		(cfg->cookie_secret_file && cfg->cookie_secret_file[0]))) {
		*s = from->cookies;
		return 1;
	}
	s->gen = cookie_secrets_next_gen();
	if(cfg->cookie_secret_file && cfg->cookie_secret_file[0]) {
		if(!cookie_secrets_read_file(cfg->cookie_secret_file, s)) {
			log_err("Could not setup cookie_secrets");
			return 0;
		}
		return 1;
	}
	if(cfg->cookie_secret_len == 0 && cfg->do_answer_cookie) {
		if(RAND_bytes(cfg->cookie_secret,
			(int)sizeof(cfg->cookie_secret)) != 1) {
			log_err("could not make a random cookie secret");
			return 0;
		}
		cfg->cookie_secret_len = COOKIE_SECRET_SIZE;
	}
	if(cfg->cookie_secret_len == COOKIE_SECRET_SIZE) {
		memcpy(s->secret[0], cfg->cookie_secret, COOKIE_SECRET_SIZE);
		s->count = 1;
	}
	return 1;
}

struct config_file* serve_env_read_config(const char* cfgfile,
	int cmdline_verbose)
{
	struct config_file* cfg = config_create();
	/* a module-config this build cannot run is refused here: at the
	 * start, and at reload (the old config keeps serving) */
	if(!cfg || !config_read(cfg, cfgfile, NULL) || !config_check(cfg) ||
		!config_check_start(cfg) || !modstack_check_cfg(cfg) ||
		!modstack_check_start(cfg)) {
		config_delete(cfg);
		return NULL;
	}
	cfg->verbosity += cmdline_verbose;
	return cfg;
}

struct serve_env* serve_env_build(struct config_file* cfg)
{
	struct serve_env* env = calloc(1, sizeof(*env));
	if(!env) {
		config_delete(cfg);
		return NULL;
	}
	atomic_init(&env->refs, 1);
	env->cfg = cfg;
	if(!env_cookies(env, NULL)) {
		serve_env_release(env);
		return NULL;
	}
	return env_complete(env);
}

struct serve_env* serve_env_create(const char* cfgfile, int cmdline_verbose)
{
	struct config_file* cfg = serve_env_read_config(cfgfile,
		cmdline_verbose);
	return cfg ? serve_env_build(cfg) : NULL;
}

struct serve_env* serve_env_derive(struct config_file* cfg,
	struct local_zones* lz, const struct serve_env* from)
{
	return serve_env_derive_views(cfg, lz, NULL, from);
}

struct serve_env* serve_env_derive_views(struct config_file* cfg,
	struct local_zones* lz, struct views* views,
	const struct serve_env* from)
{
	struct serve_env* env = calloc(1, sizeof(*env));
	if(!env) {
		config_delete(cfg);
		local_zones_delete(lz);
		views_delete(views);
		return NULL;
	}
	atomic_init(&env->refs, 1);
	env->cfg = cfg;
	env->lz = lz;
	env->views = views;
	/* a runtime change keeps the views as they are now (with their own
	 * view_* changes), as Unbound's live views */
	if(!views && from && from->views && !(env->views =
		views_copy(from->views))) {
		serve_env_release(env);
		return NULL;
	}
	if(env->views)
		views_set_flags(env->views, cfg);
	/* domain-insecure may have changed; the anchor files are kept */
	if(from && from->anchors && !(env->anchors =
		val_anchors_derive(from->anchors, cfg))) {
		serve_env_release(env);
		return NULL;
	}
	if(lz)
		local_zones_set_flags(lz, cfg);
	/* the auth zones are not read again: shared with from */
	if(from && from->auth) {
		env->auth = from->auth;
		env->auth_refs = from->auth_refs;
		atomic_fetch_add(env->auth_refs, 1);
	}
	/* the dnstap clause is the same: its stream goes on */
	if(from)
		env->dnstap = dnstap_share(from->dnstap);
	if(from)
		env->ip_rates = rate_ip_share(from->ip_rates);
	if(!env_cookies(env, from)) {
		serve_env_release(env);
		return NULL;
	}
	return env_complete(env);
}

int serve_env_drop(struct serve_env* env)
{
	return env && atomic_fetch_sub(&env->refs, 1) == 1;
}

void serve_env_release(struct serve_env* env)
{
	if(serve_env_drop(env))
		serve_env_free(env);
}

void serve_env_free(struct serve_env* env)
{
	iter_hints_delete(env->hints);
	val_anchors_delete(env->anchors);
	local_zones_delete(env->lz);
	if(env->auth_refs && atomic_fetch_sub(env->auth_refs, 1) == 1) {
		auth_zones_delete(env->auth);
		free(env->auth_refs);
	}
	acl_list_delete(env->acl);
	conn_limit_release(env->conn_limit);
	wait_blocks_delete(env->wait_blocks);
	views_delete(env->views);
	/* the last holder: what the workers queued is written, then the
	 * stream is closed */
	dnstap_delete(env->dnstap);
	rate_ip_delete(env->ip_rates);
	config_delete(env->cfg);
	free(env);
}

int serve_env_start_dnstap(struct serve_env* env,
	const struct serve_env* old, int num_workers)
{
	int failed = 0;
	if(old && dnstap_same_config(old->cfg, env->cfg)) {
		env->dnstap = dnstap_share(old->dnstap);
		return 1;
	}
	env->dnstap = dnstap_create(env->cfg, num_workers, &failed);
	return !failed;
}

/* compat: unbound-1.23: fast_reload applies a new ip-ratelimit-size
 * (Unbound resizes its table in place, keeping the counts); here the
 * table is a fixed array read without a lock, so the new size is a new
 * table built aside and published with the env: the old one goes when
 * the last env holding it does, and the counts start over. */
int serve_env_ip_rates(struct serve_env* env, const struct serve_env* old)
{
	if(old && old->ip_rates &&
		old->cfg->ip_ratelimit_size == env->cfg->ip_ratelimit_size) {
		env->ip_rates = rate_ip_share(old->ip_rates);
		return 1;
	}
	if(!(env->ip_rates = rate_ip_create(env->cfg->ip_ratelimit_size))) {
		log_err("could not create the ip-ratelimit table: out of "
			"memory");
		return 0;
	}
	if(old)
		verbose(VERB_OPS, "reload: ip-ratelimit-size %zu, a new table",
			env->cfg->ip_ratelimit_size);
	return 1;
}

struct serve_env* daemon_env_acquire(struct daemon* d, unsigned* gen)
{
	struct serve_env* env;
	pthread_mutex_lock(&d->env_lock);
	env = d->env;
	atomic_fetch_add(&env->refs, 1);
	*gen = atomic_load(&d->env_gen);
	pthread_mutex_unlock(&d->env_lock);
	return env;
}

/* Logging settings from a config; -dd keeps everything on stderr. */
static void apply_log_settings(struct daemon* d, struct config_file* cfg)
{
	verbosity = (enum verbosity_value)cfg->verbosity;
	log_ident_set(cfg->log_identity);
	log_time_asc(cfg->log_time_ascii);
	log_time_iso_set(cfg->log_time_iso);
	log_thread_id_set(cfg->log_thread_id);
	if(d->debug_mode >= 2)
		log_init(NULL, 0, NULL);
	else	log_init(cfg->logfile, cfg->use_syslog, cfg->chrootdir);
}

void daemon_env_publish(struct daemon* d, struct serve_env* env)
{
	struct serve_env* old;
	pthread_mutex_lock(&d->env_lock);
	old = d->env;
	d->env = env;
	atomic_fetch_add_explicit(&d->env_gen, 1, memory_order_release);
	pthread_mutex_unlock(&d->env_lock);
	serve_env_release(old);
}

/* The DNS over TLS context, when a listener is on a TLS port: from
 * tls-service-pem and -key, read before chroot and the privilege drop.
 * 0 on error (logged, naming the file). */
static int tls_service_start(struct daemon* d, const struct config_file* cfg)
{
	SSL_CTX* ctx;
	if(!listen_sockets_have_tls(d->ports))
		return 1;
	if(!tls_server_configured(cfg)) {
		/* compat: unbound-1.17: as Unbound: without a key the port
		 * serves plain TCP */
		log_warn("a listening port is a tls-port, but tls-service-key "
			"and tls-service-pem are not both set: it serves plain "
			"TCP");
		return 1;
	}
	if(!(ctx = tls_server_ctx_new(cfg, "dot")))
		return 0;
	if(!(d->tls = tls_server_ref_new(ctx)))
		return 0;
	return 1;
}

/* On reload: the certificate and key again; a broken new one leaves the
 * old one serving. */
static void tls_service_reload(struct daemon* d, const struct config_file* cfg)
{
	SSL_CTX* ctx;
	if(!d->tls)
		return;
	if(!tls_server_configured(cfg)) {
		log_err("reload: tls-service-key or tls-service-pem removed; "
			"the TLS port keeps the previous certificate");
		return;
	}
	if(!(ctx = tls_server_ctx_new(cfg, "dot"))) {
		log_err("reload: could not load the new TLS certificate or "
			"key; the previous one keeps serving");
		return;
	}
	tls_server_ref_set(d->tls, ctx);
	verbose(VERB_OPS, "reload: TLS certificate %s and key %s loaded",
		cfg->tls_service_pem, cfg->tls_service_key);
}

static void doh_tls_reload(struct daemon* d, const struct config_file* cfg);

/* No read-ahead for DoH (tls_server turns it on for DoT): with it, the
 * requests of several records are read at once and their answers leave
 * in one TLS record, which dnsperf 2.10's DoH client does not read to
 * its end: it stalls (Python's h2 over ssl does not). One record a
 * wake-up keeps answers in records of their own. */
static void doh_tls_tune(SSL_CTX* ctx)
{
	SSL_CTX_set_read_ahead(ctx, 0);
}

/* Let the kernel draw the ports of its ephemeral range at connect
 * (services/kernel_ports.h) where that keeps every permitted port's
 * chance; else every port is bound by us. At start and reload. */
static void outgoing_kernel_ports(struct port_pool* pool, const uint8_t* avail,
	const struct config_file* cfg)
{
	struct kernel_ports k;
	const char* why;
	kernel_ports_read("/proc/sys/net/ipv4", &k);
	why = cfg->udp_connect ? kernel_ports_refusal(&k, avail) :
		"udp-connect is off";
	if(why) {
		port_pool_set_kernel_range(pool, 0, 0);
		verbose(VERB_OPS, "outgoing udp: every port bound by us (%s)",
			why);
		return;
	}
	port_pool_set_kernel_range(pool, k.lo, k.hi);
	verbose(VERB_OPS, "outgoing udp: ports in %d-%d drawn by the kernel "
		"at connect, the others bound by us", k.lo, k.hi);
}

/* SIGHUP: build a new env from the file; keep the old one on error. */
/* compat: unbound-1.17: reload builds the outside network again in
 * Unbound: here the shared port pool takes the new outgoing-port-permit
 * / -avoid set and outgoing-range, and the workers the new
 * outgoing-num-tcp when they take the new config. Queries upstream now
 * keep their ports (Unbound drops them at reload). */
static void outgoing_reload(struct daemon* d, const struct config_file* cfg)
{
	uint8_t* avail;
	atomic_store(&d->out_num_tcp, cfg->outgoing_num_tcp);
	if(!d->out_ports)   /* not started (the fuzz harnesses' daemon) */
		return;
	avail = malloc(PORT_SET_SIZE);
	if(!avail)
		log_err("reload: out of memory; the outgoing ports stay");
	else if(port_set_from_cfg(avail, cfg) && port_pool_reconfigure(
		d->out_ports, avail, cfg->outgoing_num_ports)) {
		verbose(VERB_OPS, "reload: %d outgoing ports, outgoing-range "
			"%d", port_set_count(avail), cfg->outgoing_num_ports);
		outgoing_kernel_ports(d->out_ports, avail, cfg);
	}
	free(avail);
}

static void refresh_cb(int fd, short ev, void* arg)
{
	(void)fd;
	(void)ev;
	worker_refresh_env(arg);
}

/* Workers take a new env at their next query; what they do before any
 * query (accepting: tcp-connection-limit) should follow the reload too,
 * so each is woken to take it now. A failed post leaves the lazy way. */
static void refresh_workers(struct daemon* d)
{
	int i;
	for(i = 0; d->workers && i < d->num_workers; i++)
		if(d->workers[i])
			(void)worker_post(d->workers[i], refresh_cb,
				d->workers[i]);
}

/* compat: unbound-1.17: as Unbound: the RRset and message caches start
 * empty; the infrastructure cache stays */
static void drop_caches(struct daemon* d)
{
	rrset_cache_flush_all(d->rrset_cache);
	msg_cache_flush_all(d->msg_cache);
	(void)modstack_flush(&d->modules, NULL, MODULE_FLUSH_ALL);
	neg_cache_flush_all(d->neg_cache);
	/* glibc keeps the freed entries' pages in its arenas: without this
	 * RSS stays at the old caches' peak, and repeated reloads fragment
	 * it upward (the soak: +26% in 15 minutes of SIGHUP every 30 s
	 * while the live heap was flat) */
	alloc_policy_trim();
}

/* compat: unbound-1.17: shm-enable: the segments, made after the privilege
 * drop and once the workers run, as Unbound; a failure is logged and the
 * daemon serves without them */
static void shm_start(struct daemon* d, const struct config_file* cfg)
{
	if(!cfg->shm_enable)
		return;
	if(!(d->shm = stats_shm_create(cfg, d->num_workers)))
		log_warn("SHM has failed");
}

/* compat: unbound-1.17: Unbound makes the segments again at each reload;
 * here only when shm-enable or shm-key changed, so a reader never finds
 * them gone while the daemon runs on */
static void shm_reload(struct daemon* d, int changed,
	const struct config_file* n)
{
	if(!changed && (d->shm || !n->shm_enable))
		return;
	stats_shm_delete(d->shm);
	d->shm = NULL;
	shm_start(d, n);
}

/* compat: unbound-1.26: as its fast_reload, a new msg-cache-size,
 * rrset-cache-size or neg-cache-size bounds the shared caches in place
 * (the entries over it, least recently used first, go now; the rest
 * stay); key-cache-size goes through the validator's reload_global.
 * Unlike Unbound's reload, which makes new caches, the slab counts stay
 * until a restart (doc/compat.md): the workers hold the caches. */
static void resize_caches(struct daemon* d, const struct config_file* o,
	const struct config_file* n)
{
	if(n->msg_cache_size != o->msg_cache_size && d->msg_cache) {
		msg_cache_set_max_mem(d->msg_cache, n->msg_cache_size);
		verbose(VERB_OPS, "reload: msg-cache-size %zu",
			n->msg_cache_size);
	}
	if(n->rrset_cache_size != o->rrset_cache_size && d->rrset_cache) {
		rrset_cache_set_max_mem(d->rrset_cache, n->rrset_cache_size);
		verbose(VERB_OPS, "reload: rrset-cache-size %zu",
			n->rrset_cache_size);
	}
	if(n->neg_cache_size != o->neg_cache_size)
		neg_cache_set_max_mem(d->neg_cache, n->neg_cache_size);
	if(n->msg_cache_slabs != o->msg_cache_slabs ||
		n->rrset_cache_slabs != o->rrset_cache_slabs ||
		n->key_cache_slabs != o->key_cache_slabs ||
		n->infra_cache_slabs != o->infra_cache_slabs ||
		n->ratelimit_slabs != o->ratelimit_slabs)
		log_warn("cache slabs changed: takes effect at restart");
}

/* compat: unbound-1.23: as its fast_reload (config_apply's globals, and
 * fr_adjust_cache and fr_adjust_infra): the new cache-min-ttl,
 * cache-max-ttl, cache-max-negative-ttl, cache-min-negative-ttl and
 * serve-original-ttl for what is stored from now on; the infra cache's
 * infra-cache-numhosts and ratelimit-size bounds (in place: the entries
 * over them go now), its infra-host-ttl, infra-cache-min-rtt, -max-rtt,
 * unknown-server-time-limit and infra-keep-probing. The same for reload
 * and SIGHUP, where Unbound makes a new infra cache when a size changed
 * (the RTTs are kept here: doc/compat.md). Set before the env is
 * published: a query of the new config stores with its bounds. */
static void apply_cache_settings(struct daemon* d,
	const struct config_file* o, const struct config_file* n)
{
	struct infra_settings is;
	if(d->msg_cache)
		msg_cache_set_ttls(d->msg_cache, n);
	if(d->rrset_cache)
		rrset_cache_set_ttls(d->rrset_cache, n);
	if(!d->infra)
		return;
	infra_settings_from_cfg(n, &is);
	infra_reconfigure(d->infra, &is);
	if(n->infra_cache_numhosts != o->infra_cache_numhosts)
		verbose(VERB_OPS, "reload: infra-cache-numhosts %d",
			n->infra_cache_numhosts);
	if(n->ratelimit_size != o->ratelimit_size)
		verbose(VERB_OPS, "reload: ratelimit-size %zu",
			n->ratelimit_size);
}

void daemon_reload_apply(struct daemon* d, struct serve_env* env, int full,
	int keep_cache, struct modstack_prep* prep)
{
	const struct config_file* o = d->env->cfg;
	const struct config_file* n = env->cfg;
	int same_sizes = n->msg_cache_size == o->msg_cache_size &&
		n->msg_cache_slabs == o->msg_cache_slabs &&
		n->rrset_cache_size == o->rrset_cache_size &&
		n->rrset_cache_slabs == o->rrset_cache_slabs;
	/* read now: o may be freed once env is published */
	int shm_changed = n->shm_enable != o->shm_enable ||
		n->shm_key != o->shm_key;
	if(n->num_threads != o->num_threads)
		log_warn("num-threads changed: takes effect at restart");
	resize_caches(d, o, n);
	apply_cache_settings(d, o, n);
	apply_log_settings(d, env->cfg);
	outgoing_reload(d, env->cfg);
	tls_service_reload(d, env->cfg);
	doh_tls_reload(d, env->cfg);
	modstack_reload_global(&d->modules, env->cfg, prep);
	daemon_env_publish(d, env);
	refresh_workers(d);
	daemon_xfr_stop(d);
	if(!daemon_xfr_start(d))
		log_err("reload: zone transfers could not be started");
	if(full) {
		daemon_remote_reload_stats(d->rc);
		shm_reload(d, shm_changed, n);
	}
	prom_server_reload(d->prom, env->cfg);
	config_log_unimplemented(env->cfg);
	log_info("service reloaded");
	if(!full || (keep_cache && same_sizes))
		return;
	if(keep_cache)
		log_info("reload: cache sizes changed, the caches are dropped");
	drop_caches(d);
}

const char* daemon_cfgfile_inside(const struct daemon* d)
{
	const char* file = d->cfgfile;
	const char* chr = d->env->cfg->chrootdir;
	/* once chrooted, the file is found relative to the new root */
	if(chr && chr[0] && strncmp(file, chr, strlen(chr)) == 0)
		file += strlen(chr);
	return file;
}

static void signal_cb(evutil_socket_t sig, short ev, void* arg)
{
	struct daemon* d = arg;
	(void)ev;
	switch(sig) {
	case SIGHUP: {
		/* built in a thread: the main thread keeps serving the
		 * control channel and transfers meanwhile */
		struct reload_opts o;
		memset(&o, 0, sizeof(o));
		o.kind = RELOAD_FULL;
		switch(daemon_reload_start(d, &o, NULL, NULL)) {
		case RELOAD_STARTED:
			break;
		case RELOAD_BUSY:   /* read the file again after it */
			d->reload_again = 1;
			break;
		case RELOAD_FAILED: {   /* no thread: in this one */
			struct strbuf b;
			memset(&b, 0, sizeof(b));
			(void)daemon_reload_inline(d, &o, &b);
			strbuf_clear(&b);
			break;
		}
		}
		break;
	}
	case SIGTERM:
	case SIGINT:
	case SIGQUIT:
		verbose(VERB_QUERY, "caught signal %d, exiting", (int)sig);
		event_base_loopbreak(d->base);
		break;
	default:
		break;
	}
}

static int write_pidfile(const char* file)
{
	char buf[32];
	int fd, n;
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if(fd == -1) {
		log_err("cannot write pidfile %s: %s", file, strerror(errno));
		return 0;
	}
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if(write(fd, buf, (size_t)n) != n)
		log_err("cannot write pidfile %s: %s", file, strerror(errno));
	close(fd);
	return 1;
}

static int do_daemonize(void)
{
	int fd;
	pid_t pid = fork();
	if(pid == -1) {
		log_err("fork failed: %s", strerror(errno));
		return 0;
	}
	if(pid != 0)
		_exit(0);
	if(setsid() == -1)
		log_err("setsid failed: %s", strerror(errno));
	if((fd = open("/dev/null", O_RDWR)) != -1) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		if(fd > 2)
			close(fd);
	}
	return 1;
}

/* chdir, chroot and setuid, in that order; 0 on failure. */
static int drop_privileges(struct config_file* cfg, const char* pidfile)
{
	struct passwd* pw = NULL;
	if(cfg->username && cfg->username[0]) {
		if(!(pw = getpwnam(cfg->username))) {
			log_err("user '%s' does not exist", cfg->username);
			return 0;
		}
		/* so the pidfile can be removed after the drop */
		if(pidfile && chown(pidfile, pw->pw_uid, pw->pw_gid) != 0)
			verbose(VERB_QUERY, "chown %s: %s", pidfile,
				strerror(errno));
	}
	if(cfg->chrootdir && cfg->chrootdir[0]) {
		if(chroot(cfg->chrootdir) != 0) {
			log_err("unable to chroot to %s: %s", cfg->chrootdir,
				strerror(errno));
			return 0;
		}
		if(chdir("/") != 0)
			log_err("chdir / failed: %s", strerror(errno));
		verbose(VERB_QUERY, "chroot to %s", cfg->chrootdir);
	}
	if(cfg->directory && cfg->directory[0]) {
		const char* dir = cfg->directory;
		size_t cl = cfg->chrootdir ? strlen(cfg->chrootdir) : 0;
		if(cl && strncmp(dir, cfg->chrootdir, cl) == 0)
			dir += cl;
		if(dir[0] && chdir(dir) != 0) {
			log_err("could not chdir to %s: %s", dir,
				strerror(errno));
			return 0;
		}
	}
	if(pw) {
		if(setgroups(1, &pw->pw_gid) != 0 && errno != EPERM)
			log_warn("setgroups: %s", strerror(errno));
		if(setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) != 0 ||
			setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) != 0) {
			log_err("cannot drop privileges to %s: %s",
				cfg->username, strerror(errno));
			return 0;
		}
		verbose(VERB_QUERY, "drop user privileges, run as %s",
			cfg->username);
	}
	return 1;
}

/* The caches and the port pool all workers share. */
static int create_shared(struct daemon* d, const struct config_file* cfg)
{
	uint8_t* avail = malloc(PORT_SET_SIZE);
	struct infra_settings is;
	if(!avail || !port_set_from_cfg(avail, cfg)) {
		free(avail);
		return 0;
	}
	infra_settings_from_cfg(cfg, &is);
	d->out_ports = port_pool_create(avail, cfg->outgoing_num_ports);
	if(d->out_ports)
		outgoing_kernel_ports(d->out_ports, avail, cfg);
	free(avail);
	atomic_store(&d->out_num_tcp, cfg->outgoing_num_tcp);
	d->infra = infra_create(&is);
	d->msg_cache = msg_cache_create_cfg(cfg);
	d->rrset_cache = rrset_cache_create_cfg(cfg);
	d->neg_cache = neg_cache_create_cfg(cfg, d->rrset_cache);
	if(!d->out_ports || !d->infra || !d->msg_cache || !d->rrset_cache ||
		!d->neg_cache) {
		log_err("could not create the caches");
		return 0;
	}
	/* the modules' own shared state (the validator's key cache); the
	 * stack is the start's (modstack.h) */
	if(!modstack_startup(&d->modules, cfg))
		return 0;
	d->msg_cache->need_checked = d->modules.validates;
	if(!serve_env_ip_rates(d->env, NULL))
		return 0;
	/* after the fork: the I/O thread must be the daemon's */
	return serve_env_start_dnstap(d->env, NULL, d->num_workers);
}

static void delete_shared(struct daemon* d)
{
	msg_cache_delete(d->msg_cache);
	rrset_cache_delete(d->rrset_cache);
	modstack_destartup(&d->modules);
	neg_cache_delete(d->neg_cache);
	infra_delete(d->infra);
	port_pool_delete(d->out_ports);
}

static void stop_workers(struct daemon* d, int started)
{
	int i;
	for(i = 0; i < started; i++)
		worker_stop(d->workers[i]);
	for(i = 0; i < d->num_workers; i++)
		worker_delete(d->workers[i]);
	free(d->workers);
	d->workers = NULL;
}

/* The https-port sockets' TLS (ALPN h2), before chroot: the key files
 * are read now. Without tls-service-key/pem and without
 * http-notls-downstream they serve DNS over TCP (warned); built without
 * libnghttp2, too. 0 on error (a key that does not load). */
static int doh_tls_setup(struct daemon* d, const struct config_file* cfg)
{
	struct listen_sockets* ls = d->ports;
	SSL_CTX* ctx;
	int i, n = 0, plain = 0;
	for(i = 0; i < ls->num; i++)
		n += ls->socks[i].is_https;
	if(n == 0)
		return 1;
	if(!doh_available()) {
		log_warn("https-port %d: built without libnghttp2, served as "
			"DNS over TCP", cfg->https_port);
		plain = 1;
	} else if(cfg->http_notls_downstream) {
		return 1;
	} else if(!tls_server_configured(cfg)) {
		log_warn("https-port %d: no tls-service-key and "
			"tls-service-pem, served as DNS over TCP",
			cfg->https_port);
		plain = 1;
	}
	if(plain) {
		for(i = 0; i < ls->num; i++)
			ls->socks[i].is_https = 0;
		return 1;
	}
	if(!(ctx = tls_server_ctx_new(cfg, "h2")))
		return 0;
	doh_tls_tune(ctx);
	return (d->doh_tls = tls_server_ref_new(ctx)) != NULL;
}

/* On reload, as tls_service_reload: the https-port's key and
 * certificate again; a broken new one leaves the old one serving. */
static void doh_tls_reload(struct daemon* d, const struct config_file* cfg)
{
	SSL_CTX* ctx;
	if(!d->doh_tls)
		return;
	if(!tls_server_configured(cfg) ||
		!(ctx = tls_server_ctx_new(cfg, "h2"))) {
		log_err("reload: could not load the TLS certificate or key for "
			"https-port; the previous one keeps serving");
		return;
	}
	doh_tls_tune(ctx);
	tls_server_ref_set(d->doh_tls, ctx);
}

int daemon_run(struct daemon* d, struct serve_env* env)
{
	static const int sigs[] = { SIGHUP, SIGTERM, SIGINT, SIGQUIT };
	struct event* sigev[4] = { NULL, NULL, NULL, NULL };
	struct config_file* cfg = env->cfg;
	char* pidfile = NULL;
	int i, started = 0, rc = 1;

	evthread_use_pthreads();
	pthread_mutex_init(&d->env_lock, NULL);
	d->env = env;
	atomic_init(&d->env_gen, 1);
	verbosity = (enum verbosity_value)cfg->verbosity;
	/* with -d, start-up errors go to the terminal */
	if(!d->debug_mode)
		apply_log_settings(d, cfg);
	config_log_unimplemented(cfg);
	signal(SIGPIPE, SIG_IGN);
	if(!dnstap_config_ok(cfg))
		goto out;
	/* before chroot: the socket's path may be outside it */
	if(daemon_notify_create(&d->notify) == NOTIFY_FAILED)
		goto out;

	/* compat: unbound-1.17: said whatever -d says (Unbound's check
	 * reads the option only) */
	if(cfg->use_systemd && cfg->do_daemonize)
		log_warn("use-systemd and do-daemonize should not be enabled "
			"at the same time");
	d->num_workers = cfg->num_threads;
	d->ports = listen_sockets_open(cfg, d->num_workers);
	if(!d->ports) {
		log_err("could not open ports");
		goto out;
	}
	if(!doh_tls_setup(d, cfg))
		goto out;
	if(!tls_service_start(d, cfg))
		goto out;
	/* control sockets and keys before chroot and the privilege drop */
	if(!(d->rc = daemon_remote_create(d, cfg)))
		goto out;
	if(!(d->prom = prom_server_create(d, cfg)))
		goto out;
	if(cfg->do_daemonize && !d->debug_mode && !do_daemonize())
		goto out;
	if(cfg->pidfile && cfg->pidfile[0] && write_pidfile(cfg->pidfile))
		pidfile = strdup(cfg->pidfile);
	if(!drop_privileges(cfg, pidfile))
		goto out;
	anchor_paths = VAL_PATHS_INSIDE;
	/* RFC 5011 updates are written from here on: fail now, not later */
	if(!val_anchors_check_writable(d->env->anchors))
		goto out;
	if(d->debug_mode)
		apply_log_settings(d, cfg);

	d->base = event_base_new();
	if(!d->base)
		goto out;
	for(i = 0; i < 4; i++) {
		sigev[i] = evsignal_new(d->base, sigs[i], signal_cb, d);
		if(!sigev[i] || event_add(sigev[i], NULL) != 0)
			goto out;
	}
	if(!create_shared(d, cfg))
		goto out;
	if(!(d->reaper = env_reaper_create()))
		goto out;
	d->workers = calloc((size_t)d->num_workers, sizeof(*d->workers));
	if(!d->workers)
		goto out;
	{
		char why[160];
		d->wait_uring = worker_wait_probe(why, sizeof(why));
		if(!d->wait_uring)
			verbose(VERB_OPS, "workers wait in epoll, not io_uring: "
				"%s", why);
	}
	for(i = 0; i < d->num_workers; i++)
		if(!(d->workers[i] = worker_create(d, i)))
			goto out;
	for(; started < d->num_workers; started++)
		if(!worker_start(d->workers[started]))
			goto out;
	if(!daemon_remote_start(d->rc, d->base))
		goto out;
	if(!prom_server_start(d->prom, d->base))
		goto out;
	if(!daemon_xfr_start(d))
		goto out;
	shm_start(d, cfg);
	/* compat: unbound-1.17: READY=1 once every worker serves, before
	 * the "start of service" line; a failure stops the start, as
	 * Unbound's fatal error */
	if(!daemon_notify_send(d->notify, "READY=1"))
		goto out;
	log_info("start of service (unbound %s).", PACKAGE_VERSION);
	event_base_dispatch(d->base);
	(void)daemon_notify_send(d->notify, "STOPPING=1");
	log_info("service stopped (unbound %s).", PACKAGE_VERSION);
	rc = 0;
out:
	/* a reload being built: waited for, and dropped */
	daemon_reload_stop(d);
	prom_server_delete(d->prom);
	d->prom = NULL;
	daemon_remote_delete(d->rc);
	d->rc = NULL;
	/* compat: unbound-1.17: the segments are removed at exit */
	stats_shm_delete(d->shm);
	d->shm = NULL;
	if(d->workers)
		stop_workers(d, started);
	env_reaper_delete(d->reaper);
	d->reaper = NULL;
	for(i = 0; i < 4; i++)
		if(sigev[i])
			event_free(sigev[i]);
	daemon_xfr_delete(d);
	if(d->base)
		event_base_free(d->base);
	delete_shared(d);
	tls_server_ref_free(d->doh_tls);
	d->doh_tls = NULL;
	listen_sockets_close(d->ports);
	tls_server_ref_free(d->tls);
	d->tls = NULL;
	if(pidfile) {
		const char* p = pidfile;
		size_t cl = d->env->cfg->chrootdir ?
			strlen(d->env->cfg->chrootdir) : 0;
		/* inside the chroot the path is relative to it */
		if(cl && strncmp(p, d->env->cfg->chrootdir, cl) == 0)
			p += cl;
		if(unlink(p) != 0)
			verbose(VERB_OPS, "could not remove pidfile %s: %s",
				p, strerror(errno));
		free(pidfile);
	}
	daemon_notify_delete(d->notify);
	d->notify = NULL;
	serve_env_release(d->env);
	pthread_mutex_destroy(&d->env_lock);
	libevent_global_shutdown();
	return rc;
}
