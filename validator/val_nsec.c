/* SPDX-License-Identifier: BSD-3-Clause */
/* validator/val_nsec.c - NSEC denial of existence proofs; see the
 * header for the contract. */
#include "config.h"
#include <string.h>
#include "validator/val_nsec.h"
#include "util/dname.h"
#include "util/msgparse.h"


static enum sec_status bogus(struct val_reason* r, const char* text)
{
	val_reason_set(r, text, VAL_EDE_NSEC_MISSING);
	return SEC_BOGUS;
}

static enum sec_status ok(struct val_reason* r, enum sec_status s,
	const char* text)
{
	val_reason_set(r, text, VAL_EDE_NONE);
	return s;
}

int val_dname_strict_subdomain(const uint8_t* name, const uint8_t* zone)
{
	return dname_count_labels(name) > dname_count_labels(zone) &&
		dname_subdomain_c(name, zone);
}

int val_dname_is_wild(const uint8_t* name)
{
	return name[0] == 1 && name[1] == '*';
}

const uint8_t* val_dname_strip(const uint8_t* name, int n)
{
	while(n-- > 0 && *name)
		name += *name + 1;
	return name;
}

/* Two suffixes with the same label count are equal labels all the way
 * down from the first label they agree on; walk both and remember
 * where the agreeing run started. */
const uint8_t* val_dname_shared_suffix(const uint8_t* name,
	const uint8_t* other)
{
	int ln = dname_count_labels(name), lo = dname_count_labels(other);
	const uint8_t* a = val_dname_strip(name, ln > lo ? ln - lo : 0);
	const uint8_t* b = val_dname_strip(other, lo > ln ? lo - ln : 0);
	const uint8_t* start = a;
	while(*a) {
		int same = a[0] == b[0];
		int i;
		for(i = 1; same && i <= a[0]; i++) {
			uint8_t x = a[i], y = b[i];
			if(x >= 'A' && x <= 'Z') x += 32;
			if(y >= 'A' && y <= 'Z') y += 32;
			same = x == y;
		}
		a += *a + 1;
		b += *b + 1;
		if(!same)
			start = a;
	}
	return start;
}

size_t val_dname_wildcard(const uint8_t* ce, uint8_t* out)
{
	size_t len = dname_valid(ce, LDNS_MAX_DOMAINLEN);
	if(len == 0 || len + 2 > LDNS_MAX_DOMAINLEN)
		return 0;
	out[0] = 1;
	out[1] = '*';
	memcpy(out + 2, ce, len);
	return len + 2;
}

int val_nsec_bitmap_has_type(const uint8_t* bitmap, size_t len,
	uint16_t type)
{
	uint8_t want_win = (uint8_t)(type >> 8), bit = (uint8_t)(type & 0xff);
	size_t pos = 0;
	int last_win = -1;
	while(pos + 2 <= len) {
		uint8_t win = bitmap[pos], blen = bitmap[pos + 1];
		if(blen == 0 || blen > 32 || pos + 2 + blen > len ||
			(int)win <= last_win)
			return 0;
		if(win == want_win) {
			if((size_t)(bit / 8) >= blen)
				return 0;
			return (bitmap[pos + 2 + bit / 8] & (0x80 >> (bit % 8)))
				!= 0;
		}
		if(win > want_win)
			return 0;
		last_win = win;
		pos += 2 + blen;
	}
	return 0;
}

/* A wire name held in an rdf: valid and filling it exactly. */
static const uint8_t* rdf_dname(const ldns_rdf* rdf)
{
	size_t sz;
	if(!rdf || ldns_rdf_get_type(rdf) != LDNS_RDF_TYPE_DNAME)
		return NULL;
	sz = ldns_rdf_size(rdf);
	if(sz == 0 || dname_valid(ldns_rdf_data(rdf), sz) != sz)
		return NULL;
	return ldns_rdf_data(rdf);
}

int val_nsec_names(const ldns_rr* nsec, const uint8_t** owner,
	const uint8_t** next)
{
	if(!nsec || ldns_rr_get_type(nsec) != LDNS_RR_TYPE_NSEC ||
		ldns_rr_rd_count(nsec) < 1)
		return 0;
	*owner = rdf_dname(ldns_rr_owner(nsec));
	*next = rdf_dname(ldns_rr_rdf(nsec, 0));
	return *owner && *next;
}

int val_nsec_has_type(const ldns_rr* nsec, uint16_t type)
{
	const ldns_rdf* bm;
	if(!nsec || ldns_rr_get_type(nsec) != LDNS_RR_TYPE_NSEC ||
		ldns_rr_rd_count(nsec) < 2)
		return 0;
	bm = ldns_rr_rdf(nsec, 1);
	if(!bm)
		return 0;
	return val_nsec_bitmap_has_type(ldns_rdf_data(bm), ldns_rdf_size(bm),
		type);
}

int val_nsec_covers(const uint8_t* owner, const uint8_t* next,
	const uint8_t* name)
{
	int on = dname_canonical_compare(owner, next);
	if(on == 0)
		return val_dname_strict_subdomain(name, next);
	if(on > 0)
		return dname_canonical_compare(owner, name) < 0 &&
			val_dname_strict_subdomain(name, next);
	return dname_canonical_compare(owner, name) < 0 &&
		dname_canonical_compare(name, next) < 0;
}

/* The owner is a zone cut (NS without SOA) or a DNAME strictly above
 * name: the NSEC is from the parent side and cannot speak for names
 * below it. */
static int cut_above(const ldns_rr* nsec, const uint8_t* owner,
	const uint8_t* name)
{
	if(!val_dname_strict_subdomain(name, owner))
		return 0;
	return val_nsec_has_type(nsec, TYPE_DNAME) ||
		(val_nsec_has_type(nsec, TYPE_NS) &&
		 !val_nsec_has_type(nsec, TYPE_SOA));
}

int val_nsec_proves_name_error(const ldns_rr* nsec, const uint8_t* qname)
{
	const uint8_t* owner, *next;
	if(!val_nsec_names(nsec, &owner, &next))
		return 0;
	if(query_dname_compare(owner, qname) == 0)
		return 0;
	if(cut_above(nsec, owner, qname))
		return 0;
	/* a name below qname exists: qname is an empty non-terminal */
	if(val_dname_strict_subdomain(next, qname) &&
		dname_canonical_compare(owner, next) < 0)
		return 0;
	return val_nsec_covers(owner, next, qname);
}

const uint8_t* val_nsec_closest_encloser(const ldns_rr* nsec,
	const uint8_t* qname)
{
	const uint8_t* owner, *next, *c1, *c2;
	if(!val_nsec_names(nsec, &owner, &next))
		return NULL;
	c1 = val_dname_shared_suffix(qname, owner);
	c2 = val_dname_shared_suffix(qname, next);
	return dname_count_labels(c1) > dname_count_labels(c2) ? c1 : c2;
}

int val_nsec_proves_insecure_delegation(const ldns_rr* nsec,
	const uint8_t* qname, uint16_t qtype)
{
	const uint8_t* owner, *next;
	if(!val_nsec_names(nsec, &owner, &next))
		return 0;
	if(!val_nsec_has_type(nsec, TYPE_NS) ||
		val_nsec_has_type(nsec, TYPE_DS) ||
		val_nsec_has_type(nsec, TYPE_SOA))
		return 0;
	if(qtype == TYPE_DS)
		return val_dname_strict_subdomain(qname, owner);
	return dname_subdomain_c(qname, owner);
}

static const ldns_rr* nth_nsec(const ldns_rr_list* l, size_t i)
{
	const ldns_rr* rr = ldns_rr_list_rr(l, i);
	if(!rr || ldns_rr_get_type(rr) != LDNS_RR_TYPE_NSEC)
		return NULL;
	return rr;
}

static size_t count(const ldns_rr_list* l)
{
	return l ? ldns_rr_list_rr_count(l) : 0;
}

static int any_insecure_delegation(const ldns_rr_list* nsecs,
	const uint8_t* qname, uint16_t qtype)
{
	size_t i;
	for(i = 0; i < count(nsecs); i++) {
		const ldns_rr* n = nth_nsec(nsecs, i);
		if(n && val_nsec_proves_insecure_delegation(n, qname, qtype))
			return 1;
	}
	return 0;
}

/* The closest encloser shown by an NSEC that proves qname does not
 * exist; NULL if none does. */
static const uint8_t* name_error_ce(const ldns_rr_list* nsecs,
	const uint8_t* qname)
{
	size_t i;
	for(i = 0; i < count(nsecs); i++) {
		const ldns_rr* n = nth_nsec(nsecs, i);
		if(n && val_nsec_proves_name_error(n, qname))
			return val_nsec_closest_encloser(n, qname);
	}
	return NULL;
}

static int any_proves_name_error(const ldns_rr_list* nsecs,
	const uint8_t* name)
{
	return name_error_ce(nsecs, name) != NULL;
}

enum sec_status val_nsec_prove_nxdomain(const ldns_rr_list* nsecs,
	const uint8_t* qname, struct val_reason* reason)
{
	const uint8_t* ce;
	uint8_t wc[LDNS_MAX_DOMAINLEN + 1];
	if(any_insecure_delegation(nsecs, qname, 0))
		return ok(reason, SEC_INSECURE, "NSEC proves an insecure "
			"delegation above the name");
	ce = name_error_ce(nsecs, qname);
	if(!ce)
		return bogus(reason, "no NSEC proves that the name does "
			"not exist");
	if(val_dname_wildcard(ce, wc) == 0 || !any_proves_name_error(nsecs,
		wc))
		return bogus(reason, "no NSEC proves that the wildcard at "
			"the closest encloser does not exist");
	return ok(reason, SEC_SECURE, NULL);
}

/* An NSEC at qname proves NODATA for qtype. */
static int nodata_at_name(const ldns_rr* n, uint16_t qtype,
	const uint8_t* qname)
{
	if(val_nsec_has_type(n, qtype) || val_nsec_has_type(n, TYPE_CNAME))
		return 0;
	if(qtype != TYPE_DS)
		/* a cut: we should have had a referral */
		return !(val_nsec_has_type(n, TYPE_NS) &&
			!val_nsec_has_type(n, TYPE_SOA));
	/* for DS the parent's NSEC is needed, not the child apex's */
	return !val_nsec_has_type(n, TYPE_SOA) || qname[0] == 0;
}

/* The wildcard NSEC *.ce, with qname below ce, shows NODATA. */
static int nodata_at_wildcard(const ldns_rr* n, const uint8_t* owner,
	const uint8_t* qname, uint16_t qtype, const uint8_t** wc_ce)
{
	const uint8_t* ce = dname_remove_label(owner);
	if(!val_dname_strict_subdomain(qname, ce))
		return 0;
	if(val_nsec_has_type(n, qtype) || val_nsec_has_type(n, TYPE_CNAME))
		return 0;
	if(val_nsec_has_type(n, TYPE_NS) && !val_nsec_has_type(n, TYPE_SOA))
		return 0;
	*wc_ce = ce;
	return 1;
}

/* An NSEC that shows NODATA for qname on its own (exact match or empty
 * non-terminal: 1, *wc_ce NULL) or as the wildcard part of a wildcard
 * NODATA (1, *wc_ce set to the wildcard's closest encloser). */
static int nsec_proves_nodata(const ldns_rr* n, const uint8_t* qname,
	uint16_t qtype, const uint8_t** wc_ce)
{
	const uint8_t* owner, *next, *nm;
	*wc_ce = NULL;
	if(!val_nsec_names(n, &owner, &next))
		return 0;
	if(query_dname_compare(owner, qname) == 0)
		return nodata_at_name(n, qtype, qname);
	if(cut_above(n, owner, qname))
		return 0;
	/* empty non-terminal: owner < qname, next below qname */
	if(val_dname_strict_subdomain(next, qname) &&
		dname_canonical_compare(owner, qname) < 0)
		return 1;
	if(val_dname_is_wild(owner))
		return nodata_at_wildcard(n, owner, qname, qtype, wc_ce);
	/* the next name may sit below an empty non-terminal wildcard
	 * (*.ce has no data of its own but x.*.ce exists) */
	for(nm = next; dname_canonical_compare(owner, nm) < 0 && *nm;
		nm = dname_remove_label(nm)) {
		if(dname_subdomain_c(qname, nm))
			break;
		if(val_dname_is_wild(nm) && val_dname_strict_subdomain(qname,
			dname_remove_label(nm))) {
			*wc_ce = dname_remove_label(nm);
			return 1;
		}
	}
	return 0;
}

/* NODATA for qname: direct, or wildcard with the name error's closest
 * encloser equal to the wildcard's. */
static int nodata_proven(const ldns_rr_list* nsecs, const uint8_t* qname,
	uint16_t qtype)
{
	const uint8_t* wc_ce = NULL, *ce;
	size_t i;
	for(i = 0; i < count(nsecs); i++) {
		const ldns_rr* n = nth_nsec(nsecs, i);
		const uint8_t* w;
		if(!n || !nsec_proves_nodata(n, qname, qtype, &w))
			continue;
		if(!w)
			return 1;
		wc_ce = w;
	}
	if(!wc_ce)
		return 0;
	ce = name_error_ce(nsecs, qname);
	return ce && query_dname_compare(ce, wc_ce) == 0;
}

enum sec_status val_nsec_prove_nodata(const ldns_rr_list* nsecs,
	const uint8_t* qname, uint16_t qtype, struct val_reason* reason)
{
	if(any_insecure_delegation(nsecs, qname, qtype))
		return ok(reason, SEC_INSECURE, "NSEC proves an insecure "
			"delegation above the name");
	if(!nodata_proven(nsecs, qname, qtype))
		return bogus(reason, "no NSEC proves that the type does "
			"not exist");
	return ok(reason, SEC_SECURE, NULL);
}

enum sec_status val_nsec_prove_wildcard_answer(const ldns_rr_list* nsecs,
	const uint8_t* qname, const uint8_t* wc_ce, struct val_reason* reason)
{
	size_t i;
	if(!val_dname_strict_subdomain(qname, wc_ce))
		return bogus(reason, "wildcard does not apply to the name");
	for(i = 0; i < count(nsecs); i++) {
		const ldns_rr* n = nth_nsec(nsecs, i);
		const uint8_t* ce;
		if(!n || !val_nsec_proves_name_error(n, qname))
			continue;
		ce = val_nsec_closest_encloser(n, qname);
		if(ce && query_dname_compare(ce, wc_ce) == 0)
			return ok(reason, SEC_SECURE, NULL);
	}
	return bogus(reason, "no NSEC proves that no closer match to the "
		"wildcard exists");
}

enum sec_status val_nsec_prove_nods(const ldns_rr_list* nsecs,
	const uint8_t* qname, struct val_reason* reason)
{
	size_t i;
	for(i = 0; i < count(nsecs); i++) {
		const ldns_rr* n = nth_nsec(nsecs, i);
		const uint8_t* owner, *next;
		if(!n || !val_nsec_names(n, &owner, &next) ||
			query_dname_compare(owner, qname) != 0)
			continue;
		if(val_nsec_has_type(n, TYPE_SOA) && qname[0] != 0)
			return bogus(reason, "NSEC from child zone");
		if(val_nsec_has_type(n, TYPE_DS))
			return bogus(reason, "NSEC has DS in bitmap");
		if(val_nsec_has_type(n, TYPE_CNAME))
			return bogus(reason, "NSEC has CNAME in bitmap");
		if(!val_nsec_has_type(n, TYPE_NS))
			return ok(reason, SEC_INDETERMINATE, "NSEC proves "
				"no delegation at the name");
		return ok(reason, SEC_SECURE, NULL);
	}
	/* no NSEC at qname: an empty non-terminal, or a wildcard NODATA */
	if(nodata_proven(nsecs, qname, TYPE_DS))
		return ok(reason, SEC_INDETERMINATE, "NSEC proves no "
			"delegation at the name");
	return bogus(reason, "no valid NSEC proves that the DS does not "
		"exist");
}
