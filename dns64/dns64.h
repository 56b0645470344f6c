/* SPDX-License-Identifier: BSD-3-Clause */
/* dns64/dns64.h - the dns64 module (module-config: "dns64 validator
 * iterator"): RFC 6147 DNS64 as Unbound's, configured by dns64-prefix:,
 * dns64-synthall: and dns64-ignore-aaaa:. Its block is a line in
 * services/modstack.c's table; the result-building steps are exposed
 * for the unit test. */
#ifndef DNS64_DNS64_H
#define DNS64_DNS64_H
#include "util/module.h"
#include "dns64/dns64_synth.h"

extern const struct module_func_block dns64_module_block;

/* Replace res's sections by a's with every A record of a's answer
 * section made an AAAA record under p (its TTL kept) and the RRSIGs
 * over those A records left out; rcode from a; security at most
 * insecure (synthesised data is not signed). 0 on out of memory (res
 * untouched). */
int dns64_result_from_a(struct module_result* res,
	const struct module_result* a, const struct dns64_prefix* p);

/* Replace res's sections by ptr's (the in-addr.arpa PTR answer), with
 * the PTR records at the end of its CNAME chain (from v4name) and their
 * RRSIGs renamed to qname. 0 on out of memory (res untouched). */
int dns64_result_from_ptr(struct module_result* res,
	const struct module_result* ptr, const uint8_t* v4name,
	const uint8_t* qname, size_t qname_len);

#endif
