/* SPDX-License-Identifier: BSD-3-Clause */
/* services/outside_network.h - compat: unbound-1.17: queries to upstream
 * servers, one outside_network per worker, on the worker's libevent base.
 *
 * UDP: every query gets its own socket bound to a random source port
 * from the daemon-wide port pool (services/port_pool.h), connect()ed to
 * the server when udp-connect is yes (the default), so the kernel drops
 * datagrams from any other address or port. The 16-bit ID is random
 * (util/random.h). A reply is accepted only when its ID and question
 * (qname byte for byte, so the 0x20 case too, qtype, qclass) match; any
 * other datagram is counted as unwanted and the query keeps waiting.
 * With caps (use-caps-for-id) the qname's letters get a random case and
 * a reply whose qname differs only in case ends the query as
 * OUTNET_CAPSFAIL (Unbound's rule: the iterator's fallback decides); a
 * caps reply's question is lowered before delivery, so no cache sees
 * the random case.
 * TCP (services/outnet_tcp.c): 2-byte length framing, non-blocking
 * connect, partial writes and reads. A connection is shared, as in
 * Unbound 1.13+: queries to the same server address and port (and, for
 * a later TLS upstream, the same authentication name) go pipelined over
 * one open connection, each with an ID unique on it, and an answer is
 * matched by ID and question, in whatever order it comes; a message
 * that matches no query is counted unwanted and skipped, one that is
 * not a DNS reply at all drops the connection. A connection takes at
 * most max-reuse-tcp-queries queries, is closed tcp-reuse-timeout ms
 * after its last answer or when the server closes it; at most
 * outgoing-num-tcp are open per worker (an idle one to another server
 * is closed to make room), other queries wait. When a connection that
 * had answered fails, or before a query was written, its queries move
 * once to a new connection; the others end in OUTNET_ERROR. With an
 * outgoing-interface the socket is bound with IP_BIND_ADDRESS_NO_PORT,
 * so the kernel picks the port at connect() by the whole four-tuple
 * (not one free for every destination). Connections end with a plain
 * close (FIN), never an RST.
 * TLS (req.tls, services/tls_client.h): the same connections with a TLS
 * session on them; one is shared only by queries to the same address,
 * port, client context and authentication name. A handshake that fails
 * (a certificate that does not verify, say) fails the queries on it
 * with OUTNET_ERROR and is logged with the reason; nothing falls back
 * to plain DNS, and TLS queries never use UDP. Sessions are resumed
 * from a per-worker cache keyed like the connections. For TLS,
 * max-reuse-tcp-queries bounds the queries outstanding on a connection
 * (Unbound's rule), not its life: a new one costs a handshake.
 * A query ends in exactly one callback (reply, timeout or error) unless
 * it is cancelled; its socket is closed and its port returned then, so a
 * late reply is dropped by the kernel. With delay-close, the socket (and
 * its port) of a UDP query that timed out stays open that many ms: a
 * late reply is read and dropped there, uncounted, and closes it; other
 * datagrams count as unwanted. Not while queries wait for a port.
 *
 * The infra cache (services/cache/infra.h) gives the timeout (rto) and
 * EDNS status per server+zone; the outside network records the RTT of
 * each reply, doubles the rto on a timeout (rtt_lost) and, with
 * edns_fallback, learns which servers need queries without EDNS.
 * Retries to other servers are the iterator's policy. */
#ifndef SERVICES_OUTSIDE_NETWORK_H
#define SERVICES_OUTSIDE_NETWORK_H
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include "util/dname.h"
#include "dns64/dns64_synth.h"

struct event_base;
struct config_file;
struct config_strlist;
struct port_pool;
struct infra_cache;
struct outside_network;
struct outnet_query;
struct donotq;

/* ---- do-not-query addresses ---- */

/* The do-not-query-address netblocks, plus 127.0.0.0/8 and ::1 when
 * localhost is set (do-not-query-localhost, default yes). NULL (logged)
 * on a bad netblock or out of memory. Immutable: may be shared. */
struct donotq* donotq_create(const struct config_strlist* addrs,
	int localhost);
void donotq_delete(struct donotq* dq);
/* 1 when addr is in one of the netblocks (must not be queried). */
int donotq_lookup(const struct donotq* dq,
	const struct sockaddr_storage* addr, socklen_t addrlen);

/* ---- settings ---- */

struct outnet_settings {
	int udp_connect;           /* udp-connect (yes) */
	int tcp_upstream;          /* all queries over TCP (tcp-upstream,
	                            * or do-udp: no, outnet_cfg_tcp_upstream) */
	int delay_close;           /* delay-close: ms a timed out UDP socket
	                            * stays open (0: closed at the timeout) */
	int num_tcp;               /* outgoing-num-tcp, per worker (10) */
	int do_ip4, do_ip6;
	int do_not_query_localhost;
	const struct config_strlist* donotquery;   /* do-not-query-address */
	const struct config_strlist* out_ifs;      /* outgoing-interface */
	uint16_t edns_size;        /* advertised UDP size (edns-buffer-size) */
	int tcp_timeout;           /* least TCP timeout, ms
	                            * (tcp-auth-query-timeout, 3000) */
	int tcp_reuse_timeout;     /* ms an idle connection stays open
	                            * (tcp-reuse-timeout, 60000) */
	int max_reuse_tcp;         /* queries per connection
	                            * (max-reuse-tcp-queries, 200) */
	int max_waiting;           /* queries that may wait for a port or a
	                            * TCP slot (num-queries-per-thread) */
	size_t tcp_write_chunk;    /* test aid: bytes per write, 0: no limit */
	int tls_use_sni;           /* tls-use-sni: the name as SNI (yes) */
	int pad_block;             /* pad-queries-block-size when
	                            * pad-queries: EDNS padding of queries
	                            * over TLS (0: none) */
	unsigned unwanted_threshold; /* unwanted-reply-threshold (0: off) */
	int ip_dscp;               /* ip-dscp: DSCP of queries (0: none) */
	int tcp_mss;               /* outgoing-tcp-mss: TCP_MAXSEG of new
	                            * connections (0: the system's) */
	int nat64;                 /* do-nat64 (with do-ip6): IPv4 servers
	                            * through nat64_prefix */
	struct dns64_prefix nat64_prefix;
};

/* Do all upstream queries go over TCP: tcp-upstream, or do-udp: no
 * without udp-upstream-without-downstream. */
int outnet_cfg_tcp_upstream(const struct config_file* cfg);
/* Settings from the config (the pointers point into cfg: keep it until
 * outside_network_create returned). */
void outnet_settings_from_cfg(const struct config_file* cfg,
	struct outnet_settings* s);

/* ---- the per-worker engine ---- */

/* pool and infra are the daemon's shared ones (infra may be NULL: no
 * timeouts from, and no updates to, an infra cache). NULL (logged) on a
 * bad outgoing-interface or do-not-query-address, or out of memory. */
struct outside_network* outside_network_create(struct event_base* base,
	const struct outnet_settings* s, struct port_pool* pool,
	struct infra_cache* infra);
/* compat: unbound-1.17: reload: outgoing-num-tcp (Unbound builds the
 * outside network again). Connections over a smaller number stay until
 * they close; queries waiting for a connection are served again. */
void outnet_set_num_tcp(struct outside_network* o, int num_tcp);
/* compat: unbound-1.17: reload: outgoing-tcp-mss, for connections
 * opened from now on. */
void outnet_set_tcp_mss(struct outside_network* o, int mss);
/* reload: tcp-upstream (with do-udp and udp-upstream-without-downstream)
 * for queries sent from now on, and delay-close for sockets of queries
 * that time out from now on. */
void outnet_set_transport(struct outside_network* o,
	const struct config_file* cfg);
/* reload: edns-buffer-size, tcp-auth-query-timeout, tcp-reuse-timeout,
 * max-reuse-tcp-queries, num-queries-per-thread (the queries that may
 * wait), tls-use-sni, ip-dscp, do-nat64 with nat64-prefix,
 * do-not-query-address and do-not-query-localhost, for the queries sent
 * from now on. */
void outnet_set_query_settings(struct outside_network* o,
	const struct config_file* cfg);
/* reload: pad-queries (its block size, 0: off) for the frames written
 * from now on */
void outnet_set_pad_block(struct outside_network* o, int block);
/* compat: unbound-1.17: unwanted-reply-threshold: after that many
 * unwanted UDP replies (since start or the last time) the outside
 * network logs a warning and calls action(arg): the cache-poisoning
 * defence, the worker flushes the caches. The threshold comes with the
 * settings; set_unwanted_threshold changes it on reload. */
void outnet_set_unwanted_action(struct outside_network* o,
	void (*action)(void*), void* arg);
void outnet_set_unwanted_threshold(struct outside_network* o,
	unsigned threshold);
/* dnstap: log the resolver and forwarder queries and replies to tap
 * (dnstap/dnstap.h; NULL: none). Borrowed until the network is
 * deleted. */
struct dnstap_tap;
void outnet_set_tap(struct outside_network* o, struct dnstap_tap* tap);
/* Close every socket, return every port, free every query without
 * calling callbacks. Not from inside a callback. NULL is fine. */
void outside_network_delete(struct outside_network* o);

/* Why a target may not be queried: 0 = it may. */
enum outnet_refuse {
	OUTNET_OK = 0,
	OUTNET_REFUSE_DONOTQUERY,  /* do-not-query-address / localhost */
	OUTNET_REFUSE_FAMILY,      /* do-ip4/do-ip6 no, no outgoing-interface
	                            * of its family, or not IPv4/IPv6 */
};
/* The check the iterator calls before it picks a target. */
enum outnet_refuse outnet_addr_refused(const struct outside_network* o,
	const struct sockaddr_storage* addr, socklen_t addrlen);

/* compat: unbound-1.19: do-nat64: an IPv4 server address becomes its
 * address under the NAT64 prefix (port kept), so it is reached over
 * IPv6; its IPv4 address is checked against do-not-query-address first
 * (and an address under the prefix is not: both as Unbound). Returns
 * OUTNET_OK (addr rewritten, or not IPv4, or NAT64 off) or
 * OUTNET_REFUSE_DONOTQUERY. */
enum outnet_refuse outnet_nat64(const struct outside_network* o,
	struct sockaddr_storage* addr, socklen_t* addrlen);

/* One query. The pointers need only be valid during outnet_send. */
/* The EDNS options a request carries: a module's (module.h
 * MODULE_OPT_MAX) and an edns-client-string: option (4 + 256 bytes,
 * iterator/iter_edns_strings.h EDNS_STRING_MAX). */
#define OUTNET_OPT_MAX (32 + 4 + 256)

struct outnet_request {
	struct sockaddr_storage addr;   /* the server, with port */
	socklen_t addrlen;
	const uint8_t* zone;      /* delegation point (infra key); NULL: root */
	size_t zonelen;
	const uint8_t* qname;     /* sent as is (0x20 case kept), unless
	                           * caps is set */
	size_t qname_len;
	uint16_t qtype, qclass;
	uint16_t flags;           /* header bits to set: RD, CD (others
	                           * are ignored) */
	int edns;                 /* add an OPT RR, unless the infra cache
	                           * knows the server needs no EDNS */
	int dnssec_ok;            /* DO bit in the OPT RR */
	int tcp;                  /* TCP from the start */
	int tcp_on_tc;            /* a TC=1 reply: redo over TCP here */
	int udp_resend;           /* no UDP reply in the infra rto (under
	                           * UDP_RESEND_MAX_RTO, timeout_ms 0):
	                           * send once more, new ID and port, before
	                           * the timeout is reported */
	int edns_fallback;        /* FORMERR/NOTIMP to EDNS: redo without,
	                           * record the result in the infra cache */
	int timeout_ms;           /* 0: the infra rto (UDP); for TCP at
	                           * least tcp_timeout */
	int tls;                  /* DNS over TLS: on a TLS connection
	                           * (never UDP, never plain TCP) */
	struct ssl_ctx_st* tls_ctx;  /* its client context (services/
	                           * tls_client.h); must outlive the query */
	const char* tls_name;     /* the name the certificate must match
	                           * (NULL: none); a connection is shared
	                           * only by queries with the same name */
	/* compat: unbound-1.17: use-caps-for-id: the case of every letter of
	 * the qname is random; a reply whose question differs only in case
	 * ends as OUTNET_CAPSFAIL (not for PTR, as Unbound: some boxes rewrite
	 * those) */
	int caps;
	/* EDNS options (code, length, data) for the OPT RR, opt_len
	 * bytes; 0: none (a module's: subnetcache's ECS; then
	 * edns-client-string's) */
	uint8_t opt[OUTNET_OPT_MAX];
	size_t opt_len;
};

enum outnet_result {
	OUTNET_REPLY = 0,         /* pkt/len hold a matching reply */
	OUTNET_TIMEOUT,           /* no matching reply in time */
	OUTNET_ERROR,             /* socket error, connection refused or
	                           * closed, no port/TCP slot in time */
	OUTNET_CAPSFAIL           /* caps: the reply's question had another
	                           * case (pkt/len hold it, qname lowered):
	                           * a possible spoof */
};

struct outnet_reply {
	enum outnet_result result;
	const uint8_t* pkt;       /* valid during the callback only */
	size_t len;
	int rtt_ms;               /* measured (reply only) */
	int was_tcp;              /* the reply came over TCP */
	int was_edns;             /* the query that got it had EDNS */
	int timeout_ms;           /* the timeout the last attempt used */
};

/* Called once per query (not when cancelled). The query handle is
 * invalid from the start of the call. The callback may send new queries
 * and cancel other ones. */
typedef void (*outnet_cb_t)(void* arg, const struct outnet_reply* r);

/* Start a query. NULL when it cannot start: bad request, refused target
 * (outnet_addr_refused), too many waiting, out of memory; the callback
 * is then never called. The callback never runs inside outnet_send. */
struct outnet_query* outnet_send(struct outside_network* o,
	const struct outnet_request* req, outnet_cb_t cb, void* arg);
/* Stop a query: no callback, socket closed, port returned. */
void outnet_cancel(struct outnet_query* q);

/* Is pkt (len bytes) the reply to query, the packet we sent (its
 * ID, and a question whose qname is qname_len bytes)? ID, QR, opcode
 * and the question: 0 no, 1 yes (exact case), 2 yes but the qname's
 * case differs. An error reply (FORMERR, NOTIMP) may come without the
 * question, as older servers send to EDNS queries. The outside
 * network's own check, public for the upstream fuzz harness. */
int outnet_reply_matches(const uint8_t* query, size_t qname_len,
	const uint8_t* pkt, size_t len);
struct outnet_stats {
	uint64_t sent_udp, sent_tcp;   /* packets sent (retries count) */
	uint64_t replies, timeouts, errors;
	uint64_t unwanted;        /* datagrams/messages that did not match */
	uint64_t refused;         /* outnet_send refused the target */
	uint64_t bind_retries;    /* random port was taken by someone else */
	uint64_t kernel_ports;    /* UDP sockets whose port the kernel drew
	                           * at connect (kernel_ports.h); the rest
	                           * of sent_udp bound the pool's port */
	uint64_t waited;          /* queries that waited for a port/slot */
	uint64_t tcp_on_tc;       /* redone over TCP after TC=1 */
	uint64_t udp_resends;     /* sent again over UDP after no reply */
	uint64_t edns_fallbacks;  /* redone without EDNS */
	uint64_t capsfail;        /* caps: reply question in another case */
	uint64_t tcp_conns;       /* TCP connections opened */
	uint64_t tcp_reused;      /* TCP queries on a connection that had
	                           * carried one before */
	uint64_t tcp_moved;       /* queries moved to a new connection */
	uint64_t tcp_dropped;     /* connections dropped: not DNS */
	uint64_t tls_conns;       /* TLS handshakes completed */
	uint64_t tls_resumed;     /* of those, sessions resumed */
	uint64_t tls_failed;      /* TLS handshakes that failed */
};
const struct outnet_stats* outnet_get_stats(const struct outside_network* o);
/* Queries started and not finished (including waiting ones). */
int outnet_num_active(const struct outside_network* o);
/* TCP connections open now. */
int outnet_num_tcp_conns(const struct outside_network* o);

#endif
