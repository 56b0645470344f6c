/* SPDX-License-Identifier: BSD-3-Clause */
/* smallapp/anchor/anchor_smime.c - compat: unbound-1.17: checks
 * root-anchors.p7s with OpenSSL's PKCS7 API, as Unbound's unbound-anchor does:
 * only signer certificates with the right emailAddress and digitalSignature
 * key usage count, the chain must end at a trusted certificate (-c or the
 * built-in ICANN CA), and the time is checked on every certificate of the
 * chain. */
#include "config.h"
#include "smallapp/anchor/anchor_smime.h"
#include "smallapp/anchor/anchor_file.h"
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/pkcs7.h>
#include <openssl/x509v3.h>

static STACK_OF(X509)* certs_from_bio(BIO* bio)
{
	STACK_OF(X509)* sk = sk_X509_new_null();
	X509* x;
	if(!sk)
		return NULL;
	while((x = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
		if(!sk_X509_push(sk, x)) {
			X509_free(x);
			break;
		}
	}
	ERR_clear_error();   /* the end of the input reads as an error */
	return sk;
}

STACK_OF(X509)* anchor_certs_read(const char* file)
{
	STACK_OF(X509)* sk = NULL;
	BIO* bio;
	if(file && *file && (bio = BIO_new_file(file, "r")) != NULL) {
		sk = certs_from_bio(bio);
		BIO_free(bio);
		if(sk && sk_X509_num(sk) == 0) {
			if(anchor_verb) printf("%s is empty\n", file);
			sk_X509_free(sk);
			sk = NULL;
		}
	} else if(file && *file && anchor_verb) {
		printf("%s: cannot open\n", file);
	}
	ERR_clear_error();
	if(!sk) {
		const char* pem = anchor_builtin_cert();
		if(anchor_verb) printf("using builtin certificate\n");
		bio = BIO_new_mem_buf(pem, (int)strlen(pem));
		if(!bio)
			return NULL;
		sk = certs_from_bio(bio);
		BIO_free(bio);
	}
	if(sk && anchor_verb)
		printf("have %d trusted certificates\n", sk_X509_num(sk));
	return sk;
}

static int allows_signing(X509* x)
{
	/* no keyUsage extension at all: UINT32_MAX, which allows it */
	return (X509_get_key_usage(x) & KU_DIGITAL_SIGNATURE) != 0;
}

/* The signer certificates of p7 that may sign the file. */
static STACK_OF(X509)* wanted_signers(PKCS7* p7, const char* signer)
{
	STACK_OF(X509)* all = PKCS7_get0_signers(p7, NULL, 0);
	STACK_OF(X509)* ok = sk_X509_new_null();
	if(!all || !ok) {
		sk_X509_free(all);
		sk_X509_free(ok);
		return NULL;
	}
	for(int i = 0; i < sk_X509_num(all); i++) {
		X509* x = sk_X509_value(all, i);
		X509_NAME* nm = X509_get_subject_name(x);
		char buf[1024];
		if(anchor_verb && nm) {
			X509_NAME_oneline(nm, buf, sizeof(buf));
			printf("signer %d: Subject: %s\n", i, buf);
		}
		if(signer && *signer) {
			if(!nm || X509_NAME_get_text_by_NID(nm,
				NID_pkcs9_emailAddress, buf, sizeof(buf)) < 0 ||
				strcmp(buf, signer) != 0) {
				if(anchor_verb)
					printf("removed cert with wrong name\n");
				continue;
			}
		}
		if(!allows_signing(x)) {
			if(anchor_verb) printf("removed cert with no key usage "
				"Digital Signature allowed\n");
			continue;
		}
		sk_X509_push(ok, x);
	}
	sk_X509_free(all);
	return ok;
}

int anchor_p7_verify(const char* data, size_t len, const char* p7s,
	size_t p7len, STACK_OF(X509)* trust, const char* signer)
{
	const unsigned char* p = (const unsigned char*)p7s;
	PKCS7* p7 = NULL;
	X509_STORE* store = NULL;
	STACK_OF(X509)* signers = NULL;
	BIO* in = NULL;
	int ok = 0;
	if(p7len > (size_t)LONG_MAX ||
		!(p7 = d2i_PKCS7(NULL, &p, (long)p7len))) {
		fprintf(stderr, "error: root-anchors.p7s: not a PKCS7 "
			"signature\n");
		goto done;
	}
	if(!PKCS7_type_is_signed(p7)) {
		fprintf(stderr, "error: root-anchors.p7s: not signed data\n");
		goto done;
	}
	if(!(store = X509_STORE_new()) ||
		!(in = BIO_new_mem_buf(data, (int)len))) {
		fprintf(stderr, "error: out of memory\n");
		goto done;
	}
	/* also check the self-signature of the trusted root */
	X509_STORE_set_flags(store, X509_V_FLAG_CHECK_SS_SIGNATURE);
	for(int i = 0; i < sk_X509_num(trust); i++)
		X509_STORE_add_cert(store, sk_X509_value(trust, i));
	signers = wanted_signers(p7, signer);
	if(!signers || sk_X509_num(signers) == 0) {
		fprintf(stderr, "error: root-anchors.p7s: no signer "
			"certificate%s%s%s\n", signer && *signer ?
			" with emailAddress " : "", signer ? signer : "",
			" that may sign");
		goto done;
	}
	if(PKCS7_verify(p7, signers, store, in, NULL, PKCS7_NOINTERN) == 1) {
		ok = 1;
		if(anchor_verb) printf("the PKCS7 signature verified\n");
	} else {
		const char* why = NULL;
		int flags = 0;
		unsigned long e = ERR_peek_last_error_data(&why, &flags);
		/* the reason of a chain failure ("certificate has expired")
		 * is in the error's data */
		fprintf(stderr, "error: the PKCS7 signature failed: %s%s%s\n",
			e ? ERR_reason_error_string(e) : "unknown reason",
			why && (flags & ERR_TXT_STRING) && *why ? ": " : "",
			why && (flags & ERR_TXT_STRING) ? why : "");
		if(anchor_verb) ERR_print_errors_fp(stdout);
	}
done:
	ERR_clear_error();
	sk_X509_free(signers);
	BIO_free(in);
	X509_STORE_free(store);
	PKCS7_free(p7);
	return ok;
}
