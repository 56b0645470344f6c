/* SPDX-License-Identifier: BSD-3-Clause */
/* util/config_copy.c - a deep copy of a config_file, for the runtime
 * changes of the remote control (set_option, forward_add, ...): a new
 * snapshot is made from a copy with the change applied, never by writing
 * to the config that workers may be reading. The option table says which
 * fields hold strings and lists, so a new option needs no code here. */
#include "config.h"
#include "util/config_file.h"
#include "util/config_options.h"
#include <stdlib.h>
#include <string.h>

/* Lists are copied with a tail pointer: appending one by one would walk
 * the list each time (100,000 local-data lines). */
static int strlist_copy(struct config_strlist** dst,
	const struct config_strlist* s)
{
	struct config_strlist** tail = dst;
	*dst = NULL;
	for(; s; s = s->next) {
		struct config_strlist* n = calloc(1, sizeof(*n));
		if(!n)
			return 0;
		*tail = n;
		tail = &n->next;
		if(s->str && !(n->str = strdup(s->str)))
			return 0;
	}
	return 1;
}

static int str2list_copy(struct config_str2list** dst,
	const struct config_str2list* s)
{
	struct config_str2list** tail = dst;
	*dst = NULL;
	for(; s; s = s->next) {
		struct config_str2list* n = calloc(1, sizeof(*n));
		if(!n)
			return 0;
		*tail = n;
		tail = &n->next;
		if((s->str && !(n->str = strdup(s->str))) ||
			(s->str2 && !(n->str2 = strdup(s->str2))))
			return 0;
	}
	return 1;
}

/* dst is a memcpy of src: replace each string and list the table knows
 * by a copy. A field shared by two rows (aliases) is copied once: after
 * the first copy it no longer equals src's pointer. On failure the
 * fields not yet copied are set to NULL, so dst can be freed. */
static int copy_fields(void* dst, const void* src, unsigned clause)
{
	size_t i;
	int ok = 1;
	for(i = 0; i < cfg_options_num; i++) {
		const struct cfg_option* o = &cfg_options[i];
		void** d, *const* s;
		if(!(o->clauses & clause) || o->off == CFG_NOFIELD ||
			o->type == CT_CLAUSE || (o->type != CT_STR &&
			o->type != CT_STRLIST && o->type != CT_STR2LIST &&
			o->type != CT_STR3))
			continue;
		d = (void**)((char*)dst + o->off);
		s = (void* const*)((const char*)src + o->off);
		if(*d != *s || !*s)
			continue;
		if(!ok)
			*d = NULL;
		else if(o->type == CT_STR) {
			if(!(*d = strdup(*s)))
				ok = 0;
		} else if(o->type == CT_STRLIST && !(o->flags & CFGF_NAMED))
			ok = strlist_copy((struct config_strlist**)d, *s);
		else	ok = str2list_copy((struct config_str2list**)d, *s);
	}
	return ok;
}

/* Copy a list of clause structs of size sz (next pointer first). */
static int clauses_copy(void** dst, const void* src, size_t sz,
	unsigned clause)
{
	void** tail = dst;
	*dst = NULL;
	for(; src; src = *(void* const*)src) {
		void* n = malloc(sz);
		if(!n)
			return 0;
		memcpy(n, src, sz);
		*(void**)n = NULL;
		*tail = n;
		tail = (void**)n;
		if(!copy_fields(n, src, clause))
			return 0;
	}
	return 1;
}

struct config_file* config_copy(const struct config_file* cfg)
{
	struct config_file* c = malloc(sizeof(*c));
	int ok;
	if(!c)
		return NULL;
	memcpy(c, cfg, sizeof(*c));
	c->filename = NULL;
	c->module_conf_where = NULL;
	c->local_zones_nodefault = NULL;
	c->unimplemented = NULL;
	c->notbuilt = NULL;
	c->stubs = c->forwards = NULL;
	c->views = NULL;
	c->auths = NULL;
	ok = copy_fields(c, cfg, CL_FIELDS);
	ok = ok && (!cfg->filename || (c->filename = strdup(cfg->filename)));
	ok = ok && (!cfg->module_conf_where || (c->module_conf_where =
		strdup(cfg->module_conf_where)));
	ok = ok && strlist_copy(&c->local_zones_nodefault,
		cfg->local_zones_nodefault);
	ok = ok && str2list_copy(&c->unimplemented, cfg->unimplemented);
	ok = ok && str2list_copy(&c->notbuilt, cfg->notbuilt);
	ok = ok && clauses_copy((void**)&c->stubs, cfg->stubs,
		sizeof(struct config_stub), CL_STUB);
	ok = ok && clauses_copy((void**)&c->forwards, cfg->forwards,
		sizeof(struct config_stub), CL_FORWARD);
	ok = ok && clauses_copy((void**)&c->views, cfg->views,
		sizeof(struct config_view), CL_VIEW);
	ok = ok && clauses_copy((void**)&c->auths, cfg->auths,
		sizeof(struct config_auth), CL_AUTH | CL_RPZ);
	if(!ok) {
		config_delete(c);
		return NULL;
	}
	return c;
}
