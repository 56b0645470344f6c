/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/daemon_xfr.h - the daemon's zone transfers: the transfer engine
 * (services/xfr_source.h) set up from the auth-zone clauses with
 * primaries, and each new version published as a new serve_env. */
#ifndef DAEMON_DAEMON_XFR_H
#define DAEMON_DAEMON_XFR_H

struct daemon;

/* Start transfers for the current env's auth zones (main thread, after
 * d->base exists; again after a reload). 0 on an error (logged). */
int daemon_xfr_start(struct daemon* d);
/* Stop them (before a reload's restart, or at exit). */
void daemon_xfr_stop(struct daemon* d);
/* Free the engine at exit. */
void daemon_xfr_delete(struct daemon* d);

#endif
