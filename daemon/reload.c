/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/reload.c - the reload thread: read, check and build a new
 * serve_env aside, then hand it to the main thread to publish.
 *
 * compat: unbound-1.23: fast_reload reads and builds the config in a thread
 * of its own and prints, with +v, the phases' times in Unbound's format
 * ("read disk", "construct", "reload", "deletes", "total time"). Unbound
 * pauses its workers for the swap; here they never pause: each takes the
 * published env between two queries (daemon.h), so "reload" is the main
 * thread's publish and "deletes" the release of its own reference to the
 * old env (the workers free theirs later, in daemon/env_reaper.c). */
#include "config.h"
#include "daemon/reload.h"
#include "daemon/daemon.h"
#include "daemon/notify.h"
#include "daemon/stats.h"
#include "daemon/worker.h"
#include "services/modstack.h"
#include "util/config_file.h"
#include "util/log.h"
#include "util/thread_prio.h"
#include <event2/event.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct reload_job {
	struct daemon* d;
	struct reload_opts o;
	reload_done_fn done;
	void* arg;
	pthread_t thr;
	struct event* done_ev;   /* on d->base, activated by the thread */
	char* file;
	int cmdline_verbose;
	struct serve_env* old;   /* a reference: the checks compare to it */
	/* the thread's results, read by the main thread after the join */
	struct serve_env* env;   /* NULL: refused */
	struct modstack_prep prep;   /* the modules' part, read aside */
	struct strbuf out;
	struct timespec t_start, t_read, t_construct;
};

static void fast_printf(struct reload_job* j, const char* line)
{
	if(j->o.kind == RELOAD_FAST)
		strbuf_printf(&j->out, "%s", line);
}

/* compat: unbound-1.23: the incompatible option names are listed space
 * separated, in Unbound's order. */
static void add_name(char* s, size_t len, const char* name)
{
	size_t n = strlen(s);
	if(n == 0)
		snprintf(s, len, "%s", name);
	else if(len - n > strlen(name) + 2)
		snprintf(s + n, len - n, " %s", name);
}

static int str_differ(const char* a, const char* b)
{
	if(!a || !b)
		return a != b;
	return strcmp(a, b) != 0;
}

static int strlist_differ(const struct config_strlist* a,
	const struct config_strlist* b)
{
	for(; a && b; a = a->next, b = b->next)
		if(str_differ(a->str, b->str))
			return 1;
	return a != b;
}

static int str2list_differ(const struct config_str2list* a,
	const struct config_str2list* b)
{
	for(; a && b; a = a->next, b = b->next)
		if(str_differ(a->str, b->str) || str_differ(a->str2, b->str2))
			return 1;
	return a != b;
}

/* compat: unbound-1.26: the options fast_reload cannot change (the
 * listening sockets, the threads, the per-connection buffers), in
 * Unbound's fr_check_compat_cfg order: refused with Unbound's message,
 * the old config keeps serving. 0 when refused. */
static int check_runtime_changeable(struct reload_job* j,
	const struct config_file* o, const struct config_file* n)
{
	char s[1024];
	s[0] = 0;
#define NUM(name, f) do { if(o->f != n->f) add_name(s, sizeof(s), name); \
	} while(0)
	NUM("num-threads", num_threads);
	NUM("do-ip4", do_ip4);
	NUM("do-ip6", do_ip6);
	NUM("do-udp", do_udp);
	NUM("do-tcp", do_tcp);
	NUM("port", port);
	NUM("outgoing-num-tcp", outgoing_num_tcp);
	NUM("incoming-num-tcp", incoming_num_tcp);
	if(strlist_differ(o->out_ifs, n->out_ifs))
		add_name(s, sizeof(s), "outgoing-interface");
	if(o->num_ifs != n->num_ifs || strlist_differ(o->ifs, n->ifs))
		add_name(s, sizeof(s), "interface");
	NUM("interface-automatic", if_automatic);
	NUM("so-rcvbuf", so_rcvbuf);
	NUM("so-sndbuf", so_sndbuf);
	NUM("so-reuseport", so_reuseport);
	NUM("ip-transparent", ip_transparent);
	NUM("ip-freebind", ip_freebind);
	NUM("udp-connect", udp_connect);
	NUM("msg-buffer-size", msg_buffer_size);
	NUM("edns-tcp-keepalive", do_tcp_keepalive);
	NUM("edns-tcp-keepalive-timeout", tcp_keepalive_timeout);
	NUM("tcp-idle-timeout", tcp_idle_timeout);
	NUM("harden-large-queries", harden_large_queries);
	NUM("http-max-streams", http_max_streams);
	if(str_differ(o->http_endpoint, n->http_endpoint))
		add_name(s, sizeof(s), "http-endpoint");
	NUM("http_notls_downstream", http_notls_downstream);
	NUM("https-port", https_port);
	NUM("tls-port", tls_port);
	if(str_differ(o->tls_protocols, n->tls_protocols))
		add_name(s, sizeof(s), "tls-protocols");
	if(strlist_differ(o->proxy_protocol_ports, n->proxy_protocol_ports))
		add_name(s, sizeof(s), "proxy-protocol-port");
	if(strlist_differ(o->tls_additional_ports, n->tls_additional_ports))
		add_name(s, sizeof(s), "tls-additional-port");
	if(str_differ(o->if_automatic_ports, n->if_automatic_ports))
		add_name(s, sizeof(s), "interface-automatic-ports");
	NUM("udp-upstream-without-downstream",
		udp_upstream_without_downstream);
#undef NUM
	if(s[0] == 0)
		return 1;
	strbuf_printf(&j->out, "The config changes items that are not "
		"compatible with fast_reload, perhaps do reload or restart: "
		"%s\n", s);
	return 0;
}

/* The define-tag names in order, as one space separated string. */
static char* tag_names(const struct config_strlist* l)
{
	struct strbuf b;
	memset(&b, 0, sizeof(b));
	strbuf_printf(&b, "%s", "");
	for(; l; l = l->next) {
		const char* p = l->str;
		while(p && *p) {
			size_t n;
			while(*p == ' ' || *p == '\t')
				p++;
			n = strcspn(p, " \t");
			if(n)
				strbuf_printf(&b, "%.*s ", (int)n, p);
			p += n;
		}
	}
	if(b.oom) {
		strbuf_clear(&b);
		return NULL;
	}
	return b.s ? b.s : strdup("");
}

/* compat: unbound-1.23: queries in progress carry tag numbers and tag data:
 * when define-tag changes other than by names added at the end, or the
 * -tag-data lines change, they are dropped (+d), with Unbound's lines. */
static void check_tags(struct reload_job* j, const struct config_file* o,
	const struct config_file* n)
{
	char* a = tag_names(o->define_tags);
	char* b = tag_names(n->define_tags);
	char s[256];
	if(a && b && strcmp(a, b) != 0 && strncmp(a, b, strlen(a)) != 0 &&
		!j->o.drop_mesh) {
		j->o.drop_mesh = 1;
		strbuf_printf(&j->out, "tags have changed, with 'define-tag', "
			"and the queries have to be dropped for consistency, "
			"setting '+d'\n");
	}
	free(a);
	free(b);
	s[0] = 0;
	if(str2list_differ(o->interface_tag_datas, n->interface_tag_datas))
		add_name(s, sizeof(s), "interface-tag-data");
	if(str2list_differ(o->acl_tag_datas, n->acl_tag_datas))
		add_name(s, sizeof(s), "access-control-tag-data");
	if(s[0] && !j->o.drop_mesh) {
		j->o.drop_mesh = 1;
		strbuf_printf(&j->out, "recursion referenced data has changed, "
			"with: '%s', and the queries have to be dropped, setting "
			"'+d'\n", s);
	}
}

static size_t heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();
	return mi.uordblks + mi.hblkhd;
}

static const char construct_error[] = "Could not construct from the config, "
	"check for errors with unbound-checkconf, or out of memory. The parse "
	"errors are printed in the log.\n";

/* The thread: everything that reads files and builds. */
static void build(struct reload_job* j)
{
	struct config_file* cfg = config_create();
	size_t heap0;
	clock_gettime(CLOCK_MONOTONIC, &j->t_start);
	if(j->o.verbose >= 1)
		fast_printf(j, "thread started\n");
	if(!cfg) {
		fast_printf(j, "config_create failed: out of memory\n");
		return;
	}
	errno = 0;
	if(!config_read(cfg, j->file, NULL)) {
		if(j->o.kind == RELOAD_FAST)
			strbuf_printf(&j->out, "config_read %s failed: %s\n",
				j->file, strerror(errno));
		config_delete(cfg);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &j->t_read);
	if(j->o.verbose >= 1 && j->o.kind == RELOAD_FAST)
		strbuf_printf(&j->out, "done read config file %s\n", j->file);
	if(j->o.kind == RELOAD_FAST) {
		check_tags(j, j->old->cfg, cfg);
		if(!check_runtime_changeable(j, j->old->cfg, cfg)) {
			config_delete(cfg);
			return;
		}
	}
	if(!config_check(cfg) || !config_check_start(cfg) ||
		!modstack_check_cfg(cfg) || !modstack_check_start(cfg)) {
		fast_printf(j, construct_error);
		config_delete(cfg);
		return;
	}
	cfg->verbosity += j->cmdline_verbose;
	heap0 = heap_in_use();
	if(!(j->env = serve_env_build(cfg))) {
		fast_printf(j, construct_error);
		return;
	}
	/* compat: unbound-1.17: a changed dnstap clause takes effect (a new
	 * collector connection); unchanged, the stream goes on */
	if(!serve_env_start_dnstap(j->env, j->old, j->d->num_workers)) {
		fast_printf(j, construct_error);
		serve_env_release(j->env);
		j->env = NULL;
		return;
	}
	/* a new ip-ratelimit-size: its table is made here, aside */
	if(!serve_env_ip_rates(j->env, j->old)) {
		fast_printf(j, construct_error);
		serve_env_release(j->env);
		j->env = NULL;
		return;
	}
	/* the modules' files (the rpz: zones) are read here too, not in
	 * the main thread at the swap */
	modstack_reload_prepare(&j->d->modules, cfg, &j->prep);
	clock_gettime(CLOCK_MONOTONIC, &j->t_construct);
	/* compat: unbound-1.23: +vv: the memory the new config took; here the
	 * heap's growth while it was built (other threads' allocations in
	 * that time count too) */
	if(j->o.verbose >= 2 && j->o.kind == RELOAD_FAST) {
		size_t heap1 = heap_in_use();
		strbuf_printf(&j->out, "memory use %d bytes\n",
			(int)(heap1 > heap0 ? heap1 - heap0 : 0));
	}
}

static void* reload_main(void* arg)
{
	struct reload_job* j = arg;
	/* below the workers: a worker woken by a query preempts the build
	 * (util/thread_prio.c says why) */
	(void)thread_prio_background("reload");
	build(j);
	/* d->base has pthread locks (evthread_use_pthreads before it) */
	event_active(j->done_ev, EV_READ, 0);
	return NULL;
}

static void job_free(struct reload_job* j)
{
	if(j->done_ev)
		event_free(j->done_ev);
	serve_env_release(j->old);
	serve_env_release(j->env);
	modstack_reload_discard(&j->d->modules, &j->prep);
	strbuf_clear(&j->out);
	free(j->file);
	free(j);
}

static void flush_requestlist_cb(int fd, short ev, void* arg)
{
	(void)fd;
	(void)ev;
	worker_flush_requestlist(arg);
}

static void drop_queries(struct daemon* d)
{
	int i;
	for(i = 0; d->workers && i < d->num_workers; i++)
		if(!worker_post(d->workers[i], flush_requestlist_cb,
			d->workers[i]))
			log_err("fast_reload +d: could not drop thread %d's "
				"queries", i);
}

static void timing_line(struct strbuf* b, const char* what,
	const struct timespec* from, const struct timespec* to)
{
	long long ns = (long long)(to->tv_sec - from->tv_sec) * 1000000000LL +
		(to->tv_nsec - from->tv_nsec);
	if(ns < 0)
		ns = 0;
	strbuf_printf(b, "%s %3d.%6.6ds\n", what, (int)(ns / 1000000000LL),
		(int)(ns / 1000 % 1000000));
}

/* Main thread, once the env is built (or refused): publish it and
 * write the answer's text to j->out. */
static int finish(struct reload_job* j)
{
	struct daemon* d = j->d;
	struct timespec t_reload, t_end;
	int ok = j->env != NULL;
	if(ok) {
		struct serve_env* env = j->env;
		j->env = NULL;
		daemon_reload_apply(d, env, j->o.kind == RELOAD_FULL,
			j->o.keep_cache, &j->prep);
		if(j->o.drop_mesh)
			drop_queries(d);
		clock_gettime(CLOCK_MONOTONIC, &t_reload);
		serve_env_release(j->old);
		j->old = NULL;
		clock_gettime(CLOCK_MONOTONIC, &t_end);
		if(j->o.kind == RELOAD_FAST && j->o.verbose >= 1) {
			timing_line(&j->out, "read disk ", &j->t_start,
				&j->t_read);
			timing_line(&j->out, "construct ", &j->t_read,
				&j->t_construct);
			timing_line(&j->out, "reload    ", &j->t_construct,
				&t_reload);
			timing_line(&j->out, "deletes   ", &t_reload, &t_end);
			timing_line(&j->out, "total time", &j->t_start,
				&t_end);
		}
		strbuf_printf(&j->out, "ok\n");
	} else if(j->o.kind == RELOAD_FULL) {
		log_err("reload of %s failed: errors in the configuration; "
			"still serving the previous configuration", j->file);
		strbuf_printf(&j->out, "error reload failed: errors in the "
			"configuration; still serving the previous "
			"configuration\n");
	} else {
		log_err("fast_reload of %s failed; still serving the previous "
			"configuration", j->file);
	}
	if(j->o.kind == RELOAD_FULL)
		(void)daemon_notify_send(d->notify, "READY=1");
	return ok;
}

static const char* job_text(const struct reload_job* j)
{
	return j->out.oom ? "error out of memory\n" : j->out.s ? j->out.s : "";
}

/* Main thread, once the thread has built (or refused) the new env. */
static void done_cb(evutil_socket_t fd, short ev, void* arg)
{
	struct reload_job* j = arg;
	struct daemon* d = j->d;
	int ok;
	(void)fd;
	(void)ev;
	pthread_join(j->thr, NULL);
	d->reload = NULL;
	ok = finish(j);
	if(j->done)
		j->done(j->arg, ok, job_text(j));
	job_free(j);
	if(d->reload_again) {
		struct reload_opts o;
		memset(&o, 0, sizeof(o));
		o.kind = RELOAD_FULL;
		d->reload_again = 0;
		(void)daemon_reload_start(d, &o, NULL, NULL);
	}
}

/* A job for d and o, with a reference to the current env; NULL: out of
 * memory (logged). */
static struct reload_job* job_create(struct daemon* d,
	const struct reload_opts* o)
{
	struct reload_job* j = calloc(1, sizeof(*j));
	if(!j || !(j->file = strdup(daemon_cfgfile_inside(d)))) {
		log_err("reload: out of memory");
		free(j);
		return NULL;
	}
	j->d = d;
	j->o = *o;
	j->cmdline_verbose = d->cmdline_verbose;
	j->old = d->env;
	atomic_fetch_add(&j->old->refs, 1);
	if(o->kind == RELOAD_FAST && o->verbose >= 1)
		strbuf_printf(&j->out, "start fast_reload\n");
	/* compat: unbound-1.17: RELOADING=1 while a reload is built, READY=1
	 * after (finish) */
	if(o->kind == RELOAD_FULL) {
		daemon_notify_reloading(d->notify);
		log_info("service reload: reading %s", j->file);
	}
	else	verbose(VERB_ALGO, "start fast reload thread");
	return j;
}

int daemon_reload_inline(struct daemon* d, const struct reload_opts* o,
	struct strbuf* b)
{
	struct reload_job* j = job_create(d, o);
	int ok;
	if(!j) {
		strbuf_printf(b, "error out of memory\n");
		return 0;
	}
	build(j);
	ok = finish(j);
	strbuf_printf(b, "%s", job_text(j));
	job_free(j);
	return ok;
}

enum reload_start daemon_reload_start(struct daemon* d,
	const struct reload_opts* o, reload_done_fn done, void* arg)
{
	struct reload_job* j;
	if(d->reload)
		return RELOAD_BUSY;
	if(!(j = job_create(d, o)))
		return RELOAD_FAILED;
	if(!(j->done_ev = event_new(d->base, -1, 0, done_cb, j))) {
		log_err("reload: out of memory");
		job_free(j);
		return RELOAD_FAILED;
	}
	j->done = done;
	j->arg = arg;
	if(pthread_create(&j->thr, NULL, reload_main, j) != 0) {
		log_err("reload: could not start a thread: %s",
			strerror(errno));
		job_free(j);
		return RELOAD_FAILED;
	}
	d->reload = j;
	return RELOAD_STARTED;
}

void daemon_reload_forget(struct daemon* d, void* arg)
{
	if(d->reload && d->reload->arg == arg)
		d->reload->done = NULL;
}

void daemon_reload_stop(struct daemon* d)
{
	struct reload_job* j = d->reload;
	if(!j)
		return;
	pthread_join(j->thr, NULL);
	d->reload = NULL;
	job_free(j);
}

int reload_parse_fast_opts(const char* args, struct reload_opts* o,
	struct strbuf* b)
{
	const char* p = args;
	memset(o, 0, sizeof(*o));
	o->kind = RELOAD_FAST;
	while(*p == ' ' || *p == '\t')
		p++;
	/* compat: unbound-1.23: "+vpd", or several words of them */
	while(*p == '+') {
		for(p++; *p && *p != ' ' && *p != '\t'; p++) {
			if(*p == 'v')
				o->verbose++;
			else if(*p == 'p')
				o->nopause = 1;
			else if(*p == 'd')
				o->drop_mesh = 1;
			else {
				strbuf_printf(b, "error: unknown option '+%c'\n",
					*p);
				return 0;
			}
		}
		while(*p == ' ' || *p == '\t')
			p++;
	}
	if(*p) {
		strbuf_printf(b, "error: unknown option '%s'\n", p);
		return 0;
	}
	return 1;
}
