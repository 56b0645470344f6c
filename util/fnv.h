/* SPDX-License-Identifier: BSD-3-Clause */
/* util/fnv.h - FNV-1a, for tables that only need their keys spread over
 * slots (not for tables an outsider fills with chosen keys: those use
 * the seeded dname_hash or siphash). Start with FNV32_START or
 * FNV64_START; pass the result back in to hash several pieces. */
#ifndef UTIL_FNV_H
#define UTIL_FNV_H
#include <stddef.h>
#include <stdint.h>

#define FNV32_START 2166136261u
#define FNV64_START 0xcbf29ce484222325ULL

static inline uint32_t fnv1a32(uint32_t h, const uint8_t* p, size_t n)
{
	size_t i;
	for(i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

/* The same over the bytes with ASCII A-Z lowercased (domain names). */
static inline uint32_t fnv1a32_lower(uint32_t h, const uint8_t* p, size_t n)
{
	size_t i;
	for(i = 0; i < n; i++) {
		uint8_t b = p[i];
		if(b >= 'A' && b <= 'Z')
			b = (uint8_t)(b + 32);
		h = (h ^ b) * 16777619u;
	}
	return h;
}

static inline uint64_t fnv1a64(uint64_t h, const uint8_t* p, size_t n)
{
	size_t i;
	for(i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

#endif
