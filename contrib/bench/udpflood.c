/* SPDX-License-Identifier: BSD-3-Clause */
/* contrib/bench/udpflood.c - an open-loop UDP query sender: sends DNS
 * queries at a fixed rate without waiting for replies, from many
 * sockets (many source ports), and counts the replies that come back.
 * A closed-loop client (dnsperf) keeps a query in flight until its
 * reply or its timeout, so against a server that drops on purpose (a
 * rate limit) it sends only what its in-flight slots allow; this one
 * offers the rate asked whatever the server does.
 *
 *   udpflood [-b SRC] [-n SOCKETS] [-r RATE] [-t SECONDS] [-w WAIT]
 *            ADDR PORT QNAME [QTYPE-number]
 *
 * QNAME "*.zone." gets a new random 12-letter label in place of "*" in
 * every query (a random-subdomain attack); any other name is sent as it
 * is (a flood of one name). -b: the source address (default any);
 * -n: sockets, each its own ephemeral port (default 64); -r: queries a
 * second (default 50000); -t: seconds of sending (default 10); -w:
 * seconds to count late replies after (default 1). Queries: RD set, no
 * EDNS, as dnsperf sends by default.
 * Output (one line): sent=N send_errors=E replies=R seconds=S
 * sent_per_s=X replies_per_s=Y noerror=.. nxdomain=.. servfail=..
 * refused=.. other_rcode=.. truncated=..; send_errors are queries the
 * kernel refused (EAGAIN, ENOBUFS: the client's own socket was full),
 * not sent; a query the server's full socket buffer drops is sent.
 * Build: cc -O2 -o udpflood udpflood.c */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH 64
#define QMAX 300
#define LABEL_LEN 12

struct counts {
	long sent, send_errors, replies, truncated;
	long rcode[16];
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rng_state;

static uint64_t rng(void)
{
	/* xorshift64: fast, and no query needs more than unpredictability
	 * from one run to the next (names no cache has seen) */
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Encode a dotted name into wire form at out; returns its length, or 0
 * when it does not fit or has an empty or long label. */
static size_t encode_name(const char* name, uint8_t* out, size_t max)
{
	size_t n = 0;
	const char* p = name;
	while (*p) {
		const char* dot = strchr(p, '.');
		size_t len = dot ? (size_t)(dot - p) : strlen(p);
		if (len == 0 || len > 63 || n + len + 2 > max)
			return 0;
		out[n++] = (uint8_t)len;
		memcpy(out + n, p, len);
		n += len;
		p += len;
		if (*p == '.')
			p++;
	}
	out[n++] = 0;
	return n;
}

struct query_template {
	uint8_t wire[QMAX];
	size_t len;
	int random_label;   /* the first label is rewritten per query */
};

static int make_template(struct query_template* t, const char* qname,
	int qtype)
{
	char buf[300];
	const char* name = qname;
	memset(t, 0, sizeof(*t));
	if (strncmp(qname, "*.", 2) == 0) {
		/* a placeholder label of the random label's length */
		snprintf(buf, sizeof(buf), "%.*s%s", LABEL_LEN, "xxxxxxxxxxxx",
			qname + 1);
		name = buf;
		t->random_label = 1;
	}
	t->wire[2] = 0x01;              /* RD */
	t->wire[5] = 1;                 /* QDCOUNT */
	size_t n = encode_name(name, t->wire + 12, QMAX - 12 - 4);
	if (n == 0)
		return -1;
	n += 12;
	t->wire[n++] = (uint8_t)(qtype >> 8);
	t->wire[n++] = (uint8_t)qtype;
	t->wire[n++] = 0;
	t->wire[n++] = 1;               /* IN */
	t->len = n;
	return 0;
}

static void fill_query(const struct query_template* t, uint8_t* out)
{
	memcpy(out, t->wire, t->len);
	uint64_t r = rng();
	out[0] = (uint8_t)r;
	out[1] = (uint8_t)(r >> 8);
	if (t->random_label) {
		for (int i = 0; i < LABEL_LEN; i++) {
			if (i % 8 == 0)
				r = rng();
			out[13 + i] = (uint8_t)('a' + (r & 0xff) % 26);
			r >>= 8;
		}
	}
}

static int open_socket(const struct sockaddr_in* src,
	const struct sockaddr_in* to)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	int buf = 1 << 20;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	if (bind(fd, (const struct sockaddr*)src, sizeof(*src)) != 0 ||
		connect(fd, (const struct sockaddr*)to, sizeof(*to)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Read every reply waiting on fd, counting rcodes. */
static void drain(int fd, struct counts* c)
{
	static uint8_t bufs[BATCH][512];
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	for (;;) {
		memset(msgs, 0, sizeof(msgs));
		for (int i = 0; i < BATCH; i++) {
			iov[i].iov_base = bufs[i];
			iov[i].iov_len = sizeof(bufs[i]);
			msgs[i].msg_hdr.msg_iov = &iov[i];
			msgs[i].msg_hdr.msg_iovlen = 1;
		}
		int n = recvmmsg(fd, msgs, BATCH, MSG_DONTWAIT, NULL);
		if (n <= 0)
			return;
		for (int i = 0; i < n; i++) {
			if (msgs[i].msg_len < 12)
				continue;
			c->replies++;
			c->rcode[bufs[i][3] & 0x0f]++;
			if (bufs[i][2] & 0x02)
				c->truncated++;
		}
	}
}

static void poll_replies(int ep, int timeout_ms, struct counts* c)
{
	struct epoll_event evs[BATCH];
	int n = epoll_wait(ep, evs, BATCH, timeout_ms);
	for (int i = 0; i < n; i++)
		drain(evs[i].data.fd, c);
}

static void usage(void)
{
	fprintf(stderr, "usage: udpflood [-b SRC] [-n SOCKETS] [-r RATE] "
		"[-t SECONDS] [-w WAIT] ADDR PORT QNAME [QTYPE-number]\n");
	exit(2);
}

int main(int argc, char** argv)
{
	const char* src_addr = "0.0.0.0";
	int nsock = 64, opt;
	double rate = 50000, seconds = 10, wait_s = 1;
	while ((opt = getopt(argc, argv, "b:n:r:t:w:")) != -1) {
		switch (opt) {
		case 'b': src_addr = optarg; break;
		case 'n': nsock = atoi(optarg); break;
		case 'r': rate = atof(optarg); break;
		case 't': seconds = atof(optarg); break;
		case 'w': wait_s = atof(optarg); break;
		default: usage();
		}
	}
	if (argc - optind < 3 || nsock < 1 || rate <= 0 || seconds <= 0)
		usage();
	struct sockaddr_in to = { .sin_family = AF_INET }, src = to;
	to.sin_port = htons((uint16_t)atoi(argv[optind + 1]));
	if (inet_pton(AF_INET, argv[optind], &to.sin_addr) != 1 ||
		inet_pton(AF_INET, src_addr, &src.sin_addr) != 1)
		usage();
	int qtype = argc - optind > 3 ? atoi(argv[optind + 3]) : 1;
	struct query_template t;
	if (make_template(&t, argv[optind + 2], qtype) != 0) {
		fprintf(stderr, "udpflood: bad name %s\n", argv[optind + 2]);
		return 2;
	}
	rng_state = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull ^
		(uint64_t)getpid() << 32 ^ (uint64_t)(now() * 1e9);
	if (rng_state == 0)
		rng_state = 1;

	int ep = epoll_create1(0);
	int* fds = calloc((size_t)nsock, sizeof(int));
	if (ep < 0 || !fds)
		return 1;
	for (int i = 0; i < nsock; i++) {
		fds[i] = open_socket(&src, &to);
		if (fds[i] < 0) {
			perror("udpflood: socket");
			return 1;
		}
		struct epoll_event ev = { .events = EPOLLIN, .data.fd = fds[i] };
		epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev);
	}

	static uint8_t qbuf[BATCH][QMAX];
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	struct counts c;
	memset(&c, 0, sizeof(c));
	long attempted = 0;
	int cur = 0;
	double start = now(), t_now;
	while ((t_now = now() - start) < seconds) {
		long due = (long)(rate * t_now) - attempted;
		if (due > 0) {
			int batch = due < BATCH ? (int)due : BATCH;
			memset(msgs, 0, sizeof(struct mmsghdr) * (size_t)batch);
			for (int i = 0; i < batch; i++) {
				fill_query(&t, qbuf[i]);
				iov[i].iov_base = qbuf[i];
				iov[i].iov_len = t.len;
				msgs[i].msg_hdr.msg_iov = &iov[i];
				msgs[i].msg_hdr.msg_iovlen = 1;
			}
			int n = sendmmsg(fds[cur], msgs, (unsigned)batch, 0);
			if (n < 0)
				n = 0;  /* EAGAIN, ENOBUFS: this batch not sent */
			c.sent += n;
			c.send_errors += batch - n;
			attempted += batch;
			cur = (cur + 1) % nsock;
		}
		/* caught up: wait a moment for replies; else only look */
		poll_replies(ep, due > BATCH ? 0 : 1, &c);
	}
	double sent_end = now();
	while (now() - sent_end < wait_s)
		poll_replies(ep, 10, &c);
	double elapsed = sent_end - start;
	long other = c.replies - c.rcode[0] - c.rcode[2] - c.rcode[3] -
		c.rcode[5];
	printf("sent=%ld send_errors=%ld replies=%ld seconds=%.3f "
		"sent_per_s=%.0f replies_per_s=%.0f noerror=%ld nxdomain=%ld "
		"servfail=%ld refused=%ld other_rcode=%ld truncated=%ld\n",
		c.sent, c.send_errors, c.replies, elapsed, c.sent / elapsed,
		c.replies / elapsed, c.rcode[0], c.rcode[3], c.rcode[2],
		c.rcode[5], other, c.truncated);
	for (int i = 0; i < nsock; i++)
		close(fds[i]);
	close(ep);
	free(fds);
	return 0;
}
