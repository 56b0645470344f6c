/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/query.h - answer one query packet: parse, access control,
 * CHAOS, local zones, the message cache (the fast path), and on a miss
 * hand the question to the worker's mesh for recursion.
 * Shared by the UDP and TCP paths; the cache-hit path allocates nothing. */
#ifndef DAEMON_QUERY_H
#define DAEMON_QUERY_H
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct worker;
struct tcp_handle;
struct doh_handle;
struct udp_dst;

/* Where a query came from, and how a later reply gets back there. */
struct client_info {
	const struct sockaddr_storage* addr;
	socklen_t addrlen;
	int is_tcp;
	int udp_fd;                    /* UDP: the socket it came in on */
	const struct tcp_handle* tcp;  /* TCP: its connection */
	const struct doh_handle* doh;  /* HTTPS: its stream */
	/* UDP on an interface-automatic socket: the address the query came
	 * to, where a later reply leaves from; NULL: any other socket.
	 * Next to the other NULLs: one 16-byte store zeroes it with peer */
	const struct udp_dst* dst;
	/* UDP on a proxy-protocol-port: the proxy the datagram came from,
	 * where a later reply goes (addr is the client the PROXYv2 header
	 * names); NULL: addr itself */
	const struct sockaddr_storage* peer;
	socklen_t peerlen;
};

/* What became of a query. */
enum query_outcome {
	QUERY_REPLY = 0,  /* send the *reply_len bytes written to out */
	QUERY_DROP,       /* no reply, on purpose (num.query... dropped) */
	QUERY_DEFERRED    /* recursion sends the reply later */
};

/* An outcome and, for QUERY_REPLY, the reply's length (returned by
 * value: both travel in registers on the hot path). */
struct query_result {
	size_t len;
	enum query_outcome what;
};

/* Cold: the local address (and port) ci's query came to, its socket's
 * (interface-*); 0 when there is none to ask (DNS over HTTPS). */
int query_local_addr(const struct client_info* ci,
	struct sockaddr_storage* local, socklen_t* len);

/* Answer pkt (len bytes). out has room for outcap bytes (for TCP 65535;
 * for UDP the largest reply this server may send). */
struct query_result query_answer(struct worker* w, const uint8_t* pkt,
	size_t len, const struct client_info* ci, uint8_t* out, size_t outcap);

struct serve_env;
struct config_file;
/* compat: unbound-1.17: log-replies: the line Unbound logs for a reply
 * sent to ci's client (info:, or reply: with log-tag-queryreply; with
 * log-destaddr where the query came to): the question from the reply,
 * usec the time the query took, cached 1 for a reply the worker made
 * (cache, local data), 0 for one after recursion. Cold. */
void query_log_reply(const struct config_file* cfg,
	const struct client_info* ci, const uint8_t* reply, size_t len,
	long long usec, int cached);
/* Add to the reply msg (len bytes, room for cap) the cookie option
 * (COOKIE_OPT_LEN bytes; NULL: none) and the options of opts
 * (QUERY_OPT_*: env's NSID, the keepalive timeout); returns the new
 * length. Cold: only when a query asked for them. */
size_t query_reply_options(const struct serve_env* env, uint8_t* msg,
	size_t len, size_t cap, const uint8_t* cookie, int opts);
/* compat: unbound-1.17: ede-serve-expired: EDE 3 added to an expired
 * answer (n bytes in out, at most limit) when ede and ede-serve-expired
 * are on; returns its length. */
struct config_file;
size_t query_stale_ede(const struct config_file* cfg, uint8_t* out,
	size_t n, size_t limit);

#endif
