/* SPDX-License-Identifier: BSD-3-Clause */
/* util/msgencode.h - build a reply packet into a caller's buffer, with
 * name compression, truncation (TC=1) when a section does not fit, and
 * the EDNS OPT record. No allocation: the builder lives on the stack. */
#ifndef UTIL_MSGENCODE_H
#define UTIL_MSGENCODE_H
#include <stddef.h>
#include <stdint.h>
#include "util/msgparse.h"

#define MSGENCODE_MAX_PTRS 128  /* remembered names for compression */
#define EDNS_OPT_LEN 11         /* an OPT RR without options */
#define EDNS_OPT_EDE 15         /* RFC 8914 Extended DNS Error */
#define EDE_OTHER 0             /* its codes outside validation */
#define EDE_STALE_ANSWER 3
#define EDE_PROHIBITED 18
#define EDE_NOT_AUTHORITATIVE 20

/* A resource record set in uncompressed wire form, as stored by local
 * zones (and later the cache). rdata[i] points at rdlen[i] bytes. */
struct packed_rrset {
	const uint8_t* owner;   /* uncompressed wire name */
	size_t owner_len;
	uint16_t type;
	uint16_t rclass;
	uint32_t ttl;
	size_t count;
	const uint8_t* const* rdata;
	const uint16_t* rdlen;
};

enum msg_section { SEC_ANSWER = 0, SEC_AUTHORITY = 1, SEC_ADDITIONAL = 2 };

struct msg_builder {
	uint8_t* buf;
	size_t limit;        /* max reply size (client's UDP size, or 65535) */
	size_t len;          /* bytes written */
	size_t reserve;      /* kept free at the end for the OPT record */
	uint16_t counts[3];  /* an, ns, ar */
	int truncated;       /* set when an RRset did not fit */
	int section;         /* last section written to (sections go in order) */
	/* compression: offsets of names already in the packet */
	uint16_t ptr_off[MSGENCODE_MAX_PTRS];
	int num_ptrs;
	/* label count of the name at each ptr_off (root counts as 1) */
	uint8_t ptr_labs[MSGENCODE_MAX_PTRS];
	int full;            /* an RRset did not fit: add nothing more */
	/* compat: unbound-1.17: set after msg_begin (both 0 there):
	 * closed_sets: no name in an RRset of several RRs is a compression
	 * target, and its RRs point only before it, so the cache can rotate
	 * them (rrset-roundrobin); rotate: RRset RRs start at RR number
	 * rot_off modulo their count (Unbound's order; RRSIGs are not
	 * rotated). */
	int closed_sets;
	int rotate;
	uint32_t rot_off;
};

/* Start a reply to qi: header with qi->id, QR=1, opcode, RD and CD copied
 * from the query, the given extra flags (AA, RA, ...) and rcode (low 4
 * bits), and the question echoed (qname as received). When qi->has_edns,
 * room for an OPT record is reserved. limit is the largest packet the
 * client accepts; at least 512 must be given. */
void msg_begin(struct msg_builder* b, uint8_t* buf, size_t limit,
	const struct query_info* qi, uint16_t flags, int rcode);
/* Append a whole RRset to a section (sections must be added in order).
 * Owner names and the names inside RDATA of NS, CNAME, PTR, MX, SOA (and
 * other RFC 1035 types) are compressed. Returns 1 if it fit; if not, the
 * RRset is left out entirely, and for the answer and authority sections
 * b->truncated is set so msg_finish sets TC=1 (additional section
 * overflow only drops records, as RFC 2181 allows). */
int msg_add_rrset(struct msg_builder* b, enum msg_section sec,
	const struct packed_rrset* rrset);
/* The names in the RDATA of type (the RFC 1035 types that are
 * compressed): how many, after how many fixed bytes. 0: none. */
int msg_rdata_names(uint16_t type, size_t* prefix);

/* Finish: write the counts, TC if truncated, the OPT record when the
 * query had EDNS (udp size edns_size, extended rcode bits from rcode,
 * DO echoed), and return the packet length. */
size_t msg_finish(struct msg_builder* b, const struct query_info* qi,
	uint16_t edns_size, int rcode);

/* compat: unbound-1.17: Convenience: a reply with no records, only the
 * question (if known) and the rcode; used for FORMERR, NOTIMP, REFUSED,
 * SERVFAIL, BADVERS. When qi->qname_len is 0 the question section is left
 * empty. Flags are QR, RA, RD and CD copied, opcode copied (Unbound's
 * error_encode). When rcode equals qi->echo_rcode, the reply is instead the
 * query itself echoed with QR set, TC cleared and the rcode, as Unbound does
 * (if it fits limit; else the form above). Returns the length written (always
 * fits in 512 bytes, except for an echo of a larger query). */
size_t msg_error_reply(uint8_t* buf, size_t limit, const struct query_info* qi,
	int rcode, uint16_t edns_size);

/* msg_error_reply with an RFC 8914 Extended DNS Error option (code,
 * and text as its EXTRA-TEXT unless NULL or "") in the OPT record; the
 * text is cut to what fits limit. Without EDNS in the query, or with
 * ede_code < 0, the same as msg_error_reply. */
size_t msg_error_reply_ede(uint8_t* buf, size_t limit,
	const struct query_info* qi, int rcode, uint16_t edns_size,
	int ede_code, const char* text);

/* compat: unbound-1.17: Unbound's access-control "refuse" reply: the query
 * header only, its flags kept (opcode, RD, CD, AA, ...), QR set, TC cleared,
 * rcode REFUSED, all counts 0. Needs qi->id and qi->flags (set by query_parse
 * for all results but a too-short PARSE_DROP). Returns 12 (0 if limit < 12). */
size_t msg_refuse_reply(uint8_t* buf, size_t limit,
	const struct query_info* qi);
/* compat: unbound-1.17: The same with ede: yes (Unbound 1.17): when the query
 * had EDNS, the question and an OPT record with the EDE code follow the header
 * (its flags still the query's); without EDNS, msg_refuse_reply. */
size_t msg_refuse_reply_ede(uint8_t* buf, size_t limit,
	const struct query_info* qi, uint16_t edns_size, int ede_code);

/* An EDE option (RFC 8914) with code and no EXTRA-TEXT added to msg's OPT
 * record (len bytes, at most cap); returns the new length. Unchanged: no
 * OPT record, malformed, or no room. */
size_t msg_add_ede(uint8_t* msg, size_t len, size_t cap, uint16_t code);

#endif
