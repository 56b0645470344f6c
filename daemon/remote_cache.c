/* daemon/remote_cache.c - the cache control commands: dump_cache,
 * load_cache, reload (+keep-cache), dump_infra, flush_infra,
 * dump_requestlist. Main thread; the caches lock inside, and a worker's
 * mesh is only read in that worker's own thread. */
#include "config.h"
#include "daemon/remote_cmd.h"
#include "daemon/cachedump.h"
#include "daemon/daemon.h"
#include "services/cache/msgcache.h"
#include "services/cache/rrset.h"
#include "util/config_file.h"
#include "util/log.h"
#include <stdlib.h>
#include <string.h>

void rc_do_dump_cache(struct daemon_remote* rc, struct strbuf* b)
{
	cache_dump(rc->d->rrset_cache, rc->d->msg_cache, time(NULL), b);
}

int rc_cmd_wants_data(const char* cmd)
{
	size_t n = strlen("load_cache");
	while(*cmd == ' ' || *cmd == '\t')
		cmd++;
	return strncmp(cmd, "load_cache", n) == 0 && (cmd[n] == 0 ||
		cmd[n] == ' ' || cmd[n] == '\t');
}

size_t rc_data_max(struct daemon_remote* rc)
{
	const struct config_file* cfg = rc->d->env->cfg;
	/* text is a few times the size of what it fills */
	return 4 * (cfg->msg_cache_size + cfg->rrset_cache_size) +
		((size_t)16 << 20);
}

void rc_do_load_cache(struct daemon_remote* rc, const char* data,
	size_t len, struct strbuf* b)
{
	char err[320];
	size_t nr = 0, nm = 0;
	if(!cache_load(rc->d->rrset_cache, rc->d->msg_cache, data, len,
		time(NULL), &nr, &nm, err, sizeof(err))) {
		/* Unbound's answer; the detail goes to the log */
		log_warn("load_cache: %s", err);
		strbuf_printf(b, "error load failed\n");
		return;
	}
	verbose(VERB_OPS, "load_cache: %lu rrsets and %lu messages loaded",
		(unsigned long)nr, (unsigned long)nm);
	strbuf_printf(b, "ok\n");
}

void rc_do_reload(struct daemon_remote* rc, char* args, int keep,
	struct strbuf* b)
{
	char* w;
	while(*args == ' ' || *args == '\t')
		args++;
	w = args;
	if(*w) {
		/* Unbound 1.17's only option */
		if(strcmp(w, "+keep-cache") != 0 || keep) {
			strbuf_printf(b, "error unknown option '%s'\n", w);
			return;
		}
		keep = 1;
	}
	if(daemon_reload_keep(rc->d, keep))
		strbuf_printf(b, "ok\n");
	else	strbuf_printf(b, "error reload failed: errors in the "
			"configuration; still serving the previous "
			"configuration\n");
}
