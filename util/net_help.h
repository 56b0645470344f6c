/* SPDX-License-Identifier: BSD-3-Clause */
/* util/net_help.h - address text parsing and formatting. */
#ifndef UTIL_NET_HELP_H
#define UTIL_NET_HELP_H
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <netinet/in.h>

/* Parse "1.2.3.4", "::1", "1.2.3.4@53" or "::1@5353" into addr (port
 * defaults to port). Returns 1 on success, 0 on bad text. */
int extstrtoaddr(const char* str, int port, struct sockaddr_storage* addr,
	socklen_t* addrlen);
/* Parse a plain address "1.2.3.4" or "fe80::1" with the given port. */
int ipstrtoaddr(const char* ip, int port, struct sockaddr_storage* addr,
	socklen_t* addrlen);
/* Parse a netblock "10.0.0.0/8", "::1" (host: /32 or /128). The address
 * bits beyond the prefix are cleared. Returns 1 on success. */
int netblockstrtoaddr(const char* str, int port, struct sockaddr_storage* addr,
	socklen_t* addrlen, int* net);
/* Format address (without port) into buf. */
void addr_to_str(const struct sockaddr_storage* addr, socklen_t addrlen,
	char* buf, size_t len);
int addr_port(const struct sockaddr_storage* addr);
int addr_is_ip6(const struct sockaddr_storage* addr, socklen_t len);
/* Compare addresses (family, address and port); 0 when equal. */
int sockaddr_cmp(const struct sockaddr_storage* a, socklen_t alen,
	const struct sockaddr_storage* b, socklen_t blen);
/* Clear all bits after the first net bits of the address. */
void addr_mask(struct sockaddr_storage* addr, socklen_t len, int net);
/* Does addr match the netblock (net bits of block)? */
int addr_in_netblock(const struct sockaddr_storage* addr, socklen_t addrlen,
	const struct sockaddr_storage* block, socklen_t blocklen, int net);
/* The address bytes (4 or 16, in *nbytes) of an IPv4 or IPv6 address,
 * NULL (and 0) for anything else. */
const uint8_t* addr_bytes(const struct sockaddr_storage* addr, socklen_t len,
	int* nbytes);
/* Set the fd to non-blocking. Returns 0 on failure. */
int fd_set_nonblock(int fd);
/* compat: unbound-1.17: ip-dscp: the DSCP (0-63) in the DS field of the
 * socket's packets (IP_TOS, for IPv6 IPV6_TCLASS: dscp << 2). 0 does
 * nothing. Returns 0 (errno set) when the kernel refuses it. */
int fd_set_dscp(int fd, int family, int dscp);

#endif
