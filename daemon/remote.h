/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/remote.h - compat: unbound-1.17: the remote control channel
 * (unbound-control) and the statistics state, all in the daemon's main thread,
 * never in a worker.
 *
 * Protocol as Unbound's: the client sends "UBCT1 command args\n", the
 * daemon writes the answer and closes. Over TCP with control-use-cert:
 * yes, mutual TLS (the client's certificate must be signed by the server
 * certificate); a control-interface that is an absolute path is a unix
 * socket, plain. A connection gets RC_TIMEOUT_SECS to send its command
 * line (of at most RC_LINE_MAX bytes), and as long again for each read
 * of its input or write of its answer that makes progress (or while the
 * client drains what the kernel holds for it); everything is
 * non-blocking, so a slow client delays nothing but itself. */
#ifndef DAEMON_REMOTE_H
#define DAEMON_REMOTE_H

struct daemon;
struct daemon_remote;
struct config_file;
struct event_base;

#define RC_TIMEOUT_SECS 5
#define RC_LINE_MAX 4096
/* at most this many control connections at once; a new one closes the
 * oldest that has not sent its command yet, else waits in accept */
#define RC_MAX_CONNS 32

/* compat: unbound-1.17: Open the control sockets and load the keys (before
 * chroot and the privilege drop, as Unbound). With control-enable: no, only
 * the statistics state is made. NULL on error (logged). */
struct daemon_remote* daemon_remote_create(struct daemon* d,
	struct config_file* cfg);
/* Start accepting on the main thread's event base, and the
 * statistics-interval timer. 0 on error. */
int daemon_remote_start(struct daemon_remote* rc, struct event_base* base);
/* Serve the connected, non-blocking socket fd as a control connection
 * (TLS when use_ssl), as accepting it would: the command runs as its
 * bytes arrive on the base of daemon_remote_start. fd is the
 * connection's from now on (closed on failure too); 0 on failure.
 * The control fuzz harness uses it, with a socketpair. */
int daemon_remote_adopt(struct daemon_remote* rc, int fd, int use_ssl);
/* compat: unbound-1.17: After a reload (SIGHUP or the reload commands): the
 * statistics the control channel shows start from zero, as Unbound's. NULL is
 * fine. */
void daemon_remote_reload_stats(struct daemon_remote* rc);
/* Close everything (unlinks a unix socket it made). NULL is fine. */
void daemon_remote_delete(struct daemon_remote* rc);

#endif
