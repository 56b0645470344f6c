/* SPDX-License-Identifier: BSD-3-Clause */
/* services/zonemd.h - compat: unbound-1.17: ZONEMD (RFC 8976) checks of a
 * zone's whole content, as auth-zone's zonemd-check: does them on load,
 * reload and after each transfer: the SIMPLE scheme's digest (SHA-384,
 * SHA-512) compared with the apex ZONEMD RRset and, when a trust anchor
 * is configured at the zone's apex, the DNSSEC signatures of the SOA and
 * ZONEMD RRsets (or, with no ZONEMD, the NSEC/NSEC3 proof of its absence).
 *
 * Works on the transfer layer's RR list (services/xfr_rr.h), so it is the
 * same check for a zone file and a transfer; never on the query path. */
#ifndef SERVICES_ZONEMD_H
#define SERVICES_ZONEMD_H
#include "services/xfr_rr.h"
#include <ldns/ldns.h>
#include <stddef.h>
#include <stdint.h>

#define ZONEMD_SCHEME_SIMPLE 1
#define ZONEMD_HASH_SHA384 1
#define ZONEMD_HASH_SHA512 2

/* What a check needs besides the content. */
struct zonemd_params {
	int reject_absence;        /* zonemd-reject-absence */
	/* the trust anchor at the zone's apex (DS and/or DNSKEY RRs; both
	 * NULL: no DNSSEC check, the zone is not under an anchor or the
	 * anchor is above it), owned by the caller */
	const ldns_rr_list* ta_ds;
	const ldns_rr_list* ta_dnskey;
	int64_t date_override;     /* val-override-date, as the validator */
};

enum zonemd_outcome {
	ZONEMD_OK = 0,       /* verified, or absent and allowed: why says */
	ZONEMD_FAILED        /* why says, in Unbound's words */
};

/* Check content (the zone's RRs, any order) of zone (wire name). why
 * gets Unbound's reason ("incorrect digest", "ZONEMD absent and that is
 * not allowed by config", "DNSSEC verify failed for ZONEMD RRset", ...)
 * or, on success, "ZONEMD verification successful", "no ZONEMD present",
 * ... Logs nothing. */
enum zonemd_outcome zonemd_verify(const struct xfr_rrs* content,
	const uint8_t* zone, const struct zonemd_params* p, char* why,
	size_t whylen);

/* The SIMPLE scheme digest of content with hash algorithm hashalgo into
 * out (64 bytes room); returns its length, 0 for an unknown algorithm
 * or no memory. */
size_t zonemd_digest(const struct xfr_rrs* content, const uint8_t* zone,
	int hashalgo, uint8_t* out);

#endif
