/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/iter_caps.c - use-caps-for-id in the iterator: the exempt
 * domains, and the fallback for servers that do not echo the case (see
 * the header). */
#include "config.h"
#include "iterator/iter_caps.h"
#include "iterator/iterator.h"
#include "iterator/iter_hints.h"
#include "iterator/delegpt.h"
#include "iterator/iter_scrub.h"
#include "iterator/iter_util.h"
#include "services/outside_network.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/msgparse.h"
#include "util/reply_parse.h"
#include <stdlib.h>
#include <string.h>

int iter_caps_exempt_create(const struct config_file* cfg, uint8_t** out,
	size_t* num)
{
	const struct config_strlist* u;
	size_t n = 0;
	*out = NULL;
	*num = 0;
	for(u = cfg->caps_exempt; u; u = u->next)
		n++;
	if(n == 0)
		return 1;
	if(!(*out = calloc(n, CAPS_NAME_SIZE))) {
		log_err("out of memory");
		return 0;
	}
	for(u = cfg->caps_exempt; u; u = u->next) {
		uint8_t* d = *out + *num * CAPS_NAME_SIZE;
		if(!dname_from_str(u->str, d)) {
			log_err("caps-exempt: bad domain name '%s'", u->str);
			free(*out);
			*out = NULL;
			*num = 0;
			return 0;
		}
		dname_tolower(d);
		(*num)++;
	}
	return 1;
}

int iter_caps_exempt_match(const uint8_t* names, size_t n, const uint8_t* name)
{
	size_t i;
	for(i = 0; i < n; i++)
		if(dname_subdomain_c(name, names + i * CAPS_NAME_SIZE))
			return 1;
	return 0;
}

int iter_caps_use(const struct iter_env* env, const struct iter_qstate* iq)
{
	if(!env->cfg || !env->cfg->use_caps_for_id || iq->caps_fallback)
		return 0;
	return !(env->hints && iter_caps_exempt_match(env->hints->caps_exempt,
		env->hints->num_caps_exempt, iq->sname));
}

void iter_caps_clear(struct iter_qstate* iq)
{
	free(iq->caps_pkt);
	iq->caps_pkt = NULL;
	iq->caps_len = 0;
	iq->caps_fallback = 0;
	iq->caps_server = 0;
	iq->caps_want = 0;
	iq->caps_confirmed = 0;
}

/* pkt parsed and scrubbed for the question in flight; NULL if unusable. */
static ldns_pkt* parse_scrubbed(const struct iter_env* env,
	const struct iter_qstate* iq, const uint8_t* wire, size_t len)
{
	ldns_pkt* pkt = NULL;
	struct scrub_result sr;
	if(reply_wire2pkt(&pkt, wire, len) != LDNS_STATUS_OK)
		return NULL;
	if(iter_scrub_message(pkt, iq->ask, iq->asktype, iq->qclass,
		iq->dp_forward ? (const uint8_t*)"" : iq->dp->name, &sr,
		!env->cfg || env->cfg->harden_glue) != SCRUB_OK) {
		ldns_pkt_free(pkt);
		return NULL;
	}
	return pkt;
}

/* compat: unbound-1.17: SERVFAIL, REFUSED and the like say nothing about the
 * answer: as Unbound, they neither match nor contradict. */
static int failed_rcode(const ldns_pkt* p)
{
	int rc = (int)ldns_pkt_get_rcode(p);
	return rc != RCODE_NOERROR && rc != RCODE_NXDOMAIN;
}

static int keep(struct iter_qstate* iq, const uint8_t* wire, size_t len)
{
	uint8_t* c = malloc(len);
	if(!c)
		return 0;
	memcpy(c, wire, len);
	free(iq->caps_pkt);
	iq->caps_pkt = c;
	iq->caps_len = len;
	return 1;
}

/* Sorted copies compared (TTLs are not part of ldns_rr_compare). */
static int lists_equal(const ldns_rr_list* a, const ldns_rr_list* b)
{
	ldns_rr_list* x, *y;
	size_t i, n = ldns_rr_list_rr_count(a);
	int eq = 1;
	if(n != ldns_rr_list_rr_count(b))
		return 0;
	if(n == 0)
		return 1;
	x = ldns_rr_list_clone(a);
	y = ldns_rr_list_clone(b);
	if(!x || !y)
		eq = 0;
	else {
		ldns_rr_list_sort(x);
		ldns_rr_list_sort(y);
		for(i = 0; i < n && eq; i++)
			if(ldns_rr_compare(ldns_rr_list_rr(x, i),
				ldns_rr_list_rr(y, i)) != 0)
				eq = 0;
	}
	ldns_rr_list_deep_free(x);
	ldns_rr_list_deep_free(y);
	return eq;
}

int iter_caps_replies_equal(const ldns_pkt* a, const ldns_pkt* b)
{
	if(ldns_pkt_get_rcode(a) != ldns_pkt_get_rcode(b) ||
		!lists_equal(ldns_pkt_answer(a), ldns_pkt_answer(b)))
		return 0;
	/* compat: unbound-1.17: a positive answer: the authority is optional
	 * extra (stripped by Unbound before the comparison too) */
	if(ldns_pkt_get_rcode(a) == LDNS_RCODE_NOERROR &&
		ldns_rr_list_rr_count(ldns_pkt_answer(a)) > 0)
		return 1;
	return lists_equal(ldns_pkt_authority(a), ldns_pkt_authority(b));
}

void iter_caps_reply(struct iter_env* env, struct iter_qstate* iq,
	const struct outnet_reply* r)
{
	ldns_pkt* got, *kept;
	iq->state = ITER_TARGETS;
	if(!iq->caps_fallback) {
		/* compat: unbound-1.17: a capsfail: its reply is the reference
		 * the answers without 0x20 must match (as Unbound 1.17)
		 */
		verbose(VERB_DETAIL, "Capsforid: starting fallback");
		env->stats.caps_fallbacks++;
		iter_caps_clear(iq);
		if(!keep(iq, r->pkt, r->len)) {
			iter_fail(iq, "out of memory for");
			return;
		}
		iq->caps_fallback = 1;
		iq->caps_want = 3 * (int)delegpt_count_usable(iq->dp,
			env->max_attempts + 1);
		iter_reset_attempts(iq);   /* room for the fallback */
		return;
	}
	if(r->result != OUTNET_REPLY ||
		!(got = parse_scrubbed(env, iq, r->pkt, r->len)))
		return;   /* no answer: another try (attempts bound it) */
	iq->caps_server++;
	kept = iq->caps_pkt ? parse_scrubbed(env, iq, iq->caps_pkt,
		iq->caps_len) : NULL;
	if(!kept || (failed_rcode(kept) && !failed_rcode(got))) {
		/* prefer an answer to a SERVFAIL or the like */
		if(!keep(iq, r->pkt, r->len))
			iter_fail(iq, "out of memory for");
		iq->caps_confirmed = 1;
	} else if(failed_rcode(got)) {
		/* says nothing either way */
	} else if(!iter_caps_replies_equal(kept, got)) {
		verbose(VERB_DETAIL, "Capsforid fallback: getting different "
			"replies, failed");
		iter_fail(iq, "0x20 failed, then got different replies in "
			"fallback for");
	} else {
		verbose(VERB_DETAIL, "Capsforid: reply is equal. go to next "
			"fallback");
		iq->caps_confirmed = 1;
	}
	ldns_pkt_free(got);
	ldns_pkt_free(kept);
}

int iter_caps_done(const struct iter_qstate* iq)
{
	/* compat: unbound-1.17: the reply that failed the check counts as one,
	 * as in Unbound */
	return iq->caps_server + 1 >= iq->caps_want;
}

void iter_caps_finish(struct iter_env* env, struct iter_qstate* iq)
{
	uint8_t* wire = iq->caps_pkt;
	size_t len = iq->caps_len;
	int confirmed = iq->caps_confirmed;
	ldns_pkt* p;
	int failed;
	iq->caps_pkt = NULL;
	iter_caps_clear(iq);
	p = wire ? parse_scrubbed(env, iq, wire, len) : NULL;
	failed = !p || failed_rcode(p);
	ldns_pkt_free(p);
	if(failed || !confirmed) {
		/* compat: unbound-1.17: stricter than Unbound: the reply that
		 * failed the check is used only when a server without 0x20
		 * agreed with it */
		free(wire);
		iter_fail(iq, "no reply confirmed in the 0x20 fallback for");
		return;
	}
	verbose(VERB_ALGO, "Capsforid: fallback done, replies agree");
	iter_process_wire(env, iq, wire, len);
	free(wire);
}
