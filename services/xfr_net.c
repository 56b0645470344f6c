/* SPDX-License-Identifier: BSD-3-Clause */
/* services/xfr_net.c - SOA probes over UDP and transfers over TCP, with
 * blocking sockets waited on with poll in short slices, so a stop is
 * seen within a fifth of a second. Runs only in the transfer thread. */
#include "config.h"
#include "services/xfr_net.h"
#include "util/dname.h"
#include "util/msgparse.h"
#include "util/net_help.h"
#include <errno.h>
#include <fcntl.h>
#include <openssl/rand.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SLICE_MS 200

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static uint16_t random_id(void)
{
	uint16_t id = 0;
	if(RAND_bytes((unsigned char*)&id, sizeof(id)) != 1)
		id = (uint16_t)(now_ms() & 0xffff);
	return id;
}

/* Wait for ev on fd until deadline (ms, monotonic). */
static enum xfr_net_result wait_fd(int fd, short ev, long deadline,
	const atomic_int* stop)
{
	for(;;) {
		struct pollfd p;
		long left = deadline - now_ms();
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
	long deadline = now_ms() + timeout_ms;
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
		if((r = wait_fd(fd, POLLIN, deadline, stop)) != XFR_NET_OK)
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

/* Read exactly n bytes. */
static enum xfr_net_result read_n(int fd, uint8_t* buf, size_t n,
	int idle_ms, long total_deadline, const atomic_int* stop, char* err,
	size_t errlen)
{
	size_t got = 0;
	while(got < n) {
		long d = now_ms() + idle_ms;
		enum xfr_net_result r;
		ssize_t k;
		if(total_deadline && total_deadline < d)
			d = total_deadline;
		if((r = wait_fd(fd, POLLIN, d, stop)) != XFR_NET_OK) {
			if(r == XFR_NET_TIMEOUT)
				snprintf(err, errlen, total_deadline &&
					now_ms() >= total_deadline ?
					"transfer took longer than "
					"max-transfer-time" :
					"the primary stopped sending");
			return r;
		}
		k = recv(fd, buf + got, n - got, 0);
		if(k == 0) {
			snprintf(err, errlen, "the primary closed the "
				"connection in the middle of the transfer");
			return XFR_NET_FAILED;
		}
		if(k < 0) {
			if(errno == EINTR || errno == EAGAIN)
				continue;
			snprintf(err, errlen, "%s", strerror(errno));
			return XFR_NET_FAILED;
		}
		got += (size_t)k;
	}
	return XFR_NET_OK;
}

enum xfr_net_result xfr_net_transfer(const struct sockaddr_storage* addr,
	socklen_t addrlen, struct xfr_wire* w, int idle_ms, int total_secs,
	const atomic_int* stop, char* err, size_t errlen)
{
	uint8_t q[2 + 512];
	uint8_t* msg = NULL;
	size_t qlen;
	long total_deadline = total_secs > 0 ? now_ms() +
		(long)total_secs * 1000 : 0;
	enum xfr_net_result r;
	int fd = socket(addr->ss_family, SOCK_STREAM, 0), soerr = 0;
	socklen_t sl = sizeof(soerr);
	w->id = random_id();
	qlen = xfr_wire_query(q + 2, sizeof(q) - 2, w->zone, w->zone_len,
		w->id, w->qtype, w->qclass, w->have_serial);
	q[0] = (uint8_t)(qlen >> 8);
	q[1] = (uint8_t)qlen;
	if(fd < 0 || !fd_set_nonblock(fd)) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		if(fd >= 0)
			close(fd);
		return XFR_NET_FAILED;
	}
	if(connect(fd, (const struct sockaddr*)addr, addrlen) != 0 &&
		errno != EINPROGRESS) {
		snprintf(err, errlen, "connect: %s", strerror(errno));
		close(fd);
		return XFR_NET_FAILED;
	}
	r = wait_fd(fd, POLLOUT, now_ms() + idle_ms, stop);
	if(r == XFR_NET_OK && (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr,
		&sl) != 0 || soerr != 0)) {
		snprintf(err, errlen, "connect: %s", strerror(soerr));
		r = XFR_NET_FAILED;
	} else if(r == XFR_NET_TIMEOUT)
		snprintf(err, errlen, "connect timed out");
	/* the query is small: one send goes into an empty socket buffer */
	if(r == XFR_NET_OK && send(fd, q, qlen + 2, 0) != (ssize_t)(qlen + 2)) {
		snprintf(err, errlen, "send: %s", strerror(errno));
		r = XFR_NET_FAILED;
	}
	if(r == XFR_NET_OK && !(msg = malloc(65535)))
		r = XFR_NET_FAILED;
	while(r == XFR_NET_OK) {
		uint8_t lb[2];
		size_t len;
		enum xfr_wire_state st;
		if((r = read_n(fd, lb, 2, idle_ms, total_deadline, stop, err,
			errlen)) != XFR_NET_OK) {
			if(r == XFR_NET_FAILED && xfr_wire_end(w))
				r = XFR_NET_OK;
			break;
		}
		len = ((size_t)lb[0] << 8) | lb[1];
		if((r = read_n(fd, msg, len, idle_ms, total_deadline, stop,
			err, errlen)) != XFR_NET_OK)
			break;
		st = xfr_wire_msg(w, msg, len, err, errlen);
		if(st == XFR_WIRE_DONE)
			break;
		if(st == XFR_WIRE_ERROR)
			r = XFR_NET_FAILED;
	}
	free(msg);
	close(fd);
	return r;
}
