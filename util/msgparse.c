/* SPDX-License-Identifier: BSD-3-Clause */
/* util/msgparse.c - compat: unbound-1.17: parse an incoming query in one pass,
 * in the order Unbound 1.17 checks it (worker_check_request, query_info_parse,
 * parse_edns_from_query_pkt), so the same rcode and reply form result. */
#include "config.h"
#include "util/msgparse.h"
#include "util/wire_int.h"
#include <string.h>

#define OPCODE_QUERY 0
#define OPCODE_NOTIFY 4

/* compat: unbound-1.17: Read the question: an uncompressed name (queries may
 * not compress it, as in Unbound's query_dname_len) then type and class. 0 if
 * malformed. */
static int read_question(const uint8_t* pkt, size_t len,
	struct query_info* qi)
{
	size_t p = LDNS_HEADER_SIZE, n;
	/* find and check the label lengths, then copy in one go; the
	 * total length is checked once at the end (p stays below len) */
	for(;;) {
		uint8_t lab;
		if(p >= len)
			return 0;
		lab = pkt[p];
		if(lab > LDNS_MAX_LABELLEN)
			return 0; /* pointer or bad label type */
		p += (size_t)lab + 1;
		if(lab == 0)
			break;
	}
	if(p + 4 > len)
		return 0;
	n = p - LDNS_HEADER_SIZE;
	if(n > LDNS_MAX_DOMAINLEN)
		return 0;
	dname_copy(qi->qname, pkt + LDNS_HEADER_SIZE, n);
	qi->qtype = wire_rd16(pkt + p);
	qi->qclass = wire_rd16(pkt + p + 2);
	qi->qname_len = n;
	qi->question_end = p + 4;
	return 1;
}

/* The counts of a plain query: QDCOUNT 1, AN and NS 0, AR 0 or 1; one
 * 8-byte load and compare instead of four fields. */
static int is_plain_counts(const uint8_t* pkt)
{
	static const uint8_t plain[8] = { 0, 1, 0, 0, 0, 0, 0, 0 };
	uint64_t w, p;
	memcpy(&w, pkt + 4, 8);
	memcpy(&p, plain, 8);
	/* the last byte (AR's low half) may be 0 or 1 */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	w &= ~((uint64_t)1 << 56);
#else
	w &= ~(uint64_t)1;
#endif
	return w == p;
}

/* Skip one resource record at *pos; 0 if it is not inside the packet. */
static int skip_rr(const uint8_t* pkt, size_t len, size_t* pos)
{
	uint8_t name[LDNS_MAX_DOMAINLEN + 1];
	size_t rdlen;
	if(!dname_read_wire(pkt, len, pos, name))
		return 0;
	if(len - *pos < 10)
		return 0;
	rdlen = wire_rd16(pkt + *pos + 8);
	*pos += 10;
	if(len - *pos < rdlen)
		return 0;
	*pos += rdlen;
	return 1;
}

/* A compressed OPT owner: must still be the root (a pointer to a 0). */
static int opt_owner_root(const uint8_t* pkt, size_t len, size_t* pos)
{
	uint8_t name[LDNS_MAX_DOMAINLEN + 1];
	return dname_read_wire(pkt, len, pos, name) == 1;
}

static int qtype_is_meta(uint16_t t)
{
	if(t < TYPE_OPT || (t > TYPE_OPT && t < 128))
		return 0;  /* the common types, at once */
	return t == TYPE_OPT || t == 249 /* TKEY */ || t == 250 /* TSIG */ ||
		t == TYPE_MAILA || t == TYPE_MAILB || (t >= 128 && t <= 248);
}

/* compat: unbound-1.17: A FORMERR found in the EDNS stage: Unbound answers it
 * with the question and an OPT record of its own (no DO). */
static enum parse_result edns_formerr(struct query_info* qi)
{
	qi->has_edns = 1;
	qi->edns_do = 0;
	qi->edns_version = 0;
	qi->edns_udp_size = 512;
	return PARSE_FORMERR;
}

enum parse_result query_parse(const uint8_t* pkt, size_t len,
	struct query_info* qi)
{
	uint16_t flags, qd, an, ns, ar;
	int opcode, err_rcode = 0;
	size_t pos;

	qi->qname_len = 0;
	qi->qtype = qi->qclass = 0;
	qi->has_edns = 0;
	qi->edns_udp_size = 512;
	qi->edns_version = 0;
	qi->edns_do = 0;
	qi->question_end = 0;
	qi->pkt = pkt;
	qi->pkt_len = len;
	qi->echo_rcode = 0;
	if(len < LDNS_HEADER_SIZE)
		return PARSE_DROP;
	qi->id = wire_rd16(pkt);
	qi->flags = flags = wire_rd16(pkt + 2);
	if(flags & FLAG_QR)
		return PARSE_DROP;
	opcode = FLAGS_OPCODE(flags);
	if(!(flags & FLAG_TC) && opcode == OPCODE_QUERY &&
		is_plain_counts(pkt)) {
		/* the usual query: one question, at most the OPT record */
		qd = 1;
		an = ns = 0;
		ar = pkt[11];
	} else {
		qd = wire_rd16(pkt + 4);
		an = wire_rd16(pkt + 6);
		ns = wire_rd16(pkt + 8);
		ar = wire_rd16(pkt + 10);
	}

	/* Header checks (worker_check_request): echoed replies. */
	if(flags & FLAG_TC)
		err_rcode = RCODE_FORMERR;
	else if(opcode != OPCODE_QUERY && opcode != OPCODE_NOTIFY)
		err_rcode = RCODE_NOTIMPL;
	else if(qd != 1 || ns != 0 || ar > 1 ||
		(an != 0 && (an != 1 || opcode != OPCODE_NOTIFY)))
		err_rcode = RCODE_FORMERR;
	/* Read the question even then, for logging. */
	if(qd == 0 || !read_question(pkt, len, qi)) {
		qi->qname_len = 0;
		qi->qtype = qi->qclass = 0;
		if(!err_rcode)
			err_rcode = RCODE_FORMERR;
	}
	if(err_rcode) {
		qi->echo_rcode = err_rcode;
		return err_rcode == RCODE_NOTIMPL ? PARSE_NOTIMPL : PARSE_FORMERR;
	}

	/* compat: unbound-1.17: Qtype checks come before EDNS in Unbound; the
	 * caller does them. */
	if(qi->qtype == TYPE_AXFR || qi->qtype == TYPE_IXFR) {
		qi->echo_rcode = RCODE_REFUSED;
		return PARSE_OK;
	}
	if(qtype_is_meta(qi->qtype)) {
		qi->echo_rcode = RCODE_FORMERR;
		return PARSE_OK;
	}

	/* EDNS stage (parse_edns_from_query_pkt). */
	pos = qi->question_end;
	if(an && !skip_rr(pkt, len, &pos))
		return edns_formerr(qi);
	if(ar) {
		uint8_t ver;
		uint16_t udp, rdlen;
		if(pos < len && pkt[pos] == 0)
			pos++; /* the usual plain root owner */
		else if(!opt_owner_root(pkt, len, &pos))
			return edns_formerr(qi);
		if(len - pos < 10 || wire_rd16(pkt + pos) != TYPE_OPT)
			return edns_formerr(qi);
		udp = wire_rd16(pkt + pos + 2);
		/* pkt[pos+4] is the extended rcode: ignored in queries */
		ver = pkt[pos + 5];
		rdlen = wire_rd16(pkt + pos + 8);
		if(len - pos - 10 < rdlen)
			return edns_formerr(qi);
		/* compat: unbound-1.17: Options are not needed yet; a partial
		 * option is ignored, as Unbound does. */
		qi->has_edns = 1;
		qi->edns_version = ver;
		qi->edns_do = (pkt[pos + 6] & 0x80) != 0;
		/* as sent: harden-short-bufsize applies in the caller */
		qi->edns_udp_size = udp;
		if(ver != 0)
			return PARSE_BADVERS;
	}
	if(opcode == OPCODE_NOTIFY)
		return PARSE_REFUSED;
	return PARSE_OK;
}
