/* SPDX-License-Identifier: BSD-3-Clause */
/* respip/rpz_load.h - an rpz: clause's zonefile: read into its triggers.
 * A zone transfer gives its records to rpz_builder_add the same way. */
#ifndef RESPIP_RPZ_LOAD_H
#define RESPIP_RPZ_LOAD_H

#include <stdint.h>

struct rpz_zone;
struct xfr_rrs;

/* The zone name (text) and its file (NULL or "": an empty zone); the
 * apex SOA's serial into *serial and *have_soa 1 when the file has one
 * (both may be NULL). NULL when the file cannot be read or parsed, or
 * out of memory (logged in Unbound's words). */
struct rpz_zone* rpz_zone_load(const char* name, const char* path,
	uint32_t* serial, int* have_soa);
/* The file's records as a list into out (initialised by the caller;
 * path NULL or "": none). 0: an error, logged. */
int rpz_zone_file_rrs(const char* name, const char* path,
	struct xfr_rrs* out);
/* The zone whose origin is the wire name origin from a transferred
 * version's records; serial and have_soa as rpz_zone_load. NULL: out of
 * memory (logged). */
struct rpz_zone* rpz_zone_from_rrs(const uint8_t* origin,
	const struct xfr_rrs* rrs, uint32_t* serial, int* have_soa);

#endif
