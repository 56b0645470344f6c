/* SPDX-License-Identifier: BSD-3-Clause */
/* subnetcache/ecs.h - the EDNS Client Subnet option (RFC 7871) in wire
 * form: read from a client's query or a server's reply (outside input:
 * testdata/fuzz/fuzz_ecs.c), written to a server's query or a client's
 * reply, and the prefix arithmetic of the subnet cache. */
#ifndef SUBNETCACHE_ECS_H
#define SUBNETCACHE_ECS_H
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* the option code (RFC 7871); compat: unbound-1.17: client-subnet-opcode
 * is deprecated and ignored, the code is always this one */
#define ECS_OPTION_CODE 8
#define ECS_FAMILY_IP4 1
#define ECS_FAMILY_IP6 2
/* code, length, family, source, scope, 16 address bytes */
#define ECS_OPT_MAX (4 + 4 + 16)

struct ecs_data {
	uint16_t family;     /* ECS_FAMILY_* */
	uint8_t source;      /* SOURCE PREFIX-LENGTH */
	uint8_t scope;       /* SCOPE PREFIX-LENGTH */
	uint8_t addr[16];    /* bits past source are zero */
};

/* compat: unbound-1.17: Read an option's data (len bytes) as Unbound's
 * parse_subnet_option: 1 when valid (family 1 or 2, prefixes at most 32
 * or 128, exactly ceil(source/8) address bytes); 0 otherwise (a
 * client's: FORMERR). Address bits past the source prefix are cleared
 * (Unbound 1.17 clears them too, RFC 7871 would refuse). */
int ecs_parse(const uint8_t* data, size_t len, struct ecs_data* e);

/* Write e as an option of this code (code, length, data) into buf (at
 * least ECS_OPT_MAX bytes): its length. */
size_t ecs_encode(const struct ecs_data* e, uint16_t code, uint8_t* buf);

/* The client's address as an option's data: its first max4 or max6
 * bits. 0 for an address that is not IPv4 or IPv6. */
int ecs_from_addr(const struct sockaddr_storage* addr, socklen_t len,
	int max4, int max6, struct ecs_data* e);

/* Do a and b have the same first bits bits? */
int ecs_prefix_equal(const uint8_t* a, const uint8_t* b, int bits);

/* Clear the bits of addr past bits. */
void ecs_clear_past(uint8_t addr[16], int bits);

#endif
