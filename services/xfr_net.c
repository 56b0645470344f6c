/* SPDX-License-Identifier: BSD-3-Clause */
/* services/xfr_net.c - SOA probes over UDP and transfers over TCP or TLS,
 * with non-blocking sockets waited on with poll in short slices, so a
 * stop is seen within a fifth of a second. Runs only in the transfer
 * thread. */
#include "config.h"
#include "services/xfr_net.h"
#include "services/stream_tls.h"
#include "services/tls_client.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/msgparse.h"
#include "util/net_help.h"
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/rand.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SLICE_MS 200

long xfr_net_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static uint16_t random_id(void)
{
	uint16_t id = 0;
	if(RAND_bytes((unsigned char*)&id, sizeof(id)) != 1)
		id = (uint16_t)(xfr_net_now_ms() & 0xffff);
	return id;
}

enum xfr_net_result xfr_net_wait_fd(int fd, short ev, long deadline,
	const atomic_int* stop)
{
	for(;;) {
		struct pollfd p;
		long left = deadline - xfr_net_now_ms();
		int r;
		if(stop && atomic_load(stop))
			return XFR_NET_STOPPED;
		if(left <= 0)
			return XFR_NET_TIMEOUT;
		p.fd = fd;
		p.events = ev;
		p.revents = 0;
		r = poll(&p, 1, (int)(left < SLICE_MS ? left : SLICE_MS));
		if(r > 0)
			return XFR_NET_OK;
		if(r < 0 && errno != EINTR)
			return XFR_NET_FAILED;
	}
}

enum xfr_net_result xfr_net_probe(const struct sockaddr_storage* addr,
	socklen_t addrlen, const uint8_t* zone, size_t zone_len,
	uint16_t qclass, int timeout_ms, uint32_t* serial,
	const atomic_int* stop, char* err, size_t errlen)
{
	uint8_t q[512], a[65536];
	uint16_t id = random_id();
	size_t qlen = xfr_wire_query(q, sizeof(q), zone, zone_len, id,
		TYPE_SOA, qclass, 0);
	long deadline = xfr_net_now_ms() + timeout_ms;
	int fd = socket(addr->ss_family, SOCK_DGRAM, 0);
	enum xfr_net_result r;
	if(fd < 0 || connect(fd, (const struct sockaddr*)addr, addrlen) != 0 ||
		send(fd, q, qlen, 0) != (ssize_t)qlen) {
		snprintf(err, errlen, "cannot send: %s", strerror(errno));
		if(fd >= 0)
			close(fd);
		return XFR_NET_FAILED;
	}
	for(;;) {
		ssize_t n;
		size_t pos = 12;
		uint8_t name[256];
		uint16_t an;
		if((r = xfr_net_wait_fd(fd, POLLIN, deadline, stop)) != XFR_NET_OK)
			break;
		n = recv(fd, a, sizeof(a), 0);
		if(n < 0) {
			snprintf(err, errlen, "%s", strerror(errno));
			r = XFR_NET_FAILED;
			break;
		}
		if(n < 12 || a[0] != (id >> 8) || a[1] != (id & 0xff) ||
			!(a[2] & 0x80))
			continue;   /* not our answer: wait on */
		if((a[3] & 0xf) != 0) {
			snprintf(err, errlen, "SOA query answered rcode %d",
				a[3] & 0xf);
			r = XFR_NET_FAILED;
			break;
		}
		an = (uint16_t)((a[6] << 8) | a[7]);
		/* the question, then the first answer: the SOA */
		if(((a[4] << 8) | a[5]) != 1 || !dname_read_wire(a,
			(size_t)n, &pos, name) || (pos += 4) > (size_t)n ||
			an < 1 || !dname_read_wire(a, (size_t)n, &pos, name) ||
			pos + 10 > (size_t)n || query_dname_compare(name,
			zone) != 0 || ((a[pos] << 8) | a[pos+1]) != TYPE_SOA) {
			snprintf(err, errlen, "SOA query answered without "
				"the zone's SOA");
			r = XFR_NET_FAILED;
			break;
		}
		pos += 10;
		/* serial after two names */
		if(!dname_read_wire(a, (size_t)n, &pos, name) ||
			!dname_read_wire(a, (size_t)n, &pos, name) ||
			pos + 20 > (size_t)n) {
			snprintf(err, errlen, "malformed SOA in the answer");
			r = XFR_NET_FAILED;
			break;
		}
		*serial = ((uint32_t)a[pos] << 24) | ((uint32_t)a[pos+1] << 16)
			| ((uint32_t)a[pos+2] << 8) | a[pos+3];
		r = XFR_NET_OK;
		break;
	}
	if(r == XFR_NET_TIMEOUT)
		snprintf(err, errlen, "no answer to the SOA query");
	close(fd);
	return r;
}

/* The transfer's connection: plain TCP, or TLS on it (ssl set). */
struct xfr_stream {
	int fd;
	SSL* ssl;
};

/* One read or write of up to n bytes: > 0 bytes moved, 0 the peer
 * closed, or a STREAM_IO_* (WANT_*: wait and call again). */
static ssize_t stream_io(struct xfr_stream* st, uint8_t* buf, size_t n,
	int writing)
{
	ssize_t k;
	if(st->ssl)
		return writing ? stream_tls_write(st->ssl, buf, n) :
			stream_tls_read(st->ssl, buf, n);
	k = writing ? send(st->fd, buf, n, 0) : recv(st->fd, buf, n, 0);
	if(k >= 0)
		return k;
	if(errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
		return writing ? STREAM_IO_WANT_WRITE : STREAM_IO_WANT_READ;
	return STREAM_IO_ERROR;
}

/* Move exactly n bytes (read, or write when writing). A read tries
 * first and waits after: TLS may hold bytes the socket no longer
 * shows. */
static enum xfr_net_result move_n(struct xfr_stream* st, uint8_t* buf,
	size_t n, int writing, int idle_ms, long total_deadline,
	const atomic_int* stop, char* err, size_t errlen)
{
	size_t got = 0;
	while(got < n) {
		long d;
		enum xfr_net_result r;
		ssize_t k = stream_io(st, buf + got, n - got, writing);
		if(k > 0) {
			got += (size_t)k;
			continue;
		}
		if(k == 0) {
			snprintf(err, errlen, "the primary closed the "
				"connection in the middle of the transfer");
			return XFR_NET_FAILED;
		}
		if(k == STREAM_IO_ERROR) {
			snprintf(err, errlen, "%s", st->ssl ? (writing ?
				"TLS write failed" : "TLS read failed") :
				strerror(errno));
			return XFR_NET_FAILED;
		}
		d = xfr_net_now_ms() + idle_ms;
		if(total_deadline && total_deadline < d)
			d = total_deadline;
		if((r = xfr_net_wait_fd(st->fd, k == STREAM_IO_WANT_WRITE ? POLLOUT :
			POLLIN, d, stop)) != XFR_NET_OK) {
			if(r == XFR_NET_TIMEOUT)
				snprintf(err, errlen, total_deadline &&
					xfr_net_now_ms() >= total_deadline ?
					"transfer took longer than "
					"max-transfer-time" :
					"the primary stopped sending");
			else if(r == XFR_NET_FAILED)
				snprintf(err, errlen, "poll: %s",
					strerror(errno));
			return r;
		}
	}
	return XFR_NET_OK;
}

/* compat: unbound-1.17: the TLS handshake with the client of TLS
 * upstreams; the certificate is checked against tls->name before
 * anything is sent. */
static enum xfr_net_result tls_handshake(struct xfr_stream* st,
	struct tls_peer* peer, const struct xfr_tls* tls, int idle_ms,
	const atomic_int* stop, char* err, size_t errlen)
{
	long deadline = xfr_net_now_ms() + idle_ms;
	snprintf(peer->name, sizeof(peer->name), "%s", tls->name);
	peer->cache = NULL;
	peer->ctx = tls->ctx;
	if(!(st->ssl = tls_client_new(peer, st->fd, tls->use_sni))) {
		snprintf(err, errlen, "cannot set up TLS");
		return XFR_NET_FAILED;
	}
	for(;;) {
		const char* why = NULL;
		enum xfr_net_result r;
		int h = tls_client_handshake(st->ssl, &why);
		if(h == 1)
			return XFR_NET_OK;
		if(h == STREAM_IO_ERROR) {
			snprintf(err, errlen, "TLS handshake failed (the "
				"certificate must be for %s): %s", tls->name,
				why ? why : "unknown error");
			return XFR_NET_FAILED;
		}
		if((r = xfr_net_wait_fd(st->fd, h == STREAM_IO_WANT_WRITE ? POLLOUT :
			POLLIN, deadline, stop)) != XFR_NET_OK) {
			if(r == XFR_NET_TIMEOUT)
				snprintf(err, errlen, "TLS handshake timed out");
			return r;
		}
	}
}

void xfr_net_set_mss(int fd, int tcp_mss)
{
	/* compat: unbound-1.17: outgoing-tcp-mss on every outgoing TCP
	 * socket, the zone transfer's and the url download's too; a value
	 * the kernel refuses is logged and the connection goes on */
	if(tcp_mss > 0 && setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &tcp_mss,
		(socklen_t)sizeof(tcp_mss)) != 0)
		verbose(VERB_ALGO, "xfr: setsockopt(.. TCP_MAXSEG %d): %s",
			tcp_mss, strerror(errno));
}

enum xfr_net_result xfr_net_transfer(const struct sockaddr_storage* addr,
	socklen_t addrlen, const struct xfr_tls* tls, struct xfr_wire* w,
	int idle_ms, int total_secs, int tcp_mss, const atomic_int* stop,
	char* err, size_t errlen)
{
	uint8_t q[2 + 512];
	uint8_t* msg = NULL;
	size_t qlen;
	long total_deadline = total_secs > 0 ? xfr_net_now_ms() +
		(long)total_secs * 1000 : 0;
	enum xfr_net_result r;
	struct xfr_stream st;
	struct tls_peer peer;
	int soerr = 0;
	socklen_t sl = sizeof(soerr);
	st.fd = socket(addr->ss_family, SOCK_STREAM, 0);
	st.ssl = NULL;
	w->id = random_id();
	qlen = xfr_wire_query(q + 2, sizeof(q) - 2, w->zone, w->zone_len,
		w->id, w->qtype, w->qclass, w->have_serial);
	q[0] = (uint8_t)(qlen >> 8);
	q[1] = (uint8_t)qlen;
	if(st.fd < 0 || !fd_set_nonblock(st.fd)) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		if(st.fd >= 0)
			close(st.fd);
		return XFR_NET_FAILED;
	}
	xfr_net_set_mss(st.fd, tcp_mss);
	if(connect(st.fd, (const struct sockaddr*)addr, addrlen) != 0 &&
		errno != EINPROGRESS) {
		snprintf(err, errlen, "connect: %s", strerror(errno));
		close(st.fd);
		return XFR_NET_FAILED;
	}
	r = xfr_net_wait_fd(st.fd, POLLOUT, xfr_net_now_ms() + idle_ms, stop);
	if(r == XFR_NET_OK && (getsockopt(st.fd, SOL_SOCKET, SO_ERROR, &soerr,
		&sl) != 0 || soerr != 0)) {
		snprintf(err, errlen, "connect: %s", strerror(soerr));
		r = XFR_NET_FAILED;
	} else if(r == XFR_NET_TIMEOUT)
		snprintf(err, errlen, "connect timed out");
	if(r == XFR_NET_OK && tls)
		r = tls_handshake(&st, &peer, tls, idle_ms, stop, err, errlen);
	if(r == XFR_NET_OK)
		r = move_n(&st, q, qlen + 2, 1, idle_ms, total_deadline, stop,
			err, errlen);
	if(r == XFR_NET_OK && !(msg = malloc(65535)))
		r = XFR_NET_FAILED;
	while(r == XFR_NET_OK) {
		uint8_t lb[2];
		size_t len;
		enum xfr_wire_state ws;
		if((r = move_n(&st, lb, 2, 0, idle_ms, total_deadline, stop,
			err, errlen)) != XFR_NET_OK) {
			if(r == XFR_NET_FAILED && xfr_wire_end(w))
				r = XFR_NET_OK;
			break;
		}
		len = ((size_t)lb[0] << 8) | lb[1];
		if((r = move_n(&st, msg, len, 0, idle_ms, total_deadline, stop,
			err, errlen)) != XFR_NET_OK)
			break;
		ws = xfr_wire_msg(w, msg, len, err, errlen);
		if(ws == XFR_WIRE_DONE)
			break;
		if(ws == XFR_WIRE_ERROR)
			r = XFR_NET_FAILED;
	}
	free(msg);
	tls_client_close(st.ssl);
	close(st.fd);
	return r;
}
