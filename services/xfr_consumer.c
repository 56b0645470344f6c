/* SPDX-License-Identifier: BSD-3-Clause */
/* services/xfr_consumer.c - the registry of zones modules want
 * transferred (see the header): a process-wide list under a lock,
 * changed at startup and reload, read when transfers start. */
#include "config.h"
#include "services/xfr_consumer.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	struct xfr_consumer c;   /* pointers into the fields below */
	uint8_t zone[256];
	struct config_strlist* primaries;
	struct config_strlist* allow_notify;
	struct config_strlist* urls;
	char* zonefile;
	struct entry* next;
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry* reg_first;

static void strlist_delete(struct config_strlist* l)
{
	while(l) {
		struct config_strlist* n = l->next;
		free(l->str);
		free(l);
		l = n;
	}
}

static struct config_strlist* strlist_copy(const struct config_strlist* l,
	int* ok)
{
	struct config_strlist* first = NULL, **at = &first;
	for(; l; l = l->next) {
		struct config_strlist* n = calloc(1, sizeof(*n));
		if(!n || !(n->str = strdup(l->str))) {
			free(n);
			*ok = 0;
			return first;
		}
		*at = n;
		at = &n->next;
	}
	return first;
}

static void entry_delete(struct entry* e)
{
	if(!e)
		return;
	strlist_delete(e->primaries);
	strlist_delete(e->allow_notify);
	strlist_delete(e->urls);
	free(e->zonefile);
	free(e);
}

int xfr_consumer_register(const struct xfr_consumer* c)
{
	struct entry* e = calloc(1, sizeof(*e)), **at;
	int ok = 1;
	size_t len = dname_valid(c->zone, sizeof(e->zone));
	if(!e || !len)
		goto fail;
	e->c = *c;
	memcpy(e->zone, c->zone, len);
	e->c.zone = e->zone;
	e->primaries = strlist_copy(c->primaries, &ok);
	e->allow_notify = strlist_copy(c->allow_notify, &ok);
	e->urls = strlist_copy(c->urls, &ok);
	if(c->zonefile && !(e->zonefile = strdup(c->zonefile)))
		ok = 0;
	if(!ok)
		goto fail;
	e->c.primaries = e->primaries;
	e->c.allow_notify = e->allow_notify;
	e->c.urls = e->urls;
	e->c.zonefile = e->zonefile;
	pthread_mutex_lock(&reg_lock);
	for(at = &reg_first; *at; at = &(*at)->next)
		if((*at)->c.arg == c->arg &&
			query_dname_compare((*at)->zone, e->zone) == 0) {
			struct entry* old = *at;
			e->next = old->next;
			*at = e;
			pthread_mutex_unlock(&reg_lock);
			entry_delete(old);
			return 1;
		}
	*at = e;
	pthread_mutex_unlock(&reg_lock);
	return 1;
fail:
	entry_delete(e);
	log_err("out of memory");
	return 0;
}

void xfr_consumer_unregister(void* arg)
{
	struct entry** at, *gone = NULL;
	pthread_mutex_lock(&reg_lock);
	for(at = &reg_first; *at; ) {
		struct entry* e = *at;
		if(e->c.arg != arg) {
			at = &e->next;
			continue;
		}
		*at = e->next;
		e->next = gone;
		gone = e;
	}
	pthread_mutex_unlock(&reg_lock);
	while(gone) {
		struct entry* n = gone->next;
		entry_delete(gone);
		gone = n;
	}
}

int xfr_consumer_each(int (*fn)(void* farg, const struct xfr_consumer* c),
	void* farg)
{
	struct entry* e;
	int ok = 1;
	pthread_mutex_lock(&reg_lock);
	for(e = reg_first; e && ok; e = e->next)
		ok = fn(farg, &e->c);
	pthread_mutex_unlock(&reg_lock);
	return ok;
}

int xfr_consumer_any(void)
{
	struct entry* e;
	int any;
	pthread_mutex_lock(&reg_lock);
	any = 0;
	for(e = reg_first; e; e = e->next)
		if(e->c.primaries || e->c.urls)
			any = 1;
	pthread_mutex_unlock(&reg_lock);
	return any;
}
