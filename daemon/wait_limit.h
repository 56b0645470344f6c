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

/* compat: unbound-1.22: wait-limit-netblock and
 * wait-limit-cookie-netblock: a limit per netblock (the longest match
 * counts) over wait-limit and wait-limit-cookie; -1 is no limit. The
 * loopback (127.0.0.0/8, ::1) is -1 in both unless a line sets it: it
 * cannot be spoofed from outside. Read only once made; part of a
 * config's serve_env, so a reload brings new ones. */
struct config_file;
struct wait_blocks;
/* From cfg's lines; NULL (logged) on a bad line or out of memory. */
struct wait_blocks* wait_blocks_create(const struct config_file* cfg);
void wait_blocks_delete(struct wait_blocks* wb);
/* The limit for addr: the netblock's (cookie: the cookie list's), or
 * dflt where no netblock matches; -1 when it is not limited. */
int wait_blocks_limit(const struct wait_blocks* wb,
	const struct sockaddr_storage* addr, socklen_t addrlen, int cookie,
	int dflt);

#endif
