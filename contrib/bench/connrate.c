/* SPDX-License-Identifier: BSD-3-Clause */
/* contrib/bench/connrate.c - TCP connection-rate client: each of T
 * threads loops connect, send one query (2-byte length framing), read
 * the whole answer, close, for S seconds; prints connections/s.
 *   connrate ADDR PORT SECONDS THREADS QNAME [QTYPE-number [TLS]]
 * TLS: "plain" (default), "tls" (DNS over TLS, a full handshake per
 * connection) or "tls-resume" (each thread resumes the session of its
 * first connection, by ticket). The server's certificate is not
 * verified (the bench makes its own).
 * Output (one line): conns=N failed=F seconds=S conns_per_s=R
 * resumed=N (TLS: connections whose session was resumed)
 * The client closes first, so its ports go to TIME_WAIT; Linux reuses
 * them on loopback (net.ipv4.tcp_tw_reuse=2, the default).
 * Build: cc -O2 -pthread -o connrate connrate.c -lssl -lcrypto */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <openssl/ssl.h>
#include <openssl/err.h>

enum tls_mode { PLAIN, TLS_FULL, TLS_RESUME };
static enum tls_mode tls_mode = PLAIN;
static SSL_CTX* cctx;

struct job {
	struct sockaddr_in to;
	uint8_t q[300];
	size_t qlen;
	double until;
	long ok, failed, resumed;
	SSL_SESSION* sess;     /* TLS_RESUME: the one to resume */
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Read and write through TLS or the socket. */
static ssize_t io_read(int fd, SSL* ssl, void* buf, size_t len)
{
	return ssl ? SSL_read(ssl, buf, (int)len) : read(fd, buf, len);
}

static ssize_t io_write(int fd, SSL* ssl, const void* buf, size_t len)
{
	return ssl ? SSL_write(ssl, buf, (int)len) : write(fd, buf, len);
}

/* One connection carrying one query; 0 on a full answer. */
static int one_conn(struct job* j, uint16_t id)
{
	uint8_t buf[4096];
	size_t have = 0, want = 2;
	struct timeval tv = { 2, 0 };
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1, rc = -1;
	SSL* ssl = NULL;
	if(fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	j->q[2] = (uint8_t)(id >> 8);
	j->q[3] = (uint8_t)id;
	if(connect(fd, (struct sockaddr*)&j->to, sizeof(j->to)) < 0)
		goto out;
	if(tls_mode != PLAIN) {
		if(!(ssl = SSL_new(cctx)) || !SSL_set_fd(ssl, fd))
			goto out;
		if(j->sess)
			SSL_set_session(ssl, j->sess);
		if(SSL_connect(ssl) != 1)
			goto out;
		if(SSL_session_reused(ssl))
			j->resumed++;
	}
	if(io_write(fd, ssl, j->q, j->qlen) != (ssize_t)j->qlen)
		goto out;
	while(have < want) {
		ssize_t n = io_read(fd, ssl, buf + have, sizeof(buf) - have);
		if(n <= 0)
			goto out;
		have += (size_t)n;
		if(want == 2 && have >= 2)
			want = 2 + (((size_t)buf[0] << 8) | buf[1]);
		if(want > sizeof(buf))
			break;
	}
	rc = (have >= 4 && buf[2] == j->q[2] && buf[3] == j->q[3]) ? 0 : -1;
	/* TLS 1.3: the ticket came after the handshake, with the answer;
	 * a TLS 1.3 session is for one use: the next one resumes the
	 * newest ticket */
	if(rc == 0 && tls_mode == TLS_RESUME) {
		SSL_SESSION* s = SSL_get1_session(ssl);
		if(s) {
			SSL_SESSION_free(j->sess);
			j->sess = s;
		}
	}
out:
	if(ssl) {
		/* a clean close keeps the session resumable */
		(void)SSL_shutdown(ssl);
		SSL_free(ssl);
		ERR_clear_error();
	}
	close(fd);
	return rc;
}

static void* run(void* arg)
{
	struct job* j = arg;
	uint16_t id = (uint16_t)(uintptr_t)j;
	while(now() < j->until) {
		if(one_conn(j, id++) == 0)
			j->ok++;
		else
			j->failed++;
	}
	return NULL;
}

/* query packet with 2-byte length prefix: RD, no EDNS */
static size_t mk_query(uint8_t* p, const char* name, int qtype)
{
	size_t n = 14;
	const char* s = name;
	memset(p, 0, 14);
	p[4] = 0x01;          /* RD */
	p[7] = 1;             /* QDCOUNT */
	while(*s) {
		const char* dot = strchr(s, '.');
		size_t l = dot ? (size_t)(dot - s) : strlen(s);
		if(l == 0 || l > 63 || n + l + 7 > 300)
			return 0;
		p[n++] = (uint8_t)l;
		memcpy(p + n, s, l);
		n += l;
		s += l + (dot ? 1 : 0);
	}
	p[n++] = 0;
	p[n++] = (uint8_t)(qtype >> 8);
	p[n++] = (uint8_t)qtype;
	p[n++] = 0;
	p[n++] = 1;
	p[0] = (uint8_t)((n - 2) >> 8);
	p[1] = (uint8_t)(n - 2);
	return n;
}

int main(int argc, char** argv)
{
	struct job* jobs;
	pthread_t* tids;
	double secs, start;
	long ok = 0, failed = 0, resumed = 0;
	int i, nt;
	if(argc < 6) {
		fprintf(stderr, "usage: %s ADDR PORT SECONDS THREADS QNAME "
			"[QTYPE [plain|tls|tls-resume]]\n", argv[0]);
		return 2;
	}
	secs = atof(argv[3]);
	nt = atoi(argv[4]);
	if(nt < 1 || nt > 1024 || secs <= 0)
		return 2;
	if(argc > 7 && strcmp(argv[7], "tls") == 0)
		tls_mode = TLS_FULL;
	else if(argc > 7 && strcmp(argv[7], "tls-resume") == 0)
		tls_mode = TLS_RESUME;
	else if(argc > 7 && strcmp(argv[7], "plain") != 0)
		return 2;
	if(tls_mode != PLAIN) {
		if(!(cctx = SSL_CTX_new(TLS_client_method())))
			return 1;
		SSL_CTX_set_verify(cctx, SSL_VERIFY_NONE, NULL);
		SSL_CTX_set_session_cache_mode(cctx, SSL_SESS_CACHE_CLIENT);
	}
	jobs = calloc((size_t)nt, sizeof(*jobs));
	tids = calloc((size_t)nt, sizeof(*tids));
	if(!jobs || !tids)
		return 1;
	start = now();
	for(i = 0; i < nt; i++) {
		jobs[i].to.sin_family = AF_INET;
		jobs[i].to.sin_port = htons((uint16_t)atoi(argv[2]));
		if(inet_pton(AF_INET, argv[1], &jobs[i].to.sin_addr) != 1)
			return 2;
		jobs[i].qlen = mk_query(jobs[i].q, argv[5],
			argc > 6 ? atoi(argv[6]) : 1);
		if(jobs[i].qlen == 0)
			return 2;
		jobs[i].until = start + secs;
		pthread_create(&tids[i], NULL, run, &jobs[i]);
	}
	for(i = 0; i < nt; i++) {
		pthread_join(tids[i], NULL);
		ok += jobs[i].ok;
		failed += jobs[i].failed;
		resumed += jobs[i].resumed;
	}
	secs = now() - start;
	printf("conns=%ld failed=%ld seconds=%.2f conns_per_s=%.0f "
		"resumed=%ld\n", ok, failed, secs, (double)ok / secs, resumed);
	return 0;
}
