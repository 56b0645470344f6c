/* SPDX-License-Identifier: BSD-3-Clause */
/* services/authzone_zonemd.c - compat: unbound-1.17: auth-zone's
 * zonemd-check, zonemd-reject-absence and zonemd-permissive-mode: the
 * ZONEMD check (services/zonemd.c) of a zone read from its file (start,
 * reload, auth_zone_reload) and of a transferred version (the transfer
 * thread asks before it takes one), with Unbound's log lines. A zone
 * read from a file that fails is not used (SERVFAIL, or the zone's
 * servers with fallback-enabled), as Unbound's expired zone; a
 * transferred version that fails is not taken and the version served
 * stays (compat: unbound-1.17: unlike Unbound, which has the new data
 * in place already and expires the zone; doc/compat.md). */
#include "config.h"
#include "services/authzone.h"
#include "services/authzone_internal.h"
#include "services/zonemd.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include "validator/val_anchor.h"
#include <stdlib.h>
#include <string.h>

struct auth_zonemd {
	uint8_t zone[256];
	char zname[256 * 4 + 8];
	struct zonemd_params p;
	ldns_rr_list* ds;       /* copies of the anchor's, or NULL */
	ldns_rr_list* dnskey;
	int permissive;
};

/* The auth-zone clause of cfg for zone (wire name), or NULL. */
static const struct config_auth* clause_of(const struct config_file* cfg,
	const uint8_t* zone)
{
	const struct config_auth* c;
	for(c = cfg->auths; c; c = c->next) {
		uint8_t cn[256];
		if(!c->isrpz && c->name && dname_from_str(c->name, cn) &&
			query_dname_compare(cn, zone) == 0)
			return c;
	}
	return NULL;
}

struct auth_zonemd* auth_zonemd_create(const struct config_file* cfg,
	const struct val_anchors* anchors, const uint8_t* zone)
{
	const struct config_auth* c = clause_of(cfg, zone);
	const struct val_anchor* a;
	struct auth_zonemd* m;
	size_t len = dname_valid(zone, 256);
	if(!c || !c->zonemd_check || !len)
		return NULL;
	if(!(m = calloc(1, sizeof(*m)))) {
		log_err("out of memory");
		return NULL;
	}
	memcpy(m->zone, zone, len);
	dname_to_str(zone, m->zname, sizeof(m->zname));
	m->p.reject_absence = c->zonemd_reject_absence;
	m->p.date_override = cfg->val_date_override;
	m->permissive = cfg->zonemd_permissive_mode;
	a = anchors ? val_anchor_find(anchors, zone, CLASS_IN) : NULL;
	if(a && a->kind == VAL_ANCHOR_KEYS && query_dname_compare(a->name,
		zone) == 0) {
		const ldns_rr_list* ds = val_anchor_ds(a);
		const ldns_rr_list* dk = val_anchor_dnskey(a);
		if((ds && !(m->ds = ldns_rr_list_clone(ds))) ||
			(dk && !(m->dnskey = ldns_rr_list_clone(dk)))) {
			auth_zonemd_delete(m);
			log_err("out of memory");
			return NULL;
		}
		m->p.ta_ds = m->ds;
		m->p.ta_dnskey = m->dnskey;
	} else if(a && a->kind == VAL_ANCHOR_KEYS) {
		/* compat: unbound-1.17: Unbound looks the zone's DS or
		 * DNSKEY up through the resolver for the chain of trust;
		 * here only an anchor at the apex is used, the digest is
		 * checked all the same (doc/compat.md) */
		verbose(VERB_ALGO, "auth zone %s: zonemd: trust anchor above "
			"the zone, only the digest is checked", m->zname);
	}
	return m;
}

void auth_zonemd_delete(struct auth_zonemd* m)
{
	if(!m)
		return;
	ldns_rr_list_deep_free(m->ds);
	ldns_rr_list_deep_free(m->dnskey);
	free(m);
}

int auth_zonemd_accept(const struct auth_zonemd* m,
	const struct xfr_rrs* content)
{
	char why[256];
	if(!m)
		return 1;
	if(zonemd_verify(content, m->zone, &m->p, why, sizeof(why)) ==
		ZONEMD_OK) {
		verbose(VERB_ALGO, "auth zone %s %s", m->zname, why);
		return 1;
	}
	/* compat: unbound-1.17: its log line */
	log_warn("auth zone %s: ZONEMD verification failed: %s", m->zname,
		why);
	if(m->permissive) {
		verbose(VERB_ALGO, "zonemd-permissive-mode enabled, not "
			"blocking zone %s", m->zname);
		return 1;
	}
	return 0;
}

/* One zone of az, not yet published. */
static void check_zone(struct az_zone* z, const struct config_file* cfg,
	const struct val_anchors* anchors)
{
	struct auth_zonemd* m;
	struct xfr_rrs content;
	if(!z->usable || z->count == 0)
		return;    /* compat: unbound-1.17: no data, no check */
	if(!(m = auth_zonemd_create(cfg, anchors, z->name)))
		return;
	if(!az_zone_rrs(z, &content)) {
		log_err("out of memory");
		auth_zonemd_delete(m);
		return;
	}
	if(!auth_zonemd_accept(m, &content))
		z->usable = 0;
	xfr_rrs_clear(&content);
	auth_zonemd_delete(m);
}

void auth_zones_zonemd_check(struct auth_zones* az,
	const struct config_file* cfg, const struct val_anchors* anchors,
	const uint8_t* only)
{
	size_t i;
	for(i = 0; az && i < az->count; i++) {
		if(only && query_dname_compare(az->zones[i]->name, only) != 0)
			continue;
		check_zone(az->zones[i], cfg, anchors);
	}
}
