/* SPDX-License-Identifier: BSD-3-Clause */
/* util/proxy_v2.c - parse a PROXY protocol v2 header (util/proxy_v2.h):
 * the daemon's UDP and TCP/TLS paths on a proxy-protocol-port call it
 * before the DNS message is looked at. */
#include "config.h"
#include "util/proxy_v2.h"
#include "util/wire_int.h"
#include <string.h>
#include <netinet/in.h>

static const uint8_t proxy_v2_sig[12] = {
	0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51,
	0x55, 0x49, 0x54, 0x0a
};

#define CMD_LOCAL 0x0
#define CMD_PROXY 0x1
/* family (high nibble) and transport (low nibble) */
#define FAM_UNSPEC 0x0
#define FAM_INET 0x1
#define FAM_INET6 0x2
#define PROTO_UNSPEC 0x0
#define PROTO_STREAM 0x1
#define PROTO_DGRAM 0x2
/* the address block: source, destination, source port, destination port */
#define ADDR_LEN_INET 12
#define ADDR_LEN_INET6 36

enum proxy_v2_result proxy_v2_parse(const uint8_t* buf, size_t len,
	struct proxy_v2_header* hdr, size_t* need)
{
	size_t have = len < sizeof(proxy_v2_sig) ? len : sizeof(proxy_v2_sig);
	size_t body;
	uint8_t cmd, fam, proto;
	if(len == 0) {
		if(need)
			*need = PROXY_V2_FIXED;
		return PROXY_V2_SHORT;
	}
	if(memcmp(buf, proxy_v2_sig, have) != 0)
		return PROXY_V2_BAD;
	/* the version nibble, as soon as it is there */
	if(len > 12 && (buf[12] >> 4) != 2)
		return PROXY_V2_BAD;
	if(len < PROXY_V2_FIXED) {
		if(need)
			*need = PROXY_V2_FIXED;
		return PROXY_V2_SHORT;
	}
	cmd = buf[12] & 0x0f;
	fam = buf[13] >> 4;
	proto = buf[13] & 0x0f;
	body = wire_rd16(buf + 14);
	/* compat: unbound-1.17: a family, transport or command it does not
	 * know is refused whatever the command (LOCAL too), as Unbound */
	if(cmd != CMD_LOCAL && cmd != CMD_PROXY)
		return PROXY_V2_UNSUPPORTED;
	if(!(fam == FAM_UNSPEC && proto == PROTO_UNSPEC) &&
		!((fam == FAM_INET || fam == FAM_INET6) &&
		(proto == PROTO_STREAM || proto == PROTO_DGRAM)))
		return PROXY_V2_UNSUPPORTED;
	/* compat: unbound-1.19: a length too short for the family's
	 * addresses is refused (Unbound 1.17 read past it) */
	if((fam == FAM_INET && body < ADDR_LEN_INET) ||
		(fam == FAM_INET6 && body < ADDR_LEN_INET6))
		return PROXY_V2_BAD;
	if(len - PROXY_V2_FIXED < body) {
		if(need)
			*need = PROXY_V2_FIXED + body;
		return PROXY_V2_SHORT;
	}
	memset(hdr, 0, sizeof(*hdr));
	hdr->len = PROXY_V2_FIXED + body;
	/* LOCAL: the proxy speaks for itself (health checks); the
	 * unspecified family: no address; both keep the real peer */
	if(cmd == CMD_LOCAL || fam == FAM_UNSPEC)
		return PROXY_V2_OK;
	hdr->has_addr = 1;
	if(fam == FAM_INET) {
		struct sockaddr_in* a = (struct sockaddr_in*)&hdr->addr;
		a->sin_family = AF_INET;
		memcpy(&a->sin_addr, buf + PROXY_V2_FIXED, 4);
		memcpy(&a->sin_port, buf + PROXY_V2_FIXED + 8, 2);
		hdr->addrlen = (socklen_t)sizeof(*a);
	} else {
		struct sockaddr_in6* a = (struct sockaddr_in6*)&hdr->addr;
		a->sin6_family = AF_INET6;
		memcpy(&a->sin6_addr, buf + PROXY_V2_FIXED, 16);
		memcpy(&a->sin6_port, buf + PROXY_V2_FIXED + 32, 2);
		hdr->addrlen = (socklen_t)sizeof(*a);
	}
	/* the destination address and the TLVs are not used */
	return PROXY_V2_OK;
}

const char* proxy_v2_result_str(enum proxy_v2_result r)
{
	switch(r) {
	case PROXY_V2_OK:
		return "ok";
	case PROXY_V2_SHORT:
		return "truncated PROXYv2 header";
	case PROXY_V2_BAD:
		return "could not match PROXYv2 header";
	case PROXY_V2_UNSUPPORTED:
		return "unsupported PROXYv2 command or family";
	}
	return "?";
}
