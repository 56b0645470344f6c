/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/stats_cache.c - what the shared caches hold, for the extended
 * statistics of both the remote control (stats) and the Prometheus
 * endpoint: one place that knows where each figure comes from. */
#include "config.h"
#include "daemon/stats.h"
#include "daemon/daemon.h"
#include "services/doh.h"
#include "services/stream_conn.h"
#include "services/cache/infra.h"
#include "services/cache/msgcache.h"
#include "services/cache/rrset.h"
#include <string.h>

void stats_cache_info_fill(const struct daemon* d, struct stats_cache_info* ci)
{
	struct module_cache_info mi;
	int i;
	memset(ci, 0, sizeof(*ci));
	if(d->rrset_cache) {
		ci->mem_rrset = lruhash_get_mem(d->rrset_cache->table);
		ci->rrset_count = lruhash_count(d->rrset_cache->table);
	}
	if(d->msg_cache) {
		ci->mem_msg = lruhash_get_mem(d->msg_cache->table);
		ci->msg_count = lruhash_count(d->msg_cache->table);
	}
	if(d->infra)
		ci->infra_count = infra_count(d->infra);
	ci->mem_http_query = doh_mem_query_buffer();
	ci->mem_http_response = doh_mem_response_buffer();
	ci->mem_stream_wait = stream_wait_bytes();
	/* the modules' global state: its memory (mem.mod.<name>) and what
	 * it holds (key.cache.count: the validator's key cache) */
	for(i = 0; i < STATS_MEM_MODS; i++)
		ci->mem_mod[i] = modstack_get_mem(&d->modules,
			stats_mem_mod_modules[i]);
	modstack_cache_info(&d->modules, &mi);
	ci->key_count = mi.key_count;
}
