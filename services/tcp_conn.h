/* SPDX-License-Identifier: BSD-3-Clause */
/* services/tcp_conn.h - DNS over TCP for one worker (RFC 7766):
 * 2-byte length framing, several queries per connection answered as they
 * complete, partial reads and writes, an idle timeout and a bounded
 * number of connections and bytes per connection.
 *
 * Memory per connection is fixed (one input message, two output
 * messages; DNS over TLS takes them only while it has something read
 * or to write, services/stream_conn.h lazy_buffers): a client that
 * never reads its answers stops being read
 * from, and one that trickles bytes or stalls is closed at the idle
 * timeout, which only a whole query or written bytes restart. */
#ifndef SERVICES_TCP_CONN_H
#define SERVICES_TCP_CONN_H
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include "services/stream_conn.h"

struct event_base;
struct event;

struct tcp_pool;

/* Names one connection for a reply that comes later; stale (and then
 * ignored) once the connection closed, even if its slot was reused. */
struct tcp_handle {
	struct tcp_pool* pool;
	int slot;
	uint32_t gen;
	/* during the answer call only: on a proxy-protocol-port, the
	 * proxy's own address (the answer's addr is the client the PROXYv2
	 * header names); NULL: not proxied */
	const struct sockaddr_storage* peer;
	socklen_t peerlen;
};

/* Replies a connection may wait for at once; then it is not read. */
#define TCP_MAX_PENDING 32

/* Answers one query (services/stream_conn.h's struct stream_answer);
 * after STREAM_ANSWER_DEFERRED h must get exactly one deferred reply. */
typedef struct stream_answer (*tcp_answer_fn)(void* arg, const uint8_t* pkt,
	size_t len, const struct sockaddr_storage* addr, socklen_t addrlen,
	uint8_t* out, size_t outcap, const struct tcp_handle* h);

/* A pool of max_conns connection slots for one event base. */
struct tcp_pool* tcp_pool_create(struct event_base* base, int max_conns,
	int idle_timeout_ms, tcp_answer_fn answer, void* arg);
/* The same for DNS over TLS (RFC 7858): its connections' TLS handshake
 * must end within handshake_ms, then idle_timeout_ms applies. Listeners
 * are added with tcp_pool_add_tls_listener. */
struct tcp_pool* tcp_pool_create_tls(struct event_base* base,
	int max_conns, int idle_timeout_ms, int handshake_ms,
	tcp_answer_fn answer, void* arg);
typedef struct ssl_ctx_st SSL_CTX;
/* A TLS listening socket; get(arg) gives the context at each accept (a
 * new reference, see stream_tls_ctx_fn in services/stream_conn.h). */
int tcp_pool_add_tls_listener(struct tcp_pool* pool, int fd,
	SSL_CTX* (*get)(void* arg), void* arg);
/* Is h's connection a resumed TLS session (num.query.tls.resume)? */
int tcp_handle_tls_resumed(const struct tcp_handle* h);
/* The connection's socket (for its local address), and whether it is
 * DNS over TLS. */
int tcp_handle_fd(const struct tcp_handle* h, int* is_tls);
/* Closes every connection and frees the pool. */
void tcp_pool_delete(struct tcp_pool* pool);
/* Listen for connections on fd (a listening socket) in this pool's
 * event base. Returns 0 on failure. */
int tcp_pool_add_listener(struct tcp_pool* pool, int fd);
/* The listener fd (added above) is a proxy-protocol-port: each of its
 * connections starts with a PROXYv2 header (inside TLS on a TLS pool,
 * as Unbound reads it). 0 when fd is not a listener of the pool. */
int tcp_pool_set_listener_proxy(struct tcp_pool* pool, int fd);
/* Serve the connected, non-blocking socket fd (from addr) in a free
 * slot, as accepting it would; the pool closes fd when the connection
 * ends. Returns 0 (fd not taken) when the pool is full. The TCP fuzz
 * harness uses it, with one end of a socketpair. */
int tcp_pool_adopt(struct tcp_pool* pool, int fd,
	const struct sockaddr_storage* addr, socklen_t addrlen);
/* Change the idle timeout (on reload); applies to new activity. */
void tcp_pool_set_idle_timeout(struct tcp_pool* pool, int idle_timeout_ms);
/* tcp-connection-limit for connections accepted from now on (borrowed;
 * NULL: none); see stream_pool_set_conn_limit. */
struct conn_limit;
void tcp_pool_set_conn_limit(struct tcp_pool* pool, struct conn_limit* cl);
/* The reply to a query answered with STREAM_ANSWER_DEFERRED (len 0: none). If
 * the connection has closed it is dropped; if the client has not read
 * enough to make room for it, the connection is closed. */
void tcp_pool_deferred_reply(const struct tcp_handle* h,
	const uint8_t* reply, size_t len);
/* Called when a connection that still waits for deferred replies
 * closes, before its handle goes stale, so their work can be dropped. */
typedef void (*tcp_close_fn)(void* arg, const struct tcp_handle* h);
void tcp_pool_set_close_hook(struct tcp_pool* pool, tcp_close_fn fn);
/* Connections open now (another thread may ask: a value a moment old). */
int tcp_pool_num_open(const struct tcp_pool* pool);

#endif
