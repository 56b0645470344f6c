/* SPDX-License-Identifier: BSD-3-Clause */
/* subnetcache/ecs.c - the ECS option in wire form (see the header). */
#include "config.h"
#include "subnetcache/ecs.h"
#include <netinet/in.h>
#include <string.h>

void ecs_clear_past(uint8_t addr[16], int bits)
{
	int i;
	for(i = 0; i < 16; i++) {
		int left = bits - i * 8;
		if(left <= 0)
			addr[i] = 0;
		else if(left < 8)
			addr[i] &= (uint8_t)(0xff << (8 - left));
	}
}

int ecs_parse(const uint8_t* data, size_t len, struct ecs_data* e)
{
	int max;
	memset(e, 0, sizeof(*e));
	if(len < 4)
		return 0;
	e->family = (uint16_t)(data[0] << 8 | data[1]);
	e->source = data[2];
	e->scope = data[3];
	if(e->family == ECS_FAMILY_IP4)
		max = 32;
	else if(e->family == ECS_FAMILY_IP6)
		max = 128;
	else	return 0;
	if(e->source > max || e->scope > max)
		return 0;
	if(len != 4 + (size_t)(e->source + 7) / 8)
		return 0;
	memcpy(e->addr, data + 4, len - 4);
	ecs_clear_past(e->addr, e->source);
	return 1;
}

size_t ecs_encode(const struct ecs_data* e, uint16_t code, uint8_t* buf)
{
	size_t n = (size_t)(e->source + 7) / 8, dlen = 4 + n;
	uint8_t a[16];
	memcpy(a, e->addr, sizeof(a));
	ecs_clear_past(a, e->source);
	buf[0] = (uint8_t)(code >> 8);
	buf[1] = (uint8_t)code;
	buf[2] = (uint8_t)(dlen >> 8);
	buf[3] = (uint8_t)dlen;
	buf[4] = (uint8_t)(e->family >> 8);
	buf[5] = (uint8_t)e->family;
	buf[6] = e->source;
	buf[7] = e->scope;
	memcpy(buf + 8, a, n);
	return 4 + dlen;
}

int ecs_from_addr(const struct sockaddr_storage* addr, socklen_t len,
	int max4, int max6, struct ecs_data* e)
{
	memset(e, 0, sizeof(*e));
	if(addr->ss_family == AF_INET && len >= (socklen_t)sizeof(struct
		sockaddr_in)) {
		e->family = ECS_FAMILY_IP4;
		e->source = (uint8_t)max4;
		memcpy(e->addr, &((const struct sockaddr_in*)addr)->sin_addr, 4);
	} else if(addr->ss_family == AF_INET6 && len >= (socklen_t)sizeof(
		struct sockaddr_in6)) {
		e->family = ECS_FAMILY_IP6;
		e->source = (uint8_t)max6;
		memcpy(e->addr, &((const struct sockaddr_in6*)addr)->sin6_addr,
			16);
	} else
		return 0;
	ecs_clear_past(e->addr, e->source);
	return 1;
}

int ecs_prefix_equal(const uint8_t* a, const uint8_t* b, int bits)
{
	int n = bits / 8, r = bits % 8;
	if(memcmp(a, b, (size_t)n) != 0)
		return 0;
	return r == 0 || ((a[n] ^ b[n]) & (uint8_t)(0xff << (8 - r))) == 0;
}
