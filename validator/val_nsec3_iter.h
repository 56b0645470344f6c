/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_nsec3_iter.h - compat: unbound-1.17: the NSEC3 iteration limit
 * by key size (val-nsec3-keysize-iterations, RFC 9276 3.2).
 *
 * Unbound 1.17: NSEC3 records of the proving zone with more iterations
 * than the limit for the zone's key size make the answer insecure (not
 * bogus); the key size is that of the smallest zone key (DNSKEY with
 * the zone-key flag) in the zone's DNSKEY set. */
#ifndef VALIDATOR_VAL_NSEC3_ITER_H
#define VALIDATOR_VAL_NSEC3_ITER_H
#include <stddef.h>
#include <ldns/ldns.h>

#define NSEC3_ITER_DEFAULT "1024 150 2048 150 4096 150"
#define NSEC3_ITER_MAX_PAIRS 32

/* Pairs of (key size in bits, max iterations), key sizes ascending. */
struct nsec3_iter_table {
	size_t count;
	size_t keysize[NSEC3_ITER_MAX_PAIRS];
	size_t maxiter[NSEC3_ITER_MAX_PAIRS];
};

/* Parse the option's text: whitespace-separated decimal numbers, an
 * even count of at least 2, key sizes strictly ascending, at most
 * NSEC3_ITER_MAX_PAIRS pairs, each number at most 65535 iterations /
 * 1000000 bits. Returns 1 on success; 0 with a message in err (errlen
 * bytes, NUL-terminated) and *t unchanged otherwise. */
int val_nsec3_iter_parse(const char* text, struct nsec3_iter_table* t,
	char* err, size_t errlen);

/* compat: unbound-1.17: The limit for a key of bits: the first pair whose key
 * size is at least bits, else the last pair's (as Unbound's get_max_iter). */
size_t val_nsec3_iter_max(const struct nsec3_iter_table* t, size_t bits);

/* Key size for the limit: the smallest key size (ldns's
 * ldns_rr_dnskey_key_size) among the DNSKEYs with the zone-key flag;
 * 0 if there are none (so the smallest pair applies). */
size_t val_nsec3_zone_keysize(const ldns_rr_list* dnskeys);

#endif
