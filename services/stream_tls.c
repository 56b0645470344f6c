/* SPDX-License-Identifier: BSD-3-Clause */
/* services/stream_tls.c - TLS for accepted stream connections. */
#include "config.h"
#include "services/stream_tls.h"
#include "util/log.h"
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <limits.h>

SSL* stream_tls_create(SSL_CTX* ctx, int fd, const char* name)
{
	SSL* ssl = SSL_new(ctx);
	if(!ssl || !SSL_set_fd(ssl, fd)) {
		log_err("could not SSL_new for %s", name);
		SSL_free(ssl);
		ERR_clear_error();
		return NULL;
	}
	/* SSL_write returns after each record, so a long answer to a slow
	 * reader shows progress; the protocol may compact or grow its
	 * output between a write that must wait and its retry */
	SSL_set_mode(ssl, SSL_MODE_ENABLE_PARTIAL_WRITE |
		SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	SSL_set_accept_state(ssl);
	return ssl;
}

int stream_tls_wants(SSL* ssl, int n)
{
	switch(SSL_get_error(ssl, n)) {
	case SSL_ERROR_WANT_READ:
		return STREAM_IO_WANT_READ;
	case SSL_ERROR_WANT_WRITE:
		return STREAM_IO_WANT_WRITE;
	default:
		return 0;
	}
}

/* What a failed call (result n) waits for, or STREAM_IO_ERROR. */
static int tls_wait(SSL* ssl, int n)
{
	int w = stream_tls_wants(ssl, n);
	if(w)
		return w;
	ERR_clear_error();
	return STREAM_IO_ERROR;
}

int stream_tls_handshake(SSL* ssl, const char* name)
{
	unsigned long err;
	int n;
	ERR_clear_error();
	n = SSL_do_handshake(ssl);
	if(n == 1)
		return 1;
	if((n = stream_tls_wants(ssl, n)) != 0)
		return n;
	err = ERR_peek_last_error();
	verbose(VERB_OPS, "%s connection failed TLS handshake: %s", name,
		err ? ERR_reason_error_string(err) : "connection closed");
	ERR_clear_error();
	return STREAM_IO_ERROR;
}

ssize_t stream_tls_read(SSL* ssl, void* buf, size_t len)
{
	int n;
	ERR_clear_error();
	n = SSL_read(ssl, buf, len > INT_MAX ? INT_MAX : (int)len);
	if(n > 0)
		return n;
	if(n == 0) {
		/* closed, cleanly or not: the input has ended either way */
		ERR_clear_error();
		return 0;
	}
	return tls_wait(ssl, n);
}

ssize_t stream_tls_write(SSL* ssl, const void* buf, size_t len)
{
	int n;
	ERR_clear_error();
	n = SSL_write(ssl, buf, len > INT_MAX ? INT_MAX : (int)len);
	if(n > 0)
		return n;
	return tls_wait(ssl, n);
}

int stream_tls_pending(const SSL* ssl)
{
	return SSL_pending(ssl);
}

int stream_tls_buffered(const SSL* ssl)
{
	return SSL_pending(ssl) > 0 || SSL_has_pending(ssl);
}

void stream_tls_shutdown(SSL* ssl)
{
	(void)SSL_shutdown(ssl);
	ERR_clear_error();
}

void stream_tls_delete(SSL* ssl)
{
	SSL_free(ssl);
}

void stream_tls_ctx_release(SSL_CTX* ctx)
{
	SSL_CTX_free(ctx);
}

void stream_tls_idle(SSL* ssl)
{
	/* refused (0) while a record is pending: then they stay */
	(void)SSL_free_buffers(ssl);
}

int stream_tls_resumed(const SSL* ssl)
{
	return SSL_session_reused(ssl);
}
