/* SPDX-License-Identifier: BSD-3-Clause */
/* services/xfr_consumer.h - zones a module wants kept up to date from
 * primaries or URLs (rpz: with primary:/allow-notify:/url:), so the daemon's transfer
 * engine (services/xfr_source.h) serves them beside auth-zone without
 * the daemon knowing the module; a zone without primaries or URLs is only
 * listed (list_auth_zones, as Unbound lists its rpz: zones). A module registers its zones at
 * startup (and again at a reload), with the content it serves now and
 * a callback that receives each new version in the main thread. The
 * daemon adds a source per registered zone when it starts its
 * transfers. Never on the query path. */
#ifndef SERVICES_XFR_CONSUMER_H
#define SERVICES_XFR_CONSUMER_H
#include "services/xfr_source.h"
#include <stddef.h>
#include <stdint.h>

struct config_strlist;

/* One zone to transfer, as the module configured it. */
struct xfr_consumer {
	const uint8_t* zone;                      /* wire name */
	const struct config_strlist* primaries;   /* NULL, no urls: listed */
	const struct config_strlist* urls;        /* url: (HTTP, HTTPS) */
	const struct config_strlist* allow_notify;
	const char* zonefile;   /* written after a transfer; NULL: none */
	size_t max_transfer_size;
	int max_transfer_time;
	/* The content served now into out (xfr_rrs_init'ed by the caller;
	 * empty: none yet, the first check transfers it). Called in the
	 * main thread when transfers start. 0: out of memory. */
	int (*content)(void* arg, const uint8_t* zone, struct xfr_rrs* out);
	/* A new version (as xfr_publish_fn: content taken over; NULL:
	 * expired). Main thread. */
	xfr_publish_fn publish;
	/* The serial served now into *serial: 1, or 0 when the zone has
	 * no SOA (list_auth_zones). Any thread. */
	int (*serial)(void* arg, const uint8_t* zone, uint32_t* serial);
	void* arg;
};

/* Register c (copied) for its zone, replacing one registered for the
 * same zone and arg. 0: out of memory (logged). */
int xfr_consumer_register(const struct xfr_consumer* c);
/* Drop every zone registered with arg (a reload registers again). */
void xfr_consumer_unregister(void* arg);
/* Call fn for each registered zone, in registration order (under the
 * registry's lock: fn must not register). Stops at, and returns, the
 * first 0 fn returns; 1 when all returned 1. */
int xfr_consumer_each(int (*fn)(void* farg, const struct xfr_consumer* c),
	void* farg);
/* Is any zone with primaries or URLs registered? */
int xfr_consumer_any(void);

#endif
