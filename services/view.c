/* SPDX-License-Identifier: BSD-3-Clause */
/* services/view.c - compat: unbound-1.17: view: clauses (services/view.h).
 * A handful of views per config at most in practice: a flat array, found
 * by name with a linear walk (only at build and by control commands; the
 * query path gets its view pointer from the access-control match). */
#include "config.h"
#include "services/view.h"
#include "services/localzone.h"
#include "util/config_file.h"
#include "util/log.h"
#include <stdlib.h>
#include <string.h>

void
views_delete(struct views* vs)
{
	size_t i;
	if(!vs)
		return;
	for(i = 0; i < vs->num; i++) {
		free(vs->v[i].name);
		local_zones_delete(vs->v[i].lz);
	}
	free(vs->v);
	free(vs);
}

struct view*
views_find(const struct views* vs, const char* name)
{
	size_t i;
	if(!vs || !name)
		return NULL;
	for(i = 0; i < vs->num; i++)
		if(strcmp(vs->v[i].name, name) == 0)
			return &vs->v[i];
	return NULL;
}

struct views*
views_create(struct config_file* cfg)
{
	struct views* vs = calloc(1, sizeof(*vs));
	struct config_view* cv;
	size_t n = 0;
	if(!vs) {
		log_err("out of memory");
		return NULL;
	}
	for(cv = cfg ? cfg->views : NULL; cv; cv = cv->next)
		n++;
	if(n && !(vs->v = calloc(n, sizeof(*vs->v)))) {
		log_err("out of memory");
		free(vs);
		return NULL;
	}
	for(cv = cfg ? cfg->views : NULL; cv; cv = cv->next) {
		struct view* v;
		if(!cv->name) {
			log_err("view without a name");
			goto fail;
		}
		if(views_find(vs, cv->name)) {
			/* compat: unbound-1.17: a warning, then Unbound
			 * fails to set up the views */
			log_warn("duplicate view: %s", cv->name);
			goto fail;
		}
		v = &vs->v[vs->num];
		if(!(v->name = strdup(cv->name))) {
			log_err("out of memory");
			goto fail;
		}
		vs->num++;
		v->isfirst = cv->view_first;
		/* compat: unbound-1.17: local zones only when the view has a
		 * local-zone or local-data line (local-data-ptr is local-data
		 * to Unbound's parser) */
		if((cv->local_zones || cv->local_data || cv->local_data_ptr) &&
			!(v->lz = local_zones_create_view(cv->local_zones,
			cv->local_data, cv->local_data_ptr, !v->isfirst,
			v->isfirst, cfg)))
			goto fail;
	}
	return vs;
fail:
	views_delete(vs);
	return NULL;
}

struct views*
views_copy(const struct views* vs)
{
	struct views* c = calloc(1, sizeof(*c));
	size_t i;
	if(!c)
		goto oom;
	if(vs && vs->num && !(c->v = calloc(vs->num, sizeof(*c->v))))
		goto oom;
	for(i = 0; vs && i < vs->num; i++) {
		struct view* v = &c->v[c->num];
		if(!(v->name = strdup(vs->v[i].name)))
			goto oom;
		c->num++;
		v->isfirst = vs->v[i].isfirst;
		if(vs->v[i].lz && !(v->lz = local_zones_copy(vs->v[i].lz)))
			goto oom;
	}
	return c;
oom:
	log_err("out of memory");
	views_delete(c);
	return NULL;
}

void
views_set_flags(struct views* vs, const struct config_file* cfg)
{
	size_t i;
	for(i = 0; vs && i < vs->num; i++)
		if(vs->v[i].lz)
			local_zones_set_flags(vs->v[i].lz, cfg);
}
