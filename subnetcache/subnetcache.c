/* SPDX-License-Identifier: BSD-3-Clause */
/* subnetcache/subnetcache.c - compat: unbound-1.17: the subnetcache module
 * (module-config: "subnetcache validator iterator"), EDNS Client Subnet
 * (RFC 7871) as Unbound's edns-subnet/subnetmod.c behaves:
 *
 * - every client query has a state of its own (module_env.per_client):
 *   its subnet is the client's ECS option (then echoed in the reply, with
 *   the answer's scope), or else the client's address cut to
 *   max-client-subnet-ipv4/6; a malformed option is FORMERR, a source
 *   prefix under min-client-subnet-ipv4/6 REFUSED;
 * - the ECS option goes (module_edns_hook) only to the servers of
 *   send-client-subnet: and the names under client-subnet-zone:, or to
 *   any server for a client that sent one with
 *   client-subnet-always-forward;
 * - an answer that came back with the option is cached here only, in the
 *   question's entry, under the subnet and scope the server gave (scope 0:
 *   every subnet); one that came back without it from a server that got
 *   it is in the shared caches and here as scope 0; answers of other
 *   servers are in the shared caches only, as without the module.
 *
 * The cache is shared by the workers (global state, one lock: only cache
 * misses of the message cache come here). An answer is kept in wire form
 * (reply_encode) and made into a result again on a hit, as the
 * iterator's message-cache answer is. Per question and family at most
 * max-ecs-tree-size-ipv4/6 subnets (the least recently used goes); all
 * together at most msg-cache-size bytes (the oldest question goes).
 * Unbound keeps a radix tree per question; a short list gives the same
 * answers for its sizes (100 by default).
 *
 * Differences: a reply whose ECS does not match what was sent is served
 * but not cached (Unbound asks again without the option); the scope of a
 * CNAME chain's answers is the largest of all of them (Unbound from the
 * first CNAME on). */
#include "config.h"
#include "subnetcache/ecs.h"
#include "services/reply_encode.h"
#include "util/ihash.h"
#include "util/fnv.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/edns_pad.h"
#include "util/log.h"
#include "util/module.h"
#include "util/msgparse.h"
#include "util/net_help.h"
#include <ldns/ldns.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SUBNET_WIRE_MAX 65535
#define SUBNET_HASH_SIZE 1024

/* One answer for one subnet of a question. */
struct subnet_answer {
	struct subnet_answer* next;
	uint8_t addr[16];
	int depth;         /* the prefix it is stored under */
	int scope;         /* the server's scope (cut to the tree depth) */
	int only_scope0;   /* from a 0/0 query: matches 0/0 queries only */
	time_t stored, expires;
	time_t last_used;
	int rcode;
	int security;
	size_t len;
	uint8_t* wire;
};

/* One question's answers, per family. */
struct subnet_question {
	struct ihash_node hn;
	struct subnet_question* older, *newer;   /* insertion order */
	uint8_t qname[LDNS_MAX_DOMAINLEN + 1];
	size_t qname_len;
	uint16_t qtype, qclass;
	int cd;
	struct subnet_answer* fam[2];
	int count[2];
};

/* Global: shared by the workers. */
struct subnet_global {
	pthread_mutex_t lock;
	struct ihash table;
	struct subnet_question* oldest, *newest;
	size_t bytes, max_bytes;
	int max_depth[2], max_count[2];
	uint64_t hits;
};

/* Per worker: the servers and zones that get the option. */
struct subnet_env {
	struct subnet_global* g;
	struct sockaddr_storage* nets;
	socklen_t* netlens;
	int* netbits;
	size_t num_nets;
	uint8_t (*zones)[LDNS_MAX_DOMAINLEN + 1];
	size_t num_zones;
	uint16_t code;
	struct module_edns_hook hook;
};

/* Per client question. */
struct subnet_qstate {
	struct ecs_data client_in;   /* the subnet the answer is for */
	int have_client;             /* client_in is set */
	int downstream;              /* the client sent the option */
	struct ecs_data server_out;  /* what the servers get */
	int sent;                    /* the last query carried it */
	int refused;                 /* a server REFUSED it: not again */
	int server_valid;            /* a reply carried a valid option */
	struct ecs_data server_in;
	int max_scope;
};

static int fam_index(uint16_t family)
{
	return family == ECS_FAMILY_IP6;
}

static uint32_t question_hash(const uint8_t* qname, size_t len,
	uint16_t qtype, uint16_t qclass, int cd)
{
	uint8_t tail[5] = { (uint8_t)(qtype >> 8), (uint8_t)qtype,
		(uint8_t)(qclass >> 8), (uint8_t)qclass, (uint8_t)(cd != 0) };
	return fnv1a32(fnv1a32(FNV32_START, qname, len), tail, sizeof(tail));
}

static void answer_free(struct subnet_global* g, struct subnet_answer* a)
{
	g->bytes -= sizeof(*a) + a->len;
	free(a->wire);
	free(a);
}

static void question_unlink_free(struct subnet_global* g,
	struct subnet_question* q)
{
	int f;
	ihash_remove(&g->table, &q->hn);
	if(q->older)
		q->older->newer = q->newer;
	else	g->oldest = q->newer;
	if(q->newer)
		q->newer->older = q->older;
	else	g->newest = q->older;
	for(f = 0; f < 2; f++)
		while(q->fam[f]) {
			struct subnet_answer* a = q->fam[f];
			q->fam[f] = a->next;
			answer_free(g, a);
		}
	g->bytes -= sizeof(*q);
	free(q);
}

static struct subnet_question* question_find(struct subnet_global* g,
	const struct module_qstate* qs, uint32_t h, int cd)
{
	struct ihash_node* n;
	for(n = ihash_bucket(&g->table, h); n; n = n->next) {
		struct subnet_question* q = IHASH_ITEM(n,
			struct subnet_question, hn);
		if(n->hash == h && q->qtype == qs->qtype && q->qclass ==
			qs->qclass && q->cd == cd && q->qname_len ==
			qs->qname_len && memcmp(q->qname, qs->qname,
			qs->qname_len) == 0)
			return q;
	}
	return NULL;
}

/* compat: unbound-1.17: Unbound's addrtree_find over the list: the entry
 * nearest the root whose prefix holds the address, stored at its scope
 * (or at the question's source when the scope is longer). */
static struct subnet_answer* answer_find(struct subnet_question* q,
	int f, const struct ecs_data* e, time_t now)
{
	struct subnet_answer* a, *best = NULL;
	for(a = q->fam[f]; a; a = a->next) {
		if(a->expires < now || a->depth > e->source ||
			(e->source != 0 && a->only_scope0) ||
			!ecs_prefix_equal(a->addr, e->addr, a->depth))
			continue;
		if(a->depth != a->scope && !(a->scope > e->source &&
			a->depth == e->source))
			continue;
		if(!best || a->depth < best->depth)
			best = a;
	}
	return best;
}

static struct subnet_global* global_create(const struct config_file* cfg)
{
	struct subnet_global* g = calloc(1, sizeof(*g));
	if(!g || !ihash_init(&g->table, SUBNET_HASH_SIZE)) {
		free(g);
		log_err("subnetcache: out of memory");
		return NULL;
	}
	pthread_mutex_init(&g->lock, NULL);
	g->max_bytes = cfg->msg_cache_size > 0 ? (size_t)cfg->msg_cache_size :
		4 * 1024 * 1024;
	g->max_depth[0] = cfg->max_client_subnet_ipv4;
	g->max_depth[1] = cfg->max_client_subnet_ipv6;
	g->max_count[0] = cfg->max_ecs_tree_size_ipv4 > 0 ?
		cfg->max_ecs_tree_size_ipv4 : 1;
	g->max_count[1] = cfg->max_ecs_tree_size_ipv6 > 0 ?
		cfg->max_ecs_tree_size_ipv6 : 1;
	return g;
}

static void* subnet_startup(const struct config_file* cfg)
{
	return global_create(cfg);
}

static void subnet_destartup(void* global)
{
	struct subnet_global* g = global;
	if(!g)
		return;
	while(g->oldest)
		question_unlink_free(g, g->oldest);
	ihash_free(&g->table);
	pthread_mutex_destroy(&g->lock);
	free(g);
}

static size_t subnet_get_mem(void* global)
{
	struct subnet_global* g = global;
	size_t n;
	pthread_mutex_lock(&g->lock);
	n = sizeof(*g) + g->bytes;
	pthread_mutex_unlock(&g->lock);
	return n;
}

static size_t subnet_flush(void* global, const uint8_t* zone,
	enum module_flush kind)
{
	struct subnet_global* g = global;
	struct subnet_question* q, *next;
	pthread_mutex_lock(&g->lock);
	for(q = g->oldest; q; q = next) {
		next = q->newer;
		if(kind == MODULE_FLUSH_ALL || (kind == MODULE_FLUSH_ZONE &&
			zone && dname_subdomain_c(q->qname, zone)))
			question_unlink_free(g, q);
	}
	pthread_mutex_unlock(&g->lock);
	return 0;   /* not counted among the key entries */
}

/* The smallest TTL of the result's records (the answer's life). */
static uint32_t result_ttl(const struct module_result* res)
{
	const ldns_rr_list* l[2] = { res->answer, res->authority };
	uint32_t t = 0xffffffffu;
	size_t i, j;
	for(j = 0; j < 2; j++)
		for(i = 0; l[j] && i < ldns_rr_list_rr_count(l[j]); i++)
			if(ldns_rr_ttl(ldns_rr_list_rr(l[j], i)) < t)
				t = ldns_rr_ttl(ldns_rr_list_rr(l[j], i));
	return t == 0xffffffffu ? 0 : t;
}

static void question_qi(const struct module_qstate* qs, struct query_info* qi)
{
	memset(qi, 0, sizeof(*qi));
	memcpy(qi->qname, qs->qname, qs->qname_len);
	qi->qname_len = qs->qname_len;
	qi->qtype = qs->qtype;
	qi->qclass = qs->qclass;
	qi->flags = FLAG_AD | ((qs->flags & MODQ_CD) ? FLAG_CD : 0);
	qi->edns_do = 1;   /* every record: each reply drops what it must */
}

/* compat: unbound-1.17: update_cache: the result under e's subnet. */
static void cache_store(struct subnet_global* g, struct module_qstate* qs,
	const struct ecs_data* e, int scope, uint8_t* buf)
{
	struct query_info qi;
	struct subnet_question* q;
	struct subnet_answer* a, **p;
	int cd = (qs->flags & MODQ_CD) != 0, f = fam_index(e->family);
	uint32_t h = question_hash(qs->qname, qs->qname_len, qs->qtype,
		qs->qclass, cd);
	time_t now = time(NULL);
	size_t len;
	int depth;
	uint32_t ttl = result_ttl(&qs->res);
	question_qi(qs, &qi);
	if(ttl == 0 || !(len = reply_encode(&qs->res, &qi, buf,
		SUBNET_WIRE_MAX, 0, 0, 0)))
		return;
	if(scope > g->max_depth[f])
		scope = g->max_depth[f];
	depth = e->source < scope ? e->source : scope;
	pthread_mutex_lock(&g->lock);
	if(!(q = question_find(g, qs, h, cd))) {
		if(!(q = calloc(1, sizeof(*q))))
			goto out;
		memcpy(q->qname, qs->qname, qs->qname_len);
		q->qname_len = qs->qname_len;
		q->qtype = qs->qtype;
		q->qclass = qs->qclass;
		q->cd = cd;
		ihash_add(&g->table, &q->hn, h);
		q->older = g->newest;
		if(g->newest)
			g->newest->newer = q;
		else	g->oldest = q;
		g->newest = q;
		g->bytes += sizeof(*q);
	}
	/* the same prefix: replaced */
	for(p = &q->fam[f]; *p; p = &(*p)->next)
		if((*p)->depth == depth && ecs_prefix_equal((*p)->addr,
			e->addr, depth)) {
			a = *p;
			*p = a->next;
			answer_free(g, a);
			q->count[f]--;
			break;
		}
	/* the tree is full: the least recently used goes */
	while(q->count[f] >= g->max_count[f] && q->fam[f]) {
		struct subnet_answer** lru = &q->fam[f];
		for(p = &q->fam[f]; *p; p = &(*p)->next)
			if((*p)->last_used < (*lru)->last_used)
				lru = p;
		a = *lru;
		*lru = a->next;
		answer_free(g, a);
		q->count[f]--;
	}
	if(!(a = calloc(1, sizeof(*a))) || !(a->wire = malloc(len))) {
		free(a);
		goto out;
	}
	memcpy(a->wire, buf, len);
	a->len = len;
	memcpy(a->addr, e->addr, sizeof(a->addr));
	ecs_clear_past(a->addr, depth);
	a->depth = depth;
	a->scope = scope;
	a->only_scope0 = e->source == 0 && e->scope == 0;
	a->stored = a->last_used = now;
	a->expires = now + (time_t)ttl;
	a->rcode = qs->res.rcode;
	a->security = (int)qs->res.security;
	a->next = q->fam[f];
	q->fam[f] = a;
	q->count[f]++;
	g->bytes += sizeof(*a) + len;
	while(g->bytes > g->max_bytes && g->oldest && g->oldest != q)
		question_unlink_free(g, g->oldest);
out:
	pthread_mutex_unlock(&g->lock);
}

/* The records of a section, their TTLs lowered by age. */
static ldns_rr_list* section_copy(const ldns_rr_list* l, time_t age)
{
	ldns_rr_list* out;
	size_t i;
	if(!l || ldns_rr_list_rr_count(l) == 0)
		return NULL;
	if(!(out = ldns_rr_list_clone(l)))
		return NULL;
	for(i = 0; i < ldns_rr_list_rr_count(out); i++) {
		ldns_rr* rr = ldns_rr_list_rr(out, i);
		uint32_t t = ldns_rr_ttl(rr);
		ldns_rr_set_ttl(rr, (time_t)t > age ? t - (uint32_t)age : 0);
	}
	return out;
}

/* compat: unbound-1.17: lookup_and_reply: 1 and the result set when the
 * cache has an answer for the subnet; *scope is its scope. */
static int cache_lookup(struct subnet_global* g, struct module_qstate* qs,
	const struct ecs_data* e, int* scope)
{
	int cd = (qs->flags & MODQ_CD) != 0, f = fam_index(e->family);
	uint32_t h = question_hash(qs->qname, qs->qname_len, qs->qtype,
		qs->qclass, cd);
	struct subnet_question* q;
	struct subnet_answer* a;
	time_t now = time(NULL), age;
	ldns_pkt* p = NULL;
	int ok = 0, rcode = 0, sec = 0;
	pthread_mutex_lock(&g->lock);
	if((q = question_find(g, qs, h, cd)) && (a = answer_find(q, f, e,
		now))) {
		a->last_used = now;
		*scope = a->scope;
		age = now - a->stored;
		rcode = a->rcode;
		sec = a->security;
		ok = ldns_wire2pkt(&p, a->wire, a->len) == LDNS_STATUS_OK;
		g->hits++;
	}
	pthread_mutex_unlock(&g->lock);
	if(!ok)
		return 0;
	module_result_free_lists(&qs->res);
	qs->res.rcode = rcode;
	qs->res.answer = section_copy(ldns_pkt_answer(p), age);
	qs->res.authority = section_copy(ldns_pkt_authority(p), age);
	qs->res.additional = section_copy(ldns_pkt_additional(p), age);
	qs->res.security = (enum sec_status)sec;
	qs->res.no_store = 1;   /* ours, not the message cache's */
	ldns_pkt_free(p);
	return 1;
}

/* ---- per worker ---- */

static void env_free(struct subnet_env* se)
{
	free(se->nets);
	free(se->netlens);
	free(se->netbits);
	free(se->zones);
	se->nets = NULL;
	se->netlens = NULL;
	se->netbits = NULL;
	se->zones = NULL;
	se->num_nets = se->num_zones = 0;
}

static int env_from_cfg(struct subnet_env* se, const struct config_file* cfg)
{
	const struct config_strlist* s;
	size_t n = 0, z = 0;
	for(s = cfg->client_subnet; s; s = s->next)
		n++;
	for(s = cfg->client_subnet_zone; s; s = s->next)
		z++;
	if((n && (!(se->nets = calloc(n, sizeof(*se->nets))) ||
		!(se->netlens = calloc(n, sizeof(*se->netlens))) ||
		!(se->netbits = calloc(n, sizeof(*se->netbits))))) ||
		(z && !(se->zones = calloc(z, sizeof(*se->zones))))) {
		log_err("subnetcache: out of memory");
		return 0;
	}
	for(s = cfg->client_subnet; s; s = s->next) {
		if(!netblockstrtoaddr(s->str, 0, &se->nets[se->num_nets],
			&se->netlens[se->num_nets], &se->netbits[se->num_nets])) {
			log_err("subnetcache: cannot parse netblock: %s",
				s->str);
			return 0;
		}
		se->num_nets++;
	}
	for(s = cfg->client_subnet_zone; s; s = s->next)
		if(dname_from_str(s->str, se->zones[se->num_zones]))
			dname_tolower(se->zones[se->num_zones++]);
	se->code = ECS_OPTION_CODE;
	return 1;
}

/* compat: unbound-1.17: ecs_is_whitelisted: the server is in
 * send-client-subnet (any port), or the question under a
 * client-subnet-zone. */
static int allowed(const struct subnet_env* se,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* qname)
{
	size_t i;
	for(i = 0; i < se->num_nets; i++)
		if(addr_in_netblock(addr, addrlen, &se->nets[i],
			se->netlens[i], se->netbits[i]))
			return 1;
	for(i = 0; i < se->num_zones; i++)
		if(dname_subdomain_c(qname, se->zones[i]))
			return 1;
	return 0;
}

static size_t hook_query_opt(const struct module_qstate* qs, int id,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* zone, uint8_t* buf, size_t cap)
{
	struct subnet_env* se = qs->env->modinfo[id];
	struct subnet_qstate* sq = qs->minfo[id];
	(void)zone;
	if(!sq || !sq->have_client || sq->refused || cap < ECS_OPT_MAX)
		return 0;
	sq->sent = 0;
	if(!((sq->downstream && qs->env->cfg->client_subnet_always_forward) ||
		allowed(se, addr, addrlen, qs->qname)))
		return 0;
	sq->sent = 1;
	return ecs_encode(&sq->server_out, se->code, buf);
}

static int hook_reply(const struct module_qstate* qs, int id, const uint8_t* pkt,
	size_t len)
{
	struct subnet_env* se = qs->env->modinfo[id];
	struct subnet_qstate* sq = qs->minfo[id];
	const uint8_t* d;
	int l;
	struct ecs_data in;
	if(!sq || !sq->sent)
		return 0;
	if(len >= LDNS_HEADER_SIZE && (pkt[3] & 0xf) == RCODE_REFUSED) {
		/* compat: unbound-1.17: REFUSED to a query with the option:
		 * the next ones go without it */
		sq->refused = 1;
		return 0;
	}
	if((l = edns_get_option(pkt, len, se->code, &d)) < 0 ||
		!ecs_parse(d, (size_t)l, &in))
		return 0;
	verbose(VERB_ALGO, "subnetcache: answer has edns subnet, scope %d",
		(int)in.scope);
	sq->server_in = in;
	if(!sq->server_valid || in.scope > sq->max_scope)
		sq->max_scope = in.scope;
	sq->server_valid = 1;
	return 1;
}

static int subnet_init(struct module_env* env, int id)
{
	struct subnet_env* se = calloc(1, sizeof(*se));
	if(!se) {
		log_err("subnetcache: out of memory");
		return 0;
	}
	env->modinfo[id] = se;
	se->g = env->modglobal[id];
	/* compat: unbound-1.17: its warnings, in its words */
	if(env->cfg->serve_expired)
		log_warn("subnetcache: serve-expired is set but not working "
			"for data originating from the subnet module cache.");
	if(env->cfg->prefetch)
		log_warn("subnetcache: prefetch is set but not working "
			"for data originating from the subnet module cache.");
	if(!se->g || !env_from_cfg(se, env->cfg))
		return 0;
	se->hook.query_opt = hook_query_opt;
	se->hook.reply = hook_reply;
	/* compat: unbound-1.17: a mesh state per client query */
	env->per_client = 1;
	env->client_opt_code = se->code;
	env->edns_hook = &se->hook;
	env->edns_hook_id = id;
	return 1;
}

static void subnet_deinit(struct module_env* env, int id)
{
	struct subnet_env* se = env->modinfo[id];
	if(!se)
		return;
	if(env->edns_hook == &se->hook)
		env->edns_hook = NULL;
	env->per_client = 0;
	env_free(se);
	free(se);
	env->modinfo[id] = NULL;
}

static void subnet_reconfigure(struct module_env* env, int id)
{
	struct subnet_env* se = env->modinfo[id];
	struct subnet_env fresh;
	memset(&fresh, 0, sizeof(fresh));
	if(!env_from_cfg(&fresh, env->cfg)) {
		env_free(&fresh);
		return;
	}
	env_free(se);
	se->nets = fresh.nets;
	se->netlens = fresh.netlens;
	se->netbits = fresh.netbits;
	se->num_nets = fresh.num_nets;
	se->zones = fresh.zones;
	se->num_zones = fresh.num_zones;
}

/* The reply's option for the client: its subnet, this scope. */
static void echo(struct module_qstate* qs, const struct subnet_env* se,
	const struct subnet_qstate* sq, int scope)
{
	struct ecs_data out = sq->client_in;
	if(!sq->downstream || !qs->client)
		return;
	out.scope = (uint8_t)scope;
	qs->client->reply_opt_len = ecs_encode(&out, se->code,
		qs->client->reply_opt);
}

static enum module_state finish_rcode(struct module_qstate* qs, int rcode)
{
	module_result_clear(&qs->res);
	qs->res.rcode = rcode;
	qs->res.no_store = 1;
	return MODULE_FINISHED;
}

/* compat: unbound-1.17: subnetmod_operate at module_event_new. */
static enum module_state start(struct module_qstate* qs, int id)
{
	struct subnet_env* se = qs->env->modinfo[id];
	const struct config_file* cfg = qs->env->cfg;
	struct subnet_qstate* sq;
	int scope, f;
	if(!(sq = calloc(1, sizeof(*sq)))) {
		log_err("subnetcache: out of memory");
		module_result_servfail(&qs->res);
		return MODULE_FINISHED;
	}
	qs->minfo[id] = sq;
	if(qs->client->opt_len >= 0) {
		if(qs->client->opt_len > MODULE_OPT_MAX ||
			!ecs_parse(qs->client->opt, (size_t)qs->client->opt_len,
			&sq->client_in)) {
			/* RFC 7871 7.1.2: a malformed option is FORMERR */
			verbose(VERB_ALGO, "subnetcache: malformed client "
				"subnet option: FORMERR");
			return finish_rcode(qs, RCODE_FORMERR);
		}
		sq->downstream = 1;
		sq->have_client = 1;
	} else if(qs->client->addrlen)
		sq->have_client = ecs_from_addr(&qs->client->addr,
			qs->client->addrlen, cfg->max_client_subnet_ipv4,
			cfg->max_client_subnet_ipv6, &sq->client_in);
	if(!sq->have_client)
		return MODULE_WAIT_MODULE;
	f = fam_index(sq->client_in.family);
	if(sq->client_in.source != 0 && sq->client_in.source <
		(f ? cfg->min_client_subnet_ipv6 : cfg->min_client_subnet_ipv4))
		return finish_rcode(qs, RCODE_REFUSED);
	if(!(qs->flags & (MODQ_PREFETCH | MODQ_REFETCH)) &&
		cache_lookup(se->g, qs, &sq->client_in, &scope)) {
		verbose(VERB_QUERY, "subnetcache: answered from cache");
		qs->env->counters.subnet_cache_answers++;
		echo(qs, se, sq, scope);
		return MODULE_FINISHED;
	}
	sq->server_out = sq->client_in;
	sq->server_out.scope = 0;
	if(sq->server_out.source > (f ? cfg->max_client_subnet_ipv6 :
		cfg->max_client_subnet_ipv4))
		sq->server_out.source = (uint8_t)(f ?
			cfg->max_client_subnet_ipv6 :
			cfg->max_client_subnet_ipv4);
	ecs_clear_past(sq->server_out.addr, sq->server_out.source);
	if(sq->server_out.source != 0 && cfg->client_subnet_always_forward &&
		sq->downstream)
		qs->flags |= MODQ_NO_CACHE;
	return MODULE_WAIT_MODULE;
}

/* compat: unbound-1.17: eval_response. */
static enum module_state done(struct module_qstate* qs, int id)
{
	struct subnet_env* se = qs->env->modinfo[id];
	struct subnet_qstate* sq = qs->minfo[id];
	const struct config_file* cfg = qs->env->cfg;
	uint8_t* buf;
	int scope, max;
	qs->flags &= ~(unsigned)MODQ_NO_CACHE;
	if(!sq || !sq->have_client)
		return MODULE_FINISHED;
	if(qs->res.rcode != RCODE_NOERROR && qs->res.rcode != RCODE_NXDOMAIN)
		return MODULE_FINISHED;
	if(!sq->sent || sq->refused) {
		echo(qs, se, sq, 0);
		return MODULE_FINISHED;
	}
	if(!sq->server_valid) {
		/* no support for ECS: in the shared caches, and here as
		 * scope 0 for the clients that send the option */
		if((buf = malloc(SUBNET_WIRE_MAX))) {
			cache_store(se->g, qs, &sq->client_in, 0, buf);
			free(buf);
		}
		/* compat: unbound-1.17: no option back to the client then
		 * (seen side by side: its scope 0 echo is for an answer of
		 * a server that was not sent one) */
		return MODULE_FINISHED;
	}
	qs->res.no_store = 1;
	if(sq->server_in.family != sq->server_out.family ||
		sq->server_in.source != sq->server_out.source ||
		!ecs_prefix_equal(sq->server_in.addr, sq->server_out.addr,
		sq->server_out.source)) {
		verbose(VERB_QUERY, "subnetcache: forged data");
		echo(qs, se, sq, 0);
		return MODULE_FINISHED;
	}
	if((buf = malloc(SUBNET_WIRE_MAX))) {
		cache_store(se->g, qs, &sq->client_in, sq->max_scope, buf);
		free(buf);
	}
	/* compat: unbound-1.17: counted as its num_msg_nocache: a subnet
	 * answer from upstream, accepted */
	qs->env->counters.subnet_answers++;
	/* the scope told the client: at most what the cache keeps */
	scope = sq->max_scope;
	max = fam_index(sq->client_in.family) ? cfg->max_client_subnet_ipv6 :
		cfg->max_client_subnet_ipv4;
	echo(qs, se, sq, scope > max ? max : scope);
	return MODULE_FINISHED;
}

static enum module_state subnet_operate(struct module_qstate* qs,
	enum module_event ev, int id, const struct outnet_reply* reply)
{
	(void)reply;
	switch(ev) {
	case MODULE_EVENT_NEW:
		if(!qs->client || qs->minfo[id] || (qs->flags & (MODQ_NOVAL |
			MODQ_PRIME | MODQ_DETACHED)))
			return MODULE_WAIT_MODULE;
		return start(qs, id);
	case MODULE_EVENT_MODDONE:
		return done(qs, id);
	case MODULE_EVENT_RESUME:
	case MODULE_EVENT_REPLY:
	default:
		break;
	}
	return MODULE_FINISHED;
}

static void subnet_inform_super(struct module_qstate* sub, int id,
	struct module_qstate* super)
{
	(void)sub;
	(void)id;
	(void)super;
}

static void subnet_clear(struct module_qstate* qs, int id)
{
	free(qs->minfo[id]);
	qs->minfo[id] = NULL;
}

/* compat: unbound-1.17: with client-subnet-always-forward, a query with
 * the option skips the message cache (Unbound registers the option with
 * bypass-cache-stage then). */
static int subnet_before_cache(const struct config_file* cfg, uint16_t* opt)
{
	if(!cfg->client_subnet_always_forward)
		return 0;
	*opt = ECS_OPTION_CODE;
	return 1;
}

const struct module_func_block subnetcache_module_block = {
	.name = "subnetcache",
	.startup = subnet_startup,
	.destartup = subnet_destartup,
	.get_mem = subnet_get_mem,
	.flush = subnet_flush,
	.needs_query_before_cache = subnet_before_cache,
	.init = subnet_init,
	.deinit = subnet_deinit,
	.reconfigure = subnet_reconfigure,
	.operate = subnet_operate,
	.inform_super = subnet_inform_super,
	.clear = subnet_clear,
};
