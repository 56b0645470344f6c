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

struct respip_set;
struct respip_rule;

enum respip_outcome {
	RESPIP_PASS,     /* sent as it is (no match, inform, transparent) */
	RESPIP_CHANGED,  /* the new reply is in out */
	RESPIP_DROPPED   /* no reply (deny, inform_deny) */
};

/* Apply set to the reply pkt (len bytes); a changed reply goes to out
 * (cap bytes, not pkt). *matched: the rule that matched, or NULL. A
 * question other than A, AAAA or ANY passes. */
enum respip_outcome respip_rewrite(const struct respip_set* set,
	const uint8_t* pkt, size_t len, uint8_t* out, size_t cap,
	size_t* outlen, const struct respip_rule** matched);

#endif
