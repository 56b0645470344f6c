/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/iter_hints_builtin.c - compat: unbound-1.17: the compiled-in root
 * hints: the IANA root servers (a..m.root-servers.net) and their addresses,
 * used when no root-hints: file is configured, as Unbound does. Source: IANA's
 * named.root (root zone of 2024, b.root's renumbering of 2023 included).
 * Update here when IANA publishes a new named.root. */
#include "config.h"
#include "iterator/iter_hints.h"
#include "iterator/delegpt.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/net_help.h"
#include <stdio.h>

/* One root server: its letter, IPv4 and IPv6 address. */
struct root_server {
	char letter;
	const char* ip4;
	const char* ip6;
};

static const struct root_server root_servers[] = {
	{ 'A', "198.41.0.4", "2001:503:ba3e::2:30" },
	{ 'B', "170.247.170.2", "2801:1b8:10::b" },
	{ 'C', "192.33.4.12", "2001:500:2::c" },
	{ 'D', "199.7.91.13", "2001:500:2d::d" },
	{ 'E', "192.203.230.10", "2001:500:a8::e" },
	{ 'F', "192.5.5.241", "2001:500:2f::f" },
	{ 'G', "192.112.36.4", "2001:500:12::d0d" },
	{ 'H', "198.97.190.53", "2001:500:1::53" },
	{ 'I', "192.36.148.17", "2001:7fe::53" },
	{ 'J', "192.58.128.30", "2001:503:c27::2:30" },
	{ 'K', "193.0.14.129", "2001:7fd::1" },
	{ 'L', "199.7.83.42", "2001:500:9f::42" },
	{ 'M', "202.12.27.33", "2001:dc3::35" },
};
#define NUM_ROOT_SERVERS (sizeof(root_servers) / sizeof(root_servers[0]))

static int add_addr(struct delegpt* dp, const char* ip)
{
	struct sockaddr_storage a;
	socklen_t len;
	return ipstrtoaddr(ip, 53, &a, &len) && delegpt_add_addr(dp, &a, len);
}

struct delegpt* iter_hints_builtin_root(int do4, int do6)
{
	static const uint8_t root[1] = { 0 };
	struct delegpt* dp = delegpt_create(root);
	size_t i;
	if(!dp)
		goto oom;
	/* compat: unbound-1.17: Unbound keeps its hints in prepend order, so
	 * list_stubs shows M first and the IPv6 addresses before the IPv4
	 * ones; build the same order so that the listing is the same.
	 */
	for(i = NUM_ROOT_SERVERS; i-- > 0; ) {
		struct delegpt_ns* ns;
		char text[32];
		uint8_t name[LDNS_MAX_DOMAINLEN + 1];
		snprintf(text, sizeof(text), "%c.ROOT-SERVERS.NET.",
			root_servers[i].letter);
		if(!dname_from_str(text, name) || delegpt_add_ns(dp, name) != 1)
			goto oom;
		/* both addresses are known: no lookups for these names */
		ns = delegpt_find_ns(dp, name);
		ns->got4 = ns->got6 = 1;
	}
	/* compat: unbound-1.17: only the families in use, as Unbound (do-ip6:
	 * no lists no IPv6) */
	for(i = NUM_ROOT_SERVERS; do6 && i-- > 0; )
		if(!add_addr(dp, root_servers[i].ip6))
			goto oom;
	for(i = NUM_ROOT_SERVERS; do4 && i-- > 0; )
		if(!add_addr(dp, root_servers[i].ip4))
			goto oom;
	return dp;
oom:
	log_err("out of memory building the built-in root hints");
	delegpt_delete(dp);
	return NULL;
}
