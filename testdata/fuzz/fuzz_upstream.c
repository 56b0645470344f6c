/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/fuzz/fuzz_upstream.c - an upstream server's reply to an
 * outstanding iterator query. The functions called, in order (for
 * adapting this harness when the iterator's entry points change):
 *
 *   outnet_reply_matches()  the outside network's reply matching (ID,
 *                           QR, opcode, question; services/outside_network.c)
 *   iter_handle_reply()     the iterator's reply handling as the mesh
 *                           calls it: ldns parse, iter_scrub_message()
 *                           (iterator/iter_scrub.c), private-address,
 *                           then iter_resp.c: answer, CNAME/DNAME
 *                           restart, referral, NODATA/NXDOMAIN, lame,
 *                           minimised-query replies; RRsets stored in
 *                           the RRset cache (iter_store_reply)
 *   reply_encode() +   for a finished state: the reply the mesh
 *   msg_cache_store()       would send and store (as services/mesh.c)
 *   msg_cache_answer(), iter_msg_cached(), iter_cache_answer(),
 *   iter_cache_delegation() the caches read back
 *
 * The question is the reply's own (lowercased; "example.com. A IN"
 * when it has none); the query sent has the reply's ID, so only the
 * rest of the reply decides the match. The first input byte is not
 * part of the reply; its bits pick: 0-1 the zone of the server asked
 * (the question's name minus 1-4 labels, at least the root); 2 a
 * forward zone; 3 a minimised question ("x." in front of the name,
 * asked as type A); 4 the second config (harden-glue: no,
 * harden-unverified-glue, minimal-responses: no,
 * qname-minimisation-strict, private-address);
 * 5 the query ID differs by one (no match). The caches persist across
 * inputs (bounded by their size), as in a running resolver. */
#include "config.h"
#include "testdata/fuzz/fuzz_env.h"
#include "iterator/iterator.h"
#include "services/reply_encode.h"
#include "util/module.h"
#include "iterator/iter_cache.h"
#include "iterator/iter_hints.h"
#include "iterator/delegpt.h"
#include "services/outside_network.h"
#include "services/cache/msgcache.h"
#include "services/cache/rrset.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/msgparse.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char* const CONF_A =
	"server:\n	verbosity: 0\n	use-syslog: no\n";
static const char* const CONF_B =
	"server:\n	verbosity: 0\n	use-syslog: no\n"
	"	harden-glue: no\n	minimal-responses: no\n"
	"	harden-unverified-glue: yes\n"
	"	qname-minimisation-strict: yes\n"
	"	private-address: 10.0.0.0/8\n"
	"	private-address: 192.168.0.0/16\n"
	"	private-address: fd00::/8\n"
	"	private-domain: \"example.com.\"\n";

static struct iter_env env_a, env_b;
static struct msg_cache* msgs;
static struct rrset_cache* rrsets;

static void env_init(struct iter_env* e, const char* text)
{
	struct config_file* cfg = fuzz_config(text);
	memset(e, 0, sizeof(*e));
	e->cfg = cfg;
	e->hints = iter_hints_create(cfg);
	e->msg_cache = msgs;
	e->rrset_cache = rrsets;
	e->do_ip4 = e->do_ip6 = 1;
	e->unknown_rtt = 376;
	if(!e->hints)
		abort();
}

static void setup(void)
{
	fuzz_quiet_logs();
	msgs = msg_cache_create(1 << 20, 4, 0, 86400, 3600);
	rrsets = rrset_cache_create(1 << 20, 4, 0, 86400);
	if(!msgs || !rrsets)
		abort();
	env_init(&env_a, CONF_A);
	env_init(&env_b, CONF_B);
}

/* The question of the reply (lowercased), or the default one. */
static void question(const uint8_t* r, size_t len, uint8_t* name,
	size_t* namelen, uint16_t* qtype, uint16_t* qclass)
{
	size_t n = 0;
	if(len > LDNS_HEADER_SIZE && r[4] == 0 && r[5] == 1)
		n = dname_valid(r + LDNS_HEADER_SIZE, len - LDNS_HEADER_SIZE);
	if(n == 0 || LDNS_HEADER_SIZE + n + 4 > len) {
		static const uint8_t def[] = "\007example\003com";
		memcpy(name, def, sizeof(def));
		*namelen = sizeof(def);
		*qtype = TYPE_A;
		*qclass = CLASS_IN;
		return;
	}
	memcpy(name, r + LDNS_HEADER_SIZE, n);
	dname_tolower(name);
	*namelen = n;
	*qtype = (uint16_t)(r[LDNS_HEADER_SIZE + n] << 8 |
		r[LDNS_HEADER_SIZE + n + 1]);
	*qclass = (uint16_t)(r[LDNS_HEADER_SIZE + n + 2] << 8 |
		r[LDNS_HEADER_SIZE + n + 3]);
}

/* name without its first k labels (the root at most). */
static const uint8_t* strip_labels(const uint8_t* name, int k)
{
	while(k-- > 0 && name[0] != 0)
		name += 1 + name[0];
	return name;
}

/* The caches read back after the reply was handled. */
static void read_back(struct iter_env* e, const struct iter_qstate* iq)
{
	time_t now = time(NULL);
	ldns_rr_list* l = ldns_rr_list_new(), *auth = NULL;
	struct delegpt* dp;
	int rcode = 0;
	if(!l)
		return;
	(void)iter_cache_answer(e->rrset_cache, iq->sname, iq->qtype,
		iq->qclass, now, l);
	(void)iter_msg_cached(e->msg_cache, iq->qname, iq->qname_len,
		iq->qtype, iq->qclass, now, 1, &rcode, l, &auth);
	ldns_rr_list_deep_free(l);
	ldns_rr_list_deep_free(auth);
	dp = iter_cache_delegation(e->rrset_cache, iq->sname, iq->qclass, 0,
		now);
	delegpt_delete(dp);
}

/* A finished state: encode the reply, store it, answer from the cache
 * (as the mesh does for its clients). */
static void finish(struct iter_env* e, const struct iter_qstate* iq,
	uint16_t id)
{
	static uint8_t buf[65535], again[65535];
	struct query_info qi;
	struct module_result res;
	size_t n;
	time_t now = time(NULL);
	memset(&qi, 0, sizeof(qi));
	qi.id = id;
	qi.flags = FLAG_RD;
	memcpy(qi.qname, iq->qname, iq->qname_len);
	qi.qname_len = iq->qname_len;
	qi.qtype = iq->qtype;
	qi.qclass = iq->qclass;
	/* the result as the iterator module hands it up (lists lent) */
	memset(&res, 0, sizeof(res));
	res.rcode = iq->rcode;
	res.answer = iq->answer;
	res.authority = iq->authority;
	res.additional = iq->additional;
	res.security = SEC_UNCHECKED;
	n = reply_encode(&res, &qi, buf, sizeof(buf), 0, 0, 0);
	if(n > 0 && n < LDNS_HEADER_SIZE) {
		fprintf(stderr, "encoded reply of %zu bytes\n", n);
		abort();
	}
	if(n && msg_cache_store(e->msg_cache, &qi, msg_cache_hash(
		e->msg_cache, &qi), buf, n, now)) {
		size_t m = msg_cache_answer(e->msg_cache, &qi,
			msg_cache_hash(e->msg_cache, &qi), now, again,
			sizeof(again), 0);
		if(m == 0) {
			fprintf(stderr, "stored reply not found again\n");
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	uint8_t name[LDNS_MAX_DOMAINLEN + 1], sent[LDNS_MAX_DOMAINLEN + 1];
	uint8_t query[LDNS_HEADER_SIZE + LDNS_MAX_DOMAINLEN + 1 + 4];
	size_t namelen, sentlen, qlen;
	uint16_t qtype, qclass, id;
	const uint8_t* r, *zone;
	struct iter_env* e;
	struct iter_qstate iq;
	struct delegpt* dp;
	struct sockaddr_storage a;
	struct sockaddr_in* a4 = (struct sockaddr_in*)&a;
	struct outnet_reply rep;
	unsigned bits;
	if(!msgs)
		setup();
	if(size < 1 + LDNS_HEADER_SIZE)
		return 0;
	bits = data[0];
	r = data + 1;
	size--;
	e = (bits & 0x10) ? &env_b : &env_a;
	question(r, size, name, &namelen, &qtype, &qclass);
	/* the name asked, and the query that was sent for it */
	sentlen = namelen;
	memcpy(sent, name, namelen);
	if((bits & 0x08) && namelen + 2 <= LDNS_MAX_DOMAINLEN) {
		/* minimised: the state's name is one label longer */
		name[0] = 1;
		name[1] = 'x';
		memcpy(name + 2, sent, sentlen);
		namelen = sentlen + 2;
	}
	id = (uint16_t)(r[0] << 8 | r[1]);
	if(bits & 0x20)
		id++;
	query[0] = (uint8_t)(id >> 8);
	query[1] = (uint8_t)id;
	memset(query + 2, 0, LDNS_HEADER_SIZE - 2);
	query[5] = 1;
	memcpy(query + LDNS_HEADER_SIZE, sent, sentlen);
	qlen = LDNS_HEADER_SIZE + sentlen;
	query[qlen++] = (uint8_t)((bits & 0x08 ? TYPE_A : qtype) >> 8);
	query[qlen++] = (uint8_t)(bits & 0x08 ? TYPE_A : qtype);
	query[qlen++] = (uint8_t)(qclass >> 8);
	query[qlen++] = (uint8_t)qclass;
	if(outnet_reply_matches(query, sentlen, r, size) != 1)
		return 0;   /* not ours: the query keeps waiting */

	if(!iter_qstate_init(&iq, NULL, name, qtype, qclass, 0, 0, NULL))
		abort();
	zone = strip_labels(sent, 1 + (int)(bits & 3));
	if(!(dp = delegpt_create(zone)))
		abort();
	memset(&a, 0, sizeof(a));
	a4->sin_family = AF_INET;
	a4->sin_port = htons(53);
	a4->sin_addr.s_addr = htonl(0xc0000235);   /* 192.0.2.53 */
	(void)delegpt_add_addr(dp, &a, sizeof(*a4));
	iter_qstate_preset_dp(&iq, dp);   /* a copy */
	delegpt_delete(dp);
	iq.dp_forward = (bits & 0x04) != 0;
	iq.sent_to = iq.dp->addrs;
	iq.state = ITER_TARGETS;
	if(bits & 0x08) {
		iq.ask = iq.sname + 2;
		iq.asklen = sentlen;
		iq.asktype = TYPE_A;
	} else {
		iq.ask = iq.sname;
		iq.asklen = iq.snamelen;
		iq.asktype = qtype;
	}

	memset(&rep, 0, sizeof(rep));
	rep.result = OUTNET_REPLY;
	rep.pkt = r;
	rep.len = size;
	rep.was_edns = 1;
	iter_handle_reply(e, &iq, &rep);
	if(iq.state == ITER_DONE)
		finish(e, &iq, id);
	read_back(e, &iq);
	iter_qstate_clear(&iq);
	return 0;
}
