/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/wait_limit.c - per client address counts of waiting replies:
 * a chained hash of the address bytes; an entry lives while its count
 * is above zero. Only on the cache-miss path; freed entries are kept for
 * reuse (util/spare_list.h). */
#include "config.h"
#include "util/spare_list.h"
#include "daemon/wait_limit.h"
#include "util/net_help.h"
#include "util/fnv.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define WL_BUCKETS 1024

struct wl_entry {
	struct wl_entry* next;
	uint8_t addr[16];
	int alen;
	int count;
};

struct wait_limit {
	struct wl_entry* tab[WL_BUCKETS];
	int num;
	/* freed entries: most misses take and give back one */
	struct spare_list spare;
};

struct wait_limit* wait_limit_create(void)
{
	struct wait_limit* wl = calloc(1, sizeof(struct wait_limit));
	if(wl)
		spare_list_init(&wl->spare, 64);
	return wl;
}

void wait_limit_delete(struct wait_limit* wl)
{
	int i;
	if(!wl)
		return;
	for(i = 0; i < WL_BUCKETS; i++) {
		while(wl->tab[i]) {
			struct wl_entry* e = wl->tab[i];
			wl->tab[i] = e->next;
			free(e);
		}
	}
	spare_list_clear(&wl->spare);
	free(wl);
}

static unsigned wl_hash(const uint8_t* a, int n)
{
	return fnv1a32(FNV32_START, a, (size_t)n) % WL_BUCKETS;
}

/* The slot pointing at addr's entry (or at the NULL ending its chain). */
static struct wl_entry** wl_find(struct wait_limit* wl, const uint8_t* a,
	int n)
{
	struct wl_entry** p = &wl->tab[wl_hash(a, n)];
	while(*p && ((*p)->alen != n || memcmp((*p)->addr, a, (size_t)n)))
		p = &(*p)->next;
	return p;
}

int wait_limit_take(struct wait_limit* wl,
	const struct sockaddr_storage* addr, socklen_t addrlen, int limit)
{
	int n;
	const uint8_t* a = addr_bytes(addr, addrlen, &n);
	struct wl_entry** p;
	if(!wl || !a || limit <= 0)
		return 1;
	p = wl_find(wl, a, n);
	if(*p) {
		if((*p)->count >= limit)
			return 0;
		(*p)->count++;
		return 1;
	}
	if(!(*p = spare_zalloc(&wl->spare, sizeof(**p))))
		return 0;
	memcpy((*p)->addr, a, (size_t)n);
	(*p)->alen = n;
	(*p)->count = 1;
	wl->num++;
	return 1;
}

void wait_limit_give(struct wait_limit* wl,
	const struct sockaddr_storage* addr, socklen_t addrlen)
{
	int n;
	const uint8_t* a = addr_bytes(addr, addrlen, &n);
	struct wl_entry** p, *e;
	if(!wl || !a)
		return;
	p = wl_find(wl, a, n);
	if(!(e = *p))
		return;
	if(--e->count == 0) {
		*p = e->next;
		spare_free(&wl->spare, e);
		wl->num--;
	}
}

int wait_limit_count(const struct wait_limit* wl)
{
	return wl ? wl->num : 0;
}
