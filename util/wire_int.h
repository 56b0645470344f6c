/* SPDX-License-Identifier: BSD-3-Clause */
/* util/wire_int.h - 16- and 32-bit integers in network byte order, read
 * from and written to wire-format buffers. Inline: the cache-hit path
 * uses them. The caller has checked that the bytes are there. */
#ifndef UTIL_WIRE_INT_H
#define UTIL_WIRE_INT_H
#include <stdint.h>
#include <string.h>

static inline uint16_t wire_rd16(const uint8_t* p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static inline uint32_t wire_rd32(const uint8_t* p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return __builtin_bswap32(v);
}

static inline void wire_wr16(uint8_t* p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void wire_wr32(uint8_t* p, uint32_t v)
{
	v = __builtin_bswap32(v);
	memcpy(p, &v, 4);
}

#endif
