/* SPDX-License-Identifier: BSD-3-Clause */
/* services/chaos.h - compat: unbound-1.17: CHAOS class TXT answers: id.server,
 * hostname.bind, version.server, version.bind, honouring hide-identity,
 * hide-version, identity and version as Unbound does. */
#ifndef SERVICES_CHAOS_H
#define SERVICES_CHAOS_H
#include <stddef.h>
#include <stdint.h>

struct config_file;
struct query_info;

/* compat: unbound-1.17: If qi is a CH query for one of the names above (or
 * trustanchor.unbound: an empty NOERROR, no anchors yet), write the reply to
 * out and return 1: for qtype TXT or ANY the TXT answer (TTL 0, QR RA, no AA);
 * a hidden name, or another qtype, REFUSED, which is where Unbound ends up for
 * those. The version default is "unbound 1.17.1-compatible " PACKAGE_VERSION.
 * Returns 0 when the query is not one of these. */
int chaos_answer(const struct config_file* cfg, const struct query_info* qi,
	uint8_t* out, size_t limit, uint16_t edns_size, size_t* outlen);

#endif
