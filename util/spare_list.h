/* SPDX-License-Identifier: BSD-3-Clause */
/* util/spare_list.h - freed objects of one size kept by their owner (one
 * thread's: a mesh, a worker) for reuse, for the small objects made and
 * freed once per cache miss. Taking one back is a few instructions and a
 * clear; malloc and free of them cost about 140 (glibc 2.36's free found
 * the per-thread cache of those sizes full and took the arena's path).
 * At most max are kept, spare_list_clear frees them. Under AddressSanitizer
 * none are kept, so that a use after free is still caught. */
#ifndef UTIL_SPARE_LIST_H
#define UTIL_SPARE_LIST_H
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "util/zalloc.h"

#if defined(__SANITIZE_ADDRESS__)
#define SPARE_LIST_KEEPS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SPARE_LIST_KEEPS 0
#endif
#endif
#ifndef SPARE_LIST_KEEPS
#define SPARE_LIST_KEEPS 1
#endif

struct spare_list {
	void* head;        /* each spare's first word links the next */
	unsigned num, max;
};

/* An empty list that keeps up to max objects. */
static inline void spare_list_init(struct spare_list* l, unsigned max)
{
	l->head = NULL;
	l->num = 0;
	l->max = SPARE_LIST_KEEPS ? max : 0;
}

/* size bytes, not cleared (size at least a pointer's, the same for
 * every call on l): a spare, else from malloc; NULL when out of memory. */
static inline void* spare_alloc(struct spare_list* l, size_t size)
{
	void* p = l->head;
	if(!p)
		return malloc(size);
	l->head = *(void**)p;
	l->num--;
	return p;
}

/* spare_alloc, zeroed. */
static inline void* spare_zalloc(struct spare_list* l, size_t size)
{
	void* p = l->head;
	if(!p)
		return zalloc(size);
	l->head = *(void**)p;
	l->num--;
	memset(p, 0, size);
	return p;
}

/* Give p (from spare_alloc or spare_zalloc on l, or NULL) back: kept, or freed when l
 * is full. */
static inline void spare_free(struct spare_list* l, void* p)
{
	if(!p)
		return;
	if(l->num >= l->max) {
		free(p);
		return;
	}
	*(void**)p = l->head;
	l->head = p;
	l->num++;
}

/* Free the spares (the list stays usable). */
static inline void spare_list_clear(struct spare_list* l)
{
	while(l->head) {
		void* p = l->head;
		l->head = *(void**)p;
		free(p);
	}
	l->num = 0;
}

#endif
