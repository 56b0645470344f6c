/* daemon/query.h - answer one query packet: parse, access control,
 * CHAOS, local zones, and (until recursion lands) SERVFAIL.
 * Shared by the UDP and TCP paths; allocates nothing. */
#ifndef DAEMON_QUERY_H
#define DAEMON_QUERY_H
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct serve_env;
struct worker_stats;

/* Answer pkt (len bytes) from addr. out has room for outcap bytes (for
 * TCP 65535; for UDP the largest reply this server may send). Returns
 * the reply length, or 0 when the query is dropped. */
size_t query_answer(const struct serve_env* env, struct worker_stats* st,
	const uint8_t* pkt, size_t len, const struct sockaddr_storage* addr,
	socklen_t addrlen, int is_tcp, uint8_t* out, size_t outcap);

#endif
