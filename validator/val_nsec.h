/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_nsec.h - compat: unbound-1.17: authenticated denial of
 * existence with NSEC (RFC 4035 5.4, RFC 4034 6.1 ordering), with Unbound
 * 1.17's rules.
 *
 * Every function here is pure: no allocation, no global state, no I/O.
 * The caller has already verified the signatures of the NSEC RRsets it
 * passes (all from the one zone that signed the answer) and passes only
 * RRs of the query's class. A list may hold other types: they are
 * skipped. Malformed NSEC RRs (bad owner, no next name) prove nothing.
 *
 * Names are uncompressed wire names (util/dname.h), compared without
 * regard to case. Results that point into a name point into the
 * caller's buffer and live as long as it does.
 *
 * Proof results (enum sec_status, util/sec_status.h):
 *   SEC_SECURE   the denial is proven;
 *   SEC_INSECURE an NSEC proves an unsigned delegation above the name:
 *                the answer comes from insecure space;
 *   SEC_BOGUS    not proven; *reason says why (EDE 12, NSEC missing,
 *                as Unbound sets for failed denials);
 *   SEC_INDETERMINATE (DS proof only) proven that there is no
 *                delegation at the name.
 * reason may be NULL; on non-bogus results it is set to
 * {NULL, VAL_EDE_NONE} except where a text says why it is insecure. */
#ifndef VALIDATOR_VAL_NSEC_H
#define VALIDATOR_VAL_NSEC_H
#include <stddef.h>
#include <stdint.h>
#include <ldns/ldns.h>
#include "util/sec_status.h"

/* --- names ------------------------------------------------------------ */

/* name is below zone and not equal to it. */
int val_dname_strict_subdomain(const uint8_t* name, const uint8_t* zone);
/* First label is "*". */
int val_dname_is_wild(const uint8_t* name);
/* The longest common suffix of name and other: a pointer into name. */
const uint8_t* val_dname_shared_suffix(const uint8_t* name,
	const uint8_t* other);
/* Strip n labels from the left (at most down to the root). */
const uint8_t* val_dname_strip(const uint8_t* name, int n);
/* Write "*." + ce into out (>= 256 bytes); 0 if the result is too long,
 * else its length. */
size_t val_dname_wildcard(const uint8_t* ce, uint8_t* out);

/* --- type bitmaps (RFC 4034 4.1.2) -------------------------------------- */

/* Is type in the window-block bitmap of len bytes? Malformed blocks
 * (length 0 or over 32, past the end, windows not ascending) end the
 * search with 0. */
int val_nsec_bitmap_has_type(const uint8_t* bitmap, size_t len,
	uint16_t type);

/* --- single NSEC records ---------------------------------------------- */

/* Owner and next name of an NSEC RR as wire names (pointers into the
 * RR, valid while it lives). 0 if it is not a well-formed NSEC. */
int val_nsec_names(const ldns_rr* nsec, const uint8_t** owner,
	const uint8_t** next);
/* Does the NSEC's bitmap list type? 0 also for malformed RRs. */
int val_nsec_has_type(const ldns_rr* nsec, uint16_t type);
/* Does the interval (owner, next) of one NSEC hold name? The last NSEC
 * of a zone has next = apex (next <= owner): it holds names after owner
 * below the apex; a single-NSEC zone (owner == next) holds every name
 * below the apex. */
int val_nsec_covers(const uint8_t* owner, const uint8_t* next,
	const uint8_t* name);
/* Does this NSEC prove that qname does not exist: covers it, and is not
 * a delegation (NS without SOA) or DNAME above qname (such an NSEC is
 * the parent side of a cut and says nothing about names below it), and
 * its next name is not below qname (qname is then an empty
 * non-terminal). */
int val_nsec_proves_name_error(const ldns_rr* nsec, const uint8_t* qname);
/* The closest encloser of qname that an NSEC covering qname shows: the
 * longer of qname's common suffix with the owner and with the next
 * name. A pointer into qname; NULL for a malformed NSEC. */
const uint8_t* val_nsec_closest_encloser(const ldns_rr* nsec,
	const uint8_t* qname);
/* Does this NSEC show an unsigned delegation at or above qname: NS
 * without DS and without SOA, owner at or above qname (strictly above
 * for qtype DS, where the NSEC at qname is the DS proof itself). */
int val_nsec_proves_insecure_delegation(const ldns_rr* nsec,
	const uint8_t* qname, uint16_t qtype);

/* --- proofs over the NSECs of one answer ---------------------------- */

/* NXDOMAIN: an NSEC proves qname does not exist, and an NSEC proves
 * *.ce does not exist, ce the closest encloser from the first NSEC.
 * SEC_INSECURE where an NSEC proves an unsigned delegation above. */
enum sec_status val_nsec_prove_nxdomain(const ldns_rr_list* nsecs,
	const uint8_t* qname, struct val_reason* reason);

/* NODATA for (qname, qtype): an NSEC at qname without qtype, CNAME and
 * (qtype != DS) not a delegation, or (qtype DS) not the child apex; or
 * qname is an empty non-terminal (an NSEC before it whose next name is
 * below it); or wildcard NODATA: the NSEC of *.ce lacks qtype and CNAME
 * and an NSEC proves qname does not exist with that same ce.
 * SEC_INSECURE where an NSEC proves an unsigned delegation above. */
enum sec_status val_nsec_prove_nodata(const ldns_rr_list* nsecs,
	const uint8_t* qname, uint16_t qtype, struct val_reason* reason);

/* A positive answer synthesised from wildcard *.wc_ce (wc_ce: the
 * wildcard's owner without "*.", from the RRSIG labels field): an NSEC
 * proves qname itself does not exist and that its closest encloser is
 * wc_ce (no closer match). SEC_SECURE or SEC_BOGUS. */
enum sec_status val_nsec_prove_wildcard_answer(const ldns_rr_list* nsecs,
	const uint8_t* qname, const uint8_t* wc_ce, struct val_reason* reason);

/* NODATA answer to a DS query for qname, from the parent zone:
 *   SEC_SECURE        the NSEC at qname has NS, no DS, no SOA: a
 *                     delegation without DS, the child is insecure;
 *   SEC_INDETERMINATE no delegation at qname (the NSEC at qname has no
 *                     NS, or qname is an empty non-terminal);
 *   SEC_BOGUS         no proof, DS in the bitmap, or the NSEC is the
 *                     child's apex NSEC (SOA bit, qname not the root).
 */
enum sec_status val_nsec_prove_nods(const ldns_rr_list* nsecs,
	const uint8_t* qname, struct val_reason* reason);

#endif
