/* SPDX-License-Identifier: BSD-3-Clause */
/* dns64/dns64_synth.h - the address arithmetic of DNS64 (RFC 6147) with
 * RFC 6052 prefixes: checking a dns64-prefix, embedding an IPv4 address
 * in it, taking it out again, and the reverse names (ip6.arpa of a
 * synthesised address, in-addr.arpa of the IPv4 address in it). Pure
 * functions on bytes: the config parser checks dns64-prefix with them,
 * the dns64 module (dns64/dns64.c) synthesises with them. */
#ifndef DNS64_DNS64_SYNTH_H
#define DNS64_DNS64_SYNTH_H
#include <stddef.h>
#include <stdint.h>

/* An RFC 6052 prefix: len is 32, 40, 48, 56, 64 or 96; the bits of
 * addr after len are zero. */
struct dns64_prefix {
	uint8_t addr[16];
	int len;
};

/* The default, as Unbound's. */
#define DNS64_DEFAULT_PREFIX "64:ff9b::/96"

/* Length of an ip6.arpa name of a whole address: 32 one-nibble labels,
 * "ip6", "arpa", the root. */
#define DNS64_PTR6_LEN 74
/* Longest in-addr.arpa name of an address ("255.255.255.255.in-addr.arpa") */
#define DNS64_PTR4_MAX 30

/* Parse "ADDRESS/LENGTH" into *p: 1, or 0 with the reason in err (the
 * text quoted): not an IPv6 address, a length not in RFC 6052's list,
 * or bits set after the length. */
int dns64_prefix_parse(const char* s, struct dns64_prefix* p, char* err,
	size_t errlen);

/* The address for v4 under p (RFC 6052 2.2): the IPv4 bytes after the
 * prefix, bits 64-71 (the u octet) skipped and zero, the suffix zero. */
void dns64_synth_addr(const struct dns64_prefix* p, const uint8_t v4[4],
	uint8_t out[16]);

/* Is v6 under p? Then 1 with the IPv4 address embedded in it in v4. */
int dns64_extract_v4(const struct dns64_prefix* p, const uint8_t v6[16],
	uint8_t v4[4]);

/* The address of an ip6.arpa wire name of 32 nibble labels (either
 * case): 1, or 0 when name is not one. */
int dns64_ptr6_to_addr(const uint8_t* name, size_t len, uint8_t v6[16]);

/* The ip6.arpa wire name of v6 into out (DNS64_PTR6_LEN bytes). */
size_t dns64_addr_to_ptr6(const uint8_t v6[16], uint8_t* out);

/* The in-addr.arpa wire name of v4 into out (DNS64_PTR4_MAX bytes); its
 * length. */
size_t dns64_v4_to_ptr(const uint8_t v4[4], uint8_t* out);

#endif
