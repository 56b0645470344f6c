/* SPDX-License-Identifier: BSD-3-Clause */
/* services/listen_dnsport.h - the sockets clients send queries to.
 *
 * With so-reuseport: yes every worker thread gets its own UDP socket and
 * its own TCP listening socket for each interface, all bound to the same
 * address and port with SO_REUSEPORT, so the kernel spreads datagrams and
 * connections over the threads. Whether that works is found out here at
 * run time: if setsockopt(SO_REUSEPORT) or a second bind fails, one
 * warning is logged and one shared socket per interface and protocol is
 * opened instead, which every worker listens on. */
#ifndef SERVICES_LISTEN_DNSPORT_H
#define SERVICES_LISTEN_DNSPORT_H
#include <sys/socket.h>

struct config_file;

struct listen_socket {
	int fd;
	int is_tcp;
	int is_https;   /* TCP on https-port: DNS over HTTPS */
	int is_tls;     /* TCP on tls-port or a tls-additional-port: DoT */
	int is_proxy;   /* on a proxy-protocol-port: each datagram and
	                 * connection starts with a PROXYv2 header */
	int is_pktinfo; /* UDP of interface-automatic: a wildcard address,
	                 * each datagram's destination read (IP_PKTINFO)
	                 * and the reply sent from it (udp_pktinfo.h) */
	int thread;     /* worker that owns it, or -1: shared by all */
	int is_activated; /* passed by systemd (use-systemd), not bound here */
	struct sockaddr_storage addr;
	socklen_t addrlen;
};

struct listen_sockets {
	struct listen_socket* socks;
	int num;
	int reuseport;  /* 1 when per-thread SO_REUSEPORT sockets are in use */
};

/* Open and bind every socket the config asks for (UDP and TCP per
 * interface, per thread where SO_REUSEPORT works). Errors are logged;
 * returns NULL when a socket could not be bound at all. */
struct listen_sockets* listen_sockets_open(const struct config_file* cfg,
	int num_threads);
void listen_sockets_close(struct listen_sockets* ls);
/* Is port a DNS over TLS port (tls-port, tls-additional-port)? */
int listen_port_is_tls(const struct config_file* cfg, int port);
/* Is port a proxy-protocol-port? */
int listen_port_is_proxy(const struct config_file* cfg, int port);
/* Does ls have a DNS over TLS listener? */
int listen_sockets_have_tls(const struct listen_sockets* ls);

#endif
