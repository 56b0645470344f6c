/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_sig_int.h - internals shared by val_crypto.c,
 * val_keyset.c, val_canon.c, val_sig.c and val_ds.c. Not for callers:
 * use validator/val_sig.h. */
#ifndef VALIDATOR_VAL_SIG_INT_H
#define VALIDATOR_VAL_SIG_INT_H

#include <openssl/evp.h>
#include "validator/val_sig.h"
#include "validator/val_vcache.h"

/* One DNSKEY of a key set. pkey is parsed on first use and published
 * with an atomic compare-and-swap, so a shared set needs no lock. */
struct val_key {
	uint16_t flags;
	uint16_t tag;
	uint8_t proto;
	uint8_t alg;
	uint16_t rdlen;
	const uint8_t* rdata;   /* flags onwards; inside the key set */
	EVP_PKEY* pkey;         /* NULL: not parsed; VAL_PKEY_BAD: unusable */
};

/* room for every supported algorithm and the terminating 0 */
#define VAL_NEEDED_MAX 16

struct val_keyset {
	uint8_t owner[LDNS_MAX_DOMAINLEN + 1]; /* lowercase wire */
	size_t owner_len;
	uint16_t klass;
	uint32_t ttl;            /* smallest TTL of the DNSKEY RRs */
	size_t count;
	struct val_key* keys;    /* count entries, rdata follows them */
	uint8_t needed[VAL_NEEDED_MAX];  /* harden-algo-downgrade list */
	int refs;                /* references beyond the first
	                          * (val_sig_ctx_keyset's sharing) */
};

/* Drop the per-thread key set cache (its references). */
void val_sig_ctx_keysets_clear(struct val_sig_ctx* ctx);

extern char val_pkey_bad_marker;
#define VAL_PKEY_BAD ((EVP_PKEY*)&val_pkey_bad_marker)

/* The parsed key, or NULL when the algorithm is unsupported or the key
 * material is malformed. Owned by the key set. */
EVP_PKEY* val_key_pkey(const struct val_key* k);

/* One RR of the RRset in canonical form: its rdata inside ctx->rd. */
struct val_canon_rr {
	size_t off;
	uint16_t len;
};

/* A verify context set up for one key (RSA, ECDSA), kept per thread: a
 * fresh EVP_PKEY_CTX with its digest fetched costs more than an RSA
 * verify's arithmetic. The EVP_PKEY_CTX holds a reference to the key, so
 * a key's address cannot be reused while its slot lives. */
#define VAL_PCTX_SLOTS 32
struct val_pctx_slot {
	EVP_PKEY* pkey;
	int alg;
	EVP_PKEY_CTX* pctx;
};
#define VAL_KSCACHE_SLOTS 16

struct val_sig_ctx {
	struct val_pctx_slot pctx[VAL_PCTX_SLOTS];
	EVP_MD_CTX* md;          /* plain digests only */
	EVP_MD_CTX* edmd;        /* EdDSA's one-shot DigestVerify: kept apart,
	                          * a signing ctx would capture DigestInit */
	EVP_MD* sha1;
	EVP_MD* sha256;
	EVP_MD* sha384;
	EVP_MD* sha512;
	uint8_t* buf;            /* the signed data */
	size_t cap;
	uint8_t* rd;             /* canonical rdata of the RRset's RRs */
	size_t rdcap;
	struct val_canon_rr* rrs;
	size_t rrcap;
	size_t nrr;              /* unique RRs after sorting */
	/* the RRset being verified, from val_canon_rrset */
	uint8_t owner[LDNS_MAX_DOMAINLEN + 1];  /* lowercase wire */
	size_t owner_len;
	int owner_labels;        /* labels, not counting root nor a '*' */
	uint16_t type;
	uint16_t klass;
	uint32_t ttl;            /* smallest TTL of its RRs */
	struct val_vcache vc;    /* signatures verified by this thread */
	/* key sets built from the key cache, parsed keys kept */
	struct val_keyset* kscache[VAL_KSCACHE_SLOTS];
	unsigned kscache_next;   /* the slot replaced next */
};

/* An RRSIG's fields, the signer lowercased. */
struct val_rrsig {
	uint16_t covered;
	uint8_t alg;
	uint8_t labels;
	uint32_t origttl;
	uint32_t expiration;
	uint32_t inception;
	uint16_t tag;
	uint32_t ttl;            /* the RRSIG RR's own TTL */
	uint8_t prefix[18];      /* rdata up to the signer, as on the wire */
	uint8_t signer[LDNS_MAX_DOMAINLEN + 1];
	size_t signer_len;
	const uint8_t* sig;      /* inside the ldns_rr */
	size_t siglen;
};

/* val_crypto.c */
EVP_PKEY* val_pkey_from_dnskey(int alg, const uint8_t* key, size_t len);
/* 1 when sig is a valid signature of data by pkey under alg. */
int val_crypto_verify(struct val_sig_ctx* ctx, int alg, EVP_PKEY* pkey,
	const uint8_t* sig, size_t siglen, const uint8_t* data, size_t len);
/* digest of the concatenation a|b; returns its length or 0 */
size_t val_crypto_digest2(struct val_sig_ctx* ctx, int ds_digest,
	const uint8_t* a, size_t alen, const uint8_t* b, size_t blen,
	uint8_t* out);
/* grow a ctx buffer to hold at least need bytes; 0 on no memory */
int val_ctx_reserve(uint8_t** buf, size_t* cap, size_t need);

/* val_canon.c */
/* Lowercase a wire name in place (length octets are < 64, so every
 * byte may be folded). */
void val_dname_tolower(uint8_t* name, size_t len);
/* Labels of a wire name, not counting the root nor a leading '*'. */
int val_dname_signame_labels(const uint8_t* name, size_t len);
int val_rrsig_parse(const ldns_rr* rr, struct val_rrsig* out);
/* Canonical, sorted, duplicate-free rdata of rrset into ctx; the owner,
 * type, class and TTL too. 1 ok, 0 malformed (mixed owner/type/class,
 * oversize), -1 no memory. */
int val_canon_rrset(struct val_sig_ctx* ctx, const ldns_rr_list* rrset);
/* The data sig signs (RFC 4034 3.1.8.1) into ctx->buf; returns its
 * length, 0 when out of memory. Requires val_canon_rrset and
 * sig->labels <= ctx->owner_labels. */
size_t val_canon_signed_data(struct val_sig_ctx* ctx,
	const struct val_rrsig* sig);

/* val_sig.c */
/* Verify ctx's canonical RRset with the keys of ks allowed by only_key
 * (-1: any) and the RRSIGs of rrsigs. The core of val_verify_rrset,
 * used by val_ds.c with the DNSKEY RRset and a single key. needed: a
 * 0-terminated algorithm list every one of which must verify, or NULL.
 * *checks counts verifications, stopped at max_checks. */
enum sec_status val_verify_canon(struct val_sig_ctx* ctx,
	const ldns_rr_list* rrsigs, const struct val_keyset* ks,
	int only_key, const uint8_t* needed, int self_signed,
	const struct val_sig_settings* set, time_t now, int max_checks,
	int* checks, struct val_verify_result* res);
/* the reason text for "prefix with algorithm NAME" */
const char* val_algo_reason(int which, int alg);
#define VAL_AR_NO_SIGS 0       /* "no signatures" */
#define VAL_AR_NO_DS 1         /* "no keys have a DS" */
#define VAL_AR_MISSING_DNSKEY 2 /* "missing verification of DNSKEY signature" */

/* The wildcard "*.<encloser>" the owner was expanded from when a
 * signature has labels fewer than the owner's; its length, else 0. */
size_t val_wildcard_of(const struct val_sig_ctx* ctx, int labels,
	uint8_t* out);

#endif
