/* SPDX-License-Identifier: BSD-3-Clause */
/* dns64/dns64.c - compat: unbound-1.17: the dns64 module (RFC 6147) as
 * Unbound's dns64/dns64.c behaves: an AAAA question goes down the stack;
 * when its answer has no AAAA records (any rcode), or the name is under a
 * dns64-ignore-aaaa name, or dns64-synthall is set, an A question is asked
 * (a mesh sub-query that runs the whole stack, so the validator checks it)
 * and the AAAA answer is made from its A records with the CNAME chain kept.
 * A PTR question for a name under the prefix's ip6.arpa is answered from
 * the in-addr.arpa PTR of the IPv4 address in it. A CD question is not
 * synthesised (RFC 6147 5.5), unless dns64-synthall.
 *
 * The mesh stores the result (the synthesised answer) in the message
 * cache under the AAAA question's key, so the next ask is a cache hit; it
 * is marked synthesised there (module_result.synthesized) so the iterator's
 * own cache lookups never take it for the zone's data. A module's own
 * AAAA lookup (NS addresses, MODQ_NOVAL) goes through untouched and is not
 * stored as a client's answer (it would be served unsynthesised). */
#include "config.h"
#include "dns64/dns64.h"
#include "services/mesh.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/msgparse.h"
#include <stdlib.h>
#include <string.h>

/* Per worker: the config's prefix and names. */
struct dns64_env {
	struct dns64_prefix prefix;
	int synthall;
	uint8_t (*ignore)[LDNS_MAX_DOMAINLEN + 1];  /* dns64-ignore-aaaa */
	size_t num_ignore;
};

/* Where a client's AAAA or PTR question is. */
enum dns64_phase {
	DNS64_WAIT_SUB,   /* the A or PTR sub-query is out */
	DNS64_SUB_DONE,   /* its result is in (made into ours, or not) */
	DNS64_FALLBACK    /* synthall/ignore-aaaa but no A records: the
	                   * AAAA question goes down after all */
};

/* Per question, only for those dns64 starts a sub-query for. */
struct dns64_qstate {
	enum dns64_phase phase;
	int below_done;   /* qs->res is the modules' below answer */
};

static void env_free_names(struct dns64_env* de)
{
	free(de->ignore);
	de->ignore = NULL;
	de->num_ignore = 0;
}

static int env_from_cfg(struct dns64_env* de, const struct config_file* cfg)
{
	char err[256];
	const struct config_strlist* s;
	size_t n = 0;
	env_free_names(de);
	if(!dns64_prefix_parse(cfg->dns64_prefix ? cfg->dns64_prefix :
		DNS64_DEFAULT_PREFIX, &de->prefix, err, sizeof(err))) {
		/* the config parser refused it already */
		log_err("%s", err);
		return 0;
	}
	de->synthall = cfg->dns64_synthall;
	for(s = cfg->dns64_ignore_aaaa; s; s = s->next)
		n++;
	if(n && !(de->ignore = calloc(n, sizeof(*de->ignore)))) {
		log_err("dns64: out of memory");
		return 0;
	}
	for(s = cfg->dns64_ignore_aaaa; s; s = s->next)
		if(dname_from_str(s->str, de->ignore[de->num_ignore]))
			dname_tolower(de->ignore[de->num_ignore++]);
	return 1;
}

static int dns64_init(struct module_env* env, int id)
{
	struct dns64_env* de = calloc(1, sizeof(*de));
	if(!de) {
		log_err("dns64: out of memory");
		return 0;
	}
	env->modinfo[id] = de;
	if(!env_from_cfg(de, env->cfg)) {
		log_err("dns64: could not apply configuration settings.");
		return 0;
	}
	return 1;
}

static void dns64_deinit(struct module_env* env, int id)
{
	struct dns64_env* de = env->modinfo[id];
	if(!de)
		return;
	env_free_names(de);
	free(de);
	env->modinfo[id] = NULL;
}

static void dns64_reconfigure(struct module_env* env, int id)
{
	struct dns64_env* de = env->modinfo[id];
	struct dns64_env fresh;
	memset(&fresh, 0, sizeof(fresh));
	/* keep the old settings when the new ones fail (out of memory) */
	if(!env_from_cfg(&fresh, env->cfg))
		return;
	env_free_names(de);
	*de = fresh;
}

/* Is the (lowercased) name at or under a dns64-ignore-aaaa name? */
static int ignored(const struct dns64_env* de, const uint8_t* qname)
{
	size_t i;
	for(i = 0; i < de->num_ignore; i++)
		if(dname_subdomain_c(qname, de->ignore[i]))
			return 1;
	return 0;
}

/* Does the answer section hold a record of type t? */
static int has_type(const ldns_rr_list* l, uint16_t t)
{
	size_t i;
	for(i = 0; l && i < ldns_rr_list_rr_count(l); i++)
		if(ldns_rr_get_type(ldns_rr_list_rr(l, i)) == (ldns_rr_type)t)
			return 1;
	return 0;
}

/* Ask (name, qtype) through the whole stack for qs. */
static enum module_state start_sub(struct module_qstate* qs, int id,
	const uint8_t* name, uint16_t qtype)
{
	struct dns64_qstate* dq = qs->minfo[id];
	struct module_qstate* sub;
	enum mesh_attach r;
	if(!dq) {
		if(!(dq = calloc(1, sizeof(*dq)))) {
			log_err("dns64: out of memory");
			module_result_servfail(&qs->res);
			return MODULE_FINISHED;
		}
		qs->minfo[id] = dq;
	}
	/* compat: unbound-1.17: the question's own flags (a CD client's
	 * sub-query is not validated either) */
	r = mesh_attach_sub(qs->env->mesh, qs->ms, name, qtype, qs->qclass,
		qs->flags & (MODQ_CD | MODQ_DO), &sub);
	if(r != MESH_ATTACH_NEW && r != MESH_ATTACH_JOINED) {
		verbose(VERB_ALGO, "dns64: sub-query creation failed");
		if(!dq->below_done)
			module_result_servfail(&qs->res);
		return MODULE_FINISHED;
	}
	dq->phase = DNS64_WAIT_SUB;
	return MODULE_WAIT_SUBQUERY;
}

/* A PTR question for a name under the prefix: ask the IPv4 address's. */
static int ptr_v4name(const struct dns64_env* de,
	const struct module_qstate* qs, uint8_t* v4name)
{
	uint8_t v6[16], v4[4];
	if(qs->qtype != TYPE_PTR ||
		!dns64_ptr6_to_addr(qs->qname, qs->qname_len, v6) ||
		!dns64_extract_v4(&de->prefix, v6, v4))
		return 0;
	(void)dns64_v4_to_ptr(v4, v4name);
	return 1;
}

static enum module_state dns64_operate(struct module_qstate* qs,
	enum module_event ev, int id, const struct outnet_reply* reply)
{
	struct dns64_env* de = qs->env->modinfo[id];
	struct dns64_qstate* dq = qs->minfo[id];
	int cd = (qs->flags & MODQ_CD) != 0;
	uint8_t v4name[DNS64_PTR4_MAX];
	(void)reply;
	if(qs->flags & (MODQ_NOVAL | MODQ_PRIME | MODQ_DETACHED)) {
		/* a module's own lookup: untouched; its AAAA answer not kept
		 * for clients, who would get it unsynthesised from the cache
		 * (the iterator keeps the records in the RRset cache) */
		if(ev != MODULE_EVENT_MODDONE)
			return MODULE_WAIT_MODULE;
		if(qs->qtype == TYPE_AAAA)
			qs->res.no_store = 1;
		return MODULE_FINISHED;
	}
	switch(ev) {
	case MODULE_EVENT_NEW:
		if(ptr_v4name(de, qs, v4name)) {
			verbose(VERB_ALGO, "dns64: rewrite PTR record");
			return start_sub(qs, id, v4name, TYPE_PTR);
		}
		/* compat: unbound-1.17: synthall even for CD, ignore-aaaa
		 * not */
		if(qs->qtype == TYPE_AAAA && (de->synthall ||
			(!cd && ignored(de, qs->qname))))
			return start_sub(qs, id, qs->qname, TYPE_A);
		return MODULE_WAIT_MODULE;
	case MODULE_EVENT_MODDONE:
		if(dq && dq->phase == DNS64_FALLBACK)
			return MODULE_FINISHED;
		if(qs->qtype != TYPE_AAAA || cd)
			return MODULE_FINISHED;
		/* compat: unbound-1.26: a bogus AAAA answer is not replaced
		 * by a synthesised one (1.17 synthesises from the A) */
		if(qs->res.security == SEC_BOGUS)
			return MODULE_FINISHED;
		if(!has_type(qs->res.answer, TYPE_AAAA) ||
			ignored(de, qs->qname)) {
			enum module_state st = start_sub(qs, id, qs->qname,
				TYPE_A);
			if(qs->minfo[id])
				((struct dns64_qstate*)qs->minfo[id])->
					below_done = 1;
			return st;
		}
		return MODULE_FINISHED;
	case MODULE_EVENT_RESUME:
		if(dq && dq->phase == DNS64_FALLBACK)
			return MODULE_WAIT_MODULE;
		return MODULE_FINISHED;
	case MODULE_EVENT_REPLY:
	default:
		break;
	}
	return MODULE_FINISHED;
}

static ldns_rr* aaaa_from_a(const ldns_rr* a, const struct dns64_prefix* p)
{
	const ldns_rdf* rd = ldns_rr_rdf(a, 0);
	uint8_t v6[16];
	ldns_rr* rr;
	ldns_rdf* owner, *addr;
	if(!rd || ldns_rr_rd_count(a) != 1 || ldns_rdf_size(rd) != 4)
		return NULL;
	dns64_synth_addr(p, ldns_rdf_data(rd), v6);
	if(!(rr = ldns_rr_new()))
		return NULL;
	owner = ldns_rdf_clone(ldns_rr_owner(a));
	addr = ldns_rdf_new_frm_data(LDNS_RDF_TYPE_AAAA, 16, v6);
	if(!owner || !addr) {
		ldns_rdf_deep_free(owner);
		ldns_rdf_deep_free(addr);
		ldns_rr_free(rr);
		return NULL;
	}
	ldns_rr_set_owner(rr, owner);
	ldns_rr_set_type(rr, LDNS_RR_TYPE_AAAA);
	ldns_rr_set_class(rr, ldns_rr_get_class(a));
	ldns_rr_set_ttl(rr, ldns_rr_ttl(a));
	if(!ldns_rr_push_rdf(rr, addr)) {
		ldns_rdf_deep_free(addr);
		ldns_rr_free(rr);
		return NULL;
	}
	return rr;
}

/* The type an RRSIG covers (0 for other records). */
static ldns_rr_type covered(const ldns_rr* rr)
{
	const ldns_rdf* c;
	if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_RRSIG ||
		!(c = ldns_rr_rrsig_typecovered(rr)))
		return 0;
	return ldns_rdf2rr_type(c);
}

static ldns_rr_list* clone_list(const ldns_rr_list* l)
{
	return l ? ldns_rr_list_clone(l) : NULL;
}

/* Put the new sections in res, the rest of the result from src. */
static void take_result(struct module_result* res,
	const struct module_result* src, ldns_rr_list* an, ldns_rr_list* ns,
	ldns_rr_list* ar)
{
	module_result_free_lists(res);
	res->rcode = src->rcode;
	res->answer = an;
	res->authority = ns;
	res->additional = ar;
	res->security = src->security;
	res->why_bogus = src->why_bogus;
	res->no_store = 0;
	res->synthesized = 1;
	memcpy(res->from, src->from, sizeof(res->from));
	res->num_from = src->num_from;
	res->has_ede = 0;
	res->ede_text[0] = 0;
}

int dns64_result_from_a(struct module_result* res,
	const struct module_result* a, const struct dns64_prefix* p)
{
	ldns_rr_list* an = ldns_rr_list_new(), *ns = clone_list(a->authority),
		*ar = clone_list(a->additional);
	size_t i;
	if(!an || (a->authority && !ns) || (a->additional && !ar))
		goto fail;
	for(i = 0; a->answer && i < ldns_rr_list_rr_count(a->answer); i++) {
		const ldns_rr* rr = ldns_rr_list_rr(a->answer, i);
		ldns_rr* n;
		if(covered(rr) == LDNS_RR_TYPE_A)
			continue;   /* no signature over the made records */
		if(ldns_rr_get_type(rr) == LDNS_RR_TYPE_A)
			n = aaaa_from_a(rr, p);
		else	n = ldns_rr_clone(rr);
		if(!n || !ldns_rr_list_push_rr(an, n)) {
			ldns_rr_free(n);
			goto fail;
		}
	}
	take_result(res, a, an, ns, ar);
	/* compat: unbound-1.17: unlike Unbound, which keeps the A's status
	 * (AD on a synthesised answer from a signed zone), not secure: the
	 * AAAA records are made here, nothing signed them (RFC 6147 5.5;
	 * doc/compat.md) */
	if(res->security == SEC_SECURE)
		res->security = SEC_INSECURE;
	return 1;
fail:
	ldns_rr_list_deep_free(an);
	ldns_rr_list_deep_free(ns);
	ldns_rr_list_deep_free(ar);
	return 0;
}

/* Is the owner of rr the wire name n? */
static int owner_is(const ldns_rr* rr, const uint8_t* n)
{
	const ldns_rdf* o = ldns_rr_owner(rr);
	size_t len = dname_valid(n, LDNS_MAX_DOMAINLEN);
	return o && ldns_rdf_size(o) == len &&
		query_dname_compare(ldns_rdf_data(o), n) == 0;
}

int dns64_result_from_ptr(struct module_result* res,
	const struct module_result* ptr, const uint8_t* v4name,
	const uint8_t* qname, size_t qname_len)
{
	ldns_rr_list* an = clone_list(ptr->answer),
		*ns = clone_list(ptr->authority),
		*ar = clone_list(ptr->additional);
	uint8_t sname[LDNS_MAX_DOMAINLEN + 1];
	size_t i;
	if((ptr->answer && !an) || (ptr->authority && !ns) ||
		(ptr->additional && !ar))
		goto fail;
	memcpy(sname, v4name, dname_valid(v4name, LDNS_MAX_DOMAINLEN));
	/* compat: unbound-1.17: the PTR RRset at the end of the chain gets
	 * the question's name (a CNAME stays as it is) */
	for(i = 0; an && i < ldns_rr_list_rr_count(an); i++) {
		ldns_rr* rr = ldns_rr_list_rr(an, i);
		const ldns_rdf* t;
		if(ldns_rr_get_type(rr) == LDNS_RR_TYPE_CNAME &&
			owner_is(rr, sname) && (t = ldns_rr_rdf(rr, 0)) &&
			ldns_rdf_size(t) <= sizeof(sname))
			memcpy(sname, ldns_rdf_data(t), ldns_rdf_size(t));
	}
	for(i = 0; an && i < ldns_rr_list_rr_count(an); i++) {
		ldns_rr* rr = ldns_rr_list_rr(an, i);
		ldns_rdf* o;
		if((ldns_rr_get_type(rr) != LDNS_RR_TYPE_PTR &&
			covered(rr) != LDNS_RR_TYPE_PTR) || !owner_is(rr, sname))
			continue;
		if(!(o = ldns_rdf_new_frm_data(LDNS_RDF_TYPE_DNAME, qname_len,
			qname)))
			goto fail;
		ldns_rdf_deep_free(ldns_rr_owner(rr));
		ldns_rr_set_owner(rr, o);
	}
	take_result(res, ptr, an, ns, ar);
	return 1;
fail:
	ldns_rr_list_deep_free(an);
	ldns_rr_list_deep_free(ns);
	ldns_rr_list_deep_free(ar);
	return 0;
}

static void dns64_inform_super(struct module_qstate* sub, int id,
	struct module_qstate* super)
{
	struct dns64_env* de = super->env->modinfo[id];
	struct dns64_qstate* dq = super->minfo[id];
	uint8_t v4name[DNS64_PTR4_MAX];
	if(!dq)
		return;
	dq->phase = DNS64_SUB_DONE;
	if(sub->qtype == TYPE_PTR) {
		if(ptr_v4name(de, super, v4name) && !dns64_result_from_ptr(
			&super->res, &sub->res, v4name, super->qname,
			super->qname_len)) {
			log_err("dns64: out of memory");
			module_result_servfail(&super->res);
		}
		return;
	}
	/* compat: unbound-1.19: no A records (or no answer) for a question
	 * synthall or ignore-aaaa sent here first: the AAAA question goes
	 * down after all; after the AAAA answer, that answer stays */
	if(sub->res.rcode != RCODE_NOERROR ||
		!has_type(sub->res.answer, TYPE_A)) {
		if(!dq->below_done)
			dq->phase = DNS64_FALLBACK;
		return;
	}
	verbose(VERB_ALGO, "converting A answers to AAAA answers");
	if(!dns64_result_from_a(&super->res, &sub->res, &de->prefix)) {
		log_err("dns64: out of memory");
		module_result_servfail(&super->res);
	}
}

static void dns64_clear(struct module_qstate* qs, int id)
{
	free(qs->minfo[id]);
	qs->minfo[id] = NULL;
}

const struct module_func_block dns64_module_block = {
	.name = "dns64",
	.init = dns64_init,
	.deinit = dns64_deinit,
	.reconfigure = dns64_reconfigure,
	.operate = dns64_operate,
	.inform_super = dns64_inform_super,
	.clear = dns64_clear,
};
