/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/prom_http.c - request classification and response heads for
 * the Prometheus endpoint (RFC 9112 message syntax, strictly: anything
 * unexpected is a 400, since a scraper never sends it). */
#include "config.h"
#include "daemon/prom_http.h"
#include "daemon/stats.h"
#include <string.h>

#define PROM_METHOD_MAX 32

/* RFC 9110 token characters */
static int is_tchar(unsigned char c)
{
	if((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
		(c >= 'A' && c <= 'Z'))
		return 1;
	return c && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

/* A byte that may appear inside a line: visible, space, tab, or
 * obs-text; never another control character. */
static int is_line_char(unsigned char c)
{
	return c == ' ' || c == '\t' || (c > 0x20 && c != 0x7f);
}

/* The request line [s, e): the verdict if the head turns out to be
 * complete and well formed, or PROM_REQ_BAD. */
static enum prom_req request_line(const char* s, const char* e)
{
	const char* m = s, *t, *v, *q;
	size_t mlen, plen;
	int get, head;
	while(m < e && is_tchar((unsigned char)*m))
		m++;
	mlen = (size_t)(m - s);
	if(mlen == 0 || mlen > PROM_METHOD_MAX || m >= e || *m != ' ')
		return PROM_REQ_BAD;
	t = m + 1;
	v = t;
	while(v < e && (unsigned char)*v > 0x20 && *v != 0x7f)
		v++;
	if(v == t || *t != '/' || v >= e || *v != ' ')
		return PROM_REQ_BAD;
	v++;
	if(e - v != 8 || (memcmp(v, "HTTP/1.1", 8) != 0 &&
		memcmp(v, "HTTP/1.0", 8) != 0))
		return PROM_REQ_BAD;
	/* the path without a query string */
	q = memchr(t, '?', (size_t)(v - 1 - t));
	plen = (size_t)((q ? q : v - 1) - t);
	if(plen != 8 || memcmp(t, "/metrics", 8) != 0)
		return PROM_REQ_NOT_FOUND;
	get = mlen == 3 && memcmp(s, "GET", 3) == 0;
	head = mlen == 4 && memcmp(s, "HEAD", 4) == 0;
	if(get)
		return PROM_REQ_METRICS;
	if(head)
		return PROM_REQ_METRICS_HEAD;
	return PROM_REQ_BAD_METHOD;
}

/* One header field line [s, e): name ":" value. */
static int header_line(const char* s, const char* e)
{
	const char* p = s;
	while(p < e && is_tchar((unsigned char)*p))
		p++;
	return p > s && p < e && *p == ':';
}

enum prom_req prom_http_classify(const char* buf, size_t len)
{
	const char* p = buf, *end = buf + len;
	enum prom_req verdict = PROM_REQ_INCOMPLETE;
	int first = 1;
	/* empty lines before the request line are allowed (RFC 9112 2.2) */
	while(p < end && (*p == '\n' || (*p == '\r' && p + 1 < end &&
		p[1] == '\n')))
		p += *p == '\n' ? 1 : 2;
	while(p < end) {
		const char* nl = memchr(p, '\n', (size_t)(end - p));
		const char* e = nl ? nl : end;
		const char* c;
		/* a CR only right before the LF */
		if(nl && e > p && e[-1] == '\r')
			e--;
		for(c = p; c < e; c++)
			if(!is_line_char((unsigned char)*c) &&
				!(*c == '\r' && !nl && c + 1 == end))
				return PROM_REQ_BAD;
		if(!nl)
			break;
		if(first) {
			if((verdict = request_line(p, e)) == PROM_REQ_BAD)
				return PROM_REQ_BAD;
			first = 0;
		} else if(e == p) {
			/* the blank line: complete, if within the limit */
			return (size_t)(nl + 1 - buf) > PROM_REQ_MAX ?
				PROM_REQ_BAD : verdict;
		} else if(!header_line(p, e)) {
			/* folded (obs-fold) or without a name and colon */
			return PROM_REQ_BAD;
		}
		p = nl + 1;
	}
	return len >= PROM_REQ_MAX ? PROM_REQ_BAD : PROM_REQ_INCOMPLETE;
}

static const char* status_text(int status)
{
	switch(status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	default:  return "Internal Server Error";
	}
}

void prom_http_head(struct strbuf* b, int status, const char* ctype,
	size_t content_length)
{
	strbuf_printf(b, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n"
		"Content-Length: %zu\r\nConnection: close\r\n%s\r\n", status,
		status_text(status), ctype, content_length,
		status == 405 ? "Allow: GET, HEAD\r\n" : "");
}

int prom_http_error(enum prom_req r, const char** body)
{
	switch(r) {
	case PROM_REQ_NOT_FOUND:
		*body = "404 not found: the metrics are at /metrics\n";
		return 404;
	case PROM_REQ_BAD_METHOD:
		*body = "405 method not allowed: use GET or HEAD\n";
		return 405;
	default:
		*body = "400 bad request\n";
		return 400;
	}
}
