/* SPDX-License-Identifier: BSD-3-Clause */
/* services/authzone.h - compat: unbound-1.17: auth-zone: zones served
 * from a copy held here, to clients (for-downstream: authoritative
 * answers, before the message cache) and to the iterator (for-upstream:
 * the copy answers in place of the zone's servers).
 *
 * Built once per config snapshot from the zone files (read with ldns,
 * kept in the packed wire form local zones use), then read-only and
 * shared by all workers without locks; a reload builds them anew.
 * Answers follow Unbound 1.17's services/authzone.c: AA, referrals for
 * delegations (AA clear, DS or its denial), CNAME and DNAME, wildcards,
 * NXDOMAIN/NODATA with the SOA, RRSIGs and NSEC/NSEC3 denial with DO. */
#ifndef SERVICES_AUTHZONE_H
#define SERVICES_AUTHZONE_H
#include <stddef.h>
#include <stdint.h>

struct config_file;
struct query_info;
struct auth_zones;

/* Build the auth zones of cfg and read their zone files (inside: the
 * process is in its chroot and directory: already, so a name is opened
 * as Unbound opens it then; else as seen from outside). *out is NULL
 * when cfg has no auth-zone (the query path then tests one pointer).
 * Returns 0 on an error (a zone file that cannot be read or parsed, a
 * bad or duplicate name), logged as Unbound logs it; *out is NULL then. */
int auth_zones_create(const struct config_file* cfg, int inside,
	struct auth_zones** out);
void auth_zones_delete(struct auth_zones* az);

enum auth_answer {
	AUTH_NO_ANSWER = 0,  /* no for-downstream zone holds it: go on */
	AUTH_ANSWERED        /* reply in out, *outlen set */
};

/* A client's question (for-downstream zones): the authoritative reply
 * into out (at most limit bytes, TC when it does not fit), EDNS with
 * edns_size when the query had it; minimal: minimal-responses. A zone without data answers
 * SERVFAIL, or nothing with fallback-enabled. Lock-free. */
enum auth_answer auth_zones_answer(const struct auth_zones* az,
	const struct query_info* qi, int minimal, uint8_t* out, size_t limit,
	uint16_t edns_size, size_t* outlen);

/* For the iterator: the for-upstream zone that holds name (the closest
 * enclosing one; name is the parent for a DS question), or NULL. Its
 * wire name in *zname. *usable is 0 when the zone has no data. */
const struct az_zone* auth_zones_upstream(const struct auth_zones* az,
	const uint8_t* name, uint16_t qclass, const uint8_t** zname,
	int* usable);
/* fallback-enabled of zone z. */
int auth_zone_fallback(const struct az_zone* z);

/* The reply zone z gives to (qname, qtype, qclass) as its servers
 * would: RD clear, DO set, with every DNSSEC record, into out (cap
 * bytes, 65535 for a whole answer). Returns its length, 0 on error. */
size_t auth_zone_reply_wire(const struct az_zone* z, const uint8_t* qname,
	size_t qname_len, uint16_t qtype, uint16_t qclass, uint8_t* out,
	size_t cap);

/* list_auth_zones: "name.<tab>serial N" lines in Unbound's order, each
 * handed to out with its newline. 0 on OOM. */
int auth_zones_list(const struct auth_zones* az,
	void (*out)(void* arg, const char* line), void* arg);

/* Zone transfers (services/authzone_xfr.c). */
struct xfr_rrs;
/* A new version of az in which zone (wire name) has content (NULL: no
 * data: the zone is not used, as after expire), built aside; the other
 * zones are shared with az. NULL when az has no such zone (a reload
 * removed it) or on an error (logged). */
struct auth_zones* auth_zones_replaced(const struct auth_zones* az,
	const uint8_t* zone, const struct xfr_rrs* content);
/* As auth_zones_replaced, the zone read again from its zone file path
 * (as the process opens it now; ""/NULL: no file, no data);
 * has_primaries: a missing file is no data, not an error. NULL on an
 * error (logged). unbound-control auth_zone_reload. */
struct auth_zones* auth_zones_reread(const struct auth_zones* az,
	const uint8_t* zone, const char* path, int has_primaries);
/* Is zone one of az's? */
int auth_zones_has(const struct auth_zones* az, const uint8_t* zone);
/* The content of zone as an RR list into out (initialised here; empty
 * when the zone has no data or is not used). 0 when out of memory. */
int auth_zone_content(const struct auth_zones* az, const uint8_t* zone,
	struct xfr_rrs* out);

/* ZONEMD (services/authzone_zonemd.c): zonemd-check of the auth-zone
 * clause of zone in cfg, with the trust anchor at its apex from
 * anchors (copied). NULL when the zone has no zonemd-check (or out of
 * memory, logged). */
struct val_anchors;
struct auth_zonemd;
struct auth_zonemd* auth_zonemd_create(const struct config_file* cfg,
	const struct val_anchors* anchors, const uint8_t* zone);
void auth_zonemd_delete(struct auth_zonemd* m);
/* Is content (a new version of the zone) to be used? Logs the failure
 * as Unbound ("auth zone NAME: ZONEMD verification failed: REASON");
 * zonemd-permissive-mode: logged, and used. m NULL: yes. Any thread. */
int auth_zonemd_accept(const struct auth_zonemd* m,
	const struct xfr_rrs* content);
/* The check of each zone of az (only: just that zone; NULL: all) before
 * az is published: a zone that fails is not used. */
void auth_zones_zonemd_check(struct auth_zones* az,
	const struct config_file* cfg, const struct val_anchors* anchors,
	const uint8_t* only);

#endif
