/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/wait_limit.h - wait-limit: how many replies may wait for
 * recursion per client IP address (DNSBomb: a spoofed source must not
 * be able to pile up replies that all go out at once). One table per
 * worker, so with SO_REUSEPORT a client spread over N threads may have
 * N times the limit waiting. */
#ifndef DAEMON_WAIT_LIMIT_H
#define DAEMON_WAIT_LIMIT_H
#include <sys/socket.h>

struct wait_limit;

struct wait_limit* wait_limit_create(void);
void wait_limit_delete(struct wait_limit* wl);
/* Count one more reply waiting for addr. Returns 0 (and counts nothing)
 * when addr already has limit replies waiting; limit 0 means no limit. */
int wait_limit_take(struct wait_limit* wl,
	const struct sockaddr_storage* addr, socklen_t addrlen, int limit);
/* A reply for addr was sent or dropped. */
void wait_limit_give(struct wait_limit* wl,
	const struct sockaddr_storage* addr, socklen_t addrlen);
/* Addresses with replies waiting now (for tests and stats). */
int wait_limit_count(const struct wait_limit* wl);

#endif
