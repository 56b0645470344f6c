/* SPDX-License-Identifier: BSD-3-Clause */
/* services/stream_tls_bio.c - the batching socket BIO of
 * services/stream_tls_bio.h. */
#include "config.h"
#include "services/stream_tls_bio.h"
#include "services/stream_tls.h"
#include "util/sys_nocancel.h"
#include <openssl/bio.h>
#include <openssl/ssl.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Read buffer: more than one whole TLS record (2^14 + 256 + 5), so a
 * record is never read in more than two system calls. Write buffer: two
 * of them, so corked answers rarely need a send before the push. */
#define SBIO_RCAP 18432
#define SBIO_WCAP 36864
#define SBIO_SPARES 16

struct stream_bio_cache {
	uint8_t* rspare[SBIO_SPARES];
	uint8_t* wspare[SBIO_SPARES];
	int nr, nw;
};

static BIO_METHOD* method;
static pthread_once_t method_once = PTHREAD_ONCE_INIT;

struct stream_bio_cache* stream_bio_cache_create(void)
{
	return calloc(1, sizeof(struct stream_bio_cache));
}

void stream_bio_cache_delete(struct stream_bio_cache* cache)
{
	int i;
	if(!cache)
		return;
	for(i = 0; i < cache->nr; i++)
		free(cache->rspare[i]);
	for(i = 0; i < cache->nw; i++)
		free(cache->wspare[i]);
	free(cache);
}

static uint8_t* take(uint8_t** spare, int* n, size_t size)
{
	if(*n > 0)
		return spare[--*n];
	return malloc(size);
}

static void give(uint8_t** spare, int* n, uint8_t* buf)
{
	if(*n < SBIO_SPARES)
		spare[(*n)++] = buf;
	else	free(buf);
}

static void rbuf_release(struct stream_bio* s)
{
	if(s->rbuf)
		give(s->cache->rspare, &s->cache->nr, s->rbuf);
	s->rbuf = NULL;
	s->rpos = s->rlen = 0;
}

static void wbuf_release(struct stream_bio* s)
{
	if(s->wbuf)
		give(s->cache->wspare, &s->cache->nw, s->wbuf);
	s->wbuf = NULL;
	s->wpos = s->wlen = 0;
}


static int would_block(void)
{
	return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
}

/* Send the collected bytes: 1 when none are left, 0 when the socket is
 * full, -1 on error. */
static int push(struct stream_bio* s)
{
	while(s->wpos < s->wlen) {
		ssize_t n = nc_send(s->fd, s->wbuf + s->wpos,
			s->wlen - s->wpos, MSG_NOSIGNAL);
		if(n < 0)
			return would_block() ? 0 : -1;
		s->wpos += (size_t)n;
	}
	wbuf_release(s);
	return 1;
}

static int bio_read(BIO* b, char* out, int outl)
{
	struct stream_bio* s = BIO_get_data(b);
	size_t k;
	BIO_clear_retry_flags(b);
	if(outl <= 0)
		return 0;
	if(s->rpos == s->rlen) {
		ssize_t n;
		if(!s->rbuf && !(s->rbuf = take(s->cache->rspare,
			&s->cache->nr, SBIO_RCAP)))
			return -1;
		n = nc_recv(s->fd, s->rbuf, (size_t)SBIO_RCAP, 0);
		if(n <= 0) {
			int blocked = n < 0 && would_block();
			rbuf_release(s);
			if(blocked)
				BIO_set_retry_read(b);
			return n == 0 ? 0 : -1;
		}
		s->rpos = 0;
		s->rlen = (size_t)n;
	}
	k = s->rlen - s->rpos;
	if(k > (size_t)outl)
		k = (size_t)outl;
	memcpy(out, s->rbuf + s->rpos, k);
	s->rpos += k;
	if(s->rpos == s->rlen)
		rbuf_release(s);
	return (int)k;
}

/* Collect inl bytes (corked, room permitting): 1, else 0. */
static int collect(struct stream_bio* s, const char* in, size_t inl)
{
	if(!s->corked || inl > SBIO_WCAP)
		return 0;
	if(s->wlen + inl > SBIO_WCAP && s->wpos > 0) {
		memmove(s->wbuf, s->wbuf + s->wpos, s->wlen - s->wpos);
		s->wlen -= s->wpos;
		s->wpos = 0;
	}
	if(s->wlen + inl > SBIO_WCAP)
		return 0;
	if(!s->wbuf && !(s->wbuf = take(s->cache->wspare, &s->cache->nw,
		SBIO_WCAP)))
		return 0;
	memcpy(s->wbuf + s->wlen, in, inl);
	s->wlen += inl;
	return 1;
}

static int bio_write(BIO* b, const char* in, int inl)
{
	struct stream_bio* s = BIO_get_data(b);
	ssize_t n;
	int r;
	BIO_clear_retry_flags(b);
	if(inl <= 0)
		return 0;
	if(collect(s, in, (size_t)inl))
		return inl;
	/* what was collected goes first */
	if((r = push(s)) <= 0) {
		if(r == 0)
			BIO_set_retry_write(b);
		return -1;
	}
	if(collect(s, in, (size_t)inl))
		return inl;
	n = nc_send(s->fd, in, (size_t)inl, MSG_NOSIGNAL);
	if(n >= 0)
		return (int)n;
	if(would_block())
		BIO_set_retry_write(b);
	return -1;
}

static long bio_ctrl(BIO* b, int cmd, long num, void* ptr)
{
	struct stream_bio* s = BIO_get_data(b);
	(void)num;
	switch(cmd) {
	case BIO_CTRL_FLUSH:
		/* corked: OpenSSL's flush after a handshake flight or a
		 * session ticket waits for the wake-up's push, so a ticket
		 * and the first answer leave in one send */
		if(s->corked)
			return 1;
		switch(push(s)) {
		case 1:
			return 1;
		case 0:
			BIO_set_retry_write(b);
			return 0;
		default:
			return 0;
		}
	case BIO_CTRL_PENDING:
		return (long)(s->rlen - s->rpos);
	case BIO_CTRL_WPENDING:
		return (long)(s->wlen - s->wpos);
	case BIO_C_GET_FD:
		if(ptr)
			*(int*)ptr = s->fd;
		return s->fd;
	case BIO_CTRL_DUP:
		return 1;
	default:
		return 0;
	}
}

static int bio_destroy(BIO* b)
{
	struct stream_bio* s = BIO_get_data(b);
	if(s) {  /* the storage is the caller's */
		rbuf_release(s);
		wbuf_release(s);
	}
	BIO_set_data(b, NULL);
	return 1;
}

static void method_init(void)
{
	int index = BIO_get_new_index();
	BIO_METHOD* m;
	if(index == -1)
		return;  /* attach fails: such connections are closed */
	if(!(m = BIO_meth_new(index | BIO_TYPE_SOURCE_SINK |
		BIO_TYPE_DESCRIPTOR, "stream batching")))
		return;
	if(!BIO_meth_set_write(m, bio_write) ||
		!BIO_meth_set_read(m, bio_read) ||
		!BIO_meth_set_ctrl(m, bio_ctrl) ||
		!BIO_meth_set_destroy(m, bio_destroy)) {
		BIO_meth_free(m);
		return;
	}
	method = m;
}

struct stream_bio* stream_bio_attach(SSL* ssl, int fd,
	struct stream_bio_cache* cache, struct stream_bio* s)
{
	BIO* b;
	(void)pthread_once(&method_once, method_init);
	if(!method || !cache || !(b = BIO_new(method)))
		return NULL;
	memset(s, 0, sizeof(*s));
	s->fd = fd;
	s->corked = 1;  /* the stream layer pushes after each step */
	s->cache = cache;
	BIO_set_data(b, s);
	BIO_set_init(b, 1);
	SSL_set_bio(ssl, b, b);  /* frees the socket BIO; one reference */
	return s;
}

size_t stream_bio_rpending(const struct stream_bio* b)
{
	return b->rlen - b->rpos;
}

size_t stream_bio_wpending(const struct stream_bio* b)
{
	return b->wlen - b->wpos;
}

void stream_bio_cork(struct stream_bio* b, int on)
{
	b->corked = on;
}

int stream_bio_push(struct stream_bio* b)
{
	switch(push(b)) {
	case 1:
		return 0;
	case 0:
		return STREAM_IO_WANT_WRITE;
	default:
		return STREAM_IO_ERROR;
	}
}
