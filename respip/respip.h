/* SPDX-License-Identifier: BSD-3-Clause */
/* respip/respip.h - the respip module (module-config: "respip validator
 * iterator"): response-ip: rules applied to every client's answer, from
 * the mesh and from the message cache alike. Its block is a line in
 * services/modstack.c's table. */
#ifndef RESPIP_RESPIP_H
#define RESPIP_RESPIP_H
#include "util/module.h"

extern const struct module_func_block respip_module_block;

#endif
