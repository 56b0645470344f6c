/* SPDX-License-Identifier: BSD-3-Clause */
/* services/cache/rrset.c - the RRset cache: entries, the store rules
 * (trust, no TTL extension without refresh), lookups and flushes. */
#include "config.h"
#include "services/cache/rrset.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/hash_mix.h"
#include "util/log.h"
#include "util/wire_int.h"
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define MALLOC_OVERHEAD 16  /* rough heap header, counted in the bound */
#define KEY_TAIL 8          /* type, class, flags after the owner */
#define MAX_RRS 65535       /* a packet cannot carry more */

static void entry_free(struct lruhash_entry* e, void* arg)
{
	(void)arg;
	free(e);
}

struct rrset_cache* rrset_cache_create(size_t maxmem, size_t slabs,
	uint32_t min_ttl, uint32_t max_ttl)
{
	struct rrset_cache* c = calloc(1, sizeof(*c));
	if(!c)
		return NULL;
	c->table = lruhash_create(slabs, maxmem, entry_free, NULL);
	if(!c->table) {
		free(c);
		return NULL;
	}
	/* random: owner names whose hashes collide cannot be chosen */
	if(getrandom(&c->seed, sizeof(c->seed), GRND_NONBLOCK) !=
		(ssize_t)sizeof(c->seed))
		c->seed = (uint32_t)(uintptr_t)c ^ (uint32_t)time(NULL);
	c->min_ttl = min_ttl;
	c->max_ttl = max_ttl;
	return c;
}

void rrset_cache_set_ttls(struct rrset_cache* c, const struct config_file* cfg)
{
	/* compat: unbound-1.17: serve-original-ttl ignores cache-min-ttl
	 * and cache-max-ttl */
	int orig = cfg->serve_original_ttl;
	/* relaxed: a reload sets them while workers store (clamp_ttl) */
	__atomic_store_n(&c->min_ttl, cfg->min_ttl < 0 || orig ? 0 :
		(uint32_t)cfg->min_ttl, __ATOMIC_RELAXED);
	__atomic_store_n(&c->max_ttl, orig ? UINT32_MAX : cfg->max_ttl < 0 ?
		0 : (uint32_t)cfg->max_ttl, __ATOMIC_RELAXED);
}

struct rrset_cache* rrset_cache_create_cfg(const struct config_file* cfg)
{
	struct rrset_cache* c = rrset_cache_create(cfg->rrset_cache_size,
		cfg->rrset_cache_slabs > 0 ? (size_t)cfg->rrset_cache_slabs : 1,
		0, 0);
	if(c)
		rrset_cache_set_ttls(c, cfg);
	return c;
}

void rrset_cache_delete(struct rrset_cache* c)
{
	if(!c)
		return;
	lruhash_delete(c->table);
	free(c);
}

/* Which of 4 neighbouring buckets an RRset of a name goes to: the
 * types a cache miss asks for at one name (A or AAAA, CNAME, NS) each
 * in its own. */
static uint32_t type_slot(uint16_t type, uint32_t flags)
{
	uint32_t slot;
	switch(type) {
	case TYPE_A:     slot = 0; break;
	case TYPE_AAAA:  slot = 1; break;
	case TYPE_NS:    slot = 2; break;
	case TYPE_CNAME: slot = 3; break;
	default:         slot = ((uint32_t)type * 0x9E3779B1U) >> 30;
	}
	return (slot ^ flags) & 3;
}

/* key = lowercased owner, type, class, flags; returns its length, with
 * the key's hash in *hash. The owner and class make the hash, and the
 * type's slot flips its lowest 2 bits: a name's RRsets sit in
 * neighbouring buckets of one slab, in one cache line, and a cache miss,
 * which asks for several types at the new name, reads that line from
 * memory once. (Flipped, not set: set, all A RRsets would crowd into a
 * quarter of the buckets.) */
static size_t rrset_key(const struct rrset_cache* c, uint8_t* key,
	const uint8_t* name, size_t len, uint16_t type, uint16_t rclass,
	uint32_t flags, uint32_t* hash)
{
	uint32_t nh;
	size_t n = dname_key_hash(key, name, len, type, rclass, c->seed, &nh);
	uint64_t h = nh;
	wire_wr16(key + n, (uint16_t)(flags >> 16));
	wire_wr16(key + n + 2, (uint16_t)flags);
	h ^= (uint64_t)rclass << 48;
	*hash = hash_fold32(h) ^ type_slot(type, flags);
	return n + 4;
}

static uint32_t clamp_ttl(const struct rrset_cache* c, uint32_t ttl)
{
	/* a reload may change them meanwhile (rrset_cache_set_ttls) */
	uint32_t min_ttl = __atomic_load_n(&c->min_ttl, __ATOMIC_RELAXED);
	uint32_t max_ttl = __atomic_load_n(&c->max_ttl, __ATOMIC_RELAXED);
	if(ttl & 0x80000000U)  /* RFC 2181 8: as if zero */
		ttl = 0;
	if(ttl < min_ttl)
		ttl = min_ttl;
	if(ttl > max_ttl)
		ttl = max_ttl;
	return ttl;
}

/* The bytes of the entry for rrset and sigs; 0 when malformed. *ttl:
 * its TTL (the least of the set's and its signatures'), unclamped. */
static size_t entry_bytes(const struct packed_rrset* rrset,
	const struct packed_rrset* sigs, uint32_t* ttl)
{
	size_t nsig = sigs ? sigs->count : 0, n = rrset->count + nsig, i;
	size_t bytes = 0;
	if(rrset->count == 0 || n > MAX_RRS || !rrset->owner ||
		dname_valid(rrset->owner, rrset->owner_len) != rrset->owner_len)
		return 0;
	for(i = 0; i < n; i++) {
		const struct packed_rrset* s = i < rrset->count ? rrset : sigs;
		size_t k = i < rrset->count ? i : i - rrset->count;
		if(!s->rdata[k] && s->rdlen[k] != 0)
			return 0;
		bytes += s->rdlen[k];
	}
	*ttl = rrset->ttl;
	if(sigs && nsig && sigs->ttl < *ttl)
		*ttl = sigs->ttl;
	return sizeof(struct rrset_entry) + n * (sizeof(const uint8_t*) +
		sizeof(uint16_t)) + rrset->owner_len + KEY_TAIL + bytes;
}

/* A new entry of alloc bytes (entry_bytes) holding a copy of rrset and
 * sigs under key (rrset_key) with its hash; NULL if out of memory. */
static struct rrset_entry* entry_new(const struct packed_rrset* rrset,
	const struct packed_rrset* sigs, size_t alloc, const uint8_t* key,
	size_t keylen, uint32_t hash, uint32_t flags, enum rrset_trust trust,
	time_t expire)
{
	size_t nsig = sigs ? sigs->count : 0, n = rrset->count + nsig, i;
	struct rrset_entry* e = malloc(alloc);
	const uint8_t** rdp;
	uint16_t* rdl;
	uint8_t* k, *p;
	if(!e) {
		log_oom("RRset cache: an RRset not stored");
		return NULL;
	}
	rdp = (const uint8_t**)(e + 1);
	rdl = (uint16_t*)(rdp + n);
	k = (uint8_t*)(rdl + n);
	p = k + keylen;
	for(i = 0; i < n; i++) {
		const struct packed_rrset* s = i < rrset->count ? rrset : sigs;
		size_t j = i < rrset->count ? i : i - rrset->count;
		rdl[i] = s->rdlen[j];
		rdp[i] = p;
		if(rdl[i])
			memcpy(p, s->rdata[j], rdl[i]);
		p += rdl[i];
	}
	memcpy(k, key, keylen);
	e->expire = expire;
	e->flags = flags;
	e->type = rrset->type;
	e->rclass = rrset->rclass;
	e->trust = (uint8_t)trust;
	e->count = rrset->count;
	e->rrsig_count = nsig;
	e->owner = k;
	e->owner_len = rrset->owner_len;
	e->rdata = rdp;
	e->rdlen = rdl;
	lruhash_entry_init(&e->lh, hash, k, (uint16_t)keylen,
		alloc + MALLOC_OVERHEAD);
	return e;
}

static int same_data(const struct rrset_entry* a, const struct rrset_entry* b)
{
	size_t i;
	if(a->count != b->count || a->rrsig_count != b->rrsig_count)
		return 0;
	for(i = 0; i < a->count + a->rrsig_count; i++)
		if(a->rdlen[i] != b->rdlen[i] || memcmp(a->rdata[i],
			b->rdata[i], a->rdlen[i]) != 0)
			return 0;
	return 1;
}

struct store_arg {
	time_t now;
	int can_refresh;
	int kept;
};

/* The store rules, under the slab lock (see rrset_cache_store). */
static int decide(const struct lruhash_entry* o, struct lruhash_entry* n,
	void* arg)
{
	struct store_arg* a = arg;
	const struct rrset_entry* old = (const struct rrset_entry*)o;
	struct rrset_entry* new_e = (struct rrset_entry*)n;
	if(old->expire <= a->now)
		return 1;
	if(new_e->trust < old->trust ||
		(!a->can_refresh && new_e->trust == old->trust &&
		same_data(old, new_e))) {
		a->kept = 1;
		return 0;
	}
	if(!a->can_refresh && new_e->expire > old->expire)
		new_e->expire = old->expire;
	return 1;
}

/* Does entry a hold what rrset and sigs hold (same_data without an
 * entry for the new one)? */
static int same_packed(const struct rrset_entry* a,
	const struct packed_rrset* rrset, const struct packed_rrset* sigs)
{
	size_t nsig = sigs ? sigs->count : 0, i;
	if(a->count != rrset->count || a->rrsig_count != nsig)
		return 0;
	for(i = 0; i < a->count + nsig; i++) {
		const struct packed_rrset* s = i < rrset->count ? rrset : sigs;
		size_t k = i < rrset->count ? i : i - rrset->count;
		if(a->rdlen[i] != s->rdlen[k] || (s->rdlen[k] &&
			memcmp(a->rdata[i], s->rdata[k], s->rdlen[k]) != 0))
			return 0;
	}
	return 1;
}

struct keep_check {
	const struct packed_rrset* rrset, *sigs;
	uint8_t trust;
	int can_refresh;
	time_t now;
};

/* decide's "keep the old one", asked before the new entry is made. */
static int keeps_old(const struct lruhash_entry* o, void* arg)
{
	const struct keep_check* k = arg;
	const struct rrset_entry* old = (const struct rrset_entry*)o;
	if(old->expire <= k->now)
		return 0;
	return k->trust < old->trust || (!k->can_refresh &&
		k->trust == old->trust && same_packed(old, k->rrset, k->sigs));
}

enum rrset_store_result rrset_cache_store(struct rrset_cache* c,
	const struct packed_rrset* rrset, const struct packed_rrset* sigs,
	uint32_t flags, enum rrset_trust trust, int can_refresh, time_t now)
{
	uint8_t key[LDNS_MAX_DOMAINLEN + 1 + KEY_TAIL];
	struct store_arg a;
	struct keep_check k;
	struct rrset_entry* e;
	uint32_t ttl, hash;
	size_t alloc = entry_bytes(rrset, sigs, &ttl), keylen;
	time_t expire;
	if(!alloc)
		return RRSET_NOT_STORED;
	expire = now + (time_t)clamp_ttl(c, ttl);
	if(expire <= now)   /* TTL 0: nothing to keep */
		return RRSET_NOT_STORED;
	keylen = rrset_key(c, key, rrset->owner, rrset->owner_len,
		rrset->type, rrset->rclass, flags, &hash);
	/* the NS set and glue of a zone come again with every reply from
	 * it: what the cache keeps anyway is not copied first */
	k.rrset = rrset;
	k.sigs = sigs;
	k.trust = (uint8_t)trust;
	k.can_refresh = can_refresh;
	k.now = now;
	if(lruhash_insert_keeps(c->table, hash, key, (uint16_t)keylen,
		alloc + MALLOC_OVERHEAD, keeps_old, &k))
		return RRSET_KEPT_OLD;
	e = entry_new(rrset, sigs, alloc, key, keylen, hash, flags, trust,
		expire);
	if(!e)
		return RRSET_NOT_STORED;
	a.now = now;
	a.can_refresh = can_refresh;
	a.kept = 0;
	if(lruhash_insert(c->table, &e->lh, decide, &a))
		return RRSET_STORED;
	return a.kept ? RRSET_KEPT_OLD : RRSET_NOT_STORED;
}

void rrset_cache_prefetch(struct rrset_cache* c, const uint8_t* name,
	size_t len, uint16_t rclass)
{
	uint8_t key[LDNS_MAX_DOMAINLEN + 1 + KEY_TAIL];
	uint32_t hash;
	if(len == 0 || len > LDNS_MAX_DOMAINLEN + 1)
		return;
	(void)rrset_key(c, key, name, len, TYPE_A, rclass, 0, &hash);
	lruhash_prefetch(c->table, hash);
}

struct rrset_entry* rrset_cache_lookup(struct rrset_cache* c,
	const uint8_t* name, uint16_t type, uint16_t rclass, uint32_t flags,
	time_t now)
{
	uint8_t key[LDNS_MAX_DOMAINLEN + 1 + KEY_TAIL];
	size_t len = dname_valid(name, LDNS_MAX_DOMAINLEN + 1), kl;
	struct rrset_entry* e;
	uint32_t hash;
	if(len == 0)
		return NULL;
	kl = rrset_key(c, key, name, len, type, rclass, flags, &hash);
	e = (struct rrset_entry*)lruhash_lookup(c->table, hash, key,
		(uint16_t)kl);
	if(e && e->expire <= now) {
		lruhash_release(c->table, &e->lh);
		return NULL;
	}
	return e;
}

void rrset_cache_release(struct rrset_cache* c, struct rrset_entry* e)
{
	if(e)
		lruhash_release(c->table, &e->lh);
}

struct rrset_entry* rrset_cache_closest_ns(struct rrset_cache* c,
	const uint8_t* qname, uint16_t qclass, time_t now)
{
	return rrset_cache_closest_ns_below(c, qname, qclass, 0, now);
}

struct rrset_entry* rrset_cache_closest_ns_below(struct rrset_cache* c,
	const uint8_t* qname, uint16_t qclass, int min_labels, time_t now)
{
	const uint8_t* n = qname;
	int labs;
	if(dname_valid(qname, LDNS_MAX_DOMAINLEN + 1) == 0)
		return NULL;
	for(labs = dname_count_labels(qname); labs > min_labels; labs--) {
		struct rrset_entry* e = rrset_cache_lookup(c, n, TYPE_NS,
			qclass, 0, now);
		if(e)
			return e;
		if(n[0] == 0)
			return NULL;
		n = dname_remove_label(n);
	}
	return NULL;
}

void rrset_entry_view(const struct rrset_entry* e, time_t now,
	struct packed_rrset* rr, struct packed_rrset* sigs)
{
	uint32_t ttl = e->expire > now ? (uint32_t)(e->expire - now) : 0;
	rr->owner = e->owner;
	rr->owner_len = e->owner_len;
	rr->type = e->type;
	rr->rclass = e->rclass;
	rr->ttl = ttl;
	rr->count = e->count;
	rr->rdata = e->rdata;
	rr->rdlen = e->rdlen;
	if(sigs) {
		*sigs = *rr;
		sigs->type = TYPE_RRSIG;
		sigs->count = e->rrsig_count;
		sigs->rdata = e->rdata + e->count;
		sigs->rdlen = e->rdlen + e->count;
	}
}

int rrset_cache_remove(struct rrset_cache* c, const uint8_t* name,
	uint16_t type, uint16_t rclass, uint32_t flags)
{
	uint8_t key[LDNS_MAX_DOMAINLEN + 1 + KEY_TAIL];
	size_t len = dname_valid(name, LDNS_MAX_DOMAINLEN + 1), kl;
	uint32_t hash;
	if(len == 0)
		return 0;
	kl = rrset_key(c, key, name, len, type, rclass, flags, &hash);
	return lruhash_remove(c->table, hash, key, (uint16_t)kl);
}

size_t rrset_cache_flush_zone(struct rrset_cache* c, const uint8_t* zone)
{
	return lruhash_remove_under(c->table, zone);
}

void rrset_cache_flush_all(struct rrset_cache* c)
{
	lruhash_clear(c->table);
}

void rrset_cache_set_max_mem(struct rrset_cache* c, size_t maxmem)
{
	lruhash_set_max_mem(c->table, maxmem);
}

struct walk_arg {
	int (*fn)(struct rrset_entry* e, void* arg);
	void* arg;
};

static int walk_one(struct lruhash_entry* e, void* arg)
{
	struct walk_arg* w = arg;
	return w->fn((struct rrset_entry*)e, w->arg);
}

size_t rrset_cache_walk(struct rrset_cache* c,
	int (*fn)(struct rrset_entry* e, void* arg), void* arg)
{
	struct walk_arg w;
	w.fn = fn;
	w.arg = arg;
	return lruhash_walk(c->table, walk_one, &w);
}
