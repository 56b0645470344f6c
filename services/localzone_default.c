/* SPDX-License-Identifier: BSD-3-Clause */
/* services/localzone_default.c - compat: unbound-1.17: Unbound 1.17's default
 * local zones: localhost, the loopback reverse zones, home.arpa, onion, test,
 * invalid and the AS112 / RFC 6303 reverse zones (the "LAN zones", left out
 * with unblock-lan-zones: yes). Text is handed to the caller, who parses it
 * like configured local-zone and local-data lines. */
#include "config.h"
#include "services/localzone.h"
#include <stdio.h>

#define SOA_TAIL "10800 IN SOA localhost. nobody.invalid. " \
	"1 3600 1200 604800 10800"
#define IP6_LOOP "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0." \
	"0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.ip6.arpa."

/* compat: unbound-1.17: RFC 6303 and RFC 1918 reverse zones, as Unbound's
 * util/as112.c. */
static const char* const lan_zones[] = {
	"10.in-addr.arpa.",
	"16.172.in-addr.arpa.", "17.172.in-addr.arpa.",
	"18.172.in-addr.arpa.", "19.172.in-addr.arpa.",
	"20.172.in-addr.arpa.", "21.172.in-addr.arpa.",
	"22.172.in-addr.arpa.", "23.172.in-addr.arpa.",
	"24.172.in-addr.arpa.", "25.172.in-addr.arpa.",
	"26.172.in-addr.arpa.", "27.172.in-addr.arpa.",
	"28.172.in-addr.arpa.", "29.172.in-addr.arpa.",
	"30.172.in-addr.arpa.", "31.172.in-addr.arpa.",
	"168.192.in-addr.arpa.",
	"0.in-addr.arpa.",
	/* 64.100 to 127.100 are generated (shared address space) */
	"254.169.in-addr.arpa.",
	"2.0.192.in-addr.arpa.",
	"100.51.198.in-addr.arpa.",
	"113.0.203.in-addr.arpa.",
	"255.255.255.255.in-addr.arpa.",
	"0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0."
		"0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.ip6.arpa.",
	"d.f.ip6.arpa.",
	"8.e.f.ip6.arpa.", "9.e.f.ip6.arpa.",
	"a.e.f.ip6.arpa.", "b.e.f.ip6.arpa.",
	"8.b.d.0.1.0.0.2.ip6.arpa.",
	NULL
};

/* A static zone with only an SOA and NS record. */
static int
add_empty(const char* name, int lan, local_zone_default_cb cb, void* arg)
{
	char soa[320], ns[320];
	const char* rrs[2];
	snprintf(soa, sizeof(soa), "%s " SOA_TAIL, name);
	snprintf(ns, sizeof(ns), "%s 10800 IN NS localhost.", name);
	rrs[0] = soa;
	rrs[1] = ns;
	return cb(arg, name, local_zone_static, lan, rrs, 2);
}

int
local_zone_defaults(int unblock_lan_zones, local_zone_default_cb cb,
	void* arg)
{
	static const char* const lh[] = {
		"localhost. 10800 IN NS localhost.",
		"localhost. " SOA_TAIL,
		"localhost. 10800 IN A 127.0.0.1",
		"localhost. 10800 IN AAAA ::1"
	};
	static const char* const r4[] = {
		"127.in-addr.arpa. 10800 IN NS localhost.",
		"127.in-addr.arpa. " SOA_TAIL,
		"1.0.0.127.in-addr.arpa. 10800 IN PTR localhost."
	};
	static const char* const r6[] = {
		IP6_LOOP " 10800 IN NS localhost.",
		IP6_LOOP " " SOA_TAIL,
		IP6_LOOP " 10800 IN PTR localhost."
	};
	const char* const* z;
	int i;
	if(!cb(arg, "localhost.", local_zone_redirect, 0, lh, 4) ||
		!cb(arg, "127.in-addr.arpa.", local_zone_static, 0, r4, 3) ||
		!cb(arg, IP6_LOOP, local_zone_static, 0, r6, 3) ||
		!add_empty("home.arpa.", 0, cb, arg) ||
		!add_empty("onion.", 0, cb, arg) ||
		!add_empty("test.", 0, cb, arg) ||
		!add_empty("invalid.", 0, cb, arg))
		return 0;
	if(unblock_lan_zones)
		return 1;
	for(z = lan_zones; *z; z++)
		if(!add_empty(*z, 1, cb, arg))
			return 0;
	/* 64.100 .. 127.100.in-addr.arpa: shared address space (RFC 6598) */
	for(i = 64; i <= 127; i++) {
		char nm[64];
		snprintf(nm, sizeof(nm), "%d.100.in-addr.arpa.", i);
		if(!add_empty(nm, 1, cb, arg))
			return 0;
	}
	return 1;
}
