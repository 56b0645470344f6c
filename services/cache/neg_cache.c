/* SPDX-License-Identifier: BSD-3-Clause */
/* services/cache/neg_cache.c - the aggressive NSEC cache; see the header. The
 * index entries of one zone (an NSEC's owner, as its canonical key) sit in
 * a canonical-order tree (negtree.h); every entry is also on one LRU
 * list over all zones, newest (last used) first, for the byte bound. The
 * NSEC RRsets themselves are in the RRset cache (neg_rrset.h). */
#include "config.h"
#include "services/cache/neg_cache.h"
#include "services/cache/neg_rrset.h"
#include "services/cache/negtree.h"
#include "services/cache/neg_nsec3.h"
#include "validator/val_nsec3_iter.h"
#include "validator/val_nsec.h"
#include "services/cache/rrset.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/lru_list.h"
#include "util/msgparse.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MALLOC_OVERHEAD 16  /* rough heap header, counted in the bound */

struct neg_zone;

/* One NSEC owner of a zone: only the name (its canonical key, from
 * which the wire name is rebuilt when the RRset is fetched), so that
 * neg-cache-size counts what the index takes, about 110 bytes an NSEC,
 * as Unbound's counts its index. */
struct neg_item {
	struct negtree_node node;     /* key NULL; ckey = data */
	struct lru_link lru;          /* most recently used first */
	struct neg_zone* zone;
	uint8_t data[];               /* the canonical key */
};

struct neg_zone {
	struct negtree_node node;     /* in the cache's zone tree */
	struct negtree nsecs;
	size_t items;
	int wild_seen;                /* a wildcard RRset of the zone went
	                               * to the RRset cache: look for one */
	ldns_rr* soa;                 /* NULL until a negative answer */
	ldns_rr_list* soa_sigs;
	time_t soa_expire;
	size_t soa_mem;
	size_t mem;                   /* of this struct and its names */
	const uint8_t* name;          /* lowercased wire, in data */
	uint8_t data[];               /* the name, then its canonical key */
};

struct neg_cache {
	pthread_mutex_t lock;
	struct negtree zones;
	struct lru_list lru;
	size_t mem, maxmem, count;
	struct rrset_cache* rrsets;   /* where the NSEC RRsets are */
	struct neg_nsec3* nsec3;  /* NSEC3 for DS (neg_nsec3.h) */
};

/* Bytes an ldns RR takes, roughly (each allocation with malloc's
 * overhead): what the bound counts. */
static size_t rr_mem(const ldns_rr* rr)
{
	size_t i, m = sizeof(ldns_rr) + 16 + sizeof(ldns_rdf) + 16 +
		ldns_rdf_size(ldns_rr_owner(rr)) + 16;
	for(i = 0; i < ldns_rr_rd_count(rr); i++)
		m += sizeof(ldns_rdf) + 16 + ldns_rdf_size(ldns_rr_rdf(rr, i))
			+ 16 + sizeof(void*);
	return m;
}

static size_t list_mem(const ldns_rr_list* l)
{
	size_t i, m = l ? sizeof(*l) + 16 : 0;
	for(i = 0; l && i < ldns_rr_list_rr_count(l); i++)
		m += rr_mem(ldns_rr_list_rr(l, i)) + sizeof(void*);
	return m;
}

struct neg_cache* neg_cache_create(size_t maxmem,
	struct rrset_cache* rrsets)
{
	struct neg_cache* c = calloc(1, sizeof(*c));
	if(!c)
		return NULL;
	if(pthread_mutex_init(&c->lock, NULL) != 0) {
		free(c);
		return NULL;
	}
	negtree_init(&c->zones,
		(uint32_t)(uintptr_t)c ^ (uint32_t)time(NULL));
	c->maxmem = maxmem;
	c->rrsets = rrsets;
	if(!(c->nsec3 = neg_nsec3_create(maxmem, 150))) {
		pthread_mutex_destroy(&c->lock);
		free(c);
		return NULL;
	}
	return c;
}

struct neg_cache* neg_cache_create_cfg(const struct config_file* cfg,
	struct rrset_cache* rrsets)
{
	/* compat: unbound-1.17: the NSEC3 parameters are kept up to the last
	 * pair's iterations of val-nsec3-keysize-iterations, as Unbound's
	 * neg cache */
	struct nsec3_iter_table t;
	char err[128];
	struct neg_cache* c = neg_cache_create(cfg->neg_cache_size, rrsets);
	if(c && val_nsec3_iter_parse(cfg->val_nsec3_key_iterations ?
		cfg->val_nsec3_key_iterations : NSEC3_ITER_DEFAULT, &t, err,
		sizeof(err))) {
		neg_nsec3_delete(c->nsec3);
		if(!(c->nsec3 = neg_nsec3_create(c->maxmem,
			val_nsec3_iter_max(&t, SIZE_MAX)))) {
			neg_cache_delete(c);
			return NULL;
		}
	}
	return c;
}

struct neg_nsec3* neg_nsec3_of(struct neg_cache* c)
{
	return c ? c->nsec3 : NULL;
}

static void zone_free(struct neg_cache* c, struct neg_zone* z)
{
	negtree_remove(&c->zones, &z->node);
	if(z->soa)
		ldns_rr_free(z->soa);
	ldns_rr_list_deep_free(z->soa_sigs);
	c->mem -= z->soa_mem + z->mem;
	free(z);
}

static size_t item_mem(const struct neg_item* it)
{
	return sizeof(*it) + it->node.cklen + MALLOC_OVERHEAD;
}

/* Take one entry out and free it; its zone goes with its last one. */
static void item_remove(struct neg_cache* c, struct neg_item* it)
{
	struct neg_zone* z = it->zone;
	lru_list_remove(&c->lru, &it->lru);
	negtree_remove(&z->nsecs, &it->node);
	c->mem -= item_mem(it);
	c->count--;
	free(it);
	if(--z->items == 0)
		zone_free(c, z);
}

/* Evict from the LRU tail until the bound holds (keep is spared: the
 * entry just added, when it alone is over the bound). The RRsets stay
 * in the RRset cache, which has its own bound. */
static void shrink(struct neg_cache* c, const struct neg_item* keep)
{
	struct neg_item* last;
	while(c->mem > c->maxmem && (last = LRU_ITEM(c->lru.tail,
		struct neg_item, lru)) != NULL && last != keep)
		item_remove(c, last);
}

static struct neg_zone* zone_get(struct neg_cache* c,
	const uint8_t* name, int create)
{
	struct negtree_node* n = negtree_find(&c->zones, name);
	struct neg_zone* z;
	size_t len, kl;
	uint8_t ck[NEGTREE_CKEY_MAX];
	if(n)
		return (struct neg_zone*)n;
	len = dname_valid(name, LDNS_MAX_DOMAINLEN + 1);
	if(!create || len == 0)
		return NULL;
	kl = negtree_ckey(name, ck);
	if(!(z = calloc(1, sizeof(*z) + len + kl)))
		return NULL;
	memcpy(z->data, name, len);
	dname_tolower(z->data);
	memcpy(z->data + len, ck, kl);
	z->name = z->data;
	z->node.key = z->name;
	z->node.ckey = z->data + len;
	z->node.cklen = (uint16_t)kl;
	z->mem = sizeof(*z) + len + kl + MALLOC_OVERHEAD;
	negtree_init(&z->nsecs, c->zones.rnd ^ (uint32_t)len);
	(void)negtree_insert(&c->zones, &z->node);
	c->mem += z->mem;
	return z;
}

/* The lowercased wire owner of rr into out; 0 if malformed. */
static int owner_of(const ldns_rr* rr, uint8_t* out)
{
	const ldns_rdf* o = ldns_rr_owner(rr);
	size_t sz = o ? ldns_rdf_size(o) : 0;
	if(sz == 0 || sz > LDNS_MAX_DOMAINLEN + 1 ||
		dname_valid(ldns_rdf_data(o), sz) != sz)
		return 0;
	memcpy(out, ldns_rdf_data(o), sz);
	dname_tolower(out);
	return 1;
}

/* An RRSIG's signer (lowercased) into out; 0 if none. */
static int signer_of(const ldns_rr* sig, uint8_t* out)
{
	const ldns_rdf* s = ldns_rr_rrsig_signame(sig);
	size_t sz = s ? ldns_rdf_size(s) : 0;
	if(sz == 0 || sz > LDNS_MAX_DOMAINLEN + 1 ||
		dname_valid(ldns_rdf_data(s), sz) != sz)
		return 0;
	memcpy(out, ldns_rdf_data(s), sz);
	dname_tolower(out);
	return 1;
}

static uint16_t covered_of(const ldns_rr* sig)
{
	const ldns_rdf* t = ldns_rr_rrsig_typecovered(sig);
	return t ? (uint16_t)ldns_rdf2rr_type(t) : 0;
}

/* The RRSIGs in list over (owner, type), cloned; NULL if none (or no
 * memory). *signer: the first one's signer. */
static ldns_rr_list* sigs_for(const ldns_rr_list* list, const uint8_t* owner,
	uint16_t type, uint8_t* signer)
{
	ldns_rr_list* out = NULL;
	size_t i;
	uint8_t o[LDNS_MAX_DOMAINLEN + 1];
	for(i = 0; list && i < ldns_rr_list_rr_count(list); i++) {
		ldns_rr* rr = ldns_rr_list_rr(list, i);
		ldns_rr* cl;
		if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_RRSIG ||
			covered_of(rr) != type || !owner_of(rr, o) ||
			query_dname_compare(o, owner) != 0)
			continue;
		if(!out && (!signer_of(rr, signer) ||
			!(out = ldns_rr_list_new())))
			return NULL;
		if(!(cl = ldns_rr_clone(rr)) || !ldns_rr_list_push_rr(out, cl)) {
			ldns_rr_free(cl);
			ldns_rr_list_deep_free(out);
			return NULL;
		}
	}
	return out;
}

/* The owner name of zone z into its index (or the entry there moved to
 * the LRU front). */
static void index_add(struct neg_cache* c, struct neg_zone* z,
	const uint8_t* name)
{
	uint8_t ck[NEGTREE_CKEY_MAX];
	size_t kl = negtree_ckey(name, ck);
	struct neg_item* it;
	struct negtree_node* old = negtree_find(&z->nsecs, name);
	if(old) {
		it = (struct neg_item*)old;
		lru_list_touch(&c->lru, &it->lru);
		return;
	}
	if(!(it = calloc(1, sizeof(*it) + kl))) {
		if(z->items == 0)   /* just made for it */
			zone_free(c, z);
		return;
	}
	memcpy(it->data, ck, kl);
	it->node.ckey = it->data;
	it->node.cklen = (uint16_t)kl;
	it->zone = z;
	z->items++;
	(void)negtree_insert(&z->nsecs, &it->node);
	lru_list_push_front(&c->lru, &it->lru);
	c->mem += item_mem(it);
	c->count++;
	shrink(c, it);
}

static uint32_t min_ttl_of(const ldns_rr* rr, const ldns_rr_list* sigs)
{
	uint32_t t = ldns_rr_ttl(rr);
	size_t i;
	for(i = 0; sigs && i < ldns_rr_list_rr_count(sigs); i++)
		if(ldns_rr_ttl(ldns_rr_list_rr(sigs, i)) < t)
			t = ldns_rr_ttl(ldns_rr_list_rr(sigs, i));
	return t;
}

/* The NSECs of a secure authority section: each RRset to the RRset cache,
 * its owner to its zone's index. */
static void add_nsecs(struct neg_cache* c, const ldns_rr_list* auth,
	time_t now)
{
	size_t i;
	for(i = 0; auth && i < ldns_rr_list_rr_count(auth); i++) {
		ldns_rr* rr = ldns_rr_list_rr(auth, i);
		uint8_t owner[LDNS_MAX_DOMAINLEN + 1];
		uint8_t signer[LDNS_MAX_DOMAINLEN + 1];
		const uint8_t* o, *nx;
		ldns_rr_list* sigs, *one;
		struct neg_zone* z;
		uint32_t ttl;
		int ok;
		if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_NSEC ||
			ldns_rr_get_class(rr) != LDNS_RR_CLASS_IN ||
			!val_nsec_names(rr, &o, &nx) || !owner_of(rr, owner))
			continue;
		sigs = sigs_for(auth, owner, TYPE_NSEC, signer);
		/* an NSEC speaks for its signer's zone only */
		if(!sigs || !dname_subdomain_c(owner, signer) ||
			!dname_subdomain_c(nx, signer) ||
			(ttl = min_ttl_of(rr, sigs)) == 0 ||
			!(one = ldns_rr_list_new())) {
			ldns_rr_list_deep_free(sigs);
			continue;
		}
		(void)ldns_rr_list_push_rr(one, rr);   /* shallow */
		/* the apex NSEC apart from the parent side's at a delegation
		 * (the RRset cache's key flag, as Unbound) */
		ok = neg_rrset_store(c->rrsets, one, sigs, NULL,
			query_dname_compare(owner, signer) == 0 ?
			RRSET_FLAG_NSEC_APEX : 0, ttl, now);
		ldns_rr_list_free(one);
		ldns_rr_list_deep_free(sigs);
		if(ok && (z = zone_get(c, signer, 1)) != NULL)
			index_add(c, z, owner);
	}
}

/* The zone's SOA from a secure negative answer (its zone must hold
 * records by now). Kept for min(TTL, MINIMUM), as RFC 2308 caches it. */
static void add_soa(struct neg_cache* c, const ldns_rr_list* auth,
	time_t now)
{
	size_t i;
	for(i = 0; auth && i < ldns_rr_list_rr_count(auth); i++) {
		const ldns_rr* rr = ldns_rr_list_rr(auth, i);
		uint8_t owner[LDNS_MAX_DOMAINLEN + 1];
		uint8_t signer[LDNS_MAX_DOMAINLEN + 1];
		ldns_rr_list* sigs;
		struct neg_zone* z;
		ldns_rr* cl;
		uint32_t ttl;
		const ldns_rdf* minimum;
		if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_SOA ||
			ldns_rr_rd_count(rr) < 7 || !owner_of(rr, owner))
			continue;
		if(!(z = zone_get(c, owner, 0)))
			continue;
		sigs = sigs_for(auth, owner, TYPE_SOA, signer);
		if(!sigs || query_dname_compare(signer, owner) != 0 ||
			!(cl = ldns_rr_clone(rr))) {
			ldns_rr_list_deep_free(sigs);
			continue;
		}
		ttl = min_ttl_of(rr, sigs);
		minimum = ldns_rr_rdf(rr, 6);
		if(minimum && ldns_rdf_size(minimum) == 4 &&
			ldns_rdf2native_int32(minimum) < ttl)
			ttl = ldns_rdf2native_int32(minimum);
		if(z->soa)
			ldns_rr_free(z->soa);
		ldns_rr_list_deep_free(z->soa_sigs);
		c->mem -= z->soa_mem;
		z->soa = cl;
		z->soa_sigs = sigs;
		z->soa_expire = now + (time_t)ttl;
		z->soa_mem = rr_mem(cl) + list_mem(sigs);
		c->mem += z->soa_mem;
		shrink(c, NULL);
		return;
	}
}

/* The wildcard RRsets of a secure answer section: an RRSIG whose labels
 * field is below its owner's label count signed "*.<last labels>". */
static void add_wildcards(struct neg_cache* c, const ldns_rr_list* ans,
	time_t now)
{
	size_t i, j;
	for(i = 0; ans && i < ldns_rr_list_rr_count(ans); i++) {
		const ldns_rr* sig = ldns_rr_list_rr(ans, i);
		uint8_t owner[LDNS_MAX_DOMAINLEN + 1];
		uint8_t signer[LDNS_MAX_DOMAINLEN + 1];
		uint8_t wc[LDNS_MAX_DOMAINLEN + 1];
		const ldns_rdf* lab;
		uint16_t type;
		int labels;
		ldns_rr_list* rrs, *sigs;
		struct neg_zone* z;
		uint32_t ttl = 0;
		if(ldns_rr_get_type(sig) != LDNS_RR_TYPE_RRSIG ||
			!owner_of(sig, owner) || !(lab = ldns_rr_rrsig_labels(
			sig)) || ldns_rdf_size(lab) != 1)
			continue;
		type = covered_of(sig);
		labels = dname_count_labels(owner) - 1;
		if(type == TYPE_CNAME || type == TYPE_DNAME ||
			type == TYPE_NSEC || (int)ldns_rdf2native_int8(lab) >=
			labels || (val_dname_is_wild(owner) &&
			(int)ldns_rdf2native_int8(lab) == labels - 1))
			continue;
		if(val_dname_wildcard(val_dname_strip(owner, labels -
			(int)ldns_rdf2native_int8(lab)), wc) == 0)
			continue;
		/* once per RRset: the first RRSIG of it in the section */
		for(j = 0; j < i; j++) {
			const ldns_rr* p = ldns_rr_list_rr(ans, j);
			uint8_t po[LDNS_MAX_DOMAINLEN + 1];
			if(ldns_rr_get_type(p) == LDNS_RR_TYPE_RRSIG &&
				covered_of(p) == type && owner_of(p, po) &&
				query_dname_compare(po, owner) == 0)
				break;
		}
		if(j < i)
			continue;
		sigs = sigs_for(ans, owner, type, signer);
		rrs = ldns_rr_list_new();
		for(j = 0; rrs && sigs && j < ldns_rr_list_rr_count(ans); j++) {
			const ldns_rr* rr = ldns_rr_list_rr(ans, j);
			uint8_t o[LDNS_MAX_DOMAINLEN + 1];
			if(ldns_rr_get_type(rr) != type || !owner_of(rr, o) ||
				query_dname_compare(o, owner) != 0)
				continue;
			if(!ldns_rr_list_push_rr(rrs, (ldns_rr*)rr))  /* shallow */
				break;
			if(ttl == 0 || ldns_rr_ttl(rr) < ttl)
				ttl = ldns_rr_ttl(rr);
		}
		if(sigs && min_ttl_of(ldns_rr_list_rr(sigs, 0), sigs) < ttl)
			ttl = min_ttl_of(ldns_rr_list_rr(sigs, 0), sigs);
		/* to the RRset cache as "*.<closest encloser>", where an
		 * answer for another name below it takes it from */
		if(rrs && sigs && ldns_rr_list_rr_count(rrs) > 0 && ttl > 0 &&
			dname_subdomain_c(wc, signer) && neg_rrset_store(
			c->rrsets, rrs, sigs, wc, 0, ttl, now) &&
			(z = zone_get(c, signer, 0)) != NULL)
			z->wild_seen = 1;
		ldns_rr_list_free(rrs);
		ldns_rr_list_deep_free(sigs);
	}
}

void neg_cache_add(struct neg_cache* c, const ldns_rr_list* answer,
	const ldns_rr_list* authority, time_t now)
{
	if(!c)
		return;
	/* unlocked: neg_cache_set_max_mem may change it */
	if(__atomic_load_n(&c->maxmem, __ATOMIC_RELAXED) != 0 && c->rrsets) {
		pthread_mutex_lock(&c->lock);
		add_nsecs(c, authority, now);
		add_wildcards(c, answer, now);
		add_soa(c, authority, now);
		pthread_mutex_unlock(&c->lock);
	}
	/* its own store of copies, not in the RRset cache: a referral's
	 * NSEC3s are kept unchecked too (neg_nsec3.h) */
	neg_nsec3_add(c->nsec3, authority, NULL, NEG_NSEC3_SECURE,
		now);
}

/* ---- answering ------------------------------------------------------ */

/* The records used for one answer, and the least TTL left of them. */
struct synth {
	time_t now;
	uint32_t ttl;
	int ok;
	int dnssec;      /* the RRSIGs and NSECs go into the answer */
};

static void use_ttl(struct synth* s, time_t expire)
{
	uint32_t left = expire > s->now ? (uint32_t)(expire - s->now) : 0;
	if(left < s->ttl)
		s->ttl = left;
}

/* The deepest zone at or above name that holds records. */
static struct neg_zone* zone_for(struct neg_cache* c,
	const uint8_t* name)
{
	for(;;) {
		struct neg_zone* z = zone_get(c, name, 0);
		if(z)
			return z;
		if(!*name)
			return NULL;
		name = dname_remove_label(name);
	}
}

/* An entry's records, taken from the RRset cache for one answer. */
struct dec {
	ldns_rr_list* rrs, *sigs;
};

static void dec_free(struct dec* d)
{
	ldns_rr_list_deep_free(d->rrs);
	ldns_rr_list_deep_free(d->sigs);
	d->rrs = d->sigs = NULL;
}

/* The NSEC RRset of entry it from the RRset cache into d (its RRSIGs
 * only for a DNSSEC answer). Gone, expired or not validated there: the
 * entry is dropped from the index (it may be its zone's last: z is then
 * freed) and 0 returned. */
static int nsec_fetch(struct neg_cache* c, struct neg_item* it,
	struct synth* s, struct dec* d)
{
	uint8_t name[LDNS_MAX_DOMAINLEN + 1];
	struct neg_zone* z = it->zone;
	time_t expire = 0;
	if(negtree_ckey_name(it->node.ckey, it->node.cklen, name) &&
		neg_rrset_fetch(c->rrsets, name, TYPE_NSEC,
		it->node.cklen == z->node.cklen ? RRSET_FLAG_NSEC_APEX : 0,
		s->now, &d->rrs, s->dnssec ? &d->sigs : NULL, &expire)) {
		if(ldns_rr_list_rr_count(d->rrs) == 1) {
			use_ttl(s, expire);
			return 1;
		}
		dec_free(d);
	}
	item_remove(c, it);
	return 0;
}

/* The entry with the greatest owner <= name, with its NSEC fetched. */
static struct neg_item* nsec_le(struct neg_cache* c, struct neg_zone* z,
	const uint8_t* name, struct synth* s, struct dec* d)
{
	struct neg_item* it = (struct neg_item*)negtree_find_le(&z->nsecs,
		name);
	if(!it || !nsec_fetch(c, it, s, d))
		return NULL;
	return it;
}

/* Append clones of src's RRs to *dst (created when NULL). */
static void append(ldns_rr_list** dst, const ldns_rr_list* src, struct synth* s)
{
	size_t i;
	for(i = 0; src && i < ldns_rr_list_rr_count(src); i++) {
		ldns_rr* cl = ldns_rr_clone(ldns_rr_list_rr(src, i));
		if(!*dst && !(*dst = ldns_rr_list_new()))
			s->ok = 0;
		if(!cl || !*dst || !ldns_rr_list_push_rr(*dst, cl)) {
			ldns_rr_free(cl);
			s->ok = 0;
		}
	}
}

static void append_rr(ldns_rr_list** dst, const ldns_rr* rr, struct synth* s)
{
	ldns_rr* cl = ldns_rr_clone(rr);
	if(!*dst && !(*dst = ldns_rr_list_new()))
		s->ok = 0;
	if(!cl || !*dst || !ldns_rr_list_push_rr(*dst, cl)) {
		ldns_rr_free(cl);
		s->ok = 0;
	}
}

static void set_ttls(ldns_rr_list* l, uint32_t ttl)
{
	size_t i;
	for(i = 0; l && i < ldns_rr_list_rr_count(l); i++)
		ldns_rr_set_ttl(ldns_rr_list_rr(l, i), ttl);
}

/* Copies of the wildcard RRset and its RRSIGs with qname as owner. */
static void expand(ldns_rr_list** dst, const ldns_rr_list* src,
	const uint8_t* qname, struct synth* s)
{
	size_t i, len = dname_valid(qname, LDNS_MAX_DOMAINLEN + 1);
	for(i = 0; src && i < ldns_rr_list_rr_count(src); i++) {
		ldns_rr* cl = ldns_rr_clone(ldns_rr_list_rr(src, i));
		ldns_rdf* o = ldns_rdf_new_frm_data(LDNS_RDF_TYPE_DNAME, len,
			qname);
		if(!*dst && !(*dst = ldns_rr_list_new()))
			s->ok = 0;
		if(!cl || !o || !*dst) {
			ldns_rr_free(cl);
			ldns_rdf_deep_free(o);
			s->ok = 0;
			continue;
		}
		ldns_rdf_deep_free(ldns_rr_owner(cl));
		ldns_rr_set_owner(cl, o);
		if(!ldns_rr_list_push_rr(*dst, cl)) {
			ldns_rr_free(cl);
			s->ok = 0;
		}
	}
}

/* The RRs of src into *dst (created when NULL); src is left empty. */
static void move(ldns_rr_list** dst, ldns_rr_list** src, struct synth* s)
{
	size_t i, n = *src ? ldns_rr_list_rr_count(*src) : 0;
	if(n && !*dst && !(*dst = ldns_rr_list_new())) {
		s->ok = 0;
		return;
	}
	for(i = 0; i < n; i++)
		if(!ldns_rr_list_push_rr(*dst, ldns_rr_list_rr(*src, i))) {
			ldns_rr_free(ldns_rr_list_rr(*src, i));
			s->ok = 0;
		}
	ldns_rr_list_free(*src);
	*src = NULL;
}

/* The negative answer's authority: SOA, then the NSECs used (moved). */
static int negative(struct neg_zone* z, struct dec* a, struct dec* b,
	struct synth* s, uint32_t max_neg_ttl, ldns_rr_list** auth)
{
	if(!z->soa || z->soa_expire <= s->now)
		return 0;
	use_ttl(s, z->soa_expire);
	if(s->ttl > max_neg_ttl)
		s->ttl = max_neg_ttl;
	append_rr(auth, z->soa, s);
	if(!s->dnssec)
		return 1;
	append(auth, z->soa_sigs, s);
	move(auth, &a->rrs, s);
	move(auth, &a->sigs, s);
	if(b) {
		move(auth, &b->rrs, s);
		move(auth, &b->sigs, s);
	}
	return 1;
}

static void touch(struct neg_cache* c, struct neg_item* it)
{
	if(it)
		lru_list_touch(&c->lru, &it->lru);
}

/* The answer once the NSEC m at or before qname is found (decoded in
 * dm); the items it uses are touched. */
static enum neg_answer synth_from(struct neg_cache* c,
	struct neg_zone* z, struct neg_item* m, struct dec* dm,
	const uint8_t* qname, uint16_t qtype, uint32_t max_neg_ttl,
	struct synth* s, ldns_rr_list** ans, ldns_rr_list** auth,
	ldns_rr_list* proof)
{
	const ldns_rr* mrr = ldns_rr_list_rr(dm->rrs, 0);
	const uint8_t* ce;
	uint8_t wc[LDNS_MAX_DOMAINLEN + 1];
	struct neg_item* w;
	const ldns_rr* wrr;
	struct dec dw = { NULL, NULL };
	enum neg_answer kind = NEG_NONE;
	if(!val_nsec_proves_name_error(mrr, qname)) {
		/* the NSEC at the name, or before an empty non-terminal */
		if(val_nsec_prove_nodata(proof, qname, qtype, NULL) ==
			SEC_SECURE && negative(z, dm, NULL, s, max_neg_ttl, auth))
			kind = NEG_NODATA;
		if(kind != NEG_NONE)
			touch(c, m);
		return kind;
	}
	ce = val_nsec_closest_encloser(mrr, qname);
	if(!ce || !dname_subdomain_c(ce, z->name) ||
		val_dname_wildcard(ce, wc) == 0)
		return NEG_NONE;
	/* a wildcard RRset of the type in the RRset cache: the NSEC that
	 * proves the name absent with the wildcard's closest encloser is
	 * its proof */
	if(z->wild_seen && qtype != TYPE_CNAME && qtype != TYPE_DNAME &&
		qtype != TYPE_NSEC && qtype != TYPE_RRSIG &&
		qtype != TYPE_ANY) {
		struct dec d = { NULL, NULL };
		time_t expire = 0;
		if(neg_rrset_fetch(c->rrsets, wc, qtype, 0, s->now,
			&d.rrs, s->dnssec ? &d.sigs : NULL, &expire) &&
			val_nsec_prove_wildcard_answer(proof, qname, ce,
			NULL) == SEC_SECURE) {
			use_ttl(s, expire);
			expand(ans, d.rrs, qname, s);
			expand(ans, d.sigs, qname, s);
			dec_free(&d);
			if(s->dnssec) {
				move(auth, &dm->rrs, s);
				move(auth, &dm->sigs, s);
			}
			touch(c, m);
			return NEG_WILDCARD;
		}
		dec_free(&d);
	}
	w = (struct neg_item*)negtree_find_le(&z->nsecs, wc);
	if(!w)
		return NEG_NONE;
	if(w != m) {
		/* a miss drops w, never m: the zone stays */
		if(!nsec_fetch(c, w, s, &dw))
			return NEG_NONE;
		ldns_rr_list_push_rr(proof, ldns_rr_list_rr(dw.rrs, 0));
	}
	wrr = ldns_rr_list_rr(w != m ? dw.rrs : dm->rrs, 0);
	if(query_dname_compare(ldns_rdf_data(ldns_rr_owner(wrr)), wc) == 0) {
		/* the wildcard exists without the type: wildcard NODATA */
		if(val_nsec_prove_nodata(proof, qname, qtype, NULL) ==
			SEC_SECURE && negative(z, dm, w != m ? &dw : NULL, s,
			max_neg_ttl, auth))
			kind = NEG_NODATA;
	} else if(val_nsec_prove_nxdomain(proof, qname, NULL) == SEC_SECURE &&
		negative(z, dm, w != m ? &dw : NULL, s, max_neg_ttl, auth))
		kind = NEG_NXDOMAIN;
	/* proof points into dw (or moved RRs, now auth's): free it first */
	ldns_rr_list_set_rr_count(proof, 0);
	dec_free(&dw);
	if(kind != NEG_NONE) {
		touch(c, m);
		touch(c, w);
	}
	return kind;
}

static enum neg_answer synth_locked(struct neg_cache* c,
	const uint8_t* qname, uint16_t qtype, uint32_t max_neg_ttl,
	struct synth* s, ldns_rr_list** ans, ldns_rr_list** auth)
{
	const uint8_t* start = qname;
	struct neg_zone* z;
	struct neg_item* m;
	struct dec dm = { NULL, NULL };
	ldns_rr_list* proof;
	enum neg_answer kind;
	/* a DS is the parent zone's: look there */
	if(qtype == TYPE_DS) {
		if(!*qname)
			return NEG_NONE;
		start = dname_remove_label(qname);
	}
	if(!(z = zone_for(c, start)) || !(m = nsec_le(c, z, qname, s, &dm)))
		return NEG_NONE;
	if(!(proof = ldns_rr_list_new())) {
		dec_free(&dm);
		return NEG_NONE;
	}
	ldns_rr_list_push_rr(proof, ldns_rr_list_rr(dm.rrs, 0));
	kind = synth_from(c, z, m, &dm, qname, qtype, max_neg_ttl, s, ans,
		auth, proof);
	ldns_rr_list_free(proof);
	dec_free(&dm);
	return kind;
}

enum neg_answer neg_cache_synth(struct neg_cache* c,
	const uint8_t* qname, uint16_t qtype, time_t now, uint32_t max_neg_ttl,
	int dnssec, ldns_rr_list** answer, ldns_rr_list** authority)
{
	struct synth s;
	enum neg_answer kind;
	*answer = *authority = NULL;
	if(!c || __atomic_load_n(&c->maxmem, __ATOMIC_RELAXED) == 0)
		return NEG_NONE;
	s.now = now;
	s.ttl = UINT32_MAX;
	s.ok = 1;
	s.dnssec = dnssec;
	pthread_mutex_lock(&c->lock);
	kind = c->count ? synth_locked(c, qname, qtype, max_neg_ttl, &s,
		answer, authority) : NEG_NONE;
	pthread_mutex_unlock(&c->lock);
	if(kind == NEG_NONE || !s.ok || s.ttl == 0) {
		ldns_rr_list_deep_free(*answer);
		ldns_rr_list_deep_free(*authority);
		*answer = *authority = NULL;
		return NEG_NONE;
	}
	set_ttls(*answer, s.ttl);
	set_ttls(*authority, s.ttl);
	return kind;
}

void neg_cache_set_max_mem(struct neg_cache* c, size_t maxmem)
{
	if(!c)
		return;
	pthread_mutex_lock(&c->lock);
	__atomic_store_n(&c->maxmem, maxmem, __ATOMIC_RELAXED);
	shrink(c, NULL);
	pthread_mutex_unlock(&c->lock);
	neg_nsec3_set_max_mem(c->nsec3, maxmem);
}

void neg_cache_flush_all(struct neg_cache* c)
{
	if(!c)
		return;
	pthread_mutex_lock(&c->lock);
	while(c->lru.head)
		item_remove(c, LRU_ITEM(c->lru.head, struct neg_item, lru));
	pthread_mutex_unlock(&c->lock);
	neg_nsec3_flush_all(c->nsec3);
}

size_t neg_cache_flush_zone(struct neg_cache* c, const uint8_t* zone)
{
	size_t n = 0, kl;
	struct neg_item* it, *next;
	uint8_t ck[NEGTREE_CKEY_MAX];
	if(!c || !dname_valid(zone, LDNS_MAX_DOMAINLEN + 1))
		return 0;
	/* a name is at or below zone when zone's canonical key starts its
	 * own (a 0 byte there only ends a label) */
	kl = negtree_ckey(zone, ck);
	pthread_mutex_lock(&c->lock);
	for(it = LRU_ITEM(c->lru.head, struct neg_item, lru); it; it = next) {
		next = LRU_ITEM(it->lru.next, struct neg_item, lru);
		/* the entries at or below zone; a zone whose last entry
		 * goes is freed with it (next is not that entry) */
		if(it->node.cklen >= kl && memcmp(it->node.ckey, ck, kl) == 0) {
			item_remove(c, it);
			n++;
		}
	}
	pthread_mutex_unlock(&c->lock);
	return n + neg_nsec3_flush_zone(c->nsec3, zone);
}

size_t neg_cache_count(struct neg_cache* c)
{
	size_t n;
	if(!c)
		return 0;
	pthread_mutex_lock(&c->lock);
	n = c->count;
	pthread_mutex_unlock(&c->lock);
	return n;
}

size_t neg_cache_get_mem(struct neg_cache* c)
{
	size_t n;
	if(!c)
		return 0;
	pthread_mutex_lock(&c->lock);
	n = c->mem + sizeof(*c);
	pthread_mutex_unlock(&c->lock);
	return n + neg_nsec3_get_mem(c->nsec3);
}

void neg_cache_delete(struct neg_cache* c)
{
	if(!c)
		return;
	neg_cache_flush_all(c);
	neg_nsec3_delete(c->nsec3);
	pthread_mutex_destroy(&c->lock);
	free(c);
}
