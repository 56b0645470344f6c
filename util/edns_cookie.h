/* SPDX-License-Identifier: BSD-3-Clause */
/* util/edns_cookie.h - DNS cookies (RFC 7873) with the interoperable
 * server cookie of RFC 9018: make and check a server cookie, and the
 * cookie secrets (cookie-secret, cookie-secret-file and the
 * unbound-control commands that rotate them). The query path's use of
 * these is daemon/query_cookie.c. */
#ifndef UTIL_EDNS_COOKIE_H
#define UTIL_EDNS_COOKIE_H
#include <stddef.h>
#include <stdint.h>

#define EDNS_OPT_COOKIE 10
#define COOKIE_SECRET_SIZE 16      /* 128-bit SipHash key */
#define COOKIE_CLIENT_LEN 8
#define COOKIE_FULL_LEN 24         /* client 8, version 1, reserved 3,
                                    * timestamp 4, hash 8 (RFC 9018) */
#define COOKIE_OPT_LEN (4 + COOKIE_FULL_LEN) /* as an option in a reply */
/* compat: unbound-1.21: one active secret and one staging secret
 * (UNBOUND_COOKIE_HISTORY_SIZE) */
#define COOKIE_SECRETS_MAX 2

/* The secrets a server cookie is checked against; the first makes new
 * ones. count 0: none (an empty cookie-secret-file): no cookie is made. */
struct cookie_secrets {
	int count;
	/* changes whenever the secrets may have: what a cache of checked
	 * cookies (daemon/query_cookie.c) compares */
	uint32_t gen;
	uint8_t secret[COOKIE_SECRETS_MAX][COOKIE_SECRET_SIZE];
};

/* What a received cookie option is worth. */
enum cookie_status {
	COOKIE_CLIENT_ONLY,   /* no server cookie of ours (length not 24) */
	COOKIE_INVALID,       /* wrong version or hash */
	COOKIE_EXPIRED,       /* timestamp over an hour old (RFC 9018 4.3) */
	COOKIE_FUTURE,        /* timestamp over 5 minutes ahead */
	COOKIE_VALID,         /* echo it */
	COOKIE_VALID_RENEW    /* valid, but over half an hour old or made
	                       * with a staging secret: send a fresh one */
};

/* Fill in the server cookie of c (24 bytes; the client cookie is its
 * first 8): version 1, reserved 0, the timestamp now, and SipHash-2-4
 * with secret over c[0..15] and the client's address (iplen 4 or 16). */
void edns_cookie_make(uint8_t c[COOKIE_FULL_LEN],
	const uint8_t secret[COOKIE_SECRET_SIZE], const uint8_t* ip,
	size_t iplen, uint32_t now);

/* The timestamp ts (RFC 1982 serial arithmetic) against now: COOKIE_VALID,
 * _VALID_RENEW (older than 1800 s), _EXPIRED (older than 3600 s) or
 * _FUTURE (more than 300 s ahead). */
enum cookie_status edns_cookie_age(uint32_t ts, uint32_t now);

/* Check the cookie option data c (len bytes) against one secret. */
enum cookie_status edns_cookie_check(const uint8_t* c, size_t len,
	const uint8_t secret[COOKIE_SECRET_SIZE], const uint8_t* ip,
	size_t iplen, uint32_t now);

/* compat: unbound-1.21: Check against every secret, the active one first; a
 * cookie made with a staging secret is VALID_RENEW. With no secret:
 * COOKIE_INVALID (COOKIE_CLIENT_ONLY when len is not 24). */
enum cookie_status edns_cookie_check_all(const uint8_t* c, size_t len,
	const struct cookie_secrets* s, const uint8_t* ip, size_t iplen,
	uint32_t now);

/* Parse 32 hex digits (exactly) into a secret; 0 if not that. */
int cookie_secret_from_hex(const char* hex, size_t len,
	uint8_t secret[COOKIE_SECRET_SIZE]);

/* compat: unbound-1.21: Parse the text of a cookie-secret-file: one secret a
 * line, 32 hex digits; the first line active, the second staging, later lines
 * ignored; an empty file is no secrets. NULL when it parsed, else what is
 * wrong, and *bad_line the line (from 1). */
const char* cookie_secrets_parse(const char* text, size_t len,
	struct cookie_secrets* s, int* bad_line);

/* Read fname into s. 0 on error, logged with the file's name (and the
 * line): a file that cannot be read is an error, as in Unbound. */
int cookie_secrets_read_file(const char* fname, struct cookie_secrets* s);

/* Write s to fname in the same format (the control commands keep the
 * file in step). 0 on error; errbuf gets the reason. */
int cookie_secrets_write_file(const char* fname,
	const struct cookie_secrets* s, char* errbuf, size_t errlen);

/* compat: unbound-1.21: The rotation, as unbound-control's commands: add
 * makes the secret active when there is none, else the staging one
 * (replacing the old staging one); activate swaps active and staging; drop
 * removes the staging one. 0 when there is nothing to activate or drop. */
void cookie_secrets_add(struct cookie_secrets* s,
	const uint8_t secret[COOKIE_SECRET_SIZE]);
int cookie_secrets_activate(struct cookie_secrets* s);
int cookie_secrets_drop(struct cookie_secrets* s);

/* A new value for s->gen (process-wide counter). */
uint32_t cookie_secrets_next_gen(void);

#endif
