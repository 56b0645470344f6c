/* SPDX-License-Identifier: BSD-3-Clause */
/* services/doh_req.h - the checks on one DNS-over-HTTPS request (RFC 8484)
 * that need no HTTP/2 session: the :path against http-endpoint, the
 * ?dns= parameter's base64url, the content type, and the answer's
 * Cache-Control lifetime. Pure functions, unit-tested apart from the
 * nghttp2 glue in services/doh.c. */
#ifndef SERVICES_DOH_REQ_H
#define SERVICES_DOH_REQ_H
#include <stddef.h>
#include <stdint.h>

/* The largest DNS message a request may carry. */
#define DOH_MSG_MAX 65535

enum doh_path {
	DOH_PATH_WRONG = 0,   /* not the endpoint: 404 */
	DOH_PATH_PLAIN,       /* the endpoint, nothing after it (POST) */
	DOH_PATH_QUERY        /* the endpoint, "?dns=" and the rest */
};

/* compat: unbound-1.17: Judge :path as Unbound does: it must start with
 * endpoint; anything after it must start with "?dns=", and the whole rest is
 * the parameter (*param, *param_len). */
enum doh_path doh_check_path(const char* endpoint, const uint8_t* path,
	size_t len, const uint8_t** param, size_t* param_len);

/* Decode base64url (RFC 4648 section 5; padding optional) into out
 * (outcap bytes). Returns the length, or -1 for a bad character, a
 * bad length or too little room. */
long doh_b64url_decode(const uint8_t* in, size_t len, uint8_t* out,
	size_t outcap);
/* Room decoding len characters can need. */
static inline size_t doh_b64url_room(size_t len)
{
	return len / 4 * 3 + 3;
}

/* compat: unbound-1.17: Is this content-type value the one DNS messages have?
 * (Exactly "application/dns-message", as Unbound: no parameters, lower case.)
 */
int doh_content_type_ok(const uint8_t* v, size_t len);

/* The smallest TTL of the records in the answer and authority sections
 * of a DNS reply (RFC 8484 section 5.1: the freshness lifetime must not
 * exceed it). 1 and *ttl set when there is at least one record; 0 when
 * there is none or the message does not parse. */
int doh_min_ttl(const uint8_t* pkt, size_t len, uint32_t* ttl);

#endif
