/* SPDX-License-Identifier: BSD-3-Clause */
/* services/localzone_build.c - compat: unbound-1.17: building the local zones
 * from the config (local-zone, local-data, local-data-ptr and the default
 * zones).
 *
 * From services/localzone.c:
 *
 * Everything is built at create time into an arena: a hash table of zones
 * keyed on (class, name) and a hash table of data names keyed on (zone,
 * name), each name holding its RRsets as struct packed_rrset ready for
 * msg_add_rrset. Answering hashes the query name (and its parents, for
 * the closest enclosing zone), allocates nothing and takes no lock.
 * Semantics follow Unbound 1.17 (services/localzone.c there). */
#include "config.h"
#include "services/localzone.h"
#include "services/localzone_internal.h"
#include "services/tags.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/msgencode.h"
#include "util/msgparse.h"
#include "util/net_help.h"
#include <strings.h>
#include "util/strutil.h"
#include <ldns/ldns.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- memory ---- */

/* Zeroed, aligned memory that lives until local_zones_delete. */
void*
lz_arena_alloc(struct local_zones* lz, size_t n)
{
	struct arena_chunk* c = lz->arena;
	const size_t al = sizeof(max_align_t);
	n = (n + al - 1) / al * al;
	if(!c || c->size - c->used < n) {
		size_t sz = n > ARENA_CHUNK/4 ? n : ARENA_CHUNK;
		c = calloc(1, sizeof(*c) + sz);
		if(!c) {
			log_err("out of memory");
			return NULL;
		}
		c->size = sz;
		if(n > ARENA_CHUNK/4 && lz->arena) {
			/* a big block: keep the current chunk for small ones */
			c->next = lz->arena->next;
			lz->arena->next = c;
			c->used = n;
			return c->data;
		}
		c->next = lz->arena;
		lz->arena = c;
	}
	c->used += n;
	return (uint8_t*)c->data + c->used - n;
}

static void*
arena_dup(struct local_zones* lz, const void* p, size_t n)
{
	void* r = lz_arena_alloc(lz, n ? n : 1);
	if(r && n)
		memcpy(r, p, n);
	return r;
}

/* ---- building ---- */

/* Zone named by wire name nm; an existing one gets the new type. */
struct lz_zone*
lz_zone_enter(struct local_zones* lz, const uint8_t* nm, uint16_t dclass,
	enum localzone_type t, int warn_dup)
{
	struct lz_zone* z = lz_zone_find(lz, nm, dclass);
	size_t len;
	int tld;
	if(z) {
		if(warn_dup) {
			char buf[1024];
			dname_to_str(nm, buf, sizeof(buf));
			log_warn("duplicate local-zone %s", buf);
		}
		/* compat: unbound-1.17: Unbound 1.17 keeps the last one
		 * configured */
		z->type = t;
		return z;
	}
	if(!ihash_reserve_one(&lz->zones)) {
		log_err("out of memory");
		return NULL;
	}
	len = dname_valid(nm, LDNS_MAX_DOMAINLEN + 1);
	if(!(z = lz_arena_alloc(lz, sizeof(*z))) ||
		!(z->name = arena_dup(lz, nm, len)))
		return NULL;
	z->namelen = len;
	z->labs = dname_count_labels(nm);
	z->dclass = dclass;
	z->type = t;
	ihash_add(&lz->zones, &z->hn, dname_hash(nm, dclass));
	if((tld = lz_tld_bit(nm)) < 0)
		lz->has_root_zone = 1;
	else	lz->tld_bits[tld >> 6] |= (uint64_t)1 << (tld & 63);
	return z;
}

static struct lz_node*
node_create(struct local_zones* lz, const struct lz_zone* z,
	const uint8_t* nm)
{
	struct lz_node* d;
	size_t len = dname_valid(nm, LDNS_MAX_DOMAINLEN + 1);
	if(!ihash_reserve_one(&lz->names)) {
		log_err("out of memory");
		return NULL;
	}
	if(!(d = lz_arena_alloc(lz, sizeof(*d))) ||
		!(d->name = arena_dup(lz, nm, len)))
		return NULL;
	d->namelen = len;
	d->zone = z;
	ihash_add(&lz->names, &d->hn, dname_hash(nm, lz_node_seed(z)));
	return d;
}

/* The node for nm, created with its empty non-terminals up to the apex. */
struct lz_node*
lz_node_find_create(struct local_zones* lz, const struct lz_zone* z,
	const uint8_t* nm)
{
	struct lz_node* res = lz_node_find(lz, z, nm);
	int labs;
	if(res)
		return res;
	if(!(res = node_create(lz, z, nm)))
		return NULL;
	labs = dname_count_labels(nm);
	while(labs > z->labs) {
		nm = dname_remove_label(nm);
		labs--;
		if(lz_node_find(lz, z, nm))
			break;
		if(!node_create(lz, z, nm))
			return NULL;
	}
	return res;
}

/* compat: unbound-1.17: Unbound's parser (sldns) also takes a single quote as
 * the start of a quoted string in text fields (TXT and alike): 'text' is
 * "text", and an unclosed 'te xt runs to the next double quote or the end.
 * ldns does not, so such rdata is rewritten with double quotes first. Returns
 * malloced text, or NULL when there is nothing to rewrite. */
static char*
squote_rewrite(const char* text, const ldns_rr* lr)
{
	const ldns_rr_descriptor* d = ldns_rr_descript(ldns_rr_get_type(lr));
	const char* p = text, *tok;
	char* res, *o;
	size_t i, n = strlen(text);
	int has_str = 0, in_dq = 0;
	if(!strchr(text, '\'') || !d)
		return NULL;
	/* the fixed fields, and the repeated one of TXT-like types */
	for(i = 0; i < d->_maximum; i++)
		if(ldns_rr_descriptor_field_type(d, i) == LDNS_RDF_TYPE_STR)
			has_str = 1;
	if(d->_variable == LDNS_RDF_TYPE_STR)
		has_str = 1;
	if(!has_str)
		return NULL;
	/* find the type token; the rdata follows it */
	for(;;) {
		char buf[64];
		size_t k = 0;
		p = str_skip_blank(p);
		if(!*p)
			return NULL;
		tok = p;
		while(*p && *p != ' ' && *p != '\t')
			p++;
		if(tok != text && (size_t)(p - tok) < sizeof(buf)) {
			memcpy(buf, tok, (size_t)(p - tok));
			buf[p - tok] = 0;
			k = 1;
		}
		if(k && ldns_get_rr_type_by_name(buf) == ldns_rr_get_type(lr))
			break;
	}
	if(!(res = malloc(n + 2)))
		return NULL;
	memcpy(res, text, (size_t)(p - text));
	o = res + (p - text);
	while(*p) {
		if(in_dq) {
			if(*p == '\\' && p[1]) {
				*o++ = *p++;
			} else if(*p == '"')
				in_dq = 0;
			*o++ = *p++;
		} else if(*p == '"') {
			in_dq = 1;
			*o++ = *p++;
		} else if(*p == '\'' && (p == text || p[-1] == ' ' ||
			p[-1] == '\t')) {
			const char* e = p;
			while(*e && *e != ' ' && *e != '\t')
				e++;
			*o++ = '"';
			if(e - p >= 2 && (e[-1] == '\'' || e[-1] == '"')) {
				memcpy(o, p + 1, (size_t)(e - p - 2));
				o += e - p - 2;
				*o++ = '"';
				p = e;
			} else {
				/* open: up to the next double quote, or the end */
				p++;
				while(*p && *p != '"')
					*o++ = *p++;
				*o++ = '"';
				if(*p == '"')
					p++;
			}
		} else
			*o++ = *p++;
	}
	*o = 0;
	return res;
}

/* compat: unbound-1.17: Unbound's parser (sldns) takes the string that ends
 * a CAA record (after flags and tag; RFC 8659 allows it unquoted: "0 issue
 * letsencrypt.org") or a URI record (after priority and weight) without
 * double quotes, and "0 issue \"ca.example\"", where the quotes are escaped
 * characters of the value; ldns wants it quoted. The text with that string
 * put in double quotes (a bare '"' in it escaped), or NULL when the text is
 * not such a record. Malloced. */
static char*
last_string_quote(const char* text)
{
	const char* p = text, *tok = NULL, *val;
	size_t i, n;
	char* res, *o;
	int fields = 0;
	/* the type token: CAA or URI, within the first four (owner, TTL,
	 * class) */
	for(i = 0; i < 4 && *p; i++) {
		p = str_skip_blank(p);
		tok = p;
		while(*p && *p != ' ' && *p != '\t')
			p++;
		if(i > 0 && p - tok == 3 && (strncasecmp(tok, "CAA", 3) == 0 ||
			strncasecmp(tok, "URI", 3) == 0))
			break;
		tok = NULL;
	}
	if(!tok)
		return NULL;
	/* flags and tag, or priority and weight */
	while(fields < 2) {
		p = str_skip_blank(p);
		if(!*p)
			return NULL;
		while(*p && *p != ' ' && *p != '\t')
			p++;
		fields++;
	}
	val = str_skip_blank(p);
	n = strlen(val);
	while(n && (val[n-1] == ' ' || val[n-1] == '\t'))
		n--;
	if(!n || val[0] == '"')
		return NULL;
	if(!(res = malloc((size_t)(val - text) + 2 * n + 3)))
		return NULL;
	memcpy(res, text, (size_t)(val - text));
	o = res + (val - text);
	*o++ = '"';
	for(i = 0; i < n; i++) {
		if(val[i] == '\\' && i + 1 < n) {
			*o++ = val[i++];
			*o++ = val[i];
			continue;
		}
		if(val[i] == '"')
			*o++ = '\\';
		*o++ = val[i];
	}
	*o++ = '"';
	*o = 0;
	return res;
}

/* compat: unbound-1.17: Parse RR text as Unbound does: default TTL 3600, class
 * IN, names relative to the root. The wire form is copied into the arena at
 * once: holding on to ldns' buffers fragments the heap badly for big configs.
 * Logs and returns 0 on bad text. */
int
lz_rr_parse(struct local_zones* lz, const char* text, struct lz_rr* rr)
{
	ldns_rr* lr = NULL;
	ldns_status s;
	uint8_t* w = NULL;
	size_t sz = 0, pos;
	memset(rr, 0, sizeof(*rr));
	rr->text = text;
	s = ldns_rr_new_frm_str(&lr, text, 3600, NULL, NULL);
	if(s != LDNS_STATUS_OK || !lr) {
		char* caa = last_string_quote(text);
		ldns_rr_free(lr);
		lr = NULL;
		if(caa && ldns_rr_new_frm_str(&lr, caa, 3600, NULL, NULL) ==
			LDNS_STATUS_OK && lr) {
			free(caa);
			goto parsed;
		}
		free(caa);
	}
	if(s != LDNS_STATUS_OK || !lr) {
		log_err("error parsing local-data '%s': %s", text,
			ldns_get_errorstr_by_id(s));
		ldns_rr_free(lr);
		return 0;
	}
parsed:
	{
		char* alt = squote_rewrite(text, lr);
		ldns_rr* lr2 = NULL;
		if(alt && ldns_rr_new_frm_str(&lr2, alt, 3600, NULL, NULL) ==
			LDNS_STATUS_OK && lr2) {
			ldns_rr_free(lr);
			lr = lr2;
		} else
			ldns_rr_free(lr2);
		free(alt);
	}
	s = ldns_rr2wire(&w, lr, LDNS_SECTION_ANSWER, &sz);
	ldns_rr_free(lr);
	if(s != LDNS_STATUS_OK || !w) {
		log_err("error converting local-data '%s': %s", text,
			ldns_get_errorstr_by_id(s));
		free(w);
		return 0;
	}
	rr->wire = arena_dup(lz, w, sz);
	free(w);
	if(!rr->wire)
		return 0;
	w = (uint8_t*)rr->wire;
	rr->ownerlen = dname_valid(w, sz);
	pos = rr->ownerlen;
	if(!rr->ownerlen || pos + 10 > sz) {
		log_err("error parsing local-data '%s': bad wire form", text);
		return 0;
	}
	rr->type = (uint16_t)(w[pos] << 8 | w[pos+1]);
	rr->dclass = (uint16_t)(w[pos+2] << 8 | w[pos+3]);
	rr->ttl = (uint32_t)w[pos+4] << 24 | (uint32_t)w[pos+5] << 16 |
		(uint32_t)w[pos+6] << 8 | w[pos+7];
	rr->rdlen = (size_t)(w[pos+8] << 8 | w[pos+9]);
	rr->rdata = w + pos + 10;
	if(pos + 10 + rr->rdlen != sz) {
		log_err("error parsing local-data '%s': bad wire form", text);
		return 0;
	}
	return 1;
}

/* The negative-answer SOA: the first SOA RR with TTL min(TTL, MINIMUM). */
void
lz_zone_set_soa(struct lz_zone* z, struct lz_rrset* soa)
{
	const uint8_t* rd = soa->rdata[0];
	size_t n = soa->rdlen[0];
	uint32_t ttl = soa->rr.ttl;
	z->soa = soa;
	z->soa_neg = soa->rr;
	z->soa_neg.count = 1;
	if(n >= 20) {
		uint32_t min = (uint32_t)rd[n-4] << 24 |
			(uint32_t)rd[n-3] << 16 | (uint32_t)rd[n-2] << 8 | rd[n-1];
		if(min < ttl)
			ttl = min;
	}
	z->soa_neg.ttl = ttl;
}

/* compat: unbound-1.17: Append one RR to the RRset (duplicates are ignored, as
 * Unbound). */
int
lz_rrset_add_rr(struct local_zones* lz, struct lz_rrset* r,
	const struct lz_rr* rr)
{
	size_t i;
	uint8_t* rd;
	for(i = 0; i < r->rr.count; i++)
		if(r->rdlen[i] == rr->rdlen &&
			memcmp(r->rdata[i], rr->rdata, rr->rdlen) == 0)
			return 1;
	if(r->rr.count >= LZ_RRSET_COUNT_MAX) {
		log_warn("RRset '%s' has more than %d records, record ignored",
			rr->text, LZ_RRSET_COUNT_MAX);
		return 1;
	}
	if(r->rr.count == r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 2;
		uint8_t** nd = lz_arena_alloc(lz, ncap * sizeof(*nd));
		uint16_t* nl = lz_arena_alloc(lz, ncap * sizeof(*nl));
		uint32_t* nt = lz_arena_alloc(lz, ncap * sizeof(*nt));
		if(!nd || !nl || !nt)
			return 0;
		if(r->rr.count) {
			memcpy(nd, r->rdata, r->rr.count * sizeof(*nd));
			memcpy(nl, r->rdlen, r->rr.count * sizeof(*nl));
			memcpy(nt, r->ttls, r->rr.count * sizeof(*nt));
		}
		r->rdata = nd;
		r->rdlen = nl;
		r->ttls = nt;
		r->cap = ncap;
	}
	if(!(rd = arena_dup(lz, rr->rdata, rr->rdlen)))
		return 0;
	r->rdata[r->rr.count] = rd;
	r->rdlen[r->rr.count] = (uint16_t)rr->rdlen;
	r->ttls[r->rr.count] = rr->ttl;
	if(rr->ttl != r->rr.ttl)
		r->mixed_ttl = 1;
	r->rr.count++;
	r->rr.rdata = (const uint8_t* const*)r->rdata;
	r->rr.rdlen = r->rdlen;
	return 1;
}

/* compat: unbound-1.17: Enter a parsed RR into zone z (Unbound's
 * lz_enter_rr_into_zone). */
int
lz_zone_enter_rr(struct local_zones* lz, struct lz_zone* z,
	const struct lz_rr* rr)
{
	struct lz_node* d;
	struct lz_rrset* r;
	const uint8_t* nm = rr->wire;
	if(lz_is_redirect(z->type) && query_dname_compare(z->name, nm) != 0) {
		log_err("local-data in redirect zone must reside at top of "
			"zone, not at %s", rr->text);
		return 0;
	}
	if(!(d = lz_node_find_create(lz, z, nm)))
		return 0;
	if(lz_is_redirect(z->type) && d->rrsets) {
		const char* other = NULL;
		if(rr->type == TYPE_CNAME)
			other = "other";
		else if(lz_node_type(d, TYPE_CNAME))
			other = "CNAME";
		if(other) {
			log_err("local-data '%s' in redirect zone must not "
				"coexist with %s local-data", rr->text, other);
			return 0;
		}
	}
	if(!(r = lz_node_type(d, rr->type))) {
		if(!(r = lz_arena_alloc(lz, sizeof(*r))))
			return 0;
		r->rr.owner = d->name;
		r->rr.owner_len = d->namelen;
		r->rr.type = rr->type;
		r->rr.rclass = rr->dclass;
		/* the first RR's TTL; others may differ (ttls) */
		r->rr.ttl = rr->ttl;
		lz->list_seq++;
		r->list_key = lz->list_file_order ? lz->list_seq :
			-lz->list_seq;
		/* appended: the type/CNAME search finds the first configured */
		{
			struct lz_rrset** pp = &d->rrsets;
			while(*pp)
				pp = &(*pp)->next;
			*pp = r;
		}
		if(!lz_rrset_add_rr(lz, r, rr))
			return 0;
		if(rr->type == TYPE_SOA && query_dname_compare(d->name,
			z->name) == 0)
			lz_zone_set_soa(z, r);
		return 1;
	}
	return lz_rrset_add_rr(lz, r, rr);
}

/* Wire name from text (absolute, relative to the root). */
static int
name_parse(const char* str, uint8_t* out)
{
	ldns_rdf* rdf = NULL;
	size_t n;
	if(!str || ldns_str2rdf_dname(&rdf, str) != LDNS_STATUS_OK || !rdf)
		return 0;
	n = ldns_rdf_size(rdf);
	if(n == 0 || n > LDNS_MAX_DOMAINLEN ||
		dname_valid(ldns_rdf_data(rdf), n) != n) {
		ldns_rdf_deep_free(rdf);
		return 0;
	}
	memcpy(out, ldns_rdf_data(rdf), n);
	ldns_rdf_deep_free(rdf);
	return 1;
}

/* Names turned off with nodefault, as wire names. */
struct nodefault_list {
	uint8_t (*names)[LDNS_MAX_DOMAINLEN + 1];
	size_t num;
};

static int
is_nodefault(const struct nodefault_list* nd, const uint8_t* nm)
{
	size_t i;
	for(i = 0; i < nd->num; i++)
		if(query_dname_compare(nd->names[i], nm) == 0)
			return 1;
	return 0;
}

/* What a set of local zones is built from: the global config's lines or
 * a view's. */
struct lz_source {
	struct config_str2list* zones;      /* local-zone: name type */
	struct config_strlist* nodefault;   /* names with nodefault */
	struct config_strlist* data;        /* local-data: */
	struct config_strlist* data_ptr;    /* local-data-ptr: */
	int defaults;        /* enter Unbound's default zones */
	/* compat: unbound-1.17: in a view-first view a nodefault line is a
	 * zone of type nodefault, that sends its names past the view to the
	 * global zones */
	int nodefault_zone;
	int unblock_lan, insecure_lan;
	/* the global zones: for local-zone-tag (views have no tags) */
	const struct config_file* tag_cfg;
};

struct default_ctx {
	struct local_zones* lz;
	const struct nodefault_list* nd;
	int insecure_lan;
};

/* Enter a default zone unless configured or turned off (nodefault). */
static int
default_zone_cb(void* arg, const char* name, enum localzone_type type,
	int lan, const char* const* rrs, size_t n)
{
	struct default_ctx* ctx = arg;
	uint8_t nm[LDNS_MAX_DOMAINLEN + 1];
	struct lz_zone* z;
	size_t i;
	if(!name_parse(name, nm)) {
		log_err("bad default zone name %s", name);
		return 0;
	}
	if(lz_zone_find(ctx->lz, nm, CLASS_IN) || is_nodefault(ctx->nd, nm))
		return 1;
	if(!(z = lz_zone_enter(ctx->lz, nm, CLASS_IN, type, 0)))
		return 0;
	z->lan = lan;
	z->insecure = lan && ctx->insecure_lan;
	for(i = 0; i < n; i++) {
		struct lz_rr rr;
		if(!lz_rr_parse(ctx->lz, rrs[i], &rr) ||
			!lz_zone_enter_rr(ctx->lz, z, &rr))
			return 0;
	}
	return 1;
}

/* compat: unbound-1.17: local-data-ptr "IP [ttl etc] name" to "REVERSE. [ttl
 * etc] PTR name", as Unbound's cfg_ptr_reverse. Returns malloced text or NULL.
 */
static char*
ptr_reverse(const char* str)
{
	const char* ip, *ip_end, *name, *mid;
	char ipbuf[128], rev[128], *res;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	size_t n, midlen, need;
	ip = str;
	ip = str_skip_blank(ip);
	ip_end = ip;
	while(*ip_end && *ip_end != ' ' && *ip_end != '\t')
		ip_end++;
	n = strlen(str);
	while(n > 0 && (str[n-1] == ' ' || str[n-1] == '\t'))
		n--;
	name = str + n;
	while(name > ip_end && name[-1] != ' ' && name[-1] != '\t')
		name--;
	if(ip_end == ip || name <= ip_end || name >= str + n) {
		log_err("syntax error: expected name: %s", str);
		return NULL;
	}
	if((size_t)(ip_end - ip) >= sizeof(ipbuf)) {
		log_err("syntax error: cannot parse address: %s", str);
		return NULL;
	}
	memcpy(ipbuf, ip, (size_t)(ip_end - ip));
	ipbuf[ip_end - ip] = 0;
	if(!ipstrtoaddr(ipbuf, 53, &addr, &addrlen)) {
		log_err("syntax error: cannot parse address: %s", str);
		return NULL;
	}
	if(addr_is_ip6(&addr, addrlen)) {
		const uint8_t* a = ((struct sockaddr_in6*)&addr)->sin6_addr.s6_addr;
		int i;
		char* p = rev;
		for(i = 15; i >= 0; i--) {
			snprintf(p, 5, "%x.%x.", a[i] & 0xf, a[i] >> 4);
			p += 4;
		}
		snprintf(p, sizeof(rev) - (size_t)(p - rev), "ip6.arpa.");
	} else {
		const uint8_t* a = (const uint8_t*)
			&((struct sockaddr_in*)&addr)->sin_addr;
		snprintf(rev, sizeof(rev), "%u.%u.%u.%u.in-addr.arpa.",
			a[3], a[2], a[1], a[0]);
	}
	/* what is between the address and the name (a TTL) is kept */
	mid = ip_end;
	midlen = (size_t)(name - ip_end);
	need = strlen(rev) + midlen + 5 + (size_t)(str + n - name) + 1;
	if(!(res = malloc(need))) {
		log_err("out of memory");
		return NULL;
	}
	snprintf(res, need, "%s%.*sPTR %.*s", rev, (int)midlen, mid,
		(int)(str + n - name), name);
	return res;
}

/* Number of labels (root included) that a and b share at the end. */
static int
dname_shared_labels(const uint8_t* a, const uint8_t* b)
{
	const uint8_t* la[LDNS_MAX_DOMAINLEN], *lb[LDNS_MAX_DOMAINLEN];
	int na = 0, nb = 0, m = 0;
	for(; *a; a += *a + 1)
		la[na++] = a;
	for(; *b; b += *b + 1)
		lb[nb++] = b;
	while(na > 0 && nb > 0) {
		const uint8_t* x = la[--na], *y = lb[--nb];
		int i;
		if(x[0] != y[0])
			break;
		for(i = 1; i <= x[0]; i++) {
			uint8_t cx = x[i], cy = y[i];
			if(cx >= 'A' && cx <= 'Z') cx = (uint8_t)(cx + 32);
			if(cy >= 'A' && cy <= 'Z') cy = (uint8_t)(cy + 32);
			if(cx != cy)
				break;
		}
		if(i <= x[0])
			break;
		m++;
	}
	return m + 1;
}

/* compat: unbound-1.17: Unbound's implicit transparent zones: per class, one
 * zone at the closest common parent of all local-data not under a zone. */
static int
setup_implicit(struct local_zones* lz, const struct lz_rr* rrs, size_t num)
{
	for(;;) {
		size_t i, first = num;
		int match = 0;
		const uint8_t* nm = NULL;
		for(i = 0; i < num; i++) {
			if(lz_zone_lookup(lz, rrs[i].wire, rrs[i].dclass,
				rrs[i].type))
				continue;
			if(first == num) {
				first = i;
				nm = rrs[i].wire;
				match = dname_count_labels(nm);
			} else if(rrs[i].dclass == rrs[first].dclass) {
				int m = dname_shared_labels(nm, rrs[i].wire);
				if(m < match)
					match = m;
			}
		}
		if(first == num)
			return 1;
		{
			int labs = dname_count_labels(nm);
			while(labs > match) {
				nm = dname_remove_label(nm);
				labs--;
			}
		}
		if(verbosity >= VERB_ALGO) {
			char buf[1024];
			dname_to_str(nm, buf, sizeof(buf));
			verbose(VERB_ALGO, "implicit transparent local-zone %s",
				buf);
		}
		if(!lz_zone_enter(lz, nm, rrs[first].dclass,
			local_zone_transparent, 0))
			return 0;
	}
}

/* All local-data and local-data-ptr lines, parsed into *rrs (*num of
 * them). Returns 0 on a bad line; what was made is still handed back. */
static int
parse_data(struct local_zones* lz, const struct lz_source* src,
	struct lz_rr** rrs, size_t* num,
	char*** ptrtexts, size_t* numptr)
{
	struct config_strlist* p;
	size_t n = 0;
	for(p = src->data; p; p = p->next)
		n++;
	for(p = src->data_ptr; p; p = p->next)
		n++;
	*num = 0;
	*numptr = 0;
	*rrs = calloc(n + 1, sizeof(**rrs));
	*ptrtexts = calloc(n + 1, sizeof(char*));
	if(!*rrs || !*ptrtexts) {
		log_err("out of memory");
		return 0;
	}
	for(p = src->data; p; p = p->next) {
		if(!p->str || !lz_rr_parse(lz, p->str, &(*rrs)[*num])) {
			log_err("Bad local-data RR %s", p->str ? p->str : "");
			return 0;
		}
		(*num)++;
	}
	for(p = src->data_ptr; p; p = p->next) {
		char* t = p->str ? ptr_reverse(p->str) : NULL;
		if(!t) {
			log_err("local-data-ptr could not be reversed: %s",
				p->str ? p->str : "");
			return 0;
		}
		(*ptrtexts)[(*numptr)++] = t;
		if(!lz_rr_parse(lz, t, &(*rrs)[*num])) {
			log_err("Bad local-data-ptr %s", p->str);
			return 0;
		}
		(*num)++;
	}
	return 1;
}

static int
build(struct local_zones* lz, const struct lz_source* src)
{
	struct config_str2list* p;
	struct config_strlist* s;
	struct nodefault_list nd;
	struct default_ctx ctx;
	struct lz_rr* rrs = NULL;
	char** ptrtexts = NULL;
	size_t num = 0, numptr = 0, want = 0, i;
	int ok = 0;

	memset(&nd, 0, sizeof(nd));
	for(s = src->nodefault; s; s = s->next)
		want++;
	for(p = src->zones; p; p = p->next)
		if(p->str2 && strcmp(p->str2, "nodefault") == 0)
			want++;
	nd.names = calloc(want + 1, sizeof(*nd.names));
	if(!nd.names) {
		log_err("out of memory");
		return 0;
	}
	for(s = src->nodefault; s; s = s->next) {
		if(!name_parse(s->str, nd.names[nd.num])) {
			log_err("cannot parse name %s", s->str ? s->str : "");
			log_err("bad zone name %s nodefault", s->str ? s->str : "");
			goto out;
		}
		nd.num++;
	}
	/* local-zone: lines */
	for(p = src->zones; p; p = p->next) {
		uint8_t nm[LDNS_MAX_DOMAINLEN + 1];
		enum localzone_type t = local_zone_str2type(p->str2);
		if(!name_parse(p->str, nm)) {
			log_err("cannot parse name %s", p->str ? p->str : "");
			log_err("bad zone name %s %s", p->str ? p->str : "",
				p->str2 ? p->str2 : "");
			goto out;
		}
		if(t == local_zone_invalid) {
			log_err("bad lz_enter_zone type %s %s", p->str,
				p->str2 ? p->str2 : "");
			goto out;
		}
		if(t == local_zone_nodefault && !src->nodefault_zone) {
			/* compat: unbound-1.17: as Unbound's parser: only
			 * turns off a default */
			memcpy(nd.names[nd.num++], nm, sizeof(nm));
			continue;
		}
		if(!lz_zone_enter(lz, nm, CLASS_IN, t, 1))
			goto out;
	}
	/* default zones */
	ctx.lz = lz;
	ctx.nd = &nd;
	ctx.insecure_lan = src->insecure_lan;
	if(src->defaults && !local_zone_defaults(src->unblock_lan,
		default_zone_cb, &ctx))
		goto out;
	/* compat: unbound-1.17: local-zone-tag, on a configured or default
	 * zone (not one that local-data makes) */
	for(p = src->tag_cfg ? src->tag_cfg->local_zone_tags : NULL; p;
		p = p->next) {
		uint8_t nm[LDNS_MAX_DOMAINLEN + 1];
		struct lz_zone* z;
		if(!name_parse(p->str, nm)) {
			log_err("cannot parse zone name in local-zone-tag: %s",
				p->str ? p->str : "");
			goto out;
		}
		if(!(z = lz_zone_find(lz, nm, CLASS_IN))) {
			log_err("no local-zone for tag %s", p->str);
			goto out;
		}
		if(!tags_parse_list(src->tag_cfg, p->str2, &z->tags)) {
			log_err("could not parse tags, (define-tag them "
				"first): %s %s", p->str, p->str2 ? p->str2 : "");
			goto out;
		}
	}
	/* compat: unbound-1.17: local-zone-override, on a configured or
	 * default zone, as local-zone-tag */
	if(src->tag_cfg && !lz_enter_overrides(lz, src->tag_cfg))
		goto out;
	/* local-data */
	if(!parse_data(lz, src, &rrs, &num, &ptrtexts, &numptr))
		goto outdata;
	if(!setup_implicit(lz, rrs, num))
		goto outdata;
	lz->list_file_order = 1;
	for(i = 0; i < num; i++) {
		struct lz_zone* z = lz_zone_lookup(lz, rrs[i].wire,
			rrs[i].dclass, rrs[i].type);
		if(!z || !lz_zone_enter_rr(lz, z, &rrs[i]))
			goto outdata;
	}
	lz->list_file_order = 0;
	ok = 1;
outdata:
	free(rrs);
	for(i = 0; ptrtexts && i < numptr; i++)
		free(ptrtexts[i]);
	free(ptrtexts);
out:
	free(nd.names);
	return ok;
}

struct local_zones*
local_zones_create(struct config_file* cfg)
{
	struct lz_source src;
	struct local_zones* lz = calloc(1, sizeof(*lz));
	if(!lz) {
		log_err("out of memory");
		return NULL;
	}
	if(!cfg) {
		local_zones_delete(lz);
		return NULL;
	}
	lz->log_local_actions = cfg->log_local_actions;
	lz->roundrobin = cfg->rrset_roundrobin;
	src.zones = cfg->local_zones;
	src.nodefault = cfg->local_zones_nodefault;
	src.data = cfg->local_data;
	src.data_ptr = cfg->local_data_ptr;
	src.defaults = 1;
	src.nodefault_zone = 0;
	src.unblock_lan = cfg->unblock_lan_zones;
	src.insecure_lan = cfg->insecure_lan_zones;
	src.tag_cfg = cfg;
	if(!build(lz, &src)) {
		local_zones_delete(lz);
		return NULL;
	}
	return lz;
}

struct local_zones*
local_zones_create_view(struct config_str2list* zones,
	struct config_strlist* data, struct config_strlist* data_ptr,
	int defaults, int nodefault_zone, const struct config_file* cfg)
{
	struct lz_source src;
	struct local_zones* lz = calloc(1, sizeof(*lz));
	if(!lz) {
		log_err("out of memory");
		return NULL;
	}
	if(cfg) {
		lz->log_local_actions = cfg->log_local_actions;
		lz->roundrobin = cfg->rrset_roundrobin;
	}
	memset(&src, 0, sizeof(src));
	src.zones = zones;
	src.data = data;
	src.data_ptr = data_ptr;
	src.defaults = defaults;
	src.nodefault_zone = nodefault_zone;
	/* compat: unbound-1.17: a view's defaults as Unbound builds them, from
	 * a blank config: all AS112 zones, whatever unblock-lan-zones says */
	if(!build(lz, &src)) {
		local_zones_delete(lz);
		return NULL;
	}
	return lz;
}

void
local_zones_delete(struct local_zones* lz)
{
	struct arena_chunk* c, *nx;
	if(!lz)
		return;
	for(c = lz->arena; c; c = nx) {
		nx = c->next;
		free(c);
	}
	ihash_free(&lz->zones);
	ihash_free(&lz->names);
	free(lz);
}

