/* daemon/prometheus.c - the HTTP listener for the Prometheus metrics:
 * accept, read one request head, answer, close. Each connection goes
 * READ -> WRITE -> DRAIN: after the answer the write side is shut and
 * what the client still sends is read and dropped for a moment (at most
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
#include "validator/val_kcache.h"
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

enum pc_state { PC_READ, PC_WRITE, PC_DRAIN };

struct prom_conn {
	struct prom_conn* next, *prev;   /* newest first */
	struct prom_server* ps;
	int fd;
	struct event* ev;
	struct event* timer;
	enum pc_state state;
	short waiting;           /* what c->ev waits for, 0: nothing */
	char req[PROM_REQ_MAX];
	size_t reqlen;
	struct strbuf out;
	size_t outpos;
	size_t drained;
};

struct prom_server {
	struct daemon* d;
	struct event_base* base;   /* NULL until started */
	int fd;                    /* listening socket, -1: none */
	struct event* ev;
	int accepting;             /* ev is added */
	struct sockaddr_storage addr;
	socklen_t addrlen;
	struct prom_conn* conns;
	int num_conns;
	struct timespec start;     /* CLOCK_MONOTONIC, for the uptime */
};

static void conn_cb(evutil_socket_t fd, short ev, void* arg);
static void accept_cb(evutil_socket_t fd, short ev, void* arg);

static void set_accepting(struct prom_server* ps, int on)
{
	if(!ps->ev || ps->accepting == on)
		return;
	if(on)
		ps->accepting = event_add(ps->ev, NULL) == 0;
	else {
		event_del(ps->ev);
		ps->accepting = 0;
	}
}

static void conn_close(struct prom_conn* c)
{
	struct prom_server* ps = c->ps;
	if(c->prev)
		c->prev->next = c->next;
	else	ps->conns = c->next;
	if(c->next)
		c->next->prev = c->prev;
	ps->num_conns--;
	if(c->ev)
		event_free(c->ev);
	if(c->timer)
		event_free(c->timer);
	close(c->fd);
	strbuf_free(&c->out);
	free(c);
	if(ps->num_conns < PROM_MAX_CONNS)
		set_accepting(ps, 1);
}

/* Wait for what (EV_READ or EV_WRITE, persistent); secs > 0: and
 * restart the connection's timer with that many seconds. */
static int conn_wait(struct prom_conn* c, short what, int secs)
{
	if(secs > 0) {
		struct timeval tv = { secs, 0 };
		event_del(c->timer);
		if(evtimer_add(c->timer, &tv) != 0)
			return 0;
	}
	if(c->waiting == what)
		return 1;
	if(c->ev)
		event_del(c->ev);
	else if(!(c->ev = event_new(c->ps->base, c->fd, what | EV_PERSIST,
		conn_cb, c)))
		return 0;
	event_assign(c->ev, c->ps->base, c->fd, what | EV_PERSIST, conn_cb, c);
	if(event_add(c->ev, NULL) != 0)
		return 0;
	c->waiting = what;
	return 1;
}

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

/* The request head is complete (or bad): queue the answer. 0 to close
 * at once (out of memory). */
static int conn_answer(struct prom_conn* c, enum prom_req r)
{
	if(r == PROM_REQ_METRICS || r == PROM_REQ_METRICS_HEAD) {
		struct strbuf body = { NULL, 0, 0, 0 };
		build_metrics(c->ps, &body);
		if(body.oom) {
			strbuf_free(&body);
			return 0;
		}
		prom_http_head(&c->out, 200, "text/plain; version=0.0.4; "
			"charset=utf-8", body.len);
		if(r == PROM_REQ_METRICS && body.len)
			strbuf_printf(&c->out, "%.*s", (int)body.len, body.s);
		strbuf_free(&body);
	} else {
		const char* text;
		int status = prom_http_error(r, &text);
		verbose(VERB_ALGO, "prometheus: answered %d", status);
		prom_http_head(&c->out, status, "text/plain; charset=utf-8",
			strlen(text));
		strbuf_printf(&c->out, "%s", text);
	}
	return !c->out.oom;
}

/* Run the connection as far as it goes without blocking. */
static void conn_step(struct prom_conn* c)
{
	char scratch[4096];
	ssize_t n;
	enum prom_req r;
	for(;;) {
		switch(c->state) {
		case PC_READ:
			n = recv(c->fd, c->req + c->reqlen,
				sizeof(c->req) - c->reqlen, 0);
			if(n == 0)
				goto close;
			if(n < 0) {
				if(errno == EAGAIN || errno == EWOULDBLOCK ||
					errno == EINTR) {
					if(!conn_wait(c, EV_READ, 0))
						goto close;
					return;
				}
				goto close;
			}
			c->reqlen += (size_t)n;
			r = prom_http_classify(c->req, c->reqlen);
			if(r == PROM_REQ_INCOMPLETE)
				break;
			if(!conn_answer(c, r))
				goto close;
			c->state = PC_WRITE;
			if(!conn_wait(c, EV_WRITE, PROM_TIMEOUT_SECS))
				goto close;
			break;
		case PC_WRITE:
			if(c->outpos >= c->out.len) {
				(void)shutdown(c->fd, SHUT_WR);
				c->state = PC_DRAIN;
				if(!conn_wait(c, EV_READ, PROM_DRAIN_SECS))
					goto close;
				break;
			}
			n = send(c->fd, c->out.s + c->outpos,
				c->out.len - c->outpos, MSG_NOSIGNAL);
			if(n < 0) {
				if(errno == EAGAIN || errno == EWOULDBLOCK ||
					errno == EINTR)
					return;  /* the write event is on */
				goto close;
			}
			c->outpos += (size_t)n;
			break;
		case PC_DRAIN:
			n = recv(c->fd, scratch, sizeof(scratch), 0);
			if(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK ||
				errno == EINTR))
				return;  /* the read event is on */
			if(n <= 0)
				goto close;
			c->drained += (size_t)n;
			if(c->drained > PROM_DRAIN_MAX)
				goto close;
			break;
		}
	}
close:
	conn_close(c);
}

static void conn_cb(evutil_socket_t fd, short ev, void* arg)
{
	(void)fd;
	(void)ev;
	conn_step(arg);
}

static void conn_timeout_cb(evutil_socket_t fd, short ev, void* arg)
{
	struct prom_conn* c = arg;
	(void)fd;
	(void)ev;
	if(c->state != PC_DRAIN)
		verbose(VERB_OPS, "prometheus connection timed out");
	conn_close(c);
}

/* At the limit: the oldest connection that has not sent its request
 * yet (or is only being drained) makes room; 0 if there is none. */
static int evict_oldest_idle(struct prom_server* ps)
{
	struct prom_conn* c, *victim = NULL;
	for(c = ps->conns; c; c = c->next)
		if(c->state != PC_WRITE)
			victim = c;
	if(!victim)
		return 0;
	if(victim->state == PC_READ)
		verbose(VERB_OPS, "prometheus: %d connections, closing the "
			"oldest idle one", ps->num_conns);
	conn_close(victim);
	return 1;
}

static void accept_cb(evutil_socket_t lfd, short ev, void* arg)
{
	struct prom_server* ps = arg;
	struct timeval tv = { PROM_TIMEOUT_SECS, 0 };
	struct prom_conn* c;
	int fd;
	(void)ev;
	if(ps->num_conns >= PROM_MAX_CONNS && !evict_oldest_idle(ps)) {
		/* every slot is writing an answer: wait for one to finish */
		set_accepting(ps, 0);
		return;
	}
	fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if(fd == -1) {
		if(errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			verbose(VERB_ALGO, "prometheus accept: %s",
				strerror(errno));
		return;
	}
	if(!(c = calloc(1, sizeof(*c)))) {
		close(fd);
		return;
	}
	c->ps = ps;
	c->fd = fd;
	c->state = PC_READ;
	c->next = ps->conns;
	if(ps->conns)
		ps->conns->prev = c;
	ps->conns = c;
	ps->num_conns++;
	c->timer = evtimer_new(ps->base, conn_timeout_cb, c);
	if(!c->timer || evtimer_add(c->timer, &tv) != 0) {
		conn_close(c);
		return;
	}
	conn_step(c);
}

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
	ps->ev = event_new(ps->base, ps->fd, EV_READ | EV_PERSIST, accept_cb,
		ps);
	if(!ps->ev)
		return 0;
	set_accepting(ps, 1);
	return ps->accepting;
}

int prom_server_start(struct prom_server* ps, struct event_base* base)
{
	char buf[64];
	ps->base = base;
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
	if(ps->ev)
		event_free(ps->ev);
	ps->ev = NULL;
	ps->accepting = 0;
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
	log_info("prometheus metrics on %s port %d, path /metrics",
		addr_text(&ps->addr, buf, sizeof(buf)), addr_port(&ps->addr));
	/* connections already open finish on their own */
	if(ps->num_conns >= PROM_MAX_CONNS)
		set_accepting(ps, 0);
}

void prom_server_delete(struct prom_server* ps)
{
	if(!ps)
		return;
	while(ps->conns)
		conn_close(ps->conns);
	listen_close(ps);
	free(ps);
}
