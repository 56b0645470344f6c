/* SPDX-License-Identifier: BSD-3-Clause */
/* services/udp_pktinfo.h - interface-automatic: a wildcard UDP socket
 * (0.0.0.0, ::) learns each datagram's destination address from the
 * kernel (IP_PKTINFO, IPV6_RECVPKTINFO) and hands it back with the reply,
 * so the reply leaves from the address the client asked. Only these
 * sockets carry control messages: the per-address sockets' path has
 * none of this (daemon/worker.c picks the reader per socket). */
#ifndef SERVICES_UDP_PKTINFO_H
#define SERVICES_UDP_PKTINFO_H
#include <stddef.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>

/* Where a datagram came to; family 0: not known (then the kernel picks
 * the source address as for any reply). */
struct udp_dst {
	int family;
	union {
		struct in_pktinfo v4;
		struct in6_pktinfo v6;
	} u;
};

/* Room for one pktinfo control message, aligned for cmsghdr. */
union udp_pktinfo_ctl {
	struct cmsghdr align;
	char buf[CMSG_SPACE(sizeof(struct in6_pktinfo))];
};

/* Ask the kernel for the destination of each datagram on fd (a UDP
 * socket of family). Logs and returns 0 when it refuses. */
int udp_pktinfo_enable(int fd, int family);
/* The destination from a received message's control data (msg_control
 * and msg_controllen as recvmsg left them). */
void udp_pktinfo_read(const struct msghdr* h, struct udp_dst* d);
/* Put the control message that sends from d into h: h's msg_control
 * set to ctl, or to none when d is not known. */
void udp_pktinfo_put(struct msghdr* h, union udp_pktinfo_ctl* ctl,
	const struct udp_dst* d);
/* sendmsg of one reply from d (family 0: a plain send) to the client. */
ssize_t udp_pktinfo_sendto(int fd, const void* buf, size_t len,
	const struct sockaddr* to, socklen_t tolen, const struct udp_dst* d);

#endif
