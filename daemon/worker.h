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
#include "util/spare_list.h"
#include "daemon/stats.h"
#include "services/stream_conn.h"

struct daemon;
struct serve_env;
struct event_base;
struct event;
struct tcp_pool;
struct doh_pool;
struct query_info;
struct client_info;
struct pending_reply;
struct udp_pktinfo_batch;
struct query_cookie_memo;
struct retired_env;
struct wait_limit;
struct worker_post;
struct dnstap_tap;

/* A function run in a worker's thread (worker_post); the libevent
 * callback signature, so an event callback can be posted as it is. */
typedef void (*worker_post_fn)(int fd, short ev, void* arg);

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
	struct udp_pktinfo_batch* udp_pi; /* their headers for the
	                          * interface-automatic sockets; NULL: none */
	struct reply_batch* replies; /* mesh answers to UDP clients, sent
	                          * at the end of the loop turn; NULL: each
	                          * at once */
	struct event* replies_ev; /* its flush, made active by the first */
	time_t now;              /* set once per batch of queries */
	/* dnstap of client queries and responses (dnstap/dnstap.h); NULL:
	 * not logged, the one branch the cache-hit path pays */
	struct dnstap_tap* tap_client;
	struct query_cookie_memo* cookie_memo; /* answer-cookie; NULL: none */
	/* recursion: this worker's random state, upstream I/O, mesh and
	 * module stack (menv.rnd, menv.outnet, menv.mesh, menv.mods) */
	struct module_env menv;
	struct pending_reply* pending;  /* clients waiting for the mesh */
	struct spare_list pending_spare; /* freed pending_replies */
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
	/* the io_uring wait (daemon/worker_wait.h) that reads the UDP
	 * sockets; NULL: they are libevent's events, as before */
	struct worker_wait* wait;
	/* set when the UDP path may have added, changed or activated an
	 * event of base (a miss, a prefetch, a reload): the wait then
	 * returns to libevent */
	int base_touched;
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
struct acl_policy;
/* The module stack's reply filters (respip) on a reply to the client at
 * addr whose access-control entry is pol (its netblock's, or for a
 * client no netblock holds its interface's; NULL: none: its view, tags
 * and tag actions), over TCP, TLS or HTTPS when
 * is_stream, in buf (len bytes, room for cap): the new length, 0 when the
 * reply is dropped. *chase (enum reply_chase_mode): nonzero when the new
 * reply ends in a CNAME whose target is to be resolved and appended
 * (worker_chase). Only when the stack's query_before_cache is set. */
size_t worker_filter_reply(struct worker* w,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const struct acl_policy* pol, int is_stream, uint8_t* buf, size_t len,
	size_t cap, int* chase);
/* Cold: compat: unbound-1.25.2: an expired answer (len bytes in buf,
 * room for cap) that worker_filter_reply rewrote into a CNAME to chase
 * (*chase's value): the target's answer for qi's type from the message
 * cache, expired data allowed, joined to it as a fresh reply's would
 * be (no resolution). Returns the new length (len: the CNAME alone,
 * when a rule meets the target too); 0 when the cache has none for the
 * target. Client as for worker_filter_reply. */
size_t worker_stale_join(struct worker* w,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const struct acl_policy* pol, int is_stream,
	const struct query_info* qi, uint16_t edns_size, uint8_t* buf,
	size_t len, size_t cap, int chase);
/* Cold: the module stack's answer_query (respip's RPZ QNAME and
 * client-ip triggers) on the question qi from the client at addr (view,
 * is_stream as worker_filter_reply), before the message cache: 1 when
 * answered, the reply in out (room for limit) and *n its length, 0 when
 * dropped, *chase as worker_filter_reply's; 0: not answered, go on.
 * Only when the stack's query_before_cache is set. */
int worker_answer_query(struct worker* w,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const struct acl_policy* pol, int is_stream,
	const struct query_info* qi, uint8_t* out, size_t limit,
	uint16_t edns_size, size_t* n, int* chase);
/* The place of the access-control policy's view among the worker's
 * views (config order); -1 when there is none. */
int worker_view_index(const struct worker* w, const struct acl_policy* pol);
/* Drop the UDP clients waiting for recursion, without a reply (remote
 * control flush_requestlist); call in the worker's thread only. */
void worker_flush_requestlist(struct worker* w);
/* The worker's answer function for its TCP pool (tcp_answer_fn of
 * services/tcp_conn.h; arg is the worker): query_answer for a query
 * that came over TCP. Public so the TCP fuzz harness drives the same
 * path (testdata/fuzz/fuzz_query_tcp.c). */
struct tcp_handle;
struct stream_answer worker_tcp_answer(void* arg, const uint8_t* pkt,
	size_t len, const struct sockaddr_storage* addr, socklen_t addrlen,
	uint8_t* out, size_t outcap, const struct tcp_handle* h);
/* The answer function of the worker's DNS-over-HTTPS pool (the fuzz
 * harness serves with it too). */
struct doh_handle;
struct stream_answer worker_doh_answer(void* arg, const uint8_t* pkt,
	size_t len, const struct sockaddr_storage* addr, socklen_t addrlen,
	uint8_t* out, size_t outcap, const struct doh_handle* h);
/* The same for the worker's DNS over TLS pool: counts num.query.tls
 * (and .resume) and pads the answer (pad-responses). */
struct stream_answer worker_tls_answer(void* arg, const uint8_t* pkt,
	size_t len, const struct sockaddr_storage* addr, socklen_t addrlen,
	uint8_t* out, size_t outcap, const struct tcp_handle* h);
/* What worker_resolve did with a question. */
enum resolve_outcome {
	RESOLVE_DEFERRED = 0, /* in the mesh: the reply goes to the client
	                       * later */
	RESOLVE_ANSWERED,     /* ready at once: *reply_len bytes in out */
	RESOLVE_FAILED,       /* no mesh or no memory: answer SERVFAIL */
	/* compat: unbound-1.17: num-queries-per-thread reached and nothing
	 * could be jostled out: Unbound drops it */
	RESOLVE_MESH_FULL,
	RESOLVE_WAIT_LIMITED  /* the client already has wait-limit replies
	                       * waiting: dropped */
};
/* Hand a question the cache could not answer to the mesh. stale_ms > 0:
 * the cache holds an expired answer that may be served
 * (serve-expired-client-timeout): the client gets it when resolution
 * has not ended after stale_ms or fails. stale_ms < 0: the same after
 * -stale_ms, or sooner when a module found no fresh answer of its own
 * (cachedb-check-when-serve-expired, mesh_stale_now). */
enum resolve_outcome worker_resolve(struct worker* w,
	const struct query_info* qi, size_t limit, uint16_t edns_size,
	const struct client_info* ci, uint8_t* out, size_t outcap,
	int stale_ms, size_t* reply_len);
/* Cold: out holds a reply to qi (base_len bytes) that a reply filter
 * ended with a CNAME to chase (mode: enum reply_chase_mode): the client
 * waits for the CNAME's target (from the cache or the mesh) and gets
 * both in one reply (services/reply_chase.h). RESOLVE_DEFERRED: it
 * waits; RESOLVE_ANSWERED: the reply as it is, *reply_len bytes in out
 * (no memory); RESOLVE_WAIT_LIMITED as worker_resolve. */
enum resolve_outcome worker_chase(struct worker* w,
	const struct query_info* qi, size_t limit, uint16_t edns_size,
	const struct client_info* ci, uint8_t* out, size_t base_len, int mode,
	size_t* reply_len);

#endif
