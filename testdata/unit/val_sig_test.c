/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/val_sig_test.c - the DNSSEC signature core: keys and
 * signatures made by ldns's own signer for every supported algorithm,
 * verified by validator/val_sig.c's OpenSSL code; corruptions, dates and
 * skew, wildcards, canonical form, DS digests and the DS/anchor trust
 * step, harden-algo-downgrade, the KeyTrap budget, malformed keys; and
 * the verify cost per algorithm (printed). */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>
#include "validator/val_sig.h"

#define NOW ((time_t)1700000000)
#define INCEP ((uint32_t)(NOW - 3600))
#define EXPI ((uint32_t)(NOW + 30*86400))

static struct val_sig_ctx* ctx;
static struct val_sig_settings set;

struct tkey {
	ldns_key* k;
	ldns_rr* dnskey;
};

static const ldns_signing_algorithm algs[] = {
	LDNS_SIGN_RSASHA1, LDNS_SIGN_RSASHA1_NSEC3, LDNS_SIGN_RSASHA256,
	LDNS_SIGN_RSASHA512, LDNS_SIGN_ECDSAP256SHA256,
	LDNS_SIGN_ECDSAP384SHA384, LDNS_SIGN_ED25519, LDNS_SIGN_ED448
};
#define NALGS (sizeof(algs)/sizeof(algs[0]))

static ldns_rr* rr(const char* s)
{
	ldns_rr* r = NULL;
	assert_int_equal(ldns_rr_new_frm_str(&r, s, 3600, NULL, NULL),
		LDNS_STATUS_OK);
	return r;
}

/* a list of the RRs in text, NULL terminated */
static ldns_rr_list* list(const char* first, ...)
{
	ldns_rr_list* l = ldns_rr_list_new();
	const char* s;
	va_list ap;
	va_start(ap, first);
	for(s = first; s; s = va_arg(ap, const char*))
		ldns_rr_list_push_rr(l, rr(s));
	va_end(ap);
	return l;
}

static ldns_rr_list* list1(ldns_rr* r)
{
	ldns_rr_list* l = ldns_rr_list_new();
	ldns_rr_list_push_rr(l, r);
	return l;
}

static void key_times(struct tkey* t, uint32_t incep, uint32_t expi)
{
	ldns_key_set_inception(t->k, incep);
	ldns_key_set_expiration(t->k, expi);
}

static struct tkey mkkey(ldns_signing_algorithm alg, const char* owner,
	uint16_t flags)
{
	struct tkey t;
	t.k = ldns_key_new_frm_algorithm(alg,
		(alg == LDNS_SIGN_RSASHA1 || alg == LDNS_SIGN_RSASHA1_NSEC3 ||
		alg == LDNS_SIGN_RSASHA256 || alg == LDNS_SIGN_RSASHA512) ?
		1024 : 256);
	assert_non_null(t.k);
	ldns_key_set_pubkey_owner(t.k, ldns_dname_new_frm_str(owner));
	ldns_key_set_flags(t.k, flags);
	key_times(&t, INCEP, EXPI);
	t.dnskey = ldns_key2rr(t.k);
	assert_non_null(t.dnskey);
	ldns_key_set_keytag(t.k, ldns_calc_keytag(t.dnskey));
	return t;
}

static void freekey(struct tkey* t)
{
	ldns_key_deep_free(t->k);
	ldns_rr_free(t->dnskey);
}

/* RRSIGs over rrset by the keys given (NULL terminated) */
static ldns_rr_list* sign(ldns_rr_list* rrset, struct tkey* first, ...)
{
	ldns_key_list* kl = ldns_key_list_new();
	ldns_rr_list* sigs;
	struct tkey* t;
	va_list ap;
	va_start(ap, first);
	for(t = first; t; t = va_arg(ap, struct tkey*))
		ldns_key_list_push_key(kl, t->k);
	va_end(ap);
	sigs = ldns_sign_public(rrset, kl);
	assert_non_null(sigs);
	/* the list must not free the keys (pop_key frees its array twice
	 * in ldns 1.8.3 when it empties) */
	ldns_key_list_set_key_count(kl, 0);
	ldns_key_list_free(kl);
	return sigs;
}

static struct val_keyset* keyset_of(ldns_rr* dnskey)
{
	ldns_rr_list* l = list1(ldns_rr_clone(dnskey));
	struct val_keyset* ks = val_keyset_create(l);
	ldns_rr_list_deep_free(l);
	assert_non_null(ks);
	return ks;
}

static enum sec_status verify(ldns_rr_list* rrset, ldns_rr_list* sigs,
	struct val_keyset* ks, time_t now, struct val_verify_result* res)
{
	return val_verify_rrset(ctx, rrset, sigs, ks, &set, now, NULL, res);
}

/* the signature bytes of an RRSIG, to corrupt in place */
static uint8_t* sigbytes(ldns_rr* sig, size_t* len)
{
	*len = ldns_rdf_size(ldns_rr_rdf(sig, 8));
	return ldns_rdf_data(ldns_rr_rdf(sig, 8));
}

/* A different public key with the same key tag: +1 and -1 on two key
 * octets of the same parity keep the RFC 4034 checksum. variant picks
 * which octets. */
static ldns_rr* same_tag_key(const ldns_rr* dnskey, int variant)
{
	ldns_rr* c = ldns_rr_clone(dnskey);
	uint8_t* k = ldns_rdf_data(ldns_rr_rdf(c, 3));
	size_t len = ldns_rdf_size(ldns_rr_rdf(c, 3)), i;
	int found = 0;
	for(i = 8 + 4*(size_t)variant; i + 2 < len; i++) {
		if(k[i] < 255 && k[i+2] > 0) {
			k[i]++;
			k[i+2]--;
			found = 1;
			break;
		}
	}
	assert_true(found);
	return c;
}

static size_t rdata_of(const ldns_rr* r, uint8_t* rd)
{
	size_t i, len = 0;
	for(i = 0; i < ldns_rr_rd_count(r); i++) {
		const ldns_rdf* f = ldns_rr_rdf(r, i);
		memcpy(rd + len, ldns_rdf_data(f), ldns_rdf_size(f));
		len += ldns_rdf_size(f);
	}
	return len;
}

static uint16_t tag_of(const ldns_rr* dnskey)
{
	return ldns_calc_keytag(dnskey);
}

/* The key with the zone flag cleared and the key tag kept (the flag is
 * 256 in the first checksum word; +1 on key octet 0 puts it back).
 * ldns's signer will not sign with a key that lacks the flag. */
static ldns_rr* without_zone_flag(const ldns_rr* dnskey)
{
	ldns_rr* c = ldns_rr_clone(dnskey);
	uint8_t* f = ldns_rdf_data(ldns_rr_rdf(c, 0));
	uint8_t* k = ldns_rdf_data(ldns_rr_rdf(c, 3));
	assert_true(f[0] & 1);
	assert_true(k[0] < 255);
	f[0] &= 0xfe;
	k[0]++;
	assert_int_equal(ldns_calc_keytag(c), ldns_calc_keytag(dnskey));
	return c;
}

static void setup_ctx(void)
{
	ctx = val_sig_ctx_create();
	assert_non_null(ctx);
	val_sig_settings_init(&set);
}

static int setup(void** state)
{
	(void)state;
	setup_ctx();
	return 0;
}

static int teardown(void** state)
{
	(void)state;
	val_sig_ctx_delete(ctx);
	ctx = NULL;
	return 0;
}

static void test_supported(void** state)
{
	size_t i;
	(void)state;
	for(i = 0; i < NALGS; i++)
		assert_true(val_algo_supported((int)algs[i]));
	assert_false(val_algo_supported(LDNS_RSAMD5));
	assert_false(val_algo_supported(LDNS_DSA));
	assert_false(val_algo_supported(LDNS_DSA_NSEC3));
	assert_false(val_algo_supported(LDNS_ECC_GOST));
	assert_false(val_algo_supported(253));
	assert_false(val_algo_supported(0));
	assert_true(val_ds_digest_supported(1));
	assert_true(val_ds_digest_supported(2));
	assert_true(val_ds_digest_supported(4));
	assert_false(val_ds_digest_supported(3));
	assert_false(val_ds_digest_supported(0));
	assert_false(val_ds_digest_supported(5));
}

/* compat: unbound-1.17: fake-sha1 takes RSASHA1 signatures (and DSA
 * ones) as valid unchecked, fake-dsa DSA ones; the dates still count,
 * other algorithms are still checked */
static void test_fake_algorithms(void** state)
{
	struct tkey t1 = mkkey(LDNS_SIGN_RSASHA1, "example.", 256);
	struct tkey t2 = mkkey(LDNS_SIGN_RSASHA256, "example.", 256);
	ldns_rr_list* a = list("www.example. 3600 IN A 192.0.2.1", NULL);
	ldns_rr_list* s1 = sign(a, &t1, NULL);
	ldns_rr_list* s2 = sign(a, &t2, NULL);
	struct val_keyset* k1 = keyset_of(t1.dnskey);
	struct val_keyset* k2 = keyset_of(t2.dnskey);
	struct val_verify_result res;
	ldns_rr* dsakey = rr("example. 3600 IN DNSKEY 256 3 3 "
		"CI3KFwAJYWmwEvHRQi0k4EEAjJ8bPlSOfr1rMTzPbGG3IgxJmwqmKVGVh9+X"
		"8dyK3TI8dCgcaRmWLeRvZxafN2P2E5Dn");
	ldns_rr_list* d = list("www.example. 3600 IN A 192.0.2.1", NULL);
	ldns_rr_list* ds;
	struct val_keyset* kd = keyset_of(dsakey);
	char sigtxt[512];
	size_t sl;
	(void)state;
	snprintf(sigtxt, sizeof(sigtxt), "www.example. 3600 IN RRSIG A 3 2 "
		"3600 %u %u %u example. "
		"AKzTwK5V3pb1s9eZpP0fIGiN7Y7rB8Vb7rWlZkA+Yl0e0J4QH3oqJuE=",
		(unsigned)EXPI, (unsigned)INCEP, (unsigned)tag_of(dsakey));
	ds = list(sigtxt, NULL);
	sigbytes(ldns_rr_list_rr(s1, 0), &sl)[sl / 2] ^= 0x01;
	sigbytes(ldns_rr_list_rr(s2, 0), &sl)[sl / 2] ^= 0x01;

	assert_false(val_algo_supported(LDNS_DSA));
	assert_false(val_crypto_faked(LDNS_RSASHA1));
	assert_int_equal(verify(a, s1, k1, NOW, &res), SEC_BOGUS);
	assert_int_equal(verify(d, ds, kd, NOW, &res), SEC_BOGUS);
	assert_string_equal(res.reason.text, "unsupported DNSKEY algorithm");

	val_crypto_set_fake(1, 0);
	assert_true(val_algo_supported(LDNS_DSA));
	assert_true(val_algo_supported(LDNS_DSA_NSEC3));
	assert_int_equal(verify(d, ds, kd, NOW, &res), SEC_SECURE);
	assert_int_equal(verify(a, s1, k1, NOW, &res), SEC_BOGUS);

	val_crypto_set_fake(0, 1);
	assert_true(val_algo_supported(LDNS_DSA));
	assert_int_equal(verify(d, ds, kd, NOW, &res), SEC_SECURE);
	assert_int_equal(verify(a, s1, k1, NOW, &res), SEC_SECURE);
	assert_int_equal(res.verifications, 0);
	/* expired: the dates are checked all the same */
	assert_int_equal(verify(a, s1, k1, EXPI + 2 * 86400, &res),
		SEC_BOGUS);
	/* RSASHA256 is checked */
	assert_int_equal(verify(a, s2, k2, NOW, &res), SEC_BOGUS);

	val_crypto_set_fake(0, 0);
	assert_int_equal(verify(a, s1, k1, NOW, &res), SEC_BOGUS);
	assert_false(val_algo_supported(LDNS_DSA));

	val_keyset_delete(k1);
	val_keyset_delete(k2);
	val_keyset_delete(kd);
	ldns_rr_list_deep_free(s1);
	ldns_rr_list_deep_free(s2);
	ldns_rr_list_deep_free(ds);
	ldns_rr_list_deep_free(a);
	ldns_rr_list_deep_free(d);
	ldns_rr_free(dsakey);
	freekey(&t1);
	freekey(&t2);
}

/* every algorithm: a good signature is secure; one flipped octet in the
 * signature, in the data or in the key (same tag) is bogus */
static void test_each_algorithm(void** state)
{
	size_t i, sl;
	(void)state;
	for(i = 0; i < NALGS; i++) {
		struct tkey t = mkkey(algs[i], "example.", 256);
		ldns_rr_list* a = list("www.example. 3600 IN A 192.0.2.1",
			"www.example. 3600 IN A 192.0.2.2", NULL);
		ldns_rr_list* sigs = sign(a, &t, NULL);
		struct val_keyset* ks = keyset_of(t.dnskey);
		struct val_verify_result res;
		uint8_t* sb;
		ldns_rr* badkey;
		ldns_rr_list* b;
		uint16_t tag = tag_of(t.dnskey);

		{
			uint8_t rd[1024];
			size_t rl = rdata_of(t.dnskey, rd);
			assert_int_equal(val_keytag(rd, rl), tag);
		}
		assert_int_equal(verify(a, sigs, ks, NOW, &res), SEC_SECURE);
		assert_null(res.reason.text);
		assert_int_equal(res.verifications, 1);
		assert_int_equal(res.ttl, 3600);
		assert_int_equal(res.wildcard_len, 0);
		/* the parsed key is kept: a second check parses nothing */
		assert_int_equal(verify(a, sigs, ks, NOW, &res), SEC_SECURE);

		/* the data: another address */
		b = list("www.example. 3600 IN A 192.0.2.1",
			"www.example. 3600 IN A 192.0.2.3", NULL);
		assert_int_equal(verify(b, sigs, ks, NOW, &res), SEC_BOGUS);
		assert_string_equal(res.reason.text, "signature crypto failed");
		assert_int_equal(res.reason.ede, VAL_EDE_DNSSEC_BOGUS);
		ldns_rr_list_deep_free(b);

		/* the key: same tag, other material */
		badkey = same_tag_key(t.dnskey, 0);
		assert_int_equal(tag_of(badkey), tag);
		{
			struct val_keyset* bks = keyset_of(badkey);
			assert_int_equal(verify(a, sigs, bks, NOW, &res),
				SEC_BOGUS);
			assert_string_equal(res.reason.text,
				"signature crypto failed");
			val_keyset_delete(bks);
		}
		ldns_rr_free(badkey);

		/* the signature */
		sb = sigbytes(ldns_rr_list_rr(sigs, 0), &sl);
		sb[sl / 2] ^= 0x01;
		assert_int_equal(verify(a, sigs, ks, NOW, &res), SEC_BOGUS);
		assert_string_equal(res.reason.text, "signature crypto failed");
		assert_int_equal(res.reason.ede, VAL_EDE_DNSSEC_BOGUS);

		val_keyset_delete(ks);
		ldns_rr_list_deep_free(sigs);
		ldns_rr_list_deep_free(a);
		freekey(&t);
	}
}

static void test_keytag(void** state)
{
	struct tkey t = mkkey(LDNS_SIGN_ECDSAP256SHA256, "example.", 257);
	uint8_t rd[1024];
	size_t i, len = 0;
	(void)state;
	for(i = 0; i < ldns_rr_rd_count(t.dnskey); i++) {
		const ldns_rdf* f = ldns_rr_rdf(t.dnskey, i);
		memcpy(rd + len, ldns_rdf_data(f), ldns_rdf_size(f));
		len += ldns_rdf_size(f);
	}
	assert_int_equal(val_keytag(rd, len), ldns_calc_keytag(t.dnskey));
	/* RFC 4034 B.1: the root KSK-2017 is 20326 */
	{
		ldns_rr* root = rr(". IN DNSKEY 257 3 8 "
			"AwEAAaz/tAm8yTn4Mfeh5eyI96WSVexTBAvkMgJzkKTOiW1vkIbzxeF3"
			"+/4RgWOq7HrxRixHlFlExOLAJr5emLvN7SWXgnLh4+B5xQlNVz8Og8kv"
			"ArMtNROxVQuCaSnIDdD5LKyWbRd2n9WGe2R8PzgCmr3EgVLrjyBxWezF"
			"0jLHwVN8efS3rCj/EWgvIWgb9tarpVUDK/b58Da+sqqls3eNbuv7pr+e"
			"oZG+SrDK6nWeL3c6H5Apxz7LjVc1uTIdsIXxuOLYA4/ilBmSVIzuDWfd"
			"RUfhHdY6+cn8HFRm+2hM8AnXGXws9555KrUB5qihylGa8subX2Nn6UwN"
			"R1AkUTV74bU=");
		assert_int_equal(ldns_calc_keytag(root), 20326);
		len = 0;
		for(i = 0; i < ldns_rr_rd_count(root); i++) {
			const ldns_rdf* f = ldns_rr_rdf(root, i);
			memcpy(rd + len, ldns_rdf_data(f), ldns_rdf_size(f));
			len += ldns_rdf_size(f);
		}
		assert_int_equal(val_keytag(rd, len), 20326);
		ldns_rr_free(root);
	}
	freekey(&t);
}

/* dates: expired and not yet valid, with and without skew, override */
static void test_dates(void** state)
{
	struct tkey t = mkkey(LDNS_SIGN_ECDSAP256SHA256, "example.", 256);
	ldns_rr_list* a = list("www.example. 3600 IN A 192.0.2.1", NULL);
	ldns_rr_list* sigs = sign(a, &t, NULL);
	ldns_rr_list* shortsigs;
	struct val_keyset* ks = keyset_of(t.dnskey);
	struct val_verify_result res;
	(void)state;
	/* validity 30 days + 1 hour: skew 10% clamped to the max, a day */
	assert_int_equal(verify(a, sigs, ks, EXPI + 43200, &res), SEC_SECURE);
	assert_int_equal(verify(a, sigs, ks, EXPI + 86400 + 10, &res),
		SEC_BOGUS);
	assert_string_equal(res.reason.text, "signature expired");
	assert_int_equal(res.reason.ede, VAL_EDE_SIGNATURE_EXPIRED);
	assert_int_equal(res.verifications, 0); /* no crypto spent on it */
	assert_int_equal(verify(a, sigs, ks, INCEP - 43200, &res), SEC_SECURE);
	assert_int_equal(verify(a, sigs, ks, INCEP - 86400 - 10, &res),
		SEC_BOGUS);
	assert_string_equal(res.reason.text, "signature before inception date");
	assert_int_equal(res.reason.ede, VAL_EDE_SIGNATURE_NOT_YET_VALID);
	/* a narrower skew-max */
	set.skew_max = 600;
	assert_int_equal(verify(a, sigs, ks, EXPI + 3000, &res), SEC_BOGUS);
	assert_string_equal(res.reason.text, "signature expired");
	set.skew_max = 86400;

	/* 1000 s of validity: 10% is 100 s, raised to skew-min 3600 */
	key_times(&t, (uint32_t)NOW, (uint32_t)NOW + 1000);
	shortsigs = sign(a, &t, NULL);
	assert_int_equal(verify(a, shortsigs, ks, NOW + 1000 + 3000, &res),
		SEC_SECURE);
	assert_int_equal(verify(a, shortsigs, ks, NOW + 1000 + 4000, &res),
		SEC_BOGUS);
	assert_string_equal(res.reason.text, "signature expired");
	set.skew_min = 60;
	assert_int_equal(verify(a, shortsigs, ks, NOW + 1000 + 200, &res),
		SEC_BOGUS);
	assert_int_equal(verify(a, shortsigs, ks, NOW + 1000 + 90, &res),
		SEC_SECURE);
	set.skew_min = 3600;
	/* TTL capped by the time left until expiration */
	assert_int_equal(verify(a, shortsigs, ks, NOW + 900, &res),
		SEC_SECURE);
	assert_int_equal(res.ttl, 100);

	/* val-override-date: a fixed "now" wins over the clock */
	set.date_override = (int64_t)NOW;
	assert_int_equal(verify(a, sigs, ks, EXPI + 5*86400, &res),
		SEC_SECURE);
	set.date_override = (int64_t)EXPI + 5*86400;
	assert_int_equal(verify(a, sigs, ks, NOW, &res), SEC_BOGUS);
	assert_string_equal(res.reason.text, "signature expired");
	/* -1: dates ignored */
	set.date_override = -1;
	assert_int_equal(verify(a, sigs, ks, EXPI + 50*86400, &res),
		SEC_SECURE);
	set.date_override = 0;

	/* inception after expiration */
	key_times(&t, (uint32_t)NOW + 1000, (uint32_t)NOW);
	ldns_rr_list_deep_free(shortsigs);
	shortsigs = sign(a, &t, NULL);
	assert_int_equal(verify(a, shortsigs, ks, NOW, &res), SEC_BOGUS);
	assert_string_equal(res.reason.text,
		"signature inception after expiration");

	ldns_rr_list_deep_free(shortsigs);
	val_keyset_delete(ks);
	ldns_rr_list_deep_free(sigs);
	ldns_rr_list_deep_free(a);
	freekey(&t);
}

/* TTL: the original TTL caps it, cache-min-ttl keeps a floor */
static void test_ttl(void** state)
{
	struct tkey t = mkkey(LDNS_SIGN_ED25519, "example.", 256);
	ldns_rr_list* a = list("www.example. 300 IN A 192.0.2.1", NULL);
	ldns_rr_list* sigs = sign(a, &t, NULL);
	ldns_rr_list* big = list("www.example. 86400 IN A 192.0.2.1", NULL);
	struct val_keyset* ks = keyset_of(t.dnskey);
	struct val_verify_result res;
	(void)state;
	/* the RRSIG's own TTL is 300 as well; make it large */
	ldns_rr_set_ttl(ldns_rr_list_rr(sigs, 0), 86400);
	assert_int_equal(verify(big, sigs, ks, NOW, &res), SEC_SECURE);
	assert_int_equal(res.ttl, 300);
	set.min_ttl = 600;
	assert_int_equal(verify(big, sigs, ks, NOW, &res), SEC_SECURE);
	assert_int_equal(res.ttl, 600);
	set.min_ttl = 0;
	/* the RRSIG TTL counts as the RRset's */
	ldns_rr_set_ttl(ldns_rr_list_rr(sigs, 0), 100);
	assert_int_equal(verify(big, sigs, ks, NOW, &res), SEC_SECURE);
	assert_int_equal(res.ttl, 100);
	val_keyset_delete(ks);
	ldns_rr_list_deep_free(big);
	ldns_rr_list_deep_free(sigs);
	ldns_rr_list_deep_free(a);
	freekey(&t);
}

/* which signatures may be used: key tag, signer, type covered, labels,
 * zone flag, revoked keys, no signatures */
static void test_sig_selection(void** state)
{
	struct tkey t = mkkey(LDNS_SIGN_ECDSAP256SHA256, "example.", 256);
	struct tkey other = mkkey(LDNS_SIGN_ECDSAP256SHA256, "sub.example.",
		256);
	ldns_rr_list* a = list("www.example. 3600 IN A 192.0.2.1", NULL);
	ldns_rr_list* sigs = sign(a, &t, NULL);
	ldns_rr_list* empty = ldns_rr_list_new();
	struct val_keyset* ks = keyset_of(t.dnskey);
	struct val_verify_result res;
	ldns_rr* sig = ldns_rr_list_rr(sigs, 0);
	uint8_t* tagp = ldns_rdf_data(ldns_rr_rdf(sig, 6));
	uint8_t* labp = ldns_rdf_data(ldns_rr_rdf(sig, 2));
	uint8_t* typep = ldns_rdf_data(ldns_rr_rdf(sig, 0));
	(void)state;

	/* wrong key tag */
	tagp[1] ^= 1;
	assert_int_equal(verify(a, sigs, ks, NOW, &res), SEC_BOGUS);
	assert_string_equal(res.reason.text, "signatures from unknown keys");
	assert_int_equal(res.reason.ede, VAL_EDE_DNSKEY_MISSING);
	tagp[1] ^= 1;

	/* labels over the owner's count */
	labp[0] = 5;
	assert_int_equal(verify(a, sigs, ks, NOW, &res), SEC_BOGUS);
	assert_string_equal(res.reason.text,
		"signature labelcount out of range");
	labp[0] = 2;

	/* covers another type: no signature for this RRset */
	typep[1] = LDNS_RR_TYPE_AAAA;
	assert_int_equal(verify(a, sigs, ks, NOW, &res), SEC_BOGUS);
	assert_string_equal(res.reason.text, "no signatures");
	assert_int_equal(res.reason.ede, VAL_EDE_RRSIGS_MISSING);
	typep[1] = LDNS_RR_TYPE_A;
	assert_int_equal(verify(a, empty, ks, NOW, &res), SEC_BOGUS);
	assert_string_equal(res.reason.text, "no signatures");
	assert_int_equal(verify(a, NULL, ks, NOW, &res), SEC_BOGUS);
	assert_int_equal(verify(a, sigs, ks, NOW, &res), SEC_SECURE);

	/* wrong signer: sub.example.'s key signs; the key set is the same
	 * key under example. (same tag and algorithm) */
	{
		ldns_rr_list* sub = list("www.sub.example. 3600 IN A "
			"192.0.2.1", NULL);
		ldns_rr_list* osigs = sign(sub, &other, NULL);
		ldns_rr* ok = ldns_rr_clone(other.dnskey);
		ldns_rr_list* l;
		struct val_keyset* oks;
		ldns_rdf_deep_free(ldns_rr_owner(ok));
		ldns_rr_set_owner(ok, ldns_dname_new_frm_str("example."));
		l = list1(ok);
		oks = val_keyset_create(l);
		assert_int_equal(verify(sub, osigs, oks, NOW, &res), SEC_BOGUS);
		assert_string_equal(res.reason.text,
			"signer name mismatches key name");
		assert_int_equal(res.verifications, 0);
		ldns_rr_list_deep_free(sub);
		val_keyset_delete(oks);
		ldns_rr_list_deep_free(l);
		ldns_rr_list_deep_free(osigs);
	}

	/* an RRset outside the signer's zone */
	{
		ldns_rr_list* off = list("www.example.net. 3600 IN A "
			"192.0.2.1", NULL);
		ldns_rr_list* above = list("com. 3600 IN A 192.0.2.1", NULL);
		assert_int_equal(verify(off, sigs, ks, NOW, &res), SEC_BOGUS);
		assert_string_equal(res.reason.text, "signer name off-tree");
		assert_int_equal(verify(above, sigs, ks, NOW, &res), SEC_BOGUS);
		assert_string_equal(res.reason.text, "signer name off-tree");
		ldns_rr_list_deep_free(off);
		ldns_rr_list_deep_free(above);
	}

	/* a key without the zone flag may not sign */
	{
		ldns_rr* nz = without_zone_flag(t.dnskey);
		struct val_keyset* nks = keyset_of(nz);
		assert_int_equal(verify(a, sigs, nks, NOW, &res), SEC_BOGUS);
		assert_string_equal(res.reason.text, "dnskey without ZSK flag");
		assert_int_equal(res.reason.ede, VAL_EDE_NO_ZONE_KEY_BIT_SET);
		assert_int_equal(res.verifications, 0);
		val_keyset_delete(nks);
		ldns_rr_free(nz);
	}

	/* a revoked key signs only its own DNSKEY RRset */
	{
		struct tkey rv = mkkey(LDNS_SIGN_ECDSAP256SHA256, "example.",
			257 | VAL_DNSKEY_REVOKE);
		ldns_rr_list* rsigs = sign(a, &rv, NULL);
		ldns_rr_list* keys = list1(ldns_rr_clone(rv.dnskey));
		ldns_rr_list* ksigs = sign(keys, &rv, NULL);
		struct val_keyset* rks = val_keyset_create(keys);
		assert_int_equal(verify(a, rsigs, rks, NOW, &res), SEC_BOGUS);
		assert_int_equal(verify(keys, ksigs, rks, NOW, &res),
			SEC_SECURE);
		val_keyset_delete(rks);
		ldns_rr_list_deep_free(rsigs);
		ldns_rr_list_deep_free(ksigs);
		ldns_rr_list_deep_free(keys);
		freekey(&rv);
	}

	val_keyset_delete(ks);
	ldns_rr_list_free(empty);
	ldns_rr_list_deep_free(sigs);
	ldns_rr_list_deep_free(a);
	freekey(&t);
	freekey(&other);
}

/* a wildcard's signature verifies an expanded owner; the result names
 * the wildcard */
static void test_wildcard(void** state)
{
	struct tkey t = mkkey(LDNS_SIGN_ED25519, "example.", 256);
	ldns_rr_list* w = list("*.example. 3600 IN A 192.0.2.1", NULL);
	ldns_rr_list* sigs = sign(w, &t, NULL);
	ldns_rr_list* x = list("a.B.Example. 3600 IN A 192.0.2.1", NULL);
	ldns_rr_list* y = list("b.example. 3600 IN A 192.0.2.1", NULL);
	struct val_keyset* ks = keyset_of(t.dnskey);
	struct val_verify_result res;
	static const uint8_t wc[] = "\001*\007example";
	(void)state;
	assert_int_equal(ldns_rdf_data(ldns_rr_rdf(ldns_rr_list_rr(sigs, 0),
		2))[0], 1);
	/* the wildcard owner itself is no expansion */
	assert_int_equal(verify(w, sigs, ks, NOW, &res), SEC_SECURE);
	assert_int_equal(res.wildcard_len, 0);
	assert_int_equal(verify(x, sigs, ks, NOW, &res), SEC_SECURE);
	assert_int_equal(res.wildcard_len, sizeof(wc));
	assert_memory_equal(res.wildcard, wc, sizeof(wc));
	assert_int_equal(verify(y, sigs, ks, NOW, &res), SEC_SECURE);
	assert_int_equal(res.wildcard_len, sizeof(wc));
	/* the RRSIG labels alone tell it; disagreeing RRSIGs are refused */
	{
		uint8_t w2[LDNS_MAX_DOMAINLEN + 1];
		size_t wl;
		ldns_rr_list* two = ldns_rr_list_clone(sigs);
		assert_int_equal(val_rrset_wildcard(x, sigs, w2, &wl), 1);
		assert_int_equal(wl, sizeof(wc));
		assert_memory_equal(w2, wc, sizeof(wc));
		assert_int_equal(val_rrset_wildcard(w, sigs, w2, &wl), 0);
		assert_int_equal(wl, 0);
		assert_int_equal(val_rrset_wildcard(x, NULL, w2, &wl), 0);
		ldns_rdf_data(ldns_rr_rdf(ldns_rr_list_rr(two, 0), 2))[0] = 2;
		ldns_rr_list_push_rr(two, ldns_rr_clone(ldns_rr_list_rr(sigs,
			0)));
		assert_int_equal(val_rrset_wildcard(x, two, w2, &wl), -1);
		ldns_rr_list_deep_free(two);
	}
	/* other data at the expanded name does not verify */
	{
		ldns_rr_list* z = list("a.b.example. 3600 IN A 192.0.2.9",
			NULL);
		assert_int_equal(verify(z, sigs, ks, NOW, &res), SEC_BOGUS);
		assert_int_equal(res.wildcard_len, 0);
		ldns_rr_list_deep_free(z);
	}
	val_keyset_delete(ks);
	ldns_rr_list_deep_free(x);
	ldns_rr_list_deep_free(y);
	ldns_rr_list_deep_free(sigs);
	ldns_rr_list_deep_free(w);
	freekey(&t);
}

/* canonical form and order: case of owner and rdata names, RR order,
 * duplicates */
static void test_canonical(void** state)
{
	struct tkey t = mkkey(LDNS_SIGN_RSASHA256, "example.", 256);
	ldns_rr_list* mx = list("example. 3600 IN MX 10 mail.example.",
		"example. 3600 IN MX 20 mx2.example.",
		"example. 3600 IN MX 5 a.example.", NULL);
	ldns_rr_list* sigs = sign(mx, &t, NULL);
	ldns_rr_list* mixed = list("EXAMPLE. 3600 IN MX 20 MX2.Example.",
		"eXample. 3600 IN MX 10 Mail.EXAMPLE.",
		"example. 3600 IN MX 20 mx2.example.",
		"Example. 3600 IN MX 5 A.example.", NULL);
	ldns_rr_list* txt = list("example. 3600 IN TXT \"b\"",
		"example. 3600 IN TXT \"a\"", "example. 3600 IN TXT \"ab\"",
		NULL);
	ldns_rr_list* tsigs = sign(txt, &t, NULL);
	/* TXT has no names: its case is data */
	ldns_rr_list* txtcase = list("example. 3600 IN TXT \"B\"",
		"example. 3600 IN TXT \"a\"", "example. 3600 IN TXT \"ab\"",
		NULL);
	ldns_rr_list* shuffled = list("EXAMPLE. 3600 IN TXT \"ab\"",
		"example. 3600 IN TXT \"a\"", "example. 3600 IN TXT \"b\"",
		"example. 3600 IN TXT \"a\"", NULL);
	struct val_keyset* ks = keyset_of(t.dnskey);
	struct val_verify_result res;
	(void)state;
	assert_int_equal(verify(mx, sigs, ks, NOW, &res), SEC_SECURE);
	assert_int_equal(verify(mixed, sigs, ks, NOW, &res), SEC_SECURE);
	assert_int_equal(verify(txt, tsigs, ks, NOW, &res), SEC_SECURE);
	assert_int_equal(verify(shuffled, tsigs, ks, NOW, &res), SEC_SECURE);
	assert_int_equal(verify(txtcase, tsigs, ks, NOW, &res), SEC_BOGUS);
	/* a mixed RRset is refused */
	{
		ldns_rr_list* bad = list("example. 3600 IN TXT \"a\"",
			"other. 3600 IN TXT \"a\"", NULL);
		assert_int_equal(verify(bad, tsigs, ks, NOW, &res), SEC_BOGUS);
		assert_string_equal(res.reason.text, "malformed RRset");
		ldns_rr_list_deep_free(bad);
	}
	val_keyset_delete(ks);
	ldns_rr_list_deep_free(mx);
	ldns_rr_list_deep_free(mixed);
	ldns_rr_list_deep_free(txt);
	ldns_rr_list_deep_free(txtcase);
	ldns_rr_list_deep_free(shuffled);
	ldns_rr_list_deep_free(sigs);
	ldns_rr_list_deep_free(tsigs);
	freekey(&t);
}

/* RFC 6840 5.1: NSEC's next name keeps its case in the signed data,
 * while names in RRSIG rdata (and the owner) are lowercased */
static void test_canonical_nsec(void** state)
{
	struct tkey t = mkkey(LDNS_SIGN_ED25519, "example.", 256);
	ldns_rr_list* nsec = list("a.example. 3600 IN NSEC "
		"Next.Example. A RRSIG NSEC", NULL);
	ldns_rr_list* sigs = sign(nsec, &t, NULL);
	ldns_rr_list* lower = list("A.example. 3600 IN NSEC "
		"next.example. A RRSIG NSEC", NULL);
	ldns_rr_list* same = list("A.EXAMPLE. 3600 IN NSEC "
		"Next.Example. A RRSIG NSEC", NULL);
	struct val_keyset* ks = keyset_of(t.dnskey);
	struct val_verify_result res;
	(void)state;
	assert_int_equal(verify(nsec, sigs, ks, NOW, &res), SEC_SECURE);
	assert_int_equal(verify(same, sigs, ks, NOW, &res), SEC_SECURE);
	assert_int_equal(verify(lower, sigs, ks, NOW, &res), SEC_BOGUS);
	val_keyset_delete(ks);
	ldns_rr_list_deep_free(nsec);
	ldns_rr_list_deep_free(lower);
	ldns_rr_list_deep_free(same);
	ldns_rr_list_deep_free(sigs);
	freekey(&t);
}

/* DS digests of every type match; a changed digest does not */
static void test_ds_digest(void** state)
{
	static const ldns_hash hs[] = { LDNS_SHA1, LDNS_SHA256, LDNS_SHA384 };
	static const size_t hl[] = { 20, 32, 48 };
	struct tkey t = mkkey(LDNS_SIGN_ECDSAP384SHA384, "Example.", 257);
	size_t i;
	(void)state;
	for(i = 0; i < 3; i++) {
		ldns_rr* ds = ldns_key_rr2ds(t.dnskey, hs[i]);
		uint8_t dig[64];
		assert_non_null(ds);
		assert_int_equal(val_dnskey_digest(ctx, t.dnskey, (int)hs[i],
			dig), hl[i]);
		assert_memory_equal(dig, ldns_rdf_data(ldns_rr_rdf(ds, 3)),
			hl[i]);
		assert_true(val_ds_match_dnskey(ctx, ds, t.dnskey));
		ldns_rdf_data(ldns_rr_rdf(ds, 3))[0] ^= 0x80;
		assert_false(val_ds_match_dnskey(ctx, ds, t.dnskey));
		ldns_rr_free(ds);
	}
	freekey(&t);
}

/* a zone: KSK (and ZSK), DNSKEY RRset signed by the KSK */
struct zone {
	struct tkey ksk, zsk;
	ldns_rr_list* keys;
	ldns_rr_list* keysigs;
};

static void zone_make(struct zone* z, ldns_signing_algorithm alg,
	uint16_t kskflags)
{
	z->ksk = mkkey(alg, "example.", kskflags);
	z->zsk = mkkey(alg, "example.", 256);
	z->keys = ldns_rr_list_new();
	ldns_rr_list_push_rr(z->keys, ldns_rr_clone(z->ksk.dnskey));
	ldns_rr_list_push_rr(z->keys, ldns_rr_clone(z->zsk.dnskey));
	z->keysigs = sign(z->keys, &z->ksk, NULL);
}

static void zone_free(struct zone* z)
{
	freekey(&z->ksk);
	freekey(&z->zsk);
	ldns_rr_list_deep_free(z->keys);
	ldns_rr_list_deep_free(z->keysigs);
}

static enum sec_status with_ds(struct zone* z, ldns_rr_list* ds,
	struct val_verify_result* res, struct val_keyset** out)
{
	return val_verify_dnskey_with_ds(ctx, z->keys, z->keysigs, ds, &set,
		NOW, NULL, res, out);
}

static void test_dnskey_with_ds(void** state)
{
	static const ldns_hash hs[] = { LDNS_SHA1, LDNS_SHA256, LDNS_SHA384 };
	struct zone z;
	struct val_verify_result res;
	struct val_keyset* ks = NULL;
	ldns_rr_list* ds;
	size_t i;
	(void)state;
	zone_make(&z, LDNS_SIGN_ECDSAP256SHA256, 257);

	for(i = 0; i < 3; i++) {
		ds = list1(ldns_key_rr2ds(z.ksk.dnskey, hs[i]));
		assert_int_equal(with_ds(&z, ds, &res, &ks), SEC_SECURE);
		assert_non_null(ks);
		assert_int_equal(val_keyset_count(ks), 2);
		assert_int_equal(res.ttl, 3600);
		val_keyset_delete(ks);
		ldns_rr_list_deep_free(ds);
	}

	/* the trusted set then verifies the zone's data (ZSK) */
	{
		ldns_rr_list* a = list("www.example. 3600 IN A 192.0.2.1",
			NULL);
		ldns_rr_list* sigs = sign(a, &z.zsk, NULL);
		ds = list1(ldns_key_rr2ds(z.ksk.dnskey, LDNS_SHA256));
		assert_int_equal(with_ds(&z, ds, &res, &ks), SEC_SECURE);
		assert_int_equal(val_verify_rrset(ctx, a, sigs, ks, &set, NOW,
			NULL, &res), SEC_SECURE);
		val_keyset_delete(ks);
		ldns_rr_list_deep_free(ds);
		ldns_rr_list_deep_free(a);
		ldns_rr_list_deep_free(sigs);
	}

	/* mismatching digest */
	ds = list1(ldns_key_rr2ds(z.ksk.dnskey, LDNS_SHA256));
	ldns_rdf_data(ldns_rr_rdf(ldns_rr_list_rr(ds, 0), 3))[5] ^= 1;
	assert_int_equal(with_ds(&z, ds, &res, &ks), SEC_BOGUS);
	assert_null(ks);
	assert_string_equal(res.reason.text, "DS hash mismatches key");
	assert_int_equal(res.reason.ede, VAL_EDE_DNSKEY_MISSING);
	/* the strongest digest is used: a good SHA-1 DS beside the bad
	 * SHA-256 one is ignored */
	ldns_rr_list_push_rr(ds, ldns_key_rr2ds(z.ksk.dnskey, LDNS_SHA1));
	assert_int_equal(val_favorite_ds_digest(ds), LDNS_SHA256);
	assert_int_equal(with_ds(&z, ds, &res, &ks), SEC_BOGUS);
	ldns_rr_list_deep_free(ds);
	/* and a bad SHA-1 beside a good SHA-384 does not matter */
	ds = list1(ldns_key_rr2ds(z.ksk.dnskey, LDNS_SHA1));
	ldns_rdf_data(ldns_rr_rdf(ldns_rr_list_rr(ds, 0), 3))[5] ^= 1;
	ldns_rr_list_push_rr(ds, ldns_key_rr2ds(z.ksk.dnskey, LDNS_SHA384));
	assert_int_equal(val_favorite_ds_digest(ds), LDNS_SHA384);
	assert_int_equal(with_ds(&z, ds, &res, NULL), SEC_SECURE);
	ldns_rr_list_deep_free(ds);

	/* DS for a key that is not there */
	{
		struct tkey gone = mkkey(LDNS_SIGN_ECDSAP256SHA256, "example.",
			257);
		ds = list1(ldns_key_rr2ds(gone.dnskey, LDNS_SHA256));
		assert_int_equal(with_ds(&z, ds, &res, NULL), SEC_BOGUS);
		assert_string_equal(res.reason.text, "no keys have a DS with "
			"algorithm ECDSAP256SHA256");
		assert_int_equal(res.reason.ede, VAL_EDE_DNSKEY_MISSING);
		ldns_rr_list_deep_free(ds);
		freekey(&gone);
	}

	/* DS matches the ZSK, which did not sign the DNSKEY RRset */
	ds = list1(ldns_key_rr2ds(z.zsk.dnskey, LDNS_SHA256));
	assert_int_equal(with_ds(&z, ds, &res, NULL), SEC_BOGUS);
	assert_string_equal(res.reason.text, "signature missing");
	ldns_rr_list_deep_free(ds);

	/* DNSKEY RRset of another name */
	ds = list("other. 3600 IN DS 1 13 2 "
		"0000000000000000000000000000000000000000000000000000000000000000",
		NULL);
	assert_int_equal(with_ds(&z, ds, &res, NULL), SEC_BOGUS);
	assert_string_equal(res.reason.text,
		"DNSKEY RRset did not match DS RRset by name");
	ldns_rr_list_deep_free(ds);

	/* no DNSKEY RRset at all */
	ds = list1(ldns_key_rr2ds(z.ksk.dnskey, LDNS_SHA256));
	assert_int_equal(val_verify_dnskey_with_ds(ctx, NULL, z.keysigs, ds,
		&set, NOW, NULL, &res, NULL), SEC_BOGUS);
	assert_int_equal(res.reason.ede, VAL_EDE_DNSKEY_MISSING);
	/* expired DNSKEY signature */
	assert_int_equal(val_verify_dnskey_with_ds(ctx, z.keys, z.keysigs, ds,
		&set, EXPI + 3*86400, NULL, &res, NULL), SEC_BOGUS);
	assert_string_equal(res.reason.text, "signature expired");
	assert_int_equal(res.reason.ede, VAL_EDE_SIGNATURE_EXPIRED);
	ldns_rr_list_deep_free(ds);

	zone_free(&z);
}

/* unsupported algorithms or digests only: insecure, not bogus */
static void test_ds_unsupported(void** state)
{
	struct zone z;
	struct val_verify_result res;
	struct val_keyset* ks = (struct val_keyset*)1;
	ldns_rr_list* ds;
	(void)state;
	zone_make(&z, LDNS_SIGN_ECDSAP256SHA256, 257);
	ds = list("example. 3600 IN DS 12345 253 2 "
		"0000000000000000000000000000000000000000000000000000000000000000",
		"example. 3600 IN DS 12345 1 2 "
		"0000000000000000000000000000000000000000000000000000000000000000",
		"example. 3600 IN DS 12345 3 1 "
		"0000000000000000000000000000000000000000", NULL);
	assert_false(val_dsset_usable(ds));
	assert_int_equal(with_ds(&z, ds, &res, &ks), SEC_INSECURE);
	assert_null(ks);
	assert_int_equal(res.reason.ede, VAL_EDE_UNSUPPORTED_DNSKEY_ALG);
	ldns_rr_list_deep_free(ds);
	/* GOST digest (3) and an unknown one only */
	ds = list("example. 3600 IN DS 12345 13 3 "
		"0000000000000000000000000000000000000000000000000000000000000000",
		"example. 3600 IN DS 12345 13 9 00", NULL);
	assert_int_equal(with_ds(&z, ds, &res, NULL), SEC_INSECURE);
	assert_int_equal(res.reason.ede, VAL_EDE_UNSUPPORTED_DS_DIGEST);
	/* with a usable DS beside them it is decided by that one */
	ldns_rr_list_push_rr(ds, ldns_key_rr2ds(z.ksk.dnskey, LDNS_SHA256));
	assert_true(val_dsset_usable(ds));
	assert_int_equal(with_ds(&z, ds, &res, NULL), SEC_SECURE);
	ldns_rr_list_deep_free(ds);
	zone_free(&z);
}

/* the DS matches a key without the zone flag */
static void test_ds_no_zone_flag(void** state)
{
	struct zone z;
	struct val_verify_result res;
	ldns_rr_list* ds;
	ldns_rr* nz;
	(void)state;
	zone_make(&z, LDNS_SIGN_ED25519, 257);
	nz = without_zone_flag(z.ksk.dnskey);
	ldns_rr_free(ldns_rr_list_rr(z.keys, 0));
	ldns_rr_list_set_rr(z.keys, nz, 0);
	ds = list1(ldns_key_rr2ds(nz, LDNS_SHA256));
	assert_int_equal(with_ds(&z, ds, &res, NULL), SEC_BOGUS);
	assert_string_equal(res.reason.text, "dnskey without ZSK flag");
	assert_int_equal(res.reason.ede, VAL_EDE_NO_ZONE_KEY_BIT_SET);
	ldns_rr_list_deep_free(ds);
	zone_free(&z);
}

/* harden-algo-downgrade: every DS algorithm must sign */
static void test_harden_algo(void** state)
{
	struct tkey k13 = mkkey(LDNS_SIGN_ECDSAP256SHA256, "example.", 257);
	struct tkey k8 = mkkey(LDNS_SIGN_RSASHA256, "example.", 257);
	ldns_rr_list* keys = ldns_rr_list_new();
	ldns_rr_list* only13, *both, *ds;
	ldns_rr_list* a = list("www.example. 3600 IN A 192.0.2.1", NULL);
	ldns_rr_list* asig13, *asigboth;
	struct val_verify_result res;
	struct val_keyset* ks;
	(void)state;
	ldns_rr_list_push_rr(keys, ldns_rr_clone(k13.dnskey));
	ldns_rr_list_push_rr(keys, ldns_rr_clone(k8.dnskey));
	only13 = sign(keys, &k13, NULL);
	both = sign(keys, &k13, &k8, NULL);
	asig13 = sign(a, &k13, NULL);
	asigboth = sign(a, &k13, &k8, NULL);
	ds = list1(ldns_key_rr2ds(k13.dnskey, LDNS_SHA256));
	ldns_rr_list_push_rr(ds, ldns_key_rr2ds(k8.dnskey, LDNS_SHA256));

	set.harden_algo_downgrade = 0;
	assert_int_equal(val_verify_dnskey_with_ds(ctx, keys, only13, ds,
		&set, NOW, NULL, &res, NULL), SEC_SECURE);
	set.harden_algo_downgrade = 1;
	/* as Unbound: the failed algorithm's own reason (its key made no
	 * signature) */
	assert_int_equal(val_verify_dnskey_with_ds(ctx, keys, only13, ds,
		&set, NOW, NULL, &res, NULL), SEC_BOGUS);
	assert_string_equal(res.reason.text, "signature missing");
	assert_int_equal(res.reason.ede, VAL_EDE_RRSIGS_MISSING);
	/* signed by both: secure, and the key set needs both from now on */
	assert_int_equal(val_verify_dnskey_with_ds(ctx, keys, both, ds,
		&set, NOW, NULL, &res, &ks), SEC_SECURE);
	assert_non_null(ks);
	assert_int_equal(strlen((const char*)val_keyset_needed_algos(ks)), 2);
	/* data must carry both algorithms too */
	assert_int_equal(val_verify_rrset(ctx, a, asig13, ks, &set, NOW, NULL,
		&res), SEC_BOGUS);
	assert_string_equal(res.reason.text,
		"no signatures with algorithm RSASHA256");
	assert_int_equal(val_verify_rrset(ctx, a, asigboth, ks, &set, NOW,
		NULL, &res), SEC_SECURE);
	set.harden_algo_downgrade = 0;
	assert_int_equal(val_verify_rrset(ctx, a, asig13, ks, &set, NOW, NULL,
		&res), SEC_SECURE);
	val_keyset_delete(ks);

	/* anchors: DNSKEY trust anchor */
	{
		ldns_rr_list* ta = list1(ldns_rr_clone(k13.dnskey));
		ldns_rr_list* ta2 = list1(ldns_rr_clone(k8.dnskey));
		ldns_rr_list* unsup = list("example. IN DNSKEY 257 3 253 AQID",
			NULL);
		ldns_rr_list* wrongname = list1(ldns_rr_clone(k13.dnskey));
		ldns_rdf_deep_free(ldns_rr_owner(ldns_rr_list_rr(wrongname,
			0)));
		ldns_rr_set_owner(ldns_rr_list_rr(wrongname, 0),
			ldns_dname_new_frm_str("other."));
		assert_int_equal(val_verify_dnskey_with_keys(ctx, keys, only13,
			ta, &set, NOW, NULL, &res, &ks), SEC_SECURE);
		assert_non_null(ks);
		val_keyset_delete(ks);
		assert_int_equal(val_verify_dnskey_with_keys(ctx, keys, only13,
			ta2, &set, NOW, NULL, &res, NULL), SEC_BOGUS);
		assert_int_equal(val_verify_dnskey_with_keys(ctx, keys, only13,
			unsup, &set, NOW, NULL, &res, NULL), SEC_INSECURE);
		assert_int_equal(val_verify_dnskey_with_keys(ctx, keys, only13,
			wrongname, &set, NOW, NULL, &res, NULL), SEC_BOGUS);
		assert_string_equal(res.reason.text,
			"DNSKEY RRset did not match anchor RRset by name");
		ldns_rr_list_deep_free(ta);
		ldns_rr_list_deep_free(ta2);
		ldns_rr_list_deep_free(unsup);
		ldns_rr_list_deep_free(wrongname);
	}

	ldns_rr_list_deep_free(ds);
	ldns_rr_list_deep_free(only13);
	ldns_rr_list_deep_free(both);
	ldns_rr_list_deep_free(asig13);
	ldns_rr_list_deep_free(asigboth);
	ldns_rr_list_deep_free(a);
	ldns_rr_list_deep_free(keys);
	freekey(&k13);
	freekey(&k8);
}

/* KeyTrap: 20 RSA keys with one key tag and 10 RRSIGs that all claim
 * it: at most 8 verifications, then bogus; the message budget then says
 * suspend; DS matching stops after 4 failed digests */
static void test_keytrap(void** state)
{
	struct tkey t = mkkey(LDNS_SIGN_RSASHA256, "example.", 257);
	ldns_rr_list* a = list("www.example. 3600 IN A 192.0.2.1", NULL);
	ldns_rr_list* good = sign(a, &t, NULL);
	ldns_rr_list* keys = ldns_rr_list_new();
	ldns_rr_list* sigs = ldns_rr_list_new();
	struct val_keyset* ks;
	struct val_verify_result res;
	struct val_budget b;
	uint16_t tag = tag_of(t.dnskey);
	clock_t c0;
	double ms;
	int i;
	(void)state;
	for(i = 0; i < 19; i++) {
		ldns_rr* k = same_tag_key(t.dnskey, i);
		assert_int_equal(tag_of(k), tag);
		ldns_rr_list_push_rr(keys, k);
	}
	ldns_rr_list_push_rr(keys, ldns_rr_clone(t.dnskey)); /* the real one */
	for(i = 0; i < 10; i++) {
		ldns_rr* s = ldns_rr_clone(ldns_rr_list_rr(good, 0));
		size_t sl;
		sigbytes(s, &sl)[i] ^= 0x40;
		ldns_rr_list_push_rr(sigs, s);
	}
	ks = val_keyset_create(keys);
	assert_non_null(ks);
	assert_int_equal(val_keyset_count(ks), 20);
	val_budget_init(&b);
	c0 = clock();
	assert_int_equal(val_verify_rrset(ctx, a, sigs, ks, &set, NOW, &b,
		&res), SEC_BOGUS);
	ms = (double)(clock() - c0) * 1000.0 / CLOCKS_PER_SEC;
	assert_int_equal(res.verifications, 8);
	assert_string_equal(res.reason.text, "too many RRSIG validations");
	assert_int_equal(b.msg_used, 8);
	assert_true(ms < 1000.0);
	/* the message's budget is spent: the next RRset waits */
	assert_true(val_budget_exhausted(&b));
	assert_int_equal(val_verify_rrset(ctx, a, good, ks, &set, NOW, &b,
		&res), SEC_UNCHECKED);
	assert_true(res.budget_exhausted);
	assert_int_equal(res.verifications, 0);
	assert_true(val_budget_resume(&b));
	/* after the suspend: the good signature against the 20 keys (the
	 * real key is last: 19 tries fail first, so the limit still says
	 * bogus) */
	assert_int_equal(val_verify_rrset(ctx, a, good, ks, &set, NOW, &b,
		&res), SEC_BOGUS);
	assert_int_equal(res.verifications, 8);
	assert_int_equal(b.total, 16);
	/* without the colliding keys it is fine */
	{
		struct val_keyset* one = keyset_of(t.dnskey);
		assert_true(val_budget_resume(&b));
		assert_int_equal(val_verify_rrset(ctx, a, good, one, &set, NOW,
			&b, &res), SEC_SECURE);
		val_keyset_delete(one);
	}
	/* too many suspends */
	b.suspends = b.suspend_max;
	assert_false(val_budget_resume(&b));
	assert_int_equal(val_budget_reason().ede, VAL_EDE_DNSSEC_BOGUS);

	/* DS matching: the DS is for the real key, behind 19 colliding
	 * ones: 4 failed digests and it stops, bogus */
	{
		ldns_rr_list* ds = list1(ldns_key_rr2ds(t.dnskey, LDNS_SHA256));
		ldns_rr_list* ksigs = sign(keys, &t, NULL);
		ldns_rr_list* few = ldns_rr_list_new();
		assert_int_equal(val_verify_dnskey_with_ds(ctx, keys, ksigs, ds,
			&set, NOW, NULL, &res, NULL), SEC_BOGUS);
		assert_string_equal(res.reason.text, "DS hash mismatches key");
		assert_int_equal(res.verifications, 0);
		/* 3 colliding keys before it: within the limit */
		for(i = 0; i < 3; i++)
			ldns_rr_list_push_rr(few, ldns_rr_clone(
				ldns_rr_list_rr(keys, (size_t)i)));
		ldns_rr_list_push_rr(few, ldns_rr_clone(t.dnskey));
		ldns_rr_list_deep_free(ksigs);
		ksigs = sign(few, &t, NULL);
		assert_int_equal(val_verify_dnskey_with_ds(ctx, few, ksigs, ds,
			&set, NOW, NULL, &res, NULL), SEC_SECURE);
		ldns_rr_list_deep_free(ksigs);
		ldns_rr_list_deep_free(few);
		ldns_rr_list_deep_free(ds);
	}

	val_keyset_delete(ks);
	ldns_rr_list_deep_free(keys);
	ldns_rr_list_deep_free(sigs);
	ldns_rr_list_deep_free(good);
	ldns_rr_list_deep_free(a);
	freekey(&t);
}

/* malformed keys and signatures: bogus, no crash */
static void test_malformed(void** state)
{
	/* (algorithm, key in base64) whose material cannot be a key */
	static const struct { int alg; const char* b64; } bad[] = {
		{ 8, "BAEAAQ==" },          /* exponent length 4 > what is left */
		{ 8, "AAAB" },              /* 0 then a truncated length */
		{ 8, "AAAEAQAB" },          /* long form, no modulus */
		{ 8, "AwEAAQ==" },          /* exponent only */
		{ 8, "CQEBAQEBAQEBAQEB" },  /* 9-octet exponent */
		{ 13, "AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyAhIiMkJSYnKCkq"
			"KywtLi8wMTIzNDU2Nzg5Ojs8PT4/" }, /* 63 octets */
		{ 13, "AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyAhIiMkJSYnKCkq"
			"KywtLi8wMTIzNDU2Nzg5Ojs8PT4/QA==" }, /* 64, not on curve */
		{ 14, "AQID" },
		{ 15, "AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHw==" }, /* 31 */
		{ 16, "AQID" }
	};
	struct tkey t = mkkey(LDNS_SIGN_ECDSAP256SHA256, "example.", 256);
	ldns_rr_list* a = list("www.example. 3600 IN A 192.0.2.1", NULL);
	ldns_rr_list* sigs = sign(a, &t, NULL);
	struct val_verify_result res;
	size_t i, sl;
	(void)state;
	for(i = 0; i < sizeof(bad)/sizeof(bad[0]); i++) {
		char txt[512];
		ldns_rr* k;
		ldns_rr_list* kl;
		struct val_keyset* ks;
		ldns_rr* s = ldns_rr_list_rr(sigs, 0);
		uint8_t* p;
		snprintf(txt, sizeof(txt), "example. 3600 IN DNSKEY 256 3 %d %s",
			bad[i].alg, bad[i].b64);
		k = rr(txt);
		kl = list1(k);
		ks = val_keyset_create(kl);
		assert_non_null(ks);
		/* point the RRSIG at this key */
		ldns_rdf_data(ldns_rr_rdf(s, 1))[0] = (uint8_t)bad[i].alg;
		p = ldns_rdf_data(ldns_rr_rdf(s, 6));
		p[0] = (uint8_t)(tag_of(k) >> 8);
		p[1] = (uint8_t)tag_of(k);
		assert_int_equal(verify(a, sigs, ks, NOW, &res), SEC_BOGUS);
		assert_int_equal(res.verifications, 0);
		assert_string_equal(res.reason.text, "signature crypto failed");
		val_keyset_delete(ks);
		ldns_rr_list_deep_free(kl);
	}
	ldns_rr_list_deep_free(sigs);

	/* short or long ECDSA signatures */
	sigs = sign(a, &t, NULL);
	{
		struct val_keyset* ks = keyset_of(t.dnskey);
		ldns_rdf* f = ldns_rr_rdf(ldns_rr_list_rr(sigs, 0), 8);
		sl = ldns_rdf_size(f);
		ldns_rdf_set_size(f, sl - 1);
		assert_int_equal(verify(a, sigs, ks, NOW, &res), SEC_BOGUS);
		ldns_rdf_set_size(f, sl);
		/* r = 0 (all zero octets) */
		memset(ldns_rdf_data(f), 0, 32);
		assert_int_equal(verify(a, sigs, ks, NOW, &res), SEC_BOGUS);
		val_keyset_delete(ks);
	}
	ldns_rr_list_deep_free(sigs);

	/* a key set of the wrong type, mixed owners, nothing */
	{
		ldns_rr_list* l = list("example. IN A 192.0.2.1", NULL);
		assert_null(val_keyset_create(l));
		ldns_rr_list_deep_free(l);
		l = list("example. IN DNSKEY 256 3 13 AQID",
			"other. IN DNSKEY 256 3 13 AQID", NULL);
		assert_null(val_keyset_create(l));
		ldns_rr_list_deep_free(l);
		assert_null(val_keyset_create(NULL));
		l = list("example. IN DNSKEY 256 3 13 AQID",
			"EXAMPLE. IN DNSKEY 257 3 13 AQID", NULL);
		{
			struct val_keyset* ks = val_keyset_create(l);
			size_t ol;
			assert_non_null(ks);
			assert_memory_equal(val_keyset_owner(ks, &ol),
				"\007example", 9);
			assert_int_equal(ol, 9);
			val_keyset_delete(ks);
		}
		ldns_rr_list_deep_free(l);
	}
	ldns_rr_list_deep_free(a);
	freekey(&t);
}

/* random key material and signatures of random lengths for every
 * algorithm: always bogus, never a crash (run under ASan/UBSan) */
static void test_random_garbage(void** state)
{
	struct tkey t = mkkey(LDNS_SIGN_ED25519, "example.", 256);
	ldns_rr_list* a = list("www.example. 3600 IN A 192.0.2.1", NULL);
	ldns_rr_list* sigs = sign(a, &t, NULL);
	ldns_rr* sig = ldns_rr_list_rr(sigs, 0);
	struct val_verify_result res;
	unsigned seed = 12345;
	int i;
	size_t j;
	(void)state;
	for(i = 0; i < 400; i++) {
		uint8_t key[600], sg[600];
		size_t klen = 1 + (size_t)(rand_r(&seed) % 560);
		size_t slen = 1 + (size_t)(rand_r(&seed) % 560);
		int alg = (int)algs[(size_t)rand_r(&seed) % NALGS];
		ldns_rr* k = ldns_rr_new();
		ldns_rr_list* kl;
		struct val_keyset* ks;
		ldns_rdf* old;
		uint16_t tag;
		uint8_t* p;
		/* sometimes the real lengths, to get past the size checks */
		if(i % 4 == 0)
			klen = (alg == 13) ? 64 : (alg == 14) ? 96 :
				(alg == 15) ? 32 : (alg == 16) ? 57 : klen;
		if(i % 3 == 0)
			slen = (alg == 13 || alg == 15) ? 64 : (alg == 14) ?
				96 : (alg == 16) ? 114 : 128;
		for(j = 0; j < klen; j++)
			key[j] = (uint8_t)rand_r(&seed);
		for(j = 0; j < slen; j++)
			sg[j] = (uint8_t)rand_r(&seed);
		if(alg < 13 && i % 2 == 0)
			key[0] = (uint8_t)(1 + rand_r(&seed) % 4);
		ldns_rr_set_type(k, LDNS_RR_TYPE_DNSKEY);
		ldns_rr_set_class(k, LDNS_RR_CLASS_IN);
		ldns_rr_set_owner(k, ldns_dname_new_frm_str("example."));
		ldns_rr_push_rdf(k, ldns_native2rdf_int16(LDNS_RDF_TYPE_INT16,
			256));
		ldns_rr_push_rdf(k, ldns_native2rdf_int8(LDNS_RDF_TYPE_INT8, 3));
		ldns_rr_push_rdf(k, ldns_native2rdf_int8(LDNS_RDF_TYPE_ALG,
			(uint8_t)alg));
		ldns_rr_push_rdf(k, ldns_rdf_new_frm_data(LDNS_RDF_TYPE_B64,
			klen, key));
		tag = ldns_calc_keytag(k);
		kl = list1(k);
		ks = val_keyset_create(kl);
		assert_non_null(ks);
		ldns_rdf_data(ldns_rr_rdf(sig, 1))[0] = (uint8_t)alg;
		p = ldns_rdf_data(ldns_rr_rdf(sig, 6));
		p[0] = (uint8_t)(tag >> 8);
		p[1] = (uint8_t)tag;
		old = ldns_rr_set_rdf(sig, ldns_rdf_new_frm_data(
			LDNS_RDF_TYPE_B64, slen, sg), 8);
		ldns_rdf_deep_free(old);
		assert_int_equal(verify(a, sigs, ks, NOW, &res), SEC_BOGUS);
		assert_non_null(res.reason.text);
		val_keyset_delete(ks);
		ldns_rr_list_deep_free(kl);
	}
	ldns_rr_list_deep_free(sigs);
	ldns_rr_list_deep_free(a);
	freekey(&t);
}

/* one key set shared by 4 threads, its keys not parsed yet: each
 * thread has its own context; all checks are secure (the lazy parse
 * publishes one EVP_PKEY per key, the losers free theirs) */
struct thr_arg {
	struct val_keyset* ks;
	ldns_rr_list* a;
	ldns_rr_list* sigs;
	int secure;
};

static void* thr_verify(void* p)
{
	struct thr_arg* arg = p;
	struct val_sig_ctx* c = val_sig_ctx_create();
	struct val_verify_result res;
	int i;
	if(!c)
		return NULL;
	for(i = 0; i < 50; i++)
		if(val_verify_rrset(c, arg->a, arg->sigs, arg->ks, &set, NOW,
			NULL, &res) == SEC_SECURE)
			arg->secure++;
	val_sig_ctx_delete(c);
	return NULL;
}

static void test_threads(void** state)
{
	struct tkey k1 = mkkey(LDNS_SIGN_RSASHA256, "example.", 256);
	struct tkey k2 = mkkey(LDNS_SIGN_ECDSAP256SHA256, "example.", 256);
	ldns_rr_list* keys = ldns_rr_list_new();
	ldns_rr_list* a = list("www.example. 3600 IN A 192.0.2.1", NULL);
	ldns_rr_list* s1 = sign(a, &k1, NULL);
	ldns_rr_list* s2 = sign(a, &k2, NULL);
	struct val_keyset* ks;
	struct thr_arg args[4];
	pthread_t th[4];
	int i;
	(void)state;
	ldns_rr_list_push_rr(keys, ldns_rr_clone(k1.dnskey));
	ldns_rr_list_push_rr(keys, ldns_rr_clone(k2.dnskey));
	ks = val_keyset_create(keys);
	assert_non_null(ks);
	for(i = 0; i < 4; i++) {
		args[i].ks = ks;
		args[i].a = a;
		args[i].sigs = (i & 1) ? s2 : s1;
		args[i].secure = 0;
		assert_int_equal(pthread_create(&th[i], NULL, thr_verify,
			&args[i]), 0);
	}
	for(i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(args[i].secure, 50);
	}
	val_keyset_delete(ks);
	ldns_rr_list_deep_free(keys);
	ldns_rr_list_deep_free(s1);
	ldns_rr_list_deep_free(s2);
	ldns_rr_list_deep_free(a);
	freekey(&k1);
	freekey(&k2);
}

/* verify cost per algorithm (figures for the report) */
static void test_cost(void** state)
{
	size_t i;
	int n, loops = getenv("VAL_SIG_BENCH") ? 2000 : 100;
	(void)state;
	for(i = 0; i < NALGS; i++) {
		struct tkey t = mkkey(algs[i], "example.", 256);
		ldns_rr_list* a = list("www.example. 3600 IN A 192.0.2.1",
			"www.example. 3600 IN A 192.0.2.2", NULL);
		ldns_rr_list* sigs = sign(a, &t, NULL);
		struct val_keyset* ks = keyset_of(t.dnskey);
		struct val_verify_result res;
		struct timespec t0, t1;
		double us;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for(n = 0; n < loops; n++) {
			/* the public-key operation, not the cache of
			 * verified signatures */
			val_sig_ctx_forget(ctx);
			assert_int_equal(verify(a, sigs, ks, NOW, &res),
				SEC_SECURE);
			assert_int_equal(res.verifications, 1);
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		us = ((double)(t1.tv_sec - t0.tv_sec) * 1e6 +
			(double)(t1.tv_nsec - t0.tv_nsec) / 1e3) / loops;
		printf("verify %-20s %8.1f us per RRset (%d loops)\n",
			ldns_lookup_by_id(ldns_algorithms, (int)algs[i]) ?
			ldns_lookup_by_id(ldns_algorithms, (int)algs[i])->name
			: "?", us, loops);
		val_keyset_delete(ks);
		ldns_rr_list_deep_free(sigs);
		ldns_rr_list_deep_free(a);
		freekey(&t);
	}
}

/* The cache of verified signatures answers only the exact key,
 * signature and signed data that verified; dates are still checked. */
static void test_verified_cache(void** state)
{
	/* RSA: a key with one octet moved (same_tag_key) is still a key */
	struct tkey t = mkkey(LDNS_SIGN_RSASHA256, "example.", 256);
	ldns_rr_list* a = list("www.example. 3600 IN A 192.0.2.1", NULL);
	ldns_rr_list* b = list("www.example. 3600 IN A 192.0.2.2", NULL);
	ldns_rr_list* sigs = sign(a, &t, NULL);
	ldns_rr_list* bad = ldns_rr_list_clone(sigs);
	struct val_keyset* ks = keyset_of(t.dnskey);
	struct val_keyset* ks2;
	struct val_verify_result res;
	ldns_rr* k2;
	size_t sl;
	(void)state;
	val_sig_ctx_forget(ctx);
	assert_int_equal(verify(a, sigs, ks, NOW, &res), SEC_SECURE);
	assert_int_equal(res.verifications, 1);
	/* again: from the cache, no public-key operation */
	assert_int_equal(verify(a, sigs, ks, NOW, &res), SEC_SECURE);
	assert_int_equal(res.verifications, 0);
	/* other data under the same signature: verified, and fails */
	assert_int_equal(verify(b, sigs, ks, NOW, &res), SEC_BOGUS);
	assert_int_equal(res.verifications, 1);
	/* one bit of the signature changed */
	sigbytes(ldns_rr_list_rr(bad, 0), &sl)[sl / 2] ^= 0x01;
	assert_int_equal(verify(a, bad, ks, NOW, &res), SEC_BOGUS);
	assert_int_equal(res.verifications, 1);
	/* another key with the first key's tag: the signature and the
	 * signed data are the cached ones, the key's bytes are not, so it
	 * is verified (and fails) */
	k2 = same_tag_key(t.dnskey, 0);
	assert_int_equal(tag_of(k2), tag_of(t.dnskey));
	ks2 = keyset_of(k2);
	assert_int_equal(verify(a, sigs, ks2, NOW, &res), SEC_BOGUS);
	assert_int_equal(res.verifications, 1);
	val_keyset_delete(ks2);
	ldns_rr_free(k2);
	/* cached, but expired now: the dates come first */
	assert_int_equal(verify(a, sigs, ks, EXPI + 86400 + 10, &res),
		SEC_BOGUS);
	assert_string_equal(res.reason.text, "signature expired");
	/* forgotten: verified again */
	val_sig_ctx_forget(ctx);
	assert_int_equal(verify(a, sigs, ks, NOW, &res), SEC_SECURE);
	assert_int_equal(res.verifications, 1);
	val_keyset_delete(ks);
	ldns_rr_list_deep_free(sigs);
	ldns_rr_list_deep_free(bad);
	ldns_rr_list_deep_free(a);
	ldns_rr_list_deep_free(b);
	freekey(&t);
}

/* The per-thread key set cache: the same DNSKEY RRs (owner case
 * aside) give the same set back, other RDATA a new one; every reference
 * is freed (ASan checks the counts). */
static void test_keyset_cache(void** state)
{
	struct tkey t = mkkey(LDNS_SIGN_RSASHA256, "example.", 257);
	ldns_rr* other = same_tag_key(t.dnskey, 0);
	ldns_rr_list* l1 = list1(ldns_rr_clone(t.dnskey));
	ldns_rr_list* l2 = list1(ldns_rr_clone(t.dnskey));
	ldns_rr_list* l3 = list1(other);
	ldns_rr_list* a = list("www.example. 3600 IN A 192.0.2.1", NULL);
	ldns_rr_list* sigs = sign(a, &t, NULL);
	struct val_keyset* k1, *k2, *k3;
	struct val_verify_result res;
	size_t i;
	(void)state;
	val_sig_ctx_forget(ctx);
	ldns_dname2canonical(ldns_rr_owner(ldns_rr_list_rr(l2, 0)));
	ldns_rdf_data(ldns_rr_owner(ldns_rr_list_rr(l2, 0)))[1] = 'E';
	k1 = val_sig_ctx_keyset(ctx, l1);
	k2 = val_sig_ctx_keyset(ctx, l2);
	k3 = val_sig_ctx_keyset(ctx, l3);
	assert_non_null(k1);
	assert_ptr_equal(k1, k2);
	assert_non_null(k3);
	assert_ptr_not_equal(k1, k3);
	assert_int_equal(verify(a, sigs, k1, NOW, &res), SEC_SECURE);
	assert_int_equal(verify(a, sigs, k3, NOW, &res), SEC_BOGUS);
	val_keyset_delete(k1);
	val_keyset_delete(k2);
	/* still cached: the same set, its key parsed already */
	k2 = val_sig_ctx_keyset(ctx, l1);
	assert_ptr_equal(k1, k2);
	val_keyset_delete(k2);
	/* more sets than slots: the first is replaced, k3 kept alive by
	 * its reference */
	for(i = 0; i < 20; i++) {
		ldns_rr* k = same_tag_key(t.dnskey, (int)(i % 8));
		ldns_rr_list* l;
		struct val_keyset* ks;
		ldns_rdf_data(ldns_rr_rdf(k, 3))[20] ^= (uint8_t)(i + 1);
		l = list1(k);
		ks = val_sig_ctx_keyset(ctx, l);
		assert_non_null(ks);
		val_keyset_delete(ks);
		ldns_rr_list_deep_free(l);
	}
	assert_int_equal(val_keyset_count(k3), 1);
	val_keyset_delete(k3);
	val_sig_ctx_forget(ctx);
	ldns_rr_list_deep_free(l1);
	ldns_rr_list_deep_free(l2);
	ldns_rr_list_deep_free(l3);
	ldns_rr_list_deep_free(a);
	ldns_rr_list_deep_free(sigs);
	freekey(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_supported),
		cmocka_unit_test(test_keytag),
		cmocka_unit_test(test_each_algorithm),
		cmocka_unit_test(test_fake_algorithms),
		cmocka_unit_test(test_dates),
		cmocka_unit_test(test_ttl),
		cmocka_unit_test(test_sig_selection),
		cmocka_unit_test(test_wildcard),
		cmocka_unit_test(test_verified_cache),
		cmocka_unit_test(test_keyset_cache),
		cmocka_unit_test(test_canonical),
		cmocka_unit_test(test_canonical_nsec),
		cmocka_unit_test(test_ds_digest),
		cmocka_unit_test(test_dnskey_with_ds),
		cmocka_unit_test(test_ds_unsupported),
		cmocka_unit_test(test_ds_no_zone_flag),
		cmocka_unit_test(test_harden_algo),
		cmocka_unit_test(test_keytrap),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_random_garbage),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_cost),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
