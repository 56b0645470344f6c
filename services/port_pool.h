/* SPDX-License-Identifier: BSD-3-Clause */
/* services/port_pool.h - compat: unbound-1.17: the one pool of outgoing UDP
 * source ports, shared by all worker threads.
 *
 * The allowed set (outgoing-port-permit / outgoing-port-avoid, default
 * 1024-65535) is kept whole: every thread draws uniformly from all free
 * allowed ports, so no thread has a narrower choice than the daemon as a
 * whole (splitting the range per thread cut each thread's randomness:
 * CVE-2026-50252 in Unbound). outgoing-range bounds the number of ports
 * in use at once across the daemon. take and return are O(1) under one
 * mutex (swap-remove in an array of free ports). */
#ifndef SERVICES_PORT_POOL_H
#define SERVICES_PORT_POOL_H
#include <stdint.h>

struct config_file;
struct ub_randstate;
struct port_pool;

#define PORT_SET_SIZE 65536

/* A port set is an array of PORT_SET_SIZE bytes: nonzero = allowed. */
/* compat: unbound-1.17: Allow 1024-65535 only (Unbound's range, without its
 * IANA list). */
void port_set_default(uint8_t* avail);
/* Apply "N" or "N-M" (0 <= N <= M <= 65535): allow (permit) or disallow
 * (avoid) those ports. Returns 0 on bad text (set unchanged). */
int port_set_mark(uint8_t* avail, const char* str, int allow);
/* compat: unbound-1.17: The default set with every outgoing-port-permit and
 * outgoing-port-avoid line of cfg applied in file order, as Unbound does.
 * Returns 0 (and logs) on a bad value. */
int port_set_from_cfg(uint8_t* avail, const struct config_file* cfg);
/* Number of allowed ports in the set. */
int port_set_count(const uint8_t* avail);

/* A pool over the allowed ports; at most max_inuse taken at once
 * (outgoing-range). NULL when the set is empty, max_inuse < 1, or out of
 * memory (logged). */
struct port_pool* port_pool_create(const uint8_t* avail, int max_inuse);
void port_pool_delete(struct port_pool* p);
/* compat: unbound-1.17: reload: the new allowed set and outgoing-range
 * (Unbound builds its outside network again). Ports in use stay in use
 * until returned; one no longer allowed is then not handed out again.
 * 0 (logged, the pool unchanged) on an empty set or max_inuse < 1.
 * Thread-safe. */
int port_pool_reconfigure(struct port_pool* p, const uint8_t* avail,
	int max_inuse);
/* port_pool_take_path's answer when every allowed port lies in the
 * kernel's range: no port is drawn here and none is marked, only
 * outgoing-range's count is taken. The kernel's draw at connect is then
 * the one draw, uniform over the same set, and the pool has no port of
 * its own to keep apart from the kernel's (with the kernel's range set
 * to the whole allowed set, 1024-65535 by default, every query goes
 * this way: no draw here, no exchange). The caller still checks the
 * kernel's port with port_pool_allowed: the range may have been changed
 * since it was read. Given back with port_pool_return like a port. */
#define PORT_POOL_KERNEL PORT_SET_SIZE

/* A free port chosen uniformly at random (rnd is the calling thread's
 * state), marked in use. -1 when outgoing-range ports are in use already
 * or none is free. Thread-safe. */
int port_pool_take(struct port_pool* p, struct ub_randstate* rnd);
/* As port_pool_take; *by_kernel (when not NULL) is set to 1 when the
 * port lies in the range set by port_pool_set_kernel_range: the caller
 * may then let the kernel draw the port in that range instead (and
 * report it with port_pool_exchange). With by_kernel, when that range
 * holds every allowed port: PORT_POOL_KERNEL (see there). */
int port_pool_take_path(struct port_pool* p, struct ub_randstate* rnd,
	int* by_kernel);
/* The kernel bound kernel_port where drawn was taken for it: drawn goes
 * back, kernel_port is marked in use (outgoing-range's count stays).
 * 0 (nothing changed) when kernel_port is in use already or not
 * allowed: the caller then lets go of kernel_port and uses drawn. 1
 * when they are the same taken port. Thread-safe. */
int port_pool_exchange(struct port_pool* p, int drawn, int kernel_port);
/* The ports lo-hi (the kernel's ephemeral range, checked with
 * kernel_ports_usable) may be drawn by the kernel; lo 0: none (the
 * default). Thread-safe. */
void port_pool_set_kernel_range(struct port_pool* p, int lo, int hi);
/* Give a taken port back. A port that is not in use is ignored (and
 * logged at VERB_ALGO), so a double return cannot corrupt the pool. */
void port_pool_return(struct port_pool* p, int port);
/* Is this port allowed now? Thread-safe. */
int port_pool_allowed(struct port_pool* p, int port);
/* Ports in use now. */
int port_pool_inuse(struct port_pool* p);
/* Is this port in use now? (for tests) */
int port_pool_is_inuse(struct port_pool* p, int port);

#endif
