/* SPDX-License-Identifier: BSD-3-Clause */
/* smallapp/anchor/anchor_https.c - a small HTTPS client for
 * root-anchors.xml and .p7s: HTTP/1.1 GET with Connection: close, a
 * body by Content-Length, chunked or up to the close, bounded in size
 * and time. */
#include "config.h"
#include "smallapp/anchor/anchor_https.h"
#include "smallapp/anchor/anchor_file.h"
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>

#define HTTPS_TIMEOUT_SEC 10
#define HTTPS_TOTAL_SEC 60
#define HTTPS_MAX_REPLY (1024 * 1024)   /* the xml is 1.5 KB */

static void addr_text(const struct anchor_addr* a, char* buf, size_t n)
{
	const void* p = a->addr.ss_family == AF_INET6 ?
		(const void*)&((const struct sockaddr_in6*)&a->addr)->sin6_addr :
		(const void*)&((const struct sockaddr_in*)&a->addr)->sin_addr;
	if(!inet_ntop(a->addr.ss_family, p, buf, (socklen_t)n))
		snprintf(buf, n, "(address)");
}

static int bind_source(int fd, int family, const char* src)
{
	struct sockaddr_storage ss;
	socklen_t len;
	memset(&ss, 0, sizeof(ss));
	if(family == AF_INET6) {
		struct sockaddr_in6* s6 = (struct sockaddr_in6*)&ss;
		s6->sin6_family = AF_INET6;
		if(inet_pton(AF_INET6, src, &s6->sin6_addr) != 1)
			return 0;   /* an address of the other family: skip */
		len = sizeof(*s6);
	} else {
		struct sockaddr_in* s4 = (struct sockaddr_in*)&ss;
		s4->sin_family = AF_INET;
		if(inet_pton(AF_INET, src, &s4->sin_addr) != 1)
			return 0;
		len = sizeof(*s4);
	}
	return bind(fd, (struct sockaddr*)&ss, len);
}

/* a TCP connection, within the timeout; -1 with a message */
static int tcp_connect(const struct anchor_addr* a, const char* src)
{
	char txt[64];
	struct timeval tv = { HTTPS_TIMEOUT_SEC, 0 };
	struct pollfd pfd;
	int err = 0;
	socklen_t elen = sizeof(err);
	int fd = socket(a->addr.ss_family, SOCK_STREAM, 0);
	addr_text(a, txt, sizeof(txt));
	if(fd < 0) {
		fprintf(stderr, "error: socket: %s\n", strerror(errno));
		return -1;
	}
	if(src && bind_source(fd, a->addr.ss_family, src) < 0) {
		fprintf(stderr, "error: bind %s: %s\n", src, strerror(errno));
		close(fd);
		return -1;
	}
	fcntl(fd, F_SETFL, O_NONBLOCK);
	if(connect(fd, (const struct sockaddr*)&a->addr, a->len) < 0) {
		if(errno != EINPROGRESS) {
			err = errno;
		} else {
			pfd.fd = fd;
			pfd.events = POLLOUT;
			if(poll(&pfd, 1, HTTPS_TIMEOUT_SEC * 1000) <= 0)
				err = ETIMEDOUT;
			else if(getsockopt(fd, SOL_SOCKET, SO_ERROR, &err,
				&elen) < 0)
				err = errno;
		}
	}
	if(err) {
		fprintf(stderr, "error: could not connect to %s: %s\n", txt,
			strerror(err));
		close(fd);
		return -1;
	}
	fcntl(fd, F_SETFL, 0);
	/* blocking from here on, each read and write bounded */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if(anchor_verb) printf("connected to %s\n", txt);
	return fd;
}

/* Everything the server sends until it closes; NULL on error. */
static char* read_reply(SSL* ssl, size_t* n)
{
	size_t cap = 16384, len = 0;
	char* buf = malloc(cap + 1);
	time_t start = time(NULL);
	while(buf) {
		int r;
		/* each read has its timeout; a server that trickles gets
		 * this long in all */
		if(time(NULL) - start > HTTPS_TOTAL_SEC) {
			fprintf(stderr, "error: reading the reply: more than "
				"%d seconds\n", HTTPS_TOTAL_SEC);
			free(buf);
			return NULL;
		}
		if(len == cap) {
			char* nb;
			if(cap >= HTTPS_MAX_REPLY) {
				fprintf(stderr, "error: reply larger than "
					"%d bytes\n", HTTPS_MAX_REPLY);
				free(buf);
				return NULL;
			}
			cap *= 2;
			if(!(nb = realloc(buf, cap + 1))) {
				free(buf);
				return NULL;
			}
			buf = nb;
		}
		r = SSL_read(ssl, buf + len, (int)(cap - len));
		if(r > 0) {
			len += (size_t)r;
			continue;
		}
		if(SSL_get_error(ssl, r) == SSL_ERROR_ZERO_RETURN ||
			(SSL_get_error(ssl, r) == SSL_ERROR_SYSCALL &&
			errno == 0))
			break;   /* closed (with or without close_notify) */
		fprintf(stderr, "error: reading the reply: %s\n",
			errno == EAGAIN ? "timed out" : "TLS read failed");
		free(buf);
		return NULL;
	}
	if(buf) {
		buf[len] = 0;
		*n = len;
	}
	return buf;
}

/* the value of header name in head (NUL terminated), or NULL */
static const char* header(const char* head, const char* name)
{
	size_t nl = strlen(name);
	const char* p = strstr(head, "\r\n");
	while(p && p[2]) {
		p += 2;
		if(strncasecmp(p, name, nl) == 0 && p[nl] == ':') {
			p += nl + 1;
			while(*p == ' ' || *p == '\t')
				p++;
			return p;
		}
		p = strstr(p, "\r\n");
	}
	return NULL;
}

/* decode a chunked body in place; -1 when it is malformed or cut */
static long dechunk(char* body, size_t len)
{
	size_t in = 0, out = 0;
	for(;;) {
		char* end;
		unsigned long sz;
		if(in >= len)
			return -1;
		sz = strtoul(body + in, &end, 16);
		if(end == body + in)
			return -1;
		end = strstr(end, "\r\n");
		if(!end)
			return -1;
		in = (size_t)(end - body) + 2;
		if(sz == 0)
			return (long)out;
		if(sz > len - in || len - in - sz < 2)
			return -1;
		memmove(body + out, body + in, sz);
		out += sz;
		in += sz + 2;
	}
}

/* The body of a whole HTTP reply; NULL with a message. */
static char* http_body(char* reply, size_t n, const char* path, size_t* len)
{
	char* end = strstr(reply, "\r\n\r\n");
	char* body;
	const char* v;
	size_t blen;
	int status = 0;
	if(!end || sscanf(reply, "HTTP/1.%*d %d", &status) != 1) {
		fprintf(stderr, "error: %s: not an HTTP reply\n", path);
		return NULL;
	}
	if(status != 200) {
		fprintf(stderr, "error: %s: HTTP status %d\n", path, status);
		return NULL;
	}
	end[2] = 0;   /* the head ends at the first \r\n of the pair */
	body = end + 4;
	blen = n - (size_t)(body - reply);
	if((v = header(reply, "Transfer-Encoding")) &&
		strncasecmp(v, "chunked", 7) == 0) {
		long r = dechunk(body, blen);
		if(r < 0) {
			fprintf(stderr, "error: %s: chunked body cut short\n",
				path);
			return NULL;
		}
		blen = (size_t)r;
	} else if((v = header(reply, "Content-Length"))) {
		char* e;
		unsigned long cl = strtoul(v, &e, 10);
		if(e == v || cl > blen) {
			fprintf(stderr, "error: %s: body cut short (%lu of "
				"%s bytes)\n", path, (unsigned long)blen, v);
			return NULL;
		}
		blen = cl;
	}
	body[blen] = 0;
	*len = blen;
	return body;
}

static char* get_from(SSL_CTX* ctx, const struct anchor_addr* a,
	const char* host, const char* path, int sni, const char* src,
	size_t* len)
{
	char req[2048];
	char* reply = NULL, *body, *out = NULL;
	size_t n = 0;
	int fd = tcp_connect(a, src);
	SSL* ssl;
	if(fd < 0)
		return NULL;
	if(!(ssl = SSL_new(ctx))) {
		close(fd);
		return NULL;
	}
	SSL_set_fd(ssl, fd);
	if(sni)
		SSL_set_tlsext_host_name(ssl, host);
	if(SSL_connect(ssl) != 1) {
		char e[256];
		ERR_error_string_n(ERR_get_error(), e, sizeof(e));
		fprintf(stderr, "error: TLS handshake with %s failed: %s\n",
			host, e);
		goto done;
	}
	while(*path == '/')
		path++;
	snprintf(req, sizeof(req), "GET /%s HTTP/1.1\r\nHost: %s\r\n"
		"User-Agent: unbound-anchor/%s\r\nConnection: close\r\n\r\n",
		path, host, PACKAGE_VERSION);
	if(SSL_write(ssl, req, (int)strlen(req)) <= 0) {
		fprintf(stderr, "error: sending the request failed\n");
		goto done;
	}
	if(!(reply = read_reply(ssl, &n)))
		goto done;
	if((body = http_body(reply, n, path, len)) != NULL) {
		out = malloc(*len + 1);
		if(out)
			memcpy(out, body, *len + 1);
		if(anchor_verb)
			printf("fetched %s (%zu bytes)\n", path, *len);
	}
done:
	free(reply);
	SSL_shutdown(ssl);
	SSL_free(ssl);
	close(fd);
	return out;
}

char* anchor_https_get(const struct anchor_addr* addrs, int n,
	const char* host, const char* path, int sni, const char* src,
	size_t* len)
{
	SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
	char* body = NULL;
	int* order;
	if(!ctx || n <= 0 || !(order = malloc(sizeof(int) * (size_t)n))) {
		SSL_CTX_free(ctx);
		fprintf(stderr, "error: could not fetch %s: %s\n", path,
			n <= 0 ? "no address" : "out of memory");
		return NULL;
	}
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	/* many servers close without close_notify; a body cut short is
	 * caught by Content-Length, chunking or the signature */
	SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
	/* compat: unbound-1.17: random order, as Unbound tries a random
	 * address first */
	for(int i = 0; i < n; i++)
		order[i] = i;
	for(int i = n - 1; i > 0; i--) {
		unsigned int r = 0;
		int j, t;
		RAND_bytes((unsigned char*)&r, sizeof(r));
		j = (int)(r % (unsigned int)(i + 1));
		t = order[i]; order[i] = order[j]; order[j] = t;
	}
	for(int i = 0; i < n && !body; i++)
		body = get_from(ctx, &addrs[order[i]], host, path, sni, src,
			len);
	if(!body)
		fprintf(stderr, "error: could not fetch %s\n", path);
	free(order);
	SSL_CTX_free(ctx);
	return body;
}
