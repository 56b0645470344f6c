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
#include "util/edns_pad.h"
#include <string.h>

struct query_info;

/* The cookie side of one query. */
struct query_cookie {
	const uint8_t* opt; /* the reply's option (COOKIE_OPT_LEN bytes: code,
	                     * length, client and server cookie): made[] or,
	                     * echoed, the query's own option */
	uint8_t made[COOKIE_OPT_LEN];
	int add;      /* put opt in the reply's OPT record */
	int present;  /* the query has a well-formed cookie option */
	int valid;    /* ... with a valid server cookie of ours */
	int client_only; /* ... a client cookie alone (8 bytes) */
	/* add: opt is the cookie (else only the options of opts) */
	int has_cookie;
	int opts;        /* QUERY_OPT_* the reply gets as well */
	size_t room;     /* bytes all of them take in the reply */
};

/* Per worker: server cookies checked valid with the active secret, so
 * a client that sends its cookie again costs a compare, not a SipHash.
 * Direct-mapped by the cookie's hash bytes (a keyed hash: a client
 * cannot aim at a slot it does not own). */
#define QUERY_COOKIE_MEMO 256
struct query_cookie_seen {
	uint64_t cookie[3];  /* the 24 bytes as sent */
	uint64_t ip[2];      /* the address, zero-padded */
	uint32_t gen;        /* cookie_secrets.gen when checked; 0: empty */
};
struct query_cookie_memo {
	struct query_cookie_seen e[QUERY_COOKIE_MEMO];
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
static inline size_t query_cookie_add(uint8_t* msg, size_t len, size_t cap,
	const struct query_cookie* ck)
{
	uint8_t* o = msg + len - 11;  /* an empty OPT record's 11 bytes */
	/* the usual reply: an empty OPT record last (the cache's, the
	 * encoders'): append in place */
	if(len >= 12 + 11 && len + COOKIE_OPT_LEN <= cap &&
		(msg[10] | msg[11]) != 0 && (o[0] | o[1] | o[9] | o[10]) == 0 &&
		o[2] == 41) {
		memcpy(msg + len, ck->opt, COOKIE_OPT_LEN);
		o[10] = COOKIE_OPT_LEN;
		return len + COOKIE_OPT_LEN;
	}
	return edns_add_option(msg, len, cap, ck->opt, COOKIE_OPT_LEN);
}

#endif
