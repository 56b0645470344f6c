/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/notify.h - compat: unbound-1.17: systemd's service notifications
 * (sd_notify: READY=1, RELOADING=1, STOPPING=1) as Debian's Unbound, built
 * with systemd, sends them, without linking libsystemd: one datagram per
 * state to the unix socket named in $NOTIFY_SOCKET (a path, or an abstract
 * name written with a leading '@').
 *
 * As Unbound's, this does not depend on use-systemd: (which in Unbound is
 * socket activation): Debian's unit (Type=notify) expects READY=1 from a
 * default config. Main thread only; nothing on the query path. */
#ifndef DAEMON_NOTIFY_H
#define DAEMON_NOTIFY_H

struct daemon_notify;

/* The outcome of daemon_notify_create. */
enum notify_open {
	NOTIFY_NONE,     /* no $NOTIFY_SOCKET: nothing to tell */
	NOTIFY_OPENED,   /* *out is the socket, connected */
	NOTIFY_FAILED    /* $NOTIFY_SOCKET cannot be used (logged) */
};

/* Connect to $NOTIFY_SOCKET, before chroot and the privilege drop (the
 * path is reached then, and kept by the connected socket). */
enum notify_open daemon_notify_create(struct daemon_notify** out);
/* Send state ("READY=1"); 0 when it could not be sent (logged with
 * Unbound's message). n NULL: nothing to do, 1. */
int daemon_notify_send(struct daemon_notify* n, const char* state);
/* RELOADING=1 with the monotonic clock (MONOTONIC_USEC, which systemd's
 * Type=notify-reload asks for). */
void daemon_notify_reloading(struct daemon_notify* n);
/* Close; NULL is fine. */
void daemon_notify_delete(struct daemon_notify* n);

#endif
