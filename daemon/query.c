/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/query.c - compat: unbound-1.17: the steps every query goes through,
 * in Unbound's order: access control, sanity checks, CHAOS, local zones, the
 * non-local access checks, the message cache (the fast path), and on a miss
 * the worker's mesh (recursion through the modules). */
#include "config.h"
#include "dnstap/dnstap.h"
#include "daemon/query.h"
#include "daemon/daemon.h"
#include "daemon/worker.h"
#include "daemon/acl_list.h"
#include "daemon/query_cookie.h"
#include "services/authzone.h"
#include "services/xfr_source.h"
#include "services/localzone.h"
#include "services/chaos.h"
#include "services/tcp_conn.h"
#include "services/modstack.h"
#include "services/reply_chase.h"
#include "services/cache/msgcache.h"
#include "services/cache/rrset.h"
#include "services/cache/infra.h"
#include "services/cache/rate_ip.h"
#include "services/doh.h"
#include "services/tcp_conn.h"
#include "validator/val_anchor.h"
#include "util/random.h"
#include "util/config_file.h"
#include "util/msgparse.h"
#include "util/dname.h"
#include "util/msgencode.h"
#include "util/net_help.h"
#include "util/log.h"
#include <ldns/ldns.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <string.h>

/* compat: unbound-1.17: Cold path: "127.0.0.1 www.example.com. A IN" as
 * Unbound logs it; log-tag-queryreply: tagged "query:" and "reply:"
 * instead of "info:". */
/* compat: unbound-1.26: log-destaddr: " on udp 127.0.0.1 53", the
 * address and port the query came to and how (udp, tcp, dot, doh). A
 * getsockname here: this is the cold logging path. */
static void dest_text(const struct client_info* ci, char* buf, size_t len)
{
	struct sockaddr_storage a;
	socklen_t alen = sizeof(a);
	char ip[64];
	const char* how = "udp";
	int fd = ci->udp_fd, tls = 0;
	if(ci->doh) {
		how = "doh";
		fd = doh_handle_fd(ci->doh);
	} else if(ci->tcp) {
		fd = tcp_handle_fd(ci->tcp, &tls);
		how = tls ? "dot" : "tcp";
	}
	if(fd < 0 || getsockname(fd, (struct sockaddr*)&a, &alen) != 0) {
		buf[0] = 0;
		return;
	}
	addr_to_str(&a, alen, ip, sizeof(ip));
	snprintf(buf, len, " on %s %s %d", how, ip, addr_port(&a));
}

static void log_query_line(const struct config_file* cfg,
	const struct query_info* qi, const struct sockaddr_storage* addr,
	socklen_t addrlen)
{
	char ip[64], name[1024], *t, *c;
	const char* tag = !cfg->log_tag_queryreply ? "info" : "query";
	addr_to_str(addr, addrlen, ip, sizeof(ip));
	if(qi->qname_len)
		dname_to_str(qi->qname, name, sizeof(name));
	else	snprintf(name, sizeof(name), "<none>");
	t = ldns_rr_type2str((ldns_rr_type)qi->qtype);
	c = ldns_rr_class2str((ldns_rr_class)qi->qclass);
	log_tagged(tag, "%s %s %s %s", ip, name, t ? t : "?", c ? c : "?");
	free(t);
	free(c);
}

void query_log_reply(const struct config_file* cfg,
	const struct client_info* ci, const uint8_t* reply, size_t len,
	long long usec, int cached)
{
	char ip[64], name[1024] = "null", dest[128], *t, *c;
	const char* tag = !cfg->log_tag_queryreply ? "info" : "reply";
	ldns_lookup_table* rc;
	uint16_t qtype = 0, qclass = 0;
	if(len < LDNS_HEADER_SIZE)
		return;
	rc = ldns_lookup_by_id(ldns_rcodes, reply[3] & 0xf);
	addr_to_str(ci->addr, ci->addrlen, ip, sizeof(ip));
	dest[0] = 0;
	if(cfg->log_destaddr)
		dest_text(ci, dest, sizeof(dest));
	if((reply[3] & 0xf) == RCODE_FORMERR) {
		/* compat: unbound-1.17: a FORMERR line has no question */
		log_tagged(tag, "%s - - - %s - - -%s", ip, rc ? rc->name :
			"FORMERR", dest);
		return;
	}
	if(reply[4] != 0 || reply[5] != 0) {
		/* the question as the reply carries it */
		uint8_t qn[256];
		size_t pos = LDNS_HEADER_SIZE;
		if(dname_read_wire(reply, len, &pos, qn) && pos + 4 <= len) {
			dname_to_str(qn, name, sizeof(name));
			qtype = (uint16_t)(reply[pos] << 8 | reply[pos + 1]);
			qclass = (uint16_t)(reply[pos + 2] << 8 |
				reply[pos + 3]);
		}
	}
	t = ldns_rr_type2str((ldns_rr_type)qtype);
	c = ldns_rr_class2str((ldns_rr_class)qclass);
	/* compat: unbound-1.17: "... NOERROR 0.000123 0 45": the time the
	 * query took (answered from the worker: 0), whether the worker
	 * answered it (cache, local data: 1) and the reply's length */
	log_tagged(tag, "%s %s %s %s %s %lld.%6.6d %d %d%s", ip, name,
		t ? t : "?", c ? c : "?", rc ? rc->name : "?",
		usec / 1000000, (int)(usec % 1000000), cached, (int)len,
		dest);
	free(t);
	free(c);
}

/* compat: unbound-1.17: The client's EDNS size as Unbound's worker takes it:
 * under 512 it means 512 with harden-short-bufsize (the default), else it is
 * honoured; over max-udp-size it is cut to that (UDP only). */
static size_t edns_limit(const struct config_file* cfg,
	const struct query_info* qi, int is_tcp)
{
	size_t lim = qi->edns_udp_size;
	if(lim < 512 && cfg->harden_short_bufsize)
		lim = 512;
	if(!is_tcp && lim > cfg->max_udp_size)
		lim = cfg->max_udp_size < 512 ? 512 : cfg->max_udp_size;
	return lim;
}

/* compat: unbound-1.17: The largest reply the client accepts, as Unbound
 * computes it. Over TCP (TLS, HTTPS) that is msg-buffer-size, the size of
 * Unbound's buffer for a connection's message: a longer answer is cut as
 * a UDP answer is (TC set, the records that do not fit left out). */
static size_t reply_limit(const struct config_file* cfg,
	const struct query_info* qi, int is_tcp, size_t outcap)
{
	size_t lim;
	if(is_tcp)
		lim = cfg->msg_buffer_size < 65535 ? cfg->msg_buffer_size :
			65535;
	else if(!qi->has_edns)
		lim = 512;
	else
		lim = edns_limit(cfg, qi, is_tcp);
	return lim > outcap ? outcap : lim;
}

/* compat: unbound-1.17: Cold path: an EDNS size under the header's 12 bytes
 * (only with harden-short-bufsize: no). Unbound answers the query's own header
 * with QR, TC and SERVFAIL and no records. */
static size_t too_small_reply(const struct query_info* qi, uint8_t* out)
{
	memcpy(out, qi->pkt, LDNS_HEADER_SIZE);
	out[2] |= (uint8_t)((FLAG_QR | FLAG_TC) >> 8);
	out[3] = (uint8_t)((out[3] & 0xf0) | RCODE_SERVFAIL);
	memset(out + 4, 0, 8);
	return LDNS_HEADER_SIZE;
}

static int qtype_is_meta(uint16_t t)
{
	/* OPT, TSIG, TKEY, MAILA/MAILB and the meta range: FORMERR */
	return t == TYPE_OPT || t == 250 || t == 249 || t == TYPE_MAILA ||
		t == TYPE_MAILB || (t >= 128 && t <= 248);
}

/* Cold path: serve-expired-client-timeout (RFC 8767). The cache has an
 * expired answer (in out, stale bytes): resolve first, and answer with
 * it only when resolution takes longer than the timeout or fails. */
/* compat: unbound-1.17: ede-serve-expired (with ede): an expired answer
 * carries EDE 3, "Stale Answer" (RFC 8914), in its OPT record when the
 * query had one; returns the reply's length. */
size_t query_stale_ede(const struct config_file* cfg, uint8_t* out,
	size_t n, size_t limit)
{
	if(cfg->ede && cfg->ede_serve_expired)
		return msg_add_ede(out, n, limit, EDE_STALE_ANSWER);
	return n;
}

/* The result for a reply of n bytes (0: none, the query is dropped). */
static inline struct query_result reply_of(size_t n)
{
	struct query_result r = { n, n > 0 ? QUERY_REPLY : QUERY_DROP };
	return r;
}

static inline struct query_result deferred(void)
{
	struct query_result r = { 0, QUERY_DEFERRED };
	return r;
}

/* Cold: out holds a reply a filter ended with a CNAME to chase (n
 * bytes, mode chase): the client waits for its target (worker_chase). */
static __attribute__((noinline)) struct query_result chased(
	struct worker* w, const struct query_info* qi, size_t limit,
	uint16_t edns_size, const struct client_info* ci, uint8_t* out,
	size_t n, int chase)
{
	size_t len = 0;
	switch(worker_chase(w, qi, limit, edns_size, ci, out, n, chase,
		&len)) {
	case RESOLVE_DEFERRED:
		return deferred();
	case RESOLVE_ANSWERED:
		return reply_of(len);
	case RESOLVE_FAILED:
	case RESOLVE_MESH_FULL:
	case RESOLVE_WAIT_LIMITED:
		break;
	}
	return reply_of(0);
}

/* Cold, out of line (the hit path stays small enough for LTO to
 * inline the cache lookup): the module stack's answer before the cache
 * (RPZ QNAME and client-ip triggers); 1 with *r when answered. */
static __attribute__((noinline)) int policy_answer(struct worker* w,
	const struct query_info* qi, const struct acl_policy* pol,
	const struct client_info* ci, uint8_t* out, size_t limit,
	uint16_t edns_size, struct query_result* r)
{
	int chase = 0;
	size_t n = 0;
	if(!worker_answer_query(w, ci->addr, ci->addrlen, pol,
		ci->is_tcp || ci->doh, qi, out, limit, edns_size, &n, &chase))
		return 0;
	*r = chase && n > 0 ? chased(w, qi, limit, edns_size, ci, out, n,
		chase) : reply_of(n);
	return 1;
}

/* Cold, out of line as policy_answer: the reply filters on a cache hit
 * (*n bytes in out, its new length back); 1 with *r when that ends the
 * query here (dropped, or a CNAME to chase), 0: send the hit on. */
static __attribute__((noinline)) int policy_hit(struct worker* w,
	const struct query_info* qi, const struct acl_policy* pol,
	const struct client_info* ci, uint8_t* out, size_t* n, size_t limit,
	uint16_t edns_size, struct query_result* r)
{
	int chase = 0;
	*n = worker_filter_reply(w, ci->addr, ci->addrlen, pol,
		ci->is_tcp || ci->doh, out, *n, limit, &chase);
	if(*n == 0) {
		/* compat: unbound-1.17: respip deny: no reply */
		w->stats.num_cachehits++;
		*r = reply_of(0);
		return 1;
	}
	if(chase) {
		w->stats.num_cachehits++;
		*r = chased(w, qi, limit, edns_size, ci, out, *n, chase);
		return 1;
	}
	return 0;
}

#define QUERY_STALE_CHECK_MS 1800

static __attribute__((noinline)) struct query_result resolve_or_stale(
	struct worker* w, const struct query_info* qi,
	const struct acl_policy* pol, size_t limit, uint16_t edns_size,
	const struct client_info* ci, uint8_t* out, size_t outcap,
	size_t stale)
{
	size_t n;
	w->stats.num_cachemiss++;
	/* compat: unbound-1.24: cachedb-check-when-serve-expired without
	 * a client timeout: the expired answer once the backend has none
	 * (at most RFC 8767's 1.8 s: a state joined past that lookup) */
	int ms = w->env->cfg->serve_expired_client_timeout;
	switch(worker_resolve(w, qi, limit, edns_size, ci, out, outcap,
		ms > 0 ? ms : -QUERY_STALE_CHECK_MS, &n)) {
	case RESOLVE_DEFERRED:
		return deferred();
	case RESOLVE_ANSWERED:
		return reply_of(n);
	case RESOLVE_FAILED:
	case RESOLVE_MESH_FULL:
	case RESOLVE_WAIT_LIMITED:
		break;
	}
	/* the mesh cannot take it: out still holds the stale reply */
	if(__builtin_expect(w->daemon->modules.query_before_cache, 0)) {
		/* compat: unbound-1.25.2: it passes the reply filters
		 * (respip) as every answer; a CNAME they put in gets its
		 * target from the cache, expired too, as from the stale
		 * timer; without it cached, the query is dropped, as
		 * Unbound drops a query its mesh cannot take */
		int chase;
		stale = worker_filter_reply(w, ci->addr, ci->addrlen, pol,
			ci->is_tcp || ci->doh, out, stale, limit, &chase);
		if(stale > 0 && chase)
			stale = worker_stale_join(w, ci->addr, ci->addrlen,
				pol, ci->is_tcp || ci->doh, qi, edns_size, out,
				stale, limit, chase);
		if(stale == 0)
			return reply_of(0);
	}
	w->stats.num_expired++;
	return reply_of(query_stale_ede(w->env->cfg, out, stale, limit));
}

/* compat: unbound-1.17: A query access-control turned away (unwanted.queries),
 * counted as Unbound counts it: with extended-statistics only. */
static void note_unwanted(struct worker_stats* st,
	const struct config_file* cfg)
{
	if(cfg->stat_extended)
		st->unwanted_queries++;
}

/* compat: unbound-1.17: A NOTIFY: NOERROR for a zone with primaries from
 * one of its allow-notify addresses or primaries (a SOA check starts),
 * REFUSED otherwise; opcode NOTIFY, QR and RA, as Unbound's worker. */
static int answer_notify(struct worker* w, const struct query_info* qi,
	const struct client_info* ci, uint8_t* out, size_t outcap,
	uint16_t edns_size, size_t* n)
{
	struct xfr_engine* e = __atomic_load_n(&w->daemon->xfr,
		__ATOMIC_ACQUIRE);
	int rcode = RCODE_REFUSED;
	if(e && qi->qname_len && xfr_engine_notify(e, qi->qname, ci->addr,
		ci->addrlen) == XFR_NOTIFY_OK)
		rcode = RCODE_NOERROR;
	*n = msg_error_reply(out, outcap, qi, rcode, edns_size);
	if(*n >= 12)   /* opcode NOTIFY, AA clear */
		out[2] = (uint8_t)((out[2] & 0x83) | (4 << 3));
	return 1;
}

/* compat: unbound-1.17: The checks between parsing and answering, in Unbound's
 * order, for a query that is not plain (parse error, echo rcode) or when
 * queries are counted or logged. Returns 1 when that decides the query (*n:
 * the reply length, 0 to drop it), 0 to go on. */
static int __attribute__((noinline)) screen(struct worker* w,
	enum parse_result pr, const struct query_info* qi,
	const struct client_info* ci, uint8_t* out, size_t outcap, size_t* n)
{
	const struct config_file* cfg = w->env->cfg;
	uint16_t edns_size = (uint16_t)cfg->edns_buffer_size;
	int rcode = 0;
	*n = 0;
	if(pr == PARSE_DROP)
		return 1;
	/* compat: unbound-1.17: counted only when asked for, as Unbound */
	if(cfg->stat_extended)
		stats_note_query(&w->stats, qi, ci->addr);
	if(pr == PARSE_FORMERR)
		rcode = RCODE_FORMERR;
	else if(pr == PARSE_NOTIMPL)
		rcode = RCODE_NOTIMPL;
	else if(pr == PARSE_REFUSED)
		return answer_notify(w, qi, ci, out, outcap, edns_size, n);
	if(rcode) {
		*n = msg_error_reply(out, outcap, qi, rcode, edns_size);
		return 1;
	}
	if(cfg->log_queries)
		log_query_line(cfg, qi, ci->addr, ci->addrlen);
	/* query_parse marked AXFR/IXFR and meta types with an echo rcode */
	if(qi->echo_rcode && (qi->qtype == TYPE_AXFR ||
		qi->qtype == TYPE_IXFR))
		rcode = RCODE_REFUSED;
	else if(qi->echo_rcode && qtype_is_meta(qi->qtype))
		rcode = RCODE_FORMERR;
	else if(pr == PARSE_BADVERS)
		rcode = RCODE_BADVERS;
	if(rcode) {
		*n = msg_error_reply(out, outcap, qi, rcode, edns_size);
		return 1;
	}
	return 0;
}

/* compat: unbound-1.17: ip-ratelimit, as Unbound's worker checks it: every
 * query of an address counts (before the cache, so hits too); over the
 * limit it is dropped, except 1 in ip-ratelimit-factor let through.
 * compat: unbound-1.18: ip-ratelimit-cookie: with a valid server cookie
 * (has_cookie) that limit applies instead, to the same count (0: none),
 * and the factor lets none through. Returns 1 to drop. Called only with
 * ip-ratelimit set: off, the query path pays one branch on the config. */
static int __attribute__((noinline)) ip_rate_drop(struct worker* w,
	const uint8_t* pkt, size_t len, const struct client_info* ci,
	int has_cookie)
{
	const struct config_file* cfg = w->env->cfg;
	struct rate_ip_table* t = w->env->ip_rates;
	int limit = has_cookie ? cfg->ip_ratelimit_cookie : cfg->ip_ratelimit;
	const char* tag = has_cookie ? "(cookie)" : "";
	int crossed;
	if(!t || rate_ip_inc(t, ci->addr, ci->addrlen, w->now,
		cfg->ip_ratelimit_backoff, limit ? (uint32_t)limit : UINT32_MAX,
		&crossed))
		return 0;
	if(crossed && verbosity >= VERB_OPS) {
		/* compat: unbound-1.17: Unbound's line, once as the rate
		 * goes over: "ip_ratelimit exceeded 127.0.0.1 100
		 * www.example.com. IN A" */
		char ip[64], q[1100];
		struct query_info qi;
		addr_to_str(ci->addr, ci->addrlen, ip, sizeof(ip));
		if(query_parse(pkt, len, &qi) != PARSE_DROP &&
			qi.qname_len) {
			char name[1024], *t2, *c;
			dname_to_str(qi.qname, name, sizeof(name));
			t2 = ldns_rr_type2str((ldns_rr_type)qi.qtype);
			c = ldns_rr_class2str((ldns_rr_class)qi.qclass);
			snprintf(q, sizeof(q), "%s %s %s", name, c ? c : "?",
				t2 ? t2 : "?");
			free(t2);
			free(c);
			verbose(VERB_OPS, "ip_ratelimit exceeded %s %d%s %s",
				ip, limit, tag, q);
		} else
			verbose(VERB_OPS, "ip_ratelimit exceeded %s %d%s (no "
				"query name)", ip, limit, tag);
	}
	if(!has_cookie && cfg->ip_ratelimit_factor != 0 && w->menv.rnd &&
		ub_random_max(w->menv.rnd, (uint32_t)cfg->ip_ratelimit_factor)
		== 0) {
		log_addr(VERB_QUERY, "ip_ratelimit allowed through for ip "
			"address (ip_ratelimit_factor)", ci->addr, ci->addrlen);
		return 0;
	}
	w->stats.num_ip_ratelimited++;
	return 1;
}

/* compat: unbound-1.18: disable-edns-do is in effect unless a validator
 * has a trust anchor (as the iterator decides, iter_module.c). */
static int __attribute__((noinline)) edns_do_off(const struct worker* w)
{
	return !(w->daemon->modules.validates &&
		val_anchors_any_keys(w->env->anchors));
}

/* compat: unbound-1.18: with answer-cookie on, a query with additional
 * records is counted for ip-ratelimit after its cookie is read (its
 * limit depends on it), others before the parse, as Unbound. */
static inline int ip_rate_after_cookie(const struct config_file* cfg,
	const uint8_t* pkt, size_t len)
{
	return cfg->do_answer_cookie && len >= LDNS_HEADER_SIZE &&
		(pkt[10] | pkt[11]) != 0;
}

/* compat: unbound-1.17: nsid: (RFC 5001) answered to a query with the
 * NSID option; edns-tcp-keepalive: (RFC 7828) to a TCP, TLS or HTTPS query with
 * the keepalive option, which must be empty (else FORMERR, returned 0).
 * Unlike Unbound, a later query on the same connection without the option
 * gets none (doc/compat.md). Sets ck (opts, room, add) and qi->reply_opts. */
static int other_options(struct worker* w, const uint8_t* pkt, size_t len,
	struct query_info* qi, const struct client_info* ci,
	struct query_cookie* ck)
{
	const uint8_t* data;
	if(w->env->nsid_opt_len > 0 &&
		edns_get_option(pkt, len, EDNS_OPT_NSID, &data) >= 0) {
		ck->opts |= QUERY_OPT_NSID;
		ck->room += (size_t)w->env->nsid_opt_len;
	}
	/* compat: unbound-1.17: over DNS over HTTPS too (Unbound leaves
	 * only UDP out; the timeout is the same) */
	if(w->env->cfg->do_tcp_keepalive && (ci->tcp || ci->doh)) {
		int l = edns_get_option(pkt, len, EDNS_OPT_KEEPALIVE, &data);
		if(l > 0)
			return 0;
		if(l == 0) {
			ck->opts |= QUERY_OPT_KEEPALIVE;
			ck->room += EDNS_KEEPALIVE_LEN;
		}
	}
	qi->reply_opts = ck->opts;
	ck->add = ck->opts != 0;
	return 1;
}

/* The keepalive option: its timeout in units of 100 ms (RFC 7828). */
static void keepalive_opt(const struct config_file* cfg, uint8_t* o)
{
	int t = cfg->tcp_keepalive_timeout / 100;
	if(t > 0xffff)
		t = 0xffff;
	o[0] = 0;
	o[1] = EDNS_OPT_KEEPALIVE;
	o[2] = 0;
	o[3] = 2;
	o[4] = (uint8_t)(t >> 8);
	o[5] = (uint8_t)t;
}

size_t query_reply_options(const struct serve_env* env, uint8_t* msg,
	size_t len, size_t cap, const uint8_t* cookie, int opts)
{
	if(cookie) {
		struct query_cookie ck;
		ck.opt = cookie;
		len = query_cookie_add(msg, len, cap, &ck);
	}
	if((opts & QUERY_OPT_NSID) && env->nsid_opt_len > 0)
		len = edns_add_option(msg, len, cap, env->nsid_opt,
			(size_t)env->nsid_opt_len);
	if(opts & QUERY_OPT_KEEPALIVE) {
		uint8_t o[EDNS_KEEPALIVE_LEN];
		keepalive_opt(env->cfg, o);
		len = edns_add_option(msg, len, cap, o, sizeof(o));
	}
	return len;
}

/* compat: unbound-1.21: DNS cookies (answer-cookie: yes, or access-control
 * allow_cookie), between the EDNS checks and CHAOS as in Unbound: a malformed
 * cookie option is FORMERR; allow_cookie over UDP without a valid server
 * cookie: BADCOOKIE (with a fresh cookie) when the query has a cookie, else
 * REFUSED with TC and an EDE (code 0, "DNS Cookie needed for UDP replies").
 * Returns 1 when that decides the query (*n: the reply), 0 to go on (ck:
 * what the reply carries). */
static int __attribute__((noinline)) cookie_screen(struct worker* w,
	const uint8_t* pkt, size_t len, struct query_info* qi,
	const struct client_info* ci, enum acl_access acl,
	struct query_cookie* ck, uint8_t* out, size_t outcap, size_t* n)
{
	const struct config_file* cfg = w->env->cfg;
	uint16_t edns_size = (uint16_t)cfg->edns_buffer_size;
	ck->add = ck->present = ck->valid = ck->client_only = 0;
	ck->has_cookie = ck->opts = 0;
	ck->room = 0;
	qi->cookie = NULL;
	qi->cookie_valid = 0;
	qi->reply_opts = 0;
	if(qi->has_edns && (w->env->nsid_opt_len > 0 ||
		cfg->do_tcp_keepalive) && !other_options(w, pkt, len, qi, ci,
		ck)) {
		verbose(VERB_ALGO, "query with bad edns keepalive.");
		*n = msg_error_reply(out, outcap, qi, RCODE_FORMERR,
			edns_size);
		return 1;
	}
	if(cfg->do_answer_cookie && qi->has_edns) {
		if(query_cookie_read(w->cookie_memo, &w->env->cookies, qi,
			ci->addr, (uint32_t)w->now, ck) ==
			QUERY_COOKIE_FORMERR) {
			verbose(VERB_ALGO, "worker request: badly formatted "
				"cookie");
			*n = msg_error_reply(out, outcap, qi, RCODE_FORMERR,
				edns_size);
			return 1;
		}
		if(ck->add) {
			qi->cookie = ck->opt;
			ck->has_cookie = 1;
			ck->room += COOKIE_OPT_LEN;
		}
		qi->cookie_valid = ck->valid;
		if(ck->present) {
			if(ck->valid)
				w->stats.num_cookie_valid++;
			else if(ck->client_only)
				w->stats.num_cookie_client++;
			else	w->stats.num_cookie_invalid++;
		}
	}
	/* before allow_cookie's refusal, as Unbound: a drop */
	if(cfg->ip_ratelimit != 0 && ip_rate_after_cookie(cfg, pkt, len) &&
		ip_rate_drop(w, pkt, len, ci, ck->valid)) {
		*n = 0;
		return 1;
	}
	if(acl != acl_allow_cookie || ck->valid || ci->is_tcp)
		return 0;
	if(ck->present) {
		/* the fresh cookie goes in; query_answer adds it */
		*n = msg_error_reply(out, outcap > COOKIE_OPT_LEN ?
			outcap - COOKIE_OPT_LEN : 0, qi, RCODE_BADCOOKIE,
			edns_size);
		return 1;
	}
	verbose(VERB_ALGO, "worker request: need cookie or stateful "
		"transport");
	*n = msg_error_reply_ede(out, outcap, qi, RCODE_REFUSED, edns_size,
		EDE_OTHER, "DNS Cookie needed for UDP replies");
	if(*n >= LDNS_HEADER_SIZE)
		out[2] |= (uint8_t)(FLAG_TC >> 8);
	return 1;
}

/* compat: unbound-1.17: a client that no access-control netblock holds
 * gets the entry of the address it asked (interface-*). Cold: only on
 * the refuse branch, with interface lines; one getsockname. DNS over
 * HTTPS has no socket here: refused as before. */
int query_local_addr(const struct client_info* ci,
	struct sockaddr_storage* local, socklen_t* len)
{
	int is_tls;
	int fd = ci->is_tcp ? (ci->tcp ? tcp_handle_fd(ci->tcp, &is_tls) : -1) :
		ci->udp_fd;
	*len = sizeof(*local);
	return fd >= 0 && getsockname(fd, (struct sockaddr*)local, len) == 0;
}

static struct acl_match __attribute__((noinline))
interface_match(const struct serve_env* env, const struct client_info* ci,
	struct acl_match am)
{
	struct sockaddr_storage local;
	socklen_t len;
	if(!query_local_addr(ci, &local, &len))
		return am;
	return acl_list_interface(env->acl, &local, len);
}

/* A question no local zone answered: the auth zones for clients, then
 * the access rules for names not answered locally, RD, and the class.
 * 1 with *r when they end the query. Inlined into answer (the hit path)
 * and local_alias. */
static inline __attribute__((always_inline)) int not_local(struct worker* w,
	enum acl_access acl, struct query_info* qi, uint8_t* out,
	size_t outcap, size_t limit, uint16_t edns_size,
	struct query_result* r)
{
	const struct serve_env* env = w->env;
	const struct config_file* cfg = env->cfg;
	struct worker_stats* st = &w->stats;
	size_t n;
	if(__builtin_expect(env->auth != NULL, 0) &&
		auth_zones_answer(env->auth, qi, cfg->minimal_responses, out,
		limit, edns_size, &n) ==
		AUTH_ANSWERED) {
		/* compat: unbound-1.17: RA for whoever may recurse */
		if((qi->flags & FLAG_RD) && acl != acl_deny_non_local &&
			acl != acl_refuse_non_local && n >= LDNS_HEADER_SIZE)
			out[3] |= (uint8_t)FLAG_RA;
		st->num_auth_down++;
		*r = reply_of(n);
		return 1;
	}
	/* Not answered locally: the non-local access rules apply now. */
	if(acl == acl_deny_non_local) {
		note_unwanted(st, cfg);
		*r = reply_of(0);
		return 1;
	}
	if(acl == acl_refuse_non_local) {
		/* compat: unbound-1.17: its deny_refuse reply, as for
		 * refuse */
		note_unwanted(st, cfg);
		*r = reply_of(msg_refuse_reply_ede(out, outcap, qi, edns_size,
			cfg->ede ? EDE_PROHIBITED : -1));
		return 1;
	}
	if(!(qi->flags & FLAG_RD)) {
		if(acl == acl_allow_setrd)
			qi->flags |= FLAG_RD;
		else if(acl != acl_allow_snoop) {
			/* compat: unbound-1.17: ede: yes: "Not Authoritative"
			 * (20), as Unbound */
			*r = reply_of(msg_error_reply_ede(out, outcap, qi,
				RCODE_REFUSED, edns_size, cfg->ede ?
				EDE_NOT_AUTHORITATIVE : -1, NULL));
			return 1;
		}
	}
	/* compat: unbound-1.17: Only class IN has root hints: Unbound's
	 * iterator refuses others. */
	if(qi->qclass != CLASS_IN) {
		*r = reply_of(msg_error_reply(out, outcap, qi, RCODE_REFUSED,
			edns_size));
		return 1;
	}
	return 0;
}

/* Cold, out of line: a local alias (LZ_ALIAS), the CNAME's reply in out
 * (n bytes). compat: unbound-1.17: the query goes on as one that no
 * local zone answered (worker_handle_request with qinfo.local_alias):
 * not_local's rules, then the RPZ triggers of the question's own name;
 * then the CNAME's target is resolved, from the message cache or by
 * recursion, and its reply joined after the CNAME (worker_chase,
 * REPLY_CHASE_ALIAS). The target's own local zones are not looked at,
 * as Unbound's iterator does not: a chain of aliases cannot loop. */
static __attribute__((cold, noinline)) struct query_result local_alias(
	struct worker* w, struct query_info* qi, struct acl_match am,
	const struct client_info* ci, uint8_t* out, size_t outcap,
	size_t limit, uint16_t edns_size, size_t n)
{
	static _Thread_local uint8_t base[65535];
	struct query_result r;
	if(n == 0 || n > sizeof(base))
		return reply_of(n);
	/* the checks may write into out */
	memcpy(base, out, n);
	if(not_local(w, am.action, qi, out, outcap, limit, edns_size, &r))
		return r;
	if(__builtin_expect(w->daemon->modules.query_before_cache, 0) &&
		policy_answer(w, qi, am.policy, ci, out, limit, edns_size, &r))
		return r;
	memcpy(out, base, n);
	return chased(w, qi, limit, edns_size, ci, out, n, REPLY_CHASE_ALIAS);
}

/* Out of line: what local zones answered (lzr, not LZ_NO_ANSWER), the
 * reply (n bytes) in out. */
static __attribute__((cold, noinline)) struct query_result local_answer(
	struct worker* w, enum localzone_result lzr, struct query_info* qi,
	struct acl_match am, const struct client_info* ci, uint8_t* out,
	size_t outcap, size_t limit, uint16_t edns_size, size_t n)
{
	switch(lzr) {
	case LZ_ANSWERED:
		w->stats.num_local++;
		return reply_of(n);
	case LZ_ALIAS:
		return local_alias(w, qi, am, ci, out, outcap, limit,
			edns_size, n);
	case LZ_DROP:
	case LZ_NO_ANSWER:
		break;
	}
	return reply_of(0);
}

/* always inlined into answer_plain, its one caller: out of line it costs
 * about 30 instructions a cache hit, and the inliner's choice turned on
 * the size of answer_plain's cold branches */
static inline __attribute__((always_inline)) struct query_result answer(
	struct worker* w, const uint8_t* pkt, size_t len,
	const struct client_info* ci, uint8_t* out, size_t outcap,
	struct query_cookie* ck)
{
	const struct serve_env* env = w->env;
	struct worker_stats* st = &w->stats;
	const struct sockaddr_storage* addr = ci->addr;
	socklen_t addrlen = ci->addrlen;
	int is_tcp = ci->is_tcp;
	const struct config_file* cfg = env->cfg;
	uint16_t edns_size = (uint16_t)cfg->edns_buffer_size;
	struct query_info qi;
	struct msg_qkey qk;
	int have_qk = 0;
	enum parse_result pr;
	enum acl_access acl;
	enum localzone_result lzr;
	struct query_result lr;
	size_t n, limit;
	/* view and tags come with the access-control match (NULL: none) */
	struct acl_match am = acl_list_match(env->acl, addr, addrlen);

	acl = am.action;
	if(acl == acl_deny) {
		log_addr(VERB_ALGO, "dropped query from denied", addr, addrlen);
		note_unwanted(st, cfg);
		return reply_of(0);
	}
	if(acl == acl_refuse && acl_list_unheld(env->acl, am)) {
		/* no netblock holds the client: its interface decides */
		am = interface_match(env, ci, am);
		acl = am.action;
		if(acl == acl_deny) {
			log_addr(VERB_ALGO, "dropped query from denied", addr,
				addrlen);
			note_unwanted(st, cfg);
			return reply_of(0);
		}
	}
	if(acl == acl_refuse) {
		/* compat: unbound-1.17: as Unbound: not a query in the
		 * statistics, only unwanted */
		log_addr(VERB_ALGO, "refused query from", addr, addrlen);
		note_unwanted(st, cfg);
		if(query_parse(pkt, len, &qi) == PARSE_DROP)
			return reply_of(0);
		/* ede: yes: "Prohibited" (18) when the client has EDNS */
		return reply_of(msg_refuse_reply_ede(out, outcap, &qi, edns_size,
			cfg->ede ? EDE_PROHIBITED : -1));
	}
	st->num_queries++;
	if(is_tcp)
		st->num_tcp++;
	if(len > 512 && cfg->harden_large_queries) {
		/* compat: unbound-1.17: as Unbound: a query over 512 bytes is
		 * dropped */
		verbose(VERB_QUERY, "request too large, discarded");
		return reply_of(0);
	}
	if(__builtin_expect(cfg->ip_ratelimit != 0, 0) &&
		!ip_rate_after_cookie(cfg, pkt, len) &&
		ip_rate_drop(w, pkt, len, ci, 0))
		return reply_of(0);
	pr = query_parse(pkt, len, &qi);
	/* a plain query with nothing to count or log skips screen() */
	if(pr != PARSE_OK || qi.echo_rcode || cfg->stat_extended ||
		cfg->log_queries) {
		if(screen(w, pr, &qi, ci, out, outcap, &n))
			return reply_of(n);
	}
	/* the cache key now: its bucket loads while the checks below run */
	if(w->daemon->msg_cache && qi.qclass == CLASS_IN)
		have_qk = msg_cache_qkey(w->daemon->msg_cache, &qi, &qk);

	if(__builtin_expect(env->reply_options || acl == acl_allow_cookie,
		0) && cookie_screen(w, pkt, len, &qi, ci, acl, ck, out,
		outcap, &n))
		return reply_of(n);

	if(qi.has_edns && qi.edns_udp_size < LDNS_HEADER_SIZE &&
		edns_limit(cfg, &qi, is_tcp) < LDNS_HEADER_SIZE)
		return reply_of(too_small_reply(&qi, out));
	limit = reply_limit(cfg, &qi, is_tcp, outcap);
	/* room for the cookie and options the reply gets */
	if(__builtin_expect(ck->add, 0))
		limit = limit > LDNS_HEADER_SIZE + ck->room ?
			limit - ck->room : LDNS_HEADER_SIZE;
	if(qi.qclass == CLASS_CH &&
		chaos_answer(cfg, &qi, out, limit, edns_size, &n)) {
		st->num_local++;
		return reply_of(n);
	}
	if(__builtin_expect(am.policy != NULL, 0))
		lzr = local_zones_answer_client(env->lz, am.policy->view,
			am.policy->tags, am.policy->tag_changes, &qi, addr, addrlen, out, limit,
			edns_size, &n);
	else	lzr = local_zones_answer(env->lz, &qi, addr, addrlen, out,
			limit, edns_size, &n);
	/* one branch on the hit path: the local answers are out of line */
	if(__builtin_expect(lzr != LZ_NO_ANSWER, 0))
		return local_answer(w, lzr, &qi, am, ci, out, outcap, limit,
			edns_size, n);
	if(not_local(w, acl, &qi, out, outcap, limit, edns_size, &lr))
		return lr;
	/* a module that answers the question first (respip's RPZ
	 * triggers), or must see it before the cache (subnetcache with
	 * client-subnet-always-forward and an ECS option): one flag */
	if(__builtin_expect(w->daemon->modules.query_before_cache, 0)) {
		/* compat: unbound-1.17: an answer or drop from the module
		 * is no cache miss: num.cachehits (queries not missed)
		 * counts it, as Unbound's RPZ answers */
		struct query_result r;
		if(policy_answer(w, &qi, am.policy, ci, out, limit,
			edns_size, &r))
			return r;
		if(modstack_skips_cache(&w->daemon->modules, &qi))
			have_qk = 0;
	}
	if(__builtin_expect(cfg->disable_edns_do, 0) && qi.edns_do &&
		edns_do_off(w)) {
		/* compat: unbound-1.18: disable-edns-do: the answer to a DO
		 * query (cache or recursion) has no OPT record, telling the
		 * client there is no DNSSEC; its size limit stays */
		qi.has_edns = 0;
		qi.reply_opts = 0;
		ck->add = 0;
	}
	/* The fast path: a reply template from the shared message cache. */
	if(have_qk) {
		enum msg_hit hit = MSG_HIT_FRESH;
		uint8_t sec = SEC_UNCHECKED;
		n = msg_cache_answer_k(w->daemon->msg_cache, &qi, &qk, w->now,
			out, limit, edns_size, &env->serve_policy, &hit, &sec);
		if(n > 0 && hit == MSG_HIT_EXPIRED &&
			(cfg->serve_expired_client_timeout > 0 ||
			modstack_checks_before_stale(&w->daemon->modules, cfg)))
			return resolve_or_stale(w, &qi, am.policy, limit,
				edns_size, ci, out, outcap, n);
		if(__builtin_expect(w->daemon->modules.query_before_cache, 0)
			&& n > 0) {
			struct query_result r;
			if(policy_hit(w, &qi, am.policy, ci, out, &n, limit,
				edns_size, &r))
				return r;
		}
		if(n > 0) {
			st->num_cachehits++;
			/* compat: unbound-1.17: as Unbound's cache answer; a
			 * validating resolver's cache serves no bogus entry
			 * without CD (the mesh answers it, and counts
			 * num.answer.bogus) */
			st->ans_secure += (sec == SEC_SECURE);
			if(hit != MSG_HIT_FRESH) {
				/* compat: unbound-1.17: prefetch, or RFC 8767:
				 * stale now, fresh data soon; counted as
				 * Unbound does
				 */
				if(hit == MSG_HIT_EXPIRED) {
					st->num_expired++;
					n = query_stale_ede(cfg, out, n, limit);
				}
				st->num_prefetch++;
				worker_refresh_cached(w, &qi);
			}
			return reply_of(n);
		}
	}
	st->num_cachemiss++;
	/* the iterator looks for the name's RRsets first: that line loads
	 * while the mesh sets the query up */
	if(w->daemon->rrset_cache)
		rrset_cache_prefetch(w->daemon->rrset_cache, qi.qname,
			qi.qname_len, qi.qclass);
	switch(worker_resolve(w, &qi, limit, edns_size, ci, out, outcap, 0,
		&n)) {
	case RESOLVE_DEFERRED:
		return deferred();
	case RESOLVE_ANSWERED:
		return reply_of(n);
	case RESOLVE_MESH_FULL:
	case RESOLVE_WAIT_LIMITED:
		/* compat: unbound-1.17: num-queries-per-thread and nothing to
		 * jostle out, or wait-limit: dropped, as Unbound ("Too many
		 * queries. dropping") */
		return reply_of(0);
	case RESOLVE_FAILED:
		break;
	}
	return reply_of(msg_error_reply(out, outcap, &qi, RCODE_SERVFAIL,
		edns_size));
}

/* query_answer without dnstap (the cache-hit path). One copy, out of
 * line, with answer() inlined into it as before dnstap: query_answer
 * jumps here. A second inlined copy for answer_tapped made the inliner
 * take answer() out of line (about 30 instructions a cache hit). */
static __attribute__((noinline)) struct query_result answer_plain(
	struct worker* w, const uint8_t* pkt, size_t len,
	const struct client_info* ci, uint8_t* out, size_t outcap)
{
	struct query_cookie ck;
	struct query_result r;
	ck.add = 0;
	r = answer(w, pkt, len, ci, out, outcap, &ck);
	if(r.what == QUERY_REPLY) {
		if(__builtin_expect(ck.add, 0))
			r.len = ck.opts ? query_reply_options(w->env, out,
				r.len, outcap, ck.has_cookie ? ck.opt : NULL,
				ck.opts) : query_cookie_add(out, r.len, outcap,
				&ck);
		if(w->env->cfg->stat_extended)
			stats_note_reply(&w->stats, out, r.len);
		if(w->env->cfg->log_replies)
			query_log_reply(w->env->cfg, ci, out, r.len, 0, 1);
	} else if(r.what == QUERY_DROP)
		w->stats.num_dropped++;
	return r;
}

static enum dnstap_proto tap_proto(const struct client_info* ci)
{
	return ci->doh ? DNSTAP_DOH : ci->is_tcp ? DNSTAP_TCP : DNSTAP_UDP;
}

/* Cold: dnstap logs client messages; the query before it is answered,
 * the reply after (a deferred one when the mesh sends it). */
static __attribute__((noinline)) struct query_result answer_tapped(
	struct worker* w, const uint8_t* pkt, size_t len,
	const struct client_info* ci, uint8_t* out, size_t outcap)
{
	struct query_result r;
	dnstap_client_query(w->tap_client, ci->addr, ci->addrlen,
		tap_proto(ci), pkt, len);
	r = answer_plain(w, pkt, len, ci, out, outcap);
	if(r.what == QUERY_REPLY && r.len > 0)
		dnstap_client_response(w->tap_client, ci->addr, ci->addrlen,
			tap_proto(ci), out, r.len);
	return r;
}

struct query_result query_answer(struct worker* w, const uint8_t* pkt,
	size_t len, const struct client_info* ci, uint8_t* out, size_t outcap)
{
	/* the one branch dnstap costs when it is not configured */
	if(__builtin_expect(w->tap_client != NULL, 0))
		return answer_tapped(w, pkt, len, ci, out, outcap);
	return answer_plain(w, pkt, len, ci, out, outcap);
}
