/* SPDX-License-Identifier: BSD-3-Clause */
/* services/cache/negtree.c - the canonical-order treap; see the header. */
#include "config.h"
#include "services/cache/negtree.h"
#include <string.h>
#include <ldns/ldns.h>

size_t negtree_ckey(const uint8_t* name, uint8_t* out)
{
	const uint8_t* lab[128];
	int n = 0, i;
	size_t len = 0;
	while(*name && n < 128) {
		lab[n++] = name;
		name += *name + 1;
	}
	for(i = n - 1; i >= 0; i--) {
		const uint8_t* l = lab[i];
		int j;
		for(j = 1; j <= l[0]; j++) {
			uint8_t b = l[j];
			if(b >= 'A' && b <= 'Z')
				b += 32;
			if(b < 2) {
				out[len++] = 1;
				out[len++] = (uint8_t)(b + 1);
			} else
				out[len++] = b;
		}
		out[len++] = 0;
	}
	return len;
}

size_t negtree_ckey_name(const uint8_t* ck, size_t cklen, uint8_t* out)
{
	size_t start[128], pos = 0, len = 0;
	int n = 0, i;
	/* where each label starts (root side first); 0 ends a label and
	 * nothing else, as 0 and 1 inside one are escaped */
	while(pos < cklen) {
		if(n == 128)
			return 0;
		start[n++] = pos;
		while(pos < cklen && ck[pos] != 0)
			pos += ck[pos] == 1 ? 2 : 1;
		if(pos >= cklen)
			return 0;
		pos++;
	}
	for(i = n - 1; i >= 0; i--) {
		size_t at = len++;
		for(pos = start[i]; ck[pos] != 0; pos++) {
			if(len >= LDNS_MAX_DOMAINLEN)
				return 0;
			out[len++] = ck[pos] == 1 ? (uint8_t)(ck[++pos] - 1) :
				ck[pos];
		}
		if(len - at - 1 == 0 || len - at - 1 > 63)
			return 0;
		out[at] = (uint8_t)(len - at - 1);
	}
	out[len++] = 0;
	return len;
}

/* memcmp order, a prefix first. */
static int ckey_cmp(const uint8_t* a, size_t al, const uint8_t* b, size_t bl)
{
	int c = memcmp(a, b, al < bl ? al : bl);
	if(c)
		return c;
	return al < bl ? -1 : al > bl ? 1 : 0;
}

void negtree_init(struct negtree* t, uint32_t seed)
{
	t->root = NULL;
	t->count = 0;
	t->rnd = seed ? seed : 0x9e3779b9u;
}

static uint32_t next_prio(struct negtree* t)
{
	uint32_t x = t->rnd;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	t->rnd = x;
	return x;
}

/* Insert below *link; rotations keep the heap order on the way up. */
static struct negtree_node* insert_at(struct negtree_node** link,
	struct negtree_node* n)
{
	struct negtree_node* cur = *link, *got;
	int c;
	if(!cur) {
		*link = n;
		return n;
	}
	c = ckey_cmp(n->ckey, n->cklen, cur->ckey, cur->cklen);
	if(c == 0)
		return cur;
	if(c < 0) {
		got = insert_at(&cur->left, n);
		if(got == n && cur->left->prio > cur->prio) {
			struct negtree_node* l = cur->left;
			cur->left = l->right;
			l->right = cur;
			*link = l;
		}
	} else {
		got = insert_at(&cur->right, n);
		if(got == n && cur->right->prio > cur->prio) {
			struct negtree_node* r = cur->right;
			cur->right = r->left;
			r->left = cur;
			*link = r;
		}
	}
	return got;
}

struct negtree_node* negtree_insert(struct negtree* t,
	struct negtree_node* n)
{
	struct negtree_node* got;
	n->left = n->right = NULL;
	n->prio = next_prio(t);
	got = insert_at(&t->root, n);
	if(got == n)
		t->count++;
	return got;
}

/* Two treaps, every key of a before every key of b, as one. */
static struct negtree_node* merge(struct negtree_node* a,
	struct negtree_node* b)
{
	struct negtree_node* root = NULL, **link = &root;
	while(a && b) {
		if(a->prio > b->prio) {
			*link = a;
			link = &a->right;
			a = a->right;
		} else {
			*link = b;
			link = &b->left;
			b = b->left;
		}
	}
	*link = a ? a : b;
	return root;
}

void negtree_remove(struct negtree* t, struct negtree_node* n)
{
	struct negtree_node** link = &t->root;
	while(*link && *link != n) {
		int c = ckey_cmp(n->ckey, n->cklen, (*link)->ckey,
			(*link)->cklen);
		link = c < 0 ? &(*link)->left : &(*link)->right;
	}
	if(!*link)
		return;
	*link = merge(n->left, n->right);
	n->left = n->right = NULL;
	t->count--;
}

struct negtree_node* negtree_find(const struct negtree* t,
	const uint8_t* key)
{
	struct negtree_node* cur = t->root;
	uint8_t k[NEGTREE_CKEY_MAX];
	size_t kl = negtree_ckey(key, k);
	while(cur) {
		int c = ckey_cmp(k, kl, cur->ckey, cur->cklen);
		if(c == 0)
			return cur;
		cur = c < 0 ? cur->left : cur->right;
	}
	return NULL;
}

struct negtree_node* negtree_find_le(const struct negtree* t,
	const uint8_t* key)
{
	struct negtree_node* cur = t->root, *best = NULL;
	uint8_t k[NEGTREE_CKEY_MAX];
	size_t kl = negtree_ckey(key, k);
	while(cur) {
		int c = ckey_cmp(k, kl, cur->ckey, cur->cklen);
		if(c == 0)
			return cur;
		if(c < 0)
			cur = cur->left;
		else {
			best = cur;
			cur = cur->right;
		}
	}
	return best;
}

struct negtree_node* negtree_first(const struct negtree* t)
{
	struct negtree_node* cur = t->root;
	while(cur && cur->left)
		cur = cur->left;
	return cur;
}

static int depth_of(const struct negtree_node* n)
{
	int l, r;
	if(!n)
		return 0;
	l = depth_of(n->left);
	r = depth_of(n->right);
	return 1 + (l > r ? l : r);
}

int negtree_depth(const struct negtree* t)
{
	return depth_of(t->root);
}
