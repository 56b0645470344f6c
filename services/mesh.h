/* SPDX-License-Identifier: BSD-3-Clause */
/* services/mesh.h - compat: unbound-1.17: per-worker table of the queries
 * being resolved.
 *
 * A mesh state is one resolution of one question, keyed by (qname
 * lowercased, qtype, qclass, CD) (priming states and modules' own
 * lookups have key bits of their own). A client question that matches a
 * state in flight attaches to it as one more waiter: identical
 * questions cause one resolution and one set of upstream queries. The
 * mesh runs the configured modules on each state through the module
 * interface (util/module.h) and nothing else: it never looks inside a
 * module. Modules' sub-queries (nameserver addresses, root priming, DS
 * and DNSKEY) are mesh states too, linked to the states that wait for
 * them; a link that would close a cycle is refused.
 * Client states are bounded by num-queries-per-thread, all states by 4
 * times that. As Unbound: the first half of the client slots hold their
 * query until it ends; a query in the other half may be replaced by a
 * new one when the mesh is full and it has run longer than
 * jostle-timeout (its clients get no reply). Single-threaded: one mesh
 * per worker, on its event base. */
#ifndef SERVICES_MESH_H
#define SERVICES_MESH_H
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <sys/socket.h>

struct module_env;
struct module_qstate;
struct mesh_area;
struct mesh_state;
struct query_info;
struct outnet_reply;

/* The reply for one waiter: reply is the encoded packet for its query
 * (its ID, qname case, EDNS), valid during the call; rcode is the DNS
 * rcode in it; security is the state's result's (enum sec_status,
 * SEC_UNCHECKED without a validator; BOGUS with rcode SERVFAIL: the
 * answer was withheld as bogus), for the statistics. */
typedef void (*mesh_cb_t)(void* arg, const uint8_t* reply, size_t len,
	int rcode, int security);
/* rcode of the one call a waiter gets when its query was jostled out
 * (reply NULL, len 0, security 0): drop the query, no reply is sent. */
#define MESH_DROPPED (-1)

struct mesh_stats {
	uint64_t client_queries;  /* mesh_new_client calls accepted */
	uint64_t joined;          /* of those, attached to a state in flight */
	uint64_t refused_full;    /* refused: num-queries-per-thread */
	uint64_t jostled;         /* client states replaced (jostle-timeout) */
	uint64_t prefetch;        /* background refreshes started */
	uint64_t prefetch_full;   /* refreshes not started: mesh full */
	uint64_t states;          /* states created (client + sub) */
	uint64_t sub_states;      /* of those, sub-queries */
	uint64_t sub_joined;      /* sub-queries attached to existing */
	uint64_t cycles;          /* sub-queries refused as a cycle */
	uint64_t replies;         /* waiter callbacks made */
	uint64_t cached;          /* replies stored in the message cache */
	uint64_t detached;        /* detached checks started */
	uint64_t detached_full;   /* checks not started: too many */
};

/* max_queries: num-queries-per-thread. NULL on OOM. env->mesh is set;
 * env's modules (env->mods) run the states. */
struct mesh_area* mesh_create(struct module_env* env, int max_queries);
/* compat: unbound-1.26: reload: num-queries-per-thread (its fast_reload
 * sets the mesh's bounds, fr_worker_pickup_mesh; its reload makes a new
 * mesh); the states over a smaller bound finish as before. */
void mesh_set_max_queries(struct mesh_area* m, int max_queries);
/* Free every state, without callbacks; cancels upstream queries (so
 * delete the mesh before the outside network). */
void mesh_delete(struct mesh_area* m);

/* What mesh_new_client did; cb is called only after MESH_NEW_ADDED. */
enum mesh_new_outcome {
	MESH_NEW_ADDED = 0,  /* cb will be called exactly once (maybe before
	                      * mesh_new_client returns, when the answer is
	                      * known at once) */
	/* compat: unbound-1.17: num-queries-per-thread reached and nothing
	 * could be jostled out (Unbound drops it) */
	MESH_NEW_FULL,
	MESH_NEW_NO_MEMORY   /* out of memory, or a question that cannot
	                      * be keyed (answer SERVFAIL) */
};
/* A client question (qi as query_parse filled it; qi->pkt need not stay
 * valid). limit: the largest reply it takes; edns_size: advertised in
 * the reply's OPT. */
enum mesh_new_outcome mesh_new_client(struct mesh_area* m,
	const struct query_info* qi, size_t limit, uint16_t edns_size,
	mesh_cb_t cb, void* arg);
/* The same, with the client's address (addr may be NULL): for a stack
 * that answers per client (module_env.per_client), the state is the
 * client's own and qs->client holds the address and its option
 * (qi->pkt must be valid for that). */
enum mesh_new_outcome mesh_new_client_from(struct mesh_area* m,
	const struct query_info* qi, const struct sockaddr_storage* addr,
	socklen_t addrlen, size_t limit, uint16_t edns_size, mesh_cb_t cb,
	void* arg);

/* Refresh qi's message cache entry in the background (prefetch, and the
 * refresh after serving expired data): a state without waiters, with
 * MODQ_PREFETCH (the iterator does not take the answer from the
 * caches); its answer replaces the entry. Nothing happens (0) when the question is in
 * flight already (one refresh at a time) or the mesh is full. */
int mesh_new_prefetch(struct mesh_area* m, const struct query_info* qi);

/* At most this many detached states at a time per mesh: the bound on
 * the extra work of harden-referral-path. */
#define MESH_MAX_DETACHED 16

/* compat: unbound-1.17: A detached query (Unbound's detached sub-request; here
 * for harden-referral-path): resolved for the caches only, nobody waits for it
 * (MODQ_DETACHED, MODQ_NOVAL). depth: its dependency depth. Returns the new
 * state, queued to run at the mesh's next turn (a module calls this while the
 * mesh runs it), so the caller may fill its own minfo slot first. NULL, not
 * started, when the question is in flight already, MESH_MAX_DETACHED are in
 * flight, the mesh is full or out of memory. */
struct module_qstate* mesh_new_detached(struct mesh_area* m,
	const uint8_t* qname, uint16_t qtype, uint16_t qclass, int depth);
/* Run what is queued (for callers outside a module's step). */
void mesh_run_queued(struct mesh_area* m);

/* Forget every waiter whose callback argument is arg (a TCP connection
 * that closed): its callback is never called. A state left without
 * waiters and without states waiting for it is stopped and freed.
 * Not from inside a mesh callback for that arg. Returns how many
 * waiters were removed. O(states). */
int mesh_detach_client(struct mesh_area* m, void* arg);
/* The same, but states left without waiters go on resolving (their
 * answer is still cached): serve-expired-client-timeout. */
int mesh_detach_waiter(struct mesh_area* m, void* arg);

/* compat: unbound-1.24: cachedb-check-when-serve-expired: a waiter
 * that was given an expired answer to fall back on may take it as soon
 * as a module found nothing fresh of its own. The mesh calls hook(arg)
 * for each waiter of ms whose callback is cb (the hook only notes it:
 * no mesh call from it); set once per mesh by its owner. */
typedef void (*mesh_stale_hook_t)(void* arg);
void mesh_set_stale_hook(struct mesh_area* m, mesh_cb_t cb,
	mesh_stale_hook_t hook);
/* From a module's step: ms's waiters may take their expired answer. */
void mesh_stale_now(struct mesh_state* ms);

/* Sub-query dependency chains end at this depth. */
#define MESH_MAX_DEPTH 8

enum mesh_attach {
	MESH_ATTACH_NEW,      /* a new state: queued, runs after the
	                       * caller's step; the caller may fill its
	                       * own minfo slot of it first */
	MESH_ATTACH_JOINED,   /* the question was in flight: now waited on */
	MESH_ATTACH_ALREADY,  /* super waits for it already */
	MESH_ATTACH_CYCLE,    /* it waits (indirectly) for super */
	MESH_ATTACH_LIMIT,    /* depth or state bound, or a bad name */
	MESH_ATTACH_NOMEM
};

/* For a module: super waits for the state resolving (qname, qtype,
 * qclass) with MODQ_* flags (PRIME, NOVAL; CD), new or already in
 * flight. *sub is that state for NEW and JOINED, else NULL. When it is
 * done, the mesh calls inform_super of super's running module. */
enum mesh_attach mesh_attach_sub(struct mesh_area* m,
	struct mesh_state* super, const uint8_t* qname, uint16_t qtype,
	uint16_t qclass, unsigned flags, struct module_qstate** sub);
/* Run the state again (MODULE_EVENT_RESUME) once the event loop has
 * had a turn: a module that spent its share of work on one query
 * (validation's KeyTrap bound) lets other queries go first. */
void mesh_resume_later(struct mesh_state* s);

/* The outnet callback for a state's upstream query (arg: qs->ms): the
 * running module gets MODULE_EVENT_REPLY. */
void mesh_outnet_reply(void* arg, const struct outnet_reply* r);

/* States now (client + sub), and client waiters now. */
size_t mesh_num_states(const struct mesh_area* m);
size_t mesh_num_waiters(const struct mesh_area* m);
const struct mesh_stats* mesh_get_stats(const struct mesh_area* m);

/* dump_requestlist: one state as the remote control shows it. */
struct mesh_state_view {
	const uint8_t* qname;     /* lowercased wire name */
	uint16_t qtype, qclass;
	int has_clients;          /* 0: a sub-query only */
	int64_t age_ms;           /* since it got a client, when has_clients */
	char status[1024];        /* "iterator wait for 127.0.0.1", ... */
};
typedef void (*mesh_walk_func)(const struct mesh_state_view* v, void* arg);
/* Call fn for every state in the table (in the mesh's thread). */
void mesh_walk_states(struct mesh_area* m, mesh_walk_func fn, void* arg);

#endif
