/* SPDX-License-Identifier: BSD-3-Clause */
/* services/cache/msgcache_key.h - internal to the message cache: the key
 * layout and byte helpers, inline because they are on the hit path. */
#ifndef SERVICES_CACHE_MSGCACHE_KEY_H
#define SERVICES_CACHE_MSGCACHE_KEY_H
#include <stdint.h>
#include <string.h>
#include "util/hash_mix.h"
#include "util/dname.h"
#include "util/msgparse.h"
#include "util/wire_int.h"

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
 * Works a word at a time: qname must be readable up to its length
 * rounded up to 8 (query_info's 256-byte array is), and key must hold
 * MSG_KEY_BUF bytes (the hash reads whole words too). */
#define MSG_KEY_BUF (LDNS_MAX_DOMAINLEN + 1 + 8)
static inline size_t msg_key_make(uint8_t* key, const uint8_t* qname,
	size_t qlen, uint16_t qtype, uint16_t qclass, uint8_t kf)
{
	size_t i;
	uint64_t w;
	for(i = 0; i < qlen; i += 8) {
		memcpy(&w, qname + i, 8);
		w = msg_lower8(w);
		memcpy(key + i, &w, 8);
	}
	wire_wr32(key + qlen, (uint32_t)qtype << 16 | qclass);
	key[qlen + 4] = kf;
	return qlen + 5;
}

/* The hash of a key; lower says whether qname still needs lowercasing
 * (a key msg_key_make made is lowercase already: the same hash without
 * redoing it). The name a word at a time (bytes past it masked off),
 * then the rest of the key. qname must be readable as msg_key_make
 * says. The final multiply spreads entropy into the top bits, which
 * pick the slab. The flag byte (CD, DO: 2 bits) only flips the
 * hash's lowest 2 bits: a question's variants sit in neighbouring
 * buckets of one slab, in one cache line, and a cache miss, which asks
 * for more than one of them (the worker without DO, the iterator with
 * it), reads that line from memory once. (Flipped, not set: set, every
 * question without flags would crowd into a quarter of the buckets.) */
static inline uint32_t msg_key_hash_of(uint32_t seed, const uint8_t* qname,
	size_t qlen, uint16_t qtype, uint16_t qclass, uint8_t kf, int lower)
{
	uint64_t h = seed, w;
	size_t i;
	for(i = 0; i + 8 <= qlen; i += 8) {
		memcpy(&w, qname + i, 8);
		h = hash_mix(h, lower ? msg_lower8(w) : w);
	}
	if(i < qlen) {
		unsigned garbage = 8 * (unsigned)(8 - (qlen - i));
		memcpy(&w, qname + i, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		w = w << garbage >> garbage;  /* name bytes are the low ones */
#else
		w = w >> garbage << garbage;
#endif
		h = (h ^ (lower ? msg_lower8(w) : w)) * HASH_MIX_MUL;
	}
	h ^= ((uint64_t)qtype << 32) ^ ((uint64_t)qclass << 48) ^ qlen;
	return hash_fold32(h) ^ (kf & 3);
}

/* The hash of the key msg_key_make would make, without making it. */
static inline uint32_t msg_key_hash(uint32_t seed, const uint8_t* qname,
	size_t qlen, uint16_t qtype, uint16_t qclass, uint8_t kf)
{
	return msg_key_hash_of(seed, qname, qlen, qtype, qclass, kf, 1);
}

#endif
