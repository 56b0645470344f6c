/* SPDX-License-Identifier: BSD-3-Clause */
/* services/authzone.c - compat: unbound-1.17: answers from auth-zone:
 * zones (see the header). An answer is planned first (which RRsets, in
 * which section, under which owner), as Unbound's auth_zone_generate_answer
 * decides it, then encoded with util/msgencode.c: no allocation, no lock. */
#include "config.h"
#include "services/authzone.h"
#include "services/authzone_internal.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/msgencode.h"
#include "util/msgparse.h"
#include "validator/val_nsec3_hash.h"
#include <ldns/ldns.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* compat: unbound-1.17: CNAMEs followed inside the zone (MAX_CNAME_CHAIN) */
#define AZ_CNAME_CHAIN 8
/* RRsets one answer may hold (a long CNAME chain with additionals) */
#define AZ_PLAN_MAX 64
#define TYPE_NSEC3PARAM 51

struct az_item {
	enum msg_section sec;
	const struct az_rrset* rs;     /* NULL: the synthesised CNAME */
	const uint8_t* owner;
	size_t owner_len;
	uint16_t type;
	int neg_soa;                   /* TTL min(TTL, SOA minimum) */
};

struct az_plan {
	const struct az_zone* z;
	const uint8_t* qname;          /* lowercased */
	size_t qlen;
	uint16_t qtype;
	int rcode;
	int aa;
	int n;
	struct az_item it[AZ_PLAN_MAX];
	/* a DNAME's CNAME (owner qname, TTL 0) */
	struct packed_rrset cname;
	uint8_t cname_target[LDNS_MAX_DOMAINLEN + 1];
	const uint8_t* cname_rd;
	uint16_t cname_rl;
	/* a wildcard's names rewritten to the question's */
	uint8_t nsec3_name[LDNS_MAX_DOMAINLEN + 1];
};

/* ---- lookup ---- */

/* Index of the last node <= name in canonical order, -1 if none;
 * *exact when equal. */
static long find_le(const struct az_zone* z, const uint8_t* name, int* exact)
{
	size_t lo = 0, hi = z->count;
	*exact = 0;
	while(lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = dname_canonical_compare(z->nodes[mid].name, name);
		if(c == 0) {
			*exact = 1;
			return (long)mid;
		}
		if(c < 0)
			lo = mid + 1;
		else	hi = mid;
	}
	return (long)lo - 1;
}

const struct az_node* az_find_name(const struct az_zone* z,
	const uint8_t* name)
{
	int exact;
	long i;
	if(!z || z->count == 0)
		return NULL;
	i = find_le(z, name, &exact);
	return exact ? &z->nodes[i] : NULL;
}

const struct az_rrset* az_node_rrset(const struct az_node* n, uint16_t t)
{
	const struct az_rrset* r;
	if(!n)
		return NULL;
	for(r = n->rrsets; r; r = r->next)
		if(r->rr.type == t)
			return r;
	return NULL;
}

static int only_nsec3(const struct az_node* n)
{
	const struct az_rrset* r;
	if(!n->rrsets)
		return 0;
	for(r = n->rrsets; r; r = r->next)
		if(r->rr.type != TYPE_NSEC3)
			return 0;
	return 1;
}

/* The next existing name above n (NULL at the root). */
static const struct az_node* go_up(const struct az_zone* z,
	const struct az_node* n)
{
	const uint8_t* nm = n->name;
	while(nm[0]) {
		const struct az_node* p;
		nm = dname_remove_label(nm);
		if((p = az_find_name(z, nm)) != NULL)
			return p;
	}
	return NULL;
}

/* compat: unbound-1.17: az_find_ce: 1 when node (exact) can answer;
 * else *ce is the closest enclosing name that exists, *cut its NS (a
 * delegation) or DNAME when one is on the way up. */
static int find_ce(const struct az_plan* p, const struct az_node* node,
	int exact, const struct az_node** ce, const struct az_rrset** cut)
{
	const struct az_zone* z = p->z;
	const struct az_node* n = node;
	*ce = NULL;
	*cut = NULL;
	if(!exact) {
		const uint8_t* nm = p->qname;
		n = NULL;
		while(nm[0] && !n) {
			nm = dname_remove_label(nm);
			n = az_find_name(z, nm);
		}
	} else
		*ce = n;
	if(n && only_nsec3(n)) {
		exact = 0;
		*ce = NULL;
	}
	while(n) {
		const struct az_rrset* r;
		if(n->namelen != z->namelen &&
			(r = az_node_rrset(n, TYPE_NS)) != NULL &&
			(p->qtype != TYPE_DS || n->namelen != p->qlen)) {
			*ce = n;
			*cut = r;
			return 0;
		}
		if(n->namelen != p->qlen &&
			(r = az_node_rrset(n, TYPE_DNAME)) != NULL) {
			*ce = n;
			*cut = r;
			return 0;
		}
		if(!*ce && !only_nsec3(n))
			*ce = n;
		n = go_up(z, n);
	}
	return exact;
}

/* ---- the plan ---- */

static int plan_has(const struct az_plan* p, const uint8_t* owner,
	uint16_t type)
{
	int i;
	for(i = 0; i < p->n; i++)
		if(p->it[i].type == type &&
			query_dname_compare(p->it[i].owner, owner) == 0)
			return 1;
	return 0;
}

/* Add an RRset (once: compat: unbound-1.17, msg_rrset_duplicate). */
static void plan_add(struct az_plan* p, enum msg_section sec,
	const struct az_node* n, const struct az_rrset* rs)
{
	struct az_item* it;
	if(!n || !rs || p->n >= AZ_PLAN_MAX ||
		plan_has(p, n->name, rs->rr.type))
		return;
	it = &p->it[p->n++];
	memset(it, 0, sizeof(*it));
	it->sec = sec;
	it->rs = rs;
	it->owner = n->name;
	it->owner_len = n->namelen;
	it->type = rs->rr.type;
}

/* Items owned by from (the wildcard) are given the question's name. */
static void plan_rename(struct az_plan* p, const uint8_t* from, int an_only)
{
	int i;
	for(i = 0; i < p->n; i++) {
		if((an_only && p->it[i].sec != SEC_ANSWER) ||
			(!an_only && p->it[i].sec == SEC_ANSWER))
			continue;
		if(query_dname_compare(p->it[i].owner, from) == 0) {
			p->it[i].owner = p->qname;
			p->it[i].owner_len = p->qlen;
		}
	}
}

static void add_negative_soa(struct az_plan* p)
{
	const struct az_rrset* soa = az_node_rrset(p->z->apex, TYPE_SOA);
	int before = p->n;
	plan_add(p, SEC_AUTHORITY, p->z->apex, soa);
	if(p->n > before)
		p->it[p->n - 1].neg_soa = 1;
}

/* A and AAAA of the names in rs's rdata (after offset bytes). */
static void add_additionals(struct az_plan* p, const struct az_rrset* rs,
	size_t offset)
{
	size_t i;
	for(i = 0; i < rs->rr.count; i++) {
		const struct az_node* n;
		size_t len = rs->rr.rdlen[i];
		if(len <= offset || dname_valid(rs->rr.rdata[i] + offset,
			len - offset) == 0)
			continue;
		if(!(n = az_find_name(p->z, rs->rr.rdata[i] + offset)))
			continue;
		plan_add(p, SEC_ADDITIONAL, n, az_node_rrset(n, TYPE_A));
		plan_add(p, SEC_ADDITIONAL, n, az_node_rrset(n, TYPE_AAAA));
	}
}

/* The target of the CNAME rdata rd, followed in the zone. */
static void follow_cname(struct az_plan* p, const uint8_t* rd, size_t rl)
{
	int k;
	for(k = 0; k < AZ_CNAME_CHAIN; k++) {
		const struct az_node* n;
		const struct az_rrset* r;
		if(rl == 0 || dname_valid(rd, rl) == 0 ||
			!dname_subdomain_c(rd, p->z->name) ||
			!(n = az_find_name(p->z, rd)))
			return;
		if((r = az_node_rrset(n, p->qtype)) != NULL) {
			plan_add(p, SEC_ANSWER, n, r);
			return;
		}
		if(!(r = az_node_rrset(n, TYPE_CNAME)) || r->rr.count == 0)
			return;
		if(plan_has(p, n->name, TYPE_CNAME))
			return;   /* a loop */
		plan_add(p, SEC_ANSWER, n, r);
		rd = r->rr.rdata[0];
		rl = r->rr.rdlen[0];
	}
}

static void add_any(struct az_plan* p, const struct az_node* n)
{
	static const uint16_t types[] = { TYPE_SOA, TYPE_MX, TYPE_A,
		TYPE_AAAA };
	int before = p->n;
	size_t i;
	for(i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		plan_add(p, SEC_ANSWER, n, az_node_rrset(n, types[i]));
	if(p->n == before && n && n->rrsets)
		plan_add(p, SEC_ANSWER, n, n->rrsets);
}

/* ---- NSEC and NSEC3 ---- */

/* compat: unbound-1.17: the NSEC at node or, for glue, the one above
 * it within the zone (az_find_nsec_cover). */
static const struct az_rrset* nsec_cover(const struct az_zone* z,
	const struct az_node** node)
{
	const uint8_t* nm;
	const struct az_rrset* r;
	if(!*node)
		return NULL;
	nm = (*node)->name;
	while((r = az_node_rrset(*node, TYPE_NSEC)) == NULL) {
		size_t len;
		if(!nm[0])
			return NULL;
		len = dname_valid(nm, LDNS_MAX_DOMAINLEN + 1);
		if(len <= z->namelen)
			return NULL;
		nm = dname_remove_label(nm);
		*node = az_find_name(z, nm);
	}
	return r;
}

/* The node at or before name (by canonical order), or NULL. */
static const struct az_node* node_le(const struct az_zone* z,
	const uint8_t* name)
{
	int exact;
	long i = z->count ? find_le(z, name, &exact) : -1;
	return i >= 0 ? &z->nodes[i] : NULL;
}

static size_t wildcard_of(const uint8_t* name, size_t len, uint8_t* wc)
{
	if(len + 2 > LDNS_MAX_DOMAINLEN + 1)
		return 0;
	wc[0] = 1;
	wc[1] = '*';
	memcpy(wc + 2, name, len);
	return len + 2;
}

static void nsec_wildcard_denial(struct az_plan* p, const struct az_node* ce)
{
	uint8_t wc[LDNS_MAX_DOMAINLEN + 1];
	const struct az_node* n;
	const struct az_rrset* r;
	if(!wildcard_of(ce->name, ce->namelen, wc))
		return;
	n = node_le(p->z, wc);
	if((r = nsec_cover(p->z, &n)) != NULL)
		plan_add(p, SEC_AUTHORITY, n, r);
}

struct n3param {
	uint8_t algo;
	uint16_t iter;
	const uint8_t* salt;
	size_t saltlen;
};

/* compat: unbound-1.17: the first NSEC3PARAM with SHA-1, no unknown
 * flags and its salt whole */
static int nsec3_param(const struct az_zone* z, struct n3param* pm)
{
	const struct az_rrset* r = az_node_rrset(z->apex, TYPE_NSEC3PARAM);
	size_t i;
	if(!r)
		return 0;
	for(i = 0; i < r->rr.count; i++) {
		const uint8_t* d = r->rr.rdata[i];
		size_t len = r->rr.rdlen[i];
		if(len < 5 || d[0] != 1 || (d[1] & 0xfe) != 0 ||
			len < 5 + (size_t)d[4])
			continue;
		pm->algo = d[0];
		pm->iter = (uint16_t)((d[2] << 8) | d[3]);
		pm->saltlen = d[4];
		pm->salt = d + 5;
		return 1;
	}
	return 0;
}

/* The NSEC3 owner name for name into out; its length or 0. */
static size_t nsec3_owner(const struct az_zone* z, const struct n3param* pm,
	const uint8_t* name, uint8_t* out)
{
	uint8_t hash[64];
	char b32[128];
	size_t hl = val_nsec3_hash_compute(name, pm->algo, pm->iter, pm->salt,
		pm->saltlen, hash), bl;
	if(hl == 0)
		return 0;
	bl = val_nsec3_b32hex_encode(hash, hl, b32);
	if(bl == 0 || bl > 63 || 1 + bl + z->namelen > LDNS_MAX_DOMAINLEN + 1)
		return 0;
	out[0] = (uint8_t)bl;
	memcpy(out + 1, b32, bl);
	memcpy(out + 1 + bl, z->name, z->namelen);
	return 1 + bl + z->namelen;
}

static const struct az_node* nsec3_exact(struct az_plan* p,
	const struct n3param* pm, const uint8_t* name)
{
	const struct az_node* n;
	if(!nsec3_owner(p->z, pm, name, p->nsec3_name))
		return NULL;
	n = az_find_name(p->z, p->nsec3_name);
	return az_node_rrset(n, TYPE_NSEC3) ? n : NULL;
}

/* The NSEC3 whose hash is at or before name's, wrapping to the last. */
static const struct az_node* nsec3_cover(struct az_plan* p,
	const struct n3param* pm, const uint8_t* name)
{
	const struct az_zone* z = p->z;
	int exact;
	long i;
	if(!nsec3_owner(z, pm, name, p->nsec3_name) || z->count == 0)
		return NULL;
	i = find_le(z, p->nsec3_name, &exact);
	for(; i >= 0; i--)
		if(az_node_rrset(&z->nodes[i], TYPE_NSEC3))
			return &z->nodes[i];
	for(i = (long)z->count - 1; i >= 0; i--)
		if(az_node_rrset(&z->nodes[i], TYPE_NSEC3))
			return &z->nodes[i];
	return NULL;
}

static void nsec3_add(struct az_plan* p, const struct az_node* n)
{
	if(n)
		plan_add(p, SEC_AUTHORITY, n, az_node_rrset(n, TYPE_NSEC3));
}

/* compat: unbound-1.17: az_add_nsec3_proof: the closest encloser's NSEC3
 * (ceproof), the next closer name's cover (nxproof, also when the
 * encloser had to go up), the wildcard's cover (wcproof); nodataproof:
 * the name's own NSEC3 alone, when it has one. */
static void nsec3_proof(struct az_plan* p, const uint8_t* cenm,
	int nodataproof, int ceproof, int nxproof, int wcproof)
{
	struct n3param pm;
	const struct az_node* n;
	size_t celen;
	if(!nsec3_param(p->z, &pm))
		return;
	if(nodataproof && (n = nsec3_exact(p, &pm, p->qname)) != NULL) {
		nsec3_add(p, n);
		return;
	}
	celen = dname_valid(cenm, LDNS_MAX_DOMAINLEN + 1);
	if(ceproof) {
		while((n = nsec3_exact(p, &pm, cenm)) == NULL) {
			if(celen <= p->z->namelen)
				break;
			nxproof = 1;
			cenm = dname_remove_label(cenm);
			celen = dname_valid(cenm, LDNS_MAX_DOMAINLEN + 1);
		}
		nsec3_add(p, n);
	}
	if(nxproof && dname_subdomain_c(p->qname, cenm) &&
		p->qlen > celen) {
		/* the next closer name: one label more than the encloser */
		const uint8_t* nx = p->qname;
		int strip = dname_count_labels(p->qname) -
			dname_count_labels(cenm) - 1;
		while(strip-- > 0)
			nx = dname_remove_label(nx);
		nsec3_add(p, nsec3_cover(p, &pm, nx));
	}
	if(wcproof) {
		uint8_t wc[LDNS_MAX_DOMAINLEN + 1];
		if(wildcard_of(cenm, celen, wc))
			nsec3_add(p, nsec3_cover(p, &pm, wc));
	}
}

/* ---- the kinds of answer (Unbound's az_generate_*_answer) ---- */

static void notype_answer(struct az_plan* p, const struct az_node* node)
{
	const struct az_rrset* r;
	add_negative_soa(p);
	if((r = az_node_rrset(node, TYPE_NSEC)) != NULL)
		plan_add(p, SEC_AUTHORITY, node, r);
	else if(node)
		nsec3_proof(p, node->name, 1, 1, 0, 0);
}

static void referral_answer(struct az_plan* p, const struct az_node* ce,
	const struct az_rrset* ns)
{
	const struct az_rrset* r;
	p->aa = 0;   /* it leaves the zone */
	plan_add(p, SEC_AUTHORITY, ce, ns);
	if((r = az_node_rrset(ce, TYPE_DS)) != NULL)
		plan_add(p, SEC_AUTHORITY, ce, r);
	else if((r = az_node_rrset(ce, TYPE_NSEC)) != NULL)
		plan_add(p, SEC_AUTHORITY, ce, r);
	else
		nsec3_proof(p, ce->name, 1, 1, 0, 0);
	add_additionals(p, ns, 0);
}

static void dname_answer(struct az_plan* p, const struct az_node* ce,
	const struct az_rrset* dn)
{
	size_t tl, nl;
	struct az_item* it;
	plan_add(p, SEC_ANSWER, ce, dn);
	if(dn->rr.count < 1 || (tl = dn->rr.rdlen[0]) == 0 ||
		dname_valid(dn->rr.rdata[0], tl) != tl || p->qlen <= ce->namelen)
		return;
	/* qname's labels below the DNAME owner, then the DNAME's target */
	nl = p->qlen - ce->namelen + tl;
	if(nl > LDNS_MAX_DOMAINLEN + 1) {
		/* compat: unbound-1.17: YXDOMAIN, RFC 6672 2.2 */
		p->rcode = LDNS_RCODE_YXDOMAIN;
		return;
	}
	memcpy(p->cname_target, p->qname, p->qlen - ce->namelen);
	memcpy(p->cname_target + (p->qlen - ce->namelen), dn->rr.rdata[0], tl);
	if(p->n >= AZ_PLAN_MAX)
		return;
	p->cname_rd = p->cname_target;
	p->cname_rl = (uint16_t)nl;
	memset(&p->cname, 0, sizeof(p->cname));
	p->cname.owner = p->qname;
	p->cname.owner_len = p->qlen;
	p->cname.type = TYPE_CNAME;
	p->cname.rclass = p->z->dclass;
	p->cname.ttl = 0;   /* compat: unbound-1.17: a synthesised CNAME */
	p->cname.count = 1;
	p->cname.rdata = &p->cname_rd;
	p->cname.rdlen = &p->cname_rl;
	it = &p->it[p->n++];
	memset(it, 0, sizeof(*it));
	it->sec = SEC_ANSWER;
	it->owner = p->qname;
	it->owner_len = p->qlen;
	it->type = TYPE_CNAME;
	follow_cname(p, p->cname_target, nl);
}

static void wildcard_answer(struct az_plan* p, const struct az_node* ce,
	const struct az_node* wc, const struct az_node* node)
{
	const struct az_rrset* r;
	int insert_ce = 0;
	if((r = az_node_rrset(wc, p->qtype)) != NULL) {
		plan_add(p, SEC_ANSWER, wc, r);
		plan_rename(p, wc->name, 1);
	} else if((r = az_node_rrset(wc, TYPE_CNAME)) != NULL) {
		plan_add(p, SEC_ANSWER, wc, r);
		plan_rename(p, wc->name, 1);
		if(r->rr.count)
			follow_cname(p, r->rr.rdata[0], r->rr.rdlen[0]);
	} else if(p->qtype == TYPE_ANY && wc->rrsets) {
		add_any(p, wc);
		plan_rename(p, wc->name, 1);
	} else {
		notype_answer(p, wc);
		insert_ce = 1;
	}
	/* the question's name does not exist: its NSEC, or NSEC3s */
	if((r = nsec_cover(p->z, &node)) != NULL)
		plan_add(p, SEC_AUTHORITY, node, r);
	else if(ce)
		nsec3_proof(p, dname_remove_label(wc->name), 0, insert_ce, 1,
			0);
	plan_rename(p, wc->name, 0);
}

static void nxdomain_answer(struct az_plan* p, const struct az_node* ce,
	const struct az_node* node)
{
	const struct az_rrset* r;
	p->rcode = LDNS_RCODE_NXDOMAIN;
	add_negative_soa(p);
	if((r = nsec_cover(p->z, &node)) != NULL) {
		plan_add(p, SEC_AUTHORITY, node, r);
		if(ce)
			nsec_wildcard_denial(p, ce);
	} else if(ce)
		nsec3_proof(p, ce->name, 0, 1, 1, 1);
}

/* compat: unbound-1.17: az_empty_nonterminal: the name after idx is
 * below the question */
static int empty_nonterminal(const struct az_plan* p, long idx)
{
	size_t next = idx < 0 ? 0 : (size_t)idx + 1;
	const uint8_t* nm;
	if(next >= p->z->count)
		return 0;
	nm = p->z->nodes[next].name;
	return dname_subdomain_c(nm, p->qname) &&
		query_dname_compare(nm, p->qname) != 0;
}

/* compat: unbound-1.17: az_find_wildcard: "*." under the question's name
 * and its parents, down from (not past) the closest encloser */
static const struct az_node* find_wildcard(const struct az_plan* p,
	const struct az_node* ce)
{
	const uint8_t* nm = p->qname;
	size_t len = p->qlen;
	uint8_t wc[LDNS_MAX_DOMAINLEN + 1];
	if(!dname_subdomain_c(nm, p->z->name))
		return NULL;
	for(;;) {
		const struct az_node* n;
		if(wildcard_of(nm, len, wc) && (n = az_find_name(p->z, wc)))
			return n;
		if(len == p->z->namelen || (ce && len == ce->namelen) ||
			!nm[0])
			return NULL;
		nm = dname_remove_label(nm);
		len = dname_valid(nm, LDNS_MAX_DOMAINLEN + 1);
	}
}

static void generate(struct az_plan* p)
{
	const struct az_node* node, *ce, *wc;
	const struct az_rrset* cut, *r;
	int exact;
	long idx = p->z->count ? find_le(p->z, p->qname, &exact) : -1;
	if(idx < 0)
		exact = 0;
	node = idx >= 0 ? &p->z->nodes[idx] : NULL;
	if(find_ce(p, node, exact, &ce, &cut)) {
		if((r = az_node_rrset(node, p->qtype)) != NULL) {
			plan_add(p, SEC_ANSWER, node, r);
			if(r->rr.type == TYPE_MX)
				add_additionals(p, r, 2);
			else if(r->rr.type == TYPE_SRV)
				add_additionals(p, r, 6);
			else if(r->rr.type == TYPE_NS)
				add_additionals(p, r, 0);
		} else if((r = az_node_rrset(node, TYPE_CNAME)) != NULL) {
			plan_add(p, SEC_ANSWER, node, r);
			if(r->rr.count)
				follow_cname(p, r->rr.rdata[0],
					r->rr.rdlen[0]);
		} else if(p->qtype == TYPE_ANY)
			add_any(p, node);
		else
			notype_answer(p, node);
		return;
	}
	if(ce && cut && cut->rr.type == TYPE_NS) {
		referral_answer(p, ce, cut);
		return;
	}
	if(ce && cut && cut->rr.type == TYPE_DNAME) {
		dname_answer(p, ce, cut);
		return;
	}
	if(empty_nonterminal(p, idx)) {
		notype_answer(p, node);
		return;
	}
	if((wc = find_wildcard(p, ce)) != NULL) {
		wildcard_answer(p, ce, wc, node);
		return;
	}
	nxdomain_answer(p, ce, node);
}

/* ---- encoding ---- */

/* compat: unbound-1.17: rrset_belongs_in_reply: without DO, DNSSEC types
 * only when asked for in the answer (ANY: all, with their RRSIGs) */
static int belongs(enum msg_section sec, uint16_t type, uint16_t qtype,
	int dnssec)
{
	if(dnssec)
		return 1;
	if(sec == SEC_ANSWER && (qtype == TYPE_ANY || qtype == type))
		return 1;
	switch(type) {
	case 24: case 25: case 30:  /* SIG, KEY, NXT */
	case TYPE_DS: case TYPE_RRSIG: case TYPE_NSEC: case TYPE_DNSKEY:
	case TYPE_NSEC3: case TYPE_NSEC3PARAM:
		return 0;
	}
	return 1;
}

static uint32_t soa_minimum(const struct packed_rrset* soa)
{
	const uint8_t* m;
	if(soa->count == 0 || soa->rdlen[0] < 4)
		return soa->ttl;
	m = soa->rdata[0] + soa->rdlen[0] - 4;
	return ((uint32_t)m[0] << 24) | ((uint32_t)m[1] << 16) |
		((uint32_t)m[2] << 8) | m[3];
}

/* compat: unbound-1.17: minimal-responses: a positive answer (not NS, no
 * NSEC/NSEC3 of a wildcard) goes without authority and additional
 * sections; a negative one without additional */
static int last_section(const struct az_plan* p)
{
	int i, an_qtype = 0, an = 0, soa = 0, ns = 0, nsec = 0;
	for(i = 0; i < p->n; i++) {
		const struct az_item* it = &p->it[i];
		if(it->sec == SEC_ANSWER) {
			an = 1;
			if(it->type == p->qtype)
				an_qtype = 1;
		} else if(it->sec == SEC_AUTHORITY) {
			soa |= it->type == TYPE_SOA;
			ns |= it->type == TYPE_NS;
			nsec |= it->type == TYPE_NSEC || it->type == TYPE_NSEC3;
		}
	}
	if(p->rcode == RCODE_NOERROR && an_qtype && p->qtype != TYPE_NS &&
		!nsec)
		return SEC_ANSWER;
	if(p->rcode == RCODE_NXDOMAIN)
		return SEC_AUTHORITY;
	if(p->rcode == RCODE_NOERROR && an)
		return SEC_ADDITIONAL;
	if(p->rcode != RCODE_NOERROR)
		return SEC_ADDITIONAL;
	return (soa || !ns) ? SEC_AUTHORITY : SEC_ADDITIONAL;
}

static size_t encode(const struct az_plan* p, const struct query_info* qi,
	int dnssec, int minimal, uint8_t* out, size_t limit,
	uint16_t edns_size)
{
	struct msg_builder b;
	int s, i, last = minimal ? last_section(p) : SEC_ADDITIONAL;
	uint16_t flags = p->aa ? FLAG_AA : 0;
	msg_begin(&b, out, limit, qi, flags, p->rcode);
	for(s = SEC_ANSWER; s <= last; s++) {
		int sec_dnssec = dnssec || (s == SEC_ANSWER &&
			p->qtype == TYPE_ANY);
		for(i = 0; i < p->n; i++) {
			const struct az_item* it = &p->it[i];
			struct packed_rrset r, sg;
			if((int)it->sec != s || !belongs(it->sec, it->type,
				p->qtype, sec_dnssec))
				continue;
			r = it->rs ? it->rs->rr : p->cname;
			r.owner = it->owner;
			r.owner_len = it->owner_len;
			if(it->neg_soa) {
				uint32_t m = soa_minimum(&r);
				if(m < r.ttl)
					r.ttl = m;
			}
			if(!msg_add_rrset(&b, it->sec, &r) &&
				it->sec != SEC_ADDITIONAL)
				break;
			if(!sec_dnssec || !it->rs || it->rs->sigs.count == 0)
				continue;
			sg = it->rs->sigs;
			sg.owner = it->owner;
			sg.owner_len = it->owner_len;
			if(it->neg_soa)
				sg.ttl = r.ttl;
			if(!msg_add_rrset(&b, it->sec, &sg) &&
				it->sec != SEC_ADDITIONAL)
				break;
		}
	}
	return msg_finish(&b, qi, edns_size, p->rcode);
}

static void plan_init(struct az_plan* p, const struct az_zone* z,
	const uint8_t* qname, size_t qlen, uint16_t qtype, uint8_t* lower)
{
	memset(p, 0, offsetof(struct az_plan, it));
	memcpy(lower, qname, qlen);
	dname_tolower(lower);
	p->z = z;
	p->qname = lower;
	p->qlen = qlen;
	p->qtype = qtype;
	p->aa = 1;
	p->rcode = LDNS_RCODE_NOERROR;
}

/* ---- zones ---- */

/* The closest enclosing zone of name (any use), or NULL. */
static const struct az_zone* find_zone(const struct auth_zones* az,
	const uint8_t* name, uint16_t qclass)
{
	const struct az_zone* best = NULL;
	size_t i;
	for(i = 0; i < az->count; i++) {
		const struct az_zone* z = az->zones[i];
		if(z->dclass == qclass && (!best || z->labs > best->labs) &&
			dname_subdomain_c(name, z->name))
			best = z;
	}
	return best;
}

enum auth_answer auth_zones_answer(const struct auth_zones* az,
	const struct query_info* qi, int minimal, uint8_t* out, size_t limit,
	uint16_t edns_size, size_t* outlen)
{
	const struct az_zone* z;
	const uint8_t* name = qi->qname;
	struct az_plan p;
	uint8_t lower[LDNS_MAX_DOMAINLEN + 1];
	if(!az->have_downstream || qi->qname_len == 0)
		return AUTH_NO_ANSWER;
	/* compat: unbound-1.17: DS is the parent zone's */
	if(qi->qtype == TYPE_DS && name[0])
		name = dname_remove_label(name);
	if(!(z = find_zone(az, name, qi->qclass)) || !z->for_downstream)
		return AUTH_NO_ANSWER;
	if(!z->usable) {
		/* compat: unbound-1.17: an expired zone: SERVFAIL with AA,
		 * or recursion with fallback-enabled */
		struct msg_builder b;
		if(z->fallback_enabled)
			return AUTH_NO_ANSWER;
		msg_begin(&b, out, limit, qi, FLAG_AA, RCODE_SERVFAIL);
		*outlen = msg_finish(&b, qi, edns_size, RCODE_SERVFAIL);
		return AUTH_ANSWERED;
	}
	plan_init(&p, z, qi->qname, qi->qname_len, qi->qtype, lower);
	generate(&p);
	if(verbosity >= VERB_ALGO) {
		char zn[LDNS_MAX_DOMAINLEN * 4 + 8], qn[sizeof(zn)];
		dname_to_str(z->name, zn, sizeof(zn));
		dname_to_str(lower, qn, sizeof(qn));
		verbose(VERB_ALGO, "auth_zone %s answers %s type %d: rcode %d, "
			"%d RRsets", zn, qn, (int)qi->qtype, p.rcode, p.n);
	}
	*outlen = encode(&p, qi, qi->edns_do, minimal, out, limit, edns_size);
	return AUTH_ANSWERED;
}

const struct az_zone* auth_zones_upstream(const struct auth_zones* az,
	const uint8_t* name, uint16_t qclass, const uint8_t** zname,
	int* usable)
{
	const struct az_zone* z;
	if(!az || !az->have_upstream)
		return NULL;
	if(!(z = find_zone(az, name, qclass)) || !z->for_upstream)
		return NULL;
	*zname = z->name;
	*usable = z->usable;
	return z;
}

int auth_zone_fallback(const struct az_zone* z)
{
	return z->fallback_enabled;
}

size_t auth_zone_reply_wire(const struct az_zone* z, const uint8_t* qname,
	size_t qname_len, uint16_t qtype, uint16_t qclass, uint8_t* out,
	size_t cap)
{
	struct query_info qi;
	struct az_plan p;
	uint8_t lower[LDNS_MAX_DOMAINLEN + 1];
	if(!z->usable || qname_len == 0 || qname_len > LDNS_MAX_DOMAINLEN + 1)
		return 0;
	memset(&qi, 0, offsetof(struct query_info, qname));
	memcpy(qi.qname, qname, qname_len);
	qi.qname_len = qname_len;
	qi.qtype = qtype;
	qi.qclass = qclass;
	qi.question_end = 0;
	qi.pkt = NULL;
	qi.pkt_len = 0;
	qi.has_edns = 0;
	qi.edns_do = 1;
	qi.echo_rcode = 0;
	qi.cookie = NULL;
	plan_init(&p, z, qname, qname_len, qtype, lower);
	generate(&p);
	return encode(&p, &qi, 1, 0, out, cap, 0);
}

/* compat: unbound-1.17: zones in its tree order (dname_lab_cmp) */
static int zone_order(const void* a, const void* b)
{
	const struct az_zone* x = *(const struct az_zone* const*)a;
	const struct az_zone* y = *(const struct az_zone* const*)b;
	return dname_tree_compare(x->name, y->name);
}

int auth_zones_list(const struct auth_zones* az,
	void (*out)(void* arg, const char* line), void* arg)
{
	const struct az_zone** sorted;
	size_t i;
	if(!az || az->count == 0)
		return 1;
	if(!(sorted = malloc(az->count * sizeof(*sorted))))
		return 0;
	memcpy(sorted, az->zones, az->count * sizeof(*sorted));
	qsort(sorted, az->count, sizeof(*sorted), zone_order);
	for(i = 0; i < az->count; i++) {
		const struct az_zone* z = sorted[i];
		const struct az_rrset* soa = az_node_rrset(z->apex, TYPE_SOA);
		char zn[LDNS_MAX_DOMAINLEN * 4 + 8], line[sizeof(zn) + 64];
		dname_to_str(z->name, zn, sizeof(zn));
		/* compat: unbound-1.17: "NAME<tab>serial N", "no serial" */
		if(z->usable && soa && soa->rr.count &&
			soa->rr.rdlen[0] >= 20) {
			const uint8_t* s = soa->rr.rdata[0] +
				soa->rr.rdlen[0] - 20;
			snprintf(line, sizeof(line), "%s\tserial %u\n", zn,
				(unsigned)(((uint32_t)s[0] << 24) |
				((uint32_t)s[1] << 16) | ((uint32_t)s[2] << 8) |
				s[3]));
		} else
			snprintf(line, sizeof(line), "%s\tno serial\n", zn);
		out(arg, line);
	}
	free(sorted);
	return 1;
}
