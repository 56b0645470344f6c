/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_vcache.h - signatures this thread has verified: the key,
 * the signature and the signed data, byte for byte. Verification is a
 * pure function of those three, so the same three verify again without
 * the public-key operation: the NSEC of a wildcard answer is the same
 * RRset for every name it covers, and a wildcard's RRSIG signs the same
 * data (the '*' owner) for every name it expands to.
 *
 * Only what verified is kept; a lookup compares every byte (the hash
 * only picks the slot), so a collision can cost a verification, never
 * admit one. Dates, key flags and the KeyTrap budget stay with the
 * caller (val_sig.c checks dates before the lookup).
 *
 * Threads: one per thread (it lives in struct val_sig_ctx). */
#ifndef VALIDATOR_VAL_VCACHE_H
#define VALIDATOR_VAL_VCACHE_H
#include <stddef.h>
#include <stdint.h>
#include "util/dm_cache.h"

#define VAL_VCACHE_SLOTS 256      /* direct mapped */
#define VAL_VCACHE_MAX_BYTES 4096 /* larger triples are not kept */

/* All zero is an empty cache. */
struct val_vcache {
	struct dm_cache dm;       /* key: lengths, key, signature, data */
	uint64_t hits, misses;
};

/* 1 when this exact (key RDATA, signature, signed data) verified here. */
int val_vcache_hit(struct val_vcache* vc, const uint8_t* key,
	size_t keylen, const uint8_t* sig, size_t siglen,
	const uint8_t* data, size_t datalen);

/* Remember a triple that verified (replaces its slot's entry; too large
 * or out of memory: not kept, which only costs a later verification). */
void val_vcache_add(struct val_vcache* vc, const uint8_t* key,
	size_t keylen, const uint8_t* sig, size_t siglen,
	const uint8_t* data, size_t datalen);

/* Free every entry (the struct itself is the caller's). */
void val_vcache_clear(struct val_vcache* vc);

#endif
