/* SPDX-License-Identifier: BSD-3-Clause */
/* util/msgparse.h - parse an incoming DNS query from the wire.
 * Hand-written because it is on the hot path: no allocation, one pass. */
#ifndef UTIL_MSGPARSE_H
#define UTIL_MSGPARSE_H
#include <stddef.h>
#include <stdint.h>
#include "util/dname.h"

#define LDNS_HEADER_SIZE 12
/* header flag bits (in host order of the 16-bit flags word) */
#define FLAG_QR 0x8000
#define FLAG_AA 0x0400
#define FLAG_TC 0x0200
#define FLAG_RD 0x0100
#define FLAG_RA 0x0080
#define FLAG_AD 0x0020
#define FLAG_CD 0x0010
#define FLAGS_OPCODE(f) (((f) >> 11) & 0xf)

enum { RCODE_NOERROR = 0, RCODE_FORMERR = 1, RCODE_SERVFAIL = 2,
	RCODE_NXDOMAIN = 3, RCODE_NOTIMPL = 4, RCODE_REFUSED = 5,
	RCODE_BADVERS = 16, /* extended: needs EDNS */
	RCODE_BADCOOKIE = 23 /* extended: RFC 7873 */ };
enum { TYPE_A = 1, TYPE_NS = 2, TYPE_CNAME = 5, TYPE_SOA = 6, TYPE_PTR = 12,
	TYPE_MX = 15, TYPE_TXT = 16, TYPE_AAAA = 28, TYPE_SRV = 33,
	TYPE_DNAME = 39, TYPE_OPT = 41, TYPE_DS = 43, TYPE_RRSIG = 46,
	TYPE_NSEC = 47, TYPE_DNSKEY = 48, TYPE_NSEC3 = 50, TYPE_IXFR = 251,
	TYPE_AXFR = 252,
	TYPE_MAILB = 253, TYPE_MAILA = 254, TYPE_ANY = 255 };
enum { CLASS_IN = 1, CLASS_CH = 3, CLASS_ANY = 255 };

/* What a query asks, and how the client wants the answer. */
struct query_info {
	uint16_t id;          /* header ID, echoed in the reply */
	uint16_t flags;       /* header flags word as received */
	uint8_t qname[LDNS_MAX_DOMAINLEN + 1]; /* as received (case kept) */
	size_t qname_len;
	uint16_t qtype;
	uint16_t qclass;
	/* EDNS (RFC 6891) */
	int has_edns;         /* an OPT RR was present */
	uint16_t edns_udp_size; /* client's advertised size, as sent */
	uint8_t edns_version;
	int edns_do;          /* DO bit */
	/* Offset just past the question section in the query packet. */
	size_t question_end;
	/* The query packet itself (valid while the caller keeps it). */
	const uint8_t* pkt;
	size_t pkt_len;
	/* compat: unbound-1.17: Nonzero: the rcode for which Unbound replies
	 * by echoing the whole query with QR set (header checks, unreadable
	 * question, AXFR/IXFR REFUSED, meta qtype FORMERR). msg_error_reply()
	 * does that echo when called with this rcode. 0: no echo. */
	int echo_rcode;
	/* answer-cookie: yes: the cookie option for the reply (code, length,
	 * cookie: COOKIE_OPT_LEN bytes) or NULL; set by query_answer when
	 * cookies are on, not read otherwise (query_parse leaves it). */
	const uint8_t* cookie;
	/* the query carried a valid server cookie: set with cookie, read
	 * only when answer-cookie is on (wait-limit-cookie) */
	int cookie_valid;
	/* QUERY_OPT_NSID, QUERY_OPT_KEEPALIVE: options the reply gets; set
	 * by query_answer when serve_env.reply_options, not read otherwise */
	int reply_opts;
};
#define QUERY_OPT_NSID 1       /* nsid: and the query asked for it */
#define QUERY_OPT_KEEPALIVE 2  /* edns-tcp-keepalive: TCP, it asked */

/* Outcome of parsing a query packet. */
enum parse_result {
	PARSE_OK = 0,       /* qi filled in */
	PARSE_DROP,         /* too short for a header, or QR set: no reply */
	PARSE_FORMERR,      /* header parsed, body malformed: reply FORMERR */
	PARSE_NOTIMPL,      /* opcode is not QUERY: reply NOTIMP */
	PARSE_BADVERS,      /* EDNS version > 0: reply BADVERS (with OPT) */
	PARSE_REFUSED       /* opcode NOTIFY (no auth zones): reply REFUSED */
};

/* compat: unbound-1.17: Parse pkt. On PARSE_FORMERR/NOTIMPL/BADVERS/REFUSED,
 * qi->id and qi->flags are set and, when the question could be read,
 * qname/qtype/qclass too (qname_len is 0 when not). Rules, in Unbound 1.17's
 * order: TC set, QDCOUNT != 1, ANCOUNT != 0 (1 is allowed for NOTIFY), NSCOUNT
 * != 0, ARCOUNT > 1, or a question that is not an uncompressed name plus type
 * and class: FORMERR (echoed); opcode not QUERY or NOTIFY: NOTIMPL (echoed).
 * AXFR/IXFR and meta qtypes return PARSE_OK at once with echo_rcode set
 * (REFUSED resp. FORMERR), for the caller's qtype checks. Then the additional
 * record must be an OPT RR with root owner inside the packet (else FORMERR;
 * has_edns is then set so the FORMERR carries an OPT as Unbound's does);
 * version > 0 gives BADVERS; NOTIFY gives REFUSED. Trailing garbage is
 * ignored. */
enum parse_result query_parse(const uint8_t* pkt, size_t len,
	struct query_info* qi);

#endif
