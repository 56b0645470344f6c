/* SPDX-License-Identifier: BSD-3-Clause */
/* smallapp/resolve-test.c - test driver for the iterator and the mesh
 * (not installed). One event base with the outside network, the infra
 * and message caches and the mesh, as one worker will have them;
 * resolves the questions on the command line (all started at once, so
 * identical ones share one resolution) from the config's root-hints:,
 * prints the replies and exits.
 *
 *   resolve-test -c unbound.conf [-x] [-s] [-v N] [-t SEC] NAME[/TYPE]...
 *
 * -x prints each reply as one line "REPLY i HEX" (wire format) for
 * scripts, -s the counters, -t bounds the whole run (default 30 s; exit
 * 2 when it runs out), -S asks one question after the other (each
 * first from the message cache, as the daemon's fast path will), so
 * later ones can use what earlier ones cached. Exit 0 when every
 * question got a reply. */
#include "config.h"
#include "iterator/iterator.h"
#include "iterator/iter_hints.h"
#include "services/mesh.h"
#include "services/modstack.h"
#include "daemon/worker_resolver.h"
#include "services/outside_network.h"
#include "services/port_pool.h"
#include "services/cache/infra.h"
#include "services/cache/msgcache.h"
#include "services/cache/rrset.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/msgparse.h"
#include "util/random.h"
#include <event2/event.h>
#include <ldns/ldns.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct question {
	struct query_info qi;
	uint8_t* reply;
	size_t len;
	int done;
};

struct driver {
	struct event_base* base;
	struct module_env* env;
	struct question* qs;
	struct answer_arg* args;
	int num, left, next, sequential;
	uint64_t msg_hits;
};

struct answer_arg {
	struct driver* d;
	struct question* q;
};

static void start_next(struct driver* d);

static void got_reply(void* arg, const uint8_t* reply, size_t len, int rcode,
	int security)
{
	struct answer_arg* a = arg;
	(void)security;
	/* jostled out (MESH_DROPPED): done, without a reply */
	a->q->reply = rcode == MESH_DROPPED ? NULL : malloc(len ? len : 1);
	if(a->q->reply) {
		memcpy(a->q->reply, reply, len);
		a->q->len = len;
	}
	a->q->done = 1;
	if(--a->d->left == 0)
		event_base_loopbreak(a->d->base);
	else if(a->d->sequential)
		start_next(a->d);
}

/* Start question d->next (all of them, unless sequential). */
static void start_next(struct driver* d)
{
	while(d->next < d->num) {
		int i = d->next++;
		struct question* q = &d->qs[i];
		d->args[i].d = d;
		d->args[i].q = q;
		if(d->sequential && d->env->msg_cache) {
			uint8_t buf[65535];
			struct msg_cache* c = d->env->msg_cache;
			size_t n = msg_cache_answer(c, &q->qi,
				msg_cache_hash(c, &q->qi), time(NULL), buf,
				sizeof(buf), 1232);
			if(n) {
				d->msg_hits++;
				got_reply(&d->args[i], buf, n, buf[3] & 0xf, 0);
				return;
			}
		}
		if(mesh_new_client(d->env->mesh, &q->qi, 65535, 1232,
			got_reply, &d->args[i]) != MESH_NEW_ADDED) {
			fprintf(stderr, "mesh refused question %d\n", i);
			if(--d->left == 0)
				event_base_loopbreak(d->base);
			continue;
		}
		if(d->sequential)
			return;
	}
}

static void on_timeout(evutil_socket_t fd, short ev, void* arg)
{
	(void)fd;
	(void)ev;
	event_base_loopbreak(arg);
}

static int parse_question(const char* arg, struct query_info* qi,
	struct ub_randstate* rnd)
{
	char name[1100];
	const char* slash = strrchr(arg, '/');
	ldns_rr_type t = LDNS_RR_TYPE_A;
	memset(qi, 0, sizeof(*qi));
	snprintf(name, sizeof(name), "%.*s", slash ? (int)(slash - arg) :
		(int)strlen(arg), arg);
	if(slash) {
		t = ldns_get_rr_type_by_name(slash + 1);
		if(t == 0)
			return 0;
	}
	qi->qname_len = dname_from_str(name, qi->qname);
	if(qi->qname_len == 0)
		return 0;
	qi->id = ub_random16(rnd);
	qi->flags = FLAG_RD;
	qi->qtype = (uint16_t)t;
	qi->qclass = CLASS_IN;
	return 1;
}

static void print_reply(const struct question* q, int idx, int hex)
{
	ldns_pkt* pkt = NULL;
	char name[1100];
	size_t i;
	dname_to_str(q->qi.qname, name, sizeof(name));
	if(!q->done) {
		printf(";; %s type %d: no reply\n", name, (int)q->qi.qtype);
		return;
	}
	if(hex) {
		printf("REPLY %d ", idx);
		for(i = 0; i < q->len; i++)
			printf("%02x", q->reply[i]);
		printf("\n");
		return;
	}
	if(ldns_wire2pkt(&pkt, q->reply, q->len) != LDNS_STATUS_OK) {
		printf(";; %s: unparsable reply\n", name);
		return;
	}
	ldns_pkt_print(stdout, pkt);
	ldns_pkt_free(pkt);
}

/* One worker's resolver, as the daemon's workers have it. */
static int start_resolver(struct module_env* env,
	const struct modstack* st, struct event_base* base,
	const struct config_file* cfg, const struct iter_hints* hints,
	struct port_pool* pool, struct infra_cache* infra,
	struct msg_cache* msg_cache, struct rrset_cache* rrset_cache)
{
	memset(env, 0, sizeof(*env));
	env->cfg = cfg;
	env->hints = hints;
	env->infra = infra;
	env->msg_cache = msg_cache;
	env->rrset_cache = rrset_cache;
	return worker_resolver_start(env, st, base, pool);
}

static void usage(void)
{
	fprintf(stderr, "usage: resolve-test -c CONFIG [-x] [-s] [-v N] "
		"[-t SEC] NAME[/TYPE]...\n");
	exit(1);
}

int main(int argc, char** argv)
{
	const char* cfgfile = NULL;
	int hex = 0, stats = 0, verb = -1, secs = 30, c, i, rc = 0;
	struct config_file* cfg;
	struct module_env env;
	struct modstack st;
	const struct iter_env* ie;
	struct driver d;
	struct answer_arg* args;
	struct port_pool* pool;
	struct infra_settings is;
	struct infra_cache* infra;
	struct msg_cache* msg_cache;
	struct rrset_cache* rrset_cache;
	struct iter_hints* hints;
	struct event* timer;
	struct timeval tv;
	static uint8_t avail[PORT_SET_SIZE];
	memset(&d, 0, sizeof(d));
	while((c = getopt(argc, argv, "c:xsSv:t:")) != -1) {
		switch(c) {
		case 'S': d.sequential = 1; break;
		case 'c': cfgfile = optarg; break;
		case 'x': hex = 1; break;
		case 's': stats = 1; break;
		case 'v': verb = atoi(optarg); break;
		case 't': secs = atoi(optarg); break;
		default: usage();
		}
	}
	argc -= optind;
	argv += optind;
	if(!cfgfile || argc < 1)
		usage();
	log_init(NULL, 0, NULL);
	cfg = config_create();
	if(!cfg || !config_read(cfg, cfgfile, NULL))
		return 1;
	verbosity = verb >= 0 ? (enum verbosity_value)verb :
		(enum verbosity_value)cfg->verbosity;
	d.env = &env;
	d.base = event_base_new();
	if(!d.base || !port_set_from_cfg(avail, cfg))
		return 1;
	/* what the daemon shares between workers */
	pool = port_pool_create(avail, cfg->outgoing_num_ports);
	infra_settings_from_cfg(cfg, &is);
	infra = infra_create(&is);
	msg_cache = msg_cache_create_cfg(cfg);
	rrset_cache = rrset_cache_create_cfg(cfg);
	hints = iter_hints_create(cfg);
	/* and what one worker has */
	if(!pool || !infra || !msg_cache || !rrset_cache || !hints ||
		!modstack_startup(&st, cfg) ||
		!start_resolver(&env, &st, d.base, cfg, hints, pool, infra,
		msg_cache, rrset_cache)) {
		log_err("cannot set up the resolver");
		return 1;
	}
	d.num = argc;
	d.qs = calloc((size_t)argc, sizeof(*d.qs));
	args = calloc((size_t)argc, sizeof(*args));
	d.args = args;
	if(!d.qs || !args)
		return 1;
	for(i = 0; i < argc; i++) {
		if(!parse_question(argv[i], &d.qs[i].qi, env.rnd)) {
			fprintf(stderr, "bad question '%s'\n", argv[i]);
			return 1;
		}
	}
	d.left = argc;
	start_next(&d);
	timer = evtimer_new(d.base, on_timeout, d.base);
	tv.tv_sec = secs;
	tv.tv_usec = 0;
	if(timer)
		evtimer_add(timer, &tv);
	if(d.left > 0)
		event_base_dispatch(d.base);
	for(i = 0; i < argc; i++) {
		print_reply(&d.qs[i], i, hex);
		if(!d.qs[i].done)
			rc = 2;
	}
	/* the iterator is the stack's last module */
	ie = env.modinfo[env.num_modules - 1];
	if(stats) {
		const struct mesh_stats* ms = mesh_get_stats(env.mesh);
		const struct outnet_stats* o = outnet_get_stats(env.outnet);
		printf("STATS mesh client=%llu joined=%llu states=%llu "
			"subs=%llu sub_joined=%llu cycles=%llu replies=%llu "
			"cached=%llu full=%llu\n",
			(unsigned long long)ms->client_queries,
			(unsigned long long)ms->joined,
			(unsigned long long)ms->states,
			(unsigned long long)ms->sub_states,
			(unsigned long long)ms->sub_joined,
			(unsigned long long)ms->cycles,
			(unsigned long long)ms->replies,
			(unsigned long long)ms->cached,
			(unsigned long long)ms->refused_full);
		printf("STATS iter sent=%llu replies=%llu timeouts=%llu "
			"errors=%llu referrals=%llu restarts=%llu lame=%llu "
			"targets=%llu scrubbed=%llu bad=%llu prime=%llu "
			"cache_answers=%llu cache_delegations=%llu "
			"stored=%llu msg_hits=%llu qmin=%llu msg_subs=%llu "
			"caps_fallbacks=%llu\n",
			(unsigned long long)ie->stats.sent,
			(unsigned long long)ie->stats.replies,
			(unsigned long long)ie->stats.timeouts,
			(unsigned long long)ie->stats.errors,
			(unsigned long long)ie->stats.referrals,
			(unsigned long long)ie->stats.restarts,
			(unsigned long long)ie->stats.lame,
			(unsigned long long)ie->stats.target_lookups,
			(unsigned long long)ie->stats.scrub_removed,
			(unsigned long long)ie->stats.bad_replies,
			(unsigned long long)ie->stats.prime,
			(unsigned long long)ie->stats.cache_answers,
			(unsigned long long)ie->stats.cache_delegations,
			(unsigned long long)ie->stats.stored_rrsets,
			(unsigned long long)d.msg_hits,
			(unsigned long long)ie->stats.qmin_sent,
			(unsigned long long)ie->stats.msg_cache_subs,
			(unsigned long long)ie->stats.caps_fallbacks);
		printf("STATS outnet udp=%llu tcp=%llu tc=%llu "
			"edns_fallback=%llu unwanted=%llu refused=%llu "
			"capsfail=%llu tcp_conns=%llu tcp_reused=%llu "
			"udp_resends=%llu\n",
			(unsigned long long)o->sent_udp,
			(unsigned long long)o->sent_tcp,
			(unsigned long long)o->tcp_on_tc,
			(unsigned long long)o->edns_fallbacks,
			(unsigned long long)o->unwanted,
			(unsigned long long)o->refused,
			(unsigned long long)o->capsfail,
			(unsigned long long)o->tcp_conns,
			(unsigned long long)o->tcp_reused,
			(unsigned long long)o->udp_resends);
	}
	fflush(stdout);
	if(timer)
		event_free(timer);
	worker_resolver_stop(&env);
	modstack_destartup(&st);
	iter_hints_delete(hints);
	msg_cache_delete(msg_cache);
	rrset_cache_delete(rrset_cache);
	infra_delete(infra);
	port_pool_delete(pool);
	event_base_free(d.base);
	for(i = 0; i < argc; i++)
		free(d.qs[i].reply);
	free(d.qs);
	free(args);
	config_delete(cfg);
	return rc;
}
