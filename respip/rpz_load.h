/* SPDX-License-Identifier: BSD-3-Clause */
/* respip/rpz_load.h - an rpz: clause's zonefile: read into its triggers.
 * A zone transfer gives its records to rpz_builder_add the same way. */
#ifndef RESPIP_RPZ_LOAD_H
#define RESPIP_RPZ_LOAD_H

struct rpz_zone;

/* The zone name (text) and its file (NULL or "": an empty zone). NULL
 * when the file cannot be read or parsed, or out of memory (logged in
 * Unbound's words). */
struct rpz_zone* rpz_zone_load_file(const char* name, const char* path);

#endif
