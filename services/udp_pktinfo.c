/* SPDX-License-Identifier: BSD-3-Clause */
/* services/udp_pktinfo.c - destination addresses of datagrams on the
 * interface-automatic sockets: read from recvmsg's control data, given
 * back to sendmsg. */
#include "config.h"
#include "services/udp_pktinfo.h"
#include "util/log.h"
#include <errno.h>
#include <string.h>
#include <sys/uio.h>

int udp_pktinfo_enable(int fd, int family)
{
	int on = 1;
	if(family == AF_INET6) {
		if(setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &on,
			sizeof(on)) != 0) {
			log_err("setsockopt(..., IPV6_RECVPKTINFO, ...) "
				"failed: %s", strerror(errno));
			return 0;
		}
		return 1;
	}
	if(setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &on, sizeof(on)) != 0) {
		log_err("setsockopt(..., IP_PKTINFO, ...) failed: %s",
			strerror(errno));
		return 0;
	}
	return 1;
}

void udp_pktinfo_read(const struct msghdr* h, struct udp_dst* d)
{
	struct cmsghdr* c;
	d->family = 0;
	for(c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR((struct msghdr*)h, c)) {
		if(c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO &&
			c->cmsg_len >= CMSG_LEN(sizeof(d->u.v4))) {
			memcpy(&d->u.v4, CMSG_DATA(c), sizeof(d->u.v4));
			d->family = AF_INET;
			return;
		}
		if(c->cmsg_level == IPPROTO_IPV6 &&
			c->cmsg_type == IPV6_PKTINFO &&
			c->cmsg_len >= CMSG_LEN(sizeof(d->u.v6))) {
			memcpy(&d->u.v6, CMSG_DATA(c), sizeof(d->u.v6));
			d->family = AF_INET6;
			return;
		}
	}
}

void udp_pktinfo_put(struct msghdr* h, union udp_pktinfo_ctl* ctl,
	const struct udp_dst* d)
{
	struct cmsghdr* c;
	if(d->family == 0) {
		h->msg_control = NULL;
		h->msg_controllen = 0;
		return;
	}
	memset(ctl, 0, sizeof(*ctl));
	h->msg_control = ctl->buf;
	c = (struct cmsghdr*)ctl->buf;
	/* the interface index left 0: the route to the client picks it,
	 * as Unbound does; the source is the local address the query came
	 * to (IPv4: ipi_spec_dst, which for a broadcast is the interface's
	 * own address, not the broadcast address) */
	if(d->family == AF_INET) {
		struct in_pktinfo v4;
		memset(&v4, 0, sizeof(v4));
		v4.ipi_spec_dst = d->u.v4.ipi_spec_dst;
		c->cmsg_level = IPPROTO_IP;
		c->cmsg_type = IP_PKTINFO;
		c->cmsg_len = CMSG_LEN(sizeof(v4));
		memcpy(CMSG_DATA(c), &v4, sizeof(v4));
		h->msg_controllen = CMSG_SPACE(sizeof(v4));
	} else {
		struct in6_pktinfo v6;
		memset(&v6, 0, sizeof(v6));
		v6.ipi6_addr = d->u.v6.ipi6_addr;
		c->cmsg_level = IPPROTO_IPV6;
		c->cmsg_type = IPV6_PKTINFO;
		c->cmsg_len = CMSG_LEN(sizeof(v6));
		memcpy(CMSG_DATA(c), &v6, sizeof(v6));
		h->msg_controllen = CMSG_SPACE(sizeof(v6));
	}
}

ssize_t udp_pktinfo_sendto(int fd, const void* buf, size_t len,
	const struct sockaddr* to, socklen_t tolen, const struct udp_dst* d)
{
	union udp_pktinfo_ctl ctl;
	struct msghdr h;
	struct iovec iov;
	memset(&h, 0, sizeof(h));
	iov.iov_base = (void*)buf;
	iov.iov_len = len;
	h.msg_name = (void*)to;
	h.msg_namelen = tolen;
	h.msg_iov = &iov;
	h.msg_iovlen = 1;
	udp_pktinfo_put(&h, &ctl, d);
	return sendmsg(fd, &h, 0);
}
