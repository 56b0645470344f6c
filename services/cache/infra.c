/* SPDX-License-Identifier: BSD-3-Clause */
/* services/cache/infra.c - compat: unbound-1.17: the infrastructure cache (see
 * infra.h). The RTT arithmetic follows Unbound's util/rtt.c and the entry
 * logic its services/cache/infra.c, so server selection behaves the same. */
#include "config.h"
#include "services/cache/infra.h"
#include "util/hash_mix.h"
#include "services/cache/rate_zone.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/random.h"
#include "util/storage/lruhash.h"
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

/* The key bytes: family and port (host order), the address (16 bytes,
 * IPv4 in the first 4), then the lowercased zone name. */
#define INFRA_KEY_FIXED 20
#define INFRA_KEY_MAX (INFRA_KEY_FIXED + LDNS_MAX_DOMAINLEN + 1)

struct infra_key {
	uint8_t b[INFRA_KEY_MAX + 8];   /* + a zeroed word for the hash */
	uint16_t len;
	uint32_t hash;
};

/* One server for one zone: a mutable record in the shared table
 * (util/storage/lruhash.c), read and written under its slab lock. */
struct infra_entry {
	struct lruhash_entry h;   /* h.key is key below */
	struct infra_info d;
	uint8_t key[];
};

struct infra_cache {
	struct infra_settings s;
	uint64_t seed;      /* random, against crafted hash collisions */
	struct lruhash* table;
	struct rate_zone_table* zone_rates;
	size_t nslabs;      /* the table's, fixed at create */
};

/* A setting a reload may change while workers read it (infra_reconfigure);
 * relaxed: each read sees the old or the new value. */
#define LIVE(c, f) __atomic_load_n(&(c)->s.f, __ATOMIC_RELAXED)

/* compat: unbound-1.17: ---- RTT (Unbound's util/rtt.c, with configured
 * min/max) ---- */

static int calc_rto(const struct infra_cache* c, const struct rtt_info* r)
{
	int rto = r->srtt + 4 * r->rttvar;
	int lo = LIVE(c, min_rtt), hi = LIVE(c, max_rtt);
	if(rto < lo)
		rto = lo;
	if(rto > hi)
		rto = hi;
	return rto;
}

static void rtt_init(const struct infra_cache* c, struct rtt_info* r)
{
	r->srtt = 0;
	r->rttvar = LIVE(c, unknown_rtt) / 4;
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
	int hi = LIVE(c, max_rtt);
	/* a reply meanwhile lowered the rto: keep it. The original timeout
	 * is doubled, not the current rto, so many queries timing out at
	 * once back off only one step. */
	if(r->rto < orig)
		return;
	if(orig > hi / 2)
		orig = hi;
	else	orig *= 2;
	if(r->rto <= orig)
		r->rto = orig > hi ? hi : orig;
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
	s->rate_size = 4194304;
	s->rate_slabs = 4;
}

void infra_settings_from_cfg(const struct config_file* cfg,
	struct infra_settings* s)
{
	infra_settings_default(s);
	s->numhosts = cfg->infra_cache_numhosts;
	s->host_ttl = cfg->infra_host_ttl;
	s->min_rtt = cfg->infra_cache_min_rtt;
	s->max_rtt = cfg->infra_cache_max_rtt;
	s->slabs = cfg->infra_cache_slabs;
	s->unknown_rtt = cfg->unknown_server_time_limit;
	s->keep_probing = cfg->infra_keep_probing;
	s->rate_size = cfg->ratelimit_size;
	s->rate_slabs = cfg->ratelimit_slabs;
}

/* ---- table ---- */

/* Fill k from addr and zone; 0 when either is unusable. */
static int infra_key_fill(const struct infra_cache* c, struct infra_key* k,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* zone, size_t zonelen)
{
	uint64_t h = c->seed, w;
	uint16_t family, port;
	size_t i;
	memset(k->b, 0, INFRA_KEY_FIXED);
	if(addr->ss_family == AF_INET && addrlen >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in* a = (const struct sockaddr_in*)addr;
		family = AF_INET;
		port = a->sin_port;
		memcpy(k->b + 4, &a->sin_addr, 4);
	} else if(addr->ss_family == AF_INET6 &&
		addrlen >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6* a = (const struct sockaddr_in6*)addr;
		family = AF_INET6;
		port = a->sin6_port;
		memcpy(k->b + 4, &a->sin6_addr, 16);
	} else	return 0;
	memcpy(k->b, &family, 2);
	memcpy(k->b + 2, &port, 2);
	if(!zone || zonelen == 0) {
		k->b[INFRA_KEY_FIXED] = 0;  /* the root */
		zonelen = 1;
	} else {
		if(zonelen > LDNS_MAX_DOMAINLEN + 1 ||
			dname_valid(zone, zonelen) != zonelen)
			return 0;
		memcpy(k->b + INFRA_KEY_FIXED, zone, zonelen);
	}
	k->len = (uint16_t)(INFRA_KEY_FIXED + zonelen);
	/* zeroes after the key: the hash reads whole words, and the last
	 * one has the value a copy of the last bytes into a zeroed word
	 * had (a copy of variable length was a libc call per word); the
	 * zone is lowercased in words over them */
	memset(k->b + k->len, 0, 8);
	dname_tolower_words(k->b + INFRA_KEY_FIXED, zonelen);
	for(i = 0; i < k->len; i += 8) {
		memcpy(&w, k->b + i, 8);
		h = hash_mix(h, w);
	}
	h = hash_mix(h, k->len);
	k->hash = (uint32_t)(h >> 32);
	return 1;
}

static void data_init(const struct infra_cache* c, struct infra_info* d,
	time_t now)
{
	memset(d, 0, sizeof(*d));
	d->ttl = now + LIVE(c, host_ttl);
	rtt_init(c, &d->rtt);
}

struct make_arg {
	const struct infra_cache* c;
	time_t now;
};

/* lruhash_make_func: a new entry, fresh data (under the slab lock). */
static struct lruhash_entry* entry_make(uint32_t hash, const uint8_t* key,
	uint16_t keylen, void* arg)
{
	const struct make_arg* m = arg;
	struct infra_entry* e = malloc(sizeof(*e) + keylen);
	if(!e)
		return NULL;
	memcpy(e->key, key, keylen);
	lruhash_entry_init(&e->h, hash, e->key, keylen, sizeof(*e) + keylen);
	data_init(m->c, &e->d, m->now);
	return &e->h;
}

/* lruhash_del_func */
static void entry_free(struct lruhash_entry* e, void* arg)
{
	(void)arg;
	free(e);
}

/* compat: unbound-1.17: Find or create the entry, locked, renewing an expired
 * one (keeping a top timeout, as Unbound); unlock with entry_unlock. NULL
 * (nothing locked) on failure. */
static struct infra_entry* get_entry(struct infra_cache* c,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* zone, size_t zonelen, time_t now)
{
	struct infra_key k;
	struct make_arg m;
	struct infra_entry* e;
	if(!infra_key_fill(c, &k, addr, addrlen, zone, zonelen))
		return NULL;
	m.c = c;
	m.now = now;
	e = (struct infra_entry*)lruhash_lock_entry(c->table, k.hash, k.b,
		k.len, entry_make, &m);
	if(e && e->d.ttl < now) {
		struct infra_info old = e->d;
		int hi = LIVE(c, max_rtt);
		data_init(c, &e->d, now);
		if(old.rtt.rto >= hi) {
			e->d.rtt.rto = hi;
			e->d.probedelay = old.probedelay;
			e->d.timeout_A = old.timeout_A;
			e->d.timeout_AAAA = old.timeout_AAAA;
			e->d.timeout_other = old.timeout_other;
		}
	}
	return e;
}

/* Find without creating; locked on success. */
static struct infra_entry* find_entry(struct infra_cache* c,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* zone, size_t zonelen)
{
	struct infra_key k;
	if(!infra_key_fill(c, &k, addr, addrlen, zone, zonelen))
		return NULL;
	return (struct infra_entry*)lruhash_lock_entry(c->table, k.hash, k.b,
		k.len, NULL, NULL);
}

static void entry_unlock(struct infra_cache* c, struct infra_entry* e)
{
	lruhash_unlock_entry(c->table, &e->h);
}

static void settings_clamp(struct infra_settings* s)
{
	if(s->numhosts < 1)
		s->numhosts = 1;
	if(s->min_rtt < 1)
		s->min_rtt = 1;
	if(s->max_rtt < s->min_rtt)
		s->max_rtt = s->min_rtt;
	if(s->unknown_rtt < 0)
		s->unknown_rtt = 0;
}

/* The table's byte bound for per hosts in each of n slabs: bounded by
 * the host count; the byte bound (twice the largest entries, plus room
 * for buckets) never binds first. */
static size_t table_bytes(size_t n, size_t per)
{
	return n * per * 2 * (sizeof(struct infra_entry) + INFRA_KEY_MAX) +
		n * 4096;
}

struct infra_cache* infra_create(const struct infra_settings* set)
{
	struct infra_cache* c = calloc(1, sizeof(*c));
	struct ub_randstate* rnd;
	size_t n, per;
	if(!c)
		return NULL;
	c->s = *set;
	settings_clamp(&c->s);
	/* a power of 2, and no more slabs than hosts */
	for(n = 1; n * 2 <= (size_t)c->s.slabs &&
		n * 2 <= (size_t)c->s.numhosts && n < 1024; )
		n *= 2;
	per = ((size_t)c->s.numhosts + n - 1) / n;
	if(!(rnd = ub_initstate())) {
		free(c);
		return NULL;
	}
	c->seed = ((uint64_t)ub_random(rnd) << 32) | ub_random(rnd);
	ub_randfree(rnd);
	/* bounded by the host count; the byte bound (twice the largest
	 * entries, plus room for buckets) never binds first */
	c->nslabs = n;
	c->table = lruhash_create(n, table_bytes(n, per), entry_free, NULL);
	if(!c->table) {
		free(c);
		return NULL;
	}
	lruhash_set_max_entries(c->table, per);
	c->zone_rates = rate_zone_create(c->s.rate_slabs > 0 ?
		c->s.rate_slabs : 1, c->s.rate_size);
	if(!c->zone_rates) {
		infra_delete(c);
		return NULL;
	}
	return c;
}

void infra_delete(struct infra_cache* c)
{
	if(!c)
		return;
	rate_zone_delete(c->zone_rates);
	lruhash_delete(c->table);
	free(c);
}

void infra_reconfigure(struct infra_cache* c,
	const struct infra_settings* set)
{
	struct infra_settings n = *set;
	settings_clamp(&n);
	__atomic_store_n(&c->s.host_ttl, n.host_ttl, __ATOMIC_RELAXED);
	__atomic_store_n(&c->s.min_rtt, n.min_rtt, __ATOMIC_RELAXED);
	__atomic_store_n(&c->s.max_rtt, n.max_rtt, __ATOMIC_RELAXED);
	__atomic_store_n(&c->s.unknown_rtt, n.unknown_rtt, __ATOMIC_RELAXED);
	__atomic_store_n(&c->s.keep_probing, n.keep_probing,
		__ATOMIC_RELAXED);
	/* numhosts and rate_size are read by this thread only */
	if(n.numhosts != c->s.numhosts) {
		size_t per = ((size_t)n.numhosts + c->nslabs - 1) / c->nslabs;
		lruhash_set_max_mem(c->table, table_bytes(c->nslabs, per));
		lruhash_set_max_entries(c->table, per);
		c->s.numhosts = n.numhosts;
	}
	if(n.rate_size != c->s.rate_size) {
		rate_zone_set_max_mem(c->zone_rates, n.rate_size);
		c->s.rate_size = n.rate_size;
	}
}

struct rate_zone_table* infra_zone_rates(struct infra_cache* c)
{
	return c->zone_rates;
}

int infra_max_rtt(const struct infra_cache* c)
{
	return LIVE(c, max_rtt);
}

size_t infra_count(struct infra_cache* c)
{
	return lruhash_count(c->table);
}

int infra_host(struct infra_cache* c, const struct sockaddr_storage* addr,
	socklen_t addrlen, const uint8_t* zone, size_t zonelen, time_t now,
	int* edns_vs, uint8_t* edns_lame_known, int* to)
{
	struct infra_entry* e = get_entry(c, addr, addrlen, zone, zonelen,
		now);
	if(!e)
		return 0;
	*edns_vs = e->d.edns_version;
	*edns_lame_known = (uint8_t)e->d.edns_lame_known;
	*to = e->d.rtt.rto;
	if(*to >= PROBE_MAXRTO && (LIVE(c, keep_probing) ||
		calc_rto(c, &e->d.rtt) * 4 <= *to)) {
		/* this is the probe: hold others off until it timed out
		 * (ms rounded up to s, plus a second) */
		e->d.probedelay = now + ((*to) + 1999) / 1000;
	}
	entry_unlock(c, e);
	return 1;
}

int infra_rtt_update(struct infra_cache* c,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* zone, size_t zonelen, int qtype, int roundtrip,
	int orig_rtt, time_t now)
{
	struct infra_entry* e = get_entry(c, addr, addrlen, zone, zonelen,
		now);
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
		if(rtt_unclamped(c, &e->d.rtt) >= LIVE(c, max_rtt))
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
	entry_unlock(c, e);
	return rto;
}

int infra_edns_update(struct infra_cache* c,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* zone, size_t zonelen, int edns_version, time_t now)
{
	struct infra_entry* e = get_entry(c, addr, addrlen, zone, zonelen,
		now);
	if(!e)
		return 0;
	if(!(edns_version == -1 && e->d.edns_version != -1 &&
		e->d.edns_lame_known)) {
		e->d.edns_version = edns_version;
		e->d.edns_lame_known = 1;
	}
	entry_unlock(c, e);
	return 1;
}

int infra_set_lame(struct infra_cache* c,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* zone, size_t zonelen, time_t now, int dnsseclame,
	int reclame, uint16_t qtype)
{
	struct infra_entry* e = get_entry(c, addr, addrlen, zone, zonelen,
		now);
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
	entry_unlock(c, e);
	return 1;
}

/* infra_get_lame_rtt for the locked entry e, which it unlocks. */
static int lame_rtt_of(struct infra_cache* c, struct infra_entry* e,
	uint16_t qtype, int* lame, int* dnsseclame, int* reclame, int* rtt,
	time_t now)
{
	struct infra_info* h = &e->d;
	int top = LIVE(c, max_rtt);
	*lame = *dnsseclame = *reclame = 0;
	*rtt = rtt_unclamped(c, &h->rtt);
	if(h->rtt.rto >= PROBE_MAXRTO && now >= h->probedelay &&
		LIVE(c, keep_probing)) {
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
		entry_unlock(c, e);
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
	entry_unlock(c, e);
	return 1;
}

int infra_get_lame_rtt(struct infra_cache* c,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* zone, size_t zonelen, uint16_t qtype, int* lame,
	int* dnsseclame, int* reclame, int* rtt, time_t now)
{
	struct infra_entry* e = find_entry(c, addr, addrlen, zone, zonelen);
	if(!e)
		return 0;
	return lame_rtt_of(c, e, qtype, lame, dnsseclame, reclame, rtt, now);
}

/* The timeouts in a row counted for qtype's kind (A, AAAA, other). */
static int timeouts_for(const struct infra_entry* e, uint16_t qtype)
{
	return qtype == 1 ? e->d.timeout_A : qtype == 28 ?
		e->d.timeout_AAAA : e->d.timeout_other;
}

/* infra_backed_off for the locked entry e (left locked). */
static int backed_off_of(const struct infra_entry* e, uint16_t qtype,
	time_t now)
{
	return timeouts_for(e, qtype) >= TIMEOUT_COUNT_MAX &&
		e->d.rtt.rto >= BACKED_OFF_MIN_RTO && now <= e->d.ttl;
}

int infra_backed_off(struct infra_cache* c,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* zone, size_t zonelen, uint16_t qtype, time_t now)
{
	struct infra_entry* e = find_entry(c, addr, addrlen, zone, zonelen);
	int cnt;
	if(!e)
		return 0;
	cnt = backed_off_of(e, qtype, now);
	entry_unlock(c, e);
	return cnt;
}

int infra_select_info(struct infra_cache* c,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* zone, size_t zonelen, uint16_t qtype, time_t now,
	int* backed_off, int* lame, int* dnsseclame, int* reclame, int* rtt)
{
	struct infra_entry* e = find_entry(c, addr, addrlen, zone, zonelen);
	*backed_off = 0;
	if(!e)
		return 0;
	*backed_off = backed_off_of(e, qtype, now);
	return lame_rtt_of(c, e, qtype, lame, dnsseclame, reclame, rtt, now);
}

int infra_timeouts(struct infra_cache* c,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* zone, size_t zonelen, uint16_t qtype)
{
	struct infra_entry* e = find_entry(c, addr, addrlen, zone, zonelen);
	int cnt;
	if(!e)
		return 0;
	cnt = timeouts_for(e, qtype);
	entry_unlock(c, e);
	return cnt;
}

int infra_claim_probe(struct infra_cache* c,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* zone, size_t zonelen, time_t now)
{
	struct infra_entry* e = find_entry(c, addr, addrlen, zone, zonelen);
	int ok;
	if(!e)
		return 1;
	ok = now >= e->d.probedelay;
	if(ok)
		e->d.probedelay = now + (e->d.rtt.rto + 1999) / 1000;
	entry_unlock(c, e);
	return ok;
}

int infra_get_info(struct infra_cache* c,
	const struct sockaddr_storage* addr, socklen_t addrlen,
	const uint8_t* zone, size_t zonelen, struct infra_info* out)
{
	struct infra_entry* e = find_entry(c, addr, addrlen, zone, zonelen);
	if(!e)
		return 0;
	*out = e->d;
	entry_unlock(c, e);
	return 1;
}

/* ---- remote control: dump_infra, flush_infra ---- */

static void entry_addr(const struct infra_entry* e,
	struct sockaddr_storage* a, socklen_t* len)
{
	uint16_t family, port;
	memcpy(&family, e->key, 2);
	memcpy(&port, e->key + 2, 2);
	memset(a, 0, sizeof(*a));
	if(family == AF_INET6) {
		struct sockaddr_in6* s = (struct sockaddr_in6*)a;
		s->sin6_family = AF_INET6;
		s->sin6_port = port;
		memcpy(&s->sin6_addr, e->key + 4, 16);
		*len = (socklen_t)sizeof(*s);
	} else {
		struct sockaddr_in* s = (struct sockaddr_in*)a;
		s->sin_family = AF_INET;
		s->sin_port = port;
		memcpy(&s->sin_addr, e->key + 4, 4);
		*len = (socklen_t)sizeof(*s);
	}
}

struct walk_arg {
	const struct infra_cache* c;
	infra_walk_func fn;
	void* arg;
	const struct infra_key* addr;   /* infra_remove_addr: NULL for all */
};

/* lruhash_walk_func for infra_walk (under the slab lock) */
static int walk_one(struct lruhash_entry* h, void* arg)
{
	const struct walk_arg* w = arg;
	struct infra_entry* e = (struct infra_entry*)h;
	struct sockaddr_storage a;
	socklen_t len;
	entry_addr(e, &a, &len);
	w->fn(&a, len, e->key + INFRA_KEY_FIXED,
		(size_t)e->h.keylen - INFRA_KEY_FIXED, &e->d,
		LIVE(w->c, min_rtt), LIVE(w->c, max_rtt), w->arg);
	return 0;
}

void infra_walk(struct infra_cache* c, infra_walk_func fn, void* arg)
{
	struct walk_arg w = { c, fn, arg, NULL };
	lruhash_walk(c->table, walk_one, &w);
}

/* lruhash_walk_func for infra_remove_addr: the server's entries */
static int same_server(struct lruhash_entry* h, void* arg)
{
	const struct walk_arg* w = arg;
	return !w->addr || memcmp(h->key, w->addr->b, INFRA_KEY_FIXED) == 0;
}

size_t infra_remove_addr(struct infra_cache* c,
	const struct sockaddr_storage* addr, socklen_t addrlen)
{
	struct infra_key k;
	struct walk_arg w = { c, NULL, NULL, NULL };
	if(addr) {
		if(!infra_key_fill(c, &k, addr, addrlen, NULL, 0))
			return 0;
		w.addr = &k;
	}
	return lruhash_walk(c->table, same_server, &w);
}
