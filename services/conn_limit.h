/* SPDX-License-Identifier: BSD-3-Clause */
/* services/conn_limit.h - tcp-connection-limit: how many stream
 * connections (TCP, TLS, HTTPS) the clients of a netblock may hold open.
 *
 * One table per config, shared by all workers: with so-reuseport each
 * worker accepts on its own socket, so a per-worker count would let a
 * netblock hold limit connections on every worker. The counts are
 * atomics, touched only at accept and close (never on the query path),
 * so no lock is needed. A connection holds a reference on the table it
 * counted in, so a reload can replace the table while old connections
 * still close into the old one. */
#ifndef SERVICES_CONN_LIMIT_H
#define SERVICES_CONN_LIMIT_H
#include <sys/socket.h>

struct config_file;
struct conn_limit;
struct conn_limit_entry;

/* compat: unbound-1.17: from cfg's tcp-connection-limit lines; for a
 * netblock given twice the first line counts. Returns 0 on a bad line
 * (printed with log_err); *out is NULL when there are no lines. */
int conn_limit_create(const struct config_file* cfg, struct conn_limit** out);
/* Drops a reference (the creator's, or one from conn_limit_ref). */
void conn_limit_release(struct conn_limit* cl);
struct conn_limit* conn_limit_ref(struct conn_limit* cl);

enum conn_limit_outcome {
	CONN_LIMIT_FREE = 0,     /* no netblock matches: not counted */
	CONN_LIMIT_COUNTED,      /* counted in *held: conn_limit_give at
	                          * close */
	CONN_LIMIT_OVER          /* the netblock is at its limit: refuse */
};
/* A new connection from addr: the longest matching netblock's count goes
 * up unless that would pass its limit. */
enum conn_limit_outcome conn_limit_take(struct conn_limit* cl,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	struct conn_limit_entry** held);
/* The connection counted in e closed. */
void conn_limit_give(struct conn_limit_entry* e);

#endif
