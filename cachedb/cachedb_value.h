/* SPDX-License-Identifier: BSD-3-Clause */
/* cachedb/cachedb_value.h - compat: unbound-1.17: the key and the stored
 * value of the cachedb module, in Unbound's format so that one Redis can
 * be shared with Unbound resolvers:
 *
 *   key:   the SHA-256 of the lowercased question name (wire form), qtype
 *          and qclass (network order) and the secret-seed: text, as 64
 *          uppercase hex digits;
 *   value: the answer as a DNS message (ID 0, the question, the three
 *          sections with their DNSSEC records, an OPT record with DO),
 *          then the time it was stored and the time it expires (the
 *          stored time plus the smallest TTL), each 8 bytes big-endian
 *          seconds since 1970.
 *
 * A value read back is outside input (anyone who can write to the Redis
 * can put anything under a key): cachedb_value_decode checks all of it
 * and refuses what is not an answer to the question asked. */
#ifndef CACHEDB_CACHEDB_VALUE_H
#define CACHEDB_CACHEDB_VALUE_H
#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct module_result;

/* 64 hex digits and the NUL */
#define CACHEDB_KEY_LEN 65
/* the two times after the message */
#define CACHEDB_TIMES_LEN 16
/* room for the largest value: a 64 KB message and the times */
#define CACHEDB_VALUE_MAX (65535 + CACHEDB_TIMES_LEN)

/* The key of (qname, qtype, qclass) with secret (NULL or "": none). */
void cachedb_key(const uint8_t* qname, size_t qname_len, uint16_t qtype,
	uint16_t qclass, const char* secret, char key[CACHEDB_KEY_LEN]);

/* What a stored value is worth. */
enum cachedb_value_verdict {
	CACHEDB_VALUE_OK,          /* an answer: res filled */
	CACHEDB_VALUE_EXPIRED,     /* a good value whose time is up (or
	                            * whose TTLs are all spent): a miss */
	CACHEDB_VALUE_UNUSABLE,    /* well formed, but an rcode other than
	                            * NOERROR and NXDOMAIN: a miss */
	CACHEDB_VALUE_MALFORMED,   /* truncated or garbage */
	CACHEDB_VALUE_WRONG_QUESTION, /* an answer to another question */
	CACHEDB_VALUE_NOMEM
};

/* Short words for the verdict, for the log. */
const char* cachedb_value_verdict_str(enum cachedb_value_verdict v);

/* Check the value v (len bytes) for the question (qname in any case,
 * qtype, qclass) at time now; on CACHEDB_VALUE_OK res (cleared first by
 * the caller) holds the answer with each TTL lowered by the seconds
 * since it was stored, security unchecked. Never reads outside v. */
enum cachedb_value_verdict cachedb_value_decode(const uint8_t* v,
	size_t len, const uint8_t* qname, size_t qname_len, uint16_t qtype,
	uint16_t qclass, time_t now, struct module_result* res);

/* Encode res, the answer to (qname, qtype, qclass; cd: the question had
 * CD), as a value stored at now into buf (cap bytes): its length, or 0
 * when it is not to be stored (an rcode other than NOERROR and
 * NXDOMAIN, a TTL of 0, too large). *ttl is the smallest TTL. */
size_t cachedb_value_encode(const struct module_result* res,
	const uint8_t* qname, size_t qname_len, uint16_t qtype,
	uint16_t qclass, int cd, time_t now, uint8_t* buf, size_t cap,
	uint32_t* ttl);

#endif
