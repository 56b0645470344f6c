/* SPDX-License-Identifier: BSD-3-Clause */
/* util/log.h - compat: unbound-1.17: logging to stderr, a logfile or syslog,
 * in Unbound's format:   [1700000000] unbound[1234:0] info: message The thread
 * number after the colon is the worker that logged the line. */
#ifndef UTIL_LOG_H
#define UTIL_LOG_H
#include <stdarg.h>
#include <sys/socket.h>

enum verbosity_value {
	NO_VERBOSE = 0,  /* only errors */
	VERB_OPS = 1,    /* operational information */
	VERB_DETAIL = 2, /* detailed operational information */
	VERB_QUERY = 3,  /* query level information */
	VERB_ALGO = 4,   /* algorithm level information */
	VERB_CLIENT = 5  /* client level information */
};

/* Current verbosity; set from the config snapshot at start and on reload. */
extern enum verbosity_value verbosity;

#define ATTR_FMT(a, b) __attribute__((format(printf, a, b)))

/* Open the log: filename NULL or "" means stderr; use_syslog wins over a
 * file. chrootdir, when set, is stripped from the front of filename. */
void log_init(const char* filename, int use_syslog, const char* chrootdir);
/* Reopen the logfile (after rotation); keeps settings of log_init. */
void log_reopen(void);
void log_ident_set(const char* ident);     /* default "unbound" */
void log_time_asc(int use_asc);            /* log-time-ascii */
void log_time_iso_set(int iso);            /* log-time-iso */
/* log-thread-id: print each thread's Linux thread id, not its number */
void log_thread_id_set(int use_tid);
/* Set the thread number printed in the prefix for the calling thread. */
void log_thread_set(int num);
int log_thread_get(void);

void log_info(const char* format, ...) ATTR_FMT(1, 2);
/* An info line with another tag than "info" (log-tag-queryreply's
 * "query" and "reply"). */
void log_tagged(const char* tag, const char* format, ...) ATTR_FMT(2, 3);
void log_err(const char* format, ...) ATTR_FMT(1, 2);
void log_warn(const char* format, ...) ATTR_FMT(1, 2);
void verbose(enum verbosity_value level, const char* format, ...) ATTR_FMT(2, 3);
void fatal_exit(const char* format, ...) ATTR_FMT(1, 2) __attribute__((noreturn));
/* "error: <what>: out of memory" for a drop that is otherwise silent
 * (an answer not cached), at most once a second for the process: a heap
 * under pressure fails many allocations, and the log says so without
 * being flooded. Thread-safe. */
void log_oom(const char* what);
/* "info: <msg> <addr> port <n>" at the given level. */
void log_addr(enum verbosity_value level, const char* msg,
	const struct sockaddr_storage* addr, socklen_t addrlen);

#endif
