/* SPDX-License-Identifier: BSD-3-Clause */
/* services/xfr_net.h - the network side of zone transfers, run in the
 * transfer thread (services/xfr_source.c) with blocking sockets and
 * deadlines: a SOA query over UDP, and an AXFR or IXFR over TCP or TLS
 * (XoT, RFC 9103: the TLS client of services/tls_client.c) read message
 * by message into services/xfr_wire.c. */
#ifndef SERVICES_XFR_NET_H
#define SERVICES_XFR_NET_H
#include "services/xfr_wire.h"
#include <stdatomic.h>
#include <sys/socket.h>

typedef struct ssl_ctx_st SSL_CTX;

/* A transfer over TLS: the client context (tls-cert-bundle) and the
 * name the primary's certificate must carry (primary: ADDR@853#name). */
struct xfr_tls {
	SSL_CTX* ctx;
	const char* name;
	int use_sni;        /* tls-use-sni: the name goes out as SNI */
};

enum xfr_net_result {
	XFR_NET_OK = 0,     /* answered (probe: *serial set) */
	XFR_NET_TIMEOUT,    /* no answer in time (or the transfer's limit) */
	XFR_NET_FAILED,     /* refused, closed, a bad answer: err says why */
	XFR_NET_STOPPED     /* *stop was set while waiting */
};

/* The monotonic clock in ms, the transfers' deadlines. */
long xfr_net_now_ms(void);
/* Wait for ev (POLLIN, POLLOUT) on fd until deadline (xfr_net_now_ms),
 * in slices so that *stop (when not NULL) is seen within 200 ms. */
enum xfr_net_result xfr_net_wait_fd(int fd, short ev, long deadline,
	const atomic_int* stop);

/* The SOA serial of zone at addr over UDP, waiting at most timeout_ms. */
enum xfr_net_result xfr_net_probe(const struct sockaddr_storage* addr,
	socklen_t addrlen, const uint8_t* zone, size_t zone_len,
	uint16_t qclass, int timeout_ms, uint32_t* serial,
	const atomic_int* stop, char* err, size_t errlen);

/* A transfer over TCP, or TLS when tls is not NULL: the query w was set
 * up for (xfr_wire_init), the replies read into w until complete.
 * idle_ms: the longest wait for the next bytes; total_secs: the whole
 * transfer's limit (0: none); tcp_mss: TCP_MAXSEG of the connection
 * (outgoing-tcp-mss; 0: the kernel's). A certificate that does not verify (or
 * does not carry tls->name) fails the transfer before the query goes
 * out; err says why. */
/* TCP_MAXSEG tcp_mss on fd when above 0 (a refusal is logged at
 * verbosity 4, as for the other upstream sockets). */
void xfr_net_set_mss(int fd, int tcp_mss);

enum xfr_net_result xfr_net_transfer(const struct sockaddr_storage* addr,
	socklen_t addrlen, const struct xfr_tls* tls, struct xfr_wire* w,
	int idle_ms, int total_secs, int tcp_mss,
	const atomic_int* stop, char* err, size_t errlen);

#endif
