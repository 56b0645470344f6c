/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/worker_resolver.h - one worker's resolver: its random state,
 * outside network, mesh and module stack, around the daemon's shared
 * caches and the modules' global state (services/modstack.h). Also
 * used by smallapp/resolve-test.c. */
#ifndef DAEMON_WORKER_RESOLVER_H
#define DAEMON_WORKER_RESOLVER_H
#include "util/module.h"

struct modstack;
struct config_file;
struct iter_hints;
struct val_anchors;
struct event_base;
struct port_pool;

/* The caller has set env's config snapshot (cfg, hints, anchors) and
 * shared caches (infra, msg_cache, rrset_cache, neg_cache; any may be
 * NULL); this makes the worker's own random state, outside network on
 * base (sharing pool), mesh (num-queries-per-thread) and module stack
 * (st's modules, each module's init called). 0 (logged) on failure,
 * with nothing left to free. */
int worker_resolver_start(struct module_env* env, const struct modstack* st,
	struct event_base* base, struct port_pool* pool);
/* A new config snapshot (reload, run-time change): cfg, hints and
 * anchors replaced, each module told. Queries in flight go on. The
 * module stack stays the one of the start (see doc/design.md). */
void worker_resolver_reconfigure(struct module_env* env,
	const struct config_file* cfg, const struct iter_hints* hints,
	const struct val_anchors* anchors);
/* Free the mesh (no callbacks), the modules, the outside network and
 * the random state; not the shared parts. */
void worker_resolver_stop(struct module_env* env);

#endif
