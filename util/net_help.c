/* SPDX-License-Identifier: BSD-3-Clause */
/* util/net_help.c - address text parsing and formatting. */
#include "config.h"
#include "util/net_help.h"
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>

/* Longest text an address may have (IPv6 with a scope id). */
#define MAX_ADDR_STRLEN 128

/* Parse a decimal number of at most maxval; all of s must be digits. */
static int
parse_uint(const char* s, long maxval, long* res)
{
	long v = 0;
	if(!*s)
		return 0;
	for(; *s; s++) {
		if(!isdigit((unsigned char)*s))
			return 0;
		v = v*10 + (*s - '0');
		if(v > maxval)
			return 0;
	}
	*res = v;
	return 1;
}

int
ipstrtoaddr(const char* ip, int port, struct sockaddr_storage* addr,
	socklen_t* addrlen)
{
	if(!ip || port < 0 || port > 65535)
		return 0;
	memset(addr, 0, sizeof(*addr));
	if(strchr(ip, ':')) {
		/* compat: unbound-1.17: IPv6, possibly with a %scope suffix as
		 * Unbound accepts */
		struct sockaddr_in6* sa = (struct sockaddr_in6*)addr;
		char buf[MAX_ADDR_STRLEN];
		const char* pct = strchr(ip, '%');
		size_t len = pct ? (size_t)(pct - ip) : strlen(ip);
		if(len >= sizeof(buf))
			return 0;
		memcpy(buf, ip, len);
		buf[len] = 0;
		if(inet_pton(AF_INET6, buf, &sa->sin6_addr) != 1)
			return 0;
		if(pct) {
			long v;
			if(parse_uint(pct+1, 0xffffffffL, &v))
				sa->sin6_scope_id = (uint32_t)v;
			else if(!(sa->sin6_scope_id = if_nametoindex(pct+1)))
				return 0;
		}
		sa->sin6_family = AF_INET6;
		sa->sin6_port = htons((uint16_t)port);
		*addrlen = (socklen_t)sizeof(struct sockaddr_in6);
	} else {
		struct sockaddr_in* sa = (struct sockaddr_in*)addr;
		if(inet_pton(AF_INET, ip, &sa->sin_addr) != 1)
			return 0;
		sa->sin_family = AF_INET;
		sa->sin_port = htons((uint16_t)port);
		*addrlen = (socklen_t)sizeof(struct sockaddr_in);
	}
	return 1;
}

int
extstrtoaddr(const char* str, int port, struct sockaddr_storage* addr,
	socklen_t* addrlen)
{
	const char* at;
	char buf[MAX_ADDR_STRLEN];
	long p;
	if(!str)
		return 0;
	if(!(at = strchr(str, '@')))
		return ipstrtoaddr(str, port, addr, addrlen);
	if((size_t)(at - str) >= sizeof(buf))
		return 0;
	memcpy(buf, str, (size_t)(at - str));
	buf[at - str] = 0;
	if(!parse_uint(at+1, 65535, &p))
		return 0;
	return ipstrtoaddr(buf, (int)p, addr, addrlen);
}

int
netblockstrtoaddr(const char* str, int port, struct sockaddr_storage* addr,
	socklen_t* addrlen, int* net)
{
	const char* slash;
	char buf[MAX_ADDR_STRLEN];
	long n;
	int maxnet;
	if(!str)
		return 0;
	if(!(slash = strchr(str, '/'))) {
		if(!ipstrtoaddr(str, port, addr, addrlen))
			return 0;
		*net = addr_is_ip6(addr, *addrlen) ? 128 : 32;
		return 1;
	}
	if((size_t)(slash - str) >= sizeof(buf))
		return 0;
	memcpy(buf, str, (size_t)(slash - str));
	buf[slash - str] = 0;
	if(!ipstrtoaddr(buf, port, addr, addrlen))
		return 0;
	maxnet = addr_is_ip6(addr, *addrlen) ? 128 : 32;
	if(!parse_uint(slash+1, maxnet, &n))
		return 0;
	*net = (int)n;
	addr_mask(addr, *addrlen, *net);
	return 1;
}

void
addr_to_str(const struct sockaddr_storage* addr, socklen_t addrlen,
	char* buf, size_t len)
{
	const void* sinaddr;
	int af = (int)((const struct sockaddr_in*)addr)->sin_family;
	if(len == 0)
		return;
	if(addr_is_ip6(addr, addrlen))
		sinaddr = &((const struct sockaddr_in6*)addr)->sin6_addr;
	else if(af == AF_INET && addrlen >= (socklen_t)sizeof(struct sockaddr_in))
		sinaddr = &((const struct sockaddr_in*)addr)->sin_addr;
	else {
		snprintf(buf, len, "(inet_ntop error)");
		return;
	}
	if(!inet_ntop(af, sinaddr, buf, (socklen_t)len))
		snprintf(buf, len, "(inet_ntop error)");
}

int
addr_port(const struct sockaddr_storage* addr)
{
	if(addr->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6*)addr)->sin6_port);
	return ntohs(((const struct sockaddr_in*)addr)->sin_port);
}

int
addr_is_ip6(const struct sockaddr_storage* addr, socklen_t len)
{
	return len == (socklen_t)sizeof(struct sockaddr_in6) &&
		addr->ss_family == AF_INET6;
}

const uint8_t*
addr_bytes(const struct sockaddr_storage* addr, socklen_t len, int* nbytes)
{
	if(addr_is_ip6(addr, len)) {
		*nbytes = 16;
		return ((const struct sockaddr_in6*)addr)->sin6_addr.s6_addr;
	}
	if(addr->ss_family == AF_INET &&
		len >= (socklen_t)sizeof(struct sockaddr_in)) {
		*nbytes = 4;
		return (const uint8_t*)&((const struct sockaddr_in*)addr)->
			sin_addr;
	}
	*nbytes = 0;
	return NULL;
}

int
sockaddr_cmp(const struct sockaddr_storage* a, socklen_t alen,
	const struct sockaddr_storage* b, socklen_t blen)
{
	const uint8_t* ab, *bb;
	int an, bn, ap, bp;
	if(a->ss_family != b->ss_family)
		return a->ss_family < b->ss_family ? -1 : 1;
	if(alen != blen)
		return alen < blen ? -1 : 1;
	ap = addr_port(a);
	bp = addr_port(b);
	if(ap != bp)
		return ap < bp ? -1 : 1;
	ab = addr_bytes(a, alen, &an);
	bb = addr_bytes(b, blen, &bn);
	if(!ab || !bb)
		return memcmp(a, b, (size_t)alen);
	return memcmp(ab, bb, (size_t)an);
}

void
addr_mask(struct sockaddr_storage* addr, socklen_t len, int net)
{
	int n, i;
	uint8_t* s = (uint8_t*)addr_bytes(addr, len, &n);
	if(!s || net < 0)
		return;
	for(i = 0; i < n; i++) {
		int bits = net - i*8;
		if(bits >= 8)
			continue;
		if(bits <= 0)
			s[i] = 0;
		else	s[i] &= (uint8_t)(0xff << (8 - bits));
	}
}

int
addr_in_netblock(const struct sockaddr_storage* addr, socklen_t addrlen,
	const struct sockaddr_storage* block, socklen_t blocklen, int net)
{
	int an, bn, full, rest;
	const uint8_t* a = addr_bytes(addr, addrlen, &an);
	const uint8_t* b = addr_bytes(block, blocklen, &bn);
	if(!a || !b || an != bn || net < 0 || net > an*8)
		return 0;
	full = net / 8;
	rest = net % 8;
	if(memcmp(a, b, (size_t)full) != 0)
		return 0;
	if(rest) {
		uint8_t m = (uint8_t)(0xff << (8 - rest));
		if((a[full] & m) != (b[full] & m))
			return 0;
	}
	return 1;
}

int
fd_set_nonblock(int fd)
{
	int flags = fcntl(fd, F_GETFL);
	if(flags == -1)
		return 0;
	if(fcntl(fd, F_SETFL, flags | O_NONBLOCK) == -1)
		return 0;
	return 1;
}

int fd_set_dscp(int fd, int family, int dscp)
{
	int ds = dscp << 2;
	if(dscp == 0)
		return 1;
	if(family == AF_INET6)
		return setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &ds,
			sizeof(ds)) == 0;
	return setsockopt(fd, IPPROTO_IP, IP_TOS, &ds, sizeof(ds)) == 0;
}
