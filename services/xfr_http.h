/* SPDX-License-Identifier: BSD-3-Clause */
/* services/xfr_http.h - compat: unbound-1.17: auth-zone's url: the zone
 * file downloaded over HTTP or HTTPS (tls-cert-bundle verifies the
 * server), in the transfer thread (services/xfr_source.c) with a
 * blocking socket and deadlines, then read as zone text with ldns into
 * the transfer layer's RR list. The response parser takes outside input
 * and is fuzzed (testdata/fuzz/fuzz_xfr_http.c). */
#ifndef SERVICES_XFR_HTTP_H
#define SERVICES_XFR_HTTP_H
#include "services/xfr_net.h"
#include "services/xfr_rr.h"
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* compat: unbound-1.17: Unbound has no limit; without max-transfer-size
 * a download is cut at this size */
#define XFR_HTTP_MAX_DEFAULT ((size_t)512 * 1024 * 1024)

/* A parsed url: http://HOST[:PORT]/PATH or https://... */
struct xfr_url {
	int tls;
	char host[256];     /* as written (for Host: and the certificate) */
	char port[8];
	char path[1024];
};
/* Parse text into u. 0 (with err) when it is not such a url. */
int xfr_url_parse(const char* text, struct xfr_url* u, char* err,
	size_t errlen);

enum xfr_http_state {
	XFR_HTTP_MORE = 0,   /* incomplete: read more */
	XFR_HTTP_DONE,       /* the body is at buf + *body_off */
	XFR_HTTP_ERROR       /* err says why */
};
/* Parse an HTTP/1.0 or 1.1 response in buf (len bytes; eof: the server
 * closed the connection after them): status 200 only, headers, a body
 * of Content-Length bytes, chunked (decoded in place in buf), or up to
 * the close. A body over max_body is an error, as are a truncated one
 * and any other status. */
enum xfr_http_state xfr_http_parse(uint8_t* buf, size_t len, int eof,
	size_t max_body, size_t* body_off, size_t* body_len, char* err,
	size_t errlen);

/* Download u (cabundle: tls-cert-bundle for https, "" or NULL: the
 * system's store; user_agent: the User-Agent header, NULL: none) and
 * read it as the zone file of zone into out
 * (initialised here). max_size: max-transfer-size (0: the default cap);
 * total_secs: max-transfer-time (0: none); idle_ms: the longest
 * silence; tcp_mss: outgoing-tcp-mss (0: none). */
enum xfr_net_result xfr_http_fetch(const struct xfr_url* u,
	const char* cabundle, const char* user_agent, const uint8_t* zone,
	size_t max_size,
	int idle_ms, int total_secs, int tcp_mss, const atomic_int* stop,
	struct xfr_rrs* out, char* err, size_t errlen);

/* Zone file text (len bytes) of zone into out (initialised here), as
 * an auth-zone file is read ($ORIGIN the zone, $TTL 3600). 0 with err. */
int xfr_zonetext_parse(const char* text, size_t len, const uint8_t* zone,
	struct xfr_rrs* out, char* err, size_t errlen);

#endif
