/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_vcache.c - the per-thread cache of verified signatures
 * (see val_vcache.h for why it is exact), kept in a dm_cache. */
#include "config.h"
#include <string.h>
#include "validator/val_vcache.h"
#include "util/fnv.h"
#include "util/wire_int.h"

/* The key's pieces: the two lengths first, since (ab, c) and (a, bc)
 * are different triples; the data's length is the rest. */
static void triple_parts(struct dm_part part[4], uint8_t lens[4],
	const uint8_t* key, size_t keylen, const uint8_t* sig, size_t siglen,
	const uint8_t* data, size_t datalen)
{
	wire_wr16(lens, (uint16_t)keylen);
	wire_wr16(lens + 2, (uint16_t)siglen);
	part[0].p = lens; part[0].len = 4;
	part[1].p = key; part[1].len = keylen;
	part[2].p = sig; part[2].len = siglen;
	part[3].p = data; part[3].len = datalen;
}

/* FNV-1a, 64 bits: it only spreads triples over slots */
static uint64_t parts_hash(const struct dm_part part[4])
{
	uint64_t h = FNV64_START;
	size_t i;
	for(i = 0; i < 4; i++)
		h = fnv1a64(h, part[i].p, part[i].len);
	return h;
}

static int usable(struct val_vcache* vc, size_t keylen, size_t siglen)
{
	if(!vc || keylen > 0xffff || siglen > 0xffff)
		return 0;
	if(!vc->dm.nslots)   /* all zero: set up on first use */
		dm_cache_init(&vc->dm, VAL_VCACHE_SLOTS,
			4 + VAL_VCACHE_MAX_BYTES, 0);
	return 1;
}

int val_vcache_hit(struct val_vcache* vc, const uint8_t* key,
	size_t keylen, const uint8_t* sig, size_t siglen,
	const uint8_t* data, size_t datalen)
{
	struct dm_part part[4];
	uint8_t lens[4];
	if(!usable(vc, keylen, siglen))
		return 0;
	triple_parts(part, lens, key, keylen, sig, siglen, data, datalen);
	if(dm_cache_find(&vc->dm, parts_hash(part), part, 4)) {
		vc->hits++;
		return 1;
	}
	vc->misses++;
	return 0;
}

void val_vcache_add(struct val_vcache* vc, const uint8_t* key,
	size_t keylen, const uint8_t* sig, size_t siglen,
	const uint8_t* data, size_t datalen)
{
	struct dm_part part[4];
	uint8_t lens[4];
	if(!usable(vc, keylen, siglen))
		return;
	triple_parts(part, lens, key, keylen, sig, siglen, data, datalen);
	(void)dm_cache_put(&vc->dm, parts_hash(part), part, 4, 0);
}

void val_vcache_clear(struct val_vcache* vc)
{
	if(!vc)
		return;
	dm_cache_clear(&vc->dm);
	memset(vc, 0, sizeof(*vc));
}
