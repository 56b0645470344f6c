/* SPDX-License-Identifier: BSD-3-Clause */
/* services/cache/msgcache.c - message cache: keys, the cache-hit fast
 * path, lookup and flush. Storing (parsing a reply into a template) is
 * in msgcache_store.c. */
#include "config.h"
#include "services/cache/msgcache.h"
#include "services/cache/msgcache_key.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/msgencode.h"
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

/* msg_key_hash_of flips the hash's 2 lowest bits by the flag byte */
_Static_assert((MSG_KEY_CD | MSG_KEY_DO) == 3, "key flags fit 2 bits");

static void entry_free(struct lruhash_entry* e, void* arg)
{
	(void)arg;
	free(e);
}

struct msg_cache* msg_cache_create(size_t maxmem, size_t slabs,
	uint32_t min_ttl, uint32_t max_ttl, uint32_t max_neg_ttl)
{
	struct msg_cache* c = calloc(1, sizeof(*c));
	if(!c)
		return NULL;
	c->table = lruhash_create(slabs, maxmem, entry_free, NULL);
	if(!c->table) {
		free(c);
		return NULL;
	}
	/* A random seed, so names whose hashes collide cannot be chosen
	 * ahead of time to make long chains. */
	if(getrandom(&c->seed, sizeof(c->seed), GRND_NONBLOCK) !=
		(ssize_t)sizeof(c->seed))
		c->seed = (uint32_t)(uintptr_t)c ^ (uint32_t)time(NULL);
	c->min_ttl = min_ttl;
	c->max_ttl = max_ttl;
	c->max_neg_ttl = max_neg_ttl;
	return c;
}

static uint32_t cfg_ttl(int v)
{
	return v < 0 ? 0 : (uint32_t)v;
}

/* Relaxed atomic stores: a reload sets them while workers store
 * (msgcache_store.c reads them the same way). */
#define SET_TTL(f, v) __atomic_store_n(&c->f, (v), __ATOMIC_RELAXED)

void msg_cache_set_ttls(struct msg_cache* c, const struct config_file* cfg)
{
	/* compat: unbound-1.17: serve-original-ttl ignores cache-min-ttl
	 * and cache-max-ttl */
	int orig = cfg->serve_original_ttl;
	SET_TTL(min_ttl, orig ? 0 : cfg_ttl(cfg->min_ttl));
	SET_TTL(max_ttl, orig ? UINT32_MAX : cfg_ttl(cfg->max_ttl));
	SET_TTL(max_neg_ttl, cfg_ttl(cfg->max_negative_ttl));
	SET_TTL(min_neg_ttl, cfg_ttl(cfg->min_negative_ttl));
	SET_TTL(original_ttl, orig);
}

struct msg_cache* msg_cache_create_cfg(const struct config_file* cfg)
{
	struct msg_cache* c = msg_cache_create(cfg->msg_cache_size,
		cfg->msg_cache_slabs > 0 ? (size_t)cfg->msg_cache_slabs : 1,
		0, 0, 0);
	if(c)
		msg_cache_set_ttls(c, cfg);
	return c;
}

void msg_cache_delete(struct msg_cache* c)
{
	if(!c)
		return;
	lruhash_delete(c->table);
	free(c);
}

uint32_t msg_cache_hash(const struct msg_cache* c,
	const struct query_info* qi)
{
	return msg_key_hash(c->seed, qi->qname, qi->qname_len, qi->qtype,
		qi->qclass, msg_key_flags(qi));
}

/* Fresh while younger than its TTL; a clock that went back counts as
 * age 0 (the TTLs are then as stored, never raised). */
static int fresh(const struct msg_entry* m, time_t now, uint32_t* age)
{
	time_t a = now - m->stored;
	if(a < 0)
		a = 0;
	if((uint64_t)a >= m->ttl)
		return 0;
	*age = (uint32_t)a;
	return 1;
}

/* Cold path: the reply is over limit. Copy up to the end of the last
 * RRset that fits in room, fix the counts, and say how many TTL fields
 * that covers and whether an answer/authority RRset was left out. */
static size_t copy_cut(const struct msg_entry* m, size_t room, uint8_t* out,
	size_t* nttl, int* tc)
{
	uint16_t counts[3] = {0, 0, 0};
	size_t k = 0, cut = m->qend, i;
	if(room < m->qend)
		return 0;
	while(k < m->num_sets && m->sets[k].end <= room) {
		counts[m->sets[k].section] += m->sets[k].rrs;
		cut = m->sets[k].end;
		k++;
	}
	*tc = k < m->num_sets && m->sets[k].section != SEC_ADDITIONAL;
	memcpy(out, m->tmpl, cut);
	for(i = 0; i < 3; i++)
		wire_wr16(out + 6 + 2 * i, counts[i]);
	for(i = 0; i < m->num_ttl && m->ttl_off[i] < cut; i++)
		;
	*nttl = i;
	return cut;
}

/* The OPT record of a reply to qi at o (edns_size, DO echoed). */
static void write_opt(uint8_t* o, const struct query_info* qi,
	uint16_t edns_size)
{
	o[0] = 0;
	wire_wr16(o + 1, TYPE_OPT);
	wire_wr16(o + 3, edns_size);
	o[5] = 0;  /* no extended rcode is cached */
	o[6] = 0;  /* version */
	o[7] = qi->edns_do ? 0x80 : 0;
	o[8] = 0;
	wire_wr16(o + 9, 0);
}

/* compat: unbound-1.17: Cold path: not even the question (and OPT) fits the
 * client's EDNS size (harden-short-bufsize: no). As Unbound's encoder: the
 * header with TC and no records, the OPT record when header and OPT fit. */
static __attribute__((noinline)) size_t question_cut(
	const struct query_info* qi, uint8_t* out, size_t limit,
	uint16_t edns_size, uint16_t flags)
{
	int opt = qi->has_edns && limit >= LDNS_HEADER_SIZE + EDNS_OPT_LEN;
	if(limit < LDNS_HEADER_SIZE)
		return 0;
	flags |= FLAG_TC;
	if(!(qi->flags & FLAG_AD) && !qi->edns_do)
		flags &= (uint16_t)~FLAG_AD;
	wire_wr32(out, ((uint32_t)qi->id << 16) | flags);
	memset(out + 4, 0, 8);
	if(!opt)
		return LDNS_HEADER_SIZE;
	write_opt(out + LDNS_HEADER_SIZE, qi, edns_size);
	wire_wr16(out + 10, 1);
	return LDNS_HEADER_SIZE + EDNS_OPT_LEN;
}

static void reverse(uint8_t* p, size_t n)
{
	size_t i;
	for(i = 0; i < n / 2; i++) {
		uint8_t c = p[i];
		p[i] = p[n - 1 - i];
		p[n - 1 - i] = c;
	}
}

/* Move the first d of the n bytes at p to their end. */
static void rotate_bytes(uint8_t* p, size_t n, size_t d)
{
	uint8_t tmp[256];
	if(d <= sizeof(tmp)) {
		memcpy(tmp, p, d);
		memmove(p, p + d, n - d);
		memcpy(p + n - d, tmp, d);
	} else if(n - d <= sizeof(tmp)) {
		memcpy(tmp, p + d, n - d);
		memmove(p + (n - d), p, d);
		memcpy(p, tmp, n - d);
	} else {
		reverse(p, d);
		reverse(p + d, n - d);
		reverse(p, n);
	}
}

/* compat: unbound-1.17: rrset-roundrobin on the copied reply (len bytes of
 * it): each RRset that may rotate starts at RR number off mod its count
 * (Unbound). */
static void rotate_sets(const struct msg_entry* m, uint8_t* out, size_t len,
	uint32_t off)
{
	size_t i;
	for(i = 0; i < m->num_rot; i++) {
		const struct msg_rot* r = &m->rot[i];
		uint32_t k;
		if(r->end > len)
			break;   /* cut off (truncated) from here on */
		k = off % r->n;
		if(k)
			rotate_bytes(out + r->start, (size_t)(r->end - r->start),
				(size_t)(m->rr_start[r->first + k] - r->start));
	}
}

/* The reply to qi from entry m, aged by age seconds; or, with
 * fixed_ttl >= 0 (an expired entry served), every TTL set to it.
 * rotate: rrset-roundrobin with offset rot. */
static inline __attribute__((always_inline)) size_t reply_from(
	const struct msg_entry* m,
	const struct query_info* qi, uint32_t age, int64_t fixed_ttl,
	uint8_t* out, size_t limit, uint16_t edns_size, int rotate,
	uint32_t rot)
{
	size_t opt = qi->has_edns ? EDNS_OPT_LEN : 0, n = m->len, i;
	size_t nttl = m->num_ttl;
	uint16_t flags = (uint16_t)(m->flags | (qi->flags &
		(FLAG_RD | FLAG_CD)));
	if(n + opt > limit) {
		int tc = 0;
		if(limit < m->qend + opt)
			return question_cut(qi, out, limit, edns_size, flags);
		n = copy_cut(m, limit - opt, out, &nttl, &tc);
		if(n == 0)
			return 0;
		if(tc)
			flags |= FLAG_TC;
	} else
		memcpy(out, m->tmpl, n);
	/* RFC 6840 5.8: AD only for a client that asked with AD or DO */
	if(!(qi->flags & FLAG_AD) && !qi->edns_do)
		flags &= (uint16_t)~FLAG_AD;
	wire_wr32(out, ((uint32_t)qi->id << 16) | flags);
	/* same name, same length: only the case differs */
	dname_copy(out + LDNS_HEADER_SIZE, qi->qname, qi->qname_len);
	if(fixed_ttl >= 0) {
		for(i = 0; i < nttl; i++)
			wire_wr32(out + m->ttl_off[i], (uint32_t)fixed_ttl);
	} else if(age != 0) {
		const uint16_t* off = m->ttl_off;  /* out cannot alias it */
		for(i = 0; i < nttl; i++) {
			uint8_t* p = out + off[i];
			wire_wr32(p, wire_rd32(p) - age);
		}
	}
	if(m->num_rot && rotate)
		rotate_sets(m, out, n, rot);
	if(opt) {
		write_opt(out + n, qi, edns_size);
		wire_wr16(out + 10, (uint16_t)(wire_rd16(out + 10) + 1));
		n += EDNS_OPT_LEN;
	}
	return n;
}

size_t msg_cache_answer(struct msg_cache* c, const struct query_info* qi,
	uint32_t hash, time_t now, uint8_t* out, size_t limit,
	uint16_t edns_size)
{
	return msg_cache_answer_ex(c, qi, hash, now, out, limit, edns_size,
		NULL, NULL);
}

/* Cold path: may an expired entry be served, under pol? */
static int servable_expired(const struct msg_entry* m, time_t now,
	const struct msg_serve_policy* pol)
{
	time_t past;
	if(!pol || !pol->serve_expired)
		return 0;
	past = now - m->stored - (time_t)m->ttl;
	return pol->expired_ttl == 0 || past < (time_t)pol->expired_ttl ||
		now < __atomic_load_n(&m->expired_until, __ATOMIC_RELAXED);
}

int msg_cache_expired_reset(struct msg_cache* c, const uint8_t* qname,
	size_t qname_len, uint16_t qtype, uint16_t qclass, int cd,
	time_t until)
{
	uint8_t key[MSG_KEY_BUF], name[MSG_KEY_BUF];
	int n = 0, d;
	if(qname_len == 0 || qname_len > LDNS_MAX_DOMAINLEN + 1)
		return 0;
	memcpy(name, qname, qname_len);  /* msg_key_make reads whole words */
	for(d = 0; d < 2; d++) {
		uint8_t f = (uint8_t)((cd ? MSG_KEY_CD : 0) |
			(d ? MSG_KEY_DO : 0));
		size_t kl = msg_key_make(key, name, qname_len, qtype, qclass,
			f);
		struct msg_entry* m = (struct msg_entry*)lruhash_lookup(
			c->table, msg_key_hash(c->seed, name, qname_len, qtype,
			qclass, f), key, (uint16_t)kl);
		if(!m)
			continue;
		if(__atomic_load_n(&m->expired_until, __ATOMIC_RELAXED) <
			until) {
			__atomic_store_n(&m->expired_until, until,
				__ATOMIC_RELAXED);
			n++;
		}
		lruhash_release(c->table, &m->lh);
	}
	return n;
}

/* The hit path once the key is made: lookup, reply, release (inlined
 * into both callers: the call cost more than its argument shuffling
 * saved). */
static inline __attribute__((always_inline)) size_t answer_key(struct msg_cache* c, const struct query_info* qi,
	uint32_t hash, const uint8_t* key, size_t keylen, time_t now,
	uint8_t* out, size_t limit, uint16_t edns_size,
	const struct msg_serve_policy* pol, enum msg_hit* hit, uint8_t* sec)
{
	struct msg_entry* m;
	size_t n = 0;
	uint32_t age;
	m = (struct msg_entry*)lruhash_lookup(c->table, hash, key,
		(uint16_t)keylen);
	if(!m)
		return 0;
	/* the slab lock is not held here: the entry is ours until release */
	if(m->security <= SEC_BOGUS && c->need_checked &&
		!(qi->flags & FLAG_CD)) {
		/* compat: unbound-1.17: a module's own lookup, never
		 * validated, or bogus data (a loaded dump's): not for a client
		 * of a validating resolver (the mesh validates it; bogus
		 * becomes SERVFAIL there and counts in num.answer.bogus, as
		 * Unbound's cache answer) */
		n = 0;
	} else if(fresh(m, now, &age)) {
		n = reply_from(m, qi, age, -1, out, limit, edns_size,
			pol && pol->roundrobin, (uint32_t)qi->id + (uint32_t)now);
		/* for the statistics: one store, the entry's line is hot */
		if(sec)
			*sec = m->security;
		/* compat: unbound-1.17: prefetch (Unbound): one comparison,
		 * set up at store */
		if(hit)
			*hit = (pol && pol->prefetch && age >= m->prefetch_age) ?
				MSG_HIT_PREFETCH : MSG_HIT_FRESH;
	} else if(servable_expired(m, now, pol)) {
		n = reply_from(m, qi, 0, (int64_t)pol->expired_reply_ttl, out,
			limit, edns_size, pol->roundrobin,
			(uint32_t)qi->id + (uint32_t)now);
		if(sec)
			*sec = m->security;
		if(hit)
			*hit = MSG_HIT_EXPIRED;
	}
	lruhash_release(c->table, &m->lh);
	return n;
}

size_t msg_cache_answer_ex(struct msg_cache* c, const struct query_info* qi,
	uint32_t hash, time_t now, uint8_t* out, size_t limit,
	uint16_t edns_size, const struct msg_serve_policy* pol,
	enum msg_hit* hit)
{
	uint8_t key[MSG_KEY_BUF];
	size_t kl;
	if(qi->qname_len == 0)
		return 0;
	kl = msg_key_make(key, qi->qname, qi->qname_len, qi->qtype,
		qi->qclass, msg_key_flags(qi));
	return answer_key(c, qi, hash, key, kl, now, out, limit, edns_size,
		pol, hit, NULL);
}

_Static_assert(sizeof(((struct msg_qkey*)0)->key) == MSG_KEY_BUF,
	"msg_qkey's key holds what msg_key_make writes");

int msg_cache_qkey(struct msg_cache* c, const struct query_info* qi,
	struct msg_qkey* k)
{
	uint8_t kf = msg_key_flags(qi);
	if(qi->qname_len == 0)
		return 0;
	/* the name is lowercased once, for the key; the hash reads it */
	k->len = msg_key_make(k->key, qi->qname, qi->qname_len, qi->qtype,
		qi->qclass, kf);
	k->hash = msg_key_hash_of(c->seed, k->key, qi->qname_len, qi->qtype,
		qi->qclass, kf, 0);
	lruhash_prefetch(c->table, k->hash);
	return 1;
}

void msg_cache_prefetch(struct msg_cache* c, const uint8_t* qname,
	size_t qname_len, uint16_t qtype, uint16_t qclass, int cd)
{
	if(qname_len == 0)
		return;
	lruhash_prefetch(c->table, msg_key_hash(c->seed, qname, qname_len,
		qtype, qclass, cd ? MSG_KEY_CD : 0));
}

size_t msg_cache_answer_k(struct msg_cache* c, const struct query_info* qi,
	const struct msg_qkey* k, time_t now, uint8_t* out, size_t limit,
	uint16_t edns_size, const struct msg_serve_policy* pol,
	enum msg_hit* hit, uint8_t* sec)
{
	return answer_key(c, qi, k->hash, k->key, k->len, now, out, limit,
		edns_size, pol, hit, sec);
}

size_t msg_cache_answer_q(struct msg_cache* c, const struct query_info* qi,
	time_t now, uint8_t* out, size_t limit, uint16_t edns_size,
	const struct msg_serve_policy* pol, enum msg_hit* hit, uint8_t* sec)
{
	struct msg_qkey k;
	if(!msg_cache_qkey(c, qi, &k))
		return 0;
	return msg_cache_answer_k(c, qi, &k, now, out, limit, edns_size,
		pol, hit, sec);
}

struct msg_entry* msg_cache_lookup(struct msg_cache* c,
	const struct query_info* qi, uint32_t hash, time_t now)
{
	uint8_t key[MSG_KEY_BUF];
	struct msg_entry* m;
	uint32_t age;
	if(qi->qname_len == 0)
		return NULL;
	m = (struct msg_entry*)lruhash_lookup(c->table, hash, key,
		msg_key_make(key, qi->qname, qi->qname_len, qi->qtype,
		qi->qclass, msg_key_flags(qi)));
	if(m && !fresh(m, now, &age)) {
		lruhash_release(c->table, &m->lh);
		return NULL;
	}
	return m;
}

void msg_cache_release(struct msg_cache* c, struct msg_entry* m)
{
	if(m)
		lruhash_release(c->table, &m->lh);
}

const uint8_t* msg_entry_qname(const struct msg_entry* m)
{
	return m->lh.key;
}

void msg_entry_question(const struct msg_entry* m, uint16_t* qtype,
	uint16_t* qclass, uint8_t* keyflags)
{
	const uint8_t* k = m->lh.key + m->lh.keylen - 5;
	*qtype = wire_rd16(k);
	*qclass = wire_rd16(k + 2);
	*keyflags = k[4];
}

int msg_cache_remove(struct msg_cache* c, const uint8_t* qname,
	uint16_t qtype, uint16_t qclass)
{
	uint8_t key[MSG_KEY_BUF], name[MSG_KEY_BUF];
	size_t qlen = dname_valid(qname, LDNS_MAX_DOMAINLEN + 1);
	int n = 0;
	uint8_t f;
	if(qlen == 0)
		return 0;
	memcpy(name, qname, qlen);  /* msg_key_make reads whole words */
	for(f = 0; f <= (MSG_KEY_CD | MSG_KEY_DO); f++) {
		size_t kl = msg_key_make(key, name, qlen, qtype, qclass, f);
		n += lruhash_remove(c->table, msg_key_hash(c->seed, name, qlen,
			qtype, qclass, f), key, (uint16_t)kl);
	}
	return n;
}

size_t msg_cache_flush_zone(struct msg_cache* c, const uint8_t* zone)
{
	return lruhash_remove_under(c->table, zone);
}

void msg_cache_flush_all(struct msg_cache* c)
{
	lruhash_clear(c->table);
}

void msg_cache_set_max_mem(struct msg_cache* c, size_t maxmem)
{
	lruhash_set_max_mem(c->table, maxmem);
}

struct walk_arg {
	int (*fn)(struct msg_entry* m, void* arg);
	void* arg;
};

static int walk_one(struct lruhash_entry* e, void* arg)
{
	struct walk_arg* w = arg;
	return w->fn((struct msg_entry*)e, w->arg);
}

size_t msg_cache_walk(struct msg_cache* c,
	int (*fn)(struct msg_entry* m, void* arg), void* arg)
{
	struct walk_arg w;
	w.fn = fn;
	w.arg = arg;
	return lruhash_walk(c->table, walk_one, &w);
}
