/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/fuzz/fuzz_control.c - what a remote control client sends
 * once connected ("UBCT1 command args\n", then load_cache data or the
 * lines of a bulk command): the control connection's state machine
 * (daemon/remote.c: line reading, too long lines, data up to "EOF",
 * bulk lines up to "\004") and the commands (remote_cmd.c,
 * remote_local.c, remote_zones.c, remote_option.c, remote_cache.c,
 * cacheload.c), on one end of a socketpair (daemon_remote_adopt, as
 * accept does, without TLS). The daemon has the config, local zones
 * and caches of the query harnesses and no worker threads (commands
 * for them answer "error no worker thread"). Every input starts from
 * the same state: the config is put back and the caches refilled
 * afterwards, so a finding replays alone. */
#include "config.h"
#include "testdata/fuzz/fuzz_env.h"
#include "daemon/daemon.h"
#include "daemon/remote.h"
#include "daemon/remote_cmd.h"
#include "daemon/cachedump.h"
#include "services/cache/msgcache.h"
#include "services/cache/rrset.h"
#include "util/log.h"
#include "services/stream_conn.h"
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static struct daemon* d;
static struct serve_env* start_env;

static int still_open(void* arg)
{
	return stream_pool_num_open(((struct daemon_remote*)arg)->pool) > 0;
}

/* Back to the state every input starts from. */
static void restore(void)
{
	size_t nr, nm;
	char err[256];
	if(d->env != start_env) {
		atomic_fetch_add(&start_env->refs, 1);
		daemon_env_publish(d, start_env);
	}
	rrset_cache_flush_all(d->rrset_cache);
	msg_cache_flush_all(d->msg_cache);
	if(!cache_load(d->rrset_cache, d->msg_cache, FUZZ_CACHE_DUMP,
		strlen(FUZZ_CACHE_DUMP), FUZZ_T0, &nr, &nm, err, sizeof(err)))
		abort();
	fuzz_quiet_logs();
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	int sv[2];
	if(!d) {
		fuzz_quiet_logs();
		d = fuzz_daemon_create(FUZZ_SERVE_CONF);
		d->base = event_base_new();
		d->rc = daemon_remote_create(d, d->env->cfg);
		if(!d->base || !d->rc || !daemon_remote_start(d->rc, d->base))
			abort();
		start_env = d->env;
		atomic_fetch_add(&start_env->refs, 1);
	}
	if(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
		sv) != 0) {
		perror("socketpair");
		abort();
	}
	if(!daemon_remote_adopt(d->rc, sv[0], 0))
		abort();
	if(!fuzz_pump(d->base, sv[1], data, size, 1 << 20, still_open, d->rc,
		NULL, NULL)) {
		fprintf(stderr, "the control connection stayed open after "
			"the client was done\n");
		abort();
	}
	close(sv[1]);
	restore();
	return 0;
}
