/* SPDX-License-Identifier: BSD-3-Clause */
/* respip/rpz_load.c - an RPZ zone file read as text (ldns) into the
 * zone's records, given to the trigger builder (respip/rpz_zone.h). */
#include "config.h"
#include "respip/rpz_load.h"
#include "respip/rpz_zone.h"
#include "util/dname.h"
#include "util/log.h"
#include <errno.h>
#include <ldns/ldns.h>
#include <stdio.h>
#include <string.h>

/* One ldns record to the builder. 0: out of memory. */
static int add_rr(struct rpz_builder* b, const ldns_rr* rr,
	ldns_buffer* buf)
{
	const ldns_rdf* o = ldns_rr_owner(rr);
	ldns_buffer_clear(buf);
	if(!o || ldns_rr_rdata2buffer_wire(buf, rr) != LDNS_STATUS_OK ||
		ldns_buffer_position(buf) > 65535)
		return 1;   /* cannot be a trigger: left out */
	return rpz_builder_add(b, ldns_rdf_data(o), ldns_rdf_size(o),
		(uint16_t)ldns_rr_get_type(rr),
		(uint16_t)ldns_rr_get_class(rr), ldns_rr_ttl(rr),
		ldns_buffer_begin(buf), ldns_buffer_position(buf));
}

struct rpz_zone* rpz_zone_load_file(const char* name, const char* path)
{
	ldns_rdf* origin = NULL, *prev = NULL;
	ldns_buffer* buf = NULL;
	struct rpz_builder* b = NULL;
	uint32_t ttl = 3600;
	int line = 1, ok = 1;
	FILE* in = NULL;
	if(ldns_str2rdf_dname(&origin, name) != LDNS_STATUS_OK || !origin ||
		ldns_rdf_size(origin) > LDNS_MAX_DOMAINLEN + 1) {
		log_err("rpz: cannot parse zone name: %s", name);
		ldns_rdf_deep_free(origin);
		return NULL;
	}
	if(!(buf = ldns_buffer_new(65535)) ||
		!(b = rpz_builder_create(ldns_rdf_data(origin)))) {
		log_err("rpz: out of memory");
		ok = 0;
		goto out;
	}
	if(!path || !path[0])
		goto out;   /* compat: unbound-1.17: no file: an empty zone */
	verbose(VERB_ALGO, "read zonefile %s for %s", path, name);
	if(!(in = fopen(path, "r"))) {
		log_err("cannot open zonefile %s for %s: %s", path, name,
			strerror(errno));
		ok = 0;
		goto out;
	}
	while(ok && !feof(in)) {
		ldns_rr* rr = NULL;
		ldns_status s = ldns_rr_new_frm_fp_l(&rr, in, &ttl, &origin,
			&prev, &line);
		switch(s) {
		case LDNS_STATUS_OK:
			if(!add_rr(b, rr, buf)) {
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
out:
	if(in)
		fclose(in);
	ldns_buffer_free(buf);
	ldns_rdf_deep_free(origin);
	ldns_rdf_deep_free(prev);
	if(!ok) {
		rpz_builder_delete(b);
		return NULL;
	}
	return rpz_builder_finish(b);
}
