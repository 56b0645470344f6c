/* SPDX-License-Identifier: BSD-3-Clause */
/* services/stream_conn.h - accepted stream connections (TCP, unix
 * sockets, TLS over either) on one event base, for every protocol that
 * serves clients over a stream: DNS over TCP (services/tcp_conn.c), the
 * remote control (daemon/remote.c), the Prometheus endpoint
 * (daemon/prometheus.c), DNS over TLS (tcp_conn.c on a TLS pool) and DNS
 * over HTTPS (services/doh.c).
 *
 * The layer owns the sockets, the connection slots, the input and
 * output buffers, the events and the timer; it accepts (at most
 * max_conns at once, optionally closing the oldest idle connection for
 * a new one), drives the TLS handshake, reads and writes without
 * blocking (partial I/O, TLS's want-read/want-write mapped onto the
 * event loop) and closes. A protocol supplies callbacks: bytes arrived,
 * output made room, the timer ran out, the connection closes. It parses
 * c->in, consumes what it used, and queues its answers in c->out.
 *
 * Callbacks may close the connection (stream_conn_close) or queue output;
 * the layer writes the queued output when a callback returns. Slots are
 * never freed while the pool lives, so a stream_conn pointer stays valid
 * memory; (slot, gen) names one connection: gen changes at close. */
#ifndef SERVICES_STREAM_CONN_H
#define SERVICES_STREAM_CONN_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <event2/event_struct.h>
#include "services/stream_tls_bio.h"
#include "util/lru_list.h"

struct event_base;
struct stream_pool;
struct conn_limit;
struct conn_limit_entry;
typedef struct ssl_st SSL;
typedef struct ssl_ctx_st SSL_CTX;

/* What a stream protocol's answer function (DNS over TCP, TLS and
 * HTTPS: services/tcp_conn.h, services/doh.h) did with one query. */
enum stream_answer_outcome {
	STREAM_ANSWER_REPLY = 0, /* len bytes in out: send them */
	STREAM_ANSWER_NONE,      /* no reply (dropped on purpose) */
	STREAM_ANSWER_DEFERRED   /* the reply comes later, through the
	                          * protocol's deferred-reply call */
};
/* The outcome and, for STREAM_ANSWER_REPLY, the reply's length. */
struct stream_answer {
	size_t len;
	enum stream_answer_outcome what;
};

enum stream_close_why {
	STREAM_CLOSE_DONE = 0,   /* the protocol closed it, or its answer
	                          * was written (stream_conn_finish) */
	STREAM_CLOSE_EOF,        /* the client closed (drain ended) */
	STREAM_CLOSE_ERROR,      /* I/O or TLS error, out of memory */
	STREAM_CLOSE_TIMEOUT,    /* no progress for the timeout */
	STREAM_CLOSE_EVICTED,    /* an idle one, closed for a new client */
	STREAM_CLOSE_SHUTDOWN    /* the pool is deleted */
};

enum stream_state {
	STREAM_FREE = 0,
	STREAM_HANDSHAKE,        /* TLS handshake in progress */
	STREAM_OPEN,
	STREAM_DRAIN             /* answer sent, write side shut: dropping
	                          * what the client still sends */
};

struct stream_conn {
	/* the protocol reads these, and writes in/out through the calls
	 * below or directly (in[0..in_len), out[out_start..out_end)) */
	uint8_t* in;             /* in_cap bytes and one more for a NUL */
	size_t in_len;           /* change it with stream_in_consume only */
	size_t in_cap;
	uint8_t* out;            /* queued output, not written yet */
	size_t out_start, out_end, out_cap;
	int eof;                 /* the client closed its side */
	int in_records;          /* TLS: records (SSL_reads) that the last
	                          * read added to in */
	int slot;                /* index in the pool, for per-slot state */
	uint32_t gen;            /* changes when the connection closes */
	struct sockaddr_storage addr;
	socklen_t addrlen;
	enum stream_state state;
	/* a proxy-protocol-port's connection: 1 until the protocol has
	 * read the PROXYv2 header (it then sets addr to the client the
	 * header names, and peer to the proxy's own address) */
	int proxy_wait;
	struct sockaddr_storage peer;
	socklen_t peerlen;       /* 0: not proxied */
	int user_count;          /* the protocol's, 0 at accept (DNS over
	                          * TCP: deferred replies to come) */

	/* the layer's own */
	struct stream_pool* pool;
	int fd;
	SSL* ssl;                /* NULL: plain */
	struct stream_bio* bio;  /* ssl's batching BIO (cfg.tls_batch):
	                          * NULL or bio_state */
	struct stream_bio bio_state;
	struct lru_link by_age;  /* open ones, newest at the head */
	int next_free;
	struct event ev_read, ev_write, ev_timer;
	short read_on, write_on; /* which of the events are added */
	int ev_dirty;            /* what they should be may have changed */
	int fast;                /* plain and STREAM_OPEN: the hot path */
	short rd_need, wr_need;  /* the event each direction waits for
	                          * (TLS may need the other one) */
	int paused;              /* the protocol does not want input now */
	int writing;             /* output waits for the socket */
	int finish;              /* close when the output is written */
	int drain_max;           /* after finish: shut, drop this much */
	int drain_ms;
	size_t drained;
	int busy;                /* not idle: never evicted */
	int touched;             /* progress since last_active was set */
	int outq;                /* SIOCOUTQ when the write blocked, -1 */
	int tls_buffered;        /* reading stopped (input full) with whole
	                          * TLS records read ahead, not decrypted */
	struct timeval tmo;
	int tmo_default;         /* tmo follows the pool's */
	struct timespec last_active;
	struct conn_limit_entry* limit_held; /* counted there (accept) */
	size_t wait_counted;     /* count_wait: its bytes in the
	                          * stream-wait count */
};

struct stream_proto {
	const char* name;        /* for the log: "remote control" */
	/* A connection was accepted (before its TLS handshake): set up the
	 * protocol's state for c->slot. NULL: nothing to do. */
	void (*opened)(void* arg, struct stream_conn* c);
	/* Input: c->in_len grew, or c->eof was set (reading has stopped).
	 * Consume what was used with stream_in_consume. */
	void (*readable)(void* arg, struct stream_conn* c);
	/* The socket became writable while output waited for it (and
	 * what could be written was): room for more. NULL: nothing. */
	void (*writable)(void* arg, struct stream_conn* c);
	/* The timeout ran out without progress: 1 to wait another whole
	 * timeout, 0 to close (NULL: close). */
	int (*timeout)(void* arg, struct stream_conn* c);
	/* The connection is about to close (fd still open); once for every
	 * connection that was opened. It must not close c again. NULL:
	 * nothing to do. */
	void (*closed)(void* arg, struct stream_conn* c,
		enum stream_close_why why);
};

struct stream_pool_cfg {
	int max_conns;
	size_t in_cap;           /* input buffer per connection */
	size_t out_cap;          /* >0: an output buffer of this size per
	                          * slot, kept; 0: output only by
	                          * stream_conn_give */
	int timeout_ms;          /* handshake, then idle (no progress) */
	int evict_idle;          /* at max_conns: close the oldest
	                          * connection that is not busy */
	int write_touches;       /* bytes written count as progress */
	int outq_progress;       /* while the answer waits for the client,
	                          * the kernel's send queue shrinking (it
	                          * reads) counts as progress */
	int handshake_ms;        /* >0: the TLS handshake's own bound (then
	                          * timeout_ms, from its end) */
	int lazy_buffers;        /* in and out (out_cap > 0) are taken from
	                          * a small per-pool stash when needed (all
	                          * pools give them back there at close) and
	                          * given back, for TLS, when
	                          * the connection is idle (nothing read,
	                          * nothing to write): an idle TLS
	                          * connection holds no buffers; outside
	                          * the callbacks the protocol calls
	                          * stream_conn_buffers before using them */
	int count_wait;          /* output that waits for a client that
	                          * does not read counts toward
	                          * stream-wait-size (stream_wait_set_max):
	                          * DNS over TCP and TLS */
	int tls_batch;           /* TLS: one recv() for many records, and
	                          * the records of one wake-up (see
	                          * stream_conn_seal) sent with one send()
	                          * (services/stream_tls_bio.h) */
};

/* Where a TLS listener gets its context at each accept (so a reload can
 * swap it): a new reference, or NULL (the connection is closed); the
 * layer drops the reference once the connection holds its own. */
typedef SSL_CTX* (*stream_tls_ctx_fn)(void* arg);

struct stream_pool* stream_pool_create(struct event_base* base,
	const struct stream_pool_cfg* cfg, const struct stream_proto* proto,
	void* arg);
/* Closes every connection (STREAM_CLOSE_SHUTDOWN), frees the pool; the
 * listening sockets are the caller's. NULL is fine. */
void stream_pool_delete(struct stream_pool* p);
/* Accept on a listening socket (non-blocking); tls: a TLS server
 * context for its connections, or NULL. 0 on failure. */
int stream_pool_add_listener(struct stream_pool* p, int fd, SSL_CTX* tls);
/* A TLS listener whose context comes from get(arg) at each accept. */
int stream_pool_add_tls_listener(struct stream_pool* p, int fd,
	stream_tls_ctx_fn get, void* arg);
/* tcp-connection-limit (services/conn_limit.h): connections accepted
 * from now on are counted in cl, or refused at accept when their
 * netblock is full. cl is borrowed (NULL: no limit); connections hold
 * their own reference on the table they were counted in. Adopted
 * sockets (stream_pool_adopt*: tests, fuzzing) are not counted. */
void stream_pool_set_conn_limit(struct stream_pool* p, struct conn_limit* cl);
/* Serve an already connected non-blocking socket as if it had been
 * accepted now (tests use socketpairs). 0 when there is no room: fd is
 * the caller's then; else the pool closes it (also on error). */
int stream_pool_adopt(struct stream_pool* p, int fd, SSL_CTX* tls);
/* The same with the client's address given (a socketpair has none that
 * access control could judge: the TCP fuzz harness picks one). */
int stream_pool_adopt_from(struct stream_pool* p, int fd, SSL_CTX* tls,
	const struct sockaddr_storage* from, socklen_t fromlen);
/* Connections accepted on the listener fd from now on start with
 * proxy_wait set (a proxy-protocol-port). 0 when fd is not one. */
int stream_pool_set_listener_proxy(struct stream_pool* p, int fd);
/* Stop accepting on fd (the caller closes it). */
void stream_pool_remove_listener(struct stream_pool* p, int fd);
/* The timeout for new connections and for open ones that did not set
 * their own. */
void stream_pool_set_timeout(struct stream_pool* p, int ms);
/* Connections open now (another thread may ask: a value a moment old). */
int stream_pool_num_open(const struct stream_pool* p);
/* The slot's connection (open or not). */
struct stream_conn* stream_pool_conn(struct stream_pool* p, int slot);
/* Bytes of connection buffers the pool holds now, the connections' and
 * the stash's (the pool's thread only; walks every slot). */
size_t stream_pool_buffer_bytes(const struct stream_pool* p);

/* compat: unbound-1.17: stream-wait-size: the bytes of DNS replies
 * (count_wait pools, all threads) that wait for a client that does not
 * read them, and their limit. When a write blocks and the connection's
 * waiting output would take the total over max, the connection is
 * closed (Unbound drops the connection whose queued reply does not
 * fit). Unlike Unbound, which counts the replies queued behind the one
 * being written, the count holds every byte the socket has not taken
 * (the one being written too): doc/compat.md. Thread-safe. */
void stream_wait_set_max(size_t max);
/* mem.streamwait: the bytes counted now (a value a moment old). */
size_t stream_wait_bytes(void);

/* Drop the first n bytes of input (n <= in_len). Reading, stopped
 * while the buffer was full, resumes when the callback returns or at
 * the next flush. */
static inline void stream_in_consume(struct stream_conn* c, size_t n)
{
	size_t rest = c->in_len - n;
	if(c->in_len >= c->in_cap)
		c->ev_dirty = 1;  /* was full: read again */
	if(rest)
		memmove(c->in, c->in + n, rest);
	c->in_len = rest;
}
/* Make sure c->in and c->out are there (lazy_buffers pools, outside
 * the readable and writable callbacks, which have them); 0: out of
 * memory (the caller closes). */
int stream_conn_buffers(struct stream_conn* c);
/* After such use: give them back if the connection is idle now. */
void stream_conn_release_idle(struct stream_conn* c);
/* Move queued output to the buffer's start; the room after out_end. */
size_t stream_out_compact(struct stream_conn* c);
/* Queue buf (malloc'ed, len bytes) as the output; the layer frees it
 * at close (or at the next stream_conn_give). Only when nothing is
 * queued, for pools without an output buffer (out_cap 0). */
void stream_conn_give(struct stream_conn* c, void* buf, size_t len);
/* Write what is queued now; 0 when that closed the connection. */
int stream_conn_flush(struct stream_conn* c);
/* With cfg.tls_batch: make what is queued its own TLS record(s) now,
 * sent with the wake-up's others at the next flush (a client may expect
 * one answer per record); else nothing. 0 when that closed the
 * connection. */
int stream_conn_seal(struct stream_conn* c);
/* Stop (on 1) or resume (0) reading; applied when the callback
 * returns or at the next flush. */
static inline void stream_conn_pause_read(struct stream_conn* c, int on)
{
	if(c->paused != on) {
		c->paused = on;
		c->ev_dirty = 1;
	}
}
/* Progress: the idle timeout counts from now (cheap, lazy). */
static inline void stream_conn_touch(struct stream_conn* c)
{
	c->touched = 1;
}
/* This connection's own timeout, counted from now. */
void stream_conn_set_timeout(struct stream_conn* c, int ms);
/* A busy connection is not evicted for a new one. */
static inline void stream_conn_set_busy(struct stream_conn* c, int on)
{
	c->busy = on;
}
/* Close when the queued output is written (TLS: with a close_notify).
 * drain_max > 0: then shut the write side and read and drop up to
 * drain_max bytes for drain_ms, so the close does not reset the
 * connection under an answer the client has not read yet. */
void stream_conn_finish(struct stream_conn* c, int drain_max, int drain_ms);
/* Close now (STREAM_CLOSE_DONE). */
void stream_conn_close(struct stream_conn* c);

#endif
