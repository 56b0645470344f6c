/* SPDX-License-Identifier: BSD-3-Clause */
/* cachedb/cachedb.h - the cachedb module (module-config: "validator
 * cachedb iterator"): a second-level cache in a database shared by many
 * resolvers, configured by the cachedb: clause as Unbound's. Its block
 * is a line in services/modstack.c's table. */
#ifndef CACHEDB_CACHEDB_H
#define CACHEDB_CACHEDB_H
#include "util/module.h"

extern const struct module_func_block cachedb_module_block;

#endif
