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

struct port_pool {
	pthread_mutex_t lock;
	uint16_t* free;      /* free allowed ports, unordered */
	int num_free;
	uint16_t* at;        /* at[port]: its index in free while free */
	int kernel_lo, kernel_hi; /* ports the kernel may draw; 0: none */
	int kernel_all;      /* every allowed port lies in kernel_lo-hi */
	int kernel_out;      /* PORT_POOL_KERNEL handed out */
	int inuse;
	int max_inuse;       /* outgoing-range */
	uint8_t taken[PORT_SET_SIZE]; /* 1 while a port is handed out */
	uint8_t allowed[PORT_SET_SIZE]; /* the set now; a port taken under
	                      * an older set is not freed again */
};

/* The free list with at[]: O(1) add, and remove of any port (a port
 * the kernel chose is taken out wherever it lies). */
static void free_add(struct port_pool* p, int port)
{
	p->at[port] = (uint16_t)p->num_free;
	p->free[p->num_free++] = (uint16_t)port;
}

static void free_remove(struct port_pool* p, int port)
{
	int i = p->at[port];
	uint16_t last = p->free[--p->num_free];
	p->free[i] = last;
	p->at[last] = (uint16_t)i;
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
	/* The config keeps these options (not yet fields of config_file)
	 * in cfg->unimplemented, in file order: "server:outgoing-port-..." */
	const struct config_str2list* u;
	port_set_default(avail);
	for(u = cfg->unimplemented; u; u = u->next) {
		int allow;
		if(strcmp(u->str, "server:outgoing-port-permit") == 0)
			allow = 1;
		else if(strcmp(u->str, "server:outgoing-port-avoid") == 0)
			allow = 0;
		else	continue;
		if(!port_set_mark(avail, u->str2, allow)) {
			log_err("bad port range '%s' for %s", u->str2,
				u->str + 7);
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
	int i, n = port_set_count(avail);
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
	/* room for every port: a reload may allow more */
	if(!p || !(p->free = malloc(PORT_SET_SIZE * sizeof(uint16_t))) ||
		!(p->at = malloc(PORT_SET_SIZE * sizeof(uint16_t)))) {
		if(p)
			free(p->free);
		free(p);
		log_err("port pool: out of memory");
		return NULL;
	}
	if(pthread_mutex_init(&p->lock, NULL) != 0) {
		free(p->at);
		free(p->free);
		free(p);
		log_err("port pool: mutex init failed");
		return NULL;
	}
	for(i = 0; i < PORT_SET_SIZE; i++)
		if(avail[i])
			free_add(p, i);
	memcpy(p->allowed, avail, PORT_SET_SIZE);
	p->max_inuse = max_inuse;
	p->kernel_hi = -1;
	return p;
}

/* Does the kernel's range hold every allowed port? (under the lock) */
static void update_kernel_all(struct port_pool* p)
{
	int i;
	p->kernel_all = p->kernel_lo > 0;
	for(i = 0; i < PORT_SET_SIZE && p->kernel_all; i++)
		if(p->allowed[i] && (i < p->kernel_lo || i > p->kernel_hi))
			p->kernel_all = 0;
}

int port_pool_reconfigure(struct port_pool* p, const uint8_t* avail,
	int max_inuse)
{
	int i;
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
	p->num_free = 0;
	for(i = 0; i < PORT_SET_SIZE; i++) {
		p->allowed[i] = avail[i] ? 1 : 0;
		if(p->allowed[i] && !p->taken[i])
			free_add(p, i);
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
	free(p->at);
	free(p->free);
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
		uint32_t i = ub_random_max(rnd, (uint32_t)p->num_free);
		port = p->free[i];
		free_remove(p, port);
		p->taken[port] = 1;
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
		ok = p->taken[drawn];
	else if(p->taken[drawn] && !p->taken[kernel_port] &&
		p->allowed[kernel_port]) {
		free_remove(p, kernel_port);
		p->taken[kernel_port] = 1;
		p->taken[drawn] = 0;
		if(p->allowed[drawn])
			free_add(p, drawn);
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
	} else if(p->taken[port]) {
		p->taken[port] = 0;
		if(p->allowed[port])
			free_add(p, port);
		p->inuse--;
		ok = 1;
	}
	pthread_mutex_unlock(&p->lock);
	if(!ok)
		verbose(VERB_ALGO, "port pool: port %d returned but not in "
			"use", port);
}

/* set[port] (allowed or taken) read under the lock; 0 out of range */
static int port_flag(struct port_pool* p, const uint8_t* set, int port)
{
	int r;
	if(port < 0 || port >= PORT_SET_SIZE)
		return 0;
	pthread_mutex_lock(&p->lock);
	r = set[port];
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
