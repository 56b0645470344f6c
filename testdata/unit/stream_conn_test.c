/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/stream_conn_test.c - the stream connection layer
 * (services/stream_conn.c) over socketpairs and loopback TCP, with a
 * little line protocol: partial reads (a line in pieces, a full input
 * buffer stops reading without being taken for the end), partial writes
 * (a large answer through a small socket buffer, in order), the idle
 * timeout and progress that restarts it, the connection limit on a
 * listener and the eviction of the oldest idle connection, the bound on
 * a client that never reads its answer (and that one reading slowly is
 * not cut off), the drain after an answer, and the same over TLS (a
 * record larger than the input buffer, a large answer through a small
 * socket buffer, a failed handshake), also with the batching BIO
 * (cfg.tls_batch: services/stream_tls_bio.c), where each sealed answer
 * is its own record. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <event2/event.h>
#include "services/stream_conn.h"
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/evp.h>

/* The test protocol: every line "xyz\n" is answered "XYZ\n" (echo
 * mode), or the first line gets `big` bytes of a pattern and the
 * connection is finished (big mode). */
struct t_state {
	struct event_base* base;
	struct stream_pool* pool;
	size_t big;
	int drain_max, drain_ms;
	int opened, closed;
	int seal;                     /* stream_conn_seal after each line */
	enum stream_close_why why;
	struct stream_conn* conn[8];   /* by the order they opened */
	char lines[1024];             /* the lines the server saw */
};

static uint8_t pattern(size_t i)
{
	return (uint8_t)((i * 7) % 251);
}

static void t_opened(void* arg, struct stream_conn* c)
{
	struct t_state* t = arg;
	if(t->opened < 8)
		t->conn[t->opened] = c;
	t->opened++;
}

static void t_readable(void* arg, struct stream_conn* c)
{
	struct t_state* t = arg;
	uint8_t* nl;
	while((nl = memchr(c->in, '\n', c->in_len)) != NULL) {
		size_t n = (size_t)(nl - c->in) + 1, i;
		strncat(t->lines, (char*)c->in, n);
		if(t->big) {
			uint8_t* b = malloc(t->big);
			assert_non_null(b);
			for(i = 0; i < t->big; i++)
				b[i] = pattern(i);
			stream_conn_set_busy(c, 1);
			stream_conn_give(c, b, t->big);
			stream_conn_finish(c, t->drain_max, t->drain_ms);
			stream_in_consume(c, c->in_len);
			return;
		}
		assert_true(stream_out_compact(c) >= n);
		for(i = 0; i < n; i++)
			c->out[c->out_end + i] = (uint8_t)(c->in[i] >= 'a' &&
				c->in[i] <= 'z' ? c->in[i] - 32 : c->in[i]);
		c->out_end += n;
		stream_in_consume(c, n);
		stream_conn_touch(c);
		if(t->seal)
			assert_int_equal(stream_conn_seal(c), 1);
	}
	if(c->eof)
		stream_conn_finish(c, 0, 0);
}

static void t_closed(void* arg, struct stream_conn* c,
	enum stream_close_why why)
{
	struct t_state* t = arg;
	(void)c;
	t->closed++;
	t->why = why;
}

static const struct stream_proto t_proto = {
	"test", t_opened, t_readable, NULL, NULL, t_closed
};

static int t_lazy;   /* the next pool's lazy_buffers */
/* cfg.tls_batch for the pools t_setup makes. */
static int tls_batch;

static void t_setup(struct t_state* t, int max_conns, size_t in_cap,
	size_t out_cap, int timeout_ms, int evict)
{
	struct stream_pool_cfg cfg;
	memset(t, 0, sizeof(*t));
	memset(&cfg, 0, sizeof(cfg));
	cfg.max_conns = max_conns;
	cfg.in_cap = in_cap;
	cfg.out_cap = out_cap;
	cfg.timeout_ms = timeout_ms;
	cfg.evict_idle = evict;
	cfg.write_touches = 1;
	cfg.outq_progress = 1;
	cfg.lazy_buffers = t_lazy;
	cfg.tls_batch = tls_batch;
	t->base = event_base_new();
	assert_non_null(t->base);
	t->pool = stream_pool_create(t->base, &cfg, &t_proto, t);
	assert_non_null(t->pool);
}

static void t_teardown(struct t_state* t)
{
	stream_pool_delete(t->pool);
	event_base_free(t->base);
}

/* Run the event loop for ms milliseconds. */
static void pump(struct t_state* t, int ms)
{
	struct timeval tv;
	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	event_base_loopexit(t->base, &tv);
	event_base_dispatch(t->base);
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

static int fcntl_nonblock(int fd)
{
	return fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == -1;
}

/* A connected pair: [0] for the server, [1] the client; both
 * non-blocking. */
static void unix_pair(int sv[2])
{
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0,
		sv), 0);
}

/* The same over loopback TCP, with the buffers given (0: default). */
static void tcp_pair(int sv[2], int sndbuf, int rcvbuf)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(l >= 0);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(l, (struct sockaddr*)&a, sizeof(a)), 0);
	assert_int_equal(listen(l, 1), 0);
	assert_int_equal(getsockname(l, (struct sockaddr*)&a, &len), 0);
	sv[1] = socket(AF_INET, SOCK_STREAM, 0);
	if(rcvbuf)
		setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &rcvbuf,
			sizeof(rcvbuf));
	assert_int_equal(connect(sv[1], (struct sockaddr*)&a, sizeof(a)), 0);
	sv[0] = accept4(l, NULL, NULL, SOCK_NONBLOCK);
	assert_true(sv[0] >= 0);
	if(sndbuf)
		setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf,
			sizeof(sndbuf));
	close(l);
	assert_int_equal(fcntl_nonblock(sv[1]), 0);
}

static void send_str(int fd, const char* s)
{
	assert_int_equal(send(fd, s, strlen(s), MSG_NOSIGNAL),
		(ssize_t)strlen(s));
}

/* What the client has been sent so far (non-blocking), as a string. */
static char* recv_str(int fd, char* buf, size_t len)
{
	ssize_t n = recv(fd, buf, len - 1, MSG_DONTWAIT);
	buf[n > 0 ? n : 0] = 0;
	return buf;
}

static void test_partial_reads(void** state)
{
	struct t_state t;
	char buf[256];
	int sv[2];
	(void)state;
	t_setup(&t, 4, 64, 256, 5000, 0);
	unix_pair(sv);
	assert_int_equal(stream_pool_adopt(t.pool, sv[0], NULL), 1);
	assert_int_equal(stream_pool_num_open(t.pool), 1);
	send_str(sv[1], "ab");
	pump(&t, 10);
	assert_string_equal(recv_str(sv[1], buf, sizeof(buf)), "");
	send_str(sv[1], "c\nde");
	pump(&t, 10);
	assert_string_equal(recv_str(sv[1], buf, sizeof(buf)), "ABC\n");
	send_str(sv[1], "f\ng\nh");
	pump(&t, 10);
	assert_string_equal(recv_str(sv[1], buf, sizeof(buf)), "DEF\nG\n");
	assert_string_equal(t.lines, "abc\ndef\ng\n");
	/* a full input buffer without a line: reading stops, which is not
	 * the end of the input */
	memset(buf, 'x', 100);
	assert_int_equal(send(sv[1], buf, 100, 0), 100);
	pump(&t, 10);
	assert_int_equal(t.closed, 0);
	assert_int_equal(t.conn[0]->in_len, 64);
	assert_false(t.conn[0]->eof);
	assert_int_equal(t.conn[0]->read_on, 0);
	/* the client's end: the answers are out, the connection closes */
	close(sv[1]);
	stream_in_consume(t.conn[0], 64);
	assert_int_equal(stream_conn_flush(t.conn[0]), 1);
	pump(&t, 20);
	assert_int_equal(t.closed, 1);
	assert_int_equal(t.why, STREAM_CLOSE_DONE);
	assert_int_equal(stream_pool_num_open(t.pool), 0);
	t_teardown(&t);
}

static void test_partial_writes(void** state)
{
	struct t_state t;
	size_t got = 0, bad = 0, total = 3 * 1024 * 1024;
	uint8_t buf[65536];
	int sv[2], small = 4096, reads = 0;
	double end;
	(void)state;
	t_setup(&t, 4, 64, 0, 5000, 0);
	t.big = total;
	unix_pair(sv);
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	assert_int_equal(stream_pool_adopt(t.pool, sv[0], NULL), 1);
	send_str(sv[1], "go\n");
	end = now_ms() + 10000;
	while(now_ms() < end) {
		ssize_t n, i;
		pump(&t, 1);
		while((n = recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
			for(i = 0; i < n; i++)
				if(buf[i] != pattern(got + (size_t)i))
					bad++;
			got += (size_t)n;
			reads++;
		}
		if(n == 0)
			break;
	}
	assert_int_equal(got, total);
	assert_int_equal(bad, 0);
	assert_true(reads > 10);   /* it did go out in pieces */
	assert_int_equal(t.closed, 1);
	assert_int_equal(t.why, STREAM_CLOSE_DONE);
	close(sv[1]);
	t_teardown(&t);
}

/* Run until the pool has closed `want` connections, or max_ms. */
static double pump_until_closed(struct t_state* t, int want, int max_ms)
{
	double start = now_ms();
	while(t->closed < want && now_ms() - start < max_ms)
		pump(t, 5);
	return now_ms() - start;
}

static void test_idle_timeout(void** state)
{
	struct t_state t;
	char buf[64];
	double start, took;
	int sv[2], i;
	(void)state;
	t_setup(&t, 4, 64, 256, 80, 0);
	unix_pair(sv);
	start = now_ms();
	assert_int_equal(stream_pool_adopt(t.pool, sv[0], NULL), 1);
	pump_until_closed(&t, 1, 2000);
	took = now_ms() - start;
	assert_int_equal(t.closed, 1);
	assert_int_equal(t.why, STREAM_CLOSE_TIMEOUT);
	assert_true(took >= 75 && took < 1000);
	close(sv[1]);
	/* a line every 40 ms is progress: open after 300 ms, closed
	 * about 80 ms after the last one */
	unix_pair(sv);
	assert_int_equal(stream_pool_adopt(t.pool, sv[0], NULL), 1);
	for(i = 0; i < 8; i++) {
		send_str(sv[1], "q\n");
		pump(&t, 40);
		assert_string_equal(recv_str(sv[1], buf, sizeof(buf)), "Q\n");
	}
	assert_int_equal(t.closed, 1);
	took = pump_until_closed(&t, 2, 2000);
	assert_int_equal(t.closed, 2);
	assert_int_equal(t.why, STREAM_CLOSE_TIMEOUT);
	assert_true(took >= 30 && took < 1000);
	close(sv[1]);
	t_teardown(&t);
}

static void test_eviction(void** state)
{
	struct t_state t;
	int a[2], b[2], c[2], d[2];
	char buf[16];
	(void)state;
	t_setup(&t, 2, 64, 256, 5000, 1);
	unix_pair(a);
	unix_pair(b);
	unix_pair(c);
	unix_pair(d);
	assert_int_equal(stream_pool_adopt(t.pool, a[0], NULL), 1);
	assert_int_equal(stream_pool_adopt(t.pool, b[0], NULL), 1);
	/* the oldest is busy: the oldest idle one (b) makes room */
	stream_conn_set_busy(t.conn[0], 1);
	assert_int_equal(stream_pool_adopt(t.pool, c[0], NULL), 1);
	assert_int_equal(t.closed, 1);
	assert_int_equal(t.why, STREAM_CLOSE_EVICTED);
	assert_int_equal(stream_pool_num_open(t.pool), 2);
	assert_int_equal(recv(b[1], buf, sizeof(buf), MSG_DONTWAIT), 0);
	assert_int_equal(t.conn[0]->state, STREAM_OPEN);
	/* every one busy: no room, the socket stays the caller's */
	stream_conn_set_busy(t.conn[2], 1);
	assert_int_equal(stream_pool_adopt(t.pool, d[0], NULL), 0);
	assert_int_equal(t.closed, 1);
	/* the slot a closed connection leaves is used again */
	stream_conn_close(t.conn[0]);
	assert_int_equal(stream_pool_adopt(t.pool, d[0], NULL), 1);
	assert_int_equal(stream_pool_num_open(t.pool), 2);
	assert_ptr_equal(t.conn[3], t.conn[0]);
	close(a[1]);
	close(b[1]);
	close(c[1]);
	close(d[1]);
	t_teardown(&t);
	/* without eviction, the limit is the limit */
	t_setup(&t, 1, 64, 256, 5000, 0);
	unix_pair(a);
	unix_pair(b);
	assert_int_equal(stream_pool_adopt(t.pool, a[0], NULL), 1);
	assert_int_equal(stream_pool_adopt(t.pool, b[0], NULL), 0);
	close(b[0]);
	close(b[1]);
	close(a[1]);
	t_teardown(&t);
}

static void test_listener_limit(void** state)
{
	struct t_state t;
	struct sockaddr_un sun;
	socklen_t slen;
	int l, cl[3], i;
	(void)state;
	t_setup(&t, 2, 64, 256, 5000, 0);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	/* an abstract name: no file to clean up */
	snprintf(sun.sun_path + 1, sizeof(sun.sun_path) - 1,
		"stream_conn_test.%d", (int)getpid());
	slen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
		strlen(sun.sun_path + 1));
	l = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	assert_int_equal(bind(l, (struct sockaddr*)&sun, slen), 0);
	assert_int_equal(listen(l, 8), 0);
	assert_int_equal(stream_pool_add_listener(t.pool, l, NULL), 1);
	for(i = 0; i < 3; i++) {
		cl[i] = socket(AF_UNIX, SOCK_STREAM, 0);
		assert_int_equal(connect(cl[i], (struct sockaddr*)&sun, slen),
			0);
	}
	pump(&t, 20);
	assert_int_equal(t.opened, 2);
	assert_int_equal(stream_pool_num_open(t.pool), 2);
	/* one leaves: the third, waiting in the backlog, gets its slot */
	close(cl[0]);
	pump(&t, 20);
	assert_int_equal(t.closed, 1);
	assert_int_equal(t.opened, 3);
	assert_int_equal(stream_pool_num_open(t.pool), 2);
	send_str(cl[2], "hi\n");
	pump(&t, 20);
	assert_string_equal(t.lines, "hi\n");
	stream_pool_remove_listener(t.pool, l);
	close(l);
	close(cl[1]);
	close(cl[2]);
	t_teardown(&t);
}

/* Closed connections give their buffers back: a few stay with the pool
 * for the next one, the rest are freed, so a burst of connections (the
 * backlog after accepting paused) does not leave every slot it filled
 * holding its buffers. */
static void test_buffers_follow_open(void** state)
{
	struct t_state t;
	int sv[20][2], i;
	const size_t per = 64 + 1 + 256;
	(void)state;
	t_setup(&t, 20, 64, 256, 5000, 0);
	assert_int_equal(stream_pool_buffer_bytes(t.pool), 0);
	for(i = 0; i < 20; i++) {
		unix_pair(sv[i]);
		assert_int_equal(stream_pool_adopt(t.pool, sv[i][0], NULL), 1);
	}
	assert_int_equal(stream_pool_buffer_bytes(t.pool), 20 * per);
	for(i = 0; i < 20; i++) {
		stream_conn_close(stream_pool_conn(t.pool, i));
		close(sv[i][1]);
	}
	assert_int_equal(stream_pool_num_open(t.pool), 0);
	/* the stash keeps 8 of each */
	assert_int_equal(stream_pool_buffer_bytes(t.pool), 8 * per);
	/* and the next connection takes its buffers from there */
	unix_pair(sv[0]);
	assert_int_equal(stream_pool_adopt(t.pool, sv[0][0], NULL), 1);
	assert_int_equal(stream_pool_buffer_bytes(t.pool), 8 * per);
	send_str(sv[0][1], "ab\n");
	pump(&t, 20);
	assert_string_equal(t.lines, "ab\n");
	close(sv[0][1]);
	t_teardown(&t);
}

static void test_never_reads(void** state)
{
	struct t_state t;
	uint8_t buf[32768];
	size_t got = 0;
	double took, start;
	int sv[2];
	(void)state;
	/* the answer is far more than the kernel holds for the client */
	t_setup(&t, 4, 64, 0, 150, 0);
	t.big = 1024 * 1024;
	tcp_pair(sv, 16384, 16384);
	assert_int_equal(stream_pool_adopt(t.pool, sv[0], NULL), 1);
	send_str(sv[1], "go\n");
	took = pump_until_closed(&t, 1, 5000);
	assert_int_equal(t.closed, 1);
	assert_int_equal(t.why, STREAM_CLOSE_TIMEOUT);
	assert_true(took < 2000);
	close(sv[1]);
	/* one that reads slowly (32 KiB every 60 ms, longer in all than
	 * the timeout many times over) gets the whole answer */
	t.big = 512 * 1024;
	tcp_pair(sv, 16384, 16384);
	assert_int_equal(stream_pool_adopt(t.pool, sv[0], NULL), 1);
	send_str(sv[1], "go\n");
	start = now_ms();
	while(got < t.big && now_ms() - start < 20000) {
		ssize_t n;
		pump(&t, 60);
		n = recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT);
		if(n == 0)
			break;
		if(n > 0)
			got += (size_t)n;
	}
	assert_int_equal(got, t.big);
	assert_true(now_ms() - start > 600);
	pump_until_closed(&t, 2, 2000);
	assert_int_equal(t.closed, 2);
	assert_int_equal(t.why, STREAM_CLOSE_DONE);
	close(sv[1]);
	t_teardown(&t);
}

static void test_drain(void** state)
{
	struct t_state t;
	char buf[2048];
	size_t got = 0;
	ssize_t n;
	int sv[2], i;
	(void)state;
	t_setup(&t, 4, 64, 0, 5000, 0);
	t.big = 1000;
	t.drain_max = 100;
	t.drain_ms = 2000;
	unix_pair(sv);
	assert_int_equal(stream_pool_adopt(t.pool, sv[0], NULL), 1);
	send_str(sv[1], "go\n");
	for(i = 0; i < 20 && got < 1000; i++) {
		pump(&t, 5);
		while((n = recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT)) > 0)
			got += (size_t)n;
	}
	assert_int_equal(got, 1000);
	/* our side is shut: the client sees the end, and what it still
	 * sends is dropped, up to drain_max */
	pump(&t, 5);
	assert_int_equal(recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT), 0);
	assert_int_equal(t.conn[0]->state, STREAM_DRAIN);
	assert_false(t.conn[0]->busy);
	memset(buf, 'x', 150);
	assert_int_equal(send(sv[1], buf, 60, 0), 60);
	pump(&t, 10);
	assert_int_equal(t.closed, 0);
	assert_int_equal(send(sv[1], buf, 60, 0), 60);
	pump(&t, 10);
	assert_int_equal(t.closed, 1);
	assert_string_equal(t.lines, "go\n");
	close(sv[1]);
	t_teardown(&t);
}

/* A server context with a fresh self-signed P-256 certificate. */
static SSL_CTX* server_ctx(void)
{
	EVP_PKEY* key = EVP_EC_gen("P-256");
	X509* x = X509_new();
	X509_NAME* n;
	SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
	assert_non_null(key);
	assert_non_null(x);
	assert_non_null(ctx);
	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
	X509_gmtime_adj(X509_getm_notBefore(x), 0);
	X509_gmtime_adj(X509_getm_notAfter(x), 3600);
	X509_set_pubkey(x, key);
	n = X509_get_subject_name(x);
	X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_ASC,
		(const unsigned char*)"stream-test", -1, -1, 0);
	X509_set_issuer_name(x, n);
	assert_true(X509_sign(x, key, EVP_sha256()) > 0);
	assert_int_equal(SSL_CTX_use_certificate(ctx, x), 1);
	assert_int_equal(SSL_CTX_use_PrivateKey(ctx, key), 1);
	X509_free(x);
	EVP_PKEY_free(key);
	return ctx;
}

/* The client's side of a TLS connection on fd (non-blocking), its
 * handshake run against the pool's event loop. */
static SSL* client_tls(struct t_state* t, SSL_CTX* cctx, int fd)
{
	SSL* ssl = SSL_new(cctx);
	int i, r = 0;
	assert_non_null(ssl);
	SSL_set_fd(ssl, fd);
	for(i = 0; i < 400 && (r = SSL_connect(ssl)) != 1; i++)
		pump(t, 5);
	assert_int_equal(r, 1);
	return ssl;
}

/* Everything the server sends until it closes (or max_ms). */
static size_t tls_read_all(struct t_state* t, SSL* ssl, uint8_t* out,
	size_t cap, int max_ms)
{
	size_t got = 0;
	double end = now_ms() + max_ms;
	while(now_ms() < end && got < cap) {
		int n = SSL_read(ssl, out + got, (int)(cap - got));
		if(n > 0) {
			got += (size_t)n;
			continue;
		}
		if(SSL_get_error(ssl, n) != SSL_ERROR_WANT_READ)
			break;
		pump(t, 2);
	}
	return got;
}

static void tls_cases(void)
{
	struct t_state t;
	SSL_CTX* sctx = server_ctx();
	SSL_CTX* cctx = SSL_CTX_new(TLS_client_method());
	static uint8_t buf[1100000];
	char lines[1001], want[1001];
	size_t got, i;
	int sv[2], small = 4096;
	SSL* ssl;
	assert_non_null(cctx);
	/* many lines in one record, more than the 64 byte input buffer:
	 * what TLS decrypted and the buffer could not take yet is read
	 * without a socket event */
	t_setup(&t, 4, 64, 256, 5000, 0);
	unix_pair(sv);
	assert_int_equal(stream_pool_adopt(t.pool, sv[0], sctx), 1);
	assert_int_equal(t.conn[0]->state, STREAM_HANDSHAKE);
	ssl = client_tls(&t, cctx, sv[1]);
	for(i = 0; i < 100; i++) {
		memcpy(lines + i * 10, "line-abcd\n", 10);
		memcpy(want + i * 10, "LINE-ABCD\n", 10);
	}
	lines[1000] = want[1000] = 0;
	assert_int_equal(SSL_write(ssl, lines, 1000), 1000);
	got = tls_read_all(&t, ssl, buf, 1000, 3000);
	assert_int_equal(got, 1000);
	assert_memory_equal(buf, want, 1000);
	assert_int_equal(strlen(t.lines), 1000);
	/* the client's close_notify ends the input */
	SSL_shutdown(ssl);
	pump_until_closed(&t, 1, 2000);
	assert_int_equal(t.closed, 1);
	assert_int_equal(t.why, STREAM_CLOSE_DONE);
	SSL_free(ssl);
	close(sv[1]);
	t_teardown(&t);

	/* a large answer through a small socket buffer, in order, then
	 * the server's close_notify */
	t_setup(&t, 4, 64, 0, 5000, 0);
	t.big = 1000000;
	unix_pair(sv);
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	assert_int_equal(stream_pool_adopt(t.pool, sv[0], sctx), 1);
	ssl = client_tls(&t, cctx, sv[1]);
	assert_int_equal(SSL_write(ssl, "go\n", 3), 3);
	got = tls_read_all(&t, ssl, buf, sizeof(buf), 10000);
	assert_int_equal(got, t.big);
	for(i = 0; i < got; i++)
		if(buf[i] != pattern(i))
			break;
	assert_int_equal(i, got);
	assert_int_equal(SSL_get_shutdown(ssl) & SSL_RECEIVED_SHUTDOWN,
		SSL_RECEIVED_SHUTDOWN);
	assert_int_equal(t.closed, 1);
	assert_int_equal(t.why, STREAM_CLOSE_DONE);
	SSL_free(ssl);
	close(sv[1]);

	/* not TLS at all: the handshake fails, the connection closes */
	unix_pair(sv);
	assert_int_equal(stream_pool_adopt(t.pool, sv[0], sctx), 1);
	send_str(sv[1], "GET / HTTP/1.0\r\n\r\n");
	pump_until_closed(&t, 2, 2000);
	assert_int_equal(t.closed, 2);
	assert_int_equal(t.why, STREAM_CLOSE_ERROR);
	assert_int_equal(t.opened, 2);
	close(sv[1]);
	t_teardown(&t);
	SSL_CTX_free(sctx);
	SSL_CTX_free(cctx);
}

static void test_tls(void** state)
{
	(void)state;
	tls_batch = 0;
	tls_cases();
}

/* Read from ssl until n bytes came (or max_ms). */
static size_t tls_read_n(struct t_state* t, SSL* ssl, char* out, size_t n,
	int max_ms)
{
	size_t got = 0;
	double end = now_ms() + max_ms;
	while(now_ms() < end && got < n) {
		int r = SSL_read(ssl, out + got, (int)(n - got));
		if(r > 0)
			got += (size_t)r;
		else	pump(t, 2);
	}
	return got;
}

static void test_tls_lazy_buffers(void** state)
{
	struct t_state t;
	SSL_CTX* sctx = server_ctx();
	SSL_CTX* cctx = SSL_CTX_new(TLS_client_method());
	SSL* ssl[2];
	int sv[2][2], i;
	char buf[64];
	(void)state;
	assert_non_null(cctx);
	t_lazy = 1;
	t_setup(&t, 4, 64, 256, 5000, 0);
	t_lazy = 0;
	for(i = 0; i < 2; i++) {
		unix_pair(sv[i]);
		assert_int_equal(stream_pool_adopt(t.pool, sv[i][0], sctx), 1);
		ssl[i] = client_tls(&t, cctx, sv[i][1]);
	}
	pump(&t, 20);
	/* handshaken and idle: no buffers */
	for(i = 0; i < 2; i++) {
		assert_int_equal(t.conn[i]->state, STREAM_OPEN);
		assert_null(t.conn[i]->in);
		assert_null(t.conn[i]->out);
	}
	/* both ask at once: each its own buffers, answered, given back */
	assert_int_equal(SSL_write(ssl[0], "one\n", 4), 4);
	assert_int_equal(SSL_write(ssl[1], "two\n", 4), 4);
	assert_int_equal(tls_read_n(&t, ssl[0], buf, 4, 3000), 4);
	assert_memory_equal(buf, "ONE\n", 4);
	assert_int_equal(tls_read_n(&t, ssl[1], buf, 4, 3000), 4);
	assert_memory_equal(buf, "TWO\n", 4);
	pump(&t, 10);
	assert_null(t.conn[0]->in);
	assert_null(t.conn[1]->in);
	/* idle with half a line read: the buffer and the half stay */
	assert_int_equal(SSL_write(ssl[0], "thr", 3), 3);
	pump(&t, 30);
	assert_non_null(t.conn[0]->in);
	assert_int_equal(t.conn[0]->in_len, 3);
	assert_null(t.conn[1]->in);
	assert_int_equal(SSL_write(ssl[0], "ee\n", 3), 3);
	assert_int_equal(tls_read_n(&t, ssl[0], buf, 6, 3000), 6);
	assert_memory_equal(buf, "THREE\n", 6);
	pump(&t, 10);
	assert_null(t.conn[0]->in);
	assert_string_equal(t.lines, "one\ntwo\nthree\n");
	/* the clients' close_notify: the server reads it with no buffers
	 * of its own and OpenSSL's made again */
	for(i = 0; i < 2; i++) {
		SSL_shutdown(ssl[i]);
		pump_until_closed(&t, i + 1, 2000);
		assert_int_equal(t.closed, i + 1);
		assert_int_equal(t.why, STREAM_CLOSE_DONE);
		SSL_free(ssl[i]);
		close(sv[i][1]);
	}
	t_teardown(&t);
	SSL_CTX_free(sctx);
	SSL_CTX_free(cctx);
}

/* Client records read in one recv(), each answer sealed: one record an
 * answer (the client, without read-ahead, gets one per SSL_read), all
 * in order. */
static void test_tls_batch(void** state)
{
	struct t_state t;
	SSL_CTX* sctx = server_ctx();
	SSL_CTX* cctx = SSL_CTX_new(TLS_client_method());
	uint8_t buf[64];
	int sv[2], i, n, k;
	SSL* ssl;
	(void)state;
	tls_batch = 1;
	tls_cases();
	t_setup(&t, 4, 4096, 4096, 5000, 0);
	t.seal = 1;
	unix_pair(sv);
	assert_int_equal(stream_pool_adopt(t.pool, sv[0], sctx), 1);
	ssl = client_tls(&t, cctx, sv[1]);
	for(i = 0; i < 20; i++) {
		char line[32];
		snprintf(line, sizeof(line), "rec-%02d\n", i);
		assert_int_equal(SSL_write(ssl, line, 7), 7);
	}
	for(i = 0; i < 20; i++) {
		char want[32];
		double end = now_ms() + 3000;
		snprintf(want, sizeof(want), "REC-%02d\n", i);
		while((n = SSL_read(ssl, buf, sizeof(buf))) <= 0 &&
			SSL_get_error(ssl, n) == SSL_ERROR_WANT_READ &&
			now_ms() < end)
			pump(&t, 2);
		assert_int_equal(n, 7);
		assert_memory_equal(buf, want, 7);
	}
	k = (int)strlen(t.lines);
	assert_int_equal(k, 140);
	SSL_shutdown(ssl);
	pump_until_closed(&t, 1, 2000);
	assert_int_equal(t.closed, 1);
	SSL_free(ssl);
	close(sv[1]);
	t_teardown(&t);
	SSL_CTX_free(sctx);
	SSL_CTX_free(cctx);
	tls_batch = 0;
}

/* Packets waiting on the client's end of a SOCK_SEQPACKET pair (each is
 * one send of the server's), fed to the client's memory BIO; the server
 * runs until at least one came (or max_ms). */
static int seq_recv(struct t_state* t, int fd, BIO* into, int max_ms)
{
	static uint8_t pkt[40000];
	double end = now_ms() + max_ms;
	int n = 0;
	for(;;) {
		ssize_t r = recv(fd, pkt, sizeof(pkt), MSG_DONTWAIT);
		if(r > 0) {
			assert_int_equal(BIO_write(into, pkt, (int)r), (int)r);
			n++;
			continue;
		}
		if(n > 0 || now_ms() >= end)
			return n;
		pump(t, 2);
	}
}

/* One query on the client (its records to the socket, the server's
 * from rbio): the answer, and how many sends of the server's it took. */
static int seq_query(struct t_state* t, SSL* ssl, int fd, BIO* rbio,
	const char* q, const char* want)
{
	char buf[64];
	int sends, n;
	assert_int_equal(SSL_write(ssl, q, (int)strlen(q)), (int)strlen(q));
	sends = seq_recv(t, fd, rbio, 3000);
	n = SSL_read(ssl, buf, sizeof(buf));
	assert_int_equal(n, (int)strlen(want));
	assert_memory_equal(buf, want, strlen(want));
	return sends;
}

/* DNS over TLS's pool (lazy buffers, the batching BIO): a client whose
 * Finished and first query come in one wake-up gets the session ticket
 * and the answer in one send, and the handshake's flight went out
 * although OpenSSL's own flush no longer sends. SOCK_SEQPACKET keeps
 * each send of the server's apart. */
static void test_tls_ticket_with_answer(void** state)
{
	struct t_state t;
	SSL_CTX* sctx = server_ctx();
	SSL_CTX* cctx = SSL_CTX_new(TLS_client_method());
	BIO* rbio = BIO_new(BIO_s_mem());
	SSL* ssl;
	int sv[2], r, i;
	(void)state;
	SSL_CTX_set_num_tickets(sctx, 1);
	t_lazy = 1;
	tls_batch = 1;
	t_setup(&t, 4, 4096, 4096, 5000, 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK,
		0, sv), 0);
	assert_int_equal(stream_pool_adopt(t.pool, sv[0], sctx), 1);
	assert_non_null(ssl = SSL_new(cctx));
	SSL_set_bio(ssl, rbio, BIO_new_socket(sv[1], BIO_NOCLOSE));
	SSL_set_connect_state(ssl);
	for(i = 0; i < 10 && (r = SSL_connect(ssl)) != 1; i++) {
		assert_int_equal(SSL_get_error(ssl, r), SSL_ERROR_WANT_READ);
		/* the server's flight: one send */
		assert_int_equal(seq_recv(&t, sv[1], rbio, 3000), 1);
	}
	assert_int_equal(r, 1);
	/* Finished and the query wait together: ticket and answer in one */
	assert_int_equal(seq_query(&t, ssl, sv[1], rbio, "first\n",
		"FIRST\n"), 1);
	assert_true(SSL_SESSION_is_resumable(SSL_get0_session(ssl)));
	assert_int_equal(seq_query(&t, ssl, sv[1], rbio, "second\n",
		"SECOND\n"), 1);
	SSL_shutdown(ssl);
	pump_until_closed(&t, 1, 2000);
	assert_int_equal(t.closed, 1);
	SSL_free(ssl);
	close(sv[1]);
	t_teardown(&t);
	SSL_CTX_free(sctx);
	SSL_CTX_free(cctx);
	tls_batch = 0;
	t_lazy = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_partial_reads),
		cmocka_unit_test(test_partial_writes),
		cmocka_unit_test(test_idle_timeout),
		cmocka_unit_test(test_eviction),
		cmocka_unit_test(test_listener_limit),
		cmocka_unit_test(test_buffers_follow_open),
		cmocka_unit_test(test_never_reads),
		cmocka_unit_test(test_drain),
		cmocka_unit_test(test_tls),
		cmocka_unit_test(test_tls_lazy_buffers),
		cmocka_unit_test(test_tls_batch),
		cmocka_unit_test(test_tls_ticket_with_answer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
