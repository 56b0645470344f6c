/* SPDX-License-Identifier: BSD-3-Clause */
/* dnstap/dnstap.h - dnstap logging (the dnstap: clause): each worker
 * encodes the DNS messages it sees (client queries and responses on
 * the worker, resolver and forwarder queries and responses on its
 * outside network) as dnstap protobuf frames and hands them to
 * libfstrm's I/O thread through a queue of its own (single producer:
 * no lock, no blocking). The I/O thread writes them to the collector
 * over a unix socket, TCP or TLS (dnstap_out.h). A full queue or a
 * collector that is gone drops the message and counts it; answering
 * never waits for the collector. A serve_env holds the dnstap of its
 * config: a reload that changes the dnstap clause starts a new one and
 * the workers move to it with the new env. Built without
 * libfstrm/protobuf-c, dnstap_create refuses dnstap-enable: yes. */
#ifndef DNSTAP_DNSTAP_H
#define DNSTAP_DNSTAP_H
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>

struct config_file;
struct dnstap;
struct dnstap_tap;

/* The transport a message travelled on (dnstap's SocketProtocol). */
enum dnstap_proto {
	DNSTAP_UDP = 1,
	DNSTAP_TCP = 2,
	DNSTAP_DOT = 3,
	DNSTAP_DOH = 4
};

/* Which messages a worker's tap writes (dnstap-log-*-messages). */
#define DNSTAP_CLIENT_QUERY     0x01
#define DNSTAP_CLIENT_RESPONSE  0x02
#define DNSTAP_RESOLVER_QUERY   0x04
#define DNSTAP_RESOLVER_RESPONSE 0x08
#define DNSTAP_FORWARDER_QUERY  0x10
#define DNSTAP_FORWARDER_RESPONSE 0x20
#define DNSTAP_CLIENT (DNSTAP_CLIENT_QUERY | DNSTAP_CLIENT_RESPONSE)
#define DNSTAP_OUTSIDE (DNSTAP_RESOLVER_QUERY | DNSTAP_RESOLVER_RESPONSE | \
	DNSTAP_FORWARDER_QUERY | DNSTAP_FORWARDER_RESPONSE)

/* Is this binary built with dnstap (libfstrm, protobuf-c)? */
int dnstap_built(void);

/* Can dnstap start with cfg? 1 yes (or not enabled); 0, logged: built
 * without dnstap. Called before the daemon forks, so the error reaches
 * the terminal. */
int dnstap_config_ok(const struct config_file* cfg);
/* Do a and b configure the same dnstap (every dnstap option, and the
 * server options its TLS reads)? A reload keeps the running one then. */
int dnstap_same_config(const struct config_file* a,
	const struct config_file* b);
/* Start dnstap from cfg for num_workers workers (its I/O thread and one
 * queue each). NULL when dnstap-enable is no, and NULL with *failed set
 * (and logged) when it cannot start: built without dnstap, a bad
 * dnstap-ip, TLS files that cannot be read, no memory. A collector that
 * is not there is no failure: it is tried again every second. */
struct dnstap* dnstap_create(const struct config_file* cfg, int num_workers,
	int* failed);
/* One more holder of dt (a serve_env that shares it); returns dt, NULL
 * ok. */
struct dnstap* dnstap_share(struct dnstap* dt);
/* A worker has stopped using its taps of dt (a reload moved it to
 * another dnstap; called in that worker). Once every worker has, the
 * stream is flushed and closed in a thread of its own; dt itself stays
 * until its last holder deletes it. NULL ok. */
void dnstap_leave(struct dnstap* dt);
/* Drop one holder; the last flushes what is queued (the I/O thread
 * writes it, each write at most a couple of seconds) and stops. NULL
 * ok. */
void dnstap_delete(struct dnstap* dt);
/* Worker num's tap, NULL when dt is NULL or none of the messages in
 * which (DNSTAP_* bits) is logged. Used by that worker's thread only. */
struct dnstap_tap* dnstap_tap_of(struct dnstap* dt, int num, unsigned which);
/* Does t log this message (a DNSTAP_* bit)? */
int dnstap_logs(const struct dnstap_tap* t, unsigned which);
/* Messages dropped by t: queue full or no memory. */
uint64_t dnstap_dropped(const struct dnstap_tap* t);

/* A client's query (pkt, len bytes) from addr, received now. */
void dnstap_client_query(struct dnstap_tap* t,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	enum dnstap_proto proto, const uint8_t* pkt, size_t len);
/* The reply (pkt, len bytes) sent now to the client at addr. */
void dnstap_client_response(struct dnstap_tap* t,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	enum dnstap_proto proto, const uint8_t* pkt, size_t len);
/* A query (pkt) sent to the server at addr for zone (the delegation
 * point, wire form) at *sent (CLOCK_REALTIME). RD set in pkt: a
 * FORWARDER_QUERY, else RESOLVER_QUERY (as Unbound tells them apart). */
void dnstap_outside_query(struct dnstap_tap* t,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	enum dnstap_proto proto, const uint8_t* zone, size_t zonelen,
	const uint8_t* pkt, size_t len, const struct timespec* sent);
/* The reply (pkt) from the server at addr to the query qpkt sent at
 * *sent, received now. */
void dnstap_outside_response(struct dnstap_tap* t,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	enum dnstap_proto proto, const uint8_t* zone, size_t zonelen,
	const uint8_t* qpkt, const struct timespec* sent,
	const uint8_t* pkt, size_t len);

#endif
