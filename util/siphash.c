/* SPDX-License-Identifier: BSD-3-Clause */
/* util/siphash.c - SipHash-2-4, written from the paper's description
 * ("SipHash: a fast short-input PRF", section 2): two compression rounds
 * per 8-byte word, four finalization rounds. */
#include "config.h"
#include "util/siphash.h"
#include <string.h>

static inline uint64_t rotl64(uint64_t x, int b)
{
	return (x << b) | (x >> (64 - b));
}

/* 8 bytes at p as a little-endian word */
static inline uint64_t le64(const uint8_t* p)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
#else
	return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
		(uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 |
		(uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
		(uint64_t)p[7] << 56;
#endif
}

#define SIPROUND do { \
	v0 += v1; v1 = rotl64(v1, 13); v1 ^= v0; v0 = rotl64(v0, 32); \
	v2 += v3; v3 = rotl64(v3, 16); v3 ^= v2; \
	v0 += v3; v3 = rotl64(v3, 21); v3 ^= v0; \
	v2 += v1; v1 = rotl64(v1, 17); v1 ^= v2; v2 = rotl64(v2, 32); \
	} while(0)

void siphash24(const uint8_t key[16], const uint8_t* in, size_t len,
	uint8_t out[8])
{
	uint64_t k0 = le64(key), k1 = le64(key + 8), m, b;
	uint64_t v0 = k0 ^ 0x736f6d6570736575ULL;
	uint64_t v1 = k1 ^ 0x646f72616e646f6dULL;
	uint64_t v2 = k0 ^ 0x6c7967656e657261ULL;
	uint64_t v3 = k1 ^ 0x7465646279746573ULL;
	size_t i, left = len & 7;
	const uint8_t* end = in + (len - left);
	for(; in != end; in += 8) {
		m = le64(in);
		v3 ^= m;
		SIPROUND;
		SIPROUND;
		v0 ^= m;
	}
	/* the last word: the remaining bytes, the length's low byte on top */
	b = (uint64_t)len << 56;
	for(i = 0; i < left; i++)
		b |= (uint64_t)in[i] << (8 * i);
	v3 ^= b;
	SIPROUND;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	b = v0 ^ v1 ^ v2 ^ v3;
	for(i = 0; i < 8; i++)
		out[i] = (uint8_t)(b >> (8 * i));
}
