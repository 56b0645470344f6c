/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/prometheus.c - the HTTP listener for the Prometheus metrics:
 * read one request head, answer, close. The connections are
 * services/stream_conn.c's: after the answer it shuts the write side
 * and reads and drops what the client still sends for a moment (at most
 * PROM_DRAIN_MAX bytes), so the close does not reset the connection
 * under an answer the client has not read yet. */
#include "config.h"
#include "daemon/prometheus.h"
#include "daemon/prom_http.h"
#include "daemon/prom_metrics.h"
#include "daemon/daemon.h"
#include "daemon/stats.h"
#include "daemon/worker.h"
#include "services/cache/infra.h"
#include "services/cache/msgcache.h"
#include "services/cache/rrset.h"
#include "services/stream_conn.h"
#include "util/config_file.h"
#include "util/net_help.h"
#include "util/log.h"
#include <event2/event.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#define PROM_DRAIN_MAX 65536
#define PROM_DRAIN_SECS 1

struct prom_server {
	struct daemon* d;
	struct event_base* base;   /* NULL until started */
	int fd;                    /* listening socket, -1: none */
	int listening;             /* fd is the pool's listener */
	struct sockaddr_storage addr;
	socklen_t addrlen;
	struct stream_pool* pool;  /* the connections */
	struct timespec start;     /* CLOCK_MONOTONIC, for the uptime */
};

/* The metrics of every thread, now. */
static void build_metrics(struct prom_server* ps, struct strbuf* body)
{
	struct daemon* d = ps->d;
	struct worker_stats* snap;
	struct stats_cache_info ci;
	struct prom_input in;
	struct timespec mono, now;
	int i;
	if(!d->workers) {
		body->oom = 1;
		return;
	}
	if(!(snap = calloc((size_t)d->num_workers, sizeof(*snap)))) {
		body->oom = 1;
		return;
	}
	for(i = 0; i < d->num_workers; i++)
		worker_stats_snapshot(d->workers[i], &snap[i]);
	stats_cache_info_fill(d, &ci);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &now);
	memset(&in, 0, sizeof(in));
	in.threads = snap;
	in.num_threads = d->num_workers;
	in.extended = d->env->cfg->stat_extended;
	in.cache = &ci;
	in.up_us = (uint64_t)(mono.tv_sec - ps->start.tv_sec) * 1000000 +
		(uint64_t)(mono.tv_nsec / 1000) - (uint64_t)(ps->start.tv_nsec /
		1000);
	in.now_us = (uint64_t)now.tv_sec * 1000000 +
		(uint64_t)now.tv_nsec / 1000;
	prom_metrics_write(body, &in);
	free(snap);
}

/* The answer to a request head that is complete (or bad), into out. 0
 * to close at once (out of memory). */
static int build_answer(struct prom_server* ps, struct strbuf* out,
	enum prom_req r)
{
	if(r == PROM_REQ_METRICS || r == PROM_REQ_METRICS_HEAD) {
		struct strbuf body = { NULL, 0, 0, 0 };
		build_metrics(ps, &body);
		if(body.oom) {
			strbuf_clear(&body);
			return 0;
		}
		prom_http_head(out, 200, "text/plain; version=0.0.4; "
			"charset=utf-8", body.len);
		if(r == PROM_REQ_METRICS && body.len)
			strbuf_printf(out, "%.*s", (int)body.len, body.s);
		strbuf_clear(&body);
	} else {
		const char* text;
		int status = prom_http_error(r, &text);
		verbose(VERB_ALGO, "prometheus: answered %d", status);
		prom_http_head(out, status, "text/plain; charset=utf-8",
			strlen(text));
		strbuf_printf(out, "%s", text);
	}
	return !out->oom;
}

/* More of the request head arrived (or the client closed). */
static void prom_readable(void* arg, struct stream_conn* c)
{
	struct prom_server* ps = arg;
	struct strbuf out = { NULL, 0, 0, 0 };
	enum prom_req r;
	if(c->eof) {
		stream_conn_close(c);
		return;
	}
	/* a full buffer is PROM_REQ_MAX bytes: a head too long, 400 */
	r = prom_http_classify((const char*)c->in, c->in_len);
	if(r == PROM_REQ_INCOMPLETE)
		return;
	if(!build_answer(ps, &out, r)) {
		strbuf_clear(&out);
		stream_conn_close(c);
		return;
	}
	stream_in_consume(c, c->in_len);
	/* writing the answer: not idle, and PROM_TIMEOUT_SECS for it */
	stream_conn_set_busy(c, 1);
	stream_conn_give(c, out.s, out.len);
	stream_conn_set_timeout(c, PROM_TIMEOUT_SECS * 1000);
	stream_conn_finish(c, PROM_DRAIN_MAX, PROM_DRAIN_SECS * 1000);
}

static void prom_closed(void* arg, struct stream_conn* c,
	enum stream_close_why why)
{
	(void)arg;
	if(why == STREAM_CLOSE_TIMEOUT && c->state != STREAM_DRAIN)
		verbose(VERB_OPS, "prometheus connection timed out");
}

static const struct stream_proto prom_proto = {
	"prometheus", NULL, prom_readable, NULL, NULL, prom_closed
};

/* The address the config asks for; 0 (logged) if it does not parse. */
static int cfg_addr(struct config_file* cfg, struct sockaddr_storage* addr,
	socklen_t* len)
{
	const char* ifc = cfg->prom_interface ? cfg->prom_interface :
		"127.0.0.1";
	if(!extstrtoaddr(ifc, cfg->prom_port, addr, len)) {
		log_err("prometheus-interface: cannot parse '%s'", ifc);
		return 0;
	}
	return 1;
}

static const char* addr_text(const struct sockaddr_storage* a, char* buf,
	size_t len)
{
	addr_to_str(a, a->ss_family == AF_INET6 ?
		(socklen_t)sizeof(struct sockaddr_in6) :
		(socklen_t)sizeof(struct sockaddr_in), buf, len);
	return buf;
}

/* A listening socket on addr; -1 on error (logged). */
static int open_listener(const struct sockaddr_storage* addr, socklen_t len)
{
	char buf[64];
	int fd, on = 1;
	fd = socket(addr->ss_family, SOCK_STREAM | SOCK_NONBLOCK |
		SOCK_CLOEXEC, 0);
	if(fd == -1) {
		log_err("prometheus-interface %s: socket: %s",
			addr_text(addr, buf, sizeof(buf)), strerror(errno));
		return -1;
	}
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if(addr->ss_family == AF_INET6)
		(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on,
			sizeof(on));
	if(bind(fd, (const struct sockaddr*)addr, len) != 0 ||
		listen(fd, 64) != 0) {
		log_err("can't bind prometheus-interface %s port %d: %s",
			addr_text(addr, buf, sizeof(buf)), addr_port(addr),
			strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

struct prom_server* prom_server_create(struct daemon* d,
	struct config_file* cfg)
{
	struct prom_server* ps = calloc(1, sizeof(*ps));
	if(!ps)
		return NULL;
	ps->d = d;
	ps->fd = -1;
	clock_gettime(CLOCK_MONOTONIC, &ps->start);
	if(!cfg->prom_enable)
		return ps;
	if(!cfg_addr(cfg, &ps->addr, &ps->addrlen) ||
		(ps->fd = open_listener(&ps->addr, ps->addrlen)) == -1) {
		free(ps);
		return NULL;
	}
	return ps;
}

static int listen_start(struct prom_server* ps)
{
	ps->listening = stream_pool_add_listener(ps->pool, ps->fd, NULL);
	return ps->listening;
}

int prom_server_start(struct prom_server* ps, struct event_base* base)
{
	struct stream_pool_cfg cfg;
	char buf[64];
	ps->base = base;
	memset(&cfg, 0, sizeof(cfg));
	cfg.max_conns = PROM_MAX_CONNS;
	cfg.in_cap = PROM_REQ_MAX;
	cfg.timeout_ms = PROM_TIMEOUT_SECS * 1000;
	/* a new client past the limit takes the place of the oldest one
	 * that has not sent a full request yet (or is being drained) */
	cfg.evict_idle = 1;
	/* the time bound is for the whole answer, not per write */
	cfg.write_touches = 0;
	/* made even when disabled: a reload may enable it */
	if(!(ps->pool = stream_pool_create(base, &cfg, &prom_proto, ps)))
		return 0;
	if(ps->fd == -1)
		return 1;
	if(!listen_start(ps))
		return 0;
	verbose(VERB_OPS, "prometheus metrics on %s port %d, path /metrics",
		addr_text(&ps->addr, buf, sizeof(buf)), addr_port(&ps->addr));
	return 1;
}

static void listen_close(struct prom_server* ps)
{
	if(ps->listening)
		stream_pool_remove_listener(ps->pool, ps->fd);
	ps->listening = 0;
	if(ps->fd != -1)
		close(ps->fd);
	ps->fd = -1;
}

void prom_server_reload(struct prom_server* ps, struct config_file* cfg)
{
	struct sockaddr_storage addr;
	socklen_t len;
	char buf[64];
	int fd;
	if(!ps || !ps->base)
		return;
	if(!cfg->prom_enable) {
		if(ps->fd != -1)
			log_info("prometheus metrics endpoint closed");
		listen_close(ps);
		return;
	}
	if(!cfg_addr(cfg, &addr, &len))
		return;
	if(ps->fd != -1 && sockaddr_cmp(&addr, len, &ps->addr,
		ps->addrlen) == 0)
		return;  /* unchanged: keep the socket */
	if((fd = open_listener(&addr, len)) == -1) {
		if(ps->fd != -1)
			log_err("prometheus: still serving on the previous "
				"address");
		return;
	}
	listen_close(ps);
	ps->fd = fd;
	ps->addr = addr;
	ps->addrlen = len;
	if(!listen_start(ps)) {
		log_err("prometheus: could not listen on the new address");
		listen_close(ps);
		return;
	}
	/* connections already open finish on their own */
	log_info("prometheus metrics on %s port %d, path /metrics",
		addr_text(&ps->addr, buf, sizeof(buf)), addr_port(&ps->addr));
}

void prom_server_delete(struct prom_server* ps)
{
	if(!ps)
		return;
	listen_close(ps);
	stream_pool_delete(ps->pool);
	free(ps);
}
