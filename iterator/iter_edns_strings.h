/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/iter_edns_strings.h - compat: unbound-1.13: edns-client-string:
 * a query to an upstream whose address is in a configured netblock (the
 * longest one that holds it) carries an EDNS option with code
 * edns-client-string-opcode (default 65001) and the configured string as
 * its data. Built per worker at init and reconfigure; used on the
 * cache-miss path only (iterator send_query). */
#ifndef ITERATOR_ITER_EDNS_STRINGS_H
#define ITERATOR_ITER_EDNS_STRINGS_H
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct config_file;

/* The longest string this daemon sends (bytes). Unbound has no limit
 * below 65535; a longer one is refused at start (doc/compat.md). */
#define EDNS_STRING_MAX 256

struct edns_string {
	struct sockaddr_storage addr;   /* the netblock, bits past net 0 */
	socklen_t addrlen;
	int net;
	size_t len;
	uint8_t data[EDNS_STRING_MAX];
};

struct edns_strings {
	uint16_t opcode;
	size_t num;
	struct edns_string* list;
};

enum edns_strings_result {
	EDNS_STRINGS_OK = 0,
	EDNS_STRINGS_BAD_NETBLOCK,
	EDNS_STRINGS_TOO_LONG,
	EDNS_STRINGS_NOMEM
};

/* The edns-client-string: entries of cfg in *out (NULL when there are
 * none). On an error (logged) *out is NULL. */
enum edns_strings_result edns_strings_create(const struct config_file* cfg,
	struct edns_strings** out);
void edns_strings_delete(struct edns_strings* es);
/* The entry whose netblock is the longest one holding addr (the port is
 * not looked at); NULL: none. es may be NULL. */
const struct edns_string* edns_strings_lookup(const struct edns_strings* es,
	const struct sockaddr_storage* addr, socklen_t addrlen);
/* Append the option for addr (if any) to the options in buf (*len bytes
 * used, cap in all); an option that does not fit is left out. */
void edns_strings_append(const struct edns_strings* es,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	uint8_t* buf, size_t* len, size_t cap);
#endif
