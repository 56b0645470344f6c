/* SPDX-License-Identifier: BSD-3-Clause */
/* cachedb/cachedb_value.c - the cachedb key and value (see the header):
 * the value's message is walked record by record before libldns sees it,
 * so a truncated, padded or twisted value is refused here. */
#include "config.h"
#include "cachedb/cachedb_value.h"
#include "services/reply_encode.h"
#include "util/dname.h"
#include "util/module.h"
#include "util/msgparse.h"
#include "util/reply_parse.h"
#include "util/wire_int.h"
#include <openssl/sha.h>
#include <string.h>

/* compat: unbound-1.17: what its calc_hash puts in the hashed buffer
 * (1024 bytes there, which the name, type, class and any secret of a
 * sane length fit) */
#define KEY_CLEAR_MAX 1024

void cachedb_key(const uint8_t* qname, size_t qname_len, uint16_t qtype,
	uint16_t qclass, const char* secret, char key[CACHEDB_KEY_LEN])
{
	static const char hex[] = "0123456789ABCDEF";
	uint8_t clear[KEY_CLEAR_MAX];
	uint8_t hash[SHA256_DIGEST_LENGTH];
	size_t n = 0, slen = secret ? strlen(secret) : 0, i;
	if(qname_len < sizeof(clear)) {
		memcpy(clear, qname, qname_len);
		dname_tolower(clear);
		n = qname_len;
	}
	clear[n++] = (uint8_t)(qtype >> 8);
	clear[n++] = (uint8_t)qtype;
	clear[n++] = (uint8_t)(qclass >> 8);
	clear[n++] = (uint8_t)qclass;
	/* compat: unbound-1.17: a secret that does not fit is left out */
	if(slen && n + slen < sizeof(clear)) {
		memcpy(clear + n, secret, slen);
		n += slen;
	}
	SHA256(clear, n, hash);
	for(i = 0; i < sizeof(hash); i++) {
		key[i * 2] = hex[hash[i] >> 4];
		key[i * 2 + 1] = hex[hash[i] & 0xf];
	}
	key[sizeof(hash) * 2] = 0;
}

const char* cachedb_value_verdict_str(enum cachedb_value_verdict v)
{
	switch(v) {
	case CACHEDB_VALUE_OK: return "ok";
	case CACHEDB_VALUE_EXPIRED: return "expired";
	case CACHEDB_VALUE_UNUSABLE: return "not NOERROR or NXDOMAIN";
	case CACHEDB_VALUE_MALFORMED: return "malformed (truncated or "
		"garbage)";
	case CACHEDB_VALUE_WRONG_QUESTION: return "the answer to another "
		"question";
	case CACHEDB_VALUE_NOMEM: return "out of memory";
	}
	return "?";
}

static uint64_t rd64(const uint8_t* p)
{
	uint64_t v = 0;
	int i;
	for(i = 0; i < 8; i++)
		v = (v << 8) | p[i];
	return v;
}

static void wr64(uint8_t* p, uint64_t v)
{
	int i;
	for(i = 7; i >= 0; i--) {
		p[i] = (uint8_t)v;
		v >>= 8;
	}
}

/* Walk the message m (len bytes): a response to a query (QR, opcode
 * QUERY, not truncated), one question (into qname lowercased, qtype,
 * qclass), then exactly the records its counts say, ending at len. */
static int walk_msg(const uint8_t* m, size_t len, uint8_t* qname,
	size_t* qname_len, uint16_t* qtype, uint16_t* qclass)
{
	uint8_t name[LDNS_MAX_DOMAINLEN + 1];
	uint16_t flags;
	size_t pos = LDNS_HEADER_SIZE, i, nrr;
	if(len < LDNS_HEADER_SIZE)
		return 0;
	flags = wire_rd16(m + 2);
	if(!(flags & FLAG_QR) || FLAGS_OPCODE(flags) != 0 ||
		(flags & FLAG_TC) || wire_rd16(m + 4) != 1)
		return 0;
	nrr = (size_t)wire_rd16(m + 6) + wire_rd16(m + 8) + wire_rd16(m + 10);
	if(!(*qname_len = dname_read_wire(m, len, &pos, qname)) ||
		pos + 4 > len)
		return 0;
	dname_tolower(qname);
	*qtype = wire_rd16(m + pos);
	*qclass = wire_rd16(m + pos + 2);
	pos += 4;
	for(i = 0; i < nrr; i++) {
		size_t rdlen;
		if(!dname_read_wire(m, len, &pos, name) || pos + 10 > len)
			return 0;
		rdlen = wire_rd16(m + pos + 8);
		pos += 10;
		if(pos + rdlen > len)
			return 0;
		pos += rdlen;
	}
	return pos == len;
}

/* Lower every TTL of l by elapsed (0 at least); *min: the smallest
 * left. */
static void age_list(ldns_rr_list* l, uint64_t elapsed, uint64_t* min)
{
	size_t i;
	for(i = 0; l && i < ldns_rr_list_rr_count(l); i++) {
		ldns_rr* rr = ldns_rr_list_rr(l, i);
		uint64_t t = ldns_rr_ttl(rr);
		t = t > elapsed ? t - elapsed : 0;
		ldns_rr_set_ttl(rr, (uint32_t)t);
		if(t < *min)
			*min = t;
	}
}

enum cachedb_value_verdict cachedb_value_decode(const uint8_t* v,
	size_t len, const uint8_t* qname, size_t qname_len, uint16_t qtype,
	uint16_t qclass, time_t now, struct module_result* res)
{
	uint8_t mq[LDNS_MAX_DOMAINLEN + 1];
	size_t mq_len, mlen;
	uint16_t mt, mc;
	uint64_t stored, expires, tnow, min, elapsed;
	int rcode;
	ldns_pkt* pkt = NULL;
	if(len < LDNS_HEADER_SIZE + CACHEDB_TIMES_LEN)
		return CACHEDB_VALUE_MALFORMED;
	mlen = len - CACHEDB_TIMES_LEN;
	stored = rd64(v + mlen);
	expires = rd64(v + mlen + 8);
	/* times past what a time_t holds are garbage too */
	if(stored > expires || expires > (uint64_t)INT64_MAX / 2)
		return CACHEDB_VALUE_MALFORMED;
	if(!walk_msg(v, mlen, mq, &mq_len, &mt, &mc))
		return CACHEDB_VALUE_MALFORMED;
	if(mq_len != qname_len || query_dname_compare(mq, qname) != 0 ||
		mt != qtype || mc != qclass)
		return CACHEDB_VALUE_WRONG_QUESTION;
	rcode = v[3] & 0xf;
	if(rcode != RCODE_NOERROR && rcode != RCODE_NXDOMAIN)
		return CACHEDB_VALUE_UNUSABLE;
	tnow = now > 0 ? (uint64_t)now : 0;
	if(expires <= tnow)
		return CACHEDB_VALUE_EXPIRED;
	if(reply_wire2pkt(&pkt, v, mlen) != LDNS_STATUS_OK || !pkt) {
		if(pkt)
			ldns_pkt_free(pkt);
		return CACHEDB_VALUE_MALFORMED;
	}
	/* compat: unbound-1.17: a value from the future (clock skew) is
	 * taken as stored now */
	elapsed = tnow > stored ? tnow - stored : 0;
	min = expires - tnow;
	age_list(ldns_pkt_answer(pkt), elapsed, &min);
	age_list(ldns_pkt_authority(pkt), elapsed, &min);
	age_list(ldns_pkt_additional(pkt), elapsed, &min);
	if(min == 0) {
		/* compat: unbound-1.17: no answer with a TTL of 0 from it */
		ldns_pkt_free(pkt);
		return CACHEDB_VALUE_EXPIRED;
	}
	res->answer = ldns_pkt_answer(pkt);
	res->authority = ldns_pkt_authority(pkt);
	res->additional = ldns_pkt_additional(pkt);
	ldns_pkt_set_answer(pkt, NULL);
	ldns_pkt_set_authority(pkt, NULL);
	ldns_pkt_set_additional(pkt, NULL);
	ldns_pkt_free(pkt);
	res->rcode = rcode;
	res->security = SEC_UNCHECKED;
	return CACHEDB_VALUE_OK;
}

static void min_ttl(const ldns_rr_list* l, uint64_t* min)
{
	size_t i;
	for(i = 0; l && i < ldns_rr_list_rr_count(l); i++)
		if(ldns_rr_ttl(ldns_rr_list_rr(l, i)) < *min)
			*min = ldns_rr_ttl(ldns_rr_list_rr(l, i));
}

/* compat: unbound-1.17: the OPT record's size in stored values
 * (EDNS_ADVERTISED_SIZE there, the default edns-buffer-size) */
#define VALUE_EDNS_SIZE 1232

size_t cachedb_value_encode(const struct module_result* res,
	const uint8_t* qname, size_t qname_len, uint16_t qtype,
	uint16_t qclass, int cd, time_t now, uint8_t* buf, size_t cap,
	uint32_t* ttl)
{
	struct query_info qi;
	uint64_t min = UINT32_MAX;
	size_t n;
	if(res->rcode != RCODE_NOERROR && res->rcode != RCODE_NXDOMAIN)
		return 0;
	min_ttl(res->answer, &min);
	min_ttl(res->authority, &min);
	min_ttl(res->additional, &min);
	/* compat: unbound-1.17: nothing with a TTL of 0 is stored (nor an
	 * answer without records, whose TTL is unknown) */
	if(min == 0 || min == UINT32_MAX || now <= 0 ||
		cap < LDNS_HEADER_SIZE + CACHEDB_TIMES_LEN ||
		qname_len > LDNS_MAX_DOMAINLEN + 1)
		return 0;
	memset(&qi, 0, sizeof(qi));
	memcpy(qi.qname, qname, qname_len);
	qi.qname_len = qname_len;
	qi.qtype = qtype;
	qi.qclass = qclass;
	qi.flags = FLAG_RD | (cd ? FLAG_CD : 0);
	qi.has_edns = 1;
	qi.edns_do = 1;
	qi.edns_version = 0;
	qi.edns_udp_size = VALUE_EDNS_SIZE;
	n = reply_encode(res, &qi, buf, cap - CACHEDB_TIMES_LEN,
		VALUE_EDNS_SIZE, 0, 0);
	/* refused: did not fit (TC), or could not be encoded */
	if(n < LDNS_HEADER_SIZE || (buf[2] & 0x02) ||
		(buf[3] & 0xf) != res->rcode)
		return 0;
	wr64(buf + n, (uint64_t)now);
	wr64(buf + n + 8, (uint64_t)now + min);
	*ttl = (uint32_t)min;
	return n + CACHEDB_TIMES_LEN;
}
