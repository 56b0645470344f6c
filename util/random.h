/* SPDX-License-Identifier: BSD-3-Clause */
/* util/random.h - cryptographic random numbers for query IDs, source
 * ports and server selection. Bytes come from OpenSSL's RAND_bytes (the
 * kernel's getrandom as a fallback) and are buffered per state, so one
 * state per thread gives cheap draws without locks. A state must only be
 * used by one thread at a time. */
#ifndef UTIL_RANDOM_H
#define UTIL_RANDOM_H
#include <stdint.h>

struct ub_randstate;

/* A new state (its buffer is filled on first use). NULL when out of
 * memory. */
struct ub_randstate* ub_initstate(void);
void ub_randfree(struct ub_randstate* s);
/* 32 uniformly random bits. */
uint32_t ub_random(struct ub_randstate* s);
/* Uniformly random in [0, x); 0 when x is 0. No modulo bias. */
uint32_t ub_random_max(struct ub_randstate* s, uint32_t x);
/* 16 random bits (a query ID). */
uint16_t ub_random16(struct ub_randstate* s);

#endif
