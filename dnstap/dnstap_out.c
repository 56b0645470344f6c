/* SPDX-License-Identifier: BSD-3-Clause */
/* dnstap/dnstap_out.c - the connection to the dnstap collector
 * (dnstap/dnstap_out.h). Blocking I/O with time limits, in libfstrm's
 * I/O thread only. */
#include "config.h"
#ifdef HAVE_DNSTAP
#include "dnstap/dnstap_out.h"
#include "util/config_file.h"
#include "util/log.h"
#include "util/net_help.h"
#include <errno.h>
#include <fcntl.h>
#include <fstrm.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

/* compat: unbound-1.17: dnstap-ip without a port: 6000, as Unbound */
#define DNSTAP_DEFAULT_PORT 6000
/* the longest one connect, read or write may hold the I/O thread */
#define OUT_TIMEOUT_MS 2000
/* small frames are gathered into one write (one TLS record) */
#define OUT_BUF_SIZE 16384

enum out_kind {
	OUT_UNIX,
	OUT_TCP,
	OUT_TLS
};

struct dnstap_out {
	enum out_kind kind;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	char where[sizeof(((struct sockaddr_un*)0)->sun_path) + 8];
	SSL_CTX* ctx;          /* OUT_TLS */
	char* server_name;     /* dnstap-tls-server-name; NULL: none */
	int use_sni;
	int fd;                /* -1: closed */
	SSL* ssl;
	/* a failure to connect is logged as an error once, then quietly
	 * (verbosity 4) until a connection works again: libfstrm tries
	 * every second */
	int failing;
	size_t buf_len;
	uint8_t buf[OUT_BUF_SIZE];
};

static void out_fail(struct dnstap_out* o, const char* what,
	const char* why)
{
	if(!o->failing)
		log_err("dnstap io: %s %s: %s", what, o->where, why);
	else	verbose(VERB_ALGO, "dnstap io: %s %s: %s", what, o->where,
			why);
	o->failing = 1;
}

static int set_blocking_with_timeouts(int fd)
{
	struct timeval tv = { OUT_TIMEOUT_MS / 1000,
		(OUT_TIMEOUT_MS % 1000) * 1000 };
	int fl = fcntl(fd, F_GETFL);
	return fl != -1 && fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == 0 &&
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) == 0 &&
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == 0;
}

/* Connect o->fd within the time limit; 0 with errno set. */
static int connect_timed(struct dnstap_out* o)
{
	struct pollfd p;
	int err = 0;
	socklen_t len = sizeof(err);
	if(!fd_set_nonblock(o->fd))
		return 0;
	if(connect(o->fd, (struct sockaddr*)&o->addr, o->addrlen) == 0)
		return 1;
	/* a unix socket's full backlog (EAGAIN) is not a connect in
	 * progress: tried again later */
	if(errno != EINPROGRESS)
		return 0;
	p.fd = o->fd;
	p.events = POLLOUT;
	p.revents = 0;
	if(poll(&p, 1, OUT_TIMEOUT_MS) != 1) {
		errno = ETIMEDOUT;
		return 0;
	}
	if(getsockopt(o->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
		return 0;
	if(err != 0) {
		errno = err;
		return 0;
	}
	return 1;
}

/* Why the handshake failed: the certificate's verify error when it did
 * not verify, else OpenSSL's reason. */
static const char* tls_why(SSL* ssl, int r)
{
	unsigned long e;
	long v = SSL_get_verify_result(ssl);
	if(v != X509_V_OK)
		return X509_verify_cert_error_string(v);
	e = ERR_peek_last_error();
	if(e)
		return ERR_reason_error_string(e);
	if(SSL_get_error(ssl, r) == SSL_ERROR_SYSCALL && errno)
		return strerror(errno);
	return "connection closed";
}

static int tls_start(struct dnstap_out* o)
{
	int r;
	ERR_clear_error();
	if(!(o->ssl = SSL_new(o->ctx)) || !SSL_set_fd(o->ssl, o->fd)) {
		out_fail(o, "could not start TLS to", "out of memory");
		return 0;
	}
	if(o->server_name) {
		/* compat: unbound-1.17: the name is checked in the
		 * certificate (and sent as SNI with tls-use-sni) */
		SSL_set_verify(o->ssl, SSL_VERIFY_PEER, NULL);
		if(!SSL_set1_host(o->ssl, o->server_name) || (o->use_sni &&
			!SSL_set_tlsext_host_name(o->ssl, o->server_name))) {
			out_fail(o, "could not start TLS to", "out of memory");
			return 0;
		}
	}
	if((r = SSL_connect(o->ssl)) != 1) {
		const char* why = tls_why(o->ssl, r);
		if(!o->failing)
			log_err("dnstap io, ssl handshake failed: %s", why);
		verbose(VERB_OPS, "dnstap io, ssl handshake failed from %s",
			o->where);
		o->failing = 1;
		ERR_clear_error();
		return 0;
	}
	return 1;
}

static fstrm_res out_close(void* obj)
{
	struct dnstap_out* o = obj;
	if(o->ssl) {
		(void)SSL_shutdown(o->ssl);   /* one try: close_notify */
		SSL_free(o->ssl);
		o->ssl = NULL;
	}
	if(o->fd != -1)
		close(o->fd);
	o->fd = -1;
	o->buf_len = 0;
	ERR_clear_error();
	return fstrm_res_success;
}

static fstrm_res out_open(void* obj)
{
	struct dnstap_out* o = obj;
	(void)out_close(o);
	o->fd = socket(o->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if(o->fd == -1) {
		out_fail(o, "failed to create socket for", strerror(errno));
		return fstrm_res_failure;
	}
	if(!connect_timed(o)) {
		out_fail(o, "failed to connect to", strerror(errno));
		(void)out_close(o);
		return fstrm_res_failure;
	}
	if(!set_blocking_with_timeouts(o->fd)) {
		out_fail(o, "failed to set up the socket to", strerror(errno));
		(void)out_close(o);
		return fstrm_res_failure;
	}
	if(o->kind == OUT_TLS && !tls_start(o)) {
		(void)out_close(o);
		return fstrm_res_failure;
	}
	/* compat: unbound-1.17: Unbound's line at verbosity 2 */
	verbose(VERB_DETAIL, "dnstap io: connected to %s", o->where);
	o->failing = 0;
	return fstrm_res_success;
}

/* All len bytes of data out; 0 on error or the time limit. */
static int send_all(struct dnstap_out* o, const uint8_t* data, size_t len)
{
	while(len > 0) {
		ssize_t n;
		if(o->ssl) {
			int r;
			ERR_clear_error();
			r = SSL_write(o->ssl, data, len > 0x7fffffff ?
				0x7fffffff : (int)len);
			if(r <= 0) {
				verbose(VERB_DETAIL, "dnstap io: SSL_write to "
					"%s failed", o->where);
				return 0;
			}
			n = r;
		} else {
			n = send(o->fd, data, len, MSG_NOSIGNAL);
			if(n < 0 && errno == EINTR)
				continue;
			if(n <= 0) {
				verbose(VERB_DETAIL, "dnstap io: failed send "
					"to %s: %s", o->where, n < 0 ?
					strerror(errno) : "closed");
				return 0;
			}
		}
		data += n;
		len -= (size_t)n;
	}
	return 1;
}

static int flush_buf(struct dnstap_out* o)
{
	int ok = send_all(o, o->buf, o->buf_len);
	o->buf_len = 0;
	return ok;
}

/* libfstrm hands a batch of frames (a length, then the frame, each its
 * own iovec): gathered so the collector gets few writes and, over TLS,
 * few records. */
static fstrm_res out_write(void* obj, const struct iovec* iov, int iovcnt)
{
	struct dnstap_out* o = obj;
	int i;
	if(o->fd == -1)
		return fstrm_res_failure;
	for(i = 0; i < iovcnt; i++) {
		const uint8_t* p = iov[i].iov_base;
		size_t len = iov[i].iov_len;
		if(o->buf_len + len > sizeof(o->buf) && !flush_buf(o))
			return fstrm_res_failure;
		if(len > sizeof(o->buf)) {
			if(!send_all(o, p, len))
				return fstrm_res_failure;
			continue;
		}
		memcpy(o->buf + o->buf_len, p, len);
		o->buf_len += len;
	}
	return flush_buf(o) ? fstrm_res_success : fstrm_res_failure;
}

/* Exactly count bytes (the collector's ACCEPT and FINISH frames). */
static fstrm_res out_read(void* obj, void* data, size_t count)
{
	struct dnstap_out* o = obj;
	uint8_t* p = data;
	if(o->fd == -1)
		return fstrm_res_failure;
	while(count > 0) {
		ssize_t n;
		if(o->ssl) {
			int r;
			ERR_clear_error();
			r = SSL_read(o->ssl, p, count > 0x7fffffff ?
				0x7fffffff : (int)count);
			n = r > 0 ? r : -1;
		} else {
			n = recv(o->fd, p, count, 0);
			if(n < 0 && errno == EINTR)
				continue;
		}
		if(n <= 0) {
			verbose(VERB_DETAIL, "dnstap io: output closed by %s "
				"(no handshake reply)", o->where);
			return fstrm_res_failure;
		}
		p += n;
		count -= (size_t)n;
	}
	return fstrm_res_success;
}

static fstrm_res out_destroy(void* obj)
{
	struct dnstap_out* o = obj;
	(void)out_close(o);
	SSL_CTX_free(o->ctx);
	free(o->server_name);
	free(o);
	return fstrm_res_success;
}

/* compat: unbound-1.17: a socket path under chroot is used relative to
 * it, as Unbound */
static int unix_addr(struct dnstap_out* o, const struct config_file* cfg)
{
	struct sockaddr_un* un = (struct sockaddr_un*)&o->addr;
	const char* path = cfg->dnstap_socket_path &&
		cfg->dnstap_socket_path[0] ? cfg->dnstap_socket_path :
		"/run/dnstap.sock";
	size_t cl = cfg->chrootdir ? strlen(cfg->chrootdir) : 0;
	if(cl && strncmp(path, cfg->chrootdir, cl) == 0)
		path += cl;
	if(strlen(path) >= sizeof(un->sun_path)) {
		log_err("dnstap-socket-path %s: too long", path);
		return 0;
	}
	memset(un, 0, sizeof(*un));
	un->sun_family = AF_UNIX;
	strcpy(un->sun_path, path);
	o->addrlen = (socklen_t)sizeof(*un);
	snprintf(o->where, sizeof(o->where), "\"%s\"", path);
	return 1;
}

static int ip_addr(struct dnstap_out* o, const struct config_file* cfg)
{
	if(!extstrtoaddr(cfg->dnstap_ip, DNSTAP_DEFAULT_PORT, &o->addr,
		&o->addrlen)) {
		log_err("dnstap setup: could not parse dnstap-ip '%s'",
			cfg->dnstap_ip);
		return 0;
	}
	snprintf(o->where, sizeof(o->where), "%s", cfg->dnstap_ip);
	return 1;
}

/* The TLS client context: the CAs of dnstap-tls-cert-bundle, else of
 * tls-cert-bundle (verified when there are some), the client key and
 * certificate when set. NULL, logged. */
static SSL_CTX* tls_ctx(const struct config_file* cfg)
{
	const char* bundle = cfg->dnstap_tls_cert_bundle &&
		cfg->dnstap_tls_cert_bundle[0] ? cfg->dnstap_tls_cert_bundle :
		cfg->tls_cert_bundle;
	const char* key = cfg->dnstap_tls_client_key_file;
	const char* cert = cfg->dnstap_tls_client_cert_file;
	SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
	if(!ctx || !SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION)) {
		log_err("dnstap setup: could not create the SSL_CTX");
		goto fail;
	}
	SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION);
	if(bundle && bundle[0]) {
		if(!SSL_CTX_load_verify_locations(ctx, bundle, NULL)) {
			log_err("dnstap setup: error in the cert bundle %s",
				bundle);
			goto fail;
		}
		SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	}
	if(key && key[0]) {
		if(!cert || !cert[0]) {
			/* compat: unbound-1.17: Unbound's words */
			log_err("dnstap setup: client key authentication "
				"enabled with dnstap-tls-client-key-file, but "
				"no dnstap-tls-client-cert-file is given");
			goto fail;
		}
		if(!SSL_CTX_use_certificate_chain_file(ctx, cert)) {
			log_err("dnstap setup: error in "
				"dnstap-tls-client-cert-file %s", cert);
			goto fail;
		}
		if(!SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) ||
			!SSL_CTX_check_private_key(ctx)) {
			log_err("dnstap setup: error in "
				"dnstap-tls-client-key-file %s", key);
			goto fail;
		}
	}
	return ctx;
fail:
	ERR_clear_error();
	SSL_CTX_free(ctx);
	return NULL;
}

struct fstrm_rdwr* dnstap_out_create(const struct config_file* cfg)
{
	struct dnstap_out* o = calloc(1, sizeof(*o));
	struct fstrm_rdwr* rw;
	int ok;
	if(!o) {
		log_oom("dnstap");
		return NULL;
	}
	o->fd = -1;
	if(cfg->dnstap_ip && cfg->dnstap_ip[0]) {
		o->kind = cfg->dnstap_tls ? OUT_TLS : OUT_TCP;
		ok = ip_addr(o, cfg);
	} else {
		o->kind = OUT_UNIX;
		ok = unix_addr(o, cfg);
	}
	if(ok && o->kind == OUT_TLS) {
		o->use_sni = cfg->tls_use_sni;
		if(cfg->dnstap_tls_server_name &&
			cfg->dnstap_tls_server_name[0] && !(o->server_name =
			strdup(cfg->dnstap_tls_server_name))) {
			log_oom("dnstap");
			ok = 0;
		}
		if(ok && !(o->ctx = tls_ctx(cfg))) {
			/* compat: unbound-1.17: Unbound's line */
			log_err("could not setup SSL CTX");
			ok = 0;
		}
	}
	if(!ok || !(rw = fstrm_rdwr_init(o))) {
		if(ok)
			log_oom("dnstap");
		(void)out_destroy(o);
		return NULL;
	}
	fstrm_rdwr_set_open(rw, out_open);
	fstrm_rdwr_set_close(rw, out_close);
	fstrm_rdwr_set_write(rw, out_write);
	fstrm_rdwr_set_destroy(rw, out_destroy);
	/* the read method is what makes libfstrm's writer bidirectional */
	if(cfg->dnstap_bidirectional)
		fstrm_rdwr_set_read(rw, out_read);
	verbose(VERB_OPS, "dnstap to %s (%s%s)", o->where, o->kind ==
		OUT_UNIX ? "unix socket" : o->kind == OUT_TCP ? "TCP" : "TLS",
		cfg->dnstap_bidirectional ? ", bidirectional" : "");
	return rw;
}

#endif /* HAVE_DNSTAP */
