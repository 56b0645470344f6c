/* SPDX-License-Identifier: BSD-3-Clause */
/* services/authzone_internal.h - the data of auth-zone: zones, shared by
 * authzone_load.c (built from the zone files) and authzone.c (answers).
 * Not for use outside services/authzone*.c. */
#ifndef SERVICES_AUTHZONE_INTERNAL_H
#define SERVICES_AUTHZONE_INTERNAL_H
#include "services/authzone.h"
#include "util/msgencode.h"
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* One RRset at a name, in the packed form the encoder takes; its RRSIGs
 * (those covering its type) beside it, count 0 when unsigned. */
struct az_rrset {
	struct packed_rrset rr;
	struct packed_rrset sigs;
	struct az_rrset* next;
};

/* A name with data. Empty non-terminals have no node (as Unbound). */
struct az_node {
	uint8_t* name;          /* wire, lowercased */
	size_t namelen;
	struct az_rrset* rrsets;
};

struct az_zone {
	/* auth_zones versions holding it: a transfer replaces one zone
	 * and shares the others (services/authzone_xfr.c) */
	atomic_int refs;
	uint8_t* name;          /* wire, lowercased */
	size_t namelen;
	int labs;
	uint16_t dclass;
	int for_downstream, for_upstream, fallback_enabled;
	/* the zone has data with an SOA at its apex; without, it answers
	 * nothing: fallback or SERVFAIL */
	int usable;
	char* zonefile;
	/* nodes in RFC 4034 canonical order */
	struct az_node* nodes;
	size_t count;
	struct az_node* apex;
	/* every allocation of the zone's data, freed with it */
	void** blocks;
	size_t nblocks, capblocks;
};

struct auth_zones {
	struct az_zone** zones;   /* in config order */
	size_t count;
	int have_downstream, have_upstream;
};

/* Read z->zonefile into z (authzone_load.c). 1 on success or when there
 * is no file yet for a zone that has primaries (empty, not usable); 0 on
 * an error, logged. */
int az_zone_read(struct az_zone* z, const char* path, int has_primaries);
/* Drop a reference; frees the zone at zero. */
void az_zone_delete(struct az_zone* z);
struct xfr_rrs;
/* Fill the empty zone z from a transfer's content (NULL or empty: no
 * data, not usable). 0 on an error (logged). */
int az_zone_from_xfr(struct az_zone* z, const struct xfr_rrs* content);

/* z's RRs (RRSIGs included) as an RR list into out (initialised here).
 * 0 when out of memory (authzone_xfr.c). */
int az_zone_rrs(const struct az_zone* z, struct xfr_rrs* out);

/* The node with exactly this name, or NULL (authzone.c). */
const struct az_node* az_find_name(const struct az_zone* z,
	const uint8_t* name);
/* The RRset of type t at n, or NULL. */
const struct az_rrset* az_node_rrset(const struct az_node* n, uint16_t t);

#endif
