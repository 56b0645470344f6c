/* SPDX-License-Identifier: BSD-3-Clause */
/* util/edns_pad.h - EDNS(0) padding (RFC 7830) of answers to DNS over
 * TLS clients, in the block-length policy of RFC 8467: an answer is
 * padded only when the query carried the padding option, to a multiple
 * of pad-responses-block-size bytes (the DNS message, without the TCP
 * length field). Both work on wire-format messages. */
#ifndef UTIL_EDNS_PAD_H
#define UTIL_EDNS_PAD_H
#include <stddef.h>
#include <stdint.h>

#define EDNS_OPT_PADDING 12
#define EDNS_OPT_NSID 3        /* RFC 5001 */
#define EDNS_OPT_KEEPALIVE 11  /* RFC 7828 */
#define EDNS_KEEPALIVE_LEN 6   /* the option with its 2-byte timeout */

/* Does the query's OPT record hold a padding option? 0 also when the
 * message is malformed. */
int edns_query_has_padding(const uint8_t* pkt, size_t len);

/* The first option of this code in the message's OPT record: its data
 * in *data (inside pkt) and its length returned; -1: none (no OPT, a
 * malformed message or options area). (The client's ECS option for
 * subnetcache.) */
int edns_get_option(const uint8_t* pkt, size_t len, uint16_t code,
	const uint8_t** data);

/* Add a padding option to msg's OPT record so its length becomes a
 * multiple of block; returns the new length. Unchanged (len returned):
 * no OPT record, a malformed message, block < 2, or cap too small. */
size_t edns_pad_reply(uint8_t* msg, size_t len, size_t cap, size_t block);

/* Add opt (optlen bytes: code, length and data, already encoded) at the
 * end of msg's OPT record's options; returns the new length. Unchanged
 * (len returned): no OPT record, a malformed message, or cap too small.
 * (DNS cookies in replies, daemon/query_cookie.c.) */
size_t edns_add_option(uint8_t* msg, size_t len, size_t cap,
	const uint8_t* opt, size_t optlen);

#endif
