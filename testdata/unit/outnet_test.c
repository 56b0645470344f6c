/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/outnet_test.c - the outside network against a tiny
 * responder on 127.0.0.1 in the same event base (a UDP socket, a second
 * UDP socket on another port for spoofing, a TCP listener). Checks
 * matching (ID, question with exact case, source port), timeouts and
 * the infra back-off, TC=1 and TCP with partial reads and writes, EDNS
 * fallback, the port pool and TCP slot bounds, refusal of
 * do-not-query targets, cancel and shutdown. Loopback only. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <time.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <event2/event.h>
#include "services/outside_network.h"
#include "services/port_pool.h"
#include "services/kernel_ports.h"
#include "services/cache/infra.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/net_help.h"

/* what the responder does with a query */
enum mode {
	M_ANSWER,          /* answer at once */
	M_WRONG_ID,        /* wrong ID first, the right reply later */
	M_WRONG_CASE,      /* qname in other case first, then right */
	M_WRONG_TYPE,      /* other qtype first, then right */
	M_OTHER_PORT,      /* from another port first, then right */
	M_DROP,            /* never answer */
	M_LATE,            /* answer after 150 ms */
	M_TC,              /* UDP: TC=1 empty; TCP: answer */
	M_SLIP,            /* response rate limiting with slip 2: UDP
	                    * queries 1, 3, ... dropped, 2, 4, ... TC=1
	                    * empty; TCP: answer */
	M_FORMERR_EDNS,    /* FORMERR (no question) when the query has EDNS */
	M_TWICE            /* the answer twice, at once */
};

#define SPOOF_IP 0x06060606u
#define GOOD_IP 0x7f000001u

/* what the TCP side does (it answers pipelined queries in order) */
enum tcp_mode {
	T_ANSWER,          /* answer each query */
	T_REVERSE,         /* hold R.tcp_batch queries, answer them last
	                    * first */
	T_CLOSE_AFTER_ONE, /* answer one query, then close */
	T_WRONG_ID,        /* a reply with another ID first, then right */
	T_GARBAGE_ONCE,    /* the 2nd query of the first connection gets a
	                    * frame that is no DNS message; then normal */
	T_GARBAGE,         /* every query gets such a frame */
	T_SILENT           /* read, never answer */
};

struct tcp_conn {
	int fd;
	struct event* ev;
	struct event* tick;
	uint8_t in[8192];
	size_t inlen;
	uint8_t out[16384];
	size_t outlen, outpos;
	int answered;              /* queries answered on it */
	int held[64];              /* T_REVERSE: query offsets in in[] */
	int num_held;
	size_t scan;               /* queries before this are seen */
	int peer_ip;               /* the client's address (host order) */
	struct tcp_conn* next;
};

struct responder {
	struct event_base* base;
	int udp, udp2, tcp;
	int port;                  /* same number for UDP and TCP */
	struct event* ev_udp, * ev_tcp;
	enum mode mode;
	int udp_queries, tcp_queries, tcp_now, tcp_max;
	int tcp_accepts;           /* connections accepted */
	enum tcp_mode tcp_mode;
	int tcp_trickle;           /* replies go out 1 byte per ms */
	int tcp_batch;             /* T_REVERSE */
	int garbage_sent;          /* T_GARBAGE_ONCE */
	uint32_t last_tcp_peer;
	int extra_tcp[3];          /* more listeners (other servers) */
	int extra_port[3];
	struct event* ev_extra[3];
	int last_src_port;
	uint8_t last_qname[256];   /* as received (its case) */
	int src_ports[256];
	int num_src;
	struct port_pool* pool;    /* to watch the bound */
	int pool_max_seen;
	struct tcp_conn* conns;
	/* delayed datagrams */
	struct delayed {
		struct event* ev;
		uint8_t pkt[512];
		size_t len;
		struct sockaddr_storage to;
		socklen_t tolen;
		struct responder* r;
	} later[16];
	int num_later;
};

static struct responder R;

/* End of the question in a query packet (0 if malformed). */
static size_t question_end(const uint8_t* q, size_t len)
{
	size_t p = 12;
	while(p < len && q[p] != 0) {
		if(q[p] & 0xc0)
			return 0;
		p += 1 + q[p];
	}
	if(p + 5 > len)
		return 0;
	return p + 5;
}

/* An answer: header, question, one A record with ip, the OPT echoed. */
static size_t make_answer(const uint8_t* q, size_t qlen, uint8_t* out,
	uint32_t ip, int tc)
{
	size_t qe = question_end(q, qlen), n;
	int edns = qlen >= 12 && q[11] == 1;
	if(!qe)
		return 0;
	memcpy(out, q, qe);
	out[2] = (uint8_t)(0x84 | (q[2] & 0x01) | (tc ? 0x02 : 0));
	out[3] = 0;
	out[6] = 0; out[7] = tc ? 0 : 1;
	out[8] = out[9] = 0;
	out[10] = 0; out[11] = edns ? 1 : 0;
	n = qe;
	if(!tc) {
		static const uint8_t rr[] = { 0xc0, 0x0c, 0, 1, 0, 1, 0, 0,
			0x0e, 0x10, 0, 4 };
		memcpy(out + n, rr, sizeof(rr));
		n += sizeof(rr);
		out[n++] = (uint8_t)(ip >> 24);
		out[n++] = (uint8_t)(ip >> 16);
		out[n++] = (uint8_t)(ip >> 8);
		out[n++] = (uint8_t)ip;
	}
	if(edns) {
		static const uint8_t opt[] = { 0, 0, 41, 0x10, 0, 0, 0, 0, 0,
			0, 0 };
		memcpy(out + n, opt, sizeof(opt));
		n += sizeof(opt);
	}
	return n;
}

static void later_cb(evutil_socket_t fd, short ev, void* arg)
{
	struct delayed* d = arg;
	(void)fd; (void)ev;
	sendto(d->r->udp, d->pkt, d->len, 0, (struct sockaddr*)&d->to,
		d->tolen);
}

static void send_later(const uint8_t* pkt, size_t len,
	struct sockaddr_storage* to, socklen_t tolen, int ms)
{
	struct delayed* d;
	struct timeval tv = { 0, ms * 1000 };
	assert_true(R.num_later < 16);
	d = &R.later[R.num_later++];
	memcpy(d->pkt, pkt, len);
	d->len = len;
	d->to = *to;
	d->tolen = tolen;
	d->r = &R;
	d->ev = evtimer_new(R.base, later_cb, d);
	evtimer_add(d->ev, &tv);
}

static void udp_read(evutil_socket_t fd, short ev, void* arg)
{
	uint8_t q[512], a[600], bad[600];
	struct sockaddr_storage from;
	socklen_t fromlen = sizeof(from);
	ssize_t n = recvfrom(fd, q, sizeof(q), 0, (struct sockaddr*)&from,
		&fromlen);
	size_t alen, qe;
	int inuse;
	(void)ev; (void)arg;
	if(n < 12)
		return;
	R.udp_queries++;
	R.last_src_port = addr_port(&from);
	if(R.num_src < 256)
		R.src_ports[R.num_src++] = R.last_src_port;
	if(R.pool && (inuse = port_pool_inuse(R.pool)) > R.pool_max_seen)
		R.pool_max_seen = inuse;
	qe = question_end(q, (size_t)n);
	if(qe > 16 && qe - 16 <= sizeof(R.last_qname))
		memcpy(R.last_qname, q + 12, qe - 16);
	switch(R.mode) {
	case M_DROP:
		return;
	case M_SLIP:
		if(R.udp_queries % 2)
			return;
		/* fall through */
	case M_TC:
		alen = make_answer(q, (size_t)n, a, GOOD_IP, 1);
		sendto(fd, a, alen, 0, (struct sockaddr*)&from, fromlen);
		return;
	case M_FORMERR_EDNS:
		if(q[11] == 1) {
			memcpy(a, q, 12);
			a[2] = 0x80; a[3] = 1;  /* QR, FORMERR */
			memset(a + 4, 0, 8);
			sendto(fd, a, 12, 0, (struct sockaddr*)&from, fromlen);
			return;
		}
		break;
	case M_LATE:
		alen = make_answer(q, (size_t)n, a, GOOD_IP, 0);
		send_later(a, alen, &from, fromlen, 150);
		return;
	default:
		break;
	}
	alen = make_answer(q, (size_t)n, a, GOOD_IP, 0);
	memcpy(bad, a, alen);
	make_answer(q, (size_t)n, bad, SPOOF_IP, 0);
	switch(R.mode) {
	case M_WRONG_ID:
		bad[1] ^= 0x01;
		break;
	case M_WRONG_CASE: {
		size_t i;
		for(i = 13; i < qe - 4; i++)
			if((bad[i] | 0x20) >= 'a' && (bad[i] | 0x20) <= 'z')
				bad[i] ^= 0x20;
		break;
	}
	case M_WRONG_TYPE:
		bad[qe - 3] ^= 0x01;
		break;
	default:
		break;
	}
	if(R.mode == M_ANSWER || R.mode == M_FORMERR_EDNS ||
		R.mode == M_TWICE) {
		sendto(fd, a, alen, 0, (struct sockaddr*)&from, fromlen);
		if(R.mode == M_TWICE)
			sendto(fd, a, alen, 0, (struct sockaddr*)&from,
				fromlen);
		return;
	}
	/* the bad one first, the right one 20 ms later */
	if(R.mode == M_OTHER_PORT)
		sendto(R.udp2, bad, alen, 0, (struct sockaddr*)&from, fromlen);
	else	sendto(fd, bad, alen, 0, (struct sockaddr*)&from, fromlen);
	send_later(a, alen, &from, fromlen, 20);
}

static void conn_free(struct tcp_conn* c)
{
	struct tcp_conn** p = &R.conns;
	while(*p && *p != c)
		p = &(*p)->next;
	if(*p)
		*p = c->next;
	event_free(c->ev);
	event_free(c->tick);
	close(c->fd);
	R.tcp_now--;
	free(c);
}

/* replies go out at once, or one byte per millisecond (partial reads
 * on the client side) */
static void tcp_tick(evutil_socket_t fd, short ev, void* arg)
{
	struct tcp_conn* c = arg;
	struct timeval tv = { 0, 1000 };
	(void)fd; (void)ev;
	if(c->outpos < c->outlen) {
		if(send(c->fd, c->out + c->outpos, 1, MSG_NOSIGNAL) == 1)
			c->outpos++;
		evtimer_add(c->tick, &tv);
	}
}

static void tcp_out(struct tcp_conn* c, const uint8_t* msg, size_t len)
{
	struct timeval tv = { 0, 1000 };
	assert_true(c->outlen + 2 + len <= sizeof(c->out));
	c->out[c->outlen] = (uint8_t)(len >> 8);
	c->out[c->outlen + 1] = (uint8_t)len;
	memcpy(c->out + c->outlen + 2, msg, len);
	c->outlen += 2 + len;
	if(R.tcp_trickle) {
		evtimer_add(c->tick, &tv);
		return;
	}
	while(c->outpos < c->outlen) {
		ssize_t n = send(c->fd, c->out + c->outpos,
			c->outlen - c->outpos, MSG_NOSIGNAL);
		if(n <= 0)
			break;
		c->outpos += (size_t)n;
	}
}

/* answer the query at in+off (length-prefixed); 0: close the conn */
static int tcp_answer(struct tcp_conn* c, size_t off)
{
	const uint8_t* q = c->in + off + 2;
	size_t qlen = ((size_t)c->in[off] << 8) | c->in[off + 1];
	uint8_t a[600];
	size_t alen = make_answer(q, qlen, a, GOOD_IP, 0);
	c->answered++;
	switch(R.tcp_mode) {
	case T_WRONG_ID: {
		uint8_t bad[600];
		make_answer(q, qlen, bad, SPOOF_IP, 0);
		bad[1] ^= 0x01;
		tcp_out(c, bad, alen);
		break;
	}
	case T_GARBAGE_ONCE:
		if(R.garbage_sent || c->answered != 2)
			break;
		R.garbage_sent = 1;
		/* fall through */
	case T_GARBAGE:
		tcp_out(c, (const uint8_t*)"junk", 4);
		return 1;
	default:
		break;
	}
	tcp_out(c, a, alen);
	return R.tcp_mode != T_CLOSE_AFTER_ONE;
}

static void tcp_read(evutil_socket_t fd, short ev, void* arg)
{
	struct tcp_conn* c = arg;
	ssize_t n;
	size_t off = c->scan;
	(void)ev;
	n = recv(fd, c->in + c->inlen, sizeof(c->in) - c->inlen, 0);
	if(n <= 0) {
		conn_free(c);
		return;
	}
	c->inlen += (size_t)n;
	/* every whole query in the buffer */
	for(;;) {
		size_t qlen;
		if(c->inlen - off < 2)
			break;
		qlen = ((size_t)c->in[off] << 8) | c->in[off + 1];
		if(c->inlen - off < 2 + qlen)
			break;
		R.tcp_queries++;
		if(R.tcp_mode == T_SILENT) {
			off += 2 + qlen;
			continue;
		}
		if(R.tcp_mode == T_REVERSE) {
			assert_true(c->num_held < 64);
			c->held[c->num_held++] = (int)off;
			off += 2 + qlen;
			continue;
		}
		if(!tcp_answer(c, off)) {
			conn_free(c);   /* after the answer: a FIN follows */
			return;
		}
		off += 2 + qlen;
	}
	c->scan = off;
	if(R.tcp_mode == T_REVERSE) {
		if(c->num_held < R.tcp_batch)
			return;   /* keep the held queries in the buffer */
		while(c->num_held > 0)
			tcp_answer(c, (size_t)c->held[--c->num_held]);
	}
	memmove(c->in, c->in + off, c->inlen - off);
	c->inlen -= off;
	c->scan = 0;
}

static void tcp_accept(evutil_socket_t fd, short ev, void* arg)
{
	struct sockaddr_in peer;
	socklen_t plen = sizeof(peer);
	int s = accept(fd, (struct sockaddr*)&peer, &plen);
	struct tcp_conn* c;
	(void)ev; (void)arg;
	if(s < 0)
		return;
	fd_set_nonblock(s);
	c = calloc(1, sizeof(*c));
	c->fd = s;
	c->peer_ip = (int)ntohl(peer.sin_addr.s_addr);
	R.last_tcp_peer = ntohl(peer.sin_addr.s_addr);
	c->ev = event_new(R.base, s, EV_READ | EV_PERSIST, tcp_read, c);
	c->tick = evtimer_new(R.base, tcp_tick, c);
	event_add(c->ev, NULL);
	c->next = R.conns;
	R.conns = c;
	R.tcp_accepts++;
	if(++R.tcp_now > R.tcp_max)
		R.tcp_max = R.tcp_now;
}

static int bind_lo(int type, int port)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, type, 0), on = 1;
	assert_true(fd >= 0);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if(bind(fd, (struct sockaddr*)&a, sizeof(a)) != 0) {
		close(fd);
		return -1;
	}
	getsockname(fd, (struct sockaddr*)&a, &len);
	fd_set_nonblock(fd);
	return fd;
}

static void responder_start(struct event_base* base)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	int tries;
	memset(&R, 0, sizeof(R));
	R.base = base;
	/* the same port number for UDP and TCP */
	for(tries = 0; tries < 50; tries++) {
		R.udp = bind_lo(SOCK_DGRAM, 0);
		getsockname(R.udp, (struct sockaddr*)&a, &len);
		R.port = ntohs(a.sin_port);
		R.tcp = bind_lo(SOCK_STREAM, R.port);
		if(R.tcp >= 0)
			break;
		close(R.udp);
	}
	assert_true(R.tcp >= 0);
	assert_int_equal(listen(R.tcp, 16), 0);
	R.udp2 = bind_lo(SOCK_DGRAM, 0);
	R.tcp_trickle = 1;
	for(tries = 0; tries < 3; tries++) {
		struct sockaddr_in e;
		socklen_t elen = sizeof(e);
		R.extra_tcp[tries] = bind_lo(SOCK_STREAM, 0);
		assert_true(R.extra_tcp[tries] >= 0);
		assert_int_equal(listen(R.extra_tcp[tries], 16), 0);
		getsockname(R.extra_tcp[tries], (struct sockaddr*)&e, &elen);
		R.extra_port[tries] = ntohs(e.sin_port);
		R.ev_extra[tries] = event_new(base, R.extra_tcp[tries],
			EV_READ | EV_PERSIST, tcp_accept, NULL);
		event_add(R.ev_extra[tries], NULL);
	}
	R.ev_udp = event_new(base, R.udp, EV_READ | EV_PERSIST, udp_read, NULL);
	R.ev_tcp = event_new(base, R.tcp, EV_READ | EV_PERSIST, tcp_accept,
		NULL);
	event_add(R.ev_udp, NULL);
	event_add(R.ev_tcp, NULL);
}

static void responder_stop(void)
{
	int i;
	while(R.conns)
		conn_free(R.conns);
	for(i = 0; i < R.num_later; i++)
		event_free(R.later[i].ev);
	event_free(R.ev_udp);
	event_free(R.ev_tcp);
	for(i = 0; i < 3; i++) {
		event_free(R.ev_extra[i]);
		close(R.extra_tcp[i]);
	}
	close(R.udp);
	close(R.udp2);
	close(R.tcp);
}

/* ---- the client side ---- */

struct result {
	int done;
	enum outnet_result res;
	uint8_t pkt[1024];
	size_t len;
	int was_tcp, was_edns;
};

static void cb(void* arg, const struct outnet_reply* r)
{
	struct result* res = arg;
	res->done++;
	res->res = r->result;
	res->was_tcp = r->was_tcp;
	res->was_edns = r->was_edns;
	res->len = r->len < sizeof(res->pkt) ? r->len : sizeof(res->pkt);
	if(r->pkt)
		memcpy(res->pkt, r->pkt, res->len);
}

static struct event_base* base;
static struct port_pool* pool;
static struct infra_cache* infra;
static struct outside_network* outnet;
static struct outnet_settings set;
static uint8_t avail[PORT_SET_SIZE];
static uint8_t zone_wire[256];
static size_t zone_len;
static uint8_t qname_wire[256];
static size_t qname_len;

static void tick_cb(evutil_socket_t fd, short ev, void* arg)
{
	(void)fd; (void)ev; (void)arg;
}

/* Run the loop until *done reaches want (or ms pass). */
static void run_until(int* done, int want, int ms)
{
	struct timespec t0, t;
	struct event* tick = event_new(base, -1, EV_PERSIST, tick_cb, NULL);
	struct timeval tv = { 0, 2000 };
	event_add(tick, &tv);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for(;;) {
		long el;
		if(done && *done >= want)
			break;
		clock_gettime(CLOCK_MONOTONIC, &t);
		el = (t.tv_sec - t0.tv_sec) * 1000 +
			(t.tv_nsec - t0.tv_nsec) / 1000000;
		if(el >= ms)
			break;
		event_base_loop(base, EVLOOP_ONCE);
	}
	event_free(tick);
}

/* set.tcp_timeout of the next setup_net (ms) */
static int next_tcp_timeout = 1000;
/* set.delay_close of the next setup_net (ms) */
static int next_delay_close = 0;
/* the permitted ports of the next setup_net */
static const char* next_permit = "30000-39999";
/* infra-cache-min-rtt of the next setup_net: the tests of ports set it
 * high, so that a worker descheduled under load (ASan, CI's parallel
 * suites) does not time a query out and fail a test about ports */
static int next_min_rtt = 10;

static void setup_net(int udp_connect, int range, int num_tcp,
	int unknown_rtt)
{
	struct infra_settings is;
	base = event_base_new();
	assert_non_null(base);
	responder_start(base);
	memset(avail, 0, sizeof(avail));
	port_set_mark(avail, next_permit, 1);
	pool = port_pool_create(avail, range);
	assert_non_null(pool);
	R.pool = pool;
	infra_settings_default(&is);
	is.unknown_rtt = unknown_rtt;
	is.min_rtt = next_min_rtt;
	infra = infra_create(&is);
	memset(&set, 0, sizeof(set));
	set.udp_connect = udp_connect;
	set.num_tcp = num_tcp;
	set.do_ip4 = set.do_ip6 = 1;
	set.do_not_query_localhost = 0;   /* the responder is on loopback */
	set.edns_size = 1232;
	set.tcp_timeout = next_tcp_timeout;
	set.max_waiting = 100;
	set.tcp_write_chunk = 3;          /* partial writes over TCP */
	set.max_reuse_tcp = 200;          /* Unbound's defaults */
	set.tcp_reuse_timeout = 60000;
	set.delay_close = next_delay_close;
	outnet = outside_network_create(base, &set, pool, infra);
	assert_non_null(outnet);
	zone_len = dname_from_str("example.", zone_wire);
	qname_len = dname_from_str("wWw.ExAmple.", qname_wire);
}

static void teardown_net(void)
{
	outside_network_delete(outnet);
	assert_int_equal(port_pool_inuse(pool), 0);
	responder_stop();
	infra_delete(infra);
	port_pool_delete(pool);
	event_base_free(base);
}

static struct outnet_request request(void)
{
	struct outnet_request q;
	memset(&q, 0, sizeof(q));
	assert_int_equal(extstrtoaddr("127.0.0.1", R.port, &q.addr,
		&q.addrlen), 1);
	q.zone = zone_wire;
	q.zonelen = zone_len;
	q.qname = qname_wire;
	q.qname_len = qname_len;
	q.qtype = 1;
	q.qclass = 1;
	q.flags = 0x0100;
	q.edns = 1;
	return q;
}

static uint32_t answer_ip(const struct result* r)
{
	const uint8_t* p = r->pkt + r->len - 4;
	if(r->pkt[11] == 1)
		p -= 11;  /* OPT at the end */
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
		((uint32_t)p[2] << 8) | p[3];
}

static int rto_now(void)
{
	struct infra_info i = { 0 };  /* untouched if the lookup fails */
	struct outnet_request q = request();
	assert_int_equal(infra_get_info(infra, &q.addr, q.addrlen, zone_wire,
		zone_len, &i), 1);
	return i.rtt.rto;
}

static void test_answer(void** state)
{
	struct result r;
	struct outnet_request q;
	(void)state;
	setup_net(1, 100, 4, 376);
	memset(&r, 0, sizeof(r));
	q = request();
	assert_non_null(outnet_send(outnet, &q, cb, &r));
	assert_int_equal(r.done, 0);            /* never inside send */
	assert_int_equal(port_pool_inuse(pool), 1);
	run_until(&r.done, 1, 2000);
	assert_int_equal(r.done, 1);
	assert_int_equal(r.res, OUTNET_REPLY);
	assert_int_equal(answer_ip(&r), GOOD_IP);
	assert_true(r.was_edns);
	assert_false(r.was_tcp);
	/* the query carried the exact qname case, RD, and an OPT */
	assert_memory_equal(r.pkt + 12, qname_wire, qname_len);
	assert_int_equal(r.pkt[2] & 0x01, 1);
	assert_int_equal(port_pool_inuse(pool), 0);
	assert_in_range(R.last_src_port, 30000, 39999);
	assert_int_equal(outnet_num_active(outnet), 0);
	assert_int_equal(outnet_get_stats(outnet)->replies, 1);
	/* the rtt was recorded, EDNS learned as working */
	assert_true(rto_now() < 376);
	{
		int vs, to;
		uint8_t known;
		infra_host(infra, &q.addr, q.addrlen, zone_wire, zone_len,
			time(NULL), &vs, &known, &to);
		assert_int_equal(vs, 0);
		assert_int_equal(known, 1);
	}
	teardown_net();
}

/* n queries one after another; each answered */
static void answer_n(int n)
{
	int i;
	for(i = 0; i < n; i++) {
		struct result r;
		struct outnet_request q = request();
		memset(&r, 0, sizeof(r));
		assert_non_null(outnet_send(outnet, &q, cb, &r));
		run_until(&r.done, 1, 2000);
		assert_int_equal(r.res, OUTNET_REPLY);
	}
}

/* The kernel's ports (kernel_ports.h): with the whole default set
 * permitted and the kernel's range set in the pool, a drawn port in
 * that range is the kernel's draw at connect; the others are bound. */
static void test_kernel_port_path(void** state)
{
	struct kernel_ports k;
	int i, inside = 0;
	(void)state;
	kernel_ports_read("/proc/sys/net/ipv4", &k);
	port_set_default(avail);
	if(!kernel_ports_usable(&k, avail))
		skip();
	next_permit = "1024-65535";
	next_min_rtt = 1000;
	setup_net(1, 100, 4, 1500);
	next_min_rtt = 10;
	next_permit = "30000-39999";
	port_pool_set_kernel_range(pool, k.lo, k.hi);
	answer_n(100);
	assert_int_equal(R.num_src, 100);
	for(i = 0; i < R.num_src; i++) {
		assert_in_range(R.src_ports[i], 1024, 65535);
		inside += R.src_ports[i] >= k.lo && R.src_ports[i] <= k.hi;
	}
	/* every port in the range came from the kernel's path */
	assert_int_equal(outnet_get_stats(outnet)->kernel_ports,
		(uint64_t)inside);
	assert_in_range(inside, 10, 90);
	assert_int_equal(port_pool_inuse(pool), 0);
	/* off again: every port bound */
	port_pool_set_kernel_range(pool, 0, 0);
	answer_n(20);
	assert_int_equal(outnet_get_stats(outnet)->kernel_ports,
		(uint64_t)inside);
	teardown_net();
	/* udp-connect off: never the kernel's path */
	next_permit = "1024-65535";
	next_min_rtt = 1000;
	setup_net(0, 100, 4, 1500);
	next_min_rtt = 10;
	next_permit = "30000-39999";
	port_pool_set_kernel_range(pool, k.lo, k.hi);
	answer_n(30);
	assert_int_equal(outnet_get_stats(outnet)->kernel_ports, 0);
	teardown_net();
}

/* The pool allows exactly the kernel's range: every query takes the
 * kernel's draw (the pool draws nothing), from ports inside it. Then a
 * pool told a range that is not the kernel's (the sysctl changed since
 * it was read), with one allowed port outside it, so that it draws and
 * exchanges (test_kernel_port_refused has the count-only case): the
 * kernel's unallowed ports are refused, every port sent from is
 * allowed. */
static void test_kernel_port_all(void** state)
{
	struct kernel_ports k;
	int i, out;
	(void)state;
	kernel_ports_read("/proc/sys/net/ipv4", &k);
	if(!k.readable || !k.reserved_empty || k.hi - k.lo < 200)
		skip();
	next_min_rtt = 1000;
	setup_net(1, 100, 4, 1500);
	next_min_rtt = 10;
	memset(avail, 0, sizeof(avail));
	for(i = k.lo; i <= k.hi; i++)
		avail[i] = 1;
	assert_int_equal(port_pool_reconfigure(pool, avail, 100), 1);
	port_pool_set_kernel_range(pool, k.lo, k.hi);
	answer_n(50);
	assert_int_equal(R.num_src, 50);
	for(i = 0; i < R.num_src; i++)
		assert_in_range(R.src_ports[i], k.lo, k.hi);
	assert_int_equal(outnet_get_stats(outnet)->kernel_ports, 50);
	assert_int_equal(port_pool_inuse(pool), 0);
	out = k.lo > 1024 ? k.lo - 1 : k.hi < 65535 ? k.hi + 1 : -1;
	if(out < 0) {   /* the kernel's range is all of 1024-65535 */
		teardown_net();
		return;
	}
	memset(avail, 0, sizeof(avail));
	for(i = k.lo; i < k.lo + 100; i++)
		avail[i] = 1;
	avail[out] = 1;
	assert_int_equal(port_pool_reconfigure(pool, avail, 100), 1);
	port_pool_set_kernel_range(pool, k.lo, k.lo + 99);
	answer_n(20);
	for(i = 50; i < R.num_src; i++)
		assert_true(R.src_ports[i] == out ||
			(R.src_ports[i] >= k.lo && R.src_ports[i] <= k.lo + 99));
	assert_int_equal(port_pool_inuse(pool), 0);
	teardown_net();
}

/* A duplicate reply queued on a kernel-port socket when its query ends
 * is read at the release: the next query, which takes the same socket
 * before the event loop runs again, does not find it (no unwanted
 * reply); and the idle socket's event finds nothing later. The pool
 * permits just the kernel's range, so every query takes that path. */
static void test_kernel_port_idle_drain(void** state)
{
	struct kernel_ports k;
	char permit[32];
	int idle = 0;
	(void)state;
	kernel_ports_read("/proc/sys/net/ipv4", &k);
	if(!k.readable || !k.reserved_empty)
		skip();
	snprintf(permit, sizeof(permit), "%d-%d", k.lo, k.hi);
	next_permit = permit;
	setup_net(1, 100, 4, 376);
	next_permit = "30000-39999";
	port_pool_set_kernel_range(pool, k.lo, k.hi);
	R.mode = M_TWICE;
	answer_n(1);
	R.mode = M_ANSWER;
	answer_n(1);        /* at once: the loop did not run between */
	run_until(&idle, 1, 50);
	R.mode = M_TWICE;
	answer_n(2);
	run_until(&idle, 1, 50);
	assert_int_equal(outnet_get_stats(outnet)->kernel_ports, 4);
	assert_int_equal(outnet_get_stats(outnet)->unwanted, 0);
	assert_int_equal(port_pool_inuse(pool), 0);
	teardown_net();
}

/* A kernel's port the pool does not permit (its range changed after the
 * check): let go, and a port of the pool's bound instead. Every allowed
 * port lies in the range the pool was told: its count-only path
 * (PORT_POOL_KERNEL), the kernel's port checked with
 * port_pool_allowed. */
static void test_kernel_port_refused(void** state)
{
	struct kernel_ports k;
	int i;
	(void)state;
	kernel_ports_read("/proc/sys/net/ipv4", &k);
	if(!k.readable || k.hi - k.lo < 200)
		skip();
	/* the pool permits the lowest 100 of the kernel's range, and
	 * thinks they are the kernel's range: its draws are mostly above */
	setup_net(1, 100, 4, 376);
	memset(avail, 0, sizeof(avail));
	for(i = k.lo; i < k.lo + 100; i++)
		avail[i] = 1;
	assert_int_equal(port_pool_reconfigure(pool, avail, 100), 1);
	port_pool_set_kernel_range(pool, k.lo, k.lo + 99);
	answer_n(20);
	for(i = 0; i < R.num_src; i++)
		assert_in_range(R.src_ports[i], k.lo, k.lo + 99);
	assert_true(outnet_get_stats(outnet)->kernel_ports < 20);
	assert_int_equal(port_pool_inuse(pool), 0);
	teardown_net();
}

/* wrong ID, wrong case, wrong type: ignored; the real reply wins */
static void test_wrong_replies(void** state)
{
	enum mode modes[] = { M_WRONG_ID, M_WRONG_CASE, M_WRONG_TYPE };
	size_t i;
	(void)state;
	for(i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct result r;
		struct outnet_request q;
		setup_net(1, 100, 4, 376);
		R.mode = modes[i];
		memset(&r, 0, sizeof(r));
		q = request();
		assert_non_null(outnet_send(outnet, &q, cb, &r));
		run_until(&r.done, 1, 2000);
		assert_int_equal(r.done, 1);
		assert_int_equal(r.res, OUTNET_REPLY);
		assert_int_equal(answer_ip(&r), GOOD_IP);
		assert_int_equal(outnet_get_stats(outnet)->unwanted, 1);
		teardown_net();
	}
}

/* use-caps-for-id: the qname goes out in a random case, an echo of it
 * is a reply (question lowered); a reply in another case is a capsfail
 * (delivered at once, as Unbound: the iterator's fallback decides) */
static void test_caps(void** state)
{
	struct result r;
	struct outnet_request q;
	int i, mixed = 0;
	(void)state;
	for(i = 0; i < 4; i++) {
		setup_net(1, 100, 4, 376);
		memset(&r, 0, sizeof(r));
		q = request();
		q.caps = 1;
		assert_non_null(outnet_send(outnet, &q, cb, &r));
		run_until(&r.done, 1, 2000);
		assert_int_equal(r.res, OUTNET_REPLY);
		assert_int_equal(answer_ip(&r), GOOD_IP);
		/* delivered lowercase whatever was sent */
		{
			uint8_t low[256];
			memcpy(low, qname_wire, qname_len);
			dname_tolower(low);
			assert_memory_equal(r.pkt + 12, low, qname_len);
		}
		/* the case sent is not the one asked (10 letters) */
		mixed += memcmp(R.last_qname, qname_wire, qname_len) != 0;
		assert_int_equal(outnet_get_stats(outnet)->capsfail, 0);
		teardown_net();
	}
	assert_true(mixed > 0);   /* all 4 unchanged by chance: 2^-40 */
	setup_net(1, 100, 4, 376);
	R.mode = M_WRONG_CASE;
	memset(&r, 0, sizeof(r));
	q = request();
	q.caps = 1;
	assert_non_null(outnet_send(outnet, &q, cb, &r));
	run_until(&r.done, 1, 2000);
	assert_int_equal(r.res, OUTNET_CAPSFAIL);
	assert_int_equal(answer_ip(&r), SPOOF_IP);
	assert_int_equal(outnet_get_stats(outnet)->capsfail, 1);
	assert_int_equal(port_pool_inuse(pool), 0);
	teardown_net();
	/* PTR: the case is not checked (as Unbound) */
	setup_net(1, 100, 4, 376);
	R.mode = M_WRONG_CASE;
	memset(&r, 0, sizeof(r));
	q = request();
	q.caps = 1;
	q.qtype = 12;
	assert_non_null(outnet_send(outnet, &q, cb, &r));
	run_until(&r.done, 1, 2000);
	assert_int_equal(r.res, OUTNET_REPLY);
	assert_int_equal(outnet_get_stats(outnet)->capsfail, 0);
	teardown_net();
}

/* use-caps-for-id never sends a name without a capital: a one-letter
 * name goes out as "A." every time (an all-lowercase draw would let a
 * lowercasing server or forger pass unnoticed) */
static void test_caps_never_all_lowercase(void** state)
{
	struct result r;
	struct outnet_request q;
	int i;
	(void)state;
	setup_net(1, 100, 4, 376);
	qname_len = dname_from_str("a.", qname_wire);
	for(i = 0; i < 64; i++) {
		memset(&r, 0, sizeof(r));
		q = request();
		q.caps = 1;
		assert_non_null(outnet_send(outnet, &q, cb, &r));
		run_until(&r.done, 1, 2000);
		assert_int_equal(r.res, OUTNET_REPLY);
		assert_int_equal(R.last_qname[1], 'A');
	}
	assert_int_equal(outnet_get_stats(outnet)->capsfail, 0);
	teardown_net();
}

/* a reply from another port: the connected socket never sees it; an
 * unconnected one sees it and rejects it by address */
static void test_other_port(void** state)
{
	int connected;
	(void)state;
	for(connected = 1; connected >= 0; connected--) {
		struct result r;
		struct outnet_request q;
		setup_net(connected, 100, 4, 376);
		R.mode = M_OTHER_PORT;
		memset(&r, 0, sizeof(r));
		q = request();
		assert_non_null(outnet_send(outnet, &q, cb, &r));
		run_until(&r.done, 1, 2000);
		assert_int_equal(r.done, 1);
		assert_int_equal(r.res, OUTNET_REPLY);
		assert_int_equal(answer_ip(&r), GOOD_IP);
		assert_int_equal(outnet_get_stats(outnet)->unwanted,
			connected ? 0 : 1);
		teardown_net();
	}
}

static void test_timeout(void** state)
{
	struct result r;
	struct outnet_request q;
	(void)state;
	setup_net(1, 100, 4, 40);   /* unknown server: rto 40 ms */
	R.mode = M_DROP;
	memset(&r, 0, sizeof(r));
	q = request();
	assert_non_null(outnet_send(outnet, &q, cb, &r));
	assert_int_equal(rto_now(), 40);
	run_until(&r.done, 1, 2000);
	assert_int_equal(r.done, 1);
	assert_int_equal(r.res, OUTNET_TIMEOUT);
	assert_int_equal(rto_now(), 80);
	assert_int_equal(port_pool_inuse(pool), 0);
	/* next query uses the doubled timeout and doubles again */
	memset(&r, 0, sizeof(r));
	assert_non_null(outnet_send(outnet, &q, cb, &r));
	run_until(&r.done, 1, 2000);
	assert_int_equal(r.res, OUTNET_TIMEOUT);
	assert_int_equal(rto_now(), 160);
	teardown_net();
}

/* a reply after the timeout is dropped: one callback only */
static void test_late(void** state)
{
	struct result r;
	struct outnet_request q;
	(void)state;
	setup_net(1, 100, 4, 376);
	R.mode = M_LATE;
	memset(&r, 0, sizeof(r));
	q = request();
	q.timeout_ms = 50;
	assert_non_null(outnet_send(outnet, &q, cb, &r));
	run_until(NULL, 0, 250);
	assert_int_equal(r.done, 1);
	assert_int_equal(r.res, OUTNET_TIMEOUT);
	teardown_net();
}

/* delay-close: the socket of a timed out query stays open (its port
 * taken) until the late reply comes, which is taken quietly (not
 * unwanted, no second callback) and closes it; a reply that never
 * comes: closed when delay-close runs out. Without it (test_late) the
 * port is free at the timeout. */
static void test_delay_close(void** state)
{
	struct result r;
	struct outnet_request q;
	(void)state;
	next_delay_close = 400;
	setup_net(1, 100, 4, 376);
	next_delay_close = 0;
	R.mode = M_LATE;   /* the reply 150 ms after the query */
	memset(&r, 0, sizeof(r));
	q = request();
	q.timeout_ms = 50;
	assert_non_null(outnet_send(outnet, &q, cb, &r));
	run_until(&r.done, 1, 2000);
	assert_int_equal(r.res, OUTNET_TIMEOUT);
	assert_int_equal(port_pool_inuse(pool), 1);   /* kept open */
	assert_int_equal(outnet_num_active(outnet), 0);
	run_until(NULL, 0, 200);
	assert_int_equal(port_pool_inuse(pool), 0);   /* late reply: closed */
	assert_int_equal(r.done, 1);
	assert_int_equal(outnet_get_stats(outnet)->unwanted, 0);
	/* no reply at all: open for delay-close, then closed */
	R.mode = M_DROP;
	memset(&r, 0, sizeof(r));
	assert_non_null(outnet_send(outnet, &q, cb, &r));
	run_until(&r.done, 1, 2000);
	assert_int_equal(r.res, OUTNET_TIMEOUT);
	run_until(NULL, 0, 250);
	assert_int_equal(port_pool_inuse(pool), 1);
	run_until(NULL, 0, 300);
	assert_int_equal(port_pool_inuse(pool), 0);
	/* a lingering socket when the network goes: closed (teardown
	 * checks the pool) */
	memset(&r, 0, sizeof(r));
	assert_non_null(outnet_send(outnet, &q, cb, &r));
	run_until(&r.done, 1, 2000);
	assert_int_equal(port_pool_inuse(pool), 1);
	teardown_net();
}

static void test_tc_tcp(void** state)
{
	struct result r;
	struct outnet_request q;
	(void)state;
	/* the caller redoes over TCP */
	setup_net(1, 100, 4, 376);
	R.mode = M_TC;
	memset(&r, 0, sizeof(r));
	q = request();
	assert_non_null(outnet_send(outnet, &q, cb, &r));
	run_until(&r.done, 1, 2000);
	assert_int_equal(r.res, OUTNET_REPLY);
	assert_int_equal(r.pkt[2] & 0x02, 0x02);   /* TC */
	assert_false(r.was_tcp);
	memset(&r, 0, sizeof(r));
	q.tcp = 1;
	assert_non_null(outnet_send(outnet, &q, cb, &r));
	run_until(&r.done, 1, 2000);
	assert_int_equal(r.res, OUTNET_REPLY);
	assert_true(r.was_tcp);
	assert_int_equal(r.pkt[2] & 0x02, 0);
	assert_int_equal(answer_ip(&r), GOOD_IP);
	assert_memory_equal(r.pkt + 12, qname_wire, qname_len);
	assert_int_equal(R.tcp_queries, 1);
	/* or the outside network does it */
	memset(&r, 0, sizeof(r));
	q.tcp = 0;
	q.tcp_on_tc = 1;
	assert_non_null(outnet_send(outnet, &q, cb, &r));
	run_until(&r.done, 1, 2000);
	assert_int_equal(r.done, 1);
	assert_int_equal(r.res, OUTNET_REPLY);
	assert_true(r.was_tcp);
	assert_int_equal(answer_ip(&r), GOOD_IP);
	assert_int_equal(R.tcp_queries, 2);
	assert_int_equal(outnet_get_stats(outnet)->tcp_on_tc, 1);
	teardown_net();
}

/* udp_resend: a server that drops every other UDP reply and truncates
 * the rest (NSD's RRL, slip 2): the lost first send is sent again (new
 * ID, new port) before the timeout counts, its TC=1 reply goes to TCP,
 * and the query is answered. Without udp_resend the loss is a timeout;
 * after a timeout (the server's count is not 0) no resend either. */
static void test_udp_resend_slip(void** state)
{
	struct result r;
	struct outnet_request q;
	(void)state;
	setup_net(1, 100, 4, 40);
	R.mode = M_SLIP;
	memset(&r, 0, sizeof(r));
	q = request();
	q.tcp_on_tc = 1;
	q.udp_resend = 1;
	assert_non_null(outnet_send(outnet, &q, cb, &r));
	run_until(&r.done, 1, 2000);
	assert_int_equal(r.res, OUTNET_REPLY);
	assert_true(r.was_tcp);
	assert_int_equal(answer_ip(&r), GOOD_IP);
	assert_int_equal(R.udp_queries, 2);
	assert_int_equal(R.num_src, 2);
	assert_int_not_equal(R.src_ports[0], R.src_ports[1]);
	assert_int_equal(R.tcp_queries, 1);
	assert_int_equal(outnet_get_stats(outnet)->udp_resends, 1);
	assert_int_equal(outnet_get_stats(outnet)->timeouts, 0);
	/* not asked for: the dropped first send is a timeout */
	memset(&r, 0, sizeof(r));
	R.udp_queries = 0;
	q.udp_resend = 0;
	assert_non_null(outnet_send(outnet, &q, cb, &r));
	run_until(&r.done, 1, 2000);
	assert_int_equal(r.res, OUTNET_TIMEOUT);
	assert_int_equal(R.udp_queries, 1);
	/* the server's last query of this qtype timed out: the next
	 * loss is a timeout too (a dead server is not waited for twice) */
	memset(&r, 0, sizeof(r));
	R.udp_queries = 0;
	R.mode = M_DROP;
	q.udp_resend = 1;
	assert_non_null(outnet_send(outnet, &q, cb, &r));
	run_until(&r.done, 1, 2000);
	assert_int_equal(r.res, OUTNET_TIMEOUT);
	assert_int_equal(R.udp_queries, 1);
	assert_int_equal(outnet_get_stats(outnet)->udp_resends, 1);
	teardown_net();
}

/* outgoing-num-tcp 1: three TCP queries, one connection at a time */
static void test_tcp_slots(void** state)
{
	struct result r[3];
	struct outnet_request q;
	int i, done = 0;
	(void)state;
	/* three queries in turn, written 3 bytes at a time: room for a
	 * sanitizer build on a loaded machine (this is about the bound,
	 * not about time) */
	next_tcp_timeout = 5000;
	setup_net(1, 100, 1, 376);
	next_tcp_timeout = 1000;
	memset(r, 0, sizeof(r));
	q = request();
	q.tcp = 1;
	for(i = 0; i < 3; i++)
		assert_non_null(outnet_send(outnet, &q, cb, &r[i]));
	for(i = 0; i < 1600 && done < 3; i++) {
		run_until(NULL, 0, 10);
		done = r[0].done + r[1].done + r[2].done;
	}
	assert_int_equal(done, 3);
	for(i = 0; i < 3; i++)
		assert_int_equal(r[i].res, OUTNET_REPLY);
	assert_int_equal(R.tcp_max, 1);
	assert_int_equal(R.tcp_queries, 3);
	teardown_net();
}

static void test_edns_fallback(void** state)
{
	struct result r;
	struct outnet_request q;
	int vs, to;
	uint8_t known;
	(void)state;
	setup_net(1, 100, 4, 376);
	R.mode = M_FORMERR_EDNS;
	/* without fallback the caller sees the FORMERR */
	memset(&r, 0, sizeof(r));
	q = request();
	assert_non_null(outnet_send(outnet, &q, cb, &r));
	run_until(&r.done, 1, 2000);
	assert_int_equal(r.res, OUTNET_REPLY);
	assert_int_equal(r.pkt[3] & 0xf, 1);
	/* with fallback: redone without EDNS, and remembered */
	memset(&r, 0, sizeof(r));
	q.edns_fallback = 1;
	assert_non_null(outnet_send(outnet, &q, cb, &r));
	run_until(&r.done, 1, 2000);
	assert_int_equal(r.res, OUTNET_REPLY);
	assert_int_equal(r.pkt[3] & 0xf, 0);
	assert_false(r.was_edns);
	assert_int_equal(answer_ip(&r), GOOD_IP);
	infra_host(infra, &q.addr, q.addrlen, zone_wire, zone_len,
		time(NULL), &vs, &known, &to);
	assert_int_equal(vs, -1);
	assert_int_equal(known, 1);
	/* the next query goes without EDNS at once */
	memset(&r, 0, sizeof(r));
	R.udp_queries = 0;
	assert_non_null(outnet_send(outnet, &q, cb, &r));
	run_until(&r.done, 1, 2000);
	assert_false(r.was_edns);
	assert_int_equal(R.udp_queries, 1);
	assert_int_equal(outnet_get_stats(outnet)->edns_fallbacks, 1);
	teardown_net();
}

/* outgoing-range 2: 6 queries at once, never more than 2 ports */
static void test_port_bound(void** state)
{
	struct result r[6];
	struct outnet_request q;
	int i, done = 0;
	(void)state;
	setup_net(1, 2, 4, 376);
	R.mode = M_WRONG_ID;   /* replies take 20 ms: queries overlap */
	memset(r, 0, sizeof(r));
	q = request();
	for(i = 0; i < 6; i++)
		assert_non_null(outnet_send(outnet, &q, cb, &r[i]));
	assert_int_equal(port_pool_inuse(pool), 2);
	for(i = 0; i < 300 && done < 6; i++) {
		int j;
		run_until(NULL, 0, 5);
		assert_true(port_pool_inuse(pool) <= 2);
		for(done = 0, j = 0; j < 6; j++)
			done += r[j].done;
	}
	assert_int_equal(done, 6);
	for(i = 0; i < 6; i++)
		assert_int_equal(r[i].res, OUTNET_REPLY);
	assert_true(R.pool_max_seen <= 2);
	assert_true(outnet_get_stats(outnet)->waited >= 4);
	teardown_net();
}

/* source ports and IDs vary: 64 queries, nearly all distinct */
static void test_random_ports_ids(void** state)
{
	struct result r[64];
	struct outnet_request q;
	int i, j, dup_ports = 0, dup_ids = 0;
	uint16_t ids[64];
	(void)state;
	setup_net(1, 100, 4, 376);
	q = request();
	for(i = 0; i < 64; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		assert_non_null(outnet_send(outnet, &q, cb, &r[i]));
		run_until(&r[i].done, 1, 2000);
		assert_int_equal(r[i].res, OUTNET_REPLY);
		ids[i] = (uint16_t)((r[i].pkt[0] << 8) | r[i].pkt[1]);
	}
	assert_int_equal(R.num_src, 64);
	for(i = 0; i < 64; i++) {
		assert_in_range(R.src_ports[i], 30000, 39999);
		for(j = 0; j < i; j++) {
			dup_ports += R.src_ports[i] == R.src_ports[j];
			dup_ids += ids[i] == ids[j];
		}
	}
	/* 2016 pairs: expected duplicates 0.2 (ports) and 0.03 (IDs) */
	assert_true(dup_ports <= 3);
	assert_true(dup_ids <= 3);
	teardown_net();
}

static void test_refuse(void** state)
{
	struct config_strlist dnq = { NULL, (char*)"192.0.2.0/24" };
	struct outnet_request q;
	struct result r;
	(void)state;
	base = event_base_new();
	memset(avail, 0, sizeof(avail));
	port_set_mark(avail, "30000-30099", 1);
	pool = port_pool_create(avail, 10);
	memset(&set, 0, sizeof(set));
	set.udp_connect = 1;
	set.do_ip4 = 1;
	set.do_ip6 = 0;
	set.do_not_query_localhost = 1;
	set.donotquery = &dnq;
	set.max_waiting = 10;
	outnet = outside_network_create(base, &set, pool, NULL);
	assert_non_null(outnet);
	memset(&q, 0, sizeof(q));
	q.qname = (const uint8_t*)"\0";
	q.qname_len = 1;
	q.qtype = 2;
	q.qclass = 1;
	extstrtoaddr("127.0.0.1", 53, &q.addr, &q.addrlen);
	assert_int_equal(outnet_addr_refused(outnet, &q.addr, q.addrlen),
		OUTNET_REFUSE_DONOTQUERY);
	assert_null(outnet_send(outnet, &q, cb, &r));
	extstrtoaddr("127.8.9.10", 53, &q.addr, &q.addrlen);
	assert_null(outnet_send(outnet, &q, cb, &r));
	extstrtoaddr("192.0.2.77", 53, &q.addr, &q.addrlen);
	assert_int_equal(outnet_addr_refused(outnet, &q.addr, q.addrlen),
		OUTNET_REFUSE_DONOTQUERY);
	extstrtoaddr("::1", 53, &q.addr, &q.addrlen);
	assert_int_equal(outnet_addr_refused(outnet, &q.addr, q.addrlen),
		OUTNET_REFUSE_FAMILY);   /* do-ip6: no */
	assert_null(outnet_send(outnet, &q, cb, &r));
	extstrtoaddr("198.51.100.1", 53, &q.addr, &q.addrlen);
	assert_int_equal(outnet_addr_refused(outnet, &q.addr, q.addrlen),
		OUTNET_OK);              /* allowed (not sent here) */
	assert_int_equal(outnet_get_stats(outnet)->refused, 3);
	assert_int_equal(port_pool_inuse(pool), 0);
	outside_network_delete(outnet);
	/* ::1 is refused by do-not-query-localhost too */
	{
		struct donotq* dq = donotq_create(NULL, 1);
		extstrtoaddr("::1", 53, &q.addr, &q.addrlen);
		assert_int_equal(donotq_lookup(dq, &q.addr, q.addrlen), 1);
		extstrtoaddr("::2", 53, &q.addr, &q.addrlen);
		assert_int_equal(donotq_lookup(dq, &q.addr, q.addrlen), 0);
		donotq_delete(dq);
		dnq.str = (char*)"not-an-address";
		assert_null(donotq_create(&dnq, 0));
	}
	/* outgoing-interface: only IPv4 configured refuses IPv6 */
	{
		struct config_strlist oif = { NULL, (char*)"127.0.0.1" };
		set.out_ifs = &oif;
		set.do_ip6 = 1;
		set.donotquery = NULL;
		set.do_not_query_localhost = 0;
		outnet = outside_network_create(base, &set, pool, NULL);
		assert_non_null(outnet);
		extstrtoaddr("::1", 53, &q.addr, &q.addrlen);
		assert_int_equal(outnet_addr_refused(outnet, &q.addr,
			q.addrlen), OUTNET_REFUSE_FAMILY);
		outside_network_delete(outnet);
		oif.str = (char*)"10.0.0.0/8";
		assert_null(outside_network_create(base, &set, pool, NULL));
	}
	/* a bad qname is refused */
	port_pool_delete(pool);
	event_base_free(base);
}

/* outgoing-interface 127.0.0.1: queries go from it */
static void test_outgoing_interface(void** state)
{
	struct config_strlist oif = { NULL, (char*)"127.0.0.1" };
	struct result r;
	struct outnet_request q;
	(void)state;
	setup_net(1, 100, 4, 376);
	outside_network_delete(outnet);
	set.out_ifs = &oif;
	outnet = outside_network_create(base, &set, pool, infra);
	assert_non_null(outnet);
	memset(&r, 0, sizeof(r));
	q = request();
	assert_non_null(outnet_send(outnet, &q, cb, &r));
	run_until(&r.done, 1, 2000);
	assert_int_equal(r.res, OUTNET_REPLY);
	memset(&r, 0, sizeof(r));
	q.tcp = 1;
	assert_non_null(outnet_send(outnet, &q, cb, &r));
	run_until(&r.done, 1, 2000);
	assert_int_equal(r.res, OUTNET_REPLY);
	/* bad requests */
	q.qname_len = 3;   /* not a whole name */
	assert_null(outnet_send(outnet, &q, cb, &r));
	teardown_net();
}

/* cancel and delete with queries in flight: no callback, no leak */
static void test_cancel_shutdown(void** state)
{
	struct result r[4];
	struct outnet_query* a;
	struct outnet_request q;
	int i;
	(void)state;
	setup_net(1, 100, 1, 376);
	R.mode = M_DROP;
	memset(r, 0, sizeof(r));
	q = request();
	a = outnet_send(outnet, &q, cb, &r[0]);
	assert_non_null(a);
	assert_int_equal(port_pool_inuse(pool), 1);
	outnet_cancel(a);
	assert_int_equal(port_pool_inuse(pool), 0);
	assert_non_null(outnet_send(outnet, &q, cb, &r[1]));
	q.tcp = 1;
	assert_non_null(outnet_send(outnet, &q, cb, &r[2]));
	assert_non_null(outnet_send(outnet, &q, cb, &r[3])); /* waits */
	run_until(NULL, 0, 20);
	assert_int_equal(outnet_num_active(outnet), 3);
	for(i = 0; i < 4; i++)
		assert_int_equal(r[i].done, 0);
	teardown_net();   /* deletes with the queries in flight */
	for(i = 0; i < 4; i++)
		assert_int_equal(r[i].done, 0);
}

/* ICMP port unreachable on the connected socket: ignored (a forged
 * ICMP must not end a query), so a timeout; TCP refused: an error */
static void test_refused_port(void** state)
{
	struct result r;
	struct outnet_request q;
	int fd;
	(void)state;
	setup_net(1, 100, 4, 376);
	/* a port nobody listens on: bind one and close it */
	fd = bind_lo(SOCK_DGRAM, 0);
	{
		struct sockaddr_in a;
		socklen_t len = sizeof(a);
		getsockname(fd, (struct sockaddr*)&a, &len);
		q = request();
		((struct sockaddr_in*)&q.addr)->sin_port = a.sin_port;
	}
	close(fd);
	memset(&r, 0, sizeof(r));
	q.timeout_ms = 100;
	assert_non_null(outnet_send(outnet, &q, cb, &r));
	run_until(&r.done, 1, 2000);
	assert_int_equal(r.done, 1);
	assert_int_equal(r.res, OUTNET_TIMEOUT);
	/* and over TCP: connection refused */
	memset(&r, 0, sizeof(r));
	q.tcp = 1;
	assert_non_null(outnet_send(outnet, &q, cb, &r));
	run_until(&r.done, 1, 2000);
	assert_int_equal(r.res, OUTNET_ERROR);
	teardown_net();
}

/* an IPv6 server on ::1 (skipped when the host has no IPv6) */
static void test_ipv6(void** state)
{
	struct sockaddr_in6 a;
	socklen_t len = sizeof(a);
	struct result r;
	struct outnet_request q;
	struct event* ev;
	int fd;
	(void)state;
	setup_net(1, 100, 4, 376);
	fd = socket(AF_INET6, SOCK_DGRAM, 0);
	memset(&a, 0, sizeof(a));
	a.sin6_family = AF_INET6;
	a.sin6_addr = in6addr_loopback;
	if(fd < 0 || bind(fd, (struct sockaddr*)&a, sizeof(a)) != 0) {
		if(fd >= 0)
			close(fd);
		teardown_net();
		skip();
	}
	getsockname(fd, (struct sockaddr*)&a, &len);
	fd_set_nonblock(fd);
	ev = event_new(base, fd, EV_READ | EV_PERSIST, udp_read, NULL);
	event_add(ev, NULL);
	memset(&r, 0, sizeof(r));
	q = request();
	assert_int_equal(extstrtoaddr("::1", ntohs(a.sin6_port), &q.addr,
		&q.addrlen), 1);
	assert_non_null(outnet_send(outnet, &q, cb, &r));
	run_until(&r.done, 1, 2000);
	assert_int_equal(r.res, OUTNET_REPLY);
	assert_int_equal(answer_ip(&r), GOOD_IP);
	assert_in_range(R.last_src_port, 30000, 39999);
	event_free(ev);
	close(fd);
	teardown_net();
}

/* ---- TCP connection reuse ---- */

/* Recreate the outside network with other TCP settings. */
static void renew_outnet(int num_tcp, int max_reuse, int reuse_timeout)
{
	outside_network_delete(outnet);
	set.num_tcp = num_tcp;
	set.max_reuse_tcp = max_reuse;
	set.tcp_reuse_timeout = reuse_timeout;
	outnet = outside_network_create(base, &set, pool, infra);
	assert_non_null(outnet);
}

/* TCP queries for "q<i>.example." (names kept in names[i]) */
static uint8_t names[64][32];
static size_t names_len[64];

static struct outnet_request tcp_request(int i)
{
	struct outnet_request q = request();
	char txt[32];
	snprintf(txt, sizeof(txt), "q%d.example.", i);
	names_len[i] = dname_from_str(txt, names[i]);
	q.qname = names[i];
	q.qname_len = names_len[i];
	q.tcp = 1;
	q.timeout_ms = 4000;   /* replies may trickle: not a test of time */
	return q;
}

static int sum_done(const struct result* r, int n)
{
	int i, d = 0;
	for(i = 0; i < n; i++)
		d += r[i].done;
	return d;
}

static void run_until_all(struct result* r, int n, int ms)
{
	int i;
	for(i = 0; i < ms / 5 && sum_done(r, n) < n; i++)
		run_until(NULL, 0, 5);
}

/* the reply is for q<i>: its question is that name */
static void assert_reply_for(const struct result* r, int i)
{
	assert_int_equal(r->done, 1);
	assert_int_equal(r->res, OUTNET_REPLY);
	assert_true(r->was_tcp);
	assert_true(r->len > 12 + names_len[i]);
	assert_memory_equal(r->pkt + 12, names[i], names_len[i]);
	assert_int_equal(answer_ip(r), GOOD_IP);
}

/* 20 queries one after another, then 20 at once: one connection */
static void test_tcp_reuse(void** state)
{
	struct result r[20];
	struct outnet_request q;
	int i;
	(void)state;
	setup_net(1, 100, 10, 376);
	R.tcp_trickle = 0;
	memset(r, 0, sizeof(r));
	for(i = 0; i < 20; i++) {
		q = tcp_request(i);
		assert_non_null(outnet_send(outnet, &q, cb, &r[i]));
		run_until(&r[i].done, 1, 2000);
		assert_reply_for(&r[i], i);
	}
	assert_int_equal(R.tcp_accepts, 1);
	assert_int_equal(R.tcp_queries, 20);
	assert_int_equal(outnet_num_tcp_conns(outnet), 1);  /* kept */
	assert_int_equal(outnet_get_stats(outnet)->tcp_conns, 1);
	assert_int_equal(outnet_get_stats(outnet)->tcp_reused, 19);
	/* pipelined: all 20 in flight on the same connection */
	memset(r, 0, sizeof(r));
	for(i = 0; i < 20; i++) {
		q = tcp_request(i);
		assert_non_null(outnet_send(outnet, &q, cb, &r[i]));
	}
	run_until_all(r, 20, 3000);
	for(i = 0; i < 20; i++)
		assert_reply_for(&r[i], i);
	assert_int_equal(R.tcp_accepts, 1);
	assert_int_equal(R.tcp_max, 1);
	/* UDP is untouched: a random port per query, as before */
	memset(r, 0, sizeof(r));
	q = request();
	assert_non_null(outnet_send(outnet, &q, cb, &r[0]));
	run_until(&r[0].done, 1, 2000);
	assert_int_equal(r[0].res, OUTNET_REPLY);
	assert_false(r[0].was_tcp);
	assert_in_range(R.last_src_port, 30000, 39999);
	teardown_net();
}

/* answers in reverse order (partial reads, one byte per ms): each goes
 * to the query it answers, by ID and question */
static void test_tcp_out_of_order(void** state)
{
	struct result r[8];
	struct outnet_request q;
	int i;
	(void)state;
	setup_net(1, 100, 10, 376);
	R.tcp_mode = T_REVERSE;
	R.tcp_batch = 8;
	memset(r, 0, sizeof(r));
	for(i = 0; i < 8; i++) {
		q = tcp_request(i);
		assert_non_null(outnet_send(outnet, &q, cb, &r[i]));
	}
	run_until_all(r, 8, 5000);
	for(i = 0; i < 8; i++)
		assert_reply_for(&r[i], i);
	assert_int_equal(R.tcp_accepts, 1);
	assert_int_equal(outnet_get_stats(outnet)->unwanted, 0);
	/* the same question 8 times: told apart by ID alone */
	memset(r, 0, sizeof(r));
	q = tcp_request(0);
	for(i = 0; i < 8; i++)
		assert_non_null(outnet_send(outnet, &q, cb, &r[i]));
	run_until_all(r, 8, 5000);
	for(i = 0; i < 8; i++)
		assert_reply_for(&r[i], 0);
	assert_int_equal(R.tcp_accepts, 1);
	assert_int_equal(outnet_get_stats(outnet)->unwanted, 0);
	teardown_net();
}

/* a server that closes after each answer: the next query reconnects,
 * queries pipelined behind the answered one move to a new connection */
static void test_tcp_server_closes(void** state)
{
	struct result r[4];
	struct outnet_request q;
	int i;
	(void)state;
	setup_net(1, 100, 10, 376);
	R.tcp_mode = T_CLOSE_AFTER_ONE;
	R.tcp_trickle = 0;
	memset(r, 0, sizeof(r));
	q = tcp_request(0);
	assert_non_null(outnet_send(outnet, &q, cb, &r[0]));
	run_until(&r[0].done, 1, 2000);
	assert_reply_for(&r[0], 0);
	run_until(NULL, 0, 30);   /* the FIN arrives: the conn goes */
	assert_int_equal(outnet_num_tcp_conns(outnet), 0);
	q = tcp_request(1);
	assert_non_null(outnet_send(outnet, &q, cb, &r[1]));
	run_until(&r[1].done, 1, 2000);
	assert_reply_for(&r[1], 1);
	assert_int_equal(R.tcp_accepts, 2);
	/* 4 at once: one answer per connection, the rest move on */
	memset(r, 0, sizeof(r));
	for(i = 0; i < 4; i++) {
		q = tcp_request(i);
		assert_non_null(outnet_send(outnet, &q, cb, &r[i]));
	}
	run_until_all(r, 4, 5000);
	for(i = 0; i < 4; i++)
		assert_reply_for(&r[i], i);
	assert_int_equal(R.tcp_accepts, 6);
	assert_true(outnet_get_stats(outnet)->tcp_moved >= 3);
	teardown_net();
}

/* tcp-reuse-timeout: an idle connection closes after it (and the
 * server sees the close), a busy one does not */
static void test_tcp_idle_timeout(void** state)
{
	struct result r[2];
	struct outnet_request q;
	(void)state;
	setup_net(1, 100, 10, 376);
	renew_outnet(10, 200, 150);
	R.tcp_trickle = 0;
	memset(r, 0, sizeof(r));
	q = tcp_request(0);
	assert_non_null(outnet_send(outnet, &q, cb, &r[0]));
	run_until(&r[0].done, 1, 2000);
	assert_reply_for(&r[0], 0);
	run_until(NULL, 0, 60);
	assert_int_equal(outnet_num_tcp_conns(outnet), 1);
	assert_int_equal(R.tcp_now, 1);
	/* used again before the timeout: the timer starts over */
	q = tcp_request(1);
	assert_non_null(outnet_send(outnet, &q, cb, &r[1]));
	run_until(&r[1].done, 1, 2000);
	assert_reply_for(&r[1], 1);
	run_until(NULL, 0, 100);
	assert_int_equal(outnet_num_tcp_conns(outnet), 1);
	assert_int_equal(R.tcp_accepts, 1);
	run_until(NULL, 0, 200);
	assert_int_equal(outnet_num_tcp_conns(outnet), 0);
	assert_int_equal(R.tcp_now, 0);   /* the server saw the close */
	teardown_net();
}

/* outgoing-num-tcp 2 and 4 servers: never more than 2 connections,
 * an idle one is closed for a waiting query to another server; and
 * max-reuse-tcp-queries 5: 12 queries use 3 connections */
static void test_tcp_bounds(void** state)
{
	struct result r[8];
	struct outnet_request q;
	int i, j;
	(void)state;
	setup_net(1, 100, 2, 376);
	R.tcp_trickle = 0;
	R.tcp_mode = T_REVERSE;   /* hold each query until 2 are in */
	R.tcp_batch = 2;
	memset(r, 0, sizeof(r));
	for(i = 0; i < 8; i++) {
		int port = (i % 4) == 0 ? R.port : R.extra_port[i % 4 - 1];
		q = tcp_request(i);
		((struct sockaddr_in*)&q.addr)->sin_port = htons(
			(uint16_t)port);
		assert_non_null(outnet_send(outnet, &q, cb, &r[i]));
	}
	for(j = 0; j < 600 && sum_done(r, 8) < 8; j++) {
		run_until(NULL, 0, 5);
		assert_true(outnet_num_tcp_conns(outnet) <= 2);
	}
	for(i = 0; i < 8; i++)
		assert_reply_for(&r[i], i);
	assert_true(R.tcp_max <= 2);
	assert_int_equal(R.tcp_accepts, 4);
	assert_true(outnet_get_stats(outnet)->waited >= 4);
	teardown_net();

	setup_net(1, 100, 10, 376);
	renew_outnet(10, 5, 60000);
	R.tcp_trickle = 0;
	for(i = 0; i < 12; i++) {
		memset(&r[0], 0, sizeof(r[0]));
		q = tcp_request(i);
		assert_non_null(outnet_send(outnet, &q, cb, &r[0]));
		run_until(&r[0].done, 1, 2000);
		assert_reply_for(&r[0], i);
	}
	assert_int_equal(R.tcp_accepts, 3);
	assert_int_equal(outnet_get_stats(outnet)->tcp_conns, 3);
	/* the used-up ones closed after their last answer */
	assert_int_equal(outnet_num_tcp_conns(outnet), 1);
	teardown_net();
}

/* a reply with a wrong ID on a reused connection is skipped (not given
 * to the query), the right one then matches */
static void test_tcp_wrong_id(void** state)
{
	struct result r[3];
	struct outnet_request q;
	int i;
	(void)state;
	setup_net(1, 100, 10, 376);
	R.tcp_trickle = 0;
	memset(r, 0, sizeof(r));
	q = tcp_request(0);
	assert_non_null(outnet_send(outnet, &q, cb, &r[0]));
	run_until(&r[0].done, 1, 2000);
	assert_reply_for(&r[0], 0);
	R.tcp_mode = T_WRONG_ID;
	for(i = 1; i < 3; i++) {
		q = tcp_request(i);
		assert_non_null(outnet_send(outnet, &q, cb, &r[i]));
		run_until(&r[i].done, 1, 2000);
		assert_reply_for(&r[i], i);   /* GOOD_IP, not SPOOF_IP */
	}
	assert_int_equal(outnet_get_stats(outnet)->unwanted, 2);
	assert_int_equal(R.tcp_accepts, 1);
	teardown_net();
}

/* a frame that is no DNS message drops the connection: the query on a
 * reused connection moves to a new one (and gets its answer); on a
 * server that only sends such frames it ends in an error, cleanly */
static void test_tcp_garbage(void** state)
{
	struct result r[4];
	struct outnet_request q;
	int i;
	(void)state;
	setup_net(1, 100, 10, 376);
	R.tcp_trickle = 0;
	R.tcp_mode = T_GARBAGE_ONCE;
	memset(r, 0, sizeof(r));
	for(i = 0; i < 2; i++) {
		q = tcp_request(i);
		assert_non_null(outnet_send(outnet, &q, cb, &r[i]));
		run_until(&r[i].done, 1, 2000);
		assert_reply_for(&r[i], i);
	}
	assert_int_equal(R.tcp_accepts, 2);
	assert_int_equal(outnet_get_stats(outnet)->tcp_dropped, 1);
	assert_int_equal(outnet_get_stats(outnet)->tcp_moved, 1);
	teardown_net();

	setup_net(1, 100, 10, 376);
	R.tcp_trickle = 0;
	R.tcp_mode = T_GARBAGE;
	memset(r, 0, sizeof(r));
	for(i = 0; i < 4; i++) {
		q = tcp_request(i);
		assert_non_null(outnet_send(outnet, &q, cb, &r[i]));
	}
	run_until_all(r, 4, 3000);
	for(i = 0; i < 4; i++) {
		assert_int_equal(r[i].done, 1);
		assert_int_equal(r[i].res, OUTNET_ERROR);
	}
	/* ones not written yet when the junk came move once */
	assert_in_range(R.tcp_accepts, 1, 2);
	assert_int_equal(outnet_num_active(outnet), 0);
	assert_int_equal(outnet_num_tcp_conns(outnet), 0);
	teardown_net();
}

/* a connection that stays silent: the query times out, and the next
 * query goes to a new connection, not into the black hole */
static void test_tcp_silent(void** state)
{
	struct result r[2];
	struct outnet_request q;
	(void)state;
	setup_net(1, 100, 10, 376);
	R.tcp_trickle = 0;
	R.tcp_mode = T_SILENT;
	memset(r, 0, sizeof(r));
	q = tcp_request(0);
	q.timeout_ms = 100;
	assert_non_null(outnet_send(outnet, &q, cb, &r[0]));
	run_until(&r[0].done, 1, 2000);
	assert_int_equal(r[0].res, OUTNET_TIMEOUT);
	/* the silent one is closed (its last query gone) */
	assert_int_equal(outnet_num_tcp_conns(outnet), 0);
	R.tcp_mode = T_ANSWER;
	q = tcp_request(1);
	assert_non_null(outnet_send(outnet, &q, cb, &r[1]));
	run_until(&r[1].done, 1, 2000);
	assert_reply_for(&r[1], 1);
	assert_int_equal(R.tcp_accepts, 2);
	teardown_net();
}

/* a query cancelled while on a shared connection: the others still
 * get their answers (the stream stays whole) */
static void test_tcp_cancel_shared(void** state)
{
	struct result r[4];
	struct outnet_query* qs[4];
	struct outnet_request q;
	int i;
	(void)state;
	setup_net(1, 100, 10, 376);
	memset(r, 0, sizeof(r));
	for(i = 0; i < 4; i++) {
		q = tcp_request(i);
		qs[i] = outnet_send(outnet, &q, cb, &r[i]);
		assert_non_null(qs[i]);
	}
	outnet_cancel(qs[1]);          /* before it was written */
	run_until(NULL, 0, 3);         /* partly written (3-byte chunks) */
	outnet_cancel(qs[2]);
	for(i = 0; i < 300 && r[0].done + r[3].done < 2; i++)
		run_until(NULL, 0, 10);
	assert_reply_for(&r[0], 0);
	assert_reply_for(&r[3], 3);
	assert_int_equal(r[1].done + r[2].done, 0);
	assert_int_equal(R.tcp_accepts, 1);
	teardown_net();
}

/* outgoing-interface 127.0.0.2: TCP leaves from it (bound with
 * IP_BIND_ADDRESS_NO_PORT where the kernel has it) */
static void test_tcp_outgoing_interface(void** state)
{
	struct config_strlist oif = { NULL, (char*)"127.0.0.2" };
	struct result r[3];
	struct outnet_request q;
	int i;
	(void)state;
	setup_net(1, 100, 4, 376);
	outside_network_delete(outnet);
	set.out_ifs = &oif;
	outnet = outside_network_create(base, &set, pool, infra);
	assert_non_null(outnet);
	set.out_ifs = NULL;
	R.tcp_trickle = 0;
	memset(r, 0, sizeof(r));
	for(i = 0; i < 3; i++) {
		q = tcp_request(i);
		assert_non_null(outnet_send(outnet, &q, cb, &r[i]));
		run_until(&r[i].done, 1, 2000);
		assert_reply_for(&r[i], i);
	}
	assert_int_equal(R.last_tcp_peer, 0x7f000002u);
	assert_int_equal(R.tcp_accepts, 1);
	teardown_net();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_answer),
		cmocka_unit_test(test_kernel_port_path),
		cmocka_unit_test(test_kernel_port_refused),
		cmocka_unit_test(test_kernel_port_all),
		cmocka_unit_test(test_kernel_port_idle_drain),
		cmocka_unit_test(test_wrong_replies),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_caps_never_all_lowercase),
		cmocka_unit_test(test_other_port),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_udp_resend_slip),
		cmocka_unit_test(test_late),
		cmocka_unit_test(test_delay_close),
		cmocka_unit_test(test_tc_tcp),
		cmocka_unit_test(test_tcp_slots),
		cmocka_unit_test(test_edns_fallback),
		cmocka_unit_test(test_port_bound),
		cmocka_unit_test(test_random_ports_ids),
		cmocka_unit_test(test_refuse),
		cmocka_unit_test(test_outgoing_interface),
		cmocka_unit_test(test_cancel_shutdown),
		cmocka_unit_test(test_refused_port),
		cmocka_unit_test(test_ipv6),
		cmocka_unit_test(test_tcp_reuse),
		cmocka_unit_test(test_tcp_out_of_order),
		cmocka_unit_test(test_tcp_server_closes),
		cmocka_unit_test(test_tcp_idle_timeout),
		cmocka_unit_test(test_tcp_bounds),
		cmocka_unit_test(test_tcp_wrong_id),
		cmocka_unit_test(test_tcp_garbage),
		cmocka_unit_test(test_tcp_silent),
		cmocka_unit_test(test_tcp_cancel_shared),
		cmocka_unit_test(test_tcp_outgoing_interface),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
