/* SPDX-License-Identifier: BSD-3-Clause */
/* respip/respip.c - compat: unbound-1.17: the respip module. Unbound's
 * respip rewrites the result in the module and again on each cache hit in
 * its worker; here the result goes up and into the message cache as it
 * came (so a blocked name is a cache hit next time, as in Unbound), and
 * the rules apply to each client's reply on the wire, in one place
 * (filter_reply), for the mesh's answers and the cache's alike. Its
 * presence in the stack sets the stack's query_before_cache flag: the
 * cache-hit path reads that one flag and costs nothing without respip.
 *
 * The rules are the config's (respip_set.h), the server: clause's and
 * each view: clause's own, one copy per worker, made again on reload; a
 * client's view comes as its place among the view: clauses
 * (client->view). The rpz: policy, zones of any size, is one snapshot
 * all workers share (respip/rpz_store.h, the module's global state). */
#include "config.h"
#include "respip/respip.h"
#include "respip/respip_set.h"
#include "respip/respip_rewrite.h"
#include "respip/rpz.h"
#include "respip/rpz_nstrigger.h"
#include "respip/rpz_store.h"
#include "services/localzone.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/net_help.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCRATCH_SIZE 65535

_Static_assert(RPZ_ACTION_COUNT == MODULE_RPZ_ACTIONS,
	"num.rpz.action counters: one per action");

/* A view's rules: NULL when its clause has no response-ip lines. */
struct respip_view {
	struct respip_set* set;
	int isfirst;   /* view-first: the global rules after the view's */
};

/* All rules of one config: the server: clause's, and per view: clause
 * in config order (the order of struct views). */
struct respip_rules {
	struct respip_set* global;
	struct respip_view* views;
	size_t num_views;
	int none;      /* no rule anywhere: every reply passes */
};

static void rules_delete(struct respip_rules* r)
{
	size_t i;
	if(!r)
		return;
	respip_set_delete(r->global);
	for(i = 0; i < r->num_views; i++)
		respip_set_delete(r->views[i].set);
	free(r->views);
	free(r);
}

static struct respip_rules* rules_create(const struct config_file* cfg)
{
	struct respip_rules* r = calloc(1, sizeof(*r));
	const struct config_view* cv;
	const struct config_auth* a;
	size_t n = 0;
	int no_rpz = 1;
	if(!r)
		goto oom;
	for(a = cfg->auths; a; a = a->next)
		if(a->isrpz && a->name)
			no_rpz = 0;
	if(!(r->global = respip_set_create_tagged(cfg, cfg->respip_tags,
		cfg->respip_actions, cfg->respip_data)))
		goto fail;
	r->none = respip_set_empty(r->global) && no_rpz;
	for(cv = cfg->views; cv; cv = cv->next)
		n++;
	if(n && !(r->views = calloc(n, sizeof(*r->views))))
		goto oom;
	r->num_views = n;
	for(n = 0, cv = cfg->views; cv; cv = cv->next, n++) {
		r->views[n].isfirst = cv->view_first;
		if(!cv->respip_actions && !cv->respip_data)
			continue;
		if(!(r->views[n].set = respip_set_create(cv->respip_actions,
			cv->respip_data))) {
			/* compat: unbound-1.17: its words */
			log_err("Error while applying respip configuration "
				"for view '%s'", cv->name ? cv->name : "");
			goto fail;
		}
		if(!respip_set_empty(r->views[n].set))
			r->none = 0;
	}
	return r;
oom:
	log_err("respip: out of memory");
fail:
	rules_delete(r);
	return NULL;
}

/* Per worker: the rules, the shared rpz policy it holds, and room to
 * build a new reply in. */
struct respip_env {
	struct respip_rules* rules;
	struct rpz_store* store;
	struct rpz_reader rpz;
	uint8_t scratch[SCRATCH_SIZE];
};

/* The module's global state: the rpz: policy all workers share, and the
 * start's rules, checked once (a bad rule stops the start, as Unbound's
 * "could not set up response IP set"); mem.mod.respip. */
struct respip_global {
	struct rpz_store* rpz;
	struct respip_rules* rules;
};

static void respip_destartup(void* global)
{
	struct respip_global* g = global;
	if(!g)
		return;
	rpz_store_delete(g->rpz);
	rules_delete(g->rules);
	free(g);
}

static void* respip_startup(const struct config_file* cfg)
{
	struct respip_global* g = calloc(1, sizeof(*g));
	if(!g) {
		log_err("respip: out of memory");
		return NULL;
	}
	if(!(g->rules = rules_create(cfg)) ||
		!(g->rpz = rpz_store_create(cfg))) {
		respip_destartup(g);
		return NULL;
	}
	return g;
}

/* The reload thread: the rpz: zones read aside. */
static void* respip_reload_prepare(void* global, const struct config_file* cfg)
{
	struct respip_global* g = global;
	return rpz_store_prepare(g->rpz, cfg);
}

static void respip_reload_discard(void* global, void* prepared)
{
	(void)global;
	rpz_store_prep_delete(prepared);
}

static int respip_reload_global(void* global, const struct config_file* cfg,
	void* prepared)
{
	struct respip_global* g = global;
	return rpz_store_reload(g->rpz, cfg, prepared);
}

static size_t respip_get_mem(void* global)
{
	const struct respip_global* g = global;
	const struct respip_rules* r = g ? g->rules : NULL;
	size_t i, m;
	if(!r)
		return 0;
	m = sizeof(*g) + sizeof(*r) + r->num_views * sizeof(*r->views) +
		respip_set_mem(r->global) + rpz_store_mem(g->rpz);
	for(i = 0; i < r->num_views; i++)
		if(r->views[i].set)
			m += respip_set_mem(r->views[i].set);
	return m;
}

/* In the stack, every reply is looked at (a reload may add rules):
 * filter_reply sets the stack's flag (services/modstack.c). */

static const struct module_deleg_hook respip_deleg_hook;

static int respip_init(struct module_env* env, int id)
{
	struct respip_env* re = calloc(1, sizeof(*re));
	if(!re) {
		log_err("respip: out of memory");
		return 0;
	}
	env->modinfo[id] = re;
	re->store = ((struct respip_global*)env->modglobal[id])->rpz;
	if(!(re->rules = rules_create(env->cfg))) {
		log_err("could not set up response IP set");
		return 0;
	}
	/* a reload may bring rpz: clauses: the hook is there from the
	 * start and returns at once without them */
	env->deleg_hook = &respip_deleg_hook;
	env->deleg_hook_id = id;
	return 1;
}

static void respip_deinit(struct module_env* env, int id)
{
	struct respip_env* re = env->modinfo[id];
	if(!re)
		return;
	rules_delete(re->rules);
	rpz_reader_clear(&re->rpz);
	free(re);
	env->modinfo[id] = NULL;
}

static void respip_reconfigure(struct module_env* env, int id)
{
	struct respip_env* re = env->modinfo[id];
	struct respip_rules* r = rules_create(env->cfg);
	/* rules that fail (checked before the reload took them: out of
	 * memory) keep the old ones */
	if(!r)
		return;
	rules_delete(re->rules);
	re->rules = r;
	/* the reload's rpz snapshot now, not at the next reply */
	(void)rpz_reader_policy(re->store, &re->rpz);
}

/* The result goes up as it came: the rules apply per client, on the
 * reply (respip_filter_reply). */
static enum module_state respip_operate(struct module_qstate* qs,
	enum module_event ev, int id, const struct outnet_reply* reply)
{
	(void)qs;
	(void)id;
	(void)reply;
	if(ev == MODULE_EVENT_NEW)
		return MODULE_WAIT_MODULE;
	return MODULE_FINISHED;
}

static void respip_inform_super(struct module_qstate* sub, int id,
	struct module_qstate* super)
{
	(void)sub;
	(void)id;
	(void)super;
}

static void respip_clear(struct module_qstate* qs, int id)
{
	qs->minfo[id] = NULL;
}

static const char* type_name(uint16_t t, char* buf, size_t len)
{
	switch(t) {
	case 1: return "A";
	case 28: return "AAAA";
	case 255: return "ANY";
	default:
		snprintf(buf, len, "TYPE%d", (int)t);
		return buf;
	}
}

/* compat: unbound-1.17: the inform line, as Unbound's respip_inform_print:
 * "192.0.2.0/24 inform 127.0.0.1@40000 www.example.com. A IN". */
static void log_inform(const struct respip_rule* r,
	const struct module_reply_client* client, const uint8_t* pkt,
	size_t len)
{
	char block[64], src[64], name[1024], tb[16], cb[16];
	uint8_t q[LDNS_MAX_DOMAINLEN + 1];
	size_t pos = LDNS_HEADER_SIZE;
	struct sockaddr_storage ss;
	uint16_t qtype, qclass;
	const char* cls;
	memset(&ss, 0, sizeof(ss));
	if(!dname_read_wire(pkt, len, &pos, q) || pos + 4 > len)
		return;
	qtype = (uint16_t)((pkt[pos] << 8) | pkt[pos + 1]);
	qclass = (uint16_t)((pkt[pos + 2] << 8) | pkt[pos + 3]);
	if(r->is_ip6) {
		struct sockaddr_in6* s6 = (struct sockaddr_in6*)&ss;
		s6->sin6_family = AF_INET6;
		memcpy(&s6->sin6_addr, r->addr, 16);
		addr_to_str(&ss, sizeof(*s6), block, sizeof(block));
	} else {
		struct sockaddr_in* s4 = (struct sockaddr_in*)&ss;
		s4->sin_family = AF_INET;
		memcpy(&s4->sin_addr, r->addr, 4);
		addr_to_str(&ss, sizeof(*s4), block, sizeof(block));
	}
	addr_to_str(client->addr, client->addrlen, src, sizeof(src));
	dname_to_str(q, name, sizeof(name));
	if(qclass == 1)
		cls = "IN";
	else {
		snprintf(cb, sizeof(cb), "CLASS%d", (int)qclass);
		cls = cb;
	}
	log_info("%s/%d inform %s@%u %s %s %s", block, (int)r->net, src,
		(unsigned)addr_port(client->addr), name,
		type_name(qtype, tb, sizeof(tb)), cls);
}

/* compat: unbound-1.17: a client's access-control-tag-action on a
 * response-ip-tag rule: the local-zone type as the respip action of the
 * same name (Unbound casts one to the other); the types respip has no
 * action for apply the rule's data, else pass the answer. */
static enum respip_action tag_action(void* arg, int tag)
{
	enum localzone_type t;
	if(!lz_client_tags_get_action(arg, tag, &t))
		return RESPIP_NONE;
	switch(t) {
	case local_zone_deny: return RESPIP_DENY;
	case local_zone_refuse: return RESPIP_REFUSE;
	case local_zone_static: return RESPIP_STATIC;
	case local_zone_redirect: return RESPIP_REDIRECT;
	case local_zone_inform: return RESPIP_INFORM;
	case local_zone_inform_deny: return RESPIP_INFORM_DENY;
	case local_zone_inform_redirect: return RESPIP_INFORM_REDIRECT;
	case local_zone_always_transparent:
		return RESPIP_ALWAYS_TRANSPARENT;
	case local_zone_always_refuse: return RESPIP_ALWAYS_REFUSE;
	case local_zone_always_nxdomain: return RESPIP_ALWAYS_NXDOMAIN;
	case local_zone_always_nodata: return RESPIP_ALWAYS_NODATA;
	case local_zone_always_deny: return RESPIP_ALWAYS_DENY;
	default: return RESPIP_TRANSPARENT;
	}
}

static size_t tag_data(void* arg, int tag, uint16_t type, uint16_t rclass,
	uint8_t* buf, size_t cap, size_t* len)
{
	return lz_client_tags_records(arg, tag, type, rclass, buf, cap, len);
}

/* The shared rpz policy (the rpz_enable/rpz_disable switch applied);
 * NULL: no rpz: clause. */
static const struct rpz_policy* current_rpz(struct respip_env* re)
{
	return rpz_reader_policy(re->store, &re->rpz);
}

static void rpz_client_of(const struct module_reply_client* client,
	struct rpz_client* rc)
{
	rc->addr = client->addr;
	rc->addrlen = client->addrlen;
	rc->is_tcp = client->is_stream;
	rc->tags = client->tags;
	rc->chased = client->chased;
	rc->quiet = client->search_only;
}

/* The rpz policy on the reply pkt, counted (num.rpz.action.*) and
 * logged; *decided 0 when no trigger decided (the response-ip rules
 * next). A search_only reply: MODULE_REPLY_MATCHED when one decided,
 * pkt left as it is, nothing counted or logged. */
static enum module_reply_verdict apply_rpz(struct module_env* env,
	struct respip_env* re, const struct rpz_policy* p,
	const struct module_reply_client* client, uint8_t* pkt, size_t* len,
	size_t room, int* decided)
{
	struct rpz_client rc;
	enum rpz_action a;
	enum rpz_outcome o;
	size_t n = 0;
	rpz_client_of(client, &rc);
	*decided = 1;
	o = rpz_policy_apply(p, &rc, pkt, *len, re->scratch, room, &n, &a);
	if(client->search_only) {
		/* compat: unbound-1.17: respip_merge_cname's actinfo is its
		 * own, dropped: no num.rpz.action.* (nor rpz-log line) for a
		 * merged target */
		*decided = o != RPZ_OUT_NONE;
		return *decided ? MODULE_REPLY_MATCHED : MODULE_REPLY_KEEP;
	}
	switch(o) {
	case RPZ_OUT_NONE:
		break;
	case RPZ_OUT_PASS:
		env->counters.rpz_action[a]++;
		return MODULE_REPLY_KEEP;
	case RPZ_OUT_DROPPED:
		env->counters.rpz_action[a]++;
		return MODULE_REPLY_DROP;
	case RPZ_OUT_CHANGED:
	case RPZ_OUT_CHASE:
	case RPZ_OUT_ALIAS:
		env->counters.rpz_action[a]++;
		memcpy(pkt, re->scratch, n);
		*len = n;
		/* a CNAME whose target the daemon resolves */
		if(o == RPZ_OUT_CHASE)
			return MODULE_REPLY_CHASE;
		if(o == RPZ_OUT_ALIAS)
			return MODULE_REPLY_ALIAS;
		return MODULE_REPLY_CHANGED;
	}
	if(a < RPZ_ACTION_COUNT)   /* disabled: counted */
		env->counters.rpz_action[a]++;
	*decided = 0;
	return MODULE_REPLY_KEEP;
}

/* compat: unbound-1.17: as its rpz_callback_from_worker_request: the
 * client-ip and QNAME triggers answer before the cache and resolution
 * when their answer needs none (a blocked name's servers are never
 * asked); the rest (passthru, CNAMEs to chase, response-IP triggers)
 * waits for the reply (respip_filter_reply). pkt: the empty reply. */
static enum module_reply_verdict respip_answer_query(struct module_env* env,
	int id, const struct module_reply_client* client, uint8_t* pkt,
	size_t* len, size_t cap)
{
	struct respip_env* re = env->modinfo[id];
	const struct rpz_policy* p;
	struct rpz_client rc;
	int decided;
	if(!re || !(p = current_rpz(re)))
		return MODULE_REPLY_KEEP;
	rpz_client_of(client, &rc);
	if(!rpz_policy_answers_query(p, &rc, pkt, *len))
		return MODULE_REPLY_KEEP;
	return apply_rpz(env, re, p, client, pkt, len,
		cap < SCRATCH_SIZE ? cap : SCRATCH_SIZE, &decided);
}

static enum module_reply_verdict respip_filter_reply(struct module_env* env,
	int id, const struct module_reply_client* client, uint8_t* pkt,
	size_t* len, size_t cap)
{
	struct respip_env* re = env->modinfo[id];
	const struct respip_rule* rule = NULL;
	const struct respip_view* v = NULL;
	size_t n = 0, room = cap < SCRATCH_SIZE ? cap : SCRATCH_SIZE;
	enum respip_outcome o = RESPIP_PASS;
	enum respip_action act = RESPIP_NONE;
	struct respip_tag_client tc;
	const struct rpz_policy* p;
	if(!re || re->rules->none)
		return MODULE_REPLY_KEEP;
	if((p = current_rpz(re))) {
		int decided;
		enum module_reply_verdict r = apply_rpz(env, re, p, client,
			pkt, len, room, &decided);
		if(decided)
			return r;
	}
	if(client->view >= 0 && (size_t)client->view < re->rules->num_views)
		v = &re->rules->views[client->view];
	/* compat: unbound-1.17: as respip_rewrite_reply: a client's view's
	 * rules first; when none matches (or the view has none), the
	 * global rules only with view-first */
	if(v && v->set)
		o = respip_rewrite_client(v->set, NULL, pkt, *len,
			re->scratch, room, &n, &rule, &act);
	if(!rule && (!v || v->isfirst)) {
		/* the global rules' tags (response-ip-tag) meet the
		 * client's; a view's rules have none */
		tc.tags = client->tags;
		tc.action = tag_action;
		tc.data = tag_data;
		tc.arg = (void*)client->tag_changes;
		o = respip_rewrite_client(re->rules->global,
			client->tags ? &tc : NULL, pkt, *len, re->scratch,
			room, &n, &rule, &act);
	}
	if(client->search_only)
		return rule && act != RESPIP_NONE ? MODULE_REPLY_MATCHED :
			MODULE_REPLY_KEEP;
	if(rule && (act == RESPIP_INFORM || act == RESPIP_INFORM_DENY))
		log_inform(rule, client, pkt, *len);
	switch(o) {
	case RESPIP_DROPPED:
		return MODULE_REPLY_DROP;
	case RESPIP_CHANGED:
	case RESPIP_CHASE:
		memcpy(pkt, re->scratch, n);
		*len = n;
		/* compat: unbound-1.17: a CNAME in the data: its target
		 * resolved and merged (respip_merge_cname); the daemon
		 * bounds the chase (daemon/worker.c chase_join) */
		return o == RESPIP_CHASE ? MODULE_REPLY_CHASE :
			MODULE_REPLY_CHANGED;
	case RESPIP_PASS:
	default:
		return MODULE_REPLY_KEEP;
	}
}

/* qs->minfo[id] of a state that met a PASSTHRU trigger at a delegation:
 * compat: unbound-1.17: no later NSDNAME/NSIP trigger applies to it
 * (Unbound's rpz_passthru). */
static int ns_passthru_mark;

/* compat: unbound-1.14: the NSDNAME and NSIP triggers, on the delegation
 * the iterator is about to use (module_env.deleg_hook): counted and
 * logged as Unbound's rpz_apply_nsdname_trigger/rpz_apply_nsip_trigger. */
static int respip_deleg_check(struct module_qstate* qs, int id,
	const struct module_deleg* d)
{
	struct respip_env* re = qs->env->modinfo[id];
	const struct rpz_policy* p;
	struct rpz_ns_match m;
	if(!re || !(p = current_rpz(re)) || qs->minfo[id] == &ns_passthru_mark)
		return 0;
	if(!rpz_policy_ns_match(p, d, &m))
		return 0;
	if(p->zones[m.zone].log)
		rpz_ns_log(p, &m, qs);
	qs->env->counters.rpz_action[m.action]++;
	if(m.action == RPZ_PASSTHRU)
		qs->minfo[id] = &ns_passthru_mark;
	return rpz_ns_answer(p, &m, qs);
}

static const struct module_deleg_hook respip_deleg_hook = {
	.check = respip_deleg_check,
};

const struct module_func_block respip_module_block = {
	.name = "respip",
	.startup = respip_startup,
	.destartup = respip_destartup,
	.reload_prepare = respip_reload_prepare,
	.reload_discard = respip_reload_discard,
	.reload_global = respip_reload_global,
	.get_mem = respip_get_mem,
	.filter_reply = respip_filter_reply,
	.answer_query = respip_answer_query,
	.init = respip_init,
	.deinit = respip_deinit,
	.reconfigure = respip_reconfigure,
	.operate = respip_operate,
	.inform_super = respip_inform_super,
	.clear = respip_clear,
};
