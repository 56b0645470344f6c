/* SPDX-License-Identifier: BSD-3-Clause */
/* services/reply_encode.h - a module result (util/module.h) as the DNS
 * reply to one query: how the mesh answers its waiters and what it
 * stores in the message cache. */
#ifndef SERVICES_REPLY_ENCODE_H
#define SERVICES_REPLY_ENCODE_H
#include <stddef.h>
#include <stdint.h>

struct module_result;
struct query_info;

/* compat: unbound-1.17: Encode res as the reply to qi (its ID, flags, qname
 * case, EDNS) into buf: RA set, RD/CD copied, the answer, authority and
 * additional sections; SERVFAIL alone when res is a failure. rrset-roundrobin:
 * when rotate, the RRs of each RRset start at number rot_off modulo their
 * count (Unbound: query ID plus the time in seconds). Either way no name
 * inside an RRset of several RRs is a compression target
 * (msg_builder.closed_sets), so the message cache can rotate the stored reply
 * without decoding it. Returns the length (TC=1 when it did not fit limit). */
size_t reply_encode(const struct module_result* res,
	const struct query_info* qi, uint8_t* buf, size_t limit,
	uint16_t edns_size, int rotate, uint32_t rot_off);

#endif
