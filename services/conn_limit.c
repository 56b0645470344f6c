/* SPDX-License-Identifier: BSD-3-Clause */
/* services/conn_limit.c - tcp-connection-limit: per-netblock counts of
 * open stream connections. The netblocks are few and looked at only at
 * accept, so they are a list, longest prefix first: the first match is
 * the longest. */
#include "config.h"
#include "services/conn_limit.h"
#include "util/config_file.h"
#include "util/log.h"
#include "util/net_help.h"
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct conn_limit_entry {
	struct conn_limit* table;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	int net;
	unsigned limit;
	atomic_uint count;       /* connections open now */
};

struct conn_limit {
	struct conn_limit_entry* entries;  /* longest prefix first */
	int num;
	atomic_int refs;
};

static int by_prefix(const void* a, const void* b)
{
	const struct conn_limit_entry* x = a;
	const struct conn_limit_entry* y = b;
	return y->net - x->net;
}

static int is_duplicate(const struct conn_limit* cl,
	const struct conn_limit_entry* e)
{
	int i;
	for(i = 0; i < cl->num; i++)
		if(cl->entries[i].net == e->net && sockaddr_cmp(
			&cl->entries[i].addr, cl->entries[i].addrlen,
			&e->addr, e->addrlen) == 0)
			return 1;
	return 0;
}

/* One "netblock limit" line into the next free entry; 0 when bad. */
static int add_line(struct conn_limit* cl, const char* block,
	const char* limit)
{
	struct conn_limit_entry* e = &cl->entries[cl->num];
	char* end;
	long n = strtol(limit, &end, 10);
	if(*limit == 0 || *end != 0 || n < 0 || n > (long)0x7fffffff) {
		log_err("bad connection limit %s", limit);
		return 0;
	}
	if(!netblockstrtoaddr(block, 53, &e->addr, &e->addrlen, &e->net)) {
		log_err("cannot parse connection limit netblock: %s", block);
		return 0;
	}
	e->table = cl;
	e->limit = (unsigned)n;
	atomic_init(&e->count, 0);
	/* compat: unbound-1.17: a netblock given again is ignored */
	if(is_duplicate(cl, e)) {
		verbose(VERB_QUERY, "duplicate tcp-connection-limit "
			"netblock %s ignored", block);
		return 1;
	}
	cl->num++;
	return 1;
}

int conn_limit_create(const struct config_file* cfg, struct conn_limit** out)
{
	const struct config_str2list* p;
	struct conn_limit* cl;
	int n = 0;
	*out = NULL;
	for(p = cfg->tcp_conn_limits; p; p = p->next)
		n++;
	if(n == 0)
		return 1;
	if(!(cl = calloc(1, sizeof(*cl))) ||
		!(cl->entries = calloc((size_t)n, sizeof(*cl->entries)))) {
		free(cl);
		log_err("tcp-connection-limit: out of memory");
		return 0;
	}
	atomic_init(&cl->refs, 1);
	for(p = cfg->tcp_conn_limits; p; p = p->next) {
		if(!add_line(cl, p->str, p->str2)) {
			conn_limit_release(cl);
			return 0;
		}
	}
	qsort(cl->entries, (size_t)cl->num, sizeof(*cl->entries), by_prefix);
	*out = cl;
	return 1;
}

struct conn_limit* conn_limit_ref(struct conn_limit* cl)
{
	if(cl)
		atomic_fetch_add(&cl->refs, 1);
	return cl;
}

void conn_limit_release(struct conn_limit* cl)
{
	if(!cl || atomic_fetch_sub(&cl->refs, 1) != 1)
		return;
	free(cl->entries);
	free(cl);
}

enum conn_limit_outcome conn_limit_take(struct conn_limit* cl,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	struct conn_limit_entry** held)
{
	struct conn_limit_entry* e = NULL;
	unsigned now;
	int i;
	for(i = 0; i < cl->num; i++) {
		if(addr_in_netblock(addr, addrlen, &cl->entries[i].addr,
			cl->entries[i].addrlen, cl->entries[i].net)) {
			e = &cl->entries[i];
			break;
		}
	}
	if(!e)
		return CONN_LIMIT_FREE;
	/* workers accept at the same time: only a count still under the
	 * limit is raised */
	now = atomic_load_explicit(&e->count, memory_order_relaxed);
	do {
		if(now >= e->limit)
			return CONN_LIMIT_OVER;
	} while(!atomic_compare_exchange_weak_explicit(&e->count, &now,
		now + 1, memory_order_relaxed, memory_order_relaxed));
	conn_limit_ref(cl);
	*held = e;
	return CONN_LIMIT_COUNTED;
}

void conn_limit_give(struct conn_limit_entry* e)
{
	atomic_fetch_sub_explicit(&e->count, 1, memory_order_relaxed);
	conn_limit_release(e->table);
}
