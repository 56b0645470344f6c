/* SPDX-License-Identifier: BSD-3-Clause */
/* services/doh_req.c - request checks for DNS over HTTPS (see the .h). */
#include "config.h"
#include "services/doh_req.h"
#include <stdint.h>
#include <string.h>

#define DNS_PARAM "?dns="

enum doh_path doh_check_path(const char* endpoint, const uint8_t* path,
	size_t len, const uint8_t** param, size_t* param_len)
{
	size_t el = strlen(endpoint), pl = sizeof(DNS_PARAM) - 1;
	*param = NULL;
	*param_len = 0;
	if(len < el || memcmp(path, endpoint, el) != 0)
		return DOH_PATH_WRONG;
	if(len == el)
		return DOH_PATH_PLAIN;
	if(len < el + pl || memcmp(path + el, DNS_PARAM, pl) != 0)
		return DOH_PATH_WRONG;
	*param = path + el + pl;
	*param_len = len - el - pl;
	return DOH_PATH_QUERY;
}

/* 0-63 for the base64url alphabet, -1 otherwise */
static const int8_t b64url_val[256] = {
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 62, -1, -1,
	52, 53, 54, 55, 56, 57, 58, 59, 60, 61, -1, -1, -1, -1, -1, -1,
	-1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
	15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, -1, -1, -1, -1, 63,
	-1, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40,
	41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
};

long doh_b64url_decode(const uint8_t* in, size_t len, uint8_t* out,
	size_t outcap)
{
	uint32_t acc = 0;
	size_t i, n = 0;
	int bits = 0;
	/* trailing padding is allowed, though RFC 8484 says to leave it */
	while(len > 0 && in[len - 1] == '=')
		len--;
	if(len % 4 == 1)
		return -1;  /* 6 bits cannot end a byte */
	/* four characters make three bytes */
	for(i = 0; i + 4 <= len; i += 4) {
		int32_t a = b64url_val[in[i]], b = b64url_val[in[i + 1]],
			c = b64url_val[in[i + 2]], d = b64url_val[in[i + 3]];
		uint32_t v;
		if((a | b | c | d) < 0 || n + 3 > outcap)
			return -1;
		v = (uint32_t)a << 18 | (uint32_t)b << 12 | (uint32_t)c << 6 |
			(uint32_t)d;
		out[n] = (uint8_t)(v >> 16);
		out[n + 1] = (uint8_t)(v >> 8);
		out[n + 2] = (uint8_t)v;
		n += 3;
	}
	for(; i < len; i++) {
		int v = b64url_val[in[i]];
		if(v < 0)
			return -1;
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if(bits >= 8) {
			bits -= 8;
			if(n >= outcap)
				return -1;
			out[n++] = (uint8_t)(acc >> bits);
		}
	}
	return (long)n;
}

int doh_content_type_ok(const uint8_t* v, size_t len)
{
	static const char want[] = "application/dns-message";
	return len == sizeof(want) - 1 && memcmp(v, want, len) == 0;
}

/* Skip a (possibly compressed) name at *pos; 0 when it runs past len. */
static int skip_name(const uint8_t* pkt, size_t len, size_t* pos)
{
	size_t p = *pos;
	while(p < len) {
		uint8_t l = pkt[p];
		if((l & 0xc0) == 0xc0) {
			if(p + 2 > len)
				return 0;
			*pos = p + 2;
			return 1;
		}
		if(l & 0xc0)
			return 0;  /* 0x40, 0x80: no such label types */
		p += 1 + (size_t)l;
		if(l == 0) {
			*pos = p;
			return 1;
		}
	}
	return 0;
}

int doh_min_ttl(const uint8_t* pkt, size_t len, uint32_t* ttl)
{
	size_t pos = 12, i, nrr;
	unsigned qd;
	uint32_t min = 0xffffffffu; /* the smallest TTL so far */
	int found = 0;
	if(len < 12)
		return 0;
	qd = ((unsigned)pkt[4] << 8) | pkt[5];
	nrr = (((size_t)pkt[6] << 8) | pkt[7]) +
		(((size_t)pkt[8] << 8) | pkt[9]);
	for(i = 0; i < qd; i++) {
		if(!skip_name(pkt, len, &pos) || pos + 4 > len)
			return 0;
		pos += 4;
	}
	for(i = 0; i < nrr; i++) {
		uint32_t t;
		size_t rdlen;
		if(!skip_name(pkt, len, &pos) || pos + 10 > len)
			return 0;
		t = ((uint32_t)pkt[pos + 4] << 24) |
			((uint32_t)pkt[pos + 5] << 16) |
			((uint32_t)pkt[pos + 6] << 8) | pkt[pos + 7];
		rdlen = ((size_t)pkt[pos + 8] << 8) | pkt[pos + 9];
		pos += 10 + rdlen;
		if(pos > len)
			return 0;
		/* a TTL with the top bit set means 0 (RFC 2181 8) */
		if(t & 0x80000000u)
			t = 0;
		if(t < min)
			min = t;
		found = 1;
	}
	if(found)
		*ttl = min;
	return found;
}
