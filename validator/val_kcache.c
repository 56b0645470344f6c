/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_kcache.c - the key cache: one malloc per entry (the
 * struct, the key, the RDATA pointers and lengths, the RDATA and the
 * reason text), stored in an lruhash. */
#include "config.h"
#include "validator/val_kcache.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/hash_mix.h"
#include "util/msgencode.h"
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define MALLOC_OVERHEAD 16  /* rough heap header, counted in the bound */
#define MAX_RRS 65535
#define TYPE_DNSKEY 48

static void entry_free(struct lruhash_entry* e, void* arg)
{
	(void)arg;
	free(e);
}

struct val_kcache* val_kcache_create(size_t maxmem, size_t slabs,
	uint32_t bogus_ttl)
{
	struct val_kcache* kc = calloc(1, sizeof(*kc));
	if(!kc)
		return NULL;
	if(!(kc->table = lruhash_create(slabs, maxmem, entry_free, NULL))) {
		free(kc);
		return NULL;
	}
	/* random: zone names whose hashes collide cannot be chosen */
	if(getrandom(&kc->seed, sizeof(kc->seed), GRND_NONBLOCK) !=
		(ssize_t)sizeof(kc->seed))
		kc->seed = (uint32_t)(uintptr_t)kc ^ (uint32_t)time(NULL);
	kc->bogus_ttl = bogus_ttl;
	return kc;
}

struct val_kcache* val_kcache_create_cfg(const struct config_file* cfg)
{
	return val_kcache_create(cfg->key_cache_size,
		cfg->key_cache_slabs > 0 ? (size_t)cfg->key_cache_slabs : 1,
		cfg->bogus_ttl < 0 ? 0 : (uint32_t)cfg->bogus_ttl);
}

void val_kcache_set_max_mem(struct val_kcache* kc, size_t maxmem)
{
	lruhash_set_max_mem(kc->table, maxmem);
}

void val_kcache_delete(struct val_kcache* kc)
{
	if(!kc)
		return;
	lruhash_delete(kc->table);
	free(kc);
}

/* key = lowercased name, DNSKEY, class; returns its length. */
static size_t kcache_key(uint8_t* key, const uint8_t* name, size_t len,
	uint16_t dclass)
{
	return dname_key(key, name, len, TYPE_DNSKEY, dclass);
}

static uint32_t key_hash(const struct val_kcache* kc, const uint8_t* name,
	uint16_t dclass)
{
	uint64_t h = dname_hash(name, kc->seed);
	h ^= (uint64_t)dclass << 40;
	return hash_fold32(h);
}

/* A new entry with room for n RRs of bytes RDATA and a reason of
 * textlen bytes (with its 0); NULL if the name is bad or no memory. */
static struct val_kentry* entry_new(const struct val_kcache* kc,
	const uint8_t* name, uint16_t dclass, size_t n, size_t bytes,
	size_t textlen)
{
	size_t namelen = dname_valid(name, LDNS_MAX_DOMAINLEN + 1);
	size_t alloc, keylen;
	struct val_kentry* e;
	uint8_t* key;
	if(namelen == 0 || n > MAX_RRS)
		return NULL;
	alloc = sizeof(*e) + n * (sizeof(uint8_t*) + sizeof(uint16_t)) +
		namelen + 4 + bytes + textlen;
	if(!(e = calloc(1, alloc)))
		return NULL;
	e->rdata = (const uint8_t* const*)(e + 1);
	e->rdlen = (const uint16_t*)((const uint8_t**)(e + 1) + n);
	key = (uint8_t*)((uint16_t*)e->rdlen + n);
	keylen = kcache_key(key, name, namelen, dclass);
	e->name = key;
	e->namelen = namelen;
	e->kclass = dclass;
	e->count = n;
	e->ede = VAL_EDE_NONE;
	lruhash_entry_init(&e->lh, key_hash(kc, key, dclass), key,
		(uint16_t)keylen, alloc + MALLOC_OVERHEAD);
	return e;
}

/* Where the RDATA (and then the text) of e goes. */
static uint8_t* entry_data(struct val_kentry* e)
{
	return (uint8_t*)e->name + e->namelen + 4;
}

static int insert(struct val_kcache* kc, struct val_kentry* e)
{
	return lruhash_insert(kc->table, &e->lh, NULL, NULL);
}

int val_kcache_store_good(struct val_kcache* kc,
	const struct packed_rrset* dnskey, time_t now)
{
	size_t i, bytes = 0;
	struct val_kentry* e;
	uint8_t* p;
	if(!dnskey || dnskey->count == 0 || !dnskey->owner ||
		dname_valid(dnskey->owner, dnskey->owner_len) !=
		dnskey->owner_len)
		return 0;
	for(i = 0; i < dnskey->count; i++) {
		if(!dnskey->rdata[i] && dnskey->rdlen[i] != 0)
			return 0;
		bytes += dnskey->rdlen[i];
	}
	if(!(e = entry_new(kc, dnskey->owner, dnskey->rclass, dnskey->count,
		bytes, 0)))
		return 0;
	p = entry_data(e);
	for(i = 0; i < dnskey->count; i++) {
		((uint16_t*)e->rdlen)[i] = dnskey->rdlen[i];
		((const uint8_t**)e->rdata)[i] = p;
		if(dnskey->rdlen[i])
			memcpy(p, dnskey->rdata[i], dnskey->rdlen[i]);
		p += dnskey->rdlen[i];
	}
	e->status = VAL_KEY_GOOD;
	/* RFC 2181 8: a TTL with the top bit set is taken as zero */
	e->ttl = (dnskey->ttl & 0x80000000U) ? 0 : dnskey->ttl;
	e->expire = now + (time_t)e->ttl;
	return insert(kc, e);
}

int val_kcache_store_null(struct val_kcache* kc, const uint8_t* name,
	uint16_t dclass, uint32_t ttl, time_t now)
{
	struct val_kentry* e = entry_new(kc, name, dclass, 0, 0, 0);
	if(!e)
		return 0;
	e->status = VAL_KEY_NULL;
	e->ttl = (ttl & 0x80000000U) ? 0 : ttl;
	e->expire = now + (time_t)e->ttl;
	return insert(kc, e);
}

int val_kcache_store_bad(struct val_kcache* kc, const uint8_t* name,
	uint16_t dclass, const struct val_reason* why, time_t now)
{
	size_t tl = why && why->text ? strlen(why->text) + 1 : 0;
	struct val_kentry* e = entry_new(kc, name, dclass, 0, 0, tl);
	if(!e)
		return 0;
	if(tl) {
		char* t = (char*)entry_data(e);
		memcpy(t, why->text, tl);
		e->reason = t;
	}
	e->ede = why ? why->ede : VAL_EDE_NONE;
	e->status = VAL_KEY_BAD;
	e->ttl = kc->bogus_ttl;
	e->expire = now + (time_t)kc->bogus_ttl;
	return insert(kc, e);
}

/* Lookup by a name of known length (any case); fresh entries only. */
static const struct val_kentry* lookup_len(struct val_kcache* kc,
	const uint8_t* name, size_t len, uint16_t dclass, time_t now)
{
	uint8_t key[LDNS_MAX_DOMAINLEN + 1 + 4];
	size_t keylen = kcache_key(key, name, len, dclass);
	struct lruhash_entry* h = lruhash_lookup(kc->table, key_hash(kc, key,
		dclass), key, (uint16_t)keylen);
	struct val_kentry* e = (struct val_kentry*)h;
	if(e && e->expire <= now) {
		lruhash_release(kc->table, h);
		return NULL;
	}
	return e;
}

const struct val_kentry* val_kcache_lookup(struct val_kcache* kc,
	const uint8_t* name, uint16_t dclass, time_t now)
{
	size_t len = dname_valid(name, LDNS_MAX_DOMAINLEN + 1);
	return len ? lookup_len(kc, name, len, dclass, now) : NULL;
}

const struct val_kentry* val_kcache_lookup_closest(struct val_kcache* kc,
	const uint8_t* name, uint16_t dclass, time_t now)
{
	size_t len = dname_valid(name, LDNS_MAX_DOMAINLEN + 1);
	if(len == 0)
		return NULL;
	for(;;) {
		const struct val_kentry* e = lookup_len(kc, name, len, dclass,
			now);
		const uint8_t* up;
		if(e || name[0] == 0)
			return e;
		up = dname_remove_label(name);
		len -= (size_t)(up - name);
		name = up;
	}
}

void val_kcache_release(struct val_kcache* kc, const struct val_kentry* e)
{
	if(e)
		lruhash_release(kc->table, (struct lruhash_entry*)&e->lh);
}

void val_kentry_view(const struct val_kentry* e, time_t now,
	struct packed_rrset* out)
{
	memset(out, 0, sizeof(*out));
	out->owner = e->name;
	out->owner_len = e->namelen;
	out->type = TYPE_DNSKEY;
	out->rclass = e->kclass;
	out->ttl = e->expire > now ? (uint32_t)(e->expire - now) : 0;
	if(e->status == VAL_KEY_GOOD) {
		out->count = e->count;
		out->rdata = e->rdata;
		out->rdlen = e->rdlen;
	}
}

struct flush_arg {
	const uint8_t* zone;
	time_t now;
	size_t fresh;
};

static int under_zone(struct lruhash_entry* h, void* arg)
{
	struct flush_arg* a = arg;
	const struct val_kentry* e = (const struct val_kentry*)h;
	if(!dname_subdomain_c(e->name, a->zone))
		return 0;
	if(e->expire > a->now)
		a->fresh++;
	return 1;
}

size_t val_kcache_flush_zone(struct val_kcache* kc, const uint8_t* zone,
	time_t now)
{
	struct flush_arg a;
	if(!kc || dname_valid(zone, LDNS_MAX_DOMAINLEN + 1) == 0)
		return 0;
	a.zone = zone;
	a.now = now;
	a.fresh = 0;
	(void)lruhash_walk(kc->table, under_zone, &a);
	return a.fresh;
}

static int is_bad(struct lruhash_entry* h, void* arg)
{
	(void)arg;
	return ((const struct val_kentry*)h)->status == VAL_KEY_BAD;
}

size_t val_kcache_flush_bad(struct val_kcache* kc)
{
	return kc ? lruhash_walk(kc->table, is_bad, NULL) : 0;
}

void val_kcache_flush_all(struct val_kcache* kc)
{
	if(kc)
		lruhash_clear(kc->table);
}

size_t val_kcache_count(struct val_kcache* kc)
{
	return kc ? lruhash_count(kc->table) : 0;
}

size_t val_kcache_get_mem(struct val_kcache* kc)
{
	return kc ? sizeof(*kc) + lruhash_get_mem(kc->table) : 0;
}
