/* SPDX-License-Identifier: BSD-3-Clause */
/* services/cache/msgcache_store.c - turn a wire reply into an immutable
 * reply template (TTL offsets, RRset ends, TTL clamps) and store it.
 * Not the hot path: a reply is parsed once, when the iterator has it. */
#include "config.h"
#include "services/cache/msgcache.h"
#include "services/cache/msgcache_key.h"
#include "util/dname.h"
#include "util/msgencode.h"
#include "util/log.h"
#include <stdlib.h>
#include <string.h>

#define TYPE_TSIG 250
/* Rough malloc header, so the bound counts what the heap really uses. */
#define MALLOC_OVERHEAD 16
#define EVEN(n) (((n) + 1) & ~(size_t)1)

/* The RRset being grouped: consecutive RRs with one owner, class and
 * type, with the RRSIGs that cover that type following them. */
struct cur_set {
	uint8_t owner[LDNS_MAX_DOMAINLEN + 1];
	uint16_t type, rclass;
	int section;
};

/* compat: unbound-1.17: The TTL to cache an RR with, as Unbound's rdata_copy
 * computes it. compat: unbound-1.19: with cache-min-negative-ttl set, the
 * SOA of a negative answer is capped by cache-max-ttl and
 * cache-max-negative-ttl, then raised to it, and cache-min-ttl does not
 * apply to it. */
static uint32_t clamp_ttl(const struct msg_cache* c, uint32_t ttl,
	uint16_t type, int section, const uint8_t* rd, uint16_t rdlen)
{
	/* a reload may change them meanwhile (msg_cache_set_ttls) */
	uint32_t min_ttl = __atomic_load_n(&c->min_ttl, __ATOMIC_RELAXED);
	uint32_t max_ttl = __atomic_load_n(&c->max_ttl, __ATOMIC_RELAXED);
	if(ttl & 0x80000000U)  /* RFC 2181 8: as if zero */
		ttl = 0;
	if(type == TYPE_SOA && section == SEC_AUTHORITY && rdlen >= 22) {
		/* negative answer: at most the SOA MINIMUM (RFC 2308 5) */
		uint32_t minimum = wire_rd32(rd + rdlen - 4);
		uint32_t max_neg = __atomic_load_n(&c->max_neg_ttl,
			__ATOMIC_RELAXED);
		uint32_t min_neg = __atomic_load_n(&c->min_neg_ttl,
			__ATOMIC_RELAXED);
		if(ttl > minimum)
			ttl = minimum;
		if(min_neg) {
			if(ttl > max_ttl)
				ttl = max_ttl;
			if(ttl > max_neg)
				ttl = max_neg;
			return ttl < min_neg ? min_neg : ttl;
		}
		if(ttl > max_neg)
			ttl = max_neg;
	}
	if(ttl < min_ttl)
		ttl = min_ttl;
	if(ttl > max_ttl)
		ttl = max_ttl;
	return ttl;
}

/* Does this RR continue the current RRset? */
static int same_set(const struct cur_set* s, size_t nsets, int section,
	const uint8_t* owner, uint16_t type, uint16_t rclass,
	const uint8_t* rd, uint16_t rdlen)
{
	if(nsets == 0 || s->section != section || s->rclass != rclass)
		return 0;
	if(type != s->type && !(type == TYPE_RRSIG && rdlen >= 2 &&
		wire_rd16(rd) == s->type))
		return 0;
	return query_dname_compare(owner, s->owner) == 0;
}

/* Mark in targets (a bit per packet byte) every compression pointer
 * target met reading the name at p, known to be valid (dname_read_wire
 * read it), the pointers it leads through included. */
static void mark_targets(const uint8_t* t, size_t p, uint8_t* targets)
{
	size_t cut, n = 0;
	/* valid: every pointer goes back, so this walk ends */
	while(t[p] != 0 && n++ < 256) {
		if((t[p] & 0xc0) == 0xc0) {
			cut = ((size_t)(t[p] & 0x3f) << 8) | t[p + 1];
			targets[cut >> 3] |= (uint8_t)(1 << (cut & 7));
			p = cut;
		} else	p += (size_t)t[p] + 1;
	}
}

/* mark_targets for the name at pos, checked first. Returns the name's
 * end in the packet, 0 if malformed. */
static size_t note_targets(const uint8_t* t, size_t len, size_t pos,
	uint8_t* targets)
{
	size_t end = pos;
	uint8_t name[LDNS_MAX_DOMAINLEN + 1];
	if(dname_read_wire(t, len, &end, name) == 0)
		return 0;
	mark_targets(t, pos, targets);
	return end;
}

/* Mark the pointer targets of the names in an RR's RDATA (the types
 * that are compressed). */
static void note_rdata_targets(const uint8_t* t, size_t len, uint16_t type,
	size_t rd, size_t rdlen, uint8_t* targets)
{
	size_t prefix, p;
	int names = msg_rdata_names(type, &prefix), i;
	if(!names || rdlen < prefix)
		return;
	p = rd + prefix;
	for(i = 0; i < names && p < rd + rdlen; i++)
		if((p = note_targets(t, rd + rdlen, p, targets)) == 0)
			return;
	(void)len;
}

static int any_target(const uint8_t* targets, size_t from, size_t to)
{
	size_t i;
	for(i = from; i < to; i++)
		if(targets[i >> 3] & (1 << (i & 7)))
			return 1;
	return 0;
}

/* Keep the RRsets that may rotate: several RRs, no RRSIG among them,
 * nothing pointing into them (msg_builder.closed_sets makes replies
 * so; another shape simply does not rotate). rot holds a candidate per
 * RRset, compacted here. */
static uint16_t keep_rotatable(struct msg_rot* rot, size_t nsets,
	const struct msg_rrset_end* sets, const uint8_t* targets)
{
	size_t i, k = 0;
	for(i = 0; i < nsets; i++) {
		if(rot[i].n < 2 || rot[i].n != sets[i].rrs ||
			any_target(targets, rot[i].start, sets[i].end))
			continue;
		rot[k] = rot[i];
		rot[k].end = sets[i].end;
		k++;
	}
	return (uint16_t)k;
}

/* Rewrite t (len bytes, a copy of the reply) into a template and fill
 * m's offsets and TTL. ttl_off, sets, rr_start and rot have room for
 * every RR. */
static int build_template(const struct msg_cache* c,
	const struct query_info* qi, uint8_t* t, size_t len,
	struct msg_entry* m, uint16_t* ttl_off, struct msg_rrset_end* sets,
	uint16_t* rr_start, struct msg_rot* rot)
{
	uint8_t targets[65536 / 8];
	uint16_t counts[3], flags = wire_rd16(t + 2);
	size_t pos, nttl = 0, nsets = 0, i, tlen;
	uint32_t minttl = 0xffffffffU;
	struct cur_set cur;
	int sec;
	uint8_t owner[LDNS_MAX_DOMAINLEN + 1];

	memset(&cur, 0, sizeof(cur));
	memset(targets, 0, (len >> 3) + 1);
	if(!(flags & FLAG_QR) || (flags & FLAG_TC) || FLAGS_OPCODE(flags) != 0
		|| wire_rd16(t + 4) != 1)
		return 0;
	/* the question: qi's, uncompressed (as long as qi's name, so the
	 * bytes are compared once, without walks for the lengths) */
	if(dname_valid(t + LDNS_HEADER_SIZE, len - LDNS_HEADER_SIZE) !=
		qi->qname_len || !dname_same(t + LDNS_HEADER_SIZE, qi->qname,
		qi->qname_len))
		return 0;
	pos = LDNS_HEADER_SIZE + qi->qname_len;
	if(len - pos < 4 || wire_rd16(t + pos) != qi->qtype ||
		wire_rd16(t + pos + 2) != qi->qclass)
		return 0;
	pos += 4;
	m->qend = (uint16_t)pos;
	tlen = len;
	for(sec = 0; sec < 3; sec++)
		counts[sec] = wire_rd16(t + 6 + 2 * sec);
	for(sec = 0; sec < 3; sec++) {
		for(i = 0; i < counts[sec]; i++) {
			size_t start = pos, ttlpos;
			uint16_t type, rclass, rdlen;
			uint32_t ttl;
			const uint8_t* rd;
			if(dname_read_wire(t, len, &pos, owner) == 0 ||
				len - pos < 10)
				return 0;
			/* the owner was read just now */
			mark_targets(t, start, targets);
			type = wire_rd16(t + pos);
			rclass = wire_rd16(t + pos + 2);
			ttlpos = pos + 4;
			rdlen = wire_rd16(t + pos + 8);
			pos += 10;
			if(len - pos < rdlen)
				return 0;
			rd = t + pos;
			note_rdata_targets(t, len, type, pos, rdlen, targets);
			pos += rdlen;
			if(type == TYPE_OPT) {
				/* last, and no extended rcode: then drop it */
				if(sec != SEC_ADDITIONAL || i + 1 != counts[sec] ||
					t[ttlpos] != 0)
					return 0;
				counts[sec]--;
				pos = start;
				break;
			}
			if(type == TYPE_TSIG)
				return 0;
			ttl = clamp_ttl(c, wire_rd32(t + ttlpos), type, sec,
				rd, rdlen);
			wire_wr32(t + ttlpos, ttl);
			if(ttl < minttl)
				minttl = ttl;
			rr_start[nttl] = (uint16_t)start;
			ttl_off[nttl++] = (uint16_t)ttlpos;
			if(same_set(&cur, nsets, sec, owner, type, rclass, rd,
				rdlen)) {
				sets[nsets - 1].end = (uint16_t)pos;
				sets[nsets - 1].rrs++;
				if(type == cur.type)
					rot[nsets - 1].n++;
			} else {
				rot[nsets].start = (uint16_t)start;
				rot[nsets].first = (uint16_t)(nttl - 1);
				rot[nsets].n = 1;
				memcpy(cur.owner, owner, sizeof(owner));
				cur.type = type;
				cur.rclass = rclass;
				cur.section = sec;
				sets[nsets].end = (uint16_t)pos;
				sets[nsets].rrs = 1;
				sets[nsets].section = (uint8_t)sec;
				nsets++;
			}
		}
	}
	tlen = pos;  /* trailing bytes (and the OPT) are not kept */
	/* header: ID, RD, CD and TC are set per reply */
	wire_wr16(t, 0);
	m->flags = (uint16_t)(flags & ~(FLAG_RD | FLAG_CD | FLAG_TC));
	wire_wr16(t + 2, m->flags);
	wire_wr16(t + 10, counts[SEC_ADDITIONAL]);
	m->len = (uint16_t)tlen;
	m->num_ttl = __atomic_load_n(&c->original_ttl, __ATOMIC_RELAXED) ?
		0 : (uint16_t)nttl;
	m->num_sets = (uint16_t)nsets;
	m->num_rot = keep_rotatable(rot, nsets, sets, targets);
	m->ttl = nttl ? minttl : MSG_NORR_TTL;
	m->prefetch_age = m->ttl / 10 ? m->ttl - m->ttl / 10 : UINT32_MAX;
	return 1;
}

int msg_cache_store(struct msg_cache* c, const struct query_info* qi,
	uint32_t hash, const uint8_t* reply, size_t len, time_t now)
{
	return msg_cache_store_sec(c, qi, hash, reply, len, now,
		SEC_UNCHECKED);
}

/* msg_cache_store_sec with hash known to be msg_cache_hash(c, qi). */
static int store_entry(struct msg_cache* c, const struct query_info* qi,
	uint32_t hash, const uint8_t* reply, size_t len, time_t now,
	int security, int synthesized)
{
	size_t total, keylen, alloc;
	struct msg_entry* m;
	uint16_t* ttl_off;
	struct msg_rrset_end* sets;
	struct msg_rot* rot;
	uint16_t* rr_start;
	uint8_t* key, *t;
	if(qi->qname_len == 0 || len < LDNS_HEADER_SIZE || len > 65535)
		return 0;
	total = (size_t)wire_rd16(reply + 6) + wire_rd16(reply + 8) +
		wire_rd16(reply + 10);
	if(total > len / 11)  /* an RR takes at least 11 bytes */
		return 0;
	keylen = qi->qname_len + 5;
	/* Hit-path order, for the cache lines and the prefetcher: struct,
	 * key, TTL offsets, template; RRset ends (for truncation) and the
	 * rotation data (for rrset-roundrobin) last. Key and template are
	 * padded to even for the uint16_t arrays. */
	alloc = sizeof(*m) + EVEN(keylen) + total * sizeof(*ttl_off) +
		EVEN(len) + total * sizeof(*sets) + total * sizeof(*rot) +
		total * sizeof(*rr_start);
	m = malloc(alloc);
	if(!m) {
		log_oom("message cache: an answer not stored");
		return 0;
	}
	key = (uint8_t*)(m + 1);
	ttl_off = (uint16_t*)(key + EVEN(keylen));
	t = (uint8_t*)(ttl_off + total);
	sets = (struct msg_rrset_end*)(t + EVEN(len));
	rot = (struct msg_rot*)(sets + total);
	rr_start = (uint16_t*)(rot + total);
	memcpy(t, reply, len);
	if(!build_template(c, qi, t, len, m, ttl_off, sets, rr_start, rot) ||
		m->ttl == 0) {
		free(m);
		return 0;
	}
	m->ttl_off = ttl_off;
	m->sets = sets;
	m->rot = rot;
	m->rr_start = rr_start;
	m->tmpl = t;
	m->stored = now;
	m->expired_until = 0;
	m->security = (uint8_t)security;
	m->synthesized = (uint8_t)(synthesized != 0);
	if(security == SEC_SECURE && (m->flags & 0xf) == RCODE_NXDOMAIN)
		__atomic_store_n(&c->had_secure_nx, 1, __ATOMIC_RELAXED);
	{
		/* made in a buffer: msg_key_make writes whole words */
		uint8_t kbuf[MSG_KEY_BUF];
		msg_key_make(kbuf, qi->qname, qi->qname_len, qi->qtype,
			qi->qclass, msg_key_flags(qi));
		memcpy(key, kbuf, keylen);
	}
	lruhash_entry_init(&m->lh, hash, key, (uint16_t)keylen,
		alloc + MALLOC_OVERHEAD);
	return lruhash_insert(c->table, &m->lh, NULL, NULL);
}

int msg_cache_store_sec(struct msg_cache* c, const struct query_info* qi,
	uint32_t hash, const uint8_t* reply, size_t len, time_t now,
	int security)
{
	/* a wrong hash would store an entry no lookup finds */
	if(qi->qname_len == 0 || hash != msg_cache_hash(c, qi))
		return 0;
	return store_entry(c, qi, hash, reply, len, now, security, 0);
}

int msg_cache_store_hashed(struct msg_cache* c, const struct query_info* qi,
	const uint8_t* reply, size_t len, time_t now, int security,
	int synthesized, uint32_t* hash)
{
	*hash = msg_cache_hash(c, qi);
	return store_entry(c, qi, *hash, reply, len, now, security,
		synthesized);
}

int msg_cache_had_secure_nx(const struct msg_cache* c)
{
	return c && __atomic_load_n(&c->had_secure_nx, __ATOMIC_RELAXED);
}
