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
};

static int enc_set(void* arg, const struct packed_rrset* set)
{
	struct enc_arg* e = arg;
	(void)msg_add_rrset(e->b, e->sec, set);
	return 1;
}

static int add_list(struct msg_builder* b, enum msg_section sec,
	const ldns_rr_list* list)
{
	struct enc_arg e;
	e.b = b;
	e.sec = sec;
	return !list || rrlist_for_each_rrset(list, enc_set, &e);
}

size_t reply_encode(const struct module_result* res,
	const struct query_info* qi, uint8_t* buf, size_t limit,
	uint16_t edns_size, int rotate, uint32_t rot_off)
{
	struct msg_builder b;
	int rcode = res->rcode;
	if(rcode == RCODE_SERVFAIL)
		return msg_error_reply(buf, limit, qi, RCODE_SERVFAIL,
			edns_size);
	msg_begin(&b, buf, limit, qi, FLAG_RA, rcode);
	/* the shape the cache keeps: RRsets it can rotate per reply */
	b.closed_sets = 1;
	b.rotate = rotate;
	b.rot_off = rot_off;
	if(!add_list(&b, SEC_ANSWER, res->answer) ||
		!add_list(&b, SEC_AUTHORITY, res->authority) ||
		!add_list(&b, SEC_ADDITIONAL, res->additional))
		return msg_error_reply(buf, limit, qi, RCODE_SERVFAIL,
			edns_size);
	return msg_finish(&b, qi, edns_size, rcode);
}
