/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_sig.h - DNSSEC signature and digest core: parse DNSKEYs
 * into OpenSSL keys, verify an RRset's RRSIGs with a trusted key set,
 * and establish a DNSKEY RRset's trust from a DS set or anchor keys.
 *
 * Inputs are ldns types as the iterator produces them; every setting is
 * a parameter (struct val_sig_settings), nothing reads the config.
 * No function here keeps a pointer to its ldns inputs after it returns.
 *
 * Threads: a struct val_sig_ctx belongs to one thread (it holds the
 * reusable buffers). A struct val_keyset is immutable once built, apart
 * from its lazily parsed keys which are published atomically, so one key
 * set may be shared by every thread (the key cache holds them). */
#ifndef VALIDATOR_VAL_SIG_H
#define VALIDATOR_VAL_SIG_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <ldns/ldns.h>
#include "util/sec_status.h"

/* DNSKEY flag bits (RFC 4034 2.1.1, RFC 5011 7). */
#define VAL_DNSKEY_ZONE   0x0100
#define VAL_DNSKEY_REVOKE 0x0080
#define VAL_DNSKEY_SEP    0x0001

/* compat: unbound-1.17: KeyTrap (CVE-2023-50387) limits, Unbound 1.19.1's
 * values. */
#define VAL_MAX_VERIFY_PER_RRSET 8  /* signature checks for one RRset */
#define VAL_MAX_VERIFY_PER_MSG 8    /* checks in a message before suspend */
#define VAL_MAX_DS_MATCH_FAILURES 4 /* failed DS digest matches per DS set */
#define VAL_MAX_SUSPENDS 16         /* suspends of one message, then bogus */

/* Settings (the validator's config options, passed in). */
struct val_sig_settings {
	/* val-sig-skew-min / -max: the allowed clock skew is 10% of a
	 * signature's validity period clamped to [min, max] seconds. */
	uint32_t skew_min;   /* default 3600 */
	uint32_t skew_max;   /* default 86400 */
	/* val-override-date: 0 none; -1 ignore the dates altogether;
	 * else the time (seconds since epoch) to use as "now". */
	int64_t date_override;
	/* compat: unbound-1.17: harden-algo-downgrade: every algorithm in the
	 * DS set must have a valid signature (off, Unbound's default: one is
	 * enough). */
	int harden_algo_downgrade;
	/* compat: unbound-1.17: cache-min-ttl: a verified TTL is not cut below
	 * this by the RRSIG original TTL (as Unbound's adjust_ttl). */
	uint32_t min_ttl;
};
/* compat: unbound-1.17: Fill with Unbound's defaults (3600, 86400, 0, 0, 0). */
void val_sig_settings_init(struct val_sig_settings* s);

/* CPU budget of one message (KeyTrap). The caller keeps one per message
 * under validation. Counted: signature verifications (public key
 * operations). The limits default to VAL_MAX_*; tests may lower them. */
struct val_budget {
	int rrset_max;     /* verifications for one RRset / DNSKEY check */
	int msg_max;       /* verifications before the message must suspend */
	int ds_fail_max;   /* failed DS-to-DNSKEY digest matches per DS set */
	int suspend_max;   /* suspends before the message is bogus */
	int msg_used;      /* verifications since the start or last resume */
	int total;         /* verifications over the whole message */
	int ds_fails;      /* failed DS digest matches, all DS sets (logged) */
	int suspends;      /* times the message suspended */
};
void val_budget_init(struct val_budget* b);
/* True when msg_used reached msg_max: val_verify_rrset will refuse to
 * start another RRset (returns SEC_UNCHECKED, budget_exhausted set). */
int val_budget_exhausted(const struct val_budget* b);
/* compat: unbound-1.17: Call when the suspended message is taken up again
 * (Unbound re-queues it behind other work): resets msg_used, counts the
 * suspend. Returns 0 when the message suspended more than suspend_max times:
 * then the caller must give up, bogus with Unbound's reason "max validation
 * suspends reached, too many RRSIG validations" (val_budget_reason). Unbound
 * waits ~50 ms (more under load or after several suspends) before it takes the
 * message up again. */
int val_budget_resume(struct val_budget* b);
struct val_reason val_budget_reason(void);

/* The outcome details of a verify call. Texts are static strings. */
struct val_verify_result {
	struct val_reason reason;  /* why not secure; {NULL, NONE} if secure */
	uint32_t ttl;              /* secure: TTL to store the RRset with */
	int verifications;         /* signature checks done by this call */
	/* 1: the message budget was spent before this RRset started; no
	 * work was done, the return is SEC_UNCHECKED: suspend, and call
	 * again after val_budget_resume. Never bogus by itself. */
	int budget_exhausted;
	/* Secure through a wildcard expansion (RRSIG labels < owner's):
	 * the wildcard that generated the owner, "*.<closest encloser>",
	 * uncompressed lowercase wire format; wildcard_len 0 otherwise. The
	 * caller must prove no closer match (NSEC/NSEC3) to accept it. */
	uint8_t wildcard[LDNS_MAX_DOMAINLEN + 1];
	size_t wildcard_len;
};

/* Per-thread scratch: growing buffers for signed data and canonical
 * rdata, the sort array, EVP_MD_CTXs, the fetched digests and a small
 * cache (32 slots) of verify contexts per key; a cached context holds a
 * reference to its EVP_PKEY, so up to 32 keys of freed key sets stay in
 * memory until their slot is reused or the context is freed. NULL on
 * allocation failure. Freed with val_sig_ctx_delete (NULL is fine). */
struct val_sig_ctx;
struct val_sig_ctx* val_sig_ctx_create(void);
void val_sig_ctx_delete(struct val_sig_ctx* ctx);
/* Forget the signatures this context verified (val_vcache.h): the next
 * verification of each does the public-key operation again. For
 * measuring that cost; validation never needs it. */
void val_sig_ctx_forget(struct val_sig_ctx* ctx);

/* Algorithms. 1 when this build verifies DNSKEY algorithm alg:
 * 5, 7, 8, 10, 13, 14, 15, 16 (RSAMD5, DSA, GOST, private: 0); with
 * fake-dsa or fake-sha1 also DSA (3, 6). */
int val_algo_supported(int alg);
/* compat: unbound-1.17: Unbound's test options fake-dsa and fake-sha1,
 * process-wide as in Unbound (set by the validator's startup, before the
 * workers run). fake-dsa: DSA signatures (algorithms 3, 6) are taken as
 * valid without a check (as Unbound built without DSA, as this daemon
 * is); fake-sha1: those and RSASHA1 ones (5, 7) too. DS digests are
 * checked all the same (this build has SHA-1). */
void val_crypto_set_fake(int fake_dsa, int fake_sha1);
/* 1 when a signature of algorithm alg is taken as valid unchecked. */
int val_crypto_faked(int alg);
/* 1 for DS digest types 1 (SHA-1), 2 (SHA-256), 4 (SHA-384). */
int val_ds_digest_supported(int digest);
/* Key tag (RFC 4034 Appendix B) of DNSKEY rdata (flags onwards). */
uint16_t val_keytag(const uint8_t* rdata, size_t len);

/* A DNSKEY set with its keys parsed on first use into EVP_PKEYs.
 * val_keyset_create copies what it needs from dnskeys (a list of DNSKEY RRs
 * of one owner and class; other types, or mixed owners, give NULL, as
 * does an empty list or no memory). The caller still owns dnskeys. */
struct val_keyset;
struct val_keyset* val_keyset_create(const ldns_rr_list* dnskeys);
void val_keyset_delete(struct val_keyset* ks);
size_t val_keyset_count(const struct val_keyset* ks);
/* The owner, lowercase uncompressed wire; *len set. Owned by ks. */
const uint8_t* val_keyset_owner(const struct val_keyset* ks, size_t* len);
/* Algorithms every RRset must be signed with (harden-algo-downgrade),
 * 0-terminated; empty unless the set was made secure with the option on.
 * Owned by ks. */
const uint8_t* val_keyset_needed_algos(const struct val_keyset* ks);

/* A key set for dnskeys (as val_keyset_create) from ctx's small per-thread
 * cache of key sets: one built before for the same owner, class and
 * DNSKEY RDATA, byte for byte, is returned again, with its public keys
 * already parsed. The result is the caller's reference: free it with
 * val_keyset_delete (the cache keeps its own). NULL as val_keyset_create.
 * Such a set must stay on ctx's thread (its reference count is not
 * atomic) and is not changed by its users. */
struct val_keyset* val_sig_ctx_keyset(struct val_sig_ctx* ctx,
	const ldns_rr_list* dnskeys);

/* compat: unbound-1.17: Verify one RRset (a list of RRs of one owner, type and
 * class; it may be in any order, in any case, with duplicates) with the RRSIGs
 * in rrsigs that cover its type (others are ignored), against the trusted key
 * set keys (found by the caller for the RRSIG signer). now is the wall clock
 * (settings->date_override wins). A signature is tried when: it is well
 * formed, the owner is at or below its signer, its labels are not more than
 * the owner's, and a key has its tag and algorithm, the zone flag, protocol 3,
 * a supported algorithm and is not revoked (but for the key set's own DNSKEY
 * RRset); its signer is the key set's owner; its dates hold with skew. Only
 * then is a public key operation spent (counted in the budget); at most
 * budget->rrset_max (8) per call, then bogus "too many RRSIG validations".
 * Returns SEC_SECURE when a signature verifies (with harden-algo- downgrade
 * and a needed-algorithm list in keys: one per algorithm), SEC_BOGUS with
 * res->reason (Unbound's text: "no signatures" EDE 10, "signatures from
 * unknown keys" 9, "signature expired" 7, "signature before inception date" 8,
 * "dnskey without ZSK flag" 11, "signature crypto failed" 6, ...), or
 * SEC_UNCHECKED with res->budget_exhausted when the message budget was spent
 * before this call (no work done). budget may be NULL (then only the per-RRset
 * limit applies). res must not be NULL. On SEC_SECURE res->ttl is min(RRset
 * TTL, RRSIG TTL, original TTL unless below min_ttl, seconds until expiration)
 * and res->wildcard names the wildcard when the owner was expanded from one.
 * The lead's validator must still check that all RRSIGs agree on the labels
 * count (Unbound's val_rrset_wildcard) if it relies on that. */
enum sec_status val_verify_rrset(struct val_sig_ctx* ctx,
	const ldns_rr_list* rrset, const ldns_rr_list* rrsigs,
	const struct val_keyset* keys, const struct val_sig_settings* set,
	time_t now, struct val_budget* budget, struct val_verify_result* res);

/* compat: unbound-1.17: Whether rrset (owner from its first RR) was expanded
 * from a wildcard, judged by the labels field of the RRSIGs in rrsigs that
 * cover its type (Unbound's val_rrset_wildcard): -1 when they disagree (bogus:
 * possible wildcard spoofing), 0 not expanded (or no RRSIGs), 1 expanded from
 * the wildcard written to wc (LDNS_MAX_DOMAINLEN+1 octets, lowercase
 * "*.<encloser>" wire) with *wc_len set. */
int val_rrset_wildcard(const ldns_rr_list* rrset, const ldns_rr_list* rrsigs,
	uint8_t* wc, size_t* wc_len);

/* DS digest of a DNSKEY: digest(lowercase owner | DNSKEY rdata) into
 * out (room for 48 bytes); returns its length, 0 if the digest type is
 * unsupported or on a library error. */
size_t val_dnskey_digest(struct val_sig_ctx* ctx, const ldns_rr* dnskey,
	int digest_type, uint8_t* out);
/* 1 when ds (a DS RR) matches dnskey: key tag, algorithm, owner and a
 * supported digest equal to the computed one. */
int val_ds_match_dnskey(struct val_sig_ctx* ctx, const ldns_rr* ds,
	const ldns_rr* dnskey);
/* compat: unbound-1.17: The DS digest type that is used (Unbound's
 * val_favorite_ds_algo, RFC 4509 3): the highest supported digest among the DS
 * RRs whose key algorithm is supported; DS RRs with other digests are ignored.
 * 0 when no DS is usable. */
int val_favorite_ds_digest(const ldns_rr_list* ds);
/* compat: unbound-1.17: 1 when a DS has a supported digest and a supported key
 * algorithm (Unbound's val_dsset_isusable): else the delegation is insecure. */
int val_dsset_usable(const ldns_rr_list* ds);

/* Establish trust in a DNSKEY RRset (dnskeys, with its RRSIGs in
 * rrsigs) from the parent's DS set ds. Secure when a DS of the favourite
 * digest with a supported algorithm matches a key with the zone flag and
 * that key signs the DNSKEY RRset (harden: for every DS algorithm).
 * Insecure when no DS is usable (unsupported algorithms / digests only,
 * RFC 4035 5.2, RFC 6840 5.2), reason EDE 1 or 2. Bogus otherwise,
 * e.g. "DNSKEY RRset did not match DS RRset by name" (EDE 6), "No DNSKEY
 * record" (9), "no keys have a DS with algorithm X" (9), "DS hash
 * mismatches key" (9), "dnskey without ZSK flag" (11), "signature
 * missing" (10), "signature expired" (7). A DS trust anchor is checked
 * with this function too (the anchor's DS RRs as ds). At most budget->ds_fail_max failed digest matches, and rrset_max
 * signature checks, then bogus. On SEC_SECURE, when keys_out is not
 * NULL, *keys_out is a new key set of dnskeys (caller frees with
 * val_keyset_delete; with harden on it carries the needed algorithms);
 * otherwise *keys_out is NULL. res->ttl: the DNSKEY RRset's TTL as
 * val_verify_rrset computes it. The message budget is counted (msg_used,
 * total) but never refuses a DNSKEY check: the caller decides whether to
 * suspend before the next RRset. */
enum sec_status val_verify_dnskey_with_ds(struct val_sig_ctx* ctx,
	const ldns_rr_list* dnskeys, const ldns_rr_list* rrsigs,
	const ldns_rr_list* ds, const struct val_sig_settings* set,
	time_t now, struct val_budget* budget, struct val_verify_result* res,
	struct val_keyset** keys_out);

/* compat: unbound-1.17: As above with a DNSKEY trust anchor (anchor: DNSKEY
 * RRs): secure when an anchor key with a supported algorithm and the zone flag
 * signs the DNSKEY RRset (harden: every anchor algorithm); as Unbound, the
 * anchor key itself need not be in the RRset. Insecure when no anchor key has
 * a supported algorithm. Bogus: "DNSKEY RRset did not match anchor RRset by
 * name", or the signature's reason. */
enum sec_status val_verify_dnskey_with_keys(struct val_sig_ctx* ctx,
	const ldns_rr_list* dnskeys, const ldns_rr_list* rrsigs,
	const ldns_rr_list* anchor, const struct val_sig_settings* set,
	time_t now, struct val_budget* budget, struct val_verify_result* res,
	struct val_keyset** keys_out);

#endif
