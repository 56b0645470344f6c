/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_nsec3.h - compat: unbound-1.17: authenticated denial of
 * existence with NSEC3 (RFC 5155 8, RFC 9276), with Unbound 1.17's rules and
 * Unbound 1.19.1's bound on hashing work (CVE-2023-50868).
 *
 * Inputs: a list of NSEC3 RRs whose signatures the caller has verified
 * (other types in the list are skipped), all of the query's class;
 * wire names (util/dname.h). Nothing is kept from the inputs after a
 * call returns; the hash cache copies what it keeps.
 *
 * Which NSEC3s count (Unbound's filter): those with hash algorithm 1
 * (SHA-1) and no flags but opt-out; others are ignored, as are
 * malformed ones (short rdata, salt or next-hash length past the rdata,
 * an owner label that is not base32hex). They belong to the zone
 * closest to qname that some usable NSEC3 is in (owner minus its first
 * label); for DS the zone may not be qname itself (the DS is in the
 * parent), except at the root. A next hash of another length than the
 * hash (e.g. zero) covers nothing.
 *
 * Results (enum sec_status):
 *   SEC_SECURE        proven;
 *   SEC_INSECURE      an NSEC3 of the zone has more iterations than
 *                     env->max_iterations (RFC 9276, Unbound 1.17: not
 *                     bogus), or an opt-out NSEC3 covers the next
 *                     closer name (RFC 5155 9.2: no AD bit), or the
 *                     closest encloser is a delegation without DS (the
 *                     name is below an unsigned delegation);
 *   SEC_INDETERMINATE (DS proof only) no delegation at qname;
 *   SEC_BOGUS         not proven, reason set (EDE 12 NSEC missing);
 *   VAL_NSEC3_SUSPEND the proof needs more hashes than env->budget has
 *                     left: keep env->cache, refill the budget (later,
 *                     e.g. after other queries had their turn) and call
 *                     again with the same arguments. Not bogus.
 * reason may be NULL; on SEC_INSECURE it says why, ede VAL_EDE_NONE. */
#ifndef VALIDATOR_VAL_NSEC3_H
#define VALIDATOR_VAL_NSEC3_H
#include <stddef.h>
#include <stdint.h>
#include <ldns/ldns.h>
#include "util/sec_status.h"
#include "validator/val_nsec3_hash.h"

/* compat: unbound-1.17: Distinct from every other result; the value Unbound
 * uses too. */
#define VAL_NSEC3_SUSPEND SEC_UNCHECKED

#define NSEC3_FLAG_OPTOUT 0x01

/* What a proof needs besides the records. cache and budget belong to
 * the caller's per-query state (see val_nsec3_hash.h). */
struct val_nsec3_env {
	/* val_nsec3_iter_max(table, val_nsec3_zone_keysize(zone DNSKEYs)) */
	size_t max_iterations;
	struct nsec3_hash_cache* cache;
	struct nsec3_budget* budget;
};

/* compat: unbound-1.17: NXDOMAIN: the closest provable encloser ce of qname
 * has a matching NSEC3 (not a delegation, not a DNAME), the next closer name
 * is covered, and *.ce is covered. SEC_INSECURE when the next closer's NSEC3
 * is opt-out (as Unbound: the name may be an unsigned delegation). */
enum sec_status val_nsec3_prove_nxdomain(const ldns_rr_list* nsec3s,
	const uint8_t* qname, const struct val_nsec3_env* env,
	struct val_reason* reason);

/* NODATA for (qname, qtype): a matching NSEC3 without qtype and CNAME
 * (for qtype DS: not the child apex, SOA bit; else: not a delegation);
 * or a closest encloser proof and a matching *.ce without qtype and
 * CNAME (wildcard NODATA); or a closest encloser proof whose next
 * closer is covered by an opt-out NSEC3: SEC_INSECURE. An empty
 * non-terminal has its own NSEC3 (RFC 5155 7.1) so matches directly. */
enum sec_status val_nsec3_prove_nodata(const ldns_rr_list* nsec3s,
	const uint8_t* qname, uint16_t qtype, const struct val_nsec3_env* env,
	struct val_reason* reason);

/* Positive answer from wildcard *.wc_ce (wc_ce from the RRSIG labels
 * field): the next closer name of qname below wc_ce is covered (no
 * closer match). */
enum sec_status val_nsec3_prove_wildcard_answer(const ldns_rr_list* nsec3s,
	const uint8_t* qname, const uint8_t* wc_ce,
	const struct val_nsec3_env* env, struct val_reason* reason);

/* NODATA answer to a DS query (or a referral without DS) for qname:
 *   SEC_SECURE        matching NSEC3 with NS, no DS, no SOA: no DS at
 *                     the delegation, the child is insecure;
 *   SEC_INSECURE      no matching NSEC3, a closest encloser proof, and
 *                     the next closer covered by an opt-out NSEC3: an
 *                     insecure delegation (or iterations too high);
 *   SEC_INDETERMINATE matching NSEC3 without NS: no delegation;
 *   SEC_BOGUS         DS bit, SOA bit (child apex NSEC3, qname not the
 *                     root), or no proof. */
enum sec_status val_nsec3_prove_nods(const ldns_rr_list* nsec3s,
	const uint8_t* qname, const struct val_nsec3_env* env,
	struct val_reason* reason);

/* NXDOMAIN or NODATA, whichever holds (for the end of a CNAME chain):
 * tries NXDOMAIN, then NODATA, sharing the cache. *nodata is set to 1
 * when it was NODATA that was proven. */
enum sec_status val_nsec3_prove_nxornodata(const ldns_rr_list* nsec3s,
	const uint8_t* qname, uint16_t qtype, const struct val_nsec3_env* env,
	struct val_reason* reason, int* nodata);

/* --- the pieces, for tests and the aggressive-NSEC3 cache ----------- */

/* Parsed fields of one NSEC3 RR; pointers into the RR. */
struct val_nsec3_rr {
	const ldns_rr* rr;
	const uint8_t* owner;      /* wire name */
	const uint8_t* zone;       /* owner minus its first label */
	uint8_t algo, flags;
	uint16_t iterations;
	const uint8_t* salt;
	size_t saltlen;
	const uint8_t* next;       /* next hashed owner, binary */
	size_t nextlen;
	const uint8_t* bitmap;
	size_t bitmaplen;
	uint8_t owner_hash[40];    /* the owner label, decoded */
	size_t owner_hashlen;      /* 0 when it is not base32hex */
};

/* 1 and *out filled for a well-formed NSEC3 RR, else 0. */
int val_nsec3_parse(const ldns_rr* rr, struct val_nsec3_rr* out);
/* Known hash algorithm and no flags other than opt-out. */
int val_nsec3_usable(const struct val_nsec3_rr* n);
int val_nsec3_has_type(const struct val_nsec3_rr* n, uint16_t type);
/* Does the NSEC3 cover hash (RFC 5155 8.3, with the wrap at the end of
 * the chain)? Lengths must agree with the owner's and next hash. */
int val_nsec3_covers_hash(const struct val_nsec3_rr* n, const uint8_t* hash,
	size_t hashlen);

#endif
