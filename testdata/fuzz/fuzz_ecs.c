/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/fuzz/fuzz_ecs.c - an EDNS Client Subnet option's data
 * (ecs_parse, subnetcache/ecs.c), as a client's query or a server's
 * reply brings it. Checked besides the sanitizers: what parses has its
 * bits past the source prefix clear, and is written back and parses to
 * the same; the option found in a message by edns_get_option lies
 * inside the message. */
#include "config.h"
#include "subnetcache/ecs.h"
#include "util/edns_pad.h"
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	struct ecs_data e, back;
	uint8_t buf[ECS_OPT_MAX], zero[16];
	const uint8_t* d = NULL;
	size_t n;
	int l;
	if(ecs_parse(data, size, &e)) {
		memcpy(zero, e.addr, sizeof(zero));
		ecs_clear_past(zero, e.source);
		if(memcmp(zero, e.addr, sizeof(zero)) != 0)
			abort();
		n = ecs_encode(&e, 8, buf);
		if(n > ECS_OPT_MAX || n != size + 4 ||
			!ecs_parse(buf + 4, n - 4, &back) ||
			memcmp(&e, &back, sizeof(e)) != 0)
			abort();
	}
	/* the same bytes as a whole message */
	l = edns_get_option(data, size, 8, &d);
	if(l >= 0 && (d < data || d + l > data + size))
		abort();
	return 0;
}
