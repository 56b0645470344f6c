/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/prom_http.h - the little HTTP/1.x the Prometheus endpoint
 * speaks: classify one request head, write a response head. Pure
 * functions of their input, so they are unit-tested on their own
 * (testdata/unit/prom_test.c). */
#ifndef DAEMON_PROM_HTTP_H
#define DAEMON_PROM_HTTP_H
#include <stddef.h>

struct strbuf;

/* A request head may be at most this long, blank line included; a
 * longer one is answered 400. */
#define PROM_REQ_MAX 8192

enum prom_req {
	PROM_REQ_INCOMPLETE = 0, /* no blank line yet: read more */
	PROM_REQ_METRICS,        /* GET /metrics: 200 with the metrics */
	PROM_REQ_METRICS_HEAD,   /* HEAD /metrics: the same, headers only */
	PROM_REQ_NOT_FOUND,      /* another path: 404 */
	PROM_REQ_BAD_METHOD,     /* /metrics with another method: 405 */
	PROM_REQ_BAD             /* malformed or too long: 400 */
};

/* What the first len bytes a client sent ask for. Checks the request
 * line (METHOD SP /path SP HTTP/1.0 or HTTP/1.1), every header line
 * (name: value, no control characters, no folding) and the size, and
 * says PROM_REQ_BAD as soon as what has arrived cannot become a valid
 * head. Lines may end in CRLF or LF. The query string is ignored. */
enum prom_req prom_http_classify(const char* buf, size_t len);

/* Append a response head: status line, Content-Type, Content-Length,
 * Connection: close (and Allow for 405), blank line. */
void prom_http_head(struct strbuf* b, int status, const char* ctype,
	size_t content_length);

/* The status code and the short text/plain body for an error verdict
 * (404, 405, 400). */
int prom_http_error(enum prom_req r, const char** body);

#endif
