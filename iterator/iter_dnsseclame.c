/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/iter_dnsseclame.c - compat: unbound-1.17: DNSSEC-lame servers,
 * as Unbound's iterator finds them (disable-dnssec-lame-check: no).
 *
 * A zone is expected signed when a trust anchor with keys is at its name
 * or its DS is known (from the referral, or cached). A server of such a
 * zone whose reply to a DO query carries no RRSIG in its answer and
 * authority sections (a signed zone's answer, NODATA, NXDOMAIN and
 * referral all have one) serves it unsigned: a stripped copy, or a
 * middlebox that drops signatures. Its reply is not used; the server is
 * marked DNSSEC-lame for this query's delegation point and, when the
 * reply shows it came from that zone, in the infra cache (for
 * infra-host-ttl), and the zone's other servers are asked. Server
 * selection passes DNSSEC-lame servers over while another is usable;
 * when only they are left one is asked and its reply taken as it is,
 * for the validator to judge. Only the first 4 sends of a query state
 * at one delegation are checked (Unbound's DNSSEC_LAME_DETECT_COUNT),
 * not replies of forwarders (RD), and (unlike Unbound) not the answers
 * of an auth-zone (no server to mark) nor while disable-edns-do leaves
 * DO off. */
#include "config.h"
#include "iterator/iter_dnsseclame.h"
#include "iterator/iterator.h"
#include "iterator/delegpt.h"
#include "iterator/iter_scrub.h"
#include "iterator/iter_util.h"
#include "services/cache/infra.h"
#include "services/cache/rrset.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/module.h"
#include "validator/val_anchor.h"
#include <string.h>
#include <time.h>

/* compat: unbound-1.17: DNSSEC_LAME_DETECT_COUNT: after this many sends
 * at one delegation the reply is taken without the check */
#define DNSSECLAME_DETECT_SENDS 4

/* An RRset of type owned by zone in list? */
static int has_rrset(const ldns_rr_list* list, const uint8_t* zone,
	ldns_rr_type type)
{
	uint8_t o[LDNS_MAX_DOMAINLEN + 1];
	size_t i;
	for(i = 0; list && i < ldns_rr_list_rr_count(list); i++) {
		const ldns_rr* rr = ldns_rr_list_rr(list, i);
		if(ldns_rr_get_type(rr) == type &&
			delegpt_rdf_to_wire(ldns_rr_owner(rr), o) &&
			query_dname_compare(o, zone) == 0)
			return 1;
	}
	return 0;
}

int iter_dnssec_expected(const struct iter_env* env,
	const struct iter_qstate* iq)
{
	const struct val_anchors* anchors = iq->qs && iq->qs->env ?
		iq->qs->env->anchors : NULL;
	const struct val_anchor* a;
	struct rrset_entry* e;
	if(iq->dp_ds)
		return 1;
	/* compat: unbound-1.17: a trust point at the zone's own name;
	 * domain-insecure or an anchor without usable keys says nothing */
	if(anchors && (a = val_anchor_find(anchors, iq->dp->name,
		iq->qclass)) && a->kind == VAL_ANCHOR_KEYS &&
		query_dname_compare(a->name, iq->dp->name) == 0 &&
		(val_anchor_ds(a) || val_anchor_dnskey(a)))
		return 1;
	/* the zone's DS, from an earlier referral (Unbound: the DS its
	 * cached delegation message carries, or the key cache) */
	if(!env->rrset_cache || iq->dp->namelen <= 1)
		return 0;
	e = rrset_cache_lookup(env->rrset_cache, iq->dp->name,
		LDNS_RR_TYPE_DS, iq->qclass, 0, time(NULL));
	if(!e)
		return 0;
	rrset_cache_release(env->rrset_cache, e);
	return 1;
}

int iter_reply_has_dnssec(const ldns_pkt* pkt)
{
	return iter_has_type(ldns_pkt_answer(pkt), LDNS_RR_TYPE_RRSIG) ||
		iter_has_type(ldns_pkt_authority(pkt), LDNS_RR_TYPE_RRSIG);
}

int iter_reply_from_zone(const ldns_pkt* pkt, const struct delegpt* dp)
{
	const ldns_rr_list* an = ldns_pkt_answer(pkt);
	const ldns_rr_list* ns = ldns_pkt_authority(pkt);
	uint8_t o[LDNS_MAX_DOMAINLEN + 1];
	int labs = dname_count_labels(dp->name);
	size_t i;
	/* compat: unbound-1.17: iter_msg_from_zone: the zone's SOA or NS
	 * set, or its DNSKEY set as the answer (minimal responses) */
	if(has_rrset(an, dp->name, LDNS_RR_TYPE_SOA) ||
		has_rrset(ns, dp->name, LDNS_RR_TYPE_SOA) ||
		has_rrset(an, dp->name, LDNS_RR_TYPE_NS) ||
		has_rrset(ns, dp->name, LDNS_RR_TYPE_NS) ||
		has_rrset(an, dp->name, LDNS_RR_TYPE_DNSKEY))
		return 1;
	/* a referral one label down is the zone's own; one further down
	 * may come from a zone between */
	for(i = 0; ns && i < ldns_rr_list_rr_count(ns); i++) {
		const ldns_rr* rr = ldns_rr_list_rr(ns, i);
		if(ldns_rr_get_type(rr) == LDNS_RR_TYPE_NS &&
			delegpt_rdf_to_wire(ldns_rr_owner(rr), o) &&
			dname_count_labels(o) == labs + 1 &&
			dname_subdomain_c(o, dp->name))
			return 1;
	}
	return 0;
}

int iter_dnsseclame_reply(struct iter_env* env, struct iter_qstate* iq,
	const ldns_pkt* pkt, const struct scrub_result* sr)
{
	int rcode = (int)ldns_pkt_get_rcode(pkt);
	struct delegpt_addr* a = iq->sent_to;
	if(!env->cfg || env->cfg->disable_dnssec_lame_check ||
		env->no_edns_do || !a || !iq->dp || iq->dp->auth ||
		iq->dp_forward || iq->dnssec_lame_query ||
		iq->sent_count >= DNSSECLAME_DETECT_SENDS)
		return 0;
	/* compat: unbound-1.17: only a reply that would be used (not a
	 * lame referral, nor an error rcode: those go elsewhere anyway) */
	if((rcode != RCODE_NOERROR && rcode != RCODE_NXDOMAIN) ||
		sr->lame_referral || iter_reply_has_dnssec(pkt) ||
		!iter_dnssec_expected(env, iq))
		return 0;
	/* compat: unbound-1.17: its line, at its level (1.26 says "was
	 * categorized as DNSSEC LAME") */
	verbose(VERB_DETAIL, "query response was DNSSEC LAME");
	env->stats.lame++;
	a->dnsseclame = 1;
	if(env->infra && iter_reply_from_zone(pkt, iq->dp) &&
		!infra_set_lame(env->infra, &a->addr, a->addrlen,
		iq->dp->name, iq->dp->namelen, time(NULL), 1, 0, iq->qtype))
		log_err("mark host lame: out of memory");
	iq->state = ITER_TARGETS;
	return 1;
}
