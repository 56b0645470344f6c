/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/query.h - answer one query packet: parse, access control,
 * CHAOS, local zones, the message cache (the fast path), and on a miss
 * hand the question to the worker's mesh for recursion.
 * Shared by the UDP and TCP paths; the cache-hit path allocates nothing. */
#ifndef DAEMON_QUERY_H
#define DAEMON_QUERY_H
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct worker;
struct tcp_handle;
struct doh_handle;

/* Where a query came from, and how a later reply gets back there. */
struct client_info {
	const struct sockaddr_storage* addr;
	socklen_t addrlen;
	int is_tcp;
	int udp_fd;                    /* UDP: the socket it came in on */
	const struct tcp_handle* tcp;  /* TCP: its connection */
	const struct doh_handle* doh;  /* HTTPS: its stream */
};

/* Returned when recursion will send the reply later. */
#define QUERY_DEFERRED ((size_t)-1)

/* Answer pkt (len bytes). out has room for outcap bytes (for TCP 65535;
 * for UDP the largest reply this server may send). Returns the reply
 * length, 0 when the query is dropped, or QUERY_DEFERRED. */
size_t query_answer(struct worker* w, const uint8_t* pkt, size_t len,
	const struct client_info* ci, uint8_t* out, size_t outcap);

#endif
