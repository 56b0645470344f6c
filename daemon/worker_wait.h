/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/worker_wait.h - a worker's wait on io_uring: one system call
 * per loop turn sends the last UDP batch's replies and waits for the
 * next readiness; the UDP sockets are then read without libevent.
 *
 * Where it sits: libevent's epoll backend calls epoll_wait once per
 * loop turn, and the daemon's own epoll_wait (daemon/epoll_nocancel.c)
 * hands that call to worker_wait_epoll on a worker thread that has a
 * wait. There one io_uring_enter submits the replies the UDP path left
 * (worker_wait_defer) and a poll on each of the worker's UDP sockets
 * and on libevent's epoll fd, and sleeps until one is readable or
 * libevent's next timer is due (the timeout libevent asked for). A
 * readable UDP socket is read and answered right there (its callback:
 * recvmmsg, the answers, the replies deferred) and the wait goes on,
 * never returning to libevent: a cache hit per wake-up costs the
 * io_uring_enter and the recvmmsg, no epoll_wait, sendmmsg or libevent
 * dispatch. The call returns to libevent when its epoll fd is readable
 * (then with epoll_wait's events: from the ring's own epoll_wait
 * request where the kernel has one, 6.15, else one epoll_wait), when the timeout passed, or when the
 * UDP path touched the event base (*touched: a miss, a prefetch, a
 * reload: new events or timers that libevent must see).
 *
 * The UDP sockets are then not in libevent's epoll set; a worker
 * without a wait (no io_uring, UNBOUND_NO_IO_URING set) adds them
 * there as before (doc/design.md, "The worker's wait"). */
#ifndef DAEMON_WORKER_WAIT_H
#define DAEMON_WORKER_WAIT_H
#include <event2/event.h>
#include <sys/epoll.h>
#include <sys/socket.h>

struct uring;

struct worker_wait {
	struct uring* ring;
	int epfd;            /* libevent's epoll fd; -1 until it waits */
	int epoll_polled;    /* a poll on epfd is in the ring */
	/* the ring's own epoll_wait on epfd (Linux 6.15): its events
	 * come with the completion, no epoll_wait call after it; NULL:
	 * a poll, and epoll_wait when it completes */
	struct epoll_event* epoll_events;
	int* touched;        /* set by the UDP path when it touched the
	                      * event base; cleared here */
	int num_udp;
	struct wait_udp* udp;   /* the sockets, by their poll's tag */
	/* the last UDP batch's replies, sent by the next wait (n 0: none) */
	int defer_fd;
	int defer_n;
	struct mmsghdr* defer_msg;
};

/* Can workers wait on io_uring here? 1, or 0 with why filled (the
 * environment variable UNBOUND_NO_IO_URING set, or no usable
 * io_uring). Main thread, once, before the workers start. */
int worker_wait_probe(char* why, size_t whylen);

/* A wait for the calling thread (make it in the thread that waits)
 * over the UDP read events evs (their fd, callback and argument; they
 * are not added to the base); touched is the worker's flag. NULL with
 * the reason logged when no ring could be made: then add the events to
 * the base. */
struct worker_wait* worker_wait_create(struct event** evs, int num,
	int* touched);
/* Makes ww this thread's wait and runs one non-blocking turn of base,
 * in which the wait learns libevent's epoll fd. 0 (ww detached, the
 * reason logged) when libevent's loop did not come through
 * epoll_wait: another backend. */
int worker_wait_attach(struct worker_wait* ww, struct event_base* base);
/* Detach from the thread, send the deferred replies, free; accepts
 * NULL. */
void worker_wait_delete(struct worker_wait* ww);

/* The epoll_wait of libevent's loop on a thread with a wait (called by
 * daemon/epoll_nocancel.c); epoll_wait's arguments and results. */
int worker_wait_epoll(struct worker_wait* ww, int epfd,
	struct epoll_event* events, int maxevents, int timeout);
/* This thread's wait, or NULL. */
extern __thread struct worker_wait* worker_wait_current;

/* The UDP path's last batch: its n replies in msg on fd go out with the
 * next wait's system call. msg and what it points to stay untouched
 * until then (the wait sends them before it runs another UDP
 * callback). */
static inline void worker_wait_defer(struct worker_wait* ww, int fd,
	struct mmsghdr* msg, int n)
{
	ww->defer_fd = fd;
	ww->defer_msg = msg;
	ww->defer_n = n;
}

#endif
