/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/delegpt.h - a delegation point: a zone name, the names of
 * its nameservers and the addresses known for them, plus per-query
 * bookkeeping (which addresses were tried, which names were looked up).
 * One delegation point belongs to one query state (a copy is made from
 * the hints or a referral); it is never shared between threads.
 * Names are uncompressed wire format; compares are case-insensitive. */
#ifndef ITERATOR_DELEGPT_H
#define ITERATOR_DELEGPT_H
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <ldns/ldns.h>

/* At most this many NS names are taken from one referral or hint set
 * (the rest are ignored): bounds the work one answer can cause. */
#define DELEGPT_MAX_NS 16
/* At most this many addresses per delegation point. */
#define DELEGPT_MAX_ADDR 64

struct delegpt_ns {
	struct delegpt_ns* next;
	uint8_t name[LDNS_MAX_DOMAINLEN + 1];
	size_t namelen;
	int got4, got6;     /* A (AAAA) known: from glue or a lookup */
	int lookup4, lookup6; /* A (AAAA) lookup started (or not possible) */
	int failed;         /* a lookup failed (NXDOMAIN, SERVFAIL, cycle) */
};

struct delegpt_addr {
	struct delegpt_addr* next;
	struct sockaddr_storage addr;   /* with port */
	socklen_t addrlen;
	int attempts;       /* queries sent to it by this query state */
	int dead;           /* error, lame or too many timeouts: skip */
	int dnsseclame;     /* its reply lacked the signatures the zone
	                     * has (iter_dnsseclame.h): asked only when
	                     * every server left is such */
	char* tls_name;     /* forward-addr/stub-addr ADDR#name: the name
	                     * its TLS certificate must match; NULL: none */
};

struct delegpt {
	uint8_t name[LDNS_MAX_DOMAINLEN + 1];   /* the zone (lowercased) */
	size_t namelen;
	struct delegpt_ns* nslist;
	struct delegpt_addr* addrs;
	size_t num_ns, num_addr;
	uint32_t ttl;       /* least TTL of the NS set */
	int auth;           /* an auth-zone for-upstream answers for it
	                     * (no servers are asked) */
	int tls;            /* queries go over TLS (forward-tls-upstream,
	                     * stub-tls-upstream); kept by delegpt_copy */
	int tcp;            /* queries go over TCP (forward-tcp-upstream,
	                     * stub-tcp-upstream); kept by delegpt_copy */
	/* the storage of the first address added (the head of addrs, as
	 * addresses are only ever appended): a delegation point copied for
	 * a query mostly has one, and this saves its malloc and free */
	struct delegpt_addr first_addr;
};

/* A new, empty delegation point for zone (wire). NULL when out of
 * memory or a bad name. */
struct delegpt* delegpt_create(const uint8_t* zone);
/* A deep copy, bookkeeping (attempts, lookups) reset. NULL on OOM. */
struct delegpt* delegpt_copy(const struct delegpt* dp);
void delegpt_delete(struct delegpt* dp);

/* Add an NS name (duplicates ignored). Returns 1 when added or already
 * there, 0 when the DELEGPT_MAX_NS cap is reached, -1 on bad name/OOM. */
int delegpt_add_ns(struct delegpt* dp, const uint8_t* name);
struct delegpt_ns* delegpt_find_ns(const struct delegpt* dp,
	const uint8_t* name);
/* Add an address (duplicates ignored). Returns 1 when added or already
 * there, 0 when the cap is reached or out of memory. */
int delegpt_add_addr(struct delegpt* dp, const struct sockaddr_storage* a,
	socklen_t len);
/* delegpt_add_addr, and name (NULL: none) as the address's TLS
 * authentication name. Same results. */
int delegpt_add_addr_tls(struct delegpt* dp, const struct sockaddr_storage* a,
	socklen_t len, const char* name);
/* Add the address of an A or AAAA record (port 53, or port when not 0)
 * for the NS name that is its owner; marks that name got4/got6. Records
 * whose owner is not one of the NS names are ignored (returns 0). */
int delegpt_add_rr_addr(struct delegpt* dp, const ldns_rr* rr, int port);
/* The same for the name ns, whatever the owner (the end of a CNAME chain
 * that an NS name led to). */
int delegpt_add_rr_addr_ns(struct delegpt* dp, struct delegpt_ns* ns,
	const ldns_rr* rr, int port);

/* The address of an A or AAAA record (port 53, or port when not 0) in
 * ss and len: 4 or 6 for its family, 0 for another type or bad rdata. */
int delegpt_rr_sockaddr(const ldns_rr* rr, int port,
	struct sockaddr_storage* ss, socklen_t* len);

/* Build a delegation point from the NS records with owner zone in the
 * list ns (others ignored) and the A/AAAA glue in addl whose owner is
 * one of those NS names and under bailiwick (the zone of the server
 * that sent them; NULL: no check). NULL on OOM or when no NS. */
struct delegpt* delegpt_from_rrs(const uint8_t* zone, const ldns_rr_list* ns,
	const ldns_rr_list* addl, const uint8_t* bailiwick, int port);

/* NS names with no address and lookups still to start (for family
 * do4/do6). */
size_t delegpt_count_missing(const struct delegpt* dp, int do4, int do6);
/* Addresses not dead and with attempts below max. */
size_t delegpt_count_usable(const struct delegpt* dp, int max_attempts);

/* Log the delegation point at level (zone, names, addresses). */
void delegpt_log(int level, const struct delegpt* dp);

/* Helpers on wire names from ldns rdfs: copy an ldns dname rdf into buf
 * (256 bytes) as a lowercased wire name; returns its length, 0 if bad. */
size_t delegpt_rdf_to_wire(const ldns_rdf* rdf, uint8_t* buf);
/* The wire name in an ldns dname rdf itself (not copied, its case as
 * received), for case-insensitive compares; NULL if bad. */
const uint8_t* delegpt_rdf_name(const ldns_rdf* rdf);

#endif
