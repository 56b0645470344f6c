/* SPDX-License-Identifier: BSD-3-Clause */
/* util/edns_cookie.c - RFC 9018 server cookies and the cookie secrets. */
#include "config.h"
#include "util/edns_cookie.h"
#include "util/siphash.h"
#include "util/log.h"
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COOKIE_VERSION 1
#define COOKIE_MAX_AGE 3600      /* RFC 9018 4.3: an hour */
#define COOKIE_RENEW_AGE 1800    /* compat: unbound-1.18: half an hour */
#define COOKIE_MAX_AHEAD 300     /* RFC 9018 4.3: five minutes */
#define COOKIE_FILE_MAX 65536    /* a secrets file is a few lines */

/* The hash of c[0..15] | ip with secret: what c[16..23] must hold. */
static void cookie_hash(const uint8_t* c, const uint8_t* secret,
	const uint8_t* ip, size_t iplen, uint8_t out[8])
{
	uint8_t in[16 + 16];
	memcpy(in, c, 16);
	memcpy(in + 16, ip, iplen);
	siphash24(secret, in, 16 + iplen, out);
}

void edns_cookie_make(uint8_t c[COOKIE_FULL_LEN],
	const uint8_t secret[COOKIE_SECRET_SIZE], const uint8_t* ip,
	size_t iplen, uint32_t now)
{
	c[8] = COOKIE_VERSION;
	c[9] = c[10] = c[11] = 0;
	c[12] = (uint8_t)(now >> 24);
	c[13] = (uint8_t)(now >> 16);
	c[14] = (uint8_t)(now >> 8);
	c[15] = (uint8_t)now;
	cookie_hash(c, secret, ip, iplen, c + 16);
}

enum cookie_status edns_cookie_age(uint32_t ts, uint32_t now)
{
	/* RFC 1982: the signed distance, now after ts when positive */
	int32_t age = (int32_t)(now - ts);
	if(age > COOKIE_MAX_AGE)
		return COOKIE_EXPIRED;
	if(age < -COOKIE_MAX_AHEAD)
		return COOKIE_FUTURE;
	return age > COOKIE_RENEW_AGE ? COOKIE_VALID_RENEW : COOKIE_VALID;
}

static uint32_t cookie_ts(const uint8_t* c)
{
	return (uint32_t)c[12] << 24 | (uint32_t)c[13] << 16 |
		(uint32_t)c[14] << 8 | c[15];
}

enum cookie_status edns_cookie_check(const uint8_t* c, size_t len,
	const uint8_t secret[COOKIE_SECRET_SIZE], const uint8_t* ip,
	size_t iplen, uint32_t now)
{
	uint8_t h[8];
	enum cookie_status age;
	if(len != COOKIE_FULL_LEN)
		return COOKIE_CLIENT_ONLY;
	if(c[8] != COOKIE_VERSION)
		return COOKIE_INVALID;
	/* compat: unbound-1.18: the time is judged before the hash */
	age = edns_cookie_age(cookie_ts(c), now);
	if(age == COOKIE_EXPIRED || age == COOKIE_FUTURE)
		return age;
	cookie_hash(c, secret, ip, iplen, h);
	if(memcmp(h, c + 16, 8) != 0)
		return COOKIE_INVALID;
	return age;
}

enum cookie_status edns_cookie_check_all(const uint8_t* c, size_t len,
	const struct cookie_secrets* s, const uint8_t* ip, size_t iplen,
	uint32_t now)
{
	enum cookie_status st, first = COOKIE_INVALID;
	int i;
	if(len != COOKIE_FULL_LEN)
		return COOKIE_CLIENT_ONLY;
	for(i = 0; i < s->count; i++) {
		st = edns_cookie_check(c, len, s->secret[i], ip, iplen, now);
		if(st == COOKIE_VALID || st == COOKIE_VALID_RENEW)
			return i == 0 ? st : COOKIE_VALID_RENEW;
		if(i == 0)
			first = st;
		if(st == COOKIE_EXPIRED || st == COOKIE_FUTURE)
			return st; /* the same for every secret */
	}
	return first;
}

static int hexval(char ch)
{
	if(ch >= '0' && ch <= '9')
		return ch - '0';
	if(ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if(ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

int cookie_secret_from_hex(const char* hex, size_t len,
	uint8_t secret[COOKIE_SECRET_SIZE])
{
	size_t i;
	if(len != 2 * COOKIE_SECRET_SIZE)
		return 0;
	for(i = 0; i < COOKIE_SECRET_SIZE; i++) {
		int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
		if(hi < 0 || lo < 0)
			return 0;
		secret[i] = (uint8_t)(hi << 4 | lo);
	}
	return 1;
}

const char* cookie_secrets_parse(const char* text, size_t len,
	struct cookie_secrets* s, int* bad_line)
{
	size_t pos = 0;
	int line = 0;
	s->count = 0;
	*bad_line = 0;
	while(pos < len && s->count < COOKIE_SECRETS_MAX) {
		const char* nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len;
		line++;
		if(!cookie_secret_from_hex(text + pos, end - pos,
			s->secret[s->count])) {
			*bad_line = line;
			s->count = 0;
			return end - pos != 2 * COOKIE_SECRET_SIZE ?
				"a secret must be 32 hex digits (128 bits) on "
				"a line of its own" : "not a hex digit";
		}
		s->count++;
		pos = end + 1;
	}
	return NULL;
}

int cookie_secrets_read_file(const char* fname, struct cookie_secrets* s)
{
	char* buf;
	size_t n;
	int line;
	const char* err;
	FILE* f = fopen(fname, "r");
	if(!f) {
		/* compat: unbound-1.21: its words */
		log_err("Could not read cookie-secret-file '%s': %s", fname,
			strerror(errno));
		return 0;
	}
	if(!(buf = malloc(COOKIE_FILE_MAX))) {
		fclose(f);
		log_err("out of memory");
		return 0;
	}
	n = fread(buf, 1, COOKIE_FILE_MAX, f);
	if(ferror(f)) {
		log_err("Could not read cookie-secret-file '%s': %s", fname,
			strerror(errno));
		fclose(f);
		free(buf);
		return 0;
	}
	fclose(f);
	err = cookie_secrets_parse(buf, n, s, &line);
	memset(buf, 0, n);
	free(buf);
	if(err) {
		log_err("cookie-secret-file '%s' line %d: %s", fname, line,
			err);
		return 0;
	}
	return 1;
}

int cookie_secrets_write_file(const char* fname,
	const struct cookie_secrets* s, char* errbuf, size_t errlen)
{
	static const char digits[] = "0123456789abcdef";
	char line[2 * COOKIE_SECRET_SIZE + 1];
	int i, j, ok;
	/* compat: unbound-1.21: rewritten in place (the file, not its
	 * directory, needs to be writable) */
	FILE* f = fopen(fname, "w");
	if(!f) {
		snprintf(errbuf, errlen, "unable to open cookie secret file "
			"%s: %s", fname, strerror(errno));
		return 0;
	}
	for(i = 0; i < s->count; i++) {
		for(j = 0; j < COOKIE_SECRET_SIZE; j++) {
			line[2 * j] = digits[s->secret[i][j] >> 4];
			line[2 * j + 1] = digits[s->secret[i][j] & 0xf];
		}
		line[2 * COOKIE_SECRET_SIZE] = '\n';
		fwrite(line, 1, sizeof(line), f);
	}
	memset(line, 0, sizeof(line));
	ok = fflush(f) == 0 && !ferror(f);
	if(fclose(f) != 0)
		ok = 0;
	if(!ok)
		snprintf(errbuf, errlen, "could not write cookie secret file "
			"%s: %s", fname, strerror(errno));
	return ok;
}

void cookie_secrets_add(struct cookie_secrets* s,
	const uint8_t secret[COOKIE_SECRET_SIZE])
{
	int at = s->count == 0 ? 0 : 1;
	memcpy(s->secret[at], secret, COOKIE_SECRET_SIZE);
	if(s->count <= at)
		s->count = at + 1;
}

int cookie_secrets_activate(struct cookie_secrets* s)
{
	uint8_t t[COOKIE_SECRET_SIZE];
	if(s->count < 2)
		return 0;
	memcpy(t, s->secret[0], sizeof(t));
	memcpy(s->secret[0], s->secret[1], sizeof(t));
	memcpy(s->secret[1], t, sizeof(t));
	memset(t, 0, sizeof(t));
	return 1;
}

int cookie_secrets_drop(struct cookie_secrets* s)
{
	if(s->count < 2)
		return 0;
	s->count--;
	memset(s->secret[s->count], 0, COOKIE_SECRET_SIZE);
	return 1;
}

uint32_t cookie_secrets_next_gen(void)
{
	static atomic_uint gen;
	return (uint32_t)atomic_fetch_add(&gen, 1) + 1;
}
