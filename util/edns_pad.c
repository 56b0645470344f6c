/* SPDX-License-Identifier: BSD-3-Clause */
/* util/edns_pad.c - find a message's OPT record, add or look for the
 * padding option, add another option. */
#include "config.h"
#include "util/edns_pad.h"
#include "util/wire_int.h"
#include <string.h>

#define HDR 12
#define TYPE_OPT 41

/* Past the (possibly compressed) name at pos; 0 when malformed. */
static size_t skip_name(const uint8_t* m, size_t len, size_t pos)
{
	while(pos < len) {
		uint8_t l = m[pos];
		if((l & 0xc0) == 0xc0)
			return pos + 2 <= len ? pos + 2 : 0;
		if(l & 0xc0)
			return 0;
		pos += 1 + (size_t)l;
		if(l == 0)
			return pos <= len ? pos : 0;
	}
	return 0;
}

/* The offset of the OPT record (its owner name, the root), 0 when there
 * is none or the message is malformed. */
static size_t find_opt(const uint8_t* m, size_t len)
{
	size_t pos = HDR, i, rrs;
	if(len < HDR)
		return 0;
	for(i = wire_rd16(m + 4); i > 0; i--) {
		if(!(pos = skip_name(m, len, pos)) || pos + 4 > len)
			return 0;
		pos += 4;
	}
	rrs = (size_t)wire_rd16(m + 6) + wire_rd16(m + 8) + wire_rd16(m + 10);
	for(i = 0; i < rrs; i++) {
		size_t start = pos, rdlen;
		if(!(pos = skip_name(m, len, pos)) || pos + 10 > len)
			return 0;
		rdlen = wire_rd16(m + pos + 8);
		if(pos + 10 + rdlen > len)
			return 0;
		if(wire_rd16(m + pos) == TYPE_OPT &&
			i >= rrs - wire_rd16(m + 10) && pos == start + 1)
			return start;
		pos += 10 + rdlen;
	}
	return 0;
}

int edns_get_option(const uint8_t* pkt, size_t len, uint16_t code,
	const uint8_t** data)
{
	size_t o = find_opt(pkt, len), p, end;
	if(!o)
		return -1;
	p = o + 11;
	end = p + wire_rd16(pkt + o + 9);
	while(p + 4 <= end) {
		size_t l = wire_rd16(pkt + p + 2);
		if(p + 4 + l > end)
			return -1;   /* a truncated option: none */
		if(wire_rd16(pkt + p) == code) {
			*data = pkt + p + 4;
			return (int)l;
		}
		p += 4 + l;
	}
	return -1;
}

int edns_query_has_padding(const uint8_t* pkt, size_t len)
{
	size_t o = find_opt(pkt, len), p, end;
	if(!o)
		return 0;
	p = o + 11;
	end = p + wire_rd16(pkt + o + 9);
	while(p + 4 <= end) {
		if(wire_rd16(pkt + p) == EDNS_OPT_PADDING)
			return 1;
		p += 4 + wire_rd16(pkt + p + 2);
	}
	return 0;
}

size_t edns_pad_reply(uint8_t* msg, size_t len, size_t cap, size_t block)
{
	size_t o = find_opt(msg, len), rdend, pad, rdlen;
	if(!o || block < 2)
		return len;
	rdlen = wire_rd16(msg + o + 9);
	rdend = o + 11 + rdlen;
	pad = (block - (len + 4) % block) % block;
	if(len + 4 + pad > cap || rdlen + 4 + pad > 0xffff)
		return len;
	/* records after the OPT (none, mostly) move up */
	memmove(msg + rdend + 4 + pad, msg + rdend, len - rdend);
	msg[rdend] = 0;
	msg[rdend + 1] = EDNS_OPT_PADDING;
	msg[rdend + 2] = (uint8_t)(pad >> 8);
	msg[rdend + 3] = (uint8_t)pad;
	memset(msg + rdend + 4, 0, pad);
	rdlen += 4 + pad;
	msg[o + 9] = (uint8_t)(rdlen >> 8);
	msg[o + 10] = (uint8_t)rdlen;
	return len + 4 + pad;
}

size_t edns_add_option(uint8_t* msg, size_t len, size_t cap,
	const uint8_t* opt, size_t optlen)
{
	size_t o = find_opt(msg, len), rdend, rdlen;
	if(!o || len + optlen > cap)
		return len;
	rdlen = wire_rd16(msg + o + 9);
	if(rdlen + optlen > 0xffff)
		return len;
	rdend = o + 11 + rdlen;
	memmove(msg + rdend + optlen, msg + rdend, len - rdend);
	memcpy(msg + rdend, opt, optlen);
	rdlen += optlen;
	msg[o + 9] = (uint8_t)(rdlen >> 8);
	msg[o + 10] = (uint8_t)rdlen;
	return len + optlen;
}
