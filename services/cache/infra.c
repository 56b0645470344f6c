/* SPDX-License-Identifier: BSD-3-Clause */
/* services/cache/infra.c - the infrastructure cache (see infra.h).
 * The RTT arithmetic follows Unbound's util/rtt.c and the entry logic
 * its services/cache/infra.c, so server selection behaves the same. */
#include "config.h"
#include "services/cache/infra.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/random.h"
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Compact key: family, port, address bytes, lowercased zone. */
struct infra_key {
	uint16_t family;
	uint16_t port;
	uint8_t addr[16];
	size_t zonelen;
	uint8_t zone[LDNS_MAX_DOMAINLEN + 1];
};

struct infra_entry {
	struct infra_entry* hnext;           /* hash chain */
	struct infra_entry* prev, * next;    /* LRU: head is most recent */
	uint64_t hash;
	uint16_t family, port;
	uint8_t addr[16];
	struct infra_info d;
	size_t zonelen;
	uint8_t zone[];
};

struct infra_slab {
	pthread_mutex_t lock;
	struct infra_entry** table;
	size_t mask;        /* table size - 1 */
	size_t count, max;
	struct infra_entry* head, * tail;
} __attribute__((aligned(64)));

struct infra_cache {
	struct infra_settings s;
	uint64_t seed;      /* random, against crafted hash collisions */
	int nslabs;
	struct infra_slab* slabs;
};

/* ---- RTT (Unbound's util/rtt.c, with configured min/max) ---- */

static int calc_rto(const struct infra_cache* c, const struct rtt_info* r)
{
	int rto = r->srtt + 4 * r->rttvar;
	if(rto < c->s.min_rtt)
		rto = c->s.min_rtt;
	if(rto > c->s.max_rtt)
		rto = c->s.max_rtt;
	return rto;
}

static void rtt_init(const struct infra_cache* c, struct rtt_info* r)
{
	r->srtt = 0;
	r->rttvar = c->s.unknown_rtt / 4;
	r->rto = calc_rto(c, r);
}

/* rtt for ranking: the backed-off rto when there was back-off */
static int rtt_unclamped(const struct infra_cache* c, const struct rtt_info* r)
{
	if(calc_rto(c, r) != r->rto)
		return r->rto;
	return r->srtt + 4 * r->rttvar;
}

static void rtt_update(const struct infra_cache* c, struct rtt_info* r, int ms)
{
	int delta = ms - r->srtt;
	r->srtt += delta / 8;
	if(delta < 0)
		delta = -delta;
	r->rttvar += (delta - r->rttvar) / 4;
	r->rto = calc_rto(c, r);
}

static void rtt_lost(const struct infra_cache* c, struct rtt_info* r, int orig)
{
	/* a reply meanwhile lowered the rto: keep it. The original timeout
	 * is doubled, not the current rto, so many queries timing out at
	 * once back off only one step. */
	if(r->rto < orig)
		return;
	if(orig > c->s.max_rtt / 2)
		orig = c->s.max_rtt;
	else	orig *= 2;
	if(r->rto <= orig)
		r->rto = orig > c->s.max_rtt ? c->s.max_rtt : orig;
}

/* ---- settings ---- */

void infra_settings_default(struct infra_settings* s)
{
	s->numhosts = 10000;
	s->slabs = 4;
	s->host_ttl = 900;
	s->min_rtt = 50;
	s->max_rtt = 120000;
	s->unknown_rtt = 376;
	s->keep_probing = 0;
}

void infra_settings_from_cfg(const struct config_file* cfg,
	struct infra_settings* s)
{
	const struct config_str2list* u;
	infra_settings_default(s);
	s->numhosts = cfg->infra_cache_numhosts;
	s->host_ttl = cfg->infra_host_ttl;
	s->min_rtt = cfg->infra_cache_min_rtt;
	/* not yet fields of config_file: kept as text, type-checked */
	for(u = cfg->unimplemented; u; u = u->next) {
		if(strcmp(u->str, "server:infra-cache-max-rtt") == 0)
			s->max_rtt = atoi(u->str2);
		else if(strcmp(u->str, "server:infra-cache-slabs") == 0)
			s->slabs = atoi(u->str2);
		else if(strcmp(u->str, "server:unknown-server-time-limit") == 0)
			s->unknown_rtt = atoi(u->str2);
		else if(strcmp(u->str, "server:infra-keep-probing") == 0)
			s->keep_probing = cfg_parse_yesno(u->str2) == 1;
	}
}

/* ---- table ---- */

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

/* Fill k from addr and zone; 0 when either is unusable. */
static int make_key(const struct infra_cache* c, struct infra_key* k,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* zone, size_t zonelen, uint64_t* hash)
{
	uint64_t h = c->seed, w;
	size_t i;
	memset(k, 0, sizeof(*k));
	if(addr->ss_family == AF_INET && addrlen >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in* a = (const struct sockaddr_in*)addr;
		k->family = AF_INET;
		k->port = a->sin_port;
		memcpy(k->addr, &a->sin_addr, 4);
	} else if(addr->ss_family == AF_INET6 &&
		addrlen >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6* a = (const struct sockaddr_in6*)addr;
		k->family = AF_INET6;
		k->port = a->sin6_port;
		memcpy(k->addr, &a->sin6_addr, 16);
	} else	return 0;
	if(!zone || zonelen == 0) {
		k->zone[0] = 0;  /* the root */
		k->zonelen = 1;
	} else {
		if(zonelen > sizeof(k->zone) ||
			dname_valid(zone, zonelen) != zonelen)
			return 0;
		memcpy(k->zone, zone, zonelen);
		k->zonelen = zonelen;
		dname_tolower(k->zone);
	}
	h = mix(h, ((uint64_t)k->family << 16) | k->port);
	memcpy(&w, k->addr, 8);
	h = mix(h, w);
	memcpy(&w, k->addr + 8, 8);
	h = mix(h, w);
	for(i = 0; i < k->zonelen; i += 8) {
		w = 0;
		memcpy(&w, k->zone + i, k->zonelen - i < 8 ? k->zonelen - i : 8);
		h = mix(h, w);
	}
	*hash = mix(h, k->zonelen);
	return 1;
}

static struct infra_slab* slab_of(struct infra_cache* c, uint64_t hash)
{
	return &c->slabs[(hash >> 56) & (uint64_t)(c->nslabs - 1)];
}

static int key_eq(const struct infra_entry* e, const struct infra_key* k,
	uint64_t hash)
{
	return e->hash == hash && e->family == k->family &&
		e->port == k->port && memcmp(e->addr, k->addr, 16) == 0 &&
		e->zonelen == k->zonelen &&
		memcmp(e->zone, k->zone, k->zonelen) == 0;
}

static void lru_unlink(struct infra_slab* s, struct infra_entry* e)
{
	if(e->prev)
		e->prev->next = e->next;
	else	s->head = e->next;
	if(e->next)
		e->next->prev = e->prev;
	else	s->tail = e->prev;
	e->prev = e->next = NULL;
}

static void lru_front(struct infra_slab* s, struct infra_entry* e)
{
	e->prev = NULL;
	e->next = s->head;
	if(s->head)
		s->head->prev = e;
	s->head = e;
	if(!s->tail)
		s->tail = e;
}

static void table_remove(struct infra_slab* s, struct infra_entry* e)
{
	struct infra_entry** p = &s->table[e->hash & s->mask];
	while(*p && *p != e)
		p = &(*p)->hnext;
	if(*p)
		*p = e->hnext;
	lru_unlink(s, e);
	s->count--;
}

/* Find (touching the LRU) under the slab lock. */
static struct infra_entry* lookup(struct infra_slab* s,
	const struct infra_key* k, uint64_t hash)
{
	struct infra_entry* e = s->table[hash & s->mask];
	for(; e; e = e->hnext) {
		if(key_eq(e, k, hash)) {
			if(s->head != e) {
				lru_unlink(s, e);
				lru_front(s, e);
			}
			return e;
		}
	}
	return NULL;
}

static void data_init(const struct infra_cache* c, struct infra_info* d,
	time_t now)
{
	memset(d, 0, sizeof(*d));
	d->ttl = now + c->s.host_ttl;
	rtt_init(c, &d->rtt);
}

/* Insert a new entry (evicting the LRU tail when full); NULL when out
 * of memory. */
static struct infra_entry* insert(struct infra_cache* c, struct infra_slab* s,
	const struct infra_key* k, uint64_t hash, time_t now)
{
	struct infra_entry* e = malloc(sizeof(*e) + k->zonelen);
	if(!e)
		return NULL;
	memset(e, 0, sizeof(*e));
	e->hash = hash;
	e->family = k->family;
	e->port = k->port;
	memcpy(e->addr, k->addr, 16);
	e->zonelen = k->zonelen;
	memcpy(e->zone, k->zone, k->zonelen);
	data_init(c, &e->d, now);
	while(s->count >= s->max && s->tail) {
		struct infra_entry* old = s->tail;
		table_remove(s, old);
		free(old);
	}
	e->hnext = s->table[hash & s->mask];
	s->table[hash & s->mask] = e;
	lru_front(s, e);
	s->count++;
	return e;
}

/* Lock the slab and find or create the entry, renewing an expired one
 * (keeping a top timeout, as Unbound). On success the slab stays
 * locked and *sp is set; NULL (unlocked) on failure. */
static struct infra_entry* get_entry(struct infra_cache* c,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* zone, size_t zonelen, time_t now,
	struct infra_slab** sp)
{
	struct infra_key k;
	uint64_t hash;
	struct infra_slab* s;
	struct infra_entry* e;
	if(!make_key(c, &k, addr, addrlen, zone, zonelen, &hash))
		return NULL;
	s = slab_of(c, hash);
	pthread_mutex_lock(&s->lock);
	e = lookup(s, &k, hash);
	if(e && e->d.ttl < now) {
		struct infra_info old = e->d;
		data_init(c, &e->d, now);
		if(old.rtt.rto >= c->s.max_rtt) {
			e->d.rtt.rto = c->s.max_rtt;
			e->d.probedelay = old.probedelay;
			e->d.timeout_A = old.timeout_A;
			e->d.timeout_AAAA = old.timeout_AAAA;
			e->d.timeout_other = old.timeout_other;
		}
	}
	if(!e && !(e = insert(c, s, &k, hash, now))) {
		pthread_mutex_unlock(&s->lock);
		return NULL;
	}
	*sp = s;
	return e;
}

/* Find without creating; slab locked on success. */
static struct infra_entry* find_entry(struct infra_cache* c,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* zone, size_t zonelen, struct infra_slab** sp)
{
	struct infra_key k;
	uint64_t hash;
	struct infra_slab* s;
	struct infra_entry* e;
	if(!make_key(c, &k, addr, addrlen, zone, zonelen, &hash))
		return NULL;
	s = slab_of(c, hash);
	pthread_mutex_lock(&s->lock);
	if(!(e = lookup(s, &k, hash))) {
		pthread_mutex_unlock(&s->lock);
		return NULL;
	}
	*sp = s;
	return e;
}

struct infra_cache* infra_create(const struct infra_settings* set)
{
	struct infra_cache* c = calloc(1, sizeof(*c));
	struct ub_randstate* rnd;
	int i, n;
	size_t per, tsize = 16;
	if(!c)
		return NULL;
	c->s = *set;
	if(c->s.numhosts < 1)
		c->s.numhosts = 1;
	if(c->s.min_rtt < 1)
		c->s.min_rtt = 1;
	if(c->s.max_rtt < c->s.min_rtt)
		c->s.max_rtt = c->s.min_rtt;
	if(c->s.unknown_rtt < 0)
		c->s.unknown_rtt = 0;
	/* a power of 2, and no more slabs than hosts */
	for(n = 1; n * 2 <= c->s.slabs && n * 2 <= c->s.numhosts && n < 1024; )
		n *= 2;
	c->nslabs = n;
	per = ((size_t)c->s.numhosts + (size_t)n - 1) / (size_t)n;
	while(tsize < per)
		tsize *= 2;
	if(!(rnd = ub_initstate())) {
		free(c);
		return NULL;
	}
	c->seed = ((uint64_t)ub_random(rnd) << 32) | ub_random(rnd);
	ub_randfree(rnd);
	c->slabs = aligned_alloc(64, sizeof(struct infra_slab) * (size_t)n);
	if(!c->slabs) {
		free(c);
		return NULL;
	}
	memset(c->slabs, 0, sizeof(struct infra_slab) * (size_t)n);
	for(i = 0; i < n; i++) {
		struct infra_slab* s = &c->slabs[i];
		pthread_mutex_init(&s->lock, NULL);
		s->max = per;
		s->mask = tsize - 1;
		s->table = calloc(tsize, sizeof(*s->table));
		if(!s->table) {
			c->nslabs = i + 1;
			infra_delete(c);
			return NULL;
		}
	}
	return c;
}

void infra_delete(struct infra_cache* c)
{
	int i;
	if(!c)
		return;
	for(i = 0; i < c->nslabs; i++) {
		struct infra_slab* s = &c->slabs[i];
		struct infra_entry* e = s->head, * n;
		for(; e; e = n) {
			n = e->next;
			free(e);
		}
		free(s->table);
		pthread_mutex_destroy(&s->lock);
	}
	free(c->slabs);
	free(c);
}

int infra_max_rtt(const struct infra_cache* c)
{
	return c->s.max_rtt;
}

size_t infra_count(struct infra_cache* c)
{
	size_t n = 0;
	int i;
	for(i = 0; i < c->nslabs; i++) {
		pthread_mutex_lock(&c->slabs[i].lock);
		n += c->slabs[i].count;
		pthread_mutex_unlock(&c->slabs[i].lock);
	}
	return n;
}

int infra_host(struct infra_cache* c, const struct sockaddr_storage* addr,
	socklen_t addrlen, const uint8_t* zone, size_t zonelen, time_t now,
	int* edns_vs, uint8_t* edns_lame_known, int* to)
{
	struct infra_slab* s;
	struct infra_entry* e = get_entry(c, addr, addrlen, zone, zonelen,
		now, &s);
	if(!e)
		return 0;
	*edns_vs = e->d.edns_version;
	*edns_lame_known = (uint8_t)e->d.edns_lame_known;
	*to = e->d.rtt.rto;
	if(*to >= PROBE_MAXRTO && (c->s.keep_probing ||
		calc_rto(c, &e->d.rtt) * 4 <= *to)) {
		/* this is the probe: hold others off until it timed out
		 * (ms rounded up to s, plus a second) */
		e->d.probedelay = now + ((*to) + 1999) / 1000;
	}
	pthread_mutex_unlock(&s->lock);
	return 1;
}

int infra_rtt_update(struct infra_cache* c,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* zone, size_t zonelen, int qtype, int roundtrip,
	int orig_rtt, time_t now)
{
	struct infra_slab* s;
	struct infra_entry* e = get_entry(c, addr, addrlen, zone, zonelen,
		now, &s);
	int rto;
	if(!e)
		return -1;
	if(roundtrip == -1) {
		int* cnt = qtype == 1 ? &e->d.timeout_A :
			qtype == 28 ? &e->d.timeout_AAAA : &e->d.timeout_other;
		if(orig_rtt > 0)
			rtt_lost(c, &e->d.rtt, orig_rtt);
		if(*cnt < TIMEOUT_COUNT_MAX)
			(*cnt)++;
	} else {
		/* a reply from a server that was backed off to the top:
		 * forget the back-off, it is fully usable again */
		if(rtt_unclamped(c, &e->d.rtt) >= c->s.max_rtt)
			rtt_init(c, &e->d.rtt);
		rtt_update(c, &e->d.rtt, roundtrip < 0 ? 0 : roundtrip);
		e->d.probedelay = 0;
		if(qtype == 1)
			e->d.timeout_A = 0;
		else if(qtype == 28)
			e->d.timeout_AAAA = 0;
		else	e->d.timeout_other = 0;
	}
	rto = e->d.rtt.rto;
	pthread_mutex_unlock(&s->lock);
	return rto;
}

int infra_edns_update(struct infra_cache* c,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* zone, size_t zonelen, int edns_version, time_t now)
{
	struct infra_slab* s;
	struct infra_entry* e = get_entry(c, addr, addrlen, zone, zonelen,
		now, &s);
	if(!e)
		return 0;
	if(!(edns_version == -1 && e->d.edns_version != -1 &&
		e->d.edns_lame_known)) {
		e->d.edns_version = edns_version;
		e->d.edns_lame_known = 1;
	}
	pthread_mutex_unlock(&s->lock);
	return 1;
}

int infra_set_lame(struct infra_cache* c,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* zone, size_t zonelen, time_t now, int dnsseclame,
	int reclame, uint16_t qtype)
{
	struct infra_slab* s;
	struct infra_entry* e = get_entry(c, addr, addrlen, zone, zonelen,
		now, &s);
	if(!e)
		return 0;
	if(dnsseclame)
		e->d.isdnsseclame = 1;
	if(reclame)
		e->d.rec_lame = 1;
	if(!dnsseclame && !reclame) {
		if(qtype == 1)
			e->d.lame_type_A = 1;
		else	e->d.lame_other = 1;
	}
	pthread_mutex_unlock(&s->lock);
	return 1;
}

int infra_get_lame_rtt(struct infra_cache* c,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* zone, size_t zonelen, uint16_t qtype, int* lame,
	int* dnsseclame, int* reclame, int* rtt, time_t now)
{
	struct infra_slab* s;
	struct infra_entry* e = find_entry(c, addr, addrlen, zone, zonelen, &s);
	struct infra_info* h;
	int top = c->s.max_rtt;
	if(!e)
		return 0;
	h = &e->d;
	*lame = *dnsseclame = *reclame = 0;
	*rtt = rtt_unclamped(c, &h->rtt);
	if(h->rtt.rto >= PROBE_MAXRTO && now >= h->probedelay &&
		c->s.keep_probing) {
		/* a probe may go: rank it just under the cut-off */
		if(*rtt >= top)
			*rtt = top - 1000;
	} else if(h->rtt.rto >= PROBE_MAXRTO && now < h->probedelay &&
		calc_rto(c, &h->rtt) * 4 <= h->rtt.rto) {
		/* a probe is out: others wait, unless this qtype has not
		 * timed out often (a server may drop only some types) */
		int cnt = qtype == 1 ? h->timeout_A :
			qtype == 28 ? h->timeout_AAAA : h->timeout_other;
		*rtt = cnt >= TIMEOUT_COUNT_MAX ? top : top - 1000;
	}
	if(now > h->ttl) {
		/* expired: a server at the top may be re-probed; lameness
		 * is forgotten */
		int was_top = h->rtt.rto >= top;
		pthread_mutex_unlock(&s->lock);
		if(was_top) {
			*rtt = top - 1000;
			return 1;
		}
		return 0;
	}
	if(h->lame_type_A && qtype == 1)
		*lame = 1;
	else if(h->lame_other && qtype != 1)
		*lame = 1;
	else if(h->isdnsseclame)
		*dnsseclame = 1;
	else if(h->rec_lame)
		*reclame = 1;
	pthread_mutex_unlock(&s->lock);
	return 1;
}

int infra_backed_off(struct infra_cache* c,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* zone, size_t zonelen, uint16_t qtype, time_t now)
{
	struct infra_slab* s;
	struct infra_entry* e = find_entry(c, addr, addrlen, zone, zonelen, &s);
	int cnt;
	if(!e)
		return 0;
	cnt = qtype == 1 ? e->d.timeout_A : qtype == 28 ? e->d.timeout_AAAA :
		e->d.timeout_other;
	cnt = cnt >= TIMEOUT_COUNT_MAX && e->d.rtt.rto >= BACKED_OFF_MIN_RTO &&
		now <= e->d.ttl;
	pthread_mutex_unlock(&s->lock);
	return cnt;
}

int infra_claim_probe(struct infra_cache* c,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* zone, size_t zonelen, time_t now)
{
	struct infra_slab* s;
	struct infra_entry* e = find_entry(c, addr, addrlen, zone, zonelen, &s);
	int ok;
	if(!e)
		return 1;
	ok = now >= e->d.probedelay;
	if(ok)
		e->d.probedelay = now + (e->d.rtt.rto + 1999) / 1000;
	pthread_mutex_unlock(&s->lock);
	return ok;
}

int infra_get_info(struct infra_cache* c,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* zone, size_t zonelen, struct infra_info* out)
{
	struct infra_slab* s;
	struct infra_entry* e = find_entry(c, addr, addrlen, zone, zonelen, &s);
	if(!e)
		return 0;
	*out = e->d;
	pthread_mutex_unlock(&s->lock);
	return 1;
}

/* ---- remote control: dump_infra, flush_infra ---- */

static void entry_addr(const struct infra_entry* e,
	struct sockaddr_storage* a, socklen_t* len)
{
	memset(a, 0, sizeof(*a));
	if(e->family == AF_INET6) {
		struct sockaddr_in6* s = (struct sockaddr_in6*)a;
		s->sin6_family = AF_INET6;
		s->sin6_port = e->port;
		memcpy(&s->sin6_addr, e->addr, 16);
		*len = (socklen_t)sizeof(*s);
	} else {
		struct sockaddr_in* s = (struct sockaddr_in*)a;
		s->sin_family = AF_INET;
		s->sin_port = e->port;
		memcpy(&s->sin_addr, e->addr, 4);
		*len = (socklen_t)sizeof(*s);
	}
}

void infra_walk(struct infra_cache* c, infra_walk_func fn, void* arg)
{
	int i;
	for(i = 0; i < c->nslabs; i++) {
		struct infra_slab* s = &c->slabs[i];
		struct infra_entry* e;
		pthread_mutex_lock(&s->lock);
		for(e = s->head; e; e = e->next) {
			struct sockaddr_storage a;
			socklen_t len;
			entry_addr(e, &a, &len);
			fn(&a, len, e->zone, e->zonelen, &e->d, c->s.min_rtt,
				c->s.max_rtt, arg);
		}
		pthread_mutex_unlock(&s->lock);
	}
}

size_t infra_remove_addr(struct infra_cache* c,
	const struct sockaddr_storage* addr, socklen_t addrlen)
{
	struct infra_key k;
	uint64_t h;
	size_t n = 0;
	int i;
	if(addr && !make_key(c, &k, addr, addrlen, NULL, 0, &h))
		return 0;
	for(i = 0; i < c->nslabs; i++) {
		struct infra_slab* s = &c->slabs[i];
		struct infra_entry* e, *next;
		pthread_mutex_lock(&s->lock);
		for(e = s->head; e; e = next) {
			next = e->next;
			if(addr && (e->family != k.family || e->port != k.port ||
				memcmp(e->addr, k.addr, 16) != 0))
				continue;
			table_remove(s, e);
			free(e);
			n++;
		}
		pthread_mutex_unlock(&s->lock);
	}
	return n;
}
