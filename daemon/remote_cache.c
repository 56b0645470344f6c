/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/remote_cache.c - the cache control commands: dump_cache,
 * load_cache, reload (+keep-cache), dump_infra, flush_infra,
 * dump_requestlist. Main thread; the caches lock inside, and a worker's
 * mesh is only read in that worker's own thread. */
#include "config.h"
#include "daemon/remote_cmd.h"
#include "daemon/cachedump.h"
#include "daemon/remote.h"
#include "daemon/daemon.h"
#include "daemon/worker.h"
#include "services/cache/infra.h"
#include "services/cache/msgcache.h"
#include "services/cache/rrset.h"
#include "services/mesh.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/net_help.h"
#include "util/strutil.h"
#include <event2/event.h>
#include <ldns/ldns.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rc_do_dump_cache(struct daemon_remote* rc, struct strbuf* b)
{
	cache_dump(rc->d->rrset_cache, rc->d->msg_cache, time(NULL), b);
}

int rc_cmd_wants_data(const char* cmd)
{
	size_t n = strlen("load_cache");
	cmd = str_skip_blank(cmd);
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
		/* compat: unbound-1.17: Unbound's answer; the detail goes to
		 * the log */
		log_warn("load_cache: %s", err);
		strbuf_printf(b, "error load failed\n");
		return;
	}
	verbose(VERB_OPS, "load_cache: %lu rrsets and %lu messages loaded",
		(unsigned long)nr, (unsigned long)nm);
	strbuf_printf(b, "ok\n");
}

struct infra_dump {
	struct strbuf* b;
	time_t now;
};

/* compat: unbound-1.17: One host line, as Unbound's dump_infra (runs under the
 * slab lock). */
static void infra_line(const struct sockaddr_storage* addr,
	socklen_t addrlen, const uint8_t* zone, size_t zonelen,
	const struct infra_info* d, int min_rtt, int max_rtt, void* arg)
{
	struct infra_dump* a = arg;
	char ip[128], name[1100];
	int port = addr_port(addr), rtt;
	(void)zonelen;
	addr_to_str(addr, addrlen, ip, sizeof(ip));
	if(port != 53)
		snprintf(ip + strlen(ip), sizeof(ip) - strlen(ip), "@%d", port);
	dname_to_str(zone, name, sizeof(name));
	if(d->ttl < a->now) {
		/* expired: only a backed-off server is worth showing */
		if(d->rtt.rto >= max_rtt)
			strbuf_printf(a->b, "%s %s expired rto %d\n", ip, name,
				d->rtt.rto);
		return;
	}
	rtt = d->rtt.srtt + 4 * d->rtt.rttvar;
	if(rtt < min_rtt)
		rtt = min_rtt;
	if(rtt > max_rtt)
		rtt = max_rtt;
	strbuf_printf(a->b, "%s %s ttl %lu ping %d var %d rtt %d rto %d "
		"tA %d tAAAA %d tother %d ednsknown %d edns %d delay %d "
		"lame dnssec %d rec %d A %d other %d\n", ip, name,
		(unsigned long)(d->ttl - a->now), d->rtt.srtt, d->rtt.rttvar,
		rtt, d->rtt.rto, d->timeout_A, d->timeout_AAAA,
		d->timeout_other, d->edns_lame_known, d->edns_version,
		(int)(a->now < d->probedelay ? d->probedelay - a->now : 0),
		d->isdnsseclame, d->rec_lame, d->lame_type_A, d->lame_other);
}

void rc_do_dump_infra(struct daemon_remote* rc, struct strbuf* b)
{
	struct infra_dump a;
	a.b = b;
	a.now = time(NULL);
	infra_walk(rc->d->infra, infra_line, &a);
}

void rc_do_flush_infra(struct daemon_remote* rc, char* arg,
	struct strbuf* b)
{
	struct sockaddr_storage addr;
	socklen_t len;
	if(arg && strcmp(arg, "all") == 0) {
		(void)infra_remove_addr(rc->d->infra, NULL, 0);
		strbuf_printf(b, "ok\n");
		return;
	}
	/* compat: unbound-1.17: an address, port 53 (no @port, as Unbound) */
	if(!arg || !ipstrtoaddr(arg, 53, &addr, &len)) {
		strbuf_printf(b, "error parsing ip addr: '%s'\n", arg ? arg : "");
		return;
	}
	(void)infra_remove_addr(rc->d->infra, &addr, len);
	strbuf_printf(b, "ok\n");
}

/* dump_requestlist runs in worker 0's thread (its mesh is not shared);
 * the main thread waits for it, a bounded time. Whoever finishes last
 * frees the request, so a worker that is late writes into nothing. */
struct rl_req {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done, abandoned;
	struct worker* w;
	struct strbuf out;
	int num;
};

static void rl_free(struct rl_req* r)
{
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->cond);
	strbuf_clear(&r->out);
	free(r);
}

static void rl_line(const struct mesh_state_view* v, void* arg)
{
	struct rl_req* r = arg;
	char nm[1100], age[48];
	char* t = ldns_rr_type2str((ldns_rr_type)v->qtype);
	char* c = ldns_rr_class2str((ldns_rr_class)v->qclass);
	dname_to_str(v->qname, nm, sizeof(nm));
	if(v->has_clients) {
		long s = (long)(v->age_ms / 1000);
		long us = (long)(v->age_ms % 1000) * 1000;
		snprintf(age, sizeof(age), "%ld.%6.6ld", s, us);
	} else	snprintf(age, sizeof(age), "-");
	strbuf_printf(&r->out, "%3d %4s %2s %s %s %s\n", r->num, t ? t :
		"TYPE??", c ? c : "CLASS??", nm, age, v->status);
	r->num++;
	free(t);
	free(c);
}

static void requestlist_cb(evutil_socket_t fd, short ev, void* arg)
{
	struct rl_req* r = arg;
	int abandoned;
	(void)fd;
	(void)ev;
	pthread_mutex_lock(&r->lock);
	abandoned = r->abandoned;
	if(!abandoned) {
		strbuf_printf(&r->out, "thread #%d\n", r->w->thread_num);
		strbuf_printf(&r->out, "#   type cl name    seconds    "
			"module status\n");
		if(r->w->menv.mesh)
			mesh_walk_states(r->w->menv.mesh, rl_line, r);
		r->done = 1;
		pthread_cond_signal(&r->cond);
	}
	pthread_mutex_unlock(&r->lock);
	if(abandoned)
		rl_free(r);
}

void rc_do_dump_requestlist(struct daemon_remote* rc, struct strbuf* b)
{
	struct timespec until;
	struct rl_req* r;
	int freeit = 1;
	if(!rc->d->workers || rc->d->num_workers < 1) {
		strbuf_printf(b, "error no worker thread\n");
		return;
	}
	if(!(r = calloc(1, sizeof(*r)))) {
		strbuf_printf(b, "error out of memory\n");
		return;
	}
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);
	r->w = rc->d->workers[0];
	/* the worker's base has no locks: only worker_post may reach it */
	if(!worker_post(r->w, requestlist_cb, r)) {
		rl_free(r);
		strbuf_printf(b, "error could not distribute cmd\n");
		return;
	}
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += RC_TIMEOUT_SECS - 1;
	pthread_mutex_lock(&r->lock);
	while(!r->done && pthread_cond_timedwait(&r->cond, &r->lock,
		&until) == 0)
		;
	if(r->done) {
		if(r->out.oom)
			strbuf_printf(b, "error out of memory\n");
		else	strbuf_printf(b, "%s", r->out.s ? r->out.s : "");
	} else {
		/* the worker frees it when the callback finally runs */
		r->abandoned = 1;
		freeit = 0;
		strbuf_printf(b, "error worker thread did not answer\n");
	}
	pthread_mutex_unlock(&r->lock);
	if(freeit)
		rl_free(r);
}
