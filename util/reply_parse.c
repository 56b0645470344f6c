/* SPDX-License-Identifier: BSD-3-Clause */
/* util/reply_parse.c - see the header. */
#include "config.h"
#include "util/reply_parse.h"
#include <string.h>

#define TYPE_TSIG 250

static uint16_t rd16(const uint8_t* p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

/* The TSIG records libldns finds in the additional section, counted
 * with its own record reader (a walk by RDLENGTH would not do:
 * ldns_wire2rr goes on after the rdata fields it parsed, not after
 * RDLENGTH); the records up to the first it cannot read. */
static int additional_tsigs(const uint8_t* w, size_t len)
{
	size_t pos = LDNS_HEADER_SIZE, i, before_ar, total;
	int tsigs = 0;
	for(i = 0; i < rd16(w + 4); i++) {
		ldns_rr* rr = NULL;
		if(ldns_wire2rr(&rr, w, len, &pos, LDNS_SECTION_QUESTION)
			!= LDNS_STATUS_OK)
			return 0;
		ldns_rr_free(rr);
	}
	before_ar = (size_t)rd16(w + 6) + rd16(w + 8);
	total = before_ar + rd16(w + 10);
	for(i = 0; i < total; i++) {
		ldns_rr* rr = NULL;
		if(ldns_wire2rr(&rr, w, len, &pos, i < before_ar ?
			LDNS_SECTION_ANSWER : LDNS_SECTION_ADDITIONAL)
			!= LDNS_STATUS_OK)
			return tsigs;
		if(i >= before_ar && ldns_rr_get_type(rr) == TYPE_TSIG)
			tsigs++;
		ldns_rr_free(rr);
	}
	return tsigs;
}

ldns_status reply_wire2pkt(ldns_pkt** pkt, const uint8_t* wire, size_t len)
{
	/* a TSIG record has its type's bytes somewhere: only a reply with
	 * them (rare) is read twice */
	if(len > LDNS_HEADER_SIZE && memmem(wire + LDNS_HEADER_SIZE,
		len - LDNS_HEADER_SIZE, "\0\xfa", 2) &&
		additional_tsigs(wire, len) > 1) {
		*pkt = NULL;
		return LDNS_STATUS_ERR;
	}
	return ldns_wire2pkt(pkt, wire, len);
}
