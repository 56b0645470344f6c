/* SPDX-License-Identifier: BSD-3-Clause */
/* contrib/bench/trivial_responder.c - the floor for the cache-hit
 * benchmark: answers every query with its own question plus one fixed
 * A record (192.0.2.1, TTL 3600), no parsing beyond finding the end of
 * the question, no cache, no EDNS. UDP with recvmmsg/sendmmsg in
 * batches of 32; TCP (2-byte length framing) read and answered in
 * batches like the resolver's (one read, one write per wake-up), all
 * on one epoll loop.
 * Single-threaded on purpose: it measures what the kernel path costs.
 *   trivial_responder ADDR PORT
 * Build: cc -O2 -o trivial_responder trivial_responder.c */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
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

/* TCP as the resolver does it: read all that is there (up to 64 KiB),
 * answer every whole query into one output buffer, one write. */
#define TCPBUF 65536

struct conn {
	int fd;
	size_t have;
	uint8_t in[TCPBUF];
	uint8_t out[TCPBUF];
};

/* Read what is there; answer every complete query. 0: keep, -1: close. */
static int serve_tcp(struct conn* c)
{
	size_t pos = 0, outlen = 0;
	ssize_t n = read(c->fd, c->in + c->have, sizeof(c->in) - c->have);
	if(n <= 0)
		return (n < 0 && errno == EAGAIN) ? 0 : -1;
	c->have += (size_t)n;
	while(c->have - pos >= 2) {
		size_t ql = ((size_t)c->in[pos] << 8) | c->in[pos + 1], r;
		if(ql > PKT - 16)
			return -1;
		if(c->have - pos < ql + 2)
			break;
		if(sizeof(c->out) - outlen < PKT + 2) {
			if(write(c->fd, c->out, outlen) != (ssize_t)outlen)
				return -1;
			outlen = 0;
		}
		memcpy(c->out + outlen + 2, c->in + pos + 2, ql);
		r = answer(c->out + outlen + 2, ql, PKT);
		if(r == 0)
			return -1;
		c->out[outlen] = (uint8_t)(r >> 8);
		c->out[outlen + 1] = (uint8_t)r;
		outlen += r + 2;
		pos += ql + 2;
	}
	memmove(c->in, c->in + pos, c->have - pos);
	c->have -= pos;
	/* a benchmark client reads its answers: a short write is an error */
	if(outlen > 0 && write(c->fd, c->out, outlen) != (ssize_t)outlen)
		return -1;
	return 0;
}

int main(int argc, char** argv)
{
	static uint8_t bufs[BATCH][PKT];
	struct epoll_event ev, evs[64];
	int udp, tcp, ep, nc = 0, i, n;
	if(argc != 3) {
		fprintf(stderr, "usage: %s ADDR PORT\n", argv[0]);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	udp = listen_on(argv[1], atoi(argv[2]), SOCK_DGRAM);
	tcp = listen_on(argv[1], atoi(argv[2]), SOCK_STREAM);
	ep = epoll_create1(0);
	if(udp < 0 || tcp < 0 || ep < 0) {
		perror("trivial_responder: bind");
		return 1;
	}
	/* data.ptr: NULL for the UDP socket, &tcp for the listener, else a
	 * struct conn */
	ev.events = EPOLLIN;
	ev.data.ptr = NULL;
	epoll_ctl(ep, EPOLL_CTL_ADD, udp, &ev);
	ev.data.ptr = &tcp;
	epoll_ctl(ep, EPOLL_CTL_ADD, tcp, &ev);
	for(;;) {
		n = epoll_wait(ep, evs, 64, -1);
		for(i = 0; i < n; i++) {
			struct conn* c = evs[i].data.ptr;
			int fd;
			if(c == NULL) {
				while(serve_udp(udp, bufs) == BATCH)
					; /* drain before waiting again */
			} else if(evs[i].data.ptr == &tcp) {
				while((fd = accept4(tcp, NULL, NULL,
					SOCK_NONBLOCK)) >= 0) {
					c = nc < MAXTCP ? malloc(sizeof(*c)) :
						NULL;
					if(!c) { /* full: refuse by closing */
						close(fd);
						break;
					}
					c->fd = fd;
					c->have = 0;
					ev.data.ptr = c;
					epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
					nc++;
				}
			} else if(serve_tcp(c) < 0) {
				close(c->fd); /* also leaves the epoll set */
				free(c);
				nc--;
			}
		}
	}
}
