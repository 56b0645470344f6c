/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/daemon.h - the daemon's life cycle: config snapshots, listening
 * sockets, worker threads, signals and reload.
 *
 * Threads share only the current serve_env (immutable once published),
 * the listening sockets and the caches (which lock inside). A reload builds a whole new serve_env and
 * publishes it; workers pick it up before their next query and the old
 * one is freed when the last worker lets go of it. */
#ifndef DAEMON_DAEMON_H
#define DAEMON_DAEMON_H
#include <pthread.h>
#include <stdatomic.h>
#include "services/cache/msgcache.h"
#include "services/modstack.h"
#include "util/edns_cookie.h"
#include "util/config_options.h"

struct config_file;
struct acl_list;
struct conn_limit;
struct wait_blocks;
struct local_zones;
struct iter_hints;
struct listen_sockets;
struct port_pool;
struct infra_cache;
struct msg_cache;
struct rrset_cache;
struct rate_ip_table;
struct val_anchors;
struct xfr_engine;
typedef struct ssl_ctx_st SSL_CTX;
struct worker;
struct event_base;
struct daemon_remote;
struct prom_server;
struct val_anchors;

/* Everything a worker needs to answer, built from one config. Read-only
 * once built (serve_env_create, serve_env_build, serve_env_derive*),
 * shared by the workers by reference count. */
struct serve_env {
	struct config_file* cfg;
	struct acl_list* acl;
	/* tcp-connection-limit (services/conn_limit.h), NULL without */
	struct conn_limit* conn_limit;
	/* wait-limit-netblock lines and the loopback's defaults
	 * (daemon/wait_limit.h) */
	struct wait_blocks* wait_blocks;
	struct local_zones* lz;
	/* view: clauses (services/view.h); the acl points into them */
	struct views* views;
	/* auth-zone: zones (services/authzone.h), NULL without any;
	 * shared with a derived env (auth_refs) */
	struct auth_zones* auth;
	atomic_int* auth_refs;
	struct iter_hints* hints;   /* root hints, stub and forward zones */
	struct val_anchors* anchors; /* trust anchors and domain-insecure */
	struct msg_serve_policy serve_policy; /* serve-expired, prefetch */
	struct cookie_secrets cookies; /* answer-cookie's secrets, fixed */
	/* a query's EDNS options are read for its reply (daemon/query.c's
	 * reply_options): answer-cookie, nsid or edns-tcp-keepalive on;
	 * the one flag the hit path checks for them */
	int reply_options;
	/* nsid: the reply's option (code, length, data), nsid_opt_len 0:
	 * none */
	int nsid_opt_len;
	uint8_t nsid_opt[4 + CFG_NSID_MAX];
	/* dnstap's I/O thread and the workers' queues (dnstap/dnstap.h),
	 * NULL: not enabled. Shared with a derived env and with a reload
	 * that leaves the dnstap clause as it was; the workers take their
	 * taps from their env. Set by serve_env_start_dnstap. */
	struct dnstap* dnstap;
	/* ip-ratelimit's counts per client (services/cache/rate_ip.h):
	 * shared with the env before when ip-ratelimit-size is the same,
	 * else a new table (serve_env_ip_rates). NULL: none made (the
	 * fuzz harnesses' daemon) */
	struct rate_ip_table* ip_rates;
	atomic_int refs;
};

struct daemon {
	/* the config file named on the command line (absolute path) */
	char* cfgfile;
	int cmdline_verbose;   /* -v count, added to the config's */
	int debug_mode;        /* -d count */
	int num_workers;
	struct worker** workers;
	struct listen_sockets* ports;
	struct event_base* base;   /* main thread: signals */
	/* workers wait on io_uring (daemon/worker_wait.h); 0: in epoll,
	 * their UDP sockets libevent's events */
	int wait_uring;

	/* shared by all workers, kept across reloads */
	struct port_pool* out_ports;   /* the one pool of source ports */
	/* outgoing-num-tcp as of the start or the last reload (not
	 * set_option, as Unbound), for the workers' outside networks */
	atomic_int out_num_tcp;
	struct infra_cache* infra;     /* RTT, EDNS, lameness per server */
	struct msg_cache* msg_cache;   /* question -> reply template */
	struct rrset_cache* rrset_cache;
	struct neg_cache* neg_cache; /* validated NSECs (RFC 8198) */
	/* the module stack of the start, each module's global state (the
	 * validator's key cache); a reload keeps it */
	struct modstack modules;
	/* the current serve_env, swapped under env_lock on reload */
	pthread_mutex_t env_lock;
	struct serve_env* env;
	atomic_uint env_gen;
	int need_reload;
	/* the reload being built in its own thread (daemon/reload.h), NULL
	 * when none; reload_again: a SIGHUP came meanwhile */
	struct reload_job* reload;
	int reload_again;
	/* frees replaced envs off the workers (daemon/env_reaper.h) */
	struct env_reaper* reaper;

	/* zone transfers (daemon/daemon_xfr.h), NULL without primaries */
	struct xfr_engine* xfr;
	/* remote control and statistics state (daemon/remote.h) */
	struct daemon_remote* rc;
	/* Prometheus metrics over HTTP (daemon/prometheus.h) */
	struct prom_server* prom;
	/* shm-enable: the statistics' shared memory (daemon/stats_shm.h),
	 * NULL when off or when making it failed */
	struct stats_shm* shm;
	/* $NOTIFY_SOCKET, systemd's notifications (daemon/notify.h), NULL
	 * when there is none */
	struct daemon_notify* notify;
	/* DNS over TLS: the server context (services/tls_server.h), NULL
	 * without TLS listeners; its certificate is re-read on reload */
	struct tls_server_ref* tls;
	/* DNS over HTTPS: the TLS context (ALPN h2) of the https-port
	 * sockets, re-read on reload; NULL when cleartext
	 * (http-notls-downstream) or none */
	struct tls_server_ref* doh_tls;
};

/* Build a serve_env from a config file: read, check, build acl, local
 * zones and trust anchors (a broken anchor file is an error, naming
 * file and line). Errors are printed; NULL on any error. */
struct serve_env* serve_env_create(const char* cfgfile, int cmdline_verbose);
/* serve_env_create's two halves, for a reload that reports them apart:
 * read and check the file (NULL on error, logged; cmdline_verbose is
 * added to its verbosity), then build the env from cfg (taken over,
 * also on error; NULL on error, logged). Any thread. */
struct config_file* serve_env_read_config(const char* cfgfile,
	int cmdline_verbose);
struct serve_env* serve_env_build(struct config_file* cfg);
/* A serve_env for a runtime change (unbound-control local_data,
 * forward_add, set_option, ...): cfg is a copy of the current config
 * with the change applied, lz the current local zones edited (NULL:
 * built from cfg); both are taken over, also on error. Access control
 * and hints are built from cfg; the trust anchors are those of from
 * (files not read again) with cfg's domain-insecure. Errors are
 * logged; NULL on error. */
struct serve_env* serve_env_derive(struct config_file* cfg,
	struct local_zones* lz, const struct serve_env* from);
/* As serve_env_derive, with views (taken over, also on error; NULL: a
 * copy of from's, or built from cfg without from). */
struct serve_env* serve_env_derive_views(struct config_file* cfg,
	struct local_zones* lz, struct views* views,
	const struct serve_env* from);
/* env's dnstap (num_workers queues), after the fork: old's when old's
 * config has the same dnstap clause (NULL old: none), else a new one
 * (none when not enabled). 0 when it cannot start (logged). Any
 * thread. */
int serve_env_start_dnstap(struct serve_env* env,
	const struct serve_env* old, int num_workers);
/* env's ip-ratelimit table: old's when old's ip-ratelimit-size is
 * the same (the counts go on), else a new one (old NULL: the start). 0
 * when out of memory (logged). Any thread. */
int serve_env_ip_rates(struct serve_env* env, const struct serve_env* old);
/* compat: unbound-1.17: Make env the current one (main thread): workers take
 * it before their next query; the old one is freed when the last worker lets
 * go. Such changes are lost at the next reload, as Unbound's. */
void daemon_env_publish(struct daemon* d, struct serve_env* env);
/* Drop a reference; frees at zero. */
void serve_env_release(struct serve_env* env);
/* Drop a reference; 1 when it was the last (the caller then frees it
 * with serve_env_free, in the thread it chooses). */
int serve_env_drop(struct serve_env* env);
void serve_env_free(struct serve_env* env);
/* A worker's reference to the current env (takes env_lock briefly). */
struct serve_env* daemon_env_acquire(struct daemon* d, unsigned* gen);

/* The config file's path as the process opens it now (inside the
 * chroot once chrooted). */
const char* daemon_cfgfile_inside(const struct daemon* d);
/* compat: unbound-1.17: The main thread's part of a reload (daemon/reload.h
 * reads and builds env): make env (built from the file,
 * taken over) the current one, with what lives outside it (log
 * settings, outgoing ports, TLS keys, zone transfers, Prometheus).
 * full: as Unbound's reload: the statistics restart, and the RRset and
 * message caches are emptied unless keep_cache (reload +keep-cache) and
 * their sizes and slabs did not change; else (fast_reload) both are
 * kept. prep: what the modules' reload_prepare built in the reload
 * thread (taken, emptied), NULL: none. */
void daemon_reload_apply(struct daemon* d, struct serve_env* env, int full,
	int keep_cache, struct modstack_prep* prep);

/* Run the daemon: open sockets, daemonize, start workers, serve until
 * stopped. Returns the process exit code. */
int daemon_run(struct daemon* d, struct serve_env* env);

#endif
