/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/reload.h - a reload whose new config is read and built in a
 * thread of its own, then published by the main thread: SIGHUP,
 * unbound-control reload and reload_keep_cache, and fast_reload
 * (Unbound 1.23). The workers answer with the old env all the while and
 * take the new one between two queries; the main thread (control
 * channel, signals, zone transfers) is not held up either. One at a
 * time. */
#ifndef DAEMON_RELOAD_H
#define DAEMON_RELOAD_H

struct daemon;
struct strbuf;

enum reload_kind {
	RELOAD_FULL,   /* reload: statistics reset, caches dropped */
	RELOAD_FAST    /* fast_reload: both kept, run-time checks */
};

struct reload_opts {
	enum reload_kind kind;
	int keep_cache;   /* RELOAD_FULL: reload +keep-cache */
	int verbose;      /* fast_reload +v count: timings, +vv memory */
	int nopause;      /* +p */
	int drop_mesh;    /* +d: drop the queries in progress */
};

/* The main thread is told the outcome: ok, and the text for the
 * control client (fast_reload's lines; "ok" or an error for reload). */
typedef void (*reload_done_fn)(void* arg, int ok, const char* text);

enum reload_start {
	RELOAD_STARTED,
	RELOAD_BUSY,       /* one is running already */
	RELOAD_FAILED      /* no memory, or no thread (logged) */
};

/* Main thread: start reading d's config file in a new thread. done
 * (may be NULL) runs in the main thread once it is published or
 * refused. */
enum reload_start daemon_reload_start(struct daemon* d,
	const struct reload_opts* o, reload_done_fn done, void* arg);
/* The same in this thread, blocking it (no worker threads: the control
 * fuzz harness; or no thread could be started); the answer's text goes
 * to b. Returns 1 when the new config is in use. */
int daemon_reload_inline(struct daemon* d, const struct reload_opts* o,
	struct strbuf* b);
/* The requester of the running reload, arg, goes away: no callback. */
void daemon_reload_forget(struct daemon* d, void* arg);
/* At exit: wait for the thread and drop what it built. */
void daemon_reload_stop(struct daemon* d);
/* fast_reload's options ("+vpd", several words); 0 with the error line
 * in b. */
int reload_parse_fast_opts(const char* args, struct reload_opts* o,
	struct strbuf* b);

#endif
