/* SPDX-License-Identifier: BSD-3-Clause */
/* util/ihash.h - an intrusive chained hash table: the owner's object
 * holds a struct ihash_node and the table only links those, so an insert
 * allocates nothing and a lookup follows one pointer per candidate. The
 * caller computes the hash (each table has its own, seeded where an
 * outsider chooses the keys) and compares the keys itself:
 *
 *     for(n = ihash_bucket(t, h); n; n = n->next)
 *         if(n->hash == h && keys_equal(IHASH_ITEM(n, struct x, hn), ...))
 *
 * The bucket count is a power of two. No locks of its own: one thread
 * owns the table, or the owner's lock guards it (the subnet cache). Used by
 * the mesh's states, the local zones and their names, the wait limit and
 * the subnet cache's questions. */
#ifndef UTIL_IHASH_H
#define UTIL_IHASH_H
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

struct ihash_node {
	struct ihash_node* next;
	uint32_t hash;
};

struct ihash {
	struct ihash_node** tab;
	size_t mask;     /* buckets - 1 */
	size_t count;    /* nodes in the table */
};

/* The object of type holding node n as its member. */
#define IHASH_ITEM(n, type, member) \
	((type*)(void*)((char*)(n) - offsetof(type, member)))

/* An empty table of at least min buckets (rounded up to a power of two,
 * 1 at least); 0 when out of memory. */
static inline int ihash_init(struct ihash* t, size_t min)
{
	size_t n = 1;
	while(n < min)
		n <<= 1;
	t->tab = calloc(n, sizeof(*t->tab));
	t->mask = n - 1;
	t->count = 0;
	return t->tab != NULL;
}

/* Frees the bucket array (not the nodes: the owner does). */
static inline void ihash_free(struct ihash* t)
{
	free(t->tab);
	t->tab = NULL;
	t->mask = 0;
	t->count = 0;
}

/* The first node of hash h's chain (walk with ->next, compare ->hash).
 * The table has buckets (ihash_init, or count > 0 after
 * ihash_reserve_one): no test for that here, as it is on the cache-hit
 * path (the local zones). */
static inline struct ihash_node* ihash_bucket(const struct ihash* t,
	uint32_t h)
{
	return t->tab[h & t->mask];
}

static inline void ihash_add(struct ihash* t, struct ihash_node* n,
	uint32_t h)
{
	struct ihash_node** b = &t->tab[h & t->mask];
	n->hash = h;
	n->next = *b;
	*b = n;
	t->count++;
}

/* Unlinks n; 0 when it was not in the table. */
static inline int ihash_remove(struct ihash* t, struct ihash_node* n)
{
	struct ihash_node** p;
	if(!t->tab)
		return 0;
	for(p = &t->tab[n->hash & t->mask]; *p; p = &(*p)->next)
		if(*p == n) {
			*p = n->next;
			n->next = NULL;
			t->count--;
			return 1;
		}
	return 0;
}

/* Rehashes into n buckets (a power of two); 0 when out of memory, the
 * table unchanged. */
static inline int ihash_resize(struct ihash* t, size_t n)
{
	size_t i;
	struct ihash_node** nt = calloc(n, sizeof(*nt));
	if(!nt)
		return 0;
	for(i = 0; t->tab && i <= t->mask; i++) {
		struct ihash_node* e = t->tab[i], *nx;
		for(; e; e = nx) {
			nx = e->next;
			e->next = nt[e->hash & (n - 1)];
			nt[e->hash & (n - 1)] = e;
		}
	}
	free(t->tab);
	t->tab = nt;
	t->mask = n - 1;
	return 1;
}

/* Doubles the buckets when one more node would make the chains longer
 * than one on average (for tables that grow: the local zones); 0 when out
 * of memory, the table unchanged. */
static inline int ihash_reserve_one(struct ihash* t)
{
	if(t->tab && t->count + 1 <= t->mask + 1)
		return 1;
	return ihash_resize(t, t->tab ? (t->mask + 1) * 2 : 256);
}

/* Every node, in bucket order: start with *i = 0 and n = NULL; NULL at the
 * end. The node returned may be removed before the next call only if the
 * caller keeps its ->next first (or restarts). */
static inline struct ihash_node* ihash_next(const struct ihash* t, size_t* i,
	struct ihash_node* n)
{
	if(n && n->next)
		return n->next;
	if(n)
		(*i)++;
	for(; t->tab && *i <= t->mask; (*i)++)
		if(t->tab[*i])
			return t->tab[*i];
	return NULL;
}

#endif /* UTIL_IHASH_H */
