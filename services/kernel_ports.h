/* SPDX-License-Identifier: BSD-3-Clause */
/* services/kernel_ports.h - may the kernel draw outgoing UDP source ports?
 *
 * A UDP socket that connect()s without a port takes one the kernel draws
 * uniformly from net.ipv4.ip_local_port_range (IPv6 too on Linux) minus
 * net.ipv4.ip_local_reserved_ports, and connect(AF_UNSPEC) gives it back:
 * no socket, bind, close or epoll change per query. The port pool still
 * draws every port from the whole permitted set; only a port that falls
 * in the kernel's range is left to the kernel's draw, which keeps each
 * permitted port's chance the same only where that range lies wholly in
 * the permitted set and the kernel reserves none of it. */
#ifndef SERVICES_KERNEL_PORTS_H
#define SERVICES_KERNEL_PORTS_H
#include <stdint.h>

/* What the kernel says about its ephemeral ports. */
struct kernel_ports {
	int readable;        /* both files read and parsed */
	int lo, hi;          /* ip_local_port_range */
	int reserved_empty;  /* ip_local_reserved_ports lists nothing */
};

/* Read ip_local_port_range and ip_local_reserved_ports from dir
 * (normally /proc/sys/net/ipv4). On any failure k->readable is 0. */
void kernel_ports_read(const char* dir, struct kernel_ports* k);

/* May ports in k's range be drawn by the kernel, with avail the
 * permitted set (outgoing-port-permit minus outgoing-port-avoid,
 * PORT_SET_SIZE bytes)? 1 only when k is readable, nothing is reserved
 * and every port of the range is in avail. Pure. */
int kernel_ports_usable(const struct kernel_ports* k, const uint8_t* avail);
/* Why not (for the log), or NULL when kernel_ports_usable. */
const char* kernel_ports_refusal(const struct kernel_ports* k,
	const uint8_t* avail);

#endif
