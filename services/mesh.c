/* SPDX-License-Identifier: BSD-3-Clause */
/* services/mesh.c - the per-worker table of queries in flight (see the
 * header). States are in a chained hash table; those with work to do
 * wait in a run queue that mesh_run empties, so a state never runs
 * nested inside another one's step. */
#include "config.h"
#include "util/spare_list.h"
#include "util/ihash.h"
#include "services/mesh.h"
#include "services/reply_encode.h"
#include "services/cache/msgcache.h"
#include "services/cache/rrset.h"
#include "util/module.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/msgencode.h"
#include "util/msgparse.h"
#include "util/net_help.h"
#include "util/edns_pad.h"
#include "util/error_report.h"
#include "util/fnv.h"
#include <event2/event.h>
#include <ldns/ldns.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MESH_KEY_CD 0x01
#define MESH_KEY_PRIME 0x02
#define MESH_KEY_NOVAL 0x04
#define MESH_KEY_MAX (LDNS_MAX_DOMAINLEN + 1 + 5)
#define MESH_CYCLE_DEPTH 64   /* deeper dependency chains count as cycles */
#define MESH_BUF_SIZE 65535

struct mesh_reply {
	struct mesh_reply* next;
	struct query_info qi;    /* pkt not kept */
	size_t limit;
	uint16_t edns_size;
	mesh_cb_t cb;
	void* arg;
};

struct mesh_ref {
	struct mesh_ref* next;
	struct mesh_state* s;
};

struct mesh_state {
	struct ihash_node hn;           /* in the table; a spare's next */
	uint8_t key[MESH_KEY_MAX];
	size_t keylen;
	int in_table;
	struct mesh_area* m;
	struct mesh_reply* replies;
	struct mesh_ref* supers;  /* states waiting for this one */
	struct mesh_ref* subs;    /* states this one waits for */
	struct mesh_state* rq_next;
	int on_rq;
	unsigned visit;
	/* compat: unbound-1.17: client states (Unbound's lists): the first
	 * half of the num-queries-per-thread slots are "forever", the rest on
	 * the jostle list, oldest first, where a newer query may replace one
	 * that ran longer than jostle-timeout */
	int list;                       /* LIST_NONE, _FOREVER, _JOSTLE */
	struct mesh_state* jprev, *jnext;
	int64_t start_ms;               /* monotonic, when it got a client */
	int detached;                   /* mesh_new_detached made it */
	int unique;                     /* a client's own (per_client):
	                                 * find_state never returns it */
	int curmod;                     /* the module running it */
	struct event* resume_timer;     /* mesh_resume_later; NULL: none */
	enum module_event pending;      /* its event when on the run queue */
	struct module_qstate qs;
};

#define LIST_NONE 0
#define LIST_FOREVER 1
#define LIST_JOSTLE 2

/* Freed states kept for reuse: a state is 2 KiB, and glibc sorts its
 * free chunks (malloc_consolidate) at every allocation that large; a
 * flood of short queries (aggressive NSEC answers) made that a tenth
 * of the work. 512: a loop turn takes up to 128 new queries (4 rounds
 * of recvmmsg) and finishes as many; with 64 kept, the misses at full
 * load still went to malloc for a third of their states (the malloc
 * functions 9.1% of the CPU, 6.3% with 512; at most 1 MiB kept). The
 * per-query objects of the other layers keep as many. */
#define MESH_SPARE_MAX 512

struct mesh_area {
	struct module_env* env;
	struct mesh_state* spare;       /* freed states, linked by hn.next */
	size_t num_spare;
	struct spare_list reply_spare;  /* freed mesh_replies */
	size_t max_client, max_states;
	size_t num_states, num_client, num_waiters;
	size_t max_forever, num_forever;
	size_t num_detached;            /* detached states in the table */
	struct mesh_state* jostle_head, *jostle_tail;
	struct ihash table;
	struct mesh_state* rq_head, *rq_tail;
	unsigned visit_gen;
	int running;
	uint32_t seed;
	uint8_t* buf;
	struct mesh_stats stats;
	/* the waiters state_finish is answering now (innermost first: a
	 * callback can finish another state): detach finds them here */
	struct mesh_delivery* delivering;
	mesh_stale_hook_t stale_hook;   /* mesh_set_stale_hook */
	mesh_cb_t stale_cb;
};

/* One state_finish's waiters not answered yet. */
struct mesh_delivery {
	struct mesh_reply* list;
	struct mesh_delivery* up;
};

struct mesh_area* mesh_create(struct module_env* env, int max_queries)
{
	struct mesh_area* m = calloc(1, sizeof(*m));
	size_t ts = 64;
	if(!m)
		return NULL;
	m->env = env;
	m->max_client = max_queries > 0 ? (size_t)max_queries : 1;
	m->max_states = m->max_client * 4;
	m->max_forever = (m->max_client + 1) / 2;
	while(ts < m->max_states && ts < (1u << 20))
		ts <<= 1;
	m->buf = malloc(MESH_BUF_SIZE);
	if(!ihash_init(&m->table, ts) || !m->buf) {
		ihash_free(&m->table);
		free(m->buf);
		free(m);
		return NULL;
	}
	spare_list_init(&m->reply_spare, MESH_SPARE_MAX);
	m->seed = (uint32_t)time(NULL) * 2654435761u;
	env->mesh = m;
	return m;
}

void mesh_set_max_queries(struct mesh_area* m, int max_queries)
{
	size_t ts = m->table.mask + 1;
	m->max_client = max_queries > 0 ? (size_t)max_queries : 1;
	m->max_states = m->max_client * 4;
	m->max_forever = (m->max_client + 1) / 2;
	/* the buckets for the new bound, as mesh_create; smaller: kept */
	while(ts < m->max_states && ts < (1u << 20))
		ts <<= 1;
	if(ts > m->table.mask + 1 && !ihash_resize(&m->table, ts))
		log_err("reload: out of memory; the mesh keeps its table");
}

/* key = lowercased qname, type, class, the MODQ_* key flags; returns
 * its length, 0 for an invalid name; *hash: the key's hash. */
static size_t mesh_key(const struct mesh_area* m, uint8_t* key,
	const uint8_t* qname, uint16_t qtype, uint16_t qclass, uint8_t flags,
	uint32_t* hash)
{
	size_t n = dname_valid(qname, LDNS_MAX_DOMAINLEN);
	uint32_t h;
	if(n == 0)
		return 0;
	n = dname_key_hash(key, qname, n, qtype, qclass, m->seed, &h);
	key[n] = flags;
	*hash = fnv1a32(h, key + n - 4, 5);
	return n + 1;
}

/* The key bits of a state's MODQ_* flags. */
static uint8_t key_flags(unsigned flags)
{
	return (uint8_t)(((flags & MODQ_CD) ? MESH_KEY_CD : 0) |
		((flags & MODQ_PRIME) ? MESH_KEY_PRIME : 0) |
		((flags & MODQ_NOVAL) ? MESH_KEY_NOVAL : 0));
}

static struct mesh_state* find_state(struct mesh_area* m, const uint8_t* key,
	size_t keylen, uint32_t hash)
{
	struct ihash_node* n;
	for(n = ihash_bucket(&m->table, hash); n; n = n->next) {
		struct mesh_state* s = IHASH_ITEM(n, struct mesh_state, hn);
		if(n->hash == hash && s->keylen == keylen && !s->unique &&
			memcmp(s->key, key, keylen) == 0)
			return s;
	}
	return NULL;
}

static void table_remove(struct mesh_area* m, struct mesh_state* s)
{
	if(!s->in_table)
		return;
	ihash_remove(&m->table, &s->hn);
	s->in_table = 0;
}

static void enqueue(struct mesh_area* m, struct mesh_state* s,
	enum module_event ev)
{
	if(s->on_rq)
		return;
	s->pending = ev;
	s->on_rq = 1;
	s->rq_next = NULL;
	if(m->rq_tail)
		m->rq_tail->rq_next = s;
	else
		m->rq_head = s;
	m->rq_tail = s;
}

static void dequeue(struct mesh_area* m, struct mesh_state* s)
{
	struct mesh_state* p, *prev = NULL;
	if(!s->on_rq)
		return;
	for(p = m->rq_head; p; prev = p, p = p->rq_next)
		if(p == s) {
			if(prev)
				prev->rq_next = s->rq_next;
			else
				m->rq_head = s->rq_next;
			if(m->rq_tail == s)
				m->rq_tail = prev;
			break;
		}
	s->on_rq = 0;
}

static int64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A state got its first client: onto the forever list while that has
 * room, else to the jostle list's tail. */
static void list_enter(struct mesh_area* m, struct mesh_state* s)
{
	if(s->list != LIST_NONE)
		return;
	s->start_ms = mono_ms();
	if(m->num_forever < m->max_forever) {
		m->num_forever++;
		s->list = LIST_FOREVER;
		return;
	}
	s->list = LIST_JOSTLE;
	s->jnext = NULL;
	s->jprev = m->jostle_tail;
	if(m->jostle_tail)
		m->jostle_tail->jnext = s;
	else	m->jostle_head = s;
	m->jostle_tail = s;
}

static void list_leave(struct mesh_area* m, struct mesh_state* s)
{
	if(s->list == LIST_FOREVER)
		m->num_forever--;
	else if(s->list == LIST_JOSTLE) {
		if(s->jprev)
			s->jprev->jnext = s->jnext;
		else	m->jostle_head = s->jnext;
		if(s->jnext)
			s->jnext->jprev = s->jprev;
		else	m->jostle_tail = s->jprev;
		s->jprev = s->jnext = NULL;
	}
	s->list = LIST_NONE;
}

/* Zero the bytes [from, to) of s. */
#define ZERO_SPAN(s, from, to) memset((char*)(s) + \
	offsetof(struct mesh_state, from), 0, \
	offsetof(struct mesh_state, to) - offsetof(struct mesh_state, from))

/* Clear a reused state as calloc would, but for its large buffers that
 * state_new writes before they are read (the key and the question's
 * name) or that are read only up to a count or a NUL (the result's
 * servers, num_from of them, and its EDE text): a quarter of the 2 KiB,
 * about 200 instructions a miss less. */
static void state_clear(struct mesh_state* s)
{
	ZERO_SPAN(s, hn, key);
	ZERO_SPAN(s, keylen, qs.qname);
	ZERO_SPAN(s, qs.qname_len, qs.res.from);
	ZERO_SPAN(s, qs.res.num_from, qs.res.ede_text);
	s->qs.res.ede_text[0] = 0;
	memset(s->qs.res.ede_text + sizeof(s->qs.res.ede_text), 0,
		sizeof(*s) - offsetof(struct mesh_state, qs.res.ede_text) -
		sizeof(s->qs.res.ede_text));
}

/* A new state for the question in key (made by mesh_key from qname,
 * qtype, qclass and flags), in the table, not queued. */
static struct mesh_state* state_new(struct mesh_area* m, const uint8_t* key,
	size_t keylen, uint32_t hash, const uint8_t* qname, uint16_t qtype,
	uint16_t qclass, unsigned flags, int depth)
{
	struct mesh_state* s = m->spare;
	size_t qlen = keylen - 5;
	if(s) {
		m->spare = s->hn.next ?
			IHASH_ITEM(s->hn.next, struct mesh_state, hn) : NULL;
		m->num_spare--;
		state_clear(s);
	} else if(!(s = calloc(1, sizeof(*s))))
		return NULL;
	(void)qname;
	memcpy(s->qs.qname, key, qlen);   /* the key's name is lowercased */
	s->qs.qname_len = qlen;
	s->qs.qtype = qtype;
	s->qs.qclass = qclass;
	s->qs.flags = flags;
	s->qs.depth = depth;
	s->qs.env = m->env;
	s->qs.ms = s;
	s->qs.res.rcode = RCODE_SERVFAIL;
	s->qs.res.why_bogus.ede = VAL_EDE_NONE;
	memcpy(s->key, key, keylen);
	s->keylen = keylen;
	s->m = m;
	ihash_add(&m->table, &s->hn, hash);
	s->in_table = 1;
	m->num_states++;
	m->stats.states++;
	return s;
}

static void ref_remove(struct mesh_ref** list, struct mesh_state* s)
{
	struct mesh_ref** p;
	for(p = list; *p; p = &(*p)->next)
		if((*p)->s == s) {
			struct mesh_ref* r = *p;
			*p = r->next;
			free(r);
			return;
		}
}

static int ref_add(struct mesh_ref** list, struct mesh_state* s)
{
	struct mesh_ref* r = malloc(sizeof(*r));
	if(!r)
		return 0;
	r->s = s;
	r->next = *list;
	*list = r;
	return 1;
}

/* Every module frees its data of the state. */
static void clear_modules(struct mesh_area* m, struct mesh_state* s)
{
	int i;
	for(i = 0; i < m->env->num_modules; i++)
		if(s->qs.minfo[i]) {
			m->env->mods[i]->clear(&s->qs, i);
			s->qs.minfo[i] = NULL;
		}
}

/* Free a state: unlinked from everything; sub-states nobody waits for
 * any more are freed too (their upstream queries cancelled). */
static void state_delete(struct mesh_area* m, struct mesh_state* s)
{
	struct mesh_reply* r, *rn;
	table_remove(m, s);
	dequeue(m, s);
	while(s->supers) {
		struct mesh_state* sup = s->supers->s;
		ref_remove(&sup->subs, s);
		ref_remove(&s->supers, sup);
	}
	while(s->subs) {
		struct mesh_state* sub = s->subs->s;
		ref_remove(&sub->supers, s);
		ref_remove(&s->subs, sub);
		if(!sub->supers && !sub->replies)
			state_delete(m, sub);
	}
	for(r = s->replies; r; r = rn) {
		rn = r->next;
		spare_free(&m->reply_spare, r);
		m->num_waiters--;
	}
	if(s->replies)
		m->num_client--;
	if(s->detached)
		m->num_detached--;
	list_leave(m, s);
	if(s->resume_timer)
		event_free(s->resume_timer);
	clear_modules(m, s);
	free(s->qs.client);
	s->qs.client = NULL;
	if(s->qs.report_agent) {   /* dns-error-reporting only */
		free(s->qs.report_agent);
		s->qs.report_agent = NULL;
	}
	/* the lists only: state_new zeroes a spare state when it reuses
	 * it */
	module_result_free_lists(&s->qs.res);
	m->num_states--;
	if(m->num_spare < MESH_SPARE_MAX) {
		s->hn.next = m->spare ? &m->spare->hn : NULL;
		m->spare = s;
		m->num_spare++;
	} else
		free(s);
}

void mesh_delete(struct mesh_area* m)
{
	size_t i = 0;
	struct ihash_node* n = NULL;
	if(!m)
		return;
	/* break every link first, then free, so no state is freed twice */
	while((n = ihash_next(&m->table, &i, n)) != NULL) {
		struct mesh_state* s = IHASH_ITEM(n, struct mesh_state, hn);
		while(s->subs)
			ref_remove(&s->subs, s->subs->s);
		while(s->supers)
			ref_remove(&s->supers, s->supers->s);
	}
	i = 0;
	while((n = ihash_next(&m->table, &i, NULL)) != NULL)
		state_delete(m, IHASH_ITEM(n, struct mesh_state, hn));
	if(m->env && m->env->mesh == m)
		m->env->mesh = NULL;
	while(m->spare) {
		struct mesh_state* s = m->spare;
		m->spare = s->hn.next ?
			IHASH_ITEM(s->hn.next, struct mesh_state, hn) : NULL;
		free(s);
	}
	spare_list_clear(&m->reply_spare);
	ihash_free(&m->table);
	free(m->buf);
	free(m);
}

/* Does the result hold RRSIG, NSEC or NSEC3 records (signed data)? */
static int has_dnssec(const struct module_result* res)
{
	const ldns_rr_list* l[3];
	size_t i, j;
	l[0] = res->answer;
	l[1] = res->authority;
	l[2] = res->additional;
	for(i = 0; i < 3; i++)
		for(j = 0; l[i] && j < ldns_rr_list_rr_count(l[i]); j++) {
			ldns_rr_type t = ldns_rr_get_type(
				ldns_rr_list_rr(l[i], j));
			if(t == LDNS_RR_TYPE_RRSIG || t == LDNS_RR_TYPE_NSEC ||
				t == LDNS_RR_TYPE_NSEC3)
				return 1;
		}
	return 0;
}

/* The message-cache keys store_msg stored under, by DO (0, 1): the
 * waiters' replies are looked up under the same keys, and hashing the
 * key again for each was about a hundred instructions a miss. */
struct stored_keys {
	const struct msg_cache* cache;
	uint32_t hash[2];
	uint8_t stored[2];
	uint8_t cd;
};

/* The hash of qi's message-cache key: the stored one when qi's key is
 * one store_msg stored (the waiters' questions are the state's, in any
 * case: the key flags, CD and DO, are what can differ). */
static uint32_t waiter_hash(const struct msg_cache* c,
	const struct stored_keys* k, const struct query_info* qi)
{
	int d = qi->edns_do != 0;
	if(k->cache == c && k->stored[d] &&
		((qi->flags & FLAG_CD) != 0) == k->cd)
		return k->hash[d];
	return msg_cache_hash(c, qi);
}

/* Store one variant (DO or not) of the state's answer. */
static int store_variant(struct mesh_area* m, struct mesh_state* s,
	struct query_info* qi, time_t now, struct stored_keys* k)
{
	struct msg_cache* c = m->env->msg_cache;
	size_t len = reply_encode(&s->qs.res, qi, m->buf, MESH_BUF_SIZE, 0,
		0, 0);
	uint32_t h;
	if(!len || !msg_cache_store_hashed(c, qi, m->buf, len, now,
		(int)s->qs.res.security, s->qs.res.synthesized, &h))
		return 0;
	k->cache = c;
	k->hash[qi->edns_do != 0] = h;
	k->stored[qi->edns_do != 0] = 1;
	return 1;
}

/* compat: unbound-1.17: serve-expired-ttl-reset: resolution failed (a
 * refresh of an expired answer, typically): what the cache has for the
 * question stays servable expired for serve-expired-ttl from now, as
 * Unbound's error_response_cache resets the entry's serve_expired_ttl. */
static void expired_ttl_reset(struct mesh_area* m, struct mesh_state* s,
	time_t now)
{
	const struct config_file* cfg = m->env->cfg;
	if(!cfg->serve_expired || cfg->serve_expired_ttl <= 0)
		return;
	if(msg_cache_expired_reset(m->env->msg_cache, s->qs.qname,
		s->qs.qname_len, s->qs.qtype, s->qs.qclass,
		(s->qs.flags & MODQ_CD) != 0,
		now + (time_t)cfg->serve_expired_ttl) > 0)
		verbose(VERB_ALGO, "reset serve-expired-ttl for response in "
			"cache");
}

/* Store a state's answer in the message cache: the variant without
 * DNSSEC records, and the one with them for signed data or when a
 * waiter set DO. Data no module checked is stored as such
 * (SEC_UNCHECKED): in a validating resolver the message cache answers
 * clients only with what was checked (msg_cache.need_checked). */
static int store_msg(struct mesh_area* m, struct mesh_state* s, time_t now,
	struct stored_keys* k)
{
	struct query_info qi;
	const struct module_result* res = &s->qs.res;
	const struct mesh_reply* r;
	int cd, stored;
	if(m->env->msg_cache && res->security == SEC_BOGUS &&
		res->rcode == RCODE_SERVFAIL &&
		res->why_bogus.ede != VAL_EDE_NETWORK_ERROR) {
		/* compat: unbound-1.17: the new answer was judged bogus and
		 * withheld: what the cache held for the question (fresh or
		 * expired) goes, so serve-expired never answers with it after
		 * that verdict (a prefetch or serve-expired refresh, or a
		 * client's resolution after the entry expired; Unbound 1.17
		 * puts the bogus message in its place). Not when the key
		 * lookups did not answer in time: that is the upstream failure
		 * serve-expired is for, not a verdict on the data.
		 */
		(void)msg_cache_remove(m->env->msg_cache, s->qs.qname,
			s->qs.qtype, s->qs.qclass);
		return 0;
	}
	if(m->env->msg_cache && res->rcode == RCODE_SERVFAIL &&
		m->env->cfg && m->env->cfg->serve_expired_ttl_reset)
		expired_ttl_reset(m, s, now);
	if(!m->env->msg_cache || res->no_store ||
		(res->rcode != RCODE_NOERROR && res->rcode != RCODE_NXDOMAIN))
		return 0;
	cd = (s->qs.flags & MODQ_CD) != 0;
	memset(&qi, 0, sizeof(qi));
	memcpy(qi.qname, s->qs.qname, s->qs.qname_len);
	qi.qname_len = s->qs.qname_len;
	qi.qtype = s->qs.qtype;
	qi.qclass = s->qs.qclass;
	/* AD in the template when secure; each reply clears it as asked */
	qi.flags = (cd ? FLAG_CD : 0) | FLAG_AD;
	k->cd = (uint8_t)cd;
	stored = store_variant(m, s, &qi, now, k);
	if(has_dnssec(res)) {
		/* a DO asker may come (a validating stub): its variant too */
		qi.edns_do = 1;
		stored &= store_variant(m, s, &qi, now, k);
	} else
		for(r = s->replies; r; r = r->next)
			if(r->qi.edns_do) {
				qi.edns_do = 1;
				stored &= store_variant(m, s, &qi, now, k);
				break;
			}
	if(stored)
		m->stats.cached++;
	return stored;
}

/* compat: unbound-1.17: The reply for waiter r: from the entry just stored, as
 * Unbound answers from what it cached (TTLs clamped as the cache keeps them,
 * cache-max-ttl and the rest), else encoded from the state. */
static size_t waiter_reply(struct mesh_area* m, struct mesh_state* s,
	const struct mesh_reply* r, int cached, const struct stored_keys* k,
	int rotate, time_t now)
{
	size_t len = 0;
	if(cached) {
		struct msg_cache* c = m->env->msg_cache;
		struct msg_serve_policy pol;
		enum msg_hit hit;
		memset(&pol, 0, sizeof(pol));
		pol.roundrobin = rotate;
		len = msg_cache_answer_ex(c, &r->qi, waiter_hash(c, k, &r->qi),
			now, m->buf, r->limit, r->edns_size, &pol, &hit);
	}
	if(len == 0)
		len = reply_encode(&s->qs.res, &r->qi, m->buf, r->limit,
			r->edns_size, rotate, (uint32_t)r->qi.id + (uint32_t)now);
	return len;
}

/* compat: unbound-1.17: log-servfail: "SERVFAIL <name type class>: why",
 * at error level, for a SERVFAIL a client waits for. Unlike Unbound, the
 * reason is the validator's for bogus data and "misc failure" otherwise:
 * the iterator keeps no failure texts (doc/compat.md). */
static void __attribute__((noinline)) log_servfail(const struct mesh_state* s)
{
	char n[LDNS_MAX_DOMAINLEN * 4 + 8];
	char* t = ldns_rr_type2str((ldns_rr_type)s->qs.qtype);
	char* c = ldns_rr_class2str((ldns_rr_class)s->qs.qclass);
	const char* why = s->qs.res.security == SEC_BOGUS &&
		s->qs.res.why_bogus.text ? s->qs.res.why_bogus.text :
		"misc failure";
	dname_to_str(s->qs.qname, n, sizeof(n));
	log_err("SERVFAIL <%s %s %s>: %s", n, t ? t : "TYPE?",
		c ? c : "CLASS?", why);
	free(t);
	free(c);
}

/* compat: unbound-1.23: dns-error-reporting (RFC 9567): a client's
 * question that ends not secure with an extended error (the
 * validator's, 5 for an answer under no trust anchor; not OTHER, which
 * means nothing without its text), whose
 * last upstream reply named a reporting agent, makes one report query,
 * TXT _er.<qtype>.<qname>.<code>._er.<agent>, resolved as a detached
 * query (its answer is not used; a report in flight or cached is not
 * sent again), as Unbound's dns_error_reporting in mesh_query_done.
 * Unlike Unbound the report query is not validated (detached states
 * are not) and is counted only when it starts. */
static void __attribute__((noinline)) error_report_send(struct mesh_area* m,
	const struct mesh_state* s)
{
	const struct module_result* res = &s->qs.res;
	uint8_t name[LDNS_MAX_DOMAINLEN];
	char str[LDNS_MAX_DOMAINLEN * 4 + 8];
	enum val_ede ede = res->why_bogus.ede;
	size_t n;
	/* compat: unbound-1.23: an answer under no trust anchor has
	 * Unbound's EDE 5 (its validator sets it on the message), and is
	 * reported */
	if(ede == VAL_EDE_NONE && res->security == SEC_INDETERMINATE)
		ede = VAL_EDE_DNSSEC_INDETERMINATE;
	if(res->security == SEC_SECURE || ede == VAL_EDE_NONE ||
		ede == VAL_EDE_OTHER)
		return;
	n = error_report_qname(name, s->qs.qname, s->qs.qname_len,
		s->qs.qtype, (int)ede, s->qs.report_agent,
		s->qs.report_agent_len);
	if(n == 0) {
		verbose(VERB_ALGO, "DNS Error Reporting: report query qname "
			"too long; skip");
		return;
	}
	if(verbosity >= VERB_ALGO) {
		dname_to_str(name, str, sizeof(str));
		verbose(VERB_ALGO, "DNS Error Reporting: generating report "
			"query for %s TXT", str);
	}
	if(mesh_new_detached(m, name, TYPE_TXT, s->qs.qclass, 0))
		m->env->counters.dns_error_reports++;
}

/* A state is done: answer its waiters, inform the states waiting for
 * it, free it. */
static void state_finish(struct mesh_area* m, struct mesh_state* s)
{
	struct mesh_reply* r;
	struct mesh_ref* sup;
	struct mesh_delivery d;
	int rr_rotate = m->env->cfg ? m->env->cfg->rrset_roundrobin : 0;
	int cached = 0;
	struct stored_keys keys;
	time_t now = time(NULL);
	/* out of the table first: a callback that asks the same question
	 * gets a new state */
	table_remove(m, s);
	memset(&keys, 0, sizeof(keys));
	/* sub-queries too: their negative answers save lookups later */
	if(!(s->qs.flags & MODQ_PRIME))
		cached = store_msg(m, s, now, &keys);
	for(sup = s->supers; sup; sup = sup->next) {
		struct mesh_state* p = sup->s;
		m->env->mods[p->curmod]->inform_super(&s->qs, p->curmod,
			&p->qs);
		enqueue(m, p, MODULE_EVENT_RESUME);
	}
	/* callbacks last, and on a list taken off the state; a callback
	 * may detach later waiters of the list (a TCP connection that
	 * closes while its answer is sent), so each is taken off it
	 * before its call and the rest stays where detach sees it */
	if(s->replies && s->qs.res.rcode == RCODE_SERVFAIL && m->env->cfg &&
		m->env->cfg->log_servfail)
		log_servfail(s);
	if(s->replies && s->qs.report_agent_len && m->env->cfg &&
		m->env->cfg->dns_error_reporting)
		error_report_send(m, s);
	d.list = s->replies;
	d.up = m->delivering;
	s->replies = NULL;
	if(d.list)
		m->num_client--;
	list_leave(m, s);
	m->delivering = &d;
	while((r = d.list) != NULL) {
		/* a policy's DROP (RPZ): the waiters get no reply */
		size_t len = s->qs.res.drop ? 0 : waiter_reply(m, s, r,
			cached, &keys, rr_rotate, now);
		if(s->qs.client && s->qs.client->reply_opt_len &&
			r->qi.has_edns && len)
			len = edns_add_option(m->buf, len, MESH_BUF_SIZE,
				s->qs.client->reply_opt,
				s->qs.client->reply_opt_len);
		d.list = r->next;
		m->num_waiters--;
		m->stats.replies++;
		r->cb(r->arg, m->buf, len, s->qs.res.rcode,
			(int)s->qs.res.security);
		spare_free(&m->reply_spare, r);
	}
	m->delivering = d.up;
	state_delete(m, s);
}

/* Run s's modules from event ev until the state waits or is done:
 * WAIT_MODULE passes the question down, FINISHED hands the result up,
 * FINISHED at the top finishes the state. */
static void run_modules(struct mesh_area* m, struct mesh_state* s,
	enum module_event ev, const struct outnet_reply* reply)
{
	for(;;) {
		int id = s->curmod;
		enum module_state st = m->env->mods[id]->operate(&s->qs, ev,
			id, reply);
		reply = NULL;
		if(st == MODULE_WAIT_MODULE) {
			if(id + 1 < m->env->num_modules) {
				s->curmod = id + 1;
				ev = MODULE_EVENT_NEW;
				continue;
			}
			/* nothing below: modstack_parse refuses such a
			 * stack, so this is a module's error */
			module_result_servfail(&s->qs.res);
			st = MODULE_FINISHED;
		}
		if(st != MODULE_FINISHED)
			return;   /* waits for a reply or sub-queries */
		if(id == 0) {
			state_finish(m, s);
			return;
		}
		s->curmod = id - 1;
		ev = MODULE_EVENT_MODDONE;
	}
}

static void mesh_run(struct mesh_area* m)
{
	if(m->running)
		return;
	m->running = 1;
	while(m->rq_head) {
		struct mesh_state* s = m->rq_head;
		m->rq_head = s->rq_next;
		if(!m->rq_head)
			m->rq_tail = NULL;
		s->on_rq = 0;
		run_modules(m, s, s->pending, NULL);
	}
	m->running = 0;
}

/* compat: unbound-1.17: The mesh is full: replace the oldest query on the
 * jostle list when it has run longer than jostle-timeout (Unbound's
 * mesh_make_new_space). Its waiters are told MESH_DROPPED and get no reply;
 * the state goes on only when other states wait for it. Not while the mesh
 * runs: a state being finished may be a sub-query of the one replaced. */
static int jostle(struct mesh_area* m)
{
	struct mesh_state* j = m->jostle_head;
	struct mesh_reply* r;
	struct mesh_delivery d;
	int64_t limit = m->env->cfg ? m->env->cfg->jostle_time : 200;
	/* compat: unbound-1.17: a negative jostle-timeout is huge in Unbound
	 * (size_t): never */
	if(m->running || !j || !j->replies || limit < 0 ||
		mono_ms() - j->start_ms <= limit)
		return 0;
	if(verbosity >= VERB_ALGO) {
		char b[1024];
		dname_to_str(j->qs.qname, b, sizeof(b));
		verbose(VERB_ALGO, "query jostled out to make space for a "
			"new one: %s type %d", b, (int)j->qs.qtype);
	}
	/* as state_finish: detach sees the waiters not told yet */
	d.list = j->replies;
	d.up = m->delivering;
	j->replies = NULL;
	m->num_client--;
	list_leave(m, j);
	m->stats.jostled++;
	m->delivering = &d;
	while((r = d.list) != NULL) {
		d.list = r->next;
		m->num_waiters--;
		r->cb(r->arg, NULL, 0, MESH_DROPPED, 0);
		spare_free(&m->reply_spare, r);
	}
	m->delivering = d.up;
	if(!j->supers)
		state_delete(m, j);
	return 1;
}

/* compat: unbound-1.17: module_env.per_client: the client and its
 * option for the state's modules (Unbound's unique mesh states). */
static struct module_client* client_new(const struct mesh_area* m,
	const struct query_info* qi, const struct sockaddr_storage* addr,
	socklen_t addrlen)
{
	struct module_client* c = calloc(1, sizeof(*c));
	const uint8_t* d;
	if(!c)
		return NULL;
	if(addr && addrlen <= (socklen_t)sizeof(c->addr)) {
		memcpy(&c->addr, addr, addrlen);
		c->addrlen = addrlen;
	}
	c->opt_len = -1;
	if(qi->pkt && qi->has_edns && (c->opt_len = edns_get_option(qi->pkt,
		qi->pkt_len, m->env->client_opt_code, &d)) > 0)
		memcpy(c->opt, d, c->opt_len < MODULE_OPT_MAX ?
			(size_t)c->opt_len : MODULE_OPT_MAX);
	return c;
}

enum mesh_new_outcome mesh_new_client(struct mesh_area* m,
	const struct query_info* qi, size_t limit, uint16_t edns_size,
	mesh_cb_t cb, void* arg)
{
	return mesh_new_client_from(m, qi, NULL, 0, limit, edns_size, cb,
		arg);
}

enum mesh_new_outcome mesh_new_client_from(struct mesh_area* m,
	const struct query_info* qi, const struct sockaddr_storage* addr,
	socklen_t addrlen, size_t limit, uint16_t edns_size, mesh_cb_t cb,
	void* arg)
{
	int per_client = m->env->per_client;
	uint8_t key[MESH_KEY_MAX];
	size_t keylen;
	uint32_t hash;
	struct mesh_state* s;
	struct mesh_reply* r;
	unsigned flags = ((qi->flags & FLAG_CD) ? MODQ_CD : 0) |
		(qi->edns_do ? MODQ_DO : 0);
	keylen = mesh_key(m, key, qi->qname, qi->qtype, qi->qclass,
		key_flags(flags), &hash);
	if(keylen == 0)
		return MESH_NEW_NO_MEMORY;
	s = per_client ? NULL : find_state(m, key, keylen, hash);
	if((!s || !s->replies) && m->num_client >= m->max_client) {
		/* freeing the jostled state may free s (a sub of it) */
		if(!jostle(m)) {
			m->stats.refused_full++;
			return MESH_NEW_FULL;
		}
		s = per_client ? NULL : find_state(m, key, keylen, hash);
	}
	if(!s && m->num_states >= m->max_states) {
		m->stats.refused_full++;
		return MESH_NEW_FULL;
	}
	r = spare_zalloc(&m->reply_spare, sizeof(*r));
	if(!r)
		return MESH_NEW_NO_MEMORY;
	r->qi = *qi;
	r->qi.pkt = NULL;
	r->qi.pkt_len = 0;
	r->limit = limit > MESH_BUF_SIZE ? MESH_BUF_SIZE : limit;
	r->edns_size = edns_size;
	r->cb = cb;
	r->arg = arg;
	if(s) {
		m->stats.joined++;
		if(qi->edns_do)
			s->qs.flags |= MODQ_DO;
	} else {
		s = state_new(m, key, keylen, hash, qi->qname, qi->qtype,
			qi->qclass, flags, 0);
		if(!s) {
			spare_free(&m->reply_spare, r);
			return MESH_NEW_NO_MEMORY;
		}
		if(per_client) {
			/* a state of its own: nobody joins it */
			s->unique = 1;
			if(!(s->qs.client = client_new(m, qi, addr,
				addrlen))) {
				spare_free(&m->reply_spare, r);
				state_delete(m, s);
				return MESH_NEW_NO_MEMORY;
			}
		}
		enqueue(m, s, MODULE_EVENT_NEW);
	}
	if(!s->replies) {
		m->num_client++;
		list_enter(m, s);
	}
	r->next = s->replies;
	s->replies = r;
	m->num_waiters++;
	m->stats.client_queries++;
	mesh_run(m);
	return MESH_NEW_ADDED;
}

int mesh_new_prefetch(struct mesh_area* m, const struct query_info* qi)
{
	uint8_t key[MESH_KEY_MAX];
	size_t keylen;
	uint32_t hash;
	struct mesh_state* s;
	unsigned flags = MODQ_PREFETCH | ((qi->flags & FLAG_CD) ? MODQ_CD : 0);
	/* the key of a client's question: clients join the refresh */
	keylen = mesh_key(m, key, qi->qname, qi->qtype, qi->qclass,
		key_flags(flags), &hash);
	if(keylen == 0)
		return 0;
	/* in flight already: its answer refreshes the entry */
	if(find_state(m, key, keylen, hash))
		return 0;
	if(m->num_client >= m->max_client || m->num_states >= m->max_states) {
		m->stats.prefetch_full++;
		return 0;
	}
	s = state_new(m, key, keylen, hash, qi->qname, qi->qtype, qi->qclass,
		flags, 0);
	if(!s)
		return 0;
	m->stats.prefetch++;
	enqueue(m, s, MODULE_EVENT_NEW);
	mesh_run(m);
	return 1;
}

struct module_qstate* mesh_new_detached(struct mesh_area* m,
	const uint8_t* qname, uint16_t qtype, uint16_t qclass, int depth)
{
	uint8_t key[MESH_KEY_MAX];
	size_t keylen;
	uint32_t hash;
	struct mesh_state* s;
	unsigned flags = MODQ_DETACHED | MODQ_NOVAL;
	keylen = mesh_key(m, key, qname, qtype, qclass, key_flags(flags),
		&hash);
	if(keylen == 0)
		return NULL;
	if(find_state(m, key, keylen, hash))
		return NULL;   /* in flight: its answer is cached anyway */
	if(m->num_detached >= MESH_MAX_DETACHED ||
		m->num_states >= m->max_states) {
		m->stats.detached_full++;
		return NULL;
	}
	s = state_new(m, key, keylen, hash, qname, qtype, qclass, flags,
		depth);
	if(!s)
		return NULL;
	s->detached = 1;
	m->num_detached++;
	m->stats.detached++;
	/* runs after the caller filled its slot: the next mesh_run, or
	 * the one running now */
	enqueue(m, s, MODULE_EVENT_NEW);
	return &s->qs;
}

void mesh_run_queued(struct mesh_area* m)
{
	mesh_run(m);
}

static int detach(struct mesh_area* m, void* arg, int keep_running);

int mesh_detach_client(struct mesh_area* m, void* arg)
{
	return detach(m, arg, 0);
}

void mesh_set_stale_hook(struct mesh_area* m, mesh_cb_t cb,
	mesh_stale_hook_t hook)
{
	m->stale_cb = cb;
	m->stale_hook = hook;
}

void mesh_stale_now(struct mesh_state* ms)
{
	struct mesh_reply* r;
	if(!ms || !ms->m->stale_hook)
		return;
	for(r = ms->replies; r; r = r->next)
		if(r->cb == ms->m->stale_cb)
			ms->m->stale_hook(r->arg);
}

int mesh_detach_waiter(struct mesh_area* m, void* arg)
{
	return detach(m, arg, 1);
}

/* Remove arg's entries from a reply list; how many. */
static int detach_list(struct mesh_area* m, struct mesh_reply** p,
	void* arg)
{
	int n = 0;
	while(*p) {
		if((*p)->arg == arg) {
			struct mesh_reply* r = *p;
			*p = r->next;
			spare_free(&m->reply_spare, r);
			m->num_waiters--;
			n++;
		} else
			p = &(*p)->next;
	}
	return n;
}

static int detach(struct mesh_area* m, void* arg, int keep_running)
{
	struct mesh_state** gone;
	struct mesh_delivery* d;
	size_t i = 0, ngone = 0;
	struct ihash_node* hn = NULL;
	int n = 0;
	/* states left without a reason to run; none of them is a sub of
	 * another (no supers), so freeing one never frees another. Out of
	 * memory they run on without waiters, but arg is detached: the
	 * caller frees it */
	gone = calloc(m->num_states ? m->num_states : 1, sizeof(*gone));
	for(d = m->delivering; d; d = d->up)
		n += detach_list(m, &d->list, arg);
	while((hn = ihash_next(&m->table, &i, hn)) != NULL) {
		struct mesh_state* s = IHASH_ITEM(hn, struct mesh_state, hn);
		int had = s->replies != NULL;
		n += detach_list(m, &s->replies, arg);
		if(had && !s->replies) {
			m->num_client--;
			list_leave(m, s);
			if(gone && !s->supers && !keep_running)
				gone[ngone++] = s;
		}
	}
	for(i = 0; i < ngone; i++)
		state_delete(m, gone[i]);
	free(gone);
	return n;
}

/* Can target be reached from s along sub links (s waits for target)? */
static int reaches(struct mesh_area* m, struct mesh_state* s,
	const struct mesh_state* target, int depth)
{
	struct mesh_ref* r;
	if(s == target || depth > MESH_CYCLE_DEPTH)
		return 1;
	s->visit = m->visit_gen;
	for(r = s->subs; r; r = r->next)
		if(r->s->visit != m->visit_gen &&
			reaches(m, r->s, target, depth + 1))
			return 1;
	return 0;
}

enum mesh_attach mesh_attach_sub(struct mesh_area* m,
	struct mesh_state* super, const uint8_t* qname, uint16_t qtype,
	uint16_t qclass, unsigned flags, struct module_qstate** sub)
{
	uint8_t key[MESH_KEY_MAX];
	uint32_t hash;
	size_t keylen = mesh_key(m, key, qname, qtype, qclass,
		key_flags(flags), &hash);
	enum mesh_attach res = MESH_ATTACH_JOINED;
	struct mesh_state* s;
	struct mesh_ref* r;
	*sub = NULL;
	if(keylen == 0)
		return MESH_ATTACH_LIMIT;
	s = find_state(m, key, keylen, hash);
	if(s) {
		m->visit_gen++;
		if(reaches(m, s, super, 0)) {
			m->stats.cycles++;
			if(verbosity >= VERB_ALGO) {
				char b[1024];
				dname_to_str(qname, b, sizeof(b));
				verbose(VERB_ALGO, "dependency cycle: %s "
					"type %d", b, (int)qtype);
			}
			return MESH_ATTACH_CYCLE;
		}
		for(r = super->subs; r; r = r->next)
			if(r->s == s)
				return MESH_ATTACH_ALREADY;
		m->stats.sub_joined++;
	} else {
		if(super->qs.depth + 1 > MESH_MAX_DEPTH ||
			m->num_states >= m->max_states)
			return MESH_ATTACH_LIMIT;
		s = state_new(m, key, keylen, hash, qname, qtype, qclass,
			flags, super->qs.depth + 1);
		if(!s)
			return MESH_ATTACH_NOMEM;
		m->stats.sub_states++;
		/* runs once the caller's step is over (the mesh runs it) */
		enqueue(m, s, MODULE_EVENT_NEW);
		res = MESH_ATTACH_NEW;
	}
	if(!ref_add(&super->subs, s))
		return MESH_ATTACH_NOMEM;
	if(!ref_add(&s->supers, super)) {
		ref_remove(&super->subs, s);
		return MESH_ATTACH_NOMEM;
	}
	*sub = &s->qs;
	return res;
}

static void resume_cb(evutil_socket_t fd, short ev, void* arg)
{
	struct mesh_state* s = arg;
	(void)fd;
	(void)ev;
	enqueue(s->m, s, MODULE_EVENT_RESUME);
	mesh_run(s->m);
}

void mesh_resume_later(struct mesh_state* s)
{
	struct timeval tv = { 0, 0 };
	if(!s->resume_timer && s->m->env->base)
		s->resume_timer = evtimer_new(s->m->env->base, resume_cb, s);
	if(!s->resume_timer || evtimer_add(s->resume_timer, &tv) != 0) {
		/* no timer: go on now, behind what is queued */
		enqueue(s->m, s, MODULE_EVENT_RESUME);
	}
}

/* A reply for a state clients wait on may finish it: the caches'
 * lines it is stored into (its message entry, its name's RRsets) load
 * while the modules work on the reply; with thousands of queries in
 * flight they left the CPU's caches since the query came. */
static void prefetch_store(struct mesh_area* m, const struct mesh_state* s)
{
	if(m->env->msg_cache)
		msg_cache_prefetch(m->env->msg_cache, s->qs.qname,
			s->qs.qname_len, s->qs.qtype, s->qs.qclass,
			(s->qs.flags & MODQ_CD) != 0);
	if(m->env->rrset_cache)
		rrset_cache_prefetch(m->env->rrset_cache, s->qs.qname,
			s->qs.qname_len, s->qs.qclass);
}

void mesh_outnet_reply(void* arg, const struct outnet_reply* r)
{
	struct mesh_state* s = arg;
	struct mesh_area* m = s->m;
	int was_running = m->running;
	if(s->replies)
		prefetch_store(m, s);
	/* as if run from the queue: states it wakes wait their turn */
	m->running = 1;
	run_modules(m, s, MODULE_EVENT_REPLY, r);
	m->running = was_running;
	mesh_run(m);
}

size_t mesh_num_states(const struct mesh_area* m)
{
	return m->num_states;
}

size_t mesh_num_waiters(const struct mesh_area* m)
{
	return m->num_waiters;
}

const struct mesh_stats* mesh_get_stats(const struct mesh_area* m)
{
	return &m->stats;
}

/* Append s to the string in buf (len bytes), cut to fit. */
static void str_append(char* buf, size_t len, const char* s)
{
	size_t l = strlen(buf), n = strlen(s);
	if(l + n >= len)
		n = len - l - 1;
	memcpy(buf + l, s, n);
	buf[l + n] = 0;
}

/* compat: unbound-1.17: What a state waits for, worded as Unbound's
 * dump_requestlist: the running module says, else its sub-queries are listed.
 */
static void state_status(const struct mesh_area* m,
	const struct mesh_state* s, char* buf, size_t len)
{
	const struct module_func_block* mod = m->env->mods[s->curmod];
	const struct mesh_ref* r;
	buf[0] = 0;
	if(mod->describe)
		mod->describe(&s->qs, s->curmod, buf, len);
	if(buf[0])
		return;
	if(!s->subs) {
		snprintf(buf, len, "%s is %s", mod->name, s->on_rq ?
			"module_state_initial" : "module_wait_reply");
		return;
	}
	snprintf(buf, len, "%s wants", mod->name);
	for(r = s->subs; r; r = r->next) {
		char nm[LDNS_MAX_DOMAINLEN * 4 + 8], t[32], c[32];
		char* ts = ldns_rr_type2str((ldns_rr_type)r->s->qs.qtype);
		char* cs = ldns_rr_class2str((ldns_rr_class)r->s->qs.qclass);
		snprintf(t, sizeof(t), "%s", ts ? ts : "TYPE??");
		snprintf(c, sizeof(c), "%s", cs ? cs : "CLASS??");
		free(ts);
		free(cs);
		dname_to_str(r->s->qs.qname, nm, sizeof(nm));
		str_append(buf, len, " ");
		str_append(buf, len, t);
		str_append(buf, len, " ");
		str_append(buf, len, c);
		str_append(buf, len, " ");
		str_append(buf, len, nm);
	}
}

void mesh_walk_states(struct mesh_area* m, mesh_walk_func fn, void* arg)
{
	size_t i = 0;
	struct ihash_node* n = NULL;
	while((n = ihash_next(&m->table, &i, n)) != NULL) {
		struct mesh_state* s = IHASH_ITEM(n, struct mesh_state, hn);
		struct mesh_state_view v;
		memset(&v, 0, sizeof(v));
		v.qname = s->qs.qname;
		v.qtype = s->qs.qtype;
		v.qclass = s->qs.qclass;
		v.has_clients = s->replies != NULL;
		v.age_ms = v.has_clients ? mono_ms() - s->start_ms : 0;
		state_status(m, s, v.status, sizeof(v.status));
		fn(&v, arg);
	}
}
