/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/fuzz/fuzz_xfr_wire.c - a zone transfer's reply stream
 * (services/xfr_wire.c) as a primary sends it over TCP: input byte 0
 * picks AXFR (even) or IXFR (odd), bytes 1-4 the serial asked from, then
 * 2-byte-length-framed messages to the query of ID 0x1234 for
 * example.com. A complete IXFR difference is applied to a small zone
 * (services/xfr_rr.c), as the transfer thread does. Checked besides the
 * sanitizers: an error says why, a whole zone starts with its SOA. */
#include "config.h"
#include "services/xfr_wire.h"
#include "services/xfr_rr.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t ZONE[] = "\007example\003com";

/* example.com SOA serial 10 and one A record */
static void base_zone(struct xfr_rrs* z)
{
	static const uint8_t soa[] = { 3, 'n', 's', '1', 0, 4, 'h', 'o', 's',
		't', 0, 0, 0, 0, 10, 0, 0, 0, 60, 0, 0, 0, 60, 0, 0, 0, 60,
		0, 0, 0, 60 };
	static const uint8_t a[] = { 192, 0, 2, 1 };
	static const uint8_t www[] = "\003www\007example\003com";
	xfr_rrs_init(z);
	xfr_rrs_add(z, ZONE, sizeof(ZONE), 6, 1, 300, soa, sizeof(soa));
	xfr_rrs_add(z, www, sizeof(www), 1, 1, 300, a, sizeof(a));
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	struct xfr_wire w;
	char err[256];
	size_t pos = 5;
	uint32_t serial;
	enum xfr_wire_state st = XFR_WIRE_MORE;
	if(size < 5)
		return 0;
	serial = ((uint32_t)data[1] << 24) | ((uint32_t)data[2] << 16) |
		((uint32_t)data[3] << 8) | data[4];
	xfr_wire_init(&w, ZONE, 0x1234, (data[0] & 1) ? 251 : 252, 1,
		serial, (data[0] & 2) ? 4096 : 0);
	while(st == XFR_WIRE_MORE && pos + 2 <= size) {
		size_t len = ((size_t)data[pos] << 8) | data[pos+1];
		pos += 2;
		if(len > size - pos)
			len = size - pos;
		err[0] = 0;
		st = xfr_wire_msg(&w, data + pos, len, err, sizeof(err));
		pos += len;
		if(st == XFR_WIRE_ERROR && err[0] == 0)
			abort();
	}
	if(st == XFR_WIRE_MORE)
		xfr_wire_end(&w);
	if(w.done && w.kind == XFR_KIND_FULL) {
		struct xfr_soa soa;
		if(!xfr_rrs_soa(&w.full, ZONE, &soa) ||
			soa.serial != w.soa.serial)
			abort();
	}
	if(w.done && w.kind == XFR_KIND_DIFF) {
		struct xfr_rrs z;
		size_t i;
		base_zone(&z);
		for(i = 0; i < w.ndiffs; i++)
			if(!xfr_rrs_apply(&z, &w.diffs[i].del,
				&w.diffs[i].add, err, sizeof(err)))
				break;
		xfr_rrs_clear(&z);
	}
	xfr_wire_clear(&w);
	return 0;
}
