/* contrib/bench/trivial_responder.c - the floor for the cache-hit
 * benchmark: answers every query with its own question plus one fixed
 * A record (192.0.2.1, TTL 3600), no parsing beyond finding the end of
 * the question, no cache, no EDNS. UDP with recvmmsg/sendmmsg in
 * batches of 32; TCP (2-byte length framing) on one poll() loop.
 * Single-threaded on purpose: it measures what the kernel path costs.
 *   trivial_responder ADDR PORT
 * Build: cc -O2 -o trivial_responder trivial_responder.c */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define BATCH 32
#define PKT 512
#define MAXTCP 256

/* Turn the query in buf (len bytes) into the reply in place; returns the
 * reply length or 0 to drop. */
static size_t answer(uint8_t* buf, size_t len, size_t cap)
{
	static const uint8_t rr[] = { 0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0x0e, 0x10,
		0, 4, 192, 0, 2, 1 };
	size_t p = 12;
	if(len < 17 || (buf[2] & 0x80))
		return 0;
	while(p < len && buf[p] != 0) {
		if(buf[p] & 0xc0)
			return 0;
		p += (size_t)buf[p] + 1;
	}
	p += 5; /* root label, qtype, qclass */
	if(p > len || p + sizeof(rr) > cap)
		return 0;
	buf[2] = (uint8_t)((buf[2] & 0x01) | 0x84); /* QR AA, keep RD */
	buf[3] = 0x80;                              /* RA, NOERROR */
	buf[4] = 0; buf[5] = 1; buf[6] = 0; buf[7] = 1;
	memset(buf + 8, 0, 4);
	memcpy(buf + p, rr, sizeof(rr));
	return p + sizeof(rr);
}

static int listen_on(const char* addr, int port, int type)
{
	struct sockaddr_in sa;
	int one = 1, fd = socket(AF_INET, type, 0);
	if(fd < 0)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	if(inet_pton(AF_INET, addr, &sa.sin_addr) != 1)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if(bind(fd, (struct sockaddr*)&sa, sizeof(sa)) < 0)
		return -1;
	if(type == SOCK_STREAM && listen(fd, 1024) < 0)
		return -1;
	fcntl(fd, F_SETFL, O_NONBLOCK);
	return fd;
}

/* One batch; returns how many queries it read (BATCH: maybe more). */
static int serve_udp(int fd, uint8_t bufs[][PKT])
{
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	struct sockaddr_in from[BATCH];
	int n, i, k = 0;
	memset(msgs, 0, sizeof(msgs));
	for(i = 0; i < BATCH; i++) {
		iov[i].iov_base = bufs[i];
		iov[i].iov_len = PKT;
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
		msgs[i].msg_hdr.msg_name = &from[i];
		msgs[i].msg_hdr.msg_namelen = sizeof(from[i]);
	}
	n = recvmmsg(fd, msgs, BATCH, MSG_DONTWAIT, NULL);
	if(n <= 0)
		return 0;
	for(i = 0; i < n; i++) {
		size_t r = answer(bufs[i], msgs[i].msg_len, PKT);
		if(r == 0)
			continue;
		/* compact the replies to send into the first k slots */
		iov[k].iov_base = bufs[i];
		iov[k].iov_len = r;
		msgs[k].msg_hdr.msg_iov = &iov[k];
		msgs[k].msg_hdr.msg_name = &from[i];
		msgs[k].msg_hdr.msg_namelen = msgs[i].msg_hdr.msg_namelen;
		k++;
	}
	if(k > 0)
		sendmmsg(fd, msgs, (unsigned)k, MSG_DONTWAIT);
	return n;
}

struct conn {
	int fd;
	size_t have;
	uint8_t buf[PKT + 2];
};

/* Read what is there; answer every complete query. 0: keep, -1: close. */
static int serve_tcp(struct conn* c)
{
	ssize_t n = read(c->fd, c->buf + c->have, sizeof(c->buf) - c->have);
	if(n <= 0)
		return (n < 0 && errno == EAGAIN) ? 0 : -1;
	c->have += (size_t)n;
	while(c->have >= 2) {
		size_t ql = ((size_t)c->buf[0] << 8) | c->buf[1], r;
		uint8_t out[PKT + 2];
		if(ql > PKT - 16)
			return -1;
		if(c->have < ql + 2)
			break;
		memcpy(out + 2, c->buf + 2, ql);
		r = answer(out + 2, ql, PKT);
		if(r == 0)
			return -1;
		out[0] = (uint8_t)(r >> 8);
		out[1] = (uint8_t)r;
		if(write(c->fd, out, r + 2) != (ssize_t)(r + 2))
			return -1; /* a benchmark client never fills the buffer */
		memmove(c->buf, c->buf + 2 + ql, c->have - 2 - ql);
		c->have -= 2 + ql;
	}
	return 0;
}

int main(int argc, char** argv)
{
	static uint8_t bufs[BATCH][PKT];
	static struct conn conns[MAXTCP];
	struct pollfd pfd[MAXTCP + 2];
	int udp, tcp, nc = 0, i, one = 1;
	if(argc != 3) {
		fprintf(stderr, "usage: %s ADDR PORT\n", argv[0]);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	udp = listen_on(argv[1], atoi(argv[2]), SOCK_DGRAM);
	tcp = listen_on(argv[1], atoi(argv[2]), SOCK_STREAM);
	if(udp < 0 || tcp < 0) {
		perror("trivial_responder: bind");
		return 1;
	}
	for(;;) {
		pfd[0].fd = udp;
		pfd[0].events = POLLIN;
		pfd[1].fd = tcp;
		pfd[1].events = nc < MAXTCP ? POLLIN : 0;
		for(i = 0; i < nc; i++) {
			pfd[i + 2].fd = conns[i].fd;
			pfd[i + 2].events = POLLIN;
		}
		if(poll(pfd, (nfds_t)nc + 2, -1) < 0)
			continue;
		if(pfd[0].revents & POLLIN)
			while(serve_udp(udp, bufs) == BATCH)
				; /* drain before polling again */
		for(i = nc - 1; i >= 0; i--) {
			if(pfd[i + 2].revents == 0)
				continue;
			if(serve_tcp(&conns[i]) < 0) {
				close(conns[i].fd);
				conns[i] = conns[--nc];
			}
		}
		if(pfd[1].revents & POLLIN) {
			int fd;
			while(nc < MAXTCP && (fd = accept4(tcp, NULL, NULL,
				SOCK_NONBLOCK)) >= 0) {
				setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
					sizeof(one));
				conns[nc].fd = fd;
				conns[nc].have = 0;
				nc++;
			}
		}
	}
}
