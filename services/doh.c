/* SPDX-License-Identifier: BSD-3-Clause */
/* services/doh.c - DNS over HTTPS to clients: one nghttp2 server session
 * per stream connection, the request checks of services/doh_req.c, and
 * the answers (from the cache at once, or later from the mesh). */
#include "config.h"
#include "services/doh.h"
#include "services/doh_req.h"
#include "services/stream_conn.h"
#include "services/stream_tls.h"
#include "util/log.h"
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

static atomic_size_t mem_query, mem_response;
static atomic_size_t max_query, max_response;

void doh_set_mem_limits(size_t query_max, size_t response_max)
{
	atomic_store(&max_query, query_max);
	atomic_store(&max_response, response_max);
}

size_t doh_mem_query_buffer(void)
{
	return atomic_load_explicit(&mem_query, memory_order_relaxed);
}

size_t doh_mem_response_buffer(void)
{
	return atomic_load_explicit(&mem_response, memory_order_relaxed);
}

/* Take n bytes of a global budget; 0 when that would pass its limit. */
static int mem_take(atomic_size_t* used, atomic_size_t* max, size_t n)
{
	size_t lim = atomic_load_explicit(max, memory_order_relaxed);
	size_t now = atomic_fetch_add(used, n) + n;
	if(lim > 0 && now > lim) {
		atomic_fetch_sub(used, n);
		return 0;
	}
	return 1;
}

static void mem_give(atomic_size_t* used, size_t n)
{
	if(n)
		atomic_fetch_sub(used, n);
}

#ifdef HAVE_NGHTTP2
#include <nghttp2/nghttp2.h>

/* Input per read, and queued output before the client must read. */
#define DOH_IN_CAP 16384
#define DOH_OUT_CAP 32768
#define POST_FIRST_CAP 512
/* A query and an answer this small live in the stream itself, and a
 * connection keeps a few freed streams: no malloc per request. The
 * buffer statistics count them as before. */
#define Q_INLINE 512
#define R_INLINE 512
#define SPARE_STREAMS 16

enum doh_method { METHOD_NONE = 0, METHOD_GET, METHOD_POST, METHOD_OTHER };

struct doh_stream {
	struct doh_stream* next, *prev;  /* the connection's streams */
	int32_t id;
	enum doh_method method;
	unsigned wrong_path : 1, wrong_type : 1, too_large : 1, bad_param : 1,
		reset : 1, waiting : 1, answered : 1, q_param : 1;
	uint8_t* q;              /* the DNS query, qcap counted */
	size_t qlen, qcap;
	size_t clen;             /* content-length, 0: not given */
	const uint8_t* resp;     /* the body being sent */
	uint8_t* resp_own;       /* resp when owned (counted) */
	size_t resp_len, resp_pos;
	/* from here on not cleared for reuse */
	uint8_t q_in[Q_INLINE];
	uint8_t r_in[R_INLINE];
};
#define STREAM_CLEAR offsetof(struct doh_stream, q_in)

struct doh_conn {
	struct doh_pool* pool;
	nghttp2_session* s;
	struct stream_conn* c;
	struct doh_stream* streams;
	struct doh_stream* spare;  /* freed ones, by next */
	int num_spare;
	int in_recv;             /* inside nghttp2_session_mem_recv */
	int requests;            /* completed in this mem_recv */
	int seal_each;           /* each answer its own TLS record */
	uint8_t* ovf;            /* a frame's rest that c->out had no room
	                          * for */
	size_t ovf_len, ovf_pos, ovf_cap;
};

struct doh_pool {
	struct stream_pool* sp;
	struct doh_conn* conns;  /* per slot */
	int max_conns;
	doh_answer_fn answer;
	doh_close_fn on_close;
	void* arg;
	char* endpoint;
	int max_streams, nodelay;
	nghttp2_session_callbacks* cbs;
	uint8_t scratch[DOH_MSG_MAX];   /* answers made at once */
};

int doh_available(void)
{
	return 1;
}

static struct doh_stream* find_stream(struct doh_conn* dc, int32_t id)
{
	struct doh_stream* st;
	for(st = dc->streams; st; st = st->next)
		if(st->id == id)
			return st;
	return NULL;
}

static void free_query(struct doh_stream* st)
{
	mem_give(&mem_query, st->qcap);
	if(st->q != st->q_in)
		free(st->q);
	st->q = NULL;
	st->qlen = st->qcap = 0;
}

static void stream_free(struct doh_conn* dc, struct doh_stream* st)
{
	if(st->prev)
		st->prev->next = st->next;
	else	dc->streams = st->next;
	if(st->next)
		st->next->prev = st->prev;
	free_query(st);
	if(st->resp_own) {
		mem_give(&mem_response, st->resp_len);
		if(st->resp_own != st->r_in)
			free(st->resp_own);
	}
	if(dc->num_spare < SPARE_STREAMS) {
		st->next = dc->spare;
		dc->spare = st;
		dc->num_spare++;
		return;
	}
	free(st);
}

static struct doh_stream* stream_new(struct doh_conn* dc)
{
	struct doh_stream* st = dc->spare;
	if(!st)
		return calloc(1, sizeof(*st));
	dc->spare = st->next;
	dc->num_spare--;
	memset(st, 0, STREAM_CLEAR);
	return st;
}

static void reset_stream(struct doh_conn* dc, struct doh_stream* st,
	uint32_t code)
{
	if(st->reset)
		return;
	st->reset = 1;
	free_query(st);
	(void)nghttp2_submit_rst_stream(dc->s, NGHTTP2_FLAG_NONE, st->id, code);
}

static ssize_t body_read(nghttp2_session* s, int32_t id, uint8_t* buf,
	size_t len, uint32_t* flags, nghttp2_data_source* src, void* user)
{
	struct doh_stream* st = src->ptr;
	size_t n = st->resp_len - st->resp_pos;
	(void)s;
	(void)id;
	(void)user;
	if(n > len)
		n = len;
	memcpy(buf, st->resp + st->resp_pos, n);
	st->resp_pos += n;
	if(st->resp_pos == st->resp_len)
		*flags |= NGHTTP2_DATA_FLAG_EOF;
	return (ssize_t)n;
}

#define NV(n, v, vl) { (uint8_t*)(n), (uint8_t*)(v), sizeof(n) - 1, (vl), \
	NGHTTP2_NV_FLAG_NONE }

/* compat: unbound-1.17: An HTTP error on this stream, its reason as the body
 * (as Unbound). */
static void send_error(struct doh_conn* dc, struct doh_stream* st, int code)
{
	const char* why;
	char status[4];
	nghttp2_nv nv[1] = { NV(":status", status, 3) };
	nghttp2_data_provider prd;
	switch(code) {
	case 400: why = "Bad Request"; break;
	case 404: why = "Not Found"; break;
	case 413: why = "Payload Too Large"; break;
	case 415: why = "Unsupported Media Type"; break;
	default: code = 501; why = "Not Implemented"; break;
	}
	snprintf(status, sizeof(status), "%d", code);
	free_query(st);
	st->answered = 1;
	st->resp = (const uint8_t*)why;
	st->resp_len = strlen(why);
	prd.source.ptr = st;
	prd.read_callback = body_read;
	if(nghttp2_submit_response(dc->s, st->id, nv, 1, &prd) != 0)
		reset_stream(dc, st, NGHTTP2_INTERNAL_ERROR);
}

/* v in decimal at buf (room for 10 digits); its length. snprintf's
 * format parsing was a visible part of each answer's cost. */
static size_t put_uint(char* buf, uint32_t v)
{
	char tmp[10];
	size_t n = 0, i;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while(v);
	for(i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	return n;
}

/* The DNS answer (len 0: none, the stream is reset). */
static void send_answer(struct doh_conn* dc, struct doh_stream* st,
	const uint8_t* reply, size_t len)
{
	char clen[16], cc[32];
	nghttp2_nv nv[4] = {
		NV(":status", "200", 3),
		NV("content-type", "application/dns-message", 23),
		NV("content-length", clen, 0),
		NV("cache-control", cc, 0)
	};
	size_t nvlen = 3;
	uint32_t ttl;
	nghttp2_data_provider prd;
	st->answered = 1;
	if(len == 0) {
		reset_stream(dc, st, NGHTTP2_REFUSED_STREAM);
		return;
	}
	if(!mem_take(&mem_response, &max_response, len)) {
		verbose(VERB_ALGO, "https: http-response-buffer-size reached, "
			"stream reset");
		reset_stream(dc, st, NGHTTP2_REFUSED_STREAM);
		return;
	}
	if(!(st->resp_own = len <= R_INLINE ? st->r_in : malloc(len))) {
		mem_give(&mem_response, len);
		reset_stream(dc, st, NGHTTP2_INTERNAL_ERROR);
		return;
	}
	memcpy(st->resp_own, reply, len);
	st->resp = st->resp_own;
	st->resp_len = len;
	nv[2].valuelen = put_uint(clen, (uint32_t)len);  /* <= 65535 */
	if(doh_min_ttl(reply, len, &ttl)) {
		memcpy(cc, "max-age=", 8);
		nv[3].valuelen = 8 + put_uint(cc + 8, ttl);
		nvlen = 4;
	}
	prd.source.ptr = st;
	prd.read_callback = body_read;
	if(nghttp2_submit_response(dc->s, st->id, nv, nvlen, &prd) != 0)
		reset_stream(dc, st, NGHTTP2_INTERNAL_ERROR);
}

/* compat: unbound-1.17: The whole request is in: check it (in Unbound's order)
 * and answer. */
static void request_done(struct doh_pool* p, struct doh_conn* dc,
	struct doh_stream* st)
{
	struct doh_handle h;
	struct stream_conn* c = dc->c;
	struct stream_answer a;
	if(st->reset || st->answered || st->waiting)
		return;
	dc->requests++;
	if(st->wrong_path)
		send_error(dc, st, 404);
	else if(st->wrong_type)
		send_error(dc, st, 415);
	else if(st->method != METHOD_GET && st->method != METHOD_POST)
		send_error(dc, st, 501);
	else if(st->too_large)
		send_error(dc, st, 413);
	else if(st->bad_param || !st->q || st->qlen < 12)
		send_error(dc, st, 400);
	if(st->answered)
		return;
	h.pool = p;
	h.slot = c->slot;
	h.gen = c->gen;
	h.stream_id = st->id;
	a = p->answer(p->arg, st->q, st->qlen, &c->addr, c->addrlen,
		p->scratch, sizeof(p->scratch), &h);
	free_query(st);
	stream_conn_touch(c);
	if(a.what == STREAM_ANSWER_DEFERRED) {
		st->waiting = 1;
		c->user_count++;
		return;
	}
	send_answer(dc, st, p->scratch,
		a.what == STREAM_ANSWER_REPLY ? a.len : 0);
}

/* Append POST body bytes to the query, within the global budget. */
static int query_append(struct doh_conn* dc, struct doh_stream* st,
	const uint8_t* data, size_t len)
{
	if(st->too_large || st->reset)
		return 1;
	if(st->q_param) {
		/* POST: the body is the query, not a ?dns= */
		free_query(st);
		st->q_param = 0;
	}
	if(st->qlen + len > DOH_MSG_MAX) {
		st->too_large = 1;
		free_query(st);
		return 1;
	}
	if(st->qlen + len > st->qcap) {
		/* content-length's worth at once, else grow by doubling */
		size_t cap = st->qcap ? st->qcap * 2 : (st->clen ? st->clen :
			POST_FIRST_CAP);
		uint8_t* q;
		while(cap < st->qlen + len)
			cap *= 2;
		if(cap > DOH_MSG_MAX)
			cap = DOH_MSG_MAX;
		if(!mem_take(&mem_query, &max_query, cap - st->qcap)) {
			verbose(VERB_ALGO, "https: http-query-buffer-size "
				"reached, stream reset");
			reset_stream(dc, st, NGHTTP2_REFUSED_STREAM);
			return 1;
		}
		if(cap <= Q_INLINE && (!st->q || st->q == st->q_in))
			q = st->q_in;
		else if(st->q == st->q_in) {
			if((q = malloc(cap)) != NULL)
				memcpy(q, st->q_in, st->qlen);
		} else	q = realloc(st->q, cap);
		if(!q) {
			mem_give(&mem_query, cap - st->qcap);
			reset_stream(dc, st, NGHTTP2_INTERNAL_ERROR);
			return 1;
		}
		st->q = q;
		st->qcap = cap;
	}
	memcpy(st->q + st->qlen, data, len);
	st->qlen += len;
	return 1;
}

/* GET's ?dns= parameter, decoded into the query buffer. */
static void query_from_param(struct doh_conn* dc, struct doh_stream* st,
	const uint8_t* b64, size_t len)
{
	size_t room = doh_b64url_room(len);
	long n;
	free_query(st);
	if(room > DOH_MSG_MAX + 3) {
		st->bad_param = 1;
		return;
	}
	if(!mem_take(&mem_query, &max_query, room)) {
		verbose(VERB_ALGO, "https: http-query-buffer-size reached, "
			"stream reset");
		reset_stream(dc, st, NGHTTP2_REFUSED_STREAM);
		return;
	}
	if(!(st->q = room <= Q_INLINE ? st->q_in : malloc(room))) {
		mem_give(&mem_query, room);
		reset_stream(dc, st, NGHTTP2_INTERNAL_ERROR);
		return;
	}
	st->qcap = room;
	n = doh_b64url_decode(b64, len, st->q, room);
	if(n < 0 || n > DOH_MSG_MAX) {
		st->bad_param = 1;
		free_query(st);
		return;
	}
	st->qlen = (size_t)n;
	st->q_param = 1;
}

static int on_begin_headers(nghttp2_session* s, const nghttp2_frame* f,
	void* user)
{
	struct doh_conn* dc = user;
	struct doh_stream* st;
	if(f->hd.type != NGHTTP2_HEADERS ||
		f->headers.cat != NGHTTP2_HCAT_REQUEST)
		return 0;
	if(!(st = stream_new(dc)))
		return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
	st->id = f->hd.stream_id;
	st->next = dc->streams;
	if(dc->streams)
		dc->streams->prev = st;
	dc->streams = st;
	(void)s;
	return 0;
}

#define IS(name, lit) (name##len == sizeof(lit) - 1 && \
	memcmp(name, lit, sizeof(lit) - 1) == 0)

static int on_header(nghttp2_session* s, const nghttp2_frame* f,
	const uint8_t* name, size_t namelen, const uint8_t* value,
	size_t valuelen, uint8_t flags, void* user)
{
	struct doh_conn* dc = user;
	struct doh_stream* st;
	(void)s;
	(void)flags;
	if(f->hd.type != NGHTTP2_HEADERS ||
		f->headers.cat != NGHTTP2_HCAT_REQUEST)
		return 0;
	if(!(st = find_stream(dc, f->hd.stream_id)) || st->reset)
		return 0;
	if(IS(name, ":method")) {
		if(IS(value, "GET"))
			st->method = METHOD_GET;
		else if(IS(value, "POST"))
			st->method = METHOD_POST;
		else	st->method = METHOD_OTHER;
	} else if(IS(name, ":path")) {
		const uint8_t* b64;
		size_t b64len;
		switch(doh_check_path(dc->pool->endpoint, value, valuelen,
			&b64, &b64len)) {
		case DOH_PATH_WRONG:
			st->wrong_path = 1;
			break;
		case DOH_PATH_QUERY:
			query_from_param(dc, st, b64, b64len);
			break;
		default:
			break;
		}
	} else if(IS(name, "content-type")) {
		if(!doh_content_type_ok(value, valuelen))
			st->wrong_type = 1;
	} else if(IS(name, "content-length")) {
		/* nghttp2 checks it is digits and matches the body */
		if(valuelen > 5 || atol((const char*)value) > DOH_MSG_MAX)
			st->too_large = 1;
		else	st->clen = (size_t)atol((const char*)value);
	}
	return 0;
}

static int on_data_chunk(nghttp2_session* s, uint8_t flags, int32_t id,
	const uint8_t* data, size_t len, void* user)
{
	struct doh_conn* dc = user;
	struct doh_stream* st = find_stream(dc, id);
	(void)s;
	(void)flags;
	if(!st || st->method != METHOD_POST)
		return 0;  /* a body on other methods is not looked at */
	return query_append(dc, st, data, len) ? 0 :
		NGHTTP2_ERR_CALLBACK_FAILURE;
}

static int on_frame_recv(nghttp2_session* s, const nghttp2_frame* f,
	void* user)
{
	struct doh_conn* dc = user;
	struct doh_stream* st;
	(void)s;
	if((f->hd.type != NGHTTP2_HEADERS && f->hd.type != NGHTTP2_DATA) ||
		!(f->hd.flags & NGHTTP2_FLAG_END_STREAM))
		return 0;
	if((st = find_stream(dc, f->hd.stream_id)) != NULL)
		request_done(dc->pool, dc, st);
	return 0;
}

static int on_stream_close(nghttp2_session* s, int32_t id, uint32_t code,
	void* user)
{
	struct doh_conn* dc = user;
	struct doh_stream* st = find_stream(dc, id);
	(void)s;
	(void)code;
	/* a waiting one's answer finds no stream and is dropped */
	if(st)
		stream_free(dc, st);
	return 0;
}

/* Is this frame (nghttp2_session_mem_send gives one at a time) the end
 * of a stream? */
static int ends_stream(const uint8_t* frame, size_t len)
{
	return len >= 9 && (frame[3] == NGHTTP2_DATA ||
		frame[3] == NGHTTP2_HEADERS) &&
		(frame[4] & NGHTTP2_FLAG_END_STREAM);
}

/* Move what nghttp2 has to send into the connection's output buffer;
 * what does not fit waits in ovf, and reading stops until the client
 * took it. Closes (finishes) the connection when HTTP/2 is done. */
static void doh_flush(struct doh_conn* dc)
{
	struct stream_conn* c = dc->c;
	for(;;) {
		const uint8_t* data;
		ssize_t n;
		size_t room, k;
		if(dc->ovf_pos < dc->ovf_len) {
			room = stream_out_compact(c);
			k = dc->ovf_len - dc->ovf_pos;
			if(k > room)
				k = room;
			memcpy(c->out + c->out_end, dc->ovf + dc->ovf_pos, k);
			c->out_end += k;
			dc->ovf_pos += k;
			if(dc->ovf_pos < dc->ovf_len)
				break;
			dc->ovf_pos = dc->ovf_len = 0;
		}
		n = nghttp2_session_mem_send(dc->s, &data);
		if(n < 0) {
			verbose(VERB_ALGO, "https: %s", nghttp2_strerror(
				(int)n));
			stream_conn_close(c);
			return;
		}
		if(n == 0)
			break;
		room = stream_out_compact(c);
		k = (size_t)n < room ? (size_t)n : room;
		memcpy(c->out + c->out_end, data, k);
		c->out_end += k;
		if(k == (size_t)n && dc->seal_each && ends_stream(data, k)) {
			/* one answer a TLS record: dnsperf 2.10 takes one
			 * answer from each record it reads and waits for the
			 * socket for the next */
			uint32_t gen = c->gen;
			if(!stream_conn_seal(c) || c->gen != gen)
				return;
			continue;
		}
		if(k < (size_t)n) {
			size_t rest = (size_t)n - k;
			if(rest > dc->ovf_cap) {
				uint8_t* o = realloc(dc->ovf, rest);
				if(!o) {
					stream_conn_close(c);
					return;
				}
				dc->ovf = o;
				dc->ovf_cap = rest;
			}
			memcpy(dc->ovf, data + k, rest);
			dc->ovf_len = rest;
			dc->ovf_pos = 0;
			break;
		}
	}
	/* a client that does not read is not read from */
	stream_conn_pause_read(c, dc->ovf_len > 0);
	if(dc->ovf_len == 0 && !nghttp2_session_want_write(dc->s) &&
		(!nghttp2_session_want_read(dc->s) ||
		(c->eof && c->user_count == 0)))
		stream_conn_finish(c, 0, 0);
}

static void doh_opened(void* arg, struct stream_conn* c)
{
	struct doh_pool* p = arg;
	struct doh_conn* dc = &p->conns[c->slot];
	nghttp2_settings_entry iv[1];
	dc->pool = p;
	dc->c = c;
	dc->streams = NULL;
	dc->ovf_len = dc->ovf_pos = 0;
	dc->in_recv = 0;
	dc->seal_each = 1;
	if(p->nodelay) {
		int on = 1;
		/* answers are small: do not wait to fill a segment */
		(void)setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &on,
			sizeof(on));
	}
	if(nghttp2_session_server_new(&dc->s, p->cbs, dc) != 0) {
		dc->s = NULL;
		return;  /* closed at its first input */
	}
	iv[0].settings_id = NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS;
	iv[0].value = (uint32_t)p->max_streams;
	if(nghttp2_submit_settings(dc->s, NGHTTP2_FLAG_NONE, iv, 1) != 0) {
		nghttp2_session_del(dc->s);
		dc->s = NULL;
	}
}

static void doh_readable(void* arg, struct stream_conn* c)
{
	struct doh_pool* p = arg;
	struct doh_conn* dc = &p->conns[c->slot];
	ssize_t n;
	if(!dc->s) {
		stream_conn_close(c);
		return;
	}
	if(c->in_len > 0) {
		dc->in_recv = 1;
		dc->requests = 0;
		n = nghttp2_session_mem_recv(dc->s, c->in, c->in_len);
		dc->in_recv = 0;
		/* a client that put several requests in one TLS record reads
		 * several answers from one too: this wake-up's answers then
		 * share records (OpenSSL's work is per record); one that sent
		 * a record a request gets a record an answer */
		dc->seal_each = c->ssl == NULL || dc->requests <=
			c->in_records;
		if(n < 0) {
			verbose(VERB_ALGO, "https: %s, closed",
				nghttp2_strerror((int)n));
			stream_conn_close(c);
			return;
		}
		stream_in_consume(c, (size_t)n);
	}
	doh_flush(dc);
	if(c->state != STREAM_FREE)
		dc->seal_each = 1;  /* answers from the mesh: one a record */
}

static void doh_writable(void* arg, struct stream_conn* c)
{
	struct doh_pool* p = arg;
	struct doh_conn* dc = &p->conns[c->slot];
	if(dc->s)
		doh_flush(dc);
}

static int doh_timeout(void* arg, struct stream_conn* c)
{
	(void)arg;
	return c->user_count > 0;  /* answers are on their way */
}

static void doh_closed(void* arg, struct stream_conn* c,
	enum stream_close_why why)
{
	struct doh_pool* p = arg;
	struct doh_conn* dc = &p->conns[c->slot];
	if(why == STREAM_CLOSE_TIMEOUT)
		verbose(VERB_ALGO, "https connection idle timeout, closed");
	if(c->user_count > 0 && p->on_close) {
		struct doh_handle h;
		h.pool = p;
		h.slot = c->slot;
		h.gen = c->gen;
		h.stream_id = 0;
		p->on_close(p->arg, &h);
	}
	c->user_count = 0;
	if(dc->s)
		nghttp2_session_del(dc->s);  /* calls no stream callbacks */
	dc->s = NULL;
	while(dc->streams)
		stream_free(dc, dc->streams);
	while(dc->spare) {
		struct doh_stream* st = dc->spare;
		dc->spare = st->next;
		free(st);
	}
	dc->num_spare = 0;
	free(dc->ovf);
	dc->ovf = NULL;
	dc->ovf_cap = dc->ovf_len = dc->ovf_pos = 0;
}

static const struct stream_proto doh_proto = {
	"https", doh_opened, doh_readable, doh_writable, doh_timeout,
	doh_closed
};

int doh_pool_apply(struct doh_pool* p, const struct doh_settings* s)
{
	char* e = strdup(s->endpoint ? s->endpoint : "/dns-query");
	if(!e)
		return 0;
	free(p->endpoint);
	p->endpoint = e;
	p->max_streams = s->max_streams > 0 ? s->max_streams : 1;
	p->nodelay = s->nodelay;
	stream_pool_set_timeout(p->sp, s->idle_timeout_ms);
	stream_pool_set_conn_limit(p->sp, s->conn_limit);
	return 1;
}

struct doh_pool* doh_pool_create(struct event_base* base,
	const struct doh_settings* s, doh_answer_fn answer,
	doh_close_fn on_close, void* arg)
{
	struct doh_pool* p = calloc(1, sizeof(*p));
	struct stream_pool_cfg cfg;
	if(!p)
		return NULL;
	p->max_conns = s->max_conns > 0 ? s->max_conns : 1;
	p->answer = answer;
	p->on_close = on_close;
	p->arg = arg;
	p->conns = calloc((size_t)p->max_conns, sizeof(*p->conns));
	if(!p->conns || nghttp2_session_callbacks_new(&p->cbs) != 0)
		goto fail;
	nghttp2_session_callbacks_set_on_begin_headers_callback(p->cbs,
		on_begin_headers);
	nghttp2_session_callbacks_set_on_header_callback(p->cbs, on_header);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(p->cbs,
		on_data_chunk);
	nghttp2_session_callbacks_set_on_frame_recv_callback(p->cbs,
		on_frame_recv);
	nghttp2_session_callbacks_set_on_stream_close_callback(p->cbs,
		on_stream_close);
	memset(&cfg, 0, sizeof(cfg));
	cfg.max_conns = p->max_conns;
	cfg.in_cap = DOH_IN_CAP;
	cfg.out_cap = DOH_OUT_CAP;
	cfg.timeout_ms = s->idle_timeout_ms;
	cfg.write_touches = 1;
	cfg.tls_batch = 1;
	p->sp = stream_pool_create(base, &cfg, &doh_proto, p);
	if(!p->sp || !doh_pool_apply(p, s))
		goto fail;
	return p;
fail:
	doh_pool_delete(p);
	return NULL;
}

void doh_pool_delete(struct doh_pool* p)
{
	if(!p)
		return;
	stream_pool_delete(p->sp);  /* closes: doh_closed frees each */
	if(p->cbs)
		nghttp2_session_callbacks_del(p->cbs);
	free(p->conns);
	free(p->endpoint);
	free(p);
}

int doh_pool_add_listener(struct doh_pool* p, int fd, SSL_CTX* tls)
{
	return stream_pool_add_listener(p->sp, fd, tls);
}

int doh_pool_add_tls_listener(struct doh_pool* p, int fd,
	doh_tls_ctx_fn get, void* arg)
{
	return stream_pool_add_tls_listener(p->sp, fd, get, arg);
}

int doh_pool_adopt(struct doh_pool* p, int fd, SSL_CTX* tls,
	const struct sockaddr_storage* addr, socklen_t addrlen)
{
	return stream_pool_adopt_from(p->sp, fd, tls, addr, addrlen);
}

void doh_pool_deferred_reply(const struct doh_handle* h,
	const uint8_t* reply, size_t len)
{
	struct doh_pool* p = h->pool;
	struct stream_conn* c = stream_pool_conn(p->sp, h->slot);
	struct doh_conn* dc = &p->conns[h->slot];
	struct doh_stream* st;
	if(c->state == STREAM_FREE || c->gen != h->gen || !dc->s)
		return;  /* closed meanwhile: nobody to answer */
	c->user_count--;
	st = find_stream(dc, h->stream_id);
	if(st && st->waiting) {
		st->waiting = 0;
		send_answer(dc, st, reply, len);
	}
	if(dc->in_recv)
		return;  /* the reading path sends it when mem_recv is done */
	stream_conn_touch(c);
	doh_flush(dc);
	if(c->gen == h->gen)
		(void)stream_conn_flush(c);
}

int doh_pool_num_open(const struct doh_pool* p)
{
	return stream_pool_num_open(p->sp);
}

int doh_handle_fd(const struct doh_handle* h)
{
	return stream_pool_conn(h->pool->sp, h->slot)->fd;
}

int doh_handle_tls(const struct doh_handle* h)
{
	struct stream_conn* c = stream_pool_conn(h->pool->sp, h->slot);
	if(!c->ssl)
		return 0;
	return stream_tls_resumed(c->ssl) ? 2 : 1;
}

#else /* !HAVE_NGHTTP2 */

int doh_available(void)
{
	return 0;
}

struct doh_pool* doh_pool_create(struct event_base* base,
	const struct doh_settings* s, doh_answer_fn answer,
	doh_close_fn on_close, void* arg)
{
	(void)base; (void)s; (void)answer; (void)on_close; (void)arg;
	(void)mem_take;
	return NULL;
}

void doh_pool_delete(struct doh_pool* p)
{
	(void)p;
}

int doh_pool_add_listener(struct doh_pool* p, int fd, SSL_CTX* tls)
{
	(void)p; (void)fd; (void)tls;
	return 0;
}

int doh_pool_add_tls_listener(struct doh_pool* p, int fd,
	doh_tls_ctx_fn get, void* arg)
{
	(void)p; (void)fd; (void)get; (void)arg;
	return 0;
}

int doh_pool_adopt(struct doh_pool* p, int fd, SSL_CTX* tls,
	const struct sockaddr_storage* addr, socklen_t addrlen)
{
	(void)p; (void)fd; (void)tls; (void)addr; (void)addrlen;
	return 0;
}

int doh_pool_apply(struct doh_pool* p, const struct doh_settings* s)
{
	(void)p; (void)s;
	return 0;
}

void doh_pool_deferred_reply(const struct doh_handle* h,
	const uint8_t* reply, size_t len)
{
	(void)h; (void)reply; (void)len;
	(void)mem_give;
}

int doh_pool_num_open(const struct doh_pool* p)
{
	(void)p;
	return 0;
}

int doh_handle_tls(const struct doh_handle* h)
{
	(void)h;
	return 0;
}

int doh_handle_fd(const struct doh_handle* h)
{
	(void)h;
	return -1;
}
#endif /* HAVE_NGHTTP2 */
