/* SPDX-License-Identifier: BSD-3-Clause */
/* util/msgencode.c - compat: unbound-1.17: reply building with name
 * compression. Every name label written in full is remembered (offset and
 * label count), and a new name points at the longest suffix already in the
 * packet; matching is case-insensitive, as Unbound's compression tree is. */
#include "config.h"
#include "util/msgencode.h"
#include "util/wire_int.h"
#include "util/edns_pad.h"
#include <string.h>

#define PTR_MAX_OFFSET 0x3fff

static uint8_t lower(uint8_t c)
{
	return (uint8_t)((unsigned)c - 'A' < 26u ? c + 32 : c);
}

/* Is the name at off in our packet (pointers in it are our own, always
 * backward) equal to the uncompressed name n of nlen bytes? Label counts
 * are known to be equal, and buf[off] is a label length. */
static int pkt_name_equal(const struct msg_builder* b, size_t off,
	const uint8_t* n, size_t nlen)
{
	const uint8_t* buf = b->buf;
	/* fast: the same bytes in one piece (the usual repeat of a name) */
	if(off + nlen <= b->len && memcmp(buf + off, n, nlen) == 0)
		return 1;
	for(;;) {
		uint8_t lab = buf[off];
		if((lab & 0xc0) == 0xc0) {
			off = ((size_t)(lab & 0x3f) << 8) | buf[off + 1];
			continue;
		}
		if(lab != *n)
			return 0;
		if(lab == 0)
			return 1;
		off++;
		n++;
		while(lab--) {
			if(lower(buf[off++]) != lower(*n++))
				return 0;
		}
	}
}

/* Remember a literal label start at off for later pointers. */
static void remember(struct msg_builder* b, size_t off, int labs)
{
	if(off > PTR_MAX_OFFSET || b->num_ptrs >= MSGENCODE_MAX_PTRS)
		return;
	b->ptr_off[b->num_ptrs] = (uint16_t)off;
	b->ptr_labs[b->num_ptrs] = (uint8_t)labs;
	b->num_ptrs++;
}

/* Write name (uncompressed, valid) compressed at b->len, not past end.
 * Returns 0 when it does not fit. *target is where a later copy of this
 * name may point, or -1 (root, or too far into the packet). */
static int write_name(struct msg_builder* b, const uint8_t* name,
	size_t end, long* target)
{
	uint8_t loff[LDNS_MAX_DOMAINLEN / 2 + 1];
	int nlabs = 0, i, j, match = -1;
	size_t p = 0, lit;
	long ptr = -1;
	while(name[p]) {
		loff[nlabs++] = (uint8_t)p;
		p += (size_t)name[p] + 1;
	}
	/* p is now the uncompressed length minus the root byte.
	 * Longest suffix first: the first match is the best one. */
	for(i = 0; i < nlabs && match < 0; i++) {
		const uint8_t* s = name + loff[i];
		int labs = nlabs - i + 1;
		for(j = 0; j < b->num_ptrs; j++) {
			size_t off = b->ptr_off[j];
			if(b->ptr_labs[j] == labs && b->buf[off] == s[0] &&
				pkt_name_equal(b, off, s, p + 1 - loff[i])) {
				match = i;
				ptr = (long)off;
				break;
			}
		}
	}
	lit = match < 0 ? p + 1 : loff[match];
	if(end < b->len || end - b->len < lit + (match < 0 ? 0 : 2))
		return 0;
	memcpy(b->buf + b->len, name, lit);
	for(i = 0; i < (match < 0 ? nlabs : match); i++)
		remember(b, b->len + loff[i], nlabs - i + 1);
	if(match == 0)
		*target = ptr;
	else if(nlabs == 0 || b->len > PTR_MAX_OFFSET)
		*target = -1;
	else	*target = (long)b->len;
	b->len += lit;
	if(match >= 0) {
		wire_wr16(b->buf + b->len, (uint16_t)(0xc000 | ptr));
		b->len += 2;
	}
	return 1;
}

/* Where in the RDATA of an RFC 1035 type the names are: fixed bytes
 * before them and how many names. Other types are never compressed
 * (RFC 3597). Returns the number of names, 0 for none. */
int msg_rdata_names(uint16_t type, size_t* prefix)
{
	*prefix = 0;
	switch(type) {
	case TYPE_NS: case 3 /* MD */: case 4 /* MF */: case TYPE_CNAME:
	case 7 /* MB */: case 8 /* MG */: case 9 /* MR */: case TYPE_PTR:
		return 1;
	case TYPE_MX:
		*prefix = 2;
		return 1;
	case TYPE_SOA: case 14 /* MINFO */:
		return 2;
	default:
		return 0;
	}
}

/* Write one RDATA (without rdlength) at b->len; 0 if it does not fit. */
static int write_rdata(struct msg_builder* b, uint16_t type,
	const uint8_t* rd, size_t rdlen, size_t end)
{
	size_t prefix, p, i;
	int names = msg_rdata_names(type, &prefix);
	long t;
	if(names && rdlen >= prefix) {
		/* Check the whole layout first; malformed data goes raw. */
		p = prefix;
		for(i = 0; i < (size_t)names; i++) {
			size_t n = dname_valid(rd + p, rdlen - p);
			if(n == 0)
				break;
			p += n;
		}
		if(i == (size_t)names) {
			if(end - b->len < prefix)
				return 0;
			memcpy(b->buf + b->len, rd, prefix);
			b->len += prefix;
			p = prefix;
			for(i = 0; i < (size_t)names; i++) {
				if(!write_name(b, rd + p, end, &t))
					return 0;
				p += dname_valid(rd + p, rdlen - p);
			}
			rd += p;
			rdlen -= p;
		}
	}
	if(end - b->len < rdlen)
		return 0;
	memcpy(b->buf + b->len, rd, rdlen);
	b->len += rdlen;
	return 1;
}

void msg_begin(struct msg_builder* b, uint8_t* buf, size_t limit,
	const struct query_info* qi, uint16_t flags, int rcode)
{
	int withq;
	b->buf = buf;
	b->limit = limit > 65535 ? 65535 : limit;
	/* compat: unbound-1.17: as Unbound: no OPT when not even header and
	 * OPT fit (a client EDNS size that small, harden-short-bufsize: no)
	 */
	b->reserve = qi->has_edns && b->limit >= LDNS_HEADER_SIZE +
		EDNS_OPT_LEN ? EDNS_OPT_LEN : 0;
	b->counts[0] = b->counts[1] = b->counts[2] = 0;
	b->truncated = 0;
	b->section = SEC_ANSWER;
	b->num_ptrs = 0;
	b->full = 0;
	b->closed_sets = 0;
	b->rotate = 0;
	b->rot_off = 0;
	/* compat: unbound-1.17: A limit too small for the question
	 * (harden-short-bufsize: no): no records, TC=1 when a question was
	 * left out, as Unbound. */
	withq = qi->qname_len != 0 && LDNS_HEADER_SIZE + qi->qname_len + 4 +
		b->reserve <= b->limit;
	if(b->limit < LDNS_HEADER_SIZE + qi->qname_len + 4 + b->reserve) {
		b->full = 1;
		b->truncated = qi->qname_len != 0;
	}
	wire_wr16(buf, qi->id);
	wire_wr16(buf + 2, (uint16_t)(FLAG_QR | (qi->flags & (0x7800 | FLAG_RD |
		FLAG_CD)) | flags | (rcode & 0xf)));
	wire_wr16(buf + 4, (uint16_t)withq);
	memset(buf + 6, 0, 6);
	b->len = LDNS_HEADER_SIZE;
	if(withq) {
		/* nothing to compress against yet: copy, remember labels */
		size_t p = 0;
		int labs = dname_count_labels(qi->qname);
		memcpy(buf + LDNS_HEADER_SIZE, qi->qname, qi->qname_len);
		while(qi->qname[p]) {
			remember(b, LDNS_HEADER_SIZE + p, labs--);
			p += (size_t)qi->qname[p] + 1;
		}
		b->len += qi->qname_len;
		wire_wr16(buf + b->len, qi->qtype);
		wire_wr16(buf + b->len + 2, qi->qclass);
		b->len += 4;
	}
}

int msg_add_rrset(struct msg_builder* b, enum msg_section sec,
	const struct packed_rrset* rrset)
{
	size_t start = b->len, end = b->limit - b->reserve, i, j, rdpos;
	size_t rot = 0;
	int np = b->num_ptrs;
	int closed = b->closed_sets && rrset->count > 1;
	long owner = -1;
	if(b->rotate && rrset->count > 1 && rrset->type != TYPE_RRSIG)
		rot = b->rot_off % rrset->count;
	if(b->full || (int)sec < b->section || sec > SEC_ADDITIONAL)
		return 0;
	b->section = (int)sec;
	if(rrset->count > 65535u - b->counts[sec])
		goto overflow;
	for(i = 0; i < rrset->count; i++) {
		j = i + rot < rrset->count ? i + rot : i + rot - rrset->count;
		if(i > 0 && owner >= 0 && (!closed || (size_t)owner < start)) {
			if(end - b->len < 2)
				goto overflow;
			wire_wr16(b->buf + b->len, (uint16_t)(0xc000 | owner));
			b->len += 2;
		} else if(!write_name(b, rrset->owner, end, &owner))
			goto overflow;
		if(end - b->len < 10)
			goto overflow;
		wire_wr16(b->buf + b->len, rrset->type);
		wire_wr16(b->buf + b->len + 2, rrset->rclass);
		wire_wr32(b->buf + b->len + 4, rrset->ttl);
		rdpos = b->len + 8;
		b->len += 10;
		if(!write_rdata(b, rrset->type, rrset->rdata[j], rrset->rdlen[j],
			end))
			goto overflow;
		wire_wr16(b->buf + rdpos, (uint16_t)(b->len - rdpos - 2));
		if(closed)
			b->num_ptrs = np;  /* nothing in it is a target */
	}
	b->counts[sec] += (uint16_t)rrset->count;
	return 1;
overflow:
	/* Leave the RRset out whole, and the names it added. */
	b->len = start;
	b->num_ptrs = np;
	b->full = 1;
	if(sec != SEC_ADDITIONAL)
		b->truncated = 1;
	return 0;
}

size_t msg_finish(struct msg_builder* b, const struct query_info* qi,
	uint16_t edns_size, int rcode)
{
	uint8_t* buf = b->buf;
	wire_wr16(buf + 6, b->counts[0]);
	wire_wr16(buf + 8, b->counts[1]);
	wire_wr16(buf + 10, (uint16_t)(b->counts[2] + (b->reserve ? 1 : 0)));
	buf[3] = (uint8_t)((buf[3] & 0xf0) | (rcode & 0xf));
	if(b->truncated)
		buf[2] |= FLAG_TC >> 8;
	if(b->reserve) {
		/* room was reserved in msg_begin */
		uint8_t* o = buf + b->len;
		o[0] = 0;
		wire_wr16(o + 1, TYPE_OPT);
		wire_wr16(o + 3, edns_size);
		o[5] = (uint8_t)((rcode >> 4) & 0xff);
		o[6] = 0; /* version */
		o[7] = qi->edns_do ? 0x80 : 0;
		o[8] = 0;
		wire_wr16(o + 9, 0);
		b->len += EDNS_OPT_LEN;
	}
	return b->len;
}

size_t msg_error_reply(uint8_t* buf, size_t limit, const struct query_info* qi,
	int rcode, uint16_t edns_size)
{
	struct msg_builder b;
	if(qi->echo_rcode != 0 && rcode == qi->echo_rcode && qi->pkt &&
		qi->pkt_len >= LDNS_HEADER_SIZE && qi->pkt_len <= limit) {
		memmove(buf, qi->pkt, qi->pkt_len);
		buf[2] = (uint8_t)((buf[2] | (FLAG_QR >> 8)) & ~(FLAG_TC >> 8));
		buf[3] = (uint8_t)((buf[3] & 0xf0) | (rcode & 0xf));
		return qi->pkt_len;
	}
	msg_begin(&b, buf, limit, qi, FLAG_RA, rcode);
	return msg_finish(&b, qi, edns_size, rcode);
}

size_t msg_error_reply_ede(uint8_t* buf, size_t limit,
	const struct query_info* qi, int rcode, uint16_t edns_size,
	int ede_code, const char* text)
{
	struct msg_builder b;
	size_t len, tlen = text ? strlen(text) : 0, room;
	if(ede_code < 0 || !qi->has_edns || (qi->echo_rcode != 0 &&
		rcode == qi->echo_rcode))
		return msg_error_reply(buf, limit, qi, rcode, edns_size);
	msg_begin(&b, buf, limit, qi, FLAG_RA, rcode);
	if(!b.reserve || b.full)
		return msg_finish(&b, qi, edns_size, rcode);
	len = msg_finish(&b, qi, edns_size, rcode);
	/* the option: code 15, length, INFO-CODE, EXTRA-TEXT */
	room = b.limit > len ? b.limit - len : 0;
	if(room < 6)
		return len;
	if(tlen > room - 6)
		tlen = room - 6;
	wire_wr16(buf + len, EDNS_OPT_EDE);
	wire_wr16(buf + len + 2, (uint16_t)(2 + tlen));
	wire_wr16(buf + len + 4, (uint16_t)ede_code);
	if(tlen)
		memcpy(buf + len + 6, text, tlen);
	wire_wr16(buf + len - 2, (uint16_t)(6 + tlen)); /* the OPT's RDLENGTH */
	return len + 6 + tlen;
}

size_t msg_refuse_reply(uint8_t* buf, size_t limit,
	const struct query_info* qi)
{
	uint16_t f = (uint16_t)(((qi->flags | FLAG_QR) & ~FLAG_TC & ~0xf) |
		RCODE_REFUSED);
	if(limit < LDNS_HEADER_SIZE)
		return 0;
	wire_wr16(buf, qi->id);
	wire_wr16(buf + 2, f);
	memset(buf + 4, 0, 8);
	return LDNS_HEADER_SIZE;
}

size_t msg_refuse_reply_ede(uint8_t* buf, size_t limit,
	const struct query_info* qi, uint16_t edns_size, int ede_code)
{
	size_t len;
	if(!qi->has_edns || ede_code < 0)
		return msg_refuse_reply(buf, limit, qi);
	len = msg_error_reply_ede(buf, limit, qi, RCODE_REFUSED, edns_size,
		ede_code, NULL);
	if(len >= LDNS_HEADER_SIZE)
		wire_wr16(buf + 2, (uint16_t)(((qi->flags | FLAG_QR) &
			~FLAG_TC & ~0xf) | RCODE_REFUSED));
	return len;
}

size_t msg_add_ede(uint8_t* msg, size_t len, size_t cap, uint16_t code)
{
	uint8_t opt[6];
	wire_wr16(opt, EDNS_OPT_EDE);
	wire_wr16(opt + 2, 2);
	wire_wr16(opt + 4, code);
	return edns_add_option(msg, len, cap, opt, sizeof(opt));
}
