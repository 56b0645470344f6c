/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/fuzz/fuzz_proxy_v2.c - a PROXY protocol v2 header
 * (proxy_v2_parse, util/proxy_v2.c), as a load balancer, or anyone who
 * can reach a proxy-protocol-port, sends it. Checked besides the
 * sanitizers: a header that parses lies inside the input, its address
 * is IPv4 or IPv6 with the right length; every shorter prefix of it is
 * "more bytes needed" (a stream reader waits, never misjudges), with a
 * need that grows toward the header's length. */
#include "config.h"
#include "util/proxy_v2.h"
#include <stdlib.h>
#include <netinet/in.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	struct proxy_v2_header h, h2;
	size_t need = 0, i;
	enum proxy_v2_result r = proxy_v2_parse(data, size, &h, &need);
	if(r == PROXY_V2_SHORT && (need <= size || need > PROXY_V2_FIXED +
		65535))
		abort();
	if(r != PROXY_V2_OK)
		return 0;
	if(h.len < PROXY_V2_FIXED || h.len > size)
		abort();
	if(h.has_addr && !((h.addr.ss_family == AF_INET && h.addrlen ==
		sizeof(struct sockaddr_in)) || (h.addr.ss_family == AF_INET6 &&
		h.addrlen == sizeof(struct sockaddr_in6))))
		abort();
	for(i = 0; i < h.len; i++) {
		size_t n = 0;
		if(proxy_v2_parse(data, i, &h2, &n) != PROXY_V2_SHORT ||
			n <= i || n > h.len)
			abort();
	}
	return 0;
}
