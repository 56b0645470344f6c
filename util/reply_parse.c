/* SPDX-License-Identifier: BSD-3-Clause */
/* util/reply_parse.c - see the header. */
#include "config.h"
#include "util/reply_parse.h"
#include "util/dname.h"

#define TYPE_TSIG 250

static uint16_t rd16(const uint8_t* p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

/* The TSIG records of the additional section, counted by walking the
 * wire as far as it stays inside the packet (libldns reads up to the
 * same point before it fails, and may leak on the way). */
static int additional_tsigs(const uint8_t* w, size_t len)
{
	uint8_t name[LDNS_MAX_DOMAINLEN + 1];
	size_t pos = LDNS_HEADER_SIZE, i, before_ar, total;
	int tsigs = 0;
	if(len < LDNS_HEADER_SIZE)
		return 0;
	for(i = 0; i < rd16(w + 4); i++) {
		if(!dname_read_wire(w, len, &pos, name) || len - pos < 4)
			return 0;
		pos += 4;
	}
	before_ar = (size_t)rd16(w + 6) + rd16(w + 8);
	total = before_ar + rd16(w + 10);
	for(i = 0; i < total; i++) {
		size_t rdlen;
		if(!dname_read_wire(w, len, &pos, name) || len - pos < 10)
			return tsigs;
		if(i >= before_ar && rd16(w + pos) == TYPE_TSIG)
			tsigs++;
		rdlen = rd16(w + pos + 8);
		pos += 10;
		if(len - pos < rdlen)
			return tsigs;
		pos += rdlen;
	}
	return tsigs;
}

ldns_status reply_wire2pkt(ldns_pkt** pkt, const uint8_t* wire, size_t len)
{
	if(additional_tsigs(wire, len) > 1) {
		*pkt = NULL;
		return LDNS_STATUS_ERR;
	}
	return ldns_wire2pkt(pkt, wire, len);
}
