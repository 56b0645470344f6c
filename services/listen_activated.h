/* SPDX-License-Identifier: BSD-3-Clause */
/* services/listen_activated.h - use-systemd: listening sockets handed
 * over by systemd's socket activation (a .socket unit), read from the
 * environment as sd_listen_fds(3) reads it: $LISTEN_PID (must be this
 * process), $LISTEN_FDS (how many, from fd 3 on) and, for the log only,
 * $LISTEN_FDNAMES. No libsystemd.
 *
 * compat: unbound-1.17: Unbound built with systemd takes, for each
 * interface it would bind, the first passed socket of the same family
 * and type; unlike Unbound, a passed socket is taken here only for the
 * interface whose address and port it is bound to (so several passed
 * sockets go to the right interfaces), an interface no socket matches is
 * bound as without use-systemd, and a passed socket no interface takes
 * is closed with a warning (doc/compat.md). Start-up only: nothing here
 * is on the query path. */
#ifndef SERVICES_LISTEN_ACTIVATED_H
#define SERVICES_LISTEN_ACTIVATED_H
#include <sys/socket.h>

struct listen_activated;

/* Read the passed sockets. NULL when there are none for this process
 * (the reason logged as Unbound logs it) or on no memory. */
struct listen_activated* listen_activated_create(void);
/* The passed socket bound to addr (port included) for TCP (a listening
 * stream socket) or UDP, or -1; marks it taken: the caller owns it from
 * then on (the same fd again on a second call). */
int listen_activated_take(struct listen_activated* a,
	const struct sockaddr_storage* addr, int is_tcp);
/* Close the passed sockets that were never taken (each logged as not
 * used), and free a. NULL is fine. */
void listen_activated_delete(struct listen_activated* a);

#endif
