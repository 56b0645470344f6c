/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/iter_noncut.c - the per-worker record of names qname
 * minimisation found to be no zone cut (see iter_noncut.h), kept in a
 * dm_cache: the key is the name then the zone (wire names delimit
 * themselves), compared without case. */
#include "config.h"
#include "iterator/iter_noncut.h"
#include "util/dname.h"
#include "util/fnv.h"

#define NAME_MAX_LEN 255

/* FNV-1a over the lowercased name: it only picks the slot */
static uint64_t slot_hash(const uint8_t* name, size_t len)
{
	return fnv1a32_lower(FNV32_START, name, len);
}

void iter_noncut_add(struct iter_noncut* c, const uint8_t* name,
	const uint8_t* zone, uint32_t ttl, time_t now)
{
	size_t nl = dname_valid(name, NAME_MAX_LEN + 1);
	size_t zl = dname_valid(zone, NAME_MAX_LEN + 1);
	struct dm_part part[2] = { { name, nl }, { zone, zl } };
	if(!nl || !zl || ttl == 0)
		return;
	if(!c->dm.nslots)   /* all zero: set up on first use */
		dm_cache_init(&c->dm, ITER_NONCUT_SLOTS, 2 * (NAME_MAX_LEN + 1), 1);
	/* not kept (out of memory): only costs the minimised query */
	(void)dm_cache_put(&c->dm, slot_hash(name, nl), part, 2,
		(int64_t)now + ttl);
}

int iter_noncut_known(const struct iter_noncut* c, const uint8_t* name,
	const uint8_t* zone, time_t now)
{
	size_t nl, zl;
	if(!c->dm.slot || !(nl = dname_valid(name, NAME_MAX_LEN + 1)) ||
		!(zl = dname_valid(zone, NAME_MAX_LEN + 1)))
		return 0;
	return iter_noncut_known_len(c, name, nl, zone, zl, now);
}

int iter_noncut_known_len(const struct iter_noncut* c, const uint8_t* name,
	size_t nl, const uint8_t* zone, size_t zl, time_t now)
{
	struct dm_part part[2] = { { name, nl }, { zone, zl } };
	const struct dm_entry* e;
	if(!c->dm.slot)
		return 0;
	e = dm_cache_find(&c->dm, slot_hash(name, nl), part, 2);
	return e && e->stamp > (int64_t)now;
}

void iter_noncut_clear(struct iter_noncut* c)
{
	dm_cache_clear(&c->dm);
}
