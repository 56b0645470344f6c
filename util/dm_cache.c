/* SPDX-License-Identifier: BSD-3-Clause */
/* util/dm_cache.c - the direct-mapped byte-string cache (dm_cache.h). */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "util/dm_cache.h"

void dm_cache_init(struct dm_cache* c, size_t nslots, size_t max_bytes,
	int nocase)
{
	memset(c, 0, sizeof(*c));
	c->nslots = nslots ? nslots : 1;
	c->max_bytes = max_bytes;
	c->nocase = nocase;
}

static size_t key_len(const struct dm_part* part, size_t nparts)
{
	size_t i, n = 0;
	for(i = 0; i < nparts; i++)
		n += part[i].len;
	return n;
}

static int bytes_equal(const uint8_t* a, const uint8_t* b, size_t n,
	int nocase)
{
	size_t i;
	if(!nocase)
		return memcmp(a, b, n) == 0;
	for(i = 0; i < n; i++) {
		uint8_t x = a[i], y = b[i];
		if(x >= 'A' && x <= 'Z')
			x = (uint8_t)(x + 32);
		if(y >= 'A' && y <= 'Z')
			y = (uint8_t)(y + 32);
		if(x != y)
			return 0;
	}
	return 1;
}

struct dm_entry* dm_cache_find(const struct dm_cache* c, uint64_t hash,
	const struct dm_part* part, size_t nparts)
{
	struct dm_entry* e;
	size_t i, off = 0;
	if(!c->slot)
		return NULL;
	e = &c->slot[hash % c->nslots];
	if(!e->blob || e->hash != hash || e->len != key_len(part, nparts))
		return NULL;
	for(i = 0; i < nparts; i++) {
		if(!bytes_equal(e->blob + off, part[i].p, part[i].len,
			c->nocase))
			return NULL;
		off += part[i].len;
	}
	return e;
}

int dm_cache_put(struct dm_cache* c, uint64_t hash,
	const struct dm_part* part, size_t nparts, int64_t stamp)
{
	struct dm_entry* e;
	size_t i, off = 0, n = key_len(part, nparts);
	if(n > c->max_bytes)
		return 0;
	if(!c->slot && !(c->slot = calloc(c->nslots, sizeof(*c->slot))))
		return 0;
	e = &c->slot[hash % c->nslots];
	if(!e->blob || e->cap < n) {
		/* grow the slot's buffer; a smaller key reuses it */
		uint8_t* b = malloc(n ? n : 1);
		if(!b)
			return 0;
		free(e->blob);
		e->blob = b;
		e->cap = n;
	}
	for(i = 0; i < nparts; i++) {
		memcpy(e->blob + off, part[i].p, part[i].len);
		off += part[i].len;
	}
	e->len = n;
	e->hash = hash;
	e->stamp = stamp;
	return 1;
}

void dm_cache_clear(struct dm_cache* c)
{
	size_t i;
	if(c->slot)
		for(i = 0; i < c->nslots; i++)
			free(c->slot[i].blob);
	free(c->slot);
	c->slot = NULL;
}
