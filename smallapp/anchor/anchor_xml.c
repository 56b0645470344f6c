/* SPDX-License-Identifier: BSD-3-Clause */
/* smallapp/anchor/anchor_xml.c - root-anchors.xml (RFC 7958) to DS
 * records, with expat. Only the KeyDigest elements whose validFrom /
 * validUntil include the present time are kept. */
#include "config.h"
#include "smallapp/anchor/anchor_xml.h"
#include "smallapp/anchor/anchor_file.h"
#include <ctype.h>
#include <expat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* bounds: the real file is 1.5 KB with a few keys */
#define FIELD_MAX 1024
#define OUT_MAX (64 * 1024)

enum field { F_NONE, F_ZONE, F_TAG, F_ALG, F_DTYPE, F_DIGEST, F_COUNT };

struct xml_state {
	XML_Parser parser;
	time_t now;
	enum field cur;         /* element whose text is being read */
	int in_key;             /* inside a KeyDigest */
	int use_key;            /* that KeyDigest is valid now */
	char val[F_COUNT][FIELD_MAX];
	size_t vlen[F_COUNT];
	char* out;
	size_t outlen;
	int nkeys;
	const char* error;      /* first error; parsing stops */
};

static void fail(struct xml_state* st, const char* msg)
{
	if(!st->error)
		st->error = msg;
	XML_StopParser(st->parser, XML_FALSE);
}

time_t anchor_xml_date(const char* s)
{
	struct tm tm;
	int y, mo, d, h, mi, sec, n = 0;
	long off = 0;
	time_t t;
	while(isspace((unsigned char)*s))
		s++;
	if(sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi,
		&sec, &n) != 6 || n == 0)
		return 0;
	s += n;
	if(*s == '.') {
		s++;
		while(isdigit((unsigned char)*s))
			s++;
	}
	if(*s == '+' || *s == '-') {
		int oh, om;
		char sign = *s;
		if(sscanf(s + 1, "%2d:%2d%n", &oh, &om, &n) != 2)
			return 0;
		off = (long)oh * 3600 + (long)om * 60;
		if(sign == '-')
			off = -off;
		s += 1 + n;
	} else if(*s == 'Z' || *s == 'z') {
		s++;
	}
	while(isspace((unsigned char)*s))
		s++;
	if(*s || y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31 ||
		h > 23 || mi > 59 || sec > 60)
		return 0;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	t = timegm(&tm);
	if(t == (time_t)-1)
		return 0;
	return t - off;
}

static const char* attr(const XML_Char** atts, const char* name)
{
	for(int i = 0; atts[i]; i += 2)
		if(strcasecmp(atts[i], name) == 0)
			return atts[i + 1];
	return NULL;
}

static enum field field_of(const char* name)
{
	if(strcasecmp(name, "Zone") == 0) return F_ZONE;
	if(strcasecmp(name, "KeyTag") == 0) return F_TAG;
	if(strcasecmp(name, "Algorithm") == 0) return F_ALG;
	if(strcasecmp(name, "DigestType") == 0) return F_DTYPE;
	if(strcasecmp(name, "Digest") == 0) return F_DIGEST;
	return F_NONE;
}

static void start_keydigest(struct xml_state* st, const XML_Char** atts)
{
	const char* from = attr(atts, "validFrom");
	const char* until = attr(atts, "validUntil");
	st->in_key = 1;
	st->use_key = 1;
	for(int f = F_TAG; f < F_COUNT; f++)
		st->vlen[f] = 0;
	if(from) {
		time_t t = anchor_xml_date(from);
		if(!t) { fail(st, "bad validFrom date"); return; }
		if(st->now < t) st->use_key = 0;
	}
	if(until) {
		time_t t = anchor_xml_date(until);
		if(!t) { fail(st, "bad validUntil date"); return; }
		if(st->now > t) st->use_key = 0;
	}
}

static void XMLCALL on_start(void* ud, const XML_Char* name,
	const XML_Char** atts)
{
	struct xml_state* st = ud;
	enum field f;
	if(strcasecmp(name, "KeyDigest") == 0) {
		start_keydigest(st, atts);
		return;
	}
	f = field_of(name);
	if(f == F_ZONE || (f != F_NONE && st->in_key)) {
		st->cur = f;
		st->vlen[f] = 0;
	}
}

/* the text of a field without surrounding white space */
static const char* trimmed(struct xml_state* st, enum field f, size_t* n)
{
	const char* s = st->val[f];
	size_t len = st->vlen[f];
	while(len && isspace((unsigned char)*s)) { s++; len--; }
	while(len && isspace((unsigned char)s[len - 1])) len--;
	*n = len;
	return s;
}

/* A number field (KeyTag, Algorithm, DigestType) up to max, or with
 * max 0 the Digest: hex digits, whole bytes. ldns would read a larger
 * number wrapped and an odd digit count padded, a DS other than the
 * XML's (found by fuzz_anchor_xml). */
static int field_ok(const char* s, size_t n, unsigned long max)
{
	unsigned long v = 0;
	if(n == 0)
		return 0;
	if(max == 0) {
		for(size_t i = 0; i < n; i++)
			if(!isxdigit((unsigned char)s[i]))
				return 0;
		return n % 2 == 0;
	}
	for(size_t i = 0; i < n; i++) {
		if(!isdigit((unsigned char)s[i]))
			return 0;
		v = v * 10 + (unsigned long)(s[i] - '0');
		if(v > max)
			return 0;
	}
	return 1;
}

static void append_ds(struct xml_state* st)
{
	size_t n[F_COUNT];
	const char* v[F_COUNT];
	char line[FIELD_MAX * 4 + 32];
	int len;
	for(int f = F_TAG; f < F_COUNT; f++)
		v[f] = trimmed(st, f, &n[f]);
	if(!field_ok(v[F_TAG], n[F_TAG], 65535) ||
		!field_ok(v[F_ALG], n[F_ALG], 255) ||
		!field_ok(v[F_DTYPE], n[F_DTYPE], 255) ||
		!field_ok(v[F_DIGEST], n[F_DIGEST], 0)) {
		fail(st, "a KeyDigest with a missing or malformed field");
		return;
	}
	len = snprintf(line, sizeof(line), ". IN DS %.*s %.*s %.*s %.*s\n",
		(int)n[F_TAG], v[F_TAG], (int)n[F_ALG], v[F_ALG],
		(int)n[F_DTYPE], v[F_DTYPE], (int)n[F_DIGEST], v[F_DIGEST]);
	if(len < 0 || st->outlen + (size_t)len >= OUT_MAX) {
		fail(st, "too many keys");
		return;
	}
	memcpy(st->out + st->outlen, line, (size_t)len + 1);
	st->outlen += (size_t)len;
	st->nkeys++;
}

static void XMLCALL on_end(void* ud, const XML_Char* name)
{
	struct xml_state* st = ud;
	st->cur = F_NONE;
	if(strcasecmp(name, "KeyDigest") == 0) {
		if(st->use_key)
			append_ds(st);
		st->in_key = 0;
		st->use_key = 0;
	} else if(strcasecmp(name, "Zone") == 0) {
		size_t n;
		const char* z = trimmed(st, F_ZONE, &n);
		if(n != 1 || z[0] != '.')
			fail(st, "the xml is not for the root zone");
	}
}

static void XMLCALL on_text(void* ud, const XML_Char* s, int len)
{
	struct xml_state* st = ud;
	if(st->cur == F_NONE || len <= 0)
		return;
	if(st->vlen[st->cur] + (size_t)len >= FIELD_MAX) {
		fail(st, "an element's text is too long");
		return;
	}
	memcpy(st->val[st->cur] + st->vlen[st->cur], s, (size_t)len);
	st->vlen[st->cur] += (size_t)len;
}

/* No entity declarations: they are how XML bombs are made. */
static void XMLCALL on_entity(void* ud, const XML_Char* name, int pe,
	const XML_Char* value, int vlen, const XML_Char* base,
	const XML_Char* sysid, const XML_Char* pubid, const XML_Char* notation)
{
	(void)name; (void)pe; (void)value; (void)vlen; (void)base;
	(void)sysid; (void)pubid; (void)notation;
	fail(ud, "the xml declares entities");
}

char* anchor_xml_to_ds(const char* xml, size_t len, time_t now, int* nkeys)
{
	struct xml_state* st = calloc(1, sizeof(*st));
	char* out = NULL;
	int ok;
	if(!st || !(st->out = malloc(OUT_MAX)) ||
		!(st->parser = XML_ParserCreate(NULL))) {
		fprintf(stderr, "error: out of memory\n");
		goto done;
	}
	st->now = now;
	st->outlen = (size_t)snprintf(st->out, OUT_MAX,
		"; created by unbound-anchor on %s", ctime(&now));
	XML_SetUserData(st->parser, st);
	XML_SetElementHandler(st->parser, on_start, on_end);
	XML_SetCharacterDataHandler(st->parser, on_text);
	XML_SetEntityDeclHandler(st->parser, on_entity);
	ok = XML_Parse(st->parser, xml, (int)len, 1) == XML_STATUS_OK;
	if(st->error) {
		fprintf(stderr, "error: root-anchors.xml: %s\n", st->error);
		goto done;
	}
	if(!ok) {
		fprintf(stderr, "error: root-anchors.xml: line %lu: %s\n",
			(unsigned long)XML_GetCurrentLineNumber(st->parser),
			XML_ErrorString(XML_GetErrorCode(st->parser)));
		goto done;
	}
	if(anchor_verb)
		printf("XML was parsed successfully, %d keys\n", st->nkeys);
	*nkeys = st->nkeys;
	out = st->out;
	st->out = NULL;
done:
	if(st) {
		if(st->parser)
			XML_ParserFree(st->parser);
		free(st->out);
		free(st);
	}
	return out;
}
