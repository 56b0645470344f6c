/* SPDX-License-Identifier: BSD-3-Clause */
/* respip/respip_rewrite.h - compat: unbound-1.17: a response-ip set applied
 * to a reply on the wire, as Unbound's respip_rewrite_reply changes its
 * reply: the first A or AAAA record of the answer section (in order, CNAME
 * chain included) whose address a rule holds decides. Works on the
 * encoded reply (the message cache's, or the mesh's), no allocation. */
#ifndef RESPIP_RESPIP_REWRITE_H
#define RESPIP_RESPIP_REWRITE_H
#include <stddef.h>
#include <stdint.h>

#include "respip/respip_set.h"

enum respip_outcome {
	RESPIP_PASS,     /* sent as it is (no match, inform, transparent) */
	RESPIP_CHANGED,  /* the new reply is in out */
	RESPIP_DROPPED,  /* no reply (deny, inform_deny) */
	/* the new reply is in out, the address replaced by CNAME data:
	 * compat: unbound-1.17: its target is to be resolved and merged
	 * (respip_merge_cname; services/reply_chase.h) */
	RESPIP_CHASE
};

/* Apply set to the reply pkt (len bytes); a changed reply goes to out
 * (cap bytes, not pkt). *matched: the rule that matched, or NULL. A
 * question other than A, AAAA or ANY passes. */
enum respip_outcome respip_rewrite(const struct respip_set* set,
	const uint8_t* pkt, size_t len, uint8_t* out, size_t cap,
	size_t* outlen, const struct respip_rule** matched);

/* compat: unbound-1.17: what a client's tags change in a rule with
 * response-ip-tag (local_data_find_tag_action): the first tag (lowest
 * id) the rule and the client share picks the client's
 * access-control-tag-action for it, when it has one, in place of the
 * rule's action; with redirect, that tag's access-control-tag-data of
 * the matched RRset's type (or a CNAME) in place of the rule's data. */
struct respip_tag_client {
	uint64_t tags;   /* the client's access-control-tag bits */
	/* the client's action for tag; RESPIP_NONE: none */
	enum respip_action (*action)(void* arg, int tag);
	/* the client's data for tag and an RRset of type and class, as
	 * records after an owner name (type, class, TTL, rdlength, rdata)
	 * into buf (cap bytes), *len their bytes; the count, 0: none */
	size_t (*data)(void* arg, int tag, uint16_t type, uint16_t rclass,
		uint8_t* buf, size_t cap, size_t* len);
	void* arg;
};

/* respip_rewrite for a client with tags (tc NULL: none); *action: the
 * action applied (the rule's or the tag's), RESPIP_NONE when no rule
 * matched. */
enum respip_outcome respip_rewrite_client(const struct respip_set* set,
	const struct respip_tag_client* tc, const uint8_t* pkt, size_t len,
	uint8_t* out, size_t cap, size_t* outlen,
	const struct respip_rule** matched, enum respip_action* action);

#endif
