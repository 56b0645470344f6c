/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/worker_wait.c - a worker's wait on io_uring (worker_wait.h). */
#include "config.h"
#include "daemon/worker_wait.h"
#include "daemon/reply_batch.h"
#include "util/log.h"
#include "util/uring.h"
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Poll tags: a UDP socket's is its index in ww->udp. */
#define TAG_EPOLL ((uint64_t)-1)   /* libevent's epoll fd */
#define TAG_SEND ((uint64_t)-2)    /* a reply (completes on error only,
                                    * where the kernel can skip the rest) */
/* the most replies one UDP batch defers (worker.c's UDP_BATCH), and
 * room for them beside one poll per socket and the epoll fd's */
#define DEFER_MAX 32
/* events per epoll_wait request of the ring (libevent asks for 32 at
 * first, more when it got all it asked for) */
#define EPOLL_EVENTS 64
#ifndef IORING_OP_EPOLL_WAIT
#define IORING_OP_EPOLL_WAIT 59   /* Linux 6.15 */
#endif

struct wait_udp {
	int fd;
	event_callback_fn cb;
	void* arg;
	struct event* ev;   /* added to the base if the ring fails later */
};

__thread struct worker_wait* worker_wait_current;

/* epoll_wait as daemon/epoll_nocancel.c makes it, for the calls the
 * wait passes on to the kernel. */
static int epoll_wait_bare(int epfd, struct epoll_event* events,
	int maxevents, int timeout)
{
	return (int)syscall(SYS_epoll_pwait, epfd, events, maxevents, timeout,
		(const sigset_t*)NULL, (size_t)(_NSIG / 8));
}

int worker_wait_probe(char* why, size_t whylen)
{
	struct uring* r;
	if(getenv("UNBOUND_NO_IO_URING")) {
		snprintf(why, whylen, "UNBOUND_NO_IO_URING is set");
		return 0;
	}
	if(!(r = uring_create(4, why, whylen)))
		return 0;
	uring_delete(r);
	return 1;
}

struct worker_wait* worker_wait_create(struct event** evs, int num,
	int* touched)
{
	char why[128];
	struct worker_wait* ww = calloc(1, sizeof(*ww));
	int i;
	if(!ww || !(ww->udp = calloc((size_t)(num > 0 ? num : 1),
		sizeof(*ww->udp)))) {
		log_err("worker wait: out of memory");
		free(ww);
		return NULL;
	}
	ww->ring = uring_create((unsigned)num + 1 + 2 * DEFER_MAX, why,
		sizeof(why));
	if(!ww->ring) {
		log_err("worker wait: %s; this worker waits in epoll", why);
		free(ww->udp);
		free(ww);
		return NULL;
	}
	/* zeroed: memcheck takes what the kernel writes there as set */
	if(uring_op_supported(ww->ring, IORING_OP_EPOLL_WAIT))
		ww->epoll_events = calloc(EPOLL_EVENTS,
			sizeof(*ww->epoll_events));
	ww->epfd = -1;
	ww->touched = touched;
	ww->num_udp = num;
	for(i = 0; i < num; i++) {
		ww->udp[i].fd = event_get_fd(evs[i]);
		ww->udp[i].cb = event_get_callback(evs[i]);
		ww->udp[i].arg = event_get_callback_arg(evs[i]);
		ww->udp[i].ev = evs[i];
	}
	return ww;
}

/* Send the deferred replies now (sendmmsg). */
static void flush_deferred(struct worker_wait* ww)
{
	if(ww->defer_n > 0)
		udp_send_all(ww->defer_fd, ww->defer_msg, ww->defer_n);
	ww->defer_n = 0;
}

int worker_wait_attach(struct worker_wait* ww, struct event_base* base)
{
	int i;
	worker_wait_current = ww;
	/* libevent's loop calls epoll_wait with its epoll fd: the wait
	 * takes that fd from the first call, and passes that one on */
	(void)event_base_loop(base, EVLOOP_NONBLOCK);
	if(ww->epfd == -1) {
		worker_wait_current = NULL;
		log_err("worker wait: libevent's loop (%s) does not wait in "
			"epoll_wait; this worker waits in it",
			event_base_get_method(base));
		return 0;
	}
	for(i = 0; i < ww->num_udp; i++)
		(void)uring_poll_in(ww->ring, ww->udp[i].fd, (uint64_t)i);
	return 1;
}

void worker_wait_delete(struct worker_wait* ww)
{
	if(!ww)
		return;
	if(worker_wait_current == ww)
		worker_wait_current = NULL;
	flush_deferred(ww);
	uring_delete(ww->ring);
	free(ww->epoll_events);
	free(ww->udp);
	free(ww);
}

/* The deferred replies as sendmsg requests of the next enter; with no
 * room for them beside the polls, sent now. MSG_DONTWAIT: a full
 * socket buffer fails the send at once (as the sendmmsg it replaces;
 * the reply is dropped) instead of leaving it queued in the kernel
 * while the buffers are reused. */
static void submit_deferred(struct worker_wait* ww)
{
	struct uring* r = ww->ring;
	uint8_t sqe_flags = (r->features & IORING_FEAT_CQE_SKIP) ?
		IOSQE_CQE_SKIP_SUCCESS : 0;
	int i;
	if(ww->defer_n == 0)
		return;
	if(uring_sq_room(r) < (unsigned)(ww->defer_n + ww->num_udp + 1)) {
		flush_deferred(ww);
		return;
	}
	for(i = 0; i < ww->defer_n; i++) {
		struct io_uring_sqe* e = uring_sqe(r);
		e->opcode = IORING_OP_SENDMSG;
		e->flags = sqe_flags;
		e->fd = ww->defer_fd;
		e->addr = (uint64_t)(uintptr_t)&ww->defer_msg[i].msg_hdr;
		e->len = 1;
		e->msg_flags = MSG_DONTWAIT;
		e->user_data = TAG_SEND;
	}
	ww->defer_n = 0;
}

/* The ring failed for good: the UDP sockets go back to libevent, and
 * this thread's loop waits in epoll_wait again. */
static int wait_failed(struct worker_wait* ww, int err, int epfd,
	struct epoll_event* events, int maxevents)
{
	int i;
	log_err("worker wait: io_uring_enter: %s; this worker waits in "
		"epoll from now on", strerror(err));
	worker_wait_current = NULL;
	flush_deferred(ww);
	for(i = 0; i < ww->num_udp; i++)
		if(event_add(ww->udp[i].ev, NULL) != 0)
			log_err("worker wait: cannot add a UDP socket's event");
	return epoll_wait_bare(epfd, events, maxevents, 0);
}

/* The request that completes when libevent's epoll fd has events: the
 * ring's epoll_wait into ww->epoll_events (at most maxevents, what
 * libevent's array holds now; it only grows), or a poll. */
static int epoll_request(struct worker_wait* ww, int epfd, int maxevents)
{
	struct io_uring_sqe* e;
	if(!ww->epoll_events)
		return uring_poll_in(ww->ring, epfd, TAG_EPOLL);
	if(!(e = uring_sqe(ww->ring)))
		return 0;
	e->opcode = IORING_OP_EPOLL_WAIT;
	e->fd = epfd;
	e->addr = (uint64_t)(uintptr_t)ww->epoll_events;
	e->len = (unsigned)(maxevents < EPOLL_EVENTS ? maxevents :
		EPOLL_EVENTS);
	e->user_data = TAG_EPOLL;
	return 1;
}

/* The time left until the deadline, for kernels whose wait takes a
 * relative timeout only (before Linux 6.12). */
static const struct timespec* time_left(const struct timespec* deadline,
	struct timespec* left)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	left->tv_sec = deadline->tv_sec - now.tv_sec;
	left->tv_nsec = deadline->tv_nsec - now.tv_nsec;
	if(left->tv_nsec < 0) {
		left->tv_nsec += 1000000000;
		left->tv_sec--;
	}
	if(left->tv_sec < 0)
		left->tv_sec = left->tv_nsec = 0;
	return left;
}

int worker_wait_epoll(struct worker_wait* ww, int epfd,
	struct epoll_event* events, int maxevents, int timeout)
{
	static const struct timespec zero = { 0, 0 };
	struct uring* r = ww->ring;
	struct timespec deadline, left;
	if(__builtin_expect(epfd != ww->epfd, 0)) {
		if(ww->epfd == -1)
			ww->epfd = epfd;   /* worker_wait_attach's turn */
		return epoll_wait_bare(epfd, events, maxevents, timeout);
	}
	/* libevent has run: it saw what the UDP path did before */
	*ww->touched = 0;
	if(!ww->epoll_polled) {
		/* armed after libevent read its events: what it left
		 * ready completes the request at once (level-triggered) */
		if(!epoll_request(ww, epfd, maxevents))
			return wait_failed(ww, ENOSPC, epfd, events,
				maxevents);
		ww->epoll_polled = 1;
	}
	if(timeout > 0) {
		clock_gettime(CLOCK_MONOTONIC, &deadline);
		deadline.tv_sec += timeout / 1000;
		deadline.tv_nsec += (long)(timeout % 1000) * 1000000;
		if(deadline.tv_nsec >= 1000000000) {
			deadline.tv_nsec -= 1000000000;
			deadline.tv_sec++;
		}
	}
	for(;;) {
		const struct timespec* dl = NULL;
		struct io_uring_cqe* c;
		int n, woke = 0, epoll_ready = 0;
		submit_deferred(ww);
		if(timeout == 0)
			dl = &zero;
		else if(timeout > 0)
			dl = r->abs_timer ? &deadline :
				time_left(&deadline, &left);
		n = uring_enter(r, 1, dl);
		if(__builtin_expect(n < 0, 0) && n != -EINTR && n != -EAGAIN &&
			n != -EBUSY)
			return wait_failed(ww, -n, epfd, events, maxevents);
		/* requests the kernel did not take (no room for their
		 * completions) may point at buffers a callback reuses:
		 * submit them before any runs */
		if(__builtin_expect(r->sq_next != __atomic_load_n(r->sq_head,
			__ATOMIC_ACQUIRE), 0)) {
			while((c = uring_cqe_peek(r))) {
				if(c->user_data == TAG_EPOLL) {
					epoll_ready = ww->epoll_events &&
						c->res > 0 ? c->res + 1 : 1;
					ww->epoll_polled = 0;
				} else if(c->user_data < (uint64_t)ww->num_udp)
					(void)uring_poll_in(r, ww->udp[
						c->user_data].fd, c->user_data);
				uring_cqe_seen(r);
			}
			n = uring_enter(r, 0, NULL);
			if(n < 0 && n != -EINTR && n != -EAGAIN && n != -EBUSY)
				return wait_failed(ww, -n, epfd, events,
					maxevents);
			if(r->sq_next != __atomic_load_n(r->sq_head,
				__ATOMIC_ACQUIRE))
				return wait_failed(ww, EBUSY, epfd, events,
					maxevents);
			woke = 1;
		}
		while((c = uring_cqe_peek(r))) {
			uint64_t tag = c->user_data;
			int res = c->res;
			uring_cqe_seen(r);
			woke = 1;
			if(tag < (uint64_t)ww->num_udp) {
				struct wait_udp* u = &ww->udp[tag];
				if(__builtin_expect(res < 0, 0)) {
					/* not polled again (it would fail
					 * again at once): libevent's then */
					log_err("worker wait: poll on a UDP "
						"socket: %s; it goes to epoll",
						strerror(-res));
					if(event_add(u->ev, NULL) != 0)
						log_err("worker wait: cannot add "
							"a UDP socket's event");
					continue;
				}
				/* this callback reuses the buffers of the
				 * replies still deferred */
				flush_deferred(ww);
				/* polled again with the next enter, after
				 * the callback read what is there */
				(void)uring_poll_in(r, u->fd, tag);
				u->cb(u->fd, EV_READ, u->arg);
			} else if(tag == TAG_EPOLL) {
				/* the ring's epoll_wait: its events (or an
				 * error: then epoll_wait's) */
				epoll_ready = ww->epoll_events && res > 0 ?
					res + 1 : 1;
				ww->epoll_polled = 0;
			} else if(res < 0)
				verbose(VERB_ALGO, "sendmsg: %s",
					strerror(-res));
		}
		if(epoll_ready) {
			/* libevent's events, now: the replies first, as
			 * they would have gone before its callbacks */
			flush_deferred(ww);
			if(epoll_ready > 1) {
				memcpy(events, ww->epoll_events,
					(size_t)(epoll_ready - 1) *
					sizeof(*events));
				return epoll_ready - 1;
			}
			return epoll_wait_bare(epfd, events, maxevents, 0);
		}
		/* nothing came: the timeout (or a signal); or the UDP
		 * path gave libevent new work */
		if(!woke || *ww->touched || timeout == 0)
			return 0;
	}
}
