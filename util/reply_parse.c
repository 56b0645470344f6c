/* SPDX-License-Identifier: BSD-3-Clause */
/* util/reply_parse.c - see the header. */
#include "config.h"
#include "util/reply_parse.h"
#include "util/wire_int.h"
#include <stdlib.h>
#include <string.h>

#define TYPE_TSIG 250

/* Where the TSIG records libldns finds in the additional section are,
 * counted with its own record reader (a walk by RDLENGTH would not do:
 * ldns_wire2rr goes on after the rdata fields it parsed, not after
 * RDLENGTH); the records up to the first it cannot read (complete: none
 * such). first_at and first_idx: the first TSIG's offset and its index
 * in the additional section. */
struct tsig_scan {
	int count, complete;
	size_t first_at, first_idx;
};

static void scan_tsigs(const uint8_t* w, size_t len, struct tsig_scan* t)
{
	size_t pos = LDNS_HEADER_SIZE, i, before_ar, total;
	memset(t, 0, sizeof(*t));
	for(i = 0; i < wire_rd16(w + 4); i++) {
		ldns_rr* rr = NULL;
		if(ldns_wire2rr(&rr, w, len, &pos, LDNS_SECTION_QUESTION)
			!= LDNS_STATUS_OK)
			return;
		ldns_rr_free(rr);
	}
	before_ar = (size_t)wire_rd16(w + 6) + wire_rd16(w + 8);
	total = before_ar + wire_rd16(w + 10);
	for(i = 0; i < total; i++) {
		ldns_rr* rr = NULL;
		size_t at = pos;
		if(ldns_wire2rr(&rr, w, len, &pos, i < before_ar ?
			LDNS_SECTION_ANSWER : LDNS_SECTION_ADDITIONAL)
			!= LDNS_STATUS_OK)
			return;
		if(i >= before_ar && ldns_rr_get_type(rr) == TYPE_TSIG &&
			t->count++ == 0) {
			t->first_at = at;
			t->first_idx = i - before_ar;
		}
		ldns_rr_free(rr);
	}
	t->complete = 1;
}

/* Do the bytes 0x00 0xfa (TSIG's type) occur in p? memchr for the rare
 * 0xfa is a few instructions a reply; glibc's memmem for a two-byte
 * needle was about 700 (a sixtieth of a cache miss). */
static int has_tsig_type(const uint8_t* p, size_t len)
{
	const uint8_t* end = p + len, *q = p + 1;
	while(q < end && (q = memchr(q, 0xfa, (size_t)(end - q))) != NULL) {
		if(q[-1] == 0)
			return 1;
		q++;
	}
	return 0;
}

ldns_status reply_wire2pkt(ldns_pkt** pkt, const uint8_t* wire, size_t len)
{
	struct tsig_scan t;
	uint8_t* cut;
	ldns_status s;
	/* a TSIG record has its type's bytes somewhere: only a reply with
	 * them (rare) is read twice */
	if(len <= LDNS_HEADER_SIZE || !has_tsig_type(wire + LDNS_HEADER_SIZE,
		len - LDNS_HEADER_SIZE))
		return ldns_wire2pkt(pkt, wire, len);
	scan_tsigs(wire, len, &t);
	if(t.count < 2)
		return ldns_wire2pkt(pkt, wire, len);
	if(!t.complete) {   /* malformed anyway: refused */
		*pkt = NULL;
		return LDNS_STATUS_ERR;
	}
	/* compat: unbound-1.17: the reply is used, as Unbound (which does
	 * not verify TSIG) uses it: parsed without the additional records
	 * from the first TSIG on (the TSIG belongs last; what follows is
	 * glue at most, asked for again when needed) */
	if(!(cut = malloc(t.first_at))) {
		*pkt = NULL;
		return LDNS_STATUS_MEM_ERR;
	}
	memcpy(cut, wire, t.first_at);
	cut[10] = (uint8_t)(t.first_idx >> 8);
	cut[11] = (uint8_t)t.first_idx;
	s = ldns_wire2pkt(pkt, cut, t.first_at);
	free(cut);
	return s;
}
