/* SPDX-License-Identifier: BSD-3-Clause */
/* services/port_pool.c - the shared pool of outgoing source ports. */
#include "config.h"
#include "services/port_pool.h"
#include "util/config_file.h"
#include "util/log.h"
#include "util/random.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

/* The allowed set as runs of consecutive ports (the default is one run,
 * 1024-65535): a draw is a random index into the set, found by a binary
 * search over the runs, and a port is taken by a bit in an 8 KiB map.
 * A take then reads one or two cache lines that stay warm, where an
 * array of free ports (128 KiB, with its index) cost a cold line or
 * more for each of the draw, the swap and the return. */
struct port_run {
	uint32_t before;     /* allowed ports in the runs before this one */
	uint16_t lo, len_1;  /* ports lo .. lo + len_1 */
};

#define PORT_WORDS (PORT_SET_SIZE / 64)
/* draws among the allowed ports before the exact draw among the free
 * ones: with at least a quarter of them free, all 16 miss once in
 * 10^2 takes (the default outgoing-range holds far fewer) */
#define PORT_DRAW_TRIES 16

struct port_pool {
	pthread_mutex_t lock;
	struct port_run* runs;
	int num_runs;
	int num_allowed;
	int num_free;        /* allowed and not taken */
	int kernel_lo, kernel_hi; /* ports the kernel may draw; 0: none */
	int kernel_all;      /* every allowed port lies in kernel_lo-hi */
	int kernel_out;      /* PORT_POOL_KERNEL handed out */
	int inuse;
	int max_inuse;       /* outgoing-range */
	uint64_t taken[PORT_WORDS];   /* handed out */
	uint64_t allowed[PORT_WORDS]; /* the set now; a port taken under
	                      * an older set is not freed again */
};

static int bit(const uint64_t* map, int port)
{
	return (int)((map[port >> 6] >> (port & 63)) & 1);
}

static void bit_set(uint64_t* map, int port, int on)
{
	if(on)
		map[port >> 6] |= (uint64_t)1 << (port & 63);
	else	map[port >> 6] &= ~((uint64_t)1 << (port & 63));
}

/* Runs and bitmap of the allowed set avail (under the lock, or before
 * the pool is shared). 0: out of memory, the pool unchanged. */
static int set_allowed(struct port_pool* p, const uint8_t* avail)
{
	int i, n = 0, count = 0;
	struct port_run* runs;
	for(i = 0; i < PORT_SET_SIZE; i++)
		if(avail[i] && (i == 0 || !avail[i - 1]))
			n++;
	if(!(runs = malloc((size_t)(n ? n : 1) * sizeof(*runs))))
		return 0;
	n = 0;
	memset(p->allowed, 0, sizeof(p->allowed));
	for(i = 0; i < PORT_SET_SIZE; i++) {
		if(!avail[i])
			continue;
		bit_set(p->allowed, i, 1);
		if(i == 0 || !avail[i - 1]) {
			runs[n].before = (uint32_t)count;
			runs[n].lo = (uint16_t)i;
			runs[n].len_1 = 0;
			n++;
		} else	runs[n - 1].len_1++;
		count++;
	}
	free(p->runs);
	p->runs = runs;
	p->num_runs = n;
	p->num_allowed = count;
	p->num_free = 0;
	for(i = 0; i < PORT_SET_SIZE; i++)
		if(avail[i] && !bit(p->taken, i))
			p->num_free++;
	return 1;
}

/* The allowed port at index i (0 <= i < num_allowed) of the set. */
static int port_at(const struct port_pool* p, uint32_t i)
{
	int lo = 0, hi = p->num_runs - 1;
	while(lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if(p->runs[mid].before <= i)
			lo = mid;
		else	hi = mid - 1;
	}
	return p->runs[lo].lo + (int)(i - p->runs[lo].before);
}

/* A free allowed port, uniform among them (num_free > 0, under the
 * lock): draws among the allowed ports until one is free (each such
 * draw is uniform among the free ones), else the k-th free one. */
static int draw_free(struct port_pool* p, struct ub_randstate* rnd)
{
	int t, r, k;
	for(t = 0; t < PORT_DRAW_TRIES; t++) {
		int port = port_at(p, ub_random_max(rnd,
			(uint32_t)p->num_allowed));
		if(!bit(p->taken, port))
			return port;
	}
	/* the walk covers the allowed ports only: a small permitted set
	 * that is nearly all in use (where the draws above miss most)
	 * costs its own size, not 65,536 */
	r = (int)ub_random_max(rnd, (uint32_t)p->num_free);
	for(k = 0; k < p->num_runs; k++) {
		int port, end = p->runs[k].lo + p->runs[k].len_1;
		for(port = p->runs[k].lo; port <= end; port++)
			if(!bit(p->taken, port) && r-- == 0)
				return port;
	}
	return -1;   /* not reached: num_free counts them */
}

/* port (allowed or not) marked taken / given back (under the lock) */
static void mark_taken(struct port_pool* p, int port)
{
	bit_set(p->taken, port, 1);
	if(bit(p->allowed, port))
		p->num_free--;
}

static void mark_free(struct port_pool* p, int port)
{
	bit_set(p->taken, port, 0);
	if(bit(p->allowed, port))
		p->num_free++;
}

void port_set_default(uint8_t* avail)
{
	memset(avail, 0, 1024);
	memset(avail + 1024, 1, PORT_SET_SIZE - 1024);
}

/* A decimal port 0..65535 from s to end (no sign, no garbage). */
static int parse_port(const char* s, const char* end, int* port)
{
	long v = 0;
	if(s == end)
		return 0;
	for(; s < end; s++) {
		if(!isdigit((unsigned char)*s))
			return 0;
		v = v * 10 + (*s - '0');
		if(v > 65535)
			return 0;
	}
	*port = (int)v;
	return 1;
}

int port_set_mark(uint8_t* avail, const char* str, int allow)
{
	const char* dash = strchr(str, '-');
	const char* end = str + strlen(str);
	int lo, hi;
	/* trailing/leading spaces are not part of a port */
	while(str < end && isspace((unsigned char)*str))
		str++;
	while(end > str && isspace((unsigned char)end[-1]))
		end--;
	if(dash) {
		const char* a = dash, *b = dash + 1;
		while(a > str && isspace((unsigned char)a[-1]))
			a--;
		while(b < end && isspace((unsigned char)*b))
			b++;
		if(!parse_port(str, a, &lo) || !parse_port(b, end, &hi))
			return 0;
	} else {
		if(!parse_port(str, end, &lo))
			return 0;
		hi = lo;
	}
	if(lo > hi)
		return 0;
	memset(avail + lo, allow ? 1 : 0, (size_t)(hi - lo + 1));
	avail[0] = 0;  /* port 0 would let the kernel choose: never */
	return 1;
}

int port_set_from_cfg(uint8_t* avail, const struct config_file* cfg)
{
	/* outgoing-port-permit and -avoid, in file order */
	const struct config_str2list* u;
	port_set_default(avail);
	for(u = cfg->outgoing_port_ranges; u; u = u->next) {
		int allow = strcmp(u->str, "outgoing-port-permit") == 0;
		if(!port_set_mark(avail, u->str2, allow)) {
			log_err("bad port range '%s' for %s", u->str2,
				u->str);
			return 0;
		}
	}
	return 1;
}

int port_set_count(const uint8_t* avail)
{
	int i, n = 0;
	for(i = 0; i < PORT_SET_SIZE; i++)
		if(avail[i])
			n++;
	return n;
}

struct port_pool* port_pool_create(const uint8_t* avail, int max_inuse)
{
	struct port_pool* p;
	int n = port_set_count(avail);
	if(n == 0) {
		log_err("no outgoing ports available: check "
			"outgoing-port-permit and outgoing-port-avoid");
		return NULL;
	}
	if(max_inuse < 1) {
		log_err("outgoing-range must be at least 1");
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if(!p || !set_allowed(p, avail)) {
		free(p);
		log_err("port pool: out of memory");
		return NULL;
	}
	if(pthread_mutex_init(&p->lock, NULL) != 0) {
		free(p->runs);
		free(p);
		log_err("port pool: mutex init failed");
		return NULL;
	}
	p->max_inuse = max_inuse;
	p->kernel_hi = -1;
	return p;
}

/* Does the kernel's range hold every allowed port? (under the lock) */
static void update_kernel_all(struct port_pool* p)
{
	int i;
	p->kernel_all = p->kernel_lo > 0;
	for(i = 0; i < p->num_runs && p->kernel_all; i++)
		if(p->runs[i].lo < p->kernel_lo ||
			p->runs[i].lo + p->runs[i].len_1 > p->kernel_hi)
			p->kernel_all = 0;
}

int port_pool_reconfigure(struct port_pool* p, const uint8_t* avail,
	int max_inuse)
{
	if(port_set_count(avail) == 0) {
		log_err("no outgoing ports available: check "
			"outgoing-port-permit and outgoing-port-avoid; the "
			"old outgoing ports stay");
		return 0;
	}
	if(max_inuse < 1) {
		log_err("outgoing-range must be at least 1; the old one "
			"stays");
		return 0;
	}
	pthread_mutex_lock(&p->lock);
	if(!set_allowed(p, avail)) {
		pthread_mutex_unlock(&p->lock);
		log_err("port pool: out of memory; the old outgoing ports "
			"stay");
		return 0;
	}
	/* inuse counts the ports still out under the old set too, so
	 * a smaller outgoing-range holds once they came back */
	p->max_inuse = max_inuse;
	update_kernel_all(p);
	pthread_mutex_unlock(&p->lock);
	return 1;
}

void port_pool_delete(struct port_pool* p)
{
	if(!p)
		return;
	pthread_mutex_destroy(&p->lock);
	free(p->runs);
	free(p);
}

int port_pool_take_path(struct port_pool* p, struct ub_randstate* rnd,
	int* by_kernel)
{
	int port = -1;
	if(by_kernel)
		*by_kernel = 0;
	pthread_mutex_lock(&p->lock);
	if(by_kernel && p->kernel_all) {
		if(p->inuse < p->max_inuse) {
			port = PORT_POOL_KERNEL;
			p->kernel_out++;
			p->inuse++;
			*by_kernel = 1;
		}
	} else if(p->inuse < p->max_inuse && p->num_free > 0) {
		port = draw_free(p, rnd);
		mark_taken(p, port);
		p->inuse++;
		if(by_kernel && port >= p->kernel_lo && port <= p->kernel_hi)
			*by_kernel = 1;
	}
	pthread_mutex_unlock(&p->lock);
	return port;
}

int port_pool_take(struct port_pool* p, struct ub_randstate* rnd)
{
	return port_pool_take_path(p, rnd, NULL);
}

int port_pool_exchange(struct port_pool* p, int drawn, int kernel_port)
{
	int ok = 0;
	if(drawn < 0 || drawn >= PORT_SET_SIZE || kernel_port < 0 ||
		kernel_port >= PORT_SET_SIZE)
		return 0;
	pthread_mutex_lock(&p->lock);
	if(drawn == kernel_port)
		ok = bit(p->taken, drawn);
	else if(bit(p->taken, drawn) && !bit(p->taken, kernel_port) &&
		bit(p->allowed, kernel_port)) {
		mark_taken(p, kernel_port);
		mark_free(p, drawn);
		ok = 1;
	}
	pthread_mutex_unlock(&p->lock);
	return ok;
}

void port_pool_set_kernel_range(struct port_pool* p, int lo, int hi)
{
	pthread_mutex_lock(&p->lock);
	p->kernel_lo = lo > 0 && lo <= hi ? lo : 0;
	p->kernel_hi = lo > 0 && lo <= hi ? hi : -1;
	update_kernel_all(p);
	pthread_mutex_unlock(&p->lock);
}

void port_pool_return(struct port_pool* p, int port)
{
	int ok = 0;
	if(port < 0 || port > PORT_POOL_KERNEL)
		return;
	pthread_mutex_lock(&p->lock);
	if(port == PORT_POOL_KERNEL) {
		if(p->kernel_out > 0) {
			p->kernel_out--;
			p->inuse--;
			ok = 1;
		}
	} else if(port < PORT_SET_SIZE && bit(p->taken, port)) {
		mark_free(p, port);
		p->inuse--;
		ok = 1;
	}
	pthread_mutex_unlock(&p->lock);
	if(!ok)
		verbose(VERB_ALGO, "port pool: port %d returned but not in "
			"use", port);
}

/* map's bit for port (allowed or taken) read under the lock; 0 out of
 * range */
static int port_flag(struct port_pool* p, const uint64_t* map, int port)
{
	int r;
	if(port < 0 || port >= PORT_SET_SIZE)
		return 0;
	pthread_mutex_lock(&p->lock);
	r = bit(map, port);
	pthread_mutex_unlock(&p->lock);
	return r;
}

int port_pool_allowed(struct port_pool* p, int port)
{
	return port_flag(p, p->allowed, port);
}

int port_pool_inuse(struct port_pool* p)
{
	int n;
	pthread_mutex_lock(&p->lock);
	n = p->inuse;
	pthread_mutex_unlock(&p->lock);
	return n;
}

int port_pool_is_inuse(struct port_pool* p, int port)
{
	return port_flag(p, p->taken, port);
}
