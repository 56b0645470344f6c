/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/tls_server_test.c - the server TLS context from the
 * config (services/tls_server.c): files and their errors, ALPN,
 * renegotiation refused, tickets under rotating keys, one new ticket
 * per connection, resumed or not. Handshakes run
 * in memory (BIO pairs), client and server in turns. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/pem.h>
#include <openssl/evp.h>
#include "services/tls_server.h"
#include "util/config_file.h"
#include "util/log.h"

static char dir[64];
static char pem_path[128], key_path[128], tk1[128], tk2[128], bad_tk[128];

static void write_file(const char* path, const void* data, size_t len)
{
	FILE* f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

static void write_ticket_key(const char* path, unsigned char fill)
{
	unsigned char k[80];
	memset(k, fill, sizeof(k));
	write_file(path, k, sizeof(k));
}

/* A self-signed P-256 certificate and its key in dir. */
static int setup(void** state)
{
	EVP_PKEY* key = EVP_EC_gen("P-256");
	X509* x = X509_new();
	X509_NAME* n;
	FILE* f;
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/tls_server_test.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(pem_path, sizeof(pem_path), "%s/server.pem", dir);
	snprintf(key_path, sizeof(key_path), "%s/server.key", dir);
	snprintf(tk1, sizeof(tk1), "%s/t1.key", dir);
	snprintf(tk2, sizeof(tk2), "%s/t2.key", dir);
	snprintf(bad_tk, sizeof(bad_tk), "%s/short.key", dir);
	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
	X509_gmtime_adj(X509_getm_notBefore(x), 0);
	X509_gmtime_adj(X509_getm_notAfter(x), 3600);
	X509_set_pubkey(x, key);
	n = X509_get_subject_name(x);
	X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_ASC,
		(const unsigned char*)"dot.test", -1, -1, 0);
	X509_set_issuer_name(x, n);
	assert_true(X509_sign(x, key, EVP_sha256()) > 0);
	f = fopen(pem_path, "w");
	assert_non_null(f);
	PEM_write_X509(f, x);
	fclose(f);
	f = fopen(key_path, "w");
	assert_non_null(f);
	PEM_write_PrivateKey(f, key, NULL, NULL, 0, NULL, NULL);
	fclose(f);
	write_ticket_key(tk1, 0x11);
	write_ticket_key(tk2, 0x22);
	write_file(bad_tk, "short", 5);
	X509_free(x);
	EVP_PKEY_free(key);
	return 0;
}

static int teardown(void** state)
{
	char cmd[128];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static struct config_file* cfg_with(const char* pem, const char* key)
{
	struct config_file* cfg = config_create();
	assert_non_null(cfg);
	free(cfg->tls_service_pem);
	free(cfg->tls_service_key);
	cfg->tls_service_pem = strdup(pem);
	cfg->tls_service_key = strdup(key);
	return cfg;
}

static void add_ticket_key(struct config_file* cfg, const char* path)
{
	struct config_strlist** t = &cfg->tls_session_ticket_keys;
	while(*t)
		t = &(*t)->next;
	*t = calloc(1, sizeof(**t));
	assert_non_null(*t);
	(*t)->str = strdup(path);
}

/* The log, captured in a file while a test calls log_start .. log_stop;
 * its text is in logged then. */
static char logged[2048];
static char log_path[128];
static void log_start(void)
{
	snprintf(log_path, sizeof(log_path), "%s/log", dir);
	write_file(log_path, "", 0);
	log_init(log_path, 0, NULL);
}
static void log_stop(void)
{
	FILE* f;
	size_t n;
	log_init(NULL, 0, NULL);
	f = fopen(log_path, "r");
	assert_non_null(f);
	n = fread(logged, 1, sizeof(logged) - 1, f);
	logged[n] = 0;
	fclose(f);
}

static void test_missing_key_names_file(void** state)
{
	struct config_file* cfg = cfg_with(pem_path, "/nonexistent/k.key");
	(void)state;
	log_start();
	assert_null(tls_server_ctx_new(cfg, "dot"));
	log_stop();
	assert_non_null(strstr(logged, "private key file"));
	assert_non_null(strstr(logged, "/nonexistent/k.key"));
	config_delete(cfg);
}

static void test_missing_cert_names_file(void** state)
{
	struct config_file* cfg = cfg_with("/nonexistent/c.pem", key_path);
	(void)state;
	log_start();
	assert_null(tls_server_ctx_new(cfg, "dot"));
	log_stop();
	assert_non_null(strstr(logged, "cert file"));
	assert_non_null(strstr(logged, "/nonexistent/c.pem"));
	config_delete(cfg);
}

static void test_key_is_not_a_key(void** state)
{
	/* the certificate given as the key: readable, but no key */
	struct config_file* cfg = cfg_with(pem_path, pem_path);
	(void)state;
	log_start();
	assert_null(tls_server_ctx_new(cfg, "dot"));
	log_stop();
	assert_non_null(strstr(logged, pem_path));
	config_delete(cfg);
}

static void test_short_ticket_key(void** state)
{
	struct config_file* cfg = cfg_with(pem_path, key_path);
	(void)state;
	add_ticket_key(cfg, bad_tk);
	log_start();
	assert_null(tls_server_ctx_new(cfg, "dot"));
	log_stop();
	assert_non_null(strstr(logged, bad_tk));
	assert_non_null(strstr(logged, "must be 80"));
	config_delete(cfg);
}

static void test_bad_ciphers(void** state)
{
	struct config_file* cfg = cfg_with(pem_path, key_path);
	(void)state;
	free(cfg->tls_ciphers);
	cfg->tls_ciphers = strdup("NO-SUCH-CIPHER");
	assert_null(tls_server_ctx_new(cfg, "dot"));
	config_delete(cfg);
}

/* A client and a server joined by a BIO pair. */
struct pair {
	SSL* c, *s;
};

static void pair_new(struct pair* p, SSL_CTX* sctx, SSL_CTX* cctx)
{
	BIO* cb, *sb;
	assert_int_equal(BIO_new_bio_pair(&cb, 0, &sb, 0), 1);
	p->c = SSL_new(cctx);
	p->s = SSL_new(sctx);
	assert_non_null(p->c);
	assert_non_null(p->s);
	SSL_set_bio(p->c, cb, cb);
	SSL_set_bio(p->s, sb, sb);
	SSL_set_connect_state(p->c);
	SSL_set_accept_state(p->s);
}

/* Run both handshakes; 1 when both completed. */
static int pair_handshake(struct pair* p)
{
	int i, c = 0, s = 0;
	for(i = 0; i < 50 && (c != 1 || s != 1); i++) {
		if(c != 1)
			c = SSL_do_handshake(p->c);
		if(s != 1)
			s = SSL_do_handshake(p->s);
		if(c <= 0 && SSL_get_error(p->c, c) != SSL_ERROR_WANT_READ)
			return 0;
		if(s <= 0 && SSL_get_error(p->s, s) != SSL_ERROR_WANT_READ)
			return 0;
	}
	return c == 1 && s == 1;
}

/* Move the data both ways a few times (TLS 1.3 tickets arrive after
 * the handshake). */
static void pair_pump(struct pair* p)
{
	char buf[64];
	int i;
	for(i = 0; i < 4; i++) {
		(void)SSL_read(p->c, buf, sizeof(buf));
		(void)SSL_read(p->s, buf, sizeof(buf));
	}
	ERR_clear_error();
}

/* A clean close: a session of a connection freed without one is made
 * not resumable by OpenSSL. */
static void pair_free(struct pair* p)
{
	SSL_set_shutdown(p->c, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
	SSL_set_shutdown(p->s, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
	SSL_free(p->c);
	SSL_free(p->s);
}

static SSL_CTX* client_ctx(int max_version)
{
	SSL_CTX* c = SSL_CTX_new(TLS_client_method());
	assert_non_null(c);
	if(max_version)
		SSL_CTX_set_max_proto_version(c, max_version);
	SSL_CTX_set_session_cache_mode(c, SSL_SESS_CACHE_CLIENT);
	return c;
}

static void test_handshake_alpn(void** state)
{
	struct config_file* cfg = cfg_with(pem_path, key_path);
	SSL_CTX* s = tls_server_ctx_new(cfg, "dot");
	SSL_CTX* c = client_ctx(0);
	struct pair p;
	const unsigned char* sel;
	unsigned len;
	static const unsigned char offer[] = "\x02h2\x03" "dot";
	(void)state;
	assert_non_null(s);
	assert_int_equal(tls_server_ticket_keys(s), 0);
	/* offered among others: selected */
	pair_new(&p, s, c);
	SSL_set_alpn_protos(p.c, offer, sizeof(offer) - 1);
	assert_true(pair_handshake(&p));
	SSL_get0_alpn_selected(p.c, &sel, &len);
	assert_int_equal(len, 3);
	assert_memory_equal(sel, "dot", 3);
	pair_free(&p);
	/* not offered: served without ALPN */
	pair_new(&p, s, c);
	SSL_set_alpn_protos(p.c, (const unsigned char*)"\x02h2", 3);
	assert_true(pair_handshake(&p));
	SSL_get0_alpn_selected(p.c, &sel, &len);
	assert_int_equal(len, 0);
	pair_free(&p);
	/* TLS 1.1 is below the least version */
	SSL_CTX_set_min_proto_version(c, TLS1_VERSION);
	SSL_CTX_set_max_proto_version(c, TLS1_1_VERSION);
	SSL_CTX_set_security_level(c, 0);
	pair_new(&p, s, c);
	assert_false(pair_handshake(&p));
	pair_free(&p);
	ERR_clear_error();
	SSL_CTX_free(c);
	tls_server_ctx_free(s);
	config_delete(cfg);
}

static void test_renegotiation_refused(void** state)
{
	struct config_file* cfg = cfg_with(pem_path, key_path);
	SSL_CTX* s = tls_server_ctx_new(cfg, "dot");
	SSL_CTX* c = client_ctx(TLS1_2_VERSION);
	struct pair p;
	char buf[16];
	int i, r = 0;
	(void)state;
	assert_non_null(s);
	pair_new(&p, s, c);
	assert_true(pair_handshake(&p));
	/* the client asks; the server must not renegotiate: the client's
	 * request is answered with a no_renegotiation warning or an
	 * error, never a new handshake */
	assert_int_equal(SSL_renegotiate(p.c), 1);
	(void)SSL_do_handshake(p.c);
	for(i = 0; i < 6; i++) {
		(void)SSL_read(p.s, buf, sizeof(buf));
		r = SSL_do_handshake(p.c);
		if(r <= 0 && SSL_get_error(p.c, r) != SSL_ERROR_WANT_READ)
			break;
	}
	assert_int_equal(SSL_num_renegotiations(p.s), 0);
	assert_int_not_equal(r, 1);
	ERR_clear_error();
	pair_free(&p);
	SSL_CTX_free(c);
	tls_server_ctx_free(s);
	config_delete(cfg);
}

/* A session from a full handshake against s1, then a try to resume it
 * against s2; returns whether it was resumed. */
static int resumes(SSL_CTX* s1, SSL_CTX* s2, int version)
{
	SSL_CTX* c = client_ctx(version);
	struct pair p;
	SSL_SESSION* sess;
	int reused;
	pair_new(&p, s1, c);
	assert_true(pair_handshake(&p));
	pair_pump(&p);
	assert_int_equal(SSL_session_reused(p.s), 0);
	sess = SSL_get1_session(p.c);
	assert_non_null(sess);
	assert_true(SSL_SESSION_is_resumable(sess));
	assert_true(SSL_SESSION_has_ticket(sess));
	pair_free(&p);
	pair_new(&p, s2, c);
	SSL_set_session(p.c, sess);
	assert_true(pair_handshake(&p));
	reused = SSL_session_reused(p.s);
	assert_int_equal(reused, SSL_session_reused(p.c));
	pair_free(&p);
	SSL_SESSION_free(sess);
	SSL_CTX_free(c);
	return reused;
}

static void test_tickets_rotation(void** state)
{
	struct config_file* a = cfg_with(pem_path, key_path);
	struct config_file* b = cfg_with(pem_path, key_path);
	struct config_file* only2 = cfg_with(pem_path, key_path);
	struct config_file* none = cfg_with(pem_path, key_path);
	SSL_CTX* sa, *sb, *s2, *sn;
	(void)state;
	add_ticket_key(a, tk1);              /* old: t1 encrypts */
	add_ticket_key(b, tk2);              /* new: t2 encrypts, t1 too */
	add_ticket_key(b, tk1);
	add_ticket_key(only2, tk2);          /* t1 dropped */
	sa = tls_server_ctx_new(a, "dot");
	sb = tls_server_ctx_new(b, "dot");
	s2 = tls_server_ctx_new(only2, "dot");
	sn = tls_server_ctx_new(none, "dot");
	assert_non_null(sa);
	assert_non_null(sb);
	assert_non_null(s2);
	assert_non_null(sn);
	assert_int_equal(tls_server_ticket_keys(sb), 2);
	/* same context, both versions */
	assert_true(resumes(sa, sa, TLS1_2_VERSION));
	assert_true(resumes(sa, sa, TLS1_3_VERSION));
	/* another context (a reload, another process) with the key */
	assert_true(resumes(sa, sb, TLS1_3_VERSION));
	assert_true(resumes(sa, sb, TLS1_2_VERSION));
	/* sb's own tickets (under t2); none under a key that is gone */
	assert_true(resumes(sb, sb, TLS1_3_VERSION));
	assert_false(resumes(sa, s2, TLS1_3_VERSION));
	assert_false(resumes(sa, s2, TLS1_2_VERSION));
	/* without keys OpenSSL's own tickets resume in that context only */
	assert_true(resumes(sn, sn, TLS1_3_VERSION));
	assert_false(resumes(sn, sa, TLS1_3_VERSION));
	tls_server_ctx_free(sa);
	tls_server_ctx_free(sb);
	tls_server_ctx_free(s2);
	tls_server_ctx_free(sn);
	config_delete(a);
	config_delete(b);
	config_delete(only2);
	config_delete(none);
}

/* Tickets the client got (its new-session callback: one call per
 * NewSessionTicket in TLS 1.3); the newest is kept in newest. */
static int tickets_seen;
static SSL_SESSION* newest;

static int count_ticket(SSL* ssl, SSL_SESSION* sess)
{
	(void)ssl;
	tickets_seen++;
	SSL_SESSION_free(newest);
	newest = sess;
	return 1;  /* the reference is kept */
}

/* A chain of connections to s, each resuming the newest session of
 * the one before (a TLS 1.3 ticket is for one use, RFC 8446 C.4): the
 * full handshake and every resumption must bring exactly one ticket. */
static void ticket_chain(SSL_CTX* s, int version)
{
	SSL_CTX* c = client_ctx(version);
	struct pair p;
	SSL_SESSION* sess = NULL;
	int i;
	SSL_CTX_sess_set_new_cb(c, count_ticket);
	for(i = 0; i < 4; i++) {
		tickets_seen = 0;
		pair_new(&p, s, c);
		if(sess)
			SSL_set_session(p.c, sess);
		assert_true(pair_handshake(&p));
		pair_pump(&p);
		assert_int_equal(SSL_session_reused(p.s), i > 0);
		if(version == TLS1_3_VERSION || i == 0)
			assert_int_equal(tickets_seen, 1);
		pair_free(&p);
		if(version == TLS1_3_VERSION || i == 0) {
			assert_non_null(newest);
			assert_ptr_not_equal(newest, sess);
			SSL_SESSION_free(sess);
			sess = newest;  /* its reference moves here */
			newest = NULL;
		}
	}
	SSL_SESSION_free(sess);
	SSL_SESSION_free(newest);
	newest = NULL;
	SSL_CTX_free(c);
}

static void test_one_ticket_per_connection(void** state)
{
	struct config_file* none = cfg_with(pem_path, key_path);
	struct config_file* one = cfg_with(pem_path, key_path);
	struct config_file* two = cfg_with(pem_path, key_path);
	SSL_CTX* sn, *s1, *s2;
	(void)state;
	add_ticket_key(one, tk1);
	add_ticket_key(two, tk2);
	add_ticket_key(two, tk1);
	sn = tls_server_ctx_new(none, "dot");
	s1 = tls_server_ctx_new(one, "dot");
	s2 = tls_server_ctx_new(two, "dot");
	assert_non_null(sn);
	assert_non_null(s1);
	assert_non_null(s2);
	ticket_chain(sn, TLS1_3_VERSION);
	ticket_chain(s1, TLS1_3_VERSION);
	ticket_chain(s2, TLS1_3_VERSION);
	/* TLS 1.2: the ticket of the first connection resumes them all */
	ticket_chain(s1, TLS1_2_VERSION);
	ticket_chain(sn, TLS1_2_VERSION);
	tls_server_ctx_free(sn);
	tls_server_ctx_free(s1);
	tls_server_ctx_free(s2);
	config_delete(none);
	config_delete(one);
	config_delete(two);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missing_key_names_file),
		cmocka_unit_test(test_missing_cert_names_file),
		cmocka_unit_test(test_key_is_not_a_key),
		cmocka_unit_test(test_short_ticket_key),
		cmocka_unit_test(test_bad_ciphers),
		cmocka_unit_test(test_handshake_alpn),
		cmocka_unit_test(test_renegotiation_refused),
		cmocka_unit_test(test_tickets_rotation),
		cmocka_unit_test(test_one_ticket_per_connection),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
