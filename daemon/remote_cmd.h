/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/remote_cmd.h - internal to the remote control: its state, shared
 * by the connection handling (remote.c) and the commands
 * (remote_cmd.c). Main thread only. */
#ifndef DAEMON_REMOTE_CMD_H
#define DAEMON_REMOTE_CMD_H
#include "daemon/worker.h"
#include "daemon/stats.h"
#include <openssl/ssl.h>
#include <time.h>

struct daemon;
struct rc_conn;
struct event;
struct event_base;
struct stream_pool;

#define RC_MAX_LISTEN 16

struct rc_listener {
	struct daemon_remote* owner;
	int fd;
	int use_ssl;
	char* unix_path;         /* to unlink at close */
};

struct daemon_remote {
	struct daemon* d;
	struct event_base* base;
	SSL_CTX* ctx;            /* NULL without control-use-cert */
	struct rc_listener listen[RC_MAX_LISTEN];
	int num_listen;
	struct stream_pool* pool;  /* the connections (services/stream_conn.h) */
	struct rc_conn* slots;     /* the protocol's state of each */
	/* statistics: the counters at the last reset, per thread */
	struct worker_stats* base_stats;
	int num_base;
	struct timespec start, last;   /* CLOCK_REALTIME */
	struct event* stat_timer;
	/* the connection whose command runs now (rc_cmd_execute), and
	 * whether the command deferred its answer to a ticket */
	int cur_slot;
	struct rc_ticket* deferred;
};

/* A deferred answer's way back to its connection. */
struct rc_ticket {
	struct daemon_remote* rc;
	int slot;
	uint32_t gen;
};

/* What to do once the answer is written and the connection closed. */
enum rc_after { RC_AFTER_NONE = 0, RC_AFTER_STOP };

/* Run one command line ("stats_noreset", "flush example.com"), writing
 * the answer to out. Returns what to do after the answer is sent. */
int rc_cmd_execute(struct daemon_remote* rc, char* cmd, struct strbuf* out);
/* Parse a domain name argument into out (lowercased wire format);
 * on error the error line goes to out and 0 is returned. */
int rc_parse_name(char* arg, uint8_t* out, struct strbuf* b);
/* compat: unbound-1.17: Why Unbound's name parser refuses s, and where (for
 * its messages). */
const char* rc_name_error(const char* s, int* pos);
/* lookup NAME: the closest cached delegation, its addresses and what
 * the infrastructure cache knows of them (remote_lookup.c). */
void rc_do_lookup(struct daemon_remote* rc, char* arg, struct strbuf* b);
/* list_stubs (forwards 0: root hints and stub zones) or list_forwards
 * (forwards 1), from the current config's hints. */
void rc_do_list_hints(struct daemon_remote* rc, int forwards,
	struct strbuf* b);
/* The cache commands (remote_cache.c). */
void rc_do_dump_cache(struct daemon_remote* rc, struct strbuf* b);
/* Does this command line read data after it (load_cache)? */
int rc_cmd_wants_data(const char* cmd);
/* The most data such a command may send. */
size_t rc_data_max(struct daemon_remote* rc);
/* load_cache with the data the client sent after the command line. */
void rc_do_load_cache(struct daemon_remote* rc, const char* data,
	size_t len, struct strbuf* b);
/* reload [+keep-cache] (keep 0) and reload_keep_cache (keep 1), and
 * fast_reload [+dpv] (remote_reload.c): the config is built in a thread
 * (daemon/reload.h); the command's connection waits for the answer
 * (rc->deferred set), which rc_answer_deferred writes. */
void rc_do_reload(struct daemon_remote* rc, char* args, int keep,
	struct strbuf* b);
void rc_do_fast_reload(struct daemon_remote* rc, char* args,
	struct strbuf* b);
/* The deferred answer of the command of connection slot (remote.c). */
struct rc_ticket;
void rc_answer_deferred(struct rc_ticket* t, const char* text);
/* dump_infra, flush_infra all|IP[@port], dump_requestlist (thread 0's
 * queries, read in that thread). */
void rc_do_dump_infra(struct daemon_remote* rc, struct strbuf* b);
void rc_do_flush_infra(struct daemon_remote* rc, char* arg,
	struct strbuf* b);
void rc_do_dump_requestlist(struct daemon_remote* rc, struct strbuf* b);
/* ratelimit_list [+a] (ip 0) and ip_ratelimit_list [+a] (ip 1)
 * (remote_rate.c); arg is the rest of the line (NULL: none). */
void rc_do_ratelimit_list(struct daemon_remote* rc, const char* arg,
	int ip, struct strbuf* b);
/* compat: unbound-1.17: Unbound's find_arg2: cut arg after its first word,
 * *arg2 the rest; "error could not find next argument after ..." when there is
 * none. */
int rc_find_arg2(char* arg, char** arg2, struct strbuf* b);
/* The local zone commands (remote_local.c): p is the command line, args
 * just past its first word. Returns 0 if p is not one of them. */
int rc_local_cmd(struct daemon_remote* rc, const char* p, char* args,
	struct strbuf* b);
/* compat: unbound-1.17: The bulk forms (local_zones, local_zones_remove,
 * local_datas, local_datas_remove) read lines after the command line, up to a
 * line "\004" (Unbound's unbound-control sends stdin so). rc_bulk_start: NULL
 * when cmd is not one of them (or out of memory); each line then goes to
 * rc_bulk_line (0: that was the end marker); rc_bulk_finish applies them all,
 * writes the answer and frees k. */
struct rc_bulk;
struct rc_bulk* rc_bulk_start(const char* cmd);
int rc_bulk_line(struct rc_bulk* k, const char* line);
/* A line longer than RC_LINE_MAX, start (not 0-terminated) is its
 * first RC_LINE_MAX bytes: it is left out, with an error line. */
void rc_bulk_too_long(struct rc_bulk* k, const char* start);
void rc_bulk_finish(struct daemon_remote* rc, struct rc_bulk* k,
	struct strbuf* b);
void rc_bulk_delete(struct rc_bulk* k);
/* compat: unbound-1.17: local_data text: 0 (with Unbound's error line, and its
 * position in the text) when it has one of the common mistakes
 * (remote_rr_error.c); rc_rr_refused: the line for text the local zones
 * refused otherwise. line: the input line of a bulk command, 0 for local_data.
 */
int rc_rr_check(const char* text, int line, struct strbuf* b);
void rc_rr_refused(const char* text, int line, struct strbuf* b);
/* Publish a serve_env from cfg (a changed copy of the current config,
 * taken over) and a copy of the current local zones; answers "ok", or
 * err when the snapshot cannot be built (remote_zones.c). */
struct config_file;
void rc_publish_cfg(struct daemon_remote* rc, struct config_file* cfg,
	const char* err, struct strbuf* b);
/* set_option OPTION: VALUE (remote_option.c). */
void rc_do_set_option(struct daemon_remote* rc, char* arg, struct strbuf* b);
/* forward, forward_add/_remove, stub_add/_remove, insecure_add/_remove,
 * list_insecure and set_option (remote_zones.c); 0 if p is none. */
int rc_zones_cmd(struct daemon_remote* rc, const char* p, char* args,
	struct strbuf* b);
/* add_cookie_secret, activate_cookie_secret, drop_cookie_secret,
 * print_cookie_secrets (remote_cookie.c); 0 if p is none. */
int rc_cookie_cmd(struct daemon_remote* rc, const char* p, char* args,
	struct strbuf* b);
/* Do it (stop the daemon). */
void rc_cmd_after(struct daemon_remote* rc, int after);
/* Sum the threads' statistics (since the last reset) and print them;
 * reset: record a new baseline unless statistics-cumulative. */
void rc_print_stats(struct daemon_remote* rc, struct strbuf* out, int reset);
/* The statistics-interval timer's work: log one line per thread. */
void rc_log_stats(struct daemon_remote* rc);

#endif
