/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_neg_nsec3.c - NSEC3 records kept to prove DS absence; see
 * the header. Records sit in one tree by owner (exact lookups only: the
 * owner is the hash, so there is no order to search in), zones in another
 * by name; records are on one LRU list for the byte bound. */
#include "config.h"
#include "validator/val_neg_nsec3.h"
#include "validator/val_negtree.h"
#include "validator/val_nsec3.h"
#include "util/dname.h"
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
	ldns_rr* soa;                 /* NULL until a secure answer */
	ldns_rr_list* soa_sigs;
	time_t soa_expire;
	size_t soa_mem;
	uint8_t name[LDNS_MAX_DOMAINLEN + 1];
	uint8_t ckey[NEGTREE_CKEY_MAX];
};

struct n3_item {
	struct negtree_node node;     /* key: the owner */
	struct n3_item* prev, *next;  /* LRU, most recently used first */
	struct n3_zone* zone;
	int checked;
	time_t expire;
	size_t mem;
	ldns_rr_list* rrs, *sigs;
	uint8_t data[];               /* owner, then its canonical key */
};

struct val_neg_nsec3 {
	pthread_mutex_t lock;
	struct negtree zones, items;
	struct n3_item* lru_head, *lru_tail;
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

struct val_neg_nsec3* val_neg_nsec3_create(size_t maxmem, size_t max_iter)
{
	struct val_neg_nsec3* c = calloc(1, sizeof(*c));
	if(!c)
		return NULL;
	if(pthread_mutex_init(&c->lock, NULL) != 0) {
		free(c);
		return NULL;
	}
	val_negtree_init(&c->zones, (uint32_t)(uintptr_t)c ^ 0x9e3779b9u);
	val_negtree_init(&c->items, (uint32_t)time(NULL) ^ 0x7f4a7c15u);
	c->maxmem = maxmem;
	c->max_iter = max_iter;
	return c;
}

static void lru_unlink(struct val_neg_nsec3* c, struct n3_item* it)
{
	if(it->prev)
		it->prev->next = it->next;
	else	c->lru_head = it->next;
	if(it->next)
		it->next->prev = it->prev;
	else	c->lru_tail = it->prev;
	it->prev = it->next = NULL;
}

static void lru_front(struct val_neg_nsec3* c, struct n3_item* it)
{
	it->prev = NULL;
	it->next = c->lru_head;
	if(c->lru_head)
		c->lru_head->prev = it;
	c->lru_head = it;
	if(!c->lru_tail)
		c->lru_tail = it;
}

static void soa_clear(struct val_neg_nsec3* c, struct n3_zone* z)
{
	ldns_rr_free(z->soa);
	ldns_rr_list_deep_free(z->soa_sigs);
	z->soa = NULL;
	z->soa_sigs = NULL;
	c->mem -= z->soa_mem;
	z->soa_mem = 0;
}

static void item_remove(struct val_neg_nsec3* c, struct n3_item* it)
{
	struct n3_zone* z = it->zone;
	lru_unlink(c, it);
	val_negtree_remove(&c->items, &it->node);
	ldns_rr_list_deep_free(it->rrs);
	ldns_rr_list_deep_free(it->sigs);
	c->mem -= it->mem;
	c->count--;
	free(it);
	if(--z->items == 0) {
		soa_clear(c, z);
		val_negtree_remove(&c->zones, &z->node);
		c->mem -= sizeof(*z);
		free(z);
	}
}

static void shrink(struct val_neg_nsec3* c, const struct n3_item* keep)
{
	while(c->mem > c->maxmem && c->lru_tail && c->lru_tail != keep)
		item_remove(c, c->lru_tail);
}

static struct n3_zone* zone_get(struct val_neg_nsec3* c, const uint8_t* name,
	int create)
{
	struct negtree_node* n = val_negtree_find(&c->zones, name);
	struct n3_zone* z;
	if(n || !create)
		return (struct n3_zone*)n;
	if(!(z = calloc(1, sizeof(*z))))
		return NULL;
	memcpy(z->name, name, dname_valid(name, LDNS_MAX_DOMAINLEN + 1));
	dname_tolower(z->name);
	z->node.key = z->name;
	z->node.ckey = z->ckey;
	z->node.cklen = (uint16_t)val_negtree_ckey(z->name, z->ckey);
	(void)val_negtree_insert(&c->zones, &z->node);
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
static void take_params(struct val_neg_nsec3* c, struct n3_zone* z,
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

/* One NSEC3 RRset (rrs, sigs: freed here) at owner into zone signer. */
static void item_add(struct val_neg_nsec3* c, const uint8_t* owner,
	const uint8_t* signer, ldns_rr_list* rrs, ldns_rr_list* sigs,
	int checked, time_t now)
{
	size_t nl = dname_valid(owner, LDNS_MAX_DOMAINLEN + 1), kl;
	uint8_t ck[NEGTREE_CKEY_MAX];
	struct val_nsec3_rr p;
	struct negtree_node* n;
	struct n3_item* it, *old;
	struct n3_zone* z;
	uint32_t ttl = min_ttl(rrs, sigs);
	if(ttl == 0 || !val_nsec3_parse(ldns_rr_list_rr(rrs, 0), &p) ||
		!val_nsec3_usable(&p) || p.owner_hashlen == 0 ||
		query_dname_compare(p.zone, signer) != 0)
		goto drop;
	n = val_negtree_find(&c->items, owner);
	old = (struct n3_item*)n;
	if(old && !checked && old->checked && same_rrs(old->rrs, rrs) &&
		old->expire > now)
		goto drop;   /* what a referral repeats, the validator has */
	kl = val_negtree_ckey(owner, ck);
	if(!(z = zone_get(c, signer, 1)) ||
		!(it = calloc(1, sizeof(*it) + nl + kl))) {
		if(z && z->items == 0) {
			val_negtree_remove(&c->zones, &z->node);
			c->mem -= sizeof(*z);
			free(z);
		}
		goto drop;
	}
	memcpy(it->data, owner, nl);
	memcpy(it->data + nl, ck, kl);
	it->node.key = it->data;
	it->node.ckey = it->data + nl;
	it->node.cklen = (uint16_t)kl;
	it->zone = z;
	it->checked = checked;
	it->expire = now + (time_t)ttl;
	it->rrs = rrs;
	it->sigs = sigs;
	it->mem = sizeof(*it) + nl + kl + 16 + list_mem(rrs) + list_mem(sigs);
	z->items++;   /* first: the old one must not take the zone along */
	if(old)
		item_remove(c, old);
	(void)val_negtree_insert(&c->items, &it->node);
	lru_front(c, it);
	c->mem += it->mem;
	c->count++;
	take_params(c, z, &p);
	shrink(c, it);
	return;
drop:
	ldns_rr_list_deep_free(rrs);
	ldns_rr_list_deep_free(sigs);
}

/* The zone's SOA from a checked answer; kept for min(TTL, MINIMUM). */
static void soa_add(struct val_neg_nsec3* c, const ldns_rr_list* auth,
	time_t now)
{
	size_t i;
	for(i = 0; auth && i < ldns_rr_list_rr_count(auth); i++) {
		const ldns_rr* rr = ldns_rr_list_rr(auth, i);
		uint8_t owner[LDNS_MAX_DOMAINLEN + 1];
		ldns_rr_list* soa, *sigs;
		struct n3_zone* z;
		uint32_t ttl;
		if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_SOA ||
			ldns_rr_rd_count(rr) < 7 ||
			!name_of(ldns_rr_owner(rr), owner) ||
			!(z = zone_get(c, owner, 0)))
			continue;
		soa = rrs_at(auth, owner, TYPE_SOA, 0);
		sigs = rrs_at(auth, owner, TYPE_SOA, 1);
		if(!soa || !sigs || ldns_rr_list_rr_count(soa) != 1) {
			ldns_rr_list_deep_free(soa);
			ldns_rr_list_deep_free(sigs);
			return;
		}
		ttl = min_ttl(soa, sigs);
		if(ldns_rdf_size(ldns_rr_rdf(rr, 6)) == 4 &&
			ldns_rdf2native_int32(ldns_rr_rdf(rr, 6)) < ttl)
			ttl = ldns_rdf2native_int32(ldns_rr_rdf(rr, 6));
		soa_clear(c, z);
		z->soa = ldns_rr_list_pop_rr(soa);
		ldns_rr_list_deep_free(soa);
		z->soa_sigs = sigs;
		z->soa_expire = now + (time_t)ttl;
		z->soa_mem = rr_mem(z->soa) + list_mem(sigs);
		c->mem += z->soa_mem;
		shrink(c, NULL);
		return;
	}
}

void val_neg_nsec3_add(struct val_neg_nsec3* c, const ldns_rr_list* authority,
	const uint8_t* bailiwick, enum val_neg_nsec3_from from, time_t now)
{
	size_t i, j;
	if(!c || c->maxmem == 0 || !authority)
		return;
	pthread_mutex_lock(&c->lock);
	for(i = 0; i < ldns_rr_list_rr_count(authority); i++) {
		const ldns_rr* rr = ldns_rr_list_rr(authority, i);
		uint8_t owner[LDNS_MAX_DOMAINLEN + 1];
		uint8_t signer[LDNS_MAX_DOMAINLEN + 1];
		ldns_rr_list* rrs, *sigs;
		if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_NSEC3 ||
			ldns_rr_get_class(rr) != LDNS_RR_CLASS_IN ||
			!name_of(ldns_rr_owner(rr), owner))
			continue;
		/* once per owner: its first NSEC3 in the section */
		for(j = 0; j < i; j++)
			if(ldns_rr_get_type(ldns_rr_list_rr(authority, j)) ==
				LDNS_RR_TYPE_NSEC3 && owner_is(ldns_rr_list_rr(
				authority, j), owner))
				break;
		if(j < i)
			continue;
		rrs = rrs_at(authority, owner, TYPE_NSEC3, 0);
		sigs = rrs_at(authority, owner, TYPE_NSEC3, 1);
		/* an NSEC3 speaks for its signer's zone only */
		if(!rrs || !sigs || !name_of(ldns_rr_rrsig_signame(
			ldns_rr_list_rr(sigs, 0)), signer) ||
			(bailiwick && !dname_subdomain_c(signer, bailiwick))) {
			ldns_rr_list_deep_free(rrs);
			ldns_rr_list_deep_free(sigs);
			continue;
		}
		item_add(c, owner, signer, rrs, sigs,
			from != VAL_NEG_NSEC3_REFERRAL, now);
	}
	if(from == VAL_NEG_NSEC3_SECURE)
		soa_add(c, authority, now);
	pthread_mutex_unlock(&c->lock);
}

/* ---- answering ------------------------------------------------------ */

/* The deepest zone at or above name that has NSEC3 parameters. */
static struct n3_zone* zone_for(struct val_neg_nsec3* c, const uint8_t* name)
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

/* Is the NSEC3 RRset a proof of no DS at a delegation: its first RR of
 * the zone's parameters, with NS and without SOA, and no RR with DS (a
 * collision leaves it unknown which one is meant, as Unbound says)? */
static int proves_nods(const struct n3_zone* z, const ldns_rr_list* rrs)
{
	struct val_nsec3_rr p;
	size_t i;
	for(i = 0; i < ldns_rr_list_rr_count(rrs); i++) {
		if(!val_nsec3_parse(ldns_rr_list_rr(rrs, i), &p) ||
			val_nsec3_has_type(&p, TYPE_DS))
			return 0;
		if(i > 0)
			continue;
		if(p.algo != z->algo || p.iterations != z->iterations ||
			p.saltlen != z->saltlen || (p.saltlen &&
			memcmp(p.salt, z->salt, p.saltlen) != 0) ||
			!val_nsec3_usable(&p) ||
			!val_nsec3_has_type(&p, TYPE_NS) ||
			val_nsec3_has_type(&p, TYPE_SOA))
			return 0;
	}
	return i > 0;
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

static int ds_locked(struct val_neg_nsec3* c, const uint8_t* qname,
	time_t now, int checked_only, int dnssec, uint32_t* ttl,
	ldns_rr_list* auth)
{
	uint8_t owner[LDNS_MAX_DOMAINLEN + 1];
	struct n3_zone* z;
	struct n3_item* it;
	int soa;
	if(!*qname || !(z = zone_for(c, dname_remove_label(qname))) ||
		!hashed_owner(z, qname, owner) ||
		!(it = (struct n3_item*)val_negtree_find(&c->items, owner)))
		return 0;
	if(it->expire <= now) {
		item_remove(c, it);
		return 0;
	}
	if((checked_only && !it->checked) || it->zone != z ||
		!proves_nods(z, it->rrs))
		return 0;
	soa = z->soa && z->soa_expire > now;
	if(checked_only && !soa)
		return 0;
	*ttl = (uint32_t)(it->expire - now);
	if(soa && (uint32_t)(z->soa_expire - now) < *ttl)
		*ttl = (uint32_t)(z->soa_expire - now);
	if(soa) {
		ldns_rr* cl = ldns_rr_clone(z->soa);
		if(!cl || !ldns_rr_list_push_rr(auth, cl)) {
			ldns_rr_free(cl);
			return 0;
		}
		if(dnssec && !append(auth, z->soa_sigs))
			return 0;
	}
	if(!append(auth, it->rrs) || (dnssec && !append(auth, it->sigs)))
		return 0;
	if(c->lru_head != it) {
		lru_unlink(c, it);
		lru_front(c, it);
	}
	return 1;
}

int val_neg_nsec3_ds(struct val_neg_nsec3* c, const uint8_t* qname,
	time_t now, int checked_only, int dnssec, uint32_t max_neg_ttl,
	ldns_rr_list** authority)
{
	uint32_t ttl = 0;
	size_t i;
	int ok;
	*authority = NULL;
	if(!c || c->maxmem == 0 || !(*authority = ldns_rr_list_new()))
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

void val_neg_nsec3_forget(struct val_neg_nsec3* c, const ldns_rr_list* list)
{
	size_t i;
	if(!c)
		return;
	pthread_mutex_lock(&c->lock);
	for(i = 0; list && i < ldns_rr_list_rr_count(list); i++) {
		uint8_t owner[LDNS_MAX_DOMAINLEN + 1];
		struct negtree_node* n;
		if(ldns_rr_get_type(ldns_rr_list_rr(list, i)) ==
			LDNS_RR_TYPE_NSEC3 && name_of(ldns_rr_owner(
			ldns_rr_list_rr(list, i)), owner) &&
			(n = val_negtree_find(&c->items, owner)) != NULL)
			item_remove(c, (struct n3_item*)n);
	}
	pthread_mutex_unlock(&c->lock);
}

void val_neg_nsec3_flush_all(struct val_neg_nsec3* c)
{
	if(!c)
		return;
	pthread_mutex_lock(&c->lock);
	while(c->lru_head)
		item_remove(c, c->lru_head);
	pthread_mutex_unlock(&c->lock);
}

size_t val_neg_nsec3_flush_zone(struct val_neg_nsec3* c, const uint8_t* zone)
{
	struct n3_item* it, *next;
	size_t n = 0;
	if(!c)
		return 0;
	pthread_mutex_lock(&c->lock);
	for(it = c->lru_head; it; it = next) {
		next = it->next;
		/* a zone's SOA at or below zone goes too */
		if(dname_subdomain_c(it->zone->name, zone))
			soa_clear(c, it->zone);
		if(dname_subdomain_c(it->data, zone)) {
			item_remove(c, it);
			n++;
		}
	}
	pthread_mutex_unlock(&c->lock);
	return n;
}

size_t val_neg_nsec3_count(struct val_neg_nsec3* c)
{
	size_t n;
	if(!c)
		return 0;
	pthread_mutex_lock(&c->lock);
	n = c->count;
	pthread_mutex_unlock(&c->lock);
	return n;
}

size_t val_neg_nsec3_get_mem(struct val_neg_nsec3* c)
{
	size_t n;
	if(!c)
		return 0;
	pthread_mutex_lock(&c->lock);
	n = c->mem + sizeof(*c);
	pthread_mutex_unlock(&c->lock);
	return n;
}

void val_neg_nsec3_delete(struct val_neg_nsec3* c)
{
	if(!c)
		return;
	val_neg_nsec3_flush_all(c);
	pthread_mutex_destroy(&c->lock);
	free(c);
}
