/* SPDX-License-Identifier: BSD-3-Clause */
/* services/tls_server.c - the server TLS context of DNS over TLS and
 * HTTPS: certificate, key, ciphers, ticket keys, ALPN. */
#include "config.h"
#include "services/tls_server.h"
#include "util/config_file.h"
#include "util/log.h"
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/core_names.h>
#include <openssl/rand.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TICKET_KEY_FILE_LEN 80

/* compat: unbound-1.17: One ticket key as Unbound's files hold it. */
struct ticket_key {
	unsigned char name[16];
	unsigned char aes[32];
	unsigned char hmac[32];
};

/* What the context carries for its callbacks (its app data). */
struct tls_server_data {
	char alpn[32];           /* length-prefixed, as on the wire */
	size_t alpn_len;
	/* the ticket cipher, fetched once: EVP_aes_256_cbc() would make
	 * OpenSSL 3 look it up in its providers for every ticket */
	EVP_CIPHER* ticket_cipher;
	int num_keys;
	struct ticket_key keys[];
};

/* Where the context keeps its tls_server_data (freed with the context,
 * when its last reference, possibly a connection's, is dropped). */
static int data_idx = -1;

int tls_server_configured(const struct config_file* cfg)
{
	return cfg->tls_service_key && cfg->tls_service_key[0] &&
		cfg->tls_service_pem && cfg->tls_service_pem[0];
}

/* Why fname could not be used: the system's reason when it cannot be
 * read at all ("No such file or directory"), else OpenSSL's ("no start
 * line", "key values mismatch"). */
static const char* file_reason(const char* fname)
{
	unsigned long e = ERR_peek_last_error();
	const char* r = e ? ERR_reason_error_string(e) : NULL;
	if(fname && access(fname, R_OK) != 0)
		return strerror(errno);
	return r ? r : "unknown error";
}

static int read_ticket_key(const char* fname, struct ticket_key* k)
{
	unsigned char data[TICKET_KEY_FILE_LEN + 1];
	size_t n;
	FILE* f = fopen(fname, "rb");
	if(!f) {
		log_err("error for tls-session-ticket-keys file: %s: %s",
			fname, strerror(errno));
		return 0;
	}
	n = fread(data, 1, sizeof(data), f);
	fclose(f);
	if(n != TICKET_KEY_FILE_LEN) {
		log_err("error for tls-session-ticket-keys file: %s: %d bytes,"
			" must be %d", fname, (int)n, TICKET_KEY_FILE_LEN);
		return 0;
	}
	memcpy(k->name, data, 16);
	memcpy(k->aes, data + 16, 32);
	memcpy(k->hmac, data + 48, 32);
	return 1;
}

static int set_hmac(EVP_MAC_CTX* hctx, unsigned char* key)
{
	OSSL_PARAM params[3];
	params[0] = OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_KEY,
		key, 32);
	params[1] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST,
		"sha256", 0);
	params[2] = OSSL_PARAM_construct_end();
	return EVP_MAC_CTX_set_params(hctx, params);
}

/* New tickets under the first key; tickets under any key are accepted.
 * Renewed (return 2): those not under the first, and every TLS 1.3 one:
 * OpenSSL sends a TLS 1.3 resumption a new ticket only when asked to,
 * as its own ticket keys do, and a client uses a TLS 1.3 ticket once
 * (RFC 8446 C.4), so without one its next connection is a full
 * handshake. (Unbound 1.17 returns 1: with tls-session-ticket-keys every
 * other of a client's connections resumes.) */
static int ticket_cb(SSL* ssl, unsigned char key_name[16],
	unsigned char iv[EVP_MAX_IV_LENGTH], EVP_CIPHER_CTX* ectx,
	EVP_MAC_CTX* hctx, int enc)
{
	struct tls_server_data* d = SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl),
		data_idx);
	int i;
	if(enc) {
		struct ticket_key* k = &d->keys[0];
		if(RAND_bytes(iv, EVP_CIPHER_get_iv_length(d->ticket_cipher))
			!= 1)
			return -1;
		memcpy(key_name, k->name, 16);
		if(!EVP_EncryptInit_ex(ectx, d->ticket_cipher, NULL, k->aes,
			iv) || !set_hmac(hctx, k->hmac))
			return -1;
		return 1;
	}
	for(i = 0; i < d->num_keys; i++) {
		struct ticket_key* k = &d->keys[i];
		if(memcmp(key_name, k->name, 16) != 0)
			continue;
		if(!EVP_DecryptInit_ex(ectx, d->ticket_cipher, NULL, k->aes,
			iv) || !set_hmac(hctx, k->hmac))
			return -1;
		return i == 0 && SSL_version(ssl) < TLS1_3_VERSION ? 1 : 2;
	}
	return 0;  /* unknown key: a full handshake */
}

static int alpn_cb(SSL* ssl, const unsigned char** out, unsigned char* outlen,
	const unsigned char* in, unsigned int inlen, void* arg)
{
	struct tls_server_data* d = arg;
	unsigned char* sel;
	(void)ssl;
	if(SSL_select_next_proto(&sel, outlen, (const unsigned char*)d->alpn,
		(unsigned)d->alpn_len, in, inlen) != OPENSSL_NPN_NEGOTIATED)
		return SSL_TLSEXT_ERR_NOACK;
	*out = sel;
	return SSL_TLSEXT_ERR_OK;
}

static struct tls_server_data* data_new(const struct config_file* cfg,
	const char* alpn_proto)
{
	struct config_strlist* p;
	struct tls_server_data* d;
	int n = 0;
	for(p = cfg->tls_session_ticket_keys; p; p = p->next)
		if(p->str && p->str[0])
			n++;
	d = calloc(1, sizeof(*d) + (size_t)n * sizeof(struct ticket_key));
	if(!d) {
		log_err("out of memory for the TLS service");
		return NULL;
	}
	if(alpn_proto) {
		size_t l = strlen(alpn_proto);
		if(l == 0 || l >= sizeof(d->alpn) - 1) {
			log_err("bad ALPN protocol name '%s'", alpn_proto);
			free(d);
			return NULL;
		}
		d->alpn[0] = (char)l;
		memcpy(d->alpn + 1, alpn_proto, l);
		d->alpn_len = l + 1;
	}
	for(p = cfg->tls_session_ticket_keys; p; p = p->next) {
		if(!p->str || !p->str[0])
			continue;
		if(!read_ticket_key(p->str, &d->keys[d->num_keys])) {
			OPENSSL_cleanse(d->keys, (size_t)n * sizeof(d->keys[0]));
			free(d);
			return NULL;
		}
		d->num_keys++;
	}
	if(n > 0 && !(d->ticket_cipher = EVP_CIPHER_fetch(NULL, "AES-256-CBC",
		NULL))) {
		log_err("could not fetch AES-256-CBC for the TLS session"
			" tickets");
		OPENSSL_cleanse(d->keys, (size_t)n * sizeof(d->keys[0]));
		free(d);
		return NULL;
	}
	return d;
}

static void data_free(struct tls_server_data* d)
{
	if(!d)
		return;
	OPENSSL_cleanse(d->keys, (size_t)d->num_keys * sizeof(d->keys[0]));
	EVP_CIPHER_free(d->ticket_cipher);
	free(d);
}


static void data_ex_free(void* parent, void* ptr, CRYPTO_EX_DATA* ad,
	int idx, long argl, void* argp)
{
	(void)parent; (void)ad; (void)idx; (void)argl; (void)argp;
	data_free(ptr);
}

static int data_index(void)
{
	/* made at the first context, on the main thread before workers */
	if(data_idx < 0)
		data_idx = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL,
			data_ex_free);
	return data_idx;
}

static int load_cert_key(SSL_CTX* ctx, const struct config_file* cfg)
{
	if(!SSL_CTX_use_certificate_chain_file(ctx, cfg->tls_service_pem)) {
		log_err("error for cert file: %s: %s", cfg->tls_service_pem,
			file_reason(cfg->tls_service_pem));
		return 0;
	}
	if(!SSL_CTX_use_PrivateKey_file(ctx, cfg->tls_service_key,
		SSL_FILETYPE_PEM)) {
		log_err("error for private key file: %s: %s",
			cfg->tls_service_key, file_reason(cfg->tls_service_key));
		return 0;
	}
	if(!SSL_CTX_check_private_key(ctx)) {
		log_err("error: key %s does not match cert %s",
			cfg->tls_service_key, cfg->tls_service_pem);
		return 0;
	}
	return 1;
}

static int set_ciphers(SSL_CTX* ctx, const struct config_file* cfg)
{
	if(cfg->tls_ciphers && cfg->tls_ciphers[0] &&
		!SSL_CTX_set_cipher_list(ctx, cfg->tls_ciphers)) {
		log_err("error in tls-ciphers: %s", cfg->tls_ciphers);
		return 0;
	}
	if(cfg->tls_ciphersuites && cfg->tls_ciphersuites[0] &&
		!SSL_CTX_set_ciphersuites(ctx, cfg->tls_ciphersuites)) {
		log_err("error in tls-ciphersuites: %s",
			cfg->tls_ciphersuites);
		return 0;
	}
	return 1;
}

void tls_server_set_protocols(SSL_CTX* ctx, const struct config_file* cfg)
{
	int tls12 = 1, tls13 = 1;
	long off = 0;
	/* config_check refused a list with other words */
	(void)cfg_tls_protocols_parse(cfg->tls_protocols, &tls12, &tls13);
	if(!tls12)
		off |= SSL_OP_NO_TLSv1_2;
	if(!tls13)
		off |= SSL_OP_NO_TLSv1_3;
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	if(off)
		SSL_CTX_set_options(ctx, off);
}

SSL_CTX* tls_server_ctx_new(const struct config_file* cfg,
	const char* alpn_proto)
{
	SSL_CTX* ctx;
	struct tls_server_data* d;
	if(!tls_server_configured(cfg)) {
		log_err("tls-service-key and tls-service-pem must both be set"
			" for the TLS service");
		return NULL;
	}
	if(data_index() < 0 || !(ctx = SSL_CTX_new(TLS_server_method()))) {
		log_err("could not SSL_CTX_new: %s", file_reason(NULL));
		ERR_clear_error();
		return NULL;
	}
	if(!(d = data_new(cfg, alpn_proto))) {
		SSL_CTX_free(ctx);
		return NULL;
	}
	if(!SSL_CTX_set_ex_data(ctx, data_idx, d)) {
		data_free(d);
		goto fail;
	}
	tls_server_set_protocols(ctx, cfg);
	/* no renegotiation (a client cannot make us do handshakes for
	 * free), no compression (CRIME), our cipher order */
	SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION |
		SSL_OP_NO_COMPRESSION | SSL_OP_CIPHER_SERVER_PREFERENCE |
		SSL_OP_IGNORE_UNEXPECTED_EOF);
	/* one read(2) for many pipelined queries' records, not two per
	 * record (header, body); services/stream_conn.c reads on while
	 * OpenSSL has buffered input */
	SSL_CTX_set_read_ahead(ctx, 1);
	/* one ticket per handshake, not OpenSSL's two: a DoT client keeps
	 * its connection and needs one to resume; each costs an
	 * encryption and a record */
	SSL_CTX_set_num_tickets(ctx, 1);
	if(!load_cert_key(ctx, cfg) || !set_ciphers(ctx, cfg))
		goto fail;
	if(d->num_keys > 0 &&
		!SSL_CTX_set_tlsext_ticket_key_evp_cb(ctx, ticket_cb)) {
		log_err("could not set the TLS session ticket callback");
		goto fail;
	}
	if(d->alpn_len)
		SSL_CTX_set_alpn_select_cb(ctx, alpn_cb, d);
	ERR_clear_error();
	return ctx;
fail:
	ERR_clear_error();
	SSL_CTX_free(ctx);
	return NULL;
}

void tls_server_ctx_free(SSL_CTX* ctx)
{
	SSL_CTX_free(ctx);
}

int tls_server_ticket_keys(SSL_CTX* ctx)
{
	struct tls_server_data* d = ctx && data_idx >= 0 ?
		SSL_CTX_get_ex_data(ctx, data_idx) : NULL;
	return d ? d->num_keys : 0;
}

struct tls_server_ref {
	pthread_mutex_t lock;
	SSL_CTX* ctx;
};

struct tls_server_ref* tls_server_ref_new(SSL_CTX* ctx)
{
	struct tls_server_ref* r = calloc(1, sizeof(*r));
	if(!r) {
		SSL_CTX_free(ctx);
		return NULL;
	}
	pthread_mutex_init(&r->lock, NULL);
	r->ctx = ctx;
	return r;
}

SSL_CTX* tls_server_ref_get(void* arg)
{
	struct tls_server_ref* r = arg;
	SSL_CTX* ctx;
	pthread_mutex_lock(&r->lock);
	ctx = r->ctx;
	if(ctx && !SSL_CTX_up_ref(ctx))
		ctx = NULL;
	pthread_mutex_unlock(&r->lock);
	return ctx;
}

void tls_server_ref_set(struct tls_server_ref* r, SSL_CTX* ctx)
{
	SSL_CTX* old;
	pthread_mutex_lock(&r->lock);
	old = r->ctx;
	r->ctx = ctx;
	pthread_mutex_unlock(&r->lock);
	SSL_CTX_free(old);
}

void tls_server_ref_free(struct tls_server_ref* r)
{
	if(!r)
		return;
	SSL_CTX_free(r->ctx);
	pthread_mutex_destroy(&r->lock);
	free(r);
}
