/* SPDX-License-Identifier: BSD-3-Clause */
/* services/xfr_rr.h - a zone's content as a list of RRs in uncompressed
 * wire form, as zone transfers (services/xfr_wire.c) produce it and a
 * consumer (auth-zone, later RPZ) builds its own form from. Also RFC 1982
 * serial arithmetic and the RFC 1995 application of an IXFR difference.
 * Never on the query path. */
#ifndef SERVICES_XFR_RR_H
#define SERVICES_XFR_RR_H
#include <stddef.h>
#include <stdint.h>

/* One RR: owner lowercased, rdata uncompressed. owner and rdata share
 * one allocation (owner first). */
struct xfr_rr {
	uint8_t* owner;
	size_t owner_len;
	uint16_t type, rclass;
	uint32_t ttl;
	uint8_t* rdata;
	uint16_t rdlen;
};

struct xfr_rrs {
	struct xfr_rr* v;
	size_t n, cap;
	size_t bytes;   /* wire size of the RRs, for limits */
};

void xfr_rrs_init(struct xfr_rrs* l);
void xfr_rrs_clear(struct xfr_rrs* l);
/* Append a copy. 0 when out of memory. */
int xfr_rrs_add(struct xfr_rrs* l, const uint8_t* owner, size_t owner_len,
	uint16_t type, uint16_t rclass, uint32_t ttl, const uint8_t* rdata,
	uint16_t rdlen);
/* A deep copy into out (initialised here). 0 when out of memory. */
int xfr_rrs_copy(struct xfr_rrs* out, const struct xfr_rrs* in);

/* The SOA fields of an SOA rdata (names uncompressed): 0 when malformed. */
struct xfr_soa {
	uint32_t serial, refresh, retry, expire, minimum;
};
int xfr_soa_parse(const uint8_t* rdata, size_t rdlen, struct xfr_soa* soa);
/* The apex SOA of zone in l (the first SOA owned by zone). 0: none. */
int xfr_rrs_soa(const struct xfr_rrs* l, const uint8_t* zone,
	struct xfr_soa* soa);

/* RFC 1982: is serial a newer than b? */
int xfr_serial_newer(uint32_t a, uint32_t b);

/* RFC 1995: apply one difference sequence to zone: remove each RR of del
 * (owner, type, class and rdata equal; one not present is an error),
 * then add each RR of add. 1 on success; 0 when a deleted RR is missing
 * (why in err) or out of memory. zone is changed only on success. A few
 * deletions keep the order of the rest; many sort it. */
int xfr_rrs_apply(struct xfr_rrs* zone, const struct xfr_rrs* del,
	const struct xfr_rrs* add, char* err, size_t errlen);

#endif
