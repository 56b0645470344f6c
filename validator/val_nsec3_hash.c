/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_nsec3_hash.c - NSEC3 hashing with SHA-1 (OpenSSL EVP),
 * base32hex, and the per-query hash cache. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include <openssl/evp.h>
#include "validator/val_nsec3_hash.h"
#include "util/dname.h"

void val_nsec3_cache_init(struct nsec3_hash_cache* c)
{
	memset(c, 0, sizeof(*c));
}

void val_nsec3_cache_clear(struct nsec3_hash_cache* c)
{
	free(c->entries);
	memset(c, 0, sizeof(*c));
}

/* ctx already has SHA-1 set: a NULL type re-inits it without fetching
 * the algorithm again (most of the cost of a 20-byte round). */
static int sha1_round(EVP_MD_CTX* ctx, const uint8_t* a, size_t alen,
	const uint8_t* salt, size_t saltlen, uint8_t* out)
{
	unsigned int n = 0;
	return EVP_DigestInit_ex(ctx, NULL, NULL) == 1 &&
		EVP_DigestUpdate(ctx, a, alen) == 1 &&
		EVP_DigestUpdate(ctx, salt, saltlen) == 1 &&
		EVP_DigestFinal_ex(ctx, out, &n) == 1 && n == NSEC3_SHA1_LEN;
}

size_t val_nsec3_hash_compute(const uint8_t* nm, uint8_t algo,
	uint16_t iterations, const uint8_t* salt, size_t saltlen,
	uint8_t* out)
{
	uint8_t lower[LDNS_MAX_DOMAINLEN + 1];
	size_t len = dname_valid(nm, LDNS_MAX_DOMAINLEN);
	EVP_MD_CTX* ctx;
	unsigned int i;
	int good;
	if(algo != NSEC3_HASH_SHA1 || len == 0)
		return 0;
	memcpy(lower, nm, len);
	dname_tolower(lower);
	ctx = EVP_MD_CTX_new();
	if(!ctx)
		return 0;
	good = EVP_DigestInit_ex(ctx, EVP_sha1(), NULL) == 1 &&
		sha1_round(ctx, lower, len, salt, saltlen, out);
	for(i = 0; good && i < iterations; i++)
		good = sha1_round(ctx, out, NSEC3_SHA1_LEN, salt, saltlen, out);
	EVP_MD_CTX_free(ctx);
	return good ? NSEC3_SHA1_LEN : 0;
}

static struct nsec3_cached_hash* cache_find(struct nsec3_hash_cache* c,
	const uint8_t* nm, uint8_t algo, uint16_t iterations,
	const uint8_t* salt, size_t saltlen)
{
	size_t i;
	for(i = 0; i < c->count; i++) {
		struct nsec3_cached_hash* e = &c->entries[i];
		if(e->algo == algo && e->iterations == iterations &&
			e->saltlen == saltlen &&
			memcmp(e->salt, salt, saltlen) == 0 &&
			query_dname_compare(e->name, nm) == 0)
			return e;
	}
	return NULL;
}

/* A new slot, or NULL when the cache is at its bound or out of memory
 * (the hash is then computed but not kept). */
static struct nsec3_cached_hash* cache_slot(struct nsec3_hash_cache* c)
{
	if(c->count == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 8;
		struct nsec3_cached_hash* n;
		if(ncap > NSEC3_CACHE_MAX)
			ncap = NSEC3_CACHE_MAX;
		if(ncap <= c->cap)
			return NULL;
		n = realloc(c->entries, ncap * sizeof(*n));
		if(!n)
			return NULL;
		c->entries = n;
		c->cap = ncap;
	}
	return &c->entries[c->count];
}

int val_nsec3_hash_lookup(struct nsec3_hash_cache* cache,
	struct nsec3_budget* budget, const uint8_t* nm, uint8_t algo,
	uint16_t iterations, const uint8_t* salt, size_t saltlen,
	uint8_t* scratch, const uint8_t** hash, size_t* hashlen)
{
	struct nsec3_cached_hash* e;
	size_t len = dname_valid(nm, LDNS_MAX_DOMAINLEN);
	if(algo != NSEC3_HASH_SHA1 || len == 0 || saltlen > 255)
		return 0;
	e = cache_find(cache, nm, algo, iterations, salt, saltlen);
	if(e) {
		*hash = e->hash;
		*hashlen = e->hashlen;
		return 1;
	}
	if(budget->left <= 0) {
		budget->exhausted = 1;
		return -1;
	}
	budget->left--;
	cache->computed++;
	e = cache_slot(cache);
	if(!e) {
		*hashlen = val_nsec3_hash_compute(nm, algo, iterations, salt,
			saltlen, scratch);
		*hash = scratch;
		return *hashlen != 0;
	}
	e->hashlen = (uint8_t)val_nsec3_hash_compute(nm, algo, iterations, salt,
		saltlen, e->hash);
	if(e->hashlen == 0)
		return 0;
	memcpy(e->name, nm, len);
	dname_tolower(e->name);
	memcpy(e->salt, salt, saltlen);
	e->saltlen = (uint8_t)saltlen;
	e->algo = algo;
	e->iterations = iterations;
	cache->count++;
	*hash = e->hash;
	*hashlen = e->hashlen;
	return 1;
}

static const char b32hex[] = "0123456789abcdefghijklmnopqrstuv";

size_t val_nsec3_b32hex_encode(const uint8_t* data, size_t len, char* out)
{
	size_t n = 0, i;
	unsigned int acc = 0, bits = 0;
	for(i = 0; i < len; i++) {
		acc = (acc << 8) | data[i];
		bits += 8;
		while(bits >= 5) {
			out[n++] = b32hex[(acc >> (bits - 5)) & 31];
			bits -= 5;
		}
	}
	if(bits > 0)
		out[n++] = b32hex[(acc << (5 - bits)) & 31];
	out[n] = 0;
	return n;
}

static int b32hex_value(uint8_t c)
{
	if(c >= '0' && c <= '9')
		return c - '0';
	if(c >= 'a' && c <= 'v')
		return c - 'a' + 10;
	if(c >= 'A' && c <= 'V')
		return c - 'A' + 10;
	return -1;
}

int val_nsec3_b32hex_decode(const uint8_t* text, size_t textlen, uint8_t* out,
	size_t outmax)
{
	size_t n = 0, i;
	unsigned int acc = 0, bits = 0;
	for(i = 0; i < textlen; i++) {
		int v = b32hex_value(text[i]);
		if(v < 0)
			return -1;
		acc = ((acc << 5) | (unsigned int)v) & 0xfff;
		bits += 5;
		if(bits >= 8) {
			if(n >= outmax)
				return -1;
			out[n++] = (uint8_t)(acc >> (bits - 8));
			bits -= 8;
		}
	}
	/* leftover bits must be padding zeros, fewer than a char's */
	if(bits >= 5 || (acc & ((1u << bits) - 1)) != 0)
		return -1;
	return (int)n;
}
