/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/mesh_test.c - the mesh without the test internet: a
 * stub zone points at a loopback UDP socket that reads queries and
 * never answers. Identical questions share one state and one upstream
 * query, the num-queries-per-thread bound, SERVFAIL after the timeouts,
 * answers without hints, a callback that asks again, deleting a mesh
 * with queries in flight. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <event2/event.h>
#include "iterator/iterator.h"
#include "iterator/iter_hints.h"
#include "iterator/delegpt.h"
#include "services/mesh.h"
#include "services/modstack.h"
#include "services/outside_network.h"
#include "services/port_pool.h"
#include "services/cache/infra.h"
#include "services/cache/msgcache.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/msgparse.h"
#include "util/random.h"

struct world {
	struct event_base* base;
	struct port_pool* pool;
	struct infra_cache* infra;
	struct config_file* cfg;
	struct module_env env;
	struct modstack stack;
	struct mesh_area* mesh;
	int hole;          /* the server that never answers */
	int hole_port;
};

static uint8_t avail[PORT_SET_SIZE];

static void world_setup(struct world* w, int max_queries, int with_stub)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	struct infra_settings is;
	struct outnet_settings os;
	char addr[64];
	memset(w, 0, sizeof(*w));
	w->hole = socket(AF_INET, SOCK_DGRAM, 0);
	assert_true(w->hole >= 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(w->hole, (struct sockaddr*)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(w->hole, (struct sockaddr*)&sa, &sl), 0);
	w->hole_port = ntohs(sa.sin_port);
	w->cfg = config_create();
	assert_non_null(w->cfg);
	/* the root is the built-in one: with neither address family it
	 * has no address at all, so nothing is ever sent to the real root
	 * servers, and a name outside the stub fails at once */
	w->cfg->do_ip4 = 0;
	w->cfg->do_ip6 = 0;
	if(with_stub) {
		struct config_stub* s = calloc(1, sizeof(*s));
		struct config_strlist* a = calloc(1, sizeof(*a));
		snprintf(addr, sizeof(addr), "127.0.0.1@%d", w->hole_port);
		s->name = strdup("test.");
		a->str = strdup(addr);
		s->addrs = a;
		w->cfg->stubs = s;
	}
	w->base = event_base_new();
	assert_non_null(w->base);
	memset(avail, 0, sizeof(avail));
	port_set_mark(avail, "41000-41999", 1);
	w->pool = port_pool_create(avail, 100);
	assert_non_null(w->pool);
	infra_settings_default(&is);
	is.unknown_rtt = 50;
	is.min_rtt = 10;
	w->infra = infra_create(&is);
	assert_non_null(w->infra);
	memset(&os, 0, sizeof(os));
	os.udp_connect = 1;
	os.num_tcp = 2;
	os.do_ip4 = 1;
	os.do_not_query_localhost = 0;
	os.edns_size = 1232;
	os.tcp_timeout = 500;
	os.max_waiting = 100;
	free(w->cfg->module_conf);   /* the default "validator iterator" */
	w->cfg->module_conf = strdup("iterator");
	assert_non_null(w->cfg->module_conf);
	w->env.cfg = w->cfg;
	w->env.infra = w->infra;
	w->env.rnd = ub_initstate();
	w->env.outnet = outside_network_create(w->base, &os, w->pool,
		w->infra);
	assert_non_null(w->env.outnet);
	w->env.hints = iter_hints_create(w->cfg);
	assert_non_null(w->env.hints);
	w->mesh = mesh_create(&w->env, max_queries);
	assert_non_null(w->mesh);
	assert_ptr_equal(w->env.mesh, w->mesh);
	assert_int_equal(modstack_startup(&w->stack, w->cfg), 1);
	assert_int_equal(modstack_init(&w->stack, &w->env), 1);
	((struct iter_env*)w->env.modinfo[0])->unknown_rtt = 50;
}

static void world_teardown(struct world* w)
{
	mesh_delete(w->mesh);
	modstack_deinit(&w->env);
	modstack_destartup(&w->stack);
	outside_network_delete(w->env.outnet);
	assert_int_equal(port_pool_inuse(w->pool), 0);
	iter_hints_delete((struct iter_hints*)w->env.hints);
	infra_delete(w->infra);
	port_pool_delete(w->pool);
	ub_randfree(w->env.rnd);
	event_base_free(w->base);
	config_delete(w->cfg);
	close(w->hole);
}

/* Run the loop for ms milliseconds. */
static void run_for(struct world* w, int ms)
{
	struct timeval tv;
	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	event_base_loopexit(w->base, &tv);
	event_base_dispatch(w->base);
}

/* Datagrams the server got so far (read and forgotten). */
static int hole_count(struct world* w)
{
	uint8_t buf[600];
	int n = 0;
	while(recv(w->hole, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		n++;
	return n;
}

struct answer {
	int calls;
	int rcode;
	int security;      /* the callback's: the result's sec_status */
	uint16_t id;
	char qname[300];
	struct world* w;
	int ask_again;     /* callback asks the same question this often */
	struct query_info qi;
	/* callback detaches these waiters (a TCP connection closing while
	 * its first answer is sent), counting those it found */
	struct answer* detach_others[2];
	int detached;
	uint32_t ttl;      /* the first answer record's TTL, if any */
};

/* The TTL of the first answer record of reply (0 if none). */
static uint32_t first_ttl(const uint8_t* reply, size_t len)
{
	ldns_pkt* p = NULL;
	uint32_t ttl = 0;
	if(ldns_wire2pkt(&p, reply, len) == LDNS_STATUS_OK &&
		ldns_pkt_ancount(p) > 0)
		ttl = ldns_rr_ttl(ldns_rr_list_rr(ldns_pkt_answer(p), 0));
	ldns_pkt_free(p);
	return ttl;
}

static void on_reply(void* arg, const uint8_t* reply, size_t len, int rcode,
	int security)
{
	struct answer* a = arg;
	a->calls++;
	a->rcode = rcode;
	a->security = security;
	assert_true(len >= 12);
	a->id = (uint16_t)((reply[0] << 8) | reply[1]);
	a->ttl = first_ttl(reply, len);
	assert_int_equal(reply[3] & 0xf, rcode);
	for(int i = 0; i < 2; i++)
		if(a->detach_others[i])
			a->detached += mesh_detach_client(a->w->mesh,
				a->detach_others[i]);
	if(a->ask_again > 0) {
		a->ask_again--;
		assert_int_equal(mesh_new_client(a->w->mesh, &a->qi, 512, 1232,
			on_reply, a), MESH_NEW_ADDED);
	}
}

static void question(struct query_info* qi, const char* name, uint16_t id)
{
	memset(qi, 0, sizeof(*qi));
	qi->qname_len = dname_from_str(name, qi->qname);
	assert_true(qi->qname_len > 0);
	qi->qtype = TYPE_A;
	qi->qclass = CLASS_IN;
	qi->id = id;
	qi->flags = FLAG_RD;
}

static void test_no_hints_servfail_at_once(void** state)
{
	struct world w;
	struct answer a;
	(void)state;
	world_setup(&w, 10, 0);
	memset(&a, 0, sizeof(a));
	a.w = &w;
	question(&a.qi, "www.example.", 77);
	a.security = -1;
	assert_int_equal(mesh_new_client(w.mesh, &a.qi, 512, 1232, on_reply,
		&a), MESH_NEW_ADDED);
	assert_int_equal(a.calls, 1);
	assert_int_equal(a.rcode, RCODE_SERVFAIL);
	/* no validator in this stack: nothing was checked */
	assert_int_equal(a.security, SEC_UNCHECKED);
	assert_int_equal(a.id, 77);
	assert_int_equal((int)mesh_num_states(w.mesh), 0);
	assert_int_equal((int)mesh_num_waiters(w.mesh), 0);
	/* a callback that asks the same question again gets a new
	 * resolution (the finished one is out of the table) */
	a.ask_again = 2;
	assert_int_equal(mesh_new_client(w.mesh, &a.qi, 512, 1232, on_reply,
		&a), MESH_NEW_ADDED);
	assert_int_equal(a.calls, 4);
	assert_int_equal((int)mesh_num_states(w.mesh), 0);
	assert_int_equal(hole_count(&w), 0);
	world_teardown(&w);
}

static void test_identical_questions_share(void** state)
{
	struct world w;
	struct answer a[4];
	int i;
	(void)state;
	world_setup(&w, 10, 1);
	memset(a, 0, sizeof(a));
	question(&a[0].qi, "a.test.", 1);
	question(&a[1].qi, "A.TEST.", 2);
	question(&a[2].qi, "a.test.", 3);
	question(&a[3].qi, "b.test.", 4);
	for(i = 0; i < 4; i++)
		assert_int_equal(mesh_new_client(w.mesh, &a[i].qi, 512, 1232,
			on_reply, &a[i]), MESH_NEW_ADDED);
	assert_int_equal((int)mesh_num_states(w.mesh), 2);
	assert_int_equal((int)mesh_num_waiters(w.mesh), 4);
	assert_int_equal((int)mesh_get_stats(w.mesh)->joined, 2);
	run_for(&w, 20);
	/* one upstream query per distinct question */
	assert_int_equal(hole_count(&w), 2);
	for(i = 0; i < 4; i++)
		assert_int_equal(a[i].calls, 0);
	/* freed with queries in flight: no callbacks, nothing leaks */
	world_teardown(&w);
	for(i = 0; i < 4; i++)
		assert_int_equal(a[i].calls, 0);
}

static void test_timeouts_servfail(void** state)
{
	struct world w;
	struct answer a[2];
	int i;
	(void)state;
	world_setup(&w, 10, 1);
	memset(a, 0, sizeof(a));
	question(&a[0].qi, "x.test.", 10);
	question(&a[1].qi, "x.test.", 11);
	for(i = 0; i < 2; i++)
		assert_int_equal(mesh_new_client(w.mesh, &a[i].qi, 512, 1232,
			on_reply, &a[i]), MESH_NEW_ADDED);
	for(i = 0; i < 100 && (a[0].calls == 0 || a[1].calls == 0); i++)
		run_for(&w, 20);
	for(i = 0; i < 2; i++) {
		assert_int_equal(a[i].calls, 1);
		assert_int_equal(a[i].rcode, RCODE_SERVFAIL);
	}
	assert_int_equal(a[0].id, 10);
	assert_int_equal(a[1].id, 11);
	/* the one server got ITER_MAX_ATTEMPTS tries (outbound-msg-retry),
	 * the first one sent twice (the udp_resend of a server with no
	 * timeout counted yet), then SERVFAIL */
	assert_int_equal(hole_count(&w), ITER_MAX_ATTEMPTS + 1);
	assert_int_equal((int)mesh_num_states(w.mesh), 0);
	world_teardown(&w);
}

static void test_num_queries_bound(void** state)
{
	struct world w;
	struct answer a[4];
	(void)state;
	world_setup(&w, 2, 1);
	memset(a, 0, sizeof(a));
	question(&a[0].qi, "one.test.", 1);
	question(&a[1].qi, "two.test.", 2);
	question(&a[2].qi, "three.test.", 3);
	question(&a[3].qi, "one.test.", 4);
	assert_int_equal(mesh_new_client(w.mesh, &a[0].qi, 512, 1232,
		on_reply, &a[0]), MESH_NEW_ADDED);
	assert_int_equal(mesh_new_client(w.mesh, &a[1].qi, 512, 1232,
		on_reply, &a[1]), MESH_NEW_ADDED);
	/* full: a third question is refused, a repeat still joins */
	assert_int_equal(mesh_new_client(w.mesh, &a[2].qi, 512, 1232,
		on_reply, &a[2]), MESH_NEW_FULL);
	assert_int_equal(mesh_new_client(w.mesh, &a[3].qi, 512, 1232,
		on_reply, &a[3]), MESH_NEW_ADDED);
	assert_int_equal((int)mesh_get_stats(w.mesh)->refused_full, 1);
	assert_int_equal((int)mesh_num_waiters(w.mesh), 3);
	world_teardown(&w);
	assert_int_equal(a[2].calls, 0);
}

/* A reload's num-queries-per-thread: a larger bound takes the refused
 * question, a smaller one refuses the next while those in progress go
 * on. */
static void test_num_queries_bound_changed(void** state)
{
	struct world w;
	struct answer a[4];
	(void)state;
	world_setup(&w, 1, 1);
	memset(a, 0, sizeof(a));
	question(&a[0].qi, "one.test.", 1);
	question(&a[1].qi, "two.test.", 2);
	question(&a[2].qi, "three.test.", 3);
	question(&a[3].qi, "four.test.", 4);
	assert_int_equal(mesh_new_client(w.mesh, &a[0].qi, 512, 1232,
		on_reply, &a[0]), MESH_NEW_ADDED);
	assert_int_equal(mesh_new_client(w.mesh, &a[1].qi, 512, 1232,
		on_reply, &a[1]), MESH_NEW_FULL);
	mesh_set_max_queries(w.mesh, 3);
	assert_int_equal(mesh_new_client(w.mesh, &a[1].qi, 512, 1232,
		on_reply, &a[1]), MESH_NEW_ADDED);
	mesh_set_max_queries(w.mesh, 2);
	assert_int_equal(mesh_new_client(w.mesh, &a[2].qi, 512, 1232,
		on_reply, &a[2]), MESH_NEW_FULL);
	mesh_set_max_queries(w.mesh, 1000);   /* the table grows */
	assert_int_equal(mesh_new_client(w.mesh, &a[3].qi, 512, 1232,
		on_reply, &a[3]), MESH_NEW_ADDED);
	assert_int_equal((int)mesh_num_waiters(w.mesh), 3);
	world_teardown(&w);
	assert_int_equal(a[2].calls, 0);
}

static void test_detach_client(void** state)
{
	struct world w;
	struct answer a[3];
	int i;
	(void)state;
	world_setup(&w, 10, 1);
	memset(a, 0, sizeof(a));
	question(&a[0].qi, "c.test.", 1);
	question(&a[1].qi, "c.test.", 2);
	question(&a[2].qi, "d.test.", 3);
	for(i = 0; i < 3; i++)
		assert_int_equal(mesh_new_client(w.mesh, &a[i].qi, 512, 1232,
			on_reply, &a[i]), MESH_NEW_ADDED);
	assert_int_equal((int)mesh_num_states(w.mesh), 2);
	/* one of two waiters goes: the state stays */
	assert_int_equal(mesh_detach_client(w.mesh, &a[0]), 1);
	assert_int_equal((int)mesh_num_states(w.mesh), 2);
	assert_int_equal((int)mesh_num_waiters(w.mesh), 2);
	/* the only waiter goes: the state and its query go */
	assert_int_equal(mesh_detach_client(w.mesh, &a[2]), 1);
	assert_int_equal((int)mesh_num_states(w.mesh), 1);
	assert_int_equal(mesh_detach_client(w.mesh, &a[2]), 0);
	for(i = 0; i < 100 && a[1].calls == 0; i++)
		run_for(&w, 20);
	assert_int_equal(a[0].calls, 0);
	assert_int_equal(a[1].calls, 1);
	assert_int_equal(a[2].calls, 0);
	assert_int_equal((int)mesh_num_states(w.mesh), 0);
	world_teardown(&w);
}

/* The first waiter's callback detaches the others of the same state
 * (the worker's TCP close hook, then freeing them): they are found on
 * the list being answered and never called (was a use after free in
 * the soak test: state_finish called freed waiters). */
static void test_detach_during_answer(void** state)
{
	struct world w;
	struct answer a[3];
	int i;
	(void)state;
	world_setup(&w, 10, 1);
	memset(a, 0, sizeof(a));
	for(i = 0; i < 3; i++) {
		question(&a[i].qi, "e.test.", (uint16_t)(20 + i));
		a[i].w = &w;
		assert_int_equal(mesh_new_client(w.mesh, &a[i].qi, 512, 1232,
			on_reply, &a[i]), MESH_NEW_ADDED);
	}
	assert_int_equal((int)mesh_num_states(w.mesh), 1);
	/* waiters are answered newest first or oldest first: whichever
	 * comes first detaches the other two */
	a[0].detach_others[0] = &a[1];
	a[0].detach_others[1] = &a[2];
	a[2].detach_others[0] = &a[0];
	a[2].detach_others[1] = &a[1];
	for(i = 0; i < 100 && a[0].calls + a[2].calls == 0; i++)
		run_for(&w, 20);
	assert_int_equal(a[0].calls + a[1].calls + a[2].calls, 1);
	assert_int_equal(a[0].detached + a[2].detached, 2);
	assert_int_equal((int)mesh_num_waiters(w.mesh), 0);
	assert_int_equal((int)mesh_num_states(w.mesh), 0);
	world_teardown(&w);
}

/* A reload swaps the config and hints under queries in flight: they
 * finish with what they had; new ones use the new hints. */
static void test_reconfigure_in_flight(void** state)
{
	struct world w;
	struct answer a[2];
	struct config_file* cfg2 = config_create();
	struct iter_hints* h2;
	struct iter_hints* h1;
	int i;
	(void)state;
	world_setup(&w, 10, 1);
	h1 = (struct iter_hints*)w.env.hints;
	cfg2->do_ip4 = 0;            /* a root without addresses */
	cfg2->do_ip6 = 0;
	h2 = iter_hints_create(cfg2);     /* no stub, no usable root */
	assert_non_null(h2);
	memset(a, 0, sizeof(a));
	question(&a[0].qi, "e.test.", 1);
	question(&a[1].qi, "f.test.", 2);
	assert_int_equal(mesh_new_client(w.mesh, &a[0].qi, 512, 1232,
		on_reply, &a[0]), MESH_NEW_ADDED);
	run_for(&w, 10);
	w.env.cfg = cfg2;    /* as worker_resolver_reconfigure */
	w.env.hints = h2;
	w.env.anchors = NULL;
	modstack_reconfigure(&w.env);
	iter_hints_delete(h1);
	assert_int_equal(mesh_new_client(w.mesh, &a[1].qi, 512, 1232,
		on_reply, &a[1]), MESH_NEW_ADDED);
	assert_int_equal(a[1].calls, 1);     /* no usable root: at once */
	assert_int_equal(a[1].rcode, RCODE_SERVFAIL);
	for(i = 0; i < 100 && a[0].calls == 0; i++)
		run_for(&w, 20);
	assert_int_equal(a[0].calls, 1);     /* timed out on the old stub */
	assert_int_equal(hole_count(&w), ITER_MAX_ATTEMPTS + 1);
	config_delete(w.cfg);
	w.cfg = cfg2;
	world_teardown(&w);
}

/* A waiter that may be jostled out: MESH_DROPPED, without a reply. */
static void on_reply_or_drop(void* arg, const uint8_t* reply,
	size_t len, int rcode, int security)
{
	struct answer* a = arg;
	if(rcode == MESH_DROPPED) {
		assert_null(reply);
		assert_int_equal((int)len, 0);
		a->calls++;
		a->rcode = rcode;
		return;
	}
	on_reply(arg, reply, len, rcode, security);
}

/* num-queries-per-thread 4: two slots keep their query, two are on the
 * jostle list. When full, a new question replaces the jostle list's
 * oldest once that ran longer than jostle-timeout; its waiters (two
 * here) hear MESH_DROPPED and nothing else. Forever slots stay. */
static void test_jostle(void** state)
{
	struct world w;
	struct answer a[7];
	int i;
	(void)state;
	world_setup(&w, 4, 1);
	w.cfg->jostle_time = 100;
	memset(a, 0, sizeof(a));
	question(&a[0].qi, "f1.test.", 1);
	question(&a[1].qi, "f2.test.", 2);
	question(&a[2].qi, "j1.test.", 3);
	question(&a[3].qi, "j1.test.", 4);   /* joins j1 */
	question(&a[4].qi, "j2.test.", 5);
	question(&a[5].qi, "n1.test.", 6);
	question(&a[6].qi, "n2.test.", 7);
	for(i = 0; i < 5; i++)
		assert_int_equal(mesh_new_client(w.mesh, &a[i].qi, 512, 1232,
			on_reply_or_drop, &a[i]), MESH_NEW_ADDED);
	/* full, and nothing on the jostle list is old enough yet */
	assert_int_equal(mesh_new_client(w.mesh, &a[5].qi, 512, 1232,
		on_reply_or_drop, &a[5]), MESH_NEW_FULL);
	assert_int_equal((int)mesh_get_stats(w.mesh)->jostled, 0);
	run_for(&w, 150);
	/* j1 (oldest on the jostle list) goes, with both its waiters */
	assert_int_equal(mesh_new_client(w.mesh, &a[5].qi, 512, 1232,
		on_reply_or_drop, &a[5]), MESH_NEW_ADDED);
	assert_int_equal(a[2].calls, 1);
	assert_int_equal(a[2].rcode, MESH_DROPPED);
	assert_int_equal(a[3].calls, 1);
	assert_int_equal(a[4].calls, 0);
	assert_int_equal((int)mesh_get_stats(w.mesh)->jostled, 1);
	assert_int_equal((int)mesh_num_waiters(w.mesh), 4);
	/* then j2 (older than n1, which queued behind it) */
	assert_int_equal(mesh_new_client(w.mesh, &a[6].qi, 512, 1232,
		on_reply_or_drop, &a[6]), MESH_NEW_ADDED);
	assert_int_equal(a[4].calls, 1);
	assert_int_equal(a[4].rcode, MESH_DROPPED);
	assert_int_equal((int)mesh_get_stats(w.mesh)->jostled, 2);
	/* n1 and n2 are young now: the next one is refused */
	question(&a[4].qi, "n3.test.", 8);
	a[4].calls = 0;
	assert_int_equal(mesh_new_client(w.mesh, &a[4].qi, 512, 1232,
		on_reply_or_drop, &a[4]), MESH_NEW_FULL);
	/* a negative jostle-timeout (huge in Unbound): never */
	w.cfg->jostle_time = -5;
	run_for(&w, 150);
	assert_int_equal(mesh_new_client(w.mesh, &a[4].qi, 512, 1232,
		on_reply_or_drop, &a[4]), MESH_NEW_FULL);
	assert_int_equal((int)mesh_get_stats(w.mesh)->jostled, 2);
	/* the forever slots were never touched */
	assert_int_equal(a[0].calls, 0);
	assert_int_equal(a[1].calls, 0);
	assert_int_equal((int)mesh_num_states(w.mesh), 4);
	world_teardown(&w);
}

/* A refresh has no waiter and is one per question: a second one while
 * the first is in flight starts nothing; a client asking meanwhile
 * joins it (one upstream query). Not when the mesh is full. */
static void test_prefetch_once(void** state)
{
	struct world w;
	struct answer a[3];
	int i;
	(void)state;
	world_setup(&w, 2, 1);
	memset(a, 0, sizeof(a));
	/* 3 sends per address, not outbound-msg-retry's 5: the third
	 * question's server has a backed-off rto by then */
	((struct iter_env*)w.env.modinfo[0])->max_attempts = 3;
	question(&a[0].qi, "p.test.", 1);
	question(&a[1].qi, "q.test.", 2);
	question(&a[2].qi, "r.test.", 3);
	assert_int_equal(mesh_new_prefetch(w.mesh, &a[0].qi), 1);
	assert_int_equal(mesh_new_prefetch(w.mesh, &a[0].qi), 0);
	assert_int_equal((int)mesh_get_stats(w.mesh)->prefetch, 1);
	assert_int_equal((int)mesh_num_states(w.mesh), 1);
	assert_int_equal((int)mesh_num_waiters(w.mesh), 0);
	assert_int_equal(mesh_new_client(w.mesh, &a[0].qi, 512, 1232,
		on_reply, &a[0]), MESH_NEW_ADDED);
	assert_int_equal((int)mesh_num_states(w.mesh), 1);
	run_for(&w, 30);
	assert_int_equal(hole_count(&w), 1);
	/* full (2 clients): no refresh for another question */
	assert_int_equal(mesh_new_client(w.mesh, &a[1].qi, 512, 1232,
		on_reply, &a[1]), MESH_NEW_ADDED);
	assert_int_equal(mesh_new_prefetch(w.mesh, &a[2].qi), 0);
	assert_int_equal((int)mesh_get_stats(w.mesh)->prefetch_full, 1);
	for(i = 0; i < 200 && (a[0].calls == 0 || a[1].calls == 0); i++)
		run_for(&w, 20);
	assert_int_equal(a[0].calls, 1);
	assert_int_equal(a[0].rcode, RCODE_SERVFAIL);
	assert_int_equal((int)mesh_num_states(w.mesh), 0);
	/* a refresh nobody joins ends (and is freed) on its own */
	assert_int_equal(mesh_new_prefetch(w.mesh, &a[2].qi), 1);
	for(i = 0; i < 200 && mesh_num_states(w.mesh) > 0; i++)
		run_for(&w, 20);
	assert_int_equal((int)mesh_num_states(w.mesh), 0);
	world_teardown(&w);
}

/* Detached queries (harden-referral-path): at most MESH_MAX_DETACHED
 * at a time, one per question, no waiters, freed when done; a preset
 * delegation is asked instead of the hints. */
static void test_detached_bounded(void** state)
{
	struct world w;
	struct query_info qi;
	struct delegpt* dp;
	struct sockaddr_in sa;
	char name[64];
	int i, started = 0;
	(void)state;
	world_setup(&w, 100, 1);
	for(i = 0; i < MESH_MAX_DETACHED + 3; i++) {
		snprintf(name, sizeof(name), "d%d.test.", i);
		question(&qi, name, 1);
		started += mesh_new_detached(w.mesh, qi.qname, TYPE_A,
			CLASS_IN, 1) != NULL;
	}
	mesh_run_queued(w.mesh);
	assert_int_equal(started, MESH_MAX_DETACHED);
	assert_int_equal((int)mesh_get_stats(w.mesh)->detached,
		MESH_MAX_DETACHED);
	assert_int_equal((int)mesh_get_stats(w.mesh)->detached_full, 3);
	assert_int_equal((int)mesh_num_states(w.mesh), MESH_MAX_DETACHED);
	assert_int_equal((int)mesh_num_waiters(w.mesh), 0);
	/* one in flight: not again */
	question(&qi, "d0.test.", 1);
	assert_null(mesh_new_detached(w.mesh, qi.qname, TYPE_A,
		CLASS_IN, 1));
	run_for(&w, 30);
	assert_int_equal(hole_count(&w), MESH_MAX_DETACHED);
	for(i = 0; i < 300 && mesh_num_states(w.mesh) > 0; i++)
		run_for(&w, 20);
	assert_int_equal((int)mesh_num_states(w.mesh), 0);
	(void)hole_count(&w);   /* the retries */
	/* a name outside the stub (no hints with an address): asked of
	 * the delegation given */
	question(&qi, "www.other.", 1);
	dp = delegpt_create((const uint8_t*)"\5other");
	assert_non_null(dp);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)w.hole_port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(delegpt_add_addr(dp, (struct sockaddr_storage*)&sa,
		sizeof(sa)), 1);
	assert_int_equal(iter_new_detached(w.env.modinfo[0], qi.qname,
		TYPE_A, CLASS_IN, 1, dp), 1);
	delegpt_delete(dp);
	mesh_run_queued(w.mesh);
	run_for(&w, 30);
	assert_int_equal(hole_count(&w), 1);
	for(i = 0; i < 300 && mesh_num_states(w.mesh) > 0; i++)
		run_for(&w, 20);
	assert_int_equal((int)mesh_num_states(w.mesh), 0);
	world_teardown(&w);
}

/* serve-expired-client-timeout: a waiter leaves, its state goes on. */
static void test_detach_waiter_keeps_running(void** state)
{
	struct world w;
	struct answer a;
	(void)state;
	world_setup(&w, 10, 1);
	memset(&a, 0, sizeof(a));
	question(&a.qi, "k.test.", 1);
	assert_int_equal(mesh_new_client(w.mesh, &a.qi, 512, 1232, on_reply,
		&a), MESH_NEW_ADDED);
	assert_int_equal(mesh_detach_waiter(w.mesh, &a), 1);
	assert_int_equal((int)mesh_num_waiters(w.mesh), 0);
	assert_int_equal((int)mesh_num_states(w.mesh), 1);
	run_for(&w, 30);
	assert_int_equal(hole_count(&w), 1);
	world_teardown(&w);
	assert_int_equal(a.calls, 0);
}

/* The hole answers the queries it got so far: their question, QR and
 * AA, one A record with TTL ttl (no EDNS). Returns how many. */
static int hole_answer(struct world* w, uint32_t ttl)
{
	static const uint8_t rr[] = { 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 0,
		0, 4, 192, 0, 2, 1 };
	uint8_t buf[600];
	struct sockaddr_storage from;
	socklen_t fl = sizeof(from);
	ssize_t n;
	int count = 0;
	while((n = recvfrom(w->hole, buf, sizeof(buf) - sizeof(rr),
		MSG_DONTWAIT, (struct sockaddr*)&from, &fl)) > 12) {
		size_t pos = 12;
		while(pos < (size_t)n && buf[pos])
			pos += (size_t)buf[pos] + 1;
		pos += 5;   /* the root label, type, class */
		assert_true(pos <= (size_t)n);
		buf[2] = (uint8_t)(0x84 | (buf[2] & 0x01));  /* QR AA RD */
		buf[3] = 0;
		buf[6] = 0; buf[7] = 1;       /* ancount */
		buf[8] = buf[9] = buf[10] = buf[11] = 0;
		memcpy(buf + pos, rr, sizeof(rr));
		buf[pos + 6] = (uint8_t)(ttl >> 24);
		buf[pos + 7] = (uint8_t)(ttl >> 16);
		buf[pos + 8] = (uint8_t)(ttl >> 8);
		buf[pos + 9] = (uint8_t)ttl;
		assert_true(sendto(w->hole, buf, pos + sizeof(rr), 0,
			(struct sockaddr*)&from, fl) > 0);
		count++;
		fl = sizeof(from);
	}
	return count;
}

/* The waiters of one state, with DO and without, in any case, are
 * answered from the entries the state stored (cache-max-ttl 100 there:
 * an answer encoded from the state would carry the upstream's 3600),
 * each under its own key. */
static void test_waiters_answered_from_cache(void** state)
{
	struct world w;
	struct answer a[3];
	struct query_info qi;
	int i;
	(void)state;
	world_setup(&w, 10, 1);
	w.env.msg_cache = msg_cache_create(1 << 20, 4, 0, 100, 3600);
	assert_non_null(w.env.msg_cache);
	memset(a, 0, sizeof(a));
	question(&a[0].qi, "w.test.", 1);
	question(&a[1].qi, "W.TEST.", 2);
	a[1].qi.edns_do = 1;
	question(&a[2].qi, "w.Test.", 3);
	for(i = 0; i < 3; i++)
		assert_int_equal(mesh_new_client(w.mesh, &a[i].qi, 512, 1232,
			on_reply, &a[i]), MESH_NEW_ADDED);
	assert_int_equal((int)mesh_num_states(w.mesh), 1);
	run_for(&w, 20);
	assert_int_equal(hole_answer(&w, 3600), 1);
	run_for(&w, 20);
	for(i = 0; i < 3; i++) {
		assert_int_equal(a[i].calls, 1);
		assert_int_equal(a[i].rcode, RCODE_NOERROR);
		assert_int_equal(a[i].id, i + 1);
		assert_int_equal(a[i].ttl, 100);
	}
	/* both variants are in the cache, each under its key */
	question(&qi, "w.test.", 9);
	for(i = 0; i < 2; i++) {
		struct msg_entry* e;
		qi.edns_do = i;
		e = msg_cache_lookup(w.env.msg_cache, &qi,
			msg_cache_hash(w.env.msg_cache, &qi), time(NULL));
		assert_non_null(e);
		msg_cache_release(w.env.msg_cache, e);
	}
	world_teardown(&w);
	msg_cache_delete(w.env.msg_cache);
}

/* module_result_free_lists frees the three lists (ASan's leak check
 * sees the records go) and leaves the other fields alone. */
static void test_result_free_lists(void** state)
{
	struct module_result res;
	ldns_rr* rr = NULL;
	(void)state;
	memset(&res, 0, sizeof(res));
	res.rcode = RCODE_NOERROR;
	res.security = SEC_SECURE;
	res.num_from = 1;
	res.answer = ldns_rr_list_new();
	res.additional = ldns_rr_list_new();
	assert_true(res.answer && res.additional);
	assert_int_equal(ldns_rr_new_frm_str(&rr, "w.test. 60 IN A 192.0.2.1",
		0, NULL, NULL), LDNS_STATUS_OK);
	assert_true(ldns_rr_list_push_rr(res.answer, rr));
	module_result_free_lists(&res);
	assert_null(res.answer);
	assert_null(res.authority);
	assert_null(res.additional);
	assert_int_equal(res.rcode, RCODE_NOERROR);
	assert_int_equal(res.security, SEC_SECURE);
	assert_int_equal(res.num_from, 1);
	module_result_free_lists(&res);   /* nothing left: a no-op */
	assert_null(res.answer);
}

/* module_result_clear_keep_from frees the lists, clears the rest as
 * module_result_clear (rcode SERVFAIL, EDE none) and keeps the servers. */
static void test_result_clear_keep_from(void** state)
{
	struct module_result res;
	struct sockaddr_in* sa;
	(void)state;
	memset(&res, 0x5a, sizeof(res));
	res.answer = ldns_rr_list_new();
	res.authority = NULL;
	res.additional = NULL;
	assert_non_null(res.answer);
	res.num_from = 2;
	sa = (struct sockaddr_in*)&res.from[1].addr;
	sa->sin_port = htons(5353);
	module_result_clear_keep_from(&res);
	assert_null(res.answer);
	assert_null(res.authority);
	assert_null(res.additional);
	assert_int_equal(res.rcode, RCODE_SERVFAIL);
	assert_int_equal(res.security, 0);
	assert_int_equal(res.why_bogus.ede, VAL_EDE_NONE);
	assert_null(res.why_bogus.text);
	assert_int_equal(res.no_store, 0);
	assert_int_equal(res.has_ede, 0);
	assert_int_equal(res.ede_code, 0);
	assert_string_equal(res.ede_text, "");
	assert_int_equal(res.num_from, 2);
	assert_int_equal(ntohs(sa->sin_port), 5353);
	assert_int_equal(res.from[0].len, 0x5a5a5a5a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_hints_servfail_at_once),
		cmocka_unit_test(test_identical_questions_share),
		cmocka_unit_test(test_timeouts_servfail),
		cmocka_unit_test(test_num_queries_bound_changed),
		cmocka_unit_test(test_num_queries_bound),
		cmocka_unit_test(test_detach_client),
		cmocka_unit_test(test_detach_during_answer),
		cmocka_unit_test(test_reconfigure_in_flight),
		cmocka_unit_test(test_jostle),
		cmocka_unit_test(test_prefetch_once),
		cmocka_unit_test(test_detach_waiter_keeps_running),
		cmocka_unit_test(test_detached_bounded),
		cmocka_unit_test(test_waiters_answered_from_cache),
		cmocka_unit_test(test_result_free_lists),
		cmocka_unit_test(test_result_clear_keep_from),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
