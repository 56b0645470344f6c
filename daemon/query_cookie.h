/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/query_cookie.h - DNS cookies on the query path (answer-cookie,
 * access-control allow_cookie): read the query's cookie option, judge
 * it against the secrets, and the cookie for the reply's OPT record.
 * Called only when cookies are configured (answer-cookie: yes, or the
 * client's access-control action is allow_cookie). */
#ifndef DAEMON_QUERY_COOKIE_H
#define DAEMON_QUERY_COOKIE_H
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include "util/edns_cookie.h"

struct query_info;

/* The cookie side of one query. */
struct query_cookie {
	uint8_t opt[COOKIE_OPT_LEN]; /* the reply's option: code, length,
	                              * client and server cookie */
	int add;      /* put opt in the reply's OPT record */
	int present;  /* the query has a well-formed cookie option */
	int valid;    /* ... with a valid server cookie of ours */
};

/* Per worker: server cookies checked valid with the active secret, so
 * a client that sends its cookie again costs a compare, not a SipHash.
 * Direct-mapped by the cookie's hash bytes (a keyed hash: a client
 * cannot aim at a slot it does not own). */
#define QUERY_COOKIE_MEMO 256
struct query_cookie_memo {
	struct {
		uint8_t cookie[COOKIE_FULL_LEN];
		uint8_t ip[16];
		uint32_t gen;    /* cookie_secrets.gen when checked; 0: empty */
		uint32_t iplen;
	} e[QUERY_COOKIE_MEMO];
};

/* What the query's cookie means for it. */
enum query_cookie_verdict {
	QUERY_COOKIE_GO_ON,   /* answer; ck says what the reply carries */
	QUERY_COOKIE_FORMERR  /* malformed cookie option: FORMERR */
};

/* compat: unbound-1.21: Read qi's first cookie option (answer-cookie on):
 * length not 8 and not 16..40: FORMERR; a valid server cookie is echoed
 * (a fresh one when it is over half an hour old or made with the staging
 * secret), anything else gets a fresh one, made with the active secret
 * (none without secrets). addr is the client's. memo may be NULL. */
enum query_cookie_verdict query_cookie_read(struct query_cookie_memo* memo,
	const struct cookie_secrets* s, const struct query_info* qi,
	const struct sockaddr_storage* addr, uint32_t now,
	struct query_cookie* ck);

/* Add ck's option to the OPT record of the reply msg (len bytes, room for
 * cap); returns the new length (len when there is no OPT or no room). */
size_t query_cookie_add(uint8_t* msg, size_t len, size_t cap,
	const struct query_cookie* ck);

#endif
