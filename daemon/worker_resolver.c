/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/worker_resolver.c - one worker's resolver (see the header). */
#include "config.h"
#include "daemon/worker_resolver.h"
#include "services/mesh.h"
#include "services/modstack.h"
#include "services/outside_network.h"
#include "util/config_file.h"
#include "util/log.h"
#include "util/random.h"
#include <stddef.h>

int worker_resolver_start(struct module_env* env, const struct modstack* st,
	struct event_base* base, struct port_pool* pool)
{
	struct outnet_settings os;
	env->mesh = NULL;
	env->outnet = NULL;
	env->num_modules = 0;
	env->base = base;
	env->rnd = ub_initstate();
	outnet_settings_from_cfg(env->cfg, &os);
	if(env->rnd)
		env->outnet = outside_network_create(base, &os, pool,
			env->infra);
	if(!env->rnd || !env->outnet ||
		!mesh_create(env, env->cfg->num_queries_per_thread) ||
		!modstack_init(st, env)) {
		log_err("cannot set up the resolver of a worker");
		worker_resolver_stop(env);
		return 0;
	}
	return 1;
}

void worker_resolver_reconfigure(struct module_env* env,
	const struct config_file* cfg, const struct iter_hints* hints,
	const struct val_anchors* anchors)
{
	env->cfg = cfg;
	env->hints = hints;
	env->anchors = anchors;
	modstack_reconfigure(env);
}

void worker_resolver_stop(struct module_env* env)
{
	mesh_delete(env->mesh);   /* modules clear their states; upstream
	                           * queries are cancelled */
	env->mesh = NULL;
	modstack_deinit(env);
	outside_network_delete(env->outnet);
	env->outnet = NULL;
	ub_randfree(env->rnd);
	env->rnd = NULL;
}
