/* SPDX-License-Identifier: BSD-3-Clause */
/* respip/respip_set.h - compat: unbound-1.17: a set of response-ip rules
 * (response-ip: and response-ip-data:): netblocks with an action and, for
 * redirect, the records that replace the matched address RRset. Built once
 * from the config (ldns reads the data text there), read-only after: the
 * query path looks addresses up with no lock and no allocation.
 *
 * The server: clause's rules make one set; a view's response-ip rules
 * make a set of their own (respip_set_create with the view's lists). */
#ifndef RESPIP_RESPIP_SET_H
#define RESPIP_RESPIP_SET_H
#include <stddef.h>
#include <stdint.h>

struct config_file;
struct config_str2list;

/* compat: unbound-1.17: the actions; the config accepts the first seven
 * (Unbound's parser refuses the others for response-ip), the rest are for
 * RPZ's triggers later. */
enum respip_action {
	RESPIP_NONE = 0,
	RESPIP_DENY,
	RESPIP_REDIRECT,
	RESPIP_INFORM,
	RESPIP_INFORM_DENY,
	RESPIP_ALWAYS_TRANSPARENT,
	RESPIP_ALWAYS_REFUSE,
	RESPIP_ALWAYS_NXDOMAIN,
	RESPIP_ALWAYS_NODATA,
	RESPIP_ALWAYS_DENY,
	/* compat: unbound-1.17: only as a client's access-control-tag-action
	 * on a tagged rule (response-ip-tag) */
	RESPIP_REFUSE,            /* the data, else REFUSED */
	RESPIP_STATIC,            /* the data, else NODATA */
	RESPIP_INFORM_REDIRECT,   /* the data, else NODATA */
	RESPIP_TRANSPARENT        /* the data, else the answer as it is */
};

/* One netblock. data: response-ip-data records, each as it follows an
 * owner name on the wire (type, class, TTL, rdlength, rdata), in config
 * order; data_len 0: none. */
struct respip_rule {
	uint8_t addr[16];     /* the netblock's address, bits past net 0 */
	uint8_t net;          /* prefix length */
	uint8_t is_ip6;
	uint8_t action;       /* enum respip_action */
	uint8_t data_is_cname;
	uint16_t data_count;  /* records in data */
	/* response-ip-tag: 1 + the index of its bits (services/tags.h) in
	 * the set's tag_sets; 0: none (in the padding: a rule stays 32
	 * bytes, as RPZ's IP triggers are rules too) */
	uint16_t tag_idx;
	uint32_t data_off, data_len; /* in the set's blob */
};

/* Rules of one family, grouped by prefix length, longest first: a
 * lookup tries each length once (a binary search in its sorted run). */
struct respip_family {
	struct respip_rule* rules;  /* sorted by (net desc, addr) */
	size_t count;
	uint8_t nets[129];          /* distinct prefix lengths, desc */
	size_t nets_start[129];     /* first rule of each length */
	size_t num_nets;
};

struct respip_set {
	struct respip_family v4, v6;
	uint8_t* blob;              /* the data records */
	size_t blob_len;
	uint64_t* tag_sets;         /* the rules' response-ip-tag bits */
	size_t num_tag_sets;
};

/* The rule's response-ip-tag bits; 0: none. */
static inline uint64_t respip_rule_tags(const struct respip_set* set,
	const struct respip_rule* r)
{
	return r->tag_idx ? set->tag_sets[r->tag_idx - 1] : 0;
}

/* compat: unbound-1.17: The set from response-ip (actions) and
 * response-ip-data lists (either may be NULL), checked as Unbound checks
 * them: a bad netblock, an unknown action, data for a netblock without a
 * response-ip or whose action is not redirect, data of the wrong family
 * or type, a CNAME beside other data. Each error logged in Unbound's
 * words; NULL then (or out of memory). An empty set is a set. */
struct respip_set* respip_set_create(const struct config_str2list* actions,
	const struct config_str2list* data);
/* compat: unbound-1.17: the server: clause's set, with its response-ip-tag
 * lines (netblock, "tag ..."; cfg's define-tag names them): a netblock
 * with tags and no response-ip action is a rule of action RESPIP_NONE,
 * which only a client's tag action gives an action. An unknown tag is an
 * error (logged). */
struct respip_set* respip_set_create_tagged(const struct config_file* cfg,
	const struct config_str2list* tags,
	const struct config_str2list* actions,
	const struct config_str2list* data);
void respip_set_delete(struct respip_set* set);
/* Sort and index a set whose rules and blob were filled in directly
 * (RPZ's IP triggers, respip/rpz_zone.c): rules of one netblock once. */
void respip_set_index(struct respip_set* set);
/* No rules at all. */
int respip_set_empty(const struct respip_set* set);
/* The rule whose netblock holds the address (4 or 16 bytes), the longest
 * prefix when several do; NULL when none. */
const struct respip_rule* respip_set_lookup(const struct respip_set* set,
	const uint8_t* addr, size_t addrlen);
/* Bytes the set uses (mem.mod.respip). */
size_t respip_set_mem(const struct respip_set* set);
/* The action of a name ("deny", ...), RESPIP_NONE for an unknown one; the
 * names response-ip accepts (Unbound 1.17's parser): the first seven. */
enum respip_action respip_action_from_str(const char* s);
/* Is s one of the actions a response-ip: line may have? */
int respip_action_configurable(const char* s);

#endif
