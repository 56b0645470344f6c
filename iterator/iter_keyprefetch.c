/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/iter_keyprefetch.c - compat: unbound-1.17: prefetch-key: as Unbound
 * 1.17: when the iterator is about to query a zone that is signed (its DS came
 * with the referral, or a cached delegation has its DS cached), the zone's
 * DNSKEY set is asked at once by a detached query to the zone's own servers,
 * in parallel with the question itself. The validator then finds the keys in
 * the RRset cache (or the lookup already under way) instead of asking for them
 * only after the answer came. Not for CD queries nor for the modules' own
 * lookups (MODQ_NOVAL), as Unbound skips them; nothing when the DNSKEY RRset
 * is cached already. */
#include "config.h"
#include "iterator/iter_keyprefetch.h"
#include "iterator/iterator.h"
#include "iterator/delegpt.h"
#include "services/cache/rrset.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/module.h"
#include <string.h>
#include <time.h>

/* A DS RRset for zone in the referral's authority section? */
static int ds_in(const ldns_rr_list* auth, const uint8_t* zone, size_t len)
{
	size_t i;
	for(i = 0; auth && i < ldns_rr_list_rr_count(auth); i++) {
		const ldns_rr* rr = ldns_rr_list_rr(auth, i);
		const ldns_rdf* own = ldns_rr_owner(rr);
		if(ldns_rr_get_type(rr) == LDNS_RR_TYPE_DS &&
			ldns_rdf_size(own) == len &&
			query_dname_compare(ldns_rdf_data(own), zone) == 0)
			return 1;
	}
	return 0;
}

static int cached(struct iter_env* env, const uint8_t* zone,
	uint16_t type, uint16_t qclass, time_t now)
{
	struct rrset_entry* e;
	if(!env->rrset_cache)
		return 0;
	e = rrset_cache_lookup(env->rrset_cache, zone, type, qclass, 0, now);
	if(!e)
		return 0;
	rrset_cache_release(env->rrset_cache, e);
	return 1;
}

void iter_key_prefetch(struct iter_env* env, struct iter_qstate* iq,
	const ldns_rr_list* referral_auth)
{
	const struct delegpt* dp = iq->dp;
	time_t now = time(NULL);
	char buf[LDNS_MAX_DOMAINLEN * 4 + 8];
	if(!env->cfg || !env->cfg->prefetch_key || !env->validating ||
		!env->mesh || !dp || iq->dp_forward || !iq->qs ||
		(iq->qs->flags & (MODQ_CD | MODQ_NOVAL)))
		return;
	if(iq->qtype == LDNS_RR_TYPE_DNSKEY &&
		query_dname_compare(iq->sname, dp->name) == 0)
		return;   /* that is the question itself */
	if(referral_auth ? !ds_in(referral_auth, dp->name, dp->namelen) :
		!cached(env, dp->name, LDNS_RR_TYPE_DS, iq->qclass, now))
		return;   /* no sign the zone is signed */
	if(cached(env, dp->name, LDNS_RR_TYPE_DNSKEY, iq->qclass, now))
		return;
	if(!iter_new_detached(env, dp->name, LDNS_RR_TYPE_DNSKEY, iq->qclass,
		iq->depth + 1, dp))
		return;   /* in flight already, or the detached bound */
	if(verbosity >= VERB_ALGO) {
		dname_to_str(dp->name, buf, sizeof(buf));
		verbose(VERB_ALGO, "prefetch-key: DNSKEY of %s", buf);
	}
}
