/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/epoll_nocancel.c - epoll_wait without glibc's cancellation-point
 * bookkeeping, for libevent's epoll backend.
 *
 * libevent calls epoll_wait once per loop turn, and glibc's wrapper
 * switches asynchronous cancellation on and off around the system call
 * (measured: 30 instructions a wake-up more than this, 2% of a UDP
 * cache hit's). No thread of this daemon is ever cancelled
 * (pthread_cancel is not used), so the bare system call behaves the
 * same: same arguments, same results, -1 and errno (EINTR included) on
 * failure. Defined in the program itself, this definition is the one
 * the dynamic linker binds libevent's call to; it is linked into the
 * daemon only, not the tools or tests. epoll_pwait with no signal mask
 * is epoll_wait, and every Linux architecture has it (some lack
 * epoll_wait itself).
 *
 * On a worker thread with an io_uring wait (daemon/worker_wait.h) the
 * call is that wait's: it reads the UDP sockets itself and returns to
 * libevent with its events, its timeout, or work the UDP path gave it. */
#include "config.h"
#include "daemon/worker_wait.h"
#include <signal.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

int epoll_wait(int epfd, struct epoll_event* events, int maxevents,
	int timeout)
{
	struct worker_wait* ww = worker_wait_current;
	if(ww)
		return worker_wait_epoll(ww, epfd, events, maxevents, timeout);
	return (int)syscall(SYS_epoll_pwait, epfd, events, maxevents, timeout,
		(const sigset_t*)NULL, (size_t)(_NSIG / 8));
}
