/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/query_cookie.c - compat: unbound-1.21: DNS cookies on the query path,
 * as Unbound's parse_edns_options_from_query and worker_handle_request treat
 * them. */
#include "config.h"
#include "daemon/query_cookie.h"
#include "util/edns_pad.h"
#include "util/msgparse.h"
#include "util/wire_int.h"
#include <netinet/in.h>
#include <string.h>

/* The client's address bytes that the server cookie hashes. */
static size_t client_ip(const struct sockaddr_storage* a, const uint8_t** ip)
{
	if(a->ss_family == AF_INET) {
		*ip = (const uint8_t*)&((const struct sockaddr_in*)
			(const void*)a)->sin_addr;
		return 4;
	}
	*ip = (const uint8_t*)&((const struct sockaddr_in6*)
		(const void*)a)->sin6_addr;
	return 16;
}

/* The first cookie option of the query's OPT record: its data and
 * length in *c and *clen; 0 when there is none. query_parse checked the
 * record lies inside the packet; a partial option ends the list, as in
 * Unbound. */
static int find_cookie(const struct query_info* qi, const uint8_t** c,
	size_t* clen)
{
	const uint8_t* pkt = qi->pkt;
	size_t len = qi->pkt_len, pos = qi->question_end, end;
	if(!pkt || pos >= len)
		return 0;
	/* the owner: the root, or a pointer to it (2 bytes) */
	pos += pkt[pos] == 0 ? 1 : 2;
	if(pos + 10 > len)
		return 0;
	end = pos + 10 + wire_rd16(pkt + pos + 8);
	pos += 10;
	if(end > len)
		return 0;
	while(end - pos >= 4) {
		uint16_t code = wire_rd16(pkt + pos);
		uint16_t olen = wire_rd16(pkt + pos + 2);
		pos += 4;
		if(olen > end - pos)
			return 0;
		if(code == EDNS_OPT_COOKIE) {
			*c = pkt + pos;
			*clen = olen;
			return 1;
		}
		pos += olen;
	}
	return 0;
}

static inline uint64_t ld64(const uint8_t* p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

/* The address as the memo keeps it: 16 bytes, zero-padded. */
static inline void ip_words(const uint8_t* ip, size_t iplen, uint64_t w[2])
{
	if(iplen == 4) {
		uint32_t v;
		memcpy(&v, ip, 4);
		w[0] = v;
		w[1] = 0;
	} else {
		w[0] = ld64(ip);
		w[1] = ld64(ip + 8);
	}
}

/* Was c (24 bytes) checked valid with the active secret of generation
 * gen for this address, and is it still young enough to echo? (Word
 * compares: this is the cache-hit path of a client that has its cookie.)
 */
static inline int memo_valid(const struct query_cookie_memo* memo,
	uint32_t gen, const uint8_t* c, const uint64_t ip[2], uint32_t now)
{
	uint32_t ts = (uint32_t)c[12] << 24 | (uint32_t)c[13] << 16 |
		(uint32_t)c[14] << 8 | c[15];
	const struct query_cookie_seen* e = &memo->e[c[16]];
	int32_t age = (int32_t)(now - ts);
	/* edns_cookie_age()'s COOKIE_VALID: -300 .. 1800 */
	if(age < -300 || age > 1800)
		return 0;
	return e->gen == gen &&
		((e->cookie[0] ^ ld64(c)) | (e->cookie[1] ^ ld64(c + 8)) |
		(e->cookie[2] ^ ld64(c + 16)) | (e->ip[0] ^ ip[0]) |
		(e->ip[1] ^ ip[1])) == 0;
}

static void memo_put(struct query_cookie_memo* memo, uint32_t gen,
	const uint8_t* c, const uint64_t ip[2])
{
	struct query_cookie_seen* e = &memo->e[c[16]];
	memcpy(e->cookie, c, COOKIE_FULL_LEN);
	e->ip[0] = ip[0];
	e->ip[1] = ip[1];
	e->gen = gen;
}

_Static_assert(QUERY_COOKIE_MEMO == 256, "the memo is indexed by one byte");

enum query_cookie_verdict query_cookie_read(struct query_cookie_memo* memo,
	const struct cookie_secrets* s, const struct query_info* qi,
	const struct sockaddr_storage* addr, uint32_t now,
	struct query_cookie* ck)
{
	const uint8_t* c, *ip;
	size_t clen, iplen;
	enum cookie_status st;
	ck->add = ck->present = ck->valid = ck->client_only = 0;
	if(!find_cookie(qi, &c, &clen))
		return QUERY_COOKIE_GO_ON;
	/* RFC 7873 5.2.2: a client cookie of 8, a server cookie of 8 to 32 */
	if(clen != COOKIE_CLIENT_LEN && (clen < 16 || clen > 40))
		return QUERY_COOKIE_FORMERR;
	ck->present = 1;
	ck->client_only = clen == COOKIE_CLIENT_LEN;
	iplen = client_ip(addr, &ip);
	if(clen == COOKIE_FULL_LEN && memo) {
		uint64_t ipw[2];
		ip_words(ip, iplen, ipw);
		if(memo_valid(memo, s->gen, c, ipw, now))
			st = COOKIE_VALID;
		else if((st = edns_cookie_check_all(c, clen, s, ip, iplen,
			now)) == COOKIE_VALID)
			memo_put(memo, s->gen, c, ipw);
	} else
		st = edns_cookie_check_all(c, clen, s, ip, iplen, now);
	if(st == COOKIE_VALID) {
		/* echo it: the query's option is code, length 24, cookie */
		ck->opt = c - 4;
		ck->add = ck->valid = 1;
		return QUERY_COOKIE_GO_ON;
	}
	ck->valid = st == COOKIE_VALID_RENEW;
	if(s->count == 0)
		return QUERY_COOKIE_GO_ON;  /* compat: unbound-1.21: none made */
	ck->made[0] = 0;
	ck->made[1] = EDNS_OPT_COOKIE;
	ck->made[2] = 0;
	ck->made[3] = COOKIE_FULL_LEN;
	memcpy(ck->made + 4, c, COOKIE_CLIENT_LEN);
	edns_cookie_make(ck->made + 4, s->secret[0], ip, iplen, now);
	ck->opt = ck->made;
	ck->add = 1;
	return QUERY_COOKIE_GO_ON;
}
