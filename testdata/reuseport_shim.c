/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/reuseport_shim.c - test aid, loaded with LD_PRELOAD.
 *
 * Makes setsockopt(SOL_SOCKET, SO_REUSEPORT) fail with ENOPROTOOPT, as on
 * a kernel without SO_REUSEPORT, so the integration tests can drive the
 * daemon's one-shared-socket fallback path. Every other option goes to
 * the real setsockopt unchanged. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <sys/socket.h>

typedef int (*setsockopt_fn)(int, int, int, const void*, socklen_t);

int setsockopt(int fd, int level, int optname, const void* optval,
	socklen_t optlen)
{
	/* looked up on every call: no mutable global state, and the cost
	 * does not matter for a test aid called a few times at start-up */
	setsockopt_fn real = (setsockopt_fn)dlsym(RTLD_NEXT, "setsockopt");
	if(level == SOL_SOCKET && optname == SO_REUSEPORT) {
		errno = ENOPROTOOPT;
		return -1;
	}
	if(!real) {
		errno = ENOSYS;
		return -1;
	}
	return real(fd, level, optname, optval, optlen);
}
