/* SPDX-License-Identifier: BSD-3-Clause */
/* services/doh.h - compat: unbound-1.17: DNS over HTTPS to clients (RFC 8484)
 * for one worker: HTTP/2 (libnghttp2) on the stream connection layer
 * (services/stream_conn.c), over TLS with ALPN h2 or, with
 * http-notls-downstream: yes, in cleartext with prior knowledge.
 *
 * GET http-endpoint?dns=BASE64URL and POST http-endpoint with
 * content-type application/dns-message; several streams per connection
 * (at most http-max-streams at once, announced in SETTINGS), each
 * answered as its DNS answer is ready, in any order. A bad request gets
 * Unbound 1.17's HTTP status on its own stream only: 404 wrong path,
 * 501 method not GET/POST, 415 content type, 413 body over 65535
 * bytes, 400 no or bad ?dns= or a DNS message under 12 bytes. Request
 * bodies and answers waiting to be written count against the global
 * http-query-buffer-size and http-response-buffer-size: a stream that
 * would pass one is reset (RST_STREAM REFUSED_STREAM), as Unbound. */
#ifndef SERVICES_DOH_H
#define SERVICES_DOH_H
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include "services/stream_conn.h"

struct event_base;
struct doh_pool;
typedef struct ssl_ctx_st SSL_CTX;

/* Names one request for an answer that comes later; stale (ignored)
 * once its connection closed, even if the slot was reused. */
struct doh_handle {
	struct doh_pool* pool;
	int slot;
	uint32_t gen;
	int32_t stream_id;
};

/* Answers one query, as tcp_answer_fn (services/stream_conn.h's struct
 * stream_answer): STREAM_ANSWER_NONE resets the stream; after
 * STREAM_ANSWER_DEFERRED h gets exactly one doh_pool_deferred_reply. */
typedef struct stream_answer (*doh_answer_fn)(void* arg,
	const uint8_t* pkt, size_t len, const struct sockaddr_storage* addr,
	socklen_t addrlen, uint8_t* out, size_t outcap,
	const struct doh_handle* h);
/* A connection with deferred replies to come closed. */
typedef void (*doh_close_fn)(void* arg, const struct doh_handle* h);

struct conn_limit;
struct doh_settings {
	const char* endpoint;        /* http-endpoint (copied) */
	int max_streams;             /* http-max-streams */
	int nodelay;                 /* http-nodelay */
	int max_conns;               /* incoming-num-tcp */
	int idle_timeout_ms;         /* tcp-idle-timeout */
	struct conn_limit* conn_limit; /* tcp-connection-limit (borrowed) */
};

/* NULL when built without libnghttp2, or out of memory. */
struct doh_pool* doh_pool_create(struct event_base* base,
	const struct doh_settings* s, doh_answer_fn answer, doh_close_fn on_close,
	void* arg);
void doh_pool_delete(struct doh_pool* p);
/* Accept on a listening socket; tls NULL: cleartext HTTP/2. */
int doh_pool_add_listener(struct doh_pool* p, int fd, SSL_CTX* tls);
/* A TLS listener whose context comes from get(arg) at each accept (a
 * reload swaps it: services/tls_server.h, tls_server_ref_get). */
typedef SSL_CTX* (*doh_tls_ctx_fn)(void* arg);
int doh_pool_add_tls_listener(struct doh_pool* p, int fd,
	doh_tls_ctx_fn get, void* arg);
/* Serve a connected socket (fuzzing, tests); 0: full, fd not taken. */
int doh_pool_adopt(struct doh_pool* p, int fd, SSL_CTX* tls,
	const struct sockaddr_storage* addr, socklen_t addrlen);
/* A reload: endpoint, streams, nodelay and timeout for new work. */
int doh_pool_apply(struct doh_pool* p, const struct doh_settings* s);
void doh_pool_deferred_reply(const struct doh_handle* h,
	const uint8_t* reply, size_t len);
int doh_pool_num_open(const struct doh_pool* p);
/* The request's connection: 0 cleartext, 1 TLS, 2 a resumed TLS
 * session. */
int doh_handle_tls(const struct doh_handle* h);
/* The stream's socket (for its local address). */
int doh_handle_fd(const struct doh_handle* h);

/* The global memory limits (all workers together; 0: none) and what
 * is in use now: mem.http.query_buffer, mem.http.response_buffer. */
void doh_set_mem_limits(size_t query_max, size_t response_max);
size_t doh_mem_query_buffer(void);
size_t doh_mem_response_buffer(void);

/* Built with libnghttp2? */
int doh_available(void);

#endif
