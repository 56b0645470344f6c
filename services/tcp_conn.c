/* SPDX-License-Identifier: BSD-3-Clause */
/* services/tcp_conn.c - DNS over TCP for one worker: the 2-byte length
 * framing and the answers, on the stream connection layer
 * (services/stream_conn.c), which owns the sockets, buffers and timer. */
#include "config.h"
#include "services/tcp_conn.h"
#include "services/stream_conn.h"
#include "services/stream_tls.h"
#include "util/log.h"
#include "util/proxy_v2.h"
#include "util/wire_int.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TCP_MSG_MAX 65535
#define TCP_IN_CAP (2 + TCP_MSG_MAX)
/* Room for two whole replies: while one is being written the next query
 * can be answered; beyond that the client must read before we go on. */
#define TCP_OUT_CAP (2 * (2 + TCP_MSG_MAX))

struct tcp_pool {
	struct stream_pool* sp;
	tcp_answer_fn answer;
	tcp_close_fn on_close;   /* for connections with pending replies */
	void* arg;
};

/* Is a whole query waiting in the input buffer? */
static int has_whole_msg(const struct stream_conn* c)
{
	return c->in_len >= 2 && c->in_len >= 2 + (size_t)wire_rd16(c->in);
}

/* A proxy-protocol-port's connection, its PROXYv2 header not read yet:
 * 1 when it has been read now (c->addr is the client it names), 0 to
 * wait for more bytes, or when the connection was closed. */
static int __attribute__((noinline)) proxy_header(struct stream_conn* c)
{
	struct proxy_v2_header hdr;
	size_t need = 0;
	enum proxy_v2_result r = proxy_v2_parse(c->in, c->in_len, &hdr,
		&need);
	if(r == PROXY_V2_SHORT && !c->eof && need <= c->in_cap)
		return 0;
	if(r != PROXY_V2_OK) {
		/* compat: unbound-1.17: the connection is closed, as
		 * Unbound; logged at verbosity 4, not as an error */
		if(verbosity >= VERB_ALGO) {
			char why[96];
			snprintf(why, sizeof(why), "proxy_protocol: could not "
				"consume PROXYv2 header (%s), closed "
				"connection from", r == PROXY_V2_SHORT ?
				"truncated or missing" : proxy_v2_result_str(r));
			log_addr(VERB_ALGO, why, &c->addr, c->addrlen);
		}
		stream_conn_close(c);
		return 0;
	}
	stream_in_consume(c, hdr.len);
	c->proxy_wait = 0;
	if(hdr.has_addr) {
		memcpy(&c->peer, &c->addr, c->addrlen);
		c->peerlen = c->addrlen;
		memcpy(&c->addr, &hdr.addr, hdr.addrlen);
		c->addrlen = hdr.addrlen;
	}
	return 1;
}

/* Bytes arrived (the readable callback), output room was made or a
 * deferred reply came: answer every whole query in the input buffer
 * while the output buffer has room for a reply; a client that half-closed is closed once all it
 * asked is answered and written. */
static void dns_process(void* arg, struct stream_conn* c)
{
	struct tcp_pool* p = arg;
	struct tcp_handle h;
	int* pending = &c->user_count;   /* deferred replies to come */
	size_t pos = 0;
	if(__builtin_expect(c->proxy_wait, 0) && !proxy_header(c))
		return;
	h.pool = p;
	h.slot = c->slot;
	h.gen = c->gen;
	h.peer = c->peerlen ? &c->peer : NULL;
	h.peerlen = c->peerlen;
	while(c->in_len - pos >= 2) {
		size_t mlen = wire_rd16(c->in + pos);
		struct stream_answer a;
		if(c->in_len - pos < 2 + mlen)
			break;
		if(*pending >= TCP_MAX_PENDING)
			break;  /* resumes when a deferred reply comes */
		if(TCP_OUT_CAP - c->out_end < 2 + TCP_MSG_MAX &&
			stream_out_compact(c) < 2 + TCP_MSG_MAX) {
			/* write what is queued now: if the socket takes
			 * it all, go on (nothing else would wake us: no
			 * write waits for the socket) */
			if(c->writing)
				break;  /* wait for the client to read */
			if(pos > 0) {
				stream_in_consume(c, pos);
				pos = 0;
			}
			if(!stream_conn_flush(c))
				return;  /* closed */
			if(c->out_end > c->out_start)
				break;
		}
		a = p->answer(p->arg, c->in + pos + 2, mlen, &c->addr,
			c->addrlen, c->out + c->out_end + 2, TCP_MSG_MAX, &h);
		switch(a.what) {
		case STREAM_ANSWER_DEFERRED:
			(*pending)++;
			break;
		case STREAM_ANSWER_REPLY:
			wire_wr16(c->out + c->out_end, (uint16_t)a.len);
			c->out_end += 2 + a.len;
			break;
		case STREAM_ANSWER_NONE:
			break;
		}
		pos += 2 + mlen;
		stream_conn_touch(c);
	}
	if(pos > 0)
		stream_in_consume(c, pos);
	/* pause reading while a whole message waits for output room */
	if(has_whole_msg(c))
		stream_conn_pause_read(c, 1);
	else if(c->paused | c->eof) {
		if(!c->eof)
			stream_conn_pause_read(c, 0);
		else if(*pending == 0)
			stream_conn_finish(c, 0, 0);
	}
}

/* Output room was made: queries held back for it can go on. */
static void dns_writable(void* arg, struct stream_conn* c)
{
	if(c->paused)
		dns_process(arg, c);
}

static int dns_timeout(void* arg, struct stream_conn* c)
{
	(void)arg;
	/* answers are on their way (recursion is time-bounded) */
	return c->user_count > 0;
}

static void dns_closed(void* arg, struct stream_conn* c,
	enum stream_close_why why)
{
	struct tcp_pool* p = arg;
	if(why == STREAM_CLOSE_TIMEOUT)
		verbose(VERB_ALGO, "tcp connection idle timeout, closed");
	if(c->user_count > 0 && p->on_close) {
		struct tcp_handle h;
		h.pool = p;
		h.slot = c->slot;
		h.gen = c->gen;
		h.peer = NULL;
		h.peerlen = 0;
		p->on_close(p->arg, &h);
	}
	c->user_count = 0;
}

static const struct stream_proto dns_proto = {
	"tcp", NULL, dns_process, dns_writable, dns_timeout, dns_closed
};

static struct tcp_pool* pool_create(struct event_base* base,
	int max_conns, int idle_timeout_ms, int tls, int handshake_ms,
	tcp_answer_fn answer, void* arg)
{
	struct tcp_pool* p = calloc(1, sizeof(*p));
	struct stream_pool_cfg cfg;
	if(!p)
		return NULL;
	if(max_conns < 1)
		max_conns = 1;
	memset(&cfg, 0, sizeof(cfg));
	cfg.max_conns = max_conns;
	cfg.in_cap = TCP_IN_CAP;
	cfg.out_cap = TCP_OUT_CAP;
	cfg.timeout_ms = idle_timeout_ms;
	cfg.write_touches = 1;
	cfg.count_wait = 1;   /* stream-wait-size */
	cfg.handshake_ms = handshake_ms;
	/* TLS: idle connections hold no buffers (plain ones keep theirs
	 * for the hot path's sake; see services/stream_conn.h) */
	cfg.lazy_buffers = tls;
	/* TLS: a recv() a wake-up, and a wake-up's records (the session
	 * ticket with the first answer) in one send() */
	cfg.tls_batch = tls;
	p->answer = answer;
	p->arg = arg;
	p->sp = stream_pool_create(base, &cfg, &dns_proto, p);
	if(!p->sp) {
		tcp_pool_delete(p);
		return NULL;
	}
	return p;
}

struct tcp_pool* tcp_pool_create(struct event_base* base, int max_conns,
	int idle_timeout_ms, tcp_answer_fn answer, void* arg)
{
	return pool_create(base, max_conns, idle_timeout_ms, 0, 0, answer,
		arg);
}

struct tcp_pool* tcp_pool_create_tls(struct event_base* base,
	int max_conns, int idle_timeout_ms, int handshake_ms,
	tcp_answer_fn answer, void* arg)
{
	return pool_create(base, max_conns, idle_timeout_ms, 1, handshake_ms,
		answer, arg);
}

int tcp_pool_add_tls_listener(struct tcp_pool* p, int fd,
	stream_tls_ctx_fn get, void* arg)
{
	return stream_pool_add_tls_listener(p->sp, fd, get, arg);
}

int tcp_handle_fd(const struct tcp_handle* h, int* is_tls)
{
	struct stream_conn* c = stream_pool_conn(h->pool->sp, h->slot);
	*is_tls = c->ssl != NULL;
	return c->fd;
}

int tcp_handle_tls_resumed(const struct tcp_handle* h)
{
	struct stream_conn* c = stream_pool_conn(h->pool->sp, h->slot);
	return c->ssl && stream_tls_resumed(c->ssl);
}

void tcp_pool_set_idle_timeout(struct tcp_pool* p, int ms)
{
	stream_pool_set_timeout(p->sp, ms);
}

void tcp_pool_set_conn_limit(struct tcp_pool* p, struct conn_limit* cl)
{
	stream_pool_set_conn_limit(p->sp, cl);
}

int tcp_pool_add_listener(struct tcp_pool* p, int fd)
{
	return stream_pool_add_listener(p->sp, fd, NULL);
}

int tcp_pool_set_listener_proxy(struct tcp_pool* p, int fd)
{
	return stream_pool_set_listener_proxy(p->sp, fd);
}

int tcp_pool_adopt(struct tcp_pool* p, int fd,
	const struct sockaddr_storage* addr, socklen_t addrlen)
{
	return stream_pool_adopt_from(p->sp, fd, NULL, addr, addrlen);
}

void tcp_pool_deferred_reply(const struct tcp_handle* h,
	const uint8_t* reply, size_t len)
{
	struct tcp_pool* p = h->pool;
	struct stream_conn* c = stream_pool_conn(p->sp, h->slot);
	if(c->state == STREAM_FREE || c->gen != h->gen)
		return;  /* closed meanwhile: nobody to answer */
	c->user_count--;
	if(!stream_conn_buffers(c)) {
		log_err("tcp: out of memory for a buffer");
		stream_conn_close(c);
		return;
	}
	if(len > 0) {
		if(TCP_OUT_CAP - c->out_end < 2 + len &&
			stream_out_compact(c) < 2 + len) {
			verbose(VERB_ALGO, "tcp client does not read its "
				"answers, closed");
			stream_conn_close(c);
			return;
		}
		wire_wr16(c->out + c->out_end, (uint16_t)len);
		memcpy(c->out + c->out_end + 2, reply, len);
		c->out_end += 2 + len;
	}
	/* a query held back by TCP_MAX_PENDING can go on now */
	dns_process(p, c);
	if(c->gen != h->gen)
		return;  /* closed while writing */
	if(!stream_conn_flush(c) || c->gen != h->gen)
		return;
	/* queries held back for output room while a write waited: when
	 * this flush wrote it all, no writable callback comes to serve
	 * them (the client had read meanwhile), so they go on here */
	while(c->paused && !c->writing && has_whole_msg(c)) {
		size_t before = c->in_len;
		dns_process(p, c);
		if(c->gen != h->gen || !stream_conn_flush(c) ||
			c->gen != h->gen)
			return;
		if(c->in_len == before)
			break;   /* held by TCP_MAX_PENDING: a reply resumes */
	}
	stream_conn_release_idle(c);
}

void tcp_pool_set_close_hook(struct tcp_pool* p, tcp_close_fn fn)
{
	p->on_close = fn;
}

int tcp_pool_num_open(const struct tcp_pool* p)
{
	return stream_pool_num_open(p->sp);
}

void tcp_pool_delete(struct tcp_pool* p)
{
	if(!p)
		return;
	stream_pool_delete(p->sp);
	free(p);
}
