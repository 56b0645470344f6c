/* SPDX-License-Identifier: BSD-3-Clause */
/* services/localzone_tags.c - compat: unbound-1.17: what a client changes
 * in the global local zones: access-control-tag-action and -tag-data (per
 * client netblock and tag: the zone's type, a redirect's data) and
 * local-zone-override (per zone and client netblock: the type). Built
 * once per config; the RR text is parsed here (ldns), so answering only
 * copies wire data. */
#include "config.h"
#include "services/localzone.h"
#include "services/localzone_internal.h"
#include "services/tags.h"
#include "util/config_file.h"
#include "util/dname.h"
#include "util/log.h"
#include "util/msgparse.h"
#include "util/net_help.h"
#include <ldns/ldns.h>
#include <stdlib.h>
#include <string.h>

/* One tag's data: its RRs, owner left out, ready for the encoder. */
struct lz_tag_data {
	size_t count;
	uint16_t type[LZ_ROTATE_MAX];
	uint32_t ttl[LZ_ROTATE_MAX];
	uint16_t rdlen[LZ_ROTATE_MAX];
	uint8_t* rdata[LZ_ROTATE_MAX];
};

static struct lz_client_tags*
tags_get(struct lz_client_tags** ct)
{
	if(!*ct && !(*ct = calloc(1, sizeof(**ct))))
		log_err("out of memory");
	return *ct;
}

/* "tag rest": the tag's id and rest; -1 (logged) for no define-tag. */
static int
split_tag(const struct config_file* cfg, const char* where, const char* s,
	const char** rest)
{
	char name[256];
	const char* sp = strchr(s, ' ');
	size_t n = sp ? (size_t)(sp - s) : strlen(s);
	int id;
	if(n >= sizeof(name))
		n = sizeof(name) - 1;
	memcpy(name, s, n);
	name[n] = 0;
	*rest = sp ? sp + 1 : "";
	if((id = tags_find_id(cfg, name)) < 0 || id >= TAGS_MAX) {
		log_err("cannot parse tag (define-tag it): %s %s", where, name);
		return -1;
	}
	return id;
}

int
lz_client_tags_action(const struct config_file* cfg,
	struct lz_client_tags** ct, const char* where, const char* tag_action)
{
	const char* action;
	enum localzone_type t;
	int id = split_tag(cfg, where, tag_action, &action);
	if(id < 0)
		return 0;
	if((t = local_zone_str2type(action)) == local_zone_invalid) {
		log_err("cannot parse access control action type: %s %s",
			where, tag_action);
		return 0;
	}
	if(!tags_get(ct))
		return 0;
	(*ct)->action[id] = (uint8_t)(t + 1);
	return 1;
}

int
lz_client_tags_data(const struct config_file* cfg,
	struct lz_client_tags** ct, const char* where, const char* tag_data)
{
	const char* text;
	char* line;
	ldns_rr* rr = NULL;
	ldns_status s;
	uint8_t* w = NULL;
	size_t sz = 0, pos;
	struct lz_tag_data* d;
	uint16_t type;
	int id = split_tag(cfg, where, tag_data, &text);
	if(id < 0)
		return 0;
	if(!(line = malloc(strlen(text) + 3))) {
		log_err("out of memory");
		return 0;
	}
	/* compat: unbound-1.17: the owner is "." (the query name answers) */
	snprintf(line, strlen(text) + 3, ". %s", text);
	s = ldns_rr_new_frm_str(&rr, line, 3600, NULL, NULL);
	free(line);
	if(s == LDNS_STATUS_OK && rr)
		s = ldns_rr2wire(&w, rr, LDNS_SECTION_ANSWER, &sz);
	ldns_rr_free(rr);
	if(s != LDNS_STATUS_OK || !w || sz < 11) {
		log_err("rr data parse error %s", ldns_get_errorstr_by_id(s));
		log_err("cannot parse access-control-tag data: %s '%s'", where,
			tag_data);
		free(w);
		return 0;
	}
	pos = 1;   /* the root owner */
	type = (uint16_t)(w[pos] << 8 | w[pos+1]);
	if(!tags_get(ct) || (!(d = (*ct)->data[id]) &&
		!(d = (*ct)->data[id] = calloc(1, sizeof(*d))))) {
		free(w);
		return 0;
	}
	/* compat: unbound-1.17: a CNAME is alone in a tag's data */
	if(d->count && (type == TYPE_CNAME || d->type[0] == TYPE_CNAME)) {
		log_err("redirect tag data '%s' must not coexist with other "
			"data.", type == TYPE_CNAME ? text : "(earlier CNAME)");
		log_err("cannot parse access-control-tag data: %s '%s'", where,
			tag_data);
		free(w);
		return 0;
	}
	if(d->count == LZ_ROTATE_MAX) {
		log_err("too many access-control-tag data: %s", where);
		free(w);
		return 0;
	}
	d->type[d->count] = type;
	d->ttl[d->count] = (uint32_t)w[pos+4] << 24 |
		(uint32_t)w[pos+5] << 16 | (uint32_t)w[pos+6] << 8 | w[pos+7];
	d->rdlen[d->count] = (uint16_t)(w[pos+8] << 8 | w[pos+9]);
	if(pos + 10 + d->rdlen[d->count] != sz ||
		!(d->rdata[d->count] = malloc(d->rdlen[d->count] + 1))) {
		free(w);
		return 0;
	}
	memcpy(d->rdata[d->count], w + pos + 10, d->rdlen[d->count]);
	d->count++;
	free(w);
	return 1;
}

void
lz_client_tags_delete(struct lz_client_tags* ct)
{
	size_t i, j;
	if(!ct)
		return;
	for(i = 0; i < TAGS_MAX; i++) {
		if(!ct->data[i])
			continue;
		for(j = 0; j < ct->data[i]->count; j++)
			free(ct->data[i]->rdata[j]);
		free(ct->data[i]);
	}
	free(ct);
}

int
lz_tag_data_rrset(const struct lz_tag_data* d, const struct query_info* qi,
	struct lz_tag_rrset* out)
{
	size_t i;
	uint16_t type = 0;
	out->rr.count = 0;
	/* compat: unbound-1.17: the RRs of the question's type, or a
	 * CNAME (alone in the data), TTL of the first */
	for(i = 0; i < d->count; i++) {
		if(d->type[i] != qi->qtype && d->type[i] != TYPE_CNAME)
			continue;
		if(!out->rr.count) {
			type = d->type[i];
			out->rr.ttl = d->ttl[i];
		}
		out->rdata[out->rr.count] = d->rdata[i];
		out->rdlen[out->rr.count] = d->rdlen[i];
		out->ttls[out->rr.count] = d->ttl[i];
		if(d->ttl[i] != out->rr.ttl)
			out->mixed_ttl = 1;
		out->rr.count++;
	}
	if(!out->rr.count)
		return 0;
	out->rr.type = type;
	out->rr.rclass = qi->qclass;
	out->rr.rdata = (const uint8_t* const*)out->rdata;
	out->rr.rdlen = out->rdlen;
	return 1;
}

int
lz_client_tags_get_action(const struct lz_client_tags* ct, int tag,
	enum localzone_type* t)
{
	if(!ct || tag < 0 || tag >= TAGS_MAX || !ct->action[tag])
		return 0;
	*t = (enum localzone_type)(ct->action[tag] - 1);
	return 1;
}

size_t
lz_client_tags_records(const struct lz_client_tags* ct, int tag,
	uint16_t type, uint16_t rclass, uint8_t* buf, size_t cap,
	size_t* len)
{
	struct query_info qi;
	struct lz_tag_rrset r;
	size_t i, o = 0;
	*len = 0;
	if(!ct || tag < 0 || tag >= TAGS_MAX || !ct->data[tag])
		return 0;
	memset(&qi, 0, sizeof(qi));
	qi.qtype = type;
	qi.qclass = rclass;
	memset(&r, 0, sizeof(r));
	if(!lz_tag_data_rrset(ct->data[tag], &qi, &r))
		return 0;
	for(i = 0; i < r.rr.count; i++) {
		uint32_t ttl = r.ttls[i];
		if(o + 10 + r.rdlen[i] > cap)
			return 0;
		buf[o] = (uint8_t)(r.rr.type >> 8);
		buf[o+1] = (uint8_t)r.rr.type;
		buf[o+2] = (uint8_t)(rclass >> 8);
		buf[o+3] = (uint8_t)rclass;
		buf[o+4] = (uint8_t)(ttl >> 24);
		buf[o+5] = (uint8_t)(ttl >> 16);
		buf[o+6] = (uint8_t)(ttl >> 8);
		buf[o+7] = (uint8_t)ttl;
		buf[o+8] = (uint8_t)(r.rdlen[i] >> 8);
		buf[o+9] = (uint8_t)r.rdlen[i];
		memcpy(buf + o + 10, r.rdata[i], r.rdlen[i]);
		o += 10 + r.rdlen[i];
	}
	*len = o;
	return r.rr.count;
}

/* ---- local-zone-override ---- */

struct lz_override {
	uint8_t addr[16];
	int nbytes;
	int net;
	enum localzone_type type;
};

static int
addr_prefix_match(const uint8_t* a, const uint8_t* b, int net)
{
	int full = net / 8, rest = net % 8;
	if(memcmp(a, b, (size_t)full) != 0)
		return 0;
	if(rest) {
		uint8_t m = (uint8_t)(0xff << (8 - rest));
		return (a[full] & m) == (b[full] & m);
	}
	return 1;
}

enum localzone_type
lz_override_type(const struct lz_zone* z, const struct sockaddr_storage* addr,
	socklen_t addrlen)
{
	const uint8_t* b;
	int n, best = -1;
	size_t i;
	enum localzone_type t = local_zone_invalid;
	if(!addr || !(b = addr_bytes(addr, addrlen, &n)))
		return t;
	/* compat: unbound-1.17: the longest netblock that holds the
	 * client */
	for(i = 0; i < z->num_overrides; i++) {
		const struct lz_override* o = &z->overrides[i];
		if(o->nbytes == n && o->net > best &&
			addr_prefix_match(o->addr, b, o->net)) {
			best = o->net;
			t = o->type;
		}
	}
	return t;
}

static int
override_add(struct local_zones* lz, const char* zname, const char* rest)
{
	uint8_t nm[LDNS_MAX_DOMAINLEN + 1];
	char block[128];
	const char* sp = strchr(rest, ' ');
	const char* type = sp ? sp + 1 : "";
	size_t n = sp ? (size_t)(sp - rest) : strlen(rest);
	struct sockaddr_storage addr;
	socklen_t addrlen;
	int net, nbytes;
	const uint8_t* bytes;
	enum localzone_type t;
	struct lz_zone* z;
	struct lz_override* o;
	ldns_rdf* rdf = NULL;
	size_t i;
	if(ldns_str2rdf_dname(&rdf, zname) != LDNS_STATUS_OK || !rdf ||
		ldns_rdf_size(rdf) > sizeof(nm)) {
		ldns_rdf_deep_free(rdf);
		log_err("cannot parse zone name in local-zone-override: %s %s",
			zname, rest);
		return 0;
	}
	memcpy(nm, ldns_rdf_data(rdf), ldns_rdf_size(rdf));
	ldns_rdf_deep_free(rdf);
	if(n >= sizeof(block))
		n = sizeof(block) - 1;
	memcpy(block, rest, n);
	block[n] = 0;
	if(!netblockstrtoaddr(block, 53, &addr, &addrlen, &net) ||
		!(bytes = addr_bytes(&addr, addrlen, &nbytes))) {
		log_err("cannot parse netblock in local-zone-override: %s %s",
			zname, block);
		return 0;
	}
	if((t = local_zone_str2type(type)) == local_zone_invalid) {
		log_err("cannot parse type in local-zone-override: %s %s %s",
			zname, block, type);
		return 0;
	}
	if(!(z = lz_zone_find(lz, nm, CLASS_IN))) {
		log_err("no local-zone for local-zone-override %s", zname);
		return 0;
	}
	for(i = 0; i < z->num_overrides; i++)
		if(z->overrides[i].nbytes == nbytes &&
			z->overrides[i].net == net &&
			memcmp(z->overrides[i].addr, bytes, (size_t)nbytes) == 0) {
			log_err("duplicate local-zone-override %s %s", zname,
				block);
			return 0;
		}
	/* a handful per zone: grown one at a time in the arena */
	if(!(o = lz_arena_alloc(lz, (z->num_overrides + 1) * sizeof(*o))))
		return 0;
	if(z->num_overrides)
		memcpy(o, z->overrides, z->num_overrides * sizeof(*o));
	memcpy(o[z->num_overrides].addr, bytes, (size_t)nbytes);
	o[z->num_overrides].nbytes = nbytes;
	o[z->num_overrides].net = net;
	o[z->num_overrides].type = t;
	z->overrides = o;
	z->num_overrides++;
	return 1;
}

int
lz_enter_overrides(struct local_zones* lz, const struct config_file* cfg)
{
	const struct config_str2list* p;
	for(p = cfg ? cfg->local_zone_overrides : NULL; p; p = p->next)
		if(!override_add(lz, p->str, p->str2))
			return 0;
	return 1;
}

int
lz_copy_overrides(struct local_zones* lz, struct lz_zone* to,
	const struct lz_zone* from)
{
	struct lz_override* o;
	if(!from->num_overrides)
		return 1;
	if(!(o = lz_arena_alloc(lz, from->num_overrides * sizeof(*o))))
		return 0;
	memcpy(o, from->overrides, from->num_overrides * sizeof(*o));
	to->overrides = o;
	to->num_overrides = from->num_overrides;
	return 1;
}
