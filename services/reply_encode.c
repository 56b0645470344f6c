/* SPDX-License-Identifier: BSD-3-Clause */
/* services/reply_encode.c - a module result as a DNS reply (see the
 * header). */
#include "config.h"
#include "services/reply_encode.h"
#include "util/module.h"
#include "util/msgencode.h"
#include "util/msgparse.h"
#include "util/rrlist_pack.h"

struct enc_arg {
	struct msg_builder* b;
	enum msg_section sec;
	int dnssec_ok;      /* the client set DO */
	uint16_t qtype;
};

/* RFC 4035 3.2.1: without DO, no RRSIG, NSEC or NSEC3 unless that is
 * the type asked for. */
static int is_dnssec_type(uint16_t t)
{
	return t == TYPE_RRSIG || t == TYPE_NSEC || t == TYPE_NSEC3;
}

static int enc_set(void* arg, const struct packed_rrset* set)
{
	struct enc_arg* e = arg;
	if(!e->dnssec_ok && is_dnssec_type(set->type) &&
		(set->type != e->qtype || e->sec != SEC_ANSWER))
		return 1;
	(void)msg_add_rrset(e->b, e->sec, set);
	return 1;
}

static int add_list(struct msg_builder* b, enum msg_section sec,
	const ldns_rr_list* list, const struct query_info* qi)
{
	struct enc_arg e;
	e.b = b;
	e.sec = sec;
	e.dnssec_ok = qi->edns_do;
	e.qtype = qi->qtype;
	return !list || rrlist_for_each_rrset(list, enc_set, &e);
}

size_t reply_encode(const struct module_result* res,
	const struct query_info* qi, uint8_t* buf, size_t limit,
	uint16_t edns_size, int rotate, uint32_t rot_off)
{
	struct msg_builder b;
	int rcode = res->rcode;
	if(rcode == RCODE_SERVFAIL)
		return msg_error_reply_ede(buf, limit, qi, RCODE_SERVFAIL,
			edns_size, res->has_ede ? (int)res->ede_code : -1,
			res->ede_text);
	/* AD for secure data when the client can take it (RFC 6840 5.7;
	 * the message cache clears it per reply the same way) */
	msg_begin(&b, buf, limit, qi, FLAG_RA | (res->policy ? FLAG_AA : 0) |
		((res->security == SEC_SECURE &&
		((qi->flags & FLAG_AD) || qi->edns_do)) ? FLAG_AD : 0), rcode);
	/* the shape the cache keeps: RRsets it can rotate per reply */
	b.closed_sets = 1;
	b.rotate = rotate;
	b.rot_off = rot_off;
	if(!add_list(&b, SEC_ANSWER, res->answer, qi) ||
		!add_list(&b, SEC_AUTHORITY, res->authority, qi) ||
		!add_list(&b, SEC_ADDITIONAL, res->additional, qi))
		return msg_error_reply(buf, limit, qi, RCODE_SERVFAIL,
			edns_size);
	return msg_finish(&b, qi, edns_size, rcode);
}
