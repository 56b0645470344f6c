/* SPDX-License-Identifier: BSD-3-Clause */
/* services/cache/msgcache.h - the message cache: question -> immutable
 * reply template, shared by all workers. The cache-hit fast path
 * (msg_cache_answer) is one hash lookup under a slab lock, one memcpy
 * without it, and a few patches: no allocation.
 *
 * Key: the qname lowercased, qtype, qclass and the flag bits that change
 * the answer (CD, and DO since DO answers carry RRSIGs).
 * Entry: the wire reply as the iterator encoded it (header, question,
 * answer, authority, additional; compressed; no OPT), the offset of
 * every TTL field, where each RRset ends (to truncate at an RRset
 * boundary), and the time its TTLs count from. An update stores a new
 * entry; a reader holding the old one keeps a consistent copy. */
#ifndef SERVICES_CACHE_MSGCACHE_H
#define SERVICES_CACHE_MSGCACHE_H
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "util/storage/lruhash.h"
#include "util/msgparse.h"
#include "util/sec_status.h"

struct config_file;

/* Key flag bits (the last key byte). */
#define MSG_KEY_CD 0x01
#define MSG_KEY_DO 0x02
/* qname + qtype + qclass + flag byte */
#define MSG_KEY_MAX (LDNS_MAX_DOMAINLEN + 1 + 5)
/* compat: unbound-1.17: TTL of a message with no records (Unbound's NORR_TTL).
 */
#define MSG_NORR_TTL 5

struct msg_cache {
	struct lruhash* table;
	uint32_t seed;        /* per-cache hash seed: no chosen collisions */
	uint32_t min_ttl;     /* cache-min-ttl */
	uint32_t max_ttl;     /* cache-max-ttl */
	uint32_t max_neg_ttl; /* cache-max-negative-ttl */
	uint32_t min_neg_ttl; /* cache-min-negative-ttl, 0: none */
	/* serve-original-ttl: TTLs stored as received (no cache-min-ttl
	 * or cache-max-ttl) and served so (entries patch no TTL) */
	int original_ttl;
	int need_checked;     /* a validator runs: entries it did not check
	                       * (SEC_UNCHECKED) answer only CD queries */
	/* set (never cleared) once a SECURE NXDOMAIN was stored: until
	 * then harden-below-nxdomain has nothing to look for, and a miss
	 * skips its walk up the name (msg_cache_had_secure_nx) */
	int had_secure_nx;
};

/* Where an RRset ends in the template. */
struct msg_rrset_end {
	uint16_t end;         /* offset just past its last RR */
	uint16_t rrs;         /* RRs in it (RRSIGs included) */
	uint8_t section;      /* enum msg_section */
};

/* An RRset whose RRs a reply may rotate (rrset-roundrobin): several
 * RRs of one type, no RRSIG among them, no compression pointer into
 * them, theirs only to names before them. */
struct msg_rot {
	uint16_t start, end;  /* its bytes in the template */
	uint16_t first;       /* its first RR in rr_start */
	uint16_t n;           /* RRs */
};

/* One cached reply; immutable once stored. All arrays live in the same
 * allocation. */
struct msg_entry {
	struct lruhash_entry lh;
	time_t stored;        /* the template's TTLs are as of this time */
	uint32_t ttl;         /* fresh while now - stored < ttl */
	/* compat: unbound-1.17: prefetch from this age on (Unbound's ttl -
	 * ttl/10; never when ttl < 10) */
	uint32_t prefetch_age;
	uint16_t len;         /* template length */
	uint16_t qend;        /* end of the question section */
	uint16_t flags;       /* template header flags (QR, AA, RA, AD, rcode);
	                       * RD, CD, TC are 0 and set per reply */
	uint16_t num_ttl;     /* TTLs a reply patches (0 with
	                       * serve-original-ttl: served as stored) */
	uint16_t num_sets;
	uint16_t num_rot;     /* RRsets that rotate; 0 for most answers */
	uint8_t security;     /* enum sec_status (in the padding here) */
	uint8_t synthesized;  /* a module made it (dns64): for clients, not
	                       * for the iterator's lookups */
	const uint16_t* ttl_off;            /* ascending */
	const uint8_t* tmpl;
	/* cold: truncation and rotation (hit fields fit one cache line) */
	const struct msg_rrset_end* sets;   /* in packet order */
	const struct msg_rot* rot;          /* in packet order */
	const uint16_t* rr_start;           /* where each RR begins */
	/* serve-expired-ttl-reset: servable expired until this time when
	 * later than the serve-expired-ttl window (0: not reset); the one
	 * field written after store, atomically (msg_cache_expired_reset) */
	time_t expired_until;
	/* the key (lh.key), TTL offsets, template and RRset ends follow */
};

/* Create with a byte bound and slab count (power of two) and the TTL
 * clamps; NULL on bad slabs or no memory. */
struct msg_cache* msg_cache_create(size_t maxmem, size_t slabs,
	uint32_t min_ttl, uint32_t max_ttl, uint32_t max_neg_ttl);
/* The same from msg-cache-size, msg-cache-slabs, cache-min-ttl,
 * cache-max-ttl, cache-max-negative-ttl, cache-min-negative-ttl. */
struct msg_cache* msg_cache_create_cfg(const struct config_file* cfg);
/* The TTL clamps from cfg (cache-min-ttl, cache-max-ttl,
 * cache-max-negative-ttl, cache-min-negative-ttl, serve-original-ttl):
 * at create, and at a reload for the entries stored after it (the
 * cached ones keep their TTLs). Any thread, while others store. */
void msg_cache_set_ttls(struct msg_cache* c, const struct config_file* cfg);
void msg_cache_delete(struct msg_cache* c);

/* The hash of qi's key (qname, qtype, qclass, CD, DO), to compute once
 * per query and pass to the calls below. */
uint32_t msg_cache_hash(const struct msg_cache* c,
	const struct query_info* qi);

/* The fast path. Answers qi from the cache into out: the template
 * copied, ID patched, RD and CD copied from the query, AD cleared unless
 * the query had AD or DO (RFC 6840), the query's own qname bytes written
 * over the question (so 0x20 case is echoed), each TTL lowered by the
 * entry's age, and an OPT record (edns_size, DO echoed) appended when
 * the query had EDNS. When that is over limit, it is cut after the last
 * RRset that fits: answer or authority RRsets left out set TC, dropped
 * additional ones do not. Returns the length, or 0 on a miss or an
 * expired entry. out must hold limit bytes; limit should be >= 512. */
size_t msg_cache_answer(struct msg_cache* c, const struct query_info* qi,
	uint32_t hash, time_t now, uint8_t* out, size_t limit,
	uint16_t edns_size);

/* How msg_cache_answer_ex treats entries near or past their TTL. */
struct msg_serve_policy {
	int prefetch;               /* prefetch: report the last 10% of TTL */
	int serve_expired;          /* serve-expired (RFC 8767) */
	uint32_t expired_ttl;       /* serve-expired-ttl: seconds past
	                             * expiry still served (0: no limit) */
	uint32_t expired_reply_ttl; /* serve-expired-reply-ttl */
	int roundrobin;             /* rrset-roundrobin: RRs of an RRset
	                             * start at (query ID + now) mod count */
};

/* What kind of hit msg_cache_answer_ex made. */
enum msg_hit {
	MSG_HIT_FRESH = 0,
	MSG_HIT_PREFETCH,  /* fresh, but in the last 10% of its TTL */
	MSG_HIT_EXPIRED    /* served expired: every TTL is expired_reply_ttl */
};

/* msg_cache_answer with a policy for old entries (pol NULL: none, the
 * same as msg_cache_answer). On a hit *hit says whether the caller
 * should refresh the entry in the background. */
size_t msg_cache_answer_ex(struct msg_cache* c, const struct query_info* qi,
	uint32_t hash, time_t now, uint8_t* out, size_t limit,
	uint16_t edns_size, const struct msg_serve_policy* pol,
	enum msg_hit* hit);

/* A question's key and hash, made once: its bucket is prefetched when
 * they are made, and msg_cache_answer_k looks it up some work later
 * (the query path makes it right after parsing, before the access and
 * local-zone checks, and a question new to the cache finds its bucket
 * loaded from memory by the time it looks). */
struct msg_qkey {
	uint32_t hash;
	size_t len;
	uint8_t key[LDNS_MAX_DOMAINLEN + 1 + 8];   /* MSG_KEY_BUF */
};

/* Make k for qi's key flags (CD, DO: set those first) and prefetch its
 * bucket; 0 for a question without a name (no key). */
int msg_cache_qkey(struct msg_cache* c, const struct query_info* qi,
	struct msg_qkey* k);

/* Start loading the bucket of the question's entry without its DO
 * variant (cd: the CD one), where an answer about to be made is stored:
 * the mesh calls it when an upstream reply comes in for a state clients
 * wait on, and the line loads while the modules work on the reply. */
void msg_cache_prefetch(struct msg_cache* c, const uint8_t* qname,
	size_t qname_len, uint16_t qtype, uint16_t qclass, int cd);

/* msg_cache_answer_q with the key made by msg_cache_qkey. */
size_t msg_cache_answer_k(struct msg_cache* c, const struct query_info* qi,
	const struct msg_qkey* k, time_t now, uint8_t* out, size_t limit,
	uint16_t edns_size, const struct msg_serve_policy* pol,
	enum msg_hit* hit, uint8_t* sec);

/* compat: unbound-1.17: serve-expired-ttl-reset: a resolution of the
 * question failed; its cached entries (both DO variants of cd) stay
 * servable expired until at least `until`. Returns how many it moved. */
int msg_cache_expired_reset(struct msg_cache* c, const uint8_t* qname,
	size_t qname_len, uint16_t qtype, uint16_t qclass, int cd,
	time_t until);

/* msg_cache_answer_ex that computes the hash itself, from the key it
 * makes anyway (one lowercasing pass instead of two): the hit path.
 * On a hit *sec (when not NULL) is the entry's enum sec_status, for
 * the statistics (num.answer.secure). */
size_t msg_cache_answer_q(struct msg_cache* c, const struct query_info* qi,
	time_t now, uint8_t* out, size_t limit, uint16_t edns_size,
	const struct msg_serve_policy* pol, enum msg_hit* hit, uint8_t* sec);

/* compat: unbound-1.17: Store reply (a complete wire reply to qi, as msgencode
 * builds it) for qi's key. Parsed once here: the question must match qi; TC
 * must be clear; an OPT record is dropped (it must be the last record); owner
 * names may be compressed. TTLs are rewritten as Unbound caches them: top bit
 * set counts as 0, an SOA in the authority section gets at most its MINIMUM
 * and cache-max-negative-ttl (RFC 2308), then each is clamped to
 * [cache-min-ttl, cache-max-ttl]; the entry's TTL is the least of them
 * (MSG_NORR_TTL with no records). Replaces an older entry. Returns 1 if
 * stored, 0 if not (malformed, TTL 0, too large for the cache, no memory, hash
 * not msg_cache_hash(c, qi)). */
int msg_cache_store(struct msg_cache* c, const struct query_info* qi,
	uint32_t hash, const uint8_t* reply, size_t len, time_t now);

/* msg_cache_store with a security status (enum sec_status): the
 * hook for the validator to come, which stores what it validated
 * (and where harden-dnssec-stripped will act: an answer that should
 * be signed and is not is bogus, never stored as insecure). */
int msg_cache_store_sec(struct msg_cache* c, const struct query_info* qi,
	uint32_t hash, const uint8_t* reply, size_t len, time_t now,
	int security);

/* msg_cache_store_sec with the hash computed here, once (the caller's
 * msg_cache_hash and the check of it were two), and returned in *hash
 * (whether stored or not) for answering from the entry. synthesized: a
 * module made the answer (msg_entry.synthesized). */
int msg_cache_store_hashed(struct msg_cache* c, const struct query_info* qi,
	const uint8_t* reply, size_t len, time_t now, int security,
	int synthesized, uint32_t* hash);

/* May the cache hold a SECURE NXDOMAIN (one was stored since it was
 * made)? 0: certainly none. Any thread may ask. */
int msg_cache_had_secure_nx(const struct msg_cache* c);

/* Find a fresh entry and take a reference (for code that needs more
 * than a reply: prefetch, the mesh); NULL if none. Release it with
 * msg_cache_release. */
struct msg_entry* msg_cache_lookup(struct msg_cache* c,
	const struct query_info* qi, uint32_t hash, time_t now);
void msg_cache_release(struct msg_cache* c, struct msg_entry* m);

/* The entry's qname (lowercased) and type, class, key flags. */
const uint8_t* msg_entry_qname(const struct msg_entry* m);
void msg_entry_question(const struct msg_entry* m, uint16_t* qtype,
	uint16_t* qclass, uint8_t* keyflags);

/* Remote control: remove the entries for this name, type and class
 * (every CD/DO variant); returns how many. */
int msg_cache_remove(struct msg_cache* c, const uint8_t* qname,
	uint16_t qtype, uint16_t qclass);
/* Remove every entry at or below zone; returns how many. */
size_t msg_cache_flush_zone(struct msg_cache* c, const uint8_t* zone);
void msg_cache_flush_all(struct msg_cache* c);
/* A new msg-cache-size (a reload): the entries over it, least recently
 * used first, are evicted now; the rest stay. Any thread. */
void msg_cache_set_max_mem(struct msg_cache* c, size_t maxmem);
/* Call fn for every entry (dump_cache). fn runs under a slab lock: keep
 * it short, or take a reference with lruhash_ref(&m->lh), collect, and
 * msg_cache_release after. Return 1 from fn to remove the entry. */
size_t msg_cache_walk(struct msg_cache* c,
	int (*fn)(struct msg_entry* m, void* arg), void* arg);

#endif
