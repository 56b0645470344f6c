/* SPDX-License-Identifier: BSD-3-Clause */
/* services/authzone_load.c - auth-zone: building the zones from the
 * config and reading their zone files with ldns (text is ldns's job),
 * into the packed form services/authzone.c answers from. Runs at start
 * and reload, never on the query path. */
#include "config.h"
#include "services/authzone.h"
#include "services/authzone_internal.h"
#include "services/xfr_rr.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/msgparse.h"
#include <errno.h>
#include <ldns/ldns.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* compat: unbound-1.17: cap on RRs in one RRset while reading, as local
 * data's */
#define AZ_RRSET_MAX 65535

/* one RR while reading: owner, type, TTL and rdata in wire form */
struct rr_in {
	uint8_t* owner;     /* lowercased */
	size_t owner_len;
	uint16_t type;
	uint16_t covered;   /* RRSIG: the type it covers */
	uint32_t ttl;
	uint8_t* rdata;
	size_t rdlen;
	size_t seq;         /* file order */
};

struct rr_vec {
	struct rr_in* v;
	size_t n, cap;
};

static void* zalloc(struct az_zone* z, size_t n)
{
	void* p;
	if(z->nblocks == z->capblocks) {
		size_t c = z->capblocks ? z->capblocks * 2 : 64;
		void** nb = realloc(z->blocks, c * sizeof(*nb));
		if(!nb)
			return NULL;
		z->blocks = nb;
		z->capblocks = c;
	}
	if(!(p = calloc(1, n ? n : 1)))
		return NULL;
	z->blocks[z->nblocks++] = p;
	return p;
}

void az_zone_delete(struct az_zone* z)
{
	size_t i;
	if(!z)
		return;
	if(atomic_fetch_sub(&z->refs, 1) != 1)
		return;
	for(i = 0; i < z->nblocks; i++)
		free(z->blocks[i]);
	free(z->blocks);
	free(z->name);
	free(z->zonefile);
	free(z);
}

static void rr_vec_clear(struct rr_vec* rv)
{
	size_t i;
	for(i = 0; i < rv->n; i++) {
		free(rv->v[i].owner);
		free(rv->v[i].rdata);
	}
	free(rv->v);
	memset(rv, 0, sizeof(*rv));
}

/* An ldns RR into rv. 0 on a bad RR or OOM (logged). */
static int rr_vec_add(struct rr_vec* rv, const ldns_rr* lr, const char* file,
	int line)
{
	ldns_buffer* b;
	struct rr_in* r;
	const ldns_rdf* o = ldns_rr_owner(lr);
	if(rv->n == rv->cap) {
		size_t c = rv->cap ? rv->cap * 2 : 256;
		struct rr_in* nv = realloc(rv->v, c * sizeof(*nv));
		if(!nv)
			goto oom;
		rv->v = nv;
		rv->cap = c;
	}
	r = &rv->v[rv->n];
	memset(r, 0, sizeof(*r));
	if(!o || ldns_rdf_size(o) == 0 || ldns_rdf_size(o) >
		LDNS_MAX_DOMAINLEN + 1 || dname_valid(ldns_rdf_data(o),
		ldns_rdf_size(o)) != ldns_rdf_size(o)) {
		log_err("%s:%d bad owner name", file, line);
		return 0;
	}
	r->owner_len = ldns_rdf_size(o);
	if(!(r->owner = malloc(r->owner_len)))
		goto oom;
	memcpy(r->owner, ldns_rdf_data(o), r->owner_len);
	dname_tolower(r->owner);
	r->type = (uint16_t)ldns_rr_get_type(lr);
	r->ttl = ldns_rr_ttl(lr);
	r->seq = rv->n;
	if(!(b = ldns_buffer_new(512))) {
		free(r->owner);
		goto oom;
	}
	if(ldns_rr_rdata2buffer_wire(b, lr) != LDNS_STATUS_OK ||
		ldns_buffer_position(b) > 65535) {
		ldns_buffer_free(b);
		free(r->owner);
		log_err("%s:%d cannot convert RR to wire", file, line);
		return 0;
	}
	r->rdlen = ldns_buffer_position(b);
	if(!(r->rdata = malloc(r->rdlen ? r->rdlen : 1))) {
		ldns_buffer_free(b);
		free(r->owner);
		goto oom;
	}
	memcpy(r->rdata, ldns_buffer_begin(b), r->rdlen);
	ldns_buffer_free(b);
	if(r->type == TYPE_RRSIG && r->rdlen >= 2)
		r->covered = (uint16_t)((r->rdata[0] << 8) | r->rdata[1]);
	rv->n++;
	return 1;
oom:
	log_err("out of memory");
	return 0;
}

/* Sort: owner in canonical order, then type (RRSIGs by covered type
 * right after), then file order. */
static int rr_cmp(const void* a, const void* b)
{
	const struct rr_in* x = a, *y = b;
	int c = dname_canonical_compare(x->owner, y->owner);
	uint16_t tx, ty;
	if(c)
		return c;
	tx = x->type == TYPE_RRSIG ? x->covered : x->type;
	ty = y->type == TYPE_RRSIG ? y->covered : y->type;
	if(tx != ty)
		return tx < ty ? -1 : 1;
	if((x->type == TYPE_RRSIG) != (y->type == TYPE_RRSIG))
		return x->type == TYPE_RRSIG ? 1 : -1;
	return x->seq < y->seq ? -1 : (x->seq > y->seq);
}

/* RRs v[from, to) (one owner, one type, no duplicates) as a packed set
 * in the zone's memory. */
static int pack(struct az_zone* z, struct packed_rrset* p,
	const uint8_t* owner, size_t owner_len, uint16_t type,
	const struct rr_in* v, size_t n)
{
	size_t i, total = 0;
	uint8_t* data;
	uint8_t** rd;
	uint16_t* rl;
	for(i = 0; i < n; i++)
		total += v[i].rdlen;
	if(!(rd = zalloc(z, n * sizeof(*rd))) ||
		!(rl = zalloc(z, n * sizeof(*rl))) ||
		!(data = zalloc(z, total)))
		return 0;
	p->owner = owner;
	p->owner_len = owner_len;
	p->type = type;
	p->rclass = z->dclass;
	/* compat: unbound-1.17: RFC 2181 5.2: one TTL for the set; Unbound
	 * keeps each RR's, the first's is used here */
	p->ttl = v[0].ttl;
	p->count = n;
	for(i = 0; i < n; i++) {
		memcpy(data, v[i].rdata, v[i].rdlen);
		rd[i] = data;
		rl[i] = (uint16_t)v[i].rdlen;
		data += v[i].rdlen;
	}
	p->rdata = (const uint8_t* const*)rd;
	p->rdlen = rl;
	return 1;
}

static int same_rdata(const struct rr_in* a, const struct rr_in* b)
{
	return a->rdlen == b->rdlen && memcmp(a->rdata, b->rdata,
		a->rdlen) == 0;
}

/* The sorted RRs into nodes and RRsets. Duplicate RRs are dropped (as
 * Unbound); RRSIGs without the set they cover are kept as a set of type
 * RRSIG (Unbound keeps them at the node too). */
static int build_nodes(struct az_zone* z, struct rr_vec* rv)
{
	size_t i = 0, nn = 0;
	struct rr_in* keep;
	if(rv->n == 0)
		return 1;
	qsort(rv->v, rv->n, sizeof(rv->v[0]), rr_cmp);
	/* drop duplicates in place */
	for(i = 1, nn = 1; i < rv->n; i++) {
		struct rr_in* p = &rv->v[nn - 1], *c = &rv->v[i];
		if(p->type == c->type && p->covered == c->covered &&
			p->owner_len == c->owner_len &&
			memcmp(p->owner, c->owner, c->owner_len) == 0 &&
			same_rdata(p, c)) {
			free(c->owner);
			free(c->rdata);
			continue;
		}
		rv->v[nn++] = *c;
	}
	rv->n = nn;
	keep = rv->v;
	/* count names */
	nn = 1;
	for(i = 1; i < rv->n; i++)
		if(dname_canonical_compare(keep[i-1].owner, keep[i].owner))
			nn++;
	if(!(z->nodes = zalloc(z, nn * sizeof(*z->nodes))))
		return 0;
	z->count = 0;
	i = 0;
	while(i < rv->n) {
		struct az_node* node = &z->nodes[z->count++];
		struct az_rrset** tail = &node->rrsets;
		size_t j = i;
		if(!(node->name = zalloc(z, keep[i].owner_len)))
			return 0;
		memcpy(node->name, keep[i].owner, keep[i].owner_len);
		node->namelen = keep[i].owner_len;
		while(j < rv->n && keep[j].owner_len == node->namelen &&
			memcmp(keep[j].owner, node->name, node->namelen) == 0) {
			/* one covered type: its RRs, then its RRSIGs */
			uint16_t t = keep[j].type == TYPE_RRSIG ?
				keep[j].covered : keep[j].type;
			size_t s = j, m, e;
			struct az_rrset* set;
			while(j < rv->n && keep[j].type != TYPE_RRSIG &&
				keep[j].type == t && keep[j].owner_len ==
				node->namelen && memcmp(keep[j].owner,
				node->name, node->namelen) == 0)
				j++;
			m = j;
			while(j < rv->n && keep[j].type == TYPE_RRSIG &&
				keep[j].covered == t && keep[j].owner_len ==
				node->namelen && memcmp(keep[j].owner,
				node->name, node->namelen) == 0)
				j++;
			e = j;
			if(m - s > AZ_RRSET_MAX || e - m > AZ_RRSET_MAX) {
				log_err("auth zone: too many RRs in one RRset");
				return 0;
			}
			if(!(set = zalloc(z, sizeof(*set))))
				return 0;
			if(m > s) {
				if(!pack(z, &set->rr, node->name,
					node->namelen, t, &keep[s], m - s))
					return 0;
				if(e > m && !pack(z, &set->sigs, node->name,
					node->namelen, TYPE_RRSIG, &keep[m],
					e - m))
					return 0;
			} else if(!pack(z, &set->rr, node->name,
				node->namelen, TYPE_RRSIG, &keep[m], e - m))
				return 0;
			*tail = set;
			tail = &set->next;
		}
		i = j;
	}
	return 1;
}

/* compat: unbound-1.17: Unbound's own parser reads $INCLUDE; ldns's does
 * not (it is refused here with an error, see doc/compat.md). */
static int read_file(struct az_zone* z, FILE* in, const char* fname)
{
	struct rr_vec rv;
	ldns_rdf* origin = NULL;
	ldns_rdf* prev = NULL;
	uint32_t ttl = 3600;
	int line = 1, ok = 1;
	char zname[LDNS_MAX_DOMAINLEN * 4 + 8];
	memset(&rv, 0, sizeof(rv));
	dname_to_str(z->name, zname, sizeof(zname));
	/* compat: unbound-1.17: $ORIGIN starts as the zone name, $TTL 3600 */
	if(ldns_str2rdf_dname(&origin, zname) != LDNS_STATUS_OK) {
		log_err("out of memory");
		return 0;
	}
	while(ok && !feof(in)) {
		ldns_rr* rr = NULL;
		ldns_status s = ldns_rr_new_frm_fp_l(&rr, in, &ttl, &origin,
			&prev, &line);
		switch(s) {
		case LDNS_STATUS_OK:
			if(ldns_rr_get_class(rr) != (ldns_rr_class)z->dclass) {
				log_err("%s:%d wrong class for RR", fname,
					line);
				ok = 0;
			} else if(ldns_rr_get_type(rr) == LDNS_RR_TYPE_OPT) {
				log_err("%s:%d OPT record in zone file", fname,
					line);
				ok = 0;
			} else
				ok = rr_vec_add(&rv, rr, fname, line);
			break;
		case LDNS_STATUS_SYNTAX_EMPTY:
		case LDNS_STATUS_SYNTAX_TTL:
		case LDNS_STATUS_SYNTAX_ORIGIN:
			break;
		case LDNS_STATUS_SYNTAX_INCLUDE:
			log_err("%s:%d $INCLUDE is not supported in auth-zone "
				"files", fname, line);
			ok = 0;
			break;
		default:
			/* compat: unbound-1.17: "parse error FILE LINE:COL:
			 * MESSAGE", without the column */
			if(feof(in) && s == LDNS_STATUS_SYNTAX_ERR)
				break;   /* trailing blank lines */
			log_err("parse error %s %d:%d: %s", fname, line, 0,
				ldns_get_errorstr_by_id(s));
			ok = 0;
			break;
		}
		ldns_rr_free(rr);
	}
	ldns_rdf_deep_free(origin);
	ldns_rdf_deep_free(prev);
	if(ok)
		ok = build_nodes(z, &rv);
	rr_vec_clear(&rv);
	return ok;
}

/* The apex, its SOA and usable, after the nodes are built. */
static void set_apex(struct az_zone* z, const char* zname)
{
	const struct az_rrset* soa;
	z->apex = (struct az_node*)az_find_name(z, z->name);
	soa = az_node_rrset(z->apex, TYPE_SOA);
	z->usable = soa && soa->rr.count == 1 && soa->rr.rdlen[0] >= 22;
	if(!z->usable && z->count > 0)
		log_warn("auth zone %s has no SOA record at its apex: not "
			"used", zname);
}

int az_zone_from_xfr(struct az_zone* z, const struct xfr_rrs* content)
{
	struct rr_vec rv;
	size_t i;
	char zname[LDNS_MAX_DOMAINLEN * 4 + 8];
	int ok = 1;
	memset(&rv, 0, sizeof(rv));
	dname_to_str(z->name, zname, sizeof(zname));
	if(content && content->n && !(rv.v = calloc(content->n,
		sizeof(*rv.v)))) {
		log_err("out of memory");
		return 0;
	}
	rv.cap = content ? content->n : 0;
	for(i = 0; content && i < content->n && ok; i++) {
		const struct xfr_rr* x = &content->v[i];
		struct rr_in* r = &rv.v[rv.n];
		if(x->rclass != z->dclass || x->type == TYPE_OPT)
			continue;
		r->owner = malloc(x->owner_len);
		r->rdata = malloc(x->rdlen ? x->rdlen : 1);
		if(!r->owner || !r->rdata) {
			free(r->owner);
			free(r->rdata);
			log_err("out of memory");
			ok = 0;
			break;
		}
		memcpy(r->owner, x->owner, x->owner_len);
		dname_tolower(r->owner);
		r->owner_len = x->owner_len;
		memcpy(r->rdata, x->rdata, x->rdlen);
		r->rdlen = x->rdlen;
		r->type = x->type;
		r->ttl = x->ttl;
		r->seq = rv.n;
		if(r->type == TYPE_RRSIG && r->rdlen >= 2)
			r->covered = (uint16_t)((r->rdata[0] << 8) |
				r->rdata[1]);
		rv.n++;
	}
	if(ok)
		ok = build_nodes(z, &rv);
	rr_vec_clear(&rv);
	if(ok)
		set_apex(z, zname);
	return ok;
}

int az_zone_read(struct az_zone* z, const char* path, int has_primaries)
{
	FILE* in;
	char zname[LDNS_MAX_DOMAINLEN * 4 + 8];
	dname_to_str(z->name, zname, sizeof(zname));
	if(!path || !path[0])
		return 1;   /* compat: unbound-1.17: no file: empty zone */
	verbose(VERB_ALGO, "read zonefile %s for %s", path, zname);
	if(!(in = fopen(path, "r"))) {
		if(has_primaries && errno == ENOENT) {
			/* compat: unbound-1.17: fetched later */
			verbose(VERB_ALGO, "no zonefile %s for %s", path,
				zname);
			return 1;
		}
		log_err("cannot open zonefile %s for %s: %s", path, zname,
			strerror(errno));
		return 0;
	}
	if(!read_file(z, in, path)) {
		log_err("error parsing zonefile %s for %s", path, zname);
		fclose(in);
		return 0;
	}
	fclose(in);
	set_apex(z, zname);
	return 1;
}

static struct az_zone* zone_new(const struct config_auth* c)
{
	struct az_zone* z = calloc(1, sizeof(*z));
	ldns_rdf* rdf = NULL;
	if(!z)
		return NULL;
	atomic_init(&z->refs, 1);
	if(ldns_str2rdf_dname(&rdf, c->name) != LDNS_STATUS_OK || !rdf ||
		ldns_rdf_size(rdf) > LDNS_MAX_DOMAINLEN + 1) {
		log_err("cannot parse auth zone name: %s", c->name);
		ldns_rdf_deep_free(rdf);
		free(z);
		return NULL;
	}
	z->namelen = ldns_rdf_size(rdf);
	if(!(z->name = malloc(z->namelen))) {
		ldns_rdf_deep_free(rdf);
		free(z);
		return NULL;
	}
	memcpy(z->name, ldns_rdf_data(rdf), z->namelen);
	ldns_rdf_deep_free(rdf);
	dname_tolower(z->name);
	z->labs = dname_count_labels(z->name);
	z->dclass = CLASS_IN;
	z->for_downstream = c->for_downstream;
	z->for_upstream = c->for_upstream;
	z->fallback_enabled = c->fallback_enabled;
	if(c->zonefile && !(z->zonefile = strdup(c->zonefile))) {
		az_zone_delete(z);
		return NULL;
	}
	return z;
}

int auth_zones_create(const struct config_file* cfg, int inside,
	struct auth_zones** out)
{
	const struct config_auth* c;
	struct auth_zones* az;
	size_t n = 0;
	*out = NULL;
	/* compat: unbound-1.17: an rpz: clause with for-downstream: yes
	 * is answered to clients as an auth zone too (never upstream) */
	for(c = cfg->auths; c; c = c->next)
		if(c->name && (!c->isrpz || c->for_downstream))
			n++;
	if(n == 0)
		return 1;
	if(!(az = calloc(1, sizeof(*az))) ||
		!(az->zones = calloc(n, sizeof(*az->zones)))) {
		free(az);
		log_err("out of memory");
		return 0;
	}
	for(c = cfg->auths; c; c = c->next) {
		struct az_zone* z;
		char* path = NULL;
		size_t i;
		int dup = 0;
		if(!c->name || (c->isrpz && !c->for_downstream))
			continue;
		if(!(z = zone_new(c)))
			goto fail;
		if(c->isrpz)
			z->for_upstream = 0;
		for(i = 0; i < az->count; i++)
			if(query_dname_compare(az->zones[i]->name, z->name) == 0)
				dup = 1;
		if(dup) {
			/* compat: unbound-1.17: Unbound reuses the zone; the
			 * first one is kept here, with a warning */
			log_warn("duplicate auth-zone %s ignored", c->name);
			az_zone_delete(z);
			continue;
		}
		az->zones[az->count++] = z;
		if(z->zonefile && z->zonefile[0]) {
			const char* chr = cfg->chrootdir && cfg->chrootdir[0] ?
				cfg->chrootdir : NULL;
			if(inside) {
				const char* f = z->zonefile;
				if(chr && strncmp(f, chr, strlen(chr)) == 0)
					f += strlen(chr);
				path = strdup(f);
			} else
				path = cfg_fname_after_chroot(z->zonefile,
					(struct config_file*)cfg, 1);
			if(!path) {
				log_err("out of memory");
				goto fail;
			}
		}
		if(!az_zone_read(z, path, c->masters || c->urls)) {
			free(path);
			goto fail;
		}
		free(path);
		if(z->for_downstream)
			az->have_downstream = 1;
		if(z->for_upstream)
			az->have_upstream = 1;
	}
	*out = az;
	return 1;
fail:
	auth_zones_delete(az);
	return 0;
}

void auth_zones_delete(struct auth_zones* az)
{
	size_t i;
	if(!az)
		return;
	for(i = 0; i < az->count; i++)
		az_zone_delete(az->zones[i]);
	free(az->zones);
	free(az);
}
