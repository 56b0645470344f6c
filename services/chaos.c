/* SPDX-License-Identifier: BSD-3-Clause */
/* services/chaos.c - compat: unbound-1.17: CHAOS class TXT answers, as Unbound
 * 1.17's answer_chaos() gives them (checked against the real daemon): QR and
 * RA set, RD/CD copied, no AA, one TXT record with TTL 0 whose owner points at
 * the question, for qtype TXT or ANY. A hidden name, or another qtype for
 * these names, ends in REFUSED in Unbound (no CH data anywhere): that reply is
 * given here directly. */
#include "config.h"
#include "services/chaos.h"
#include "util/config_file.h"
#include "util/msgparse.h"
#include "util/msgencode.h"
#include <string.h>
#include <unistd.h>

/* compat: unbound-1.17: Our default version string, in place of Unbound's
 * "unbound 1.17.1". */
#define CHAOS_VERSION "unbound 1.17.1-compatible " PACKAGE_VERSION

enum chaos_kind { CHAOS_NONE, CHAOS_ID, CHAOS_VERSION_Q, CHAOS_TA };

static enum chaos_kind chaos_kind(const uint8_t* qname)
{
	if(query_dname_compare(qname, (const uint8_t*)"\2id\6server") == 0 ||
		query_dname_compare(qname,
		(const uint8_t*)"\10hostname\4bind") == 0)
		return CHAOS_ID;
	if(query_dname_compare(qname,
		(const uint8_t*)"\7version\6server") == 0 ||
		query_dname_compare(qname,
		(const uint8_t*)"\7version\4bind") == 0)
		return CHAOS_VERSION_Q;
	if(query_dname_compare(qname,
		(const uint8_t*)"\13trustanchor\7unbound") == 0)
		return CHAOS_TA;
	return CHAOS_NONE;
}

/* The reply with no records: REFUSED, or NOERROR for an empty list. */
static size_t chaos_empty(const struct query_info* qi, uint8_t* out,
	size_t limit, uint16_t edns_size, int rcode)
{
	struct msg_builder b;
	msg_begin(&b, out, limit, qi, FLAG_RA, rcode);
	return msg_finish(&b, qi, edns_size, rcode);
}

int chaos_answer(const struct config_file* cfg, const struct query_info* qi,
	uint8_t* out, size_t limit, uint16_t edns_size, size_t* outlen)
{
	enum chaos_kind k;
	char host[256];
	const char* str;
	size_t slen;
	uint8_t rd[256];
	const uint8_t* rdp[1];
	uint16_t rdl[1];
	struct packed_rrset rr;
	struct msg_builder b;

	if(qi->qclass != CLASS_CH || qi->qname_len == 0)
		return 0;
	k = chaos_kind(qi->qname);
	if(k == CHAOS_NONE)
		return 0;
	if((qi->qtype != TYPE_TXT && qi->qtype != TYPE_ANY) ||
		(k == CHAOS_ID && cfg->hide_identity) ||
		(k == CHAOS_VERSION_Q && cfg->hide_version) ||
		(k == CHAOS_TA && cfg->hide_trustanchor)) {
		*outlen = chaos_empty(qi, out, limit, edns_size, RCODE_REFUSED);
		return 1;
	}
	if(k == CHAOS_TA) {
		/* compat: unbound-1.17: No trust anchors are configured in
		 * this build: an empty list, as Unbound gives without a
		 * validator. */
		*outlen = chaos_empty(qi, out, limit, edns_size, RCODE_NOERROR);
		return 1;
	}
	if(k == CHAOS_ID) {
		if(cfg->identity && cfg->identity[0])
			str = cfg->identity;
		else if(gethostname(host, sizeof(host) - 1) == 0) {
			host[sizeof(host) - 1] = 0;
			str = host;
		} else	str = "no hostname";
	} else {
		str = (cfg->version && cfg->version[0]) ? cfg->version :
			CHAOS_VERSION;
	}
	slen = strlen(str);
	if(slen > 255)
		/* compat: unbound-1.17: one character-string, as Unbound caps
		 * it */
		slen = 255;
	rd[0] = (uint8_t)slen;
	memcpy(rd + 1, str, slen);
	rdp[0] = rd;
	rdl[0] = (uint16_t)(slen + 1);
	rr.owner = qi->qname;
	rr.owner_len = qi->qname_len;
	rr.type = TYPE_TXT;
	rr.rclass = CLASS_CH;
	rr.ttl = 0;
	rr.count = 1;
	rr.rdata = rdp;
	rr.rdlen = rdl;
	msg_begin(&b, out, limit, qi, FLAG_RA, RCODE_NOERROR);
	(void)msg_add_rrset(&b, SEC_ANSWER, &rr); /* TC if it cannot fit */
	*outlen = msg_finish(&b, qi, edns_size, RCODE_NOERROR);
	return 1;
}
