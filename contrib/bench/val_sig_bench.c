/* SPDX-License-Identifier: BSD-3-Clause */
/* contrib/bench/val_sig_bench.c - cost of one RRset signature check per
 * algorithm (an A RRset of 2 RRs, ldns-signed), in CPU microseconds:
 *   full:   val_verify_rrset (canonical form, signed data, verify) with a
 *           key set whose key is already parsed (the key cache's case)
 *   crypto: the OpenSSL verify alone on the prepared signed data
 *   ldns:   ldns_verify_rrsig, for comparison (parses the key each time)
 * full - crypto is this code's own overhead. CPU time (not wall time)
 * so other load on the machine counts less; for exact figures use
 *   valgrind --tool=callgrind --toggle-collect=bench_full ./val_sig_bench
 * and divide Ir by the loop count (-n, default 2000); -a ALG runs one
 * algorithm only, -b BITS sets the RSA key size (default 2048).
 * Build: make bench-valsig (in the build directory). */
#include "config.h"
#include "validator/val_sig_int.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOW ((time_t)1700000000)

static double cpu_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static ldns_rr* mkrr(const char* s)
{
	ldns_rr* r = NULL;
	if(ldns_rr_new_frm_str(&r, s, 3600, NULL, NULL) != LDNS_STATUS_OK)
		exit(1);
	return r;
}

/* separate functions so callgrind can count each loop on its own */
__attribute__((noinline)) static void bench_full(struct val_sig_ctx* ctx,
	ldns_rr_list* a, ldns_rr_list* sigs, struct val_keyset* ks,
	const struct val_sig_settings* set, int n)
{
	struct val_verify_result res;
	int i;
	for(i = 0; i < n; i++)
		if(val_verify_rrset(ctx, a, sigs, ks, set, NOW, NULL, &res)
			!= SEC_SECURE)
			exit(2);
}

__attribute__((noinline)) static void bench_crypto(struct val_sig_ctx* ctx,
	int alg, EVP_PKEY* pk, const struct val_rrsig* s, size_t len, int n)
{
	int i;
	for(i = 0; i < n; i++)
		if(!val_crypto_verify(ctx, alg, pk, s->sig, s->siglen,
			ctx->buf, len))
			exit(3);
}

__attribute__((noinline)) static void bench_ldns(ldns_rr_list* a,
	ldns_rr* sig, ldns_rr_list* keys, int n)
{
	int i;
	for(i = 0; i < n; i++) {
		ldns_rr_list* good = ldns_rr_list_new();
		if(ldns_verify_rrsig_keylist_notime(a, sig, keys, good)
			!= LDNS_STATUS_OK)
			exit(4);
		ldns_rr_list_free(good);
	}
}

int main(int argc, char** argv)
{
	static const ldns_signing_algorithm algs[] = {
		LDNS_SIGN_RSASHA1, LDNS_SIGN_RSASHA256, LDNS_SIGN_RSASHA512,
		LDNS_SIGN_ECDSAP256SHA256, LDNS_SIGN_ECDSAP384SHA384,
		LDNS_SIGN_ED25519, LDNS_SIGN_ED448 };
	struct val_sig_ctx* ctx = val_sig_ctx_create();
	struct val_sig_settings set;
	int n = 2000, bits = 2048, only = 0;
	size_t i;
	for(i = 1; i + 1 < (size_t)argc; i += 2) {
		if(strcmp(argv[i], "-n") == 0) n = atoi(argv[i+1]);
		if(strcmp(argv[i], "-b") == 0) bits = atoi(argv[i+1]);
		if(strcmp(argv[i], "-a") == 0) only = atoi(argv[i+1]);
	}
	val_sig_settings_init(&set);
	printf("%-18s %9s %9s %9s  (CPU us per RRset, %d loops, RSA %d)\n",
		"algorithm", "full", "crypto", "ldns", n, bits);
	for(i = 0; i < sizeof(algs)/sizeof(algs[0]); i++) {
		ldns_key* k = ldns_key_new_frm_algorithm(algs[i], (uint16_t)bits);
		ldns_key_list* kl = ldns_key_list_new();
		ldns_rr_list* a = ldns_rr_list_new();
		ldns_rr_list* keys = ldns_rr_list_new();
		ldns_rr_list* sigs;
		struct val_keyset* ks;
		struct val_rrsig s;
		size_t len;
		double t0, t1, t2, t3;
		if(only && (int)algs[i] != only) {
			ldns_key_deep_free(k);
			ldns_key_list_free(kl);
			ldns_rr_list_free(a);
			ldns_rr_list_free(keys);
			continue;
		}
		ldns_key_set_pubkey_owner(k, ldns_dname_new_frm_str("example."));
		ldns_key_set_flags(k, 256);
		ldns_key_set_inception(k, (uint32_t)NOW - 3600);
		ldns_key_set_expiration(k, (uint32_t)NOW + 86400*30);
		ldns_rr_list_push_rr(keys, ldns_key2rr(k));
		ldns_key_set_keytag(k, ldns_calc_keytag(ldns_rr_list_rr(keys, 0)));
		ldns_key_list_push_key(kl, k);
		ldns_rr_list_push_rr(a, mkrr("www.example. 3600 IN A 192.0.2.1"));
		ldns_rr_list_push_rr(a, mkrr("www.example. 3600 IN A 192.0.2.2"));
		sigs = ldns_sign_public(a, kl);
		ks = val_keyset_create(keys);
		if(!sigs || !ks || !ctx)
			return 1;
		(void)val_key_pkey(&ks->keys[0]); /* parsed once, as cached */
		val_rrsig_parse(ldns_rr_list_rr(sigs, 0), &s);
		val_canon_rrset(ctx, a);
		len = val_canon_signed_data(ctx, &s);
		t0 = cpu_us();
		bench_full(ctx, a, sigs, ks, &set, n);
		t1 = cpu_us();
		bench_crypto(ctx, (int)algs[i], val_key_pkey(&ks->keys[0]), &s,
			len, n);
		t2 = cpu_us();
		bench_ldns(a, ldns_rr_list_rr(sigs, 0), keys, n);
		t3 = cpu_us();
		printf("%-18s %9.1f %9.1f %9.1f\n",
			ldns_lookup_by_id(ldns_algorithms, (int)algs[i])->name,
			(t1-t0)/n, (t2-t1)/n, (t3-t2)/n);
		val_keyset_delete(ks);
		ldns_rr_list_deep_free(sigs);
		ldns_rr_list_deep_free(a);
		ldns_rr_list_deep_free(keys);
		ldns_key_list_free(kl);
	}
	val_sig_ctx_delete(ctx);
	return 0;
}
