/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_crypto.c - the OpenSSL side of DNSSEC: which algorithms
 * are supported, DNSKEY public key material to EVP_PKEY, signature
 * verification and DS digests, with a per-thread context that keeps the
 * buffers and the EVP_MD_CTX between calls. */
#include "config.h"
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <openssl/bn.h>
#include "validator/val_sig_int.h"

/* RFC 3110 allows RSA moduli up to 4096 bits; larger ones only cost CPU.
 * Real exponents are 3 or 65537: a long one would make a verify as dear
 * as a private-key operation (OpenSSL caps it at 64 bits too). */
#define RSA_MAX_MODULUS_BYTES 512
#define RSA_MAX_EXPONENT_BYTES 8

/* written at start and at each reload (val_crypto_set_fake), read by
 * the workers: relaxed atomics, each read on its own */
static atomic_int fake_dsa_flag, fake_sha1_flag;
#define fake_dsa_on atomic_load_explicit(&fake_dsa_flag, memory_order_relaxed)
#define fake_sha1_on atomic_load_explicit(&fake_sha1_flag, \
	memory_order_relaxed)

void val_crypto_set_fake(int fake_dsa, int fake_sha1)
{
	atomic_store_explicit(&fake_dsa_flag, fake_dsa, memory_order_relaxed);
	atomic_store_explicit(&fake_sha1_flag, fake_sha1,
		memory_order_relaxed);
}

int val_crypto_faked(int alg)
{
	if(alg == LDNS_DSA || alg == LDNS_DSA_NSEC3)
		return fake_dsa_on || fake_sha1_on;
	if(alg == LDNS_RSASHA1 || alg == LDNS_RSASHA1_NSEC3)
		return fake_sha1_on;
	return 0;
}

int val_algo_supported(int alg)
{
	switch(alg) {
	case LDNS_DSA:
	case LDNS_DSA_NSEC3:
		return fake_dsa_on || fake_sha1_on;
	case LDNS_RSASHA1:
	case LDNS_RSASHA1_NSEC3:
	case LDNS_RSASHA256:
	case LDNS_RSASHA512:
	case LDNS_ECDSAP256SHA256:
	case LDNS_ECDSAP384SHA384:
	case LDNS_ED25519:
	case LDNS_ED448:
		return 1;
	default:
		return 0;
	}
}

int val_ds_digest_supported(int digest)
{
	return digest == LDNS_SHA1 || digest == LDNS_SHA256 ||
		digest == LDNS_SHA384;
}

int val_ctx_reserve(uint8_t** buf, size_t* cap, size_t need)
{
	size_t ncap;
	uint8_t* n;
	if(need <= *cap)
		return 1;
	ncap = *cap ? *cap : 1024;
	while(ncap < need)
		ncap *= 2;
	n = realloc(*buf, ncap);
	if(!n)
		return 0;
	*buf = n;
	*cap = ncap;
	return 1;
}

struct val_sig_ctx* val_sig_ctx_create(void)
{
	struct val_sig_ctx* ctx = calloc(1, sizeof(*ctx));
	if(!ctx)
		return NULL;
	ctx->md = EVP_MD_CTX_new();
	ctx->edmd = EVP_MD_CTX_new();
	/* fetched once: the implicit fetch of EVP_sha256() per call costs
	 * a lookup in OpenSSL 3 */
	ctx->sha1 = EVP_MD_fetch(NULL, "SHA1", NULL);
	ctx->sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
	ctx->sha384 = EVP_MD_fetch(NULL, "SHA384", NULL);
	ctx->sha512 = EVP_MD_fetch(NULL, "SHA512", NULL);
	if(!ctx->md || !ctx->edmd || !val_ctx_reserve(&ctx->buf, &ctx->cap, 4096) ||
		!val_ctx_reserve(&ctx->rd, &ctx->rdcap, 4096)) {
		val_sig_ctx_delete(ctx);
		return NULL;
	}
	return ctx;
}

void val_sig_ctx_forget(struct val_sig_ctx* ctx)
{
	if(ctx) {
		val_vcache_clear(&ctx->vc);
		val_sig_ctx_keysets_clear(ctx);
	}
}

void val_sig_ctx_delete(struct val_sig_ctx* ctx)
{
	size_t i;
	if(!ctx)
		return;
	for(i = 0; i < VAL_PCTX_SLOTS; i++)
		EVP_PKEY_CTX_free(ctx->pctx[i].pctx);
	EVP_MD_CTX_free(ctx->md);
	EVP_MD_CTX_free(ctx->edmd);
	EVP_MD_free(ctx->sha1);
	EVP_MD_free(ctx->sha256);
	EVP_MD_free(ctx->sha384);
	EVP_MD_free(ctx->sha512);
	free(ctx->buf);
	free(ctx->rd);
	free(ctx->rrs);
	val_vcache_clear(&ctx->vc);
	val_sig_ctx_keysets_clear(ctx);
	free(ctx);
}

/* RSA public key, RFC 3110 2: exponent length (1 octet, or 0 and 2
 * octets), exponent, modulus. */
static EVP_PKEY* pkey_rsa(const uint8_t* key, size_t len)
{
	size_t elen, off, mlen;
	BIGNUM* n = NULL, *e = NULL;
	OSSL_PARAM_BLD* bld = NULL;
	OSSL_PARAM* params = NULL;
	EVP_PKEY_CTX* pctx = NULL;
	EVP_PKEY* pkey = NULL;

	if(len < 1)
		return NULL;
	if(key[0] == 0) {
		if(len < 3)
			return NULL;
		elen = ((size_t)key[1] << 8) | key[2];
		off = 3;
	} else {
		elen = key[0];
		off = 1;
	}
	if(elen == 0 || elen > RSA_MAX_EXPONENT_BYTES || off + elen >= len)
		return NULL;
	mlen = len - off - elen;
	if(mlen > RSA_MAX_MODULUS_BYTES)
		return NULL;
	e = BN_bin2bn(key + off, (int)elen, NULL);
	n = BN_bin2bn(key + off + elen, (int)mlen, NULL);
	bld = OSSL_PARAM_BLD_new();
	if(!e || !n || !bld || BN_is_zero(n) ||
		!OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n) ||
		!OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e))
		goto out;
	params = OSSL_PARAM_BLD_to_param(bld);
	pctx = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL);
	if(!params || !pctx || EVP_PKEY_fromdata_init(pctx) <= 0 ||
		EVP_PKEY_fromdata(pctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) <= 0)
		pkey = NULL;
out:
	EVP_PKEY_CTX_free(pctx);
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(bld);
	BN_free(n);
	BN_free(e);
	return pkey;
}

/* ECDSA public key, RFC 6605 4: X | Y, each the curve's size. */
static EVP_PKEY* pkey_ecdsa(const char* group, size_t half,
	const uint8_t* key, size_t len)
{
	uint8_t point[1 + 2*48];
	OSSL_PARAM params[3];
	EVP_PKEY_CTX* pctx;
	EVP_PKEY* pkey = NULL;
	if(len != 2*half)
		return NULL;
	point[0] = 0x04; /* uncompressed */
	memcpy(point + 1, key, len);
	params[0] = OSSL_PARAM_construct_utf8_string(
		OSSL_PKEY_PARAM_GROUP_NAME, (char*)group, 0);
	params[1] = OSSL_PARAM_construct_octet_string(
		OSSL_PKEY_PARAM_PUB_KEY, point, 1 + len);
	params[2] = OSSL_PARAM_construct_end();
	pctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
	/* the import rejects a point that is not on the curve */
	if(!pctx || EVP_PKEY_fromdata_init(pctx) <= 0 ||
		EVP_PKEY_fromdata(pctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) <= 0)
		pkey = NULL;
	EVP_PKEY_CTX_free(pctx);
	return pkey;
}

EVP_PKEY* val_pkey_from_dnskey(int alg, const uint8_t* key, size_t len)
{
	switch(alg) {
	case LDNS_RSASHA1:
	case LDNS_RSASHA1_NSEC3:
	case LDNS_RSASHA256:
	case LDNS_RSASHA512:
		return pkey_rsa(key, len);
	case LDNS_ECDSAP256SHA256:
		return pkey_ecdsa("prime256v1", 32, key, len);
	case LDNS_ECDSAP384SHA384:
		return pkey_ecdsa("secp384r1", 48, key, len);
	case LDNS_ED25519:
		if(len != 32)
			return NULL;
		return EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL,
			key, len);
	case LDNS_ED448:
		if(len != 57)
			return NULL;
		return EVP_PKEY_new_raw_public_key(EVP_PKEY_ED448, NULL,
			key, len);
	default:
		return NULL;
	}
}

/* One DER INTEGER of an unsigned big-endian value. */
static size_t der_uint(uint8_t* out, const uint8_t* v, size_t n)
{
	size_t pad;
	while(n > 1 && v[0] == 0) {
		v++;
		n--;
	}
	pad = (v[0] & 0x80) ? 1 : 0;
	out[0] = 0x02;
	out[1] = (uint8_t)(n + pad);
	out[2] = 0;
	memcpy(out + 2 + pad, v, n);
	return 2 + pad + n;
}

/* DNSSEC's ECDSA signature is r | s (RFC 6605 4); OpenSSL wants the
 * DER SEQUENCE. Built on the stack: at most 2 + 2*(3+48) octets. */
static size_t ecdsa_sig_der(const uint8_t* sig, size_t half, uint8_t* der)
{
	size_t l = der_uint(der + 2, sig, half);
	l += der_uint(der + 2 + l, sig + half, half);
	der[0] = 0x30;
	der[1] = (uint8_t)l;
	return l + 2;
}

/* the thread's verify context for pkey under alg, set up on first use */
static EVP_PKEY_CTX* pctx_for(struct val_sig_ctx* ctx, int alg,
	EVP_PKEY* pkey, const EVP_MD* md)
{
	struct val_pctx_slot* s = &ctx->pctx[((uintptr_t)pkey >> 4) %
		VAL_PCTX_SLOTS];
	if(s->pctx && s->pkey == pkey && s->alg == alg)
		return s->pctx;
	EVP_PKEY_CTX_free(s->pctx);
	s->pctx = EVP_PKEY_CTX_new_from_pkey(NULL, pkey, NULL);
	s->pkey = pkey;
	s->alg = alg;
	if(!s->pctx || EVP_PKEY_verify_init(s->pctx) <= 0 ||
		EVP_PKEY_CTX_set_signature_md(s->pctx, md) <= 0) {
		EVP_PKEY_CTX_free(s->pctx);
		s->pctx = NULL;
		s->pkey = NULL;
	}
	return s->pctx;
}

int val_crypto_verify(struct val_sig_ctx* ctx, int alg, EVP_PKEY* pkey,
	const uint8_t* sig, size_t siglen, const uint8_t* data, size_t len)
{
	const EVP_MD* md = NULL;
	uint8_t der[2 + 2*(3 + 48)];
	uint8_t dig[EVP_MAX_MD_SIZE];
	unsigned int diglen = 0;
	EVP_PKEY_CTX* pctx;
	switch(alg) {
	case LDNS_RSASHA1:
	case LDNS_RSASHA1_NSEC3:
		md = ctx->sha1;
		break;
	case LDNS_RSASHA256:
		md = ctx->sha256;
		break;
	case LDNS_RSASHA512:
		md = ctx->sha512;
		break;
	case LDNS_ECDSAP256SHA256:
		if(siglen != 64)
			return 0;
		siglen = ecdsa_sig_der(sig, 32, der);
		sig = der;
		md = ctx->sha256;
		break;
	case LDNS_ECDSAP384SHA384:
		if(siglen != 96)
			return 0;
		siglen = ecdsa_sig_der(sig, 48, der);
		sig = der;
		md = ctx->sha384;
		break;
	case LDNS_ED25519:
	case LDNS_ED448:
		/* EdDSA signs the message itself: one-shot only */
		EVP_MD_CTX_reset(ctx->edmd);
		if(EVP_DigestVerifyInit(ctx->edmd, NULL, NULL, NULL, pkey) != 1)
			return 0;
		return EVP_DigestVerify(ctx->edmd, sig, siglen, data, len) == 1;
	default:
		return 0;
	}
	if(!md)
		return 0; /* the digest could not be fetched (policy) */
	if(EVP_DigestInit_ex(ctx->md, md, NULL) != 1 ||
		EVP_DigestUpdate(ctx->md, data, len) != 1 ||
		EVP_DigestFinal_ex(ctx->md, dig, &diglen) != 1)
		return 0;
	if(!(pctx = pctx_for(ctx, alg, pkey, md)))
		return 0;
	return EVP_PKEY_verify(pctx, sig, siglen, dig, diglen) == 1;
}

size_t val_crypto_digest2(struct val_sig_ctx* ctx, int ds_digest,
	const uint8_t* a, size_t alen, const uint8_t* b, size_t blen,
	uint8_t* out)
{
	const EVP_MD* md;
	unsigned int olen = 0;
	switch(ds_digest) {
	case LDNS_SHA1: md = ctx->sha1; break;
	case LDNS_SHA256: md = ctx->sha256; break;
	case LDNS_SHA384: md = ctx->sha384; break;
	default: return 0;
	}
	if(!md)
		return 0;
	if(EVP_DigestInit_ex(ctx->md, md, NULL) != 1 ||
		EVP_DigestUpdate(ctx->md, a, alen) != 1 ||
		EVP_DigestUpdate(ctx->md, b, blen) != 1 ||
		EVP_DigestFinal_ex(ctx->md, out, &olen) != 1)
		return 0;
	return olen;
}
