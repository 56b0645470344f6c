/* SPDX-License-Identifier: BSD-3-Clause */
/* util/alloc_policy.c - the allocator settings of util/alloc_policy.h.
 *
 * Why a fixed mmap threshold: glibc raises its threshold to the size of
 * every mapped block that is freed (up to 32 MiB), and its trim
 * threshold to twice that. After the first TCP connection closed, its
 * 128 KiB output buffer, and every later one's, came from the arenas
 * instead of a mapping of its own; freed again between small
 * long-lived blocks (cache entries, mesh states) they left holes the
 * arenas keep. The plain build's soak (TCP abuse, an accept() burst,
 * SIGHUP every 30 s) grew glibc's mapped heap from 23 to 57 MB in 7
 * minutes with 18 MB live. The cost: a connection beyond the pools'
 * spare buffers maps and unmaps its output buffer.
 */
#include "config.h"
#include "util/alloc_policy.h"
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* Whether the operator chose a threshold in the environment. */
static int threshold_in_env(void)
{
	const char* t = getenv("GLIBC_TUNABLES");
	if(getenv("MALLOC_MMAP_THRESHOLD_"))
		return 1;
	return t && strstr(t, "glibc.malloc.mmap_threshold") != NULL;
}

/* Whether the operator chose a trim threshold in the environment. */
static int trim_in_env(void)
{
	const char* t = getenv("GLIBC_TUNABLES");
	if(getenv("MALLOC_TRIM_THRESHOLD_"))
		return 1;
	return t && strstr(t, "glibc.malloc.trim_threshold") != NULL;
}

int alloc_policy_init(void)
{
#ifdef __GLIBC__
	if(!trim_in_env())
		(void)mallopt(M_TRIM_THRESHOLD, ALLOC_POLICY_TRIM_THRESHOLD);
	if(threshold_in_env())
		return 0;
	return mallopt(M_MMAP_THRESHOLD, ALLOC_POLICY_MMAP_THRESHOLD) == 1;
#else
	return 0;
#endif
}

void alloc_policy_trim(void)
{
#ifdef __GLIBC__
	(void)malloc_trim(0);
#endif
}
