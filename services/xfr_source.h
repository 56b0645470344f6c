/* SPDX-License-Identifier: BSD-3-Clause */
/* services/xfr_source.h - zones kept up to date from their primaries:
 * the transfer layer that auth-zone (and rpz:, which has the same
 * primary/allow-notify/zonefile options) plug into.
 *
 * A source is one zone: its name, primaries, allow-notify list, zone
 * file and limits. The engine runs one thread of its own that checks
 * each source's SOA on the SOA's refresh timer (retry after a failure,
 * several primaries tried in order), transfers a newer version (IXFR,
 * falling back to AXFR), applies it to a copy of the content it holds
 * and writes the zone file; then hands the new content to the consumer
 * in the main thread's event loop (publish), which builds its own form
 * aside and swaps it in. A source whose SOA could not be checked for
 * the SOA's expire time is published empty (NULL content): the consumer
 * stops serving it. A bad transfer changes nothing but a log line. */
#ifndef SERVICES_XFR_SOURCE_H
#define SERVICES_XFR_SOURCE_H
#include "services/xfr_rr.h"
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct event_base;
typedef struct ssl_ctx_st SSL_CTX;
struct config_strlist;
struct xfr_engine;

/* One zone as configured. */
struct xfr_source_cfg {
	const uint8_t* zone;                  /* wire name */
	const struct config_strlist* primaries; /* primary: / master: */
	const struct config_strlist* allow_notify;
	const char* zonefile;   /* path to write after a transfer, or NULL */
	size_t max_transfer_size;  /* bytes, 0: no limit */
	int max_transfer_time;     /* seconds, 0: no limit */
	const struct config_strlist* urls;    /* url: (HTTP, HTTPS) */
	const char* cabundle;   /* tls-cert-bundle for https, or NULL */
	/* the User-Agent header of url: downloads; NULL: none sent
	 * (hide-http-user-agent) */
	const char* user_agent;
	/* primaries written ADDR@PORT#name (XoT): the TLS client context
	 * (services/tls_client.h, a reference is taken; NULL when no
	 * primary has a name), tls-use-sni, and tls-port and port: a SOA
	 * probe to a TLS primary at tls-port goes to port over UDP */
	SSL_CTX* tls_ctx;
	int tls_use_sni;
	int tls_port, dns_port;
	/* compat: unbound-1.17: outgoing-tcp-mss (0: none), set on the
	 * transfer's and the download's TCP socket as Unbound does */
	int tcp_mss;
	/* optional: asked in the transfer thread before a new version is
	 * taken; 0 refuses it (the version served stays, the next primary
	 * is tried). accept_arg is taken over, freed with accept_free. */
	int (*accept)(void* arg, const struct xfr_rrs* content);
	void* accept_arg;
	void (*accept_free)(void* arg);
	/* this zone's consumer (services/xfr_consumer.h); NULL: the
	 * engine's */
	void (*publish)(void* arg, const uint8_t* zone,
		struct xfr_rrs* content);
	void* publish_arg;
};

/* The consumer, called in the main thread: content is the zone's new
 * whole content (taken over by the callee; NULL: expired, stop serving
 * the zone). */
typedef void (*xfr_publish_fn)(void* arg, const uint8_t* zone,
	struct xfr_rrs* content);

/* An engine that hands results to publish through main_base. Its thread
 * is not started yet. NULL when out of memory. */
struct xfr_engine* xfr_engine_create(struct event_base* main_base,
	xfr_publish_fn publish, void* arg);
/* Stop the thread (if running) and delete the engine with its sources. */
void xfr_engine_delete(struct xfr_engine* e);

/* Add a source (before xfr_engine_start); content: what is served now
 * (from the zone file; copied), NULL when nothing. 0 on a bad primary or
 * allow-notify address (logged) or out of memory. */
int xfr_engine_add(struct xfr_engine* e, const struct xfr_source_cfg* c,
	const struct xfr_rrs* content);
/* Start checking the sources (first check at once). 0 on failure. */
int xfr_engine_start(struct xfr_engine* e);
/* Stop the thread and drop every source (a reload adds them again). */
void xfr_engine_stop(struct xfr_engine* e);

enum xfr_notify_result {
	XFR_NOTIFY_OK = 0,   /* a check is started */
	XFR_NOTIFY_REFUSED,  /* not a listed address */
	XFR_NOTIFY_NOZONE    /* no source for the zone */
};
/* A NOTIFY for zone (wire name) from addr (any thread). A listed
 * allow-notify address or a primary's address starts a SOA check now. */
enum xfr_notify_result xfr_engine_notify(struct xfr_engine* e,
	const uint8_t* zone, const struct sockaddr_storage* addr,
	socklen_t addrlen);
/* unbound-control auth_zone_transfer: the SOA check now, a transfer
 * when the serial is newer, as Unbound (any thread). 0: no source. */
int xfr_engine_transfer_now(struct xfr_engine* e, const uint8_t* zone);
/* Is there a source for zone? */
int xfr_engine_has(struct xfr_engine* e, const uint8_t* zone);

#endif
