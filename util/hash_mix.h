/* SPDX-License-Identifier: BSD-3-Clause */
/* util/hash_mix.h - the word step of the word-at-a-time hashes (domain
 * names, message-cache keys, infra keys, address tables): xor the word
 * in, multiply by 2^64/phi, fold the high bits down so that the next
 * multiply spreads them. One definition, so that a better mixer is
 * changed in one place; FNV-1a (util/fnv.h) is the byte-at-a-time one.
 * hash_fold32 is the last step of the keyed-cache hashes (message, RRset,
 * key cache): a second multiplier over the name's hash and the fields
 * xored in above it. A multiply carries bits upward: a field xored in
 * far above bit 32 (the class at 40 or 48) barely moves the low hash
 * bits that pick a bucket, so a field that should goes in at bit 32
 * (the message key's type). */
#ifndef UTIL_HASH_MIX_H
#define UTIL_HASH_MIX_H
#include <stdint.h>

#define HASH_MIX_MUL 0x9E3779B97F4A7C15ULL

static inline uint64_t hash_mix(uint64_t h, uint64_t word)
{
	h = (h ^ word) * HASH_MIX_MUL;
	return h ^ (h >> 29);
}

#define HASH_FOLD_MUL 0xBF58476D1CE4E5B9ULL

/* The 64-bit state down to 32 bits, every input bit spread over them. */
static inline uint32_t hash_fold32(uint64_t h)
{
	h *= HASH_FOLD_MUL;
	h ^= h >> 31;
	return (uint32_t)(h >> 32);
}

#endif
