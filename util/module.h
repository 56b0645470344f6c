/* SPDX-License-Identifier: BSD-3-Clause */
/* util/module.h - compat: unbound-1.17: the one interface between the mesh and
 * the modules that resolve a query (module-config: "validator iterator").
 *
 * The mesh (services/mesh.c) keeps one module_qstate per question in
 * flight and runs the configured modules on it in a stack, top first:
 *
 *   new query -> module 0 (EVENT_NEW) -> WAIT_MODULE -> module 1 (NEW)
 *   ... module 1 FINISHED -> module 0 (EVENT_MODDONE) -> FINISHED -> the
 *   mesh stores qs->res in the message cache and answers the waiters.
 *
 * A module returns what it waits for; it never calls another module
 * and the mesh never looks inside a module's data (qs->minfo[id],
 * env->modinfo[id]). Everything a module hands up is in qs->res, a
 * neutral result (rcode, sections as ldns lists, security status).
 * Sub-queries (NS addresses, priming, DS and DNSKEY) are mesh states
 * too, started with mesh_attach_sub (services/mesh.h); when one is
 * done the mesh calls inform_super of the module that started it on
 * every waiting state, then runs that state again (EVENT_RESUME).
 * Upstream replies come as EVENT_REPLY to the module whose state sent
 * the query (callback mesh_outnet_reply, argument qs->ms).
 *
 * The design follows Unbound's module stack (util/module.h there) in
 * what it does; states are returned, not stored, and the result is a
 * struct of its own so the mesh needs no module header. */
#ifndef UTIL_MODULE_H
#define UTIL_MODULE_H
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <ldns/ldns.h>
#include "util/sec_status.h"

struct config_file;
struct iter_hints;
struct val_anchors;
struct auth_zones;
struct outside_network;
struct infra_cache;
struct msg_cache;
struct rrset_cache;
struct neg_cache;
struct ub_randstate;
struct mesh_area;
struct mesh_state;
struct outnet_reply;
struct module_qstate;
struct event_base;

/* An iterator's work for a question and the sub-queries it starts ends
 * by this time (then SERVFAIL). */
#define MODULE_MAX_QUERY_MS 20000

/* compat: unbound-1.17: At most this many modules in module-config, as
 * Unbound's MAX_MODULE. */
#define MODULE_MAX 16

enum module_event {
	MODULE_EVENT_NEW,     /* start on the question (again, after a
	                       * module above restarted it) */
	MODULE_EVENT_RESUME,  /* a sub-query it waited for ended
	                       * (inform_super was called first) */
	MODULE_EVENT_REPLY,   /* its upstream query ended: the reply */
	MODULE_EVENT_MODDONE  /* the module below finished: qs->res */
};

enum module_state {
	MODULE_WAIT_REPLY,    /* an upstream query is out */
	MODULE_WAIT_SUBQUERY, /* sub-queries are out */
	MODULE_WAIT_MODULE,   /* run the module below on the question */
	MODULE_FINISHED       /* qs->res is the result (SERVFAIL on error) */
};

/* qs->flags */
#define MODQ_CD        0x01  /* client set CD: answer unchecked data */
#define MODQ_PRIME     0x02  /* priming query (root or stub NS set) */
#define MODQ_PREFETCH  0x04  /* refresh: not answered from the caches */
#define MODQ_DETACHED  0x08  /* nobody waits: for the caches only */
#define MODQ_NOVAL     0x10  /* no validation: a module's own lookup
                              * (NS addresses, DS, DNSKEY) */
#define MODQ_REFETCH   0x20  /* set by a module above before it asks
                              * again: not from the caches this time */
#define MODQ_DO        0x40  /* a client waiting for it set DO (set as
                              * they join; not part of the mesh key):
                              * without it, a module that answers at
                              * EVENT_NEW, before anyone else can
                              * join, may leave out RRSIG/NSEC records */
#define MODQ_NO_CACHE  0x80  /* set by a module above (subnetcache with
                              * client-subnet-always-forward): the
                              * iterator neither answers from nor
                              * stores to the shared caches */
#define MODQ_BELOW_ONLY 0x100 /* compat: unbound-1.17: the iterator's
                              * own lookup (NS addresses, priming, its
                              * detached ones): Unbound starts those at
                              * the iterator, so the modules above pass
                              * it through (cachedb neither looks it up
                              * nor stores it); the validator's DS,
                              * DNSKEY and key tag queries go through
                              * the whole stack */

/* compat: unbound-1.17: The servers whose replies made an answer (newest
 * first), for the "from 127.0.0.5" of val-log-level and the EDE text, as
 * Unbound's reply_origin. */
#define MODULE_MAX_FROM 4
struct module_from {
	struct sockaddr_storage addr;
	socklen_t len;
};

/* The longest EDNS option (code, length, data) a module reads from a
 * client's query or adds to its reply (the ECS option is at most 4 +
 * 4 + 16 bytes; a longer one is kept as its first bytes and the length
 * it had, so a module can refuse it). */
#define MODULE_OPT_MAX 32

/* compat: unbound-1.17: The client whose query made the state, for a
 * module that answers per client (subnetcache, as Unbound's
 * mesh_info->reply_list and edns_opts_front_in/out). Only when the
 * stack asked for it (module_env.per_client); NULL otherwise. Owned by
 * the mesh. */
struct module_client {
	struct sockaddr_storage addr;
	socklen_t addrlen;
	/* the option of code module_env.client_opt_code in the query:
	 * opt_len bytes of data (at most MODULE_OPT_MAX kept), -1: none */
	int opt_len;
	uint8_t opt[MODULE_OPT_MAX];
	/* set by a module: an option (code, length, data) for the
	 * client's reply's OPT record; 0: none */
	size_t reply_opt_len;
	uint8_t reply_opt[MODULE_OPT_MAX];
};

/* compat: unbound-1.17: A module's say on the iterator's upstream
 * queries (Unbound's inplace callbacks inplace_cb_query and
 * edns_back_parsed): one module may set it (module_env.edns_hook). */
struct module_edns_hook {
	/* The option (code, length, data) to add to the query the state
	 * sends now to addr for zone (its wire name), into buf (cap
	 * bytes); its length, 0: none. */
	size_t (*query_opt)(const struct module_qstate* qs, int id,
		const struct sockaddr_storage* addr, socklen_t addrlen,
		const uint8_t* zone, uint8_t* buf, size_t cap);
	/* The reply (wire form) to that query; 1: it is specific to the
	 * option sent, not for the shared caches. */
	int (*reply)(const struct module_qstate* qs, int id, const uint8_t* pkt,
		size_t len);
};

/* A delegation the iterator is about to use: its zone, its NS names and
 * the addresses it knows for them (all wire / sockaddr, borrowed for the
 * call). */
#define MODULE_DELEG_MAX_NS 16
#define MODULE_DELEG_MAX_ADDR 64
struct module_deleg {
	const uint8_t* zone;
	const uint8_t* ns[MODULE_DELEG_MAX_NS];
	size_t num_ns;
	const struct sockaddr_storage* addr[MODULE_DELEG_MAX_ADDR];
	socklen_t addrlen[MODULE_DELEG_MAX_ADDR];
	size_t num_addr;
};

/* compat: unbound-1.14: A module's say on the delegations the iterator
 * uses (RPZ's NSDNAME and NSIP triggers, Unbound's
 * rpz_callback_from_iterator_module): one module may set it
 * (module_env.deleg_hook). Without one the iterator pays one NULL
 * test per target selection. */
struct module_deleg_hook {
	/* qs is about to ask a server of d. 1: the module decided qs's
	 * answer and put it in qs->res (res.policy set): the iterator
	 * finishes with it; 0: go on. */
	int (*check)(struct module_qstate* qs, int id,
		const struct module_deleg* d);
};

/* Longest reason text (val-log-level 2, EDE EXTRA-TEXT). */
#define MODULE_REASON_LEN 480

/* What a module hands up. The lists belong to the result (freed by
 * the mesh with the state); a module that replaces them frees the old
 * ones. */
struct module_result {
	int rcode;                 /* RCODE_*: SERVFAIL on failure */
	ldns_rr_list* answer;      /* CNAME/DNAME chain, then the answer */
	ldns_rr_list* authority;   /* SOA, NSEC, NSEC3 of a negative answer */
	ldns_rr_list* additional;  /* priming: the root servers' glue */
	enum sec_status security;  /* SEC_UNCHECKED without a validator */
	struct val_reason why_bogus; /* EDE and text when not secure */
	int no_store;              /* not for the message cache (made from
	                            * cached data, or a no-cache zone) */
	/* compat: unbound-1.14: made by a policy module in place of
	 * resolution (RPZ's NSDNAME and NSIP triggers, through
	 * module_env.deleg_hook): AA in the reply, not validated (insecure,
	 * as Unbound's rpz_applied), never stored */
	int policy;
	int drop;                  /* with policy: no reply at all */
	int synthesized;           /* made by a module from other data
	                            * (dns64's AAAA from A records): the
	                            * message cache serves it to clients,
	                            * the iterator's lookups skip it */
	/* the iterator: the servers whose replies are in the answer */
	struct module_from from[MODULE_MAX_FROM];
	int num_from;
	/* the validator (ede: yes): an RFC 8914 option for the reply's
	 * OPT record when has_ede; ede_text its EXTRA-TEXT ("": none) */
	int has_ede;
	uint16_t ede_code;
	char ede_text[MODULE_REASON_LEN];
};

/* One question in flight, owned by the mesh. */
struct module_qstate {
	uint8_t qname[LDNS_MAX_DOMAINLEN + 1];   /* lowercased */
	size_t qname_len;
	uint16_t qtype, qclass;
	unsigned flags;          /* MODQ_* */
	int depth;               /* 0: a client's; sub-queries +1 */
	/* servers the modules below must not ask (val-max-restart: their
	 * data was bogus); owned by the module that set it */
	const struct module_from* avoid;
	int num_avoid;
	struct module_env* env;
	struct mesh_state* ms;   /* for mesh_* calls and outnet callbacks */
	struct module_client* client;  /* module_env.per_client only */
	/* dns-error-reporting: the agent domain (wire, lowercased) of the
	 * Report-Channel option in the last upstream reply to this
	 * question, report_agent_len bytes (0: none). NULL until a reply
	 * names one (LDNS_MAX_DOMAINLEN bytes, malloc'd by the module that
	 * reads it, freed by the mesh with the state): with the option off
	 * a state carries 8 bytes for it, not 255 */
	uint8_t* report_agent;
	size_t report_agent_len;
	void* minfo[MODULE_MAX]; /* each module's own data; a module that
	                          * starts a new sub-query may fill its own
	                          * slot of the sub's before the sub runs */
	struct module_result res;
};

/* Counters the modules add to (statistics): written by the worker's
 * thread only, with plain increments; the remote control's snapshot
 * reads them with relaxed atomic loads (daemon/worker.c). Here so that
 * the worker needs no module's header. */
#define MODULE_RPZ_ACTIONS 10
struct module_counters {
	uint64_t rrset_bogus;   /* RRsets the validator found bogus
	                         * (num.rrset.bogus) */
	/* answers made from the aggressive NSEC cache
	 * (num.query.aggressive.NOERROR and .NXDOMAIN) */
	uint64_t aggressive_noerror, aggressive_nxdomain;
	/* queries the iterator did not send: over their zone's ratelimit
	 * (num.query.ratelimited) */
	uint64_t queries_ratelimited;
	/* the iterator's questions an auth-zone answered in place of the
	 * zone's servers (num.query.authzone.up) */
	uint64_t authzone_up;
	/* cachedb: answers taken from the backend (num.query.cachedb), and
	 * values refused there (malformed, or for another question) */
	uint64_t cachedb_answers, cachedb_refused;
	/* RPZ actions applied, by enum rpz_action (respip/rpz_zone.h):
	 * num.rpz.action.<action> */
	uint64_t rpz_action[MODULE_RPZ_ACTIONS];
	/* subnetcache: answers for a subnet from upstream (with a valid
	 * ECS option) and from its own cache (num.query.subnet is both,
	 * num.query.subnet_cache the second) */
	uint64_t subnet_answers, subnet_cache_answers;
	/* RFC 9567 error report queries started (num.dns_error_reports,
	 * services/mesh.c) */
	uint64_t dns_error_reports;
};

/* Per worker: what the modules share, and each module's own data. */
struct module_env {
	const struct config_file* cfg;      /* the current snapshot */
	const struct iter_hints* hints;     /* built from it */
	const struct val_anchors* anchors;  /* built from it; NULL: none */
	/* auth-zone: zones (services/authzone.h); NULL: none */
	const struct auth_zones* auth;
	struct outside_network* outnet;
	struct infra_cache* infra;          /* shared; may be NULL */
	struct msg_cache* msg_cache;        /* shared; may be NULL */
	struct rrset_cache* rrset_cache;    /* shared; may be NULL */
	struct neg_cache* neg_cache;        /* shared (aggressive NSEC,
	                                     * services/cache/neg_cache.h);
	                                     * may be NULL */
	struct ub_randstate* rnd;
	struct mesh_area* mesh;
	struct event_base* base;            /* the worker's event loop */
	int validating;         /* a module of the stack validates (its
	                         * block's .validates): results it did not
	                         * check are UNCHECKED data */
	struct module_counters counters;
	/* set by a module's init (subnetcache): every client query gets a
	 * state of its own (none joins another's), with qs->client filled,
	 * the option client_opt_code of the query copied there */
	int per_client;
	uint16_t client_opt_code;
	/* set by a module's init: its say on upstream queries; NULL: none */
	const struct module_edns_hook* edns_hook;
	int edns_hook_id;
	/* set by a module's init: its say on delegations; NULL: none */
	const struct module_deleg_hook* deleg_hook;
	int deleg_hook_id;
	int num_modules;
	const struct module_func_block* mods[MODULE_MAX];
	void* modinfo[MODULE_MAX];    /* each module's, per worker (init) */
	void* modglobal[MODULE_MAX];  /* each module's, per daemon (startup):
	                               * shared by all workers */
};

/* What flush asks of a module's global state (unbound-control). */
enum module_flush {
	MODULE_FLUSH_ZONE,   /* the zone and below (flush_zone) */
	MODULE_FLUSH_BOGUS,  /* what failed validation (flush_bogus,
	                      * flush_negative) */
	MODULE_FLUSH_ALL     /* everything (reload, cache sizes changed) */
};

/* What a module's global state holds, for statistics; the stack adds
 * up every module's. */
struct module_cache_info {
	size_t key_count;    /* entries of a key cache (key.cache.count) */
};

/* The client a reply goes to (filter_reply). */
struct lz_client_tags;
struct module_reply_client {
	const struct sockaddr_storage* addr;  /* for log lines */
	socklen_t addrlen;
	/* the client's view (access-control-view): its place among the
	 * config's view: clauses, in config order as cfg->views and struct
	 * views; -1: none. A number, not a pointer: a reply that waited
	 * for recursion may outlive the views it was matched against. */
	int view;
	/* its access-control-tag bits (services/tags.h): RPZ tags:,
	 * response-ip-tag: */
	uint64_t tags;
	/* its access-control-tag-action and -data (services/localzone.h;
	 * response-ip-tag), NULL: none; valid during the call */
	const struct lz_client_tags* tag_changes;
	/* 1: over TCP, TLS or HTTPS (RPZ's TCP-ONLY answers UDP with TC) */
	int is_stream;
	/* 1: the reply for the target of a CNAME this filter put in
	 * (MODULE_REPLY_CHASE/_ALIAS): compat: unbound-1.17: only the
	 * answer's addresses are looked at (response-ip, RPZ Response IP),
	 * not the question's triggers; the daemon bounds what it chases
	 * after that (one response-ip CNAME behind an alias) */
	int chased;
	/* 1: look only (a merged CNAME target's reply, chased too):
	 * compat: unbound-1.17: as respip_merge_cname's search,
	 * MODULE_REPLY_MATCHED when a rule of any action (inform,
	 * always_transparent too) meets the reply; no inform line; the
	 * reply is not sent after */
	int search_only;
};

/* What filter_reply did to a reply. */
enum module_reply_verdict {
	MODULE_REPLY_KEEP,     /* send it as it is */
	MODULE_REPLY_CHANGED,  /* rewritten in place, *len its new length */
	MODULE_REPLY_DROP,     /* send nothing */
	/* rewritten in place, *len its new length, its answer ending in a
	 * CNAME whose target the daemon resolves (cache or mesh) and
	 * appends (services/reply_chase.h): REPLY_CHASE_MERGE for CHASE
	 * (response-ip-data, RPZ Response IP), REPLY_CHASE_ALIAS for
	 * ALIAS (RPZ QNAME) */
	MODULE_REPLY_CHASE,
	MODULE_REPLY_ALIAS,
	/* search_only: a rule met the reply (left as it is) */
	MODULE_REPLY_MATCHED
};

/* One module: a line in services/modstack.c's known[] table. Only name,
 * init, deinit, operate, inform_super and clear are required. */
struct module_func_block {
	const char* name;   /* as written in module-config: */
	/* 1: the module checks DNSSEC: with it in the stack, results it did
	 * not check are unchecked data (env->validating; the message cache
	 * answers them to CD queries only) */
	int validates;
	/* Once per daemon, before the workers start: the state all workers
	 * share (the validator's key cache), made from the config of the
	 * start. The stack keeps it; env->modglobal[id] in every worker.
	 * NULL (logged) on failure. */
	void* (*startup)(const struct config_file* cfg);
	/* After the workers stopped: free what startup made. */
	void (*destartup)(void* global);
	/* A reload, first step, in the reload thread while the workers
	 * and the main thread go on with the old config: read and build
	 * what reload_global will take (the rpz: zone files), aside. The
	 * result goes to reload_global, or to reload_discard when the
	 * reload is refused; NULL is passed on as it is. Optional. */
	void* (*reload_prepare)(void* global, const struct config_file* cfg);
	/* A prepared result that no reload_global will take. */
	void (*reload_discard)(void* global, void* prepared);
	/* A reload, in the main thread, before the workers take the new
	 * config: renew the global state from cfg with what
	 * reload_prepare built (NULL: none, or no reload_prepare: read it
	 * here). 0 (logged): the old state serves on. */
	int (*reload_global)(void* global, const struct config_file* cfg,
		void* prepared);
	/* Bytes the global state uses (mem.mod.<name>). */
	size_t (*get_mem)(void* global);
	/* Add what the global state holds to info (statistics). */
	void (*cache_info)(void* global, struct module_cache_info* info);
	/* Drop cached data from the global state (zone: the wire name for
	 * MODULE_FLUSH_ZONE, else NULL): the number of entries removed, as
	 * unbound-control reports them ("key entries"). */
	size_t (*flush)(void* global, const uint8_t* zone,
		enum module_flush kind);
	/* At config time (start-up): 1 when the module must see a client's
	 * question before the message cache answers it (subnetcache with
	 * ECS); *opt set nonzero
	 * narrows that to queries that carry this EDNS option (subnetcache
	 * with client-subnet-always-forward). The stack folds it into one
	 * flag (struct modstack) for the hit path. NULL: never. */
	int (*needs_query_before_cache)(const struct config_file* cfg,
		uint16_t* opt);
	/* 1 when, under cfg, an expired answer of the message cache
	 * (serve-expired without a client timeout) waits for this module's
	 * own lookup first; the module calls mesh_stale_now when it has
	 * no fresh answer (cachedb: cachedb-check-when-serve-expired).
	 * Asked on the expired path only. NULL: never. */
	int (*checks_before_stale)(const struct config_file* cfg);
	/* A client's reply, from the message cache or the mesh, before it
	 * is sent (respip: response-ip rules apply to cached answers too).
	 * pkt holds *len bytes, room for cap. A module with this hook sets
	 * the stack's query_before_cache (so a stack without one pays
	 * nothing on the cache-hit path). NULL: the module has none. */
	enum module_reply_verdict (*filter_reply)(struct module_env* env,
		int id, const struct module_reply_client* client, uint8_t* pkt,
		size_t* len, size_t cap);
	/* A client's question before the message cache and the mesh (only
	 * with filter_reply: called when the stack's query_before_cache is
	 * set): pkt holds the daemon's empty NOERROR reply to it (*len
	 * bytes, its EDNS as the daemon's error replies; room for cap).
	 * KEEP: not answered, the query goes on; CHANGED: the answer,
	 * rewritten in place; DROP: no reply. Answered or dropped, nothing
	 * is resolved (RPZ's QNAME and client-ip triggers). NULL: none. */
	enum module_reply_verdict (*answer_query)(struct module_env* env,
		int id, const struct module_reply_client* client, uint8_t* pkt,
		size_t* len, size_t cap);
	/* Per worker, after the shared parts of env are set: fill
	 * env->modinfo[id]. 0 (logged) on failure. */
	int (*init)(struct module_env* env, int id);
	void (*deinit)(struct module_env* env, int id);
	/* A new config snapshot (reload, run-time change): env->cfg,
	 * hints and anchors are the new ones; drop what came from the old
	 * one. Queries in flight go on. */
	void (*reconfigure)(struct module_env* env, int id);
	enum module_state (*operate)(struct module_qstate* qs,
		enum module_event ev, int id, const struct outnet_reply* reply);
	/* sub (done, its res final) informs super, whose module id
	 * started it. */
	void (*inform_super)(struct module_qstate* sub, int id,
		struct module_qstate* super);
	/* Free qs->minfo[id] (the state ends, or is restarted). */
	void (*clear)(struct module_qstate* qs, int id);
	/* What the state waits for, for dump_requestlist ("iterator wait
	 * for 127.0.0.1"); may be NULL. */
	void (*describe)(const struct module_qstate* qs, int id, char* buf,
		size_t len);
};

/* Free the result's lists and zero it (rcode SERVFAIL). */
void module_result_clear(struct module_result* res);
/* Free the result's lists only (NULL after), the rest left as it is:
 * for a result whose memory goes next (zeroing its 1.5 KB there was
 * about 160 instructions a cache miss). */
void module_result_free_lists(struct module_result* res);
/* module_result_clear, but the servers (from, num_from) kept and the
 * EDE text only emptied: for the iterator's result, which names the
 * servers its answer came from (zeroing 1.5 KB and saving and restoring
 * the servers was about 170 instructions a cache miss). */
void module_result_clear_keep_from(struct module_result* res);
/* Fail: the result is SERVFAIL, nothing else. */
void module_result_servfail(struct module_result* res);

#endif
