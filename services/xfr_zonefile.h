/* SPDX-License-Identifier: BSD-3-Clause */
/* services/xfr_zonefile.h - a transferred zone written to its zone file
 * (zonefile: with primary: or url:), as text by ldns, SOA first; written
 * to PATH.xfrtmp and renamed over PATH, so a reader never sees half. */
#ifndef SERVICES_XFR_ZONEFILE_H
#define SERVICES_XFR_ZONEFILE_H
#include "services/xfr_rr.h"

/* 1 when written; 0 on an error (logged; the old file stays). */
int xfr_zonefile_write(const char* path, const uint8_t* zone,
	const struct xfr_rrs* content);

/* r as an ldns RR (the writer's path for the types it does not print
 * itself); NULL when ldns refuses it. The caller frees it. */
struct ldns_struct_rr;
struct ldns_struct_rr* xfr_rr_to_ldns(const struct xfr_rr* r);

#endif
