/* SPDX-License-Identifier: BSD-3-Clause */
/* util/alloc_policy.h - how the daemon asks the C library's allocator
 * to hand memory back, so that RSS follows the live heap under hours of
 * churn (TCP connections, cache refills after reloads). glibc only;
 * elsewhere both calls do nothing. */
#ifndef UTIL_ALLOC_POLICY_H
#define UTIL_ALLOC_POLICY_H
#include <stddef.h>

/* The size from which allocations get their own mapping: glibc's own
 * starting value, kept from moving. Not lower: ldns parses every RR
 * from text with 64 KiB scratch buffers, and mapping those made
 * parsing 11 times slower (0.73 -> 8.3 us per RR: load_cache,
 * local-data, zone and anchor files). */
#define ALLOC_POLICY_MMAP_THRESHOLD (128 * 1024)

/* The free space at the top of an arena that glibc keeps instead of
 * handing it back at each free (its default, 128 KiB, is fixed too once
 * the mmap threshold is set). With 128 KiB a thread's arena (the
 * reload thread's) gave back and took again the 64 KiB scratch buffer
 * of every RR ldns parsed: one madvise per RR (15,479 for a 20,000-line
 * rpz: zone), each a TLB shootdown in every worker's CPU, and the
 * zone's read in a reload took 8.7 s against 0.1 s at the start (the
 * main arena, no other threads). The pages over it go back at the next
 * free, and alloc_policy_trim gives back all of them. */
#define ALLOC_POLICY_TRIM_THRESHOLD (4 * 1024 * 1024)

/* At start-up, before the threads: fix glibc's trim threshold at
 * ALLOC_POLICY_TRIM_THRESHOLD unless the environment sets one
 * (glibc.malloc.trim_threshold, MALLOC_TRIM_THRESHOLD_), and its mmap
 * threshold at
 * ALLOC_POLICY_MMAP_THRESHOLD, unless the environment already sets one
 * (GLIBC_TUNABLES glibc.malloc.mmap_threshold, MALLOC_MMAP_THRESHOLD_).
 * Returns 1 when it set it, 0 when left to the environment or not
 * glibc. */
int alloc_policy_init(void);

/* After a large part of the heap was freed (the caches dropped at a
 * reload): give whole free pages back to the kernel. */
void alloc_policy_trim(void);

#endif
