/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/daemon_xfr.h - the daemon's zone transfers: the transfer engine
 * (services/xfr_source.h) set up from the auth-zone clauses with
 * primaries, and each new version published as a new serve_env. */
#ifndef DAEMON_DAEMON_XFR_H
#define DAEMON_DAEMON_XFR_H

struct daemon;
struct auth_zones;
struct config_file;

/* Publish a new env with the auth zones az (taken over), the rest as
 * the current env (main thread). */
void daemon_publish_auth(struct daemon* d, struct auth_zones* az);
/* A zone file's path as the process opens it now (inside the chroot);
 * malloced, NULL when out of memory. */
char* daemon_xfr_inside_path(const struct config_file* cfg, const char* f);

/* Start transfers for the current env's auth zones (main thread, after
 * d->base exists; again after a reload). 0 on an error (logged). */
int daemon_xfr_start(struct daemon* d);
/* Stop them (before a reload's restart, or at exit). */
void daemon_xfr_stop(struct daemon* d);
/* list_auth_zones: "name.<tab>serial N" lines of the auth zones and the
 * zones modules registered (services/xfr_consumer.h), in Unbound's
 * order, each handed to out. 0 on OOM. */
int daemon_list_zones(struct daemon* d,
	void (*out)(void* arg, const char* line), void* arg);
/* Free the engine at exit (after the signal events are freed), and
 * drop the versions it handed over that the main loop did not run. */
void daemon_xfr_delete(struct daemon* d);

#endif
