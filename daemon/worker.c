/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/worker.c - one worker thread: reads queries from its sockets
 * (a batch per wake-up with recvmmsg), answers each through
 * query_answer(), and sends the replies back in one sendmmsg. */
#include "config.h"
#include "util/spare_list.h"
#include "daemon/worker.h"
#include "daemon/daemon.h"
#include "daemon/env_reaper.h"
#include "daemon/query.h"
#include "services/listen_dnsport.h"
#include "services/udp_pktinfo.h"
#include "services/tcp_conn.h"
#include "services/doh.h"
#include "services/tls_server.h"
#include "util/edns_pad.h"
#include "daemon/query_cookie.h"
#include "services/mesh.h"
#include "daemon/worker_resolver.h"
#include "daemon/acl_list.h"
#include "services/view.h"
#include "services/outside_network.h"
#include "services/cache/msgcache.h"
#include "services/cache/rrset.h"
#include "services/reply_chase.h"
#include "util/msgencode.h"
#include "daemon/wait_limit.h"
#include "daemon/reply_batch.h"
#include "daemon/worker_wait.h"
#include "dnstap/dnstap.h"
#include "iterator/iter_hints.h"
#include "util/config_file.h"
#include "util/log.h"
#include "util/msgparse.h"
#include "util/proxy_v2.h"
#include "util/sys_nocancel.h"
#include <event2/event.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define UDP_BATCH 32
#define UDP_QUERY_MAX 4096   /* larger datagrams are cut: FORMERR */
#define UDP_REPLY_MAX 65535
/* batches per wake-up before other sockets get their turn */
#define UDP_ROUNDS 4
/* A replaced env is kept this long: every upstream work chain ends
 * within MODULE_MAX_QUERY_MS (util/module.h); a validated query runs
 * its iterator lookups and then its DS/DNSKEY lookups, each so bound. */
#define RETIRE_SECS (2 * MODULE_MAX_QUERY_MS / 1000 + 5)

/* A client waiting for the mesh; on the worker's list so shutdown can
 * free the ones the mesh never answered. */
struct pending_reply {
	struct pending_reply* prev, *next;
	struct worker* w;
	int is_tcp;
	int pad;                 /* DoT, padding asked: the block size */
	int udp_fd;
	struct tcp_handle tcp;
	int is_doh;              /* DNS over HTTPS: doh, not tcp */
	struct doh_handle doh;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	/* UDP through a PROXYv2 proxy: the reply goes here (peerlen 0:
	 * to addr) */
	struct sockaddr_storage peer;
	socklen_t peerlen;
	/* interface-automatic: the reply leaves from here (family 0: an
	 * ordinary socket) */
	struct udp_dst dst;
	int view;       /* reply filters: the client's view, -1 none */
	uint64_t tags;  /* and its access-control-tag bits */
	/* a client no netblock holds: the address its query came to,
	 * whose interface-* entry it has (local_len 0: none) */
	struct sockaddr_storage local;
	socklen_t local_len;
	/* set while mesh_new_client runs: an answer ready at once is
	 * returned to the caller instead of sent from the callback */
	uint8_t* sync_out;
	size_t sync_cap, sync_len;
	int in_call, answered;
	struct timespec start;   /* recursion.time (rc: stats) */
	int counted;    /* took a wait-limit slot for addr */
	/* serve-expired-client-timeout: the expired answer is sent when
	 * this timer fires first, or when resolution fails */
	struct event* stale_timer;
	int stale;
	/* cachedb-check-when-serve-expired: the expired answer as soon
	 * as a module finds nothing fresh (mesh_stale_now); stale_soon:
	 * it did so inside mesh_new_client */
	int stale_on_miss, stale_soon;
	struct query_info qi;    /* the question (pkt NULL) */
	size_t limit;
	uint16_t edns_size;
	int has_cookie;          /* answer-cookie: the reply gets cookie */
	int reply_opts;          /* QUERY_OPT_*: and these options */
	uint8_t cookie[COOKIE_OPT_LEN];
	int filtered_out;        /* a reply filter (respip deny) dropped
	                          * the answer the mesh gave at once */
	/* a reply filter's CNAME to chase (enum reply_chase_mode): the
	 * answer the mesh gave at once ends in one (in sync_out) */
	int chase_wanted;
	/* the client waits for that CNAME's target: the reply so far
	 * (malloc'd), its mode; chase_ev starts the lookup from the event
	 * loop (not inside the mesh's callback) */
	uint8_t* chase_base;
	size_t chase_len;
	int chase_mode;
	struct event* chase_ev;
	int filter_done;         /* the reply filters ran: send as it is */
};

/* Work another thread posted (worker_post). */
struct worker_post {
	struct worker_post* next;
	worker_post_fn fn;
	void* arg;
};

struct retired_env {
	struct retired_env* next;
	struct serve_env* env;
	time_t until;
};

struct udp_batch {
	struct mmsghdr rmsg[UDP_BATCH];
	struct iovec riov[UDP_BATCH];
	struct sockaddr_storage addr[UDP_BATCH];
	struct mmsghdr smsg[UDP_BATCH];
	struct iovec siov[UDP_BATCH];
	uint8_t query[UDP_BATCH][UDP_QUERY_MAX];
	uint8_t* reply;  /* UDP_BATCH replies of UDP_REPLY_MAX */
	int dirty;       /* rmsg entries the last recvmmsg wrote to */
	/* sock-queue-timeout: each datagram's receive time (SO_TIMESTAMPNS);
	 * msg_control points here only when it is configured */
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(struct timespec))];
	} stamp[UDP_BATCH];
};

/* interface-automatic sockets: their own message headers, with control
 * data, over the udp_batch's buffers (made only for a worker that has
 * such a socket), so the plain sockets' headers never carry any. */
struct udp_pktinfo_batch {
	struct mmsghdr rmsg[UDP_BATCH];
	struct mmsghdr smsg[UDP_BATCH];
	struct udp_dst dst[UDP_BATCH];
	union udp_pktinfo_ctl rctl[UDP_BATCH];
	union udp_pktinfo_ctl sctl[UDP_BATCH];
	int dirty;
};

/* recvmmsg and sendmmsg without the libc wrappers' cancellation-point
 * bookkeeping (util/sys_nocancel.h): about 90 fewer instructions a
 * wake-up. */
static int udp_recv_batch(int fd, struct mmsghdr* m, unsigned n)
{
	return nc_recvmmsg(fd, m, n, MSG_DONTWAIT);
}


static void retire_cb(evutil_socket_t fd, short ev, void* arg)
{
	struct worker* w = arg;
	struct retired_env** p = &w->retired;
	time_t now = time(NULL);
	struct timeval tv = { 1, 0 };
	(void)fd;
	(void)ev;
	while(*p) {
		struct retired_env* r = *p;
		if(now >= r->until) {
			*p = r->next;
			/* a big env's free would stop this worker's answering:
			 * the last holder hands it to the reaper's thread */
			env_reaper_release(w->daemon->reaper, r->env);
			free(r);
		} else	p = &r->next;
	}
	if(w->retired)
		evtimer_add(w->retire_timer, &tv);
}

/* Queries in flight may still read the old config and hints: keep the
 * old env until they cannot exist any more. */
static void retire_env(struct worker* w, struct serve_env* old)
{
	struct retired_env* r = malloc(sizeof(*r));
	struct timeval tv = { 1, 0 };
	if(!r || !w->retire_timer) {
		/* cannot keep it safely: keep it for good rather than free
		 * it under a query (a leak of one env, logged) */
		log_err("out of memory: keeping a replaced config");
		free(r);
		return;
	}
	r->env = old;
	r->until = time(NULL) + RETIRE_SECS;
	r->next = w->retired;
	w->retired = r;
	evtimer_add(w->retire_timer, &tv);
}

/* http-* options, at start and on reload */
/* compat: unbound-1.17: the idle timeout of client streams: with
 * edns-tcp-keepalive, edns-tcp-keepalive-timeout (the value the option
 * tells clients), else tcp-idle-timeout, as Unbound's listeners. */
static int stream_idle_ms(const struct config_file* cfg)
{
	return cfg->do_tcp_keepalive ? cfg->tcp_keepalive_timeout :
		cfg->tcp_idle_timeout;
}

static void worker_doh_apply(struct worker* w)
{
	const struct config_file* cfg = w->env->cfg;
	struct doh_settings s;
	doh_set_mem_limits(cfg->http_query_buffer_size,
		cfg->http_response_buffer_size);
	stream_wait_set_max(cfg->stream_wait_size);
	if(!w->doh)
		return;
	s.endpoint = cfg->http_endpoint;
	s.max_streams = cfg->http_max_streams;
	s.nodelay = cfg->http_nodelay;
	s.max_conns = cfg->incoming_num_tcp;
	s.idle_timeout_ms = stream_idle_ms(cfg);
	s.conn_limit = w->env->conn_limit;
	(void)doh_pool_apply(w->doh, &s);
}

/* This worker's dnstap queues, from its env's dnstap: at the start,
 * and when a reload changed the dnstap clause. */
static void worker_set_taps(struct worker* w)
{
	outnet_set_tap(w->menv.outnet, dnstap_tap_of(w->env->dnstap,
		w->thread_num, DNSTAP_OUTSIDE));
	w->tap_client = dnstap_tap_of(w->env->dnstap, w->thread_num,
		DNSTAP_CLIENT);
}

void worker_refresh_env(struct worker* w)
{
	struct daemon* d = w->daemon;
	struct serve_env* old;
	struct timespec t0;
	int timed;
	if(atomic_load_explicit(&d->env_gen, memory_order_acquire) ==
		w->env_gen)
		return;
	/* the switch's own cost, at verbosity 4 (doc/performance.md,
	 * "Reload": it is not what the queries wait on during a reload) */
	if((timed = verbosity >= VERB_ALGO))
		clock_gettime(CLOCK_MONOTONIC, &t0);
	w->base_touched = 1;   /* the retire timer */
	old = w->env;
	w->env = daemon_env_acquire(d, &w->env_gen);
	/* the old env (and its dnstap) stays until it is retired: nothing
	 * of this worker points into that dnstap after this, and when no
	 * worker does, its stream is closed */
	if(w->env->dnstap != old->dnstap && w->menv.outnet) {
		worker_set_taps(w);
		dnstap_leave(old->dnstap);
	}
	retire_env(w, old);
	tcp_pool_set_idle_timeout(w->tcp, stream_idle_ms(w->env->cfg));
	tcp_pool_set_conn_limit(w->tcp, w->env->conn_limit);
	worker_doh_apply(w);
	if(w->tls) {
		tcp_pool_set_idle_timeout(w->tls,
			stream_idle_ms(w->env->cfg));
		tcp_pool_set_conn_limit(w->tls, w->env->conn_limit);
	}
	outnet_set_num_tcp(w->menv.outnet, atomic_load(&d->out_num_tcp));
	outnet_set_tcp_mss(w->menv.outnet, w->env->cfg->outgoing_tcp_mss);
	outnet_set_transport(w->menv.outnet, w->env->cfg);
	outnet_set_pad_block(w->menv.outnet, w->env->cfg->pad_queries ?
		w->env->cfg->pad_queries_block_size : 0);
	outnet_set_unwanted_threshold(w->menv.outnet,
		(unsigned)w->env->cfg->unwanted_threshold);
	outnet_set_query_settings(w->menv.outnet, w->env->cfg);
	if(w->menv.mesh)
		mesh_set_max_queries(w->menv.mesh,
			w->env->cfg->num_queries_per_thread);
	/* new hints: the primed root is redone from them */
	w->menv.auth = w->env->auth;
	worker_resolver_reconfigure(&w->menv, w->env->cfg, w->env->hints,
		w->env->anchors);
	if(timed) {
		struct timespec t1;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		verbose(VERB_ALGO, "thread %d took the new config in %lld us",
			w->thread_num, (long long)(t1.tv_sec - t0.tv_sec) *
			1000000LL + (t1.tv_nsec - t0.tv_nsec) / 1000);
	}
}

static void pending_free(struct pending_reply* p)
{
	if(p->stale_timer)
		event_free(p->stale_timer);
	if(p->chase_ev)
		event_free(p->chase_ev);
	free(p->chase_base);
	spare_free(&p->w->pending_spare, p);
}

static void pending_unlink(struct pending_reply* p)
{
	if(p->counted)
		wait_limit_give(p->w->waits, &p->addr, p->addrlen);
	if(p->prev)
		p->prev->next = p->next;
	else	p->w->pending = p->next;
	if(p->next)
		p->next->prev = p->prev;
}

/* rc: statistics of the mesh as a client enters it. */
static void worker_stats_enter(struct worker* w, struct pending_reply* p)
{
	struct worker_stats* st = &w->stats;
	uint64_t n = mesh_num_states(w->menv.mesh);
	clock_gettime(CLOCK_MONOTONIC, &p->start);
	stats_note_reqlist(st, n);
	st->req_cur_all = n + 1;
	st->req_cur_user = mesh_num_waiters(w->menv.mesh) + 1;
}

/* rc: statistics of a reply the mesh sent later. */
static void worker_stats_reply(struct pending_reply* p, const uint8_t* reply,
	size_t len)
{
	struct worker_stats* st = &p->w->stats;
	struct timespec now;
	int64_t us;
	uint64_t n;
	clock_gettime(CLOCK_MONOTONIC, &now);
	us = (int64_t)(now.tv_sec - p->start.tv_sec) * 1000000 +
		(now.tv_nsec - p->start.tv_nsec) / 1000;
	stats_note_rectime(st, us > 0 ? (uint64_t)us : 0);
	if(p->w->env->cfg->stat_extended)
		stats_note_reply(st, reply, len);
	/* the mesh counts this waiter out before the call and its state
	 * after it: the state is about to go */
	n = mesh_num_states(p->w->menv.mesh);
	st->req_cur_all = n > 0 ? n - 1 : 0;
	st->req_cur_user = mesh_num_waiters(p->w->menv.mesh);
}

/* Cold: a client's access-control entry, looked up now in the config
 * that answers (a reply may have waited across a reload): its
 * netblock's, or when none holds it, the entry of the address its query
 * came to (local, locallen 0: not known; interface-*). NULL: none. */
static const struct acl_policy* client_policy(struct worker* w,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const struct sockaddr_storage* local, socklen_t locallen)
{
	struct acl_match am = acl_list_match(w->env->acl, addr, addrlen);
	if(locallen && am.action == acl_refuse &&
		acl_list_unheld(w->env->acl, am))
		am = acl_list_interface(w->env->acl, local, locallen);
	return am.policy;
}

/* Cold: p's client's access-control-tag-action and -data (or
 * interface-tag-*: response-ip-tag), NULL: none. */
static const struct lz_client_tags* pending_tag_changes(
	struct pending_reply* p)
{
	const struct acl_policy* pol;
	if(!p->tags)
		return NULL;
	pol = client_policy(p->w, &p->addr, p->addrlen, &p->local,
		p->local_len);
	return pol ? pol->tag_changes : NULL;
}

/* The chase a reply filter's verdict asks for (enum reply_chase_mode). */
static int chase_of(enum module_reply_verdict v)
{
	switch(v) {
	case MODULE_REPLY_CHASE:
		return REPLY_CHASE_MERGE;
	case MODULE_REPLY_ALIAS:
		return REPLY_CHASE_ALIAS;
	case MODULE_REPLY_KEEP:
	case MODULE_REPLY_CHANGED:
	case MODULE_REPLY_DROP:
	case MODULE_REPLY_MATCHED:
		break;
	}
	return REPLY_CHASE_NONE;
}

/* Cold: the stack's reply filters (respip) on a reply to the client cl,
 * in buf (room for cap); the new length, 0 when it is dropped. *v: the
 * verdict. */
static size_t filter_client(struct worker* w,
	const struct module_reply_client* cl, uint8_t* buf, size_t len,
	size_t cap, enum module_reply_verdict* v)
{
	*v = modstack_filter_reply(&w->menv, cl, buf, &len, cap);
	if(*v == MODULE_REPLY_DROP)
		return 0;
	return len;
}

/* The client p waits for, as the reply filters see it; chased: the
 * reply is for a chased CNAME's target. */
static void pending_client(struct pending_reply* p, int chased,
	struct module_reply_client* cl)
{
	cl->addr = &p->addr;
	cl->addrlen = p->addrlen;
	cl->view = p->view;
	cl->tags = p->tags;
	cl->tag_changes = pending_tag_changes(p);
	cl->is_stream = p->is_tcp || p->is_doh;
	cl->chased = chased;
	cl->search_only = 0;
}

/* Cold: the reply filters on a reply to p's client (filter_client);
 * *chase: the chase the verdict asks for. */
static size_t filter_reply(struct pending_reply* p, uint8_t* buf,
	size_t len, size_t cap, int* chase)
{
	struct module_reply_client cl;
	enum module_reply_verdict v;
	pending_client(p, 0, &cl);
	len = filter_client(p->w, &cl, buf, len, cap, &v);
	*chase = chase_of(v);
	return len;
}

/* The client at addr whose access-control entry is pol (NULL: none). */
static void policy_client(struct worker* w,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const struct acl_policy* pol, int is_stream,
	struct module_reply_client* cl)
{
	cl->addr = addr;
	cl->addrlen = addrlen;
	cl->view = worker_view_index(w, pol);
	cl->tags = pol ? pol->tags : 0;
	cl->tag_changes = cl->tags ? pol->tag_changes : NULL;
	cl->is_stream = is_stream;
	cl->chased = 0;
	cl->search_only = 0;
}

/* out of line: the hit path calls it on its cold branch only (inlined,
 * it made answer_plain too large for LTO to inline the cache lookup) */
__attribute__((noinline)) size_t worker_filter_reply(struct worker* w,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const struct acl_policy* pol, int is_stream, uint8_t* buf, size_t len,
	size_t cap, int* chase)
{
	struct module_reply_client cl;
	enum module_reply_verdict v;
	w->base_touched = 1;   /* a module's work (cold: the wait's rule) */
	policy_client(w, addr, addrlen, pol, is_stream, &cl);
	len = filter_client(w, &cl, buf, len, cap, &v);
	*chase = chase_of(v);
	return len;
}

__attribute__((noinline)) int worker_answer_query(struct worker* w,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const struct acl_policy* pol, int is_stream,
	const struct query_info* qi, uint8_t* out, size_t limit,
	uint16_t edns_size, size_t* n, int* chase)
{
	struct module_reply_client cl;
	size_t len;
	enum module_reply_verdict v;
	w->base_touched = 1;   /* a module's work (cold: the wait's rule) */
	policy_client(w, addr, addrlen, pol, is_stream, &cl);
	/* the empty reply, its EDNS as the daemon's error replies */
	len = msg_error_reply(out, limit, qi, RCODE_NOERROR, edns_size);
	if(len == 0)
		return 0;
	v = modstack_answer_query(&w->menv, &cl, out, &len, limit);
	if(v == MODULE_REPLY_KEEP)
		return 0;
	*n = v == MODULE_REPLY_DROP ? 0 : len;
	*chase = chase_of(v);
	return 1;
}

int worker_view_index(const struct worker* w, const struct acl_policy* pol)
{
	const struct views* vs = w->env->views;
	/* the acl's views are this snapshot's (env_complete) */
	if(!pol || !pol->view || !vs || pol->view < vs->v ||
		pol->view >= vs->v + vs->num)
		return -1;
	return (int)(pol->view - vs->v);
}

/* compat: unbound-1.17: log-replies for an answer after recursion: the
 * time since the query came, cached 0, as Unbound's mesh logs it. */
static void __attribute__((noinline)) log_pending_reply(
	const struct pending_reply* p, const uint8_t* reply, size_t len)
{
	struct client_info ci;
	struct timespec now;
	long long us;
	memset(&ci, 0, sizeof(ci));
	ci.addr = &p->addr;
	ci.addrlen = p->addrlen;
	ci.is_tcp = p->is_tcp;
	ci.udp_fd = p->is_tcp || p->is_doh ? -1 : p->udp_fd;
	ci.tcp = p->is_tcp && !p->is_doh ? &p->tcp : NULL;
	ci.doh = p->is_doh ? &p->doh : NULL;
	clock_gettime(CLOCK_MONOTONIC, &now);
	us = (long long)(now.tv_sec - p->start.tv_sec) * 1000000 +
		(now.tv_nsec - p->start.tv_nsec) / 1000;
	query_log_reply(p->w->env->cfg, &ci, reply, len, us < 0 ? 0 : us, 0);
}

/* Send a reply to a client that waited for the mesh. */
static void pending_send(struct pending_reply* p, const uint8_t* reply,
	size_t len)
{
	if(__builtin_expect(p->w->daemon->modules.query_before_cache, 0) &&
		len > 0 && !p->filter_done) {
		/* a reply filter (respip): on a copy, the mesh's buffer is
		 * shared by the state's waiters; a CNAME to chase goes as
		 * it is here (an expired answer) */
		static _Thread_local uint8_t fbuf[65535];
		size_t cap = p->limit && p->limit < sizeof(fbuf) ? p->limit :
			sizeof(fbuf);
		int chase;
		if(len <= cap) {
			memcpy(fbuf, reply, len);
			len = filter_reply(p, fbuf, len, cap, &chase);
			reply = len ? fbuf : NULL;
		}
	}
	if((p->has_cookie || p->reply_opts) && len > 0) {
		/* cold: the reply copied with room for the cookie and options
		 * (the mesh encoded it that many bytes short of the limit) */
		static _Thread_local uint8_t cbuf[65535];
		if(len <= sizeof(cbuf)) {
			memcpy(cbuf, reply, len);
			len = query_reply_options(p->w->env, cbuf, len,
				sizeof(cbuf), p->has_cookie ? p->cookie : NULL,
				p->reply_opts);
			reply = cbuf;
		}
	}
	if(p->pad && len > 0) {
		/* cold: DoT with padding; the reply copied with room */
		static _Thread_local uint8_t buf[65535];
		if(len <= sizeof(buf)) {
			memcpy(buf, reply, len);
			len = edns_pad_reply(buf, len, sizeof(buf),
				(size_t)p->pad);
			reply = buf;
		}
	}
	if(p->w->env->cfg->log_replies && len > 0)
		log_pending_reply(p, reply, len);
	if(__builtin_expect(p->w->tap_client != NULL, 0) && len > 0)
		dnstap_client_response(p->w->tap_client, &p->addr, p->addrlen,
			p->is_doh ? DNSTAP_DOH : p->is_tcp ? DNSTAP_TCP :
			DNSTAP_UDP, reply, len);
	if(p->is_doh)
		doh_pool_deferred_reply(&p->doh, reply, len);
	else if(p->is_tcp)
		tcp_pool_deferred_reply(&p->tcp, reply, len);
	else if(__builtin_expect(p->peerlen != 0, 0)) {
		if(len > 0 && udp_pktinfo_sendto(p->udp_fd, reply, len,
			(const struct sockaddr*)&p->peer, p->peerlen, &p->dst) < 0)
			verbose(VERB_ALGO, "sendto: %s", strerror(errno));
	}
	else if(__builtin_expect(p->dst.family != 0, 0)) {
		/* interface-automatic: from the address the query came to;
		 * one sendmsg, the reply batch has no control data */
		if(len > 0 && udp_pktinfo_sendto(p->udp_fd, reply, len,
			(const struct sockaddr*)&p->addr, p->addrlen, &p->dst) < 0)
			verbose(VERB_ALGO, "sendmsg: %s", strerror(errno));
	}
	else if(len > 0 && p->w->replies) {
		reply_batch_add(p->w->replies, p->udp_fd,
			(const struct sockaddr*)&p->addr, p->addrlen, reply, len);
		/* the first of the batch: the flush goes at the end of the
		 * loop turn's active callbacks (active again: no-op) */
		if(reply_batch_queued(p->w->replies) == 1)
			event_active(p->w->replies_ev, EV_READ, 0);
	}
	else if(len > 0 && nc_sendto(p->udp_fd, reply, len, 0,
		(const struct sockaddr*)&p->addr, p->addrlen) < 0)
		verbose(VERB_ALGO, "sendto: %s", strerror(errno));
}

/* Cold path: the expired answer for p's question into out (limit
 * bytes), 0 when the cache has none servable any more. */
static size_t stale_answer(struct worker* w, const struct pending_reply* p,
	uint8_t* out)
{
	struct msg_cache* c = w->daemon->msg_cache;
	enum msg_hit hit = MSG_HIT_FRESH;
	size_t n;
	if(!c)
		return 0;
	n = msg_cache_answer_ex(c, &p->qi, msg_cache_hash(c, &p->qi),
		time(NULL), out, p->limit, p->edns_size,
		&w->env->serve_policy, &hit);
	return n ? query_stale_ede(w->env->cfg, out, n, p->limit) : 0;
}

/* compat: unbound-1.17: respip_merge_cname's words for a CNAME target
 * that a rule meets too (the CNAME goes alone). */
static void log_target_stripped(void)
{
	log_info("CNAME target of redirect response-ip action would "
		"be subject to response-ip action, too; stripped");
}

/* Cold: compat: unbound-1.25.2: the expired answer in buf (n bytes,
 * room for cap) that the reply filters (for the client cl) rewrote into
 * a CNAME to chase (mode): the answer for that CNAME's target (qi's type
 * and class) from the message cache, expired data allowed as for the
 * answer itself (serve-expired-reply-ttl), joined to it in buf as a
 * fresh reply's target is (chase_join). Unbound's serve-expired callback
 * looks the target up so, and resolves nothing. Returns the new length:
 * n (the CNAME alone) when a rule meets the target too; 0 when the
 * cache has no answer for the target to give (or no memory): Unbound
 * sends nothing from there then. */
static size_t stale_join(struct worker* w,
	const struct module_reply_client* cl, const struct query_info* qi,
	uint16_t edns_size, uint8_t* buf, size_t n, size_t cap, int mode)
{
	struct msg_cache* c = w->daemon->msg_cache;
	struct module_reply_client tcl = *cl;
	struct query_info tq = *qi;
	enum module_reply_verdict v;
	enum msg_hit hit = MSG_HIT_FRESH;
	uint8_t* tgt;
	size_t tn, m = 0;
	tq.pkt = NULL;
	tq.pkt_len = 0;
	tq.cookie = NULL;
	if(!c || !reply_chase_target(buf, n, tq.qname, &tq.qname_len) ||
		!(tgt = malloc(2 * cap)))
		return 0;
	tn = msg_cache_answer_ex(c, &tq, msg_cache_hash(c, &tq), time(NULL),
		tgt, cap, edns_size, &w->env->serve_policy, &hit);
	if(tn > 0) {
		/* compat: unbound-1.17: the target only searched, as for a
		 * fresh reply (respip_merge_cname) */
		tcl.chased = 1;
		tcl.search_only = mode == REPLY_CHASE_MERGE;
		tn = filter_client(w, &tcl, tgt, tn, cap, &v);
		if(v != MODULE_REPLY_KEEP && mode == REPLY_CHASE_MERGE) {
			log_target_stripped();
			m = n;
		} else if(tn > 0 && (m = reply_chase_merge(buf, n, tgt, tn,
			(enum reply_chase_mode)mode, tgt + cap, cap)) > 0)
			memcpy(buf, tgt + cap, m);
	}
	free(tgt);
	return m;
}

__attribute__((noinline)) size_t worker_stale_join(struct worker* w,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const struct acl_policy* pol, int is_stream,
	const struct query_info* qi, uint16_t edns_size, uint8_t* buf,
	size_t len, size_t cap, int chase)
{
	struct module_reply_client cl;
	policy_client(w, addr, addrlen, pol, is_stream, &cl);
	return stale_join(w, &cl, qi, edns_size, buf, len, cap, chase);
}

/* What the expired answer for a waiting client's question came to. */
enum stale_outcome {
	STALE_NONE,       /* the cache has none servable any more */
	STALE_READY,      /* made, the reply filters applied (length 0:
	                   * they dropped it) */
	/* compat: unbound-1.25.2: a filter's CNAME whose target the cache
	 * cannot give: no answer from the expired data */
	STALE_NO_TARGET
};

/* Cold path: the expired answer for p's question into buf (p->limit
 * bytes), through the reply filters and with a CNAME they put in joined
 * to its cached target (stale_join); its length in *len. */
static enum stale_outcome stale_prepare(struct pending_reply* p,
	uint8_t* buf, size_t* len)
{
	size_t n = stale_answer(p->w, p, buf);
	int chase = REPLY_CHASE_NONE;
	*len = 0;
	if(n == 0)
		return STALE_NONE;
	if(__builtin_expect(p->w->daemon->modules.query_before_cache, 0)) {
		/* compat: unbound-1.25.2: it passes the reply filters as
		 * every answer (before, the expired one went unchanged) */
		n = filter_reply(p, buf, n, p->limit, &chase);
		if(n > 0 && chase != REPLY_CHASE_NONE) {
			struct module_reply_client cl;
			pending_client(p, 0, &cl);
			n = stale_join(p->w, &cl, &p->qi, p->edns_size, buf, n,
				p->limit, chase);
			if(n == 0)
				return STALE_NO_TARGET;
		}
	}
	*len = n;
	return STALE_READY;
}

/* Answer p with the expired entry (after the client timeout, or when
 * resolution failed); what it came to: nothing is sent unless
 * STALE_READY. */
static enum stale_outcome send_stale(struct pending_reply* p)
{
	uint8_t* buf = malloc(p->limit);
	size_t n = 0;
	enum stale_outcome o = buf ? stale_prepare(p, buf, &n) : STALE_NONE;
	if(o == STALE_READY) {
		p->w->stats.num_expired++;
		p->filter_done = 1;
		pending_send(p, n ? buf : NULL, n);
	}
	free(buf);
	return o;
}

/* Has the client of p waited over discard-timeout? */
static int too_old(const struct pending_reply* p)
{
	struct timespec now;
	int64_t ms;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (int64_t)(now.tv_sec - p->start.tv_sec) * 1000 +
		(now.tv_nsec - p->start.tv_nsec) / 1000000;
	return ms > (int64_t)p->w->env->cfg->discard_timeout;
}

/* Cold: the reply tgt (tlen bytes) for the target p chased, made with
 * p's base into the client's reply in out (cap bytes): the reply filters
 * look at the target's answer first (chased: its addresses only).
 * Returns the length, 0: no reply. *again: instead, p's base is now
 * that reply, ending in a response-ip CNAME to chase next (mode
 * merge). */
static size_t chase_join(struct pending_reply* p, const uint8_t* tgt,
	size_t tlen, uint8_t* out, size_t cap, int* again)
{
	static _Thread_local uint8_t tbuf[65535];
	struct module_reply_client cl;
	enum module_reply_verdict v;
	size_t n;
	*again = 0;
	if(tlen > sizeof(tbuf))
		tlen = 0;
	memcpy(tbuf, tgt, tlen);
	pending_client(p, 1, &cl);
	/* compat: unbound-1.17: a merged target is only searched
	 * (respip_merge_cname): any rule that meets it, inform and
	 * always_transparent too, leaves the CNAME alone */
	cl.search_only = p->chase_mode == REPLY_CHASE_MERGE;
	n = filter_client(p->w, &cl, tbuf, tlen, sizeof(tbuf), &v);
	if(v != MODULE_REPLY_KEEP && p->chase_mode == REPLY_CHASE_MERGE) {
		/* compat: unbound-1.17: respip_merge_cname: the CNAME
		 * alone, in its words */
		log_target_stripped();
		n = p->chase_len <= cap ? p->chase_len : 0;
		memcpy(out, p->chase_base, n);
		return n;
	}
	if(v == MODULE_REPLY_DROP)
		return 0;
	n = reply_chase_merge(p->chase_base, p->chase_len, tbuf, n,
		(enum reply_chase_mode)p->chase_mode, out, cap);
	if(n == 0)
		return reply_chase_servfail(p->chase_base, p->chase_len, out,
			cap);
	if(v == MODULE_REPLY_CHASE) {
		/* compat: unbound-1.17: an alias target's address that a
		 * response-ip CNAME replaces: that CNAME's target merged
		 * too (Unbound's respip on the target's state); the
		 * merge strips what comes after, so the chase ends */
		uint8_t* b = malloc(n);
		if(b) {
			memcpy(b, out, n);
			free(p->chase_base);
			p->chase_base = b;
			p->chase_len = n;
			p->chase_mode = REPLY_CHASE_MERGE;
			event_active(p->chase_ev, EV_TIMEOUT, 1);
			*again = 1;
		}
	}
	return n;
}

static void worker_reply_cb(void* arg, const uint8_t* reply, size_t len,
	int rcode, int security);

/* Cold, from the event loop: p waits for the target of the CNAME that
 * ends p->chase_base: from the message cache when it holds a fresh,
 * not bogus answer, else from the mesh (worker_reply_cb joins the
 * two). */
static void chase_cb(evutil_socket_t fd, short ev, void* arg)
{
	static _Thread_local uint8_t buf[65535], joined[65535];
	struct pending_reply* p = arg;
	struct worker* w = p->w;
	struct msg_cache* c = w->daemon->msg_cache;
	struct query_info tq;
	size_t n = 0, cap = p->limit && p->limit < sizeof(joined) ? p->limit :
		sizeof(joined);
	(void)fd;
	(void)ev;
	tq = p->qi;
	if(!reply_chase_target(p->chase_base, p->chase_len, tq.qname,
		&tq.qname_len))
		tq.qname_len = 0;
	if(tq.qname_len && c) {
		/* msg_cache_answer_ex, not _q: a second caller of the hit
		 * path's lookup kept LTO from inlining it there (callgrind:
		 * about 40 instructions a cache hit) */
		enum msg_hit hit = MSG_HIT_FRESH;
		n = msg_cache_answer_ex(c, &tq, msg_cache_hash(c, &tq),
			time(NULL), buf, cap, p->edns_size, NULL, &hit);
		if(hit == MSG_HIT_EXPIRED)
			n = 0;
	}
	if(n == 0 && tq.qname_len && w->menv.mesh) {
		enum mesh_new_outcome added;
		/* compat: unbound-1.17: an alias's target not in the cache
		 * is a cache miss (Unbound looks the target up as the
		 * query's name) */
		if(p->chase_mode == REPLY_CHASE_ALIAS)
			w->stats.num_cachemiss++;
		p->in_call = 0;
		p->answered = 0;
		/* an answer at once comes to worker_reply_cb as a later
		 * one does: p is not touched after an ADDED */
		added = mesh_new_client_from(w->menv.mesh, &tq, &p->addr,
			p->addrlen, p->limit, p->edns_size, worker_reply_cb, p);
		if(added == MESH_NEW_ADDED)
			return;
		w->stats.req_cur_all = mesh_num_states(w->menv.mesh);
		w->stats.req_cur_user = mesh_num_waiters(w->menv.mesh);
	}
	if(n > 0) {
		int again;
		n = chase_join(p, buf, n, joined, cap, &again);
		if(again)
			return;   /* waits on for the next target */
	} else if(tq.qname_len)   /* the mesh is full, or no memory */
		n = reply_chase_servfail(p->chase_base, p->chase_len, joined,
			cap);
	else {
		n = p->chase_len <= cap ? p->chase_len : 0;
		memcpy(joined, p->chase_base, n);
	}
	p->filter_done = 1;
	pending_unlink(p);
	pending_send(p, n ? joined : NULL, n);
	pending_free(p);
}

/* Cold: p (listed) waits now for the target of the CNAME that ends
 * base (blen bytes), a reply filter's rewrite (mode); the lookup starts
 * from the event loop, outside the mesh's callback. 0: no target or no
 * memory (the caller sends base as it is). */
static int chase_begin(struct pending_reply* p, const uint8_t* base,
	size_t blen, int mode)
{
	uint8_t target[LDNS_MAX_DOMAINLEN + 1];
	size_t tl;
	if(!reply_chase_target(base, blen, target, &tl) ||
		!(p->chase_base = malloc(blen)))
		return 0;
	if(!p->chase_ev && !(p->chase_ev = evtimer_new(p->w->base, chase_cb,
		p))) {
		free(p->chase_base);
		p->chase_base = NULL;
		return 0;
	}
	memcpy(p->chase_base, base, blen);
	p->chase_len = blen;
	p->chase_mode = mode;
	event_active(p->chase_ev, EV_TIMEOUT, 1);
	return 1;
}

/* The mesh's answer for one client. */
static void worker_reply_cb(void* arg, const uint8_t* reply, size_t len,
	int rcode, int security)
{
	struct pending_reply* p = arg;
	if(rcode == MESH_DROPPED) {
		/* compat: unbound-1.17: jostled out: no reply, as Unbound */
		p->w->stats.req_overwritten++;
		p->w->stats.req_cur_user = mesh_num_waiters(p->w->menv.mesh);
		if(p->in_call) {
			p->answered = 1;
			return;
		}
		pending_unlink(p);
		if(p->is_tcp)
			pending_send(p, NULL, 0);
		pending_free(p);
		return;
	}
	if(!p->in_call && !p->is_tcp && !p->is_doh &&
		p->w->env->cfg->discard_timeout > 0 && too_old(p)) {
		/* compat: unbound-1.21: discard-timeout: a UDP reply that
		 * waited too long is dropped (the client has given up; a
		 * pile of late replies is what DNSBomb sends); the cache
		 * has the answer. A stream's waits: its peer is there. */
		p->w->stats.num_discard_timeout++;
		verbose(VERB_ALGO, "drop reply, it is older than "
			"discard-timeout");
		pending_unlink(p);
		pending_free(p);
		return;
	}
	p->w->stats.num_recursive_replies++;
	/* compat: unbound-1.17: as Unbound's mesh reply: secure data answered,
	 * or bogus data withheld (SERVFAIL; a CD client gets the data, not
	 * counted) */
	if(security == SEC_SECURE)
		p->w->stats.ans_secure++;
	else if((security == SEC_BOGUS ||
		security == SEC_SECURE_SENTINEL_FAIL) && rcode == RCODE_SERVFAIL)
		p->w->stats.ans_bogus++;
	if(!p->in_call)
		worker_stats_reply(p, reply, len);
	if(p->in_call) {
		/* answered inside mesh_new_client: the caller sends it */
		if(len == 0)
			p->filtered_out = 1;   /* a policy's DROP: no reply */
		else if(len <= p->sync_cap) {
			memcpy(p->sync_out, reply, len);
			p->sync_len = len;
			if(__builtin_expect(
				p->w->daemon->modules.query_before_cache, 0) &&
				len > 0 && (p->sync_len = filter_reply(p,
				p->sync_out, len,
				p->limit && p->limit < p->sync_cap ? p->limit :
				p->sync_cap, &p->chase_wanted)) == 0)
				p->filtered_out = 1;
		}
		p->answered = 1;
		return;
	}
	if(__builtin_expect(p->w->daemon->modules.query_before_cache ||
		p->chase_base != NULL, 0) &&
		len > 0 && !(p->stale && rcode == RCODE_SERVFAIL)) {
		/* cold: the reply filters here, so that a CNAME they put
		 * in can be chased (the client waits on); a chased target's
		 * reply (a local alias's too, filters or not) is joined */
		static _Thread_local uint8_t cbuf[65535];
		size_t cap = p->limit && p->limit < sizeof(cbuf) ? p->limit :
			sizeof(cbuf);
		if(len <= cap) {
			if(p->chase_base) {
				int again;
				len = chase_join(p, reply, len, cbuf, cap,
					&again);
				if(again)
					return;   /* waits on, listed */
			} else {
				int chase;
				memcpy(cbuf, reply, len);
				len = filter_reply(p, cbuf, len, cap,
					&chase);
				if(chase && len > 0 &&
					chase_begin(p, cbuf, len, chase))
					return;   /* waits on, listed */
			}
			p->filter_done = 1;
			reply = len ? cbuf : NULL;
		}
	}
	/* off the list first: sending may close the TCP connection, whose
	 * close hook must not see this waiter, answered now */
	pending_unlink(p);
	if(!(p->stale && rcode == RCODE_SERVFAIL &&
		send_stale(p) == STALE_READY))
		pending_send(p, reply, len);
	pending_free(p);
}

/* The stale timer's callback, now: made active, it runs in this pass
 * of the event loop, before the next poll can report the upstream
 * answer the mesh is about to ask for. (A timer of 0 s raced that
 * answer: libevent activates polled events before expired timers, so
 * a quick upstream beat the expired answer, cachedb-check-when-
 * serve-expired's test failing about one run in four.) */
static void stale_fire_now(struct pending_reply* p)
{
	evtimer_del(p->stale_timer);
	event_active(p->stale_timer, EV_TIMEOUT, 1);
}

/* The mesh's stale hook: a module found no fresh answer for p's
 * question; with stale_on_miss its expired answer goes out now (from
 * the timer's callback, outside the mesh's run). */
static void worker_stale_now(void* arg)
{
	struct pending_reply* p = arg;
	if(!p->stale_on_miss)
		return;
	if(p->in_call) {
		p->stale_soon = 1;   /* worker_resolve fires the timer so */
		return;
	}
	if(p->stale_timer)
		stale_fire_now(p);
}

/* serve-expired-client-timeout passed before resolution ended: the
 * client gets the expired answer; resolution goes on and refreshes the
 * cache. */
static void stale_timer_cb(evutil_socket_t fd, short ev, void* arg)
{
	struct pending_reply* p = arg;
	struct worker* w = p->w;
	uint8_t* buf = malloc(p->limit);
	size_t n = 0;
	enum stale_outcome o = buf ? stale_prepare(p, buf, &n) : STALE_NONE;
	(void)fd;
	(void)ev;
	if(o == STALE_NO_TARGET) {
		/* compat: unbound-1.25.2: its serve-expired callback sends
		 * nothing: the client waits on for resolution (its answer,
		 * or on failure the expired data again, or SERVFAIL) */
		free(buf);
		return;
	}
	if(w->menv.mesh)
		(void)mesh_detach_waiter(w->menv.mesh, p);
	pending_unlink(p);
	if(o == STALE_READY) {
		w->stats.num_expired++;
		p->filter_done = 1;
		pending_send(p, n ? buf : NULL, n);
	} else {
		/* compat: unbound-1.17: evicted meanwhile: what Unbound would
		 * answer then */
		uint8_t sf[LDNS_HEADER_SIZE + LDNS_MAX_DOMAINLEN + 64];
		pending_send(p, sf, msg_error_reply(sf, sizeof(sf), &p->qi,
			RCODE_SERVFAIL, p->edns_size));
	}
	free(buf);
	pending_free(p);
}

void worker_stats_snapshot(const struct worker* w, struct worker_stats* out)
{
	const struct outnet_stats* o;
	int i;
	stats_snapshot(&w->stats, out);
	/* compat: unbound-1.17: TCP connections open now, as Unbound's
	 * tcpusage */
	if(w->tcp)
		out->tcpusage = (uint64_t)tcp_pool_num_open(w->tcp);
	if(w->doh)
		out->tcpusage += (uint64_t)doh_pool_num_open(w->doh);
	if(w->tls)
		out->tcpusage += (uint64_t)tcp_pool_num_open(w->tls);
	if(!w->menv.outnet)
		return;
	o = outnet_get_stats(w->menv.outnet);
	out->qudp_out = __atomic_load_n(&o->sent_udp, __ATOMIC_RELAXED);
	out->qtcp_out = __atomic_load_n(&o->sent_tcp, __ATOMIC_RELAXED);
	out->unwanted_replies = __atomic_load_n(&o->unwanted,
		__ATOMIC_RELAXED);
	out->rrset_bogus = __atomic_load_n(&w->menv.counters.rrset_bogus,
		__ATOMIC_RELAXED);
	out->queries_ratelimited = __atomic_load_n(
		&w->menv.counters.queries_ratelimited, __ATOMIC_RELAXED);
	out->auth_up = __atomic_load_n(&w->menv.counters.authzone_up,
		__ATOMIC_RELAXED);
	out->aggr_noerror = __atomic_load_n(
		&w->menv.counters.aggressive_noerror, __ATOMIC_RELAXED);
	out->aggr_nxdomain = __atomic_load_n(
		&w->menv.counters.aggressive_nxdomain, __ATOMIC_RELAXED);
	out->cachedb_answers = __atomic_load_n(
		&w->menv.counters.cachedb_answers, __ATOMIC_RELAXED);
	out->cachedb_refused = __atomic_load_n(
		&w->menv.counters.cachedb_refused, __ATOMIC_RELAXED);
	for(i = 0; i < MODULE_RPZ_ACTIONS; i++)
		out->rpz_action[i] = __atomic_load_n(
			&w->menv.counters.rpz_action[i], __ATOMIC_RELAXED);
	out->subnet_answers = __atomic_load_n(
		&w->menv.counters.subnet_answers, __ATOMIC_RELAXED);
	out->subnet_cache_answers = __atomic_load_n(
		&w->menv.counters.subnet_cache_answers, __ATOMIC_RELAXED);
	out->dns_error_reports = __atomic_load_n(
		&w->menv.counters.dns_error_reports, __ATOMIC_RELAXED);
}

void worker_refresh_cached(struct worker* w, const struct query_info* qi)
{
	w->base_touched = 1;
	/* one refresh per question at a time (none while it is in flight
	 * already); its result replaces the cache entry */
	if(!w->menv.mesh)
		return;
	/* compat: unbound-1.17: a prefetch adds to the request list too:
	 * sampled as Unbound */
	stats_note_reqlist(&w->stats, mesh_num_states(w->menv.mesh));
	(void)mesh_new_prefetch(w->menv.mesh, qi);
}

/* Detach from the mesh and free every pending reply that match selects.
 * From the head each time: detaching may finish other queries, whose
 * callbacks free their own entries. */
static void drop_pending(struct worker* w,
	int (*match)(const struct pending_reply* p, const void* arg),
	const void* arg)
{
	for(;;) {
		struct pending_reply* p;
		for(p = w->pending; p; p = p->next)
			if(match(p, arg))
				break;
		if(!p)
			return;
		if(w->menv.mesh)
			(void)mesh_detach_client(w->menv.mesh, p);
		pending_unlink(p);
		pending_free(p);
	}
}

static int on_tcp_conn(const struct pending_reply* p, const void* arg)
{
	const struct tcp_handle* h = arg;
	return p->is_tcp && p->tcp.pool == h->pool && p->tcp.slot == h->slot &&
		p->tcp.gen == h->gen;
}

static int on_doh_conn(const struct pending_reply* p, const void* arg)
{
	const struct doh_handle* h = arg;
	return p->is_doh && p->doh.pool == h->pool && p->doh.slot == h->slot &&
		p->doh.gen == h->gen;
}

/* A UDP client waiting for the mesh, not inside its own mesh call. */
static int udp_waiting(const struct pending_reply* p, const void* arg)
{
	(void)arg;
	return !p->is_tcp && !p->in_call;
}

/* A TCP connection closed with answers still to come: stop waiting for
 * them (the mesh drops states that nobody else waits for). */
static void worker_tcp_closed(void* arg, const struct tcp_handle* h)
{
	drop_pending(arg, on_tcp_conn, h);
}

/* The same for a DNS-over-HTTPS connection. */
static void worker_doh_closed(void* arg, const struct doh_handle* h)
{
	drop_pending(arg, on_doh_conn, h);
}

/* compat: unbound-1.17: rc: flush_requestlist, in this worker's own thread
 * (queued on its base by the remote control). UDP clients waiting for the mesh
 * are forgotten without a reply, as Unbound; a state nobody waits for any more
 * stops. Stream waiters (TCP, TLS, HTTPS) stay: their connection expects its
 * answer. */
void worker_flush_requestlist(struct worker* w)
{
	if(!w->menv.mesh)
		return;
	drop_pending(w, udp_waiting, NULL);
	w->stats.req_cur_all = mesh_num_states(w->menv.mesh);
	w->stats.req_cur_user = mesh_num_waiters(w->menv.mesh);
}

/* A waiter for qi from the client ci, listed (not in the mesh yet);
 * NULL with *why (wait-limited, no memory). */
static struct pending_reply* pending_create(struct worker* w,
	const struct query_info* qi, size_t limit, uint16_t edns_size,
	const struct client_info* ci, enum resolve_outcome* why)
{
	struct pending_reply* p;
	int limit_n = w->env->cfg->wait_limit;
	/* compat: unbound-1.20: a query with a valid server cookie has the
	 * wait-limit-cookie limit (0: none); wait-limit 0 turns both off.
	 * compat: unbound-1.22: a wait-limit(-cookie)-netblock over them
	 * (-1: none; the loopback is -1 unless set) */
	if(limit_n > 0) {
		int cookie = w->env->cfg->do_answer_cookie &&
			qi->cookie_valid;
		if(cookie)
			limit_n = w->env->cfg->wait_limit_cookie;
		if(limit_n > 0)
			limit_n = wait_blocks_limit(w->env->wait_blocks,
				ci->addr, ci->addrlen, cookie, limit_n);
		else	limit_n = -1;
	} else	limit_n = -1;
	*why = RESOLVE_FAILED;
	if(!w->menv.mesh)
		return NULL;
	/* a netblock's 0: nothing of it may wait */
	if(limit_n >= 0 && (limit_n == 0 || !wait_limit_take(w->waits,
		ci->addr, ci->addrlen, limit_n))) {
		w->stats.num_wait_limited++;
		*why = RESOLVE_WAIT_LIMITED;
		return NULL;
	}
	if(!(p = spare_zalloc(&w->pending_spare, sizeof(*p)))) {
		if(limit_n > 0)
			wait_limit_give(w->waits, ci->addr, ci->addrlen);
		return NULL;
	}
	p->counted = limit_n > 0;
	p->w = w;
	p->is_tcp = ci->is_tcp;
	p->udp_fd = ci->udp_fd;
	if(ci->tcp) {
		p->tcp = *ci->tcp;
		if(ci->tcp->pool == w->tls && w->env->cfg->pad_responses &&
			qi->pkt && edns_query_has_padding(qi->pkt, qi->pkt_len))
			p->pad = w->env->cfg->pad_responses_block_size;
	}
	if(ci->doh) {
		p->is_doh = 1;
		p->doh = *ci->doh;
	}
	memcpy(&p->addr, ci->addr, ci->addrlen);
	p->addrlen = ci->addrlen;
	if(__builtin_expect(ci->peer != NULL, 0)) {
		memcpy(&p->peer, ci->peer, ci->peerlen);
		p->peerlen = ci->peerlen;
	}
	if(__builtin_expect(ci->dst != NULL, 0))
		p->dst = *ci->dst;
	/* cold: a reply filter (respip) needs the client's view; a second
	 * acl lookup here keeps it off the cache-hit path's arguments */
	p->view = -1;
	p->tags = 0;
	if(__builtin_expect(w->daemon->modules.query_before_cache, 0)) {
		/* compat: unbound-1.17: interface-view and interface-tag
		 * for a client no netblock holds, as on the hit path */
		struct acl_match am = acl_list_match(w->env->acl, ci->addr,
			ci->addrlen);
		const struct acl_policy* pol = am.policy;
		if(am.action == acl_refuse && acl_list_unheld(w->env->acl,
			am) && query_local_addr(ci, &p->local, &p->local_len))
			pol = client_policy(w, ci->addr, ci->addrlen,
				&p->local, p->local_len);
		else
			p->local_len = 0;
		p->view = worker_view_index(w, pol);
		p->tags = pol ? pol->tags : 0;
		/* the question, for a CNAME a filter puts in to chase */
		p->qi = *qi;
		p->qi.pkt = NULL;
		p->qi.pkt_len = 0;
		p->qi.cookie = NULL;
	}
	/* qi->cookie is set only when answer-cookie is on */
	if(w->env->cfg->do_answer_cookie && qi->cookie) {
		p->has_cookie = 1;
		memcpy(p->cookie, qi->cookie, COOKIE_OPT_LEN);
	}
	if(w->env->reply_options)
		p->reply_opts = qi->reply_opts;
	p->limit = limit;
	p->edns_size = edns_size;
	p->next = w->pending;
	if(w->pending)
		w->pending->prev = p;
	w->pending = p;
	worker_stats_enter(w, p);
	return p;
}

enum resolve_outcome worker_chase(struct worker* w,
	const struct query_info* qi, size_t limit, uint16_t edns_size,
	const struct client_info* ci, uint8_t* out, size_t base_len, int mode,
	size_t* reply_len)
{
	enum resolve_outcome why;
	struct pending_reply* p = pending_create(w, qi, limit, edns_size, ci,
		&why);
	w->base_touched = 1;
	*reply_len = base_len;
	if(!p)
		return why == RESOLVE_WAIT_LIMITED ? why : RESOLVE_ANSWERED;
	p->filter_done = 1;
	/* the question (pending_create keeps it only for reply filters):
	 * the target is asked with its type, class and flags */
	p->qi = *qi;
	p->qi.pkt = NULL;
	p->qi.pkt_len = 0;
	p->qi.cookie = NULL;
	if(chase_begin(p, out, base_len, mode))
		return RESOLVE_DEFERRED;
	pending_unlink(p);
	pending_free(p);
	return RESOLVE_ANSWERED;
}

enum resolve_outcome worker_resolve(struct worker* w,
	const struct query_info* qi, size_t limit, uint16_t edns_size,
	const struct client_info* ci, uint8_t* out, size_t outcap,
	int stale_ms, size_t* reply_len)
{
	struct pending_reply* p;
	enum mesh_new_outcome added;
	enum resolve_outcome why;
	w->base_touched = 1;
	*reply_len = 0;
	if(!(p = pending_create(w, qi, limit, edns_size, ci, &why)))
		return why;
	p->sync_out = out;
	p->sync_cap = outcap;
	if(stale_ms < 0) {
		stale_ms = -stale_ms;
		p->stale_on_miss = 1;
	}
	if(stale_ms > 0) {
		p->stale = 1;
		p->qi = *qi;
		p->qi.pkt = NULL;
		p->qi.pkt_len = 0;
		p->qi.cookie = NULL;  /* the query's stack: p->cookie has it */
	}
	p->in_call = 1;
	added = mesh_new_client_from(w->menv.mesh, qi, ci->addr, ci->addrlen,
		limit, edns_size, worker_reply_cb, p);
	p->in_call = 0;
	if(added != MESH_NEW_ADDED) {
		/* not in the mesh after all */
		w->stats.req_cur_all = mesh_num_states(w->menv.mesh);
		w->stats.req_cur_user = mesh_num_waiters(w->menv.mesh);
	}
	if(added == MESH_NEW_FULL) {
		w->stats.req_exceeded++;
		pending_unlink(p);
		pending_free(p);
		return RESOLVE_MESH_FULL;
	}
	if(added != MESH_NEW_ADDED || p->answered) {
		size_t n = added == MESH_NEW_ADDED ? p->sync_len : 0;
		if(p->stale && n >= LDNS_HEADER_SIZE &&
			(out[3] & 0xf) == RCODE_SERVFAIL) {
			/* cold: the expired answer replaces the SERVFAIL,
			 * the filters' verdict (and a CNAME's join) in;
			 * compat: unbound-1.25.2: a CNAME whose target is
			 * not cached leaves the SERVFAIL */
			uint8_t* sb = p->limit <= outcap ? malloc(p->limit) :
				NULL;
			size_t e = 0;
			if(sb && stale_prepare(p, sb, &e) == STALE_READY) {
				w->stats.num_expired++;
				memcpy(out, sb, e);
				n = e;
				p->filtered_out = e == 0;
			}
			free(sb);
		}
		if(p->filtered_out) {
			/* compat: unbound-1.17: respip deny: no reply */
			pending_unlink(p);
			pending_free(p);
			*reply_len = 0;
			return RESOLVE_ANSWERED;
		}
		if(p->chase_wanted && n > 0 && added == MESH_NEW_ADDED &&
			chase_begin(p, out, n, p->chase_wanted)) {
			/* cold: a CNAME a filter put in: p waits for its
			 * target, listed */
			p->filter_done = 1;
			return RESOLVE_DEFERRED;
		}
		pending_unlink(p);
		pending_free(p);
		*reply_len = n;
		/* an empty answer at once (dropped inside the mesh) is
		 * answered SERVFAIL by the caller, as no memory is */
		return n > 0 ? RESOLVE_ANSWERED : RESOLVE_FAILED;
	}
	if(p->stale && (p->stale_timer = evtimer_new(w->base, stale_timer_cb,
		p)) != NULL) {
		struct timeval tv;
		tv.tv_sec = stale_ms / 1000;
		tv.tv_usec = (stale_ms % 1000) * 1000;
		if(p->stale_soon)
			stale_fire_now(p);
		else
			evtimer_add(p->stale_timer, &tv);
	}
	return RESOLVE_DEFERRED;
}

/* compat: unbound-1.17: the proxy's own address is judged by
 * access-control first: where it is denied or refused, the query is
 * answered as the proxy's (dropped or REFUSED); else as the client's. */
static struct query_result answer_via_proxy(struct worker* w,
	const uint8_t* pkt, size_t len, struct client_info* ci,
	const struct sockaddr_storage* client, socklen_t clientlen,
	uint8_t* out, size_t outcap)
{
	enum acl_access a = acl_list_match(w->env->acl, ci->addr,
		ci->addrlen).action;
	if(a != acl_deny && a != acl_refuse) {
		if(!ci->is_tcp) {
			ci->peer = ci->addr;
			ci->peerlen = ci->addrlen;
		}
		ci->addr = client;
		ci->addrlen = clientlen;
	}
	return query_answer(w, pkt, len, ci, out, outcap);
}

/* Cold: a datagram on a proxy-protocol-port (ci: its real sender):
 * its PROXYv2 header read, the query after it answered for the client
 * the header names. A datagram without a whole, supported header is
 * dropped. */
static struct query_result __attribute__((noinline)) proxied_answer(
	struct worker* w, const uint8_t* pkt, size_t len,
	struct client_info* ci, uint8_t* out)
{
	struct proxy_v2_header h;
	enum proxy_v2_result pr = proxy_v2_parse(pkt, len, &h, NULL);
	struct query_result none;
	if(pr != PROXY_V2_OK) {
		/* compat: unbound-1.17: dropped, as Unbound; unlike
		 * Unbound logged at verbosity 4, not as an error: anyone
		 * who reaches the port could fill the log */
		if(verbosity >= VERB_ALGO) {
			char why[96];
			snprintf(why, sizeof(why), "proxy_protocol: could not "
				"consume PROXYv2 header (%s), dropped datagram "
				"from", proxy_v2_result_str(pr));
			log_addr(VERB_ALGO, why, ci->addr, ci->addrlen);
		}
		none.len = 0;
		none.what = QUERY_DROP;
		return none;
	}
	pkt += h.len;
	len -= h.len;
	if(!h.has_addr)  /* LOCAL or unspecified: the proxy itself */
		return query_answer(w, pkt, len, ci, out, UDP_REPLY_MAX);
	return answer_via_proxy(w, pkt, len, ci, &h.addr, h.addrlen, out,
		UDP_REPLY_MAX);
}

/* One wake-up of a UDP socket; inlined into each callback, so the
 * plain one has no proxy code in it. */
/* Cold, sock-queue-timeout only: did datagram h wait in the socket
 * buffer longer than the limit (now: CLOCK_REALTIME of the batch)? */
static int __attribute__((noinline)) waited_too_long(struct worker* w,
	struct msghdr* h, const struct timespec* now)
{
	struct cmsghdr* c;
	for(c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR(h, c)) {
		struct timespec ts;
		int64_t ns;
		if(c->cmsg_level != SOL_SOCKET || c->cmsg_type !=
			SCM_TIMESTAMPNS)
			continue;
		memcpy(&ts, CMSG_DATA(c), sizeof(ts));
		ns = (int64_t)(now->tv_sec - ts.tv_sec) * 1000000000 +
			(now->tv_nsec - ts.tv_nsec);
		/* compat: unbound-1.18: dropped before it counts as a
		 * query, as Unbound */
		if(ns > (int64_t)w->env->cfg->sock_queue_timeout *
			1000000000) {
			w->stats.num_sock_timed_out++;
			return 1;
		}
		return 0;
	}
	return 0;
}

static inline __attribute__((always_inline)) void udp_read(struct worker* w,
	evutil_socket_t fd, int proxy, int stamped)
{
	struct timespec now_rt;
	struct udp_batch* b = w->udp;
	int round, i, n, nsend;
	if(atomic_load_explicit(&w->daemon->env_gen, memory_order_acquire)
		!= w->env_gen)
		worker_refresh_env(w);
	w->now = time(NULL);
	for(round = 0; round < UDP_ROUNDS; round++) {
		/* only the entries the kernel wrote to need resetting */
		for(i = 0; i < b->dirty; i++) {
			b->rmsg[i].msg_hdr.msg_namelen = sizeof(b->addr[i]);
			b->rmsg[i].msg_hdr.msg_flags = 0;
			if(stamped)
				b->rmsg[i].msg_hdr.msg_controllen =
					sizeof(b->stamp[i].buf);
		}
		b->dirty = 0;
		n = udp_recv_batch(fd, b->rmsg, UDP_BATCH);
		if(n > 0)
			b->dirty = n;
		if(n <= 0) {
			if(n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
				errno != EINTR)
				verbose(VERB_ALGO, "recvmmsg: %s",
					strerror(errno));
			return;
		}
		nsend = 0;
		if(stamped)
			clock_gettime(CLOCK_REALTIME, &now_rt);
		for(i = 0; i < n; i++) {
			struct msghdr* h = &b->rmsg[i].msg_hdr;
			uint8_t* out = b->reply + (size_t)i * UDP_REPLY_MAX;
			struct client_info ci;
			struct query_result r;
			if(stamped && waited_too_long(w, h, &now_rt))
				continue;
			if(h->msg_flags & MSG_TRUNC) {
				/* over UDP_QUERY_MAX: parse what we have,
				 * which is missing its end: FORMERR */
				b->rmsg[i].msg_len = UDP_QUERY_MAX;
			}
			ci.addr = &b->addr[i];
			ci.addrlen = h->msg_namelen;
			ci.is_tcp = 0;
			ci.udp_fd = fd;
			ci.tcp = NULL;
			ci.doh = NULL;
			ci.peer = NULL;
			ci.dst = NULL;
			if(__builtin_expect(proxy, 0))
				r = proxied_answer(w, b->query[i],
					b->rmsg[i].msg_len, &ci, out);
			else	r = query_answer(w, b->query[i],
				b->rmsg[i].msg_len, &ci, out, UDP_REPLY_MAX);
			if(r.what != QUERY_REPLY)
				continue;
			b->siov[nsend].iov_base = out;
			b->siov[nsend].iov_len = r.len;
			b->smsg[nsend].msg_hdr.msg_name = &b->addr[i];
			b->smsg[nsend].msg_hdr.msg_namelen = h->msg_namelen;
			/* iov, no control data: set once (udp_batch_create) */
			nsend++;
		}
		if(n < UDP_BATCH && w->wait) {
			/* the last batch: its replies go with the wait's
			 * next system call */
			worker_wait_defer(w->wait, fd, b->smsg, nsend);
			return;
		}
		udp_send_all(fd, b->smsg, nsend);
		if(n < UDP_BATCH)
			return;
	}
}

/* One wake-up of an interface-automatic socket: udp_read with each
 * datagram's destination read and the reply sent from it, over the
 * headers of w->udp_pi. A copy of its own, so that udp_read, the plain
 * sockets' path, stays as it was (sharing it by a constant parameter
 * still changed its register use: one more load a query). */
static inline __attribute__((always_inline)) void udp_read_pktinfo(
	struct worker* w, evutil_socket_t fd, int proxy)
{
	struct udp_batch* b = w->udp;
	struct udp_pktinfo_batch* pi = w->udp_pi;
	int round, i, n, nsend;
	if(atomic_load_explicit(&w->daemon->env_gen, memory_order_acquire)
		!= w->env_gen)
		worker_refresh_env(w);
	w->now = time(NULL);
	for(round = 0; round < UDP_ROUNDS; round++) {
		/* only the entries the kernel wrote to need resetting */
		for(i = 0; i < pi->dirty; i++) {
			pi->rmsg[i].msg_hdr.msg_namelen = sizeof(b->addr[i]);
			pi->rmsg[i].msg_hdr.msg_flags = 0;
			pi->rmsg[i].msg_hdr.msg_controllen =
				sizeof(pi->rctl[i]);
		}
		pi->dirty = 0;
		n = udp_recv_batch(fd, pi->rmsg, UDP_BATCH);
		if(n > 0)
			pi->dirty = n;
		if(n <= 0) {
			if(n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
				errno != EINTR)
				verbose(VERB_ALGO, "recvmmsg: %s",
					strerror(errno));
			return;
		}
		nsend = 0;
		for(i = 0; i < n; i++) {
			struct msghdr* h = &pi->rmsg[i].msg_hdr;
			uint8_t* out = b->reply + (size_t)i * UDP_REPLY_MAX;
			struct client_info ci;
			struct query_result r;
			if(h->msg_flags & MSG_TRUNC) {
				/* over UDP_QUERY_MAX: parse what we have,
				 * which is missing its end: FORMERR */
				pi->rmsg[i].msg_len = UDP_QUERY_MAX;
			}
			ci.addr = &b->addr[i];
			ci.addrlen = h->msg_namelen;
			ci.is_tcp = 0;
			ci.udp_fd = fd;
			ci.tcp = NULL;
			ci.doh = NULL;
			ci.peer = NULL;
			udp_pktinfo_read(h, &pi->dst[i]);
			ci.dst = &pi->dst[i];
			if(__builtin_expect(proxy, 0))
				r = proxied_answer(w, b->query[i],
					pi->rmsg[i].msg_len, &ci, out);
			else	r = query_answer(w, b->query[i],
				pi->rmsg[i].msg_len, &ci, out, UDP_REPLY_MAX);
			if(r.what != QUERY_REPLY)
				continue;
			b->siov[nsend].iov_base = out;
			b->siov[nsend].iov_len = r.len;
			pi->smsg[nsend].msg_hdr.msg_name = &b->addr[i];
			pi->smsg[nsend].msg_hdr.msg_namelen = h->msg_namelen;
			/* iov: set once; the source address: per reply */
			udp_pktinfo_put(&pi->smsg[nsend].msg_hdr,
				&pi->sctl[nsend], &pi->dst[i]);
			nsend++;
		}
		if(n < UDP_BATCH && w->wait) {
			worker_wait_defer(w->wait, fd, pi->smsg, nsend);
			return;
		}
		udp_send_all(fd, pi->smsg, nsend);
		if(n < UDP_BATCH)
			return;
	}
}

static void udp_read_cb(evutil_socket_t fd, short ev, void* arg)
{
	(void)ev;
	udp_read(arg, fd, 0, 0);
}

/* A proxy-protocol-port's socket. */
static void udp_proxy_read_cb(evutil_socket_t fd, short ev, void* arg)
{
	(void)ev;
	udp_read(arg, fd, 1, 0);
}

/* A socket with receive times (sock-queue-timeout): a copy of its own,
 * so the plain one pays nothing for the option. */
static void udp_stamped_read_cb(evutil_socket_t fd, short ev, void* arg)
{
	(void)ev;
	udp_read(arg, fd, 0, 1);
}

/* compat: unbound-1.18: sock-queue-timeout: receive times on a UDP
 * socket (Linux SO_TIMESTAMPNS); 0 when the system has none (logged,
 * the option is then not followed on it). */
static int udp_want_stamps(int fd)
{
	int on = 1;
#ifdef SO_TIMESTAMPNS
	if(setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on)) == 0)
		return 1;
	log_warn("sock-queue-timeout: setsockopt(SO_TIMESTAMPNS): %s",
		strerror(errno));
#else
	(void)fd;
	(void)on;
	log_warn("sock-queue-timeout: no SO_TIMESTAMPNS on this system");
#endif
	return 0;
}

/* An interface-automatic socket: each datagram's destination read,
 * the reply sent from it. */
static void udp_pktinfo_read_cb(evutil_socket_t fd, short ev, void* arg)
{
	(void)ev;
	udp_read_pktinfo(arg, fd, 0);
}

/* The same on a proxy-protocol-port. */
static void udp_pktinfo_proxy_read_cb(evutil_socket_t fd, short ev,
	void* arg)
{
	(void)ev;
	udp_read_pktinfo(arg, fd, 1);
}

/* A query's outcome as the stream protocols take it. */
static struct stream_answer stream_answer_of(struct query_result r)
{
	struct stream_answer a;
	a.len = r.len;
	a.what = r.what == QUERY_REPLY ? STREAM_ANSWER_REPLY :
		r.what == QUERY_DEFERRED ? STREAM_ANSWER_DEFERRED :
		STREAM_ANSWER_NONE;
	return a;
}

/* A query that came over a stream (TCP, TLS, HTTPS): the worker's env
 * and clock brought up to date, ci filled but for its connection. */
static void stream_query_start(struct worker* w, struct client_info* ci,
	const struct sockaddr_storage* addr, socklen_t addrlen)
{
	if(atomic_load_explicit(&w->daemon->env_gen, memory_order_acquire)
		!= w->env_gen)
		worker_refresh_env(w);
	w->now = time(NULL);
	ci->addr = addr;
	ci->addrlen = addrlen;
	ci->is_tcp = 1;
	ci->udp_fd = -1;
	ci->tcp = NULL;
	ci->doh = NULL;
	ci->peer = NULL;
	ci->dst = NULL;
}

struct stream_answer worker_tcp_answer(void* arg, const uint8_t* pkt,
	size_t len, const struct sockaddr_storage* addr, socklen_t addrlen,
	uint8_t* out, size_t outcap, const struct tcp_handle* h)
{
	struct worker* w = arg;
	struct client_info ci;
	if(__builtin_expect(h->peer != NULL, 0)) {
		/* through a PROXYv2 proxy: the proxy's address first */
		stream_query_start(w, &ci, h->peer, h->peerlen);
		ci.tcp = h;
		return stream_answer_of(answer_via_proxy(w, pkt, len, &ci,
			addr, addrlen, out, outcap));
	}
	stream_query_start(w, &ci, addr, addrlen);
	ci.tcp = h;
	return stream_answer_of(query_answer(w, pkt, len, &ci, out, outcap));
}

/* A DNS-over-HTTPS query: as TCP (no UDP size limit), num.query.https. */
struct stream_answer worker_doh_answer(void* arg, const uint8_t* pkt,
	size_t len, const struct sockaddr_storage* addr, socklen_t addrlen,
	uint8_t* out, size_t outcap, const struct doh_handle* h)
{
	struct worker* w = arg;
	struct client_info ci;
	stream_query_start(w, &ci, addr, addrlen);
	ci.doh = h;
	/* compat: unbound-1.17: as Unbound 1.17: over TLS, num.query.tls (and
	 * .resume) and num.query.https; cleartext (http-notls-downstream)
	 * neither */
	switch(doh_handle_tls(h)) {
	case 2:
		w->stats.num_tls_resume++;
		/* fallthrough */
	case 1:
		w->stats.num_tls++;
		w->stats.num_https++;
		break;
	default:
		break;
	}
	return stream_answer_of(query_answer(w, pkt, len, &ci, out, outcap));
}

/* The DNS-over-HTTPS pool, when this worker has an https-port socket. */
static int worker_doh_listen(struct worker* w, const struct listen_socket* s)
{
	const struct config_file* cfg = w->env->cfg;
	if(!w->doh) {
		struct doh_settings ds;
		ds.endpoint = cfg->http_endpoint;
		ds.max_streams = cfg->http_max_streams;
		ds.nodelay = cfg->http_nodelay;
		ds.max_conns = cfg->incoming_num_tcp;
		ds.idle_timeout_ms = stream_idle_ms(cfg);
		ds.conn_limit = w->env->conn_limit;
		w->doh = doh_pool_create(w->base, &ds, worker_doh_answer,
			worker_doh_closed, w);
		if(!w->doh)
			return 0;
	}
	if(!w->daemon->doh_tls)  /* cleartext (http-notls-downstream) */
		return doh_pool_add_listener(w->doh, s->fd, NULL);
	return doh_pool_add_tls_listener(w->doh, s->fd, tls_server_ref_get,
		w->daemon->doh_tls);
}

struct stream_answer worker_tls_answer(void* arg, const uint8_t* pkt,
	size_t len, const struct sockaddr_storage* addr, socklen_t addrlen,
	uint8_t* out, size_t outcap, const struct tcp_handle* h)
{
	struct worker* w = arg;
	struct stream_answer a;
	w->stats.num_tls++;
	if(tcp_handle_tls_resumed(h))
		w->stats.num_tls_resume++;
	a = worker_tcp_answer(arg, pkt, len, addr, addrlen, out, outcap, h);
	if(a.what == STREAM_ANSWER_REPLY && w->env->cfg->pad_responses &&
		edns_query_has_padding(pkt, len))
		a.len = edns_pad_reply(out, a.len, outcap,
			(size_t)w->env->cfg->pad_responses_block_size);
	return a;
}

/* compat: unbound-1.17: unwanted-reply-threshold's defensive action: the
 * RRset and message caches are emptied (a spoofed reply that got in is
 * gone); the infrastructure, key and negative caches stay, as Unbound. */
static void worker_unwanted_flush(void* arg)
{
	struct worker* w = arg;
	rrset_cache_flush_all(w->menv.rrset_cache);
	msg_cache_flush_all(w->menv.msg_cache);
}

/* This worker's part of recursion: its upstream I/O and its mesh. */
static int worker_setup_recursion(struct worker* w)
{
	struct daemon* d = w->daemon;
	struct module_env* e = &w->menv;
	memset(e, 0, sizeof(*e));
	e->cfg = w->env->cfg;
	e->hints = w->env->hints;
	e->anchors = w->env->anchors;
	e->auth = w->env->auth;
	e->infra = d->infra;
	e->msg_cache = d->msg_cache;
	e->rrset_cache = d->rrset_cache;
	e->neg_cache = d->neg_cache;
	if(!worker_resolver_start(e, &d->modules, w->base, d->out_ports))
		return 0;
	outnet_set_unwanted_action(e->outnet, worker_unwanted_flush, w);
	worker_set_taps(w);
	mesh_set_stale_hook(e->mesh, worker_reply_cb, worker_stale_now);
	return 1;
}

static struct udp_batch* udp_batch_create(int stamped)
{
	struct udp_batch* b = calloc(1, sizeof(*b));
	int i;
	if(!b)
		return NULL;
	b->reply = malloc((size_t)UDP_BATCH * UDP_REPLY_MAX);
	if(!b->reply) {
		free(b);
		return NULL;
	}
	for(i = 0; i < UDP_BATCH; i++) {
		b->riov[i].iov_base = b->query[i];
		b->riov[i].iov_len = UDP_QUERY_MAX;
		b->rmsg[i].msg_hdr.msg_name = &b->addr[i];
		b->rmsg[i].msg_hdr.msg_namelen = sizeof(b->addr[i]);
		b->rmsg[i].msg_hdr.msg_iov = &b->riov[i];
		b->rmsg[i].msg_hdr.msg_iovlen = 1;
		b->smsg[i].msg_hdr.msg_iov = &b->siov[i];
		b->smsg[i].msg_hdr.msg_iovlen = 1;
		if(stamped) {
			b->rmsg[i].msg_hdr.msg_control = b->stamp[i].buf;
			b->rmsg[i].msg_hdr.msg_controllen =
				sizeof(b->stamp[i].buf);
		}
	}
	return b;
}

/* The headers for interface-automatic sockets, over b's buffers. */
static struct udp_pktinfo_batch* udp_pktinfo_batch_create(
	struct udp_batch* b)
{
	struct udp_pktinfo_batch* pi = calloc(1, sizeof(*pi));
	int i;
	if(!pi)
		return NULL;
	for(i = 0; i < UDP_BATCH; i++) {
		pi->rmsg[i].msg_hdr = b->rmsg[i].msg_hdr;
		pi->rmsg[i].msg_hdr.msg_control = pi->rctl[i].buf;
		pi->rmsg[i].msg_hdr.msg_controllen = sizeof(pi->rctl[i]);
		pi->smsg[i].msg_hdr = b->smsg[i].msg_hdr;
	}
	return pi;
}

/* The eventfd woke the loop: stop, or run what was posted, in order. */
static void post_cb(evutil_socket_t fd, short ev, void* arg)
{
	struct worker* w = arg;
	struct worker_post* p, *next;
	uint64_t v;
	(void)ev;
	if(read(fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		verbose(VERB_ALGO, "worker eventfd read: %s", strerror(errno));
	if(atomic_load(&w->stopping)) {
		event_base_loopbreak(w->base);
		return;
	}
	pthread_mutex_lock(&w->post_lock);
	p = w->posts;
	w->posts = w->posts_last = NULL;
	pthread_mutex_unlock(&w->post_lock);
	for(; p; p = next) {
		next = p->next;
		p->fn(-1, 0, p->arg);
		free(p);
	}
}

static void post_wake(struct worker* w)
{
	uint64_t one = 1;
	/* a full counter still wakes the loop: the error is harmless */
	if(write(w->post_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		log_err("worker eventfd write: %s", strerror(errno));
}

int worker_post(struct worker* w, worker_post_fn fn, void* arg)
{
	struct worker_post* p = malloc(sizeof(*p));
	if(!p)
		return 0;
	p->next = NULL;
	p->fn = fn;
	p->arg = arg;
	pthread_mutex_lock(&w->post_lock);
	if(w->posts_last)
		w->posts_last->next = p;
	else	w->posts = p;
	w->posts_last = p;
	pthread_mutex_unlock(&w->post_lock);
	post_wake(w);
	return 1;
}

/* A base without locks: only this worker's thread ever touches it.
 * Without libevent's time cache too: the cache costs a clock read after
 * every epoll_wait, and with no timer pending (UDP cache hits) nothing
 * reads the time at all then; timers read the clock when they need it. */
/* The end of a loop turn in which the mesh answered UDP clients. */
static void replies_flush_cb(evutil_socket_t fd, short ev, void* arg)
{
	struct worker* w = arg;
	(void)fd;
	(void)ev;
	reply_batch_flush(w->replies);
}

static struct event_base* worker_base_new(void)
{
	struct event_config* cfg = event_config_new();
	struct event_base* b;
	if(!cfg)
		return NULL;
	(void)event_config_set_flag(cfg, EVENT_BASE_FLAG_NOLOCK);
	(void)event_config_set_flag(cfg, EVENT_BASE_FLAG_NO_CACHE_TIME);
	b = event_base_new_with_config(cfg);
	event_config_free(cfg);
	return b;
}

/* The bound on a DoT handshake: the idle timeout, at most 10 s (a
 * client that never finishes it holds a connection slot). */
static int tls_handshake_ms(const struct config_file* cfg)
{
	return cfg->tcp_idle_timeout > 0 && cfg->tcp_idle_timeout < 10000 ?
		cfg->tcp_idle_timeout : 10000;
}

struct worker* worker_create(struct daemon* d, int num)
{
	struct worker* w = aligned_alloc(64, (sizeof(struct worker) + 63) /
		64 * 64);
	struct listen_sockets* ls = d->ports;
	int i;
	if(!w)
		return NULL;
	memset(w, 0, sizeof(*w));
	w->thread_num = num;
	w->daemon = d;
	w->post_fd = -1;
	spare_list_init(&w->pending_spare, 512);
	pthread_mutex_init(&w->post_lock, NULL);
	atomic_init(&w->stopping, 0);
	w->env = daemon_env_acquire(d, &w->env_gen);
	w->base = worker_base_new();
	w->udp = udp_batch_create(w->env->cfg->sock_queue_timeout > 0);
	/* answer-cookie's checked cookies (12 KiB; a reload may turn
	 * cookies on, so made always) */
	w->cookie_memo = calloc(1, sizeof(*w->cookie_memo));
	w->replies = reply_batch_create();   /* NULL: sendto each */
	/* activated with the batch's first reply: libevent runs active
	 * callbacks in order and appends this one, so it runs after the
	 * rest of the loop turn's and before the next poll */
	if(w->replies && !(w->replies_ev = event_new(w->base, -1, 0,
		replies_flush_cb, w))) {
		reply_batch_delete(w->replies);
		w->replies = NULL;
	}
	w->events = calloc((size_t)ls->num, sizeof(*w->events));
	if(!w->base || !w->udp || !w->events)
		goto fail;
	w->post_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if(w->post_fd == -1 || !(w->post_ev = event_new(w->base, w->post_fd,
		EV_READ | EV_PERSIST, post_cb, w)) ||
		event_add(w->post_ev, NULL) != 0)
		goto fail;
	w->tcp = tcp_pool_create(w->base, w->env->cfg->incoming_num_tcp,
		stream_idle_ms(w->env->cfg), worker_tcp_answer, w);
	if(w->tcp) {
		tcp_pool_set_close_hook(w->tcp, worker_tcp_closed);
		tcp_pool_set_conn_limit(w->tcp, w->env->conn_limit);
	}
	if(w->tcp && d->tls && listen_sockets_have_tls(ls)) {
		const struct config_file* cfg = w->env->cfg;
		w->tls = tcp_pool_create_tls(w->base, cfg->incoming_num_tcp,
			stream_idle_ms(cfg), tls_handshake_ms(cfg),
			worker_tls_answer, w);
		if(!w->tls)
			goto fail;
		tcp_pool_set_close_hook(w->tls, worker_tcp_closed);
		tcp_pool_set_conn_limit(w->tls, w->env->conn_limit);
	}
	w->retire_timer = evtimer_new(w->base, retire_cb, w);
	w->waits = wait_limit_create();
	if(!w->tcp || !w->retire_timer || !w->waits ||
		!worker_setup_recursion(w))
		goto fail;
	worker_doh_apply(w);
	for(i = 0; i < ls->num; i++) {
		struct listen_socket* s = &ls->socks[i];
		if(s->thread != -1 && s->thread != num)
			continue;  /* another worker's own socket */
		if(s->is_https) {
			if(!worker_doh_listen(w, s))
				goto fail;
			continue;
		}
		if(s->is_tcp && s->is_tls && w->tls) {
			if(!tcp_pool_add_tls_listener(w->tls, s->fd,
				tls_server_ref_get, d->tls) || (s->is_proxy &&
				!tcp_pool_set_listener_proxy(w->tls, s->fd)))
				goto fail;
			continue;
		}
		if(s->is_tcp) {
			if(!tcp_pool_add_listener(w->tcp, s->fd) ||
				(s->is_proxy &&
				!tcp_pool_set_listener_proxy(w->tcp, s->fd)))
				goto fail;
			continue;
		}
		if(s->is_pktinfo && !w->udp_pi &&
			!(w->udp_pi = udp_pktinfo_batch_create(w->udp)))
			goto fail;
		w->events[w->num_events] = event_new(w->base, s->fd,
			EV_READ | EV_PERSIST, s->is_pktinfo ? (s->is_proxy ?
			udp_pktinfo_proxy_read_cb : udp_pktinfo_read_cb) :
			s->is_proxy ? udp_proxy_read_cb :
			w->env->cfg->sock_queue_timeout > 0 &&
			udp_want_stamps(s->fd) ? udp_stamped_read_cb :
			udp_read_cb, w);
		if(!w->events[w->num_events] || (!d->wait_uring &&
			event_add(w->events[w->num_events], NULL) != 0))
			goto fail;
		w->num_events++;
	}
	return w;
fail:
	log_err("could not create worker %d", num);
	worker_delete(w);
	return NULL;
}

/* The UDP sockets' wait, made in the thread that waits (its ring is
 * this thread's); without one, they go to libevent as before. */
static void worker_wait_start(struct worker* w)
{
	struct worker_wait* ww;
	int i;
	if(!w->daemon->wait_uring)
		return;   /* added to the base by worker_create */
	ww = worker_wait_create(w->events, w->num_events, &w->base_touched);
	if(ww && worker_wait_attach(ww, w->base)) {
		w->wait = ww;
		verbose(VERB_ALGO, "worker %d waits on io_uring",
			w->thread_num);
		return;
	}
	worker_wait_delete(ww);
	for(i = 0; i < w->num_events; i++)
		if(event_add(w->events[i], NULL) != 0)
			log_err("worker %d: cannot add a UDP socket's event",
				w->thread_num);
}

static void* worker_main(void* arg)
{
	struct worker* w = arg;
	log_thread_set(w->thread_num);
	verbose(VERB_ALGO, "worker %d start", w->thread_num);
	worker_wait_start(w);
	/* worker_wait_start runs the loop once (non-blocking): a stop posted
	 * before it broke that run, and the next run would clear the break
	 * and wait for ever; the flag is set before the wake-up */
	if(!atomic_load(&w->stopping))
		event_base_dispatch(w->base);
	/* the replies it deferred go out now, with the thread's ring */
	worker_wait_delete(w->wait);
	w->wait = NULL;
	verbose(VERB_ALGO, "worker %d stop", w->thread_num);
	return NULL;
}

int worker_start(struct worker* w)
{
	sigset_t all, old;
	int r;
	/* signals are for the main thread only */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&w->thr, NULL, worker_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if(r != 0) {
		log_err("pthread_create: %s", strerror(r));
		return 0;
	}
	return 1;
}

void worker_stop(struct worker* w)
{
	/* no allocation: a flag and a wake-up (post_cb breaks the loop) */
	atomic_store(&w->stopping, 1);
	post_wake(w);
	pthread_join(w->thr, NULL);
}

void worker_delete(struct worker* w)
{
	int i;
	if(!w)
		return;
	reply_batch_delete(w->replies);   /* what the last turn queued */
	w->replies = NULL;
	free(w->cookie_memo);
	w->cookie_memo = NULL;
	if(w->replies_ev)
		event_free(w->replies_ev);
	/* the mesh first: it cancels upstream queries, without callbacks */
	worker_resolver_stop(&w->menv);
	while(w->pending) {
		struct pending_reply* p = w->pending;
		w->pending = p->next;
		pending_free(p);
	}
	spare_list_clear(&w->pending_spare);
	wait_limit_delete(w->waits);
	while(w->retired) {
		struct retired_env* r = w->retired;
		w->retired = r->next;
		serve_env_release(r->env);
		free(r);
	}
	if(w->retire_timer)
		event_free(w->retire_timer);
	for(i = 0; i < w->num_events; i++)
		event_free(w->events[i]);
	if(w->post_ev)
		event_free(w->post_ev);
	if(w->post_fd != -1)
		close(w->post_fd);
	while(w->posts) {  /* posted, never run: the loop had stopped */
		struct worker_post* p = w->posts;
		w->posts = p->next;
		free(p);
	}
	pthread_mutex_destroy(&w->post_lock);
	free(w->events);
	tcp_pool_delete(w->tcp);
	doh_pool_delete(w->doh);
	tcp_pool_delete(w->tls);
	if(w->base)
		event_base_free(w->base);
	if(w->udp)
		free(w->udp->reply);
	free(w->udp);
	free(w->udp_pi);
	serve_env_release(w->env);
	free(w);
}
