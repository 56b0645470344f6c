/* SPDX-License-Identifier: BSD-3-Clause */
/* services/stream_tls.h - the TLS transport under services/stream_conn.c:
 * OpenSSL's calls on a non-blocking socket, their results mapped onto
 * what the event loop has to wait for. Both sides: the server side for
 * the remote control, DNS over TLS and DNS over HTTPS, the client side
 * for TLS upstreams (services/outnet_tcp.c). */
#ifndef SERVICES_STREAM_TLS_H
#define SERVICES_STREAM_TLS_H
#include <stddef.h>
#include <sys/types.h>

typedef struct ssl_st SSL;
typedef struct ssl_ctx_st SSL_CTX;

/* Results of the I/O calls besides a byte count (> 0) and 0 (the peer
 * closed); shared with the plain transport in stream_conn.c. */
#define STREAM_IO_ERROR (-1)
#define STREAM_IO_WANT_READ (-2)    /* wait until the socket is readable */
#define STREAM_IO_WANT_WRITE (-3)   /* wait until it is writable */

/* A server TLS session on fd (partial writes, and the output buffer may
 * move between retries); NULL on error (logged). */
SSL* stream_tls_create(SSL_CTX* ctx, int fd, const char* name);
/* One step of the handshake: 1 when done, a STREAM_IO_WANT_*, or
 * STREAM_IO_ERROR (logged at VERB_OPS as "NAME connection failed TLS
 * handshake: reason"). */
int stream_tls_handshake(SSL* ssl, const char* name);
/* What an SSL call that returned n waits for: STREAM_IO_WANT_READ or
 * _WANT_WRITE; 0 when it failed (the error queue is left for the
 * caller to report and clear). One mapping for server and client. */
int stream_tls_wants(SSL* ssl, int n);
ssize_t stream_tls_read(SSL* ssl, void* buf, size_t len);
ssize_t stream_tls_write(SSL* ssl, const void* buf, size_t len);
/* Decrypted bytes waiting inside OpenSSL (the socket shows none). */
int stream_tls_pending(const SSL* ssl);
/* Decrypted bytes, or bytes read ahead from the socket (a context with
 * read-ahead reads many records at once): SSL_read may make progress
 * without the socket. Also true for a partial record. */
int stream_tls_buffered(const SSL* ssl);
/* Send a close_notify (one try, non-blocking). */
void stream_tls_shutdown(SSL* ssl);
void stream_tls_delete(SSL* ssl);
/* Drop a reference to a context (SSL_CTX_free). */
void stream_tls_ctx_release(SSL_CTX* ctx);
/* The connection is idle (nothing read ahead, nothing unwritten): let
 * OpenSSL free its record buffers (about 34 KiB); it makes them again
 * at the next read or write. */
void stream_tls_idle(SSL* ssl);
/* Was the session resumed (a ticket or the session cache)? */
int stream_tls_resumed(const SSL* ssl);

#endif
