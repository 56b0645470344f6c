/* SPDX-License-Identifier: BSD-3-Clause */
/* util/sys_nocancel.h - the socket calls of the query paths as plain
 * system calls.
 *
 * glibc's wrappers for send, recv, close and the like are
 * cancellation points: in a threaded program each call switches
 * asynchronous cancellation on and off around the system call, two
 * atomic operations on the thread's cancel state (perf, a cache miss:
 * 0.8% of the daemon's CPU; also the reply of every cache hit). No
 * thread of this daemon is ever cancelled (pthread_cancel is not used),
 * so the bare system calls behave the same: same arguments, same
 * results, -1 and errno (EINTR included) on failure. syscall(2) itself
 * is not a cancellation point. connect, socket and bind stay libc's:
 * the resource-failure shim (testdata/failalloc_shim.c) interposes
 * them to fail outgoing sockets. */
#ifndef UTIL_SYS_NOCANCEL_H
#define UTIL_SYS_NOCANCEL_H
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

static inline ssize_t nc_send(int fd, const void* buf, size_t len,
	int flags)
{
	return (ssize_t)syscall(SYS_sendto, fd, buf, len, flags, NULL, 0);
}

static inline ssize_t nc_sendto(int fd, const void* buf, size_t len,
	int flags, const struct sockaddr* to, socklen_t tolen)
{
	return (ssize_t)syscall(SYS_sendto, fd, buf, len, flags, to,
		(size_t)tolen);
}

static inline ssize_t nc_recv(int fd, void* buf, size_t len, int flags)
{
	return (ssize_t)syscall(SYS_recvfrom, fd, buf, len, flags, NULL,
		NULL);
}

static inline ssize_t nc_recvfrom(int fd, void* buf, size_t len,
	int flags, struct sockaddr* from, socklen_t* fromlen)
{
	return (ssize_t)syscall(SYS_recvfrom, fd, buf, len, flags, from,
		fromlen);
}

static inline int nc_recvmmsg(int fd, struct mmsghdr* m, unsigned n,
	int flags)
{
	return (int)syscall(SYS_recvmmsg, fd, m, n, flags, NULL);
}

static inline int nc_sendmmsg(int fd, struct mmsghdr* m, unsigned n,
	int flags)
{
	return (int)syscall(SYS_sendmmsg, fd, m, n, flags);
}

static inline int nc_close(int fd)
{
	return (int)syscall(SYS_close, fd);
}

#endif
