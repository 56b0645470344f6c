/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_nsec3_hash.h - the NSEC3 owner hash (RFC 5155 5), its
 * base32hex form, and the per-query cache and budget that bound the
 * hashing work of one query (CVE-2023-50868).
 *
 * The cache and the budget belong to the caller (the validator's
 * per-query state): a proof that runs out of budget returns
 * VAL_NSEC3_SUSPEND (val_nsec3.h); when the caller runs it again later
 * with the same cache and a refilled budget, the hashes already made
 * are found in the cache and not computed again. */
#ifndef VALIDATOR_VAL_NSEC3_HASH_H
#define VALIDATOR_VAL_NSEC3_HASH_H
#include <stddef.h>
#include <stdint.h>

#define NSEC3_HASH_SHA1 1
#define NSEC3_SHA1_LEN 20
/* base32hex of a 20-byte hash, no padding */
#define NSEC3_SHA1_B32_LEN 32
/* compat: unbound-1.17: As Unbound 1.19.1's MAX_NSEC3_CALCULATIONS: hashes
 * computed (not found in the cache) per run of a proof. */
#define NSEC3_HASH_BUDGET 8
/* Distinct (name, parameters) hashes one query keeps; past this, new
 * hashes are still computed but not kept. */
#define NSEC3_CACHE_MAX 64

/* Hash computations left in this run of a proof. Set left to
 * NSEC3_HASH_BUDGET before each run. */
struct nsec3_budget {
	int left;
	/* set to 1 by a proof that needed a hash with left == 0 */
	int exhausted;
};

struct nsec3_cached_hash {
	uint8_t name[256];      /* lowercase wire name */
	uint8_t salt[255];
	uint8_t saltlen;
	uint8_t algo;
	uint16_t iterations;
	uint8_t hash[NSEC3_SHA1_LEN];
	uint8_t hashlen;
};

/* Per-query cache of NSEC3 hashes, keyed by name (case-insensitive),
 * algorithm, iterations and salt. Zero it (or val_nsec3_cache_init) before
 * first use; val_nsec3_cache_clear frees it. Not thread-safe: one query. */
struct nsec3_hash_cache {
	struct nsec3_cached_hash* entries;
	size_t count, cap;
	/* hashes computed over the cache's life (for tests and stats) */
	size_t computed;
};

void val_nsec3_cache_init(struct nsec3_hash_cache* c);
void val_nsec3_cache_clear(struct nsec3_hash_cache* c);

/* Hash of wire name nm with the parameters into out (>= 20 bytes).
 * Returns the hash length, or 0 for an unknown algorithm or a
 * malformed name. Case-insensitive (the name is lowercased). */
size_t val_nsec3_hash_compute(const uint8_t* nm, uint8_t algo,
	uint16_t iterations, const uint8_t* salt, size_t saltlen,
	uint8_t* out);

/* The hash via the cache, charging the budget for a computation.
 * Returns 1 with *hash pointing into the cache (or into scratch, 20
 * bytes the caller gives, when the cache is full) and *hashlen set;
 * 0 for an unknown algorithm or bad name; -1 when it would have to
 * compute with budget->left == 0 (budget->exhausted is then set). */
int val_nsec3_hash_lookup(struct nsec3_hash_cache* cache,
	struct nsec3_budget* budget, const uint8_t* nm, uint8_t algo,
	uint16_t iterations, const uint8_t* salt, size_t saltlen,
	uint8_t* scratch, const uint8_t** hash, size_t* hashlen);

/* base32hex (RFC 4648 7), lowercase, no padding, into out (room for
 * len*8/5+1 chars plus NUL). Returns the number of chars written. */
size_t val_nsec3_b32hex_encode(const uint8_t* data, size_t len, char* out);
/* Decode case-insensitive base32hex text of textlen chars into out of
 * outmax bytes. Returns the byte count, or -1 for a bad character, bad
 * trailing bits or too little room. */
int val_nsec3_b32hex_decode(const uint8_t* text, size_t textlen, uint8_t* out,
	size_t outmax);

#endif
