/* SPDX-License-Identifier: BSD-3-Clause */
/* dns64/dns64_synth.c - RFC 6052 address synthesis and the reverse names
 * (see the header). */
#include "config.h"
#include "dns64/dns64_synth.h"
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int dns64_prefix_parse(const char* s, struct dns64_prefix* p, char* err,
	size_t errlen)
{
	char buf[128];
	struct in_addr a4;
	const char* slash = strchr(s, '/');
	size_t alen = slash ? (size_t)(slash - s) : strlen(s);
	char* end;
	long len = 128;
	int i;
	memset(p, 0, sizeof(*p));
	if(alen >= sizeof(buf)) {
		snprintf(err, errlen, "cannot parse dns64-prefix netblock: %s",
			s);
		return 0;
	}
	memcpy(buf, s, alen);
	buf[alen] = 0;
	if(slash) {
		len = strtol(slash + 1, &end, 10);
		if(!slash[1] || *end || len < 0 || len > 128) {
			snprintf(err, errlen, "cannot parse dns64-prefix "
				"netblock: %s", s);
			return 0;
		}
	}
	if(inet_pton(AF_INET6, buf, p->addr) != 1) {
		/* compat: unbound-1.17: its words for these two and the
		 * length */
		if(inet_pton(AF_INET, buf, &a4) == 1)
			snprintf(err, errlen, "dns64_prefix is not IPv6: %s", s);
		else	snprintf(err, errlen, "cannot parse dns64-prefix "
				"netblock: %s", s);
		return 0;
	}
	if(len != 32 && len != 40 && len != 48 && len != 56 && len != 64 &&
		len != 96) {
		snprintf(err, errlen, "dns64-prefix length is not 32, 40, 48, "
			"56, 64 or 96: %s", s);
		return 0;
	}
	/* compat: unbound-1.17: unlike Unbound, which masks the bits after
	 * the length away, they are an error here (the address is not the
	 * prefix the writer meant, or a typo; doc/compat.md) */
	for(i = (int)len; i < 128; i++)
		if(p->addr[i / 8] & (0x80 >> (i % 8))) {
			snprintf(err, errlen, "dns64-prefix has bits set after "
				"its length %d: %s", (int)len, s);
			return 0;
		}
	p->len = (int)len;
	return 1;
}

void dns64_synth_addr(const struct dns64_prefix* p, const uint8_t v4[4],
	uint8_t out[16])
{
	int i, pos = p->len / 8;
	memcpy(out, p->addr, 16);
	for(i = 0; i < 4; i++, pos++) {
		if(pos == 8)
			out[pos++] = 0;   /* bits 64-71, the u octet */
		out[pos] = v4[i];
	}
}

int dns64_extract_v4(const struct dns64_prefix* p, const uint8_t v6[16],
	uint8_t v4[4])
{
	int i, pos = p->len / 8;
	/* every RFC 6052 length is whole bytes */
	if(memcmp(v6, p->addr, (size_t)pos) != 0)
		return 0;
	for(i = 0; i < 4; i++, pos++) {
		if(pos == 8)
			pos++;
		v4[i] = v6[pos];
	}
	return 1;
}

static int hexval(uint8_t c)
{
	if(c >= '0' && c <= '9')
		return c - '0';
	if(c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if(c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int dns64_ptr6_to_addr(const uint8_t* name, size_t len, uint8_t v6[16])
{
	static const uint8_t tail[] = "\003ip6\004arpa";
	int i;
	if(len != DNS64_PTR6_LEN || name[64] != 3 ||
		strncasecmp((const char*)name + 64, (const char*)tail,
		sizeof(tail)) != 0)
		return 0;
	memset(v6, 0, 16);
	/* the least significant nibble first */
	for(i = 0; i < 32; i++) {
		int x;
		if(name[2 * i] != 1 || (x = hexval(name[2 * i + 1])) < 0)
			return 0;
		v6[15 - i / 2] |= (uint8_t)(i % 2 ? x << 4 : x);
	}
	return 1;
}

size_t dns64_addr_to_ptr6(const uint8_t v6[16], uint8_t* out)
{
	static const char hex[] = "0123456789abcdef";
	int i;
	for(i = 0; i < 32; i++) {
		uint8_t b = v6[15 - i / 2];
		out[2 * i] = 1;
		out[2 * i + 1] = (uint8_t)hex[i % 2 ? b >> 4 : b & 0xf];
	}
	memcpy(out + 64, "\003ip6\004arpa", 10);
	return DNS64_PTR6_LEN;
}

size_t dns64_v4_to_ptr(const uint8_t v4[4], uint8_t* out)
{
	size_t n = 0;
	int i;
	for(i = 3; i >= 0; i--) {
		int l = snprintf((char*)out + n + 1, 4, "%u", (unsigned)v4[i]);
		out[n] = (uint8_t)l;
		n += (size_t)l + 1;
	}
	memcpy(out + n, "\007in-addr\004arpa", 14);
	return n + 14;
}
