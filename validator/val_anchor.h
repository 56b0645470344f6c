/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_anchor.h - compat: unbound-1.17: the trust anchors of one
 * config snapshot.
 *
 * Built from the config (val_anchors_create) and then read-only, so
 * any thread may look up without a lock. Sources, as Unbound 1.17:
 *   trust-anchor:           one DS or DNSKEY RR in presentation format;
 *   trust-anchor-file:      a zone file of DS/DNSKEY RRs ($ORIGIN, $TTL,
 *                           comments; other RR types are skipped);
 *   trusted-keys-file:      BIND's trusted-keys { name flags proto alg
 *                           "key"; }; (static-key/static-ds entries
 *                           accepted too); managed-keys and
 *                           trust-anchors statements are ignored, as
 *                           Unbound 1.17 ignores them; a glob pattern
 *                           is expanded, as Unbound does;
 *   auto-trust-anchor-file: the RFC 5011 state file Unbound writes
 *                           (";;id:", ";;state=N" comments) or a plain
 *                           DS/DNSKEY zone file; keys in state VALID and
 *                           MISSING (and those without a state) are
 *                           used; the file is only read here;
 *   domain-insecure:        negative trust anchors.
 * DNSKEYs with the REVOKE bit are never anchors. An anchor whose RRs
 * all have algorithms (or DS digests) that cannot be checked is kept
 * as insecure, with Unbound's warning.
 *
 * Anchors from files are kept in a reference-counted part that a
 * derived store (val_anchors_derive: unbound-control insecure_add and
 * friends change only domain-insecure) shares without reading a file. */
#ifndef VALIDATOR_VAL_ANCHOR_H
#define VALIDATOR_VAL_ANCHOR_H
#include <stddef.h>
#include <stdint.h>
#include <ldns/ldns.h>

struct config_file;
struct autr_point;

enum val_anchor_kind {
	VAL_ANCHOR_KEYS = 0,     /* ds and/or dnskey hold the anchor */
	VAL_ANCHOR_INSECURE,     /* domain-insecure: insecure at and below */
	/* compat: unbound-1.17: configured, but no RR with an algorithm this
	 * build checks: insecure, as Unbound */
	VAL_ANCHOR_UNSUPPORTED
};

/* One trust point. The zone at name (and below it, down to a closer
 * point) is secure from these keys, or insecure by configuration. */
struct val_anchor {
	uint8_t* name;           /* lowercased wire format */
	size_t namelen;
	int namelabs;            /* labels, the root counted */
	uint16_t dclass;
	enum val_anchor_kind kind;
	/* VAL_ANCHOR_KEYS: the usable RRs, owner name and class as above;
	 * NULL when there are none of that type. Never changed. */
	ldns_rr_list* ds;
	ldns_rr_list* dnskey;
	/* auto-trust-anchor-file: the RFC 5011 point whose trusted keys
	 * replace ds and dnskey above (which hold the file's keys at
	 * start); NULL for static anchors. Read ds and dnskey with
	 * val_anchor_ds()/val_anchor_dnskey(). */
	struct autr_point* autr;
};

/* The anchor's current DS and DNSKEY lists (NULL: none of the type).
 * For an auto-trust-anchor-file point they change as RFC 5011 updates
 * come; a list read stays valid while the store lives. */
const ldns_rr_list* val_anchor_ds(const struct val_anchor* a);
const ldns_rr_list* val_anchor_dnskey(const struct val_anchor* a);

/* compat: unbound-1.17: Where file names are opened from (Unbound reads its
 * anchors after chroot and chdir to directory:). OUTSIDE: before those (daemon
 * start-up, unbound-checkconf): chroot: is put in front of a name that does
 * not start with it, and directory: before a relative one. INSIDE: after them
 * (reload): the chroot prefix is taken off and a relative name is opened from
 * the current directory. */
enum val_anchor_paths { VAL_PATHS_OUTSIDE = 0, VAL_PATHS_INSIDE };

struct val_anchors;

/* Read every anchor the config names. On any error (unreadable file,
 * syntax error, an RR that is not DS or DNSKEY in trust-anchor:, a
 * class differing within one file, an anchor both in an
 * auto-trust-anchor-file and elsewhere, a bad domain-insecure name)
 * each is logged with log_err as "FILE:LINE: message" and NULL is
 * returned. An anchor with no supported algorithm is not an error.
 * sources 0: no anchor source is read, only domain-insecure (the
 * daemon without the validator module, see val_anchors_in_use). */
struct val_anchors* val_anchors_create(const struct config_file* cfg,
	enum val_anchor_paths paths, int sources);
/* compat: unbound-1.17: Does module-config run the validator? Unbound's daemon
 * reads no anchor otherwise (its unbound-checkconf reads them all the same). */
int val_anchors_in_use(const struct config_file* cfg);
/* A store for cfg that keeps the anchors from files and trust-anchor:
 * of old (shared, not re-read) and takes domain-insecure from cfg.
 * For runtime changes of domain-insecure. NULL on error (logged). */
struct val_anchors* val_anchors_derive(const struct val_anchors* old,
	const struct config_file* cfg);
/* Free; shared parts when their last user goes. NULL is fine. */
void val_anchors_delete(struct val_anchors* a);

/* The closest trust point at or above name (any case) in class
 * dclass: an anchor with keys, or an insecure point; NULL when no
 * point covers the name (the validator answers indeterminate). A
 * name with both an anchor and domain-insecure gets the anchor. */
const struct val_anchor* val_anchor_find(const struct val_anchors* a,
	const uint8_t* name, uint16_t dclass);
/* Is name (class IN) covered by domain-insecure, or by an anchor
 * without supported algorithms, with no closer anchor below it? */
int val_anchor_is_insecure(const struct val_anchors* a,
	const uint8_t* name);

/* Can every auto-trust-anchor-file be written (the daemon, after
 * chroot: and username: are applied)? 0 after logging which cannot. */
int val_anchors_check_writable(const struct val_anchors* a);

/* compat: unbound-1.17: All points, ordered as Unbound's anchor tree within a
 * class (for listing, as unbound-control list_insecure does). */
size_t val_anchors_count(const struct val_anchors* a);
/* Is there an anchor with keys (not domain-insecure, not unsupported)? */
int val_anchors_any_keys(const struct val_anchors* a);
const struct val_anchor* val_anchors_get(const struct val_anchors* a,
	size_t i);

/* Can this build check signatures of DNSKEY algorithm alg, and DS
 * digests of type digest? (RSA/SHA-1, RSA/SHA-256, RSA/SHA-512,
 * ECDSA P-256/P-384, Ed25519, Ed448; SHA-1/256/384 digests; not RSAMD5,
 * DSA or GOST.) The same lists as val_algo_supported and
 * val_ds_digest_supported of validator/val_sig.h, which must agree. */
int val_anchor_algo_supported(uint8_t alg);
int val_anchor_digest_supported(uint8_t digest);

#endif
