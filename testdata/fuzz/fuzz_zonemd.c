/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/fuzz/fuzz_zonemd.c - the ZONEMD check (services/zonemd.c) of
 * a zone's content as a transfer hands it over: byte 0's bit 0 is
 * zonemd-reject-absence; then records, each a name index byte (the apex
 * example.com or one of a few names under it), type (2 bytes), rdata
 * length (1 byte) and rdata. The rdata parsers (names lowercased for
 * the digest, ZONEMD fields, serials) see whatever a primary sends. A
 * check must end with a reason, and a digest computed twice must be
 * the same. */
#include "config.h"
#include "services/zonemd.h"
#include <stdlib.h>
#include <string.h>

static const uint8_t ZONE[] = "\007example\003com";
static const uint8_t* const NAMES[] = {
	ZONE,
	(const uint8_t*)"\003www\007example\003com",
	(const uint8_t*)"\001A\001b\007example\003com",
	(const uint8_t*)"\001*\001w\007example\003com",
	(const uint8_t*)"\007example\003org",   /* out of zone */
};

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	struct xfr_rrs l;
	struct zonemd_params p;
	char why[256];
	uint8_t d1[64], d2[64];
	size_t pos = 1, n1, n2;
	if(size < 1)
		return 0;
	xfr_rrs_init(&l);
	while(pos + 4 <= size && l.n < 200) {
		const uint8_t* nm = NAMES[data[pos] % 5];
		uint16_t type = (uint16_t)((data[pos+1] << 8) | data[pos+2]);
		size_t rdlen = data[pos+3];
		pos += 4;
		if(rdlen > size - pos)
			rdlen = size - pos;
		if(!xfr_rrs_add(&l, nm, strlen((const char*)nm) + 1, type, 1,
			300, data + pos, (uint16_t)rdlen))
			break;
		pos += rdlen;
	}
	memset(&p, 0, sizeof(p));
	p.reject_absence = data[0] & 1;
	why[0] = 0;
	(void)zonemd_verify(&l, ZONE, &p, why, sizeof(why));
	if(why[0] == 0)
		abort();
	n1 = zonemd_digest(&l, ZONE, ZONEMD_HASH_SHA384, d1);
	n2 = zonemd_digest(&l, ZONE, ZONEMD_HASH_SHA384, d2);
	if(n1 != n2 || memcmp(d1, d2, n1) != 0)
		abort();
	xfr_rrs_clear(&l);
	return 0;
}
