/* SPDX-License-Identifier: BSD-3-Clause */
/* services/modstack.c - module-config parsing and the per-worker
 * module set-up (see the header). */
#include "config.h"
#include "services/modstack.h"
#include "services/mesh.h"
#include "services/outside_network.h"
#include "util/random.h"
#include "util/config_file.h"
#include "util/log.h"
#include "util/msgparse.h"
#include "util/strutil.h"
#include <stddef.h>
#include <stdio.h>
#include <string.h>

extern const struct module_func_block iter_module_block;
extern const struct module_func_block val_module_block;

static const struct module_func_block* const known[] = {
	&val_module_block,
	&iter_module_block,
};

#define DEFAULT_MODULES "validator iterator"

const struct module_func_block* modstack_find(const char* name)
{
	size_t i;
	for(i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if(strcmp(known[i]->name, name) == 0)
			return known[i];
	return NULL;
}

/* The next word of *p (blank separated) into w; 0 at the end. */
static int next_word(const char** p, char* w, size_t wlen)
{
	const char* s = *p;
	size_t n = 0;
	s = str_skip_blank(s);
	if(!*s)
		return 0;
	while(*s && *s != ' ' && *s != '\t') {
		if(n + 1 < wlen)
			w[n++] = *s;
		s++;
	}
	w[n] = 0;
	*p = s;
	return 1;
}

int modstack_parse(const char* conf,
	const struct module_func_block* mods[MODULE_MAX], int* n,
	char* err, size_t errlen)
{
	const char* p = conf ? conf : DEFAULT_MODULES;
	char w[64];
	*n = 0;
	while(next_word(&p, w, sizeof(w))) {
		const struct module_func_block* m = modstack_find(w);
		if(!m) {
			snprintf(err, errlen, "unknown module name \"%s\"", w);
			return 0;
		}
		if(*n >= MODULE_MAX) {
			snprintf(err, errlen, "too many modules in "
				"module-config (at most %d)", MODULE_MAX);
			return 0;
		}
		mods[(*n)++] = m;
	}
	if(*n == 0) {
		snprintf(err, errlen, "module-config lists no modules");
		return 0;
	}
	/* the iterator sends the queries: nothing can sit below it */
	if(mods[*n - 1] != &iter_module_block) {
		snprintf(err, errlen, "module-config must end with the "
			"iterator");
		return 0;
	}
	return 1;
}

int modstack_has(const char* conf, const char* name)
{
	const char* p = conf ? conf : DEFAULT_MODULES;
	char w[64];
	while(next_word(&p, w, sizeof(w)))
		if(strcmp(w, name) == 0)
			return 1;
	return 0;
}

int modstack_setup(struct module_env* env)
{
	char err[128];
	int i;
	if(!modstack_parse(env->cfg->module_conf, env->mods,
		&env->num_modules, err, sizeof(err))) {
		log_err("module-config: %s", err);
		env->num_modules = 0;
		return 0;
	}
	for(i = 0; i < env->num_modules; i++) {
		if(!env->mods[i]->init(env, i)) {
			log_err("module %s: cannot start", env->mods[i]->name);
			env->num_modules = i;
			modstack_teardown(env);
			return 0;
		}
	}
	return 1;
}

void modstack_teardown(struct module_env* env)
{
	int i;
	for(i = env->num_modules - 1; i >= 0; i--) {
		env->mods[i]->deinit(env, i);
		env->modinfo[i] = NULL;
	}
	env->num_modules = 0;
}

void modstack_env_reconfigure(struct module_env* env,
	const struct config_file* cfg, const struct iter_hints* hints,
	const struct val_anchors* anchors)
{
	int i;
	env->cfg = cfg;
	env->hints = hints;
	env->anchors = anchors;
	for(i = 0; i < env->num_modules; i++)
		if(env->mods[i]->reconfigure)
			env->mods[i]->reconfigure(env, i);
}

int modstack_env_start(struct module_env* env, struct event_base* base,
	struct port_pool* pool)
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
		!modstack_setup(env)) {
		log_err("cannot set up the resolver of a worker");
		modstack_env_stop(env);
		return 0;
	}
	return 1;
}

void modstack_env_stop(struct module_env* env)
{
	mesh_delete(env->mesh);   /* modules clear their states; upstream
	                           * queries are cancelled */
	env->mesh = NULL;
	modstack_teardown(env);
	outside_network_delete(env->outnet);
	env->outnet = NULL;
	ub_randfree(env->rnd);
	env->rnd = NULL;
}
