/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_autotrust.h - compat: unbound-1.17: RFC 5011 automated trust
 * anchor updates for auto-trust-anchor-file:, as Unbound 1.17.
 *
 * One trust point per file. Its keys each have a state (START, ADDPEND,
 * VALID, MISSING, REVOKED, REMOVED); the VALID and MISSING ones (and a
 * DS the file started with, until the first probe) are the anchor the
 * validator uses. A probe (val_autotrust_probe.c) asks the zone's DNSKEY
 * set through the mesh, checks it against those keys and feeds it to
 * the state machine (val_autotrust_state.c); the file is written again
 * (val_autotrust_file.c, atomically, Unbound's format, so Debian's
 * Unbound and this daemon can take turns on it) and the validator's
 * view of the anchor changes at once, without a reload.
 *
 * Concurrency: the point's state is changed only by the one worker that
 * probes, under point->lock. The validator reads the trusted key lists
 * through val_autotrust_trusted() (an atomic load); a list it read stays
 * valid until the point is freed (old lists are kept, not freed, since
 * a chain-of-trust walk in another worker may still use one; they are
 * few: one per change of the trusted set). */
#ifndef VALIDATOR_VAL_AUTOTRUST_H
#define VALIDATOR_VAL_AUTOTRUST_H
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <ldns/ldns.h>

enum autr_state {
	AUTR_STATE_START = 0,
	AUTR_STATE_ADDPEND = 1,
	AUTR_STATE_VALID = 2,
	AUTR_STATE_MISSING = 3,
	AUTR_STATE_REVOKED = 4,
	AUTR_STATE_REMOVED = 5
};

/* compat: unbound-1.17: A key must be seen in this many probes before
 * add-holddown can make it VALID (Unbound's sanity check). */
#define AUTR_MIN_PENDING 2

struct autr_key {
	ldns_rr* rr;            /* DNSKEY (REVOKE bit as last seen), or DS */
	enum autr_state s;
	int count;              /* ;;count=: probes it was seen pending */
	time_t last_change;     /* ;;lastchange=: 0 never (configured) */
	int fetched;            /* in the DNSKEY set of this probe */
	int revoked;            /* self-signed with REVOKE in this probe */
};

/* add-holddown, del-holddown, keep-missing, permit-small-holddown. */
struct autr_params {
	time_t add_holddown;
	time_t del_holddown;
	time_t keep_missing;    /* 0: keep MISSING keys for ever */
	int permit_small;
};

struct autr_point {
	char* file;             /* the name to write (after chroot) */
	uint8_t name[LDNS_MAX_DOMAINLEN + 1];   /* lowercased wire */
	size_t namelen;
	uint16_t dclass;
	struct autr_key* keys;
	size_t n, cap;
	time_t last_queried, last_success, next_probe_time;
	int query_failed;
	time_t query_interval, retry_time;
	int revoked;            /* every key revoked: no anchor any more */
	pthread_mutex_t lock;
	/* what the validator trusts; NULL: none of that type */
	_Atomic(ldns_rr_list*) trusted_ds;
	_Atomic(ldns_rr_list*) trusted_dnskey;
	ldns_rr_list** old;     /* replaced lists, freed with the point */
	size_t nold;
	atomic_uint changes;    /* times the trusted set changed */
};

/* --- the point (val_autotrust_state.c) --- */
struct autr_point* val_autr_point_new(const uint8_t* name, size_t namelen,
	uint16_t dclass);
void val_autr_point_delete(struct autr_point* p);
/* Add a key (rr taken over); NULL on no memory (rr freed). */
struct autr_key* val_autr_point_add(struct autr_point* p, ldns_rr* rr,
	enum autr_state s, int count, time_t last_change);
/* The point's key that is rr (a DNSKEY compared without its REVOKE
 * bit; a DS byte for byte), or NULL. */
struct autr_key* val_autr_find_key(struct autr_point* p, const ldns_rr* rr);
/* Publish the trusted lists from the states (VALID and MISSING keys
 * that are not revoked, and DS). 0 on no memory (the old stay). */
int val_autr_publish(struct autr_point* p);
/* The lists the validator uses (see the concurrency note). */
const ldns_rr_list* val_autotrust_trusted(const struct autr_point* p,
	int ds);

int val_autr_rr_is_sep(const ldns_rr* rr);
int val_autr_rr_is_revoked(const ldns_rr* rr);
const char* val_autr_state_str(enum autr_state s);   /* "  VALID  " ... */

/* compat: unbound-1.17: --- the state machine: one probe's result, in
 * Unbound's order --- */
/* Keys in ADDPEND whose add-holddown passed become VALID. */
void val_autr_holddown_exceed(struct autr_point* p, time_t now,
	const struct autr_params* par, int* changed);
/* The DNSKEY set holds key k revoked and signed by itself: REVOKED. */
void val_autr_key_revoked(struct autr_key* k, time_t now, int* changed);
/* The verified DNSKEY set: note which keys are seen, add new SEP keys
 * (as VALID when ds_match[i] says a DS of the point matches key i,
 * else START), skip keys whose algorithm is unsupported (supported[i]
 * 0), then run RFC 5011's table for every SEP key and remove what is to
 * go. ttl: the set's original TTL; sig_left: seconds to the earliest
 * RRSIG expiry (for query_interval and retry_time). 0 on no memory. */
int val_autr_update(struct autr_point* p, const ldns_rr_list* dnskeys,
	const char* ds_match, const char* supported, uint32_t ttl,
	time_t sig_left, time_t now, const struct autr_params* par,
	int* changed);
/* Is there still any trusted key (or DS)? */
int val_autr_has_trust(const struct autr_point* p);
/* now + wait (at least an hour unless permit_small), minus up to 10%
 * at random (rnd: a random number). */
time_t val_autr_next_probe(time_t now, time_t wait, int permit_small,
	uint32_t rnd);

/* --- the file (val_autotrust_file.c) --- */
/* compat: unbound-1.17: Unbound's format to out; 0 on a write error (errno
 * set). */
int val_autr_write_fp(FILE* out, const struct autr_point* p);
/* Write p->file atomically: a temporary file in the same directory,
 * fsync, rename. 0 on failure, logged with the file name. */
int val_autr_write_file(const struct autr_point* p);
/* Can p->file be written (a temporary file in its directory created
 * and removed)? 0 with an error logged that names the file. */
int val_autr_check_writable(const struct autr_point* p);

/* --- the probes (val_autotrust_probe.c), for the validator --- */
struct module_env;
struct val_env;
struct autr_prober;
/* The first worker to call this probes (a timer on its event base, the
 * probes through its mesh); the others get NULL. */
struct autr_prober* val_autotrust_prober_start(struct module_env* env,
	struct val_env* ve);
/* env->anchors changed (reload): probe the new points. */
void val_autotrust_prober_reconfigure(struct autr_prober* pr);
void val_autotrust_prober_stop(struct autr_prober* pr);

#endif
