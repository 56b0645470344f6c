/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/fuzz/fuzz_stats_shm.c - the shared memory statistics segments
 * (shm-enable) as unbound-control stats_shm reads them
 * (stats_shm_print, daemon/stats_shm_text.c): whatever another program
 * left there, every value prints without undefined behaviour. The first
 * byte picks extended and statistics-inhibit-zero; the rest fills the
 * time and memory block, then the total and up to 3 threads. Checked
 * besides the sanitizers: one line per name=value, each ended. */
#include "config.h"
#include "daemon/stats_shm.h"
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 3

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	static struct ub_shm_stat_info info;
	static struct ub_stats_info arr[MAX_THREADS + 1];
	struct strbuf b;
	size_t n, at = 1;
	int threads, i;
	uint8_t flags;
	if(size < 1)
		return 0;
	flags = data[0];
	memset(&info, 0, sizeof(info));
	memset(arr, 0, sizeof(arr));
	n = size - at < sizeof(info) ? size - at : sizeof(info);
	memcpy(&info, data + at, n);
	at += n;
	n = size - at < sizeof(arr) ? size - at : sizeof(arr);
	memcpy(arr, data + at, n);
	/* the config's num-threads: 0 to MAX_THREADS */
	threads = (flags >> 2) % (MAX_THREADS + 1);
	memset(&b, 0, sizeof(b));
	stats_shm_print(&b, &info, arr, threads, flags & 1, (flags >> 1) & 1);
	if(b.oom || !b.s || b.len == 0 || b.s[b.len - 1] != '\n')
		abort();
	for(i = 0; (size_t)i < b.len; i++)
		if(b.s[i] == 0)
			abort();
	strbuf_clear(&b);
	return 0;
}
