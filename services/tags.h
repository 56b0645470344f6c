/* SPDX-License-Identifier: BSD-3-Clause */
/* services/tags.h - compat: unbound-1.17: define-tag: names and tag lists
 * ("tag1 tag2") as bit sets, for access-control-tag (daemon/acl_list.c)
 * and local-zone-tag (services/localzone_build.c). A tag's id is its
 * place among the defined names, duplicates left out, as Unbound numbers
 * them. */
#ifndef SERVICES_TAGS_H
#define SERVICES_TAGS_H
#include <stdint.h>

struct config_file;

/* At most this many tags (one bit each in a uint64_t); Unbound has no
 * limit (compat.md). */
#define TAGS_MAX 64

/* The number of defined tags; -1 (logged) when over TAGS_MAX. */
int tags_count(const struct config_file* cfg);
/* The id of name, -1 if no define-tag has it. */
int tags_find_id(const struct config_file* cfg, const char* name);
/* compat: unbound-1.17: "tag1 tag2" to bits. 0 (logged as Unbound: "parse
 * taglist, but no tags defined", "unknown tag: NAME") on error. */
int tags_parse_list(const struct config_file* cfg, const char* list,
	uint64_t* bits);

#endif
