/* SPDX-License-Identifier: BSD-3-Clause */
/* respip/rpz_load.c - an RPZ zone file read as text (ldns) into the
 * zone's records, given to the trigger builder (respip/rpz_zone.h) or
 * kept as a list for the transfer engine; a transferred version's
 * records given to the builder. */
#include "config.h"
#include "respip/rpz_load.h"
#include "respip/rpz_zone.h"
#include "util/dname.h"
#include "util/log.h"
#include "services/xfr_rr.h"
#include <errno.h>
#include <ldns/ldns.h>
#include <stdio.h>
#include <string.h>

/* Where the records of a file go: the trigger builder, or a list. */
struct load_sink {
	struct rpz_builder* b;      /* or */
	struct xfr_rrs* rrs;
	const uint8_t* origin;
	uint32_t* serial;           /* the apex SOA's, when seen */
	int* have_soa;
};

static int sink_add(struct load_sink* k, const uint8_t* owner,
	size_t owner_len, uint16_t type, uint16_t rclass, uint32_t ttl,
	const uint8_t* rdata, size_t rdlen)
{
	struct xfr_soa soa;
	if(type == LDNS_RR_TYPE_SOA && k->serial && !*k->have_soa &&
		query_dname_compare(owner, k->origin) == 0 &&
		xfr_soa_parse(rdata, rdlen, &soa)) {
		*k->serial = soa.serial;
		*k->have_soa = 1;
	}
	if(k->rrs)
		return xfr_rrs_add(k->rrs, owner, owner_len, type, rclass,
			ttl, rdata, (uint16_t)rdlen);
	return rpz_builder_add(k->b, owner, owner_len, type, rclass, ttl,
		rdata, rdlen);
}

/* One ldns record to the sink. 0: out of memory. */
static int add_rr(struct load_sink* k, const ldns_rr* rr, ldns_buffer* buf)
{
	const ldns_rdf* o = ldns_rr_owner(rr);
	ldns_buffer_clear(buf);
	if(!o || ldns_rr_rdata2buffer_wire(buf, rr) != LDNS_STATUS_OK ||
		ldns_buffer_position(buf) > 65535)
		return 1;   /* cannot be a trigger: left out */
	return sink_add(k, ldns_rdf_data(o), ldns_rdf_size(o),
		(uint16_t)ldns_rr_get_type(rr),
		(uint16_t)ldns_rr_get_class(rr), ldns_rr_ttl(rr),
		ldns_buffer_begin(buf), ldns_buffer_position(buf));
}

/* Read path's records into k (origin: the zone name, ldns form). 0: an
 * error, logged. */
static int read_file(const char* name, const char* path, ldns_rdf** origin,
	struct load_sink* k)
{
	ldns_rdf* prev = NULL;
	ldns_buffer* buf = NULL;
	uint32_t ttl = 3600;
	int line = 1, ok = 1;
	FILE* in = NULL;
	if(!(buf = ldns_buffer_new(65535))) {
		log_err("rpz: out of memory");
		return 0;
	}
	verbose(VERB_ALGO, "read zonefile %s for %s", path, name);
	if(!(in = fopen(path, "r"))) {
		log_err("cannot open zonefile %s for %s: %s", path, name,
			strerror(errno));
		ldns_buffer_free(buf);
		return 0;
	}
	while(ok && !feof(in)) {
		ldns_rr* rr = NULL;
		ldns_status s = ldns_rr_new_frm_fp_l(&rr, in, &ttl, origin,
			&prev, &line);
		switch(s) {
		case LDNS_STATUS_OK:
			if(!add_rr(k, rr, buf)) {
				log_err("rpz: out of memory");
				ok = 0;
			}
			break;
		case LDNS_STATUS_SYNTAX_EMPTY:
		case LDNS_STATUS_SYNTAX_TTL:
		case LDNS_STATUS_SYNTAX_ORIGIN:
			break;
		default:
			if(feof(in) && s == LDNS_STATUS_SYNTAX_ERR)
				break;   /* trailing blank lines */
			log_err("parse error %s %d:%d: %s", path, line, 0,
				ldns_get_errorstr_by_id(s));
			log_err("error parsing zonefile %s for %s", path,
				name);
			ok = 0;
			break;
		}
		ldns_rr_free(rr);
	}
	fclose(in);
	ldns_buffer_free(buf);
	ldns_rdf_deep_free(prev);
	return ok;
}

static ldns_rdf* origin_of(const char* name)
{
	ldns_rdf* origin = NULL;
	if(ldns_str2rdf_dname(&origin, name) != LDNS_STATUS_OK || !origin ||
		ldns_rdf_size(origin) > LDNS_MAX_DOMAINLEN + 1) {
		log_err("rpz: cannot parse zone name: %s", name);
		ldns_rdf_deep_free(origin);
		return NULL;
	}
	return origin;
}

struct rpz_zone* rpz_zone_load(const char* name, const char* path,
	uint32_t* serial, int* have_soa)
{
	ldns_rdf* origin = origin_of(name);
	struct load_sink k;
	int dummy = 0;
	uint8_t o[LDNS_MAX_DOMAINLEN + 1];
	if(!origin)
		return NULL;
	memset(&k, 0, sizeof(k));
	memcpy(o, ldns_rdf_data(origin), ldns_rdf_size(origin));
	k.origin = o;
	k.serial = serial;
	k.have_soa = have_soa ? have_soa : &dummy;
	*k.have_soa = 0;
	if(!(k.b = rpz_builder_create(o))) {
		log_err("rpz: out of memory");
		ldns_rdf_deep_free(origin);
		return NULL;
	}
	/* compat: unbound-1.17: no file: an empty zone */
	if(path && path[0] && !read_file(name, path, &origin, &k)) {
		ldns_rdf_deep_free(origin);
		rpz_builder_delete(k.b);
		return NULL;
	}
	ldns_rdf_deep_free(origin);
	return rpz_builder_finish(k.b);
}

int rpz_zone_file_rrs(const char* name, const char* path,
	struct xfr_rrs* out)
{
	ldns_rdf* origin = origin_of(name);
	struct load_sink k;
	uint8_t o[LDNS_MAX_DOMAINLEN + 1];
	int ok;
	if(!origin)
		return 0;
	memset(&k, 0, sizeof(k));
	memcpy(o, ldns_rdf_data(origin), ldns_rdf_size(origin));
	k.origin = o;
	k.rrs = out;
	ok = !path || !path[0] || read_file(name, path, &origin, &k);
	ldns_rdf_deep_free(origin);
	return ok;
}

struct rpz_zone* rpz_zone_from_rrs(const uint8_t* origin,
	const struct xfr_rrs* rrs, uint32_t* serial, int* have_soa)
{
	struct load_sink k;
	size_t i;
	memset(&k, 0, sizeof(k));
	k.origin = origin;
	k.serial = serial;
	k.have_soa = have_soa;
	*have_soa = 0;
	if(!(k.b = rpz_builder_create(origin))) {
		log_err("rpz: out of memory");
		return NULL;
	}
	for(i = 0; i < rrs->n; i++) {
		const struct xfr_rr* r = &rrs->v[i];
		if(!sink_add(&k, r->owner, r->owner_len, r->type, r->rclass,
			r->ttl, r->rdata, r->rdlen)) {
			log_err("rpz: out of memory");
			rpz_builder_delete(k.b);
			return NULL;
		}
	}
	return rpz_builder_finish(k.b);
}
