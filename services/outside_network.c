/* SPDX-License-Identifier: BSD-3-Clause */
/* services/outside_network.c - upstream queries (see outside_network.h). */
#include "config.h"
#include <stddef.h>
#include "dnstap/dnstap.h"
#include "services/outnet_internal.h"
#include "services/port_pool.h"
#include "services/cache/infra.h"
#include "services/tls_client.h"
#include "util/config_file.h"
#include "util/log.h"
#include "util/msgparse.h"
#include "util/net_help.h"
#include "util/random.h"
#include "util/sys_nocancel.h"
#include <event2/event.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_BIND_TRIES 16   /* random ports tried when bind fails */
#define SPARE_QUERIES_MAX 512  /* freed queries kept for reuse */
#define UDP_READS_PER_WAKE 16 /* bound the work one flood can cause */
#define UDP_RESEND_MAX_RTO 5000 /* ms: udp_resend only below this rto */
#define UDP_BUF_SIZE 65535
#define TLS_SESSIONS_MAX 64 /* TLS sessions kept per worker */
#define WAIT_POLL_MS 10     /* retry waiting UDP queries (ports come
                             * back from other threads too) */
#define KUDP_IDLE_MAX 256   /* idle kernel-port sockets kept per worker */
#define KUDP_DRAIN_MAX 1024 /* datagrams read from a released one */
#if defined(__linux__) && !defined(IP_BIND_ADDRESS_NO_PORT)
#define IP_BIND_ADDRESS_NO_PORT 24   /* Linux 4.2+; older headers */
#endif

/* ---- do-not-query ---- */

struct donotq_entry {
	struct sockaddr_storage addr;
	socklen_t addrlen;
	int net;
};

struct donotq {
	int num;
	struct donotq_entry e[];
};

struct donotq* donotq_create(const struct config_strlist* addrs, int localhost)
{
	const struct config_strlist* p;
	struct donotq* dq;
	int n = localhost ? 2 : 0;
	for(p = addrs; p; p = p->next)
		n++;
	dq = calloc(1, sizeof(*dq) + (size_t)n * sizeof(struct donotq_entry));
	if(!dq) {
		log_err("do-not-query: out of memory");
		return NULL;
	}
	for(p = addrs; p; p = p->next) {
		struct donotq_entry* e = &dq->e[dq->num];
		if(!netblockstrtoaddr(p->str, 0, &e->addr, &e->addrlen,
			&e->net)) {
			log_err("cannot parse do-not-query-address: %s",
				p->str);
			free(dq);
			return NULL;
		}
		dq->num++;
	}
	if(localhost) {
		struct donotq_entry* e = &dq->e[dq->num++];
		netblockstrtoaddr("127.0.0.0/8", 0, &e->addr, &e->addrlen,
			&e->net);
		e = &dq->e[dq->num++];
		netblockstrtoaddr("::1", 0, &e->addr, &e->addrlen, &e->net);
	}
	return dq;
}

void donotq_delete(struct donotq* dq)
{
	free(dq);
}

int donotq_lookup(const struct donotq* dq,
	const struct sockaddr_storage* addr, socklen_t addrlen)
{
	int i;
	if(!dq)
		return 0;
	for(i = 0; i < dq->num; i++)
		if(addr_in_netblock(addr, addrlen, &dq->e[i].addr,
			dq->e[i].addrlen, dq->e[i].net))
			return 1;
	return 0;
}

/* ---- settings ---- */

int outnet_cfg_tcp_upstream(const struct config_file* cfg)
{
	/* compat: unbound-1.17: do-udp: no takes UDP from the upstream
	 * queries too, unless udp-upstream-without-downstream: yes */
	return cfg->tcp_upstream || (!cfg->do_udp &&
		!cfg->udp_upstream_without_downstream);
}

void outnet_settings_from_cfg(const struct config_file* cfg,
	struct outnet_settings* s)
{
	memset(s, 0, sizeof(*s));
	s->udp_connect = cfg->udp_connect;
	s->tcp_upstream = outnet_cfg_tcp_upstream(cfg);
	s->delay_close = cfg->delay_close > 0 ? cfg->delay_close : 0;
	s->num_tcp = cfg->outgoing_num_tcp;
	s->do_ip4 = cfg->do_ip4;
	s->do_ip6 = cfg->do_ip6;
	s->do_not_query_localhost = cfg->do_not_query_localhost;
	s->donotquery = cfg->donotqueryaddrs;
	s->out_ifs = cfg->out_ifs;
	s->edns_size = (uint16_t)(cfg->edns_buffer_size > 65535 ? 65535 :
		cfg->edns_buffer_size);
	s->tcp_timeout = cfg->tcp_auth_query_timeout;
	s->tcp_reuse_timeout = cfg->tcp_reuse_timeout;
	s->max_reuse_tcp = cfg->max_reuse_tcp_queries;
	s->max_waiting = cfg->num_queries_per_thread;
	s->tls_use_sni = cfg->tls_use_sni;
	s->pad_block = cfg->pad_queries ? cfg->pad_queries_block_size : 0;
	s->unwanted_threshold = cfg->unwanted_threshold;
	s->ip_dscp = cfg->ip_dscp;
	s->tcp_mss = cfg->outgoing_tcp_mss;
	if(cfg->do_nat64 && cfg->do_ip6) {
		/* checked by the parser; the default is dns64-prefix's */
		char err[128];
		s->nat64 = dns64_prefix_parse(cfg->nat64_prefix ?
			cfg->nat64_prefix : cfg->dns64_prefix ?
			cfg->dns64_prefix : DNS64_DEFAULT_PREFIX,
			&s->nat64_prefix, err, sizeof(err));
		if(!s->nat64)
			log_err("nat64-prefix: %s", err);
	}
}

/* ---- the engine ---- */

static void udp_cb(evutil_socket_t fd, short ev, void* arg);
static void timer_cb(evutil_socket_t fd, short ev, void* arg);

void outnet_wait_add(struct wait_list* l, struct outnet_query* q)
{
	q->wait.next = NULL;
	q->wait.prev = l->tail;
	if(l->tail)
		l->tail->wait.next = q;
	else	l->head = q;
	l->tail = q;
	l->num++;
}

void outnet_wait_remove(struct wait_list* l, struct outnet_query* q)
{
	if(q->wait.prev)
		q->wait.prev->wait.next = q->wait.next;
	else	l->head = q->wait.next;
	if(q->wait.next)
		q->wait.next->wait.prev = q->wait.prev;
	else	l->tail = q->wait.prev;
	q->wait.prev = q->wait.next = NULL;
	l->num--;
}

int outnet_ms_since(const struct timespec* t)
{
	struct timespec now;
	long long ms;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (long long)(now.tv_sec - t->tv_sec) * 1000 +
		(now.tv_nsec - t->tv_nsec) / 1000000;
	return ms < 0 ? 0 : ms > 0x7fffffff ? 0x7fffffff : (int)ms;
}

void outnet_timer_after(struct event* ev, int ms)
{
	struct timeval tv;
	if(ms < 0)
		ms = 0;
	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	evtimer_add(ev, &tv);
}

static void timer_set(struct outnet_query* q, int ms)
{
	outnet_timer_after(q->timer, ms);
}

static void kudp_release(struct outside_network* o, struct kudp_sock* ks);

/* Close the socket (or disconnect a kernel-port one, which gives its
 * port back to the kernel, before the pool may hand it out) and give
 * back the port, or leave the TCP connection; the query stays (for a
 * retry or delivery). */
void outnet_release_io(struct outnet_query* q)
{
	struct outside_network* o = q->o;
	int freed_port = 0;
	if(q->ks) {
		kudp_release(o, q->ks);
		q->ks = NULL;
		q->fd = -1;
	}
	if(q->ev)   /* kept for the next socket of this query (or spare) */
		(void)event_del(q->ev);
	if(q->fd != -1) {
		nc_close(q->fd);
		q->fd = -1;
	}
	if(q->port != -1) {
		port_pool_return(o->pool, q->port);
		q->port = -1;
		freed_port = 1;
	}
	if(q->conn)
		outnet_tcp_detach(q);
	if(q->state == Q_WAIT_PORT)
		outnet_wait_remove(&o->wait_udp, q);
	else if(q->state == Q_WAIT_TCP)
		outnet_wait_remove(&o->wait_tcp, q);
	q->state = Q_FAILED;
	/* ports also come back from other threads: the poll timer runs
	 * while there are UDP waiters; a port of ours serves them now */
	if(freed_port && o->wait_udp.head)
		outnet_timer_after(o->poll, 0);
}

static void query_free_mem(struct outnet_query* q)
{
	if(q->ev)
		event_free(q->ev);
	if(q->timer)
		event_free(q->timer);
	free(q);
}

/* Unlink and free (or keep as a spare); no callback. */
static void query_free(struct outnet_query* q)
{
	struct outside_network* o = q->o;
	int lingering = q->state == Q_LINGER;
	outnet_release_io(q);
	if(q->timer)
		(void)evtimer_del(q->timer);
	if(q->all.prev)
		q->all.prev->all.next = q->all.next;
	else	o->all = q->all.next;
	if(q->all.next)
		q->all.next->all.prev = q->all.prev;
	if(lingering)
		o->num_lingering--;
	else	o->num_active--;
	if(o->num_spare < SPARE_QUERIES_MAX && q->timer) {
		q->all.next = o->spare;
		o->spare = q;
		o->num_spare++;
		return;
	}
	query_free_mem(q);
}

/* A zeroed query with its timer (the spare's, or new); NULL: OOM. */
static struct outnet_query* query_new(struct outside_network* o)
{
	struct outnet_query* q = o->spare;
	struct event* timer, *ev;
	if(!q) {
		if(!(q = calloc(1, sizeof(*q))))
			return NULL;
		if(!(q->timer = evtimer_new(o->base, timer_cb, q))) {
			free(q);
			return NULL;
		}
		return q;
	}
	o->spare = q->all.next;
	o->num_spare--;
	/* the events were made for this q (their argument): they stay */
	timer = q->timer;
	ev = q->ev;
	memset(q, 0, offsetof(struct outnet_query, addr));
	q->timer = timer;
	q->ev = ev;
	return q;
}

/* The one callback of a query, then it is gone. */
static void deliver(struct outnet_query* q, enum outnet_result res,
	const uint8_t* pkt, size_t len, int rtt)
{
	struct outnet_reply r;
	outnet_cb_t cb = q->cb;
	void* arg = q->cb_arg;
	memset(&r, 0, sizeof(r));
	r.result = res;
	r.pkt = pkt;
	r.len = len;
	r.rtt_ms = rtt;
	r.was_tcp = q->is_tcp;
	r.was_edns = q->use_edns;
	r.timeout_ms = q->timeout_ms;
	switch(res) {
	case OUTNET_REPLY: q->o->stats.replies++; break;
	case OUTNET_TIMEOUT: q->o->stats.timeouts++; break;
	case OUTNET_CAPSFAIL: break;   /* counted as capsfail */
	default: q->o->stats.errors++; break;
	}
	/* io first, so the callback sees the port and connection free;
	 * a TCP pkt lies in the connection's buffer, which outlives this
	 * call (outnet_tcp.c does not free a connection while it reads) */
	query_free(q);
	cb(arg, &r);
}

/* Errors found while starting are delivered from a zero timer. */
void outnet_fail_soon(struct outnet_query* q)
{
	outnet_release_io(q);
	q->state = Q_FAILED;
	outnet_timer_after(q->timer, 0);
}

/* ---- the packet ---- */

static void perturb_qname(struct outnet_query* q);

static void build_packet(struct outnet_query* q, const uint8_t* qname)
{
	uint8_t* p = q->pkt;
	uint16_t flags = q->req.flags & (FLAG_RD | FLAG_CD);
	size_t n;
	q->id = ub_random16(q->o->rnd);
	p[0] = (uint8_t)(q->id >> 8);
	p[1] = (uint8_t)q->id;
	p[2] = (uint8_t)(flags >> 8);
	p[3] = (uint8_t)flags;
	p[4] = 0; p[5] = 1;                 /* QDCOUNT */
	p[6] = p[7] = p[8] = p[9] = 0;      /* AN, NS */
	p[10] = 0; p[11] = q->use_edns ? 1 : 0;
	n = LDNS_HEADER_SIZE;
	if(qname) {
		memcpy(p + n, qname, q->qname_len);
		if(q->req.caps)
			perturb_qname(q);
	}
	n += q->qname_len;
	p[n++] = (uint8_t)(q->qtype >> 8);
	p[n++] = (uint8_t)q->qtype;
	p[n++] = (uint8_t)(q->qclass >> 8);
	p[n++] = (uint8_t)q->qclass;
	if(q->use_edns) {
		uint16_t sz = q->o->s.edns_size < 512 ? 512 : q->o->s.edns_size;
		p[n++] = 0;                          /* root owner */
		p[n++] = 0; p[n++] = TYPE_OPT;
		p[n++] = (uint8_t)(sz >> 8); p[n++] = (uint8_t)sz;
		p[n++] = 0; p[n++] = 0;              /* ext rcode, version */
		p[n++] = q->req.dnssec_ok ? 0x80 : 0; p[n++] = 0;
		p[n++] = (uint8_t)(q->req.opt_len >> 8);  /* rdlen */
		p[n++] = (uint8_t)q->req.opt_len;
		memcpy(p + n, q->req.opt, q->req.opt_len);
		n += q->req.opt_len;
	}
	q->pktlen = n;
}

/* New ID (and OPT as use_edns says) for a further attempt. */
static void rebuild_packet(struct outnet_query* q)
{
	build_packet(q, NULL);  /* the qname bytes stay in place */
}

int outnet_reply_matches(const uint8_t* query, size_t qname_len,
	const uint8_t* pkt, size_t len)
{
	size_t qlen = qname_len + 4;
	const uint8_t* a, *b;
	uint16_t flags;
	int rcode;
	if(len < LDNS_HEADER_SIZE)
		return 0;
	flags = wire_rd16(pkt + 2);
	if(wire_rd16(pkt) != wire_rd16(query) || !(flags & FLAG_QR) ||
		FLAGS_OPCODE(flags) != 0)
		return 0;
	rcode = flags & 0xf;
	if(wire_rd16(pkt + 4) == 0)
		return rcode == RCODE_FORMERR || rcode == RCODE_NOTIMPL;
	if(wire_rd16(pkt + 4) != 1 || len < LDNS_HEADER_SIZE + qlen)
		return 0;
	a = pkt + LDNS_HEADER_SIZE;
	b = query + LDNS_HEADER_SIZE;
	if(memcmp(a, b, qlen) == 0)
		return 1;
	/* same labels (sent ones are well formed) apart from the case? */
	if(memcmp(a + qname_len, b + qname_len, 4) != 0 ||
		dname_valid(a, qname_len) != qname_len ||
		query_dname_compare(a, b) != 0)
		return 0;
	return 2;
}

int outnet_query_matches(const struct outnet_query* q, const uint8_t* pkt,
	size_t len)
{
	/* q->pkt carries q->id: a new ID is written into it */
	return outnet_reply_matches(q->pkt, q->qname_len, pkt, len);
}

/* use-caps-for-id: a random case for every letter of the qname. An
 * all-lowercase draw is redrawn as one capital at a random letter: a
 * server that does not echo the case (or a forger who lowercases) is
 * then always noticed, at a cost of one of 2^letters patterns. */
static void perturb_qname(struct outnet_query* q)
{
	uint8_t* p = q->pkt + LDNS_HEADER_SIZE;
	uint32_t bits = 0;
	int left = 0, letters = 0, upper = 0;
	size_t i;
	for(i = 0; i < q->qname_len; i++) {
		uint8_t c = p[i];
		if(!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
			continue;   /* label lengths are < 64: never letters */
		if(left == 0) {
			bits = ub_random(q->o->rnd);
			left = 32;
		}
		p[i] = (bits & 1) ? (uint8_t)(c | 0x20) : (uint8_t)(c & ~0x20);
		upper += !(bits & 1);
		letters++;
		bits >>= 1;
		left--;
	}
	if(letters == 0 || upper > 0)
		return;
	letters = (int)ub_random_max(q->o->rnd, (uint32_t)letters);
	for(i = 0; i < q->qname_len; i++) {
		uint8_t c = p[i];
		if(c >= 'a' && c <= 'z' && letters-- == 0) {
			p[i] = (uint8_t)(c & ~0x20);
			return;
		}
	}
}

/* Lower the question name of a reply (pkt is our receive buffer). */
static void lower_question(uint8_t* pkt, size_t len)
{
	size_t i;
	if(len < LDNS_HEADER_SIZE || wire_rd16(pkt + 4) == 0)
		return;
	for(i = LDNS_HEADER_SIZE; i < len && pkt[i] != 0; ) {
		size_t l = pkt[i], j;
		if(l > 63 || i + 1 + l > len)
			return;
		for(j = i + 1; j <= i + l; j++)
			if(pkt[j] >= 'A' && pkt[j] <= 'Z')
				pkt[j] |= 0x20;
		i += 1 + l;
	}
}

/* Is the reply (m from outnet_query_matches) ours? Without caps only the
 * exact case is (the name was sent lowercase: another case is someone
 * else's); with caps a case difference is a capsfail. */
int outnet_reply_wanted(const struct outnet_query* q, int m)
{
	return m == 1 || (m == 2 && q->req.caps);
}

/* compat: unbound-1.17: A wanted reply: with caps, a case difference ends the
 * query as a capsfail (not for PTR, as Unbound); the question is lowered so
 * the random case reaches no cache. Returns 1 when delivered as capsfail. */
int outnet_caps_check(struct outnet_query* q, uint8_t* pkt, size_t len,
	int m)
{
	if(!q->req.caps)
		return 0;
	if(m != 2 || q->qtype == TYPE_PTR) {
		lower_question(pkt, len);
		return 0;
	}
	verbose(VERB_DETAIL, "wrong 0x20-ID in reply qname");
	q->o->stats.capsfail++;
	lower_question(pkt, len);
	deliver(q, OUTNET_CAPSFAIL, pkt, len, outnet_ms_since(&q->sent));
	return 1;
}

/* ---- sockets ---- */

/* Which outgoing-interface of family a new socket leaves from: an
 * index into ifs4/ifs6, random among them; 0 (the wildcard) when none
 * is configured; -1 when only the other family's are. */
static int source_if(struct outside_network* o, int family)
{
	int n = family == AF_INET ? o->num_ifs4 : o->num_ifs6;
	if(n)
		return (int)ub_random_max(o->rnd, (uint32_t)n);
	return o->any_ifs ? -1 : 0;
}

/* The source address of interface ifi (source_if) and port. */
static void source_of_if(struct outside_network* o, int family, int ifi,
	int port, struct sockaddr_storage* a, socklen_t* alen)
{
	memset(a, 0, sizeof(*a));
	if(family == AF_INET) {
		struct sockaddr_in* s = (struct sockaddr_in*)a;
		if(o->num_ifs4)
			memcpy(a, &o->ifs4[ifi], sizeof(*s));
		s->sin_family = AF_INET;
		s->sin_port = htons((uint16_t)port);
		*alen = sizeof(*s);
	} else {
		struct sockaddr_in6* s = (struct sockaddr_in6*)a;
		if(o->num_ifs6)
			memcpy(a, &o->ifs6[ifi], sizeof(*s));
		s->sin6_family = AF_INET6;
		s->sin6_port = htons((uint16_t)port);
		*alen = sizeof(*s);
	}
}

/* Fill a with the source address for family (random among the
 * outgoing-interfaces of that family, else the wildcard) and port. */
int outnet_source_addr(struct outside_network* o, int family, int port,
	struct sockaddr_storage* a, socklen_t* alen)
{
	int ifi = source_if(o, family);
	if(ifi < 0)
		return 0;
	source_of_if(o, family, ifi, port, a, alen);
	return 1;
}

/* A query failed for want of a source port (outgoing-range ports all
 * in use, or the allowed ones all bound by others): one line per 10 s
 * per worker with the count since, so a full range is seen in the log
 * without a line per query. */
static void log_no_port(struct outside_network* o, const char* why)
{
	time_t now = time(NULL);
	if(o->no_port_logged && now - o->no_port_logged < 10) {
		o->no_port_quiet++;
		return;
	}
	log_warn("outgoing udp: a query failed: %s (see outgoing-range, "
		"outgoing-port-permit, outgoing-port-avoid; %llu more since "
		"the last such line)", why,
		(unsigned long long)o->no_port_quiet);
	o->no_port_logged = now;
	o->no_port_quiet = 0;
}

/* ---- kernel-port sockets (kernel_ports.h) ----
 * A socket with no port of its own: connect makes the kernel draw one
 * uniformly in its ephemeral range, connect(AF_UNSPEC) gives it back
 * (datagrams to it then get port unreachable). Between queries it waits
 * idle on a per-worker list with its event still added, so a query
 * costs connect, getsockname, send, recv and connect(AF_UNSPEC), not
 * socket, bind, connect, two epoll_ctl and close. */

struct kudp_sock {
	struct outside_network* o;
	int fd;
	int fam;                  /* 0 IPv4, 1 IPv6 */
	int ifi;                  /* outgoing-interface index (source_if) */
	struct event* ev;         /* added for the socket's whole life */
	struct outnet_query* q;   /* the query on it; NULL while idle */
	struct kudp_sock* next;   /* on the idle list */
};

static void udp_read(struct outnet_query* q, evutil_socket_t fd);

static void kudp_cb(evutil_socket_t fd, short ev, void* arg)
{
	struct kudp_sock* ks = arg;
	int i;
	(void)ev;
	if(ks->q) {
		udp_read(ks->q, fd);
		return;
	}
	/* idle, without a port: kudp_release read the queue; should
	 * anything be here, it is read and dropped */
	for(i = 0; i < UDP_READS_PER_WAKE; i++)
		if(nc_recv(fd, ks->o->udp_buf, UDP_BUF_SIZE, 0) < 0)
			return;
}

static void kudp_close(struct kudp_sock* ks)
{
	if(ks->ev)
		event_free(ks->ev);
	nc_close(ks->fd);
	free(ks);
}

/* An idle socket for family and interface ifi: from the list, or new
 * (bound to the interface's address, port 0 left to connect). NULL:
 * none can be had (the caller binds as without this path). */
static struct kudp_sock* kudp_get(struct outside_network* o, int family,
	int ifi)
{
	int fam = family == AF_INET6 ? 1 : 0;
	struct kudp_sock* ks = o->kidle[fam] ? o->kidle[fam][ifi] : NULL;
	if(ks) {
		o->kidle[fam][ifi] = ks->next;
		o->num_kidle--;
		ks->next = NULL;
		return ks;
	}
	if(!o->kidle[fam] || (o->kernel_refused & (1 << fam)))
		return NULL;
	if(!(ks = calloc(1, sizeof(*ks))))
		return NULL;
	ks->o = o;
	ks->fam = fam;
	ks->ifi = ifi;
	ks->fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if(ks->fd == -1) {
		free(ks);
		return NULL;
	}
	if(o->s.ip_dscp && !fd_set_dscp(ks->fd, family, o->s.ip_dscp))
		verbose(VERB_ALGO, "outgoing udp: ip-dscp: %s",
			strerror(errno));
	if(o->any_ifs) {
		/* the address bound now, the port only at connect; a port
		 * bound here would stay bound at the disconnect */
		struct sockaddr_storage src;
		socklen_t srclen;
		int on = 1;
		source_of_if(o, family, ifi, 0, &src, &srclen);
#ifdef IP_BIND_ADDRESS_NO_PORT
		if(setsockopt(ks->fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &on,
			(socklen_t)sizeof(on)) != 0) {
			verbose(VERB_OPS, "outgoing udp: IP_BIND_ADDRESS_NO_PORT: "
				"%s; every port bound by us", strerror(errno));
			o->kernel_refused |= 1 << fam;
			kudp_close(ks);
			return NULL;
		}
#else
		(void)on;
		o->kernel_refused |= 1 << fam;
		kudp_close(ks);
		return NULL;
#endif
		if(bind(ks->fd, (struct sockaddr*)&src, srclen) != 0) {
			verbose(VERB_ALGO, "outgoing udp bind (no port): %s",
				strerror(errno));
			kudp_close(ks);
			return NULL;
		}
	}
	ks->ev = event_new(o->base, ks->fd, EV_READ | EV_PERSIST, kudp_cb, ks);
	if(!ks->ev || event_add(ks->ev, NULL) != 0) {
		kudp_close(ks);
		return NULL;
	}
	return ks;
}

/* Read and drop what is queued on a socket without a port (nothing
 * more can come). Only EAGAIN says the queue is empty: a pending ICMP
 * error (ECONNREFUSED from the old server) is returned before the
 * datagrams behind it, and reading it clears it. 0 when more than a
 * receive buffer's worth, or another error: the socket is closed. */
static int kudp_drain(struct kudp_sock* ks)
{
	int i;
	for(i = 0; i < KUDP_DRAIN_MAX; i++) {
		if(nc_recv(ks->fd, ks->o->udp_buf, UDP_BUF_SIZE, 0) >= 0)
			continue;
		if(errno == EAGAIN || errno == EWOULDBLOCK)
			return 1;
		if(errno != ECONNREFUSED && errno != EHOSTUNREACH &&
			errno != ENETUNREACH && errno != EINTR)
			return 0;
	}
	return 0;
}

/* Back to the idle list without a port, or closed: the list holds at
 * most as many as there are queries in flight (the next burst's), and
 * KUDP_IDLE_MAX. Datagrams queued before the disconnect (a duplicate
 * reply, forgeries sent to the old port) are read now: the next query
 * may take the socket before the event loop runs again, and must not
 * find another server's datagrams (connect filters only new ones). */
static void kudp_release(struct outside_network* o, struct kudp_sock* ks)
{
	static const struct sockaddr unspec = { .sa_family = AF_UNSPEC };
	ks->q = NULL;
	if(o->num_kidle < KUDP_IDLE_MAX && o->num_kidle < o->num_active &&
		connect(ks->fd, &unspec, (socklen_t)sizeof(unspec)) == 0 &&
		kudp_drain(ks)) {
		ks->next = o->kidle[ks->fam][ks->ifi];
		o->kidle[ks->fam][ks->ifi] = ks;
		o->num_kidle++;
		return;
	}
	kudp_close(ks);
}

/* Close every idle kernel-port socket and free the lists. */
static void kudp_close_idle(struct outside_network* o)
{
	int fam, i;
	for(fam = 0; fam < 2; fam++) {
		int n = fam ? o->num_ifs6 : o->num_ifs4;
		if(!o->kidle[fam])
			continue;
		for(i = 0; i < (n ? n : 1); i++)
			while(o->kidle[fam][i]) {
				struct kudp_sock* ks = o->kidle[fam][i];
				o->kidle[fam][i] = ks->next;
				kudp_close(ks);
			}
		free(o->kidle[fam]);
		o->kidle[fam] = NULL;
	}
	o->num_kidle = 0;
}

/* A socket's own port; 0 when it cannot be had. */
static int local_port(int fd)
{
	struct sockaddr_storage me;
	socklen_t melen = sizeof(me);
	if(getsockname(fd, (struct sockaddr*)&me, &melen) != 0)
		return 0;
	return ntohs(me.ss_family == AF_INET6 ?
		((struct sockaddr_in6*)&me)->sin6_port :
		((struct sockaddr_in*)&me)->sin_port);
}

/* The drawn pool port lies in the kernel's range: a kernel-port socket
 * connects and the kernel draws the port in that range; the pool then
 * holds the kernel's port instead of the drawn one (drawn
 * PORT_POOL_KERNEL: the pool holds none; the port is only checked to be
 * allowed). 1: done (q->fd, q->port, q->ks set); 0: not done (the
 * drawn port stays taken: bind it). */
static int udp_open_kernel(struct outnet_query* q, int drawn)
{
	struct outside_network* o = q->o;
	struct kudp_sock* ks;
	int ifi = source_if(o, q->addr.ss_family), port;
	if(ifi < 0 || !(ks = kudp_get(o, q->addr.ss_family, ifi)))
		return 0;
	if(connect(ks->fd, (struct sockaddr*)&q->addr, q->addrlen) != 0) {
		/* the kernel may have bound a port before the route failed:
		 * not reused; the bind path reports the error */
		verbose(VERB_ALGO, "outgoing udp connect (kernel port): %s",
			strerror(errno));
		kudp_close(ks);
		return 0;
	}
	if((port = local_port(ks->fd)) == 0 ||
		!(drawn == PORT_POOL_KERNEL ? port_pool_allowed(o->pool, port) :
		port_pool_exchange(o->pool, drawn, port))) {
		/* a port the pool has out already (or no longer permits):
		 * let it go, and bind the drawn one */
		kudp_release(o, ks);
		return 0;
	}
	ks->q = q;
	q->ks = ks;
	q->fd = ks->fd;
	q->port = drawn == PORT_POOL_KERNEL ? drawn : port;
	o->stats.kernel_ports++;
	if(verbosity >= VERB_ALGO)   /* tests tell the paths apart by it */
		verbose(VERB_ALGO, "outgoing udp: port %d drawn by the kernel",
			port);
	return 1;
}

/* A UDP socket on a random pool port. 1: done (q->fd, q->port set);
 * 0: no free port (wait); -1: error. */
static int udp_open(struct outnet_query* q)
{
	struct outside_network* o = q->o;
	int tries;
	for(tries = 0; tries < MAX_BIND_TRIES; tries++) {
		struct sockaddr_storage src;
		socklen_t srclen;
		int by_kernel = 0;
		int port = port_pool_take_path(o->pool, o->rnd,
			o->s.udp_connect ? &by_kernel : NULL);
		int fd;
		if(port < 0)
			return 0;
		if(by_kernel && udp_open_kernel(q, port))
			return 1;
		if(port == PORT_POOL_KERNEL) {
			/* no kernel-port socket to be had: a port of our own
			 * (one the kernel holds for another query is refused
			 * by bind, and another drawn) */
			port_pool_return(o->pool, port);
			if((port = port_pool_take(o->pool, o->rnd)) < 0)
				return 0;
		}
		if(!outnet_source_addr(o, q->addr.ss_family, port, &src, &srclen)) {
			port_pool_return(o->pool, port);
			return -1;
		}
		fd = socket(q->addr.ss_family, SOCK_DGRAM | SOCK_NONBLOCK |
			SOCK_CLOEXEC, 0);
		if(fd == -1) {
			port_pool_return(o->pool, port);
			log_err("outgoing udp socket: %s", strerror(errno));
			return -1;
		}
		if(o->s.ip_dscp && !fd_set_dscp(fd, q->addr.ss_family,
			o->s.ip_dscp))
			verbose(VERB_ALGO, "outgoing udp: ip-dscp: %s",
				strerror(errno));
		if(bind(fd, (struct sockaddr*)&src, srclen) != 0) {
			int e = errno;
			nc_close(fd);
			port_pool_return(o->pool, port);
			if(e == EADDRINUSE || e == EACCES) {
				/* someone else has it: another random one */
				o->stats.bind_retries++;
				continue;
			}
			verbose(VERB_ALGO, "outgoing udp bind: %s",
				strerror(e));
			return -1;
		}
		if(o->s.udp_connect && connect(fd, (struct sockaddr*)&q->addr,
			q->addrlen) != 0) {
			verbose(VERB_ALGO, "outgoing udp connect: %s",
				strerror(errno));
			nc_close(fd);
			port_pool_return(o->pool, port);
			return -1;
		}
		q->fd = fd;
		q->port = port;
		return 1;
	}
	log_no_port(o, "the random source ports tried are all in use by "
		"other programs");
	return -1;
}

static void udp_start(struct outnet_query* q)
{
	struct outside_network* o = q->o;
	ssize_t r;
	int ok = udp_open(q);
	if(ok == 0) {
		if(q->state != Q_WAIT_PORT) {
			q->state = Q_WAIT_PORT;
			outnet_wait_add(&o->wait_udp, q);
			o->stats.waited++;
			if(!evtimer_pending(o->poll, NULL))
				outnet_timer_after(o->poll, WAIT_POLL_MS);
		}
		return;
	}
	if(q->state == Q_WAIT_PORT)
		outnet_wait_remove(&o->wait_udp, q);
	q->state = Q_UDP;
	if(ok < 0) {
		outnet_fail_soon(q);
		return;
	}
	/* a kernel-port socket's event stays added; the query's event
	 * from an earlier socket is set to this one */
	if(!q->ks && q->ev && event_assign(q->ev, o->base, q->fd,
		EV_READ | EV_PERSIST, udp_cb, q) != 0) {
		event_free(q->ev);
		q->ev = NULL;
	}
	if(!q->ks && !q->ev)
		q->ev = event_new(o->base, q->fd, EV_READ | EV_PERSIST,
			udp_cb, q);
	if(!q->ks && (!q->ev || event_add(q->ev, NULL) != 0)) {
		outnet_fail_soon(q);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &q->sent);
	if(o->s.udp_connect)
		r = nc_send(q->fd, q->pkt, q->pktlen, 0);
	else	r = nc_sendto(q->fd, q->pkt, q->pktlen, 0,
			(struct sockaddr*)&q->addr, q->addrlen);
	if(r != (ssize_t)q->pktlen) {
		verbose(VERB_ALGO, "outgoing udp send: %s",
			r < 0 ? strerror(errno) : "short");
		outnet_fail_soon(q);
		return;
	}
	o->stats.sent_udp++;
	if(__builtin_expect(o->tap != NULL, 0))
		outnet_tap_query(q);
	timer_set(q, q->timeout_ms);
}

static int tcp_timeout_of(const struct outnet_query* q, int rto)
{
	int t = q->req.timeout_ms > 0 ? q->req.timeout_ms : rto;
	if(q->req.timeout_ms <= 0 && t < q->o->s.tcp_timeout)
		t = q->o->s.tcp_timeout;
	return t;
}

/* Begin (or redo) the query over its transport. */
void outnet_start_attempt(struct outnet_query* q)
{
	evtimer_del(q->timer);
	clock_gettime(CLOCK_MONOTONIC, &q->sent);  /* wait starts */
	if(q->is_tcp)
		outnet_tcp_start(q);
	else	udp_start(q);
	/* waiting for a port or slot counts against the timeout too */
	if(q->state == Q_WAIT_PORT || q->state == Q_WAIT_TCP)
		timer_set(q, q->timeout_ms);
}

static enum dnstap_proto tap_proto(const struct outnet_query* q)
{
	return q->is_tls ? DNSTAP_DOT : q->is_tcp ? DNSTAP_TCP : DNSTAP_UDP;
}

void outnet_tap_query(struct outnet_query* q)
{
	clock_gettime(CLOCK_REALTIME, &q->tap_sent);
	dnstap_outside_query(q->o->tap, &q->addr, q->addrlen, tap_proto(q),
		q->zone, q->zonelen, q->pkt, q->pktlen, &q->tap_sent);
}

void outnet_set_tap(struct outside_network* o, struct dnstap_tap* tap)
{
	o->tap = tap;
}

/* A reply that matched: what next? */
void outnet_got_reply(struct outnet_query* q, const uint8_t* pkt, size_t len)
{
	struct outside_network* o = q->o;
	if(__builtin_expect(o->tap != NULL, 0))
		dnstap_outside_response(o->tap, &q->addr, q->addrlen,
			tap_proto(q), q->zone, q->zonelen, q->pkt,
			&q->tap_sent, pkt, len);
	int rtt = outnet_ms_since(&q->sent);
	int rcode = pkt[3] & 0xf;
	int tc = (wire_rd16(pkt + 2) & FLAG_TC) != 0;
	time_t now = time(NULL);
	if(o->infra)
		infra_rtt_update(o->infra, &q->addr, q->addrlen, q->zone,
			q->zonelen, q->qtype, rtt, q->timeout_ms, now);
	if(tc && !q->is_tcp && q->req.tcp_on_tc) {
		o->stats.tcp_on_tc++;
		outnet_release_io(q);
		q->is_tcp = 1;
		q->timeout_ms = tcp_timeout_of(q, q->timeout_ms);
		rebuild_packet(q);
		outnet_start_attempt(q);
		return;
	}
	/* compat: unbound-1.17: also when infra knows the server does EDNS (as
	 * Unbound): one name may still get FORMERR (the retry is then not
	 * remembered) */
	if(q->use_edns && q->req.edns_fallback &&
		(rcode == RCODE_FORMERR || rcode == RCODE_NOTIMPL)) {
		o->stats.edns_fallbacks++;
		outnet_release_io(q);
		q->use_edns = 0;
		q->fallback_done = 1;
		rebuild_packet(q);
		outnet_start_attempt(q);
		return;
	}
	if(o->infra && !q->edns_known && rcode != RCODE_FORMERR &&
		rcode != RCODE_NOTIMPL) {
		if(q->use_edns)
			infra_edns_update(o->infra, &q->addr, q->addrlen,
				q->zone, q->zonelen, 0, now);
		else if(q->fallback_done)
			infra_edns_update(o->infra, &q->addr, q->addrlen,
				q->zone, q->zonelen, -1, now);
	}
	deliver(q, OUTNET_REPLY, pkt, len, rtt);
}

static void udp_cb(evutil_socket_t fd, short ev, void* arg)
{
	(void)ev;
	udp_read(arg, fd);
}

void outnet_set_unwanted_action(struct outside_network* o,
	void (*action)(void*), void* arg)
{
	o->unwanted_action = action;
	o->unwanted_arg = arg;
}

void outnet_set_unwanted_threshold(struct outside_network* o,
	unsigned threshold)
{
	o->s.unwanted_threshold = threshold;
}

/* An unwanted UDP reply: counted; at the threshold the defence. */
static void udp_unwanted(struct outside_network* o)
{
	o->stats.unwanted++;
	if(!o->s.unwanted_threshold ||
		++o->unwanted_total < o->s.unwanted_threshold)
		return;
	/* compat: unbound-1.17: its log line, word for word */
	log_warn("unwanted reply total reached threshold (%u) you may be "
		"under attack. defensive action: clearing the cache",
		o->s.unwanted_threshold);
	if(o->unwanted_action)
		o->unwanted_action(o->unwanted_arg);
	o->unwanted_total = 0;
}

/* Read q's socket: the reply ends the query; others are dropped. */
static void udp_read(struct outnet_query* q, evutil_socket_t fd)
{
	struct outside_network* o = q->o;
	int i, m;
	for(i = 0; i < UDP_READS_PER_WAKE; i++) {
		struct sockaddr_storage from;
		socklen_t fromlen = sizeof(from);
		ssize_t n;
		if(o->s.udp_connect)
			n = nc_recv(fd, o->udp_buf, UDP_BUF_SIZE, 0);
		else	n = nc_recvfrom(fd, o->udp_buf, UDP_BUF_SIZE, 0,
				(struct sockaddr*)&from, &fromlen);
		if(n < 0) {
			/* compat: unbound-1.17: An ICMP error (ECONNREFUSED,
			 * ...) is easy to forge and must not end the query: as
			 * Unbound, wait for the reply or the timeout.
			 */
			if(errno != EAGAIN && errno != EWOULDBLOCK &&
				errno != EINTR)
				verbose(VERB_ALGO, "outgoing udp recv: %s",
					strerror(errno));
			return;
		}
		if(!o->s.udp_connect && sockaddr_cmp(&from, fromlen, &q->addr,
			q->addrlen) != 0) {
			udp_unwanted(o);
			continue;
		}
		m = outnet_query_matches(q, o->udp_buf, (size_t)n);
		if(!outnet_reply_wanted(q, m)) {
			/* spoofed or stale: keep waiting for the real one */
			udp_unwanted(o);
			continue;
		}
		if(__builtin_expect(q->state == Q_LINGER, 0)) {
			/* compat: unbound-1.17: delay-close: the late reply
			 * is taken and dropped, not counted (as Unbound);
			 * the socket closes now */
			verbose(VERB_ALGO, "outgoing udp: late reply taken "
				"by delay-close");
			query_free(q);
			return;
		}
		if(!outnet_caps_check(q, o->udp_buf, (size_t)n, m))
			outnet_got_reply(q, o->udp_buf, (size_t)n);
		return;
	}
}

/* compat: unbound-1.17: a UDP query with no reply in the rto is sent
 * once more before the timeout counts (Unbound's "try edns1xx0" step,
 * taken while the rto is under 5 s): a server that drops every other
 * reply (response rate limiting) is not given up on after one loss.
 * Unlike Unbound, only while the server answered its last query of this
 * qtype class (no timeout counted since): a dead server is not waited
 * for twice as long. Not for an explicit timeout (a backed-off server's
 * brief try, the query's time bound). */
static int udp_resend_wanted(const struct outnet_query* q)
{
	if(q->state != Q_UDP || q->is_tcp || !q->req.udp_resend ||
		q->resent || q->req.timeout_ms > 0 ||
		q->timeout_ms >= UDP_RESEND_MAX_RTO)
		return 0;
	return !q->o->infra || infra_timeouts(q->o->infra, &q->addr,
		q->addrlen, q->zone, q->zonelen, q->qtype) == 0;
}

/* compat: unbound-1.17: delay-close: a UDP query timed out; its socket
 * and port move to a new Q_LINGER object that keeps them open for
 * delay-close ms, so a late reply lands on an open port (no ICMP port
 * unreachable back to the server) and is taken quietly; q goes on (a
 * resend on a new socket, or the timeout). As Unbound, not while
 * queries wait for a port: serving them comes first. Nothing is done
 * (q keeps its socket) without delay-close, or out of memory. */
static void udp_linger(struct outnet_query* q)
{
	struct outside_network* o = q->o;
	struct outnet_query* l;
	if(!o->s.delay_close || o->wait_udp.head || q->fd == -1 ||
		!(l = query_new(o)))
		return;
	l->o = o;
	l->state = Q_LINGER;
	l->fd = q->fd;
	l->port = q->port;
	l->ks = q->ks;
	l->addr = q->addr;
	l->addrlen = q->addrlen;
	l->req.caps = q->req.caps;
	l->qtype = q->qtype;
	l->qname_len = q->qname_len;
	l->pktlen = q->pktlen;
	memcpy(l->pkt, q->pkt, q->pktlen);
	if(l->ks)   /* its event, added for its life, reads for l now */
		l->ks->q = l;
	else {
		(void)event_del(q->ev);
		if(l->ev && event_assign(l->ev, o->base, l->fd,
			EV_READ | EV_PERSIST, udp_cb, l) != 0) {
			event_free(l->ev);
			l->ev = NULL;
		}
		if(!l->ev)
			l->ev = event_new(o->base, l->fd, EV_READ |
				EV_PERSIST, udp_cb, l);
		if(!l->ev || event_add(l->ev, NULL) != 0) {
			/* cannot read it: closed as without delay-close */
			l->ks = NULL;
			l->fd = -1;
			l->port = -1;
			l->state = Q_FAILED;
			query_free_mem(l);
			(void)event_add(q->ev, NULL);
			return;
		}
	}
	q->fd = -1;
	q->port = -1;
	q->ks = NULL;
	l->all.prev = NULL;
	l->all.next = o->all;
	if(o->all)
		o->all->all.prev = l;
	o->all = l;
	o->num_lingering++;
	timer_set(l, o->s.delay_close);
}

static void timer_cb(evutil_socket_t fd, short ev, void* arg)
{
	struct outnet_query* q = arg;
	struct outside_network* o = q->o;
	(void)fd; (void)ev;
	switch(q->state) {
	case Q_FAILED:
		deliver(q, OUTNET_ERROR, NULL, 0, 0);
		return;
	case Q_WAIT_PORT:
		log_no_port(o, "no source port came free in time");
		deliver(q, OUTNET_ERROR, NULL, 0, 0);
		return;
	case Q_WAIT_TCP:   /* no connection came free in time */
		deliver(q, OUTNET_ERROR, NULL, 0, 0);
		return;
	case Q_LINGER:
		verbose(VERB_ALGO, "timeout udp with delay");
		query_free(q);
		return;
	case Q_UDP:
		udp_linger(q);
		if(udp_resend_wanted(q)) {
			o->stats.udp_resends++;
			q->resent = 1;
			outnet_release_io(q);
			rebuild_packet(q);
			outnet_start_attempt(q);
			return;
		}
		/* fall through */
	case Q_TCP:
		outnet_tcp_timed_out(q);
		if(o->infra)
			infra_rtt_update(o->infra, &q->addr, q->addrlen,
				q->zone, q->zonelen, q->qtype, -1,
				q->timeout_ms, time(NULL));
		deliver(q, OUTNET_TIMEOUT, NULL, 0, 0);
		return;
	}
}

/* Retry the UDP queries waiting for a port, oldest first. */
static void poll_cb(evutil_socket_t fd, short ev, void* arg)
{
	struct outside_network* o = arg;
	(void)fd; (void)ev;
	while(o->wait_udp.head) {
		struct outnet_query* q = o->wait_udp.head;
		udp_start(q);
		if(q->state == Q_WAIT_PORT)
			break;   /* still none free */
	}
	if(o->wait_udp.head)
		outnet_timer_after(o->poll, WAIT_POLL_MS);
}

/* ---- public ---- */

static int parse_ifs(struct outside_network* o)
{
	const struct config_strlist* p;
	int n = 0;
	for(p = o->s.out_ifs; p; p = p->next)
		n++;
	if(n == 0)
		return 1;
	o->any_ifs = 1;
	o->ifs4 = calloc((size_t)n, sizeof(*o->ifs4));
	o->ifs6 = calloc((size_t)n, sizeof(*o->ifs6));
	if(!o->ifs4 || !o->ifs6)
		return 0;
	for(p = o->s.out_ifs; p; p = p->next) {
		struct sockaddr_storage a;
		socklen_t len;
		if(!ipstrtoaddr(p->str, 0, &a, &len)) {
			log_err("cannot parse outgoing-interface: %s "
				"(an address is needed)", p->str);
			return 0;
		}
		if(a.ss_family == AF_INET)
			o->ifs4[o->num_ifs4++] = a;
		else	o->ifs6[o->num_ifs6++] = a;
	}
	return 1;
}

struct outside_network* outside_network_create(struct event_base* base,
	const struct outnet_settings* s, struct port_pool* pool,
	struct infra_cache* infra)
{
	struct outside_network* o = calloc(1, sizeof(*o));
	if(!o) {
		log_err("outside network: out of memory");
		return NULL;
	}
	o->base = base;
	o->s = *s;
	o->s.out_ifs = NULL;       /* not kept: cfg may go */
	o->s.donotquery = NULL;
	if(o->s.num_tcp < 0)
		o->s.num_tcp = 0;
	if(o->s.max_waiting < 0)
		o->s.max_waiting = 0;
	if(o->s.max_reuse_tcp < 1)
		o->s.max_reuse_tcp = 1;
	if(o->s.tcp_reuse_timeout < 0)
		o->s.tcp_reuse_timeout = 0;
	o->pool = pool;
	o->infra = infra;
	o->s.out_ifs = s->out_ifs;
	if(!parse_ifs(o))
		goto fail;
	o->s.out_ifs = NULL;
	o->rnd = ub_initstate();
	o->dq = donotq_create(s->donotquery, s->do_not_query_localhost);
	o->udp_buf = malloc(UDP_BUF_SIZE);
	o->poll = evtimer_new(base, poll_cb, o);
	o->tcp_serve = evtimer_new(base, outnet_tcp_serve_cb, o);
	o->tls_sessions = tls_session_cache_create(TLS_SESSIONS_MAX);
	/* per interface, index 0 the wildcard when there is none */
	o->kidle[0] = calloc((size_t)(o->num_ifs4 ? o->num_ifs4 : 1),
		sizeof(*o->kidle[0]));
	o->kidle[1] = calloc((size_t)(o->num_ifs6 ? o->num_ifs6 : 1),
		sizeof(*o->kidle[1]));
	if(!o->rnd || !o->dq || !o->udp_buf || !o->poll || !o->tcp_serve ||
		!o->tls_sessions || !o->kidle[0] || !o->kidle[1])
		goto fail;
	return o;
fail:
	log_err("could not create the outside network");
	outside_network_delete(o);
	return NULL;
}

void outside_network_delete(struct outside_network* o)
{
	if(!o)
		return;
	while(o->all)
		query_free(o->all);
	while(o->spare) {
		struct outnet_query* q = o->spare;
		o->spare = q->all.next;
		query_free_mem(q);
	}
	kudp_close_idle(o);
	outnet_tcp_close_all(o);
	tls_session_cache_delete(o->tls_sessions);
	if(o->poll)
		event_free(o->poll);
	free(o->udp_buf);
	donotq_delete(o->dq);
	ub_randfree(o->rnd);
	free(o->ifs4);
	free(o->ifs6);
	free(o);
}

enum outnet_refuse outnet_addr_refused(const struct outside_network* o,
	const struct sockaddr_storage* addr, socklen_t addrlen)
{
	if(addr->ss_family == AF_INET && addrlen >= sizeof(struct sockaddr_in)) {
		if(!o->s.do_ip4 || (o->any_ifs && !o->num_ifs4))
			return OUTNET_REFUSE_FAMILY;
	} else if(addr->ss_family == AF_INET6 &&
		addrlen >= sizeof(struct sockaddr_in6)) {
		uint8_t v4[4];
		if(!o->s.do_ip6 || (o->any_ifs && !o->num_ifs6))
			return OUTNET_REFUSE_FAMILY;
		if(o->s.nat64 && dns64_extract_v4(&o->s.nat64_prefix,
			((const struct sockaddr_in6*)addr)->sin6_addr.s6_addr,
			v4))
			return OUTNET_OK;   /* its IPv4 address was checked */
	} else	return OUTNET_REFUSE_FAMILY;
	if(donotq_lookup(o->dq, addr, addrlen))
		return OUTNET_REFUSE_DONOTQUERY;
	return OUTNET_OK;
}

enum outnet_refuse outnet_nat64(const struct outside_network* o,
	struct sockaddr_storage* addr, socklen_t* addrlen)
{
	struct sockaddr_in v4;
	struct sockaddr_in6* s6 = (struct sockaddr_in6*)addr;
	if(!o->s.nat64 || addr->ss_family != AF_INET ||
		*addrlen < sizeof(v4))
		return OUTNET_OK;
	if(donotq_lookup(o->dq, addr, *addrlen))
		return OUTNET_REFUSE_DONOTQUERY;
	memcpy(&v4, addr, sizeof(v4));
	memset(addr, 0, sizeof(*addr));
	s6->sin6_family = AF_INET6;
	s6->sin6_port = v4.sin_port;
	dns64_synth_addr(&o->s.nat64_prefix,
		(const uint8_t*)&v4.sin_addr.s_addr, s6->sin6_addr.s6_addr);
	*addrlen = sizeof(*s6);
	return OUTNET_OK;
}

struct outnet_query* outnet_send(struct outside_network* o,
	const struct outnet_request* req, outnet_cb_t cb, void* arg)
{
	struct outnet_query* q;
	int edns_vs = 0, to = 0;
	uint8_t known = 0;
	if(outnet_addr_refused(o, &req->addr, req->addrlen) != OUTNET_OK) {
		o->stats.refused++;
		log_addr(VERB_ALGO, "outnet: refused to query",
			&req->addr, req->addrlen);
		return NULL;
	}
	if(!req->qname || req->qname_len == 0 ||
		dname_valid(req->qname, req->qname_len) != req->qname_len ||
		(req->zone && req->zonelen && (req->zonelen >
		LDNS_MAX_DOMAINLEN + 1 || dname_valid(req->zone, req->zonelen)
		!= req->zonelen)) || !cb)
		return NULL;
	if(o->wait_udp.num + o->wait_tcp.num >= o->s.max_waiting &&
		(o->wait_udp.num || o->wait_tcp.num))
		return NULL;   /* already a backlog: no unbounded queue */
	if((req->tcp || req->tls || o->s.tcp_upstream) && o->s.num_tcp == 0)
		return NULL;   /* outgoing-num-tcp: 0 means no TCP */
	if(req->tls && (!req->tls_ctx || (req->tls_name &&
		strlen(req->tls_name) >= sizeof(q->tls_name))))
		return NULL;   /* never plain DNS instead */
	if(req->opt_len > OUTNET_OPT_MAX)
		return NULL;
	if(!(q = query_new(o)))
		return NULL;
	q->o = o;
	q->fd = -1;
	q->port = -1;
	q->state = Q_FAILED;
	q->req = *req;
	q->req.qname = NULL;
	q->req.zone = NULL;
	q->addr = req->addr;
	q->addrlen = req->addrlen;
	if(req->zone && req->zonelen) {
		memcpy(q->zone, req->zone, req->zonelen);
		q->zonelen = req->zonelen;
	} else {
		q->zone[0] = 0;
		q->zonelen = 1;
	}
	q->qname_len = req->qname_len;
	q->qtype = req->qtype;
	q->qclass = req->qclass;
	q->cb = cb;
	q->cb_arg = arg;
	q->all.next = o->all;
	if(o->all)
		o->all->all.prev = q;
	o->all = q;
	o->num_active++;
	/* timeout and EDNS status from the infra cache */
	to = 376;
	if(o->infra && !infra_host(o->infra, &q->addr, q->addrlen, q->zone,
		q->zonelen, time(NULL), &edns_vs, &known, &to)) {
		query_free(q);
		return NULL;
	}
	q->edns_known = known;
	q->use_edns = req->edns && !(known && edns_vs == -1);
	q->is_tcp = req->tcp || req->tls || o->s.tcp_upstream;
	q->tls_name[0] = 0;
	if(req->tls) {
		q->is_tls = 1;
		q->tls_ctx = req->tls_ctx;
		memset(q->tls_name, 0, sizeof(q->tls_name));
		if(req->tls_name)
			memcpy(q->tls_name, req->tls_name,
				strlen(req->tls_name) + 1);
	}
	q->req.tls_name = NULL;   /* not kept: copied */
	q->timeout_ms = req->timeout_ms > 0 ? req->timeout_ms : to;
	if(q->is_tcp)
		q->timeout_ms = tcp_timeout_of(q, to);
	build_packet(q, req->qname);
	outnet_start_attempt(q);
	return q;
}

void outnet_cancel(struct outnet_query* q)
{
	if(q)
		query_free(q);
}

const struct outnet_stats* outnet_get_stats(const struct outside_network* o)
{
	return &o->stats;
}

int outnet_num_active(const struct outside_network* o)
{
	return o->num_active;
}

void outnet_set_num_tcp(struct outside_network* o, int num_tcp)
{
	if(!o)
		return;
	o->s.num_tcp = num_tcp < 0 ? 0 : num_tcp;
	if(o->wait_tcp.head)
		outnet_timer_after(o->tcp_serve, 0);
}

void outnet_set_tcp_mss(struct outside_network* o, int mss)
{
	if(o)
		o->s.tcp_mss = mss;
}

void outnet_set_transport(struct outside_network* o,
	const struct config_file* cfg)
{
	if(!o)
		return;
	o->s.tcp_upstream = outnet_cfg_tcp_upstream(cfg);
	o->s.delay_close = cfg->delay_close > 0 ? cfg->delay_close : 0;
}

/* compat: unbound-1.26: as its fast_reload (fr_worker_pickup_outside_network,
 * the iterator's donotq and nat64 swapped in, EDNS_ADVERTISED_SIZE set by
 * config_apply) and its reload (a new outside network): the queries sent
 * from now on take them. */
void outnet_set_query_settings(struct outside_network* o,
	const struct config_file* cfg)
{
	struct outnet_settings s;
	struct donotq* dq;
	if(!o)
		return;
	outnet_settings_from_cfg(cfg, &s);
	o->s.edns_size = s.edns_size;
	o->s.tcp_timeout = s.tcp_timeout;
	o->s.tcp_reuse_timeout = s.tcp_reuse_timeout < 0 ? 0 :
		s.tcp_reuse_timeout;
	o->s.max_reuse_tcp = s.max_reuse_tcp < 1 ? 1 : s.max_reuse_tcp;
	o->s.max_waiting = s.max_waiting < 0 ? 0 : s.max_waiting;
	o->s.tls_use_sni = s.tls_use_sni;
	o->s.ip_dscp = s.ip_dscp;
	o->s.nat64 = s.nat64;
	o->s.nat64_prefix = s.nat64_prefix;
	/* checked by the config's reader: NULL is out of memory */
	if(!(dq = donotq_create(s.donotquery, s.do_not_query_localhost))) {
		log_err("reload: out of memory; do-not-query-address stays");
		return;
	}
	donotq_delete(o->dq);
	o->dq = dq;
}

void outnet_set_pad_block(struct outside_network* o, int block)
{
	if(o)
		o->s.pad_block = block;
}

int outnet_num_tcp_conns(const struct outside_network* o)
{
	return o->num_conns;
}
