/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/iter_noncut.c - the per-worker record of names qname
 * minimisation found to be no zone cut (see iter_noncut.h). */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "iterator/iter_noncut.h"
#include "util/dname.h"
#include "util/fnv.h"

#define NAME_MAX_LEN 255

struct iter_noncut_slot {
	time_t expire;           /* 0: empty */
	size_t namelen, zonelen;
	uint8_t name[NAME_MAX_LEN + 1];
	uint8_t zone[NAME_MAX_LEN + 1];
};

/* FNV-1a over the lowercased name: it only picks the slot */
static size_t slot_of(const uint8_t* name, size_t len)
{
	return fnv1a32_lower(FNV32_START, name, len) % ITER_NONCUT_SLOTS;
}

void iter_noncut_add(struct iter_noncut* c, const uint8_t* name,
	const uint8_t* zone, uint32_t ttl, time_t now)
{
	size_t nl = dname_valid(name, NAME_MAX_LEN + 1);
	size_t zl = dname_valid(zone, NAME_MAX_LEN + 1);
	struct iter_noncut_slot* s;
	if(!nl || !zl || ttl == 0)
		return;
	if(!c->slot && !(c->slot = calloc(ITER_NONCUT_SLOTS,
		sizeof(*c->slot))))
		return;   /* only costs the minimised query */
	s = &c->slot[slot_of(name, nl)];
	memcpy(s->name, name, nl);
	memcpy(s->zone, zone, zl);
	s->namelen = nl;
	s->zonelen = zl;
	s->expire = now + (time_t)ttl;
}

int iter_noncut_known(const struct iter_noncut* c, const uint8_t* name,
	const uint8_t* zone, time_t now)
{
	size_t nl, zl;
	if(!c->slot || !(nl = dname_valid(name, NAME_MAX_LEN + 1)) ||
		!(zl = dname_valid(zone, NAME_MAX_LEN + 1)))
		return 0;
	return iter_noncut_known_len(c, name, nl, zone, zl, now);
}

int iter_noncut_known_len(const struct iter_noncut* c, const uint8_t* name,
	size_t nl, const uint8_t* zone, size_t zl, time_t now)
{
	const struct iter_noncut_slot* s;
	if(!c->slot)
		return 0;
	s = &c->slot[slot_of(name, nl)];
	/* lengths first, then the bytes (the lengths are known: no walks) */
	return s->expire > now && s->namelen == nl &&
		dname_same(s->name, name, nl) && s->zonelen == zl &&
		dname_same(s->zone, zone, zl);
}

void iter_noncut_clear(struct iter_noncut* c)
{
	free(c->slot);
	c->slot = NULL;
}
