/* SPDX-License-Identifier: BSD-3-Clause */
/* respip/rpz.h - compat: unbound-1.17: the rpz: clauses, in config order,
 * applied to a client's reply on the wire by the respip module (as its
 * response-ip rules are: from the message cache and the mesh alike, so
 * the cache keeps the real answer). Per zone in order: the client-ip
 * and QNAME triggers decide the whole answer; when none of any zone
 * matched, the response-IP triggers (the answer's addresses) do.
 *
 * The policy is one immutable snapshot: made from the config (and the
 * zones' records) at start, reload, rpz_enable/rpz_disable, published
 * whole; the query path reads it with no lock. */
#ifndef RESPIP_RPZ_H
#define RESPIP_RPZ_H
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include "respip/rpz_zone.h"
#include "util/dname.h"

struct config_file;
struct config_auth;

/* One rpz: clause. */
struct rpz_policy_zone {
	char* name;                  /* the name: line, as written */
	struct rpz_zone* zone;       /* its triggers */
	enum rpz_action override;    /* RPZ_NO_OVERRIDE: none */
	uint8_t cname[LDNS_MAX_DOMAINLEN + 1];  /* rpz-cname-override */
	size_t cname_len;
	int log;                     /* rpz-log */
	char* log_name;              /* rpz-log-name, NULL: none */
	int signal_nxdomain_ra;
	int disabled;                /* rpz_disable */
	/* compat: unbound-1.17: tags: the zone applies only to clients
	 * with one of these access-control tags; 0: to every client */
	uint64_t tags;
};

struct rpz_policy {
	/* each one's zone borrowed from the shared snapshot
	 * (respip/rpz_store.h): not deleted with the policy */
	struct rpz_policy_zone* zones;
	size_t num;
};

/* The client a reply goes to. */
struct rpz_client {
	const struct sockaddr_storage* addr;
	socklen_t addrlen;
	int is_tcp;
	uint64_t tags;   /* its access-control-tag bits */
	/* 1: the reply to a chased CNAME's target: compat: unbound-1.17:
	 * its QNAME and client-ip triggers are not looked at */
	int chased;
	/* 1: a search only (module_reply_client.search_only): compat:
	 * unbound-1.17: respip_merge_cname's look at a merged target logs
	 * no rpz-log line */
	int quiet;
};

/* Does zone z apply to a client with these tags? */
static inline int rpz_zone_applies(const struct rpz_policy_zone* z,
	uint64_t client_tags)
{
	return z->tags == 0 || (z->tags & client_tags) != 0;
}

enum rpz_outcome {
	RPZ_OUT_NONE,     /* no trigger: the response-ip rules next */
	RPZ_OUT_PASS,     /* passthru (or disabled): the reply as it is */
	RPZ_OUT_CHANGED,  /* the new reply is in out */
	RPZ_OUT_DROPPED,  /* no reply */
	/* the new reply is in out and ends in a CNAME whose target is to
	 * be resolved: as Unbound's respip merge (a Response IP trigger),
	 * or as a local alias (a QNAME trigger) */
	RPZ_OUT_CHASE,
	RPZ_OUT_ALIAS
};

/* The rpz: clauses of cfg, each one's zone from zone_of (borrowed: the
 * policy does not delete it; NULL: fail): the shared snapshot
 * (respip/rpz_store.h) keeps the zones. *none: no rpz: clause (NULL
 * returned then). NULL otherwise: an error, logged. */
typedef struct rpz_zone* (*rpz_zone_of_fn)(void* arg,
	const struct config_auth* c);
struct rpz_policy* rpz_policy_create_with(const struct config_file* cfg,
	int* none, rpz_zone_of_fn zone_of, void* arg);
/* compat: unbound-1.17: rpz_enable/rpz_disable (unbound-control): a
 * process-wide switch by zone name (wire), set by the control thread;
 * each worker applies it to its own policy copy on its next reply, when
 * the generation moved (one relaxed load per reply with RPZ). 0: out of
 * memory. */
int rpz_switch_set(const uint8_t* name, int enable);
unsigned rpz_switch_generation(void);
/* p's zones' disabled flags from the switch (the worker's own copy). */
void rpz_switch_apply(struct rpz_policy* p);
void rpz_policy_delete(struct rpz_policy* p);
size_t rpz_policy_mem(const struct rpz_policy* p);

/* Apply p to the reply pkt (len bytes) for client; a new reply goes to
 * out (cap bytes). *applied: the action to count (num.rpz.action.*), or
 * RPZ_ACTION_COUNT when none. Logs (rpz-log) unless client->quiet. */
/* Before resolution: 1 when p's client-ip or QNAME triggers decide an
 * answer that needs no resolution of the name (NXDOMAIN, NODATA, DROP,
 * TCP-ONLY over UDP, local data; a CNAME's target is chased after:
 * RPZ_OUT_ALIAS) for the question in
 * pkt (a query, or an empty reply to it); rpz_policy_apply on that
 * empty reply then gives the answer. No logging, no counting. */
int rpz_policy_answers_query(const struct rpz_policy* p,
	const struct rpz_client* client, const uint8_t* pkt, size_t len);

enum rpz_outcome rpz_policy_apply(const struct rpz_policy* p,
	const struct rpz_client* client, const uint8_t* pkt, size_t len,
	uint8_t* out, size_t cap, size_t* outlen, enum rpz_action* applied);

#endif
