/* SPDX-License-Identifier: BSD-3-Clause */
/* respip/rpz_zone.h - compat: unbound-1.17: one response policy zone
 * (rpz: clause) as triggers: QNAME names (exact and "*." wildcard) in a
 * sorted array of lowercased wire names, and the .rpz-ip and
 * .rpz-client-ip netblocks as respip sets (prefix-length runs, binary
 * search). Built from the zone's records (rpz_builder_add: owner, type,
 * class, TTL and rdata in wire form, from a zone file or a transfer),
 * then published whole and never written: a reload or a transfer builds
 * a new one. The query path reads it with no lock and no allocation. */
#ifndef RESPIP_RPZ_ZONE_H
#define RESPIP_RPZ_ZONE_H
#include <stddef.h>
#include <stdint.h>

struct respip_set;
struct respip_rule;

/* compat: unbound-1.17: its enum rpz_action, in its order (the
 * statistics num.rpz.action.<name> are printed in this order). */
enum rpz_action {
	RPZ_NXDOMAIN = 0,
	RPZ_NODATA,
	RPZ_PASSTHRU,
	RPZ_DROP,
	RPZ_TCP_ONLY,
	RPZ_INVALID,
	RPZ_LOCAL_DATA,
	RPZ_DISABLED,
	RPZ_CNAME_OVERRIDE,
	RPZ_NO_OVERRIDE,
	RPZ_ACTION_COUNT
};

/* A QNAME trigger: its name (relative to the zone's origin, lowercased,
 * with the root label; a wildcard's first label "*") and its action;
 * for local data, records as respip keeps them (type, class, TTL,
 * rdlength, rdata) in the zone's blob. */
struct rpz_name {
	uint32_t name_off;
	uint16_t name_len;
	uint8_t action;      /* enum rpz_action */
	uint16_t data_count;
	uint32_t data_off, data_len;
};

struct rpz_zone {
	uint8_t* blob;               /* names, then data */
	size_t blob_len;
	struct rpz_name* names;      /* sorted: rpz_name_cmp */
	size_t num_names;
	struct respip_set* ip;       /* .rpz-ip: respip actions */
	struct respip_set* client;   /* .rpz-client-ip: respip actions */
	/* compat: unbound-1.14: .rpz-nsip: respip actions; the NSDNAME
	 * triggers are names (names[]) that end in the rpz-nsdname label */
	struct respip_set* nsip;
	size_t num_ignored;          /* records no trigger takes */
};

struct rpz_builder;

/* A builder for the zone whose origin is the wire name origin. NULL: out
 * of memory (logged). */
struct rpz_builder* rpz_builder_create(const uint8_t* origin);
/* One record of the zone: owner (wire, uncompressed), rdata uncompressed.
 * A record that is no trigger (the apex, NS, SOA, DNSSEC types, an owner
 * outside the zone, a bad prefix, an unknown rpz- target) is counted and
 * left out (verbosity 2 says which). 0: out of memory. */
int rpz_builder_add(struct rpz_builder* b, const uint8_t* owner,
	size_t owner_len, uint16_t type, uint16_t rclass, uint32_t ttl,
	const uint8_t* rdata, size_t rdlen);
/* The zone from what was added; the builder is deleted either way. NULL:
 * out of memory (logged). */
struct rpz_zone* rpz_builder_finish(struct rpz_builder* b);
void rpz_builder_delete(struct rpz_builder* b);

void rpz_zone_delete(struct rpz_zone* z);
size_t rpz_zone_mem(const struct rpz_zone* z);

/* The QNAME trigger for the wire name q (qlen bytes, any case): the exact
 * name first, then the closest "*." wildcard above it; NULL: none. */
const struct rpz_name* rpz_zone_lookup_qname(const struct rpz_zone* z,
	const uint8_t* q, size_t qlen);

/* compat: unbound-1.17: the action names ("rpz-nxdomain", ...). */
const char* rpz_action_name(enum rpz_action a);
/* The respip action a trigger of this RPZ action is kept as, and back. */
uint8_t rpz_action_to_respip(enum rpz_action a);
enum rpz_action rpz_action_from_respip(uint8_t a);

#endif
