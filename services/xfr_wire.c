/* SPDX-License-Identifier: BSD-3-Clause */
/* services/xfr_wire.c - reading a zone transfer's reply stream (RFC 5936
 * AXFR, RFC 1995 IXFR) from wire form: names decompressed, records
 * checked against the zone, the stream's SOA framing followed. */
#include "config.h"
#include "services/xfr_wire.h"
#include "util/dname.h"
#include "util/msgencode.h"
#include "util/msgparse.h"
#include "util/wire_int.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TYPE_AXFR_ 252
#define TYPE_IXFR_ 251

void xfr_wire_init(struct xfr_wire* w, const uint8_t* zone, uint16_t id,
	uint16_t qtype, uint16_t qclass, uint32_t have_serial,
	size_t max_bytes)
{
	memset(w, 0, sizeof(*w));
	w->zone_len = dname_valid(zone, 256);
	memcpy(w->zone, zone, w->zone_len);
	dname_tolower(w->zone);
	w->id = id;
	w->qtype = qtype;
	w->qclass = qclass;
	w->have_serial = have_serial;
	w->max_bytes = max_bytes;
	xfr_rrs_init(&w->full);
}

void xfr_wire_clear(struct xfr_wire* w)
{
	size_t i;
	xfr_rrs_clear(&w->full);
	for(i = 0; i < w->ndiffs; i++) {
		xfr_rrs_clear(&w->diffs[i].del);
		xfr_rrs_clear(&w->diffs[i].add);
	}
	free(w->diffs);
	w->diffs = NULL;
	w->ndiffs = 0;
}

size_t xfr_wire_query(uint8_t* buf, size_t cap, const uint8_t* zone,
	size_t zone_len, uint16_t id, uint16_t qtype, uint16_t qclass,
	uint32_t have_serial)
{
	size_t n = 12;
	if(cap < 12 + zone_len + 4 + (qtype == TYPE_IXFR_ ? 2 + 10 + 22 : 0))
		return 0;
	memset(buf, 0, 12);
	wire_wr16(buf, id);
	wire_wr16(buf + 4, 1);
	memcpy(buf + n, zone, zone_len);
	n += zone_len;
	wire_wr16(buf + n, qtype);
	wire_wr16(buf + n + 2, qclass);
	n += 4;
	if(qtype == TYPE_IXFR_) {
		/* owner: a pointer to the question's name; an SOA whose
		 * names are the root: only the serial counts (RFC 1995) */
		wire_wr16(buf + 8, 1);
		buf[n++] = 0xc0;
		buf[n++] = 12;
		wire_wr16(buf + n, TYPE_SOA);
		wire_wr16(buf + n + 2, qclass);
		memset(buf + n + 4, 0, 4);
		wire_wr16(buf + n + 8, 22);
		n += 10;
		memset(buf + n, 0, 22);
		buf[n + 2] = (uint8_t)(have_serial >> 24);
		buf[n + 3] = (uint8_t)(have_serial >> 16);
		buf[n + 4] = (uint8_t)(have_serial >> 8);
		buf[n + 5] = (uint8_t)have_serial;
		n += 22;
	}
	return n;
}

/* The RDATA at msg[pos, pos+rdlen) with its RFC 1035 names uncompressed,
 * into out (cap 65535+). Its length, or 0 with *bad set. */
static size_t rdata_read(const uint8_t* msg, size_t len, size_t pos,
	uint16_t rdlen, uint16_t type, uint8_t* out, int* bad)
{
	size_t prefix, end = pos + rdlen, o = 0, i;
	int names = msg_rdata_names(type, &prefix);
	*bad = 0;
	if(names == 0) {
		memcpy(out, msg + pos, rdlen);
		return rdlen;
	}
	if(rdlen < prefix) {
		*bad = 1;
		return 0;
	}
	memcpy(out, msg + pos, prefix);
	o = prefix;
	pos += prefix;
	for(i = 0; i < (size_t)names; i++) {
		size_t n;
		if(pos >= end || !(n = dname_read_wire(msg, len, &pos,
			out + o)) || pos > end) {
			*bad = 1;
			return 0;
		}
		o += n;
	}
	memcpy(out + o, msg + pos, end - pos);
	o += end - pos;
	if(o > 65535) {
		*bad = 1;
		return 0;
	}
	return o;
}

static struct xfr_diff* diff_new(struct xfr_wire* w)
{
	struct xfr_diff* nd = realloc(w->diffs, (w->ndiffs + 1) *
		sizeof(*nd));
	if(!nd)
		return NULL;
	w->diffs = nd;
	nd = &w->diffs[w->ndiffs++];
	xfr_rrs_init(&nd->del);
	xfr_rrs_init(&nd->add);
	return nd;
}

static enum xfr_wire_state added(int ok, char* err, size_t errlen)
{
	if(ok)
		return XFR_WIRE_MORE;
	snprintf(err, errlen, "out of memory");
	return XFR_WIRE_ERROR;
}

/* One answer RR of the stream. XFR_WIRE_MORE to go on. */
static enum xfr_wire_state take_rr(struct xfr_wire* w, const uint8_t* owner,
	size_t owner_len, uint16_t type, uint16_t rclass, uint32_t ttl,
	const uint8_t* rd, uint16_t rdlen, char* err, size_t errlen)
{
	struct xfr_soa soa;
	int is_apex_soa = 0;
	struct xfr_rrs* into;
	if(w->done) {
		snprintf(err, errlen, "records after the transfer's last SOA");
		return XFR_WIRE_ERROR;
	}
	if(rclass != w->qclass) {
		snprintf(err, errlen, "record of class %u in a class %u zone",
			(unsigned)rclass, (unsigned)w->qclass);
		return XFR_WIRE_ERROR;
	}
	if(!dname_subdomain_c(owner, w->zone)) {
		snprintf(err, errlen, "record outside the zone");
		return XFR_WIRE_ERROR;
	}
	if(type == TYPE_SOA) {
		if(!xfr_soa_parse(rd, rdlen, &soa)) {
			snprintf(err, errlen, "malformed SOA record");
			return XFR_WIRE_ERROR;
		}
		is_apex_soa = query_dname_compare(owner, w->zone) == 0;
		if(!is_apex_soa) {
			snprintf(err, errlen, "SOA record below the apex");
			return XFR_WIRE_ERROR;
		}
	}
	w->rrs++;
	w->bytes += owner_len + 10 + rdlen;
	if(w->max_bytes && w->bytes > w->max_bytes) {
		snprintf(err, errlen, "transfer larger than "
			"max-transfer-size %zu", w->max_bytes);
		return XFR_WIRE_ERROR;
	}
	if(w->rrs == 1) {
		if(!is_apex_soa) {
			snprintf(err, errlen, "transfer does not start with "
				"the zone's SOA");
			return XFR_WIRE_ERROR;
		}
		w->soa = soa;
		return added(xfr_rrs_add(&w->full, owner, owner_len, type, rclass,
			ttl, rd, rdlen), err, errlen);
	}
	if(w->rrs == 2) {
		if(w->qtype == TYPE_IXFR_ && is_apex_soa) {
			/* RFC 1995 4: incremental; the first SOA is kept in
			 * full only until here */
			struct xfr_diff* d;
			xfr_rrs_clear(&w->full);
			w->kind = XFR_KIND_DIFF;
			if(soa.serial == w->soa.serial) {
				/* an empty sequence list: the same SOA
				 * twice (the zone is as we have it) */
				w->kind = XFR_KIND_UPTODATE;
				w->done = 1;
				return XFR_WIRE_DONE;
			}
			if(!(d = diff_new(w)))
				goto oom;
			w->in_add = 0;
			return added(xfr_rrs_add(&d->del, owner, owner_len, type,
				rclass, ttl, rd, rdlen), err, errlen);
		}
		w->kind = XFR_KIND_FULL;
	}
	if(w->kind == XFR_KIND_FULL) {
		if(is_apex_soa) {
			if(soa.serial != w->soa.serial) {
				snprintf(err, errlen, "the closing SOA has "
					"serial %u, the first %u",
					(unsigned)soa.serial,
					(unsigned)w->soa.serial);
				return XFR_WIRE_ERROR;
			}
			w->done = 1;
			return XFR_WIRE_DONE;
		}
		return added(xfr_rrs_add(&w->full, owner, owner_len, type, rclass,
			ttl, rd, rdlen), err, errlen);
	}
	/* XFR_KIND_DIFF */
	if(is_apex_soa) {
		if(!w->in_add) {
			w->in_add = 1;   /* the new SOA of this sequence */
		} else if(soa.serial == w->soa.serial) {
			w->done = 1;     /* the closing SOA */
			return XFR_WIRE_DONE;
		} else {
			if(!diff_new(w))
				goto oom;
			w->in_add = 0;   /* the old SOA of the next one */
		}
	}
	into = w->in_add ? &w->diffs[w->ndiffs-1].add :
		&w->diffs[w->ndiffs-1].del;
	return added(xfr_rrs_add(into, owner, owner_len, type, rclass, ttl, rd,
		rdlen), err, errlen);
oom:
	snprintf(err, errlen, "out of memory");
	return XFR_WIRE_ERROR;
}

static const char* rcode_name(int r)
{
	static const char* n[] = { "NOERROR", "FORMERR", "SERVFAIL",
		"NXDOMAIN", "NOTIMPL", "REFUSED", "YXDOMAIN", "YXRRSET",
		"NXRRSET", "NOTAUTH", "NOTZONE" };
	return r >= 0 && r <= 10 ? n[r] : "rcode";
}

enum xfr_wire_state xfr_wire_msg(struct xfr_wire* w, const uint8_t* msg,
	size_t len, char* err, size_t errlen)
{
	uint16_t flags, qd, an, i;
	size_t pos = 12;
	uint8_t name[256];
	uint8_t* rdbuf;
	enum xfr_wire_state st = XFR_WIRE_MORE;
	if(len < 12) {
		snprintf(err, errlen, "message shorter than a header");
		return XFR_WIRE_ERROR;
	}
	flags = wire_rd16(msg + 2);
	if(wire_rd16(msg) != w->id || !(flags & 0x8000)) {
		snprintf(err, errlen, "not a reply to our query (ID or QR)");
		return XFR_WIRE_ERROR;
	}
	if((flags & 0xf) != 0) {
		snprintf(err, errlen, "the primary answered %s",
			rcode_name(flags & 0xf));
		return XFR_WIRE_ERROR;
	}
	if(flags & 0x0200) {
		snprintf(err, errlen, "truncated (TC) reply");
		return XFR_WIRE_ERROR;
	}
	qd = wire_rd16(msg + 4);
	an = wire_rd16(msg + 6);
	w->msgs++;
	if(qd > 1 || (w->msgs == 1 && qd != 1)) {
		snprintf(err, errlen, "bad question count %u", (unsigned)qd);
		return XFR_WIRE_ERROR;
	}
	if(qd == 1) {
		size_t n = dname_read_wire(msg, len, &pos, name);
		if(!n || pos + 4 > len || query_dname_compare(name,
			w->zone) != 0 || wire_rd16(msg + pos) != w->qtype ||
			wire_rd16(msg + pos + 2) != w->qclass) {
			snprintf(err, errlen, "the reply's question is not "
				"ours");
			return XFR_WIRE_ERROR;
		}
		pos += 4;
	}
	if(an == 0) {
		snprintf(err, errlen, "reply without records");
		return XFR_WIRE_ERROR;
	}
	if(!(rdbuf = malloc(65535 + 256 * 2))) {
		snprintf(err, errlen, "out of memory");
		return XFR_WIRE_ERROR;
	}
	for(i = 0; i < an && st == XFR_WIRE_MORE; i++) {
		size_t n = dname_read_wire(msg, len, &pos, name), rl;
		uint16_t type, rclass, rdlen;
		uint32_t ttl;
		int bad;
		if(!n || pos + 10 > len) {
			snprintf(err, errlen, "malformed record");
			st = XFR_WIRE_ERROR;
			break;
		}
		type = wire_rd16(msg + pos);
		rclass = wire_rd16(msg + pos + 2);
		ttl = ((uint32_t)wire_rd16(msg + pos + 4) << 16) |
			wire_rd16(msg + pos + 6);
		rdlen = wire_rd16(msg + pos + 8);
		pos += 10;
		if(pos + rdlen > len) {
			snprintf(err, errlen, "record data past the message");
			st = XFR_WIRE_ERROR;
			break;
		}
		if(type == TYPE_OPT || type == TYPE_AXFR_ ||
			type == TYPE_IXFR_ || type == 250 /* TSIG */) {
			snprintf(err, errlen, "meta record of type %u in the "
				"answer", (unsigned)type);
			st = XFR_WIRE_ERROR;
			break;
		}
		rl = rdata_read(msg, len, pos, rdlen, type, rdbuf, &bad);
		if(bad) {
			snprintf(err, errlen, "malformed record data");
			st = XFR_WIRE_ERROR;
			break;
		}
		pos += rdlen;
		st = take_rr(w, name, n, type, rclass, ttl, rdbuf,
			(uint16_t)rl, err, errlen);
	}
	free(rdbuf);
	if(st == XFR_WIRE_DONE && i < an) {
		snprintf(err, errlen, "records after the transfer's last SOA");
		return XFR_WIRE_ERROR;
	}
	if(st == XFR_WIRE_MORE && w->qtype == TYPE_IXFR_ && w->rrs == 1 &&
		w->msgs == 1 && !xfr_serial_newer(w->soa.serial,
		w->have_serial)) {
		/* RFC 1995 2: the SOA alone, not newer: up to date */
		w->done = 1;
		w->kind = XFR_KIND_UPTODATE;
		xfr_rrs_clear(&w->full);
		return XFR_WIRE_DONE;
	}
	return st;
}

int xfr_wire_end(struct xfr_wire* w)
{
	if(w->done || w->qtype != TYPE_IXFR_ || w->rrs != 1)
		return 0;
	/* a newer SOA alone, then the end: ask by AXFR (RFC 1995 2) */
	w->done = 1;
	w->kind = XFR_KIND_NEED_AXFR;
	xfr_rrs_clear(&w->full);
	return 1;
}
