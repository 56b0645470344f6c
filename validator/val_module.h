/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_module.h - the validator module's own data, shared by
 * its files (validator.c: the module and its states; val_walk.c: the
 * chain of trust; val_msg.c: checking one message). Nothing outside
 * validator/ includes this.
 *
 * One query goes: pass the question down (EVENT_NEW) -> the iterator's
 * result comes back (MODDONE) -> every RRset of it is listed with the
 * zone whose keys must sign it -> for each such zone the chain of
 * trust is walked from the closest trust anchor (DNSKEY of the anchor,
 * then DS and DNSKEY one label at a time; each a mesh sub-query, each
 * result kept in the key cache) -> signatures checked (suspended after
 * VAL_MAX_VERIFY_PER_MSG so other queries run) -> denial and wildcard
 * proofs -> the result's security set; bogus becomes SERVFAIL. */
#ifndef VALIDATOR_VAL_MODULE_H
#define VALIDATOR_VAL_MODULE_H
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <ldns/ldns.h>
#include "util/sec_status.h"
#include "validator/val_sig.h"
#include "util/module.h"
#include "util/spare_list.h"
#include "validator/val_nsec3_hash.h"
#include "validator/val_nsec3_iter.h"

struct module_qstate;
struct module_env;
struct val_kcache;
struct val_anchors;
struct event;
struct autr_prober;

/* Per worker. */
struct val_env {
	/* the key cache, shared by all workers: the module's global state
	 * (val_startup, env->modglobal[id]) */
	struct val_kcache* kc;
	struct val_sig_ctx* sigctx;
	struct val_sig_settings sig;
	struct nsec3_iter_table nsec3_iter;
	uint32_t bogus_ttl;          /* val-bogus-ttl */
	int permissive;              /* val-permissive-mode */
	int ignore_cd;               /* ignore-cd-flag */
	int clean_additional;        /* val-clean-additional */
	int log_level;               /* val-log-level */
	int harden_stripped;         /* harden-dnssec-stripped */
	int max_restart;             /* val-max-restart */
	int ede;                     /* ede: */
	/* freed per-query states for the next query: malloc and free
	 * of them cost a miss about 300 instructions more */
	struct spare_list state_spare;
	struct autr_prober* prober;  /* RFC 5011 probes: one worker's */
	int ta_signaling;            /* trust-anchor-signaling: */
	int root_key_sentinel;       /* root-key-sentinel: */
	int aggressive;              /* aggressive-nsec: */
	uint32_t max_neg_ttl;        /* cache-max-negative-ttl */
	struct {
		uint64_t secure, insecure, bogus, indeterminate;
		uint64_t rrset_bogus;
		uint64_t suspends;
	} stats;
};

/* What one query learned about a zone's keys, for a target name: the
 * signer of some RRsets (an apex), or the owner of unsigned ones. */
struct val_zone {
	uint8_t target[LDNS_MAX_DOMAINLEN + 1];
	int signer;                  /* target is a signer name */
	enum sec_status status;      /* SECURE: keys below; INSECURE;
	                              * BOGUS: why; INDETERMINATE: no
	                              * anchor */
	uint8_t zone[LDNS_MAX_DOMAINLEN + 1];  /* the secure zone whose
	                              * keys cover target (SECURE) */
	struct val_keyset* keys;     /* SECURE */
	ldns_rr_list* dnskeys;       /* SECURE: the zone's DNSKEY RRs */
	struct val_reason why;       /* BOGUS */
	int sticky;                  /* BOGUS from the key cache's bad keys,
	                              * or kept there: a restart cannot help */
};

#define VAL_MAX_ZONES 12         /* zones one answer may span */
#define VAL_MAX_SETS 128         /* RRsets of one message checked */
#define VAL_MAX_WILD 8           /* wildcard expansions in one answer */
#define VAL_MAX_AVOID 16         /* servers left out after bogus data */
#define VAL_STATE_SPARE_MAX 128  /* freed query states kept per worker */

/* The chain-of-trust walk towards one target (val_walk.c). */
enum walk_wait { WALK_IDLE = 0, WALK_WAIT_DNSKEY, WALK_WAIT_DS };
struct val_walk {
	int active;
	struct val_zone* z;          /* what it fills in */
	uint8_t cur[LDNS_MAX_DOMAINLEN + 1];  /* the secure zone known */
	struct val_keyset* keys;     /* of cur */
	ldns_rr_list* dnskeys;       /* of cur */
	uint8_t next[LDNS_MAX_DOMAINLEN + 1]; /* asked for now */
	ldns_rr_list* ds;            /* next's validated DS set */
	enum walk_wait wait;
	/* the anchor's keys when the walk starts at the anchor */
	const ldns_rr_list* anchor_ds, *anchor_keys;
	int steps;
	struct val_kcache* kc;       /* the key cache (ve->kc); NULL: none */
	/* the sub-query's result, copied by inform_super */
	int sub_done, sub_rcode;
	ldns_rr_list* sub_answer, *sub_authority;
	/* val-max-restart for the step asked now: the servers whose DS or
	 * DNSKEY answer failed, and whether it was asked past the caches */
	struct module_from avoid[VAL_MAX_AVOID];
	int num_avoid;
	int refetched;
	/* the step's first failure and who gave it: the verdict when no
	 * other server answers */
	struct val_reason first_why;
	struct module_from first_from[MODULE_MAX_FROM];
	int first_num_from;
};

/* The last DS/DNSKEY lookup of a query's walks and who answered it,
 * for "from 127.0.0.5 for key zone. while building chain of trust".
 * Apart from struct val_qstate: most queries make no walk, and the
 * state stays small enough for malloc's per-thread cache (a request
 * over 1 KiB goes the slow way and consolidates the free lists). */
struct val_lookup {
	uint16_t qtype;              /* 0: none yet */
	uint8_t name[LDNS_MAX_DOMAINLEN + 1];
	struct module_from from[MODULE_MAX_FROM];
	int num_from;
};

enum val_phase {
	VP_INIT = 0,    /* passed down, waiting for the result */
	VP_KEYS,        /* finding the keys of every zone involved */
	VP_CHECK,       /* signatures and proofs */
	VP_DONE
};

/* Per query (qs->minfo[id]). */
struct val_qstate {
	enum val_phase phase;
	int id;
	/* Per-query state is sized to what the query uses: a fresh cache
	 * line costs the next query too. Each zone, the walk, the wildcard
	 * closest enclosers and the restart state are made on first use. */
	struct val_zone* zones[VAL_MAX_ZONES];
	int num_zones;
	struct val_walk* walk;       /* made when a walk starts */
	struct val_budget budget;
	struct nsec3_hash_cache nsec3_cache;
	/* signature checks done before a suspend, kept for the resume */
	int verify_from;             /* RRsets checked so far */
	uint8_t verified[VAL_MAX_SETS];   /* their enum sec_status */
	int8_t wild[VAL_MAX_SETS];        /* -1, or index in wild_ce */
	uint8_t (*wild_ce)[LDNS_MAX_DOMAINLEN + 1];  /* VAL_MAX_WILD */
	int num_wild;
	int cd;                      /* the client set CD (and it counts) */
	int preset;                  /* made by the walk of the validator
	                              * that asked (avoid filled), before
	                              * this state ran */
	int passthrough;             /* not validated: a module's lookup */
	/* val-max-restart: times the question was asked again, and the
	 * servers whose bogus data made it (qs->avoid points here) */
	int restarts;
	struct module_from* avoid;   /* VAL_MAX_AVOID */
	int num_avoid;
	/* the bogus result before the last restart: the verdict again when
	 * no other server gives an answer */
	struct module_result* first; /* NULL: none (have_first 0) */
	struct val_reason first_why;
	int have_first;
	/* the walk's last lookup; made with the walk, kept over restarts */
	struct val_lookup* last;
	/* when the question came (monotonic ms): no DS/DNSKEY lookup is
	 * started after MODULE_MAX_QUERY_MS from then */
	uint64_t start_ms;
	struct event* deadline;      /* resumes the state then, if it
	                              * still waits for a lookup */
};

/* val_walk.c: the zone entry for target (found or new, status
 * UNCHECKED when new); NULL when the table is full. */
struct val_zone* val_zone_get(struct val_qstate* vq, const uint8_t* target,
	int signer);
/* Start or go on with finding the status of z (a sub-query result may
 * have come). Returns 1 when z's status is known, 0 when a sub-query
 * is out (the state waits). */
int val_walk_step(struct module_qstate* qs, struct val_qstate* vq,
	struct val_env* ve, struct val_zone* z);
/* validator.c: a new DS/DNSKEY sub-query of the walk goes without the
 * servers in avoid (their answer failed) and past the caches. 0 on out
 * of memory (it goes as it is). */
int val_sub_avoid(struct module_qstate* sub, int id,
	const struct module_from* avoid, int num_avoid);
/* Free what the walk and the zone table hold. */
void val_walk_clear(struct val_walk* w);
void val_zones_clear(struct val_qstate* vq);

/* val_msg.c: the zones (signers, owners of unsigned data) whose status
 * the message's check needs, listed into vq. 0 when the table is
 * full (the answer is bogus). */
int val_msg_list_zones(struct module_qstate* qs, struct val_qstate* vq);
/* Check signatures and proofs of the result with the zone statuses
 * known. Returns the message's status, SEC_UNCHECKED when the KeyTrap
 * budget ran out (resume later and call again); why set when bogus.
 * May remove unchecked additional data (val-clean-additional). */
enum sec_status val_msg_check(struct module_qstate* qs,
	struct val_qstate* vq, struct val_env* ve, struct val_reason* why);

/* Names (wire, lowercase compare). */
int val_name_under(const uint8_t* name, const uint8_t* zone);
int val_rr_owner(const ldns_rr* rr, uint8_t* out);

#endif
