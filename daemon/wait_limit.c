/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/wait_limit.c - per client address counts of waiting replies:
 * a hash table of the address bytes; an entry lives while its count
 * is above zero. Only on the cache-miss path; freed entries are kept for
 * reuse (util/spare_list.h). */
#include "config.h"
#include "util/spare_list.h"
#include "util/ihash.h"
#include "daemon/wait_limit.h"
#include "util/net_help.h"
#include "util/fnv.h"
#include "util/config_file.h"
#include "util/log.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define WL_BUCKETS 1024

struct wl_entry {
	struct ihash_node hn;
	uint8_t addr[16];
	int alen;
	int count;
};

struct wait_limit {
	struct ihash tab;
	/* freed entries: most misses take and give back one */
	struct spare_list spare;
};

struct wait_limit* wait_limit_create(void)
{
	struct wait_limit* wl = calloc(1, sizeof(struct wait_limit));
	if(!wl)
		return NULL;
	if(!ihash_init(&wl->tab, WL_BUCKETS)) {
		free(wl);
		return NULL;
	}
	spare_list_init(&wl->spare, 64);
	return wl;
}

void wait_limit_delete(struct wait_limit* wl)
{
	size_t i = 0;
	struct ihash_node* n;
	if(!wl)
		return;
	while((n = ihash_next(&wl->tab, &i, NULL)) != NULL) {
		ihash_remove(&wl->tab, n);
		free(IHASH_ITEM(n, struct wl_entry, hn));
	}
	ihash_free(&wl->tab);
	spare_list_clear(&wl->spare);
	free(wl);
}

/* addr's entry, NULL if none (h: its hash). */
static struct wl_entry* wl_find(struct wait_limit* wl, const uint8_t* a,
	int n, uint32_t h)
{
	struct ihash_node* hn;
	for(hn = ihash_bucket(&wl->tab, h); hn; hn = hn->next) {
		struct wl_entry* e = IHASH_ITEM(hn, struct wl_entry, hn);
		if(hn->hash == h && e->alen == n &&
			memcmp(e->addr, a, (size_t)n) == 0)
			return e;
	}
	return NULL;
}

int wait_limit_take(struct wait_limit* wl,
	const struct sockaddr_storage* addr, socklen_t addrlen, int limit)
{
	int n;
	const uint8_t* a = addr_bytes(addr, addrlen, &n);
	struct wl_entry* e;
	uint32_t h;
	if(!wl || !a || limit <= 0)
		return 1;
	h = fnv1a32(FNV32_START, a, (size_t)n);
	if((e = wl_find(wl, a, n, h)) != NULL) {
		if(e->count >= limit)
			return 0;
		e->count++;
		return 1;
	}
	if(!(e = spare_zalloc(&wl->spare, sizeof(*e))))
		return 0;
	memcpy(e->addr, a, (size_t)n);
	e->alen = n;
	e->count = 1;
	ihash_add(&wl->tab, &e->hn, h);
	return 1;
}

void wait_limit_give(struct wait_limit* wl,
	const struct sockaddr_storage* addr, socklen_t addrlen)
{
	int n;
	const uint8_t* a = addr_bytes(addr, addrlen, &n);
	struct wl_entry* e;
	if(!wl || !a)
		return;
	if(!(e = wl_find(wl, a, n, fnv1a32(FNV32_START, a, (size_t)n))))
		return;
	if(--e->count == 0) {
		ihash_remove(&wl->tab, &e->hn);
		spare_free(&wl->spare, e);
	}
}

int wait_limit_count(const struct wait_limit* wl)
{
	return wl ? (int)wl->tab.count : 0;
}

/* One netblock's limit; a list per kind, longest prefix first, so the
 * first match is the most specific (few lines, read on misses only). */
struct wait_block {
	struct sockaddr_storage addr;
	socklen_t addrlen;
	int net;
	int limit;
};

struct wait_blocks {
	struct wait_block* list[2];   /* [0] wait-limit, [1] the cookie's */
	int num[2];
};

static int by_prefix(const void* a, const void* b)
{
	return ((const struct wait_block*)b)->net -
		((const struct wait_block*)a)->net;
}

/* Set (or add) netblock str's limit in kind k; 0 on a bad line. */
static int block_set(struct wait_blocks* wb, int k, const char* str,
	int limit)
{
	struct wait_block b;
	int i;
	memset(&b, 0, sizeof(b));
	if(!netblockstrtoaddr(str, 0, &b.addr, &b.addrlen, &b.net)) {
		log_err("cannot parse wait limit netblock '%s'", str);
		return 0;
	}
	b.limit = limit;
	/* compat: unbound-1.22: a netblock given again: the last counts
	 * (so a line overrides the loopback default) */
	for(i = 0; i < wb->num[k]; i++)
		if(wb->list[k][i].net == b.net && sockaddr_cmp(
			&wb->list[k][i].addr, wb->list[k][i].addrlen,
			&b.addr, b.addrlen) == 0) {
			wb->list[k][i].limit = limit;
			return 1;
		}
	wb->list[k][wb->num[k]++] = b;
	return 1;
}

struct wait_blocks* wait_blocks_create(const struct config_file* cfg)
{
	const struct config_str2list* lines[2];
	const struct config_str2list* p;
	struct wait_blocks* wb = calloc(1, sizeof(*wb));
	int k;
	if(!wb)
		goto nomem;
	lines[0] = cfg->wait_limit_netblocks;
	lines[1] = cfg->wait_limit_cookie_netblocks;
	for(k = 0; k < 2; k++) {
		int n = 2;
		for(p = lines[k]; p; p = p->next)
			n++;
		if(!(wb->list[k] = calloc((size_t)n, sizeof(struct
			wait_block))))
			goto nomem;
		/* compat: unbound-1.22: the loopback defaults */
		if(!block_set(wb, k, "127.0.0.0/8", -1) ||
			!block_set(wb, k, "::1/128", -1))
			goto fail;
		for(p = lines[k]; p; p = p->next)
			if(!block_set(wb, k, p->str, atoi(p->str2)))
				goto fail;
		qsort(wb->list[k], (size_t)wb->num[k],
			sizeof(struct wait_block), by_prefix);
	}
	return wb;
nomem:
	log_err("wait-limit-netblock: out of memory");
fail:
	wait_blocks_delete(wb);
	return NULL;
}

void wait_blocks_delete(struct wait_blocks* wb)
{
	if(!wb)
		return;
	free(wb->list[0]);
	free(wb->list[1]);
	free(wb);
}

int wait_blocks_limit(const struct wait_blocks* wb,
	const struct sockaddr_storage* addr, socklen_t addrlen, int cookie,
	int dflt)
{
	int i, k = cookie ? 1 : 0;
	if(wb) {
		for(i = 0; i < wb->num[k]; i++) {
			const struct wait_block* b = &wb->list[k][i];
			if(addr_in_netblock(addr, addrlen, &b->addr,
				b->addrlen, b->net))
				return b->limit < 0 ? -1 : b->limit;
		}
	}
	return dflt;
}
