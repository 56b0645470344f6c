/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/cachedump.c - compat: unbound-1.17: dump_cache: the caches as
 * Unbound's text format (see cachedump.h). Reading it back is in cacheload.c.
 * Entries are referenced during a walk and printed after it, so no slab lock
 * is held while text is made. */
#include "config.h"
#include "daemon/cachedump.h"
#include "daemon/cachedump_internal.h"
#include "daemon/stats.h"
#include "services/cache/msgcache.h"
#include "services/cache/rrset.h"
#include "util/dname.h"
#include <ldns/ldns.h>
#include <stdlib.h>
#include <string.h>

int cachedump_trust_to_unbound(int trust)
{
	switch(trust) {
	case RRSET_TRUST_GLUE:        return 6;   /* rrset_trust_glue */
	case RRSET_TRUST_AUTHORITY:   return 2;   /* auth_noAA */
	case RRSET_TRUST_ANSWER:      return 5;   /* ans_noAA */
	case RRSET_TRUST_AUTH_ANSWER: return 8;   /* ans_AA */
	case RRSET_TRUST_VALIDATED:   return 11;  /* validated */
	default:                      return 0;
	}
}

int cachedump_trust_from_unbound(unsigned t)
{
	static const int map[] = { RRSET_TRUST_NONE, RRSET_TRUST_GLUE,
		RRSET_TRUST_AUTHORITY, RRSET_TRUST_GLUE, RRSET_TRUST_ANSWER,
		RRSET_TRUST_ANSWER, RRSET_TRUST_GLUE, RRSET_TRUST_AUTHORITY,
		RRSET_TRUST_AUTH_ANSWER, RRSET_TRUST_AUTH_ANSWER,
		RRSET_TRUST_AUTH_ANSWER, RRSET_TRUST_VALIDATED,
		RRSET_TRUST_VALIDATED };
	return t < sizeof(map) / sizeof(map[0]) ? map[t] : -1;
}

/* Referenced entries collected in a walk. */
struct refs {
	void** e;
	size_t n, cap;
	int oom;
};

static void refs_add(struct refs* r, void* e, struct lruhash_entry* lh)
{
	if(r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 256;
		void** ne = realloc(r->e, cap * sizeof(*ne));
		if(!ne) {
			r->oom = 1;
			return;
		}
		r->e = ne;
		r->cap = cap;
	}
	lruhash_ref(lh);
	r->e[r->n++] = e;
}

struct walk_ctx {
	struct refs r;
	time_t now;
};

static int collect_rrset(struct rrset_entry* e, void* arg)
{
	struct walk_ctx* w = arg;
	if(e->expire > w->now)
		refs_add(&w->r, e, &e->lh);
	return 0;
}

/* compat: unbound-1.17: Only the plain variant of a question (no CD, no DO):
 * one line per question, as Unbound's cache has. */
static int collect_msg(struct msg_entry* m, void* arg)
{
	struct walk_ctx* w = arg;
	uint16_t t, c;
	uint8_t kf;
	msg_entry_question(m, &t, &c, &kf);
	if(kf == 0 && (w->now < m->stored || w->now - m->stored <
		(time_t)m->ttl))
		refs_add(&w->r, m, &m->lh);
	return 0;
}

/* compat: unbound-1.17: One RR as a zone-file line (ldns's text, as
 * Unbound's), or BADRR. */
static void print_rr(struct strbuf* b, const uint8_t* owner, size_t olen,
	uint16_t type, uint16_t rclass, uint32_t ttl, const uint8_t* rd,
	uint16_t rdlen)
{
	uint8_t wire[LDNS_MAX_DOMAINLEN + 1 + 10 + 65535];
	size_t pos = 0;
	ldns_rr* rr = NULL;
	char* s;
	memcpy(wire, owner, olen);
	pos = olen;
	wire[pos++] = (uint8_t)(type >> 8);
	wire[pos++] = (uint8_t)type;
	wire[pos++] = (uint8_t)(rclass >> 8);
	wire[pos++] = (uint8_t)rclass;
	wire[pos++] = (uint8_t)(ttl >> 24);
	wire[pos++] = (uint8_t)(ttl >> 16);
	wire[pos++] = (uint8_t)(ttl >> 8);
	wire[pos++] = (uint8_t)ttl;
	wire[pos++] = (uint8_t)(rdlen >> 8);
	wire[pos++] = (uint8_t)rdlen;
	if(rdlen)
		memcpy(wire + pos, rd, rdlen);
	pos += rdlen;
	{
		size_t p = 0;
		if(ldns_wire2rr(&rr, wire, pos, &p, LDNS_SECTION_ANSWER) !=
			LDNS_STATUS_OK)
			rr = NULL;
	}
	s = rr ? ldns_rr2str(rr) : NULL;
	ldns_rr_free(rr);
	if(s)
		strbuf_printf(b, "%s", s);
	else	strbuf_printf(b, "BADRR\n");
	free(s);
}

/* ";rrset" line and the RRs of a packed set (+ sigs, may be empty). */
static void print_set(struct strbuf* b, const struct packed_rrset* rr,
	const struct packed_rrset* sigs, int nsec_apex, int trust)
{
	size_t i, nsig = sigs ? sigs->count : 0;
	strbuf_printf(b, ";rrset%s %u %u %u %d %d\n", nsec_apex ?
		" nsec_apex" : "", (unsigned)rr->ttl, (unsigned)rr->count,
		(unsigned)nsig, cachedump_trust_to_unbound(trust),
		trust == RRSET_TRUST_VALIDATED ? 5 : 0);
	for(i = 0; i < rr->count; i++)
		print_rr(b, rr->owner, rr->owner_len, rr->type, rr->rclass,
			rr->ttl, rr->rdata[i], rr->rdlen[i]);
	for(i = 0; i < nsig; i++)
		print_rr(b, rr->owner, rr->owner_len, TYPE_RRSIG, rr->rclass,
			rr->ttl, sigs->rdata[i], sigs->rdlen[i]);
}

static void print_rrset_entry(struct strbuf* b, struct rrset_entry* e,
	time_t now)
{
	struct packed_rrset rr, sigs;
	rrset_entry_view(e, now, &rr, &sigs);
	print_set(b, &rr, &sigs, (e->flags & RRSET_FLAG_NSEC_APEX) != 0,
		e->trust);
}

/* A name, type and class as text; returns 0 on a bad name. */
static int name_str(const uint8_t* nm, char* buf, size_t len)
{
	size_t n = dname_valid(nm, LDNS_MAX_DOMAINLEN + 1);
	ldns_rdf* rdf;
	char* s;
	if(n == 0)
		return 0;
	rdf = ldns_rdf_new_frm_data(LDNS_RDF_TYPE_DNAME, n, nm);
	s = rdf ? ldns_rdf2str(rdf) : NULL;
	ldns_rdf_deep_free(rdf);
	if(!s || strlen(s) >= len) {
		free(s);
		return 0;
	}
	strcpy(buf, s);
	free(s);
	return 1;
}

static void type_class_str(uint16_t type, uint16_t rclass, char* t,
	char* c, size_t len)
{
	char* ts = ldns_rr_type2str((ldns_rr_type)type);
	char* cs = ldns_rr_class2str((ldns_rr_class)rclass);
	snprintf(t, len, "%s", ts ? ts : "TYPE0");
	snprintf(c, len, "%s", cs ? cs : "CLASS0");
	free(ts);
	free(cs);
}

/* One RRset of a cached reply: its RRs (and RRSIGs) in the parsed
 * packet, and its section. */
struct msg_set {
	const uint8_t* owner;
	size_t owner_len;
	uint16_t type, rclass;
	int section;
	ldns_rr_list* list;   /* the section's RRs */
	size_t first, rrs;    /* where in list */
};

/* The sets of m, from its template (ldns resolves the compression).
 * Returns the parsed packet (to free) or NULL. */
static ldns_pkt* msg_sets(const struct msg_entry* m, struct msg_set* sets)
{
	ldns_pkt* pkt = NULL;
	size_t k, pos[3] = { 0, 0, 0 };
	if(ldns_wire2pkt(&pkt, m->tmpl, m->len) != LDNS_STATUS_OK)
		return NULL;
	for(k = 0; k < m->num_sets; k++) {
		int sec = m->sets[k].section;
		ldns_rr_list* l = sec == SEC_ANSWER ? ldns_pkt_answer(pkt) :
			sec == SEC_AUTHORITY ? ldns_pkt_authority(pkt) :
			ldns_pkt_additional(pkt);
		ldns_rr* first;
		if(pos[sec] + m->sets[k].rrs > ldns_rr_list_rr_count(l)) {
			ldns_pkt_free(pkt);
			return NULL;
		}
		first = ldns_rr_list_rr(l, pos[sec]);
		sets[k].owner = ldns_rdf_data(ldns_rr_owner(first));
		sets[k].owner_len = ldns_rdf_size(ldns_rr_owner(first));
		sets[k].type = (uint16_t)ldns_rr_get_type(first);
		sets[k].rclass = (uint16_t)ldns_rr_get_class(first);
		sets[k].section = sec;
		sets[k].list = l;
		sets[k].first = pos[sec];
		sets[k].rrs = m->sets[k].rrs;
		pos[sec] += m->sets[k].rrs;
	}
	return pkt;
}

/* A set of a cached reply that the RRset cache lacks: printed from the
 * reply, once (extra remembers which were). */
static void print_msg_set(struct strbuf* b, const struct msg_set* s,
	const struct msg_entry* m, time_t now, struct rrset_cache* extra)
{
	const uint8_t* rd[2][256];
	uint16_t rl[2][256];
	struct packed_rrset rr, sigs;
	uint8_t buf[2][16384];
	size_t used[2] = { 0, 0 }, i;
	time_t a = now - m->stored;
	uint32_t age = a > 0 ? (uint32_t)a : 0, ttl = 0xffffffffU;
	ldns_buffer* wb = ldns_buffer_new(65536);
	int trust;
	if(!wb)
		return;
	memset(&rr, 0, sizeof(rr));
	rr.owner = s->owner;
	rr.owner_len = s->owner_len;
	rr.type = s->type;
	rr.rclass = s->rclass;
	sigs = rr;
	rr.rdata = rd[0];
	rr.rdlen = rl[0];
	sigs.rdata = rd[1];
	sigs.rdlen = rl[1];
	for(i = 0; i < s->rrs; i++) {
		ldns_rr* r = ldns_rr_list_rr(s->list, s->first + i);
		int sig = ldns_rr_get_type(r) == LDNS_RR_TYPE_RRSIG &&
			s->type != TYPE_RRSIG;
		size_t n;
		ldns_buffer_clear(wb);
		if(ldns_rr_rdata2buffer_wire(wb, r) != LDNS_STATUS_OK)
			goto done;
		n = ldns_buffer_position(wb);
		/* an unusually large set: leave it out of the dump */
		if((sig ? sigs.count : rr.count) >= 256 ||
			n > sizeof(buf[sig]) - used[sig])
			goto done;
		memcpy(buf[sig] + used[sig], ldns_buffer_begin(wb), n);
		if(sig) {
			rd[1][sigs.count] = buf[1] + used[1];
			rl[1][sigs.count++] = (uint16_t)n;
		} else {
			rd[0][rr.count] = buf[0] + used[0];
			rl[0][rr.count++] = (uint16_t)n;
		}
		used[sig] += n;
		if(ldns_rr_ttl(r) < ttl)
			ttl = ldns_rr_ttl(r);
	}
	rr.ttl = ttl > age ? ttl - age : 0;
	trust = s->section == SEC_ADDITIONAL ? RRSET_TRUST_GLUE :
		s->section == SEC_AUTHORITY ? RRSET_TRUST_AUTHORITY :
		(m->flags & FLAG_AA) ? RRSET_TRUST_AUTH_ANSWER :
		RRSET_TRUST_ANSWER;
	if(rr.count == 0 || rr.ttl == 0 || rrset_cache_store(extra, &rr,
		&sigs, 0, (enum rrset_trust)trust, 1, now) != RRSET_STORED)
		goto done;
	print_set(b, &rr, &sigs, 0, trust);
done:
	ldns_buffer_free(wb);
}

/* Is this set of a reply missing from the RRset cache (and from what
 * was printed already)? */
static int set_missing(struct rrset_cache* rc, struct rrset_cache* extra,
	const struct msg_set* s, time_t now)
{
	struct rrset_entry* e = rrset_cache_lookup(rc, s->owner, s->type,
		s->rclass, 0, now);
	if(e) {
		rrset_cache_release(rc, e);
		return 0;
	}
	e = rrset_cache_lookup(extra, s->owner, s->type, s->rclass, 0, now);
	if(e) {
		rrset_cache_release(extra, e);
		return 0;
	}
	return 1;
}

static void print_msg(struct strbuf* b, const struct msg_entry* m,
	const struct msg_set* sets, time_t now)
{
	char nm[1100], t[64], c[64];
	uint16_t qtype, qclass;
	uint8_t kf;
	unsigned count[3] = { 0, 0, 0 };
	size_t k;
	msg_entry_question(m, &qtype, &qclass, &kf);
	if(!name_str(msg_entry_qname(m), nm, sizeof(nm)))
		return;
	type_class_str(qtype, qclass, t, c, sizeof(t));
	for(k = 0; k < m->num_sets; k++)
		count[sets[k].section]++;
	strbuf_printf(b, "msg %s %s %s %d %d %u %d %u %u %u\n", nm, c, t,
		(int)m->flags, 1, (unsigned)(m->ttl - (now > m->stored ?
		(uint32_t)(now - m->stored) : 0)), (int)m->security, count[0],
		count[1], count[2]);
	for(k = 0; k < m->num_sets; k++) {
		char on[1100];
		if(!name_str(sets[k].owner, on, sizeof(on))) {
			strbuf_printf(b, "BADREF\n");
			continue;
		}
		type_class_str(sets[k].type, sets[k].rclass, t, c, sizeof(t));
		strbuf_printf(b, "%s %s %s %d\n", on, c, t, 0);
	}
}

void cache_dump(struct rrset_cache* rc, struct msg_cache* mc, time_t now,
	struct strbuf* b)
{
	struct walk_ctx rw, mw;
	struct rrset_cache* extra;
	struct msg_set* sets;
	struct strbuf msgs = { NULL, 0, 0, 0 };
	size_t i, k;
	memset(&rw, 0, sizeof(rw));
	memset(&mw, 0, sizeof(mw));
	rw.now = mw.now = now;
	(void)rrset_cache_walk(rc, collect_rrset, &rw);
	(void)msg_cache_walk(mc, collect_msg, &mw);
	/* a scratch cache: which reply RRsets were printed already */
	extra = rrset_cache_create((size_t)1 << 40, 1, 0, 0xffffffffU);
	/* a reply of 65535 bytes has at most this many RRs */
	sets = calloc(65535 / 11 + 1, sizeof(*sets));
	if(rw.r.oom || mw.r.oom || !extra || !sets) {
		strbuf_printf(b, "error out of memory\n");
		goto out;
	}
	strbuf_printf(b, "START_RRSET_CACHE\n");
	for(i = 0; i < rw.r.n; i++)
		print_rrset_entry(b, rw.r.e[i], now);
	for(i = 0; i < mw.r.n; i++) {
		struct msg_entry* m = mw.r.e[i];
		ldns_pkt* pkt = msg_sets(m, sets);
		if(!pkt)
			continue;
		for(k = 0; k < m->num_sets; k++)
			if(set_missing(rc, extra, &sets[k], now))
				print_msg_set(b, &sets[k], m, now, extra);
		print_msg(&msgs, m, sets, now);
		ldns_pkt_free(pkt);
	}
	strbuf_printf(b, "END_RRSET_CACHE\n");
	strbuf_printf(b, "START_MSG_CACHE\n");
	if(msgs.len)
		strbuf_printf(b, "%s", msgs.s);
	strbuf_printf(b, "END_MSG_CACHE\n");
	strbuf_printf(b, "EOF\n");
	if(msgs.oom)
		b->oom = 1;
out:
	for(i = 0; i < rw.r.n; i++)
		rrset_cache_release(rc, rw.r.e[i]);
	for(i = 0; i < mw.r.n; i++)
		msg_cache_release(mc, mw.r.e[i]);
	free(rw.r.e);
	free(mw.r.e);
	free(sets);
	strbuf_clear(&msgs);
	rrset_cache_delete(extra);
}
