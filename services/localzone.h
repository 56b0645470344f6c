/* SPDX-License-Identifier: BSD-3-Clause */
/* services/localzone.h - compat: unbound-1.17: local-zone: and local-data:
 * answers.
 *
 * Built once per config snapshot from local-zone, local-data and
 * local-data-ptr and Unbound's default zones (services/localzone_default.c),
 * then read-only and shared by all worker threads without locks.
 * RR text is parsed with ldns; records are kept in uncompressed wire
 * format so answering is a copy into the reply builder. */
#ifndef SERVICES_LOCALZONE_H
#define SERVICES_LOCALZONE_H
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct config_file;
struct config_str2list;
struct config_strlist;
struct query_info;
struct view;

enum localzone_type {
	local_zone_deny = 0, local_zone_refuse, local_zone_static,
	local_zone_transparent, local_zone_typetransparent, local_zone_redirect,
	local_zone_nodefault, local_zone_inform, local_zone_inform_deny,
	local_zone_inform_redirect, local_zone_always_transparent,
	local_zone_block_a, local_zone_always_refuse, local_zone_always_nxdomain,
	local_zone_always_null, local_zone_noview, local_zone_always_nodata,
	local_zone_always_deny,
	/* compat: unbound-1.26: the block types after block_a */
	local_zone_block_aaaa, local_zone_block_a_wdata,
	local_zone_block_aaaa_wdata,
	local_zone_invalid
};

struct local_zones;

/* compat: unbound-1.17: Build from the config. Errors (bad zone type, RR text
 * ldns cannot parse, local-data outside any zone is fine: a transparent zone
 * is made for it as Unbound does) are logged with log_err; returns NULL then.
 * A duplicate local-zone is a warning; the later line's type wins. */
struct local_zones* local_zones_create(struct config_file* cfg);
void local_zones_delete(struct local_zones* zones);
/* compat: unbound-1.17: A view's local zones (services/view.c) from its
 * local-zone, local-data and local-data-ptr lines; defaults: with Unbound's
 * default zones (a view without view-first); nodefault_zone: a nodefault
 * line makes a zone of type nodefault (view-first) instead of only turning
 * a default off. The lists may be NULL (an empty set). cfg (may be NULL)
 * gives log-local-actions and rrset-roundrobin. NULL on error, logged. */
struct local_zones* local_zones_create_view(struct config_str2list* zones,
	struct config_strlist* data, struct config_strlist* data_ptr,
	int defaults, int nodefault_zone, const struct config_file* cfg);

/* compat: unbound-1.17: access-control-tag-action and -tag-data: what a
 * client's tags change in the global local zones, by tag id; built once
 * per config (daemon/acl_list.c, services/localzone_tags.c), NULL for a
 * client without either line, so a config without them pays nothing. */
struct lz_tag_data;
struct lz_client_tags {
	uint8_t action[64];   /* TAGS_MAX; a localzone_type + 1, 0: none */
	struct lz_tag_data* data[64];   /* NULL: none */
};
/* Add "tag type" (tag_action) or "tag RR-text" (tag_data, the RR without
 * its owner) to *ct, made when NULL. Errors logged, as Unbound words
 * them (where is the netblock or interface, for the message); 0 then. */
int lz_client_tags_action(const struct config_file* cfg,
	struct lz_client_tags** ct, const char* where, const char* tag_action);
int lz_client_tags_data(const struct config_file* cfg,
	struct lz_client_tags** ct, const char* where, const char* tag_data);
void lz_client_tags_delete(struct lz_client_tags* ct);
/* compat: unbound-1.17: for response-ip-tag (respip/): the client's
 * access-control-tag-action for tag into *t (1), 0: none; and its
 * access-control-tag-data for tag and an RRset of type (its records, or
 * a CNAME) as records after an owner name (type, class, TTL, rdlength,
 * rdata) into buf (cap bytes; *len used): the count, 0 when none. */
int lz_client_tags_get_action(const struct lz_client_tags* ct, int tag,
	enum localzone_type* t);
size_t lz_client_tags_records(const struct lz_client_tags* ct, int tag,
	uint16_t type, uint16_t rclass, uint8_t* buf, size_t cap,
	size_t* len);

enum localzone_result {
	LZ_NO_ANSWER = 0, /* not answered locally: go on (cache/recursion) */
	LZ_ANSWERED,      /* reply written to out, *outlen set */
	LZ_DROP,          /* deny/inform_deny: send nothing */
	/* compat: unbound-1.17: a local alias (its local_alias): a
	 * redirect type's CNAME (local-data or access-control-tag-data)
	 * answering another type. The CNAME's reply is in out (AA), its
	 * target to be resolved and its reply joined after it
	 * (REPLY_CHASE_ALIAS, services/reply_chase.h); the access rules
	 * for names not answered locally apply first, as in Unbound. */
	LZ_ALIAS
};

/* Answer qi from local zones, writing the reply into out (at most limit
 * bytes; the reply is truncated with TC=1 if it does not fit).
 * edns_size is the size to advertise in an OPT record when qi has EDNS.
 * The inform types log the client address, hence addr. Lock-free. */
enum localzone_result local_zones_answer(const struct local_zones* zones,
	const struct query_info* qi, const struct sockaddr_storage* addr,
	socklen_t addrlen, uint8_t* out, size_t limit, uint16_t edns_size,
	size_t* outlen);

/* compat: unbound-1.17: local_zones_answer for a client with a view (may be
 * NULL) or tags (access-control-tag bits) and their actions and data (ct,
 * may be NULL): the view's zones first; what
 * they leave (no zone, a noview zone, a transparent kind of zone without
 * data for the name) goes to the global zones only with view-first, else
 * it is not answered locally. A view without local zones leaves
 * everything to the global ones. Of the global zones, one with
 * local-zone-tag serves only clients with a tag in common; for the others
 * the closest enclosing zone above it does (local_zones_answer: a client
 * without tags). Of that global zone the type is, in Unbound's order: a
 * local-zone-override for the client's address; else, for a tagged zone,
 * the action of the first tag (lowest id) the client has in common with
 * it (none: the zone's type); a redirect type then answers with that
 * tag's data when it has some for the question's type. */
enum localzone_result local_zones_answer_client(
	const struct local_zones* zones, const struct view* view,
	uint64_t tags, const struct lz_client_tags* ct,
	const struct query_info* qi,
	const struct sockaddr_storage* addr, socklen_t addrlen, uint8_t* out,
	size_t limit, uint16_t edns_size, size_t* outlen);

/* Runtime changes (unbound-control; services/localzone_edit.c), made on
 * a private copy that is published as a new snapshot afterwards, never
 * on one that workers read. local_zones_copy also compacts: after a
 * removal, publish a copy, not the edited one. */
struct local_zones* local_zones_copy(const struct local_zones* lz);
/* local_zone: add the zone (class IN) or change its type. 0 on OOM. */
int local_zones_set_zone(struct local_zones* lz, const uint8_t* name,
	enum localzone_type t);
/* local_zone_remove: the zone and its data go; 0 if there was none. */
int local_zones_remove_zone(struct local_zones* lz, const uint8_t* name);
/* compat: unbound-1.17: local_data: as Unbound, a transparent zone at the
 * owner when no zone holds it. 0 on bad RR text (logged) or OOM. */
int local_zones_add_rr(struct local_zones* lz, const char* text);
/* local_data_remove: all RRsets at name (DS from the parent side). */
void local_zones_remove_data(struct local_zones* lz, const uint8_t* name);

/* The options kept in lz (log-local-actions, rrset-roundrobin) from
 * cfg, for a copy under a changed config (set_option). */
void local_zones_set_flags(struct local_zones* lz,
	const struct config_file* cfg);

/* compat: unbound-1.17: list_local_zones ("name. type") and list_local_data
 * (one RR a line, as text): lines in Unbound's order (zones in canonical
 * order, names in canonical order within their zone), each handed to out with
 * its newline (services/localzone_list.c). 0 on OOM. */
int local_zones_list(const struct local_zones* lz, int data,
	void (*out)(void* arg, const char* line), void* arg);

/* Name to type ("static") and back; local_zone_invalid if unknown. */
enum localzone_type local_zone_str2type(const char* s);
const char* local_zone_type2str(enum localzone_type t);

/* compat: unbound-1.17: Unbound's default zones
 * (services/localzone_default.c), for local_zones_create: cb is called for
 * each zone with its name, type, whether it is a LAN zone (AS112 / RFC 6303
 * reverse zone, left out when unblock_lan_zones is set; insecure-lan-zones
 * applies to these) and its records as RR text. A 0 from cb stops the walk;
 * returns 0 then. */
typedef int (*local_zone_default_cb)(void* arg, const char* name,
	enum localzone_type type, int lan, const char* const* rrs, size_t n);
int local_zone_defaults(int unblock_lan_zones, local_zone_default_cb cb,
	void* arg);

#endif
