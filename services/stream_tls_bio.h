/* SPDX-License-Identifier: BSD-3-Clause */
/* services/stream_tls_bio.h - a BIO under a TLS stream connection that
 * saves system calls: one recv() fills a read buffer from which
 * OpenSSL's record reads (the 5-byte header, then the body) are served,
 * and, while corked, the records written are collected and sent with
 * one send() by stream_bio_push. Buffers come from a per-pool cache and
 * go back to it whenever they are empty, so an idle connection holds
 * none. */
#ifndef SERVICES_STREAM_TLS_BIO_H
#define SERVICES_STREAM_TLS_BIO_H
#include <stddef.h>
#include <stdint.h>

typedef struct ssl_st SSL;
struct stream_bio_cache;

/* One connection's BIO state, in storage the caller keeps while the SSL
 * lives (a connection slot: nothing allocated per connection). */
struct stream_bio {
	int fd;
	int corked;
	struct stream_bio_cache* cache;
	uint8_t* rbuf;           /* [rpos, rlen) not taken by OpenSSL */
	size_t rpos, rlen;
	uint8_t* wbuf;           /* [wpos, wlen) not sent */
	size_t wpos, wlen;
};

/* A cache of empty buffers for one pool (one thread); NULL: no memory. */
struct stream_bio_cache* stream_bio_cache_create(void);
/* After every BIO that used it is freed. NULL is fine. */
void stream_bio_cache_delete(struct stream_bio_cache* cache);
/* Put a new BIO on fd under ssl (in place of the socket BIO), its state
 * in s; s, or NULL on error (ssl keeps its old BIO then). */
struct stream_bio* stream_bio_attach(SSL* ssl, int fd,
	struct stream_bio_cache* cache, struct stream_bio* s);
/* Bytes read from the socket that OpenSSL has not taken yet. */
size_t stream_bio_rpending(const struct stream_bio* b);
/* Bytes of records written (corked) and not sent yet. */
size_t stream_bio_wpending(const struct stream_bio* b);
/* on (the state after attach): collect written records, handshake
 * flights and OpenSSL's flushes included, until stream_bio_push; off:
 * write through (after what is collected). */
void stream_bio_cork(struct stream_bio* b, int on);
/* Send what is collected: 0 when all went, else STREAM_IO_WANT_WRITE
 * or STREAM_IO_ERROR (stream_tls.h). */
int stream_bio_push(struct stream_bio* b);

#endif
