/* SPDX-License-Identifier: BSD-3-Clause */
/* util/siphash.h - SipHash-2-4 (Aumasson, Bernstein 2012), 64-bit output.
 * Hand-written for the DNS cookie check on the query path: OpenSSL's
 * EVP_MAC "SIPHASH" costs a context set-up per call, far more than the
 * 20 or 32 bytes a server cookie hashes (util/edns_cookie.c). */
#ifndef UTIL_SIPHASH_H
#define UTIL_SIPHASH_H
#include <stddef.h>
#include <stdint.h>

/* SipHash-2-4 of in (len bytes) with the 16-byte key; out gets the 8
 * bytes of the result in the reference implementation's order (the
 * 64-bit value little-endian), as RFC 9018 puts them in a cookie. */
void siphash24(const uint8_t key[16], const uint8_t* in, size_t len,
	uint8_t out[8]);

#endif
