/* SPDX-License-Identifier: BSD-3-Clause */
/* services/tls_client.h - compat: unbound-1.17: the client side of DNS over
 * TLS to upstreams (forward-tls-upstream, stub-tls-upstream, tls-upstream):
 * one SSL_CTX per config snapshot, client sessions on upstream sockets, and a
 * per-worker cache of TLS sessions for resumption.
 *
 * Authentication, as Unbound 1.17: with an authentication name
 * (forward-addr ADDR@853#name) the certificate chain must verify
 * against the configured CAs and the certificate must match the name
 * (and the name goes out as SNI when tls-use-sni is yes). Without a
 * name the chain is verified when CAs are configured (tls-cert-bundle,
 * tls-system-cert, tls-win-cert), any name accepted; with no CA
 * configured and no name nothing is verified (encrypted, not
 * authenticated). TLS 1.2 is the least version accepted. */
#ifndef SERVICES_TLS_CLIENT_H
#define SERVICES_TLS_CLIENT_H
#include <stddef.h>
#include <sys/socket.h>

typedef struct ssl_st SSL;
typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_session_st SSL_SESSION;
struct config_file;
struct tls_session_cache;

/* The client context from cfg: tls-cert-bundle (a PEM file of CAs),
 * tls-system-cert / tls-win-cert (the system's store). NULL (logged,
 * naming the file) when the bundle cannot be read. */
SSL_CTX* tls_client_ctx_create(const struct config_file* cfg);
void tls_client_ctx_free(SSL_CTX* ctx);

/* Who a connection talks to: the key of its session in the cache. */
struct tls_peer {
	struct tls_session_cache* cache;   /* NULL: sessions not kept */
	SSL_CTX* ctx;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	char name[256];                    /* authentication name, "": none */
};

/* A client TLS session on the connected socket fd for peer (which must
 * outlive the SSL), resuming the cached session when there is one.
 * NULL on error (logged). */
SSL* tls_client_new(const struct tls_peer* peer, int fd, int use_sni);
/* One step of the handshake: 1 when done, a STREAM_IO_WANT_* or
 * STREAM_IO_ERROR; then *why says why (the certificate's verify error,
 * or OpenSSL's reason, or "connection closed"). */
int tls_client_handshake(SSL* ssl, const char** why);
/* Reads, writes, what OpenSSL holds and whether the session was
 * resumed: the same calls as on the server side (services/stream_tls.h:
 * stream_tls_read, _write, _buffered, _resumed). */
/* A close_notify (one try, non-blocking), then free. NULL is fine. */
void tls_client_close(SSL* ssl);

/* ---- per-worker session cache (no locks: one thread uses it) ---- */

/* At most max sessions (the oldest goes first). NULL when out of
 * memory. */
struct tls_session_cache* tls_session_cache_create(int max);
void tls_session_cache_delete(struct tls_session_cache* c);
/* Forget the session of peer (its server refused it, or it failed). */
void tls_session_forget(const struct tls_peer* peer);
/* Sessions kept now. */
int tls_session_cache_count(const struct tls_session_cache* c);

#endif
