/* SPDX-License-Identifier: BSD-3-Clause */
/* services/modstack.c - the table of modules, module-config parsing, and
 * the loops that start and stop the stack per daemon and per worker (see
 * the header). */
#include "config.h"
#include "services/modstack.h"
#include "util/config_file.h"
#include "util/log.h"
#include "util/strutil.h"
#include "util/msgparse.h"
#include "util/edns_pad.h"
#include <stdio.h>
#include <string.h>

extern const struct module_func_block iter_module_block;
extern const struct module_func_block val_module_block;
extern const struct module_func_block dns64_module_block;
extern const struct module_func_block subnetcache_module_block;
extern const struct module_func_block cachedb_module_block;
extern const struct module_func_block respip_module_block;

/* Every module of this build: one line each. The order is only that of
 * the search. */
static const struct module_func_block* const known[] = {
	&respip_module_block,
	&dns64_module_block,
	&subnetcache_module_block,
	&val_module_block,
	&cachedb_module_block,
	&iter_module_block,
};

#define DEFAULT_MODULES "validator iterator"

const struct module_func_block* modstack_known(size_t i)
{
	return i < sizeof(known) / sizeof(known[0]) ? known[i] : NULL;
}

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

static int count_words(const char* p)
{
	char w[64];
	int n = 0;
	while(next_word(&p, w, sizeof(w)))
		n++;
	return n;
}

int modstack_parse(const char* conf,
	const struct module_func_block* mods[MODULE_MAX], int* n,
	char* err, size_t errlen)
{
	const char* p = conf ? conf : DEFAULT_MODULES;
	int count = count_words(p);
	char w[64];
	*n = 0;
	/* compat: unbound-1.17: the count first, then the names, in
	 * Unbound's words */
	if(count == 0) {
		snprintf(err, errlen, "no modules specified");
		return 0;
	}
	if(count > MODULE_MAX) {
		snprintf(err, errlen, "too many modules (%d max %d)", count,
			MODULE_MAX);
		return 0;
	}
	while(next_word(&p, w, sizeof(w))) {
		const struct module_func_block* m = modstack_find(w);
		if(!m) {
			snprintf(err, errlen, "Unknown value in module-config, "
				"module: '%s'. This module is not present (not "
				"compiled in), See the list of linked modules "
				"with unbound -V", w);
			return 0;
		}
		mods[(*n)++] = m;
	}
	/* the iterator sends the queries: nothing can sit below it */
	if(mods[*n - 1] != &iter_module_block) {
		snprintf(err, errlen, "the iterator must be the last "
			"module");
		return 0;
	}
	return 1;
}

int modstack_check_needs(const struct config_file* cfg,
	const struct module_func_block* const mods[], int n, char* err,
	size_t errlen)
{
	int i, has_respip = 0, uses_respip;
	const struct config_view* v;
	const struct config_auth* a;
	for(i = 0; i < n; i++)
		if(mods[i] == &respip_module_block)
			has_respip = 1;
	uses_respip = cfg->respip_actions || cfg->respip_data;
	/* compat: unbound-1.17: a view's response-ip lines count too */
	for(v = cfg->views; v && !uses_respip; v = v->next)
		uses_respip = v->respip_actions || v->respip_data;
	if(uses_respip && !has_respip) {
		snprintf(err, errlen, "response-ip options require respip "
			"module");
		return 0;
	}
	/* compat: unbound-1.17: its response-ip triggers need the module,
	 * so an rpz: clause without it is refused at start */
	for(a = cfg->auths; a && !has_respip; a = a->next)
		if(a->isrpz) {
			snprintf(err, errlen, "RPZ requires the respip module");
			return 0;
		}
	return 1;
}

int modstack_check_cfg(const struct config_file* cfg)
{
	const struct module_func_block* mods[MODULE_MAX];
	char err[256];
	int n;
	if(modstack_parse(cfg->module_conf, mods, &n, err, sizeof(err)))
		return 1;
	fprintf(stderr, "%s: error: module-config: %s\n",
		cfg->module_conf_where ? cfg->module_conf_where :
		(cfg->filename ? cfg->filename : "config"), err);
	return 0;
}

int modstack_check_start(const struct config_file* cfg)
{
	const struct module_func_block* mods[MODULE_MAX];
	char err[256];
	int n;
	if(!modstack_parse(cfg->module_conf, mods, &n, err, sizeof(err)))
		return 0;   /* modstack_check_cfg said why */
	if(modstack_check_needs(cfg, mods, n, err, sizeof(err)))
		return 1;
	log_err("%s", err);
	return 0;
}

int modstack_startup(struct modstack* st, const struct config_file* cfg)
{
	char err[256];
	int i;
	memset(st, 0, sizeof(*st));
	if(!modstack_parse(cfg->module_conf, st->mods, &st->num, err,
		sizeof(err))) {
		log_err("module-config: %s", err);
		st->num = 0;
		return 0;
	}
	for(i = 0; i < st->num; i++) {
		const struct module_func_block* m = st->mods[i];
		if(m->startup && !(st->global[i] = m->startup(cfg))) {
			log_err("module startup for module %s failed",
				m->name);
			modstack_destartup(st);
			return 0;
		}
		st->started = i + 1;
		st->validates |= m->validates;
		/* respip: the cache answers, its reply is filtered */
		if(m->filter_reply)
			st->query_before_cache = 1;
		if(m->needs_query_before_cache) {
			uint16_t opt = 0;
			if(m->needs_query_before_cache(cfg, &opt)) {
				st->query_before_cache = 1;
				if(opt)
					st->query_before_cache_opt = opt;
				else	st->query_before_cache_all = 1;
			}
		}
	}
	return 1;
}

int modstack_checks_before_stale(const struct modstack* st,
	const struct config_file* cfg)
{
	int i;
	for(i = 0; i < st->num; i++)
		if(st->mods[i]->checks_before_stale &&
			st->mods[i]->checks_before_stale(cfg))
			return 1;
	return 0;
}

void modstack_destartup(struct modstack* st)
{
	int i;
	for(i = st->started - 1; i >= 0; i--) {
		if(st->mods[i]->destartup)
			st->mods[i]->destartup(st->global[i]);
		st->global[i] = NULL;
	}
	st->started = 0;
}

void modstack_reload_prepare(const struct modstack* st,
	const struct config_file* cfg, struct modstack_prep* prep)
{
	int i;
	memset(prep, 0, sizeof(*prep));
	for(i = 0; i < st->started; i++)
		if(st->mods[i]->reload_prepare)
			prep->p[i] = st->mods[i]->reload_prepare(st->global[i],
				cfg);
}

void modstack_reload_discard(const struct modstack* st,
	struct modstack_prep* prep)
{
	int i;
	for(i = 0; i < st->started; i++) {
		if(prep->p[i] && st->mods[i]->reload_discard)
			st->mods[i]->reload_discard(st->global[i], prep->p[i]);
		prep->p[i] = NULL;
	}
}

void modstack_reload_global(const struct modstack* st,
	const struct config_file* cfg, struct modstack_prep* prep)
{
	int i;
	for(i = 0; i < st->started; i++) {
		void* p = prep ? prep->p[i] : NULL;
		if(prep)
			prep->p[i] = NULL;
		if(st->mods[i]->reload_global)
			(void)st->mods[i]->reload_global(st->global[i], cfg, p);
		else if(p && st->mods[i]->reload_discard)
			st->mods[i]->reload_discard(st->global[i], p);
	}
}

int modstack_init(const struct modstack* st, struct module_env* env)
{
	int i;
	env->num_modules = 0;
	env->validating = st->validates;
	for(i = 0; i < st->num; i++) {
		env->mods[i] = st->mods[i];
		env->modglobal[i] = st->global[i];
		env->modinfo[i] = NULL;
	}
	for(i = 0; i < st->num; i++) {
		env->num_modules = i + 1;
		if(!env->mods[i]->init(env, i)) {
			log_err("module %s: cannot start", env->mods[i]->name);
			env->num_modules = i;
			modstack_deinit(env);
			return 0;
		}
	}
	return 1;
}

void modstack_deinit(struct module_env* env)
{
	int i;
	for(i = env->num_modules - 1; i >= 0; i--) {
		env->mods[i]->deinit(env, i);
		env->modinfo[i] = NULL;
	}
	env->num_modules = 0;
}

void modstack_reconfigure(struct module_env* env)
{
	int i;
	for(i = 0; i < env->num_modules; i++)
		if(env->mods[i]->reconfigure)
			env->mods[i]->reconfigure(env, i);
}

enum module_reply_verdict modstack_filter_reply(struct module_env* env,
	const struct module_reply_client* client, uint8_t* pkt, size_t* len,
	size_t cap)
{
	enum module_reply_verdict v = MODULE_REPLY_KEEP;
	int i;
	for(i = 0; i < env->num_modules; i++) {
		enum module_reply_verdict r;
		if(!env->mods[i]->filter_reply)
			continue;
		r = env->mods[i]->filter_reply(env, i, client, pkt, len, cap);
		/* a search's first match decides too */
		if(r == MODULE_REPLY_DROP || r == MODULE_REPLY_MATCHED)
			return r;
		/* a CNAME to chase is the last change: it is chased */
		if(r == MODULE_REPLY_CHASE || r == MODULE_REPLY_ALIAS)
			return r;
		if(r == MODULE_REPLY_CHANGED)
			v = r;
	}
	return v;
}

enum module_reply_verdict modstack_answer_query(struct module_env* env,
	const struct module_reply_client* client, uint8_t* pkt, size_t* len,
	size_t cap)
{
	int i;
	for(i = 0; i < env->num_modules; i++) {
		enum module_reply_verdict r;
		if(!env->mods[i]->answer_query)
			continue;
		r = env->mods[i]->answer_query(env, i, client, pkt, len, cap);
		if(r != MODULE_REPLY_KEEP)
			return r;
	}
	return MODULE_REPLY_KEEP;
}

size_t modstack_flush(const struct modstack* st, const uint8_t* zone,
	enum module_flush kind)
{
	size_t n = 0;
	int i;
	for(i = 0; i < st->started; i++)
		if(st->mods[i]->flush)
			n += st->mods[i]->flush(st->global[i], zone, kind);
	return n;
}

size_t modstack_get_mem(const struct modstack* st, const char* name)
{
	int i;
	for(i = 0; i < st->started; i++)
		if(st->mods[i]->get_mem && strcmp(st->mods[i]->name, name) == 0)
			return st->mods[i]->get_mem(st->global[i]);
	return 0;
}

void modstack_cache_info(const struct modstack* st,
	struct module_cache_info* info)
{
	int i;
	memset(info, 0, sizeof(*info));
	for(i = 0; i < st->started; i++)
		if(st->mods[i]->cache_info)
			st->mods[i]->cache_info(st->global[i], info);
}

int modstack_skips_cache(const struct modstack* st,
	const struct query_info* qi)
{
	const uint8_t* d;
	if(st->query_before_cache_all)
		return 1;
	if(!st->query_before_cache_opt)
		return 0;   /* only a reply filter (respip) set the flag */
	return qi->has_edns && qi->pkt && edns_get_option(qi->pkt,
		qi->pkt_len, st->query_before_cache_opt, &d) >= 0;
}
