/* SPDX-License-Identifier: BSD-3-Clause */
/* services/localzone_internal.h - the data structures shared by
 * localzone_build.c (create/delete, from config) and localzone.c (lookup
 * and answering). Not for use outside services/localzone*.c. */
#ifndef SERVICES_LOCALZONE_INTERNAL_H
#define SERVICES_LOCALZONE_INTERNAL_H
#include "services/localzone.h"
#include "util/msgencode.h"
#include "util/ihash.h"
#include <stddef.h>
#include <stdint.h>

/* compat: unbound-1.17: cap on RRs in one RRset, as Unbound */
#define LZ_RRSET_COUNT_MAX 4096
/* RRsets up to this size are rotated (rrset-roundrobin) on the stack */
#define LZ_ROTATE_MAX 64
#define ARENA_CHUNK 65536

struct arena_chunk {
	struct arena_chunk* next;
	size_t size, used;
	max_align_t data[];
};

/* An RRset of local data; rr is what the encoder gets. */
struct lz_rrset {
	struct packed_rrset rr;
	uint8_t** rdata;
	uint16_t* rdlen;
	/* compat: unbound-1.17: per RR: Unbound keeps each RR's TTL */
	uint32_t* ttls;
	int mixed_ttl;           /* not all ttls are equal */
	size_t cap;
	struct lz_rrset* next;   /* in configured order */
	/* compat: unbound-1.17: where list_local_data prints it, lowest first:
	 * as Unbound, config data in file order, default zones and run-time
	 * additions newest first (Unbound prepends each RRset) */
	int list_key;
};

/* A name with local data (or an empty non-terminal) in a zone. */
struct lz_node {
	struct ihash_node hn;    /* in local_zones.names */
	const struct lz_zone* zone;
	uint8_t* name;
	size_t namelen;
	struct lz_rrset* rrsets;
};

struct lz_zone {
	struct ihash_node hn;    /* in local_zones.zones */
	uint8_t* name;
	size_t namelen;
	int labs;
	uint16_t dclass;
	enum localzone_type type;
	int lan;        /* an AS112 / RFC 6303 default zone */
	int insecure;   /* insecure-lan-zones applies (for the validator) */
	uint64_t tags;  /* local-zone-tag; 0: for every client */
	/* local-zone-override (localzone_tags.c); none: NULL, 0 */
	struct lz_override* overrides;
	size_t num_overrides;
	struct lz_rrset* soa;           /* apex SOA, NULL if none */
	struct packed_rrset soa_neg;    /* SOA with TTL min(TTL, MINIMUM) */
};

struct local_zones {
	struct arena_chunk* arena;
	struct ihash zones;      /* lz_zone by (class, name) */
	struct ihash names;      /* lz_node by (zone, name) */
	int log_local_actions;
	int roundrobin;
	/* A filter of the top-level labels of all zones (256 bits), so a
	 * name under any other TLD skips the walk up its labels, which
	 * would hash every suffix; a zone for "." turns it off. */
	uint64_t tld_bits[4];
	int has_root_zone;
	int list_seq;          /* RRsets made so far (for list_key) */
	int list_file_order;   /* entering config local-data now */
};

/* A parsed local-data line. */
struct lz_rr {
	const char* text;
	const uint8_t* wire; /* the RR in wire form (in the arena) */
	size_t ownerlen;
	uint16_t type, dclass;
	uint32_t ttl;
	const uint8_t* rdata;
	size_t rdlen;
};

/* The filter bit of a name's top-level label, -1 for the root (inline:
 * every query that reaches the local zones computes it). */
static inline int
lz_tld_bit(const uint8_t* name)
{
	const uint8_t* last = NULL;
	uint32_t h;
	while(*name) {
		last = name;
		name += *name + 1;
	}
	if(!last)
		return -1;
	/* length, first and last character (case folded): cheap, and
	 * different enough between the few TLDs local zones have */
	h = (uint32_t)last[0] | (uint32_t)(last[1] | 0x20) << 8 |
		(uint32_t)(last[last[0]] | 0x20) << 16;
	return (int)((h * 0x9E3779B1u) >> 24);
}
/* lookups (localzone.c), used by the builder too */
uint32_t lz_node_seed(const struct lz_zone* z);
struct lz_zone* lz_zone_find(const struct local_zones* lz, const uint8_t* name,
	uint16_t dclass);
struct lz_zone* lz_zone_lookup(const struct local_zones* lz, const uint8_t* name,
	uint16_t dclass, uint16_t qtype);
/* compat: unbound-1.17: As lz_zone_lookup for answering a client with these
 * tags: a zone with tags and none in common is passed over. */
struct lz_zone* lz_zone_lookup_tags(const struct local_zones* lz,
	const uint8_t* name, uint16_t dclass, uint16_t qtype, uint64_t tags);
struct lz_node* lz_node_find(const struct local_zones* lz,
	const struct lz_zone* z,
	const uint8_t* name);
int lz_is_redirect(enum localzone_type t);
struct lz_rrset* lz_node_type(const struct lz_node* d, uint16_t type);

/* Zeroed memory that lives until local_zones_delete. */
void* lz_arena_alloc(struct local_zones* lz, size_t n);
/* building (localzone_build.c), used by the runtime edits too
 * (localzone_edit.c). A zone that exists gets the new type. */
struct lz_zone* lz_zone_enter(struct local_zones* lz, const uint8_t* nm,
	uint16_t dclass, enum localzone_type t, int warn_dup);
/* The node for nm, with its empty non-terminals up to z's apex. */
struct lz_node* lz_node_find_create(struct local_zones* lz,
	const struct lz_zone* z, const uint8_t* nm);
/* Parse RR text (logs and returns 0 on bad text). */
int lz_rr_parse(struct local_zones* lz, const char* text, struct lz_rr* rr);
void lz_zone_set_soa(struct lz_zone* z, struct lz_rrset* soa);
int lz_rrset_add_rr(struct local_zones* lz, struct lz_rrset* r,
	const struct lz_rr* rr);
/* compat: unbound-1.17: Enter a parsed RR into zone z, with Unbound's checks.
 */
int lz_zone_enter_rr(struct local_zones* lz, struct lz_zone* z,
	const struct lz_rr* rr);

/* local-zone-override and the tags' data (localzone_tags.c) */
struct sockaddr_storage;
/* The type of z for a client by local-zone-override, local_zone_invalid
 * when none holds the client. */
enum localzone_type lz_override_type(const struct lz_zone* z,
	const struct sockaddr_storage* addr, socklen_t addrlen);
/* Enter cfg's local-zone-override lines; 0 on error (logged). */
int lz_enter_overrides(struct local_zones* lz, const struct config_file* cfg);
/* Copy from's overrides into to (of lz); 0 on OOM. */
int lz_copy_overrides(struct local_zones* lz, struct lz_zone* to,
	const struct lz_zone* from);
/* A tag's data for a question, on the stack of the answer. */
struct lz_tag_rrset {
	struct packed_rrset rr;
	uint8_t* rdata[LZ_ROTATE_MAX];
	uint16_t rdlen[LZ_ROTATE_MAX];
	uint32_t ttls[LZ_ROTATE_MAX];
	int mixed_ttl;
};
/* Fill out with d's RRs for qi (its type, or a CNAME); 0 when none. */
int lz_tag_data_rrset(const struct lz_tag_data* d,
	const struct query_info* qi, struct lz_tag_rrset* out);

#endif
