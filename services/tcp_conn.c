/* services/tcp_conn.c - TCP connections of one worker. */
#include "config.h"
#include "services/tcp_conn.h"
#include "util/log.h"
#include <event2/event.h>
#include <event2/event_struct.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#define TCP_MSG_MAX 65535
#define TCP_IN_CAP (2 + TCP_MSG_MAX)
/* Room for two whole replies: while one is being written the next query
 * can be answered; beyond that the client must read before we go on. */
#define TCP_OUT_CAP (2 * (2 + TCP_MSG_MAX))

struct tcp_conn {
	struct tcp_pool* pool;
	int fd;                  /* -1: slot is free */
	struct event ev_read, ev_write, ev_timer;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	uint8_t* in;             /* partial query data */
	size_t in_len;
	uint8_t* out;            /* replies waiting to be written */
	size_t out_start, out_end;
	int read_paused;         /* out buffer full: not reading */
	int eof;                 /* client closed its side */
	int pending;             /* replies still to come (deferred) */
	int write_armed;         /* ev_write is added */
	int touched;             /* activity since last_active was set */
	struct timespec last_active;  /* last query read or bytes written */
	uint32_t gen;            /* changes when the slot is reused */
};

struct tcp_pool {
	struct event_base* base;
	struct tcp_conn* conns;
	int max_conns;
	int num_open;
	struct timeval idle;
	tcp_answer_fn answer;
	tcp_close_fn on_close;   /* for connections with pending replies */
	void* arg;
	struct event** listeners;
	int num_listeners;
	int accepting;
};

/* recv and send as plain system calls, without the libc wrappers'
 * cancellation-point bookkeeping (workers are never cancelled). */
static ssize_t sys_recv(int fd, void* buf, size_t len)
{
	return (ssize_t)syscall(SYS_recvfrom, fd, buf, len, 0, NULL, NULL);
}

static ssize_t sys_send(int fd, const void* buf, size_t len)
{
	return (ssize_t)syscall(SYS_sendto, fd, buf, len, MSG_NOSIGNAL,
		NULL, 0);
}

static void conn_read_cb(evutil_socket_t fd, short ev, void* arg);
static void conn_write_cb(evutil_socket_t fd, short ev, void* arg);
static void conn_timeout_cb(evutil_socket_t fd, short ev, void* arg);
static void accept_cb(evutil_socket_t fd, short ev, void* arg);

static void set_accepting(struct tcp_pool* p, int on)
{
	int i;
	if(p->accepting == on)
		return;
	p->accepting = on;
	for(i = 0; i < p->num_listeners; i++) {
		if(on)
			event_add(p->listeners[i], NULL);
		else	event_del(p->listeners[i]);
	}
}

static void conn_close(struct tcp_conn* c)
{
	struct tcp_pool* p = c->pool;
	if(c->pending > 0 && p->on_close) {
		struct tcp_handle h;
		h.pool = p;
		h.slot = (int)(c - p->conns);
		h.gen = c->gen;
		p->on_close(p->arg, &h);
	}
	event_del(&c->ev_read);
	event_del(&c->ev_write);
	event_del(&c->ev_timer);
	close(c->fd);
	c->fd = -1;
	c->gen++;
	c->pending = 0;
	p->num_open--;
	set_accepting(p, 1);
}

/* Is a whole query waiting in the input buffer? */
static int has_whole_msg(const struct tcp_conn* c)
{
	return c->in_len >= 2 && c->in_len >= 2 +
		(((size_t)c->in[0] << 8) | c->in[1]);
}

/* Activity restarts the idle timeout. Lazily: the timer stays where it
 * is and only the time of the activity is noted (once per wake-up, in
 * conn_flush); when the timer fires it checks that time and re-arms
 * for the rest (conn_timeout_cb). Re-adding the timer for every query
 * cost more than answering it. */
static void conn_touch(struct tcp_conn* c)
{
	c->touched = 1;
}

static void conn_stamp(struct tcp_conn* c)
{
	if(c->touched) {
		clock_gettime(CLOCK_MONOTONIC, &c->last_active);
		c->touched = 0;
	}
}

static void arm_write(struct tcp_conn* c, int on)
{
	if(c->write_armed == on)
		return;
	c->write_armed = on;
	if(on)
		event_add(&c->ev_write, NULL);
	else	event_del(&c->ev_write);
}

/* Write what is queued; returns 0 when the connection was closed. */
static int conn_flush(struct tcp_conn* c)
{
	while(c->out_start < c->out_end) {
		ssize_t r = sys_send(c->fd, c->out + c->out_start,
			c->out_end - c->out_start);
		if(r < 0) {
			if(errno == EINTR)
				continue;
			if(errno == EAGAIN || errno == EWOULDBLOCK) {
				arm_write(c, 1);
				conn_stamp(c);
				return 1;
			}
			verbose(VERB_ALGO, "tcp send: %s", strerror(errno));
			conn_close(c);
			return 0;
		}
		c->out_start += (size_t)r;
		conn_touch(c);
	}
	c->out_start = c->out_end = 0;
	arm_write(c, 0);
	if(c->eof && !has_whole_msg(c) && c->pending == 0) {
		conn_close(c);
		return 0;
	}
	conn_stamp(c);
	return 1;
}

/* Answer every whole query in the input buffer while the output buffer
 * has room for a reply. */
static void conn_process(struct tcp_conn* c)
{
	struct tcp_handle h;
	size_t pos = 0;
	while(c->in_len - pos >= 2) {
		size_t mlen = ((size_t)c->in[pos] << 8) | c->in[pos + 1];
		size_t n;
		if(c->in_len - pos < 2 + mlen)
			break;
		if(c->pending >= TCP_MAX_PENDING)
			break;  /* resumes when a deferred reply comes */
		if(TCP_OUT_CAP - c->out_end < 2 + TCP_MSG_MAX) {
			/* compact the output buffer, or wait for the client */
			if(c->out_start > 0) {
				memmove(c->out, c->out + c->out_start,
					c->out_end - c->out_start);
				c->out_end -= c->out_start;
				c->out_start = 0;
			}
			if(TCP_OUT_CAP - c->out_end < 2 + TCP_MSG_MAX)
				break;
		}
		h.pool = c->pool;
		h.slot = (int)(c - c->pool->conns);
		h.gen = c->gen;
		n = c->pool->answer(c->pool->arg, c->in + pos + 2, mlen,
			&c->addr, c->addrlen, c->out + c->out_end + 2,
			TCP_MSG_MAX, &h);
		if(n == TCP_DEFERRED) {
			c->pending++;
		} else if(n > 0) {
			c->out[c->out_end] = (uint8_t)(n >> 8);
			c->out[c->out_end + 1] = (uint8_t)n;
			c->out_end += 2 + n;
		}
		pos += 2 + mlen;
		conn_touch(c);
	}
	if(pos > 0) {
		if(c->in_len > pos)
			memmove(c->in, c->in + pos, c->in_len - pos);
		c->in_len -= pos;
	}
	/* pause reading while a whole message waits for output room */
	if(has_whole_msg(c)) {
		if(!c->read_paused) {
			event_del(&c->ev_read);
			c->read_paused = 1;
		}
	} else if(c->read_paused && !c->eof) {
		event_add(&c->ev_read, NULL);
		c->read_paused = 0;
	}
}

static void conn_read_cb(evutil_socket_t fd, short ev, void* arg)
{
	struct tcp_conn* c = arg;
	ssize_t r;
	(void)ev;
	r = sys_recv(fd, c->in + c->in_len, TCP_IN_CAP - c->in_len);
	if(r < 0) {
		if(errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return;
		verbose(VERB_ALGO, "tcp recv: %s", strerror(errno));
		conn_close(c);
		return;
	}
	if(r == 0) {
		/* half-close: answer what was asked, then close */
		c->eof = 1;
		event_del(&c->ev_read);
		if(c->out_start == c->out_end && !has_whole_msg(c) &&
			c->pending == 0) {
			conn_close(c);
			return;
		}
	}
	c->in_len += (size_t)r;
	conn_process(c);
	conn_flush(c);
}

static void conn_write_cb(evutil_socket_t fd, short ev, void* arg)
{
	struct tcp_conn* c = arg;
	(void)fd;
	(void)ev;
	if(!conn_flush(c))
		return;
	if(c->read_paused) {
		conn_process(c);
		conn_flush(c);
	}
}

/* Time left until the idle timeout, counted from the last activity;
 * 0 when it has passed. */
static int idle_left(const struct tcp_conn* c, struct timeval* rest)
{
	struct timespec now;
	int64_t used_us, idle_us;
	clock_gettime(CLOCK_MONOTONIC, &now);
	used_us = (int64_t)(now.tv_sec - c->last_active.tv_sec) * 1000000 +
		(now.tv_nsec - c->last_active.tv_nsec) / 1000;
	idle_us = (int64_t)c->pool->idle.tv_sec * 1000000 +
		c->pool->idle.tv_usec;
	if(used_us >= idle_us)
		return 0;
	if(used_us < 0)
		used_us = 0;  /* cannot happen with a monotonic clock */
	rest->tv_sec = (time_t)((idle_us - used_us) / 1000000);
	rest->tv_usec = (suseconds_t)((idle_us - used_us) % 1000000);
	return 1;
}

static void conn_timeout_cb(evutil_socket_t fd, short ev, void* arg)
{
	struct tcp_conn* c = arg;
	struct timeval rest;
	(void)fd;
	(void)ev;
	if(c->pending > 0) {
		/* answers are on their way (recursion is time-bounded) */
		event_add(&c->ev_timer, &c->pool->idle);
		return;
	}
	conn_stamp(c);
	if(idle_left(c, &rest)) {
		/* there was activity since the timer was set */
		event_add(&c->ev_timer, &rest);
		return;
	}
	verbose(VERB_ALGO, "tcp connection idle timeout, closed");
	conn_close(c);
}

static struct tcp_conn* free_slot(struct tcp_pool* p)
{
	int i;
	for(i = 0; i < p->max_conns; i++)
		if(p->conns[i].fd == -1)
			return &p->conns[i];
	return NULL;
}

int tcp_pool_adopt(struct tcp_pool* p, int fd,
	const struct sockaddr_storage* addr, socklen_t addrlen)
{
	struct tcp_conn* c = p->num_open < p->max_conns ? free_slot(p) : NULL;
	if(!c || addrlen > sizeof(c->addr))
		return 0;
	if(!c->in)
		c->in = malloc(TCP_IN_CAP);
	if(!c->out)
		c->out = malloc(TCP_OUT_CAP);
	if(!c->in || !c->out) {
		log_err("tcp accept: out of memory");
		return 0;
	}
	c->fd = fd;
	memcpy(&c->addr, addr, addrlen);
	c->addrlen = addrlen;
	c->in_len = c->out_start = c->out_end = 0;
	c->read_paused = c->eof = c->pending = 0;
	c->write_armed = 0;
	event_assign(&c->ev_read, p->base, fd, EV_READ | EV_PERSIST,
		conn_read_cb, c);
	event_assign(&c->ev_write, p->base, fd, EV_WRITE | EV_PERSIST,
		conn_write_cb, c);
	evtimer_assign(&c->ev_timer, p->base, conn_timeout_cb, c);
	event_add(&c->ev_read, NULL);
	c->touched = 1;
	conn_stamp(c);
	event_add(&c->ev_timer, &p->idle);
	p->num_open++;
	if(p->num_open >= p->max_conns)
		set_accepting(p, 0);
	return 1;
}

static void accept_cb(evutil_socket_t lfd, short ev, void* arg)
{
	struct tcp_pool* p = arg;
	(void)ev;
	while(p->num_open < p->max_conns) {
		struct sockaddr_storage addr;
		socklen_t addrlen = sizeof(addr);
		int fd = accept4(lfd, (struct sockaddr*)&addr, &addrlen,
			SOCK_NONBLOCK | SOCK_CLOEXEC);
		if(fd == -1) {
			if(errno != EAGAIN && errno != EWOULDBLOCK &&
				errno != EINTR && errno != ECONNABORTED)
				log_err("accept failed: %s", strerror(errno));
			return;
		}
		if(!tcp_pool_adopt(p, fd, &addr, addrlen)) {
			close(fd);
			return;
		}
	}
	/* full: leave further connections in the kernel's backlog */
	set_accepting(p, 0);
}

struct tcp_pool* tcp_pool_create(struct event_base* base, int max_conns,
	int idle_timeout_ms, tcp_answer_fn answer, void* arg)
{
	struct tcp_pool* p = calloc(1, sizeof(*p));
	int i;
	if(!p)
		return NULL;
	if(max_conns < 1)
		max_conns = 1;
	p->conns = calloc((size_t)max_conns, sizeof(*p->conns));
	if(!p->conns) {
		free(p);
		return NULL;
	}
	for(i = 0; i < max_conns; i++) {
		p->conns[i].fd = -1;
		p->conns[i].pool = p;
	}
	p->base = base;
	p->max_conns = max_conns;
	p->answer = answer;
	p->arg = arg;
	p->accepting = 1;
	tcp_pool_set_idle_timeout(p, idle_timeout_ms);
	return p;
}

void tcp_pool_set_idle_timeout(struct tcp_pool* p, int ms)
{
	if(ms < 1)
		ms = 1;
	p->idle.tv_sec = ms / 1000;
	p->idle.tv_usec = (ms % 1000) * 1000;
}

int tcp_pool_add_listener(struct tcp_pool* p, int fd)
{
	struct event** l = realloc(p->listeners,
		sizeof(*l) * (size_t)(p->num_listeners + 1));
	struct event* ev;
	if(!l)
		return 0;
	p->listeners = l;
	ev = event_new(p->base, fd, EV_READ | EV_PERSIST, accept_cb, p);
	if(!ev)
		return 0;
	if(p->accepting && event_add(ev, NULL) != 0) {
		event_free(ev);
		return 0;
	}
	p->listeners[p->num_listeners++] = ev;
	return 1;
}

void tcp_pool_deferred_reply(const struct tcp_handle* h,
	const uint8_t* reply, size_t len)
{
	struct tcp_conn* c = &h->pool->conns[h->slot];
	if(c->fd == -1 || c->gen != h->gen)
		return;  /* closed meanwhile: nobody to answer */
	c->pending--;
	if(len > 0) {
		if(TCP_OUT_CAP - c->out_end < 2 + len && c->out_start > 0) {
			memmove(c->out, c->out + c->out_start,
				c->out_end - c->out_start);
			c->out_end -= c->out_start;
			c->out_start = 0;
		}
		if(TCP_OUT_CAP - c->out_end < 2 + len) {
			verbose(VERB_ALGO, "tcp client does not read its "
				"answers, closed");
			conn_close(c);
			return;
		}
		c->out[c->out_end] = (uint8_t)(len >> 8);
		c->out[c->out_end + 1] = (uint8_t)len;
		memcpy(c->out + c->out_end + 2, reply, len);
		c->out_end += 2 + len;
	}
	/* a query held back by TCP_MAX_PENDING can go on now */
	conn_process(c);
	conn_flush(c);
}

void tcp_pool_set_close_hook(struct tcp_pool* p, tcp_close_fn fn)
{
	p->on_close = fn;
}

int tcp_pool_num_open(const struct tcp_pool* p)
{
	/* also read by the main thread for the statistics: one load */
	return __atomic_load_n(&p->num_open, __ATOMIC_RELAXED);
}

void tcp_pool_delete(struct tcp_pool* p)
{
	int i;
	if(!p)
		return;
	for(i = 0; i < p->max_conns; i++) {
		if(p->conns[i].fd != -1)
			conn_close(&p->conns[i]);
		free(p->conns[i].in);
		free(p->conns[i].out);
	}
	for(i = 0; i < p->num_listeners; i++)
		event_free(p->listeners[i]);
	free(p->listeners);
	free(p->conns);
	free(p);
}
