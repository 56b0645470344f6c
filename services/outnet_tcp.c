/* SPDX-License-Identifier: BSD-3-Clause */
/* services/outnet_tcp.c - upstream TCP connections shared by queries:
 * reuse, pipelining, answers matched by ID and question, optionally
 * with TLS on them (see outside_network.h for the rules). */
#include "config.h"
#include "services/outnet_internal.h"
#include "services/tls_client.h"
#include "services/stream_tls.h"
#include "util/edns_pad.h"
#include "util/log.h"
#include "util/net_help.h"
#include "util/random.h"
#include <event2/event.h>
#include <openssl/ssl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__linux__) && !defined(IP_BIND_ADDRESS_NO_PORT)
#define IP_BIND_ADDRESS_NO_PORT 24   /* Linux 4.2+; older headers */
#endif

#define TCP_READS_PER_WAKE 4    /* bound one wake-up's work */
#define TLS_READS_PER_WAKE 64   /* TLS: records (one answer each, as
                                 * servers write them) per wake-up */
#define TCP_RBUF_SIZE (2 + 65535)   /* the largest framed message */
#define TCP_MAX_UNWANTED 64     /* unmatched messages in a row before
                                 * a drop (late answers are fine) */
#define TCP_WBUF_SIZE 4096      /* queued frames go out together (one
                                 * TLS record, one send) */
#define PAD_QUERY_MAX 4000      /* pad-queries: a query padded to more
                                 * goes unpadded (one fits in wbuf) */

struct outnet_tcp_conn {
	struct outside_network* o;
	struct outnet_tcp_conn* prev, * next;   /* o->conns */
	int linked;
	/* the key: server address and port; for TLS also the client
	 * context and the authentication name (in tls) */
	struct sockaddr_storage addr;
	socklen_t addrlen;
	int is_tls;
	struct tls_peer tls;       /* session cache key (SSL ex_data) */
	SSL* ssl;                  /* NULL until the TCP connect is done */
	int handshaking;
	int read_wants_write;      /* SSL_read must be retried when
	                            * writable, SSL_write when readable */
	int write_wants_read;
	int fd;
	struct event* ev_read, * ev_write, * idle;
	int connecting;
	int closing;       /* takes no more queries (max-reuse reached) */
	int busy;          /* inside its read loop: not to be freed */
	int used;          /* queries put on it so far */
	int answered;      /* replies matched on it */
	int unwanted;      /* unmatched messages since the last match */
	struct outnet_query* queries;   /* on it: sent or still to write */
	int num_queries;
	struct outnet_query* wq_head, * wq_tail;   /* still to write */
	uint8_t wbuf[TCP_WBUF_SIZE];    /* the frames being written */
	size_t wlen, wpos;
	/* what was read: whole messages are handled from here, a partial
	 * one waits at the start for the rest */
	uint8_t* rbuf;             /* TCP_RBUF_SIZE, from the first read */
	size_t rlen;
};

static void conn_read_cb(evutil_socket_t fd, short ev, void* arg);
static void conn_write_cb(evutil_socket_t fd, short ev, void* arg);
static void conn_idle_cb(evutil_socket_t fd, short ev, void* arg);

static void conn_unlink(struct outnet_tcp_conn* c)
{
	struct outside_network* o = c->o;
	if(!c->linked)
		return;
	if(c->prev)
		c->prev->next = c->next;
	else	o->conns = c->next;
	if(c->next)
		c->next->prev = c->prev;
	c->prev = c->next = NULL;
	c->linked = 0;
	o->num_conns--;
	/* a slot is free: the waiting queries get it from a zero timer,
	 * so nothing nests in the caller */
	if(o->wait_tcp.head && o->tcp_serve)
		outnet_timer_after(o->tcp_serve, 0);
}

/* Close and free; no queries may be on it. A plain close: a FIN, not
 * an RST (no SO_LINGER 0), so a server's last answer is never lost. */
static void conn_free(struct outnet_tcp_conn* c)
{
	conn_unlink(c);
	if(c->ev_read)
		event_free(c->ev_read);
	if(c->ev_write)
		event_free(c->ev_write);
	if(c->idle)
		event_free(c->idle);
	tls_client_close(c->ssl);
	if(c->fd != -1)
		close(c->fd);
	free(c->rbuf);
	free(c);
}

static int conn_fits(const struct outnet_tcp_conn* c,
	const struct outnet_query* q);

/* Does a query that waits for a slot fit c (a TLS connection that was
 * full: at max-reuse-tcp-queries outstanding)? */
static int conn_wanted(const struct outnet_tcp_conn* c)
{
	const struct outnet_query* q;
	if(!c->is_tls)
		return 0;   /* a waiter for a plain one is on it already */
	for(q = c->o->wait_tcp.head; q; q = q->wait.next)
		if(conn_fits(c, q))
			return 1;
	return 0;
}

/* No queries left: closing ones go now, and so do all when queries
 * wait for a slot, unless one of them can go on it; others after
 * tcp-reuse-timeout. Not inside the read loop, which checks again at
 * its end. */
static void conn_idle_check(struct outnet_tcp_conn* c)
{
	if(c->busy || c->num_queries > 0)
		return;
	if(c->closing || c->o->s.tcp_reuse_timeout == 0 ||
		(c->o->wait_tcp.head && !conn_wanted(c)))
		conn_free(c);
	else	outnet_timer_after(c->idle, c->o->s.tcp_reuse_timeout);
}

static void wq_remove(struct outnet_tcp_conn* c, struct outnet_query* q)
{
	struct outnet_query** p = &c->wq_head, * prev = NULL;
	while(*p && *p != q) {
		prev = *p;
		p = &(*p)->wq_next;
	}
	if(!*p)
		return;
	*p = q->wq_next;
	if(c->wq_tail == q)
		c->wq_tail = prev;
	q->wq_next = NULL;
	q->in_wq = 0;
}

void outnet_tcp_detach(struct outnet_query* q)
{
	struct outnet_tcp_conn* c = q->conn;
	if(!c)
		return;
	if(q->in_wq)
		wq_remove(c, q);
	if(q->on_conn.prev)
		q->on_conn.prev->on_conn.next = q->on_conn.next;
	else	c->queries = q->on_conn.next;
	if(q->on_conn.next)
		q->on_conn.next->on_conn.prev = q->on_conn.prev;
	q->on_conn.prev = q->on_conn.next = NULL;
	q->conn = NULL;
	c->num_queries--;
	/* a full TLS connection has room again: the waiters try it (from
	 * a zero timer, so nothing nests in the caller) */
	if(c->is_tls && !c->closing && c->o->wait_tcp.head &&
		c->o->tcp_serve)
		outnet_timer_after(c->o->tcp_serve, 0);
	conn_idle_check(c);
}

/* Put q on c: an ID no other query on c has, to the write queue. */
static void conn_attach(struct outnet_tcp_conn* c, struct outnet_query* q)
{
	struct outside_network* o = c->o;
	struct outnet_query* p;
	for(p = c->queries; p; ) {
		if(p->id != q->id) {
			p = p->on_conn.next;
			continue;
		}
		q->id = ub_random16(o->rnd);
		q->pkt[0] = (uint8_t)(q->id >> 8);
		q->pkt[1] = (uint8_t)q->id;
		p = c->queries;   /* check the new one against all */
	}
	q->on_conn.prev = NULL;
	q->on_conn.next = c->queries;
	if(c->queries)
		c->queries->on_conn.prev = q;
	c->queries = q;
	q->wq_next = NULL;
	if(c->wq_tail)
		c->wq_tail->wq_next = q;
	else	c->wq_head = q;
	c->wq_tail = q;
	q->in_wq = 1;
	q->tcp_sent = 0;
	q->answered_at_attach = c->answered;
	q->conn = c;
	q->state = Q_TCP;
	c->num_queries++;
	if(c->used++ > 0)
		o->stats.tcp_reused++;
	/* compat: unbound-1.17: plain TCP: max-reuse-tcp-queries in the
	 * connection's life; TLS: at most that many outstanding (Unbound's
	 * reuse_tcp_find rule for both), as a new connection costs a handshake
	 * (conn_fits) */
	if(!c->is_tls && c->used >= o->s.max_reuse_tcp)
		c->closing = 1;
	evtimer_del(c->idle);
	if(!c->connecting)
		event_add(c->ev_write, NULL);
	outnet_timer_after(q->timer, q->timeout_ms);
}

/* May q go on c: the same address and port, plain or TLS as q, and
 * for TLS the same client context and authentication name (a
 * connection verified for one name never carries a query for
 * another)? */
static int conn_fits(const struct outnet_tcp_conn* c,
	const struct outnet_query* q)
{
	if(c->closing || c->is_tls != q->is_tls || sockaddr_cmp(&c->addr,
		c->addrlen, &q->addr, q->addrlen) != 0 || (c->is_tls &&
		c->num_queries >= c->o->s.max_reuse_tcp))
		return 0;
	return !c->is_tls || (c->tls.ctx == q->tls_ctx &&
		strcmp(c->tls.name, q->tls_name) == 0);
}

/* A reusable connection to q's server. */
static struct outnet_tcp_conn* conn_find(struct outside_network* o,
	const struct outnet_query* q)
{
	struct outnet_tcp_conn* c;
	for(c = o->conns; c; c = c->next)
		if(conn_fits(c, q))
			return c;
	return NULL;
}

/* The oldest connection without queries (to close for room). */
static struct outnet_tcp_conn* conn_find_idle(struct outside_network* o)
{
	struct outnet_tcp_conn* c, * found = NULL;
	for(c = o->conns; c; c = c->next)
		if(c->num_queries == 0 && !c->busy)
			found = c;
	return found;
}

/* Bind to the outgoing-interface, port 0. IP_BIND_ADDRESS_NO_PORT
 * defers the port to connect(), which picks one free for this
 * four-tuple; without it bind() must find a port free for every
 * destination, a scan over all TIME_WAIT sockets (a storm of TCP
 * fallbacks spent most of its time there). */
static int conn_bind(struct outside_network* o, int fd, int family)
{
	struct sockaddr_storage src;
	socklen_t srclen;
	if(!outnet_source_addr(o, family, 0, &src, &srclen))
		return 0;
#ifdef IP_BIND_ADDRESS_NO_PORT
	{
		int bit = family == AF_INET6 ? 2 : 1, on = 1;
		if(!(o->no_port_refused & bit) && setsockopt(fd, IPPROTO_IP,
			IP_BIND_ADDRESS_NO_PORT, &on, (socklen_t)sizeof(on))
			!= 0) {
			/* an old kernel: bind as before, stop asking */
			verbose(VERB_ALGO, "outgoing tcp: "
				"IP_BIND_ADDRESS_NO_PORT: %s", strerror(errno));
			o->no_port_refused |= bit;
		}
	}
#endif
	return bind(fd, (struct sockaddr*)&src, srclen) == 0;
}

/* A new connection to q's server; NULL on error (logged). */
static struct outnet_tcp_conn* conn_open(struct outside_network* o,
	const struct outnet_query* q)
{
	struct outnet_tcp_conn* c;
	int fd = socket(q->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
		SOCK_CLOEXEC, 0);
	if(fd == -1) {
		log_err("outgoing tcp socket: %s", strerror(errno));
		return NULL;
	}
	if(o->s.ip_dscp && !fd_set_dscp(fd, q->addr.ss_family,
		o->s.ip_dscp))
		verbose(VERB_ALGO, "outgoing tcp: ip-dscp: %s",
			strerror(errno));
	/* compat: unbound-1.17: outgoing-tcp-mss, a refusal only logged at
	 * verbosity 4 */
	if(o->s.tcp_mss > 0 && setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG,
		&o->s.tcp_mss, (socklen_t)sizeof(o->s.tcp_mss)) != 0)
		verbose(VERB_ALGO, "outgoing tcp: setsockopt(.. TCP_MAXSEG "
			"..) failed");
	if(q->is_tls) {
		/* pipelined TLS records are small: Nagle would hold each
		 * one until the last is acknowledged (a delayed ACK) */
		int on = 1;
		(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on,
			(socklen_t)sizeof(on));
	}
	if(o->any_ifs && !conn_bind(o, fd, q->addr.ss_family)) {
		verbose(VERB_ALGO, "outgoing tcp bind: %s", strerror(errno));
		close(fd);
		return NULL;
	}
	if(connect(fd, (struct sockaddr*)&q->addr, q->addrlen) != 0 &&
		errno != EINPROGRESS) {
		verbose(VERB_ALGO, "outgoing tcp connect: %s",
			strerror(errno));
		close(fd);
		return NULL;
	}
	if(!(c = calloc(1, sizeof(*c)))) {
		close(fd);
		return NULL;
	}
	c->o = o;
	c->fd = fd;
	c->addr = q->addr;
	c->addrlen = q->addrlen;
	c->connecting = 1;
	if(q->is_tls) {
		c->is_tls = 1;
		c->tls.cache = o->tls_sessions;
		c->tls.ctx = q->tls_ctx;
		c->tls.addr = q->addr;
		c->tls.addrlen = q->addrlen;
		memcpy(c->tls.name, q->tls_name, sizeof(c->tls.name));
	}
	c->ev_read = event_new(o->base, fd, EV_READ | EV_PERSIST,
		conn_read_cb, c);
	c->ev_write = event_new(o->base, fd, EV_WRITE | EV_PERSIST,
		conn_write_cb, c);
	c->idle = evtimer_new(o->base, conn_idle_cb, c);
	if(!c->ev_read || !c->ev_write || !c->idle ||
		event_add(c->ev_write, NULL) != 0) {
		conn_free(c);
		return NULL;
	}
	c->next = o->conns;
	if(o->conns)
		o->conns->prev = c;
	o->conns = c;
	c->linked = 1;
	o->num_conns++;
	o->stats.tcp_conns++;
	return c;
}

void outnet_tcp_start(struct outnet_query* q)
{
	struct outside_network* o = q->o;
	struct outnet_tcp_conn* c = conn_find(o, q), * idle;
	if(!c && o->num_conns >= o->s.num_tcp &&
		(idle = conn_find_idle(o)) != NULL)
		conn_free(idle);   /* room for this server */
	if(!c && o->num_conns < o->s.num_tcp) {
		if(!(c = conn_open(o, q))) {
			outnet_fail_soon(q);
			return;
		}
	}
	if(!c) {
		if(q->state != Q_WAIT_TCP) {
			q->state = Q_WAIT_TCP;
			outnet_wait_add(&o->wait_tcp, q);
			o->stats.waited++;
		}
		return;
	}
	if(q->state == Q_WAIT_TCP)
		outnet_wait_remove(&o->wait_tcp, q);
	conn_attach(c, q);
}

void outnet_tcp_timed_out(struct outnet_query* q)
{
	/* nothing came on it since q went on: it may be a black hole (a
	 * middlebox that lost the flow), so no new queries go there; the
	 * ones on it keep their own timers */
	if(q->conn && q->conn->answered == q->answered_at_attach)
		q->conn->closing = 1;
}

void outnet_tcp_serve_cb(evutil_socket_t fd, short ev, void* arg)
{
	struct outside_network* o = arg;
	struct outnet_query* q = o->wait_tcp.head;
	(void)fd; (void)ev;
	while(q) {
		/* only q leaves the list here: next stays valid */
		struct outnet_query* next = q->wait.next;
		outnet_tcp_start(q);
		q = next;
	}
}

/* May q move to a new connection after c failed? Not when the connect
 * failed (the server is not there). Yes when c answered since q came
 * on it: the server closes after some answers (each such move follows
 * progress). Otherwise once, when c had answered before (a reused
 * connection the server may have closed as idle, or one that went bad)
 * or q was not written yet. */
static int may_move(const struct outnet_tcp_conn* c,
	const struct outnet_query* q, int connect_failed)
{
	if(connect_failed)
		return 0;
	if(c->answered > q->answered_at_attach)
		return 1;
	return q->tcp_moves < 1 && (c->answered > 0 || !q->tcp_sent);
}

/* The connection failed (or the server closed it). Its queries move
 * to a new connection where may_move says so, keeping their deadline;
 * the others end in OUTNET_ERROR from a zero timer. Frees c. */
static void conn_fail(struct outnet_tcp_conn* c, const char* what, int err,
	int connect_failed)
{
	struct outside_network* o = c->o;
	struct outnet_query* q = c->queries, * next;
	struct outnet_query* moving = NULL;
	if(c->num_queries)
		verbose(VERB_ALGO, "outgoing tcp %s: %s (%d queries on it)",
			what, err ? strerror(err) : "closed", c->num_queries);
	/* decide for all first: c goes before any query moves */
	for(; q; q = next) {
		next = q->on_conn.next;
		q->on_conn.prev = q->on_conn.next = NULL;
		q->wq_next = NULL;
		q->in_wq = 0;
		q->conn = NULL;
		if(may_move(c, q, connect_failed)) {
			if(c->answered <= q->answered_at_attach)
				q->tcp_moves++;
			q->on_conn.next = moving;   /* a list of its own */
			moving = q;
		} else	outnet_fail_soon(q);
	}
	c->queries = c->wq_head = c->wq_tail = NULL;
	c->num_queries = 0;
	conn_free(c);
	for(q = moving; q; q = next) {
		int left = q->timeout_ms - outnet_ms_since(&q->sent);
		next = q->on_conn.next;
		q->on_conn.next = NULL;
		if(left <= 0) {
			outnet_fail_soon(q);
			continue;
		}
		o->stats.tcp_moved++;
		outnet_tcp_start(q);
		if(q->state == Q_TCP || q->state == Q_WAIT_TCP)
			outnet_timer_after(q->timer, left);
	}
}

/* The TCP connect ended: 1 when c goes on (for TLS its handshake is
 * next), 0 while it is still in progress, -1 when it failed (c is
 * freed). */
static int conn_connected(struct outnet_tcp_conn* c)
{
	int err = 0;
	socklen_t len = sizeof(err);
	if(getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
		err = errno;
	if(err == EINPROGRESS || err == EALREADY)
		return 0;
	if(err) {
		conn_fail(c, "connect", err, 1);
		return -1;
	}
	c->connecting = 0;
	if(event_add(c->ev_read, NULL) != 0) {
		conn_fail(c, "event", ENOMEM, 0);
		return -1;
	}
	if(c->is_tls) {
		c->ssl = tls_client_new(&c->tls, c->fd, c->o->s.tls_use_sni);
		if(!c->ssl) {
			conn_fail(c, "tls", ENOMEM, 1);
			return -1;
		}
		c->handshaking = 1;
	}
	return 1;
}

/* "ADDR port N" and " (auth name NAME)" for log lines. */
static void conn_describe(const struct outnet_tcp_conn* c, char* buf,
	size_t len)
{
	char ip[64];
	int port = 0;
	addr_to_str(&c->addr, c->addrlen, ip, sizeof(ip));
	if(c->addr.ss_family == AF_INET)
		port = ntohs(((const struct sockaddr_in*)&c->addr)->sin_port);
	else if(c->addr.ss_family == AF_INET6)
		port = ntohs(((const struct sockaddr_in6*)&c->addr)->sin6_port);
	snprintf(buf, len, "%s port %d%s%s%s", ip, port,
		c->tls.name[0] ? " (auth name " : " (no auth name",
		c->tls.name, ")");
}

/* One step of the TLS handshake: 1 done, 0 waiting (for the socket),
 * -1 failed: the queries on c fail (the iterator tries another server;
 * nothing goes out in plain DNS) and c is freed. */
static int conn_handshake(struct outnet_tcp_conn* c)
{
	struct outside_network* o = c->o;
	const char* why = NULL;
	char peer[LDNS_MAX_DOMAINLEN + 128];
	int r = tls_client_handshake(c->ssl, &why);
	if(r == STREAM_IO_WANT_READ) {
		event_del(c->ev_write);   /* the read event is always on */
		return 0;
	}
	if(r == STREAM_IO_WANT_WRITE) {
		event_add(c->ev_write, NULL);
		return 0;
	}
	conn_describe(c, peer, sizeof(peer));
	if(r != 1) {
		/* compat: unbound-1.17: the server is unusable, said at the
		 * level of Unbound's "ssl handshake failed" (errors are shown
		 * by default) */
		log_err("ssl handshake failed: %s, upstream %s", why, peer);
		o->stats.tls_failed++;
		tls_session_forget(&c->tls);
		conn_fail(c, "tls handshake", EPROTO, 1);
		return -1;
	}
	c->handshaking = 0;
	o->stats.tls_conns++;
	if(stream_tls_resumed(c->ssl))
		o->stats.tls_resumed++;
	verbose(VERB_ALGO, "outgoing tls to %s: %s, session %s", peer,
		SSL_get_version(c->ssl), stream_tls_resumed(c->ssl) ?
		"resumed" : "new");
	if(c->wq_head || c->wpos < c->wlen)
		event_add(c->ev_write, NULL);
	else	event_del(c->ev_write);
	return 1;
}

/* compat: unbound-1.17: pad-queries (RFC 8467): the length q goes out
 * with: over TLS with EDNS, the EDNS padding option makes the message a
 * multiple of the block (Unbound: the next multiple with room for the
 * option's 4 bytes). Otherwise, and past PAD_QUERY_MAX, its own. */
static size_t frame_len(const struct outnet_tcp_conn* c,
	const struct outnet_query* q)
{
	size_t block = (size_t)c->o->s.pad_block, padded;
	if(!c->is_tls || block < 2 || !q->use_edns)
		return q->pktlen;
	padded = (q->pktlen + 4 + block - 1) / block * block;
	return padded <= PAD_QUERY_MAX ? padded : q->pktlen;
}

/* Copy queued frames to wbuf, as many as fit (one with the test aid
 * tcp_write_chunk), padded as frame_len says. The frames are copied: a
 * query cancelled while it is half written leaves the stream whole. 0
 * when none is queued. */
static int conn_fill_wbuf(struct outnet_tcp_conn* c)
{
	struct outside_network* o = c->o;
	size_t len;
	c->wlen = c->wpos = 0;
	while(c->wq_head && c->wlen + 2 + (len = frame_len(c, c->wq_head)) <=
		sizeof(c->wbuf)) {
		struct outnet_query* q = c->wq_head;
		c->wq_head = q->wq_next;
		if(!c->wq_head)
			c->wq_tail = NULL;
		q->wq_next = NULL;
		q->in_wq = 0;
		q->tcp_sent = 1;
		memcpy(c->wbuf + c->wlen + 2, q->pkt, q->pktlen);
		if(len != q->pktlen)   /* room for exactly len bytes */
			len = edns_pad_reply(c->wbuf + c->wlen + 2, q->pktlen,
				len, (size_t)o->s.pad_block);
		wire_wr16(c->wbuf + c->wlen, (uint16_t)len);
		c->wlen += 2 + len;
		o->stats.sent_tcp++;
		if(__builtin_expect(o->tap != NULL, 0))
			outnet_tap_query(q);
		if(o->s.tcp_write_chunk)
			break;
	}
	return c->wlen > 0;
}

/* Write what is queued until the socket is full or nothing is left. */
static void conn_write(struct outnet_tcp_conn* c)
{
	struct outside_network* o = c->o;
	for(;;) {
		size_t n;
		long r;
		if(c->wpos == c->wlen && !conn_fill_wbuf(c)) {
			event_del(c->ev_write);
			return;
		}
		n = c->wlen - c->wpos;
		if(c->ssl) {
			/* a retry passes the same bytes (wbuf is refilled
			 * only when all of it went) */
			r = stream_tls_write(c->ssl, c->wbuf + c->wpos, n);
			if(r == STREAM_IO_WANT_WRITE)
				return;
			if(r == STREAM_IO_WANT_READ) {
				c->write_wants_read = 1;
				event_del(c->ev_write);
				return;
			}
			if(r < 0) {
				conn_fail(c, "write", EPROTO, 0);
				return;
			}
		} else {
			if(o->s.tcp_write_chunk && n > o->s.tcp_write_chunk)
				n = o->s.tcp_write_chunk;
			r = send(c->fd, c->wbuf + c->wpos, n, MSG_NOSIGNAL);
			if(r < 0) {
				if(errno == EAGAIN || errno == EWOULDBLOCK ||
					errno == EINTR)
					return;
				conn_fail(c, "write", errno, 0);
				return;
			}
		}
		c->wpos += (size_t)r;
		if(!c->ssl && o->s.tcp_write_chunk)
			return;   /* test aid: one chunk per wake-up */
	}
}

static void conn_write_cb(evutil_socket_t fd, short ev, void* arg)
{
	struct outnet_tcp_conn* c = arg;
	(void)fd; (void)ev;
	if(c->connecting && conn_connected(c) <= 0)
		return;
	if(c->handshaking && conn_handshake(c) <= 0)
		return;
	if(c->read_wants_write) {
		/* an SSL_read waited for this: redo it from the loop */
		c->read_wants_write = 0;
		event_active(c->ev_read, EV_READ, 0);
	}
	conn_write(c);
}

/* A whole message msg/len: hand it to the query it answers. 0: the
 * connection must be dropped (not a DNS reply, or too many in a row
 * that match nothing). */
static int conn_message(struct outnet_tcp_conn* c, uint8_t* msg, size_t len)
{
	struct outnet_query* q;
	int m = 0;
	if(len < LDNS_HEADER_SIZE || !(wire_rd16(msg + 2) & FLAG_QR))
		return 0;
	for(q = c->queries; q; q = q->on_conn.next) {
		if(!q->tcp_sent)
			continue;
		m = outnet_query_matches(q, msg, len);
		if(outnet_reply_wanted(q, m))
			break;
	}
	if(!q) {
		/* a late answer to a query gone, or a wrong ID */
		c->o->stats.unwanted++;
		return ++c->unwanted <= TCP_MAX_UNWANTED;
	}
	c->answered++;
	c->unwanted = 0;
	if(!outnet_caps_check(q, msg, len, m))
		outnet_got_reply(q, msg, len);
	return 1;
}

/* Handle the whole messages in c->rbuf, keep a partial one. 0: drop. */
static int conn_messages(struct outnet_tcp_conn* c)
{
	size_t pos = 0;
	while(c->rlen - pos >= 2) {
		size_t len = wire_rd16(c->rbuf + pos);
		if(len < LDNS_HEADER_SIZE)
			return 0;   /* no DNS message is that short */
		if(c->rlen - pos < 2 + len)
			break;
		/* the callbacks may send and cancel; they never read c */
		if(!conn_message(c, c->rbuf + pos + 2, len))
			return 0;
		pos += 2 + len;
	}
	if(pos > 0) {
		memmove(c->rbuf, c->rbuf + pos, c->rlen - pos);
		c->rlen -= pos;
	}
	return 1;
}

/* One read into c->rbuf: > 0 bytes, 0 closed, STREAM_IO_WANT_* to
 * wait, STREAM_IO_ERROR (errno set for plain TCP). */
static long conn_recv(struct outnet_tcp_conn* c, size_t want)
{
	long r;
	if(c->ssl)
		return stream_tls_read(c->ssl, c->rbuf + c->rlen, want);
	r = recv(c->fd, c->rbuf + c->rlen, want, 0);
	if(r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK ||
		errno == EINTR))
		return STREAM_IO_WANT_READ;
	return r < 0 ? STREAM_IO_ERROR : r;
}

static void conn_read_cb(evutil_socket_t fd, short ev, void* arg)
{
	struct outnet_tcp_conn* c = arg;
	int i;
	(void)fd; (void)ev;
	if(c->handshaking) {
		(void)conn_handshake(c);
		return;
	}
	if(c->write_wants_read) {
		/* an SSL_write waited for this: the write event redoes it */
		c->write_wants_read = 0;
		event_add(c->ev_write, NULL);
	}
	if(!c->rbuf && !(c->rbuf = malloc(TCP_RBUF_SIZE))) {
		conn_fail(c, "read", ENOMEM, 0);
		return;
	}
	c->busy = 1;   /* callbacks may send and cancel, not free c */
	for(i = 0; i < (c->ssl ? TLS_READS_PER_WAKE : TCP_READS_PER_WAKE);
		i++) {
		size_t want = TCP_RBUF_SIZE - c->rlen;
		long r = conn_recv(c, want);
		if(r == STREAM_IO_WANT_READ)
			break;
		if(r == STREAM_IO_WANT_WRITE) {
			c->read_wants_write = 1;
			event_add(c->ev_write, NULL);
			break;
		}
		if(r <= 0) {
			int err = r == 0 ? 0 : c->ssl ? EPROTO : errno;
			c->busy = 0;
			conn_fail(c, "read", err, 0);
			return;
		}
		c->rlen += (size_t)r;
		if(!conn_messages(c)) {
			c->busy = 0;
			c->o->stats.tcp_dropped++;
			conn_fail(c, "read", EBADMSG, 0);
			return;
		}
		/* plain TCP drained: the next wake-up says when more; TLS
		 * gives a record per read: on until it wants more input */
		if(!c->ssl && (size_t)r < want)
			break;
	}
	c->busy = 0;
	/* stopped by the bound, not for input: what OpenSSL holds (read
	 * ahead, the socket shows none of it) waits for the next round.
	 * After WANT_READ it may hold a part of a record: the socket's
	 * event brings the rest (re-activating then would spin). */
	if(c->ssl && i == TLS_READS_PER_WAKE && stream_tls_buffered(c->ssl))
		event_active(c->ev_read, EV_READ, 0);
	conn_idle_check(c);
}

static void conn_idle_cb(evutil_socket_t fd, short ev, void* arg)
{
	struct outnet_tcp_conn* c = arg;
	(void)fd; (void)ev;
	if(c->num_queries == 0)
		conn_free(c);
}

void outnet_tcp_close_all(struct outside_network* o)
{
	while(o->conns) {
		struct outnet_tcp_conn* c = o->conns;
		c->queries = NULL;   /* the queries are gone already */
		c->num_queries = 0;
		conn_free(c);
	}
	if(o->tcp_serve) {
		event_free(o->tcp_serve);
		o->tcp_serve = NULL;
	}
}
