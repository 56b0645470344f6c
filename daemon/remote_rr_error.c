/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/remote_rr_error.c - compat: unbound-1.17: why local_data RR text is
 * refused, in Unbound 1.17's words: "error parsing local-data at position P
 * 'TEXT': REASON". Its parser (sldns) gives the position; ldns, which builds
 * our records, does not, so the common mistakes are found here first with the
 * position sldns gives; anything else gets ldns' reason alone. */
#include "config.h"
#include "daemon/remote_cmd.h"
#include "util/dname.h"
#include "util/strutil.h"
#include <ldns/ldns.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* compat: unbound-1.17: Where Unbound's RR parser (sldns) would stop on text
 * and why, for the common mistakes: nothing, an unknown type, an rdata field
 * that is not an address or number. 0 when it is none of those. */
static int rr_error_pos(const char* text, int* pos, const char** why)
{
	const char* p = text, *tok[16];
	size_t len[16];
	int n = 0, i;
	ldns_rr_type t;
	const ldns_rr_descriptor* desc;
	while(n < 16) {
		p = str_skip_blank(p);
		if(!*p || *p == '"' || *p == '(' || *p == ';')
			break;
		tok[n] = p;
		while(*p && *p != ' ' && *p != '\t')
			p++;
		len[n] = (size_t)(p - tok[n]);
		n++;
	}
	if(n == 0) {
		/* nothing, or it starts with a comment, a quote or a
		 * parenthesis: no owner name to check */
		*pos = 0;
		*why = "Syntax error, could not parse the RR";
		return 1;
	}
	/* the owner */
	{
		char w[LDNS_MAX_DOMAINLEN * 4 + 1];
		uint8_t nm[LDNS_MAX_DOMAINLEN + 1];
		if(len[0] >= sizeof(w))
			return 0;
		memcpy(w, tok[0], len[0]);
		w[len[0]] = 0;
		if(!dname_from_str(w, nm)) {
			*why = rc_name_error(w, pos);
			(*pos)++;
			return 1;
		}
	}
	/* [TTL] [class] type, in this order */
	i = 1;
	if(i < n && strspn(tok[i], "0123456789") == len[i])
		i++;
	if(i < n && len[i] < 16) {
		char w[16];
		memcpy(w, tok[i], len[i]);
		w[len[i]] = 0;
		if(ldns_get_rr_class_by_name(w) != 0)
			i++;
	}
	if(i >= n) {
		if(*p)
			return 0;
		/* the text ends before the type */
		*pos = (int)strlen(text);
		*why = i == 1 ? "Syntax error, could not parse the RR's TTL" :
			i == 2 && strspn(tok[1], "0123456789") == len[1] ?
			"Syntax error, could not parse the RR's class" :
			"Syntax error, could not parse the RR's type";
		return 1;
	} else {
		char w[64];
		size_t f, nf;
		if(len[i] >= sizeof(w))
			return 0;
		memcpy(w, tok[i], len[i]);
		w[len[i]] = 0;
		t = ldns_get_rr_type_by_name(w);
		if(t == 0 && strcasecmp(w, "TYPE0") != 0) {
			/* after the type and the blank that ends it */
			*pos = (int)(tok[i] + len[i] - text) +
				(tok[i][len[i]] ? 1 : 0);
			*why = "Syntax error, could not parse the RR's type";
			return 1;
		}
		desc = ldns_rr_descript(t);
		nf = desc ? ldns_rr_descriptor_maximum(desc) : 0;
		for(f = 0, i++; f < nf && i < n; f++, i++) {
			ldns_rdf_type ft = ldns_rr_descriptor_field_type(desc,
				f);
			char v[LDNS_MAX_DOMAINLEN * 4 + 1];
			ldns_rdf* rdf;
			if(ft != LDNS_RDF_TYPE_A && ft != LDNS_RDF_TYPE_AAAA &&
				ft != LDNS_RDF_TYPE_INT8 &&
				ft != LDNS_RDF_TYPE_INT16 &&
				ft != LDNS_RDF_TYPE_INT32 &&
				ft != LDNS_RDF_TYPE_PERIOD &&
				ft != LDNS_RDF_TYPE_DNAME)
				return 0;
			if(len[i] >= sizeof(v))
				return 0;
			memcpy(v, tok[i], len[i]);
			v[len[i]] = 0;
			if((rdf = ldns_rdf_new_frm_str(ft, v)) != NULL) {
				ldns_rdf_deep_free(rdf);
				continue;
			}
			*pos = (int)(tok[i] - text);
			switch(ft) {
			case LDNS_RDF_TYPE_A:
				*why = "Conversion error, ip4 addr expected";
				break;
			case LDNS_RDF_TYPE_AAAA:
				*why = "Conversion error, ip6 addr expected";
				break;
			case LDNS_RDF_TYPE_PERIOD:
				*why = "Conversion error, time period encoding "
					"expected";
				break;
			case LDNS_RDF_TYPE_DNAME:
				return 0;
			default:
				/* sldns points past the digits it took */
				*pos += (int)strspn(v, "0123456789") + 1;
				*why = "Conversion error, integer expected";
			}
			return 1;
		}
	}
	return 0;
}

/* compat: unbound-1.17: "error parsing local-data [at [line L] [position P]]
 * 'text': why", as Unbound words it; pos < 0: not known. line: the input line
 * of a bulk command, 0 for local_data. */
static void rr_error(const char* text, int line, int pos, const char* why,
	struct strbuf* b)
{
	char at[64] = "";
	if(line && pos >= 0)
		snprintf(at, sizeof(at), " at line %d position %d", line, pos);
	else if(line)
		snprintf(at, sizeof(at), " at line %d", line);
	else if(pos >= 0)
		snprintf(at, sizeof(at), " at position %d", pos);
	strbuf_printf(b, "error parsing local-data%s '%s': %s\n", at, text,
		why);
}

void rc_rr_refused(const char* text, int line, struct strbuf* b)
{
	ldns_rr* rr = NULL;
	ldns_status st = ldns_rr_new_frm_str(&rr, text, 3600, NULL, NULL);
	ldns_rr_free(rr);
	if(st == LDNS_STATUS_OK)
		/* parsed, but refused (redirect zone rules) or no memory */
		strbuf_printf(b, "error in syntax or out of memory, %s\n",
			text);
	else	rr_error(text, line, -1, ldns_get_errorstr_by_id(st), b);
}

int rc_rr_check(const char* text, int line, struct strbuf* b)
{
	const char* why;
	int pos;
	if(!rr_error_pos(text, &pos, &why))
		return 1;
	rr_error(text, line, pos, why, b);
	return 0;
}
