/* SPDX-License-Identifier: BSD-3-Clause */
/* services/cache/rate_zone.c - the ratelimit table per delegation point and
 * the per-name limits (see rate_zone.h). */
#include "config.h"
#include "services/cache/rate_zone.h"
#include "services/cache/rate_window.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/storage/lruhash.h"
#include <ldns/ldns.h>
#include <stdlib.h>
#include <string.h>

struct rate_zone_entry {
	struct lruhash_entry h;
	struct rate_window w;
	uint8_t name[];       /* the key: lowercased wire name */
};

struct rate_zone_table {
	struct lruhash* table;
};

static void entry_free(struct lruhash_entry* e, void* arg)
{
	(void)arg;
	free(e);
}

struct rate_zone_table* rate_zone_create(int slabs, size_t bytes)
{
	struct rate_zone_table* t;
	if(slabs < 1)
		return NULL;
	if(!(t = calloc(1, sizeof(*t))))
		return NULL;
	t->table = lruhash_create((size_t)slabs, bytes, entry_free, NULL);
	if(!t->table) {
		free(t);
		return NULL;
	}
	return t;
}

void rate_zone_delete(struct rate_zone_table* t)
{
	if(!t)
		return;
	lruhash_delete(t->table);
	free(t);
}

void rate_zone_set_max_mem(struct rate_zone_table* t, size_t bytes)
{
	lruhash_set_max_mem(t->table, bytes);
}

size_t rate_zone_mem(struct rate_zone_table* t)
{
	return t ? sizeof(*t) + lruhash_get_mem(t->table) : 0;
}

/* The key of zone: lowercased into key; its length, 0 if malformed. */
static size_t zone_key(const uint8_t* zone, size_t zonelen,
	uint8_t key[LDNS_MAX_DOMAINLEN + 1], uint32_t* hash)
{
	if(zonelen == 0 || zonelen > LDNS_MAX_DOMAINLEN + 1 ||
		dname_valid(zone, zonelen) != zonelen)
		return 0;
	memcpy(key, zone, zonelen);
	dname_tolower(key);
	*hash = dname_hash(key, 0xab);
	return zonelen;
}

struct make_arg {
	time_t now;
};

/* lruhash_make_func: a zone counted for the first time (one query). */
static struct lruhash_entry* entry_make(uint32_t hash, const uint8_t* key,
	uint16_t keylen, void* arg)
{
	const struct make_arg* m = arg;
	struct rate_zone_entry* e = malloc(sizeof(*e) + keylen);
	if(!e)
		return NULL;
	memcpy(e->name, key, keylen);
	lruhash_entry_init(&e->h, hash, e->name, keylen, sizeof(*e) + keylen);
	memset(&e->w, 0, sizeof(e->w));
	rate_window_first(&e->w, m->now);
	/* rate_zone_inc counts this query itself */
	e->w.qps[0] = 0;
	return &e->h;
}

int rate_zone_inc(struct rate_zone_table* t, const uint8_t* zone,
	size_t zonelen, time_t now, int backoff, uint32_t limit, int* crossed)
{
	uint8_t key[LDNS_MAX_DOMAINLEN + 1];
	uint32_t hash;
	size_t n = zone_key(zone, zonelen, key, &hash);
	struct make_arg m = { now };
	struct lruhash_entry* h;
	int ok;
	*crossed = 0;
	if(n == 0 || !(h = lruhash_lock_entry(t->table, hash, key,
		(uint16_t)n, entry_make, &m)))
		return 1;
	ok = rate_window_inc(&((struct rate_zone_entry*)h)->w, now, backoff,
		limit, crossed);
	lruhash_unlock_entry(t->table, h);
	return ok;
}

void rate_zone_dec(struct rate_zone_table* t, const uint8_t* zone,
	size_t zonelen, time_t now)
{
	uint8_t key[LDNS_MAX_DOMAINLEN + 1];
	uint32_t hash;
	size_t n = zone_key(zone, zonelen, key, &hash);
	struct lruhash_entry* h;
	if(n == 0 || !(h = lruhash_lock_entry(t->table, hash, key,
		(uint16_t)n, NULL, NULL)))
		return;
	rate_window_dec(&((struct rate_zone_entry*)h)->w, now);
	lruhash_unlock_entry(t->table, h);
}

struct walk_arg {
	time_t now;
	int backoff;
	rate_zone_walk_fn fn;
	void* arg;
};

static int walk_one(struct lruhash_entry* h, void* arg)
{
	const struct walk_arg* a = arg;
	const struct rate_zone_entry* e = (const struct rate_zone_entry*)h;
	a->fn(e->name, rate_window_max(&e->w, a->now, a->backoff), a->arg);
	return 0;
}

void rate_zone_walk(struct rate_zone_table* t, time_t now, int backoff,
	rate_zone_walk_fn fn, void* arg)
{
	struct walk_arg a = { now, backoff, fn, arg };
	(void)lruhash_walk(t->table, walk_one, &a);
}

/* ---- per-name limits ---- */

struct rate_domain {
	uint8_t name[LDNS_MAX_DOMAINLEN + 1];  /* lowercased wire */
	size_t len;
	int lim;     /* ratelimit-for-domain, -1: none */
	int below;   /* ratelimit-below-domain, -1: none */
};

struct rate_domains {
	size_t num;
	struct rate_domain d[];  /* sorted by (len, bytes) */
};

static int domain_cmp(const void* a, const void* b)
{
	const struct rate_domain* x = a;
	const struct rate_domain* y = b;
	if(x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return memcmp(x->name, y->name, x->len);
}

static struct rate_domain* domain_find(struct rate_domains* d,
	const uint8_t* name, size_t len)
{
	struct rate_domain k;
	if(d->num == 0)
		return NULL;
	k.len = len;
	memcpy(k.name, name, len);
	return bsearch(&k, d->d, d->num, sizeof(d->d[0]), domain_cmp);
}

/* Add (or update) one name; 0 when it does not parse. */
static int domain_add(struct rate_domains* d, const char* str,
	const char* val, int below)
{
	uint8_t nm[LDNS_MAX_DOMAINLEN + 1];
	size_t len = dname_from_str(str, nm), i;
	struct rate_domain* e = NULL;
	if(len == 0)
		return 0;
	dname_tolower(nm);
	/* few names: a linear search while building */
	for(i = 0; i < d->num; i++)
		if(d->d[i].len == len && memcmp(d->d[i].name, nm, len) == 0)
			e = &d->d[i];
	if(!e) {
		e = &d->d[d->num++];
		memcpy(e->name, nm, len);
		e->len = len;
		e->lim = e->below = -1;
	}
	if(below)
		e->below = atoi(val);
	else	e->lim = atoi(val);
	return 1;
}

struct rate_domains* rate_domains_create(const struct config_file* cfg)
{
	const struct config_str2list* p;
	size_t n = 0;
	struct rate_domains* d;
	for(p = cfg->ratelimit_for_domain; p; p = p->next)
		n++;
	for(p = cfg->ratelimit_below_domain; p; p = p->next)
		n++;
	d = calloc(1, sizeof(*d) + n * sizeof(d->d[0]));
	if(!d) {
		log_err("out of memory for the ratelimit domains");
		return NULL;
	}
	for(p = cfg->ratelimit_for_domain; p; p = p->next)
		(void)domain_add(d, p->str, p->str2, 0);
	for(p = cfg->ratelimit_below_domain; p; p = p->next)
		(void)domain_add(d, p->str, p->str2, 1);
	qsort(d->d, d->num, sizeof(d->d[0]), domain_cmp);
	return d;
}

void rate_domains_delete(struct rate_domains* d)
{
	free(d);
}

int rate_domains_limit(const struct rate_domains* d, const uint8_t* zone,
	int deflt)
{
	uint8_t nm[LDNS_MAX_DOMAINLEN + 1];
	const uint8_t* p;
	size_t len;
	struct rate_domain* e;
	if(!d || d->num == 0)
		return deflt;
	len = dname_valid(zone, LDNS_MAX_DOMAINLEN + 1);
	if(len == 0)
		return deflt;
	memcpy(nm, zone, len);
	dname_tolower(nm);
	e = domain_find((struct rate_domains*)d, nm, len);
	if(e && e->lim != -1)
		return e->lim;
	/* the enclosing names, closest first */
	p = nm;
	while(*p) {
		len -= (size_t)*p + 1;
		p += *p + 1;
		e = domain_find((struct rate_domains*)d, p, len);
		if(e && e->below != -1)
			return e->below;
	}
	return deflt;
}
