/* services/cache/msgcache_key.h - internal to the message cache: the key
 * layout and byte helpers, inline because they are on the hit path. */
#ifndef SERVICES_CACHE_MSGCACHE_KEY_H
#define SERVICES_CACHE_MSGCACHE_KEY_H
#include <stdint.h>
#include <string.h>
#include "util/dname.h"
#include "util/msgparse.h"

static inline uint16_t msg_rd16(const uint8_t* p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static inline uint32_t msg_rd32(const uint8_t* p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return __builtin_bswap32(v);
}

static inline void msg_wr16(uint8_t* p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void msg_wr32(uint8_t* p, uint32_t v)
{
	v = __builtin_bswap32(v);
	memcpy(p, &v, 4);
}

/* Lowercase ASCII A-Z in 8 bytes at once (label length bytes are at
 * most 63, below 'A', so a whole wire name can go through). */
static inline uint64_t msg_lower8(uint64_t w)
{
	const uint64_t h = 0x8080808080808080ULL, m = 0x7f7f7f7f7f7f7f7fULL;
	uint64_t t = w & m;
	uint64_t ge_a = t + 0x3f3f3f3f3f3f3f3fULL;
	uint64_t gt_z = t + 0x2525252525252525ULL;
	return w | (((ge_a ^ gt_z) & ~w & h) >> 2);
}

static inline uint8_t msg_key_flags(const struct query_info* qi)
{
	return (uint8_t)(((qi->flags & FLAG_CD) ? MSG_KEY_CD : 0) |
		(qi->edns_do ? MSG_KEY_DO : 0));
}

/* key = lowercased qname, qtype, qclass, flag byte; returns its length.
 * key holds MSG_KEY_MAX bytes. */
static inline size_t msg_key_make(uint8_t* key, const uint8_t* qname,
	size_t qlen, uint16_t qtype, uint16_t qclass, uint8_t kf)
{
	size_t i;
	uint64_t w;
	for(i = 0; i + 8 <= qlen; i += 8) {
		memcpy(&w, qname + i, 8);
		w = msg_lower8(w);
		memcpy(key + i, &w, 8);
	}
	for(; i < qlen; i++) {
		uint8_t ch = qname[i];
		key[i] = (uint8_t)((unsigned)(ch - 'A') < 26u ? ch | 0x20 : ch);
	}
	msg_wr16(key + qlen, qtype);
	msg_wr16(key + qlen + 2, qclass);
	key[qlen + 4] = kf;
	return qlen + 5;
}

/* dname_hash (case-insensitive) mixed with the rest of the key; the
 * multiply moves entropy into the top bits, which pick the slab. */
static inline uint32_t msg_key_hash(uint32_t seed, const uint8_t* qname,
	uint16_t qtype, uint16_t qclass, uint8_t kf)
{
	uint64_t x = dname_hash(qname, seed);
	x ^= ((uint64_t)qtype << 40) ^ ((uint64_t)qclass << 56) ^
		((uint64_t)kf << 32);
	x *= 0x9E3779B97F4A7C15ULL;
	x ^= x >> 29;
	x *= 0xBF58476D1CE4E5B9ULL;
	return (uint32_t)(x >> 32);
}

#endif
