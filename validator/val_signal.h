/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_signal.h - compat: unbound-1.17: what the validator tells and
 * answers about its trust anchors, as Unbound 1.17: key tag signalling (RFC
 * 8145 section 5, trust-anchor-signaling:) and the root key sentinel (RFC
 * 8509, root-key-sentinel:). */
#ifndef VALIDATOR_VAL_SIGNAL_H
#define VALIDATOR_VAL_SIGNAL_H
#include <stddef.h>
#include <stdint.h>

struct module_qstate;
struct val_anchor;
struct val_anchors;

/* compat: unbound-1.17: The key tags of the anchor's DS and DNSKEY records,
 * ascending (as Unbound lists them: duplicates kept), at most max; their
 * number. */
size_t val_anchor_keytags(const struct val_anchor* a, uint16_t* tags,
	size_t max);

/* The RFC 8145 query name "_ta-XXXX[-YYYY...]" under the anchor's name
 * (four lower-case hex digits a tag, as many tags as fit one label), in
 * wire format into out (LDNS_MAX_DOMAINLEN + 1 bytes). Its length, 0
 * when the anchor has no keys. */
size_t val_ta_signal_name(const struct val_anchor* a, uint8_t* out);

/* Start the key tag query for the anchor whose DNSKEY set is being
 * primed: a detached NULL-type query, its answer only cached. Nothing
 * when one is in flight or the mesh has no room. */
void val_ta_signal(struct module_qstate* qs, const struct val_anchor* a);

/* RFC 8509 for a secure answer to (qname, qtype): 1 when qtype is A or
 * AAAA and the first label is root-key-sentinel-is-ta-NNNNN and the root
 * anchor has no key with tag NNNNN, or root-key-sentinel-not-ta-NNNNN
 * and it has one (the answer becomes SERVFAIL); 0 otherwise (the answer
 * stands: other types are ordinary questions, RFC 8509 section 3). */
int val_sentinel_fails(const struct val_anchors* anchors,
	const uint8_t* qname, uint16_t qtype, uint16_t qclass);

#endif
