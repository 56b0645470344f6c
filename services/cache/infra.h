/* SPDX-License-Identifier: BSD-3-Clause */
/* services/cache/infra.h - compat: unbound-1.17: the infrastructure cache:
 * what the resolver knows about each upstream server, as Unbound keeps it.
 *
 * Key: server address (family, address, port) plus the zone name it
 * serves (lowercased wire format), as Unbound's infra cache. Data: the
 * RTT estimate and retransmit timeout (RTO; exponential back-off on
 * timeout, capped at infra-cache-max-rtt, floor infra-cache-min-rtt),
 * per-qtype timeout counts, EDNS status (works / needs fallback) and
 * lameness flags. Entries live infra-host-ttl seconds; at most
 * infra-cache-numhosts entries, least recently used evicted first.
 * Shared by all threads: slabs, each under its own mutex. Times are
 * absolute seconds (now) and milliseconds (rtt, rto). */
#ifndef SERVICES_CACHE_INFRA_H
#define SERVICES_CACHE_INFRA_H
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <sys/socket.h>

struct config_file;
struct infra_cache;
struct rate_zone_table;

/* rto at or above this: the server gets only single probe queries */
#define PROBE_MAXRTO 12000
/* consecutive timeouts per qtype class before a server is passed over */
#define TIMEOUT_COUNT_MAX 3
/* and the rto they backed it off to (ms), so that a few timeouts of
 * queries sent at once (each doubles the timeout it was sent with) do
 * not count as a dead server: 376 ms doubled three times is 3008 */
#define BACKED_OFF_MIN_RTO 2000

struct infra_settings {
	int numhosts;        /* infra-cache-numhosts (10000) */
	int slabs;           /* infra-cache-slabs (4, power of 2) */
	int host_ttl;        /* infra-host-ttl, seconds (900) */
	int min_rtt;         /* infra-cache-min-rtt, ms (50) */
	int max_rtt;         /* infra-cache-max-rtt, ms (120000) */
	int unknown_rtt;     /* unknown-server-time-limit, ms (376) */
	int keep_probing;    /* infra-keep-probing (no) */
	/* the zone rate table it holds, as Unbound's infra cache */
	size_t rate_size;    /* ratelimit-size (4m) */
	int rate_slabs;      /* ratelimit-slabs (4) */
};

/* compat: unbound-1.17: The RTT state of one server (Unbound's rtt_info), in
 * ms. */
struct rtt_info {
	int srtt;            /* smoothed rtt */
	int rttvar;          /* rtt variance */
	int rto;             /* current timeout, with back-off */
};

/* A copy of one entry, for callers that want everything at once. */
struct infra_info {
	struct rtt_info rtt;
	time_t ttl;          /* absolute expiry */
	time_t probedelay;   /* no probe before this time */
	int edns_version;    /* 0: EDNS (or unknown), -1: send without */
	int edns_lame_known; /* edns_version was learned from a reply */
	int isdnsseclame, rec_lame, lame_type_A, lame_other;
	int timeout_A, timeout_AAAA, timeout_other;
};

/* compat: unbound-1.17: Unbound's defaults. */
void infra_settings_default(struct infra_settings* s);
/* Settings from the config. */
void infra_settings_from_cfg(const struct config_file* cfg,
	struct infra_settings* s);

/* NULL when out of memory. */
struct infra_cache* infra_create(const struct infra_settings* s);
void infra_delete(struct infra_cache* infra);
/* compat: unbound-1.23: a reload's new settings, applied in place as
 * Unbound's fast_reload (fr_adjust_cache, fr_adjust_infra) does: a new
 * numhosts bounds the table now (the least recently used entries over it
 * go, the others stay), a new rate_size the zone rate table; host_ttl,
 * the RTT bounds, unknown_rtt and keep_probing apply to the entries'
 * next use. The slab counts stay until a restart. One thread (the
 * main one) at a time, while the workers use the cache. */
void infra_reconfigure(struct infra_cache* infra,
	const struct infra_settings* s);
/* The zone rate table (services/cache/rate_zone.h): shared by every
 * thread, for the life of the cache. (The client address rates are the
 * serve_env's: daemon/daemon.h.) */
struct rate_zone_table* infra_zone_rates(struct infra_cache* infra);
/* compat: unbound-1.17: The cap used for "unusable server"
 * (infra-cache-max-rtt); Unbound's USEFUL_SERVER_TOP_TIMEOUT. */
int infra_max_rtt(const struct infra_cache* infra);
/* Entries now. */
size_t infra_count(struct infra_cache* infra);

/* Before sending to a server: its EDNS status and the timeout to use
 * (ms). Creates the entry when absent, renews an expired one (a backed
 * off server keeps its top timeout). Returns 0 when out of memory. When
 * the timeout is at PROBE_MAXRTO or more, this query is the probe and
 * other queries are held off (probedelay). */
int infra_host(struct infra_cache* infra, const struct sockaddr_storage* addr,
	socklen_t addrlen, const uint8_t* zone, size_t zonelen, time_t now,
	int* edns_vs, uint8_t* edns_lame_known, int* to);

/* After a query: roundtrip is the measured ms, or -1 for a timeout, in
 * which case orig_rtt (the timeout that query used) is doubled into the
 * rto (capped at max rtt). A reply resets the qtype's timeout count.
 * Returns the new rto, or -1 when out of memory. */
int infra_rtt_update(struct infra_cache* infra,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* zone, size_t zonelen, int qtype, int roundtrip,
	int orig_rtt, time_t now);

/* Record EDNS status: 0 (EDNS works) or -1 (needs no-EDNS: FORMERR or
 * NOTIMP to a query with EDNS, and the plain query worked). A known
 * working EDNS is not overwritten by -1 (a spoofed FORMERR must not
 * downgrade a server). Returns 0 when out of memory. */
int infra_edns_update(struct infra_cache* infra,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* zone, size_t zonelen, int edns_version, time_t now);

/* Mark the server lame for the zone: dnsseclame (no DNSSEC data),
 * reclame (recursion-only server), else lame for qtype (A, or other
 * types). Returns 0 when out of memory. */
int infra_set_lame(struct infra_cache* infra,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* zone, size_t zonelen, time_t now, int dnsseclame,
	int reclame, uint16_t qtype);

/* For server selection: lameness for this qtype and the rtt to rank by
 * (unclamped: a backed-off server ranks by its rto; servers held off
 * for a probe get max rtt or max rtt - 1000). Returns 0 when the server
 * is not in the cache (or expired): the caller uses unknown_rtt. */
int infra_get_lame_rtt(struct infra_cache* infra,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* zone, size_t zonelen, uint16_t qtype, int* lame,
	int* dnsseclame, int* reclame, int* rtt, time_t now);

/* Has the server timed out TIMEOUT_COUNT_MAX times in a row for this
 * qtype class (A, AAAA, other), backing its rto off to
 * BACKED_OFF_MIN_RTO or more, and the entry not expired? Such a
 * server is not waited for by client queries; a background probe
 * (infra_claim_probe) asks it again. */
int infra_backed_off(struct infra_cache* infra,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* zone, size_t zonelen, uint16_t qtype, time_t now);
/* infra_backed_off (into *backed_off) and infra_get_lame_rtt (the
 * rest and the result) with one lookup, for server selection. */
int infra_select_info(struct infra_cache* infra,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* zone, size_t zonelen, uint16_t qtype, time_t now,
	int* backed_off, int* lame, int* dnsseclame, int* reclame, int* rtt);
/* Timeouts in a row for this qtype class (A, AAAA, other) since the
 * server last answered; 0 when it is not in the cache. */
int infra_timeouts(struct infra_cache* infra,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* zone, size_t zonelen, uint16_t qtype);
/* May a background probe go to a backed-off server now? 1 (and the
 * next one held off for the server's rto, rounded up to seconds, plus
 * one) when its probedelay has passed; 0 otherwise. */
int infra_claim_probe(struct infra_cache* infra,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* zone, size_t zonelen, time_t now);

/* Copy of the entry (expired ones too); 0 when absent. */
int infra_get_info(struct infra_cache* infra,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* zone, size_t zonelen, struct infra_info* out);

/* Remote control (dump_infra): call fn for every entry, expired ones
 * too, under its slab's lock (keep fn short: format text, no calls into
 * the cache). min_rtt and max_rtt are the configured bounds. */
typedef void (*infra_walk_func)(const struct sockaddr_storage* addr,
	socklen_t addrlen, const uint8_t* zone, size_t zonelen,
	const struct infra_info* d, int min_rtt, int max_rtt, void* arg);
void infra_walk(struct infra_cache* infra, infra_walk_func fn, void* arg);
/* flush_infra: remove every entry of this server address and port (any
 * zone), or all entries when addr is NULL. Returns how many. */
size_t infra_remove_addr(struct infra_cache* infra,
	const struct sockaddr_storage* addr, socklen_t addrlen);

#endif
