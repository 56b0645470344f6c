/* SPDX-License-Identifier: BSD-3-Clause */
/* services/cache/neg_nsec3.c - NSEC3 records kept to prove DS absence; see
 * the header. Only an NSEC3 that can prove it is kept (NS, no DS, no SOA):
 * the others of a referral (the opt-out covers and the apex's of every
 * referral from an NSEC3 zone like com.) are looked at for the zone's
 * parameters only, and not copied. Records sit in one tree by owner (exact
 * lookups only: the owner is the hash, so there is no order to search in),
 * and so does each zone's SOA (its owner, the zone name, is never a hashed
 * one); zones in another tree by name; records and SOAs are on one LRU
 * list for the byte bound, and a zone goes with its last one. */
#include "config.h"
#include "services/cache/neg_nsec3.h"
#include "services/cache/negtree.h"
#include "validator/val_nsec3.h"
#include "util/dname.h"
#include "util/lru_list.h"
#include "util/msgparse.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct n3_zone {
	struct negtree_node node;
	size_t items;
	int have_params;
	uint8_t algo, saltlen;
	uint16_t iterations;
	uint8_t salt[255];
	uint8_t name[LDNS_MAX_DOMAINLEN + 1];
	uint8_t ckey[NEGTREE_CKEY_MAX];
};

struct n3_item {
	struct negtree_node node;     /* key: the owner */
	struct lru_link lru;          /* most recently used first */
	struct n3_zone* zone;
	int checked;
	int soa;                      /* the zone's SOA, not an NSEC3 */
	int nsec;                     /* a referral's NSEC at the
	                               * delegation (owner: its name) */
	time_t expire;
	size_t mem;
	ldns_rr_list* rrs, *sigs;
	uint8_t data[];               /* owner, then its canonical key */
};

/* A message's NSEC3 owners looked at, and RRs at one owner kept: a
 * referral or a denial has at most three owners, of one RR each; a
 * message with thousands (a 64 KiB answer holds 2,000) costs no more
 * than these. */
#define N3_MAX_OWNERS 16
#define N3_MAX_RRS 8

struct neg_nsec3 {
	pthread_mutex_t lock;
	struct negtree zones, items;
	struct lru_list lru;
	size_t mem, maxmem, count, max_iter;
};

/* Bytes an ldns RR takes, roughly (with malloc's overhead per block). */
static size_t rr_mem(const ldns_rr* rr)
{
	size_t i, m = sizeof(ldns_rr) + 2 * (sizeof(ldns_rdf) + 16) +
		ldns_rdf_size(ldns_rr_owner(rr)) + 16;
	for(i = 0; i < ldns_rr_rd_count(rr); i++)
		m += sizeof(ldns_rdf) + 32 + ldns_rdf_size(ldns_rr_rdf(rr, i)) +
			sizeof(void*);
	return m;
}

static size_t list_mem(const ldns_rr_list* l)
{
	size_t i, m = l ? sizeof(*l) + 16 : 0;
	for(i = 0; l && i < ldns_rr_list_rr_count(l); i++)
		m += rr_mem(ldns_rr_list_rr(l, i)) + sizeof(void*);
	return m;
}

struct neg_nsec3* neg_nsec3_create(size_t maxmem, size_t max_iter)
{
	struct neg_nsec3* c = calloc(1, sizeof(*c));
	if(!c)
		return NULL;
	if(pthread_mutex_init(&c->lock, NULL) != 0) {
		free(c);
		return NULL;
	}
	negtree_init(&c->zones, (uint32_t)(uintptr_t)c ^ 0x9e3779b9u);
	negtree_init(&c->items, (uint32_t)time(NULL) ^ 0x7f4a7c15u);
	c->maxmem = maxmem;
	c->max_iter = max_iter;
	return c;
}

static void item_remove(struct neg_nsec3* c, struct n3_item* it)
{
	struct n3_zone* z = it->zone;
	lru_list_remove(&c->lru, &it->lru);
	negtree_remove(&c->items, &it->node);
	ldns_rr_list_deep_free(it->rrs);
	ldns_rr_list_deep_free(it->sigs);
	c->mem -= it->mem;
	if(!it->soa)
		c->count--;
	free(it);
	if(--z->items == 0) {
		negtree_remove(&c->zones, &z->node);
		c->mem -= sizeof(*z);
		free(z);
	}
}

static void shrink(struct neg_nsec3* c, const struct n3_item* keep)
{
	struct n3_item* last;
	while(c->mem > c->maxmem && (last = LRU_ITEM(c->lru.tail,
		struct n3_item, lru)) != NULL && last != keep)
		item_remove(c, last);
}

static struct n3_zone* zone_get(struct neg_nsec3* c, const uint8_t* name,
	int create)
{
	struct negtree_node* n = negtree_find(&c->zones, name);
	struct n3_zone* z;
	if(n || !create)
		return (struct n3_zone*)n;
	if(!(z = calloc(1, sizeof(*z))))
		return NULL;
	memcpy(z->name, name, dname_valid(name, LDNS_MAX_DOMAINLEN + 1));
	dname_tolower(z->name);
	z->node.key = z->name;
	z->node.ckey = z->ckey;
	z->node.cklen = (uint16_t)negtree_ckey(z->name, z->ckey);
	(void)negtree_insert(&c->zones, &z->node);
	c->mem += sizeof(*z);
	return z;
}

/* The lowercased wire name of an rdf into out; 0 if malformed. */
static int name_of(const ldns_rdf* d, uint8_t* out)
{
	size_t sz = d ? ldns_rdf_size(d) : 0;
	if(sz == 0 || sz > LDNS_MAX_DOMAINLEN + 1 ||
		dname_valid(ldns_rdf_data(d), sz) != sz)
		return 0;
	memcpy(out, ldns_rdf_data(d), sz);
	dname_tolower(out);
	return 1;
}

static int owner_is(const ldns_rr* rr, const uint8_t* name)
{
	uint8_t o[LDNS_MAX_DOMAINLEN + 1];
	return name_of(ldns_rr_owner(rr), o) && query_dname_compare(o,
		name) == 0;
}

static uint16_t covered_of(const ldns_rr* sig)
{
	const ldns_rdf* t = ldns_rr_rrsig_typecovered(sig);
	return t ? (uint16_t)ldns_rdf2rr_type(t) : 0;
}

/* Clones of the RRs of list at owner of type (RRSIGs over type when
 * sigs); NULL when none or no memory. */
static ldns_rr_list* rrs_at(const ldns_rr_list* list, const uint8_t* owner,
	uint16_t type, int sigs)
{
	ldns_rr_list* out = NULL;
	size_t i;
	for(i = 0; list && i < ldns_rr_list_rr_count(list); i++) {
		ldns_rr* rr = ldns_rr_list_rr(list, i), *cl;
		uint16_t t = (uint16_t)ldns_rr_get_type(rr);
		if(sigs ? (t != TYPE_RRSIG || covered_of(rr) != type) :
			t != type)
			continue;
		if(ldns_rr_get_class(rr) != LDNS_RR_CLASS_IN ||
			!owner_is(rr, owner))
			continue;
		if((!out && !(out = ldns_rr_list_new())) ||
			!(cl = ldns_rr_clone(rr)) ||
			!ldns_rr_list_push_rr(out, cl)) {
			ldns_rr_list_deep_free(out);
			return NULL;
		}
	}
	return out;
}

static uint32_t min_ttl(const ldns_rr_list* a, const ldns_rr_list* b)
{
	uint32_t t = UINT32_MAX;
	size_t i;
	for(i = 0; a && i < ldns_rr_list_rr_count(a); i++)
		if(ldns_rr_ttl(ldns_rr_list_rr(a, i)) < t)
			t = ldns_rr_ttl(ldns_rr_list_rr(a, i));
	for(i = 0; b && i < ldns_rr_list_rr_count(b); i++)
		if(ldns_rr_ttl(ldns_rr_list_rr(b, i)) < t)
			t = ldns_rr_ttl(ldns_rr_list_rr(b, i));
	return t;
}

/* The signer of the first RRSIG over the type (NSEC3, NSEC) at owner; 0
 * if none. */
static int signer_of(const ldns_rr_list* list, const uint8_t* owner,
	uint16_t type, uint8_t* signer)
{
	size_t i;
	for(i = 0; i < ldns_rr_list_rr_count(list); i++) {
		const ldns_rr* rr = ldns_rr_list_rr(list, i);
		if(ldns_rr_get_type(rr) == LDNS_RR_TYPE_RRSIG &&
			covered_of(rr) == type && owner_is(rr, owner))
			return name_of(ldns_rr_rrsig_signame(rr), signer);
	}
	return 0;
}

/* Do two lists hold the same RRs (in order)? */
static int same_rrs(const ldns_rr_list* a, const ldns_rr_list* b)
{
	size_t i, n = ldns_rr_list_rr_count(a);
	if(n != ldns_rr_list_rr_count(b))
		return 0;
	for(i = 0; i < n; i++)
		if(ldns_rr_compare(ldns_rr_list_rr(a, i),
			ldns_rr_list_rr(b, i)) != 0)
			return 0;
	return 1;
}

/* The zone remembers the parameters of the newest NSEC3 kept in it
 * that is within the iteration bound, as Unbound's neg cache. */
static void take_params(struct neg_nsec3* c, struct n3_zone* z,
	const struct val_nsec3_rr* p)
{
	if(p->iterations > c->max_iter || p->saltlen > sizeof(z->salt))
		return;
	z->have_params = 1;
	z->algo = p->algo;
	z->iterations = p->iterations;
	z->saltlen = (uint8_t)p->saltlen;
	if(p->saltlen)
		memcpy(z->salt, p->salt, p->saltlen);
}

/* A record (rrs, sigs: freed here) at owner, in zone z (which has at
 * least one record, or is new and gets this one). */
static struct n3_item* item_add(struct neg_nsec3* c, struct n3_zone* z,
	const uint8_t* owner, int soa, ldns_rr_list* rrs, ldns_rr_list* sigs,
	uint32_t ttl, int checked, time_t now)
{
	size_t nl = dname_valid(owner, LDNS_MAX_DOMAINLEN + 1), kl;
	uint8_t ck[NEGTREE_CKEY_MAX];
	struct n3_item* it, *old;
	kl = negtree_ckey(owner, ck);
	if(!(it = calloc(1, sizeof(*it) + nl + kl))) {
		ldns_rr_list_deep_free(rrs);
		ldns_rr_list_deep_free(sigs);
		if(z->items == 0) {   /* new, and nothing came */
			negtree_remove(&c->zones, &z->node);
			c->mem -= sizeof(*z);
			free(z);
		}
		return NULL;
	}
	memcpy(it->data, owner, nl);
	memcpy(it->data + nl, ck, kl);
	it->node.key = it->data;
	it->node.ckey = it->data + nl;
	it->node.cklen = (uint16_t)kl;
	it->zone = z;
	it->checked = checked;
	it->soa = soa;
	it->expire = now + (time_t)ttl;
	it->rrs = rrs;
	it->sigs = sigs;
	it->mem = sizeof(*it) + nl + kl + 16 + list_mem(rrs) + list_mem(sigs);
	z->items++;   /* first: the old one must not take the zone along */
	old = (struct n3_item*)negtree_find(&c->items, owner);
	if(old)
		item_remove(c, old);
	(void)negtree_insert(&c->items, &it->node);
	lru_list_push_front(&c->lru, &it->lru);
	c->mem += it->mem;
	if(!soa)
		c->count++;
	shrink(c, it);
	return it;
}

/* Could the NSEC3 RRset at owner in list prove a DS absent (its first RR
 * usable, with NS and without SOA, no RR with DS; a collision leaves it
 * unknown which one is meant, as Unbound says)? *first: that RR, parsed
 * when *parsed is 1. */
static int can_prove(const ldns_rr_list* list, const uint8_t* owner,
	struct val_nsec3_rr* first, int* parsed)
{
	struct val_nsec3_rr p;
	size_t i;
	int n = 0, ds = 0;
	*parsed = 0;
	for(i = 0; i < ldns_rr_list_rr_count(list); i++) {
		const ldns_rr* rr = ldns_rr_list_rr(list, i);
		if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_NSEC3 ||
			!owner_is(rr, owner))
			continue;
		if(n >= N3_MAX_RRS || !val_nsec3_parse(rr, n ? &p : first))
			return 0;
		if(n++ == 0)
			*parsed = 1;
		ds |= val_nsec3_has_type(n > 1 ? &p : first, TYPE_DS);
	}
	return *parsed && !ds && val_nsec3_usable(first) &&
		first->owner_hashlen && val_nsec3_has_type(first, TYPE_NS) &&
		!val_nsec3_has_type(first, TYPE_SOA);
}

/* The NSEC3 RRset at owner of authority, signed by signer. */
static void nsec3_add(struct neg_nsec3* c, const ldns_rr_list* authority,
	const uint8_t* owner, const uint8_t* signer, int checked, time_t now)
{
	struct val_nsec3_rr p;
	struct n3_zone* z;
	struct n3_item* old;
	ldns_rr_list* rrs, *sigs;
	uint32_t ttl;
	int parsed;
	if(!can_prove(authority, owner, &p, &parsed)) {
		/* nothing to keep; what was kept there is out of date */
		if((old = (struct n3_item*)negtree_find(&c->items,
			owner)) != NULL && !old->soa)
			item_remove(c, old);
		if(parsed && val_nsec3_usable(&p) && query_dname_compare(
			p.zone, signer) == 0 && (z = zone_get(c, signer, 0)))
			take_params(c, z, &p);
		return;
	}
	if(query_dname_compare(p.zone, signer) != 0)
		return;
	old = (struct n3_item*)negtree_find(&c->items, owner);
	rrs = rrs_at(authority, owner, TYPE_NSEC3, 0);
	sigs = rrs_at(authority, owner, TYPE_NSEC3, 1);
	ttl = min_ttl(rrs, sigs);
	if(!rrs || !sigs || ttl == 0 || (old && !checked && old->checked &&
		same_rrs(old->rrs, rrs) && old->expire > now) ||
		!(z = zone_get(c, signer, 1))) {
		/* (what a referral repeats, the validator has) */
		ldns_rr_list_deep_free(rrs);
		ldns_rr_list_deep_free(sigs);
		return;
	}
	item_add(c, z, owner, 0, rrs, sigs, ttl, checked, now);
	take_params(c, z, &p);
}

/* compat: unbound-1.17: a referral's NSEC at the delegation name, with NS
 * and neither DS nor SOA, signed by signer: kept unchecked for the walk's DS
 * question (Unbound's val_neg_addreferral keeps NSECs too), never for a
 * client. */
static void nsec_add(struct neg_nsec3* c, const ldns_rr_list* authority,
	const uint8_t* owner, const uint8_t* signer, time_t now)
{
	ldns_rr_list* rrs = rrs_at(authority, owner, TYPE_NSEC, 0);
	ldns_rr_list* sigs = rrs_at(authority, owner, TYPE_NSEC, 1);
	struct n3_item* old = (struct n3_item*)negtree_find(&c->items, owner);
	struct n3_zone* z;
	struct n3_item* it;
	const ldns_rdf* bm = rrs && ldns_rr_list_rr_count(rrs) == 1 ?
		ldns_nsec_get_bitmap(ldns_rr_list_rr(rrs, 0)) : NULL;
	uint32_t ttl = min_ttl(rrs, sigs);
	if(!bm || !sigs || ttl == 0 || !dname_subdomain_c(owner, signer) ||
		query_dname_compare(owner, signer) == 0 ||
		!ldns_nsec_bitmap_covers_type(bm, LDNS_RR_TYPE_NS) ||
		ldns_nsec_bitmap_covers_type(bm, LDNS_RR_TYPE_DS) ||
		ldns_nsec_bitmap_covers_type(bm, LDNS_RR_TYPE_SOA) ||
		(old && !old->nsec) || !(z = zone_get(c, signer, 1))) {
		ldns_rr_list_deep_free(rrs);
		ldns_rr_list_deep_free(sigs);
		return;
	}
	if((it = item_add(c, z, owner, 0, rrs, sigs, ttl, 0, now)) != NULL)
		it->nsec = 1;
}

/* The SOA of a zone whose NSEC3s a secure answer carries; kept for
 * min(TTL, MINIMUM), as RFC 2308 caches it. */
static void soa_add(struct neg_nsec3* c, const ldns_rr_list* auth,
	time_t now)
{
	size_t i, j;
	for(i = 0; i < ldns_rr_list_rr_count(auth); i++) {
		const ldns_rr* rr = ldns_rr_list_rr(auth, i);
		uint8_t owner[LDNS_MAX_DOMAINLEN + 1];
		struct val_nsec3_rr p;
		ldns_rr_list* soa, *sigs;
		struct n3_zone* z;
		uint32_t ttl;
		if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_SOA ||
			ldns_rr_rd_count(rr) < 7 ||
			ldns_rdf_size(ldns_rr_rdf(rr, 6)) != 4 ||
			!name_of(ldns_rr_owner(rr), owner))
			continue;
		for(j = 0; j < ldns_rr_list_rr_count(auth); j++)
			if(val_nsec3_parse(ldns_rr_list_rr(auth, j), &p) &&
				query_dname_compare(p.zone, owner) == 0)
				break;
		if(j == ldns_rr_list_rr_count(auth))
			return;   /* no NSEC3 zone */
		soa = rrs_at(auth, owner, TYPE_SOA, 0);
		sigs = rrs_at(auth, owner, TYPE_SOA, 1);
		ttl = min_ttl(soa, sigs);
		if(ldns_rdf2native_int32(ldns_rr_rdf(rr, 6)) < ttl)
			ttl = ldns_rdf2native_int32(ldns_rr_rdf(rr, 6));
		if(!soa || !sigs || ldns_rr_list_rr_count(soa) != 1 ||
			ttl == 0 || !(z = zone_get(c, owner, 1))) {
			ldns_rr_list_deep_free(soa);
			ldns_rr_list_deep_free(sigs);
			return;
		}
		item_add(c, z, owner, 1, soa, sigs, ttl, 1, now);
		return;
	}
}

void neg_nsec3_add(struct neg_nsec3* c, const ldns_rr_list* authority,
	const uint8_t* bailiwick, enum neg_nsec3_from from, time_t now)
{
	size_t i, j, n = authority ? ldns_rr_list_rr_count(authority) : 0;
	int owners = 0;
	if(!c || __atomic_load_n(&c->maxmem, __ATOMIC_RELAXED) == 0)
		return;
	/* most referrals and answers have none: no lock for them */
	for(i = 0; i < n; i++)
		if(ldns_rr_get_type(ldns_rr_list_rr(authority, i)) ==
			LDNS_RR_TYPE_NSEC3 || (from == NEG_NSEC3_REFERRAL &&
			ldns_rr_get_type(ldns_rr_list_rr(authority, i)) ==
			LDNS_RR_TYPE_NSEC))
			break;
	if(i == n)
		return;
	pthread_mutex_lock(&c->lock);
	for(i = 0; i < n; i++) {
		const ldns_rr* rr = ldns_rr_list_rr(authority, i);
		ldns_rr_type t = ldns_rr_get_type(rr);
		uint8_t owner[LDNS_MAX_DOMAINLEN + 1];
		uint8_t signer[LDNS_MAX_DOMAINLEN + 1];
		if((t != LDNS_RR_TYPE_NSEC3 && (t != LDNS_RR_TYPE_NSEC ||
			from != NEG_NSEC3_REFERRAL)) ||
			ldns_rr_get_class(rr) != LDNS_RR_CLASS_IN ||
			!name_of(ldns_rr_owner(rr), owner))
			continue;
		/* once per owner: its first NSEC3 (NSEC) in the section */
		for(j = 0; j < i; j++)
			if(ldns_rr_get_type(ldns_rr_list_rr(authority, j)) ==
				t && owner_is(ldns_rr_list_rr(authority, j),
				owner))
				break;
		if(j < i)
			continue;
		if(++owners > N3_MAX_OWNERS)
			break;
		/* an NSEC3 speaks for its signer's zone only */
		if(!signer_of(authority, owner, (uint16_t)t, signer) ||
			(bailiwick && !dname_subdomain_c(signer, bailiwick)))
			continue;
		if(t == LDNS_RR_TYPE_NSEC)
			nsec_add(c, authority, owner, signer, now);
		else	nsec3_add(c, authority, owner, signer,
				from != NEG_NSEC3_REFERRAL, now);
	}
	if(from == NEG_NSEC3_SECURE)
		soa_add(c, authority, now);
	pthread_mutex_unlock(&c->lock);
}

/* ---- answering ------------------------------------------------------ */

/* The deepest zone at or above name that has NSEC3 parameters. */
static struct n3_zone* zone_for(struct neg_nsec3* c, const uint8_t* name)
{
	for(;;) {
		struct n3_zone* z = zone_get(c, name, 0);
		if(z && z->have_params)
			return z;
		if(!*name)
			return NULL;
		name = dname_remove_label(name);
	}
}

/* Is the kept NSEC3 RRset of the zone's parameters (its first RR, as
 * Unbound's neg_params_ok)? Kept ones can prove a DS absent. */
static int params_match(const struct n3_zone* z, const ldns_rr_list* rrs)
{
	struct val_nsec3_rr p;
	return val_nsec3_parse(ldns_rr_list_rr(rrs, 0), &p) &&
		p.algo == z->algo && p.iterations == z->iterations &&
		p.saltlen == z->saltlen && (p.saltlen == 0 ||
		memcmp(p.salt, z->salt, p.saltlen) == 0);
}

/* The owner qname's NSEC3 has in zone z into out; 0 if it cannot. */
static int hashed_owner(const struct n3_zone* z, const uint8_t* qname,
	uint8_t* out)
{
	uint8_t hash[NSEC3_SHA1_LEN];
	char b32[NSEC3_SHA1_B32_LEN + 8];
	size_t hl = val_nsec3_hash_compute(qname, z->algo, z->iterations,
		z->salt, z->saltlen, hash), bl, zl;
	if(hl == 0 || hl > sizeof(hash))
		return 0;
	bl = val_nsec3_b32hex_encode(hash, hl, b32);
	zl = dname_valid(z->name, LDNS_MAX_DOMAINLEN + 1);
	if(bl == 0 || bl > 63 || 1 + bl + zl > LDNS_MAX_DOMAINLEN + 1)
		return 0;
	out[0] = (uint8_t)bl;
	memcpy(out + 1, b32, bl);
	memcpy(out + 1 + bl, z->name, zl);
	dname_tolower(out);
	return 1;
}

static int append(ldns_rr_list* dst, const ldns_rr_list* src)
{
	size_t i;
	for(i = 0; src && i < ldns_rr_list_rr_count(src); i++) {
		ldns_rr* cl = ldns_rr_clone(ldns_rr_list_rr(src, i));
		if(!cl || !ldns_rr_list_push_rr(dst, cl)) {
			ldns_rr_free(cl);
			return 0;
		}
	}
	return 1;
}

static void touch(struct neg_nsec3* c, struct n3_item* it)
{
	lru_list_touch(&c->lru, &it->lru);
}

static int ds_locked(struct neg_nsec3* c, const uint8_t* qname,
	time_t now, int checked_only, int dnssec, uint32_t* ttl,
	ldns_rr_list* auth)
{
	uint8_t owner[LDNS_MAX_DOMAINLEN + 1];
	struct n3_zone* z;
	struct n3_item* it, *soa;
	if(*qname && !checked_only && (it = (struct n3_item*)negtree_find(
		&c->items, qname)) != NULL && it->nsec) {
		/* a referral's NSEC at qname, for the walk */
		if(it->expire <= now) {
			item_remove(c, it);
			return 0;
		}
		*ttl = (uint32_t)(it->expire - now);
		if(!append(auth, it->rrs) || (dnssec &&
			!append(auth, it->sigs)))
			return 0;
		touch(c, it);
		return 1;
	}
	if(!*qname || !(z = zone_for(c, dname_remove_label(qname))) ||
		!hashed_owner(z, qname, owner) ||
		!(it = (struct n3_item*)negtree_find(&c->items, owner)))
		return 0;
	if(it->expire <= now) {
		item_remove(c, it);
		return 0;
	}
	if((checked_only && !it->checked) || it->soa || it->zone != z ||
		!params_match(z, it->rrs))
		return 0;
	soa = (struct n3_item*)negtree_find(&c->items, z->name);
	if(soa && soa->expire <= now) {
		item_remove(c, soa);   /* not z's last: it still has it */
		soa = NULL;
	}
	if(checked_only && !soa)
		return 0;
	*ttl = (uint32_t)(it->expire - now);
	if(soa && (uint32_t)(soa->expire - now) < *ttl)
		*ttl = (uint32_t)(soa->expire - now);
	if(soa && (!append(auth, soa->rrs) || (dnssec &&
		!append(auth, soa->sigs))))
		return 0;
	if(!append(auth, it->rrs) || (dnssec && !append(auth, it->sigs)))
		return 0;
	touch(c, it);
	if(soa)
		touch(c, soa);
	return 1;
}

int neg_nsec3_ds(struct neg_nsec3* c, const uint8_t* qname,
	time_t now, int checked_only, int dnssec, uint32_t max_neg_ttl,
	ldns_rr_list** authority)
{
	uint32_t ttl = 0;
	size_t i;
	int ok;
	*authority = NULL;
	if(!c || __atomic_load_n(&c->maxmem, __ATOMIC_RELAXED) == 0 || !(*authority = ldns_rr_list_new()))
		return 0;
	pthread_mutex_lock(&c->lock);
	ok = c->count && ds_locked(c, qname, now, checked_only, dnssec, &ttl,
		*authority);
	pthread_mutex_unlock(&c->lock);
	if(!ok || ttl == 0) {
		ldns_rr_list_deep_free(*authority);
		*authority = NULL;
		return 0;
	}
	if(ttl > max_neg_ttl)
		ttl = max_neg_ttl;
	for(i = 0; i < ldns_rr_list_rr_count(*authority); i++)
		ldns_rr_set_ttl(ldns_rr_list_rr(*authority, i), ttl);
	return 1;
}

void neg_nsec3_forget(struct neg_nsec3* c, const ldns_rr_list* list)
{
	size_t i;
	if(!c)
		return;
	pthread_mutex_lock(&c->lock);
	for(i = 0; list && i < ldns_rr_list_rr_count(list); i++) {
		uint8_t owner[LDNS_MAX_DOMAINLEN + 1];
		struct negtree_node* n;
		ldns_rr_type t = ldns_rr_get_type(ldns_rr_list_rr(list, i));
		if((t == LDNS_RR_TYPE_NSEC3 || t == LDNS_RR_TYPE_NSEC) &&
			name_of(ldns_rr_owner(
			ldns_rr_list_rr(list, i)), owner) &&
			(n = negtree_find(&c->items, owner)) != NULL &&
			!((struct n3_item*)n)->soa)
			item_remove(c, (struct n3_item*)n);
	}
	pthread_mutex_unlock(&c->lock);
}

void neg_nsec3_set_max_mem(struct neg_nsec3* c, size_t maxmem)
{
	if(!c)
		return;
	pthread_mutex_lock(&c->lock);
	/* atomic: read without the lock before taking it */
	__atomic_store_n(&c->maxmem, maxmem, __ATOMIC_RELAXED);
	shrink(c, NULL);
	pthread_mutex_unlock(&c->lock);
}

void neg_nsec3_flush_all(struct neg_nsec3* c)
{
	if(!c)
		return;
	pthread_mutex_lock(&c->lock);
	while(c->lru.head)
		item_remove(c, LRU_ITEM(c->lru.head, struct n3_item, lru));
	pthread_mutex_unlock(&c->lock);
}

size_t neg_nsec3_flush_zone(struct neg_nsec3* c, const uint8_t* zone)
{
	struct n3_item* it, *next;
	size_t n = 0;
	if(!c)
		return 0;
	pthread_mutex_lock(&c->lock);
	for(it = LRU_ITEM(c->lru.head, struct n3_item, lru); it; it = next) {
		next = LRU_ITEM(it->lru.next, struct n3_item, lru);
		/* (a zone goes with its last record, never next's) */
		if(dname_subdomain_c(it->data, zone)) {
			n += !it->soa;
			item_remove(c, it);
		}
	}
	pthread_mutex_unlock(&c->lock);
	return n;
}

size_t neg_nsec3_count(struct neg_nsec3* c)
{
	size_t n;
	if(!c)
		return 0;
	pthread_mutex_lock(&c->lock);
	n = c->count;
	pthread_mutex_unlock(&c->lock);
	return n;
}

size_t neg_nsec3_get_mem(struct neg_nsec3* c)
{
	size_t n;
	if(!c)
		return 0;
	pthread_mutex_lock(&c->lock);
	n = c->mem + sizeof(*c);
	pthread_mutex_unlock(&c->lock);
	return n;
}

void neg_nsec3_delete(struct neg_nsec3* c)
{
	if(!c)
		return;
	neg_nsec3_flush_all(c);
	pthread_mutex_destroy(&c->lock);
	free(c);
}
