/* SPDX-License-Identifier: BSD-3-Clause */
/* services/tls_client.c - TLS to upstream servers (see tls_client.h). */
#include "config.h"
#include "services/tls_client.h"
#include "services/stream_tls.h"
#include "util/config_file.h"
#include "util/log.h"
#include "util/net_help.h"
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <errno.h>
#include <stdio.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* the SSL's tls_peer, for the new-session callback */
static int peer_index = -1;
static pthread_once_t peer_index_once = PTHREAD_ONCE_INIT;

static void peer_index_init(void)
{
	peer_index = SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL);
}

struct tls_session_entry {
	SSL_CTX* ctx;              /* a reference: the session was verified
	                            * with this context's CAs */
	struct sockaddr_storage addr;
	socklen_t addrlen;
	char name[256];
	SSL_SESSION* sess;         /* NULL: a free slot */
	uint64_t stamp;            /* when stored (for the oldest) */
};

struct tls_session_cache {
	int max, num;
	uint64_t clock;
	struct tls_session_entry e[];
};

static void log_ssl_err(const char* what)
{
	unsigned long err = ERR_peek_last_error();
	log_err("%s: %s", what, err ? ERR_reason_error_string(err) :
		"unknown error");
	ERR_clear_error();
}

static int new_session_cb(SSL* ssl, SSL_SESSION* sess);

SSL_CTX* tls_client_ctx_create(const struct config_file* cfg)
{
	SSL_CTX* ctx;
	const char* bundle = cfg->tls_cert_bundle;
	int have_ca = 0;
	pthread_once(&peer_index_once, peer_index_init);
	if(peer_index < 0) {
		log_ssl_err("TLS upstream: no SSL ex_data index");
		return NULL;
	}
	if(!(ctx = SSL_CTX_new(TLS_client_method()))) {
		log_ssl_err("TLS upstream: could not create SSL_CTX");
		return NULL;
	}
	/* RFC 8310 (and 7525): nothing older than TLS 1.2 */
	if(!SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION)) {
		log_ssl_err("TLS upstream: cannot require TLS 1.2");
		SSL_CTX_free(ctx);
		return NULL;
	}
	SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION);
	if(bundle && bundle[0]) {
		FILE* f = fopen(bundle, "r");
		if(!f) {
			log_err("error in tls-cert-bundle %s: %s", bundle,
				strerror(errno));
			SSL_CTX_free(ctx);
			return NULL;
		}
		fclose(f);
		if(!SSL_CTX_load_verify_locations(ctx, bundle, NULL)) {
			unsigned long err = ERR_peek_last_error();
			log_err("error in tls-cert-bundle %s: %s", bundle,
				err ? ERR_reason_error_string(err) :
				"cannot read");
			ERR_clear_error();
			SSL_CTX_free(ctx);
			return NULL;
		}
		have_ca = 1;
	}
	if(cfg->tls_system_cert || cfg->tls_win_cert) {
		/* compat: unbound-1.17: tls-win-cert is Windows' store in
		 * Unbound; elsewhere Unbound 1.17 reads the system's store for
		 * it, as here */
		if(cfg->tls_win_cert && !cfg->tls_system_cert)
			verbose(VERB_OPS, "tls-win-cert: no Windows store "
				"here, the system's certificates are used");
		if(!SSL_CTX_set_default_verify_paths(ctx)) {
			log_ssl_err("tls-system-cert: cannot load the system's "
				"certificates");
			SSL_CTX_free(ctx);
			return NULL;
		}
		have_ca = 1;
	}
	/* with CAs the chain is always verified; without, only an
	 * authentication name turns verification on (tls_client_new) */
	if(have_ca)
		SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	/* client sessions go to our per-worker cache, none inside */
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT |
		SSL_SESS_CACHE_NO_INTERNAL_STORE);
	SSL_CTX_sess_set_new_cb(ctx, new_session_cb);
	return ctx;
}

void tls_client_ctx_free(SSL_CTX* ctx)
{
	SSL_CTX_free(ctx);
}

/* ---- the session cache ---- */

struct tls_session_cache* tls_session_cache_create(int max)
{
	struct tls_session_cache* c;
	if(max < 1)
		max = 1;
	c = calloc(1, sizeof(*c) + (size_t)max * sizeof(c->e[0]));
	if(c)
		c->max = max;
	return c;
}

static void entry_clear(struct tls_session_cache* c,
	struct tls_session_entry* e)
{
	if(!e->sess)
		return;
	SSL_SESSION_free(e->sess);
	SSL_CTX_free(e->ctx);
	e->sess = NULL;
	e->ctx = NULL;
	c->num--;
}

void tls_session_cache_delete(struct tls_session_cache* c)
{
	int i;
	if(!c)
		return;
	for(i = 0; i < c->max; i++)
		entry_clear(c, &c->e[i]);
	free(c);
}

int tls_session_cache_count(const struct tls_session_cache* c)
{
	return c ? c->num : 0;
}

static int entry_is(const struct tls_session_entry* e,
	const struct tls_peer* p)
{
	return e->sess && e->ctx == p->ctx && strcmp(e->name, p->name) == 0
		&& sockaddr_cmp(&e->addr, e->addrlen, &p->addr,
		p->addrlen) == 0;
}

static struct tls_session_entry* entry_find(struct tls_session_cache* c,
	const struct tls_peer* p)
{
	int i;
	for(i = 0; i < c->max; i++)
		if(entry_is(&c->e[i], p))
			return &c->e[i];
	return NULL;
}

void tls_session_forget(const struct tls_peer* peer)
{
	struct tls_session_entry* e;
	if(peer->cache && (e = entry_find(peer->cache, peer)) != NULL)
		entry_clear(peer->cache, e);
}

/* Keep sess for p (a reference is taken), replacing p's old one or the
 * oldest. */
static void session_put(const struct tls_peer* p, SSL_SESSION* sess)
{
	struct tls_session_cache* c = p->cache;
	struct tls_session_entry* e = entry_find(c, p);
	int i;
	for(i = 0; !e && i < c->max; i++)
		if(!c->e[i].sess)
			e = &c->e[i];
	if(!e) {   /* full: the oldest goes */
		e = &c->e[0];
		for(i = 1; i < c->max; i++)
			if(c->e[i].stamp < e->stamp)
				e = &c->e[i];
	}
	entry_clear(c, e);
	if(!SSL_SESSION_up_ref(sess))
		return;
	if(!SSL_CTX_up_ref(p->ctx)) {
		SSL_SESSION_free(sess);
		return;
	}
	e->sess = sess;
	e->ctx = p->ctx;
	e->addr = p->addr;
	e->addrlen = p->addrlen;
	memcpy(e->name, p->name, sizeof(e->name));
	e->stamp = ++c->clock;
	c->num++;
}

/* OpenSSL has a new session (TLS 1.2: at the end of the handshake;
 * TLS 1.3: each ticket that arrives): keep it for the next connection.
 * 0: OpenSSL keeps no extra reference for us. */
static int new_session_cb(SSL* ssl, SSL_SESSION* sess)
{
	const struct tls_peer* p = SSL_get_ex_data(ssl, peer_index);
	if(p && p->cache && SSL_SESSION_is_resumable(sess))
		session_put(p, sess);
	return 0;
}

/* ---- connections ---- */

SSL* tls_client_new(const struct tls_peer* peer, int fd, int use_sni)
{
	SSL* ssl = SSL_new(peer->ctx);
	struct tls_session_entry* e;
	if(!ssl || !SSL_set_fd(ssl, fd) ||
		!SSL_set_ex_data(ssl, peer_index, (void*)peer)) {
		log_ssl_err("TLS upstream: could not SSL_new");
		SSL_free(ssl);
		return NULL;
	}
	SSL_set_mode(ssl, SSL_MODE_ENABLE_PARTIAL_WRITE |
		SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	SSL_set_connect_state(ssl);
	/* many small records (one per answer): one recv for all there */
	SSL_set_read_ahead(ssl, 1);
	if(peer->name[0]) {
		X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
		/* "*.example.net" may match one label, never a part */
		X509_VERIFY_PARAM_set_hostflags(param,
			X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
		if(!X509_VERIFY_PARAM_set1_host(param, peer->name, 0) ||
			(use_sni && !SSL_set_tlsext_host_name(ssl,
			peer->name))) {
			log_ssl_err("TLS upstream: cannot set the "
				"authentication name");
			SSL_free(ssl);
			return NULL;
		}
		SSL_set_verify(ssl, SSL_VERIFY_PEER, NULL);
	}
	if(peer->cache && (e = entry_find(peer->cache, peer)) != NULL)
		(void)SSL_set_session(ssl, e->sess);
	return ssl;
}

int tls_client_handshake(SSL* ssl, const char** why)
{
	unsigned long err;
	long vr;
	int n;
	ERR_clear_error();
	n = SSL_do_handshake(ssl);
	if(n == 1)
		return 1;
	if((n = stream_tls_wants(ssl, n)) != 0)
		return n;
	vr = SSL_get_verify_result(ssl);
	err = ERR_peek_last_error();
	if(vr != X509_V_OK)
		*why = X509_verify_cert_error_string(vr);
	else if(err)
		*why = ERR_reason_error_string(err);
	else	*why = "connection closed";
	if(!*why)
		*why = "unknown error";
	ERR_clear_error();
	return STREAM_IO_ERROR;
}

void tls_client_close(SSL* ssl)
{
	if(!ssl)
		return;
	/* no alert on a connection that failed: only after a handshake */
	if(SSL_is_init_finished(ssl)) {
		ERR_clear_error();
		(void)SSL_shutdown(ssl);
		ERR_clear_error();
	}
	SSL_free(ssl);
}
