/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/remote_cmd.c - compat: unbound-1.17: the unbound-control commands,
 * run in the main thread; answers as Unbound 1.17 words them. Workers are
 * never written to: caches lock inside, counters are read (stats.h). */
#include "config.h"
#include "daemon/remote_cmd.h"
#include "daemon/stats_shm.h"
#include "daemon/remote.h"
#include "daemon/daemon.h"
#include "daemon/worker.h"
#include "services/cache/msgcache.h"
#include "services/cache/rrset.h"
#include "services/cache/infra.h"
#include "services/cache/neg_cache.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/msgparse.h"
#include "util/strutil.h"
#include <event2/event.h>
#include <ldns/ldns.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The next word of *p (moved past it), or NULL. */
static char* next_arg(char** p)
{
	char* s = *p, *w;
	s = str_skip_blank(s);
	if(!*s) {
		*p = s;
		return NULL;
	}
	w = s;
	while(*s && *s != ' ' && *s != '\t')
		s++;
	if(*s)
		*s++ = 0;
	*p = s;
	return w;
}

/* compat: unbound-1.17: The rest of the line after the blanks, or NULL: the
 * argument of the commands Unbound gives the whole line to (get_option,
 * verbosity, flush_infra). */
static char* rest_arg(char* p)
{
	p = str_skip_blank(p);
	return *p ? p : NULL;
}

/* Is the command word cmd (followed by end or a blank)? */
static int cmd_is(const char* p, const char* cmd)
{
	size_t n = strlen(cmd);
	return strncmp(p, cmd, n) == 0 && (p[n] == 0 || p[n] == ' ' ||
		p[n] == '\t');
}

/* compat: unbound-1.17: Where and why Unbound's name parser (sldns) stops on
 * s: its position in the wire form being built and the reason, as Unbound
 * prints them. */
const char* rc_name_error(const char* s, int* pos)
{
	int q = 1, lab = 0;
	for(; *s; s++, q++) {
		if(q >= LDNS_MAX_DOMAINLEN) {
			*pos = q;
			return "Domainname length overflow";
		}
		if(*s == '.') {
			*pos = q;
			if(lab > 63)
				return "Label length overflow";
			if(lab == 0)
				return "Empty label";
			lab = 0;
			continue;
		}
		if(*s == '\\') {
			if(s[1] >= '0' && s[1] <= '9') {
				if(!(s[2] >= '0' && s[2] <= '9' && s[3] >= '0' &&
					s[3] <= '9') || (s[1]-'0')*100 +
					(s[2]-'0')*10 + (s[3]-'0') > 255) {
					*pos = q;
					return "Syntax error, bad escape sequence";
				}
				s += 3;
			} else if(s[1])
				s++;
			else {
				*pos = q;
				return "Syntax error, bad escape sequence";
			}
		}
		lab++;
	}
	*pos = q;
	return lab > 63 ? "Label length overflow" : "Syntax error";
}

int rc_parse_name(char* arg, uint8_t* out, struct strbuf* b)
{
	if(!arg || !*arg) {
		strbuf_printf(b, "error: this option requires a domain "
			"name\n");
		return 0;
	}
	if(!dname_from_str(arg, out)) {
		int pos = 0;
		const char* why = rc_name_error(arg, &pos);
		strbuf_printf(b, "error cannot parse name %s at %d: %s\n",
			arg, pos, why);
		return 0;
	}
	dname_tolower(out);
	return 1;
}

static void do_status(struct daemon_remote* rc, struct strbuf* b)
{
	struct config_file* cfg = rc->d->env->cfg;
	struct timespec now;
	const char* mods = cfg->module_conf ? cfg->module_conf : "";
	char buf[256], *p = buf, *w;
	int n = 0;
	snprintf(buf, sizeof(buf), "%s", mods);
	while((w = next_arg(&p)))
		n++;
	clock_gettime(CLOCK_REALTIME, &now);
	strbuf_printf(b, "version: %s\n", PACKAGE_VERSION);
	strbuf_printf(b, "verbosity: %d\n", (int)verbosity);
	strbuf_printf(b, "threads: %d\n", rc->d->num_workers);
	strbuf_printf(b, "modules: %d [ %s ]\n", n, mods);
	strbuf_printf(b, "uptime: %lld seconds\n",
		(long long)(now.tv_sec - rc->start.tv_sec));
	strbuf_printf(b, "options:%s%s\n", cfg->so_reuseport ?
		" reuseport" : "", rc->num_listen == 0 ? "" : rc->ctx ?
		" control(ssl)" : rc->listen[0].unix_path ?
		" control(namedpipe)" : " control");
	strbuf_printf(b, "unbound (pid %d) is running...\n", (int)getpid());
}

static void do_verbosity(char* arg, struct strbuf* b)
{
	/* compat: unbound-1.17: Unbound's check: atoi, and 0 only when written
	 * "0" */
	int v = arg ? atoi(arg) : 0;
	if(!arg || (v == 0 && strcmp(arg, "0") != 0)) {
		strbuf_printf(b, "error in verbosity number syntax: %s\n",
			arg ? arg : "");
		return;
	}
	/* the same global a reload sets; workers only read it */
	verbosity = (enum verbosity_value)v;
	strbuf_printf(b, "ok\n");
}

static void do_log_reopen(struct strbuf* b)
{
	verbose(VERB_QUERY, "reopen log file");
	/* the same file name, as opened at start or the last reload */
	log_reopen();
	strbuf_printf(b, "ok\n");
}

/* compat: unbound-1.17: Remove name/type from both caches (class IN, as
 * Unbound). */
static void flush_type(struct daemon_remote* rc, const uint8_t* nm,
	uint16_t t)
{
	(void)rrset_cache_remove(rc->d->rrset_cache, nm, t, CLASS_IN, 0);
	(void)msg_cache_remove(rc->d->msg_cache, nm, t, CLASS_IN);
}

static void do_flush(struct daemon_remote* rc, char* arg, struct strbuf* b)
{
	static const uint16_t types[] = { LDNS_RR_TYPE_A, LDNS_RR_TYPE_AAAA,
		LDNS_RR_TYPE_NS, LDNS_RR_TYPE_SOA, LDNS_RR_TYPE_CNAME,
		LDNS_RR_TYPE_DNAME, LDNS_RR_TYPE_MX, LDNS_RR_TYPE_PTR,
		LDNS_RR_TYPE_SRV, LDNS_RR_TYPE_NAPTR, 64, 65 };
	uint8_t nm[LDNS_MAX_DOMAINLEN + 1];
	size_t i;
	if(!rc_parse_name(arg, nm, b))
		return;
	for(i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		flush_type(rc, nm, types[i]);
	strbuf_printf(b, "ok\n");
}

static void do_flush_type(struct daemon_remote* rc, char* p,
	struct strbuf* b)
{
	uint8_t nm[LDNS_MAX_DOMAINLEN + 1];
	char* name = next_arg(&p), *type = next_arg(&p);
	if(!type) {
		/* compat: unbound-1.17: Unbound looks for both words before
		 * the name */
		strbuf_printf(b, "error could not find next argument after "
			"%s\n", name ? name : "");
		return;
	}
	if(!rc_parse_name(name, nm, b))
		return;
	/* compat: unbound-1.17: as Unbound: a type it does not know is type 0,
	 * flushed "ok" */
	flush_type(rc, nm, (uint16_t)ldns_get_rr_type_by_name(type));
	strbuf_printf(b, "ok\n");
}

/* What a flush_* command removes from the message cache. */
struct msg_flush {
	int (*match)(const struct msg_entry* m, const void* arg);
	const void* arg;
	/* compat: unbound-1.17: removed, counted as Unbound's messages */
	size_t questions;
};

/* compat: unbound-1.17: The cache keeps a reply per question, CD and DO;
 * Unbound one per question and CD. Its count is of the DO-less entries (every
 * stored answer has one: the mesh stores it first). */
static int flush_one(struct msg_entry* m, void* arg)
{
	struct msg_flush* f = arg;
	uint16_t t, c;
	uint8_t kf;
	if(!f->match(m, f->arg))
		return 0;
	msg_entry_question(m, &t, &c, &kf);
	if(!(kf & MSG_KEY_DO))
		f->questions++;
	return 1;
}

static size_t flush_msgs(struct daemon_remote* rc,
	int (*match)(const struct msg_entry* m, const void* arg),
	const void* arg)
{
	struct msg_flush f;
	f.match = match;
	f.arg = arg;
	f.questions = 0;
	(void)msg_cache_walk(rc->d->msg_cache, flush_one, &f);
	return f.questions;
}

static int zone_msg(const struct msg_entry* m, const void* zone)
{
	return dname_subdomain_c(msg_entry_qname(m), zone);
}

static void do_flush_zone(struct daemon_remote* rc, char* arg,
	struct strbuf* b)
{
	uint8_t nm[LDNS_MAX_DOMAINLEN + 1];
	size_t r, m, k;
	if(!rc_parse_name(arg, nm, b))
		return;
	r = rrset_cache_flush_zone(rc->d->rrset_cache, nm);
	m = flush_msgs(rc, zone_msg, nm);
	/* compat: unbound-1.17: as Unbound: the zone's keys and those below it
	 * go too */
	k = modstack_flush(&rc->d->modules, nm, MODULE_FLUSH_ZONE);
	/* compat: unbound-1.17: the aggressive NSEC cache's copies of the
	 * NSECs at and below too (Unbound's live in the RRset cache, counted
	 * there) */
	(void)neg_cache_flush_zone(rc->d->neg_cache, nm);
	strbuf_printf(b, "ok removed %lu rrsets, %lu messages and %lu key "
		"entries\n", (unsigned long)r, (unsigned long)m,
		(unsigned long)k);
}

/* compat: unbound-1.17: A bad key cache entry (a failed DS/DNSKEY lookup or
 * validation): both flush_bogus and flush_negative drop them, as Unbound. */
static size_t flush_bad_keys(struct daemon_remote* rc)
{
	return modstack_flush(&rc->d->modules, NULL, MODULE_FLUSH_BOGUS);
}

static int bogus_msg(const struct msg_entry* m, const void* arg)
{
	(void)arg;
	return m->security == SEC_BOGUS;
}

/* flush_bogus: messages the validator found bogus (kept for CD askers
 * and val-permissive-mode) and bad keys. The RRset cache keeps no
 * security status, so no RRset is bogus there. */
static void do_flush_bogus(struct daemon_remote* rc, struct strbuf* b)
{
	size_t m = flush_msgs(rc, bogus_msg, NULL);
	size_t k = flush_bad_keys(rc);
	strbuf_printf(b, "ok removed 0 rrsets, %lu messages and %lu key "
		"entries\n", (unsigned long)m, (unsigned long)k);
}

/* A negative message: an error rcode (NXDOMAIN, SERVFAIL) or NODATA. */
static int negative_msg(const struct msg_entry* m, const void* arg)
{
	(void)arg;
	return (m->flags & 0xf) != 0 || m->len < 12 ||
		(m->tmpl[6] == 0 && m->tmpl[7] == 0);
}

/* compat: unbound-1.17: flush_negative: Unbound also drops parent-side
 * negative NS RRsets; this cache keeps none, so messages and bad keys go. */
static void do_flush_negative(struct daemon_remote* rc, struct strbuf* b)
{
	size_t m = flush_msgs(rc, negative_msg, NULL);
	size_t k = flush_bad_keys(rc);
	/* compat: unbound-1.17: the NSECs that answer negatively without
	 * asking (not counted: Unbound keeps them in its RRset cache and
	 * leaves them there) */
	neg_cache_flush_all(rc->d->neg_cache);
	strbuf_printf(b, "ok removed 0 rrsets, %lu messages and %lu key "
		"entries\n", (unsigned long)m, (unsigned long)k);
}

static void do_get_option(struct daemon_remote* rc, char* arg,
	struct strbuf* b)
{
	char* text = NULL;
	size_t len = 0;
	FILE* f;
	int ok;
	if(!arg) {
		strbuf_printf(b, "error unknown option\n");
		return;
	}
	if(!(f = open_memstream(&text, &len))) {
		strbuf_printf(b, "error out of memory\n");
		return;
	}
	ok = config_print_option(rc->d->env->cfg, arg, f);
	fclose(f);
	if(!ok)
		strbuf_printf(b, "error unknown option\n");
	else if(text)
		strbuf_printf(b, "%s", text);
	free(text);
}

/* compat: unbound-1.17: Runs in a worker's thread: the maximum starts again
 * from zero, as Unbound's reset (a gauge cannot be reset by a baseline). */
static void reset_max_cb(evutil_socket_t fd, short ev, void* arg)
{
	struct worker* w = arg;
	(void)fd;
	(void)ev;
	w->stats.req_max = 0;
}

/* Ask every worker to reset its gauges, in its own thread. */
static void reset_worker_gauges(struct daemon* d)
{
	int i;
	for(i = 0; i < d->num_workers; i++)
		if(!worker_post(d->workers[i], reset_max_cb, d->workers[i]))
			verbose(VERB_ALGO, "could not reset thread %d's "
				"requestlist.max", i);
}

static void flush_requestlist_cb(evutil_socket_t fd, short ev, void* arg)
{
	(void)fd;
	(void)ev;
	worker_flush_requestlist(arg);
}

/* Each worker drops its own waiting clients, in its own thread. */
static void do_flush_requestlist(struct daemon* d, struct strbuf* b)
{
	int i;
	for(i = 0; i < d->num_workers; i++)
		if(!worker_post(d->workers[i], flush_requestlist_cb,
			d->workers[i])) {
			strbuf_printf(b, "error could not distribute cmd\n");
			return;
		}
	strbuf_printf(b, "ok\n");
}

void rc_print_stats(struct daemon_remote* rc, struct strbuf* b, int reset)
{
	struct daemon* d = rc->d;
	struct worker_stats* cur, *tot;
	struct timespec now;
	int i, n = d->num_workers;
	int cumulative = d->env->cfg->stat_cumulative;
	if(!rc->base_stats) {
		rc->base_stats = calloc((size_t)n, sizeof(*rc->base_stats));
		rc->num_base = n;
	}
	cur = calloc((size_t)n, sizeof(*cur));
	tot = calloc(1, sizeof(*tot));
	if(!rc->base_stats || !cur || !tot || !d->workers) {
		free(cur);
		free(tot);
		strbuf_printf(b, "error out of memory\n");
		return;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	for(i = 0; i < n; i++) {
		struct worker_stats diff;
		char pfx[32];
		worker_stats_snapshot(d->workers[i], &cur[i]);
		diff = cur[i];
		stats_subtract(&diff, &rc->base_stats[i]);
		snprintf(pfx, sizeof(pfx), "thread%d", i);
		stats_print_thread(b, pfx, &diff,
			stats_print_flags(d->env->cfg));
		stats_add(tot, &diff);
	}
	stats_print_thread(b, "total", tot, stats_print_flags(d->env->cfg));
	stats_print_time(b, &now, &rc->start, &rc->last);
	if(d->env->cfg->stat_extended) {
		struct stats_cache_info ci;
		stats_cache_info_fill(d, &ci);
		ci.show_zero = !d->env->cfg->stat_inhibit_zero;
		stats_print_extended(b, tot, &ci);
	}
	if(reset && !cumulative) {
		memcpy(rc->base_stats, cur, (size_t)n * sizeof(*cur));
		rc->last = now;
		reset_worker_gauges(d);
	}
	free(cur);
	free(tot);
}

/* The counters start again from now: a new baseline per thread (the
 * workers' counters are never written) and the gauges reset by each
 * worker. 0 when there is nothing to do it with. */
static int rebaseline(struct daemon_remote* rc)
{
	struct daemon* d = rc->d;
	int i;
	if(!d->workers)
		return 0;
	if(!rc->base_stats) {
		rc->base_stats = calloc((size_t)d->num_workers,
			sizeof(*rc->base_stats));
		if(!rc->base_stats)
			return 0;
		rc->num_base = d->num_workers;
	}
	for(i = 0; i < d->num_workers; i++)
		worker_stats_snapshot(d->workers[i], &rc->base_stats[i]);
	reset_worker_gauges(d);
	return 1;
}

static void do_flush_stats(struct daemon_remote* rc, struct strbuf* b)
{
	/* compat: unbound-1.17: a reset with nothing printed; cumulative is
	 * ignored, as Unbound */
	if(rebaseline(rc))
		clock_gettime(CLOCK_REALTIME, &rc->last);
	strbuf_printf(b, "ok\n");
}

void daemon_remote_reload_stats(struct daemon_remote* rc)
{
	/* compat: unbound-1.17: Unbound's reload starts its threads afresh,
	 * statistics too (time.up and time.elapsed go on) */
	if(rc)
		(void)rebaseline(rc);
}

/* compat: unbound-1.17: shm-enable: the round of the statistics timer
 * copied to the shared memory, before the reset, as Unbound's */
static void write_shm(struct daemon_remote* rc, const struct worker_stats* th)
{
	struct daemon* d = rc->d;
	struct stats_cache_info ci;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	stats_cache_info_fill(d, &ci);
	stats_shm_write(d->shm, th, d->num_workers, &ci,
		d->env->cfg->stat_extended, &now, &rc->start, &rc->last);
}

void rc_log_stats(struct daemon_remote* rc)
{
	struct daemon* d = rc->d;
	struct worker_stats s;
	/* the threads' rounds, for the shared memory (NULL without) */
	struct worker_stats* th = NULL;
	int i;
	if(!d->workers)
		return;
	if(!rc->base_stats) {
		rc->base_stats = calloc((size_t)d->num_workers,
			sizeof(*rc->base_stats));
		if(!rc->base_stats)
			return;
		rc->num_base = d->num_workers;
	}
	if(d->shm && !(th = calloc((size_t)d->num_workers, sizeof(*th))))
		log_err("shm: out of memory");
	for(i = 0; i < d->num_workers; i++) {
		struct worker_stats cur;
		worker_stats_snapshot(d->workers[i], &cur);
		s = cur;
		stats_subtract(&s, &rc->base_stats[i]);
		log_info("server stats for thread %d: %llu queries, %llu "
			"answers from cache, %llu recursions, %llu prefetch, %llu "
			"rejected by ip ratelimiting", i,
			(unsigned long long)s.num_queries,
			/* compat: unbound-1.17: as Unbound: every query not
			 * sent to recursion */
			(unsigned long long)(s.num_queries >= s.num_cachemiss ?
			s.num_queries - s.num_cachemiss : 0),
			(unsigned long long)s.num_cachemiss,
			(unsigned long long)s.num_prefetch,
			(unsigned long long)s.num_ip_ratelimited);
		log_info("server stats for thread %d: requestlist max %llu "
			"avg %g exceeded %llu jostled %llu", i,
			(unsigned long long)s.req_max, s.req_samples ?
			(double)s.req_sum / (double)s.req_samples : 0.0,
			(unsigned long long)s.req_exceeded,
			(unsigned long long)s.req_overwritten);
		if(th)
			th[i] = s;
		if(!d->env->cfg->stat_cumulative)
			rc->base_stats[i] = cur;
	}
	if(th) {
		write_shm(rc, th);
		free(th);
	}
	if(!d->env->cfg->stat_cumulative)
		reset_worker_gauges(d);
}

int rc_cmd_execute(struct daemon_remote* rc, char* p, struct strbuf* b)
{
	char* args;
	p = str_skip_blank(p);
	args = p;
	while(*args && *args != ' ' && *args != '\t')
		args++;
	if(cmd_is(p, "stop")) {
		strbuf_printf(b, "ok\n");
		return RC_AFTER_STOP;
	} else if(cmd_is(p, "status")) {
		do_status(rc, b);
	} else if(cmd_is(p, "reload")) {
		rc_do_reload(rc, args, 0, b);
	} else if(cmd_is(p, "reload_keep_cache")) {
		rc_do_reload(rc, args, 1, b);
	} else if(cmd_is(p, "fast_reload")) {
		rc_do_fast_reload(rc, args, b);
	} else if(cmd_is(p, "dump_cache")) {
		rc_do_dump_cache(rc, b);
	} else if(cmd_is(p, "verbosity")) {
		do_verbosity(rest_arg(args), b);
	} else if(cmd_is(p, "log_reopen")) {
		do_log_reopen(b);
	} else if(cmd_is(p, "stats_noreset")) {
		rc_print_stats(rc, b, 0);
	} else if(cmd_is(p, "stats")) {
		rc_print_stats(rc, b, 1);
	} else if(cmd_is(p, "flush_stats")) {
		do_flush_stats(rc, b);
	} else if(cmd_is(p, "flush_type")) {
		do_flush_type(rc, args, b);
	} else if(cmd_is(p, "flush_zone")) {
		do_flush_zone(rc, next_arg(&args), b);
	} else if(cmd_is(p, "flush")) {
		do_flush(rc, next_arg(&args), b);
	} else if(cmd_is(p, "get_option")) {
		do_get_option(rc, rest_arg(args), b);
	} else if(cmd_is(p, "lookup")) {
		rc_do_lookup(rc, next_arg(&args), b);
	} else if(cmd_is(p, "list_stubs")) {
		rc_do_list_hints(rc, 0, b);
	} else if(cmd_is(p, "list_forwards")) {
		rc_do_list_hints(rc, 1, b);
	} else if(cmd_is(p, "flush_negative")) {
		do_flush_negative(rc, b);
	} else if(cmd_is(p, "flush_bogus")) {
		do_flush_bogus(rc, b);
	} else if(cmd_is(p, "flush_requestlist")) {
		do_flush_requestlist(rc->d, b);
	} else if(cmd_is(p, "flush_infra")) {
		rc_do_flush_infra(rc, rest_arg(args), b);
	} else if(cmd_is(p, "dump_infra")) {
		rc_do_dump_infra(rc, b);
	} else if(cmd_is(p, "ratelimit_list")) {
		rc_do_ratelimit_list(rc, rest_arg(args), 0, b);
	} else if(cmd_is(p, "ip_ratelimit_list")) {
		rc_do_ratelimit_list(rc, rest_arg(args), 1, b);
	} else if(cmd_is(p, "dump_requestlist")) {
		rc_do_dump_requestlist(rc, b);
	} else if(rc_local_cmd(rc, p, args, b)) {
		/* local_zone, local_data, ... (remote_local.c) */
	} else if(rc_zones_cmd(rc, p, args, b)) {
		/* forward_add, stub_add, set_option, ... (remote_zones.c) */
	} else if(rc_cookie_cmd(rc, p, args, b)) {
		/* the cookie secrets (remote_cookie.c) */
	} else {
		strbuf_printf(b, "error unknown command '%s'\n", p);
	}
	return RC_AFTER_NONE;
}

void rc_cmd_after(struct daemon_remote* rc, int after)
{
	if(after == RC_AFTER_STOP) {
		verbose(VERB_QUERY, "remote control: stop");
		event_base_loopbreak(rc->d->base);
	}
}
