/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_nsec3.c - NSEC3 denial of existence proofs; see the
 * header for the contract. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "validator/val_nsec3.h"
#include "validator/val_nsec.h"
#include "util/dname.h"
#include "util/msgparse.h"

#define NSEC3_KNOWN_FLAGS NSEC3_FLAG_OPTOUT

/* the outcome of finding a record: found, not there, or out of budget;
 * for the closest encloser proof also: the closest encloser is an
 * unsigned delegation (NS without DS and SOA), the name is in insecure
 * space */
enum find { FOUND = 1, NOTFOUND = 0, SUSPEND = -1, INSECURE_CUT = 2 };

/* The usable NSEC3s of the proving zone, parsed once per proof. */
struct filter {
	struct val_nsec3_rr* rrs;
	size_t n;
	const uint8_t* zone;
	const struct val_nsec3_env* env;
};

static enum sec_status bogus(struct val_reason* r, const char* text)
{
	val_reason_set(r, text, VAL_EDE_NSEC_MISSING);
	return SEC_BOGUS;
}

static enum sec_status result(struct val_reason* r, enum sec_status s,
	const char* text)
{
	val_reason_set(r, text, VAL_EDE_NONE);
	return s;
}

static enum sec_status suspend(struct val_reason* r)
{
	return result(r, VAL_NSEC3_SUSPEND, "NSEC3 hash budget used up, "
		"suspended");
}

/* One rdf of the given size (or at least min bytes when size is 0). */
static const uint8_t* rdf_bytes(const ldns_rr* rr, size_t i, size_t size,
	size_t* got)
{
	const ldns_rdf* f = ldns_rr_rdf(rr, i);
	if(!f)
		return NULL;
	*got = ldns_rdf_size(f);
	if(size && *got != size)
		return NULL;
	if(*got && !ldns_rdf_data(f))
		return NULL;
	return ldns_rdf_data(f);
}

/* A length-prefixed field (salt, next hash) that fills its rdf. */
static int counted_field(const ldns_rr* rr, size_t i, const uint8_t** data,
	size_t* len)
{
	size_t sz;
	const uint8_t* p = rdf_bytes(rr, i, 0, &sz);
	if(!p || sz < 1 || (size_t)p[0] + 1 != sz)
		return 0;
	*data = p + 1;
	*len = p[0];
	return 1;
}

int val_nsec3_parse(const ldns_rr* rr, struct val_nsec3_rr* out)
{
	const ldns_rdf* own;
	const uint8_t* p;
	size_t sz;
	int hl;
	memset(out, 0, sizeof(*out));
	if(!rr || ldns_rr_get_type(rr) != LDNS_RR_TYPE_NSEC3 ||
		ldns_rr_rd_count(rr) < 5)
		return 0;
	own = ldns_rr_owner(rr);
	if(!own || ldns_rdf_size(own) < 2 || dname_valid(ldns_rdf_data(own),
		ldns_rdf_size(own)) != ldns_rdf_size(own) ||
		ldns_rdf_data(own)[0] == 0)
		return 0;
	out->rr = rr;
	out->owner = ldns_rdf_data(own);
	out->zone = dname_remove_label(out->owner);
	if(!(p = rdf_bytes(rr, 0, 1, &sz)))
		return 0;
	out->algo = p[0];
	if(!(p = rdf_bytes(rr, 1, 1, &sz)))
		return 0;
	out->flags = p[0];
	if(!(p = rdf_bytes(rr, 2, 2, &sz)))
		return 0;
	out->iterations = (uint16_t)((p[0] << 8) | p[1]);
	if(!counted_field(rr, 3, &out->salt, &out->saltlen) ||
		!counted_field(rr, 4, &out->next, &out->nextlen))
		return 0;
	if(ldns_rr_rd_count(rr) >= 6 && ldns_rr_rdf(rr, 5)) {
		out->bitmap = rdf_bytes(rr, 5, 0, &out->bitmaplen);
		if(!out->bitmap)
			out->bitmaplen = 0;
	}
	hl = val_nsec3_b32hex_decode(out->owner + 1, out->owner[0],
		out->owner_hash, sizeof(out->owner_hash));
	out->owner_hashlen = hl > 0 ? (size_t)hl : 0;
	return 1;
}

int val_nsec3_usable(const struct val_nsec3_rr* n)
{
	return n->algo == NSEC3_HASH_SHA1 &&
		(n->flags & ~NSEC3_KNOWN_FLAGS) == 0;
}

int val_nsec3_has_type(const struct val_nsec3_rr* n, uint16_t type)
{
	return n->bitmap && val_nsec_bitmap_has_type(n->bitmap, n->bitmaplen,
		type);
}

int val_nsec3_covers_hash(const struct val_nsec3_rr* n, const uint8_t* hash,
	size_t hashlen)
{
	const uint8_t* o = n->owner_hash, *x = n->next;
	if(hashlen == 0 || n->owner_hashlen != hashlen ||
		n->nextlen != hashlen)
		return 0;
	if(memcmp(o, x, hashlen) < 0)
		return memcmp(o, hash, hashlen) < 0 &&
			memcmp(hash, x, hashlen) < 0;
	/* the last in the chain (or the only one): wraps to the first */
	return memcmp(hash, o, hashlen) > 0 || memcmp(hash, x, hashlen) < 0;
}

/* compat: unbound-1.17: The zone the proof is about (Unbound's filter_init):
 * the closest to qname that a usable NSEC3 is in; for DS not qname itself
 * unless root. */
static const uint8_t* pick_zone(const ldns_rr_list* l, const uint8_t* qname,
	uint16_t qtype)
{
	const uint8_t* zone = NULL;
	size_t i;
	for(i = 0; l && i < ldns_rr_list_rr_count(l); i++) {
		struct val_nsec3_rr n;
		if(!val_nsec3_parse(ldns_rr_list_rr(l, i), &n) ||
			!val_nsec3_usable(&n))
			continue;
		if(!dname_subdomain_c(qname, n.zone))
			continue;
		if(zone && !dname_subdomain_c(n.zone, zone))
			continue;
		if(qtype == TYPE_DS && qname[0] != 0 &&
			query_dname_compare(qname, n.zone) == 0)
			continue;
		zone = n.zone;
	}
	return zone;
}

/* 1: the filter holds the zone's usable NSEC3s (possibly none: zone
 * NULL); 0: out of memory. */
static int filter_init(struct filter* f, const ldns_rr_list* l,
	const uint8_t* qname, uint16_t qtype, const struct val_nsec3_env* env)
{
	size_t i, total = l ? ldns_rr_list_rr_count(l) : 0;
	memset(f, 0, sizeof(*f));
	f->env = env;
	f->zone = pick_zone(l, qname, qtype);
	if(!f->zone)
		return 1;
	f->rrs = calloc(total, sizeof(*f->rrs));
	if(!f->rrs)
		return 0;
	for(i = 0; i < total; i++) {
		struct val_nsec3_rr* n = &f->rrs[f->n];
		if(val_nsec3_parse(ldns_rr_list_rr(l, i), n) &&
			val_nsec3_usable(n) &&
			query_dname_compare(n->zone, f->zone) == 0)
			f->n++;
	}
	return 1;
}

static void filter_free(struct filter* f)
{
	free(f->rrs);
	f->rrs = NULL;
}

static int iterations_too_high(const struct filter* f)
{
	size_t i;
	for(i = 0; i < f->n; i++)
		if(f->rrs[i].iterations > f->env->max_iterations)
			return 1;
	return 0;
}

/* The hash of nm with n's parameters. */
static enum find hash_for(const struct filter* f,
	const struct val_nsec3_rr* n, const uint8_t* nm, uint8_t* scratch,
	const uint8_t** hash, size_t* hashlen)
{
	int r = val_nsec3_hash_lookup(f->env->cache, f->env->budget, nm,
		n->algo,
		n->iterations, n->salt, n->saltlen, scratch, hash, hashlen);
	if(r < 0)
		return SUSPEND;
	return r == 1 ? FOUND : NOTFOUND;
}

static int owner_is(const struct val_nsec3_rr* n, const uint8_t* h,
	size_t hl)
{
	return hl == n->owner_hashlen && memcmp(h, n->owner_hash, hl) == 0;
}

/* The first NSEC3 for which hit(NSEC3, hash of nm) holds. */
static enum find find_nsec3(const struct filter* f, const uint8_t* nm,
	int (*hit)(const struct val_nsec3_rr*, const uint8_t*, size_t),
	const struct val_nsec3_rr** out)
{
	size_t i;
	for(i = 0; i < f->n; i++) {
		const struct val_nsec3_rr* n = &f->rrs[i];
		uint8_t scratch[NSEC3_SHA1_LEN];
		const uint8_t* h;
		size_t hl;
		enum find r = hash_for(f, n, nm, scratch, &h, &hl);
		if(r == SUSPEND)
			return SUSPEND;
		if(r == FOUND && hit(n, h, hl)) {
			*out = n;
			return FOUND;
		}
	}
	return NOTFOUND;
}

/* The NSEC3 whose owner is the hash of nm. */
static enum find find_matching(const struct filter* f, const uint8_t* nm,
	const struct val_nsec3_rr** match)
{
	return find_nsec3(f, nm, owner_is, match);
}

/* An NSEC3 that covers the hash of nm. */
static enum find find_covering(const struct filter* f, const uint8_t* nm,
	const struct val_nsec3_rr** cover)
{
	return find_nsec3(f, nm, val_nsec3_covers_hash, cover);
}

/* Closest encloser proof (RFC 5155 8.3). */
struct ce_proof {
	const uint8_t* ce;                 /* points into qname */
	const struct val_nsec3_rr* ce_rr;  /* matches ce */
	const struct val_nsec3_rr* nc_rr;  /* covers the next closer */
};

/* FOUND with *ce filled; NOTFOUND with *why set; SUSPEND. With
 * must_not_exist, qname itself as the closest encloser is a failure;
 * otherwise it is a success without a next closer. */
static enum find prove_closest_encloser(const struct filter* f,
	const uint8_t* qname, int must_not_exist, struct ce_proof* ce,
	const char** why)
{
	const uint8_t* nm = qname, *nc;
	enum find r = NOTFOUND;
	memset(ce, 0, sizeof(*ce));
	while(dname_subdomain_c(nm, f->zone)) {
		r = find_matching(f, nm, &ce->ce_rr);
		if(r != NOTFOUND)
			break;
		if(*nm == 0)
			break;
		nm = dname_remove_label(nm);
	}
	if(r == SUSPEND)
		return SUSPEND;
	if(r == NOTFOUND) {
		*why = "no NSEC3 closest encloser";
		return NOTFOUND;
	}
	ce->ce = nm;
	if(nm == qname) {
		if(must_not_exist) {
			*why = "NSEC3 proves that the name exists";
			return NOTFOUND;
		}
		return FOUND;
	}
	if(val_nsec3_has_type(ce->ce_rr, TYPE_NS) &&
		!val_nsec3_has_type(ce->ce_rr, TYPE_SOA)) {
		if(!val_nsec3_has_type(ce->ce_rr, TYPE_DS)) {
			*why = "NSEC3 closest encloser is an insecure "
				"delegation";
			return INSECURE_CUT;
		}
		*why = "NSEC3 closest encloser is a delegation";
		return NOTFOUND;
	}
	if(val_nsec3_has_type(ce->ce_rr, TYPE_DNAME)) {
		*why = "NSEC3 closest encloser is a DNAME";
		return NOTFOUND;
	}
	nc = val_dname_strip(qname, dname_count_labels(qname) -
		dname_count_labels(nm) - 1);
	r = find_covering(f, nc, &ce->nc_rr);
	if(r == NOTFOUND)
		*why = "no NSEC3 covers the next closer name";
	return r;
}

/* A proof's common start: the filter, and the outcomes that come before
 * any hashing. Returns 1 to go on with the proof, 0 with *out set. */
static int begin(struct filter* f, const ldns_rr_list* l,
	const uint8_t* qname, uint16_t qtype, const struct val_nsec3_env* env,
	struct val_reason* reason, enum sec_status* out)
{
	memset(f, 0, sizeof(*f));
	if(!env || !env->cache || !env->budget || !qname) {
		*out = bogus(reason, "NSEC3 proof without its environment");
		return 0;
	}
	if(!filter_init(f, l, qname, qtype, env)) {
		*out = bogus(reason, "out of memory in NSEC3 proof");
		return 0;
	}
	if(!f->zone || f->n == 0) {
		*out = bogus(reason, "no NSEC3 records");
		return 0;
	}
	if(iterations_too_high(f)) {
		*out = result(reason, SEC_INSECURE, "NSEC3 iteration count "
			"too high");
		return 0;
	}
	return 1;
}

/* The closest encloser proof of qname into *ce: 1, or 0 with *out the
 * outcome when there is none (suspended, insecure space, bogus). */
static int closest_encloser(const struct filter* f, const uint8_t* qname,
	struct ce_proof* ce, struct val_reason* reason, enum sec_status* out)
{
	const char* why = NULL;
	enum find r = prove_closest_encloser(f, qname, 1, ce, &why);
	if(r == SUSPEND)
		*out = suspend(reason);
	else if(r == INSECURE_CUT)
		*out = result(reason, SEC_INSECURE, why);
	else if(r == NOTFOUND)
		*out = bogus(reason, why);
	else
		return 1;
	return 0;
}

static enum sec_status do_nxdomain(const struct filter* f,
	const uint8_t* qname, struct val_reason* reason)
{
	struct ce_proof ce;
	const struct val_nsec3_rr* wc_rr;
	uint8_t wc[LDNS_MAX_DOMAINLEN + 1];
	enum sec_status st;
	enum find r;
	if(!closest_encloser(f, qname, &ce, reason, &st))
		return st;
	if(val_dname_wildcard(ce.ce, wc) == 0)
		return bogus(reason, "NSEC3 wildcard name too long");
	r = find_covering(f, wc, &wc_rr);
	if(r == SUSPEND)
		return suspend(reason);
	if(r == NOTFOUND)
		return bogus(reason, "no NSEC3 proves that the wildcard at "
			"the closest encloser does not exist");
	if(ce.nc_rr->flags & NSEC3_FLAG_OPTOUT)
		return result(reason, SEC_INSECURE, "opt-out NSEC3 covers "
			"the next closer name");
	return result(reason, SEC_SECURE, NULL);
}

/* The checks on an NSEC3 that matches qname (or *.ce) for NODATA. */
static const char* nodata_bitmap_fault(const struct val_nsec3_rr* n,
	uint16_t qtype, const uint8_t* qname)
{
	if(val_nsec3_has_type(n, qtype))
		return "NSEC3 shows that the type exists";
	if(val_nsec3_has_type(n, TYPE_CNAME))
		return "NSEC3 shows that a CNAME exists";
	if(qtype == TYPE_DS && qname[0] != 0 &&
		val_nsec3_has_type(n, TYPE_SOA))
		return "NSEC3 from the child zone apex cannot deny a DS";
	if(qtype != TYPE_DS && val_nsec3_has_type(n, TYPE_NS) &&
		!val_nsec3_has_type(n, TYPE_SOA))
		return "NSEC3 is a delegation, not NODATA";
	return NULL;
}

static enum sec_status do_nodata(const struct filter* f,
	const uint8_t* qname, uint16_t qtype, struct val_reason* reason)
{
	const struct val_nsec3_rr* m;
	struct ce_proof ce;
	uint8_t wc[LDNS_MAX_DOMAINLEN + 1];
	const char* why = NULL;
	enum sec_status st;
	enum find r = find_matching(f, qname, &m);
	if(r == SUSPEND)
		return suspend(reason);
	if(r == FOUND) {
		why = nodata_bitmap_fault(m, qtype, qname);
		if(why)
			return bogus(reason, why);
		return result(reason, SEC_SECURE, NULL);
	}
	if(!closest_encloser(f, qname, &ce, reason, &st))
		return st;
	/* wildcard NODATA */
	if(val_dname_wildcard(ce.ce, wc) != 0) {
		r = find_matching(f, wc, &m);
		if(r == SUSPEND)
			return suspend(reason);
		if(r == FOUND) {
			why = nodata_bitmap_fault(m, qtype, qname);
			if(why)
				return bogus(reason, why);
			/* compat: unbound-1.17: RFC 5155 9.2: the next closer
			 * name in an opt-out span may be an unsigned delegation:
			 * not secure, as Unbound */
			if(ce.nc_rr && (ce.nc_rr->flags & NSEC3_FLAG_OPTOUT))
				return result(reason, SEC_INSECURE, "wildcard "
					"NODATA in an opt-out span");
			return result(reason, SEC_SECURE, NULL);
		}
	}
	/* an unsigned delegation below an opt-out span (RFC 5155 9.2) */
	if(ce.nc_rr && (ce.nc_rr->flags & NSEC3_FLAG_OPTOUT))
		return result(reason, SEC_INSECURE, "opt-out NSEC3 covers "
			"the next closer name");
	return bogus(reason, "no NSEC3 proves NODATA: no match, no "
		"wildcard, no opt-out");
}

enum sec_status val_nsec3_prove_nxdomain(const ldns_rr_list* nsec3s,
	const uint8_t* qname, const struct val_nsec3_env* env,
	struct val_reason* reason)
{
	struct filter f;
	enum sec_status s;
	if(begin(&f, nsec3s, qname, 0, env, reason, &s))
		s = do_nxdomain(&f, qname, reason);
	filter_free(&f);
	return s;
}

enum sec_status val_nsec3_prove_nodata(const ldns_rr_list* nsec3s,
	const uint8_t* qname, uint16_t qtype, const struct val_nsec3_env* env,
	struct val_reason* reason)
{
	struct filter f;
	enum sec_status s;
	if(begin(&f, nsec3s, qname, qtype, env, reason, &s))
		s = do_nodata(&f, qname, qtype, reason);
	filter_free(&f);
	return s;
}

enum sec_status val_nsec3_prove_wildcard_answer(const ldns_rr_list* nsec3s,
	const uint8_t* qname, const uint8_t* wc_ce,
	const struct val_nsec3_env* env, struct val_reason* reason)
{
	struct filter f;
	enum sec_status s;
	const struct val_nsec3_rr* cover;
	const uint8_t* nc;
	enum find r;
	int optout;
	if(!wc_ce || !qname || !val_dname_strict_subdomain(qname, wc_ce))
		return bogus(reason, "wildcard does not apply to the name");
	if(!begin(&f, nsec3s, qname, 0, env, reason, &s)) {
		filter_free(&f);
		return s;
	}
	nc = val_dname_strip(qname, dname_count_labels(qname) -
		dname_count_labels(wc_ce) - 1);
	r = find_covering(&f, nc, &cover);
	optout = r == FOUND && (cover->flags & NSEC3_FLAG_OPTOUT);
	filter_free(&f);   /* cover pointed into it */
	if(r == SUSPEND)
		return suspend(reason);
	if(r == NOTFOUND)
		return bogus(reason, "no NSEC3 covers the next closer name "
			"of the wildcard answer");
	/* compat: unbound-1.17: RFC 5155 9.2: in an opt-out span the name may
	 * be an unsigned delegation, which the wildcard would not answer:
	 * not secure, as Unbound */
	if(optout)
		return result(reason, SEC_INSECURE, "wildcard answer in an "
			"opt-out span");
	return result(reason, SEC_SECURE, NULL);
}

static enum sec_status do_nods(const struct filter* f, const uint8_t* qname,
	struct val_reason* reason)
{
	const struct val_nsec3_rr* m;
	struct ce_proof ce;
	enum sec_status st;
	enum find r = find_matching(f, qname, &m);
	if(r == SUSPEND)
		return suspend(reason);
	if(r == FOUND) {
		if(val_nsec3_has_type(m, TYPE_SOA) && qname[0] != 0)
			return bogus(reason, "NSEC3 from child zone");
		if(val_nsec3_has_type(m, TYPE_DS))
			return bogus(reason, "NSEC3 has DS in bitmap");
		if(!val_nsec3_has_type(m, TYPE_NS))
			return result(reason, SEC_INDETERMINATE, "NSEC3 "
				"proves no delegation at the name");
		return result(reason, SEC_SECURE, NULL);
	}
	if(!closest_encloser(f, qname, &ce, reason, &st))
		return st;
	if(!(ce.nc_rr->flags & NSEC3_FLAG_OPTOUT))
		return bogus(reason, "covering NSEC3 was not opt-out in an "
			"opt-out DS NOERROR/NODATA case");
	return result(reason, SEC_INSECURE, "opt-out NSEC3 covers the "
		"delegation: insecure");
}

enum sec_status val_nsec3_prove_nods(const ldns_rr_list* nsec3s,
	const uint8_t* qname, const struct val_nsec3_env* env,
	struct val_reason* reason)
{
	struct filter f;
	enum sec_status s;
	if(begin(&f, nsec3s, qname, TYPE_DS, env, reason, &s))
		s = do_nods(&f, qname, reason);
	filter_free(&f);
	return s;
}

enum sec_status val_nsec3_prove_nxornodata(const ldns_rr_list* nsec3s,
	const uint8_t* qname, uint16_t qtype, const struct val_nsec3_env* env,
	struct val_reason* reason, int* nodata)
{
	struct filter f;
	enum sec_status s;
	*nodata = 0;
	if(!begin(&f, nsec3s, qname, qtype, env, reason, &s)) {
		filter_free(&f);
		return s;
	}
	s = do_nxdomain(&f, qname, reason);
	if(s != SEC_SECURE && s != VAL_NSEC3_SUSPEND) {
		s = do_nodata(&f, qname, qtype, reason);
		if(s == SEC_SECURE)
			*nodata = 1;
	}
	filter_free(&f);
	return s;
}
