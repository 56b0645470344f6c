/* iterator/iter_env.c - one worker's resolver: its random state, its
 * outside network on the worker's event base, the mesh, and the shared
 * hints and caches it uses. */
#include "config.h"
#include "iterator/iterator.h"
#include "services/mesh.h"
#include "services/outside_network.h"
#include "services/cache/infra.h"
#include "util/config_file.h"
#include "util/log.h"
#include "util/random.h"
#include <string.h>

int iter_env_setup(struct iter_env* env, struct event_base* base,
	const struct config_file* cfg, const struct iter_hints* hints,
	struct port_pool* pool, struct infra_cache* infra,
	struct msg_cache* msg_cache, struct rrset_cache* rrset_cache)
{
	struct outnet_settings os;
	struct infra_settings is;
	memset(env, 0, sizeof(*env));
	env->cfg = cfg;
	env->hints = hints;
	env->infra = infra;
	env->msg_cache = msg_cache;
	env->rrset_cache = rrset_cache;
	env->do_ip4 = cfg->do_ip4;
	env->do_ip6 = cfg->do_ip6;
	infra_settings_from_cfg(cfg, &is);
	env->unknown_rtt = is.unknown_rtt;
	env->rnd = ub_initstate();
	outnet_settings_from_cfg(cfg, &os);
	if(env->rnd)
		env->outnet = outside_network_create(base, &os, pool, infra);
	if(!env->rnd || !env->outnet ||
		!mesh_create(env, cfg->num_queries_per_thread)) {
		log_err("cannot set up the resolver of a worker");
		iter_env_teardown(env);
		return 0;
	}
	return 1;
}

void iter_env_reconfigure(struct iter_env* env,
	const struct config_file* cfg, const struct iter_hints* hints)
{
	env->cfg = cfg;
	env->hints = hints;
	env->do_ip4 = cfg->do_ip4;
	env->do_ip6 = cfg->do_ip6;
	/* the root may be another one now */
	iter_env_clear(env);
}

void iter_env_teardown(struct iter_env* env)
{
	mesh_delete(env->mesh);            /* cancels its upstream queries */
	env->mesh = NULL;
	outside_network_delete(env->outnet);
	env->outnet = NULL;
	iter_env_clear(env);
	ub_randfree(env->rnd);
	env->rnd = NULL;
}
