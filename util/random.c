/* SPDX-License-Identifier: BSD-3-Clause */
/* util/random.c - buffered CSPRNG draws (see random.h). */
#include "config.h"
#include "util/random.h"
#include "util/log.h"
#include <openssl/rand.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/random.h>

/* 256 bytes per refill: one RAND_bytes call per 128 query IDs. */
#define RND_BUF 256

struct ub_randstate {
	uint8_t buf[RND_BUF];
	size_t pos;   /* next unused byte; RND_BUF: empty */
};

struct ub_randstate* ub_initstate(void)
{
	struct ub_randstate* s = malloc(sizeof(*s));
	if(!s)
		return NULL;
	s->pos = RND_BUF;
	return s;
}

void ub_randfree(struct ub_randstate* s)
{
	if(!s)
		return;
	/* do not leave future-predicting bytes in freed memory */
	memset(s->buf, 0, sizeof(s->buf));
	free(s);
}

/* Predictable IDs and ports would be worse than stopping, so an entropy
 * failure of both sources is fatal. */
static void refill(struct ub_randstate* s)
{
	size_t got = 0;
	if(RAND_bytes(s->buf, RND_BUF) == 1) {
		s->pos = 0;
		return;
	}
	while(got < RND_BUF) {
		ssize_t r = getrandom(s->buf + got, RND_BUF - got, 0);
		if(r < 0 && errno == EINTR)
			continue;
		if(r <= 0)
			fatal_exit("no random numbers: RAND_bytes and "
				"getrandom failed");
		got += (size_t)r;
	}
	s->pos = 0;
}

static void take(struct ub_randstate* s, void* out, size_t n)
{
	if(s->pos + n > RND_BUF)
		refill(s);
	memcpy(out, s->buf + s->pos, n);
	/* used bytes are wiped so a memory dump does not reveal them */
	memset(s->buf + s->pos, 0, n);
	s->pos += n;
}

uint32_t ub_random(struct ub_randstate* s)
{
	uint32_t v;
	take(s, &v, sizeof(v));
	return v;
}

uint16_t ub_random16(struct ub_randstate* s)
{
	uint16_t v;
	take(s, &v, sizeof(v));
	return v;
}

uint32_t ub_random_max(struct ub_randstate* s, uint32_t x)
{
	/* accept only draws below the largest multiple of x in 2^32 */
	uint64_t limit;
	uint32_t v;
	if(x <= 1)
		return 0;
	limit = ((uint64_t)1 << 32) / x * x;
	do {
		v = ub_random(s);
	} while((uint64_t)v >= limit);
	return v % x;
}
