/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/tls_client_test.c - services/tls_client.c over
 * socketpairs against an OpenSSL server with a fresh certificate for
 * dns.test: the name check (a wrong name fails with OpenSSL's reason),
 * the chain check without a name, session resumption from the cache
 * (a second connection to the same peer resumes; one to another name
 * does not), the cache's bound (the oldest session goes), forgetting a
 * session, and an unreadable tls-cert-bundle. */
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
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include "services/tls_client.h"
#include "services/stream_tls.h"
#include "util/config_file.h"

struct t_pki {
	char dir[64];
	char bundle[128];      /* the server's certificate: a trust anchor */
	SSL_CTX* sctx;         /* the server */
	SSL_CTX* cctx;         /* ours, trusting bundle */
};

/* A self-signed P-256 certificate for dns.test (CN and SAN). */
static void make_cert(X509** xo, EVP_PKEY** ko)
{
	EVP_PKEY* key = EVP_EC_gen("P-256");
	X509* x = X509_new();
	X509_NAME* n;
	X509_EXTENSION* ext;
	X509V3_CTX v3;
	assert_non_null(key);
	assert_non_null(x);
	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), 7);
	X509_gmtime_adj(X509_getm_notBefore(x), -60);
	X509_gmtime_adj(X509_getm_notAfter(x), 3600);
	X509_set_pubkey(x, key);
	n = X509_get_subject_name(x);
	X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_ASC,
		(const unsigned char*)"dns.test", -1, -1, 0);
	X509_set_issuer_name(x, n);
	X509V3_set_ctx(&v3, x, x, NULL, NULL, 0);
	ext = X509V3_EXT_conf_nid(NULL, &v3, NID_subject_alt_name,
		"DNS:dns.test");
	assert_non_null(ext);
	X509_add_ext(x, ext, -1);
	X509_EXTENSION_free(ext);
	assert_true(X509_sign(x, key, EVP_sha256()) > 0);
	*xo = x;
	*ko = key;
}

static int setup(void** state)
{
	struct t_pki* p = calloc(1, sizeof(*p));
	struct config_file* cfg = config_create();
	X509* x;
	EVP_PKEY* key;
	FILE* f;
	assert_non_null(p);
	assert_non_null(cfg);
	snprintf(p->dir, sizeof(p->dir), "/tmp/tls_client_test.XXXXXX");
	assert_non_null(mkdtemp(p->dir));
	snprintf(p->bundle, sizeof(p->bundle), "%s/ca.pem", p->dir);
	make_cert(&x, &key);
	assert_non_null(f = fopen(p->bundle, "w"));
	assert_int_equal(PEM_write_X509(f, x), 1);
	fclose(f);
	p->sctx = SSL_CTX_new(TLS_server_method());
	assert_non_null(p->sctx);
	assert_int_equal(SSL_CTX_use_certificate(p->sctx, x), 1);
	assert_int_equal(SSL_CTX_use_PrivateKey(p->sctx, key), 1);
	X509_free(x);
	EVP_PKEY_free(key);
	free(cfg->tls_cert_bundle);
	cfg->tls_cert_bundle = strdup(p->bundle);
	p->cctx = tls_client_ctx_create(cfg);
	assert_non_null(p->cctx);
	config_delete(cfg);
	*state = p;
	return 0;
}

static int teardown(void** state)
{
	struct t_pki* p = *state;
	SSL_CTX_free(p->sctx);
	tls_client_ctx_free(p->cctx);
	unlink(p->bundle);
	rmdir(p->dir);
	free(p);
	return 0;
}

static void peer_init(struct tls_peer* peer, struct tls_session_cache* c,
	SSL_CTX* ctx, int port, const char* name)
{
	struct sockaddr_in* a = (struct sockaddr_in*)&peer->addr;
	memset(peer, 0, sizeof(*peer));
	peer->cache = c;
	peer->ctx = ctx;
	a->sin_family = AF_INET;
	a->sin_port = htons((uint16_t)port);
	a->sin_addr.s_addr = htonl(0x7f000001);
	peer->addrlen = sizeof(*a);
	snprintf(peer->name, sizeof(peer->name), "%s", name);
}

/* A connection from peer to the test server: the handshake run on
 * both sides, then a little data both ways (the client then has the
 * TLS 1.3 tickets). Returns the client's handshake result (1 or
 * STREAM_IO_ERROR); *resumed says whether it resumed, *why the
 * failure. */
static int connect_once(struct t_pki* p, const struct tls_peer* peer,
	int* resumed, const char** why)
{
	int sv[2], i, rc = 0, srv_done = 0;
	SSL* c, * s;
	char buf[16];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	fcntl(sv[1], F_SETFL, O_NONBLOCK);
	c = tls_client_new(peer, sv[0], 1);
	assert_non_null(c);
	s = SSL_new(p->sctx);
	assert_non_null(s);
	SSL_set_fd(s, sv[1]);
	SSL_set_accept_state(s);
	*why = NULL;
	for(i = 0; i < 100; i++) {
		if(rc != 1)
			rc = tls_client_handshake(c, why);
		if(!srv_done) {
			int n = SSL_do_handshake(s);
			if(n == 1)
				srv_done = 1;
			else if(SSL_get_error(s, n) != SSL_ERROR_WANT_READ &&
				SSL_get_error(s, n) != SSL_ERROR_WANT_WRITE)
				srv_done = -1;
		}
		if(rc == STREAM_IO_ERROR || (rc == 1 && srv_done))
			break;
	}
	if(rc == 1) {
		*resumed = stream_tls_resumed(c);
		assert_int_equal(stream_tls_write(c, "ping", 4), 4);
		for(i = 0; i < 20 && SSL_read(s, buf, sizeof(buf)) <= 0; i++)
			;
		assert_int_equal(SSL_write(s, "pong", 4), 4);
		for(i = 0; i < 20; i++)
			if(stream_tls_read(c, buf, sizeof(buf)) == 4)
				break;
		assert_true(i < 20);
		assert_memory_equal(buf, "pong", 4);
	}
	tls_client_close(c);
	SSL_free(s);
	close(sv[0]);
	close(sv[1]);
	return rc;
}

static void test_name_and_resumption(void** state)
{
	struct t_pki* p = *state;
	struct tls_session_cache* cache = tls_session_cache_create(8);
	struct tls_peer a, other;
	const char* why;
	int resumed = -1;
	assert_non_null(cache);
	peer_init(&a, cache, p->cctx, 853, "dns.test");
	assert_int_equal(connect_once(p, &a, &resumed, &why), 1);
	assert_int_equal(resumed, 0);
	assert_true(tls_session_cache_count(cache) >= 1);
	/* the same peer again: resumed */
	assert_int_equal(connect_once(p, &a, &resumed, &why), 1);
	assert_int_equal(resumed, 1);
	/* the same address without a name: its own session, not a's */
	peer_init(&other, cache, p->cctx, 853, "");
	assert_int_equal(connect_once(p, &other, &resumed, &why), 1);
	assert_int_equal(resumed, 0);
	/* forgotten: a full handshake again */
	tls_session_forget(&a);
	assert_int_equal(connect_once(p, &a, &resumed, &why), 1);
	assert_int_equal(resumed, 0);
	tls_session_cache_delete(cache);
}

static void test_wrong_name(void** state)
{
	struct t_pki* p = *state;
	struct tls_session_cache* cache = tls_session_cache_create(8);
	struct tls_peer bad;
	const char* why;
	int resumed = -1;
	peer_init(&bad, cache, p->cctx, 853, "wrong.test");
	assert_int_equal(connect_once(p, &bad, &resumed, &why),
		STREAM_IO_ERROR);
	assert_non_null(why);
	assert_string_equal(why, "hostname mismatch");
	assert_int_equal(tls_session_cache_count(cache), 0);
	tls_session_cache_delete(cache);
}

static void test_unknown_ca(void** state)
{
	struct t_pki* p = *state;
	struct config_file* cfg = config_create();
	SSL_CTX* none, * sys;
	struct tls_peer peer;
	const char* why;
	int resumed = -1;
	/* no CA and no name: not verified (Unbound's behaviour) */
	none = tls_client_ctx_create(cfg);
	assert_non_null(none);
	peer_init(&peer, NULL, none, 853, "");
	assert_int_equal(connect_once(p, &peer, &resumed, &why), 1);
	/* a name without a CA that knows the server: fails */
	peer_init(&peer, NULL, none, 853, "dns.test");
	assert_int_equal(connect_once(p, &peer, &resumed, &why),
		STREAM_IO_ERROR);
	assert_non_null(why);
	assert_non_null(strstr(why, "self-signed"));
	/* CAs configured (the system's, without ours): the chain is
	 * checked even without a name */
	cfg->tls_system_cert = 1;
	sys = tls_client_ctx_create(cfg);
	assert_non_null(sys);
	peer_init(&peer, NULL, sys, 853, "");
	assert_int_equal(connect_once(p, &peer, &resumed, &why),
		STREAM_IO_ERROR);
	tls_client_ctx_free(none);
	tls_client_ctx_free(sys);
	config_delete(cfg);
}

static void test_cache_bound(void** state)
{
	struct t_pki* p = *state;
	struct tls_session_cache* cache = tls_session_cache_create(1);
	struct tls_peer a, b;
	const char* why;
	int resumed = -1;
	peer_init(&a, cache, p->cctx, 853, "dns.test");
	peer_init(&b, cache, p->cctx, 8853, "dns.test");
	assert_int_equal(connect_once(p, &a, &resumed, &why), 1);
	assert_int_equal(connect_once(p, &b, &resumed, &why), 1);
	assert_int_equal(resumed, 0);
	assert_int_equal(tls_session_cache_count(cache), 1);
	/* a's session made room for b's */
	assert_int_equal(connect_once(p, &a, &resumed, &why), 1);
	assert_int_equal(resumed, 0);
	tls_session_cache_delete(cache);
}

static void test_bad_bundle(void** state)
{
	struct config_file* cfg = config_create();
	(void)state;
	free(cfg->tls_cert_bundle);
	cfg->tls_cert_bundle = strdup("/nonexistent/bundle.pem");
	assert_null(tls_client_ctx_create(cfg));
	config_delete(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_and_resumption),
		cmocka_unit_test(test_wrong_name),
		cmocka_unit_test(test_unknown_ca),
		cmocka_unit_test(test_cache_bound),
		cmocka_unit_test(test_bad_bundle),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
