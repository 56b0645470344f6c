/* SPDX-License-Identifier: BSD-3-Clause */
/* cachedb/cachedb.c - compat: unbound-1.17: the cachedb module as
 * Unbound's cachedb/cachedb.c behaves. The mesh runs the modules only
 * when the message cache could not answer, so a question that reaches
 * this module is a local miss: its key is looked up in the backend
 * (cachedb/cachedb_backend.h) and the question waits, suspended
 * (MODULE_WAIT_REPLY), while the backend answers. A good value is the
 * answer (the validator above checks it as any answer from below, the
 * mesh stores it in the message cache); no value, an expired one, a
 * failed or slow backend, or a value that is no answer to the question
 * (cachedb/cachedb_value.h: refused, counted, logged once per worker)
 * send the question on to the iterator, whose answer is stored in the
 * backend (unless cachedb-no-store:) without waiting for it.
 *
 * Client questions and the validator's DS, DNSKEY and key tag
 * (RFC 8145) queries are looked up and stored, as Unbound's (its sub-queries go through the
 * whole stack), so a resolver validating an answer from the backend
 * finds the keys there too; a sub-query the local caches can answer is
 * left to the iterator (Unbound's cachedb looks in its own cache
 * first). Not the iterator's own lookups (NS addresses, priming:
 * MODQ_BELOW_ONLY; Unbound starts those at the iterator), not a
 * prefetch, a question asked again after a bogus answer or without
 * some servers (those want fresh data; their answer is stored), nor a
 * question that must bypass the shared caches (MODQ_NO_CACHE). */
#include "config.h"
#include "cachedb/cachedb.h"
#include "cachedb/cachedb_backend.h"
#include "cachedb/cachedb_value.h"
#include "services/cache/msgcache.h"
#include "services/cache/rrset.h"
#include "services/mesh.h"
#include "services/outside_network.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/msgparse.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Per daemon: the backend chosen and the testframe's store. */
struct cachedb_global {
	const struct cachedb_backend_ops* ops;
	void* testframe;
};

/* Per worker. */
struct cachedb_env {
	const struct cachedb_backend_ops* ops;
	void* be;
	uint8_t* buf;                 /* a value being encoded */
	/* bad values logged (once per worker for each kind) */
	int logged_malformed, logged_wrong_question;
};

/* Per question, while its lookup is out. */
struct cachedb_qstate {
	struct module_qstate* qs;
	int id;
	void* handle;                 /* the backend's lookup; NULL: done */
};

static const struct cachedb_backend_ops* find_backend(const char* name)
{
	if(strcmp(name, cachedb_testframe_ops.name) == 0)
		return &cachedb_testframe_ops;
#ifdef HAVE_HIREDIS
	if(strcmp(name, cachedb_redis_ops.name) == 0)
		return &cachedb_redis_ops;
#endif
	return NULL;
}

static void* cachedb_startup(const struct config_file* cfg)
{
	const char* name = cfg->cachedb_backend && *cfg->cachedb_backend ?
		cfg->cachedb_backend : "testframe";
	struct cachedb_global* g;
	const struct cachedb_backend_ops* ops = find_backend(name);
	if(!ops) {
		/* compat: unbound-1.17: its words */
		log_err("cachedb: cannot find backend name '%s'%s", name,
			strcmp(name, "redis") == 0 ? " (built without "
			"libhiredis)" : "");
		return NULL;
	}
	if(!(g = calloc(1, sizeof(*g))))
		return NULL;
	g->ops = ops;
	if(ops == &cachedb_testframe_ops &&
		!(g->testframe = cachedb_testframe_shared_new())) {
		free(g);
		return NULL;
	}
	return g;
}

static void cachedb_destartup(void* global)
{
	struct cachedb_global* g = global;
	if(!g)
		return;
	cachedb_testframe_shared_delete(g->testframe);
	free(g);
}

static size_t cachedb_get_mem(void* global)
{
	return global ? sizeof(struct cachedb_global) : 0;
}

static int cachedb_init(struct module_env* env, int id)
{
	struct cachedb_global* g = env->modglobal[id];
	struct cachedb_env* ce = calloc(1, sizeof(*ce));
	if(!ce || !g) {
		free(ce);
		log_err("cachedb: out of memory");
		return 0;
	}
	env->modinfo[id] = ce;
	ce->ops = g->ops;
	if(!(ce->buf = malloc(CACHEDB_VALUE_MAX)) ||
		!(ce->be = ce->ops->create(env, g->testframe))) {
		log_err("cachedb: could not init %s backend", ce->ops->name);
		return 0;
	}
	return 1;
}

static void cachedb_deinit(struct module_env* env, int id)
{
	struct cachedb_env* ce = env->modinfo[id];
	if(!ce)
		return;
	if(ce->be)
		ce->ops->destroy(ce->be);
	free(ce->buf);
	free(ce);
	env->modinfo[id] = NULL;
}

/* Would the local caches answer this sub-query (the message cache, with
 * or without DNSSEC records, or the RRset itself or a CNAME at the
 * name)? Then the iterator answers it from there, no backend lookup.
 * A client's question reaches the modules on a message-cache miss. */
static int cached_here(const struct module_qstate* qs)
{
	struct module_env* env = qs->env;
	time_t now = time(NULL);
	struct query_info qi;
	int d;
	memset(&qi, 0, sizeof(qi));
	memcpy(qi.qname, qs->qname, qs->qname_len);
	qi.qname_len = qs->qname_len;
	qi.qtype = qs->qtype;
	qi.qclass = qs->qclass;
	for(d = 0; env->msg_cache && d < 2; d++) {
		struct msg_entry* m;
		qi.edns_do = d;
		m = msg_cache_lookup(env->msg_cache, &qi,
			msg_cache_hash(env->msg_cache, &qi), now);
		if(m) {
			msg_cache_release(env->msg_cache, m);
			return 1;
		}
	}
	if(env->rrset_cache) {
		struct rrset_entry* e = rrset_cache_lookup(env->rrset_cache,
			qs->qname, qs->qtype, qs->qclass, 0, now);
		if(!e && qs->qtype != TYPE_CNAME)
			e = rrset_cache_lookup(env->rrset_cache, qs->qname,
				TYPE_CNAME, qs->qclass, 0, now);
		if(e) {
			rrset_cache_release(env->rrset_cache, e);
			return 1;
		}
	}
	return 0;
}

/* compat: unbound-1.17: Not for the backend: the iterator's own lookups
 * (Unbound's never pass through cachedb), priming, and a question for no
 * shared cache. */
static int outside_backend(const struct module_qstate* qs)
{
	return (qs->flags & (MODQ_PRIME | MODQ_BELOW_ONLY |
		MODQ_NO_CACHE)) != 0;
}

/* A client's question or a validator's fetch, not one that wants fresh
 * data (Unbound's blacklist and no_cache_lookup). */
static int lookup_wanted(const struct module_qstate* qs)
{
	if(outside_backend(qs) || (qs->flags & (MODQ_PREFETCH |
		MODQ_REFETCH)) || qs->num_avoid > 0)
		return 0;
	return qs->depth == 0 || !cached_here(qs);
}

static void log_bad_value(struct cachedb_env* ce,
	const struct module_qstate* qs, const char* key,
	enum cachedb_value_verdict v)
{
	int* logged = v == CACHEDB_VALUE_WRONG_QUESTION ?
		&ce->logged_wrong_question : &ce->logged_malformed;
	char name[LDNS_MAX_DOMAINLEN * 4 + 8];
	dname_to_str(qs->qname, name, sizeof(name));
	if(!*logged)
		log_err("cachedb: the value under key %s (%s type %d class "
			"%d) is %s: not used (this is logged once)", key, name,
			(int)qs->qtype, (int)qs->qclass,
			cachedb_value_verdict_str(v));
	else
		verbose(VERB_ALGO, "cachedb: the value under key %s (%s) is "
			"%s: not used", key, name,
			cachedb_value_verdict_str(v));
	*logged = 1;
}

/* The backend's answer for qs: the result (MODULE_FINISHED) or on to
 * the module below. */
static enum module_state take_lookup(struct module_qstate* qs, int id,
	enum cachedb_lookup_result r, const uint8_t* data, size_t len)
{
	struct cachedb_env* ce = qs->env->modinfo[id];
	enum cachedb_value_verdict v;
	char key[CACHEDB_KEY_LEN];
	if(r != CACHEDB_LOOKUP_FOUND) {
		mesh_stale_now(qs->ms);
		return MODULE_WAIT_MODULE;
	}
	module_result_clear(&qs->res);
	v = cachedb_value_decode(data, len, qs->qname, qs->qname_len,
		qs->qtype, qs->qclass, time(NULL), &qs->res);
	switch(v) {
	case CACHEDB_VALUE_OK:
		/* compat: unbound-1.17: num.query.cachedb counts clients'
		 * answers, not the validator's fetches */
		if(qs->depth == 0)
			qs->env->counters.cachedb_answers++;
		verbose(VERB_ALGO, "cachedb: answer from the %s backend",
			ce->ops->name);
		return MODULE_FINISHED;
	case CACHEDB_VALUE_MALFORMED:
	case CACHEDB_VALUE_WRONG_QUESTION:
		qs->env->counters.cachedb_refused++;
		cachedb_key(qs->qname, qs->qname_len, qs->qtype, qs->qclass,
			qs->env->cfg->cachedb_secret, key);
		log_bad_value(ce, qs, key, v);
		break;
	case CACHEDB_VALUE_NOMEM:
		log_err("cachedb: out of memory");
		break;
	case CACHEDB_VALUE_EXPIRED:
	case CACHEDB_VALUE_UNUSABLE:
		verbose(VERB_ALGO, "cachedb: value %s",
			cachedb_value_verdict_str(v));
		break;
	}
	module_result_clear(&qs->res);
	mesh_stale_now(qs->ms);
	return MODULE_WAIT_MODULE;
}

/* The backend answers a lookup that was out: run the question again. */
static void lookup_done(void* arg, enum cachedb_lookup_result r,
	const uint8_t* data, size_t len)
{
	struct cachedb_qstate* cq = arg;
	struct outnet_reply rep;
	cq->handle = NULL;
	memset(&rep, 0, sizeof(rep));
	rep.result = r == CACHEDB_LOOKUP_FAILED ? OUTNET_ERROR : OUTNET_REPLY;
	/* a value of 0 bytes is a value too (refused as malformed) */
	rep.pkt = r == CACHEDB_LOOKUP_FOUND ? (data ? data :
		(const uint8_t*)"") : NULL;
	rep.len = len;
	mesh_outnet_reply(cq->qs->ms, &rep);
}

static void cq_free(struct module_qstate* qs, int id)
{
	struct cachedb_qstate* cq = qs->minfo[id];
	struct cachedb_env* ce = qs->env->modinfo[id];
	if(!cq)
		return;
	if(cq->handle && ce)
		ce->ops->cancel(ce->be, cq->handle);
	free(cq);
	qs->minfo[id] = NULL;
}

static enum module_state ask_backend(struct module_qstate* qs, int id)
{
	struct cachedb_env* ce = qs->env->modinfo[id];
	struct cachedb_qstate* cq;
	char key[CACHEDB_KEY_LEN];
	enum cachedb_lookup_result r;
	const uint8_t* data = NULL;
	size_t len = 0;
	void* handle = NULL;
	if(!(cq = calloc(1, sizeof(*cq))))
		return MODULE_WAIT_MODULE;
	cq->qs = qs;
	cq->id = id;
	cachedb_key(qs->qname, qs->qname_len, qs->qtype, qs->qclass,
		qs->env->cfg->cachedb_secret, key);
	if(ce->ops->lookup(ce->be, key, lookup_done, cq, &handle, &r, &data,
		&len) == CACHEDB_START_PENDING) {
		cq->handle = handle;
		qs->minfo[id] = cq;
		return MODULE_WAIT_REPLY;
	}
	free(cq);
	return take_lookup(qs, id, r, data, len);
}

/* The answer from below: into the backend, when it is one to keep. */
static void store_answer(struct module_qstate* qs, int id)
{
	struct cachedb_env* ce = qs->env->modinfo[id];
	const struct module_result* res = &qs->res;
	char key[CACHEDB_KEY_LEN];
	uint32_t ttl = 0;
	size_t n;
	if(qs->env->cfg->cachedb_no_store || outside_backend(qs) ||
		res->no_store || res->synthesized ||
		res->security == SEC_BOGUS)
		return;
	n = cachedb_value_encode(res, qs->qname, qs->qname_len, qs->qtype,
		qs->qclass, (qs->flags & MODQ_CD) != 0, time(NULL), ce->buf,
		CACHEDB_VALUE_MAX, &ttl);
	if(!n)
		return;
	cachedb_key(qs->qname, qs->qname_len, qs->qtype, qs->qclass,
		qs->env->cfg->cachedb_secret, key);
	ce->ops->store(ce->be, key, ce->buf, n, ttl);
}

static enum module_state cachedb_operate(struct module_qstate* qs,
	enum module_event ev, int id, const struct outnet_reply* reply)
{
	switch(ev) {
	case MODULE_EVENT_NEW:
		cq_free(qs, id);
		if(!lookup_wanted(qs))
			return MODULE_WAIT_MODULE;
		return ask_backend(qs, id);
	case MODULE_EVENT_REPLY:
		cq_free(qs, id);
		if(!reply || reply->result != OUTNET_REPLY)
			return take_lookup(qs, id, CACHEDB_LOOKUP_FAILED, NULL,
				0);
		return take_lookup(qs, id, reply->pkt ?
			CACHEDB_LOOKUP_FOUND : CACHEDB_LOOKUP_MISS, reply->pkt,
			reply->len);
	case MODULE_EVENT_MODDONE:
		store_answer(qs, id);
		return MODULE_FINISHED;
	case MODULE_EVENT_RESUME:
		break;
	}
	return MODULE_WAIT_MODULE;
}

static void cachedb_inform_super(struct module_qstate* sub, int id,
	struct module_qstate* super)
{
	/* it starts no sub-queries */
	(void)sub;
	(void)id;
	(void)super;
}

static void cachedb_clear(struct module_qstate* qs, int id)
{
	cq_free(qs, id);
}

static void cachedb_describe(const struct module_qstate* qs, int id,
	char* buf, size_t len)
{
	const struct cachedb_qstate* cq = qs->minfo[id];
	const struct cachedb_env* ce = qs->env->modinfo[id];
	snprintf(buf, len, "cachedb %s", cq && cq->handle && ce ?
		ce->ops->name : "");
}

/* compat: unbound-1.24: cachedb-check-when-serve-expired (default yes):
 * with serve-expired, an expired answer waits for the backend's */
static int cachedb_checks_before_stale(const struct config_file* cfg)
{
	return cfg->serve_expired && cfg->cachedb_check_when_serve_expired;
}

const struct module_func_block cachedb_module_block = {
	.checks_before_stale = cachedb_checks_before_stale,
	.name = "cachedb",
	.startup = cachedb_startup,
	.destartup = cachedb_destartup,
	.get_mem = cachedb_get_mem,
	.init = cachedb_init,
	.deinit = cachedb_deinit,
	.operate = cachedb_operate,
	.inform_super = cachedb_inform_super,
	.clear = cachedb_clear,
	.describe = cachedb_describe,
};
