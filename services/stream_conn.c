/* SPDX-License-Identifier: BSD-3-Clause */
/* services/stream_conn.c - accepted stream connections: slots, accept
 * and eviction, non-blocking reads and writes (plain or TLS), timers. */
#include "config.h"
#include "services/stream_conn.h"
#include "services/conn_limit.h"
#include "services/stream_tls.h"
#include "services/stream_tls_bio.h"
#include "util/log.h"
#include "util/net_help.h"
#include "util/sys_nocancel.h"
#include <event2/event.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/sockios.h>

struct stream_listener {
	struct stream_pool* pool;
	int fd;
	SSL_CTX* tls;
	stream_tls_ctx_fn get_tls;   /* or this, at each accept */
	void* get_arg;
	struct event* ev;
	int proxy;                   /* a proxy-protocol-port */
};

/* Free buffers of each kind a pool keeps (lazy_buffers); more are freed.
 * A worker serves one connection at a time, so only connections with
 * input or output pending hold one. */
#define STREAM_STASH 8

struct stream_pool {
	struct event_base* base;
	struct stream_pool_cfg cfg;
	const struct stream_proto* proto;
	void* arg;
	struct stream_conn* conns;
	int free_head;           /* first free slot, -1: none */
	int num_open;
	struct lru_list by_age;  /* open connections, oldest at the tail */
	struct timeval tmo;
	struct stream_listener** listeners;
	int num_listeners;
	int accepting;
	struct event* slow_ev;   /* out of fds: accepting again after it */
	/* lazy_buffers: buffers no connection holds now, kept for the
	 * next one that needs them (no malloc per query on a busy path) */
	uint8_t* in_stash[STREAM_STASH];
	uint8_t* out_stash[STREAM_STASH];
	int num_in_stash, num_out_stash;
	struct stream_bio_cache* bio_cache;  /* cfg.tls_batch: buffers */
	struct conn_limit* limit;  /* tcp-connection-limit, or NULL */
};

/* How long accepting pauses when accept() runs out of descriptors or
 * memory: the listener stays readable, so retrying at once would spin. */
#define STREAM_SLOW_ACCEPT_MS 500

static void read_cb(evutil_socket_t fd, short ev, void* arg);
static void write_cb(evutil_socket_t fd, short ev, void* arg);
static void timer_cb(evutil_socket_t fd, short ev, void* arg);
static void conn_close(struct stream_conn* c, enum stream_close_why why);


/* -- stream-wait-size ---------------------------------------------------- */

static atomic_size_t wait_bytes;
static atomic_size_t wait_max = 4 * 1024 * 1024;   /* Unbound's default */

void stream_wait_set_max(size_t max)
{
	atomic_store(&wait_max, max);
}

size_t stream_wait_bytes(void)
{
	return atomic_load_explicit(&wait_bytes, memory_order_relaxed);
}

/* The connection's output waits for the client now (a write blocked),
 * now bytes of it: counted. 0 when that takes the total over
 * stream-wait-size: the caller closes the connection. */
static int wait_count(struct stream_conn* c, size_t now)
{
	size_t more, lim;
	if(now <= c->wait_counted) {
		atomic_fetch_sub(&wait_bytes, c->wait_counted - now);
		c->wait_counted = now;
		return 1;
	}
	more = now - c->wait_counted;
	lim = atomic_load_explicit(&wait_max, memory_order_relaxed);
	if(atomic_fetch_add(&wait_bytes, more) + more > lim) {
		atomic_fetch_sub(&wait_bytes, more);
		return 0;
	}
	c->wait_counted = now;
	return 1;
}

/* Its output was written, or it closes: nothing of it waits. */
static void wait_clear(struct stream_conn* c)
{
	if(c->wait_counted) {
		atomic_fetch_sub(&wait_bytes, c->wait_counted);
		c->wait_counted = 0;
	}
}

/* Bytes written to fd that the peer has not taken yet, or -1. */
static int unsent(int fd)
{
	int q;
	return ioctl(fd, SIOCOUTQ, &q) == 0 ? q : -1;
}

static ssize_t io_read(struct stream_conn* c, void* buf, size_t len)
{
	ssize_t r;
	if(c->ssl)
		return stream_tls_read(c->ssl, buf, len);
	r = nc_recv(c->fd, buf, len, 0);
	if(r >= 0)
		return r;
	if(errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
		return STREAM_IO_WANT_READ;
	verbose(VERB_ALGO, "%s recv: %s", c->pool->proto->name,
		strerror(errno));
	return STREAM_IO_ERROR;
}

/* A send on a plain socket that failed: try again after EINTR, else
 * what to wait for. */
static ssize_t send_failed(struct stream_conn* c, const void* buf,
	size_t len)
{
	ssize_t r;
	while((r = nc_send(c->fd, buf, len, MSG_NOSIGNAL)) < 0 &&
		errno == EINTR)
		;
	if(r >= 0)
		return r;
	if(errno == EAGAIN || errno == EWOULDBLOCK)
		return STREAM_IO_WANT_WRITE;
	verbose(VERB_ALGO, "%s send: %s", c->pool->proto->name,
		strerror(errno));
	return STREAM_IO_ERROR;
}

/* plain: known to be a plain socket (the compiler drops the TLS test) */
static inline __attribute__((always_inline)) ssize_t io_write(
	struct stream_conn* c, const void* buf, size_t len, int plain)
{
	ssize_t r;
	if(!plain && c->ssl)
		return stream_tls_write(c->ssl, buf, len);
	r = nc_send(c->fd, buf, len, MSG_NOSIGNAL);
	return r >= 0 ? r : send_failed(c, buf, len);
}

/* -- buffers (lazy_buffers pools) ----------------------------------- */

static int get_in(struct stream_conn* c)
{
	struct stream_pool* p = c->pool;
	if(c->in)
		return 1;
	if(p->num_in_stash > 0)
		c->in = p->in_stash[--p->num_in_stash];
	else if(!(c->in = malloc(p->cfg.in_cap + 1)))
		return 0;
	c->in[p->cfg.in_cap] = 0;
	return 1;
}

static int get_out(struct stream_conn* c)
{
	struct stream_pool* p = c->pool;
	if(c->out || !p->cfg.out_cap)
		return 1;
	if(p->num_out_stash > 0)
		c->out = p->out_stash[--p->num_out_stash];
	else if(!(c->out = malloc(p->cfg.out_cap)))
		return 0;
	c->out_cap = p->cfg.out_cap;
	return 1;
}

int stream_conn_buffers(struct stream_conn* c)
{
	return get_in(c) && get_out(c);
}

static void put_buf(uint8_t* b, uint8_t** stash, int* n)
{
	if(!b)
		return;
	if(*n < STREAM_STASH)
		stash[(*n)++] = b;
	else	free(b);
}

/* Give c's buffers back (nothing may be in them): up to STREAM_STASH
 * of each kind stay with the pool for the next connection, the rest is
 * freed, so the memory held follows the connections open, not the most
 * that were ever open (a burst of accepts after a pause otherwise kept
 * 192 KiB for every slot it filled, for good). */
static void put_buffers(struct stream_conn* c)
{
	struct stream_pool* p = c->pool;
	put_buf(c->in, p->in_stash, &p->num_in_stash);
	if(c->out && c->out_cap != p->cfg.out_cap)
		free(c->out);   /* given (stream_conn_give): not ours to keep */
	else	put_buf(c->out, p->out_stash, &p->num_out_stash);
	c->in = c->out = NULL;
	c->out_cap = 0;
}

/* A TLS connection with nothing read and nothing to write holds no
 * buffers, ours or OpenSSL's (plain ones keep theirs: the hot path of
 * DNS over TCP reads into c->in without a check). */
static void idle_release(struct stream_conn* c)
{
	if(!c->pool->cfg.lazy_buffers || !c->ssl ||
		c->state != STREAM_OPEN || c->in_len || c->writing ||
		c->out_end != c->out_start || c->tls_buffered ||
		(c->bio && (stream_bio_rpending(c->bio) ||
		stream_bio_wpending(c->bio))))
		return;
	if(c->in || c->out)
		put_buffers(c);
	stream_tls_idle(c->ssl);
}

void stream_conn_release_idle(struct stream_conn* c)
{
	if(c->state != STREAM_FREE)
		idle_release(c);
}

/* TLS input that SSL_read can use without waiting for the socket. */
static int tls_more(const struct stream_conn* c)
{
	return stream_tls_buffered(c->ssl) || (c->bio &&
		stream_bio_rpending(c->bio) > 0);
}

/* Records collected by the batching BIO and not sent yet. */
static inline size_t tls_unsent(const struct stream_conn* c)
{
	return c->bio ? stream_bio_wpending(c->bio) : 0;
}

/* Before a close_notify: what is collected goes first, and the alert
 * is written through. */
static void tls_uncork(struct stream_conn* c)
{
	if(c->bio) {
		(void)stream_bio_push(c->bio);
		stream_bio_cork(c->bio, 0);
	}
}

/* -- timers ------------------------------------------------------------ */

/* Progress restarts the timeout lazily: the timer stays where it is and
 * only the time of the progress is noted (once per wake-up, here); when
 * the timer fires it checks that time and re-arms for the rest. Adding
 * the timer again for every query cost more than answering it. */
static void stamp(struct stream_conn* c)
{
	if(c->touched) {
		clock_gettime(CLOCK_MONOTONIC, &c->last_active);
		c->touched = 0;
	}
}

static void restart_timer(struct stream_conn* c)
{
	clock_gettime(CLOCK_MONOTONIC, &c->last_active);
	c->touched = 0;
	(void)evtimer_add(&c->ev_timer, &c->tmo);
}

/* Time left until the timeout, counted from the last progress; 0 when
 * it has passed. */
static int time_left(const struct stream_conn* c, struct timeval* rest)
{
	struct timespec now;
	int64_t used_us, tmo_us;
	clock_gettime(CLOCK_MONOTONIC, &now);
	used_us = (int64_t)(now.tv_sec - c->last_active.tv_sec) * 1000000 +
		(now.tv_nsec - c->last_active.tv_nsec) / 1000;
	tmo_us = (int64_t)c->tmo.tv_sec * 1000000 + c->tmo.tv_usec;
	if(used_us >= tmo_us)
		return 0;
	if(used_us < 0)
		used_us = 0;  /* cannot happen with a monotonic clock */
	rest->tv_sec = (time_t)((tmo_us - used_us) / 1000000);
	rest->tv_usec = (suseconds_t)((tmo_us - used_us) % 1000000);
	return 1;
}

static void ms_to_tv(int ms, struct timeval* tv)
{
	if(ms < 1)
		ms = 1;
	tv->tv_sec = ms / 1000;
	tv->tv_usec = (ms % 1000) * 1000;
}

static void timer_cb(evutil_socket_t fd, short ev, void* arg)
{
	struct stream_conn* c = arg;
	struct stream_pool* p = c->pool;
	struct timeval rest;
	(void)fd;
	(void)ev;
	stamp(c);
	if(time_left(c, &rest)) {
		/* there was progress since the timer was set */
		(void)evtimer_add(&c->ev_timer, &rest);
		return;
	}
	if(c->state == STREAM_DRAIN) {
		conn_close(c, STREAM_CLOSE_TIMEOUT);
		return;
	}
	if(c->writing && p->cfg.outq_progress && c->outq >= 0) {
		/* the socket is full, but the client may be reading it
		 * slowly (the kernel holds up to megabytes): that is
		 * progress too; one that never reads is closed */
		int q = unsent(c->fd);
		if(q >= 0 && q < c->outq) {
			c->outq = q;
			restart_timer(c);
			return;
		}
	}
	if(c->state == STREAM_OPEN && p->proto->timeout &&
		p->proto->timeout(p->arg, c)) {
		restart_timer(c);
		return;
	}
	conn_close(c, STREAM_CLOSE_TIMEOUT);
}

void stream_conn_set_timeout(struct stream_conn* c, int ms)
{
	ms_to_tv(ms, &c->tmo);
	c->tmo_default = 0;
	restart_timer(c);
}

void stream_pool_set_timeout(struct stream_pool* p, int ms)
{
	int i;
	ms_to_tv(ms, &p->tmo);
	/* open connections use it from their next progress on */
	for(i = 0; i < p->cfg.max_conns; i++)
		if(p->conns[i].state != STREAM_FREE && p->conns[i].tmo_default)
			p->conns[i].tmo = p->tmo;
}

/* -- events ------------------------------------------------------------ */

static int reading(const struct stream_conn* c)
{
	if(c->state == STREAM_DRAIN)
		return 1;
	return c->state == STREAM_OPEN && !c->eof && !c->paused &&
		c->in_len < c->pool->cfg.in_cap;
}

static inline void set_event(struct event* ev, short* on, short want)
{
	if(*on == want)
		return;
	*on = want;
	if(want)
		(void)event_add(ev, NULL);
	else	(void)event_del(ev);
}

/* Add or delete the read and write events to match what each direction
 * waits for now. */
static void update_events_slow(struct stream_conn* c)
{
	short want = 0;
	c->ev_dirty = 0;
	c->fast = !c->ssl && c->state == STREAM_OPEN;
	if(c->state == STREAM_HANDSHAKE)
		want = c->rd_need;
	else {
		if(reading(c))
			want = c->rd_need;
		if(c->writing)
			want |= c->wr_need;
	}
	set_event(&c->ev_read, &c->read_on, want & EV_READ);
	set_event(&c->ev_write, &c->write_on, want & EV_WRITE);
	/* input TLS has decrypted already (a record is up to 16 KiB; the
	 * input buffer may have had less room) shows no event on the
	 * socket */
	if(c->ssl && c->read_on && c->rd_need == EV_READ &&
		c->state != STREAM_HANDSHAKE && (c->tls_buffered ||
		stream_tls_pending(c->ssl)))
		event_active(&c->ev_read, EV_READ, 1);
}

/* The same, when something they depend on changed (ev_dirty); TLS and
 * the states other than open: always. */
static inline void update_events(struct stream_conn* c)
{
	if(c->ev_dirty || !c->fast)
		update_events_slow(c);
}

/* -- reading, writing, closing ----------------------------------------- */

/* After the answer went out: shut our side and drop what the client
 * still sends, or close. Returns 0 when closed. */
static int finish_now(struct stream_conn* c)
{
	if(c->drain_max <= 0 || c->state == STREAM_DRAIN) {
		conn_close(c, STREAM_CLOSE_DONE);
		return 0;
	}
	if(c->ssl) {
		tls_uncork(c);
		stream_tls_shutdown(c->ssl);
	} else	(void)shutdown(c->fd, SHUT_WR);
	c->state = STREAM_DRAIN;
	c->ev_dirty = 1;
	c->busy = 0;
	c->drained = 0;
	c->rd_need = EV_READ;
	stream_conn_set_timeout(c, c->drain_ms);
	update_events(c);
	return 1;
}

/* stream_conn_flush, inline where the hot path writes its answers
 * (plain: the connection is known to be plain). */
/* A write that could not finish (r < 0): close on error, else wait for
 * what the transport needs. Returns 0 when closed. */
static int flush_blocked(struct stream_conn* c, ssize_t r)
{
	struct stream_pool* p = c->pool;
	if(r == STREAM_IO_ERROR) {
		conn_close(c, STREAM_CLOSE_ERROR);
		return 0;
	}
	if(p->cfg.count_wait && !wait_count(c, c->out_end - c->out_start +
		tls_unsent(c))) {
		/* compat: unbound-1.17: its log line; the connection is
		 * dropped, as Unbound does */
		verbose(VERB_ALGO, "drop stream reply, no space left, in "
			"stream-wait-size");
		conn_close(c, STREAM_CLOSE_ERROR);
		return 0;
	}
	c->wr_need = r == STREAM_IO_WANT_READ ? EV_READ : EV_WRITE;
	c->writing = 1;
	c->ev_dirty = 1;
	if(p->cfg.outq_progress)
		c->outq = unsent(c->fd);
	update_events(c);
	stamp(c);
	return 1;
}

/* Seal the queued output into TLS records (collected by the batching
 * BIO): 0 when all is, else what SSL_write waits for. */
static ssize_t seal_out(struct stream_conn* c)
{
	while(c->out_start < c->out_end) {
		ssize_t r = stream_tls_write(c->ssl, c->out + c->out_start,
			c->out_end - c->out_start);
		if(r < 0)
			return r;
		c->out_start += (size_t)r;
		c->touched |= c->pool->cfg.write_touches;
	}
	return 0;
}

static inline __attribute__((always_inline)) int flush_inline(
	struct stream_conn* c, int plain)
{
	struct stream_pool* p = c->pool;
	if(!plain && c->bio) {
		/* the records, then one send for all of them */
		ssize_t r = seal_out(c);
		if(r == 0)
			r = stream_bio_push(c->bio);
		if(r < 0)
			return flush_blocked(c, r);
	}
	while(c->out_start < c->out_end) {
		ssize_t r = io_write(c, c->out + c->out_start,
			c->out_end - c->out_start, plain);
		if(r < 0)
			return flush_blocked(c, r);
		c->out_start += (size_t)r;
		c->touched |= p->cfg.write_touches;
	}
	/* a buffer given by the protocol is freed at close, or when the
	 * next one is given */
	c->out_start = c->out_end = 0;
	if((c->finish | c->ev_dirty | c->writing) || !c->fast) {
		c->writing = 0;
		wait_clear(c);   /* only a blocked write counted any */
		if(c->finish)
			return finish_now(c);
		update_events_slow(c);
	}
	stamp(c);
	return 1;
}

int stream_conn_flush(struct stream_conn* c)
{
	return flush_inline(c, 0);
}

int stream_conn_seal(struct stream_conn* c)
{
	ssize_t r;
	if(!c->bio || c->writing || c->state != STREAM_OPEN)
		return 1;  /* the next flush writes it */
	if((r = seal_out(c)) == STREAM_IO_ERROR) {
		conn_close(c, STREAM_CLOSE_ERROR);
		return 0;
	}
	if(r == 0)
		c->out_start = c->out_end = 0;
	return 1;
}

/* After the protocol's callback: write what it queued, or else bring
 * the events up to date. */
static inline __attribute__((always_inline)) void after_callback(
	struct stream_conn* c, int plain)
{
	if(c->out_end > c->out_start || c->finish || (!plain &&
		tls_unsent(c) > 0)) {
		(void)flush_inline(c, plain);
		return;
	}
	update_events(c);
	stamp(c);
}

/* Read and drop what a client sends after its answer. */
static void drain_read(struct stream_conn* c)
{
	ssize_t r;
	if(!get_in(c)) {
		conn_close(c, STREAM_CLOSE_ERROR);
		return;
	}
	r = io_read(c, c->in, c->pool->cfg.in_cap);
	if(r == STREAM_IO_WANT_READ)
		return;
	if(r <= 0) {
		conn_close(c, r == 0 ? STREAM_CLOSE_EOF : STREAM_CLOSE_ERROR);
		return;
	}
	c->drained += (size_t)r;
	if(c->drained > (size_t)c->drain_max)
		conn_close(c, STREAM_CLOSE_DONE);
}

static void do_read(struct stream_conn* c)
{
	struct stream_pool* p = c->pool;
	uint32_t gen = c->gen;
	size_t before = c->in_len;
	ssize_t r;
	if(c->state == STREAM_DRAIN) {
		drain_read(c);
		return;
	}
	if(!stream_conn_buffers(c)) {
		log_err("%s: out of memory for a buffer", p->proto->name);
		conn_close(c, STREAM_CLOSE_ERROR);
		return;
	}
	c->in_records = 0;
	for(;;) {
		r = io_read(c, c->in + c->in_len, p->cfg.in_cap - c->in_len);
		if(r <= 0)
			break;
		c->in_len += (size_t)r;
		c->in_records++;
		/* plain: one read a wake-up; TLS: every record OpenSSL has
		 * read ahead (many pipelined queries from one read(2)),
		 * until it wants the socket again */
		if(!c->ssl)
			break;
		if(c->in_len >= p->cfg.in_cap) {
			c->tls_buffered = tls_more(c);
			break;
		}
		if(!tls_more(c))
			break;
	}
	if(c->ssl && r < 0)
		c->tls_buffered = 0;
	if(r == STREAM_IO_ERROR) {
		conn_close(c, STREAM_CLOSE_ERROR);
		return;
	}
	c->ev_dirty = 1;
	if(r == 0)
		c->eof = 1;
	else if(r < 0) {
		c->rd_need = r == STREAM_IO_WANT_WRITE ? EV_WRITE : EV_READ;
		if(c->in_len == before) {
			/* nothing for the protocol; what OpenSSL wrote (a
			 * session ticket, a key update) goes now */
			if(tls_unsent(c) > 0 && !flush_inline(c, 0))
				return;
			update_events(c);
			idle_release(c);
			return;
		}
	}
	p->proto->readable(p->arg, c);
	if(c->gen != gen)
		return;
	after_callback(c, 0);
	if(c->gen == gen)
		idle_release(c);
}

static void do_write(struct stream_conn* c)
{
	struct stream_pool* p = c->pool;
	uint32_t gen = c->gen;
	if(!stream_conn_flush(c))
		return;
	if(!p->proto->writable) {
		idle_release(c);
		return;
	}
	p->proto->writable(p->arg, c);
	if(c->gen != gen)
		return;
	after_callback(c, 0);
	if(c->gen == gen)
		idle_release(c);
}

/* The batching BIO collects the handshake's records: send them before
 * waiting for the client. r: what the handshake waits for; returns what
 * to wait for now (the socket's room first, when it is full). */
static int handshake_push(struct stream_conn* c, int r)
{
	int w;
	if(!c->bio || tls_unsent(c) == 0)
		return r;
	w = stream_bio_push(c->bio);
	return w == 0 ? r : w;
}

static void do_handshake(struct stream_conn* c)
{
	int r = handshake_push(c, 0);
	if(r == 0)
		r = stream_tls_handshake(c->ssl, c->pool->proto->name);
	if(r == STREAM_IO_ERROR) {
		if(c->bio)  /* the alert OpenSSL wrote, if it can go */
			(void)stream_bio_push(c->bio);
		conn_close(c, STREAM_CLOSE_ERROR);
		return;
	}
	if(r < 0 && (r = handshake_push(c, r)) == STREAM_IO_ERROR) {
		conn_close(c, STREAM_CLOSE_ERROR);
		return;
	}
	if(r < 0) {
		c->rd_need = r == STREAM_IO_WANT_WRITE ? EV_WRITE : EV_READ;
		update_events(c);
		return;
	}
	/* a session ticket stays collected: it goes with the first
	 * answer when that is read in this wake-up (do_read sends it
	 * either way) */
	c->state = STREAM_OPEN;
	c->rd_need = EV_READ;
	c->ev_dirty = 1;
	if(c->pool->cfg.handshake_ms > 0 && c->tmo_default == 0) {
		/* the handshake's bound is over: the pool's idle one */
		c->tmo = c->pool->tmo;
		c->tmo_default = 1;
		restart_timer(c);
	}
	/* the client's first bytes may have come with the handshake */
	do_read(c);
}

/* The socket is readable: that is for the reading side, for a TLS
 * handshake, or for a TLS write that waits for input. */
static void read_cb_slow(struct stream_conn* c)
{
	uint32_t gen = c->gen;
	if(c->state == STREAM_HANDSHAKE) {
		do_handshake(c);
		return;
	}
	if(c->rd_need == EV_READ && reading(c)) {
		do_read(c);
		if(c->gen != gen)
			return;
	}
	if(c->writing && c->wr_need == EV_READ)
		do_write(c);
}

/* Plain and open, the hot path of DNS over TCP: one read, the
 * protocol's callback, one write. */
static void read_cb(evutil_socket_t fd, short ev, void* arg)
{
	struct stream_conn* c = arg;
	struct stream_pool* p = c->pool;
	ssize_t r;
	(void)ev;
	if(!c->fast) {
		read_cb_slow(c);
		return;
	}
	/* the read event is on only while the buffer has room (a full one
	 * sets ev_dirty, and the events are brought up to date before the
	 * loop runs again) */
	r = nc_recv(fd, c->in + c->in_len, c->in_cap - c->in_len, 0);
	if(r > 0) {
		c->in_len += (size_t)r;
		if(c->in_len >= c->in_cap)
			c->ev_dirty = 1;
	} else if(r == 0) {
		c->ev_dirty = 1;
		if(c->in_len >= c->in_cap) {
			/* a read of no room, not the end: stop reading */
			update_events(c);
			return;
		}
		c->eof = 1;
	} else if(errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
		return;
	else {
		verbose(VERB_ALGO, "%s recv: %s", p->proto->name,
			strerror(errno));
		conn_close(c, STREAM_CLOSE_ERROR);
		return;
	}
	p->proto->readable(p->arg, c);
	/* closed by the callback (a slot is only reused by an accept) */
	if(c->state == STREAM_FREE)
		return;
	/* the answers, and the events when something changed */
	(void)flush_inline(c, 1);
}

static void write_cb(evutil_socket_t fd, short ev, void* arg)
{
	struct stream_conn* c = arg;
	uint32_t gen = c->gen;
	(void)fd;
	(void)ev;
	if(c->state == STREAM_HANDSHAKE) {
		do_handshake(c);
		return;
	}
	if(c->writing && c->wr_need == EV_WRITE) {
		do_write(c);
		if(c->gen != gen)
			return;
	}
	if(c->rd_need == EV_WRITE && reading(c))
		do_read(c);
}

static void set_accepting(struct stream_pool* p, int on)
{
	int i;
	if(p->accepting == on)
		return;
	p->accepting = on;
	for(i = 0; i < p->num_listeners; i++) {
		if(on)
			(void)event_add(p->listeners[i]->ev, NULL);
		else	(void)event_del(p->listeners[i]->ev);
	}
}

static void conn_close(struct stream_conn* c, enum stream_close_why why)
{
	struct stream_pool* p = c->pool;
	if(c->state == STREAM_FREE)
		return;
	if(p->proto->closed)
		p->proto->closed(p->arg, c, why);
	wait_clear(c);
	if(c->read_on)
		(void)event_del(&c->ev_read);
	if(c->write_on)
		(void)event_del(&c->ev_write);
	(void)event_del(&c->ev_timer);
	c->read_on = c->write_on = 0;
	if(c->ssl) {
		/* the answer is out: tell the client so (TLS's own end) */
		if(why == STREAM_CLOSE_DONE && c->finish &&
			c->state == STREAM_OPEN) {
			tls_uncork(c);
			stream_tls_shutdown(c->ssl);
		}
		stream_tls_delete(c->ssl);  /* frees c->bio */
		c->ssl = NULL;
		c->bio = NULL;
	}
	close(c->fd);
	c->fd = -1;
	if(c->limit_held) {
		conn_limit_give(c->limit_held);
		c->limit_held = NULL;
	}
	if(p->cfg.out_cap == 0) {
		free(c->out);
		c->out = NULL;
		c->out_cap = 0;
	} else
		put_buffers(c);
	c->gen++;
	c->state = STREAM_FREE;
	c->fast = 0;
	lru_list_remove(&p->by_age, &c->by_age);
	c->next_free = p->free_head;
	p->free_head = c->slot;
	/* also read by the main thread for the statistics: one store */
	__atomic_store_n(&p->num_open, p->num_open - 1, __ATOMIC_RELAXED);
	set_accepting(p, 1);
}

void stream_conn_close(struct stream_conn* c)
{
	conn_close(c, STREAM_CLOSE_DONE);
}

void stream_conn_finish(struct stream_conn* c, int drain_max, int drain_ms)
{
	c->finish = 1;
	c->drain_max = drain_max;
	c->drain_ms = drain_ms;
	c->paused = 1;
	c->ev_dirty = 1;
}

size_t stream_out_compact(struct stream_conn* c)
{
	if(c->out_start > 0) {
		memmove(c->out, c->out + c->out_start,
			c->out_end - c->out_start);
		c->out_end -= c->out_start;
		c->out_start = 0;
	}
	return c->out_cap - c->out_end;
}

void stream_conn_give(struct stream_conn* c, void* buf, size_t len)
{
	free(c->out);
	c->out = buf;
	c->out_start = 0;
	c->out_end = c->out_cap = len;
}

/* -- accepting --------------------------------------------------------- */

/* The oldest connection that is not busy, or NULL. */
static struct stream_conn* oldest_idle(struct stream_pool* p)
{
	struct lru_link* l;
	for(l = p->by_age.tail; l; l = l->prev) {
		struct stream_conn* c = LRU_ITEM(l, struct stream_conn,
			by_age);
		if(c->state == STREAM_DRAIN || (!c->busy && !c->finish))
			return c;
	}
	return NULL;
}

/* Is there a slot for one more connection (at the limit: an idle one
 * to evict)? */
static int has_room(struct stream_pool* p)
{
	return p->num_open < p->cfg.max_conns || (p->cfg.evict_idle &&
		oldest_idle(p));
}

/* At the limit, the oldest idle connection makes room for a new one:
 * clients that connect and say nothing cannot lock the others out. */
static void make_room(struct stream_pool* p)
{
	struct stream_conn* v;
	if(p->num_open < p->cfg.max_conns || !(v = oldest_idle(p)))
		return;
	if(v->state != STREAM_DRAIN)
		verbose(VERB_OPS, "%s: %d connections, closing the oldest "
			"idle one", p->proto->name, p->num_open);
	conn_close(v, STREAM_CLOSE_EVICTED);
}

/* Set up a free slot for a connected socket (it closes fd and gives
 * held back on error). */
static void conn_open(struct stream_pool* p, SSL_CTX* tls, int fd,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	struct conn_limit_entry* held, int proxy)
{
	struct stream_conn* c = &p->conns[p->free_head];
	/* lazy_buffers: a TLS connection takes them once it reads */
	if((!tls || !p->cfg.lazy_buffers) && !stream_conn_buffers(c)) {
		log_err("%s accept: out of memory", p->proto->name);
		close(fd);
		if(held)
			conn_limit_give(held);
		return;
	}
	c->limit_held = held;
	p->free_head = c->next_free;
	c->fd = fd;
	memcpy(&c->addr, addr, addrlen);
	c->addrlen = addrlen;
	c->proxy_wait = proxy;
	c->peerlen = 0;
	c->in_len = c->out_start = c->out_end = 0;
	c->eof = c->paused = c->writing = c->finish = c->busy = 0;
	c->user_count = 0;
	c->drain_max = c->drain_ms = 0;
	c->drained = 0;
	c->outq = -1;
	c->tls_buffered = 0;
	c->rd_need = EV_READ;
	c->wr_need = EV_WRITE;
	c->read_on = c->write_on = 0;
	c->state = tls ? STREAM_HANDSHAKE : STREAM_OPEN;
	c->in_cap = p->cfg.in_cap;
	c->ev_dirty = 1;
	c->fast = 0;
	event_assign(&c->ev_read, p->base, fd, EV_READ | EV_PERSIST, read_cb,
		c);
	event_assign(&c->ev_write, p->base, fd, EV_WRITE | EV_PERSIST,
		write_cb, c);
	evtimer_assign(&c->ev_timer, p->base, timer_cb, c);
	lru_list_push_front(&p->by_age, &c->by_age);
	__atomic_store_n(&p->num_open, p->num_open + 1, __ATOMIC_RELAXED);
	c->tmo = p->tmo;
	c->tmo_default = 1;
	if(tls && p->cfg.handshake_ms > 0) {
		ms_to_tv(p->cfg.handshake_ms, &c->tmo);
		c->tmo_default = 0;
	}
	restart_timer(c);
	if(p->proto->opened)
		p->proto->opened(p->arg, c);
	if(c->state != STREAM_HANDSHAKE) {
		update_events(c);
		return;
	}
	if(!(c->ssl = stream_tls_create(tls, fd, p->proto->name)) ||
		(p->bio_cache && !(c->bio = stream_bio_attach(c->ssl, fd,
		p->bio_cache, &c->bio_state)))) {
		conn_close(c, STREAM_CLOSE_ERROR);
		return;
	}
	do_handshake(c);
}

static void slow_accept_end(evutil_socket_t fd, short ev, void* arg)
{
	(void)fd;
	(void)ev;
	set_accepting(arg, 1);
}

/* accept() failed for want of a descriptor or memory: stop accepting for
 * a while (the waiting connections stay in the kernel's backlog). */
static void slow_accept(struct stream_pool* p, int err)
{
	struct timeval tv;
	if(!p->slow_ev && !(p->slow_ev = evtimer_new(p->base,
		slow_accept_end, p)))
		return;
	log_err("%s accept: %s; not accepting for %d ms", p->proto->name,
		strerror(err), STREAM_SLOW_ACCEPT_MS);
	set_accepting(p, 0);
	tv.tv_sec = 0;
	tv.tv_usec = STREAM_SLOW_ACCEPT_MS * 1000;
	(void)evtimer_add(p->slow_ev, &tv);
}

/* compat: unbound-1.17: a connection over its netblock's
 * tcp-connection-limit is closed at once, logged at verbosity 3. */
static void over_limit(int fd, const struct sockaddr_storage* addr,
	socklen_t addrlen)
{
	close(fd);
	if(verbosity >= VERB_QUERY) {
		char a[64];
		addr_to_str(addr, addrlen, a, sizeof(a));
		log_err("accept rejected: connection limit exceeded for %s "
			"port %d (len %d)", a, addr_port(addr), (int)addrlen);
	}
}

static void accept_cb(evutil_socket_t lfd, short ev, void* arg)
{
	struct stream_listener* l = arg;
	struct stream_pool* p = l->pool;
	(void)ev;
	for(;;) {
		struct sockaddr_storage addr;
		socklen_t addrlen = sizeof(addr);
		struct conn_limit_entry* held;
		int fd;
		if(!has_room(p)) {
			/* full: leave further connections in the kernel's
			 * backlog until one closes */
			set_accepting(p, 0);
			return;
		}
		fd = accept4(lfd, (struct sockaddr*)&addr, &addrlen,
			SOCK_NONBLOCK | SOCK_CLOEXEC);
		if(fd == -1) {
			if(errno == EMFILE || errno == ENFILE ||
				errno == ENOBUFS || errno == ENOMEM) {
				slow_accept(p, errno);
				return;
			}
			if(errno != EAGAIN && errno != EWOULDBLOCK &&
				errno != EINTR && errno != ECONNABORTED)
				log_err("%s accept: %s", p->proto->name,
					strerror(errno));
			return;
		}
		held = NULL;
		if(p->limit && conn_limit_take(p->limit, &addr, addrlen,
			&held) == CONN_LIMIT_OVER) {
			over_limit(fd, &addr, addrlen);
			continue;
		}
		make_room(p);
		if(l->get_tls) {
			SSL_CTX* ctx = l->get_tls(l->get_arg);
			if(!ctx) {
				close(fd);
				if(held)
					conn_limit_give(held);
				continue;
			}
			conn_open(p, ctx, fd, &addr, addrlen, held, l->proxy);
			stream_tls_ctx_release(ctx);
			continue;
		}
		conn_open(p, l->tls, fd, &addr, addrlen, held, l->proxy);
	}
}

int stream_pool_adopt_from(struct stream_pool* p, int fd, SSL_CTX* tls,
	const struct sockaddr_storage* from, socklen_t fromlen)
{
	struct sockaddr_storage addr;
	socklen_t addrlen = sizeof(addr);
	if(!has_room(p) || (from && fromlen > sizeof(addr)))
		return 0;
	memset(&addr, 0, sizeof(addr));
	if(from) {
		memcpy(&addr, from, fromlen);
		addrlen = fromlen;
	} else if(getpeername(fd, (struct sockaddr*)&addr, &addrlen) != 0)
		addrlen = sizeof(sa_family_t);
	make_room(p);
	conn_open(p, tls, fd, &addr, addrlen, NULL, 0);
	return 1;
}

int stream_pool_adopt(struct stream_pool* p, int fd, SSL_CTX* tls)
{
	return stream_pool_adopt_from(p, fd, tls, NULL, 0);
}

/* -- the pool ---------------------------------------------------------- */

struct stream_pool* stream_pool_create(struct event_base* base,
	const struct stream_pool_cfg* cfg, const struct stream_proto* proto,
	void* arg)
{
	struct stream_pool* p = calloc(1, sizeof(*p));
	int i;
	if(!p)
		return NULL;
	p->cfg = *cfg;
	if(p->cfg.max_conns < 1)
		p->cfg.max_conns = 1;
	if(p->cfg.in_cap < 1)
		p->cfg.in_cap = 1;
	p->conns = calloc((size_t)p->cfg.max_conns, sizeof(*p->conns));
	if(!p->conns) {
		free(p);
		return NULL;
	}
	for(i = 0; i < p->cfg.max_conns; i++) {
		p->conns[i].fd = -1;
		p->conns[i].pool = p;
		p->conns[i].slot = i;
		p->conns[i].next_free = i + 1 < p->cfg.max_conns ? i + 1 : -1;
	}
	p->free_head = 0;
	p->base = base;
	p->proto = proto;
	p->arg = arg;
	p->accepting = 1;
	ms_to_tv(cfg->timeout_ms, &p->tmo);
	if(cfg->tls_batch && !(p->bio_cache = stream_bio_cache_create())) {
		free(p->conns);
		free(p);
		return NULL;
	}
	return p;
}

int stream_pool_add_listener(struct stream_pool* p, int fd, SSL_CTX* tls)
{
	struct stream_listener** ls = realloc(p->listeners,
		sizeof(*ls) * (size_t)(p->num_listeners + 1));
	struct stream_listener* l;
	if(!ls)
		return 0;
	p->listeners = ls;
	if(!(l = calloc(1, sizeof(*l))))
		return 0;
	l->pool = p;
	l->fd = fd;
	l->tls = tls;
	l->ev = event_new(p->base, fd, EV_READ | EV_PERSIST, accept_cb, l);
	if(!l->ev || (p->accepting && event_add(l->ev, NULL) != 0)) {
		if(l->ev)
			event_free(l->ev);
		free(l);
		return 0;
	}
	p->listeners[p->num_listeners++] = l;
	return 1;
}

int stream_pool_add_tls_listener(struct stream_pool* p, int fd,
	stream_tls_ctx_fn get, void* arg)
{
	if(!stream_pool_add_listener(p, fd, NULL))
		return 0;
	p->listeners[p->num_listeners - 1]->get_tls = get;
	p->listeners[p->num_listeners - 1]->get_arg = arg;
	return 1;
}

int stream_pool_set_listener_proxy(struct stream_pool* p, int fd)
{
	int i;
	for(i = 0; i < p->num_listeners; i++)
		if(p->listeners[i]->fd == fd) {
			p->listeners[i]->proxy = 1;
			return 1;
		}
	return 0;
}

void stream_pool_remove_listener(struct stream_pool* p, int fd)
{
	int i;
	for(i = 0; i < p->num_listeners; i++) {
		if(p->listeners[i]->fd != fd)
			continue;
		event_free(p->listeners[i]->ev);
		free(p->listeners[i]);
		p->listeners[i] = p->listeners[--p->num_listeners];
		return;
	}
}

void stream_pool_set_conn_limit(struct stream_pool* p, struct conn_limit* cl)
{
	p->limit = cl;
}

int stream_pool_num_open(const struct stream_pool* p)
{
	return __atomic_load_n(&p->num_open, __ATOMIC_RELAXED);
}

size_t stream_pool_buffer_bytes(const struct stream_pool* p)
{
	size_t n = (size_t)p->num_in_stash * (p->cfg.in_cap + 1) +
		(size_t)p->num_out_stash * p->cfg.out_cap;
	int i;
	for(i = 0; i < p->cfg.max_conns; i++) {
		if(p->conns[i].in)
			n += p->cfg.in_cap + 1;
		if(p->conns[i].out)
			n += p->conns[i].out_cap;
	}
	return n;
}

struct stream_conn* stream_pool_conn(struct stream_pool* p, int slot)
{
	return &p->conns[slot];
}

void stream_pool_delete(struct stream_pool* p)
{
	int i;
	if(!p)
		return;
	while(p->by_age.tail)
		conn_close(LRU_ITEM(p->by_age.tail, struct stream_conn, by_age),
			STREAM_CLOSE_SHUTDOWN);
	for(i = 0; i < p->cfg.max_conns; i++) {
		free(p->conns[i].in);
		free(p->conns[i].out);
	}
	for(i = 0; i < p->num_in_stash; i++)
		free(p->in_stash[i]);
	for(i = 0; i < p->num_out_stash; i++)
		free(p->out_stash[i]);
	for(i = 0; i < p->num_listeners; i++) {
		event_free(p->listeners[i]->ev);
		free(p->listeners[i]);
	}
	if(p->slow_ev)
		event_free(p->slow_ev);
	stream_bio_cache_delete(p->bio_cache);
	free(p->listeners);
	free(p->conns);
	free(p);
}
