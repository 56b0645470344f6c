/* SPDX-License-Identifier: BSD-3-Clause */
/* services/xfr_zonefile.c - writing a transferred zone to its zone file
 * (off the query path, in the transfer thread). The types an RPZ or a
 * plain zone is mostly made of (A, AAAA, NS, CNAME, PTR, DNAME, SOA in
 * class IN) are written here in the text ldns_rr_print gives; the rest
 * go through ldns. At 1,000,000 records ldns's printf-based formatting
 * was most of a transfer's CPU (doc/performance.md, "Zone transfers at
 * scale"). */
#include "config.h"
#include "services/xfr_zonefile.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/wire_int.h"
#include <errno.h>
#include <arpa/inet.h>
#include <ldns/ldns.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The length of the wire name at d (at most max bytes), 0 when it does
 * not end within them, is longer than a name may be (255) or has a
 * compression pointer: left to ldns. */
static size_t name_len(const uint8_t* d, size_t max)
{
	size_t n = 0;
	while(n < max && n < 255) {
		uint8_t lab = d[n];
		if(lab == 0)
			return n + 1;
		if(lab & 0xc0)
			return 0;
		n += (size_t)lab + 1;
	}
	return 0;
}

/* The rdata of r as text into buf (space-separated fields as ldns
 * prints them); 0 for a type or class left to ldns, or rdata of a
 * length the type does not have. */
static int rdata_text(const struct xfr_rr* r, char* buf, size_t len)
{
	const uint8_t* d = r->rdata;
	size_t n;
	if(r->rclass != 1)
		return 0;
	switch(r->type) {
	case 1:   /* A */
		return r->rdlen == 4 && inet_ntop(AF_INET, d, buf,
			(socklen_t)len) != NULL;
	case 28:   /* AAAA */
		return r->rdlen == 16 && inet_ntop(AF_INET6, d, buf,
			(socklen_t)len) != NULL;
	case 2: case 5: case 12: case 39:   /* NS CNAME PTR DNAME */
		if(name_len(d, r->rdlen) != r->rdlen)
			return 0;
		dname_to_str(d, buf, len);
		return 1;
	case 6: {   /* SOA */
		size_t m1 = name_len(d, r->rdlen), m2, at;
		if(!m1 || !(m2 = name_len(d + m1, r->rdlen - m1)) ||
			m1 + m2 + 20 != r->rdlen)
			return 0;
		dname_to_str(d, buf, len);
		at = strlen(buf);
		buf[at++] = ' ';
		dname_to_str(d + m1, buf + at, len - at);
		at = strlen(buf);
		d += m1 + m2;
		n = (size_t)snprintf(buf + at, len - at, " %u %u %u %u %u",
			(unsigned)((uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 |
			(uint32_t)d[2] << 8 | d[3]),
			(unsigned)((uint32_t)d[4] << 24 | (uint32_t)d[5] << 16 |
			(uint32_t)d[6] << 8 | d[7]),
			(unsigned)((uint32_t)d[8] << 24 | (uint32_t)d[9] << 16 |
			(uint32_t)d[10] << 8 | d[11]),
			(unsigned)((uint32_t)d[12] << 24 | (uint32_t)d[13] << 16 |
			(uint32_t)d[14] << 8 | d[15]),
			(unsigned)((uint32_t)d[16] << 24 | (uint32_t)d[17] << 16 |
			(uint32_t)d[18] << 8 | d[19]));
		return n < len - at;
	}
	default:
		return 0;
	}
}

static const char* type_name(uint16_t t)
{
	switch(t) {
	case 1: return "A";
	case 2: return "NS";
	case 5: return "CNAME";
	case 6: return "SOA";
	case 12: return "PTR";
	case 28: return "AAAA";
	case 39: return "DNAME";
	default: return NULL;
	}
}

/* One RR of a common type as text on out, as ldns_rr_print writes it
 * ("owner<TAB>ttl<TAB>IN<TAB>TYPE<TAB>rdata"). -1: not one of them;
 * else 1 written, 0 a write error. */
static int write_rr_fast(FILE* out, const struct xfr_rr* r)
{
	/* a name is at most 255 wire bytes: 4 text bytes each (\DDD) */
	char owner[256 * 4 + 8], rd[2 * (256 * 4 + 8) + 64];
	const char* tn = type_name(r->type);
	if(!tn || name_len(r->owner, r->owner_len) != r->owner_len ||
		!rdata_text(r, rd, sizeof(rd)))
		return -1;
	dname_to_str(r->owner, owner, sizeof(owner));
	return fprintf(out, "%s\t%u\tIN\t%s\t%s\n", owner, (unsigned)r->ttl,
		tn, rd) > 0;
}

ldns_rr* xfr_rr_to_ldns(const struct xfr_rr* r)
{
	uint8_t buf[256 + 10 + 65535];
	size_t n = r->owner_len, pos = 0;
	ldns_rr* lr = NULL;
	memcpy(buf, r->owner, n);
	wire_wr16(buf + n, r->type);
	wire_wr16(buf + n + 2, r->rclass);
	wire_wr32(buf + n + 4, r->ttl);
	wire_wr16(buf + n + 8, r->rdlen);
	memcpy(buf + n + 10, r->rdata, r->rdlen);
	if(ldns_wire2rr(&lr, buf, n + 10 + r->rdlen, &pos,
		LDNS_SECTION_ANSWER) != LDNS_STATUS_OK)
		return NULL;
	return lr;
}

/* One RR as text on out. 0 on an error. */
static int write_rr(FILE* out, const struct xfr_rr* r)
{
	ldns_rr* lr;
	int ok = write_rr_fast(out, r);
	if(ok >= 0)
		return ok;
	if(!(lr = xfr_rr_to_ldns(r)))
		return 0;
	ldns_rr_print(out, lr);
	ok = !ferror(out);
	ldns_rr_free(lr);
	return ok;
}

int xfr_zonefile_write(const char* path, const uint8_t* zone,
	const struct xfr_rrs* content)
{
	char tmp[4096];
	FILE* out;
	size_t i;
	int ok = 1, pass;
	snprintf(tmp, sizeof(tmp), "%s.xfrtmp", path);
	if(!(out = fopen(tmp, "w"))) {
		log_err("could not open %s for writing: %s", tmp,
			strerror(errno));
		return 0;
	}
	setvbuf(out, NULL, _IOFBF, 1 << 20);
	/* the apex SOA first, then the rest in the order received */
	for(pass = 0; pass < 2 && ok; pass++)
		for(i = 0; i < content->n && ok; i++) {
			const struct xfr_rr* r = &content->v[i];
			int apex_soa = r->type == 6 &&
				query_dname_compare(r->owner, zone) == 0;
			if(apex_soa == (pass == 0))
				ok = write_rr(out, r);
		}
	if(fclose(out) != 0)
		ok = 0;
	if(!ok || rename(tmp, path) != 0) {
		log_err("could not write zone file %s: %s", path, ok ?
			strerror(errno) : "conversion or write error");
		unlink(tmp);
		return 0;
	}
	return 1;
}
