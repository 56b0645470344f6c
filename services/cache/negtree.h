/* SPDX-License-Identifier: BSD-3-Clause */
/* services/cache/negtree.h - an ordered map of wire names in canonical
 * DNS order (RFC 4034 6.1), for the aggressive NSEC cache (neg_cache.h):
 * the NSEC that covers a name is the one with the greatest owner not
 * after it, found by one descent (negtree_find_le).
 *
 * A treap: a binary search tree by name that is also a heap by a random
 * priority per node, so its depth is O(log n) expected whatever order
 * the names come in (NSEC chains arrive sorted). Intrusive: the caller
 * embeds struct negtree_node in its own entry and owns its memory; the
 * key is a wire name the caller keeps alive while the node is in the
 * tree. No allocation, no locking: the caller's lock covers it. */
#ifndef SERVICES_CACHE_NEGTREE_H
#define SERVICES_CACHE_NEGTREE_H
#include <stddef.h>
#include <stdint.h>

struct negtree_node {
	struct negtree_node* left, *right;
	uint32_t prio;
	const uint8_t* key;      /* the wire name */
	/* its canonical key (negtree_ckey), which the tree compares with
	 * memcmp: the caller stores it beside the name */
	const uint8_t* ckey;
	uint16_t cklen;
};

/* The longest canonical key. */
#define NEGTREE_CKEY_MAX 512

/* name's canonical key into out (NEGTREE_CKEY_MAX bytes): its labels
 * from the root down, lowercased, each byte b < 2 written as 1, b + 1,
 * each label ended by 0. Two keys compare with memcmp (a prefix first)
 * as the names compare in RFC 4034 canonical order, and that is the
 * order of the tree: one label walk per lookup instead of one per
 * comparison. Returns the length. */
size_t negtree_ckey(const uint8_t* name, uint8_t* out);

/* The wire name (lowercased) a canonical key was made from, into out
 * (LDNS_MAX_DOMAINLEN + 1 bytes); its length, 0 if ck is no such key.
 * So an entry may keep the key alone. */
size_t negtree_ckey_name(const uint8_t* ck, size_t cklen, uint8_t* out);

struct negtree {
	struct negtree_node* root;
	size_t count;
	uint32_t rnd;            /* xorshift state for the priorities */
};

void negtree_init(struct negtree* t, uint32_t seed);
/* Insert n (key, ckey and cklen set). Returns n, or the node already holding an
 * equal key (n is then not inserted). */
struct negtree_node* negtree_insert(struct negtree* t,
	struct negtree_node* n);
/* Remove n, which must be in t. */
void negtree_remove(struct negtree* t, struct negtree_node* n);
/* The node whose key equals key; NULL if none. */
struct negtree_node* negtree_find(const struct negtree* t,
	const uint8_t* key);
/* The node with the greatest key <= key; NULL if every key is after. */
struct negtree_node* negtree_find_le(const struct negtree* t,
	const uint8_t* key);
/* The node with the smallest key; NULL when empty. */
struct negtree_node* negtree_first(const struct negtree* t);
/* Depth of the deepest node (tests: the balance). */
int negtree_depth(const struct negtree* t);

#endif
