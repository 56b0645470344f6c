/* SPDX-License-Identifier: BSD-3-Clause */
/* util/reply_tail.c - see the header. The reply is attacker-controlled:
 * every read is bounds-checked, and whatever this reader is not sure
 * libldns reads the same way is left to reply_wire2pkt. */
#include "config.h"
#include "util/reply_tail.h"
#include "util/msgparse.h"
#include "util/wire_int.h"
#include <string.h>

size_t reply_tail_name(const uint8_t* wire, size_t len, size_t* pos,
	uint8_t* out)
{
	size_t p = *pos, n = 0, after = 0;
	size_t piece = p;   /* where the labels being read start */
	for(;;) {
		uint8_t c;
		if(p >= len)
			return 0;
		c = wire[p];
		if(c >= 0xc0) {
			size_t t;
			if(p + 2 > len)
				return 0;
			t = ((size_t)(c & 0x3f) << 8) | wire[p + 1];
			/* strictly before the piece that points: no loop
			 * can form, and every jump goes lower */
			if(t == 0 || t >= piece)
				return 0;
			if(after == 0)
				after = p + 2;
			p = piece = t;
			continue;
		}
		if(c > 63)   /* 0x40 and 0x80 label types */
			return 0;
		if(c == 0)
			break;
		/* libldns: at most 254 bytes before the root label */
		if(p + 1 + c > len || n + 1 + c > LDNS_MAX_DOMAINLEN - 1)
			return 0;
		memcpy(out + n, wire + p, (size_t)c + 1);
		n += (size_t)c + 1;
		p += (size_t)c + 1;
	}
	out[n++] = 0;
	*pos = after ? after : p + 1;
	return n;
}

/* Past the name at *pos, without reading it (a first walk only: the
 * records it passes are read by libldns, whose position is checked
 * against this one). 0 when it runs out of the reply. */
static int skip_name(const uint8_t* wire, size_t len, size_t* pos)
{
	size_t p = *pos;
	while(p < len) {
		uint8_t c = wire[p];
		if(c >= 0xc0) {
			if(p + 2 > len)
				return 0;
			*pos = p + 2;
			return 1;
		}
		if(c == 0) {
			*pos = p + 1;
			return 1;
		}
		p += (size_t)c + 1;
	}
	return 0;
}

/* Read the authority and additional records at pos into t; *opt_at the
 * OPT record's offset (0: none). 0 when a record is not one the tail
 * takes. */
static int scan_tail(const uint8_t* w, size_t len, size_t pos,
	size_t nauth, size_t nadd, struct reply_tail* t, size_t* opt_at)
{
	size_t i;
	t->nauth = t->nadd = 0;
	t->nxdomain = 0;
	*opt_at = 0;
	for(i = 0; i < nauth + nadd; i++) {
		size_t at = pos, k = t->nauth + t->nadd, rd;
		struct reply_tail_rr* r = &t->rr[k < REPLY_TAIL_MAX ? k : 0];
		uint16_t type;
		if(k >= REPLY_TAIL_MAX)
			return 0;
		if(!(r->owner_len = reply_tail_name(w, len, &pos, r->owner)) ||
			pos + 10 > len)
			return 0;
		type = wire_rd16(w + pos);
		r->type = type;
		r->rclass = wire_rd16(w + pos + 2);
		r->ttl = wire_rd32(w + pos + 4);
		r->rdlen = wire_rd16(w + pos + 8);
		rd = pos + 10;
		if(rd + r->rdlen > len)
			return 0;
		pos = rd + r->rdlen;
		if(i < nauth) {
			size_t p2 = rd;
			/* one name, exactly the rdata (libldns reads the
			 * name and goes on from its end) */
			if(type != TYPE_NS || r->rdlen == 0 ||
				!(r->target_len = reply_tail_name(w, len, &p2,
				r->target)) || p2 != pos)
				return 0;
			t->nauth++;
		} else if(type == TYPE_OPT) {
			if(*opt_at)
				return 0;
			*opt_at = at;
		} else if((type == TYPE_A && r->rdlen == 4) ||
			(type == TYPE_AAAA && r->rdlen == 16)) {
			r->rdata = w + rd;
			t->nadd++;
		} else
			return 0;
	}
	return 1;
}

/* ldns_wire2pkt's handling of an OPT record: the EDNS fields, then the
 * record freed. 0 unless libldns reads it to its RDLENGTH's end. */
static int take_opt(ldns_pkt* p, const uint8_t* w, size_t len, size_t at)
{
	ldns_rr* rr = NULL;
	size_t pos = at, end;
	uint8_t data[4];
	/* its end by RDLENGTH, found again: after the owner, 10 bytes
	 * (scan_tail read them) */
	end = at;
	if(!skip_name(w, len, &end) || end + 10 > len)
		return 0;
	if(wire_rd16(w + end + 8) == 0) {
		/* no options (nearly every reply): no rdata field, and the
		 * fields straight from the wire, not from an ldns_rr made
		 * and freed for them */
		ldns_pkt_set_edns_udp_size(p, wire_rd16(w + end + 2));
		ldns_pkt_set_edns_extended_rcode(p, w[end + 4]);
		ldns_pkt_set_edns_version(p, w[end + 5]);
		ldns_pkt_set_edns_z(p, wire_rd16(w + end + 6));
		return 1;
	}
	if(ldns_wire2rr(&rr, w, len, &pos, LDNS_SECTION_ADDITIONAL) !=
		LDNS_STATUS_OK)
		return 0;
	if(pos != end + 10 + wire_rd16(w + end + 8)) {
		ldns_rr_free(rr);
		return 0;
	}
	ldns_pkt_set_edns_udp_size(p, ldns_rr_get_class(rr));
	ldns_write_uint32(data, ldns_rr_ttl(rr));
	ldns_pkt_set_edns_extended_rcode(p, data[0]);
	ldns_pkt_set_edns_version(p, data[1]);
	ldns_pkt_set_edns_z(p, ldns_read_uint16(&data[2]));
	if(ldns_rr_rdf(rr, 0)) {
		ldns_rdf* d = ldns_rdf_clone(ldns_rr_rdf(rr, 0));
		if(!d) {
			ldns_rr_free(rr);
			return 0;
		}
		ldns_pkt_set_edns_data(p, d);
	}
	ldns_rr_free(rr);
	return 1;
}

/* The records of one section read by libldns into list. */
static int read_section(const uint8_t* w, size_t len, size_t* pos,
	size_t n, ldns_pkt_section sec, ldns_rr_list* list)
{
	size_t i;
	for(i = 0; i < n; i++) {
		ldns_rr* rr = NULL;
		if(ldns_wire2rr(&rr, w, len, pos, sec) != LDNS_STATUS_OK)
			return 0;
		if(!ldns_rr_list_push_rr(list, rr)) {
			ldns_rr_free(rr);
			return 0;
		}
	}
	return 1;
}

int reply_parse_tail(ldns_pkt** pkt, const uint8_t* w, size_t len,
	struct reply_tail* t)
{
	size_t qd, an, ns, ar, pos = LDNS_HEADER_SIZE, tail_at, opt_at, i,
		qpos;
	ldns_pkt* p;
	if(len < LDNS_HEADER_SIZE || (w[3] & 0x0f) != 0)
		return 0;
	qd = wire_rd16(w + 4);
	an = wire_rd16(w + 6);
	ns = wire_rd16(w + 8);
	ar = wire_rd16(w + 10);
	/* one question (any other count fails the scrubber's question
	 * check, on the whole-packet path) */
	if(qd != 1 || an == 0 || ns + ar > REPLY_TAIL_MAX + 1)
		return 0;
	/* a first walk to where the authority section starts */
	for(i = 0; i < qd + an; i++) {
		if(!skip_name(w, len, &pos))
			return 0;
		pos += i < qd ? 4 : 10;
		if(pos > len)
			return 0;
		if(i >= qd) {
			pos += wire_rd16(w + pos - 2);
			if(pos > len)
				return 0;
		}
	}
	tail_at = pos;
	/* the question read as libldns reads it, where this reader is
	 * sure of it (else the whole packet is parsed): its end must be
	 * where the walk put it */
	qpos = LDNS_HEADER_SIZE;
	if(!reply_tail_name(w, len, &qpos, t->qname) ||
		qpos + 4 > len)
		return 0;
	t->qtype = wire_rd16(w + qpos);
	t->qclass = wire_rd16(w + qpos + 2);
	qpos += 4;
	if(!scan_tail(w, len, tail_at, ns, ar, t, &opt_at))
		return 0;
	/* the header, question and answer as ldns_wire2pkt reads them
	 * (the flags as 0 or 1: libldns takes them as bool) */
	if(!(p = ldns_pkt_new()))
		return 0;
	ldns_pkt_set_id(p, LDNS_ID_WIRE(w));
	ldns_pkt_set_qr(p, LDNS_QR_WIRE(w) != 0);
	ldns_pkt_set_opcode(p, LDNS_OPCODE_WIRE(w));
	ldns_pkt_set_aa(p, LDNS_AA_WIRE(w) != 0);
	ldns_pkt_set_tc(p, LDNS_TC_WIRE(w) != 0);
	ldns_pkt_set_rd(p, LDNS_RD_WIRE(w) != 0);
	ldns_pkt_set_ra(p, LDNS_RA_WIRE(w) != 0);
	ldns_pkt_set_ad(p, LDNS_AD_WIRE(w) != 0);
	ldns_pkt_set_cd(p, LDNS_CD_WIRE(w) != 0);
	ldns_pkt_set_rcode(p, LDNS_RCODE_WIRE(w));
	ldns_pkt_set_qdcount(p, (uint16_t)qd);
	ldns_pkt_set_ancount(p, (uint16_t)an);
	ldns_pkt_set_nscount(p, (uint16_t)ns);
	ldns_pkt_set_arcount(p, (uint16_t)ar);
	pos = qpos;
	/* libldns must end the answer section where the walk did: else an
	 * answer record it reads short of its RDLENGTH moved the rest */
	if(!read_section(w, len, &pos, an,
		LDNS_SECTION_ANSWER, ldns_pkt_answer(p)) || pos != tail_at ||
		(opt_at && !take_opt(p, w, len, opt_at))) {
		ldns_pkt_free(p);
		return 0;
	}
	ldns_pkt_set_size(p, len);
	if(opt_at) {
		ldns_pkt_set_arcount(p, (uint16_t)(ar - 1));
		p->_edns_present = 1;
	}
	*pkt = p;
	return 1;
}
