/* SPDX-License-Identifier: BSD-3-Clause */
/* iterator/iterator.h - compat: unbound-1.17: the per-query iterative
 * resolution state machine, the last module of the stack
 * (iterator/iter_module.c is its module interface, util/module.h). One
 * iter_qstate is the module data of each mesh state it works on; the mesh runs
 * it, feeds it upstream replies and the results of its sub-queries (nameserver
 * addresses, root priming), and it hands its result up in the state's
 * module_result.
 *
 * Steps: find the closest starting point (stub/forward zone or the root;
 * the root is primed first: ". NS" at a hint address, the answer's NS
 * set and glue are kept per worker for their TTL), pick a server by the
 * infra cache's RTT, send the qname (minimised, one label below the
 * zone with type A, when qname-minimisation is on: a referral moves
 * down, another answer asks one label more; NXDOMAIN, another rcode
 * or 3 timeouts make it ask the full name, as Unbound's relaxed mode),
 * scrub the reply
 * (iterator/iter_scrub.h), then: answer -> done; CNAME/DNAME -> restart
 * at the target (chain kept); referral -> new delegation point from the
 * NS set and in-bailiwick glue, glueless names looked up with
 * sub-queries through the mesh; NXDOMAIN / NODATA -> done with the SOA;
 * timeout, error, SERVFAIL/REFUSED, lame or bad reply -> next server
 * (3 tries per address); when the servers of a delegation from the
 * cache all failed, once the query starts again at the zone's parent,
 * whose referral brings the parent-side NS set and glue (Unbound's
 * last resort), the addresses that failed left out; when a stub-first/forward-first zone's servers
 * all fail, on from the root. The RRset cache is asked first: a cached
 * answer or CNAME, else the closest cached delegation below the hints.
 * DS queries start from the parent side of the zone cut.
 *
 * Options: use-caps-for-id (iterator/iter_caps.h: 0x20 and its
 * fallback), harden-glue (iterator/iter_scrub.h), target-fetch-policy
 * (while a known server is asked, that many NS names without address
 * are looked up too, per dependency depth; none from the last depth
 * on), stub-prime (the stub's NS set asked of its addresses once, then
 * from the RRset cache), stub-no-cache / forward-no-cache (no cache
 * lookups or stores for names under such a zone), harden-referral-path
 * (iterator/iter_harden.h), harden-below-nxdomain (a name below a
 * DNSSEC-secure NXDOMAIN in the message cache is NXDOMAIN at once). A
 * cached delegation whose servers all need glue it lacks is passed
 * over for the one above (Unbound's iter_dp_is_useless). ANY is
 * answered from the RRsets cached at the name when there are some.
 *
 * Work limits (CAMP/NXNS): per client query a budget of upstream
 * queries and NS-name lookups shared by all its sub-queries, CNAME
 * restarts, referrals, NS names per delegation, lookups per delegation,
 * NXDOMAIN lookups per delegation, sub-query depth, and a time bound
 * (the last query's timeout is cut to it); a server the infra cache has
 * backed off to its top timeout (infra-cache-max-rtt) is not used; one
 * that timed out 3 times in a row for the qtype gets one short try
 * (unknown-server-time-limit) per query, not its backed-off timeout:
 * when no server is left the answer is SERVFAIL then, and a detached
 * probe (the same question, at most one per server per its rto) waits
 * the back-off out;
 * cycles of sub-queries are refused by the mesh. */
#ifndef ITERATOR_ITERATOR_H
#define ITERATOR_ITERATOR_H
#include "iterator/iter_noncut.h"
#include "iterator/iter_parentside.h"
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <ldns/ldns.h>
#include "util/dname.h"
#include "util/module.h"
#include "util/spare_list.h"

struct config_file;
struct iter_hints;
struct outside_network;
struct infra_cache;
struct msg_cache;
struct rrset_cache;
struct ub_randstate;
struct mesh_area;
struct mesh_state;
struct delegpt;
struct delegpt_addr;
struct outnet_query;
struct query_info;
struct event_base;
struct port_pool;
struct outnet_reply;
struct module_qstate;

#define ITER_MAX_RESTARTS 11      /* CNAME/DNAME restarts per query,
                                   * without a config (else
                                   * max-query-restarts) */
#define ITER_MAX_REFERRALS 30     /* referrals followed per query state */
#define ITER_MAX_SENT 200         /* upstream queries per client query,
                                   * without a config (else
                                   * max-global-quota) */
#define ITER_MAX_SENT_STATE 32    /* upstream queries per query state
                                   * between referrals and restarts,
                                   * without a config (else
                                   * max-sent-count) */
#define ITER_MAX_TARGETS 24       /* NS-name lookups per client query */
#define ITER_MAX_TARGETS_DP 6     /* NS-name lookups per delegation */
#define ITER_TARGETS_AT_ONCE 3    /* NS names looked up together when
                                   * no server is left */
#define ITER_MAX_NX_TARGETS 3     /* NXDOMAIN NS names per delegation */
#define ITER_MAX_DEPTH 5          /* sub-query nesting */
#define ITER_MAX_ATTEMPTS 5       /* sends to one address per state, when
                                   * outbound-msg-retry is not set */
#define ITER_MAX_STREAM_ATTEMPTS 3 /* the same over TCP/TLS upstreams */
#define ITER_RTT_BAND 400         /* ms: servers this close are equal */
#define ITER_PRIME_MAX_TTL 86400  /* primed root kept at most (s) */
#define ITER_MAX_QMIN_STEPS 10    /* then the full name is asked */
#define ITER_QMIN_MAX_TIMEOUTS 3  /* timeouts of minimised questions,
                                   * then the full name (relaxed) */
#define ITER_MAX_TIME_MS MODULE_MAX_QUERY_MS    /* a client query (and its sub-queries)
                                   * ends by then, SERVFAIL if need be */

/* Per worker: what the iterator works with (its module data,
 * module_env.modinfo[id]; the shared parts are the module env's). */
struct rate_domains;

struct iter_env {
	int id;                        /* its place in the module stack */
	const struct config_file* cfg;
	const struct iter_hints* hints;
	/* auth-zone: zones; NULL: none (services/authzone.h) */
	const struct auth_zones* auth;
	/* the reply an auth zone gives, made here (64 KiB, malloced at
	 * the first use) */
	uint8_t* auth_buf;
	struct outside_network* outnet;
	struct infra_cache* infra;     /* may be NULL */
	struct msg_cache* msg_cache;   /* may be NULL: nothing stored */
	struct rrset_cache* rrset_cache; /* may be NULL: no RRset cache */
	struct ub_randstate* rnd;
	struct mesh_area* mesh;
	int do_ip4, do_ip6;
	int validating;                /* a validator runs above (prefetch-key) */
	int no_edns_do;                /* disable-edns-do in effect */
	/* edns-client-string: (per worker); NULL: none */
	struct edns_strings* edns_strings;
	int unknown_rtt;               /* ms, for servers the infra cache
	                                * does not know */
	int max_attempts;              /* outbound-msg-retry: sends to one
	                                * address per query state */
	/* ratelimit-for-domain, -below-domain of cfg (per worker, built
	 * at init and reconfigure); NULL: none, or out of memory */
	struct rate_domains* rate_domains;
	/* the primed root NS set (per worker), valid until primed_until */
	struct delegpt* primed_root;
	time_t primed_until;
	/* names qname minimisation found no zone cut (per worker) */
	struct iter_noncut noncut;
	/* parent-side addresses the last resort needed (per worker) */
	struct iter_parentside parentside;
	/* harden-unverified-glue's glue set aside, by NS name (per
	 * worker) */
	struct iter_parentside unverified_glue;
	/* freed query states and budgets, for the next ones
	 * (iter_module.c) */
	struct spare_list iq_spare, budget_spare;
	struct {
		uint64_t sent, replies, timeouts, errors, referrals,
			restarts, lame, scrub_removed, bad_replies,
			target_lookups, prime, cache_answers,
			cache_delegations, stored_rrsets, qmin_sent,
			msg_cache_subs, caps_fallbacks;
	} stats;
};

/* Free what the env holds itself (the primed root); the rest belongs
 * to the caller. */
void iter_env_clear(struct iter_env* env);

/* Shared by a client query and the sub-queries it started. */
struct iter_budget {
	int refs;
	int sent;      /* upstream queries */
	int targets;   /* NS-name lookups */
	int64_t deadline_ms;  /* monotonic: no query is sent after this */
};

enum iter_state_id {
	ITER_INIT = 0,     /* find the starting delegation point */
	ITER_PRIME_WAIT,   /* waiting for the root priming sub-query */
	ITER_TARGETS,      /* pick a server and send, or look up targets */
	ITER_DONE
};

struct reply_tail;

struct iter_qstate {
	struct mesh_state* ms;
	const struct module_qstate* qs;  /* its question (avoid list) */
	/* the question as asked (lowercased) */
	uint8_t qname[LDNS_MAX_DOMAINLEN + 1];
	size_t qname_len;
	uint16_t qtype, qclass;
	int is_priming;     /* ". NS" to the root hints */
	int depth;          /* 0: client query; sub-queries +1 */
	int refresh;        /* prefetch: the answer is not taken from the
	                     * caches (delegations still are) */
	/* the name being resolved now (after CNAME/DNAME restarts) */
	uint8_t sname[LDNS_MAX_DOMAINLEN + 1];
	size_t snamelen;
	enum iter_state_id state;
	struct delegpt* dp;
	int dp_forward;     /* dp is a forward-zone: RD=1, no referrals */
	int dp_targets;     /* lookups started for this dp */
	int dp_nx;          /* lookups for this dp that gave NXDOMAIN */
	int prime_failed;
	int dp_first;       /* dp is a stub/forward with stub-first /
	                     * forward-first: on failure, go on from the root */
	int skip_hints;     /* such a stub/forward failed: use the root */
	/* stub-prime: the priming sub-query was started / is awaited, and
	 * the NS set (with addresses) it found */
	int stub_prime_tried, stub_prime_wait;
	struct delegpt* stub_primed;
	int no_cache;       /* under a stub-no-cache / forward-no-cache
	                     * zone: no cache lookups, nothing stored */
	/* compat: unbound-1.17: an answer made from cached data (ANY from the
	 * RRset cache, below a secure NXDOMAIN): not stored in the message
	 * cache (Unbound makes it anew for every ask) */
	int cache_made;
	struct outnet_query* outq;      /* the query in flight, if any */
	int rate_counted;   /* that query was counted against its zone's
	                     * ratelimit (a referral takes it back) */
	/* while a reply is processed: its authority NS records and glue
	 * left in wire form (iter_process_wire), stored from there */
	const struct reply_tail* tail;
	struct delegpt_addr* sent_to;
	int sel_rtt;                    /* rtt (ms) of the server picked */
	int sel_brief;                  /* it is backed off: a short try */
	/* compat: unbound-1.17: QNAME minimisation (RFC 9156, relaxed as
	 * Unbound's default): the question sent is ask/asktype, a suffix of
	 * sname one label below the delegation point, with type A, until the
	 * full name */
	int qmin;                       /* still minimising */
	int qmin_labels;                /* labels of the name asked next */
	int qmin_steps;                 /* minimised queries so far */
	int qmin_timeouts;              /* of minimised queries */
	const uint8_t* ask;             /* points into sname */
	size_t asklen;
	uint16_t asktype;
	int outstanding_subs;           /* sub-queries not answered yet */
	int restarts, referrals;
	/* compat: unbound-1.17: sends since the last referral or restart
	 * (max-sent-count) */
	int sent_count;
	int backed_off;     /* a server was passed over as backed off */
	int dp_cached;      /* dp came from the RRset cache (child side) */
	/* compat: unbound-1.17: DNSSEC-lame detection (iter_dnsseclame.h):
	 * the referral to dp carried its DS; the server picked was
	 * DNSSEC-lame, as every one left (its reply is taken as it is) */
	int dp_ds;
	int dnssec_lame_query;
	/* compat: unbound-1.17: the auth zone failed and falls back to its
	 * servers (fallback-enabled): it is not asked again by this state */
	int auth_avoid;
	/* compat: unbound-1.17: the last resort (Unbound's "try to grab parent
	 * NS"): the cached delegation whose servers all failed, kept so that
	 * its addresses are not asked again when the parent's referral lists
	 * them */
	struct delegpt* parent_retry;
	int parentside_used;   /* kept parent-side addresses were added */
	int unverified_used;   /* harden-unverified-glue's glue was added */
	int probe;          /* a background probe of backed-off servers:
	                     * they are asked anyway */
	struct iter_budget* budget;
	/* use-caps-for-id fallback (iterator/iter_caps.h): the reference
	 * reply, answers compared so far, how many are wanted, and whether
	 * one agreed */
	int caps_fallback;
	int caps_server;
	int caps_want;
	int caps_confirmed;
	uint8_t* caps_pkt;
	size_t caps_len;
	/* a module's deleg_hook decided the answer (in qs->res) */
	int policy_done;
	/* the result, once ITER_DONE */
	int rcode;
	ldns_rr_list* answer;      /* CNAME/DNAME chain, then the answer */
	ldns_rr_list* authority;   /* SOA of a negative answer */
	ldns_rr_list* additional;  /* priming: the root servers' glue */
};

/* Fill a new state for (qname, qtype, qclass); budget NULL makes a new
 * one (a client query), else it is shared (a sub-query). Returns 0 on
 * out of memory. */
int iter_qstate_init(struct iter_qstate* iq, struct mesh_state* ms,
	const uint8_t* qname, uint16_t qtype, uint16_t qclass,
	int is_priming, int depth, struct iter_budget* budget);
/* A new budget (no references yet): its time runs from now. */
void iter_budget_init(struct iter_budget* b);
/* iter_qstate_init for a name known to be valid and lowercased (a
 * module_qstate's), of qname_len bytes: neither is checked again. */
int iter_qstate_init_lower(struct iter_qstate* iq, struct mesh_state* ms,
	const uint8_t* qname, size_t qname_len, uint16_t qtype,
	uint16_t qclass, int is_priming, int depth,
	struct iter_budget* budget);
/* Start a new state at dp (copied; NULL: find the start as usual)
 * instead of the cache and hints. Returns 0 on out of memory. */
int iter_qstate_preset_dp(struct iter_qstate* iq, const struct delegpt* dp);
/* Free what the state holds; cancels its upstream query. */
void iter_qstate_clear(struct iter_qstate* iq);

/* Run the state machine until it waits (for a reply or sub-queries) or
 * is done (iq->state == ITER_DONE: then the mesh finishes the state). */
void iter_run(struct iter_env* env, struct iter_qstate* iq);
/* The state's upstream query ended (called by the mesh, which runs the
 * state after). */
void iter_handle_reply(struct iter_env* env, struct iter_qstate* iq,
	const struct outnet_reply* r);
/* A sub-query of iq ended (sub->res is its result): take what it
 * found (addresses for an NS name, a stub's NS set). The mesh runs iq
 * afterwards. */
void iter_inform_super(struct iter_env* env, struct iter_qstate* iq,
	const struct module_qstate* sub);
/* iq waits for (name, qtype, qclass), a priming query when
 * is_priming: a mesh sub-query, sharing iq's work budget when it is
 * new. 1 when attached (a new state or one in flight). */
int iter_attach_sub(struct iter_env* env, struct iter_qstate* iq,
	const uint8_t* name, uint16_t qtype, uint16_t qclass, int is_priming);
/* A detached query for the caches (harden-referral-path) at depth,
 * asked of dp first when not NULL. 1 when started. */
int iter_new_detached(struct iter_env* env, const uint8_t* name,
	uint16_t qtype, uint16_t qclass, int depth, const struct delegpt* dp);
/* A detached copy of iq's question at iq's delegation point that asks
 * its backed-off servers (the probe). 1 when started. */
int iter_new_probe(struct iter_env* env, const struct iter_qstate* iq);
/* A finished priming state: keep its NS set and glue as the worker's
 * primed root. */
void iter_store_prime(struct iter_env* env, const struct iter_qstate* iq);

#endif
