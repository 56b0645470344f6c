/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/worker.h - a worker thread: its own libevent loop, its UDP
 * sockets (or the shared ones) and its TCP connections. */
#ifndef DAEMON_WORKER_H
#define DAEMON_WORKER_H
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/socket.h>
#include <time.h>
#include "util/module.h"
#include "daemon/stats.h"

struct daemon;
struct serve_env;
struct event_base;
struct event;
struct tcp_pool;
struct doh_pool;
struct query_info;
struct client_info;
struct pending_reply;
struct retired_env;
struct wait_limit;
struct worker_post;

/* A function run in a worker's thread (worker_post); the libevent
 * callback signature, so an event callback can be posted as it is. */
typedef void (*worker_post_fn)(int fd, short ev, void* arg);

/* Per-thread counters, summed on demand; never shared while counting. */
struct worker_stats {
	uint64_t num_queries;     /* queries received (answered or not) */
	uint64_t num_dropped;     /* queries deliberately not answered */
	uint64_t num_tcp;         /* queries over TCP (also TLS, HTTPS) */
	uint64_t num_tls;         /* of those, over TLS (num.query.tls) */
	uint64_t num_tls_resume;  /* over a resumed TLS session */
	uint64_t num_https;       /* over HTTPS with TLS (num.query.https) */
	uint64_t num_local;       /* answered from local zones/chaos */
	uint64_t num_cachehits;   /* answered from the message cache */
	uint64_t num_cachemiss;   /* handed to recursion */
	uint64_t num_recursive_replies; /* replies recursion sent */
	uint64_t num_wait_limited;  /* dropped: too many replies waiting */
	uint64_t num_expired;       /* answered with expired data */
	uint64_t num_prefetch;      /* cache refreshes started by a hit */
	/* remote control statistics (daemon/stats.h). Every field is a
	 * uint64_t written only by this worker; the main thread reads them
	 * with relaxed atomic loads (stats_snapshot). */
	uint64_t req_sum;         /* mesh states summed at each new client */
	uint64_t req_samples;     /* how many were summed */
	uint64_t req_exceeded;    /* the mesh refused a client (full) */
	uint64_t req_overwritten; /* clients whose query was jostled out */
	uint64_t rec_time_us;     /* summed recursion time of replies */
	uint64_t rec_count;       /* replies that time was measured for */
	uint64_t rec_hist[STATS_HIST_BUCKETS];  /* log2 microseconds */
	uint64_t qtype[256];      /* num.query.type.*, type >= 256: other */
	uint64_t qtype_other;
	uint64_t qclass[256];
	uint64_t qclass_other;
	uint64_t opcode[16];
	uint64_t rcode[16];       /* num.answer.rcode.* of replies sent */
	uint64_t ans_nodata;      /* NOERROR without answer records */
	uint64_t qipv6;
	uint64_t qflags[8];       /* QR AA TC RD RA Z AD CD */
	uint64_t edns_present, edns_do;
	uint64_t unwanted_queries; /* refused or dropped by access-control */
	/* DNSSEC, as Unbound counts them: replies with secure data (cache
	 * hits and mesh replies), SERVFAILs for bogus data */
	uint64_t ans_secure, ans_bogus;
	/* upstream, copied from the worker's outside network when read
	 * (worker_stats_snapshot); the worker never writes these here */
	uint64_t qudp_out, qtcp_out, unwanted_replies;
	uint64_t rrset_bogus;     /* from the modules' counters */
	/* gauges (not summed over a reset): keep them last */
	uint64_t req_max;         /* most mesh states seen */
	uint64_t req_cur_all;     /* mesh states now */
	uint64_t req_cur_user;    /* client waiters now */
	uint64_t tcpusage;        /* TCP connections open now (filled in by
	                           * worker_stats_snapshot) */
};

struct worker {
	int thread_num;
	pthread_t thr;
	struct daemon* daemon;
	struct event_base* base;
	/* the config snapshot this worker answers with, and its generation */
	struct serve_env* env;
	unsigned env_gen;
	struct event** events;   /* UDP read and TCP accept events */
	int num_events;
	struct tcp_pool* tcp;
	struct doh_pool* doh;    /* DNS over HTTPS; NULL: no https-port */
	struct tcp_pool* tls;    /* DNS over TLS; NULL: no TLS listener */
	struct udp_batch* udp;   /* recvmmsg/sendmmsg buffers */
	time_t now;              /* set once per batch of queries */
	/* recursion: this worker's random state, upstream I/O, mesh and
	 * module stack (menv.rnd, menv.outnet, menv.mesh, menv.mods) */
	struct module_env menv;
	struct pending_reply* pending;  /* clients waiting for the mesh */
	struct wait_limit* waits;       /* wait-limit counts per address */
	/* envs replaced by a reload, kept until no query can use them */
	struct retired_env* retired;
	struct event* retire_timer;
	/* worker_post: other threads queue work here and wake the loop */
	pthread_mutex_t post_lock;
	struct worker_post* posts, *posts_last;  /* under post_lock */
	int post_fd;              /* eventfd; -1 until created */
	struct event* post_ev;
	atomic_int stopping;      /* worker_stop was called */
	struct worker_stats stats;
} __attribute__((aligned(64)));

/* Create a worker with its event base and events for its sockets; NULL
 * on failure. */
struct worker* worker_create(struct daemon* d, int num);
/* Start its thread. Returns 0 on failure. */
int worker_start(struct worker* w);
/* Ask the loop to stop (thread-safe) and wait for the thread. */
void worker_stop(struct worker* w);
/* Run fn(-1, 0, arg) in w's thread soon (thread-safe; in order of
 * posting). The worker's event base has no locks (libevent's
 * EVENT_BASE_FLAG_NOLOCK: about 150 fewer instructions a wake-up), so
 * other threads must not call libevent on w->base at all
 * (event_base_once, event_add, event_base_loopbreak): they post here.
 * Returns 1, or 0 on no memory. */
int worker_post(struct worker* w, worker_post_fn fn, void* arg);
void worker_delete(struct worker* w);
/* Main thread: a torn-free copy of w's statistics (stats_snapshot),
 * with what its outside network counted (queries sent upstream,
 * unwanted replies) and its TCP connections open now filled in. */
void worker_stats_snapshot(const struct worker* w, struct worker_stats* out);
/* Make sure the worker answers with the current env (cheap check). */
void worker_refresh_env(struct worker* w);
/* Refresh qi's cache entry in the background (no client waits): prefetch
 * and serve-expired. One refresh per question at a time. */
void worker_refresh_cached(struct worker* w, const struct query_info* qi);
/* Drop the UDP clients waiting for recursion, without a reply (remote
 * control flush_requestlist); call in the worker's thread only. */
void worker_flush_requestlist(struct worker* w);
/* worker_resolve: the client already has wait-limit replies waiting */
#define WORKER_WAIT_LIMITED ((size_t)-2)
/* worker_resolve: num-queries-per-thread reached and nothing could be
 * jostled out; Unbound drops the query */
#define WORKER_MESH_FULL ((size_t)-3)
/* The worker's answer function for its TCP pool (tcp_answer_fn of
 * services/tcp_conn.h; arg is the worker): query_answer for a query
 * that came over TCP. Public so the TCP fuzz harness drives the same
 * path (testdata/fuzz/fuzz_query_tcp.c). */
struct tcp_handle;
size_t worker_tcp_answer(void* arg, const uint8_t* pkt, size_t len,
	const struct sockaddr_storage* addr, socklen_t addrlen, uint8_t* out,
	size_t outcap, const struct tcp_handle* h);
/* The answer function of the worker's DNS-over-HTTPS pool (the fuzz
 * harness serves with it too). */
struct doh_handle;
size_t worker_doh_answer(void* arg, const uint8_t* pkt, size_t len,
	const struct sockaddr_storage* addr, socklen_t addrlen, uint8_t* out,
	size_t outcap, const struct doh_handle* h);
/* The same for the worker's DNS over TLS pool: counts num.query.tls
 * (and .resume) and pads the answer (pad-responses). */
size_t worker_tls_answer(void* arg, const uint8_t* pkt, size_t len,
	const struct sockaddr_storage* addr, socklen_t addrlen, uint8_t* out,
	size_t outcap, const struct tcp_handle* h);
/* Hand a question the cache could not answer to the mesh. Returns
 * QUERY_DEFERRED (the reply goes to the client later), a reply length
 * when the answer was ready at once (written to out), 0 when there is
 * no mesh or no memory (the caller answers SERVFAIL), WORKER_MESH_FULL
 * or WORKER_WAIT_LIMITED (the caller drops the query). stale_ms > 0: the cache holds an
 * expired answer that may be served (serve-expired-client-timeout): the
 * client gets it when resolution has not ended after stale_ms or fails. */
size_t worker_resolve(struct worker* w, const struct query_info* qi,
	size_t limit, uint16_t edns_size, const struct client_info* ci,
	uint8_t* out, size_t outcap, int stale_ms);

#endif
