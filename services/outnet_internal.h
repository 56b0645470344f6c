/* SPDX-License-Identifier: BSD-3-Clause */
/* services/outnet_internal.h - what outside_network.c (queries, UDP)
 * and outnet_tcp.c (upstream TCP connections) share. Not for other
 * users: the API is services/outside_network.h. */
#ifndef SERVICES_OUTNET_INTERNAL_H
#define SERVICES_OUTNET_INTERNAL_H
#include "services/outside_network.h"
#include "util/msgparse.h"
#include "util/wire_int.h"
#include <time.h>
#include <event2/util.h>

struct event;
struct event_base;
struct ub_randstate;
struct outnet_tcp_conn;
struct kudp_sock;

/* the largest query we build: header, qname, qtype/qclass, OPT */
#define QBUF_MAX (LDNS_HEADER_SIZE + LDNS_MAX_DOMAINLEN + 1 + 4 + 11 + \
	OUTNET_OPT_MAX)

enum qstate {
	Q_WAIT_PORT,   /* no free source port yet */
	Q_UDP,         /* sent, waiting for the reply */
	Q_WAIT_TCP,    /* no connection or TCP slot for it yet */
	Q_TCP,         /* on a connection: to be written, or sent */
	Q_FAILED,      /* error found while starting: deliver soon */
	Q_LINGER       /* delay-close: a timed out query's socket, kept
	                * open (no callback) so a late reply finds it */
};

struct qlist {
	struct outnet_query* prev, * next;
};

struct outnet_query {
	struct outside_network* o;
	struct qlist all;          /* every live query (for delete) */
	struct qlist wait;         /* the wait list of its state */
	enum qstate state;
	/* what to ask */
	socklen_t addrlen;
	size_t zonelen;
	uint16_t qtype, qclass;
	size_t qname_len;
	int edns_known;            /* infra knew the EDNS status */
	int fallback_done;         /* the no-EDNS retry was sent */
	int resent;                /* the udp_resend was sent */
	size_t pktlen;
	uint16_t id;
	int use_edns;
	int is_tcp;
	int is_tls;                /* over TLS (is_tcp is set too) */
	struct ssl_ctx_st* tls_ctx;
	int timeout_ms;
	struct timespec sent;
	struct timespec tap_sent;  /* dnstap: when sent (CLOCK_REALTIME) */
	/* UDP socket */
	int fd;
	int port;                  /* from the pool, or -1 */
	struct kudp_sock* ks;      /* fd is this kernel-port socket's */
	struct event* ev;          /* io (not for a kernel-port socket) */
	struct event* timer;       /* timeout (and async error delivery) */
	/* TCP: the connection it is on (outnet_tcp.c) */
	struct outnet_tcp_conn* conn;
	struct qlist on_conn;      /* the connection's queries */
	struct outnet_query* wq_next;  /* the connection's write queue */
	int in_wq;                 /* waits there to be written */
	int tcp_sent;              /* its frame went to the connection */
	int tcp_moves;             /* moved without progress (at most 1) */
	int answered_at_attach;    /* its connection's answers then */
	outnet_cb_t cb;
	void* cb_arg;
	/* last, and not cleared for a reused query (query_new): outnet_send
	 * writes each before it is read, and clearing these 1.2 KB was
	 * about 150 instructions a query */
	struct sockaddr_storage addr;
	struct outnet_request req; /* flags; its pointers are not kept */
	uint8_t zone[LDNS_MAX_DOMAINLEN + 1];  /* zonelen bytes */
	/* the packet (ID and OPT change between attempts), pktlen bytes */
	uint8_t pkt[QBUF_MAX];
	char tls_name[256];        /* "": no authentication name; for TLS
	                            * zeroes after the name (it is copied
	                            * whole to the connection) */
};

struct wait_list {
	struct outnet_query* head, * tail;
	int num;
};

struct dnstap_tap;

struct outside_network {
	struct event_base* base;
	struct outnet_settings s;
	struct port_pool* pool;
	struct infra_cache* infra;
	struct ub_randstate* rnd;
	struct donotq* dq;
	struct sockaddr_storage* ifs4, * ifs6;  /* outgoing-interface */
	int num_ifs4, num_ifs6;
	int any_ifs;               /* outgoing-interface was configured */
	struct outnet_query* all;  /* live queries, lingering ones too */
	int num_active;            /* not counting the lingering ones */
	int num_lingering;         /* Q_LINGER sockets (delay-close) */
	/* freed queries kept for reuse (linked by all.next), with their
	 * events: a query is over 1 KiB, and glibc sorts its free chunks
	 * (malloc_consolidate) at every allocation that large */
	struct outnet_query* spare;
	int num_spare;
	struct wait_list wait_udp, wait_tcp;
	struct event* poll;        /* retries waiting UDP queries */
	uint8_t* udp_buf;
	/* TCP (outnet_tcp.c) */
	struct outnet_tcp_conn* conns;  /* open connections, newest first */
	int num_conns;             /* at most s.num_tcp */
	struct event* tcp_serve;   /* zero timer: serve wait_tcp */
	struct tls_session_cache* tls_sessions;  /* for resumption */
	int no_port_refused;       /* IP_BIND_ADDRESS_NO_PORT said no:
	                            * bit 1 IPv4, bit 2 IPv6 */
	/* idle kernel-port sockets (outside_network.c), per family (0
	 * IPv4, 1 IPv6) and outgoing-interface (index 0: the wildcard) */
	struct kudp_sock** kidle[2];
	int num_kidle;
	int kernel_refused;        /* as no_port_refused, for UDP */
	struct outnet_stats stats;
	unsigned unwanted_total;   /* toward s.unwanted_threshold */
	void (*unwanted_action)(void*);
	void* unwanted_arg;
	struct dnstap_tap* tap;    /* dnstap of resolver and forwarder
	                            * messages; NULL: none */
	time_t no_port_logged;     /* last "no outgoing port" log line */
	uint64_t no_port_quiet;    /* failures since, not logged */
};

/* outside_network.c */
/* dnstap: q's packet went out now (o->tap set) */
void outnet_tap_query(struct outnet_query* q);
void outnet_wait_add(struct wait_list* l, struct outnet_query* q);
void outnet_wait_remove(struct wait_list* l, struct outnet_query* q);
int outnet_ms_since(const struct timespec* t);
void outnet_timer_after(struct event* ev, int ms);
/* Give back the query's socket, port or connection; it stays. */
void outnet_release_io(struct outnet_query* q);
/* Deliver OUTNET_ERROR from a zero timer (never nested). */
void outnet_fail_soon(struct outnet_query* q);
/* Is pkt the reply to q (outnet_reply_matches on q's packet)? 0: not
 * the reply, 1: it is, 2: it is but the qname case differs */
int outnet_query_matches(const struct outnet_query* q, const uint8_t* pkt,
	size_t len);
int outnet_reply_wanted(const struct outnet_query* q, int m);
/* caps: 1 when delivered as a capsfail (else the question is lowered) */
int outnet_caps_check(struct outnet_query* q, uint8_t* pkt, size_t len,
	int m);
/* A matched reply: deliver it, or redo the query (EDNS fallback). */
void outnet_got_reply(struct outnet_query* q, const uint8_t* pkt,
	size_t len);
int outnet_source_addr(struct outside_network* o, int family, int port,
	struct sockaddr_storage* a, socklen_t* alen);
void outnet_start_attempt(struct outnet_query* q);

/* outnet_tcp.c */
/* Put q on a reusable connection to its server, open one, or let it
 * wait (Q_WAIT_TCP) for a slot; errors go through outnet_fail_soon. */
void outnet_tcp_start(struct outnet_query* q);
/* q timed out on its connection: one silent since q went on takes no
 * new queries (closes when its last query is gone). */
void outnet_tcp_timed_out(struct outnet_query* q);
/* Take q off its connection (the connection stays for others). */
void outnet_tcp_detach(struct outnet_query* q);
/* Close every connection (no queries may be on them) and free the
 * tcp_serve timer. */
void outnet_tcp_close_all(struct outside_network* o);
/* o->tcp_serve: retry the queries waiting for a connection. */
void outnet_tcp_serve_cb(evutil_socket_t fd, short ev, void* arg);

#endif
