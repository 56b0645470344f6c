/* SPDX-License-Identifier: BSD-3-Clause */
/* util/hash_mix.h - the word step of the word-at-a-time hashes (domain
 * names, message-cache keys, infra keys, address tables): xor the word
 * in, multiply by 2^64/phi, fold the high bits down so that the next
 * multiply spreads them. One definition, so that a better mixer is
 * changed in one place; FNV-1a (util/fnv.h) is the byte-at-a-time one. */
#ifndef UTIL_HASH_MIX_H
#define UTIL_HASH_MIX_H
#include <stdint.h>

#define HASH_MIX_MUL 0x9E3779B97F4A7C15ULL

static inline uint64_t hash_mix(uint64_t h, uint64_t word)
{
	h = (h ^ word) * HASH_MIX_MUL;
	return h ^ (h >> 29);
}

#endif
