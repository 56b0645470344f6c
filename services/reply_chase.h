/* SPDX-License-Identifier: BSD-3-Clause */
/* services/reply_chase.h - compat: unbound-1.17: a reply a policy rewrote
 * into a CNAME (a response-ip-data or RPZ CNAME) and the reply for that
 * CNAME's target, made into the one reply the client gets, on the wire.
 * The worker resolves the target (cache or mesh) between the two; this
 * file only reads and writes packets: no allocation, no state. */
#ifndef SERVICES_REPLY_CHASE_H
#define SERVICES_REPLY_CHASE_H
#include <stddef.h>
#include <stdint.h>

/* How the target's reply joins the CNAME (what a reply filter asked for:
 * MODULE_REPLY_CHASE, MODULE_REPLY_ALIAS in util/module.h). */
enum reply_chase_mode {
	REPLY_CHASE_NONE = 0,
	/* compat: unbound-1.17: respip_merge_cname (response-ip-data and
	 * RPZ Response IP CNAMEs): the target's answer records after the
	 * CNAME, no authority or additional; the target's rcode when it
	 * is NOERROR, NXDOMAIN or YXDOMAIN, else SERVFAIL; a target that
	 * a rule would change too leaves the CNAME alone */
	REPLY_CHASE_MERGE,
	/* compat: unbound-1.17: a local alias (RPZ QNAME CNAMEs): the
	 * target's whole reply with the CNAME in front of its answer;
	 * AA and no AD when the rcode is NOERROR or NXDOMAIN; SERVFAIL
	 * alone when the target failed */
	REPLY_CHASE_ALIAS
};

/* The CNAME that ends the answer section of base (blen bytes): its
 * target into target (LDNS_MAX_DOMAINLEN + 1 bytes, uncompressed),
 * length in *target_len; 0 when base's last answer record is no CNAME
 * or base is malformed. */
int reply_chase_target(const uint8_t* base, size_t blen, uint8_t* target,
	size_t* target_len);

/* The client's reply into out (cap bytes): base's header, question and
 * answer records, then tgt's (tlen bytes, the reply to the target, any
 * compression) records as mode says, then base's OPT record. Records
 * that do not fit are cut with TC set (answer, authority) or left out
 * (additional). Returns the length; 0 when mode says SERVFAIL
 * (reply_chase_servfail then) or a packet is malformed. */
size_t reply_chase_merge(const uint8_t* base, size_t blen,
	const uint8_t* tgt, size_t tlen, enum reply_chase_mode mode,
	uint8_t* out, size_t cap);

/* SERVFAIL to base's question: its header (rcode 2, no AA, no AD), its
 * question and OPT record. Returns the length, 0 when malformed. */
size_t reply_chase_servfail(const uint8_t* base, size_t blen, uint8_t* out,
	size_t cap);

#endif
