/* SPDX-License-Identifier: BSD-3-Clause */
/* services/reply_chase.c - a policy's CNAME and its target's reply made
 * into one reply (see the header). The target's records are copied with
 * their names written out in full (the target reply's compression
 * pointers point into that packet); base's bytes up to the end of its
 * answer section are kept as they are (their pointers point backwards,
 * into what is kept). */
#include "config.h"
#include "services/reply_chase.h"
#include "util/dname.h"
#include "util/msgencode.h"
#include "util/msgparse.h"
#include "util/wire_int.h"
#include <string.h>

#define RCODE_YXDOMAIN 6

/* Where the parts of a reply are. */
struct layout {
	uint16_t count[3];   /* an, ns, ar */
	size_t qend;         /* past the question */
	size_t an_end;       /* past the answer section */
	size_t last_an;      /* the last answer record (an > 0) */
	size_t opt_at, opt_len;
};

/* One record at *pos: its type and rdata, *pos past it; 0: malformed. */
static int next_rr(const uint8_t* p, size_t len, size_t* pos,
	uint16_t* type, size_t* rd, uint16_t* rdlen)
{
	uint8_t name[LDNS_MAX_DOMAINLEN + 1];
	if(!dname_read_wire(p, len, pos, name) || *pos + 10 > len)
		return 0;
	*type = wire_rd16(p + *pos);
	*rdlen = wire_rd16(p + *pos + 8);
	*rd = *pos + 10;
	if(*rd + *rdlen > len)
		return 0;
	*pos = *rd + *rdlen;
	return 1;
}

static int layout_of(const uint8_t* p, size_t len, struct layout* l)
{
	uint8_t name[LDNS_MAX_DOMAINLEN + 1];
	size_t pos = LDNS_HEADER_SIZE, rd;
	uint16_t type, rdlen;
	int s, i;
	memset(l, 0, sizeof(*l));
	if(len < LDNS_HEADER_SIZE || wire_rd16(p + 4) != 1)
		return 0;
	for(s = 0; s < 3; s++)
		l->count[s] = wire_rd16(p + 6 + 2 * s);
	if(!dname_read_wire(p, len, &pos, name) || pos + 4 > len)
		return 0;
	l->qend = pos += 4;
	for(s = 0; s < 3; s++) {
		for(i = 0; i < l->count[s]; i++) {
			size_t at = pos;
			if(!next_rr(p, len, &pos, &type, &rd, &rdlen))
				return 0;
			if(s == 0)
				l->last_an = at;
			if(type == TYPE_OPT) {
				l->opt_at = at;
				l->opt_len = pos - at;
			}
		}
		if(s == 0)
			l->an_end = pos;
	}
	return 1;
}

int reply_chase_target(const uint8_t* base, size_t blen, uint8_t* target,
	size_t* target_len)
{
	struct layout l;
	size_t pos, rd;
	uint16_t type, rdlen;
	if(!layout_of(base, blen, &l) || l.count[0] == 0)
		return 0;
	pos = l.last_an;
	if(!next_rr(base, blen, &pos, &type, &rd, &rdlen) ||
		type != TYPE_CNAME)
		return 0;
	*target_len = dname_read_wire(base, rd + rdlen, &rd, target);
	return *target_len != 0;
}

/* Copy the record at *pos of p to out at *o (room up to cap), its names
 * written out in full; *pos past it. 1: copied, 0: no room, -1:
 * malformed. */
static int copy_rr(const uint8_t* p, size_t len, size_t* pos, uint8_t* out,
	size_t cap, size_t* o)
{
	uint8_t name[LDNS_MAX_DOMAINLEN + 1];
	size_t nl, rd, end, prefix, q, w, rdl_at, i;
	uint16_t type, rdlen;
	int names;
	if(!(nl = dname_read_wire(p, len, pos, name)) || *pos + 10 > len)
		return -1;
	type = wire_rd16(p + *pos);
	rdlen = wire_rd16(p + *pos + 8);
	rd = *pos + 10;
	end = rd + rdlen;
	if(end > len)
		return -1;
	w = *o;
	if(w + nl + 10 > cap)
		return 0;
	memcpy(out + w, name, nl);
	w += nl;
	memcpy(out + w, p + *pos, 8);   /* type, class, TTL */
	rdl_at = w + 8;
	w += 10;
	names = msg_rdata_names(type, &prefix);
	q = rd;
	if(names && rdlen >= prefix) {
		if(w + prefix > cap)
			return 0;
		memcpy(out + w, p + rd, prefix);
		w += prefix;
		q = rd + prefix;
		for(i = 0; i < (size_t)names && q < end; i++) {
			/* a pointer may point anywhere before it */
			size_t n = dname_read_wire(p, end, &q, name);
			if(n == 0)
				return -1;
			if(w + n > cap)
				return 0;
			memcpy(out + w, name, n);
			w += n;
		}
	}
	if(q > end || w + (end - q) > cap)
		return q > end ? -1 : 0;
	memcpy(out + w, p + q, end - q);
	w += end - q;
	if(w - rdl_at - 2 > 65535)
		return -1;
	wire_wr16(out + rdl_at, (uint16_t)(w - rdl_at - 2));
	*pos = end;
	*o = w;
	return 1;
}

size_t reply_chase_merge(const uint8_t* base, size_t blen,
	const uint8_t* tgt, size_t tlen, enum reply_chase_mode mode,
	uint8_t* out, size_t cap)
{
	struct layout b, t;
	size_t o, pos, room, rd;
	uint16_t n[3], type, rdlen, tc = 0;
	uint8_t rcode;
	int s, i;
	if(!layout_of(base, blen, &b) || !layout_of(tgt, tlen, &t))
		return 0;
	rcode = tgt[3] & 0xf;
	if(mode == REPLY_CHASE_MERGE && rcode != RCODE_NOERROR &&
		rcode != RCODE_NXDOMAIN && rcode != RCODE_YXDOMAIN)
		return 0;
	/* compat: unbound-1.17: a failed alias target is its error
	 * reply, without the CNAME */
	if(mode == REPLY_CHASE_ALIAS && rcode == RCODE_SERVFAIL)
		return 0;
	if(b.an_end + b.opt_len > cap)
		return 0;
	room = cap - b.opt_len;
	memcpy(out, base, b.an_end);
	o = b.an_end;
	n[0] = b.count[0];
	n[1] = n[2] = 0;
	pos = t.qend;
	for(s = 0; s < 3; s++) {
		for(i = 0; i < t.count[s]; i++) {
			size_t at = pos;
			int r;
			if(!next_rr(tgt, tlen, &pos, &type, &rd, &rdlen))
				return 0;
			if(type == TYPE_OPT || tc ||
				(mode == REPLY_CHASE_MERGE && s > 0))
				continue;
			pos = at;
			r = copy_rr(tgt, tlen, &pos, out, room, &o);
			if(r < 0)
				return 0;
			if(r == 0) {
				/* no room: the rest left out; TC unless
				 * only additional records are */
				pos = rd + rdlen;
				if(s < 2)
					tc = 1;
				continue;
			}
			n[s]++;
		}
	}
	if(b.opt_len) {
		memcpy(out + o, base + b.opt_at, b.opt_len);
		o += b.opt_len;
	}
	if(mode == REPLY_CHASE_ALIAS) {
		/* QR, opcode, RD of the question; the rest the target's */
		out[2] = (uint8_t)((base[2] & 0xf9) | (tgt[2] & 0x06));
		out[3] = (uint8_t)((tgt[3] & 0xa0) | (base[3] & 0x10) |
			rcode);
		if(rcode == RCODE_NOERROR || rcode == RCODE_NXDOMAIN) {
			out[2] |= 0x04;             /* AA */
			out[3] &= (uint8_t)~0x20;   /* AD */
		}
	} else
		out[3] = (uint8_t)((base[3] & 0xf0 & ~0x20) | rcode);
	if(tc)
		out[2] |= 0x02;
	wire_wr16(out + 6, n[0]);
	wire_wr16(out + 8, n[1]);
	wire_wr16(out + 10, (uint16_t)(n[2] + (b.opt_len ? 1 : 0)));
	return o;
}

size_t reply_chase_servfail(const uint8_t* base, size_t blen, uint8_t* out,
	size_t cap)
{
	struct layout b;
	size_t o;
	if(!layout_of(base, blen, &b) || b.qend + b.opt_len > cap)
		return 0;
	memcpy(out, base, b.qend);
	o = b.qend;
	if(b.opt_len) {
		memcpy(out + o, base + b.opt_at, b.opt_len);
		o += b.opt_len;
	}
	out[2] = (uint8_t)(base[2] & 0xf9);   /* no AA, no TC */
	out[3] = (uint8_t)((base[3] & 0x90) | RCODE_SERVFAIL);
	wire_wr16(out + 6, 0);
	wire_wr16(out + 8, 0);
	wire_wr16(out + 10, b.opt_len ? 1 : 0);
	return o;
}
