/* SPDX-License-Identifier: BSD-3-Clause */
/* util/reply_parse.h - a reply from an upstream server into an ldns_pkt,
 * with the checks libldns misses first. */
#ifndef UTIL_REPLY_PARSE_H
#define UTIL_REPLY_PARSE_H
#include <ldns/ldns.h>

/* ldns_wire2pkt for attacker-controlled replies: a reply whose
 * additional section has more than one TSIG record is parsed without
 * the additional records from the first TSIG on, because ldns_wire2pkt
 * keeps only the last TSIG and leaks the others (libldns 1.8.3). */
ldns_status reply_wire2pkt(ldns_pkt** pkt, const uint8_t* wire, size_t len);

#endif
