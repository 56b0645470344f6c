/* SPDX-License-Identifier: BSD-3-Clause */
/* util/log.c - compat: unbound-1.17: logging in Unbound's line format. */
#include "config.h"
#include "util/log.h"
#include "util/net_help.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <syslog.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <pthread.h>
#include <errno.h>
#include <stdatomic.h>

enum verbosity_value verbosity = VERB_OPS;

/* Log destination; set at start-up and on reload by the main thread. */
static FILE* logfile = NULL;       /* NULL: stderr */
static char* logfile_name = NULL;
static int log_to_syslog = 0;
static int log_time_ascii = 0;
static int log_time_iso = 0;
static int log_use_tid = 0;
static char log_ident[64] = "unbound";
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int thread_num = 0;

void log_init(const char* filename, int use_syslog, const char* chrootdir)
{
	pthread_mutex_lock(&log_lock);
	if(logfile) {
		fclose(logfile);
		logfile = NULL;
	}
	if(log_to_syslog) {
		closelog();
		log_to_syslog = 0;
	}
	free(logfile_name);
	logfile_name = NULL;
	if(use_syslog) {
		openlog(log_ident, LOG_NDELAY | LOG_PID, LOG_DAEMON);
		log_to_syslog = 1;
	} else if(filename && filename[0]) {
		size_t cl = chrootdir ? strlen(chrootdir) : 0;
		/* inside a chroot the path is relative to the new root */
		if(cl && strncmp(filename, chrootdir, cl) == 0)
			filename += cl;
		logfile_name = strdup(filename);
		logfile = fopen(filename, "a");
		if(!logfile) {
			fprintf(stderr, "[%lld] %s[%d:0] error: could not open "
				"logfile %s: %s\n", (long long)time(NULL),
				log_ident, (int)getpid(), filename,
				strerror(errno));
		} else {
			setvbuf(logfile, NULL, _IOLBF, 0);
		}
	}
	pthread_mutex_unlock(&log_lock);
}

void log_reopen(void)
{
	char* name;
	pthread_mutex_lock(&log_lock);
	name = logfile_name ? strdup(logfile_name) : NULL;
	pthread_mutex_unlock(&log_lock);
	if(name) {
		log_init(name, 0, NULL);
		free(name);
	}
}

void log_ident_set(const char* ident)
{
	snprintf(log_ident, sizeof(log_ident), "%s",
		ident && ident[0] ? ident : "unbound");
}

void log_time_asc(int use_asc) { log_time_ascii = use_asc; }
void log_time_iso_set(int iso) { log_time_iso = iso; }
void log_thread_id_set(int use_tid) { log_use_tid = use_tid; }

/* compat: unbound-1.26: log-thread-id prints gettid() where the thread
 * number would be (asked once per thread). */
static int log_tid(void)
{
	static _Thread_local int tid = 0;
	if(!log_use_tid)
		return thread_num;
	if(!tid)
		tid = (int)syscall(SYS_gettid);
	return tid;
}

/* compat: unbound-1.26: log-time-iso (with log-time-ascii): local time
 * as 2025-01-31T12:34:56.789+01:00, milliseconds and the UTC offset. */
static void iso_time(char* buf, size_t len)
{
	struct timeval tv;
	struct tm tm;
	char date[32], tz[16];
	time_t now;
	if(gettimeofday(&tv, NULL) != 0)
		memset(&tv, 0, sizeof(tv));
	now = (time_t)tv.tv_sec;
	localtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
	if(strftime(tz, sizeof(tz), "%z", &tm) == 5) {
		/* +hhmm as +hh:mm */
		tz[6] = 0;
		tz[5] = tz[4];
		tz[4] = tz[3];
		tz[3] = ':';
	}
	snprintf(buf, len, "%s.%3.3d%s", date, (int)(tv.tv_usec / 1000), tz);
}
void log_thread_set(int num) { thread_num = num; }
int log_thread_get(void) { return thread_num; }

static void log_vmsg(int pri, const char* type, const char* format,
	va_list args)
{
	char msg[4096];
	FILE* out;
	vsnprintf(msg, sizeof(msg), format, args);
	pthread_mutex_lock(&log_lock);
	if(log_to_syslog) {
		syslog(pri, "[%d:%d] %s: %s", (int)getpid(), log_tid(),
			type, msg);
		pthread_mutex_unlock(&log_lock);
		return;
	}
	out = logfile ? logfile : stderr;
	if(log_time_ascii && log_time_iso) {
		char tbuf[64];
		iso_time(tbuf, sizeof(tbuf));
		fprintf(out, "%s %s[%d:%d] %s: %s\n", tbuf, log_ident,
			(int)getpid(), log_tid(), type, msg);
	} else if(log_time_ascii) {
		char tbuf[64];
		struct tm tm;
		time_t now = time(NULL);
		localtime_r(&now, &tm);
		strftime(tbuf, sizeof(tbuf), "%b %d %H:%M:%S", &tm);
		fprintf(out, "%s %s[%d:%d] %s: %s\n", tbuf, log_ident,
			(int)getpid(), log_tid(), type, msg);
	} else {
		fprintf(out, "[%lld] %s[%d:%d] %s: %s\n", (long long)time(NULL),
			log_ident, (int)getpid(), log_tid(), type, msg);
	}
	fflush(out);
	pthread_mutex_unlock(&log_lock);
}

void log_tagged(const char* tag, const char* format, ...)
{
	va_list args;
	va_start(args, format);
	log_vmsg(LOG_INFO, tag, format, args);
	va_end(args);
}

void log_info(const char* format, ...)
{
	va_list args;
	va_start(args, format);
	log_vmsg(LOG_INFO, "info", format, args);
	va_end(args);
}

void log_err(const char* format, ...)
{
	va_list args;
	va_start(args, format);
	log_vmsg(LOG_ERR, "error", format, args);
	va_end(args);
}

void log_oom(const char* what)
{
	static _Atomic time_t last;
	time_t now = time(NULL), was = atomic_load(&last);
	if(was == now || !atomic_compare_exchange_strong(&last, &was, now))
		return;
	log_err("%s: out of memory", what);
}

void log_warn(const char* format, ...)
{
	va_list args;
	va_start(args, format);
	log_vmsg(LOG_WARNING, "warning", format, args);
	va_end(args);
}

void verbose(enum verbosity_value level, const char* format, ...)
{
	va_list args;
	if(verbosity < level)
		return;
	va_start(args, format);
	if(level == VERB_OPS)
		log_vmsg(LOG_NOTICE, "notice", format, args);
	else if(level == VERB_DETAIL)
		log_vmsg(LOG_INFO, "info", format, args);
	else	log_vmsg(LOG_DEBUG, "debug", format, args);
	va_end(args);
}

void fatal_exit(const char* format, ...)
{
	va_list args;
	va_start(args, format);
	log_vmsg(LOG_CRIT, "fatal error", format, args);
	va_end(args);
	exit(1);
}

void log_addr(enum verbosity_value level, const char* msg,
	const struct sockaddr_storage* addr, socklen_t addrlen)
{
	char buf[64];
	if(verbosity < level)
		return;
	addr_to_str(addr, addrlen, buf, sizeof(buf));
	verbose(level, "%s %s port %d", msg, buf, addr_port(addr));
}
