/* SPDX-License-Identifier: BSD-3-Clause */
/* services/xfr_wire.h - the reply stream of a zone transfer (AXFR, RFC
 * 5936; IXFR, RFC 1995) read from wire form, message by message, into
 * the zone's new content (AXFR, or an IXFR answered with the whole zone)
 * or its difference sequences (IXFR). Outside input: every message is
 * checked, and a bad one ends the transfer with the reason in words.
 * fuzz: testdata/fuzz/fuzz_xfr_wire.c. */
#ifndef SERVICES_XFR_WIRE_H
#define SERVICES_XFR_WIRE_H
#include "services/xfr_rr.h"
#include <stddef.h>
#include <stdint.h>

enum xfr_wire_state {
	XFR_WIRE_MORE = 0,   /* the transfer goes on: read the next message */
	XFR_WIRE_DONE,       /* complete: see kind */
	XFR_WIRE_ERROR       /* a bad message or transfer: err says why */
};

enum xfr_wire_kind {
	XFR_KIND_NONE = 0,   /* not decided yet */
	XFR_KIND_FULL,       /* the whole zone in full (AXFR or IXFR) */
	XFR_KIND_DIFF,       /* IXFR difference sequences in diffs */
	XFR_KIND_UPTODATE,   /* IXFR: the one SOA, serial not newer */
	XFR_KIND_NEED_AXFR   /* IXFR: the one SOA, newer: ask for AXFR */
};

/* One IXFR difference sequence: RRs deleted, then RRs added (the SOAs
 * included, as the zone's own records). */
struct xfr_diff {
	struct xfr_rrs del, add;
};

struct xfr_wire {
	/* the request */
	uint8_t zone[256];
	size_t zone_len;
	uint16_t id, qtype, qclass;
	uint32_t have_serial;    /* IXFR: the serial asked from */
	size_t max_bytes;        /* 0: no limit on the RRs' wire size */
	/* the result */
	enum xfr_wire_kind kind;
	struct xfr_soa soa;      /* the new SOA (first RR) */
	struct xfr_rrs full;     /* XFR_KIND_FULL: the zone */
	struct xfr_diff* diffs;  /* XFR_KIND_DIFF */
	size_t ndiffs;
	/* progress */
	size_t msgs, rrs, bytes;
	int in_add;              /* DIFF: reading the additions */
	int done;
};

/* Start reading a transfer of zone (wire name) for question qtype (AXFR
 * or IXFR, have_serial its base) sent with id. */
void xfr_wire_init(struct xfr_wire* w, const uint8_t* zone, uint16_t id,
	uint16_t qtype, uint16_t qclass, uint32_t have_serial,
	size_t max_bytes);
void xfr_wire_clear(struct xfr_wire* w);
/* One reply message of the stream. err (errlen bytes) says why on
 * XFR_WIRE_ERROR. */
enum xfr_wire_state xfr_wire_msg(struct xfr_wire* w, const uint8_t* msg,
	size_t len, char* err, size_t errlen);
/* The stream ended (the primary closed) before XFR_WIRE_DONE: 1 when
 * that completes it (an IXFR answered by a newer SOA alone: kind is
 * XFR_KIND_NEED_AXFR), 0 when the transfer is cut short. */
int xfr_wire_end(struct xfr_wire* w);
/* The query to send: into buf (at least 512 bytes); its length. An IXFR
 * query carries the zone's SOA with have_serial in its authority
 * section (RFC 1995 3). */
size_t xfr_wire_query(uint8_t* buf, size_t cap, const uint8_t* zone,
	size_t zone_len, uint16_t id, uint16_t qtype, uint16_t qclass,
	uint32_t have_serial);

#endif
