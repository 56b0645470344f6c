/* SPDX-License-Identifier: BSD-3-Clause */
/* services/tls_server.h - compat: unbound-1.17: the server TLS context for DNS
 * over TLS and DNS over HTTPS to clients, built from unbound.conf:
 * tls-service-pem   certificate chain (PEM, leaf first)   tls-service-key
 * private key (PEM)   tls-ciphers       TLS 1.2 cipher list ("": OpenSSL's
 * default)   tls-ciphersuites  TLS 1.3 suites ("": OpenSSL's default)
 * tls-session-ticket-keys  files of 80 random bytes each (16 key name,
 * 32 AES-256 key, 32 HMAC-SHA256 key, as Unbound):                     the
 * first encrypts new tickets, every one decrypts;                     a ticket
 * under another than the first is accepted                     and renewed.
 * None: OpenSSL's own ticket keys. TLS 1.2 is the least version, renegotiation
 * is refused, compression is off. One context serves every worker thread
 * (OpenSSL's contexts are thread safe); on reload a new one is made and
 * swapped in, the old one lives on in the connections that hold it (reference
 * counted). */
#ifndef SERVICES_TLS_SERVER_H
#define SERVICES_TLS_SERVER_H

struct config_file;
typedef struct ssl_ctx_st SSL_CTX;

/* Is a TLS service configured (tls-service-key and -pem set)? */
int tls_server_configured(const struct config_file* cfg);

/* compat: unbound-1.17: A new server context; alpn_proto: the ALPN protocol to
 * select when the client offers it ("dot", "h2"), or NULL for no ALPN. A
 * client that offers ALPN without it is served without ALPN (as Unbound). NULL
 * on error, logged with log_err, naming the file at fault:   "error for cert
 * file: FILE: REASON"   "error for private key file: FILE: REASON"   "error:
 * key FILE does not match cert FILE"   "error for tls-session-ticket-keys
 * file: FILE: REASON"   "error in tls-ciphers: LIST", "error in
 * tls-ciphersuites: LIST" */
SSL_CTX* tls_server_ctx_new(const struct config_file* cfg,
	const char* alpn_proto);

/* compat: unbound-1.26: tls-protocols: TLS 1.2 is the least version, and
 * 1.2 or 1.3 is switched off when the list does not name it (as Unbound,
 * for the DNS over TLS and HTTPS contexts and unbound-control's). */
void tls_server_set_protocols(SSL_CTX* ctx, const struct config_file* cfg);

/* Drop the caller's reference (connections keep theirs). NULL is fine. */
void tls_server_ctx_free(SSL_CTX* ctx);

/* The number of ticket keys the context has loaded (0: OpenSSL's). */
int tls_server_ticket_keys(SSL_CTX* ctx);

/* The context in use, swapped on reload while workers accept: a mutex
 * guarded pointer, taken once per accepted connection. */
struct tls_server_ref;
/* Holds ctx (takes the caller's reference); NULL on no memory. */
struct tls_server_ref* tls_server_ref_new(SSL_CTX* ctx);
/* A new reference to the current context (stream_tls_ctx_fn). */
SSL_CTX* tls_server_ref_get(void* ref);
/* Make ctx current (takes the reference); connections keep the old. */
void tls_server_ref_set(struct tls_server_ref* ref, SSL_CTX* ctx);
void tls_server_ref_free(struct tls_server_ref* ref);

#endif
