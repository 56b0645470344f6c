/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/prometheus.h - compat: unbound-1.17: the statistics for Prometheus
 * over HTTP (not in Unbound; remote-control: prometheus-enable,
 * prometheus-interface, prometheus-port). GET /metrics answers the exposition
 * of daemon/prom_metrics.h.
 *
 * It runs in the main thread's event loop, beside the control channel,
 * and never in a worker: a scrape reads the workers' counters with
 * relaxed loads (daemon/stats.h) and locks nothing they wait for but the
 * cache slabs, briefly, to count their memory, as `unbound-control stats`
 * does. Every socket is non-blocking. A client is bounded: its request
 * head to PROM_REQ_MAX bytes (then 400 and close), its whole exchange to
 * PROM_TIMEOUT_SECS, and at most PROM_MAX_CONNS clients at once; a new
 * client past that limit takes the place of the oldest one that has not
 * sent a full request yet, so idle or slow clients cannot lock scrapers
 * out. */
#ifndef DAEMON_PROMETHEUS_H
#define DAEMON_PROMETHEUS_H

struct daemon;
struct config_file;
struct event_base;
struct prom_server;

#define PROM_TIMEOUT_SECS 5
#define PROM_MAX_CONNS 16

/* Bind the listening socket when prometheus-enable: yes (before chroot
 * and the privilege drop, like the other sockets). NULL on error
 * (logged), e.g. when the address cannot be bound. */
struct prom_server* prom_server_create(struct daemon* d,
	struct config_file* cfg);
/* Start accepting on the main thread's event base. 0 on error. */
int prom_server_start(struct prom_server* ps, struct event_base* base);
/* After a reload: keep the socket when enable, address and port are
 * unchanged; else open the new one and close the old, or close it when
 * disabled. When the new address cannot be bound, the error is logged
 * and the old socket (if any) keeps serving. */
void prom_server_reload(struct prom_server* ps, struct config_file* cfg);
/* Close the listener and every connection. NULL is fine. */
void prom_server_delete(struct prom_server* ps);

#endif
