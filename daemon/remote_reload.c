/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/remote_reload.c - the reload commands of the control channel:
 * reload, reload_keep_cache and fast_reload. The new config is built in
 * a thread (daemon/reload.h) while the control channel keeps serving
 * other connections; this command's connection gets its answer when
 * the new config is published or refused. */
#include "config.h"
#include "daemon/remote_cmd.h"
#include "daemon/daemon.h"
#include "daemon/reload.h"
#include "util/log.h"
#include "util/strutil.h"
#include <stdlib.h>
#include <string.h>

static void reload_done(void* arg, int ok, const char* text)
{
	(void)ok;
	rc_answer_deferred(arg, text);
}

/* Start o; on RELOAD_STARTED the answer is deferred. */
static void start(struct daemon_remote* rc, const struct reload_opts* o,
	struct strbuf* b)
{
	struct rc_ticket* t;
	if(!rc->d->workers) {
		/* no worker threads to keep answering (the control fuzz
		 * harness): in this thread */
		(void)daemon_reload_inline(rc->d, o, b);
		return;
	}
	if(!(t = calloc(1, sizeof(*t)))) {
		strbuf_printf(b, "error out of memory\n");
		return;
	}
	t->rc = rc;
	t->slot = rc->cur_slot;
	switch(daemon_reload_start(rc->d, o, reload_done, t)) {
	case RELOAD_STARTED:
		rc->deferred = t;
		return;
	case RELOAD_BUSY:
		free(t);
		log_err("fast reload thread already running");
		strbuf_printf(b, "error: a reload is already running; try "
			"again when it is done\n");
		return;
	case RELOAD_FAILED:
		free(t);
		break;
	}
	/* no thread: in this one */
	(void)daemon_reload_inline(rc->d, o, b);
}

void rc_do_reload(struct daemon_remote* rc, char* args, int keep,
	struct strbuf* b)
{
	struct reload_opts o;
	char* w;
	args = str_skip_blank(args);
	w = args;
	if(*w) {
		/* compat: unbound-1.17: Unbound 1.17's only option */
		if(strcmp(w, "+keep-cache") != 0 || keep) {
			strbuf_printf(b, "error unknown option '%s'\n", w);
			return;
		}
		keep = 1;
	}
	memset(&o, 0, sizeof(o));
	o.kind = RELOAD_FULL;
	o.keep_cache = keep;
	start(rc, &o, b);
}

void rc_do_fast_reload(struct daemon_remote* rc, char* args,
	struct strbuf* b)
{
	struct reload_opts o;
	if(!reload_parse_fast_opts(args, &o, b))
		return;
	start(rc, &o, b);
}
