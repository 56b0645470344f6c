/* SPDX-License-Identifier: BSD-3-Clause */
/* util/lru_list.h - an intrusive doubly linked list kept in use order
 * (most recently used at the head, evict from the tail), for the small
 * caches that keep their own LRU (services/cache/neg_cache.c, neg_nsec3.c)
 * and the stream connections by age (services/stream_conn.c).
 * An item embeds a struct lru_link; LRU_ITEM gets the item back. */
#ifndef UTIL_LRU_LIST_H
#define UTIL_LRU_LIST_H
#include <stddef.h>

struct lru_link {
	struct lru_link* prev, *next;
};

struct lru_list {
	struct lru_link* head, *tail;
};

/* The item of type that holds link as member; NULL for NULL. */
#define LRU_ITEM(link, type, member) ((link) ? (type*)(void*)((char*) \
	(link) - offsetof(type, member)) : (type*)NULL)

static inline void lru_list_remove(struct lru_list* l, struct lru_link* it)
{
	if(it->prev)
		it->prev->next = it->next;
	else	l->head = it->next;
	if(it->next)
		it->next->prev = it->prev;
	else	l->tail = it->prev;
	it->prev = it->next = NULL;
}

static inline void lru_list_push_front(struct lru_list* l,
	struct lru_link* it)
{
	it->prev = NULL;
	it->next = l->head;
	if(l->head)
		l->head->prev = it;
	l->head = it;
	if(!l->tail)
		l->tail = it;
}

/* Move it to the head (it is in l). */
static inline void lru_list_touch(struct lru_list* l, struct lru_link* it)
{
	if(l->head != it) {
		lru_list_remove(l, it);
		lru_list_push_front(l, it);
	}
}

#endif
