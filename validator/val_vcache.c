/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_vcache.c - the per-thread cache of verified signatures
 * (see val_vcache.h for why it is exact). */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "validator/val_vcache.h"
#include "util/fnv.h"

static uint64_t triple_hash(const uint8_t* key, size_t keylen,
	const uint8_t* sig, size_t siglen, const uint8_t* data,
	size_t datalen)
{
	/* FNV-1a, 64 bits: it only spreads triples over slots */
	uint64_t h = fnv1a64(FNV64_START, key, keylen);
	h = fnv1a64(h, sig, siglen);
	h = fnv1a64(h, data, datalen);
	/* the lengths too: (ab, c) and (a, bc) are different triples */
	h ^= ((uint64_t)keylen << 48) ^ ((uint64_t)siglen << 32) ^
		(uint64_t)datalen;
	return h;
}

static int fits(size_t keylen, size_t siglen, size_t datalen)
{
	return keylen <= 0xffff && siglen <= 0xffff &&
		keylen + siglen + datalen <= VAL_VCACHE_MAX_BYTES;
}

int val_vcache_hit(struct val_vcache* vc, const uint8_t* key,
	size_t keylen, const uint8_t* sig, size_t siglen,
	const uint8_t* data, size_t datalen)
{
	uint64_t h;
	struct val_vcache_slot* s;
	if(!vc || !fits(keylen, siglen, datalen))
		return 0;
	h = triple_hash(key, keylen, sig, siglen, data, datalen);
	s = &vc->slot[h % VAL_VCACHE_SLOTS];
	if(s->blob && s->hash == h && s->keylen == keylen &&
		s->siglen == siglen && s->datalen == datalen &&
		memcmp(s->blob, key, keylen) == 0 &&
		memcmp(s->blob + keylen, sig, siglen) == 0 &&
		memcmp(s->blob + keylen + siglen, data, datalen) == 0) {
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
	uint64_t h;
	struct val_vcache_slot* s;
	uint8_t* b;
	if(!vc || !fits(keylen, siglen, datalen))
		return;
	h = triple_hash(key, keylen, sig, siglen, data, datalen);
	s = &vc->slot[h % VAL_VCACHE_SLOTS];
	/* reuse the slot's buffer when it is large enough */
	if(s->blob && (size_t)s->keylen + s->siglen + s->datalen >=
		keylen + siglen + datalen)
		b = s->blob;
	else {
		free(s->blob);
		s->blob = NULL;
		if(!(b = malloc(keylen + siglen + datalen)))
			return;
	}
	memcpy(b, key, keylen);
	memcpy(b + keylen, sig, siglen);
	memcpy(b + keylen + siglen, data, datalen);
	s->blob = b;
	s->hash = h;
	s->keylen = (uint16_t)keylen;
	s->siglen = (uint16_t)siglen;
	s->datalen = (uint32_t)datalen;
}

void val_vcache_clear(struct val_vcache* vc)
{
	size_t i;
	if(!vc)
		return;
	for(i = 0; i < VAL_VCACHE_SLOTS; i++)
		free(vc->slot[i].blob);
	memset(vc, 0, sizeof(*vc));
}
