/* SPDX-License-Identifier: BSD-3-Clause */
/* util/reply_tail.h - an upstream reply parsed with its authority and
 * additional sections left in wire form when they hold only an NS set
 * and glue (and an OPT record): no ldns objects (six heap blocks a
 * record, built and freed per reply) for records that an answer uses
 * only for the RRset store, which nearly always keeps its copy
 * (doc/performance.md, "The upstream reply path"). A reply that is no
 * answer after all is parsed again, whole. */
#ifndef UTIL_REPLY_TAIL_H
#define UTIL_REPLY_TAIL_H
#include <ldns/ldns.h>

/* at most this many records in the two sections; more: parsed whole */
#define REPLY_TAIL_MAX 16

/* One record of the tail: names uncompressed (case as received), the
 * rdata of A and AAAA as a span of the reply, of NS its name. */
struct reply_tail_rr {
	uint8_t owner[LDNS_MAX_DOMAINLEN + 1];
	uint8_t target[LDNS_MAX_DOMAINLEN + 1];  /* NS only */
	size_t owner_len, target_len;
	const uint8_t* rdata;   /* A, AAAA: in the reply */
	uint16_t rdlen;
	uint16_t type, rclass;
	uint32_t ttl;
	uint8_t kept;           /* set by the scrubber (iter_tail.c) */
};

/* The authority records (all NS) then the additional ones (A, AAAA;
 * the OPT record is not among them: it went into the packet as
 * ldns_wire2pkt takes it). */
struct reply_tail {
	size_t nauth, nadd;
	/* the one question record, from the wire: the packet's question
	 * section stays empty (iter_tail_scrub_answer checks this one) */
	uint8_t qname[LDNS_MAX_DOMAINLEN + 1];
	uint16_t qtype, qclass;
	int nxdomain;   /* the rcode, for iter_tail_scrub */
	struct reply_tail_rr rr[REPLY_TAIL_MAX];
};

/* The name at wire[*pos] (compression pointers only backwards, at most
 * 255 bytes, labels of at most 63), uncompressed into out; *pos after
 * it (after its first pointer when compressed). Returns its length, 0
 * for a name this reader is not sure ldns_wire2dname reads the same
 * (it is stricter than libldns: such a reply is parsed the ordinary
 * way). */
size_t reply_tail_name(const uint8_t* wire, size_t len, size_t* pos,
	uint8_t* out);

/* Parse wire as ldns_wire2pkt (reply_wire2pkt) would, but with the
 * authority and additional records in *tail instead of in the packet,
 * when the reply has rcode NOERROR, answer records, and those two
 * sections hold only NS (authority), A, AAAA and at most one OPT
 * (additional) records that libldns reads exactly as their RDLENGTH
 * says. Returns 1 with *pkt set then; 0 (nothing allocated) for any
 * other reply, which the caller parses with reply_wire2pkt. */
int reply_parse_tail(ldns_pkt** pkt, const uint8_t* wire, size_t len,
	struct reply_tail* tail);

#endif
