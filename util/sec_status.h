/* SPDX-License-Identifier: BSD-3-Clause */
/* util/sec_status.h - compat: unbound-1.17: the DNSSEC security status of an
 * RRset or a message, and why validation failed: what a module hands up
 * (util/module.h) and what the message cache keeps with an entry. Numbered
 * as Unbound's sec_status (its dump_cache format keeps the number). The
 * reason and EDE names keep their val_ prefix: only a validator makes
 * them. */
#ifndef UTIL_SEC_STATUS_H
#define UTIL_SEC_STATUS_H

enum sec_status {
	SEC_UNCHECKED = 0,      /* not looked at (yet) */
	SEC_BOGUS = 1,          /* failed validation */
	SEC_INDETERMINATE = 2,  /* no trust anchor above it */
	SEC_INSECURE = 3,       /* proven unsigned (or unsupported algorithm) */
	SEC_SECURE_SENTINEL_FAIL = 4, /* RFC 8509 sentinel said no */
	SEC_SECURE = 5          /* chain of trust to an anchor */
};

/* compat: unbound-1.17: Extended DNS Error codes (RFC 8914) the validator
 * sets, as Unbound. */
enum val_ede {
	VAL_EDE_NONE = -1,
	VAL_EDE_OTHER = 0,
	VAL_EDE_UNSUPPORTED_DNSKEY_ALG = 1,
	VAL_EDE_UNSUPPORTED_DS_DIGEST = 2,
	VAL_EDE_DNSSEC_INDETERMINATE = 5,
	VAL_EDE_DNSSEC_BOGUS = 6,
	VAL_EDE_SIGNATURE_EXPIRED = 7,
	VAL_EDE_SIGNATURE_NOT_YET_VALID = 8,
	VAL_EDE_DNSKEY_MISSING = 9,
	VAL_EDE_RRSIGS_MISSING = 10,
	VAL_EDE_NO_ZONE_KEY_BIT_SET = 11,
	VAL_EDE_NSEC_MISSING = 12,
	VAL_EDE_NETWORK_ERROR = 23     /* no authoritative server answered
	                                * the DS/DNSKEY lookups */
};

/* compat: unbound-1.17: Why a check failed: a static text in Unbound's wording
 * (for val-log-level and the EDE text) and its EDE code. */
struct val_reason {
	const char* text;
	enum val_ede ede;
};

/* Fill *r (when the caller wants the reason: r may be NULL). */
static inline void val_reason_set(struct val_reason* r, const char* text,
	enum val_ede ede)
{
	if(r) {
		r->text = text;
		r->ede = ede;
	}
}

#endif
