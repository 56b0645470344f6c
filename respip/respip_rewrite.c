/* SPDX-License-Identifier: BSD-3-Clause */
/* respip/respip_rewrite.c - the response-ip actions on a wire reply (see the
 * header). The new reply keeps the old one's bytes up to the matched
 * address RRset (header, question, the CNAMEs before it: their compression
 * pointers point backwards, so they stay valid), then the action's records,
 * then the OPT record; authority and additional are left out, as Unbound's
 * rewritten reply has none. */
#include "config.h"
#include "respip/respip_rewrite.h"
#include "respip/respip_set.h"
#include "util/dname.h"
#include "util/msgparse.h"
#include "util/wire_int.h"
#include <string.h>

#define T_A 1
#define T_CNAME 5
#define T_AAAA 28
#define T_OPT 41
#define T_RRSIG 46
#define T_ANY 255

/* Step over the name at *pos (labels, ending in a root label or a
 * pointer, not followed): 0 when it runs past len or is too long. */
static int skip_name(const uint8_t* pkt, size_t len, size_t* pos)
{
	size_t p = *pos, total = 0;
	while(p < len) {
		uint8_t l = pkt[p];
		if((l & 0xc0) == 0xc0) {
			if(p + 2 > len)
				return 0;
			*pos = p + 2;
			return 1;
		}
		if(l & 0xc0)
			return 0;
		p += (size_t)l + 1;
		total += (size_t)l + 1;
		if(total > LDNS_MAX_DOMAINLEN + 1)
			return 0;
		if(l == 0) {
			*pos = p;
			return p <= len;
		}
	}
	return 0;
}

/* Do the owner names at a and b (their bytes as written) name the same?
 * Equal bytes do (the encoder writes one pointer for an RRset's
 * records); else both are read and compared (cold). */
static int same_owner(const uint8_t* pkt, size_t len, size_t a,
	size_t a_end, size_t b, size_t b_end)
{
	uint8_t x[LDNS_MAX_DOMAINLEN + 1], y[LDNS_MAX_DOMAINLEN + 1];
	if(a_end - a == b_end - b && memcmp(pkt + a, pkt + b, a_end - a) == 0)
		return 1;
	return dname_read_wire(pkt, len, &a, x) &&
		dname_read_wire(pkt, len, &b, y) &&
		query_dname_compare(x, y) == 0;
}

/* One record of pkt at *pos: where its owner's bytes end, its type and
 * rdata; *pos past it. 0 when malformed. */
static int next_rr(const uint8_t* pkt, size_t len, size_t* pos,
	size_t* owner_end, uint16_t* type, size_t* rdata, uint16_t* rdlen)
{
	if(!skip_name(pkt, len, pos) || *pos + 10 > len)
		return 0;
	*owner_end = *pos;
	*type = wire_rd16(pkt + *pos);
	*rdlen = wire_rd16(pkt + *pos + 8);
	*rdata = *pos + 10;
	if(*rdata + *rdlen > len)
		return 0;
	*pos = *rdata + *rdlen;
	return 1;
}

enum respip_outcome respip_rewrite(const struct respip_set* set,
	const uint8_t* pkt, size_t len, uint8_t* out, size_t cap,
	size_t* outlen, const struct respip_rule** matched)
{
	enum respip_action a;
	return respip_rewrite_client(set, NULL, pkt, len, out, cap, outlen,
		matched, &a);
}

/* Is a an always_ action (its data never used)? */
static int always_action(enum respip_action a)
{
	return a == RESPIP_ALWAYS_TRANSPARENT || a == RESPIP_ALWAYS_REFUSE ||
		a == RESPIP_ALWAYS_NXDOMAIN || a == RESPIP_ALWAYS_NODATA ||
		a == RESPIP_ALWAYS_DENY;
}

enum respip_outcome respip_rewrite_client(const struct respip_set* set,
	const struct respip_tag_client* tc, const uint8_t* pkt, size_t len,
	uint8_t* out, size_t cap, size_t* outlen,
	const struct respip_rule** matched, enum respip_action* action)
{
	uint8_t tag_buf[4096];
	const uint8_t* dat = NULL;
	size_t dat_count = 0, dat_len = 0;
	enum respip_action act;
	uint16_t run_class = 0;
	size_t pos = LDNS_HEADER_SIZE, run_start = 0, run_owner_at = 0;
	size_t run_owner_end = 0, kept_rrs = 0, run_first_rr = 0;
	size_t opt_at = 0, opt_len = 0, i, o, an_start;
	uint16_t qtype, run_type = 0, ancount, nscount, arcount, rcode;
	const struct respip_rule* rule = NULL;
	*matched = NULL;
	*action = RESPIP_NONE;
	if(len < LDNS_HEADER_SIZE || wire_rd16(pkt + 4) != 1)
		return RESPIP_PASS;
	if(!skip_name(pkt, len, &pos) || pos + 4 > len)
		return RESPIP_PASS;
	qtype = wire_rd16(pkt + pos);
	pos += 4;
	if(qtype != T_A && qtype != T_AAAA && qtype != T_ANY)
		return RESPIP_PASS;
	an_start = pos;
	ancount = wire_rd16(pkt + 6);
	nscount = wire_rd16(pkt + 8);
	arcount = wire_rd16(pkt + 10);
	for(i = 0; i < ancount && !rule; i++) {
		size_t at = pos, oend, rdata;
		uint16_t type, rdlen, eff;
		if(!next_rr(pkt, len, &pos, &oend, &type, &rdata, &rdlen))
			return RESPIP_PASS;
		eff = type;
		if(type == T_RRSIG && rdlen >= 2)
			eff = wire_rd16(pkt + rdata);
		/* an RRset: a run of records of one owner and type (its
		 * RRSIGs with it) */
		if(i == 0 || eff != run_type || !same_owner(pkt, len, at, oend,
			run_owner_at, run_owner_end)) {
			run_start = at;
			run_first_rr = i;
			run_type = eff;
			run_owner_at = at;
			run_owner_end = oend;
			run_class = wire_rd16(pkt + oend + 2);
		}
		if((type == T_A && rdlen == 4) || (type == T_AAAA &&
			rdlen == 16))
			rule = respip_set_lookup(set, pkt + rdata, rdlen);
	}
	if(!rule)
		return RESPIP_PASS;
	*matched = rule;
	act = (enum respip_action)rule->action;
	if(tc && (respip_rule_tags(set, rule) & tc->tags)) {
		int tag = __builtin_ctzll(respip_rule_tags(set, rule) &
			tc->tags);
		enum respip_action ta = tc->action ? tc->action(tc->arg, tag) :
			RESPIP_NONE;
		if(ta != RESPIP_NONE)
			act = ta;
		if(act == RESPIP_REDIRECT && tc->data)
			dat_count = tc->data(tc->arg, tag, run_type, run_class,
				tag_buf, sizeof(tag_buf), &dat_len);
		if(dat_count)
			dat = tag_buf;
	}
	*action = act;
	/* compat: unbound-1.17: as respip_data_answer: the data replaces
	 * the address RRset for every action but the always_ ones, a deny
	 * included (its reply then is not dropped) */
	if(!dat && rule->data_len && !always_action(act)) {
		dat = set->blob + rule->data_off;
		dat_count = rule->data_count;
	}
	if(!dat) {
		switch(act) {
		case RESPIP_NONE:
		case RESPIP_INFORM:
		case RESPIP_ALWAYS_TRANSPARENT:
		case RESPIP_TRANSPARENT:
			return RESPIP_PASS;
		case RESPIP_DENY:
		case RESPIP_INFORM_DENY:
		case RESPIP_ALWAYS_DENY:
			/* compat: unbound-1.17: no reply */
			return RESPIP_DROPPED;
		default:
			break;
		}
	}
	/* the OPT record, kept for the new reply */
	/* i: the answer records read so far */
	for(; i < (size_t)ancount + nscount + arcount; i++) {
		size_t at = pos, oend, rdata;
		uint16_t type, rdlen;
		if(!next_rr(pkt, len, &pos, &oend, &type, &rdata, &rdlen))
			break;
		if(type == T_OPT) {
			opt_at = at;
			opt_len = pos - at;
		}
	}
	/* compat: unbound-1.17: for ANY nothing of the answer is kept */
	if(qtype == T_ANY) {
		run_start = an_start;
		run_first_rr = 0;
	}
	kept_rrs = run_first_rr;
	o = run_start;
	if(o > cap)
		return RESPIP_PASS;
	memcpy(out, pkt, o);
	rcode = pkt[3] & 0xf;
	if(!dat && (act == RESPIP_ALWAYS_REFUSE || act == RESPIP_REFUSE)) {
		o = an_start;
		kept_rrs = 0;
		rcode = RCODE_REFUSED;
	} else if(dat) {
		/* the data, owned by the matched RRset's name (its bytes as
		 * they were: at the same offset, a pointer stays right) */
		size_t olen = run_owner_end - run_owner_at, d = 0;
		size_t k;
		for(k = 0; k < dat_count; k++) {
			const uint8_t* rec = dat + d;
			size_t rl = 10 + wire_rd16(rec + 8);
			if(o + olen + rl > cap)
				return RESPIP_PASS;
			memmove(out + o, pkt + run_owner_at, olen);
			o += olen;
			memcpy(out + o, rec, rl);
			o += rl;
			d += rl;
		}
		kept_rrs += dat_count;
	} else {
		/* redirect without data (static, always_nodata):
		 * NODATA; always_nxdomain: NXDOMAIN; the CNAMEs before
		 * the address kept */
		rcode = act == RESPIP_ALWAYS_NXDOMAIN ?
			RCODE_NXDOMAIN : RCODE_NOERROR;
	}
	if(opt_len) {
		if(o + opt_len > cap)
			return RESPIP_PASS;
		memcpy(out + o, pkt + opt_at, opt_len);
		o += opt_len;
	}
	/* compat: unbound-1.17: a rewritten reply is not secure: no AD */
	out[3] = (uint8_t)((out[3] & 0xd0) | rcode);
	wire_wr16(out + 6, (uint16_t)kept_rrs);
	wire_wr16(out + 8, 0);
	wire_wr16(out + 10, opt_len ? 1 : 0);
	*outlen = o;
	if(dat && qtype != T_ANY && wire_rd16(dat) == T_CNAME)
		return RESPIP_CHASE;
	return RESPIP_CHANGED;
}
