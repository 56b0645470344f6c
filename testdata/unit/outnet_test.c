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
	M_FORMERR_EDNS     /* FORMERR (no question) when the query has EDNS */
};

#define SPOOF_IP 0x06060606u
#define GOOD_IP 0x7f000001u

struct tcp_conn {
	int fd;
	struct event* ev;
	struct event* tick;
	uint8_t in[1024];
	size_t inlen;
	uint8_t out[1024];
	size_t outlen, outpos;
	struct tcp_conn* next;
};

struct responder {
	struct event_base* base;
	int udp, udp2, tcp;
	int port;                  /* same number for UDP and TCP */
	struct event* ev_udp, * ev_tcp;
	enum mode mode;
	int udp_queries, tcp_queries, tcp_now, tcp_max;
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
	if(R.mode == M_ANSWER || R.mode == M_FORMERR_EDNS) {
		sendto(fd, a, alen, 0, (struct sockaddr*)&from, fromlen);
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

/* the reply goes out one byte per millisecond: partial reads there */
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

static void tcp_read(evutil_socket_t fd, short ev, void* arg)
{
	struct tcp_conn* c = arg;
	ssize_t n;
	size_t qlen, alen;
	struct timeval tv = { 0, 1000 };
	(void)ev;
	n = recv(fd, c->in + c->inlen, sizeof(c->in) - c->inlen, 0);
	if(n <= 0) {
		conn_free(c);
		return;
	}
	c->inlen += (size_t)n;
	if(c->inlen < 2)
		return;
	qlen = ((size_t)c->in[0] << 8) | c->in[1];
	if(c->inlen < 2 + qlen || c->outlen)
		return;
	R.tcp_queries++;
	alen = make_answer(c->in + 2, qlen, c->out + 2, GOOD_IP, 0);
	c->out[0] = (uint8_t)(alen >> 8);
	c->out[1] = (uint8_t)alen;
	c->outlen = alen + 2;
	evtimer_add(c->tick, &tv);
}

static void tcp_accept(evutil_socket_t fd, short ev, void* arg)
{
	int s = accept(fd, NULL, NULL);
	struct tcp_conn* c;
	(void)ev; (void)arg;
	if(s < 0)
		return;
	fd_set_nonblock(s);
	c = calloc(1, sizeof(*c));
	c->fd = s;
	c->ev = event_new(R.base, s, EV_READ | EV_PERSIST, tcp_read, c);
	c->tick = evtimer_new(R.base, tcp_tick, c);
	event_add(c->ev, NULL);
	c->next = R.conns;
	R.conns = c;
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

static void setup_net(int udp_connect, int range, int num_tcp,
	int unknown_rtt)
{
	struct infra_settings is;
	base = event_base_new();
	assert_non_null(base);
	responder_start(base);
	memset(avail, 0, sizeof(avail));
	port_set_mark(avail, "30000-39999", 1);
	pool = port_pool_create(avail, range);
	assert_non_null(pool);
	R.pool = pool;
	infra_settings_default(&is);
	is.unknown_rtt = unknown_rtt;
	is.min_rtt = 10;
	infra = infra_create(&is);
	memset(&set, 0, sizeof(set));
	set.udp_connect = udp_connect;
	set.num_tcp = num_tcp;
	set.do_ip4 = set.do_ip6 = 1;
	set.do_not_query_localhost = 0;   /* the responder is on loopback */
	set.edns_size = 1232;
	set.tcp_timeout = 1000;
	set.max_waiting = 100;
	set.tcp_write_chunk = 3;          /* partial writes over TCP */
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

/* outgoing-num-tcp 1: three TCP queries, one connection at a time */
static void test_tcp_slots(void** state)
{
	struct result r[3];
	struct outnet_request q;
	int i, done = 0;
	(void)state;
	setup_net(1, 100, 1, 376);
	memset(r, 0, sizeof(r));
	q = request();
	q.tcp = 1;
	for(i = 0; i < 3; i++)
		assert_non_null(outnet_send(outnet, &q, cb, &r[i]));
	for(i = 0; i < 200 && done < 3; i++) {
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_answer),
		cmocka_unit_test(test_wrong_replies),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_caps_never_all_lowercase),
		cmocka_unit_test(test_other_port),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_late),
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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
