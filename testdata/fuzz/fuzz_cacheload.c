/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/fuzz/fuzz_cacheload.c - load_cache input: the dump_cache
 * text format read by cache_load (daemon/cacheload.c) into an RRset
 * and a message cache. Checked besides the sanitizers: what loaded
 * dumps again (cache_dump), and that dump loads into empty caches
 * (the format round-trips). The caches are emptied for every input. */
#include "config.h"
#include "testdata/fuzz/fuzz_env.h"
#include "daemon/cachedump.h"
#include "daemon/stats.h"
#include "services/cache/msgcache.h"
#include "services/cache/rrset.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct rrset_cache* r1, *r2;
static struct msg_cache* m1, *m2;

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	size_t nr, nm;
	char err[256];
	struct strbuf b = { NULL, 0, 0, 0 };
	if(!r1) {
		fuzz_quiet_logs();
		r1 = rrset_cache_create(1 << 20, 4, 0, 86400);
		r2 = rrset_cache_create(1 << 20, 4, 0, 86400);
		m1 = msg_cache_create(1 << 20, 4, 0, 86400, 3600);
		m2 = msg_cache_create(1 << 20, 4, 0, 86400, 3600);
		if(!r1 || !r2 || !m1 || !m2)
			abort();
	}
	rrset_cache_flush_all(r1);
	msg_cache_flush_all(m1);
	if(!cache_load(r1, m1, (const char*)data, size, FUZZ_T0, &nr, &nm,
		err, sizeof(err)))
		return 0;
	cache_dump(r1, m1, FUZZ_T0, &b);
	if(b.oom)
		abort();
	rrset_cache_flush_all(r2);
	msg_cache_flush_all(m2);
	if(!cache_load(r2, m2, b.s, b.len, FUZZ_T0, &nr, &nm, err,
		sizeof(err))) {
		fprintf(stderr, "the dump of a loaded cache does not load: "
			"%s\n%s", err, b.s);
		abort();
	}
	strbuf_clear(&b);
	return 0;
}
