/* SPDX-License-Identifier: BSD-3-Clause */
/* contrib/bench/dohload.c - a light DNS over HTTPS load client for the
 * bench, where dnsperf 2.10 (one TLS record and one system call per
 * query) cannot load a server's core: C connections, each keeping Q
 * requests in flight, the requests of one loop turn written with one
 * SSL_write per connection, for S seconds.
 *   dohload ADDR PORT QFILE SECONDS CONNS OUTSTANDING GET|POST [PATH]
 * QFILE: "name TYPE" lines (dnsperf's format; TYPE a mnemonic of the
 * table below or TYPEnnn). The server's certificate is not verified.
 * Output in dnsperf's words, so contrib/bench/bench.py parses it:
 * "Queries sent:", "Queries completed:", "Queries per second:",
 * "Average Latency (s):", "NOERROR n (p%)"; "lost" are the requests
 * still in flight when the time is up (nothing times out).
 * Build: cc -O2 -o dohload dohload.c -lnghttp2 -lssl -lcrypto */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <nghttp2/nghttp2.h>

struct query {
	uint8_t wire[300];
	size_t len;
	char path[480];          /* GET: PATH?dns=base64url */
};

struct req {
	struct conn* c;
	const struct query* q;
	size_t pos;              /* POST body sent */
	double t0;
	int status, rcode;
};

struct conn {
	int fd;
	SSL* ssl;
	nghttp2_session* s;
	int inflight;
	uint8_t out[65536];
	size_t out_len;
};

static struct query* qs;
static size_t nq, qnext;
static int post, outstanding;
static const char* path = "/dns-query";
static long sent, done, noerror;
static double lat_sum;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int type_num(const char* t)
{
	static const struct { const char* n; int v; } tab[] = {
		{"A", 1}, {"NS", 2}, {"CNAME", 5}, {"SOA", 6}, {"PTR", 12},
		{"MX", 15}, {"TXT", 16}, {"AAAA", 28}, {"SRV", 33},
		{"DS", 43}, {"DNSKEY", 48}, {"HTTPS", 65}, {"ANY", 255}};
	size_t i;
	for(i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if(strcasecmp(t, tab[i].n) == 0)
			return tab[i].v;
	if(strncasecmp(t, "TYPE", 4) == 0)
		return atoi(t + 4);
	return -1;
}

static void b64url(const uint8_t* in, size_t len, char* out)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop"
		"qrstuvwxyz0123456789-_";
	size_t i;
	for(i = 0; i + 2 < len; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | in[i + 1] << 8 | in[i + 2];
		*out++ = a[v >> 18]; *out++ = a[(v >> 12) & 63];
		*out++ = a[(v >> 6) & 63]; *out++ = a[v & 63];
	}
	if(len - i == 1) {
		uint32_t v = (uint32_t)in[i] << 16;
		*out++ = a[v >> 18]; *out++ = a[(v >> 12) & 63];
	} else if(len - i == 2) {
		uint32_t v = (uint32_t)in[i] << 16 | in[i + 1] << 8;
		*out++ = a[v >> 18]; *out++ = a[(v >> 12) & 63];
		*out++ = a[(v >> 6) & 63];
	}
	*out = 0;
}

/* "name TYPE" to a query (ID 0, RD): 0 when it is not one. */
static int make_query(const char* line, struct query* q)
{
	char name[256], type[32];
	uint8_t* p = q->wire;
	const char* s;
	int t;
	if(sscanf(line, "%255s %31s", name, type) != 2 ||
		(t = type_num(type)) < 0)
		return 0;
	memset(p, 0, 12);
	p[2] = 0x01;             /* RD */
	p[5] = 1;                /* QDCOUNT */
	p += 12;
	for(s = name; *s && strcmp(s, ".") != 0;) {
		const char* dot = strchr(s, '.');
		size_t l = dot ? (size_t)(dot - s) : strlen(s);
		if(l == 0 || l > 63 || p + l + 6 >= q->wire + sizeof(q->wire))
			return 0;
		*p++ = (uint8_t)l;
		memcpy(p, s, l);
		p += l;
		s += l + (dot ? 1 : 0);
	}
	*p++ = 0;
	*p++ = (uint8_t)(t >> 8); *p++ = (uint8_t)t;
	*p++ = 0; *p++ = 1;      /* IN */
	q->len = (size_t)(p - q->wire);
	snprintf(q->path, sizeof(q->path), "%s?dns=", path);
	b64url(q->wire, q->len, q->path + strlen(q->path));
	return 1;
}

static ssize_t body_read(nghttp2_session* s, int32_t id, uint8_t* buf,
	size_t len, uint32_t* flags, nghttp2_data_source* src, void* user)
{
	struct req* r = src->ptr;
	size_t n = r->q->len - r->pos;
	(void)s; (void)id; (void)user;
	if(n > len)
		n = len;
	memcpy(buf, r->q->wire + r->pos, n);
	r->pos += n;
	if(r->pos == r->q->len)
		*flags |= NGHTTP2_DATA_FLAG_EOF;
	return (ssize_t)n;
}

#define NV(n, v) { (uint8_t*)(n), (uint8_t*)(v), strlen(n), strlen(v), \
	NGHTTP2_NV_FLAG_NONE }

static void submit(struct conn* c)
{
	struct req* r = calloc(1, sizeof(*r));
	char clen[16];
	int32_t id;
	if(!r)
		exit(1);
	r->c = c;
	r->q = &qs[qnext++ % nq];
	r->t0 = now();
	if(post) {
		nghttp2_nv nv[] = { NV(":method", "POST"),
			NV(":scheme", "https"), NV(":authority", "bench"),
			NV(":path", path),
			NV("content-type", "application/dns-message"),
			NV("content-length", clen) };
		nghttp2_data_provider prd;
		snprintf(clen, sizeof(clen), "%zu", r->q->len);
		nv[5].valuelen = strlen(clen);
		prd.source.ptr = r;
		prd.read_callback = body_read;
		id = nghttp2_submit_request(c->s, NULL, nv, 6, &prd, r);
	} else {
		nghttp2_nv nv[] = { NV(":method", "GET"),
			NV(":scheme", "https"), NV(":authority", "bench"),
			NV(":path", r->q->path),
			NV("accept", "application/dns-message") };
		id = nghttp2_submit_request(c->s, NULL, nv, 5, NULL, r);
	}
	if(id < 0) {
		fprintf(stderr, "dohload: submit: %s\n", nghttp2_strerror(id));
		exit(1);
	}
	c->inflight++;
	sent++;
}

static int on_header(nghttp2_session* s, const nghttp2_frame* f,
	const uint8_t* name, size_t namelen, const uint8_t* value,
	size_t valuelen, uint8_t flags, void* user)
{
	struct req* r = nghttp2_session_get_stream_user_data(s,
		f->hd.stream_id);
	(void)flags; (void)user; (void)valuelen;
	if(r && namelen == 7 && memcmp(name, ":status", 7) == 0)
		r->status = atoi((const char*)value);
	return 0;
}

static int on_data(nghttp2_session* s, uint8_t flags, int32_t id,
	const uint8_t* data, size_t len, void* user)
{
	struct req* r = nghttp2_session_get_stream_user_data(s, id);
	(void)flags; (void)user;
	if(r && len >= 4 && r->rcode < 0)
		r->rcode = data[3] & 15;
	return 0;
}

static int on_begin(nghttp2_session* s, const nghttp2_frame* f, void* user)
{
	struct req* r = nghttp2_session_get_stream_user_data(s,
		f->hd.stream_id);
	(void)user;
	if(r && f->hd.type == NGHTTP2_HEADERS)
		r->rcode = -1;
	return 0;
}

static int on_close(nghttp2_session* s, int32_t id, uint32_t code,
	void* user)
{
	struct req* r = nghttp2_session_get_stream_user_data(s, id);
	(void)code; (void)user;
	if(!r)
		return 0;
	if(r->status == 200) {
		done++;
		lat_sum += now() - r->t0;
		if(r->rcode == 0)
			noerror++;
	}
	r->c->inflight--;
	free(r);
	return 0;
}

static void conn_open(struct conn* c, SSL_CTX* ctx,
	const struct sockaddr_in* to, nghttp2_session_callbacks* cbs)
{
	int on = 1;
	c->fd = socket(AF_INET, SOCK_STREAM, 0);
	if(c->fd < 0 || connect(c->fd, (const struct sockaddr*)to,
		sizeof(*to)) != 0) {
		perror("dohload: connect");
		exit(1);
	}
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
	c->ssl = SSL_new(ctx);
	SSL_set_fd(c->ssl, c->fd);
	if(SSL_connect(c->ssl) != 1) {
		fprintf(stderr, "dohload: TLS handshake failed\n");
		exit(1);
	}
	fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
	if(nghttp2_session_client_new(&c->s, cbs, c) != 0 ||
		nghttp2_submit_settings(c->s, NGHTTP2_FLAG_NONE, NULL, 0) != 0)
		exit(1);
}

/* Everything nghttp2 has for c, in one SSL_write (one record up to 16K;
 * blocking until it is taken). */
static void conn_send(struct conn* c)
{
	const uint8_t* d;
	ssize_t n;
	size_t pos = 0;
	c->out_len = 0;
	while((n = nghttp2_session_mem_send(c->s, &d)) > 0) {
		if(c->out_len + (size_t)n > sizeof(c->out))
			break;   /* the rest next turn (frames are whole) */
		memcpy(c->out + c->out_len, d, (size_t)n);
		c->out_len += (size_t)n;
	}
	if(n < 0) {
		fprintf(stderr, "dohload: %s\n", nghttp2_strerror((int)n));
		exit(1);
	}
	while(pos < c->out_len) {
		int w = SSL_write(c->ssl, c->out + pos, (int)(c->out_len - pos));
		if(w > 0) {
			pos += (size_t)w;
			continue;
		}
		if(SSL_get_error(c->ssl, w) == SSL_ERROR_WANT_WRITE ||
			SSL_get_error(c->ssl, w) == SSL_ERROR_WANT_READ) {
			struct pollfd p = { c->fd, POLLOUT, 0 };
			(void)poll(&p, 1, 100);
			continue;
		}
		fprintf(stderr, "dohload: write failed\n");
		exit(1);
	}
}

static void conn_recv(struct conn* c)
{
	uint8_t buf[32768];
	for(;;) {
		int n = SSL_read(c->ssl, buf, sizeof(buf));
		if(n <= 0) {
			int e = SSL_get_error(c->ssl, n);
			if(e == SSL_ERROR_WANT_READ)
				return;
			fprintf(stderr, "dohload: connection closed\n");
			exit(1);
		}
		if(nghttp2_session_mem_recv(c->s, buf, (size_t)n) < 0) {
			fprintf(stderr, "dohload: bad HTTP/2 from server\n");
			exit(1);
		}
	}
}

int main(int argc, char** argv)
{
	struct sockaddr_in to;
	struct conn* cs;
	struct pollfd* pfd;
	nghttp2_session_callbacks* cbs;
	SSL_CTX* ctx;
	FILE* f;
	char line[512];
	double secs, t0, t1;
	int nc, i;
	static const unsigned char alpn[] = "\x02h2";
	if(argc < 8) {
		fprintf(stderr, "usage: dohload ADDR PORT QFILE SECONDS CONNS "
			"OUTSTANDING GET|POST [PATH]\n");
		return 2;
	}
	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	to.sin_port = htons((uint16_t)atoi(argv[2]));
	if(inet_pton(AF_INET, argv[1], &to.sin_addr) != 1)
		return 2;
	secs = atof(argv[4]);
	nc = atoi(argv[5]);
	outstanding = atoi(argv[6]);
	post = strcasecmp(argv[7], "POST") == 0;
	if(argc > 8)
		path = argv[8];
	if(nc < 1 || outstanding < 1 || !(f = fopen(argv[3], "r")))
		return 2;
	while(fgets(line, sizeof(line), f)) {
		if(nq % 1024 == 0 && !(qs = realloc(qs, (nq + 1024) *
			sizeof(*qs))))
			return 1;
		nq += (size_t)make_query(line, &qs[nq]);
	}
	fclose(f);
	if(nq == 0) {
		fprintf(stderr, "dohload: no queries in %s\n", argv[3]);
		return 2;
	}
	ctx = SSL_CTX_new(TLS_client_method());
	SSL_CTX_set_alpn_protos(ctx, alpn, sizeof(alpn) - 1);
	nghttp2_session_callbacks_new(&cbs);
	nghttp2_session_callbacks_set_on_header_callback(cbs, on_header);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cbs,
		on_data);
	nghttp2_session_callbacks_set_on_begin_headers_callback(cbs,
		on_begin);
	nghttp2_session_callbacks_set_on_stream_close_callback(cbs,
		on_close);
	cs = calloc((size_t)nc, sizeof(*cs));
	pfd = calloc((size_t)nc, sizeof(*pfd));
	if(!cs || !pfd)
		return 1;
	for(i = 0; i < nc; i++) {
		conn_open(&cs[i], ctx, &to, cbs);
		pfd[i].fd = cs[i].fd;
		pfd[i].events = POLLIN;
	}
	t0 = now();
	t1 = t0 + secs;
	while(now() < t1) {
		for(i = 0; i < nc; i++) {
			while(cs[i].inflight < outstanding)
				submit(&cs[i]);
			conn_send(&cs[i]);
		}
		if(poll(pfd, (nfds_t)nc, 100) <= 0)
			continue;
		for(i = 0; i < nc; i++)
			if(pfd[i].revents)
				conn_recv(&cs[i]);
	}
	t1 = now() - t0;
	printf("  Queries sent:         %ld\n", sent);
	printf("  Queries completed:    %ld (%.2f%%)\n", done,
		sent ? 100.0 * done / sent : 0.0);
	printf("  Queries lost:         %ld (%.2f%%)\n", sent - done,
		sent ? 100.0 * (sent - done) / sent : 0.0);
	printf("  Response codes:       NOERROR %ld (%.2f%%)\n", noerror,
		done ? 100.0 * noerror / done : 0.0);
	printf("  Queries per second:   %f\n", done / t1);
	printf("  Average Latency (s):  %f\n", done ? lat_sum / done : 0.0);
	return 0;
}
