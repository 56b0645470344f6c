/* SPDX-License-Identifier: BSD-3-Clause */
/* services/modstack.h - module-config: the table of the modules this build
 * has, which of them run and in which order, their state per daemon
 * (startup) and per worker (init). util/module.h is the interface; a
 * worker's resolver (daemon/worker_resolver.h) is built around the stack.
 *
 * Adding a module: its folder with a struct module_func_block, and its
 * line in known[] (services/modstack.c). See doc/conventions.md. */
#ifndef SERVICES_MODSTACK_H
#define SERVICES_MODSTACK_H
#include <stddef.h>
#include <stdint.h>
#include "util/module.h"

struct config_file;

/* The stack of the daemon (one, kept from the start: a reload keeps it,
 * see doc/design.md), with each module's global state. */
struct modstack {
	int num;
	const struct module_func_block* mods[MODULE_MAX];
	void* global[MODULE_MAX];  /* startup's, NULL for a module without */
	int started;               /* modules whose startup ran (0..num) */
	/* a module validates (.validates): the message cache's
	 * need_checked, env->validating */
	int validates;
	/* a module must see a question before the message cache answers
	 * it (needs_query_before_cache: subnetcache), or must see its
	 * reply after (filter_reply: respip): the one flag the cache-hit
	 * path reads; set, it asks modstack_skips_cache and sends the
	 * reply through modstack_filter_reply */
	int query_before_cache;
	/* nonzero: only queries with this EDNS option (ECS) skip it */
	uint16_t query_before_cache_opt;
	int query_before_cache_all;
};

struct query_info;
/* Does an expired answer wait for a module's lookup first (a module's
 * checks_before_stale under cfg)? The expired path only. */
int modstack_checks_before_stale(const struct modstack* st,
	const struct config_file* cfg);
/* Does this client query go to the modules before the message cache
 * (st->query_before_cache is set)? */
int modstack_skips_cache(const struct modstack* st,
	const struct query_info* qi);

/* The i-th module of this build (the table's order), NULL past the
 * last: unbound -V's "Linked modules:". */
const struct module_func_block* modstack_known(size_t i);

/* The module called name, NULL when this build has none. */
const struct module_func_block* modstack_find(const char* name);

/* compat: unbound-1.17: Split module-config text (NULL: the default,
 * "validator iterator") into mods; *n is their number. Returns 1, or 0
 * with Unbound's message in err: "no modules specified", "too many
 * modules (17 max 16)", "Unknown value in module-config, module: 'x'.
 * This module is not present (not compiled in), ..." (any name not in
 * the table: python, cachedb, respip, ...), and one of ours: the
 * iterator must be last (Unbound's checkconf refuses such stacks as
 * "not known to work"). */
int modstack_parse(const char* conf,
	const struct module_func_block* mods[MODULE_MAX], int* n,
	char* err, size_t errlen);

/* modstack_parse of cfg's module-config, the error printed to stderr
 * as the config parser prints one: "FILE:LINE: error: module-config:
 * ..." (unbound-checkconf, and the daemon before it starts or takes a
 * reloaded config). 1: good. */
int modstack_check_cfg(const struct config_file* cfg);

/* The daemon, before it starts or takes a reloaded config (after
 * modstack_check_cfg): modstack_check_needs, the error logged. 1: good.
 * compat: unbound-1.17: only the daemon refuses such a config; its
 * unbound-checkconf accepts it. */
int modstack_check_start(const struct config_file* cfg);

/* Once per daemon, before the workers start: st from cfg's
 * module-config, each module's startup called, the flags computed. 0
 * (logged) on failure, with nothing left to destartup. */
int modstack_startup(struct modstack* st, const struct config_file* cfg);
/* After the workers stopped: each startup undone (last first). */
void modstack_destartup(struct modstack* st);
/* What the modules' reload_prepare built for one reload. */
struct modstack_prep {
	void* p[MODULE_MAX];
};
/* A reload's first step, in the reload thread: each module's
 * reload_prepare with the new cfg into prep. */
void modstack_reload_prepare(const struct modstack* st,
	const struct config_file* cfg, struct modstack_prep* prep);
/* What a refused reload prepared, freed (prep emptied). */
void modstack_reload_discard(const struct modstack* st,
	struct modstack_prep* prep);
/* A reload: each module's reload_global with the new cfg and what it
 * prepared (main thread, before the workers take it); prep (NULL:
 * nothing prepared) is emptied. */
void modstack_reload_global(const struct modstack* st,
	const struct config_file* cfg, struct modstack_prep* prep);

/* Per worker, after the shared parts of env are set (cfg, caches,
 * outnet, mesh): env->mods, modglobal and validating from st, each
 * module's init called. 0 (logged) on failure, nothing left to
 * deinit. */
int modstack_init(const struct modstack* st, struct module_env* env);
/* deinit every module of env (after its mesh is gone). */
void modstack_deinit(struct module_env* env);
/* A new config snapshot in env (cfg, hints, anchors): each module's
 * reconfigure called. */
void modstack_reconfigure(struct module_env* env);

/* Every filter_reply of env's modules on a client's reply, top first;
 * MODULE_REPLY_DROP as soon as one drops it (MODULE_REPLY_MATCHED as
 * soon as one matches a search_only reply). */
enum module_reply_verdict modstack_filter_reply(struct module_env* env,
	const struct module_reply_client* client, uint8_t* pkt, size_t* len,
	size_t cap);

/* Every answer_query of env's modules on the empty reply to a client's
 * question (see module.h), top first, until one answers or drops it:
 * MODULE_REPLY_KEEP when none did. */
enum module_reply_verdict modstack_answer_query(struct module_env* env,
	const struct module_reply_client* client, uint8_t* pkt, size_t* len,
	size_t cap);

/* compat: unbound-1.17: options that need a module the stack lacks
 * ("response-ip options require respip module"): 1 when none; else 0
 * with the message in err. */
int modstack_check_needs(const struct config_file* cfg,
	const struct module_func_block* const mods[], int n, char* err,
	size_t errlen);

/* Each module's flush on its global state (main thread; the state's
 * own locks make it safe while the workers run): the entries removed,
 * summed. */
size_t modstack_flush(const struct modstack* st, const uint8_t* zone,
	enum module_flush kind);
/* The module called name's get_mem; 0 when it is not in the stack or
 * keeps nothing (mem.mod.<name> is printed for Unbound's names all the
 * same). */
size_t modstack_get_mem(const struct modstack* st, const char* name);
/* Every module's cache_info added into info (zeroed first). */
void modstack_cache_info(const struct modstack* st,
	struct module_cache_info* info);

#endif
