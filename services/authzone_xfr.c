/* SPDX-License-Identifier: BSD-3-Clause */
/* services/authzone_xfr.c - auth-zone as the consumer of zone transfers
 * (services/xfr_source.h): a transferred version is built as a new zone
 * aside and put in a new auth_zones beside the unchanged zones (shared,
 * by reference count); the daemon publishes it with a new serve_env, so
 * a worker sees the old version or the new one, never a mix. */
#include "config.h"
#include "services/authzone.h"
#include "services/authzone_internal.h"
#include "services/xfr_rr.h"
#include "util/dname.h"
#include "util/log.h"
#include <stdlib.h>
#include <string.h>

/* An empty zone with z's name and settings. */
static struct az_zone* zone_like(const struct az_zone* z)
{
	struct az_zone* n = calloc(1, sizeof(*n));
	if(!n)
		return NULL;
	atomic_init(&n->refs, 1);
	n->namelen = z->namelen;
	n->labs = z->labs;
	n->dclass = z->dclass;
	n->for_downstream = z->for_downstream;
	n->for_upstream = z->for_upstream;
	n->fallback_enabled = z->fallback_enabled;
	if(!(n->name = malloc(z->namelen)) || (z->zonefile &&
		!(n->zonefile = strdup(z->zonefile)))) {
		az_zone_delete(n);
		return NULL;
	}
	memcpy(n->name, z->name, z->namelen);
	return n;
}

/* A new version of az with zone replaced by a zone like it filled from
 * content, or (content NULL and path set) read from path. */
static struct auth_zones* replaced(const struct auth_zones* az,
	const uint8_t* zone, const struct xfr_rrs* content, const char* path,
	int has_primaries)
{
	struct auth_zones* n;
	struct az_zone* nz;
	size_t i, at = 0;
	int found = 0;
	if(!az)
		return NULL;
	for(i = 0; i < az->count; i++)
		if(query_dname_compare(az->zones[i]->name, zone) == 0) {
			at = i;
			found = 1;
		}
	if(!found)
		return NULL;
	if(!(nz = zone_like(az->zones[at])))
		goto oom;
	if(path ? !az_zone_read(nz, path, has_primaries) :
		!az_zone_from_xfr(nz, content)) {
		az_zone_delete(nz);
		return NULL;
	}
	if(!(n = calloc(1, sizeof(*n))) || !(n->zones = calloc(az->count,
		sizeof(*n->zones)))) {
		free(n);
		az_zone_delete(nz);
		goto oom;
	}
	n->count = az->count;
	n->have_downstream = az->have_downstream;
	n->have_upstream = az->have_upstream;
	for(i = 0; i < az->count; i++) {
		if(i == at) {
			n->zones[i] = nz;
			continue;
		}
		n->zones[i] = az->zones[i];
		atomic_fetch_add(&n->zones[i]->refs, 1);
	}
	return n;
oom:
	log_err("out of memory");
	return NULL;
}

struct auth_zones* auth_zones_replaced(const struct auth_zones* az,
	const uint8_t* zone, const struct xfr_rrs* content)
{
	return replaced(az, zone, content, NULL, 0);
}

struct auth_zones* auth_zones_reread(const struct auth_zones* az,
	const uint8_t* zone, const char* path, int has_primaries)
{
	return replaced(az, zone, NULL, path ? path : "", has_primaries);
}

int auth_zones_has(const struct auth_zones* az, const uint8_t* zone)
{
	size_t i;
	for(i = 0; az && i < az->count; i++)
		if(query_dname_compare(az->zones[i]->name, zone) == 0)
			return 1;
	return 0;
}

int az_zone_rrs(const struct az_zone* z, struct xfr_rrs* out)
{
	size_t i, j, k;
	xfr_rrs_init(out);
	for(i = 0; i < z->count; i++) {
		const struct az_rrset* s;
		for(s = z->nodes[i].rrsets; s; s = s->next) {
			const struct packed_rrset* sets[2] = { &s->rr,
				&s->sigs };
			for(k = 0; k < 2; k++)
				for(j = 0; j < sets[k]->count; j++)
					if(!xfr_rrs_add(out, z->nodes[i].name,
						z->nodes[i].namelen,
						sets[k]->type, z->dclass,
						sets[k]->ttl,
						sets[k]->rdata[j],
						sets[k]->rdlen[j])) {
						xfr_rrs_clear(out);
						return 0;
					}
		}
	}
	return 1;
}

int auth_zone_content(const struct auth_zones* az, const uint8_t* zone,
	struct xfr_rrs* out)
{
	size_t i;
	const struct az_zone* z = NULL;
	xfr_rrs_init(out);
	for(i = 0; az && i < az->count; i++)
		if(query_dname_compare(az->zones[i]->name, zone) == 0)
			z = az->zones[i];
	/* a zone not used (no SOA, a failed ZONEMD) is no version to
	 * keep: the transfers start from nothing */
	if(!z || !z->usable)
		return 1;
	return az_zone_rrs(z, out);
}
