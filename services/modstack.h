/* SPDX-License-Identifier: BSD-3-Clause */
/* services/modstack.h - module-config: which modules run, in which
 * order, and their per-worker set-up (util/module.h is the interface). */
#ifndef SERVICES_MODSTACK_H
#define SERVICES_MODSTACK_H
#include <stddef.h>
#include "util/module.h"

struct config_file;
struct event_base;
struct port_pool;

/* The module called name, NULL when this build has none. */
const struct module_func_block* modstack_find(const char* name);

/* compat: unbound-1.17: Split module-config text (NULL: the default,
 * "validator iterator") into mods; *n is their number. Returns 1, or 0 with a
 * message in err ("unknown module name \"foo\"", "too many modules", "no
 * modules"; the iterator must be last, as in Unbound). */
int modstack_parse(const char* conf,
	const struct module_func_block* mods[MODULE_MAX], int* n,
	char* err, size_t errlen);

/* Does conf list the named module? */
int modstack_has(const char* conf, const char* name);

/* The module stack alone (modstack_env_start does it all): env->mods
 * from env->cfg's module-config, each module's init called. 0 (logged)
 * on failure, nothing left to deinit. */
int modstack_setup(struct module_env* env);
/* deinit every module (after the mesh is gone). */
void modstack_teardown(struct module_env* env);

/* One worker's resolver. The caller has set env's config snapshot
 * (cfg, hints, anchors) and shared caches (infra, msg_cache,
 * rrset_cache, key_cache; any may be NULL); this makes the worker's
 * own random state, outside network on base (sharing pool), mesh
 * (num-queries-per-thread) and module stack (module-config), each
 * module's init called. 0 (logged) on failure, with nothing left to
 * free. */
int modstack_env_start(struct module_env* env, struct event_base* base,
	struct port_pool* pool);
/* A new config snapshot (reload, run-time change): cfg, hints and
 * anchors replaced, each module told. Queries in flight go on. The
 * module stack stays the one of the start (see doc/design.md). */
void modstack_env_reconfigure(struct module_env* env,
	const struct config_file* cfg, const struct iter_hints* hints,
	const struct val_anchors* anchors);
/* Free the mesh (no callbacks), the modules, the outside network and
 * the random state; not the shared parts. */
void modstack_env_stop(struct module_env* env);

#endif
