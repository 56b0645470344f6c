/* SPDX-License-Identifier: BSD-3-Clause */
/* util/dname.h - domain names in uncompressed wire format
 * (length-prefixed labels ending with the root label 0). */
#ifndef UTIL_DNAME_H
#define UTIL_DNAME_H
#include <stddef.h>
#include <stdint.h>

#define LDNS_MAX_DOMAINLEN 255
#define LDNS_MAX_LABELLEN 63

/* Read a possibly compressed name from pkt at *pos (advancing *pos past
 * it in the packet) into out (uncompressed, at least 256 bytes).
 * Rejects pointer loops, pointers forward or past the end, labels over
 * 63 and names over 255. Returns the name length, or 0 on error. */
size_t dname_read_wire(const uint8_t* pkt, size_t pktlen, size_t* pos,
	uint8_t* out);
/* Length of an uncompressed wire name in a buffer of maxlen; 0 if bad. */
size_t dname_valid(const uint8_t* dname, size_t maxlen);
/* Lowercase a wire name in place. */
void dname_tolower(uint8_t* dname);
/* Lowercase the n bytes of name data at p in whole words: the bytes
 * after them up to the next multiple of 8 must be writable (zeroes there
 * stay zeroes). No walk for the length, no byte loop for the tail. */
void dname_tolower_words(uint8_t* p, size_t n);
/* The start of every cache and mesh lookup key: name (len bytes, a
 * valid wire name) lowercased, then type and class in network order.
 * key has room for len + 4 bytes; returns len + 4 (callers append
 * their own flags after that). */
size_t dname_key(uint8_t* key, const uint8_t* name, size_t len,
	uint16_t type, uint16_t rclass);
/* Case-insensitive compare of two wire names; 0 when equal. */
int query_dname_compare(const uint8_t* a, const uint8_t* b);
/* The first n bytes of a and b equal ignoring ASCII case: for two names
 * whose lengths are known to be n, whether they are the same name,
 * without query_dname_compare's walks for the lengths and the order. */
int dname_same(const uint8_t* a, const uint8_t* b, size_t n);
/* Number of labels, counting the root label (so "." is 1). */
int dname_count_labels(const uint8_t* dname);
/* Is name a subdomain of (or equal to) zone? Case-insensitive. */
int dname_subdomain_c(const uint8_t* name, const uint8_t* zone);
/* Strip the leftmost label: returns pointer into dname, unchanged at root. */
const uint8_t* dname_remove_label(const uint8_t* dname);
/* Text "www.example.com." (or "example.com") to wire; returns length or 0. */
size_t dname_from_str(const char* str, uint8_t* out);
/* Wire to text with trailing dot into buf (size >= 1024 for worst case). */
void dname_to_str(const uint8_t* dname, char* buf, size_t buflen);
/* Hash of a name, case-insensitive. */
uint32_t dname_hash(const uint8_t* dname, uint32_t seed);
/* dname_key and dname_hash in one pass over the name: key as
 * dname_key writes it (len + 4 bytes), *hash = dname_hash(name, seed).
 * Returns len + 4. */
size_t dname_key_hash(uint8_t* key, const uint8_t* name, size_t len,
	uint16_t type, uint16_t rclass, uint32_t seed, uint32_t* hash);

/* Canonical DNS order (RFC 4034 6.1): <0, 0, >0. */
int dname_canonical_compare(const uint8_t* a, const uint8_t* b);
/* compat: unbound-1.17: The order of Unbound's name trees (its dname_lab_cmp):
 * labels from the root, shorter label first, then bytes; used to list as it
 * does. */
int dname_tree_compare(const uint8_t* a, const uint8_t* b);
/* memcpy for a wire name (at most 255 bytes) without the library call:
 * whole words, the last one overlapping; reads and writes only [0, n). */
static inline void dname_copy(uint8_t* dst, const uint8_t* src, size_t n)
{
	size_t i;
	uint64_t w;
	if(n < 8) {
		for(i = 0; i < n; i++)
			dst[i] = src[i];
		return;
	}
	for(i = 0; i + 8 < n; i += 8) {
		__builtin_memcpy(&w, src + i, 8);
		__builtin_memcpy(dst + i, &w, 8);
	}
	__builtin_memcpy(&w, src + n - 8, 8);
	__builtin_memcpy(dst + n - 8, &w, 8);
}

#endif
