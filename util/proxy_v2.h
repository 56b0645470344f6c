/* SPDX-License-Identifier: BSD-3-Clause */
/* util/proxy_v2.h - the PROXY protocol version 2 header (HAProxy's
 * proxy-protocol.txt, section 2.2) that a load balancer puts in front of
 * every datagram and every stream on a proxy-protocol-port: which client
 * it speaks for. Only the binary form (v2) is read; the v1 text form is
 * "not a header", as Unbound has it. The parser reads outside input: it
 * checks every length against the bytes it was given and keeps nothing. */
#ifndef UTIL_PROXY_V2_H
#define UTIL_PROXY_V2_H
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* The fixed part: 12 signature bytes, version and command, family and
 * protocol, and the 16-bit length of what follows. */
#define PROXY_V2_FIXED 16

enum proxy_v2_result {
	PROXY_V2_OK = 0,      /* a header of hdr->len bytes */
	PROXY_V2_SHORT,       /* a header's start: more bytes are needed
	                       * (a stream waits; a datagram is dropped) */
	PROXY_V2_BAD,         /* not a version 2 header (no signature, v1
	                       * text, another version, a length too short
	                       * for the address family) */
	PROXY_V2_UNSUPPORTED  /* a command other than LOCAL and PROXY, or a
	                       * family other than unspecified, IPv4, IPv6 */
};

struct proxy_v2_header {
	size_t len;           /* bytes of the whole header, with TLVs */
	/* 1: addr is the client's source address. 0: LOCAL command or the
	 * unspecified family: the connection's own peer stands */
	int has_addr;
	struct sockaddr_storage addr;
	socklen_t addrlen;
};

/* Parse the header at the start of buf (len bytes). Decides as early as
 * the bytes allow: a wrong signature byte is PROXY_V2_BAD at once, even
 * with fewer than PROXY_V2_FIXED bytes. On PROXY_V2_OK, hdr is filled;
 * on PROXY_V2_SHORT, *need (when not NULL) is the number of bytes the
 * header needs in all (at least the fixed part). Logs nothing. */
enum proxy_v2_result proxy_v2_parse(const uint8_t* buf, size_t len,
	struct proxy_v2_header* hdr, size_t* need);

/* The words the log uses for a result ("not a PROXYv2 header"). */
const char* proxy_v2_result_str(enum proxy_v2_result r);

#endif
