/* SPDX-License-Identifier: BSD-3-Clause */
/* services/xfr_http.c - compat: unbound-1.17: auth-zone url: downloads:
 * the url, one GET with "Connection: close" over a non-blocking socket
 * (TLS with OpenSSL for https, the server's name or address verified
 * against tls-cert-bundle), the response parser, and the zone text read
 * with ldns. Runs in the transfer thread only. */
#include "config.h"
#include "services/xfr_http.h"
#include "util/dname.h"
#include "util/msgparse.h"
#include "util/net_help.h"
#include <ctype.h>
#include <errno.h>
#include <ldns/ldns.h>
#include <netdb.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HEAD_MAX 65536   /* status line and headers */
#define UA_MAX 512       /* the User-Agent header value kept (with the
                          * url's path and host it fits req[]) */

int xfr_url_parse(const char* text, struct xfr_url* u, char* err,
	size_t errlen)
{
	const char* p, *slash, *colon;
	size_t hl;
	memset(u, 0, sizeof(*u));
	if(strncasecmp(text, "http://", 7) == 0) {
		p = text + 7;
		snprintf(u->port, sizeof(u->port), "80");
	} else if(strncasecmp(text, "https://", 8) == 0) {
		p = text + 8;
		u->tls = 1;
		snprintf(u->port, sizeof(u->port), "443");
	} else {
		snprintf(err, errlen, "not an http:// or https:// url");
		return 0;
	}
	slash = strchr(p, '/');
	hl = slash ? (size_t)(slash - p) : strlen(p);
	if(hl == 0 || hl >= sizeof(u->host)) {
		snprintf(err, errlen, "no host in the url");
		return 0;
	}
	memcpy(u->host, p, hl);
	if(u->host[0] == '[') {
		/* [v6 address]:port */
		char* end = strchr(u->host, ']');
		if(!end) {
			snprintf(err, errlen, "bad [address] in the url");
			return 0;
		}
		colon = end[1] == ':' ? end + 1 : NULL;
		if(colon) {
			snprintf(u->port, sizeof(u->port), "%s", colon + 1);
		}
		*end = 0;
		memmove(u->host, u->host + 1, strlen(u->host + 1) + 1);
	} else if((colon = strchr(u->host, ':')) != NULL) {
		snprintf(u->port, sizeof(u->port), "%s", colon + 1);
		u->host[colon - u->host] = 0;
	}
	if(u->port[0] == 0 || strspn(u->port, "0123456789") !=
		strlen(u->port) || atoi(u->port) <= 0 || atoi(u->port) >
		65535) {
		snprintf(err, errlen, "bad port in the url");
		return 0;
	}
	if(snprintf(u->path, sizeof(u->path), "%s", slash ? slash : "/") >=
		(int)sizeof(u->path) || strpbrk(u->path, " \r\n")) {
		snprintf(err, errlen, "bad path in the url");
		return 0;
	}
	return 1;
}

/* ---- the response parser (outside input) ---- */

/* The end of the line starting at p (the CR of its CRLF, or a lone
 * LF), within end; NULL when no line end is there yet. */
static uint8_t* line_end(uint8_t* p, uint8_t* end)
{
	uint8_t* nl = memchr(p, '\n', (size_t)(end - p));
	if(!nl)
		return NULL;
	return (nl > p && nl[-1] == '\r') ? nl - 1 : nl;
}

static uint8_t* next_line(uint8_t* le)
{
	return *le == '\r' ? le + 2 : le + 1;
}

static int header_is(const uint8_t* p, const uint8_t* le, const char* name,
	const uint8_t** val)
{
	size_t n = strlen(name);
	if((size_t)(le - p) <= n || strncasecmp((const char*)p, name, n) != 0
		|| p[n] != ':')
		return 0;
	p += n + 1;
	while(p < le && (*p == ' ' || *p == '\t'))
		p++;
	*val = p;
	return 1;
}

/* Decode a chunked body at buf[off..len) in place. */
static enum xfr_http_state dechunk(uint8_t* buf, size_t len, size_t off,
	int eof, size_t max_body, size_t* body_len, char* err,
	size_t errlen)
{
	uint8_t* p = buf + off, *end = buf + len, *out = buf + off;
	for(;;) {
		uint8_t* le = line_end(p, end);
		size_t sz = 0, digits = 0;
		if(!le)
			goto more;
		while(p + digits < le && isxdigit(p[digits])) {
			if(sz > max_body) {
				snprintf(err, errlen, "larger than the limit "
					"of %zu bytes", max_body);
				return XFR_HTTP_ERROR;
			}
			sz = sz * 16 + (size_t)(isdigit(p[digits]) ?
				p[digits] - '0' : (tolower(p[digits]) - 'a' +
				10));
			digits++;
		}
		if(digits == 0 || (p + digits < le && p[digits] != ';' &&
			p[digits] != ' ')) {
			snprintf(err, errlen, "bad chunk size line");
			return XFR_HTTP_ERROR;
		}
		p = next_line(le);
		if(sz == 0) {
			/* trailers until an empty line */
			for(;;) {
				if(!(le = line_end(p, end)))
					goto more;
				if(le == p)
					break;
				p = next_line(le);
			}
			*body_len = (size_t)(out - (buf + off));
			return XFR_HTTP_DONE;
		}
		if((size_t)(out - (buf + off)) + sz > max_body) {
			snprintf(err, errlen, "larger than the limit of %zu "
				"bytes", max_body);
			return XFR_HTTP_ERROR;
		}
		if((size_t)(end - p) < sz + 1)
			goto more;
		memmove(out, p, sz);
		out += sz;
		p += sz;
		if(!(le = line_end(p, end)))
			goto more;
		if(le != p) {
			snprintf(err, errlen, "chunk not followed by CRLF");
			return XFR_HTTP_ERROR;
		}
		p = next_line(le);
	}
more:
	if(eof) {
		snprintf(err, errlen, "truncated: the connection closed in "
			"the middle of the chunked body");
		return XFR_HTTP_ERROR;
	}
	return XFR_HTTP_MORE;
}

enum xfr_http_state xfr_http_parse(uint8_t* buf, size_t len, int eof,
	size_t max_body, size_t* body_off, size_t* body_len, char* err,
	size_t errlen)
{
	uint8_t* p = buf, *end = buf + len, *le;
	int status, chunked = 0, have_cl = 0;
	size_t cl = 0, off;
	err[0] = 0;
	if(!(le = line_end(p, end))) {
		if(len > HEAD_MAX) {
			snprintf(err, errlen, "status line too long");
			return XFR_HTTP_ERROR;
		}
		if(eof) {
			snprintf(err, errlen, len ? "truncated: the "
				"connection closed in the status line" :
				"the server closed the connection without a "
				"response");
			return XFR_HTTP_ERROR;
		}
		return XFR_HTTP_MORE;
	}
	if(le - p < 12 || strncmp((const char*)p, "HTTP/1.", 7) != 0 ||
		(p[7] != '0' && p[7] != '1') || p[8] != ' ' ||
		!isdigit(p[9]) || !isdigit(p[10]) || !isdigit(p[11]) ||
		(le - p > 12 && p[12] != ' ')) {
		snprintf(err, errlen, "not an HTTP/1.x response");
		return XFR_HTTP_ERROR;
	}
	status = (p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0');
	if(status != 200) {
		int rl = (int)(le - p > 13 ? le - p - 13 : 0);
		if(rl > 60)
			rl = 60;
		snprintf(err, errlen, "HTTP status %d%s%.*s", status, rl ?
			" " : "", rl, rl ? (const char*)p + 13 : "");
		for(int i = 0; err[i]; i++)
			if(!isprint((unsigned char)err[i]))
				err[i] = '?';
		return XFR_HTTP_ERROR;
	}
	p = next_line(le);
	for(;;) {
		const uint8_t* val;
		if(!(le = line_end(p, end))) {
			if(len > HEAD_MAX) {
				snprintf(err, errlen, "headers too long");
				return XFR_HTTP_ERROR;
			}
			if(eof) {
				snprintf(err, errlen, "truncated: the "
					"connection closed in the headers");
				return XFR_HTTP_ERROR;
			}
			return XFR_HTTP_MORE;
		}
		if(le == p)
			break;
		if((size_t)(le - buf) > HEAD_MAX) {
			snprintf(err, errlen, "headers too long");
			return XFR_HTTP_ERROR;
		}
		if(!memchr(p, ':', (size_t)(le - p))) {
			snprintf(err, errlen, "bad header line");
			return XFR_HTTP_ERROR;
		}
		if(header_is(p, le, "Content-Length", &val)) {
			size_t v = 0;
			const uint8_t* q = val;
			if(q == le) {
				snprintf(err, errlen, "bad Content-Length");
				return XFR_HTTP_ERROR;
			}
			for(; q < le && isdigit(*q); q++) {
				if(v > max_body) {
					break;
				}
				v = v * 10 + (size_t)(*q - '0');
			}
			while(q < le && (*q == ' ' || *q == '\t'))
				q++;
			if(q != le && !(v > max_body)) {
				snprintf(err, errlen, "bad Content-Length");
				return XFR_HTTP_ERROR;
			}
			if(v > max_body) {
				snprintf(err, errlen, "larger than the limit "
					"of %zu bytes (Content-Length)",
					max_body);
				return XFR_HTTP_ERROR;
			}
			if(have_cl && v != cl) {
				snprintf(err, errlen, "two Content-Lengths");
				return XFR_HTTP_ERROR;
			}
			cl = v;
			have_cl = 1;
		} else if(header_is(p, le, "Transfer-Encoding", &val)) {
			size_t n = (size_t)(le - val);
			if(n >= 7 && strncasecmp((const char*)le - 7,
				"chunked", 7) == 0)
				chunked = 1;
		}
		p = next_line(le);
	}
	off = (size_t)(next_line(le) - buf);
	*body_off = off;
	if(chunked)
		return dechunk(buf, len, off, eof, max_body, body_len, err,
			errlen);
	if(have_cl) {
		if(len - off >= cl) {
			*body_len = cl;
			return XFR_HTTP_DONE;
		}
		if(eof) {
			snprintf(err, errlen, "truncated: %zu of %zu bytes",
				len - off, cl);
			return XFR_HTTP_ERROR;
		}
		return XFR_HTTP_MORE;
	}
	if(len - off > max_body) {
		snprintf(err, errlen, "larger than the limit of %zu bytes",
			max_body);
		return XFR_HTTP_ERROR;
	}
	if(!eof)
		return XFR_HTTP_MORE;
	*body_len = len - off;
	return XFR_HTTP_DONE;
}

/* ---- the zone text ---- */

int xfr_zonetext_parse(const char* text, size_t len, const uint8_t* zone,
	struct xfr_rrs* out, char* err, size_t errlen)
{
	char zname[LDNS_MAX_DOMAINLEN * 4 + 8];
	ldns_rdf* origin = NULL, *prev = NULL;
	uint32_t ttl = 3600;
	int line = 1, ok = 1;
	FILE* in;
	ldns_buffer* b = ldns_buffer_new(512);
	xfr_rrs_init(out);
	dname_to_str(zone, zname, sizeof(zname));
	if(!b || !(in = fmemopen((void*)text, len ? len : 1, "r"))) {
		ldns_buffer_free(b);
		snprintf(err, errlen, "out of memory");
		return 0;
	}
	if(len == 0)
		(void)fgetc(in);   /* empty */
	if(ldns_str2rdf_dname(&origin, zname) != LDNS_STATUS_OK) {
		fclose(in);
		ldns_buffer_free(b);
		snprintf(err, errlen, "out of memory");
		return 0;
	}
	while(ok && !feof(in)) {
		ldns_rr* rr = NULL;
		ldns_status s = ldns_rr_new_frm_fp_l(&rr, in, &ttl, &origin,
			&prev, &line);
		const ldns_rdf* o;
		switch(s) {
		case LDNS_STATUS_OK:
			o = ldns_rr_owner(rr);
			ldns_buffer_clear(b);
			if(ldns_rr_get_class(rr) != LDNS_RR_CLASS_IN ||
				ldns_rr_get_type(rr) == LDNS_RR_TYPE_OPT ||
				!o || ldns_rdf_size(o) > 255 ||
				ldns_rr_rdata2buffer_wire(b, rr) !=
				LDNS_STATUS_OK ||
				ldns_buffer_position(b) > 65535) {
				snprintf(err, errlen, "line %d: a record that "
					"cannot be used", line);
				ok = 0;
				break;
			}
			if(!xfr_rrs_add(out, ldns_rdf_data(o),
				ldns_rdf_size(o), (uint16_t)ldns_rr_get_type(
				rr), LDNS_RR_CLASS_IN, ldns_rr_ttl(rr),
				ldns_buffer_begin(b), (uint16_t)
				ldns_buffer_position(b))) {
				snprintf(err, errlen, "out of memory");
				ok = 0;
			} else
				dname_tolower(out->v[out->n - 1].owner);
			break;
		case LDNS_STATUS_SYNTAX_EMPTY:
		case LDNS_STATUS_SYNTAX_TTL:
		case LDNS_STATUS_SYNTAX_ORIGIN:
			break;
		case LDNS_STATUS_SYNTAX_INCLUDE:
			snprintf(err, errlen, "line %d: $INCLUDE is not "
				"supported", line);
			ok = 0;
			break;
		default:
			if(feof(in) && s == LDNS_STATUS_SYNTAX_ERR)
				break;   /* trailing blank lines */
			snprintf(err, errlen, "parse error line %d: %s", line,
				ldns_get_errorstr_by_id(s));
			ok = 0;
			break;
		}
		ldns_rr_free(rr);
	}
	fclose(in);
	ldns_rdf_deep_free(origin);
	ldns_rdf_deep_free(prev);
	ldns_buffer_free(b);
	if(ok) {
		struct xfr_soa soa;
		if(!xfr_rrs_soa(out, zone, &soa)) {
			snprintf(err, errlen, "no SOA record at the zone's "
				"apex");
			ok = 0;
		}
	}
	if(!ok)
		xfr_rrs_clear(out);
	return ok;
}

/* ---- the download ---- */

struct conn {
	int fd;
	int tcp_mss;        /* outgoing-tcp-mss, 0: none */
	SSL_CTX* ctx;
	SSL* ssl;
	int idle_ms;
	long total_deadline;
	const atomic_int* stop;
};

static long deadline_of(const struct conn* c)
{
	long d = xfr_net_now_ms() + c->idle_ms;
	if(c->total_deadline && c->total_deadline < d)
		d = c->total_deadline;
	return d;
}

static const char* timeout_text(const struct conn* c)
{
	return c->total_deadline && xfr_net_now_ms() >= c->total_deadline ?
		"the download took longer than max-transfer-time" :
		"the server stopped sending";
}

/* The TLS handshake (ssl set up), waiting as it asks. */
static enum xfr_net_result tls_io(struct conn* c, int ret, char* err,
	size_t errlen, const char* what)
{
	int e = SSL_get_error(c->ssl, ret);
	enum xfr_net_result r;
	if(e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
		r = xfr_net_wait_fd(c->fd, e == SSL_ERROR_WANT_READ ? POLLIN :
			POLLOUT, deadline_of(c), c->stop);
		if(r == XFR_NET_TIMEOUT)
			snprintf(err, errlen, "%s", timeout_text(c));
		return r == XFR_NET_OK ? XFR_NET_OK : r;
	}
	if(e == SSL_ERROR_SSL) {
		long v = SSL_get_verify_result(c->ssl);
		unsigned long ee = ERR_peek_last_error();
		if(v != X509_V_OK)
			snprintf(err, errlen, "%s: certificate verify failed: "
				"%s", what, X509_verify_cert_error_string(v));
		else
			snprintf(err, errlen, "%s: %s", what, ee ?
				ERR_reason_error_string(ee) : "TLS error");
	} else
		snprintf(err, errlen, "%s: the connection failed", what);
	ERR_clear_error();
	return XFR_NET_FAILED;
}

static enum xfr_net_result tls_start(struct conn* c, const struct xfr_url* u,
	const char* cabundle, char* err, size_t errlen)
{
	struct sockaddr_storage a;
	socklen_t al;
	if(!(c->ctx = SSL_CTX_new(TLS_client_method())) ||
		!SSL_CTX_set_min_proto_version(c->ctx, TLS1_2_VERSION)) {
		snprintf(err, errlen, "out of memory for TLS");
		return XFR_NET_FAILED;
	}
	SSL_CTX_set_verify(c->ctx, SSL_VERIFY_PEER, NULL);
	if(cabundle && cabundle[0]) {
		if(!SSL_CTX_load_verify_locations(c->ctx, cabundle, NULL)) {
			ERR_clear_error();
			snprintf(err, errlen, "cannot read tls-cert-bundle %s",
				cabundle);
			return XFR_NET_FAILED;
		}
	} else if(!SSL_CTX_set_default_verify_paths(c->ctx)) {
		ERR_clear_error();
	}
	if(!(c->ssl = SSL_new(c->ctx)) || !SSL_set_fd(c->ssl, c->fd)) {
		snprintf(err, errlen, "out of memory for TLS");
		return XFR_NET_FAILED;
	}
	/* the certificate must name the url's host: its address when the
	 * host is one, else its name (and SNI) */
	if(ipstrtoaddr(u->host, 443, &a, &al)) {
		if(!X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(c->ssl),
			u->host)) {
			snprintf(err, errlen, "bad address %s", u->host);
			return XFR_NET_FAILED;
		}
	} else if(!SSL_set_tlsext_host_name(c->ssl, u->host) ||
		!SSL_set1_host(c->ssl, u->host)) {
		snprintf(err, errlen, "bad host name %s", u->host);
		return XFR_NET_FAILED;
	}
	for(;;) {
		int ret = SSL_connect(c->ssl);
		enum xfr_net_result r;
		if(ret == 1)
			return XFR_NET_OK;
		if((r = tls_io(c, ret, err, errlen, "TLS handshake")) !=
			XFR_NET_OK)
			return r;
	}
}

static enum xfr_net_result conn_write(struct conn* c, const char* d,
	size_t n, char* err, size_t errlen)
{
	while(n > 0) {
		ssize_t k;
		if(c->ssl) {
			int ret = SSL_write(c->ssl, d, (int)n);
			enum xfr_net_result r;
			if(ret > 0) {
				d += ret;
				n -= (size_t)ret;
				continue;
			}
			if((r = tls_io(c, ret, err, errlen, "TLS write")) !=
				XFR_NET_OK)
				return r;
			continue;
		}
		k = send(c->fd, d, n, 0);
		if(k > 0) {
			d += k;
			n -= (size_t)k;
			continue;
		}
		if(k < 0 && (errno == EAGAIN || errno == EINTR)) {
			enum xfr_net_result r = xfr_net_wait_fd(c->fd, POLLOUT,
				deadline_of(c), c->stop);
			if(r == XFR_NET_TIMEOUT)
				snprintf(err, errlen, "%s", timeout_text(c));
			if(r != XFR_NET_OK)
				return r;
			continue;
		}
		snprintf(err, errlen, "send: %s", strerror(errno));
		return XFR_NET_FAILED;
	}
	return XFR_NET_OK;
}

/* Read some bytes: *got set, 0 at the end of the stream. */
static enum xfr_net_result conn_read(struct conn* c, uint8_t* d, size_t n,
	size_t* got, char* err, size_t errlen)
{
	for(;;) {
		ssize_t k;
		if(c->ssl) {
			int ret = SSL_read(c->ssl, d, (int)(n > 65536 ? 65536 :
				n));
			int e;
			enum xfr_net_result r;
			if(ret > 0) {
				*got = (size_t)ret;
				return XFR_NET_OK;
			}
			e = SSL_get_error(c->ssl, ret);
			if(e == SSL_ERROR_ZERO_RETURN || (e ==
				SSL_ERROR_SYSCALL && ERR_peek_error() == 0)) {
				/* a close (a missing close_notify: the
				 * parser tells a truncated body) */
				ERR_clear_error();
				*got = 0;
				return XFR_NET_OK;
			}
			if((r = tls_io(c, ret, err, errlen, "TLS read")) !=
				XFR_NET_OK)
				return r;
			continue;
		}
		k = recv(c->fd, d, n, 0);
		if(k >= 0) {
			*got = (size_t)k;
			return XFR_NET_OK;
		}
		if(errno == EAGAIN || errno == EINTR) {
			enum xfr_net_result r = xfr_net_wait_fd(c->fd, POLLIN,
				deadline_of(c), c->stop);
			if(r == XFR_NET_TIMEOUT)
				snprintf(err, errlen, "%s", timeout_text(c));
			if(r != XFR_NET_OK)
				return r;
			continue;
		}
		snprintf(err, errlen, "recv: %s", strerror(errno));
		return XFR_NET_FAILED;
	}
}

static enum xfr_net_result conn_open(struct conn* c, const struct xfr_url* u,
	char* err, size_t errlen)
{
	struct addrinfo hints, *res = NULL;
	enum xfr_net_result r;
	int soerr = 0, e;
	socklen_t sl = sizeof(soerr);
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	if((e = getaddrinfo(u->host, u->port, &hints, &res)) != 0 || !res) {
		snprintf(err, errlen, "cannot resolve %s: %s", u->host,
			gai_strerror(e));
		return XFR_NET_FAILED;
	}
	c->fd = socket(res->ai_family, SOCK_STREAM, 0);
	if(c->fd < 0 || !fd_set_nonblock(c->fd)) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		freeaddrinfo(res);
		return XFR_NET_FAILED;
	}
	xfr_net_set_mss(c->fd, c->tcp_mss);
	if(connect(c->fd, res->ai_addr, res->ai_addrlen) != 0 &&
		errno != EINPROGRESS) {
		snprintf(err, errlen, "connect: %s", strerror(errno));
		freeaddrinfo(res);
		return XFR_NET_FAILED;
	}
	freeaddrinfo(res);
	r = xfr_net_wait_fd(c->fd, POLLOUT, deadline_of(c), c->stop);
	if(r == XFR_NET_OK && (getsockopt(c->fd, SOL_SOCKET, SO_ERROR,
		&soerr, &sl) != 0 || soerr != 0)) {
		snprintf(err, errlen, "connect: %s", strerror(soerr));
		r = XFR_NET_FAILED;
	} else if(r == XFR_NET_TIMEOUT)
		snprintf(err, errlen, "connect timed out");
	return r;
}

enum xfr_net_result xfr_http_fetch(const struct xfr_url* u,
	const char* cabundle, const char* user_agent, const uint8_t* zone,
	size_t max_size, int idle_ms, int total_secs, int tcp_mss,
	const atomic_int* stop, struct xfr_rrs* out, char* err, size_t errlen)
{
	struct conn c;
	char req[2048];
	uint8_t* buf = NULL;
	size_t len = 0, cap = 0, off = 0, blen = 0;
	size_t max_body = max_size ? max_size : XFR_HTTP_MAX_DEFAULT;
	enum xfr_net_result r;
	enum xfr_http_state st = XFR_HTTP_MORE;
	int n;
	xfr_rrs_init(out);
	memset(&c, 0, sizeof(c));
	c.fd = -1;
	c.idle_ms = idle_ms;
	c.tcp_mss = tcp_mss;
	c.total_deadline = total_secs > 0 ? xfr_net_now_ms() + (long)total_secs *
		1000 : 0;
	c.stop = stop;
	err[0] = 0;
	n = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: %s\r\n"
		"%s%.*s%sConnection: close\r\n\r\n", u->path, u->host,
		user_agent ? "User-Agent: " : "", UA_MAX, user_agent ?
		user_agent : "", user_agent ? "\r\n" : "");
	if((r = conn_open(&c, u, err, errlen)) == XFR_NET_OK && u->tls)
		r = tls_start(&c, u, cabundle, err, errlen);
	if(r == XFR_NET_OK)
		r = conn_write(&c, req, (size_t)n, err, errlen);
	while(r == XFR_NET_OK && st == XFR_HTTP_MORE) {
		size_t got = 0;
		if(cap - len < 16384) {
			size_t nc = cap ? cap * 2 : 65536;
			uint8_t* nb;
			if(len > max_body + HEAD_MAX + 65536) {
				snprintf(err, errlen, "larger than the limit "
					"of %zu bytes", max_body);
				r = XFR_NET_FAILED;
				break;
			}
			if(!(nb = realloc(buf, nc))) {
				snprintf(err, errlen, "out of memory");
				r = XFR_NET_FAILED;
				break;
			}
			buf = nb;
			cap = nc;
		}
		if((r = conn_read(&c, buf + len, cap - len, &got, err,
			errlen)) != XFR_NET_OK)
			break;
		len += got;
		st = xfr_http_parse(buf, len, got == 0, max_body, &off, &blen,
			err, errlen);
		if(st == XFR_HTTP_ERROR)
			r = XFR_NET_FAILED;
	}
	if(c.ssl) {
		SSL_free(c.ssl);
	}
	SSL_CTX_free(c.ctx);
	if(c.fd >= 0)
		close(c.fd);
	if(r == XFR_NET_OK && st == XFR_HTTP_DONE &&
		!xfr_zonetext_parse((const char*)buf + off, blen, zone, out,
		err, errlen))
		r = XFR_NET_FAILED;
	free(buf);
	return r;
}
