/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/fuzz/fuzz_validate.c - DNSSEC validation of a signed reply:
 * the signature code (val_sig.h: key parsing, canonical form, RRSIG
 * checks, DS matching, the KeyTrap budget) and the denial proofs
 * (val_nsec.h, val_nsec3.h), on what an attacker's server can send.
 *
 * The input is one DNS message: the answer section holds the RRsets
 * to check with their RRSIGs, the authority section the zone's DNSKEY
 * set with its RRSIGs and the NSEC/NSEC3 records, the additional
 * section the DS set the DNSKEYs are checked against. The keys are
 * trusted as given (the walk that trusts them is the mesh's); every
 * answer RRset is verified with them, the DNSKEY set with the DS set,
 * and each denial proof runs for the question. Checked besides the
 * sanitizers: an RRset's verifications stay within the per-RRset bound
 * (KeyTrap), and the NSEC3 hashing within its per-run budget. */
#include "config.h"
#include "testdata/fuzz/fuzz_env.h"
#include "validator/val_sig.h"
#include "validator/val_nsec.h"
#include "validator/val_nsec3.h"
#include "validator/val_nsec3_iter.h"
#include "util/dname.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Signatures in the seeds are made for this time (the fuzzer's clock
 * must not change what an input does). */
#define FUZZ_NOW 1795623325

static struct val_sig_ctx* ctx;
static struct nsec3_iter_table iters;

/* The RRs of list with type t (RRSIGs: covering t), shallow. */
static ldns_rr_list* pick(const ldns_rr_list* list, ldns_rr_type t, int sigs,
	const ldns_rdf* owner)
{
	ldns_rr_list* out = ldns_rr_list_new();
	size_t i;
	for(i = 0; out && i < ldns_rr_list_rr_count(list); i++) {
		ldns_rr* rr = ldns_rr_list_rr(list, i);
		ldns_rr_type rt = ldns_rr_get_type(rr);
		if(sigs ? (rt != LDNS_RR_TYPE_RRSIG ||
			!ldns_rr_rrsig_typecovered(rr) || ldns_rdf2rr_type(
			ldns_rr_rrsig_typecovered(rr)) != t) : rt != t)
			continue;
		if(owner && ldns_dname_compare(ldns_rr_owner(rr), owner) != 0)
			continue;
		ldns_rr_list_push_rr(out, rr);
	}
	return out;
}

/* Verify each RRset of the answer with keys. */
static void verify_answer(const ldns_pkt* p, const struct val_keyset* keys,
	const struct val_sig_settings* set)
{
	const ldns_rr_list* an = ldns_pkt_answer(p);
	size_t i;
	for(i = 0; i < ldns_rr_list_rr_count(an); i++) {
		ldns_rr* rr = ldns_rr_list_rr(an, i);
		ldns_rr_list* rrset, *sigs;
		struct val_verify_result res;
		struct val_budget b;
		if(ldns_rr_get_type(rr) == LDNS_RR_TYPE_RRSIG)
			continue;
		rrset = pick(an, ldns_rr_get_type(rr), 0, ldns_rr_owner(rr));
		sigs = pick(an, ldns_rr_get_type(rr), 1, ldns_rr_owner(rr));
		memset(&res, 0, sizeof(res));
		val_budget_init(&b);
		if(rrset && sigs)
			(void)val_verify_rrset(ctx, rrset, sigs, keys, set,
				FUZZ_NOW, &b, &res);
		if(res.verifications > VAL_MAX_VERIFY_PER_RRSET) {
			fprintf(stderr, "%d verifications for one RRset\n",
				res.verifications);
			abort();
		}
		ldns_rr_list_free(rrset);
		ldns_rr_list_free(sigs);
	}
}

/* The denial proofs for the question, with NSEC and with NSEC3. */
static void proofs(const ldns_pkt* p, const ldns_rr_list* dnskeys)
{
	const ldns_rr_list* au = ldns_pkt_authority(p);
	ldns_rr* q = ldns_rr_list_rr(ldns_pkt_question(p), 0);
	uint8_t qname[LDNS_MAX_DOMAINLEN + 1], wc[LDNS_MAX_DOMAINLEN + 1];
	ldns_rr_list* nsec = pick(au, LDNS_RR_TYPE_NSEC, 0, NULL);
	ldns_rr_list* nsec3 = pick(au, LDNS_RR_TYPE_NSEC3, 0, NULL);
	struct nsec3_hash_cache cache;
	struct nsec3_budget budget;
	struct val_nsec3_env e;
	struct val_reason why;
	uint16_t qtype;
	size_t before;
	int nodata;
	if(!q || !nsec || !nsec3 || ldns_rdf_size(ldns_rr_owner(q)) >
		sizeof(qname))
		goto out;
	memcpy(qname, ldns_rdf_data(ldns_rr_owner(q)),
		ldns_rdf_size(ldns_rr_owner(q)));
	qtype = (uint16_t)ldns_rr_get_type(q);
	/* the wildcard's closest encloser: the name without its label */
	memcpy(wc, qname[0] ? qname + 1 + qname[0] : qname,
		sizeof(wc) - (qname[0] ? 1u + qname[0] : 0u));
	(void)val_nsec_prove_nxdomain(nsec, qname, &why);
	(void)val_nsec_prove_nodata(nsec, qname, qtype, &why);
	(void)val_nsec_prove_nods(nsec, qname, &why);
	(void)val_nsec_prove_wildcard_answer(nsec, qname, wc, &why);
	val_nsec3_cache_init(&cache);
	e.max_iterations = val_nsec3_iter_max(&iters,
		val_nsec3_zone_keysize(dnskeys));
	e.cache = &cache;
	e.budget = &budget;
	budget.left = NSEC3_HASH_BUDGET;
	budget.exhausted = 0;
	before = cache.computed;
	(void)val_nsec3_prove_nxornodata(nsec3, qname, qtype, &e, &why,
		&nodata);
	if(cache.computed - before > NSEC3_HASH_BUDGET) {
		fprintf(stderr, "%zu NSEC3 hashes in one run\n",
			cache.computed - before);
		abort();
	}
	budget.left = NSEC3_HASH_BUDGET;
	(void)val_nsec3_prove_nods(nsec3, qname, &e, &why);
	budget.left = NSEC3_HASH_BUDGET;
	(void)val_nsec3_prove_wildcard_answer(nsec3, qname, wc, &e, &why);
	val_nsec3_cache_clear(&cache);
out:
	ldns_rr_list_free(nsec);
	ldns_rr_list_free(nsec3);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	ldns_pkt* p = NULL;
	ldns_rr_list* dnskeys, *keysigs, *ds;
	struct val_keyset* keys = NULL, *fromds = NULL;
	struct val_sig_settings set;
	struct val_verify_result res;
	struct val_budget b;
	char err[64];
	if(!ctx) {
		fuzz_quiet_logs();
		ctx = val_sig_ctx_create();
		if(!ctx || !val_nsec3_iter_parse(NSEC3_ITER_DEFAULT, &iters,
			err,
			sizeof(err)))
			abort();
	}
	if(ldns_wire2pkt(&p, data, size) != LDNS_STATUS_OK)
		return 0;
	val_sig_settings_init(&set);
	set.harden_algo_downgrade = (ldns_pkt_id(p) & 1) != 0;
	dnskeys = pick(ldns_pkt_authority(p), LDNS_RR_TYPE_DNSKEY, 0, NULL);
	keysigs = pick(ldns_pkt_authority(p), LDNS_RR_TYPE_DNSKEY, 1, NULL);
	ds = pick(ldns_pkt_additional(p), LDNS_RR_TYPE_DS, 0, NULL);
	if(dnskeys && ldns_rr_list_rr_count(dnskeys) > 0)
		keys = val_keyset_create(dnskeys);
	if(keys)
		verify_answer(p, keys, &set);
	if(dnskeys && ds && ldns_rr_list_rr_count(ds) > 0) {
		memset(&res, 0, sizeof(res));
		val_budget_init(&b);
		(void)val_verify_dnskey_with_ds(ctx, dnskeys, keysigs, ds, &set,
			FUZZ_NOW, &b, &res, &fromds);
		(void)val_favorite_ds_digest(ds);
		memset(&res, 0, sizeof(res));
		val_budget_init(&b);
		/* the same keys as a DNSKEY anchor */
		val_keyset_delete(fromds);
		fromds = NULL;
		(void)val_verify_dnskey_with_keys(ctx, dnskeys, keysigs,
			dnskeys, &set, FUZZ_NOW, &b, &res, &fromds);
	}
	proofs(p, dnskeys);
	val_keyset_delete(keys);
	val_keyset_delete(fromds);
	ldns_rr_list_free(dnskeys);
	ldns_rr_list_free(keysigs);
	ldns_rr_list_free(ds);
	ldns_pkt_free(p);
	return 0;
}
