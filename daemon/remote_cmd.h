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

#define RC_MAX_LISTEN 16

struct rc_listener {
	struct daemon_remote* owner;
	int fd;
	int use_ssl;
	struct event* ev;
	char* unix_path;         /* to unlink at close */
};

struct daemon_remote {
	struct daemon* d;
	struct event_base* base;
	SSL_CTX* ctx;            /* NULL without control-use-cert */
	struct rc_listener listen[RC_MAX_LISTEN];
	int num_listen;
	struct rc_conn* conns;
	int num_conns;
	/* statistics: the counters at the last reset, per thread */
	struct worker_stats* base_stats;
	int num_base;
	struct timespec start, last;   /* CLOCK_REALTIME */
	struct event* stat_timer;
};

/* What to do once the answer is written and the connection closed. */
enum rc_after { RC_AFTER_NONE = 0, RC_AFTER_STOP };

/* Run one command line ("stats_noreset", "flush example.com"), writing
 * the answer to out. Returns what to do after the answer is sent. */
int rc_cmd_execute(struct daemon_remote* rc, char* cmd, struct strbuf* out);
/* Parse a domain name argument into out (lowercased wire format);
 * on error the error line goes to out and 0 is returned. */
int rc_parse_name(char* arg, uint8_t* out, struct strbuf* b);
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
/* reload [+keep-cache] (keep 0) and reload_keep_cache (keep 1). */
void rc_do_reload(struct daemon_remote* rc, char* args, int keep,
	struct strbuf* b);
/* dump_infra, flush_infra all|IP[@port], dump_requestlist (thread 0's
 * queries, read in that thread). */
void rc_do_dump_infra(struct daemon_remote* rc, struct strbuf* b);
void rc_do_flush_infra(struct daemon_remote* rc, char* arg,
	struct strbuf* b);
void rc_do_dump_requestlist(struct daemon_remote* rc, struct strbuf* b);
/* Do it (stop the daemon). */
void rc_cmd_after(struct daemon_remote* rc, int after);
/* Sum the threads' statistics (since the last reset) and print them;
 * reset: record a new baseline unless statistics-cumulative. */
void rc_print_stats(struct daemon_remote* rc, struct strbuf* out, int reset);
/* The statistics-interval timer's work: log one line per thread. */
void rc_log_stats(struct daemon_remote* rc);

#endif
