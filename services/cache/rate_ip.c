/* SPDX-License-Identifier: BSD-3-Clause */
/* services/cache/rate_ip.c - the ip-ratelimit table (see rate_ip.h for the
 * design and why it is shared). */
#include "config.h"
#include "services/cache/rate_ip.h"
#include "services/cache/rate_window.h"
#include "util/hash_mix.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/rand.h>

/* 28 bytes: the address (IPv4 as ::ffff:a.b.c.d) and its counts */
struct rate_ip_entry {
	uint8_t addr[16];
	struct rate_window w;
};

/* one cache line: the flag and two entries */
struct rate_ip_bucket {
	atomic_uint lock;
	struct rate_ip_entry e[2];
} __attribute__((aligned(64)));

struct rate_ip_table {
	struct rate_ip_bucket* b;   /* in mem, on a 64-byte boundary */
	void* mem;
	size_t mask;          /* buckets - 1 */
	uint64_t seed;        /* against chosen collisions */
	atomic_int holders;   /* the serve_envs that share it */
};

struct rate_ip_table* rate_ip_create(size_t bytes)
{
	struct rate_ip_table* t = calloc(1, sizeof(*t));
	size_t n = 1;
	if(!t)
		return NULL;
	while(n * 2 * sizeof(struct rate_ip_bucket) <= bytes)
		n *= 2;
	/* calloc: pages the table never touches stay unbacked. One bucket
	 * more, to start on a line: a small table (under glibc's mmap
	 * threshold) is only 16-byte aligned */
	t->mem = calloc(n + 1, sizeof(struct rate_ip_bucket));
	if(!t->mem) {
		free(t);
		return NULL;
	}
	t->b = (struct rate_ip_bucket*)(((uintptr_t)t->mem +
		sizeof(struct rate_ip_bucket) - 1) &
		~(uintptr_t)(sizeof(struct rate_ip_bucket) - 1));
	t->mask = n - 1;
	atomic_init(&t->holders, 1);
	if(RAND_bytes((unsigned char*)&t->seed, sizeof(t->seed)) != 1)
		t->seed = (uint64_t)time(NULL) * HASH_MIX_MUL;
	return t;
}

struct rate_ip_table* rate_ip_share(struct rate_ip_table* t)
{
	if(t)
		atomic_fetch_add(&t->holders, 1);
	return t;
}

void rate_ip_delete(struct rate_ip_table* t)
{
	if(!t || atomic_fetch_sub(&t->holders, 1) != 1)
		return;
	free(t->mem);
	free(t);
}

size_t rate_ip_mem(const struct rate_ip_table* t)
{
	return t ? sizeof(*t) + (t->mask + 1) * sizeof(struct rate_ip_bucket)
		: 0;
}

/* The 16-byte key of addr; 0 when it is neither IPv4 nor IPv6. */
static int ip_key(const struct sockaddr_storage* addr, socklen_t addrlen,
	uint8_t key[16])
{
	if(addr->ss_family == AF_INET &&
		addrlen >= (socklen_t)sizeof(struct sockaddr_in)) {
		memset(key, 0, 10);
		key[10] = key[11] = 0xff;
		memcpy(key + 12, &((const struct sockaddr_in*)addr)->sin_addr,
			4);
		return 1;
	}
	if(addr->ss_family == AF_INET6 &&
		addrlen >= (socklen_t)sizeof(struct sockaddr_in6)) {
		memcpy(key, &((const struct sockaddr_in6*)addr)->sin6_addr, 16);
		return 1;
	}
	return 0;
}

/* The last address bytes (the hosts of one network) are the high bits
 * of the second word. A multiply carries bits only upward, so bits that
 * enter the last hash_mix high pass one multiply and a linear shift
 * before the fold's: the index was a near-linear map of the host number,
 * a lattice whose fit to the table depended on the seed (the 1,024
 * hosts of one /23 and one /64 kept 747 to 1,004 of 1,024 over 50
 * seeds, where a random hash keeps 918, sd 9). Xoring the word's high
 * half into its low half puts every byte low, where two multiplies
 * spread it (kept: 891 to 945 over 300 seeds; in a model, as good
 * whichever two bytes of the address vary). Its three instructions are
 * paid back by taking the index from the fold's product without
 * hash_fold32's last xorshift, which moves only bit 63 into the
 * index's lowest bit: the same cost per hit as before. */
static size_t ip_hash(const struct rate_ip_table* t, const uint8_t key[16])
{
	uint64_t a, b;
	memcpy(&a, key, 8);
	memcpy(&b, key + 8, 8);
	return (size_t)((hash_mix(hash_mix(t->seed, a), b ^ (b >> 32)) *
		HASH_FOLD_MUL) >> 32);
}

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define cpu_relax() __asm__ __volatile__("yield")
#else
#define cpu_relax() ((void)0)
#endif

static inline void bucket_lock(struct rate_ip_bucket* b)
{
	while(atomic_exchange_explicit(&b->lock, 1, memory_order_acquire)) {
		while(atomic_load_explicit(&b->lock, memory_order_relaxed))
			cpu_relax();
	}
}

static inline void bucket_unlock(struct rate_ip_bucket* b)
{
	atomic_store_explicit(&b->lock, 0, memory_order_release);
}

int rate_ip_inc(struct rate_ip_table* t, const struct sockaddr_storage* addr,
	socklen_t addrlen, time_t now, int backoff, uint32_t limit,
	int* crossed)
{
	uint8_t key[16];
	struct rate_ip_bucket* b;
	struct rate_ip_entry* e;
	int ok;
	*crossed = 0;
	if(!ip_key(addr, addrlen, key))
		return 1;
	b = &t->b[ip_hash(t, key) & t->mask];
	bucket_lock(b);
	if(memcmp(b->e[0].addr, key, 16) == 0)
		e = &b->e[0];
	else if(memcmp(b->e[1].addr, key, 16) == 0)
		e = &b->e[1];
	else {
		/* a new source: the entry with the lower rate over the
		 * whole window (0 for an unused or idle one) gives way */
		uint32_t r0 = rate_window_max(&b->e[0].w, now, 1);
		uint32_t r1 = rate_window_max(&b->e[1].w, now, 1);
		e = &b->e[r0 <= r1 ? 0 : 1];
		memcpy(e->addr, key, 16);
		rate_window_first(&e->w, now);
		bucket_unlock(b);
		return 1 <= limit;
	}
	ok = rate_window_inc(&e->w, now, backoff, limit, crossed);
	bucket_unlock(b);
	return ok;
}

static void key_str(const uint8_t key[16], char* buf, size_t len)
{
	static const uint8_t mapped[12] = { 0,0,0,0,0,0,0,0,0,0,0xff,0xff };
	if(memcmp(key, mapped, 12) == 0)
		(void)inet_ntop(AF_INET, key + 12, buf, (socklen_t)len);
	else	(void)inet_ntop(AF_INET6, key, buf, (socklen_t)len);
}

/* Has the bucket ever been used? Read without its flag (relaxed loads of
 * the first entry's address, written first): a walk neither writes nor
 * touches the pages of buckets no client reached. */
static int bucket_used(const struct rate_ip_bucket* b)
{
	const uint32_t* w = (const uint32_t*)(const void*)b->e[0].addr;
	int i;
	for(i = 0; i < 4; i++)
		if(__atomic_load_n(&w[i], __ATOMIC_RELAXED))
			return 1;
	return 0;
}

void rate_ip_walk(struct rate_ip_table* t, time_t now, int backoff,
	rate_ip_walk_fn fn, void* arg)
{
	static const uint8_t unused[16];
	size_t i;
	int j;
	for(i = 0; i <= t->mask; i++) {
		struct rate_ip_entry copy[2];
		struct rate_ip_bucket* b = &t->b[i];
		if(!bucket_used(b))
			continue;
		bucket_lock(b);
		memcpy(copy, b->e, sizeof(copy));
		bucket_unlock(b);
		for(j = 0; j < 2; j++) {
			char s[INET6_ADDRSTRLEN];
			if(memcmp(copy[j].addr, unused, 16) == 0)
				continue;
			key_str(copy[j].addr, s, sizeof(s));
			fn(s, rate_window_max(&copy[j].w, now, backoff), arg);
		}
	}
}
